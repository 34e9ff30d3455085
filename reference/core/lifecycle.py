"""One request's terminal state and the resources it holds, released exactly once.

The first terminal decision wins (the :class:`TerminalState` compare-and-set, shared with the
recorder); every later signal is a counted no-op.
Release follows dependency order: KV block references, batch slot, stream buffer, then the
recorder (which ends the spans).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from servescope.instrumentation import FinishReason, TerminalState
from servescope.instrumentation.step import RequestEvents
from servescope.instrumentation.terminal import Once

from .block_pool import BlockPool
from .stream import StreamBuffer

__all__ = ["Decision", "Lifecycle", "SlotPool"]


class SlotPool:
    """Batch slots ``0..n-1``: a running request holds one."""

    def __init__(self, n: int) -> None:
        self.total = n
        self._free = list(range(n - 1, -1, -1))
        self._held = [False] * n

    @property
    def used(self) -> int:
        return self.total - len(self._free)

    @property
    def free(self) -> int:
        return len(self._free)

    def acquire(self) -> int:
        slot = self._free.pop()
        self._held[slot] = True
        return slot

    def release(self, slot: int) -> None:
        if not self._held[slot]:
            raise ValueError(f"double release of slot {slot}")
        self._held[slot] = False
        self._free.append(slot)


class Decision(TerminalState):
    """A request's terminal decision as its handle reads it: the reason (the terminal state's),
    every reason attempted, an event set once decided, and two once-only flags: whether the
    recorder was told (``recorded``, under the decision's lock) and whether the resources were
    released (``released``)."""

    def __init__(self) -> None:
        super().__init__()
        self.attempts: list[FinishReason] = []
        self.released = Once()
        self.recorded = Once(self._lock)
        self.decided = threading.Event()

    @property
    def cleanup_count(self) -> int:
        """How many times the resources were released: 0 or 1."""
        return 1 if self.released.is_set else 0

    @property
    def reason(self) -> FinishReason | None:
        """The decided terminal reason (None while the request lives)."""
        return self._reason

    def decide(self, reason: FinishReason) -> bool:
        """True for the first terminal reason; False for every later one."""
        with self._lock:
            self.attempts.append(reason)
            won = self._settle_held(reason)
        if won:
            self.decided.set()
        return won

    def attempted(self, reason: FinishReason) -> None:
        """Note a signal that arrived after the request ended (it never decides): among the
        attempts, under the decision's lock like every other append."""
        with self._lock:
            self.attempts.append(reason)


class Lifecycle(Decision):
    """One request's terminal state and the resources it holds.

    The lifecycle decides, the recorder records: :meth:`decide` settles the terminal state
    (the first reason wins), then :meth:`record` hands the winner to the recorder. Release is
    split so that a normal completion can give back its KV blocks and slot at once while its
    stream's tail is still being written; the recorder is finished when the stream is
    released. Signals that lose are replayed into the recorder's ``finish`` after the
    winner, so the recorder counts them as ignored.

    ``on_decided`` hears the winning reason once, as soon as it wins, and ``on_recorded`` that
    the recorder was told: the engine process announces the decision to the API-side handle
    with the first and forgets the request with the second.
    """

    def __init__(self, recorder: RequestEvents, pool: BlockPool | None = None,
                 slots: SlotPool | None = None, *,
                 on_decided: Callable[[FinishReason], object] | None = None,
                 on_recorded: Callable[[], object] | None = None) -> None:
        super().__init__()
        self.recorder = recorder
        self._on_decided = on_decided
        self._on_recorded = on_recorded
        self.pool = pool
        self.slots = slots
        self.blocks: list[int] = []
        self.slot: int | None = None
        self.stream: StreamBuffer | None = None
        self.dropped: list[int] = []
        self._late: list[FinishReason] = []

    @property
    def kv_blocks(self) -> int:
        return len(self.blocks)

    def decide(self, reason: FinishReason) -> bool:
        """True for the first terminal reason; False (a no-op, counted by the recorder: at once
        if it was told the winner, else when it is) for every later one."""
        with self._lock:
            self.attempts.append(reason)
            won = self._settle_held(reason)
            if won:
                self.decided.set()
            recorded = self.recorded.is_set
            if not won and not recorded:
                self._late.append(reason)
        if won:
            if self._on_decided is not None:
                self._on_decided(reason)
            return True
        if recorded:
            self.recorder.finish(reason)  # returns False: counted as an ignored signal
        return False

    def release_compute(self) -> None:
        """KV block references, then the batch slot. Exactly once."""
        if not self.released.claim():
            return
        blocks, self.blocks = self.blocks, []
        if blocks and self.pool is not None:
            self.pool.free(blocks)
        slot, self.slot = self.slot, None
        if slot is not None and self.slots is not None:
            self.slots.release(slot)

    def release_stream(self, *, drop: bool) -> None:
        """Close the stream (dropping its tail if ``drop``) and report its peak."""
        stream, self.stream = self.stream, None
        if stream is None:
            return
        self.dropped = stream.close(drop=drop)
        if stream.capacity is not None:  # occupancy of an unbounded queue means nothing
            self.recorder.stream_closed(stream.peak, stream.capacity)

    def record(self, *, now: float | None = None) -> None:
        """Finish the recorder with the winning reason (ends spans), then the late signals."""
        assert self.reason is not None
        with self._lock:
            if not self.recorded.claim_held():
                return
            late, self._late = self._late, []
        self.recorder.finish(self.reason, now=now)
        for reason in late:
            self.recorder.finish(reason, now=now)
        if self._on_recorded is not None:
            self._on_recorded()

    def reject(self, why: str, *, now: float | None = None) -> None:
        """Refused before admission: terminal ``rejected`` with a reason; holds nothing."""
        if self.decide(FinishReason.REJECTED):
            self.recorded.claim()
            self.recorder.rejected(why, now=now)

    def terminate(self, reason: FinishReason, *, now: float | None = None) -> bool:
        """Decide and release everything at once (abnormal ends: the buffered tail is dropped)."""
        if not self.decide(reason):
            return False
        self.release_compute()
        self.release_stream(drop=True)
        self.record(now=now)
        return True
