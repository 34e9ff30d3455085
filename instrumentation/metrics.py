"""Catalog metrics as lean accumulators, exposed through one prometheus_client collector.

The hooks run on the scheduler's thread between decode steps, so each update is kept to the
floor: a counter is one locked add; a histogram observation is a C-level ``bisect`` for the
bucket and one locked add to the bucket and the sum (prometheus_client's ``observe`` takes a
lock per value it touches and walks the buckets in Python). Every child of a metric set shares
the set's one lock, so a hook that touches several series (a request's finish: its latencies,
tokens and SLO counters) makes all its updates in one acquisition (``with metrics.lock`` and
the unlocked ``add``/``value +=``), and a scrape still copies each child's values in one
consistent step (``_count`` always equals the ``+Inf`` bucket and matches ``_sum``), from any
thread. Nothing that may take the lock (making a child, folding a label) runs while it is held.
The collector yields the same families, samples and exemplars prometheus_client's own metric
objects would (without ``_created``, see below). A scrape also retires the children of a model
idle for a while (:mod:`.retirement`), off the hooks' path.
"""

from __future__ import annotations

import functools
import os
import threading
import time
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from prometheus_client import CollectorRegistry
from prometheus_client.exposition import choose_encoder
from prometheus_client.metrics_core import Metric
from prometheus_client.samples import Exemplar as _Exemplar
from prometheus_client.utils import floatToGoString

from . import catalog as cat
from .buckets import ladders
from .catalog import Kind, MetricSpec
from .labels import DeclaredLabels, LabelGuard, ValueCheck
from .retirement import IdleModels
from .slo import SLOSpec

__all__ = ["Exemplar", "MetricSet", "render"]

Exemplar = dict[str, str]
# Bounds the child cache when callers send many distinct (folded) values.
_MAX_CACHED_CHILDREN = 8192
# The ``_created`` series are off: Prometheus 2.x stores each as a series of its own (one more
# per counter and histogram child, about a fifth of a replica's budget) and no dashboard or rule
# reads them. SERVESCOPE_CREATED_SERIES=1 turns them back on.
_CREATED = os.environ.get("SERVESCOPE_CREATED_SERIES", "") == "1"
# Scrapes closer together than this share one idle sweep (a scrape storm walks once a second).
_SWEEP_EVERY_S = 1.0


class CounterChild:
    """A monotonic total."""

    __slots__ = ("_lock", "created", "value")

    def __init__(self, lock: threading.Lock | None = None) -> None:
        self.value = 0.0
        self.created = time.time()
        self._lock = lock or threading.Lock()

    def inc(self, amount: float = 1) -> None:
        if amount < 0:
            raise ValueError("counters can only be incremented by non-negative amounts")
        with self._lock:
            self.value += amount


class GaugeChild:
    """A level that goes up and down (or, with :meth:`set_function`, read when scraped)."""

    __slots__ = ("_fn", "_lock", "value")

    def __init__(self, lock: threading.Lock | None = None) -> None:
        self.value = 0.0
        self._lock = lock or threading.Lock()
        self._fn: Callable[[], float] | None = None

    def set_function(self, fn: Callable[[], float]) -> None:
        """Report ``fn()`` at each scrape (an age read from a clock: nothing updates it)."""
        self._fn = fn

    def current(self) -> float:
        fn = self._fn
        return self.value if fn is None else float(fn())

    def inc(self, amount: float = 1) -> None:
        with self._lock:
            self.value += amount

    def set(self, value: float) -> None:
        self.value = float(value)  # one store: atomic


class HistogramChild:
    """Per-bucket counts (not cumulative: cumulated at scrape time), the sum, and the latest
    exemplar of each bucket."""

    __slots__ = ("_lock", "bounds", "counts", "created", "exemplars", "sum")

    def __init__(self, bounds: tuple[float, ...], lock: threading.Lock | None = None) -> None:
        self.bounds = bounds  # ascending, +Inf last
        self.counts = [0] * len(bounds)
        self.sum = 0.0
        self.exemplars: list[_Exemplar | None] = [None] * len(bounds)
        self.created = time.time()
        self._lock = lock or threading.Lock()

    def observe(self, amount: float, exemplar: Mapping[str, str] | None = None) -> None:
        i = bisect_left(self.bounds, amount)  # the first bucket whose bound is >= amount
        if i == len(self.bounds):  # NaN compares false everywhere: it lands in +Inf
            i -= 1
        with self._lock:
            self.counts[i] += 1
            self.sum += amount
        if exemplar is not None:
            self.exemplars[i] = _Exemplar(dict(exemplar), amount, time.time())

    def add(self, amount: float, exemplar: Mapping[str, str] | None = None) -> None:
        """``observe`` for a caller that already holds the metric set's lock."""
        i = bisect_left(self.bounds, amount)
        if i == len(self.bounds):
            i -= 1
        self.counts[i] += 1
        self.sum += amount
        if exemplar is not None:
            self.exemplars[i] = _Exemplar(dict(exemplar), amount, time.time())

    def snapshot(self) -> tuple[list[int], float, list[_Exemplar | None]]:
        with self._lock:
            return list(self.counts), self.sum, list(self.exemplars)


