"""Panel and dashboard builders that enforce the conventions of the pack.

Every panel has a title, a description and a unit; every query goes to the ``$datasource``
variable; ids are assigned in layout order so that regenerating gives identical JSON; the
dashboard has the datasource/job/instance/model variables and a shared crosshair, so panels
that explain each other share one time axis.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from servescope.promql.flavor import missing_in

from .sdk import JSONEncoder, cb, cm, db, dm, heatmap, pb, pm, stat, timeseries

__all__ = ["DATASOURCE", "Board", "Target", "heat", "single", "trend"]

#: Every panel and query reads the datasource the ``datasource`` variable selects.
DATASOURCE = dm.DataSourceRef(type_val="prometheus", uid="${datasource}")


@dataclass(frozen=True)
class Target:
    expr: str
    legend: str = "__auto"


#: How a panel says that its flavor lacks the metrics it needs (lint looks for this phrase).
NO_METRIC = "exposes no metric for"
_DISPLAY = {"vllm": "vLLM", "sglang": "SGLang", "tgi": "TGI"}


def _available(description: str, targets: Sequence[Target]) -> tuple[str, list[Target]]:
    """Drop targets that need a metric the flavor lacks, and say so in the description."""
    kept = [t for t in targets if not missing_in(t.expr)]
    missing = sorted({m for t in targets for m in missing_in(t.expr)})
    if not missing:
        return description, kept
    flavor, names = missing[0][0], [name for _, name in missing]
    what = "this panel" if not kept else "some of its series"
    return (f"{description} [{_DISPLAY.get(flavor, flavor)} {NO_METRIC} {what}: "
            f"{', '.join(names)}.]"), kept


def _query(target: Target, ref: str, *, heatmap_format: bool = False,
           exemplar: bool = False) -> pb.Dataquery:
    q = (pb.Dataquery().expr(target.expr).legend_format(target.legend).ref_id(ref)
         .datasource(DATASOURCE))
    if heatmap_format:
        q = q.format(pm.PromQueryFormat.HEATMAP)
    if exemplar:
        q = q.exemplar(True)
    return q


def _refs() -> Sequence[str]:
    return [chr(ord("A") + i) for i in range(26)]


def _thresholds(steps: Sequence[tuple[float | None, str]]) -> db.ThresholdsConfig:
    return (db.ThresholdsConfig().mode(dm.ThresholdsMode.ABSOLUTE)
            .steps([dm.Threshold(value=v, color=c) for v, c in steps]))


def trend(title: str, description: str, unit: str, targets: Sequence[Target], *,
          width: int = 12, height: int = 8, axis_label: str = "", stacked: bool = False,
          thresholds: Sequence[float] = (), min_value: float | None = None,
          exemplars: bool = False) -> timeseries.Panel:
    """A time series panel."""
    description, targets = _available(description, targets)
    panel = (timeseries.Panel().title(title).description(description).unit(unit)
             .datasource(DATASOURCE).span(width).height(height)
             .legend(cb.VizLegendOptions().show_legend(True)
                     .display_mode(cm.LegendDisplayMode.LIST)
                     .placement(cm.LegendPlacement.BOTTOM))
             .tooltip(cb.VizTooltipOptions().mode(cm.TooltipDisplayMode.MULTI)
                      .sort(cm.SortOrder.DESCENDING))
             .line_width(1).fill_opacity(10))
    if axis_label:
        panel = panel.axis_label(axis_label)
    if stacked:
        panel = panel.stacking(cb.StackingConfig().mode(cm.StackingMode.NORMAL))
    if thresholds:
        steps: list[tuple[float | None, str]] = [(None, "green")]
        steps += [(t, "red") for t in thresholds]
        panel = (panel.thresholds(_thresholds(steps))
                 .thresholds_style(cb.GraphThresholdsStyleConfig()
                                   .mode(cm.GraphThresholdsStyleMode.DASHED)))
    if min_value is not None:
        panel = panel.min(min_value)
    for target, ref in zip(targets, _refs(), strict=False):
        panel = panel.with_target(_query(target, ref, exemplar=exemplars))
    return panel


def single(title: str, description: str, unit: str, target: Target, *, width: int = 6,
           height: int = 5, good_above: float | None = None,
           decimals: int | None = None) -> stat.Panel:
    """A stat panel showing the last value of one query."""
    description, targets = _available(description, [target])
    panel = (stat.Panel().title(title).description(description).unit(unit)
             .datasource(DATASOURCE).span(width).height(height)
             .graph_mode(cm.BigValueGraphMode.AREA)
             .reduce_options(cb.ReduceDataOptions().calcs(["lastNotNull"]).values(False)))
    for one in targets:
        panel = panel.with_target(_query(one, "A"))
    if good_above is not None:
        panel = panel.thresholds(_thresholds([(None, "red"), (good_above, "green")]))
    if decimals is not None:
        panel = panel.decimals(decimals)
    return panel


def heat(title: str, description: str, unit: str, expr: str, *, width: int = 12,
         height: int = 8, exemplars: bool = False) -> heatmap.Panel:
    """A heatmap of bucket rates; with ``exemplars`` (raw buckets only: a recording has
    none) they are queried too, so each cell links to its traces."""
    description, targets = _available(description, [Target(expr, "{{le}}")])
    panel = (heatmap.Panel().title(title).description(description).unit(unit)
             .datasource(DATASOURCE).span(width).height(height)
             .calculate(False)
             .y_axis(heatmap.YAxisConfig().unit(unit))
             .cell_values(heatmap.CellValues().unit("reqps"))
             .exemplars_color("rgba(255,0,255,0.7)"))
    for one in targets:
        panel = panel.with_target(_query(one, "A", heatmap_format=True, exemplar=exemplars))
    return panel


@dataclass
class Board:
    """A dashboard under construction: rows of panels, then :meth:`to_json`."""

    uid: str
    title: str
    description: str
    tags: Sequence[str]
    variables: Sequence[Any]
    links: Sequence[Any] = ()
    rename: Mapping[str, str] = field(default_factory=dict)  # legend label keys
    _rows: list[tuple[str, list[Any]]] = field(default_factory=list)

    def row(self, title: str, *panels: Any) -> Board:
        self._rows.append((title, list(panels)))
        return self

    def build(self) -> db.Dashboard:
        board = (db.Dashboard(self.title).uid(self.uid).description(self.description)
                 .tags(list(self.tags)).timezone("browser").refresh("30s")
                 .time("now-1h", "now").editable().tooltip(dm.DashboardCursorSync.CROSSHAIR)
                 .variables(list(self.variables)))
        if self.links:
            board = board.links(list(self.links))
        for title, panels in self._rows:
            row = db.Row(title)
            for panel in panels:
                row = row.with_panel(panel)
            board = board.with_row(row)
        return board

    def to_json(self) -> dict[str, Any]:
        """The dashboard JSON with panel ids numbered in layout order."""
        data: dict[str, Any] = json.loads(json.dumps(self.build().build(), cls=JSONEncoder))
        data["schemaVersion"] = 41  # newest the pinned Grafana knows (deploy/versions.env)
        # The SDK nests a row's panels inside it and marks the row collapsed. Every row here is
        # expanded, and Grafana stores an expanded row's panels after it at the top level:
        # flatten, so that Grafana shows every panel exactly once, as laid out.
        flat: list[dict[str, Any]] = []
        for panel in data.get("panels", []):
            nested = panel.pop("panels", []) if panel.get("type") == "row" else []
            if panel.get("type") == "row":
                panel["collapsed"] = False
                panel["panels"] = []
            flat.append(panel)
            flat.extend(nested)
        for number, panel in enumerate(flat, start=1):
            panel["id"] = number
            for target in panel.get("targets", []):
                for key, name in self.rename.items():
                    legend = target.get("legendFormat", "")
                    target["legendFormat"] = legend.replace(f"{{{{{key}}}}}", f"{{{{{name}}}}}")
        data["panels"] = flat
        return data
