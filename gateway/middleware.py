"""The gateway's measurements as an ASGI middleware, inside an engine whose API server is
Starlette or FastAPI. vLLM loads it with one flag::

    vllm serve MODEL --middleware servescope.gateway.middleware.ServescopeMiddleware

(vLLM calls ``app.add_middleware(ServescopeMiddleware)``: no arguments, so the middleware
configures itself from the environment: ``SERVESCOPE_MODEL`` (the default ``model`` label),
``SERVESCOPE_MODEL_NAMES`` (comma-separated served names that may become label values), and
the ``OTEL_*`` variables of ``setup_telemetry``. Its series join the default
``prometheus_client`` registry, so the engine's own ``/metrics`` carries them; they are also at
``GET /servescope/metrics``, for engines whose ``/metrics`` serves another registry.)

``POST /v1/completions`` and ``POST /v1/chat/completions`` are measured as the gateway measures
them: arrival, rejections (a non-2xx answer, reason ``http_<status>``), tokens and the finish
reason and usage read from the engine's own chunks, stream TTFT at the first output written,
backpressure pauses, client cancels, and a request span whose W3C parent is the caller's.

What a middleware cannot see, and the gateway can:

* TCP acknowledgements: they need the socket, and the ASGI server keeps it. ``delivered``
  falls back to ``written`` here (``servescope_transport_delivery_acknowledged`` is 0).
* a stalled client ends nothing: the middleware does not own the stream, so it counts the
  pauses but cannot apply the slow-consumer policy or a deadline (the engine's own rules
  apply). It does hand the engine a ``traceparent`` naming its request span, so spans the
  engine exports (vLLM's ``--otlp-traces-endpoint``) join the trace under it.
* a write that the server dropped after a disconnect it had not reported yet.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

from servescope.instrumentation.metrics import render
from servescope.instrumentation.request_recorder import RequestRecorder
from servescope.instrumentation.status import FinishReason
from servescope.instrumentation.telemetry import Telemetry

from .commits import Commits
from .events import EventScanner, finish_reason_of, scan_whole, upstream_error_type
from .fields import request_fields
from .paths import MEASURED, measured_operation

_log = logging.getLogger("servescope.gateway.middleware")

__all__ = ["MEASURED_PATHS", "METRICS_PATH", "ServescopeMiddleware"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

#: The generation paths measured (also spelled otherwise: see ``paths.measured_operation``).
MEASURED_PATHS = frozenset(MEASURED)
METRICS_PATH = "/servescope/metrics"
#: A write that waited longer than this for the client counts as a backpressure pause.
PAUSE_MIN_S = 0.005
#: The largest answer (or SSE event) scanned; past it the request is still timed.
MAX_SCAN_BYTES = 1 << 20

_process_lock = threading.Lock()
_process_telemetry: Telemetry | None = None


def _telemetry_from_environment() -> Telemetry:
    """One telemetry per process (vLLM builds the middleware with no arguments)."""
    global _process_telemetry
    with _process_lock:
        if _process_telemetry is None:
            from prometheus_client import REGISTRY

            from servescope.instrumentation.setup import setup_telemetry

            try:
                setup = setup_telemetry(
                    service_name=os.environ.get("OTEL_SERVICE_NAME") or "servescope-middleware",
                    model=os.environ.get("SERVESCOPE_MODEL", "default"), registry=REGISTRY,
                    engine_levels=False)
            except ValueError as err:  # (the setting is the environment's: name it)
                raise ValueError(f"SERVESCOPE_MODEL: {err}".replace(": model: ", ": ")) \
                    from None
            setup.telemetry.delivery_confirmation(False)
            _process_telemetry = setup.telemetry
        return _process_telemetry


class ServescopeMiddleware:
    """ASGI middleware measuring an engine's OpenAI routes (see the module notes)."""

    def __init__(self, app: App, *, telemetry: Telemetry | None = None,
                 model_names: Iterable[str] | None = None,
                 metrics_path: str | None = METRICS_PATH) -> None:
        self.app = app
        self.telemetry = telemetry or _telemetry_from_environment()
        if telemetry is not None:
            telemetry.delivery_confirmation(False)
        names = tuple(model_names) if model_names is not None else tuple(
            n.strip() for n in os.environ.get("SERVESCOPE_MODEL_NAMES", "").split(",")
            if n.strip())
        if not names:  # a dashboard would show one model whatever is served
            _log.warning("no served model names (SERVESCOPE_MODEL_NAMES): every request is "
                         "labelled model=%r", self.telemetry.model)
        # configured names are declared label values (labels and span redaction keep them);
        # one with PII in it is left out, as the gateway leaves out such a listed name
        self.known_models = self.telemetry.declare_models(names)
        left_out = len(set(names)) - len(set(self.known_models))
        if left_out > 0:
            _log.warning("%d of the served model names (SERVESCOPE_MODEL_NAMES) hold what the "
                         "redaction detectors find and are not labels: their requests are "
                         "labelled model=%r", left_out, self.telemetry.model)
        self.metrics_path = metrics_path
        # token commits reach the telemetry once per event-loop turn, not once per chunk
        self.commits = Commits(self.telemetry)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path, method = scope["path"], scope["method"]
        operation = measured_operation(path) if method == "POST" else None
        if operation is not None:
            await _Exchange(self, scope, receive, send).run(operation)
        elif method == "GET" and path == self.metrics_path:
            await self._metrics(scope, send)
        else:
            await self.app(scope, receive, send)

    async def _metrics(self, scope: Scope, send: Send) -> None:
        accept = dict(scope["headers"]).get(b"accept", b"").decode("latin-1") or None
        data, content_type = render(self.telemetry.registry, accept)
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", content_type.encode())]})
        await send({"type": "http.response.body", "body": data})

    def model_label(self, model: object) -> str:
        if isinstance(model, str) and model in self.known_models:
            return model
        return self.telemetry.model


