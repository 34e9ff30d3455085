"""The log stage: a :class:`logging.Filter` that applies the policy to every record it passes.

Attach it to a handler (``handler.addFilter(RedactingFilter())``), not a logger: a handler's
filters see records propagated from every child logger. The message is rendered and redacted:
``msg`` becomes the redacted text and ``args`` empty, unless each argument redacted alone
renders the same text (then ``args`` hold those, for formatters that read them: uvicorn's
access log). Tracebacks and stack text are redacted and appended to the message (so every
handler, the OTLP one included, exports them redacted), and ``extra`` attributes pass the same
key policy as span attributes (nested mappings too; other objects as the text they print).
Each record gets ``trace_id``/``span_id`` (hex; empty when no span is current and none was
given), so a log line leads to its trace. Attach it once per handler chain: counts are per filter.
"""

from __future__ import annotations

import copy
import logging
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from opentelemetry import trace

from .policy import Policy
from .redactor import Place, Redactor
from .spans import OnRedacted, ResourceCache

__all__ = ["RedactingFilter", "RedactingLogExporter", "install_log_redaction"]

# Attributes every LogRecord has; anything else on a record came from ``extra``.
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message", "asctime", "trace_id", "span_id", "otelTraceID", "otelSpanID",
    "otelServiceName", "otelTraceSampled", "taskName"}


class RedactingFilter(logging.Filter):
    """Redacts records in place; never rejects one (a redaction failure blanks the message)."""

    def __init__(self, policy: Policy | Redactor | None = None, *,
                 on_redacted: OnRedacted | None = None) -> None:
        super().__init__()
        self.redactor = policy if isinstance(policy, Redactor) else Redactor(policy)
        self.on_redacted = on_redacted

    def filter(self, record: logging.LogRecord) -> bool:
        counts: Counter[str] = Counter()
        try:
            self._redact(record, counts)
        except Exception:
            record.msg, record.args = "[REDACTED:redaction_failed]", None
            record.exc_info = record.exc_text = record.stack_info = None
            counts["redaction_failed"] += 1
        self._trace_ids(record)
        if self.on_redacted is not None:
            for kind, n in counts.items():
                self.on_redacted(kind, n)
        return True

    def _redact(self, record: logging.LogRecord, counts: Counter[str]) -> None:
        r = self.redactor
        limit = r.policy.max_content_chars
        message = record.getMessage()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:  # the raw exception would be re-rendered unredacted: make it text
            message = f"{message}\n{record.exc_text}"
        if record.stack_info:
            message = f"{message}\n{record.stack_info}"
        redacted = r.redact_text(message, counts, limit=limit)
        if redacted != message or record.exc_text or record.stack_info:
            kept = self._args_kept(record, redacted, limit)
            if kept is None:
                record.msg, record.args = redacted, None
            else:
                record.args = kept  # msg stays the format string
        record.exc_info = record.exc_text = record.stack_info = None
        extras = {k: v for k, v in vars(record).items() if k not in _STANDARD
                  and not k.startswith("_")}
        if extras:
            clean = r.redact_attributes(extras, counts, Place.LOG)
            for key in extras:
                if key in clean:
                    setattr(record, key, clean[key])
                else:
                    delattr(record, key)

    def _args_kept(self, record: logging.LogRecord, redacted: str, limit: int
                   ) -> tuple[Any, ...] | Mapping[str, Any] | None:
        """A record's arguments, each redacted, when the message they render is the redacted
        message (so ``msg`` goes back to the format string): a formatter that reads the
        arguments themselves (uvicorn's access log unpacks five) still finds them. None
        when a value spans the format string and an argument ("password=%s"): the message
        is then the rendered, redacted text alone."""
        args, fmt = record.args, record.msg
        if not args or not isinstance(fmt, str) or not isinstance(args, tuple | Mapping):
            return None
        scratch: Counter[str] = Counter()  # counted once, by the message's own redaction
        try:
            if isinstance(args, Mapping):
                kept: tuple[Any, ...] | Mapping[str, Any] = {
                    k: self._arg(v, scratch, limit) for k, v in args.items()}
            else:
                kept = tuple(self._arg(v, scratch, limit) for v in args)
            if fmt % kept != redacted:
                return None
        except Exception:  # a format the arguments do not fit: the rendered text stands
            return None
        return kept

    def _arg(self, value: Any, counts: Counter[str], limit: int) -> Any:
        if isinstance(value, str):
            return self.redactor.redact_text(value, counts, limit=limit)
        if value is None or isinstance(value, bool | int | float):
            return value
        text = str(value)
        out = self.redactor.redact_text(text, counts, limit=limit)
        return value if out == text else out

    @staticmethod
    def _trace_ids(record: logging.LogRecord) -> None:
        trace_id: Any = getattr(record, "trace_id", None)
        span_id: Any = getattr(record, "span_id", None)
        if not trace_id:
            ctx = trace.get_current_span().get_span_context()
            if ctx.is_valid:
                trace_id, span_id = format(ctx.trace_id, "032x"), format(ctx.span_id, "016x")
        record.trace_id = trace_id or ""
        record.span_id = span_id or ""


def install_log_redaction(handler: logging.Handler, policy: Policy | Redactor | None = None,
                          *, on_redacted: OnRedacted | None = None) -> RedactingFilter:
    """Add a :class:`RedactingFilter` to ``handler`` and return it."""
    f = RedactingFilter(policy, on_redacted=on_redacted)
    handler.addFilter(f)
    return f


class RedactingLogExporter:
    """Wraps an OpenTelemetry log record exporter (the SDK's ``LogRecordExporter``): redacts
    each record's body, attributes and resource on the export thread, so records that never
    passed a :class:`RedactingFilter` (emitted through the OTel API directly, or the logger
    provider's resource) leave redacted too. Typed loosely: the SDK's logs API is still
    underscored."""

    def __init__(self, inner: Any, policy: Policy | Redactor | None = None, *,
                 on_redacted: OnRedacted | None = None) -> None:
        self.inner = inner
        self.redactor = policy if isinstance(policy, Redactor) else Redactor(policy)
        self.on_redacted = on_redacted
        self._resources = ResourceCache(self.redactor)

    def export(self, batch: Sequence[Any]) -> Any:
        counts: Counter[str] = Counter()
        clean = []
        for readable in batch:
            try:
                clean.append(self._redact(readable, counts))
            except Exception:  # never export what could not be redacted
                counts["redaction_failed"] += 1
        if self.on_redacted is not None:
            for kind, n in counts.items():
                self.on_redacted(kind, n)
        return self.inner.export(clean)

    def _redact(self, readable: Any, counts: Counter[str]) -> Any:
        r = self.redactor
        record = copy.copy(readable.log_record)
        body = record.body
        if isinstance(body, str):
            record.body = r.redact_text(body, counts, limit=r.policy.max_content_chars)
        elif isinstance(body, Mapping):
            record.body = r.redact_attributes(body, counts, Place.LOG)
        elif body is not None and not isinstance(body, bool | int | float):
            record.body = r.redact_text(str(body), counts, limit=r.policy.max_content_chars)
        record.attributes = r.redact_attributes(record.attributes, counts, Place.LOG)
        resource = self._resources.redact(readable.resource, counts)
        return type(readable)(log_record=record, resource=resource,
                              instrumentation_scope=readable.instrumentation_scope,
                              limits=readable.limits)

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return bool(self.inner.force_flush(timeout_millis))

    def shutdown(self) -> None:
        self.inner.shutdown()
