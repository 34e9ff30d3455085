"""The engine core in its own process: scheduler, model runner and KV pool.

:func:`engine_main` is the child's entry point (started by :class:`EngineClient` with the
``spawn`` method). It owns a real :class:`Scheduler`; what the scheduler would do to the API
process's objects is turned into plain events instead:

* each request's events go to a :class:`RequestEncoder` and each step's report to the
  :class:`StepEncoder` (``wire_events``): every call appends one typed event;
* each request's stream is a :class:`_MirrorStream`: the engine's view of the API-side buffer
  (tokens pushed minus tokens the reader popped, as last reported). The scheduler's credit
  checks run against it, so it never pushes more than the API-side buffer has room for, and a
  slow reader pauses only its own request, exactly as in process;

The loop: take every message from the API process, run one scheduler iteration, send that
iteration's events in one message (or a heartbeat when idle for ``heartbeat_s``). An exception
that escapes the scheduler's own handling ends the process (after a best-effort ``fatal``
message): its state can no longer be trusted, and the API process restarts it with a clean KV
pool. The process also exits when its parent is gone.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from dataclasses import dataclass
from typing import Any

import torch
import zmq

from servescope.instrumentation import FinishReason
from servescope.instrumentation.terminal import Once

from ..config import EngineConfig
from ..core.lifecycle import Lifecycle
from ..core.model import BatchInput, KVCache, Transformer, pick_device
from ..core.request import GenerationRequest
from ..core.scheduler import Scheduler
from ..core.sequence import SeqRecord, SeqState
from ..core.stats import EngineStats
from ..core.stream import Watermarks
from ..core.tokenizer import ByteTokenizer
from ..heap import freeze_start_up_heap
from .engine_wire import (
    Close,
    Decided,
    Event,
    Finish,
    FromEngine,
    LeftWaiting,
    Push,
    Requeued,
    Submit,
    ToEngine,
    WantCredit,
    decoder_to_engine,
    encoder,
)
from .wire_events import RequestEncoder, StepEncoder

__all__ = ["ChildSpec", "EngineCore", "engine_main"]

_log = logging.getLogger("servescope.reference.client.engine_process")


@dataclass(frozen=True)
class ChildSpec:
    """What the child needs (pickled by ``spawn``)."""

    config: EngineConfig
    to_engine: str  # zmq address the API process binds (PUSH) and the engine connects (PULL)
    from_engine: str  # the other way
    heartbeat_s: float
    parent_pid: int
    cpu_threads: int  # torch's intra-op threads for CPU work (one core left to the API)

    def to_json(self) -> bytes:
        return json.dumps({"config": self.config.to_dict(), "to_engine": self.to_engine,
                           "from_engine": self.from_engine, "heartbeat_s": self.heartbeat_s,
                           "parent_pid": self.parent_pid,
                           "cpu_threads": self.cpu_threads}).encode()

    @classmethod
    def from_json(cls, data: bytes) -> ChildSpec:
        raw = json.loads(data)
        return cls(EngineConfig.from_dict(raw["config"]), raw["to_engine"],
                   raw["from_engine"], float(raw["heartbeat_s"]), int(raw["parent_pid"]),
                   int(raw["cpu_threads"]))


class _MirrorStream:
    """The engine's view of one request's API-side stream buffer.

    ``buffered`` is pushed minus popped-as-last-reported: never below the real occupancy, so
    a push the credits allow always fits the API-side buffer. The credits themselves are the
    buffer's own arithmetic (:class:`Watermarks`) applied to that count."""

    def __init__(self, request_id: str, capacity: int | None, low_watermark: int,
                 events: list[Event]) -> None:
        self.request_id = request_id
        self.marks = Watermarks(capacity, low_watermark)
        self.capacity = capacity
        self._events = events
        self.pushed = 0
        self.popped = 0
        self.peak = 0
        self._closed = Once()
        self._end_seen = False

    @property
    def buffered(self) -> int:
        return self.pushed - self.popped

    @property
    def closed(self) -> bool:
        return self._closed.is_set

    @property
    def drained(self) -> bool:
        return self._closed.is_set and self._end_seen and self.buffered == 0

    def credits(self) -> int:
        return self.marks.credits(self.buffered)

    def at_high_watermark(self) -> bool:
        return self.marks.at_high(self.buffered)

    def at_low_watermark(self) -> bool:
        return self.marks.at_low(self.buffered)

    def request_credit(self) -> None:
        self._events.append(WantCredit(self.request_id))

    def push(self, tokens: list[int]) -> None:
        if not tokens:
            return
        self.pushed += len(tokens)
        self.peak = max(self.peak, self.buffered)
        self._events.append(Push(self.request_id, tokens))

    def close(self, *, drop: bool) -> list[int]:
        if not self._closed.claim():
            return []
        if drop:
            self.popped = self.pushed
            self._end_seen = True
        self._events.append(Close(self.request_id, drop))
        return []

    def update(self, popped: int, end_seen: bool) -> None:
        """The reader's progress as the API process reports it (monotone)."""
        self.popped = max(self.popped, min(popped, self.pushed))
        self._end_seen = self._end_seen or end_seen


