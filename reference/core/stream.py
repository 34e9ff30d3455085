"""The bounded per-request send queue between the scheduler (producer) and a writer (consumer).

Capacity is the high watermark: the producer may push only while ``buffered < capacity``, so
tokens committed but not yet taken by the writer never exceed it. A producer that found the
queue full asks for a credit signal; the consumer raises it when a pop brings the queue down
to the low watermark. The producer never waits on the consumer: it is told, not blocked.

The consumer may be a thread (:meth:`get`) or an asyncio task on any loop (:meth:`next`); the
producer wakes an asyncio consumer through ``loop.call_soon_threadsafe``. A producer that pushes
to many streams at once (one engine step's tokens) wraps the pushes in :func:`batched_wakes`:
each event loop is then woken once for the whole batch instead of once per stream, so the
producer's thread writes one byte to each loop's self-pipe per step, not one per request.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from servescope.instrumentation.terminal import Once

__all__ = ["StreamBuffer", "StreamOverflow", "Watermarks", "batched_wakes"]

_Waiter = tuple[asyncio.AbstractEventLoop, "asyncio.Future[None]"]
_batch = threading.local()  # .waiters: list[_Waiter] while this thread batches its wakes


class StreamOverflow(RuntimeError):
    """A push beyond capacity: a producer bug (the invariant this class exists to keep)."""


def _wake(fut: asyncio.Future[None]) -> None:
    if not fut.done():
        fut.set_result(None)


def _wake_all(futs: list[asyncio.Future[None]]) -> None:
    for fut in futs:
        _wake(fut)


def _call_soon(loop: asyncio.AbstractEventLoop, callback: Callable[..., None], arg: object
               ) -> None:
    # a closed loop raises RuntimeError: its consumer is gone, nobody to wake
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(callback, arg)


@contextlib.contextmanager
def batched_wakes() -> Iterator[None]:
    """Within the block, wakes of asyncio consumers on this thread are collected, then each
    loop is woken once (one ``call_soon_threadsafe``) for all of its streams. Nestable."""
    if getattr(_batch, "waiters", None) is not None:
        yield
        return
    _batch.waiters = []
    try:
        yield
    finally:
        waiters: list[_Waiter] = _batch.waiters
        _batch.waiters = None
        by_loop: dict[asyncio.AbstractEventLoop, list[asyncio.Future[None]]] = {}
        for loop, fut in waiters:
            by_loop.setdefault(loop, []).append(fut)
        for loop, futs in by_loop.items():
            _call_soon(loop, _wake_all, futs)


@dataclass(frozen=True)
class Watermarks:
    """The credit arithmetic of one bounded stream, apart from where its tokens are kept:
    ``capacity`` is the high watermark (None: unbounded), and a producer paused there resumes
    at ``low``. The buffer and the engine process's mirror of it both ask this one object, so
    they cannot disagree about whether a push fits."""

    capacity: int | None
    low: int = 0

    def __post_init__(self) -> None:
        if self.capacity is not None and self.capacity < 1:
            raise ValueError(f"capacity: must be >= 1 or None, got {self.capacity!r}")
        if self.capacity is not None and not 0 <= self.low < self.capacity:
            raise ValueError(f"low_watermark: must be in [0, capacity), got {self.low!r}")

    def credits(self, buffered: int) -> int:
        """How many tokens may be pushed with ``buffered`` waiting (large when unbounded)."""
        if self.capacity is None:
            return 1 << 30
        return max(0, self.capacity - buffered)

    def fits(self, buffered: int, n: int) -> bool:
        return self.capacity is None or buffered + n <= self.capacity

    def at_high(self, buffered: int) -> bool:
        return self.capacity is not None and buffered >= self.capacity

    def at_low(self, buffered: int) -> bool:
        return buffered <= self.low


class StreamBuffer:
    """A bounded token queue with high/low watermarks. ``capacity=None``: unbounded."""

    def __init__(self, capacity: int | None, low_watermark: int = 0, *,
                 on_credit: Callable[[], None] | None = None,
                 on_drained: Callable[[], None] | None = None) -> None:
        self.marks = Watermarks(capacity, low_watermark)
        self.capacity = capacity
        self.low_watermark = low_watermark
        self._on_credit = on_credit
        self._on_drained = on_drained
        self._lock = threading.Lock()
        self._ready = threading.Condition(self._lock)
        self._queue: deque[int] = deque()
        self._closed = Once(self._lock)  # claimed under the buffer's lock
        self._end_seen = False
        self._reader_gone = False
        self._wants_credit = False
        self._waiters: list[_Waiter] = []
        self.peak = 0
        self.pushed = 0
        self.popped = 0

    # --- producer side (the scheduler) ----------------------------------------------------
    @property
    def buffered(self) -> int:
        return len(self._queue)

    @property
    def closed(self) -> bool:
        return self._closed.is_set

    @property
    def drained(self) -> bool:
        """Closed, and the consumer has popped everything and seen the end."""
        return self._closed.is_set and self._end_seen and not self._queue

    def credits(self) -> int:
        """How many tokens may be pushed now (a large number when unbounded)."""
        return self.marks.credits(len(self._queue))

    def at_high_watermark(self) -> bool:
        return self.marks.at_high(len(self._queue))

    def at_low_watermark(self) -> bool:
        return self.marks.at_low(len(self._queue))

    def request_credit(self) -> None:
        """The producer paused: call ``on_credit`` once the queue drains to the low watermark."""
        with self._lock:
            self._wants_credit = True
            fire = self.marks.at_low(len(self._queue))
            if fire:
                self._wants_credit = False
        if fire and self._on_credit is not None:
            self._on_credit()

    def push(self, tokens: list[int]) -> None:
        if not tokens:
            return
        with self._lock:
            if self._closed.is_set:
                raise StreamOverflow("push after close")
            if not self.marks.fits(len(self._queue), len(tokens)):
                raise StreamOverflow(f"push of {len(tokens)} with {len(self._queue)} buffered "
                                     f"exceeds capacity {self.capacity}")
            self._queue.extend(tokens)
            self.pushed += len(tokens)
            self.peak = max(self.peak, len(self._queue))
            self._notify()

    def close(self, *, drop: bool) -> list[int]:
        """No more tokens. ``drop``: discard what is buffered (returned) so the consumer sees
        the end at once; otherwise the consumer may still pop the tail. Idempotent."""
        with self._lock:
            if not self._closed.claim_held():
                return []
            dropped = list(self._queue) if drop else []
            if drop:
                self._queue.clear()
                self._end_seen = True  # nobody owes us a drain: the end is decided
            self._wants_credit = False
            self._notify()
        return dropped

    def abort_reader(self) -> None:
        """The consumer is gone (disconnect, cancel): from now on every pop returns the end,
        so a racing writer cannot take tokens it will never deliver. What is buffered stays
        for the producer's ``close(drop=True)`` to count as dropped."""
        with self._lock:
            self._reader_gone = True
            self._end_seen = True  # nobody owes us a drain any more
            self._notify()

    def _notify(self) -> None:  # under the lock
        self._ready.notify_all()
        waiters, self._waiters = self._waiters, []
        batch: list[_Waiter] | None = getattr(_batch, "waiters", None)
        if batch is not None:  # woken once per loop when the producer's batch ends
            batch.extend(waiters)
            return
        for loop, fut in waiters:
            _call_soon(loop, _wake, fut)

    # --- consumer side (the writer) -------------------------------------------------------
    def pop(self, max_tokens: int = 64) -> list[int] | None:
        """Up to ``max_tokens`` tokens, ``[]`` when none is ready yet, None at the end."""
        credit = drained = False
        with self._lock:
            if self._reader_gone:
                return None
            if self._queue:
                n = min(max_tokens, len(self._queue))
                out = [self._queue.popleft() for _ in range(n)]
                self.popped += n
                if self._wants_credit and self.marks.at_low(len(self._queue)):
                    self._wants_credit = False
                    credit = True
                result: list[int] | None = out
            elif self._closed.is_set:
                drained = not self._end_seen
                self._end_seen = True
                result = None
            else:
                result = []
        if credit and self._on_credit is not None:
            self._on_credit()
        if drained and self._on_drained is not None:
            self._on_drained()
        return result

    def get(self, timeout_s: float | None = None, max_tokens: int = 64) -> list[int] | None:
        """Blocking pop: waits up to ``timeout_s`` (None: forever); ``[]`` on timeout."""
        with self._lock:
            if not self._queue and not self._closed.is_set and not self._reader_gone:
                self._ready.wait_for(
                    lambda: bool(self._queue) or self._closed.is_set or self._reader_gone,
                    timeout_s)
        return self.pop(max_tokens)

    async def next(self, max_tokens: int = 64) -> list[int] | None:
        """Await tokens (or the end) from an asyncio task on any event loop."""
        if max_tokens < 1:
            raise ValueError(f"max_tokens: must be >= 1, got {max_tokens!r}")
        loop = asyncio.get_running_loop()
        while True:
            with self._lock:
                ready = bool(self._queue) or self._closed.is_set or self._reader_gone
                if not ready:
                    fut: asyncio.Future[None] = loop.create_future()
                    self._waiters.append((loop, fut))
            if ready:
                chunk = self.pop(max_tokens)
                if chunk is None or chunk:
                    return chunk
                continue
            await fut
