"""The OpenAI wire format: request validation and response shapes, with no HTTP in it.

Validation is explicit rather than schema-driven so that every refusal names its field in
OpenAI's error shape ``{"error": {"message", "type", "param", "code"}}``. Fields the API defines
are type-checked even when this server ignores them (``temperature`` must still be a number);
fields it does not define are ignored, as vLLM and most OpenAI-compatible servers do.

Extensions (all optional):

* ``deadline_s`` (body, seconds, > 0) or the ``x-servescope-deadline-s`` header: an overall
  per-request deadline, relative to arrival. The request ends with finish reason ``deadline``
  (OpenAI ``finish_reason: "length"``) when it runs out.
* ``ignore_eos`` (body, bool): keep generating past the end-of-sequence token.
* ``priority`` (body, a class name like ``interactive`` or an integer as vLLM sends it) or the
  ``x-servescope-priority`` header: the request's priority class, the ``priority`` label of the
  latency and request metrics (a class not declared in the configuration folds into ``other``).
* every final chunk and non-streamed response carries ``servescope_finish_reason``, the
  server's own terminal state (OpenAI's field cannot tell a deadline from a length stop).
"""

from __future__ import annotations

import json
import math
import re
import reprlib
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "DEADLINE_HEADER",
    "PRIORITY_HEADER",
    "CompletionParams",
    "RequestError",
    "chat_chunk",
    "chat_response",
    "completion_chunk",
    "completion_response",
    "control_headers_once",
    "deadline_of",
    "echoed",
    "error_body",
    "parse_body",
    "parse_chat",
    "parse_completion",
    "preview",
    "render_chat_prompt",
    "usage",
]

DEADLINE_HEADER = "x-servescope-deadline-s"
PRIORITY_HEADER = "x-servescope-priority"
_CONTROL_HEADERS = frozenset({DEADLINE_HEADER.encode(), PRIORITY_HEADER.encode()})
#: The deadline header's form: plain decimal digits, at most one point.
_DECIMAL_SECONDS = re.compile(r"[0-9]{1,9}(\.[0-9]{1,9})?|\.[0-9]{1,9}")
_PRIORITY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
# Which OpenAI endpoint a request came in on (/v1/completions or /v1/chat/completions).
Endpoint = Literal["completion", "chat"]
ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})


class RequestError(Exception):
    """A request this server refuses; ``status`` is the HTTP code, the rest OpenAI's shape."""

    def __init__(self, message: str, *, param: str | None = None,
                 code: str = "invalid_request", status: int = 400,
                 type_: str = "invalid_request_error") -> None:
        super().__init__(message)
        self.message = message
        self.param = param
        self.code = code
        self.status = status
        self.type = type_

    def body(self) -> dict[str, Any]:
        return error_body(self.message, type_=self.type, param=self.param, code=self.code)

    @property
    def rejection_reason(self) -> str:
        """The ``reason`` label its rejection is counted under, alike on every entry point:
        ``invalid_request`` for any bad request (its code, ``invalid_type`` or
        ``invalid_value``, is the answer's detail), the code for a body too large."""
        return self.code if self.status == 413 else "invalid_request"


def error_body(message: str, *, type_: str = "invalid_request_error", param: str | None = None,
               code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


@dataclass(frozen=True)
class CompletionParams:
    """A validated request, in the terms the engine needs."""

    kind: Endpoint
    model: str
    prompt: str | None  # text prompt; None when the client sent token ids
    prompt_ids: tuple[int, ...] | None
    max_tokens: int | None  # None: the client left it to the server
    stream: bool
    include_usage: bool
    stop: tuple[str, ...]
    deadline_s: float | None
    ignore_eos: bool
    priority: str = "default"


# --- low-level field checks -----------------------------------------------------------------
def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: object) -> bool:
    """A JSON number of any size (an integer too large for a float is still a number)."""
    return _is_int(v) or (isinstance(v, float) and math.isfinite(v))


def _as_float(v: int | float) -> float:
    """``v`` as a float; integers beyond the float range become +/- infinity (compare fine)."""
    try:
        return float(v)
    except OverflowError:
        return math.inf if v > 0 else -math.inf


