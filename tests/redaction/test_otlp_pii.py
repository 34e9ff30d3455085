"""PII planted in a real request's spans, resource and logs never reaches a real OTLP receiver.

The recorder and the transport-like HTTP span go through ``setup_telemetry(redaction=...)``
and the OTLP/gRPC exporter; logs go through the OTel logging handler with the redacting filter.
Assertions are on the bytes the receiver decoded.
"""

from __future__ import annotations

import dataclasses
import logging
from collections import Counter

import pytest
from opentelemetry.exporter.otlp.proto.grpc._log_exporter import OTLPLogExporter
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk._logs import LoggerProvider, LoggingHandler
from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
from opentelemetry.sdk.resources import Resource
from opentelemetry.trace import Status, StatusCode
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
from otlp_receiver import OtlpReceiver, attrs
from walk import walk_request

from servescope.instrumentation import FinishReason, setup_telemetry
from servescope.instrumentation import catalog as cat
from servescope.redaction import (
    ContentCapture,
    Policy,
    RedactingFilter,
    RedactingLogExporter,
    RedactionStage,
    Redactor,
)

GITHUB = "ghp_" + "Q7kd93LmZx0pW2vR8sT4uY6aB1cD3eF5gH7j"
PLANTED = {
    # value: (kind, where)
    "owner.person@example.org": ("email", "resource"),
    "203.0.113.40": ("ipv4", "resource"),
    "user:carol@example.net": ("email", "request id (request span and 4 phase spans)"),
    "Bearer Zk29fjs0Qm3LxP7vTb5Nw8Yc": ("blocked_key", "authorization header"),
    "eve@example.com": ("blocked_key", "user.email attribute"),
    "203.0.113.7": ("ipv4", "x-forwarded-for"),
    "2001:db8::7": ("ipv6", "x-forwarded-for"),
    "4111 1111 1111 1111": ("credit_card", "prompt (GenAI content)"),
    "DE89 3704 0044 0532 0130 00": ("iban", "prompt (GenAI content)"),
    "+1 415 555 2671": ("phone", "custom attribute"),
    "Zx9fQ2mLp0Rt": ("secret_assignment", "custom attribute"),
    "123-45-6789": ("us_ssn", "span event"),
    GITHUB: ("github_token", "status description"),
    "dave@example.com": ("email", "log line"),
    "198.51.100.23": ("ipv4", "log line"),
    "sk-proj-abcdefghijklmnopqrstuvwxyz0123": ("api_key", "exception in a log line"),
}
# How many values of each kind the span stage redacts (resource counted once) ...
SPAN_COUNTS = Counter({"email": 1 + 5, "ipv4": 1 + 1, "blocked_key": 2, "ipv6": 1,
                       "credit_card": 1, "iban": 1, "phone": 1, "secret_assignment": 1,
                       "us_ssn": 1, "github_token": 1})
# ... and the log stages (the filter on records, the exporter on the provider's resource).
# The key appears twice in the record: in the exception message and in the traceback's
# source line that raised it.
LOG_COUNTS = Counter({"email": 1 + 1, "ipv4": 1 + 1, "api_key": 2})


def _run_request(telemetry, tracer) -> str:
    """A request as a transport would record it: an HTTP span, then the recorder's spans."""
    with tracer.start_as_current_span("POST /v1/chat/completions") as http:
        http.set_attributes({
            "http.request.method": "POST",
            "http.request.header.authorization": "Bearer Zk29fjs0Qm3LxP7vTb5Nw8Yc",
            "user.email": "eve@example.com",
            "http.request.header.x-forwarded-for": "203.0.113.7, 2001:db8::7",
            "gen_ai.input.messages": '[{"role": "user", "content": "my card is '
                                     '4111 1111 1111 1111 and my IBAN DE89 3704 0044 0532 '
                                     '0130 00"}]',
            "app.contact": "call +1 415 555 2671",
            "app.config": "api_key=Zx9fQ2mLp0Rt",
        })
        http.add_event("gen_ai.user.message", {"note": "SSN 123-45-6789"})
        carrier: dict[str, str] = {}
        TraceContextTextMapPropagator().inject(carrier)
        walk_request(telemetry, "user:carol@example.net", prompt_tokens=12, carrier=carrier)
        log = logging.getLogger("servescope.test.server")
        log.info("user %s logged in from %s", "dave@example.com", "198.51.100.23")
        try:
            raise RuntimeError("upstream refused key sk-proj-abcdefghijklmnopqrstuvwxyz0123")
        except RuntimeError:
            log.exception("call failed")
        http.set_status(Status(StatusCode.ERROR, f"upstream rejected token {GITHUB}"))
        return format(http.get_span_context().trace_id, "032x")


@pytest.fixture
def receiver():
    with OtlpReceiver() as r:
        yield r


