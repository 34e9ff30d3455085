"""Configuration of ``servescope gateway``: where the engine is, and what a stream may cost.

A frozen dataclass validated on construction (a bad value raises ``ValueError`` whose message
starts with the field's name), built from plain data by :meth:`GatewayConfig.from_dict`, which
refuses unknown keys, like the reference worker's configs. The client-side connection limits
are the reference server's :class:`~servescope.reference.config.HttpLimits`: a hostile client
meets the same limits in front of any engine, except the request body's, larger by default
(``GATEWAY_MAX_BODY_BYTES``): a vision request carries its images inline, and one 1 MiB
(the reference server's limit, whose model reads text) would refuse what the engine takes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from servescope.reference.config import HttpLimits, _FromDict, _positive, _seconds

__all__ = ["FLAVORS", "GATEWAY_MAX_BODY_BYTES", "GatewayConfig", "UpstreamFlavor"]

#: The gateway's default request body limit: 32 MiB, room for a few images inline.
GATEWAY_MAX_BODY_BYTES = 32 << 20


@dataclass(frozen=True)
class UpstreamFlavor:
    """What the gateway needs to know about an engine's HTTP API."""

    name: str
    #: Where the engine says it is healthy (``/readyz`` of the gateway asks it).
    health_path: str


#: The engines the gateway knows; ``openai`` is any OpenAI-compatible server.
FLAVORS: Mapping[str, UpstreamFlavor] = {
    "vllm": UpstreamFlavor("vllm", "/health"),
    "sglang": UpstreamFlavor("sglang", "/health"),
    "tgi": UpstreamFlavor("tgi", "/health"),
    "llamacpp": UpstreamFlavor("llamacpp", "/health"),
    "openai": UpstreamFlavor("openai", "/v1/models"),
    "servescope": UpstreamFlavor("servescope", "/readyz"),
}


@dataclass(frozen=True)
class GatewayConfig(_FromDict):
    """The gateway in front of one upstream engine."""

    #: The engine's base URL (``http://host:port``); requests keep their path and query.
    upstream: str = "http://127.0.0.1:8000"
    #: Which engine it is (see :data:`FLAVORS`).
    flavor: str = "openai"
    #: The ``model`` label when the request names no model the upstream serves (the label
    #: takes a request's model only when ``/v1/models`` of the upstream lists it, so a client
    #: cannot mint label values).
    model_name: str = "default"
    #: Seconds to open a connection to the upstream; past it the client gets 502.
    connect_timeout_s: float = 5.0
    #: Seconds the upstream may stay silent (before its answer's head, or between two reads of
    #: a stream) before the request ends with an error.
    upstream_idle_timeout_s: float = 300.0
    #: A deadline for every request (seconds from arrival) unless it carries its own
    #: (``deadline_s`` in the body or the ``x-servescope-deadline-s`` header); None: none.
    default_deadline_s: float | None = None
    #: How long a stream may stay paused (its client reads nothing) before the gateway ends
    #: it, closes the upstream request and counts a ``slow_consumer`` finish.
    slow_consumer_timeout_s: float = 5.0
    #: ``Retry-After`` (seconds) of the gateway's own 502/503 answers.
    retry_after_s: int = 1
    #: Pooled keep-alive connections to the upstream (also the most concurrent requests).
    max_upstream_connections: int = 1024
    #: Kernel receive buffer of each upstream connection: with the relay's one pending read,
    #: all a stream whose client stopped reading holds before TCP pushes back on the engine.
    upstream_recv_buffer_bytes: int = 65536
    #: The largest single upstream SSE event (or whole JSON answer scanned for usage); a
    #: longer event ends the stream as malformed.
    max_event_bytes: int = 1 << 20
    #: Client-side connection limits, the reference server's, except a request body of up
    #: to ``GATEWAY_MAX_BODY_BYTES`` (the engine behind takes images inline, as base64).
    http: HttpLimits = field(default_factory=lambda: HttpLimits(
        max_body_bytes=GATEWAY_MAX_BODY_BYTES))

    def __post_init__(self) -> None:
        parts = urlsplit(self.upstream) if isinstance(self.upstream, str) else None
        if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"upstream: must be an http(s)://host[:port] URL, "
                             f"got {self.upstream!r}")
        if self.flavor not in FLAVORS:
            raise ValueError(f"flavor: must be one of {', '.join(sorted(FLAVORS))}, "
                             f"got {self.flavor!r}")
        if not isinstance(self.model_name, str) or not self.model_name:
            raise ValueError(f"model_name: must be a non-empty string, got {self.model_name!r}")
        for name in ("connect_timeout_s", "upstream_idle_timeout_s", "slow_consumer_timeout_s"):
            _seconds(name, getattr(self, name), allow_zero=False)
        _seconds("default_deadline_s", self.default_deadline_s, allow_zero=False,
                 allow_none=True)
        for name in ("retry_after_s", "max_upstream_connections", "upstream_recv_buffer_bytes",
                     "max_event_bytes"):
            _positive(name, getattr(self, name))
        if not isinstance(self.http, HttpLimits):
            raise ValueError(f"http: must be an HttpLimits, got {type(self.http).__name__}")

    @classmethod
    def _convert(cls, data: dict[str, Any]) -> dict[str, Any]:
        http = data.get("http")
        if isinstance(http, Mapping):
            data["http"] = HttpLimits.from_dict({"max_body_bytes": GATEWAY_MAX_BODY_BYTES,
                                                 **http})
        return data

    @property
    def upstream_flavor(self) -> UpstreamFlavor:
        return FLAVORS[self.flavor]
