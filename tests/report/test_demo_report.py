"""``servescope demo`` ends with the dashboard report, or says plainly why there is none."""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path

import promharness as ph
import pytest

from servescope.cli import main

ARGS = ["--duration", "4", "--concurrency", "6", "--max-tokens", "16",
        "--mix", "fast=2,slow=1,cancel=1,deadline=1"]


def _demo(tmp_path: Path, *extra: str) -> int:
    return main(["demo", *ARGS, "--metrics-file", str(tmp_path / "m.txt"),
                 "--trace-file", str(tmp_path / "t.jsonl"), *extra])


@pytest.mark.integration
@pytest.mark.skipif(ph.prometheus_binary() is None, reason="needs the Debian prometheus package")
def test_demo_writes_the_report_beside_the_summary(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    report, png = tmp_path / "out" / "report.html", tmp_path / "demo.png"
    assert _demo(tmp_path, "--report", str(report), "--report-png", str(png)) == 0
    out = capsys.readouterr().out
    assert "finish reason" in out and "goodput" in out  # the summary is still there
    line = re.search(r"^report: (\S+) \(5 dashboards, (\d+) of (\d+) panels with data", out,
                     re.M)
    assert line, out
    assert Path(line.group(1)) == report and report.is_file()
    assert int(line.group(2)) > 30
    assert report.read_text().count('<section class="dashboard"') == 5
    assert f"report picture: {png}" in out and png.read_bytes()[:4] == b"\x89PNG"


def test_demo_without_prometheus_says_so_and_still_summarises(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROMETHEUS_BIN", str(tmp_path / "no-such-prometheus"))
    assert _demo(tmp_path, "--report", str(tmp_path / "r.html")) == 0
    out = capsys.readouterr().out
    assert "finish reason" in out
    assert ("report: none. Prometheus could not be started: cannot run "
            f"{tmp_path / 'no-such-prometheus'}") in out
    assert not (tmp_path / "r.html").exists()


def test_demo_with_a_prometheus_that_exits_says_why(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    broken = tmp_path / "prometheus"
    broken.write_text("#!/bin/sh\necho 'err: opening storage failed' >&2\nexit 3\n")
    broken.chmod(broken.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PROMETHEUS_BIN", str(broken))
    assert _demo(tmp_path, "--json", "--report", str(tmp_path / "r.html")) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["requests"] > 0
    assert summary["report"].startswith("report: none. Prometheus could not be started: "
                                        "Prometheus exited with status 3")
    assert "opening storage failed" in summary["report"]


def test_report_without_matplotlib_names_the_extra(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    for name in [m for m in sys.modules if m.startswith(("matplotlib", "servescope.report."))]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    assert main(["report", "--prometheus", "http://127.0.0.1:9"]) == 2
    assert "the 'report' extra: pip install 'servescope[report]'" in capsys.readouterr().err
    from servescope.report.live import ReportSession

    with ReportSession() as session:
        session.prometheus = object()  # type: ignore[assignment]  # as if it had started
        line = session.write("unused.html")
        session.prometheus = None
    assert line.startswith("report: none. Drawing needs matplotlib, the 'report' extra")
