"""What left the host, per transport: direct HTTP/1.1, HTTP/2, nginx unbuffered and buffered.

Part 1, timing: a batched run of streamed chat completions at concurrency 8; each response is
joined to its request span by id; prints the distributions of client TTFT - server TTFT and
client end - server end (all must be >= 0).

Part 2, transports: per transport, fast readers stream beside slow readers that stop reading
(a small receive buffer, nothing read for ``STALL_S``, then read everything). Per transport:
peak generated-but-unacknowledged tokens per slow request, discarded tokens, time from the
stall (the first token written) to the engine pausing that request, and the fast clients'
client-side TPOT p99 as a ratio to the same run without slow readers (direct).

Run: ``python -P benchmarks/transport.py`` (needs nginx for the proxy rows). Prints a table and
one JSON line.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from servescope.instrumentation.request_recorder import RequestRecorder
from servescope.reference.config import EngineConfig, ModelConfig
from servescope.reference.transport.server import LocalServer
from servescope.report.launcher import free_port

MODEL = "bench-ref"
CFG = ModelConfig(dim=64, n_layers=2, n_heads=4, n_kv_heads=2, hidden_dim=128,
                  max_context=2048)
FAST, SLOW, TOKENS, STALL_S = 6, 2, 1500, 3.0


def _server(spans: InMemorySpanExporter | None = None, *,
            http2: bool = False) -> tuple[LocalServer, list[Any]]:
    config = EngineConfig(model=CFG, block_size=16, num_blocks=1024, max_batch=16,
                          stream_capacity=8, stream_low_watermark=2,
                          slow_consumer_timeout_s=30.0)
    server = LocalServer(config, model_name=MODEL, span_exporter=spans or InMemorySpanExporter(),
                         chunk_tokens=1)
    if http2:  # the same engine and telemetry, the app served by hypercorn instead
        from servescope.reference.transport.http2 import Http2ServerThread
        from servescope.reference.transport.server import create_app

        server.app = create_app(server.engine, server.telemetry, model_name=MODEL,
                                chunk_tokens=1, http2=True)
        server.http = Http2ServerThread(server.app)  # type: ignore[assignment]
    seen: list[Any] = []
    make = server.telemetry.request

    def capture(*args: Any, **kwargs: Any) -> RequestRecorder:
        recorder = make(*args, **kwargs)
        first_pause: list[float] = []
        paused = recorder.paused

        def on_pause(*, now: float | None = None) -> None:
            if not first_pause:
                first_pause.append(server.telemetry.clock() if now is None else now)
            paused(now=now)

        recorder.paused = on_pause  # type: ignore[method-assign]
        seen.append((recorder, first_pause))
        return recorder

    server.telemetry.request = capture  # type: ignore[method-assign]
    return server, seen


# --- part 1: timing points ------------------------------------------------------------------
async def _timed(client: httpx.AsyncClient, i: int) -> tuple[str, float, float, float]:
    body = {"model": MODEL, "stream": True, "max_tokens": 16 + i % 17, "ignore_eos": True,
            "messages": [{"role": "user", "content": f"story {i}"}]}
    sent, first, rid = time.monotonic(), 0.0, ""
    async with client.stream("POST", "/v1/chat/completions", json=body) as response:
        async for line in response.aiter_lines():
            if line == "data: [DONE]":
                return rid, sent, first, time.monotonic()
            if line.startswith("data: {"):
                chunk = json.loads(line[6:])
                rid = chunk["id"]
                if not first and chunk["choices"] and chunk["choices"][0]["delta"].get("content"):
                    first = time.monotonic()
    raise RuntimeError("stream ended without [DONE]")


def timing(n: int = 400, concurrency: int = 8) -> dict[str, Any]:
    spans = InMemorySpanExporter()
    server, _ = _server(spans)

    async def run() -> list[tuple[str, float, float, float]]:
        limits = httpx.Limits(max_connections=concurrency)
        async with httpx.AsyncClient(base_url=server.url, limits=limits, timeout=60) as client:
            queue = list(range(n))
            out: list[tuple[str, float, float, float]] = []

            async def worker() -> None:
                while queue:
                    out.append(await _timed(client, queue.pop()))

            await asyncio.gather(*(worker() for _ in range(concurrency)))
            return out

    with server:
        results = asyncio.run(run())
        server.engine.wait_idle(10)
    requests = {s.attributes["servescope.request.id"]: s for s in spans.get_finished_spans()
                if s.attributes and "servescope.finish_reason" in s.attributes}
    d_ttft, d_end = [], []
    for rid, sent, first, done in results:
        span = requests[rid]
        d_ttft.append((first - sent) - float(span.attributes["servescope.ttft_seconds"]))
        d_end.append((server.telemetry.span_ns(done) - span.end_time) / 1e9)
    return {"requests": n, "ttft_delta": _dist(d_ttft), "end_delta": _dist(d_end)}


def _dist(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"min_ms": ordered[0] * 1e3, "p50_ms": statistics.median(ordered) * 1e3,
            "p99_ms": ordered[int(0.99 * (len(ordered) - 1))] * 1e3,
            "max_ms": ordered[-1] * 1e3}


# --- part 2: transports ---------------------------------------------------------------------
_NGINX_CONF = """worker_processes 1; {user} error_log {d}/error.log warn; pid {d}/nginx.pid;
events {{ worker_connections 128; }}
http {{ access_log off; client_body_temp_path {d}/b; proxy_temp_path {d}/p;
  fastcgi_temp_path {d}/f; uwsgi_temp_path {d}/u; scgi_temp_path {d}/s;
  server {{ listen 127.0.0.1:{port} sndbuf=8k;
    location / {{ proxy_pass http://127.0.0.1:{upstream}; proxy_http_version 1.1;
      proxy_set_header Connection ""; {extra} }} }} }}
