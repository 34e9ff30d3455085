"""Every entry point is safe by default: ``setup_telemetry()``, ``LocalServer``, ``servescope
serve``, ``servescope demo`` and the example redact spans and logs unless told not to. PII is
planted in request ids, attributes, events, status, ``tracestate`` (valid and invalid), baggage,
the priority header, the resource and log records (ours and the SDK's), and every byte that
leaves is searched: the span file, raw and decoded OTLP payloads, log output, and ``/metrics``
in both formats. Opting out is visible (a warning and ``servescope_redaction_enabled 0``)."""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from opentelemetry.trace import Status, StatusCode
from otlp_receiver import OtlpReceiver
from prometheus_client import CollectorRegistry
from promharness import free_port
from waiting import poll_until

from servescope.instrumentation import FinishReason, setup_telemetry
from servescope.instrumentation.metrics import render
from servescope.reference.config import EngineConfig, ModelConfig
from servescope.reference.transport.server import LocalServer

ROOT = Path(__file__).resolve().parents[2]
EMAIL = "alice.plant@example.com"
CARD = "4111111111111111"
CARD_SPACED = "4111 1111 1111 1111"
KEY = "sk-proj-Plant3dKeyAbcdefghijklmnop0123"
PLANTED = [EMAIL, CARD, CARD_SPACED, KEY, "alice.plant"]
TRACEPARENT = "00-" + "ab" * 16 + "-" + "cd" * 8 + "-01"
PII_HEADERS = {
    "traceparent": TRACEPARENT,
    "tracestate": f"mail={EMAIL},vendor=ok",  # valid members: exported unless dropped
    "baggage": f"user={EMAIL},card={CARD}",
    "x-servescope-priority": CARD,
}
BAD_TRACESTATE = {"traceparent": TRACEPARENT, "tracestate": f"Bad Key={CARD},k={EMAIL}"}
TINY = ModelConfig(dim=32, n_layers=1, n_heads=4, n_kv_heads=2, hidden_dim=64, max_context=64)
ACCEPTS = ("text/plain", "application/openmetrics-text; version=1.0.0")


def assert_clean(where: str, blob: bytes | str) -> None:
    text = blob.decode("utf-8", "replace") if isinstance(blob, bytes) else blob
    for value in PLANTED:
        assert value not in text, f"{value!r} leaked into {where}"


def otlp_env(receiver: OtlpReceiver) -> dict[str, str]:
    return {"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
            "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://{receiver.endpoint}",
            "OTEL_RESOURCE_ATTRIBUTES": f"owner.email={EMAIL},billing.card={CARD}",
            "OTEL_BSP_SCHEDULE_DELAY": "100"}


def assert_otlp_clean(receiver: OtlpReceiver) -> None:
    assert receiver.wait_for(lambda: receiver.span_count() > 0), "no spans arrived"
    assert_clean("OTLP bytes", receiver.all_bytes())
    assert_clean("decoded OTLP", str(receiver.trace_requests()))
    states = {span.trace_state for _, span in receiver.spans() if span.trace_state}
    assert states <= {"vendor=ok"}, states  # the PII member dropped, the rest kept


@pytest.fixture
def log_output() -> Iterator[io.StringIO]:
    """A root handler in place before telemetry is set up (as a server's logging would be)."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    root = logging.getLogger()
    root.addHandler(handler)
    yield out
    root.removeHandler(handler)


def plant_span_pii(provider) -> None:
    """A span of the application's own, with PII in every part a span has."""
    tracer = provider.get_tracer("app")
    with tracer.start_as_current_span(f"lookup {EMAIL}") as span:
        span.set_attribute("user.email", EMAIL)
        span.set_attribute("note", f"paid with {CARD_SPACED} using {KEY}")
        span.add_event(f"charged {CARD}", {"card": CARD, "to": EMAIL})
        span.set_status(Status(StatusCode.ERROR, f"declined for {EMAIL}"))


def plant_logs() -> None:
    logging.getLogger("servescope.reference.transport.server").warning(
        "user %s card %s", EMAIL, CARD)
    try:
        raise ValueError(f"bad key {KEY}")
    except ValueError:
        logging.getLogger("servescope.app").exception("failed for %s", EMAIL)


