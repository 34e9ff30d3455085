"""Every pinned version lives in deploy/versions.env; compose.yaml, the Dockerfile, the Makefile,
the Collector generator, the dashboards and the checks written down from upstream source all
agree with it (a bump that misses one file fails here, naming the file)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from servescope.collector.config import CONTRIB_VERSION, contrib_schema
from servescope.promql.flavor import FLAVORS

ROOT = Path(__file__).resolve().parents[2]
PINS_FILE = ROOT / "deploy/versions.env"


def read_pins(text: str) -> dict[str, str]:
    pins = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = re.fullmatch(r"([A-Z][A-Z0-9_]*)=(\S+)", line.strip())
        if match is None:
            raise ValueError(f"{PINS_FILE.name}:{number}: expected NAME=value, got {line!r}")
        pins[match.group(1)] = match.group(2)
    return pins


def dockerfile_args(text: str) -> dict[str, str]:
    return dict(re.findall(r"^ARG (\w+)=(\S*)$", text, flags=re.M))


def pin_mismatches(pins: dict[str, str], root: Path = ROOT) -> list[str]:
    """Each place that disagrees with ``pins``, as 'file: what (expected)'."""
    out: list[str] = []

    def expect(where: str, actual: object, wanted: object) -> None:
        if actual != wanted:
            out.append(f"{where}: {actual!r} (versions.env says {wanted!r})")

    services = yaml.safe_load((root / "compose.yaml").read_text())["services"]
    images = {
        "otel/opentelemetry-collector-contrib": pins["OTELCOL_CONTRIB_VERSION"],
        "grafana/tempo": pins["TEMPO_VERSION"],
        "prom/prometheus": pins["PROMETHEUS_VERSION"],
        "prom/alertmanager": pins["ALERTMANAGER_VERSION"],
        "grafana/grafana": pins["GRAFANA_VERSION"],
    }
    for name, service in services.items():
        repo, _, tag = service["image"].partition(":")
        if repo in images:
            expect(f"compose.yaml: services.{name}.image", tag, images[repo])
    args = dockerfile_args((root / "Dockerfile").read_text())
    expect("Dockerfile: ARG PYTHON_IMAGE", args.get("PYTHON_IMAGE"), pins["PYTHON_IMAGE"])
    expect("Dockerfile: ARG TORCH_VERSION", args.get("TORCH_VERSION"), pins["TORCH_VERSION"])
    expect("Dockerfile: ARG TORCH_INDEX_URL", args.get("TORCH_INDEX_URL"),
           pins["TORCH_CPU_INDEX_URL"])
    makefile = re.search(r"^TORCH_VERSION := (\S+)$", (root / "Makefile").read_text(), re.M)
    expect("Makefile: TORCH_VERSION", makefile and makefile.group(1), pins["TORCH_VERSION"])
    pyproject = re.search(r'"torch>=[\d.]+,<=([\d.]+)"', (root / "pyproject.toml").read_text())
    expect("pyproject.toml: reference extra's torch bound", pyproject and pyproject.group(1),
           pins["TORCH_VERSION"])
    for role in ("agent", "gateway"):
        header = (root / f"collector/{role}.yaml").read_text().splitlines()[2]
        expect(f"collector/{role}.yaml: image in header", header.rsplit(":", 1)[-1],
               pins["OTELCOL_CONTRIB_VERSION"])
    tempo_keys = json.loads((root / "deploy/tempo/keys.json").read_text())
    expect("deploy/tempo/keys.json: x-version", tempo_keys["x-version"],
           pins["TEMPO_VERSION"].removeprefix("v"))
    grafana_keys = json.loads((root / "deploy/grafana/provisioning-keys.json").read_text())
    expect("deploy/grafana/provisioning-keys.json: x-version", grafana_keys["x-version"],
           pins["GRAFANA_VERSION"])
    expect("deploy/grafana/provisioning-keys.json: dashboardSchemaVersion.newest",
           str(grafana_keys["dashboardSchemaVersion"]["newest"]),
           pins["GRAFANA_DASHBOARD_SCHEMA_VERSION"])
    for path in sorted((root / "dashboards/generated").glob("*/*.json")):
        version = json.loads(path.read_text())["schemaVersion"]
        expect(f"{path.relative_to(root)}: schemaVersion", str(version),
               pins["GRAFANA_DASHBOARD_SCHEMA_VERSION"])
    return out


PINS = read_pins(PINS_FILE.read_text())


def test_every_file_agrees_with_the_pins() -> None:
    assert pin_mismatches(PINS) == []


def test_the_generator_and_its_typed_model_agree_with_the_pin() -> None:
    assert PINS["OTELCOL_CONTRIB_VERSION"] == CONTRIB_VERSION
    assert contrib_schema()["x-version"] == PINS["OTELCOL_CONTRIB_VERSION"]


@pytest.mark.parametrize(("pin", "names"), [
    ("GRAFANA_VERSION", ["compose.yaml: services.grafana.image",
                         "deploy/grafana/provisioning-keys.json: x-version"]),
    ("TORCH_VERSION", ["Dockerfile: ARG TORCH_VERSION", "Makefile: TORCH_VERSION",
                       "pyproject.toml: reference extra's torch bound"]),
    ("OTELCOL_CONTRIB_VERSION", ["compose.yaml: services.otel-collector.image",
                                 "compose.yaml: services.otel-gateway.image",
                                 "collector/agent.yaml: image in header",
                                 "collector/gateway.yaml: image in header"]),
    ("GRAFANA_DASHBOARD_SCHEMA_VERSION", ["deploy/grafana/provisioning-keys.json: "
                                          "dashboardSchemaVersion.newest"]),
])
def test_a_bump_in_one_place_names_every_file_left_behind(pin: str, names: list[str]) -> None:
    bumped = {**PINS, pin: PINS[pin] + "9"}
    found = [m.split(": ", 2)[0] + ": " + m.split(": ", 2)[1] for m in pin_mismatches(bumped)]
    assert set(names) <= set(found), found
    if pin == "GRAFANA_DASHBOARD_SCHEMA_VERSION":  # and every generated dashboard
        assert sum(f.startswith("dashboards/generated/") for f in found) == 5 * len(FLAVORS)


def test_the_pins_file_is_strict_and_says_how_to_bump() -> None:
    text = PINS_FILE.read_text()
    assert "To bump one" in text and "make test" in text
    with pytest.raises(ValueError, match=r"versions.env:1: expected NAME=value"):
        read_pins("GRAFANA_VERSION = 12\n")
    assert set(PINS) == {"PYTHON_IMAGE", "TORCH_VERSION", "TORCH_CPU_INDEX_URL",
                         "OTELCOL_CONTRIB_VERSION", "TEMPO_VERSION", "PROMETHEUS_VERSION",
                         "ALERTMANAGER_VERSION", "GRAFANA_VERSION",
                         "GRAFANA_DASHBOARD_SCHEMA_VERSION"}
