"""The PromQL vocabulary: le matchers, flavor translation, unavailable markers."""

from __future__ import annotations

import re

import pytest

from servescope.instrumentation import catalog as cat
from servescope.promql.flavor import LLAMACPP, SERVESCOPE, SGLANG, TGI, VLLM, missing_in
from servescope.promql.query import Query, le_matcher, le_regex, series_in


def _as_go_regex(promql_literal: str) -> re.Pattern[str]:
    """What Prometheus matches: the string literal unescaped, anchored."""
    return re.compile("^(?:" + promql_literal.encode().decode("unicode_escape") + ")$")


@pytest.mark.parametrize(("threshold", "matches", "rejects"), [
    (2.0, ["2", "2.0"], ["20", "2.05", "12.0", "2.5"]),
    (0.1, ["0.1"], ["0.15", "0x1", "0.10"]),
    (1.5, ["1.5"], ["1x5", "15"]),
])
def test_le_regex_matches_every_spelling_of_the_boundary(threshold, matches, rejects) -> None:
    pattern = _as_go_regex(le_regex(threshold))
    assert all(pattern.match(m) for m in matches)
    assert not any(pattern.match(r) for r in rejects)
    assert le_matcher(threshold) == f'le=~"{le_regex(threshold)}"'


def test_selectors_apply_only_the_labels_a_family_has() -> None:
    q = Query({"job": '=~"$job"', "model": '=~"$model"'}, "5m", SERVESCOPE)
    assert q.level(cat.WAITING) == 'sum (servescope_requests_waiting{job=~"$job"})'
    assert q.rate(cat.TOKENS, stage="discarded") == (
        'sum (rate(servescope_tokens_total{job=~"$job",model=~"$model",stage="discarded"}[5m]))')
    with pytest.raises(ValueError, match="gauge"):
        q.rate(cat.WAITING)
    with pytest.raises(ValueError, match="not a histogram"):
        q.quantile(0.5, cat.ARRIVED)


def test_vllm_translation() -> None:
    q = Query({"job": '=~"$job"', "model": '=~"$model"'}, "5m", VLLM)
    assert q.rate(cat.FINISHED, "finish_reason", finish_reason="client_cancel") == (
        'sum by (finished_reason) (rate(vllm:request_success_total'
        '{job=~"$job",model_name=~"$model",finished_reason="abort"}[5m]))')
    assert 'finished_reason=~"error"' in q.rate(cat.FINISHED, finish_reason='=~"deadline|error"')
    assert q.threshold(cat.SERVER_TTFT, 2.0) == 1.0  # vLLM has 1.0 and 2.5, not 2.0
    assert q.threshold(cat.TPOT, 0.1) == 0.1
    assert q.rate(cat.TOKENS, stage="committed").startswith(
        "sum (rate(vllm:generation_tokens_total{")
    assert q.kv_usage("instance") == (
        'avg by (instance) (vllm:kv_cache_usage_perc{job=~"$job",model_name=~"$model"})')


def test_missing_metrics_become_markers_that_survive_composition() -> None:
    q = Query(window="5m", flavor=VLLM.engine_only())
    expr = f"({q.rate(cat.GOOD)} / {q.rate(cat.ATTEMPTED)})"
    assert [name for _, name in missing_in(expr)] == [cat.GOOD.sample_name,
                                                       cat.ATTEMPTED.sample_name]
    assert missing_in(q.rate(cat.FINISHED, finish_reason="deadline"))
    assert missing_in(q.quantile(0.9, cat.BATCH_SIZE))
    assert series_in(expr) == set()  # a marker is never a selector
    assert not missing_in(Query(window="5m").rate(cat.GOOD))


def test_engines_without_a_reason_label_count_reasons_in_counters_of_their_own() -> None:
    q = Query({"job": '=~"$job"', "model": '=~"$model"'}, "5m", SGLANG.engine_only())
    assert q.rate(cat.FINISHED, "instance", finish_reason="client_cancel") == (
        'sum by (instance) (rate(sglang:num_aborted_requests_total'
        '{job=~"$job",model_name=~"$model"}[5m]))')
    assert missing_in(q.rate(cat.FINISHED, finish_reason="error"))  # SGLang counts no errors
    assert missing_in(q.rate(cat.FINISHED, finish_reason='!~"stop|length"'))
    assert missing_in(q.rate(cat.FINISHED, cat.FINISH_REASON))  # no breakdown to give
    tgi = Query({"job": '=~"$job"', "model": '=~"$model"'}, "5m", TGI.engine_only())
    # both reasons of the regex that TGI counts live in one counter: a fixed matcher on err
    assert tgi.rate(cat.FINISHED, finish_reason='=~"deadline|error"') == (
        'sum (rate(tgi_request_failure{job=~"$job",err=~"generation|dropped|incomplete"}[5m]))')


def test_tgi_has_no_model_label_and_no_total_suffix() -> None:
    q = Query({"job": '=~"$job"', "model": '=~"$model"'}, "5m", TGI.engine_only())
    assert q.rate(cat.REJECTED, "job", "model") == (
        'sum by (job) (rate(tgi_request_failure{job=~"$job",err="overloaded"}[5m]))')
    assert q.rate(cat.TOKENS, stage="committed") == (
        'sum (rate(tgi_request_generated_tokens_sum{job=~"$job"}[5m]))')
    assert q.mean(cat.FORWARD_TIME, cat.PHASE).startswith(
        "(sum by (method) (rate(tgi_batch_forward_duration_sum{")
    assert missing_in(q.rate(cat.REJECTED, cat.REASON))  # TGI's reason is a fixed err value


