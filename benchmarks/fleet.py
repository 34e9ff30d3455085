"""A fleet of N replicas scraped by a real Prometheus: what the rules and dashboards cost.

One exposition of the production mix (3 models x 3 priority classes, every finish and
rejection reason; the registry of ``servescope.instrumentation.MetricSet`` with every child
written and histograms observed, or ``--exposition FILE``, e.g. a ``/metrics`` capture of
``servescope serve``) is replayed by one HTTP server process as N replicas, each on its own path
(``/replica/<i>/metrics``, instance ``replica-<i>``). Each replica advances at its own pace: at
every scrape its counters and every series of a histogram are the captured values times
``1 + pace * minutes elapsed``, so rates hold, buckets stay cumulative and ``_count`` equals the
``+Inf`` bucket. A real Prometheus (the Debian package's) scrapes every 15 s and evaluates the
generated servescope rules every 15 s for ``--duration`` seconds. Then, per N:

* head series and the Prometheus process's RSS (resident now, and its peak);
* each rule group's evaluation time (median and largest of what ``/api/v1/rules`` reported
  at every interval of the run) and the rules failing;
* every dashboard query (variables set to All) over a 1 h range at a 15 s step, twice in the
  same run: as generated (fleet panels read recorded series) and with every query on raw
  series (the dashboards before they read recordings): p50/p99/max and the slowest five.

With ``--backfill HOURS`` (e.g. 72) the Prometheus data dir starts with that much history,
written as OpenMetrics text and loaded with ``promtool tsdb create-blocks-from openmetrics``
before Prometheus starts: every replica's counters and histograms at a coarse step
(``--backfill-step``, default 900 s), advancing on the same clock the live replay then continues
(no reset), and the SLO rules' first stage (the recordings the 30 m to 3 d windows sum over) at
the evaluation interval, as a Prometheus that ran that long would hold them. Their values are
what the rules compute: a throwaway Prometheus evaluates each first-stage expression on a short
history of one replica (rates are exact on linear counters), scaled by the fleet's summed pace.
So the 1 d and 3 d windows are full and the SLO groups' evaluation time is that of a long-running
Prometheus. Without it only ``--duration`` of history exists, and a 1 h dashboard query reads
that much data either way (the raw history is too coarse for a 1 m rate).

Run: python benchmarks/fleet.py [--replicas 10,100] [--duration 240] [--backfill 72]
Prints a table per N and one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import functools
import hashlib
import json
import multiprocessing
import os
import random
import re
import shutil
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from servescope.alerts.model import Options
from servescope.alerts.render import dump, rules_document
from servescope.dashboards import lint
from servescope.dashboards.render import dashboards
from servescope.harness.load_summary import percentile
from servescope.instrumentation import DeclaredLabels
from servescope.instrumentation import catalog as cat
from servescope.instrumentation.buckets import ladders
from servescope.instrumentation.budget import REFERENCE_MIX
from servescope.instrumentation.metrics import MetricSet, render
from servescope.instrumentation.slo import SLOSpec
from servescope.promql.flavor import SERVESCOPE
from servescope.report.launcher import LaunchError, LocalPrometheus, start_prometheus_config

INTERVAL_S = 15
RANGE_S = 3600
STEP_S = 15
JOB = "servescope"
SHARDED = Path(__file__).resolve().parents[1] / "deploy" / "prometheus" / "sharded"


# --- the exposition ------------------------------------------------------------------------

def production_mix() -> str:
    """The exposition of one replica of the production mix (the series budget's reference
    mix), every child written: histograms observe values spread over their ladder, counters
    count, gauges hold a level."""
    from prometheus_client import CollectorRegistry

    rng = random.Random(7)
    mix = REFERENCE_MIX
    registry = CollectorRegistry()
    declared = DeclaredLabels(priorities=tuple(f"p{i}" for i in range(mix.priorities)),
                              models=tuple(f"m{i}" for i in range(mix.models)))
    metrics = MetricSet(registry, SLOSpec.default(), label_caps={cat.KIND: 64},
                        declared=declared)
    bounds = ladders(SLOSpec.default())
    # what a server exports: no client-side families, and no folded values or hook errors
    served = [spec for spec in cat.CATALOG if spec.group != "client"
              and spec not in (cat.HOOK_ERRORS, cat.LABELS_FOLDED)]
    for spec in served:
        for labels in REFERENCE_MIX.label_sets(spec):
            child = metrics.child(spec, **labels)
            if spec.buckets is not None:
                ladder = list(bounds[spec.buckets])
                for _ in range(40):
                    child.observe(rng.choice(ladder) * rng.uniform(0.5, 1.0))
            elif spec.kind is cat.Kind.COUNTER:
                child.inc(rng.randint(1, 500))
            else:
                child.set(rng.randint(0, 50))
    return render(registry)[0].decode()


@dataclass(frozen=True)
class Sample:
    prefix: str  # "name{labels} "
    value: float
    grows: bool  # a counter's or histogram's series: advances with time


def parse(text: str) -> tuple[list[str], list[Sample]]:
    """(comment lines, samples) of a text exposition; TYPE decides what advances."""
    kinds: dict[str, str] = {}
    comments, samples = [], []
    for line in text.splitlines():
        if not line:
            continue
        if line.startswith("#"):
            comments.append(line)
            parts = line.split()
            if len(parts) >= 4 and parts[1] == "TYPE":
                kinds[parts[2]] = parts[3]
            continue
        head, _, value = line.rpartition(" ")
        name = re.match(r"[A-Za-z_:][A-Za-z0-9_:]*", head)
        family = name.group(0) if name else head
        base = re.sub(r"(_total|_bucket|_count|_sum|_created)$", "", family)
        kind = kinds.get(family) or kinds.get(base, "gauge")
        if family.endswith("_created"):
            continue
        samples.append(Sample(head + " ", float(value), kind in ("counter", "histogram")))
    return comments, samples


def paces(replicas: int) -> list[float]:
    """Each replica's pace: its counters grow by that share of the captured values a minute."""
    return [random.Random(i).uniform(0.5, 1.5) for i in range(replicas)]


