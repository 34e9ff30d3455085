"""Behind a real nginx (Debian ``nginx``), started on a loopback port with its own config.

* streamed responses carry ``X-Accel-Buffering: no``, so nginx passes events on at once even
  with ``proxy_buffering on`` (its default): a client that stops reading stalls nginx, nginx
  stops reading the upstream, and the engine pauses that request;
* with buffering forced on (``proxy_ignore_headers X-Accel-Buffering``), nginx acknowledges
  the whole stream into its buffers: the server's delivered count then says what reached nginx,
  not what the client got (the README's "Behind a proxy" explains this).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from otlp_receiver import free_port
from recorders import capture_recorders
from waiting import poll_until

from servescope.instrumentation.request_recorder import RequestRecorder
from servescope.reference.config import EngineConfig, ModelConfig
from servescope.reference.transport.server import LocalServer

NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx")
                                  else None)
pytestmark = pytest.mark.skipif(NGINX is None, reason="needs nginx (make system-deps)")

MODEL = "tiny-ref"
LONG = ModelConfig(dim=32, n_layers=1, n_heads=4, n_kv_heads=2, hidden_dim=64,
                   max_context=2048)
TOKENS = 1500

_CONF = """
worker_processes 1;
{user}
error_log {d}/error.log warn;
pid {d}/nginx.pid;
events {{ worker_connections 64; }}
http {{
  access_log off;
  client_body_temp_path {d}/body; proxy_temp_path {d}/proxy; fastcgi_temp_path {d}/fcgi;
  uwsgi_temp_path {d}/uwsgi; scgi_temp_path {d}/scgi;
  server {{
    listen 127.0.0.1:{port} sndbuf=8k;  # a stalled client stalls nginx early
    location / {{
      proxy_pass http://127.0.0.1:{upstream};
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_read_timeout 60s;
      {extra}
    }}
  }}
}}
"""


class Nginx:
    """One nginx master in the foreground, config and temp files in its own directory."""

    def __init__(self, root: Path, upstream: int, extra: str = "") -> None:
        self.port = free_port()
        user = "user root;" if os.geteuid() == 0 else ""  # workers can use the temp dir
        conf = root / "nginx.conf"
        conf.write_text(_CONF.format(d=root, port=self.port, upstream=upstream, extra=extra,
                                     user=user))
        self.proc = subprocess.Popen(
            [str(NGINX), "-p", str(root), "-e", str(root / "error.log"), "-c", str(conf),
             "-g", "daemon off;"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        poll_until(lambda: socket.create_connection(("127.0.0.1", self.port), timeout=0.2),
                   what="nginx to listen", timeout_s=10, transient=(OSError,),
                   alive=self.proc).close()

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


CAPACITY = 8  # the stream buffer's tokens
CHUNK = 1  # tokens the writer takes from the buffer at a time


def _server() -> tuple[LocalServer, list[RequestRecorder]]:
    config = EngineConfig(model=LONG, block_size=16, num_blocks=512, max_batch=8,
                          stream_capacity=CAPACITY, stream_low_watermark=2,
                          slow_consumer_timeout_s=30.0)
    server = LocalServer(config, model_name=MODEL, span_exporter=InMemorySpanExporter(),
                         chunk_tokens=CHUNK)
    return server, capture_recorders(server.telemetry)


@pytest.fixture
def upstream() -> Iterator[tuple[LocalServer, list[RequestRecorder]]]:
    server, recorders = _server()
    with server:
        yield server, recorders


def _never_reading(port: int) -> socket.socket:
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
    sock.connect(("127.0.0.1", port))
    body = json.dumps({"model": MODEL, "prompt": "x", "max_tokens": TOKENS, "stream": True,
                       "ignore_eos": True}).encode()
    sock.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                 b"\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
    return sock


def _arrived(recorders: list[RequestRecorder], tmp_path: Path) -> RequestRecorder:
    log = tmp_path / "error.log"
    try:
        return poll_until(lambda: recorders and recorders[0], what="a request at the server",
                          timeout_s=10, interval_s=0.02)
    except TimeoutError:
        raise AssertionError("no request reached the server: "
                             f"{log.read_text() if log.exists() else ''}") from None


def _sample(server: LocalServer, name: str, **labels: str) -> float:
    return server.setup.registry.get_sample_value(name, labels) or 0.0


def test_backpressure_reaches_the_engine_through_nginx(
        tmp_path: Path, upstream: tuple[LocalServer, list[RequestRecorder]]) -> None:
    server, recorders = upstream
    proxy = Nginx(tmp_path, server.http.port)
    try:
        sock = _never_reading(proxy.port)
        _arrived(recorders, tmp_path)

        def paused() -> bool:
            if _sample(server, "servescope_requests_paused", pool="default") >= 1:
                return True
            assert recorders[0].summary().finish_reason is None, "nginx absorbed the stream"
            return False

        poll_until(paused, what="backpressure at the engine", timeout_s=20, interval_s=0.02)
        live = recorders[0].summary()
        assert live.committed_tokens < TOKENS  # paused well before the end
        # unsent = the buffer (at most its capacity) + the chunk the writer has taken from it
        # and not yet counted as written (the buffer has room again once it is taken)
        assert live.committed_tokens - live.written_tokens <= CAPACITY + CHUNK
        sock.close()
        assert server.engine.wait_idle(15.0)
    finally:
        proxy.stop()
    assert recorders[0].summary().finish_reason == "client_cancel"


def test_forced_buffering_makes_nginx_the_peer_that_acknowledges(
        tmp_path: Path, upstream: tuple[LocalServer, list[RequestRecorder]]) -> None:
    server, recorders = upstream
    proxy = Nginx(tmp_path, server.http.port,
                  "proxy_buffering on; proxy_ignore_headers X-Accel-Buffering;")
    try:
        sock = _never_reading(proxy.port)
        _arrived(recorders, tmp_path)
        poll_until(lambda: recorders[0].summary().finish_reason is not None,
                   what="the buffered stream's end", timeout_s=30)
        s = recorders[0].summary()
        held = sock.recv(1 << 20, socket.MSG_PEEK)  # all the client's kernel holds
        client_tokens = sum(len(json.loads(line[6:])["choices"][0]["text"].encode())
                            for line in held.split(b"\n")
                            if line.startswith(b"data: {") and line.endswith(b"}")
                            and b'"choices":[{' in line)
        sock.close()
    finally:
        proxy.stop()
    # the server saw every token acknowledged (by nginx) and paused never...
    assert s.finish_reason == "length" and s.delivered_tokens == s.committed_tokens == TOKENS
    # ...while the client, which read nothing, holds a small fraction in its kernel
    assert client_tokens < TOKENS // 4, client_tokens
