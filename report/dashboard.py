"""The dashboard report: every generated dashboard evaluated over one range, as one HTML page.

One section per dashboard, its rows and panels in the dashboard's order with their titles,
descriptions, units, thresholds and SLO lines; heatmaps with exemplar markers (trace ids on
hover and listed below); a visible note on every panel without data saying why; then the
alerts that fired in the range.
"""

from __future__ import annotations

import datetime as dt
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from servescope import __version__

from . import page
from .alerts import AlertSpan, alerts_in_range
from .boards import Board, TimeRange
from .evaluate import BoardResult, PanelResult, evaluate_board
from .figures import panel_svg, stack_png
from .prometheus import PrometheusClient

__all__ = ["DashboardReport", "build_report", "draw_row_png", "write_report"]

#: Trace ids listed under a figure (all of them are markers with tooltips in the figure).
LISTED_EXEMPLARS = 12


@dataclass
class DashboardReport:
    html: str
    boards: list[BoardResult]
    firing: list[AlertSpan]
    pending: list[AlertSpan]
    window: TimeRange
    seconds: float  # time to evaluate and render
    query_seconds: float = 0.0  # of which asking Prometheus

    @property
    def panels(self) -> int:
        return sum(len(b.panels) for b in self.boards)

    @property
    def with_data(self) -> int:
        return sum(b.with_data for b in self.boards)

    def write(self, path: str | Path) -> Path:
        out = Path(path)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(self.html, "utf-8")
        return out

    def summary(self) -> str:
        return (f"{len(self.boards)} dashboards, {self.with_data} of {self.panels} panels with "
                f"data, {len(self.firing)} alert(s) fired; {len(self.html.encode()) / 1024:.0f} "
                f"KB, generated in {self.seconds:.1f} s, of which {self.query_seconds:.1f} s "
                "querying Prometheus")


def build_report(client: PrometheusClient, boards: Sequence[Board], window: TimeRange,
                 variables: dict[str, str], *, title: str = "servescope dashboards",
                 source: str = "") -> DashboardReport:
    started = time.perf_counter()
    present = client.metric_names(window.start, window.end)
    results = [evaluate_board(client, board, window, variables, present) for board in boards]
    firing, pending = alerts_in_range(client, window)
    queried = time.perf_counter() - started
    header = _header(client.url, window, variables, results, source)
    body = [_board_section(i, result, window) for i, result in enumerate(results)]
    body.append(_alerts_section(firing, pending))
    html = page.page(title, header, body)
    return DashboardReport(html, results, firing, pending, window,
                           time.perf_counter() - started, queried)


def _header(url: str, window: TimeRange, variables: dict[str, str],
            results: list[BoardResult], source: str) -> str:
    nav = " ".join(f'<a href="#{_anchor(r.board.uid)}">{page.esc(r.board.title)}</a>'
                   for r in results)
    chosen = ", ".join(f"${k} = {v}" for k, v in variables.items())
    return (f'<p class="meta">Prometheus <code>{page.esc(url)}</code> · '
            f"{_clock(window.start)} to {_clock(window.end)} UTC "
            f"({window.seconds:.0f} s, step {window.step_s:g} s, rate window "
            f"{window.rate_interval_s:g} s) · {page.esc(chosen)} · "
            f"servescope {page.esc(__version__)}{' · ' + page.esc(source) if source else ''}"
            f'</p><nav class="meta">{nav} <a href="#alerts">Alerts</a></nav>')


def _board_section(index: int, result: BoardResult, window: TimeRange) -> str:
    board = result.board
    parts = [f'<section class="dashboard" id="{_anchor(board.uid)}">',
             f"<h2>{page.esc(board.title)}</h2>",
             f'<p class="meta">{page.esc(board.description)} ({result.with_data} of '
             f"{len(result.panels)} panels with data)</p>"]
    row = None
    for j, panel_result in enumerate(result.panels):
        if panel_result.panel.row != row:
            if row is not None:
                parts.append("</div>")
            row = panel_result.panel.row
            parts.append(f"<h3>{page.esc(row)}</h3>" if row else "")
            parts.append('<div class="grid">')
        parts.append(_panel_box(panel_result, window, f"b{index}p{j}"))
    if row is not None:
        parts.append("</div>")
    parts.append("</section>")
    return "\n".join(parts)


def _panel_box(result: PanelResult, window: TimeRange, salt: str) -> str:
    panel = result.panel
    if result.has_data:
        content = panel_svg(result, window, salt)
        extra = _exemplar_list(result) + _errors(result) + _queries(result)
    else:
        content = f'<div class="empty">No data. {page.esc(result.empty_reason)}</div>'
        extra = _queries(result)
    return page.figure(panel.title, panel.description, content, width=panel.width,
                       has_data=result.has_data, extra=extra)


