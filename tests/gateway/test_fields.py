"""The request fields the gateway reads: the same as ``json.loads`` would give, for every
body, whichever parser read it."""

from __future__ import annotations

import json

import pytest

from servescope.gateway.fields import request_fields


@pytest.mark.parametrize(("body", "expected"), [
    (b'{"model": "m", "prompt": "x", "priority": "high", "deadline_s": 2.5}',
     {"model": "m", "priority": "high", "deadline_s": 2.5}),
    (b'{"prompt": "x"}', {}),
    (b'{"model": null, "priority": 5}', {"model": None, "priority": 5}),
    (b'{"model": ["a"], "deadline_s": "soon"}', {"model": ["a"], "deadline_s": "soon"}),
    (b'{"model": "a", "model": "b"}', {"model": "b"}),  # the last one, as json.loads
    (b'{"x": {"model": "inner"}}', {}),  # top-level fields only
    # what msgspec refuses and json.loads reads: the same fields
    (b'{"model": "m", "temperature": NaN}', {"model": "m"}),
    (b'{"model": "m", "seed": 123456789012345678901234567890}', {"model": "m"}),
    (b'{"deadline_s": 1e400}', {"deadline_s": float("inf")}),
    # not an object, not JSON: nothing read (the upstream judges the body)
    (b"[1, 2]", {}),
    (b'"model"', {}),
    (b"not json", {}),
    (b"", {}),
    (b"\xff\xfe{", {}),
    (b"[" * 100_000 + b"]" * 100_000, {}),
])
def test_fields_read_as_json_loads_reads_them(body: bytes, expected: dict[str, object]) -> None:
    assert request_fields(body) == expected


def test_a_long_chat_body_gives_only_its_fields() -> None:
    messages = [{"role": "user", "content": f"turn {i} " + "word " * 50} for i in range(400)]
    body = json.dumps({"messages": messages, "model": "llama", "stream": True}).encode()
    assert request_fields(body) == {"model": "llama"}
