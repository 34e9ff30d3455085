"""Decode throughput of the reference engine with the hooks off, metrics only, and all on.

The real engine (default model, CPU or CUDA) decodes the same batch of requests under three
telemetries, interleaved round by round so that drift in the machine hits each alike:

  off       a null telemetry: every hook is a no-op method (the engine still builds its
            per-step report; nothing records it)
  metrics   Telemetry(tracer_provider=None): the Prometheus registry, no spans
  all on    setup_telemetry(): metrics, exemplars, request and phase spans sampled at 100%
            through the batch span processor (into a null exporter: export I/O is not the
            hooks' cost)

Throughput = committed tokens per second of wall time, from the first submit to the last
request's terminal state; the writer side is an asyncio consumer that pops and reports every
chunk delivered, as the HTTP transport does.

Run: python benchmarks/overhead.py [--rounds 9] [--requests 64] [--max-tokens 128]
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
             tag: str) -> float:
    telemetry, close = MODES[mode]()
    engine = Engine(config, telemetry)
    engine.start()
    try:
        asyncio.run(_decode(engine, 4, 8, f"{tag}-warm"))  # first-call costs out of the timing
        engine.wait_idle(10.0)
        start = time.perf_counter()
        tokens = asyncio.run(_decode(engine, requests, max_tokens, tag))
        elapsed = time.perf_counter() - start
    finally:
        engine.shutdown()
        close()
    return tokens / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--requests", type=int, default=64)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--max-batch", type=int, default=32)
    args = parser.parse_args()
    config = EngineConfig(max_batch=args.max_batch)
    rates: dict[str, list[float]] = {mode: [] for mode in MODES}
    started = time.monotonic()
    for r in range(args.rounds):
        order = list(MODES) if r % 2 == 0 else list(reversed(MODES))  # no mode always first
        for mode in order:
            rates[mode].append(run_once(mode, config, args.requests, args.max_tokens,
                                        f"r{r}-{mode}"))
    base = statistics.median(rates["off"])
    print(f"decode throughput (committed tokens/s), {args.rounds} interleaved rounds of "
          f"{args.requests} requests x {args.max_tokens} tokens, max_batch {args.max_batch}, "
          f"device {pick_device(config.device)}")
    print(f"{'hooks':<10}{'median':>10}{'min':>10}{'max':>10}{'vs off':>9}")
    summary = {}
    for mode, values in rates.items():
        median = statistics.median(values)
        summary[mode] = {"median_tokens_per_s": round(median, 1),
                         "min": round(min(values), 1), "max": round(max(values), 1),
                         "ratio_vs_off": round(median / base, 4)}
        print(f"{mode:<10}{median:>10.0f}{min(values):>10.0f}{max(values):>10.0f}"
              f"{median / base:>9.3f}")
    print(f"(run took {time.monotonic() - started:.0f} s)")
    print(json.dumps({"benchmark": "overhead", "numerator": "committed tokens",
                      "rounds": args.rounds, "requests": args.requests,
                      "max_tokens": args.max_tokens, "max_batch": args.max_batch,
                      "modes": summary}))


if __name__ == "__main__":
    main()
