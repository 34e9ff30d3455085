"""The span pipeline behind the tracer: a bounded queue, one export thread, every span counted.

:class:`CountingBatchSpanProcessor` does what the SDK's ``BatchSpanProcessor`` does (the
request thread only appends to a bounded queue; a worker exports batches), with its own queue,
so drop accounting needs no SDK internals: each span is counted exactly once, as exported
(``servescope_spans_exported_total``), dropped because the queue was full, or dropped because
the export failed, or left in the queue at shutdown (``servescope_spans_dropped_total{reason}``
with ``queue_full``, ``export_failed``, ``shutdown``), at the moment it happens.
An SDK upgrade cannot silently stop the counting, and no span is dropped uncounted.

It honours the SDK's ``OTEL_BSP_*`` variables (schedule delay, batch size, queue size, export
timeout) with the SDK's defaults. A full queue drops the *newest* span (the one being ended),
as the Collector's queue does: the spans already queued belong to traces partly exported.

When an export fails (the receiver down, stalled past the exporter's timeout, refusing), the
export thread backs off before the next batch: 1 s, doubling up to 10 s, reset by the first
export that succeeds, cut short by a flush or shutdown. Without it the thread would take the
next batch at once and redact, encode and send it to a receiver known to be failing: about a
batch a second of work (and of the GIL the request threads need) spent on spans that are lost
anyway. Meanwhile the request threads do what they always do: an append, or a counted drop
when the queue is full.
"""

from __future__ import annotations

import collections
import logging
import os
import threading
import time
from collections.abc import Sequence

from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from . import catalog as cat
from .metrics import MetricSet
from .terminal import Once

__all__ = ["CountingBatchSpanProcessor", "CountingSpanExporter", "bsp_settings"]

_log = logging.getLogger("servescope.instrumentation")

# After a failed export: the first wait before the next batch, and the most it grows to.
BACKOFF_S = (1.0, 10.0)
# The SDK's defaults for the same variables.
_DEFAULTS = {"OTEL_BSP_SCHEDULE_DELAY": 5000, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": 512,
             "OTEL_BSP_MAX_QUEUE_SIZE": 8192, "OTEL_BSP_EXPORT_TIMEOUT": 30000}


def _env_int(name: str) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return _DEFAULTS[name]
    try:
        value = int(raw)
    except ValueError:
        _log.warning("%s=%r is not an integer; using %d", name, raw, _DEFAULTS[name])
        return _DEFAULTS[name]
    if value <= 0:
        _log.warning("%s=%r must be positive; using %d", name, raw, _DEFAULTS[name])
        return _DEFAULTS[name]
    return value


def bsp_settings(max_queue_size: int | None = None, max_export_batch_size: int | None = None
                 ) -> dict[str, float]:
    """Queue size, batch size, schedule delay (s) and export timeout (s): argument, then
    ``OTEL_BSP_*``, then the SDK default. The batch never exceeds the queue."""
    queue = max_queue_size or _env_int("OTEL_BSP_MAX_QUEUE_SIZE")
    batch = min(max_export_batch_size or _env_int("OTEL_BSP_MAX_EXPORT_BATCH_SIZE"), queue)
    return {"max_queue_size": queue, "max_export_batch_size": batch,
            "schedule_delay_s": _env_int("OTEL_BSP_SCHEDULE_DELAY") / 1000,
            "export_timeout_s": _env_int("OTEL_BSP_EXPORT_TIMEOUT") / 1000}


class CountingSpanExporter(SpanExporter):
    """Counts what the wrapped exporter accepted and what it failed to deliver."""

    def __init__(self, inner: SpanExporter, metrics: MetricSet) -> None:
        self.inner = inner
        self._exported = metrics.child(cat.SPANS_EXPORTED)
        self._failed = metrics.child(cat.SPANS_DROPPED, reason="export_failed")

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        try:
            result = self.inner.export(spans)
        except Exception:
            _log.exception("span exporter raised; %d spans counted as failed", len(spans))
            result = SpanExportResult.FAILURE
        (self._exported if result is SpanExportResult.SUCCESS else self._failed).inc(len(spans))
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self.inner.force_flush(timeout_millis)


