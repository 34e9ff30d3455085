"""What ``servescope gateway`` adds to a stream, beside nginx, over the same load.

Three paths to one cheap upstream (the stub engine of ``harness/stub_engine.py``, in its own
process: no model, so the numbers measure the proxy): **direct**; through **servescope
gateway** (the real command, its own process, spans exported to a file as in production);
through **nginx** (``proxy_buffering off``, one worker, keep-alive upstream). The clients run
in their own processes (a minimal HTTP/1.1 client on asyncio streams, so client work is
small), one keep-alive connection per stream.

* **steady** (the goal figure): 64 concurrent streams in a closed loop, as GuideLLM's
  concurrency mode drives a server: each of 64 clients starts its next stream when its last
  one ends, the 64 starts staggered over one stream's length; streams of 48 chunks 40 ms apart
  (25 tokens/s per stream, an engine's pace at that concurrency: 1,600 chunks/s in all).
  Streams that start in the warm-up (two stream lengths) or after the measured window are
  discarded, so every measured stream ran beside 63 others. Per path: client TTFT p50/p99;
  *added* = the path's figure minus direct's, so the stub's own time cancels out. *net* TTFT
  is each stream's TTFT less the stub's hold (the time it reports from the request read to
  the first chunk's write, ``report_hold``): the way there and back alone. The stub's 40 ms
  timer wakes late by a varying amount, which moves a raw p50 by tenths of a millisecond
  between paths; the net figure is free of it, so the TTFT goals read *+net*. *+there*: the
  added way there alone (sent to the stub's read of the request). Per chunk:
  the gap between consecutive chunks as the client sees them, averaged per chunk index and
  paired by index against direct (*+per chunk*: the mean of those differences; *+ITL p99*:
  the p99 of all gaps minus direct's).
* **burst**: 64 streams released at once, two in a row each (the added TTFT here is mostly
  the queueing of 64 request setups at one instant, not the proxy's latency; kept as its own
  column).
* **saturated**: 64 concurrent streams of 256 chunks sent as fast as the stub can: chunks/s
  through each path, and streams at saturation = chunks/s / 25 (how many streams paced at
  40 ms the path could carry).
* **CPU**: the proxy process's user + system CPU (``/proc/PID/stat``) per 1,000 chunks over
  the steady run (warm-up and cool-down included, over every chunk they carried).

Paths run in interleaved rounds (direct, gateway, nginx, then again) so drift of a busy
machine spreads over all three. Goals (issue 19): added TTFT p50 <= 1 ms and <= 0.1 ms per
chunk at 64 streams; at most 2x nginx's added latency.

Run: ``python -P benchmarks/gateway.py`` (needs nginx). Prints a table and one JSON line.
``--baseline DIR`` adds a fourth path, **before**: ``servescope gateway`` imported from
``DIR`` (a directory holding another version's ``servescope`` package), so a change to the
gateway is measured against the code it replaces in the same run. ``--floor`` adds two
floors: **asgi** (``asgi_relay.py``: uvicorn and an ASGI callable that forwards through the
gateway's own upstream client and does nothing else, the least a proxy on the gateway's stack
adds, so the gateway's excess over it is servescope's own code) and **bare**
(``bare_relay.py``, a uvloop byte relay that reads and measures nothing, one upstream
connection per client connection: the least any Python asyncio proxy adds on this machine).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
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

from servescope.report.launcher import free_port


def _load_cpu_groups() -> Any:
    """benchmarks/cpu_groups.py, beside this file (run as a script: not on the path)."""
    spec = importlib.util.spec_from_file_location(
        "servescope_bench_cpu_groups", Path(__file__).with_name("cpu_groups.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx")
                                  else None)
STREAMS = 64
CLIENT_PROCS = 4
PACED = {"tokens": 48, "delay": 0.04, "per_stream": 2}
SATURATED = {"tokens": 256, "delay": 0.0, "per_stream": 2}
#: The closed loop: streams measured during ``measure_s`` after ``warmup_s``; the clients go
#: on for one more stream length so the last measured streams still run beside 63 others.
STREAM_S = PACED["tokens"] * PACED["delay"]
STEADY = {**PACED, "warmup_s": 2 * STREAM_S, "measure_s": 8.0, "cooldown_s": STREAM_S}
ROUNDS = 2
#: Extra ``servescope gateway`` arguments (``--gateway-arg=--send-buffer-bytes=0``).
GATEWAY_ARGS: list[str] = []
#: Import root of a second gateway to run beside this one (``--baseline``); None: none.
BASELINE: list[str] = []
#: Also run the floors (``--floor``: ``asgi_relay.py`` and ``bare_relay.py``).
FLOOR: list[bool] = []
#: Each proxy, the stub and the clients in a CPU cgroup of their own (``--cpu-groups``,
#: ``cpu_groups.py``), as containers run; by default all share the benchmark's own.
GROUPS: list[Any] = []
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
#: [sent (s after go), TTFT, duration, events, chunk times after sent, TTFT net of the stub's
#: hold, the way there (sent to the stub's read)]
Stream = list[Any]
#: The stub's own time from the request read to the first chunk's write (``report_hold``).
_HOLD = b'"stub_hold_ns":'
#: ... and when it read the request (``time.perf_counter_ns()``: the clock ``time.monotonic``
#: reads on Linux, alike in every process), which splits the way there from the way back.
_READ = b'"stub_read_ns":'


async def _read_stream(reader: asyncio.StreamReader, sent: float) -> Stream:
    """Read one chunked SSE answer: TTFT, duration, events and each output event's arrival
    (an HTTP chunk that carries several events stamps them all with its arrival)."""
    head = await reader.readuntil(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200"):  # counted as an error (content-length framed)
        length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
        await reader.readexactly(length)
        return [sent, -1.0, -1.0, 0, []]
    times: list[float] = []
    events = 0
    hold = None
    while True:
        size = int((await reader.readline()).strip(), 16)
        if size == 0:
            await reader.readline()
            break
        data = await reader.readexactly(size + 2)
        at = time.monotonic() - sent
        n = data.count(b"data: {")
        events += n
        times += [at] * data.count(b'"text"')
        if hold is None and _HOLD in data:
            hold = int(data.split(_HOLD, 1)[1].split(b",", 1)[0]) / 1e9
            read_at = int(data.split(_READ, 1)[1].split(b"}", 1)[0]) / 1e9
    end = time.monotonic()
    assert times and hold is not None
    return [sent, times[0], end - sent, events, times, times[0] - hold, read_at - sent]


def _request(load: dict[str, Any]) -> bytes:
    body = json.dumps({"model": "stub-model", "prompt": "x", "stream": True,
                       "max_tokens": load["tokens"],
                       "stub": {"token_delay_s": load["delay"], "report_hold": True}}).encode()
    return (b"POST /v1/completions HTTP/1.1\r\nhost: bench\r\ncontent-type: "
            b"application/json\r\ncontent-length: " + str(len(body)).encode() +
            b"\r\n\r\n" + body)


async def _worker(port: int, load: dict[str, Any], out: list[Stream], t0: float) -> None:
    """Released at once: ``per_stream`` streams in a row on one connection."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    request = _request(load)
    for _ in range(load["per_stream"]):
        out.append(await _one_stream(reader, writer, request, t0))
    writer.close()


