"""The floor of a Python asyncio proxy: a byte relay on uvloop, nothing read or measured.

Each client connection gets its own upstream connection; every read on one side is written
to the other in the protocol callback itself (no task, no parsing, no HTTP, no telemetry),
with reading paused on one side while the other's write buffer is full. Whatever this costs
per chunk and adds to TTFT, no Python proxy on the same event loop can go below:
``benchmarks/gateway.py --floor`` runs it as one more path.

Run: ``python -P benchmarks/bare_relay.py --port N --upstream-port M``.
"""

from __future__ import annotations

import argparse
import asyncio
import socket


class _Side(asyncio.Protocol):
    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.peer: _Side | None = None
        self.early: list[bytes] = []  # client bytes before the upstream connected

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def data_received(self, data: bytes) -> None:
        peer = self.peer
        if peer is None or peer.transport is None:
            self.early.append(data)
        else:
            peer.transport.write(data)

    def pause_writing(self) -> None:
        if self.peer is not None and self.peer.transport is not None:
            self.peer.transport.pause_reading()

    def resume_writing(self) -> None:
        if self.peer is not None and self.peer.transport is not None:
            self.peer.transport.resume_reading()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.peer is not None and self.peer.transport is not None:
            self.peer.transport.close()


class _Client(_Side):
    def __init__(self, upstream_port: int) -> None:
        super().__init__()
        self.upstream_port = upstream_port

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        asyncio.get_running_loop().create_task(self._connect())

    async def _connect(self) -> None:
        loop = asyncio.get_running_loop()
        _, upstream = await loop.create_connection(_Side, "127.0.0.1", self.upstream_port)
        upstream.peer, self.peer = self, upstream
        assert upstream.transport is not None
        for data in self.early:
            upstream.transport.write(data)
        self.early.clear()


async def _serve(port: int, upstream_port: int) -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: _Client(upstream_port), "127.0.0.1", port,
                                      backlog=1024)
    async with server:
        await server.serve_forever()


def main() -> None:
    import uvloop

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--upstream-port", type=int, required=True)
    args = parser.parse_args()
    uvloop.run(_serve(args.port, args.upstream_port))


if __name__ == "__main__":
    main()
