"""Slow clients over real TCP: backpressure reaches the engine, unsent tokens stay bounded.

Clients are raw sockets with a small SO_RCVBUF reading a few bytes per interval, so it is TCP
flow control, not cooperation, that stops the server. The sampler runs on the server's own
event loop: there the writer is always at a suspension point, so committed - written is
exactly the tokens generated and not yet written to the connection (bounded by the stream
capacity), and committed - delivered adds what was written and not yet acknowledged by the
peer (bounded by the capacity plus the kernel allowance, :func:`kernel_allowance_tokens`).
"""

from __future__ import annotations

import asyncio
import os
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from connections import registered
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from recorders import capture_recorders
from waiting import poll_until

from servescope.harness.loadgen import Reading, stream_once
from servescope.instrumentation.request_recorder import RequestRecorder
from servescope.reference.config import EngineConfig, HttpLimits, ModelConfig
from servescope.reference.transport.server import DEFAULT_SEND_BUFFER_BYTES, LocalServer
from servescope.reference.transport.sse import Shape, _event

TINY = ModelConfig(dim=32, n_layers=1, n_heads=4, n_kv_heads=2, hidden_dim=64, max_context=256)
MODEL = "tiny-ref"
CAP = 8


def kernel_allowance_tokens(chunk_tokens: int = CAP) -> int:
    """Tokens that may be written and not yet acknowledged, beyond the stream capacity: the
    transport's buffer (its high-water mark plus the write that crossed it) and the kernel send
    buffer (Linux doubles the SO_SNDBUF asked for), at the fewest bytes per token the stream
    writes (an event carrying ``chunk_tokens`` tokens; a writer never pops more than CAP)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, DEFAULT_SEND_BUFFER_BYTES)
        kernel = probe.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
    overhead = len(_event(Shape("completion", "cmpl-" + "0" * 32, MODEL, True).text("")))
    held = 2 * DEFAULT_SEND_BUFFER_BYTES + overhead + chunk_tokens + kernel
    return -(-held * chunk_tokens // (overhead + chunk_tokens))


def _server(**overrides: Any) -> LocalServer:
    config = EngineConfig(**{"model": TINY, "block_size": 8, "num_blocks": 512,
                             "max_batch": 16, "stream_capacity": CAP,
                             "stream_low_watermark": 2, **overrides})
    return LocalServer(config, model_name=MODEL, span_exporter=InMemorySpanExporter())


class Watch:
    """Captures every recorder and samples, on the server loop, the worst unsent count."""

    def __init__(self, server: LocalServer) -> None:
        self.server = server
        self.recorders: list[RequestRecorder] = capture_recorders(server.telemetry)
        self.worst_unsent = 0  # committed - written: still in the engine's send queue
        self.worst_unacked = 0  # committed - delivered: not yet acknowledged by the peer
        self.worst_buffered_gauge = 0.0
        self._stop = threading.Event()
        assert server.http.loop is not None
        self._future = asyncio.run_coroutine_threadsafe(self._sample(), server.http.loop)

    async def _sample(self) -> None:
        registry = self.server.setup.registry
        while not self._stop.is_set():
            for recorder in list(self.recorders):
                s = recorder.summary()
                if s.finish_reason is None:
                    self.worst_unsent = max(self.worst_unsent,
                                            s.committed_tokens - s.written_tokens)
                    self.worst_unacked = max(self.worst_unacked,
                                             s.committed_tokens - s.delivered_tokens)
            gauge = registry.get_sample_value("servescope_stream_buffered_tokens",
                                              {"pool": "default"}) or 0.0
            self.worst_buffered_gauge = max(self.worst_buffered_gauge, gauge)
            await asyncio.sleep(0.001)

    def stop(self) -> None:
        self._stop.set()
        self._future.result(5)

    def sample(self, name: str, **labels: str) -> float:
        value = self.server.setup.registry.get_sample_value(name, labels)
        return value or 0.0


@pytest.fixture
def watched() -> Iterator[Watch]:
    server = _server().start()
    watch = Watch(server)
    yield watch
    watch.stop()
    server.stop()


def _payload(max_tokens: int) -> dict[str, Any]:
    return {"model": MODEL, "prompt": "backpressure", "max_tokens": max_tokens,
            "stream": True, "stream_options": {"include_usage": True}, "ignore_eos": True}


def test_slow_readers_pause_their_requests_and_never_hold_more_than_capacity(
        watched: Watch) -> None:
    host, port = watched.server.http.host, watched.server.http.port
    # a second of reading nothing first: on a loaded machine the engine could otherwise
    # generate slower than a 256-byte-per-20-ms drain and never meet the backpressure (pauses
    # 0: the suite failed once so)
    slow = Reading(read_bytes=256, interval_s=0.02, rcvbuf=2048, stall_s=1.0)

    async def run() -> list[Any]:
        clients = [stream_once(host, port, _payload(200), kind="slow", reading=slow)
                   for _ in range(4)]
        clients += [stream_once(host, port, _payload(200), kind="fast") for _ in range(4)]
        return await asyncio.gather(*clients)

    results = asyncio.run(run())
    assert [r.finish for r in results] == ["length"] * 8
    assert all(r.tokens == 200 for r in results)
    assert watched.server.engine.wait_idle(5.0)
    pauses = watched.sample("servescope_backpressure_pauses_total", model=MODEL)
    assert pauses >= 4, "TCP backpressure never reached the engine's stream buffers"
    assert 1 <= watched.worst_unsent <= CAP
    assert watched.worst_unsent <= watched.worst_unacked <= CAP + kernel_allowance_tokens()
    for recorder in watched.recorders:  # every token generated was also delivered
        s = recorder.summary()
        assert s.committed_tokens == s.delivered_tokens == 200 and s.discarded_tokens == 0
    assert sum(r.summary().pauses >= 1 for r in watched.recorders) >= 4  # each slow reader


def _rss_bytes() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_200_slow_streams_keep_memory_flat() -> None:
    """200 crawling readers all pause; holding them paused costs no memory; all are released.

    Event-driven, not timed: the clients stay until every stream has paused (however long a
    loaded machine takes), RSS is sampled while all 200 are held, then the clients leave."""
    n = 200
    server = _server(max_batch=256, max_waiting=256, num_blocks=4096).start()
    watch = Watch(server)
    host, port = server.http.host, server.http.port
    crawl = Reading(read_bytes=64, interval_s=0.1, rcvbuf=2048)
    held_rss: list[int] = []

    def paused_streams() -> int:
        return sum(r.summary().pauses >= 1 for r in list(watch.recorders))

    async def run() -> None:
        tasks = [asyncio.create_task(stream_once(host, port, _payload(240), kind="slow",
                                                 reading=crawl, timeout_s=300.0))
                 for _ in range(n)]
        start = time.monotonic()
        while paused_streams() < n:
            assert time.monotonic() - start < 120, f"only {paused_streams()} of {n} paused"
            await asyncio.sleep(0.05)
        for _ in range(15):  # 1.5 s with every stream held paused
            held_rss.append(_rss_bytes())
            await asyncio.sleep(0.1)
        for task in tasks:  # the clients leave: each disconnect cancels its request
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    try:
        asyncio.run(run())
        assert server.engine.wait_idle(30.0)
        paused_peak = watch.sample("servescope_requests_paused", pool="default")
        assert watch.worst_unsent <= CAP
        assert watch.worst_buffered_gauge <= n * CAP
        assert len(watch.recorders) == n
        assert all(r.summary().finish_reason is not None for r in watch.recorders)
        growth = max(held_rss) - min(held_rss)
        assert growth < 32 * 2**20, f"RSS grew {growth / 2**20:.1f} MiB with paused streams"
        assert paused_peak == 0  # everything released afterwards
    finally:
        watch.stop()
        server.stop()


def _never_reading_client(host: str, port: int, max_tokens: int) -> socket.socket:
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
    sock.connect((host, port))
    body = (b'{"model": "%s", "prompt": "x", "max_tokens": %d, "stream": true, '
            b'"ignore_eos": true}' % (MODEL.encode(), max_tokens))
    sock.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: "
                 b"application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
    return sock


def test_disconnect_while_the_writer_is_stalled_cancels_at_once(watched: Watch) -> None:
    sock = _never_reading_client(watched.server.http.host, watched.server.http.port, 240)
    poll_until(lambda: watched.sample("servescope_requests_paused", pool="default") == 1,
               what="the request paused", timeout_s=60.0, interval_s=0.01)
    sock.close()
    # Noticed by the disconnect watcher, not by the writer giving the stalled stream up (which
    # would end it too, but only after abandon_after_s): that is the bound, not a guessed time.
    given_up_after_s = HttpLimits().abandon_after_s
    closed_at = time.monotonic()
    poll_until(lambda: watched.sample("servescope_requests_finished_total", model=MODEL,
                                      finish_reason="client_cancel") == 1,
               what="the disconnect of a stalled stream noticed", timeout_s=given_up_after_s,
               interval_s=0.01)
    assert time.monotonic() - closed_at < given_up_after_s
    assert watched.server.engine.wait_idle(30.0)
    s = watched.recorders[0].summary()
    assert 0 < s.committed_tokens - s.written_tokens <= CAP  # generated, never sent
    # discarded: everything the peer never acknowledged, exactly
    assert s.discarded_tokens == s.committed_tokens - s.delivered_tokens
    assert s.discarded_tokens <= CAP + kernel_allowance_tokens()


def test_a_client_that_never_reads_is_dropped_after_the_slow_consumer_policy() -> None:
    http = HttpLimits(abandon_after_s=0.5)
    server = _server(slow_consumer_timeout_s=0.3, http=http).start()
    try:
        sock = _never_reading_client(server.http.host, server.http.port, 240)
        registry = server.setup.registry
        poll_until(lambda: registry.get_sample_value(
            "servescope_requests_finished_total",
            {"model": MODEL, "finish_reason": "slow_consumer"}) == 1,
            what="the slow-consumer policy", timeout_s=60.0, interval_s=0.01)
        assert server.engine.wait_idle(30.0)  # KV, slot and buffer freed at once
        # ...and once the writer has stayed stalled past abandon_after_s, the transport gives
        # the connection up (a reset) instead of waiting on it forever. The client must not
        # read before then (reading would unstall the writer), so wait for the server's side.
        poll_until(lambda: not registered(server.http.host, server.http.port, sock),
                   what="the stalled connection given up by the server")
        sock.settimeout(30.0)
        received = b""
        with pytest.raises(ConnectionResetError):
            while chunk := sock.recv(65536):
                received += chunk
        assert b"[DONE]" not in received
        sock.close()
    finally:
        server.stop()
