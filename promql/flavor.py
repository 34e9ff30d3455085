"""Metric flavors: whose metric names the generated dashboards and rules query.

The ``servescope`` flavor queries the catalog as is. The ``vllm``, ``sglang`` and ``tgi`` flavors
map catalog families to each engine's native metrics (``vllm:time_to_first_token_seconds``,
``sglang:token_usage``, ``tgi_request_duration``, ...), as read from the engine's own source
(each mapping cites version and file; tests/fixtures/engines/ holds the real series, and the
tests check every query against them). A family an engine has no metric for maps to None: a
query that needs it becomes an :func:`unavailable` marker, which the panel builders turn into a
note in the panel's description and the rule generator into a rule it leaves out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from servescope.instrumentation import catalog as cat
from servescope.instrumentation.catalog import Kind, MetricSpec
from servescope.instrumentation.status import FinishReason, TokenStage

__all__ = ["FLAVORS", "GATEWAY_FAMILIES", "GATEWAY_JOB", "LLAMACPP", "RULE_GATEWAY_FAMILIES",
           "SERVESCOPE", "SGLANG", "TGI", "VLLM", "Flavor", "Mapped", "NativeSpec",
           "get_flavor", "missing_in", "unavailable"]

_MARK = "UNAVAILABLE"
_MARKED = re.compile(_MARK + r"\(([^)]*)\)")


def unavailable(flavor: str, family: str) -> str:
    """A query fragment standing for a family ``flavor`` has no metric for (never valid
    PromQL, so nothing that contains it can reach Prometheus by accident)."""
    return f"{_MARK}({flavor}:{family})"


def missing_in(expr: str) -> list[tuple[str, str]]:
    """(flavor, catalog family) of each metric a query needed but its flavor lacks (empty: a
    usable query)."""
    return [(m.split(":", 1)[0], m.split(":", 1)[1]) for m in _MARKED.findall(expr)]


@dataclass(frozen=True)
class NativeSpec(MetricSpec):
    """A flavor's metric as a :class:`MetricSpec`, with what the catalog's naming rules cannot
    say: fixed matchers on its native labels, and the exact name of its value series."""

    fixed: tuple[tuple[str, str], ...] = ()  # (native label, matcher) added to every selector
    sample: str = ""  # the value series when it is not name + _total (counters)

    @property
    def sample_name(self) -> str:
        return self.sample or super().sample_name


@dataclass(frozen=True)
class Mapped:
    """A flavor's metric standing in for a catalog family (labels in catalog vocabulary)."""

    name: str
    kind: Kind
    labels: tuple[str, ...] = ()
    buckets: tuple[float, ...] = ()  # histogram boundaries the flavor exposes
    note: str = ""
    fixed: tuple[tuple[str, str], ...] = ()  # native matchers, e.g. (("err", '="overloaded"'),)
    sample: str = ""  # value series if not name + _total: metrics-rs counters have no suffix

    def spec(self) -> NativeSpec:
        return NativeSpec(self.name, self.kind, "", self.note, self.labels, fixed=self.fixed,
                          sample=self.sample)

    def series(self) -> tuple[str, ...]:
        """Every series name Prometheus stores for this metric."""
        if self.sample:
            return (self.sample,)
        return cat.series_names(self.spec())


