"""Configs without an offline upstream checker are checked against the pinned version's keys,
written down from its source: Tempo (which loads its file with yaml.UnmarshalStrict: an unknown
key stops it), Grafana provisioning (read leniently: a misspelt key is silently ignored) and
the dashboards' schemaVersion. promtool and amtool check Prometheus and Alertmanager
(tests/deploy/test_stack.py)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
TEMPO_KEYS = json.loads((ROOT / "deploy/tempo/keys.json").read_text())
GRAFANA_KEYS = json.loads((ROOT / "deploy/grafana/provisioning-keys.json").read_text())
TEMPO = yaml.safe_load((ROOT / "deploy/tempo/tempo.yaml").read_text())
PROVISIONING = ROOT / "deploy/grafana/provisioning"
DATASOURCES = yaml.safe_load((PROVISIONING / "datasources/datasources.yaml").read_text())
PROVIDERS = yaml.safe_load((PROVISIONING / "dashboards/servescope.yaml").read_text())
COMPOSE = yaml.safe_load((ROOT / "compose.yaml").read_text())


def problems(schema: dict, document: object, defs: dict | None = None) -> list[str]:
    if defs is not None:
        schema = {**schema, "$defs": defs}
    validator = jsonschema.Draft202012Validator(schema)
    return sorted(f"{'.'.join(map(str, e.absolute_path))}: {e.message}"
                  for e in validator.iter_errors(document))


def tempo_problems(config: object) -> list[str]:
    return problems(TEMPO_KEYS, config)


def test_tempo_config_uses_only_keys_of_the_pinned_version() -> None:
    assert TEMPO_KEYS["x-version"] == "2.7.2" and "UnmarshalStrict" in TEMPO_KEYS["x-decoding"]
    assert tempo_problems(TEMPO) == []


@pytest.mark.parametrize(("edit", "message"), [
    (lambda c: c["ingester"].update(max_block_duraton="5m"), "'max_block_duraton' was unexpected"),
    (lambda c: c["server"].update(http_listen_port="3200"), "'3200' is not of type 'integer'"),
    (lambda c: c["compactor"]["compaction"].update(block_retention="2 days"),
     "block_retention: '2 days' is not valid"),
    (lambda c: c.update(metrics_generator_enabled=True), "'metrics_generator_enabled' was unexp"),
    (lambda c: c["storage"]["trace"]["wal"].update(dir="/x"), "'dir' was unexpected"),
])
def test_tempo_check_names_an_unknown_key_or_wrong_type(edit, message) -> None:
    config = copy.deepcopy(TEMPO)
    edit(config)
    found = tempo_problems(config)
    assert len(found) == 1 and message in found[0], found


def test_tempo_receives_otlp_where_the_gateway_sends() -> None:
    gateway = yaml.safe_load((ROOT / "collector/gateway.yaml").read_text())
    grpc = TEMPO["distributor"]["receivers"]["otlp"]["protocols"]["grpc"]["endpoint"]
    assert grpc.endswith(":4317")
    assert COMPOSE["services"]["otel-gateway"]["environment"]["TEMPO_OTLP_ENDPOINT"] == \
        "tempo:4317"
    assert "TEMPO_OTLP_ENDPOINT" in gateway["exporters"]["otlp"]["endpoint"]
    assert TEMPO["server"]["http_listen_port"] == 3200


def test_grafana_provisioning_uses_only_documented_keys() -> None:
    assert problems(GRAFANA_KEYS["datasources"], DATASOURCES) == []
    assert problems(GRAFANA_KEYS["dashboards"], PROVIDERS) == []
    for source in DATASOURCES["datasources"]:
        schema = GRAFANA_KEYS["jsonData"][source["type"]]
        assert problems(schema, source.get("jsonData", {})) == [], source["name"]


@pytest.mark.parametrize(("document", "edit", "message"), [
    ("datasources", lambda d: d["datasources"][0].update(is_default=True),
     "'is_default' was unexpected"),
    ("datasources", lambda d: d["datasources"][1].update(url=3200), "3200 is not of type"),
    ("datasources", lambda d: d.update(delete_datasources=[]), "'delete_datasources' was unexp"),
    ("dashboards", lambda d: d["providers"][0].update(allowUIUpdates=True),
     "'allowUIUpdates' was unexpected"),
    ("dashboards", lambda d: d["providers"][0]["options"].update(foldersFromFileStructure=True),
     "'foldersFromFileStructure' was unexpected"),
    ("jsonData.prometheus", lambda d: d["exemplarTraceIdDestinations"][0].update(datasourceUID="t"),
     "'datasourceUID' was unexpected"),
])
def test_grafana_check_names_a_misspelt_key(document, edit, message) -> None:
    if document == "datasources":
        data, schema = copy.deepcopy(DATASOURCES), GRAFANA_KEYS["datasources"]
    elif document == "dashboards":
        data, schema = copy.deepcopy(PROVIDERS), GRAFANA_KEYS["dashboards"]
    else:
        data = copy.deepcopy(DATASOURCES["datasources"][0]["jsonData"])
        schema = GRAFANA_KEYS["jsonData"]["prometheus"]
    edit(data)
    found = problems(schema, data)
    assert len(found) == 1 and message in found[0], found


def test_dashboards_carry_a_schema_version_the_pinned_grafana_knows() -> None:
    newest = GRAFANA_KEYS["dashboardSchemaVersion"]["newest"]
    versions = {json.loads(p.read_text())["schemaVersion"]
                for p in (ROOT / "dashboards/generated").glob("*/*.json")}
    assert versions == {newest}
    image = COMPOSE["services"]["grafana"]["image"]
    assert image == f"grafana/grafana:{GRAFANA_KEYS['x-version']}"


def test_a_service_map_is_offered_only_when_something_feeds_it() -> None:
    """Grafana's Tempo service map reads span metrics that Tempo's metrics generator remote-writes
    into Prometheus. The stack offers the map exactly when both halves are configured."""
    tempo = next(d for d in DATASOURCES["datasources"] if d["type"] == "tempo")
    offered = "serviceMap" in tempo.get("jsonData", {})
    generator = TEMPO.get("metrics_generator", {})
    remote_write = generator.get("storage", {}).get("remote_write", [])
    feeds = any("prometheus:9090" in w.get("url", "") for w in remote_write) and \
        "--web.enable-remote-write-receiver" in COMPOSE["services"]["prometheus"]["command"]
    assert offered == feeds
    assert not offered  # this stack: one service, no metrics generator, no map
    assert tempo["jsonData"]["nodeGraph"]["enabled"] is True  # a trace's own graph needs no metrics


#: every file or folder the stack mounts, and the test that checks it against its consumer
CHECKED_MOUNTS = {
    "collector/agent.yaml": "tests/collector/test_collector_configs.py (typed model, contrib)",
    "collector/gateway.yaml": "tests/collector/test_collector_configs.py (typed model, contrib)",
    "deploy/tempo/tempo.yaml": "test_tempo_config_uses_only_keys_of_the_pinned_version",
    "deploy/prometheus/prometheus.yml": "test_stack.py: promtool check config",
    "alerts/generated/servescope": "test_stack.py: promtool check config (rules); tests/alerts",
    "deploy/alertmanager/alertmanager.yml": "test_stack.py: amtool check-config",
    "deploy/grafana/provisioning": "test_grafana_provisioning_uses_only_documented_keys",
    "dashboards/generated/servescope": "tests/dashboards (Grafana's dashboard schema); "
                                       "test_dashboards_carry_a_schema_version_the_pinned_grafana_knows",
    "dashboards/generated/vllm": "the same as the servescope dashboards",
    "dashboards/generated/sglang": "the same as the servescope dashboards",
    "dashboards/generated/tgi": "the same as the servescope dashboards",
    "dashboards/generated/llamacpp": "the same as the servescope dashboards",
    "deploy/reference/engine-gpu.yaml": "test_images.py: EngineConfig.from_dict",
}


def test_every_mounted_config_has_a_check() -> None:
    mounted = {volume.split(":")[0].removeprefix("./")
               for service in COMPOSE["services"].values()
               for volume in service.get("volumes", []) if volume.startswith("./")}
    assert mounted == set(CHECKED_MOUNTS)
