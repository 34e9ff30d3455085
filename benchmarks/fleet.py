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
import json
import multiprocessing
import random
import re
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
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

INTERVAL_S = 15
RANGE_S = 3600
STEP_S = 15
JOB = "servescope"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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


def serve(text: str, replicas: int, port: int, origin: float) -> None:
    """One process serving every replica's exposition, advanced to the time of the scrape
    (counted from ``origin``, the start of the backfilled history if there is one)."""
    comments, samples = parse(text)
    header = "\n".join(comments) + "\n"
    pace = paces(replicas)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            match = re.fullmatch(r"/replica/(\d+)/metrics", self.path)
            if match is None or int(match.group(1)) >= replicas:
                self.send_error(404)
                return
            grow = growth(pace[int(match.group(1))], time.time() - origin)
            body = (header + "".join(
                f"{s.prefix}{s.value * grow if s.grows else s.value!r}\n" for s in samples)
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


# --- Prometheus ----------------------------------------------------------------------------

@dataclass
class Prometheus:
    url: str
    process: subprocess.Popen[bytes]
    root: Path

    def get(self, path: str, **params: str) -> tuple[Any, float]:
        query = urllib.parse.urlencode(params)
        t0 = time.perf_counter()
        with urllib.request.urlopen(f"{self.url}{path}?{query}", timeout=300) as response:
            data = json.loads(response.read())
        return data["data"], time.perf_counter() - t0

    def rss(self) -> tuple[float, float]:
        """(resident, peak resident) MB of the process."""
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        kb = {k: float(v.split()[0]) for k, v in
              (line.split(":", 1) for line in status.splitlines() if ":" in line)
              if k in ("VmRSS", "VmHWM")}
        return kb["VmRSS"] / 1024, kb["VmHWM"] / 1024

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()


def fleet_config(root: Path, replicas: int, port: int) -> dict[str, Any]:
    """Scrape every replica, evaluate the generated rules, both every interval."""
    rules = root / "rules.yaml"
    rules.write_text(dump(rules_document(SLOSpec.default(), Options())))
    targets = [{"targets": [f"127.0.0.1:{port}"],
                "labels": {"instance": instance(i),
                           "__metrics_path__": f"/replica/{i}/metrics"}}
               for i in range(replicas)]
    return {"global": {"scrape_interval": f"{INTERVAL_S}s", "scrape_timeout": "10s",
                       "evaluation_interval": f"{INTERVAL_S}s"},
            "rule_files": [str(rules)],
            "scrape_configs": [{"job_name": JOB, "static_configs": targets}]}


def start_prometheus(root: Path, config: dict[str, Any]) -> Prometheus:
    """Prometheus on ``root/data`` (which may hold backfilled blocks already)."""
    binary = shutil.which("prometheus")
    if binary is None:
        raise SystemExit("fleet: needs the prometheus binary (Debian package 'prometheus')")
    (root / "prometheus.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    web = free_port()
    process = subprocess.Popen(
        [binary, f"--config.file={root / 'prometheus.yml'}", f"--storage.tsdb.path={root}/data",
         f"--web.listen-address=127.0.0.1:{web}", "--log.level=warn"],
        stdout=subprocess.DEVNULL, stderr=(root / "prometheus.log").open("wb"))
    prom = Prometheus(f"http://127.0.0.1:{web}", process, root)
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            urllib.request.urlopen(f"{prom.url}/-/ready", timeout=2)
            return prom
        except OSError:
            time.sleep(0.5)
    prom.stop()
    raise SystemExit(f"fleet: prometheus did not start: {(root / 'prometheus.log').read_text()}")


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


def replica_history(samples: list[Sample], pace: list[float], origin: float,
                    times: range) -> Iterator[str]:
    """OpenMetrics lines of every replica's samples at ``times`` (Unix seconds), counters and
    histograms advanced as the live replay advances them, gauges at their level."""
    prefixes = [[labelled(s.prefix, f'job="{JOB}",instance="{instance(i)}"') for s in samples]
                for i in range(len(pace))]
    for t in times:
        for named, p in zip(prefixes, pace, strict=True):
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
        out.writelines(replica_history(samples, [1.0], times.start, times))
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
                   times: range) -> Iterator[str]:
    """OpenMetrics lines of recorded series, each at its value times ``scale``."""
    for labels, value in series:
        name = labels["__name__"]
        pairs = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()) if k != "__name__")
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
        data, _ = prom.get("/api/v1/query", query=query)
        found[name] = round(float(data["result"][0]["value"][1]), 4) if data["result"] else -1.0
    return found


