"""Kubernetes outputs: the rules as a PrometheusRule validated against prometheus-operator's
CRD schema (vendored, tests/schemas/SOURCES.md), the dashboards as Grafana-sidecar ConfigMaps."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from vendored import schemas_dir

from servescope.cli import main
from servescope.promql.flavor import FLAVORS

ROOT = Path(__file__).resolve().parents[2]
DNS1123 = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
CONFIGMAP_LIMIT = 1024 * 1024  # bytes a ConfigMap may hold


CRD = "monitoring.coreos.com_prometheusrules.yaml"


def crd_schema() -> dict[str, Any]:
    path = schemas_dir() / CRD
    crd = yaml.safe_load((path if path.is_file() else ROOT / "tests/schemas" / CRD).read_text())
    version = next(v for v in crd["spec"]["versions"] if v["name"] == "v1")
    schema: dict[str, Any] = version["schema"]["openAPIV3Schema"]
    return schema


def schema_errors(doc: dict[str, Any]) -> list[str]:
    validator = jsonschema.Draft7Validator(crd_schema(),
                                           format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in validator.iter_errors(doc)]


def pruned(doc: Any, schema: dict[str, Any], path: str = "") -> list[str]:
    """Fields the API server would silently drop: keys the structural schema does not know."""
    out = []
    if isinstance(doc, dict) and "properties" in schema:
        for key, value in doc.items():
            if key not in schema["properties"]:
                out.append(f"{path}/{key}")
                continue
            out += pruned(value, schema["properties"][key], f"{path}/{key}")
    elif isinstance(doc, dict) and isinstance(schema.get("additionalProperties"), dict):
        for key, value in doc.items():
            out += pruned(value, schema["additionalProperties"], f"{path}/{key}")
    elif isinstance(doc, list) and "items" in schema:
        for i, item in enumerate(doc):
            out += pruned(item, schema["items"], f"{path}/{i}")
    return out


def rule_resource(flavor: str) -> dict[str, Any]:
    doc: dict[str, Any] = yaml.safe_load(
        (ROOT / "deploy/kubernetes" / flavor / "prometheusrule.yaml").read_text())
    return doc


@pytest.mark.parametrize("flavor", list(FLAVORS))
def test_prometheus_rule_validates_against_the_operator_crd(flavor: str) -> None:
    doc = rule_resource(flavor)
    assert doc["apiVersion"] == "monitoring.coreos.com/v1" and doc["kind"] == "PrometheusRule"
    assert schema_errors(doc) == []
    assert pruned(doc, crd_schema()) == []
    assert DNS1123.fullmatch(doc["metadata"]["name"])
    assert doc["metadata"]["labels"]["servescope/flavor"] == flavor


@pytest.mark.parametrize("flavor", list(FLAVORS))
def test_prometheus_rule_holds_exactly_the_rule_file(flavor: str) -> None:
    rules = yaml.safe_load((ROOT / "alerts/generated" / flavor / "rules.yaml").read_text())
    assert rule_resource(flavor)["spec"] == rules


def test_the_schema_check_rejects_broken_resources() -> None:
    good = rule_resource("servescope")
    bad_for = copy.deepcopy(good)
    alert = next(r for r in bad_for["spec"]["groups"][-1]["rules"] if "for" in r)
    alert["for"] = "5 minutes"
    assert any("does not match" in e for e in schema_errors(bad_for))
    no_name = copy.deepcopy(good)
    del no_name["spec"]["groups"][0]["name"]
    assert any("'name' is a required property" in e for e in schema_errors(no_name))
    typo = copy.deepcopy(good)
    typo["spec"]["groups"][0]["rules"][0]["exp"] = "1"
    assert pruned(typo, crd_schema()) == ["/spec/groups/0/rules/0/exp"]


@pytest.mark.parametrize("flavor", list(FLAVORS))
def test_dashboards_are_sidecar_config_maps(flavor: str) -> None:
    text = (ROOT / "deploy/kubernetes" / flavor / "grafana-dashboards.yaml").read_text()
    maps = list(yaml.safe_load_all(text))
    committed = {p.stem: json.loads(p.read_text())
                 for p in (ROOT / "dashboards/generated" / flavor).glob("*.json")}
    assert len(maps) == len(committed) == 5
    seen = set()
    for cm in maps:
        assert cm["apiVersion"] == "v1" and cm["kind"] == "ConfigMap"
        meta = cm["metadata"]
        assert meta["labels"]["grafana_dashboard"] == "1"  # a string, as the sidecar matches
        assert all(isinstance(v, str) for v in meta["labels"].values())
        assert DNS1123.fullmatch(meta["name"]) and len(meta["name"]) <= 253
        (key, body), = cm["data"].items()
        assert re.fullmatch(r"[-._a-zA-Z0-9]+\.json", key)
        assert len(json.dumps(cm).encode()) < CONFIGMAP_LIMIT
        board = json.loads(body)
        stem = key.removeprefix(f"servescope-{flavor}-").removesuffix(".json")
        assert board == committed[stem]
        seen.add(stem)
    assert seen == set(committed)


def test_generate_writes_namespace_and_labels(tmp_path) -> None:
    assert main(["generate", "--flavor", "vllm", "--out", str(tmp_path), "--namespace",
                 "monitoring", "--k8s-label", "release=kube-prometheus-stack"]) == 0
    rule = yaml.safe_load((tmp_path / "deploy/kubernetes/vllm/prometheusrule.yaml").read_text())
    assert rule["metadata"]["namespace"] == "monitoring"
    assert rule["metadata"]["labels"]["release"] == "kube-prometheus-stack"
    assert schema_errors(rule) == []
    maps = list(yaml.safe_load_all(
        (tmp_path / "deploy/kubernetes/vllm/grafana-dashboards.yaml").read_text()))
    assert {m["metadata"]["namespace"] for m in maps} == {"monitoring"}


def test_generate_rejects_a_bad_label(tmp_path, capsys) -> None:
    assert main(["generate", "--out", str(tmp_path), "--k8s-label", "release"]) == 2
    assert "--k8s-label: expected KEY=VALUE, got 'release'" in capsys.readouterr().err


@pytest.mark.parametrize(("arguments", "needle"), [
    (["--namespace", "Bad_NS!"], "--namespace: 'Bad_NS!' is no Kubernetes namespace"),
    (["--k8s-label", "release=" + "a" * 100], "--k8s-label: the value of 'release'"),
    (["--k8s-label", "a=b=c"], "--k8s-label: the value of 'a'"),
    (["--k8s-label", "bad key=x"], "--k8s-label: 'bad key' is no Kubernetes label name"),
])
def test_generate_refuses_what_kubernetes_would(tmp_path, capsys, arguments, needle) -> None:
    """The API server refuses these at apply time; generate refuses them first, and writes
    nothing."""
    assert main(["generate", "--flavor", "vllm", "--out", str(tmp_path), *arguments]) == 2
    assert needle in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_generate_writes_nothing_when_a_file_is_in_a_folder_s_way(tmp_path, capsys) -> None:
    (tmp_path / "docs").write_text("x")
    assert main(["generate", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "cannot write" in err and "docs is a file, not a folder" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs"]
