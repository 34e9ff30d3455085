"""The alerts that fired in a range, with what their rules say about them.

History comes from the ``ALERTS`` series Prometheus writes for every pending or firing alert
(``query_range``); the current state from ``/api/v1/alerts``; the summary and runbook from the
alerting rules (``/api/v1/rules``), so an alert that already resolved is still explained.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from .boards import TimeRange
from .prometheus import PrometheusClient

__all__ = ["AlertSpan", "alerts_in_range"]

_HIDDEN = {"__name__", "alertname", "alertstate"}


@dataclass
class AlertSpan:
    name: str
    labels: dict[str, str]
    first: float
    last: float
    state_now: str  # firing, pending or resolved
    summary: str = ""
    runbook: str = ""
    annotations: dict[str, str] = field(default_factory=dict)

    @property
    def severity(self) -> str:
        return self.labels.get("severity", "")


def alerts_in_range(client: PrometheusClient,
                    window: TimeRange) -> tuple[list[AlertSpan], list[AlertSpan]]:
    """(alerts firing at some point of the range, alerts pending at its end)."""
    rules = {r["name"]: r for r in client.alerting_rules()}
    active = client.alerts()
    firing = []
    for item in client.query_range('ALERTS{alertstate="firing"}', window.start, window.end,
                                   window.step_s):
        labels = {k: v for k, v in item["metric"].items() if k not in _HIDDEN}
        name = item["metric"].get("alertname", "")
        times = [float(t) for t, v in item["values"] if math.isfinite(float(v))]
        if not times:
            continue
        now = next((a for a in active if a["labels"].get("alertname") == name
                    and _same(a["labels"], labels)), None)
        firing.append(_span(name, labels, times[0], times[-1],
                            now["state"] if now else "resolved", rules.get(name),
                            now.get("annotations") if now else None))
    pending = [_span(a["labels"].get("alertname", ""),
                     {k: v for k, v in a["labels"].items() if k not in _HIDDEN},
                     _parse_time(a.get("activeAt")), window.end, "pending",
                     rules.get(a["labels"].get("alertname", "")), a.get("annotations"))
               for a in active if a.get("state") == "pending"]
    firing.sort(key=lambda s: (s.first, s.name))
    pending.sort(key=lambda s: s.name)
    return firing, pending


def _same(active: dict[str, str], labels: dict[str, str]) -> bool:
    return all(active.get(k) == v for k, v in labels.items())


def _span(name: str, labels: dict[str, str], first: float, last: float, state: str,
          rule: dict[str, Any] | None, annotations: dict[str, str] | None) -> AlertSpan:
    notes: dict[str, str] = dict(annotations or (rule or {}).get("annotations") or {})
    return AlertSpan(name, labels, first, last, state, notes.get("summary", ""),
                     notes.get("runbook_url", ""), notes)


def _parse_time(text: object) -> float:
    import datetime as dt

    if not isinstance(text, str):
        return math.nan
    try:  # RFC 3339 with up to nanoseconds: keep microseconds for fromisoformat
        head, _, frac = text.rstrip("Z").partition(".")
        stamp = head + (f".{frac[:6]}" if frac else "")
        return dt.datetime.fromisoformat(stamp).replace(tzinfo=dt.UTC).timestamp()
    except ValueError:
        return math.nan
