"""The label guard: only catalog label keys, and a bounded number of values per label.

Keys are checked when a metric is defined (an unknown key is a programming error and raises).
Values are checked when a series is first used: past a label's cap, new values fold into
``other`` and the fold is counted, so a misbehaving caller cannot explode the series count.

The decision is made once per (label key, value) and shared by every metric family: the
first ``cap`` distinct values of a key, in the order the process first sees them on any
family, are kept everywhere, so per-label sums agree across families. Values that come from
clients (:data:`CLIENT_LABEL_KEYS`) must also pass a shape check and an injected PII check
(``setup_telemetry`` passes the redaction detectors) before they can be kept; a value that
fails folds into ``other`` like one past the cap, and is counted.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping

from .catalog import (
    ALL_LABEL_KEYS,
    FINISH_REASON,
    HOOK,
    KIND,
    LABEL,
    METRIC,
    MODEL,
    POOL,
    PRIORITY,
    REASON,
    SIGNAL,
    STAGE,
    MetricSpec,
)

__all__ = ["CLIENT_LABEL_KEYS", "DEFAULT_CAPS", "OTHER", "LabelGuard", "UnknownLabelError",
           "ValueCheck", "label_shape_ok"]

OTHER = "other"
#: Label keys whose values a client chooses (a header or a body field).
CLIENT_LABEL_KEYS = frozenset({PRIORITY})
#: A class name (``interactive``, ``batch-low``) or a small integer (vLLM sends priorities as
#: integers). More than 4 digits are refused by shape: card, phone and account numbers, ids and
#: most keys and tokens are digit-heavy.
_CLIENT_SHAPE = re.compile(r"[a-z][a-z0-9_-]{0,31}|-?[0-9]{1,4}")
_MAX_DIGITS = 4
#: Given a client-supplied label value, True when it may be kept (no PII found in it).
ValueCheck = Callable[[str], bool]


def label_shape_ok(value: str) -> bool:
    """The shape a client-supplied label value must have to be kept."""
    return (_CLIENT_SHAPE.fullmatch(value) is not None
            and sum(c.isdigit() for c in value) <= _MAX_DIGITS)

#: Distinct values allowed per label key before folding into ``other``.
DEFAULT_CAPS: Mapping[str, int] = {
    MODEL: 16, PRIORITY: 8, POOL: 16, REASON: 32, FINISH_REASON: 16, STAGE: 8, SIGNAL: 16,
    HOOK: 64, METRIC: 64, LABEL: 16, KIND: 32,
}


class UnknownLabelError(ValueError):
    """A metric was defined, or used, with a label key the catalog does not allow."""


class LabelGuard:
    """Keeps the first values seen per label key (shared by all families), folds the rest."""

    def __init__(self, caps: Mapping[str, int] | None = None,
                 on_fold: Callable[[str, str], None] | None = None,
                 value_check: ValueCheck | None = None) -> None:
        self._caps = {**DEFAULT_CAPS, **(caps or {})}
        self._kept: dict[str, set[str]] = {}
        self._lock = threading.Lock()
        self._on_fold = on_fold
        self._value_check = value_check

    @staticmethod
    def check_definition(spec: MetricSpec) -> None:
        unknown = set(spec.labels) - ALL_LABEL_KEYS
        if unknown:
            raise UnknownLabelError(f"{spec.name}: label keys {sorted(unknown)} are not allowed")

    def values(self, spec: MetricSpec, labels: Mapping[str, str]) -> tuple[str, ...]:
        """The guarded label values of ``spec`` in catalog order."""
        if labels.keys() != set(spec.labels):
            raise UnknownLabelError(
                f"{spec.name}: labels {sorted(labels)} do not match {list(spec.labels)}")
        return tuple(self._guard(spec.name, key, str(labels[key])) for key in spec.labels)

    def decide(self, key: str, value: str) -> str:
        """``value`` if label ``key`` may carry it, else ``other`` (not counted: callers that
        emit a series count the fold through :meth:`values`)."""
        kept = self._kept.get(key)
        if value == OTHER or (kept is not None and value in kept):
            return value
        if key in CLIENT_LABEL_KEYS and not self._client_value_ok(value):
            return OTHER
        with self._lock:
            kept = self._kept.setdefault(key, set())
            if value in kept:
                return value
            if len(kept) < self._caps.get(key, 16):
                kept.add(value)
                return value
        return OTHER

    def _client_value_ok(self, value: str) -> bool:
        if not label_shape_ok(value):
            return False
        try:
            return self._value_check is None or bool(self._value_check(value))
        except Exception:  # a failing check must not let the value through
            return False

    def _guard(self, metric: str, key: str, value: str) -> str:
        decided = self.decide(key, value)
        if decided != value and self._on_fold is not None:
            self._on_fold(metric, key)
        return decided
