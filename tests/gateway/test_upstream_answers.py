"""What the gateway makes of the upstream's answers, against a scripted HTTP/1.1 upstream on a
real socket whose every answer is bytes the test chose, written in one send: interim heads
joined to the final answer, repeated and hop-by-hop header fields, every finish reason an
engine sends, error events in both forms, and a 204."""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from gateways import (
    ThreadedSocketServer,
    busy_upstream_connections,
    finished,
    gateway_for,
    read_request,
    sample,
    tokens,
)
from waiting import poll_until

from servescope.gateway.events import StreamFacts, finish_reason_of
from servescope.gateway.serving import LocalGateway
from servescope.instrumentation.status import FinishReason

MODEL = "m"
#: What the upstream answers a request: its head and its body as received. A list: pieces
#: sent apart, ``PAUSE_S`` between them (an engine that writes its stream's end late).
Script = Callable[[bytes, bytes], "bytes | list[bytes]"]
PAUSE_S = 0.3


class ScriptedUpstream(ThreadedSocketServer):
    """Answers ``GET /v1/models`` with ``models``, every other request with
    ``script(head, body)``, on keep-alive connections; keeps each request head."""

    def __init__(self, script: Script, models: tuple[Any, ...] = (MODEL,)) -> None:
        self.script = script
        self.models = models
        self.heads: list[bytes] = []
        self.loaded = True  # False: the model list is not served yet (an engine loading)
        super().__init__()

    def connection(self, conn: socket.socket) -> None:
        with conn:
            buf = b""
            while (request := read_request(conn, buf)) is not None:
                head, body, buf = request
                if head.startswith(b"GET /v1/models "):
                    # (a name, or an entry as the engine writes it: llama.cpp's aliases)
                    listed = [m if isinstance(m, dict) else {"id": m} for m in self.models]
                    conn.sendall(_whole(json.dumps({"data": listed}).encode()) if self.loaded
                                 else _whole(b'{"error":"loading"}', status=b"503 Loading"))
                    continue
                self.heads.append(head)
                answer = self.script(head, body)
                if isinstance(answer, bytes):
                    conn.sendall(answer)  # one send: heads and body together
                    continue
                for n, piece in enumerate(answer):
                    if n:
                        time.sleep(PAUSE_S)
                    conn.sendall(piece)


def _head(status: bytes, fields: list[tuple[bytes, bytes]]) -> bytes:
    lines = [b"HTTP/1.1 " + status, *(name + b": " + value for name, value in fields)]
    return b"\r\n".join(lines) + b"\r\n\r\n"


def _whole(body: bytes, fields: list[tuple[bytes, bytes]] = [],  # noqa: B006 (read only)
           status: bytes = b"200 OK") -> bytes:
    return _head(status, [(b"content-type", b"application/json"),
                          (b"content-length", b"%d" % len(body)), *fields]) + body


def _stream(events: list[Any], fields: list[tuple[bytes, bytes]] = []  # noqa: B006
            ) -> bytes:
    """A chunked event stream, one chunk per event, ``[DONE]`` last."""
    payloads = [json.dumps(e).encode() if isinstance(e, dict) else e for e in events]
    chunks = [b"data: %s\n\n" % p for p in [*payloads, b"[DONE]"]]
    head = _head(b"200 OK", [(b"content-type", b"text/event-stream"),
                             (b"transfer-encoding", b"chunked"), *fields])
    return head + b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in chunks) + b"0\r\n\r\n"


def _text(text: str, finish: str | None = None, index: int = 0) -> dict[str, Any]:
    return {"choices": [{"index": index, "text": text, "finish_reason": finish}]}


def _body(head: bytes, body: bytes) -> dict[str, Any]:
    fields = json.loads(body) if body else {}
    return fields if isinstance(fields, dict) else {}


def _streamed(head: bytes, body: bytes) -> bool:
    return bool(_body(head, body).get("stream"))


def _plain_answer(fields: list[tuple[bytes, bytes]]) -> Script:
    """One finished choice, streamed or whole as asked; other paths get a JSON object."""

    def script(head: bytes, body: bytes) -> bytes:
        if not head.startswith(b"POST /v1/completions "):
            return _whole(b'{"object":"list"}', fields)
        if _streamed(head, body):
            return _stream([_text("a", "stop")], fields)
        return _whole(json.dumps(_text("a", "stop")).encode(), fields)

    return script


