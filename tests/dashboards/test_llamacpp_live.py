"""A live third-party engine: llama.cpp's llama-server (built from source, tests/llamacpp.py)
serving a tiny random-weight GGUF, ``servescope gateway --flavor llamacpp`` in front of it, a
real client (the openai SDK) in front of the gateway, and a real Prometheus scraping both the
engine (job ``llamacpp``, the flavor's scrape job) and the gateway (job ``servescope-gateway``).

Checked, per request joined by trace id: client sent <= gateway arrival, gateway stream TTFT <=
client TTFT, gateway end <= client end. Counted three ways, equal: generated tokens (client
usage, gateway, ``llamacpp:tokens_predicted_total``), prompt tokens (client usage,
``llamacpp:prompt_tokens_total`` + ``_cached_total``), requests (client, gateway). A client
that disconnects mid-stream frees its slot (``llamacpp:requests_processing`` drops back, the
slot generated far fewer tokens than asked). Every panel of the llamacpp flavor's dashboards
returns data from this Prometheus, or is listed below with why it is empty.

No skip: without a built llama-server the module fails, saying to run ``make llamacpp-deps``.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import openai
import promharness as ph
import pytest
from gateways import concurrent_clients, gateway_for, sample, tokens
from llamacpp import engine_files, start_llama_server, write_tiny_model
from waiting import poll_until

from servescope.dashboards import lint
from servescope.promql.flavor import GATEWAY_JOB, LLAMACPP

ROOT = Path(__file__).resolve().parents[2]
MODEL = "tiny"
REQUESTS = 12
CONCURRENCY = 2  # the server's slots
LONG = 3000  # tokens asked of the request the client abandons (its slot's context allows it)

#: llamacpp-flavor panels with queries that stay empty in this run, and why (the panels with
#: no query at all say why in their own description: the engine has no such metric).
EMPTY_HERE = {
    "Slow-consumer finishes": "no client here reads slowly enough to be cut",
    "Backpressure pauses": "no client here stops reading long enough to pause a stream",
    "Pause time": "as above: nothing paused",
    "Redactions by kind": "the test gateway runs unredacted (so that it can read spans)",
    "Folded label values": "the label guard folds nothing: one model, one priority",
    "Hook errors": "no hook fails",
    "Ignored terminal signals": "no request gets a second terminal signal",
    "Send-queue peak occupancy": "the gateway relays through a byte-bounded buffer and "
                                     "records no token send-queue peak",
    "Spans dropped": "the gateway's exporter drops nothing (filled only when it does)",
    "Discarded tokens/s": "filled only when the client leaves while the gateway holds tokens "
                          "read from llama.cpp but not yet written: a matter of timing here",
    "Discarded / committed": "as above: discarded tokens depend on the disconnect's timing",
    "Waste per request": "as above: discarded tokens depend on the disconnect's timing",
}


@dataclass
class Seen:
    trace_id: str
    sent: float
    first: float | None = None
    done: float | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0


def _engine_metrics(url: str) -> dict[str, float]:
    """llama-server's own /metrics, read directly (name -> value; no labels but one)."""
    with urllib.request.urlopen(f"{url}/metrics", timeout=10) as resp:
        text = resp.read().decode()
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#") and "{" not in line:
            name, value = line.rsplit(" ", 1)
            out[name] = float(value)
    return out


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    binary, vocab = engine_files()
    tmp = tmp_path_factory.mktemp("llamacpp")
    model = write_tiny_model(tmp / "tiny.gguf", vocab, context=LONG + 512)
    server = start_llama_server(binary, model, ph.free_port(), tmp / "llama-server.log",
                                slots=CONCURRENCY, context=LONG + 512)
    try:
        poll_until(lambda: urllib.request.urlopen(f"{server.url}/health", timeout=5).status
                   == 200, what="llama-server healthy", timeout_s=180, interval_s=0.2,
                   transient=(OSError,), alive=server.process)
        with gateway_for(server.url, flavor="llamacpp", model_name=MODEL) as gw:
            prom = ph.start_prometheus(
                tmp, [gw.url.removeprefix("http://")], job=GATEWAY_JOB,
                scrape_configs=[LLAMACPP.scrape_job([server.target])])
            try:
                prom.wait_for_targets_up(timeout=60)
                yield server, gw, prom
            finally:
                prom.stop()
    finally:
        server.stop()