_PREVIEW = reprlib.Repr()
_PREVIEW.maxlevel, _PREVIEW.maxstring, _PREVIEW.maxother, _PREVIEW.maxlong = 2, 1024, 1024, 40
#: What an error message shows of a client's value: its head, after redaction.
PREVIEW_CHARS = 80


def preview(value: object, chars: int = PREVIEW_CHARS) -> str:
    """A short, bounded rendering of a client value for an error message (depth- and
    length-limited: a value nested thousands deep or 4,000 digits long is never rendered
    whole, and lone surrogates are escaped), redacted (:func:`echoed`). Redacted first, then
    cut to its head: a value cut first could keep most of a secret whose start the cut took
    (``'aaa...Ef0123456789'``), which no detector then recognizes."""
    text = echoed(_PREVIEW.repr(value))
    return text if len(text) <= chars else text[:chars - 3] + "..."


def echoed(text: str) -> str:
    """A client's value as an error message shows it: redacted, as a log line would be
    (the message goes back to the client, and through proxies' and SDKs' error logs), and
    with lone surrogates escaped."""
    from servescope.instrumentation.setup import redacted_echo  # setup meets redaction

    return redacted_echo(text.encode("utf-8", "backslashreplace").decode("utf-8"))


def _type_error(field: str, expected: str, value: object) -> RequestError:
    got = "null" if value is None else type(value).__name__
    return RequestError(f"'{field}' must be {expected}, got {got}: {preview(value)}",
                        param=field, code="invalid_type")


def _value_error(field: str, message: str) -> RequestError:
    return RequestError(f"'{field}' {message}", param=field, code="invalid_value")


_Check = Callable[[str, object], None]


def _number(lo: float | None = None, hi: float | None = None) -> _Check:
    def check(field: str, v: object) -> None:
        if not _is_number(v):
            raise _type_error(field, "a number", v)
        x = _as_float(v)  # type: ignore[arg-type]
        if (lo is not None and x < lo) or (hi is not None and x > hi):
            raise _value_error(field, f"must be between {lo} and {hi}, got {preview(v)}")
    return check


def _integer(lo: int | None = None, hi: int | None = None) -> _Check:
    def check(field: str, v: object) -> None:
        if not _is_int(v):
            raise _type_error(field, "an integer", v)
        assert isinstance(v, int)
        if lo is not None and v < lo:
            raise _value_error(field, f"must be at least {lo}, got {preview(v)}")
        if hi is not None and v > hi:
            raise _value_error(field, f"must be at most {hi}, got {preview(v)} "
                                      f"(not supported here)")
    return check


def _of(kind: type, expected: str) -> _Check:
    def check(field: str, v: object) -> None:
        if not isinstance(v, kind) or (kind is int and isinstance(v, bool)):
            raise _type_error(field, expected, v)
    return check


def _false_only(field: str, v: object) -> None:
    if not isinstance(v, bool):
        raise _type_error(field, "a boolean", v)
    if v:
        raise _value_error(field, "is not supported by this server (must be false)")


# Fields the API defines that this server type-checks and then ignores (null is allowed).
_COMMON: dict[str, _Check] = {
    "temperature": _number(0, 2), "top_p": _number(0, 1), "n": _integer(1, 1),
    "presence_penalty": _number(-2, 2), "frequency_penalty": _number(-2, 2),
    "seed": _integer(), "user": _of(str, "a string"), "logit_bias": _of(dict, "an object"),
    "metadata": _of(dict, "an object"), "service_tier": _of(str, "a string"),
}
_COMPLETION_ONLY: dict[str, _Check] = {
    "best_of": _integer(1, 1), "echo": _false_only, "suffix": _of(str, "a string"),
    "logprobs": _integer(0, 0),
}
_CHAT_ONLY: dict[str, _Check] = {
    "logprobs": _false_only, "top_logprobs": _integer(0, 0), "store": _of(bool, "a boolean"),
    "parallel_tool_calls": _of(bool, "a boolean"), "response_format": _of(dict, "an object"),
    "tools": _of(list, "an array"), "tool_choice": _of((str, dict), "a string or object"),  # type: ignore[arg-type]
    "modalities": _of(list, "an array"), "reasoning_effort": _of(str, "a string"),
}


