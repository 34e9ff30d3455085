"""The scheduler: the single owner of request state, one thread, one loop.

Each iteration is a safe point. It first applies everything in the mailbox (submissions,
cancels and disconnects, injected faults and crashes, drained streams), then the timers
(deadlines, the slow-consumer policy), then stream credits (pause at the high watermark,
resume at the low one), admits waiting requests while KV blocks and batch slots allow, and
finally runs one batched forward over every eligible request. A launched step is never
interrupted: a signal that arrives during a step waits for the next boundary. The three parts
can be stepped apart (tests do, with an injected clock and no thread), as vLLM's
``schedule() -> execute() -> update()``: :meth:`Scheduler.schedule` returns a
:class:`StepPlan`, :meth:`Scheduler.execute` hands it to the :class:`ModelRunner`
(``model_runner``: the forwards and their timing), and :meth:`Scheduler.update` applies their
outputs.

KV blocks are allocated on demand (the block arithmetic and the prefix index are the
:class:`KVManager`'s, ``kv_manager``; whom to preempt is decided here): admission needs the
blocks of the tokens known so far (minus shared prefix blocks) plus a small reserve; a decode
step that crosses a block boundary takes one more block, and when none is free it preempts a
paused request first (its reader is behind anyway), else the youngest request. A preempted
request gives back its blocks and slot, keeps its tokens and stream, waits at the queue's head
and recomputes its KV when readmitted (greedy decoding makes the recomputation exact).

Terminal states go through :class:`Lifecycle`: the first decision wins, every later signal is
a counted no-op, and a finished request's resources are released exactly once, in dependency
order: KV block references, batch slot, stream buffer, then the recorder (which ends spans).
The recorder of a request whose HTTP writer is still running waits for the writer to say it is
done (or for ``drain_timeout_s`` without progress): bytes it wrote after the decision (a
deadline racing a write) still count as delivered when the peer acknowledges them. The
request's end time is the decision's, however late the record is made.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING

from servescope.instrumentation import FinishReason, StepReport
from servescope.instrumentation.step import RequestEvents, StepSink

from ..config import EngineConfig
from . import speculation
from .kv_manager import KVManager
from .lifecycle import SlotPool
from .mailbox import Mailbox
from .model_runner import ModelRunner
from .plan import GroupOutput, InjectedCrash, InjectedFault, Row, StepPlan
from .sequence import SeqRecord, SeqState
from .stats import EngineStats
from .stream import batched_wakes
from .tokenizer import EOS_ID, ByteTokenizer

if TYPE_CHECKING:
    import torch

    from .model import KVCache, Transformer

__all__ = ["GroupOutput", "InjectedFault", "Scheduler", "StepPlan"]  # the plan types: plan.py

_log = logging.getLogger("servescope.reference")
# The shortest idle wait: a timer already due (or due within it) is handled on the next
# iteration instead of spinning the loop on a zero timeout.
_MIN_SLEEP_S = 0.0005


class Scheduler:
    """Owns waiting/running/draining requests, the block pool, the slots and the model."""

    def __init__(self, config: EngineConfig, telemetry: StepSink, model: Transformer,
                 cache: KVCache, device: torch.device, tokenizer: ByteTokenizer,
                 on_left_waiting: Callable[[], None],
                 on_requeued: Callable[[], None] = lambda: None) -> None:
        self.config = config
        self.telemetry = telemetry
        self.runner = ModelRunner(config, model, cache, device, tokenizer,
                                  clock=lambda: self.telemetry.clock())
        self.kv = KVManager(config)
        self.pool = self.kv.pool
        self.slots = SlotPool(config.max_batch)
        self.mailbox = Mailbox()
        self.waiting: deque[SeqRecord] = deque()
        self.running: list[SeqRecord] = []
        self.draining: list[SeqRecord] = []
        self.finishing: list[SeqRecord] = []  # ended, resources back, recorder awaits the writer
        self.by_id: dict[str, SeqRecord] = {}
        self.live_streams = 0
        self.steps = 0
        self.errors = 0
        self.committed_total = 0
        self.proposed_total = 0
        self.preemptions = 0
        self._preempt_delta = 0
        self._on_left_waiting = on_left_waiting
        self._on_requeued = on_requeued
        self._last_report = 0.0
        self._crash_next_step = False  # the "crash" signal: a fault test's seam
        self.stats = self._snapshot()
        self.last_step_at = time.monotonic()  # when the last forward step ended (or birth)

    # --- the loop -------------------------------------------------------------------------
    def run(self, stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                worked = self.iterate()
            except Exception:  # a scheduler bug must not kill the thread silently
                _log.exception("scheduler iteration failed")
                self._fail_all(FinishReason.ERROR)
                worked = False
            if not worked:
                self.mailbox.wait(self._sleep_budget())
        self.mailbox.post("shutdown")
        self._apply_signals()
        self._fail_all(FinishReason.ERROR)
        self._report([])

    def iterate(self) -> bool:
        """One iteration: :meth:`schedule`, :meth:`execute`, :meth:`update` (which reports
        the step), or an idle report. True when a forward step ran."""
        plan = self.schedule()
        if plan.groups:
            self.update(plan, self.execute(plan))
            self.last_step_at = time.monotonic()
        else:
            self._report([])  # capacity levels still change (admission, ends, idle refresh)
        if plan.groups and self.config.step_delay_s:
            time.sleep(self.config.step_delay_s)
        return bool(plan.groups)

    def schedule(self) -> StepPlan:
        """The safe point: apply the mailbox, the timers, the credits and admission, then
        say which rows the step runs (prefill chunks in one forward, decode rows with their
        drafts in another: a decode row padded to a prompt chunk's width would waste most of
        its compute)."""
        self._apply_signals()
        now = self.telemetry.clock()
        self._apply_timers(now)
        self._apply_credits(now)
        self._admit(now)
        rows = self._build_rows()
        groups = [g for g in ([r for r in rows if r.prefill], [r for r in rows if not r.prefill])
                  if g]
        return StepPlan(groups, now, self.steps)

    def execute(self, plan: StepPlan) -> list[GroupOutput]:
        """The runner's part: one batched forward per group. Changes no request state, so a
        test may run its own (scripted tokens, no model) and a signal posted meanwhile waits
        for the next :meth:`schedule`."""
        if self._crash_next_step:  # past every handling: the engine's state is suspect
            raise InjectedCrash("injected engine crash inside a step")
        return self.runner.execute(plan)

    def update(self, plan: StepPlan, outputs: list[GroupOutput]
               ) -> list[tuple[RequestEvents, int, int, float]]:
        """Apply a step's outputs: commit each row's accepted tokens (which may pause or
        finish it), end the requests whose forward failed with ``error``, and report the
        step in one ``Telemetry.step``. Returns what the step advanced."""
        self.steps += 1
        advanced = []
        for out in outputs:
            for seq in out.failed:
                self.terminate(seq, FinishReason.ERROR)
            if out.tokens is None:
                continue
            # the commit time of this group's tokens: taken right after sampling (by the
            # runner), before any of them is pushed to a writer, so server TTFT never follows
            # the first byte; each writer's event loop is woken once for the whole group
            with batched_wakes():
                for row, tokens in zip(out.rows, out.tokens, strict=True):
                    n_commit = self._commit(row, tokens, out.done_at)
                    if n_commit or row.drafts:
                        advanced.append((row.seq.step_key, n_commit, len(row.drafts),
                                         out.done_at))
        self._report(advanced)
        return advanced

    def _sleep_budget(self) -> float:
        """Until the next timer is due (deadline, slow consumer, drain, idle report)."""
        now = self.telemetry.clock()
        due = now + self.config.idle_report_s
        for seq in (*self.waiting, *self.running):
            if seq.deadline_at is not None:
                due = min(due, seq.deadline_at)
            if seq.paused_at is not None:
                due = min(due, seq.paused_at + self.config.slow_consumer_timeout_s)
        for seq in (*self.draining, *self.finishing):
            if seq.drain_since is not None:
                due = min(due, seq.drain_since + self.config.drain_timeout_s)
        return max(_MIN_SLEEP_S, min(due - now, self.config.idle_report_s))

    # --- signals --------------------------------------------------------------------------
    def _apply_signals(self) -> None:
        for kind, payload in self.mailbox.take_all():
            if kind == "submit":
                self._enqueue(payload)
            elif kind == "cancel":
                seq, reason = payload
                self.terminate(seq, reason)
            elif kind == "fault":
                seq = payload if isinstance(payload, SeqRecord) else self.by_id.get(payload)
                if seq is not None:
                    seq.fault = True
            elif kind == "crash":
                self._crash_next_step = True
            elif (kind == "drained" and payload.state is SeqState.DRAINING
                  and payload.fully_delivered):
                self._end_drain(payload, drop=False)
            elif kind == "drained" and payload.writer.done.is_set and payload in self.finishing:
                self._record_finished(payload)
            # "credit" and "shutdown" only wake the loop

    def _enqueue(self, seq: SeqRecord) -> None:
        if seq.life.reason is not None:  # cancelled before the scheduler saw it
            self._left_waiting(seq)
            seq.state = SeqState.DONE
            self._finish_waiting(seq)
            return
        self.waiting.append(seq)
        self.by_id[seq.request.request_id] = seq
        self.live_streams += 1

    def _left_waiting(self, seq: SeqRecord) -> None:
        self._on_left_waiting()

    def _finish_waiting(self, seq: SeqRecord) -> None:
        seq.life.release_compute()
        seq.life.release_stream(drop=True)
        seq.life.record()

    def terminate(self, seq: SeqRecord, reason: FinishReason) -> bool:
        """Apply a terminal signal at the safe point; a later one is a counted no-op."""
        if seq.state is SeqState.DRAINING:
            seq.life.decide(reason)  # loses to stop/length; replayed as ignored at record
            self._end_drain(seq, drop=True)  # the reader was closed by the cancel: drop the tail
            return False
        if seq.state is SeqState.DONE or seq.life.reason is not None:
            seq.life.decide(reason)
            return False
        if seq.state is SeqState.WAITING and seq not in self.waiting:
            # not yet enqueued (still in the mailbox): decide now, the enqueue cleans up
            return seq.life.decide(reason)
        if not seq.life.decide(reason):
            return False
        seq.decided_at = self.telemetry.clock()
        if seq.state is SeqState.WAITING:
            self.waiting.remove(seq)
            self._left_waiting(seq)
        else:
            self.running.remove(seq)
        seq.state = SeqState.DONE
        self._release(seq, drop=True)
        return True

    def _release(self, seq: SeqRecord, *, drop: bool) -> None:
        """KV refs and slot (already in Lifecycle order), then the stream, then the recorder."""
        seq.life.release_compute()
        seq.life.release_stream(drop=drop)
        self.live_streams -= 1
        self.by_id.pop(seq.request.request_id, None)
        if seq.life.reason is FinishReason.ERROR:
            self.errors += 1
        if seq.writer.attached and not seq.writer.done.is_set and drop:
            seq.drain_since = self.telemetry.clock()  # the writer may still be confirming
            seq.drain_progress = (seq.stream.popped, seq.writer.delivered)
            self.finishing.append(seq)
            return
        seq.life.record(now=seq.decided_at)

    def _record_finished(self, seq: SeqRecord) -> None:
        """The writer is done (or stuck): record with what it confirmed by now."""
        self.finishing.remove(seq)
        seq.life.record(now=seq.decided_at)

    def _finish_normal(self, seq: SeqRecord, reason: FinishReason, now: float) -> None:
        """stop/length: KV and slot go back now; the stream's tail is left for the writer. The
        decision is stamped at the last token's commit (``now``): that is the request's end,
        whatever the writer still has to send."""
        if not seq.life.decide(reason):
            return
        seq.decided_at = now
        self.running.remove(seq)
        seq.life.release_compute()
        seq.state = SeqState.DRAINING
        seq.drain_since = now
        seq.drain_progress = (seq.stream.popped, seq.writer.delivered)
        seq.stream.close(drop=False)
        self.draining.append(seq)

    def _end_drain(self, seq: SeqRecord, *, drop: bool) -> None:
        self.draining.remove(seq)
        seq.state = SeqState.DONE
        self._release(seq, drop=drop)

    def _fail_all(self, reason: FinishReason) -> None:
        for seq in [*self.waiting, *self.running]:
            self.terminate(seq, reason)
        for seq in list(self.draining):
            self._end_drain(seq, drop=True)
        for seq in list(self.finishing):
            self._record_finished(seq)

    # --- timers and credits ---------------------------------------------------------------
    def _apply_timers(self, now: float) -> None:
        for seq in [*self.waiting, *self.running]:
            if seq.deadline_at is not None and now >= seq.deadline_at:
                self.terminate(seq, FinishReason.DEADLINE)
            elif (seq.paused_at is not None
                  and now - seq.paused_at > self.config.slow_consumer_timeout_s):
                self.terminate(seq, FinishReason.SLOW_CONSUMER)
        for seq in list(self.draining):
            progress = (seq.stream.popped, seq.writer.delivered)
            if progress != seq.drain_progress:  # the writer is still moving: not stuck
                seq.drain_progress, seq.drain_since = progress, now
            elif (seq.drain_since is not None
                  and now - seq.drain_since > self.config.drain_timeout_s):
                self._end_drain(seq, drop=True)
        for seq in list(self.finishing):
            progress = (seq.stream.popped, seq.writer.delivered)
            if progress != seq.drain_progress:
                seq.drain_progress, seq.drain_since = progress, now
            elif (seq.drain_since is not None
                  and now - seq.drain_since > self.config.drain_timeout_s):
                self._record_finished(seq)

    def _apply_credits(self, now: float) -> None:
        """Pause at the high watermark, resume at the low one (never for unbounded streams)."""
        if self.config.unbounded_streams:
            return
        for seq in self.running:
            if seq.paused_at is not None:
                if seq.stream.at_low_watermark():
                    seq.paused_at = None
                    seq.recorder.resumed(now=now)
            elif seq.stream.at_high_watermark():
                seq.paused_at = now
                seq.recorder.paused(now=now)
                seq.stream.request_credit()

    # --- admission ------------------------------------------------------------------------
    def _admit(self, now: float) -> None:
        """FIFO: admit the head while a slot is free and the KV blocks for its known tokens
        fit with a small reserve left for the running requests to grow into. A preempted
        request whose reader is still behind is passed over (it cannot advance anyway)."""
        for seq in list(self.waiting):
            if not self.slots.free:
                return
            if seq.paused_at is not None:  # preempted while paused: wait for its reader
                if not seq.stream.at_low_watermark():
                    continue
                seq.paused_at = None
                seq.recorder.resumed(now=now)
            fit = self.kv.admission(seq, self.kv.reserve(len(self.running)))
            if fit is None:
                return
            self.waiting.remove(seq)
            self._left_waiting(seq)
            self.kv.admit(seq, *fit)
            seq.life.slot = self.slots.acquire()
            seq.prefilled = seq.committed > 0 and seq.n_computed >= seq.prefill_target
            seq.state = SeqState.RUNNING
            self.running.append(seq)
            if seq.preemptions == 0:
                seq.recorder.admitted()
            seq.recorder.scheduled(now=now)

    # --- KV growth and preemption ---------------------------------------------------------
    def _grow(self, seq: SeqRecord, positions: int, *, preempt: bool) -> bool:
        """Give ``seq`` blocks for ``positions`` token positions, preempting younger (or
        paused) requests if ``preempt``; False when it cannot get them."""
        need = self.kv.missing(seq, positions)
        while need > self.pool.num_free:
            victim = self._victim(seq) if preempt else None
            if victim is None:
                return False
            self._preempt(victim)
        self.kv.allocate(seq, need)
        return True

    def _victim(self, seq: SeqRecord) -> SeqRecord | None:
        """Whom to preempt for ``seq``: a paused request first (its reader is behind anyway),
        youngest first; else the youngest request admitted after ``seq``."""
        younger = self.running[self.running.index(seq) + 1:]
        paused = [s for s in self.running if s.paused_at is not None and s is not seq]
        for pool in (paused, younger):
            if pool:
                return pool[-1]
        return None

    def _preempt(self, seq: SeqRecord) -> None:
        """Give back a running request's KV blocks and slot; it waits at the queue's head and
        recomputes its KV when readmitted. Its stream and tokens are kept."""
        self.running.remove(seq)
        self.kv.free(seq)
        if seq.life.slot is not None:
            self.slots.release(seq.life.slot)
            seq.life.slot = None
        # a paused request stays paused (its slow-consumer clock keeps running while it waits)
        seq.prefilled = False
        seq.preemptions += 1
        seq.state = SeqState.WAITING
        self.waiting.appendleft(seq)
        self._on_requeued()
        self.preemptions += 1
        self._preempt_delta += 1

    # --- the step -------------------------------------------------------------------------
    def _build_rows(self) -> list[Row]:
        """Oldest first, so that growing KV preempts the youngest requests, never older ones."""
        cfg = self.config
        rows = []
        for seq in list(self.running):
            if seq.state is not SeqState.RUNNING or seq.paused_at is not None:
                continue  # preempted by an older request in this loop, or paused
            credits = seq.stream.credits() if not cfg.unbounded_streams else 1 << 30
            if credits < 1:
                continue
            if not seq.prefilled:  # admission allocated the blocks for the whole prefill
                end = min(seq.prefill_target, seq.n_computed + cfg.prefill_chunk)
                rows.append(Row(seq, seq.tokens[seq.n_computed:end], [], True))
                continue
            room = min(credits, seq.limit - len(seq.tokens)) - 1
            drafts = (speculation.propose(seq.tokens, cfg.speculation_ngram,
                                          min(cfg.speculation_k, room))
                      if cfg.speculation_ngram and room > 0 else [])
            # drafts only use blocks that are free; the one real token may preempt
            if drafts and not self._grow(seq, len(seq.tokens) + len(drafts), preempt=False):
                drafts = []
            if not drafts and not self._grow(seq, len(seq.tokens), preempt=True):
                self._preempt(seq)  # nobody younger to take from: it waits for blocks
                continue
            rows.append(Row(seq, [seq.tokens[-1], *drafts], drafts, False))
        return rows

    def _commit(self, row: Row, greedy: list[int], now: float) -> int:
        seq = row.seq
        if row.prefill:
            seq.n_computed += len(row.inputs)
            self.kv.register(seq)
            if seq.n_computed < seq.prefill_target:
                return 0
            seq.prefilled = True
            if seq.committed:  # recomputed after a preemption: the next token is known
                return 0
            seq.recorder.prefill_done(now=now)
            new = [greedy[len(row.inputs) - 1]]
        else:
            new = speculation.accept(row.drafts, greedy[:len(row.drafts) + 1])
        credits = seq.stream.credits() if not self.config.unbounded_streams else 1 << 30
        new = new[:max(0, min(credits, seq.limit - len(seq.tokens)))]
        stop_at = self._stop_index(seq, new)
        if stop_at is not None:
            new = new[:stop_at]
        seq.tokens.extend(new)
        if not row.prefill:  # the input token and the accepted drafts now have their KV
            seq.n_computed = len(seq.tokens) - 1
            self.kv.register(seq)
        seq.committed += len(new)
        seq.proposed += len(row.drafts)
        self.committed_total += len(new)
        self.proposed_total += len(row.drafts)
        seq.stream.push(new)
        if stop_at is not None:
            self._finish_normal(seq, FinishReason.STOP, now)
        elif len(seq.tokens) >= seq.limit:
            self._finish_normal(seq, FinishReason.LENGTH, now)
        return len(new)

    @staticmethod
    def _stop_index(seq: SeqRecord, new: list[int]) -> int | None:
        stops = set(seq.request.stop_token_ids)
        if not seq.request.ignore_eos:
            stops.add(EOS_ID)
        for i, tok in enumerate(new):
            if tok in stops:
                return i
        return None

    # --- reporting ------------------------------------------------------------------------
    def _report(self, advanced: list[tuple[RequestEvents, int, int, float]]) -> None:
        """One telemetry call per iteration that did something (or per idle interval)."""
        now = self.telemetry.clock()
        stats = self._snapshot()
        changed = stats != self.stats
        self.stats = stats
        if not advanced and not changed and now - self._last_report < self.config.idle_report_s:
            return
        self._last_report = now
        queries, hits = self.kv.take_prefix_delta()
        preemptions, self._preempt_delta = self._preempt_delta, 0
        buffered = sum(s.stream.buffered for s in (*self.waiting, *self.running, *self.draining))
        seconds, tokens = self.runner.take_phases()
        self.telemetry.step(StepReport(
            advanced=advanced, now=now, kv_blocks_used=self.pool.num_used,
            kv_blocks_total=self.pool.num_blocks, running=len(self.running),
            waiting=len(self.waiting), paused=stats.paused, buffered_tokens=buffered,
            prefix_queries=queries, prefix_hits=hits, preemptions=preemptions,
            forward_seconds=seconds, step_tokens=tokens))

    def _snapshot(self) -> EngineStats:
        prefill, decode = self.runner.prefill_seconds, self.runner.decode_seconds
        return EngineStats(
            free_blocks=self.pool.num_free, total_blocks=self.pool.num_blocks,
            used_slots=self.slots.used, total_slots=self.slots.total,
            live_streams=self.live_streams, waiting=len(self.waiting),
            running=len(self.running),
            paused=sum(1 for s in (*self.running, *self.waiting) if s.paused_at is not None),
            draining=len(self.draining) + len(self.finishing), steps=self.steps,
            forward_seconds=prefill + decode, prefill_seconds=prefill, decode_seconds=decode,
            committed_tokens=self.committed_total, proposed_tokens=self.proposed_total,
            prefix_queries=self.kv.prefix_queries, prefix_hits=self.kv.prefix_hits,
            errors=self.errors, preemptions=self.preemptions)