def growth(pace: float, seconds: float) -> float:
    """The factor on a replica's captured counter values ``seconds`` after the clock's origin:
    linear, so every rate is constant and the live replay continues its backfilled history."""
    return 1.0 + pace * seconds / 60.0


def instance(i: int) -> str:
    return f"replica-{i:04d}"


def serve(text: str, replicas: int, origin: float, ports: Any) -> None:
    """One process serving every replica's exposition on its own loopback port (so the
    shipped hashmod on ``__address__`` shares them out), advanced to the time of the scrape
    (counted from ``origin``, the start of the backfilled history if there is one). The
    ports go back through the ``ports`` pipe once every one listens."""
    comments, samples = parse(text)
    header = "\n".join(comments) + "\n"
    pace = paces(replicas)

    def body(i: int) -> bytes:
        grow = growth(pace[i], time.time() - origin)
        return (header + "".join(f"{s.prefix}{s.value * grow if s.grows else s.value!r}\n"
                                 for s in samples)).encode()

    async def answer(i: int, reader: asyncio.StreamReader,
                     writer: asyncio.StreamWriter) -> None:
        try:
            while True:  # keep-alive: Prometheus reuses its connection to a target
                request = await reader.readuntil(b"\r\n\r\n")
                if not request.startswith(b"GET /metrics"):
                    writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
                    continue
                data = body(i)
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4"
                             b"\r\nContent-Length: %d\r\n\r\n%s" % (len(data), data))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def main() -> None:
        servers = [await asyncio.start_server(functools.partial(answer, i), "127.0.0.1", 0)
                   for i in range(replicas)]
        ports.send([srv.sockets[0].getsockname()[1] for srv in servers])
        await asyncio.Event().wait()

    asyncio.run(main())


def start_replicas(text: str, replicas: int, origin: float
                   ) -> tuple[multiprocessing.Process, list[str]]:
    """The replay process and each replica's address (``127.0.0.1:<port>``)."""
    receive, send = multiprocessing.Pipe(duplex=False)
    server = multiprocessing.Process(target=serve, args=(text, replicas, origin, send),
                                     daemon=True)
    server.start()
    if not receive.poll(120):
        server.terminate()
        raise SystemExit("fleet: the replicas did not start listening")
    return server, [f"127.0.0.1:{port}" for port in receive.recv()]


def hashmod(address: str, modulus: int) -> int:
    """Prometheus's hashmod relabel action: the low 8 bytes of the MD5, big-endian."""
    return int.from_bytes(hashlib.md5(address.encode()).digest()[8:], "big") % modulus


# --- Prometheus ----------------------------------------------------------------------------

@dataclass
class Prometheus:
    server: LocalPrometheus
    name: str = "prometheus"  # "shard-<k>" or "global" in a sharded fleet

    @property
    def url(self) -> str:
        return self.server.url

    def get(self, path: str, **params: str) -> tuple[Any, float]:
        query = urllib.parse.urlencode(params)
        t0 = time.perf_counter()
        with urllib.request.urlopen(f"{self.url}{path}?{query}", timeout=300) as response:
            data = json.loads(response.read())
        return data["data"], time.perf_counter() - t0

    def rss(self) -> tuple[float, float]:
        """(resident, peak resident) MB of the process."""
        status = Path(f"/proc/{self.server.process.pid}/status").read_text()
        kb = {k: float(v.split()[0]) for k, v in
              (line.split(":", 1) for line in status.splitlines() if ":" in line)
              if k in ("VmRSS", "VmHWM")}
        return kb["VmRSS"] / 1024, kb["VmHWM"] / 1024

    def cpu_s(self) -> float:
        """CPU seconds (user and system) the process has used."""
        fields = Path(f"/proc/{self.server.process.pid}/stat").read_text().rsplit(")", 1)[1]
        utime, stime = fields.split()[11:13]
        return (int(utime) + int(stime)) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.server.stop()


