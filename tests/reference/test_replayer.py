"""The shared replayer applies the engine core's typed events to real API-side request state.

Real parts: the process's :class:`Telemetry` (its registry is read), real recorders, real
stream buffers; only the events are written by hand, as the engine core's encoders make them.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from servescope.instrumentation import FinishReason, RequestRecorder, Telemetry
from servescope.reference.client.engine_wire import (
    Admitted,
    Decided,
    Event,
    Finish,
    LeftWaiting,
    PrefillDone,
    Push,
    Requeued,
    Scheduled,
    StepMessage,
)
from servescope.reference.client.replayer import RemoteLifecycle, Replayer
from servescope.reference.core.stream import StreamBuffer


@dataclass
class _Handle:
    """The parts of a request handle the replayer uses (any handle has them)."""

    request_id: str
    recorder: RequestRecorder
    stream: StreamBuffer = field(default_factory=lambda: StreamBuffer(16, 4))
    life: RemoteLifecycle = field(default_factory=RemoteLifecycle)


class _Side:
    def __init__(self) -> None:
        self.telemetry = Telemetry(clock=lambda: 100.0)
        self.live: dict[str, _Handle] = {}
        self.waiting = 0
        self.replayer = Replayer(self.telemetry, self.live, threading.Lock(),
                                 self._left, self._requeued)

    def _left(self) -> None:
        self.waiting -= 1

    def _requeued(self) -> None:
        self.waiting += 1

    def open(self, rid: str) -> _Handle:
        handle = _Handle(rid, self.telemetry.request(rid, prompt_tokens=4, arrival=1.0))
        self.live[rid] = handle
        return handle

    def total(self, name: str, **labels: str) -> float:
        """The sum of ``name``'s samples whose labels include ``labels``."""
        return sum(s.value for m in self.telemetry.registry.collect() for s in m.samples
                   if s.name == name and labels.items() <= s.labels.items())


def _step(now: float, *advanced: tuple[str, int, int, float]) -> StepMessage:
    return StepMessage(advanced=list(advanced), now=now, kv_blocks_used=2, running=1,
                       forward_seconds={"decode": 0.01}, step_tokens={"decode": 1})


def test_a_request_replays_to_its_recorder_stream_and_terminal_state_once() -> None:
    side = _Side()
    handle = side.open("r1")
    events: list[Event] = [
        Admitted("r1"), LeftWaiting(), Scheduled("r1", 2.0), PrefillDone("r1", 3.0),
        Push("r1", [5, 6]), _step(3.0, ("r1", 2, 1, 3.0)),
        Decided("r1", FinishReason.STOP), Finish("r1", FinishReason.STOP, 4.0)]
    side.waiting = 1
    side.replayer.replay(events)
    assert handle.life.reason is FinishReason.STOP and handle.life.recorded.is_set
    assert handle.stream.closed and handle.stream.pushed == 2
    assert handle.recorder.summary().proposed_tokens == 1
    assert "r1" not in side.live and side.waiting == 0
    assert side.total("servescope_step_tokens_count", phase="decode") >= 1


def test_a_late_finish_after_the_end_is_a_counted_ignored_signal() -> None:
    side = _Side()
    side.open("r1")
    side.replayer.replay([Finish("r1", FinishReason.STOP, 4.0)])
    before = side.total("servescope_terminal_signals_ignored_total")
    side.replayer.replay([Finish("r1", FinishReason.CLIENT_CANCEL, 5.0), Requeued()])
    after = side.total("servescope_terminal_signals_ignored_total")
    assert after == before + 1 and side.waiting == 1


def test_a_submission_during_a_step_replay_does_not_break_it() -> None:
    """The link replays while a submitting thread adds a handle under the lock: the step's
    buffered total must not iterate the live dict while it grows."""
    side = _Side()

    class _Growing(StreamBuffer):
        @property
        def buffered(self) -> int:  # a submission lands between two reads
            if "late" not in side.live:
                side.open("late")
            return 0

    side.live["r1"] = _Handle("r1", side.telemetry.request("r1", prompt_tokens=4),
                              stream=_Growing(16, 4))
    side.replayer.replay([_step(3.0, ("r1", 1, 0, 3.0))])
    assert "late" in side.live
    assert side.total("servescope_step_tokens_count", phase="decode") >= 1