@dataclass(frozen=True)
class Flavor:
    name: str
    tag: str
    uid_prefix: str
    title_prefix: str
    presence_series: str  # a series every healthy target exposes (drives the variables)
    model_series: tuple[str, str]  # (series, label) listing the models served
    #: catalog family name -> the flavor's metric (absent: same as the catalog; None: none)
    families: Mapping[str, Mapped | None] | None = None
    #: token stage -> the flavor's counter (only for flavors without a stage label)
    token_stages: Mapping[str, Mapped | None] | None = None
    kv_usage: Mapped | None = None  # a ready-made usage ratio gauge, if the flavor has one
    rename: Mapping[str, str] = field(default_factory=dict)
    #: finish reason (catalog value) -> the flavor's label value; None: never reported
    finish_reasons: Mapping[str, str | None] = field(default_factory=dict)
    #: for flavors whose finished counter has no reason label: finish reason (catalog value)
    #: -> a counter of exactly those requests (None: not counted)
    reason_counters: Mapping[str, Mapped | None] | None = None
    #: the flavor's own finish reasons with no catalog counterpart -> how the pack counts them
    extra_reasons: Mapping[str, str] = field(default_factory=dict)
    #: catalog label keys no metric of the flavor carries (left out of by() and templates)
    absent_labels: frozenset[str] = frozenset()
    job_regex: str = "servescope"
    versions: str = ""  # the engine versions this mapping is checked against
    #: what the scrape job needs beside its targets (merged into a scrape_configs entry)
    scrape: Mapping[str, Any] = field(default_factory=dict)
    #: the scrape job (regex) of a ``servescope gateway`` in front of the engine, whose catalog
    #: series fill what the engine lacks (GATEWAY_FAMILIES); None: the engine's series only
    gateway: str | None = None
    #: the families taken from the gateway (where the engine lacks them)
    gateway_families: frozenset[str] = frozenset()

    def metric(self, spec: MetricSpec) -> MetricSpec | None:
        if self.families is None:
            return spec
        mapped = self.families.get(spec.name)
        return None if mapped is None else mapped.spec()

    def stage_metric(self, stage: str) -> MetricSpec | None:
        if self.token_stages is None:
            return cat.TOKENS
        mapped = self.token_stages.get(stage)
        return None if mapped is None else mapped.spec()

    def reason(self, value: str) -> str | None:
        return self.finish_reasons.get(value, value) if self.finish_reasons else value

    def buckets(self, spec: MetricSpec) -> tuple[float, ...] | None:
        """The flavor's boundaries for a histogram family (None: the catalog's ladders)."""
        if self.families is None:
            return None
        mapped = self.families.get(spec.name)
        return mapped.buckets if mapped is not None and mapped.buckets else None

    def label(self, key: str) -> str:
        return self.rename.get(key, key)

    def has_label(self, key: str) -> bool:
        return key not in self.absent_labels

    def reason_metric(self, value: str) -> MetricSpec | None:
        """The counter of requests finishing with ``value`` (reason-counter flavors)."""
        mapped = (self.reason_counters or {}).get(value)
        return None if mapped is None else mapped.spec()

    def mapped(self) -> list[Mapped]:
        """Every native metric the flavor's queries may name."""
        out = [*(self.families or {}).values(), *(self.token_stages or {}).values(),
               *(self.reason_counters or {}).values(), self.kv_usage]
        return [m for m in out if m is not None]

    def for_rules(self) -> Flavor:
        """The flavor the rules read: the engine's series, and the gateway's only for the
        stream TTFT (the transport cause), so every other rule keeps to one target's series
        and its (job, instance) joins."""
        return replace(self, gateway_families=self.gateway_families & RULE_GATEWAY_FAMILIES)

    def engine_only(self) -> Flavor:
        """The same flavor without a gateway's series (what the engine alone can show)."""
        return replace(self, gateway=None)

    def from_gateway(self, family: str) -> bool:
        """Whether a gateway in front of the engine measures ``family`` (catalog name)."""
        return self.gateway is not None and family in self.gateway_families

    def scrape_job(self, targets: list[str], job: str | None = None) -> dict[str, Any]:
        """A Prometheus scrape_configs entry for this flavor's servers."""
        return {"job_name": job or self.job_regex,
                "static_configs": [{"targets": list(targets)}], **self.scrape}


#: The scrape job of ``servescope gateway``: it exports the catalog's own series for what it
#: measures in front of an engine, so they are told apart from a servescope worker's by job.
GATEWAY_JOB = "servescope-gateway"

