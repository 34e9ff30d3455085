"""The upstream engine, reached through a pool of keep-alive HTTP/1.1 connections.

Requests go out as the client sent them: same method, path, query, body and headers, less the
hop-by-hop ones (RFC 9110 7.6.1) and ``Expect`` (the gateway's server answers the client's
``100-continue`` and has the whole body before it writes upstream: nginx drops it too), and
with two changes a proxy must make: ``traceparent`` names the gateway's request span when it
is sampled (the engine's spans then join the trace), and ``accept-encoding: identity`` (the
relay reads the stream it forwards; engines do not compress their streams anyway). Interim
answers (``1xx``) are skipped; the client gets the final one.

Each upstream connection's kernel receive buffer is bounded
(``GatewayConfig.upstream_recv_buffer_bytes``): when the relay stops reading because its
client stopped reading, the engine's writes stall after that much instead of after an
autotuned window of megabytes. A request the relay abandons is closed with its response
(``aclose``): an unread HTTP/1.1 body closes the connection, so the engine sees the client go.

The connections are :mod:`.wire`'s (a plain asyncio protocol and a framing reader, not a
general HTTP client: the relay's per-chunk read is the gateway's hot path). At most
``max_upstream_connections`` carry requests at once; a request that waits
``connect_timeout_s`` for one gets 503 ``upstream_busy``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import ssl
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

from servescope.reference.transport import openai_schema as schema

from .config import GatewayConfig
from .wire import (
    MAX_HEAD_BYTES,
    BodyReader,
    Connection,
    ResponseHead,
    UpstreamBroken,
    UpstreamTimeout,
    parse_head,
    whole_chunk,
)

__all__ = ["HOP_BY_HOP", "SERVER_WRITES", "Answer", "Upstream", "UpstreamBroken",
           "UpstreamResponse", "UpstreamTimeout", "UpstreamUnavailable", "forward_headers",
           "response_headers"]

#: Headers that describe one connection, never forwarded (plus those named in Connection).
HOP_BY_HOP = frozenset({b"connection", b"keep-alive", b"proxy-authenticate",
                        b"proxy-authorization", b"proxy-connection", b"te", b"trailer",
                        b"transfer-encoding", b"upgrade", b"host", b"content-length"})


#: An idle pooled connection is closed after this long: well before the engines' own idle
#: keep-alive timeout (uvicorn's, vLLM's: 5 s), so the gateway never sends a request on a
#: connection the engine is closing at that moment (a reset, not a retry, for a POST).
KEEPALIVE_EXPIRY_S = 2.0


class UpstreamUnavailable(Exception):
    """The upstream could not be asked: ``status`` and ``code`` of the gateway's answer."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message

    def body(self) -> dict[str, Any]:
        return schema.error_body(self.message, type_="server_error", code=self.code)


#: Request headers the gateway answers or sets itself (see the module notes).
_GATEWAY_SETS = frozenset({b"expect", b"accept-encoding"})


def forward_headers(headers: Iterable[tuple[bytes, bytes]],
                    trace: Mapping[str, str] | None) -> list[tuple[bytes, bytes]]:
    """The client's request headers as the upstream gets them (see the module notes)."""
    raw = list(headers)
    named = _connection_named(raw)
    out = [(k, v) for k, v in raw
           if k not in HOP_BY_HOP and k not in named and k not in _GATEWAY_SETS
           and (trace is None or k != b"traceparent")]
    out.append((b"accept-encoding", b"identity"))
    if trace is not None:
        out.append((b"traceparent",
                     f"00-{trace['trace_id']}-{trace['span_id']}-01".encode()))
    return out


#: Response headers the gateway's own server writes (as nginx does): the upstream's would
#: be a second Date and Server on every answer.
SERVER_WRITES = frozenset({b"date", b"server"})


