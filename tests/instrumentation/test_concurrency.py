"""Many threads race finish() with different reasons on many requests."""

import random
import threading
import time

from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from servescope.instrumentation import FinishReason, StepReport, Telemetry
from servescope.instrumentation.setup import setup_telemetry

REASONS = [FinishReason.STOP, FinishReason.CLIENT_CANCEL, FinishReason.DEADLINE,
           FinishReason.ERROR, FinishReason.SLOW_CONSUMER]


def total(registry, name):
    return sum(s.value for m in registry.collect() for s in m.samples if s.name == name)


def test_racing_finishes_have_exactly_one_winner_each(registry, tracing):
    rng = random.Random(1234)
    telemetry = Telemetry(registry=registry, tracer_provider=tracing.provider, model="m")
    recorders = [telemetry.request(f"r{i}") for i in range(300)]
    left_running = set(rng.sample(range(300), 40))  # these never finish: still in flight
    barrier = threading.Barrier(8)
    wins: list[list[tuple[int, FinishReason]]] = [[] for _ in range(8)]
    attempts = [0] * 8

    def racer(k: int) -> None:
        local = random.Random(k)
        barrier.wait()
        for i in local.sample(range(300), 300):
            if i in left_running:
                continue
            if local.random() < 0.3:  # interleave batched step reports with the finishes
                telemetry.step(StepReport(advanced=[(recorders[i], 1, 0)]))
            reason = local.choice(REASONS)
            attempts[k] += 1
            if recorders[i].finish(reason):
                wins[k].append((i, reason))

    threads = [threading.Thread(target=racer, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    winners = [i for per_thread in wins for i, _ in per_thread]
    assert sorted(winners) == sorted(set(range(300)) - left_running)  # exactly one winner each
    for per_thread in wins:
        for i, reason in per_thread:
            assert recorders[i].finish_reason is reason
    arrivals = total(registry, "servescope_requests_arrived_total")
    finished = total(registry, "servescope_requests_finished_total")
    in_flight = total(registry, "servescope_requests_in_flight")
    ignored = total(registry, "servescope_terminal_signals_ignored_total")
    assert finished + in_flight == arrivals == 300
    assert in_flight == len(left_running)
    assert ignored == sum(attempts) - len(winners)
    assert total(registry, "servescope_telemetry_hook_errors_total") == 0
    # one request span per finished request, ended once
    roots = [s for s in tracing.exporter.get_finished_spans() if s.parent is None]
    assert len(roots) == len(winners)


def _yield_inside_the_recorder(frame, event, arg):
    """A thread-level trace that gives the GIL away at every line the recorder runs: races
    that plain CPython only loses once in a long while (between two statements) show up."""
    import time

    if not frame.f_code.co_filename.endswith("recorder.py"):
        return None

    def on_line(frame, event, arg):
        if event == "line":
            time.sleep(0)
        return on_line

    return on_line


def test_delivered_counter_read_and_reset_loses_nothing_under_a_hammer(registry):
    """The writer increments written/delivered while the scheduler (step reports) and a
    finishing thread read and reset them: every token is counted exactly once. Each thread
    yields at every line of the recorder, so any read-then-write that is not atomic loses."""
    telemetry = Telemetry(registry=registry, model="m")
    recorder = telemetry.request("hammered")
    n_writes, per_write = 3000, 3
    started = threading.Barrier(3)
    stop = threading.Event()

    def writer():
        started.wait()
        for _ in range(n_writes):
            recorder.written(per_write)
            recorder.delivered(per_write)

    def stepper():
        started.wait()
        while not stop.is_set():
            telemetry.step(StepReport(advanced=[(recorder, 0, 0)]))

    threading.settrace(_yield_inside_the_recorder)
    try:
        threads = [threading.Thread(target=writer), threading.Thread(target=stepper),
                   threading.Thread(target=stepper)]
        for t in threads:
            t.start()
    finally:
        threading.settrace(None)  # only the three threads above are traced
    threads[0].join()
    stop.set()
    for t in threads[1:]:
        t.join()
    recorder.finish(FinishReason.STOP)  # flushes the rest
    expected = n_writes * per_write
    assert recorder.summary().delivered_tokens == expected
    for stage in ("written", "delivered"):
        got = registry.get_sample_value("servescope_tokens_total", {"model": "m", "stage": stage})
        assert got == expected, (stage, got)


def _stage(registry, stage):
    return sum(s.value for m in registry.collect() for s in m.samples
               if s.name == "servescope_tokens_total" and s.labels.get("stage") == stage)


def test_a_finish_racing_the_step_and_the_writer_keeps_the_token_counts_whole(registry):
    """Three threads: the step commits (and only then hands tokens to the writer), the writer
    writes and delivers them, a third thread finishes each request. Whatever interleaves,
    the counters keep committed = delivered + discarded, as each request's summary does (a
    step's commits and a finish are counted wholly before or after each other)."""
    # (wired as a server wires it, every span sampled: a finish then takes longer, and the
    # races are likelier)
    setup = setup_telemetry(model="m", registry=registry, span_exporter=InMemorySpanExporter(),
                            sample_ratio=1.0)
    telemetry = setup.telemetry
    n = 1000
    recorders = [telemetry.request(f"r{i}", prompt_tokens=1) for i in range(n)]
    for rec in recorders:
        rec.admitted()
        rec.scheduled()
        rec.prefill_done()
    pending = [0] * n
    handed = threading.Lock()
    stop = threading.Event()

    def engine() -> None:
        rng = random.Random(1)
        while not stop.is_set():
            batch = rng.sample(range(n), 100)
            telemetry.step(StepReport(advanced=[(recorders[i], 1, 1, time.monotonic())
                                                for i in batch]))
            with handed:
                for i in batch:
                    pending[i] += 1

    def writer() -> None:
        rng = random.Random(2)
        while not stop.is_set():
            i = rng.randrange(n)
            with handed:
                tokens, pending[i] = pending[i], 0
            if tokens:
                recorders[i].written(tokens)
                recorders[i].delivered(tokens)

    def finisher() -> None:
        rng = random.Random(3)
        for i in rng.sample(range(n), n):
            recorders[i].finish(rng.choice(REASONS))

    threads = [threading.Thread(target=engine), threading.Thread(target=writer)]
    for t in threads:
        t.start()
    ending = threading.Thread(target=finisher)
    ending.start()
    ending.join()
    stop.set()
    for t in threads:
        t.join()
    setup.shutdown(5)
    summaries = [r.summary() for r in recorders]
    committed = _stage(registry, "committed")
    assert committed == sum(s.committed_tokens for s in summaries) > 0
    assert committed == _stage(registry, "delivered") + _stage(registry, "discarded")
    assert _stage(registry, "discarded") == sum(s.discarded_tokens for s in summaries)
