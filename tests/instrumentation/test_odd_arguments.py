"""A developer passes what a client sent straight to the hooks: a list as the model, a string
count, free text as a reason, NaN or ``time.time()`` as a time. The hooks never raise, keep
what they can read, count the rest as hook failures, and the exposition stays valid (no NaN
or negative sum, no free text as a label value)."""

from __future__ import annotations

import math
import time

import pytest
from prometheus_client.openmetrics.exposition import generate_latest
from prometheus_client.openmetrics.parser import text_string_to_metric_families

from servescope.instrumentation import FinishReason, StepReport, Telemetry


def _telemetry(registry) -> Telemetry:
    return Telemetry(registry=registry, model="m")


def _hook_errors(registry, hook: str) -> float:
    return registry.get_sample_value("servescope_telemetry_hook_errors_total",
                                     {"hook": hook}) or 0.0


@pytest.mark.parametrize("arguments", [
    {"model": ["fake-1"]}, {"model": {"name": "m"}}, {"prompt_tokens": None},
    {"prompt_tokens": "5"}, {"prompt_tokens": [1]}, {"prompt_tokens": 10 ** 400},
    {"prompt_tokens": -3}, {"priority": 3}, {"carrier": "traceparent"}, {"operation": None},
])
def test_request_never_raises_on_a_client_s_values(registry, arguments) -> None:
    tel = _telemetry(registry)
    rec = tel.request("r1", **arguments)
    assert rec.finish(FinishReason.STOP)
    assert rec.summary() is not None and rec.summary().prompt_tokens == 0
    arrived = {(s.labels["model"], s.labels["priority"]): s.value
               for m in registry.collect() for s in m.samples
               if s.name == "servescope_requests_arrived_total"}
    assert arrived == {("other" if "model" in arguments else "m",
                        "other" if "priority" in arguments else "default"): 1.0}
    assert _hook_errors(registry, "request_arguments") == 1


def test_integers_of_other_types_are_counts(registry) -> None:
    """numpy's integers (a tensor's shape) are counts, not errors."""
    np = pytest.importorskip("numpy")
    tel = _telemetry(registry)
    rec = tel.request("r1", prompt_tokens=np.int64(7))
    rec.finish(FinishReason.STOP)
    assert rec.summary().prompt_tokens == 7
    assert _hook_errors(registry, "request_arguments") == 0


def test_free_text_never_becomes_a_label_value(registry) -> None:
    tel = _telemetry(registry)
    tel.request("r1").rejected("card 4111111111111111 declined for bob@example.com")
    tel.request("r2").rejected("queue_full")
    tel.step(StepReport(forward_seconds={"prefill for bob@example.com": 0.1, "decode": 0.2}))
    text = generate_latest(registry).decode()
    # (in a label value, not in the digits of a measured duration: "2.8048999411112163e-05")
    labels = {v for family in text_string_to_metric_families(text)
              for sample in family.samples for v in sample.labels.values()}
    assert not [v for v in labels if "4111" in v or "bob@" in v]
    assert "4111111111111111" not in text and "bob@" not in text
    assert registry.get_sample_value("servescope_requests_rejected_total",
                                     {"model": "m", "reason": "other"}) == 1
    assert registry.get_sample_value("servescope_requests_rejected_total",
                                     {"model": "m", "reason": "queue_full"}) == 1
    assert 'phase="other"' in text and 'phase="decode"' in text


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, "soon"])
def test_a_time_that_is_no_reading_of_the_clock_is_replaced_and_counted(registry, bad) -> None:
    tel = _telemetry(registry)
    rec = tel.request("r1")
    rec.scheduled(now=bad)
    rec.tokens_committed(2, now=bad)
    rec.written(2, now=bad)
    rec.delivered(2)
    rec.finish(FinishReason.STOP, now=bad)
    _assert_valid(registry)
    assert _hook_errors(registry, "now") >= 3


def test_wall_clock_times_for_a_monotonic_clock_are_refused(registry) -> None:
    """time.time() passed where the telemetry reads time.monotonic: decades, not a latency."""
    tel = _telemetry(registry)
    rec = tel.request("r1")
    rec.finish(FinishReason.STOP, now=time.time())
    assert rec.summary().e2e < 60
    assert _hook_errors(registry, "now") == 1


def test_times_out_of_order_never_make_a_sum_negative(registry) -> None:
    """A time read before the arrival (another thread's clock reading, a step's stamp)
    records a zero duration; OpenMetrics parsers refuse a negative histogram sum."""
    tel = _telemetry(registry)
    arrival = time.monotonic()
    rec = tel.request("r1", arrival=arrival)
    rec.scheduled(now=arrival - 5)
    rec.tokens_committed(1, now=arrival - 4)
    rec.finish(FinishReason.STOP, now=arrival - 3)
    tel.step(StepReport(forward_seconds={"prefill": -1.0, "decode": math.nan}))
    _assert_valid(registry)
    assert rec.summary().e2e == 0.0 and rec.summary().ttft == 0.0
    assert _hook_errors(registry, "forward_seconds") == 2


