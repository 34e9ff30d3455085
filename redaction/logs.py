"""The log stage: a :class:`logging.Filter` that applies the policy to every record it passes.

Attach it to a handler (``handler.addFilter(RedactingFilter())``), not a logger: a handler's
filters see records propagated from every child logger. The message is rendered and redacted
(``msg`` becomes the redacted text, ``args`` empty), tracebacks and stack text are redacted and
kept as text, and ``extra`` attributes pass the same key policy as span attributes. Each
record gets ``trace_id``/``span_id`` (hex, empty when no span is current and none was given),
also set as ``otelTraceID``/``otelSpanID``, so a log line leads to its trace.
"""

from __future__ import annotations

import logging
from collections import Counter
from typing import Any

from opentelemetry import trace

from .policy import Policy
from .redactor import Place, Redactor
from .spans import OnRedacted

__all__ = ["RedactingFilter", "install_log_redaction"]

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
        if getattr(record, "_servescope_redacted", False):
            return True  # already done by another handler's filter
        counts: Counter[str] = Counter()
        try:
            self._redact(record, counts)
        except Exception:
            record.msg, record.args = "[REDACTED:redaction_failed]", None
            record.exc_info = record.exc_text = record.stack_info = None
            counts["redaction_failed"] += 1
        self._trace_ids(record)
        record._servescope_redacted = True
        if self.on_redacted is not None:
            for kind, n in counts.items():
                self.on_redacted(kind, n)
        return True

    def _redact(self, record: logging.LogRecord, counts: Counter[str]) -> None:
        r = self.redactor
        limit = r.policy.max_content_chars
        record.msg = r.redact_text(record.getMessage(), counts, limit=limit)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        record.exc_info = None  # the raw exception would be re-rendered unredacted
        if record.exc_text:
            record.exc_text = r.redact_text(record.exc_text, counts, limit=limit)
        if record.stack_info:
            record.stack_info = r.redact_text(record.stack_info, counts, limit=limit)
        extras = {k: v for k, v in vars(record).items() if k not in _STANDARD
                  and not k.startswith("_")}
        if extras:
            clean = r.redact_attributes(extras, counts, Place.LOG)
            for key in extras:
                if key in clean:
                    setattr(record, key, clean[key])
                else:
                    delattr(record, key)

    @staticmethod
    def _trace_ids(record: logging.LogRecord) -> None:
        trace_id: Any = getattr(record, "trace_id", None)
        span_id: Any = getattr(record, "span_id", None)
        if not trace_id:
            ctx = trace.get_current_span().get_span_context()
            if ctx.is_valid:
                trace_id, span_id = format(ctx.trace_id, "032x"), format(ctx.span_id, "016x")
        record.trace_id = record.otelTraceID = trace_id or ""
        record.span_id = record.otelSpanID = span_id or ""


def install_log_redaction(handler: logging.Handler, policy: Policy | Redactor | None = None,
                          *, on_redacted: OnRedacted | None = None) -> RedactingFilter:
    """Add a :class:`RedactingFilter` to ``handler`` and return it."""
    f = RedactingFilter(policy, on_redacted=on_redacted)
    handler.addFilter(f)
    return f
