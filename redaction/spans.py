"""The span stage: a :class:`SpanExporter` wrapper that redacts every span before the exporter
it wraps sees it.

It runs inside the batch span processor, on the export thread, so the request thread pays
nothing. Each span gets a new, redacted copy of its name, attributes, events, links, status
description, resource and W3C ``tracestate`` (of the span, its parent and its links: a
member whose key or value holds PII is dropped, since a masked value is no valid member),
plus a summary (``servescope.redaction.count`` and one
``servescope.redaction.count.<kind>`` per kind, like the Collector's redaction processor).
A span whose redaction fails is never exported as it was: it is dropped and logged.
"""

from __future__ import annotations

import logging
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable, MutableMapping, Sequence
from typing import overload

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import Event, ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult
from opentelemetry.trace import Link, SpanContext, Status, TraceState

from .policy import Policy
from .redactor import BLOCKED_KEY, Place, Redactor, scan_joined

__all__ = [
    "SUMMARY_COUNT",
    "OnRedacted",
    "RedactingSpanExporter",
    "RedactionStage",
    "ResourceCache",
]

#: Called once per exported batch and kind with the number of values redacted.
OnRedacted = Callable[[str, int], None]
SUMMARY_COUNT = "servescope.redaction.count"
FAILED = "redaction_failed"
_log = logging.getLogger("servescope.redaction")


class ResourceCache:
    """Resources are immutable and shared by every span: redact each one once, count it once."""

    def __init__(self, redactor: Redactor) -> None:
        self.redactor = redactor
        self._done: dict[int, tuple[Resource, Resource]] = {}
        self._lock = threading.Lock()

    def redact(self, resource: Resource, totals: Counter[str] | None) -> Resource:
        hit = self._done.get(id(resource))  # a dict read is atomic; writes take the lock
        if hit is not None and hit[0] is resource:
            return hit[1]
        counts: Counter[str] = Counter()
        clean = Resource(self.redactor.redact_attributes(resource.attributes, counts,
                                                         Place.RESOURCE), resource.schema_url)
        if totals is not None:
            totals.update(counts)
        with self._lock:
            if len(self._done) > 64:
                self._done.clear()
            self._done[id(resource)] = (resource, clean)
        return clean


class RedactingSpanExporter(SpanExporter):
    """Redacts spans, then hands them to ``inner``."""

    def __init__(self, inner: SpanExporter, redactor: Redactor | None = None, *,
                 on_redacted: OnRedacted | None = None, summary: bool = True) -> None:
        self.inner = inner
        self.redactor = redactor or Redactor()
        self.on_redacted = on_redacted
        self.summary = summary
        self._resources = ResourceCache(self.redactor)

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        batch: Counter[str] = Counter()
        clean: list[ReadableSpan] = []
        for span in spans:
            try:
                clean.append(self.redact_span(span, batch))
            except Exception:  # never export what could not be redacted
                batch[FAILED] += 1
                _log.exception("redaction failed; span %r dropped", span.name[:64])
        self._report(batch)
        return self.inner.export(clean) if clean else SpanExportResult.SUCCESS

    def _report(self, counts: Counter[str]) -> None:
        if self.on_redacted is None:
            return
        for kind, n in counts.items():
            try:
                self.on_redacted(kind, n)
            except Exception:
                _log.exception("on_redacted callback failed")

    def redact_span(self, span: ReadableSpan, totals: Counter[str] | None = None
                    ) -> ReadableSpan:
        """A redacted copy of ``span`` (with its summary); adds its counts to ``totals``."""
        r = self.redactor
        scan_names = r.policy.scan_span_names
        counts: dict[str, int] = {}
        name = span.name
        # One plain-dict copy, read twice: each .get on the SDK's attribute mapping costs a
        # Python-level call (about a fifth of a span's redaction when done per model key).
        source = dict(span.attributes) if span.attributes else {}
        for model, hashed in r.model_names(source):  # "chat <adapter name>"
            name = _replace_name(name, model, hashed)
        name = r.redact_text(name, counts, limit=r.policy.max_value_chars) if scan_names else name
        attributes = r.redact_attributes(source, counts, Place.SPAN)
        events = [Event(r.redact_text(e.name, counts, limit=r.policy.max_value_chars)
                        if scan_names else e.name,
                        r.redact_attributes(e.attributes, counts, Place.EVENT), e.timestamp)
                  for e in span.events] if span.events else ()
        withheld = r.withholds
        links = [Link(clean_context(link.context, counts, withheld),
                      r.redact_attributes(link.attributes, counts, Place.LINK))
                 for link in span.links] if span.links else ()
        context = clean_context(span.context, counts, withheld)
        parent = clean_context(span.parent, counts, withheld)
        status = span.status
        if status.description:
            status = Status(status.status_code, r.redact_text(
                status.description, counts, limit=r.policy.max_value_chars))
        if counts:
            if self.summary:
                attributes[SUMMARY_COUNT] = sum(counts.values())
                for kind, n in sorted(counts.items()):
                    attributes[f"{SUMMARY_COUNT}.{kind}"] = n
            if totals is not None:
                totals.update(counts)
        resource = self._resources.redact(span.resource, totals)
        return ReadableSpan(
            name=name, context=context, parent=parent, resource=resource,
            attributes=attributes, events=events, links=links, kind=span.kind,
            status=status, start_time=span.start_time, end_time=span.end_time,
            instrumentation_scope=span.instrumentation_scope)

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self.inner.force_flush(timeout_millis)


