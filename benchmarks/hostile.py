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

Then one phase per further attack class, each beside the same fast clients:

  upgrades  WebSocket (GET and POST) and h2c upgrade requests, each on its own connection
  framing   Content-Length with Transfer-Encoding, repeated Content-Length, unknown codings,
            each followed by a smuggled request on the same connection
  labels    valid requests, each with a new priority class and a new model/adapter name
            (emails, card numbers, names)
  scrape    16 scraper processes looping ``GET /metrics`` on the serving port
  sigstop   (``--engine-process`` only) the engine SIGSTOPped for 3 s inside its lease

The attackers run in a process of their own; so does a prober, which opens a fresh connection for
``GET /healthz`` and ``GET /readyz`` every 50 ms (a timeout counts as 5 s).

Figures: /healthz and /readyz p50/p99 latency and failures per phase; fast clients' TPOT p99 and
its ratio to the baseline; the server's peak RSS and open fds per phase; bytes it logged per
phase; for the request-level attacks, the attack requests answered with an error and not counted
in ``servescope_requests_rejected_total`` (uncounted; goal 0) and any smuggled request served;
the rejections by reason and the distinct priority and model label values at the end.
``--transport http2`` runs the same against ``serve --http2 --http2-without-guarantees``.

Run: python benchmarks/hostile.py [--duration 15] [--cap 256] [--transport default|http2]
     [--engine-process]
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
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from servescope.harness.load_summary import percentile
from servescope.harness.loadgen import LoadConfig, Mix, run_load
from servescope.report.launcher import free_port

BODY_40MB = 40 << 20


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
    readyz: list[float] = field(default_factory=list)
    readyz_failures: int = 0
    attack_requests: int = 0  # attack requests answered with an error status
    rejected_delta: float = 0.0  # servescope_requests_rejected_total over the phase
    smuggled_served: int = 0
    server_errors: int = 0  # 5xx other than 503 seen by attackers and probes


# --- the server -------------------------------------------------------------------------------
class Server:
    def __init__(self, cap: int, workdir: Path, *, http2: bool = False,
                 engine_process: bool = False) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = workdir / "engine.json"
        config.write_text(json.dumps({"max_batch": 32, "http": {"max_connections": cap}}))
        self.log_path = workdir / "server.log"
        self._log = self.log_path.open("wb")
        env = {**os.environ, "OTEL_TRACES_EXPORTER": "none", "PYTHONSAFEPATH": "1"}
        extra = (["--http2", "--http2-without-guarantees"] if http2 else []) + (
            ["--engine-process"] if engine_process else [])
        self.proc = subprocess.Popen(
            [sys.executable, "-P", "-m", "servescope", "serve", "--port", str(self.port),
             "--config", str(config), *extra], stdout=self._log, stderr=subprocess.STDOUT,
            env=env, cwd=workdir)
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


def probe(url: str, duration_s: float) -> list[tuple[str, str, float]]:
    """``GET /healthz`` and ``GET /readyz``, each on a fresh connection, every 50 ms:
    (path, outcome, seconds) per probe."""
    out: list[tuple[str, str, float]] = []
    until = time.monotonic() + duration_s
    while time.monotonic() < until:
        for path in ("/healthz", "/readyz"):
            start = time.monotonic()
            try:
                with httpx.Client(timeout=5.0) as client:
                    status = client.get(f"{url}{path}").status_code
                outcome = "ok" if status == 200 else str(status)
            except httpx.HTTPError as exc:
                outcome = type(exc).__name__
            out.append((path, outcome, time.monotonic() - start))
        time.sleep(0.05)
    return out


def _record_probes(phase: Phase, raw: bytes) -> None:
    for path, outcome, seconds in json.loads(raw.decode().strip().splitlines()[-1]):
        ok = outcome == "ok"
        if outcome.startswith("5") and outcome != "503":
            phase.server_errors += 1
        if path == "/readyz":
            # an unready engine answers 503 quickly: that is the probe's answer, not a timeout
            phase.readyz.append(seconds if ok or outcome == "503" else 5.0)
            phase.readyz_failures += not ok
            continue
        phase.healthz.append(seconds if ok else 5.0)
        if not ok:
            phase.healthz_failures += 1
            phase.healthz_failed_as[outcome] = phase.healthz_failed_as.get(outcome, 0) + 1


# --- the attackers ----------------------------------------------------------------------------
SMUGGLED = (b"POST /v1/completions HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
            b"Content-Length: 56\r\n\r\n"
            b'{"model":"servescope-ref","prompt":"smuggled","max_tokens":2}'[:56])
