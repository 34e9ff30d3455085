"""Load configs run in their own processes, started together, over real HTTP."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from servescope.harness.load_process import ClientReport, run_apart
from servescope.harness.load_summary import scrape
from servescope.harness.loadgen import LoadConfig, Mix
from servescope.reference.config import EngineConfig, ModelConfig
from servescope.reference.transport.server import LocalServer

TINY = ModelConfig(dim=32, n_layers=1, n_heads=4, n_kv_heads=2, hidden_dim=64, max_context=256)


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    config = EngineConfig(model=TINY, block_size=8, num_blocks=512, max_batch=16,
                          step_delay_s=0.002, stream_capacity=16, stream_low_watermark=4)
    srv = LocalServer(config, model_name="tiny-ref", span_exporter=InMemorySpanExporter())
    yield srv.start()
    srv.stop()


def _fast(url: str) -> LoadConfig:
    return LoadConfig(url, duration_s=1.0, concurrency=2, mix=Mix.parse("fast=1"),
                      max_tokens=16, grace_s=10)


def _slow(url: str, duration_s: float) -> LoadConfig:
    return LoadConfig(url, duration_s=duration_s, concurrency=2, mix=Mix.parse("slow=1"),
                      slow_max_tokens=200, slow_read_bytes=512, slow_interval_s=0.05,
                      grace_s=30)


def test_each_kind_reports_what_its_clients_saw(server: LocalServer) -> None:
    before = scrape(server.url)
    reports = run_apart({"fast": _fast(server.url), "slow": _slow(server.url, 1.0)},
                        wait_for="fast", timeout_s=60, linger_s=60)
    assert server.engine.wait_idle(10.0)
    fast, slow = reports["fast"], reports["slow"]
    assert isinstance(fast, ClientReport) and isinstance(slow, ClientReport)
    assert fast.total > 0 and fast.finish == {"length": fast.total}
    assert len(fast.values("tpot", "fast")) == fast.total
    assert fast.values("tpot", "slow") == [] and slow.values("ttft", "fast") == []
    assert slow.total > 0 and len(slow.values("ttft", "slow")) == slow.total
    # Both processes' requests reached this server, and only theirs.
    delta = scrape(server.url).minus(before)
    assert delta.total("servescope_requests_finished_total") == fast.total + slow.total


def test_a_kind_that_outlives_the_one_waited_for_is_killed(server: LocalServer) -> None:
    before = scrape(server.url)
    reports = run_apart({"fast": _fast(server.url), "slow": _slow(server.url, 60.0)},
                        wait_for="fast", timeout_s=60)
    assert reports["slow"] is None
    fast = reports["fast"]
    assert fast is not None and fast.total > 0
    assert server.engine.wait_idle(10.0)  # the killed clients' requests end: client_cancel
    finished = scrape(server.url).minus(before).by_label(
        "servescope_requests_finished_total", "finish_reason")
    assert finished.get("length", 0) == fast.total
    assert finished.get("client_cancel", 0) >= 1
