"""The OpenAI-compatible HTTP transport of the reference worker (Starlette on uvicorn).

Routes: ``POST /v1/completions``, ``POST /v1/chat/completions`` (``stream`` true or false),
``GET /v1/models``, ``GET /healthz`` and ``GET /health`` (the spelling vLLM, TGI and SGLang
use, which benchmarking clients probe), ``GET /metrics`` (OpenMetrics with exemplars when the
scraper asks for it). Request fields and extensions are documented in ``openai_schema``; the
per-request deadline comes from the body field ``deadline_s`` or the ``x-servescope-deadline-s``
header (seconds from arrival), and a W3C ``traceparent``/``tracestate`` header makes the
request span a child of the caller's trace.

``GET /readyz``: the engine's heartbeat is fresh and it accepts work (503 with ``Retry-After``
otherwise); ``/healthz`` only says the API process is up. The engine may be an in-process
:class:`Engine` or an :class:`EngineClient` (the engine core in its own process).

The handlers never block the event loop on the engine: ``submit`` only posts to the
scheduler's mailbox, and tokens are awaited through the handle's async ``next_chunk``.

Backpressure: uvicorn's h11 protocol makes ``send`` wait while the transport's write buffer is
above its high-water mark. :class:`ServerThread` and :func:`serve` bound what a connection may
hold (``send_buffer_bytes``: the kernel socket send buffer and the transport's high-water
mark), so a client that stops reading stalls its writer after a few KiB rather than after the
megabytes an autotuned socket buffer would absorb. ``TCP_NOTSENT_LOWAT`` keeps the kernel's
unsent bytes under the same bound, and each response reads the socket's acknowledged bytes
(``delivery.py``) so that ``delivered`` means what left the host.

Behind a reverse proxy: streamed responses carry ``X-Accel-Buffering: no`` (nginx then passes
each event on at once, whatever ``proxy_buffering`` says) and ``Cache-Control: no-cache``.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import msgspec
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from servescope.instrumentation.labels import NO_PRIORITY, DeclaredLabels
from servescope.instrumentation.scrape import CachedExposition, MetricsServer
from servescope.instrumentation.setup import SpanRedaction, TelemetrySetup, setup_telemetry
from servescope.instrumentation.slo import SLOSpec
from servescope.instrumentation.status import FinishReason
from servescope.instrumentation.telemetry import Telemetry

from ..client.base import EngineCoreClient
from ..client.engine import Engine
from ..client.engine_client import RESTARTING, UNRESPONSIVE, EngineClient
from ..client.handle import RequestHandle
from ..config import EngineConfig, HttpLimits
from ..core.request import GenerationRequest
from . import delivery
from . import limits as guard
from . import openai_schema as schema
from .connections import Connections as _Connections
from .serving import UvicornThread, listen
from .sse import EventStreamResponse, Shape, WholeResponse

if TYPE_CHECKING:  # the transport calls the hooks; only the setup helper's type is named here
    from opentelemetry.sdk.trace.export import SpanExporter

__all__ = ["DEFAULT_SEND_BUFFER_BYTES", "LocalServer", "ServerThread", "create_app",
           "declared_labels", "serve"]

_log = logging.getLogger("servescope.reference.transport.server")

DEFAULT_SEND_BUFFER_BYTES = 4096
#: Unsent bytes the kernel may hold when the send buffer is left to autotune.
DEFAULT_NOTSENT_LOWAT = 16384
#: Default ``max_tokens`` of /v1/completions (OpenAI's); chat defaults to the rest of the context.
COMPLETION_DEFAULT_MAX_TOKENS = 16
#: Bodies larger than this are parsed off the event loop (a thread), so a large valid body
#: never stalls other connections.
PARSE_OFF_LOOP_BYTES = 64 << 10


class _Transport:
    """The route handlers, bound to one engine and one telemetry."""

    def __init__(self, engine: EngineCoreClient, telemetry: Telemetry, model_name: str,
                 chunk_tokens: int, connections: _Connections | None) -> None:
        self.engine = engine
        self.connections = connections
        self.telemetry = telemetry
        self.model_name = model_name
        self.chunk_tokens = chunk_tokens
        self.max_context: int = engine.config.model.max_context
        self.created = int(time.time())
        #: accepted = closed + open for the connections of this app's server (uvicorn's
        #: guarded protocol counts them; /healthz reports them)
        self.ledger = guard.ConnectionLedger()
        #: /metrics, rendered at most once per interval (shared with a metrics port)
        self.exposition = CachedExposition(telemetry.registry, engine.config.metrics_cache_s)
        # one thread of its own: a scrape storm queues there, never in the shared pool that
        # parses large bodies
        self._scrapes = ThreadPoolExecutor(1, thread_name_prefix="servescope-scrape")

    # --- generation -------------------------------------------------------------------------
    async def completions(self, request: Request) -> Any:
        return await self._generate(request, "completion")

    async def chat(self, request: Request) -> Any:
        return await self._generate(request, "chat")

    async def _generate(self, request: Request, kind: schema.Endpoint) -> Any:
        rid = f"{'chatcmpl' if kind == 'chat' else 'cmpl'}-{uuid.uuid4().hex}"
        headers = {k.lower(): v for k, v in request.headers.items()}
        carrier = {k: headers[k] for k in guard.TRACE_HEADERS if k in headers}
        operation = "chat" if kind == "chat" else "text_completion"
        try:
            schema.control_headers_once(request.headers.raw)
            params = await self._params(request, kind, headers)
            generation = self._generation(rid, params, carrier, operation)
        except schema.RequestError as err:
            recorder = self.telemetry.request(rid, carrier=carrier, operation=operation)
            recorder.rejected(err.rejection_reason)
            # 413/415 are answered before the body is read: the connection cannot be reused
            return _error(err.status, err.body(), rid, close=err.status in (413, 415))
        except ClientDisconnect:  # the body never arrived whole: nobody is left to answer
            recorder = self.telemetry.request(rid, carrier=carrier, operation=operation)
            recorder.rejected(request.scope.get(guard.ABORT_KEY, "client_disconnected"))
            return Response(status_code=400)
        handle = self.engine.submit(generation)
        if handle.finish_reason is FinishReason.REJECTED:
            return self._refused(handle, rid)
        shape = Shape(kind, rid, self._served(params.model), params.include_usage)
        extra = {"x-request-id": rid, "cache-control": "no-cache"}
        if params.stream:  # proxies: pass each event on at once, never hold the stream
            extra["x-accel-buffering"] = "no"
        response_class = EventStreamResponse if params.stream else WholeResponse
        return response_class(handle, shape, self.engine.tokenizer.stream_decoder(),
                              self.chunk_tokens, extra, connections=self.connections,
                              limits=self.engine.config.http)

    async def _params(self, request: Request, kind: schema.Endpoint,
                      headers: dict[str, str]) -> schema.CompletionParams:
        """Read (bounded), decode and validate the body; every failure is a RequestError."""
        _require_json(headers)
        raw = await guard.read_body(request.stream(),
                                    request.scope.get("servescope.max_body_bytes"))
        parse = schema.parse_chat if kind == "chat" else schema.parse_completion

        def decode() -> schema.CompletionParams:
            try:
                return parse(schema.parse_body(raw), headers)
            except RecursionError:
                raise schema.RequestError("request body is nested too deeply",
                                          code="invalid_json") from None

        if len(raw) > PARSE_OFF_LOOP_BYTES:
            return await asyncio.to_thread(decode)
        return decode()

    def _generation(self, rid: str, params: schema.CompletionParams, carrier: dict[str, str],
                    operation: str) -> GenerationRequest:
        """The engine request, after the checks that need the model (name, context, vocab)."""
        config = self.engine.config
        if params.model != self.model_name and params.model not in config.adapters:
            served = ", ".join(f"'{name}'" for name in (self.model_name, *config.adapters))
            raise schema.RequestError(
                f"The model {schema.preview(params.model, 200)} does not exist; this server "
                f"serves {served}", param="model", code="model_not_found", status=404)
        if config.unknown_priority == "reject" and params.priority != NO_PRIORITY and \
                params.priority.lower() not in config.priority_classes:
            raise schema.RequestError(
                f"'priority' must be one of the configured classes "
                f"{list(config.priority_classes)}", param="priority", code="invalid_value")
        tokenizer = self.engine.tokenizer
        prompt_field = "messages" if params.kind == "chat" else "prompt"
        if params.prompt_ids is not None:
            ids = list(params.prompt_ids)
            if max(ids) >= tokenizer.vocab_size:
                raise schema.RequestError(
                    f"'prompt' token id {max(ids)} is outside the vocabulary "
                    f"(size {tokenizer.vocab_size})", param="prompt", code="invalid_value")
        else:
            assert params.prompt is not None
            ids = tokenizer.encode(params.prompt)
        room = self.max_context - len(ids)
        if room < 1:
            raise schema.RequestError(
                f"'{prompt_field}' is {len(ids)} tokens; this model's context is "
                f"{self.max_context} tokens and at least one must be left to generate",
                param=prompt_field, code="context_length_exceeded")
        max_tokens = params.max_tokens
        if max_tokens is None:
            max_tokens = min(room, COMPLETION_DEFAULT_MAX_TOKENS) if params.kind == "completion" \
                else room
        elif max_tokens > room:
            raise schema.RequestError(
                # (the client's number is not echoed: any integer can be a card's digits)
                f"'max_tokens' is more than can be generated: the prompt takes {len(ids)} of "
                f"this model's {self.max_context} context tokens, so at most {room} can be",
                param="max_tokens", code="context_length_exceeded")
        return GenerationRequest(rid, ids, max_tokens, deadline_s=params.deadline_s,
                                 priority=params.priority, carrier=carrier or None,
                                 stop_token_ids=self._stop_ids(params.stop),
                                 ignore_eos=params.ignore_eos, operation=operation,
                                 model=self._served(params.model))

    def _stop_ids(self, stop: tuple[str, ...]) -> tuple[int, ...]:
        ids = []
        for text in stop:
            encoded = self.engine.tokenizer.encode(text)
            if len(encoded) != 1:
                raise schema.RequestError(
                    f"'stop' sequence {schema.preview(text)} is {len(encoded)} tokens; this "
                    f"server supports "
                    f"single-token stop sequences only", param="stop", code="unsupported_value")
            ids.append(encoded[0])
        return tuple(ids)

    def _refused(self, handle: RequestHandle, rid: str) -> Response:
        """The engine refused at admission (its recorder already counted the rejection)."""
        reason = handle.reject_reason or "rejected"
        if reason == RESTARTING:  # the engine process is being replaced: come back shortly
            return _unavailable(self.engine, "the engine is restarting; retry shortly", rid)
        if reason == UNRESPONSIVE:  # missed heartbeats: not ready, its lease still runs
            return _unavailable(self.engine, "the engine is not responding; retry shortly",
                                rid)
        if reason == "queue_full":
            status, type_, code = 429, "rate_limit_error", reason
        elif reason == "shutting_down":
            status, type_, code = 503, "server_error", reason
        else:
            status, type_, code = 400, "invalid_request_error", reason
        message = f"the server refused the request: {reason.replace('_', ' ')}"
        return _error(status, schema.error_body(message, type_=type_, code=code), rid)

    # --- the rest ---------------------------------------------------------------------------
    def _served(self, asked: str) -> str:
        """The served name a request answers and is counted under: an adapter it named, else
        the model (a request may name the model any way the checks accept)."""
        return asked if asked in self.engine.config.adapters else self.model_name

    async def models(self, request: Request) -> Response:
        """The model and its adapters, each a model of its own (as vLLM lists LoRA modules,
        with the base model as ``parent``)."""
        base = {"object": "model", "created": self.created, "owned_by": "servescope",
                "max_model_len": self.max_context}
        return JSONResponse({"object": "list", "data": [
            {"id": self.model_name, **base, "root": self.model_name, "parent": None},
            *({"id": name, **base, "root": name, "parent": self.model_name}
              for name in self.engine.config.adapters)]})

    async def healthz(self, request: Request) -> Response:
        stats = msgspec.structs.asdict(self.engine.stats())
        return JSONResponse({"status": "ok", "model": self.model_name, **stats,
                             "connections": self.ledger.snapshot()})

    async def readyz(self, request: Request) -> Response:
        """Ready: the engine's heartbeat is fresh and it accepts work (load balancers route
        on this; /healthz only says the API process is up)."""
        state = self.engine.readiness()
        if state["ready"]:
            return JSONResponse({"status": "ready", **state})
        return _unavailable(self.engine, "the engine is not ready", None, state)

    async def metrics(self, request: Request) -> Response:
        # rendered in a worker thread: a large registry never stalls the event loop
        # (no cache age here: a scrape sees values no older than itself; the metrics port
        # serves the cached render)
        data, content_type = await asyncio.get_running_loop().run_in_executor(
            self._scrapes, self.exposition, request.headers.get("accept"), 0.0)
        return Response(data, media_type=content_type)

    def reject_connection(self, reason: str, carrier: dict[str, str] | None = None) -> None:
        """Count a request refused before it reached a handler (a protocol error, a head or
        body that never arrived, the connection cap): an arrival that ends rejected, in the
        caller's trace when its head named one."""
        rid = f"conn-{uuid.uuid4().hex}"
        self.telemetry.request(rid, operation="http", carrier=carrier or None).rejected(reason)


