"""Diagnostic rules: alerts that correlate signals to say *why*, per replica.

A TTFT rise alone does not say why. Per (job, instance), the TTFT error ratio is read beside the
waiting queue, KV usage and preemptions: a growing queue points at admission/capacity, full KV or
preemptions at KV pressure, neither at prefill or transport. Beside them: slow consumers wasting
compute, cancel/error spikes, a pipeline dropping spans, targets down or not instrumented.
"""

from __future__ import annotations

from servescope.dashboards.flavor import unavailable
from servescope.instrumentation import catalog as cat
from servescope.instrumentation.slo import SLOSpec
from servescope.instrumentation.status import FinishReason, TokenStage

from . import slo_rules
from .model import Alert, Group, Options, Record

__all__ = ["RECORDS", "burning_limit", "groups"]

BY = ("job", "instance")
ON = "on (job, instance)"

#: Recorded per-replica signals (window suffix appended where the record is a rate).
RECORDS = {
    "ttft": "servescope_instance:ttft_errors:ratio_rate",
    "kv": "servescope_instance:kv_usage:ratio",
    "waiting": "servescope_instance:requests_waiting:sum",
    "preempt": "servescope_instance:preemptions:rate",
    "discard": "servescope_instance:tokens_discarded_per_committed:ratio_rate",
    "finish": "servescope_instance:finish_reason:ratio_rate",
}


def _records(slo: SLOSpec, options: Options) -> tuple[Record, ...]:
    window = options.timing.diagnostic_window
    q = options.query(window)
    finished = q.rate(cat.FINISHED, *BY)
    by_reason = q.rate(cat.FINISHED, *BY, cat.FINISH_REASON)
    return (
        Record(RECORDS["ttft"] + window,
               f"1 - {q.within(cat.SERVER_TTFT, slo.ttft.threshold_seconds, *BY)}"),
        Record(RECORDS["kv"], q.kv_usage(*BY)),
        Record(RECORDS["waiting"], q.level(cat.WAITING, *BY)),
        Record(RECORDS["preempt"] + window, q.rate(cat.PREEMPTIONS, *BY)),
        Record(RECORDS["discard"] + window,
               f"{q.rate(cat.TOKENS, *BY, stage=TokenStage.DISCARDED.value)} / "
               f"{q.rate(cat.TOKENS, *BY, stage=TokenStage.COMMITTED.value)}"),
        Record(RECORDS["finish"] + window,
               f"{by_reason} / ignoring ({q.label(cat.FINISH_REASON)}) group_left {finished}"),
    )


def burning_limit(slo: SLOSpec) -> tuple[float, float]:
    """(burn rate, TTFT error ratio) above which a replica counts as burning: the smallest
    paging burn rate of the spec."""
    pages = [w.burn_rate for w in slo.alert_windows if w.severity == "page"]
    burn = min(pages) if pages else min(w.burn_rate for w in slo.alert_windows)
    return burn, burn * (1 - slo.ttft.target)


def _burning(slo: SLOSpec, window: str) -> tuple[str, float]:
    burn, limit = burning_limit(slo)
    return f"{RECORDS['ttft']}{window} > {limit:.6g}", burn


def _ttft_alerts(slo: SLOSpec, options: Options) -> list[Alert]:
    w, t, timing = options.timing.diagnostic_window, options.thresholds, options.timing
    burning, burn = _burning(slo, w)
    waiting, kv, preempt = RECORDS["waiting"], RECORDS["kv"], RECORDS["preempt"] + w
    queue_grows = f"({waiting} > {t.queue_low:g} and deriv({waiting}[{w}]) > 0)"
    kv_pressure = f"({kv} > {t.kv_usage_high:g} or {preempt} > 0)"
    who = "{{ $labels.instance }} ({{ $labels.job }})"
    ttft = (f"TTFT {slo_rules.above(options, cat.SERVER_TTFT, slo.ttft.threshold_seconds)} "
            "for {{ $value | humanizePercentage }}")
    specs = [
        ("ServescopeTTFTBurnQueueGrowing", f"{burning}\nand {ON}\n{queue_grows}",
         "TTFT SLO burning while the admission queue grows (admission/capacity)",
         f"{who}: {ttft} of requests (>{burn:g}x budget burn) while more than "
         f"{t.queue_low:g} requests wait and the queue keeps growing: requests wait for a "
         "batch slot or KV blocks. Add replicas or capacity, or shed load earlier."),
        ("ServescopeTTFTBurnKVPressure", f"{burning}\nand {ON}\n{kv_pressure}",
         "TTFT SLO burning under KV-cache pressure",
         f"{who}: {ttft} of requests (>{burn:g}x budget burn) while KV usage is above "
         f"{t.kv_usage_high:.0%} or requests are being preempted: admission waits for KV "
         "blocks and preempted requests redo prefill."),
        ("ServescopeTTFTBurnPrefillOrTransport",
         f"{burning}\nunless {ON}\n({queue_grows} or {kv_pressure})",
         "TTFT SLO burning with a short queue and free KV (prefill or transport)",
         f"{who}: {ttft} of requests (>{burn:g}x budget burn) with no growing queue and no "
         "KV pressure: look at prefill time (long prompts, slow kernels) and the gap between "
         "server and stream TTFT (transport)."),
    ]
    return [Alert(name, expr, "ticket", summary, desc, options.runbook(name),
                  timing.diagnostic_for) for name, expr, summary, desc in specs]


def _other_alerts(options: Options) -> list[Alert]:
    w, t, timing = options.timing.diagnostic_window, options.thresholds, options.timing
    who = "{{ $labels.instance }} ({{ $labels.job }})"
    finish = RECORDS["finish"] + w
    q = options.query(w)
    job = f'=~"{options.job}"'
    up = f"up{{job{job}}}"
    flavor = options.flavor

    def reason(value: str) -> str:
        mapped = flavor.reason(value)
        if mapped is None:
            return unavailable(flavor.name, f"{cat.FINISHED.sample_name}[finish_reason={value}]")
        return f'{finish}{{{flavor.label(cat.FINISH_REASON)}="{mapped}"}}'

    specs = [
        ("ServescopeSlowConsumersWastingCompute", f"{RECORDS['discard']}{w} > "
         f"{t.discarded_ratio:g}", "Slow consumers: committed tokens discarded",
         f"{who}: {{{{ $value | humanizePercentage }}}} of committed tokens were never "
         f"delivered, i.e. never acknowledged by the client's TCP (threshold "
         f"{t.discarded_ratio:.0%}): clients read slower than the server generates, so "
         "requests end (slow_consumer, deadline, cancel) with tokens still buffered or "
         "unacknowledged in socket buffers. Compute spent on them is wasted; the transport "
         "dashboard's written vs delivered and waste per request panels show where.",
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
        ("ServescopeTargetsMissing", f"absent({up})", "No inference server target at all",
         f"Prometheus has no scrape target for job=~\"{options.job}\": service discovery "
         "or the scrape config lost the servers.", timing.target_for),
    ]
    alerts = [Alert(name, expr, "ticket", summary, desc, options.runbook(name), for_)
              for name, expr, summary, desc, for_ in specs]
    page = {"ServescopeTargetsMissing"}
    return [Alert(a.alert, a.expr, "page" if a.alert in page else a.severity, a.summary,
                  a.description, a.runbook_url, a.for_) for a in alerts]


def groups(slo: SLOSpec, options: Options) -> list[Group]:
    return [Group("servescope-diagnostic-signals", _records(slo, options)),
            Group("servescope-diagnostics",
                  tuple(_ttft_alerts(slo, options) + _other_alerts(options)))]
