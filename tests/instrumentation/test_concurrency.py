"""Many threads race finish() with different reasons on many requests."""

import random
import threading

from servescope.instrumentation import FinishReason, StepReport, Telemetry

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
