"""`servescope serve` redacts by default and refuses a bad policy before it binds a port."""

import subprocess
import sys

from waiting import poll_until


def run(*args, timeout=60):
    return subprocess.run([sys.executable, "-P", "-m", "servescope", "serve", *args],
                          capture_output=True, text=True, timeout=timeout)


def test_bad_redaction_policy_is_a_clear_error(tmp_path):
    policy = tmp_path / "policy.yaml"
    policy.write_text("version: 1\nactions: {email: shred}\n")
    result = run("--redaction-policy", str(policy), "--port", "0")
    assert result.returncode == 2
    assert "invalid configuration" in result.stderr and "actions.email" in result.stderr
    assert "Traceback" not in result.stderr


def test_an_engine_config_that_is_not_yaml_or_names_a_key_twice_is_a_clear_error(tmp_path):
    config = tmp_path / "engine.yaml"
    for text, needle in (("num_blocks: [\n", "YAML syntax error at line 2"),
                         ("num_blocks: 64\nnum_blocks: 8\n", "num_blocks (line 2): given twice")):
        config.write_text(text)
        result = run("--config", str(config), "--port", "0")
        assert result.returncode == 2, result.stderr
        assert f"invalid configuration: {config}: {needle}" in result.stderr
        assert "Traceback" not in result.stderr


def test_serve_help_documents_the_redaction_switches():
    out = run("--help").stdout
    assert "--redaction-policy" in out and "--no-redaction" in out


def test_serve_engine_process_is_ready_serves_and_stops_its_engine(tmp_path):
    import json
    import os
    import signal
    import socket
    import urllib.request

    with socket.socket() as probe:  # a free port
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = tmp_path / "engine.yaml"
    config.write_text("model: {dim: 32, n_layers: 1, n_heads: 4, n_kv_heads: 2, "
                      "hidden_dim: 64, max_context: 128}\nnum_blocks: 64\nblock_size: 8\n")
    proc = subprocess.Popen(
        [sys.executable, "-P", "-m", "servescope", "serve", "--engine-process", "--port",
         str(port), "--config", str(config), "--trace-file", str(tmp_path / "t.jsonl")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        def readyz() -> dict:
            with urllib.request.urlopen(url + "/readyz", timeout=5) as resp:
                return json.loads(resp.read())

        ready = poll_until(readyz, what="serve ready", timeout_s=120, interval_s=0.2,
                           transient=(OSError,), alive=proc)
        assert ready["ready"] is True and ready["engine"] == "process"
        engine_pid = ready["pid"]
        body = json.dumps({"model": "servescope-ref", "prompt": "hi", "max_tokens": 5,
                           "ignore_eos": True}).encode()
        req = urllib.request.Request(url + "/v1/completions", body,
                                     {"content-type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as resp:
            assert json.loads(resp.read())["usage"]["completion_tokens"] == 5
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
    try:  # the engine process went with it
        os.kill(engine_pid, 0)
        alive = True
    except ProcessLookupError:
        alive = False
    assert not alive


def test_http2_refuses_to_start_without_the_default_transports_guarantees():
    result = run("--http2", "--port", "0")
    assert result.returncode == 2
    assert "--http2 refuses to start" in result.stderr and "408" in result.stderr
    assert "--http2-without-guarantees" in result.stderr and "Traceback" not in result.stderr


def test_a_bad_metrics_port_is_a_clear_error(tmp_path):
    config = tmp_path / "engine.yaml"
    config.write_text("metrics_port: 70000\n")
    result = run("--config", str(config), "--port", "0")
    assert result.returncode == 2 and "metrics_port" in result.stderr
