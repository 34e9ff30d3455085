"""The one engine-client interface the transport uses, whichever process runs the engine core.

As vLLM has one ``EngineCoreClient`` with an in-process and a multiprocess implementation,
:class:`EngineCoreClient` has two: :class:`~.engine.Engine` (the scheduler is a thread of this
process) and :class:`~.engine_client.EngineClient` (the engine core runs in a child process).
Both take requests through the one :meth:`EngineCoreClient.submit` here, which makes the
request's recorder (the arrival), refuses what cannot run with a reason, and hands the rest
to the implementation; both answer with the one :class:`~.handle.RequestHandle`.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, Self

from servescope.instrumentation import FinishReason, RequestRecorder

from ..config import EngineConfig
from ..core.request import GenerationRequest
from ..core.stats import EngineStats
from ..core.tokenizer import ByteTokenizer
from .handle import RequestHandle

if TYPE_CHECKING:  # the process's telemetry loads the exporters: named, never imported
    from servescope.instrumentation import Telemetry

__all__ = ["EngineCoreClient"]

class EngineCoreClient(ABC):
    """Submit requests, read their tokens through handles; ``start``/``shutdown`` the engine.

    ``_pending`` counts waiting requests (including those not yet seen by the scheduler),
    under ``_lock``: the bound ``max_waiting`` is checked and taken in one step."""

    retry_after_s: int = 1  #: Retry-After (seconds) of a 503 while not ready

    def __init__(self, config: EngineConfig, telemetry: Telemetry) -> None:
        self.config = config
        self.telemetry = telemetry
        self.tokenizer = ByteTokenizer()
        self._lock = threading.Lock()
        self._pending = 0

    @property
    def model_name(self) -> str:
        return self.telemetry.model

    # --- requests -------------------------------------------------------------------------
    def submit(self, request: GenerationRequest) -> RequestHandle:
        """Accept or reject ``request``; never blocks. A rejected request's handle is
        already finished (reason ``rejected``; ``reject_reason`` is one of ``empty_prompt``,
        ``prompt_too_long``, ``invalid_token``, ``queue_full``, ``shutting_down``, or what
        the implementation adds: ``engine_restarting``, ``engine_unresponsive``)."""
        now = self.telemetry.clock()
        recorder = self.telemetry.request(
            request.request_id, model=request.model, priority=request.priority,
            prompt_tokens=len(request.prompt), carrier=request.carrier, arrival=now,
            operation=request.operation)
        cfg = self.config
        deadline_s = request.deadline_s if request.deadline_s is not None \
            else cfg.default_deadline_s
        deadline_at = None if deadline_s is None else now + deadline_s
        handle = self._open(request, recorder, now, deadline_at)
        reason = request.misfit(max_context=cfg.model.max_context,
                                vocab_size=cfg.model.vocab_size)
        with self._lock:  # handing over under the lock: shutdown cannot miss this submission
            if reason is None:
                reason = self._refusal()
            if reason is None and self._pending >= cfg.max_waiting:
                reason = "queue_full"
            if reason is None:
                self._pending += 1
                self._enqueue(handle, now, deadline_at)
        if reason is not None:
            self._reject(handle, reason, now)
        else:
            self._accepted(handle)
        return handle

    def _left_waiting(self) -> None:
        """The scheduler took a waiting request (admitted it, or ended it while waiting)."""
        with self._lock:
            self._pending -= 1

    def _requeued(self) -> None:
        """A preempted request waits again."""
        with self._lock:
            self._pending += 1

    @abstractmethod
    def _open(self, request: GenerationRequest, recorder: RequestRecorder, now: float,
              deadline_at: float | None) -> RequestHandle:
        """The request's handle (its stream buffer and terminal state), not yet handed over."""

    @abstractmethod
    def _refusal(self) -> str | None:
        """Why no request can be taken now (under ``_lock``), or None."""

    @abstractmethod
    def _enqueue(self, handle: RequestHandle, now: float, deadline_at: float | None) -> None:
        """Hand an accepted request to the engine (under ``_lock``)."""

    def _accepted(self, handle: RequestHandle) -> None:  # noqa: B027 (an optional hook)
        """After the lock: wake whoever carries the request to the engine."""

    def _reject(self, handle: RequestHandle, reason: str, now: float) -> None:
        """End a refused request: terminal ``rejected`` with ``reason``, nothing held (so
        nothing released: ``released`` stays unclaimed)."""
        handle.reject_reason = reason
        handle.engine = None  # the engine never saw it: nothing to tell it about it
        handle.life.decide(FinishReason.REJECTED)
        handle.life.recorded.claim()
        handle.recorder.rejected(reason, now=now)
        handle.stream.close(drop=True)

    @abstractmethod
    def inject_fault(self, request_id: str) -> None:
        """Make the next step including ``request_id`` raise (a worker error for it alone)."""

    # --- lifecycle and state --------------------------------------------------------------
    @abstractmethod
    def start(self) -> None:
        """Start the engine; idempotent."""

    @abstractmethod
    def shutdown(self, timeout_s: float = 5.0) -> None:
        """Refuse new requests, end live ones with ``error``, stop the engine."""

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()

    @abstractmethod
    def ready(self) -> bool:
        """The engine runs and accepts submissions."""

    @abstractmethod
    def readiness(self) -> dict[str, Any]:
        """What ``/readyz`` shows."""

    @abstractmethod
    def stats(self) -> EngineStats:
        """The scheduler's latest snapshot."""

    @abstractmethod
    def wait_idle(self, timeout_s: float = 10.0) -> bool:
        """Wait until every resource is back (no live request); True if it got there."""
