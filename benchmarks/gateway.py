"""What ``servescope gateway`` adds to a stream, beside nginx, over the same load.

Three paths to one cheap upstream (the stub engine of ``harness/stub_engine.py``, in its own
process: no model, so the numbers measure the proxy): **direct**; through **servescope
gateway** (the real command, its own process, spans exported to a file as in production);
through **nginx** (``proxy_buffering off``, one worker, keep-alive upstream). The clients run
in their own processes (a minimal HTTP/1.1 client on asyncio streams, so client work is
small), started together and released at once.

* **paced**: 64 concurrent streams, each 48 chunks 40 ms apart (25 tokens/s per stream, an
  engine's pace at that concurrency: 1,600 chunks/s in all). Per
  path: client TTFT p50/p99 and time per chunk (request duration / chunks); *added* = the
  path's figure minus direct's, so the stub's own time cancels out.
* **saturated**: 64 concurrent streams of 256 chunks sent as fast as the stub can: chunks/s
  through each path, and streams at saturation = chunks/s / 25 (how many streams paced at
  40 ms the path could carry).
* **CPU**: the proxy process's user + system CPU (``/proc/PID/stat``) per 1,000 chunks, in
  the paced run.
* **light**: the paced load at 16 streams, where a proxy that cannot carry 64 paced streams
  on the machine at hand is not yet queueing: what it adds when it keeps up.

Paths run in interleaved rounds (direct, gateway, nginx, then again) so drift of a busy
machine spreads over all three. Goals (issue 19): added TTFT p50 <= 1 ms and <= 0.1 ms per
chunk at 64 streams; at most 2x nginx's added latency.

Run: ``python -P benchmarks/gateway.py`` (needs nginx). Prints a table and one JSON line.
``--baseline DIR`` adds a fourth path, **before**: ``servescope gateway`` imported from
``DIR`` (a directory holding another version's ``servescope`` package), so a change to the
gateway is measured against the code it replaces in the same run.
"""

from __future__ import annotations

import argparse
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

NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx")
                                  else None)
STREAMS = 64
CLIENT_PROCS = 4
PACED = {"tokens": 48, "delay": 0.04, "per_stream": 2}
SATURATED = {"tokens": 256, "delay": 0.0, "per_stream": 2}
ROUNDS = 2
#: The same paced load at a lower concurrency, where the gateway is not saturated here.
LIGHT_STREAMS = 16
#: Extra ``servescope gateway`` arguments (``--gateway-arg=--send-buffer-bytes=0``).
GATEWAY_ARGS: list[str] = []
#: Import root of a second gateway to run beside this one (``--baseline``); None: none.
BASELINE: list[str] = []
PATHS = ("direct", "gateway", "nginx")

_NGINX_CONF = """
worker_processes 1;
{user}
error_log {d}/error.log warn;
pid {d}/nginx.pid;
events {{ worker_connections 4096; }}
http {{
  access_log off;
  client_body_temp_path {d}/body; proxy_temp_path {d}/proxy; fastcgi_temp_path {d}/fcgi;
  uwsgi_temp_path {d}/uwsgi; scgi_temp_path {d}/scgi;
  upstream stub {{ server 127.0.0.1:{upstream}; keepalive 256; }}
  server {{
    listen 127.0.0.1:{port};
    location / {{
      proxy_pass http://stub;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
    }}
  }}
}}
"""


