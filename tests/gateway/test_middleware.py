"""The middleware inside a vLLM-shaped Starlette app, over real sockets, with real clients."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from vllm_shaped import SEEN_TRACEPARENTS, SERVED, create_app
from waiting import poll_until

from servescope.gateway.middleware import ServescopeMiddleware
from servescope.harness.stub_engine import StubServer
from servescope.instrumentation.setup import TelemetrySetup, setup_telemetry


@pytest.fixture
def served() -> Iterator[tuple[str, TelemetrySetup, InMemorySpanExporter]]:
    exporter = InMemorySpanExporter()
    setup = setup_telemetry(model="default", span_exporter=exporter, redaction=False)
    app = create_app()
    app.add_middleware(ServescopeMiddleware, telemetry=setup.telemetry, model_names=[SERVED])
    with StubServer(app=app) as server:
        yield server.url, setup, exporter
    setup.shutdown()


def _value(setup: TelemetrySetup, name: str, **labels: str) -> float:
    return setup.telemetry.registry.get_sample_value(name, labels) or 0.0


def test_the_middleware_measures_streams_and_whole_answers(served) -> None:
    url, setup, exporter = served
    client = openai.OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0)
    parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    chunks = list(client.chat.completions.create(
        model=SERVED, messages=[{"role": "user", "content": "hi"}], max_tokens=6, stream=True,
        stream_options={"include_usage": True}, extra_headers={"traceparent": parent}))
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == \
        "t0 t1 t2 t3 t4 t5 "
    whole = client.completions.create(model=SERVED, prompt="x", max_tokens=3)
    assert whole.usage is not None and whole.usage.completion_tokens == 3
    labels = {"model": SERVED}
    poll_until(lambda: _value(setup, "servescope_requests_finished_total",
                              finish_reason="length", **labels) == 2, what="both finished")
    for stage in ("committed", "written", "delivered"):
        assert _value(setup, "servescope_tokens_total", model=SERVED, stage=stage) == 9
    assert _value(setup, "servescope_stream_time_to_first_token_seconds_count", **labels) == 2
    assert _value(setup, "servescope_transport_delivery_acknowledged") == 0
    setup.force_flush()
    span = next(s for s in exporter.get_finished_spans() if s.name == f"chat {SERVED}")
    assert format(span.context.trace_id, "032x") == parent.split("-")[1]
    # the engine saw the middleware's span as its parent: its own spans join the trace
    assert f"-{format(span.context.span_id, '016x')}-" in SEEN_TRACEPARENTS[-2]
    metrics = httpx.get(f"{url}/servescope/metrics").text
    assert 'servescope_requests_arrived_total{model="org/served-model-7b"' in metrics


def test_refusals_pass_unchanged_and_count(served) -> None:
    url, setup, _ = served
    response = httpx.post(f"{url}/v1/completions", json={"model": "jane@example.com",
                                                          "prompt": "x"})
    assert response.status_code == 404 and "does not exist" in response.json()["message"]
    # a model the engine does not serve never becomes a label value
    assert _value(setup, "servescope_requests_rejected_total", model="default",
                  reason="http_404") == 1


def test_a_client_that_leaves_is_counted_as_a_cancel(served) -> None:
    url, setup, _ = served
    body = {"model": SERVED, "prompt": "x", "max_tokens": 100000, "stream": True,
            "vllm_xargs": {"token_delay_s": 0.01}}
    with httpx.stream("POST", f"{url}/v1/completions", json=body) as response:
        assert next(response.iter_lines()).startswith("data: ")
    poll_until(lambda: _value(setup, "servescope_requests_finished_total", model=SERVED,
                              finish_reason="client_cancel") == 1,
               what="a client_cancel finish")
    # nothing left buffered for a stream that is gone, whether its chunk was written or not
    poll_until(lambda: setup.telemetry.registry.get_sample_value(
        "servescope_stream_buffered_tokens", {"pool": setup.telemetry.pool}) == 0,
        what="no buffered tokens")
    # the app's return after the disconnect is the same end, not a second signal that lost
    time.sleep(0.3)
    assert _value(setup, "servescope_terminal_signals_ignored_total",
                  signal="client_cancel") == 0


async def _two_choices(scope, receive, send) -> None:
    """An engine's chat stream with n=2: choice 1 ends ``length`` before choice 0 ``stop``."""
    while (await receive()).get("more_body"):
        pass
    chunks = [(0, "a", None), (1, "b", None), (1, "", "length"), (0, "", "stop")]
    events = [json.dumps({"choices": [{"index": i, "delta": {"content": c} if c else {},
                                       "finish_reason": f}]}) for i, c, f in chunks]
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"text/event-stream")]})
    for event in [*events, "[DONE]"]:
        await send({"type": "http.response.body", "body": f"data: {event}\n\n".encode(),
                    "more_body": True})
    await send({"type": "http.response.body", "body": b""})


