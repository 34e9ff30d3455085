"""Readiness follows the engine's heartbeat, not its lease: a stopped engine reads as unready
after a few missed heartbeats, new requests get 503 with Retry-After (never 500), a request
caught in flight when the engine is lost gets 503 with Retry-After too, and the lease alone
decides the restart (a stopped engine that resumes inside its lease is not restarted)."""

from __future__ import annotations

import json
import signal
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from waiting import poll_until

from servescope.instrumentation import Telemetry
from servescope.reference.client.engine_client import EngineClient
from servescope.reference.config import EngineConfig, ModelConfig
from servescope.reference.transport.server import LocalServer

TINY = ModelConfig(dim=32, n_layers=1, n_heads=4, n_kv_heads=2, hidden_dim=64, max_context=512)
MODEL = "tiny-ref"
#: Slow steps, so a request is still in flight when the engine is stopped.
CONFIG = EngineConfig(model=TINY, block_size=8, num_blocks=512, max_batch=8,
                      step_delay_s=0.02)


def _server(lease_s: float) -> LocalServer:
    return LocalServer(CONFIG, model_name=MODEL, span_exporter=InMemorySpanExporter(),
                       engine_process={"lease_s": lease_s, "restart_backoff_s": 0.2})


@pytest.fixture
def long_lease() -> Iterator[LocalServer]:
    """A 60 s lease: any unreadiness seen in a test comes from the heartbeat."""
    with _server(60.0) as srv:
        yield srv


@pytest.fixture
def short_lease() -> Iterator[LocalServer]:
    with _server(2.0) as srv:
        yield srv


def _call(url: str, payload: dict[str, Any] | None = None
          ) -> tuple[int, dict[str, str], dict[str, Any]]:
    data = None if payload is None else json.dumps(payload).encode()
    req = urllib.request.Request(url, data, {"content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            return resp.status, dict(resp.headers), json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), json.loads(err.read())


def _payload(max_tokens: int, stream: bool = False) -> dict[str, Any]:
    return {"model": MODEL, "prompt": "readiness", "max_tokens": max_tokens,
            "ignore_eos": True, "stream": stream}


def _engine(server: LocalServer) -> EngineClient:
    assert isinstance(server.engine, EngineClient)
    return server.engine


def _assert_unavailable(status: int, headers: dict[str, str], body: dict[str, Any]) -> None:
    assert status == 503, body
    assert int(headers["retry-after"]) >= 1
    assert body["error"]["code"] == "engine_unavailable"


def test_a_stopped_engine_is_unready_before_its_lease_and_resumes_without_a_restart(
        long_lease: LocalServer) -> None:
    engine = _engine(long_lease)
    assert engine.unresponsive_s < 1.0 < engine.lease_s
    pid, restarts = engine.pid, engine.restarts
    engine.signal_engine(signal.SIGSTOP)
    try:
        poll_until(lambda: _call(long_lease.url + "/readyz")[0] == 503,
                   what="/readyz unready after missed heartbeats")
        status, headers, body = _call(long_lease.url + "/readyz")
        _assert_unavailable(status, headers, body)
        assert body["ready"] is False and body["pid"] == pid
        for stream in (False, True):  # refused at submission: never accepted to wait
            _assert_unavailable(*_call(long_lease.url + "/v1/completions",
                                       _payload(4, stream)))
        assert _call(long_lease.url + "/healthz")[0] == 200
    finally:
        engine.signal_engine(signal.SIGCONT)
    poll_until(lambda: _call(long_lease.url + "/readyz")[0] == 200,
               what="ready again once the heartbeats resume")
    assert engine.pid == pid and engine.restarts == restarts  # the lease never expired
    status, _, body = _call(long_lease.url + "/v1/completions", _payload(4))
    assert status == 200 and body["usage"]["completion_tokens"] == 4


@pytest.mark.parametrize("fault", [signal.SIGSTOP, signal.SIGKILL], ids=["sigstop", "kill-9"])
def test_a_request_in_flight_when_the_engine_is_lost_gets_503_not_500(
        short_lease: LocalServer, fault: signal.Signals) -> None:
    engine = _engine(short_lease)
    pid, restarts = engine.pid, engine.restarts
    answer: list[tuple[int, dict[str, str], dict[str, Any]]] = []
    caller = threading.Thread(target=lambda: answer.append(
        _call(short_lease.url + "/v1/completions", _payload(400))))
    caller.start()
    poll_until(lambda: engine.stats().running >= 1 and engine.stats().committed_tokens >= 2,
               what="the request running in the engine")
    engine.signal_engine(fault)
    poll_until(lambda: _call(short_lease.url + "/readyz")[0] == 503, what="unready")
    _assert_unavailable(*_call(short_lease.url + "/v1/completions", _payload(4)))
    caller.join(60)
    assert answer, "the in-flight request got no answer"
    _assert_unavailable(*answer[0])
    poll_until(lambda: engine.restarts == restarts + 1 and engine.ready(),
               what="the lease (or the exit) deciding the restart")
    assert engine.pid != pid
    status, _, body = _call(short_lease.url + "/v1/completions", _payload(4))
    assert status == 200, body


def test_the_unresponsive_threshold_sits_between_heartbeat_and_lease() -> None:
    with pytest.raises(ValueError, match="unresponsive_s"):
        EngineClient(CONFIG, Telemetry(), heartbeat_s=0.1, lease_s=5.0, unresponsive_s=6.0)
    with pytest.raises(ValueError, match="unresponsive_s"):
        EngineClient(CONFIG, Telemetry(), heartbeat_s=0.1, lease_s=5.0, unresponsive_s=0.05)
