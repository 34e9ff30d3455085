"""The load generator: its parsing, its arithmetic, and a short mixed run over real HTTP."""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Iterator

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from waiting import poll_until

from servescope.cli import main
from servescope.harness.load_summary import (
    format_summary,
    histogram_quantile,
    percentile,
    quantile_bucket,
    scrape,
    summarize,
)
from servescope.harness.loadgen import (
    LoadConfig,
    Mix,
    Reservoir,
    _Response,
    check_local_url,
    run_load,
)
from servescope.reference.config import EngineConfig, ModelConfig
from servescope.reference.transport.server import LocalServer

TINY = ModelConfig(dim=32, n_layers=1, n_heads=4, n_kv_heads=2, hidden_dim=64, max_context=256)
MODEL = "tiny-ref"


def test_mix_parses_weights_and_refuses_nonsense() -> None:
    assert Mix.parse("fast=3,slow=1") == Mix(fast=3, slow=1, cancel=0, deadline=0)
    assert Mix.parse(" fast = 0.5 , deadline=0.5 ").deadline == 0.5
    for bad, word in (("fast=1,turbo=2", "turbo"), ("fast=x", "not a number"),
                      ("fast=-1", ">= 0"), ("fast=0", "positive"), ("fast", "KIND=WEIGHT")):
        with pytest.raises(ValueError, match=word):
            Mix.parse(bad)


def test_mix_assigns_clients_in_proportion_and_keeps_every_kind() -> None:
    mix = Mix(fast=0.6, slow=0.2, cancel=0.1, deadline=0.1)
    assert sorted(mix.assign(10)) == sorted(["fast"] * 6 + ["slow"] * 2 + ["cancel",
                                                                            "deadline"])
    assert sorted(set(mix.assign(4))) == ["cancel", "deadline", "fast", "slow"]
    assert mix.assign(1) == ["fast"]
    for n in range(1, 40):
        assert len(mix.assign(n)) == n
    assert Mix.parse("slow=1").assign(3) == ["slow"] * 3


def test_only_this_machine_may_be_targeted() -> None:
    assert check_local_url("http://127.0.0.1:8123") == ("127.0.0.1", 8123)
    assert check_local_url("http://localhost:9") == ("127.0.0.1", 9)
    for url in ("http://example.com:80", "https://127.0.0.1:1", "http://10.0.0.1:8000"):
        with pytest.raises(ValueError, match=r"only http://127\.0\.0\.1"):
            check_local_url(url)
    with pytest.raises(ValueError, match="concurrency"):
        LoadConfig("http://127.0.0.1:1", concurrency=0)


def _chunked_sse(events: list[bytes]) -> bytes:
    head = (b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\n"
            b"transfer-encoding: chunked\r\n\r\n")
    body = b"".join(b"%x\r\n%s\r\n" % (len(e), e) for e in events)
    return head + body + b"0\r\n\r\n"


def test_response_parser_is_independent_of_how_bytes_arrive() -> None:
    events = [b'data: {"a": 1}\n\n', b'data: {"b": "x\\ny"}\n\ndata: {"c": 3}\n\n',
              b"data: [DONE]\n\n"]
    raw = _chunked_sse(events)
    whole = _Response()
    at_once = whole.feed(raw)
    assert at_once == [b'{"a": 1}', b'{"b": "x\\ny"}', b'{"c": 3}', b"[DONE]"]
    assert whole.complete and whole.status == 200
    for step in (1, 2, 3, 7):
        parser = _Response()
        got = []
        for i in range(0, len(raw), step):
            got += parser.feed(raw[i:i + step])
        assert got == at_once and parser.complete


def test_quantiles_follow_promql_and_exact_percentiles() -> None:
    buckets = [(0.1, 10.0), (0.5, 90.0), (1.0, 100.0), (math.inf, 100.0)]
    assert histogram_quantile(0.5, buckets) == pytest.approx(0.1 + 0.4 * 40 / 80)
    assert histogram_quantile(0.05, buckets) == pytest.approx(0.05)
    assert histogram_quantile(0.99, [(1.0, 1.0), (math.inf, 10.0)]) == 1.0
    assert histogram_quantile(0.5, []) is None
    assert percentile([3.0, 1.0, 2.0, None], 0.5) == 2.0
    assert percentile([1.0, 2.0], 0.99) == pytest.approx(1.99)
    assert percentile([], 0.5) is None
    # the bucket a quantile lies in: all the histogram knows, which no client contradicts
    assert quantile_bucket(0.5, buckets) == (0.1, 0.5)
    assert quantile_bucket(0.05, buckets) == (0.0, 0.1)
    assert quantile_bucket(0.99, [(1.0, 1.0), (math.inf, 10.0)]) == (1.0, math.inf)
    assert quantile_bucket(0.5, []) is None


def test_reservoir_keeps_memory_bounded_and_samples_uniformly() -> None:
    r = Reservoir(size=1000, seed=1)
    for i in range(100_000):
        r.add(float(i))
    assert len(r.values) == 1000 and r.seen == 100_000
    assert 40_000 < percentile(r.values, 0.5) < 60_000  # type: ignore[operator]


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    config = EngineConfig(model=TINY, block_size=8, num_blocks=512, max_batch=16,
                          step_delay_s=0.002)
    srv = LocalServer(config, model_name=MODEL, span_exporter=InMemorySpanExporter()).start()
    yield srv
    srv.stop()


