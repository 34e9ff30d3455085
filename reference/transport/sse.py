"""The writer side of one request: engine stream → HTTP response, streamed (SSE) or whole.

Each response is a raw ASGI callable that runs two tasks:

* the **writer** waits until the connection accepts bytes (uvicorn's ``send`` waits on the
  transport's flow control), then pops a token chunk from the engine's bounded stream buffer,
  decodes it and writes it. A client that does not read stalls the writer before it pops; the
  engine's buffer fills to its high watermark and the scheduler pauses the request. Tokens are
  reported ``written`` once ``send`` returned (the bytes are on the connection; the write's
  time, taken just before it, stamps stream TTFT) and ``delivered`` once the peer's TCP
  acknowledged the connection offset that covers them (``delivery.py``; where the platform
  cannot tell, delivered falls back to written). After the last write the writer waits, for a
  bounded time without progress, for the tail's acknowledgements, then tells the engine it is
  done (``writer_done``): tokens popped but never acknowledged are discarded, exactly.
* the **watcher** waits on ``receive``; an ``http.disconnect`` before the response completed
  becomes ``handle.cancel(CLIENT_CANCEL)`` at once (a mailbox post, never blocking) and stops
  the writer, even when the writer is blocked on a stalled socket or waiting for tokens. If
  the engine ended the request (slow consumer, deadline, error) and the writer has stayed
  stalled for ``abandon_after_s`` since, the client reads nothing: the watcher resets the
  connection (``ConnectionControl.abort``) instead of holding it forever.

The writer also asks the connection itself whether it is alive before popping and before
counting a write: uvicorn's ``send`` silently drops bytes after a disconnect, and the watcher
may not have run yet. A connection the server closes after the last write (``Connection:
close``) is a normal end, never a client cancel.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from servescope.instrumentation.status import OPENAI_FINISH_REASON, FinishReason
from servescope.instrumentation.terminal import Once

from ..config import HttpLimits
from . import openai_schema as schema
from .delivery import Acks as _Acks
from .delivery import settle as _settle_acks

__all__ = [
    "ConnectionControl",
    "EventStreamResponse",
    "Shape",
    "StreamHandle",
    "TextDecoder",
    "WholeResponse",
]

_log = logging.getLogger("servescope.reference.transport.sse")
Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

#: Errors carried to the client in OpenAI's error shape when a stream is cut by the server.
_CUT: dict[FinishReason, tuple[str, str, int]] = {
    FinishReason.ERROR: ("the worker failed while generating this request", "worker_error", 500),
    FinishReason.SLOW_CONSUMER: ("the client read too slowly; the stream was closed",
                                 "slow_consumer", 408),
    FinishReason.REJECTED: ("the request was rejected", "rejected", 503),
}
#: Terminal states after which a writer stalled on an unread socket gives the connection up.
_CUT_WHILE_STALLED = frozenset({FinishReason.SLOW_CONSUMER, FinishReason.DEADLINE,
                                FinishReason.ERROR})


class StreamHandle(Protocol):
    """What the transport needs from the engine's request handle."""

    @property
    def request_id(self) -> str: ...
    @property
    def finish_reason(self) -> FinishReason | None: ...
    @property
    def prompt_tokens(self) -> int: ...
    @property
    def completion_tokens(self) -> int: ...
    @property
    def engine_lost_retry_after_s(self) -> int | None: ...
    async def next_chunk(self, max_tokens: int = 64) -> list[int] | None: ...
    def clock(self) -> float: ...
    def written(self, n: int, now: float) -> None: ...
    def delivered(self, n: int) -> None: ...
    def attach_writer(self) -> None: ...
    def writer_done(self) -> None: ...
    def cancel(self, reason: FinishReason = ...) -> Any: ...


class DeliveryProbe(Protocol):
    """A connection's acknowledgement counters (``delivery.TcpProbe``)."""

    def offset(self) -> int | None: ...
    def acked(self) -> int | None: ...
    def live(self) -> bool: ...
    def close(self) -> None: ...


class ConnectionControl(Protocol):
    """What the server knows about the connection carrying a request (see ``server.py``)."""

    def alive(self, scope: Scope) -> bool: ...
    def abort(self, scope: Scope) -> None: ...
    def probe(self, scope: Scope) -> DeliveryProbe | None: ...


