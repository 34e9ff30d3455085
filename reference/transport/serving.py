"""Serving an ASGI app with uvicorn on a socket we bind ourselves, in the foreground or on a
background thread: one piece for the reference server and the gateway (torch-free, so the
gateway can import it). The background thread's start and stop are :class:`ServingThread`'s,
shared with the HTTP/2 server (``http2.py``, hypercorn).

The listener is ours, not uvicorn's, so that its send buffer size (which accepted sockets
inherit) and backlog are set before the first connection, and so that port 0 picks a free
port whose number is known before the server starts.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable
from typing import Any, Self

__all__ = ["ServingThread", "UvicornThread", "listen"]


def listen(host: str, port: int, send_buffer_bytes: int | None, backlog: int) -> socket.socket:
    """A bound, listening, non-blocking TCP socket."""
    # IPPROTO_TCP named: asyncio's loop sets TCP_NODELAY only on accepted sockets whose proto
    # says TCP (uvloop sets it on any); without it a chunk after the head waits on Nagle
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM,
                         socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if send_buffer_bytes is not None:  # accepted sockets inherit the listener's buffer size
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, send_buffer_bytes)
    try:
        sock.bind((host, port))
        sock.listen(backlog)
    except OSError as exc:  # the CLI prints it: say where
        sock.close()
        raise OSError(exc.errno, f"cannot listen on {host}:{port}: {exc.strerror}") from exc
    sock.setblocking(False)
    return sock


class ServingThread:
    """An asyncio server on a daemon thread (tests, the demo, benchmarks): :meth:`start` waits
    until it serves (or says why it did not), :meth:`stop` ends it. A subclass says how it
    serves (:meth:`_serve`), how to tell it serves (:meth:`_serving`) and how to ask it to
    stop (:meth:`_ask_to_stop`). ``what`` names it in start-up errors."""

    def __init__(self, host: str, port: int, *, name: str, what: str) -> None:
        self.host, self.port = host, port
        self._what = what
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._error: BaseException | None = None
        self.loop: asyncio.AbstractEventLoop | None = None  # the server's, once started

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    async def _serve(self) -> None:
        raise NotImplementedError

    def _serving(self) -> bool:
        raise NotImplementedError

    def _ask_to_stop(self) -> None:
        raise NotImplementedError

    def _prepare(self) -> None:
        """On the server's thread, before its loop starts."""

    def _stopped(self) -> None:
        """After the server's thread ended (or the stop's timeout passed)."""

    def _loop_factory(self) -> Callable[[], asyncio.AbstractEventLoop] | None:
        """The event loop to serve on (None: asyncio's own)."""
        return None

    def _run(self) -> None:
        async def main() -> None:
            self.loop = asyncio.get_running_loop()
            await self._serve()

        try:
            self._prepare()
            with asyncio.Runner(loop_factory=self._loop_factory()) as runner:
                runner.run(main())
        except BaseException as exc:  # reported by start()
            self._error = exc

    def start(self, timeout_s: float = 10.0) -> Self:
        self._thread.start()
        deadline = time.monotonic() + timeout_s
        while not self._serving():
            if self._error is not None or not self._thread.is_alive():
                raise RuntimeError(f"{self._what} failed to start: {self._error!r}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self._what} did not start in time")
            time.sleep(0.01)
        return self

    def stop(self, timeout_s: float = 10.0) -> None:
        self._ask_to_stop()
        self._thread.join(timeout_s)
        self._stopped()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class UvicornThread(ServingThread):
    """A ``uvicorn.Server`` serving ``sock`` on a daemon thread (the reference server's
    ``ServerThread`` and the gateway's ``GatewayThread``)."""

    def __init__(self, server: Any, sock: socket.socket, *, name: str, what: str) -> None:
        host, port = sock.getsockname()[:2]
        super().__init__(host, port, name=name, what=what)
        self._server = server
        self._sock = sock

    async def _serve(self) -> None:
        await self._server.serve(sockets=[self._sock])

    def _serving(self) -> bool:
        return bool(self._server.started)

    def _ask_to_stop(self) -> None:
        self._server.should_exit = True

    def _stopped(self) -> None:
        self._sock.close()
