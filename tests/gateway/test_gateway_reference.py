"""The gateway in front of a real engine (the reference server), a real client (the openai
SDK) in front of the gateway, over real sockets. For every request, joined by its trace id:

    client sent <= gateway arrival,  gateway stream TTFT <= client TTFT,
    gateway end <= client end,       the engine's span is a child of the gateway's,

and the token counts agree across the client (usage), the gateway and the engine."""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import dataclass

import openai
from gateways import concurrent_clients, gateway_for, sample, tokens
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from waiting import poll_until

from servescope.reference.config import EngineConfig, ModelConfig
from servescope.reference.transport.server import LocalServer

TINY = ModelConfig(dim=32, n_layers=1, n_heads=4, n_kv_heads=2, hidden_dim=64, max_context=256)
MODEL = "tiny-ref"
REQUESTS = 24
CONCURRENCY = 4


@dataclass
class Seen:
    trace_id: str
    sent: float
    first: float | None = None
    done: float | None = None
    completion_tokens: int = 0


async def _one(client: openai.AsyncOpenAI, i: int) -> Seen:
    seen = Seen(trace_id=secrets.token_hex(16), sent=time.monotonic())
    parent = f"00-{seen.trace_id}-{secrets.token_hex(8)}-01"
    stream = await client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": f"request {i}"}],
        max_tokens=8 + i % 9, stream=True, stream_options={"include_usage": True},
        extra_body={"ignore_eos": True}, extra_headers={"traceparent": parent})
    async for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content and seen.first is None:
            seen.first = time.monotonic()
        if chunk.usage is not None:
            seen.completion_tokens = chunk.usage.completion_tokens
    seen.done = time.monotonic()
    return seen


async def _clients(url: str) -> list[Seen]:
    return await concurrent_clients(url, _one, REQUESTS, CONCURRENCY)


def test_client_timings_never_precede_the_gateways_and_counts_agree() -> None:
    engine_spans = InMemorySpanExporter()
    config = EngineConfig(model=TINY, block_size=8, num_blocks=512, max_batch=8)
    with LocalServer(config, model_name=MODEL, span_exporter=engine_spans, redaction=False,
                     chunk_tokens=1) as server, \
            gateway_for(server.url, flavor="servescope") as gw:
        seen = asyncio.run(_clients(gw.url))
        poll_until(lambda: sample(gw, "servescope_requests_finished_total", model=MODEL,
                                  finish_reason="length") == REQUESTS,
                   what="every request finished at the gateway")
        gw.setup.force_flush()
        server.setup.force_flush()
        engine_committed = server.telemetry.registry.get_sample_value(
            "servescope_tokens_total", {"model": MODEL, "stage": "committed"})
        engine_prompt = server.telemetry.registry.get_sample_value(
            "servescope_tokens_total", {"model": MODEL, "stage": "prompt"})
        gateway_span_ns = gw.telemetry.span_ns
    total = sum(s.completion_tokens for s in seen)
    assert total == engine_committed == tokens(gw, "committed", MODEL) == \
        tokens(gw, "written", MODEL) == tokens(gw, "delivered", MODEL)
    assert tokens(gw, "prompt", MODEL) == engine_prompt
    spans = gw.exporter.get_finished_spans()
    requests = {format(s.context.trace_id, "032x"): s for s in spans if s.name.startswith("chat")}
    streams = {s.parent.span_id: s for s in spans if s.name == "stream" and s.parent}
    engine = {format(s.context.trace_id, "032x"): s for s in engine_spans.get_finished_spans()
              if s.name.startswith("chat")}
    late = []
    for c in seen:
        span = requests[c.trace_id]
        stream = streams[span.context.span_id]
        assert c.first is not None and c.done is not None
        if not (gateway_span_ns(c.sent) <= span.start_time
                and stream.start_time <= gateway_span_ns(c.first)
                and span.end_time <= gateway_span_ns(c.done)):
            late.append(c.trace_id)
        assert engine[c.trace_id].parent.span_id == span.context.span_id
        assert span.attributes["servescope.tokens.delivered"] == c.completion_tokens
    assert not late, f"{len(late)} of {REQUESTS} requests: a gateway time after the client's"