class _Exchange:
    """One measured request: the body replayed to the app, its answer observed."""

    def __init__(self, owner: ServescopeMiddleware, scope: Scope, receive: Receive,
                 send: Send) -> None:
        self.owner = owner
        self.scope = scope
        self._receive = receive
        self._send = send
        self.clock = owner.telemetry.clock
        self.recorder: RequestRecorder | None = None
        self.replay: list[Message] = []
        self.streamed = False
        self.refused = False
        self.completed = False
        self.disconnected = False
        self.scanner = EventScanner(MAX_SCAN_BYTES)
        self.scan_ok = True
        self.whole: list[bytes] = []
        self.whole_size = 0
        self.ended_at: float | None = None

    async def run(self, operation: str) -> None:
        arrival = self.clock()
        body = await self._read_body()
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in self.scope["headers"]}
        carrier = {k: headers[k] for k in ("traceparent", "tracestate") if k in headers}
        fields = request_fields(body)
        priority = headers.get("x-servescope-priority", fields.get("priority", "default"))
        if isinstance(priority, bool) or not isinstance(priority, str | int):
            priority = "default"
        self.recorder = self.owner.telemetry.request(
            f"mw-{os.urandom(16).hex()}", model=self.owner.model_label(fields.get("model")),
            priority=str(priority).lower()[:64], carrier=carrier, arrival=arrival,
            operation=operation)
        trace = self.recorder.trace_context
        if trace is not None:  # the engine's own spans become children of ours
            self.scope["headers"] = [
                *((k, v) for k, v in self.scope["headers"] if k != b"traceparent"),
                (b"traceparent", f"00-{trace['trace_id']}-{trace['span_id']}-01".encode())]
        try:
            await self.owner.app(self.scope, self.receive, self.send)
        except BaseException:
            if self._ended_at_done():
                self._finish(self.recorder)
            else:
                self._end(FinishReason.CLIENT_CANCEL if self.disconnected else
                          FinishReason.ERROR)
            raise
        if self.disconnected:
            self._end(FinishReason.CLIENT_CANCEL)
        elif not self.completed:
            if self._ended_at_done():
                self._finish(self.recorder)
            else:
                self._end(FinishReason.ERROR)

    def _ended_at_done(self) -> bool:
        """The stream's [DONE] was written: it ended for the client (which may close then,
        as the openai SDK does, before the app's last write)."""
        return self.streamed and self.scan_ok and self.scanner.facts.done \
            and not self.disconnected

    async def _read_body(self) -> bytes:
        parts = []
        while True:
            message = await self._receive()
            self.replay.append(message)
            if message["type"] != "http.request":
                break
            parts.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        return b"".join(parts)

    async def receive(self) -> Message:
        if self.replay:
            return self.replay.pop(0)
        message = await self._receive()
        if message["type"] == "http.disconnect" and not self.completed \
                and not self._ended_at_done():
            self.disconnected = True
            self._end(FinishReason.CLIENT_CANCEL)
        return message

    async def send(self, message: Message) -> None:
        rec = self.recorder
        assert rec is not None
        kind = message["type"]
        if kind == "http.response.start":
            self._started(rec, message)
            await self._send(message)
        elif kind == "http.response.body" and not self.refused:
            await self._body(rec, message)
        else:
            await self._send(message)

    def _started(self, rec: RequestRecorder, message: Message) -> None:
        status = int(message["status"])
        if not 200 <= status < 300:
            self.refused = self.completed = True
            rec.rejected(f"http_{status}")
            return
        rec.admitted()
        headers = dict(message.get("headers") or ())
        self.streamed = headers.get(b"content-type", b"").startswith(b"text/event-stream")

    async def _body(self, rec: RequestRecorder, message: Message) -> None:
        data: bytes = message.get("body", b"")
        last = not message.get("more_body", False)
        at = self.clock()
        tokens = self._scan(data, last, at)
        if tokens:
            self.owner.commits.add(rec, tokens, at)
        if last:
            self.completed = True
        try:
            await self._send(message)
        except BaseException:
            self.disconnected = (not last and not self._ended_at_done()) or self.disconnected
            raise
        finally:
            if tokens:  # out of the buffer level: written, or never to be
                self.owner.commits.written(tokens)
        done = self.clock()
        if done - at > PAUSE_MIN_S:
            rec.paused(now=at)
            rec.resumed(now=done)
        if tokens and not self.disconnected:
            rec.written(tokens, now=at)
            rec.delivered(tokens)  # no socket here: delivered means written
        if last:
            self._finish(rec)

    def _scan(self, data: bytes, last: bool, at: float) -> int:
        if self.streamed:
            if not self.scan_ok or not data:
                return 0
            _, tokens = self.scanner.feed(data)
            if self.scanner.failure is not None:
                self.scan_ok = False
                return 0
            if tokens:
                self.ended_at = at
            return tokens
        self.whole_size += len(data)
        if self.whole_size <= MAX_SCAN_BYTES:
            self.whole.append(data)
        if not last or self.whole_size > MAX_SCAN_BYTES:
            return 0
        facts = scan_whole(b"".join(self.whole))
        self.scanner.facts = facts
        self.ended_at = at
        return facts.tokens

    def _finish(self, rec: RequestRecorder) -> None:
        self.owner.commits.flush()  # a finished recorder takes no more commits
        if self.disconnected:
            return
        facts = self.scanner.facts
        if facts.prompt_tokens:
            rec.prompt_tokens(facts.prompt_tokens)
        if not self.scan_ok:
            rec.finish(FinishReason.ERROR, now=self.ended_at)
            return
        reason = finish_reason_of(facts)
        if reason is FinishReason.ERROR:
            rec.error_type(upstream_error_type(facts))
        rec.finish(reason, now=self.ended_at, engine_reasons=facts.finishes)

    def _end(self, reason: FinishReason) -> None:
        self.owner.commits.flush()
        # (once: the disconnect that ended it is seen again when the app returns; a signal
        # from elsewhere that lost the race is still counted by the recorder)
        if self.recorder is not None and not self.recorder.finished:
            self.recorder.finish(reason)


