"""What the upstream's own answer says: tokens, finish reason and usage, read from its bytes.

The relay forwards the upstream's bytes unchanged; :class:`EventScanner` reads the same bytes
as server-sent events, one complete event at a time (an event ends at a blank line), and
returns the complete events of each read for the relay to write, holding back a partial tail
until its end arrives. Each ``data:`` payload that is a JSON object is inspected:

* tokens: one per choice whose chunk carries output (``text``, ``delta.content``,
  ``delta.reasoning_content``, ``delta.tool_calls``), raised to the engine's own count
  when a chunk carries ``usage.completion_tokens`` (vLLM's continuous usage, or the final usage
  chunk of ``stream_options.include_usage``): counts then equal the engine's;
* the finish reason of each choice, as the engine spelled it (``servescope_finish_reason``
  when the upstream is the reference server: its exact terminal state), mapped onto the
  closed set of terminal states by :data:`FINISH_REASONS`;
* ``usage`` (prompt and completion tokens), and an error: ``{"error": {...}}`` or vLLM's
  older, unwrapped ``{"object": "error", "message": ...}``.

Anything else is malformed (:class:`MalformedStream`): a ``data:`` payload that is neither JSON
nor ``[DONE]``, or an event longer than ``max_event_bytes`` (the relay's buffer is bounded).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec

from servescope.instrumentation.labels import label_shape_ok
from servescope.instrumentation.status import FinishReason
from servescope.instrumentation.terminal import Once

__all__ = ["FINISH_REASONS", "EventScanner", "MalformedStream", "StreamFacts",
           "finish_reason_of", "scan_whole", "upstream_error_type"]

_log = logging.getLogger("servescope.gateway.events")

_BOUNDARY = re.compile(rb"\r\n\r\n|\n\n|\r\r")
_OUTPUT_KEYS = ("content", "reasoning_content", "tool_calls", "reasoning")
_decode = msgspec.json.decode


class MalformedStream(ValueError):
    """The upstream's stream cannot be read as OpenAI server-sent events."""


@dataclass
class StreamFacts:
    """What a stream said so far."""

    tokens: int = 0  # output tokens credited so far
    #: The engine's finish_reason of each choice that has one, by choice index, as sent.
    finishes: dict[int, str] = field(default_factory=dict)
    servescope_finish: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    error: dict[str, Any] | None = None
    done: bool = False  # data: [DONE] seen
    response_id: str | None = None
    #: The first chunk's object, created and model: the shape of a closing chunk the gateway
    #: writes itself (a deadline ends the stream as the upstream's own last chunk would).
    shape: tuple[str, Any, Any] | None = None


_BOM = b"\xef\xbb\xbf"


