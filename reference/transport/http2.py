"""HTTP/2 for the reference server: the same ASGI app on hypercorn (h2c and HTTP/1.1 on one port).

Why hypercorn: uvicorn speaks HTTP/1.1 only. Hypercorn is the established asyncio ASGI server
with HTTP/2 (it builds on the ``h2`` protocol library, as do httpx's and most Python h2
clients), runs on the same asyncio loop model as the HTTP/1.1 path, serves cleartext h2
(prior knowledge) beside HTTP/1.1 on one port, and honours HTTP/2 flow control in the ASGI
``send``: a stream whose window is closed does not take more bytes, so a stalled stream stalls
its writer and the engine pauses that request only. (Granian and Daphne also speak HTTP/2, but
hide flow control in Rust or Twisted, where no stream's in-flight bytes can be bounded.)

**The connection window.** HTTP/2 has a window per stream and one for the whole connection.
Bytes a client has received on a stream but not consumed stay charged to *both*. A client that
stops reading one stream holds up to that stream's window (65,535 bytes by default) of the
shared connection window. Clients that enlarge their connection window well past the stream
windows (httpx and browsers send a 16 MiB or larger connection WINDOW_UPDATE at once) keep the
other streams flowing: the stalled stream's window closes, hypercorn's per-stream buffer fills,
the writer's ``send`` waits and the engine pauses that request only. A client that keeps the
default 65,535-byte connection window lets one stalled stream stop every stream on the
connection; the server cannot open a client's receive window, so it bounds the damage in time:
the slow-consumer policy ends the stalled request (``slow_consumer_timeout_s``), the writer
gives the stream up (``abandon_after_s``) and hypercorn resets it, after which the client
returns its bytes to the connection window and the other streams resume. (A server-side cap on
a stream's in-flight bytes does not help: clients return bytes lazily, at half a stream window
processed, so any cap below that deadlocks the streams that are being read.)

**A closed stream window must stop the writer.** hypercorn's send task pops a stream's buffer
with the room its window allows; with the window closed that is an empty pop, which also
releases a writer waiting on the buffer's high-water mark, so a stalled stream's bytes pile up
in the server without bound and the engine never pauses the request. :func:`_install` makes
hypercorn use :class:`FlowControlledH2Protocol`, which leaves a stream with buffered bytes and
a closed window blocked until its WINDOW_UPDATE: the buffer stays at its high-water mark
(32 KiB) and the writer's ``send`` waits.

Delivered over HTTP/2: frames of many streams share one socket and the ASGI scope does not
expose it, so delivered falls back to written on this path and
``servescope_transport_delivery_acknowledged`` is 0.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from typing import Any

from .serving import ServingThread

__all__ = ["Http2ServerThread", "serve_http2"]


def _flow_controlled_protocol() -> type[Any]:
    import h2.errors
    import h2.events
    import h2.exceptions
    from hypercorn.protocol.h2 import H2Protocol

    class FlowControlledH2Protocol(H2Protocol):
        """Never pop a stream whose window is closed (see the module notes); drop body bytes
        that arrive for a stream already answered instead of failing the connection."""

        async def _send_data(self, stream_id: int) -> None:
            buffer = self.stream_buffers.get(stream_id)
            try:
                window = self.connection.local_flow_control_window(stream_id)
            except Exception:  # the stream is gone: hypercorn's path cleans it up
                window = 1
            if buffer is not None and buffer.buffer and window <= 0:
                self.priority.block(stream_id)  # a WINDOW_UPDATE unblocks it
                return
            await super()._send_data(stream_id)

        async def _handle_events(self, events: list[Any]) -> None:
            for event in events:  # one at a time: an earlier event may open the stream
                if isinstance(event, h2.events.DataReceived) and \
                        event.stream_id not in self.streams:
                    self._drop_late_body(event)
                else:
                    await super()._handle_events([event])
            await self._flush()

        def _drop_late_body(self, event: Any) -> None:
            """Body bytes for a stream whose response is already complete (a 413 answered
            from the head): hypercorn would look the stream up and end the whole connection
            with a KeyError. Give the bytes back to the connection window and ask the client
            to stop sending without error (RST_STREAM NO_ERROR, as RFC 9113 section 8.1
            allows a server that answered before the request ended)."""
            self.connection.acknowledge_received_data(event.flow_controlled_length,
                                                      event.stream_id)
            with contextlib.suppress(h2.exceptions.ProtocolError):  # already reset or closed
                self.connection.reset_stream(event.stream_id, h2.errors.ErrorCodes.NO_ERROR)

    return FlowControlledH2Protocol


def _install() -> None:
    """Make hypercorn build :class:`FlowControlledH2Protocol` for h2 connections."""
    import hypercorn.protocol as protocol

    if not getattr(protocol.H2Protocol, "servescope", False):  # type: ignore[attr-defined]
        cls = _flow_controlled_protocol()
        cls.servescope = True
        protocol.H2Protocol = cls  # type: ignore[attr-defined]


def _config(host: str, port: int, log_level: str, app: Any) -> Any:
    """hypercorn's config, with the connection limits ``create_app`` left in ``app.state``."""
    from hypercorn.config import Config

    from ..config import HttpLimits
    from .limits import hypercorn_settings

    config = Config()
    limits = getattr(getattr(app, "state", None), "http_limits", None) or HttpLimits()
    for name, value in hypercorn_settings(limits).items():
        setattr(config, name, value)
    config.bind = [f"{host}:{port}"]
    config.loglevel = log_level.upper()
    config.accesslog = None
    config.graceful_timeout = 5
    return config


class Http2ServerThread(ServingThread):
    """The app on hypercorn on a background thread (tests, benchmarks), h2c + HTTP/1.1."""

    def __init__(self, app: Any, host: str = "127.0.0.1", port: int = 0, *,
                 log_level: str = "warning") -> None:
        if port == 0:  # hypercorn binds itself: pick a free port first
            with socket.socket() as s:
                s.bind((host, 0))
                port = s.getsockname()[1]
        super().__init__(host, port, name="servescope-http2", what="the HTTP/2 server")
        self._app = app
        self._config = _config(host, port, log_level, app)
        self._shutdown: asyncio.Event | None = None

    def _prepare(self) -> None:
        _install()

    async def _serve(self) -> None:
        from hypercorn.asyncio import serve

        self._shutdown = asyncio.Event()
        await serve(self._app, self._config, shutdown_trigger=self._shutdown.wait)

    def _serving(self) -> bool:
        """Accepting connections (hypercorn binds inside serve())."""
        try:
            socket.create_connection((self.host, self.port), timeout=0.2).close()
            return True
        except OSError:
            return False

    def _ask_to_stop(self) -> None:
        if self.loop is not None and self._shutdown is not None:
            self.loop.call_soon_threadsafe(self._shutdown.set)


def serve_http2(app: Any, host: str = "127.0.0.1", port: int = 8000, *,
                log_level: str = "info") -> None:
    """Serve h2c and HTTP/1.1 in the foreground until interrupted."""
    from hypercorn.asyncio import serve

    _install()
    asyncio.run(serve(app, _config(host, port, log_level, app)))
