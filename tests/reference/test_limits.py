"""What a connection may cost is bounded (``EngineConfig.http``): bodies, heads and bodies that
never finish, idle keep-alives, the connection count (``/healthz`` stays answerable); repeated
errors log once per kind per interval with a count, never a traceback per connection."""

from __future__ import annotations

import contextlib
import io
import json
import logging
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from connections import registered
from timing import slack_s
from waiting import poll_until

from servescope.reference.config import EngineConfig, HttpLimits, ModelConfig
from servescope.reference.transport import limits as limits_mod
from servescope.reference.transport.limits import EVICTION_GRACE_S, RateLimitedLog
from servescope.reference.transport.server import LocalServer

TINY = ModelConfig(dim=32, n_layers=1, n_heads=4, n_kv_heads=2, hidden_dim=64, max_context=64)
LIMITS = HttpLimits(max_body_bytes=64 << 10, header_timeout_s=1.0, body_timeout_s=1.0,
                    keep_alive_timeout_s=1.0, max_connections=6, health_reserve_connections=2,
                    error_log_interval_s=60.0)


@pytest.fixture
def log_output() -> Iterator[io.StringIO]:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
    logging.getLogger().addHandler(handler)
    yield out
    logging.getLogger().removeHandler(handler)


@pytest.fixture
def server(log_output, http_parser) -> Iterator[LocalServer]:
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    config = EngineConfig(model=TINY, block_size=8, num_blocks=64, max_batch=4, http=LIMITS)
    with LocalServer(config, model_name="tiny", span_exporter=InMemorySpanExporter()) as srv:
        yield srv


@pytest.fixture
def capped(log_output, http_parser) -> Iterator[LocalServer]:
    """Long read deadlines, so only the connection cap decides who is served."""
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    limits = LIMITS.replace(header_timeout_s=30.0, body_timeout_s=30.0)
    config = EngineConfig(model=TINY, block_size=8, num_blocks=64, max_batch=4, http=limits)
    with LocalServer(config, model_name="tiny", span_exporter=InMemorySpanExporter()) as srv:
        yield srv


def connect(server: LocalServer, data: bytes = b"") -> socket.socket:
    s = socket.create_connection((server.http.host, server.http.port), timeout=10)
    if data:
        s.sendall(data)
    return s


def wait_registered(server: LocalServer, socks: list[socket.socket], what: str) -> None:
    """Until the server has accepted every one of ``socks`` (the cap counts only those)."""
    poll_until(lambda: all(registered(server.http.host, server.http.port, s) for s in socks),
               what=f"{what} accepted by the server")


def read_all(s: socket.socket, timeout_s: float = 10.0) -> bytes:
    s.settimeout(timeout_s)
    out = b""
    while True:
        try:
            chunk = s.recv(65536)
        except (ConnectionResetError, TimeoutError):
            break
        if not chunk:
            break
        out += chunk
    return out


def rejected(server: LocalServer, reason: str) -> float:
    text = httpx.get(f"{server.url}/metrics", timeout=10).text
    found = re.search(rf'^servescope_requests_rejected_total\{{[^}}]*reason="{reason}"[^}}]*\}} '
                      rf'(\S+)$', text, re.M)
    return float(found.group(1)) if found else 0.0


def test_limits_are_config_fields_with_safe_defaults() -> None:
    limits = EngineConfig().http
    assert limits.max_body_bytes == 1 << 20 and limits.max_connections == 1000
    assert 0 < limits.header_timeout_s <= 30 and 0 < limits.body_timeout_s <= 60
    assert EngineConfig.from_dict({"http": {"max_body_bytes": 10}}).http.max_body_bytes == 10
    with pytest.raises(ValueError, match=r"^max_body_bytes"):
        HttpLimits(max_body_bytes=0)
    with pytest.raises(ValueError, match=r"^header_timeout_s"):
        HttpLimits(header_timeout_s=-1)
    with pytest.raises(ValueError, match=r"^nope"):
        EngineConfig.from_dict({"http": {"nope": 1}})
    for name in ("stall_poll_s", "abandon_after_s", "ack_wait_s", "listen_backlog"):
        with pytest.raises(ValueError, match=rf"^{name}"):
            HttpLimits(**{name: 0})
    assert EngineConfig.from_dict({"http": {"abandon_after_s": 2}}).http.abandon_after_s == 2


def test_a_declared_oversized_body_is_refused_before_it_is_sent(server: LocalServer) -> None:
    s = connect(server, f"POST /v1/completions HTTP/1.1\r\nHost: t\r\n"
                        f"Content-Length: {40 << 20}\r\n\r\n".encode())
    started = time.monotonic()
    reply = read_all(s)  # not one body byte sent: the answer comes from the head alone
    assert time.monotonic() - started < slack_s(5)
    assert reply.startswith(b"HTTP/1.1 413")
    assert json.loads(reply.split(b"\r\n\r\n", 1)[1])["error"]["code"] == "body_too_large"
    s.close()