def _exemplar_list(result: PanelResult) -> str:
    if not result.exemplars:
        return ""
    shown = sorted(result.exemplars, key=lambda e: -e.value)[:LISTED_EXEMPLARS]
    items = "".join(f"<li><code>{page.esc(e.trace_id)}</code> {_clock(e.time)}, "
                    f"{e.value:.4g}</li>" for e in shown)
    drawn = (f", {len(result.exemplars)} drawn" if result.exemplars_found > len(result.exemplars)
             else "")
    return (f'<details class="exemplars"><summary>{result.exemplars_found} exemplars{drawn} '
            f"(trace ids; the slowest {len(shown)} listed)</summary><ul>{items}</ul></details>")


def _errors(result: PanelResult) -> str:
    return "".join(f'<div class="error">{page.esc(e)}</div>' for e in result.errors)


def _queries(result: PanelResult) -> str:
    if not result.queries:
        return ""
    items = "".join(f"<li><code>{page.esc(q)}</code></li>" for q in result.queries)
    return f"<details><summary>queries</summary><ul>{items}</ul></details>"


def _alerts_section(firing: list[AlertSpan], pending: list[AlertSpan]) -> str:
    parts = ['<section id="alerts"><h2>Alerts</h2>']
    if firing:
        parts.append(page.table([_alert_row(a) for a in firing],
                                caption="Alerts firing at some point of the range"))
    else:
        parts.append('<p class="meta">No alert fired in this range.</p>')
    if pending:
        parts.append(page.table([_alert_row(a) for a in pending],
                                caption="Pending at the end of the range (their condition "
                                        "holds; they fire once it held for the rule's `for`)"))
    parts.append("</section>")
    return "\n".join(parts)


def _alert_row(alert: AlertSpan) -> dict[str, object]:
    labels = {k: v for k, v in alert.labels.items() if k != "severity"}
    return {"alert": alert.name, "severity": alert.severity, "state now": alert.state_now,
            "from": _clock(alert.first), "to": _clock(alert.last),
            "labels": ", ".join(f"{k}={v}" for k, v in sorted(labels.items())),
            "summary": alert.summary, "runbook": alert.runbook}


def _anchor(uid: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "-", uid)


def _clock(t: float) -> str:
    if t != t:  # NaN: the time is unknown
        return "?"
    return dt.datetime.fromtimestamp(t, dt.UTC).strftime("%H:%M:%S")


def write_report(client: PrometheusClient, boards: Sequence[Board], window: TimeRange,
                 variables: dict[str, str], output: str, png: str | None = None,
                 png_row: str | None = None, source: str = "") -> str:
    """Build, write, optionally draw the PNG; return the line that says where it went. A row
    the PNG cannot be drawn from is refused before anything is written."""
    report = build_report(client, boards, window, variables, source=source)
    picture = row_panels(report, png_row) if png else None
    path = report.write(output)
    line = f"report: {path} ({report.summary()})"
    if png and picture is not None:
        panels, title = picture
        stack_png(panels, report.window, png, title)
        line += f"\nreport picture: {png}"
    return line


#: The row of the overview that puts latency beside queue, KV, finish reasons, backpressure.
DEFAULT_PNG_ROW = ("overview", "Why")


def png_row_key(row: str | None) -> tuple[str, str]:
    """``row`` (``DASHBOARD/ROW``) as its two parts; ValueError naming the option."""
    if row is None:
        return DEFAULT_PNG_ROW
    board_key, sep, row_key = row.partition("/")
    if not sep or not board_key.strip() or not row_key.strip():
        raise ValueError(f"--png-row: {row!r} is not DASHBOARD/ROW (a dashboard's uid, file "
                         "stem or title, a \"/\", then a row title or its start, e.g. "
                         "overview/Why)")
    return board_key, row_key


def draw_row_png(report: DashboardReport, path: str, row: str | None) -> None:
    """``row`` is ``DASHBOARD/ROW`` (uid, file stem or title; a row title's prefix)."""
    panels, title = row_panels(report, row)
    stack_png(panels, report.window, path, title)


def row_panels(report: DashboardReport, row: str | None) -> tuple[list[PanelResult], str]:
    """The panels of ``row`` (see :func:`draw_row_png`) and the picture's title."""
    board_key, row_key = png_row_key(row)
    for result in report.boards:
        board = result.board
        if board_key.lower() not in (board.uid.lower(), board.path.stem.lower(),
                                     board.title.lower()):
            continue
        panels = [p for p in result.panels if p.panel.row.lower().startswith(row_key.lower())]
        if panels:
            return panels, f"{board.title} › {panels[0].panel.row}"
    raise ValueError(f"--png-row: no row {row_key!r} in a dashboard {board_key!r}")
