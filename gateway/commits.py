"""Output tokens the relays (and the middleware's exchanges) credit, applied to the telemetry
once per event-loop turn.

A relay learns of tokens when their upstream chunk arrives: one commit per chunk per stream.
Reported one by one, each is a telemetry step of its own (a report, the token counters' lock,
the series lookups); gathered here, every stream that received a chunk in one turn of the
event loop shares one :meth:`Telemetry.commits` call. Each commit keeps its own arrival time,
so server TTFT and the token timings are what they were; only the counters' update waits, at
most until the end of the turn. A relay flushes before its request finishes (a finished
recorder takes no more commits).
"""

from __future__ import annotations

import asyncio

from servescope.instrumentation.request_recorder import RequestRecorder
from servescope.instrumentation.telemetry import Telemetry

__all__ = ["Commits"]


class Commits:
    """The pending commits of one gateway's relays (its event loop's)."""

    def __init__(self, telemetry: Telemetry) -> None:
        self.telemetry = telemetry
        self._pending: list[tuple[RequestRecorder, int, int, float]] = []
        self._scheduled = False

    def add(self, recorder: RequestRecorder, tokens: int, at: float) -> None:
        """``tokens`` output tokens of ``recorder`` arrived at ``at``."""
        self._pending.append((recorder, tokens, 0, at))
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        """Apply what is pending now (the turn's end, or a request about to finish)."""
        self._scheduled = False
        pending = self._pending
        if pending:
            self._pending = []
            self.telemetry.commits(pending)
