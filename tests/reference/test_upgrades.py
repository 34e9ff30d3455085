"""No connection leaves the guard's accounting by a protocol switch: WebSocket and h2c upgrade
requests get a counted JSON 400 and their connection closes, 2,000 of them later a normal
request is still served, and every connection the server accepted is either open or counted
closed, checked against the kernel's own socket table."""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from waiting import poll_until

from servescope.reference.config import EngineConfig, HttpLimits, ModelConfig
from servescope.reference.transport.server import LocalServer

TINY = ModelConfig(dim=32, n_layers=1, n_heads=4, n_kv_heads=2, hidden_dim=64, max_context=64)
#: A small connection cap: one leaked slot per upgrade would lock the server out after six.
LIMITS = HttpLimits(max_connections=6, health_reserve_connections=2, header_timeout_s=5.0,
                    error_log_interval_s=60.0)
WEBSOCKET_GET = (b"GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\n"
                 b"Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
                 b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
WEBSOCKET_POST = (b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nConnection: keep-alive, Upgrade\r\n"
                  b"Upgrade: websocket\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 38\r\n\r\n"
                  b'{"model":"tiny","prompt":"hi","n":1} ')
H2C_GET = (b"GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\n"
           b"Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n")
ATTACKS = (WEBSOCKET_GET, WEBSOCKET_POST, H2C_GET)
#: TCP states in /proc/net/tcp: a connection the server still holds open.
_HELD = {"01", "08"}  # ESTABLISHED, CLOSE_WAIT


@pytest.fixture
def server(http_parser) -> Iterator[LocalServer]:
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    config = EngineConfig(model=TINY, block_size=8, num_blocks=64, max_batch=4, http=LIMITS)
    with LocalServer(config, model_name="tiny", span_exporter=InMemorySpanExporter()) as srv:
        yield srv


def exchange(server: LocalServer, raw: bytes) -> tuple[int, dict[str, object], bytes]:
    """Send ``raw`` on a fresh connection; the status, the JSON body and the raw head, read
    until the server closes the connection."""
    with socket.create_connection((server.http.host, server.http.port), timeout=10) as s:
        s.sendall(raw)
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body), head


def kernel_held(port: int) -> int:
    """Server-side sockets of ``port`` the kernel holds open (listener excluded)."""
    held = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            local_port = int(fields[1].rsplit(":", 1)[1], 16)
            if local_port == port and fields[3] in _HELD:
                held += 1
    return held


def rejected(server: LocalServer, reason: str) -> float:
    text = httpx.get(f"{server.url}/metrics", timeout=10).text
    found = re.search(rf'^servescope_requests_rejected_total\{{[^}}]*reason="{reason}"[^}}]*\}} '
                      rf'(\S+)$', text, re.M)
    return float(found.group(1)) if found else 0.0


def ledger(server: LocalServer) -> dict[str, int]:
    counts: dict[str, int] = server.app.state.connection_ledger.snapshot()
    return counts


@pytest.mark.parametrize("raw", ATTACKS, ids=["websocket-get", "websocket-post", "h2c"])
def test_an_upgrade_gets_a_counted_json_400_and_the_connection_closes(
        server: LocalServer, raw: bytes) -> None:
    status, body, head = exchange(server, raw)
    assert status == 400
    assert body["error"]["code"] == "upgrade_refused"  # type: ignore[index]
    assert b"connection: close" in head.lower() and b"101" not in head.split(b"\r\n")[0]
    assert rejected(server, "upgrade_refused") == 1


def test_two_thousand_upgrades_leave_every_slot_free(server: LocalServer) -> None:
    port = server.http.port

    def attack(i: int) -> int:
        return exchange(server, ATTACKS[i % len(ATTACKS)])[0]

    with ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(attack, range(2000)))
    assert statuses == [400] * 2000
    # the server still serves everything, far past its cap of six connections
    with httpx.Client(base_url=server.url, timeout=10) as client:
        assert client.get("/readyz").status_code == 200
        assert client.get("/v1/models").status_code == 200
        done = client.post("/v1/completions", json={"model": "tiny", "prompt": "hi",
                                                   "max_tokens": 2})
        assert done.status_code == 200, done.text
        assert rejected(server, "upgrade_refused") == 2000
    # every accepted connection is open or counted closed, and the kernel agrees on the open
    poll_until(lambda: ledger(server)["open"] == kernel_held(port) == 0,
               what="every connection closed, in the ledger and in the kernel")
    counts = ledger(server)
    assert counts["accepted"] == counts["closed"] > 2000
    assert counts["upgrades_refused"] == 2000


def test_open_connections_match_the_kernel_socket_count(server: LocalServer) -> None:
    port = server.http.port
    idle = [socket.create_connection((server.http.host, port), timeout=10) for _ in range(4)]
    try:
        poll_until(lambda: ledger(server)["open"] == 4 == kernel_held(port),
                   what="four idle connections open in the ledger and the kernel")
        counts = ledger(server)
        assert counts["accepted"] == counts["closed"] + counts["open"]
    finally:
        for s in idle:
            s.close()
    poll_until(lambda: ledger(server)["open"] == 0 == kernel_held(port),
               what="the idle connections counted closed")


def test_on_http2_a_websocket_handshake_is_refused_and_counted() -> None:
    """hypercorn upgrades WebSocket handshakes itself and hands the app a websocket scope: the
    limits middleware refuses it with the JSON 400 (ASGI denial response) and counts it."""
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from servescope.instrumentation import setup_telemetry
    from servescope.reference.client.engine import Engine
    from servescope.reference.transport.http2 import Http2ServerThread
    from servescope.reference.transport.server import create_app

    setup = setup_telemetry(model="tiny", span_exporter=InMemorySpanExporter())
    engine = Engine(EngineConfig(model=TINY, block_size=8, num_blocks=64, max_batch=4),
                    setup.telemetry)
    engine.start()
    http = Http2ServerThread(create_app(engine, setup.telemetry, http2=True)).start()
    try:
        with socket.create_connection((http.host, http.port), timeout=10) as s:
            s.sendall(WEBSOCKET_GET)
            data = b""
            while b"\r\n\r\n" not in data or not data.rstrip().endswith(b"}"):
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        assert head.split()[1] == b"400", data[:300]
        assert json.loads(body[body.index(b"{"):])["error"]["code"] == "upgrade_refused"
        assert setup.registry.get_sample_value(
            "servescope_requests_rejected_total",
            {"model": "tiny", "reason": "upgrade_refused"}) == 1.0
    finally:
        http.stop()
        engine.shutdown()
        setup.shutdown(2)