def response_headers(headers: Iterable[tuple[bytes, bytes]], *, keep_length: bool = False,
                     origin: bytes | None = None) -> list[tuple[bytes, bytes]]:
    """The upstream's response headers as the client gets them (framing is the gateway's,
    unless ``keep_length``: a body passed through unchanged keeps its Content-Length). A
    ``Location`` at the upstream's own ``origin`` (``http://engine:8000/path``, FastAPI's
    trailing-slash redirect) becomes the path alone, as nginx's ``proxy_redirect default``
    rewrites it: the client follows it through the gateway, and never learns the engine's
    address."""
    raw = list(headers)
    named = _connection_named(raw)
    return [(k, _through_gateway(v, origin) if k == b"location" else v) for k, v in raw
            if (k not in HOP_BY_HOP or (keep_length and k == b"content-length"))
            and k not in named and k not in SERVER_WRITES]


def _through_gateway(location: bytes, origin: bytes | None) -> bytes:
    if origin is None or not location.lower().startswith(origin.lower()):
        return location
    rest = location[len(origin):]
    if rest[:1] in (b"/", b"?", b"#"):
        return rest if rest[:1] == b"/" else b"/" + rest
    return location if rest else b"/"


def _connection_named(headers: list[tuple[bytes, bytes]]) -> frozenset[bytes]:
    return frozenset(token.strip().lower() for k, v in headers if k == b"connection"
                     for token in v.split(b","))


class Answer:
    """A small answer read whole (health, models)."""

    def __init__(self, status_code: int, body: bytes) -> None:
        self.status_code = status_code
        self.body = body

    def json(self) -> Any:
        return json.loads(self.body)


