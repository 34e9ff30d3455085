"""Exporter faults: the receiver down, slow, or flapping.

The recorder-driven workload never waits on the exporter, the export queue stays bounded,
every span is accounted for (exported, or dropped and counted), and shutdown keeps its
deadline. Rates are compared in benchmarks/redaction.py; here only blocking is checked: a hook
that waited on the exporter would take at least the receiver's stall.
"""

from __future__ import annotations

import threading
import time

import pytest
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExportResult
from otlp_receiver import OtlpReceiver, free_port
from timing import slack_s
from waiting import poll_until
from walk import walk_request

from servescope.instrumentation import catalog as cat
from servescope.instrumentation import setup_telemetry
from servescope.instrumentation.export import CountingBatchSpanProcessor
from servescope.redaction import RedactionStage

SPANS_PER_REQUEST = 5  # request + queue, prefill, decode, stream
STALL_S = 1.5


def _workload(setup, n: int, queue_sizes: list[int] | None = None) -> float:
    """Run ``n`` requests through the recorder; return the slowest request's hook time."""
    tel = setup.telemetry
    processor = _processor(setup)
    slowest = 0.0
    for i in range(n):
        t0 = time.perf_counter()
        walk_request(tel, f"req-{i}", prompt_tokens=8, committed=4)
        slowest = max(slowest, time.perf_counter() - t0)
        if queue_sizes is not None:
            queue_sizes.append(processor.queue_length())
    return slowest


def _processor(setup) -> CountingBatchSpanProcessor:
    # the provider's processor list is an SDK internal: tests only
    (processor,) = setup.tracer_provider._active_span_processor._span_processors
    assert isinstance(processor, CountingBatchSpanProcessor)
    return processor


def _sample(registry, name, **labels) -> float:
    return registry.get_sample_value(name, labels) or 0.0


def _accounted(registry) -> float:
    return (_sample(registry, f"{cat.SPANS_EXPORTED.name}_total")
            + _sample(registry, f"{cat.SPANS_DROPPED.name}_total", reason="queue_full")
            + _sample(registry, f"{cat.SPANS_DROPPED.name}_total", reason="export_failed")
            + _sample(registry, f"{cat.SPANS_DROPPED.name}_total", reason="shutdown"))


