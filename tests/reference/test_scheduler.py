"""Scheduling policy: backpressure without head-of-line blocking, the slow-consumer policy,
admission by KV blocks and slots, and one telemetry call per iteration."""

from __future__ import annotations

import threading
import time

import pytest
from prometheus_client import CollectorRegistry
from waiting import poll_until

from servescope.instrumentation import FinishReason, StepReport, Telemetry
from servescope.reference.client.engine import Engine, RequestHandle
from servescope.reference.config import EngineConfig, ModelConfig
from servescope.reference.core.request import GenerationRequest

TINY = ModelConfig(dim=32, n_layers=1, n_heads=4, n_kv_heads=2, hidden_dim=64, max_context=128)


class CapturingTelemetry(Telemetry):
    """Real telemetry that also keeps every step report (to check what the scheduler says)."""

    def __init__(self) -> None:
        super().__init__(registry=CollectorRegistry())
        self.reports: list[StepReport] = []
        self._lock = threading.Lock()

    def step(self, report: StepReport) -> None:
        with self._lock:
            self.reports.append(report)
        super().step(report)


def make(**overrides: object) -> tuple[Engine, CapturingTelemetry]:
    telemetry = CapturingTelemetry()
    cfg = EngineConfig(**{"model": TINY, "block_size": 8, "num_blocks": 64, "max_batch": 8,
                          "stream_capacity": 4, "stream_low_watermark": 1,
                          **overrides})  # type: ignore[arg-type]
    return Engine(cfg, telemetry), telemetry


def req(rid: str, max_tokens: int, **kw: object) -> GenerationRequest:
    """ignore_eos: the random model may pick EOS; these tests need exact lengths."""
    return GenerationRequest(rid, list(f"{rid} prompt".encode()), max_tokens, ignore_eos=True,
                             **kw)  # type: ignore[arg-type]


def read_all(handle: RequestHandle, per_pop: int = 64, pause_s: float = 0.0) -> list[int]:
    out: list[int] = []
    while (chunk := handle.get_chunk(10, max_tokens=per_pop)) is not None:
        assert chunk, "stalled"
        out += chunk
        handle.delivered(len(chunk))
        if pause_s:
            time.sleep(pause_s)
    return out


def test_a_paused_request_does_not_block_the_others() -> None:
    engine, _ = make(slow_consumer_timeout_s=60.0)
    with engine:
        stuck = engine.submit(req("stuck", 60))
        poll_until(lambda: engine.stats().paused == 1, what="the pause", timeout_s=5.0,
                   interval_s=0.002)
        assert stuck.buffered == 4  # at the high watermark, and no further
        others = [engine.submit(req(f"o{i}", 30)) for i in range(5)]
        for h in others:
            assert len(read_all(h)) == 30
        assert all(h.finish_reason is FinishReason.LENGTH for h in others)
        stats = engine.stats()
        assert stats.paused == 1 and stats.running == 1 and stuck.finish_reason is None
        assert stuck.completion_tokens == 4
        # the stuck client starts reading: it resumes at the low watermark and completes
        assert len(read_all(stuck, per_pop=1)) == 60
        assert engine.wait_idle(5)
    assert stuck.finish_reason is FinishReason.LENGTH
    summary = stuck.recorder.summary()
    assert summary.pauses >= 1 and summary.discarded_tokens == 0
    assert stuck.peak_buffered <= 4


def test_slow_consumer_policy_finishes_and_frees_kv() -> None:
    engine, _ = make(slow_consumer_timeout_s=0.1)
    with engine:
        slow = engine.submit(req("slow", 60))
        fast = engine.submit(req("fast", 40))
        assert len(read_all(fast)) == 40
        assert slow.wait(5) is FinishReason.SLOW_CONSUMER
        assert engine.wait_idle(5)
    assert slow.get_chunk(1) is None  # the buffered tail was dropped with the request
    summary = slow.recorder.summary()
    assert summary.committed_tokens == 4 and summary.discarded_tokens == 4
    assert fast.finish_reason is FinishReason.LENGTH


