"""Output tokens the relays (and the middleware's exchanges) credit, applied to the telemetry
once per event-loop turn, and the stream-side levels they move.

A relay learns of tokens when their upstream chunk arrives: one commit per chunk per stream.
Reported one by one, each is a telemetry step of its own (a report, the token counters' lock,
the series lookups); gathered here, every stream that received a chunk in one turn of the
event loop shares one :meth:`Telemetry.commits` call. Each commit keeps its own arrival time,
so server TTFT and the token timings are what they were; only the counters' update waits, at
most until the end of the turn. A relay flushes before its request finishes (a finished
recorder takes no more commits).

The levels are what a scheduler reports each step: streams paused by a client that stopped
reading (``servescope_requests_paused``) and tokens received from the upstream but not yet
written to their client (``servescope_stream_buffered_tokens``). The relays move two counts
here; the gauges are set at the same turn's end, and only when a count changed (a chunk
written in the turn it arrived leaves them as they were).
"""

from __future__ import annotations

import asyncio

from servescope.instrumentation.request_recorder import RequestRecorder
from servescope.instrumentation.step import StepReport
from servescope.instrumentation.telemetry import Telemetry

__all__ = ["Commits"]


class Commits:
    """The pending commits of one gateway's relays (its event loop's), and its levels."""

    def __init__(self, telemetry: Telemetry) -> None:
        self.telemetry = telemetry
        self._pending: list[tuple[RequestRecorder, int, int, float]] = []
        self._scheduled = False
        self.paused = 0  # streams whose client's connection is holding a write back
        self.buffered = 0  # tokens committed and not yet written (or given up)
        self._reported = (0, 0)

    def add(self, recorder: RequestRecorder, tokens: int, at: float) -> None:
        """``tokens`` output tokens of ``recorder`` arrived at ``at`` (buffered until
        :meth:`written`)."""
        self._pending.append((recorder, tokens, 0, at))
        self.buffered += tokens
        self._soon()

    def written(self, tokens: int) -> None:
        """``tokens`` committed earlier left the buffer: written, or never to be (the
        client left, the stream was cut)."""
        self.buffered -= tokens
        self._soon()

    def pause_began(self) -> None:
        self.paused += 1
        self._soon()

    def pause_ended(self) -> None:
        self.paused -= 1
        self._soon()

    def _soon(self) -> None:
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
        levels = (self.paused, self.buffered)
        if levels != self._reported:
            self._reported = levels
            self.telemetry.step(StepReport(paused=levels[0], buffered_tokens=levels[1]))
