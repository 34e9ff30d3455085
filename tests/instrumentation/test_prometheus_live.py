"""A real Prometheus scrapes a recorder-backed endpoint: SLO ratio and exemplars end to end."""

import time

import pytest
from prometheus_client import start_http_server
from promharness import free_port, prometheus_binary, start_prometheus

from servescope.instrumentation import FinishReason, StepReport, Telemetry

pytestmark = pytest.mark.integration


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def served(registry, tracing):
    clock = Clock()
    telemetry = Telemetry(registry=registry, tracer_provider=tracing.provider, model="m",
                          clock=clock)
    port = free_port()
    server, thread = start_http_server(port, addr="127.0.0.1", registry=registry)
    yield telemetry, clock, f"127.0.0.1:{port}", tracing.exporter
    server.shutdown()
    thread.join(5)


def drive(telemetry, clock, ttfts):
    """One request per TTFT value: arrival at 0, first token at ``ttft``, stop."""
    for i, ttft in enumerate(ttfts):
        clock.now = 0.0
        rec = telemetry.request(f"req-{i}")
        clock.now = ttft
        telemetry.step(StepReport(advanced=[(rec, 1, 0)]))
        rec.finish(FinishReason.STOP)


@pytest.mark.skipif(prometheus_binary() is None, reason="needs the Debian package prometheus")
def test_prometheus_computes_the_slo_ratio_and_resolves_exemplars(served, tmp_path):
    telemetry, clock, target, exporter = served
    # 15 requests within the 2 s TTFT threshold, 5 beyond it: SLI 0.75.
    drive(telemetry, clock, [0.4] * 10 + [1.9] * 5 + [3.0] * 5)
    start = time.time() - 60
    with start_prometheus(tmp_path, [target]) as prom:
        prom.wait_for_targets_up(timeout=30)
        # le="2.0" is what prometheus_client exposes (and what Prometheus 3 normalises to).
        sli = ("sum(gen_ai_server_time_to_first_token_seconds_bucket{le=~\"2(\\\\.0)?\"})"
               " / sum(gen_ai_server_time_to_first_token_seconds_count)")
        result = prom.wait_for_query(sli, timeout=30)
        assert float(result[0]["value"][1]) == pytest.approx(0.75)
        assert prom.value('sum(servescope_requests_finished_total{finish_reason="stop"})') == 20
        # no request id on any series Prometheus stored
        series = prom.api("series", **{"match[]": '{__name__=~"servescope_.+|gen_ai_.+"}'})
        assert series and not any(v.startswith("req-") for s in series for v in s.values())
        exemplars = prom.wait_for(
            lambda: prom.exemplars("gen_ai_server_time_to_first_token_seconds_bucket",
                                   start, time.time() + 60) or None, timeout=30)
    exported = {format(s.context.trace_id, "032x") for s in exporter.get_finished_spans()}
    got = {e["labels"]["trace_id"] for series in exemplars for e in series["exemplars"]}
    assert got and got <= exported