def test_the_span_records_the_engines_finish_reasons_and_no_pii_name_is_a_label(
        caplog: pytest.LogCaptureFixture) -> None:
    """The engine's own reason of each choice reaches the span in choice order; a configured
    served name with PII in it is left out of the label values, like an unserved name."""
    exporter = InMemorySpanExporter()
    setup = setup_telemetry(model="default", span_exporter=exporter, redaction=False)
    pii = "lora-alice@example.com"
    with caplog.at_level("WARNING", logger="servescope.gateway.middleware"):
        app = ServescopeMiddleware(_two_choices, telemetry=setup.telemetry,
                                   model_names=[pii, SERVED])
    assert app.known_models == {SERVED}
    assert "1 of the served model names" in caplog.text and "alice" not in caplog.text
    try:
        with StubServer(app=app) as server:
            for model in (SERVED, pii):
                body = {"model": model, "messages": [], "n": 2, "stream": True}
                answer = httpx.post(f"{server.url}/v1/chat/completions", json=body)
                assert answer.status_code == 200 and answer.text.endswith("[DONE]\n\n")
            poll_until(lambda: _value(setup, "servescope_requests_finished_total",
                                      finish_reason="length", model=SERVED) == 1
                       and _value(setup, "servescope_requests_finished_total",
                                  finish_reason="length", model="default") == 1,
                       what="both finished")
            assert pii not in httpx.get(f"{server.url}/servescope/metrics").text
        setup.force_flush()
        spans = {s.attributes["gen_ai.request.model"]: s for s in exporter.get_finished_spans()
                 if s.name.startswith("chat ")}
        assert spans.keys() == {SERVED, "default"}
        for span in spans.values():
            assert list(span.attributes["gen_ai.response.finish_reasons"]) == ["stop", "length"]
    finally:
        setup.shutdown()


def test_vllm_style_loading_puts_the_series_on_the_engines_own_metrics(tmp_path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "SERVESCOPE_MODEL_NAMES": SERVED}
    script = Path(__file__).parent.parent / "vllm_shaped.py"
    proc = subprocess.Popen([sys.executable, str(script), str(port)], env=env,
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        poll_until(lambda: httpx.get(f"{url}/health").status_code == 200,
                   what="the vLLM-shaped server up", transient=(httpx.HTTPError,), alive=proc)
        httpx.post(f"{url}/v1/completions", json={"model": SERVED, "prompt": "x",
                                                  "max_tokens": 2, "stream": True})
        metrics = httpx.get(f"{url}/metrics/").text
        assert ('servescope_requests_finished_total{finish_reason="length",'
                'model="org/served-model-7b"} 1.0') in metrics
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


async def _done_then_late_end(scope, receive, send) -> None:
    """An engine that writes [DONE], then its body's end a moment later, and stops there if
    its client has gone (as Starlette's streaming response does)."""
    import asyncio

    while (await receive()).get("more_body"):
        pass
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"text/event-stream")]})
    events = [{"choices": [{"index": 0, "text": t, "finish_reason": f}]}
              for t, f in (("a", None), ("b", None), ("", "length"))]
    for event in [*map(json.dumps, events), "[DONE]"]:
        await send({"type": "http.response.body", "body": f"data: {event}\n\n".encode(),
                    "more_body": True})
    try:
        async with asyncio.timeout(0.3):
            await receive()  # the client's disconnect, if it closes at [DONE]
        return
    except TimeoutError:
        await send({"type": "http.response.body", "body": b""})


def test_a_client_that_closes_after_done_is_no_cancel() -> None:
    """The openai SDK closes its response once it has read [DONE]: the request finished as
    the engine said, whether or not the app wrote its last (empty) body after."""
    setup = setup_telemetry(model="default", span_exporter=InMemorySpanExporter(),
                            redaction=False)
    app = ServescopeMiddleware(_done_then_late_end, telemetry=setup.telemetry,
                               model_names=[SERVED])
    try:
        with StubServer(app=app) as server:
            client = openai.OpenAI(base_url=f"{server.url}/v1", api_key="x", max_retries=0)
            chunks = list(client.completions.create(model=SERVED, prompt="x", stream=True))
            assert [c.choices[0].finish_reason for c in chunks][-1] == "length"
            poll_until(lambda: _value(setup, "servescope_requests_finished_total",
                                      finish_reason="length", model=SERVED) == 1,
                       what="a length finish")
            assert _value(setup, "servescope_requests_finished_total",
                          finish_reason="client_cancel", model=SERVED) == 0
    finally:
        setup.shutdown()


def test_a_default_model_label_with_personal_data_is_refused_naming_the_variable() -> None:
    """SERVESCOPE_MODEL is the label of every request no listed name matches."""
    script = ("from servescope.gateway.middleware import ServescopeMiddleware\n"
              "ServescopeMiddleware(lambda scope, receive, send: None)\n")
    env = {**os.environ, "SERVESCOPE_MODEL": "bob@example.com"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode != 0
    assert "ValueError: SERVESCOPE_MODEL: a label value must carry no personal data" in done.stderr
    assert "bob@example.com" not in done.stderr
