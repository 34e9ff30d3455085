"""Bad requests get OpenAI-shaped 4xx errors naming the field, are counted as rejected, and
nothing crashes: the server keeps serving."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from servescope.reference.config import EngineConfig, ModelConfig
from servescope.reference.transport.server import LocalServer

TINY = ModelConfig(dim=32, n_layers=1, n_heads=4, n_kv_heads=2, hidden_dim=64, max_context=64)
MODEL = "tiny-ref"
OK = {"model": MODEL, "prompt": "hi", "max_tokens": 4}


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    srv = LocalServer(EngineConfig(model=TINY, block_size=8, num_blocks=64, max_batch=4),
                      model_name=MODEL, span_exporter=InMemorySpanExporter()).start()
    yield srv
    srv.stop()


def _with(**changes: Any) -> bytes:
    return json.dumps({**OK, **changes}).encode()


def _without(key: str) -> bytes:
    return json.dumps({k: v for k, v in OK.items() if k != key}).encode()


CHAT = "/v1/chat/completions"
COMPLETIONS = "/v1/completions"

# (path, body, headers, status, param, code)
CASES: list[tuple[str, bytes, dict[str, str], int, str | None, str]] = [
    (COMPLETIONS, b"{bad json", {}, 400, None, "invalid_json"),
    (COMPLETIONS, b"", {}, 400, None, "invalid_json"),
    (COMPLETIONS, b"[1, 2]", {}, 400, None, "invalid_json"),
    (COMPLETIONS, b'{"model": "tiny-ref", "prompt": "\xff\xfe"}', {}, 400, None,
     "invalid_encoding"),
    (COMPLETIONS, _without("prompt"), {}, 400, "prompt", "missing_field"),
    (COMPLETIONS, _without("model"), {}, 400, "model", "missing_field"),
    (COMPLETIONS, _with(model=7), {}, 400, "model", "invalid_type"),
    (COMPLETIONS, _with(model="gpt-nope"), {}, 404, "model", "model_not_found"),
    (COMPLETIONS, _with(max_tokens=0), {}, 400, "max_tokens", "invalid_value"),
    (COMPLETIONS, _with(max_tokens=-3), {}, 400, "max_tokens", "invalid_value"),
    (COMPLETIONS, _with(max_tokens="10"), {}, 400, "max_tokens", "invalid_type"),
    (COMPLETIONS, _with(max_tokens=True), {}, 400, "max_tokens", "invalid_type"),
    (COMPLETIONS, _with(max_tokens=2.5), {}, 400, "max_tokens", "invalid_type"),
    (COMPLETIONS, _with(temperature="hot"), {}, 400, "temperature", "invalid_type"),
    (COMPLETIONS, _with(top_p=3), {}, 400, "top_p", "invalid_value"),
    (COMPLETIONS, _with(n=2), {}, 400, "n", "invalid_value"),
    (COMPLETIONS, _with(stream="yes"), {}, 400, "stream", "invalid_type"),
    (COMPLETIONS, _with(stream_options={"include_usage": True}), {}, 400, "stream_options",
     "invalid_value"),
    (COMPLETIONS, _with(stream=True, stream_options={"include_usage": 1}), {}, 400,
     "stream_options.include_usage", "invalid_type"),
    (COMPLETIONS, _with(prompt=""), {}, 400, "prompt", "invalid_value"),
    (COMPLETIONS, _with(prompt={"text": "hi"}), {}, 400, "prompt", "invalid_type"),
    (COMPLETIONS, _with(prompt=["a", "b"]), {}, 400, "prompt", "invalid_value"),
    (COMPLETIONS, _with(prompt=[1, 99999]), {}, 400, "prompt", "invalid_value"),
    (COMPLETIONS, _with(prompt="x" * 64), {}, 400, "prompt", "context_length_exceeded"),
    (COMPLETIONS, _with(max_tokens=63), {}, 400, "max_tokens", "context_length_exceeded"),
    (COMPLETIONS, _with(stop="abc"), {}, 400, "stop", "unsupported_value"),
    (COMPLETIONS, _with(stop=[1]), {}, 400, "stop", "invalid_type"),
    (COMPLETIONS, _with(echo=True), {}, 400, "echo", "invalid_value"),
    (COMPLETIONS, _with(ignore_eos="no"), {}, 400, "ignore_eos", "invalid_type"),
    (COMPLETIONS, _with(deadline_s=0), {}, 400, "deadline_s", "invalid_value"),
    (COMPLETIONS, json.dumps(OK).encode(), {"x-servescope-deadline-s": "soon"}, 400,
     "x-servescope-deadline-s", "invalid_type"),
    (CHAT, json.dumps({"model": MODEL}).encode(), {}, 400, "messages", "missing_field"),
    (CHAT, json.dumps({"model": MODEL, "messages": "hi"}).encode(), {}, 400, "messages",
     "invalid_type"),
    (CHAT, json.dumps({"model": MODEL, "messages": []}).encode(), {}, 400, "messages",
     "invalid_value"),
    (CHAT, json.dumps({"model": MODEL, "messages": [{"role": "robot", "content": "x"}]}
                      ).encode(), {}, 400, "messages.0.role", "invalid_value"),
    (CHAT, json.dumps({"model": MODEL, "messages": [{"role": "user", "content": 5}]}
                      ).encode(), {}, 400, "messages.0.content", "invalid_type"),
    (CHAT, json.dumps({"model": MODEL, "messages": [{"role": "user", "content": "x"}],
                       "logprobs": True}).encode(), {}, 400, "logprobs", "invalid_value"),
    (CHAT, json.dumps({"model": MODEL, "messages": [{"role": "user", "content": "x" * 80}]}
                      ).encode(), {}, 400, "messages", "context_length_exceeded"),
]


def _rejected(server: LocalServer) -> float:
    value = server.setup.registry.get_sample_value(
        "servescope_requests_rejected_total", {"model": MODEL, "reason": "invalid_request"})
    return value or 0.0


@pytest.mark.parametrize(("path", "body", "headers", "status", "param", "code"), CASES,
                         ids=[f"{i}-{c[5]}-{c[4]}" for i, c in enumerate(CASES)])
def test_bad_request_gets_an_openai_error_naming_the_field(
        server: LocalServer, path: str, body: bytes, headers: dict[str, str], status: int,
        param: str | None, code: str) -> None:
    before = _rejected(server)
    response = httpx.post(server.url + path, content=body,
                          headers={"content-type": "application/json", **headers})
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert (error["param"], error["code"]) == (param, code)
    assert error["type"] == "invalid_request_error"
    if param is not None:
        assert param.split(".")[0] in error["message"]
    assert response.headers["x-request-id"]
    assert _rejected(server) == before + 1  # counted as a rejected arrival


def test_a_number_too_large_is_refused_without_echoing_it(server: LocalServer) -> None:
    """A card's digits sent as max_tokens come back in no error message (strings are
    redacted where they are echoed; an integer is not echoed at all)."""
    card = 4929417833162205
    response = httpx.post(server.url + COMPLETIONS, json={**OK, "max_tokens": card})
    assert response.status_code == 400
    assert str(card) not in response.text and "4929" not in response.text


def test_after_all_that_the_server_still_serves_and_accounts_exactly(
        server: LocalServer) -> None:
    registry = server.setup.registry
    for path, body, headers, *_ in CASES:
        httpx.post(server.url + path, content=body, headers=headers)
    response = httpx.post(server.url + COMPLETIONS, json={**OK, "ignore_eos": True})
    assert response.status_code == 200
    assert response.json()["usage"]["completion_tokens"] == 4
    assert server.engine.wait_idle(5.0)
    arrived = registry.get_sample_value("servescope_requests_arrived_total",
                                        {"model": MODEL, "priority": "default"})
    finished = sum(registry.get_sample_value(
        "servescope_requests_finished_total",
        {"model": MODEL, "finish_reason": r}) or 0.0
        for r in ("stop", "length", "rejected", "client_cancel", "deadline", "error"))
    in_flight = registry.get_sample_value("servescope_requests_in_flight", {"model": MODEL})
    assert arrived == finished and in_flight == 0
    hook_errors = [s for m in registry.collect() for s in m.samples
                   if s.name == "servescope_telemetry_hook_errors_total" and s.value]
    assert hook_errors == []


def test_unknown_fields_are_ignored_and_unknown_routes_answer_in_the_error_shape(
        server: LocalServer) -> None:
    ok = httpx.post(server.url + COMPLETIONS, json={**OK, "vendor_extension": {"x": [1]}})
    assert ok.status_code == 200
    missing = httpx.get(server.url + "/v1/nope")
    assert missing.status_code == 404 and missing.json()["error"]["type"] == "not_found_error"
    wrong_method = httpx.get(server.url + COMPLETIONS)
    assert wrong_method.status_code == 405 and "error" in wrong_method.json()


def test_queue_full_is_a_429_in_the_error_shape() -> None:
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    config = EngineConfig(model=TINY, block_size=8, num_blocks=64, max_batch=1, max_waiting=0)
    with LocalServer(config, model_name=MODEL, span_exporter=InMemorySpanExporter()) as srv:
        response = httpx.post(srv.url + COMPLETIONS, json=OK)
        assert response.status_code == 429
        assert response.json()["error"]["code"] == "queue_full"
        assert srv.setup.registry.get_sample_value(
            "servescope_requests_rejected_total",
            {"model": MODEL, "reason": "queue_full"}) == 1



SECRET = "sk-proj-Q7vXk2Lm9Pz4Rt8Wn3Yb6Hc1Jd5Fg0Ks2Ae7Uo4Ip9Ty"


@pytest.mark.parametrize(("method", "path", "body", "headers"), [
    ("POST", COMPLETIONS, _with(model=f"lora-{SECRET}"), {}),  # model_not_found
    ("POST", COMPLETIONS, _with(prompt={"text": SECRET}), {}),  # invalid_type, a preview
    ("POST", CHAT, json.dumps({"model": MODEL, "messages": [{"role": SECRET,
                                                              "content": "x"}]}).encode(), {}),
    ("POST", COMPLETIONS, _with(priority=SECRET), {}),
    ("POST", COMPLETIONS, json.dumps(OK).encode(), {"content-type": f"text/{SECRET}"}),
    ("GET", f"/v1/users/4539148803436467/{SECRET}", None, {}),  # an unknown route
    # longer than the preview: redacted before it is cut to its head (cut first, the head
    # and tail kept most of the key without its prefix, which no detector then knew)
    ("POST", COMPLETIONS, _with(max_tokens="a" * 40 + " " + SECRET), {}),
    ("POST", COMPLETIONS, _with(stop=["a" * 40 + " " + SECRET]), {}),
    ("POST", CHAT, json.dumps({"model": MODEL, "messages": [
        {"role": "b" * 50 + " " + SECRET, "content": "x"}]}).encode(), {}),
])
def test_error_messages_echo_client_values_redacted(server: LocalServer, method: str,
                                                    path: str, body: bytes | None,
                                                    headers: dict[str, str]) -> None:
    """An error names what was wrong with the value a client sent, but the message goes
    on into SDK exceptions and proxies' logs: what it echoes is redacted first."""
    response = httpx.request(method, server.url + path, content=body,
                             headers={"content-type": "application/json", **headers})
    assert 400 <= response.status_code < 500
    message = response.json()["error"]["message"]
    assert "[REDACTED:" in message or message.endswith("...")
    assert "4539148803436467" not in response.text
    # no fragment of the key's secret part, as long as half of it, is left
    secret = SECRET[8:]
    half = len(secret) // 2
    assert not any(secret[i:i + half] in response.text for i in range(len(secret) - half + 1))
