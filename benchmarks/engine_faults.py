"""The engine core in its own process: recovery from kill -9, and what the boundary costs.

Figures, all measured in this run:
  kill -9 recovery   ``--streams`` requests in flight, then SIGKILL of the engine process:
                     time to every in-flight request finalized (its recorder finished with
                     error) and to the replacement engine ready; median and max over
                     ``--kills`` kills
  throughput, TPOT   the same reference server with the engine in its own process vs in
                     process: committed tokens/s (server side) and client TPOT p50/p99 of
                     ``--clients`` fast streaming clients, interleaved over ``--rounds``
  slow beside fast   fast clients' TPOT p99 with 8 slow clients beside 8 fast ones / without
                     them, in both modes (the goal: <= 1.05 once slow sockets no longer share
                     the engine's interpreter): one ratio per round from a paired pair of
                     servers (without, then with), the median over ``--rounds``; the slow
                     clients are disconnected when the fast ones' window ends. Beside it, what
                     explains it: backpressure pauses of the fast clients (the no-slow run) and
                     of everyone (the slow run), and for the engine in its own process the
                     messages per engine step each way and the link thread's work per step
  hook time          per engine step with a batch of 32, the telemetry work the engine does
                     on its critical path: in process, the step report handed to the
                     replayer (``Telemetry.step`` included; alone beside it); in its
                     own process, the event appends plus encoding the step's message; beside
                     it, the API process's typed decoding of that message (off the engine's
                     critical path: the link thread does it); and per request, its own
                     hooks in process as events through the replayer, beside the same hooks
                     called on the recorder directly

The clients run in their own processes (one per kind, started together, by
``servescope.harness.load_process``), never in the server's: a load generator in the server's
interpreter would take its GIL from the transport and the engine link, and the slow readers'
client-side work would be counted as the server's.

Run: python benchmarks/engine_faults.py [--kills 20] [--duration 5] [--rounds 5]
Prints a table and one JSON line.
"""

from __future__ import annotations

import argparse
import json
import signal
import statistics
import threading
import time
from typing import Any

from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from servescope.harness.load_process import run_apart
from servescope.harness.load_summary import percentile, scrape
from servescope.harness.loadgen import LoadConfig, Mix
from servescope.instrumentation import FinishReason, RequestRecorder, StepReport, Telemetry
from servescope.reference.client.engine_client import EngineClient
from servescope.reference.client.engine_wire import (
    Decided,
    FromEngine,
    LeftWaiting,
    Push,
    decoder_from_engine,
    encoder,
)
from servescope.reference.client.replayer import RemoteLifecycle, Replayer
from servescope.reference.client.wire_events import RequestEncoder, StepEncoder
from servescope.reference.config import EngineConfig
from servescope.reference.core.request import GenerationRequest
from servescope.reference.core.stats import EngineStats
from servescope.reference.core.stream import StreamBuffer
from servescope.reference.transport.server import LocalServer

#: A snapshot as the engine sends one with every message.
STATS = EngineStats(100, 90, 32, 32, 32, 0, 32, 0, steps=1000, forward_seconds=1.0)


def _config() -> EngineConfig:
    return EngineConfig(stream_capacity=16, stream_low_watermark=4, max_batch=32,
                        slow_consumer_timeout_s=30.0)


def _ms(x: float | None) -> float | None:
    return None if x is None else round(x * 1000, 2)


# --- kill -9 ------------------------------------------------------------------------------
def kill_recovery(kills: int, streams: int) -> list[tuple[float, float]]:
    """(seconds to every in-flight request finalized, seconds to ready) per kill."""
    out = []
    telemetry = Telemetry()
    with EngineClient(_config(), telemetry, restart_backoff_s=0.0) as client:
        for k in range(kills):
            assert client.wait_ready(120), "the engine did not come back"
            handles = [client.submit(GenerationRequest(f"k{k}-{i}", [1, 2, 3, 4], 400,
                                                       ignore_eos=True))
                       for i in range(streams)]
            _wait(lambda: client.stats().running == streams, 60)
            t0 = time.perf_counter()
            client.signal_engine(signal.SIGKILL)
            _wait(lambda hs=handles: all(h.recorder.finished for h in hs), 30)
            finalized = time.perf_counter() - t0
            _wait(client.ready, 120)
            out.append((finalized, time.perf_counter() - t0))
            assert all(h.finish_reason is not None for h in handles)
    return out


