"""A model of the gateway's tail sampling: which traces it keeps, given when their spans arrive.

The ``tail_sampling`` processor (contrib 0.135) holds a trace from the arrival of its first
span for ``decision_wait``, then evaluates its policies once, on the spans it holds; a span
that arrives after the decision follows it (kept with a sampled trace, dropped otherwise). So
a policy can only judge what arrived within ``decision_wait`` of a trace's first span. This
module replays span arrivals against the generated policies to show what that means: the rule
of thumb is ``decision_wait`` >= the longest spread between a trace's first and last span
arriving (for servescope's spans, which leave together when the request ends, the export
delay; for spans exported as each ends, the longest request a policy must judge).

Policies understood: ``status_code``, ``string_attribute``, ``boolean_attribute``,
``latency`` (earliest start to latest end of the spans held, >= the threshold, as upstream),
``probabilistic`` (by trace id: a stand-in for upstream's hash, the same share) and
``ottl_condition`` of the form ``attributes["key"] > number``; anything else raises.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Arrival", "SimSpan", "Verdict", "matching_policies", "simulate"]

_OTTL_GREATER = re.compile(r'attributes\["([^"]+)"\]\s*>\s*(-?[0-9.eE+-]+)')


@dataclass(frozen=True)
class SimSpan:
    """What a policy reads of a span (times in seconds)."""

    trace_id: str
    name: str
    start_s: float
    end_s: float
    attributes: Mapping[str, Any] = field(default_factory=dict)
    error: bool = False


@dataclass(frozen=True)
class Arrival:
    """A span reaching the gateway at ``at`` (seconds, the same clock as the spans')."""

    at: float
    span: SimSpan


@dataclass(frozen=True)
class Verdict:
    """The decision on one trace: the policies that matched the spans held at decision time,
    when it was taken, and the spans that arrived too late to be judged."""

    trace_id: str
    decided_at: float
    policies: frozenset[str]
    judged: tuple[SimSpan, ...]
    late: tuple[SimSpan, ...]

    @property
    def kept(self) -> bool:
        return bool(self.policies)


def _matches(policy: Mapping[str, Any], spans: Sequence[SimSpan]) -> bool:
    kind = policy["type"]
    cfg = policy.get(kind) or {}
    if kind == "status_code":
        return "ERROR" in cfg["status_codes"] and any(s.error for s in spans)
    if kind == "string_attribute":
        return any(s.attributes.get(cfg["key"]) in cfg["values"] for s in spans)
    if kind == "boolean_attribute":
        return any(s.attributes.get(cfg["key"]) is cfg["value"] for s in spans)
    if kind == "latency":
        if not spans:
            return False
        duration = max(s.end_s for s in spans) - min(s.start_s for s in spans)
        return bool(duration * 1000 >= float(cfg["threshold_ms"]))
    if kind == "probabilistic":
        trace_id = spans[0].trace_id if spans else "0"
        share = float(cfg["sampling_percentage"]) / 100
        return int(trace_id[-8:], 16) < share * 0x1_0000_0000
    if kind == "ottl_condition":
        return any(_ottl(condition, s) for condition in cfg.get("span", []) for s in spans)
    raise ValueError(f"policy {policy.get('name')!r}: type {kind!r} is not modelled")


def _ottl(condition: str, span: SimSpan) -> bool:
    found = _OTTL_GREATER.fullmatch(condition.strip())
    if found is None:
        raise ValueError(f"OTTL condition {condition!r} is not modelled")
    value = span.attributes.get(found.group(1))
    return isinstance(value, int | float) and value > float(found.group(2))


def matching_policies(policies: Iterable[Mapping[str, Any]],
                      spans: Sequence[SimSpan]) -> frozenset[str]:
    """The names of the policies that sample a trace made of ``spans``."""
    return frozenset(str(p["name"]) for p in policies if _matches(p, spans))


def simulate(arrivals: Iterable[Arrival], policies: Sequence[Mapping[str, Any]],
             decision_wait_s: float) -> dict[str, Verdict]:
    """Each trace's verdict: decided ``decision_wait_s`` after its first span arrived, on the
    spans that arrived by then."""
    by_trace: dict[str, list[Arrival]] = {}
    for arrival in sorted(arrivals, key=lambda a: a.at):
        by_trace.setdefault(arrival.span.trace_id, []).append(arrival)
    verdicts = {}
    for trace_id, trace in by_trace.items():
        decided_at = trace[0].at + decision_wait_s
        judged = tuple(a.span for a in trace if a.at <= decided_at)
        late = tuple(a.span for a in trace if a.at > decided_at)
        verdicts[trace_id] = Verdict(trace_id, decided_at, matching_policies(policies, judged),
                                     judged, late)
    return verdicts
