"""One upstream answer relayed to one client, measured with the reference server's hooks.

A raw ASGI callable running two tasks, as the reference writer does
(``reference/transport/sse.py``):

* the **writer** reads the upstream answer one read at a time, scans it (``events.py``) and
  writes the complete events of that read, unchanged, before it reads again. The relay thus
  holds at most one read per stream: while the client's connection does not take bytes
  (uvicorn's ``send`` waits on flow control), the writer does not read the upstream, the
  upstream connection's bounded receive buffer fills and TCP stops the engine's writes. Tokens
  count as committed when their event arrives from the upstream, ``written`` when ``send``
  returned (the write's start, taken just before it, stamps stream TTFT) and ``delivered``
  once the peer acknowledged the connection offset that covers them (``delivery.Acks``, as
  the reference server counts them). After the last write the writer waits a bounded time for
  the tail's acknowledgements, then the request finishes with the upstream's finish reason
  (``stop``/``length``), at the time its last event arrived. While the writer waits on its
  read, a read that is exactly one whole chunk is relayed the same way in the upstream
  connection's callback (:meth:`Relay._take`), when the client's connection takes it without
  a wait; any other read, or a client connection above its high watermark, wakes the writer,
  whose ``send`` waits as above (the upstream connection then stops reading after one read).
* the **watcher** waits on ``receive``: an ``http.disconnect`` stops the writer at once (the
  request finishes ``client_cancel`` and its upstream request is closed, so the engine frees
  its slot). Every ``stall_poll_s`` it also looks at the writer: a write that has waited longer
  than a poll is a backpressure pause (``servescope_backpressure_pauses_total``), and one
  that has waited ``slow_consumer_timeout_s`` ends the stream ``slow_consumer``.

A stream the gateway ends itself (slow consumer, deadline, an upstream that resets, sends
malformed events or falls silent) gets an OpenAI-shaped error event and ``[DONE]``; a client
that still reads nothing ``abandon_after_s`` later has its connection reset instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import zlib
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

from servescope.instrumentation.request_recorder import RequestRecorder
from servescope.instrumentation.status import FinishReason
from servescope.instrumentation.terminal import Once
from servescope.reference.config import HttpLimits
from servescope.reference.transport import openai_schema as schema
from servescope.reference.transport.connections import Connections
from servescope.reference.transport.delivery import Acks, settle

from .commits import Commits
from .direct import Direct
from .events import (
    EventScanner,
    MalformedStream,
    StreamFacts,
    finish_reason_of,
    scan_whole,
    upstream_error_type,
)
from .upstream import UpstreamResponse, response_headers
from .wire import UpstreamBroken, UpstreamTimeout

__all__ = ["Relay", "RelaySettings"]

_log = logging.getLogger("servescope.gateway.relay")
Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

_DONE = b"data: [DONE]\n\n"
#: A write that waited longer than this for the client counts as a backpressure pause even
#: when the watcher did not see it (a write that does not wait returns in microseconds).
PAUSE_MIN_S = 0.005


@dataclass(frozen=True)
class RelaySettings:
    """What every relay of one gateway shares."""

    limits: HttpLimits
    slow_consumer_timeout_s: float
    max_event_bytes: int
    connections: Connections | None
    clock: Callable[[], float] = time.monotonic
    #: Where token commits go, once per event-loop turn (None: one telemetry step each).
    commits: Commits | None = None


class _Cut(Exception):
    """The gateway ends the stream: the finish reason and the client's error event."""

    def __init__(self, reason: FinishReason, code: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.code = code
        self.message = message


class Relay:
    """The upstream's answer (head already received) to the client."""

    def __init__(self, recorder: RequestRecorder, response: UpstreamResponse,
                 settings: RelaySettings, *, deadline_at: float | None) -> None:
        self.recorder = recorder
        self.response = response
        self.settings = settings
        self.deadline_at = deadline_at
        self.streamed = response.header(b"content-type").startswith("text/event-stream")
        self._gone = Once()  # the client disconnected (set once, by the watcher or a write)
        self.abandoned = False
        self.cut: _Cut | None = None
        self._scope: Scope = {}
        self._acks: Acks | None = None
        # Tokens written since the last offset mark, each event's by where its bytes end in
        # the stream's body as written (``_sent``), and how many they are.
        self._unmarked: list[tuple[int, int]] = []
        self._unmarked_tokens = 0
        self._sent = 0  # the body's bytes written to the connection so far, framing included
        self._body_at = 0  # where the last write's body began in those bytes
        self._transport: asyncio.Transport | None = None  # the client's connection
        self._direct: Direct | None = None  # chunked writes straight to that connection
        self._scanner: EventScanner | None = None  # the streamed answer's events
        self._in_send: float | None = None  # when the write in progress began
        self._paused = False  # a write is held back by the client's connection (counted)
        self._unwritten = 0  # tokens committed and not yet written (counted as buffered)
        self._completing = False  # the last write is under way: a disconnect is normal
        self._ended_at: float | None = None  # when the upstream's last event arrived
        self._cut_at: float | None = None  # when the gateway's own end of a cut went out
        # when a deadline or a slow consumer ended the stream: the terminal decision, which
        # the request's end-to-end time and its paused time end at (the cut's last bytes may
        # wait on a client that reads nothing, until the connection is reset)
        self._decided_at: float | None = None
        self._unread_from: float | None = None  # when the unread bytes' count began
        self._reason = FinishReason.ERROR
        self._upstream_error: str | None = None  # the span's error.type of an upstream error
        self._finishes: dict[int, str] | None = None  # the engine's own, for the span
        self._prompt = 0  # the engine's usage.prompt_tokens, when it said
        # An upstream that compressed its answer though asked not to (a compressing proxy in
        # front of the engine): read, and relayed, decompressed.
        self._inflate = _inflater(response.header(b"content-encoding"))

    # --- the exchange -------------------------------------------------------------------
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self._scope = scope
        connections = self.settings.connections
        probe = connections.probe(scope) if connections is not None else None
        self._acks = Acks(probe) if probe is not None else None
        self._transport = connections.transport(scope) if connections is not None else None
        writer = asyncio.create_task(self._write(send))
        watcher = asyncio.create_task(self._watch(receive, writer))
        try:
            await asyncio.wait({writer})
        except asyncio.CancelledError:  # the server is shutting down under us
            writer.cancel()
            if probe is not None:
                probe.close()
            self._release_levels()
            self._flush_commits()
            self.recorder.finish(FinishReason.CLIENT_CANCEL)
            await self._close_upstream()
            raise
        finally:
            watcher.cancel()
        try:
            if not writer.cancelled() and writer.exception() is not None:
                if self._connection_gone():  # a write to a connection reset under it: the
                    self._gone.claim()       # client left (a pipelining client read nothing)
                else:
                    self.cut = _Cut(FinishReason.ERROR, "gateway_error", "the gateway failed")
                    _log.error("relay failed", exc_info=writer.exception())
            await self._count_unread()
            await self._close_upstream()
            if self.cut is not None and not self.disconnected:
                await self._send_cut(send, self.cut)
            # the tail's acknowledgements, a cut stream's too: a slow client that reads on
            # after the cut is credited what it takes, or reset if it takes nothing
            if not self.abandoned:
                await self._settle()
        finally:
            if probe is not None:  # before any abort: an open duplicate would delay the reset
                self._confirm()
                probe.close()
            self._finish()
        if self.abandoned and connections is not None:
            _log.info("stream ended (%s) while its client read nothing: connection reset",
                      self.cut.reason if self.cut else self._reason)
            connections.abort(scope)
            for _ in range(2):  # let the transport report the loss before we return
                await asyncio.sleep(0)

    def _finish(self) -> None:
        self._release_levels()
        self._flush_commits()
        rec = self.recorder
        if self._prompt:
            rec.prompt_tokens(self._prompt)
        if self.disconnected:  # (when it was handled, not after the unread bytes were read)
            rec.finish(FinishReason.CLIENT_CANCEL, now=self._unread_from)
        elif self.cut is not None:
            rec.error_type(self.cut.code)  # reset, malformed, incomplete: all finish "error"
            # a deadline or a slow consumer at its decision; an error as its last bytes went
            # out (the client cannot have read them earlier)
            at = self._decided_at if self._decided_at is not None else self._cut_at
            rec.finish(self.cut.reason, now=at)
        else:
            if self._upstream_error is not None:
                rec.error_type(self._upstream_error)
            rec.finish(self._reason, now=self._ended_at, engine_reasons=self._finishes)

    def _ended_by(self, facts: StreamFacts) -> None:
        """The finish the upstream's own answer reports (and, for an error, why)."""
        self._reason = finish_reason_of(facts)
        self._finishes = facts.finishes
        if self._reason is FinishReason.ERROR:
            self._upstream_error = upstream_error_type(facts)

    def _commit(self, tokens: int, at: float) -> None:
        commits = self.settings.commits
        if commits is not None:
            commits.add(self.recorder, tokens, at)
            self._unwritten += tokens
        else:
            self.recorder.tokens_committed(tokens, now=at)

    def _release_levels(self) -> None:
        """The stream is ending: its buffered tokens and its pause leave the levels."""
        commits = self.settings.commits
        if commits is None:
            return
        if self._unwritten:
            commits.written(self._unwritten)
            self._unwritten = 0
        if self._paused:
            self._paused = False
            commits.pause_ended()

    def _flush_commits(self) -> None:
        if self.settings.commits is not None:
            self.settings.commits.flush()

    async def _count_unread(self) -> None:
        """A stream the gateway ends before the upstream did (the client left, read too
        slowly, or its deadline passed): the events the engine already sent and the gateway
        never read, held in the upstream connection's receive buffer, are read (for at most
        :data:`UNREAD_S`, and no more than that buffer holds) and counted committed, so that
        they count as discarded. The engine counted them delivered (its peer, the gateway's
        kernel, acknowledged them), and no client will get them: uncounted, they would be
        waste neither side reports. (What is still in the engine's own send buffer is
        unacknowledged: the engine counts that itself.)"""
        scanner = self._scanner
        ended_early = self.disconnected or (self.cut is not None and self.cut.reason in (
            FinishReason.SLOW_CONSUMER, FinishReason.DEADLINE))
        if scanner is None or not ended_early or scanner.facts.done or scanner.failure:
            return
        self._unread_from = self.settings.clock()
        bound = self.response.receive_buffer_bytes
        taken = 0
        with contextlib.suppress(Exception):
            async with asyncio.timeout(UNREAD_S):
                async for data in self.response.aiter_raw():
                    self._feed(scanner, data)
                    taken += len(data)
                    if scanner.facts.done or scanner.failure or taken >= bound:
                        return

    async def _close_upstream(self) -> None:
        with contextlib.suppress(Exception):
            await self.response.aclose()

    # --- the writer ---------------------------------------------------------------------
    async def _write(self, send: Send) -> None:
        headers = response_headers(self.response.headers,  # the framing is ours
                                   origin=self.response.origin)
        if self._inflate is not None:  # relayed decompressed
            headers = [(k, v) for k, v in headers if k != b"content-encoding"]
        try:
            async with asyncio.timeout(self._remaining()):
                if self.streamed:
                    await send({"type": "http.response.start",
                                "status": self.response.status_code, "headers": headers})
                    self._direct = Direct.of(self._transport)
                    await self._relay_stream(send)
                else:
                    await self._relay_whole(send, headers)
        except TimeoutError:
            self.cut = _Cut(FinishReason.DEADLINE, "deadline_exceeded",
                            "the request's deadline passed before the upstream finished")
            self._decided_at = self.settings.clock()
        except _Ended as exc:
            _log.warning("upstream stream %s", exc)
            self.cut = _Cut(FinishReason.ERROR, "upstream_incomplete",
                            f"the upstream's stream {exc}")
        except MalformedStream as exc:
            _log.warning("upstream sent a malformed stream: %s", exc)
            self.cut = _Cut(FinishReason.ERROR, "upstream_malformed",
                            f"the upstream sent a malformed event stream ({exc})")
        except UpstreamTimeout:
            self.cut = _Cut(FinishReason.ERROR, "upstream_timeout",
                            "the upstream sent nothing for too long")
        except UpstreamBroken as exc:
            _log.warning("upstream failed mid-answer: %s", exc)
            self.cut = _Cut(FinishReason.ERROR, "upstream_error",
                            f"the upstream failed mid-stream ({exc})")

    def _remaining(self) -> float | None:
        if self.deadline_at is None:
            return None
        return max(0.0, self.deadline_at - self.settings.clock())

    async def _relay_stream(self, send: Send) -> None:
        scanner = self._scanner = EventScanner(self.settings.max_event_bytes)
        if self._direct is not None:
            self.response.divert(self._take)
        try:
            await self._relay_reads(send, scanner)
        except _DoneRelayed:
            pass  # [DONE] went out in the upstream's callback
        finally:
            self.response.divert(None)
        facts = scanner.facts
        self._prompt = facts.prompt_tokens or 0
        if scanner.pending.strip() or not (facts.done or facts.finishes or facts.error):
            raise _Ended(scanner)
        self._ended_by(facts)
        if self.response.read_whole:
            # its connection goes back to the pool before the last write, so the client's
            # next request (sent once it has read that write) finds it
            await self._close_upstream()
            await self._last(send, b"")
            return
        # [DONE] came before the body's end (llama.cpp writes the terminator apart): the
        # client's stream ends now, then the rest is read for the connection's reuse
        await self._last(send, b"")
        await self.response.drain(_DRAIN_S)
        await self._close_upstream()

    async def _relay_reads(self, send: Send, scanner: EventScanner) -> None:
        """The reads the writer wakes for (see :meth:`_take` for the others)."""
        async for data in self.response.aiter_raw():
            out, tokens = self._feed(scanner, data)
            if out:
                ends = scanner.ends
                at = await self._send(send, out)
                if at is None:
                    return  # the client is gone: nothing more is written
                if tokens:
                    self._wrote(tokens, at, ends)
            if scanner.failure is not None:  # after the good events before it
                raise scanner.failure
            if scanner.facts.done:
                self._completing = True  # the client may close once it has read [DONE]
                return

    def _feed(self, scanner: EventScanner, data: bytes) -> tuple[bytes, int]:
        """A read's whole events and their tokens, the tokens committed as they arrived."""
        arrived = self.settings.clock()
        if self._inflate is not None:
            data = _inflated(self._inflate, data, self.settings.max_event_bytes)
        out, tokens = scanner.feed(data)
        if tokens:
            self._commit(tokens, arrived)
        if out:
            self._ended_at = arrived
        return out, tokens

    def _take(self, data: bytes) -> bool:
        """One whole upstream chunk, relayed in the upstream connection's callback while the
        writer waits on its read (``UpstreamResponse.divert``): what the writer's loop does
        with a read, for a write that needs no wait, without waking the writer (a task step,
        a future and the read's generator per chunk). False leaves it to the writer: the
        client's connection is above its high watermark or gone, so the writer's ``send``
        waits (backpressure) or finds it gone. A malformed event is raised to the writer
        after the good events before it are written."""
        direct, scanner = self._direct, self._scanner
        if direct is None or scanner is None or not direct.writable or not self._alive():
            return False
        out, tokens = self._feed(scanner, data)
        if out:
            at = self.settings.clock()
            direct.write(out)
            if self._alive():
                self._chunk_written(len(out))
                if tokens:
                    self._wrote(tokens, at, scanner.ends)
        if scanner.failure is not None:
            raise scanner.failure
        if scanner.facts.done:
            self._completing = True  # the client may close once it has read [DONE]
            raise _DoneRelayed  # wakes the writer: the stream ends here
        return True

    async def _relay_whole(self, send: Send, headers: list[tuple[bytes, bytes]]) -> None:
        """A non-streamed answer: read whole (bounded), then written in one piece."""
        clock, cap = self.settings.clock, self.settings.max_event_bytes
        parts: list[bytes] = []
        size = 0
        async for data in self.response.aiter_raw():
            size += len(data)
            if size > cap:
                raise MalformedStream(f"an answer longer than {cap} bytes")
            parts.append(data)
        self._ended_at = clock()
        await self._close_upstream()  # read whole: back to the pool before the write
        body = b"".join(parts)
        if self._inflate is not None:
            body = _inflated(self._inflate, body, cap)
        facts = scan_whole(body)
        self._prompt = facts.prompt_tokens or 0
        self._ended_by(facts)
        if facts.tokens:
            self._commit(facts.tokens, self._ended_at)
        status = self.response.status_code
        if status != 204:  # a 204 carries no Content-Length (RFC 9110 8.6)
            headers = [*headers, (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        at = await self._last(send, body)
        if at is not None and facts.tokens:
            self._wrote(facts.tokens, at, None)

    async def _send(self, send: Send, body: bytes) -> float | None:
        """Write ``body`` (more to come); the write's start, or None if the client is gone."""
        if not self._alive():
            return None
        clock = self.settings.clock
        at = self._in_send = clock()
        direct = self._direct
        if direct is not None and direct.write(body):
            # taken below the connection's high watermark: nothing waited (no pause began,
            # the watcher did not run)
            self._in_send = None
        else:
            await send({"type": "http.response.body", "body": body, "more_body": True})
            self._in_send = None
            if self._paused or clock() - at > PAUSE_MIN_S:
                self._pause(at)
                self._resume()
        if not self._alive():
            return None  # (uvicorn's send drops the bytes of a connection that is gone)
        self._chunk_written(len(body))
        return at

    async def _last(self, send: Send, body: bytes) -> float | None:
        if not self._alive():
            return None
        # Mark what was written before this write goes out: a client may close once it has
        # read [DONE] without reading the stream's terminator, whose bytes are then never
        # acknowledged, and a mark covering them would never be confirmed.
        self._mark()
        self._completing = True
        # (a write the watcher sees: a client that stops reading just before the stream's
        # end, its connection above its high watermark, is cut as slow like any other, not
        # waited for forever)
        at = self._in_send = self.settings.clock()
        try:
            await send({"type": "http.response.body", "body": body, "more_body": False})
        finally:
            self._in_send = None
        return at

    def _pause(self, since: float) -> None:
        self.recorder.paused(now=since)  # a no-op while already paused

    def _resume(self) -> None:
        if self._paused:
            self._paused = False
            if self.settings.commits is not None:
                self.settings.commits.pause_ended()
        self.recorder.resumed()

    def _connection_gone(self) -> bool:
        """The client's connection is closed or closing (its transport says so)."""
        transport = self._transport
        return self.disconnected or (transport is not None and transport.is_closing())

    # --- delivery (as reference/transport/sse.py counts it) ---------------------------------------
    def _alive(self) -> bool:
        """Whether bytes written now reach the client (uvicorn's ``send`` drops bytes after
        a disconnect without a word, and the watcher may not have run yet)."""
        if self.disconnected:
            return False
        if self.settings.connections is not None and (
                self._transport is None or self._transport.is_closing()):
            if not self._completing:
                self._gone.claim()
            return False
        return True

    def _chunk_written(self, size: int) -> None:
        """A chunk of ``size`` body bytes was written, framed as HTTP/1.1 chunked bodies are
        (the direct path's framing and uvicorn's alike: its size in hex, CRLF, the bytes,
        CRLF)."""
        self._body_at = self._sent + len(b"%x\r\n" % size)
        self._sent = self._body_at + size + 2

    def _wrote(self, n: int, at: float, ends: list[tuple[int, int]] | None) -> None:
        """``n`` tokens in the chunk just written, whose events end at ``ends`` in it (None: a
        whole answer, marked at once)."""
        self.recorder.written(n, now=at)
        commits = self.settings.commits
        if commits is not None:
            self._unwritten -= n
            commits.written(n)
        acks = self._acks
        if acks is None:
            self.recorder.delivered(n)  # no acknowledgements here: delivered means written
            return
        if ends is None:
            acks.wrote(n)
            return
        # Each event's tokens are marked by where its bytes end, so a client that read part
        # of a write is credited the events it took (a read of many events is one write).
        # The connection's offset is read at the next look (the watcher's poll, the end, every
        # _MARK_EVERY tokens), not per write: two socket reads less per chunk. Where a
        # written byte stands on the connection is that offset less the body bytes written
        # after it; counting only bytes that were written, a token is never credited before
        # the peer acknowledged it.
        start = self._body_at
        self._unmarked.extend((start + end, tokens) for end, tokens in ends)
        self._unmarked_tokens += n
        if self._unmarked_tokens >= _MARK_EVERY:
            self._mark()

    def _mark(self) -> None:
        acks, unmarked = self._acks, self._unmarked
        if acks is None or not unmarked:
            return
        offset = acks.probe.offset()
        sent = self._sent
        for at, tokens in unmarked:
            acks.marked(None if offset is None else offset - (sent - at), tokens)
        unmarked.clear()
        self._unmarked_tokens = 0

    def _confirm(self) -> None:
        acks = self._acks
        if acks is None:
            return
        self._mark()
        n = acks.confirmed()
        if n:
            self.recorder.delivered(n)

    async def _settle(self) -> None:
        """After the last write: wait for the tail's acknowledgements while they progress
        (at most ``ack_wait_s`` without any; past that, the connection is reset:
        :func:`settle`)."""
        acks = self._acks
        if acks is not None and not self.disconnected and \
                not await settle(acks, self._confirm, self.settings.limits.ack_wait_s):
            self.abandoned = True

    # --- the end the gateway writes -----------------------------------------------------
    async def _send_cut(self, send: Send, cut: _Cut) -> None:
        """The error event and [DONE]; a client that reads nothing for ``abandon_after_s``
        has its connection reset instead."""
        if not self._alive():
            return
        error = schema.error_body(cut.message, type_="server_error", code=cut.code)
        closing = self._deadline_chunk() if cut.reason is FinishReason.DEADLINE else None
        body = b"data: " + json.dumps(closing or error, separators=(",", ":")).encode() \
            + b"\n\n" + _DONE
        try:
            async with asyncio.timeout(self.settings.limits.abandon_after_s):
                if not self._started:
                    await send({"type": "http.response.start", "status": _CUT_STATUS.get(
                        cut.code, 502), "headers": [(b"content-type", b"application/json")]})
                    body = json.dumps(error).encode()
                self._cut_at = await self._last(send, body)
        except TimeoutError:
            self.abandoned = True

    def _deadline_chunk(self) -> dict[str, Any] | None:
        """A streamed answer cut by its deadline ends as the reference server ends one: a last
        chunk in the upstream's own shape, ``finish_reason`` ``length`` (the answer is whole
        as far as it goes, like one cut by ``max_tokens``) and ``servescope_finish_reason``
        ``deadline``; not an error an OpenAI client raises. None before any chunk (no shape
        to follow): the error event then."""
        facts = self._scanner.facts if self._scanner is not None else None
        if not self._started or facts is None or facts.shape is None:
            return None
        kind, created, model = facts.shape
        choice: dict[str, Any] = {"index": 0, "finish_reason": "length"}
        if kind == "chat.completion.chunk":
            choice["delta"] = {}
        elif kind == "text_completion":
            choice["text"] = ""
        else:
            return None
        return {"id": facts.response_id, "object": kind, "created": created, "model": model,
                "choices": [choice], "servescope_finish_reason": "deadline"}

    # --- the watcher --------------------------------------------------------------------
    async def _watch(self, receive: Receive, writer: asyncio.Task[None]) -> None:
        poll_s = self.settings.limits.stall_poll_s
        while True:
            try:
                message = await asyncio.wait_for(receive(), poll_s)
            except TimeoutError:
                self._confirm()
                if self._stalled_too_long():
                    writer.cancel()
                    return
                continue
            if message["type"] != "http.disconnect":
                continue  # the body was read already
            if not self._completing:
                self._gone.claim()
                writer.cancel()
            return

    def _stalled_too_long(self) -> bool:
        since = self._in_send
        if since is None:
            return False
        if not self._paused:
            self._paused = True
            if self.settings.commits is not None:
                self.settings.commits.pause_began()
            self._pause(since)
        if self.settings.clock() - since < self.settings.slow_consumer_timeout_s:
            return False
        self.cut = _Cut(FinishReason.SLOW_CONSUMER, "slow_consumer",
                        "the client read too slowly; the stream was closed")
        self._decided_at = self.settings.clock()
        return True

    @property
    def disconnected(self) -> bool:
        return self._gone.is_set

    @property
    def _started(self) -> bool:
        return self.streamed or self._completing


def _inflater(encoding: str) -> Any:
    """A decompressor for a gzip or deflate answer; None for one that is not compressed (or
    compressed in a way the gateway does not read: relayed as it came)."""
    coding = encoding.strip().lower()
    if coding in ("gzip", "x-gzip"):
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if coding == "deflate":
        return zlib.decompressobj(32 + zlib.MAX_WBITS)  # zlib-wrapped, as HTTP's deflate is
    return None


def _inflated(inflate: Any, data: bytes, cap: int) -> bytes:
    """``data`` decompressed; an answer that inflates past ``cap`` at once is malformed."""
    try:
        out: bytes = inflate.decompress(data, cap)
    except zlib.error as exc:
        raise MalformedStream(f"a compressed answer that does not decompress ({exc})") from None
    if inflate.unconsumed_tail:
        raise MalformedStream(f"a compressed answer that inflates past {cap} bytes")
    return out


class _DoneRelayed(Exception):
    """[DONE] was relayed in the upstream's callback: the writer ends the stream."""


class _Ended(Exception):
    """The upstream's stream ended before its last event, or without one."""

    def __init__(self, scanner: EventScanner) -> None:
        super().__init__("ended before the answer was complete"
                         if not scanner.pending.strip() else "ended inside an event")


#: Tokens written between two marks of the connection's offset at most (see ``_wrote``).
_MARK_EVERY = 8
_CUT_STATUS = {"deadline_exceeded": 504, "upstream_timeout": 504}
#: How long the body's end is waited for after [DONE] (then the connection is dropped).
_DRAIN_S = 1.0
#: How long a stream the gateway ends early reads what its upstream sent and it never read
#: (:meth:`Relay._count_unread`): what the connection's receive buffer holds arrives at once.
UNREAD_S = 0.05