# --- the client (its own process) ---------------------------------------------------------
async def _read_stream(reader: asyncio.StreamReader, sent: float) -> tuple[float, float, int]:
    """Read one chunked SSE answer: (TTFT, duration, events)."""
    head = await reader.readuntil(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200"):  # counted as an error (content-length framed)
        length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
        await reader.readexactly(length)
        return -1.0, -1.0, 0
    first, events = None, 0
    while True:
        size = int((await reader.readline()).strip(), 16)
        if size == 0:
            await reader.readline()
            break
        data = await reader.readexactly(size + 2)
        if first is None and b'"text"' in data:
            first = time.monotonic()
        events += data.count(b"data: {")
    end = time.monotonic()
    assert first is not None
    return first - sent, end - sent, events


async def _worker(port: int, load: dict[str, Any], out: list[tuple[float, float, int]]) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    body = json.dumps({"model": "stub-model", "prompt": "x", "stream": True,
                       "max_tokens": load["tokens"],
                       "stub": {"token_delay_s": load["delay"]}}).encode()
    request = (b"POST /v1/completions HTTP/1.1\r\nhost: bench\r\ncontent-type: "
               b"application/json\r\ncontent-length: " + str(len(body)).encode() +
               b"\r\n\r\n" + body)
    for _ in range(load["per_stream"]):
        sent = time.monotonic()
        writer.write(request)
        out.append(await _read_stream(reader, sent))
    writer.close()


async def _client(port: int, streams: int, load: dict[str, Any]) -> list[Any]:
    out: list[tuple[float, float, int]] = []
    await asyncio.gather(*(_worker(port, load, out) for _ in range(streams)))
    return out


def _client_main() -> None:
    config = json.loads(sys.stdin.readline())
    print("ready", flush=True)
    sys.stdin.readline()  # go
    start = time.monotonic()
    results = asyncio.run(_client(config["port"], config["streams"], config["load"]))
    print(json.dumps({"results": results, "wall": time.monotonic() - start}), flush=True)


# --- the parent -----------------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_port(port: int, proc: subprocess.Popen[Any], what: str) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{what} did not start") from None
            time.sleep(0.05)


def _run_clients(port: int, load: dict[str, Any],
                 streams: int = STREAMS) -> tuple[list[Any], float]:
    """All client processes started together and released at once."""
    per = streams // CLIENT_PROCS
    procs = [subprocess.Popen([sys.executable, "-P", __file__, "--client"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
             for _ in range(CLIENT_PROCS)]
    for proc in procs:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps({"port": port, "streams": per, "load": load}) + "\n")
        proc.stdin.flush()
        assert proc.stdout.readline().strip() == "ready"
    start = time.monotonic()
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    results: list[Any] = []
    for proc in procs:
        assert proc.stdout is not None
        results += json.loads(proc.stdout.readline())["results"]
        proc.wait(60)
    return results, time.monotonic() - start


def _cpu_s(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime + stime, in clock ticks
    return total / os.sysconf("SC_CLK_TCK")


def _children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main() -> None:
    root = Path(tempfile.mkdtemp(prefix="servescope-bench-gw-"))
    stub_port, gw_port, nginx_port = _free_port(), _free_port(), _free_port()
    procs: list[subprocess.Popen[Any]] = []
    try:
        stub = subprocess.Popen([sys.executable, "-P", "-m", "servescope.harness.stub_engine",
                                 "--port", str(stub_port)], stdout=subprocess.DEVNULL)
        procs.append(stub)
        _wait_port(stub_port, stub, "the stub engine")
        gateway = subprocess.Popen(
            [sys.executable, "-P", "-m", "servescope", "gateway", "--upstream",
             f"http://127.0.0.1:{stub_port}", "--port", str(gw_port),
             "--trace-file", str(root / "spans.jsonl"), *GATEWAY_ARGS],
            stdout=subprocess.DEVNULL, stderr=(root / "gateway.log").open("w"))
        procs.append(gateway)
        _wait_port(gw_port, gateway, "the gateway")
        ports: dict[str, int] = {"direct": stub_port, "gateway": gw_port}
        cpu_pids: dict[str, list[int]] = {"gateway": [gateway.pid]}
        if BASELINE:
            before_port = _free_port()
            before = subprocess.Popen(
                [sys.executable, "-P", "-m", "servescope", "gateway", "--upstream",
                 f"http://127.0.0.1:{stub_port}", "--port", str(before_port),
                 "--trace-file", str(root / "spans-before.jsonl"), *GATEWAY_ARGS],
                env={**os.environ, "PYTHONPATH": BASELINE[0]}, stdout=subprocess.DEVNULL,
                stderr=(root / "before.log").open("w"))
            procs.append(before)
            _wait_port(before_port, before, "the baseline gateway")
            ports["before"] = before_port
            cpu_pids["before"] = [before.pid]
            _run_clients(before_port, {"tokens": 4, "delay": 0.0, "per_stream": 1})
        if NGINX is not None:
            user = "user root;" if os.geteuid() == 0 else ""
            (root / "nginx.conf").write_text(_NGINX_CONF.format(
                d=root, port=nginx_port, upstream=stub_port, user=user))
            nginx = subprocess.Popen([NGINX, "-p", str(root), "-e", str(root / "error.log"),
                                      "-c", str(root / "nginx.conf"), "-g", "daemon off;"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            procs.append(nginx)
            _wait_port(nginx_port, nginx, "nginx")
            ports["nginx"] = nginx_port
            cpu_pids["nginx"] = [nginx.pid, *_children(nginx.pid)]
        _run_clients(gw_port, {"tokens": 4, "delay": 0.0, "per_stream": 1})  # warm-up
        paced: dict[str, list[Any]] = {p: [] for p in ports}
        cpu: dict[str, float] = {p: 0.0 for p in cpu_pids}
        saturated: dict[str, list[float]] = {p: [] for p in ports}
        saturated_errors = {p: 0 for p in ports}
        light: dict[str, list[Any]] = {p: [] for p in ports}
        for _ in range(ROUNDS):
            for path, port in ports.items():
                light[path] += _run_clients(port, PACED, LIGHT_STREAMS)[0]
            for path, port in ports.items():
                before = _cpu_s(cpu_pids[path]) if path in cpu_pids else 0.0
                results, _ = _run_clients(port, PACED)
                paced[path] += results
                if path in cpu_pids:
                    cpu[path] += _cpu_s(cpu_pids[path]) - before
            for path, port in ports.items():
                results, wall = _run_clients(port, SATURATED)
                saturated[path].append(sum(r[2] for r in results) / wall)
                saturated_errors[path] += sum(1 for r in results if r[2] == 0)
        _report(paced, saturated, cpu, saturated_errors, light)
    finally:
        for proc in reversed(procs):
            proc.terminate()
            proc.wait(10)
        if "--keep" not in sys.argv:
            shutil.rmtree(root, ignore_errors=True)


def _added(runs: dict[str, list[Any]]) -> dict[str, dict[str, float]]:
    """Each path's TTFT and time per chunk, and what it adds to direct's."""
    runs = {path: [r for r in results if r[2]] for path, results in runs.items()}
    base_ttft = [r[0] for r in runs["direct"]]
    base_chunk = statistics.mean(r[1] / r[2] for r in runs["direct"])
    out = {}
    for path, results in runs.items():
        ttft = [r[0] for r in results]
        per_chunk = statistics.mean(r[1] / r[2] for r in results)
        out[path] = {"ttft_p50_ms": _pct(ttft, 0.5) * 1e3, "ttft_p99_ms": _pct(ttft, 0.99) * 1e3,
                     "added_ttft_p50_ms": (_pct(ttft, 0.5) - _pct(base_ttft, 0.5)) * 1e3,
                     "added_ttft_p99_ms": (_pct(ttft, 0.99) - _pct(base_ttft, 0.99)) * 1e3,
                     "added_per_chunk_ms": (per_chunk - base_chunk) * 1e3}
    return out


def _report(paced: dict[str, list[Any]], saturated: dict[str, list[float]],
            cpu: dict[str, float], saturated_errors: dict[str, int],
            light: dict[str, list[Any]]) -> None:
    rows: dict[str, dict[str, float]] = {}
    errors = {path: sum(1 for r in results if r[2] == 0) for path, results in paced.items()}
    paced = {path: [r for r in results if r[2]] for path, results in paced.items()}
    base = paced["direct"]
    base_ttft = [r[0] for r in base]
    base_chunk = statistics.mean(r[1] / r[2] for r in base)
    for path, results in paced.items():
        ttft = [r[0] for r in results]
        chunks = sum(r[2] for r in results)
        per_chunk = statistics.mean(r[1] / r[2] for r in results)
        rate = statistics.median(saturated[path])
        rows[path] = {
            "ttft_p50_ms": _pct(ttft, 0.5) * 1e3, "ttft_p99_ms": _pct(ttft, 0.99) * 1e3,
            "added_ttft_p50_ms": (_pct(ttft, 0.5) - _pct(base_ttft, 0.5)) * 1e3,
            "added_ttft_p99_ms": (_pct(ttft, 0.99) - _pct(base_ttft, 0.99)) * 1e3,
            "added_per_chunk_ms": (per_chunk - base_chunk) * 1e3,
            "saturated_chunks_per_s": rate, "streams_at_saturation": rate / 25,
            "cpu_s_per_1000_chunks": cpu[path] / chunks * 1000 if path in cpu else 0.0,
            "requests": len(results), "errors": errors[path],
            "saturated_errors": saturated_errors[path],
        }
    print(f"gateway benchmark: {STREAMS} concurrent streams, {CLIENT_PROCS} client processes, "
          f"{ROUNDS} interleaved rounds")
    print(f"{'path':8} {'TTFT p50':>9} {'p99':>8} {'+TTFT p50':>10} {'+p99':>8} "
          f"{'+/chunk':>9} {'chunks/s':>9} {'streams':>8} {'CPU/1k':>8} {'errors':>7}")
    for path, r in rows.items():
        print(f"{path:8} {r['ttft_p50_ms']:8.2f}m {r['ttft_p99_ms']:7.2f}m "
              f"{r['added_ttft_p50_ms']:9.2f}m {r['added_ttft_p99_ms']:7.2f}m "
              f"{r['added_per_chunk_ms']:8.3f}m {r['saturated_chunks_per_s']:9.0f} "
              f"{r['streams_at_saturation']:8.0f} {r['cpu_s_per_1000_chunks']:7.3f}s "
              f"{r['errors'] + r['saturated_errors']:7.0f}")
    goals: dict[str, Any] = {}
    if "gateway" in rows:
        g = rows["gateway"]
        goals = {"added_ttft_p50_le_1ms": g["added_ttft_p50_ms"] <= 1.0,
                 "added_per_chunk_le_0.1ms": g["added_per_chunk_ms"] <= 0.1}
        if "nginx" in rows:
            n = rows["nginx"]
            goals["ttft_within_2x_nginx"] = g["added_ttft_p50_ms"] <= 2 * max(
                n["added_ttft_p50_ms"], 0.0) + 0.05
            goals["per_chunk_within_2x_nginx"] = g["added_per_chunk_ms"] <= 2 * max(
                n["added_per_chunk_ms"], 0.0) + 0.005
    print("goals: " + ", ".join(f"{k} {'yes' if v else 'NO'}" for k, v in goals.items()))
    below = _added(light)
    print(f"at {LIGHT_STREAMS} streams (same pace): " + "; ".join(
        f"{path} +TTFT p50 {r['added_ttft_p50_ms']:.2f} ms, p99 {r['added_ttft_p99_ms']:.2f} ms,"
        f" +{r['added_per_chunk_ms']:.3f} ms/chunk" for path, r in below.items()
        if path != "direct"))
    print(json.dumps({"benchmark": "gateway", "streams": STREAMS, "rows": rows,
                      "goals": goals, "light_streams": LIGHT_STREAMS, "light": below}))


if __name__ == "__main__":
    if "--client" in sys.argv:
        _client_main()
    else:
        parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
        parser.add_argument("--keep", action="store_true", help="keep the run's files")
        parser.add_argument("--gateway-arg", action="append", default=[],
                            help="an extra servescope gateway argument (repeatable)")
        parser.add_argument("--baseline", metavar="DIR",
                            help="also run the gateway of the servescope package in DIR")
        args = parser.parse_args()
        GATEWAY_ARGS.extend(args.gateway_arg)
        if args.baseline:
            BASELINE.append(args.baseline)
        main()
