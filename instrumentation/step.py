"""What an engine core reports, and to what: one request's progress events and one scheduler
iteration.

None of it imports an exporter. The engine core tells each request's :class:`RequestEvents`
(admitted, scheduled, prefill done, paused/resumed, stream closed, finished) and builds one
:class:`StepReport` per iteration (the tokens each request committed, the capacity levels) for
a :class:`StepSink`. The reference engine gives each request an encoder that turns each call
into a typed event, replayed on the real :class:`~.request_recorder.RequestRecorder` (in
process and across a process boundary alike); the step report reaches the real
:class:`~.telemetry.Telemetry` as it is in process, and as a typed message across the boundary.
A scheduler may also be handed the recorder and telemetry directly (tests do). Neither side
needs the other's classes, and prometheus_client and OpenTelemetry stay out of the engine core.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from .status import FinishReason

__all__ = ["RequestEvents", "StepReport", "StepSink"]


class RequestEvents(Protocol):
    """What the engine core says about one request's progress, as it happens (a handful of
    calls per request; the tokens it commits go in the step's :class:`StepReport` instead,
    never one call per token). ``finish`` is called for the winning reason first, then once
    for each signal that lost to it."""

    request_id: str

    def admitted(self) -> None: ...

    def scheduled(self, *, now: float | None = None) -> None: ...

    def prefill_done(self, *, now: float | None = None) -> None: ...

    def paused(self, *, now: float | None = None) -> None: ...

    def resumed(self, *, now: float | None = None) -> None: ...

    def stream_closed(self, peak_buffered: int, capacity: int) -> None: ...

    def finish(self, reason: FinishReason, *, now: float | None = None) -> object: ...

    def rejected(self, reason: str, *, now: float | None = None) -> object: ...


@dataclass(slots=True)
class StepReport:
    """One scheduler iteration, reported in one call.

    ``advanced`` holds (events, committed, proposed) for each request the step advanced (its
    :class:`RequestEvents`: in process the recorder :class:`~.telemetry.Telemetry` made),
    optionally with a fourth item: when its tokens were committed (the clock right after its
    sampling; default ``now``), so that TTFT and TPOT never include the rest of the iteration;
    capacity fields are levels after the step (None: unchanged); ``prefix_*`` and
    ``preemptions`` are increments since the previous report. ``forward_seconds`` and
    ``step_tokens`` map a phase (``prefill``/``decode``) to the forward time and the tokens of
    that phase's forward in this step (absent: the phase did not run).
    """

    advanced: Sequence[tuple[RequestEvents, int, int] |
                       tuple[RequestEvents, int, int, float]] = ()
    now: float | None = None
    kv_blocks_used: int | None = None
    kv_blocks_total: int | None = None
    running: int | None = None
    waiting: int | None = None
    paused: int | None = None
    buffered_tokens: int | None = None
    prefix_queries: int = 0
    prefix_hits: int = 0
    preemptions: int = 0
    forward_seconds: Mapping[str, float] = field(default_factory=dict)
    step_tokens: Mapping[str, int] = field(default_factory=dict)


class StepSink(Protocol):
    """What a scheduler reports to: a clock and one call per iteration."""

    clock: Callable[[], float]

    def step(self, report: StepReport) -> None: ...