async def _one(client: openai.AsyncOpenAI, i: int) -> Seen:
    seen = Seen(trace_id=secrets.token_hex(16), sent=time.monotonic())
    parent = f"00-{seen.trace_id}-{secrets.token_hex(8)}-01"
    stream = await client.completions.create(
        model=MODEL, prompt=f"Request number {i} says", max_tokens=8 + i % 5, stream=True,
        stream_options={"include_usage": True}, extra_body={"ignore_eos": True},
        extra_headers={"traceparent": parent})
    async for chunk in stream:
        if chunk.choices and chunk.choices[0].text and seen.first is None:
            seen.first = time.monotonic()
        if chunk.usage is not None:
            seen.prompt_tokens = chunk.usage.prompt_tokens
            seen.completion_tokens = chunk.usage.completion_tokens
    seen.done = time.monotonic()
    return seen


async def _clients(url: str) -> list[Seen]:
    return await concurrent_clients(url, _one, REQUESTS, CONCURRENCY)


async def _abandon(url: str, engine_url: str) -> float:
    """Start a long stream, read until its slot is busy, then disconnect; the engine's
    requests_processing while the stream was open."""
    client = openai.AsyncOpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0)
    try:
        stream = await client.completions.create(
            model=MODEL, prompt="A long story", max_tokens=LONG, stream=True,
            extra_body={"ignore_eos": True})
        chunks = 0
        async for _ in stream:
            chunks += 1
            if chunks == 3:
                break
        busy = await asyncio.to_thread(
            lambda: _engine_metrics(engine_url)["llamacpp:requests_processing"])
        await stream.response.aclose()  # the client goes away mid-stream
        return busy
    finally:
        await client.close()


def test_counts_and_timings_agree_across_client_gateway_and_llamacpp(live) -> None:
    server, gw, prom = live
    before = _engine_metrics(server.url)
    seen = asyncio.run(_clients(gw.url))
    poll_until(lambda: sample(gw, "servescope_requests_finished_total", model=MODEL,
                              finish_reason="length") == REQUESTS,
               what="every request finished at the gateway")
    after = _engine_metrics(server.url)
    predicted = after["llamacpp:tokens_predicted_total"] - \
        before["llamacpp:tokens_predicted_total"]
    prompt = sum(after[f"llamacpp:{n}"] - before[f"llamacpp:{n}"]
                 for n in ("prompt_tokens_total", "prompt_tokens_cached_total"))
    completion = sum(s.completion_tokens for s in seen)
    assert completion == sum(8 + i % 5 for i in range(REQUESTS))  # ignore_eos: all asked
    assert completion == predicted == tokens(gw, "committed", MODEL) == \
        tokens(gw, "written", MODEL) == tokens(gw, "delivered", MODEL)
    assert sum(s.prompt_tokens for s in seen) == prompt
    # Prometheus stored the same counts from both targets
    prom.wait_for(lambda: prom.value('sum(llamacpp:tokens_predicted_total{job="llamacpp"})')
                  == after["llamacpp:tokens_predicted_total"] or None,
                  timeout=30, what="the engine's counter scraped")
    prom.wait_for(lambda: prom.value(
        f'sum(servescope_requests_finished_total{{job="{GATEWAY_JOB}",'
        f'finish_reason="length"}})') == REQUESTS or None,
        timeout=30, what="the gateway's finishes scraped")

    gw.setup.force_flush()
    spans = gw.exporter.get_finished_spans()
    requests = {format(s.context.trace_id, "032x"): s for s in spans
                if s.parent is not None and s.parent.is_remote}
    streams = {s.parent.span_id: s for s in spans if s.name == "stream" and s.parent}
    late = []
    for c in seen:
        span = requests[c.trace_id]
        stream = streams[span.context.span_id]
        assert c.first is not None and c.done is not None
        ns = gw.telemetry.span_ns
        if not (ns(c.sent) <= span.start_time and stream.start_time <= ns(c.first)
                and span.end_time <= ns(c.done)):
            late.append(c.trace_id)
    assert not late, f"{len(late)} of {REQUESTS} requests: a gateway time after the client's"