async def _one_stream(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                      request: bytes, t0: float) -> Stream:
    """One request on a kept-alive connection, its answer read to the end; the stream's
    first field is when it was sent, on the run's clock."""
    sent = time.monotonic()
    writer.write(request)
    stream = await _read_stream(reader, sent)
    stream[0] = sent - t0
    return stream


async def _looping_worker(port: int, load: dict[str, Any], start_s: float,
                          out: list[Stream], t0: float) -> None:
    """The closed loop: from ``start_s`` on, the next stream as soon as the last one ended,
    until the warm-up, measured window and cool-down have passed."""
    await asyncio.sleep(start_s)
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    request = _request(load)
    stop_at = t0 + load["warmup_s"] + load["measure_s"] + load["cooldown_s"]
    while time.monotonic() < stop_at:
        out.append(await _one_stream(reader, writer, request, t0))
    writer.close()


async def _client(config: dict[str, Any]) -> list[Stream]:
    out: list[Stream] = []
    port, load, t0 = config["port"], config["load"], time.monotonic()
    streams, first, every = config["streams"], config["first"], config["every"]
    if "measure_s" not in load:
        await asyncio.gather(*(_worker(port, load, out, t0) for _ in range(streams)))
        return out
    # worker k of this process is stream first + k * every of all of them: starts spread
    # evenly over one stream's length across the processes
    spacing = load["tokens"] * load["delay"] / (streams * every)
    await asyncio.gather(*(_looping_worker(port, load, (first + k * every) * spacing, out, t0)
                           for k in range(streams)))
    return out


