"""``servescope gateway`` as a user runs it: its own process, a real engine behind it."""

from __future__ import annotations

import signal
import subprocess
import sys

import httpx
from waiting import poll_until

from servescope.harness.stub_engine import StubServer
from servescope.report.launcher import free_port


def test_the_command_proxies_streams_and_serves_its_metrics(tmp_path) -> None:
    port = free_port()
    with StubServer() as stub:
        proc = subprocess.Popen(
            [sys.executable, "-m", "servescope", "gateway", "--upstream", stub.url,
             "--flavor", "vllm", "--port", str(port),
             "--trace-file", str(tmp_path / "spans.jsonl")],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            url = f"http://127.0.0.1:{port}"
            poll_until(lambda: httpx.get(f"{url}/readyz").status_code == 200,
                       what="the gateway ready", transient=(httpx.HTTPError,), alive=proc)
            body = {"model": "stub-model", "prompt": "x", "max_tokens": 4, "stream": True}
            text = httpx.post(f"{url}/v1/completions", json=body).text
            assert text.count("tok ") == 4 and text.endswith("data: [DONE]\n\n")
            metrics = poll_until(lambda: (m := httpx.get(f"{url}/metrics").text) and
                                 'finish_reason="length"' in m and m, what="the finish counted")
            assert 'servescope_tokens_total{model="stub-model",stage="delivered"} 4.0' in metrics
        finally:
            proc.send_signal(signal.SIGTERM)
            out, _ = proc.communicate(timeout=30)
        assert proc.returncode == 0, out.decode()
    assert (tmp_path / "spans.jsonl").read_text().count('"servescope.finish_reason"') >= 1


def test_a_bad_configuration_names_the_field() -> None:
    result = subprocess.run([sys.executable, "-m", "servescope", "gateway", "--upstream",
                             "ftp://engine", "--port", "1"], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 2
    assert "upstream: must be an http(s)://host[:port] URL" in result.stderr


def test_a_config_file_that_names_a_key_twice_is_refused(tmp_path) -> None:
    config = tmp_path / "gateway.json"
    config.write_text('{"slow_consumer_timeout_s": 5, "slow_consumer_timeout_s": 50}')
    result = subprocess.run([sys.executable, "-m", "servescope", "gateway", "--upstream",
                             "http://127.0.0.1:9", "--config", str(config), "--port", "1"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert f"{config}: slow_consumer_timeout_s: given twice in one object" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_timeouts_come_from_the_command_line() -> None:
    from servescope.commands import gateway as command

    parser = __import__("argparse").ArgumentParser()
    command.register(parser.add_subparsers())
    args = parser.parse_args(["gateway", "--upstream", "http://127.0.0.1:8000",
                              "--upstream-idle-timeout-s", "42", "--deadline-s", "9",
                              "--max-event-bytes", "8388608"])
    config = command._config(args)
    assert config.upstream_idle_timeout_s == 42.0 and config.default_deadline_s == 9.0
    assert config.max_event_bytes == 8 << 20
    bad = subprocess.run([sys.executable, "-m", "servescope", "gateway", "--upstream",
                          "http://127.0.0.1:8000", "--upstream-idle-timeout-s", "0"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "upstream_idle_timeout_s" in bad.stderr


def test_credentials_in_the_upstream_url_are_never_shown(tmp_path) -> None:
    """The start-up line goes to stderr before any log filter, and /healthz and /readyz
    answer anyone who reaches the port: both show where the upstream is, not its login."""
    port = free_port()
    password = "Hunt3rQuokka2x"
    with StubServer() as stub:
        upstream = stub.url.replace("http://", f"http://dbadmin:{password}@")
        proc = subprocess.Popen(
            [sys.executable, "-m", "servescope", "gateway", "--upstream", upstream,
             "--port", str(port), "--trace-file", str(tmp_path / "spans.jsonl")],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            url = f"http://127.0.0.1:{port}"
            ready = poll_until(lambda: (r := httpx.get(f"{url}/readyz")).status_code == 200
                               and r, what="the gateway ready", transient=(httpx.HTTPError,),
                               alive=proc)
            health = httpx.get(f"{url}/healthz")
            shown = stub.url.replace("http://", "http://…@")
            assert ready.json()["upstream"] == health.json()["upstream"] == shown
        finally:
            proc.send_signal(signal.SIGTERM)
            out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0, out.decode()
    assert f"-> {shown} " in out.decode()
    assert password not in out.decode() + ready.text + health.text
