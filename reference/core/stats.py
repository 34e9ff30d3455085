"""What the scheduler publishes after each iteration: a stats object, apart from exporters.

A msgspec struct, so that the engine process sends the very object the scheduler published
(typed on the wire: the API process's decoder refuses a malformed one) instead of a list of
its fields in order.
"""

from __future__ import annotations

import msgspec

__all__ = ["EngineStats"]


class EngineStats(msgspec.Struct, frozen=True, array_like=True, gc=False,
                  forbid_unknown_fields=True):
    """A snapshot published by the scheduler after each iteration (for tests and /healthz)."""

    free_blocks: int
    total_blocks: int
    used_slots: int
    total_slots: int
    live_streams: int
    waiting: int
    running: int
    paused: int
    draining: int = 0
    steps: int = 0
    forward_seconds: float = 0.0  # model time, prefill and decode (CUDA events on a GPU)
    prefill_seconds: float = 0.0
    decode_seconds: float = 0.0
    committed_tokens: int = 0
    proposed_tokens: int = 0
    prefix_queries: int = 0
    prefix_hits: int = 0
    errors: int = 0
    preemptions: int = 0

    @property
    def idle(self) -> bool:
        """No request holds anything: pool, slots and streams are back to their initial state."""
        return (self.free_blocks == self.total_blocks and self.used_slots == 0
                and self.live_streams == 0 and self.waiting == 0 and self.running == 0
                and self.draining == 0)
