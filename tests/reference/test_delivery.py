"""Delivered means acknowledged by the peer: real sockets, real kernel counters.

* a client that reads nothing is credited exactly the tokens whose events sit, complete, in its
  own receive queue (what its TCP acknowledged), never what sits in the server's buffers;
* a non-streamed reply on a connection the server closes (``Connection: close``) counts every
  token delivered and raises no ignored signal;
* a deadline racing the writer counts what the client got;
* where acknowledgements are unknown, delivered falls back to written and the gauge says so;
* ``GET /health`` answers beside ``/healthz``; streamed responses carry the proxy headers.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from typing import Any

import httpx
import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from recorders import capture_recorders
from waiting import poll_until

from servescope.instrumentation.request_recorder import RequestRecorder
from servescope.reference.config import EngineConfig, HttpLimits, ModelConfig
from servescope.reference.transport import delivery
from servescope.reference.transport import server as server_module
from servescope.reference.transport.server import LocalServer

TINY = ModelConfig(dim=32, n_layers=1, n_heads=4, n_kv_heads=2, hidden_dim=64, max_context=256)
MODEL = "tiny-ref"
CAP = 8


def _server(**overrides: Any) -> tuple[LocalServer, list[RequestRecorder]]:
    config = EngineConfig(**{"model": TINY, "block_size": 8, "num_blocks": 512,
                             "max_batch": 16, "stream_capacity": CAP,
                             "stream_low_watermark": 2, **overrides})
    server = LocalServer(config, model_name=MODEL, span_exporter=InMemorySpanExporter(),
                         chunk_tokens=1)
    return server, capture_recorders(server.telemetry)


def _sample(server: LocalServer, name: str, **labels: str) -> float:
    return server.setup.registry.get_sample_value(name, labels) or 0.0


def _raw_request(host: str, port: int, body: dict[str, Any], *, close: bool = False,
                 rcvbuf: int | None = None) -> socket.socket:
    sock = socket.socket()
    if rcvbuf is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.connect((host, port))
    data = json.dumps(body).encode()
    connection = b"Connection: close\r\n" if close else b""
    sock.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                 b"\r\n%sContent-Length: %d\r\n\r\n%s" % (connection, len(data), data))
    return sock


def _dechunk(payload: bytes) -> bytes:
    """The body of an HTTP/1.1 chunked payload."""
    out = b""
    while payload:
        size_line, _, rest = payload.partition(b"\r\n")
        size = int(size_line, 16)
        if size == 0:
            break
        out += rest[:size]
        payload = rest[size + 2:]
    return out


def _complete_token_events(raw: bytes) -> int:
    """Tokens in the SSE text events of ``raw`` (a response as the client's kernel holds it)
    whose HTTP/1.1 chunk arrived whole, framing included: the unit the server credits."""
    _, _, body = raw.partition(b"\r\n\r\n")
    tokens = 0
    while body:
        size_line, sep, rest = body.partition(b"\r\n")
        if not sep:
            break
        size = int(size_line, 16)
        if size == 0 or len(rest) < size + 2:
            break  # the last chunk or one not yet whole
        for line in rest[:size].split(b"\n"):
            if line.startswith(b"data: {"):
                event = json.loads(line[6:])
                if event.get("choices"):
                    tokens += len(event["choices"][0]["text"].encode())
        body = rest[size + 2:]
    return tokens


def _credited_all_held(sock: socket.socket, recorder: RequestRecorder
                       ) -> tuple[bytes, Any] | None:
    """(what the client's kernel holds unread, the live summary) once the recorder credits
    exactly the complete token events held there; None while the watcher lags behind."""
    held = sock.recv(1 << 20, socket.MSG_PEEK)
    live = recorder.summary()
    complete = _complete_token_events(held)
    return (held, live) if complete > 0 and live.delivered_tokens == complete else None


def test_a_client_that_reads_nothing_is_credited_only_what_its_tcp_acknowledged() -> None:
    server, recorders = _server(slow_consumer_timeout_s=30.0)
    with server:
        body = {"model": MODEL, "prompt": "x", "max_tokens": 200, "stream": True,
                "ignore_eos": True}
        sock = _raw_request(server.http.host, server.http.port, body, rcvbuf=2048)
        poll_until(lambda: _sample(server, "servescope_requests_paused", pool="default") >= 1,
                   what="the request paused", timeout_s=10, interval_s=0.01)
        # the watcher confirms acknowledgements every poll: wait until it has caught up with
        # what the client's kernel holds, unread
        held, live = poll_until(lambda: _credited_all_held(sock, recorders[0]),
                                what="the acknowledged tokens credited")
        sock.close()
        assert server.engine.wait_idle(10.0)
    in_client_kernel = _complete_token_events(held)
    assert live.finish_reason is None
    # credited exactly what the peer acknowledged: tokens whose whole event it holds
    assert live.delivered_tokens == in_client_kernel
    # the server wrote more than that: those bytes sit in socket buffers, not delivered
    assert live.written_tokens > live.delivered_tokens
    assert live.committed_tokens - live.written_tokens <= CAP
    final = recorders[0].summary()
    assert final.finish_reason == "client_cancel"
    assert final.discarded_tokens == final.committed_tokens - final.delivered_tokens


def test_connection_close_reply_counts_every_token_delivered_and_no_ignored_signal() -> None:
    server, recorders = _server()
    with server:
        results = []
        for _ in range(20):
            body = {"model": MODEL, "prompt": "x", "max_tokens": 24, "ignore_eos": True}
            sock = _raw_request(server.http.host, server.http.port, body, close=True)
            raw = b""
            while chunk := sock.recv(65536):
                raw += chunk
            sock.close()
            head, _, payload = raw.partition(b"\r\n\r\n")
            assert b"200 OK" in head and b"connection: close" in head.lower()
            results.append(json.loads(_dechunk(payload))["usage"]["completion_tokens"])
        assert server.engine.wait_idle(10.0)
        ignored = _sample(server, "servescope_terminal_signals_ignored_total",
                          signal="client_cancel")
    assert results == [24] * 20
    for recorder in recorders:
        s = recorder.summary()
        assert s.finish_reason == "length"
        assert s.delivered_tokens == s.written_tokens == s.committed_tokens == 24
        assert s.discarded_tokens == 0 and s.ignored_signals == ()
    assert ignored == 0


def test_a_tail_unacknowledged_past_the_wait_is_discarded_and_never_read() -> None:
    """Every write completed (the answer fits in the buffers on the way) and the client reads
    nothing past ``ack_wait_s``: the tail is counted discarded and the connection reset, so the
    client cannot read later the tokens counted never delivered."""
    server, recorders = _server(http=HttpLimits(ack_wait_s=0.5))
    with server:
        body = {"model": MODEL, "prompt": "x", "max_tokens": 40, "stream": True,
                "ignore_eos": True}
        sock = _raw_request(server.http.host, server.http.port, body, rcvbuf=2048)
        poll_until(lambda: recorders and recorders[0].summary().finish_reason is not None,
                   what="the request finished", timeout_s=15)
        raw = b""
        sock.settimeout(10)
        with contextlib.suppress(ConnectionResetError):
            while chunk := sock.recv(65536):
                raw += chunk
        sock.close()
    final = recorders[0].summary()
    got = _complete_token_events(raw)
    assert final.finish_reason == "length" and final.written_tokens == 40
    assert b"[DONE]" not in raw and got < final.written_tokens, (got, final)
    assert final.delivered_tokens <= got
    assert final.discarded_tokens == final.committed_tokens - final.delivered_tokens > 0


async def _stream_counting(client: httpx.AsyncClient, deadline_s: float) -> tuple[str, int]:
    body = {"model": MODEL, "prompt": "deadline", "max_tokens": 200, "stream": True,
            "ignore_eos": True, "deadline_s": deadline_s}
    rid, tokens = "", 0
    async with client.stream("POST", "/v1/completions", json=body) as response:
        async for line in response.aiter_lines():
            if line.startswith("data: {"):
                event = json.loads(line[6:])
                rid = event["id"]
                if event.get("choices"):
                    tokens += len(event["choices"][0]["text"].encode())
    return rid, tokens


def test_a_deadline_racing_the_writer_counts_what_the_client_got() -> None:
    server, recorders = _server(stream_capacity=64, stream_low_watermark=8, step_delay_s=0.001)

    async def run() -> list[tuple[str, int]]:
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
            out: list[tuple[str, int]] = []
            for i in range(8):
                out += await asyncio.gather(*(_stream_counting(client, 0.02 + 0.005 * j + i
                                                               * 0.001) for j in range(8)))
            return out

    with server:
        got = asyncio.run(run())
        assert server.engine.wait_idle(15.0)
    by_id = {r.request_id: r.summary() for r in recorders}
    cut = 0
    for rid, tokens in got:
        s = by_id[rid]
        cut += s.finish_reason == "deadline"
        assert s.delivered_tokens == tokens, (rid, s, tokens)
        assert s.discarded_tokens == s.committed_tokens - tokens
    assert cut >= len(got) // 2, "the deadlines should cut most streams"


def test_without_acknowledgements_delivered_falls_back_to_written_and_says_so(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(delivery, "acknowledgements_supported", lambda: False)
    monkeypatch.setattr(server_module.CONNECTIONS, "probe", lambda scope: None)
    server, recorders = _server()
    with server:
        assert _sample(server, "servescope_transport_delivery_acknowledged") == 0
        httpx.post(f"{server.url}/v1/completions", json={
            "model": MODEL, "prompt": "x", "max_tokens": 9, "ignore_eos": True,
            "stream": True}, timeout=10)
        assert server.engine.wait_idle(10.0)
    s = recorders[0].summary()
    assert s.delivered_tokens == s.written_tokens == 9


def test_health_and_proxy_headers() -> None:
    server, _ = _server()
    with server:
        assert _sample(server, "servescope_transport_delivery_acknowledged") == 1
        for path in ("/health", "/healthz"):
            response = httpx.get(f"{server.url}{path}", timeout=5)
            assert response.status_code == 200 and response.json()["status"] == "ok"
        with httpx.stream("POST", f"{server.url}/v1/completions", timeout=10, json={
                "model": MODEL, "prompt": "x", "max_tokens": 3, "stream": True}) as streamed:
            assert streamed.headers["x-accel-buffering"] == "no"
            assert streamed.headers["cache-control"] == "no-cache"
            assert streamed.headers["content-type"].startswith("text/event-stream")
            streamed.read()
