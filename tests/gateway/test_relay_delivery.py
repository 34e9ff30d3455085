"""The relay's delivered count at a stream's end, on a scripted connection: a client may close
once it has read ``[DONE]``, before the chunked terminator arrives, so the terminator's bytes
are never acknowledged. Every token the client did receive must still count as delivered (the
openai SDK closes its stream this way)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from prometheus_client import CollectorRegistry

from servescope.gateway.relay import Relay, RelaySettings
from servescope.instrumentation import Telemetry
from servescope.reference.config import HttpLimits

EVENTS = [
    b'data: {"choices":[{"index":0,"text":"a","finish_reason":null}]}\n\n',
    b'data: {"choices":[{"index":0,"text":"b","finish_reason":null}]}\n\n',
    b'data: {"choices":[{"index":0,"text":"c","finish_reason":"length"}]}\n\n',
    b"data: [DONE]\n\n",
]


class _Peer:
    """One connection: bytes the server wrote, and what the peer acknowledged of them. The
    peer acknowledges every write except those the test holds back."""

    def __init__(self) -> None:
        self.sent = 0
        self.acked_bytes = 0
        self.hold_back_empty_writes = True  # the terminator: the client has closed by then

    def wrote(self, body: bytes) -> None:
        self.sent += len(b"%x\r\n" % len(body)) + len(body) + 2  # as a chunk, framed
        if body or not self.hold_back_empty_writes:
            self.acked_bytes = self.sent

    # delivery.Probe
    def offset(self) -> int | None:
        return self.sent

    def acked(self) -> int | None:
        return self.acked_bytes

    def live(self) -> bool:
        return True

    def close(self) -> None:
        pass


class _Transport:
    def is_closing(self) -> bool:
        return False


class _Connections:
    def __init__(self, peer: _Peer) -> None:
        self.peer = peer

    def probe(self, scope: Any) -> _Peer:
        return self.peer

    def transport(self, scope: Any) -> _Transport:
        return _Transport()

    def abort(self, scope: Any) -> None:
        self.aborted = True


class _Upstream:
    """An upstream answer's interface (``upstream.UpstreamResponse``), scripted."""

    status_code = 200
    headers = ((b"content-type", b"text/event-stream"),)
    origin = b"http://engine:8000"

    def header(self, name: bytes) -> str:
        return dict(self.headers).get(name, b"").decode()

    reads = EVENTS  # what each read of the upstream returns
    read_whole = True  # the body's end came with [DONE]

    def divert(self, take: Any) -> None:
        pass  # no direct path here: every read goes through the writer

    async def aiter_raw(self) -> AsyncIterator[bytes]:
        for read in self.reads:
            yield read

    async def aclose(self) -> None:
        pass


def _relay_one_stream(peer: _Peer, upstream: _Upstream | None = None) -> CollectorRegistry:
    registry = CollectorRegistry()
    telemetry = Telemetry(registry=registry, model="m")
    settings = RelaySettings(
        limits=HttpLimits(ack_wait_s=0.2), slow_consumer_timeout_s=5.0,
        max_event_bytes=1 << 16, connections=_Connections(peer),  # type: ignore[arg-type]
        clock=telemetry.clock)
    relay = Relay(telemetry.request("r1"), upstream or _Upstream(),  # type: ignore[arg-type]
                  settings,
                  deadline_at=None)

    async def receive() -> dict[str, Any]:
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.body":
            peer.wrote(message.get("body", b""))

    asyncio.run(relay({"type": "http"}, receive, send))  # type: ignore[arg-type]
    return registry


def _tokens(registry: CollectorRegistry, stage: str) -> float | None:
    return registry.get_sample_value("servescope_tokens_total", {"model": "m", "stage": stage})


def test_tokens_the_client_read_count_as_delivered_though_the_terminator_never_is() -> None:
    registry = _relay_one_stream(_Peer())
    assert _tokens(registry, "written") == 3
    assert _tokens(registry, "delivered") == 3


def test_tokens_whose_bytes_were_never_acknowledged_are_not_delivered() -> None:
    peer = _Peer()
    peer.wrote = lambda body: setattr(peer, "sent", peer.sent + len(body))  # type: ignore[method-assign]
    registry = _relay_one_stream(peer)
    assert _tokens(registry, "written") == 3
    assert not _tokens(registry, "delivered")


def test_a_read_of_many_events_is_credited_event_by_event() -> None:
    """One upstream read holding three token events is one write; the peer acknowledged the
    write's bytes through the second event's end and no further (then nothing more): two
    tokens delivered, not none, and not three."""
    upstream = _Upstream()
    upstream.reads = [b"".join(EVENTS[:3]), EVENTS[3]]
    peer = _Peer()
    through_two = len(EVENTS[0]) + len(EVENTS[1])

    def wrote(body: bytes) -> None:
        head = len(b"%x\r\n" % len(body))
        if len(body) > through_two:
            peer.acked_bytes = peer.sent + head + through_two
        peer.sent += head + len(body) + 2

    peer.wrote = wrote  # type: ignore[method-assign]
    registry = _relay_one_stream(peer, upstream)
    assert _tokens(registry, "written") == 3
    assert _tokens(registry, "delivered") == 2
    assert _tokens(registry, "discarded") == 1


def test_a_client_that_stops_reading_at_the_terminator_is_cut_as_slow_not_waited_for() -> None:
    """Every event went out below the connection's high watermark, and the client stopped
    reading just as the stream's last write began: that write waits on flow control for
    ever. The watcher must see it as it sees any other stalled write (a ``slow_consumer``
    finish after the timeout, then the connection reset once the cut's own write stalls too)
    rather than hold the relay, its upstream and the request open (CI found it under load)."""
    registry = CollectorRegistry()
    telemetry = Telemetry(registry=registry, model="m")
    connections = _Connections(_Peer())
    settings = RelaySettings(
        limits=HttpLimits(ack_wait_s=0.2, stall_poll_s=0.02, abandon_after_s=0.2),
        slow_consumer_timeout_s=0.2, max_event_bytes=1 << 16,
        connections=connections,  # type: ignore[arg-type]
        clock=telemetry.clock)
    relay = Relay(telemetry.request("r1"), _Upstream(), settings,  # type: ignore[arg-type]
                  deadline_at=None)
    never = asyncio.Event()
    last_writes = 0

    async def receive() -> dict[str, Any]:
        await never.wait()  # the client neither reads nor closes
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal last_writes
        if message["type"] == "http.response.body":
            connections.peer.wrote(message.get("body", b""))
            if not message.get("more_body", False):
                last_writes += 1
                await never.wait()  # the connection's buffer is full from here on

    async def run() -> None:
        await asyncio.wait_for(relay({"type": "http"}, receive, send), 10)  # type: ignore[arg-type]

    asyncio.run(run())
    finished = registry.get_sample_value(
        "servescope_requests_finished_total", {"model": "m", "finish_reason": "slow_consumer"})
    assert finished == 1
    assert last_writes == 2  # the stream's own end, then the cut's error event and [DONE]
    assert relay.abandoned and getattr(connections, "aborted", False)