# --- the body -------------------------------------------------------------------------------
def parse_body(raw: bytes) -> dict[str, Any]:
    """Decode a request body: UTF-8, JSON, an object; else a :class:`RequestError`."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RequestError(f"request body is not valid UTF-8 (byte {exc.start})",
                           code="invalid_encoding") from None
    if not text.strip():
        raise RequestError("request body is empty; expected a JSON object", code="invalid_json")
    try:
        body = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RequestError(f"request body is not valid JSON: {exc.msg} at line {exc.lineno}, "
                           f"column {exc.colno}", code="invalid_json") from None
    except RecursionError:
        raise RequestError("request body is nested too deeply", code="invalid_json") from None
    except ValueError as exc:  # an integer past the interpreter's digit limit
        raise RequestError(f"request body holds a number too large to read: "
                           f"{str(exc)[:80]}", code="invalid_json") from None
    if not isinstance(body, dict):
        raise RequestError(f"request body must be a JSON object, got {type(body).__name__}",
                           code="invalid_json")
    if _SURROGATE_ESCAPE.search(text):
        _refuse_lone_surrogates(body)
    return body


# A \uD800-\uDFFF escape: valid only as half of a pair, which is checked after decoding.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _refuse_lone_surrogates(body: dict[str, Any]) -> None:
    """JSON lets ``\\ud800`` through as a lone surrogate, which no UTF-8 encoder accepts:
    refuse it here, naming the top-level field, rather than fail when the text is used."""
    for key, value in body.items():
        try:
            json.dumps({key: value}, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            field = key.encode("utf-8", "backslashreplace").decode("utf-8")
            raise RequestError(f"'{field}' holds a lone UTF-16 surrogate (an unpaired "
                               f"\\ud800-\\udfff escape); text must be valid Unicode",
                               param=field, code="invalid_encoding") from None
        except RecursionError:
            raise RequestError("request body is nested too deeply",
                               code="invalid_json") from None


def _check_known(body: Mapping[str, Any], extra: Mapping[str, _Check]) -> None:
    for table in (_COMMON, extra):
        for field, check in table.items():
            value = body.get(field)
            if value is not None:
                check(field, value)


def _model(body: Mapping[str, Any]) -> str:
    model = body.get("model")
    if model is None:
        raise RequestError("'model' is required", param="model", code="missing_field")
    if not isinstance(model, str):
        raise _type_error("model", "a string", model)
    return model


def _max_tokens(body: Mapping[str, Any], field: str) -> int | None:
    value = body.get(field)
    if value is None:
        return None
    if not _is_int(value):
        raise _type_error(field, "an integer", value)
    if value < 1:
        raise _value_error(field, f"must be at least 1, got {value}")
    return int(value)


def _stream(body: Mapping[str, Any]) -> tuple[bool, bool]:
    stream = body.get("stream", False)
    if stream is None:
        stream = False
    if not isinstance(stream, bool):
        raise _type_error("stream", "a boolean", stream)
    options = body.get("stream_options")
    if options is None:
        return stream, False
    if not isinstance(options, dict):
        raise _type_error("stream_options", "an object", options)
    if not stream:
        raise _value_error("stream_options", "is only allowed when 'stream' is true")
    include = options.get("include_usage", False)
    if include is None:
        include = False
    if not isinstance(include, bool):
        raise _type_error("stream_options.include_usage", "a boolean", include)
    return stream, include


def _stop(body: Mapping[str, Any]) -> tuple[str, ...]:
    stop = body.get("stop")
    if stop is None:
        return ()
    items = [stop] if isinstance(stop, str) else stop
    if not isinstance(items, list) or not all(isinstance(s, str) for s in items):
        raise _type_error("stop", "a string or an array of strings", stop)
    if len(items) > 4:
        raise _value_error("stop", f"may hold at most 4 sequences, got {len(items)}")
    if any(s == "" for s in items):
        raise _value_error("stop", "must not contain empty strings")
    return tuple(items)


def control_headers_once(raw: Iterable[tuple[bytes, bytes]]) -> None:
    """:class:`RequestError` when the deadline or priority header comes more than once: two
    deadlines (``100`` and ``0.2``) leave no way to tell which the client meant, and a
    proxy that keeps the first would read another than a server that keeps the last."""
    seen: set[bytes] = set()
    for name, _ in raw:
        name = name.lower()
        if name in _CONTROL_HEADERS:
            if name in seen:
                field = name.decode("latin-1")
                raise RequestError(f"'{field}' is sent more than once; send it once",
                                   param=field, code="invalid_value")
            seen.add(name)


def deadline_of(body: Mapping[str, Any], headers: Mapping[str, str]) -> float | None:
    """The request's deadline in seconds (the body's ``deadline_s``, else the header), None
    when it sets none; :class:`RequestError` naming the field when it is not a positive,
    finite number of seconds."""
    value: object = body.get("deadline_s")
    field = "deadline_s"
    if value is None and DEADLINE_HEADER in headers:
        field = DEADLINE_HEADER
        text = headers[DEADLINE_HEADER].strip()
        # strict: float() would also take "1_0" (10), "nan", "inf" and "1e3"
        if _DECIMAL_SECONDS.fullmatch(text) is None:
            raise _type_error(field, "a decimal number of seconds (like 2 or 0.5)",
                              headers[DEADLINE_HEADER])
        value = float(text)
    if value is None:
        return None
    if not _is_number(value):
        raise _type_error(field, "a number of seconds", value)
    seconds = _as_float(value)  # type: ignore[arg-type]
    if seconds <= 0:
        raise _value_error(field, f"must be positive, got {preview(value)}")
    if not math.isfinite(seconds):
        raise _value_error(field, f"must be a finite number of seconds, got {preview(value)}")
    return seconds


def _priority(body: Mapping[str, Any], headers: Mapping[str, str]) -> str:
    """The priority class: a short name (an integer is taken as its digits)."""
    value: object = body.get("priority")
    field = "priority"
    if value is None and PRIORITY_HEADER in headers:
        value, field = headers[PRIORITY_HEADER], PRIORITY_HEADER
    if value is None:
        return "default"
    if _is_int(value):
        value = str(value)
    if not isinstance(value, str):
        raise _type_error(field, "a class name or an integer", value)
    # exactly as received (never lowercased: the label guard's detectors must see
    # 'AKIA...' as sent); the guard keeps only declared classes on labels and spans
    if not value or len(value) > 32 or not set(value) <= _PRIORITY_CHARS:
        raise _value_error(field, f"must be 1-32 characters of letters, digits, '_' or '-', "
                                  f"got {preview(value, 48)}")
    return value


def _ignore_eos(body: Mapping[str, Any]) -> bool:
    value = body.get("ignore_eos", False)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise _type_error("ignore_eos", "a boolean", value)
    return value


def _prompt(body: Mapping[str, Any]) -> tuple[str | None, tuple[int, ...] | None]:
    prompt = body.get("prompt")
    if prompt is None:
        raise RequestError("'prompt' is required", param="prompt", code="missing_field")
    if isinstance(prompt, list) and len(prompt) == 1 and isinstance(prompt[0], (str, list)):
        prompt = prompt[0]  # a batch of one is the same request
    if isinstance(prompt, str):
        if not prompt:
            raise _value_error("prompt", "must not be empty")
        return prompt, None
    if isinstance(prompt, list) and prompt and all(_is_int(t) for t in prompt):
        if any(t < 0 for t in prompt):
            raise _value_error("prompt", "token ids must be non-negative")
        return None, tuple(prompt)
    if isinstance(prompt, list) and len(prompt) > 1 and all(isinstance(p, str) for p in prompt):
        raise _value_error("prompt", "batches of several prompts are not supported; send one "
                           "request per prompt")
    raise _type_error("prompt", "a non-empty string or array of token ids", prompt)


def parse_completion(body: Mapping[str, Any], headers: Mapping[str, str]) -> CompletionParams:
    """Validate a ``/v1/completions`` body (``headers`` lower-cased)."""
    _check_known(body, _COMPLETION_ONLY)
    model = _model(body)
    prompt, ids = _prompt(body)
    stream, include_usage = _stream(body)
    return CompletionParams("completion", model, prompt, ids, _max_tokens(body, "max_tokens"),
                            stream, include_usage, _stop(body), deadline_of(body, headers),
                            _ignore_eos(body), _priority(body, headers))


def _message_text(i: int, message: object) -> tuple[str, str]:
    where = f"messages.{i}"
    if not isinstance(message, dict):
        raise _type_error(where, "an object", message)
    role = message.get("role")
    if not isinstance(role, str):
        raise _type_error(f"{where}.role", "a string", role)
    if role not in ROLES:
        raise _value_error(f"{where}.role", f"must be one of {sorted(ROLES)}, "
                                            f"got {preview(role)}")
    content = message.get("content")
    if content is None and role == "assistant":
        return role, ""
    if isinstance(content, str):
        return role, content
    if isinstance(content, list):
        parts = []
        for j, part in enumerate(content):
            if (not isinstance(part, dict) or part.get("type") != "text"
                    or not isinstance(part.get("text"), str)):
                raise _type_error(f"{where}.content.{j}", 'a {"type": "text", "text": ...} part',
                                  part)
            parts.append(part["text"])
        return role, "".join(parts)
    raise _type_error(f"{where}.content", "a string or an array of text parts", content)


def render_chat_prompt(messages: Sequence[tuple[str, str]]) -> str:
    """The prompt the model sees: one ``<|role|>`` header per message, then the assistant's."""
    return "".join(f"<|{role}|>\n{text}\n" for role, text in messages) + "<|assistant|>\n"


