"""The ways the README and compose.yaml put the gateway in front of an engine say what the
command accepts: the compose profile, the Kubernetes sidecar and the vLLM middleware line."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import yaml

from servescope.cli import build_parser
from servescope.promql.flavor import FLAVORS

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def _section() -> str:
    return README.split("## Watch vLLM, SGLang, TGI or llama.cpp", 1)[1].split("\n## ", 1)[0]


def test_the_compose_profile_puts_the_gateway_in_front_of_the_engine() -> None:
    services = yaml.safe_load((ROOT / "compose.yaml").read_text())["services"]
    gateway = services["gateway-vllm"]
    args = build_parser().parse_args(gateway["command"][1:])
    assert args.upstream == "http://vllm:8000" and args.flavor == "vllm"
    assert services["vllm"]["profiles"] == gateway["profiles"] == ["vllm"]
    assert gateway["ports"] == [f"127.0.0.1:{args.port}:{args.port}"]
    assert "ports" not in services["vllm"]  # clients reach the engine through the gateway only


def test_the_stacks_prometheus_scrapes_the_profiles_gateway_under_the_flavors_job() -> None:
    services = yaml.safe_load((ROOT / "compose.yaml").read_text())["services"]
    port = build_parser().parse_args(services["gateway-vllm"]["command"][1:]).port
    config = yaml.safe_load((ROOT / "deploy/prometheus/prometheus.yml").read_text())
    jobs = {j["job_name"]: j for j in config["scrape_configs"]}
    gateway_job = FLAVORS["vllm"].gateway
    assert gateway_job is not None and gateway_job in jobs
    (sd,) = jobs[gateway_job]["dns_sd_configs"]
    assert sd["names"] == ["gateway-vllm"] and sd["port"] == port  # /metrics on its own port


def test_the_kubernetes_sidecar_runs_the_gateway_beside_the_engine() -> None:
    block = re.search(r"```yaml\n(containers:.*?)```", _section(), re.S)
    assert block is not None
    engine, sidecar = yaml.safe_load(block.group(1))["containers"]
    args = build_parser().parse_args(sidecar["args"][1:])
    engine_port = engine["args"][engine["args"].index("--port") + 1]
    assert args.upstream == f"http://127.0.0.1:{engine_port}"  # same pod: loopback
    assert sidecar["ports"][0]["containerPort"] == args.port
    assert sidecar["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": args.port}


def test_the_vllm_middleware_line_names_an_importable_class() -> None:
    path = re.search(r"--middleware (\S+)", _section())
    assert path is not None
    module, name = path.group(1).rsplit(".", 1)
    assert isinstance(getattr(importlib.import_module(module), name), type)