class EngineCore:
    """The engine process's state: the scheduler and the requests it knows by id."""

    def __init__(self, config: EngineConfig) -> None:
        self.config = config
        self.events: list[Event] = []
        self.telemetry = StepEncoder(self.events)
        self.device = pick_device(config.device)
        model = Transformer.from_config(config.model, self.device)
        cache = KVCache(config.model, config.num_blocks, config.block_size, self.device)
        _warm_up(model, cache, self.device)
        self.scheduler = Scheduler(
            config, self.telemetry, model, cache, self.device, ByteTokenizer(),
            lambda: self.events.append(LeftWaiting()),
            lambda: self.events.append(Requeued()))
        self.live: dict[str, SeqRecord] = {}

    def apply(self, msg: ToEngine) -> None:
        """Turn one message from the API process into mailbox posts (applied by the
        scheduler at its next safe point, as in process)."""
        post = self.scheduler.mailbox.post
        for sub in msg.submits:
            seq = self._sequence(sub)
            self.live[sub.request_id] = seq
            post("submit", seq)
        for rid, reason in msg.cancels:
            self._cancel(rid, reason)
        for rid, popped, delivered, end_seen, attached, done in msg.progress:
            self._progress(rid, popped, delivered, end_seen, attached, done)
        for rid in msg.faults:
            post("fault", rid)
        if msg.crash:  # the scheduler raises inside its next step, past its own handling
            post("crash")

    def _cancel(self, rid: str, reason: FinishReason) -> None:
        seq = self.live.get(rid)
        if seq is None:  # already recorded here: a late signal, counted as ignored there
            self.events.append(Finish(rid, reason))
        else:
            self.scheduler.mailbox.post("cancel", (seq, reason))

    def _progress(self, rid: str, popped: int, delivered: int, end_seen: bool,
                  attached: bool, done: bool) -> None:
        """The writer's progress: credits for the mirror; a drained tail, or a writer that
        is done, lets the scheduler end or record the request (it checks which itself)."""
        seq = self.live.get(rid)
        if seq is None:
            return
        stream = seq.stream
        assert isinstance(stream, _MirrorStream)
        stream.update(popped, end_seen)
        writer = seq.writer
        writer.delivered = max(writer.delivered, delivered)
        writer.attached = writer.attached or attached
        if (done and writer.done.claim()) or seq.state is SeqState.DRAINING:
            self.scheduler.mailbox.post("drained", seq)

    def _sequence(self, sub: Submit) -> SeqRecord:
        cfg = self.config
        request = GenerationRequest(
            sub.request_id, list(sub.prompt), sub.max_tokens, priority=sub.priority,
            stop_token_ids=tuple(sub.stop_token_ids), ignore_eos=sub.ignore_eos,
            operation=sub.operation)
        rid = sub.request_id
        recorder = RequestEncoder(rid, self.events)
        # the winning decision reaches the API-side handle at once; a recorded request is
        # forgotten here (a later signal for it is answered as ignored)
        life = Lifecycle(recorder, pool=self.scheduler.pool, slots=self.scheduler.slots,
                         on_decided=lambda reason: self.events.append(Decided(rid, reason)),
                         on_recorded=lambda: self.live.pop(rid, None))
        stream = _MirrorStream(sub.request_id,
                               None if cfg.unbounded_streams else cfg.stream_capacity,
                               cfg.stream_low_watermark, self.events)
        life.stream = stream  # type: ignore[assignment]
        return SeqRecord(request, life, stream, sub.arrival,  # type: ignore[arg-type]
                        sub.deadline_at, tokens=list(sub.prompt), n_prompt=len(sub.prompt),
                        limit=min(len(sub.prompt) + sub.max_tokens, cfg.model.max_context))

    def take_events(self) -> list[Event]:
        out = list(self.events)
        self.events.clear()
        return out

    def stats(self) -> EngineStats:
        return self.scheduler.stats


