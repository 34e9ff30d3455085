"""HTTP/2 (``serve --http2``, hypercorn): streams over one connection, paused one by one.

The client is the ``h2`` protocol library over a real socket, so the test decides exactly which
stream's data it consumes (returns as WINDOW_UPDATE). Stream 1 stops being read; streams 3 and
5 on the same connection are read at once.

* With the connection window enlarged as httpx and browsers do (16 MiB), the stalled stream's
  own window closes, its writer waits, the engine pauses that request only, and the read
  streams finish.
* With HTTP/2's default 65,535-byte connection window the stalled stream takes the whole of it:
  every stream on the connection stops (what the connection window does; see ``http2.py``).

httpx (with h2) checks the ordinary path: a streamed chat over HTTP/2.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import h2.config
import h2.connection
import h2.events
import httpx
import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from servescope.instrumentation.recorder import RequestRecorder
from servescope.instrumentation.setup import setup_telemetry
from servescope.reference.config import EngineConfig, ModelConfig
from servescope.reference.engine import Engine
from servescope.reference.http2 import Http2ServerThread
from servescope.reference.server import create_app

MODEL = "tiny-ref"
LONG = ModelConfig(dim=32, n_layers=1, n_heads=4, n_kv_heads=2, hidden_dim=64,
                   max_context=2048)
TOKENS = 1500
SLOW, FAST = 1, (3, 5)


@dataclass
class H2Server:
    engine: Engine
    http: Http2ServerThread
    recorders: list[RequestRecorder]
    registry: Any

    def paused(self) -> float:
        return self.registry.get_sample_value("servescope_requests_paused",
                                              {"pool": "default"}) or 0.0


def _start() -> H2Server:
    setup = setup_telemetry(model=MODEL, span_exporter=InMemorySpanExporter())
    config = EngineConfig(model=LONG, block_size=16, num_blocks=512, max_batch=8,
                          stream_capacity=8, stream_low_watermark=2,
                          slow_consumer_timeout_s=60.0)
    engine = Engine(config, setup.telemetry)
    recorders: list[RequestRecorder] = []
    make = setup.telemetry.request

    def capture(*args: Any, **kwargs: Any) -> RequestRecorder:
        recorder = make(*args, **kwargs)
        recorders.append(recorder)
        return recorder

    setup.telemetry.request = capture  # type: ignore[method-assign]
    engine.start()
    app = create_app(engine, setup.telemetry, chunk_tokens=1, http2=True)
    http = Http2ServerThread(app).start()
    return H2Server(engine, http, recorders, setup.registry)


@pytest.fixture
def server() -> Iterator[H2Server]:
    s = _start()
    yield s
    s.http.stop()
    s.engine.shutdown()


@dataclass
class Streams:
    received: dict[int, int] = field(default_factory=dict)
    ended: set[int] = field(default_factory=set)


def _h2_run(port: int, seconds: float, connection_window: int) -> Streams:
    """Three streams on one connection; stream 1 is never consumed."""
    sock = socket.create_connection(("127.0.0.1", port))
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    conn.initiate_connection()
    if connection_window > 65535:
        conn.increment_flow_control_window(connection_window - 65535)
    body = json.dumps({"model": MODEL, "prompt": "h2", "max_tokens": TOKENS, "stream": True,
                       "ignore_eos": True}).encode()
    for sid in (SLOW, *FAST):
        conn.send_headers(sid, [(":method", "POST"), (":path", "/v1/completions"),
                                (":scheme", "http"), (":authority", "x"),
                                ("content-type", "application/json")])
        conn.send_data(sid, body, end_stream=True)
    sock.sendall(conn.data_to_send())
    streams = Streams()
    sock.settimeout(0.1)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not set(FAST) <= streams.ended:
        try:
            data = sock.recv(65536)
        except TimeoutError:
            continue
        if not data:
            break
        for event in conn.receive_data(data):
            if isinstance(event, h2.events.DataReceived):
                sid = event.stream_id
                streams.received[sid] = streams.received.get(sid, 0) + len(event.data)
                if sid != SLOW:  # the read streams give their bytes back at once
                    conn.acknowledge_received_data(event.flow_controlled_length, sid)
            elif isinstance(event, h2.events.StreamEnded):
                streams.ended.add(event.stream_id)
        sock.sendall(conn.data_to_send())
    sock.close()
    return streams


@pytest.mark.parametrize("window", [2**24 + 65535, 65535], ids=["enlarged", "default"])
def test_a_stalled_stream_and_the_connection_window(server: H2Server, window: int) -> None:
    streams = _h2_run(server.http.port, 40.0 if window > 65535 else 8.0, window)
    slow = streams.received.get(SLOW, 0)
    assert SLOW not in streams.ended
    assert server.paused() >= 1, "the stalled stream's request is paused"
    committed = sorted(r.summary().committed_tokens for r in server.recorders)
    if window > 65535:
        assert set(FAST) <= streams.ended, "the read streams must finish"
        assert slow <= 65535  # its own window closed
        assert committed[0] < TOKENS and committed[1:] == [TOKENS, TOKENS]
        assert server.paused() == 1  # only the stalled stream's request
    else:
        # the stalled stream used the shared connection window: every stream stopped
        assert slow >= 65535 // 2
        assert not set(FAST) & streams.ended, "head-of-line blocking through the connection"
        assert committed[-1] < TOKENS


def test_streamed_chat_over_http2_with_httpx(server: H2Server) -> None:
    body = {"model": MODEL, "stream": True, "max_tokens": 20, "ignore_eos": True,
            "messages": [{"role": "user", "content": "hi"}]}
    with httpx.Client(http1=False, http2=True, timeout=20) as client, client.stream(
            "POST", f"{server.http.url}/v1/chat/completions", json=body) as response:
        assert response.http_version == "HTTP/2"
        assert response.headers["x-accel-buffering"] == "no"
        lines = [line for line in response.iter_lines() if line.startswith("data: ")]
    assert lines[-1] == "data: [DONE]"
    text = "".join(json.loads(line[6:])["choices"][0]["delta"].get("content", "")
                   for line in lines[:-1] if json.loads(line[6:])["choices"])
    assert len(text) == 20
    health = httpx.get(f"{server.http.url}/health", timeout=5)
    assert health.status_code == 200
    assert server.engine.wait_idle(10.0)
    s = server.recorders[-1].summary()
    assert s.delivered_tokens == s.written_tokens == s.committed_tokens == 20
    assert server.registry.get_sample_value("servescope_transport_delivery_acknowledged") == 0