def _logging_pipeline(receiver, on_redacted):
    redactor = Redactor(Policy.default(), hash_key=b"test-key")
    provider = LoggerProvider(resource=Resource.create({"service.name": "pii-test"}))
    exporter = OTLPLogExporter(endpoint=receiver.endpoint, insecure=True, timeout=5)
    provider.add_log_record_processor(BatchLogRecordProcessor(
        RedactingLogExporter(exporter, redactor, on_redacted=on_redacted)))
    with pytest.warns(DeprecationWarning):
        handler = LoggingHandler(logger_provider=provider)
    handler.addFilter(RedactingFilter(redactor, on_redacted=on_redacted))
    log = logging.getLogger("servescope.test.server")
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    return provider, handler, log


def test_no_planted_value_reaches_the_receiver(receiver, registry, monkeypatch):
    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES",
                       "deployment.owner=owner.person@example.org,host.ip=203.0.113.40")
    policy = dataclasses.replace(Policy.default(), content_capture=ContentCapture.SPAN_AND_EVENT)
    setup = setup_telemetry(
        registry=registry, service_name="pii-test",
        span_exporter=OTLPSpanExporter(endpoint=receiver.endpoint, insecure=True, timeout=5),
        redaction=RedactionStage(policy, hash_key=b"test-key"))
    counter = setup.telemetry.metrics
    provider, handler, log = _logging_pipeline(
        receiver, lambda kind, n: counter.child(cat.REDACTIONS, kind=kind).inc(n))
    try:
        trace_id = _run_request(setup.telemetry, setup.tracer_provider.get_tracer("transport"))
        assert setup.force_flush(10) and provider.force_flush(10_000)
    finally:
        log.removeHandler(handler)
        setup.shutdown(5)
        provider.shutdown()

    payload = receiver.all_bytes()
    assert receiver.trace_bytes and receiver.log_bytes
    for value, (kind, where) in PLANTED.items():
        for form in {value, value.replace(" ", "")}:
            assert form.encode() not in payload, f"{kind} planted in {where} was exported"

    spans = list(receiver.spans())
    names = sorted(s.name for _, s in spans)
    assert names == sorted(["POST /v1/chat/completions", "text_completion default", "queue",
                            "prefill", "decode", "stream"])
    resource = spans[0][0]
    assert resource["deployment.owner"].startswith("[email:")
    assert resource["host.ip"] == "[REDACTED:ipv4]"

    summed: Counter[str] = Counter()
    for _, span in spans:
        a = attrs(span.attributes)
        for key, n in a.items():
            if key.startswith("servescope.redaction.count."):
                summed[key.rsplit(".", 1)[1]] += n
        assert "user.email" not in a and "http.request.header.authorization" not in a
    assert summed + Counter({"email": 1, "ipv4": 1}) == SPAN_COUNTS  # + the resource's

    # equal values stay correlatable: the request id hashes the same on all five spans
    ids = {attrs(s.attributes).get("servescope.request.id") for _, s in spans} - {None}
    assert len(ids) == 1 and next(iter(ids)).startswith("user:[email:")

    records = [r for _, r in receiver.log_records()]
    assert len(records) == 2
    assert {r.trace_id.hex() for r in records} == {trace_id}
    assert "[REDACTED:api_key]" in records[1].body.string_value

    metric = {kind: registry.get_sample_value(f"{cat.REDACTIONS.name}_total", {"kind": kind})
              for kind in SPAN_COUNTS + LOG_COUNTS}
    assert metric == {k: float(n) for k, n in (SPAN_COUNTS + LOG_COUNTS).items()}


def test_content_capture_is_off_by_default(receiver, registry, monkeypatch):
    monkeypatch.delenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", raising=False)
    setup = setup_telemetry(
        registry=registry,
        span_exporter=OTLPSpanExporter(endpoint=receiver.endpoint, insecure=True, timeout=5),
        redaction=RedactionStage(Policy.default(), hash_key=b"k"))
    tracer = setup.tracer_provider.get_tracer("transport")
    with tracer.start_as_current_span("chat") as span:
        span.set_attribute("gen_ai.input.messages", "hello, the weather in Paris?")
        span.set_attribute("gen_ai.output.messages", "sunny")
    setup.force_flush(10)
    setup.shutdown(5)
    (_, exported), = receiver.spans()
    a = attrs(exported.attributes)
    assert "gen_ai.input.messages" not in a and "gen_ai.output.messages" not in a
    assert a["servescope.redaction.count.content"] == 2
    assert b"Paris" not in receiver.all_bytes()


def test_otlp_http_chosen_by_the_environment_is_redacted_too(registry, monkeypatch):
    with OtlpReceiver(http=True) as receiver:
        monkeypatch.setenv("OTEL_TRACES_EXPORTER", "otlp")
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                           f"{receiver.http_endpoint}/v1/traces")
        setup = setup_telemetry(registry=registry, redaction=RedactionStage(hash_key=b"k"))
        assert setup.traces_destination.startswith("OTLP/HTTP")
        rec = setup.telemetry.request("mail:frank@example.com")
        rec.finish(FinishReason.STOP)
        assert setup.force_flush(10)
        setup.shutdown(5)
    assert receiver.trace_bytes and b"frank@example.com" not in receiver.all_bytes()
    (_, span), = receiver.spans()
    assert attrs(span.attributes)["servescope.redaction.count.email"] == 1
