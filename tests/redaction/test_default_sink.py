"""The default trace sink: with no ``OTEL_*`` set nothing is exported (and that is said once);
a local file is opt-in, bounded and rotated; ``OTEL_TRACES_SAMPLER`` still decides; and
``install_global=True`` puts other instrumentation's spans through the same redaction."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
from pathlib import Path

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from prometheus_client import CollectorRegistry

from servescope.instrumentation import FinishReason, setup_telemetry
from servescope.instrumentation import setup as setup_mod

_OTEL = ("OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT",
         "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_TRACES_SAMPLER", "OTEL_TRACES_SAMPLER_ARG")


def _no_otel(monkeypatch) -> None:
    for name in _OTEL:
        monkeypatch.delenv(name, raising=False)


def test_no_otel_settings_export_nothing_and_say_so_once(tmp_path, monkeypatch, caplog):
    _no_otel(monkeypatch)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(setup_mod, "_said_nowhere", threading.Event())
    with caplog.at_level(logging.WARNING, logger="servescope.setup"):
        first = setup_telemetry(registry=CollectorRegistry())
        second = setup_telemetry(registry=CollectorRegistry())
    for setup in (first, second):
        assert setup.traces_destination.startswith("nowhere")
        assert setup.span_processor is None
        setup.telemetry.request("r1").finish(FinishReason.STOP)
        setup.shutdown(2)
    said = [r for r in caplog.records if "not exported" in r.getMessage()]
    assert len(said) == 1
    assert list(tmp_path.iterdir()) == []  # nothing written to the working directory


def _span_provider(exporter) -> TracerProvider:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider


def test_the_opt_in_file_is_bounded_and_rotated(tmp_path) -> None:
    path = tmp_path / "spans.jsonl"
    exporter = setup_mod.JsonLinesSpanExporter(path, max_bytes=4000, backups=2)
    tracer = _span_provider(exporter).get_tracer("t")
    for i in range(200):
        with tracer.start_as_current_span(f"span-{i}"):
            pass
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["spans.jsonl", "spans.jsonl.1", "spans.jsonl.2"]
    assert all((tmp_path / f).stat().st_size <= 4000 for f in files)
    last = json.loads(path.read_text().splitlines()[-1])
    assert last["name"] == "span-199"  # the newest spans are kept, the oldest rotated away


def test_the_sampler_setting_still_decides(tmp_path, monkeypatch) -> None:
    _no_otel(monkeypatch)
    monkeypatch.setenv("OTEL_TRACES_SAMPLER", "always_off")
    setup = setup_telemetry(registry=CollectorRegistry(), trace_file=tmp_path / "t.jsonl")
    setup.telemetry.request("r1").finish(FinishReason.STOP)
    setup.shutdown(5)
    assert not (tmp_path / "t.jsonl").exists()


_THIRD_PARTY = r"""
import sys
from opentelemetry import trace
from servescope.instrumentation import setup_telemetry

setup = setup_telemetry(trace_file=sys.argv[1], install_global=sys.argv[2] == "1")
# What httpx / FastAPI / OpenAI SDK instrumentation does: a tracer from the global provider.
tracer = trace.get_tracer("opentelemetry.instrumentation.httpx")
with tracer.start_as_current_span("POST", kind=trace.SpanKind.CLIENT) as span:
    span.set_attributes({
        "http.request.method": "POST",
        "url.full": "https://bob:hunter2hunter2!@api.example.com/v1/chat?to=bob%40example.com",
        "http.request.header.authorization": "Bearer sk-proj-Abcdefghijklmnopqrstuvwx0123",
        "tenant.id": "acme-bank-emea",
    })
setup.shutdown(5)
"""


def _run_third_party(tmp_path: Path, install_global: bool) -> str:
    path = tmp_path / f"spans-{int(install_global)}.jsonl"
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    subprocess.run([sys.executable, "-P", "-c", _THIRD_PARTY, str(path),
                    "1" if install_global else "0"], env=env, check=True, timeout=120,
                   capture_output=True)
    return path.read_text() if path.exists() else ""


def test_install_global_redacts_third_party_spans(tmp_path) -> None:
    spans = _run_third_party(tmp_path, install_global=True)
    (span,) = [json.loads(line) for line in spans.splitlines()]
    assert span["name"] == "POST"
    assert span["attributes"]["http.request.method"] == "POST"
    for secret in ("hunter2", "bob%40example.com", "sk-proj-", "acme-bank-emea"):
        assert secret not in spans, secret
    assert span["attributes"]["servescope.redaction.count"] >= 3
    # without it, the global provider is OpenTelemetry's no-op one: nothing reaches our file
    assert _run_third_party(tmp_path, install_global=False) == ""


def test_a_file_line_is_the_sdks_own_json_of_the_span(tmp_path) -> None:
    """The file's compact lines hold exactly what ``ReadableSpan.to_json`` says, for spans
    with a parent, attributes, events, links, a status description and a resource."""
    from opentelemetry import trace as trace_api
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    path = tmp_path / "spans.jsonl"
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "svc", "n": 3}))
    provider.add_span_processor(SimpleSpanProcessor(setup_mod.JsonLinesSpanExporter(path)))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("t")
    with tracer.start_as_current_span("parent") as parent:
        link = trace_api.Link(parent.get_span_context(), {"why": "follows"})
        with tracer.start_as_current_span("child", links=[link],
                                          attributes={"a": 1, "b": [1.5, 2.5]}) as child:
            child.add_event("first_token", {"tokens": 1})
            child.set_status(trace_api.Status(trace_api.StatusCode.ERROR, "the upstream reset"))
    provider.shutdown()
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines == [json.loads(s.to_json()) for s in memory.get_finished_spans()]
    assert lines[0]["parent_id"] and lines[0]["events"] and lines[0]["links"]
