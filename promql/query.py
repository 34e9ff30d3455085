"""The PromQL vocabulary shared by the dashboard and rule generators.

Every series a generated query names comes from a catalog :class:`MetricSpec` (or a flavor's
substitute for one), through :meth:`Query.sel`; nothing else writes a metric name. Every selector
carries braces, so a checker can find each series a query names with one pattern.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from servescope.instrumentation import catalog as cat
from servescope.instrumentation.catalog import Kind, MetricSpec

from .flavor import Flavor, NativeSpec, missing_in, unavailable
from .recorded import is_recorded, record_name

__all__ = [
    "PROMETHEUS_SERIES",
    "SELECTOR",
    "TARGET_LABELS",
    "Query",
    "catalog_series",
    "le_matcher",
    "le_regex",
    "series_in",
]

#: Series Prometheus itself writes for every scrape target (allowed beside the catalog).
PROMETHEUS_SERIES = frozenset({"up", "scrape_duration_seconds", "scrape_samples_scraped",
                               "scrape_samples_post_metric_relabeling", "scrape_series_added"})

#: Labels a scrape target gives every series it exports, whatever the metric: ``job`` and
#: ``instance``, and ``pod`` where Kubernetes discovery (a PodMonitor) finds the target. A
#: sidecar gateway and the engine beside it share their pod's name.
TARGET_LABELS = ("job", "instance", "pod")

#: A series name followed by its matchers: how every generated query names a series.
SELECTOR = re.compile(r"(?<![A-Za-z0-9_:])([A-Za-z_:][A-Za-z0-9_:]*)\{")


def series_in(promql: str) -> set[str]:
    """Every series name a generated query selects (names written as ``name{...}``)."""
    return set(SELECTOR.findall(promql))


def le_regex(threshold: float) -> str:
    """A regex matching the ``le`` value of ``threshold`` as any exporter may write it.

    prometheus_client writes ``2.0``, Go clients write ``2``, and Prometheus 3 rewrites
    classic-histogram ``le`` values to the float form; the regex matches every spelling.
    """
    value = float(threshold)
    text = repr(value)
    if value.is_integer():
        return f"{int(value)}(\\\\.0)?"
    return re.escape(text).replace("\\", "\\\\")


def le_matcher(threshold: float) -> str:
    """The ``le`` matcher for an SLO threshold (always a bucket boundary by construction)."""
    return f'le=~"{le_regex(threshold)}"'


@dataclass(frozen=True)
class Query:
    """Builds selectors and aggregations within a scope.

    ``matchers`` maps a label key to a matcher applied wherever the metric has that label
    (``job`` and ``instance`` belong to every scraped series); ``window`` is the range of every
    rate; ``flavor`` translates catalog families, label keys and finish reasons into another
    exporter's names (None: the catalog's own). A family the flavor lacks yields an
    :func:`~servescope.promql.flavor.unavailable` marker instead of a selector.
    """

    matchers: Mapping[str, str] = field(default_factory=dict)
    window: str = "$__rate_interval"
    flavor: Flavor | None = None
    #: the job matcher of the gateway's series (None: the flavor's gateway job)
    gateway_job: str | None = None
    #: True: rates summed across instances read the replica rules' recordings
    #: (:mod:`~servescope.promql.recorded`) where one exists, not the raw series
    recorded: bool = False

    def via_gateway(self, spec: MetricSpec, **extra: str) -> Query | None:
        """The query of a ``servescope gateway``'s own (catalog) series, when the flavor has no
        metric for ``spec`` with these matchers and a gateway in front of the engine measures
        it; None: the flavor's own metric (or nothing) answers."""
        flavor = self.flavor
        if flavor is None or flavor.families is None or not flavor.from_gateway(spec.name):
            return None
        if not isinstance(self._resolve(spec, dict(extra)), str):
            return None
        return Query({"job": self.gateway_job or f'=~"{flavor.gateway}"'}, self.window)

    def label(self, key: str) -> str:
        return self.flavor.label(key) if self.flavor is not None else key

    def _applies(self, spec: MetricSpec | None, key: str) -> bool:
        if key in ("job", "instance"):
            return True
        return spec is not None and key in spec.labels

    def _resolve(self, spec: MetricSpec, extra: dict[str, str]) -> MetricSpec | str:
        """The flavor's metric for ``spec`` (rewriting ``extra``), or an unavailable marker."""
        flavor = self.flavor
        if flavor is None or flavor.families is None:
            return spec
        if spec.name == cat.TOKENS.name:
            stage = _plain(extra.pop(cat.STAGE, ""))
            mapped = flavor.stage_metric(stage) if stage else None
            wanted = f"{spec.sample_name}[stage={stage or '*'}]"
        elif flavor.reason_counters is not None and spec.name == cat.FINISHED.name \
                and cat.FINISH_REASON in extra:
            value = extra.pop(cat.FINISH_REASON)
            wanted = f"{spec.sample_name}[finish_reason{_matcher(value)}]"
            mapped = _reason_counter(value, flavor)
        else:
            mapped, wanted = flavor.metric(spec), spec.sample_name
        if mapped is None:
            return unavailable(flavor.name, wanted)
        if cat.FINISH_REASON in extra:
            reasons = _map_reasons(extra[cat.FINISH_REASON], flavor)
            if reasons is None:
                return unavailable(flavor.name,
                                   f"{wanted}[finish_reason={_plain(extra[cat.FINISH_REASON])}]")
            extra[cat.FINISH_REASON] = reasons
        return mapped

    def sel(self, spec: MetricSpec, suffix: str = "", **extra: str) -> str:
        """``name{scope matchers, extra matchers}``; extra values are written as given
        (``stage='"discarded"'``) or, when plain, as equality matchers."""
        return self._sel(spec, suffix, dict(extra), native=False)

    def _sel(self, spec: MetricSpec, suffix: str, extra: dict[str, str], *,
             native: bool) -> str:
        """``native``: ``spec`` is already the flavor's metric (no translation)."""
        resolved = spec if native else self._resolve(spec, extra)
        if isinstance(resolved, str):
            return resolved
        spec = resolved
        name = spec.sample_name if suffix == "" else f"{spec.name}{suffix}"
        parts = [f"{self.label(k)}{m}" for k, m in self.matchers.items()
                 if self._applies(spec, k)]
        if isinstance(spec, NativeSpec):
            parts += [f"{label}{matcher}" for label, matcher in spec.fixed]
        for key, value in extra.items():
            parts.append(value if key == "le" else f'{self.label(key)}{_matcher(value)}')
        return f"{name}{{{','.join(parts)}}}"

    def raw(self, series: str, **extra: str) -> str:
        """A selector for a Prometheus-written series (``up``) or a recording rule."""
        parts = [f"{self.label(k)}{m}" for k, m in self.matchers.items()
                 if k in ("job", "instance")]
        parts += [f"{self.label(k)}{_matcher(v)}" for k, v in extra.items()]
        return f"{series}{{{','.join(parts)}}}"

    def by(self, *keys: str) -> str:
        """``by (...)`` in the flavor's label names, leaving out labels it never carries."""
        if self.flavor is not None:
            keys = tuple(k for k in keys if self.flavor.has_label(k))
        return f" by ({', '.join(self.label(k) for k in keys)})" if keys else ""

    def rate(self, spec: MetricSpec, *by: str, suffix: str = "", fn: str = "rate",
             **extra: str) -> str:
        """``sum by (...) (rate(counter[window]))``: counters are always rated and summed."""
        if spec.kind is Kind.GAUGE:
            raise ValueError(f"{spec.name} is a gauge; rate() applies to counters/histograms")
        gateway = self.via_gateway(spec, **extra) or self._gateway_for(spec, by)
        if gateway is not None:
            return gateway.rate(spec, *by, suffix=suffix, fn=fn, **extra)
        if self._reads_record(spec, suffix, fn, by):
            return self._recorded_rate(spec, by, suffix, fn, dict(extra))
        selector = self.sel(spec, suffix, **extra)
        if missing_in(selector):
            return selector
        lacking = self._lacking(spec, by)
        if lacking:
            return unavailable(self.flavor.name if self.flavor else "",
                               f"{spec.sample_name}[by {lacking}]")
        return f"sum{self.by(*by)} ({fn}({selector}[{self.window}]))"

    def _reads_record(self, spec: MetricSpec, suffix: str, fn: str,
                      by: tuple[str, ...]) -> bool:
        """A fleet rate (not by instance) over the dashboard's own window, of a recorded
        family."""
        if not self.recorded or "instance" in by or not is_recorded(spec, suffix):
            return False
        return (fn, self.window) in (("rate", "$__rate_interval"), ("increase", "$__range"))

    def _recorded_rate(self, spec: MetricSpec, by: tuple[str, ...], suffix: str, fn: str,
                       extra: dict[str, str]) -> str:
        """The recording's per-job rates summed ``by``. ``increase`` over ``$__range`` becomes
        the sum of the recorded rates over the range: proportional to the increase, so only
        ever a ratio's numerator or denominator (the SLO shares)."""
        resolved = self._resolve(spec, extra)
        if isinstance(resolved, str):
            return resolved
        lacking = self._lacking(spec, by)
        if lacking:
            return unavailable(self.flavor.name if self.flavor else "",
                               f"{spec.sample_name}[by {lacking}]")
        parts = [f"{self.label(k)}{m}" for k, m in self.matchers.items()
                 if k != "instance" and self._applies(resolved, k)]
        if isinstance(resolved, NativeSpec):
            parts += [f"{label}{matcher}" for label, matcher in resolved.fixed]
        for key, value in extra.items():
            parts.append(value if key == "le" else f'{self.label(key)}{_matcher(value)}')
        selector = f"{record_name(resolved, suffix)}{{{','.join(parts)}}}"
        if fn == "increase":
            selector = f"sum_over_time({selector}[{self.window}])"
        return f"sum{self.by(*by)} ({selector})"

    def _gateway_for(self, spec: MetricSpec, by: tuple[str, ...]) -> Query | None:
        """The gateway's query when the flavor's metric lacks a label ``by`` groups on."""
        if self.flavor is None or not self.flavor.from_gateway(spec.name) \
                or self._lacking(spec, by) is None:
            return None
        return Query({"job": self.gateway_job or f'=~"{self.flavor.gateway}"'}, self.window)

    def _lacking(self, spec: MetricSpec, by: tuple[str, ...]) -> str | None:
        """A catalog label ``by`` groups on that the flavor's metric for ``spec`` lacks (a
        breakdown it cannot give; the model label excepted: one model per target)."""
        flavor = self.flavor
        if flavor is None or flavor.families is None or spec.name == cat.TOKENS.name:
            return None
        mapped = flavor.metric(spec)
        for key in by:
            if key in (*TARGET_LABELS, "le", cat.MODEL) or mapped is None:
                continue
            if key not in mapped.labels:
                return key
        return None

    def level(self, spec: MetricSpec, *by: str, agg: str = "sum", native: bool = False,
              **extra: str) -> str:
        """A gauge aggregated across series."""
        if spec.kind is not Kind.GAUGE:
            raise ValueError(f"{spec.name} is a {spec.kind}; aggregate gauges only")
        gateway = None if native else self.via_gateway(spec, **extra)
        scope = gateway or self
        selector = scope._sel(spec, "", dict(extra), native=native)
        if missing_in(selector):
            return selector
        return f"{agg}{scope.by(*by)} ({selector})"

    def kv_usage(self, *by: str) -> str:
        """Used KV blocks as a share of the pool (a flavor may expose the ratio itself)."""
        if self.flavor is not None and self.flavor.kv_usage is not None:
            return self.level(self.flavor.kv_usage.spec(), *by, agg="avg", native=True)
        return (f"({self.level(cat.KV_BLOCKS_USED, *by)} / "
                f"{self.level(cat.KV_BLOCKS_TOTAL, *by)})")

    def threshold(self, spec: MetricSpec, threshold: float) -> float:
        """The bucket boundary an SLI at ``threshold`` counts at: the threshold itself for
        catalog ladders (built to contain it); for a flavor's fixed ladder, the largest
        boundary at or under it (conservative: nothing slower counts as good)."""
        ladder = self.flavor.buckets(spec) if self.flavor is not None else None
        if not ladder:
            return threshold
        under = [b for b in ladder if b <= threshold + 1e-12]
        return max(under) if under else min(ladder)

    def quantile(self, q: float, spec: MetricSpec, *by: str, **extra: str) -> str:
        """``histogram_quantile`` over the summed bucket rates of a classic histogram."""
        _require_histogram(spec)
        inner = self.rate(spec, *by, "le", suffix="_bucket", **extra)
        return inner if missing_in(inner) else f"histogram_quantile({q}, {inner})"

    def buckets(self, spec: MetricSpec, **extra: str) -> str:
        """Bucket rates summed by ``le``: a fleet heatmap's query, from the recording where
        the scope reads recordings (which carry no exemplars: see :meth:`replica_buckets`)."""
        _require_histogram(spec)
        return self.rate(spec, "le", suffix="_bucket", **extra)

    def replica_buckets(self, spec: MetricSpec, **extra: str) -> str:
        """The selected replicas' bucket rates summed by ``le``: a drill-down heatmap's query,
        always on the raw buckets, where the exemplars (links to traces) live."""
        _require_histogram(spec)
        return self.raw_rates().rate(spec, "le", suffix="_bucket", **extra)

    def under(self, spec: MetricSpec, threshold: float, *by: str, fn: str = "rate") -> str:
        """Rate of observations at or under ``threshold`` (a bucket boundary)."""
        _require_histogram(spec)
        return self.rate(spec, *by, suffix="_bucket", fn=fn,
                         le=le_matcher(self.threshold(spec, threshold)))

    def count(self, spec: MetricSpec, *by: str, fn: str = "rate", **extra: str) -> str:
        _require_histogram(spec)
        return self.rate(spec, *by, suffix="_count", fn=fn, **extra)

    def within(self, spec: MetricSpec, threshold: float, *by: str, fn: str = "rate") -> str:
        """The share of observations at or under ``threshold``."""
        return f"({self.under(spec, threshold, *by, fn=fn)} / {self.count(spec, *by, fn=fn)})"

    def mean(self, spec: MetricSpec, *by: str) -> str:
        _require_histogram(spec)
        return (f"({self.rate(spec, *by, suffix='_sum')} / "
                f"{self.rate(spec, *by, suffix='_count')})")

    def with_window(self, window: str) -> Query:
        return Query(self.matchers, window, self.flavor, self.gateway_job, self.recorded)

    def raw_rates(self) -> Query:
        """The same scope reading raw series only."""
        return Query(self.matchers, self.window, self.flavor, self.gateway_job)


