"""Scheduler-owned state of one request."""

from __future__ import annotations

from dataclasses import InitVar, dataclass, field
from enum import Enum

from servescope.instrumentation.step import RequestEvents
from servescope.instrumentation.terminal import Once

from .lifecycle import Lifecycle
from .request import GenerationRequest
from .stream import StreamBuffer

__all__ = ["SeqRecord", "SeqState", "WriterProgress"]


class SeqState(Enum):
    WAITING = "waiting"
    RUNNING = "running"
    # decided stop/length; KV and slot are released, the writer is still taking the tail. The
    # recorder is finished once the writer has seen the end and reported every popped token
    # delivered, so late deliveries are not miscounted as discarded.
    DRAINING = "draining"
    DONE = "done"


@dataclass(eq=False)
class WriterProgress:
    """What one request's writer reports: tokens delivered, whether a writer that reports
    them is attached, and that it is done (it reports no more). Only the writer's thread
    writes it. In process the scheduler reads the handle's own; the engine process reads a
    copy kept up to date by the progress messages."""

    delivered: int = 0
    attached: bool = False
    done: Once = field(default_factory=Once)  # claimed once


@dataclass(eq=False)
class SeqRecord:
    """Scheduler-owned state of one request (only the scheduler thread mutates it)."""

    request: GenerationRequest
    life: Lifecycle
    stream: StreamBuffer
    arrival: float
    deadline_at: float | None
    tokens: list[int] = field(default_factory=list)
    n_prompt: int = 0
    limit: int = 0  # total length at which generation stops (max_tokens or the context)
    n_computed: int = 0  # leading tokens whose keys/values are in the cache
    n_registered: int = 0  # leading full blocks registered in the prefix index
    parent_hash: bytes = b""
    state: SeqState = SeqState.WAITING
    prefilled: bool = False
    preemptions: int = 0
    paused_at: float | None = None
    decided_at: float | None = None  # stop/length: the last token's commit time (the end)
    drain_since: float | None = None
    drain_progress: tuple[int, int] = (0, 0)
    fault: bool = False
    committed: int = 0
    proposed: int = 0
    writer: WriterProgress = field(default_factory=WriterProgress)
    #: what the step report names this request by (default: its events). The in-process
    #: engine gives the API side's recorder, resolved once here rather than once per step,
    #: so each step's report reaches the telemetry as the scheduler built it
    report_as: InitVar[RequestEvents | None] = None
    step_key: RequestEvents = field(init=False)

    def __post_init__(self, report_as: RequestEvents | None) -> None:
        self.step_key = self.life.recorder if report_as is None else report_as

    @property
    def fully_delivered(self) -> bool:
        """The writer saw the end and reported every popped token as delivered, or it is done
        (what it did not report is discarded)."""
        writer = self.writer
        return writer.done.is_set or (self.stream.drained and
                                      writer.delivered >= self.stream.popped)

    @property
    def recorder(self) -> RequestEvents:
        return self.life.recorder

    @property
    def prefill_target(self) -> int:
        """Tokens whose KV prefill computes: the prompt, or after a preemption everything
        known but the last token (which is the next decode input)."""
        return self.n_prompt if self.committed == 0 else len(self.tokens) - 1
