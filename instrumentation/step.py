"""One scheduler iteration as the hooks hear it, and what an engine reports it to.

Neither imports an exporter: the engine core builds :class:`StepReport` and hands it to a
:class:`StepSink` (the process's :class:`~.telemetry.Telemetry` in process; the engine
process's event writer in its own process) without loading prometheus_client or OpenTelemetry.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .request_recorder import RequestRecorder

__all__ = ["StepReport", "StepSink"]


@dataclass(slots=True)
class StepReport:
    """One scheduler iteration, reported in one call.

    ``advanced`` holds (recorder, committed, proposed) for each request the step advanced,
    optionally with a fourth item: when its tokens were committed (the clock right after its
    sampling; default ``now``), so that TTFT and TPOT never include the rest of the iteration;
    capacity fields are levels after the step (None: unchanged); ``prefix_*`` and
    ``preemptions`` are increments since the previous report. ``forward_seconds`` and
    ``step_tokens`` map a phase (``prefill``/``decode``) to the forward time and the tokens of
    that phase's forward in this step (absent: the phase did not run).
    """

    advanced: Sequence[tuple[RequestRecorder, int, int] |
                       tuple[RequestRecorder, int, int, float]] = ()
    now: float | None = None
    kv_blocks_used: int | None = None
    kv_blocks_total: int | None = None
    running: int | None = None
    waiting: int | None = None
    paused: int | None = None
    buffered_tokens: int | None = None
    prefix_queries: int = 0
    prefix_hits: int = 0
    preemptions: int = 0
    forward_seconds: Mapping[str, float] = field(default_factory=dict)
    step_tokens: Mapping[str, int] = field(default_factory=dict)


class StepSink(Protocol):
    """What a scheduler reports to: a clock and one call per iteration."""

    clock: Callable[[], float]

    def step(self, report: StepReport) -> None: ...