def _setup(registry, endpoint: str, monkeypatch, *, queue: int, timeout_s: float = 5.0):
    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
    monkeypatch.setenv("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "32")
    return setup_telemetry(
        registry=registry, max_queue_size=queue, redaction=RedactionStage(hash_key=b"k"),
        span_exporter=OTLPSpanExporter(endpoint=endpoint, insecure=True, timeout=timeout_s))


def test_slow_receiver_bounded_queue_and_every_span_accounted(registry, monkeypatch):
    with OtlpReceiver() as receiver:
        setup = _setup(registry, receiver.endpoint, monkeypatch, queue=64)
        _workload(setup, 1)  # connect first, so the stall below hits a live export
        assert setup.force_flush(10) and receiver.behaviour.calls == 1
        receiver.behaviour.delay_s = STALL_S
        sizes: list[int] = []
        n = 120
        slowest = _workload(setup, n, sizes)
        assert receiver.wait_for(lambda: receiver.behaviour.calls >= 2)  # an export is stuck
        slowest = max(slowest, _workload(setup, 40, sizes))
        n += 40
        assert slowest < STALL_S * 0.9, "a hook waited on the exporter"  # it would take STALL_S
        assert max(sizes) <= 64
        dropped = _sample(registry, f"{cat.SPANS_DROPPED.name}_total", reason="queue_full")
        assert dropped > 0
        receiver.behaviour.delay_s = 0.0  # recover: what is queued now gets through
        assert setup.force_flush(30)
        total = (n + 1) * SPANS_PER_REQUEST
        assert _accounted(registry) == total
        exported = _sample(registry, f"{cat.SPANS_EXPORTED.name}_total")
        assert receiver.span_count() == exported == total - dropped
        setup.shutdown(5)


def test_receiver_down_nothing_blocks_and_failures_are_counted(registry, monkeypatch):
    setup = _setup(registry, f"127.0.0.1:{free_port()}", monkeypatch, queue=64, timeout_s=1.0)
    sizes: list[int] = []
    n = 100
    slowest = _workload(setup, n, sizes)
    assert slowest < slack_s(0.5), "a hook waited on the exporter"
    assert max(sizes) <= 64
    t0 = time.monotonic()
    setup.shutdown(timeout_s=2.0)
    assert time.monotonic() - t0 < 2.0 + slack_s(1.0)
    _processor(setup).join(5)  # its last failed export lands before we count
    failed = _sample(registry, f"{cat.SPANS_DROPPED.name}_total", reason="export_failed")
    full = _sample(registry, f"{cat.SPANS_DROPPED.name}_total", reason="queue_full")
    assert failed > 0 and full > 0
    assert _sample(registry, f"{cat.SPANS_EXPORTED.name}_total") == 0


def test_flapping_receiver_loses_nothing_it_accepts(registry, monkeypatch):
    with OtlpReceiver() as receiver:
        receiver.behaviour.flap_every = 1  # every other export answers UNAVAILABLE
        setup = _setup(registry, receiver.endpoint, monkeypatch, queue=2048, timeout_s=5.0)
        n = 60
        slowest = _workload(setup, n)
        assert slowest < slack_s(0.5)
        assert setup.force_flush(60)
        assert receiver.rejected > 0
        total = n * SPANS_PER_REQUEST
        assert _accounted(registry) == total
        exported = _sample(registry, f"{cat.SPANS_EXPORTED.name}_total")
        assert receiver.span_count() == exported
        setup.shutdown(5)


@pytest.mark.parametrize("deadline", [0.5, 1.5])
def test_shutdown_keeps_its_deadline_with_a_stuck_receiver(registry, monkeypatch, deadline):
    with OtlpReceiver() as receiver:
        receiver.behaviour.delay_s = 5.0
        setup = _setup(registry, receiver.endpoint, monkeypatch, queue=256, timeout_s=10.0)
        _workload(setup, 20)
        t0 = time.monotonic()
        setup.shutdown(timeout_s=deadline)
        assert time.monotonic() - t0 < deadline + slack_s(0.5)




class _GatedExporter:
    """Accepts spans only while its gate is open (a receiver that stops reading)."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.received = 0

    def export(self, spans):
        self.gate.wait(30)
        self.received += len(spans)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        self.gate.set()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


def _pipeline(registry, queue: int):
    from servescope.instrumentation.export import CountingSpanExporter
    from servescope.instrumentation.metrics import MetricSet
    from servescope.instrumentation.slo import SLOSpec

    metrics = MetricSet(registry, SLOSpec.default())
    inner = _GatedExporter()
    processor = CountingBatchSpanProcessor(CountingSpanExporter(inner, metrics), metrics,
                                           max_queue_size=queue, max_export_batch_size=16)
    provider = TracerProvider()
    provider.add_span_processor(processor)
    return provider, processor, inner


def test_drops_are_counted_exactly_with_concurrent_producers(registry):
    """Spans ended from many threads into a stalled pipeline: every one is exported or counted
    as dropped, exactly. Runs through the installed SDK's TracerProvider, so an SDK upgrade
    that stopped handing spans to the processor, or dropped any uncounted, fails it."""
    provider, processor, inner = _pipeline(registry, queue=64)
    assert not isinstance(processor, BatchSpanProcessor)  # our queue: no SDK internals
    tracer = provider.get_tracer("t")
    per_thread, threads = 500, 4

    def produce() -> None:
        for _ in range(per_thread):
            tracer.start_span("s").end()

    workers = [threading.Thread(target=produce) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert processor.queue_length() <= 64
    full = _sample(registry, f"{cat.SPANS_DROPPED.name}_total", reason="queue_full")
    assert full > 0
    inner.gate.set()
    assert processor.force_flush(10_000)
    exported = _sample(registry, f"{cat.SPANS_EXPORTED.name}_total")
    assert exported == inner.received
    assert exported + full == per_thread * threads
    processor.shutdown(5_000)


def test_spans_left_at_shutdown_are_counted(registry):
    provider, processor, _inner = _pipeline(registry, queue=128)
    tracer = provider.get_tracer("t")
    for _ in range(100):
        tracer.start_span("s").end()
    t0 = time.monotonic()
    processor.shutdown(timeout_millis=300)  # the exporter is stalled: the deadline holds
    assert time.monotonic() - t0 < 0.3 + slack_s(0.5)
    left = _sample(registry, f"{cat.SPANS_DROPPED.name}_total", reason="shutdown")
    processor.join(5)  # the stalled export (released by the exporter's shutdown) lands
    assert left > 0
    assert _accounted(registry) == 100
    before = _sample(registry, f"{cat.SPANS_DROPPED.name}_total", reason="shutdown")
    tracer.start_span("after").end()  # after shutdown: counted, never queued
    assert _accounted(registry) == 101
    # ... and counted as what it is: dropped because the pipeline shut down, not a full queue
    assert _sample(registry, f"{cat.SPANS_DROPPED.name}_total", reason="shutdown") == before + 1


def test_unsampled_spans_are_neither_queued_nor_counted(registry):
    from opentelemetry.sdk.trace.sampling import ALWAYS_OFF

    provider, processor, _inner = _pipeline(registry, queue=8)
    provider = TracerProvider(sampler=ALWAYS_OFF)
    provider.add_span_processor(processor)
    for _ in range(50):
        provider.get_tracer("t").start_span("s").end()
    assert processor.queue_length() == 0 and _accounted(registry) == 0
    processor.shutdown(1_000)


def test_bsp_settings_follow_the_otel_variables(monkeypatch):
    from servescope.instrumentation.export import bsp_settings

    assert bsp_settings() == {"max_queue_size": 8192, "max_export_batch_size": 512,
                              "schedule_delay_s": 5.0, "export_timeout_s": 30.0}
    monkeypatch.setenv("OTEL_BSP_MAX_QUEUE_SIZE", "100")
    monkeypatch.setenv("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "512")
    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "nonsense")
    s = bsp_settings()
    assert (s["max_queue_size"], s["max_export_batch_size"], s["schedule_delay_s"]) == (
        100, 100, 5.0)
    assert bsp_settings(max_queue_size=10)["max_queue_size"] == 10


class _FailingExporter:
    """Refuses every batch until told to accept (a receiver that is down, then back)."""

    def __init__(self) -> None:
        self.accept = False
        self.calls = 0
        self.received = 0

    def export(self, spans):
        self.calls += 1
        if not self.accept:
            return SpanExportResult.FAILURE
        self.received += len(spans)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        pass

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


def test_a_failing_receiver_gets_one_batch_per_backoff_not_the_whole_queue(registry,
                                                                          monkeypatch):
    """After a failed export the export thread waits before the next batch (no redacting,
    encoding and sending batch after batch to a receiver known to fail), even while the
    queue keeps reaching a batch's size; a flush cuts the wait short, and once the receiver
    is back every queued span gets through and is counted."""
    from servescope.instrumentation import export
    from servescope.instrumentation.export import CountingSpanExporter
    from servescope.instrumentation.metrics import MetricSet
    from servescope.instrumentation.slo import SLOSpec

    monkeypatch.setattr(export, "BACKOFF_S", (30.0, 30.0))
    metrics = MetricSet(registry, SLOSpec.default())
    inner = _FailingExporter()
    processor = CountingBatchSpanProcessor(CountingSpanExporter(inner, metrics), metrics,
                                           max_queue_size=256, max_export_batch_size=16)
    provider = TracerProvider()
    provider.add_span_processor(processor)
    tracer = provider.get_tracer("t")
    for _ in range(16):  # a full batch wakes the export thread: its export fails
        tracer.start_span("s").end()
    poll_until(lambda: inner.calls, what="the first export", timeout_s=10, interval_s=0.01)
    assert inner.calls == 1
    for _ in range(100):  # six more full batches, each waking the thread: it keeps waiting
        tracer.start_span("s").end()
    # the thread has seen the wake-ups once it cleared the event; it went back to its backoff
    poll_until(lambda: not processor._wake.is_set(), what="the export thread woke")
    assert inner.calls == 1
    inner.accept = True
    t0 = time.monotonic()
    assert processor.force_flush(10_000)  # cut short: no 30 s wait
    assert time.monotonic() - t0 < 10
    failed = _sample(registry, f"{cat.SPANS_DROPPED.name}_total", reason="export_failed")
    assert failed == 16 and inner.received == 100
    assert _sample(registry, f"{cat.SPANS_EXPORTED.name}_total") == 100
    processor.shutdown(1_000)
