"""Whether a server in this process has a client's connection registered: the event a test
waits for instead of sleeping until the server "must" have accepted it."""

from __future__ import annotations

import socket

from servescope.reference.transport.server import CONNECTIONS


def registered(host: str, port: int, client: socket.socket) -> bool:
    """True while the server at ``host:port`` holds ``client``'s connection open (accepted
    and not yet lost or aborted)."""
    scope = {"server": (host, port), "client": client.getsockname()}
    return CONNECTIONS.alive(scope)