class UpstreamResponse:
    """An upstream answer whose head has arrived; its body is read with :meth:`aiter_raw`
    (framing removed, bytes otherwise as sent). :meth:`aclose` must follow: the connection
    goes back to the pool when the body was read to its end, else it is dropped (an
    unfinished answer: the engine sees its client go)."""

    def __init__(self, upstream: Upstream, conn: Connection, head: ResponseHead,
                 body: BodyReader, first: bytes) -> None:
        self._upstream = upstream
        self._conn: Connection | None = conn
        self.head = head
        self.status_code = head.status
        self.headers = head.headers
        self._body = body
        self._first = first  # body bytes that arrived with the head

    @property
    def receive_buffer_bytes(self) -> int:
        """What the connection's kernel buffer holds at most (SO_RCVBUF as the kernel set it,
        its bookkeeping included): the bytes the engine can have had acknowledged and the
        gateway not read."""
        conn = self._conn
        sock = None if conn is None or conn.transport is None else \
            conn.transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                return int(sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF))
        return 2 * self._upstream.config.upstream_recv_buffer_bytes

    @property
    def origin(self) -> bytes:
        """Where the upstream serves the gateway's paths (:attr:`Upstream.origin`)."""
        return self._upstream.origin

    def header(self, name: bytes) -> str:
        value = self.head.get(name)
        return "" if value is None else value.decode("latin-1")

    async def aiter_raw(self) -> AsyncIterator[bytes]:
        """Each read's body bytes (a read that completes no body bytes yields nothing)."""
        conn, body = self._conn, self._body
        if conn is None:
            return
        timeout = self._upstream.config.upstream_idle_timeout_s
        data = body.feed(self._first) if self._first else b""
        self._first = b""
        while True:
            if data:
                yield data
            if body.done:
                return
            raw = await conn.read(timeout)
            if not raw:
                body.eof()
                return
            data = body.feed(raw)

    def divert(self, take: Callable[[bytes], bool] | None) -> None:
        """While :meth:`aiter_raw` waits for the next read, a read that is exactly one whole
        chunk of the body (what engines write per event) goes to ``take`` (its data, framing
        removed) in the connection's callback, without waking the reader; ``take`` returns
        False to leave it to the reader, or raises for the reader to raise. Anything else
        (a partial or several chunks, the body's end, a close) reaches the reader as before.
        None: every read to the reader."""
        conn = self._conn
        if conn is None:
            return
        if take is None:
            conn.sink = None
            return
        body = self._body

        def sink(raw: bytes) -> bool:
            if not body.at_chunk_start:
                return False
            data = whole_chunk(raw)
            return data is not None and take(data)

        conn.sink = sink

    @property
    def read_whole(self) -> bool:
        """The body was read to its end."""
        return self._body.done

    async def drain(self, timeout_s: float) -> None:
        """Read (and drop) what is left of the body for at most ``timeout_s``: a body read to
        its end leaves a connection that can carry the next request."""
        with contextlib.suppress(Exception):
            async with asyncio.timeout(timeout_s):
                async for _ in self.aiter_raw():
                    pass

    async def aclose(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.sink = None
            self._upstream._release(conn, reusable=self.head.keep_alive and self._body.reusable)


class Upstream:
    """The upstream engine and the pool of keep-alive connections to it (made on first use,
    on the serving event loop)."""

    def __init__(self, config: GatewayConfig) -> None:
        self.config = config
        parts = urlsplit(config.upstream)
        self.host = parts.hostname or ""
        self.port = parts.port or (443 if parts.scheme == "https" else 80)
        self.authority = parts.netloc.rsplit("@", 1)[-1].encode("idna")
        self.prefix = parts.path.rstrip("/").encode()
        #: Where it serves the gateway's paths: scheme, authority and prefix.
        self.origin = f"{parts.scheme}://".encode() + self.authority + self.prefix
        self._tls = parts.scheme == "https"
        self._idle: list[Connection] = []
        self._slots: asyncio.Semaphore | None = None
        #: Connections carrying a request now (a leak when a request has ended).
        self.busy: set[Connection] = set()

    async def open(self, method: str, target: bytes, headers: list[tuple[bytes, bytes]],
                   body: bytes) -> UpstreamResponse:
        """Send the request and return once the upstream's answer head arrived (its body is
        read by the caller, who must ``aclose`` it); :class:`UpstreamUnavailable` when the
        upstream cannot be reached or said nothing in time."""
        cfg = self.config
        request = _request_bytes(method, self.prefix + target, self.authority, headers, body)
        slots = self._semaphore()
        if slots.locked():
            try:
                async with asyncio.timeout(cfg.connect_timeout_s):
                    await slots.acquire()
            except TimeoutError:
                raise UpstreamUnavailable(503, "upstream_busy", "every connection to the "
                                          "upstream is in use; retry shortly") from None
        else:
            await slots.acquire()
        return await self._answer(request, method, slots, self._sent_pooled(request))

    async def begin(self, method: str, target: bytes, headers: list[tuple[bytes, bytes]],
                    body: bytes) -> asyncio.Future[UpstreamResponse]:
        """:meth:`open` as a future. When a connection slot and a pooled connection are free,
        the request is written before this returns, without a task step: the engine starts
        on it while the caller goes on (a new task's first step waits behind every callback
        the loop has ready, at 64 streams most of them chunks). Otherwise all of
        :meth:`open` runs in the future."""
        slots = self._semaphore()
        if slots.locked():
            return asyncio.ensure_future(self.open(method, target, headers, body))
        request = _request_bytes(method, self.prefix + target, self.authority, headers, body)
        await slots.acquire()  # a free slot: taken without waiting
        conn = self._sent_pooled(request)
        started = False

        async def answer() -> UpstreamResponse:
            nonlocal started
            started = True
            return await self._answer(request, method, slots, conn)

        def unstarted(task: asyncio.Future[UpstreamResponse]) -> None:
            if not started:  # cancelled before its first step: nothing released what we took
                if conn is not None:
                    conn.close()
                    self.busy.discard(conn)
                slots.release()

        future = asyncio.ensure_future(answer())
        future.add_done_callback(unstarted)
        return future

    def _semaphore(self) -> asyncio.Semaphore:
        slots = self._slots
        if slots is None:
            slots = self._slots = asyncio.Semaphore(self.config.max_upstream_connections)
        return slots

    def _sent_pooled(self, request: bytes) -> Connection | None:
        """A pooled connection with ``request`` written on it; None when none is idle or the
        one taken was closed under us (nothing was sent: a fresh connection carries it)."""
        conn = self._pooled()
        if conn is None:
            return None
        try:
            conn.write(request)
        except UpstreamBroken:
            conn.close()
            self.busy.discard(conn)
            return None
        return conn

    async def _answer(self, request: bytes, method: str, slots: asyncio.Semaphore,
                      sent: Connection | None) -> UpstreamResponse:
        """The answer head of ``request``, already written on ``sent`` (a pooled connection)
        or, when None, sent on a new connection. The slot is released on failure."""
        conn = sent
        try:
            if conn is not None:
                try:
                    return await self._head(conn, method)
                except _Stale:
                    # A pooled connection the engine closed as we sent on it (its idle
                    # timeout raced ours): no answer began, so the request goes once more.
                    conn.close()
                    self.busy.discard(conn)
            conn = await self._connect()
            try:
                return await self._exchange(conn, request, method)
            except _Stale as exc:
                raise UpstreamBroken(str(exc)) from None
        except BaseException as exc:
            if conn is not None:
                conn.close()
                self.busy.discard(conn)
            slots.release()
            raise _unavailable(exc) from None

    async def get(self, path: str, timeout_s: float) -> Answer | None:
        """A small GET (health, models), read whole; None when it fails."""
        try:
            async with asyncio.timeout(timeout_s):
                response = await self.open("GET", path.encode(), [(b"accept", b"*/*")], b"")
                try:
                    parts = []
                    size = 0
                    async for data in response.aiter_raw():
                        size += len(data)
                        if size > self.config.max_event_bytes:
                            return None
                        parts.append(data)
                finally:
                    await response.aclose()
        except (UpstreamUnavailable, UpstreamBroken, UpstreamTimeout, TimeoutError):
            return None
        return Answer(response.status_code, b"".join(parts))

    async def aclose(self) -> None:
        for conn in [*self._idle, *self.busy]:
            conn.close()
        self._idle.clear()
        self.busy.clear()

    # --- the pool ---------------------------------------------------------------------------
    def _pooled(self) -> Connection | None:
        """The most recently used idle connection that is still good."""
        idle, now = self._idle, time.monotonic()
        while idle:
            conn = idle.pop()
            if conn.usable and now - conn.idle_since < KEEPALIVE_EXPIRY_S:
                self.busy.add(conn)
                return conn
            conn.close()
        return None

    def _release(self, conn: Connection, *, reusable: bool) -> None:
        self.busy.discard(conn)
        if reusable and conn.usable:
            conn.rest()
            conn.idle_since = time.monotonic()
            self._idle.append(conn)
            idle = self._idle
            while idle and conn.idle_since - idle[0].idle_since >= KEEPALIVE_EXPIRY_S:
                idle.pop(0).close()  # the oldest, unused for too long
        else:
            conn.close()
        if self._slots is not None:
            self._slots.release()

    async def _connect(self) -> Connection:
        cfg = self.config
        loop = asyncio.get_running_loop()
        async with asyncio.timeout(cfg.connect_timeout_s):
            try:  # an address needs no resolver (whose call runs on a thread)
                infos = socket.getaddrinfo(self.host, self.port, type=socket.SOCK_STREAM,
                                           flags=socket.AI_NUMERICHOST)
            except socket.gaierror:
                infos = await loop.getaddrinfo(self.host, self.port, type=socket.SOCK_STREAM)
            failure: OSError = ConnectionRefusedError()
            for family, kind, proto, _, address in infos:
                sock = socket.socket(family, kind, proto)
                try:
                    # bounded before the connection opens (the window scale is agreed then);
                    # no Nagle: a request's head and body leave at once
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF,
                                    cfg.upstream_recv_buffer_bytes)
                    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                    sock.setblocking(False)
                    await loop.sock_connect(sock, address)
                except OSError as exc:
                    sock.close()
                    failure = exc
                    continue
                except BaseException:
                    sock.close()
                    raise
                _, conn = await loop.create_connection(
                    Connection, sock=sock, ssl=_tls_context() if self._tls else None,
                    server_hostname=self.host if self._tls else None)
                self.busy.add(conn)
                return conn
            raise failure

    async def _exchange(self, conn: Connection, request: bytes,
                        method: str) -> UpstreamResponse:
        """Write the request and read the answer's head."""
        try:
            conn.write(request)
        except UpstreamBroken as exc:  # closed under us: nothing was sent
            raise _Stale(str(exc)) from None
        return await self._head(conn, method)

    async def _head(self, conn: Connection, method: str) -> UpstreamResponse:
        """The answer's head, read once the request was written (1xx interim answers
        skipped)."""
        timeout = self.config.upstream_idle_timeout_s
        buf = b""
        received = False
        while True:
            try:
                data = await conn.read(timeout)
            except UpstreamBroken as exc:
                raise (_Stale(str(exc)) if not received else exc) from None
            if not data:
                if not received:
                    raise _Stale("the connection closed before an answer")
                raise UpstreamBroken("the connection closed inside the answer's head")
            received = True
            head, buf = _final_head(buf + data)
            if head is not None:
                return UpstreamResponse(self, conn, head, BodyReader(head, method), buf)
            if len(buf) > MAX_HEAD_BYTES:
                raise UpstreamBroken("an answer head longer than the gateway reads")


