"""The real scheduler stepped by hand: an injected clock, no threads, one iteration per tick.

The seed's worked trace (tokens A..G, at most one per tick, the transport draining
``[1,0,0,0,1,0,1,0,0]`` before each tick's generation, the deadline at tick 8 and a client
cancel right after it) runs through the engine's own scheduler: its credit check pauses the
request at the high watermark and resumes it at the low one, the deadline comes from its
timers, the cancel from its mailbox.
"""

from __future__ import annotations

import pytest

from servescope.harness.experiment import SEED_DEADLINE_TICK, SEED_DRAIN, SEED_TOKENS
from servescope.instrumentation import FinishReason, Telemetry
from servescope.reference.client.engine import Engine, _SchedulerSide
from servescope.reference.config import EngineConfig, ModelConfig
from servescope.reference.core.plan import InjectedCrash
from servescope.reference.core.request import GenerationRequest

TINY = ModelConfig(dim=32, n_layers=1, n_heads=4, n_kv_heads=2, hidden_dim=64, max_context=64)


class Ticks:
    """The injected clock: one second per tick, moved only by the test."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _seed_engine(capacity: int) -> tuple[Engine, Ticks]:
    clock = Ticks()
    # low watermark capacity - 1: generate whenever a credit is free (the seed's rule)
    config = EngineConfig(model=TINY, block_size=16, num_blocks=8, max_batch=1,
                          stream_capacity=capacity, stream_low_watermark=capacity - 1,
                          slow_consumer_timeout_s=100.0, idle_report_s=100.0)
    return Engine(config, Telemetry(clock=clock)), clock  # never started: no thread


def test_the_seed_trace_through_the_real_scheduler() -> None:
    engine, clock = _seed_engine(capacity=3)
    scheduler = engine._scheduler
    handle = engine.submit(GenerationRequest("req-42", [1, 2, 3], len(SEED_TOKENS),
                                             deadline_s=float(SEED_DEADLINE_TICK),
                                             ignore_eos=True))
    names: dict[int, str] = {}  # generated id -> the seed's letter, by position
    sent, paused_ticks = "", []
    for tick, n_drain in enumerate(SEED_DRAIN):
        clock.now = float(tick)
        if tick >= SEED_DEADLINE_TICK:
            scheduler.iterate()  # the deadline, from the scheduler's own timers
            handle.cancel(FinishReason.CLIENT_CANCEL)  # the client's cancel, after it
            scheduler.iterate()
            break
        chunk = handle.get_chunk(0.0, max_tokens=n_drain) if n_drain else []
        if chunk:
            sent += "".join(names[i] for i in range(len(sent), len(sent) + len(chunk)))
            handle.delivered(len(chunk))
        committed = handle.completion_tokens
        was_paused = handle.recorder.summary().pauses
        scheduler.iterate()
        for i in range(committed, handle.completion_tokens):
            names[i] = SEED_TOKENS[i]
        if handle.recorder.summary().pauses > was_paused:
            paused_ticks.append(tick)
    life = handle.life
    side = handle.engine  # in process: the scheduler's own record of the request
    assert isinstance(side, _SchedulerSide)
    core = side.seq.life
    generated = "".join(names[i] for i in sorted(names))
    assert (sent, generated) == ("AB", "ABCDE")
    assert len(core.dropped) == 3  # CDE: committed, never sent
    assert paused_ticks == [3, 5, 7]
    assert handle.finish_reason is FinishReason.DEADLINE  # the deadline wins
    assert life.attempts == [FinishReason.DEADLINE, FinishReason.CLIENT_CANCEL]
    assert handle.recorder.summary().ignored_signals == (FinishReason.CLIENT_CANCEL,)
    assert life.cleanup_count == 1 and core.cleanup_count == 1
    assert core.kv_blocks == 0 and core.slot is None
    # the core decided the deadline; the cancel came after the request was recorded, so the
    # handle counted it as late without telling the engine (as across the process boundary)
    assert core.attempts == [FinishReason.DEADLINE]
    stats = scheduler.stats
    assert stats.idle and stats.free_blocks == stats.total_blocks
    summary = handle.recorder.summary()
    assert (summary.committed_tokens, summary.delivered_tokens,
            summary.discarded_tokens) == (5, 2, 3)


def test_unbounded_the_same_trace_generates_everything_without_a_pause() -> None:
    """Without a bound the engine runs ahead of the reader: all seven tokens by tick 6, a
    ``length`` end, and five tokens the reader has not taken (the seed's CDEFG), which wait for
    the writer (a stop/length tail is not dropped by a later deadline)."""
    clock = Ticks()
    config = EngineConfig(model=TINY, block_size=16, num_blocks=8, max_batch=1,
                          unbounded_streams=True, idle_report_s=100.0)
    engine = Engine(config, Telemetry(clock=clock))
    handle = engine.submit(GenerationRequest("req-42", [1, 2, 3], len(SEED_TOKENS),
                                             deadline_s=float(SEED_DEADLINE_TICK),
                                             ignore_eos=True))
    sent = 0
    for tick, n_drain in enumerate(SEED_DRAIN):
        clock.now = float(tick)
        if tick >= SEED_DEADLINE_TICK:
            engine._scheduler.iterate()
            break
        chunk = handle.get_chunk(0.0, max_tokens=n_drain) if n_drain else []
        sent += len(chunk or [])
        engine._scheduler.iterate()
    assert handle.finish_reason is FinishReason.LENGTH
    assert sent == 2 and handle.completion_tokens == len(SEED_TOKENS)  # ABCDEFG, sent AB
    assert handle.buffered == 5  # CDEFG
    assert handle.recorder.summary().pauses == 0


def test_the_injected_clock_drives_deadline_and_slow_consumer_timers() -> None:
    clock = Ticks()
    config = EngineConfig(model=TINY, block_size=16, num_blocks=8, max_batch=2,
                          stream_capacity=2, stream_low_watermark=1,
                          slow_consumer_timeout_s=5.0, idle_report_s=100.0)
    engine = Engine(config, Telemetry(clock=clock))
    stalled = engine.submit(GenerationRequest("stalled", [1, 2], 20, ignore_eos=True))
    late = engine.submit(GenerationRequest("late", [1, 2], 20, deadline_s=3.0,
                                           ignore_eos=True))
    for tick in range(3):  # both fill their buffers and pause; nothing reads
        clock.now = float(tick)
        engine._scheduler.iterate()
    assert stalled.finish_reason is None and late.finish_reason is None
    clock.now = 3.0  # the deadline is due: no wall time has to pass
    engine._scheduler.iterate()
    assert late.finish_reason is FinishReason.DEADLINE and stalled.finish_reason is None
    clock.now = 6.9  # paused since tick 2: not yet 5 s
    engine._scheduler.iterate()
    assert stalled.finish_reason is None
    clock.now = 7.1
    engine._scheduler.iterate()
    assert stalled.finish_reason is FinishReason.SLOW_CONSUMER
    assert engine._scheduler.stats.idle


def test_schedule_execute_update_a_launched_step_is_never_interrupted() -> None:
    clock = Ticks()
    config = EngineConfig(model=TINY, block_size=16, num_blocks=8, max_batch=2,
                          idle_report_s=100.0)
    engine = Engine(config, Telemetry(clock=clock))
    scheduler = engine._scheduler
    handle = engine.submit(GenerationRequest("r", [1, 2, 3], 10, ignore_eos=True))
    plan = scheduler.schedule()  # admits it: one prefill row
    assert [len(g) for g in plan.groups] == [1] and plan.groups[0][0].prefill
    outputs = scheduler.execute(plan)
    assert handle.completion_tokens == 0  # the runner changed nothing yet
    handle.cancel()  # arrives while the step is in flight
    scheduler.update(plan, outputs)
    assert handle.completion_tokens == 1 and handle.finish_reason is None  # step completed
    plan = scheduler.schedule()  # the next boundary applies the cancel
    assert plan.groups == [] and handle.finish_reason is FinishReason.CLIENT_CANCEL
    scheduler.iterate()  # nothing left to run: the idle report publishes the stats
    assert scheduler.stats.idle


def test_a_scripted_runner_drives_the_scheduler_without_the_model() -> None:
    """update() takes any runner's outputs: scripted tokens (a stop token on the third)."""
    from servescope.reference.core.scheduler import GroupOutput

    clock = Ticks()
    config = EngineConfig(model=TINY, block_size=16, num_blocks=8, max_batch=1,
                          idle_report_s=100.0)
    engine = Engine(config, Telemetry(clock=clock))
    scheduler = engine._scheduler
    stop = ord(".")
    handle = engine.submit(GenerationRequest("r", [1, 2], 10, stop_token_ids=(stop,)))
    script = iter([ord("h"), ord("i"), stop])
    for tick in range(3):
        clock.now = float(tick)
        plan = scheduler.schedule()
        outputs = [GroupOutput(group, [[*([0] * (len(row.inputs) - 1)), next(script)]
                                       for row in group], [], clock.now)
                   for group in plan.groups]
        scheduler.update(plan, outputs)
    assert handle.finish_reason is FinishReason.STOP
    got = []
    while (chunk := handle.get_chunk(0.0)) is not None:
        got += chunk
        handle.delivered(len(chunk))
    assert bytes(got) == b"hi"  # the stop token ends the request and is not emitted
    scheduler.iterate()  # the drained stream ends the request at the next boundary
    assert handle.recorder.finished and scheduler.stats.idle
    assert handle.recorder.summary().ttft == 0.0  # stamped by the injected clock


def test_a_paused_request_is_preempted_first_and_still_times_out() -> None:
    """Stepped, so no wall clock decides which comes first: the others run out of blocks
    (and preempt the paused request) while the clock stands still; then the slow-consumer
    timeout fires for it."""
    clock = Ticks()
    config = EngineConfig(model=TINY, block_size=8, num_blocks=16, max_batch=8,
                          stream_capacity=4, stream_low_watermark=1,
                          slow_consumer_timeout_s=2.0, idle_report_s=100.0)
    engine = Engine(config, Telemetry(clock=clock))  # never started: no thread
    scheduler = engine._scheduler

    def request(rid: str, n: int) -> GenerationRequest:
        return GenerationRequest(rid, list(f"{rid} prompt".encode()), n, ignore_eos=True)

    stalled = engine.submit(request("stalled", 60))
    for _ in range(10):
        scheduler.iterate()
    assert scheduler.stats.paused == 1
    others = [engine.submit(request(f"g{i}", 39)) for i in range(3)]
    got = [0] * len(others)
    for _ in range(500):  # the clock stands still: no timer can fire meanwhile
        scheduler.iterate()
        for i, handle in enumerate(others):
            while chunk := handle.get_chunk(0.0):
                got[i] += len(chunk)
                handle.delivered(len(chunk))
        if got == [39] * 3 and all(h.finish_reason is not None for h in others):
            break
    assert got == [39] * 3 and all(h.finish_reason is FinishReason.LENGTH for h in others)
    assert stalled.finish_reason is None
    side = stalled.engine
    assert isinstance(side, _SchedulerSide) and side.seq.preemptions >= 1  # the paused one went
    clock.now += 3.0  # past the slow-consumer timeout
    for _ in range(5):
        scheduler.iterate()
    assert stalled.finish_reason is FinishReason.SLOW_CONSUMER
    assert stalled.life.attempts == [FinishReason.SLOW_CONSUMER]
    assert stalled.completion_tokens == 4  # never advanced past the high watermark
    stats = scheduler.stats
    assert stats.preemptions >= 1 and stats.free_blocks == 16


def test_the_crash_signal_raises_inside_the_next_step_past_its_handling() -> None:
    engine, _ = _seed_engine(capacity=3)
    scheduler = engine._scheduler
    handle = engine.submit(GenerationRequest("c1", [1, 2, 3], 4, ignore_eos=True))
    scheduler.mailbox.post("crash")  # what the engine process posts for ToEngine.crash
    with pytest.raises(InjectedCrash):
        scheduler.iterate()
    assert handle.finish_reason is None  # no handling ended it: the engine's owner must