def _wait(cond: Any, timeout_s: float) -> None:
    end = time.monotonic() + timeout_s
    while not cond():
        if time.monotonic() > end:
            raise TimeoutError("condition not reached")
        time.sleep(0.001)


# --- throughput, TPOT, slow beside fast ---------------------------------------------------
def _load(url: str, kind: str, clients: int, args: argparse.Namespace) -> LoadConfig:
    if kind == "fast":
        return LoadConfig(url, duration_s=args.duration, concurrency=clients,
                          mix=Mix.parse("fast=1"), max_tokens=args.max_tokens, grace_s=30)
    return LoadConfig(url, duration_s=args.duration + 30, concurrency=clients,
                      mix=Mix.parse("slow=1"), slow_max_tokens=256, slow_read_bytes=64,
                      slow_interval_s=0.05, slow_deadline_s=20.0, grace_s=30, seed=1)


def _drive(url: str, args: argparse.Namespace, fast_clients: int, slow_clients: int
           ) -> list[float]:
    """The fast clients' TPOTs, with ``slow_clients`` slow readers beside them for their
    whole window (killed when it ends: only the fast clients' figures are taken)."""
    configs = {"fast": _load(url, "fast", fast_clients, args)}
    if slow_clients:
        configs["slow"] = _load(url, "slow", slow_clients, args)
    fast = run_apart(configs, wait_for="fast", timeout_s=args.duration + 120)["fast"]
    assert fast is not None, "the fast clients did not finish"
    return fast.values("tpot", "fast")


def serve_round(process: bool, args: argparse.Namespace, fast_clients: int,
                slow_clients: int) -> dict[str, Any]:
    options: dict[str, Any] | bool = process
    with LocalServer(_config(), span_exporter=InMemorySpanExporter(),
                     engine_process=options) as server:
        engine = server.engine
        before = scrape(server.url)
        link_before = _link_counters(engine)
        t0 = time.perf_counter()
        tpot = _drive(server.url, args, fast_clients, slow_clients)
        elapsed = time.perf_counter() - t0
        link = [b - a for a, b in zip(link_before, _link_counters(engine), strict=True)]
        engine.wait_idle(30.0)
        delta = scrape(server.url).minus(before)
    return {"tpot": tpot,
            "committed": delta.total("servescope_tokens_total", stage="committed"),
            "pauses": delta.total("servescope_backpressure_pauses_total"),
            "elapsed": elapsed, "link": link}


def _link_counters(engine: Any) -> list[float]:
    """(engine steps, messages to the engine, from it, link busy seconds); zeros in process."""
    if not isinstance(engine, EngineClient):
        return [0.0, 0.0, 0.0, 0.0]
    return [float(engine.stats().steps), float(engine.messages_sent),
            float(engine.messages_received), engine.link_busy_s]


# --- hook time on the critical path -------------------------------------------------------
def hook_time(batch: int = 32, steps: int = 3000) -> dict[str, float]:
    """Seconds per step of the telemetry work on the engine's critical path. In process: the
    step report handed to the replayer, its step sink (``Telemetry.step`` included; the
    scheduler thread does both); ``Telemetry.step`` alone beside it (what the in-process
    engine called before the replayer was its sink). In its own process: events + encoding;
    beside it, the API process's typed decoding of that message (the link thread's, off that
    path)."""
    telemetry = Telemetry()
    recorders = [telemetry.request(f"h{i}", prompt_tokens=8) for i in range(batch)]

    def report(items: list[Any], k: int) -> StepReport:
        return StepReport(advanced=[(r, 1, 0) for r in items], now=float(k),
                          kv_blocks_used=10, kv_blocks_total=100, running=batch, waiting=0,
                          paused=0, buffered_tokens=batch)

    t0 = time.perf_counter()
    for k in range(steps):
        telemetry.step(report(recorders, k))
    alone = (time.perf_counter() - t0) / steps
    handles = {f"h{i}": _Replayed(f"h{i}", r) for i, r in enumerate(recorders)}
    replayer = Replayer(telemetry, handles, threading.Lock(), lambda: None, lambda: None)
    t0 = time.perf_counter()
    for k in range(steps):  # in process the step names the recorders (SeqRecord.report_as)
        replayer.step(report(recorders, k))
    in_process = (time.perf_counter() - t0) / steps
    events: list[Any] = []
    child = StepEncoder(events)
    child_recorders = [RequestEncoder(f"h{i}", events) for i in range(batch)]
    t0 = time.perf_counter()
    for k in range(steps):
        for rec in child_recorders:  # the push the commit makes, as the mirror stream does
            events.append(Push(rec.request_id, [k]))
        child.step(report(child_recorders, k))
        frame = encoder.encode(FromEngine("step", list(events), STATS))
        events.clear()
    own_process = (time.perf_counter() - t0) / steps
    t0 = time.perf_counter()
    for _ in range(steps):
        decoder_from_engine.decode(frame)
    decode = (time.perf_counter() - t0) / steps
    return {"in_process": in_process, "telemetry_step": alone, "own_process": own_process,
            "decode": decode}


