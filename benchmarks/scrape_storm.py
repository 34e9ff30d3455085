"""A scrape storm beside streaming clients: what /metrics costs the streams, per port.

The server runs as ``servescope serve --metrics-port`` in its own process. Three phases of
``--duration`` seconds each, with the same ``--streams`` streaming clients:

  quiet           streams only
  storm-serving   plus ``--scrapers`` scraper processes looping ``GET /metrics`` on the
                  serving port (rendered in a worker thread, shared by concurrent scrapes)
  storm-metrics   the same scrapers on the metrics port (own threads, a render cached for
                  ``metrics_cache_s``)

Each scraper is a process of its own (as sixteen Prometheus servers would be). On a machine
with few cores the scrapers' own CPU starves every process, so the server's CPU seconds per
phase are reported too: what the storm costs the server itself. Figures: the
streams' inter-token gap p50/p99 (client-side, between SSE events), TTFT p50, completed
streams, scrapes served per phase, and the ratio of each storm's gap p99 to the quiet one's
(goal on the metrics port: <= 1.2). In the same run, in this process: the render cost per
series (µs) of a registry of ``--series`` series, beside the cost of one histogram observe.

Run: python benchmarks/scrape_storm.py [--duration 15] [--streams 8] [--scrapers 16]
Prints a table and one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from servescope.harness.load_summary import percentile
from servescope.report.launcher import free_port

MODEL = "servescope-ref"


@dataclass
class Phase:
    name: str
    gaps: list[float] = field(default_factory=list)
    ttft: list[float] = field(default_factory=list)
    completed: int = 0
    errors: int = 0
    scrapes: int = 0
    scrape_bytes: int = 0
    server_cpu_s: float = 0.0  # the server process's CPU time over the phase


class Server:
    def __init__(self, workdir: Path, cache_s: float) -> None:
        self.port, self.metrics_port = free_port(), free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.metrics_url = f"http://127.0.0.1:{self.metrics_port}"
        config = workdir / "engine.json"
        config.write_text(json.dumps({"max_batch": 32, "metrics_cache_s": cache_s}))
        env = {**os.environ, "OTEL_TRACES_EXPORTER": "none", "PYTHONSAFEPATH": "1"}
        self._log = (workdir / "server.log").open("wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-P", "-m", "servescope", "serve", "--port", str(self.port),
             "--metrics-port", str(self.metrics_port), "--config", str(config)],
            stdout=self._log, stderr=subprocess.STDOUT, env=env, cwd=workdir)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                httpx.get(f"{self.url}/healthz", timeout=1)
                httpx.get(f"{self.metrics_url}/metrics", timeout=1)
                return
            except httpx.HTTPError:
                time.sleep(0.2)
        raise RuntimeError("the server did not start")

    def cpu_s(self) -> float:
        """User + system CPU seconds of the server process so far."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)
        self._log.close()


# --- the streams --------------------------------------------------------------------------------
async def stream_loop(url: str, stop_at: float, max_tokens: int, phase: Phase) -> None:
    body = {"model": MODEL, "prompt": "scrape storm", "max_tokens": max_tokens,
            "stream": True, "ignore_eos": True}
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:
        while time.monotonic() < stop_at:
            started = time.monotonic()
            last: float | None = None
            try:
                async with client.stream("POST", "/v1/completions", json=body) as resp:
                    async for line in resp.aiter_lines():
                        if not line.startswith("data: ") or line == "data: [DONE]":
                            continue
                        now = time.monotonic()
                        if last is None:
                            phase.ttft.append(now - started)
                        else:
                            phase.gaps.append(now - last)
                        last = now
                phase.completed += 1
            except httpx.HTTPError:
                phase.errors += 1


async def streams(url: str, args: argparse.Namespace, phase: Phase) -> None:
    stop_at = time.monotonic() + args.duration
    await asyncio.gather(*(stream_loop(url, stop_at, args.max_tokens, phase)
                           for _ in range(args.streams)))


# --- the scrapers (one process each) -------------------------------------------------------------
def scrape_only(url: str, duration_s: float, interval_s: float = 0.0) -> tuple[int, int]:
    """Loop ``GET /metrics`` (OpenMetrics, as Prometheus asks) on one keep-alive connection,
    ``interval_s`` apart (0: back to back)."""
    count = size = 0
    stop_at = time.monotonic() + duration_s
    headers = {"accept": "application/openmetrics-text; version=1.0.0"}
    with httpx.Client(timeout=10) as client:
        while time.monotonic() < stop_at:
            try:
                size += len(client.get(f"{url}/metrics", headers=headers).content)
                count += 1
            except httpx.HTTPError:
                pass
            if interval_s:
                time.sleep(interval_s)
    return count, size


def run_phase(server: Server, args: argparse.Namespace, name: str,
              scrape_url: str | None) -> Phase:
    phase = Phase(name)
    scrapers = [subprocess.Popen([sys.executable, "-P", __file__, "--scrape-url", scrape_url,
                                  "--duration", str(args.duration),
                                  "--scrape-interval", str(args.scrape_interval)],
                                 stdout=subprocess.PIPE)
                for _ in range(args.scrapers)] if scrape_url else []
    cpu = server.cpu_s()
    asyncio.run(streams(server.url, args, phase))
    phase.server_cpu_s = server.cpu_s() - cpu
    for proc in scrapers:
        out, _ = proc.communicate(timeout=60)
        count, size = json.loads(out)
        phase.scrapes += count
        phase.scrape_bytes += size
    return phase


