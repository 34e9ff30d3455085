"""A hostile-client soak: what attacks cost the reference server and its normal clients.

The server runs as ``servescope serve`` in its own process (default limits except the
connection cap, ``--cap``), so its RSS, file descriptors and log output are its own. Two
phases of ``--duration`` seconds each, same fast streaming clients in both:

  baseline  fast streaming clients only
  attack    the same clients, plus at once:
            slowloris      connections that send one header byte per second, forever
            half-open      ``--cap`` + 200 connections holding a partial request head
            chunked        chunked bodies that send a few bytes per second and never end
            40 MB bodies   declared (Content-Length) and undeclared (chunked) 40 MB uploads
            label bomb     small valid requests, each with a new ``x-servescope-priority``
                           (random class names, card and phone numbers)

The attackers run in a process of their own; so does a prober, which opens a fresh connection for
``GET /healthz`` every 50 ms (a timeout counts as 5 s).

Figures: /healthz p50/p99 latency and failures per phase; fast clients' TPOT p99 and its ratio
attack/baseline; the server's peak RSS and open fds per phase; bytes it logged per phase; the
rejections by reason and the distinct priority label values at the end.

Run: python benchmarks/hostile.py [--duration 15] [--cap 256]
Prints a table and one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from servescope.harness.load_summary import percentile
from servescope.harness.loadgen import LoadConfig, Mix, run_load

BODY_40MB = 40 << 20


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Phase:
    name: str
    healthz: list[float] = field(default_factory=list)
    healthz_failures: int = 0
    healthz_failed_as: dict[str, int] = field(default_factory=dict)
    tpot: list[float] = field(default_factory=list)
    fast_requests: int = 0
    fast_errors: int = 0
    peak_rss_mb: float = 0.0
    peak_fds: int = 0
    log_bytes: int = 0
    attack_connections: int = 0


# --- the server -------------------------------------------------------------------------------
class Server:
    def __init__(self, cap: int, workdir: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = workdir / "engine.json"
        config.write_text(json.dumps({"max_batch": 32, "http": {"max_connections": cap}}))
        self.log_path = workdir / "server.log"
        self._log = self.log_path.open("wb")
        env = {**os.environ, "OTEL_TRACES_EXPORTER": "none", "PYTHONSAFEPATH": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-P", "-m", "servescope", "serve", "--port", str(self.port),
             "--config", str(config)], stdout=self._log, stderr=subprocess.STDOUT, env=env,
            cwd=workdir)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                httpx.get(f"{self.url}/healthz", timeout=1)
                return
            except httpx.HTTPError:
                time.sleep(0.2)
        raise RuntimeError("the server did not start")

    def rss_mb(self) -> float:
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        found = re.search(r"VmRSS:\s+(\d+) kB", status)
        return int(found.group(1)) / 1024 if found else 0.0

    def fds(self) -> int:
        return len(os.listdir(f"/proc/{self.proc.pid}/fd"))

    def log_size(self) -> int:
        self._log.flush()
        return self.log_path.stat().st_size

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)
        self._log.close()


class Sampler:
    """Peak RSS and fds of the server, sampled from a thread every 100 ms."""

    def __init__(self, server: Server, phase: Phase) -> None:
        self.server, self.phase = server, phase
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._resources, daemon=True)
        self._thread.start()

    def _resources(self) -> None:
        while not self._stop.wait(0.1):
            self.phase.peak_rss_mb = max(self.phase.peak_rss_mb, self.server.rss_mb())
            self.phase.peak_fds = max(self.phase.peak_fds, self.server.fds())

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def probe(url: str, duration_s: float) -> list[tuple[str, float]]:
    """``GET /healthz`` on a fresh connection every 50 ms: (outcome, seconds) per probe."""
    out: list[tuple[str, float]] = []
    until = time.monotonic() + duration_s
    while time.monotonic() < until:
        start = time.monotonic()
        try:
            with httpx.Client(timeout=5.0) as client:
                status = client.get(f"{url}/healthz").status_code
            outcome = "ok" if status == 200 else str(status)
        except httpx.HTTPError as exc:
            outcome = type(exc).__name__
        out.append((outcome, time.monotonic() - start))
        time.sleep(0.05)
    return out


def _record_probes(phase: Phase, raw: bytes) -> None:
    for outcome, seconds in json.loads(raw.decode().strip().splitlines()[-1]):
        ok = outcome == "ok"
        phase.healthz.append(seconds if ok else 5.0)
        if not ok:
            phase.healthz_failures += 1
            phase.healthz_failed_as[outcome] = phase.healthz_failed_as.get(outcome, 0) + 1


# --- the attackers ----------------------------------------------------------------------------
class Attack:
    def __init__(self, port: int, cap: int, until: float) -> None:
        self.port, self.cap, self.until = port, cap, until
        self.opened = 0

    async def _open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        try:
            pair = await asyncio.open_connection("127.0.0.1", self.port)
        except OSError:
            return None
        self.opened += 1
        return pair

    async def _drip(self, head: bytes, drip: bytes, every_s: float) -> None:
        """Send ``head``, then ``drip`` every ``every_s`` until the server closes (then
        reconnect) or the phase ends."""
        while time.monotonic() < self.until:
            pair = await self._open()
            if pair is None:
                await asyncio.sleep(0.2)
                continue
            _, writer = pair
            try:
                writer.write(head)
                while time.monotonic() < self.until:
                    await asyncio.sleep(every_s)
                    writer.write(drip)
                    await writer.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                writer.close()

    async def slowloris(self, n: int) -> None:
        head = b"POST /v1/completions HTTP/1.1\r\nHost: t\r\n"
        await asyncio.gather(*(self._drip(head, b"X", 1.0) for _ in range(n)))

    async def half_open(self) -> None:
        head = b"GET /healthz HTTP/1.1\r\nHost: t\r\nX-Half: "
        await asyncio.gather(*(self._drip(head, b"", 5.0) for _ in range(self.cap + 200)))

    async def chunked(self, n: int) -> None:
        head = (b"POST /v1/completions HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked"
                b"\r\n\r\n")
        await asyncio.gather(*(self._drip(head, b"1\r\nx\r\n", 0.5) for _ in range(n)))

    async def big_bodies(self, n: int) -> None:
        async def one(declared: bool) -> None:
            block = b"x" * (1 << 20)
            while time.monotonic() < self.until:
                pair = await self._open()
                if pair is None:
                    await asyncio.sleep(0.2)
                    continue
                _reader, writer = pair
                head = (f"POST /v1/completions HTTP/1.1\r\nHost: t\r\nContent-Length: "
                        f"{BODY_40MB}\r\n\r\n" if declared else
                        "POST /v1/completions HTTP/1.1\r\nHost: t\r\n"
                        "Transfer-Encoding: chunked\r\n\r\n").encode()
                try:
                    writer.write(head)
                    for _ in range(BODY_40MB // len(block)):
                        writer.write(block if declared else
                                     b"%x\r\n" % len(block) + block + b"\r\n")
                        await writer.drain()
                except (ConnectionError, OSError):
                    pass
                finally:
                    writer.close()
                await asyncio.sleep(0.05)

        await asyncio.gather(*(one(i % 2 == 0) for i in range(n)))

    async def label_bomb(self, url: str) -> None:
        rng = random.Random(7)
        async with httpx.AsyncClient(timeout=10) as client:
            i = 0
            while time.monotonic() < self.until:
                i += 1
                value = (f"class-{i}" if i % 3 == 0 else
                         f"4{rng.randrange(10**14, 10**15)}" if i % 3 == 1 else
                         f"+1555{rng.randrange(10**6, 10**7)}")
                with contextlib.suppress(httpx.HTTPError):
                    await client.post(f"{url}/v1/completions", headers={
                        "x-servescope-priority": value}, json={
                        "model": "servescope-ref", "prompt": "hi", "max_tokens": 2})


# --- phases ------------------------------------------------------------------------------------
async def _fast(url: str, args: argparse.Namespace, phase: Phase) -> None:
    config = LoadConfig(url, duration_s=args.duration, concurrency=args.fast_clients,
                        mix=Mix.parse("fast=1"), max_tokens=args.max_tokens, grace_s=10.0,
                        model="servescope-ref")
    result = await run_load(config)
    phase.tpot += result.stats.values("tpot", "fast")
    phase.fast_requests = result.stats.by_kind["fast"]
    phase.fast_errors = sum(n for reason, n in result.stats.finish.items()
                            if reason not in ("stop", "length"))


async def attack_only(port: int, args: argparse.Namespace) -> int:
    """Every attack at once against ``port`` for ``--duration`` s; the connections opened."""
    attack = Attack(port, args.cap, time.monotonic() + args.duration)
    await asyncio.gather(
        attack.slowloris(args.slowloris), attack.half_open(), attack.chunked(args.chunked),
        attack.big_bodies(args.big_bodies), attack.label_bomb(f"http://127.0.0.1:{port}"))
    return attack.opened


async def _attack(server: Server, args: argparse.Namespace, phase: Phase) -> None:
    """The attackers run in a process of their own, so the fast clients' event loop (and
    their TPOT) measures the server, not the attackers' coroutines."""
    attackers = await asyncio.create_subprocess_exec(
        sys.executable, "-P", __file__, "--attack-port", str(server.port), "--duration",
        str(args.duration), "--cap", str(args.cap), "--slowloris", str(args.slowloris),
        "--chunked", str(args.chunked), "--big-bodies", str(args.big_bodies),
        stdout=asyncio.subprocess.PIPE)
    await _fast(server.url, args, phase)
    out, _ = await attackers.communicate()
    phase.attack_connections = int(out.decode().strip().splitlines()[-1])


