"""Telemetry with the hooks off, and spans exported nowhere: the same calls, nothing kept.

The baseline of the overhead benchmarks and of the engine tests that compare work with and
without hooks. The recorder keeps only its terminal state (the engine relies on ``finish``
answering who won); every other hook returns at once, so no metric series or span is ever
made. :class:`NullSpanExporter` is the span exporter that keeps nothing: the benchmarks
measure the cost of making and batching spans with it, without an exporter's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from .request_recorder import RequestRecorder
from .status import FinishReason
from .step import StepReport
from .telemetry import Telemetry

__all__ = ["NullSpanExporter", "NullTelemetry"]


class _NullRecorder(RequestRecorder):
    """Hooks that do nothing but settle the terminal state."""

    __slots__ = ()

    def _start(self, carrier: Mapping[str, str] | None, operation: str) -> None:
        pass

    def admitted(self) -> None:
        pass

    def scheduled(self, *, now: float | None = None) -> None:
        pass

    def prefill_done(self, *, now: float | None = None) -> None:
        pass

    def delivered(self, n: int = 1, *, now: float | None = None) -> None:
        pass

    def paused(self, *, now: float | None = None) -> None:
        pass

    def resumed(self, *, now: float | None = None) -> None:
        pass

    def stream_closed(self, peak_buffered: int, capacity: int) -> None:
        pass

    def finish(self, reason: FinishReason, *, now: float | None = None,
               engine_reasons: Mapping[int, str] | None = None) -> bool:
        return self._settle(reason)


class NullTelemetry(Telemetry):
    """Telemetry whose hooks do nothing (the engine does the same work; no metric or span
    exists)."""

    def request(self, request_id: str, *, model: str | None = None,
                priority: str = "default", prompt_tokens: int = 0,
                carrier: Mapping[str, str] | None = None, arrival: float | None = None,
                operation: str = "text_completion") -> RequestRecorder:
        return _NullRecorder(self, request_id, model or self.model, priority, prompt_tokens,
                             carrier, 0.0 if arrival is None else arrival, operation)

    def step(self, report: StepReport) -> None:
        pass


class NullSpanExporter(SpanExporter):
    """Accepts every span and keeps none (counts them, so a caller can see spans arrived)."""

    def __init__(self) -> None:
        self.exported = 0

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.exported += len(spans)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        pass
