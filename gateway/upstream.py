"""The upstream engine, reached through one pooled keep-alive ``httpx.AsyncClient``.

Requests go out as the client sent them: same method, path, query, body and headers, less the
hop-by-hop ones (RFC 9110 7.6.1) and with two changes a proxy must make: ``traceparent`` names
the gateway's request span when it is sampled (the engine's spans then join the trace), and
``accept-encoding: identity`` (the relay reads the stream it forwards; engines do not compress
their streams anyway).

Each upstream connection's kernel receive buffer is bounded
(``GatewayConfig.upstream_recv_buffer_bytes``): when the relay stops reading because its
client stopped reading, the engine's writes stall after that much instead of after an
autotuned window of megabytes. A request the relay abandons is closed with its response
(``aclose``): an unread HTTP/1.1 body closes the connection, so the engine sees the client go.
"""

from __future__ import annotations

import socket
from collections.abc import Iterable, Mapping
from typing import Any

import httpx

from servescope.reference import openai_schema as schema

from .config import GatewayConfig

__all__ = ["HOP_BY_HOP", "Upstream", "UpstreamUnavailable", "forward_headers",
           "response_headers"]

#: Headers that describe one connection, never forwarded (plus those named in Connection).
HOP_BY_HOP = frozenset({b"connection", b"keep-alive", b"proxy-authenticate",
                        b"proxy-authorization", b"proxy-connection", b"te", b"trailer",
                        b"transfer-encoding", b"upgrade", b"host", b"content-length"})


#: An idle pooled connection is closed after this long: well before the engines' own idle
#: keep-alive timeout (uvicorn's, vLLM's: 5 s), so the gateway never sends a request on a
#: connection the engine is closing at that moment (a reset, not a retry, for a POST).
KEEPALIVE_EXPIRY_S = 2.0


class UpstreamUnavailable(Exception):
    """The upstream could not be asked: ``status`` and ``code`` of the gateway's answer."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message

    def body(self) -> dict[str, Any]:
        return schema.error_body(self.message, type_="server_error", code=self.code)


def forward_headers(headers: Iterable[tuple[bytes, bytes]],
                    trace: Mapping[str, str] | None) -> list[tuple[bytes, bytes]]:
    """The client's request headers as the upstream gets them (see the module notes)."""
    raw = list(headers)
    named = _connection_named(raw)
    out = [(k, v) for k, v in raw
           if k not in HOP_BY_HOP and k not in named and k != b"accept-encoding"
           and (trace is None or k != b"traceparent")]
    out.append((b"accept-encoding", b"identity"))
    if trace is not None:
        out.append((b"traceparent",
                     f"00-{trace['trace_id']}-{trace['span_id']}-01".encode()))
    return out


def response_headers(headers: Iterable[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """The upstream's response headers as the client gets them (framing is the gateway's)."""
    raw = list(headers)
    named = _connection_named(raw)
    return [(k, v) for k, v in raw if k not in HOP_BY_HOP and k not in named]


def _connection_named(headers: list[tuple[bytes, bytes]]) -> frozenset[bytes]:
    return frozenset(token.strip().lower() for k, v in headers if k == b"connection"
                     for token in v.split(b","))


class Upstream:
    """The pooled client (made on first use, on the serving event loop)."""

    def __init__(self, config: GatewayConfig) -> None:
        self.config = config
        self.base = config.upstream.rstrip("/")
        self._client: httpx.AsyncClient | None = None

    @property
    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            cfg = self.config
            # no Nagle: a request's head and body, written apart, leave at once
            options = [(socket.SOL_SOCKET, socket.SO_RCVBUF, cfg.upstream_recv_buffer_bytes),
                       (socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
            transport = httpx.AsyncHTTPTransport(
                limits=httpx.Limits(max_connections=cfg.max_upstream_connections,
                                    max_keepalive_connections=cfg.max_upstream_connections,
                                    keepalive_expiry=KEEPALIVE_EXPIRY_S),
                socket_options=options, retries=0)
            self._client = httpx.AsyncClient(
                transport=transport, headers={}, follow_redirects=False,
                timeout=httpx.Timeout(connect=cfg.connect_timeout_s,
                                      read=cfg.upstream_idle_timeout_s,
                                      write=cfg.upstream_idle_timeout_s,
                                      pool=cfg.connect_timeout_s))
        return self._client

    async def open(self, method: str, target: str, headers: list[tuple[bytes, bytes]],
                   body: bytes) -> httpx.Response:
        """Send the request and return once the upstream's answer head arrived (its body is
        read by the caller, who must ``aclose`` it); :class:`UpstreamUnavailable` when the
        upstream cannot be reached or said nothing in time."""
        client = self.client
        request = client.build_request(method, self.base + target, headers=headers,
                                       content=body)
        try:
            try:
                return await client.send(request, stream=True)
            except _STALE:
                # A pooled connection the engine closed as we sent on it (its idle timeout
                # raced ours): no answer began, so the request is sent once more on a new one.
                return await client.send(request, stream=True)
        except httpx.PoolTimeout:
            raise UpstreamUnavailable(503, "upstream_busy", "every connection to the upstream "
                                      "is in use; retry shortly") from None
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            raise UpstreamUnavailable(502, "upstream_unavailable",
                                      f"the upstream cannot be reached ({_why(exc)}); "
                                      f"retry shortly") from None
        except httpx.ReadTimeout:
            raise UpstreamUnavailable(504, "upstream_timeout", "the upstream did not answer "
                                      "in time") from None
        except httpx.HTTPError as exc:  # reset before the head, a protocol error
            raise UpstreamUnavailable(502, "upstream_error", f"the upstream failed before "
                                      f"answering ({_why(exc)})") from None

    async def get(self, path: str, timeout_s: float) -> httpx.Response | None:
        """A small GET (health, models); None when it fails."""
        try:
            return await self.client.get(self.base + path, timeout=timeout_s)
        except httpx.HTTPError:
            return None

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None


#: Failures of a request on a connection the upstream had already closed.
_STALE = (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)


def _why(exc: BaseException) -> str:
    """A short cause (the exception class: messages may carry addresses)."""
    return type(exc).__name__
