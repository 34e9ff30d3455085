"""The report in a real browser: headless Chromium (Debian ``chromium``) over DevTools."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from browser import Chromium, chromium_binary

from servescope.dashboards import lint

from .conftest import LiveReport

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(chromium_binary() is None,
                                 reason="needs the Debian chromium package (make system-deps)")]

GENERATED = Path(__file__).resolve().parents[2] / "dashboards" / "generated" / "servescope"
BOARDS = ("overview", "latency", "capacity", "transport", "pipeline")

RENDERED = """[...document.querySelectorAll('figure.panel')].map(f => {
  const svg = f.querySelector(':scope > svg');
  const box = svg ? svg.getBoundingClientRect() : null;
  const note = f.querySelector('.empty');
  return {title: f.querySelector('figcaption').textContent,
          drawn: !!box && box.width > 100 && box.height > 50
                 && svg.querySelectorAll('path, text').length > 0,
          note: note && note.offsetHeight > 0 ? note.textContent : null};
})"""


def _panels_with_data(report: LiveReport) -> list[str]:
    """Asked of Prometheus directly: panels where some target has a finite sample."""
    seconds = f"{report.end - report.start:.0f}s"
    titles = []
    for name in BOARDS:
        for panel in lint.panels(json.loads((GENERATED / f"{name}.json").read_text())):
            for target in panel.get("targets", []):
                expr = (target["expr"].replace("$__rate_interval", "4s")
                        .replace("$__range", seconds).replace("$job", ".*")
                        .replace("$instance", ".*").replace("$model", ".*"))
                if panel["type"] == "stat":
                    values = [r["value"] for r in report.prom.query(expr, at=report.end)]
                else:
                    values = [v for r in report.prom.query_range(expr, report.start, report.end)
                              for v in r["values"]]
                if any(math.isfinite(float(v)) for _, v in values):
                    titles.append(panel["title"])
                    break
    return titles


def test_chromium_renders_one_figure_per_panel_with_data(live_report: LiveReport,
                                                         tmp_path: Path) -> None:
    with Chromium(tmp_path) as browser:
        page = browser.open(live_report.path.resolve().as_uri())
        figures = page.evaluate(RENDERED)
        shot = page.screenshot(tmp_path / "report.png")
        errors = page.console_errors()
        requested = page.requested_urls()
    assert errors == []
    assert all(u.startswith(("file:", "data:")) for u in requested), requested
    drawn = [f["title"] for f in figures if f["drawn"]]
    assert sorted(drawn) == sorted(_panels_with_data(live_report))
    for figure in figures:
        if not figure["drawn"]:  # empty by design: a visible note says why
            assert figure["note"] and figure["note"].startswith("No data."), figure
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 50_000
    print(f"{len(drawn)} figures drawn, {len(figures) - len(drawn)} notes; screenshot {shot}")
