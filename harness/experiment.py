"""The seed's slow-consumer experiment, run on the real classes.

The seed document traces one request through a slow consumer: tokens A..G, at most one
generated per tick, the transport draining ``[1,0,0,0,1,0,1,0,0]`` tokens per tick *before*
generation, an overall deadline at tick 8 and a client cancel in the same tick after it. Here
the queue is the worker's :class:`StreamBuffer` (the producer may push only while it has
credit, i.e. ``buffered < capacity``), the terminal race goes through the worker's
:class:`Lifecycle` (compare-and-set, then release of KV block references from a real
:class:`BlockPool`, the batch slot and the stream, then the :class:`RequestRecorder`), and the
token counts are the recorder's. The seed's telemetry example (three requests, goodput 0.1
req/s) is replayed through real recorders too.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from servescope.instrumentation import FinishReason, SLOSpec, StepReport, Telemetry
from servescope.instrumentation.slo import LatencySLO
from servescope.reference.core.block_pool import BlockPool
from servescope.reference.core.lifecycle import Lifecycle, SlotPool
from servescope.reference.core.stream import StreamBuffer

__all__ = ["SEED_DRAIN", "SEED_TOKENS", "StreamRun", "run_experiment", "seed_goodput",
           "simulate_stream"]

SEED_TOKENS = "ABCDEFG"
SEED_DRAIN = (1, 0, 0, 0, 1, 0, 1, 0, 0)
SEED_DEADLINE_TICK = 8
SEED_KV_BLOCKS = 4
#: the seed's name for the reason our closed enum calls ``deadline``
SEED_REASON_NAMES = {FinishReason.DEADLINE: "overall_deadline",
                     FinishReason.CLIENT_CANCEL: "client_cancel"}


@dataclass
class StreamRun:
    """What one run of the trace produced."""

    capacity: int | None
    sent: str = ""
    generated: str = ""
    dropped: str = ""
    paused_ticks: list[int] = field(default_factory=list)
    trace: list[tuple[int, str, str]] = field(default_factory=list)
    peak_buffered: int = 0
    terminal_reason: FinishReason | None = None
    finalize_attempts: list[FinishReason] = field(default_factory=list)
    cancel_noop: bool = False
    cleanup_count: int = 0
    kv_blocks: int = 0
    slots: int = 0
    pool_free_blocks: int = 0
    pool_total_blocks: int = 0
    committed_tokens: int = 0
    delivered_tokens: int = 0
    discarded_tokens: int = 0
    ignored_signals: list[FinishReason] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["trace"] = [list(t) for t in self.trace]
        out["terminal_reason"] = None if self.terminal_reason is None else str(
            self.terminal_reason)
        out["seed_terminal_reason"] = SEED_REASON_NAMES.get(
            self.terminal_reason, str(self.terminal_reason)) if self.terminal_reason else None
        out["finalize_attempts"] = [str(r) for r in self.finalize_attempts]
        out["ignored_signals"] = [str(r) for r in self.ignored_signals]
        return out


class _Ticks:
    """The experiment's clock: one second per tick."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def simulate_stream(capacity: int | None, deadline_tick: int = SEED_DEADLINE_TICK,
                    tokens: str = SEED_TOKENS, drain: Sequence[int] = SEED_DRAIN,
                    ) -> StreamRun:
    """Run the trace with a stream of ``capacity`` (None: unbounded)."""
    clock = _Ticks()
    telemetry = Telemetry(clock=clock)
    pool = BlockPool(SEED_KV_BLOCKS, 16)
    slots = SlotPool(1)
    recorder = telemetry.request("req-42", arrival=0.0)
    life = Lifecycle(recorder, pool, slots)
    life.blocks = pool.allocate(SEED_KV_BLOCKS)
    life.slot = slots.acquire()
    recorder.admitted()
    recorder.scheduled(now=0.0)
    stream = StreamBuffer(capacity, 0)
    life.stream = stream
    run = StreamRun(capacity, pool_total_blocks=pool.num_blocks)
    buffered = ""
    for tick, n_drain in enumerate(drain):
        clock.now = float(tick)
        if tick >= deadline_tick:
            # the deadline and the client's cancel arrive in the same tick, deadline first
            assert life.terminate(FinishReason.DEADLINE, now=clock.now)
            run.cancel_noop = not life.terminate(FinishReason.CLIENT_CANCEL, now=clock.now)
            run.trace.append((tick, "terminal", buffered))
            break
        chunk = stream.pop(n_drain) if n_drain else []
        if chunk:  # the transport drains before the scheduler generates
            run.sent += "".join(chr(t) for t in chunk)
            buffered = buffered[len(chunk):]
            recorder.delivered(len(chunk), now=clock.now)
        advanced = []
        if len(run.generated) < len(tokens):
            if stream.credits() > 0:
                token = tokens[len(run.generated)]
                stream.push([ord(token)])
                run.generated += token
                buffered += token
                advanced.append((recorder, 1, 0))
            else:
                run.paused_ticks.append(tick)
        telemetry.step(StepReport(advanced=advanced, now=clock.now,
                                  kv_blocks_used=pool.num_used,
                                  kv_blocks_total=pool.num_blocks,
                                  buffered_tokens=stream.buffered))
        run.trace.append((tick, run.sent, buffered))
    if life.reason is None:  # the trace ran out before the deadline: a normal stop
        life.terminate(FinishReason.STOP, now=clock.now)
    summary = recorder.summary()
    run.dropped = "".join(chr(t) for t in life.dropped)
    run.peak_buffered = stream.peak
    run.terminal_reason = life.reason
    run.finalize_attempts = list(life.attempts)
    run.cleanup_count = life.cleanup_count
    run.kv_blocks = life.kv_blocks
    run.slots = slots.used
    run.pool_free_blocks = pool.num_free
    run.committed_tokens = summary.committed_tokens
    run.delivered_tokens = summary.delivered_tokens
    run.discarded_tokens = summary.discarded_tokens
    run.ignored_signals = list(summary.ignored_signals)
    return run


