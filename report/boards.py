"""Read generated Grafana dashboards generically: every row, every panel, every target.

Nothing here knows a panel by name: a new panel, flavor or dashboard appears in the report as
soon as ``servescope generate`` writes it. Grafana's template variables are replaced the way
Grafana would for one range (``$__rate_interval``, ``$__interval``, ``$__range``, ``$job``...).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = ["Board", "Panel", "Target", "TimeRange", "available_flavors", "generated_dir",
           "load_boards", "substitute"]

_VARIABLE = re.compile(r"\$\{(\w+)(?::\w+)?\}|\$(\w+)")
#: The order the dashboards are listed in their generator (the overview first).
_BOARD_ORDER = ("overview", "latency", "capacity", "transport", "pipeline")


@dataclass(frozen=True)
class Target:
    expr: str
    legend: str
    ref_id: str
    heatmap: bool
    exemplar: bool
    instant: bool


@dataclass(frozen=True)
class Panel:
    """One non-row panel, with the row it sits under."""

    title: str
    kind: str
    description: str
    unit: str
    width: int  # Grafana grid columns out of 24
    row: str
    targets: tuple[Target, ...]
    thresholds: tuple[tuple[float | None, str], ...]  # (value, color); the base step has None
    threshold_lines: bool  # drawn as lines on a time series (the SLO lines)
    decimals: int | None = None


@dataclass
class Board:
    title: str
    uid: str
    description: str
    path: Path
    panels: list[Panel] = field(default_factory=list)
    #: The "All" value of each of its template variables that has one: what a variable the
    #: caller does not choose stands for (the flavors' ``$gateway``: every gateway job).
    all_values: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class TimeRange:
    start: float
    end: float
    step_s: float
    scrape_interval_s: float

    @classmethod
    def ending(cls, start: float, end: float, scrape_interval_s: float,
               max_points: int = 240) -> TimeRange:
        """Grafana's choice: a step of range/max points, never below the scrape interval."""
        if end <= start:
            raise ValueError("the range must end after it starts")
        step = max(scrape_interval_s, math.ceil((end - start) / max_points))
        return cls(start, end, float(step), scrape_interval_s)

    @property
    def seconds(self) -> float:
        return self.end - self.start

    @property
    def rate_interval_s(self) -> float:
        """Grafana's ``$__rate_interval``: max(interval + scrape interval, 4 x scrape)."""
        return max(self.step_s + self.scrape_interval_s, 4 * self.scrape_interval_s)


def generated_dir(flavor: str) -> Path:
    """The installed package's generated dashboards for ``flavor``."""
    return Path(str(resources.files("servescope.dashboards"))) / "generated" / flavor


def available_flavors() -> list[str]:
    root = Path(str(resources.files("servescope.dashboards"))) / "generated"
    return sorted(p.name for p in root.iterdir() if p.is_dir() and any(p.glob("*.json")))


def load_boards(folder: Path) -> list[Board]:
    """Every ``*.json`` dashboard in ``folder``, the generator's order first, then by name."""
    paths = sorted(folder.glob("*.json"),
                   key=lambda p: (_BOARD_ORDER.index(p.stem) if p.stem in _BOARD_ORDER
                                  else len(_BOARD_ORDER), p.stem))
    if not paths:
        raise FileNotFoundError(f"no dashboard JSON in {folder}")
    return [_board(path, json.loads(path.read_text("utf-8"))) for path in paths]


def _board(path: Path, doc: dict[str, Any]) -> Board:
    board = Board(doc.get("title") or path.stem, doc.get("uid", path.stem),
                  doc.get("description", ""), path)
    for variable in doc.get("templating", {}).get("list", []):
        if variable.get("includeAll") and isinstance(variable.get("allValue"), str):
            board.all_values[variable["name"]] = variable["allValue"]
    for row, panel in _walk(doc.get("panels", []), ""):
        board.panels.append(_panel(panel, row))
    return board


def _walk(panels: list[dict[str, Any]], row: str) -> list[tuple[str, dict[str, Any]]]:
    """Panels in the dashboard's order; a row's title applies to what follows it."""
    out: list[tuple[str, dict[str, Any]]] = []
    ordered = sorted(panels, key=lambda p: (p.get("gridPos", {}).get("y", 0),
                                            p.get("gridPos", {}).get("x", 0)))
    for panel in ordered:
        if panel.get("type") == "row":
            row = panel.get("title", "")
            out += _walk(panel.get("panels", []), row)  # a collapsed row keeps its panels
        else:
            out.append((row, panel))
    return out


def _panel(panel: dict[str, Any], row: str) -> Panel:
    defaults = panel.get("fieldConfig", {}).get("defaults", {})
    steps = defaults.get("thresholds", {}).get("steps", [])
    style = defaults.get("custom", {}).get("thresholdsStyle", {}).get("mode", "off")
    targets = tuple(Target(t.get("expr", ""), t.get("legendFormat", ""), t.get("refId", ""),
                           t.get("format") == "heatmap" or panel.get("type") == "heatmap",
                           bool(t.get("exemplar")), bool(t.get("instant")))
                    for t in panel.get("targets", []) if t.get("expr"))
    return Panel(
        title=panel.get("title", ""), kind=panel.get("type", "timeseries"),
        description=panel.get("description", ""),
        unit=defaults.get("unit") or panel.get("options", {}).get("yAxis", {}).get("unit", ""),
        width=int(panel.get("gridPos", {}).get("w", 12)), row=row, targets=targets,
        thresholds=tuple((s.get("value"), s.get("color", "red")) for s in steps),
        threshold_lines=style not in ("off", "", None), decimals=defaults.get("decimals"))


def substitute(expr: str, window: TimeRange, variables: dict[str, str]) -> str:
    """Replace Grafana's variables in ``expr``; an unknown variable is an error naming it."""
    builtins = {
        "__rate_interval": f"{window.rate_interval_s:g}s",
        "__interval": f"{window.step_s:g}s",
        "__interval_ms": f"{window.step_s * 1000:g}",
        "__range": f"{window.seconds:.0f}s",
        "__range_s": f"{window.seconds:.0f}",
        "__range_ms": f"{window.seconds * 1000:.0f}",
    }

    def one(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        if name in builtins:
            return builtins[name]
        if name in variables:
            return variables[name]
        raise ValueError(f"unknown dashboard variable ${name} in query: {expr[:120]}")

    return _VARIABLE.sub(one, expr)
