"""The API process's side of an engine that runs in its own process.

:class:`EngineClient` has the interface the transport uses of :class:`Engine` (``submit`` a
request, read its tokens through a handle, ``cancel``, ``stats``) while the scheduler, the
model and the KV pool run in a child process (``engine_process``). The API process keeps the
transport, detokenization and telemetry: one thread (the link) exchanges one batched message
per engine iteration each way, replays the engine's events on the real request recorders and
calls ``Telemetry.step`` once per engine step.

Backpressure crosses the boundary: each request's :class:`StreamBuffer` lives here; the engine
pushes only while its mirror of that buffer has room, and the link returns the reader's
progress (the credits) in its next message, so a slow reader pauses only its own request.

Readiness: after ``MISSED_HEARTBEATS`` heartbeats without a message (0.5 s by default,
``unresponsive_s``) the engine reads as unready on ``/readyz`` and new submissions are refused
with ``engine_unresponsive`` (HTTP 503 with Retry-After); the lease alone decides the restart.

Failure: the engine heartbeats at least every ``heartbeat_s``. The link declares it dead when
its process exits or its lease (``lease_s`` without a message; 10 s by default: a restart ends
every request in flight, so a false alarm on a starved machine costs more than a slower
verdict on a hung engine) expires, kills it (SIGKILL also
ends a stopped process), ends every request in flight exactly once with ``error`` (its
stream ends with an OpenAI-shaped error event), and starts a fresh engine with a clean KV
pool. Until that one is ready, submissions are refused with ``engine_restarting`` (HTTP 503
with Retry-After).
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgspec
import zmq

from servescope.instrumentation import FinishReason, RequestRecorder, StepReport
from servescope.instrumentation.engine_health import EngineHealth
from servescope.instrumentation.terminal import Once

from ..config import EngineConfig
from ..core.request import GenerationRequest
from ..core.stats import EngineStats
from ..core.stream import StreamBuffer, batched_wakes
from .base import EngineCoreClient
from .engine_process import ChildSpec
from .engine_wire import Submit, ToEngine, decoder_from_engine, encoder
from .handle import RequestHandle
from .replayer import RemoteLifecycle, Replayer

if TYPE_CHECKING:  # the process's telemetry loads the exporters: named, never imported
    from servescope.instrumentation import Telemetry

__all__ = ["EngineClient", "RemoteLifecycle"]

_log = logging.getLogger("servescope.reference.client.engine_client")
#: Reason given to submissions while the engine (re)starts; the transport answers 503.
RESTARTING = "engine_restarting"
#: Reason given to submissions while the engine misses heartbeats but its lease still runs
#: (stopped, or stuck in a step): also 503 with ``Retry-After``, never an accepted request
#: that waits out the lease and fails.
UNRESPONSIVE = "engine_unresponsive"
#: Missed heartbeats after which the engine reads as unready (``/readyz``) and refuses work.
MISSED_HEARTBEATS = 5
#: ...but never sooner than this (a busy machine delays a heartbeat now and then).
MIN_UNRESPONSIVE_S = 0.5
_LAST_WORDS_MS = 200  # how long an exited engine's last message may take to arrive


class _LinkSide:
    """Across the process boundary, one request's writer news wakes the link (which sends
    the writer's progress with its next message); cancels and faults go in that message."""

    __slots__ = ("_client", "_rid")

    def __init__(self, client: EngineClient, request_id: str) -> None:
        self._client = client
        self._rid = request_id

    def writer_moved(self) -> None:
        self._client._wake()

    def cancel(self, reason: FinishReason) -> bool:
        return self._client._post_cancel(self._rid, reason)

    def inject_fault(self) -> None:
        self._client.inject_fault(self._rid)


