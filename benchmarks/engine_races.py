"""Raced terminations at scale: every way a request can end, racing, through the real engine.

Each request draws up to three terminal signals that race its natural end (``length`` after
1-8 tokens): a cancel posted from the driver's thread after a random number of microseconds,
a client disconnect after reading some tokens, a deadline of a few milliseconds, an injected
worker error; and the KV pool is small enough that admitted requests preempt one another. The
driver keeps ``--concurrency`` requests in flight, reads their tokens and reports deliveries
like a transport does.

Reported, each of which must be 0:
  leaks              after the run: KV blocks, batch slots or streams still held, requests
                     neither finished nor in flight (arrived != finished)
  double frees       a KV block or batch slot released twice (the pools raise; counted)
  violations         per request: no terminal state, the recorder's differing from the
                     handle's, resources released other than exactly once, more tokens
                     delivered than committed or committed than asked for; an engine error
                     logged, or an engine process restarted

In three places: the in-process engine (``--requests``, 100,000 by default), the engine in its
own process (``--process-requests``), and over HTTP against a server whose engine runs in its
own process (``--http-seconds`` of streaming clients that disconnect, set deadlines and read).

Run: python benchmarks/engine_races.py [--requests 100000] [--process-requests 20000]
Prints a table and one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from servescope.harness.loadgen import Reading, stream_once
from servescope.instrumentation import FinishReason, Telemetry
from servescope.reference.client.engine import Engine
from servescope.reference.client.engine_client import EngineClient
from servescope.reference.config import EngineConfig, ModelConfig
from servescope.reference.core import block_pool, lifecycle
from servescope.reference.core.request import GenerationRequest
from servescope.reference.transport.server import LocalServer

TINY = ModelConfig(dim=32, n_layers=1, n_heads=4, n_kv_heads=2, hidden_dim=64, max_context=128)
SIGNALS = ("cancel", "disconnect", "deadline", "error")


def _config() -> EngineConfig:
    # 48 blocks of 4 tokens for up to 32 running requests: growth preempts
    return EngineConfig(model=TINY, block_size=4, num_blocks=48, max_batch=32,
                        max_waiting=4096, stream_capacity=4, stream_low_watermark=1,
                        slow_consumer_timeout_s=5.0, drain_timeout_s=5.0,
                        kv_admission_reserve=0.0)


@dataclass
class Tally:
    requests: int = 0
    violations: list[str] = field(default_factory=list)
    reasons: Counter[str] = field(default_factory=Counter)
    signals: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    leaks: int = 0
    double_frees: int = 0
    engine_errors: int = 0
    ignored: int = 0
    preemptions: int = 0
    restarts: dict[str, int] = field(default_factory=dict)

    def row(self, name: str) -> dict[str, Any]:
        return {"where": name, "requests": self.requests, "seconds": round(self.seconds, 1),
                "leaks": self.leaks, "double_frees": self.double_frees,
                "violations": len(self.violations) + self.engine_errors,
                "ignored_signals": self.ignored, "preemptions": self.preemptions,
                "engine_restarts": self.restarts,
                "finish_reasons": dict(self.reasons), "signals": dict(self.signals)}


class _DoubleFrees:
    """Count every double release the pools refuse (they raise ValueError)."""

    def __init__(self) -> None:
        self.count = 0
        block_pool.BlockPool.free = self._counting(  # type: ignore[method-assign]
            block_pool.BlockPool.free)
        lifecycle.SlotPool.release = self._counting(  # type: ignore[method-assign]
            lifecycle.SlotPool.release)

    def _counting(self, release: Callable[..., None]) -> Callable[..., None]:
        """``release`` (a pool's free or release), counting each refused double release."""
        def counted(pool: Any, what: Any) -> None:
            try:
                release(pool, what)
            except ValueError:
                self.count += 1
                raise
        return counted


class _ErrorLogs(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


@dataclass
class _Plan:
    handle: Any
    max_tokens: int
    signals: tuple[str, ...]
    cancel_at: float = 0.0
    fault_at: float = 0.0
    disconnect_after: int = 0
    read: int = 0
    done: bool = False


def _plan(rng: random.Random, engine: Any, i: int, now: float) -> _Plan:
    signals = tuple(s for s in SIGNALS if rng.random() < 0.35)
    max_tokens = rng.randint(1, 8)
    deadline = rng.uniform(0.001, 0.02) if "deadline" in signals else None
    prompt = [rng.randrange(256) for _ in range(rng.randint(1, 12))]
    handle = engine.submit(GenerationRequest(f"race-{i}", prompt, max_tokens,
                                             deadline_s=deadline, ignore_eos=True))
    return _Plan(handle, max_tokens, signals, now + rng.uniform(0, 0.004),
                 now + rng.uniform(0, 0.004), rng.randint(0, max_tokens))


def _advance(plan: _Plan, now: float) -> None:
    """One driver pass over a request: signals that are due, then its tokens."""
    h = plan.handle
    if "cancel" in plan.signals and now >= plan.cancel_at:
        plan.signals = tuple(s for s in plan.signals if s != "cancel")
        h.cancel(FinishReason.CLIENT_CANCEL)
    if "error" in plan.signals and now >= plan.fault_at:
        plan.signals = tuple(s for s in plan.signals if s != "error")
        h.inject_fault()
    chunk = h.get_chunk(0.0)
    if chunk is None:
        plan.done = True
        return
    if chunk:
        plan.read += len(chunk)
        h.delivered(len(chunk))
    if "disconnect" in plan.signals and plan.read >= plan.disconnect_after:
        plan.signals = ()
        h.cancel(FinishReason.CLIENT_CANCEL)


def _check(plan: _Plan, tally: Tally) -> None:
    h = plan.handle
    reason, recorder = h.finish_reason, h.recorder
    s = recorder.summary()
    tally.reasons[str(reason)] += 1
    where = h.request_id
    if reason is None or not recorder.finished:
        tally.violations.append(f"{where}: no terminal state")
    elif recorder.finish_reason is not reason:
        tally.violations.append(f"{where}: recorder {recorder.finish_reason} vs {reason}")
    cleanups = h.life.cleanup_count  # a rejection holds nothing to release (either mode)
    expected = 0 if reason is FinishReason.REJECTED else 1
    if cleanups != expected:
        tally.violations.append(f"{where}: released {cleanups} times")
    if s.delivered_tokens > s.committed_tokens or s.committed_tokens > plan.max_tokens:
        tally.violations.append(f"{where}: delivered {s.delivered_tokens}, committed "
                                f"{s.committed_tokens}, asked {plan.max_tokens}")
    tally.ignored += len(s.ignored_signals)


def drive(engine: Any, n: int, concurrency: int, seed: int, tally: Tally) -> None:
    rng = random.Random(seed)
    live: list[_Plan] = []
    submitted = 0
    t0 = time.perf_counter()
    while submitted < n or live:
        now = time.monotonic()
        while submitted < n and len(live) < concurrency:
            plan = _plan(rng, engine, submitted, now)
            tally.signals.update(plan.signals or ("none",))
            live.append(plan)
            submitted += 1
        for plan in live:
            _advance(plan, now)
        finished = [p for p in live if p.done and p.handle.recorder.finished]
        for plan in finished:
            _check(plan, tally)
        if finished:
            live = [p for p in live if not (p.done and p.handle.recorder.finished)]
        else:
            time.sleep(0.0002)
    tally.seconds += time.perf_counter() - t0
    tally.requests += n


def _accounting(telemetry: Telemetry, engine: Any, tally: Tally) -> None:
    def total(name: str) -> float:
        return sum(s.value for m in telemetry.registry.collect() for s in m.samples
                   if s.name == name)

    if not engine.wait_idle(30.0):
        tally.leaks += 1
    stats = engine.stats()
    tally.leaks += (stats.total_blocks - stats.free_blocks) + stats.used_slots \
        + stats.live_streams
    arrived, finished = total("servescope_requests_arrived_total"), \
        total("servescope_requests_finished_total")
    tally.leaks += int(abs(arrived - finished)) + int(total("servescope_requests_in_flight"))
    tally.preemptions = int(total("servescope_preemptions_total"))


def in_process(n: int, concurrency: int, seed: int, errors: _ErrorLogs) -> Tally:
    tally, telemetry = Tally(), Telemetry()
    start = errors.count
    with Engine(_config(), telemetry) as engine:
        drive(engine, n, concurrency, seed, tally)
        _accounting(telemetry, engine, tally)
    tally.engine_errors = errors.count - start
    return tally


def own_process(n: int, concurrency: int, seed: int, errors: _ErrorLogs) -> Tally:
    tally, telemetry = Tally(), Telemetry()
    start = errors.count
    with EngineClient(_config(), telemetry) as engine:
        drive(engine, n, concurrency, seed, tally)
        _accounting(telemetry, engine, tally)
        tally.engine_errors = errors.count - start + engine.restarts
        tally.restarts = _restarts(telemetry)
    return tally


def over_http(seconds: float, concurrency: int, seed: int) -> Tally:
    tally = Tally()
    rng = random.Random(seed)
    with LocalServer(_config().replace(model=TINY), model_name="races",
                     span_exporter=InMemorySpanExporter(), engine_process=True) as server:
        host, port = server.http.host, server.http.port

        async def one() -> str:
            payload: dict[str, Any] = {"model": "races", "prompt": "race", "stream": True,
                                       "max_tokens": rng.randint(1, 8), "ignore_eos": True}
            if rng.random() < 0.35:
                payload["deadline_s"] = rng.uniform(0.001, 0.02)
            reading = Reading(cancel_after_tokens=rng.randint(0, 4)
                              if rng.random() < 0.35 else None)
            result = await stream_once(host, port, payload, reading=reading, timeout_s=30)
            return result.finish

        async def worker(stop_at: float) -> None:
            while time.monotonic() < stop_at:
                tally.reasons[await one()] += 1
                tally.requests += 1

        t0 = time.perf_counter()
        stop_at = time.monotonic() + seconds

        async def run() -> None:
            await asyncio.gather(*(worker(stop_at) for _ in range(concurrency)))

        asyncio.run(run())
        tally.seconds = time.perf_counter() - t0
        engine = server.engine
        assert isinstance(engine, EngineClient)
        _accounting(server.telemetry, engine, tally)
        tally.engine_errors = engine.restarts
        tally.restarts = _restarts(server.telemetry)
    return tally


def _restarts(telemetry: Telemetry) -> dict[str, int]:
    """Engine restarts by reason (a lease expiring on an overloaded machine shows here)."""
    return {s.labels["reason"]: int(s.value) for m in telemetry.registry.collect()
            for s in m.samples if s.name == "servescope_engine_restarts_total" and s.value}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=100_000)
    parser.add_argument("--process-requests", type=int, default=20_000)
    parser.add_argument("--http-seconds", type=float, default=60.0)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    errors = _ErrorLogs()
    logging.getLogger("servescope").addHandler(errors)
    frees = _DoubleFrees()
    rows = []
    for name, run in (
            ("in process", lambda: in_process(args.requests, args.concurrency, args.seed,
                                              errors)),
            ("own process", lambda: own_process(args.process_requests, args.concurrency,
                                                args.seed + 1, errors)),
            ("HTTP, own process", lambda: over_http(args.http_seconds, args.concurrency,
                                                    args.seed + 2))):
        before = frees.count
        tally = run()
        tally.double_frees = frees.count - before
        row = tally.row(name)
        rows.append(row)
        for v in tally.violations[:5]:
            print(f"  violation ({name}): {v}")
    print(f"{'where':<20}{'requests':>10}{'seconds':>9}{'leaks':>7}{'double frees':>14}"
          f"{'violations':>12}{'ignored signals':>17}{'preemptions':>13}")
    for r in rows:
        print(f"{r['where']:<20}{r['requests']:>10}{r['seconds']:>9}{r['leaks']:>7}"
              f"{r['double_frees']:>14}{r['violations']:>12}{r['ignored_signals']:>17}"
              f"{r['preemptions']:>13}")
    for r in rows:
        print(f"  {r['where']}: finish reasons {r['finish_reasons']}")
    print(json.dumps({"benchmark": "engine_races", "rows": rows}))


if __name__ == "__main__":
    main()