def test_a_chunked_body_is_cut_off_at_the_limit(server: LocalServer) -> None:
    s = connect(server, b"POST /v1/completions HTTP/1.1\r\nHost: t\r\n"
                        b"Transfer-Encoding: chunked\r\n\r\n")
    sent = 0
    chunk = b"4000\r\n" + b"x" * 0x4000 + b"\r\n"
    try:
        while sent < (8 << 20):  # keeps sending until the server answers and closes
            s.sendall(chunk)
            sent += 0x4000
    except (BrokenPipeError, ConnectionResetError):
        pass
    reply = read_all(s)
    assert reply.startswith(b"HTTP/1.1 413") or sent < (8 << 20)
    assert sent < (8 << 20), "the server kept reading past the limit"
    s.close()


def test_a_head_that_never_finishes_times_out(server: LocalServer) -> None:
    before = rejected(server, "header_timeout")
    s = connect(server, b"GET /healthz HTTP/1.1\r\nHost: t\r\nX-Slow: a")
    reply = read_all(s)
    assert reply.startswith(b"HTTP/1.1 408")
    assert rejected(server, "header_timeout") == before + 1


def test_a_body_that_never_finishes_times_out_without_a_traceback(
        server: LocalServer, log_output: io.StringIO) -> None:
    before = rejected(server, "body_timeout")
    s = connect(server, b"POST /v1/completions HTTP/1.1\r\nHost: t\r\n"
                        b"Transfer-Encoding: chunked\r\n\r\n3\r\n{\"a\r\n")
    reply = read_all(s)
    assert reply.startswith(b"HTTP/1.1 408")
    poll_until(lambda: rejected(server, "body_timeout") >= before + 1,
               what="the body timeout counted")
    assert rejected(server, "body_timeout") == before + 1
    assert "Traceback" not in log_output.getvalue()


def test_a_client_leaving_mid_body_is_counted_not_logged(server: LocalServer,
                                                         log_output: io.StringIO) -> None:
    before = rejected(server, "client_disconnected")
    for _ in range(5):
        s = connect(server, b"POST /v1/completions HTTP/1.1\r\nHost: t\r\n"
                            b"Content-Length: 500\r\n\r\n{\"model\":")
        wait_registered(server, [s], "a half-sent body's connection")
        s.close()
    poll_until(lambda: rejected(server, "client_disconnected") >= before + 5,
               what="five disconnects counted")
    assert rejected(server, "client_disconnected") == before + 5
    assert "Traceback" not in log_output.getvalue()