#: The catalog families a gateway measures from the client's side of an engine (its request
#: recorder: arrival to finish, the first upstream chunk as server TTFT, bytes written and
#: acknowledged, its relay buffer, spans and redaction). A flavor with a gateway queries these
#: on the gateway's job wherever the engine has no metric of its own for them; scheduler, KV and
#: engine-health families only the engine can give.
GATEWAY_FAMILIES = frozenset(s.name for s in (
    cat.ARRIVED, cat.ADMITTED, cat.REJECTED, cat.FINISHED, cat.IN_FLIGHT, cat.GOOD,
    cat.ATTEMPTED, cat.IGNORED_SIGNALS, cat.TOKENS, cat.SERVER_TTFT, cat.STREAM_TTFT, cat.TPOT,
    cat.E2E, cat.PAUSED, cat.BP_PAUSES, cat.BP_PAUSED_SECONDS, cat.STREAM_BUFFERED,
    cat.STREAM_UNACKED_PEAK, cat.DELIVERY_ACKED, cat.STREAM_OCCUPANCY, cat.SPANS_EXPORTED,
    cat.SPANS_DROPPED, cat.LABELS_FOLDED, cat.HOOK_ERRORS, cat.REDACTIONS,
    cat.REDACTION_ENABLED))

#: What the rules take from a gateway: its stream TTFT, for the transport cause alert.
RULE_GATEWAY_FAMILIES = frozenset({cat.STREAM_TTFT.name})

SERVESCOPE = Flavor(
    name="servescope", tag="servescope", uid_prefix="", title_prefix="servescope / ",
    presence_series=cat.SPANS_EXPORTED.sample_name,
    model_series=(cat.ARRIVED.sample_name, cat.MODEL),
    versions="this repository",
)

_M = (cat.MODEL,)


def _h(name: str, buckets: tuple[float, ...], note: str = "",
       labels: tuple[str, ...] = _M) -> Mapped:
    return Mapped(name, Kind.HISTOGRAM, labels, buckets, note)


def _c(name: str, labels: tuple[str, ...] = _M, note: str = "", **kw: Any) -> Mapped:
    return Mapped(name, Kind.COUNTER, labels, note=note, **kw)


def _g(name: str, labels: tuple[str, ...] = _M, note: str = "") -> Mapped:
    return Mapped(name, Kind.GAUGE, labels, note=note)


# --- vLLM ----------------------------------------------------------------------------------
# Checked against vLLM 0.33.0: vllm/v1/metrics/loggers.py (PrometheusStatLogger; every series
# carries model_name and engine, the data-parallel engine index), vllm/v1/metrics/buckets.py
# (the default boundaries below), vllm/v1/engine/__init__.py (finished_reason values).
# vLLM's own /metrics route (prometheus-fastapi-instrumentator) serves the text format, so the
# colon in its names survives any scrape protocol.
# TPOT is vllm:request_time_per_output_token_seconds (one observation per request, added in
# vLLM 0.11). No fallback to the older vllm:time_per_output_token_seconds: that series held the
# gaps between tokens (renamed inter_token_latency in 0.11), so an SLO on it would silently count
# tokens instead of requests. Before 0.11 the TPOT panels and rules stay empty.
_VLLM_TTFT = (0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0,
              7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0)
_VLLM_ITL = (0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
             10.0, 20.0, 40.0, 80.0)
_VLLM_LATENCY = (0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0,
                 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0)

