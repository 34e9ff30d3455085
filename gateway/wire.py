"""One HTTP/1.1 connection to the upstream, read through a plain asyncio protocol.

The gateway's hot path is one upstream read per relayed chunk. A general client (httpx over
httpcore and h11) spends tens of microseconds of Python per read in its layers; this module
does what a proxy of OpenAI-compatible engines needs and no more:

* :class:`Connection` holds what the socket delivered, **at most one read beyond the one being
  relayed**: a read that arrives while the reader is busy pauses the transport until the
  reader asks again, so a client that stops reading stops the gateway reading, the bounded
  receive buffer fills and TCP pushes back on the engine (as before, with httpx).
* :func:`parse_head` reads a response head (status line and header fields);
  :class:`BodyReader` undoes the message framing (RFC 9112 section 6.3: ``chunked``,
  ``Content-Length``, or until the connection closes) and says whether the connection may
  carry another request.

Anything that cannot be read as HTTP/1.1 raises :class:`UpstreamBroken`; a read that waits
longer than its timeout raises :class:`UpstreamTimeout`.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

__all__ = [
    "BodyReader",
    "Connection",
    "ResponseHead",
    "UpstreamBroken",
    "UpstreamTimeout",
    "parse_head",
    "whole_chunk",
]

#: The longest response head (status line and fields) and chunk-size or trailer line read.
MAX_HEAD_BYTES = 64 << 10
MAX_LINE_BYTES = 4096
_HEX = re.compile(rb"[0-9A-Fa-f]{1,15}")
_STATUS = re.compile(rb"HTTP/1\.([01]) ([0-9]{3})(?: [^\r\n]*)?")


class UpstreamBroken(Exception):
    """The upstream's connection failed or sent what is not HTTP/1.1 (the message says how,
    without addresses)."""


class UpstreamTimeout(Exception):
    """The upstream sent nothing for longer than the read's timeout."""


@dataclass(frozen=True)
class ResponseHead:
    status: int
    #: Header fields as sent, names lower-cased.
    headers: list[tuple[bytes, bytes]]
    #: HTTP/1.1 without ``Connection: close``.
    keep_alive: bool

    def get(self, name: bytes) -> bytes | None:
        for key, value in self.headers:
            if key == name:
                return value
        return None


def parse_head(raw: bytes) -> ResponseHead:
    """The head ``raw`` (up to, without, the blank line that ends it)."""
    lines = raw.split(b"\r\n")
    match = _STATUS.fullmatch(lines[0])
    if match is None:
        raise UpstreamBroken("a response status line that is not HTTP/1.x")
    headers: list[tuple[bytes, bytes]] = []
    for line in lines[1:]:
        name, sep, value = line.partition(b":")
        if not sep or not name or name != name.strip() or line[:1] in b" \t":
            raise UpstreamBroken("a malformed response header field")
        headers.append((name.lower(), value.strip(b" \t")))
    close = any(k == b"connection" and b"close" in v.lower() for k, v in headers)
    return ResponseHead(int(match.group(2)), headers, match.group(1) == b"1" and not close)


class BodyReader:
    """Undoes the framing of one response's body, fed the bytes after its head."""

    __slots__ = ("_buf", "_need", "_state", "done", "extra", "framing")

    def __init__(self, head: ResponseHead, method: str) -> None:
        self._buf = b""
        self._need = 0  # chunk or body bytes still to come
        self._state = "size"  # chunked: size, data, crlf, trailer
        self.extra = False  # bytes past the message's end: the connection is not reusable
        self.done = False
        status = head.status
        coding = head.get(b"transfer-encoding")
        length = head.get(b"content-length")
        if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
            self.framing, self.done = "none", True
        elif coding is not None:
            # chunked when it is the last coding; else the body runs to the connection's end
            self.framing = "chunked" if coding.lower().rsplit(b",", 1)[-1].strip() == \
                b"chunked" else "close"
        elif length is not None:
            if not length.isdigit():
                raise UpstreamBroken("a Content-Length that is not a number")
            self.framing, self._need = "length", int(length)
            self.done = self._need == 0
        else:
            self.framing = "close"

    @property
    def reusable(self) -> bool:
        """Whether the connection may carry another request once this body was read."""
        return self.done and not self.extra and self.framing != "close"

    def feed(self, data: bytes) -> bytes:
        """The body bytes ``data`` completes (framing removed)."""
        if self.done:
            self.extra = self.extra or bool(data)
            return b""
        if self.framing == "chunked":
            return self._chunked(data)
        if self.framing == "length":
            if len(data) >= self._need:
                body, self.extra = data[:self._need], len(data) > self._need
                self._need, self.done = 0, True
                return body
            self._need -= len(data)
        return data

    @property
    def at_chunk_start(self) -> bool:
        """Chunked, not done, and nothing buffered before the next chunk's size line (a
        whole chunk read now is all of the body it adds)."""
        return self.framing == "chunked" and not self.done and not self._buf and \
            self._state == "size"

    def eof(self) -> None:
        """The connection ended: complete for a body that runs to its end, else broken."""
        complete = self.done or self.framing == "close"
        if not complete:
            raise UpstreamBroken("the connection closed before the answer was complete")
        self.done = complete  # parse state of one reader on one task, not a shared flag

    def _chunked(self, data: bytes) -> bytes:
        if not self._buf and self._state == "size":
            whole = whole_chunk(data)
            if whole is not None:  # the usual read: one chunk, exactly
                return whole
        buf = self._buf + data if self._buf else data
        pos, end, out = 0, len(buf), []
        while pos < end and not self.done:
            state = self._state
            if state == "data":
                take = min(self._need, end - pos)
                out.append(buf[pos:pos + take])
                pos += take
                self._need -= take
                if not self._need:
                    self._state = "crlf"
                continue
            if state == "crlf":
                if end - pos < 2:
                    break
                if buf[pos:pos + 2] != b"\r\n":
                    raise UpstreamBroken("a chunk that does not end where its size says")
                pos += 2
                self._state = "size"
                continue
            cut = buf.find(b"\r\n", pos)
            if cut < 0:
                if end - pos > MAX_LINE_BYTES:
                    raise UpstreamBroken("a chunk-size or trailer line that never ends")
                break
            line, pos = buf[pos:cut], cut + 2
            if state == "trailer":
                self.done = not line  # trailer fields are read past; a blank line ends all
                continue
            size = line.split(b";", 1)[0].strip(b" \t")
            if _HEX.fullmatch(size) is None:
                raise UpstreamBroken("a chunk size that is not hexadecimal")
            self._need = int(size, 16)
            self._state = "data" if self._need else "trailer"
        self._buf = buf[pos:]
        if self.done and self._buf:
            self.extra = True
        if not out:
            return b""
        return out[0] if len(out) == 1 else b"".join(out)