# --- render cost per series, beside an observe ----------------------------------------------------
def render_cost(series_target: int) -> dict[str, float]:
    from prometheus_client import CollectorRegistry

    from servescope.instrumentation import DeclaredLabels, FinishReason, Telemetry
    from servescope.instrumentation import catalog as cat
    from servescope.instrumentation.metrics import render

    classes = tuple(f"c{i}" for i in range(max(1, series_target // 40)))
    registry = CollectorRegistry()
    tel = Telemetry(registry=registry, model="m",
                    declared_labels=DeclaredLabels(priorities=classes))
    for prio in classes:  # each class: ~40 series across the request families
        rec = tel.request(f"r-{prio}", priority=prio, prompt_tokens=3)
        rec.admitted()
        rec.finish(FinishReason.STOP)
        tel.metrics.child(cat.SERVER_TTFT, model="m", priority=prio).observe(0.05)
    series = sum(len(m.samples) for m in registry.collect())
    n = 20
    started = time.perf_counter()
    for _ in range(n):
        render(registry, "application/openmetrics-text; version=1.0.0")
    render_s = (time.perf_counter() - started) / n
    child = tel.metrics.child(cat.SERVER_TTFT, model="m", priority=classes[0])
    k = 100_000
    started = time.perf_counter()
    for i in range(k):
        child.observe(0.001 * (i % 100))
    observe_s = (time.perf_counter() - started) / k
    return {"series": series, "render_ms": round(render_s * 1e3, 2),
            "render_us_per_series": round(render_s * 1e6 / series, 3),
            "observe_us": round(observe_s * 1e6, 3)}


def _ms(x: float | None) -> float | None:
    return None if x is None else round(x * 1000, 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duration", type=float, default=15.0)
    parser.add_argument("--streams", type=int, default=8)
    parser.add_argument("--scrapers", type=int, default=16)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--cache-s", type=float, default=0.5, help="metrics_cache_s")
    parser.add_argument("--series", type=int, default=1400)
    parser.add_argument("--scrape-interval", type=float, default=0.0,
                        help="seconds each scraper waits between scrapes (0: back to back; "
                             "on a machine with few cores the scrapers' own CPU then starves "
                             "every process)")
    parser.add_argument("--scrape-url", default=None, help="only scrape (a scraper process)")
    args = parser.parse_args()
    if args.scrape_url is not None:
        print(json.dumps(scrape_only(args.scrape_url, args.duration, args.scrape_interval)))
        return
    cost = render_cost(args.series)
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(Path(tmp), args.cache_s)
        try:
            phases = [run_phase(server, args, "quiet", None),
                      run_phase(server, args, "storm-serving", server.url),
                      run_phase(server, args, "storm-metrics", server.metrics_url)]
        finally:
            server.stop()
    quiet99 = percentile(phases[0].gaps, 0.99)
    rows = []
    for p in phases:
        p99 = percentile(p.gaps, 0.99)
        rows.append({"phase": p.name, "gap_p50_ms": _ms(percentile(p.gaps, 0.5)),
                     "gap_p99_ms": _ms(p99), "ttft_p50_ms": _ms(percentile(p.ttft, 0.5)),
                     "completed": p.completed, "errors": p.errors, "scrapes": p.scrapes,
                     "scrape_kb": round(p.scrape_bytes / max(1, p.scrapes) / 1024, 1),
                     "server_cpu_s": round(p.server_cpu_s, 2),
                     "gap_p99_ratio": round(p99 / quiet99, 2) if p99 and quiet99 else None})
    print(f"{'phase':<14} {'gap p50':>8} {'gap p99':>8} {'ratio':>6} {'TTFT p50':>9} "
          f"{'done':>5} {'err':>4} {'scrapes':>8} {'KB/scrape':>9} {'server CPU s':>12}")
    for r in rows:
        print(f"{r['phase']:<14} {r['gap_p50_ms']!s:>8} {r['gap_p99_ms']!s:>8} "
              f"{r['gap_p99_ratio']!s:>6} {r['ttft_p50_ms']!s:>9} {r['completed']:>5} "
              f"{r['errors']:>4} {r['scrapes']:>8} {r['scrape_kb']:>9} "
              f"{r['server_cpu_s']:>12}")
    print(f"render: {cost['series']} series in {cost['render_ms']} ms = "
          f"{cost['render_us_per_series']} µs/series; one observe: {cost['observe_us']} µs")
    print(json.dumps({"benchmark": "scrape_storm", "duration_s": args.duration,
                      "scrape_interval_s": args.scrape_interval,
                      "streams": args.streams, "scrapers": args.scrapers,
                      "cache_s": args.cache_s, "phases": rows, "render": cost}))


if __name__ == "__main__":
    main()
