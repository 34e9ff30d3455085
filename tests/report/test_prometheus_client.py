"""The report's Prometheus client: a login in the URL is sent as basic auth (a Prometheus
behind a proxy that asks for one) and never shown in a message."""

from __future__ import annotations

import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from servescope.report.prometheus import PrometheusClient, PrometheusError

LOGIN = base64.b64encode(b"ops:s3cret-pw").decode()


class _Guarded(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.headers.get("Authorization") != f"Basic {LOGIN}":
            self.send_response(401)
            self.end_headers()
            return
        body = json.dumps({"status": "success", "data": {"yaml": "global: {}"}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def guarded():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Guarded)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def test_a_login_in_the_url_is_sent_as_basic_auth(guarded) -> None:
    client = PrometheusClient(f"http://ops:s3cret-pw@127.0.0.1:{guarded}")
    assert client.api("status/config") == {"yaml": "global: {}"}
    assert "s3cret" not in client.url


def test_a_failure_never_shows_the_login(guarded) -> None:
    client = PrometheusClient(f"http://ops:wrong-pw@127.0.0.1:{guarded}", timeout_s=5)
    with pytest.raises(PrometheusError) as refused:
        client.api("status/config")
    gone = PrometheusClient("http://ops:s3cret-pw@127.0.0.1:9/", timeout_s=2)
    with pytest.raises(PrometheusError) as unreachable:
        gone.api("status/config")
    for err in (refused.value, unreachable.value):
        assert "s3cret" not in str(err) and "wrong-pw" not in str(err)