def scrape_job(addresses: list[str]) -> dict[str, Any]:
    """The replicas' scrape job: each address its own target, named ``replica-<i>``."""
    return {"job_name": JOB, "static_configs": [
        {"targets": [address], "labels": {"instance": instance(i)}}
        for i, address in enumerate(addresses)]}


def write_rules(root: Path, scope: str | None) -> Path:
    """The generated rules: all of them (one Prometheus), or one scope's set."""
    path = root / f"{scope or 'all'}-rules.yaml"
    path.write_text(dump(rules_document(SLOSpec.default(), Options(), scope)))
    return path


def fleet_config(root: Path, addresses: list[str]) -> dict[str, Any]:
    """One Prometheus: scrape every replica, evaluate every generated rule, both every
    interval."""
    return {"global": {"scrape_interval": f"{INTERVAL_S}s", "scrape_timeout": "10s",
                       "evaluation_interval": f"{INTERVAL_S}s"},
            "rule_files": [str(write_rules(root, None))],
            "scrape_configs": [scrape_job(addresses)]}


def shard_config(k: int, shards: int, addresses: list[str], rules: Path,
                 global_url: str) -> dict[str, Any]:
    """deploy/prometheus/sharded/shard.yml as shipped, but for its targets (every replica
    listed: the shipped hashmod keeps this shard's share), its number, modulus, rules and
    receiver; no Alertmanager."""
    config: dict[str, Any] = copy.deepcopy(yaml.safe_load((SHARDED / "shard.yml").read_text()))
    config["global"]["scrape_timeout"] = "10s"
    config["global"]["external_labels"]["shard"] = str(k)
    config["rule_files"] = [str(rules)]
    del config["alerting"]
    job = config["scrape_configs"][0]
    del job["dns_sd_configs"]
    job["static_configs"] = scrape_job(addresses)["static_configs"]
    job["relabel_configs"][0]["modulus"] = shards
    job["relabel_configs"][1]["regex"] = str(k)
    config["remote_write"][0]["url"] = f"{global_url}/api/v1/write"
    return config


def global_config(rules: Path) -> dict[str, Any]:
    """deploy/prometheus/sharded/global.yml as shipped, with its rules and no Alertmanager or
    self-scrape."""
    config: dict[str, Any] = copy.deepcopy(yaml.safe_load((SHARDED / "global.yml").read_text()))
    config["rule_files"] = [str(rules)]
    del config["alerting"]
    config["scrape_configs"] = []
    return config


def start_prometheus(root: Path, config: dict[str, Any], flags: tuple[str, ...] = (),
                     name: str = "prometheus") -> Prometheus:
    """Prometheus on ``root/data`` (which may hold backfilled blocks already), started by the
    project's launcher."""
    try:
        return Prometheus(start_prometheus_config(root, config, flags, ready_timeout_s=300),
                          name)
    except LaunchError as exc:
        raise SystemExit(f"fleet: {exc}") from None


# --- backfilled history -------------------------------------------------------------------

@dataclass(frozen=True)
class Backfill:
    hours: float  # history before the live replay starts
    step_s: int  # the replicas' raw samples, this far apart
    samples: int = 0  # written in all (raw and recorded)
    seconds: float = 0.0  # writing the text and promtool making the blocks
    checks: dict[str, float] = field(default_factory=dict)  # what the history reads back as


def labelled(prefix: str, labels: str) -> str:
    """A sample's ``name{...} `` with ``labels`` (``job="x",instance="y"``) put first."""
    name, brace, rest = prefix.partition("{")
    if not brace:
        return f"{name.rstrip()}{{{labels}}} "
    return f"{name}{{{labels}{'' if rest.startswith('}') else ','}{rest}"


def replica_history(samples: list[Sample], replicas: dict[int, float], origin: float,
                    times: range) -> Iterator[str]:
    """OpenMetrics lines of the samples of ``replicas`` (index -> pace) at ``times`` (Unix
    seconds), counters and histograms advanced as the live replay advances them, gauges at
    their level."""
    prefixes = [[labelled(s.prefix, f'job="{JOB}",instance="{instance(i)}"') for s in samples]
                for i in replicas]
    for t in times:
        for named, p in zip(prefixes, replicas.values(), strict=True):
            grow = growth(p, t - origin)
            yield "".join(f"{head}{s.value * grow if s.grows else s.value!r} {t}\n"
                          for head, s in zip(named, samples, strict=True))


