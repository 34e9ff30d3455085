"""Request and phase spans: a handful per request, never one per token.

The worker never imports OpenTelemetry; the recorder calls these helpers. Span times come from
the recorder's clock, mapped onto wall-clock nanoseconds once per process.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer, TracerProvider
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

__all__ = ["ATTR", "PHASES", "SpanClock", "exemplar_of", "selected", "start_request_span"]

INSTRUMENTATION_NAME = "servescope.instrumentation"
_PROPAGATOR = TraceContextTextMapPropagator()


class ATTR:
    """Span attribute keys (GenAI semantic conventions where they exist)."""

    REQUEST_ID = "servescope.request.id"
    MODEL = "gen_ai.request.model"
    OPERATION = "gen_ai.operation.name"
    FINISH_REASONS = "gen_ai.response.finish_reasons"
    INPUT_TOKENS = "gen_ai.usage.input_tokens"
    OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
    PRIORITY = "servescope.priority"
    FINISH_REASON = "servescope.finish_reason"
    TOKENS_PROPOSED = "servescope.tokens.proposed"
    TOKENS_COMMITTED = "servescope.tokens.committed"
    TOKENS_WRITTEN = "servescope.tokens.written"
    TOKENS_DELIVERED = "servescope.tokens.delivered"
    TOKENS_DISCARDED = "servescope.tokens.discarded"
    TTFT = "servescope.ttft_seconds"
    STREAM_TTFT = "servescope.stream_ttft_seconds"
    TPOT = "servescope.tpot_seconds"
    GOOD = "servescope.goodput.good"
    PAUSES = "servescope.backpressure.pauses"
    PAUSE_EVENTS_DROPPED = "servescope.backpressure.pause_events_dropped"
    IGNORED_SIGNALS = "servescope.terminal_signals_ignored"
    # Marks a trace that a metric exemplar points to, so tail sampling keeps it.
    EXEMPLAR = "servescope.exemplar"


PHASES = ("queue", "prefill", "decode", "stream")


class SpanClock:
    """Maps a monotonic clock in seconds onto epoch nanoseconds for span timestamps."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._offset_ns = time.time_ns() - int(clock() * 1e9)

    def ns(self, t: float) -> int:
        return self._offset_ns + int(t * 1e9)


def tracer_for(provider: TracerProvider | None) -> Tracer | None:
    if provider is None:
        return None
    return provider.get_tracer(INSTRUMENTATION_NAME)


def start_request_span(tracer: Tracer, name: str, start_ns: int,
                       carrier: Mapping[str, str] | None, attributes: dict[str, Any]) -> Span:
    """The SERVER span of one request, child of the caller's W3C trace context if any."""
    parent = _PROPAGATOR.extract(carrier) if carrier else None
    return tracer.start_span(name, context=parent, kind=SpanKind.SERVER,
                             attributes=attributes, start_time=start_ns)


def phase_span(tracer: Tracer, parent: Span, phase: str, start_ns: int, end_ns: int,
               attributes: dict[str, Any]) -> None:
    """A finished child span for one phase (opened and closed in one call)."""
    ctx = trace.set_span_in_context(parent)
    span = tracer.start_span(phase, context=ctx, kind=SpanKind.INTERNAL,
                             attributes=attributes, start_time=start_ns)
    span.end(end_time=max(start_ns, end_ns))


def end_request_span(span: Span, end_ns: int, attributes: dict[str, Any], error: bool) -> None:
    span.set_attributes(attributes)
    if error:
        span.set_status(Status(StatusCode.ERROR))
    span.end(end_time=end_ns)


def exemplar_of(span: Span | None) -> dict[str, str] | None:
    """trace_id/span_id of a sampled span, else None: exemplars only point at kept traces."""
    if span is None:
        return None
    ctx = span.get_span_context()
    if not ctx.is_valid or not ctx.trace_flags.sampled:
        return None
    return {"trace_id": format(ctx.trace_id, "032x"), "span_id": format(ctx.span_id, "016x")}


def selected(ids: Mapping[str, str], ratio: float) -> bool:
    """Deterministic choice by trace id, so every process agrees on the same traces."""
    if ratio >= 1.0:
        return True
    return int(ids["trace_id"][-8:], 16) < ratio * 0x1_0000_0000
