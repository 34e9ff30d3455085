"""Cost of the hooks: one request lifecycle and one batched scheduler step, beside a naive
per-token baseline, measured side by side in one run, and each divided by the library call
the hooks sit on: prometheus_client's labelled ``Histogram.observe``.

  lifecycle        request() + admitted + scheduled + prefill_done + delivered x4 chunks + finish
                   (metrics only; spans sampled at 100%, 10%, 0% through a batch processor)
  step(B)          one Telemetry.step() reporting a batch of B requests, one token each;
                   per advanced request = step / B
  step + chunks    the same step after the writer delivered one chunk to each of the B
                   streams (B delivered() calls + the step that flushes them), per advanced
                   request: a streaming server's whole per-step hook work
  per-request      lifecycle + its share of TOKENS steps (TOKENS/B batch calls... amortised)
  naive            per token: a counter inc, a histogram observe and a span opened and closed

Observe-equivalents: each measurement is paired with a run of ``Histogram.observe`` calls right
before it (same process, same moment), the ratio taken per pair and the median reported, so
machine load cancels out of the ratio.

Run: python benchmarks/hooks.py [--tokens 64] [--batch 32] [--repeat 7]
Prints a table and one JSON line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.sampling import ParentBased, TraceIdRatioBased
from prometheus_client import CollectorRegistry, Counter, Histogram

from servescope.instrumentation import FinishReason, NullSpanExporter, StepReport, Telemetry
from servescope.instrumentation.export import CountingBatchSpanProcessor, CountingSpanExporter
from servescope.instrumentation.metrics import MetricSet
from servescope.instrumentation.slo import SLOSpec


def provider(ratio: float) -> TracerProvider:
    """A tracer provider with our batch processor, exporting into a null exporter."""
    p = TracerProvider(sampler=ParentBased(TraceIdRatioBased(ratio)))
    metrics = MetricSet(CollectorRegistry(), SLOSpec.default())
    p.add_span_processor(CountingBatchSpanProcessor(
        CountingSpanExporter(NullSpanExporter(), metrics), metrics, max_queue_size=1 << 16))
    return p


def traced(ratio: float) -> Telemetry:
    """Hooks wired as setup_telemetry wires them: spans straight into the batch processor."""
    p = TracerProvider(sampler=ParentBased(TraceIdRatioBased(ratio)))
    metrics = MetricSet(CollectorRegistry(), SLOSpec.default())
    processor = CountingBatchSpanProcessor(CountingSpanExporter(NullSpanExporter(), metrics),
                                           metrics, max_queue_size=1 << 16)
    p.add_span_processor(processor)
    tel = Telemetry(registry=CollectorRegistry(), tracer_provider=p)
    tel.send_spans_to(p, processor)
    return tel


def observe_loop() -> Callable[[int], None]:
    """The unit: a labelled prometheus_client Histogram child's observe."""
    registry = CollectorRegistry()
    child = Histogram("unit_seconds", "u", ["model", "priority"], registry=registry).labels(
        "m", "default")

    def run(n: int) -> None:
        for i in range(n):
            child.observe(0.001 * (i % 100))
    return run


def paired(fn: Callable[[int], None], n: int, unit: Callable[[int], None], repeat: int
           ) -> tuple[float, float]:
    """(median us per call, median ratio to one observe), each run paired with a unit run."""
    fn(min(n, 200))  # warm-up: label children, code paths
    unit(2000)
    us, ratios = [], []
    for _ in range(repeat):
        t0 = time.perf_counter_ns()
        unit(20000)
        unit_us = (time.perf_counter_ns() - t0) / 20000 / 1000
        t0 = time.perf_counter_ns()
        fn(n)
        call_us = (time.perf_counter_ns() - t0) / n / 1000
        us.append(call_us)
        ratios.append(call_us / unit_us)
    return statistics.median(us), statistics.median(ratios)


def per_call_us(fn: Callable[[int], None], n: int, repeat: int) -> float:
    """Median over ``repeat`` runs of the mean cost of one call, in microseconds."""
    fn(min(n, 200))  # warm-up: label children, code paths
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter_ns()
        fn(n)
        runs.append((time.perf_counter_ns() - t0) / n / 1000)
    return statistics.median(runs)


