"""The messages between the API process and the engine process (msgpack via msgspec).

One message per engine iteration each way, never one per token. The engine sends a
:class:`FromEngine` after every iteration that did something (and a heartbeat at least every
``heartbeat_s`` when idle); its ``events`` are that iteration's recorder hooks, stream pushes
and terminal decisions, in the order the scheduler made them: one struct per kind
(:data:`Event`, a union tagged by each struct's first array element), so the typed decoder
refuses a malformed event with a ``msgspec.ValidationError`` that names the field, before the
API process acts on any of the message. The API process answers with one :class:`ToEngine`
carrying everything it has to say since the last one: submissions, cancels, injected faults,
and the stream progress (popped, delivered, end seen) of every request whose reader moved:
the credits that let the engine push more.

Why msgspec over msgpack on pyzmq (as vLLM's engine core does): zmq gives message framing,
non-blocking sends, a poller that also watches a process sentinel and a wake-up fd, and a
socket that survives the peer's death without corrupting the other side; msgspec encodes a
typed struct of lists in microseconds. ``multiprocessing`` pipes would pickle (slower, and
unpickling runs arbitrary code from a crashed peer's half-written frame).

This module has no torch import: the API process loads it without the model (the one core
type it names, :class:`EngineStats`, is torch-free too).
"""

from __future__ import annotations

import msgspec

from servescope.instrumentation.status import FinishReason

from ..core.stats import EngineStats

__all__ = ["Admitted", "Close", "Decided", "Event", "Finish", "FromEngine", "LeftWaiting",
           "Paused", "PrefillDone", "Push", "Requeued", "Resumed", "Scheduled", "StepMessage",
           "Submit", "ToEngine", "WantCredit", "decoder_from_engine", "decoder_to_engine",
           "encoder"]


class Submit(msgspec.Struct, array_like=True):
    request_id: str
    prompt: list[int]
    max_tokens: int
    arrival: float
    deadline_at: float | None
    priority: str = "default"
    stop_token_ids: list[int] = []
    ignore_eos: bool = False
    operation: str = "text_completion"


class ToEngine(msgspec.Struct, array_like=True):
    submits: list[Submit] = []
    cancels: list[tuple[str, FinishReason]] = []  # (rid, finish reason)
    #: (rid, popped, delivered, end seen, writer attached, writer done) per reader that moved
    progress: list[tuple[str, int, int, bool, bool, bool]] = []
    faults: list[str] = []  # request ids whose next step raises (an error for them alone)
    crash: bool = False  # raise inside the next step, outside the scheduler's handling
    shutdown: bool = False


# --- the engine's events: one struct per kind, encoded as [tag, fields...] -----------------
class _Event(msgspec.Struct, array_like=True, gc=False, forbid_unknown_fields=True):
    """Base of every event: not sent itself (it has no tag). ``gc=False``: an event holds
    strings, numbers and lists of them, never a cycle, so the collector need not track the
    thousands a busy second makes. Extra trailing fields are refused, not ignored: both ends
    run the same code, so a longer event is a malformed one."""


class Decided(_Event, tag="D"):
    """The terminal decision (the first reason wins)."""

    request_id: str
    reason: FinishReason


class Push(_Event, tag="P"):
    """Committed tokens forwarded to the request's stream."""

    request_id: str
    tokens: list[int]


class Close(_Event, tag="C"):
    """No more tokens; ``drop``: discard what is buffered."""

    request_id: str
    drop: bool


class WantCredit(_Event, tag="W"):
    """Paused at the high watermark: tell the engine at the low one."""

    request_id: str


class Finish(_Event, tag="F"):
    """``RequestRecorder.finish`` (the winner, then late losers)."""

    request_id: str
    reason: FinishReason
    now: float | None = None


class Admitted(_Event, tag="A"):
    request_id: str


class Scheduled(_Event, tag="s"):
    request_id: str
    now: float | None = None


class PrefillDone(_Event, tag="f"):
    request_id: str
    now: float | None = None


class Paused(_Event, tag="p"):
    request_id: str
    now: float | None = None


class Resumed(_Event, tag="r"):
    request_id: str
    now: float | None = None


class LeftWaiting(_Event, tag="L"):
    """A request left the waiting queue (admitted or ended)."""


class Requeued(_Event, tag="Q"):
    """A preempted request waits again."""


class StepMessage(_Event, tag="S"):
    """One ``Telemetry.step`` across the boundary: every field of ``StepReport`` but the
    recorders (request ids instead) and the buffered tokens (the API side counts its own
    buffers). A field added to ``StepReport`` belongs here too: a test compares the two."""

    advanced: list[tuple[str, int, int, float]]  # (rid, committed, proposed, commit time)
    now: float
    kv_blocks_used: int | None = None
    kv_blocks_total: int | None = None
    running: int | None = None
    waiting: int | None = None
    paused: int | None = None
    prefix_queries: int = 0
    prefix_hits: int = 0
    preemptions: int = 0
    forward_seconds: dict[str, float] = {}
    step_tokens: dict[str, int] = {}


#: Every event the engine sends; the API process replays them in order.
Event = (Decided | Push | Close | WantCredit | Finish | Admitted | Scheduled | PrefillDone
         | Paused | Resumed | LeftWaiting | Requeued | StepMessage)


class FromEngine(msgspec.Struct, array_like=True):
    kind: str  # "ready" | "step" | "beat" | "fatal" | "bye"
    events: list[Event] = []
    stats: EngineStats | None = None  # the scheduler's snapshot after this iteration
    detail: str = ""  # "ready": the device; "fatal": the error


encoder = msgspec.msgpack.Encoder()
decoder_to_engine = msgspec.msgpack.Decoder(ToEngine)
decoder_from_engine = msgspec.msgpack.Decoder(FromEngine)