VLLM = Flavor(
    name="vllm", tag="servescope-vllm", uid_prefix="vllm-", title_prefix="vLLM / ",
    presence_series="vllm:num_requests_running",
    model_series=("vllm:num_requests_running", "model_name"),
    families={
        cat.SERVER_TTFT.name: _h("vllm:time_to_first_token_seconds", _VLLM_TTFT),
        cat.TPOT.name: _h("vllm:request_time_per_output_token_seconds", _VLLM_ITL,
                          "per request: decode time / (output tokens - 1)"),
        cat.E2E.name: _h("vllm:e2e_request_latency_seconds", _VLLM_LATENCY),
        cat.QUEUE_TIME.name: _h("vllm:request_queue_time_seconds", _VLLM_LATENCY),
        cat.PREFILL_TIME.name: _h("vllm:request_prefill_time_seconds", _VLLM_LATENCY),
        cat.DECODE_TIME.name: _h("vllm:request_decode_time_seconds", _VLLM_LATENCY),
        cat.FINISHED.name: _c("vllm:request_success", (cat.MODEL, cat.FINISH_REASON)),
        cat.REJECTED.name: _c("vllm:admission_rejections", (cat.MODEL, cat.REASON),
                              "queue limits: max_num_queued_reqs, max_num_queued_tokens"),
        cat.RUNNING.name: _g("vllm:num_requests_running"),
        cat.WAITING.name: _g("vllm:num_requests_waiting"),
        cat.PREEMPTIONS.name: _c("vllm:num_preemptions"),
        cat.PREFIX_QUERIES.name: _c("vllm:prefix_cache_queries", note="in tokens"),
        cat.PREFIX_HITS.name: _c("vllm:prefix_cache_hits", note="in tokens"),
    },
    token_stages={
        TokenStage.PROMPT.value: _c("vllm:prompt_tokens"),
        TokenStage.COMMITTED.value: _c("vllm:generation_tokens"),
        TokenStage.PROPOSED.value: _c("vllm:spec_decode_num_draft_tokens"),
    },
    kv_usage=_g("vllm:kv_cache_usage_perc"),
    rename={cat.MODEL: "model_name", cat.FINISH_REASON: "finished_reason"},
    finish_reasons={
        FinishReason.CLIENT_CANCEL.value: "abort",
        FinishReason.DEADLINE.value: None,
        FinishReason.SLOW_CONSUMER.value: None,
        FinishReason.REJECTED.value: None,
    },
    extra_reasons={"repetition": "vLLM stopped a repetitive output: neither completed "
                                 "(stop/length) nor bad for availability; shown as cut short"},
    absent_labels=frozenset({cat.PRIORITY}),
    job_regex="vllm", gateway=GATEWAY_JOB,
    gateway_families=GATEWAY_FAMILIES,
    versions="vLLM 0.33.0; supports 0.11 and newer (the per-request TPOT histogram)",
)

# --- SGLang --------------------------------------------------------------------------------
# Checked against SGLang 0.5.23: sglang/srt/observability/metrics_collector.py
# (SchedulerMetricsCollector: model_name, engine_type, tp_rank, pp_rank, moe_ep_rank on every
# series; TokenizerMetricsCollector: model_name, engine_type, plus is_streaming on the request
# histograms). SGLang serves /metrics from prometheus_client's multiprocess collector through
# make_asgi_app, which answers a Prometheus that asks for OpenMetrics with the colon escaped
# (sglang_num_running_reqs under "# TYPE sglang:num_running_reqs"): the scrape job renames the
# escaped series back (metric_relabel_configs below; on Prometheus >= 2.49,
# scrape_protocols: [PrometheusText0.0.4] works too).
_SGL_TTFT = (0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 2.0, 4.0, 6.0, 8.0, 10.0, 20.0, 40.0, 60.0, 80.0,
             100.0, 200.0, 400.0)
_SGL_E2E = (0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 2.0, 4.0, 6.0, 8.0, 10.0, 20.0, 40.0, 60.0, 80.0,
            100.0, 200.0, 400.0, 600.0, 1200.0, 1800.0, 2400.0)
_SGL_ITL = (0.002, 0.004, 0.006, 0.008, 0.01, 0.015, 0.02, 0.025, 0.03, 0.035, 0.04, 0.06,
            0.08, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 2.0, 4.0, 6.0, 8.0)
_SGL_QUEUE = (0.0, 0.001, 0.005, 0.01, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 10.0, 15.0,
              20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 100.0, 200.0, 300.0, 400.0, 500.0,
              600.0, 700.0, 800.0, 900.0, 1000.0, 1200.0, 1400.0, 1600.0, 1800.0, 2000.0,
              2500.0, 3000.0)