def request_events_time(n: int = 3000, repeat: int = 5) -> dict[str, float]:
    """Thread CPU seconds per request of its own hooks (admitted, scheduled, prefill done,
    finish): called on the recorder directly (what the in-process engine did before it
    reported through events), and as the in-process engine makes them now (each through a
    RequestEncoder into the replayer, with the LeftWaiting and Decided events beside them;
    the stream already closed by the engine core). Medians of ``repeat`` alternate runs."""
    def direct() -> float:
        telemetry, spent = Telemetry(), 0.0
        for i in range(n):
            rec = telemetry.request(f"d{i}", prompt_tokens=4)
            t0 = time.thread_time()
            rec.admitted()
            rec.scheduled(now=1.0)
            rec.prefill_done(now=2.0)
            rec.finish(FinishReason.LENGTH, now=3.0)
            spent += time.thread_time() - t0
        return spent / n

    def replayed() -> float:
        telemetry, spent = Telemetry(), 0.0
        live: dict[str, _Replayed] = {}
        replayer = Replayer(telemetry, live, threading.Lock(), lambda: None, lambda: None)
        for i in range(n):
            rid = f"r{i}"
            live[rid] = handle = _Replayed(rid, telemetry.request(rid, prompt_tokens=4))
            handle.stream.close(drop=False)
            events = RequestEncoder(rid, replayer)
            t0 = time.thread_time()
            replayer.append(LeftWaiting())
            events.admitted()
            events.scheduled(now=1.0)
            events.prefill_done(now=2.0)
            replayer.append(Decided(rid, FinishReason.LENGTH))
            events.finish(FinishReason.LENGTH, now=3.0)
            spent += time.thread_time() - t0
        return spent / n

    pairs = [(direct(), replayed()) for _ in range(repeat)]
    return {"direct": statistics.median(p[0] for p in pairs),
            "in_process_events": statistics.median(p[1] for p in pairs)}


class _Replayed:
    """An API-side request as the replayer sees it (recorder, stream, terminal state)."""

    def __init__(self, request_id: str, recorder: RequestRecorder) -> None:
        self.request_id = request_id
        self.recorder = recorder
        self.stream = StreamBuffer(None, 0)
        self.life = RemoteLifecycle()


def _p(values: list[float], q: float) -> float | None:
    return percentile(values, q) if values else None


