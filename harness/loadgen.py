"""A load generator of streaming clients over real HTTP, for 127.0.0.1 only.

Every client is a raw asyncio socket speaking HTTP/1.1 to ``/v1/completions`` with
``stream: true`` and ``stream_options.include_usage``, so nothing between the socket and the
measurement buffers behind our back. Four kinds of client, in proportion to the mix (each
client keeps its kind for the run):

* ``fast``: reads everything as soon as it arrives;
* ``slow``: a small ``SO_RCVBUF`` (set before connect, so the advertised TCP window stays
  small) and ``slow_read_bytes`` read every ``slow_interval_s``: TCP flow control, not the
  client, decides what the server may send, so backpressure really reaches the server;
* ``cancel``: disconnects mid-stream after a random number of tokens;
* ``deadline``: sends ``x-servescope-deadline-s`` (``deadline_s``) with a long completion.

Client-perceived TTFT (request sent → first token read), TPOT (mean gap between tokens after
the first, over the tokens the usage chunk reports, else the characters read: the reference
tokenizer is byte-level and emits ASCII) and end-to-end time are recorded in the load
generator's own registry under the catalog's client families, and kept raw for exact
percentiles. The run is bounded in time (``duration_s`` plus a ``grace_s`` for requests in
flight, after which they are disconnected) and optionally in count (``max_requests``).
"""

from __future__ import annotations

import asyncio
import json
import random
import socket
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from prometheus_client import CollectorRegistry

from servescope.instrumentation import catalog as cat
from servescope.instrumentation.labels import DeclaredLabels
from servescope.instrumentation.metrics import MetricSet
from servescope.instrumentation.slo import SLOSpec
from servescope.instrumentation.status import FinishReason

__all__ = ["KINDS", "ClientResult", "ClientStats", "LoadConfig", "LoadResult", "Mix",
           "Reading", "Reservoir", "check_local_url", "run_load", "stream_once"]

KINDS = ("fast", "slow", "cancel", "deadline")
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


@dataclass(frozen=True)
class Mix:
    """Relative weights of the client kinds: the share of concurrent clients of each."""

    fast: float = 0.6
    slow: float = 0.2
    cancel: float = 0.1
    deadline: float = 0.1

    @classmethod
    def parse(cls, text: str) -> Mix:
        """``"fast=0.6,slow=0.2,cancel=0.1,deadline=0.1"``; omitted kinds get weight 0."""
        weights = dict.fromkeys(KINDS, 0.0)
        for part in filter(None, (p.strip() for p in text.split(","))):
            name, sep, value = part.partition("=")
            name = name.strip()
            if not sep or name not in weights:
                raise ValueError(f"--mix: {part!r} is not KIND=WEIGHT with KIND in "
                                 f"{', '.join(KINDS)}")
            try:
                weight = float(value)
            except ValueError:
                raise ValueError(f"--mix: weight of {name!r} is not a number: {value!r}") from None
            if not weight >= 0:
                raise ValueError(f"--mix: weight of {name!r} must be >= 0, got {value!r}")
            weights[name] = weight
        if sum(weights.values()) <= 0:
            raise ValueError("--mix: at least one weight must be positive")
        return cls(**weights)

    def assign(self, clients: int) -> list[str]:
        """The kind of each of ``clients`` concurrent clients, in proportion to the weights
        (largest remainder; every weighted kind gets a client when there are enough).

        A client keeps its kind for the whole run, as real traffic does: a slow reader stays
        slow. (Drawing a kind per request instead would let the slow kind, whose requests
        last longest, take over every client of a closed loop.)
        """
        kinds = [k for k in KINDS if getattr(self, k) > 0]
        total = sum(getattr(self, k) for k in kinds)
        exact = {k: clients * getattr(self, k) / total for k in kinds}
        counts = {k: int(exact[k]) for k in kinds}
        by_remainder = sorted(kinds, key=lambda k: (exact[k] - counts[k], exact[k]),
                              reverse=True)
        for k in by_remainder[:clients - sum(counts.values())]:
            counts[k] += 1
        for k in kinds:  # a kind with weight but no client borrows one from the largest
            if counts[k] == 0 and clients >= len(kinds):
                counts[max(counts, key=lambda j: counts[j])] -= 1
                counts[k] = 1
        return [k for k in kinds for _ in range(counts[k])]


