"""The dashboards without Grafana: a self-contained HTML report drawn from a real Prometheus.

``build_report`` evaluates every panel of the generated dashboards over a range (query_range,
query_exemplars, the ALERTS series) and draws them with matplotlib as inline SVG;
``start_prometheus`` launches a loopback Prometheus for the demo. The worker (``reference``)
never imports this package; the command layer joins them. Drawing needs the ``report`` extra
(matplotlib): import ``servescope.report.dashboard`` for it; this module stays light.
"""

from __future__ import annotations

from .boards import Board, TimeRange, available_flavors, generated_dir, load_boards
from .launcher import LaunchError, LocalPrometheus, prometheus_binary, start_prometheus
from .prometheus import PrometheusClient, PrometheusError, parse_duration

__all__ = [
    "Board",
    "LaunchError",
    "LocalPrometheus",
    "PrometheusClient",
    "PrometheusError",
    "TimeRange",
    "available_flavors",
    "generated_dir",
    "load_boards",
    "parse_duration",
    "prometheus_binary",
    "start_prometheus",
]
