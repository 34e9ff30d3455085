"""Render every dashboard of a flavor to JSON text (what ``servescope generate`` writes)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from servescope.instrumentation.slo import SLOSpec

from . import capacity, latency, overview, pipeline, transport
from .common import Ctx
from .flavor import Flavor
from .panels import Board

__all__ = ["BUILDERS", "dashboards", "render"]

BUILDERS: dict[str, Callable[[Ctx], Board]] = {
    "overview": overview.build,
    "latency": latency.build,
    "capacity": capacity.build,
    "transport": transport.build,
    "pipeline": pipeline.build,
}


def dashboards(slo: SLOSpec, flavor: Flavor) -> dict[str, dict[str, Any]]:
    """Dashboard JSON documents by key (overview, latency, ...)."""
    ctx = Ctx.for_dashboards(slo, flavor)
    return {key: build(ctx).to_json() for key, build in BUILDERS.items()}


def render(slo: SLOSpec, flavor: Flavor) -> dict[str, str]:
    """Repository-relative path -> file text, stable byte for byte."""
    return {f"dashboards/generated/{flavor.name}/{key}.json":
            json.dumps(doc, indent=2, sort_keys=True) + "\n"
            for key, doc in dashboards(slo, flavor).items()}
