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
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import h2.config
import h2.connection
import h2.events
import httpx
import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from recorders import capture_recorders

from servescope.instrumentation.request_recorder import RequestRecorder
from servescope.instrumentation.setup import setup_telemetry
from servescope.reference.client.engine import Engine
from servescope.reference.config import EngineConfig, ModelConfig
from servescope.reference.transport.http2 import Http2ServerThread
from servescope.reference.transport.server import create_app

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
    recorders = capture_recorders(setup.telemetry)
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


class H2Client:
    """Three streams on one connection; stream 1 is never consumed."""

    def __init__(self, port: int, connection_window: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
        self.conn.initiate_connection()
        if connection_window > 65535:
            self.conn.increment_flow_control_window(connection_window - 65535)
        body = json.dumps({"model": MODEL, "prompt": "h2", "max_tokens": TOKENS,
                           "stream": True, "ignore_eos": True}).encode()
        for sid in (SLOW, *FAST):
            self.conn.send_headers(sid, [(":method", "POST"), (":path", "/v1/completions"),
                                         (":scheme", "http"), (":authority", "x"),
                                         ("content-type", "application/json")])
            self.conn.send_data(sid, body, end_stream=True)
        self.sock.sendall(self.conn.data_to_send())
        self.sock.settimeout(0.1)
        self.streams = Streams()
        self.last_data = time.monotonic()

    def pump_until(self, done: Callable[[], bool], what: str, timeout_s: float = 120.0) -> None:
        """Read (giving the read streams' bytes back at once) until ``done()``: an event,
        not a guessed time; the deadline only bounds a failure."""
        deadline = time.monotonic() + timeout_s
        while not done():
            assert time.monotonic() < deadline, f"timed out waiting for {what}"
            try:
                data = self.sock.recv(65536)
            except TimeoutError:
                continue
            assert data, "the server closed the connection"
            self.last_data = time.monotonic()
            self._receive(data)

    def _receive(self, data: bytes) -> None:
        for event in self.conn.receive_data(data):
            if isinstance(event, h2.events.DataReceived):
                sid = event.stream_id
                self.streams.received[sid] = self.streams.received.get(sid, 0) + len(event.data)
                if sid != SLOW:
                    self.conn.acknowledge_received_data(event.flow_controlled_length, sid)
            elif isinstance(event, h2.events.StreamEnded):
                self.streams.ended.add(event.stream_id)
        self.sock.sendall(self.conn.data_to_send())

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def enlarged(server: H2Server) -> Iterator[H2Client]:
    client = H2Client(server.http.port, 2**24 + 65535)  # as httpx and browsers do
    yield client
    client.close()


@pytest.fixture
def default_window(server: H2Server) -> Iterator[H2Client]:
    client = H2Client(server.http.port, 65535)
    yield client
    client.close()


def test_a_stalled_stream_pauses_only_its_request(server: H2Server, enlarged: H2Client) -> None:
    streams = enlarged.streams
    enlarged.pump_until(lambda: set(FAST) <= streams.ended and server.paused() >= 1,
                        "the read streams to finish and the stalled one to pause")
    assert SLOW not in streams.ended
    assert streams.received.get(SLOW, 0) <= 65535  # its own window closed
    committed = sorted(r.summary().committed_tokens for r in server.recorders)
    assert committed[0] < TOKENS and committed[1:] == [TOKENS, TOKENS]
    assert server.paused() == 1  # only the stalled stream's request


def test_a_stalled_stream_holds_the_default_connection_window(server: H2Server,
                                                               default_window: H2Client) -> None:
    """The stalled stream used the shared connection window: every stream stopped."""
    streams = default_window.streams
    default_window.pump_until(
        lambda: server.paused() >= 1 and streams.received.get(SLOW, 0) >= 65535 // 2,
        "the stalled stream to take the connection window and pause")
    quiet_s = 1.0  # then nothing more arrives: the read streams are stuck behind it
    default_window.pump_until(lambda: time.monotonic() - default_window.last_data > quiet_s,
                              "the connection to go quiet")
    assert SLOW not in streams.ended
    assert not set(FAST) & streams.ended, "head-of-line blocking through the connection"
    assert max(r.summary().committed_tokens for r in server.recorders) < TOKENS


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