Child = CounterChild | GaugeChild | HistogramChild


def _fingerprint(child: Child) -> float:
    """A number every write to ``child`` changes (read without the lock: a torn read only
    makes a sweep see a change one scrape early or late)."""
    if isinstance(child, HistogramChild):
        return float(sum(child.counts))
    return child.value


class Family:
    """One catalog metric: its children by label values, and how to expose them."""

    def __init__(self, spec: MetricSpec, bounds: tuple[float, ...] | None,
                 lock: threading.Lock | None = None) -> None:
        self.spec = spec
        self._child_lock = lock or threading.Lock()  # shared by every child (see module doc)
        self.name = spec.name
        self.labelnames = spec.labels
        self._bounds = bounds
        self._le = tuple(_go_float(b) for b in bounds) if bounds else ()
        self._children: dict[tuple[str, ...], Child] = {}
        # retired children (key -> child, its fingerprint and when parked): a write through an
        # old reference, or asking for the child again, brings it back (see retirement.py)
        self._parked: dict[tuple[str, ...], tuple[Child, float, float]] = {}
        self._lock = threading.Lock()
        if not spec.labels:
            self._children[()] = self._new_child()

    def _new_child(self) -> Child:
        if self.spec.kind is Kind.COUNTER:
            return CounterChild(self._child_lock)
        if self.spec.kind is Kind.GAUGE:
            return GaugeChild(self._child_lock)
        assert self._bounds is not None
        return HistogramChild(self._bounds, self._child_lock)

    def labels(self, *values: Any, **by_name: Any) -> Any:
        """The child for these label values (made on first use), like prometheus_client's:
        positional in label order, or by name."""
        if by_name:
            if values or set(by_name) != set(self.labelnames):
                raise ValueError(f"{self.name}: expected labels {self.labelnames}")
            values = tuple(by_name[n] for n in self.labelnames)
        if len(values) != len(self.labelnames):
            raise ValueError(f"{self.name}: expected {len(self.labelnames)} label values, "
                             f"got {len(values)}")
        key = tuple(str(v) for v in values)
        child = self._children.get(key)
        if child is None:
            with self._lock:
                child = self._children.get(key)
                if child is None:
                    parked = self._parked.pop(key, None)
                    child = self._children[key] = \
                        self._new_child() if parked is None else parked[0]
        return child

    # --- retirement (a scrape's sweep; never the hooks) -----------------------------------
    def activity(self, index: int) -> Iterator[tuple[str, float, bool]]:
        """Per child: the value of label ``index``, its fingerprint (0 for a gauge: a level
        goes both ways) and whether it is busy (a gauge off zero: requests in flight)."""
        with self._lock:
            children = list(self._children.items())
        for key, child in children:
            if isinstance(child, GaugeChild):
                yield key[index], 0.0, child.value != 0
            else:
                yield key[index], _fingerprint(child), False

    def park(self, index: int, values: frozenset[str], now: float) -> None:
        """Stop exporting the children whose label ``index`` is one of ``values``."""
        with self._lock:
            for key in [k for k in self._children if k[index] in values]:
                child = self._children.pop(key)
                self._parked[key] = (child, _fingerprint(child), now)

    def written_parked(self, index: int) -> set[str]:
        """The label ``index`` values of parked children written since they were parked."""
        with self._lock:
            return {key[index] for key, (child, fingerprint, _) in self._parked.items()
                    if _fingerprint(child) != fingerprint}

    def unpark(self, index: int, values: set[str], now: float, keep_s: float) -> None:
        """Parked children whose label ``index`` is one of ``values`` come back, totals
        intact; those parked for ``keep_s`` are dropped."""
        if not self._parked:
            return
        with self._lock:
            for key, (child, _, since) in list(self._parked.items()):
                if key[index] in values:
                    del self._parked[key]
                    self._children.setdefault(key, child)
                elif now - since >= keep_s:
                    del self._parked[key]

    def _metric(self) -> Metric:
        kind = {Kind.COUNTER: "counter", Kind.GAUGE: "gauge", Kind.HISTOGRAM: "histogram"}
        return Metric(self.name, self.spec.help, kind[self.spec.kind])

    def describe(self) -> Metric:
        return self._metric()

    def collect(self) -> Metric:
        metric = self._metric()
        with self._lock:
            children = list(self._children.items())
        for values, child in children:
            labels = dict(zip(self.labelnames, values, strict=True))
            if isinstance(child, CounterChild):
                metric.add_sample(self.name + "_total", labels, child.value)
                if _CREATED:
                    metric.add_sample(self.name + "_created", labels, child.created)
            elif isinstance(child, GaugeChild):
                metric.add_sample(self.name, labels, child.current())
            else:
                self._histogram_samples(metric, labels, child)
        return metric

    def _histogram_samples(self, metric: Metric, labels: dict[str, str],
                           child: HistogramChild) -> None:
        counts, total, exemplars = child.snapshot()
        acc = 0.0
        for le, n, exemplar in zip(self._le, counts, exemplars, strict=True):
            acc += n
            metric.add_sample(self.name + "_bucket", {**labels, "le": le}, acc, None, exemplar)
        metric.add_sample(self.name + "_count", labels, acc)
        if self._bounds and self._bounds[0] >= 0:
            metric.add_sample(self.name + "_sum", labels, total)
        if _CREATED:
            metric.add_sample(self.name + "_created", labels, child.created)


