"""``servescope gateway`` over real sockets: a stub engine (harness/stub_engine.py) behind it,
real clients in front (httpx, the openai SDK). What the gateway counts equals what the client
and the engine saw; forwarded requests and answers are unchanged."""

from __future__ import annotations

import json
import re
import socket
import time

import httpx
import openai
import pytest
from gateways import (
    busy_upstream_connections,
    finished,
    gateway_for,
    rejected,
    sample,
    stub_and_gateway,
    tokens,
)
from waiting import poll_until

from servescope.harness.stub_engine import StubServer
from servescope.reference.config import HttpLimits
from servescope.report.launcher import free_port

MODEL = "stub-model"


def _stream(url: str, body: dict, headers: dict | None = None) -> tuple[int, list[dict], bool]:
    """Status, the JSON events and whether [DONE] came, of one streamed request."""
    events, done = [], False
    with httpx.stream("POST", f"{url}/v1/completions", json=body, headers=headers,
                      timeout=30) as response:
        for line in response.iter_lines():
            if line == "data: [DONE]":
                done = True
            elif line.startswith("data: "):
                events.append(json.loads(line[6:]))
        return response.status_code, events, done


def test_the_openai_sdk_streams_through_the_gateway_and_counts_agree() -> None:
    with stub_and_gateway() as (stub, gw):
        client = openai.OpenAI(base_url=f"{gw.url}/v1", api_key="unused", max_retries=0)
        stream = client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "hi"}], max_tokens=7,
            stream=True, stream_options={"include_usage": True})
        chunks = list(stream)
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        usage = chunks[-1].usage
        assert text == "tok " * 7 and usage is not None and usage.completion_tokens == 7
        assert chunks[-2].choices[0].finish_reason == "length"
        whole = client.completions.create(model=MODEL, prompt="hi", max_tokens=5)
        assert whole.choices[0].text == "tok " * 5
        poll_until(lambda: finished(gw, "length") == 2, what="both requests finished")
        assert sample(gw, "servescope_requests_arrived_total", model=MODEL,
                      priority="default") == 2
        assert tokens(gw, "committed") == tokens(gw, "written") == 12
        assert tokens(gw, "prompt") == 6  # the engine's usage.prompt_tokens, 3 each
        poll_until(lambda: tokens(gw, "delivered") == 12, what="all tokens acknowledged")
        assert sample(gw, "servescope_stream_time_to_first_token_seconds_count", model=MODEL) == 2
        # the stub counts a stream completed after its last write returns, in its own thread:
        # the client can have read everything by then
        poll_until(lambda: stub.engine.completed == 2, what="the engine completed both")
        assert busy_upstream_connections(gw) == 0


def test_requests_and_answers_pass_unchanged_and_the_trace_continues_upstream() -> None:
    with stub_and_gateway() as (stub, gw):
        parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        body = {"model": MODEL, "prompt": "x", "max_tokens": 3, "stream": True}
        direct = httpx.post(f"{stub.url}/v1/completions", json=body).text
        via = httpx.post(f"{gw.url}/v1/completions", json=body,
                         headers={"traceparent": parent}).text
        # ids and timestamps differ per answer; everything else is byte for byte the same
        def same(text: str) -> str:
            return re.sub(r'"created":\d+', '"created":0', text.replace("stub-2", "stub-1"))

        assert same(via) == same(direct)
        models = httpx.get(f"{gw.url}/v1/models").json()
        assert models["data"][0]["id"] == MODEL
        assert httpx.get(f"{gw.url}/health").json() == {"status": "ok"}
        assert httpx.get(f"{gw.url}/readyz").status_code == 200
        poll_until(lambda: finished(gw, "length") == 1, what="the request finished")
        gw.setup.force_flush()
        spans = [s for s in gw.exporter.get_finished_spans() if s.name.startswith("text_")]
        assert len(spans) == 1
        span = spans[0]
        assert format(span.context.trace_id, "032x") == parent.split("-")[1]
        assert span.parent is not None and format(span.parent.span_id, "016x") == \
            parent.split("-")[2]
        sent = stub.engine.traceparents[-1].split("-")
        assert sent[1] == parent.split("-")[1]  # the engine joins the client's trace...
        assert sent[2] == format(span.context.span_id, "016x")  # ...under the gateway's span
        assert span.attributes["servescope.tokens.delivered"] == 3


