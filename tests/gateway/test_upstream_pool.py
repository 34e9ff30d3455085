"""The gateway's keep-alive pool against a scripted HTTP/1.1 upstream on a real socket: one
connection carries request after request, and an upstream that closes a connection after its
answer (without saying ``Connection: close``) costs the next request nothing."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator

import httpx
from gateways import (
    ThreadedSocketServer,
    busy_upstream_connections,
    finished,
    gateway_for,
    read_request,
)
from waiting import poll_until

EVENT = b'data: {"choices":[{"index":0,"text":"a","finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
ANSWER = (b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked"
          b"\r\n\r\n%x\r\n%s\r\n0\r\n\r\n" % (len(EVENT), EVENT))


class ScriptedUpstream(ThreadedSocketServer):
    """Answers every request on a connection with ANSWER; ``close_after_each`` closes the
    connection after each answer (silently, as an idle timeout would); ``drop_on_reuse``
    closes it, unanswered, when a second stream request arrives on it (an idle timeout that
    fired just as the request came)."""

    def __init__(self, close_after_each: bool, drop_on_reuse: bool = False) -> None:
        self.close_after_each = close_after_each
        self.drop_on_reuse = drop_on_reuse
        self.answered = 0
        self._count = threading.Lock()
        super().__init__()

    def connection(self, conn: socket.socket) -> None:
        with conn:
            buf = b""
            streams = 0
            while (request := read_request(conn, buf)) is not None:
                head, _, buf = request
                if head.startswith(b"GET /v1/models"):
                    body = b'{"data":[{"id":"m"}]}'
                    conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n%s"
                                 % (len(body), body))
                elif self.drop_on_reuse and streams:
                    return
                else:
                    # counted before the answer goes: once sent, the client may finish (and
                    # the test read the count) before this thread runs again
                    with self._count:
                        self.answered += 1
                    conn.sendall(ANSWER)
                    streams += 1
                if self.close_after_each:
                    return


@contextlib.contextmanager
def _upstream(close_after_each: bool, drop_on_reuse: bool = False
              ) -> Iterator[ScriptedUpstream]:
    upstream = ScriptedUpstream(close_after_each, drop_on_reuse)
    try:
        yield upstream
    finally:
        upstream.close()


def _ask(url: str, n: int) -> list[str]:
    with httpx.Client(timeout=30) as client:
        return [client.post(f"{url}/v1/completions",
                            json={"model": "m", "prompt": "x", "stream": True}).text
                for _ in range(n)]


def test_one_upstream_connection_carries_request_after_request() -> None:
    with _upstream(close_after_each=False) as upstream, gateway_for(upstream.url) as gw:
        answers = _ask(gw.url, 5)
        assert all(a == EVENT.decode() for a in answers)
        poll_until(lambda: finished(gw, "stop", model="m") == 5, what="five finishes")
        assert upstream.answered == 5
        assert upstream.accepted == 1  # the model list's GET and five streams, one connection
        assert busy_upstream_connections(gw) == 0


def test_an_upstream_that_closes_after_each_answer_costs_nothing() -> None:
    with _upstream(close_after_each=True) as upstream, gateway_for(upstream.url) as gw:
        answers = _ask(gw.url, 5)
        assert all(a == EVENT.decode() for a in answers)
        poll_until(lambda: finished(gw, "stop", model="m") == 5, what="five finishes")
        assert finished(gw, "error", model="m") == 0
        assert upstream.answered == 5 and busy_upstream_connections(gw) == 0


def test_a_request_sent_on_a_pooled_connection_the_upstream_drops_goes_again_on_a_new_one(
        ) -> None:
    # the request is written on the pooled connection before the gateway's task reads the
    # answer: the close is seen there, before any answer byte, and the request goes again
    with _upstream(close_after_each=False, drop_on_reuse=True) as upstream, \
            gateway_for(upstream.url) as gw:
        answers = _ask(gw.url, 3)
        assert all(a == EVENT.decode() for a in answers)
        poll_until(lambda: finished(gw, "stop", model="m") == 3, what="three finishes")
        assert finished(gw, "error", model="m") == 0
        assert upstream.answered == 3 and upstream.accepted == 3
        assert busy_upstream_connections(gw) == 0
