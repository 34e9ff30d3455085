import json
import os
import subprocess
import sys
import textwrap
import threading
import time

import pytest
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult
from prometheus_client import CollectorRegistry
from timing import slack_s

from servescope.instrumentation import FinishReason, setup_telemetry
from servescope.instrumentation.labels import DeclaredLabels
from servescope.instrumentation.setup import JsonLinesSpanExporter


def finish_one(setup, rid="r1"):
    rec = setup.telemetry.request(rid)
    rec.finish(FinishReason.STOP)


def test_embedded_default_writes_json_lines(tmp_path, registry, monkeypatch):
    monkeypatch.delenv("OTEL_TRACES_EXPORTER", raising=False)
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_ENDPOINT", raising=False)
    path = tmp_path / "traces.jsonl"
    setup = setup_telemetry(registry=registry, trace_file=path)
    assert setup.traces_destination == f"the file {path}"
    finish_one(setup)
    setup.shutdown(5)
    spans = [json.loads(line) for line in path.read_text().splitlines()]
    assert [s["attributes"]["servescope.request.id"] for s in spans] == ["r1"]
    assert registry.get_sample_value("servescope_telemetry_spans_exported_total") == 1.0
    assert path.stat().st_mode & 0o777 == 0o600  # the owner's alone, whatever the umask


def test_environment_selects_the_exporter(monkeypatch, registry):
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "none")
    assert "nowhere" in setup_telemetry(registry=registry).traces_destination
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "otlp")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4317")
    from prometheus_client import CollectorRegistry
    setup = setup_telemetry(registry=CollectorRegistry())
    assert setup.traces_destination == "OTLP/gRPC at http://127.0.0.1:4317"
    setup.shutdown(1)


def test_sampling_ratio_from_the_environment(monkeypatch, registry, tmp_path):
    monkeypatch.setenv("OTEL_TRACES_SAMPLER", "parentbased_traceidratio")
    monkeypatch.setenv("OTEL_TRACES_SAMPLER_ARG", "0")
    setup = setup_telemetry(registry=registry, trace_file=tmp_path / "t.jsonl")
    finish_one(setup)
    setup.shutdown(5)
    assert not (tmp_path / "t.jsonl").exists()


class FailingExporter(SpanExporter):
    def export(self, spans):
        return SpanExportResult.FAILURE

    def shutdown(self):
        pass


class HangingExporter(SpanExporter):
    def __init__(self):
        self.release = threading.Event()

    def export(self, spans):
        self.release.wait(30)
        return SpanExportResult.SUCCESS

    def shutdown(self):
        self.release.set()


def test_failed_exports_are_counted_as_dropped(registry):
    setup = setup_telemetry(registry=registry, span_exporter=FailingExporter())
    finish_one(setup)
    setup.force_flush(5)
    assert registry.get_sample_value("servescope_telemetry_spans_dropped_total",
                                     {"reason": "export_failed"}) == 1.0


def test_full_queue_drops_are_counted_and_shutdown_keeps_its_deadline(registry):
    exporter = HangingExporter()
    setup = setup_telemetry(registry=registry, span_exporter=exporter, max_queue_size=8)
    t0 = time.monotonic()
    for i in range(200):  # the export thread is stuck: the queue fills, requests go on
        finish_one(setup, f"r{i}")
    assert time.monotonic() - t0 < slack_s(5)  # recording never waited on the exporter
    dropped = registry.get_sample_value("servescope_telemetry_spans_dropped_total",
                                        {"reason": "queue_full"})
    # at most one batch in the stuck export call and one full queue got through
    assert dropped is not None and dropped >= 200 - 2 * 8
    t0 = time.monotonic()
    setup.shutdown(timeout_s=1.0)
    assert time.monotonic() - t0 < 1.0 + slack_s(2)
    exporter.release.set()


def test_json_lines_exporter_reports_failure_on_unwritable_path(tmp_path):
    exporter = JsonLinesSpanExporter(tmp_path / "missing-dir" / "t.jsonl")
    assert exporter.export([]) is SpanExportResult.FAILURE