def test_a_client_disconnect_frees_the_llamacpp_slot(live) -> None:
    server, gw, prom = live
    cancels = sample(gw, "servescope_requests_finished_total", model=MODEL,
                     finish_reason="client_cancel")
    before = _engine_metrics(server.url)["llamacpp:tokens_predicted_total"]
    busy = asyncio.run(_abandon(gw.url, server.url))
    assert busy == 1  # the slot was generating when the client left
    poll_until(lambda: _engine_metrics(server.url)["llamacpp:requests_processing"] == 0,
               what="llama.cpp's slot freed after the client left", timeout_s=60)
    generated = _engine_metrics(server.url)["llamacpp:tokens_predicted_total"] - before
    assert 0 < generated < LONG  # stopped by the disconnect, not by finishing
    poll_until(lambda: sample(gw, "servescope_requests_finished_total", model=MODEL,
                              finish_reason="client_cancel")
               == cancels + 1, what="the gateway counted the client cancel")
    prom.wait_for(lambda: prom.value('max(llamacpp:requests_processing{job="llamacpp"})')
                  == 0 or None, timeout=30, what="Prometheus saw the slot free")


def _substitute(expr: str) -> str:
    return (expr.replace("$__rate_interval", "1m").replace("$__range", "5m")
            .replace("$job", "llamacpp").replace("$instance", ".*").replace("$model", ".*")
            .replace("$gateway", GATEWAY_JOB))


def test_every_llamacpp_panel_returns_data_or_says_why_not(live) -> None:
    server, gw, prom = live
    done = {r: sample(gw, "servescope_requests_finished_total", model=MODEL, finish_reason=r)
            for r in ("length", "client_cancel")}
    if not done["length"]:  # this test alone: traffic of its own
        asyncio.run(_clients(gw.url))
    if not done["client_cancel"]:
        asyncio.run(_abandon(gw.url, server.url))
    # three scrapes of both targets after the last event: every rate window holds it
    after = time.time() + 3
    prom.wait_for(lambda: prom.value('min(timestamp(up{job=~"llamacpp|' + GATEWAY_JOB +
                                     '"}))') > after or None,  # type: ignore[operator]
                  timeout=30, what="scrapes after the traffic")
    filled, no_metric, empty, errors = [], [], [], []
    for path in sorted((ROOT / "dashboards" / "generated" / "llamacpp").glob("*.json")):
        board = json.loads(path.read_text())
        for panel in lint.panels(board):
            where = f"{path.stem} › {panel['title']}"
            exprs = [t["expr"] for t in panel.get("targets", [])]
            if not exprs:
                assert "exposes no metric for this panel" in panel["description"], where
                no_metric.append(where)
                continue
            try:
                results = [prom.query(_substitute(e)) for e in exprs]
            except ph.PromQueryError as exc:
                errors.append(f"{where}: {exc}")
                continue
            (filled if any(results) else empty).append((where, panel["title"]))
    assert errors == []
    unexplained = [w for w, title in empty if title not in EMPTY_HERE]
    assert unexplained == [], "\n".join(unexplained)
    print(f"\nllamacpp panels: {len(filled)} with data, {len(empty)} empty here "
          f"({', '.join(t for _, t in empty)}: reasons in EMPTY_HERE), {len(no_metric)} "
          "with no metric (reason in the panel)")
    assert len(filled) >= 35
