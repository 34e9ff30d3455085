"""A stub engine: OpenAI-shaped streaming answers with no model behind them, as cheap as an
ASGI app can be, and faults on request. What a proxy is measured against (the gateway's tests
and ``benchmarks/gateway.py``: the numbers then measure the proxy, not an engine).

``POST /v1/completions`` and ``POST /v1/chat/completions`` stream ``max_tokens`` chunks (one
token each, vLLM's shape: ``stream_options.include_usage`` adds the usage chunk) or answer
whole. The body field ``stub`` (ignored by real engines) asks for a behaviour:

* ``token_delay_s``: seconds between chunks (default 0);
* ``head_delay_s``: seconds before the answer's head;
* ``fault``: ``reset`` (the connection drops after ``fault_after`` chunks, mid-body),
  ``malformed`` (a chunk that is not JSON), ``no_finish`` (the stream ends cleanly without a
  finish reason or ``[DONE]``), ``stall`` (nothing more after ``fault_after`` chunks);
* ``chunk_bytes``: pad each chunk's text to about this many bytes;
* ``report_hold``: the first chunk carries ``stub_hold_ns``, the nanoseconds from the whole
  request read to that chunk's write (its wait and its pacing), so a client can subtract the
  engine's own time, and its timer's jitter, from its TTFT (``benchmarks/gateway.py``).

:class:`StubEngine` counts what a test asks about: requests, streams in progress, streams
whose client went away before the end (``cancelled``), bytes each stream handed to its
connection, and the ``traceparent`` each request carried.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["StubEngine", "StubServer"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
_SSE = [(b"content-type", b"text/event-stream; charset=utf-8"), (b"cache-control", b"no-cache")]
_JSON = [(b"content-type", b"application/json")]
MODEL = "stub-model"


class _Reset(Exception):
    """Raised inside a started response: uvicorn drops the connection mid-body."""


@dataclass
class StubEngine:
    """The ASGI app and its counters (read from any thread)."""

    model: str = MODEL
    requests: int = 0
    active: int = 0
    cancelled: int = 0
    completed: int = 0
    traceparents: list[str] = field(default_factory=list)
    bytes_sent: dict[int, int] = field(default_factory=dict)  # per request number

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        path, method = scope["path"], scope["method"]
        if method == "POST" and path in ("/v1/completions", "/v1/chat/completions"):
            await self._generate(scope, receive, send, chat=path.endswith("chat/completions"))
        elif path == "/v1/models":
            await _json(send, 200, {"object": "list", "data": [
                {"id": self.model, "object": "model", "owned_by": "stub"}]})
        elif path == "/health":
            await _json(send, 200, {"status": "ok"})
        else:
            await _json(send, 404, {"error": {"message": "not found", "type": "not_found",
                                              "param": None, "code": "404"}})

    async def _generate(self, scope: Scope, receive: Receive, send: Send, chat: bool) -> None:
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        received_ns = time.perf_counter_ns()
        self.requests += 1
        number = self.requests
        headers = dict(scope["headers"])
        if b"traceparent" in headers:
            self.traceparents.append(headers[b"traceparent"].decode())
        try:
            req = json.loads(body)
        except ValueError:
            await _json(send, 400, {"error": {"message": "body is not JSON", "type":
                                              "invalid_request_error", "param": None,
                                              "code": None}})
            return
        stub = req.get("stub") or {}
        if stub.get("head_delay_s"):
            await asyncio.sleep(float(stub["head_delay_s"]))
        shape = _Shape(chat, req.get("model", self.model), f"stub-{number}",
                       int(stub.get("chunk_bytes", 0)),
                       received_ns if stub.get("report_hold") else None)
        if not req.get("stream"):
            n = int(req.get("max_tokens") or 16)
            await _json(send, 200, shape.whole(n))
            self.completed += 1
            return
        self.active += 1
        gone = asyncio.Event()
        watcher = asyncio.ensure_future(_watch(receive, gone))
        try:
            await self._stream(send, req, stub, shape, number, gone)
        finally:
            watcher.cancel()
            self.active -= 1
            if gone.is_set():
                self.cancelled += 1

    async def _stream(self, send: Send, req: dict[str, Any], stub: dict[str, Any],
                      shape: _Shape, number: int, gone: asyncio.Event) -> None:
        n = int(req.get("max_tokens") or 16)
        delay = float(stub.get("token_delay_s", 0))
        fault, after = stub.get("fault"), int(stub.get("fault_after", 2))
        usage = bool((req.get("stream_options") or {}).get("include_usage"))
        await send({"type": "http.response.start", "status": 200, "headers": _SSE})
        sent = self.bytes_sent
        sent[number] = 0
        for i in range(n):
            if gone.is_set():
                return
            if delay:  # a fault comes when the next chunk would have (paced like one)
                await asyncio.sleep(delay)
            if fault and i == after:
                await self._fault(send, fault, gone)
                return
            data = shape.event(i, "length" if i == n - 1 else None, usage)
            await send({"type": "http.response.body", "body": data, "more_body": True})
            sent[number] += len(data)
        tail = shape.usage_event(n) if usage else b""
        await send({"type": "http.response.body", "body": tail + b"data: [DONE]\n\n"})
        self.completed += 1

    async def _fault(self, send: Send, fault: str, gone: asyncio.Event) -> None:
        if fault == "reset":
            raise _Reset("the stub drops the connection mid-stream")
        if fault == "malformed":
            await send({"type": "http.response.body", "body": b"data: {not json\n\n",
                        "more_body": True})
            await gone.wait()
        elif fault == "no_finish":
            await send({"type": "http.response.body", "body": b""})
        elif fault == "stall":
            await gone.wait()


async def _watch(receive: Receive, gone: asyncio.Event) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
    gone.set()


async def _json(send: Send, status: int, obj: Any) -> None:
    body = json.dumps(obj).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [*_JSON, (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


class _Shape:
    def __init__(self, chat: bool, model: str, rid: str, pad: int,
                 received_ns: int | None = None) -> None:
        self.chat, self.model, self.rid = chat, model, rid
        self.received_ns = received_ns  # report the first chunk's hold (``report_hold``)
        self.created = int(time.time())
        self.obj = "chat.completion.chunk" if chat else "text_completion"
        self.text = "tok " + "x" * max(0, pad - 200)

    def event(self, i: int, finish: str | None, usage: bool) -> bytes:
        if self.chat:
            choice: dict[str, Any] = {"index": 0, "delta": {"content": self.text},
                                      "finish_reason": finish}
        else:
            choice = {"index": 0, "text": self.text, "finish_reason": finish}
        chunk: dict[str, Any] = {"id": self.rid, "object": self.obj, "created": self.created,
                                 "model": self.model, "choices": [choice]}
        if usage:
            chunk["usage"] = None
        if i == 0 and self.received_ns is not None:
            chunk["stub_hold_ns"] = time.perf_counter_ns() - self.received_ns
            chunk["stub_read_ns"] = self.received_ns  # CLOCK_MONOTONIC on Linux
        return b"data: " + json.dumps(chunk, separators=(",", ":")).encode() + b"\n\n"

    def usage_event(self, n: int) -> bytes:
        chunk = {"id": self.rid, "object": self.obj, "created": self.created,
                 "model": self.model, "choices": [],
                 "usage": {"prompt_tokens": 3, "completion_tokens": n, "total_tokens": n + 3}}
        return b"data: " + json.dumps(chunk, separators=(",", ":")).encode() + b"\n\n"

    def whole(self, n: int) -> dict[str, Any]:
        text = self.text * n
        choice: dict[str, Any] = ({"index": 0, "message": {"role": "assistant",
                                                           "content": text},
                                   "finish_reason": "length"} if self.chat else
                                  {"index": 0, "text": text, "finish_reason": "length"})
        return {"id": self.rid, "object": "chat.completion" if self.chat else
                "text_completion", "created": self.created, "model": self.model,
                "choices": [choice],
                "usage": {"prompt_tokens": 3, "completion_tokens": n, "total_tokens": n + 3}}


class StubServer:
    """A :class:`StubEngine` (or any ASGI ``app``) served by uvicorn on a thread (127.0.0.1,
    a free port)."""

    def __init__(self, engine: StubEngine | None = None, port: int = 0, *,
                 app: Any = None) -> None:
        import socket

        import uvicorn

        self.engine = engine or StubEngine()
        # IPPROTO_TCP named: asyncio sets TCP_NODELAY only on sockets whose proto says TCP
        # (accepted ones inherit it). Without it the first chunk after the head waits for the
        # client's delayed ACK (Nagle): 40 ms in every stream's TTFT, which engines on
        # uvicorn (uvloop sets it) do not have.
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", port))
        self._sock.listen(1024)
        self.port = self._sock.getsockname()[1]
        config = uvicorn.Config(app or self.engine, loop="asyncio", lifespan="off", log_config=None,
                                log_level="critical", access_log=False,
                                timeout_graceful_shutdown=1)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=lambda: asyncio.run(
            self._server.serve(sockets=[self._sock])), daemon=True, name="stub-engine")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout_s: float = 10.0) -> StubServer:
        self._thread.start()
        deadline = time.monotonic() + timeout_s
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the stub engine did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(5)
        self._sock.close()

    def __enter__(self) -> StubServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> None:
    """``python -m servescope.harness.stub_engine --port N``: serve until interrupted."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args(argv)
    server = StubServer(port=args.port).start()
    print("ready", flush=True)
    try:
        server._thread.join()
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
