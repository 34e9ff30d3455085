"""Diagnostic rules: alerts that correlate signals to say *why*, per replica.

A TTFT or TPOT burn alone does not say why. Per (job, instance), the SLI error ratio is read
beside the signals of each cause, and one alert per cause fires while the SLO burns and its
signal is present:

* TTFT: admission queue growing (queue/admission), KV usage high or preemptions (KV pressure),
  the prefix-cache hit ratio fallen under a share of its baseline (prefix miss), the prefill
  forward time per step risen above a multiple of its baseline without a prefix miss (prefill
  compute), and none of these (cause unknown: look at what the pack cannot see);
* stream TTFT burning while server TTFT is not: tokens made in time reached the socket late
  (transport);
* TPOT: KV pressure, prefill forwards taking most of the forward time (prefill interference),
  the batch grown above a multiple of its baseline (decode load), and none of these.

A cause whose signals a flavor lacks is left out, and the "cause unknown" alerts are built from
the causes that remain. Beside them: slow consumers (streams the slow-consumer policy closed),
committed tokens discarded (by any ending), cancel/error spikes, a pipeline dropping spans,
targets down or not instrumented.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from servescope.instrumentation import catalog as cat
from servescope.instrumentation.slo import SLOSpec
from servescope.instrumentation.status import FinishReason, TokenStage
from servescope.promql.flavor import missing_in, unavailable
from servescope.promql.query import TARGET_LABELS, Query
from servescope.promql.recorded import rejection_reasons_known

from . import slo_rules
from .model import Alert, Group, Options, Record

__all__ = ["CAUSES", "RECORDS", "burning_limit", "groups"]

#: Per-replica signals keep every target label, so that the transport cause can pair a
#: gateway with the engine in its pod.
BY = TARGET_LABELS
ON = "on (job, instance)"
#: A gateway and its engine are two targets: they share only their pod (Kubernetes, the
#: gateway a sidecar). Without a pod label on either, every gateway pairs with every engine.
ON_POD = "on (pod)"
PREFILL = "prefill"
#: The rejection reason of a request refused because the admission queue is full.
QUEUE_FULL = "queue_full"

#: Recorded per-replica signals (window suffix appended where the record is a rate).
RECORDS = {
    "ttft": "servescope_instance:ttft_errors:ratio_rate",
    "stream_ttft": "servescope_instance:stream_ttft_errors:ratio_rate",
    "tpot": "servescope_instance:tpot_errors:ratio_rate",
    "kv": "servescope_instance:kv_usage:ratio",
    "waiting": "servescope_instance:requests_waiting:sum",
    "preempt": "servescope_instance:preemptions:rate",
    "prefix": "servescope_instance:prefix_cache_hits:ratio_rate",
    "prefill_step": "servescope_instance:prefill_forward_seconds:mean_rate",
    "prefill_share": "servescope_instance:prefill_forward_time:ratio_rate",
    "batch": "servescope_instance:batch_size:mean_rate",
    "discard": "servescope_instance:tokens_discarded_per_committed:ratio_rate",
    "queue_full": "servescope_instance:requests_rejected_queue_full:rate",
    "finish": "servescope_instance:finish_reason:ratio_rate",
}

#: The cause alerts: (SLO, cause) -> alert name.
CAUSES = {
    ("ttft", "queue"): "ServescopeTTFTBurnQueueGrowing",
    ("ttft", "kv"): "ServescopeTTFTBurnKVPressure",
    ("ttft", "prefix"): "ServescopeTTFTBurnPrefixMiss",
    ("ttft", "prefill"): "ServescopeTTFTBurnPrefillCompute",
    ("ttft", "unknown"): "ServescopeTTFTBurnCauseUnknown",
    ("stream_ttft", "transport"): "ServescopeStreamTTFTBurnTransport",
    ("tpot", "kv"): "ServescopeTPOTBurnKVPressure",
    ("tpot", "prefill"): "ServescopeTPOTBurnPrefillInterference",
    ("tpot", "batch"): "ServescopeTPOTBurnBatchGrowth",
    ("tpot", "unknown"): "ServescopeTPOTBurnCauseUnknown",
}


def _records(slo: SLOSpec, options: Options) -> tuple[Record, ...]:
    w, base = options.timing.diagnostic_window, options.timing.baseline_window
    q = options.query(w)
    finished = q.rate(cat.FINISHED, *BY)
    by_reason = q.rate(cat.FINISHED, *BY, cat.FINISH_REASON)
    out = [
        Record(RECORDS["ttft"] + w,
               f"1 - {q.within(cat.SERVER_TTFT, slo.ttft.threshold_seconds, *BY)}"),
        Record(RECORDS["stream_ttft"] + w,
               f"1 - {q.within(cat.STREAM_TTFT, slo.ttft.threshold_seconds, *BY)}"),
        Record(RECORDS["tpot"] + w,
               f"1 - {q.within(cat.TPOT, slo.tpot.threshold_seconds, *BY)}"),
        Record(RECORDS["kv"], q.kv_usage(*BY)),
        Record(RECORDS["waiting"], q.level(cat.WAITING, *BY)),
        Record(RECORDS["preempt"] + w, q.rate(cat.PREEMPTIONS, *BY)),
        Record(RECORDS["prefill_share"] + w,
               f"{q.rate(cat.FORWARD_TIME, *BY, suffix='_sum', phase=PREFILL)} / "
               f"{q.rate(cat.FORWARD_TIME, *BY, suffix='_sum')}"),
    ]
    for window in (w, base):
        qw = options.query(window)
        out += [
            Record(RECORDS["prefix"] + window,
                   f"{qw.rate(cat.PREFIX_HITS, *BY)} / {qw.rate(cat.PREFIX_QUERIES, *BY)}"),
            Record(RECORDS["prefill_step"] + window,
                   f"{qw.rate(cat.FORWARD_TIME, *BY, suffix='_sum', phase=PREFILL)} / "
                   f"{qw.rate(cat.FORWARD_TIME, *BY, suffix='_count', phase=PREFILL)}"),
            Record(RECORDS["batch"] + window, qw.mean(cat.BATCH_SIZE, *BY)),
        ]
    if rejection_reasons_known(options.flavor):
        out.append(Record(RECORDS["queue_full"] + w,
                          q.rate(cat.REJECTED, *BY, reason=QUEUE_FULL)))
    out += [
        Record(RECORDS["discard"] + w,
               f"{q.rate(cat.TOKENS, *BY, stage=TokenStage.DISCARDED.value)} / "
               f"{q.rate(cat.TOKENS, *BY, stage=TokenStage.COMMITTED.value)}"),
        Record(RECORDS["finish"] + w,
               f"{by_reason} / ignoring ({q.label(cat.FINISH_REASON)}) group_left {finished}"),
    ]
    return tuple(out)


def burning_limit(slo: SLOSpec, target: float | None = None) -> tuple[float, float]:
    """(burn rate, error ratio) above which a replica counts as burning: the smallest paging
    burn rate of the spec, times the error budget of ``target`` (TTFT's by default)."""
    pages = [w.burn_rate for w in slo.alert_windows if w.severity == "page"]
    burn = min(pages) if pages else min(w.burn_rate for w in slo.alert_windows)
    return burn, burn * (1 - (slo.ttft.target if target is None else target))


@dataclass(frozen=True)
class _Cause:
    key: str
    condition: str  # PromQL over recorded series, by (job, instance)
    reads: tuple[str, ...]  # the records it reads
    summary: str
    because: str  # the description's "while ..." clause
    unless: tuple[str, ...] = ()  # causes that take precedence (their signal explains this one)


def _causes(options: Options, available: set[str]) -> dict[str, _Cause]:
    w, base, t = options.timing.diagnostic_window, options.timing.baseline_window, \
        options.thresholds
    waiting, kv, preempt = RECORDS["waiting"], RECORDS["kv"], RECORDS["preempt"] + w
    # A queue held at its cap grows no more: refusals because it is full say the same, and
    # say it while the queue stands still (where the flavor counts them).
    full = RECORDS["queue_full"] + w
    queue = f"({waiting} > {t.queue_low:g} and deriv({waiting}[{w}]) > 0)"
    if full in available:
        queue = f"({queue} or {full} > 0)"
    prefix, pstep = RECORDS["prefix"], RECORDS["prefill_step"]
    share, batch = RECORDS["prefill_share"] + w, RECORDS["batch"]
    return {c.key: c for c in (
        _Cause("queue", queue,
               (waiting,), "while the admission queue grows (admission/capacity)",
               f"while more than {t.queue_low:g} requests wait and the queue keeps growing, or "
               "requests are refused because it is full: requests wait for a batch slot or KV "
               "blocks. Add replicas or capacity, or shed load earlier."),
        _Cause("kv", f"({kv} > {t.kv_usage_high:g} or {preempt} > 0)", (kv, preempt),
               "under KV-cache pressure",
               f"while KV usage is above {t.kv_usage_high:.0%} or requests are being "
               "preempted: admission waits for KV blocks and preempted requests redo prefill."),
        _Cause("prefix", f"({prefix}{w} < {t.prefix_drop:g} * {prefix}{base})",
               (prefix + w, prefix + base), "after a prefix-cache hit drop (prefix miss)",
               f"while the prefix-cache hit ratio fell under {t.prefix_drop:.0%} of its "
               f"{base} baseline: prompts that used to share cached blocks are prefilled in "
               "full (a changed system prompt, a new tenant mix, or evictions)."),
        _Cause("prefill", f"({pstep}{w} > {t.prefill_slowdown:g} * {pstep}{base})",
               (pstep + w, pstep + base), "with slower prefill forwards (prefill compute)",
               f"while the prefill forward time per step rose above {t.prefill_slowdown:g}x "
               f"its {base} baseline with no prefix-cache drop: longer prompts or slower "
               "kernels (a changed model, precision or GPU clocks).", unless=("prefix",)),
        _Cause("tpot_prefill", f"({share} > {t.prefill_share:g})", (share,),
               "with prefill forwards taking the steps (prefill interference)",
               f"while prefill forwards take more than {t.prefill_share:.0%} of the forward "
               "time: decoding requests wait for prompt chunks every step. Lower the prefill "
               "chunk size or split prefill and decode."),
        _Cause("batch", f"({batch}{w} > {t.batch_growth:g} * {batch}{base})",
               (batch + w, batch + base), "with a grown decode batch (decode load)",
               f"while the batch grew above {t.batch_growth:g}x its {base} baseline: every "
               "step carries more requests, so each token takes longer. Cap the batch or add "
               "replicas."),
    )}


def _usable(cause: _Cause, available: set[str]) -> bool:
    return all(r in available for r in cause.reads)


def _burn_alerts(slo: SLOSpec, options: Options, available: set[str]) -> list[Alert]:
    w, timing = options.timing.diagnostic_window, options.timing
    causes = _causes(options, available)
    who = "{{ $labels.instance }} ({{ $labels.job }})"
    out: list[Alert] = []
    for key, spec, objective, plan in (
            ("ttft", cat.SERVER_TTFT, slo.ttft, ("queue", "kv", "prefix", "prefill")),
            ("tpot", cat.TPOT, slo.tpot, ("kv", "tpot_prefill", "batch"))):
        record = RECORDS[key] + w
        if record not in available:
            continue
        burn, limit = burning_limit(slo, objective.target)
        burning = f"{record} > {limit:.6g}"
        name = key.upper()
        what = (f"{who}: {name} {slo_rules.above(options, spec, objective.threshold_seconds)} "
                f"for {{{{ $value | humanizePercentage }}}} of requests (>{burn:g}x budget burn)")
        usable = [causes[c] for c in plan if _usable(causes[c], available)]
        for cause in usable:
            expr = f"{burning}\nand {ON}\n{cause.condition}"
            for other in cause.unless:
                if other in {c.key for c in usable}:
                    expr += f"\nunless {ON}\n{causes[other].condition}"
            alert = CAUSES[(key, cause.key.removeprefix("tpot_"))]
            out.append(Alert(alert, expr, "ticket", f"{name} SLO burning {cause.summary}",
                             f"{what} {cause.because}", options.runbook(alert),
                             timing.diagnostic_for))
        alert = CAUSES[(key, "unknown")]
        expr = burning
        if usable:
            expr += f"\nunless {ON}\n(" + " or ".join(c.condition for c in usable) + ")"
        seen = ", ".join(c.summary.split("(")[-1].rstrip(")") for c in usable) or "none"
        out.append(Alert(alert, expr, "ticket", f"{name} SLO burning with no known cause",
                         f"{what} with none of the causes the rules can see ({seen}). Look at "
                         "what they cannot see: GPU health and clocks, the network between "
                         "clients and servers, a new model or engine version.",
                         options.runbook(alert), timing.diagnostic_for))
    return out + _transport_alert(slo, options, available)


def _transport_alert(slo: SLOSpec, options: Options, available: set[str]) -> list[Alert]:
    w = options.timing.diagnostic_window
    stream, server = RECORDS["stream_ttft"] + w, RECORDS["ttft"] + w
    if server not in available:
        server = _gateway_server_ttft(slo, options) or ""
    if stream not in available or not server:
        return []
    burn, limit = burning_limit(slo)
    alert = CAUSES[("stream_ttft", "transport")]
    who = "{{ $labels.instance }} ({{ $labels.job }})"
    # A gateway's stream TTFT beside the engine's own server TTFT: the two come from different
    # targets, paired by their pod; the stream burns while the server beside it does not.
    q = options.query(w)
    stream_gateway = q.via_gateway(cat.STREAM_TTFT)
    engine_server = server == RECORDS["ttft"] + w and q.via_gateway(cat.SERVER_TTFT) is None
    on = ON if (stream_gateway is None) == engine_server else ON_POD
    if stream_gateway is not None:  # the records of the gateway's job only (records are
        # shared by every rules file Prometheus loads; another flavor's may write the same)
        stream += f"{{job{stream_gateway.matchers['job']}}}"
        if engine_server:
            server += f'{{job=~"{options.job}"}}'
    return [Alert(
        alert, f"{stream} > {limit:.6g}\nunless {on}\n{server} > {limit:.6g}", "ticket",
        "Stream TTFT burning while server TTFT is not (transport)",
        f"{who}: {{{{ $value | humanizePercentage }}}} of requests wrote their first token to "
        f"the connection more than {slo.ttft.threshold_seconds:g}s after arrival (>{burn:g}x "
        "budget burn) while the server made it in time: the delay is between the scheduler "
        "and the socket (event loop, proxy buffering, a slow network or client).",
        options.runbook(alert), options.timing.diagnostic_for)]


def _gateway_server_ttft(slo: SLOSpec, options: Options) -> str | None:
    """For an engine with no TTFT of its own (TGI, llama.cpp): the TTFT error ratio of the
    gateway in front of it, from its first upstream chunk (None: no gateway measures it)."""
    flavor = options.flavor
    if flavor.metric(cat.SERVER_TTFT) is not None or not flavor.from_gateway(cat.SERVER_TTFT.name):
        return None
    q = Query(window=options.timing.diagnostic_window, flavor=replace(
        flavor, gateway_families=frozenset({cat.SERVER_TTFT.name})))
    return f"(1 - {q.within(cat.SERVER_TTFT, slo.ttft.threshold_seconds, *BY)})"


def _other_alerts(options: Options) -> list[Alert]:
    w, t, timing = options.timing.diagnostic_window, options.thresholds, options.timing
    who = "{{ $labels.instance }} ({{ $labels.job }})"
    finish = RECORDS["finish"] + w
    q = options.query(w)
    job = f'=~"{options.job}"'
    up = f"up{{job{job}}}"
    flavor = options.flavor

    def reason(value: str) -> str:
        if not flavor.has_label(cat.FINISH_REASON):  # a counter per reason, if any
            return (f"{q.rate(cat.FINISHED, *BY, finish_reason=value)}\n/ {ON}\n"
                    f"{q.rate(cat.FINISHED, *BY)}")
        mapped = flavor.reason(value)
        if mapped is None:
            return unavailable(flavor.name, f"{cat.FINISHED.sample_name}[finish_reason={value}]")
        return f'{finish}{{{flavor.label(cat.FINISH_REASON)}="{mapped}"}}'

    specs = [
        ("ServescopeSlowConsumersWastingCompute",
         f"{reason(FinishReason.SLOW_CONSUMER.value)} > {t.slow_consumer_ratio:g}",
         "Slow consumers: streams closed for reading too slowly",
         f"{who}: {{{{ $value | humanizePercentage }}}} of requests were ended by the "
         f"slow-consumer policy (threshold {t.slow_consumer_ratio:.0%}): their clients read "
         "slower than the server generates, backpressure paused them past the timeout, and "
         "the tokens made for them were discarded. The transport dashboard's backpressure "
         "and slow-consumer panels show which replica and since when.",
         timing.diagnostic_for),
        ("ServescopeTokensDiscarded", f"{RECORDS['discard']}{w} > {t.discarded_ratio:g}",
         "Committed tokens discarded: compute spent for no one",
         f"{who}: {{{{ $value | humanizePercentage }}}} of committed tokens were never "
         f"delivered, i.e. never acknowledged by the client's TCP (threshold "
         f"{t.discarded_ratio:.0%}): requests ended (client_cancel, deadline, slow_consumer) "
         "with tokens generated for them still buffered or unacknowledged. The overview's "
         "finish reasons panel says which ending it is; the transport dashboard's written vs "
         "delivered and waste per request panels show where.",
         timing.diagnostic_for),
        ("ServescopeCancelRatioHigh",
         f"{reason(FinishReason.CLIENT_CANCEL.value)} > {t.cancel_ratio:g}",
         "Client cancellations spiking", f"{who}: {{{{ $value | humanizePercentage }}}} of "
         f"requests were cancelled by clients (threshold {t.cancel_ratio:.0%}): users give up "
         "waiting, or a client times out too early.", timing.diagnostic_for),
        ("ServescopeErrorRatioHigh",
         f"{reason(FinishReason.ERROR.value)} > {t.error_ratio:g}",
         "Worker errors spiking", f"{who}: {{{{ $value | humanizePercentage }}}} of requests "
         f"ended in a worker error (threshold {t.error_ratio:.0%}).", timing.diagnostic_for),
        ("ServescopeTelemetryDroppingSpans",
         f"{q.rate(cat.SPANS_DROPPED, *BY, cat.REASON)} > 0",
         "Telemetry pipeline dropping spans",
         f"{who}: dropping {{{{ $value | humanize }}}} spans/s ({{{{ $labels.reason }}}}): "
         "traces and exemplar links go missing; the exporter queue is full or the collector "
         "is unreachable.", timing.diagnostic_for),
        ("ServescopeTargetDown", f"{up} == 0", "Inference server scrape target down",
         f"{who}: Prometheus cannot scrape the target; its requests are invisible.",
         timing.target_for),
        ("ServescopeMetricsAbsent",
         f"{up} == 1\nunless {ON}\n{flavor.presence_series}{{job{job}}}",
         "Target up but exposes no inference-server metrics",
         f"{who}: the target answers scrapes but exposes no {flavor.presence_series}: the "
         "server is not instrumented (servescope: setup_telemetry is not called), or /metrics "
         "serves another registry.",
         timing.target_for),
        ("ServescopeTargetsMissing", f"absent({_named_up(options.job)})",
         "No inference server target at all",
         f"Prometheus has no scrape target for job=~\"{options.job}\": service discovery "
         "or the scrape config lost the servers.", timing.target_for),
    ]
    alerts = [Alert(name, expr, "ticket", summary, desc, options.runbook(name), for_)
              for name, expr, summary, desc, for_ in specs]
    page = {"ServescopeTargetsMissing"}
    return [Alert(a.alert, a.expr, "page" if a.alert in page else a.severity, a.summary,
                  a.description, a.runbook_url, a.for_) for a in alerts]


def _named_up(job: str) -> str:
    """``up`` of the servers' job for ``absent()``: by name when the job is one name, so the
    alert carries ``job`` (Alertmanager's inhibition mutes that job's alerts only), else by
    the pattern (the alert then has no job label, and mutes nothing with one)."""
    if re.fullmatch(r"[A-Za-z0-9_:-]+", job):
        return f'up{{job="{job}"}}'
    return f'up{{job=~"{job}"}}'


def _engine_alerts(options: Options) -> list[Alert]:
    """An engine in its own process: restarts (each one ended its requests with error) and a
    stall (no heartbeat while requests wait on it)."""
    w, t, timing = options.timing.diagnostic_window, options.thresholds, options.timing
    who = "{{ $labels.instance }} ({{ $labels.job }})"
    q = options.query(w)
    restarts = q.rate(cat.ENGINE_RESTARTS, *BY, fn="increase")
    heartbeat = q.level(cat.ENGINE_HEARTBEAT_AGE, *BY, agg="max")
    in_flight = q.level(cat.IN_FLIGHT, *BY)
    specs = [
        ("ServescopeEngineRestarting", f"{restarts} >= 1", "ticket",
         "Engine process restarted",
         f"{who}: the engine process was declared dead and restarted in the last {w}; "
         "every request it held ended with error.", "0s"),
        ("ServescopeEngineCrashLooping", f"{restarts} >= {t.engine_crash_loop:g}", "page",
         "Engine process crash-looping",
         f"{who}: the engine process was restarted at least {t.engine_crash_loop:g} times "
         f"in the last {w}: it dies or hangs again after each restart, and the replica "
         "serves almost nothing.", "0s"),
        ("ServescopeEngineStalled",
         f"{heartbeat} > {t.engine_stall_s:g}\nand {ON}\n{in_flight} > 0", "page",
         "Engine process silent while requests are in flight",
         f"{who}: no heartbeat from the engine process for {{{{ $value | humanize }}}}s "
         f"(threshold {t.engine_stall_s:g}s) while requests are in flight: they neither "
         "advance nor end, and the API process has not replaced the engine.",
         timing.target_for),
    ]
    return [Alert(name, expr, severity, summary, desc, options.runbook(name), for_)
            for name, expr, severity, summary, desc, for_ in specs]


def groups(slo: SLOSpec, options: Options) -> list[Group]:
    records = _records(slo, options)
    available = {r.record for r in records if not missing_in(r.expr)}
    return [Group("servescope-diagnostic-signals", records),
            Group("servescope-diagnostics",
                  tuple(_burn_alerts(slo, options, available) + _other_alerts(options))),
            Group("servescope-engine", tuple(_engine_alerts(options)))]