SGLANG = Flavor(
    name="sglang", tag="servescope-sglang", uid_prefix="sglang-", title_prefix="SGLang / ",
    presence_series="sglang:num_running_reqs",
    model_series=("sglang:num_running_reqs", "model_name"),
    families={
        cat.SERVER_TTFT.name: _h("sglang:time_to_first_token_seconds", _SGL_TTFT),
        cat.TPOT.name: _h("sglang:request_time_per_output_token_seconds", _SGL_ITL,
                          "per request, stop/length finishes only"),
        cat.E2E.name: _h("sglang:e2e_request_latency_seconds", _SGL_E2E),
        cat.QUEUE_TIME.name: _h("sglang:queue_time_seconds", _SGL_QUEUE),
        cat.FINISHED.name: _c("sglang:num_requests", note="every finished request, aborts "
                              "included; no finish reason label"),
        cat.RUNNING.name: _g("sglang:num_running_reqs"),
        cat.WAITING.name: _g("sglang:num_queue_reqs"),
        cat.PREEMPTIONS.name: _c("sglang:num_retracted_requests",
                                 note="retractions: SGLang's preemption"),
        cat.PREFIX_QUERIES.name: _c("sglang:prompt_tokens", note="in tokens"),
        cat.PREFIX_HITS.name: _c("sglang:cached_tokens", note="in tokens, every cache_source"),
    },
    token_stages={
        TokenStage.PROMPT.value: _c("sglang:prompt_tokens"),
        TokenStage.COMMITTED.value: _c("sglang:generation_tokens"),
    },
    kv_usage=_g("sglang:token_usage"),
    rename={cat.MODEL: "model_name"},
    reason_counters={
        FinishReason.CLIENT_CANCEL.value: _c("sglang:num_aborted_requests",
                                             note="every abort (client or server side)"),
    },
    absent_labels=frozenset({cat.PRIORITY, cat.FINISH_REASON}),
    job_regex="sglang", gateway=GATEWAY_JOB,
    gateway_families=GATEWAY_FAMILIES,
    versions="SGLang 0.5.23; supports 0.5.x releases that have "
             "sglang:request_time_per_output_token_seconds",
    scrape={"metric_relabel_configs": [{
        "source_labels": ["__name__"], "regex": "sglang_(.+)", "target_label": "__name__",
        "replacement": "sglang:${1}"}]},
)

# --- TGI -----------------------------------------------------------------------------------
# Checked against text-generation-inference v3.3.7 (router/src/server.rs: request metrics and
# the PrometheusBuilder buckets; backends/v3/src/backend.rs, queue.rs: batch and queue
# metrics). metrics-exporter-prometheus 0.15 renders the text format with no _total suffix on
# counters and no model label anywhere. Every histogram whose name ends in "duration" has the
# boundaries 0.0001 x 1.5^k, k = 1..35: no SLO threshold is exactly a boundary, so the SLIs count
# at the largest boundary under the threshold (Query.threshold) and say so.
def _tgi_duration() -> tuple[float, ...]:
    """The boundaries as TGI computes them (repeated multiplication, bit for bit)."""
    out, value = [], 0.0001
    for _ in range(35):
        value *= 1.5
        out.append(value)
    return tuple(out)


_TGI_D = _tgi_duration()
_TGI_BATCH = tuple(float(n) for n in range(1, 1025))

