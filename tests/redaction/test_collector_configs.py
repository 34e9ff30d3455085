"""The committed Collector configs are generated from the policy, current, and use only
components and fields of the pinned contrib release; their value patterns cover the corpus."""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from pathlib import Path

import redaction_corpus as rc
import yaml

from servescope.redaction import KINDS, Policy
from servescope.redaction.collector_config import (
    CONTRIB_VERSION,
    RE2_PATTERNS,
    collector_configs,
    generate_collector_configs,
    redaction_processor,
    validate_config,
)

COLLECTOR_DIR = Path(__file__).resolve().parents[2] / "collector"


def test_committed_configs_are_current():
    stale = generate_collector_configs(COLLECTOR_DIR, check=True)
    assert stale == [], f"stale: {stale}; run `servescope generate` and commit the result"


def test_check_mode_reports_and_write_mode_fixes(tmp_path):
    assert sorted(Path(p).name for p in generate_collector_configs(tmp_path, check=True)) == [
        "agent.yaml", "gateway.yaml"]
    assert not list(tmp_path.iterdir())  # check writes nothing
    generate_collector_configs(tmp_path, check=False)
    (tmp_path / "agent.yaml").write_text("# edited by hand\n")
    assert [Path(p).name for p in generate_collector_configs(tmp_path, check=True)] == [
        "agent.yaml"]


def test_configs_use_known_components_and_fields():
    for name, text in collector_configs().items():
        assert f"contrib v{CONTRIB_VERSION}" in text.splitlines()[3], name
        config = yaml.safe_load(text)
        assert validate_config(config) == [], name


def test_validation_catches_typos():
    config = yaml.safe_load(collector_configs()["gateway.yaml"])
    config["processors"]["redaction"]["blocked_key_pattern"] = []
    config["processors"]["tail_sampling"]["policies"].append(
        {"name": "x", "type": "boolean_attribute", "boolean_attribute": {"keys": "k"}})
    config["processors"]["tail_sampling"]["policies"].append({"name": "y", "type": "magic"})
    config["exporters"]["tempo"] = {"endpoint": "x"}
    config["service"]["pipelines"]["traces"]["processors"].append("filter")
    problems = validate_config(config)
    assert len(problems) == 5, problems


def test_topology_and_sampling_policies():
    agent = yaml.safe_load(collector_configs()["agent.yaml"])
    gateway = yaml.safe_load(collector_configs()["gateway.yaml"])
    assert agent["exporters"]["loadbalancing"]["routing_key"] == "traceID"
    assert agent["service"]["pipelines"]["traces"]["processors"] == [
        "memory_limiter", "redaction", "batch"]
    assert gateway["service"]["pipelines"]["traces"]["processors"] == [
        "memory_limiter", "redaction", "tail_sampling", "batch"]
    policies = {p["name"]: p for p in gateway["processors"]["tail_sampling"]["policies"]}
    assert policies["exemplars"]["boolean_attribute"] == {"key": "servescope.exemplar",
                                                          "value": True}
    assert {"deadline", "client_cancel"} <= set(
        policies["bad-finish"]["string_attribute"]["values"])
    assert policies["errors"]["status_code"]["status_codes"] == ["ERROR"]
    assert policies["slow-ttft"]["ottl_condition"]["span"] == [
        'attributes["servescope.ttft_seconds"] > 2.0']  # the default SLO's TTFT threshold
    assert 0 < policies["baseline"]["probabilistic"]["sampling_percentage"] < 100


def test_the_policy_file_drives_the_redaction_processor():
    policy = dataclasses.replace(Policy.default(), drop=frozenset({"tenant.id"}),
                                 allow=frozenset({"service.name"}), kinds=("email",))
    config = redaction_processor(policy, place="test")
    assert config["blocked_key_patterns"][0] == r"^tenant\.id$"
    assert config["ignored_keys"] == ["service.name"]
    assert config["blocked_values"] == [RE2_PATTERNS["email"]]
    closed = redaction_processor(dataclasses.replace(policy, unknown="drop"), place="test")
    assert closed["allow_all_keys"] is False and "service.name" in closed["allowed_keys"]


def test_collector_patterns_cover_the_corpus():
    """RE2 patterns cannot validate checksums, so they must be broader than the detectors:
    every planted value is matched (Python's re stands in for RE2: the patterns use the
    common subset, which validate_config checks)."""
    assert set(RE2_PATTERNS) == set(KINDS)
    compiled = {k: re.compile(p) for k, p in RE2_PATTERNS.items()}
    missed: Counter[str] = Counter()
    for s in rc.build(per_negative=0):
        if s.kind is None:
            continue  # the hand-written negatives
        if not any(m.start() <= s.text.index(s.value) and m.end() >= s.text.index(s.value)
                   + len(s.value) for m in compiled[s.kind].finditer(s.text)):
            missed[s.kind] += 1
    assert not missed, missed
