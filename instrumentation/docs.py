"""Renders ``docs/metrics.md`` from the catalog and the default SLO spec."""

from __future__ import annotations

from .buckets import ladders
from .budget import budget_markdown
from .catalog import CATALOG, Kind
from .slo import SLOSpec

__all__ = ["render_metrics_markdown"]

_GROUPS = {
    "latency": "Latency (server side)",
    "client": "Latency (client side: load generators and SDK wrappers)",
    "requests": "Request accounting",
    "tokens": "Tokens",
    "capacity": "Capacity",
    "transport": "Transport and backpressure",
    "engine": "The engine process",
    "pipeline": "The telemetry pipeline",
}


def render_metrics_markdown(spec: SLOSpec | None = None) -> str:
    spec = spec or SLOSpec.default()
    buckets = ladders(spec)
    out = [
        "# Metrics",
        "",
        "Generated from `instrumentation/catalog.py` by `servescope generate`; do not edit.",
        "Names follow the OpenTelemetry GenAI semantic conventions where they define the metric",
        "and Prometheus naming rules otherwise. Labels are low-cardinality by construction:",
        "request ids live on spans and exemplars, never on labels.",
        "",
        f"Bucket ladders below are derived from the default SLO spec (TTFT <= "
        f"{spec.ttft.threshold_seconds}s, TPOT <= {spec.tpot.threshold_seconds}s); every "
        "threshold is a boundary.",
    ]
    for group, title in _GROUPS.items():
        out += ["", f"## {title}", "", "| series | type | unit | labels | description |",
                "|---|---|---|---|---|"]
        for m in (m for m in CATALOG if m.group == group):
            labels = ", ".join(f"`{label}`" for label in m.labels) or "-"
            semconv = f" Implements `{m.otel_name}`." if m.otel_name else ""
            out.append(f"| `{m.sample_name}` | {m.kind} | {m.unit} | {labels} | "
                       f"{m.help}{semconv} |")
    out += ["", "## Bucket ladders", "", "| family | boundaries |", "|---|---|"]
    for family, bounds in buckets.items():
        out.append(f"| {family} | {', '.join(repr(float(b)) for b in bounds)} |")
    out += ["", "## Series budget", "", *budget_markdown(slo=spec), "",
            "Cut to get there (2,833 series before): `_created` series (off; "
            "`SERVESCOPE_CREATED_SERIES=1` brings them back), `finish_reason` and `priority` on "
            "the end-to-end histogram (the finished counter keeps the reason), `priority` on "
            "every latency histogram but server TTFT and on every counter but arrivals, "
            "`model` on the two per-request transport histograms, and latency ladders of 11 "
            "boundaries instead of up to 20 (the points around each threshold kept, scale "
            "points dropped). No dashboard or rule read what was cut."]
    counters = [m for m in CATALOG if m.kind is Kind.COUNTER]
    out += ["", f"{len(CATALOG)} families, {len(counters)} of them counters.", ""]
    return "\n".join(out)