TGI = Flavor(
    name="tgi", tag="servescope-tgi", uid_prefix="tgi-", title_prefix="TGI / ",
    presence_series="tgi_batch_max_total_tokens",
    model_series=("tgi_batch_max_total_tokens", "job"),
    families={
        cat.TPOT.name: _h("tgi_request_mean_time_per_token_duration", _TGI_D,
                          "per request: inference time / generated tokens (prefill included)",
                          ()),
        cat.E2E.name: _h("tgi_request_duration", _TGI_D, "successful requests only", ()),
        cat.QUEUE_TIME.name: _h("tgi_request_queue_duration", _TGI_D, labels=()),
        cat.FORWARD_TIME.name: _h("tgi_batch_forward_duration", _TGI_D,
                                  "per batch forward, method = prefill or decode",
                                  (cat.PHASE,)),
        cat.BATCH_SIZE.name: _h("tgi_batch_next_size", _TGI_BATCH,
                                "requests in each new batch", ()),
        cat.FINISHED.name: _c("tgi_request_count", (), "requests received (TGI counts no "
                              "terminal total)", sample="tgi_request_count"),
        cat.ARRIVED.name: _c("tgi_request_count", (), sample="tgi_request_count"),
        cat.REJECTED.name: _c("tgi_request_failure", (), "err=overloaded",
                              fixed=(("err", '="overloaded"'),), sample="tgi_request_failure"),
        cat.RUNNING.name: _g("tgi_batch_current_size", ()),
        cat.WAITING.name: _g("tgi_queue_size", ()),
    },
    token_stages={
        TokenStage.PROMPT.value: _c("tgi_request_input_length", (),
                                    sample="tgi_request_input_length_sum"),
        TokenStage.COMMITTED.value: _c("tgi_request_generated_tokens", (),
                                       sample="tgi_request_generated_tokens_sum"),
    },
    reason_counters={
        FinishReason.ERROR.value: _c("tgi_request_failure", (), "err: generation, dropped, "
                                     "incomplete", fixed=(("err", '=~"generation|dropped|'
                                                                  'incomplete"'),),
                                     sample="tgi_request_failure"),
    },
    rename={cat.PHASE: "method"},
    absent_labels=frozenset({cat.MODEL, cat.PRIORITY, cat.FINISH_REASON}),
    job_regex="tgi", gateway=GATEWAY_JOB,
    gateway_families=GATEWAY_FAMILIES,
    versions="text-generation-inference 3.3.7 (other 3.x releases likely the same, "
             "not checked)",
)

# --- llama.cpp -----------------------------------------------------------------------------
# Checked against the llama.cpp that the llama-cpp-python 0.3.36 sdist vendors (llama.cpp
# 0.5.0-dev): tools/server/server-task.cpp (server_task_result_metrics::to_metrics writes every
# series by hand: "llamacpp:" + name, text format 0.0.4, no labels, no histograms),
# tools/server/server-common.h (what each counter adds up). llama-server exports /metrics only
# with --metrics. No request counter and no latency histogram: requests, TTFT, TPOT and finish
# reasons come from the gateway in front of it. Generated tokens are added when a slot's request
# ends (cancelled ones included), prompt tokens as they are decoded (cached ones apart).
LLAMACPP = Flavor(
    name="llamacpp", tag="servescope-llamacpp", uid_prefix="llamacpp-",
    title_prefix="llama.cpp / ",
    presence_series="llamacpp:requests_processing",
    model_series=("llamacpp:requests_processing", "job"),
    families={
        cat.RUNNING.name: _g("llamacpp:requests_processing", (), "busy slots"),
        cat.WAITING.name: _g("llamacpp:requests_deferred", (),
                             "requests deferred until a slot frees"),
        cat.PREFIX_HITS.name: _c("llamacpp:prompt_tokens_cached", (),
                                 "in tokens, reused from a slot's cache"),
    },
    token_stages={
        TokenStage.PROMPT.value: _c("llamacpp:prompt_tokens", (),
                                    note="processed, cached tokens excluded"),
        TokenStage.COMMITTED.value: _c("llamacpp:tokens_predicted", (),
                                       note="added when a request ends"),
        TokenStage.PROPOSED.value: _c("llamacpp:spec_decode_num_draft_tokens", ()),
    },
    absent_labels=frozenset({cat.MODEL, cat.PRIORITY, cat.FINISH_REASON}),
    job_regex="llamacpp", gateway=GATEWAY_JOB,
    gateway_families=GATEWAY_FAMILIES,
    versions="llama.cpp as vendored by llama-cpp-python 0.3.36 (llama.cpp 0.5.0-dev); run "
             "live in the suite",
)

FLAVORS: dict[str, Flavor] = {f.name: f for f in (SERVESCOPE, VLLM, SGLANG, TGI, LLAMACPP)}


def get_flavor(name: str) -> Flavor:
    try:
        return FLAVORS[name]
    except KeyError:
        raise ValueError(f"flavor: unknown value {name!r} (known: {', '.join(FLAVORS)})") \
            from None