# --- setup_telemetry() -------------------------------------------------------------------------
def test_setup_telemetry_default_file_and_logs(tmp_path, monkeypatch, log_output):
    for name in ("OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_TRACES_SAMPLER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", f"owner.email={EMAIL}")
    registry = CollectorRegistry()
    path = tmp_path / "spans.jsonl"
    setup = setup_telemetry(registry=registry, trace_file=path)
    rec = setup.telemetry.request(f"req-{EMAIL}-{CARD}", priority=CARD,
                                  carrier=dict(PII_HEADERS))
    rec.finish(FinishReason.STOP)
    setup.telemetry.request("r2", carrier=dict(BAD_TRACESTATE)).finish(FinishReason.STOP)
    plant_span_pii(setup.tracer_provider)
    plant_logs()
    setup.shutdown(5)
    spans = path.read_text()
    assert spans.count("\n") >= 3 and "servescope.redaction.count" in spans
    assert_clean("the span file", spans)
    logged = log_output.getvalue()
    assert "[REDACTED" in logged and "Traceback" in logged
    assert_clean("log output", logged)
    for accept in ACCEPTS:
        assert_clean(f"/metrics ({accept})", render(registry, accept)[0])
    assert registry.get_sample_value("servescope_redaction_enabled", {"kind": "spans"}) == 1
    assert registry.get_sample_value("servescope_redaction_enabled", {"kind": "logs"}) == 1


def test_setup_telemetry_default_over_otlp(monkeypatch, log_output):
    with OtlpReceiver() as receiver:
        for k, v in otlp_env(receiver).items():
            monkeypatch.setenv(k, v)
        registry = CollectorRegistry()
        setup = setup_telemetry(registry=registry)
        setup.telemetry.request(f"req-{EMAIL}", carrier=dict(PII_HEADERS)).finish(
            FinishReason.STOP)
        plant_span_pii(setup.tracer_provider)
        setup.force_flush(10)
        assert_otlp_clean(receiver)
        setup.shutdown(5)
    assert_clean("log output", log_output.getvalue())


def test_opting_out_is_explicit_and_visible(tmp_path, caplog):
    registry = CollectorRegistry()
    with caplog.at_level(logging.WARNING):
        setup = setup_telemetry(registry=registry, trace_file=tmp_path / "s.jsonl",
                                redaction=False, log_redaction=False)
    messages = " ".join(r.getMessage() for r in caplog.records)
    assert "span redaction is OFF" in messages and "log redaction is OFF" in messages
    assert registry.get_sample_value("servescope_redaction_enabled", {"kind": "spans"}) == 0
    assert registry.get_sample_value("servescope_redaction_enabled", {"kind": "logs"}) == 0
    setup.telemetry.request(f"req-{EMAIL}").finish(FinishReason.STOP)
    setup.shutdown(5)
    assert EMAIL in (tmp_path / "s.jsonl").read_text()  # the opt-out really is one


# --- LocalServer -------------------------------------------------------------------------------
def test_local_server_default(monkeypatch, log_output):
    with OtlpReceiver() as receiver:
        for k, v in otlp_env(receiver).items():
            monkeypatch.setenv(k, v)
        config = EngineConfig(model=TINY, block_size=8, num_blocks=64, max_batch=4)
        with LocalServer(config, model_name="tiny") as server:
            body = {"model": "tiny", "prompt": f"mail {EMAIL}", "max_tokens": 2,
                    "user": EMAIL, "priority": None}
            r = httpx.post(f"{server.url}/v1/completions", json=body, headers=PII_HEADERS,
                           timeout=30)
            assert r.status_code == 200
            r = httpx.post(f"{server.url}/v1/completions", json=body, headers=BAD_TRACESTATE,
                           timeout=30)
            assert r.status_code == 200
            bad = httpx.post(f"{server.url}/v1/completions", headers=PII_HEADERS, timeout=30,
                             json={"model": EMAIL, "prompt": CARD})
            assert bad.status_code == 404
            plant_logs()
            for accept in ACCEPTS:
                scrape = httpx.get(f"{server.url}/metrics", headers={"accept": accept})
                assert 'servescope_redaction_enabled{kind="spans"} 1.0' in scrape.text
                assert_clean(f"/metrics ({accept})", scrape.text)
            server.setup.force_flush(10)
            assert_otlp_clean(receiver)
    assert_clean("log output", log_output.getvalue())


# --- the commands and the example (subprocesses: every byte they write is read) ----------------
def _wait_up(url: str, proc: subprocess.Popen[bytes], timeout_s: float = 60) -> None:
    poll_until(lambda: httpx.get(url, timeout=1) is not None, what=url, timeout_s=timeout_s,
               transient=(httpx.HTTPError,), alive=proc)


def _env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    return {**env, "PYTHONSAFEPATH": "1", **extra}