def test_a_count_too_large_for_a_counter_is_refused(registry) -> None:
    tel = _telemetry(registry)
    rec = tel.request("r1")
    rec.written(10 ** 400)
    rec.delivered(10 ** 400)
    rec.written(3)
    rec.delivered(3)
    assert rec.finish(FinishReason.STOP)
    assert rec.summary().delivered_tokens == 3
    assert registry.get_sample_value("servescope_tokens_total",
                                     {"model": "m", "stage": "delivered"}) == 3
    assert _hook_errors(registry, "written") == 1 and _hook_errors(registry, "delivered") == 1


def _assert_valid(registry) -> None:
    """The OpenMetrics exposition parses, and no sum is NaN or negative."""
    text = generate_latest(registry).decode()
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name.endswith("_sum"):
                assert sample.value >= 0, sample


@pytest.mark.parametrize(("accept", "content_type"), [
    ("application/openmetrics-text; version=1.0.0", "application/openmetrics-text"),
    ("application/openmetrics-text", "application/openmetrics-text"),
    ("application/openmetrics-text; version=9.0.0", "text/plain"),
    ("application/openmetrics-text; version=banana", "text/plain"),
    ("text/plain", "text/plain"), (None, "text/plain"),
])
def test_a_scrape_gets_a_format_it_asked_for_or_plain_text(registry, accept, content_type):
    """A version prometheus_client does not write is not echoed over a 1.0 body."""
    from servescope.instrumentation.metrics import render

    _telemetry(registry).request("r1").finish(FinishReason.STOP)
    body, got = render(registry, accept)
    assert got.startswith(content_type)
    assert ("version=9.0.0" in got) is False
    assert body.rstrip().endswith(b"# EOF") == content_type.startswith("application/openmetrics")


@pytest.mark.parametrize("bad", [math.inf, math.nan, 2 ** 70, 3.7, -5, "3", None])
def test_a_commit_that_is_no_count_is_refused_and_counted(registry, bad) -> None:
    """A counter fed infinity, 2**70 or a fraction keeps it for the life of the process: the
    step skips that entry (the step's other entries still count) and counts a hook error."""
    tel = _telemetry(registry)
    rec, other = tel.request("r1"), tel.request("r2")
    tel.step(StepReport(advanced=[(rec, bad, bad), (other, 4, 0)]))
    rec.tokens_committed(bad, bad)
    rec.written(bad)
    rec.delivered(bad)
    other.written(4)
    other.delivered(4)
    rec.finish(FinishReason.STOP)
    other.finish(FinishReason.STOP)
    tokens = {s.labels["stage"]: s.value for m in registry.collect() for s in m.samples
              if s.name == "servescope_tokens_total"}
    assert tokens.get("committed") == 4 and tokens.get("delivered") == 4
    assert all(math.isfinite(v) and v == int(v) for v in tokens.values())
    summary = rec.summary()
    assert (summary.committed_tokens, summary.proposed_tokens, summary.written_tokens,
            summary.delivered_tokens) == (0, 0, 0, 0)
    assert _hook_errors(registry, "step") == 2
    # (a count below one is nothing written, as before: only what is no count is an error)
    refused = 0 if isinstance(bad, int) and bad <= 0 else 1
    assert _hook_errors(registry, "written") == refused
    assert _hook_errors(registry, "delivered") == refused


def _spans(registry):
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from servescope.instrumentation import setup_telemetry

    exporter = InMemorySpanExporter()
    setup = setup_telemetry(model="m", registry=registry, span_exporter=exporter,
                            sample_ratio=1.0, log_redaction=False)
    return setup, exporter


@pytest.mark.parametrize("kind", [object(), -5, math.nan, ["a", 1],
                                  "upstream failed for bob@example.com"])
def test_an_error_type_that_is_no_short_name_is_other(registry, kind) -> None:
    """An object as ``error.type`` failed the JSON encoding of the whole export batch, and
    every other request's spans with it."""
    setup, exporter = _spans(registry)
    tel = setup.telemetry
    bad, good = tel.request("r1"), tel.request("r2")
    bad.error_type(kind)
    good.error_type("upstream_malformed")
    bad.finish(FinishReason.ERROR)
    good.finish(FinishReason.ERROR)
    assert setup.force_flush(5.0)
    types = sorted(s.attributes.get("error.type") for s in exporter.get_finished_spans()
                   if "error.type" in (s.attributes or {}))
    assert types == ["other", "upstream_malformed"]
    assert _hook_errors(registry, "error_type") == 1
    setup.shutdown(2.0)


@pytest.mark.parametrize("operation", ["chat alice.smith@example.com", "x" * 5000,
                                       "sk-proj-A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6"])
def test_an_operation_that_is_no_short_name_is_other(registry, operation) -> None:
    """The operation names the span and ``gen_ai.operation.name``, which no scan reads."""
    setup, exporter = _spans(registry)
    rec = setup.telemetry.request("r1", operation=operation)
    rec.finish(FinishReason.STOP)
    assert setup.force_flush(5.0)
    request_spans = [s for s in exporter.get_finished_spans()
                     if "gen_ai.operation.name" in (s.attributes or {})]
    assert request_spans
    for span in request_spans:
        assert span.attributes["gen_ai.operation.name"] == "other"
        assert span.name.startswith("other ")
    setup.shutdown(2.0)
