"""Metric flavors: whose metric names the generated dashboards and rules query.

The ``servescope`` flavor queries the catalog as is. The ``vllm`` flavor maps catalog families
to vLLM's native metrics (``vllm:time_to_first_token_seconds``, ``vllm:kv_cache_usage_perc``,
``vllm:request_success_total{finished_reason}``, ...). A family vLLM has no metric for maps to
None: a query that needs it becomes an :func:`unavailable` marker, which the panel builders turn
into a note in the panel's description and the rule generator into a rule it leaves out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from servescope.instrumentation import catalog as cat
from servescope.instrumentation.catalog import Kind, MetricSpec
from servescope.instrumentation.status import FinishReason, TokenStage

__all__ = ["FLAVORS", "SERVESCOPE", "VLLM", "Flavor", "Mapped", "get_flavor", "missing_in",
           "unavailable"]

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
class Mapped:
    """A flavor's metric standing in for a catalog family (labels in catalog vocabulary)."""

    name: str
    kind: Kind
    labels: tuple[str, ...] = ()
    buckets: tuple[float, ...] = ()  # histogram boundaries the flavor exposes
    note: str = ""

    def spec(self) -> MetricSpec:
        return MetricSpec(self.name, self.kind, "", self.note, self.labels)


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
    job_regex: str = "servescope"

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


SERVESCOPE = Flavor(
    name="servescope", tag="servescope", uid_prefix="", title_prefix="servescope / ",
    presence_series=cat.SPANS_EXPORTED.sample_name,
    model_series=(cat.ARRIVED.sample_name, cat.MODEL),
)

# Scraping vLLM: prometheus_client 0.26's OpenMetrics output escapes the colon in sample names
# (vllm_time_to_first_token_seconds_bucket under a "# TYPE vllm:..." line), so a Prometheus that
# negotiates OpenMetrics stores vLLM's series under vllm_* names and these queries find nothing.
# Scrape vLLM in the text format (Prometheus >= 2.49: scrape_protocols: [PrometheusText0.0.4]).
#
# vLLM's histogram boundaries (vllm/v1/metrics/loggers.py, vLLM 0.10/0.11).
_VLLM_TTFT = (0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0,
              7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0)
_VLLM_ITL = (0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
             10.0, 20.0, 40.0, 80.0)
_VLLM_LATENCY = (0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0,
                 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0)
_M = (cat.MODEL,)


def _h(name: str, buckets: tuple[float, ...], note: str = "") -> Mapped:
    return Mapped(name, Kind.HISTOGRAM, _M, buckets, note)


VLLM = Flavor(
    name="vllm", tag="servescope-vllm", uid_prefix="vllm-", title_prefix="vLLM / ",
    presence_series="vllm:num_requests_running",
    model_series=("vllm:num_requests_running", "model_name"),
    families={
        cat.SERVER_TTFT.name: _h("vllm:time_to_first_token_seconds", _VLLM_TTFT),
        cat.TPOT.name: _h("vllm:inter_token_latency_seconds", _VLLM_ITL,
                          "per token gap, not the per-request mean"),
        cat.E2E.name: _h("vllm:e2e_request_latency_seconds", _VLLM_LATENCY),
        cat.QUEUE_TIME.name: _h("vllm:request_queue_time_seconds", _VLLM_LATENCY),
        cat.PREFILL_TIME.name: _h("vllm:request_prefill_time_seconds", _VLLM_LATENCY),
        cat.DECODE_TIME.name: _h("vllm:request_decode_time_seconds", _VLLM_LATENCY),
        cat.FINISHED.name: Mapped("vllm:request_success", Kind.COUNTER,
                                  (cat.MODEL, cat.FINISH_REASON)),
        cat.RUNNING.name: Mapped("vllm:num_requests_running", Kind.GAUGE, _M),
        cat.WAITING.name: Mapped("vllm:num_requests_waiting", Kind.GAUGE, _M),
        cat.PREEMPTIONS.name: Mapped("vllm:num_preemptions", Kind.COUNTER, _M),
        cat.PREFIX_QUERIES.name: Mapped("vllm:prefix_cache_queries", Kind.COUNTER, _M),
        cat.PREFIX_HITS.name: Mapped("vllm:prefix_cache_hits", Kind.COUNTER, _M),
    },
    token_stages={
        TokenStage.PROMPT.value: Mapped("vllm:prompt_tokens", Kind.COUNTER, _M),
        TokenStage.COMMITTED.value: Mapped("vllm:generation_tokens", Kind.COUNTER, _M),
        TokenStage.PROPOSED.value: Mapped("vllm:spec_decode_num_draft_tokens", Kind.COUNTER,
                                          _M),
    },
    kv_usage=Mapped("vllm:kv_cache_usage_perc", Kind.GAUGE, _M),
    rename={cat.MODEL: "model_name", cat.FINISH_REASON: "finished_reason"},
    finish_reasons={
        FinishReason.CLIENT_CANCEL.value: "abort",
        FinishReason.DEADLINE.value: None,
        FinishReason.SLOW_CONSUMER.value: None,
        FinishReason.REJECTED.value: None,
    },
    job_regex="vllm",
)

FLAVORS: dict[str, Flavor] = {SERVESCOPE.name: SERVESCOPE, VLLM.name: VLLM}


def get_flavor(name: str) -> Flavor:
    try:
        return FLAVORS[name]
    except KeyError:
        raise ValueError(f"flavor: unknown value {name!r} (known: {', '.join(FLAVORS)})") \
            from None
