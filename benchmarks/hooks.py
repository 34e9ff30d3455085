"""Cost of the hooks: one request lifecycle and one batched scheduler step, beside a naive
per-token baseline, measured side by side in one run.

  lifecycle        request() + admitted + scheduled + prefill_done + delivered x4 chunks + finish
                   (metrics only; spans sampled at 100%, 10%, 0% through a BatchSpanProcessor)
  step(64)         one Telemetry.step() reporting a batch of 64 requests, one token each
  per-request      lifecycle + its share of TOKENS steps (TOKENS/64 batch calls... amortised)
  naive            per token: a counter inc, a histogram observe and a span opened and closed

Run: python benchmarks/hooks.py [--tokens 64] [--repeat 5]
Prints a table and one JSON line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable, Sequence

from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.sampling import ParentBased, TraceIdRatioBased
from prometheus_client import CollectorRegistry, Counter, Histogram

from servescope.instrumentation import FinishReason, StepReport, Telemetry


class NullExporter(SpanExporter):
    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        pass


def provider(ratio: float) -> TracerProvider:
    p = TracerProvider(sampler=ParentBased(TraceIdRatioBased(ratio)))
    p.add_span_processor(BatchSpanProcessor(NullExporter(), max_queue_size=1 << 16))
    return p


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
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    rows: dict[str, float] = {}
    variants = {"metrics only": None, "spans 100%": 1.0, "spans 10%": 0.1, "spans 0%": 0.0}
    for name, ratio in variants.items():
        tel = Telemetry(registry=CollectorRegistry(),
                        tracer_provider=None if ratio is None else provider(ratio))
        rows[f"lifecycle, {name}"] = per_call_us(lifecycle(tel), args.requests, args.repeat)
    full = Telemetry(registry=CollectorRegistry(), tracer_provider=provider(1.0))
    rows[f"step, batch of {args.batch}"] = per_call_us(step(full, args.batch), 2000, args.repeat)
    step_share = rows[f"step, batch of {args.batch}"] / args.batch * args.tokens
    rows["per request, hooks (spans 100%)"] = rows["lifecycle, spans 100%"] + step_share
    rows["per request, naive per-token"] = per_call_us(
        naive(args.tokens, provider(1.0)), max(50, args.requests // 20), args.repeat)
    ratio = rows["per request, naive per-token"] / rows["per request, hooks (spans 100%)"]

    print(f"servescope hooks cost ({args.tokens} output tokens per request, "
          f"median of {args.repeat} runs)")
    print(f"{'what':<40} {'us per call':>12}")
    for name, us in rows.items():
        print(f"{name:<40} {us:>12.1f}")
    print(f"{'naive / hooks per request':<40} {ratio:>11.1f}x")
    print(json.dumps({"benchmark": "hooks", "tokens_per_request": args.tokens,
                      "batch": args.batch, "us": {k: round(v, 2) for k, v in rows.items()},
                      "naive_over_hooks": round(ratio, 2)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