def run_phase(server: Server, args: argparse.Namespace, name: str) -> Phase:
    """One phase; the /healthz prober runs in a process of its own (as a kubelet would)."""
    phase = Phase(name)
    logged = server.log_size()
    sampler = Sampler(server, phase)
    prober = subprocess.Popen([sys.executable, "-P", __file__, "--probe-url", server.url,
                               "--duration", str(args.duration)], stdout=subprocess.PIPE)
    try:
        asyncio.run(_attack(server, args, phase) if name == "attack"
                    else _fast(server.url, args, phase))
    finally:
        sampler.stop()
        out, _ = prober.communicate(timeout=60)
    _record_probes(phase, out)
    time.sleep(1.0)
    phase.log_bytes = server.log_size() - logged
    return phase


def _ms(x: float | None) -> float | None:
    return None if x is None else round(x * 1000, 2)


def scrape_end(server: Server) -> tuple[dict[str, float], int]:
    text = httpx.get(f"{server.url}/metrics", timeout=10).text
    rejected = {m.group(1): float(m.group(2)) for m in re.finditer(
        r'^servescope_requests_rejected_total\{[^}]*reason="([^"]+)"[^}]*\} (\S+)$', text,
        re.M)}
    priorities = set(re.findall(r'^servescope_requests_arrived_total\{[^}]*priority="([^"]+)"',
                                text, re.M))
    return rejected, len(priorities)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duration", type=float, default=15.0)
    parser.add_argument("--cap", type=int, default=256, help="http.max_connections")
    parser.add_argument("--fast-clients", type=int, default=8)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--slowloris", type=int, default=100)
    parser.add_argument("--chunked", type=int, default=100)
    parser.add_argument("--big-bodies", type=int, default=4)
    parser.add_argument("--attack-port", type=int, default=None,
                        help="only attack this port (the attacker process)")
    parser.add_argument("--probe-url", default=None,
                        help="only probe this server's /healthz (the prober process)")
    args = parser.parse_args()
    if args.attack_port is not None:
        print(asyncio.run(attack_only(args.attack_port, args)))
        return
    if args.probe_url is not None:
        print(json.dumps(probe(args.probe_url, args.duration)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(args.cap, Path(tmp))
        try:
            phases = [run_phase(server, args, "baseline"), run_phase(server, args, "attack")]
            rejected, priorities = scrape_end(server)
        finally:
            server.stop()
    base, attack = phases
    rows = [{
        "phase": p.name, "healthz_p50_ms": _ms(percentile(p.healthz, 0.5)),
        "healthz_p99_ms": _ms(percentile(p.healthz, 0.99)), "healthz_probes": len(p.healthz),
        "healthz_failures": p.healthz_failures, "healthz_failed_as": p.healthz_failed_as,
        "fast_requests": p.fast_requests,
        "fast_errors": p.fast_errors, "fast_tpot_p99_ms": _ms(percentile(p.tpot, 0.99)),
        "peak_rss_mb": round(p.peak_rss_mb, 1), "peak_fds": p.peak_fds,
        "log_bytes": p.log_bytes, "attack_connections": p.attack_connections,
    } for p in phases]
    ratio = None
    b99, a99 = percentile(base.tpot, 0.99), percentile(attack.tpot, 0.99)
    if b99 and a99:
        ratio = round(a99 / b99, 2)
    print(f"{'phase':<9} {'healthz p50':>11} {'p99 ms':>8} {'fail':>5} {'fast req':>8} "
          f"{'TPOT p99':>9} {'RSS MB':>7} {'fds':>5} {'log B':>7} {'attack conns':>12}")
    for r in rows:
        print(f"{r['phase']:<9} {r['healthz_p50_ms']!s:>11} {r['healthz_p99_ms']!s:>8} "
              f"{r['healthz_failures']:>5} {r['fast_requests']:>8} "
              f"{r['fast_tpot_p99_ms']!s:>9} {r['peak_rss_mb']:>7} {r['peak_fds']:>5} "
              f"{r['log_bytes']:>7} {r['attack_connections']:>12}")
    print(f"fast clients' TPOT p99 attack/baseline: {ratio}")
    print(f"rejected by reason: {json.dumps(rejected, sort_keys=True)}")
    print(f"distinct priority label values: {priorities}")
    print(json.dumps({"benchmark": "hostile", "duration_s": args.duration, "cap": args.cap,
                      "phases": rows, "tpot_p99_ratio": ratio, "rejected": rejected,
                      "priority_values": priorities}))


if __name__ == "__main__":
    main()
