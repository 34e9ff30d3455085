"""``servescope report`` against a real Prometheus that scraped the real reference server."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from servescope.cli import main
from servescope.dashboards import lint
from servescope.report.evaluate import MAX_EXEMPLARS

from .conftest import ALERT, LiveReport

pytestmark = pytest.mark.integration

GENERATED = Path(__file__).resolve().parents[2] / "dashboards" / "generated" / "servescope"
BOARDS = ("overview", "latency", "capacity", "transport", "pipeline")


def _sections(text: str) -> list[str]:
    return re.findall(r'<section class="dashboard".*?</section>', text, re.S)


def _figures(section: str) -> list[tuple[str, str]]:
    """(title, figure html) in page order."""
    found = re.findall(r'(<figure class="panel[^"]*".*?<figcaption>(.*?)</figcaption>.*?'
                       r"</figure>)", section, re.S)
    return [(html.unescape(title), body) for body, title in found]


def _board(name: str) -> dict:
    return json.loads((GENERATED / f"{name}.json").read_text())


def test_one_section_per_dashboard_with_its_panels_in_order(live_report: LiveReport) -> None:
    text = live_report.path.read_text()
    sections = _sections(text)
    assert len(sections) == len(BOARDS)
    for section, name in zip(sections, BOARDS, strict=True):
        board = _board(name)
        assert f"<h2>{html.escape(board['title'])}</h2>" in section
        expected = [p["title"] for p in lint.panels(board)]
        assert [title for title, _ in _figures(section)] == expected
        rows = [p["title"] for p in board["panels"] if p.get("type") == "row"]
        assert re.findall(r"<h3>(.*?)</h3>", section) == [html.escape(r) for r in rows]
    assert "report: " in live_report.stdout and "5 dashboards" in live_report.stdout


def test_units_thresholds_and_slo_lines_are_drawn(live_report: LiveReport) -> None:
    overview = dict(_figures(_sections(live_report.path.read_text())[0]))
    flow = overview["Request flow"]  # unit reqps: the ticks say so
    assert "<svg" in flow and "req/s" in flow
    ttft = overview["TTFT"]  # SLO threshold 2 s, dashed: a line or a note that it is off scale
    assert "2 s" in ttft
    assert "stroke-dasharray" in ttft or "off the scale" in ttft
    attainment = overview["TTFT SLO attainment"]  # stat, percentunit, 2 decimals
    assert re.search(r"\d+\.\d\d%", attainment)


def test_heatmap_exemplars_show_trace_ids_prometheus_holds(live_report: LiveReport) -> None:
    latency = dict(_figures(_sections(live_report.path.read_text())[1]))
    heatmap = latency["TTFT heatmap, per replica"]
    shown = set(re.findall(r"<title>exemplar: trace_id ([0-9a-f]{32})", heatmap))
    assert shown, "no exemplar markers with a trace id"
    expr = next(p for p in lint.panels(_board("latency"))
                if p["title"] == "TTFT heatmap, per replica")
    query = (expr["targets"][0]["expr"].replace("$__rate_interval", "4s")
             .replace("$job", ".*").replace("$instance", ".*").replace("$model", ".*"))
    groups = live_report.prom.exemplars(query, live_report.start, live_report.end)
    held = {e["labels"]["trace_id"] for g in groups for e in g["exemplars"]}
    assert shown <= held and len(shown) == min(len(held), MAX_EXEMPLARS)
    exported = {s.context.trace_id for s in live_report.exporter.get_finished_spans()}
    assert {int(t, 16) for t in shown} <= exported  # each marker points at a real trace


def test_alerts_firing_in_the_range_are_listed(live_report: LiveReport) -> None:
    text = live_report.path.read_text()
    alerts = text[text.index('<section id="alerts">'):]
    assert ALERT in alerts
    assert "Client cancellations spiking" in alerts  # the rule's summary
    assert "No alert fired" not in alerts


def test_every_panel_without_data_says_why(live_report: LiveReport) -> None:
    figures = [f for s in _sections(live_report.path.read_text()) for f in _figures(s)]
    empty = [(t, body) for t, body in figures if "no-data" in body.split(">", 1)[0]]
    drawn = [(t, body) for t, body in figures if "has-data" in body.split(">", 1)[0]]
    assert len(empty) + len(drawn) == len(figures)
    assert len(drawn) > 40
    for title, body in empty:
        assert "<svg" not in body
        note = re.search(r'<div class="empty">No data\. (.+?)</div>', body)
        assert note and len(note.group(1)) > 20, title
    notes = {t: b for t, b in empty}
    # the client-side histograms are recorded by load generators, never by this server
    assert "servescope_client_time_per_output_token_seconds" in notes["Client TPOT"]


def test_page_is_self_contained(live_report: LiveReport) -> None:
    text = live_report.path.read_text()
    assert "<script" not in text and "<link" not in text and "@import" not in text
    refs = re.findall(r'(?:src|href)\s*=\s*"([^"]*)"', text)
    assert all(r.startswith(("#", "data:")) for r in refs), refs


def test_report_refuses_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                  live_report: LiveReport) -> None:
    out = str(tmp_path / "r.html")
    assert main(["report", "--prometheus", live_report.prom.url, "--flavor", "nope",
                 "-o", out]) == 2
    assert "--flavor" in capsys.readouterr().err
    assert main(["report", "--prometheus", live_report.prom.url, "--since", "ten",
                 "-o", out]) == 2
    assert "not a duration" in capsys.readouterr().err
    assert main(["report", "--prometheus", "http://127.0.0.1:9", "-o", out]) == 1
    assert "cannot read" in capsys.readouterr().err
    # a picture's row that is not DASHBOARD/ROW, or names no row: refused, and no page is
    # written (a caller that reads the exit status gets no half-done result)
    png = str(tmp_path / "r.png")
    for row, why in (("nosuchrow", "is not DASHBOARD/ROW"), ("Nosuch/Row", "no row 'Row'")):
        assert main(["report", "--prometheus", live_report.prom.url, "-o", out, "--png", png,
                     "--png-row", row]) == 2
        err = capsys.readouterr().err
        assert "--png-row" in err and why in err
    assert not Path(out).exists() and not Path(png).exists()
