"""The messages between the API process and the engine process (msgpack via msgspec).

One message per engine iteration each way, never one per token. The engine sends a
:class:`FromEngine` after every iteration that did something (and a heartbeat at least every
``heartbeat_s`` when idle); its ``events`` are that iteration's recorder hooks, stream pushes
and terminal decisions, in the order the scheduler made them, as plain tuples
``(code, request_id, a, b)``. The API process answers with one :class:`ToEngine` carrying
everything it has to say since the last one: submissions, cancels, injected faults, and the
stream progress (popped, delivered, end seen) of every request whose reader moved: the credits
that let the engine push more.

Why msgspec over msgpack on pyzmq (as vLLM's engine core does): zmq gives message framing,
non-blocking sends, a poller that also watches a process sentinel and a wake-up fd, and a
socket that survives the peer's death without corrupting the other side; msgspec encodes a
typed struct of lists in microseconds. ``multiprocessing`` pipes would pickle (slower, and
unpickling runs arbitrary code from a crashed peer's half-written frame).

This module has no torch import: the API process loads it without the model.
"""

from __future__ import annotations

from typing import Any

import msgspec

__all__ = ["EV", "FromEngine", "Submit", "ToEngine", "decoder_from_engine",
           "decoder_to_engine", "encoder"]


class EV:
    """Event codes (first element of each event tuple)."""

    DECIDED = "D"  # (rid, reason): the terminal decision (first wins)
    PUSH = "P"  # (rid, tokens): committed tokens forwarded to the request's stream
    CLOSE = "C"  # (rid, drop): no more tokens; drop: discard what is buffered
    WANT_CREDIT = "W"  # (rid,): paused at the high watermark; tell me at the low one
    FINISH = "F"  # (rid, reason, now): RequestRecorder.finish (winner, then late losers)
    ADMITTED = "A"  # (rid,)
    SCHEDULED = "s"  # (rid, now)
    PREFILL_DONE = "f"  # (rid, now)
    PAUSED = "p"  # (rid, now)
    RESUMED = "r"  # (rid, now)
    LEFT_WAITING = "L"  # ("",): a request left the waiting queue (admitted or ended)
    REQUEUED = "Q"  # ("",): a preempted request waits again
    STEP = "S"  # ("", StepMessage): one Telemetry.step


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
    cancels: list[tuple[str, str]] = []  # (rid, finish reason)
    #: (rid, popped, delivered, end seen, writer attached, writer done) per reader that moved
    progress: list[tuple[str, int, int, bool, bool, bool]] = []
    faults: list[str] = []  # request ids whose next step raises (an error for them alone)
    crash: bool = False  # raise inside the next step, outside the scheduler's handling
    shutdown: bool = False


class FromEngine(msgspec.Struct, array_like=True):
    kind: str  # "ready" | "step" | "beat" | "fatal" | "bye"
    events: list[tuple[str, str, Any, Any]] = []
    stats: list[Any] = []  # EngineStats fields, in order
    detail: str = ""  # "ready": the device; "fatal": the error


class StepMessage(msgspec.Struct, array_like=True):
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


encoder = msgspec.msgpack.Encoder()
decoder_to_engine = msgspec.msgpack.Decoder(ToEngine)
decoder_from_engine = msgspec.msgpack.Decoder(FromEngine)