def _scrape_both(url: str) -> list[str]:
    return [httpx.get(f"{url}/metrics", headers={"accept": a}, timeout=10).text
            for a in ACCEPTS]


def test_servescope_serve_default(tmp_path):
    port = free_port()
    with OtlpReceiver() as receiver:
        proc = subprocess.Popen(
            [sys.executable, "-P", "-m", "servescope", "serve", "--port", str(port),
             "--config", str(_tiny_config(tmp_path))],
            cwd=tmp_path, env=_env(otlp_env(receiver)), stdout=subprocess.PIPE,
            stderr=subprocess.PIPE)
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_up(f"{url}/healthz", proc)
            for headers in (PII_HEADERS, BAD_TRACESTATE):
                r = httpx.post(f"{url}/v1/completions", headers=headers, timeout=30, json={
                    "model": "servescope-ref", "prompt": f"hi {EMAIL}", "max_tokens": 2})
                assert r.status_code == 200
            scrapes = _scrape_both(url)
        finally:
            proc.terminate()
            out, err = proc.communicate(timeout=30)
        assert_otlp_clean(receiver)
    assert 'servescope_redaction_enabled{kind="logs"} 1.0' in scrapes[0]
    for i, text in enumerate(scrapes):
        assert_clean(f"/metrics ({ACCEPTS[i]})", text)
    assert b"[REDACTED" in err  # the SDK's warning about the invalid tracestate, redacted
    assert_clean("serve's stdout and stderr", out + err)


def test_servescope_serve_opt_out_is_visible(tmp_path):
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-P", "-m", "servescope", "serve", "--port", str(port), "--config",
         str(_tiny_config(tmp_path)), "--no-redaction", "--no-log-redaction"],
        cwd=tmp_path, env=_env({"OTEL_TRACES_EXPORTER": "none"}), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_up(f"{url}/healthz", proc)
        text = httpx.get(f"{url}/metrics", timeout=10).text
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert 'servescope_redaction_enabled{kind="spans"} 0.0' in text
    assert 'servescope_redaction_enabled{kind="logs"} 0.0' in text
    assert b"span redaction is OFF" in err and b"log redaction is OFF" in err


def _tiny_config(tmp_path: Path) -> Path:
    import json

    path = tmp_path / "engine.json"
    path.write_text(json.dumps({"model": {"dim": 32, "n_layers": 1, "n_heads": 4,
                                          "n_kv_heads": 2, "hidden_dim": 64,
                                          "max_context": 64},
                                "block_size": 8, "num_blocks": 64, "max_batch": 4}))
    return path


def test_servescope_demo_default(tmp_path):
    with OtlpReceiver() as receiver:
        done = subprocess.run(
            [sys.executable, "-P", "-m", "servescope", "demo", "--duration", "1",
             "--concurrency", "2", "--max-tokens", "4", "--json",
             "--metrics-file", str(tmp_path / "m.txt")],
            cwd=tmp_path, env=_env(otlp_env(receiver)), capture_output=True, timeout=240)
        assert done.returncode == 0, done.stderr[-2000:]
        assert_otlp_clean(receiver)
    assert_clean("demo's output", done.stdout + done.stderr)
    metrics = (tmp_path / "m.txt").read_text()
    assert 'servescope_redaction_enabled{kind="spans"} 1.0' in metrics
    assert_clean("the demo's metrics file", metrics)


def test_the_example_default(tmp_path):
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-P", str(ROOT / "examples" / "instrument_your_server.py"),
         "--port", str(port)], cwd=tmp_path,
        env=_env({"OTEL_BSP_SCHEDULE_DELAY": "100",
                  "OTEL_RESOURCE_ATTRIBUTES": f"owner.email={EMAIL}"}),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_up(f"{url}/metrics", proc)
        for headers in (PII_HEADERS, BAD_TRACESTATE):
            r = httpx.get(f"{url}/generate?n=2", headers=headers, timeout=10)
            assert r.status_code == 200
        scrapes = _scrape_both(url)
        span_file = tmp_path / "servescope-traces.jsonl"
        # one batch-processor schedule: the spans reach the file before the server stops
        poll_until(lambda: span_file.exists() and span_file.stat().st_size > 0,
                   what="the example's spans written", alive=proc)
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=30)
    spans = (tmp_path / "servescope-traces.jsonl").read_text()
    assert "servescope.redaction.count" in spans
    assert_clean("the example's span file", spans)
    for i, text in enumerate(scrapes):
        assert_clean(f"/metrics ({ACCEPTS[i]})", text)
    assert_clean("the example's stdout and stderr", out + err)
