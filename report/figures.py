"""Panels drawn with matplotlib: inline SVG for the page, PNG for the README.

Why matplotlib: the figures are computed from data this process already holds, so a static SVG
(text kept as text) is all a reader needs: tens of KB per panel, no JavaScript runtime to inline
(plotly's bundle is about 4 MB per page, Vega-Lite's runtime about 1 MB), nothing to fetch, it
prints, and the same code writes the README's PNGs. Interactivity is limited to SVG tooltips:
each exemplar marker carries a ``<title>`` with its trace id (and the ids are listed as text).
"""

from __future__ import annotations

import datetime as dt
import io
import math
import re
from collections.abc import Callable, Sequence
from typing import Any, Literal

import matplotlib

matplotlib.use("Agg")  # no display, no GUI toolkit: before pyplot is imported

import matplotlib.colors as mcolors
import matplotlib.dates as mdates
import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from .boards import Panel, TimeRange
from .evaluate import Exemplar, PanelResult, Series
from .units import format_value, unit_label

__all__ = ["draw_panel", "figure_png", "figure_svg", "grafana_color", "new_figure",
           "panel_svg", "stack_png", "style", "svg_with_titles"]

STYLE: Any = {  # Any: matplotlib types rc keys as literals; it checks them itself
    "svg.fonttype": "none",  # text stays text: smaller files, the browser's fonts
    "font.size": 8.5,
    "font.family": "DejaVu Sans",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "legend.fontsize": 7.5,
    "legend.frameon": False,
    "figure.dpi": 100,
}
EXEMPLAR_COLOR = "#d61fd6"
_GENERIC_ID = re.compile(r' id="(?:[A-Za-z]+[A-Za-z0-9.]*_\d+|[A-Za-z]+_[A-Za-z]+_\d+)"')


def grafana_color(name: str) -> str:
    """A Grafana color name (``dark-orange``, ``semi-dark-green``) as a matplotlib color."""
    candidate = name.replace("semi-dark-", "").replace("super-light-", "light")
    candidate = candidate.replace("dark-", "dark").replace("light-", "light").replace("-", "")
    return candidate if mcolors.is_color_like(candidate) else "#888888"


def new_figure(width_in: float, height_in: float,
               layout: Literal["constrained"] | None = "constrained") -> Figure:
    """A figure outside pyplot's registry (nothing to close); draw inside ``style()``."""
    return Figure(figsize=(width_in, height_in), layout=layout)


def style() -> Any:
    """The report's matplotlib settings, for the artists created inside the block."""
    return plt.rc_context(STYLE)


def figure_svg(fig: Figure, salt: str, titles: dict[str, str] | None = None) -> str:
    """The figure as an ``<svg>`` element to inline (ids salted to stay unique on a page)."""
    buf = io.StringIO()
    with plt.rc_context({**STYLE, "svg.hashsalt": salt}):
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    text = buf.getvalue()
    text = text[text.index("<svg"):]  # no XML declaration or DOCTYPE inside HTML
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.S)
    # matplotlib names every group (axes_1, line2d_3...): the same ids in every figure of a
    # page. Nothing refers to them (references use salted hashes), so they go, with the
    # indentation between tags.
    text = _GENERIC_ID.sub("", text)
    text = re.sub(r">\s+<", "><", text)
    return svg_with_titles(text, titles or {})


def svg_with_titles(svg: str, titles: dict[str, str]) -> str:
    """Give each ``<g id=gid>`` group a ``<title>`` child: the browser shows it on hover."""
    for gid, title in titles.items():
        svg = svg.replace(f'<g id="{gid}">', f'<g id="{gid}"><title>{_escape(title)}</title>', 1)
    return svg


def figure_png(fig: Figure, path: str, dpi: int = 110) -> None:
    with plt.rc_context(STYLE):
        fig.savefig(path, format="png", dpi=dpi, metadata={"Software": None})


def panel_svg(result: PanelResult, window: TimeRange, salt: str) -> str:
    panel = result.panel
    width = max(3.4, min(12.5, panel.width / 24 * 12.5))
    height = 1.5 if panel.kind == "stat" else 2.7
    with style():
        # Fixed margins: a constrained layout would cost half of each panel's drawing time.
        fig = new_figure(width, height, layout=None)
        ax = fig.add_subplot()
        titles = draw_panel(ax, result, window, id_prefix=f"{salt}-ex")
        right = 1.45 if ax.get_legend() is not None else 0.7 if len(fig.axes) > 1 else 0.2
        fig.subplots_adjust(left=0.8 / width, bottom=0.5 / height, top=1 - 0.2 / height,
                            right=1 - right / width)
        return figure_svg(fig, salt, titles)