UPGRADES = (
    b"GET /v1/models HTTP/1.1\r\nHost: t\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
    b"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
    b"POST /v1/completions HTTP/1.1\r\nHost: t\r\nConnection: Upgrade\r\n"
    b"Upgrade: websocket\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
    b"GET /readyz HTTP/1.1\r\nHost: t\r\nConnection: Upgrade, HTTP2-Settings\r\n"
    b"Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n",
)
_POST = b"POST /v1/completions HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
FRAMING = (
    _POST + b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + SMUGGLED,
    _POST + b"Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}" + SMUGGLED,
    _POST + b"Transfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n" + SMUGGLED,
    _POST + b"Transfer-Encoding: xchunked\r\n\r\n0\r\n\r\n" + SMUGGLED,
    _POST + b"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
    + SMUGGLED,
)
_STATUS = re.compile(rb"HTTP/1\.1 (\d{3}) ")


class Attack:
    def __init__(self, port: int, cap: int, until: float) -> None:
        self.port, self.cap, self.until = port, cap, until
        self.opened = 0
        self.errors = 0  # attack requests answered with an error status
        self.smuggled = 0  # second responses on a framing attack's connection
        self.server_errors = 0  # 5xx other than 503

    async def exchange(self, raw: bytes) -> list[int]:
        """``raw`` on a fresh connection; every status the server sent before closing (or
        within 5 s)."""
        pair = await self._open()
        if pair is None:
            return []
        reader, writer = pair
        data = b""
        try:
            writer.write(raw)
            await writer.drain()
            while chunk := await asyncio.wait_for(reader.read(65536), 5.0):
                data += chunk
        except (ConnectionError, OSError, TimeoutError):
            pass
        finally:
            writer.close()
        return [int(code) for code in _STATUS.findall(data)]

    async def _loop(self, cases: tuple[bytes, ...], workers: int, framing: bool) -> None:
        async def worker(k: int) -> None:
            i = k
            while time.monotonic() < self.until:
                statuses = await self.exchange(cases[i % len(cases)])
                i += workers
                self._tally(statuses[:1])
                if framing and len(statuses) > 1:
                    self.smuggled += len(statuses) - 1

        await asyncio.gather(*(worker(k) for k in range(workers)))

    def _tally(self, statuses: list[int]) -> None:
        for status in statuses:
            self.errors += status >= 400
            self.server_errors += status >= 500 and status != 503

    async def upgrades(self) -> None:
        await self._loop(UPGRADES, 8, framing=False)

    async def framing(self) -> None:
        await self._loop(FRAMING, 8, framing=True)

    async def label_flood(self, url: str) -> None:
        """Valid requests, each with a new priority class; every fourth names a new model or
        adapter (an email, a card number, a person's name), answered 404 and counted."""
        rng = random.Random(11)
        async with httpx.AsyncClient(timeout=10) as client:
            i = 0
            while time.monotonic() < self.until:
                i += 1
                priority = f"p{i}x1" if i % 2 else f"AKIA{rng.randrange(10**15, 10**16)}"
                model = ("servescope-ref" if i % 4 else
                         rng.choice((f"lora-user{i}@example.com",
                                     f"lora-4{rng.randrange(10**14, 10**15)}",
                                     f"lora-alice-smith-{i}")))
                try:
                    resp = await client.post(f"{url}/v1/completions", headers={
                        "x-servescope-priority": priority}, json={
                        "model": model, "prompt": "hi", "max_tokens": 2})
                    self._tally([resp.status_code])
                except httpx.HTTPError:
                    pass

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


async def attack_only(port: int, args: argparse.Namespace) -> dict[str, int]:
    """One attack class against ``port`` for ``--duration`` s (``attack``: every classic
    attack at once); what the attackers opened and saw."""
    attack = Attack(port, args.cap, time.monotonic() + args.duration)
    url = f"http://127.0.0.1:{port}"
    if args.attack == "upgrades":
        await attack.upgrades()
    elif args.attack == "framing":
        await attack.framing()
    elif args.attack == "labels":
        await attack.label_flood(url)
    else:
        await asyncio.gather(
            attack.slowloris(args.slowloris), attack.half_open(), attack.chunked(args.chunked),
            attack.big_bodies(args.big_bodies), attack.label_bomb(url))
    return {"opened": attack.opened, "errors": attack.errors, "smuggled": attack.smuggled,
            "server_errors": attack.server_errors}


def rejected_total(server: Server) -> float:
    text = httpx.get(f"{server.url}/metrics", timeout=10).text
    return sum(float(m.group(1)) for m in re.finditer(
        r"^servescope_requests_rejected_total\{[^}]*\} (\S+)$", text, re.M))


