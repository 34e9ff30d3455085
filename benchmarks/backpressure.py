"""Bounded vs unbounded stream buffers, with and without slow clients, in one run.

The same reference server (real engine, real uvicorn, loopback TCP) is started with

  bounded    stream_capacity 16 / low watermark 4: a slow client's request pauses
  unbounded  unbounded_streams: the engine generates at full speed and buffers the rest

each in two transport modes: one SSE event per token (``event tokens 1``, what most servers
send) and the reference server's default, which coalesces up to 64 buffered tokens into one
event when the writer fell behind (``event tokens 64``). Each server is driven with the same
fast clients (read everything at once), alone and beside slow clients (small SO_RCVBUF,
``--slow-read-bytes`` every 50 ms, an overall deadline). The configurations are interleaved
over ``--rounds`` rounds; each configuration without slow clients is run right before the
same one with them (a paired round).

The clients run in their own processes (one per kind, started together, by
``servescope.harness.load_process``), never in the server's: a load generator in the server's
interpreter takes its GIL from the transport and the engine, and the slow readers' client-side
work would be counted as the server's (an earlier version did that, and its ratios measured
the load generator as much as the server).

Figures (server side from the server's registry, client side from the load generator):
  fast TPOT p50/p99   client-perceived mean gap between tokens of the fast clients
  TPOT p99 ratio      fast clients' TPOT p99 with slow clients present / absent, one per
                      paired round; the median over rounds (each round's value shown).
                      The other figures pool the rounds
  discarded           tokens committed (generated) but never delivered: the unsent waste
  peak buffered       the engine's buffered-token gauge (committed, not yet popped), sampled
                      every 5 ms: what the server holds for clients that do not read

Last, the time from a client's disconnect to its request's terminal state (client_cancel
recorded), for clients that read and for clients that never read (the writer is stalled on
flow control), with engine steps paced at 5 ms (the cancel is applied at a step boundary).

Run: python benchmarks/backpressure.py [--duration 5] [--rounds 5]
Prints a table and one JSON line.
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from servescope.harness.load_process import run_apart
from servescope.harness.load_summary import percentile, scrape
from servescope.harness.loadgen import LoadConfig, Mix
from servescope.reference.config import EngineConfig
from servescope.reference.transport.server import LocalServer

CAPACITY = 16


@dataclass
class Outcome:
    name: str
    slow: bool
    chunk_tokens: int
    fast_tpot: list[float] = field(default_factory=list)
    round_tpot_p99: list[float | None] = field(default_factory=list)  # one per round
    fast_ttft: list[float] = field(default_factory=list)
    fast_requests: int = 0
    slow_finish: dict[str, int] = field(default_factory=dict)
    discarded: int = 0
    committed: int = 0
    peak_buffered: float = 0.0
    pauses: int = 0
    timeline: dict[str, list[float]] = field(default_factory=dict)  # of the first round

    def row(self) -> dict[str, Any]:
        return {
            "config": self.name, "event_tokens": self.chunk_tokens, "slow_clients": self.slow,
            "fast_requests": self.fast_requests,
            "fast_tpot_p50_ms": _ms(percentile(self.fast_tpot, 0.5)),
            "fast_tpot_p99_ms": _ms(percentile(self.fast_tpot, 0.99)),
            "fast_ttft_p99_ms": _ms(percentile(self.fast_ttft, 0.99)),
            "committed_tokens": self.committed, "discarded_tokens": self.discarded,
            "peak_buffered_tokens": int(self.peak_buffered), "pauses": self.pauses,
            "slow_finish": self.slow_finish,
            # for benchmarks/report.py: the distribution and the first round over time
            "fast_tpot_ms": [round(x * 1000, 3) for x in self.fast_tpot],
            "timeline": self.timeline,
        }


def _ms(x: float | None) -> float | None:
    return None if x is None else round(x * 1000, 3)


def _engine_config(bounded: bool) -> EngineConfig:
    return EngineConfig(stream_capacity=CAPACITY, stream_low_watermark=4, max_batch=32,
                        unbounded_streams=not bounded, slow_consumer_timeout_s=30.0)


class GaugeSampler:
    """Peak of the engine's buffered-token gauge, sampled from a thread every 5 ms; every
    100 ms it also notes buffered (unsent) and discarded tokens for the timeline."""

    def __init__(self, server: LocalServer) -> None:
        self.registry = server.setup.registry
        self.model = server.telemetry.model
        self.peak = 0.0
        self.timeline: dict[str, list[float]] = {"t_s": [], "unsent": [], "discarded": []}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        started = time.monotonic()
        ticks = 0
        while not self._stop.wait(0.005):
            value = self.registry.get_sample_value("servescope_stream_buffered_tokens",
                                                   {"pool": "default"}) or 0.0
            self.peak = max(self.peak, value)
            ticks += 1
            if ticks % 20 == 0:
                discarded = self.registry.get_sample_value(
                    "servescope_tokens_total", {"model": self.model, "stage": "discarded"})
                self.timeline["t_s"].append(round(time.monotonic() - started, 3))
                self.timeline["unsent"].append(value)
                self.timeline["discarded"].append(discarded or 0.0)

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return self.peak


def _load_configs(url: str, args: argparse.Namespace, slow: bool) -> dict[str, LoadConfig]:
    configs = {"fast": LoadConfig(url, duration_s=args.duration, concurrency=args.fast_clients,
                                  mix=Mix.parse("fast=1"), max_tokens=args.max_tokens,
                                  grace_s=args.grace)}
    if slow:
        configs["slow"] = LoadConfig(
            url, duration_s=args.duration, concurrency=args.slow_clients,
            mix=Mix.parse("slow=1"), slow_max_tokens=args.slow_max_tokens,
            slow_read_bytes=args.slow_read_bytes, slow_interval_s=0.05,
            slow_deadline_s=args.slow_deadline, grace_s=args.grace, seed=1)
    return configs


def run_one(outcome: Outcome, bounded: bool, args: argparse.Namespace) -> None:
    with LocalServer(_engine_config(bounded), span_exporter=InMemorySpanExporter(),
                     chunk_tokens=outcome.chunk_tokens) as server:
        before = scrape(server.url)
        sampler = GaugeSampler(server)
        # The slow clients end by themselves (their deadline, then the load's grace) so
        # that what they saw is counted; the fast ones' window is the same length.
        window = args.duration + args.grace + 60
        reports = run_apart(_load_configs(server.url, args, outcome.slow), wait_for="fast",
                            timeout_s=window, linger_s=window)
        fast, slow = reports["fast"], reports.get("slow")
        assert fast is not None, "the fast clients did not finish"
        server.engine.wait_idle(30.0)
        outcome.peak_buffered = max(outcome.peak_buffered, sampler.stop())
        outcome.timeline = outcome.timeline or sampler.timeline
        delta = scrape(server.url).minus(before)
    tpot = fast.values("tpot", "fast")
    outcome.fast_tpot += tpot
    outcome.round_tpot_p99.append(percentile(tpot, 0.99))
    outcome.fast_ttft += fast.values("ttft", "fast")
    outcome.fast_requests += fast.total
    if slow is not None:
        for reason, n in slow.finish.items():
            outcome.slow_finish[reason] = outcome.slow_finish.get(reason, 0) + n
    outcome.discarded += int(delta.total("servescope_tokens_total", stage="discarded"))
    outcome.committed += int(delta.total("servescope_tokens_total", stage="committed"))
    outcome.pauses += int(delta.total("servescope_backpressure_pauses_total"))


def _cancel_latency_ms(server: LocalServer, read: bool, n: int) -> list[float]:
    """Disconnect ``n`` streams mid-way; ms until each client_cancel was recorded."""
    registry = server.setup.registry
    labels = {"model": server.telemetry.model, "priority": "default",
              "finish_reason": "client_cancel"}
    body = (b'{"model": "%s", "prompt": "x", "max_tokens": 400, "stream": true, '
            b'"ignore_eos": true}' % server.telemetry.model.encode())
    out = []
    for _ in range(n):
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
        sock.connect((server.http.host, server.http.port))
        sock.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: "
                     b"application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
        if read:
            sock.recv(4096)
            time.sleep(0.05)
        else:  # wait until the engine paused it: the writer is stalled on flow control
            while not registry.get_sample_value("servescope_requests_paused",
                                                {"pool": "default"}):
                time.sleep(0.001)
        before = registry.get_sample_value("servescope_requests_finished_total", labels) or 0
        start = time.perf_counter()
        sock.close()
        while (registry.get_sample_value("servescope_requests_finished_total", labels)
               or 0) == before:
            time.sleep(0.0002)
        out.append((time.perf_counter() - start) * 1000)
        server.engine.wait_idle(5.0)
    return out


def cancel_latency(n: int) -> dict[str, dict[str, float]]:
    config = EngineConfig(step_delay_s=0.005, stream_capacity=CAPACITY, stream_low_watermark=4)
    with LocalServer(config, span_exporter=InMemorySpanExporter()) as server:
        result = {}
        for name, read in (("reading", True), ("stalled", False)):
            values = _cancel_latency_ms(server, read, n)
            result[name] = {"median_ms": round(statistics.median(values), 2),
                            "max_ms": round(max(values), 2)}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=5.0, help="seconds per config")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--fast-clients", type=int, default=8)
    parser.add_argument("--slow-clients", type=int, default=8)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--slow-max-tokens", type=int, default=400)
    parser.add_argument("--slow-read-bytes", type=int, default=128)
    parser.add_argument("--slow-deadline", type=float, default=6.0)
    parser.add_argument("--grace", type=float, default=2.0)
    args = parser.parse_args()

    plan = [(chunk, name, bounded, slow) for chunk in (1, 64)
            for name, bounded in (("bounded", True), ("unbounded", False))
            for slow in (False, True)]
    outcomes = {(chunk, name, slow): Outcome(
        name + (f" (cap {CAPACITY})" if bounded else ""), slow, chunk)
        for chunk, name, bounded, slow in plan}
    started = time.monotonic()
    for _ in range(args.rounds):
        for chunk, name, bounded, slow in plan:
            run_one(outcomes[(chunk, name, slow)], bounded, args)
    rows = [o.row() for o in outcomes.values()]

    per_round = {f"{name}_event_tokens_{chunk}": _round_ratios(
        outcomes[(chunk, name, True)], outcomes[(chunk, name, False)])
        for chunk in (1, 64) for name in ("bounded", "unbounded")}
    ratios = {k: round(statistics.median(v), 3) if v else None for k, v in per_round.items()}
    print(f"backpressure: {args.rounds} round(s) x {len(plan)} configs x {args.duration:g} s, "
          f"{args.fast_clients} fast + {args.slow_clients} slow clients "
          f"(slow: {args.slow_read_bytes} B / 50 ms, SO_RCVBUF 2048, "
          f"max_tokens {args.slow_max_tokens}, deadline {args.slow_deadline:g} s)")
    header = (f"{'config':<18}{'event tokens':>13}{'slow':>6}{'fast reqs':>10}{'TPOT p50':>10}"
              f"{'TPOT p99':>10}{'TTFT p99':>10}{'committed':>11}{'discarded':>11}{'peak buf':>10}"
              f"{'pauses':>8}  slow clients' finish (as they saw it)")
    print(header)
    for r in rows:
        print(f"{r['config']:<18}{r['event_tokens']:>13}{'yes' if r['slow_clients'] else 'no':>6}"
              f"{r['fast_requests']:>10}{_fmt(r['fast_tpot_p50_ms']):>10}"
              f"{_fmt(r['fast_tpot_p99_ms']):>10}{_fmt(r['fast_ttft_p99_ms']):>10}"
              f"{r['committed_tokens']:>11}{r['discarded_tokens']:>11}"
              f"{r['peak_buffered_tokens']:>10}{r['pauses']:>8}  "
              + ", ".join(f"{k} {v}" for k, v in sorted(r["slow_finish"].items())))
    print(f"fast clients' TPOT p99, slow clients present / absent, median over paired rounds "
          f"(times in ms; run took {time.monotonic() - started:.0f} s):")
    for key, value in ratios.items():
        print(f"  {key:<28}{value!s:>8}  per round {per_round[key]}")
    latency = cancel_latency(20)
    print("disconnect -> client_cancel recorded (engine steps paced at 5 ms, 20 each): "
          + ", ".join(f"{k} client median {v['median_ms']} ms, max {v['max_ms']} ms"
                      for k, v in latency.items()))
    print(json.dumps({"benchmark": "backpressure", "capacity": CAPACITY,
                      "disconnect_to_cancel": latency,
                      "duration_s": args.duration, "rounds": args.rounds,
                      "tpot_p99_ratio_slow_present_vs_absent": ratios,
                      "tpot_p99_ratio_per_round": per_round,
                      "clients": "own processes, one per kind", "configs": rows}))


def _round_ratios(present: Outcome, absent: Outcome) -> list[float]:
    """Fast clients' TPOT p99 with slow clients / without, per paired round."""
    return [round(p / a, 3) for p, a in zip(present.round_tpot_p99, absent.round_tpot_p99,
                                            strict=True) if p and a]


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


if __name__ == "__main__":
    main()