def _require_json(headers: dict[str, str]) -> None:
    """415 for a body declared as anything but JSON: a browser's cross-origin "simple" POST
    (``text/plain``, a form) must not start a generation. No ``Content-Type`` at all is taken
    as JSON (command-line clients often send none). 415 too for a compressed body (RFC 9110
    15.5.16), whatever its coding."""
    coding = headers.get("content-encoding", "identity").strip().lower()
    if coding not in ("", "identity"):  # no body is decompressed here: say so, not "not UTF-8"
        raise schema.RequestError(
            f"Content-Encoding {schema.preview(coding)} is not supported: send the body "
            "uncompressed", code="unsupported_content_encoding", status=415)
    declared = headers.get("content-type")
    if declared is None:
        return
    media = declared.split(";", 1)[0].strip().lower()
    if media != "application/json" and not (media.startswith("application/")
                                             and media.endswith("+json")):
        raise schema.RequestError(
            f"Content-Type must be application/json, got {schema.preview(declared)}",
            code="unsupported_media_type", status=415)


def declared_labels(config: EngineConfig, model_name: str) -> DeclaredLabels:
    """The label values a client may choose, from the engine's configuration: its priority
    classes, and the served model name with its adapters."""
    return DeclaredLabels(priorities=config.priority_classes,
                          models=(model_name, *config.adapters))


