"""Exporter faults: the receiver down, slow, or flapping.

The recorder-driven workload never waits on the exporter, the export queue stays bounded,
every span is accounted for (exported, or dropped and counted), and shutdown keeps its
deadline. Rates are compared in benchmarks/redaction.py; here only blocking is checked: a hook
that waited on the exporter would take at least the receiver's stall.
"""

from __future__ import annotations

import time

import pytest
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
from otlp_receiver import OtlpReceiver, free_port

from servescope.instrumentation import FinishReason, StepReport, setup_telemetry
from servescope.instrumentation import catalog as cat
from servescope.redaction import RedactionStage

SPANS_PER_REQUEST = 5  # request + queue, prefill, decode, stream
STALL_S = 1.5


def _workload(setup, n: int, queue_sizes: list[int] | None = None) -> float:
    """Run ``n`` requests through the recorder; return the slowest request's hook time."""
    tel = setup.telemetry
    queue = _queue(setup)
    slowest = 0.0
    for i in range(n):
        t0 = time.perf_counter()
        rec = tel.request(f"req-{i}", prompt_tokens=8)
        rec.admitted()
        rec.scheduled()
        rec.prefill_done()
        tel.step(StepReport(advanced=((rec, 4, 0),)))
        rec.delivered(4)
        rec.finish(FinishReason.STOP)
        slowest = max(slowest, time.perf_counter() - t0)
        if queue_sizes is not None:
            queue_sizes.append(len(queue))
    return slowest


def _batch(setup):
    # The SDK's batch processor and its queue (internals: tests only).
    (processor,) = setup.tracer_provider._active_span_processor._span_processors
    return processor._batch_processor


def _queue(setup):
    return _batch(setup)._queue


def _sample(registry, name, **labels) -> float:
    return registry.get_sample_value(name, labels) or 0.0


def _accounted(registry) -> float:
    return (_sample(registry, f"{cat.SPANS_EXPORTED.name}_total")
            + _sample(registry, f"{cat.SPANS_DROPPED.name}_total", reason="queue_full")
            + _sample(registry, f"{cat.SPANS_DROPPED.name}_total", reason="export_failed"))


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
        assert slowest < STALL_S / 3, "a hook waited on the exporter"
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
    assert slowest < 0.5, "a hook waited on the exporter"
    assert max(sizes) <= 64
    t0 = time.monotonic()
    setup.shutdown(timeout_s=2.0)
    assert time.monotonic() - t0 < 2.0 + 1.0
    _batch(setup)._worker_thread.join(5)  # its last failed export lands before we count
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
        assert slowest < 0.5
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
        assert time.monotonic() - t0 < deadline + 0.5


