"""The sharded fleet of deploy/prometheus/sharded/: two hashmod shards (per-replica rules,
remote_write with the shipped keep-list) and a global Prometheus (remote-write receiver, fleet
rules) agree with one Prometheus that scrapes every replica, and say so when a shard dies.

The replicas are small HTTP servers whose exposition advances linearly with the wall clock
(each with its own request rate and its own share of slow, erroring and not-good requests), so
every rate is exact once its window is full and any disagreement is the pipeline's. The rules
are the generator's, for an SLO spec with second-scale windows and the fast timing (the shipped
files differ only in their windows and `for` durations), so the whole run takes well under two
minutes. The keep-list test reads the committed dashboards and rule files of every flavor.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml
from promharness import (
    PrometheusHandle,
    prometheus_binary,
    start_prometheus,
    start_prometheus_config,
)

from servescope.alerts import slo_rules
from servescope.alerts.model import Options, RuleTiming
from servescope.alerts.rules import rules_document
from servescope.instrumentation.slo import parse_slo
from servescope.promql.query import series_in
from servescope.report.prometheus import parse_duration

ROOT = Path(__file__).resolve().parents[2]
SHARDED = ROOT / "deploy" / "prometheus" / "sharded"
ENGINE_PREFIXES = ("vllm:", "sglang:", "tgi_", "llamacpp:")
#: Series a keep-list must not ship: the exporters' process and runtime series.
NOT_NEEDED = ("process_cpu_seconds_total", "go_goroutines", "python_gc_objects_collected_total",
              "promhttp_metric_handler_requests_total", "otelcol_exporter_sent_spans_total")


# --- the keep-list ---------------------------------------------------------------------------
_QUERY_KEYS = ("expr", "query", "definition")
_KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and",
             "or", "unless", "offset", "inf", "nan"}
_BARE = re.compile(r"(?<![A-Za-z0-9_:.$])([A-Za-z_:][A-Za-z0-9_:]*)(?![A-Za-z0-9_:])(?!\s*\()")


def _queries(node: Any) -> Iterator[str]:
    """The PromQL of a dashboard: panel targets' and variables' queries."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in _QUERY_KEYS and isinstance(value, str):
                yield value
            else:
                yield from _queries(value)
    elif isinstance(node, list):
        for value in node:
            yield from _queries(value)