def _error(status: int, body: dict[str, Any], rid: str | None = None, *,
           close: bool = False) -> JSONResponse:
    headers = {"x-request-id": rid} if rid else {}
    if close:  # the body was not read to its end: the connection cannot be reused
        headers["connection"] = "close"
    return JSONResponse(body, status_code=status, headers=headers or None)


_HTTP_REASONS = {404: "not_found", 405: "method_not_allowed"}


def _unavailable(engine: EngineCoreClient, message: str, rid: str | None,
                 extra: dict[str, Any] | None = None) -> JSONResponse:
    """503 in the error shape with ``Retry-After`` (seconds)."""
    body = schema.error_body(message, type_="server_error", code="engine_unavailable")
    if extra:
        body.update(extra)
    headers = {"retry-after": str(engine.retry_after_s)}
    if rid:
        headers["x-request-id"] = rid
    return JSONResponse(body, status_code=503, headers=headers)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    type_ = "not_found_error" if exc.status_code == 404 else "invalid_request_error"
    # redacted, then cut: cut first, a secret across the cut would lose what names it
    message = f"{request.method} {schema.echoed(request.url.path[:4096])[:200]}: {exc.detail}"
    return _error(exc.status_code, schema.error_body(message, type_=type_,
                                                     code=str(exc.status_code)))


