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

Only ``--duration`` of history exists, so a 1 h query reads that much data; the 1 d and 3 d SLO
windows are not backfilled.

Run: python benchmarks/fleet.py [--replicas 10,100] [--duration 240]
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
from servescope.instrumentation.budget import REFERENCE_MIX, REJECTION_REASONS
from servescope.instrumentation.metrics import MetricSet, render
from servescope.instrumentation.slo import SLOSpec
from servescope.instrumentation.status import FinishReason, TokenStage
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

def _domains(spec: cat.MetricSpec) -> list[dict[str, str]]:
    mix = REFERENCE_MIX
    values = {
        cat.MODEL: [f"m{i}" for i in range(mix.models)],
        cat.PRIORITY: [f"p{i}" for i in range(mix.priorities)],
        cat.FINISH_REASON: [r.value for r in FinishReason],
        cat.STAGE: [s.value for s in TokenStage], cat.POOL: ["default"],
        cat.PHASE: ["prefill", "decode"], cat.SIGNAL: [r.value for r in FinishReason],
    }
    reasons = {cat.REJECTED.name: list(REJECTION_REASONS),
               cat.ENGINE_RESTARTS.name: ["exited", "lease_expired", "fatal", "startup_timeout"],
               cat.SPANS_DROPPED.name: ["queue_full", "export_failed", "shutdown"]}
    combos: list[dict[str, str]] = [{}]
    for key in spec.labels:
        if key == cat.REASON:
            domain = reasons[spec.name]
        elif key == cat.KIND:
            domain = ["spans", "logs"] if spec is cat.REDACTION_ENABLED else \
                [f"k{i}" for i in range(mix.redaction_kinds)]
        else:
            domain = values[key]
        combos = [{**c, key: v} for c in combos for v in domain]
    return combos


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
        for labels in _domains(spec):
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


def serve(text: str, replicas: int, port: int, started: float) -> None:
    """One process serving every replica's exposition, advanced to the time of the scrape."""
    comments, samples = parse(text)
    header = "\n".join(comments) + "\n"
    pace = [random.Random(i).uniform(0.5, 1.5) for i in range(replicas)]

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            match = re.fullmatch(r"/replica/(\d+)/metrics", self.path)
            if match is None or int(match.group(1)) >= replicas:
                self.send_error(404)
                return
            grow = 1.0 + pace[int(match.group(1))] * (time.time() - started) / 60.0
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


def start_prometheus(root: Path, replicas: int, port: int) -> Prometheus:
    binary = shutil.which("prometheus")
    if binary is None:
        raise SystemExit("fleet: needs the prometheus binary (Debian package 'prometheus')")
    rules = root / "rules.yaml"
    rules.write_text(dump(rules_document(SLOSpec.default(), Options())))
    targets = [{"targets": [f"127.0.0.1:{port}"],
                "labels": {"instance": f"replica-{i:04d}",
                           "__metrics_path__": f"/replica/{i}/metrics"}}
               for i in range(replicas)]
    config = {"global": {"scrape_interval": f"{INTERVAL_S}s", "scrape_timeout": "10s",
                         "evaluation_interval": f"{INTERVAL_S}s"},
              "rule_files": [str(rules)],
              "scrape_configs": [{"job_name": JOB, "static_configs": targets}]}
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


# --- measuring -----------------------------------------------------------------------------

@dataclass
class Run:
    replicas: int
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


def measure(replicas: int, duration: float, text: str) -> Run:
    run = Run(replicas)
    port = free_port()
    server = multiprocessing.Process(target=serve, args=(text, replicas, port, time.time()),
                                     daemon=True)
    server.start()
    with tempfile.TemporaryDirectory(prefix="fleet-") as tmp:
        prom = start_prometheus(Path(tmp), replicas, port)
        try:
            watch_rules(prom, run, duration)
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
                    "failed_queries": run.failed_queries})
    print(json.dumps({"benchmark": "fleet", "duration_s": duration, "interval_s": INTERVAL_S,
                      "range_s": RANGE_S, "step_s": STEP_S, "exposition": exposition,
                      "runs": out}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--replicas", default="10,100", help="comma-separated fleet sizes")
    parser.add_argument("--duration", type=float, default=240.0,
                        help="seconds of scraping before the queries run")
    parser.add_argument("--exposition", type=Path, default=None,
                        help="a captured /metrics text to replay (default: the production mix)")
    args = parser.parse_args()
    text = args.exposition.read_text() if args.exposition else production_mix()
    where = str(args.exposition.name) if args.exposition else "production mix"
    series = len(parse(text)[1])
    print(f"fleet: one replica exports {series} series ({where})")
    runs = [measure(int(n), args.duration, text) for n in args.replicas.split(",")]
    report(runs, args.duration, f"{where}, {series} series per replica")


if __name__ == "__main__":
    main()