def test_an_upstream_that_is_down_gets_a_counted_502_with_retry_after() -> None:
    with gateway_for("http://127.0.0.1:9") as gw:  # nothing listens on the discard port
        response = httpx.post(f"{gw.url}/v1/completions",
                              json={"model": MODEL, "prompt": "x", "stream": True})
        assert response.status_code == 502
        assert response.headers["retry-after"] == "1"
        assert response.json()["error"]["code"] == "upstream_unavailable"
        assert rejected(gw, "upstream_unavailable") == 1
        assert httpx.get(f"{gw.url}/readyz").status_code == 503
        assert httpx.get(f"{gw.url}/healthz").status_code == 200


def test_an_upstream_refusal_is_passed_on_unchanged_and_counted() -> None:
    with stub_and_gateway() as (_, gw):
        response = httpx.post(f"{gw.url}/v1/completions", content=b"{not json",
                              headers={"content-type": "application/json"})
        assert response.status_code == 400
        assert response.json()["error"]["message"] == "body is not JSON"
        assert rejected(gw, "http_400") == 1


# paced: each chunk arrives alone, relayed in the upstream connection's callback (the fault
# too); unpaced: the writer task reads them, often several at once
@pytest.mark.parametrize("delay_s", [0.0, 0.02], ids=["unpaced", "paced"])
@pytest.mark.parametrize(("fault", "code"), [
    ("reset", "upstream_error"), ("malformed", "upstream_malformed"),
    ("no_finish", "upstream_incomplete")])
def test_an_upstream_that_fails_mid_stream_ends_it_with_an_error_event(
        fault: str, code: str, delay_s: float) -> None:
    with stub_and_gateway() as (stub, gw):
        status, events, done = _stream(gw.url, {
            "model": MODEL, "prompt": "x", "max_tokens": 50, "stream": True,
            "stub": {"fault": fault, "fault_after": 3, "token_delay_s": delay_s}})
        assert status == 200 and done
        assert [e["choices"][0]["text"] for e in events[:3]] == ["tok "] * 3
        assert events[-1]["error"]["code"] == code
        poll_until(lambda: finished(gw, "error") == 1, what="the request finished as error")
        assert tokens(gw, "written") == 3
        gw.setup.force_flush()
        (span,) = [s for s in gw.exporter.get_finished_spans() if s.name.startswith("text_")]
        assert span.attributes["servescope.finish_reason"] == "error"
        assert span.attributes["error.type"] == code  # the cause, told apart
        poll_until(lambda: stub.engine.active == 0, what="the upstream request closed")
        assert busy_upstream_connections(gw) == 0


