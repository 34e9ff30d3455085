"""The engine core's event sink in both modes: what the scheduler reports, as typed events.

The scheduler reports to :class:`~servescope.instrumentation.step.RequestEvents` (one per
request) and a :class:`~servescope.instrumentation.step.StepSink` (one per engine). Each
request's is a :class:`RequestEncoder` in both modes, which appends the typed
:mod:`.engine_wire` event for each call to an :class:`EventSink`: the engine process's is the
iteration's list, sent as one message per iteration (never one per token); the in-process
engine's is the replayer, which applies each event as it is made. The engine process's step
sink is :class:`StepEncoder` (one :class:`~.engine_wire.StepMessage` per step); in process the
replayer takes the typed ``StepReport`` itself. Neither encoder holds a terminal state, metric
or span: the :class:`~.replayer.Replayer` applies the events to the real recorder and
telemetry.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

from servescope.instrumentation.status import FinishReason
from servescope.instrumentation.step import StepReport

from .engine_wire import (
    Admitted,
    Event,
    Finish,
    Paused,
    PrefillDone,
    Resumed,
    Scheduled,
    StepMessage,
)

__all__ = ["EventSink", "RequestEncoder", "StepEncoder"]


class EventSink(Protocol):
    """Where the encoders put each event: the iteration's list (engine process), or the
    replayer itself (in process)."""

    def append(self, event: Event, /) -> None: ...


class RequestEncoder:
    """One request's progress events, appended to the iteration's list."""

    __slots__ = ("_events", "request_id")

    def __init__(self, request_id: str, events: EventSink) -> None:
        self.request_id = request_id
        self._events = events

    def admitted(self) -> None:
        self._events.append(Admitted(self.request_id))

    def scheduled(self, *, now: float | None = None) -> None:
        self._events.append(Scheduled(self.request_id, now))

    def prefill_done(self, *, now: float | None = None) -> None:
        self._events.append(PrefillDone(self.request_id, now))

    def paused(self, *, now: float | None = None) -> None:
        self._events.append(Paused(self.request_id, now))

    def resumed(self, *, now: float | None = None) -> None:
        self._events.append(Resumed(self.request_id, now))

    def stream_closed(self, peak_buffered: int, capacity: int) -> None:
        pass  # the API process records its own buffer's peak

    def finish(self, reason: FinishReason, *, now: float | None = None) -> None:
        """The winner, then each late loser: the API side's recorder tells them apart."""
        self._events.append(Finish(self.request_id, reason, now))

    def rejected(self, reason: str, *, now: float | None = None) -> None:
        # refusals are the API process's submit path's, before the engine hears of the
        # request; should the core ever refuse one, the API side hears a rejected finish
        self._events.append(Finish(self.request_id, FinishReason.REJECTED, now))


class StepEncoder:
    """The scheduler's step sink in the engine process: a clock and one event per step."""

    def __init__(self, events: EventSink, clock: Callable[[], float] = time.monotonic
                 ) -> None:  # no registry, no tracer: no exporters
        self.clock = clock
        self._events = events

    def step(self, report: StepReport) -> None:
        now = self.clock() if report.now is None else report.now
        # (rid, committed, proposed, commit time): the time defaults to the report's
        advanced = [(item[0].request_id, item[1], item[2],
                     item[3] if len(item) > 3 else now)
                    for item in report.advanced]
        self._events.append(StepMessage(
            advanced=advanced, now=now, kv_blocks_used=report.kv_blocks_used,
            kv_blocks_total=report.kv_blocks_total, running=report.running,
            waiting=report.waiting, paused=report.paused,
            prefix_queries=report.prefix_queries, prefix_hits=report.prefix_hits,
            preemptions=report.preemptions, forward_seconds=dict(report.forward_seconds),
            step_tokens=dict(report.step_tokens)))
