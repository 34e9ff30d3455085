"""The seed's telemetry example, through the real recorder.

Three requests in a 10 s window, SLO TTFT <= 3 s and TPOT <= 2 s:
  req-a: stop, first token at 2 s, token gaps [1, 1]
  req-b: stop, first token at 5 s, token gap [3]
  req-c: client_cancel at 4 s, no token
Expected: finish totals stop=2, client_cancel=1; TTFT samples [2, 5]; TPOT samples [1, 3];
goodput 0.1 req/s; no request id in any metric label; the request id on every span.

Run: python examples/telemetry_example.py [--json]
"""

from __future__ import annotations

import json
import sys
from typing import Any

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client import CollectorRegistry

from servescope.instrumentation import FinishReason, StepReport, Telemetry, parse_slo
from servescope.instrumentation import catalog as cat

WINDOW_SECONDS = 10.0
SEED_SLO = """
version: 1
ttft: {threshold_seconds: 3.0, target: 0.99}
tpot: {threshold_seconds: 2.0, target: 0.99}
goodput: {eligible_finish_reasons: [stop, length]}
"""


class ManualClock:
    """The example's clock: time moves only when the script says so."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def run() -> dict[str, Any]:
    clock = ManualClock()
    registry = CollectorRegistry()
    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    telemetry = Telemetry(registry=registry, tracer_provider=provider,
                          slo=parse_slo(SEED_SLO), model="seed-model", clock=clock)

    # Arrivals: a and b at t=0, c at t=1.
    a, b = telemetry.request("req-a"), telemetry.request("req-b")
    clock.now = 1.0
    c = telemetry.request("req-c")
    for recorder in (a, b, c):
        recorder.admitted()
        recorder.scheduled()  # an idle server schedules at once: queue time 0
    # One scheduler step per second; each reports the whole batch in one call.
    timeline: dict[float, list[Any]] = {2.0: [a], 3.0: [a], 4.0: [a], 5.0: [b], 8.0: [b]}
    finishes = {4.0: [(a, FinishReason.STOP), (c, FinishReason.CLIENT_CANCEL)],
                8.0: [(b, FinishReason.STOP)]}
    for t in sorted(set(timeline) | set(finishes)):
        clock.now = t
        advanced = timeline.get(t, [])
        for recorder in advanced:
            recorder.prefill_done()  # first call ends the prefill phase; later ones are no-ops
        telemetry.step(StepReport(advanced=[(r, 1, 1) for r in advanced]))
        for recorder, reason in finishes.get(t, []):
            recorder.finish(reason)

    summaries = [r.summary() for r in (a, b, c)]
    finish_total = {s.finish_reason.value: 0 for s in summaries if s.finish_reason}
    for s in summaries:
        if s.finish_reason:
            finish_total[s.finish_reason.value] += 1
    good = registry.get_sample_value(f"{cat.GOOD.name}_total", {"model": "seed-model"}) or 0.0
    label_sets = [dict(sample.labels) for metric in registry.collect()
                  for sample in metric.samples]
    finished = spans.get_finished_spans()
    return {
        "finish_total": finish_total,
        "finish_total_from_metrics": {
            reason.value: registry.get_sample_value(
                f"{cat.FINISHED.name}_total",
                {"model": "seed-model", "finish_reason": reason.value})
            for reason in (FinishReason.STOP, FinishReason.CLIENT_CANCEL)},
        "ttft_samples": [s.ttft for s in summaries if s.ttft is not None],
        "tpot_samples": [s.tpot for s in summaries if s.tpot is not None],
        "goodput_rps": good / WINDOW_SECONDS,
        "request_id_in_metric_labels": any(
            v.startswith("req-") for labels in label_sets for v in labels.values()),
        "spans": len(finished),
        "request_id_on_every_span": all(
            str(s.attributes.get("servescope.request.id", "")).startswith("req-")
            for s in finished),
        "trace_attributes": [{"servescope.request.id": s.attributes["servescope.request.id"],
                              "finish_reason": s.attributes.get("servescope.finish_reason")}
                             for s in finished if s.parent is None],
    }


def main() -> int:
    result = run()
    if "--json" in sys.argv:
        print(json.dumps(result, sort_keys=True))
        return 0
    print(f"finish_total={result['finish_total']} (from metrics: "
          f"{result['finish_total_from_metrics']})")
    print(f"ttft_samples={result['ttft_samples']} tpot_samples={result['tpot_samples']} "
          f"goodput_rps={result['goodput_rps']:.3f}")
    print(f"request_id_in_metric_labels={result['request_id_in_metric_labels']} "
          f"request_id_on_every_span={result['request_id_on_every_span']} "
          f"spans={result['spans']}")
    print(f"trace_attributes={result['trace_attributes']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