def backfill(text: str, replicas: int, root: Path, origin: int, start: int,
             step_s: int) -> Backfill:
    """Write [origin, start) of history into ``root/data``: the replicas' raw series every
    ``step_s`` and the SLO first stage every evaluation interval. The fleet's first-stage
    values are one replica's at pace 1 times the summed paces: every replica replays the same
    exposition at its own pace, and those rules add and subtract rates, which scale with it."""
    t0 = time.perf_counter()
    _, samples = parse(text)
    pace = paces(replicas)
    unit = root / "unit"
    unit.mkdir()
    series = unit_rates(samples, windowed_records(
        rules_document(SLOSpec.default(), Options())), unit)
    shutil.rmtree(unit)
    raw = range(origin, start - step_s // 2, step_s)
    # the first stage exists once its 5 m window holds two scrapes
    recorded = range(origin + 300, start - INTERVAL_S // 2, INTERVAL_S)
    history = root / "history.om"
    with history.open("w") as out:
        out.writelines(replica_history(samples, pace, origin, raw))
        out.writelines(record_history(series, sum(pace), recorded))
        out.write("# EOF\n")
    promtool_blocks(history, root / "data")
    history.unlink()
    return Backfill((start - origin) / 3600, step_s,
                    len(raw) * replicas * len(samples) + len(recorded) * len(series),
                    time.perf_counter() - t0)


# --- measuring -----------------------------------------------------------------------------

@dataclass
class Run:
    replicas: int
    backfill: Backfill | None = None
    head_series: int = 0
    rss_mb: float = 0.0
    peak_rss_mb: float = 0.0
    rule_evals: dict[str, list[float]] = field(default_factory=dict)  # name -> evaluation s
    rule_failures: int = 0
    queries: dict[str, dict[str, float]] = field(default_factory=dict)  # mode -> panel -> s
    failed_queries: dict[str, list[str]] = field(default_factory=dict)
    empty_queries: dict[str, int] = field(default_factory=dict)  # mode -> queries with no data

    @property
    def rule_groups(self) -> dict[str, tuple[float, float]]:
        """name -> (median, largest) evaluation seconds over the run."""
        return {k: (percentile(v, 0.5) or 0.0, max(v)) for k, v in self.rule_evals.items()}


def substitute(expr: str) -> str:
    return (expr.replace("$__rate_interval", "1m").replace("$__range", "1h")
            .replace("$job", JOB).replace("$instance", ".*").replace("$model", ".*")
            .replace("$gateway", "servescope-gateway.*"))


def panel_queries(recorded: bool) -> Iterator[tuple[str, str]]:
    """(dashboard › panel [ref], expr) of every query of the servescope dashboards."""
    for key, board in dashboards(SLOSpec.default(), SERVESCOPE, recorded=recorded).items():
        for panel in lint.panels(board):
            for target in panel.get("targets", []):
                yield f"{key} › {panel['title']} [{target['refId']}]", target["expr"]


def watch_rules(prom: Prometheus, run: Run, seconds: float) -> None:
    """Sample /api/v1/rules every interval: each group's last evaluation time."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        time.sleep(min(INTERVAL_S, max(0.0, deadline - time.time())))
        data, _ = prom.get("/api/v1/rules")
        for group in data["groups"]:
            if group.get("lastEvaluation", "").startswith("0001"):
                continue  # not evaluated yet
            run.rule_evals.setdefault(group["name"], []).append(float(group["evaluationTime"]))
    data, _ = prom.get("/api/v1/rules")
    run.rule_failures = sum(1 for g in data["groups"] for r in g["rules"]
                            if r.get("health") == "err")


def time_queries(prom: Prometheus, run: Run) -> None:
    end = time.time()
    params = {"start": f"{end - RANGE_S:.0f}", "end": f"{end:.0f}", "step": str(STEP_S)}
    for mode, recorded in (("recorded", True), ("raw", False)):
        timings, failed, empty = {}, [], 0
        for name, expr in panel_queries(recorded):
            try:
                data, seconds = prom.get("/api/v1/query_range", query=substitute(expr),
                                         **params)
            except OSError as exc:
                failed.append(f"{name}: {exc}")
                continue
            timings[name] = seconds
            empty += not data["result"]
        run.queries[mode], run.failed_queries[mode] = timings, failed
        run.empty_queries[mode] = empty


def measure(replicas: int, duration: float, text: str, history_h: float,
            step_s: int) -> Run:
    run = Run(replicas)
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="fleet-") as tmp:
        root = Path(tmp)
        start = int(time.time())
        origin = start - int(history_h * 3600)
        if history_h > 0:
            run.backfill = backfill(text, replicas, root, origin, start, step_s)
            print(f"fleet: {replicas} replicas, {run.backfill.hours:.0f} h backfilled "
                  f"({run.backfill.samples:,} samples) in {run.backfill.seconds:.0f} s",
                  flush=True)
        server = multiprocessing.Process(target=serve, args=(text, replicas, port, origin),
                                         daemon=True)
        server.start()
        prom = start_prometheus(root, fleet_config(root, replicas, port))
        try:
            watch_rules(prom, run, duration)
            if run.backfill is not None:
                run.backfill.checks.update(check_backfill(prom))
            status, _ = prom.get("/api/v1/status/tsdb")
            run.head_series = int(status["headStats"]["numSeries"])
            run.rss_mb, _ = prom.rss()
            time_queries(prom, run)
            _, run.peak_rss_mb = prom.rss()
        finally:
            prom.stop()
            server.terminate()
    return run


# --- report --------------------------------------------------------------------------------

def summary(timings: dict[str, float]) -> dict[str, Any]:
    values = sorted(timings.values())
    slowest = sorted(timings.items(), key=lambda kv: -kv[1])[:5]
    return {"queries": len(values), "p50_s": round(percentile(values, 0.5) or 0.0, 4),
            "p99_s": round(percentile(values, 0.99) or 0.0, 4), "max_s": round(values[-1], 4),
            "total_s": round(sum(values), 2),
            "slowest": [{"panel": k, "s": round(v, 4)} for k, v in slowest]}


def report(runs: list[Run], duration: float, exposition: str) -> None:
    print(f"\nfleet: {duration:.0f} s of scrapes every {INTERVAL_S} s, queries over "
          f"{RANGE_S // 60} min at a {STEP_S} s step ({exposition})")
    print(f"{'replicas':>8} {'head series':>11} {'RSS MB':>7} {'peak MB':>8} "
          f"{'slowest group':>28} {'rule fails':>10}  {'recorded p50/p99/max s':>24}  "
          f"{'raw p50/p99/max s':>22}")
    out = []
    for run in runs:
        rec, raw = summary(run.queries["recorded"]), summary(run.queries["raw"])
        group, (_, worst) = max(run.rule_groups.items(), key=lambda kv: kv[1][1],
                                default=("-", (0.0, 0.0)))
        print(f"{run.replicas:>8} {run.head_series:>11} {run.rss_mb:>7.0f} "
              f"{run.peak_rss_mb:>8.0f} {f'{group} {worst:.3f}s':>28} {run.rule_failures:>10}  "
              f"{rec['p50_s']:.3f} / {rec['p99_s']:.3f} / {rec['max_s']:.3f}".ljust(0)
              + f"{'':>4}{raw['p50_s']:.3f} / {raw['p99_s']:.3f} / {raw['max_s']:.3f}")
        for mode, s in (("recorded", rec), ("raw", raw)):
            print(f"  slowest five, {mode} (total {s['total_s']} s):")
            for item in s["slowest"]:
                print(f"    {item['s']:8.3f} s  {item['panel']}")
        if run.backfill is not None:
            b = run.backfill
            slo = ", ".join(f"{k} {med * 1000:.1f} / {top * 1000:.1f} ms"
                            for k, (med, top) in sorted(run.rule_groups.items())
                            if "slo" in k)
            print(f"  SLO groups with {b.hours:.0f} h backfilled (raw every {b.step_s} s, "
                  f"{b.samples:,} samples, {b.seconds:.0f} s to write and load), median / "
                  f"largest: {slo}")
            print(f"  backfill reads back as: {b.checks}")
        print("  rule groups, evaluation time median / largest: " + ", ".join(
            f"{k} {med * 1000:.1f} / {top * 1000:.1f} ms" for k, (med, top) in
            sorted(run.rule_groups.items(), key=lambda kv: -kv[1][1])))
        print(f"  queries with no data: recorded {run.empty_queries['recorded']}, raw "
              f"{run.empty_queries['raw']}; failed: recorded "
              f"{len(run.failed_queries['recorded'])}, raw {len(run.failed_queries['raw'])}")
        out.append({"replicas": run.replicas, "head_series": run.head_series,
                    "rss_mb": round(run.rss_mb), "peak_rss_mb": round(run.peak_rss_mb),
                    "rule_groups_s": {k: {"median": round(m, 4), "max": round(t, 4)}
                                      for k, (m, t) in run.rule_groups.items()},
                    "empty_queries": run.empty_queries,
                    "rule_failures": run.rule_failures, "recorded": rec, "raw": raw,
                    "backfill": None if run.backfill is None else {
                        "hours": run.backfill.hours, "raw_step_s": run.backfill.step_s,
                        "samples": run.backfill.samples,
                        "seconds": round(run.backfill.seconds, 1),
                        "checks": run.backfill.checks},
                    "failed_queries": run.failed_queries})
    print(json.dumps({"benchmark": "fleet", "duration_s": duration, "interval_s": INTERVAL_S,
                      "range_s": RANGE_S, "step_s": STEP_S, "exposition": exposition,
                      "runs": out}))


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
    parser.add_argument("--exposition", type=Path, default=None,
                        help="a captured /metrics text to replay (default: the production mix)")
    args = parser.parse_args()
    text = args.exposition.read_text() if args.exposition else production_mix()
    where = str(args.exposition.name) if args.exposition else "production mix"
    series = len(parse(text)[1])
    print(f"fleet: one replica exports {series} series ({where})")
    runs = [measure(int(n), args.duration, text, args.backfill, args.backfill_step)
            for n in args.replicas.split(",")]
    report(runs, args.duration, f"{where}, {series} series per replica")


if __name__ == "__main__":
    main()
