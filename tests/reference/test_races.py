"""Terminal races: cancel, disconnect, deadline, worker error, slow consumer and normal stop
fired together at random points of many requests, from many threads.

Each request ends with exactly one finish reason (the first decision), every later signal is
a counted no-op, every resource is released exactly once, the pool, slots and buffers are
back to their initial state, and the registry balances: finished + in-flight == arrived.
The pool is small and prompts share a prefix, so preemption and shared-block refcounts race
along with the signals.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter

import pytest
from prometheus_client import CollectorRegistry

from servescope.instrumentation import FinishReason, Telemetry
from servescope.reference.client.engine import Engine, RequestHandle, _SchedulerSide
from servescope.reference.config import EngineConfig, ModelConfig
from servescope.reference.core.request import GenerationRequest

TINY = ModelConfig(dim=32, n_layers=1, n_heads=4, n_kv_heads=2, hidden_dim=64, max_context=96)
CAPACITY = 4
N_REQUESTS = 48
SIGNALS = (FinishReason.CLIENT_CANCEL, FinishReason.DEADLINE, FinishReason.ERROR, "fault")


def total(registry: CollectorRegistry, sample: str) -> float:
    return sum(s.value for m in registry.collect() for s in m.samples if s.name == sample)


def consume(handle: RequestHandle, rng: random.Random, style: str) -> None:
    """fast / slow readers, a client that disconnects mid-stream, one that never reads."""
    if style == "stalled":
        return
    chunks = 0
    while (chunk := handle.get_chunk(5, max_tokens=rng.randint(1, 4))) is not None:
        if not chunk:
            continue
        chunks += 1
        handle.delivered(len(chunk))
        if style == "slow":
            time.sleep(rng.uniform(0, 0.004))
        if style == "disconnect" and chunks >= rng.randint(1, 4):
            handle.cancel(FinishReason.CLIENT_CANCEL)
            return


def fire_together(handle: RequestHandle, signals: list[object], delay_s: float) -> None:
    """Several threads released by one barrier fire their signals at the same moment."""
    barrier = threading.Barrier(len(signals))

    def fire(signal: object) -> None:
        barrier.wait()
        if signal == "fault":
            handle.inject_fault()
        else:
            handle.cancel(signal)  # type: ignore[arg-type]

    time.sleep(delay_s)
    threads = [threading.Thread(target=fire, args=(s,)) for s in signals]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_racing_terminal_signals_leave_one_reason_and_no_leaks(seed: int) -> None:
    rng = random.Random(seed)
    registry = CollectorRegistry()
    cfg = EngineConfig(model=TINY, block_size=8, num_blocks=24, max_batch=6, max_waiting=24,
                       stream_capacity=CAPACITY, stream_low_watermark=1,
                       slow_consumer_timeout_s=0.05, drain_timeout_s=0.1,
                       speculation_ngram=rng.choice([0, 2]))
    engine = Engine(cfg, Telemetry(registry=registry))
    engine.start()
    handles: list[RequestHandle] = []
    workers: list[threading.Thread] = []
    lock = threading.Lock()

    def client(i: int) -> None:
        r = random.Random(seed * 1000 + i)
        prompt = list(f"shared system prompt {i} {'x' * r.randint(0, 30)}".encode())
        request = GenerationRequest(
            f"req-{seed}-{i}", prompt, r.randint(1, 40),
            deadline_s=r.choice([None, None, r.uniform(0.001, 0.05)]),
            stop_token_ids=tuple(r.sample(range(32, 127), r.choice([0, 0, 3]))))
        handle = engine.submit(request)
        with lock:
            handles.append(handle)
        style = r.choice(["fast", "fast", "slow", "disconnect", "stalled"])
        signals = r.sample(SIGNALS, r.randint(0, len(SIGNALS)))
        racers = [threading.Thread(target=consume, args=(handle, r, style))]
        if signals:
            racers.append(threading.Thread(target=fire_together,
                                           args=(handle, signals, r.uniform(0, 0.03))))
        for t in racers:
            t.start()
        for t in racers:
            t.join(20)

    for i in range(N_REQUESTS):
        t = threading.Thread(target=client, args=(i,))
        workers.append(t)
        t.start()
        if rng.random() < 0.3:
            time.sleep(rng.uniform(0, 0.005))
    for t in workers:
        t.join(30)
    assert not any(t.is_alive() for t in workers)
    assert engine.wait_idle(10), engine.stats()
    stats = engine.stats()
    engine.shutdown()

    assert len(handles) == N_REQUESTS
    reasons = set()
    for h in handles:
        life = h.life
        assert h.finish_reason is not None
        assert h.recorder.finished and h.recorder.finish_reason is h.finish_reason
        assert life.attempts[0] is h.finish_reason  # the first decision is the outcome
        summary = h.recorder.summary()
        # later ones: no-ops, each counted once (losers racing each other reach the recorder
        # in no set order, so the two lists hold the same signals, not in the same order)
        assert Counter(summary.ignored_signals) == Counter(life.attempts[1:])
        assert life.cleanup_count == (0 if h.finish_reason is FinishReason.REJECTED else 1)
        side = h.engine  # in process: the scheduler's record of the request (None: refused)
        core = side.seq.life if isinstance(side, _SchedulerSide) else None
        if core is not None:  # it decided what the handle replayed, and holds nothing
            assert core.reason is h.finish_reason and core.cleanup_count == 1
            assert core.kv_blocks == 0 and core.slot is None and core.stream is None
        assert h.peak_buffered <= CAPACITY
        assert summary.committed_tokens == summary.delivered_tokens + summary.discarded_tokens
        reasons.add(h.finish_reason)
    # pool, slots and buffers are back to their initial state
    assert stats.idle and stats.free_blocks == 24 and stats.used_slots == 0
    assert stats.live_streams == 0 and stats.paused == 0
    engine._scheduler.pool.check()
    # the registry balances: every arrival either finished or is still in flight
    arrived = total(registry, "servescope_requests_arrived_total")
    finished = total(registry, "servescope_requests_finished_total")
    in_flight = total(registry, "servescope_requests_in_flight")
    assert arrived == N_REQUESTS and finished + in_flight == arrived and in_flight == 0
    ignored = total(registry, "servescope_terminal_signals_ignored_total")
    assert ignored == sum(len(h.life.attempts) - 1 for h in handles)
    # the mix really raced: several different outcomes
    assert len(reasons) >= 3, reasons