def _client_main() -> None:
    config = json.loads(sys.stdin.readline())
    print("ready", flush=True)
    sys.stdin.readline()  # go
    start = time.monotonic()
    results = asyncio.run(_client(config))
    print(json.dumps({"results": results, "wall": time.monotonic() - start}), flush=True)


# --- the parent -----------------------------------------------------------------------------
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
    if GROUPS:
        GROUPS[0].put("clients", *(proc.pid for proc in procs))
    for n, proc in enumerate(procs):
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps({"port": port, "streams": per, "load": load, "first": n,
                                     "every": CLIENT_PROCS}) + "\n")
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
        proc.wait(120)
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
    stub_port, gw_port, nginx_port = free_port(), free_port(), free_port()
    procs: list[subprocess.Popen[Any]] = []
    try:
        stub = subprocess.Popen([sys.executable, "-P", "-m", "servescope.harness.stub_engine",
                                 "--port", str(stub_port)], stdout=subprocess.DEVNULL)
        procs.append(stub)
        _wait_port(stub_port, stub, "the stub engine")
        _group("engine", stub.pid)
        gateway = subprocess.Popen(
            [sys.executable, "-P", "-m", "servescope", "gateway", "--upstream",
             f"http://127.0.0.1:{stub_port}", "--port", str(gw_port),
             "--trace-file", str(root / "spans.jsonl"), *GATEWAY_ARGS],
            stdout=subprocess.DEVNULL, stderr=(root / "gateway.log").open("w"))
        procs.append(gateway)
        _wait_port(gw_port, gateway, "the gateway")
        _group("gateway", gateway.pid)
        ports: dict[str, int] = {"direct": stub_port, "gateway": gw_port}
        cpu_pids: dict[str, list[int]] = {"gateway": [gateway.pid]}
        if BASELINE:
            before_port = free_port()
            before = subprocess.Popen(
                [sys.executable, "-P", "-m", "servescope", "gateway", "--upstream",
                 f"http://127.0.0.1:{stub_port}", "--port", str(before_port),
                 "--trace-file", str(root / "spans-before.jsonl"), *GATEWAY_ARGS],
                env={**os.environ, "PYTHONPATH": BASELINE[0]}, stdout=subprocess.DEVNULL,
                stderr=(root / "before.log").open("w"))
            procs.append(before)
            _wait_port(before_port, before, "the baseline gateway")
            _group("before", before.pid)
            ports["before"] = before_port
            cpu_pids["before"] = [before.pid]
            _run_clients(before_port, {"tokens": 4, "delay": 0.0, "per_stream": 1})
        if FLOOR:
            for path, script, what in (("asgi", "asgi_relay.py", "the ASGI relay"),
                                       ("bare", "bare_relay.py", "the bare relay")):
                floor_port = free_port()
                floor = subprocess.Popen(
                    [sys.executable, "-P", str(Path(__file__).with_name(script)),
                     "--port", str(floor_port), "--upstream-port", str(stub_port)],
                    stdout=subprocess.DEVNULL, stderr=(root / f"{path}.log").open("w"))
                procs.append(floor)
                _wait_port(floor_port, floor, what)
                _group(path, floor.pid)
                ports[path] = floor_port
                cpu_pids[path] = [floor.pid]
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
            _group("nginx", *cpu_pids["nginx"])
        _run_clients(gw_port, {"tokens": 4, "delay": 0.0, "per_stream": 1})  # warm-up
        steady: dict[str, list[Stream]] = {p: [] for p in ports}
        chunks = {p: 0 for p in ports}
        errors = {p: 0 for p in ports}
        cpu: dict[str, float] = {p: 0.0 for p in cpu_pids}
        burst: dict[str, list[Stream]] = {p: [] for p in ports}
        saturated: dict[str, list[float]] = {p: [] for p in ports}
        saturated_errors = {p: 0 for p in ports}
        for _ in range(ROUNDS):
            for path, port in ports.items():
                cpu_at = _cpu_s(cpu_pids[path]) if path in cpu_pids else 0.0
                results, _ = _run_clients(port, STEADY)
                if path in cpu_pids:
                    cpu[path] += _cpu_s(cpu_pids[path]) - cpu_at
                chunks[path] += sum(r[3] for r in results)
                errors[path] += sum(1 for r in results if not r[3])
                steady[path] += _measured(results, STEADY)
            for path, port in ports.items():
                burst[path] += _run_clients(port, PACED)[0]
            for path, port in ports.items():
                results, wall = _run_clients(port, SATURATED)
                saturated[path].append(sum(r[3] for r in results) / wall)
                saturated_errors[path] += sum(1 for r in results if not r[3])
        _report(steady, chunks, errors, burst, saturated, saturated_errors, cpu)
    finally:
        for proc in reversed(procs):
            proc.terminate()
            proc.wait(10)
        if GROUPS:
            GROUPS[0].close()
        if "--keep" not in sys.argv:
            shutil.rmtree(root, ignore_errors=True)