def test_unsent_tokens_stay_within_capacity_with_speculation() -> None:
    engine, _ = make(speculation_ngram=1, speculation_k=6, stream_capacity=5,
                     stream_low_watermark=2)
    with engine:
        handles = [engine.submit(req(f"s{i}", 50)) for i in range(4)]
        threads = [threading.Thread(target=read_all, args=(h, 1, 0.0005)) for h in handles]
        for t in threads:
            t.start()
        for t in threads:
            t.join(20)
        assert engine.wait_idle(5)
    assert all(h.peak_buffered <= 5 for h in handles)
    assert all(h.completion_tokens == 50 for h in handles)
    assert engine.stats().proposed_tokens > 0


def run_mix(**overrides: object) -> tuple[list[list[int]], Engine, CapturingTelemetry]:
    engine, telemetry = make(stream_capacity=64, stream_low_watermark=1, **overrides)
    with engine:
        handles = [engine.submit(req(f"k{i}", 39)) for i in range(6)]
        outs = []
        for h in handles:
            outs.append(read_all(h))
            assert h.finish_reason is FinishReason.LENGTH
        assert engine.wait_idle(5)
    return outs, engine, telemetry


def test_kv_pressure_preempts_the_youngest_and_recomputes_the_same_tokens() -> None:
    # each request grows to ceil((9 + 39) / 8) = 6 blocks: 16 blocks cannot hold all six
    roomy, _, _ = run_mix(num_blocks=64)
    tight, engine, telemetry = run_mix(num_blocks=16)
    assert tight == roomy  # recomputation after preemption is exact
    stats = engine.stats()
    assert stats.preemptions > 0 and stats.free_blocks == 16
    assert sum(r.preemptions for r in telemetry.reports) == stats.preemptions
    assert max(r.kv_blocks_used or 0 for r in telemetry.reports) <= 16
    assert max(r.waiting or 0 for r in telemetry.reports) >= 1
    assert telemetry.reports[-1].kv_blocks_used == 0


def test_admission_waits_for_kv_blocks() -> None:
    # prompts of 60 tokens need 8 blocks each: 20 blocks admit two, the rest wait
    engine, telemetry = make(num_blocks=20, stream_capacity=64, stream_low_watermark=1)
    with engine:
        handles = [engine.submit(GenerationRequest(f"w{i}", [65 + i] * 60, 3, ignore_eos=True))
                   for i in range(4)]
        for h in handles:
            assert len(read_all(h)) == 3
        assert engine.wait_idle(5)
    assert max(r.running or 0 for r in telemetry.reports) == 2
    assert max(r.waiting or 0 for r in telemetry.reports) >= 1
    assert engine.stats().preemptions == 0


def test_the_admission_reserve_is_a_config_share() -> None:
    # the same load as above, but half the pool is kept free while requests run: one at a time
    engine, telemetry = make(num_blocks=20, stream_capacity=64, stream_low_watermark=1,
                             kv_admission_reserve=0.5)
    with engine:
        handles = [engine.submit(GenerationRequest(f"r{i}", [65 + i] * 60, 3, ignore_eos=True))
                   for i in range(3)]
        for h in handles:
            assert len(read_all(h)) == 3
        assert engine.wait_idle(5)
    assert max(r.running or 0 for r in telemetry.reports) == 1


def test_admission_waits_for_batch_slots() -> None:
    engine, telemetry = make(max_batch=2, stream_capacity=64, stream_low_watermark=1)
    with engine:
        handles = [engine.submit(req(f"b{i}", 10)) for i in range(5)]
        for h in handles:
            read_all(h)
        assert engine.wait_idle(5)
    assert max(r.running or 0 for r in telemetry.reports) == 2
    assert all(h.finish_reason is FinishReason.LENGTH for h in handles)


def test_deadline_applies_to_waiting_requests() -> None:
    engine, _ = make(max_batch=1, step_delay_s=0.01)
    with engine:
        first = engine.submit(req("first", 30))
        late = engine.submit(req("late", 5, deadline_s=0.05))
        assert late.wait(5) is FinishReason.DEADLINE
        read_all(first)
        assert engine.wait_idle(5)
    assert late.completion_tokens == 0 and late.recorder.summary().ttft is None