def test_a_breakdown_by_a_label_the_engine_lacks_is_unavailable() -> None:
    q = Query(window="5m", flavor=VLLM.engine_only())
    assert missing_in(q.quantile(0.95, cat.E2E, cat.FINISH_REASON)) == [
        ("vllm", "gen_ai_server_request_duration_seconds[by finish_reason]")]
    assert not missing_in(q.rate(cat.FINISHED, cat.FINISH_REASON))


def test_the_gateway_fills_what_the_engine_lacks_and_nothing_else() -> None:
    scope = {"job": '=~"$job"', "instance": '=~"$instance"', "model": '=~"$model"'}
    q = Query(scope, "5m", VLLM, '=~"$gateway"')
    # the engine's own metric keeps what it has, in its own names and scope
    assert q.rate(cat.FINISHED, finish_reason="stop").startswith(
        'sum (rate(vllm:request_success_total{job=~"$job",instance=~"$instance",')
    assert q.rate(cat.TOKENS, stage="committed").startswith("sum (rate(vllm:generation_tokens")
    # what it lacks comes from the gateway's catalog series, on the gateway's job only, in
    # catalog label names (vLLM renames finish_reason; the gateway does not)
    assert q.rate(cat.FINISHED, "instance", finish_reason="slow_consumer") == (
        'sum by (instance) (rate(servescope_requests_finished_total'
        '{job=~"$gateway",finish_reason="slow_consumer"}[5m]))')
    assert q.rate(cat.TOKENS, stage="delivered") == (
        'sum (rate(servescope_tokens_total{job=~"$gateway",stage="delivered"}[5m]))')
    assert q.quantile(0.95, cat.E2E, cat.FINISH_REASON).startswith(
        "histogram_quantile(0.95, sum by (finish_reason, le) "
        '(rate(gen_ai_server_request_duration_seconds_bucket{job=~"$gateway"}[5m])))')
    assert q.level(cat.DELIVERY_ACKED) == (
        'sum (servescope_transport_delivery_acknowledged{job=~"$gateway"})')
    # the scheduler's own series no gateway can see stay unavailable
    assert missing_in(q.quantile(0.9, cat.BATCH_SIZE))
    assert missing_in(q.level(cat.KV_BLOCKS_USED))
    # rules (no dashboard variable) read the gateway's default job
    rules = Query(window="5m", flavor=LLAMACPP)
    assert 'job=~"servescope-gateway"' in rules.rate(cat.STREAM_TTFT, suffix="_count")
    assert rules.rate(cat.TOKENS, stage="committed") == (
        "sum (rate(llamacpp:tokens_predicted_total{}[5m]))")


FLEET = {"job": '=~"$job"', "instance": '=~"$instance"', cat.MODEL: '=~"$model"'}


def test_fleet_rates_read_the_recording_and_instance_rates_the_raw_series() -> None:
    q = Query(FLEET, flavor=SERVESCOPE, recorded=True)
    assert q.quantile(0.95, cat.SERVER_TTFT) == (
        "histogram_quantile(0.95, sum by (le) (servescope_job:"
        'gen_ai_server_time_to_first_token_seconds_bucket:rate1m{job=~"$job",model=~"$model"}))')
    assert "rate(gen_ai_server_time_to_first_token_seconds_bucket{job=~\"$job\",instance=~" in \
        q.quantile(0.95, cat.SERVER_TTFT, "instance")
    # the fleet heatmap reads the recording; the per-replica one the raw buckets (exemplars)
    assert q.buckets(cat.SERVER_TTFT) == (
        "sum by (le) (servescope_job:gen_ai_server_time_to_first_token_seconds_bucket:rate1m"
        '{job=~"$job",model=~"$model"})')
    assert q.replica_buckets(cat.SERVER_TTFT) == (
        "sum by (le) (rate(gen_ai_server_time_to_first_token_seconds_bucket{job=~\"$job\","
        'instance=~"$instance",model=~"$model"}[$__rate_interval]))')
    # a family no panel sums is not recorded
    assert "rate(servescope_preemptions_total{" in q.rate(cat.PREEMPTIONS)
    # an increase over the range: the recorded rates summed over it (a ratio's term only)
    ranged = q.with_window("$__range")
    assert ranged.rate(cat.GOOD, fn="increase") == (
        'sum (sum_over_time(servescope_job:servescope_goodput_requests:rate1m{job=~"$job",'
        'model=~"$model"}[$__range]))')
    # other windows (the rules') never read recordings
    assert "rate(servescope_goodput_requests_total{" in \
        Query(FLEET, "5m", SERVESCOPE, recorded=True).rate(cat.GOOD)


def test_recorded_reads_translate_like_raw_ones() -> None:
    q = Query(FLEET, flavor=TGI, recorded=True)
    # TGI counts errors in a counter of its own, told apart by a fixed matcher
    assert q.rate(cat.FINISHED, finish_reason="error") == \
        'sum (servescope_job:tgi_request_failure:rate1m{job=~"$job",' \
        'err=~"generation|dropped|incomplete"})'
    v = Query(FLEET, flavor=VLLM, recorded=True)
    assert 'finished_reason="abort"' in v.rate(cat.FINISHED, finish_reason="client_cancel")
    # llama.cpp has no TPOT: unavailable alone, the gateway's own (raw, unrecorded) behind one
    alone = Query(FLEET, flavor=LLAMACPP.engine_only(), recorded=True)
    assert missing_in(alone.quantile(0.5, cat.TPOT))
    gateway = Query(FLEET, flavor=LLAMACPP, recorded=True).quantile(0.5, cat.TPOT)
    assert 'gen_ai_server_time_per_output_token_seconds_bucket{job=~"servescope-gateway"}' in \
        gateway
