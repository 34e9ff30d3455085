"""The Kubernetes scrape target of the reference server: a prometheus-operator ``PodMonitor``
that scrapes the metrics port (``servescope serve --metrics-port``), never the serving port.

Written by ``servescope generate`` beside the flavor's PrometheusRule (servescope flavor only:
vLLM, SGLang and TGI serve their metrics on their own ports, as their charts configure). The
pods it selects name their metrics container port ``metrics``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["METRICS_PORT", "METRICS_PORT_NAME", "pod_monitor", "render_k8s_scrape"]

#: The metrics port the compose stack and the manifests use (OpenTelemetry's Prometheus
#: exporter's default, clear of the serving port).
METRICS_PORT = 9464
METRICS_PORT_NAME = "metrics"
_LABELS = {"app.kubernetes.io/name": "servescope", "app.kubernetes.io/part-of": "servescope"}


def pod_monitor(*, namespace: str | None = None,
                labels: dict[str, str] | None = None) -> dict[str, Any]:
    """Scrape every pod labelled ``app.kubernetes.io/name: servescope`` on its ``metrics``
    port, as the rules' job (``servescope``), asking for OpenMetrics (exemplars)."""
    metadata: dict[str, Any] = {"name": "servescope-reference",
                                "labels": {**_LABELS, "app.kubernetes.io/component": "scrape",
                                           **(labels or {})}}
    if namespace:
        metadata["namespace"] = namespace
    return {"apiVersion": "monitoring.coreos.com/v1", "kind": "PodMonitor",
            "metadata": metadata,
            "spec": {"jobLabel": "app.kubernetes.io/name",
                     "selector": {"matchLabels": {"app.kubernetes.io/name": "servescope"}},
                     "podMetricsEndpoints": [{"port": METRICS_PORT_NAME, "path": "/metrics",
                                              "interval": "15s"}]}}


def render_k8s_scrape(flavor: str, *, header: str, namespace: str | None = None,
                      labels: dict[str, str] | None = None) -> dict[str, str]:
    """``deploy/kubernetes/servescope/podmonitor.yaml`` (nothing for the other flavors)."""
    if flavor != "servescope":
        return {}
    from servescope.alerts.render import dump

    note = (f"# The pods name their metrics container port `{METRICS_PORT_NAME}` "
            f"(`servescope serve --metrics-port {METRICS_PORT}`).\n")
    return {"deploy/kubernetes/servescope/podmonitor.yaml":
            dump(pod_monitor(namespace=namespace, labels=labels), header + note)}