async def _server_error(request: Request, exc: Exception) -> Response:
    _log.exception("unhandled error in %s %s", request.method, request.url.path)
    return _error(500, schema.error_body("internal server error", type_="server_error",
                                         code="internal_error"))


def create_app(engine: EngineCoreClient, telemetry: Telemetry, *,
               model_name: str | None = None, chunk_tokens: int = 64,
               http2: bool = False) -> Starlette:
    """The ASGI app over a started engine; the caller owns the engine's lifecycle. The model
    name defaults to the telemetry's (the ``model`` label of every metric). ``chunk_tokens``
    is the most tokens one SSE event carries: a writer that fell behind coalesces what its
    buffer holds into one event (1: one event per token). ``http2``: served by hypercorn
    (``http2.py``), whose connections this module does not see: delivered falls back to
    written and the delivery gauge says so."""
    connections = None if http2 else CONNECTIONS
    t = _Transport(engine, telemetry, model_name or telemetry.model, chunk_tokens, connections)
    telemetry.delivery_confirmation(not http2 and delivery.acknowledgements_supported())
    routes = [
        Route("/v1/completions", t.completions, methods=["POST"]),
        Route("/v1/chat/completions", t.chat, methods=["POST"]),
        Route("/v1/models", t.models, methods=["GET"]),
        Route("/healthz", t.healthz, methods=["GET"]),
        Route("/health", t.healthz, methods=["GET"]),
        Route("/readyz", t.readyz, methods=["GET"]),
        Route("/metrics", t.metrics, methods=["GET"]),
    ]

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        t.reject_connection(_HTTP_REASONS.get(exc.status_code, "invalid_request"))
        return await _http_error(request, exc)

    app = Starlette(routes=routes, exception_handlers={HTTPException: http_error,
                                                       Exception: _server_error})
    # no 307 to the path without its slash: Starlette builds that Location from the client's
    # own Host header (an open redirect); the path as sent is a 404 like any unknown one
    app.router.redirect_slashes = False
    limits = engine.config.http
    app.add_middleware(guard.RequestLimits, limits=limits,
                       on_reject=t.reject_connection)
    app.state.http_limits = limits
    app.state.reject_connection = t.reject_connection
    app.state.connection_ledger = t.ledger
    app.state.exposition = t.exposition
    return app


