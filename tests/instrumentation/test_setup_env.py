"""The standard ``OTEL_*`` variables reach the SDK's own parsing: sampler and its argument,
``parentbased_*``, batch processor settings, exporter and protocol; a value the SDK cannot read
is logged and its default used."""

from __future__ import annotations

import json
import logging

import pytest
from prometheus_client import CollectorRegistry

from servescope.instrumentation import FinishReason, setup_telemetry

OTEL_VARS = ("OTEL_TRACES_SAMPLER", "OTEL_TRACES_SAMPLER_ARG", "OTEL_TRACES_EXPORTER",
             "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
             "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
             "OTEL_BSP_MAX_QUEUE_SIZE", "OTEL_BSP_SCHEDULE_DELAY",
             "OTEL_BSP_MAX_EXPORT_BATCH_SIZE")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in OTEL_VARS:
        monkeypatch.delenv(name, raising=False)


def run(tmp_path, n: int = 20, carrier: dict[str, str] | None = None, **kw) -> list[dict]:
    path = tmp_path / f"spans-{len(list(tmp_path.iterdir()))}.jsonl"  # a fresh file per run
    path.touch()
    setup = setup_telemetry(registry=CollectorRegistry(), trace_file=path, **kw)
    for i in range(n):
        setup.telemetry.request(f"r{i}", carrier=carrier).finish(FinishReason.STOP)
    setup.shutdown(5)
    return [json.loads(line) for line in path.read_text().splitlines()]


def request_spans(spans: list[dict]) -> list[dict]:
    return [s for s in spans if "servescope.request.id" in s["attributes"]]


def parent_carrier(sampled: bool) -> dict[str, str]:
    flags = "01" if sampled else "00"
    return {"traceparent": f"00-{'ab' * 16}-{'cd' * 8}-{flags}"}


def test_always_off_exports_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("OTEL_TRACES_SAMPLER", "always_off")
    assert run(tmp_path) == []


def test_always_off_wins_over_a_sampled_parent(tmp_path, monkeypatch):
    monkeypatch.setenv("OTEL_TRACES_SAMPLER", "always_off")
    assert run(tmp_path, carrier=parent_carrier(True)) == []


def test_traceidratio_with_its_argument(tmp_path, monkeypatch):
    monkeypatch.setenv("OTEL_TRACES_SAMPLER", "traceidratio")
    monkeypatch.setenv("OTEL_TRACES_SAMPLER_ARG", "0")
    assert run(tmp_path) == []
    monkeypatch.setenv("OTEL_TRACES_SAMPLER_ARG", "1")
    assert len(request_spans(run(tmp_path, n=5))) == 5


def test_traceidratio_samples_about_its_share(tmp_path, monkeypatch):
    monkeypatch.setenv("OTEL_TRACES_SAMPLER", "traceidratio")
    monkeypatch.setenv("OTEL_TRACES_SAMPLER_ARG", "0.25")
    kept = len(request_spans(run(tmp_path, n=400)))
    assert 50 <= kept <= 150  # binomial(400, 0.25): mean 100, sd 8.7


def test_plain_traceidratio_ignores_the_parent_decision(tmp_path, monkeypatch):
    monkeypatch.setenv("OTEL_TRACES_SAMPLER", "traceidratio")
    monkeypatch.setenv("OTEL_TRACES_SAMPLER_ARG", "1")
    assert len(request_spans(run(tmp_path, n=3, carrier=parent_carrier(False)))) == 3


def test_parentbased_always_on_follows_the_parent(tmp_path, monkeypatch):
    monkeypatch.setenv("OTEL_TRACES_SAMPLER", "parentbased_always_on")
    assert len(request_spans(run(tmp_path, n=3))) == 3  # roots: sampled
    assert run(tmp_path, n=3, carrier=parent_carrier(False)) == []
    spans = request_spans(run(tmp_path, n=2, carrier=parent_carrier(True)))
    assert len(spans) == 2 and all(s["context"]["trace_id"] == "0x" + "ab" * 16 for s in spans)