def test_a_paced_stream_is_relayed_in_the_upstream_callback_with_exact_counts(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from servescope.gateway.relay import Relay

    taken: list[bool] = []
    take = Relay._take

    def counted(self: Relay, data: bytes) -> bool:
        taken.append(took := take(self, data))
        return took

    monkeypatch.setattr(Relay, "_take", counted)
    with stub_and_gateway() as (_, gw):
        status, events, done = _stream(gw.url, {
            "model": MODEL, "prompt": "x", "max_tokens": 20, "stream": True,
            "stub": {"token_delay_s": 0.01}})
        assert status == 200 and done and len(events) == 20
        assert events[-1]["choices"][0]["finish_reason"] == "length"
        poll_until(lambda: finished(gw, "length") == 1, what="the request finished")
        assert tokens(gw, "committed") == tokens(gw, "written") == 20
        poll_until(lambda: tokens(gw, "delivered") == 20, what="every token acknowledged")
    # most chunks never woke the writer (the first may arrive with the head, or early)
    assert taken.count(True) >= 15


def test_the_stubs_hold_report_splits_a_clients_ttft_through_the_gateway() -> None:
    """What ``benchmarks/gateway.py`` reads: the first chunk carries the stub's own time
    from the request read to its write, and when it read the request (the monotonic clock
    this process reads too), unchanged through the gateway; the rest carry neither."""
    import time

    with stub_and_gateway() as (_, gw):
        sent = time.monotonic()
        status, events, _ = _stream(gw.url, {
            "model": MODEL, "prompt": "x", "max_tokens": 3, "stream": True,
            "stub": {"token_delay_s": 0.05, "report_hold": True}})
        seen = time.monotonic()
    assert status == 200
    first = events[0]
    assert 0.05 <= first["stub_hold_ns"] / 1e9 < seen - sent
    assert sent < first["stub_read_ns"] / 1e9 < seen
    assert not any("stub_hold_ns" in e or "stub_read_ns" in e for e in events[1:])


def test_a_deadline_ends_the_upstream_request() -> None:
    with stub_and_gateway() as (stub, gw):
        status, events, done = _stream(
            gw.url, {"model": MODEL, "prompt": "x", "max_tokens": 50, "stream": True,
                     "stub": {"fault": "stall", "fault_after": 2}},
            headers={"x-servescope-deadline-s": "0.5"})
        # ended as the reference server ends one: a last chunk in the stream's own shape,
        # finish_reason length and servescope_finish_reason deadline (no error to raise)
        assert status == 200 and done and "error" not in events[-1]
        assert events[-1]["id"] == events[0]["id"]
        assert events[-1]["object"] == events[0]["object"] == "text_completion"
        assert events[-1]["choices"] == [{"index": 0, "finish_reason": "length", "text": ""}]
        assert events[-1]["servescope_finish_reason"] == "deadline"
        read_at = time.time_ns()  # the client has read its end
        poll_until(lambda: finished(gw, "deadline") == 1, what="a deadline finish")
        # the request ends when its last bytes went out, not after: never after the client
        # had read them
        gw.setup.force_flush()
        ended = [sp.end_time for sp in gw.exporter.get_finished_spans()
                 if sp.attributes.get("servescope.finish_reason") == "deadline"]
        assert len(ended) == 1 and ended[0] <= read_at
        poll_until(lambda: stub.engine.cancelled == 1, what="the engine saw its client go")
        assert busy_upstream_connections(gw) == 0
        slow_head = httpx.post(f"{gw.url}/v1/completions", json={
            "model": MODEL, "prompt": "x", "stream": True, "deadline_s": 0.3,
            "stub": {"head_delay_s": 2}})
        assert slow_head.status_code == 504
        assert slow_head.json()["error"]["code"] == "deadline_exceeded"
        poll_until(lambda: finished(gw, "deadline") == 2, what="the slow head's deadline finish")
        # the openai SDK reads the same end as a normal one, on chat too
        client = openai.OpenAI(base_url=f"{gw.url}/v1", api_key="none", max_retries=0)
        chunks = list(client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "x"}], max_tokens=50,
            stream=True, extra_headers={"x-servescope-deadline-s": "0.5"},
            extra_body={"stub": {"fault": "stall", "fault_after": 2}}))
        assert chunks[-1].choices[0].finish_reason == "length"
        assert (chunks[-1].model_extra or {})["servescope_finish_reason"] == "deadline"
        # (counted as the stream's last bytes go out: the client may read them first)
        poll_until(lambda: finished(gw, "deadline") == 3, what="the chat stream's deadline finish")


def test_a_client_that_leaves_mid_stream_closes_the_upstream_request() -> None:
    with stub_and_gateway() as (stub, gw):
        body = {"model": MODEL, "prompt": "x", "max_tokens": 10000, "stream": True,
                "stub": {"token_delay_s": 0.01}}
        with httpx.stream("POST", f"{gw.url}/v1/completions", json=body) as response:
            lines = response.iter_lines()
            assert next(lines).startswith("data: ")
        poll_until(lambda: finished(gw, "client_cancel") == 1, what="a client_cancel finish")
        poll_until(lambda: stub.engine.cancelled == 1, what="the engine saw its client go")
        assert stub.engine.active == 0 and busy_upstream_connections(gw) == 0
        assert tokens(gw, "discarded") >= 0