KeyRule = Callable[[str], bool]


def _replace_name(name: str, model: str, hashed: str) -> str:
    """``name`` with ``model`` replaced: as a whole word always, inside a word only when the
    name is long enough not to match by chance ("x" in "text_completion")."""
    if len(model) >= 6:
        return name.replace(model, hashed)
    return re.sub(rf"(?<!\S){re.escape(model)}(?!\S)", hashed.replace("\\", "\\\\"), name)


@overload
def clean_context(context: SpanContext, counts: MutableMapping[str, int],
                  withheld: KeyRule | None = None) -> SpanContext: ...
@overload
def clean_context(context: None, counts: MutableMapping[str, int],
                  withheld: KeyRule | None = None) -> None: ...
def clean_context(context: SpanContext | None, counts: MutableMapping[str, int],
                  withheld: KeyRule | None = None) -> SpanContext | None:
    """``context`` without the ``tracestate`` members that hold PII (each counted by kind),
    nor those whose key the policy withholds (``withheld``: a tenant or user id; a hash is no
    valid member value). The state came from a caller's header: anything may be in it."""
    if context is None or not context.trace_state:
        return context
    kept: list[tuple[str, str]] = []
    for key, value in context.trace_state.items():
        findings = scan_joined(key) + scan_joined(value)
        if findings:
            for f in findings:
                counts[f.kind] = counts.get(f.kind, 0) + 1
        elif withheld is not None and withheld(key):
            counts[BLOCKED_KEY] = counts.get(BLOCKED_KEY, 0) + 1
        elif not _plainly_opaque(value) or scan_joined(_separated(value)):
            counts[OPAQUE_STATE] = counts.get(OPAQUE_STATE, 0) + 1
        else:
            kept.append((key, value))
    if len(kept) == len(context.trace_state):
        return context
    return SpanContext(context.trace_id, context.span_id, context.is_remote,
                       context.trace_flags, TraceState(kept))


#: tracestate members withheld for what they could hide (see :func:`_plainly_opaque`).
OPAQUE_STATE = "opaque_state"
_ALNUM_RUN = re.compile(r"[0-9A-Za-z]+")
_HEX_RUN = re.compile(r"[0-9A-Fa-f]+")
_DECIMAL_RUN = re.compile(r"\d{7}")
_LETTER_DIGIT = re.compile(r"(?<=[^\W\d_])(?=\d)|(?<=\d)(?=[^\W\d_])")


def _plainly_opaque(value: str) -> bool:
    """A member's value a vendor's state could be and no identifier can hide in, glued to
    letters where the detectors, which want a value to stand apart, would not see it
    ("e4929417833162205", "xDE15370400440532013847", "...@example.org_x", "Bearersk-proj-..."):
    at most 64 characters, no "@", and fewer than seven digits unless all of them sit in hex
    ids (a span's id, Datadog's s:1;p:00f067aa0ba902b7) with no seven in a row."""
    if len(value) > 64 or "@" in value:
        return False
    if sum(ch.isdigit() for ch in value) < 7:
        return True
    return (_DECIMAL_RUN.search(value) is None
            and all(_HEX_RUN.fullmatch(run) for run in _ALNUM_RUN.findall(value)
                    if not run.isalpha()))


def _separated(value: str) -> str:
    """``value`` with a space wherever letters meet digits and for each "_" (what glued a
    value to a word: "ssn512-48-7319", "e4929417833162205")."""
    return _LETTER_DIGIT.sub(" ", value).replace("_", " ")


class RedactionStage:
    """What ``setup_telemetry(redaction=...)`` takes: called with the exporter and a counter
    callback, it returns the redacting wrapper (outermost, so nothing downstream sees PII)."""

    def __init__(self, policy: Policy | None = None, *, hash_key: bytes | None = None,
                 summary: bool = True, known_models: Iterable[str] = ()) -> None:
        self.redactor = Redactor(policy, hash_key=hash_key, known_models=known_models)
        self.summary = summary

    def __call__(self, exporter: SpanExporter, on_redacted: OnRedacted | None = None
                 ) -> RedactingSpanExporter:
        return RedactingSpanExporter(exporter, self.redactor, on_redacted=on_redacted,
                                     summary=self.summary)
