"""The bounded stream buffer: credits, watermarks, the end of stream, cross-thread wake-ups."""

from __future__ import annotations

import asyncio
import random
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servescope.reference.core.stream import StreamBuffer, StreamOverflow, batched_wakes


def test_push_beyond_capacity_is_refused() -> None:
    s = StreamBuffer(3, 1)
    s.push([1, 2, 3])
    assert s.credits() == 0 and s.at_high_watermark()
    with pytest.raises(StreamOverflow):
        s.push([4])
    assert s.buffered == 3


def test_credit_signal_fires_once_at_the_low_watermark() -> None:
    fired: list[int] = []
    s = StreamBuffer(4, 1, on_credit=lambda: fired.append(s.buffered))
    s.push([1, 2, 3, 4])
    s.request_credit()
    assert s.pop(1) == [1] and not fired  # 3 buffered: above the low watermark
    assert s.pop(1) == [2] and not fired
    assert s.pop(1) == [3] and fired == [1]  # reached the low watermark
    s.pop(1)
    assert fired == [1]


def test_credit_request_when_already_low_fires_at_once() -> None:
    fired: list[bool] = []
    s = StreamBuffer(4, 2, on_credit=lambda: fired.append(True))
    s.push([1])
    s.request_credit()
    assert fired == [True]


def test_close_keeps_the_tail_for_the_writer_and_reports_the_end_once() -> None:
    ends: list[bool] = []
    s = StreamBuffer(4, 0, on_drained=lambda: ends.append(True))
    s.push([1, 2])
    assert s.close(drop=False) == []
    assert s.pop(1) == [1] and s.pop(5) == [2]
    assert s.pop() is None and ends == [True]
    assert s.pop() is None and ends == [True]


def test_close_with_drop_discards_the_tail() -> None:
    ends: list[bool] = []
    s = StreamBuffer(4, 0, on_drained=lambda: ends.append(True))
    s.push([1, 2, 3])
    assert s.close(drop=True) == [1, 2, 3]
    assert s.pop() is None and ends == []  # the end was decided, not drained
    with pytest.raises(StreamOverflow):
        s.push([4])


def test_blocking_get_times_out_with_an_empty_chunk() -> None:
    s = StreamBuffer(2, 0)
    assert s.get(0.01) == []
    threading.Timer(0.02, lambda: s.push([7])).start()
    assert s.get(5) == [7]


def test_async_consumer_is_woken_from_another_thread() -> None:
    s = StreamBuffer(2, 0)

    def produce() -> None:
        for i in range(10):
            while s.credits() == 0:
                threading.Event().wait(0.001)
            s.push([i])
        s.close(drop=False)

    async def consume() -> list[int]:
        out: list[int] = []
        while (chunk := await s.next(3)) is not None:
            out += chunk
        return out

    t = threading.Thread(target=produce)
    t.start()
    assert asyncio.run(asyncio.wait_for(consume(), 10)) == list(range(10))
    t.join()
    assert s.peak <= 2


def test_batched_wakes_wake_each_loop_once_after_the_batch() -> None:
    streams = [StreamBuffer(4, 0) for _ in range(6)]
    loop = asyncio.new_event_loop()
    calls: list[int] = []
    real = loop.call_soon_threadsafe

    def counting(callback: object, *args: object) -> object:
        calls.append(1)
        return real(callback, *args)  # type: ignore[arg-type]

    loop.call_soon_threadsafe = counting  # type: ignore[method-assign]
    waiting = threading.Event()
    seen_in_batch: list[int] = []

    def produce() -> None:
        waiting.wait(10)
        with batched_wakes():
            for i, s in enumerate(streams):
                s.push([i])
            seen_in_batch.append(len(calls))  # nobody woken yet: the batch is open
        for s in streams:
            s.close(drop=False)

    async def consume_all() -> list[list[int]]:
        tasks = [asyncio.ensure_future(s.next(4)) for s in streams]
        while not all(s._waiters for s in streams):  # until every consumer waits on its
            await asyncio.sleep(0)  # future (each task runs up to its await)
        waiting.set()
        return list(await asyncio.gather(*tasks))  # type: ignore[arg-type]

    t = threading.Thread(target=produce)
    t.start()
    try:
        got = loop.run_until_complete(asyncio.wait_for(consume_all(), 10))
    finally:
        t.join()
        loop.close()
    assert got == [[i] for i in range(6)]
    assert seen_in_batch == [0]
    # six streams, one loop: one wake for the batch (the closes after it wake nobody waiting)
    assert len(calls) == 1


