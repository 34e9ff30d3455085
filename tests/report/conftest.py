"""One live run shared by the report tests: the reference server under a mixed load, a real
Prometheus scraping it every second with the generated rules (fast timing, so that the cancel
alert fires within the run), then ``servescope report`` over the whole run."""

from __future__ import annotations

import asyncio
import contextlib
import io
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import promharness as ph
import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from servescope.alerts.model import Options, RuleTiming
from servescope.alerts.render import dump, rules_document
from servescope.cli import main
from servescope.harness.loadgen import LoadConfig, Mix, run_load
from servescope.instrumentation.slo import SLOSpec
from servescope.reference.config import EngineConfig
from servescope.reference.transport.server import LocalServer

ALERT = "ServescopeCancelRatioHigh"


@dataclass
class LiveReport:
    prom: ph.PrometheusHandle
    path: Path
    start: float
    end: float
    stdout: str
    exporter: InMemorySpanExporter


@pytest.fixture(scope="session")
def live_report(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveReport]:
    if ph.prometheus_binary() is None:
        pytest.skip("needs the Debian prometheus package (make system-deps)")
    tmp = tmp_path_factory.mktemp("report")
    rules = tmp / "rules.yaml"
    rules.write_text(dump(rules_document(SLOSpec.default(), Options(timing=RuleTiming.fast()))))
    exporter = InMemorySpanExporter()
    config = EngineConfig(slow_consumer_timeout_s=0.5, max_waiting=8)
    with LocalServer(config, span_exporter=exporter) as server:
        prom = ph.start_prometheus(tmp, [server.url.removeprefix("http://")],
                                   rule_files=[rules])
        try:
            prom.wait_for_targets_up(timeout=20)
            start = time.time()
            load = LoadConfig(server.url, duration_s=15, concurrency=12, max_tokens=32,
                              mix=Mix.parse("fast=0.4,slow=0.1,cancel=0.35,deadline=0.15"),
                              grace_s=5)
            asyncio.run(run_load(load))
            prom.wait_for(lambda: prom.query(f'ALERTS{{alertname="{ALERT}",'
                                             'alertstate="firing"}') or None,
                          timeout=30, what=f"{ALERT} firing")
            loaded = time.time()
            # the last scrapes of the finished load: every target scraped twice since
            prom.wait_for(lambda: (prom.value("min(timestamp(up))") or 0) >= loaded + 2 or None,
                          timeout=30, what="two scrapes after the load")
            end = time.time()
        except BaseException:
            prom.stop()
            raise
    out = tmp / "report.html"
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(["report", "--prometheus", prom.url, "--start", f"{start - 2:.3f}",
                     "--end", f"{end:.3f}", "-o", str(out)])
    assert code == 0, buf.getvalue()
    yield LiveReport(prom, out, start - 2, end, buf.getvalue(), exporter)
    prom.stop()
