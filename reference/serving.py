"""Serving an ASGI app with uvicorn on a socket we bind ourselves, in the foreground or on a
background thread: one piece for the reference server and the gateway (torch-free, so the
gateway can import it).

The listener is ours, not uvicorn's, so that its send buffer size (which accepted sockets
inherit) and backlog are set before the first connection, and so that port 0 picks a free
port whose number is known before the server starts.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from typing import Any

__all__ = ["UvicornThread", "listen"]


def listen(host: str, port: int, send_buffer_bytes: int | None, backlog: int) -> socket.socket:
    """A bound, listening, non-blocking TCP socket."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if send_buffer_bytes is not None:  # accepted sockets inherit the listener's buffer size
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, send_buffer_bytes)
    sock.bind((host, port))
    sock.listen(backlog)
    sock.setblocking(False)
    return sock


class UvicornThread:
    """A ``uvicorn.Server`` serving ``sock`` on a daemon thread (tests, the demo, benchmarks,
    ``LocalServer`` and ``LocalGateway``). ``what`` names it in start-up errors."""

    def __init__(self, server: Any, sock: socket.socket, *, name: str, what: str) -> None:
        self._server = server
        self._sock = sock
        self._what = what
        self.host, self.port = sock.getsockname()[:2]
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._error: BaseException | None = None
        self.loop: asyncio.AbstractEventLoop | None = None  # the server's, once started

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def _run(self) -> None:
        async def main() -> None:
            self.loop = asyncio.get_running_loop()
            await self._server.serve(sockets=[self._sock])

        try:
            asyncio.run(main())
        except BaseException as exc:  # reported by start()
            self._error = exc

    def start(self, timeout_s: float = 10.0) -> UvicornThread:
        self._thread.start()
        deadline = time.monotonic() + timeout_s
        while not self._server.started:
            if self._error is not None or not self._thread.is_alive():
                raise RuntimeError(f"{self._what} failed to start: {self._error!r}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self._what} did not start in time")
            time.sleep(0.01)
        return self

    def stop(self, timeout_s: float = 10.0) -> None:
        self._server.should_exit = True
        self._thread.join(timeout_s)
        self._sock.close()

    def __enter__(self) -> UvicornThread:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
