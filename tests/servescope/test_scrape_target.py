"""The Kubernetes outputs scrape the reference server's metrics port, as the compose stack
does, never its serving port."""

from __future__ import annotations

from pathlib import Path

import yaml

from servescope.cli import build_parser
from servescope.scrape_target import METRICS_PORT, METRICS_PORT_NAME, pod_monitor

ROOT = Path(__file__).resolve().parents[2]


def test_the_generated_pod_monitor_scrapes_the_metrics_port() -> None:
    doc = yaml.safe_load((ROOT / "deploy/kubernetes/servescope/podmonitor.yaml").read_text())
    assert doc == pod_monitor()
    assert doc["kind"] == "PodMonitor"
    endpoint = doc["spec"]["podMetricsEndpoints"]
    assert endpoint == [{"port": METRICS_PORT_NAME, "path": "/metrics", "interval": "15s"}]
    assert doc["spec"]["selector"]["matchLabels"] == {"app.kubernetes.io/name": "servescope"}


def test_namespace_and_labels_reach_the_pod_monitor() -> None:
    doc = pod_monitor(namespace="obs", labels={"release": "kps"})
    assert doc["metadata"]["namespace"] == "obs" and doc["metadata"]["labels"]["release"] == "kps"


def test_compose_servers_expose_the_same_metrics_port() -> None:
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    parser = build_parser()
    for name in ("server-1", "server-2", "server-gpu"):
        args = parser.parse_args(compose["services"][name]["command"][1:])
        assert args.metrics_port == METRICS_PORT