def test_hostile_clients_meet_the_reference_servers_limits() -> None:
    limits = HttpLimits(max_body_bytes=1024, max_header_bytes=2048, header_timeout_s=0.5)
    with stub_and_gateway(http=limits) as (stub, gw):
        big = httpx.post(f"{gw.url}/v1/completions", content=b"x" * 4096,
                         headers={"content-type": "application/json"})
        assert big.status_code == 413 and big.json()["error"]["code"] == "body_too_large"
        head = httpx.post(f"{gw.url}/v1/completions", json={"model": MODEL},
                          headers={"x-pad": "y" * 4096})
        assert head.status_code == 431
        with socket.create_connection(("127.0.0.1", int(gw.url.rsplit(":", 1)[1]))) as sock:
            sock.sendall(b"POST /v1/completions HTTP/1.1\r\nhost: x\r\n")  # and never more
            sock.settimeout(30)
            answer = sock.recv(4096)
        assert answer.startswith(b"HTTP/1.1 408")
        poll_until(lambda: rejected(gw, "header_timeout") == 1, what="the slowloris counted")
        assert rejected(gw, "body_too_large") == 1 and rejected(gw, "header_too_large") == 1
        assert stub.engine.requests == 0  # none of it reached the engine


def test_answers_carry_one_date_and_server_and_keep_their_length() -> None:
    """The gateway's server writes Date and Server (as nginx does), not a second copy beside
    the upstream's; a body passed through unchanged keeps the upstream's Content-Length, so an
    HTTP/1.0 client gets no chunked framing it cannot read."""
    with stub_and_gateway() as (_, gw):
        response = httpx.get(f"{gw.url}/v1/models")
        assert len(response.headers.get_list("date")) == 1
        assert len(response.headers.get_list("server")) == 1
        assert int(response.headers["content-length"]) == len(response.content)
        host, port = gw.url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port))) as sock:
            sock.sendall(b"GET /v1/models HTTP/1.0\r\n\r\n")
            sock.settimeout(10)
            raw = b""
            while chunk := sock.recv(65536):
                raw += chunk
        head, _, body = raw.partition(b"\r\n\r\n")
        assert b"transfer-encoding" not in head.lower()
        assert json.loads(body)["data"][0]["id"] == MODEL
        stream = httpx.post(f"{gw.url}/v1/completions",
                            json={"model": MODEL, "prompt": "x", "max_tokens": 2, "stream": True})
        assert len(stream.headers.get_list("date")) == 1