def _group(name: str, *pids: int) -> None:
    if GROUPS:
        GROUPS[0].put(name, *pids)


def _measured(results: list[Stream], load: dict[str, Any]) -> list[Stream]:
    """The closed loop's streams that started inside the measured window (every one of them
    ran beside the full count of others) and completed."""
    start, end = load["warmup_s"], load["warmup_s"] + load["measure_s"]
    return [r for r in results if r[3] and start <= r[0] < end]


def _gaps_by_index(results: list[Stream]) -> list[float]:
    """The mean gap between chunk i-1 and chunk i, for each index i >= 1."""
    n = min(len(r[4]) for r in results)
    return [statistics.fmean(r[4][i] - r[4][i - 1] for r in results) for i in range(1, n)]


def _all_gaps(results: list[Stream]) -> list[float]:
    return [t - s for r in results for s, t in zip(r[4], r[4][1:], strict=False)]


def _steady_rows(steady: dict[str, list[Stream]]) -> dict[str, dict[str, float]]:
    base = steady["direct"]
    base_ttft = [r[1] for r in base]
    base_net = [r[5] for r in base]
    base_there = [r[6] for r in base]
    base_gaps = _gaps_by_index(base)
    base_itl = _all_gaps(base)
    rows = {}
    for path, results in steady.items():
        ttft = [r[1] for r in results]
        net = [r[5] for r in results]
        gaps = _gaps_by_index(results)
        itl = _all_gaps(results)
        paired = [g - b for g, b in zip(gaps, base_gaps, strict=False)]
        rows[path] = {
            "ttft_p50_ms": _pct(ttft, 0.5) * 1e3, "ttft_p99_ms": _pct(ttft, 0.99) * 1e3,
            "added_ttft_p50_ms": (_pct(ttft, 0.5) - _pct(base_ttft, 0.5)) * 1e3,
            "added_ttft_p99_ms": (_pct(ttft, 0.99) - _pct(base_ttft, 0.99)) * 1e3,
            "net_ttft_p50_ms": _pct(net, 0.5) * 1e3,
            "added_net_ttft_p50_ms": (_pct(net, 0.5) - _pct(base_net, 0.5)) * 1e3,
            "added_net_ttft_p99_ms": (_pct(net, 0.99) - _pct(base_net, 0.99)) * 1e3,
            "added_there_p50_ms": (_pct([r[6] for r in results], 0.5)
                                   - _pct(base_there, 0.5)) * 1e3,
            "added_per_chunk_ms": statistics.fmean(paired) * 1e3,
            "added_itl_p50_ms": (_pct(itl, 0.5) - _pct(base_itl, 0.5)) * 1e3,
            "added_itl_p99_ms": (_pct(itl, 0.99) - _pct(base_itl, 0.99)) * 1e3,
            "streams": len(results)}
    return rows