def stack_png(results: Sequence[PanelResult], window: TimeRange, path: str,
              title: str) -> None:
    """Panels stacked on one shared time axis (the README's picture of a dashboard row)."""
    drawn = [r for r in results if r.has_data and r.panel.kind != "stat"]
    if not drawn:
        raise ValueError(f"{title}: no panel with data to draw")
    with style():
        fig = new_figure(9.0, 1.55 * len(drawn) + 0.5)
        axes = fig.subplots(len(drawn), 1, sharex=True, squeeze=False)[:, 0]
        for ax, result in zip(axes, drawn, strict=True):
            draw_panel(ax, result, window, id_prefix="png")
            ax.set_title(result.panel.title, loc="left", fontsize=9)
        for ax in axes[:-1]:
            ax.set_xlabel("")  # one time axis, at the bottom
        fig.suptitle(title, x=0.01, ha="left", fontsize=10.5, fontweight="bold")
        figure_png(fig, path)


def draw_panel(ax: Axes, result: PanelResult, window: TimeRange,
               id_prefix: str) -> dict[str, str]:
    """Draw ``result`` onto ``ax``; return the exemplar markers' tooltip texts by group id."""
    panel = result.panel
    if panel.kind == "stat":
        _draw_stat(ax, result)
        return {}
    if panel.kind == "heatmap" or any(t.heatmap for t in panel.targets):
        to_y = _draw_heatmap(ax, result, window)
    else:
        to_y = _draw_lines(ax, result, window)
    _draw_thresholds(ax, panel, to_y)
    return _draw_exemplars(ax, result.exemplars, panel.unit, to_y, id_prefix)


def _time_axis(ax: Axes, window: TimeRange) -> None:
    fig = ax.get_figure(root=True)
    width_in = ax.get_position().width * (fig.get_figwidth() if fig is not None else 6.0)
    ax.set_xlim(_when(window.start), _when(window.end))
    ax.xaxis.set_major_formatter(
        mdates.DateFormatter("%H:%M:%S", tz=dt.UTC))  # type: ignore[no-untyped-call]
    ax.xaxis.set_major_locator(
        mdates.AutoDateLocator(minticks=2,  # type: ignore[no-untyped-call]
                               maxticks=max(3, int(width_in / 1.1))))
    ax.set_xlabel("time (UTC)", fontsize=7.5)


def _value_axis(ax: Axes, unit: str, decimals: int | None) -> None:
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: format_value(v, unit, decimals)))
    label = unit_label(unit)
    if label and label not in ("seconds", "%"):
        ax.set_ylabel(label, fontsize=7.5)


def _draw_lines(ax: Axes, result: PanelResult, window: TimeRange) -> Callable[[float], float]:
    for series in result.series:
        if series.has_data:
            ax.plot([_when(t) for t in series.times], _finite(series.values),
                    label=series.name, linewidth=1.3)
    _time_axis(ax, window)
    _value_axis(ax, result.panel.unit, result.panel.decimals)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=7)
    return lambda v: v


