"""The API side's replay of the engine core's typed events on the real request state.

The engine core reports through encoders (``wire_events``) that turn every recorder hook,
stream push and step report into one typed :mod:`.engine_wire` event. :class:`Replayer`
applies a batch of them, in the order the core made them, to the API side's objects: each
live request's stream buffer, terminal decision (:class:`RemoteLifecycle`) and recorder, and
the process's telemetry (one ``step`` per engine step). It is also where a request is ended
on the API side exactly once (:meth:`Replayer.end`): the engine's finish, or a lost engine.

It works on any handle that has those parts (:class:`Replayable`); it knows no socket.
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable, Iterable, MutableMapping
from typing import Any, Generic, Protocol, TypeVar

from servescope.instrumentation import FinishReason, RequestRecorder, StepReport
from servescope.instrumentation.step import RequestEvents, StepSink

from ..core.lifecycle import Decision
from ..core.stream import StreamBuffer
from .engine_wire import (
    Admitted,
    Close,
    Decided,
    Event,
    Finish,
    LeftWaiting,
    Paused,
    PrefillDone,
    Push,
    Requeued,
    Resumed,
    Scheduled,
    StepMessage,
    WantCredit,
)

__all__ = ["RECENT", "RemoteLifecycle", "Replayable", "Replayer"]

RECENT = 4096  # finished recorders kept for late signals (bounded: no leak)


class RemoteLifecycle(Decision):
    """The API-side terminal state of one request: the engine decides, this mirrors it
    (or decides ``error`` itself when the engine is lost), and the recorder is finished once."""

    def mark_recorded(self) -> bool:
        """True the first time (the caller then finishes the recorder)."""
        first = self.recorded.claim()
        if first:
            self.released.claim()  # the engine released them; nothing more is held here
        return first


class Replayable(Protocol):
    """What the replayer reads and writes of one API-side request."""

    @property
    def request_id(self) -> str: ...

    @property
    def recorder(self) -> RequestRecorder: ...

    @property
    def stream(self) -> StreamBuffer: ...

    @property
    def life(self) -> RemoteLifecycle: ...


H = TypeVar("H", bound=Replayable)


class Replayer(Generic[H]):
    """Applies the engine core's events to the live requests (``live``, shared with the
    client and changed under ``lock``) and to ``telemetry``. ``left_waiting``/``requeued``
    keep the client's count of waiting requests."""

    def __init__(self, telemetry: StepSink, live: MutableMapping[str, H],
                 lock: threading.Lock, left_waiting: Callable[[], None],
                 requeued: Callable[[], None]) -> None:
        self.telemetry = telemetry
        self.clock = telemetry.clock  # the scheduler's clock when this is its step sink
        self.live = live
        self._lock = lock
        self._left_waiting = left_waiting
        self._requeued = requeued
        # an ended request's decision and recorder, for late signals (not the handle: its
        # stream and the engine's record of the request may go)
        self._recent: collections.OrderedDict[str, tuple[RemoteLifecycle, RequestRecorder]] = \
            collections.OrderedDict()
        self._apply = self._handlers()

    def append(self, event: Event) -> None:
        """Apply one event now: the replayer as the encoders' sink (the in-process engine,
        where events need not wait for a message)."""
        self._apply[type(event)](event)

    def step(self, report: StepReport) -> None:
        """The in-process engine's step, handed through as the scheduler built it: no wire
        message, no copy, nothing per request. Its entries already name the API side's
        recorders (resolved once per request at submission, ``SeqRecord.report_as``), and
        its buffered count is the API side's own (the scheduler pushes into these buffers).
        The engine process's step arrives as a :class:`StepMessage` instead (``replay``)."""
        self.telemetry.step(report)

    def replay(self, events: Iterable[Event]) -> None:
        """Apply each event in the order the engine made it."""
        apply = self._apply
        for event in events:
            apply[type(event)](event)

    # --- one handler per kind (a table lookup: cheaper than matching each kind in turn) ---
    def _handlers(self) -> dict[type, Callable[[Any], None]]:
        live = self.live

        def on_live(apply: Callable[[H, Any], object]) -> Callable[[Any], None]:
            """The handler of a kind about one request: applied while it is live here."""
            def handler(event: Any) -> None:
                handle = live.get(event.request_id)
                if handle is not None:
                    apply(handle, event)
            return handler

        return {
            Push: on_live(_push), StepMessage: self._step,
            Admitted: on_live(lambda h, e: h.recorder.admitted()),
            Scheduled: on_live(lambda h, e: h.recorder.scheduled(now=e.now)),
            PrefillDone: on_live(lambda h, e: h.recorder.prefill_done(now=e.now)),
            Paused: on_live(lambda h, e: h.recorder.paused(now=e.now)),
            Resumed: on_live(lambda h, e: h.recorder.resumed(now=e.now)),
            Decided: on_live(lambda h, e: h.life.decide(e.reason)),
            Close: on_live(lambda h, e: h.stream.close(drop=e.drop)),
            WantCredit: on_live(lambda h, e: h.stream.request_credit()),
            Finish: lambda e: self._finish(e.request_id, live.get(e.request_id), e.reason,
                                           e.now),
            LeftWaiting: lambda _: self._left_waiting(),
            Requeued: lambda _: self._requeued()}

    def end(self, handle: H, reason: FinishReason, now: float | None, *, drop: bool) -> None:
        """Finish one request here, exactly once: stream, then the recorder."""
        if handle.life.reason is not reason:  # the engine's decision arrived first: once
            handle.life.decide(reason)  # wins, or a loser among the attempts
        if not handle.life.mark_recorded():
            handle.recorder.finish(reason, now=now)
            return
        with self._lock:
            self.live.pop(handle.request_id, None)
        stream = handle.stream
        if not stream.closed:
            stream.close(drop=drop)
        if stream.capacity is not None:
            handle.recorder.stream_closed(stream.peak, stream.capacity)
        final = handle.life.reason
        assert final is not None
        handle.recorder.finish(final, now=now)
        if final is not reason:  # the loser that ended it here is a counted late signal
            handle.recorder.finish(reason, now=now)
        self._recent[handle.request_id] = (handle.life, handle.recorder)
        while len(self._recent) > RECENT:
            self._recent.popitem(last=False)

    def _finish(self, rid: str, handle: H | None, reason: FinishReason,
                now: float | None) -> None:
        if handle is None:  # a late signal for a request that ended: counted as ignored
            ended = self._recent.get(rid)
            if ended is not None:
                life, recorder = ended
                life.attempted(reason)
                recorder.finish(reason, now=now)
            return
        self.end(handle, reason, now, drop=True)

    def _step(self, step: StepMessage) -> None:
        live = self.live
        advanced: list[tuple[RequestEvents, int, int, float]] = []
        append = advanced.append  # once per request per step: kept tight
        for rid, committed, proposed, committed_at in step.advanced:
            handle = live.get(rid)
            if handle is not None:
                append((handle.recorder, committed, proposed, committed_at))
        # a copy first (one C call: atomic under the GIL): a submission may add a handle
        # while this runs, and iterating the live dict itself would then raise
        buffered = 0
        for handle in list(live.values()):
            buffered += handle.stream.buffered
        self.telemetry.step(StepReport(
            advanced=advanced, now=step.now, kv_blocks_used=step.kv_blocks_used,
            kv_blocks_total=step.kv_blocks_total, running=step.running, waiting=step.waiting,
            paused=step.paused, buffered_tokens=buffered, prefix_queries=step.prefix_queries,
            prefix_hits=step.prefix_hits, preemptions=step.preemptions,
            forward_seconds=step.forward_seconds, step_tokens=step.step_tokens))


def _push(handle: Replayable, event: Push) -> None:
    if not handle.stream.closed:
        handle.stream.push(event.tokens)
