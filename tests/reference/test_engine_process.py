"""The engine core in its own process: faults injected for real, over real sockets.

One server (engine process, 3 s lease) takes every fault in turn: ``kill -9`` of the engine
mid-stream, ``SIGSTOP`` (alive but silent), and an exception raised inside a step outside the
scheduler's handling. Each time 64 streams are in flight; every stream must end (an
OpenAI-shaped error event, then ``[DONE]``), every request must reach exactly one terminal
state, nothing may leak, requests arriving meanwhile get 503 with Retry-After, and the next
request after the restart is served.
"""

from __future__ import annotations

import asyncio
import json
import signal
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import zmq
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from recorders import capture_recorders
from waiting import poll_until

from servescope.harness.loadgen import ClientResult, stream_once
from servescope.instrumentation import FinishReason, Telemetry
from servescope.reference.client.engine_client import EngineClient
from servescope.reference.client.engine_wire import encoder
from servescope.reference.config import EngineConfig, ModelConfig
from servescope.reference.core.request import GenerationRequest
from servescope.reference.transport.server import LocalServer

TINY = ModelConfig(dim=32, n_layers=1, n_heads=4, n_kv_heads=2, hidden_dim=64, max_context=512)
MODEL = "tiny-ref"
CAP = 8
STREAMS = 64


def _config(**overrides: Any) -> EngineConfig:
    # KV for every stream's whole answer (64 x 51 blocks): no preemption, so "all 64 running"
    # holds for the whole stream, not only until the pool runs out
    return EngineConfig(**{"model": TINY, "block_size": 8, "num_blocks": 4096,
                           "max_batch": STREAMS, "max_waiting": 256, "stream_capacity": CAP,
                           "stream_low_watermark": 2, **overrides})


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    srv = LocalServer(_config(), model_name=MODEL, span_exporter=InMemorySpanExporter(),
                      engine_process={"lease_s": 3.0, "restart_backoff_s": 0.2})
    srv.recorders = capture_recorders(srv.telemetry)  # type: ignore[attr-defined]
    srv.start()
    yield srv
    srv.stop()


def _client(server: LocalServer) -> EngineClient:
    assert isinstance(server.engine, EngineClient)
    return server.engine


def _total(server: LocalServer, family: str, **labels: str) -> float:
    total = 0.0
    for metric in server.telemetry.registry.collect():
        for sample in metric.samples:
            if sample.name == family and all(sample.labels.get(k) == v
                                              for k, v in labels.items()):
                total += sample.value
    return total


def _get(url: str) -> tuple[int, dict[str, str], dict[str, Any]]:
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            return resp.status, dict(resp.headers), json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), json.loads(err.read())