def _draw_heatmap(ax: Axes, result: PanelResult,
                  window: TimeRange) -> Callable[[float], float]:
    """Prometheus buckets as ordinal rows (Grafana's "calculate: off"): per-bucket rates."""
    buckets = sorted(((_le(s), s) for s in result.series if "le" in s.labels),
                     key=lambda item: item[0])
    times = sorted({t for _, s in buckets for t in s.times})
    if not buckets or not times:
        return _draw_lines(ax, result, window)
    index = {t: i for i, t in enumerate(times)}
    grid = [[math.nan] * len(times) for _ in buckets]
    for row, (_, series) in enumerate(buckets):
        for t, v in zip(series.times, series.values, strict=True):
            grid[row][index[t]] = v
    cells = [[_rate_in_bucket(grid, row, col) for col in range(len(times))]
             for row in range(len(buckets))]
    cells = [[v if v > 0 else math.nan for v in row] for row in cells]  # empty cells: blank
    edges = [_when(t - window.step_s / 2) for t in times] + [_when(times[-1] + window.step_s / 2)]
    mesh = ax.pcolormesh(edges, range(len(buckets) + 1), cells, cmap="Oranges",
                         norm=mcolors.PowerNorm(0.5), shading="flat",
                         rasterized=True)  # one embedded image instead of a path per cell
    bar = ax.figure.colorbar(mesh, ax=ax, pad=0.01, fraction=0.04)
    bar.ax.tick_params(labelsize=6.5)
    bar.set_label("per second", fontsize=7)
    bounds = [le for le, _ in buckets]
    step = max(1, len(bounds) // 8)
    ax.set_yticks([i + 1 for i in range(0, len(bounds), step)])
    ax.set_yticklabels([_bound(b, result.panel.unit) for b in bounds[::step]], fontsize=6.5)
    ax.set_ylim(0, len(bounds))
    ax.grid(False)
    _time_axis(ax, window)
    return lambda v: _ordinal(v, bounds)


def _rate_in_bucket(grid: list[list[float]], row: int, col: int) -> float:
    value = grid[row][col]
    below = grid[row - 1][col] if row > 0 else 0.0
    if math.isnan(value):
        return math.nan
    return max(0.0, value - (below if not math.isnan(below) else 0.0))


def _ordinal(value: float, bounds: list[float]) -> float:
    """Where ``value`` sits on the bucket rows (linear inside its bucket)."""
    lower = 0.0
    for i, upper in enumerate(bounds):
        if value <= upper:
            if math.isinf(upper):
                return i + 0.5
            return i + (value - lower) / (upper - lower) if upper > lower else float(i)
        lower = upper
    return float(len(bounds))


def _draw_thresholds(ax: Axes, panel: Panel, to_y: Callable[[float], float]) -> None:
    """Dashed threshold (SLO) lines; like Grafana, they never stretch the data's scale."""
    if not panel.threshold_lines:
        return
    low, high = ax.get_ylim()
    above = []
    for value, color in panel.thresholds:
        if value is None:
            continue
        y = to_y(value)
        if low <= y <= high:
            ax.axhline(y, color=grafana_color(color), linestyle="--", linewidth=1.1)
            ax.annotate(format_value(value, panel.unit), (1.0, y),
                        xycoords=("axes fraction", "data"), ha="right", va="bottom",
                        fontsize=7, color=grafana_color(color))
        else:
            above.append(format_value(value, panel.unit))
    ax.set_ylim(low, high)
    if above:
        ax.annotate(f"threshold {', '.join(above)}: off the scale", (1.0, 1.0),
                    xycoords="axes fraction", ha="right", va="bottom", fontsize=7,
                    color="#a4161a")


def _draw_exemplars(ax: Axes, exemplars: Sequence[Exemplar], unit: str,
                    to_y: Callable[[float], float], id_prefix: str) -> dict[str, str]:
    titles = {}
    for i, ex in enumerate(exemplars):
        gid = f"{id_prefix}{i}"
        ax.plot([_when(ex.time)], [to_y(ex.value)], marker="D", markersize=4.5,
                color=EXEMPLAR_COLOR, markeredgecolor="white", markeredgewidth=0.5,
                linestyle="none", gid=gid)
        titles[gid] = (f"exemplar: trace_id {ex.trace_id} - {format_value(ex.value, unit)} "
                       f"at {_clock(ex.time)} UTC")
    return titles


def _draw_stat(ax: Axes, result: PanelResult) -> None:
    panel = result.panel
    values = [(s.name, s.values[-1]) for s in result.series if s.has_data]
    ax.set_axis_off()
    for i, (name, value) in enumerate(values):
        color = _threshold_color(panel, value)
        x = (i + 0.5) / len(values)
        ax.text(x, 0.55, format_value(value, panel.unit, panel.decimals), ha="center",
                va="center", fontsize=20, fontweight="bold", color=color,
                transform=ax.transAxes)
        if len(values) > 1:
            ax.text(x, 0.12, name, ha="center", fontsize=7.5, transform=ax.transAxes)


def _threshold_color(panel: Panel, value: float) -> str:
    color = "#333333"
    for step, name in panel.thresholds:
        if step is None or value >= step:
            color = grafana_color(name)
    return color


def _le(series: Series) -> float:
    return float(series.labels["le"])


def _bound(value: float, unit: str) -> str:
    return "+Inf" if math.isinf(value) else f"≤ {format_value(value, unit)}"


def _finite(values: Sequence[float]) -> list[float]:
    return [v if math.isfinite(v) else math.nan for v in values]


def _when(t: float) -> float:
    """Unix seconds as matplotlib date numbers (days since its 1970-01-01 epoch)."""
    return t / 86400.0


def _clock(t: float) -> str:
    return dt.datetime.fromtimestamp(t, dt.UTC).strftime("%H:%M:%S")


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
