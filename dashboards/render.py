"""Render every dashboard of a flavor to JSON text (what ``servescope generate`` writes)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import yaml

from servescope.instrumentation.slo import SLOSpec
from servescope.promql.flavor import Flavor

from . import capacity, latency, overview, pipeline, transport
from .common import Ctx
from .panels import Board

__all__ = ["BUILDERS", "dashboards", "render"]

BUILDERS: dict[str, Callable[[Ctx], Board]] = {
    "overview": overview.build,
    "latency": latency.build,
    "capacity": capacity.build,
    "transport": transport.build,
    "pipeline": pipeline.build,
}


def dashboards(slo: SLOSpec, flavor: Flavor, *,
               recorded: bool = True) -> dict[str, dict[str, Any]]:
    """Dashboard JSON documents by key (overview, latency, ...). ``recorded=False``: every
    query on raw series (what the fleet benchmark compares the generated ones with)."""
    ctx = Ctx.for_dashboards(slo, flavor, recorded=recorded)
    return {key: build(ctx).to_json() for key, build in BUILDERS.items()}


def render(slo: SLOSpec, flavor: Flavor) -> dict[str, str]:
    """Repository-relative path -> file text, stable byte for byte."""
    return {f"dashboards/generated/{flavor.name}/{key}.json":
            json.dumps(doc, indent=2, sort_keys=True) + "\n"
            for key, doc in dashboards(slo, flavor).items()}


def config_maps(slo: SLOSpec, flavor: Flavor, *, namespace: str | None = None,
                labels: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """One ConfigMap per dashboard, labelled ``grafana_dashboard: "1"`` so that the Grafana
    sidecar (the Grafana Helm chart's ``sidecar.dashboards``) loads it. One per dashboard keeps
    each far below the 1 MiB a ConfigMap may hold."""
    out = []
    for key, text in sorted(render(slo, flavor).items()):
        name = key.rsplit("/", 1)[1].removesuffix(".json")
        metadata: dict[str, Any] = {
            "name": f"servescope-{flavor.name}-{name}-dashboard",
            "labels": {"grafana_dashboard": "1", "app.kubernetes.io/name": "servescope",
                       "app.kubernetes.io/part-of": "servescope",
                       "app.kubernetes.io/component": "dashboards",
                       "servescope/flavor": flavor.name, **(labels or {})}}
        if namespace:
            metadata["namespace"] = namespace
        out.append({"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata,
                    "data": {f"servescope-{flavor.name}-{name}.json": text}})
    return out


def render_k8s(slo: SLOSpec, flavor: Flavor, *, namespace: str | None = None,
               labels: dict[str, str] | None = None, header: str = "") -> dict[str, str]:
    """The ConfigMaps as one multi-document YAML file (dashboard JSON as block scalars)."""
    docs = config_maps(slo, flavor, namespace=namespace, labels=labels)
    text = header + "---\n".join(yaml.dump(d, Dumper=_BlockDumper, sort_keys=False, width=100)
                                 for d in docs)
    return {f"deploy/kubernetes/{flavor.name}/grafana-dashboards.yaml": text}


class _BlockDumper(yaml.SafeDumper):
    """Multi-line strings as literal blocks: the dashboard JSON stays readable in the file."""


def _block(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", value,
                                   style="|" if "\n" in value else None)


_BlockDumper.add_representer(str, _block)