@dataclass(frozen=True)
class LoadConfig:
    url: str
    duration_s: float = 10.0
    concurrency: int = 16
    mix: Mix = field(default_factory=Mix)
    max_tokens: int = 128
    prompt: str = "Tell me about backpressure in streaming servers."
    model: str | None = None  # None: the first model /v1/models lists
    max_requests: int | None = None
    grace_s: float = 15.0
    slow_read_bytes: int = 128
    slow_interval_s: float = 0.05
    slow_rcvbuf: int = 2048
    slow_max_tokens: int = 256
    slow_deadline_s: float | None = None  # an overall deadline for slow clients too
    deadline_s: float = 0.2
    deadline_max_tokens: int = 400
    cancel_max_tokens: int = 256  # more than socket buffers hold: the cancel lands mid-stream
    seed: int = 0

    def __post_init__(self) -> None:
        check_local_url(self.url)
        for name in ("concurrency", "max_tokens", "slow_read_bytes", "slow_rcvbuf",
                     "slow_max_tokens", "deadline_max_tokens", "cancel_max_tokens"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name}: must be an integer >= 1, got {value!r}")
        for name in ("duration_s", "grace_s", "slow_interval_s", "deadline_s"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name}: must be > 0 seconds, got {getattr(self, name)!r}")
        if self.slow_deadline_s is not None and not self.slow_deadline_s > 0:
            raise ValueError(f"slow_deadline_s: must be > 0 seconds, got {self.slow_deadline_s!r}")
        if self.max_requests is not None and self.max_requests < 1:
            raise ValueError(f"max_requests: must be >= 1, got {self.max_requests!r}")


def check_local_url(url: str) -> tuple[str, int]:
    """(host, port) of ``url``; refuses anything but plain HTTP to this machine."""
    parts = urlsplit(url)
    if parts.scheme != "http" or parts.hostname not in LOCAL_HOSTS:
        raise ValueError(f"url: only http://127.0.0.1 (or localhost) may be targeted, "
                         f"got {url!r}")
    return ("127.0.0.1" if parts.hostname == "localhost" else parts.hostname,
            parts.port or 80)


@dataclass
class ClientResult:
    """One request as the client saw it."""

    kind: str
    finish: str  # a FinishReason value, as far as the client can tell
    status: int = 0
    ttft: float | None = None
    tpot: float | None = None
    e2e: float = 0.0
    tokens: int = 0  # usage.completion_tokens when reported, else characters read
    chars: int = 0
    detail: str = ""