def _post(url: str, payload: dict[str, Any]) -> tuple[int, dict[str, str], dict[str, Any]]:
    req = urllib.request.Request(url, json.dumps(payload).encode(),
                                 {"content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, dict(resp.headers), json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), json.loads(err.read())


def _payload(max_tokens: int, *, stream: bool = True) -> dict[str, Any]:
    payload = {"model": MODEL, "prompt": "engine faults", "max_tokens": max_tokens,
               "stream": stream, "ignore_eos": True}
    if stream:
        payload["stream_options"] = {"include_usage": True}
    return payload


def _fault_under_load(server: LocalServer, fault: Callable[[EngineClient], None],
                      reason: str) -> list[ClientResult]:
    """64 streams in flight, then ``fault``: every stream must end, the engine restart."""
    client = _client(server)
    host, port = server.http.host, server.http.port
    assert client.wait_ready(60)
    restarts = _total(server, "servescope_engine_restarts_total", reason=reason)
    committed0 = client.stats().committed_tokens
    old_pid = client.pid

    async def run() -> tuple[list[ClientResult], tuple[int, dict[str, str]]]:
        tasks = [asyncio.create_task(stream_once(host, port, _payload(400), timeout_s=90))
                 for _ in range(STREAMS)]
        # every stream admitted and a few tokens in: the fault lands mid-stream
        await asyncio.to_thread(lambda: poll_until(
            lambda: client.stats().running >= STREAMS
            and client.stats().committed_tokens - committed0 >= 4 * STREAMS,
            timeout_s=120, what="all streams running"))  # 64 prompts on a busy 2-core box
        fault(client)
        results = await asyncio.wait_for(asyncio.gather(*tasks), 90)
        # the engine is being replaced: a request arriving now is refused with 503
        during = await asyncio.to_thread(_post, server.url + "/v1/completions",
                                         _payload(4, stream=False))
        return results, during[:2]

    results, (status, headers) = asyncio.run(run())
    assert len(results) == STREAMS
    assert all(r.finish == "error" and r.detail == "worker_error" for r in results), \
        {(r.finish, r.detail) for r in results}  # an OpenAI error event, then [DONE]
    if status == 503:  # unless the new engine was already up (it takes seconds)
        assert int(headers["retry-after"]) >= 1
    else:
        assert status == 200
    poll_until(client.ready, timeout_s=60, what="the engine to be ready again")
    assert client.pid != old_pid
    assert _total(server, "servescope_engine_restarts_total", reason=reason) == restarts + 1
    return results


def _check_accounting(server: LocalServer) -> None:
    client = _client(server)
    assert client.wait_idle(10), "a request or a resource leaked"
    assert client.live_requests == 0
    arrived = _total(server, "servescope_requests_arrived_total")
    finished = _total(server, "servescope_requests_finished_total")
    in_flight = _total(server, "servescope_requests_in_flight")
    assert in_flight == 0 and finished == arrived
    recorders = server.recorders  # type: ignore[attr-defined]
    assert len(recorders) == arrived
    assert all(r.finished for r in recorders)  # each ended, once (the recorder's CAS)
    stats = client.stats()
    assert stats.free_blocks == stats.total_blocks and stats.used_slots == 0


def _next_request_is_served(server: LocalServer) -> None:
    status, _, body = _get(server.url + "/readyz")
    assert status == 200 and body["ready"] is True
    status, _, body = _post(server.url + "/v1/completions", _payload(12, stream=False))
    assert status == 200, body
    assert body["choices"][0]["finish_reason"] == "length"
    assert body["usage"]["completion_tokens"] == 12


def test_a_normal_run_streams_through_the_engine_process(server: LocalServer) -> None:
    host, port = server.http.host, server.http.port
    client = _client(server)
    calls = []
    step = server.telemetry.step

    def counted(report: Any) -> None:
        calls.append(len(report.advanced))
        step(report)

    server.telemetry.step = counted  # type: ignore[method-assign]
    received0, steps0 = client.messages_received, client.stats().steps

    async def run() -> list[ClientResult]:
        return await asyncio.gather(*(stream_once(host, port, _payload(100))
                                      for _ in range(16)))

    try:
        results = asyncio.run(run())
    finally:
        server.telemetry.step = step  # type: ignore[method-assign]
    assert [r.finish for r in results] == ["length"] * 16
    assert all(r.tokens == 100 for r in results)
    _check_accounting(server)
    # batched: one message per engine iteration (plus heartbeats), never one per token, and
    # one Telemetry.step per engine iteration that reported (every forward step does)
    messages = client.messages_received - received0
    steps = client.stats().steps - steps0
    assert steps >= 100 and messages < 16 * 100 / 4
    assert steps <= len(calls) <= messages
    assert max(calls) >= 8  # a whole batch per call, not one request per call
    status, _, body = _get(server.url + "/healthz")
    assert status == 200 and body["status"] == "ok"
    _next_request_is_served(server)


def test_kill_9_mid_stream_ends_every_stream_once_and_restarts(server: LocalServer) -> None:
    _fault_under_load(server, lambda c: c.signal_engine(signal.SIGKILL), "exited")
    _check_accounting(server)
    _next_request_is_served(server)


def test_a_hung_engine_is_killed_when_its_lease_expires(server: LocalServer) -> None:
    stopped: list[int] = []

    def hang(client: EngineClient) -> None:
        assert client.pid is not None
        stopped.append(client.pid)
        client.signal_engine(signal.SIGSTOP)

    _fault_under_load(server, hang, "lease_expired")
    _check_accounting(server)
    _next_request_is_served(server)


@pytest.fixture
def paced_server() -> Iterator[LocalServer]:
    """Steps of 10 ms or more: a 400-token stream lasts 4 s, long enough to stop mid-way."""
    srv = LocalServer(_config(step_delay_s=0.01), model_name=MODEL,
                      span_exporter=InMemorySpanExporter(),
                      engine_process={"lease_s": 3.0, "restart_backoff_s": 0.2})
    srv.recorders = capture_recorders(srv.telemetry)  # type: ignore[attr-defined]
    srv.start()
    yield srv
    srv.stop()


def test_a_stopped_engine_still_ends_requests_at_their_deadline_and_their_cancels(
        paced_server: LocalServer) -> None:
    """SIGSTOP within the lease (3 s here): the engine ends nothing, so the API process ends
    what passed its deadline, and what its client left, once each, and the engine cancels
    them when it runs again; no restart. (Before, a 0.3 s deadline ran until SIGCONT, and a
    client gone stayed in flight.)"""
    import time

    server = paced_server
    client = _client(server)
    host, port = server.http.host, server.http.port
    assert client.wait_ready(60)
    restarts = _total(server, "servescope_engine_restarts_total")
    deadlines = _total(server, "servescope_requests_finished_total", finish_reason="deadline")
    cancels = _total(server, "servescope_requests_finished_total",
                     finish_reason="client_cancel")
    committed0 = client.stats().committed_tokens

    async def leaving() -> asyncio.StreamWriter:
        """A stream with no deadline whose client will leave while the engine is stopped."""
        reader, writer = await asyncio.open_connection(host, port)
        body = json.dumps(_payload(400)).encode()
        writer.write(b"POST /v1/completions HTTP/1.1\r\nhost: t\r\ncontent-type: "
                     b"application/json\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body))
        await reader.readuntil(b"\r\n\r\n")
        return writer

    async def run() -> tuple[list[ClientResult], list[float]]:
        gone = [await leaving() for _ in range(2)]
        await asyncio.to_thread(lambda: poll_until(
            lambda: client.stats().running >= 2
            and client.stats().committed_tokens - committed0 >= 4,
            timeout_s=60, what="the streams running"))
        # the deadline streams: still ahead of their deadline when the engine stops (queued,
        # in prefill or running: wherever they are, the engine ends none of them now)
        payload = {**_payload(400), "deadline_s": 1.0}
        tasks = [asyncio.create_task(stream_once(host, port, payload, timeout_s=30))
                 for _ in range(4)]
        await asyncio.sleep(0.3)
        assert client.pid is not None
        client.signal_engine(signal.SIGSTOP)
        stopped_at = time.monotonic()
        try:
            for writer in gone:
                writer.close()
            results = await asyncio.wait_for(asyncio.gather(*tasks), 30)
            ended = [time.monotonic() - stopped_at]
            # the clients that left are ended too, before the engine runs again
            await asyncio.to_thread(lambda: poll_until(
                lambda: _total(server, "servescope_requests_finished_total",
                               finish_reason="client_cancel") == cancels + 2,
                timeout_s=2.0, what="the cancels ended while the engine is stopped"))
        finally:
            client.signal_engine(signal.SIGCONT)
        return results, ended

    results, (ended_after,) = asyncio.run(run())
    assert {r.finish for r in results} == {"deadline"}, {(r.finish, r.detail) for r in results}
    # deadline 1 s after arrival, the engine silent 0.5 s before the link steps in: long
    # before the 3 s lease would have ended them with error
    assert ended_after < 2.5
    assert _total(server, "servescope_requests_finished_total",
                  finish_reason="deadline") == deadlines + 4
    poll_until(client.ready, timeout_s=30, what="the engine to answer again")
    assert _total(server, "servescope_engine_restarts_total") == restarts
    _check_accounting(server)
    _next_request_is_served(server)


def test_an_exception_inside_a_step_ends_the_engine_and_restarts_it(
        server: LocalServer) -> None:
    _fault_under_load(server, lambda c: c.inject_crash(), "fatal")
    _check_accounting(server)
    _next_request_is_served(server)


def test_readyz_says_not_ready_while_the_engine_restarts(server: LocalServer) -> None:
    client = _client(server)
    assert client.wait_ready(60)
    client.signal_engine(signal.SIGKILL)
    poll_until(lambda: not client.ready(), timeout_s=10, what="the engine to be declared dead")
    status, headers, body = _get(server.url + "/readyz")
    assert status == 503 and int(headers["retry-after"]) >= 1
    assert body["error"]["code"] == "engine_unavailable" and body["ready"] is False
    status, _, _ = _get(server.url + "/healthz")
    assert status == 200  # the API process is up all along
    status, headers, body = _post(server.url + "/v1/completions", _payload(4, stream=False))
    assert status == 503 and int(headers["retry-after"]) >= 1
    assert body["error"]["type"] == "server_error"
    poll_until(client.ready, timeout_s=60, what="the engine to be ready again")
    text = urllib.request.urlopen(server.url + "/metrics", timeout=10).read().decode()
    assert 'servescope_engine_heartbeat_age_seconds{pool="default"}' in text
    assert 'servescope_engine_last_step_age_seconds{pool="default"}' in text
    _check_accounting(server)
    _next_request_is_served(server)


def test_a_slow_reader_pauses_only_its_own_request_across_the_boundary() -> None:
    telemetry = Telemetry()
    with EngineClient(_config(), telemetry) as client:
        slow = client.submit(GenerationRequest("slow", [5, 6, 7], 200, ignore_eos=True))
        fast = [client.submit(GenerationRequest(f"fast{i}", [5, 6, 7], 200, ignore_eos=True))
                for i in range(4)]
        for handle in fast:
            got = 0
            while (chunk := handle.get_chunk(10.0)) is not None:
                got += len(chunk)
                handle.delivered(len(chunk))
            assert got == 200 and handle.finish_reason is not None
        # the unread request is paused at capacity: never more buffered than that
        assert slow.finish_reason is None
        assert slow.buffered == CAP and slow.peak_buffered == CAP
        assert slow.recorder.summary().pauses >= 1
        got = 0
        while (chunk := slow.get_chunk(10.0)) is not None:
            got += len(chunk)
            slow.delivered(len(chunk))
        assert got == 200 and slow.peak_buffered <= CAP
        assert client.wait_idle(10)
        assert slow.recorder.summary().delivered_tokens == 200


def test_a_fault_in_one_request_ends_it_alone_without_a_restart() -> None:
    telemetry = Telemetry()
    with EngineClient(_config(step_delay_s=0.01), telemetry) as client:
        handles = [client.submit(GenerationRequest(f"r{i}", [5, 6, 7], 60, ignore_eos=True))
                   for i in range(4)]
        poll_until(lambda: client.stats().running == 4, timeout_s=30, what="admission")
        handles[0].inject_fault()
        for handle in handles:
            while (chunk := handle.get_chunk(10.0)) is not None:
                handle.delivered(len(chunk))
        assert handles[0].wait(10).value == "error"
        assert [h.wait(10).value for h in handles[1:]] == ["length"] * 3
        assert client.restarts == 0 and client.wait_idle(10)


def test_a_malformed_message_from_the_engine_replaces_it_with_the_field_named(
        caplog: pytest.LogCaptureFixture) -> None:
    """The typed decoder refuses the old untyped tuple before any of it is applied: the request
    in flight ends once with error, the log names the event's position, a new engine starts."""
    telemetry = Telemetry()
    with EngineClient(_config(step_delay_s=0.01), telemetry, restart_backoff_s=0.2) as client:
        assert client.wait_ready(60)
        handle = client.submit(GenerationRequest("r0", [5, 6, 7], 400, ignore_eos=True))
        poll_until(lambda: client.stats().running == 1, timeout_s=30, what="admission")
        old_pid = client.pid
        inc = client._inc
        assert inc is not None
        # a second sender on the link's socket (a zmq PULL takes any peer): a push as the
        # wire once carried it, (code, request id, tokens, None)
        sender = zmq.Context.instance().socket(zmq.PUSH)
        sender.setsockopt(zmq.LINGER, 0)
        sender.connect(f"ipc://{inc.paths[1]}")
        try:
            sender.send(encoder.encode(["step", [["P", "r0", [7], None]], [], ""]))
            assert handle.wait(30) is FinishReason.ERROR
            poll_until(lambda: client.restarts == 1 and client.ready(), timeout_s=60,
                       what="a new engine")
        finally:
            sender.close()
        assert client.pid != old_pid
        assert "malformed message" in caplog.text and "at `$[1][0]`" in caplog.text
        assert telemetry.registry.get_sample_value(
            "servescope_engine_restarts_total", {"pool": "default", "reason": "fatal"}) == 1
        assert client.wait_idle(10)


@pytest.mark.parametrize(("prompt", "why"), [
    ([], "empty_prompt"), ([1] * TINY.max_context, "prompt_too_long"),
    ([1, TINY.vocab_size], "invalid_token")])
def test_the_api_process_rejects_what_the_engine_cannot_take(server: LocalServer,
                                                            prompt: list[int],
                                                            why: str) -> None:
    """Refused before it crosses to the engine, with the in-process engine's reasons."""
    handle = _client(server).submit(GenerationRequest(f"bad-{why}", prompt, 4))
    assert handle.finish_reason is FinishReason.REJECTED
    assert handle.reject_reason == why
    assert handle.get_chunk(1) is None


def test_lease_must_exceed_the_heartbeat() -> None:
    with pytest.raises(ValueError, match="lease_s"):
        EngineClient(_config(), Telemetry(), heartbeat_s=1.0, lease_s=0.5)


def test_racing_terminal_signals_across_the_boundary_leave_one_reason_and_no_leaks() -> None:
    """Cancels, faults, deadlines, disconnects and stalled readers race the natural end of
    48 requests, from many threads, with the engine in its own process."""
    import random
    import threading

    registry_telemetry = Telemetry()
    cfg = _config(num_blocks=64, max_batch=6, max_waiting=64, stream_capacity=4,
                  stream_low_watermark=1, slow_consumer_timeout_s=0.2, drain_timeout_s=0.3)
    with EngineClient(cfg, registry_telemetry) as client:
        handles = []

        def race(i: int) -> None:
            r = random.Random(i)
            handle = client.submit(GenerationRequest(
                f"race-{i}", [r.randrange(256) for _ in range(r.randint(1, 20))],
                r.randint(1, 30), deadline_s=r.choice([None, r.uniform(0.001, 0.05)]),
                ignore_eos=True))
            handles.append(handle)
            style = r.choice(["read", "read", "disconnect", "stalled"])
            if r.random() < 0.4:
                threading.Timer(r.uniform(0, 0.02), handle.cancel).start()
            if r.random() < 0.3:
                threading.Timer(r.uniform(0, 0.02), handle.inject_fault).start()
            read = 0
            while style != "stalled" and (chunk := handle.get_chunk(5.0)) is not None:
                read += len(chunk)
                handle.delivered(len(chunk))
                if style == "disconnect" and read >= 2:
                    handle.cancel()
                    break

        workers = [threading.Thread(target=race, args=(i,)) for i in range(48)]
        for t in workers:
            t.start()
        for t in workers:
            t.join(30)
        assert client.wait_idle(15), client.stats()
        assert client.restarts == 0
        for h in handles:
            assert h.finish_reason is not None
            assert h.recorder.finished and h.recorder.finish_reason is h.finish_reason
            assert h.life.cleanup_count == 1
            assert h.peak_buffered <= 4
            s = h.recorder.summary()
            assert s.committed_tokens == s.delivered_tokens + s.discarded_tokens
        stats = client.stats()
        assert stats.idle and stats.free_blocks == stats.total_blocks
    registry = registry_telemetry.registry
    arrived = sum(s.value for m in registry.collect() for s in m.samples
                  if s.name == "servescope_requests_arrived_total")
    finished = sum(s.value for m in registry.collect() for s in m.samples
                   if s.name == "servescope_requests_finished_total")
    assert arrived == finished == 48
