"""Evaluate every panel's queries over one range against a real Prometheus.

Time series and heatmaps use ``/api/v1/query_range``; a stat panel is one instant query at the
end of the range (``$__range`` spans the whole range, as in Grafana); targets marked
``exemplar`` also read ``/api/v1/query_exemplars``. A panel without data gets the reason: the
flavor has no metric for it, the series it names were never scraped, or the query returned no
finite sample.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from servescope.instrumentation import catalog as cat

from .boards import Board, Panel, Target, TimeRange, substitute
from .prometheus import PrometheusClient, PrometheusError

__all__ = ["BoardResult", "Exemplar", "PanelResult", "Series", "evaluate_board",
           "series_names"]

#: A series name in a selector, as the dashboards write them (``name{...}``).
_SELECTOR = re.compile(r"\b([a-zA-Z_:][a-zA-Z0-9_:]*)\s*\{")
#: Markers per panel: a long range can hold thousands of exemplars; an evenly spread share of
#: them (the slowest always kept) shows the same picture at a bounded page size.
MAX_EXEMPLARS = 300
_LEGEND = re.compile(r"\{\{\s*(\w+)\s*\}\}")
_PROMQL_WORDS = {"sum", "max", "min", "avg", "count", "rate", "irate", "increase", "by",
                 "without", "histogram_quantile", "vector", "on", "ignoring", "group_left",
                 "group_right", "abs", "clamp_min", "clamp_max", "label_replace", "topk"}


@dataclass
class Series:
    name: str
    labels: dict[str, str]
    times: list[float]
    values: list[float]

    @property
    def has_data(self) -> bool:
        return any(math.isfinite(v) for v in self.values)


@dataclass(frozen=True)
class Exemplar:
    time: float
    value: float
    trace_id: str
    labels: dict[str, str]


@dataclass
class PanelResult:
    panel: Panel
    series: list[Series] = field(default_factory=list)
    exemplars: list[Exemplar] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    empty_reason: str = ""
    queries: list[str] = field(default_factory=list)
    exemplars_found: int = 0  # before thinning to MAX_EXEMPLARS markers

    @property
    def has_data(self) -> bool:
        return any(s.has_data for s in self.series)


@dataclass
class BoardResult:
    board: Board
    panels: list[PanelResult]

    @property
    def with_data(self) -> int:
        return sum(1 for p in self.panels if p.has_data)


def series_names(expr: str) -> list[str]:
    """Series a PromQL expression selects (names followed by a label matcher)."""
    return sorted({n for n in _SELECTOR.findall(expr) if n not in _PROMQL_WORDS})


def legend(target: Target, labels: dict[str, str]) -> str:
    if target.legend and target.legend != "__auto":
        return _LEGEND.sub(lambda m: labels.get(m.group(1), ""), target.legend).strip()
    shown = {k: v for k, v in labels.items() if k != "__name__"}
    return ", ".join(f"{k}={v}" for k, v in sorted(shown.items())) or target.ref_id or "value"


def evaluate_board(client: PrometheusClient, board: Board, window: TimeRange,
                   variables: dict[str, str], present: set[str]) -> BoardResult:
    """``present``: metric names Prometheus holds in the range (to explain empty panels).
    A variable ``variables`` does not name takes the board's "All" value."""
    chosen = {**board.all_values, **variables}
    return BoardResult(board, [evaluate_panel(client, panel, window, chosen, present)
                               for panel in board.panels])


def evaluate_panel(client: PrometheusClient, panel: Panel, window: TimeRange,
                   variables: dict[str, str], present: set[str]) -> PanelResult:
    result = PanelResult(panel)
    if not panel.targets:
        result.empty_reason = _no_query_reason(panel)
        return result
    for target in panel.targets:
        try:
            expr = substitute(target.expr, window, variables)
        except ValueError as exc:
            result.errors.append(str(exc))
            continue
        result.queries.append(expr)
        try:
            _evaluate_target(client, panel, target, expr, window, result)
        except PrometheusError as exc:
            result.errors.append(f"{target.ref_id}: {exc}")
    result.exemplars_found = len(result.exemplars)
    result.exemplars = thin_exemplars(result.exemplars, MAX_EXEMPLARS)
    if not result.has_data:
        result.empty_reason = _empty_reason(result, present)
    return result


def thin_exemplars(exemplars: list[Exemplar], limit: int) -> list[Exemplar]:
    """At most ``limit``: the slowest tenth of the budget, then evenly spread over time."""
    if len(exemplars) <= limit:
        return exemplars
    slowest = sorted(exemplars, key=lambda e: -e.value)[:max(1, limit // 10)]
    rest = sorted((e for e in exemplars if e not in slowest), key=lambda e: e.time)
    stride = len(rest) / (limit - len(slowest))
    spread = [rest[int(i * stride)] for i in range(limit - len(slowest))]
    return sorted(slowest + spread, key=lambda e: e.time)


def _evaluate_target(client: PrometheusClient, panel: Panel, target: Target, expr: str,
                     window: TimeRange, result: PanelResult) -> None:
    if panel.kind == "stat" or target.instant:
        for item in client.query(expr, window.end):
            labels = dict(item.get("metric", {}))
            t, v = item["value"]
            result.series.append(Series(legend(target, labels), labels, [float(t)],
                                        [float(v)]))
        return
    for item in client.query_range(expr, window.start, window.end, window.step_s):
        labels = dict(item.get("metric", {}))
        points = item.get("values", [])
        result.series.append(Series(legend(target, labels), labels,
                                    [float(t) for t, _ in points],
                                    [float(v) for _, v in points]))
    if target.exemplar:
        for group in client.exemplars(expr, window.start, window.end):
            for ex in group.get("exemplars", []):
                labels = dict(ex.get("labels", {}))
                result.exemplars.append(Exemplar(float(ex["timestamp"]), float(ex["value"]),
                                                 labels.get("trace_id", ""), labels))


def _no_query_reason(panel: Panel) -> str:
    note = re.search(r"\[([^\]]*exposes no metric[^\]]*)\]", panel.description)
    if note:
        return note.group(1)
    return "This panel has no query."


def _empty_reason(result: PanelResult, present: set[str]) -> str:
    if result.errors:
        return "Every query failed: " + "; ".join(result.errors)
    named = sorted({n for q in result.queries for n in series_names(q)})
    missing = [n for n in named if n not in present]
    if named and len(missing) == len(named):
        return (f"Nothing exported {_names(missing)} in this range, so there is nothing to "
                "draw" + _produced_elsewhere(missing) + ".")
    if missing:
        return (f"{_names(missing)} never appeared in this range; the query needs it, so "
                "it returned no samples.")
    if result.series:
        return ("The series exist, but every sample in the range is NaN: a ratio whose "
                "denominator stayed 0 (nothing happened that it divides by).")
    return ("The series exist, but the query selected none of them in this range (a label "
            "value that never occurred, or a rate over fewer than two scrapes).")


def _names(names: list[str]) -> str:
    return ", ".join(f"`{n}`" for n in names)


def _produced_elsewhere(names: list[str]) -> str:
    """The catalog's own words on where a metric comes from, when it has them."""
    helps = []
    for spec in cat.CATALOG:
        if any(n in cat.series_names(spec) for n in names) and spec.help not in helps:
            helps.append(spec.help)
    return f" (the catalog: {'; '.join(h.rstrip('.') for h in helps)})" if helps else ""
