"""What left the host: a connection's bytes acknowledged by the peer (Linux ``TCP_INFO``).

A token is *written* when its bytes are handed to the connection (the asyncio transport, then
the kernel socket); it is *delivered* once the peer's TCP has acknowledged them. Between the two
the bytes sit in the transport's buffer, the socket's send queue or in flight. Queue length
alone does not prove bytes left the system, so the writer records, after each write, the
connection's byte offset that covers it, and credits its tokens once the peer acknowledged that
offset.

* ``offset``: bytes the connection has accepted so far = acknowledged + the socket's unsent and
  unacknowledged bytes (``SIOCOUTQ``) + the transport's own buffer. Taken right after a write,
  it covers that write (on HTTP/1.1 exactly; on a multiplexed connection it may also cover a
  neighbour's bytes, so a token is never credited early).
* ``acked``: ``tcpi_bytes_acked`` from ``TCP_INFO`` (cumulative since the handshake).

The probe holds a duplicate of the socket's descriptor, so it can still read the counters
after the server closed its side (``Connection: close``): the kernel keeps delivering those
bytes. The duplicate must be closed before an abort (an open descriptor would delay the reset)
and when the exchange ends; until then it also delays the FIN of a closing connection, which is
why the writer stops waiting after a bounded time.

Elsewhere (no ``TCP_INFO`` with ``tcpi_bytes_acked``, not TCP), :func:`open_probe` returns None
and delivered falls back to written; ``servescope_transport_delivery_acknowledged`` says which.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import socket
import struct
import sys
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

__all__ = ["Acks", "Probe", "TcpProbe", "acknowledgements_supported", "open_probe",
           "set_notsent_lowat", "settle"]

# Polling for the tail's acknowledgements: the first look comes soon (on a near peer they
# arrive within a round trip, well under a millisecond), then the interval doubles up to a cap
# that keeps a slow peer's wait cheap.
_ACK_POLL_FIRST_S = 0.0005
_ACK_POLL_MAX_S = 0.05

#: Linux ``struct tcp_info``: ``tcpi_bytes_acked`` (u64) and ``tcpi_notsent_bytes`` (u32).
_BYTES_ACKED_AT = 120
_NOTSENT_AT = 144
_TCP_INFO_LEN = 160
_TCP_NOTSENT_LOWAT = getattr(socket, "TCP_NOTSENT_LOWAT", 25)
_SIOCOUTQ = 0x5411  # TIOCOUTQ: bytes in the send queue not yet acknowledged
#: TCP states in which the peer can still acknowledge what we sent.
_LIVE_STATES = frozenset({1, 8, 4, 5})  # ESTABLISHED, CLOSE_WAIT, FIN_WAIT1, FIN_WAIT2


class TcpProbe:
    """The acknowledgement counters of one connection, read through a duplicate descriptor."""

    def __init__(self, sock: socket.socket, transport: Any) -> None:
        self._sock: socket.socket | None = sock
        self._transport = transport

    def _info(self) -> bytes | None:
        sock = self._sock
        if sock is None:
            return None
        try:
            info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _TCP_INFO_LEN)
        except OSError:
            return None
        return info if len(info) >= _NOTSENT_AT + 4 else None

    def acked(self) -> int | None:
        """Bytes the peer acknowledged since the handshake; None once nothing more can be."""
        info = self._info()
        if info is None:
            return None
        return int(struct.unpack_from("Q", info, _BYTES_ACKED_AT)[0])

    def live(self) -> bool:
        """Whether the peer may still acknowledge more."""
        info = self._info()
        return info is not None and info[0] in _LIVE_STATES

    def offset(self) -> int | None:
        """Bytes the connection accepted so far (see the module notes)."""
        info, sock = self._info(), self._sock
        if info is None or sock is None:
            return None
        try:
            queued = int(struct.unpack("i", fcntl.ioctl(sock.fileno(), _SIOCOUTQ, b"\0" * 4))[0])
        except OSError:
            return None
        buffered = 0
        with contextlib.suppress(Exception):
            buffered = int(self._transport.get_write_buffer_size())
        return int(struct.unpack_from("Q", info, _BYTES_ACKED_AT)[0]) + queued + buffered

    def close(self) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:
            sock.close()


def _tcp_info_ok(sock: Any) -> bool:
    try:
        info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _TCP_INFO_LEN)
    except (OSError, AttributeError):
        return False
    return len(info) >= _NOTSENT_AT + 4


def acknowledgements_supported() -> bool:
    """Whether this platform reports acknowledged bytes per connection (Linux TCP_INFO)."""
    if not sys.platform.startswith("linux") or not hasattr(socket, "TCP_INFO"):
        return False
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        return _tcp_info_ok(sock)


def open_probe(transport: Any) -> TcpProbe | None:
    """A probe on the transport's TCP socket, or None where acknowledgements are unknown."""
    sock = transport.get_extra_info("socket") if transport is not None else None
    if sock is None or sock.type != socket.SOCK_STREAM or \
            sock.family not in (socket.AF_INET, socket.AF_INET6) or not _tcp_info_ok(sock):
        return None
    try:
        dup = sock.dup()  # a real socket on a new descriptor (asyncio's wrapper has dup())
    except OSError:
        return None
    return TcpProbe(dup, transport)


