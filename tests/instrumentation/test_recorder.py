import importlib.util
import re
from pathlib import Path

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF
from prometheus_client.openmetrics.exposition import generate_latest

from servescope.instrumentation import FinishReason, StepReport, Telemetry
from servescope.instrumentation import catalog as cat
from servescope.instrumentation.catalog import Kind, MetricSpec
from servescope.instrumentation.labels import DeclaredLabels, LabelGuard, UnknownLabelError

ROOT = Path(__file__).resolve().parents[2]


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def make(registry, provider=None, **kw):
    clock = Clock()
    return Telemetry(registry=registry, tracer_provider=provider, model="m", clock=clock,
                     **kw), clock


def sample(registry, name, **labels):
    return registry.get_sample_value(name, labels)


def test_seed_telemetry_example_through_the_real_recorder():
    spec = importlib.util.spec_from_file_location("telemetry_example",
                                                  ROOT / "examples" / "telemetry_example.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = module.run()
    assert result["finish_total"] == {"stop": 2, "client_cancel": 1}
    assert result["finish_total_from_metrics"] == {"stop": 2.0, "client_cancel": 1.0}
    assert result["ttft_samples"] == [2.0, 5.0]
    assert result["tpot_samples"] == [1.0, 3.0]
    assert result["goodput_rps"] == pytest.approx(0.1)
    assert result["request_id_in_metric_labels"] is False
    assert result["request_id_on_every_span"] is True
    assert result["spans"] == 10  # 3 request spans + queue/prefill/decode phases (none for c)


def test_exact_exposition_of_one_request(registry):
    tel, clock = make(registry)
    rec = tel.request("r1", prompt_tokens=7)
    rec.admitted()
    clock.now = 0.5
    rec.scheduled()
    clock.now = 1.0
    rec.prefill_done()
    tel.step(StepReport(advanced=[(rec, 2, 5)]))
    rec.delivered(1)
    clock.now = 1.125
    tel.step(StepReport(advanced=[(rec, 1, 0)]))
    assert rec.finish(FinishReason.LENGTH)
    text = generate_latest(registry).decode()
    expected = [
        'servescope_requests_arrived_total{model="m",priority="default"} 1.0',
        'servescope_requests_admitted_total{model="m"} 1.0',
        'servescope_requests_finished_total{finish_reason="length",model="m"}'
        ' 1.0',
        'servescope_requests_in_flight{model="m"} 0.0',
        'servescope_tokens_total{model="m",stage="prompt"} 7.0',
        'servescope_tokens_total{model="m",stage="proposed"} 5.0',
        'servescope_tokens_total{model="m",stage="committed"} 3.0',
        'servescope_tokens_total{model="m",stage="delivered"} 1.0',
        'servescope_tokens_total{model="m",stage="discarded"} 2.0',
        'servescope_goodput_attempted_requests_total{model="m"} 1.0',
        'servescope_goodput_requests_total{model="m"} 1.0',
        'gen_ai_server_time_to_first_token_seconds_sum{model="m",priority="default"} 1.0',
        'gen_ai_server_time_per_output_token_seconds_sum{model="m"} 0.0625',
        'servescope_request_queue_time_seconds_sum{model="m"} 0.5',
        'servescope_request_prefill_time_seconds_sum{model="m"} 0.5',
        'servescope_request_decode_time_seconds_sum{model="m"} 0.125',
        'gen_ai_server_request_duration_seconds_count{model="m"} 1.0',
        'servescope_scheduler_batch_size_count{pool="default"} 2.0',
    ]
    lines = set(text.splitlines())
    for line in expected:
        assert line in lines, line


def test_first_finish_wins_and_later_signals_are_counted_noops(registry):
    tel, _ = make(registry)
    rec = tel.request("r1")
    assert rec.finish(FinishReason.DEADLINE) is True
    assert rec.finish(FinishReason.CLIENT_CANCEL) is False
    assert rec.finish(FinishReason.ERROR) is False
    assert rec.finish_reason is FinishReason.DEADLINE
    assert sample(registry, "servescope_requests_finished_total", model="m",
                  finish_reason="deadline") == 1.0
    assert sample(registry, "servescope_requests_finished_total", model="m",
                  finish_reason="client_cancel") is None
    assert sample(registry, "servescope_terminal_signals_ignored_total",
                  signal="client_cancel") == 1.0
    assert rec.summary().ignored_signals == (FinishReason.CLIENT_CANCEL, FinishReason.ERROR)


def test_rejection_is_a_terminal_state_with_a_reason(registry):
    tel, _ = make(registry)
    rec = tel.request("r1")
    assert rec.rejected("queue_full") is True
    assert rec.finish(FinishReason.STOP) is False
    assert sample(registry, "servescope_requests_rejected_total", model="m",
                  reason="queue_full") == 1.0
    assert sample(registry, "servescope_goodput_attempted_requests_total", model="m") == 1.0


def test_cancellations_leave_the_denominator_when_the_spec_says_so(registry):
    from servescope.instrumentation import parse_slo
    slo = parse_slo("version: 1\nttft: {threshold_seconds: 1, target: 0.9}\n"
                    "tpot: {threshold_seconds: 1, target: 0.9}\n"
                    "goodput: {count_cancellations_in_attempted: false}\n")
    tel, _ = make(registry, slo=slo)
    tel.request("r1").finish(FinishReason.CLIENT_CANCEL)
    tel.request("r2").finish(FinishReason.ERROR)
    assert sample(registry, "servescope_goodput_attempted_requests_total", model="m") == 1.0


def test_hooks_never_raise_and_count_internal_errors(registry, monkeypatch):
    tel, _ = make(registry)
    rec = tel.request("r1")

    def broken(*_a, **_k):
        raise RuntimeError("exporter on fire")

    monkeypatch.setattr(tel.metrics, "child", broken)
    rec.admitted()
    rec.paused()
    tel.step(StepReport(advanced=[(rec, 1, 0)]))
    assert rec.finish(FinishReason.STOP) is True  # the state is committed even if metrics fail
    monkeypatch.undo()
    assert sample(registry, "servescope_telemetry_hook_errors_total", hook="admitted") == 1.0
    assert sample(registry, "servescope_telemetry_hook_errors_total", hook="finish") == 1.0
    assert sample(registry, "servescope_telemetry_hook_errors_total", hook="step") == 1.0


def test_undeclared_label_values_fold_into_other(registry):
    tel, _ = make(registry, declared_labels=DeclaredLabels(priorities=("gold", "silver")))
    for prio in ("gold", "silver", "bronze", "tin"):
        tel.request(f"r-{prio}", priority=prio).finish(FinishReason.STOP)
    assert sample(registry, "servescope_requests_arrived_total", model="m",
                  priority="other") == 2.0
    assert sample(registry, "servescope_telemetry_label_values_folded_total",
                  metric="servescope_requests_arrived", label="priority") == 2.0


def test_unknown_label_keys_are_refused_at_definition():
    bad = MetricSpec("servescope_bad", Kind.COUNTER, "x", "x", labels=("request_id",))
    with pytest.raises(UnknownLabelError, match="request_id"):
        LabelGuard.check_definition(bad)


def test_no_catalog_metric_can_carry_a_request_id():
    assert all("request_id" not in spec.labels and "id" not in spec.labels
               for spec in cat.CATALOG)


def test_exemplars_point_at_the_sampled_request_span(registry, tracing):
    tel, clock = make(registry, tracing.provider)
    rec = tel.request("r1")
    clock.now = 0.25
    tel.step(StepReport(advanced=[(rec, 1, 0)]))
    rec.finish(FinishReason.STOP)
    text = generate_latest(registry).decode()
    request_span = next(s for s in tracing.exporter.get_finished_spans() if s.parent is None)
    trace_id = format(request_span.context.trace_id, "032x")
    line = next(x for x in text.splitlines()
                if x.startswith("gen_ai_server_time_to_first_token_seconds_bucket")
                and "#" in x)
    assert f'trace_id="{trace_id}"' in line and 'le="0.4"' in line  # (0.25 s lands in (0.1, 0.4])
    assert request_span.attributes["servescope.exemplar"] is True


def test_unsampled_traces_never_become_exemplars(registry):
    exporter = InMemorySpanExporter()
    provider = TracerProvider(sampler=ALWAYS_OFF)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tel, clock = make(registry, provider)
    rec = tel.request("r1")
    clock.now = 0.25
    tel.step(StepReport(advanced=[(rec, 1, 0)]))
    rec.finish(FinishReason.STOP)
    assert "trace_id" not in generate_latest(registry).decode()
    assert exporter.get_finished_spans() == ()


def test_span_finish_reasons_are_the_terminal_state_unless_the_engine_gave_its_own(
        registry, tracing):
    """A proxy passes its engine's per-choice reasons; without them (or with none readable)
    the span records the terminal state, as it always did."""
    tel, _ = make(registry, tracing.provider)

    def recorded(reason, **engine):
        rec = tel.request(f"r{len(tracing.exporter.get_finished_spans())}")
        assert rec.finish(reason, **engine)
        (span,) = [s for s in tracing.exporter.get_finished_spans()
                   if s.attributes["servescope.request.id"] == rec.request_id]
        return tuple(span.attributes["gen_ai.response.finish_reasons"])

    assert recorded(FinishReason.LENGTH) == ("length",)
    assert recorded(FinishReason.STOP, engine_reasons=None) == ("stop",)
    assert recorded(FinishReason.STOP, engine_reasons={}) == ("stop",)
    assert recorded(FinishReason.LENGTH, engine_reasons={1: "length", 0: "stop"}) == (
        "stop", "length")
    # keys that do not sort: the terminal state, and the span still ends
    assert recorded(FinishReason.ERROR, engine_reasons={0: "stop", "1": "abort"}) == ("error",)


def test_engine_finish_reasons_are_capped_and_only_short_names_pass():
    """They come from an upstream and the attribute is exported as it is: at most 16 values
    of at most 32 characters, and anything that is not a short name records as ``other``."""
    from servescope.instrumentation.request_recorder import (
        MAX_ENGINE_REASON_CHARS,
        MAX_ENGINE_REASONS,
        engine_finish_reasons,
    )

    many = engine_finish_reasons({i: "stop" for i in range(100, 0, -1)})
    assert many == ("stop",) * MAX_ENGINE_REASONS == ("stop",) * 16
    long = "reason_of_a_future_engine_" + "x" * 40
    assert engine_finish_reasons({0: long}) == (long[:MAX_ENGINE_REASON_CHARS],)
    assert MAX_ENGINE_REASON_CHARS == 32
    odd = {0: "lora-alice@example.com", 1: "4111111111111111", 2: None, 3: "tool_calls",
           4: "Stop Now"}
    assert engine_finish_reasons(odd) == ("other", "other", "other", "tool_calls", "other")
    assert engine_finish_reasons(None) is None and engine_finish_reasons({}) is None


def test_spans_request_and_phases_with_w3c_parent(registry, tracing):
    tel, clock = make(registry, tracing.provider)
    parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    rec = tel.request("r9", carrier={"traceparent": parent}, prompt_tokens=3)
    clock.now = 1.0
    rec.scheduled()
    clock.now = 1.5
    rec.prefill_done()
    tel.step(StepReport(advanced=[(rec, 1, 0)]))
    rec.delivered(1)
    for _ in range(20):
        rec.paused()
        rec.resumed()
    clock.now = 3.0
    rec.finish(FinishReason.STOP)
    spans = {s.name: s for s in tracing.exporter.get_finished_spans()}
    assert set(spans) == {"text_completion m", "queue", "prefill", "decode", "stream"}
    root = spans["text_completion m"]
    assert format(root.context.trace_id, "032x") == "0af7651916cd43dd8448eb211c80319c"
    assert format(root.parent.span_id, "016x") == "b7ad6b7169203331"
    assert all(s.attributes["servescope.request.id"] == "r9" for s in spans.values())
    assert root.attributes["gen_ai.usage.input_tokens"] == 3
    assert root.attributes["servescope.finish_reason"] == "stop"
    assert len(root.events) == tel.max_pause_events
    assert root.attributes["servescope.backpressure.pause_events_dropped"] == 20 - 8
    assert (spans["queue"].end_time - spans["queue"].start_time) == pytest.approx(1e9, rel=1e-6)
    assert sample(registry, "servescope_backpressure_pauses_total", model="m") == 20.0


def test_in_flight_plus_finished_equals_arrivals(registry):
    tel, _ = make(registry)
    recs = [tel.request(f"r{i}") for i in range(10)]
    for rec in recs[:6]:
        rec.finish(FinishReason.STOP)
    finished = sum(s.value for m in registry.collect() for s in m.samples
                   if s.name == "servescope_requests_finished_total")
    in_flight = sample(registry, "servescope_requests_in_flight", model="m")
    assert (finished, in_flight) == (6.0, 4.0)


def test_step_reports_capacity_levels_and_deltas(registry):
    tel, _ = make(registry)
    tel.step(StepReport(kv_blocks_used=10, kv_blocks_total=64, running=3, waiting=2, paused=1,
                        buffered_tokens=40, prefix_queries=5, prefix_hits=3, preemptions=1))
    tel.step(StepReport(kv_blocks_used=12, prefix_queries=2, prefix_hits=2))
    got = {name: sample(registry, name, pool="default") for name in (
        "servescope_kv_blocks_used", "servescope_kv_blocks_total_capacity",
        "servescope_requests_running", "servescope_requests_waiting",
        "servescope_requests_paused", "servescope_stream_buffered_tokens",
        "servescope_prefix_cache_queries_total", "servescope_prefix_cache_hits_total",
        "servescope_preemptions_total")}
    assert got == {
        "servescope_kv_blocks_used": 12.0, "servescope_kv_blocks_total_capacity": 64.0,
        "servescope_requests_running": 3.0, "servescope_requests_waiting": 2.0,
        "servescope_requests_paused": 1.0, "servescope_stream_buffered_tokens": 40.0,
        "servescope_prefix_cache_queries_total": 7.0, "servescope_prefix_cache_hits_total": 5.0,
        "servescope_preemptions_total": 1.0}


def test_catalog_names_follow_prometheus_rules():
    for spec in cat.CATALOG:
        assert re.fullmatch(r"[a-z_][a-z0-9_]*", spec.name)
        assert spec.name.startswith(("servescope_", "gen_ai_"))
        assert not spec.name.endswith("_total")
        if spec.unit == "seconds":
            assert spec.name.endswith("_seconds")


def test_exemplar_ratio_marks_a_deterministic_subset_of_sampled_traces(registry, tracing):
    tel, clock = make(registry, tracing.provider, exemplar_ratio=0.25)
    recs = [tel.request(f"r{i}") for i in range(400)]
    clock.now = 0.1
    tel.step(StepReport(advanced=[(r, 1, 0) for r in recs]))
    for rec in recs:
        rec.finish(FinishReason.STOP)
    roots = [s for s in tracing.exporter.get_finished_spans() if s.parent is None]
    marked = {format(s.context.trace_id, "032x") for s in roots
              if s.attributes.get("servescope.exemplar")}
    assert 50 < len(marked) < 150  # about a quarter of 400
    assert all(r.trace_context is not None for r in recs)  # every sampled trace keeps its ids
    text = generate_latest(registry).decode()
    pointed = set(re.findall(r'trace_id="([0-9a-f]{32})"', text))
    assert pointed and pointed <= marked


def test_delivery_after_the_terminal_state_changes_nothing(registry):
    tel, _ = make(registry)
    rec = tel.request("r1")
    tel.step(StepReport(advanced=[(rec, 4, 0)]))
    rec.delivered(1)
    rec.finish(FinishReason.CLIENT_CANCEL)
    rec.delivered(3)  # a writer that raced the cancel
    assert rec.summary().delivered_tokens == 1 and rec.summary().discarded_tokens == 3
    assert sample(registry, "servescope_tokens_total", model="m", stage="delivered") == 1.0
    assert sample(registry, "servescope_tokens_total", model="m", stage="discarded") == 3.0


def test_late_step_reports_for_a_finished_request_count_nothing(registry):
    tel, _ = make(registry)
    rec = tel.request("r1")
    tel.step(StepReport(advanced=[(rec, 2, 3)]))
    tel.step(StepReport(advanced=[(rec, 0, 2)]))  # every draft rejected: proposed still counts
    rec.finish(FinishReason.ERROR)
    tel.step(StepReport(advanced=[(rec, 5, 5)]))
    assert sample(registry, "servescope_tokens_total", model="m", stage="committed") == 2.0
    assert sample(registry, "servescope_tokens_total", model="m", stage="proposed") == 5.0
    assert rec.summary().proposed_tokens == 5 and rec.summary().committed_tokens == 2


def test_step_reports_forward_time_and_tokens_by_phase_once_per_step(registry):
    tel, _ = make(registry)
    recs = [tel.request(f"r{i}") for i in range(3)]
    tel.step(StepReport(advanced=[(r, 1, 0) for r in recs],
                        forward_seconds={"prefill": 0.04, "decode": 0.01},
                        step_tokens={"prefill": 96, "decode": 3}))
    tel.step(StepReport(advanced=[(r, 2, 1) for r in recs],
                        forward_seconds={"decode": 0.02}, step_tokens={"decode": 6}))

    def hist(name, phase, what):
        return sample(registry, f"{name}_{what}", pool="default", phase=phase)

    forward, tokens = "servescope_step_forward_time_seconds", "servescope_step_tokens"
    # one observation per step and phase that ran, however many tokens the step made
    assert hist(forward, "prefill", "count") == 1.0 and hist(forward, "decode", "count") == 2.0
    assert hist(forward, "decode", "sum") == pytest.approx(0.03)
    assert hist(tokens, "prefill", "sum") == 96.0 and hist(tokens, "decode", "sum") == 9.0
    assert sample(registry, "servescope_scheduler_batch_size_count", pool="default") == 2.0
    assert sample(registry, f"{forward}_bucket", pool="default", phase="prefill",
                  le="0.05") == 1.0


def test_a_step_without_phases_observes_no_forward_time(registry):
    tel, _ = make(registry)
    tel.step(StepReport(kv_blocks_used=1))
    assert sample(registry, "servescope_step_forward_time_seconds_count", pool="default",
                  phase="decode") is None



def test_a_step_flushes_what_the_writer_moved_once(registry):
    """The writer flags its stream; the step that advances it flushes the written and
    delivered tokens once (not again at the next step or at finish)."""
    tel, _ = make(registry)
    rec = tel.request("s")
    tel.step(StepReport(advanced=[(rec, 5, 0)]))
    rec.written(5)
    rec.delivered(3)
    tel.step(StepReport(advanced=[(rec, 1, 0)]))
    assert sample(registry, "servescope_tokens_total", model="m", stage="written") == 5.0
    assert sample(registry, "servescope_tokens_total", model="m", stage="delivered") == 3.0
    tel.step(StepReport(advanced=[(rec, 0, 0)]))
    assert sample(registry, "servescope_tokens_total", model="m", stage="delivered") == 3.0
    rec.delivered(2)  # flagged again after the flush
    tel.step(StepReport(advanced=[(rec, 0, 0)]))
    assert sample(registry, "servescope_tokens_total", model="m", stage="delivered") == 5.0
    assert rec.finish(FinishReason.STOP) is True
    assert sample(registry, "servescope_tokens_total", model="m", stage="delivered") == 5.0
    assert sample(registry, "servescope_tokens_total", model="m", stage="written") == 5.0


def test_without_steps_each_finish_flushes_its_stream(registry):
    tel, _ = make(registry)
    for i in range(100):
        rec = tel.request(f"r{i}")
        rec.written(3)
        rec.delivered(2)
        rec.finish(FinishReason.STOP)
    assert sample(registry, "servescope_tokens_total", model="m", stage="written") == 300.0
    assert sample(registry, "servescope_tokens_total", model="m", stage="delivered") == 200.0


def test_a_step_counts_each_models_tokens_under_its_own_model(registry):
    """One step can hold several models' requests (a second model appearing after the first
    steps too): each model's counters get its own tokens, the batch size counts them all."""
    tel, _ = make(registry)
    a = tel.request("a")
    tel.step(StepReport(advanced=[(a, 2, 1)]))
    b = tel.request("b", model="other")
    a.delivered(2)
    b.delivered(1)  # written implied: flushed for b's model, not a's
    tel.step(StepReport(advanced=[(a, 1, 0), (b, 3, 2), (a, 0, 1)]))
    assert sample(registry, "servescope_tokens_total", model="m", stage="committed") == 3.0
    assert sample(registry, "servescope_tokens_total", model="m", stage="proposed") == 2.0
    assert sample(registry, "servescope_tokens_total", model="m", stage="delivered") == 2.0
    assert sample(registry, "servescope_tokens_total", model="other", stage="committed") == 3.0
    assert sample(registry, "servescope_tokens_total", model="other", stage="proposed") == 2.0
    assert sample(registry, "servescope_tokens_total", model="other", stage="delivered") == 1.0
    assert sample(registry, "servescope_tokens_total", model="other", stage="written") == 1.0
    assert sample(registry, "servescope_scheduler_batch_size_sum", pool="default") == 4.0
    assert sample(registry, "servescope_scheduler_batch_size_count", pool="default") == 2.0


def test_the_unacknowledged_peak_is_exact_between_steps_and_at_the_end(registry):
    """The peak of committed-but-undelivered tokens, however the deliveries and commits
    interleave: just before a delivery, or at the end when the last commits were never
    delivered."""
    tel, _ = make(registry)
    early = tel.request("early")  # the peak comes before a delivery
    tel.step(StepReport(advanced=[(early, 6, 0)]))
    tel.step(StepReport(advanced=[(early, 4, 0)]))
    early.delivered(10)
    tel.step(StepReport(advanced=[(early, 3, 0)]))
    early.delivered(3)
    early.finish(FinishReason.STOP)
    late = tel.request("late")  # the peak is what was left at the end
    tel.step(StepReport(advanced=[(late, 2, 0)]))
    late.delivered(2)
    tel.step(StepReport(advanced=[(late, 7, 0)]))
    late.finish(FinishReason.CLIENT_CANCEL)
    assert early.summary().peak_unacknowledged == 10
    assert late.summary().peak_unacknowledged == 7
    assert sample(registry, "servescope_stream_unacknowledged_peak_tokens_sum") == 17.0


def _hook_errors(registry, hook):
    return sample(registry, "servescope_telemetry_hook_errors_total", hook=hook) or 0.0


def test_a_reason_outside_the_set_settles_nothing_and_is_counted(registry):
    """finish(None) or finish("bogus") is misuse: it must not take the one terminal state
    (a later valid finish would then count the request twice) nor make a label value."""
    tel, _ = make(registry)
    rec = tel.request("r1")
    assert rec.finish(None) is False  # type: ignore[arg-type]
    assert rec.finish("bogus") is False  # type: ignore[arg-type]
    assert _hook_errors(registry, "finish") == 2
    assert rec.finish("stop") is True  # the value of a reason, as a string, will do
    assert rec.finish(FinishReason.LENGTH) is False
    assert sample(registry, "servescope_requests_in_flight", model="m") == 0
    assert sample(registry, "servescope_requests_finished_total", model="m",
                  finish_reason="stop") == 1
    assert sample(registry, "servescope_requests_finished_total", model="m",
                  finish_reason="None") is None


def test_misused_counts_and_times_never_run_a_series_backwards(registry):
    tel, clock = make(registry)
    clock.now = 50.0
    rec = tel.request("r1", prompt_tokens=-7)  # a negative count would read as a reset
    assert sample(registry, "servescope_tokens_total", model="m", stage="prompt") in (None, 0)
    rec.admitted()
    rec.finish(FinishReason.STOP)
    rec.admitted()  # after the terminal state: not counted again
    assert sample(registry, "servescope_requests_admitted_total", model="m") == 1
    late = tel.request("r2", arrival=-1e18)  # would stamp its span before 1970
    assert _hook_errors(registry, "arrival") == 1
    assert late.finish(FinishReason.STOP) is True
    assert sample(registry, "servescope_requests_in_flight", model="m") == 0


def test_a_malformed_entry_costs_its_step_only_itself(registry):
    """The README's step snippet copied with its "..." left in: that entry is counted as a
    hook failure and skipped; the step's valid entries still count (their tokens, TTFT)."""
    tel, _ = make(registry)
    rec = tel.request("r1")
    rec.admitted()
    tel.step(StepReport(advanced=[(rec, 2, 0, tel.clock()), ..., ("not a recorder", 1, 0)]))
    assert sample(registry, "servescope_telemetry_hook_errors_total", hook="step") == 2.0
    assert sample(registry, "servescope_tokens_total", model="m", stage="committed") == 2.0
    assert rec.finish(FinishReason.STOP) is True
    ttft = sample(registry, "gen_ai_server_time_to_first_token_seconds_count", model="m",
                  priority="default")
    assert ttft == 1.0
