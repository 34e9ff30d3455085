"""The hooks-off room: telemetry that records nothing, and the exporter that keeps nothing."""

from servescope.instrumentation import (
    FinishReason,
    NullSpanExporter,
    NullTelemetry,
    setup_telemetry,
)


def test_the_null_exporter_takes_every_span_and_reports_success(registry):
    exporter = NullSpanExporter()
    setup = setup_telemetry(registry=registry, span_exporter=exporter, sample_ratio=1.0)
    for i in range(3):
        setup.telemetry.request(f"r{i}").finish(FinishReason.STOP)
    setup.shutdown(5)
    assert exporter.exported >= 3  # a request span each (and their phase spans)
    exported = registry.get_sample_value("servescope_telemetry_spans_exported_total")
    assert exported == exporter.exported  # every batch succeeded: none counted as dropped


def test_hooks_off_settle_the_terminal_state_and_make_no_series():
    telemetry = NullTelemetry()
    recorder = telemetry.request("r1")
    recorder.admitted()
    recorder.delivered(4)
    assert recorder.finish(FinishReason.DEADLINE) is True
    assert recorder.finish(FinishReason.STOP) is False
    assert recorder.finish_reason is FinishReason.DEADLINE
    samples = [s for m in telemetry.registry.collect() for s in m.samples
               if s.name.startswith("servescope_requests")]
    assert all(s.value == 0 for s in samples)