# --- running it -----------------------------------------------------------------------------
CONNECTIONS = _Connections()


def _uvicorn_server(app: Starlette, sock: socket.socket, send_buffer_bytes: int | None,
                    log_level: str) -> Any:
    """uvicorn on ``sock`` with the app's connection limits (``create_app`` put them in
    ``app.state``; ``EngineConfig.http``). uvicorn leaves logging as configured
    (``log_config=None``) so the handlers that log redaction filtered stay in place."""
    import uvicorn

    host, port = sock.getsockname()[:2]
    limits = _limits_of(app)
    on_reject: guard.OnReject = getattr(app.state, "reject_connection", None) or _uncounted
    settings = guard.uvicorn_settings(limits, send_buffer_bytes=send_buffer_bytes,
                                      on_reject=on_reject, registry=CONNECTIONS,
                                      on_connection=_bound_unsent(send_buffer_bytes),
                                      ledger=getattr(app.state, "connection_ledger", None))
    logging.getLogger("uvicorn").setLevel(log_level.upper())
    config = uvicorn.Config(app, host=host, port=port, loop="asyncio", lifespan="off",
                            log_config=None, log_level=log_level, access_log=False,
                            timeout_graceful_shutdown=5, **settings)
    return uvicorn.Server(config)


def _limits_of(app: Starlette) -> HttpLimits:
    """The connection limits ``create_app`` put in ``app.state`` (the defaults otherwise)."""
    limits: HttpLimits = getattr(app.state, "http_limits", None) or HttpLimits()
    return limits


def _bound_unsent(send_buffer_bytes: int | None) -> guard.OnConnection:
    def bound(transport: asyncio.Transport) -> None:
        sock = transport.get_extra_info("socket")
        if sock is not None:
            delivery.set_notsent_lowat(sock, send_buffer_bytes or DEFAULT_NOTSENT_LOWAT)

    return bound