Start = Callable[..., tuple[ScriptedUpstream, LocalGateway]]


@pytest.fixture
def scripted() -> Iterator[Start]:
    """Starts a scripted upstream and a gateway in front of it (a short upstream idle timeout:
    a gateway that waits for bytes it already has fails the test in seconds, not minutes)."""
    with contextlib.ExitStack() as stack:

        def start(script: Script, models: tuple[Any, ...] = (MODEL,)
                  ) -> tuple[ScriptedUpstream, LocalGateway]:
            upstream = ScriptedUpstream(script, models)
            stack.callback(upstream.close)
            gw = stack.enter_context(gateway_for(upstream.url, upstream_idle_timeout_s=10.0))
            return upstream, gw

        yield start


def _post(gw: LocalGateway, path: str, body: dict[str, Any],
          headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.post(f"{gw.url}{path}", json={"model": MODEL, **body}, headers=headers,
                      timeout=60)


# --- interim answers ------------------------------------------------------------------------
INTERIM = (b"HTTP/1.1 100 Continue\r\n\r\n"
           b"HTTP/1.1 103 Early Hints\r\nlink: </style.css>; rel=preload\r\n\r\n")


def test_interim_heads_in_the_same_read_as_the_answer_are_skipped_on_every_path(
        scripted: Start) -> None:
    """An engine answers ``100 Continue`` (and any other 1xx) and its final answer in one
    write: the gateway skips the interim heads and keeps what follows them. The client's
    ``Expect`` is the gateway's to answer: it never goes upstream."""
    upstream, gw = scripted(lambda head, body: INTERIM + _plain_answer([])(head, body))
    expect = {"expect": "100-continue"}
    streamed = _post(gw, "/v1/completions", {"prompt": "x", "stream": True}, expect)
    whole = _post(gw, "/v1/completions", {"prompt": "x"}, expect)
    passed = _post(gw, "/v1/embeddings", {"input": "x"}, expect)
    assert [r.status_code for r in (streamed, whole, passed)] == [200, 200, 200]
    assert streamed.text.endswith("data: [DONE]\n\n") and '"text": "a"' in streamed.text
    assert whole.json()["choices"][0]["text"] == "a"
    assert passed.json() == {"object": "list"}
    assert "link" not in passed.headers  # the interim head's fields stay with it
    poll_until(lambda: finished(gw, "stop", model=MODEL) == 2, what="both measured finishes")
    assert not any(b"\r\nexpect:" in head.lower() for head in upstream.heads)
    assert busy_upstream_connections(gw) == 0


# --- header fields --------------------------------------------------------------------------
REPEATED = [(b"set-cookie", b"a=1; Path=/"), (b"www-authenticate", b"Bearer"),
            (b"set-cookie", b"b=2; Path=/"), (b"link", b"</a>"),
            (b"www-authenticate", b"Basic"), (b"link", b"</b>")]


def test_every_copy_of_a_repeated_header_reaches_the_client_in_order(
        scripted: Start) -> None:
    _, gw = scripted(_plain_answer(REPEATED))
    answers = [httpx.get(f"{gw.url}/v1/anything", timeout=60),
               httpx.head(f"{gw.url}/v1/anything", timeout=60),
               _post(gw, "/v1/embeddings", {"input": "x"}),
               _post(gw, "/v1/completions", {"prompt": "x"}),
               _post(gw, "/v1/completions", {"prompt": "x", "stream": True})]
    for answer in answers:
        assert answer.status_code == 200
        assert answer.headers.get_list("set-cookie") == ["a=1; Path=/", "b=2; Path=/"]
        assert answer.headers.get_list("www-authenticate") == ["Bearer", "Basic"]
        assert answer.headers.get_list("link") == ["</a>", "</b>"]


HOP_BY_HOP = [(b"connection", b"keep-alive, x-drop-me"), (b"x-drop-me", b"1"),
              (b"keep-alive", b"timeout=5"), (b"proxy-authenticate", b"Basic"),
              (b"x-kept", b"yes")]


def test_hop_by_hop_response_headers_stop_at_the_gateway_on_every_path(
        scripted: Start) -> None:
    """Fields about the upstream's connection (those its Connection header names too) are
    not the client's, measured path or not."""
    _, gw = scripted(_plain_answer(HOP_BY_HOP))
    answers = [_post(gw, "/v1/completions", {"prompt": "x", "stream": True}),
               _post(gw, "/v1/completions", {"prompt": "x"}),
               _post(gw, "/v1/embeddings", {"input": "x"})]
    for answer in answers:
        assert answer.status_code == 200 and answer.headers["x-kept"] == "yes"
        for name in ("x-drop-me", "keep-alive", "proxy-authenticate"):
            assert name not in answer.headers, (answer.request.url, name)


# --- finish reasons -------------------------------------------------------------------------
#: An engine's finish reason (one per choice, comma-separated) and the terminal state counted.
UNKNOWN = f"reason_of_a_future_engine_{uuid.uuid4().hex[:8]}"
FINISHES = [("stop", "stop"), ("tool_calls", "stop"), ("function_call", "stop"),
            ("eos_token", "stop"), ("length", "length"), ("abort", "error"),
            ("error", "error"), ("cancelled", "error"), ("content_filter", "error"),
            (UNKNOWN, "stop"), ("stop,length", "length"), ("stop,abort", "error")]


def _finishing(head: bytes, body: bytes) -> bytes:
    """Each choice ends with the finish reason the prompt names for it."""
    fields = _body(head, body)
    reasons = fields["prompt"].split(",")
    if fields.get("stream"):
        return _stream([_text("a", reason, i) for i, reason in enumerate(reasons)])
    choices = [{"index": i, "text": "a", "finish_reason": r} for i, r in enumerate(reasons)]
    return _whole(json.dumps({"choices": choices}).encode())


def test_each_finish_reason_an_engine_sends_is_counted_as_its_terminal_state(
        scripted: Start) -> None:
    _, gw = scripted(_finishing)
    for reasons, _ in FINISHES:
        for stream in (True, False):
            answer = _post(gw, "/v1/completions", {"prompt": reasons, "stream": stream})
            assert answer.status_code == 200, reasons
    expected = Counter(state for _, state in FINISHES for _ in range(2))
    poll_until(lambda: sum(finished(gw, s, model=MODEL) for s in expected) == 2 * len(FINISHES),
               what="every request finished")
    assert {s: finished(gw, s, model=MODEL) for s in expected} == expected
    # an engine-side end is no success: never goodput
    assert sample(gw, "servescope_goodput_requests_total", model=MODEL) <= \
        expected["stop"] + expected["length"]
    gw.setup.force_flush()
    causes = {s.attributes.get("error.type") for s in gw.exporter.get_finished_spans()
              if s.attributes.get("servescope.finish_reason") == "error"}
    assert causes == {"upstream_finish_abort", "upstream_finish_error",
                      "upstream_finish_cancelled", "upstream_finish_content_filter"}


def test_an_unknown_finish_reason_is_stop_and_logged_once(
        caplog: pytest.LogCaptureFixture) -> None:
    letters = "".join(chr(ord("a") + int(c, 16)) for c in uuid.uuid4().hex[:8])
    reason = f"reason_nobody_sends_{letters}"
    facts = StreamFacts(finishes={0: reason}, done=True)
    with caplog.at_level(logging.WARNING, logger="servescope.gateway.events"):
        assert finish_reason_of(facts) is FinishReason.STOP
        assert finish_reason_of(facts) is FinishReason.STOP
    assert len([r for r in caplog.records if reason in r.getMessage()]) == 1
    # a value with no name's shape is not repeated (the upstream chose it: a key glued into
    # a word is one no detector reads)
    glued = f"xxxx{letters}AKIAQ7ZPROBE4XYZ9K2M"
    with caplog.at_level(logging.WARNING, logger="servescope.gateway.events"):
        finish_reason_of(StreamFacts(finishes={0: glued}, done=True))
    assert "AKIA" not in caplog.text and "not a name" in caplog.text


def _two_choices(head: bytes, body: bytes) -> bytes:
    """A chat answer with n=2 whose choice 1 ends first (``length``), then choice 0
    (``stop``), streamed or whole as asked."""
    fields = _body(head, body)
    assert fields.get("n") == 2
    if not fields.get("stream"):
        choices = [{"index": i, "message": {"role": "assistant", "content": "a"},
                    "finish_reason": r} for i, r in enumerate(("stop", "length"))]
        return _whole(json.dumps({"choices": choices}).encode())

    def chunk(index: int, content: str | None, finish: str | None = None) -> dict[str, Any]:
        delta = {"content": content} if content else {}
        return {"choices": [{"index": index, "delta": delta, "finish_reason": finish}]}

    return _stream([chunk(0, "a"), chunk(1, "b"), chunk(1, None, "length"), chunk(0, "c"),
                    chunk(0, None, "stop")])


@pytest.mark.parametrize("stream", [True, False])
def test_the_span_records_the_engines_own_finish_reason_of_each_choice(
        stream: bool, scripted: Start) -> None:
    """``gen_ai.response.finish_reasons`` is what the engine said, one per choice in choice
    order; the terminal state stays the worst of them."""
    _, gw = scripted(_two_choices)
    answer = _post(gw, "/v1/chat/completions", {
        "messages": [{"role": "user", "content": "x"}], "n": 2, "stream": stream})
    assert answer.status_code == 200
    poll_until(lambda: finished(gw, "length", model=MODEL) == 1, what="the request finished")
    gw.setup.force_flush()
    (span,) = [s for s in gw.exporter.get_finished_spans() if s.name == f"chat {MODEL}"]
    assert list(span.attributes["gen_ai.response.finish_reasons"]) == ["stop", "length"]
    assert span.attributes["servescope.finish_reason"] == "length"


# --- model names the engine lists -----------------------------------------------------------
#: What a black-box tester had the upstream list: adapters named with an email and with a card
#: number, and a plain served name.
LISTED = ("lora-alice@example.com", "ft-4111111111111111", "meta-llama/Llama-3.1-8B-Instruct")


def test_a_listed_model_name_with_personal_data_never_becomes_a_label(scripted: Start) -> None:
    """The engine's /v1/models is configuration, but a name in it that the detectors find PII
    in is treated as unlisted: its requests are counted under the configured name, on the
    metrics and on the span; the plain name is its own label."""
    _, gw = scripted(_plain_answer([]), models=LISTED)
    for name in LISTED:
        answer = _post(gw, "/v1/completions", {"model": name, "prompt": "x", "stream": True})
        assert answer.status_code == 200, name
    poll_until(lambda: sum(s.value for m in gw.telemetry.registry.collect() for s in m.samples
                           if s.name == "servescope_requests_finished_total") == 3,
               what="every request finished")
    assert finished(gw, "stop", model=LISTED[2]) == 1
    assert finished(gw, "stop", model="default") == 2  # as an unlisted name is counted
    metrics = httpx.get(f"{gw.url}/metrics", timeout=60).text
    assert f'model="{LISTED[2]}"' in metrics
    assert "alice@example.com" not in metrics and "4111111111111111" not in metrics
    gw.setup.force_flush()  # spans unredacted here: what they carry is the label's decision
    models = {s.attributes["gen_ai.request.model"] for s in gw.exporter.get_finished_spans()
              if s.name.startswith("text_completion")}
    assert models == {"default", LISTED[2]}


def test_llama_cpp_s_aliases_are_listed_names(scripted: Start) -> None:
    """llama.cpp serves every -a name and lists them under one id (its first, sorted), as
    that entry's aliases: each is a listed name, through the same check."""
    entry = {"id": "acct-536221234999", "aliases": ["tiny", "lora-john@example.com",
                                                    "meta-llama/Llama-3.1-8B-Instruct"]}
    _, gw = scripted(_plain_answer([]), models=(entry,))
    for name in ("tiny", "lora-john@example.com", "meta-llama/Llama-3.1-8B-Instruct"):
        answer = _post(gw, "/v1/completions", {"model": name, "prompt": "x", "stream": True})
        assert answer.status_code == 200, name
    poll_until(lambda: sum(s.value for m in gw.telemetry.registry.collect() for s in m.samples
                           if s.name == "servescope_requests_finished_total") == 3,
               what="every request finished")
    assert finished(gw, "stop", model="tiny") == 1
    assert finished(gw, "stop", model="meta-llama/Llama-3.1-8B-Instruct") == 1
    assert finished(gw, "stop", model="default") == 1  # the address: unlisted
    assert "john@example.com" not in httpx.get(f"{gw.url}/metrics", timeout=60).text


# --- error events ---------------------------------------------------------------------------
ERROR = {"message": "engine died", "type": "InternalServerError", "param": None, "code": 500}


def _failing(head: bytes, body: bytes) -> bytes:
    """Two tokens, then the engine's error in the form the prompt names, then [DONE]."""
    unwrapped = _body(head, body)["prompt"] == "unwrapped"
    error = {"object": "error", **ERROR} if unwrapped else {"error": {"object": "error",
                                                                      **ERROR}}
    return _stream([_text("a"), _text("b"), error])


@pytest.mark.parametrize("form", ["wrapped", "unwrapped"])
def test_an_error_event_ends_the_stream_as_error_in_either_form(
        form: str, scripted: Start
        ) -> None:
    _, gw = scripted(_failing)
    answer = _post(gw, "/v1/completions", {"prompt": form, "stream": True})
    assert answer.status_code == 200 and "engine died" in answer.text  # relayed unchanged
    poll_until(lambda: finished(gw, "error", model=MODEL) == 1, what="an error finish")
    assert finished(gw, "stop", model=MODEL) == 0
    gw.setup.force_flush()
    (span,) = [s for s in gw.exporter.get_finished_spans() if s.name.startswith("text_")]
    assert span.attributes["error.type"] == "upstream_error_event"


# --- no content -----------------------------------------------------------------------------
def test_a_204_carries_no_content_length_on_any_path(
        scripted: Start) -> None:
    _, gw = scripted(lambda head, body: _head(b"204 No Content", [(b"x-kept", b"yes")]))
    for path in ("/v1/completions", "/v1/embeddings"):
        answer = _post(gw, path, {"prompt": "x"})
        assert answer.status_code == 204 and answer.headers["x-kept"] == "yes"
        assert "content-length" not in answer.headers, path
        assert answer.content == b""


# --- the stream's end -----------------------------------------------------------------------
def _done_then_late_end(head: bytes, body: bytes) -> list[bytes]:
    """llama.cpp's way: three tokens, the finish and usage, [DONE], and the chunked body's
    terminator in a write of its own, later."""
    whole = _stream([_text("a"), _text("b"), _text("c"),
                     {**_text("", "length"), "usage": {"prompt_tokens": 2,
                                                       "completion_tokens": 3}}])
    return [whole[:-5], whole[-5:]]


def test_a_client_that_closes_after_done_is_no_cancel(scripted: Start) -> None:
    """The openai SDK closes its response once it has read [DONE]; the engine's terminator
    comes after. The request finished as the engine said, with its usage."""
    _, gw = scripted(_done_then_late_end)
    body = {"model": MODEL, "prompt": "x", "stream": True}
    with httpx.stream("POST", f"{gw.url}/v1/completions", json=body, timeout=30) as response:
        for line in response.iter_lines():
            if line == "data: [DONE]":
                break  # and close, as the SDK does
    poll_until(lambda: finished(gw, "length", model=MODEL) == 1, what="a length finish")
    assert finished(gw, "client_cancel", model=MODEL) == 0
    assert tokens(gw, "prompt", model=MODEL) == 2
    poll_until(lambda: busy_upstream_connections(gw) == 0, what="the upstream released")


def test_the_stream_ends_at_done_without_waiting_for_the_engines_terminator(
        scripted: Start) -> None:
    """The client reads its stream's end when [DONE] comes, not a pause later; the upstream
    connection is read to its end and reused."""
    upstream, gw = scripted(_done_then_late_end)
    for _ in range(2):
        t0 = time.monotonic()
        answer = _post(gw, "/v1/completions", {"prompt": "x", "stream": True})
        assert answer.text.endswith("data: [DONE]\n\n")
        assert time.monotonic() - t0 < PAUSE_S
    poll_until(lambda: finished(gw, "length", model=MODEL) == 2, what="two length finishes")
    poll_until(lambda: busy_upstream_connections(gw) == 0, what="the upstream released")
    assert len(upstream.heads) == 2


def test_nothing_after_done_is_relayed_or_counted(scripted: Start) -> None:
    def script(head: bytes, body: bytes) -> bytes:
        events = [_text("a"), _text("b"), _text("c", "stop"), b"[DONE]", _text("d", "length")]
        return _stream(events)

    _, gw = scripted(script)
    answer = _post(gw, "/v1/completions", {"prompt": "x", "stream": True})
    assert answer.text.count("[DONE]") == 1 and answer.text.endswith("data: [DONE]\n\n")
    assert '"d"' not in answer.text
    poll_until(lambda: finished(gw, "stop", model=MODEL) == 1, what="a stop finish")
    assert tokens(gw, "committed", model=MODEL) == 3


def test_llamacpps_null_event_and_a_byte_order_mark_are_read_past(scripted: Start) -> None:
    """llama.cpp opens a stream of several prompts with "data: null"; an event stream may
    start with a byte order mark. Both reach the client unchanged and count nothing."""
    def script(head: bytes, body: bytes) -> bytes:
        whole = _stream([b"null", _text("a"), _text("b", "stop")])
        if _body(head, body)["prompt"] == "bom":
            cut = whole.index(b"\r\n\r\n") + 4
            first = whole.index(b"\r\n", cut)
            size = int(whole[cut:first], 16) + 3
            whole = whole[:cut] + b"%x" % size + b"\r\n\xef\xbb\xbf" + whole[first + 2:]
        return whole

    _, gw = scripted(script)
    for prompt in ("null", "bom"):
        answer = _post(gw, "/v1/completions", {"prompt": prompt, "stream": True})
        assert answer.status_code == 200 and "data: null" in answer.text
        assert "upstream_malformed" not in answer.text
    poll_until(lambda: finished(gw, "stop", model=MODEL) == 2, what="two stop finishes")
    assert tokens(gw, "committed", model=MODEL) == 4


@pytest.mark.parametrize("path", ["/completions", "/chat/completions", "/v1/completions/",
                                  "//v1/completions", "/V1/Chat/Completions"])
def test_every_spelling_of_a_generation_path_is_measured(path: str, scripted: Start) -> None:
    """llama.cpp serves /completions and /chat/completions beside /v1/...: a request there
    generates, so it is measured (forwarded with its path as sent)."""
    upstream, gw = scripted(lambda head, body: _stream([_text("a"), _text("b", "stop")]))
    answer = _post(gw, path, {"prompt": "x", "stream": True})
    assert answer.status_code == 200
    poll_until(lambda: finished(gw, "stop", model=MODEL) == 1, what="a measured stop finish")
    assert tokens(gw, "committed", model=MODEL) == 2
    assert upstream.heads[-1].split(b" ")[1] == path.encode()


def test_an_engine_that_lists_its_models_late_gets_its_label_within_seconds() -> None:
    """A gateway started beside an engine still loading: its requests take the configured
    name until the list comes, then the engine's own name, seconds later, not at the next
    half-minute ask."""
    upstream = ScriptedUpstream(lambda head, body: _stream([_text("a", "stop")]))
    upstream.loaded = False
    with contextlib.closing(upstream), gateway_for(upstream.url) as gw:
        _late_list(upstream, gw)


def _late_list(upstream: ScriptedUpstream, gw: LocalGateway) -> None:
    _post(gw, "/v1/completions", {"prompt": "x", "stream": True})
    poll_until(lambda: finished(gw, "stop", model="default") == 1, what="a default finish")
    upstream.loaded = True
    assert httpx.get(f"{gw.url}/readyz", timeout=10).status_code == 200

    def labelled() -> bool:
        _post(gw, "/v1/completions", {"prompt": "x", "stream": True})
        return finished(gw, "stop", model=MODEL) >= 1

    poll_until(labelled, timeout_s=10.0, what="a request labelled with the listed name")


def _gzipped(head: bytes, body: bytes) -> bytes:
    """What an engine behind a compressing proxy answers though asked for identity: a gzip
    stream flushed per event, or a gzip JSON body."""
    import zlib

    gz = zlib.compressobj(wbits=16 + zlib.MAX_WBITS)
    if _streamed(head, body):
        events = [_text("a"), _text("b"), {**_text("", "stop"),
                                           "usage": {"prompt_tokens": 4, "completion_tokens": 2}}]
        chunks = [gz.compress(b"data: %s\n\n" % json.dumps(e).encode())
                  + gz.flush(zlib.Z_SYNC_FLUSH) for e in events]
        chunks.append(gz.compress(b"data: [DONE]\n\n") + gz.flush())
        return _head(b"200 OK", [(b"content-type", b"text/event-stream"),
                                 (b"content-encoding", b"gzip"),
                                 (b"transfer-encoding", b"chunked")]) + \
            b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in chunks) + b"0\r\n\r\n"
    whole = gz.compress(json.dumps({**_text("ab", "stop"), "usage": {
        "prompt_tokens": 4, "completion_tokens": 2}}).encode()) + gz.flush()
    return _whole(whole, [(b"content-encoding", b"gzip")])