def whole_chunk(data: bytes) -> bytes | None:
    """The data of ``data`` when it is exactly one complete chunk of a size line without
    extensions (what engines write per event), else None (the general reader decides)."""
    cut = data.find(b"\r\n", 0, 18)
    if cut <= 0:
        return None
    size = data[:cut]
    if _HEX.fullmatch(size) is None:
        return None
    n = int(size, 16)
    end = cut + 2 + n
    if n == 0 or len(data) != end + 2 or data[end:] != b"\r\n":
        return None
    return data[cut + 2:end]


class Connection(asyncio.Protocol):
    """One upstream connection. Its reader (one task at a time) calls :meth:`read`."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self._reads: list[bytes] = []
        self._waiter: asyncio.Future[None] | None = None
        self._paused = False
        self.eof = False
        self.error: BaseException | None = None
        self.idle_since = 0.0  # when it last went back to the pool
        # The read timeout: one timer per connection, re-armed when it fires (not one timer
        # per read: a relayed stream waits once per chunk).
        self._timer: asyncio.TimerHandle | None = None
        self._wait_since = 0.0
        self._timeout_s = 0.0
        #: While the reader waits with nothing unread: offered each read first (True: it
        #: took the bytes, the reader goes on waiting; an exception: the reader gets it).
        self.sink: Callable[[bytes], bool] | None = None

    # --- the protocol ---------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # a stream transport (uvloop's is not an asyncio.Transport subclass)
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        waiter = self._waiter
        sink = self.sink
        if sink is not None and waiter is not None and not self._reads and not waiter.done():
            try:
                taken = sink(data)
            except Exception as exc:  # the reader's to handle, in its own task
                self._waiter = None
                waiter.set_exception(exc)
                return
            if taken:  # the silence the read timeout measures starts again
                self._wait_since = asyncio.get_running_loop().time()
                return
        self._reads.append(data)
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)
        elif not self._paused and self.transport is not None:
            # the reader is busy with the previous read: read nothing more until it asks
            self._paused = True
            self.transport.pause_reading()

    def eof_received(self) -> bool:
        self.eof = True
        self._wake()
        return False  # the transport closes itself

    def connection_lost(self, exc: Exception | None) -> None:
        self.eof = True
        if exc is not None:
            self.error = exc
        self._wake()
        self._disarm()

    def _wake(self) -> None:
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    # --- the reader -----------------------------------------------------------------------
    @property
    def usable(self) -> bool:
        """Idle, open and silent: may carry a request."""
        return (not self.eof and not self._reads and self.transport is not None
                and not self.transport.is_closing())

    def write(self, data: bytes) -> None:
        if self.transport is None or self.transport.is_closing():
            raise UpstreamBroken("the connection is closed")
        self.transport.write(data)

    async def read(self, timeout_s: float) -> bytes:
        """The next bytes received (all that arrived since the last read); ``b""`` once the
        upstream has closed its side. :class:`UpstreamBroken` on a reset."""
        reads = self._reads
        if not reads:
            if self._paused:
                self._paused = False
                if self.transport is not None:
                    self.transport.resume_reading()
            if not self.eof:
                loop = asyncio.get_running_loop()
                waiter = self._waiter = loop.create_future()
                self._wait_since = now = loop.time()
                self._timeout_s = timeout_s
                timer = self._timer
                if timer is None or timer.when() > now + timeout_s:
                    if timer is not None:
                        timer.cancel()
                    self._timer = loop.call_at(now + timeout_s, self._check_silence)
                try:
                    await waiter
                finally:
                    self._waiter = None
            if not reads:
                if self.error is not None:
                    raise UpstreamBroken(f"the connection failed "
                                         f"({type(self.error).__name__})")
                return b""
        data = reads[0] if len(reads) == 1 else b"".join(reads)
        reads.clear()
        return data

    def _check_silence(self) -> None:
        """The timer: a read waiting ``timeout_s`` fails; one waiting less re-arms it."""
        self._timer = None
        waiter = self._waiter
        if waiter is None or waiter.done():
            return  # no read waits: the next one arms the timer again
        due = self._wait_since + self._timeout_s
        loop = asyncio.get_running_loop()
        if loop.time() >= due:
            waiter.set_exception(UpstreamTimeout())
        else:
            self._timer = loop.call_at(due, self._check_silence)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def rest(self) -> None:
        """Idle in the pool: read again, so an upstream that closes it is seen at once."""
        self.sink = None
        if self._paused and self.transport is not None:
            self._paused = False
            self.transport.resume_reading()

    def close(self) -> None:
        """Drop the connection at once (an unfinished answer: the engine sees it go)."""
        if self.transport is not None:
            self.transport.abort()
        self.eof = True
        self._disarm()