def test_an_http_1_0_stream_through_the_gateway_ends_by_close() -> None:
    """A 1.0 client (ab, an old proxy) cannot read chunked coding: the relayed stream is
    delimited by the close instead, and measured as any other."""
    with stub_and_gateway() as (_, gw):
        body = json.dumps({"model": MODEL, "prompt": "x", "max_tokens": 3,
                           "stream": True}).encode()
        host, port = gw.url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=10) as sock:
            sock.sendall(b"POST /v1/completions HTTP/1.0\r\nContent-Type: application/json\r\n"
                         b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
            raw = b""
            while chunk := sock.recv(65536):
                raw += chunk
        head, _, rest = raw.partition(b"\r\n\r\n")
        assert b"transfer-encoding" not in head.lower()
        assert rest.count(b"tok ") == 3 and rest.endswith(b"data: [DONE]\n\n")
        poll_until(lambda: finished(gw, "length") == 1, what="the stream counted")


def test_methods_the_gateway_does_not_forward_get_a_json_405() -> None:
    with stub_and_gateway() as (_, gw):
        response = httpx.request("TRACE", f"{gw.url}/v1/bob@example.com")
        assert response.status_code == 405
        assert response.json()["error"]["code"] == "method_not_allowed"
        assert "TRACE" not in response.headers["allow"]
        assert "bob@example.com" not in response.text  # (the path is not echoed)
        # CONNECT, which llhttp reads as an upgrade: a 405 too, not an upgrade's refusal
        host, port = gw.url.removeprefix("http://").split(":")
        for target in (b"127.0.0.1:443", b"/v1/x"):
            with socket.create_connection((host, int(port))) as sock:
                sock.sendall(b"CONNECT " + target + b" HTTP/1.1\r\nhost: gw\r\n\r\n")
                answer = b""
                while b"}" not in answer:
                    chunk = sock.recv(4096)
                    if not chunk:
                        break
                    answer += chunk
            assert answer.startswith(b"HTTP/1.1 405"), answer
            assert b'"code":"method_not_allowed"' in answer.replace(b" ", b"")


def test_an_upstream_that_never_answers_gets_a_counted_504_after_the_idle_timeout() -> None:
    """An engine that takes the request and says nothing (hung, or a blackholed port): the
    client gets an OpenAI-shaped 504 once the upstream was silent for the idle timeout."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        upstream = f"http://127.0.0.1:{silent.getsockname()[1]}"
        with gateway_for(upstream, upstream_idle_timeout_s=0.5) as gw:
            response = httpx.post(f"{gw.url}/v1/completions", timeout=30,
                                  json={"model": MODEL, "prompt": "x", "stream": True})
            assert response.status_code == 504
            assert response.json()["error"]["code"] == "upstream_timeout"
            assert rejected(gw, "upstream_timeout") == 1


def test_a_forwarded_for_header_changes_nothing_for_the_stream() -> None:
    """A proxy on the same host adds X-Forwarded-For, and uvicorn rewrites the scope's client
    from it: the relay still finds its own connection (the answer whole, delivery measured)."""
    with stub_and_gateway() as (_, gw):
        body = {"model": MODEL, "prompt": "x", "max_tokens": 5, "stream": True}
        status, events, done = _stream(gw.url, body, {"X-Forwarded-For": "203.0.113.9"})
        assert status == 200 and done and len(events) == 5
        poll_until(lambda: finished(gw, "length") == 1, what="the stream finished")
        assert finished(gw, "client_cancel") == 0
        poll_until(lambda: tokens(gw, "delivered") == 5, what="all tokens acknowledged")


@pytest.mark.parametrize("body,headers", [
    ({"deadline_s": 0}, {}), ({"deadline_s": -1}, {}), ({"deadline_s": "soon"}, {}),
    ({"deadline_s": True}, {}), ({}, {"x-servescope-deadline-s": "1e3"}),
    ({}, {"x-servescope-deadline-s": "nan"}),
    # two deadlines: which did the client mean? (a proxy keeping the first would read another)
    ({}, [("x-servescope-deadline-s", "100"), ("x-servescope-deadline-s", "0.2")])])
def test_a_deadline_that_is_no_number_of_seconds_gets_a_400_naming_it(
        body: dict, headers: dict | list) -> None:
    """As the reference server answers it: not forwarded, counted, the field named."""
    with stub_and_gateway() as (stub, gw):
        answer = httpx.post(f"{gw.url}/v1/completions", headers=headers, timeout=30,
                            json={"model": MODEL, "prompt": "x", "max_tokens": 2, **body})
        assert answer.status_code == 400
        error = answer.json()["error"]
        assert ("deadline_s" if body else "x-servescope-deadline-s") in error["message"]
        # counted under the reason the reference server counts it (the code is the detail)
        assert error["code"] in ("invalid_type", "invalid_value", "invalid_request")
        assert rejected(gw, "invalid_request", model=MODEL) == 1
        assert stub.engine.requests == 0


def test_a_gateway_started_before_its_engine_learns_the_models_without_a_request() -> None:
    """The engine comes up after the gateway (a sidecar whose engine loads its model): the
    gateway asks again on its own, so the first request already carries its model's label,
    not the configured fallback."""
    port = free_port()
    with gateway_for(f"http://127.0.0.1:{port}") as gw:
        time.sleep(0.5)  # the first ask failed: nothing listens yet
        with StubServer(port=port):
            poll_until(lambda: MODEL in gw.app.gateway.models.known,
                       what="the model list learnt", timeout_s=15)
            answer = httpx.post(f"{gw.url}/v1/completions", timeout=30,
                                json={"model": MODEL, "prompt": "x", "max_tokens": 2})
            assert answer.status_code == 200
        assert finished(gw, "length") == 1 and finished(gw, "length", model="default") == 0


def test_the_gateway_exports_no_engine_levels_it_cannot_see() -> None:
    """Queue, KV-cache, prefix-cache and preemption series are the engine's to export: the
    gateway's 0 beside an engine with 62 requests deferred read as "nothing waiting"."""
    with stub_and_gateway() as (_, gw):
        answer = httpx.post(f"{gw.url}/v1/completions", json={"model": "stub-model",
                                                               "prompt": "x", "max_tokens": 2})
        assert answer.status_code == 200
        exposition = httpx.get(f"{gw.url}/metrics").text
    for name in ("servescope_requests_running", "servescope_requests_waiting",
                 "servescope_kv_blocks_total_capacity", "servescope_prefix_cache_queries",
                 "servescope_preemptions"):
        assert f"\n{name}" not in exposition, name
    assert "servescope_requests_arrived_total" in exposition