async def _attack(server: Server, args: argparse.Namespace, phase: Phase) -> None:
    """The attackers run in a process of their own, so the fast clients' event loop (and
    their TPOT) measures the server, not the attackers' coroutines."""
    if phase.name == "scrape":
        await _scrape_storm(server, args, phase)
        return
    if phase.name == "sigstop":
        await asyncio.gather(_fast(server.url, args, phase), _stop_engine(server, args))
        return
    attackers = await asyncio.create_subprocess_exec(
        sys.executable, "-P", __file__, "--attack-port", str(server.port), "--duration",
        str(args.duration), "--cap", str(args.cap), "--slowloris", str(args.slowloris),
        "--chunked", str(args.chunked), "--big-bodies", str(args.big_bodies),
        "--attack", phase.name, stdout=asyncio.subprocess.PIPE)
    await _fast(server.url, args, phase)
    out, _ = await attackers.communicate()
    seen = json.loads(out.decode().strip().splitlines()[-1])
    phase.attack_connections = seen["opened"]
    phase.attack_requests = seen["errors"]
    phase.smuggled_served = seen["smuggled"]
    phase.server_errors += seen["server_errors"]


async def _scrape_storm(server: Server, args: argparse.Namespace, phase: Phase) -> None:
    scrapers = [await asyncio.create_subprocess_exec(
        sys.executable, "-P", __file__, "--scrape-url", server.url, "--duration",
        str(args.duration), stdout=asyncio.subprocess.PIPE) for _ in range(args.scrapers)]
    await _fast(server.url, args, phase)
    for proc in scrapers:
        out, _ = await proc.communicate()
        phase.attack_connections += int(out.decode().strip().splitlines()[-1])


def scrape_only(url: str, duration_s: float) -> int:
    """Loop ``GET /metrics`` (OpenMetrics) on one keep-alive connection; scrapes answered."""
    count = 0
    until = time.monotonic() + duration_s
    headers = {"accept": "application/openmetrics-text; version=1.0.0"}
    with httpx.Client(timeout=10) as client:
        while time.monotonic() < until:
            with contextlib.suppress(httpx.HTTPError):
                count += client.get(f"{url}/metrics", headers=headers).status_code == 200
    return count


async def _stop_engine(server: Server, args: argparse.Namespace) -> None:
    """SIGSTOP the engine process a third into the phase, for 3 s (inside its lease)."""
    await asyncio.sleep(args.duration / 3)
    async with httpx.AsyncClient(timeout=10) as client:
        pid = (await client.get(f"{server.url}/readyz")).json().get("pid")
    if pid is None:
        return
    os.kill(pid, signal.SIGSTOP)
    try:
        await asyncio.sleep(3.0)
    finally:
        os.kill(pid, signal.SIGCONT)


def run_phase(server: Server, args: argparse.Namespace, name: str) -> Phase:
    """One phase; the prober runs in a process of their own (as a kubelet would)."""
    phase = Phase(name)
    logged = server.log_size()
    rejected = rejected_total(server)
    sampler = Sampler(server, phase)
    prober = subprocess.Popen([sys.executable, "-P", __file__, "--probe-url", server.url,
                               "--duration", str(args.duration)], stdout=subprocess.PIPE)
    try:
        asyncio.run(_fast(server.url, args, phase) if name == "baseline"
                    else _attack(server, args, phase))
    finally:
        sampler.stop()
        out, _ = prober.communicate(timeout=60)
    _record_probes(phase, out)
    time.sleep(1.0)
    phase.log_bytes = server.log_size() - logged
    phase.rejected_delta = rejected_total(server) - rejected
    return phase


def _ms(x: float | None) -> float | None:
    return None if x is None else round(x * 1000, 2)


def scrape_end(server: Server) -> tuple[dict[str, float], int, int]:
    text = httpx.get(f"{server.url}/metrics", timeout=10).text
    rejected = {m.group(1): float(m.group(2)) for m in re.finditer(
        r'^servescope_requests_rejected_total\{[^}]*reason="([^"]+)"[^}]*\} (\S+)$', text,
        re.M)}
    priorities = set(re.findall(r'^servescope_requests_arrived_total\{[^}]*priority="([^"]+)"',
                                text, re.M))
    models = set(re.findall(r'^servescope_requests_arrived_total\{[^}]*model="([^"]+)"',
                            text, re.M))
    return rejected, len(priorities), len(models)


ATTACKS = ("attack", "upgrades", "framing", "labels", "scrape", "sigstop")
#: Request-level attacks: each error answer must be one counted rejection.
COUNTED = frozenset({"upgrades", "framing", "labels"})