class CountingBatchSpanProcessor(SpanProcessor):
    """A batch span processor whose queue and counts are its own (see the module doc).

    ``exporter`` should be a :class:`CountingSpanExporter` (exports are counted there); the
    processor counts queue-full drops and spans it could not hand over at shutdown.
    """

    def __init__(self, exporter: SpanExporter, metrics: MetricSet, *,
                 max_queue_size: int | None = None,
                 max_export_batch_size: int | None = None) -> None:
        settings = bsp_settings(max_queue_size, max_export_batch_size)
        self.exporter = exporter
        self.max_queue_size = int(settings["max_queue_size"])
        self.max_export_batch_size = int(settings["max_export_batch_size"])
        self.schedule_delay_s = settings["schedule_delay_s"]
        self._queue: collections.deque[ReadableSpan] = collections.deque()
        self._lock = threading.Lock()  # held for an append or a pop, never across an export
        self._full = metrics.child(cat.SPANS_DROPPED, reason="queue_full")
        self._abandoned = metrics.child(cat.SPANS_DROPPED, reason="shutdown")
        self._wake = threading.Event()
        self._idle = threading.Condition()
        self._flush_generation = 0  # flush requests asked / served: a flush waits for its own
        self._flushed_generation = 0
        self._shutdown = Once(self._lock)
        self._worker = threading.Thread(target=self._run, name="servescope-span-export",
                                        daemon=True)
        self._worker.start()
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._restart_in_child)

    # --- the request thread -----------------------------------------------------------------
    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        pass

    def on_end(self, span: ReadableSpan) -> None:
        if span.context is None or not span.context.trace_flags.sampled:
            return
        with self._lock:
            closed = self._shutdown.is_set
            if closed or len(self._queue) >= self.max_queue_size:
                dropped = True
            else:
                dropped = False
                self._queue.append(span)
                ready = len(self._queue) == self.max_export_batch_size
        if dropped:  # (after shutdown: nothing will export it, whatever the queue holds)
            (self._abandoned if closed else self._full).inc()
        elif ready:
            self._wake.set()

    def queue_length(self) -> int:
        return len(self._queue)

    # --- the export thread ------------------------------------------------------------------
    def _take_batch(self) -> list[ReadableSpan]:
        with self._lock:  # the request threads append under this lock: hold it briefly
            queue = self._queue
            if len(queue) <= self.max_export_batch_size:  # the usual case: take it whole
                self._queue = collections.deque()
                return list(queue)
            return [queue.popleft() for _ in range(self.max_export_batch_size)]

    def _run(self) -> None:
        backoff = 0.0
        while True:
            if backoff:
                self._back_off(backoff)
            else:
                self._wake.wait(self.schedule_delay_s)
            self._wake.clear()
            with self._idle:
                generation = self._flush_generation
            backoff = 0.0 if self._drain() else min(max(2 * backoff, BACKOFF_S[0]),
                                                    BACKOFF_S[1])
            with self._idle:
                self._flushed_generation = max(self._flushed_generation, generation)
                self._idle.notify_all()
            if self._shutdown.is_set:
                return

    def _back_off(self, seconds: float) -> None:
        """Wait ``seconds`` after a failed export, unless a flush or shutdown asks sooner
        (a queue reaching a batch's size does not: the receiver was failing)."""
        deadline = time.monotonic() + seconds
        while not self._shutdown.is_set and self._flushed_generation >= self._flush_generation:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            self._wake.wait(left)
            self._wake.clear()

    def _drain(self) -> bool:
        """Export what is queued, batch by batch; False at the first batch that fails (the
        rest waits for the backoff)."""
        while True:
            batch = self._take_batch()
            if not batch:
                return True
            try:
                result = self.exporter.export(batch)
            except Exception:  # the counting exporter never raises; another might
                _log.exception("span export failed")
                return False
            if result is not SpanExportResult.SUCCESS:
                return False

    # --- flush and shutdown -----------------------------------------------------------------
    def force_flush(self, timeout_millis: int = 30000) -> bool:
        """Export everything queued now; False when that takes longer than the timeout."""
        deadline = time.monotonic() + timeout_millis / 1000
        with self._idle:
            self._flush_generation += 1
            mine = self._flush_generation
            self._wake.set()
            while self._flushed_generation < mine:
                left = deadline - time.monotonic()
                if left <= 0 or not self._worker.is_alive():
                    return False
                self._idle.wait(left)
        return True

    def shutdown(self, timeout_millis: int = 30000) -> None:
        """Export what is queued within the timeout; what is still queued then is counted
        (``reason="shutdown"``) and let go. Then shut the exporter down. Spans ended after
        shutdown count as ``shutdown`` too."""
        with self._lock:
            if not self._shutdown.claim_held():
                return
        self._wake.set()
        self._worker.join(timeout_millis / 1000)
        with self._lock:
            left = len(self._queue)
            self._queue.clear()
        if left:
            self._abandoned.inc(left)
        self.exporter.shutdown()

    def join(self, timeout_s: float | None = None) -> None:
        """Wait for the export thread to end (after :meth:`shutdown`)."""
        self._worker.join(timeout_s)

    def _restart_in_child(self) -> None:
        # a forked child gets no thread: start its own, with an empty queue and fresh locks
        self._queue = collections.deque()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._idle = threading.Condition()
        self._worker = threading.Thread(target=self._run, name="servescope-span-export",
                                        daemon=True)
        self._worker.start()