def _report(steady: dict[str, list[Stream]], chunks: dict[str, int], errors: dict[str, int],
            burst: dict[str, list[Stream]], saturated: dict[str, list[float]],
            saturated_errors: dict[str, int], cpu: dict[str, float]) -> None:
    rows = _steady_rows(steady)
    burst = {path: [r for r in results if r[3]] for path, results in burst.items()}
    burst_base = _pct([r[1] for r in burst["direct"]], 0.5)
    for path, row in rows.items():
        rate = statistics.median(saturated[path])
        row.update({
            "burst_added_ttft_p50_ms": (_pct([r[1] for r in burst[path]], 0.5)
                                        - burst_base) * 1e3,
            "saturated_chunks_per_s": rate, "streams_at_saturation": rate / 25,
            "cpu_s_per_1000_chunks": cpu[path] / chunks[path] * 1000 if path in cpu else 0.0,
            "errors": errors[path], "saturated_errors": saturated_errors[path]})
    load = os.getloadavg()
    placement = ("each proxy, the stub and the clients in a CPU cgroup of their own" if GROUPS
                 else "every process in one CPU cgroup")
    print(f"gateway benchmark: {STREAMS} concurrent streams (closed loop, {ROUNDS} interleaved "
          f"rounds of {STEADY['measure_s']:g} s measured), {CLIENT_PROCS} client processes, "
          f"{placement}; load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    print(f"{'path':8} {'streams':>7} {'TTFT p50':>9} {'+TTFT p50':>10} {'+p99':>8} "
          f"{'net TTFT':>9} {'+net p50':>9} {'+net p99':>9} {'+there':>8} "
          f"{'+/chunk':>8} {'+ITL p99':>9} {'burst +p50':>11} {'chunks/s':>9} "
          f"{'streams':>8} {'CPU/1k':>7} {'errors':>7}")
    for path, r in rows.items():
        print(f"{path:8} {r['streams']:7.0f} {r['ttft_p50_ms']:8.2f}m "
              f"{r['added_ttft_p50_ms']:9.2f}m {r['added_ttft_p99_ms']:7.2f}m "
              f"{r['net_ttft_p50_ms']:8.3f}m {r['added_net_ttft_p50_ms']:8.3f}m "
              f"{r['added_net_ttft_p99_ms']:8.3f}m {r['added_there_p50_ms']:7.3f}m "
              f"{r['added_per_chunk_ms']:7.3f}m {r['added_itl_p99_ms']:8.2f}m "
              f"{r['burst_added_ttft_p50_ms']:10.1f}m {r['saturated_chunks_per_s']:9.0f} "
              f"{r['streams_at_saturation']:8.0f} {r['cpu_s_per_1000_chunks']:6.3f}s "
              f"{r['errors'] + r['saturated_errors']:7.0f}")
    goals: dict[str, Any] = {}
    if "gateway" in rows:
        g = rows["gateway"]
        # the TTFT goals read the net figure: the same added time, without the stub's timer
        # jitter (which moves the raw p50 by tenths of a millisecond between paths)
        goals = {"added_ttft_p50_le_1ms": g["added_net_ttft_p50_ms"] <= 1.0,
                 "added_per_chunk_le_0.1ms": g["added_per_chunk_ms"] <= 0.1}
        if "nginx" in rows:
            n = rows["nginx"]
            # nginx adding (near) nothing leaves 2x of nothing: a floor of the goal itself
            goals["ttft_within_2x_nginx"] = g["added_net_ttft_p50_ms"] <= max(
                2 * n["added_net_ttft_p50_ms"], 0.05)
            goals["per_chunk_within_2x_nginx"] = g["added_per_chunk_ms"] <= max(
                2 * n["added_per_chunk_ms"], 0.005)
            if "asgi" in rows:
                # whether any proxy on the gateway's stack could meet the TTFT goal in this
                # run: the ASGI floor adds the least such a proxy can
                goals["asgi_floor_within_2x_nginx"] = rows["asgi"]["added_net_ttft_p50_ms"] \
                    <= max(2 * n["added_net_ttft_p50_ms"], 0.05)
    print("goals: " + ", ".join(f"{k} {'yes' if v else 'NO'}" for k, v in goals.items()))
    print(json.dumps({"benchmark": "gateway", "streams": STREAMS, "load_average": load,
                      "cpu_groups": bool(GROUPS), "rows": rows, "goals": goals}))


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
        parser.add_argument("--floor", action="store_true",
                            help="also run the floors: an ASGI relay on the gateway's stack "
                                 "(asgi_relay.py) and a bare uvloop byte relay "
                                 "(bare_relay.py)")
        parser.add_argument("--cpu-groups", action="store_true",
                            help="each proxy, the stub and the clients in a CPU cgroup of "
                                 "their own, as containers run (root and a writable cgroup "
                                 "filesystem; by default every process shares this one's)")
        parser.add_argument("--rounds", type=int, default=ROUNDS, help="interleaved rounds")
        parser.add_argument("--measure-s", type=float, default=STEADY["measure_s"],
                            help="the closed loop's measured window per round")
        args = parser.parse_args()
        ROUNDS = args.rounds
        STEADY["measure_s"] = args.measure_s
        GATEWAY_ARGS.extend(args.gateway_arg)
        if args.baseline:
            BASELINE.append(args.baseline)
        if args.floor:
            FLOOR.append(True)
        if args.cpu_groups:
            groups = _load_cpu_groups().cpu_groups("servescope-bench-gateway")
            if groups is None:
                print("gateway benchmark: no CPU cgroups can be made here (root and a "
                      "writable cgroup filesystem are needed): every process in one",
                      file=sys.stderr)
            else:
                GROUPS.append(groups)
        main()
