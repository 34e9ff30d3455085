"""The server image installs torch's CPU build by default (PyTorch's CPU wheel index), the CUDA
build by build argument; the compose profile `gpu` runs the reference worker on an NVIDIA device
with it; the Makefile takes the same choice, and its default stays offline here."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest
import yaml
from vendored import schemas_dir

from servescope.cli import build_parser
from servescope.reference.config import EngineConfig

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = yaml.safe_load((ROOT / "compose.yaml").read_text())
SERVICES: dict = COMPOSE["services"]
DOCKERFILE = (ROOT / "Dockerfile").read_text()
PINS = dict(re.findall(r"^([A-Z_]+)=(\S+)$", (ROOT / "deploy/versions.env").read_text(), re.M))
CPU_INDEX = PINS["TORCH_CPU_INDEX_URL"]


def build_args(service: str) -> dict[str, str]:
    build = SERVICES[service].get("build", {})
    return build.get("args", {}) if isinstance(build, dict) else {}


def test_the_image_installs_the_cpu_build_by_default_and_cuda_by_argument() -> None:
    args = dict(re.findall(r"^ARG (\w+)=(\S*)$", DOCKERFILE, flags=re.M))
    assert args["TORCH_INDEX_URL"] == CPU_INDEX == "https://download.pytorch.org/whl/cpu"
    install = re.search(r"^RUN if \[ -n \"\$TORCH_INDEX_URL\" \]; then.*?^ && python",
                        DOCKERFILE, flags=re.M | re.S)
    assert install is not None
    assert 'pip install --index-url "$TORCH_INDEX_URL" "torch==${TORCH_VERSION}"' in \
        install.group(0)
    # torch before the package: the reference extra's range then pulls nothing larger
    assert DOCKERFILE.index("torch==${TORCH_VERSION}") < DOCKERFILE.index("pip install '.[")
    # the CPU services build with the default; the gpu profile's server overrides it
    for name in ("server-1", "server-2", "load-1", "load-2", "load-gpu"):
        assert "TORCH_INDEX_URL" not in build_args(name), name
    assert build_args("server-gpu") == {"TORCH_INDEX_URL": ""}


def test_cpu_and_cuda_images_have_their_own_tags() -> None:
    cpu = {SERVICES[n]["image"] for n in ("server-1", "server-2", "load-1", "load-2", "load-gpu")}
    assert cpu == {"servescope/reference:0.1.0"}
    assert SERVICES["server-gpu"]["image"] == "servescope/reference:0.1.0-cuda"
    for name in ("server-1", "server-gpu", "load-1"):
        assert SERVICES[name]["pull_policy"] == "build"  # never pulled: not published


def test_the_gpu_profile_runs_the_worker_on_an_nvidia_device() -> None:
    gpu = {name for name, s in SERVICES.items() if s.get("profiles") == ["gpu"]}
    assert gpu == {"server-gpu", "load-gpu"}
    assert all(SERVICES[name]["profiles"] == ["gpu"] for name in gpu)
    devices = SERVICES["server-gpu"]["deploy"]["resources"]["reservations"]["devices"]
    assert devices == [{"driver": "nvidia", "count": 1, "capabilities": ["gpu"]}]
    command = SERVICES["server-gpu"]["command"]
    args = build_parser().parse_args(command[1:])
    mounts = dict(v.split(":")[1::-1] for v in SERVICES["server-gpu"]["volumes"])
    engine = EngineConfig.from_dict(yaml.safe_load((ROOT / mounts[args.config]).read_text()))
    assert engine.device == "cuda"  # not "auto": no quiet fallback to the CPU
    assert SERVICES["load-gpu"]["network_mode"] == "service:server-gpu"
    assert SERVICES["load-gpu"]["depends_on"] == {"server-gpu": {"condition": "service_healthy"}}
    assert SERVICES["server-gpu"]["environment"]["OTEL_SERVICE_NAME"] == "servescope-server-gpu"
    assert SERVICES["server-gpu"]["ports"] == ["127.0.0.1:8003:8000"]


def test_the_gpu_profile_validates_against_the_compose_spec() -> None:
    schema = json.loads((schemas_dir() / "compose-spec.json").read_text())
    validator = jsonschema.Draft7Validator(schema)
    assert [e.message for e in validator.iter_errors(COMPOSE)] == []
    broken = json.loads(json.dumps(COMPOSE))
    broken["services"]["server-gpu"]["deploy"]["resources"]["reservations"]["devices"][0][
        "capabilities"] = "gpu"  # must be a list
    assert [e.message for e in validator.iter_errors(broken)]


def test_prometheus_scrapes_the_gpu_server_only_while_it_runs() -> None:
    config = yaml.safe_load((ROOT / "deploy/prometheus/prometheus.yml").read_text())
    job = next(j for j in config["scrape_configs"] if j["job_name"] == "servescope")
    assert job["dns_sd_configs"] == [{"names": ["server-gpu"], "type": "A", "port": 9464}]
    relabel = job["relabel_configs"][0]
    assert relabel["source_labels"] == ["__meta_dns_name"] and relabel["target_label"] == "instance"


def _make_dry_run(tmp_path: Path, *variables: str) -> str:
    venv = tmp_path / "venv"
    result = subprocess.run(["make", "-n", "-B", f"VENV={venv}", *variables, f"{venv}/.deps"],
                            cwd=ROOT, capture_output=True, text=True, timeout=60, check=True)
    return next(line for line in result.stdout.splitlines()
                if "pip install" in line and "torch==" in line)


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_the_makefile_takes_the_same_choice(tmp_path: Path) -> None:
    default = _make_dry_run(tmp_path)
    # here: pip's configured index (these machines carry the CPU wheel; works offline)
    assert default.split() == [str(tmp_path / "venv/bin/python"), "-m", "pip", "install", "-q",
                               f"torch=={PINS['TORCH_VERSION']}"]
    cpu = _make_dry_run(tmp_path, f"TORCH_INDEX_URL={CPU_INDEX}")
    assert f"--index-url {CPU_INDEX} torch=={PINS['TORCH_VERSION']}" in cpu
    readme = (ROOT / "README.md").read_text()
    assert f"TORCH_INDEX_URL={CPU_INDEX}" in readme
