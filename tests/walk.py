"""Walk one request through the recorder, in the order a server reports its lifecycle.

Tests that need "a request that happened" call ``walk_request`` instead of copying the
arrival → admitted → scheduled → prefill → step → deliveries → finish sequence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from servescope.instrumentation import FinishReason, StepReport, Telemetry
from servescope.instrumentation.request_recorder import RequestRecorder

PAUSE = "pause"  # in ``deliveries``: the stream pauses, the clock moves by durations["pause"]


class SettableClock(Protocol):
    now: float


def walk_request(tel: Telemetry, request_id: str, *, prompt_tokens: int = 8,
                 committed: int = 3, discarded: int = 0,
                 deliveries: Sequence[int | str] | None = None,
                 reason: FinishReason = FinishReason.STOP,
                 carrier: Mapping[str, str] | None = None,
                 clock: SettableClock | None = None,
                 durations: Mapping[str, float] | None = None,
                 **request: Any) -> RequestRecorder:
    """Record one request: arrival, admission, scheduling, prefill, one engine step that
    commits ``committed`` tokens (and discards ``discarded``), the ``deliveries`` (token
    counts, with ``PAUSE`` where the stream pauses; default: every committed token at once),
    then the finish with ``reason``. Where ``clock`` is given it moves by ``durations``
    ("queue", "prefill", "pause") between the phases, so phase spans have known lengths."""
    moves = durations or {}

    def advance(phase: str) -> None:
        if clock is not None:
            clock.now += moves.get(phase, 0.0)

    kwargs: dict[str, Any] = {"prompt_tokens": prompt_tokens, **request}
    if carrier is not None:
        kwargs["carrier"] = carrier
    rec = tel.request(request_id, **kwargs)
    rec.admitted()
    advance("queue")
    rec.scheduled()
    advance("prefill")
    rec.prefill_done()
    tel.step(StepReport(advanced=((rec, committed, discarded),)))
    for delivery in (committed,) if deliveries is None else deliveries:
        if delivery == PAUSE:
            rec.paused()
            advance("pause")
            rec.resumed()
        else:
            rec.delivered(int(delivery))
    rec.finish(reason)
    return rec