def test_unbounded_stream_grows() -> None:
    s = StreamBuffer(None)
    s.push(list(range(1000)))
    assert s.buffered == 1000 and not s.at_high_watermark()


@settings(max_examples=200, deadline=None)
@given(capacity=st.integers(1, 8), data=st.data())
def test_generated_but_unsent_never_exceeds_capacity(capacity: int, data: st.DataObject) -> None:
    """Any interleaving of a credit-respecting producer and a consumer stays within capacity,
    and every token comes out once, in order."""
    low = data.draw(st.integers(0, capacity - 1))
    s = StreamBuffer(capacity, low)
    produced = consumed = 0
    out: list[int] = []
    for op in data.draw(st.lists(st.tuples(st.booleans(), st.integers(1, 5)), max_size=60)):
        push, n = op
        if push:
            n = min(n, s.credits())
            s.push(list(range(produced, produced + n)))
            produced += n
        else:
            chunk = s.pop(n)
            assert chunk is not None
            out += chunk
            consumed += len(chunk)
        assert produced - consumed == s.buffered <= capacity
    assert out == list(range(consumed))


def test_threaded_producer_consumer_keeps_the_bound() -> None:
    rng = random.Random(3)
    s = StreamBuffer(5, 2)
    seen: list[int] = []

    def consume() -> None:
        while (chunk := s.get(5, max_tokens=rng.randint(1, 3))) is not None:
            seen.extend(chunk)

    t = threading.Thread(target=consume)
    t.start()
    for i in range(500):
        while s.credits() == 0:
            threading.Event().wait(0.0001)
        s.push([i])
        assert s.buffered <= 5
    s.close(drop=False)
    t.join(10)
    assert seen == list(range(500)) and s.peak <= 5


def test_abort_reader_ends_the_stream_for_the_writer_at_once() -> None:
    s = StreamBuffer(4, 0)
    s.push([1, 2, 3])
    s.abort_reader()
    assert s.pop() is None and s.get(0.01) is None
    assert asyncio.run(s.next()) is None
    assert s.close(drop=True) == [1, 2, 3]  # still counted as dropped by the producer


@settings(max_examples=60, deadline=None)
@given(capacity=st.integers(1, 12), low=st.integers(0, 11),
       ops=st.lists(st.tuples(st.booleans(), st.integers(1, 6)), max_size=40))
def test_the_engine_process_mirror_counts_credits_as_the_buffer_does(
        capacity: int, low: int, ops: list[tuple[bool, int]]) -> None:
    # the engine process's view of a buffer (pushed minus popped as reported) and the buffer
    # itself answer every credit question alike once the reader's progress has been reported
    from servescope.reference.client.engine_process import _MirrorStream

    low = low % capacity
    buffer = StreamBuffer(capacity, low)
    mirror = _MirrorStream("r", capacity, low, [])
    for push, n in ops:
        if push:
            tokens = list(range(min(n, buffer.credits())))
            assert buffer.marks.fits(buffer.buffered, len(tokens))
            buffer.push(tokens)
            mirror.push(tokens)
        else:
            buffer.pop(n)
            mirror.update(buffer.popped, end_seen=False)
        assert (mirror.credits(), mirror.at_high_watermark(), mirror.at_low_watermark()) == (
            buffer.credits(), buffer.at_high_watermark(), buffer.at_low_watermark())
