"""The rule groups a flavor can evaluate, and where their files go: what the rule file, its
promtool tests (``unittests``) and the Kubernetes outputs (``render``) are all made from."""

from __future__ import annotations

import re
from typing import Any

from servescope.instrumentation.slo import SLOSpec
from servescope.promql.flavor import missing_in

from . import dashboard_rules, diagnostics, slo_rules
from .model import Alert, Group, Options, Record

__all__ = ["RULES_PATH", "SCOPED_PATH", "SCOPE_LABEL", "TESTS_PATH", "all_rules", "rule_groups",
           "rules_document"]

RULES_PATH = "alerts/generated/{flavor}/rules.yaml"
TESTS_PATH = "alerts/generated/{flavor}/rules_test.yaml"
#: The same rules split by where they run (``rules.yaml`` holds both, for one Prometheus).
SCOPED_PATH = "alerts/generated/{flavor}/{scope}-rules.yaml"
SCOPE_LABEL = "servescope/rule-scope"


def rule_groups(slo: SLOSpec, options: Options | None = None,
                scope: str | None = None) -> list[Group]:
    """Every usable group, or those of one scope (``replica`` or ``fleet``)."""
    options = options or Options()
    groups = _usable(slo_rules.groups(slo, options) + dashboard_rules.groups(options)
                     + diagnostics.groups(slo, options))
    return [g for g in groups if scope is None or g.scope == scope]


def _usable(groups: list[Group]) -> list[Group]:
    """Leave out the rules a flavor cannot evaluate: those needing a metric it lacks, and the
    rules reading a record that was left out (a record name shared by several rules, told
    apart by their ``slo`` label, counts as left out only for the ``slo`` values dropped)."""
    dropped: set[str] = set()  # "record" or "record{slo}"
    kept_names: set[str] = set()
    out = []
    for group in groups:
        kept: list[Record | Alert] = []
        for rule in group.rules:
            if missing_in(rule.expr) or _reads_dropped(rule.expr, dropped, kept_names):
                if isinstance(rule, Record):
                    dropped.add(f"{rule.record}{{{rule.labels.get('slo', '')}}}")
                continue
            if isinstance(rule, Record):
                kept_names.add(rule.record)
            kept.append(rule)
        if kept:
            out.append(Group(group.name, tuple(kept), group.scope))
    return out


def _reads_dropped(expr: str, dropped: set[str], kept_names: set[str]) -> bool:
    for name, slo in re.findall(r'([A-Za-z_:][A-Za-z0-9_:]*)(?:\{slo="([^"]*)"[^}]*\})?', expr):
        if f"{name}{{{slo}}}" in dropped:
            return True
        if f"{name}{{}}" in dropped and name not in kept_names:
            return True
        if not slo and name not in kept_names and any(d.startswith(name + "{") for d in dropped):
            return True
    return False


def rules_document(slo: SLOSpec, options: Options | None = None,
                   scope: str | None = None) -> dict[str, Any]:
    return {"groups": [g.to_dict() for g in rule_groups(slo, options, scope)]}


def all_rules(slo: SLOSpec, options: Options | None = None) -> list[Record | Alert]:
    return [r for g in rule_groups(slo, options) for r in g.rules]
