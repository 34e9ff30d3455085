"""One call that wires the tracer provider, the span pipeline and the metric registry.

Configuration follows OpenTelemetry's order: explicit argument, then the standard ``OTEL_*``
environment variables, then an embedded default (spans appended as JSON lines to a local file,
so ``servescope demo`` needs no collector).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.sampling import ParentBased, TraceIdRatioBased
from prometheus_client import CollectorRegistry

from . import catalog as cat
from .export import CountingBatchSpanProcessor, CountingSpanExporter
from .metrics import MetricSet, render
from .recorder import Telemetry
from .slo import SLOSpec

__all__ = ["CountingSpanExporter", "JsonLinesSpanExporter", "TelemetrySetup", "setup_telemetry"]

DEFAULT_TRACE_FILE = "servescope-traces.jsonl"
ExporterWrapper = Callable[[SpanExporter], SpanExporter]
# A redaction stage (servescope.redaction.RedactionStage): given the exporter and a callback
# counting redacted values by kind, it returns the wrapped exporter.
RedactionStage = Callable[[SpanExporter, Callable[[str, int], None]], SpanExporter]


class JsonLinesSpanExporter(SpanExporter):
    """Appends each span as one JSON line to a local file: the embedded default."""

    def __init__(self, path: str | Path = DEFAULT_TRACE_FILE) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        lines = "".join(json.dumps(json.loads(s.to_json()), separators=(",", ":")) + "\n"
                        for s in spans)
        try:
            with self._lock, self.path.open("a", encoding="utf-8") as fh:
                fh.write(lines)
        except OSError:
            return SpanExportResult.FAILURE
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        pass


def _env_exporter(trace_file: str | Path) -> tuple[SpanExporter | None, str]:
    """The exporter the environment asks for, and a description of where spans go."""
    choice = os.environ.get("OTEL_TRACES_EXPORTER", "").strip().lower()
    endpoint = (os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
                or os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"))
    if choice == "none":
        return None, "nowhere (OTEL_TRACES_EXPORTER=none)"
    if choice == "console":
        return ConsoleSpanExporter(), "the console"
    if choice == "otlp" or (not choice and endpoint):
        protocol = (os.environ.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
                    or os.environ.get("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"))
        if protocol.startswith("http"):
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import (
                OTLPSpanExporter as HttpExporter,
            )
            return HttpExporter(), f"OTLP/HTTP at {endpoint or 'the default endpoint'}"
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import (
            OTLPSpanExporter as GrpcExporter,
        )
        return GrpcExporter(), f"OTLP/gRPC at {endpoint or 'the default endpoint'}"
    return JsonLinesSpanExporter(trace_file), f"the file {trace_file}"


def _redaction_counter(metrics: MetricSet) -> Callable[[str, int], None]:
    def count(kind: str, n: int) -> None:
        metrics.child(cat.REDACTIONS, kind=kind).inc(n)

    return count


def _sample_ratio(argument: float | None) -> float:
    if argument is not None:
        return argument
    if os.environ.get("OTEL_TRACES_SAMPLER", "") in ("traceidratio", "parentbased_traceidratio"):
        try:
            return float(os.environ.get("OTEL_TRACES_SAMPLER_ARG", "1.0"))
        except ValueError:
            return 1.0
    return 1.0


@dataclass
class TelemetrySetup:
    """What :func:`setup_telemetry` built; ``shutdown`` flushes spans within a deadline."""

    telemetry: Telemetry
    registry: CollectorRegistry
    tracer_provider: TracerProvider
    traces_destination: str
    span_processor: CountingBatchSpanProcessor | None = None

    def metrics_exposition(self, accept: str | None = None) -> tuple[bytes, str]:
        return render(self.registry, accept)

    def force_flush(self, timeout_s: float = 5.0) -> bool:
        return self.tracer_provider.force_flush(int(timeout_s * 1000))

    def shutdown(self, timeout_s: float = 5.0) -> None:
        """Flush what is queued, then stop; returns within about ``timeout_s``."""
        done = threading.Event()

        def _stop() -> None:
            if self.span_processor is not None:
                # exports what it can within the deadline and counts what is left
                self.span_processor.shutdown(int(timeout_s * 1000))
            else:
                self.tracer_provider.force_flush(int(timeout_s * 1000))
            self.tracer_provider.shutdown()
            done.set()

        threading.Thread(target=_stop, name="servescope-shutdown", daemon=True).start()
        done.wait(timeout_s)


def setup_telemetry(*, service_name: str | None = None, model: str = "default",
                    pool: str = "default", registry: CollectorRegistry | None = None,
                    slo: SLOSpec | None = None, span_exporter: SpanExporter | None = None,
                    exporter_wrappers: Sequence[ExporterWrapper] = (),
                    redaction: RedactionStage | None = None,
                    sample_ratio: float | None = None,
                    trace_file: str | Path = DEFAULT_TRACE_FILE,
                    max_queue_size: int | None = None,
                    exemplar_ratio: float | None = None) -> TelemetrySetup:
    """Wire a tracer provider and a registry and return the :class:`Telemetry` hooks.

    ``exporter_wrappers`` wrap the exporter inside the batch processor, off the request
    thread. ``redaction`` wraps outermost, so no wrapper and no exporter sees an unredacted
    span; its counts feed ``servescope_redactions_total{kind}``.
    """
    registry = registry if registry is not None else CollectorRegistry()
    name = service_name or os.environ.get("OTEL_SERVICE_NAME", "servescope")
    provider = TracerProvider(resource=Resource.create({"service.name": name}),
                              sampler=ParentBased(TraceIdRatioBased(_sample_ratio(sample_ratio))))
    telemetry = Telemetry(registry=registry, tracer_provider=provider, slo=slo, model=model,
                          pool=pool, exemplar_ratio=exemplar_ratio)
    exporter, destination = ((span_exporter, type(span_exporter).__name__)
                             if span_exporter is not None else _env_exporter(trace_file))
    processor = None
    if exporter is not None:
        for wrap in exporter_wrappers:
            exporter = wrap(exporter)
        if redaction is not None:
            exporter = redaction(exporter, _redaction_counter(telemetry.metrics))
        processor = CountingBatchSpanProcessor(
            CountingSpanExporter(exporter, telemetry.metrics), telemetry.metrics,
            max_queue_size=max_queue_size)
        provider.add_span_processor(processor)
        # our spans go to it as finished spans; other instrumentation's through the SDK
        telemetry.send_spans_to(provider, processor)
    return TelemetrySetup(telemetry, registry, provider, destination, processor)
