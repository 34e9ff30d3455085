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
from .handle import Handle
from .replayer import Replayer
from .wire_events import RequestEncoder

if TYPE_CHECKING:  # the process's telemetry loads the exporters: named, never imported
    from servescope.instrumentation import RequestRecorder, Telemetry

__all__ = ["Engine", "EngineStats", "RequestHandle"]


class RequestHandle(Handle):
    """The writer's view of one request served by this process's scheduler thread."""

    def __init__(self, engine: Engine, request: GenerationRequest, stream: StreamBuffer,
                 seq: SeqRecord | None, recorder: RequestRecorder,
                 reject_reason: str | None = None) -> None:
        super().__init__(request, recorder, stream, engine.telemetry, reject_reason)
        self._engine = engine
        self._seq = seq

    def delivered(self, n: int) -> None:
        """``n`` tokens reached the client: acknowledged by its TCP, or written where the
        transport cannot tell.

        Call it for every popped token that reached the client, also after the end was
        popped: a stop/length request's recorder is finished once the end was popped and all
        popped tokens were reported delivered, or the writer said it is done
        (:meth:`writer_done`), or it stalled ``drain_timeout_s``."""
        self.recorder.delivered(n)
        seq = self._seq
        if seq is not None and n > 0:
            seq.delivered += n
            if seq.stream.drained:
                self._engine._post("drained", seq)

    def attach_writer(self) -> None:
        """A writer will report this request's deliveries and say when it is done: an
        abnormal end then records the request once the writer is done (or stalled
        ``drain_timeout_s``), so bytes it wrote around the decision still count."""
        if self._seq is not None:
            self._seq.writer_attached = True

    def writer_done(self) -> None:
        """The writer will report no more deliveries: popped tokens it did not report
        delivered are discarded, and the request's record need not wait for them."""
        seq = self._seq
        if seq is not None and seq.writer_done.claim():
            self._engine._post("drained", seq)

    # --- control --------------------------------------------------------------------------
    def cancel(self, reason: FinishReason = FinishReason.CLIENT_CANCEL) -> None:
        """Post a terminal signal (client disconnect/cancel, or any reason) to the scheduler.
        Applied at the next iteration boundary; a no-op (counted) if the request ended.

        The reader side closes at once: later pops return None, so tokens still buffered are
        discarded, not handed to a writer whose client is gone."""
        self.stream.abort_reader()
        if self._seq is None:  # refused: recorded already, a counted late signal
            self.life.attempted(reason)
            self.recorder.finish(reason)
        else:
            self._engine._post("cancel", (self._seq, reason))

    def inject_fault(self) -> None:
        """Make the next step that includes this request raise (finishes it with error)."""
        if self._seq is not None:
            self._engine._post("fault", self._seq)

    @property
    def completion_tokens(self) -> int:
        """Tokens committed so far (final once ``finish_reason`` is set)."""
        return 0 if self._seq is None else self._seq.committed


class Engine(EngineCoreClient[RequestHandle]):
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
        seq = SeqRecord(request, life, stream, now, deadline_at,
                        tokens=list(request.prompt), n_prompt=len(request.prompt),
                        limit=min(len(request.prompt) + request.max_tokens,
                                  cfg.model.max_context), report_as=recorder)
        return RequestHandle(self, request, stream, seq, recorder)

    def _refusal(self) -> str | None:
        return "shutting_down" if self._closed else None

    def _enqueue(self, handle: RequestHandle, now: float, deadline_at: float | None) -> None:
        seq = handle._seq
        assert seq is not None
        seq.life.stream = handle.stream
        self._live[handle.request_id] = handle
        self._post("submit", seq)

    def _reject(self, handle: RequestHandle, reason: str, now: float) -> None:
        handle._seq = None  # the scheduler never saw it: nothing to post about it
        super()._reject(handle, reason, now)

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
