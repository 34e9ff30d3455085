"""One step between the scheduler and the model runner: what to run, and what came out.

:meth:`Scheduler.schedule` writes a :class:`StepPlan` (one group of :class:`Row` per forward),
:class:`~.model_runner.ModelRunner` answers one :class:`GroupOutput` per group, and
:meth:`Scheduler.update` applies them. Plain data: a test may write either side itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .sequence import SeqRecord

__all__ = ["GroupOutput", "InjectedCrash", "InjectedFault", "Row", "StepPlan"]


class InjectedFault(RuntimeError):
    """A worker error raised on purpose (config knobs or :meth:`Engine.inject_fault`)."""

    def __init__(self, seqs: list[SeqRecord]) -> None:
        super().__init__(f"injected worker fault for {len(seqs)} request(s)")
        self.seqs = seqs


class InjectedCrash(RuntimeError):
    """An engine failure raised on purpose inside a step, past the step's own handling (the
    ``crash`` signal: a fault test's way to make the engine process exit)."""


@dataclass
class Row:
    """One request's inputs to a forward: a prefill chunk, or the last token and its drafts."""

    seq: SeqRecord
    inputs: list[int]
    drafts: list[int]
    prefill: bool


@dataclass
class StepPlan:
    """What one step runs: the rows of each forward (prefill, then decode), decided at
    ``now`` by :meth:`Scheduler.schedule`; ``step`` counts the steps run before it."""

    groups: list[list[Row]]
    now: float
    step: int = 0


@dataclass
class GroupOutput:
    """One forward's result: greedy tokens per input position of each row (None when the
    forward failed), the requests to end with ``error``, and when the tokens were ready (the
    clock right after sampling: their commit time)."""

    rows: list[Row]
    tokens: list[list[int]] | None
    failed: list[SeqRecord]
    done_at: float
