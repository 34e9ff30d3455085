"""The gateway's routes: measured generation, its own health and metrics, the rest passed on.

``POST /v1/completions`` and ``POST /v1/chat/completions`` are measured (also spelled without
``/v1``, with repeated or trailing slashes or in other letter case): the arrival is
counted when the request head arrives (a W3C ``traceparent`` makes the request span a child of
the caller's trace), the body is read within the reference server's limits and forwarded
unchanged, and the upstream's answer is relayed by :class:`~.relay.Relay`. An answer that is
not 2xx is passed on unchanged and counted as a rejection (reason ``http_<status>``); an
upstream that cannot be asked gets the gateway's own OpenAI-shaped 502/503/504 with
``Retry-After`` (reason ``upstream_unavailable``, ``upstream_busy``, ``upstream_timeout``,
``upstream_error``). A client that leaves while the upstream is still preparing its answer
cancels the upstream request.

``GET /healthz``: the gateway is up. ``GET /readyz``: the upstream's own health check
(the flavor's path) answers 2xx, else 503 with ``Retry-After``. ``GET /metrics``: the
gateway's series (OpenMetrics with exemplars when asked). Every other path (``/v1/models``,
``/health``, ...) is passed to the upstream and back unchanged, unmeasured.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, MutableMapping
from typing import Any

from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from servescope.instrumentation.endpoints import shown_url
from servescope.instrumentation.metrics import render
from servescope.instrumentation.request_recorder import RequestRecorder
from servescope.instrumentation.status import FinishReason
from servescope.instrumentation.telemetry import Telemetry
from servescope.reference.transport import limits as guard
from servescope.reference.transport import openai_schema as schema
from servescope.reference.transport.connections import Connections

from .commits import Commits
from .config import GatewayConfig
from .fields import request_fields
from .paths import measured_operation
from .relay import Relay, RelaySettings
from .upstream import (
    Answer,
    Upstream,
    UpstreamResponse,
    UpstreamUnavailable,
    forward_headers,
    response_headers,
)

__all__ = ["GatewayApp", "create_gateway_app"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

_log = logging.getLogger("servescope.gateway")
#: How often the upstream's model list may be asked again when a request names a model it
#: did not list.
MODELS_REFRESH_S = 30.0
#: ... and how soon after an ask that failed (an engine still loading its model).
MODELS_RETRY_S = 1.0
_ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
_READ_HEADERS = frozenset(name.encode() for name in (
    *guard.TRACE_HEADERS, schema.PRIORITY_HEADER, schema.DEADLINE_HEADER))


class _Models:
    """The model ids the upstream serves (``GET /v1/models``) that the PII check passes: the
    only request ``model`` values that become label values (anything else takes the
    configured name)."""

    def __init__(self, upstream: Upstream, telemetry: Telemetry, default: str,
                 timeout_s: float) -> None:
        self.upstream = upstream
        self.telemetry = telemetry
        self.default = default
        self.timeout_s = timeout_s
        self.known: frozenset[str] = frozenset()
        self.learnt = False  # a model list has been read
        self._refused = 0  # listed names the PII check refused (logged when it changes)
        self._asked_at = -MODELS_REFRESH_S
        self._task: asyncio.Task[None] | None = None

    def label(self, model: object) -> str:
        if isinstance(model, str) and model in self.known:
            return model
        if isinstance(model, str) and time.monotonic() - self._asked_at > MODELS_REFRESH_S:
            self.refresh_soon()
        return self.default

    async def until_learnt(self) -> None:
        """Ask the upstream for its model list until it gives one: every
        :data:`MODELS_RETRY_S` at first, backing off to ten times that."""
        delay = MODELS_RETRY_S
        while not self.learnt:
            await asyncio.sleep(delay)
            with contextlib.suppress(Exception):
                await self.refresh()
            delay = min(delay * 2, 10 * MODELS_RETRY_S)

    def refresh_soon(self) -> None:
        if self._task is None or self._task.done():
            self._asked_at = time.monotonic()
            self._task = asyncio.get_running_loop().create_task(self.refresh())

    async def refresh(self) -> None:
        self._asked_at = time.monotonic()
        response = await self.upstream.get("/v1/models", self.timeout_s)
        listed = _listed(response) if response is not None and response.status_code == 200 \
            else None
        if listed is None:  # not (yet) a model list: what was learnt before stays
            self._asked_at -= MODELS_REFRESH_S - MODELS_RETRY_S  # and the next ask is soon
            return
        self.learnt = True
        # the engine's served names are configuration: labels and spans keep them, except a
        # name with PII in it (an adapter named after a person), which stays unlisted
        self.known = self.telemetry.declare_models(listed)
        refused = len(listed - self.known)
        if refused and refused != self._refused:
            _log.warning("%d model name(s) the upstream lists look like personal data: their "
                         "requests are labelled model=%r", refused, self.default)
        self._refused = refused


def _listed(response: Answer) -> frozenset[str] | None:
    """The model ids of a ``/v1/models`` answer, and each one's ``aliases`` (llama.cpp lists
    the names it serves with ``-a`` under one id); None when it is not such an answer."""
    with contextlib.suppress(ValueError, TypeError, AttributeError, RecursionError):
        data = response.json().get("data", [])
        names: set[str] = set()
        for m in data:
            if not isinstance(m, dict):
                continue
            if isinstance(m.get("id"), str):
                names.add(m["id"])
            aliases = m.get("aliases")
            if isinstance(aliases, list):
                names.update(a for a in aliases if isinstance(a, str))
        return frozenset(names)
    return None


class _Gateway:
    def __init__(self, config: GatewayConfig, telemetry: Telemetry,
                 connections: Connections | None) -> None:
        self.config = config
        self.telemetry = telemetry
        self.upstream = Upstream(config)
        self.models = _Models(self.upstream, telemetry, config.model_name, config.connect_timeout_s)
        self.settings = RelaySettings(
            limits=config.http, slow_consumer_timeout_s=config.slow_consumer_timeout_s,
            max_event_bytes=config.max_event_bytes, connections=connections,
            clock=telemetry.clock, commits=Commits(telemetry))

    # --- measured generation ------------------------------------------------------------
    async def generate(self, scope: Scope, receive: Receive, send: Send,
                       operation: str) -> None:
        """A measured request, as a raw ASGI exchange (no routing or middleware per chunk)."""
        arrival = self.telemetry.clock()
        rid = f"gw-{os.urandom(16).hex()}"  # (uuid4 builds a UUID object to print it)
        headers = _wanted_headers(scope["headers"])
        carrier = {k: headers[k] for k in guard.TRACE_HEADERS if k in headers}
        try:
            body = await guard.read_body(_body(receive), scope.get("servescope.max_body_bytes"))
        except schema.RequestError as err:
            self._arrived(rid, carrier, operation, arrival).rejected(err.rejection_reason)
            await _error(err.status, err.body(), close=True)(scope, receive, send)
            return
        except ClientDisconnect:  # the body never arrived whole: nobody is left to answer
            reason = scope.get(guard.ABORT_KEY, "client_disconnected")
            self._arrived(rid, carrier, operation, arrival).rejected(reason)
            await Response(status_code=400)(scope, receive, send)
            return
        fields = request_fields(body)
        recorder = self._arrived(rid, carrier, operation, arrival,
                                 self.models.label(fields.get("model")), _priority(fields,
                                                                                  headers))
        try:
            schema.control_headers_once(scope["headers"])
            deadline_s = _deadline(fields, headers, self.config.default_deadline_s)
        except schema.RequestError as err:  # refused here, as the reference server would
            recorder.rejected(err.rejection_reason)
            await _error(err.status, err.body())(scope, receive, send)
            return
        deadline_at = None if deadline_s is None else arrival + deadline_s
        upstream_headers = forward_headers(scope["headers"], recorder.trace_context)
        opening = await self.upstream.begin(scope["method"], _target(scope), upstream_headers,
                                            body)
        outcome = await self._answer_head(opening, receive, deadline_at)
        if isinstance(outcome, UpstreamResponse):
            answer = self._relay(recorder, outcome, deadline_at)
        else:
            answer = self._refused(recorder, outcome)
        await answer(scope, receive, send)

    def _arrived(self, rid: str, carrier: Mapping[str, str], operation: str, arrival: float,
                 model: str | None = None, priority: str = "default") -> RequestRecorder:
        return self.telemetry.request(rid, model=model, priority=priority, carrier=carrier,
                                      arrival=arrival, operation=operation)

    async def _answer_head(self, opening: asyncio.Future[UpstreamResponse], receive: Receive,
                           deadline_at: float | None) -> UpstreamResponse | BaseException | str:
        """The upstream's answer head; the reason it never came (an exception), or
        ``"client_cancel"`` / ``"deadline"`` when the client left or the deadline passed
        first (the upstream request is then cancelled: its connection closes)."""
        gone: asyncio.Future[None] = asyncio.ensure_future(_disconnected(receive))
        timeout = None if deadline_at is None else max(0.0, deadline_at -
                                                         self.telemetry.clock())
        try:
            done, _ = await asyncio.wait((opening, gone), timeout=timeout,
                                         return_when=asyncio.FIRST_COMPLETED)
        finally:
            gone.cancel()
        if opening in done:
            exc = opening.exception()
            return exc if exc is not None else opening.result()
        opening.cancel()
        with contextlib.suppress(BaseException):
            await opening
        return "client_cancel" if gone in done else "deadline"

    def _relay(self, recorder: RequestRecorder, response: UpstreamResponse,
               deadline_at: float | None) -> Response | Relay:
        status = response.status_code
        if not 200 <= status < 300:  # the upstream refused: its answer, unchanged
            recorder.rejected(f"http_{status}")
            return _passthrough(response)
        recorder.admitted()
        return Relay(recorder, response, self.settings, deadline_at=deadline_at)

    def _refused(self, recorder: RequestRecorder, outcome: BaseException | str) -> Response:
        if outcome == "client_cancel":
            recorder.finish(FinishReason.CLIENT_CANCEL)
            return Response(status_code=499)
        if outcome == "deadline":
            recorder.finish(FinishReason.DEADLINE)
            return _error(504, schema.error_body(
                "the request's deadline passed before the upstream answered",
                type_="server_error", code="deadline_exceeded"))
        if isinstance(outcome, str):
            raise AssertionError(outcome)
        if not isinstance(outcome, UpstreamUnavailable):
            _log.error("upstream request failed", exc_info=outcome)
            outcome = UpstreamUnavailable(502, "upstream_error", "the upstream request failed")
        recorder.rejected(outcome.code)
        return _error(outcome.status, outcome.body(),
                      retry_after=self.config.retry_after_s)

    # --- the rest -----------------------------------------------------------------------
    async def passthrough(self, request: Request) -> Response:
        target = _target(request.scope)
        body = await request.body()
        try:
            response = await self.upstream.open(request.method, target,
                                                forward_headers(request.scope["headers"], None),
                                                body)
        except UpstreamUnavailable as exc:
            return _error(exc.status, exc.body(), retry_after=self.config.retry_after_s)
        return _passthrough(response)

    async def healthz(self, request: Request) -> Response:
        return JSONResponse({"status": "ok", "upstream": shown_url(self.config.upstream),
                             "flavor": self.config.flavor})

    async def readyz(self, request: Request) -> Response:
        path = self.config.upstream_flavor.health_path
        response = await self.upstream.get(path, self.config.connect_timeout_s)
        if response is not None and 200 <= response.status_code < 300:
            if not self.models.learnt:  # the engine came up after the gateway: learn its
                self.models.refresh_soon()  # names now, not at a request's next ask
            return JSONResponse({"status": "ready",
                                 "upstream": shown_url(self.config.upstream)})
        status = "unreachable" if response is None else f"answered {response.status_code}"
        return _error(503, schema.error_body(f"the upstream is not ready ({status})",
                                             type_="server_error", code="upstream_unavailable"),
                      retry_after=self.config.retry_after_s)

    async def metrics(self, request: Request) -> Response:
        data, content_type = render(self.telemetry.registry, request.headers.get("accept"))
        return Response(data, media_type=content_type)

    def reject_connection(self, reason: str, carrier: dict[str, str] | None = None) -> None:
        """A request refused before it reached a handler (the connection guard's), in the
        caller's trace when its head named one."""
        self.telemetry.request(f"conn-{os.urandom(16).hex()}", operation="http",
                               carrier=carrier or None).rejected(reason)


async def _disconnected(receive: Receive) -> None:
    """Returns when the client disconnects (the body has been read)."""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return


async def _body(receive: Receive) -> AsyncIterator[bytes]:
    """The request body's pieces; :class:`ClientDisconnect` if the client leaves first."""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientDisconnect()
        yield message.get("body", b"")
        if not message.get("more_body", False):
            return


def _target(scope: Scope) -> bytes:
    """The request target as the client sent it (path and query, undecoded)."""
    path: bytes = scope.get("raw_path") or scope["path"].encode()
    query: bytes = scope.get("query_string", b"")
    return path + b"?" + query if query else path


def _wanted_headers(raw: Iterable[tuple[bytes, bytes]]) -> dict[str, str]:
    """The few request headers the gateway reads itself."""
    wanted: dict[str, str] = {}
    for name, value in raw:
        if name in _READ_HEADERS:
            wanted.setdefault(name.decode("latin-1"), value.decode("latin-1"))
    return wanted


def _passthrough(response: UpstreamResponse) -> Response:
    """The upstream's answer, streamed back unchanged; its connection closes with it."""

    async def body() -> AsyncIterator[bytes]:
        try:
            async for chunk in response.aiter_raw():
                yield chunk
        finally:
            await response.aclose()

    return StreamingResponse(body(), status_code=response.status_code,
                             headers=_header_map(response), background=BackgroundTask(
                                 response.aclose))


def _header_map(response: UpstreamResponse) -> Headers:
    """The upstream's headers as the client gets them, every copy of a repeated one in order
    (Set-Cookie, WWW-Authenticate, Link: a dict would keep the last)."""
    return Headers(raw=response_headers(response.headers, keep_length=True,
                                        origin=response.origin))


def _priority(fields: Mapping[str, Any], headers: Mapping[str, str]) -> str:
    value = headers.get(schema.PRIORITY_HEADER, fields.get("priority"))
    if isinstance(value, bool) or not isinstance(value, str | int):
        return "default"
    return str(value).lower()[:64]  # the label guard checks shape and PII, and folds


def _deadline(fields: Mapping[str, Any], headers: Mapping[str, str],
              default: float | None) -> float | None:
    """The request's deadline as the reference server reads it (:class:`RequestError` for
    one that is not a positive number of seconds), else the configured default."""
    seconds = schema.deadline_of(fields, headers)
    return default if seconds is None else seconds


_STATUS_CODES = {404: "not_found", 405: "method_not_allowed"}


async def _http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own refusals (TRACE and CONNECT are not forwarded: 405) as the OpenAI
    shape every other error has, with their headers (a 405's Allow)."""
    assert isinstance(exc, HTTPException)
    # (the path is not echoed: it may hold anything a client put there)
    code = _STATUS_CODES.get(exc.status_code, str(exc.status_code))
    body = schema.error_body(f"{request.method}: {exc.detail}", type_="invalid_request_error",
                             code=code)
    return JSONResponse(body, status_code=exc.status_code, headers=exc.headers)


def _error(status: int, body: dict[str, Any], *, retry_after: int | None = None,
           close: bool = False) -> JSONResponse:
    headers = {}
    if retry_after is not None:
        headers["retry-after"] = str(retry_after)
    if close:
        headers["connection"] = "close"
    return JSONResponse(body, status_code=status, headers=headers or None)


class GatewayApp:
    """The gateway's ASGI app: the connection guard (``reference/transport/limits.py``) in front of
    everything; behind it, the measured routes straight to their handler and the rest to a
    Starlette app (health, metrics, passthrough, the lifespan). A chunk then passes no
    routing or middleware ``send`` wrappers: the relay writes to the server's ``send``."""

    def __init__(self, gateway: _Gateway, rest: Starlette) -> None:
        self.gateway = gateway
        self.rest = rest
        self.state = rest.state
        self._guarded = guard.RequestLimits(self._dispatch, limits=gateway.config.http,
                                            on_reject=gateway.reject_connection)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.rest(scope, receive, send)
        else:
            await self._guarded(scope, receive, send)

    async def _dispatch(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST":
            operation = measured_operation(scope["path"])
            if operation is not None:
                await self.gateway.generate(scope, receive, send, operation)
                return
        await self.rest(scope, receive, send)


def create_gateway_app(config: GatewayConfig, telemetry: Telemetry, *,
                       connections: Connections | None = None) -> GatewayApp:
    """The gateway's ASGI app. ``connections``: the registry of the server that runs it
    (``serving.py``), for delivery by acknowledgement; None: delivered falls back to
    written (and the delivery gauge says so)."""
    from servescope.reference.transport import delivery

    g = _Gateway(config, telemetry, connections)
    telemetry.delivery_confirmation(connections is not None
                                    and delivery.acknowledgements_supported())

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        with contextlib.suppress(Exception):
            await g.models.refresh()
        # an engine still loading its model: ask until it lists one, not only when a request
        # comes (whose model the answer would come too late to label)
        learning = None if g.models.learnt else asyncio.create_task(g.models.until_learnt())
        yield
        if learning is not None:
            learning.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await learning
        await g.upstream.aclose()

    routes = [
        Route("/healthz", g.healthz, methods=["GET"]),
        Route("/readyz", g.readyz, methods=["GET"]),
        Route("/metrics", g.metrics, methods=["GET"]),
        Route("/{path:path}", g.passthrough, methods=_ALL_METHODS),
    ]
    rest = Starlette(routes=routes, lifespan=lifespan,
                     exception_handlers={HTTPException: _http_error})
    rest.state.http_limits = config.http
    rest.state.reject_connection = g.reject_connection
    rest.state.gateway = g
    return GatewayApp(g, rest)
