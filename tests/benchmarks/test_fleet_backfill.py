"""benchmarks/fleet.py's backfill: the history promtool loads is the one the live replay
continues, and its SLO first stage holds the rate a real Prometheus computes from the raw
history (real promtool, real Prometheus)."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from types import ModuleType

import pytest
from benchmark_scripts import load_benchmark

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    shutil.which("promtool") is None or shutil.which("prometheus") is None,
    reason="needs promtool and prometheus (Debian prometheus)")


def _fleet() -> ModuleType:
    return load_benchmark("fleet")


def test_labels_go_first_whatever_the_sample_carries() -> None:
    fleet = _fleet()
    assert fleet.labelled('a_total{model="m0"} ', 'job="j"') == 'a_total{job="j",model="m0"} '
    assert fleet.labelled("a_total ", 'job="j"') == 'a_total{job="j"} '
    assert fleet.labelled("a_total{} ", 'job="j"') == 'a_total{job="j"} '


def test_backfilled_history_holds_the_rates_the_rules_compute(tmp_path: Path) -> None:
    fleet = _fleet()
    text = fleet.production_mix()
    replicas, step = 3, 900
    start = int(time.time())
    origin = start - 4 * 3600
    done = fleet.backfill(text, replicas, tmp_path, origin, start, step)
    _, samples = fleet.parse(text)
    records = fleet.windowed_records(fleet.rules_document(fleet.SLOSpec.default(),
                                                          fleet.Options()))
    raw = len(range(origin, start - step // 2, step))
    recorded = len(range(origin + 300, start - 7, 15))
    assert {r["record"] for r in records} == {"servescope_job:slo_bad:rate5m",
                                              "servescope_job:slo_all:rate5m"}
    assert done.samples == raw * replicas * len(samples) + recorded * 3 * len(records)

    prom = fleet.start_prometheus(tmp_path, {"global": {"evaluation_interval": "15s"}})
    try:
        at = str(start - 2 * 3600)  # on a raw sample; the window spans three of them

        def by_model(query: str) -> dict[str, float]:
            data, _ = prom.get("/api/v1/query", query=query, time=at)
            return {r["metric"]["model"]: float(r["value"][1]) for r in data["result"]}

        recorded_all = by_model('servescope_job:slo_all:rate5m{slo="availability"}')
        from_raw = by_model("sum by (job, model) "
                            "(rate(servescope_requests_finished_total[45m]))")
        assert set(recorded_all) == {"m0", "m1", "m2"} and recorded_all.keys() == from_raw.keys()
        for model, value in from_raw.items():
            assert recorded_all[model] == pytest.approx(value, rel=1e-6), model
        bad = by_model('servescope_job:slo_bad:rate5m{slo="ttft"}')
        ttft = by_model('servescope_job:slo_all:rate5m{slo="ttft"}')
        assert len(bad) == 3 and all(0 < bad[m] < ttft[m] for m in bad)

        # the live replay continues the history: a replica's counter is its captured value
        # times its growth at any backfilled time, with no reset
        finished = next(s for s in samples if s.prefix.startswith(
            "servescope_requests_finished_total{"))
        selector = fleet.labelled(finished.prefix, f'instance="{fleet.instance(1)}"').strip()
        data, _ = prom.get("/api/v1/query", query=selector, time=at)
        pace = fleet.paces(replicas)[1]
        expected = finished.value * fleet.growth(pace, start - 2 * 3600 - origin)
        assert float(data["result"][0]["value"][1]) == pytest.approx(expected, rel=1e-9)
        data, _ = prom.get("/api/v1/query", time=str(start),
                           query="sum(resets(servescope_requests_finished_total[5h]))")
        assert float(data["result"][0]["value"][1]) == 0
        data, _ = prom.get("/api/v1/query", time=str(start),
                           query="min(count_over_time(servescope_job:slo_all:rate5m[5h]))")
        assert float(data["result"][0]["value"][1]) == recorded
    finally:
        prom.stop()