def _row(p: Phase, base_p99: float | None) -> dict[str, Any]:
    p99 = percentile(p.tpot, 0.99)
    uncounted = max(0, round(p.attack_requests - p.rejected_delta)) \
        if p.name in COUNTED else None
    return {
        "phase": p.name, "healthz_p50_ms": _ms(percentile(p.healthz, 0.5)),
        "healthz_p99_ms": _ms(percentile(p.healthz, 0.99)), "healthz_probes": len(p.healthz),
        "healthz_failures": p.healthz_failures, "healthz_failed_as": p.healthz_failed_as,
        "readyz_p99_ms": _ms(percentile(p.readyz, 0.99)),
        "readyz_unready": p.readyz_failures, "fast_requests": p.fast_requests,
        "fast_errors": p.fast_errors, "fast_tpot_p99_ms": _ms(p99),
        "tpot_p99_ratio": round(p99 / base_p99, 2) if p99 and base_p99 else None,
        "peak_rss_mb": round(p.peak_rss_mb, 1), "peak_fds": p.peak_fds,
        "log_bytes": p.log_bytes, "attack_connections": p.attack_connections,
        "attack_errors": p.attack_requests, "rejected": round(p.rejected_delta),
        "uncounted": uncounted, "smuggled_served": p.smuggled_served,
        "server_errors": p.server_errors,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duration", type=float, default=15.0)
    parser.add_argument("--cap", type=int, default=256, help="http.max_connections")
    parser.add_argument("--fast-clients", type=int, default=8)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--slowloris", type=int, default=100)
    parser.add_argument("--chunked", type=int, default=100)
    parser.add_argument("--big-bodies", type=int, default=4)
    parser.add_argument("--scrapers", type=int, default=16)
    parser.add_argument("--transport", choices=("default", "http2"), default="default")
    parser.add_argument("--engine-process", action="store_true",
                        help="serve with --engine-process (adds the sigstop phase)")
    parser.add_argument("--phases", default=",".join(ATTACKS),
                        help="attack phases to run after the baseline")
    parser.add_argument("--attack", default="attack", help=argparse.SUPPRESS)
    parser.add_argument("--attack-port", type=int, default=None,
                        help="only attack this port (the attacker process)")
    parser.add_argument("--probe-url", default=None,
                        help="only probe this server's /healthz (the prober process)")
    parser.add_argument("--scrape-url", default=None, help="only scrape (a scraper process)")
    args = parser.parse_args()
    if args.attack_port is not None:
        print(json.dumps(asyncio.run(attack_only(args.attack_port, args))))
        return
    if args.probe_url is not None:
        print(json.dumps(probe(args.probe_url, args.duration)))
        return
    if args.scrape_url is not None:
        print(scrape_only(args.scrape_url, args.duration))
        return
    names = [n for n in args.phases.split(",")
             if n in ATTACKS and (n != "sigstop" or args.engine_process)]
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(args.cap, Path(tmp), http2=args.transport == "http2",
                        engine_process=args.engine_process)
        try:
            phases = [run_phase(server, args, "baseline")]
            phases += [run_phase(server, args, name) for name in names]
            rejected, priorities, models = scrape_end(server)
        finally:
            server.stop()
    base99 = percentile(phases[0].tpot, 0.99)
    rows = [_row(p, base99) for p in phases]
    print(f"transport {args.transport}{' + engine process' if args.engine_process else ''}")
    print(f"{'phase':<9} {'healthz p99':>11} {'readyz p99':>10} {'unready':>7} "
          f"{'TPOT p99':>9} {'ratio':>5} {'fast req':>8} {'err':>4} {'RSS MB':>7} {'fds':>5} "
          f"{'attack err':>10} {'uncounted':>9} {'smuggled':>8} {'5xx':>4}")
    for r in rows:
        print(f"{r['phase']:<9} {r['healthz_p99_ms']!s:>11} {r['readyz_p99_ms']!s:>10} "
              f"{r['readyz_unready']:>7} {r['fast_tpot_p99_ms']!s:>9} "
              f"{r['tpot_p99_ratio']!s:>5} {r['fast_requests']:>8} {r['fast_errors']:>4} "
              f"{r['peak_rss_mb']:>7} {r['peak_fds']:>5} {r['attack_errors']:>10} "
              f"{r['uncounted']!s:>9} {r['smuggled_served']:>8} {r['server_errors']:>4}")
    print(f"rejected by reason: {json.dumps(rejected, sort_keys=True)}")
    print(f"distinct label values: priority {priorities}, model {models}")
    print(json.dumps({"benchmark": "hostile", "transport": args.transport,
                      "engine_process": args.engine_process, "duration_s": args.duration,
                      "cap": args.cap, "phases": rows, "rejected": rejected,
                      "priority_values": priorities, "model_values": models}))


if __name__ == "__main__":
    main()