def seed_goodput(window_s: float = 10.0, ttft_slo: float = 3.0, tpot_slo: float = 2.0
                 ) -> dict[str, Any]:
    """The seed's telemetry example through real recorders: req-a stop (TTFT 2, TPOT 1),
    req-b stop (TTFT 5, TPOT 3), req-c cancelled before its first token."""
    base = SLOSpec.default()
    slo = dataclasses.replace(base, ttft=LatencySLO(ttft_slo, base.ttft.target),
                              tpot=LatencySLO(tpot_slo, base.tpot.target))
    clock = _Ticks()
    telemetry = Telemetry(clock=clock, slo=slo)
    plans: list[tuple[str, FinishReason, float, tuple[float, ...]]] = [
        ("req-a", FinishReason.STOP, 0.0, (2.0, 3.0, 4.0)),
        ("req-b", FinishReason.STOP, 0.0, (5.0, 8.0)),
        ("req-c", FinishReason.CLIENT_CANCEL, 1.0, ()),
    ]
    summaries = []
    for rid, reason, arrival, times in plans:
        recorder = telemetry.request(rid, arrival=arrival)
        for t in times:
            recorder.tokens_committed(1, now=t)
        recorder.finish(reason, now=times[-1] if times else arrival + 1.0)
        summaries.append(recorder.summary())
    finish_total: dict[str, int] = {}
    for s in summaries:
        key = str(s.finish_reason)
        finish_total[key] = finish_total.get(key, 0) + 1
    return {
        "finish_total": finish_total,
        "ttft_samples": [s.ttft for s in summaries if s.ttft is not None],
        "tpot_samples": [s.tpot for s in summaries if s.tpot is not None],
        "goodput_rps": sum(s.good for s in summaries) / window_s,
    }


def run_experiment() -> dict[str, Any]:
    """Both runs of the trace and the telemetry example, as one JSON-ready dict."""
    unbounded = simulate_stream(None)
    bounded = simulate_stream(3)
    return {
        "stream_tokens": SEED_TOKENS,
        "drain_per_tick": list(SEED_DRAIN),
        "deadline_tick": SEED_DEADLINE_TICK,
        "unbounded": unbounded.to_dict(),
        "bounded_capacity_3": bounded.to_dict(),
        "terminal": {
            "reason": str(bounded.terminal_reason),
            "seed_reason": SEED_REASON_NAMES[FinishReason.DEADLINE],
            "finalize_attempts": [str(r) for r in bounded.finalize_attempts],
            "cancel_noop": bounded.cancel_noop,
            "cleanup_count": bounded.cleanup_count,
            "kv_blocks": bounded.kv_blocks,
            "slots": bounded.slots,
        },
        "telemetry": seed_goodput(),
    }


def format_report(result: dict[str, Any]) -> str:
    """The seed's printout, line for line where the seed has one."""
    drain = ",".join(str(d) for d in result["drain_per_tick"])
    lines = [f"stream_tokens={result['stream_tokens']} drain_per_tick=[{drain}] "
             f"deadline_tick={result['deadline_tick']}"]
    for name in ("unbounded", "bounded_capacity_3"):
        r = result[name]
        lines.append(f"{name}: sent={r['sent']} generated={r['generated']} "
                     f"dropped={r['dropped']} paused_ticks={r['paused_ticks']} "
                     f"peak_buffered={r['peak_buffered']} "
                     f"discarded_tokens={r['discarded_tokens']}")
    t = result["terminal"]
    lines.append(f"terminal_reason={t['reason']} (seed: {t['seed_reason']}) "
                 f"finalize_attempts={t['finalize_attempts']} cancel_noop={t['cancel_noop']} "
                 f"cleanup_count={t['cleanup_count']} kv_blocks={t['kv_blocks']} "
                 f"slots={t['slots']}")
    trace = [tuple(x) for x in result["bounded_capacity_3"]["trace"]]
    lines.append(f"bounded_trace={trace}")
    tel = result["telemetry"]
    lines.append(f"finish_total={tel['finish_total']} ttft_samples={tel['ttft_samples']} "
                 f"tpot_samples={tel['tpot_samples']} goodput_rps={tel['goodput_rps']:.3f}")
    return "\n".join(lines)
