"""Spans built as finished objects (what setup_telemetry wires) match the SDK path's spans:
same names, kinds, parents, attributes, events, status, times and resource; sampling is the
provider's sampler's either way."""

from __future__ import annotations

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import ParentBased, TraceIdRatioBased
from prometheus_client import CollectorRegistry
from walk import PAUSE, walk_request

from servescope.instrumentation import FinishReason, Telemetry


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _run(direct: bool, ratio: float = 1.0, n: int = 3, carrier=None):
    sink = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "s"}),
                              sampler=ParentBased(TraceIdRatioBased(ratio)))
    processor = SimpleSpanProcessor(sink)
    clock = Clock()
    tel = Telemetry(registry=CollectorRegistry(), tracer_provider=provider, model="m",
                    clock=clock)
    if direct:
        tel.send_spans_to(provider, processor)
    else:
        provider.add_span_processor(processor)
    recs = []
    for i in range(n):
        recs.append(walk_request(
            tel, f"r{i}", prompt_tokens=5, carrier=carrier, committed=2, discarded=1,
            deliveries=(1, PAUSE, 1), reason=FinishReason.ERROR if i == 1 else FinishReason.STOP,
            clock=clock, durations={"queue": 0.25, "prefill": 0.5, "pause": 0.125}))
    return sink.get_finished_spans(), recs


def _shape(spans):
    by_id = {s.context.span_id: s for s in spans}
    out = []
    for s in spans:
        parent = by_id.get(s.parent.span_id).name if s.parent else None
        attrs = {k: v for k, v in s.attributes.items() if k != "servescope.request.id"}
        out.append((s.name, s.kind, parent, tuple(sorted(attrs.items())),
                    tuple((e.name, e.timestamp - s.start_time) for e in s.events),
                    s.status.status_code, s.end_time - s.start_time,
                    dict(s.resource.attributes).get("service.name"),
                    s.instrumentation_scope.name, s.context.trace_flags.sampled))
    return sorted(out, key=repr)


def test_direct_spans_match_the_sdk_path() -> None:
    sdk, _ = _run(direct=False)
    direct, recs = _run(direct=True)
    assert len(direct) == len(sdk) == 3 * 5  # request + queue, prefill, decode, stream
    assert _shape(direct) == _shape(sdk)
    for rec in recs:  # ids for logs and exemplars are the request span's
        ids = rec.trace_context
        request = next(s for s in direct if s.parent is None and
                   s.attributes["servescope.request.id"] == rec.request_id)
        assert ids == {"trace_id": format(request.context.trace_id, "032x"),
                       "span_id": format(request.context.span_id, "016x")}
    traces = {s.context.trace_id for s in direct}
    assert len(traces) == 3  # one trace per request, phases inside it


def test_direct_spans_follow_the_callers_trace() -> None:
    parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    spans, _ = _run(direct=True, n=1, carrier={"traceparent": parent})
    request = next(s for s in spans if s.kind.name == "SERVER")
    assert format(request.context.trace_id, "032x") == "0af7651916cd43dd8448eb211c80319c"
    assert format(request.parent.span_id, "016x") == "b7ad6b7169203331"
    unsampled = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00"
    spans, recs = _run(direct=True, n=1, carrier={"traceparent": unsampled})
    assert spans == () and recs[0].trace_context is None  # the caller said no: ParentBased


def test_direct_spans_keep_the_providers_sampling_ratio() -> None:
    spans, recs = _run(direct=True, ratio=0.1, n=2000)
    sampled = sum(r.trace_context is not None for r in recs)
    assert 120 <= sampled <= 290  # 10% of 2000, binomial spread
    assert len(spans) == 5 * sampled
    none, recs = _run(direct=True, ratio=0.0, n=50)
    assert none == () and all(r.trace_context is None for r in recs)