def _slow_beside_fast(pairs: list[tuple[dict[str, Any], dict[str, Any]]]) -> dict[str, Any]:
    """The per-round ratios and their median, the pooled figures, and what explains them."""
    ratios = []
    for without, with_slow in pairs:
        a, b = _p(without["tpot"], 0.99), _p(with_slow["tpot"], 0.99)
        if a and b:
            ratios.append(b / a)
    pooled_without = _p([x for w, _ in pairs for x in w["tpot"]], 0.99)
    pooled_with = _p([x for _, w in pairs for x in w["tpot"]], 0.99)
    out: dict[str, Any] = {
        "slow_ratio": round(statistics.median(ratios), 3) if ratios else None,
        "slow_ratios": [round(r, 3) for r in ratios],
        "fast_tpot_p99_with_slow_ms": _ms(pooled_with),
        "fast_tpot_p99_without_slow_ms": _ms(pooled_without),
        "pauses_without_slow": sum(w["pauses"] for w, _ in pairs),
        "pauses_with_slow": sum(w["pauses"] for _, w in pairs)}
    for name, runs in (("without_slow", [w for w, _ in pairs]),
                       ("with_slow", [w for _, w in pairs])):
        steps, sent, received, busy = (sum(r["link"][i] for r in runs) for i in range(4))
        if steps:
            out[f"link_{name}"] = {"to_engine_per_step": round(sent / steps, 3),
                                   "from_engine_per_step": round(received / steps, 3),
                                   "busy_us_per_step": round(busy / steps * 1e6, 1)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--streams", type=int, default=32)
    parser.add_argument("--duration", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--max-tokens", type=int, default=128)
    args = parser.parse_args()

    hooks = hook_time()
    per_request = request_events_time()
    samples = kill_recovery(args.kills, args.streams)
    finalized = [s[0] for s in samples]
    ready = [s[1] for s in samples]

    modes = {"in process": False, "own process": True}
    thr: dict[str, dict[str, Any]] = {m: {"tpot": [], "committed": 0.0, "elapsed": 0.0}
                                      for m in modes}
    pairs: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = {m: [] for m in modes}
    for _ in range(args.rounds):
        for mode, process in modes.items():
            r = serve_round(process, args, args.clients, 0)
            thr[mode]["tpot"] += r["tpot"]
            thr[mode]["committed"] += r["committed"]
            thr[mode]["elapsed"] += r["elapsed"]
            pairs[mode].append((serve_round(process, args, 8, 0),
                                serve_round(process, args, 8, 8)))

    rows = {}
    for mode in modes:
        t = thr[mode]
        rows[mode] = {
            "tokens_per_s": round(t["committed"] / t["elapsed"], 1) if t["elapsed"] else None,
            "tpot_p50_ms": _ms(_p(t["tpot"], 0.5)), "tpot_p99_ms": _ms(_p(t["tpot"], 0.99)),
            **_slow_beside_fast(pairs[mode])}

    print(f"engine faults: {args.kills} kills x {args.streams} streams; "
          f"{args.rounds} round(s) x {args.duration:g} s per configuration")
    print(f"kill -9 -> every in-flight request finalized: median "
          f"{statistics.median(finalized) * 1000:.1f} ms, max {max(finalized) * 1000:.1f} ms")
    print(f"kill -9 -> ready again:                      median "
          f"{statistics.median(ready):.2f} s, max {max(ready):.2f} s")
    print(f"{'engine':<12}{'tokens/s':>10}{'TPOT p50':>10}{'TPOT p99':>10}"
          f"{'slow/fast p99 ratio (median; per round)':>44}")
    for mode, r in rows.items():
        print(f"{mode:<12}{r['tokens_per_s']!s:>10}{r['tpot_p50_ms']!s:>10}"
              f"{r['tpot_p99_ms']!s:>10}{r['slow_ratio']!s:>10}  {r['slow_ratios']}")
    for mode, r in rows.items():
        print(f"{mode}: backpressure pauses without slow clients {r['pauses_without_slow']:g}, "
              f"with them {r['pauses_with_slow']:g}")
        for name in ("without_slow", "with_slow"):
            if f"link_{name}" in r:
                print(f"{mode}: link {name.replace('_', ' ')}: {r[f'link_{name}']}")
    print(f"hook time on the engine's critical path per step (batch 32): in process "
          f"{hooks['in_process'] * 1e6:.1f} us (the replayer's step; Telemetry.step alone "
          f"{hooks['telemetry_step'] * 1e6:.1f} us), own process "
          f"{hooks['own_process'] * 1e6:.1f} us (events + encoding), ratio "
          f"{hooks['own_process'] / hooks['in_process']:.2f}; the API process decodes that "
          f"message in {hooks['decode'] * 1e6:.1f} us")
    print(f"a request's own hooks in process (thread CPU): "
          f"{per_request['in_process_events'] * 1e6:.1f} us as events through the replayer, "
          f"{per_request['direct'] * 1e6:.1f} us called on the recorder directly")
    print(json.dumps({
        "benchmark": "engine_faults", "kills": args.kills, "streams": args.streams,
        "finalized_ms": {"median": _ms(statistics.median(finalized)), "max": _ms(max(finalized))},
        "ready_s": {"median": round(statistics.median(ready), 3), "max": round(max(ready), 3)},
        "modes": rows,
        "hook_us_per_step": {k: round(v * 1e6, 2) for k, v in hooks.items()},
        "request_hooks_us": {k: round(v * 1e6, 2) for k, v in per_request.items()}}))


if __name__ == "__main__":
    main()
