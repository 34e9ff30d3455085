"""Running the gateway: uvicorn with the reference server's connection guard, in the
foreground (``servescope gateway``) or on a thread (:class:`LocalGateway`: tests, benchmarks).

The client side gets what the reference server's clients get
(``reference/transport/limits.py``): head and body deadlines, the connection cap with its
health reserve, JSON errors for protocol violations, a bounded write buffer per connection
(``send_buffer_bytes`` and ``TCP_NOTSENT_LOWAT``), so a client that stops reading stalls its
relay after a few KiB; and every connection in :data:`CONNECTIONS`, so delivered means
acknowledged by the client's TCP.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Callable
from typing import Any, cast

from servescope.instrumentation.setup import SpanRedaction, TelemetrySetup, setup_telemetry
from servescope.reference.config import HttpLimits
from servescope.reference.transport import delivery
from servescope.reference.transport import limits as guard
from servescope.reference.transport.connections import Connections
from servescope.reference.transport.serving import UvicornThread, listen

from .app import GatewayApp, create_gateway_app
from .config import GatewayConfig

__all__ = ["CONNECTIONS", "DEFAULT_SEND_BUFFER_BYTES", "GatewayThread", "LocalGateway",
           "serve_gateway"]

#: The gateway's client connections (this process's gateways share it).
CONNECTIONS = Connections()
DEFAULT_SEND_BUFFER_BYTES = 4096
DEFAULT_NOTSENT_LOWAT = 16384
SERVICE_NAME = "servescope-gateway"


def event_loop() -> str:
    """``uvloop`` (libuv's loop, compiled: less of the gateway's time per chunk in the
    event loop and its transports) where it is installed, else ``asyncio``."""
    try:
        import uvloop  # noqa: F401
    except ImportError:
        return "asyncio"
    return "uvloop"


def _loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    if event_loop() == "uvloop":
        import uvloop

        return cast(Callable[[], asyncio.AbstractEventLoop], uvloop.new_event_loop)
    return None


def _server(app: GatewayApp, sock: socket.socket, send_buffer_bytes: int | None,
            log_level: str) -> Any:
    import uvicorn

    limits: HttpLimits = app.state.http_limits
    unsent = send_buffer_bytes or DEFAULT_NOTSENT_LOWAT

    def bound(transport: asyncio.Transport) -> None:
        raw = transport.get_extra_info("socket")
        if raw is not None:
            delivery.set_notsent_lowat(raw, unsent)

    settings = guard.uvicorn_settings(limits, send_buffer_bytes=send_buffer_bytes,
                                      on_reject=app.state.reject_connection,
                                      registry=CONNECTIONS, on_connection=bound)
    host, port = sock.getsockname()[:2]
    logging.getLogger("uvicorn").setLevel(log_level.upper())
    config = uvicorn.Config(app, host=host, port=port, loop=event_loop(), lifespan="on",
                            log_config=None, log_level=log_level, access_log=False,
                            timeout_graceful_shutdown=5, **settings)
    return uvicorn.Server(config)


def serve_gateway(app: GatewayApp, host: str, port: int, *,
                  send_buffer_bytes: int | None = DEFAULT_SEND_BUFFER_BYTES,
                  log_level: str = "info") -> None:
    """Serve in the foreground until interrupted."""
    sock = listen(host, port, send_buffer_bytes, app.state.http_limits.listen_backlog)
    try:
        _server(app, sock, send_buffer_bytes, log_level).run(sockets=[sock])
    finally:
        sock.close()


class GatewayThread(UvicornThread):
    """The gateway app served by uvicorn on a background thread."""

    def __init__(self, app: GatewayApp, host: str = "127.0.0.1", port: int = 0, *,
                 send_buffer_bytes: int | None = DEFAULT_SEND_BUFFER_BYTES,
                 log_level: str = "warning") -> None:
        sock = listen(host, port, send_buffer_bytes, app.state.http_limits.listen_backlog)
        super().__init__(_server(app, sock, send_buffer_bytes, log_level), sock,
                         name="servescope-gateway", what="the gateway")

    def _loop_factory(self) -> Callable[[], asyncio.AbstractEventLoop] | None:
        return _loop_factory()


class LocalGateway:
    """Telemetry + gateway app + server on a free 127.0.0.1 port, started and stopped
    together. Safe by default, like ``setup_telemetry``: spans redacted, logs filtered."""

    def __init__(self, config: GatewayConfig, *, telemetry_setup: TelemetrySetup | None = None,
                 span_exporter: Any = None, redaction: SpanRedaction | bool | None = None,
                 port: int = 0, send_buffer_bytes: int | None = DEFAULT_SEND_BUFFER_BYTES,
                 ) -> None:
        self.setup = telemetry_setup or setup_telemetry(
            service_name=SERVICE_NAME, model=config.model_name, pool=config.flavor,
            span_exporter=span_exporter, redaction=redaction, engine_levels=False)
        self.telemetry = self.setup.telemetry
        self.app = create_gateway_app(config, self.telemetry, connections=CONNECTIONS)
        self.http = GatewayThread(self.app, port=port, send_buffer_bytes=send_buffer_bytes)

    @property
    def url(self) -> str:
        return self.http.url

    def start(self) -> LocalGateway:
        self.http.start()
        return self

    def stop(self, timeout_s: float = 10.0) -> None:
        self.http.stop(timeout_s)
        self.setup.shutdown(timeout_s)

    def __enter__(self) -> LocalGateway:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
