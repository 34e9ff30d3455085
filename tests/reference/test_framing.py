"""Body framing a front proxy could read differently (RFC 9112 section 6.3) gets 400 and the
connection closed, so a request smuggled behind it is never served; absolute-form targets are
routed; API bodies must be declared JSON; the deadline header is parsed strictly."""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator

import httpx
import pytest

from servescope.reference.config import EngineConfig, HttpLimits, ModelConfig
from servescope.reference.transport.server import LocalServer

TINY = ModelConfig(dim=32, n_layers=1, n_heads=4, n_kv_heads=2, hidden_dim=64, max_context=64)
BODY = b'{"model":"tiny","prompt":"hi","max_tokens":2}'
SMUGGLED = (b"POST /v1/completions HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
            b"Content-Length: " + str(len(BODY)).encode() + b"\r\n\r\n" + BODY)


@pytest.fixture(scope="module")
def server(http_parser) -> Iterator[LocalServer]:
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    config = EngineConfig(model=TINY, block_size=8, num_blocks=64, max_batch=4,
                          http=HttpLimits(header_timeout_s=5.0, error_log_interval_s=60.0))
    with LocalServer(config, model_name="tiny", span_exporter=InMemorySpanExporter()) as srv:
        yield srv


def responses(server: LocalServer, raw: bytes) -> tuple[list[int], bytes]:
    """Send ``raw`` and read until the server closes: every status line's code, and the
    whole answer (the test fails by timeout if the server keeps the connection open)."""
    with socket.create_connection((server.http.host, server.http.port), timeout=10) as s:
        s.sendall(raw)
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    return [int(code) for code in re.findall(rb"HTTP/1\.1 (\d{3}) ", data)], data


def finished(server: LocalServer) -> float:
    """Generations that ran (finished with stop or length; refusals finish as rejected)."""
    text = httpx.get(f"{server.url}/metrics", timeout=10).text
    return sum(float(m.group(1)) for m in re.finditer(
        r'^servescope_requests_finished_total\{[^}]*finish_reason="(?:stop|length)"[^}]*\} '
        r'(\S+)$', text, re.M))


def head(framing: bytes, body: bytes) -> bytes:
    return (b"POST /v1/completions HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
            + framing + b"\r\n" + body)


SMUGGLING = {
    # the front proxy frames by Content-Length and forwards the smuggled request as body
    "cl-and-te": head(b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
                      b"0\r\n\r\n" + SMUGGLED),
    "te-and-cl": head(b"Transfer-Encoding: chunked\r\nContent-Length: 200\r\n",
                      b"0\r\n\r\n" + SMUGGLED),
    "repeated-equal-cl": head(b"Content-Length: 2\r\nContent-Length: 2\r\n", b"{}" + SMUGGLED),
    "conflicting-cl": head(b"Content-Length: 2\r\nContent-Length: 7\r\n", b"{}" + SMUGGLED),
    "chunked-identity": head(b"Transfer-Encoding: chunked, identity\r\n",
                             b"0\r\n\r\n" + SMUGGLED),
    "two-te-headers": head(b"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n",
                           b"0\r\n\r\n" + SMUGGLED),
    "xchunked": head(b"Transfer-Encoding: xchunked\r\n", b"0\r\n\r\n" + SMUGGLED),
    "gzip": head(b"Transfer-Encoding: gzip\r\n", b"0\r\n\r\n" + SMUGGLED),
}


@pytest.mark.parametrize("raw", SMUGGLING.values(), ids=SMUGGLING.keys())
def test_ambiguous_framing_is_a_400_that_closes_and_the_smuggled_request_never_runs(
        server: LocalServer, raw: bytes) -> None:
    before = finished(server)
    statuses, data = responses(server, raw)
    assert statuses == [400], data[:400]
    head_, _, body = data.partition(b"\r\n\r\n")
    assert b"connection: close" in head_.lower()
    assert json.loads(body)["error"]["code"] == "protocol_error"
    assert finished(server) == before  # no generation ran, smuggled or not


def test_the_smuggled_request_alone_is_served(server: LocalServer) -> None:
    """The control: the same bytes, framed plainly, do run a generation."""
    before = finished(server)
    statuses, _ = responses(server, SMUGGLED.replace(b"HTTP/1.1\r\n",
                                                    b"HTTP/1.1\r\nConnection: close\r\n", 1))
    assert statuses == [200]
    assert finished(server) == before + 1


def test_an_absolute_form_target_is_routed_like_its_path(server: LocalServer) -> None:
    raw = SMUGGLED.replace(b"POST /v1/completions", b"POST http://t/v1/completions").replace(
        b"HTTP/1.1\r\n", b"HTTP/1.1\r\nConnection: close\r\n", 1)
    statuses, data = responses(server, raw)
    assert statuses == [200], data[:300]
    statuses, data = responses(server, b"GET http://t:80/v1/models HTTP/1.1\r\nHost: t\r\n"
                                       b"Connection: close\r\n\r\n")
    assert statuses == [200] and b'"tiny"' in data


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded",
                                          "multipart/form-data; boundary=x", "text/json"])