@pytest.mark.parametrize("stream", [True, False])
def test_an_answer_compressed_against_the_request_is_read_and_relayed_decompressed(
        stream: bool, scripted: Start) -> None:
    _, gw = scripted(_gzipped)
    answer = _post(gw, "/v1/completions", {"prompt": "x", "stream": stream})
    assert answer.status_code == 200 and "content-encoding" not in answer.headers
    if stream:
        assert answer.text.endswith("data: [DONE]\n\n") and '"b"' in answer.text
    else:
        assert answer.json()["choices"][0]["text"] == "ab"
    poll_until(lambda: finished(gw, "stop", model=MODEL) == 1, what="a stop finish")
    assert tokens(gw, "committed", model=MODEL) == 2 and tokens(gw, "prompt", model=MODEL) == 4


def test_an_upstream_redirect_to_itself_comes_back_as_a_path(scripted: Start) -> None:
    """FastAPI's trailing-slash redirect names the engine's own address: the client gets the
    path alone (it follows it through the gateway and never learns where the engine is); a
    redirect elsewhere passes unchanged."""
    def script(head: bytes, body: bytes) -> bytes:
        target = head.split(b" ", 2)[1]
        location = (b"https://docs.example.org/x" if target.startswith(b"/elsewhere")
                    else upstream.url.encode() + target.rstrip(b"/") + b"?a=1")
        return _whole(b"", [(b"location", location)], status=b"307 Temporary Redirect")

    upstream, gw = scripted(script)
    moved = httpx.get(f"{gw.url}/v1/models/", timeout=30)
    assert moved.status_code == 307 and moved.headers["location"] == "/v1/models?a=1"
    away = httpx.get(f"{gw.url}/elsewhere", timeout=30)
    assert away.headers["location"] == "https://docs.example.org/x"



def test_llama_cpp_s_own_counts_raise_a_chat_stream_s_without_usage(scripted: Start) -> None:
    """llama.cpp sends a token it holds back (part of a UTF-8 character) in the next token's
    chunk, so one token per chunk reads short; its last chunk says what it generated and
    read (``timings``) even without ``include_usage``."""
    def script(head: bytes, body: bytes) -> bytes:
        delta = [{"choices": [{"index": 0, "delta": {"content": c}, "finish_reason": None}]}
                 for c in ("a", "b\u00e9")]  # two chunks, three tokens
        last = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                "timings": {"cache_n": 16, "prompt_n": 1, "predicted_n": 3}}
        return _stream([*delta, last])

    _, gw = scripted(script)
    answer = _post(gw, "/v1/chat/completions", {"messages": [], "stream": True})
    assert answer.status_code == 200
    poll_until(lambda: finished(gw, "stop", model=MODEL) == 1, what="a stop finish")
    assert tokens(gw, "committed", model=MODEL) == 3
    assert tokens(gw, "prompt", model=MODEL) == 17
