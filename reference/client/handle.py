"""The one request handle, whichever side of a process boundary the engine runs on.

A :class:`RequestHandle` is the writer's side of one request: the stream buffer it pops, the
request's one terminal decision (as the API side replays it), what its writer reports
(:class:`~..core.sequence.WriterProgress`: deliveries, attached, done), and its recorder. What
differs between the two engine clients is how that news reaches the engine: an
:class:`EngineSide`, one per request, that each client makes (in process it posts to the
scheduler's mailbox; across the process boundary it wakes the link, which sends the writer's
progress with its next message).
"""

from __future__ import annotations

from typing import Protocol

from servescope.instrumentation import FinishReason, RequestRecorder
from servescope.instrumentation.step import StepSink

from ..core.request import GenerationRequest
from ..core.sequence import WriterProgress
from ..core.stream import StreamBuffer
from .replayer import RemoteLifecycle

__all__ = ["EngineSide", "RequestHandle"]


class EngineSide(Protocol):
    """How one request's writer-side news reaches its engine (each engine client makes one
    per accepted request; a refused request has none)."""

    def writer_moved(self) -> None:
        """The writer's progress changed in a way that may end or record the request:
        deliveries that reach a drained stream's end, a writer attached, or done."""

    def cancel(self, reason: FinishReason) -> bool:
        """Hand a terminal signal to the engine; False when it cannot take it any more (the
        request ended there): the handle then counts it as a late signal itself."""

    def inject_fault(self) -> None:
        """Make the next engine step that includes the request raise (an error for it)."""


class RequestHandle:
    """The writer's view of one request. Every method is safe from any thread.

    ``life`` holds the request's terminal state (read-only use here: the engine decides it);
    ``stream`` is the buffer between the engine and the writer; ``writer`` what the writer
    reported; ``engine`` how that reaches the engine (None: refused, never handed over).
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
        self.writer = WriterProgress()
        self.engine: EngineSide | None = None  # set by the client when it takes the request
        #: the writer's progress as last told to an engine across the process boundary
        self.reported: tuple[int, int, bool, bool, bool] = (0, 0, False, False, False)
        #: its deadline (telemetry clock) and the first reason it was asked to stop, kept
        #: where an engine in another process could fall silent (it then ends them here)
        self.deadline_at: float | None = None
        self.stop_asked: FinishReason | None = None
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
    def delivered(self, n: int) -> None:
        """``n`` tokens reached the client: acknowledged by its TCP, or written where the
        transport cannot tell.

        Call it for every popped token that reached the client, also after the end was
        popped: a stop/length request's recorder is finished once the end was popped and all
        popped tokens were reported delivered, or the writer said it is done
        (:meth:`writer_done`), or it stalled ``drain_timeout_s``."""
        self.recorder.delivered(n)
        if n > 0:
            self.writer.delivered += n
            engine = self.engine
            if engine is not None and self.stream.drained:
                engine.writer_moved()

    def attach_writer(self) -> None:
        """A writer will report this request's deliveries and say when it is done: an
        abnormal end then records the request once the writer is done (or stalled
        ``drain_timeout_s``), so bytes it wrote around the decision still count."""
        self.writer.attached = True
        if self.engine is not None:
            self.engine.writer_moved()

    def writer_done(self) -> None:
        """The writer will report no more deliveries: popped tokens it did not report
        delivered are discarded, and the request's record need not wait for them."""
        if self.writer.done.claim() and self.engine is not None:
            self.engine.writer_moved()

    def cancel(self, reason: FinishReason = FinishReason.CLIENT_CANCEL) -> None:
        """Post a terminal signal (client disconnect/cancel, or any reason) to the engine.
        Applied at its next iteration boundary; a no-op (counted) if the request ended.

        The reader side closes at once: later pops return None, so tokens still buffered are
        discarded, not handed to a writer whose client is gone."""
        self.stream.abort_reader()
        engine = self.engine
        if self.life.recorded.is_set or engine is None or not engine.cancel(reason):
            self.life.attempted(reason)
            self.recorder.finish(reason)  # a late signal: counted as ignored

    def inject_fault(self) -> None:
        """Make the next step that includes this request raise (finishes it with error)."""
        if self.engine is not None:
            self.engine.inject_fault()

    @property
    def completion_tokens(self) -> int:
        """Tokens committed so far (final once ``finish_reason`` is set): every committed
        token is pushed to the stream once."""
        return self.stream.pushed

    def progress(self) -> tuple[int, int, bool, bool, bool]:
        """The reader's and the writer's progress: popped, delivered, end seen, a writer
        attached, the writer done."""
        stream, writer = self.stream, self.writer
        return (stream.popped, writer.delivered, stream.drained, writer.attached,
                writer.done.is_set)

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
