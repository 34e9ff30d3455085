"""The metric series one (model, priority) pair writes, shared by every request of the pair.

:class:`~.telemetry.Telemetry` makes one bundle per pair; each
:class:`~.request_recorder.RequestRecorder` holds its pair's bundle and resolves its series
through it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import catalog as cat

if TYPE_CHECKING:
    from .metrics import MetricSet

__all__ = ["SeriesBundle"]


class SeriesBundle:
    """The label children one (model, priority) pair writes, resolved on first use and then
    read from a small dict: a hook pays one lookup, not a label-guard pass. Shared by every
    request of the pair; children are created lazily, so no series appears before its first
    write. ``cache`` is read inline by the recorder's hottest hooks (a call less each); it is
    written here alone, by :meth:`get`."""

    __slots__ = (
        "_metrics",
        "arrival",
        "cache",
        "finishes",
        "lock",
        "model",
        "priority",
        "span_model",
        "span_priority",
        "step_tokens",
    )

    def __init__(self, metrics: MetricSet, model: str, priority: str) -> None:
        self._metrics = metrics
        self.model = model
        self.priority = priority
        self.lock = metrics.lock
        self.cache: dict[Any, Any] = {}
        # arrived, in flight, prompt tokens (None until a request has a prompt): once written
        self.arrival: tuple[Any, Any, Any] | None = None
        # the series of a finish by its shape (see the recorder's _finish_series): a shape
        # seen once has written all of its series, so caching them creates none early
        self.finishes: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        # committed, proposed, written, delivered token counters, each once written
        self.step_tokens: tuple[Any, ...] = (None, None, None, None)
        self.span_priority: str | None = None  # the priority spans carry (folded or not)
        self.span_model: str | None = None  # the same for the model (client-chosen too)

    def get(self, spec: cat.MetricSpec, label: str = "", value: str = "") -> Any:
        key = (spec.name, value) if label else spec.name
        child = self.cache.get(key)
        if child is None:
            labels = {cat.MODEL: self.model} if cat.MODEL in spec.labels else {}
            if cat.PRIORITY in spec.labels:
                labels[cat.PRIORITY] = self.priority
            if label:
                labels[label] = value
            child = self._metrics.child(spec, **labels)
            if len(self.cache) < 256:  # bounded: label values are guarded, but still
                self.cache[key] = child
        return child