def _final_head(buf: bytes) -> tuple[ResponseHead | None, bytes]:
    """The final answer head that ``buf`` completes and the bytes after it, or None and the
    bytes still to complete. Interim heads (100 Continue, 103 Early Hints), any number of
    them, are skipped without losing what follows them: an engine's final answer often
    arrives in the same read as its 100 Continue."""
    while (end := buf.find(b"\r\n\r\n")) >= 0:
        head = parse_head(buf[:end])
        buf = buf[end + 4:]
        if head.status == 101:
            raise UpstreamBroken("the upstream switched protocols")
        if not 100 <= head.status < 200:
            return head, buf
    return None, buf


class _Stale(Exception):
    """A reused connection failed before any byte of the answer arrived."""


def _request_bytes(method: str, target: bytes, authority: bytes,
                   headers: list[tuple[bytes, bytes]], body: bytes) -> bytes:
    lines = [method.encode("ascii"), b" ", target, b" HTTP/1.1\r\nhost: ", authority, b"\r\n"]
    for name, value in headers:
        lines += (name, b": ", value, b"\r\n")
    if body or method not in ("GET", "HEAD", "DELETE", "OPTIONS"):
        lines += (b"content-length: ", str(len(body)).encode(), b"\r\n")
    lines += (b"\r\n", body)
    return b"".join(lines)


def _unavailable(exc: BaseException) -> BaseException:
    """What an upstream that could not be asked means for the client."""
    if isinstance(exc, UpstreamUnavailable | asyncio.CancelledError) or not isinstance(
            exc, Exception):
        return exc
    if isinstance(exc, UpstreamTimeout):
        return UpstreamUnavailable(504, "upstream_timeout",
                                   "the upstream did not answer in time")
    if isinstance(exc, UpstreamBroken):
        return UpstreamUnavailable(502, "upstream_error",
                                   f"the upstream failed before answering ({exc})")
    if isinstance(exc, TimeoutError | OSError):
        why = "ConnectTimeout" if isinstance(exc, TimeoutError) else type(exc).__name__
        return UpstreamUnavailable(502, "upstream_unavailable",
                                   f"the upstream cannot be reached ({why}); retry shortly")
    return exc


_TLS: list[ssl.SSLContext] = []


def _tls_context() -> ssl.SSLContext:
    if not _TLS:
        _TLS.append(ssl.create_default_context())
    return _TLS[0]
