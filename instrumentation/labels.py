"""The label guard: only catalog label keys, and a bounded number of values per label.

Keys are checked when a metric is defined (an unknown key is a programming error and raises).
Values are checked when a series is first used: past a label's cap, new values fold into
``other`` and the fold is counted, so a misbehaving caller cannot explode the series count.
"""

from __future__ import annotations

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

__all__ = ["DEFAULT_CAPS", "OTHER", "LabelGuard", "UnknownLabelError"]

OTHER = "other"

#: Distinct values allowed per label key before folding into ``other``.
DEFAULT_CAPS: Mapping[str, int] = {
    MODEL: 16, PRIORITY: 8, POOL: 16, REASON: 32, FINISH_REASON: 16, STAGE: 8, SIGNAL: 16,
    HOOK: 64, METRIC: 64, LABEL: 16, KIND: 32,
}


class UnknownLabelError(ValueError):
    """A metric was defined, or used, with a label key the catalog does not allow."""


class LabelGuard:
    """Tracks the values seen per (metric, label) and folds those past the cap."""

    def __init__(self, caps: Mapping[str, int] | None = None,
                 on_fold: Callable[[str, str], None] | None = None) -> None:
        self._caps = {**DEFAULT_CAPS, **(caps or {})}
        self._seen: dict[tuple[str, str], set[str]] = {}
        self._lock = threading.Lock()
        self._on_fold = on_fold

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

    def _guard(self, metric: str, key: str, value: str) -> str:
        seen = self._seen.get((metric, key))
        if seen is not None and value in seen:
            return value
        with self._lock:
            seen = self._seen.setdefault((metric, key), set())
            if value in seen:
                return value
            if len(seen) < self._caps.get(key, 16):
                seen.add(value)
                return value
        if self._on_fold is not None:
            self._on_fold(metric, key)
        return OTHER