def rule_series(expr: str) -> set[str]:
    """Every series a rule reads, braces or not (the shard alerts name bare records)."""
    bare = re.sub(r'"(?:[^"\\]|\\.)*"', "", expr)
    bare = re.sub(r"\{[^}]*\}|\[[^\]]*\]", "", bare)
    bare = re.sub(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", bare)
    return series_in(expr) | {n for n in _BARE.findall(bare) if n.lower() not in _KEYWORDS}


def needed_series() -> set[str]:
    """Every series a committed dashboard query or variable, or a committed rule, of any
    flavor reads (with agents the replica rules run on the global tier too)."""
    names: set[str] = set()
    for board in (ROOT / "dashboards" / "generated").rglob("*.json"):
        for text in _queries(json.loads(board.read_text())):
            names |= series_in(text)
    for rules in (ROOT / "alerts" / "generated").rglob("*rules.yaml"):
        for group in yaml.safe_load(rules.read_text())["groups"]:
            for rule in group["rules"]:
                names |= rule_series(rule["expr"])
    return names


def test_the_rule_reader_finds_bare_and_braced_series() -> None:
    assert rule_series('time() - max_over_time(servescope_shard:heartbeat:time[1h]) > 45') \
        == {"servescope_shard:heartbeat:time"}
    assert rule_series('sum by (job, le) (rate(a_bucket{le=~"2(\\\\.0)?"}[5m])) '
                       '/ on (job) group_left b unless c{x="y z"} > 1e3') == \
        {"a_bucket", "b", "c"}


def remote_writes(config: dict[str, Any]) -> list[dict[str, Any]]:
    writes: list[dict[str, Any]] = config.get("remote_write") or []
    return writes


def ships(write: dict[str, Any], name: str) -> bool:
    """Whether ``write``'s write_relabel_configs let a series called ``name`` through
    (keep/drop on ``__name__``; Prometheus anchors every relabel regex)."""
    for rule in write.get("write_relabel_configs", []):
        assert rule.get("source_labels") == ["__name__"], rule
        matched = re.fullmatch(rule["regex"], name) is not None
        if rule.get("action", "replace") == "keep" and not matched:
            return False
        if rule.get("action") == "drop" and matched:
            return False
    return True


def commented_remote_write() -> dict[str, Any]:
    """The compose Prometheus's commented remote_write block, uncommented."""
    text = (ROOT / "deploy" / "prometheus" / "prometheus.yml").read_text()
    block = re.search(r"^# remote_write:\n(?:#  .*\n)+", text, re.M)
    assert block is not None
    config: dict[str, Any] = yaml.safe_load(
        "\n".join(line[2:] for line in block.group(0).splitlines()))
    return config


def test_the_keep_list_ships_every_series_the_dashboards_and_rules_read() -> None:
    needed = needed_series()
    assert {n for n in needed if n.startswith(ENGINE_PREFIXES)}, "no engine series derived"
    assert {slo_rules.HEARTBEAT, "up", "gen_ai_server_time_to_first_token_seconds_bucket",
            "vllm:time_to_first_token_seconds_bucket"} <= needed
    configs = {"shard.yml": yaml.safe_load((SHARDED / "shard.yml").read_text()),
               "agent.yml": yaml.safe_load((SHARDED / "agent.yml").read_text()),
               "prometheus.yml (commented)": commented_remote_write()}
    for where, config in configs.items():
        writes = remote_writes(config)
        assert writes, where
        for write in writes:
            assert sorted(n for n in needed if not ships(write, n)) == [], where
            assert [n for n in NOT_NEEDED if ships(write, n)] == [], where


@pytest.mark.skipif(shutil.which("promtool") is None, reason="needs promtool")
@pytest.mark.parametrize("name", ["shard.yml", "agent.yml", "global.yml"])
def test_promtool_checks_each_example(name: str, tmp_path: Path) -> None:
    (tmp_path / "rules").mkdir()
    for scope in ("replica", "fleet"):
        shutil.copy(ROOT / f"alerts/generated/servescope/{scope}-rules.yaml", tmp_path / "rules")
    shutil.copy(SHARDED / name, tmp_path / name)
    result = subprocess.run(["promtool", "check", "config", str(tmp_path / name)],
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


# --- simulated replicas ----------------------------------------------------------------------
class Replica:
    """One replica's exposition, advancing with the wall clock: ``rate`` requests per second,
    of which the given shares were slow to the first token, slow per token, errors, and not
    good (goodput)."""

    def __init__(self, i: int) -> None:
        self.rate = 1.0 + 0.5 * i
        self.ttft_bad = 0.010 + 0.003 * i
        self.tpot_bad = 0.020 + 0.002 * (i % 3)
        self.errors = 0.001 + 0.0003 * i
        self.not_good = 0.03 + 0.004 * i
        self.t0 = time.time() - 3600  # as if it had served an hour: no counter starts at 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = server.exposition(time.time()).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/plain; version=0.0.4")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.address = f"127.0.0.1:{self._http.server_address[1]}"
        threading.Thread(target=self._http.serve_forever, daemon=True).start()

    def exposition(self, now: float) -> str:
        n = self.rate * (now - self.t0)
        m = 'model="m"'
        ttft = "gen_ai_server_time_to_first_token_seconds"
        tpot = "gen_ai_server_time_per_output_token_seconds"
        lines = [
            f"# TYPE {ttft} histogram",
            f'{ttft}_bucket{{{m},priority="default",le="0.5"}} {n * 0.5!r}',
            f'{ttft}_bucket{{{m},priority="default",le="2.0"}} {n * (1 - self.ttft_bad)!r}',
            f'{ttft}_bucket{{{m},priority="default",le="+Inf"}} {n!r}',
            f'{ttft}_count{{{m},priority="default"}} {n!r}',
            f'{ttft}_sum{{{m},priority="default"}} {n * 0.7!r}',
            f"# TYPE {tpot} histogram",
            f'{tpot}_bucket{{{m},le="0.1"}} {n * (1 - self.tpot_bad)!r}',
            f'{tpot}_bucket{{{m},le="+Inf"}} {n!r}',
            f"{tpot}_count{{{m}}} {n!r}",
            f"{tpot}_sum{{{m}}} {n * 0.05!r}",
            "# TYPE servescope_requests_finished_total counter",
            f'servescope_requests_finished_total{{{m},finish_reason="stop"}} '
            f"{n * (1 - self.errors)!r}",
            f'servescope_requests_finished_total{{{m},finish_reason="error"}} '
            f"{n * self.errors!r}",
            "# TYPE servescope_goodput_requests_total counter",
            f"servescope_goodput_requests_total{{{m}}} {n * (1 - self.not_good)!r}",
            "# TYPE servescope_goodput_attempted_requests_total counter",
            f"servescope_goodput_attempted_requests_total{{{m}}} {n!r}",
        ]
        return "\n".join(lines) + "\n"

    def stop(self) -> None:
        self._http.shutdown()
        self._http.server_close()


def hashmod(address: str, modulus: int) -> int:
    """Prometheus's hashmod relabel action: the low 8 bytes of the MD5, big-endian."""
    return int.from_bytes(hashlib.md5(address.encode()).digest()[8:], "big") % modulus


# --- the fleet -------------------------------------------------------------------------------
#: Second-scale burn windows: the first stage is a 5 s rate, the longest window 30 s.
SLO = parse_slo("""
version: 1
ttft: {threshold_seconds: 2.0, target: 0.99}
tpot: {threshold_seconds: 0.1, target: 0.99}
availability: {target: 0.999}
alerts:
  burn_rate_windows:
    - {long: 15s, short: 5s, burn_rate: 14.4, severity: page}
    - {long: 30s, short: 5s, burn_rate: 6, severity: ticket}
""")
OPTIONS = Options(timing=RuleTiming.fast())
STAGE = slo_rules.stage_window(SLO)
SHARDS = 2


def rule_file(tmp_path: Path, scope: str | None) -> Path:
    path = tmp_path / f"{scope or 'all'}-rules.yaml"
    path.write_text(yaml.safe_dump(rules_document(SLO, OPTIONS, scope), sort_keys=False))
    return path


def shard_config(k: int, targets: list[str], rules: Path, global_url: str) -> dict[str, Any]:
    """shard.yml as shipped, with the test's intervals, targets, rules and receiver."""
    config = copy.deepcopy(yaml.safe_load((SHARDED / "shard.yml").read_text()))
    config["global"].update(scrape_interval="1s", scrape_timeout="1s", evaluation_interval="1s")
    config["global"]["external_labels"]["shard"] = str(k)
    config["rule_files"] = [str(rules)]
    del config["alerting"]
    job = config["scrape_configs"][0]
    del job["dns_sd_configs"]
    job["static_configs"] = [{"targets": targets}]
    assert [r["action"] for r in job["relabel_configs"]] == ["hashmod", "keep"]
    assert job["relabel_configs"][0]["modulus"] == SHARDS
    job["relabel_configs"][1]["regex"] = str(k)
    write = config["remote_write"][0]
    write["url"] = f"{global_url}/api/v1/write"
    write["queue_config"] = {"batch_send_deadline": "1s"}  # the default 5 s, shortened
    return config


def global_config(rules: Path) -> dict[str, Any]:
    config = copy.deepcopy(yaml.safe_load((SHARDED / "global.yml").read_text()))
    config["global"]["evaluation_interval"] = "1s"
    config["rule_files"] = [str(rules)]
    del config["alerting"]
    config["scrape_configs"] = []
    return config


def one_value(prom: PrometheusHandle, promql: str, at: float) -> dict[str, float]:
    return {json.dumps(r["metric"], sort_keys=True): float(r["value"][1])
            for r in prom.query(promql, at=at)}


def rule_errors(prom: PrometheusHandle) -> list[str]:
    return [f"{rule['name']}: {rule.get('lastError')}" for group in prom.rule_groups()
            for rule in group["rules"] if rule.get("health") != "ok" or rule.get("lastError")]


@pytest.mark.integration
@pytest.mark.skipif(prometheus_binary() is None, reason="needs prometheus")
def test_two_shards_and_a_global_tier_agree_with_one_prometheus(tmp_path: Path) -> None:
    replicas: list[Replica] = []
    proms: list[PrometheusHandle] = []
    try:
        # enough replicas that each shard has two
        while min(sum(hashmod(r.address, SHARDS) == k for r in replicas)
                  for k in range(SHARDS)) < 2:
            replicas.append(Replica(len(replicas)))
            assert len(replicas) <= 16
        targets = [r.address for r in replicas]
        glob = start_prometheus_config(tmp_path, global_config(rule_file(tmp_path, "fleet")),
                                       ["--web.enable-remote-write-receiver"])
        proms.append(glob)
        replica_rules = rule_file(tmp_path, "replica")
        shards = []
        for k in range(SHARDS):
            shards.append(start_prometheus_config(
                tmp_path, shard_config(k, targets, replica_rules, glob.url)))
            proms.append(shards[-1])
        single = start_prometheus(tmp_path, targets, rule_files=[rule_file(tmp_path, None)])
        proms.append(single)

        # each shard scrapes exactly the replicas hashmod gives it
        for k, shard in enumerate(shards):
            shard.wait_for_targets_up(timeout=60)
            assert sorted(t["labels"]["instance"] for t in shard.targets()) == \
                sorted(a for a in targets if hashmod(a, SHARDS) == k)

        # wait until every window the comparison reads is full on both sides
        all_rate = f'{slo_rules.ALL_RECORD}{STAGE}{{slo="ttft"}}'

        def filled(prom: PrometheusHandle, n: int) -> bool:
            counts = prom.query(f"count_over_time({all_rate}[35s])")
            return len(counts) == n and all(float(c["value"][1]) >= 33 for c in counts)

        glob.wait_for(lambda: filled(glob, SHARDS) or None, timeout=120,
                      what="35 s of both shards' records on the global tier")
        single.wait_for(lambda: filled(single, 1) or None, timeout=60,
                        what="35 s of records on the single Prometheus")
        at = time.time() - 3  # remote_write's lag behind
        ratio = slo_rules.SLI_RECORD
        queries = {
            **{f"{ratio}{w}": f"{ratio}{w}" for w in (STAGE, "15s", "30s")},
            "burn rate 30s (ttft)": f'{ratio}30s{{slo="ttft"}} / 0.01',
            "attainment 30s": f"1 - {ratio}30s",
            "fleet request rate": f"sum by (slo) ({slo_rules.ALL_RECORD}{STAGE})",
            "goodput": "sum(rate(servescope_goodput_requests_total[30s])) / "
                       "sum(rate(servescope_goodput_attempted_requests_total[30s]))",
        }
        for name, promql in queries.items():
            g, s = one_value(glob, promql, at), one_value(single, promql, at)
            assert g.keys() == s.keys() and g, f"{name}: {g} vs {s}"
            for key, value in s.items():
                assert g[key] == pytest.approx(value, rel=0.01), f"{name} {key}"
        # the SLIs are the fleet's, not one shard's: each shard alone is off by more
        shard_only = f'sum by (slo) ({slo_rules.BAD_RECORD}{STAGE}{{shard="0"}}) / ' \
                     f'sum by (slo) ({slo_rules.ALL_RECORD}{STAGE}{{shard="0"}})'
        fleet = f"sum by (slo) ({slo_rules.BAD_RECORD}{STAGE}) / " \
                f"sum by (slo) ({slo_rules.ALL_RECORD}{STAGE})"
        assert one_value(glob, shard_only, at) != pytest.approx(one_value(glob, fleet, at),
                                                                rel=0.01)
        for prom in (glob, *shards):
            assert rule_errors(prom) == []

        # kill a shard: the global tier pages for it, and for nothing else
        started = time.time()
        shards[1].stop()

        def silent() -> list[dict[str, Any]] | None:
            firing = [a for a in glob.alerts() if a["state"] == "firing"]
            return firing if any(a["labels"]["alertname"] == "ServescopeShardSilent"
                                 for a in firing) else None

        firing = glob.wait_for(silent, timeout=120, what="ServescopeShardSilent")
        assert time.time() - started < 120
        assert [a["labels"].get("shard") for a in firing
                if a["labels"]["alertname"] == "ServescopeShardSilent"] == ["1"]
        alerts = glob.query_range('ALERTS{alertname=~".*BudgetBurn.*"}', started - 60,
                                  time.time(), step="1s")
        assert alerts == []
        assert rule_errors(glob) == []
    finally:
        for prom in proms:
            prom.stop()
        for replica in replicas:
            replica.stop()


def test_the_shipped_shard_silent_alert_pages_within_two_minutes() -> None:
    """At the shipped evaluation interval (global.yml), the generated ShardSilent alert of
    every flavor fires within 2 minutes of a shard's last heartbeat: threshold, then `for`,
    each reached at most one evaluation late."""
    interval = parse_duration(yaml.safe_load((SHARDED / "global.yml").read_text())
                              ["global"]["evaluation_interval"])
    for fleet in (ROOT / "alerts" / "generated").glob("*/fleet-rules.yaml"):
        rules = [r for g in yaml.safe_load(fleet.read_text())["groups"] for r in g["rules"]]
        silent = next(r for r in rules if r.get("alert") == "ServescopeShardSilent")
        threshold = float(re.search(r">\s*([0-9.]+)\s*$", silent["expr"]).group(1))
        worst = threshold + interval + parse_duration(silent.get("for", "0s")) + interval
        assert worst <= 120, f"{fleet}: {worst:g}s"