class MetricSet:
    """Every catalog metric, registered once in ``registry``, with guarded label values.

    ``specs`` restricts the set (a client-side recorder registers only the client families).
    """

    def __init__(self, registry: CollectorRegistry, slo: SLOSpec,
                 label_caps: Mapping[str, int] | None = None,
                 specs: tuple[MetricSpec, ...] = cat.CATALOG,
                 label_check: ValueCheck | None = None,
                 declared: DeclaredLabels | None = None,
                 idle: IdleModels | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.registry = registry
        self.slo = slo
        # One lock for every child: fused updates take it once (see the module doc).
        self.lock = threading.Lock()
        self._buckets = ladders(slo)
        self._guard = LabelGuard(label_caps, on_fold=self._count_fold, value_check=label_check,
                                 declared=declared)
        self._metrics: dict[str, Family] = {}
        # Resolved children by (family, label items): the hot path pays one dict lookup.
        self._children: dict[tuple[Any, ...], Any] = {}
        for spec in specs:
            LabelGuard.check_definition(spec)
            bounds = None
            if spec.kind is Kind.HISTOGRAM:
                assert spec.buckets is not None
                bounds = _bounds(self._buckets[spec.buckets])
            self._metrics[spec.name] = Family(spec, bounds, self.lock)
        # retiring idle models' children (None: never)
        self.idle = idle
        self._clock = clock
        self._sweep_lock = threading.Lock()
        self._swept_at = -float("inf")
        self._model_families = [(f, f.labelnames.index(cat.MODEL))
                                for f in self._metrics.values() if cat.MODEL in f.labelnames]
        #: called with the model values just retired (the hooks drop their cached children)
        self.retire_listeners: list[Callable[[list[str]], None]] = []
        registry.register(self)

    # --- prometheus_client's collector protocol -------------------------------------------
    def describe(self) -> list[Metric]:
        return [f.describe() for f in self._metrics.values()]

    def collect(self) -> Iterable[Metric]:
        if self.idle is not None:
            self.retire_idle()
        return [f.collect() for f in self._metrics.values()]

    def retire_idle(self, now: float | None = None) -> list[str]:
        """Retire the children of every model idle for the idle time (see
        :mod:`.retirement`): they leave the exposition, the model's slot under the label cap
        is freed, and the hooks forget their cached children. Runs on a scrape (at most once
        a second; a scrape that finds another sweeping skips it); returns the models retired.
        """
        idle_models = self.idle
        if idle_models is None or not self._sweep_lock.acquire(blocking=False):
            return []
        try:
            now = self._clock() if now is None else now
            if now - self._swept_at < _SWEEP_EVERY_S:
                return []
            self._swept_at = now
            activity: dict[str, tuple[float, bool]] = {}
            for family, index in self._model_families:
                for model, fingerprint, busy in family.activity(index):
                    total, any_busy = activity.get(model, (0.0, False))
                    activity[model] = (total + fingerprint, any_busy or busy)
            idle = idle_models.observe(activity, now)
            if idle:
                self._retire(idle, now)
            # a write to any parked child of a model (a hook that raced the retirement) brings
            # all of that model's children back: its request may write any of them next
            written: set[str] = set()
            for family, index in self._model_families:
                written |= family.written_parked(index)
            for family, index in self._model_families:
                family.unpark(index, written, now, idle_models.keep_s)
            return idle
        finally:
            self._sweep_lock.release()

    def _retire(self, models: list[str], now: float) -> None:
        values = frozenset(models)
        for family, index in self._model_families:
            family.park(index, values, now)
        self._children.clear()  # cached references: the next hook asks the family again
        for model in models:
            self._guard.release(cat.MODEL, model)
        for listener in self.retire_listeners:
            listener(models)

    # --- the hooks' side -----------------------------------------------------------------
    def child(self, spec: MetricSpec, **labels: str) -> Any:
        """The labelled child of ``spec`` (label values pass the guard once, then cached)."""
        key = (spec.name, *labels.items())
        found = self._children.get(key)
        if found is not None:
            return found
        family = self._metrics[spec.name]
        child = family.labels(*self._guard.values(spec, labels)) if spec.labels else \
            family.labels()
        if len(self._children) < _MAX_CACHED_CHILDREN:
            self._children[key] = child
        return child

    def declarable(self, names: Iterable[str]) -> tuple[str, ...]:
        """The names :meth:`declare_models` would accept (see :meth:`LabelGuard.declarable`)."""
        return self._guard.declarable(names)

    def declare_models(self, names: Iterable[str]) -> bool:
        """More declared model names (see :meth:`LabelGuard.declare_models`); the children
        decided before are forgotten, so a name folded until now gets its own series."""
        changed = self._guard.declare_models(names)
        if changed:
            with self.lock:
                self._children.clear()
        return changed

    def label_value(self, key: str, value: str) -> str:
        """The value label ``key`` carries for ``value`` (itself or ``other``): the one
        decision every family shares, for places outside the registry (span attributes)."""
        return self._guard.decide(key, value)

    def family(self, spec: MetricSpec) -> Family:
        """The unguarded family (for closed label sets set by our code): ``.labels(...)``."""
        return self._metrics[spec.name]

    def _count_fold(self, metric: str, label: str) -> None:
        if cat.LABELS_FOLDED.name in self._metrics and metric != cat.LABELS_FOLDED.name:
            self.child(cat.LABELS_FOLDED, metric=metric, label=label).inc()


def _bounds(ladder: Sequence[float]) -> tuple[float, ...]:
    """Sorted upper bounds with +Inf last (prometheus_client's rule for ``buckets``)."""
    bounds = sorted(float(b) for b in ladder)
    if not bounds or bounds[-1] != float("inf"):
        bounds.append(float("inf"))
    return tuple(bounds)


def _memoize_openmetrics_escape() -> None:
    """prometheus_client's OpenMetrics writer escapes every name and label value rune by
    rune in Python (about two thirds of a render). The function is pure and the values are
    few (every label is guarded), so a bounded cache makes a scrape several times cheaper."""
    from prometheus_client.openmetrics import exposition as om

    escape = getattr(om, "_escape", None)
    if callable(escape) and not hasattr(escape, "cache_info"):
        om._escape = functools.lru_cache(maxsize=8192)(escape)


_memoize_openmetrics_escape()


def render(registry: CollectorRegistry, accept: str | None = None) -> tuple[bytes, str]:
    """Exposition for a scrape; OpenMetrics (with exemplars) when the scraper asks for it.

    An ``Accept`` header prometheus_client cannot honour (an unknown OpenMetrics version,
    a malformed parameter) gets the plain text format rather than an error: a scrape never
    fails because of what the scraper asked for.
    """
    try:
        encoder, content_type = choose_encoder(accept or "")
        if not content_type.startswith("application/openmetrics-text") or any(
                f"version={v};" in content_type for v in _OPENMETRICS_VERSIONS):
            return encoder(registry), content_type
    except (ValueError, TypeError):  # what prometheus_client raises on a version it cannot read
        pass
    # (prometheus_client echoes any version it is asked for: version=9.0.0 would be labelled
    # on a 1.0 body)
    encoder, content_type = choose_encoder("")
    return encoder(registry), content_type


#: The OpenMetrics versions prometheus_client writes.
_OPENMETRICS_VERSIONS = ("1.0.0", "2.0.0")


def _go_float(bound: float) -> str:
    """An ``le`` label value exactly as prometheus_client writes it."""
    return str(floatToGoString(bound))  # type: ignore[no-untyped-call]