# --- one HTTP/1.1 exchange ----------------------------------------------------------------
class _Response:
    """Incremental parser: status line, headers, chunked or sized body, SSE events."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._body = bytearray()
        self.status = 0
        self.headers: dict[str, str] = {}
        self._chunked = False
        self._remaining: int | None = None
        self._chunk_left = -1  # -1: a chunk-size line is next; -2: a chunk's CRLF
        self.complete = False

    def feed(self, data: bytes) -> list[bytes]:
        """Add bytes; return the complete SSE event payloads (``data:`` values) found."""
        self._buf += data
        if not self.status and not self._parse_head():
            return []
        self._parse_body()
        return self._events()

    def _parse_head(self) -> bool:
        end = self._buf.find(b"\r\n\r\n")
        if end < 0:
            return False
        head = bytes(self._buf[:end]).decode("latin-1").split("\r\n")
        del self._buf[:end + 4]
        self.status = int(head[0].split()[1])
        for line in head[1:]:
            key, _, value = line.partition(":")
            self.headers[key.strip().lower()] = value.strip()
        self._chunked = "chunked" in self.headers.get("transfer-encoding", "")
        if "content-length" in self.headers:
            self._remaining = int(self.headers["content-length"])
        return True

    def _parse_body(self) -> None:
        if not self._chunked:
            self._body += self._buf
            self._buf.clear()
            if self._remaining is not None and len(self._body) >= self._remaining:
                self.complete = True
            return
        while True:
            if self._chunk_left == -2:  # the CRLF that ends a chunk's data
                if len(self._buf) < 2:
                    return
                del self._buf[:2]
                self._chunk_left = -1
            if self._chunk_left == -1:
                end = self._buf.find(b"\r\n")
                if end < 0:
                    return
                self._chunk_left = int(bytes(self._buf[:end]).split(b";")[0], 16)
                del self._buf[:end + 2]
                if self._chunk_left == 0:
                    self.complete = True
                    return
            take = min(self._chunk_left, len(self._buf))
            self._body += self._buf[:take]
            del self._buf[:take]
            self._chunk_left -= take
            if self._chunk_left:
                return
            self._chunk_left = -2

    def _events(self) -> list[bytes]:
        if not self.headers.get("content-type", "").startswith("text/event-stream"):
            return []
        out = []
        while (end := self._body.find(b"\n\n")) >= 0:
            block = bytes(self._body[:end])
            del self._body[:end + 2]
            for line in block.split(b"\n"):
                if line.startswith(b"data:"):
                    out.append(line[5:].strip())
        return out

    @property
    def body(self) -> bytes:
        return bytes(self._body)


def _request_bytes(host: str, port: int, payload: dict[str, Any],
                   headers: dict[str, str]) -> bytes:
    body = json.dumps(payload).encode()
    lines = ["POST /v1/completions HTTP/1.1", f"Host: {host}:{port}",
             "Content-Type: application/json", f"Content-Length: {len(body)}",
             "Accept: text/event-stream", "Connection: close",
             *(f"{k}: {v}" for k, v in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


@dataclass
class Reading:
    """How a client reads: everything at once, or ``read_bytes`` per ``interval_s``, after
    reading nothing for ``stall_s`` (a reader behind from its first byte, whatever the
    server's pace)."""

    read_bytes: int = 65536
    interval_s: float = 0.0
    rcvbuf: int | None = None
    cancel_after_tokens: int | None = None
    stall_s: float = 0.0


async def stream_once(host: str, port: int, payload: dict[str, Any], *, kind: str = "fast",
                      reading: Reading | None = None, headers: dict[str, str] | None = None,
                      timeout_s: float = 60.0) -> ClientResult:
    """One streaming request over a fresh connection; never raises for a failed request."""
    reading = reading or Reading()
    loop = asyncio.get_running_loop()
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    if reading.rcvbuf is not None:  # before connect: the window scale is negotiated then
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, reading.rcvbuf)
    sock.setblocking(False)
    start = time.monotonic()
    result = ClientResult(kind, FinishReason.ERROR.value)
    state = _StreamState(start)
    try:
        async with asyncio.timeout(timeout_s):
            await loop.sock_connect(sock, (host, port))
            await loop.sock_sendall(sock, _request_bytes(host, port, payload, headers or {}))
            if reading.stall_s:
                await asyncio.sleep(reading.stall_s)
            await _read(loop, sock, reading, state, result)
    except TimeoutError:
        result.detail = "client timeout"
        result.finish = FinishReason.CLIENT_CANCEL.value
    except asyncio.CancelledError:
        # The run's grace period ended with this request in flight: closing the socket is a
        # disconnect (the server counts a client_cancel), and the result is still reported.
        result.detail = "cut at the end of the run"
        result.finish = FinishReason.CLIENT_CANCEL.value
    except OSError as exc:
        result.detail = f"{type(exc).__name__}: {exc}"
    finally:
        sock.close()
    _finalize(result, state, time.monotonic())
    return result


@dataclass
class _StreamState:
    start: float
    first: float | None = None
    last: float | None = None
    chars: int = 0
    usage_tokens: int | None = None


async def _read(loop: asyncio.AbstractEventLoop, sock: socket.socket, reading: Reading,
                state: _StreamState, result: ClientResult) -> None:
    response = _Response()
    while not response.complete:
        data = await loop.sock_recv(sock, reading.read_bytes)
        if not data:
            if result.finish == FinishReason.ERROR.value and not result.detail:
                result.detail = "connection closed before the stream ended"
            break
        for event in response.feed(data):
            if _on_event(event, state, result):
                return
        result.status = response.status
        if (reading.cancel_after_tokens is not None
                and state.chars >= reading.cancel_after_tokens):
            result.finish = FinishReason.CLIENT_CANCEL.value
            return  # closing the socket is the disconnect
        if reading.interval_s:
            await asyncio.sleep(reading.interval_s)
    result.status = response.status
    if response.status and response.status != 200:
        _on_error_body(response.body, result)


