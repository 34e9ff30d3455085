"""Decode throughput of the reference engine with the hooks off, metrics only, and all on.

The real engine (default model, CPU or CUDA) decodes the same batch of requests under three
telemetries, interleaved round by round so that drift in the machine hits each alike:

  off       a null telemetry: every hook is a no-op method (the engine still builds its
            per-step report; nothing records it)
  metrics   Telemetry(tracer_provider=None): the Prometheus registry, no spans
  all on    setup_telemetry(): metrics, exemplars, request and phase spans sampled at 100%
            through the batch span processor (into a null exporter: export I/O is not the
            hooks' cost)

Throughput = committed tokens per second, from the first submit to the last request's
terminal state, both per second of wall time and per CPU second of this process (all its
threads: on a shared machine CPU time is the steadier measure of what the hooks cost). The
writer side is an asyncio consumer that pops and reports every chunk delivered, as the HTTP
transport does. Ratios are paired: each round runs the three modes back to back, the ratio
to "off" is taken within the round, and the median over rounds is reported.

Hook share of step time (attributed, not guessed): paired throughput ratios cannot see 0.5%
on a shared machine, so the same run also measures the hooks directly. Every hook call the
engine and the transport make goes through a timing proxy that adds up ``perf_counter_ns``
around the real call; the proxy's own cost (measured on a no-op call in the same run) is
calibrated out. The attribution runs decode with a real model sized so that a step at batch
32 takes 10-30 ms on the CPU, as a GPU decode step does on real hardware (``--model``: the
reference decoder at dim 256, 4 layers, feed-forward 768; torch releases the GIL inside its
kernels as a GPU step does while it waits on the device). ``--step-delay`` adds a sleep to
each step instead (the old stand-in). Share = hook time / decode wall time.

Run: python benchmarks/overhead.py [--rounds 12] [--requests 64] [--max-tokens 128]
                                   [--model 256,4,768] [--step-delay 0]
                                   [--attribution-rounds 3]
Prints tables and one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import statistics
import threading
import time
from collections.abc import Callable
from typing import Any

from servescope.instrumentation import (
    FinishReason,
    NullSpanExporter,
    NullTelemetry,
    StepReport,
    Telemetry,
    setup_telemetry,
)
from servescope.reference.client.engine import Engine
from servescope.reference.config import EngineConfig, ModelConfig
from servescope.reference.core.model import pick_device
from servescope.reference.core.request import GenerationRequest


def _off() -> tuple[Any, Callable[[], None]]:
    return NullTelemetry(), lambda: None


def _metrics() -> tuple[Any, Callable[[], None]]:
    return Telemetry(tracer_provider=None), lambda: None


def _all_on() -> tuple[Any, Callable[[], None]]:
    setup = setup_telemetry(span_exporter=NullSpanExporter(), sample_ratio=1.0,
                            max_queue_size=1 << 16)
    return setup.telemetry, lambda: setup.shutdown(10.0)


def _spans_10() -> tuple[Any, Callable[[], None]]:
    setup = setup_telemetry(span_exporter=NullSpanExporter(), sample_ratio=0.1,
                            max_queue_size=1 << 16)
    return setup.telemetry, lambda: setup.shutdown(10.0)


MODES: dict[str, Callable[[], tuple[Any, Callable[[], None]]]] = {
    "off": _off, "metrics": _metrics, "all on": _all_on}
# The attribution runs also measure the production setting: spans sampled at 10%.
ATTRIBUTED: dict[str, Callable[[], tuple[Any, Callable[[], None]]]] = {
    "metrics": _metrics, "spans 10%": _spans_10, "all on": _all_on}


class HookTimer:
    """Nanoseconds spent inside hooks, per thread (each thread adds to its own total)."""

    def __init__(self) -> None:
        self.by_thread: dict[int, int] = {}
        self.calls: dict[int, int] = {}

    def add(self, ns: int) -> None:
        ident = threading.get_ident()
        self.by_thread[ident] = self.by_thread.get(ident, 0) + ns
        self.calls[ident] = self.calls.get(ident, 0) + 1

    @property
    def total_ns(self) -> int:
        return sum(self.by_thread.values())

    @property
    def total_calls(self) -> int:
        return sum(self.calls.values())


_clock = time.perf_counter_ns


class TimedRecorder:
    """Forwards to a recorder; each hook call is timed (only the call sits between the two
    clock reads; the bookkeeping comes after)."""

    def __init__(self, inner: Any, timer: HookTimer) -> None:
        self.inner = inner
        self._timer = timer

    def __getattr__(self, name: str) -> Any:  # properties and anything else: untimed
        return getattr(self.inner, name)

    def admitted(self) -> None:
        t0 = _clock()
        self.inner.admitted()
        self._timer.add(_clock() - t0)

    def rejected(self, reason: str, *, now: float | None = None) -> bool:
        t0 = _clock()
        won: bool = self.inner.rejected(reason, now=now)
        self._timer.add(_clock() - t0)
        return won

    def scheduled(self, *, now: float | None = None) -> None:
        t0 = _clock()
        self.inner.scheduled(now=now)
        self._timer.add(_clock() - t0)

    def prefill_done(self, *, now: float | None = None) -> None:
        t0 = _clock()
        self.inner.prefill_done(now=now)
        self._timer.add(_clock() - t0)

    def written(self, n: int = 1, *, now: float | None = None) -> None:
        t0 = _clock()
        self.inner.written(n, now=now)
        self._timer.add(_clock() - t0)

    def delivered(self, n: int = 1, *, now: float | None = None) -> None:
        t0 = _clock()
        self.inner.delivered(n, now=now)
        self._timer.add(_clock() - t0)

    def paused(self, *, now: float | None = None) -> None:
        t0 = _clock()
        self.inner.paused(now=now)
        self._timer.add(_clock() - t0)

    def resumed(self, *, now: float | None = None) -> None:
        t0 = _clock()
        self.inner.resumed(now=now)
        self._timer.add(_clock() - t0)

    def stream_closed(self, peak_buffered: int, capacity: int) -> None:
        t0 = _clock()
        self.inner.stream_closed(peak_buffered, capacity)
        self._timer.add(_clock() - t0)

    def finish(self, reason: FinishReason, *, now: float | None = None) -> bool:
        t0 = _clock()
        won: bool = self.inner.finish(reason, now=now)
        self._timer.add(_clock() - t0)
        return won


class TimedTelemetry:
    """Forwards to a Telemetry; ``request`` and ``step`` are timed (the step report's proxies
    are swapped for the real recorders before the clock starts)."""

    def __init__(self, inner: Telemetry, timer: HookTimer) -> None:
        self.inner = inner
        self.timer = timer

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def request(self, request_id: str, **kwargs: Any) -> TimedRecorder:
        t0 = time.perf_counter_ns()
        rec = self.inner.request(request_id, **kwargs)
        self.timer.add(time.perf_counter_ns() - t0)
        return TimedRecorder(rec, self.timer)

    def step(self, report: StepReport) -> None:
        real = dataclasses.replace(report, advanced=[
            (e[0].inner if isinstance(e[0], TimedRecorder) else e[0], *e[1:])
            for e in report.advanced])
        t0 = time.perf_counter_ns()
        self.inner.step(real)
        self.timer.add(time.perf_counter_ns() - t0)


def proxy_cost_ns(samples: int = 20000) -> float:
    """What the timing proxy records for a call that does nothing: subtracted per call."""

    class Noop:
        def delivered(self, n: int = 1, *, now: float | None = None) -> None:
            pass

    timer = HookTimer()
    rec = TimedRecorder(Noop(), timer)
    per_batch = []
    for _ in range(20):  # the median batch: a preempted batch does not skew it
        timer.by_thread.clear()
        for _ in range(samples // 20):
            rec.delivered(1)
        per_batch.append(timer.total_ns / (samples // 20))
    return statistics.median(per_batch)


async def _consume(handle: Any) -> None:
    while (chunk := await handle.next_chunk()) is not None:
        handle.delivered(len(chunk))


async def _decode(engine: Engine, requests: int, max_tokens: int, tag: str) -> int:
    prompt = list(b"Measure the decode loop, not the prompt. " * 2)
    handles = [engine.submit(GenerationRequest(f"{tag}-{i}", prompt, max_tokens,
                                               ignore_eos=True)) for i in range(requests)]
    await asyncio.gather(*(_consume(h) for h in handles))
    reasons = {h.finish_reason for h in handles}
    if reasons != {FinishReason.LENGTH}:
        raise RuntimeError(f"unexpected finish reasons {reasons}")
    return sum(h.completion_tokens for h in handles)


def run_once(mode: str, config: EngineConfig, requests: int, max_tokens: int,
             tag: str) -> tuple[float, float]:
    """(committed tokens per wall second, per CPU second of this process)."""
    telemetry, close = MODES[mode]()
    engine = Engine(config, telemetry)
    engine.start()
    try:
        asyncio.run(_decode(engine, 4, 8, f"{tag}-warm"))  # first-call costs out of the timing
        engine.wait_idle(10.0)
        start, cpu_start = time.perf_counter(), time.process_time()
        tokens = asyncio.run(_decode(engine, requests, max_tokens, tag))
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    finally:
        engine.shutdown()
        close()
    return tokens / elapsed, tokens / cpu


def attribute_once(mode: str, config: EngineConfig, requests: int, max_tokens: int,
                   tag: str, proxy_ns: float) -> dict[str, float]:
    """Hook time (calibrated) over decode wall time, with every hook call timed."""
    telemetry, close = ATTRIBUTED[mode]()
    timer = HookTimer()
    engine = Engine(config, TimedTelemetry(telemetry, timer))  # type: ignore[arg-type]
    engine.start()
    steps_before = 0
    try:
        asyncio.run(_decode(engine, 4, 8, f"{tag}-warm"))
        engine.wait_idle(10.0)
        timer.by_thread.clear()
        timer.calls.clear()
        steps_before = engine.stats().steps
        start = time.perf_counter_ns()
        asyncio.run(_decode(engine, requests, max_tokens, tag))
        elapsed = time.perf_counter_ns() - start
        steps = engine.stats().steps - steps_before
    finally:
        engine.shutdown()
        close()
    proxy_ns = min(proxy_ns, proxy_cost_ns())  # the same moment's machine load
    hook_ns = max(0.0, timer.total_ns - timer.total_calls * proxy_ns)
    return {"share": hook_ns / elapsed, "hook_ms": hook_ns / 1e6, "wall_ms": elapsed / 1e6,
            "calls": timer.total_calls, "steps": steps, "proxy_ns": proxy_ns}


def model_config(spec: str) -> ModelConfig:
    """``dim,layers,hidden`` (heads: dim / 32, half as many KV heads)."""
    try:
        dim, layers, hidden = (int(x) for x in spec.split(","))
    except ValueError:
        raise SystemExit(f"--model: expected dim,layers,hidden, got {spec!r}") from None
    heads = max(1, dim // 32)
    return ModelConfig(dim=dim, n_layers=layers, n_heads=heads,
                       n_kv_heads=max(1, heads // 2), hidden_dim=hidden)


def attribution(args: argparse.Namespace) -> dict[str, Any]:
    model = model_config(args.model)
    config = EngineConfig(max_batch=args.max_batch, step_delay_s=args.step_delay, model=model)
    proxy_ns = proxy_cost_ns()
    out: dict[str, Any] = {"step_delay_s": args.step_delay, "proxy_ns_per_call": proxy_ns,
                           "model": {"dim": model.dim, "n_layers": model.n_layers,
                                     "hidden_dim": model.hidden_dim}}
    modes = list(ATTRIBUTED)
    by_mode: dict[str, list[dict[str, float]]] = {mode: [] for mode in modes}
    for r in range(args.attribution_rounds):  # interleaved, order rotated: drift hits each
        for mode in modes[r % len(modes):] + modes[:r % len(modes)]:
            by_mode[mode].append(attribute_once(mode, config, args.requests, args.max_tokens,
                                                f"a{r}-{mode}", proxy_ns))
    for mode in modes:
        runs = by_mode[mode]
        share = statistics.median(r["share"] for r in runs)
        steps = statistics.median(r["steps"] for r in runs)
        wall = statistics.median(r["wall_ms"] for r in runs)
        out[mode] = {"hook_share": share, "hook_ms": statistics.median(r["hook_ms"] for r in runs),
                     "wall_ms": wall, "steps": steps,
                     "step_ms": wall / steps if steps else float("nan"),
                     "hook_calls": statistics.median(r["calls"] for r in runs),
                     "share_min": min(r["share"] for r in runs),
                     "share_max": max(r["share"] for r in runs)}
    print(f"hook share of decode time, attributed ({args.attribution_rounds} runs each, "
          f"batch {args.max_batch}, model dim {model.dim} x {model.n_layers} layers, "
          f"step delay {args.step_delay * 1000:.0f} ms; timing proxy {proxy_ns:.0f} ns/call "
          "calibrated out)")
    print(f"{'hooks':<10}{'step ms':>9}{'hook calls':>12}{'hook ms':>10}{'wall ms':>10}"
          f"{'share':>9}{'runs':>18}")
    for mode in ATTRIBUTED:
        r = out[mode]
        spread = "-".join(f"{x:.3%}" for x in (r["share_min"], r["share_max"]))
        print(f"{mode:<10}{r['step_ms']:>9.1f}{r['hook_calls']:>12.0f}{r['hook_ms']:>10.1f}"
              f"{r['wall_ms']:>10.0f}{r['hook_share']:>8.3%}{spread:>18}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--requests", type=int, default=64)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--max-batch", type=int, default=32)
    parser.add_argument("--model", default="256,4,768",
                        help="dim,layers,hidden of the attribution runs' model (a step at "
                             "batch 32 of 10-30 ms on the CPU)")
    parser.add_argument("--step-delay", type=float, default=0.0,
                        help="seconds each step also sleeps in the attribution runs")
    parser.add_argument("--attribution-rounds", type=int, default=3)
    parser.add_argument("--attribution-only", action="store_true")
    args = parser.parse_args()
    attributed = attribution(args)
    if args.attribution_only:
        print(json.dumps({"benchmark": "overhead", "attribution": attributed}))
        return
    config = EngineConfig(max_batch=args.max_batch)
    wall: dict[str, list[float]] = {mode: [] for mode in MODES}
    cpu: dict[str, list[float]] = {mode: [] for mode in MODES}
    started = time.monotonic()
    for r in range(args.rounds):
        order = list(MODES) if r % 2 == 0 else list(reversed(MODES))  # no mode always first
        for mode in order:
            w, c = run_once(mode, config, args.requests, args.max_tokens, f"r{r}-{mode}")
            wall[mode].append(w)
            cpu[mode].append(c)
    print(f"decode throughput (committed tokens/s), {args.rounds} interleaved rounds of "
          f"{args.requests} requests x {args.max_tokens} tokens, max_batch {args.max_batch}, "
          f"device {pick_device(config.device)}")
    print(f"{'hooks':<10}{'tok/s wall':>12}{'min':>8}{'max':>8}{'vs off':>8}"
          f"{'tok/CPU-s':>12}{'vs off':>8}")
    summary = {}
    for mode in MODES:
        wall_ratio = statistics.median(w / o for w, o in zip(wall[mode], wall["off"],
                                                              strict=True))
        cpu_ratio = statistics.median(c / o for c, o in zip(cpu[mode], cpu["off"], strict=True))
        median = statistics.median(wall[mode])
        summary[mode] = {"median_tokens_per_s": round(median, 1),
                         "min": round(min(wall[mode]), 1), "max": round(max(wall[mode]), 1),
                         "paired_ratio_vs_off": round(wall_ratio, 4),
                         "median_tokens_per_cpu_s": round(statistics.median(cpu[mode]), 1),
                         "paired_cpu_ratio_vs_off": round(cpu_ratio, 4)}
        print(f"{mode:<10}{median:>12.0f}{min(wall[mode]):>8.0f}{max(wall[mode]):>8.0f}"
              f"{wall_ratio:>8.3f}{statistics.median(cpu[mode]):>12.0f}{cpu_ratio:>8.3f}")
    print(f"(run took {time.monotonic() - started:.0f} s)")
    print(json.dumps({"benchmark": "overhead", "numerator": "committed tokens",
                      "rounds": args.rounds, "requests": args.requests,
                      "max_tokens": args.max_tokens, "max_batch": args.max_batch,
                      "modes": summary, "attribution": attributed}))


if __name__ == "__main__":
    main()