def _uncounted(reason: str, carrier: dict[str, str] | None = None) -> None:
    """An app not made by ``create_app`` has no telemetry to count refusals in."""


class ServerThread(UvicornThread):
    """The app served by uvicorn on a background thread (tests, the demo, benchmarks)."""

    def __init__(self, app: Starlette, host: str = "127.0.0.1", port: int = 0, *,
                 send_buffer_bytes: int | None = DEFAULT_SEND_BUFFER_BYTES,
                 log_level: str = "warning") -> None:
        sock = listen(host, port, send_buffer_bytes, _limits_of(app).listen_backlog)
        super().__init__(_uvicorn_server(app, sock, send_buffer_bytes, log_level), sock,
                         name="servescope-http", what="the HTTP server")


def serve(app: Starlette, host: str = "127.0.0.1", port: int = 8000, *,
          send_buffer_bytes: int | None = DEFAULT_SEND_BUFFER_BYTES,
          log_level: str = "info") -> None:
    """Serve in the foreground until interrupted (Ctrl-C / SIGTERM)."""
    sock = listen(host, port, send_buffer_bytes, _limits_of(app).listen_backlog)
    try:
        _uvicorn_server(app, sock, send_buffer_bytes, log_level).run(sockets=[sock])
    finally:
        sock.close()


class LocalServer:
    """Engine + telemetry + HTTP server on a free 127.0.0.1 port, started and stopped together
    (the demo, the benchmarks and the tests). Stops in dependency order: HTTP, engine, spans.

    Safe by default, like ``setup_telemetry``: spans are redacted with the shipped policy and
    log handlers filtered unless ``redaction=False`` / ``log_redaction=False`` is passed."""

    def __init__(self, config: EngineConfig | None = None, *, slo: SLOSpec | None = None,
                 model_name: str = "servescope-ref", span_exporter: SpanExporter | None = None,
                 trace_file: str | None = None, port: int = 0,
                 send_buffer_bytes: int | None = DEFAULT_SEND_BUFFER_BYTES,
                 telemetry_setup: TelemetrySetup | None = None, chunk_tokens: int = 64,
                 redaction: SpanRedaction | bool | None = None,
                 log_redaction: bool = True,
                 engine_process: bool | dict[str, Any] = False) -> None:
        kwargs: dict[str, Any] = {"trace_file": trace_file} if trace_file else {}
        self.setup = telemetry_setup or setup_telemetry(
            model=model_name, slo=slo, span_exporter=span_exporter, redaction=redaction,
            log_redaction=log_redaction,
            declared_labels=declared_labels(config or EngineConfig(), model_name), **kwargs)
        self.telemetry = self.setup.telemetry
        # engine_process: the engine core in its own process (a dict: EngineClient options)
        self.engine: EngineCoreClient = (
            EngineClient(config or EngineConfig(), self.telemetry,
                         **(engine_process if isinstance(engine_process, dict) else {}))
            if engine_process else Engine(config or EngineConfig(), self.telemetry))
        self.app = create_app(self.engine, self.telemetry, model_name=self.telemetry.model,
                              chunk_tokens=chunk_tokens)
        self.http = ServerThread(self.app, port=port, send_buffer_bytes=send_buffer_bytes)
        metrics_port = self.engine.config.metrics_port
        self.metrics: MetricsServer | None = None if metrics_port is None else MetricsServer(
            self.app.state.exposition, self.http.host, metrics_port)

    @property
    def url(self) -> str:
        return self.http.url

    @property
    def metrics_url(self) -> str:
        """Where /metrics is scraped: the metrics port when there is one."""
        return self.metrics.url if self.metrics is not None else self.http.url

    def start(self) -> LocalServer:
        self.engine.start()
        try:
            self.http.start()
        except BaseException:
            self.engine.shutdown()
            raise
        if self.metrics is not None:
            self.metrics.start()
        return self

    def stop(self, timeout_s: float = 10.0) -> None:
        if self.metrics is not None:
            self.metrics.stop()
        self.http.stop(timeout_s)
        self.engine.shutdown(timeout_s)
        self.setup.shutdown(timeout_s)

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
