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

Run: python benchmarks/overhead.py [--rounds 12] [--requests 64] [--max-tokens 128]
Prints a table and one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from servescope.instrumentation import FinishReason, StepReport, Telemetry, setup_telemetry
from servescope.reference.config import EngineConfig
from servescope.reference.engine import Engine
from servescope.reference.model import pick_device
from servescope.reference.request import GenerationRequest


class NullRecorder:
    """Every hook the engine calls, doing nothing."""

    def __init__(self) -> None:
        self._reason: FinishReason | None = None

    def admitted(self) -> None: ...
    def scheduled(self, *, now: float | None = None) -> None: ...
    def prefill_done(self, *, now: float | None = None) -> None: ...
    def delivered(self, n: int = 1, *, now: float | None = None) -> None: ...
    def paused(self, *, now: float | None = None) -> None: ...
    def resumed(self, *, now: float | None = None) -> None: ...
    def stream_closed(self, peak_buffered: int, capacity: int) -> None: ...

    def finish(self, reason: FinishReason, *, now: float | None = None) -> bool:
        won = self._reason is None
        if won:
            self._reason = reason
        return won

    def rejected(self, reason: str, *, now: float | None = None) -> bool:
        return self.finish(FinishReason.REJECTED, now=now)


class NullTelemetry:
    """Hooks off: what the engine needs of :class:`Telemetry`, recording nothing."""

    model = "default"
    clock = staticmethod(time.monotonic)

    def request(self, request_id: str, **kwargs: Any) -> NullRecorder:
        return NullRecorder()

    def step(self, report: StepReport) -> None: ...


class NullExporter(SpanExporter):
    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        pass


def _off() -> tuple[Any, Callable[[], None]]:
    return NullTelemetry(), lambda: None


def _metrics() -> tuple[Any, Callable[[], None]]:
    return Telemetry(tracer_provider=None), lambda: None


def _all_on() -> tuple[Any, Callable[[], None]]:
    setup = setup_telemetry(span_exporter=NullExporter(), sample_ratio=1.0,
                            max_queue_size=1 << 16)
    return setup.telemetry, lambda: setup.shutdown(10.0)


MODES: dict[str, Callable[[], tuple[Any, Callable[[], None]]]] = {
    "off": _off, "metrics": _metrics, "all on": _all_on}


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--requests", type=int, default=64)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--max-batch", type=int, default=32)
    args = parser.parse_args()
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
                      "modes": summary}))


if __name__ == "__main__":
    main()