class _EngineProcess:
    """The engine as a fresh interpreter (``python -m``): nothing of the API process's
    state is inherited (no forked threads or locks), and nothing re-imports its main module.
    ``sentinel`` (a pidfd) becomes readable when the process exits."""

    def __init__(self, spec: ChildSpec) -> None:
        self._popen = subprocess.Popen(
            [sys.executable, "-P", "-m", "servescope.reference.client.engine_process"],
            stdin=subprocess.PIPE, close_fds=True)
        assert self._popen.stdin is not None
        self._popen.stdin.write(spec.to_json())
        self._popen.stdin.close()
        self.pid = self._popen.pid
        self.sentinel = os.pidfd_open(self.pid)

    def is_alive(self) -> bool:
        return self._popen.poll() is None

    def killed_by_signal(self) -> bool:
        """It ended by a signal (``kill -9``, the OOM killer): it wrote no last words."""
        code = self._popen.poll()
        return code is not None and code < 0

    def join(self, timeout_s: float | None = None) -> None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._popen.wait(timeout_s)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.sentinel)


@dataclass
class _Incarnation:
    """One engine process and the two sockets to it."""

    proc: _EngineProcess
    to_engine: zmq.Socket[bytes]
    from_engine: zmq.Socket[bytes]
    poller: zmq.Poller
    started_at: float
    ready: bool = False
    device: str = ""
    last_message: float = 0.0
    last_step: float = 0.0
    steps: int = 0
    dead: Once = field(default_factory=Once)
    paths: list[str] = field(default_factory=list)