def test_parentbased_always_off_drops_roots(tmp_path, monkeypatch):
    monkeypatch.setenv("OTEL_TRACES_SAMPLER", "parentbased_always_off")
    assert run(tmp_path, n=3) == []
    assert len(request_spans(run(tmp_path, n=2, carrier=parent_carrier(True)))) == 2


def test_an_invalid_sampler_is_logged_and_the_default_used(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("OTEL_TRACES_SAMPLER", "sometimes_maybe")
    with caplog.at_level(logging.WARNING):
        spans = request_spans(run(tmp_path, n=3))
    assert len(spans) == 3  # the default, parentbased_always_on
    assert any("sometimes_maybe" in r.getMessage() for r in caplog.records)


def test_an_invalid_sampler_argument_is_logged_and_the_default_used(tmp_path, monkeypatch,
                                                                    caplog):
    monkeypatch.setenv("OTEL_TRACES_SAMPLER", "traceidratio")
    monkeypatch.setenv("OTEL_TRACES_SAMPLER_ARG", "lots")
    with caplog.at_level(logging.WARNING):
        assert len(request_spans(run(tmp_path, n=3))) == 3  # rate 1.0
    assert any("TRACES_SAMPLER_ARG" in r.getMessage() for r in caplog.records)


def test_an_explicit_ratio_wins_over_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("OTEL_TRACES_SAMPLER", "always_on")
    assert run(tmp_path, sample_ratio=0.0) == []


def test_batch_processor_settings_come_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("OTEL_BSP_MAX_QUEUE_SIZE", "64")
    monkeypatch.setenv("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "16")
    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "1234")
    setup = setup_telemetry(registry=CollectorRegistry(), trace_file=tmp_path / "t.jsonl")
    processor = setup.span_processor
    assert processor is not None
    assert (processor.max_queue_size, processor.max_export_batch_size,
            processor.schedule_delay_s) == (64, 16, 1.234)
    setup.shutdown(1)


def test_exporter_names_and_protocols(monkeypatch, tmp_path):
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "otlp")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
    setup = setup_telemetry(registry=CollectorRegistry())
    assert setup.traces_destination == "OTLP/HTTP at http://127.0.0.1:4318"
    setup.shutdown(1)
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "console")
    setup = setup_telemetry(registry=CollectorRegistry())
    assert setup.traces_destination.startswith("the console")
    setup.shutdown(1)


def test_an_unknown_exporter_is_logged_and_the_file_used(monkeypatch, tmp_path, caplog):
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "carrier_pigeon")
    with caplog.at_level(logging.WARNING):
        setup = setup_telemetry(registry=CollectorRegistry(), trace_file=tmp_path / "t.jsonl")
    assert setup.traces_destination == f"the file {tmp_path / 't.jsonl'}"
    assert any("carrier_pigeon" in r.getMessage() for r in caplog.records)
    setup.shutdown(1)


def test_the_destination_shown_holds_no_credentials(monkeypatch):
    """The start-up line prints it to stderr: the endpoint's login and query are cut."""
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "otlp")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                       "http://otlpuser:Hunt3rQuokka2x@127.0.0.1:4318/v1/traces?api_key=sk-x")
    setup = setup_telemetry(registry=CollectorRegistry())
    assert setup.traces_destination == "OTLP/HTTP at http://…@127.0.0.1:4318/v1/traces?…"
    setup.shutdown(1)


def test_an_unusable_exporter_is_said_once_and_not_contradicted(monkeypatch, caplog) -> None:
    """One line: the name cannot be used, and where spans go instead; not the "no
    OTEL_TRACES_EXPORTER is set" line on top of it, which an unusable one contradicts."""
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "nonsense")
    with caplog.at_level(logging.WARNING, logger="servescope.setup"):
        setup = setup_telemetry(registry=CollectorRegistry())
    setup.shutdown(5)
    said = [r.getMessage() for r in caplog.records if "spans go" in r.getMessage()]
    assert len(said) == 1 and "'nonsense' cannot be used" in said[0], said
    assert said[0].endswith("spans go nowhere")
