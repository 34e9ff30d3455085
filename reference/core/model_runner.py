"""The model runner: a step's forwards, apart from the scheduler's bookkeeping.

:meth:`ModelRunner.execute` takes the scheduler's :class:`StepPlan` and runs one batched
forward per group over the paged KV cache, samples greedily among the ids the tokenizer can
generate, and times each phase (CUDA events on a GPU, read after the step's own sync, else wall
time). It changes no request state: the scheduler's :meth:`~.scheduler.Scheduler.update`
applies what it returns. Injected faults (the config's knobs, a request's ``fault`` flag) are
raised here, where a real forward would fail.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import torch

from ..config import EngineConfig
from .model import BatchInput, KVCache, Transformer
from .plan import GroupOutput, InjectedFault, Row, StepPlan
from .sequence import SeqRecord
from .tokenizer import ByteTokenizer

__all__ = ["ModelRunner"]

_log = logging.getLogger("servescope.reference")


class _StepTimer:
    """Forward-pass time: CUDA events on a GPU (read after the step's own sync), else wall."""

    def __init__(self, device: torch.device) -> None:
        self.cuda = device.type == "cuda"
        self.total = 0.0
        self._events: tuple[Any, Any] | None = None
        self._t0 = 0.0

    def start(self) -> None:
        if self.cuda:
            start = torch.cuda.Event(enable_timing=True)  # type: ignore[no-untyped-call]
            end = torch.cuda.Event(enable_timing=True)  # type: ignore[no-untyped-call]
            start.record()
            self._events = (start, end)
        else:
            self._t0 = time.perf_counter()

    def stop(self) -> None:
        if self._events is not None:
            self._events[1].record()
        else:
            self.total += time.perf_counter() - self._t0

    def collect(self) -> None:
        """After the host has the step's tokens (already synchronised): no extra sync."""
        if self._events is not None:
            start, end = self._events
            self.total += start.elapsed_time(end) / 1000.0
            self._events = None


class ModelRunner:
    """Runs the forwards of a :class:`StepPlan`; keeps the forward time per phase."""

    def __init__(self, config: EngineConfig, model: Transformer, cache: KVCache,
                 device: torch.device, tokenizer: ByteTokenizer,
                 clock: Callable[[], float]) -> None:
        self.config = config
        self.model = model
        self.cache = cache
        self.device = device
        self._clock = clock
        self._timers = {True: _StepTimer(device), False: _StepTimer(device)}  # by prefill
        # this step's forward time and input tokens per phase, for the next StepReport
        self._phase_seconds: dict[str, float] = {}
        self._phase_tokens: dict[str, int] = {}
        allowed = torch.full((config.model.vocab_size,), float("-inf"), device=device)
        allowed[tokenizer.generatable_ids()] = 0.0
        self._allowed = allowed

    @property
    def prefill_seconds(self) -> float:
        return self._timers[True].total

    @property
    def decode_seconds(self) -> float:
        return self._timers[False].total

    def take_phases(self) -> tuple[dict[str, float], dict[str, int]]:
        """The forward time and input tokens per phase since the last call (then reset)."""
        out = (self._phase_seconds, self._phase_tokens)
        self._phase_seconds, self._phase_tokens = {}, {}
        return out

    def execute(self, plan: StepPlan) -> list[GroupOutput]:
        """One batched forward per group; a failed forward fails its group's requests (an
        injected fault only the faulty ones), and the rest of the step still runs."""
        outputs = []
        for group in plan.groups:
            try:
                tokens: list[list[int]] | None = self._forward(group, plan.step)
                failed: list[SeqRecord] = []
            except InjectedFault as fault:  # those requests alone; the rest runs next time
                tokens, failed = None, fault.seqs
            except Exception:
                _log.exception("forward step failed; finishing its batch with error")
                tokens, failed = None, [r.seq for r in group]
            outputs.append(GroupOutput(group, tokens, failed, self._clock()))
        return outputs

    def _faulty(self, rows: list[Row], step: int) -> list[SeqRecord]:
        cfg = self.config
        if cfg.fault_every_n_steps and step % cfg.fault_every_n_steps == 0:
            return [r.seq for r in rows]
        return [r.seq for r in rows
                if r.seq.fault or r.seq.request.request_id in cfg.fault_request_ids]

    def _forward(self, rows: list[Row], step: int) -> list[list[int]]:
        """One batched forward; greedy tokens for every input position of every row."""
        bad = self._faulty(rows, step)
        if bad:
            raise InjectedFault(bad)
        batch = BatchInput.build(
            [(r.inputs, r.seq.n_computed, r.seq.life.blocks) for r in rows],
            self.cache, self.device)
        timer = self._timers[rows[0].prefill]
        before = timer.total
        timer.start()
        logits = self.model(batch, self.cache)
        greedy = (logits + self._allowed).argmax(dim=-1)
        timer.stop()
        out: list[list[int]] = greedy.tolist()  # the step's one host sync
        timer.collect()
        phase = "prefill" if rows[0].prefill else "decode"
        self._phase_seconds[phase] = timer.total - before
        self._phase_tokens[phase] = sum(len(r.inputs) for r in rows)
        return out