def _plain(value: str) -> str:
    """The value of an equality matcher written either way (``x`` or ``="x"``)."""
    if value.startswith('="') and value.endswith('"'):
        return value[2:-1]
    return value


def _map_reasons(value: str, flavor: Flavor) -> str | None:
    """A finish-reason matcher in the flavor's values; None when it can match nothing."""
    if value[:2] in ("=~", "!~"):
        op, alternatives = value[:2], value[3:-1].split("|")
        kept = [r for r in (flavor.reason(a) for a in alternatives) if r]
        if not kept:
            return None if op == "=~" else '=~".+"'
        return f'{op}"{"|".join(kept)}"'
    return flavor.reason(_plain(value))


def _reason_counter(value: str, flavor: Flavor) -> MetricSpec | None:
    """The one counter of the requests a finish-reason matcher selects, for flavors that count
    reasons in counters of their own (None: none, or the reasons live in several)."""
    if value[:2] in ("!~", "!="):
        return None
    alternatives = value[3:-1].split("|") if value[:2] == "=~" else [_plain(value)]
    found = [m for m in (flavor.reason_metric(a) for a in alternatives) if m is not None]
    if not found or len({(m.name, m.sample_name) for m in found}) > 1:
        return None
    return found[0]


def _matcher(value: str) -> str:
    """``"x"`` → ``="x"``; ``=~"a|b"`` and other explicit matchers pass through."""
    if value[:2] in ("=~", "!=", "!~") or value[:1] == "=":
        return value
    return f'="{value}"'


def _require_histogram(spec: MetricSpec) -> None:
    if spec.kind is not Kind.HISTOGRAM:
        raise ValueError(f"{spec.name} is a {spec.kind}, not a histogram")


def catalog_series() -> frozenset[str]:
    """Every series name the catalog lets a query reference."""
    return frozenset(s for spec in cat.CATALOG for s in cat.series_names(spec))
