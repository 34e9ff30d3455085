"""What one client connection may cost: body size, head and body read deadlines, idle
keep-alive, connection count, and error logs that cannot flood.

:func:`uvicorn_settings` turns an :class:`~.config.HttpLimits` into the settings of the ASGI
server (one place, so any HTTP front end applies the same fields); :class:`BodyLimit` is the
ASGI half (413 on ``Content-Length`` before the body is read; :func:`read_body` cuts a chunked
body off at the limit). Every refusal is an OpenAI-shaped JSON error and is reported through
``on_reject(reason)`` (the transport counts it in ``servescope_requests_rejected_total``).
"""

from __future__ import annotations

import asyncio
import http
import json
import logging
import re
import socket
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Protocol

from ..config import HttpLimits
from . import openai_schema as schema
from .connections import PEER_KEY

__all__ = [
    "ABORT_KEY",
    "PARSERS",
    "TRACE_HEADERS",
    "ConnectionLedger",
    "RateLimitedLog",
    "RequestLimits",
    "default_parser",
    "install_error_log_limits",
    "protocol_class",
    "read_body",
    "trace_carrier",
    "uvicorn_settings",
]

_log = logging.getLogger("servescope.reference.transport.limits")


class OnReject(Protocol):
    """Counts a request refused before a handler: its reason, and the W3C trace headers it
    carried when its head was read (the rejection's span joins the caller's trace)."""

    def __call__(self, reason: str, carrier: dict[str, str] | None = None) -> None: ...


#: Headers passed to the tracer as the W3C carrier (never the rest: it may hold credentials).
TRACE_HEADERS = ("traceparent", "tracestate")
_TRACE_HEADER_NAMES = tuple(name.encode() for name in TRACE_HEADERS)


def trace_carrier(scope: Scope) -> dict[str, str]:
    """The W3C trace headers of a request's head, as the tracer reads them."""
    return {name.decode(): value.decode("latin-1") for name, value in scope.get("headers", ())
            if name in _TRACE_HEADER_NAMES}

#: Called with each accepted connection's transport (socket options of the caller's own).
OnConnection = Callable[[asyncio.Transport], None]
Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]
#: The scope key where the connection guard leaves why it cut a request off mid-body.
ABORT_KEY = "servescope.abort"
#: Paths an over-the-cap connection may still ask for.
HEALTH_PATHS = frozenset({"/healthz", "/health"})
#: How a health check's request starts: a connection past the reserve whose first bytes say
#: so (within ``HEALTH_PEEK_S``) is still let in, up to twice the reserve, so a burst of
#: attackers cannot crowd it out.
HEALTH_HEADS = (b"GET /healthz ", b"GET /health ", b"HEAD /healthz ", b"HEAD /health ")
HEALTH_PEEK_S = 0.2
#: A connection younger than this that has not finished a request is never evicted.
EVICTION_GRACE_S = 0.1
#: The same for a health-check connection past the cap: none, since a connection whose head
#: already waits in the kernel is never taken for idle.
OVERFLOW_GRACE_S = 0.0
#: What a request that asks to switch protocols (``Connection: upgrade``) is answered: this
#: server speaks plain HTTP only, and a switched connection would leave the guard's count.
UPGRADE_REFUSED = "upgrade_refused"
#: CONNECT asks for a tunnel (a forward proxy's method, which llhttp reads as an upgrade):
#: refused as a method this server does not serve.
CONNECT_REFUSED = ("method_not_allowed",
                   "CONNECT is not served: this server is no forward proxy")
UPGRADE_MESSAGE = "this server does not switch protocols (Upgrade is refused); send the " \
                  "request again without 'Connection: upgrade'"
#: Loggers whose repeated records are rate-limited (one per kind per interval).
#: The HTTP/1.1 parsers the guarded protocol runs on (uvicorn's two).
PARSERS = ("httptools", "h11")
NOISY_LOGGERS = ("uvicorn.error", "asyncio", "servescope.reference.transport.server",
                 "servescope.reference.transport.limits")


class ConnectionLedger:
    """Every connection a guarded server accepted is either open or counted closed: the
    protocol object counts both ends itself (``connection_made``/``connection_lost``), and
    never hands its socket to another protocol, so no protocol switch can take a connection
    out of the count (``accepted == closed + open`` always holds)."""

    def __init__(self) -> None:
        self.accepted = 0
        self.closed = 0
        self.upgrades_refused = 0

    @property
    def open(self) -> int:
        return self.accepted - self.closed

    def snapshot(self) -> dict[str, int]:
        return {"accepted": self.accepted, "closed": self.closed, "open": self.open,
                "upgrades_refused": self.upgrades_refused}


