"""Replica rules and fleet rules: two sets that partition the rule file, each labelled.

The fleet set runs on a global tier that holds only what the shards remote-write: it must read
recorded series alone (no raw catalog or engine series, no ``up``), each recorded by one of the
two sets. Both PrometheusRule resources carry ``servescope/rule-scope`` for a ruleSelector.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from servescope.alerts.render import SCOPE_LABEL
from servescope.promql.flavor import FLAVORS
from servescope.promql.query import PROMETHEUS_SERIES, catalog_series

ROOT = Path(__file__).resolve().parents[2]
NAME = re.compile(r"(?<![A-Za-z0-9_:\"$.])([A-Za-z_][A-Za-z0-9_]*:[A-Za-z0-9_:]*|[a-z_]+_total"
                  r"|up)(?=[{\[)\s]|$)")


def groups(flavor: str, name: str) -> list[dict[str, Any]]:
    doc = yaml.safe_load((ROOT / "alerts/generated" / flavor / name).read_text())
    found: list[dict[str, Any]] = doc["groups"]
    return found


@pytest.mark.parametrize("flavor", list(FLAVORS))
def test_the_two_sets_partition_the_rule_file(flavor: str) -> None:
    replica, fleet = groups(flavor, "replica-rules.yaml"), groups(flavor, "fleet-rules.yaml")
    assert replica and fleet
    assert {g["name"] for g in replica}.isdisjoint({g["name"] for g in fleet})
    by_name = {g["name"]: g for g in groups(flavor, "rules.yaml")}
    assert len(by_name) == len(replica) + len(fleet)
    for group in replica + fleet:
        assert by_name[group["name"]] == group


@pytest.mark.parametrize("flavor", list(FLAVORS))
def test_fleet_rules_read_recorded_series_only(flavor: str) -> None:
    replica, fleet = groups(flavor, "replica-rules.yaml"), groups(flavor, "fleet-rules.yaml")
    recorded = {r["record"] for g in replica + fleet for r in g["rules"] if "record" in r}
    raw = catalog_series() | PROMETHEUS_SERIES
    for rule in (r for g in fleet for r in g["rules"]):
        names = set(NAME.findall(rule["expr"]))
        assert names, rule["expr"]
        assert not names & raw, (rule.get("record") or rule.get("alert"), names & raw)
        assert names <= recorded, (rule.get("record") or rule.get("alert"), names - recorded)


def test_replica_rules_hold_everything_by_instance() -> None:
    for flavor in FLAVORS:
        for rule in (r for g in groups(flavor, "fleet-rules.yaml") for r in g["rules"]):
            assert "instance" not in rule["expr"], rule


@pytest.mark.parametrize("flavor", list(FLAVORS))
@pytest.mark.parametrize("scope", ["replica", "fleet"])
def test_each_prometheus_rule_is_labelled_with_its_scope(flavor: str, scope: str) -> None:
    doc = yaml.safe_load(
        (ROOT / "deploy/kubernetes" / flavor / "sharded" / f"prometheusrule-{scope}.yaml")
        .read_text())
    assert doc["metadata"]["labels"][SCOPE_LABEL] == scope
    assert doc["metadata"]["name"] == f"servescope-{flavor}-{scope}-rules"
    assert doc["spec"]["groups"] == groups(flavor, f"{scope}-rules.yaml")
    whole = yaml.safe_load(
        (ROOT / "deploy/kubernetes" / flavor / "prometheusrule.yaml").read_text())
    assert whole["metadata"]["labels"][SCOPE_LABEL] == "all"