def lifecycle(telemetry: Telemetry) -> Callable[[int], None]:
    def run(n: int) -> None:
        for i in range(n):
            rec = telemetry.request(f"req-{i}", prompt_tokens=100)
            rec.admitted()
            rec.scheduled()
            rec.prefill_done()
            for _ in range(4):  # the transport reports written chunks, not tokens
                rec.delivered(16)
            rec.finish(FinishReason.STOP)
    return run


def step(telemetry: Telemetry, batch: int) -> Callable[[int], None]:
    recs = [telemetry.request(f"live-{i}") for i in range(batch)]
    report = StepReport(advanced=[(r, 1, 0) for r in recs], kv_blocks_used=100,
                        running=batch, waiting=0, paused=0, buffered_tokens=batch * 4)

    def run(n: int) -> None:
        for _ in range(n):
            telemetry.step(report)
    return run


def step_delivered(telemetry: Telemetry, batch: int) -> Callable[[int], None]:
    """A step after the writer delivered a one-token chunk to every stream of the batch."""
    recs = [telemetry.request(f"streamed-{i}") for i in range(batch)]
    report = StepReport(advanced=[(r, 1, 0) for r in recs], kv_blocks_used=100,
                        running=batch, waiting=0, paused=0, buffered_tokens=batch * 4)
    telemetry.step(report)

    def run(n: int) -> None:
        for _ in range(n):
            for rec in recs:
                rec.delivered(1)
            telemetry.step(report)
    return run


def naive(tokens: int, traced: TracerProvider) -> Callable[[int], None]:
    """What we refuse to do: per-token metric calls and a span per token."""
    registry = CollectorRegistry()
    counter = Counter("naive_tokens", "t", ["model"], registry=registry).labels("m")
    hist = Histogram("naive_itl_seconds", "t", ["model"], registry=registry).labels("m")
    tracer = traced.get_tracer("naive")

    def run(n: int) -> None:
        for _ in range(n):
            for _ in range(tokens):
                with tracer.start_as_current_span("token"):
                    counter.inc()
                    hist.observe(0.01)
    return run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=64, help="output tokens per request")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()

    unit = observe_loop()
    unit_us = per_call_us(unit, 20000, args.repeat)
    rows: dict[str, tuple[float, float]] = {}
    variants = {"metrics only": None, "spans 100%": 1.0, "spans 10%": 0.1, "spans 0%": 0.0}
    for name, ratio in variants.items():
        tel = Telemetry(registry=CollectorRegistry()) if ratio is None else traced(ratio)
        rows[f"lifecycle, {name}"] = paired(lifecycle(tel), args.requests, unit, args.repeat)
    full = traced(1.0)
    step_us, step_obs = paired(step(full, args.batch), 2000, unit, args.repeat)
    rows[f"step, batch of {args.batch}"] = (step_us, step_obs)
    rows["step, per advanced request"] = (step_us / args.batch, step_obs / args.batch)
    chunk_us, chunk_obs = paired(step_delivered(traced(1.0), args.batch), 2000, unit,
                                 args.repeat)
    rows["step + 1 delivered chunk each, per request"] = (chunk_us / args.batch,
                                                         chunk_obs / args.batch)
    share = step_us / args.batch * args.tokens
    lifecycle_all = rows["lifecycle, spans 100%"]
    rows["per request, hooks (spans 100%)"] = (lifecycle_all[0] + share,
                                               lifecycle_all[1] + share / unit_us)
    naive_us = per_call_us(naive(args.tokens, provider(1.0)), max(50, args.requests // 20),
                           args.repeat)
    rows["per request, naive per-token"] = (naive_us, naive_us / unit_us)
    ratio = naive_us / rows["per request, hooks (spans 100%)"][0]

    print(f"servescope hooks cost ({args.tokens} output tokens per request, "
          f"median of {args.repeat} paired runs; 1 observe = {unit_us:.2f} us)")
    print(f"{'what':<44} {'us per call':>12} {'observes':>10}")
    for name, (us, obs) in rows.items():
        print(f"{name:<44} {us:>12.2f} {obs:>10.2f}")
    print(f"{'naive / hooks per request':<44} {ratio:>11.1f}x")
    print(json.dumps({"benchmark": "hooks", "tokens_per_request": args.tokens,
                      "batch": args.batch, "observe_us": round(unit_us, 3),
                      "us": {k: round(v[0], 3) for k, v in rows.items()},
                      "observes": {k: round(v[1], 3) for k, v in rows.items()},
                      "naive_over_hooks": round(ratio, 2)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
