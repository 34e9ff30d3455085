"""The gateway's upstream reader (gateway/wire.py): response heads, message framing in any
split the network may deliver, broken framing named, and a real connection's backpressure
(a reader that does not ask stops the socket being read)."""

from __future__ import annotations

import asyncio
import socket

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servescope.gateway.wire import (
    BodyReader,
    Connection,
    UpstreamBroken,
    UpstreamTimeout,
    parse_head,
)

EVENTS = [b'data: {"choices":[{"text":"a"}]}\n\n', b"data: [DONE]\n\n"]
CHUNKED = b"".join(b"%x\r\n%s\r\n" % (len(e), e) for e in EVENTS) + b"0\r\n\r\n"


def _reader(head: bytes, method: str = "POST") -> BodyReader:
    return BodyReader(parse_head(head), method)


def _split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    return [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]


def test_a_head_is_read_with_its_status_fields_and_keep_alive() -> None:
    head = parse_head(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                      b"Transfer-Encoding: chunked")
    assert head.status == 200 and head.keep_alive
    assert head.get(b"content-type") == b"text/event-stream"
    assert not parse_head(b"HTTP/1.1 200 OK\r\nconnection: close").keep_alive
    assert not parse_head(b"HTTP/1.0 200 OK").keep_alive


@pytest.mark.parametrize("raw", [b"HTTP/2 200", b"SPDY 200 OK", b"HTTP/1.1 2000 OK",
                                 b"HTTP/1.1 200 OK\r\nno colon", b"HTTP/1.1 200 OK\r\n folded: x",
                                 b"HTTP/1.1 200 OK\r\nname : value"])
def test_a_malformed_head_is_refused(raw: bytes) -> None:
    with pytest.raises(UpstreamBroken):
        parse_head(raw)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(CHUNKED)), max_size=12))
def test_a_chunked_body_reads_the_same_in_any_split(cuts: list[int]) -> None:
    reader = _reader(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked")
    body = b"".join(reader.feed(piece) for piece in _split(CHUNKED, cuts))
    assert body == b"".join(EVENTS) and reader.done and reader.reusable


def test_chunk_extensions_and_trailers_are_read_past() -> None:
    reader = _reader(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked")
    body = reader.feed(b"3;ext=1\r\nabc\r\n0\r\nx-trailer: 1\r\n\r\n")
    assert body == b"abc" and reader.done and reader.reusable


@pytest.mark.parametrize("wire", [b"zz\r\nabc\r\n", b"3\r\nabcd\r\n", b"-3\r\nabc\r\n",
                                  b"0x3\r\nabc\r\n", b"f" * 5000])
def test_broken_chunk_framing_is_named(wire: bytes) -> None:
    reader = _reader(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked")
    with pytest.raises(UpstreamBroken):
        reader.feed(wire)


def test_a_body_that_ends_early_is_broken_and_the_connection_not_reused() -> None:
    reader = _reader(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked")
    assert reader.feed(b"3\r\nabc\r\n") == b"abc"
    with pytest.raises(UpstreamBroken):
        reader.eof()
    assert not reader.reusable


def test_length_close_and_bodiless_framing() -> None:
    sized = _reader(b"HTTP/1.1 200 OK\r\ncontent-length: 5")
    assert sized.feed(b"abc") == b"abc" and not sized.done
    assert sized.feed(b"de") == b"de" and sized.done and sized.reusable
    extra = _reader(b"HTTP/1.1 200 OK\r\ncontent-length: 2")
    assert extra.feed(b"abX") == b"ab" and extra.done and not extra.reusable
    until_close = _reader(b"HTTP/1.1 200 OK")
    assert until_close.feed(b"anything") == b"anything"
    until_close.eof()
    assert until_close.done and not until_close.reusable
    assert _reader(b"HTTP/1.1 204 No Content").done
    assert _reader(b"HTTP/1.1 200 OK\r\ncontent-length: 9", method="HEAD").done
    with pytest.raises(UpstreamBroken):
        _reader(b"HTTP/1.1 200 OK\r\ncontent-length: -1")


def test_a_reader_that_does_not_ask_stops_the_socket_being_read() -> None:
    """Backpressure: with one read held, the connection reads nothing more, so the sender's
    writes stall once the kernel buffers are full; asking again drains it all."""

    async def scenario() -> tuple[int, int, int]:
        loop = asyncio.get_running_loop()
        ours, theirs = socket.socketpair()
        theirs.setblocking(False)
        _, conn = await loop.create_connection(Connection, sock=ours)
        sent = 0
        piece = b"x" * 65536
        for _ in range(2000):  # up to 128 MiB if nothing pushed back
            try:
                sent += theirs.send(piece)
            except BlockingIOError:
                await asyncio.sleep(0.05)  # let the loop read what it will
                try:
                    sent += theirs.send(piece)
                except BlockingIOError:
                    break
        stalled_at = sent
        got = 0
        theirs.close()
        while data := await conn.read(5.0):
            got += len(data)
        conn.close()
        return stalled_at, got, sent

    stalled_at, got, sent = asyncio.run(scenario())
    assert stalled_at < 32 << 20, f"the sender wrote {stalled_at} bytes nobody asked for"
    assert got == sent


def test_a_silent_upstream_times_out_and_a_closed_one_reads_empty() -> None:
    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        ours, theirs = socket.socketpair()
        _, conn = await loop.create_connection(Connection, sock=ours)
        with pytest.raises(UpstreamTimeout):
            await conn.read(0.05)
        theirs.send(b"late")
        assert await conn.read(5.0) == b"late"
        theirs.close()
        assert await conn.read(5.0) == b""  # a clean end: the caller judges the framing
        assert not conn.usable
        conn.close()

    asyncio.run(scenario())


def test_the_timeout_counts_from_each_reads_own_wait() -> None:
    """One timer per connection: a read that starts waiting late is given its whole timeout,
    not the remainder of an earlier read's."""

    async def scenario() -> float:
        loop = asyncio.get_running_loop()
        ours, theirs = socket.socketpair()
        _, conn = await loop.create_connection(Connection, sock=ours)
        theirs.send(b"first")
        assert await conn.read(0.3) == b"first"  # arms the timer for about now + 0.3
        await asyncio.sleep(0.2)
        started = loop.time()
        with pytest.raises(UpstreamTimeout):
            await conn.read(0.3)
        waited = loop.time() - started
        conn.close()
        theirs.close()
        return waited

    assert asyncio.run(scenario()) >= 0.29
