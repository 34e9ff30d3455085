"""The `docker compose up` stack, tested without a Docker engine: the compose file against the
compose specification, every mount, the Prometheus and Alertmanager configs with the real
promtool/amtool, and the wiring between services."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path, PurePosixPath

import jsonschema
import pytest
import yaml
from opentelemetry.sdk.trace import TracerProvider
from vendored import schemas_dir

from servescope.alerts.model import Options
from servescope.alerts.render import all_rules
from servescope.cli import build_parser
from servescope.instrumentation import tracing
from servescope.instrumentation.slo import SLOSpec
from servescope.promql.flavor import FLAVORS

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = schemas_dir()
COMPOSE = yaml.safe_load((ROOT / "compose.yaml").read_text())
SERVICES: dict = COMPOSE["services"]
#: services without a healthcheck, and why
NO_HEALTHCHECK = {
    "otel-collector": "distroless image without a shell; scraped by Prometheus instead",
    "otel-gateway": "distroless image without a shell; scraped by Prometheus instead",
    "tempo": "minimal image without a shell or wget; Grafana's data source shows its health",
    "load-1": "a client: only its /metrics listens (a failed scrape shows as down)",
    "load-2": "a client: only its /metrics listens (a failed scrape shows as down)",
    "load-gpu": "a client: only its /metrics listens (a failed scrape shows as down)",
}


def bind_mounts(service: str) -> list[tuple[Path, str]]:
    """(host path, container path) of every bind mount of ``service``."""
    out = []
    for volume in SERVICES[service].get("volumes", []):
        source, target = volume.split(":")[:2]
        if source.startswith("."):
            out.append((ROOT / source, target))
    return out


def test_compose_validates_against_the_compose_spec() -> None:
    schema = json.loads((SCHEMAS / "compose-spec.json").read_text())
    validator = jsonschema.Draft7Validator(schema)
    assert [e.message for e in validator.iter_errors(COMPOSE)] == []
    broken = {**COMPOSE, "services": {**SERVICES, "bad": {"image": "x", "ports": [{"x": 1}]}}}
    assert list(validator.iter_errors(broken))


def test_the_stack_has_every_part() -> None:
    default = {name for name, s in SERVICES.items() if "profiles" not in s}
    assert default == {"server-1", "server-2", "load-1", "load-2", "otel-collector",
                       "otel-gateway", "tempo", "prometheus", "alertmanager", "grafana"}
    # `--profile gpu`; `--profile vllm` (the gateway in front of a third-party engine)
    assert set(SERVICES) - default == {"server-gpu", "load-gpu", "vllm", "gateway-vllm"}


@pytest.mark.parametrize("service", sorted(SERVICES))
def test_every_mounted_file_exists(service: str) -> None:
    for host, target in bind_mounts(service):
        assert host.exists(), f"{service}: {host.relative_to(ROOT)} (mounted at {target})"


def test_collectors_run_the_generated_configs_and_reach_each_other() -> None:
    for service, role in (("otel-collector", "agent"), ("otel-gateway", "gateway")):
        path = f"/etc/otelcol-contrib/{role}.yaml"
        assert [(h.relative_to(ROOT).as_posix(), t) for h, t in bind_mounts(service)] == \
            [(f"collector/{role}.yaml", path)]
        assert SERVICES[service]["command"] == [f"--config={path}"]
        # the image the generated config was checked against
        version = re.search(r"collector-contrib:(\S+)", (ROOT / f"collector/{role}.yaml")
                            .read_text()).group(1)
        assert SERVICES[service]["image"] == f"otel/opentelemetry-collector-contrib:{version}"
    agent = yaml.safe_load((ROOT / "collector/agent.yaml").read_text())
    hostname = agent["exporters"]["loadbalancing"]["resolver"]["dns"]["hostname"]
    assert "GATEWAY_HOSTNAME" in hostname
    assert SERVICES["otel-collector"]["environment"]["GATEWAY_HOSTNAME"] == "otel-gateway"
    gateway = yaml.safe_load((ROOT / "collector/gateway.yaml").read_text())
    assert "TEMPO_OTLP_ENDPOINT" in gateway["exporters"]["otlp"]["endpoint"]
    assert SERVICES["otel-gateway"]["environment"]["TEMPO_OTLP_ENDPOINT"] == "tempo:4317"
    assert agent["receivers"]["otlp"]["protocols"]["grpc"]["endpoint"].endswith(":4317")


def test_images_are_pinned_and_ports_are_loopback_only() -> None:
    for name, service in SERVICES.items():
        image = service.get("image", "")
        assert re.fullmatch(r"[\w./-]+:[\w.-]+", image), f"{name}: image {image!r} not pinned"
        assert not image.endswith(":latest")
        for port in service.get("ports", []):
            assert str(port).startswith("127.0.0.1:"), f"{name}: {port} not bound to loopback"


def test_healthchecks() -> None:
    missing = {name for name, s in SERVICES.items() if "healthcheck" not in s}
    assert missing == set(NO_HEALTHCHECK)
    for name, service in SERVICES.items():
        for dep, cond in service.get("depends_on", {}).items():
            if cond["condition"] == "service_healthy":
                assert dep not in NO_HEALTHCHECK, f"{name} waits on {dep}, which has no check"


def test_grafana_credentials_come_from_an_uncommitted_env_file() -> None:
    env = SERVICES["grafana"]["environment"]
    assert env["GF_AUTH_ANONYMOUS_ENABLED"] == "false"
    for key in ("GF_SECURITY_ADMIN_USER", "GF_SECURITY_ADMIN_PASSWORD"):
        assert re.fullmatch(r"\$\{[A-Z_]+:\?.+\}", env[key]), f"{key} must be required, no default"
    example = (ROOT / ".env.example").read_text()
    assert "GRAFANA_ADMIN_PASSWORD=\n" in example  # no usable password is committed
    ignored = subprocess.run(["git", "check-ignore", "-q", ".env"], cwd=ROOT, check=False)
    assert ignored.returncode == 0


METRICS_PORT = 9464


def test_servers_run_the_cli_and_load_targets_loopback() -> None:
    parser = build_parser()
    for name in ("server-1", "server-2", "server-gpu"):
        command = SERVICES[name]["command"]
        args = parser.parse_args(command[1:])
        assert command[0] == "servescope" and args.host == "0.0.0.0" and args.port == 8000
        assert args.metrics_port == METRICS_PORT  # Prometheus scrapes the metrics port
        assert SERVICES[name]["environment"]["OTEL_EXPORTER_OTLP_ENDPOINT"] == \
            "http://otel-collector:4317"
    for name, server in (("load-1", "server-1"), ("load-2", "server-2"),
                         ("load-gpu", "server-gpu")):
        assert SERVICES[name]["network_mode"] == f"service:{server}"
        args = parser.parse_args(SERVICES[name]["command"][1:])
        assert args.url == "http://127.0.0.1:8000"


def test_prometheus_finds_every_collector_gateway_by_dns() -> None:
    """Several gateways: Prometheus scrapes each replica (dns_sd_configs on the service name
    the agent load-balances over), not one fixed address that DNS answers with one of them;
    the gateway service can scale (replicas, no fixed name or host port)."""
    config = yaml.safe_load((ROOT / "deploy/prometheus/prometheus.yml").read_text())
    job = {j["job_name"]: j for j in config["scrape_configs"]}["otel-collector"]
    assert job["static_configs"] == [{"targets": ["otel-collector:8888"]}]
    gateway = yaml.safe_load((ROOT / "collector/gateway.yaml").read_text())
    port = gateway["service"]["telemetry"]["metrics"]["readers"][0]["pull"]["exporter"][
        "prometheus"]["port"]
    assert job["dns_sd_configs"] == [{"names": [SERVICES["otel-collector"]["environment"][
        "GATEWAY_HOSTNAME"]], "type": "A", "port": port, "refresh_interval": "30s"}]
    service = SERVICES["otel-gateway"]
    assert service["deploy"]["replicas"] >= 2
    assert "container_name" not in service and "ports" not in service


def test_prometheus_scrapes_the_load_generators_client_series_under_their_own_job() -> None:
    """The Latency dashboard's client panels read servescope_client_*, which each load
    generator serves on its replica's address (shared network namespace); under a job of its
    own, so no rule about inference-server targets counts them."""
    config = yaml.safe_load((ROOT / "deploy/prometheus/prometheus.yml").read_text())
    jobs = {j["job_name"]: j for j in config["scrape_configs"]}
    targets = jobs["servescope-clients"]["static_configs"][0]["targets"]
    for name, server in (("load-1", "server-1"), ("load-2", "server-2")):
        command = SERVICES[name]["command"]
        port = command[command.index("--metrics-port") + 1]
        assert command[command.index("--metrics-host") + 1] == "0.0.0.0"
        assert SERVICES[name]["network_mode"] == f"service:{server}"
        assert f"{server}:{port}" in targets
    assert not re.fullmatch(Options().job, "servescope-clients")
    parser = build_parser()
    for name in ("load-1", "load-2", "load-gpu"):  # the CLI takes what compose passes
        args = parser.parse_args(SERVICES[name]["command"][1:])
        assert args.metrics_port == 9465


def test_prometheus_scrapes_the_servers_under_the_rules_job() -> None:
    config = yaml.safe_load((ROOT / "deploy/prometheus/prometheus.yml").read_text())
    jobs = {j["job_name"]: j for j in config["scrape_configs"]}
    job = Options().job
    assert re.fullmatch(job, "servescope")
    targets = jobs["servescope"]["static_configs"][0]["targets"]
    assert targets == [f"server-1:{METRICS_PORT}", f"server-2:{METRICS_PORT}"]
    assert "--enable-feature=exemplar-storage" in SERVICES["prometheus"]["command"]
    assert config["alerting"]["alertmanagers"][0]["static_configs"][0]["targets"] == \
        ["alertmanager:9093"]
    assert "# remote_write:" in (ROOT / "deploy/prometheus/prometheus.yml").read_text()


def _container_layout(service: str, prefix: str, tmp_path: Path) -> Path:
    """Copy the service's bind mounts under ``prefix`` into tmp_path as the container sees
    them (relative to ``prefix``)."""
    for host, target in bind_mounts(service):
        rel = PurePosixPath(target).relative_to(prefix)
        dest = tmp_path / rel
        if host.is_dir():
            shutil.copytree(host, dest)
        else:
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(host, dest)
    return tmp_path


@pytest.mark.skipif(shutil.which("promtool") is None, reason="needs promtool")
def test_promtool_check_config_on_the_mounted_layout(tmp_path) -> None:
    root = _container_layout("prometheus", "/etc/prometheus", tmp_path)
    result = subprocess.run(["promtool", "check", "config", str(root / "prometheus.yml")],
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"SUCCESS: {len(all_rules(SLOSpec.default()))} rules found" in result.stdout


@pytest.mark.skipif(shutil.which("promtool") is None, reason="needs promtool")
def test_the_commented_engine_jobs_are_valid_and_match_the_flavors(tmp_path) -> None:
    """Uncommented, the vLLM/SGLang/TGI jobs load, and each is its flavor's scrape job."""
    text = (ROOT / "deploy/prometheus/prometheus.yml").read_text()
    block = re.search(r"^  # - job_name: vllm\n(?:  # .*\n)+", text, re.M)
    assert block is not None
    jobs_text = "\n".join(line.replace("  # ", "  ", 1) for line in block.group(0).splitlines())
    jobs = yaml.safe_load(jobs_text)
    for job in jobs:
        flavor = FLAVORS[job["job_name"]]
        expected = flavor.scrape_job(job["static_configs"][0]["targets"])
        assert job == expected, job["job_name"]
    config = tmp_path / "prometheus.yml"
    config.write_text(yaml.safe_dump({"scrape_configs": jobs}))
    result = subprocess.run(["promtool", "check", "config", str(config)],
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.skipif(shutil.which("amtool") is None, reason="needs amtool")
def test_amtool_check_config() -> None:
    result = subprocess.run(["amtool", "check-config",
                             str(ROOT / "deploy/alertmanager/alertmanager.yml")],
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.skipif(shutil.which("amtool") is None, reason="needs amtool")
def test_alertmanager_routes_pages_to_the_pager() -> None:
    config = str(ROOT / "deploy/alertmanager/alertmanager.yml")
    def route(*labels: str) -> str:
        result = subprocess.run(["amtool", "config", "routes", "test", f"--config.file={config}",
                                 *labels], capture_output=True, text=True, timeout=60,
                                check=False)
        return result.stdout.strip()
    assert route("severity=page", "alertname=ServescopeTTFTBudgetBurnPage") == "pager"
    assert route("severity=ticket", "alertname=ServescopeCancelRatioHigh") == "tickets"


def test_grafana_provisioning_links_exemplars_to_tempo() -> None:
    prov = ROOT / "deploy/grafana/provisioning"
    sources = {d["uid"]: d for d in
               yaml.safe_load((prov / "datasources/datasources.yaml").read_text())["datasources"]}
    prom, tempo = sources["prometheus"], sources["tempo"]
    assert prom["isDefault"] is True and prom["url"] == "http://prometheus:9090"
    dest = prom["jsonData"]["exemplarTraceIdDestinations"][0]
    assert dest["datasourceUid"] == tempo["uid"] and tempo["url"] == "http://tempo:3200"
    # the exemplar label our histograms carry is the one Grafana links on
    span = TracerProvider().get_tracer("test").start_span("request")
    exemplar = tracing.exemplar_of(span)
    assert exemplar is not None and dest["name"] in exemplar
    providers = yaml.safe_load((prov / "dashboards/servescope.yaml").read_text())["providers"]
    mounts = dict((t, h) for h, t in bind_mounts("grafana"))
    assert [p["folder"] for p in providers] == ["servescope", "vllm", "sglang", "tgi",
                                                        "llamacpp"]
    for provider in providers:
        path = provider["options"]["path"]
        assert mounts[path] == ROOT / f"dashboards/generated/{provider['folder']}"
        assert sorted(p.name for p in mounts[path].glob("*.json")) == \
            ["capacity.json", "latency.json", "overview.json", "pipeline.json", "transport.json"]
