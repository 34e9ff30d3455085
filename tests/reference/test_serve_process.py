"""`servescope serve` as a real process: it answers, stops cleanly on a signal, and refuses a
bad config."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from waiting import poll_until

from servescope.cli import main
from servescope.report.launcher import free_port


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_serve_runs_as_a_process_and_stops_cleanly(tmp_path: Path, stop: int) -> None:
    exe = shutil.which("servescope", path=os.path.dirname(sys.executable))
    if exe is None:
        pytest.fail("the servescope console script is not installed next to the interpreter")
    port = free_port()
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