class EngineClient(EngineCoreClient):
    """An engine in a child process, behind the same interface as :class:`Engine`
    (:class:`EngineCoreClient`). ``start()`` waits until the first engine is ready."""

    def __init__(self, config: EngineConfig, telemetry: Telemetry, *,
                 heartbeat_s: float = 0.1, lease_s: float = 10.0,
                 start_timeout_s: float = 120.0, restart_backoff_s: float = 0.5,
                 retry_after_s: int = 2, cpu_threads: int | None = None,
                 unresponsive_s: float | None = None) -> None:
        if not 0 < heartbeat_s < lease_s:
            raise ValueError(f"lease_s: must exceed heartbeat_s={heartbeat_s}, got {lease_s}")
        if unresponsive_s is None:
            unresponsive_s = min(max(MISSED_HEARTBEATS * heartbeat_s, MIN_UNRESPONSIVE_S),
                                 lease_s)
        if not heartbeat_s < unresponsive_s <= lease_s:
            raise ValueError(f"unresponsive_s: must be above heartbeat_s={heartbeat_s} and at "
                             f"most lease_s={lease_s}, got {unresponsive_s}")
        super().__init__(config, telemetry)
        self.unresponsive_s = unresponsive_s
        self.heartbeat_s = heartbeat_s
        self.lease_s = lease_s
        self.start_timeout_s = start_timeout_s
        self.restart_backoff_s = restart_backoff_s
        self.retry_after_s = retry_after_s
        # the engine's torch CPU threads: every core but one, which the API process keeps
        self.cpu_threads = cpu_threads or max(1, (os.cpu_count() or 2) - 1)
        self.restarts = 0
        self.messages_received = 0  # from the engine (steps and heartbeats)
        self.messages_sent = 0
        self.link_busy_s = 0.0  # the link thread's work between its waits (benchmarks)
        self.health = EngineHealth(telemetry)
        self._zmq = zmq.Context()
        self._dir = tempfile.mkdtemp(prefix="servescope-engine-")
        self._live: dict[str, RequestHandle] = {}
        self._replayer = Replayer(telemetry, self._live, self._lock, self._left_waiting,
                                  self._requeued)
        self._out = ToEngine()
        self._closed = Once(self._lock)
        self._stop = threading.Event()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        self._wake_pending = False
        self._inc: _Incarnation | None = None
        self._epoch = 0
        self._stats = EngineStats(config.num_blocks, config.num_blocks, 0, config.max_batch,
                                  0, 0, 0, 0)
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._last_death = 0.0
        self.health.watch(self._heartbeat_age, self._last_step_age)

    @property
    def device(self) -> str:
        inc = self._inc
        return inc.device if inc is not None else ""

    @property
    def pid(self) -> int | None:
        inc = self._inc
        return None if inc is None else inc.proc.pid

    # --- lifecycle ------------------------------------------------------------------------
    def start(self, timeout_s: float | None = None) -> None:
        """Start the engine process and the link; wait until the engine is ready."""
        with self._lock:
            if self._thread is not None or self._closed.is_set:
                return
            self._spawn()
            self._thread = threading.Thread(target=self._run, name="servescope-engine-link",
                                            daemon=True)
            self._thread.start()
        end = time.monotonic() + (timeout_s if timeout_s is not None
                                  else self.start_timeout_s)
        while not self._ready.wait(0.05):
            if self.restarts or time.monotonic() > end:
                self.shutdown()
                raise RuntimeError("the engine process did not become ready (see its log)")

    def shutdown(self, timeout_s: float = 5.0) -> None:
        """Refuse new requests, let the engine finish live ones with ``error``, stop it."""
        with self._lock:
            if not self._closed.claim_held():
                return
            self._out.shutdown = True
        self._wake()
        inc = self._inc
        if inc is not None:  # the engine ends its requests, says bye and exits; the link
            inc.proc.join(timeout_s)  # replays the bye and buries it (no restart: closed)
            end = time.monotonic() + timeout_s
            while not inc.dead.is_set and time.monotonic() < end and self._thread is not None \
                    and self._thread.is_alive():
                time.sleep(0.01)
        self._stop.set()
        self._wake()
        if self._thread is not None:
            self._thread.join(timeout_s)
        if self._inc is not None:
            self._bury(self._inc, "shutdown", restart=False)
        self._wake_pending = True  # from now on _wake() writes nothing (the fds are closed)
        os.close(self._wake_r)
        os.close(self._wake_w)
        self._zmq.term()
        shutil.rmtree(self._dir, ignore_errors=True)

    # --- requests (EngineCoreClient.submit) -----------------------------------------------
    def _open(self, request: GenerationRequest, recorder: RequestRecorder, now: float,
              deadline_at: float | None) -> RequestHandle:
        cfg = self.config
        stream = StreamBuffer(None if cfg.unbounded_streams else cfg.stream_capacity,
                              cfg.stream_low_watermark, on_credit=self._wake,
                              on_drained=self._wake)
        handle = RequestHandle(request, recorder, stream, self.telemetry)
        handle.engine = _LinkSide(self, request.request_id)
        return handle

    def _refusal(self) -> str | None:
        if self._closed.is_set:
            return "shutting_down"
        if not self._ready.is_set():  # the engine (re)starts
            return RESTARTING
        if not self._responsive():
            return UNRESPONSIVE
        return None

    def _enqueue(self, handle: RequestHandle, now: float, deadline_at: float | None) -> None:
        request = handle.request
        self._live[request.request_id] = handle
        handle.deadline_at = deadline_at  # for a silent engine (_end_while_silent)
        self._out.submits.append(Submit(
            request.request_id, request.prompt, request.max_tokens, now, deadline_at,
            request.priority, list(request.stop_token_ids), request.ignore_eos,
            request.operation))

    def _accepted(self, handle: RequestHandle) -> None:
        self._wake()

    def _post_cancel(self, request_id: str, reason: FinishReason) -> bool:
        """Queue a cancel for the engine; False when the request ended here already (or is
        being reconciled): the engine has nothing to stop."""
        with self._lock:
            handle = self._live.get(request_id)
            posted = handle is not None
            if handle is not None:
                self._out.cancels.append((request_id, reason))
                if handle.stop_asked is None:
                    handle.stop_asked = reason
        if posted:
            self._wake()
        return posted

    def inject_fault(self, request_id: str) -> None:
        """Make the engine's next step including ``request_id`` raise (an error for it)."""
        with self._lock:
            self._out.faults.append(request_id)
        self._wake()

    def inject_crash(self) -> None:
        """Make the engine raise inside its next step, outside the scheduler's handling:
        the engine process exits and is restarted (a fault test)."""
        with self._lock:
            self._out.crash = True
        self._wake()

    def signal_engine(self, signum: int) -> None:
        """Send ``signum`` to the engine process (fault tests: SIGKILL, SIGSTOP)."""
        pid = self.pid
        if pid is not None:
            os.kill(pid, signum)

    # --- state ----------------------------------------------------------------------------
    def stats(self) -> EngineStats:
        return self._stats

    @property
    def live_requests(self) -> int:
        return len(self._live)

    def ready(self) -> bool:
        """The engine is up, its heartbeat is fresh (``unresponsive_s``, well inside the
        lease) and it accepts work."""
        return not self._closed.is_set and self._ready.is_set() and self._responsive()

    def _responsive(self) -> bool:
        inc = self._inc
        return inc is not None and time.monotonic() - inc.last_message < self.unresponsive_s

    def readiness(self) -> dict[str, Any]:
        return {"ready": self.ready(), "engine": "process", "pid": self.pid,
                "restarts": self.restarts, "heartbeat_age_s": round(self._heartbeat_age(), 3),
                "last_step_age_s": round(self._last_step_age(), 3)}

    def wait_ready(self, timeout_s: float = 60.0) -> bool:
        end = time.monotonic() + timeout_s
        while time.monotonic() < end:
            if self.ready():
                return True
            time.sleep(0.01)
        return False

    def wait_idle(self, timeout_s: float = 10.0) -> bool:
        end = time.monotonic() + timeout_s
        while time.monotonic() < end:
            if not self._live and self._pending == 0 and self._stats.idle:
                return True
            time.sleep(0.005)
        return False

    def _heartbeat_age(self) -> float:
        inc = self._inc
        if inc is None or not inc.last_message:
            return 0.0
        return max(0.0, time.monotonic() - inc.last_message)

    def _last_step_age(self) -> float:
        inc = self._inc
        if inc is None or not inc.last_step:
            return 0.0
        return max(0.0, time.monotonic() - inc.last_step)

    # --- the link thread --------------------------------------------------------------------
    def _wake(self) -> None:
        """Wake the link (a submission, cancel, credit or drained stream): coalesced."""
        if self._wake_pending:
            return
        self._wake_pending = True
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"x")

    def _spawn(self) -> None:
        self._epoch += 1
        to_path = os.path.join(self._dir, f"to-{self._epoch}")
        from_path = os.path.join(self._dir, f"from-{self._epoch}")
        to_engine = self._zmq.socket(zmq.PUSH)
        to_engine.setsockopt(zmq.LINGER, 0)
        to_engine.setsockopt(zmq.SNDHWM, 10000)
        to_engine.bind(f"ipc://{to_path}")
        from_engine = self._zmq.socket(zmq.PULL)
        from_engine.setsockopt(zmq.LINGER, 0)
        from_engine.bind(f"ipc://{from_path}")
        spec = ChildSpec(self.config, f"ipc://{to_path}", f"ipc://{from_path}",
                         self.heartbeat_s, os.getpid(), self.cpu_threads)
        proc = _EngineProcess(spec)
        poller = zmq.Poller()
        poller.register(from_engine, zmq.POLLIN)
        poller.register(self._wake_r, zmq.POLLIN)
        poller.register(proc.sentinel, zmq.POLLIN)
        now = time.monotonic()
        self._inc = _Incarnation(proc, to_engine, from_engine, poller, now,
                                 paths=[to_path, from_path])

    def _run(self) -> None:
        while not self._stop.is_set():
            inc = self._inc
            if inc is None or inc.dead.is_set:
                self._respawn()
                continue
            try:
                self._turn(inc)
            except Exception:  # a link bug must not leave requests hanging: start over
                _log.exception("engine link failed; replacing the engine")
                self._bury(inc, "fatal")

    def _turn(self, inc: _Incarnation) -> None:
        """One turn of the link: wait for the engine or a wake-up, apply what arrived,
        check the process and its lease, send what accumulated."""
        try:
            ready = dict(inc.poller.poll(int(self.heartbeat_s * 500)))
        except zmq.ZMQError:
            return
        started = time.perf_counter()
        try:
            self._serve(inc, ready)
        finally:  # the link's own work, not its waiting: what it takes from the API process
            self.link_busy_s += time.perf_counter() - started

    def _serve(self, inc: _Incarnation, ready: dict[Any, int]) -> None:
        if self._wake_r in ready:
            self._wake_pending = False
            with contextlib.suppress(OSError):
                os.read(self._wake_r, 4096)
        if inc.from_engine in ready:
            self._receive(inc)
        if inc.dead.is_set:
            return
        if inc.proc.sentinel in ready or not inc.proc.is_alive():
            self._read_last_words(inc)
            if not inc.dead.is_set:
                self._bury(inc, "exited")
            return
        now = time.monotonic()
        if inc.ready and now - inc.last_message > self.lease_s:
            _log.error("engine process %s missed its lease (%.1fs): killing it",
                       inc.proc.pid, now - inc.last_message)
            self._bury(inc, "lease_expired")
            return
        if not inc.ready and now - inc.started_at > self.start_timeout_s:
            self._bury(inc, "startup_timeout")
            return
        if not self._responsive():
            self._end_while_silent()
        self._flush(inc)

    def _end_while_silent(self) -> None:
        """Deadlines and cancels while the engine is silent. The engine ends a request at
        its deadline or when told to stop it, but a stopped or hung engine ends nothing until
        its lease expires (10 s by default: a 0.3 s deadline ran 20 times over, a client
        gone stayed in flight). With the engine silent (``unresponsive_s``), a request past
        its deadline, or one the API side asked to stop, ends here, exactly once; the engine
        cancels it when it reads again, and its own late verdict is counted as ignored."""
        now = self.telemetry.clock()
        due: list[tuple[RequestHandle, FinishReason]] = []
        with self._lock:
            for rid, handle in self._live.items():
                reason = handle.stop_asked  # its cancel is posted already
                if reason is None and handle.deadline_at is not None \
                        and handle.deadline_at <= now:
                    reason = FinishReason.DEADLINE
                    self._out.cancels.append((rid, reason))
                if reason is None:
                    continue
                due.append((handle, reason))
                # the writer is done with it, as far as the engine need wait: its tail is
                # dropped here, so the engine must not hold it draining for progress that
                # will never come (it leaves the live set, whose progress is sent)
                popped, delivered, _, attached, _ = handle.progress()
                self._out.progress.append((rid, popped, delivered, True, attached, True))
        for handle, reason in due:
            self._replayer.end(handle, reason, now, drop=True)

    def _read_last_words(self, inc: _Incarnation) -> None:
        """An engine that failed sends a fatal report and exits at once: its exit can reach
        the poller before the report reaches the socket. Read what arrives within a short
        grace, so that the restart is counted under its real cause. A process killed by a
        signal sent nothing more: what already arrived is read, and no grace is waited (its
        requests are finalized at once)."""
        grace_ms = 0 if inc.proc.killed_by_signal() else _LAST_WORDS_MS
        with contextlib.suppress(zmq.ZMQError):
            if inc.from_engine.poll(grace_ms, zmq.POLLIN):
                self._receive(inc)

    def _receive(self, inc: _Incarnation) -> None:
        """Apply every message waiting, in order."""
        while True:
            try:
                frame = inc.from_engine.recv(zmq.NOBLOCK)
            except zmq.Again:
                return
            try:
                msg = decoder_from_engine.decode(frame)
            except msgspec.DecodeError as exc:  # ValidationError too: it names the field
                _log.error("engine process %s sent a malformed message (%s); replacing it",
                           inc.proc.pid, exc)
                self._bury(inc, "fatal")
                return
            self.messages_received += 1
            inc.last_message = time.monotonic()
            if msg.stats is not None:
                self._stats = msg.stats
                if self._stats.steps != inc.steps:
                    inc.steps = self._stats.steps
                    inc.last_step = inc.last_message
            if msg.kind == "ready":
                inc.ready = True
                inc.device = msg.detail
                inc.last_step = inc.last_message
                self._ready.set()
            if msg.events:
                with batched_wakes():  # one wake-up per event loop per step, not per stream
                    self._replayer.replay(msg.events)
            if msg.kind == "fatal":
                _log.error("engine process %s failed: %s", inc.proc.pid, msg.detail)
                self._bury(inc, "fatal")
                return

    # --- sending ----------------------------------------------------------------------------
    def _flush(self, inc: _Incarnation) -> None:
        """Send what accumulated since the last message, in one message: submissions,
        cancels, faults, and the progress of every reader that moved (its credits)."""
        with self._lock:
            out, self._out = self._out, ToEngine()
            handles = list(self._live.values())
        for handle in handles:
            now = handle.progress()
            if now != handle.reported:
                handle.reported = now
                out.progress.append((handle.request_id, *now))
        if not (out.submits or out.cancels or out.progress or out.faults or out.crash
                or out.shutdown):
            return
        # zmq.Again: the engine stopped reading (hung); its lease will expire
        with contextlib.suppress(zmq.Again):
            inc.to_engine.send(encoder.encode(out), zmq.NOBLOCK)
            self.messages_sent += 1

    # --- losing an engine -------------------------------------------------------------------
    def _bury(self, inc: _Incarnation, why: str, *, restart: bool = True) -> None:
        """The engine is gone or declared dead: kill it, end every request in flight with
        ``error`` exactly once, and (unless shutting down) count a restart."""
        if not inc.dead.claim():
            return
        self._ready.clear()
        if inc.proc.is_alive():
            with contextlib.suppress(ProcessLookupError):
                os.kill(inc.proc.pid, signal.SIGKILL)
        inc.proc.join(5.0)
        inc.proc.close()
        for sock in (inc.to_engine, inc.from_engine):
            sock.close(linger=0)
        for path in inc.paths:
            with contextlib.suppress(OSError):
                os.unlink(path)
        with self._lock:
            self._out = ToEngine(shutdown=self._out.shutdown)
            handles = list(self._live.values())
            self._pending = 0
        now = self.telemetry.clock()
        for handle in handles:
            # decided stop/length keep their reason and their tail; the rest end with error
            handle.engine_lost_retry_after_s = self.retry_after_s
            self._replayer.end(handle, FinishReason.ERROR, now,
                      drop=handle.life.reason not in (FinishReason.STOP, FinishReason.LENGTH))
        cfg = self.config
        self._stats = EngineStats(cfg.num_blocks, cfg.num_blocks, 0, cfg.max_batch, 0, 0, 0, 0)
        self.telemetry.step(StepReport(now=now, kv_blocks_used=0, running=0, waiting=0,
                                       paused=0, buffered_tokens=0))
        self._last_death = time.monotonic()
        if restart and not self._closed.is_set and why != "shutdown":
            self.restarts += 1
            self.health.restarted(why)
            _log.warning("engine process %s lost (%s); %d request(s) ended with error; "
                         "restarting", inc.proc.pid, why, len(handles))

    def _respawn(self) -> None:
        if self._closed.is_set:
            self._stop.wait(0.05)
            return
        wait = self.restart_backoff_s - (time.monotonic() - self._last_death)
        if wait > 0 and self._stop.wait(wait):
            return
        self._spawn()

