"""prometheus_client objects built from the catalog, in a registry the caller owns."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.exposition import choose_encoder

from . import catalog as cat
from .buckets import ladders
from .catalog import Kind, MetricSpec
from .labels import LabelGuard
from .slo import SLOSpec

__all__ = ["Exemplar", "MetricSet", "render"]

Exemplar = dict[str, str]
# Bounds the child cache when callers send many distinct (folded) values.
_MAX_CACHED_CHILDREN = 8192


class MetricSet:
    """Every catalog metric, registered once in ``registry``, with guarded label values.

    ``specs`` restricts the set (a client-side recorder registers only the client families).
    """

    def __init__(self, registry: CollectorRegistry, slo: SLOSpec,
                 label_caps: Mapping[str, int] | None = None,
                 specs: tuple[MetricSpec, ...] = cat.CATALOG) -> None:
        self.registry = registry
        self.slo = slo
        self._buckets = ladders(slo)
        self._guard = LabelGuard(label_caps, on_fold=self._count_fold)
        self._metrics: dict[str, Any] = {}
        # Resolved children by (family, label items): the hot path pays one dict lookup.
        self._children: dict[tuple[Any, ...], Any] = {}
        for spec in specs:
            self._define(spec)

    def _define(self, spec: MetricSpec) -> None:
        LabelGuard.check_definition(spec)
        # prometheus_client adds the _total suffix itself; it wants the bare counter name.
        common: dict[str, Any] = {"labelnames": spec.labels, "registry": self.registry}
        metric: Any
        if spec.kind is Kind.COUNTER:
            metric = Counter(spec.name, spec.help, **common)
        elif spec.kind is Kind.GAUGE:
            metric = Gauge(spec.name, spec.help, **common)
        else:
            assert spec.buckets is not None
            metric = Histogram(spec.name, spec.help, buckets=self._buckets[spec.buckets],
                               **common)
        self._metrics[spec.name] = metric

    def child(self, spec: MetricSpec, **labels: str) -> Any:
        """The labelled child of ``spec`` (label values pass the guard once, then cached)."""
        key = (spec.name, *labels.items())
        found = self._children.get(key)
        if found is not None:
            return found
        metric = self._metrics[spec.name]
        child = metric.labels(*self._guard.values(spec, labels)) if spec.labels else metric
        if len(self._children) < _MAX_CACHED_CHILDREN:
            self._children[key] = child
        return child

    def family(self, spec: MetricSpec) -> Any:
        """The unguarded prometheus_client object (for closed label sets set by our code)."""
        return self._metrics[spec.name]

    def has(self, spec: MetricSpec) -> bool:
        return spec.name in self._metrics

    def _count_fold(self, metric: str, label: str) -> None:
        if cat.LABELS_FOLDED.name in self._metrics and metric != cat.LABELS_FOLDED.name:
            self.child(cat.LABELS_FOLDED, metric=metric, label=label).inc()


def render(registry: CollectorRegistry, accept: str | None = None) -> tuple[bytes, str]:
    """Exposition for a scrape; OpenMetrics (with exemplars) when the scraper asks for it."""
    encoder, content_type = choose_encoder(accept or "")
    return encoder(registry), content_type