def test_a_mixed_run_over_real_http_is_accounted_on_both_sides(server: LocalServer) -> None:
    config = LoadConfig(server.url, duration_s=2.5, concurrency=6,
                        mix=Mix(fast=1, slow=1, cancel=1, deadline=1), max_tokens=32,
                        slow_max_tokens=48, slow_read_bytes=512, slow_interval_s=0.01,
                        deadline_s=0.05, deadline_max_tokens=200, cancel_max_tokens=160,
                        grace_s=10, seed=3)
    before = scrape(server.url)
    load = asyncio.run(run_load(config, slo=server.telemetry.slo))
    assert server.engine.wait_idle(5.0)
    delta = scrape(server.url).minus(before)
    summary = summarize(load, delta, server.telemetry.slo)
    stats = load.stats
    assert load.model == MODEL  # discovered through /v1/models
    assert all(stats.by_kind[k] > 0 for k in ("fast", "slow", "cancel", "deadline"))
    recent = list(stats.recent)
    assert {r.finish for r in recent if r.kind == "cancel"} == {"client_cancel"}
    assert {r.finish for r in recent if r.kind == "deadline"} == {"deadline"}
    assert {r.finish for r in recent if r.kind in ("fast", "slow")} == {"length"}
    assert all(r.tokens == 32 for r in recent if r.kind == "fast")
    # Both sides agree on what happened.
    assert summary.server_arrived == stats.total
    assert sum(summary.server_finish.values()) == stats.total
    assert summary.server_finish.get("deadline") == stats.by_kind["deadline"]
    assert summary.server_finish.get("client_cancel") == stats.by_kind["cancel"]
    tokens = summary.tokens
    assert tokens["committed"] == tokens["delivered"] + tokens["discarded"]
    assert tokens["prompt"] == stats.total * len(config.prompt)
    # The client registry holds client-perceived latency under the catalog's client names.
    ttft_count = load.registry.get_sample_value(
        "servescope_client_time_to_first_token_seconds_count", {"model": MODEL})
    assert ttft_count == sum(1 for r in recent if r.ttft is not None)
    assert summary.client_latency["ttft"]["p50"] is not None
    assert summary.server_latency["ttft"]["p99"] is not None
    # each client TTFT is at least the server's (the server's stamps lie inside the client's),
    # so the client's p50 is never below the lower bound of the server p50's bucket
    low, high = summary.server_latency["ttft"]["p50_bucket"]
    assert low <= summary.client_latency["ttft"]["p50"] and low < high
    table = format_summary(summary)
    assert f"<= {high * 1000:.1f} ms" in table or f"{low * 1000:.1f}-{high * 1000:.1f} ms" in table
    for text in ("finish reason", "client_cancel", "TTFT", "TPOT", "goodput",
                 "generated-but-unsent waste", "committed", "discarded"):
        assert text in table


def test_load_command_prints_a_json_summary(server: LocalServer,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["load", "--url", server.url, "--duration", "1", "--concurrency", "2",
                 "--mix", "fast=1", "--max-tokens", "8", "--json"])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["requests"] >= 1 and summary["client_finish"] == {
        "length": summary["requests"]}


def test_load_command_exports_the_clients_series_while_it_runs(server: LocalServer,
                                                               capsys: pytest.CaptureFixture[str]
                                                               ) -> None:
    """What the dashboards' client panels read (Client TPOT, Client end-to-end, the client
    line of TTFT p95), scraped from the load's own port while it runs, as the compose
    stack's Prometheus does."""
    import socket
    import threading
    import urllib.request

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    scraped: list[str] = []

    def scrape_midway() -> None:
        def answer() -> str | None:
            try:
                text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics",
                                              timeout=2).read().decode()
            except OSError:
                return None
            return text if "servescope_client_time_to_first_token_seconds_count{" in text \
                else None
        scraped.append(poll_until(answer, timeout_s=20, what="the client series exported"))

    scraper = threading.Thread(target=scrape_midway)
    scraper.start()
    code = main(["load", "--url", server.url, "--duration", "3", "--concurrency", "2",
                 "--mix", "fast=1", "--max-tokens", "8", "--json",
                 "--metrics-port", str(port)])
    scraper.join(30)
    assert code == 0 and scraped
    text = scraped[0]
    for family in ("servescope_client_time_to_first_token_seconds",
                   "servescope_client_time_per_output_token_seconds",
                   "servescope_client_request_duration_seconds"):
        assert f"# TYPE {family} histogram" in text
    assert f'model="{MODEL}"' in text
    with pytest.raises(OSError):  # stopped with the load
        urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2)
    capsys.readouterr()


def test_load_command_refuses_remote_targets_and_bad_mixes(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["load", "--url", "http://192.0.2.1:80", "--duration", "1"]) == 2
    assert "only http://127.0.0.1" in capsys.readouterr().err
    assert main(["load", "--mix", "warp=1", "--duration", "1"]) == 2
    assert "warp" in capsys.readouterr().err
