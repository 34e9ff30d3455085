"""The usage an answer reports, on both answer shapes: what a client is billed by."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from servescope.instrumentation.status import FinishReason
from servescope.reference.transport import sse


class _Handle:
    """An engine request that generated 10 tokens, of which the answer gets 6 (two chunks
    of 3): the rest were committed after the request ended."""

    request_id, prompt_tokens, completion_tokens = "cmpl-1", 3, 10
    engine_lost_retry_after_s = None

    def __init__(self, reason: FinishReason) -> None:
        self.finish_reason = reason
        self.chunks = [[65, 66, 67], [68, 69, 70]]

    async def next_chunk(self, max_tokens: int = 64) -> list[int] | None:
        return self.chunks.pop(0) if self.chunks else None

    def clock(self) -> float:
        return 0.0

    def written(self, n: int, now: float) -> None:
        pass

    def delivered(self, n: int) -> None:
        pass

    def attach_writer(self) -> None:
        pass


class _Bytes:
    def feed(self, ids: list[int]) -> str:
        return bytes(ids).decode()

    def flush(self) -> str:
        return ""


def _usage(stream: bool, reason: FinishReason) -> tuple[str, dict[str, Any]]:
    messages: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        messages.append(message)

    kind = sse.EventStreamResponse if stream else sse.WholeResponse
    shape = sse.Shape("completion", "cmpl-1", "m", include_usage=True)
    asyncio.run(kind(_Handle(reason), shape, _Bytes(), 4, {}).write(send))  # type: ignore[arg-type]
    body = b"".join(m.get("body", b"") for m in messages).decode()
    if not stream:
        answer = json.loads(body)
        return answer["choices"][0]["text"], answer["usage"]
    events = [json.loads(line[6:]) for line in body.split("\n")
              if line.startswith("data: {")]
    return "".join(c["text"] for e in events for c in e["choices"]), events[-1]["usage"]


@pytest.mark.parametrize("stream", [False, True])
def test_a_deadlines_usage_counts_the_tokens_its_answer_carried(stream: bool) -> None:
    """Tokens generated after the deadline are discarded, never sent: usage counted them."""
    text, usage = _usage(stream, FinishReason.DEADLINE)
    assert text == "ABCDEF"
    assert usage == {"prompt_tokens": 3, "completion_tokens": 6, "total_tokens": 9}


@pytest.mark.parametrize("stream", [False, True])
def test_a_finished_answers_usage_is_what_the_engine_generated(stream: bool) -> None:
    """A stop or length answer reports the engine's count (its stop token included)."""
    _, usage = _usage(stream, FinishReason.LENGTH)
    assert usage["completion_tokens"] == 10
