"""The README's "use it in your server" example runs and its metrics add up."""

import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from promharness import free_port
from waiting import poll_until

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def server(tmp_path):
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-P", str(ROOT / "examples" / "instrument_your_server.py"),
         "--port", str(port)], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        poll_until(lambda: httpx.get(f"{url}/metrics", timeout=1) is not None,
                   what="the example server",
                   timeout_s=60, transient=(httpx.HTTPError,), alive=proc)
    except BaseException:
        proc.kill()
        proc.wait(10)
        raise
    yield url
    proc.terminate()
    proc.wait(10)


def test_streams_and_exposes_metrics_with_exemplars(server):
    with httpx.stream("GET", f"{server}/generate?n=5", timeout=10) as response:
        events = [line for line in response.iter_lines() if line.startswith("data:")]
    assert len(events) == 5
    text = httpx.get(f"{server}/metrics",
                     headers={"accept": "application/openmetrics-text"}).text
    assert 'servescope_requests_finished_total{finish_reason="length",model="echo"} 1.0' \
        in text
    assert 'servescope_tokens_total{model="echo",stage="delivered"} 5.0' in text
    assert "trace_id=" in text  # exemplars, OpenMetrics only