class Registry(Protocol):
    def add(self, server: Any, client: Any, transport: asyncio.Transport) -> None: ...
    def discard(self, server: Any, client: Any) -> None: ...


# --- logs ------------------------------------------------------------------------------------
class RateLimitedLog(logging.Filter):
    """Lets one record per kind (logger, message template, exception type) through per
    interval; the next one that passes says how many were suppressed meanwhile."""

    MAX_KINDS = 512

    def __init__(self, interval_s: float = 10.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.interval_s = interval_s
        self.clock = clock
        self._windows: dict[tuple[str, str, str], list[float]] = {}
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[0].__name__ if record.exc_info and record.exc_info[0] else ""
        key = (record.name, str(record.msg)[:200], exc)
        now = self.clock()
        with self._lock:
            window = self._windows.get(key)
            if window is not None and now - window[0] < self.interval_s:
                window[1] += 1
                return False
            if len(self._windows) >= self.MAX_KINDS:
                self._windows.clear()
            self._windows[key] = [now, 0]
        suppressed = int(window[1]) if window is not None else 0
        if suppressed:
            record.msg = f"{record.msg} [{suppressed} more like this suppressed in the last " \
                         f"{self.interval_s:g} s]"
        return True


def install_error_log_limits(interval_s: float) -> None:
    """One :class:`RateLimitedLog` on each noisy logger (idempotent; the shortest interval
    asked for wins)."""
    for name in NOISY_LOGGERS:
        logger = logging.getLogger(name)
        found = [f for f in logger.filters if isinstance(f, RateLimitedLog)]
        if found:
            found[0].interval_s = min(found[0].interval_s, interval_s)
        else:
            logger.addFilter(RateLimitedLog(interval_s))


# --- the body ----------------------------------------------------------------------------------
def _json_bytes(status: int, message: str, code: str) -> bytes:
    type_ = "server_error" if status >= 500 else "invalid_request_error"
    return json.dumps(schema.error_body(message, type_=type_, code=code)).encode()


def too_large_message(limit: int) -> str:
    return f"request body is larger than this server accepts ({limit} bytes)"


class RequestLimits:
    """ASGI middleware: a request head over ``max_header_bytes`` gets 431 (h11 bounds a head
    that arrives in pieces; this bounds one that arrived in a single read), and a declared
    ``Content-Length`` over ``max_body_bytes`` gets 413 before any of the body is read (the
    connection is closed, so the unread body is never parsed). The body limit is left in the
    scope for :func:`read_body`, which enforces it on chunked bodies."""

    def __init__(self, app: App, limits: HttpLimits, on_reject: OnReject) -> None:
        self.app = app
        self.limits = limits
        self.on_reject = on_reject

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":  # a front end that upgraded on its own (hypercorn)
            self.on_reject(UPGRADE_REFUSED)
            await _deny_websocket(scope, send)
            return
        if scope["type"] == "http":
            _origin_form(scope)
            refusal = self._refusal(scope)
            if refusal is not None:
                status, message, code = refusal
                self.on_reject(code, trace_carrier(scope))
                await _send_json(send, status, message, code)
                return
            scope["servescope.max_body_bytes"] = self.limits.max_body_bytes
        await self.app(scope, receive, send)

    def _refusal(self, scope: Scope) -> tuple[int, str, str] | None:
        headers = scope.get("headers", ())
        head = len(scope.get("raw_path", b"")) + sum(len(k) + len(v) + 4 for k, v in headers)
        if head > self.limits.max_header_bytes:
            return (431, f"request head is larger than this server accepts "
                         f"({self.limits.max_header_bytes} bytes)", "header_too_large")
        declared = _content_length(scope)
        if declared is not None and declared > self.limits.max_body_bytes:
            return 413, too_large_message(self.limits.max_body_bytes), "body_too_large"
        return None


async def _deny_websocket(scope: Scope, send: Send) -> None:
    """Refuse a WebSocket handshake with the JSON 400 where the server offers the ASGI denial
    response extension, else with a plain close (the server answers 403)."""
    if "websocket.http.response" in scope.get("extensions", {}):
        body = _json_bytes(400, UPGRADE_MESSAGE, UPGRADE_REFUSED)
        await send({"type": "websocket.http.response.start", "status": 400, "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode())]})
        await send({"type": "websocket.http.response.body", "body": body})
    else:
        await send({"type": "websocket.close", "code": 1008})


def _origin_form(scope: Scope) -> None:
    """An absolute-form target (``POST http://host/v1/completions``, as a forward proxy
    sends it) routed like its origin form: RFC 9112 section 3.2.2 requires servers to accept
    it. uvicorn and hypercorn leave the whole URL in ``path``."""
    path: str = scope.get("path", "")
    if not path.startswith(("http://", "https://")):
        return
    rest = path.split("://", 1)[1]
    origin = "/" + rest.split("/", 1)[1] if "/" in rest else "/"
    scope["path"] = origin
    raw: bytes = scope.get("raw_path") or b""
    raw_rest = raw.split(b"://", 1)[-1]
    scope["raw_path"] = b"/" + raw_rest.split(b"/", 1)[1] if b"/" in raw_rest else b"/"


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            return int(value) if value.isdigit() else None
    return None


async def _send_json(send: Send, status: int, message: str, code: str) -> None:
    body = _json_bytes(status, message, code)
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
        (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


async def read_body(stream: Any, max_bytes: int | None) -> bytes:
    """The request body from ``stream`` (Starlette's ``request.stream()``), refused with a
    413 :class:`~.openai_schema.RequestError` as soon as it passes ``max_bytes``."""
    chunks: list[bytes] = []
    total = 0
    async for chunk in stream:
        total += len(chunk)
        if max_bytes is not None and total > max_bytes:
            raise schema.RequestError(too_large_message(max_bytes), code="body_too_large",
                                      status=413)
        chunks.append(chunk)
    return b"".join(chunks)


# --- the connection ----------------------------------------------------------------------------
def _health_only(app: App, on_reject: OnReject, promote: Callable[[], bool]) -> App:
    """The app as an over-the-cap connection sees it: health checks, else 503; unless
    ``promote`` makes room for its whole request (see ``_promote``)."""

    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and (scope["path"] in HEALTH_PATHS or promote()):
            await app(scope, receive, send)
            return
        on_reject("too_many_connections")
        await _send_json(send, 503, "the server is at its connection limit; retry later",
                         "too_many_connections")

    return guarded


def default_parser() -> str:
    """``httptools`` (llhttp, compiled: a fraction of h11's Python work per request and per
    written chunk) where it is installed, else ``h11``."""
    try:
        import httptools  # noqa: F401
    except ImportError:
        return "h11"
    return "httptools"


def protocol_class(limits: HttpLimits, *, send_buffer_bytes: int | None,
                   on_reject: OnReject, registry: Registry,
                   on_connection: OnConnection | None = None,
                   ledger: ConnectionLedger | None = None,
                   parser: str | None = None) -> type[asyncio.Protocol]:
    """uvicorn's HTTP/1.1 protocol (``parser``: ``httptools`` or ``h11``; None: the
    :func:`default_parser`) with the connection limits of ``limits``: a bounded write
    high-water mark, head and body deadlines, a bounded request head, a connection cap
    (evicting the oldest connection still waiting for a request head first), JSON errors for
    protocol violations, and no protocol switch (an upgrade request gets a counted JSON 400
    and the connection closes; ``ledger`` counts every connection accepted and closed)."""
    parser = parser or default_parser()
    if parser not in PARSERS:
        raise ValueError(f"parser: {parser!r} is not one of {', '.join(PARSERS)}")
    live: dict[Any, None] = {}  # connections served normally, oldest first
    overflow: dict[Any, None] = {}  # past the cap: health checks only
    high = send_buffer_bytes
    book = ledger if ledger is not None else ConnectionLedger()

    class Guard:
        """What both parsers' protocols share; each says which phase its client is in
        (:meth:`_client_phase`) and how it refuses a head (the parser-specific part)."""

        # uvicorn's protocol attributes, set by its own connection_made
        transport: asyncio.Transport
        loop: asyncio.AbstractEventLoop
        app: Any
        cycle: Any
        scope: Any
        server: Any
        client: Any
        _deadline: asyncio.TimerHandle | None = None
        _phase = "head"  # head (awaiting a request head), body, or done
        _opened_at = 0.0
        _served = 0
        _refusal: tuple[str, str] | None = None

        def _tag_peer(self) -> None:
            """Record the connection's own peer in the request's scope (see PEER_KEY)."""
            self.scope[PEER_KEY] = self.client

        def _client_phase(self) -> str:
            """``idle`` (no request, or between requests), ``head`` (a head has started),
            ``body`` (the head is in, the body is not) or ``done`` (the request is in)."""
            raise NotImplementedError

        def connection_made(self, transport: asyncio.Transport) -> None:
            super().connection_made(transport)  # type: ignore[misc]
            book.accepted += 1
            if high is not None:
                transport.set_write_buffer_limits(high=high, low=high // 4)
            if on_connection is not None:
                on_connection(transport)
            registry.add(self.server, self.client, transport)
            self._opened_at = self.loop.time()
            if len(live) < limits.max_connections or _evict_one(live, EVICTION_GRACE_S):
                live[self] = None
                self._arm("head", limits.header_timeout_s)
            elif (len(overflow) < limits.health_reserve_connections
                  or _evict_one(overflow, OVERFLOW_GRACE_S)):
                self._admit_for_health()
            else:  # give a health check's head a moment to arrive before refusing
                transport.pause_reading()
                self.loop.call_later(HEALTH_PEEK_S, self._health_or_refuse)

        def _admit_for_health(self) -> None:
            overflow[self] = None
            self._full_app = self.app
            self.app = _health_only(self.app, on_reject, self._promote)
            self._arm("head", min(limits.header_timeout_s, 1.0))

        def _promote(self) -> bool:
            """A whole request past the cap takes the place of the oldest connection whose
            head is still trickling in (slowloris): a complete request beats half a head.
            Without this, reconnecting slow heads kept the pool full of connections younger
            than the eviction grace, and every client that opened a new connection got 503."""
            if not _evict_one(live, 0.0, trickling_only=True):  # (the reconnecting slow
                return False                                  # heads are all young)
            overflow.pop(self, None)
            live[self] = None
            self.app = getattr(self, "_full_app", self.app)  # its next requests too
            return True

        def _health_or_refuse(self) -> None:
            if self.transport.is_closing():
                return
            waiting = _peek(self.transport, 8192)
            if b"\r\n\r\n" in waiting and not waiting.startswith(HEALTH_HEADS) \
                    and self._promote():
                self._arm("head", limits.header_timeout_s)
                self.transport.resume_reading()
                return
            if len(overflow) < 2 * limits.health_reserve_connections and \
                    waiting.startswith(HEALTH_HEADS):
                self._admit_for_health()
                self.transport.resume_reading()
                return
            on_reject("too_many_connections")
            _log.warning("connection refused: %d connections open (limit %d + %d for health "
                         "checks)", len(live) + len(overflow), limits.max_connections,
                         limits.health_reserve_connections)
            self._answer(503, "the server is at its connection limit; retry later",
                         "too_many_connections")

        def connection_lost(self, exc: Exception | None) -> None:
            book.closed += 1
            live.pop(self, None)
            overflow.pop(self, None)
            self._disarm()
            registry.discard(self.server, self.client)
            super().connection_lost(exc)  # type: ignore[misc]

        def on_response_complete(self) -> None:
            self._served += 1
            super().on_response_complete()  # type: ignore[misc]
            self._track()

        # --- deadlines ----------------------------------------------------------------
        def _track(self) -> None:
            """Re-arm the read deadline for the phase the client is in."""
            if self.transport.is_closing():
                self._disarm()
                return
            state = self._client_phase()
            if state == "body":
                if self._phase != "body":
                    self._arm("body", limits.body_timeout_s)
            elif state == "head":
                if self._phase != "head":
                    self._arm("head", limits.header_timeout_s)
            elif state == "done" and self._phase != "done":
                self._disarm()
                self._phase = "done"

        def _arm(self, phase: str, seconds: float) -> None:
            self._disarm()
            self._phase = phase
            self._deadline = self.loop.call_later(seconds, self._expired)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _expired(self) -> None:
            self._deadline = None
            if self.transport.is_closing():
                return
            if self._phase == "body":
                self._cut_off("body_timeout", 408,
                              f"the request body did not arrive within "
                              f"{limits.body_timeout_s:g} s")
            elif self._client_phase() == "head":  # a head was started and never finished
                on_reject("header_timeout")
                _log.warning("request head incomplete after %g s; connection closed",
                             limits.header_timeout_s)
                self._answer(408, f"the request head did not arrive within "
                                  f"{limits.header_timeout_s:g} s", "header_timeout")
            else:  # opened and never used: close quietly, as for an idle keep-alive
                self.transport.close()

        # --- refused before a request cycle starts --------------------------------------
        def _head_refusal(self, headers: list[tuple[bytes, bytes]], raw_head: bytes,
                          upgrade: bool) -> tuple[str, str] | None:
            """Any upgrade request (WebSocket, h2c, anything) and any ambiguous body framing
            (a smuggling shape) is refused before the app or another protocol sees it."""
            framing = _framing_error(headers, raw_head)
            if framing is not None:
                return "protocol_error", framing
            if upgrade:
                return UPGRADE_REFUSED, UPGRADE_MESSAGE
            return None

        def _refuse(self, refusal: tuple[str, str]) -> None:
            """Answer the refusal and close, never handing the socket to another protocol
            object (whose ``connection_lost`` the guard would never see) and never reading
            what follows on the connection (a smuggled request)."""
            code, message = refusal
            if code == UPGRADE_REFUSED:
                book.upgrades_refused += 1
            self._disarm()
            on_reject(code)
            _log.warning("request refused (%s); connection closed", code)
            self._answer(_REFUSAL_STATUS.get(code, 400), message, code)

        # --- answering ----------------------------------------------------------------
        def _cut_off(self, code: str, status: int, message: str) -> None:
            """End the request in progress: its handler (if running) sees a disconnect and
            counts ``code``; otherwise it is counted here. Then answer and close."""
            cycle = self.cycle
            if cycle is not None and not cycle.response_complete:
                self.scope[ABORT_KEY] = code
                cycle.disconnected = True
                cycle.message_event.set()
                if cycle.response_started:
                    self.transport.close()
                    return
            else:
                on_reject(code)
            self._answer(status, message, code)

        def _answer(self, status: int, message: str, code: str) -> None:
            """The JSON error, written straight to the socket (no response of this
            connection's may follow it: it closes)."""
            body = _json_bytes(status, message, code)
            if not self._may_answer():
                self.transport.close()  # a response was already under way
                return
            reason = http.HTTPStatus(status).phrase
            self.transport.write(
                f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
                f"connection: close\r\ncontent-length: {len(body)}\r\n\r\n".encode() + body)
            self.transport.close()

        def _may_answer(self) -> bool:
            cycle = self.cycle
            return cycle is None or not cycle.response_started or cycle.response_complete

    def _evict_one(pool: dict[Any, None], grace_s: float, *, trickling_only: bool = False
                   ) -> bool:
        """Close the oldest connection of ``pool`` that is waiting for a request head (idle
        keep-alive, or a head still trickling in after ``grace_s``: a client that just
        connected gets that long to send its head; ``trickling_only``: only the latter);
        True when one was closed."""
        now = asyncio.get_running_loop().time()
        phases = ("head",) if trickling_only else ("idle", "head")
        for proto in pool:
            cycle = proto.cycle
            if proto._client_phase() in phases \
                    and (cycle is None or cycle.response_complete) \
                    and (proto._served or now - proto._opened_at >= grace_s) \
                    and not _has_unread(proto.transport):
                pool.pop(proto, None)
                proto._disarm()
                if proto._client_phase() == "head":  # its own reason: no timeout passed
                    on_reject("evicted")
                proto.transport.close()
                _log.warning("connection limit reached: closed the oldest connection waiting "
                             "for a request head")
                return True
        return False

    if parser == "h11":
        return _h11_protocol(Guard, limits)
    return _httptools_protocol(Guard, limits)


def _h11_protocol(guard: type[Any], limits: HttpLimits) -> type[asyncio.Protocol]:
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11Protocol(guard, H11Protocol):  # type: ignore[misc]
        _protocol_error: Exception | None = None
        _raw_head = b""

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._watch_protocol_errors()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._track()

        def _client_phase(self) -> str:
            state = self.conn.their_state
            if state is h11.SEND_BODY:
                return "body"
            if state is h11.IDLE:
                cycle = self.cycle
                if self.conn.trailing_data[0]:
                    return "head"
                return "idle" if cycle is None or cycle.response_complete else "done"
            return "done"

        # uvicorn asks ``_should_upgrade`` once per request head, before it starts the
        # request's cycle, and hands a "yes" to ``handle_websocket_upgrade``: the one place
        # where a head can be refused without the app or another protocol seeing it.
        def _should_upgrade(self) -> bool:
            # h11 bounds a head that arrives in pieces; one that arrives whole is sized here
            self._refusal = _oversized(len(self._raw_head), len(self._request_target()),
                                       limits) or self._head_refusal(
                self.headers, self._raw_head, self._get_upgrade() is not None)
            self._tag_peer()  # (the scope is new: uvicorn made it just now)
            return self._refusal is not None

        def _request_target(self) -> bytes:
            line_end = self._raw_head.find(b"\r\n")
            line = self._raw_head if line_end < 0 else self._raw_head[:line_end]
            parts = line.split(b" ")
            return parts[1] if len(parts) > 2 else b""

        def handle_websocket_upgrade(self, event: h11.Request) -> None:
            assert self._refusal is not None
            self._refuse(self._refusal)

        def _watch_protocol_errors(self) -> None:
            inner = self.conn.next_event

            def next_event() -> Any:
                # h11 merges repeated equal Content-Length headers: keep the raw head so
                # the framing check can still see them
                waiting = self.conn.their_state is h11.IDLE
                raw = self.conn.trailing_data[0] if waiting else b""
                try:
                    event = inner()
                except h11.RemoteProtocolError as exc:
                    self._protocol_error = exc
                    raise
                if waiting and isinstance(event, h11.Request):
                    self._raw_head = raw[:raw.find(b"\r\n\r\n")]
                return event

            self.conn.next_event = next_event  # type: ignore[method-assign]

        def _target_over_limit(self) -> bool:
            """Whether the request target h11 holds so far (in a head it refused as too long,
            still arriving) is over ``max_header_bytes`` alone: 414 then, as for a head that
            arrives whole."""
            line = self.conn.trailing_data[0].split(b"\r\n", 1)[0]
            parts = line.split(b" ", 2)
            return len(parts) > 1 and len(parts[1]) > limits.max_header_bytes

        def send_400_response(self, msg: str) -> None:
            """uvicorn's plain-text 400, as OpenAI-shaped JSON with h11's status (431 for an
            oversized head, 414 when its request target alone is over the limit) and
            counted."""
            exc = self._protocol_error
            hint = int(getattr(exc, "error_status_hint", 400) or 400)
            status = hint if 400 <= hint < 500 else 400  # the client's fault: always a 4xx
            if status == 431 and self._target_over_limit():
                self._cut_off("uri_too_long", 414, _target_too_long(limits))
                return
            code = "header_too_large" if status == 431 else "protocol_error"
            detail = str(exc)[:120] if exc is not None else msg
            self._cut_off(code, status, f"malformed HTTP request: {detail}")

    return GuardedH11Protocol


class _Refused(Exception):
    """Raised from a parser callback: the head is refused, parse nothing more."""


def _httptools_protocol(guard: type[Any], limits: HttpLimits) -> type[asyncio.Protocol]:
    import httptools
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    until_close = _until_close_cycle()

    class GuardedHttpToolsProtocol(guard, HttpToolsProtocol):  # type: ignore[misc]
        """llhttp parses; the guard follows its callbacks for the client's phase and bounds
        the head itself (llhttp has no head limit: bytes that arrive outside a body count
        against ``max_header_bytes`` until the head is complete)."""

        _message = "idle"  # the parser's latest request: idle, head, body or done
        _head_bytes = 0

        def _client_phase(self) -> str:
            message = self._message
            if message == "done":
                cycle = self.cycle
                return "idle" if cycle is None or cycle.response_complete else "done"
            return message

        def data_received(self, data: bytes) -> None:
            self._unset_keepalive_if_required()
            if self._message != "body":
                self._head_bytes += len(data)
                if self._message != "head" and data.startswith(_H2_PREFACE):
                    # llhttp would wait for the rest of HTTP/2's preface (h11 refuses it)
                    self._cut_off("protocol_error", 400, "malformed HTTP request: HTTP/2 "
                                  "prior knowledge on an HTTP/1.1 connection")
                    return
            try:
                self.parser.feed_data(data)
            except httptools.HttpParserUpgrade:  # refused in on_headers_complete: not reached
                self._refuse((UPGRADE_REFUSED, UPGRADE_MESSAGE))
                return
            except httptools.HttpParserError as exc:
                if self._refusal is not None:
                    self._refuse(self._refusal)
                elif self._head_bytes > limits.max_header_bytes:
                    self._head_over_limit()
                else:
                    detail = str(exc)[:120] or type(exc).__name__
                    self._cut_off("protocol_error", 400, f"malformed HTTP request: {detail}")
                return
            if self._message == "head" and self._head_bytes > limits.max_header_bytes:
                self._head_over_limit()
                return
            self._track()

        def _head_over_limit(self) -> None:
            """A head still arriving past ``max_header_bytes``: 414 when the request target
            read so far is over it alone (llhttp hands the URL over as it parses it, so a
            long target that arrives in pieces is told apart as one that arrives whole is),
            else 431."""
            code, message = _oversized(self._head_bytes, len(self.url), limits) or (
                "header_too_large", _head_too_large(limits))
            self._cut_off(code, _REFUSAL_STATUS[code], message)

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._message = "head"

        def on_headers_complete(self) -> None:
            self._message = "body"
            self._head_bytes = 0
            # the head's size where it arrived whole (data_received bounds one in pieces)
            head = len(self.url) + sum(len(k) + len(v) + 4 for k, v in self.headers) + 16
            self._refusal = _oversized(head, len(self.url), limits) or \
                (CONNECT_REFUSED if self.parser.get_method() == b"CONNECT" else None) or \
                _host_error(self.headers, self.parser.get_http_version()) or \
                self._head_refusal(self.headers, b"", self.parser.should_upgrade() or
                                   self._get_upgrade() is not None)
            if self._refusal is not None:
                raise _Refused()  # llhttp stops; data_received answers
            super().on_headers_complete()
            self._tag_peer()
            if self.parser.get_http_version() == "1.0":
                # uvicorn's cycle would frame a streamed answer with chunked coding, which
                # HTTP/1.0 does not have; this one ends it by closing (same state, its send)
                self.cycle.__class__ = until_close

        def on_message_complete(self) -> None:
            self._message = "done"
            super().on_message_complete()

        def send_400_response(self, msg: str) -> None:
            self._cut_off("protocol_error", 400, f"malformed HTTP request: {msg}")

    return GuardedHttpToolsProtocol


_H2_PREFACE = b"PRI * HTTP/2.0"
# A length no answer reaches: an answer delimited by the close is "this long" until its last
# piece, which sets the length left to exactly its own.
_UNBOUNDED = 1 << 62


def _until_close_cycle() -> type[Any]:
    from uvicorn.protocols.http.httptools_impl import RequestResponseCycle

    class UntilClose(RequestResponseCycle):
        """An HTTP/1.0 request's cycle: an answer with neither Content-Length nor
        Transfer-Encoding is delimited by the connection's close (RFC 9112, section 6.3), as
        h11 does; uvicorn's httptools cycle would add chunked coding, which a 1.0 client
        reads as part of the body."""

        _by_close = False

        async def send(self, message: Any) -> None:
            kind = message["type"]
            if kind == "http.response.start" and not self.response_started:
                names = {name.lower() for name, _ in message.get("headers", ())}
                status = message["status"]
                if not names & {b"content-length", b"transfer-encoding"} \
                        and self.scope["method"] != "HEAD" and status >= 200 \
                        and status not in (204, 304):
                    self._by_close, self.keep_alive = True, False
                    self.chunked_encoding, self.expected_content_length = False, _UNBOUNDED
            elif kind == "http.response.body" and self._by_close \
                    and not message.get("more_body", False):
                self.expected_content_length = len(message.get("body", b""))
            await super().send(message)

    return UntilClose


def _host_error(headers: list[tuple[bytes, bytes]], version: str) -> tuple[str, str] | None:
    """An HTTP/1.1 request needs exactly one Host header (RFC 9112 section 3.2: else 400;
    h11 checks it itself, llhttp does not)."""
    hosts = sum(1 for k, _ in headers if k == b"host")
    if hosts > 1 or (hosts == 0 and version == "1.1"):
        return "protocol_error", "malformed HTTP request: a request needs exactly one Host " \
                                 "header"
    return None


def _target_too_long(limits: HttpLimits) -> str:
    return (f"the request target is longer than this server accepts "
            f"({limits.max_header_bytes} bytes)")


def _head_too_large(limits: HttpLimits) -> str:
    return f"request head is larger than this server accepts ({limits.max_header_bytes} bytes)"


#: The status of a refusal by its code (anything else: 400).
_REFUSAL_STATUS = {"header_too_large": 431, "uri_too_long": 414, "method_not_allowed": 405}


def _oversized(head_bytes: int, target_bytes: int, limits: HttpLimits
               ) -> tuple[str, str] | None:
    """A whole head over ``max_header_bytes``: 414 when its request target alone is, else
    431."""
    if target_bytes > limits.max_header_bytes:
        return "uri_too_long", _target_too_long(limits)
    if head_bytes > limits.max_header_bytes:
        return "header_too_large", _head_too_large(limits)
    return None


_CONTENT_LENGTH_LINE = re.compile(rb"(?im)^content-length[ \t]*:")


def _framing_error(headers: list[tuple[bytes, bytes]], raw_head: bytes = b"") -> str | None:
    """Why a request head's body framing is ambiguous (RFC 9112 section 6.3: the server must
    answer 400 and close), or None. ``Content-Length`` beside ``Transfer-Encoding``, more
    than one ``Content-Length`` header (even equal ones), or a transfer coding other than a
    single ``chunked``: a front proxy may frame the body differently, so the bytes after it
    could be read as a second, smuggled request."""
    lengths = [v for k, v in headers if k == b"content-length"]
    codings = [v for k, v in headers if k == b"transfer-encoding"]
    if lengths and codings:
        return "malformed HTTP request: both Content-Length and Transfer-Encoding are set"
    if len(lengths) > 1 or len(_CONTENT_LENGTH_LINE.findall(raw_head)) > 1:
        return "malformed HTTP request: more than one Content-Length header"
    if codings and (len(codings) > 1 or codings[0].strip().lower() != b"chunked"):
        return f"malformed HTTP request: unsupported Transfer-Encoding{_shown_codings(codings)} " \
               f"(only a single 'chunked' is accepted)"
    return None


# The transfer codings HTTP registers: a value made of these is echoed; anything else a client
# sent is not (the answer goes back through proxies' and SDKs' error logs).
_CODINGS = frozenset((b"chunked", b"compress", b"deflate", b"gzip", b"x-gzip", b"x-compress",
                      b"identity", b"br", b"zstd", b"trailers"))


def _shown_codings(codings: list[bytes]) -> str:
    tokens = [t.strip().lower() for v in codings for t in v.split(b",")]
    if len(tokens) > 8 or not all(t in _CODINGS for t in tokens):
        return ""
    return " " + repr(", ".join(t.decode("ascii") for t in tokens))


def _peek(transport: asyncio.Transport, n: int = 16) -> bytes:
    """Up to ``n`` bytes waiting in the kernel for this connection, left there. Peeks through
    a duplicate descriptor, so the transport's own socket is left alone."""
    sock = transport.get_extra_info("socket")
    if sock is None:
        return b""
    try:
        with socket.fromfd(sock.fileno(), socket.AF_INET, socket.SOCK_STREAM) as dup:
            return dup.recv(n, socket.MSG_PEEK | socket.MSG_DONTWAIT)
    except OSError:  # nothing to read (EAGAIN), or the connection is gone
        return b""


def _has_unread(transport: asyncio.Transport) -> bool:
    """Whether bytes wait in the kernel for this connection (a request head that arrived but
    was not read yet: such a connection is not idle)."""
    return bool(_peek(transport, 1))


def hypercorn_settings(limits: HttpLimits) -> dict[str, Any]:
    """The ``hypercorn.config.Config`` attributes that apply ``limits`` (``serve --http2``).
    Bodies are bounded by :class:`RequestLimits` there too; head and body deadlines and the
    connection cap are uvicorn's (hypercorn's ``read_timeout`` would also cut off a long
    HTTP/1.1 stream whose client sends nothing, so it is left unset)."""
    install_error_log_limits(limits.error_log_interval_s)
    return {"h11_max_incomplete_size": limits.max_header_bytes,
            "h2_max_header_list_size": limits.max_header_bytes,
            "keep_alive_timeout": limits.keep_alive_timeout_s}


def uvicorn_settings(limits: HttpLimits, *, send_buffer_bytes: int | None,
                     on_reject: OnReject, registry: Registry,
                     on_connection: OnConnection | None = None,
                     ledger: ConnectionLedger | None = None,
                     parser: str | None = None) -> dict[str, Any]:
    """The ``uvicorn.Config`` keyword arguments that apply ``limits`` (and rate-limit the
    loggers that would otherwise log once per bad connection)."""
    install_error_log_limits(limits.error_log_interval_s)
    return {
        "http": protocol_class(limits, send_buffer_bytes=send_buffer_bytes,
                               on_reject=on_reject, registry=registry,
                               on_connection=on_connection, ledger=ledger, parser=parser),
        # no WebSocket protocol at all: the guarded protocol refuses upgrades itself
        "ws": "none",
        "h11_max_incomplete_event_size": limits.max_header_bytes,
        "timeout_keep_alive": limits.keep_alive_timeout_s,
    }
