"""The engine in process: a model, a scheduler thread, and one :class:`RequestHandle` per request.

``Engine.submit`` (the one submit path, :class:`~.base.EngineCoreClient`) is the only way in;
it never blocks. It makes the request's recorder (the arrival), rejects with a reason what
cannot run (queue full, prompt over the context, bad token ids), and posts the rest to the
scheduler's mailbox. The handle is the writer's side: it pops
committed tokens (an asyncio task on any loop, or a thread), reports deliveries, and posts
cancels. Everything else about the request belongs to the scheduler thread, which reports
through the same event encoders as the engine process; the same :class:`~.replayer.Replayer`
applies each event to the handle's state, recorder and telemetry as it is made (the stream
buffer, shared here, is pushed and closed directly).
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

from servescope.instrumentation import FinishReason
from servescope.instrumentation.engine_health import EngineHealth

from ..config import EngineConfig
from ..core.lifecycle import Lifecycle
from ..core.model import KVCache, Transformer, pick_device
from ..core.request import GenerationRequest
from ..core.scheduler import Scheduler
from ..core.sequence import SeqRecord
from ..core.stats import EngineStats
from ..core.stream import StreamBuffer
from .base import EngineCoreClient
from .engine_wire import Decided, LeftWaiting, Requeued
from .handle import RequestHandle
from .replayer import Replayer
from .wire_events import RequestEncoder

if TYPE_CHECKING:  # the process's telemetry loads the exporters: named, never imported
    from servescope.instrumentation import RequestRecorder, Telemetry

__all__ = ["Engine", "EngineStats", "RequestHandle"]


class _SchedulerSide:
    """In process, one request's writer news, cancels and faults go to the scheduler's
    mailbox (applied at its next safe point)."""

    __slots__ = ("_post", "seq")

    def __init__(self, engine: Engine, seq: SeqRecord) -> None:
        self._post = engine._post
        self.seq = seq

    def writer_moved(self) -> None:
        self._post("drained", self.seq)

    def cancel(self, reason: FinishReason) -> bool:
        self._post("cancel", (self.seq, reason))  # after the end: a counted no-op there
        return True

    def inject_fault(self) -> None:
        self._post("fault", self.seq)


class Engine(EngineCoreClient):
    """A reference decode worker: submit requests, read their tokens through handles."""

    def __init__(self, config: EngineConfig, telemetry: Telemetry) -> None:
        super().__init__(config, telemetry)
        self.device = pick_device(config.device)
        self.model = Transformer.from_config(config.model, self.device)
        self.cache = KVCache(config.model, config.num_blocks, config.block_size, self.device)
        self._closed = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._dead_since: float | None = None
        # each request reports through the same encoder as in the engine process, and the
        # replayer is its sink: each event is applied to the API-side state as it is made
        # (no list, no encoding), so the hooks keep the order of the scheduler's calls. The
        # replayer is also the step sink: the typed step report is handed through as built
        self._live: dict[str, RequestHandle] = {}
        self._replayer = replayer = Replayer(telemetry, self._live, self._lock,
                                             self._left_waiting, self._requeued)
        self._scheduler = Scheduler(config, replayer, self.model, self.cache, self.device,
                                    self.tokenizer, lambda: replayer.append(LeftWaiting()),
                                    lambda: replayer.append(Requeued()))
        # the same engine health families as the engine-process mode: an in-process engine
        # never restarts (its counters stay at 0) and its heartbeat is the scheduler thread
        EngineHealth(telemetry).watch(self._heartbeat_age, self._last_step_age)

    # --- lifecycle ------------------------------------------------------------------------
    def start(self) -> None:
        """Start the scheduler thread (a daemon). Idempotent."""
        with self._lock:
            if self._thread is not None or self._closed:
                return
            self._thread = threading.Thread(target=self._scheduler.run, args=(self._stop,),
                                            name="servescope-scheduler", daemon=True)
            self._thread.start()

    def shutdown(self, timeout_s: float = 5.0) -> None:
        """Refuse new requests, finish live ones with ``error``, join the scheduler thread."""
        with self._lock:
            self._closed = True
            thread = self._thread
        self._stop.set()
        self._scheduler.mailbox.post("shutdown")
        if thread is not None:
            thread.join(timeout_s)
        if thread is None or not thread.is_alive():
            # the scheduler thread is gone (or never ran): this thread is now the single
            # owner; finish whatever is still in the mailbox or queued
            self._scheduler.run(self._stop)

    # --- requests (EngineCoreClient.submit) -----------------------------------------------
    def _open(self, request: GenerationRequest, recorder: RequestRecorder, now: float,
              deadline_at: float | None) -> RequestHandle:
        rid = request.request_id
        replayer = self._replayer
        life = Lifecycle(RequestEncoder(rid, replayer), self._scheduler.pool,
                         self._scheduler.slots,
                         on_decided=lambda reason: replayer.append(Decided(rid, reason)))
        cfg = self.config
        stream = StreamBuffer(None if cfg.unbounded_streams else cfg.stream_capacity,
                              cfg.stream_low_watermark,
                              on_credit=lambda: self._post("credit"),
                              on_drained=lambda: self._post("drained", seq))
        handle = RequestHandle(request, recorder, stream, self.telemetry)
        # the scheduler reads the handle's own writer progress: no copy, no message
        seq = SeqRecord(request, life, stream, now, deadline_at,
                        tokens=list(request.prompt), n_prompt=len(request.prompt),
                        limit=min(len(request.prompt) + request.max_tokens,
                                  cfg.model.max_context), writer=handle.writer,
                        report_as=recorder)
        handle.engine = _SchedulerSide(self, seq)
        return handle

    def _refusal(self) -> str | None:
        return "shutting_down" if self._closed else None

    def _enqueue(self, handle: RequestHandle, now: float, deadline_at: float | None) -> None:
        side = handle.engine
        assert isinstance(side, _SchedulerSide)
        seq = side.seq
        seq.life.stream = handle.stream
        self._live[handle.request_id] = handle
        self._post("submit", seq)

    def inject_fault(self, request_id: str) -> None:
        """Make the next step including ``request_id`` raise (a worker error for it alone)."""
        self._post("fault", request_id)

    def ready(self) -> bool:
        """The scheduler thread runs and submissions are accepted."""
        thread = self._thread
        return not self._closed and thread is not None and thread.is_alive()

    def readiness(self) -> dict[str, object]:
        return {"ready": self.ready(), "engine": "thread"}

    def stats(self) -> EngineStats:
        """The scheduler's latest snapshot (published after each iteration)."""
        return self._scheduler.stats

    def wait_idle(self, timeout_s: float = 10.0) -> bool:
        """Wait until every resource is back (no live request); True if it got there."""
        end = time.monotonic() + timeout_s
        while time.monotonic() < end:
            if self._scheduler.stats.idle and self._pending == 0 and not self._live:
                return True
            time.sleep(0.005)
        return False

    # --- internals ------------------------------------------------------------------------
    def _post(self, kind: str, payload: object = None) -> None:
        self._scheduler.mailbox.post(kind, payload)

    def _heartbeat_age(self) -> float:
        """0 while the scheduler thread lives; afterwards, the time since it was seen dead."""
        if self._thread is None or self._thread.is_alive():
            self._dead_since = None
            return 0.0
        if self._dead_since is None:
            self._dead_since = time.monotonic()
        return time.monotonic() - self._dead_since

    def _last_step_age(self) -> float:
        return max(0.0, time.monotonic() - self._scheduler.last_step_at)
