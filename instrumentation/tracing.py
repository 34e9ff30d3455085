"""Request and phase spans: a handful per request, never one per token.

The worker never imports OpenTelemetry; the recorder calls these helpers. Span times come from
the recorder's clock, mapped onto wall-clock nanoseconds once per process.

A request's spans leave together, when the request ends: a phase that ends early (queue,
prefill) is held with its own start and end times and handed to the processors with the request
span. The gateway's tail sampling decides ``decision_wait`` after a trace's first span arrives;
had the phase spans left early, a request longer than that would be judged without its request
span (error status, finish reason, TTFT, the exemplar flag) and only the baseline could keep
it. Held this way, the spread of a trace's arrivals is the export delay, whatever the request's
length (``tests/collector/test_tail_sampling.py`` simulates the arrivals).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import Event, ReadableSpan
from opentelemetry.sdk.trace.sampling import Decision
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace import (
    Span,
    SpanContext,
    SpanKind,
    Status,
    StatusCode,
    TraceFlags,
    Tracer,
    TracerProvider,
)
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from .attributes import ATTR

__all__ = [
    "ATTR",
    "DirectSpans",
    "RequestTrace",
    "SpanClock",
    "exemplar_of",
    "sdk_request_trace",
    "selected",
    "start_request_span",
]

INSTRUMENTATION_NAME = "servescope.instrumentation"
_PROPAGATOR = TraceContextTextMapPropagator()


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


class RequestTrace:
    """The spans of one sampled request, behind the few operations the recorder needs.

    This base drives the SDK (a live request span, phase spans started and ended through the
    tracer): it works with any tracer provider and any processors on it.
    """

    def __init__(self, tracer: Tracer, span: Span) -> None:
        self._tracer = tracer
        self._span = span
        ctx = span.get_span_context()
        self.ids = {"trace_id": format(ctx.trace_id, "032x"),
                    "span_id": format(ctx.span_id, "016x")}
        self._parent_ctx = trace.set_span_in_context(span)  # made once, for every phase
        self._phases: list[tuple[str, int, int, dict[str, Any]]] = []  # held until the end

    def set_attribute(self, key: str, value: Any) -> None:
        self._span.set_attribute(key, value)

    def add_event(self, name: str, timestamp_ns: int) -> None:
        self._span.add_event(name, timestamp=timestamp_ns)

    def phase(self, name: str, start_ns: int, end_ns: int, attributes: dict[str, Any]) -> None:
        """A phase span, held until the request ends (see the module doc)."""
        self._phases.append((name, start_ns, max(start_ns, end_ns), attributes))

    def end(self, end_ns: int, attributes: dict[str, Any], error: bool) -> None:
        for name, start_ns, phase_end_ns, phase_attributes in self._phases:
            span = self._tracer.start_span(name, context=self._parent_ctx,
                                           kind=SpanKind.INTERNAL, attributes=phase_attributes,
                                           start_time=start_ns)
            span.end(end_time=phase_end_ns)
        self._phases.clear()
        end_request_span(self._span, end_ns, attributes, error)


class _DirectTrace(RequestTrace):
    """A sampled request whose spans are built as finished ``ReadableSpan`` objects and handed
    straight to the span processor, all of them when the request ends: no live SDK span, no
    context objects, no per-span processor fan-out. Same names, ids, parents, kinds,
    attributes, events, times and resource as the SDK path."""

    def __init__(self, spans: DirectSpans, context: SpanContext, parent: SpanContext | None,
                 name: str, start_ns: int, attributes: dict[str, Any]) -> None:
        self._spans = spans
        self._context = context
        self._parent = parent
        self._name = name
        self._start_ns = start_ns
        self._attributes = attributes
        self._events: list[Event] = []
        self._held: list[tuple[str, SpanContext, dict[str, Any], int, int]] = []
        self.ids = {"trace_id": format(context.trace_id, "032x"),
                    "span_id": format(context.span_id, "016x")}

    def set_attribute(self, key: str, value: Any) -> None:
        self._attributes[key] = value

    def add_event(self, name: str, timestamp_ns: int) -> None:
        self._events.append(Event(name, None, timestamp_ns))

    def phase(self, name: str, start_ns: int, end_ns: int, attributes: dict[str, Any]) -> None:
        s = self._spans
        ctx = SpanContext(self._context.trace_id, s.ids.generate_span_id(), False,
                          self._context.trace_flags, self._context.trace_state)
        self._held.append((name, ctx, attributes, start_ns, max(start_ns, end_ns)))

    def end(self, end_ns: int, attributes: dict[str, Any], error: bool) -> None:
        self._attributes.update(attributes)
        for name, ctx, phase_attributes, start_ns, phase_end_ns in self._held:
            self._spans.emit(name, ctx, self._context, SpanKind.INTERNAL, phase_attributes,
                             start_ns, phase_end_ns, (), _UNSET)
        self._held.clear()
        self._spans.emit(self._name, self._context, self._parent, SpanKind.SERVER,
                         self._attributes, self._start_ns, end_ns, tuple(self._events),
                         Status(StatusCode.ERROR) if error else _UNSET)


_UNSET = Status(StatusCode.UNSET)


class DirectSpans:
    """Builds request and phase spans without the SDK's live-span machinery, for a provider
    whose only consumer of our spans is ``processor`` (what :func:`setup_telemetry` wires).

    Sampling stays the provider's: its own sampler decides, on a trace id from its own id
    generator (or the caller's, with a W3C parent), before anything else is built; an
    unsampled request costs one sampler call."""

    def __init__(self, provider: Any, processor: Any) -> None:
        self.sampler = provider.sampler
        self.ids = provider.id_generator
        self.resource = provider.resource
        self.processor = processor
        self.scope = InstrumentationScope(INSTRUMENTATION_NAME)

    def start(self, name: str, start_ns: int, carrier: Mapping[str, str] | None,
              attributes: dict[str, Any]) -> RequestTrace | None:
        parent_context = _PROPAGATOR.extract(carrier) if carrier else None
        parent: SpanContext | None = None
        if parent_context is not None:
            parent = trace.get_current_span(parent_context).get_span_context()
            if not parent.is_valid:
                parent = None
        trace_id = parent.trace_id if parent is not None else self.ids.generate_trace_id()
        result = self.sampler.should_sample(parent_context, trace_id, name, SpanKind.SERVER,
                                            attributes, None)
        if result.decision is not Decision.RECORD_AND_SAMPLE:
            return None  # RECORD_ONLY spans are never exported: nothing to build
        if result.attributes:
            attributes = {**attributes, **result.attributes}
        context = SpanContext(trace_id, self.ids.generate_span_id(), False,
                              TraceFlags(TraceFlags.SAMPLED), result.trace_state)
        return _DirectTrace(self, context, parent, name, start_ns, attributes)

    def emit(self, name: str, context: SpanContext, parent: SpanContext | None, kind: SpanKind,
             attributes: dict[str, Any], start_ns: int, end_ns: int,
             events: tuple[Event, ...], status: Status) -> None:
        self.processor.on_end(ReadableSpan(
            name=name, context=context, parent=parent, resource=self.resource,
            attributes=attributes, events=events, kind=kind, status=status,
            start_time=start_ns, end_time=end_ns, instrumentation_scope=self.scope))


def sdk_request_trace(tracer: Tracer, name: str, start_ns: int,
                      carrier: Mapping[str, str] | None, attributes: dict[str, Any]
                      ) -> RequestTrace | None:
    """The SDK path: a live request span, or None when the provider does not sample it."""
    span = start_request_span(tracer, name, start_ns, carrier, attributes)
    if not span.is_recording() or not span.get_span_context().trace_flags.sampled:
        if span.is_recording():
            span.end(end_time=start_ns)  # recorded, never exported: close it
        return None
    return RequestTrace(tracer, span)