def parse_chat(body: Mapping[str, Any], headers: Mapping[str, str]) -> CompletionParams:
    """Validate a ``/v1/chat/completions`` body (``headers`` lower-cased)."""
    _check_known(body, _CHAT_ONLY)
    model = _model(body)
    messages = body.get("messages")
    if messages is None:
        raise RequestError("'messages' is required", param="messages", code="missing_field")
    if not isinstance(messages, list):
        raise _type_error("messages", "an array", messages)
    if not messages:
        raise _value_error("messages", "must hold at least one message")
    rendered = render_chat_prompt([_message_text(i, m) for i, m in enumerate(messages)])
    limit = _max_tokens(body, "max_completion_tokens")
    if limit is None:
        limit = _max_tokens(body, "max_tokens")
    stream, include_usage = _stream(body)
    return CompletionParams("chat", model, rendered, None, limit, stream, include_usage,
                            _stop(body), deadline_of(body, headers), _ignore_eos(body),
                            _priority(body, headers))


# --- responses ------------------------------------------------------------------------------
def usage(prompt_tokens: int, completion_tokens: int) -> dict[str, int]:
    return {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens}


def _envelope(rid: str, obj: str, model: str, created: int | None) -> dict[str, Any]:
    return {"id": rid, "object": obj, "created": created or int(time.time()), "model": model}