def _warm_up(model: Transformer, cache: KVCache, device: torch.device) -> None:
    """One prefill-shaped and one decode-shaped forward into the scratch block before saying
    ready: the first forward builds kernels and buffers (seconds on a loaded machine), which
    would otherwise count against the lease of the first real step. No pool block is used."""
    scratch = [cache.scratch_block]
    with torch.inference_mode():
        for tokens in ([1] * min(8, cache.block_size), [1]):
            model(BatchInput.build([(tokens, 0, scratch)], cache, device), cache)


def engine_main(spec: ChildSpec) -> None:
    """The engine process: connect, build the model, say ready, loop until told to stop."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="engine[%(process)d] %(levelname)s %(name)s: %(message)s")
    # two processes now share the cores: torch's spinning intra-op threads would take the
    # API process's core (and its own heartbeat) on a small machine
    torch.set_num_threads(spec.cpu_threads)
    ctx = zmq.Context()
    inbox = ctx.socket(zmq.PULL)
    inbox.connect(spec.to_engine)
    outbox = ctx.socket(zmq.PUSH)
    outbox.setsockopt(zmq.LINGER, 2000)
    outbox.connect(spec.from_engine)
    core = EngineCore(spec.config)

    def send(kind: str, events: list[Event], detail: str = "") -> None:
        outbox.send(encoder.encode(FromEngine(kind, events, core.stats(), detail)))

    freeze_start_up_heap()  # torch's and the model's objects: never garbage, never walked
    send("ready", [], str(core.device))
    try:
        _loop(core, inbox, send, spec)
    except Exception as exc:  # the scheduler's state can no longer be trusted
        _log.exception("engine iteration failed; the engine process exits")
        send("fatal", core.take_events(), f"{type(exc).__name__}: {exc}")
        outbox.close()
        inbox.close(linger=0)
        ctx.term()  # waits (up to the outbox's linger) until the report has left
        os._exit(70)
    send("bye", core.take_events())
    outbox.close()
    inbox.close(linger=0)
    ctx.term()


def _loop(core: EngineCore, inbox: zmq.Socket[bytes], send: Any, spec: ChildSpec) -> None:
    scheduler = core.scheduler
    last_sent = time.monotonic()
    worked = False
    while True:
        timeout = 0.0 if worked else min(scheduler._sleep_budget(), spec.heartbeat_s)
        shutdown = False
        if inbox.poll(int(timeout * 1000)):
            while True:
                try:
                    frame = inbox.recv(zmq.NOBLOCK)
                except zmq.Again:
                    break
                msg = decoder_to_engine.decode(frame)
                core.apply(msg)
                shutdown = shutdown or msg.shutdown
        if shutdown:
            scheduler._apply_signals()
            scheduler._fail_all(FinishReason.ERROR)
            scheduler._report([])
            return
        if os.getppid() != spec.parent_pid:
            _log.warning("the API process is gone; the engine process exits")
            os._exit(0)
        worked = scheduler.iterate()
        now = time.monotonic()
        if core.events or now - last_sent >= spec.heartbeat_s:
            events = core.take_events()
            send("step" if events else "beat", events)
            last_sent = now


if __name__ == "__main__":  # started by EngineClient: the spec arrives on stdin
    engine_main(ChildSpec.from_json(sys.stdin.buffer.read()))