def _on_event(event: bytes, state: _StreamState, result: ClientResult) -> bool:
    """Account one SSE payload; True at ``[DONE]``."""
    if event == b"[DONE]":
        return True
    try:
        payload = json.loads(event)
    except ValueError:
        result.detail = "unparseable event"
        return False
    if "error" in payload:
        code = str(payload["error"].get("code") or "")
        result.finish = (FinishReason.SLOW_CONSUMER.value if code == "slow_consumer"
                         else FinishReason.ERROR.value)
        result.detail = code
        return False
    if payload.get("usage"):
        state.usage_tokens = int(payload["usage"]["completion_tokens"])
    for choice in payload.get("choices") or ():
        text = choice.get("text") or ""
        if text:
            now = time.monotonic()
            state.first = state.first or now
            state.last = now
            state.chars += len(text)
        if choice.get("finish_reason") or payload.get("servescope_finish_reason"):
            result.finish = str(payload.get("servescope_finish_reason")
                                or choice["finish_reason"])
    return False


def _on_error_body(body: bytes, result: ClientResult) -> None:
    try:
        error = json.loads(body).get("error", {})
    except ValueError:
        error = {}
    result.detail = str(error.get("code") or f"HTTP {result.status}")
    result.finish = (FinishReason.REJECTED.value if result.status in (400, 404, 429, 503)
                     else FinishReason.ERROR.value)


def _finalize(result: ClientResult, state: _StreamState, end: float) -> None:
    result.e2e = end - state.start
    result.chars = state.chars
    result.tokens = state.usage_tokens if state.usage_tokens is not None else state.chars
    if state.first is not None:
        result.ttft = state.first - state.start
        if result.tokens > 1 and state.last is not None:
            result.tpot = (state.last - state.first) / (result.tokens - 1)


# --- the run ------------------------------------------------------------------------------
class Reservoir:
    """A uniform sample of at most ``size`` values (Algorithm R): a run of any length keeps
    bounded memory and unbiased percentiles."""

    def __init__(self, size: int = 20000, seed: int = 0) -> None:
        self.size = size
        self.seen = 0
        self.values: list[float] = []
        self._rng = random.Random(seed)

    def add(self, value: float) -> None:
        self.seen += 1
        if len(self.values) < self.size:
            self.values.append(value)
        else:
            j = self._rng.randrange(self.seen)
            if j < self.size:
                self.values[j] = value


@dataclass
class ClientStats:
    """What the clients saw, aggregated in bounded memory (counts and reservoirs per kind)."""

    by_kind: Counter[str] = field(default_factory=Counter)
    finish: Counter[str] = field(default_factory=Counter)
    good: int = 0
    samples: dict[tuple[str, str], Reservoir] = field(default_factory=dict)
    recent: deque[ClientResult] = field(default_factory=lambda: deque(maxlen=2000))

    def add(self, result: ClientResult, good: bool) -> None:
        self.by_kind[result.kind] += 1
        self.finish[result.finish] += 1
        self.good += good
        self.recent.append(result)
        for metric in ("ttft", "tpot", "e2e"):
            value = getattr(result, metric)
            if value is not None:
                key = (metric, result.kind)
                if key not in self.samples:
                    self.samples[key] = Reservoir(seed=len(self.samples))
                self.samples[key].add(value)

    def values(self, metric: str, *kinds: str) -> list[float]:
        """Sampled values of ``metric`` (ttft, tpot, e2e) for ``kinds`` (default: all)."""
        out: list[float] = []
        for kind in kinds or KINDS:
            reservoir = self.samples.get((metric, kind))
            if reservoir is not None:
                out += reservoir.values
        return out

    @property
    def total(self) -> int:
        return sum(self.by_kind.values())


@dataclass
class LoadResult:
    config: LoadConfig
    model: str
    started: float
    elapsed_s: float
    stats: ClientStats
    registry: CollectorRegistry


Progress = Callable[[float, int, int], None]  # (elapsed_s, done, in_flight)


