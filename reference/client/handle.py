"""What every request handle reads the same way, whichever side of a process boundary the
engine runs on: the stream buffer the writer pops, and the request's one terminal decision.

:class:`~.engine.RequestHandle` (the scheduler is a thread of this process) and
:class:`~.engine_client.RemoteHandle` (the engine is a child process) add how deliveries,
cancels and token counts reach their engine.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from servescope.instrumentation import FinishReason, RequestRecorder
from servescope.instrumentation.step import StepSink

from ..core.request import GenerationRequest
from ..core.stream import StreamBuffer
from .replayer import RemoteLifecycle

__all__ = ["Handle"]


class Handle(ABC):
    """The writer's view of one request. Every method is safe from any thread.

    ``life`` holds the request's terminal state (read-only use here: the engine decides it);
    ``stream`` is the buffer between the engine and the writer.
    """

    def __init__(self, request: GenerationRequest, recorder: RequestRecorder,
                 stream: StreamBuffer, telemetry: StepSink,
                 reject_reason: str | None = None) -> None:
        self.request_id = request.request_id
        self.request = request
        self.recorder = recorder
        self.prompt_tokens = len(request.prompt)
        self.reject_reason = reject_reason
        #: Set when the request ended because its engine was lost (not the request's fault):
        #: a response not yet started answers 503 with this ``Retry-After`` instead of 500.
        self.engine_lost_retry_after_s: int | None = None
        #: The API side's terminal state: the engine core's decision as replayed here.
        self.life = RemoteLifecycle()
        self.stream = stream
        self._telemetry = telemetry

    # --- reading the stream ---------------------------------------------------------------
    async def next_chunk(self, max_tokens: int = 64) -> list[int] | None:
        """Await the next committed tokens (up to ``max_tokens``); None once the request has
        ended and everything pushed before the end has been popped. Popping returns credits:
        the engine resumes a paused request at the low watermark."""
        return await self.stream.next(max_tokens)

    def get_chunk(self, timeout_s: float | None = None, max_tokens: int = 64
                  ) -> list[int] | None:
        """Blocking variant of :meth:`next_chunk`; ``[]`` when ``timeout_s`` passes first."""
        return self.stream.get(timeout_s, max_tokens)

    def clock(self) -> float:
        """The telemetry's clock (stamps a write before it is issued)."""
        return self._telemetry.clock()

    def written(self, n: int, now: float | None = None) -> None:
        """``n`` popped tokens were handed to the client's connection; the write began at
        ``now`` (the first one stamps stream TTFT)."""
        self.recorder.written(n, now=now)

    # --- what reaches the engine ----------------------------------------------------------
    @abstractmethod
    def delivered(self, n: int) -> None:
        """``n`` tokens reached the client: acknowledged by its TCP, or written where the
        transport cannot tell."""

    @abstractmethod
    def attach_writer(self) -> None:
        """A writer will report this request's deliveries and say when it is done."""

    @abstractmethod
    def writer_done(self) -> None:
        """The writer will report no more deliveries."""

    @abstractmethod
    def cancel(self, reason: FinishReason = FinishReason.CLIENT_CANCEL) -> None:
        """Post a terminal signal; a no-op (counted) if the request ended."""

    @abstractmethod
    def inject_fault(self) -> None:
        """Make the next engine step that includes this request raise (an error for it)."""

    @property
    @abstractmethod
    def completion_tokens(self) -> int:
        """Tokens committed so far (final once ``finish_reason`` is set)."""

    # --- state ----------------------------------------------------------------------------
    @property
    def finish_reason(self) -> FinishReason | None:
        """The terminal state once decided (stop/length are decided when the last token is
        committed, while the writer may still be taking the tail)."""
        return self.life.reason

    @property
    def buffered(self) -> int:
        """Tokens committed and not yet popped (never above the stream capacity)."""
        return self.stream.buffered

    @property
    def peak_buffered(self) -> int:
        return self.stream.peak

    def wait(self, timeout_s: float | None = None) -> FinishReason | None:
        """Block until the terminal state is decided (tests and simple clients)."""
        self.life.decided.wait(timeout_s)
        return self.life.reason