def test_an_api_body_not_declared_json_gets_415(server: LocalServer, content_type: str) -> None:
    before = finished(server)
    for path in ("/v1/completions", "/v1/chat/completions"):
        r = httpx.post(f"{server.url}{path}", content=BODY,
                       headers={"content-type": content_type}, timeout=10)
        assert r.status_code == 415, r.text
        assert r.json()["error"]["code"] == "unsupported_media_type"
    assert finished(server) == before


@pytest.mark.parametrize("content_type", ["application/json", "application/json; charset=utf-8",
                                          "Application/JSON"])
def test_json_bodies_are_accepted(server: LocalServer, content_type: str) -> None:
    r = httpx.post(f"{server.url}/v1/completions", content=BODY,
                   headers={"content-type": content_type}, timeout=30)
    assert r.status_code == 200, r.text


@pytest.mark.parametrize("value", ["1_0", "nan", "inf", "1e3", "0x10", "1.5.0", "+2", "-1"])
def test_the_deadline_header_is_a_plain_decimal(server: LocalServer, value: str) -> None:
    r = httpx.post(f"{server.url}/v1/completions", content=BODY, timeout=10,
                   headers={"content-type": "application/json",
                            "x-servescope-deadline-s": value})
    assert r.status_code == 400, r.text
    assert r.json()["error"]["param"] == "x-servescope-deadline-s"


@pytest.mark.parametrize("header", ["x-servescope-deadline-s", "x-servescope-priority"])
def test_a_control_header_sent_twice_is_a_400_naming_it(server: LocalServer,
                                                         header: str) -> None:
    """Two deadlines (100 and 0.2): which did the client mean? The last one won, where a
    proxy that keeps the first reads the other."""
    before = finished(server)
    r = httpx.post(f"{server.url}/v1/completions", content=BODY, timeout=10,
                   headers=[("content-type", "application/json"), (header, "100"),
                            (header.upper(), "2")])
    assert r.status_code == 400, r.text
    assert r.json()["error"]["param"] == header
    assert "more than once" in r.json()["error"]["message"]
    assert finished(server) == before  # refused before any generation ran


def test_a_plain_deadline_header_is_taken(server: LocalServer) -> None:
    r = httpx.post(f"{server.url}/v1/completions", content=BODY, timeout=30,
                   headers={"content-type": "application/json",
                            "x-servescope-deadline-s": "30.5"})
    assert r.status_code == 200, r.text


def test_an_http_1_0_stream_is_delimited_by_the_close(server: LocalServer) -> None:
    """HTTP/1.0 has no chunked coding: a streamed answer to a 1.0 request carries neither
    Content-Length nor Transfer-Encoding and ends when the server closes (RFC 9112, section
    6.3), on both parsers; a 1.1 request on the same server is chunked as before."""
    body = json.dumps({"model": "tiny", "prompt": "hi", "max_tokens": 3,
                       "stream": True}).encode()

    def ask(version: bytes) -> tuple[bytes, bytes]:
        request = (b"POST /v1/completions HTTP/" + version + b"\r\nHost: t\r\n"
                   b"Content-Type: application/json\r\nConnection: close\r\n"
                   b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
        _, data = responses(server, request)
        head, _, rest = data.partition(b"\r\n\r\n")
        return head.lower(), rest

    head, rest = ask(b"1.0")
    assert b"transfer-encoding" not in head and b"content-length" not in head
    assert b"connection: close" in head
    events = [e for e in rest.split(b"\n\n") if e]
    assert events[-1] == b"data: [DONE]" and b'"finish_reason":"length"' in events[-2]
    assert all(e.startswith(b"data: ") for e in events)  # no chunk-size lines among them
    head, rest = ask(b"1.1")
    assert b"transfer-encoding: chunked" in head and rest.endswith(b"0\r\n\r\n")


def test_an_unregistered_transfer_coding_is_refused_without_echoing_it() -> None:
    """A client's header value goes back in the 400's message only when it is made of
    registered codings: anything else could be what a client planted there (an outside probe
    found an e-mail address echoed whole)."""
    from servescope.reference.transport.limits import _framing_error

    planted = _framing_error([(b"transfer-encoding", b"zq.probe.4471@mailbox-example.org")])
    assert planted is not None and "mailbox-example" not in planted and "zq.probe" not in planted
    named = _framing_error([(b"transfer-encoding", b"gzip, chunked")])
    assert named is not None and "'gzip, chunked'" in named