class EventScanner:
    """Splits upstream bytes into complete events and reads each one."""

    def __init__(self, max_event_bytes: int) -> None:
        self.max_event_bytes = max_event_bytes
        self.facts = StreamFacts()
        self._tail = b""
        self._begun = Once()  # the first bytes have come (a byte order mark is skipped)
        #: Why the stream cannot be read further (set by :meth:`feed`), None while it can.
        self.failure: MalformedStream | None = None
        #: The last :meth:`feed`'s events that carry tokens: where each ends in the bytes it
        #: returned, and its tokens (the relay credits a read's tokens event by event as the
        #: client's TCP acknowledges them, not all at the read's end).
        self.ends: list[tuple[int, int]] = []

    @property
    def pending(self) -> bytes:
        """A partial event still waiting for its end."""
        return self._tail

    def feed(self, data: bytes) -> tuple[bytes, int]:
        """The complete events ending in ``data`` (bytes to write, unchanged) and the output
        tokens they carry. Events after a malformed one are not returned: the relay writes
        the good ones before it, then finds the fault in :attr:`failure`. Nothing after
        ``[DONE]`` is returned or read: the stream ended there for every client."""
        if self.facts.done:
            self.ends = []
            return b"", 0
        buf = self._tail + data if self._tail else data
        # the stream's first bytes: a byte order mark is skipped, as the format says
        if not self._begun.is_set and self._begun.claim() and buf.startswith(_BOM):
            out, tokens = self._events(buf[len(_BOM):])
            self.ends = [(end + len(_BOM), n) for end, n in self.ends]
            return _BOM + out, tokens
        return self._events(buf)

    def _events(self, buf: bytes) -> tuple[bytes, int]:
        end = 0
        tokens = 0
        facts = self.facts
        ends: list[tuple[int, int]] = []
        self.ends = ends
        try:
            if b"\r" in buf:  # CRLF or CR line ends: the general split
                for match in _BOUNDARY.finditer(buf):
                    if n := self._event(buf[end:match.start()]):
                        tokens += n
                        ends.append((match.end(), n))
                    end = match.end()
                    if facts.done:
                        break
            else:  # what engines send: LF only
                find = buf.find
                while (cut := find(b"\n\n", end)) >= 0:
                    if n := self._event(buf[end:cut]):
                        tokens += n
                        ends.append((cut + 2, n))
                    end = cut + 2
                    if facts.done:
                        break
        except MalformedStream as exc:
            self.failure = exc
            self._tail = b""
            return buf[:end], tokens
        if facts.done:
            self._tail = b""
            return buf[:end], tokens
        self._tail = buf[end:]
        if len(self._tail) > self.max_event_bytes:
            self.failure = MalformedStream(f"an event longer than {self.max_event_bytes} bytes")
        return buf[:end], tokens

    def _event(self, raw: bytes) -> int:
        if raw.startswith(b"data: ") and b"\n" not in raw and b"\r" not in raw:
            return self._payload(raw[6:])  # one data line: the usual event
        data: list[bytes] = []
        for line in raw.splitlines():
            if line.startswith(b"data:"):
                value = line[5:]
                data.append(value[1:] if value.startswith(b" ") else value)
        if not data:
            return 0  # a comment (keep-alive) or an event without data
        return self._payload(b"\n".join(data))

    def _payload(self, payload: bytes) -> int:
        if payload.strip() == b"[DONE]":
            self.facts.done = True
            return 0
        try:
            obj = _decode(payload)  # msgspec: a fifth of json.loads's time, per chunk
        except msgspec.DecodeError:
            raise MalformedStream("a data field that is not JSON") from None
        if obj is None:
            return 0  # llama.cpp opens a stream of several prompts with "data: null"
        if not isinstance(obj, dict):
            raise MalformedStream("a data field that is not a JSON object")
        return self._chunk(obj)

    def _chunk(self, obj: dict[str, Any]) -> int:
        facts = self.facts
        if "error" in obj or obj.get("object") == "error":  # rare: the call only then
            facts.error = _error_of(obj) or facts.error
        if facts.response_id is None and isinstance(obj.get("id"), str):
            facts.response_id = obj["id"]
            kind = obj.get("object")
            if isinstance(kind, str):
                facts.shape = (kind, obj.get("created"), obj.get("model"))
        tokens = 0
        choices = obj.get("choices")
        if isinstance(choices, list):
            for position, choice in enumerate(choices):
                if isinstance(choice, dict):
                    tokens += _choice_output(choice)
                    if choice.get("finish_reason") is not None:
                        _note_finish(facts, choice, position)
        own = obj.get("servescope_finish_reason")
        if isinstance(own, str):
            facts.servescope_finish = own
        usage = obj.get("usage")
        if isinstance(usage, dict):
            tokens = self._usage(usage, tokens)
        elif "timings" in obj:  # llama.cpp's last chunk, with no usage: its own counts
            tokens = self._timings(obj["timings"], tokens)
        facts.tokens += tokens
        return tokens

    def _timings(self, timings: object, tokens: int) -> int:
        """llama.cpp's ``timings`` read as usage: ``predicted_n`` tokens generated, and
        ``prompt_n`` evaluated plus ``cache_n`` reused, the prompt. A chat stream without
        ``include_usage`` carries no usage, and llama.cpp sends a token it holds back (part of
        a UTF-8 character) in the next token's chunk: one token per chunk reads short."""
        if not isinstance(timings, dict):
            return tokens
        predicted, evaluated, cached = (timings.get("predicted_n"), timings.get("prompt_n"),
                                        timings.get("cache_n"))
        usage: dict[str, Any] = {"completion_tokens": predicted}
        prompt = [n for n in (evaluated, cached) if isinstance(n, int) and _count(n)]
        if prompt:
            usage["prompt_tokens"] = sum(prompt)
        return self._usage(usage, tokens)

    def _usage(self, usage: dict[str, Any], tokens: int) -> int:
        """Tokens to credit for a chunk that carries the engine's own count."""
        facts = self.facts
        prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
        if _count(prompt):
            facts.prompt_tokens = prompt
        if isinstance(completion, int) and _count(completion):
            facts.completion_tokens = completion
            return max(tokens, completion - facts.tokens)
        return tokens


def _error_of(obj: dict[str, Any]) -> dict[str, Any] | None:
    """The error an event or answer reports: ``{"error": {...}}`` (or a bare message), or
    the unwrapped form older vLLM streams mid-answer, ``{"object": "error", ...}``."""
    error = obj.get("error")
    if isinstance(error, dict):
        return error
    if isinstance(error, str):
        return {"message": error}
    return obj if obj.get("object") == "error" else None


def _note_finish(facts: StreamFacts, choice: dict[str, Any], position: int) -> None:
    reason = choice.get("finish_reason")
    if isinstance(reason, str):
        index = choice.get("index")
        facts.finishes[index if isinstance(index, int) else position] = reason


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _choice_output(choice: dict[str, Any]) -> int:
    """1 when the chunk carries output for this choice (one token per chunk, as engines
    stream), else 0."""
    if choice.get("text"):
        return 1
    delta = choice.get("delta")
    if isinstance(delta, dict) and any(delta.get(k) for k in _OUTPUT_KEYS):
        return 1
    return 0