def windowed_records(document: dict[str, Any]) -> list[dict[str, Any]]:
    """The recording rules that other rules sum over long windows (the SLO rules' first
    stage: rates by job and model): what a 1 d or 3 d window reads."""
    rules = [rule for group in document["groups"] for rule in group["rules"]]
    exprs = " ".join(str(rule["expr"]) for rule in rules)
    read = set(re.findall(r"sum_over_time\(([A-Za-z_:][A-Za-z0-9_:]*)", exprs))
    return [rule for rule in rules if rule.get("record") in read and "rate(" in rule["expr"]]


def promtool_blocks(text: Path, data: Path) -> None:
    binary = shutil.which("promtool")
    if binary is None:
        raise SystemExit("fleet: --backfill needs promtool (Debian package 'prometheus')")
    # 54 h blocks: fewer passes over the text than 2 h ones, and too large to be compacted
    # again while the benchmark measures
    done = subprocess.run([binary, "tsdb", "create-blocks-from", "openmetrics",
                           "--max-block-duration=72h", str(text), str(data)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"fleet: promtool could not load the history: {done.stderr[-2000:]}")


def unit_rates(samples: list[Sample], records: list[dict[str, Any]],
               work: Path) -> list[tuple[dict[str, str], float]]:
    """Each windowed record's series and value for one replica at pace 1, as a real
    Prometheus evaluates the rule's expression on two hours of that replica's history."""
    now = int(time.time())
    times = range(now - 2 * 3600, now + 1, 900)
    history = work / "unit.om"
    with history.open("w") as out:
        out.writelines(replica_history(samples, {0: 1.0}, times.start, times))
        out.write("# EOF\n")
    promtool_blocks(history, work / "data")
    prom = start_prometheus(work, {"global": {"evaluation_interval": f"{INTERVAL_S}s"}})
    found = []
    try:
        for rule in records:
            # a window over two samples or more, between samples: the rate is the slope
            expr = re.sub(r"\[[0-9a-z]+\]", "[30m]", rule["expr"])
            data, _ = prom.get("/api/v1/query", query=expr, time=str(now - 450))
            for item in data["result"]:
                labels = {**item["metric"], **rule.get("labels", {}), "__name__": rule["record"]}
                found.append((labels, float(item["value"][1])))
    finally:
        prom.stop()
    return found


def record_history(series: list[tuple[dict[str, str], float]], scale: float,
                   times: range, extra: dict[str, str] | None = None) -> Iterator[str]:
    """OpenMetrics lines of recorded series, each at its value times ``scale``, with the
    ``extra`` labels (a shard's external label, as remote_write attaches it)."""
    for labels, value in series:
        name = labels["__name__"]
        pairs = ",".join(f'{k}="{v}"' for k, v in sorted({**labels, **(extra or {})}.items())
                         if k != "__name__")
        yield "".join(f"{name}{{{pairs}}} {value * scale!r} {t}\n" for t in times)


def check_backfill(prom: Prometheus) -> dict[str, float]:
    """That the history is there and continues into the live replay: the fewest samples a 3 d
    window of the first stage holds, the fleet's finished requests per second over the last two
    live scrapes divided by the backfilled first stage's 1 h ago (1: the history holds the
    rate the rules compute live), and the counter resets across history and live scrapes (0)."""
    checks = {
        "first_stage_samples_3d": "min(count_over_time(servescope_job:slo_all:rate5m[3d]))",
        "live_over_backfilled_rate": "sum(irate(servescope_requests_finished_total[1m])) / sum("
        "servescope_job:slo_all:rate5m{slo=\"availability\"} offset 1h)",
        "counter_resets_3d": "sum(resets(servescope_requests_finished_total[3d]))",
    }
    found = {}
    for name, query in checks.items():
        try:
            data, _ = prom.get("/api/v1/query", query=query)
        except OSError as exc:  # an overloaded server answers 503: say so, keep measuring
            print(f"fleet: check {name} failed: {exc}", flush=True)
            data = {"result": []}
        found[name] = round(float(data["result"][0]["value"][1]), 4) if data["result"] else -1.0
    return found


def backfill(text: str, replicas: int, root: Path, origin: int, start: int,
             step_s: int, shards: dict[int, int] | None = None) -> Backfill:
    """Write [origin, start) of history: the replicas' raw series every ``step_s`` and the SLO
    first stage every evaluation interval. One Prometheus (``shards`` None) gets both in
    ``root/data``. A sharded fleet (``shards``: replica -> shard): each shard
    (``root/shard-<k>/data``) its replicas' raw series; the global tier (``root/global/data``)
    each shard's first stage with its ``shard`` label, as remote_write brings it. A first-stage
    value is one replica's at pace 1 times the summed paces of the replicas it covers: every replica
    replays the same exposition at its own pace, and those rules add and subtract rates,
    which scale with it."""
    t0 = time.perf_counter()
    _, samples = parse(text)
    pace = dict(enumerate(paces(replicas)))
    unit = root / "unit"
    unit.mkdir()
    series = unit_rates(samples, windowed_records(
        rules_document(SLOSpec.default(), Options())), unit)
    shutil.rmtree(unit)
    raw = range(origin, start - step_s // 2, step_s)
    # the first stage exists once its 5 m window holds two scrapes
    recorded = range(origin + 300, start - INTERVAL_S // 2, INTERVAL_S)
    if shards is None:
        load_history(root, replica_history(samples, pace, origin, raw),
                     record_history(series, sum(pace.values()), recorded))
        written = len(recorded) * len(series)
    else:
        share = {k: {i: p for i, p in pace.items() if shards[i] == k}
                 for k in sorted(set(shards.values()))}
        for k, mine in share.items():
            load_history(root / f"shard-{k}", replica_history(samples, mine, origin, raw))
        # the global's raw history (what remote_write brought it) is left out to save the
        # time of loading it twice: the 1 h panels read the head, the 3 d windows the stage
        load_history(root / "global", *(
            record_history(series, sum(mine.values()), recorded, {"shard": str(k)})
            for k, mine in share.items()))
        written = len(recorded) * len(series) * len(share)
    return Backfill((start - origin) / 3600, step_s,
                    len(raw) * replicas * len(samples) + written,
                    time.perf_counter() - t0)


def load_history(root: Path, *parts: Iterator[str]) -> None:
    """Write ``parts`` as one OpenMetrics file and load it into ``root/data`` with promtool."""
    root.mkdir(parents=True, exist_ok=True)
    history = root / "history.om"
    with history.open("w") as out:
        for part in parts:
            out.writelines(part)
        out.write("# EOF\n")
    promtool_blocks(history, root / "data")
    history.unlink()


# --- measuring -----------------------------------------------------------------------------

#: The replica the drill-downs are measured on: the instance variable's first value, what
#: Grafana selects until the user picks others (the variable has no All option).
DRILL_DOWN = instance(0)
#: Query modes: as generated with drill-downs on one replica; the same drill-downs over every
#: replica (what All would cost); every query on raw series over every replica (the
#: dashboards before they read recordings).
MODES = ("recorded", "drill-downs on all", "raw")


@dataclass
class Run:
    replicas: int
    shards: int = 0  # 0: one Prometheus
    backfill: Backfill | None = None
    head_series: dict[str, int] = field(default_factory=dict)  # server -> head series
    rss_mb: dict[str, tuple[float, float]] = field(default_factory=dict)  # -> (now, peak)
    rule_evals: dict[str, list[float]] = field(default_factory=dict)  # name -> evaluation s
    rule_costs: dict[str, list[float]] = field(default_factory=dict)  # group › rule -> s
    rule_tier: dict[str, str] = field(default_factory=dict)  # group name -> where it ran
    rule_failures: int = 0
    firing_alerts: int = 0  # at the end of the watch, on every server
    cpu_cores: dict[str, float] = field(default_factory=dict)  # server -> cores busy, watching
    load: list[float] = field(default_factory=list)  # 1-minute load average, each interval
    queries: dict[str, dict[str, float]] = field(default_factory=dict)  # mode -> panel -> s
    failed_queries: dict[str, list[str]] = field(default_factory=dict)
    empty_queries: dict[str, int] = field(default_factory=dict)  # mode -> queries with no data

    @property
    def rule_groups(self) -> dict[str, tuple[float, float]]:
        """name -> (median, largest) evaluation seconds over the run (over every shard's
        evaluations of a replica group)."""
        return {k: (percentile(v, 0.5) or 0.0, max(v)) for k, v in self.rule_evals.items()}


def substitute(expr: str, instances: str = ".*") -> str:
    return (expr.replace("$__rate_interval", "1m").replace("$__range", "1h")
            .replace("$job", JOB).replace("$instance", instances).replace("$model", ".*")
            .replace("$gateway", "servescope-gateway.*"))


def panel_queries(recorded: bool) -> Iterator[tuple[str, str]]:
    """(dashboard › panel [ref], expr) of every query of the servescope dashboards."""
    for key, board in dashboards(SLOSpec.default(), SERVESCOPE, recorded=recorded).items():
        for panel in lint.panels(board):
            for target in panel.get("targets", []):
                yield f"{key} › {panel['title']} [{target['refId']}]", target["expr"]


def mode_queries(mode: str) -> Iterator[tuple[str, str]]:
    """(panel, PromQL) of a query mode (see :data:`MODES`)."""
    if mode == "recorded":
        yield from ((n, substitute(e, DRILL_DOWN)) for n, e in panel_queries(True))
    elif mode == "drill-downs on all":
        yield from ((n, substitute(e)) for n, e in panel_queries(True) if "$instance" in e)
    else:
        yield from ((n, substitute(e)) for n, e in panel_queries(False))


def watch_rules(proms: list[Prometheus], run: Run, seconds: float) -> None:
    """Sample /api/v1/rules of every server every interval: each group's last evaluation
    time (a replica group's on every shard), and the load average."""
    began, cpu = time.time(), {prom.name: prom.cpu_s() for prom in proms}
    deadline = began + seconds
    while time.time() < deadline:
        time.sleep(min(INTERVAL_S, max(0.0, deadline - time.time())))
        run.load.append(os.getloadavg()[0])
        for prom in proms:
            data, _ = prom.get("/api/v1/rules")
            for group in data["groups"]:
                if group.get("lastEvaluation", "").startswith("0001"):
                    continue  # not evaluated yet
                run.rule_tier[group["name"]] = prom.name.split("-")[0]
                run.rule_evals.setdefault(group["name"], []).append(
                    float(group["evaluationTime"]))
                for rule in group["rules"]:
                    run.rule_costs.setdefault(rule_name(group, rule), []).append(
                        float(rule.get("evaluationTime", 0.0)))
    run.cpu_cores = {prom.name: (prom.cpu_s() - cpu[prom.name]) / (time.time() - began)
                     for prom in proms}
    run.rule_failures = 0
    for prom in proms:
        data, _ = prom.get("/api/v1/rules")
        run.rule_failures += sum(1 for g in data["groups"] for r in g["rules"]
                                 if r.get("health") == "err")


def rule_name(group: dict[str, Any], rule: dict[str, Any]) -> str:
    """``group › record`` or ``group › alert``; a record name several rules share (one per
    SLO) takes its ``slo`` label."""
    label = rule.get("labels", {}).get("slo")
    return f"{group['name']} › {rule['name']}" + (f" {{slo={label}}}" if label else "")


def slowest_rules(run: Run, n: int = 5) -> list[dict[str, Any]]:
    """The ``n`` rules with the largest median evaluation time."""
    medians = {k: percentile(v, 0.5) or 0.0 for k, v in run.rule_costs.items()}
    top = sorted(medians.items(), key=lambda kv: -kv[1])[:n]
    return [{"rule": k, "median_s": round(m, 4), "max_s": round(max(run.rule_costs[k]), 4)}
            for k, m in top]


def time_queries(prom: Prometheus, run: Run, modes: tuple[str, ...]) -> None:
    end = time.time()
    params = {"start": f"{end - RANGE_S:.0f}", "end": f"{end:.0f}", "step": str(STEP_S)}
    for mode in modes:
        timings, failed, empty = {}, [], 0
        for name, expr in mode_queries(mode):
            try:
                data, seconds = prom.get("/api/v1/query_range", query=expr, **params)
            except OSError as exc:
                failed.append(f"{name}: {exc}")
                continue
            timings[name] = seconds
            empty += not data["result"]
        run.load.append(os.getloadavg()[0])
        run.queries[mode], run.failed_queries[mode] = timings, failed
        run.empty_queries[mode] = empty


@dataclass
class Fleet:
    """The Prometheus servers of a run: those that scrape (one, or every shard) and the one
    the dashboards read (the same one, or the global tier)."""

    scraping: list[Prometheus]
    queried: Prometheus

    @property
    def servers(self) -> list[Prometheus]:
        return [*self.scraping] + ([] if self.queried in self.scraping else [self.queried])

    def stop(self) -> None:
        for prom in self.servers:
            prom.stop()


def start_fleet(root: Path, addresses: list[str], shards: int) -> Fleet:
    """One Prometheus (``shards`` 0) or the shipped sharded shape: ``shards`` hashmod shards
    (replica rules, remote_write with the keep-list) and a global Prometheus (remote-write
    receiver, fleet rules) that the dashboards read."""
    if not shards:
        prom = start_prometheus(root, fleet_config(root, addresses))
        return Fleet([prom], prom)
    glob = start_prometheus(root / "global", global_config(write_rules(root, "fleet")),
                            ("--web.enable-remote-write-receiver",), name="global")
    fleet = Fleet([], glob)
    try:
        rules = write_rules(root, "replica")
        for k in range(shards):
            fleet.scraping.append(start_prometheus(
                root / f"shard-{k}", shard_config(k, shards, addresses, rules, glob.url),
                name=f"shard-{k}"))
    except BaseException:
        fleet.stop()
        raise
    return fleet


def measure(replicas: int, duration: float, text: str, history_h: float, step_s: int,
            shards: int = 0, modes: tuple[str, ...] = MODES) -> Run:
    run = Run(replicas, shards)
    with tempfile.TemporaryDirectory(prefix="fleet-") as tmp:
        root = Path(tmp)
        start = int(time.time())
        origin = start - int(history_h * 3600)
        server, addresses = start_replicas(text, replicas, origin)
        try:
            if history_h > 0:
                share = ({i: hashmod(a, shards) for i, a in enumerate(addresses)}
                         if shards else None)
                run.backfill = backfill(text, replicas, root, origin, start, step_s, share)
                print(f"fleet: {replicas} replicas, {run.backfill.hours:.0f} h backfilled "
                      f"({run.backfill.samples:,} samples) in {run.backfill.seconds:.0f} s",
                      flush=True)
            fleet = start_fleet(root, addresses, shards)
            try:
                observe(fleet, run, duration, modes)
            finally:
                fleet.stop()
        finally:
            server.terminate()
    return run


def observe(fleet: Fleet, run: Run, duration: float, modes: tuple[str, ...]) -> None:
    """Rule evaluations for ``duration``, then sizes, then the panel queries."""
    watch_rules(fleet.servers, run, duration)
    if run.backfill is not None:
        run.backfill.checks.update(check_backfill(fleet.queried))
    resident = {}
    for prom in fleet.servers:
        data, _ = prom.get("/api/v1/query", query='count(ALERTS{alertstate="firing"})')
        run.firing_alerts += int(float(data["result"][0]["value"][1])) if data["result"] else 0
        status, _ = prom.get("/api/v1/status/tsdb")
        run.head_series[prom.name] = int(status["headStats"]["numSeries"])
        resident[prom.name] = prom.rss()[0]
    time_queries(fleet.queried, run, modes)
    for prom in fleet.servers:
        run.rss_mb[prom.name] = (resident[prom.name], prom.rss()[1])


# --- report --------------------------------------------------------------------------------

def summary(timings: dict[str, float]) -> dict[str, Any]:
    values = sorted(timings.values())
    slowest = sorted(timings.items(), key=lambda kv: -kv[1])[:5]
    return {"queries": len(values), "p50_s": round(percentile(values, 0.5) or 0.0, 4),
            "p99_s": round(percentile(values, 0.99) or 0.0, 4), "max_s": round(values[-1], 4),
            "total_s": round(sum(values), 2),
            "slowest": [{"panel": k, "s": round(v, 4)} for k, v in slowest]}


def sizes(run: Run) -> dict[str, Any]:
    """Head series and RSS: of the one Prometheus, or of the global tier and the shards."""
    shards = [k for k in run.head_series if k.startswith("shard")]
    top = "global" if run.shards else "prometheus"
    out: dict[str, Any] = {"head_series": run.head_series[top],
                           "rss_mb": round(run.rss_mb[top][0]),
                           "peak_rss_mb": round(run.rss_mb[top][1]),
                           "cpu_cores": round(run.cpu_cores.get(top, 0.0), 3)}
    if shards:
        out["shards"] = {"head_series": [run.head_series[k] for k in shards],
                         "rss_mb": [round(run.rss_mb[k][0]) for k in shards],
                         "peak_rss_mb": [round(run.rss_mb[k][1]) for k in shards],
                         "cpu_cores": [round(run.cpu_cores.get(k, 0.0), 3) for k in shards]}
    return out


def describe(run: Run) -> str:
    where = f"{run.shards} shards + global" if run.shards else "one Prometheus"
    size = sizes(run)
    line = (f"{run.replicas} replicas, {where}: head series {size['head_series']:,}, RSS "
            f"{size['rss_mb']} MB (peak {size['peak_rss_mb']} MB), {size['cpu_cores']:.2f} "
            "cores busy while scraping and evaluating")
    if "shards" in size:
        sh = size["shards"]
        line += (f"; shards {min(sh['head_series']):,}-{max(sh['head_series']):,} series, "
                 f"{sum(sh['rss_mb'])} MB together (largest {max(sh['rss_mb'])} MB, peak "
                 f"{max(sh['peak_rss_mb'])} MB), {sum(sh['cpu_cores']):.2f} cores together "
                 f"(largest {max(sh['cpu_cores']):.2f})")
    return line


def report(runs: list[Run], duration: float, exposition: str) -> None:
    print(f"\nfleet: {duration:.0f} s of scrapes every {INTERVAL_S} s, queries over "
          f"{RANGE_S // 60} min at a {STEP_S} s step ({exposition}); drill-downs on "
          f"{DRILL_DOWN} unless said")
    out = []
    for run in runs:
        print(describe(run))
        summaries = {mode: summary(t) for mode, t in run.queries.items() if t}
        for mode, s in summaries.items():
            print(f"  {mode:>18}: {s['queries']} queries, p50 / p99 / max {s['p50_s']:.3f} / "
                  f"{s['p99_s']:.3f} / {s['max_s']:.3f} s, total {s['total_s']} s; slowest:")
            for item in s["slowest"]:
                print(f"    {item['s']:8.3f} s  {item['panel']}")
        if run.backfill is not None:
            b = run.backfill
            print(f"  {b.hours:.0f} h backfilled (raw every {b.step_s} s, {b.samples:,} samples, "
                  f"{b.seconds:.0f} s to write and load), reads back as: {b.checks}")
        print("  rule groups (where), evaluation time median / largest: " + ", ".join(
            f"{k} ({run.rule_tier.get(k, '?')}) {med * 1000:.0f} / {top * 1000:.0f} ms"
            for k, (med, top) in sorted(run.rule_groups.items(), key=lambda kv: -kv[1][0])))
        print("  slowest rules, median / largest: " + ", ".join(
            f"{r['rule']} {r['median_s'] * 1000:.0f} / {r['max_s'] * 1000:.0f} ms"
            for r in slowest_rules(run)))
        load = sorted(run.load)
        print(f"  rule failures {run.rule_failures}, alerts firing {run.firing_alerts}; load "
              f"average (1 min) median "
              f"{percentile(load, 0.5) or 0.0:.1f}, max {max(load, default=0.0):.1f} on "
              f"{os.cpu_count()} cores; queries with no data: {run.empty_queries}; failed: "
              f"{ {m: len(f) for m, f in run.failed_queries.items()} }")
        out.append({"replicas": run.replicas, "shards": run.shards, **sizes(run),
                    "rule_groups_s": {k: {"median": round(m, 4), "max": round(t, 4),
                                          "tier": run.rule_tier.get(k)}
                                      for k, (m, t) in run.rule_groups.items()},
                    "slowest_rules": slowest_rules(run),
                    "rule_failures": run.rule_failures, "firing_alerts": run.firing_alerts,
                    "load_avg_1m": {"median": round(percentile(load, 0.5) or 0.0, 2),
                                    "max": round(max(load, default=0.0), 2),
                                    "cores": os.cpu_count()},
                    "queries": summaries, "empty_queries": run.empty_queries,
                    "backfill": None if run.backfill is None else {
                        "hours": run.backfill.hours, "raw_step_s": run.backfill.step_s,
                        "samples": run.backfill.samples,
                        "seconds": round(run.backfill.seconds, 1),
                        "checks": run.backfill.checks},
                    "failed_queries": run.failed_queries})
    print(json.dumps({"benchmark": "fleet", "duration_s": duration, "interval_s": INTERVAL_S,
                      "range_s": RANGE_S, "step_s": STEP_S, "exposition": exposition,
                      "drill_down": DRILL_DOWN, "runs": out}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--replicas", default="10,100", help="comma-separated fleet sizes")
    parser.add_argument("--duration", type=float, default=240.0,
                        help="seconds of scraping before the queries run")
    parser.add_argument("--backfill", type=float, default=0.0, metavar="HOURS",
                        help="hours of history loaded with promtool before Prometheus starts "
                        "(72 fills the 1 d and 3 d SLO windows; default none)")
    parser.add_argument("--backfill-step", type=int, default=900, metavar="SECONDS",
                        help="step of the replicas' raw history (the SLO first stage is "
                        f"written every {INTERVAL_S} s)")
    parser.add_argument("--shards", type=int, default=0, metavar="K",
                        help="K hashmod shards (replica rules) remote-writing to a global "
                        "Prometheus (fleet rules, the dashboards' queries), as the shipped "
                        "deploy/prometheus/sharded/ configs; default one Prometheus")
    parser.add_argument("--modes", default=",".join(MODES),
                        help=f"query modes to time, of {', '.join(MODES)}")
    parser.add_argument("--exposition", type=Path, default=None,
                        help="a captured /metrics text to replay (default: the production mix)")
    args = parser.parse_args()
    text = args.exposition.read_text() if args.exposition else production_mix()
    where = str(args.exposition.name) if args.exposition else "production mix"
    series = len(parse(text)[1])
    print(f"fleet: one replica exports {series} series ({where})")
    modes = tuple(m for m in args.modes.split(",") if m)
    if set(modes) - set(MODES):
        parser.error(f"--modes: unknown {sorted(set(modes) - set(MODES))}; known: {MODES}")
    runs = [measure(int(n), args.duration, text, args.backfill, args.backfill_step,
                    args.shards, modes) for n in args.replicas.split(",")]
    report(runs, args.duration, f"{where}, {series} series per replica")


if __name__ == "__main__":
    main()
