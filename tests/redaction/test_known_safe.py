"""Values servescope itself sets are known-safe by the catalog: the default policy passes them
without a scan, and every other attribute of a servescope span (the request id and the
client-chosen model name, and ``error.type``, a string the hook's caller chooses) is scanned."""

from __future__ import annotations

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from walk import PAUSE, walk_request

from servescope.instrumentation import Telemetry
from servescope.instrumentation import catalog as cat
from servescope.instrumentation.tracing import ATTR
from servescope.redaction import RedactingSpanExporter, Redactor
from servescope.redaction.prefilter import Plan, Prefilter


def _recorded_spans():
    sink = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(sink))
    tel = Telemetry(tracer_provider=provider)
    walk_request(tel, "req-1", prompt_tokens=12, discarded=1, deliveries=(3, PAUSE))
    return sink.get_finished_spans()


def test_catalog_names_attributes_the_instrumentation_sets() -> None:
    names = {v for k, v in vars(ATTR).items() if k.isupper()}
    assert names >= cat.KNOWN_SAFE_SPAN_ATTRIBUTES
    assert names - cat.KNOWN_SAFE_SPAN_ATTRIBUTES == {ATTR.REQUEST_ID, ATTR.MODEL,
                                                      ATTR.ERROR_TYPE}


class _Spy:
    """The redactor's prefilter, noting every text it is asked to plan: each scan of a
    string starts there (a compiled redactor's methods cannot be patched)."""

    def __init__(self, inner: Prefilter) -> None:
        self.inner = inner
        self.scanned: list[str] = []

    def plan(self, text: str) -> Plan:
        self.scanned.append(text)
        return self.inner.plan(text)

    def plan_signals(self, text: str) -> tuple[Plan, int]:
        self.scanned.append(text)
        return self.inner.plan_signals(text)


def _spied(redactor: Redactor) -> list[str]:
    spy = _Spy(redactor._prefilter)
    redactor._prefilter = spy
    return spy.scanned


def test_default_policy_passes_every_known_safe_key_unscanned() -> None:
    redactor = Redactor(hash_key=b"k")
    scanned = _spied(redactor)
    attrs = {key: "4111 1111 1111 1111" for key in cat.KNOWN_SAFE_SPAN_ATTRIBUTES}
    assert redactor.redact_attributes(attrs, {}) == attrs  # passed as set: never scanned
    assert "4111 1111 1111 1111" not in scanned  # (keys are checked once, values never)
    scanned.clear()
    assert redactor.redact_attributes(attrs, {}) == attrs
    assert scanned == []
    assert redactor.redact_attributes({ATTR.REQUEST_ID: "jane@example.com"}, {})[
        ATTR.REQUEST_ID].startswith("[email:")


def test_a_servescope_span_scans_only_its_request_id() -> None:
    spans = _recorded_spans()
    assert len(spans) >= 4
    redactor = Redactor(hash_key=b"k", known_models=["default"])  # the model it serves
    stage = RedactingSpanExporter(InMemorySpanExporter(), redactor)
    for span in spans:  # first pass: keys are classified (and checked) once
        stage.redact_span(span)
    redactor._clean.clear()  # forget values found clean, so a second pass scans them again
    scanned = _spied(redactor)
    for span in spans:
        clean = stage.redact_span(span)
        assert dict(clean.attributes) == dict(span.attributes)  # nothing in them to redact
    names = {s.name for s in spans}
    models = {s.attributes.get(ATTR.MODEL) for s in spans} - {None}
    assert set(scanned) <= ({"req-1"} | names | {e.name for s in spans for e in s.events}
                            | models)