def set_notsent_lowat(sock: Any, limit: int) -> None:
    """Keep at most ``limit`` unsent bytes in the kernel before the socket reports itself
    writable: the transport's flow control then sees the backpressure instead of the kernel
    absorbing it in an autotuned send buffer."""
    with contextlib.suppress(OSError, AttributeError):
        sock.setsockopt(socket.IPPROTO_TCP, _TCP_NOTSENT_LOWAT, limit)


class Probe(Protocol):
    """A connection's acknowledgement counters (:class:`TcpProbe`, or a test's)."""

    def offset(self) -> int | None: ...
    def acked(self) -> int | None: ...
    def live(self) -> bool: ...


class Acks:
    """Tokens written and not yet acknowledged, each chunk by the connection offset that
    covers it. A chunk whose offset is unknown (the connection is gone) is never confirmed.
    Shared by the reference server's writer and the gateway's relay, so both count delivered
    the same way."""

    def __init__(self, probe: Probe) -> None:
        self.probe = probe
        self.pending = 0
        self._marks: deque[tuple[float, int]] = deque()

    def wrote(self, n: int) -> None:
        """``n`` tokens whose bytes end where the connection's offset stands now."""
        self.marked(self.probe.offset(), n)

    def marked(self, offset: int | None, n: int) -> None:
        """``n`` tokens whose bytes end at connection ``offset`` (None: unknown, never
        confirmed)."""
        self._marks.append((float("inf") if offset is None else offset, n))
        self.pending += n

    def confirmed(self) -> int:
        """Tokens newly acknowledged (one TCP_INFO read when any is pending)."""
        if not self._marks:
            return 0
        acked = self.probe.acked()
        if acked is None:
            return 0
        n = 0
        while self._marks and self._marks[0][0] <= acked:
            n += self._marks.popleft()[1]
        self.pending -= n
        return n


async def settle(acks: Acks, confirm: Callable[[], None], ack_wait_s: float) -> bool:
    """After the last write: ``confirm`` (credit what the peer acknowledged) while the tail's
    acknowledgements progress, at most ``ack_wait_s`` without any, polling with a growing
    interval. The reference server's writer and the gateway's relay both end this way.

    False when it gave up on a live connection with tokens still unacknowledged: the caller
    then resets the connection, so tokens counted discarded are never read later (a client
    that stalled past the wait and read on would have had tokens counted never delivered)."""
    delay, last, idle_since = _ACK_POLL_FIRST_S, acks.pending, time.monotonic()
    while True:
        confirm()
        if not acks.pending or not acks.probe.live():
            return True
        now = time.monotonic()
        if acks.pending != last:
            last, idle_since = acks.pending, now
        elif now - idle_since > ack_wait_s:
            return False
        await asyncio.sleep(delay)
        delay = min(delay * 2, _ACK_POLL_MAX_S)