def test_set_up_builds_the_label_and_echo_checks_before_the_first_request():
    """Built on first use, the label check compiled its pattern database inside the first
    model list a gateway learnt, and the echo inside the first error answer (half a second
    each on the server's event loop). A fresh interpreter: the databases are cached per
    process."""
    script = textwrap.dedent("""
        from servescope.instrumentation import setup_telemetry
        from servescope.instrumentation.setup import redacted_echo
        from servescope.redaction import detectors

        setup = setup_telemetry(redaction=False, log_redaction=False)
        def compiled(*args, **kwargs):
            raise AssertionError("a pattern database compiled after set-up")
        detectors.make_prefilter = compiled
        known = setup.telemetry.declare_models({"llama-3-8b", "lora-alice@example.com"})
        assert known == {"llama-3-8b"}, known
        assert "alice" not in redacted_echo("lora-alice@example.com")
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "ok"


def test_a_log_format_naming_the_trace_id_holds_through_set_up():
    """Set-up's own warnings (an unset hash key) used to be logged before the log filter that
    adds ``trace_id`` was on: a format naming it failed on them ("Logging error")."""
    script = textwrap.dedent("""
        import logging
        logging.basicConfig(format="%(levelname)s trace=%(trace_id)s %(name)s: %(message)s")
        from servescope.instrumentation import setup_telemetry
        setup_telemetry()
        logging.getLogger("app").warning("after")
    """)
    env = {k: v for k, v in os.environ.items()
           if k != "SERVESCOPE_REDACTION_HASH_KEY"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Logging error" not in done.stderr, done.stderr[-2000:]
    assert "trace= servescope.redaction: SERVESCOPE_REDACTION_HASH_KEY is not set" in done.stderr
    assert "trace= app: after" in done.stderr


@pytest.mark.parametrize(("arguments", "field"), [
    ({"sample_ratio": 2}, "sample_ratio"), ({"sample_ratio": "x"}, "sample_ratio"),
    ({"sample_ratio": float("nan")}, "sample_ratio"), ({"exemplar_ratio": -0.1}, "exemplar_ratio"),
    ({"max_queue_size": 0}, "max_queue_size"), ({"max_queue_size": "a"}, "max_queue_size"),
    ({"model": None}, "model"), ({"model": ""}, "model"), ({"pool": 5}, "pool"),
    ({"declared_labels": "x"}, "declared_labels"), ({"slo": "slo.yaml"}, "slo"),
    ({"trace_file": "/nonexistent/dir/x.jsonl"}, "trace_file"),
    ({"trace_file": "/tmp"}, "trace_file"),
])
def test_a_bad_setting_is_refused_naming_the_argument(arguments, field) -> None:
    with pytest.raises(ValueError) as refused:
        setup_telemetry(registry=CollectorRegistry(), log_redaction=False, **arguments)
    assert str(refused.value).startswith(f"{field}: ")


@pytest.mark.parametrize(("arguments", "field"), [
    ({"model": "bob@example.com"}, "model"), ({"pool": "carol@example.com"}, "pool"),
    ({"declared_labels": DeclaredLabels(models=("m", "m:lora-erin@example.com"))},
     "declared_labels.models"),
])
def test_a_configured_label_value_with_personal_data_is_refused(arguments, field) -> None:
    """A configured name is a label value on every series: Prometheus redacts nothing. The
    message names what was found, not the value."""
    with pytest.raises(ValueError) as refused:
        setup_telemetry(registry=CollectorRegistry(), log_redaction=False, **arguments)
    message = str(refused.value)
    assert message.startswith(f"{field}: ") and "email" in message
    assert "example.com" not in message


def test_an_exporter_that_fails_to_stop_is_said_not_raised(caplog) -> None:
    class Boom(SpanExporter):
        def export(self, spans):
            return SpanExportResult.SUCCESS

        def shutdown(self):
            raise RuntimeError("boom")

    raised: list[BaseException] = []
    previous, threading.excepthook = threading.excepthook, lambda args: raised.append(
        args.exc_value)
    try:
        setup = setup_telemetry(registry=CollectorRegistry(), span_exporter=Boom(),
                                log_redaction=False)
        setup.telemetry.request("r1").finish(FinishReason.STOP)
        setup.shutdown(2.0)
    finally:
        threading.excepthook = previous
    assert raised == []
    assert "failed to shut down: RuntimeError" in caplog.text