def test_one_telemetry_call_per_iteration_never_per_token() -> None:
    engine, telemetry = make(stream_capacity=64, stream_low_watermark=1)
    with engine:
        handles = [engine.submit(req(f"t{i}", 20)) for i in range(8)]
        for h in handles:
            read_all(h)
        assert engine.wait_idle(5)
        steps = engine.stats().steps
    advancing = [r for r in telemetry.reports if r.advanced]
    assert len(advancing) <= steps
    committed = sum(n for r in telemetry.reports for _, n, *_ in r.advanced)
    assert committed == 8 * 20
    assert len(advancing) < committed / 4  # batched: far fewer calls than tokens
    for r in advancing:  # one entry per request per step
        assert len({id(rec) for rec, *_ in r.advanced}) == len(r.advanced)


def test_normal_finish_waits_for_late_delivery_reports() -> None:
    """A writer that pops everything first and reports delivery afterwards (a non-streaming
    response) is counted as delivered, not discarded."""
    engine, _ = make(stream_capacity=64, stream_low_watermark=1)
    with engine:
        handle = engine.submit(req("whole", 12))
        popped = 0
        while (chunk := handle.get_chunk(10)) is not None:
            popped += len(chunk)
        assert handle.finish_reason is FinishReason.LENGTH
        assert not handle.recorder.finished  # the tail's delivery is still owed
        handle.delivered(popped)
        poll_until(lambda: handle.recorder.finished, what="the finish", timeout_s=5.0,
                   interval_s=0.002)
        assert engine.wait_idle(5)
    summary = handle.recorder.summary()
    assert summary.delivered_tokens == 12 and summary.discarded_tokens == 0


def test_a_stalled_tail_is_dropped_after_the_drain_timeout() -> None:
    engine, _ = make(stream_capacity=64, stream_low_watermark=1, drain_timeout_s=0.05)
    with engine:
        handle = engine.submit(req("tail", 12))
        assert handle.wait(5) is FinishReason.LENGTH
        # nobody read: dropped
        poll_until(lambda: handle.recorder.finished, what="the finish", timeout_s=5.0,
                   interval_s=0.002)
        assert engine.wait_idle(5)
    summary = handle.recorder.summary()
    assert summary.finish_reason is FinishReason.LENGTH and summary.discarded_tokens == 12


def test_two_hundred_stalled_streams_stay_bounded_and_are_reclaimed() -> None:
    engine, telemetry = make(max_batch=32, num_blocks=128, slow_consumer_timeout_s=0.05)
    with engine:
        handles = [engine.submit(req(f"s{i}", 50)) for i in range(200)]
        assert all(h.wait(20) is FinishReason.SLOW_CONSUMER for h in handles)
        assert engine.wait_idle(5)
    assert max(r.buffered_tokens or 0 for r in telemetry.reports) <= 32 * 4
    assert max(h.peak_buffered for h in handles) == 4
    assert sum(h.recorder.summary().discarded_tokens for h in handles) == 200 * 4


def test_steps_report_forward_time_and_tokens_by_phase() -> None:
    """Each step says how long its prefill and decode forwards took (perf_counter on a CPU,
    CUDA events on a GPU) and how many tokens each fed the model: once per step."""
    engine, telemetry = make(stream_capacity=64, stream_low_watermark=1, prefill_chunk=8)
    prompts = [req(f"p{i}", 6) for i in range(3)]
    with engine:
        handles = [engine.submit(r) for r in prompts]
        for h in handles:
            read_all(h)
        assert engine.wait_idle(5)
        stats = engine.stats()
    reports = [r for r in telemetry.reports if r.forward_seconds]
    assert reports
    prefill = [r.step_tokens["prefill"] for r in reports if "prefill" in r.step_tokens]
    decode = [r.step_tokens["decode"] for r in reports if "decode" in r.step_tokens]
    assert sum(prefill) == sum(len(r.prompt) for r in prompts)  # every prompt token once
    assert all(0 < n <= 3 * 8 for n in prefill)  # chunks of at most 8 tokens per request
    assert sum(decode) >= 3 * 5  # every token after the first is a decode input
    assert all(set(r.forward_seconds) == set(r.step_tokens) for r in reports)
    assert all(s > 0 for r in reports for s in r.forward_seconds.values())
    total = sum(s for r in reports for s in r.forward_seconds.values())
    assert total == pytest.approx(stats.forward_seconds, rel=1e-6)  # the same timers
    registry = telemetry.registry
    count = registry.get_sample_value("servescope_step_forward_time_seconds_count",
                                      {"pool": "default", "phase": "decode"})
    assert count == len(decode)