def scan_whole(body: bytes) -> StreamFacts:
    """The facts of a non-streamed answer (one JSON object); empty facts when it is not one."""
    facts = StreamFacts()
    try:
        obj = _decode(body)
    except msgspec.DecodeError:
        return facts
    if not isinstance(obj, dict):
        return facts
    facts.error = _error_of(obj)
    choices = obj.get("choices")
    if isinstance(choices, list):
        for position, choice in enumerate(choices):
            if isinstance(choice, dict):
                facts.tokens += 1 if (choice.get("text") or choice.get("message")) else 0
                _note_finish(facts, choice, position)
    usage = obj.get("usage")
    if isinstance(usage, dict):
        if _count(usage.get("prompt_tokens")):
            facts.prompt_tokens = usage["prompt_tokens"]
        if _count(usage.get("completion_tokens")):
            facts.completion_tokens = facts.tokens = usage["completion_tokens"]
    if isinstance(obj.get("servescope_finish_reason"), str):
        facts.servescope_finish = obj["servescope_finish_reason"]
    facts.done = True
    return facts


#: Each finish_reason an engine sends as a terminal state of the closed set
#: (instrumentation/status.py). A natural end is ``stop``: the model's end of sequence, a
#: stop sequence, a tool or function call (the model chose to hand over). Running out of
#: ``max_tokens`` is ``length``. An end the engine imposed is ``error``: an abort (vLLM and
#: SGLang abort a request they cannot finish), an engine error, a cancellation, and a content
#: filter (the answer was withheld or cut by policy, so it is no success to count as goodput;
#: the set has no "filtered" state and ``rejected`` means refused before admission). The span's
#: ``error.type`` (:func:`upstream_error_type`) tells these causes apart.
FINISH_REASONS: Mapping[str, FinishReason] = {
    "stop": FinishReason.STOP,
    "eos": FinishReason.STOP,
    "eos_token": FinishReason.STOP,  # TGI
    "stop_sequence": FinishReason.STOP,  # TGI
    "end_turn": FinishReason.STOP,
    "tool_calls": FinishReason.STOP,
    "function_call": FinishReason.STOP,
    "tool_use": FinishReason.STOP,
    "length": FinishReason.LENGTH,
    "max_tokens": FinishReason.LENGTH,
    "abort": FinishReason.ERROR,  # vLLM, SGLang
    "error": FinishReason.ERROR,  # vLLM
    "cancelled": FinishReason.ERROR,
    "canceled": FinishReason.ERROR,
    "content_filter": FinishReason.ERROR,
}
#: Worst first: the request's state when its choices (n > 1) ended differently.
_SEVERITY = (FinishReason.ERROR, FinishReason.LENGTH, FinishReason.STOP)
#: Unknown finish reasons already logged (each once; the set is bounded).
_UNKNOWN_SEEN: set[str] = set()


def finish_reason_of(facts: StreamFacts) -> FinishReason:
    """The terminal state an upstream answer that ended on its own reports: the reference
    server's own state, else error when the engine sent an error, else the worst of its
    choices' finish reasons (see :data:`FINISH_REASONS`)."""
    if facts.servescope_finish is not None:
        try:
            return FinishReason(facts.servescope_finish)
        except ValueError:
            pass
    if facts.error is not None:
        return FinishReason.ERROR
    if not facts.finishes:
        # [DONE] without a reason: the upstream says it is complete
        return FinishReason.STOP if facts.done else FinishReason.ERROR
    ends = {_terminal(reason) for reason in facts.finishes.values()}
    return next(state for state in _SEVERITY if state in ends)


def upstream_error_type(facts: StreamFacts) -> str:
    """The span's ``error.type`` of an answer :func:`finish_reason_of` finds ``error``: the
    engine's error event, or the finish reason that made it one (a key of the table: a short
    fixed name)."""
    if facts.error is not None:
        return "upstream_error_event"
    for reason in facts.finishes.values():
        if FINISH_REASONS.get(reason) is FinishReason.ERROR:
            return f"upstream_finish_{reason}"
    return "upstream_error"


def _terminal(reason: str) -> FinishReason:
    state = FINISH_REASONS.get(reason)
    if state is not None:
        return state
    # An engine's new spelling: the answer ended on its own, so stop, but said once in the
    # log (the gateway has no anomaly counter; a label made of it would be unbounded).
    if reason not in _UNKNOWN_SEEN and len(_UNKNOWN_SEEN) < 64:
        _UNKNOWN_SEEN.add(reason)
        # the name only when it has a name's shape (the span's rule): the upstream chose the
        # value, and a value glued into a word is one no detector reads
        shown = reason if label_shape_ok(reason) else f"<{len(reason)} characters, not a name>"
        _log.warning("upstream finish_reason %r is not in the gateway's table: counted as "
                     "stop", shown)
    return FinishReason.STOP
