"""`servescope demo` end to end (short), and `servescope serve` as a real process."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from waiting import poll_until

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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_serve_runs_as_a_process_and_stops_cleanly(tmp_path: Path, stop: int) -> None:
    exe = shutil.which("servescope", path=os.path.dirname(sys.executable))
    if exe is None:
        pytest.fail("the servescope console script is not installed next to the interpreter")
    port = _free_port()
    env = {**os.environ, "OTEL_TRACES_EXPORTER": "none", "PYTHONSAFEPATH": "1"}
    proc = subprocess.Popen([exe, "serve", "--port", str(port), "--model-name", "proc-ref"],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        url = f"http://127.0.0.1:{port}"
        poll_until(lambda: httpx.get(f"{url}/healthz").status_code == 200,
                   what="the demo server's health check", transient=(httpx.TransportError,),
                   alive=proc)
        models = httpx.get(f"{url}/v1/models").json()
        assert models["data"][0]["id"] == "proc-ref"
        done = httpx.post(f"{url}/v1/completions",
                          json={"model": "proc-ref", "prompt": "hi", "max_tokens": 3,
                                "ignore_eos": True}).json()
        assert done["usage"]["completion_tokens"] == 3
    finally:
        proc.send_signal(stop)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    assert proc.returncode == 0


def test_serve_refuses_a_bad_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "engine.yaml"
    bad.write_text("max_batch: 0\n")
    assert main(["serve", "--config", str(bad)]) == 2
    assert "max_batch" in capsys.readouterr().err
