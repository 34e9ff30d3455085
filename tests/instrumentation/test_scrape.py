"""A scrape storm costs one render per interval, and /metrics can be served from a port of its
own (``metrics_port``), in its own threads, with the same series as the serving port."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client import CollectorRegistry

from servescope.instrumentation import Telemetry
from servescope.instrumentation import catalog as cat
from servescope.instrumentation.scrape import CachedExposition, MetricsServer
from servescope.reference.config import EngineConfig, ModelConfig
from servescope.reference.transport.server import LocalServer

TINY = ModelConfig(dim=32, n_layers=1, n_heads=4, n_kv_heads=2, hidden_dim=64, max_context=64)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_sixteen_concurrent_scrapers_share_one_render_per_interval() -> None:
    clock = Clock()
    registry = CollectorRegistry()
    Telemetry(registry=registry, model="m")
    exposition = CachedExposition(registry, interval_s=1.0, clock=clock)
    start = threading.Barrier(16)

    def scrape(_: int) -> bytes:
        start.wait()
        return exposition("text/plain")[0]

    with ThreadPoolExecutor(16) as pool:
        bodies = set(pool.map(scrape, range(16)))
    assert exposition.renders == 1 and len(bodies) == 1
    clock.now += 1.5  # the next interval renders again, once
    for _ in range(5):
        exposition("text/plain")
    assert exposition.renders == 2
    exposition("application/openmetrics-text; version=1.0.0")  # another format: its own
    assert exposition.renders == 3


def test_with_no_cache_age_a_scrape_sees_what_happened_before_it() -> None:
    registry = CollectorRegistry()
    tel = Telemetry(registry=registry, model="m")
    exposition = CachedExposition(registry, interval_s=60.0)
    exposition(None, 0.0)
    tel.metrics.child(cat.ARRIVED, model="m", priority="default").inc(7)
    assert b'priority="default"} 7.0' in exposition(None, 0.0)[0]


def test_the_metrics_port_serves_the_same_series_off_the_serving_port() -> None:
    config = EngineConfig(model=TINY, block_size=8, num_blocks=64, max_batch=4,
                          metrics_port=0, metrics_cache_s=0.2)
    with LocalServer(config, model_name="tiny", span_exporter=InMemorySpanExporter()) as srv:
        assert srv.metrics is not None and srv.metrics_url != srv.url
        done = httpx.post(f"{srv.url}/v1/completions", timeout=30,
                          json={"model": "tiny", "prompt": "hi", "max_tokens": 2})
        assert done.status_code == 200
        serving = httpx.get(f"{srv.url}/metrics", timeout=10)
        time.sleep(0.25)  # past the cache interval: the metrics port renders afresh
        own = httpx.get(f"{srv.metrics_url}/metrics", timeout=10,
                        headers={"accept": "application/openmetrics-text; version=1.0.0"})
        assert own.status_code == 200 and own.headers["content-type"].startswith(
            "application/openmetrics-text")
        line = 'servescope_requests_finished_total{finish_reason="length",model="tiny"} 1.0'
        assert line in serving.text and line in own.text
        assert httpx.get(f"{srv.metrics_url}/v1/models", timeout=10).status_code == 404
        renders = srv.metrics.exposition.renders
        started = time.monotonic()
        with ThreadPoolExecutor(16) as pool:
            codes = list(pool.map(lambda _: httpx.get(f"{srv.metrics_url}/metrics",
                                                      timeout=10).status_code, range(160)))
        elapsed = time.monotonic() - started
        assert codes == [200] * 160
        # one render per 0.2 s interval at most (plus the one in flight at each edge)
        assert srv.metrics.exposition.renders - renders <= 2 + elapsed / 0.2


def test_a_metrics_server_closes_cleanly() -> None:
    registry = CollectorRegistry()
    Telemetry(registry=registry, model="m")
    with MetricsServer(CachedExposition(registry)) as server:
        assert httpx.get(f"{server.url}/metrics", timeout=10).status_code == 200
        assert httpx.get(f"{server.url}/healthz", timeout=10).status_code == 200
