"""Live connections of an HTTP server in this process, by (server address, client address).

A response asks here whether its client is still there, reads the connection's acknowledged
bytes (``delivery.py``) and aborts its own connection when the client reads nothing (a
graceful close would wait for bytes a stalled client never takes). The uvicorn protocol of
``limits.protocol_class`` adds and discards each connection. Shared by the reference server and
the gateway; no torch here.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
from collections.abc import MutableMapping
from typing import Any

from . import delivery

__all__ = ["PEER_KEY", "Connections"]

#: The scope key where the guarded protocol records the connection's own peer address:
#: uvicorn's proxy-headers middleware rewrites ``scope["client"]`` from X-Forwarded-For (it
#: trusts 127.0.0.1 by default), and a connection looked up by that would not be found.
PEER_KEY = "servescope.peer"


class Connections:
    """Live connections of every server in this process, by (server address, client
    address), so that a response can ask whether its client is still there and abort its
    own connection (a graceful close would wait for bytes a stalled client never takes)."""

    def __init__(self) -> None:
        self._live: dict[tuple[Any, Any], asyncio.Transport] = {}

    @staticmethod
    def key(server: Any, client: Any) -> tuple[Any, Any]:
        return (tuple(server) if server else None, tuple(client) if client else None)

    def add(self, server: Any, client: Any, transport: asyncio.Transport) -> None:
        self._live[self.key(server, client)] = transport

    def discard(self, server: Any, client: Any) -> None:
        self._live.pop(self.key(server, client), None)

    def _of(self, scope: MutableMapping[str, Any]) -> asyncio.Transport | None:
        peer = scope[PEER_KEY] if PEER_KEY in scope else scope.get("client")
        return self._live.get(self.key(scope.get("server"), peer))

    def transport(self, scope: MutableMapping[str, Any]) -> asyncio.Transport | None:
        """The connection carrying ``scope`` (None once it is gone): a response that asks
        often keeps it and reads ``is_closing()``."""
        return self._of(scope)

    def alive(self, scope: MutableMapping[str, Any]) -> bool:
        transport = self._of(scope)
        return transport is not None and not transport.is_closing()

    def probe(self, scope: MutableMapping[str, Any]) -> delivery.TcpProbe | None:
        """The connection's acknowledgement counters (None where the platform has none)."""
        transport = self._of(scope)
        return None if transport is None else delivery.open_probe(transport)

    def abort(self, scope: MutableMapping[str, Any]) -> None:
        """Reset the connection: SO_LINGER 0 makes the kernel drop the unsent bytes and send
        RST, where a plain close would keep trying to deliver them in the background."""
        transport = self._of(scope)
        if transport is None:
            return
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        transport.abort()