class TextDecoder(Protocol):
    """Incremental detokenizer (the engine tokenizer's ``stream_decoder()``): holds the bytes
    of a character split across chunks until its last byte arrives."""

    def feed(self, ids: list[int]) -> str: ...
    def flush(self) -> str: ...


@dataclass
class Shape:
    """The OpenAI chunk and response shapes of one request (completion or chat)."""

    kind: schema.Endpoint
    request_id: str
    model: str
    include_usage: bool = False
    created: int = field(default_factory=lambda: int(time.time()))

    def opening(self) -> dict[str, Any] | None:
        if self.kind == "chat":  # the chat API announces the role first
            return self._with_usage(schema.chat_chunk(
                self.request_id, self.model, self.created, {"role": "assistant", "content": ""}))
        return None

    def text(self, text: str) -> dict[str, Any]:
        if self.kind == "chat":
            chunk = schema.chat_chunk(self.request_id, self.model, self.created,
                                      {"content": text})
        else:
            chunk = schema.completion_chunk(self.request_id, self.model, self.created, text)
        return self._with_usage(chunk)

    def final(self, reason: FinishReason | None) -> dict[str, Any]:
        openai_reason = OPENAI_FINISH_REASON.get(reason) if reason else None
        if self.kind == "chat":
            chunk = schema.chat_chunk(self.request_id, self.model, self.created, {},
                                      openai_reason)
        else:
            chunk = schema.completion_chunk(self.request_id, self.model, self.created, "",
                                            openai_reason)
        chunk["servescope_finish_reason"] = reason.value if reason else None
        return self._with_usage(chunk)

    def usage_chunk(self, prompt: int, completion: int) -> dict[str, Any]:
        obj = "chat.completion.chunk" if self.kind == "chat" else "text_completion"
        return {"id": self.request_id, "object": obj, "created": self.created,
                "model": self.model, "choices": [], "usage": schema.usage(prompt, completion)}

    def whole(self, text: str, reason: FinishReason | None, prompt: int,
              completion: int) -> dict[str, Any]:
        openai_reason = OPENAI_FINISH_REASON.get(reason) if reason else None
        used = schema.usage(prompt, completion)
        build = schema.chat_response if self.kind == "chat" else schema.completion_response
        out = build(self.request_id, self.model, text, openai_reason, used)
        out["servescope_finish_reason"] = reason.value if reason else None
        return out

    def _with_usage(self, chunk: dict[str, Any]) -> dict[str, Any]:
        if self.include_usage:  # OpenAI sends "usage": null on every chunk but the last
            chunk["usage"] = None
        return chunk