class _Runner:
    def __init__(self, config: LoadConfig, model: str, slo: SLOSpec,
                 registry: CollectorRegistry | None = None) -> None:
        self.config = config
        self.model = model
        self.host, self.port = check_local_url(config.url)
        self.rng = random.Random(config.seed)
        self.registry = registry if registry is not None else CollectorRegistry()
        # the model it targets is the one value of the client families' model label
        self.metrics = MetricSet(self.registry, slo,
                                 specs=(cat.CLIENT_TTFT, cat.CLIENT_TPOT, cat.CLIENT_E2E),
                                 declared=DeclaredLabels(models=(model,)))
        self.slo = slo
        self.stats = ClientStats()
        self.started = 0
        self.in_flight = 0

    def _plan(self, kind: str) -> tuple[dict[str, Any], Reading, dict[str, str]]:
        cfg = self.config
        payload: dict[str, Any] = {"model": self.model, "prompt": cfg.prompt,
                                   "max_tokens": cfg.max_tokens, "stream": True,
                                   "stream_options": {"include_usage": True},
                                   "ignore_eos": True}
        headers: dict[str, str] = {}
        reading = Reading()
        if kind == "slow":
            payload["max_tokens"] = cfg.slow_max_tokens
            reading = Reading(cfg.slow_read_bytes, cfg.slow_interval_s, cfg.slow_rcvbuf)
            if cfg.slow_deadline_s is not None:
                headers["x-servescope-deadline-s"] = str(cfg.slow_deadline_s)
        elif kind == "cancel":
            # A small receive buffer and a long answer: backpressure keeps the engine within
            # its stream capacity (plus socket buffers) of what this client has read, so the
            # disconnect always lands mid-stream, however slowly a loaded machine runs it.
            payload["max_tokens"] = cfg.cancel_max_tokens
            reading = Reading(rcvbuf=cfg.slow_rcvbuf,
                              cancel_after_tokens=self.rng.randint(1, max(1, cfg.max_tokens // 2)))
        elif kind == "deadline":
            payload["max_tokens"] = cfg.deadline_max_tokens
            headers["x-servescope-deadline-s"] = str(cfg.deadline_s)
        return payload, reading, headers

    def _record(self, result: ClientResult) -> None:
        slo = self.slo
        good = (result.finish in (FinishReason.STOP.value, FinishReason.LENGTH.value)
                and result.ttft is not None and result.ttft <= slo.ttft.threshold_seconds
                and (result.tpot is None or result.tpot <= slo.tpot.threshold_seconds))
        self.stats.add(result, good)
        m = self.metrics
        if result.ttft is not None:
            m.child(cat.CLIENT_TTFT, model=self.model).observe(result.ttft)
        if result.tpot is not None:
            m.child(cat.CLIENT_TPOT, model=self.model).observe(result.tpot)
        m.child(cat.CLIENT_E2E, model=self.model, finish_reason=result.finish).observe(
            result.e2e)

    async def worker(self, kind: str, stop_at: float) -> None:
        cfg = self.config
        while time.monotonic() < stop_at:
            if cfg.max_requests is not None and self.started >= cfg.max_requests:
                return
            self.started += 1
            payload, reading, headers = self._plan(kind)
            self.in_flight += 1
            try:
                result = await stream_once(self.host, self.port, payload, kind=kind,
                                           reading=reading, headers=headers,
                                           timeout_s=cfg.duration_s + cfg.grace_s)
            finally:
                self.in_flight -= 1
            self._record(result)


async def _model_of(host: str, port: int) -> str:
    loop = asyncio.get_running_loop()
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setblocking(False)
    try:
        async with asyncio.timeout(10):
            await loop.sock_connect(sock, (host, port))
            request = (f"GET /v1/models HTTP/1.1\r\nHost: {host}:{port}\r\n"
                       f"Connection: close\r\n\r\n").encode()
            await loop.sock_sendall(sock, request)
            response = _Response()
            while not response.complete and (data := await loop.sock_recv(sock, 65536)):
                response.feed(data)
    finally:
        sock.close()
    models = json.loads(response.body)["data"]
    return str(models[0]["id"])


async def run_load(config: LoadConfig, *, slo: SLOSpec | None = None,
                   progress: Progress | None = None, progress_every_s: float = 0.5,
                   registry: CollectorRegistry | None = None) -> LoadResult:
    """Run the mixed load; returns every client's result and the client-side registry
    (``registry``, when given: one already exported while the load runs)."""
    host, port = check_local_url(config.url)
    model = config.model or await _model_of(host, port)
    runner = _Runner(config, model, slo or SLOSpec.default(), registry)
    start = time.monotonic()
    stop_at = start + config.duration_s
    tasks = [asyncio.create_task(runner.worker(kind, stop_at))
             for kind in config.mix.assign(config.concurrency)]
    waiter = asyncio.ensure_future(asyncio.wait(tasks, timeout=config.duration_s
                                                + config.grace_s))
    while not waiter.done():
        await asyncio.wait({waiter}, timeout=progress_every_s)
        if progress is not None:
            progress(time.monotonic() - start, runner.stats.total, runner.in_flight)
    for task in tasks:  # past the grace period: disconnect what is still in flight
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return LoadResult(config, model, start, time.monotonic() - start, runner.stats,
                      runner.registry)
