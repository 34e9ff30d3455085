"""The server's timing points, confirmed by an independent client over real sockets.

A real HTTP client (httpx) streams 200 chat completions at concurrency 8 against the reference
server (batched steps) and timestamps every response: when it sent the request, when it read
the first content token, when it read ``[DONE]``. The server's spans go to the test OTLP
receiver; each response is joined to its request span by the response id. For every request:

    server TTFT <= stream TTFT <= client TTFT,    server end <= client end.

The server and the client read the same monotonic clock (one host), and both are mapped onto
span nanoseconds by the telemetry's own :meth:`Telemetry.span_ns`, so the end times compare
exactly. Stream TTFT is the ``stream`` phase span's start minus the request span's start.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
from otlp_receiver import OtlpReceiver, attrs

from servescope.reference.config import EngineConfig, ModelConfig
from servescope.reference.transport.server import LocalServer

TINY = ModelConfig(dim=32, n_layers=1, n_heads=4, n_kv_heads=2, hidden_dim=64, max_context=256)
MODEL = "tiny-ref"
REQUESTS = 200
CONCURRENCY = 8
#: Span timestamps are integer nanoseconds: two truncations may differ by this much.
NS_SLACK_S = 2e-9


@dataclass
class ClientTimes:
    sent: float
    first: float | None = None
    done: float | None = None
    response_id: str | None = None
    tokens: int = 0


async def _one(client: httpx.AsyncClient, i: int) -> ClientTimes:
    body = {"model": MODEL, "stream": True, "max_tokens": 12 + i % 17, "ignore_eos": True,
            "messages": [{"role": "user", "content": f"request {i}: tell me a story"}]}
    times = ClientTimes(sent=time.monotonic())
    async with client.stream("POST", "/v1/chat/completions", json=body) as response:
        assert response.status_code == 200
        async for line in response.aiter_lines():
            if not line.startswith("data: "):
                continue
            if line == "data: [DONE]":
                times.done = time.monotonic()
                break
            chunk: dict[str, Any] = json.loads(line[6:])
            times.response_id = chunk["id"]
            content = chunk["choices"][0]["delta"].get("content") if chunk["choices"] else None
            if content:
                if times.first is None:
                    times.first = time.monotonic()
                times.tokens += len(content.encode())
    return times


async def _run_clients(url: str) -> list[ClientTimes]:
    limits = httpx.Limits(max_connections=CONCURRENCY, max_keepalive_connections=CONCURRENCY)
    queue: asyncio.Queue[int] = asyncio.Queue()
    for i in range(REQUESTS):
        queue.put_nowait(i)
    results: list[ClientTimes] = []

    async def worker(client: httpx.AsyncClient) -> None:
        while not queue.empty():
            results.append(await _one(client, queue.get_nowait()))

    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=60) as client:
        await asyncio.gather(*(worker(client) for _ in range(CONCURRENCY)))
    return results


@dataclass
class ServerTimes:
    start_ns: int
    end_ns: int
    ttft: float
    stream_start_ns: int
    committed: int


def _server_times(receiver: OtlpReceiver) -> dict[str, ServerTimes]:
    requests: dict[str, Any] = {}
    streams: dict[str, Any] = {}
    for _, span in receiver.spans():
        a = attrs(span.attributes)
        rid = a.get("servescope.request.id")
        if span.name == "stream":
            streams[rid] = span
        elif "servescope.finish_reason" in a:
            requests[rid] = (span, a)
    out = {}
    for rid, (span, a) in requests.items():
        out[rid] = ServerTimes(span.start_time_unix_nano, span.end_time_unix_nano,
                               a["servescope.ttft_seconds"],
                               streams[rid].start_time_unix_nano,
                               a["servescope.tokens.committed"])
    return out


@pytest.fixture
def receiver() -> Any:
    with OtlpReceiver() as r:
        yield r


def test_server_timing_points_never_follow_what_the_client_saw(receiver: OtlpReceiver) -> None:
    config = EngineConfig(model=TINY, block_size=8, num_blocks=1024, max_batch=16,
                          stream_capacity=64, stream_low_watermark=8)
    exporter = OTLPSpanExporter(endpoint=receiver.endpoint, insecure=True)
    server = LocalServer(config, model_name=MODEL, span_exporter=exporter, chunk_tokens=1)
    with server:
        clients = asyncio.run(_run_clients(server.url))
        batched = server.engine.stats().steps < sum(c.tokens for c in clients)
    assert batched, "the run must batch requests (fewer steps than tokens)"
    servers = _server_times(receiver)
    assert len(clients) == REQUESTS
    late_ttft, late_stream, late_end = [], [], []
    for c in clients:
        assert c.response_id is not None and c.first is not None and c.done is not None
        s = servers[c.response_id]
        assert s.committed == c.tokens  # byte tokenizer, ASCII content: one token per byte
        stream_ttft = (s.stream_start_ns - s.start_ns) / 1e9
        client_ttft = c.first - c.sent
        if s.ttft > stream_ttft + NS_SLACK_S:
            late_ttft.append((c.response_id, s.ttft - stream_ttft))
        if stream_ttft > client_ttft:
            late_stream.append((c.response_id, stream_ttft - client_ttft))
        client_end_ns = server.telemetry.span_ns(c.done)
        if s.end_ns > client_end_ns:
            late_end.append((c.response_id, (s.end_ns - client_end_ns) / 1e9))
    report = (f"of {REQUESTS}: server TTFT after stream TTFT {len(late_ttft)} "
              f"{late_ttft[:2]}; stream TTFT after client TTFT {len(late_stream)} "
              f"{late_stream[:2]}; server end after client end {len(late_end)} {late_end[:2]}")
    assert not (late_ttft or late_stream or late_end), report
