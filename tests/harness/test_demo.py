"""`servescope demo` end to end (short): the mixed load against the worker, and its report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from servescope.cli import main


def test_demo_runs_the_mixed_load_and_says_where_telemetry_went(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OTEL_TRACES_EXPORTER", raising=False)
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_ENDPOINT", raising=False)
    metrics, traces = tmp_path / "metrics.txt", tmp_path / "traces.jsonl"
    code = main(["demo", "--duration", "2", "--concurrency", "4", "--max-tokens", "24",
                 "--mix", "fast=2,cancel=1,deadline=1", "--metrics-file", str(metrics),
                 "--trace-file", str(traces), "--json"])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["requests"] >= 4
    assert summary["server_arrived"] == summary["requests"]
    assert sum(summary["server_finish"].values()) == summary["requests"]
    assert summary["metrics_file"] == str(metrics) and str(traces) in summary["traces"]
    exposition = metrics.read_text()
    assert exposition.rstrip().endswith("# EOF")  # OpenMetrics
    assert 'trace_id="' in exposition  # with exemplars
    exported = {json.loads(line)["context"]["trace_id"].removeprefix("0x")
                for line in traces.read_text().splitlines()}
    exemplar = exposition.split('trace_id="', 1)[1].split('"', 1)[0]
    assert exemplar in exported


def test_demo_report_is_a_readable_table(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["demo", "--duration", "1", "--concurrency", "2", "--max-tokens", "8",
                 "--mix", "fast=1", "--metrics-file", str(tmp_path / "m.txt"),
                 "--trace-file", str(tmp_path / "t.jsonl")])
    assert code == 0
    out = capsys.readouterr().out
    for text in ("finish reason", "goodput", "metrics: served at http://127.0.0.1:",
                 "traces: exported to", "0 slots used, 0 live streams"):
        assert text in out
