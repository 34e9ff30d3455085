"""Backpressure and the slow-consumer policy across the gateway, with a real client socket
that stops reading and a stub engine that would otherwise stream gigabytes."""

from __future__ import annotations

import contextlib
import json
import socket
import time

from gateways import (
    LocalGateway,
    busy_upstream_connections,
    finished,
    sample,
    stub_and_gateway,
    tokens,
)
from waiting import poll_until

from servescope.reference.config import HttpLimits

MODEL = "stub-model"
CHUNK = 16 << 10
TOKENS = 100_000  # 1.6 GB if nothing pushed back


def _stalled_client(url: str, max_tokens: int = TOKENS, chunk: int = CHUNK) -> socket.socket:
    """A client that sends a streaming request, reads the head and stops reading."""
    host, port = url.removeprefix("http://").split(":")
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((host, int(port)))
    body = json.dumps({"model": MODEL, "prompt": "x", "max_tokens": max_tokens, "stream": True,
                       "stub": {"chunk_bytes": chunk}}).encode()
    sock.sendall(b"POST /v1/completions HTTP/1.1\r\nhost: gw\r\ncontent-type: application/json"
                 b"\r\ncontent-length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
    assert sock.recv(12).startswith(b"HTTP/1.1 200")
    return sock


def _level(gw: LocalGateway, name: str) -> float:
    value = gw.telemetry.registry.get_sample_value(name, {"pool": gw.telemetry.pool})
    assert value is not None, f"{name} is not exported"
    return value


def test_a_client_that_stops_reading_stops_the_engine_and_is_cut_as_slow() -> None:
    limits = HttpLimits(stall_poll_s=0.1, abandon_after_s=1.0)
    with stub_and_gateway(slow_consumer_timeout_s=1.5, http=limits,
                          upstream_recv_buffer_bytes=65536) as (stub, gw):
        sock = _stalled_client(gw.url)
        try:
            # held back, the stream reads as paused, the chunk it holds as buffered tokens
            poll_until(lambda: _level(gw, "servescope_requests_paused") == 1,
                       what="one stream paused")
            assert _level(gw, "servescope_stream_buffered_tokens") > 0
            poll_until(lambda: finished(gw, "slow_consumer") == 1, what="a slow_consumer finish")
            poll_until(lambda: _level(gw, "servescope_requests_paused") == 0,
                       what="no stream paused once it ended")
            assert _level(gw, "servescope_stream_buffered_tokens") == 0
            # TCP pushed back on the engine: it handed its connection a bounded few MiB
            sent = stub.engine.bytes_sent[1]
            assert sent < 8 << 20, f"the engine sent {sent} bytes to a client reading nothing"
            assert sample(gw, "servescope_backpressure_pauses_total", model=MODEL) >= 1
            assert sample(gw, "servescope_backpressure_paused_seconds_total", model=MODEL) >= 1.0
            poll_until(lambda: stub.engine.cancelled == 1, what="the upstream request closed")
            assert busy_upstream_connections(gw) == 0
            # still reading nothing: the connection is reset, not held
            sock.settimeout(60)
            try:
                while sock.recv(1 << 20):
                    pass
            except ConnectionResetError:
                pass
        finally:
            sock.close()


def test_tokens_the_engine_sent_and_no_client_got_count_as_discarded() -> None:
    """The engine streams its whole answer into the buffers between it and the gateway (it
    counts every token sent: the gateway is its peer) while the client reads nothing. The
    gateway ends the stream as a slow consumer and counts every token it never wrote as
    committed and discarded, so the waste shows on one side (an outside probe found it on
    neither)."""
    limits = HttpLimits(stall_poll_s=0.1, abandon_after_s=1.0)
    n = 1200  # (about 180 kB: the gateway's upstream receive buffer holds it all)
    with stub_and_gateway(slow_consumer_timeout_s=1.0, http=limits,
                          upstream_recv_buffer_bytes=1 << 20) as (stub, gw):
        sock = _stalled_client(gw.url, max_tokens=n, chunk=0)
        try:
            poll_until(lambda: stub.engine.completed == 1, what="the engine's stream sent whole")
            poll_until(lambda: finished(gw, "slow_consumer") == 1, what="a slow_consumer finish")
            assert tokens(gw, "committed") == n
            delivered = tokens(gw, "delivered")
            assert tokens(gw, "discarded") == n - delivered
            assert delivered < n / 2, "the stalled client cannot have taken most of the stream"
        finally:
            sock.close()


def test_a_slow_clients_acknowledged_tokens_count_as_delivered() -> None:
    """A client that stops reading had some tokens acknowledged by its kernel before its
    window closed: those are delivered, the rest discarded (not all of them discarded)."""
    limits = HttpLimits(stall_poll_s=0.1, abandon_after_s=1.0)
    with stub_and_gateway(slow_consumer_timeout_s=1.0, http=limits) as (_, gw):
        host, port = gw.url.removeprefix("http://").split(":")
        sock = socket.socket()
        # a window that holds the first marks' bytes whatever the load (a 4 KiB one can close
        # before the first mark, 8 tokens in), far less than the stream
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
        sock.connect((host, int(port)))
        body = json.dumps({"model": MODEL, "prompt": "x", "max_tokens": 50_000,
                           "stream": True}).encode()
        sock.sendall(b"POST /v1/completions HTTP/1.1\r\nhost: gw\r\ncontent-type: "
                     b"application/json\r\ncontent-length: " + str(len(body)).encode()
                     + b"\r\n\r\n" + body)
        try:
            poll_until(lambda: finished(gw, "slow_consumer") == 1, what="a slow_consumer finish")
            delivered, written = tokens(gw, "delivered"), tokens(gw, "written")
            assert 0 < delivered < written, (delivered, written)
            assert tokens(gw, "discarded") == tokens(gw, "committed") - delivered
        finally:
            sock.close()


def test_a_client_cut_as_slow_that_reads_on_is_credited_every_token_it_read() -> None:
    """A client with a small window stalls past the slow-consumer timeout, then reads on
    slowly:
    the cut stream's tail is waited for like any other, and its tokens are credited event by
    event (under backpressure one upstream read holds many events, written as one chunk), so
    the gateway never counts delivered fewer tokens than the client read, nor more than it
    wrote."""
    limits = HttpLimits(stall_poll_s=0.1)
    with stub_and_gateway(slow_consumer_timeout_s=1.0, http=limits) as (_, gw):
        host, port = gw.url.removeprefix("http://").split(":")
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
        sock.connect((host, int(port)))
        body = json.dumps({"model": MODEL, "prompt": "x", "max_tokens": 5_000, "stream": True,
                           "stub": {"chunk_bytes": 1000}}).encode()
        sock.sendall(b"POST /v1/completions HTTP/1.1\r\nhost: gw\r\ncontent-type: "
                     b"application/json\r\ncontent-length: " + str(len(body)).encode()
                     + b"\r\n\r\n" + body)
        answer = b""
        try:
            time.sleep(2.5)
            sock.settimeout(30)
            with contextlib.suppress(ConnectionResetError):  # then reads on, slowly
                while not answer.endswith(b"0\r\n\r\n") and (chunk := sock.recv(4096)):
                    answer += chunk
                    time.sleep(0.01)
        finally:
            sock.close()
        got = answer.count(b'"text"') - answer.rsplit(b"\n\n", 1)[-1].count(b'"text"')
        poll_until(lambda: finished(gw, "slow_consumer") == 1, what="a slow_consumer finish")
        written, delivered = tokens(gw, "written"), tokens(gw, "delivered")
        assert b'"code":"slow_consumer"' in answer or not answer.endswith(b"0\r\n\r\n")
        assert got <= delivered <= written, (got, delivered, written)
        if b"[DONE]" in answer:  # read to the end: every token written was read
            assert got == delivered == written, (got, delivered, written)
        assert tokens(gw, "discarded") == tokens(gw, "committed") - delivered


def _stalled_stream(gw_url: str, stall_s: float, n: int = 36) -> tuple[int, bool]:
    """An ``n``-token stream whose client reads the head, stalls ``stall_s``, then reads on until
    the end or a reset: (tokens it got, whether it got [DONE])."""
    host, port = gw_url.removeprefix("http://").split(":")
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((host, int(port)))
    body = json.dumps({"model": MODEL, "prompt": "x", "max_tokens": n, "stream": True,
                       "stub": {"chunk_bytes": 200}}).encode()
    sock.sendall(b"POST /v1/completions HTTP/1.1\r\nhost: gw\r\ncontent-type: "
                 b"application/json\r\ncontent-length: " + str(len(body)).encode()
                 + b"\r\n\r\n" + body)
    try:
        answer = sock.recv(12)
        assert answer.startswith(b"HTTP/1.1 200")
        time.sleep(stall_s)
        sock.settimeout(30)
        with contextlib.suppress(ConnectionResetError):
            while not answer.endswith(b"0\r\n\r\n") and (chunk := sock.recv(65536)):
                answer += chunk
    finally:
        sock.close()
    return answer.count(b'"text"'), b"[DONE]" in answer


def test_a_whole_stream_a_stalled_client_reads_later_counts_as_delivered() -> None:
    """The whole answer fits in the buffers on the way; the client reads nothing for a while
    (less than the acknowledgement wait), then reads it all: every token is delivered, none
    discarded."""
    with stub_and_gateway() as (_, gw):
        got, done = _stalled_stream(gw.url, 1.5)
        assert done and got >= 36
        poll_until(lambda: finished(gw, "length") == 1, what="a length finish")
        assert tokens(gw, "written") == 36
        assert tokens(gw, "delivered") == 36, tokens(gw, "delivered")
        assert tokens(gw, "discarded") == 0


def test_a_tail_unacknowledged_past_the_wait_is_discarded_and_never_read() -> None:
    """Past ``ack_wait_s`` without an acknowledgement the unacknowledged tail is counted
    discarded, and the connection is reset so the client never reads it later (it would
    otherwise read tokens the gateway counted never delivered)."""
    limits = HttpLimits(ack_wait_s=0.5)
    with stub_and_gateway(http=limits) as (_, gw):
        # more than the client's receive buffer holds, less than it and the gateway's send
        # buffer together: every write completes, the tail waits in the gateway's kernel
        got, done = _stalled_stream(gw.url, 3.0, n=52)
        poll_until(lambda: finished(gw, "length") == 1, what="a length finish")
        written, delivered = tokens(gw, "written"), tokens(gw, "delivered")
        assert not done and got < written == 52, (got, written, delivered)
        assert delivered <= got, (delivered, got)
        assert tokens(gw, "discarded") == written - delivered


def test_pipelined_streams_never_read_end_as_cancels_without_an_error(caplog) -> None:
    """Clients that pipeline streaming requests and read nothing: each stalled stream is
    cut and its connection reset; the next pipelined answer then meets a closed transport.
    That is the client gone, not a gateway failure (no error logged or counted)."""
    limits = HttpLimits(stall_poll_s=0.1, abandon_after_s=0.5)
    body = json.dumps({"model": MODEL, "prompt": "x", "max_tokens": 400, "stream": True,
                       "stub": {"chunk_bytes": 256, "token_delay_s": 0.002}}).encode()
    request = (b"POST /v1/completions HTTP/1.1\r\nhost: gw\r\ncontent-type: application/json"
               b"\r\ncontent-length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
    with caplog.at_level("ERROR"), stub_and_gateway(slow_consumer_timeout_s=0.5,
                                                   http=limits) as (_, gw):
        host, port = gw.url.removeprefix("http://").split(":")
        socks = []
        for _ in range(4):
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.connect((host, int(port)))
            sock.sendall(request * 50)
            socks.append(sock)
        try:
            poll_until(lambda: finished(gw, "slow_consumer") >= 4,
                       what="the stalled streams cut", timeout_s=30)
            time.sleep(3.0)  # the next pipelined answers meet the reset connections
        finally:
            for sock in socks:
                sock.close()
        poll_until(lambda: sample(gw, "servescope_requests_in_flight", model=MODEL) == 0,
                   what="nothing left in flight", timeout_s=30)
        assert finished(gw, "error") == 0
    # (uvicorn still says, in one line, that an answer nobody could read was not completed)
    ours = [r for r in caplog.records if r.levelname == "ERROR" and r.name.startswith("servescope")]
    assert not ours and "Traceback" not in caplog.text, caplog.text[-2000:]


def test_a_slow_consumer_ends_at_the_decision_not_when_its_connection_is_reset() -> None:
    """The cut's last bytes wait up to abandon_after_s on a client that reads nothing; the
    request's end-to-end time and its paused time end at the terminal decision (found when
    a client held a stalled stream: a 2 s timeout recorded as 12.5 s)."""
    limits = HttpLimits(stall_poll_s=0.1, abandon_after_s=4.0)
    with stub_and_gateway(slow_consumer_timeout_s=1.0, http=limits,
                          upstream_recv_buffer_bytes=65536) as (_, gw):
        sock = _stalled_client(gw.url)
        try:
            poll_until(lambda: finished(gw, "slow_consumer") == 1, what="a slow_consumer finish",
                       timeout_s=30)
            paused = sample(gw, "servescope_backpressure_paused_seconds_total", model=MODEL)
            duration = sample(gw, "gen_ai_server_request_duration_seconds_sum", model=MODEL)
            # the pause ran the timeout (1 s, polled every 0.1 s), not the 4 s spent on a
            # client that never read the cut
            assert 1.0 <= paused < 3.0, paused
            assert duration < 4.0, duration
        finally:
            sock.close()
