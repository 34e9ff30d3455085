"""benchmarks/fleet.py --shards: its shards and global tier are the shipped
deploy/prometheus/sharded/ configs, changed only where a benchmark must (targets, numbers,
rules, receiver), and each shard scrapes the replicas its backfill gave it (real Prometheus,
real replay server)."""

from __future__ import annotations

import shutil
import time
import urllib.request
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
from benchmark_scripts import load_benchmark
from waiting import poll_until

ROOT = Path(__file__).resolve().parents[2]
SHARDED = ROOT / "deploy" / "prometheus" / "sharded"


def _fleet() -> ModuleType:
    return load_benchmark("fleet")


def differences(a: Any, b: Any, path: str = "") -> set[str]:
    """The dotted paths where two YAML documents differ (a key on one side only included)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return {d for k in a.keys() | b.keys()
                for d in differences(a.get(k), b.get(k), f"{path}{k}.")}
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return {d for i, (x, y) in enumerate(zip(a, b, strict=True))
                for d in differences(x, y, f"{path}{i}.")}
    return set() if a == b else {path.rstrip(".")}


def test_the_benchmarks_shards_and_global_are_the_shipped_configs(tmp_path: Path) -> None:
    fleet = _fleet()
    addresses = ["127.0.0.1:9001", "127.0.0.1:9002"]
    shipped = yaml.safe_load((SHARDED / "shard.yml").read_text())
    made = fleet.shard_config(2, 3, addresses, tmp_path / "replica-rules.yaml", "http://g:1")
    assert differences(shipped, made) == {
        "global.scrape_timeout", "global.external_labels.shard", "rule_files.0", "alerting",
        "scrape_configs.0.dns_sd_configs", "scrape_configs.0.static_configs",
        "scrape_configs.0.relabel_configs.0.modulus", "scrape_configs.0.relabel_configs.1.regex",
        "remote_write.0.url"}
    job = made["scrape_configs"][0]
    assert (job["relabel_configs"][0]["modulus"], job["relabel_configs"][1]["regex"]) == (3, "2")
    assert made["global"]["external_labels"] == {"shard": "2"}
    assert made["remote_write"][0]["url"] == "http://g:1/api/v1/write"
    assert made["global"]["scrape_interval"] == f"{fleet.INTERVAL_S}s"
    assert made["global"]["evaluation_interval"] == f"{fleet.INTERVAL_S}s"

    shipped = yaml.safe_load((SHARDED / "global.yml").read_text())
    made = fleet.global_config(tmp_path / "fleet-rules.yaml")
    assert differences(shipped, made) == {"rule_files.0", "alerting", "scrape_configs"}
    assert made["scrape_configs"] == []


@pytest.mark.skipif(shutil.which("prometheus") is None, reason="needs prometheus")
def test_each_shard_scrapes_the_replicas_hashmod_gives_it(tmp_path: Path) -> None:
    fleet = _fleet()
    text = "# TYPE servescope_requests_arrived_total counter\n" \
           'servescope_requests_arrived_total{model="m0"} 5.0\n'
    server, addresses = fleet.start_replicas(text, 8, time.time() - 60)
    try:
        # each replica on its own port, its counters grown by its pace since the origin
        with urllib.request.urlopen(f"http://{addresses[3]}/metrics", timeout=10) as answer:
            value = float(answer.read().decode().split()[-1])
        assert value == pytest.approx(5.0 * fleet.growth(fleet.paces(8)[3], 60), rel=0.05)
        deployed = fleet.start_fleet(tmp_path, addresses, 2)
        try:
            assert [p.name for p in deployed.servers] == ["shard-0", "shard-1", "global"]
            for k, shard in enumerate(deployed.scraping):
                def discovered(shard: Any = shard) -> dict[str, Any] | None:
                    data, _ = shard.get("/api/v1/targets")
                    listed = len(data["activeTargets"]) + len(data["droppedTargets"])
                    return data if listed == len(addresses) else None

                data = poll_until(discovered, what=f"shard {k}'s targets", timeout_s=60)
                scraped = sorted(t["labels"]["instance"] for t in data["activeTargets"])
                assert scraped == sorted(fleet.instance(i) for i, a in enumerate(addresses)
                                         if fleet.hashmod(a, 2) == k)
            # the replica rules run on the shards, the fleet rules on the global tier
            for prom, scope in ((deployed.scraping[0], "replica"), (deployed.queried, "fleet")):
                data, _ = prom.get("/api/v1/rules")
                shipped = yaml.safe_load(
                    (ROOT / f"alerts/generated/servescope/{scope}-rules.yaml").read_text())
                assert sorted(g["name"] for g in data["groups"]) == \
                    sorted(g["name"] for g in shipped["groups"])
        finally:
            deployed.stop()
    finally:
        server.terminate()
