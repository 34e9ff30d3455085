"""A relayed chunk written straight to uvicorn's connection, past the ASGI ``send``.

Every chunk of a stream goes through the same three steps in uvicorn's ``send`` (a message
dict, a coroutine, the state checks, the chunk framing) before ``transport.write``; at a
chunk per token per stream that was a visible share of the gateway's time per chunk. Once
the response has started on uvicorn's httptools connection (chunked: the relay sends no
length), a body chunk is only those framed bytes on the transport, so :class:`Direct` writes
them there itself, on the same terms as ``send``: only while the connection's flow control
is not paused (above its high watermark the relay goes through ``send``, which waits for
the drain: backpressure is unchanged) and only while the response is the one in progress,
not complete and its client still there. The response's last write still goes through
``send``, so uvicorn completes its cycle (keep-alive, the next request) as before.
Anything other than uvicorn's httptools connection (h11, another server) gets None: the
relay then uses ``send`` for every chunk.
"""

from __future__ import annotations

import asyncio
from typing import Any

__all__ = ["Direct"]


class Direct:
    """Chunked body writes to one connection's transport, for its response in progress."""

    def __init__(self, transport: asyncio.Transport, flow: Any, cycle: Any) -> None:
        self.transport = transport
        self.flow = flow  # uvicorn's FlowControl: write_paused above the high watermark
        self.cycle = cycle  # uvicorn's RequestResponseCycle of this response

    @classmethod
    def of(cls, transport: asyncio.Transport | None) -> Direct | None:
        """The direct path for the response just started on ``transport``, or None."""
        if transport is None:
            return None
        try:
            from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
        except ImportError:  # no httptools: uvicorn runs h11
            return None
        get_protocol = getattr(transport, "get_protocol", None)  # a stand-in may lack it
        protocol = get_protocol() if get_protocol is not None else None
        if not isinstance(protocol, HttpToolsProtocol):
            return None
        cycle, flow = getattr(protocol, "cycle", None), getattr(protocol, "flow", None)
        if (cycle is None or flow is None or cycle.chunked_encoding is not True
                or not cycle.response_started or cycle.response_complete):
            return None
        return cls(transport, flow, cycle)

    @property
    def writable(self) -> bool:
        """Below the high watermark, the response in progress and its client there."""
        cycle = self.cycle
        return not (self.flow.write_paused or cycle.disconnected or cycle.response_complete)

    def write(self, body: bytes) -> bool:
        """Write ``body`` as one chunk; False when it must go through ``send`` instead (the
        connection is above its high watermark, or the response is no longer writable)."""
        if not self.writable:
            return False
        if body:  # an empty chunk would end the body
            self.transport.write(b"%x\r\n%b\r\n" % (len(body), body))
        return True
