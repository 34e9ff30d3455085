"""Shared pieces of the gateway tests: a gateway in front of a stub engine, metric reads."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

import openai
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from servescope.gateway.config import GatewayConfig
from servescope.gateway.serving import LocalGateway
from servescope.harness.stub_engine import StubServer
from servescope.instrumentation.setup import setup_telemetry

MODEL = "stub-model"


@contextlib.contextmanager
def gateway_for(upstream: str, **config: Any) -> Iterator[LocalGateway]:
    """A gateway (spans to memory, unredacted so tests read them) in front of ``upstream``."""
    exporter = InMemorySpanExporter()
    setup = setup_telemetry(service_name="servescope-gateway",
                            model=config.get("model_name", "default"),
                            span_exporter=exporter, redaction=False, engine_levels=False)
    gw = LocalGateway(GatewayConfig(upstream=upstream, **config), telemetry_setup=setup)
    gw.exporter = exporter  # type: ignore[attr-defined]
    with gw:
        yield gw


@contextlib.contextmanager
def stub_and_gateway(**config: Any) -> Iterator[tuple[StubServer, LocalGateway]]:
    with StubServer() as stub, gateway_for(stub.url, **config) as gw:
        yield stub, gw


def sample(gw: LocalGateway, name: str, **labels: str) -> float:
    value = gw.telemetry.registry.get_sample_value(name, labels)
    return 0.0 if value is None else value


def finished(gw: LocalGateway, reason: str, model: str = MODEL) -> float:
    return sample(gw, "servescope_requests_finished_total", model=model,
                  finish_reason=reason)


def rejected(gw: LocalGateway, reason: str, model: str = "default") -> float:
    return sample(gw, "servescope_requests_rejected_total", model=model, reason=reason)


def tokens(gw: LocalGateway, stage: str, model: str = MODEL) -> float:
    return sample(gw, "servescope_tokens_total", model=model, stage=stage)


def busy_upstream_connections(gw: LocalGateway) -> int:
    """Upstream connections of the gateway's pool that are carrying a request (a leak when a
    request has ended)."""
    return len(gw.app.state.gateway.upstream.busy)


T = TypeVar("T")


async def concurrent_clients(url: str, one: Callable[[openai.AsyncOpenAI, int], Awaitable[T]],
                             requests: int, concurrency: int) -> list[T]:
    """``requests`` calls of ``one`` through one openai SDK client, ``concurrency`` at a time."""
    client = openai.AsyncOpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0)
    gate = asyncio.Semaphore(concurrency)

    async def bounded(i: int) -> T:
        async with gate:
            return await one(client, i)

    try:
        return list(await asyncio.gather(*(bounded(i) for i in range(requests))))
    finally:
        await client.close()


class ThreadedSocketServer:
    """A listening socket on 127.0.0.1 whose connections are each served by
    :meth:`connection` on a thread of their own (a scripted upstream's skeleton); ``accepted``
    counts them."""

    def __init__(self) -> None:
        self.accepted = 0
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            threading.Thread(target=self.connection, args=(conn,), daemon=True).start()

    def connection(self, conn: socket.socket) -> None:
        raise NotImplementedError

    def close(self) -> None:
        self.sock.close()


def read_request(conn: socket.socket, buf: bytes) -> tuple[bytes, bytes, bytes] | None:
    """The next request's head and body on ``conn`` (``buf``: bytes already read), and the
    bytes after them; None once the peer closes."""
    while b"\r\n\r\n" not in buf:
        data = conn.recv(65536)
        if not data:
            return None
        buf += data
    head, _, buf = buf.partition(b"\r\n\r\n")
    length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                   if line.lower().startswith(b"content-length:")), 0)
    while len(buf) < length:
        buf += conn.recv(65536)
    return head, buf[:length], buf[length:]
