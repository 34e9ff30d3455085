"""One call that wires the tracer provider, the span pipeline and the metric registry.

Configuration follows OpenTelemetry's order: explicit argument, then the standard ``OTEL_*``
environment variables, then an embedded default (spans appended as JSON lines to a local file,
so ``servescope demo`` needs no collector).
"""

from __future__ import annotations

import collections
import json
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    ConsoleSpanExporter,
    SpanExporter,
    SpanExportResult,
)
from opentelemetry.sdk.trace.sampling import ParentBased, TraceIdRatioBased
from prometheus_client import CollectorRegistry

from . import catalog as cat
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


class CountingSpanExporter(SpanExporter):
    """Counts what the wrapped exporter accepted and what it failed to deliver."""

    def __init__(self, inner: SpanExporter, metrics: MetricSet) -> None:
        self.inner = inner
        self._exported = metrics.child(cat.SPANS_EXPORTED)
        self._failed = metrics.child(cat.SPANS_DROPPED, reason="export_failed")

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        try:
            result = self.inner.export(spans)
        except Exception:
            result = SpanExportResult.FAILURE
        (self._exported if result is SpanExportResult.SUCCESS else self._failed).inc(len(spans))
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self.inner.force_flush(timeout_millis)


class _EvictionCountingDeque(collections.deque[Any]):
    """A bounded deque that reports each item ``appendleft`` evicts (exactly, under a lock)."""

    def __init__(self, maxlen: int, on_evict: Callable[[], None]) -> None:
        super().__init__((), maxlen)
        self._lock = threading.Lock()
        self._on_evict = on_evict

    def appendleft(self, item: Any) -> None:
        with self._lock:
            evicts = len(self) == self.maxlen
            super().appendleft(item)
        if evicts:
            self._on_evict()

    def pop(self) -> Any:  # type: ignore[override]  # deque.pop takes no index
        with self._lock:
            return super().pop()


def _count_queue_drops(batch: BatchSpanProcessor, metrics: MetricSet) -> None:
    """Count the spans ``batch`` drops because its queue is full.

    The SDK drops silently (a warning log) by evicting the oldest span from its bounded
    deque. Checking the length before ``on_end`` races with the export thread's pops (a span
    counted as dropped that was not), so the deque is swapped for one that counts its own
    evictions under a lock. Duck-typed: does nothing on an SDK that moves the queue.
    """
    dropped = metrics.child(cat.SPANS_DROPPED, reason="queue_full")
    inner = getattr(batch, "_batch_processor", None)
    queue = getattr(inner, "_queue", None)
    if isinstance(queue, collections.deque) and queue.maxlen and not queue:
        inner._queue = _EvictionCountingDeque(queue.maxlen, dropped.inc)  # type: ignore[union-attr]


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

    def metrics_exposition(self, accept: str | None = None) -> tuple[bytes, str]:
        return render(self.registry, accept)

    def force_flush(self, timeout_s: float = 5.0) -> bool:
        return self.tracer_provider.force_flush(int(timeout_s * 1000))

    def shutdown(self, timeout_s: float = 5.0) -> None:
        """Flush what is queued, then stop; returns within about ``timeout_s``."""
        done = threading.Event()

        def _stop() -> None:
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
    if exporter is not None:
        for wrap in exporter_wrappers:
            exporter = wrap(exporter)
        if redaction is not None:
            exporter = redaction(exporter, _redaction_counter(telemetry.metrics))
        counted = CountingSpanExporter(exporter, telemetry.metrics)
        batch = BatchSpanProcessor(
            counted, max_queue_size=max_queue_size,
            max_export_batch_size=min(512, max_queue_size) if max_queue_size else None)
        _count_queue_drops(batch, telemetry.metrics)
        provider.add_span_processor(batch)
    return TelemetrySetup(telemetry, registry, provider, destination)