def _event(payload: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(payload, separators=(",", ":")).encode() + b"\n\n"


class _Exchange:
    """Writer + disconnect watcher around one engine handle (shared by both responses)."""

    def __init__(self, handle: StreamHandle, shape: Shape, decoder: TextDecoder,
                 chunk_tokens: int, headers: dict[str, str], *,
                 connections: ConnectionControl | None = None,
                 limits: HttpLimits | None = None) -> None:
        limits = limits if limits is not None else HttpLimits()
        # the watcher's period, the stall it tolerates, the wait for the tail's acks
        self.poll_s = limits.stall_poll_s
        self.abandon_after_s = limits.abandon_after_s
        self.ack_wait_s = limits.ack_wait_s
        self.handle = handle
        self.connections = connections
        self._scope: Scope = {}
        self.shape = shape
        self.decoder = decoder
        self.chunk_tokens = chunk_tokens
        self.headers = headers
        self.disconnected = Once()
        self.abandoned = False
        self._stalled = False  # the writer waits for the socket to accept more bytes
        self._writes = 0  # completed waits for writability (progress of the client)
        self._progress_mark = 0
        self._cut_stalled_since: float | None = None
        self._completing = False  # set before the last send: a disconnect after it is normal
        self._acks: _Acks | None = None  # None: delivered falls back to written

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self._scope = scope
        probe = self.connections.probe(scope) if self.connections is not None else None
        self._acks = _Acks(probe) if probe is not None else None
        self.handle.attach_writer()
        writer = asyncio.create_task(self.write(send))
        watcher = asyncio.create_task(self._watch(receive, writer))
        try:
            await asyncio.wait({writer})
        except asyncio.CancelledError:  # the server is shutting down under us
            writer.cancel()
            self.handle.cancel(FinishReason.CLIENT_CANCEL)
            raise
        finally:
            watcher.cancel()
            if probe is not None:  # before any abort: an open duplicate would delay the reset
                self._confirm()
                probe.close()
            self.handle.writer_done()
        if self.abandoned:
            _log.info("request %s ended (%s) while its client read nothing: connection aborted",
                      self.handle.request_id, self.handle.finish_reason)
            if self.connections is not None:
                self.connections.abort(scope)
                for _ in range(2):  # let the transport report the loss before we return
                    await asyncio.sleep(0)
            return
        if not writer.cancelled() and writer.exception() is not None:
            self.handle.cancel(FinishReason.ERROR)  # a transport bug must not leak the request
            raise writer.exception()  # type: ignore[misc]

    async def _watch(self, receive: Receive, writer: asyncio.Task[None]) -> None:
        while True:
            try:
                message = await asyncio.wait_for(receive(), self.poll_s)
            except TimeoutError:
                self._confirm()  # a stalled writer does not look: credit what was acknowledged
                if self._should_abandon():
                    self.abandoned = True
                    writer.cancel()
                    return
                continue
            if message["type"] != "http.disconnect":
                continue  # the body was read already; ignore stray request chunks
            if not self._completing:
                self._gone()
                writer.cancel()
            return

    def _gone(self) -> None:
        """The client disconnected: post the cancel once (the watcher or the writer may be
        first to notice)."""
        if self.disconnected.claim():
            self.handle.cancel(FinishReason.CLIENT_CANCEL)

    def _alive(self) -> bool:
        """Whether bytes written now reach the client. uvicorn's ``send`` silently drops what
        is sent after a disconnect, so the writer asks the connection itself before counting
        a delivery (the watcher's disconnect message may not have been processed yet)."""
        if self.disconnected.is_set:
            return False
        if self.connections is not None and not self.connections.alive(self._scope):
            if not self._completing:  # a close after the last write is the server's own
                self._gone()
            return False
        return True

    def _wrote(self, n: int, at: float) -> None:
        """``n`` tokens' bytes were accepted by the connection (the write began at ``at``)."""
        if n <= 0:
            return
        self.handle.written(n, at)
        if self._acks is None:
            self.handle.delivered(n)  # no acknowledgements here: delivered means written
            return
        self._acks.wrote(n)
        self._confirm()

    def _confirm(self) -> None:
        """Credit the tokens whose bytes the peer has acknowledged since the last look."""
        if self._acks is not None:
            n = self._acks.confirmed()
            if n:
                self.handle.delivered(n)

    async def _settle(self) -> None:
        """After the last write: wait for the tail's acknowledgements while they progress
        (at most ``ack_wait_s`` without any), polling with a growing interval; past that,
        the connection is reset (:func:`settle`)."""
        acks = self._acks
        if acks is not None and not self.disconnected.is_set and \
                not await _settle_acks(acks, self._confirm, self.ack_wait_s):
            self.abandoned = True

    def _should_abandon(self) -> bool:
        """The engine ended the request (slow consumer, deadline, error) and the writer has
        been stalled ever since for ``abandon_after_s``: the client reads nothing, so give the
        connection up rather than hold it forever. A client that still reads, however slowly,
        gets its tail and the closing event."""
        if not (self._stalled and self.handle.finish_reason in _CUT_WHILE_STALLED):
            self._cut_stalled_since = None
            return False
        now = time.monotonic()
        if self._cut_stalled_since is None or self._progress_mark != self._writes:
            self._cut_stalled_since, self._progress_mark = now, self._writes
        return now - self._cut_stalled_since >= self.abandon_after_s

    async def _writable(self, send: Send) -> None:
        """Wait until the connection takes more bytes, without writing any.

        uvicorn's ``send`` first waits on flow control, and an empty body chunk writes nothing
        (h11 never frames an empty chunk). Popping tokens only after this returns means a
        popped chunk is written at once: tokens leave the engine's bounded buffer only when the
        socket can take them, so committed-but-unsent tokens stay within the buffer capacity.
        """
        self._stalled = True
        try:
            await send({"type": "http.response.body", "body": b"", "more_body": True})
        finally:
            self._stalled = False
        self._writes += 1

    def _start(self, status: int, content_type: bytes) -> Message:
        headers = [(b"content-type", content_type)]
        headers += [(k.encode(), v.encode()) for k, v in self.headers.items()]
        return {"type": "http.response.start", "status": status, "headers": headers}

    async def write(self, send: Send) -> None:
        raise NotImplementedError


class EventStreamResponse(_Exchange):
    """``stream: true``: one SSE event per popped chunk, then the final chunk and [DONE]."""

    async def write(self, send: Send) -> None:
        handle, shape = self.handle, self.shape
        await send(self._start(200, b"text/event-stream; charset=utf-8"))
        opening = shape.opening()
        if opening is not None:
            await self._body(send, _event(opening))
        pending = 0  # tokens popped whose bytes have not yet been written
        popped = 0  # tokens in the answer (its usage: a deadline discards what is left)
        while True:
            await self._writable(send)
            if not self._alive():
                return  # leave the buffered tokens where they are: they were never sent
            self._confirm()
            chunk = await handle.next_chunk(self.chunk_tokens)
            if chunk is None:
                break
            pending += len(chunk)
            popped += len(chunk)
            text = self.decoder.feed(chunk)
            if text:  # an incomplete UTF-8 character waits for its next byte
                at = handle.clock()
                await self._body(send, _event(shape.text(text)))
                if not self._alive():
                    return  # uvicorn dropped the bytes: popped, never written (discarded)
                self._wrote(pending, at)
                pending = 0
        await self._finish(send, pending, popped)

    async def _finish(self, send: Send, pending: int, popped: int) -> None:
        handle, shape = self.handle, self.shape
        await self._writable(send)  # a stall here is watched like any other
        if not self._alive():
            return
        tail = self.decoder.flush()
        events = [_event(shape.text(tail))] if tail else []
        reason = handle.finish_reason
        if reason in _CUT:
            message, code, _ = _CUT[reason]
            events.append(_event(schema.error_body(message, type_="server_error", code=code)))
        else:
            events.append(_event(shape.final(reason)))
            if shape.include_usage:
                events.append(_event(shape.usage_chunk(handle.prompt_tokens,
                                                       _answered(handle, popped))))
        events.append(b"data: [DONE]\n\n")
        self._completing = True
        at = handle.clock()
        await send({"type": "http.response.body", "body": b"".join(events), "more_body": False})
        if pending and not self.disconnected.is_set:
            self._wrote(pending, at)
        await self._settle()

    @staticmethod
    async def _body(send: Send, data: bytes) -> None:
        await send({"type": "http.response.body", "body": data, "more_body": True})


def _answered(handle: StreamHandle, popped: int) -> int:
    """The completion tokens an answer's usage reports: those the engine generated, except
    that a deadline discards what its answer never carried (the client, who is billed by
    this figure, got ``popped``; the span counts the rest as discarded)."""
    if handle.finish_reason is FinishReason.DEADLINE:
        return min(popped, handle.completion_tokens)
    return handle.completion_tokens


class WholeResponse(_Exchange):
    """``stream: false``: collect every chunk, then one JSON response."""

    async def write(self, send: Send) -> None:
        handle = self.handle
        parts: list[str] = []
        popped = 0
        while (chunk := await handle.next_chunk(self.chunk_tokens)) is not None:
            popped += len(chunk)
            parts.append(self.decoder.feed(chunk))
        parts.append(self.decoder.flush())
        reason = handle.finish_reason
        retry_after = handle.engine_lost_retry_after_s
        if reason is FinishReason.ERROR and retry_after is not None:
            # the engine was lost, not this request: unavailable, come back (not a 500)
            status = 503
            payload = schema.error_body("the engine stopped responding and is being "
                                        "restarted; retry shortly", type_="server_error",
                                        code="engine_unavailable")
            self.headers["retry-after"] = str(retry_after)
        elif reason in _CUT:
            message, code, status = _CUT[reason]
            payload = schema.error_body(message, type_="server_error", code=code)
        else:
            status = 200
            payload = self.shape.whole("".join(parts), reason, handle.prompt_tokens,
                                       _answered(handle, popped))
        body = json.dumps(payload, separators=(",", ":")).encode()
        at = handle.clock()
        await send(self._start(status, b"application/json"))
        self._completing = True  # the server may close the connection after this (keep-alive off)
        await send({"type": "http.response.body", "body": body, "more_body": False})
        if popped and status == 200 and not self.disconnected.is_set:
            self._wrote(popped, at)
            await self._settle()