def test_an_idle_keep_alive_connection_is_closed(server: LocalServer) -> None:
    started = time.monotonic()
    s = connect(server, b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
    reply = read_all(s, timeout_s=20)  # returns when the server closes (or after 20 s)
    assert reply.startswith(b"HTTP/1.1 200")
    assert time.monotonic() - started < 15  # keep_alive_timeout_s is 1 s


def test_past_the_connection_cap_healthz_still_answers(capped: LocalServer,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Six busy connections (bodies in flight: not evictable) fill the cap; the next ones may
    only ask for /healthz; past the reserve (held by connections inside their grace period) a
    connection is answered 503 at once."""
    monkeypatch.setattr(limits_mod, "OVERFLOW_GRACE_S", 60.0)
    busy = [connect(capped, b"POST /v1/completions HTTP/1.1\r\nHost: t\r\n"
                            b"Content-Length: 100\r\n\r\n{") for _ in range(6)]
    wait_registered(capped, busy, "the six busy connections")
    try:
        health = connect(capped, b"GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close"
                                 b"\r\n\r\n")
        assert read_all(health).startswith(b"HTTP/1.1 200")
        refused = connect(capped, b"GET /v1/models HTTP/1.1\r\nHost: t\r\n"
                                  b"Connection: close\r\n\r\n")
        reply = read_all(refused)
        assert reply.startswith(b"HTTP/1.1 503")
        assert b'"too_many_connections"' in reply
        held = [connect(capped) for _ in range(2)]  # fill the reserve
        wait_registered(capped, held, "the two reserve connections")
        beyond = read_all(connect(capped), timeout_s=5)
        assert beyond.startswith(b"HTTP/1.1 503")
        # a health check is still let in past the reserve: its first bytes say what it is
        late_health = connect(capped, b"GET /healthz HTTP/1.1\r\nHost: t\r\n"
                                      b"Connection: close\r\n\r\n")
        assert read_all(late_health).startswith(b"HTTP/1.1 200")
        for s in held:
            s.close()
    finally:
        for s in busy:
            s.close()


def test_half_open_heads_are_evicted_to_make_room(capped: LocalServer) -> None:
    """Slowloris: connections that never finish their head are the first to go when the cap is
    reached, so a real client still gets served (not merely /healthz)."""
    loris = [connect(capped, b"GET /healthz HTTP/1.1\r\nX-A: ") for _ in range(6)]
    wait_registered(capped, loris, "the six half-open connections")
    time.sleep(EVICTION_GRACE_S)  # the grace a new connection gets to send its head (a rule)
    try:
        before = rejected(capped, "header_timeout")
        r = httpx.get(f"{capped.url}/v1/models", timeout=5)
        assert r.status_code == 200
        assert read_all(loris[0], timeout_s=3) == b""  # the oldest was closed
        # counted as what it was, an eviction, not a head that timed out
        assert rejected(capped, "evicted") == 1
        assert rejected(capped, "header_timeout") == before
    finally:
        for s in loris:
            s.close()


def test_repeated_protocol_errors_log_once_with_a_count(server: LocalServer,
                                                        log_output: io.StringIO) -> None:
    for _ in range(30):
        read_all(connect(server, b"GARBAGE\r\n\r\n"))
    logged = log_output.getvalue()
    assert logged.count("Invalid HTTP request received") <= 1
    assert "Traceback" not in logged


def test_rate_limited_log_counts_what_it_suppressed() -> None:
    now = [0.0]
    limiter = RateLimitedLog(10.0, clock=lambda: now[0])
    out = io.StringIO()
    logger = logging.getLogger("servescope.test.ratelimit")
    logger.propagate = False
    handler = logging.StreamHandler(out)
    logger.addHandler(handler)
    logger.addFilter(limiter)
    try:
        for i in range(100):
            logger.warning("connection %d failed", i)
            logger.warning("other kind")
        now[0] = 10.5
        logger.warning("connection %d failed", 100)
        try:
            raise OSError("boom")
        except OSError:
            for _ in range(5):
                logger.exception("accept failed")
    finally:
        logger.removeHandler(handler)
        logger.removeFilter(limiter)
    lines = out.getvalue()
    assert lines.count("connection") == 2 and lines.count("other kind") == 1
    assert "connection 100 failed [99 more like this suppressed in the last 10 s]" in lines
    assert lines.count("Traceback") == 1  # one traceback per kind per interval


def test_the_http2_mode_applies_the_same_fields() -> None:
    """``serve --http2`` (hypercorn) takes its head size and keep-alive from the same
    ``EngineConfig.http``, and the body limit is the same ASGI middleware."""
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from servescope.instrumentation.setup import setup_telemetry
    from servescope.reference.client.engine import Engine
    from servescope.reference.transport.http2 import Http2ServerThread
    from servescope.reference.transport.server import create_app

    setup = setup_telemetry(model="tiny", span_exporter=InMemorySpanExporter())
    limits = HttpLimits(max_body_bytes=1000, max_header_bytes=4096, keep_alive_timeout_s=2.5)
    engine = Engine(EngineConfig(model=TINY, block_size=8, num_blocks=64, max_batch=4,
                                 http=limits), setup.telemetry)
    engine.start()
    http = Http2ServerThread(create_app(engine, setup.telemetry, http2=True)).start()
    try:
        config = http._config
        assert (config.h11_max_incomplete_size, config.h2_max_header_list_size,
                config.keep_alive_timeout) == (4096, 4096, 2.5)
        r = httpx.post(f"{http.url}/v1/completions", content=b"x" * 5000, timeout=10)
        assert r.status_code == 413 and r.json()["error"]["code"] == "body_too_large"
        with httpx.Client(http1=False, http2=True) as client:
            r = client.post(f"{http.url}/v1/completions", content=b"x" * 5000, timeout=10)
        assert r.http_version == "HTTP/2" and r.status_code == 413
    finally:
        http.stop()
        engine.shutdown()
        setup.shutdown(2)


def test_an_http2_body_sent_after_its_413_leaves_the_connection_serving() -> None:
    """A client that keeps sending a body after the server answered 413 from the head (legal
    in HTTP/2): the late DATA is dropped and the stream reset with NO_ERROR; the connection
    and its next stream are served (hypercorn alone ended the connection with a KeyError)."""
    import h2.config
    import h2.connection
    import h2.errors
    import h2.events
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from servescope.instrumentation.setup import setup_telemetry
    from servescope.reference.client.engine import Engine
    from servescope.reference.transport.http2 import Http2ServerThread
    from servescope.reference.transport.server import create_app

    setup = setup_telemetry(model="tiny", span_exporter=InMemorySpanExporter())
    engine = Engine(EngineConfig(model=TINY, block_size=8, num_blocks=64, max_batch=4,
                                 http=HttpLimits(max_body_bytes=1000)), setup.telemetry)
    engine.start()
    http = Http2ServerThread(create_app(engine, setup.telemetry, http2=True)).start()
    sock = socket.create_connection(("127.0.0.1", http.port), timeout=10)
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    seen: list[h2.events.Event] = []

    def until(done: Callable[[], bool]) -> None:
        poll_until(lambda: done() or not _h2_read(sock, conn, seen), what="an HTTP/2 event")
        assert done(), f"the connection ended; events: {seen}"

    def head(sid: int, method: str, path: str, length: int | None) -> None:
        fields = [(":method", method), (":path", path), (":scheme", "http"),
                  (":authority", "x")] + ([("content-length", str(length))] if length else [])
        conn.send_headers(sid, fields, end_stream=length is None)
        sock.sendall(conn.data_to_send())

    try:
        conn.initiate_connection()
        head(1, "POST", "/v1/completions", 5000)
        until(lambda: any(isinstance(e, h2.events.StreamEnded) and e.stream_id == 1
                          for e in seen))
        status = next(dict(e.headers)[b":status"] for e in seen
                      if isinstance(e, h2.events.ResponseReceived) and e.stream_id == 1)
        assert status == b"413"
        conn.send_data(1, b"x" * 1000)  # the body, after its answer
        sock.sendall(conn.data_to_send())
        until(lambda: any(isinstance(e, h2.events.StreamReset) and e.stream_id == 1
                          for e in seen))
        reset = next(e for e in seen if isinstance(e, h2.events.StreamReset))
        assert reset.error_code == h2.errors.ErrorCodes.NO_ERROR
        head(3, "GET", "/v1/models", None)  # the same connection serves the next stream
        until(lambda: any(isinstance(e, h2.events.StreamEnded) and e.stream_id == 3
                          for e in seen))
        status = next(dict(e.headers)[b":status"] for e in seen
                      if isinstance(e, h2.events.ResponseReceived) and e.stream_id == 3)
        assert status == b"200"
    finally:
        sock.close()
        http.stop()
        engine.shutdown()
        setup.shutdown(2)


def _h2_read(sock: socket.socket, conn: Any, seen: list[Any]) -> bool:
    """One read: the events it carried appended to ``seen``; False when the peer closed."""
    sock.settimeout(0.2)
    try:
        data = sock.recv(65536)
    except TimeoutError:
        return True
    if not data:
        return False
    seen.extend(conn.receive_data(data))
    sock.sendall(conn.data_to_send())
    return True


def test_a_request_refused_from_its_head_is_counted_in_the_callers_trace(http_parser) -> None:
    """413 (a declared body too large) is answered from the head, before a handler: its
    rejection's span still joins the trace the caller's traceparent names."""
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    config = EngineConfig(model=TINY, block_size=8, num_blocks=64, max_batch=4, http=LIMITS)
    trace_id = "4bf92f3577b34da6a3ce929d0e0e4736"
    with LocalServer(config, model_name="tiny", span_exporter=exporter) as srv:
        s = connect(srv, f"POST /v1/completions HTTP/1.1\r\nHost: t\r\n"
                         f"traceparent: 00-{trace_id}-00f067aa0ba902b7-01\r\n"
                         f"Content-Length: {40 << 20}\r\n\r\n".encode())
        assert read_all(s).startswith(b"HTTP/1.1 413")
        s.close()
        srv.setup.force_flush()
        rejected = [span for span in exporter.get_finished_spans()
                    if span.attributes.get("servescope.finish_reason") == "rejected"]
    assert len(rejected) == 1
    assert f"{rejected[0].context.trace_id:032x}" == trace_id


def test_reconnecting_slow_heads_do_not_lock_out_a_whole_request(capped: LocalServer) -> None:
    """Slowloris that reconnects as soon as it is evicted keeps the pool full of connections
    younger than the eviction grace: a client opening a new connection found none to evict
    and got 503. A whole request now takes the place of a head still trickling in."""
    stop = threading.Event()

    def loris() -> None:
        while not stop.is_set():
            try:
                s = connect(capped, b"GET /healthz HTTP/1.1\r\nX-A: ")
                s.settimeout(2)
                s.recv(1)  # until evicted (or a timeout)
            except OSError:
                pass
            finally:
                with contextlib.suppress(Exception):
                    s.close()

    threads = [threading.Thread(target=loris, daemon=True) for _ in range(12)]
    for t in threads:
        t.start()
    try:
        time.sleep(1.0)
        statuses = []
        for _ in range(8):
            with contextlib.suppress(httpx.HTTPError):
                statuses.append(httpx.get(f"{capped.url}/v1/models", timeout=5,
                                          headers={"connection": "close"}).status_code)
            time.sleep(0.1)
    finally:
        stop.set()
        for t in threads:
            t.join(5)
    assert statuses.count(200) >= 6, statuses
