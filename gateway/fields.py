"""The few fields of a request body the gateway reads itself: the model (a label), the
priority and the deadline. The body is forwarded unchanged; the upstream judges it.

A prompt can be most of a megabyte, and this parse sits on the request's way to the engine.
msgspec reads the body into a struct of those fields only: every other field is validated as
JSON and skipped, never built into Python objects (on a 100 KB chat body about a tenth of
``json.loads``'s time). A body msgspec refuses (``NaN``, an integer past 64 bits, not an
object) is read by ``json.loads`` as before, so what the gateway sees does not change.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

__all__ = ["request_fields"]


class _Read(msgspec.Struct):
    """The fields read; any JSON value each (their checks are the readers')."""

    model: Any = msgspec.UNSET
    priority: Any = msgspec.UNSET
    deadline_s: Any = msgspec.UNSET


_decoder = msgspec.json.Decoder(_Read)
_NAMES = _Read.__struct_fields__


def request_fields(body: bytes) -> dict[str, Any]:
    """The body's top-level fields the gateway reads when it is a JSON object (else none)."""
    try:
        read = _decoder.decode(body)
    except (msgspec.DecodeError, RecursionError):
        return _loaded(body)
    return {name: value for name in _NAMES
            if (value := getattr(read, name)) is not msgspec.UNSET}


def _loaded(body: bytes) -> dict[str, Any]:
    try:
        obj = json.loads(body)
    except (ValueError, RecursionError):
        return {}
    if not isinstance(obj, dict):
        return {}
    return {name: obj[name] for name in _NAMES if name in obj}
