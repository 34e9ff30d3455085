"""The engine's events cross the process boundary as typed structs.

Each kind round-trips through the wire encoder and the API process's typed decoder; a
malformed message (the old untyped tuple, an unknown kind, a reason no dashboard knows) is
refused at decoding with an error that names what is wrong, before any of it is applied.
"""

from __future__ import annotations

import dataclasses

import msgspec
import pytest

from servescope.instrumentation import FinishReason, RequestEvents, StepReport, TerminalState
from servescope.reference.client.engine_wire import (
    Admitted,
    Close,
    Decided,
    Event,
    Finish,
    FromEngine,
    LeftWaiting,
    Paused,
    PrefillDone,
    Push,
    Requeued,
    Resumed,
    Scheduled,
    StepMessage,
    WantCredit,
    decoder_from_engine,
    decoder_to_engine,
    encoder,
)
from servescope.reference.client.wire_events import RequestEncoder, StepEncoder
from servescope.reference.core.stats import EngineStats

EVERY_KIND: list[Event] = [
    Admitted("r1"), Scheduled("r1", 1.5), PrefillDone("r1", 2.0), Paused("r1", None),
    Resumed("r1", 3.0), Push("r1", [1, 2, 3]), WantCredit("r1"), Close("r1", True),
    Decided("r1", FinishReason.DEADLINE), Finish("r1", FinishReason.DEADLINE, 4.0),
    Finish("r2", FinishReason.CLIENT_CANCEL), LeftWaiting(), Requeued(),
    StepMessage(advanced=[("r1", 1, 0, 2.5)], now=2.5, kv_blocks_used=3, running=1,
                forward_seconds={"decode": 0.01}, step_tokens={"decode": 1})]


def _frame(events: list[object]) -> bytes:
    return encoder.encode(["step", events, None, ""])


def test_every_event_kind_round_trips_in_order() -> None:
    msg = decoder_from_engine.decode(encoder.encode(FromEngine("step", EVERY_KIND)))
    assert msg.events == EVERY_KIND
    assert len({type(e) for e in msg.events}) == len(Event.__args__)  # every kind once


def test_the_old_untyped_tuple_is_refused_with_the_field_named() -> None:
    with pytest.raises(msgspec.ValidationError, match=r"at most length .* at `\$\[1\]\[0\]`"):
        decoder_from_engine.decode(_frame([["P", "r1", [7], None]]))


def test_an_unknown_event_kind_is_refused() -> None:
    with pytest.raises(msgspec.ValidationError, match="Invalid value 'X'"):
        decoder_from_engine.decode(_frame([["X", "r1"]]))


def test_a_field_of_the_wrong_type_is_refused() -> None:
    with pytest.raises(msgspec.ValidationError, match="Expected `array`"):
        decoder_from_engine.decode(_frame([["P", "r1", "not tokens"]]))


def test_a_finish_reason_outside_the_closed_set_is_refused_both_ways() -> None:
    with pytest.raises(msgspec.ValidationError, match="Invalid enum value 'exploded'"):
        decoder_from_engine.decode(_frame([["F", "r1", "exploded", None]]))
    with pytest.raises(msgspec.ValidationError, match="Invalid enum value 'exploded'"):
        decoder_to_engine.decode(encoder.encode([[], [["r1", "exploded"]], [], [], False,
                                                 False]))


def test_the_step_message_carries_every_step_report_field() -> None:
    """A field added to StepReport must cross the boundary too (it once lost two)."""
    report = {f.name for f in dataclasses.fields(StepReport)}
    message = set(StepMessage.__struct_fields__)
    # the recorders travel as request ids inside ``advanced``; the API side counts its buffers
    assert report - message == {"buffered_tokens"}
    assert message - report == set()


def test_the_stats_snapshot_is_typed_on_the_wire() -> None:
    # the scheduler's own EngineStats crosses the boundary, not a list of its fields in order
    stats = EngineStats(10, 10, 0, 4, 0, 0, 0, 0, steps=3, forward_seconds=0.5)
    msg = decoder_from_engine.decode(encoder.encode(FromEngine("beat", [], stats)))
    assert msg.stats == stats and msg.stats.idle
    steps_as_text = [10, 10, 0, 4, 0, 0, 0, 0, 0, "3"]
    with pytest.raises(msgspec.ValidationError, match=r"`int`, got `str` - at `\$\[2\]\[9\]`"):
        decoder_from_engine.decode(encoder.encode(["beat", [], steps_as_text, ""]))


def test_the_engine_side_event_sink_encodes_each_report_as_its_typed_event() -> None:
    """The scheduler's reports in the engine process: each RequestEvents call and each step
    becomes its wire event, in order; the encoder keeps no terminal state of its own."""
    events: list[Event] = []
    rec: RequestEvents = RequestEncoder("r1", events)
    steps = StepEncoder(events)
    rec.admitted()
    rec.scheduled(now=1.5)
    rec.prefill_done(now=2.0)
    steps.step(StepReport(advanced=[(rec, 1, 0, 2.0), (rec, 2, 3)], now=2.5, running=1,
                          forward_seconds={"prefill": 0.01}, step_tokens={"prefill": 4}))
    rec.paused(now=3.0)
    rec.resumed(now=3.5)
    rec.stream_closed(4, 8)  # the API side records its own buffer's peak: no event
    rec.finish(FinishReason.STOP, now=4.0)
    rec.finish(FinishReason.DEADLINE, now=4.0)  # a late loser is replayed too
    assert decoder_from_engine.decode(encoder.encode(FromEngine("step", events))).events == [
        Admitted("r1"), Scheduled("r1", 1.5), PrefillDone("r1", 2.0),
        StepMessage(advanced=[("r1", 1, 0, 2.0), ("r1", 2, 3, 2.5)], now=2.5, running=1,
                    forward_seconds={"prefill": 0.01}, step_tokens={"prefill": 4}),
        Paused("r1", 3.0), Resumed("r1", 3.5), Finish("r1", FinishReason.STOP, 4.0),
        Finish("r1", FinishReason.DEADLINE, 4.0)]
    assert not isinstance(rec, TerminalState)