def completion_chunk(rid: str, model: str, created: int, text: str,
                     finish_reason: str | None = None) -> dict[str, Any]:
    out = _envelope(rid, "text_completion", model, created)
    out["choices"] = [{"index": 0, "text": text, "logprobs": None,
                       "finish_reason": finish_reason}]
    return out


def chat_chunk(rid: str, model: str, created: int, delta: dict[str, Any],
               finish_reason: str | None = None) -> dict[str, Any]:
    out = _envelope(rid, "chat.completion.chunk", model, created)
    out["system_fingerprint"] = None
    out["choices"] = [{"index": 0, "delta": delta, "logprobs": None,
                       "finish_reason": finish_reason}]
    return out


def completion_response(rid: str, model: str, text: str, finish_reason: str | None,
                        used: dict[str, int]) -> dict[str, Any]:
    out = _envelope(rid, "text_completion", model, None)
    out["choices"] = [{"index": 0, "text": text, "logprobs": None,
                       "finish_reason": finish_reason}]
    out["usage"] = used
    return out


def chat_response(rid: str, model: str, text: str, finish_reason: str | None,
                  used: dict[str, int]) -> dict[str, Any]:
    out = _envelope(rid, "chat.completion", model, None)
    out["system_fingerprint"] = None
    out["choices"] = [{"index": 0, "message": {"role": "assistant", "content": text},
                       "logprobs": None, "finish_reason": finish_reason}]
    out["usage"] = used
    return out
