"""The client panels with the load generators in their own job, as the stack scrapes them: a
real reference server scraped as ``servescope``, a real ``servescope load --metrics-port``
scraped as ``servescope-clients`` (deploy/prometheus/prometheus.yml), a real Prometheus
evaluating the generated rules. The Latency dashboard's client panels, queried as Grafana
sends them with ``$job`` set to the server's job, return data (their recordings read the
clients' job and file it under the job its servers run in)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import promharness as ph
import pytest

from servescope.reference.config import EngineConfig, ModelConfig
from servescope.reference.transport.server import LocalServer
from servescope.report.launcher import free_port

pytestmark = pytest.mark.skipif(ph.prometheus_binary() is None, reason="needs prometheus")

ROOT = Path(__file__).resolve().parents[2]
TINY = ModelConfig(dim=32, n_layers=1, n_heads=4, n_kv_heads=2, hidden_dim=64, max_context=256)
CLIENT_PANELS = ("TTFT p95: server vs stream vs client", "Client TPOT", "Client end-to-end")


def _client_queries(job: str) -> dict[str, list[str]]:
    board = json.loads((ROOT / "dashboards/generated/servescope/latency.json").read_text())
    panels = [p for row in board["panels"] for p in [row, *row.get("panels", [])]]
    out: dict[str, list[str]] = {}
    for panel in panels:
        if panel.get("title") in CLIENT_PANELS:
            out[panel["title"]] = [
                t["expr"].replace("$job", job).replace("$model", ".*")
                for t in panel["targets"] if "servescope_client_" in t["expr"]]
    return out


def test_the_client_panels_fill_with_the_load_generators_in_their_own_job(tmp_path) -> None:
    queries = _client_queries("servescope")
    assert set(queries) == set(CLIENT_PANELS) and all(queries.values())
    config = EngineConfig(model=TINY, block_size=8, num_blocks=256, max_batch=8)
    metrics_port = free_port()
    with LocalServer(config, model_name="tiny", redaction=False) as server:
        load = subprocess.Popen(
            [sys.executable, "-m", "servescope", "load", "--url", server.url,
             "--duration", "40", "--concurrency", "2", "--max-tokens", "8",
             "--metrics-port", str(metrics_port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            rules = ROOT / "alerts/generated/servescope/rules.yaml"
            with ph.start_prometheus(
                    tmp_path, [f"127.0.0.1:{server.http.port}"], rule_files=[rules],
                    extra_jobs={"servescope-clients": [f"127.0.0.1:{metrics_port}"]}) as prom:
                for title, exprs in queries.items():
                    for expr in exprs:
                        found = prom.wait_for_query(expr, timeout=40)
                        assert found, f"{title}: {expr} returned nothing"
                # the server panels' job filter and the clients' recording agree on the job
                jobs = {s["metric"]["job"] for s in prom.query(
                    "servescope_job:servescope_client_time_to_first_token_seconds_bucket:rate1m")}
                assert jobs == {"servescope"}
        finally:
            load.terminate()
            load.wait(30)
