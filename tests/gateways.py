"""Shared pieces of the gateway tests: a gateway in front of a stub engine, metric reads."""

from __future__ import annotations

import asyncio
import contextlib
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
                            span_exporter=exporter, redaction=False)
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
