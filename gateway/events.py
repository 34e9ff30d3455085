"""What the upstream's own answer says: tokens, finish reason and usage, read from its bytes.

The relay forwards the upstream's bytes unchanged; :class:`EventScanner` reads the same bytes
as server-sent events, one complete event at a time (an event ends at a blank line), and
returns the complete events of each read for the relay to write, holding back a partial tail
until its end arrives. Each ``data:`` payload that is a JSON object is inspected:

* tokens: one per choice whose chunk carries output (``text``, ``delta.content``,
  ``delta.reasoning_content``, ``delta.tool_calls``), raised to the engine's own count
  when a chunk carries ``usage.completion_tokens`` (vLLM's continuous usage, or the final usage
  chunk of ``stream_options.include_usage``): counts then equal the engine's;
* the finish reason of each choice (``servescope_finish_reason`` when the upstream is the
  reference server: its exact terminal state);
* ``usage`` (prompt and completion tokens), and an ``error`` object.

Anything else is malformed (:class:`MalformedStream`): a ``data:`` payload that is neither JSON
nor ``[DONE]``, or an event longer than ``max_event_bytes`` (the relay's buffer is bounded).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import msgspec

from servescope.instrumentation.status import FinishReason

__all__ = ["EventScanner", "MalformedStream", "StreamFacts", "finish_reason_of",
           "scan_whole"]

_BOUNDARY = re.compile(rb"\r\n\r\n|\n\n|\r\r")
_OUTPUT_KEYS = ("content", "reasoning_content", "tool_calls", "reasoning")
_decode = msgspec.json.decode


class MalformedStream(ValueError):
    """The upstream's stream cannot be read as OpenAI server-sent events."""


@dataclass
class StreamFacts:
    """What a stream said so far."""

    tokens: int = 0  # output tokens credited so far
    finish: str | None = None  # the upstream's finish reason (the last choice's)
    servescope_finish: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    error: dict[str, Any] | None = None
    done: bool = False  # data: [DONE] seen
    response_id: str | None = None


class EventScanner:
    """Splits upstream bytes into complete events and reads each one."""

    def __init__(self, max_event_bytes: int) -> None:
        self.max_event_bytes = max_event_bytes
        self.facts = StreamFacts()
        self._tail = b""
        #: Why the stream cannot be read further (set by :meth:`feed`), None while it can.
        self.failure: MalformedStream | None = None

    @property
    def pending(self) -> bytes:
        """A partial event still waiting for its end."""
        return self._tail

    def feed(self, data: bytes) -> tuple[bytes, int]:
        """The complete events ending in ``data`` (bytes to write, unchanged) and the output
        tokens they carry. Events after a malformed one are not returned: the relay writes
        the good ones before it, then finds the fault in :attr:`failure`."""
        buf = self._tail + data if self._tail else data
        end = 0
        tokens = 0
        try:
            if b"\r" in buf:  # CRLF or CR line ends: the general split
                for match in _BOUNDARY.finditer(buf):
                    tokens += self._event(buf[end:match.start()])
                    end = match.end()
            else:  # what engines send: LF only
                find = buf.find
                while (cut := find(b"\n\n", end)) >= 0:
                    tokens += self._event(buf[end:cut])
                    end = cut + 2
        except MalformedStream as exc:
            self.failure = exc
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
        if not isinstance(obj, dict):
            raise MalformedStream("a data field that is not a JSON object")
        return self._chunk(obj)

    def _chunk(self, obj: dict[str, Any]) -> int:
        facts = self.facts
        if "error" in obj and isinstance(obj["error"], dict | str):
            error = obj["error"]
            facts.error = error if isinstance(error, dict) else {"message": error}
        if facts.response_id is None and isinstance(obj.get("id"), str):
            facts.response_id = obj["id"]
        tokens = 0
        choices = obj.get("choices")
        if isinstance(choices, list):
            for choice in choices:
                if isinstance(choice, dict):
                    tokens += _choice_output(choice)
                    reason = choice.get("finish_reason")
                    if isinstance(reason, str):
                        facts.finish = reason
        own = obj.get("servescope_finish_reason")
        if isinstance(own, str):
            facts.servescope_finish = own
        usage = obj.get("usage")
        if isinstance(usage, dict):
            tokens = self._usage(usage, tokens)
        facts.tokens += tokens
        return tokens

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
    choices = obj.get("choices")
    if isinstance(choices, list):
        for choice in choices:
            if isinstance(choice, dict):
                facts.tokens += 1 if (choice.get("text") or choice.get("message")) else 0
                if isinstance(choice.get("finish_reason"), str):
                    facts.finish = choice["finish_reason"]
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


def finish_reason_of(facts: StreamFacts, stop_reasons: frozenset[str]) -> FinishReason:
    """The terminal state an upstream answer that ended on its own reports."""
    if facts.servescope_finish is not None:
        try:
            return FinishReason(facts.servescope_finish)
        except ValueError:
            pass
    if facts.error is not None:
        return FinishReason.ERROR
    if facts.finish == "length":
        return FinishReason.LENGTH
    if facts.finish in stop_reasons:
        return FinishReason.STOP
    if facts.finish is None and facts.done:
        return FinishReason.STOP  # [DONE] without a reason: the upstream says it is complete
    return FinishReason.ERROR if facts.finish is None else FinishReason.STOP