"""


def _nginx(upstream: int, extra: str, root: Path) -> tuple[subprocess.Popen[bytes], int]:
    binary = shutil.which("nginx") or "/usr/sbin/nginx"
    port = free_port()
    user = "user root;" if os.geteuid() == 0 else ""
    (root / "nginx.conf").write_text(_NGINX_CONF.format(d=root, port=port, upstream=upstream,
                                                        extra=extra, user=user))
    proc = subprocess.Popen([binary, "-p", str(root), "-e", str(root / "error.log"), "-c",
                             str(root / "nginx.conf"), "-g", "daemon off;"],
                            stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.05)
    return proc, port


async def _fast(port: int, http2: bool = False) -> list[float]:
    gaps: list[float] = []
    body = {"model": MODEL, "prompt": "fast", "max_tokens": TOKENS // 2, "stream": True,
            "ignore_eos": True}
    async with httpx.AsyncClient(timeout=120, http1=not http2, http2=http2) as client, \
            client.stream(
            "POST", f"http://127.0.0.1:{port}/v1/completions", json=body) as response:
        last = None
        async for line in response.aiter_lines():
            if line.startswith("data: {") and '"text":"' in line:
                now = time.monotonic()
                if last is not None:
                    gaps.append(now - last)
                last = now
    return gaps


async def _slow_h2(port: int) -> None:
    """One h2 connection (16 MiB connection window, as httpx sets), one stream read by nobody
    for STALL_S, then read to the end."""
    import h2.config
    import h2.connection
    import h2.events

    loop = asyncio.get_running_loop()
    sock = socket.socket()
    sock.setblocking(False)
    await loop.sock_connect(sock, ("127.0.0.1", port))
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    conn.initiate_connection()
    conn.increment_flow_control_window(2**24)
    body = json.dumps({"model": MODEL, "prompt": "slow", "max_tokens": TOKENS, "stream": True,
                       "ignore_eos": True}).encode()
    conn.send_headers(1, [(":method", "POST"), (":path", "/v1/completions"), (":scheme", "http"),
                          (":authority", "x"), ("content-type", "application/json")])
    conn.send_data(1, body, end_stream=True)
    await loop.sock_sendall(sock, conn.data_to_send())
    stall_until, unread = time.monotonic() + STALL_S, 0
    while True:
        try:
            data = await asyncio.wait_for(loop.sock_recv(sock, 65536), 0.05)
        except TimeoutError:
            data = None
        if data == b"":
            break
        for event in conn.receive_data(data) if data else []:
            if isinstance(event, h2.events.DataReceived):
                unread += event.flow_controlled_length
            elif isinstance(event, h2.events.StreamEnded):
                sock.close()
                return
        if unread and time.monotonic() >= stall_until:  # the stall is over: consume
            conn.acknowledge_received_data(unread, 1)
            unread = 0
        await loop.sock_sendall(sock, conn.data_to_send())
    sock.close()


async def _slow(port: int) -> None:
    loop = asyncio.get_running_loop()
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await loop.sock_connect(sock, ("127.0.0.1", port))
    body = json.dumps({"model": MODEL, "prompt": "slow", "max_tokens": TOKENS, "stream": True,
                       "ignore_eos": True}).encode()
    await loop.sock_sendall(sock, b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: "
                            b"application/json\r\nContent-Length: %d\r\n\r\n%s"
                            % (len(body), body))
    await asyncio.sleep(STALL_S)  # the stall: read nothing
    while True:  # then read everything
        data = await loop.sock_recv(sock, 65536)
        if not data or b"data: [DONE]" in data:
            break
    sock.close()


def transport(name: str, extra: str | None, slow: int, http2: bool = False) -> dict[str, Any]:
    server, seen = _server(http2=http2)
    with server, tempfile.TemporaryDirectory() as tmp:
        proxy = None
        port = server.http.port
        if extra is not None:
            proxy, port = _nginx(server.http.port, extra, Path(tmp))

        async def run() -> list[list[float]]:
            slow_reader = _slow_h2 if http2 else _slow
            tasks = [asyncio.create_task(slow_reader(port)) for _ in range(slow)]
            fast = await asyncio.gather(*(_fast(port, http2) for _ in range(FAST)))
            await asyncio.gather(*tasks)
            return list(fast)

        try:
            fast_gaps = asyncio.run(run())
            server.engine.wait_idle(20)
        finally:
            if proxy is not None:
                proxy.terminate()
                proxy.wait(10)
    slow_recs = [(r, p) for r, p in seen if r.summary().committed_tokens == TOKENS]
    stall_to_pause = [p[0] - r._times.first_byte for r, p in slow_recs
                      if p and r._times.first_byte is not None]
    gaps = sorted(g for gs in fast_gaps for g in gs)
    return {
        "transport": name, "slow_readers": slow,
        "peak_unacked_tokens": max((r.summary().peak_unacknowledged for r, _ in slow_recs),
                                   default=0),
        "discarded_tokens": sum(r.summary().discarded_tokens for r, _ in seen),
        "stall_to_pause_ms": (max(stall_to_pause) * 1e3 if stall_to_pause else None),
        "fast_tpot_p99_s": gaps[int(0.99 * (len(gaps) - 1))],
    }


def main() -> None:
    rows = []
    baseline = transport("direct HTTP/1.1, no slow readers", None, 0)
    have_nginx = bool(shutil.which("nginx") or os.path.exists("/usr/sbin/nginx"))
    for name, extra, http2 in (("direct HTTP/1.1", None, False), ("HTTP/2 (hypercorn)", None, True),
                               ("nginx (X-Accel-Buffering: no)", "", False),
                               ("nginx buffering forced on",
                                "proxy_buffering on; proxy_ignore_headers X-Accel-Buffering;",
                                False)):
        if extra is not None and not have_nginx:
            continue
        row = transport(name, extra, SLOW, http2)
        row["fast_tpot_p99_ratio"] = row["fast_tpot_p99_s"] / baseline["fast_tpot_p99_s"]
        rows.append(row)
    t = timing()
    print(f"{'transport':34} {'peak unacked/req':>17} {'discarded':>10} "
          f"{'stall->pause ms':>16} {'fast TPOT p99 x':>16}")
    for r in rows:
        pause = "never" if r["stall_to_pause_ms"] is None else f"{r['stall_to_pause_ms']:.1f}"
        print(f"{r['transport']:34} {r['peak_unacked_tokens']:>17} {r['discarded_tokens']:>10} "
              f"{pause:>16} {r['fast_tpot_p99_ratio']:>16.2f}")
    for key, label in (("ttft_delta", "client TTFT - server TTFT"),
                       ("end_delta", "client end - server end")):
        d = t[key]
        print(f"{label:28} min {d['min_ms']:.3f} ms  p50 {d['p50_ms']:.3f} ms  "
              f"p99 {d['p99_ms']:.3f} ms  max {d['max_ms']:.3f} ms  ({t['requests']} requests)")
    print(json.dumps({"benchmark": "transport", "rows": rows, "timing": t,
                      "baseline_fast_tpot_p99_s": baseline["fast_tpot_p99_s"]}))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
