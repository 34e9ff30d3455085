"""promtool unit tests for the generated rules, derived from the same SLO spec.

Each scenario is a set of synthetic series (one replica, one model, scraped every minute); the
tests say which alerts fire in it (with their exact labels and rendered annotations) and which
stay silent, and check the recorded values. Every alert is covered firing and not firing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from servescope.instrumentation import catalog as cat
from servescope.instrumentation.slo import SLOSpec
from servescope.instrumentation.status import TokenStage
from servescope.promql.flavor import GATEWAY_JOB, Flavor, NativeSpec
from servescope.promql.query import TARGET_LABELS, Query
from servescope.promql.recorded import rejection_reasons_known, shed_matcher

from . import dashboard_rules, diagnostics, slo_rules
from .diagnostics import CAUSES
from .model import Alert, Options, Record
from .rules import RULES_PATH, all_rules

__all__ = ["EVAL", "render_annotation", "tests_document"]

EVAL = "75m"
MINUTES = 80
#: The minute a before/after signal changes: an hour of "before" (a full baseline window), then
#: 15 minutes "after", so the diagnostic window is wholly after the change for longer than the
#: diagnostic alerts' "for".
CHANGE = 60
JOB, INSTANCE, MODEL = "servescope", "replica-0:8000", "m"
_TEMPLATE = re.compile(r"\{\{\s*([^}]*?)\s*\}\}")


def _minutes(duration: str) -> int:
    return int(duration.removesuffix("m"))


def _fmt(value: float) -> str:
    return f"{value:.4g}"  # Go's humanize for 1 <= |v| < 1000, and humanizePercentage's body


def render_annotation(template: str, labels: Mapping[str, str], value: float) -> str:
    """Render the few template forms our rules use, exactly as Prometheus does."""
    def one(match: re.Match[str]) -> str:
        expr = match.group(1)
        if expr.startswith("$labels."):
            return labels.get(expr.removeprefix("$labels."), "")
        if expr == "$value | humanizePercentage":
            return f"{_fmt(value * 100)}%"
        if expr == "$value | humanize":
            return _fmt(value)
        if expr == "$value | humanizeDuration":
            return _duration(value)
        raise ValueError(f"template form {expr!r} has no renderer in unittests.py")
    return _TEMPLATE.sub(one, template)


def _duration(seconds: float) -> str:
    """Prometheus's humanizeDuration, for the values our tests give it (0, or 1 s and up)."""
    if seconds == 0:
        return "0s"
    if seconds < 1:
        raise ValueError(f"humanizeDuration of {seconds} has no renderer in unittests.py")
    whole = int(seconds)
    days, hours = whole // 86400, whole // 3600 % 24
    minutes, secs = whole // 60 % 60, whole % 60
    if days:
        return f"{days}d {hours}h {minutes}m {secs}s"
    if hours:
        return f"{hours}h {minutes}m {secs}s"
    if minutes:
        return f"{minutes}m {secs}s"
    return f"{seconds:.4g}s"


def _labels(**extra: str) -> dict[str, str]:
    return {"job": JOB, "instance": INSTANCE, **extra}


def _counter(per_minute: float) -> str:
    return f"0+{per_minute:g}x{MINUTES}"


def _gauge(value: float, step: float = 0) -> str:
    return f"{value:g}+{step:g}x{MINUTES}"


@dataclass(frozen=True)
class _Input:
    """One input series in catalog vocabulary (spec None: a name no flavor translates)."""

    spec: cat.MetricSpec | None
    name: str
    labels: dict[str, str]
    values: str


@dataclass
class Scenario:
    name: str
    inputs: list[_Input] = field(default_factory=list)
    firing: dict[str, list[tuple[dict[str, str], float]]] = field(default_factory=dict)
    records: list[tuple[str, dict[str, str], float]] = field(default_factory=list)
    #: alert -> the alert expected instead where the flavor has no such alert
    fallback: dict[str, str] = field(default_factory=dict)
    interval: str = "1m"  # between input samples

    def add(self, spec: cat.MetricSpec, suffix: str, labels: Mapping[str, str],
            values: str) -> Scenario:
        name = spec.sample_name if suffix == "" else f"{spec.name}{suffix}"
        self.inputs.append(_Input(spec, name, dict(labels), values))
        return self

    def add_raw(self, name: str, labels: Mapping[str, str], values: str) -> Scenario:
        self.inputs.append(_Input(None, name, dict(labels), values))
        return self


def _translate_labels(flavor: Flavor, labels: Mapping[str, str], job: str,
                      allowed: tuple[str, ...] | None = None) -> dict[str, str] | None:
    """Catalog label keys and finish reasons in the flavor's words, the scenario's job as the
    rules' job (None: not representable in the flavor)."""
    out = {}
    for key, value in labels.items():
        if key == "job" and value == JOB:
            value = job
        if allowed is not None and key not in (*TARGET_LABELS, "le", "slo") \
                and key not in allowed:
            continue  # a label the flavor's metric does not carry
        if not flavor.has_label(key):
            continue  # a label no metric of the flavor carries
        if key == cat.FINISH_REASON:
            mapped = flavor.reason(value)
            if mapped is None:
                return None
            value = mapped
        out[flavor.label(key)] = value
    return out


def _emit(flavor: Flavor, item: _Input, job: str) -> dict[str, str] | None:
    name, labels = item.name, dict(item.labels)
    allowed: tuple[str, ...] | None = None
    fixed: dict[str, str] = {}
    if item.spec is not None and flavor.families is not None:
        spec = item.spec
        if spec.name == cat.TOKENS.name:
            mapped = flavor.stage_metric(labels.pop(cat.STAGE))
        elif spec.name == cat.FINISHED.name and not flavor.has_label(cat.FINISH_REASON) \
                and cat.FINISH_REASON in labels:
            mapped = flavor.reason_metric(labels.pop(cat.FINISH_REASON))
        else:
            mapped = flavor.metric(spec)
        if mapped is None:
            return _from_gateway(flavor, item)
        suffix = item.name.removeprefix(spec.name)
        name = mapped.sample_name if suffix == "_total" else f"{mapped.name}{suffix}"
        allowed = mapped.labels
        if isinstance(mapped, NativeSpec):
            fixed = {label: _example(matcher) for label, matcher in mapped.fixed}
    translated = _translate_labels(flavor, labels, job, allowed)
    if translated is None:
        return None
    translated.update(fixed)
    inner = ", ".join(f'{k}="{v}"' for k, v in translated.items())
    return {"series": f"{name}{{{inner}}}", "values": item.values}


def _example(matcher: str) -> str:
    """A label value a fixed matcher selects (the first alternative of a regex)."""
    return matcher.lstrip("=~").strip('"').split("|")[0]


def _requests(s: Scenario, slo: SLOSpec, flavor: Flavor, *, ttft_good: float,
              tpot_good: float, finishes: Mapping[str, float], per_minute: float = 60,
              le_text: Callable[[float], str] = lambda v: repr(float(v)),
              stream_good: float | None = None) -> None:
    """Latency histograms and finish counters for ``per_minute`` requests a minute (stream
    TTFT as good as server TTFT unless ``stream_good`` says otherwise)."""
    ml = _labels(model=MODEL, priority="default")
    q = Query(flavor=flavor)
    stream = ttft_good if stream_good is None else stream_good
    for spec, threshold, good in ((cat.SERVER_TTFT, slo.ttft.threshold_seconds, ttft_good),
                                  (cat.STREAM_TTFT, slo.ttft.threshold_seconds, stream),
                                  (cat.TPOT, slo.tpot.threshold_seconds, tpot_good)):
        boundary = q.threshold(spec, threshold)
        s.add(spec, "_bucket", {**ml, "le": le_text(boundary)}, _counter(per_minute * good))
        s.add(spec, "_bucket", {**ml, "le": "+Inf"}, _counter(per_minute))
        s.add(spec, "_count", ml, _counter(per_minute))
    for reason, share in finishes.items():
        s.add(cat.FINISHED, "", {**ml, "finish_reason": reason}, _counter(per_minute * share))
    if not flavor.has_label(cat.FINISH_REASON):  # its total is a series of its own
        s.add(cat.FINISHED, "", ml, _counter(per_minute))


def _target(s: Scenario, flavor: Flavor, *, up: float = 1, instrumented: bool = True) -> None:
    s.add_raw("up", _labels(), _gauge(up))
    if instrumented:
        s.add_raw(flavor.presence_series, _labels(), _counter(60))


def _changing(before: float, after: float, at: int = CHANGE) -> str:
    """A counter growing by ``before`` a minute, then by ``after`` from minute ``at``."""
    if before == after:
        return _counter(before)
    return f"0+{before:g}x{at} {before * at + after:g}+{after:g}x{MINUTES - at - 1}"


@dataclass(frozen=True)
class Signals:
    """Per-step signals, each as (value before, value after) minute CHANGE."""

    prefix_hits: tuple[float, float] = (0.6, 0.6)  # hit share of prefix lookups
    prefill_step: tuple[float, float] = (0.05, 0.05)  # seconds per prefill forward
    decode_step: float = 0.15  # seconds per decode forward
    batch: tuple[float, float] = (4, 4)  # requests per step


def _steps(s: Scenario, signals: Signals) -> None:
    """Prefix lookups, forward time by phase and batch size for 60 steps a minute."""
    pool = _labels(pool="default")
    hits = signals.prefix_hits
    s.add(cat.PREFIX_QUERIES, "", pool, _counter(100))
    s.add(cat.PREFIX_HITS, "", pool, _changing(100 * hits[0], 100 * hits[1]))
    prefill, decode = _labels(pool="default", phase="prefill"), \
        _labels(pool="default", phase="decode")
    s.add(cat.FORWARD_TIME, "_sum", prefill,
          _changing(60 * signals.prefill_step[0], 60 * signals.prefill_step[1]))
    s.add(cat.FORWARD_TIME, "_count", prefill, _counter(60))
    s.add(cat.FORWARD_TIME, "_sum", decode, _counter(60 * signals.decode_step))
    s.add(cat.FORWARD_TIME, "_count", decode, _counter(60))
    s.add(cat.BATCH_SIZE, "_sum", pool, _changing(60 * signals.batch[0], 60 * signals.batch[1]))
    s.add(cat.BATCH_SIZE, "_count", pool, _counter(60))


def _capacity(s: Scenario, flavor: Flavor, *, waiting: float = 0, waiting_step: float = 0,
              kv_used: float = 10, preempt: float = 0, discarded: float = 0,
              dropped: float = 0, queue_full: float = 0, signals: Signals = Signals()) -> None:
    _steps(s, signals)
    pool = _labels(pool="default")
    s.add(cat.WAITING, "", pool, _gauge(waiting, waiting_step))
    s.add(cat.KV_BLOCKS_USED, "", pool, _gauge(kv_used))
    s.add(cat.KV_BLOCKS_TOTAL, "", pool, _gauge(100))
    if flavor.kv_usage is not None:
        s.add_raw(flavor.kv_usage.name, _labels(), _gauge(kv_used / 100))
    s.add(cat.PREEMPTIONS, "", pool, _counter(preempt))
    s.add(cat.REJECTED, "", _labels(model=MODEL, reason=diagnostics.QUEUE_FULL),
          _counter(queue_full))
    tokens = _labels(model=MODEL)
    s.add(cat.TOKENS, "", {**tokens, "stage": TokenStage.COMMITTED.value}, _counter(1000))
    s.add(cat.TOKENS, "", {**tokens, "stage": TokenStage.DISCARDED.value},
          _counter(1000 * discarded))
    s.add(cat.SPANS_DROPPED, "", _labels(reason="queue_full"), _counter(dropped))


def _replica(name: str, slo: SLOSpec, fl: Flavor, *, ttft_good: float = 1,
             tpot_good: float = 1, finishes: Mapping[str, float] | None = None,
             stream_good: float | None = None, signals: Signals = Signals(),
             capacity: Mapping[str, float] | None = None) -> Scenario:
    """A scenario of one scraped replica: its requests (all finishing "stop" unless
    ``finishes`` says otherwise), its target series and its capacity signals."""
    s = Scenario(name)
    _requests(s, slo, fl, ttft_good=ttft_good, tpot_good=tpot_good,
              finishes={"stop": 1} if finishes is None else finishes, stream_good=stream_good)
    _target(s, fl)
    _capacity(s, fl, signals=signals, **(capacity or {}))
    return s


@dataclass(frozen=True)
class _OneSignal:
    """A healthy-latency replica with one signal present and the one alert it fires."""

    name: str
    finishes: dict[str, float]
    capacity: dict[str, float]
    alert: str
    alert_labels: dict[str, str]
    value: float
    #: (record key in diagnostics.RECORDS, labels beyond job and instance, value)
    records: tuple[tuple[str, dict[str, str], float], ...] = ()
    #: other alerts the same signal fires: (alert, labels beyond job and instance, value)
    also: tuple[tuple[str, dict[str, str], float], ...] = ()


_ONE_SIGNAL = (
    # (the slow-consumer policy ends streams that discard little: a slow client's waste is
    # its send queue, so one in sixteen is enough, whatever the tokens)
    _OneSignal("slow consumers: one request in sixteen closed for reading too slowly",
               {"stop": 0.9375, "slow_consumer": 0.0625}, {"discarded": 0.0625},
               "ServescopeSlowConsumersWastingCompute", {"finish_reason": "slow_consumer"},
               0.0625, (("discard", {}, 0.0625),
                        ("finish", {"finish_reason": "slow_consumer"}, 0.0625))),
    # (cancels discard what was made for them: both the cancel and the waste alerts fire)
    _OneSignal("client cancellations: a quarter of requests cancelled, their tokens discarded",
               {"stop": 0.75, "client_cancel": 0.25}, {"discarded": 0.25},
               "ServescopeCancelRatioHigh", {"finish_reason": "client_cancel"}, 0.25,
               (("finish", {"finish_reason": "client_cancel"}, 0.25), ("discard", {}, 0.25)),
               also=(("ServescopeTokensDiscarded", {}, 0.25),)),
    _OneSignal("telemetry dropping spans", {"stop": 1}, {"dropped": 120},
               "ServescopeTelemetryDroppingSpans", {"reason": "queue_full"}, 2),
)


def _one_signal(row: _OneSignal, slo: SLOSpec, options: Options) -> Scenario:
    ji = {"job": JOB, "instance": INSTANCE}
    w = options.timing.diagnostic_window
    s = _replica(row.name, slo, options.flavor, finishes=row.finishes,
                 capacity=row.capacity)
    s.firing[row.alert] = [({**ji, **row.alert_labels}, row.value)]
    for alert, labels, value in row.also:
        s.firing[alert] = [({**ji, **labels}, value)]
    s.records += [(f"{diagnostics.RECORDS[key]}{w}", {**ji, **labels}, value)
                  for key, labels, value in row.records]
    return s


def _scenarios(slo: SLOSpec, options: Options) -> list[Scenario]:
    w = options.timing.diagnostic_window
    sli = slo_rules.SLI_RECORD
    rec = diagnostics.RECORDS
    jm = {"job": JOB, "model": MODEL}
    ji = {"job": JOB, "instance": INSTANCE}
    fl = options.flavor
    out: list[Scenario] = []

    healthy = _replica("healthy: every request good, nothing fires", slo, fl)
    for window in slo_rules.windows(slo):
        for key in slo_rules.SLOS:
            healthy.records.append((f"{sli}{window}", {**jm, "slo": key}, 0.0))
    base = options.timing.baseline_window
    healthy.records += [(rec["kv"], ji, 0.1), (rec["waiting"], ji, 0.0),
                        (f"{rec['queue_full']}{w}", ji, 0.0),
                        (f"{rec['discard']}{w}", ji, 0.0),
                        (f"{rec['finish']}{w}", {**ji, "finish_reason": "stop"}, 1.0),
                        (f"{rec['ttft']}{w}", ji, 0.0), (f"{rec['stream_ttft']}{w}", ji, 0.0),
                        (f"{rec['tpot']}{w}", ji, 0.0),
                        (f"{rec['prefix']}{w}", ji, 0.6), (f"{rec['prefix']}{base}", ji, 0.6),
                        (f"{rec['prefill_step']}{w}", ji, 0.05),
                        (f"{rec['prefill_step']}{base}", ji, 0.05),
                        (f"{rec['prefill_share']}{w}", ji, 0.25),
                        (f"{rec['batch']}{w}", ji, 4.0), (f"{rec['batch']}{base}", ji, 4.0),
                        (slo_rules.HEARTBEAT, {"flavor": fl.name}, _minutes(EVAL) * 60.0),
                        (slo_rules.TARGETS, {"job": JOB}, 1.0),
                        (slo_rules.TARGETS_UP, {"job": JOB}, 1.0)]
    out.append(healthy)

    burn = _replica("all three SLOs burning: half the requests slow and failing", slo, fl,
                    ttft_good=0.5, tpot_good=0.5, finishes={"stop": 0.5, "error": 0.5})
    for obj in slo_rules.objectives(slo, options):
        _burn_expectation(burn, slo, obj, 0.5)
    for window in slo_rules.windows(slo):
        for key in slo_rules.SLOS:
            burn.records.append((f"{sli}{window}", {**jm, "slo": key}, 0.5))
    burn.firing["ServescopeErrorRatioHigh"] = [({**ji, "finish_reason": "error"}, 0.5)]
    for key, target in (("ttft", slo.ttft.target), ("tpot", slo.tpot.target)):
        if diagnostics.burning_limit(slo, target)[1] < 0.5:
            burn.firing[CAUSES[(key, "unknown")]] = [(ji, 0.5)]
    burn.records.append((f"{rec['ttft']}{w}", ji, 0.5))
    short = slo_rules.stage_window(slo)
    for key in slo_rules.SLOS:  # the first stage: one request a second, half of them bad
        burn.records += [(f"{slo_rules.BAD_RECORD}{short}", {**jm, "slo": key}, 0.5),
                         (f"{slo_rules.ALL_RECORD}{short}", {**jm, "slo": key}, 1.0)]
    out.append(burn)

    slow_burn = _slow_burn(slo, options)
    if slow_burn is not None:
        out.append(slow_burn)
    out += _shedding(slo, options)

    out += _cause_matrix(slo, options)
    out.append(_paired_transport(slo, options))
    out += [_one_signal(row, slo, options) for row in _ONE_SIGNAL]

    go_style = Scenario("le written as a Go client does (le=\"2\"): the SLI still matches")
    _requests(go_style, slo, fl, ttft_good=1, tpot_good=1, finishes={"stop": 1},
              le_text=lambda v: f"{v:g}")
    _target(go_style, fl)
    go_style.records.append((f"{sli}{slo_rules.windows(slo)[0]}", {**jm, "slo": "ttft"}, 0.0))
    out.append(go_style)

    down = Scenario("target down")
    _target(down, fl, up=0, instrumented=False)
    down.firing["ServescopeTargetDown"] = [(ji, 0.0)]
    down.firing["ServescopeShardTargetsDown"] = [({"job": JOB}, 0.0)]
    out.append(down)

    bare = Scenario("target up without the inference server's metrics")
    _target(bare, fl, instrumented=False)
    bare.firing["ServescopeMetricsAbsent"] = [(ji, 1.0)]
    out.append(bare)

    out += _engine_scenarios(slo, options)

    missing = Scenario("no target at all")
    missing.add_raw("unrelated_series", {"job": "other"}, _gauge(1))
    missing.firing["ServescopeTargetsMissing"] = [({"job": JOB}, 1.0)]
    out.append(missing)
    out += _shard_scenarios(fl)
    out.append(_dashboard_rates(options))
    return out


def _dashboard_rates(options: Options) -> Scenario:
    """Two replicas scraped every 15 s, one at 1/s and one at 2/s on every series a dashboard
    recording reads: each recording is 3/s, by job and the labels it keeps. The label values
    are ones no alert matches (``x``, ``+Inf``); only dropped spans page, whatever the reason."""
    steps = _minutes(EVAL) * 4 + 20
    s = Scenario("two replicas: each dashboard recording sums their rates", interval="15s")
    replicas = ((INSTANCE, 15), ("replica-1:8000", 30))  # per 15 s step: 1/s and 2/s
    for instance, _ in replicas:
        s.add_raw("up", {"job": JOB, "instance": instance}, f"1+0x{steps}")
        s.add_raw(options.flavor.presence_series, {"job": JOB, "instance": instance},
                  f"1+0x{steps}")
    # a counter of one finish reason (SGLang's aborts) at 1/16 of the others: no cause alert
    reasons = {m.spec().sample_name for m in (options.flavor.reason_counters or {}).values()
               if m is not None}
    for source in dashboard_rules.sources(options):
        labels = {k: "+Inf" if k == "le" else "x" for k in source.keys}
        scale = 0.0625 if source.series in reasons else 1.0
        for instance, per_step in replicas:
            s.add_raw(source.series, {"job": JOB, "instance": instance, **labels},
                      f"0+{per_step * scale:g}x{steps}")
        s.records.append((source.record, {"job": JOB, **labels}, 3.0 * scale))
        if source.series == cat.SPANS_DROPPED.sample_name:
            s.firing["ServescopeTelemetryDroppingSpans"] = [
                ({"job": JOB, "instance": instance, **labels}, per_step / 15)
                for instance, per_step in replicas]
    return s


def _shard_scenarios(fl: Flavor) -> list[Scenario]:
    """The global tier's view of a remote shard (its records carry a ``shard`` external label):
    one whose heartbeat stopped 5 minutes before the evaluation, one whose target count
    vanished (the scenario has no local target, so the local absent() alert fires too)."""
    shard = {"shard": "b"}
    silent = Scenario("a shard stopped sending its series")
    silent.add_raw(slo_rules.HEARTBEAT, shard, f"0+60x{CHANGE + 10}")
    _target(silent, fl)
    silent.firing["ServescopeShardSilent"] = [(shard, 300.0)]
    lost = Scenario("a shard lost every target of its job")
    lost.add_raw(slo_rules.TARGETS, {"job": JOB, **shard}, f"3x{CHANGE} _x20")
    lost.firing["ServescopeShardTargetsMissing"] = [({"job": JOB, **shard}, 3.0)]
    lost.firing["ServescopeTargetsMissing"] = [({"job": JOB}, 1.0)]  # absent() of one name
    # the same, the shard gone 70 minutes before the evaluation: past any window of its
    # samples, the global tier's memory still pages
    long_silent = Scenario("a shard silent for over an hour")
    long_silent.add_raw(slo_rules.HEARTBEAT, shard, "0+60x5")
    _target(long_silent, fl)
    long_silent.firing["ServescopeShardSilent"] = [(shard, (CHANGE + 15 - 5) * 60.0)]
    long_silent.records.append((slo_rules.HEARTBEAT_LAST, shard, 5 * 60.0))  # its last beat
    long_lost = Scenario("a shard without targets for over an hour")
    long_lost.add_raw(slo_rules.TARGETS, {"job": JOB, **shard}, f"3x5 _x{CHANGE + 10}")
    # last seen when its last sample (minute 5) left the 5-minute lookback
    long_lost.firing["ServescopeShardTargetsMissing"] = [({"job": JOB, **shard}, 10 * 60.0)]
    long_lost.records.append((slo_rules.TARGETS_LAST, {"job": JOB, **shard}, 10 * 60.0))
    long_lost.firing["ServescopeTargetsMissing"] = [({"job": JOB}, 1.0)]
    return [silent, lost, long_silent, long_lost]


def _cause(name: str, slo: SLOSpec, options: Options, slo_key: str, cause: str, *,
           signals: Signals = Signals(), **capacity: float) -> Scenario:
    """One SLO fully burning on one replica with one cause's signal present: that cause's
    alert fires (or, where the flavor cannot see the cause, the SLO's cause-unknown alert)."""
    s = _replica(name, slo, options.flavor, ttft_good=0.0 if slo_key == "ttft" else 1.0,
                 tpot_good=0.0 if slo_key == "tpot" else 1.0,
                 stream_good=0.0 if slo_key == "stream_ttft" else None,
                 signals=signals, capacity=capacity)
    if slo_key in ("ttft", "tpot"):
        _burn_expectation(s, slo, slo_rules.objectives(slo)[0 if slo_key == "ttft" else 1], 1.0)
    s.firing[CAUSES[(slo_key, cause)]] = [({"job": JOB, "instance": INSTANCE}, 1.0)]
    if cause != "unknown" and slo_key != "stream_ttft":
        s.fallback[CAUSES[(slo_key, cause)]] = CAUSES[(slo_key, "unknown")]
    return s


def _in_pod(s: Scenario, pod: str, instance: str = INSTANCE) -> Scenario:
    """The scenario's replica moved to ``instance``, its targets labelled with ``pod``."""
    def move(labels: dict[str, str]) -> dict[str, str]:
        return {**labels, "instance": instance, "pod": pod} if "instance" in labels else labels
    s.inputs = [replace(i, labels=move(i.labels)) for i in s.inputs]
    s.firing = {k: [(move(labels), v) for labels, v in f] for k, f in s.firing.items()}
    return s


def _paired_transport(slo: SLOSpec, options: Options) -> Scenario:
    """Two pods, a gateway beside each engine: pod a's gateway writes first tokens late while
    its engine is in time; pod b's engine burns its TTFT. The transport cause fires for pod a
    only: b's engine does not hide it (it would if every gateway paired with every engine)."""
    a = _in_pod(_cause("", slo, options, "stream_ttft", "transport"), "a")
    b = _in_pod(_replica("", slo, options.flavor, ttft_good=0.0), "b", "replica-1:8000")
    s = Scenario("pod a: first tokens late past its gateway while pod b's engine burns",
                 a.inputs + b.inputs, dict(a.firing))
    if diagnostics.burning_limit(slo, slo.ttft.target)[1] < 1.0:
        s.firing[CAUSES[("ttft", "unknown")]] = [
            ({"job": JOB, "instance": "replica-1:8000", "pod": "b"}, 1.0)]
    _burn_expectation(s, slo, slo_rules.objectives(slo, options)[0], 0.5)
    return s


def _queue_full(slo: SLOSpec, options: Options) -> list[Scenario]:
    """Held at its cap, the queue grows no more: its refusals (queue_full) name the cause,
    where the flavor counts them."""
    if not rejection_reasons_known(options.flavor):  # (its record is not made)
        return []
    s = _cause("TTFT cause: the admission queue full, new requests refused", slo, options,
               "ttft", "queue", waiting=48, queue_full=6)
    # (its refusals are the availability SLI's errors too, where the flavor's availability
    # counts refusals: 6 a minute beside 60 finished)
    if shed_matcher(slo, options.flavor) is not None:
        availability = next(o for o in slo_rules.objectives(slo, options)
                            if o.key == "availability")
        _burn_expectation(s, slo, availability, 0.1)
    return [s]


def _cause_matrix(slo: SLOSpec, options: Options) -> list[Scenario]:
    """Each cause alone behind a TTFT, stream TTFT or TPOT burn: its alert fires, every other
    cause alert stays silent."""
    t = options.thresholds
    hot = 100 * min(0.99, t.kv_usage_high + 0.05)
    return [
        _cause("TTFT cause: the admission queue grows", slo, options, "ttft", "queue",
               waiting=2, waiting_step=1),
        *_queue_full(slo, options),
        _cause("TTFT cause: KV nearly full", slo, options, "ttft", "kv", kv_used=hot),
        _cause("TTFT cause: requests preempted", slo, options, "ttft", "kv", preempt=6),
        _cause("TTFT cause: the prefix-cache hit ratio drops from 80% to 10%", slo, options,
               "ttft", "prefix", signals=Signals(prefix_hits=(0.8, 0.1),
                                                 prefill_step=(0.05, 0.3))),
        _cause("TTFT cause: prefill forwards 6x slower, prefix hits steady", slo, options,
               "ttft", "prefill", signals=Signals(prefill_step=(0.05, 0.3))),
        _cause("TTFT cause: none the rules can see", slo, options, "ttft", "unknown"),
        _cause("stream TTFT burning, server TTFT fine: transport", slo, options,
               "stream_ttft", "transport"),
        _cause("TPOT cause: requests preempted", slo, options, "tpot", "kv", preempt=6),
        _cause("TPOT cause: prefill forwards take two thirds of the forward time", slo,
               options, "tpot", "prefill", signals=Signals(prefill_step=(0.3, 0.3))),
        _cause("TPOT cause: the batch grows from 4 to 16 requests a step", slo, options,
               "tpot", "batch", signals=Signals(batch=(4, 16))),
        _cause("TPOT cause: none the rules can see", slo, options, "tpot", "unknown"),
    ]


def _engine(name: str, slo: SLOSpec, fl: Flavor, *, restarts: str = _counter(0),
            heartbeat_age: str = _gauge(0.1), in_flight: float = 0) -> Scenario:
    """A healthy replica whose engine runs in its own process, plus the engine's series."""
    s = _replica(name, slo, fl)
    pool = _labels(pool="default")
    s.add(cat.ENGINE_RESTARTS, "", {**pool, "reason": "exited"}, restarts)
    s.add(cat.ENGINE_HEARTBEAT_AGE, "", pool, heartbeat_age)
    s.add(cat.ENGINE_LAST_STEP_AGE, "", pool, heartbeat_age)
    s.add(cat.IN_FLIGHT, "", _labels(model=MODEL), _gauge(in_flight))
    return s


def _engine_scenarios(slo: SLOSpec, options: Options) -> list[Scenario]:
    fl, t = options.flavor, options.thresholds
    ji = {"job": JOB, "instance": INSTANCE}
    eval_minutes = int(EVAL.rstrip("m"))
    healthy = _engine("engine process healthy: heartbeats, no restart", slo, fl, in_flight=4)
    # the restart two minutes before the evaluation, inside every diagnostic window
    once = _engine("engine process restarted once (a kill): ticket, no page", slo, fl,
                   restarts=f"0x{eval_minutes - 2} 1x{MINUTES - eval_minutes + 2}")
    once.firing["ServescopeEngineRestarting"] = [(ji, 1.0)]
    loop = _engine("engine process crash-looping: restarted every 20 seconds", slo, fl,
                   restarts=_counter(3 * t.engine_crash_loop))
    loop.firing["ServescopeEngineRestarting"] = [(ji, 1.0)]
    loop.firing["ServescopeEngineCrashLooping"] = [(ji, 1.0)]
    stalled = _engine("engine process silent with requests in flight", slo, fl,
                      heartbeat_age=_gauge(120), in_flight=3)
    stalled.firing["ServescopeEngineStalled"] = [(ji, 120.0)]
    idle = _engine("engine heartbeat old but nothing in flight: no stall alert", slo, fl,
                   heartbeat_age=_gauge(120), in_flight=0)
    return [healthy, once, loop, stalled, idle]


def _slow_burn(slo: SLOSpec, options: Options) -> Scenario | None:
    """An error ratio between the slowest ticket and the slowest page threshold: the ticket
    fires, the page does not (the windows and severities do their job)."""
    ttft = slo_rules.objectives(slo, options)[0]
    by_severity: dict[str, float] = {}
    for aw in slo.alert_windows:
        limit = aw.burn_rate * ttft.budget
        by_severity[aw.severity] = min(by_severity.get(aw.severity, limit), limit)
    page, ticket = by_severity.get("page"), by_severity.get("ticket")
    if page is None or ticket is None or not ticket < page < 1:
        return None
    ratio = round((ticket + page) / 2, 6)
    s = _replica(f"slow TTFT burn ({ratio:.4g} of requests slow): ticket, no page", slo,
                 options.flavor, ttft_good=1 - ratio)
    s.firing["ServescopeTTFTBudgetBurnTicket"] = [
        ({"job": JOB, "model": MODEL, "slo": "ttft"}, ratio)]
    return s


def _shedding(slo: SLOSpec, options: Options) -> list[Scenario]:
    """Half the requests refused: load shed (queue_full) burns the availability budget; a
    client's own bad requests (invalid_request) burn nothing. Where rejections carry their
    reason and end as finishes (servescope's own series) and the spec counts some as bad."""
    shed = shed_matcher(slo, options.flavor)
    if shed is None or not re.fullmatch(shed[3:-1], "queue_full"):
        return []
    jm = {"job": JOB, "model": MODEL}
    short = slo_rules.stage_window(slo)
    ml = _labels(model=MODEL)
    out = []
    for reason, bad in (("queue_full", 0.5), ("invalid_request", 0.0)):
        s = _replica(f"half the requests refused ({reason})", slo, options.flavor,
                     finishes={"stop": 0.5, "rejected": 0.5})
        s.add(cat.REJECTED, "", {**ml, "reason": reason}, _counter(30))
        s.records += [(f"{slo_rules.BAD_RECORD}{short}", {**jm, "slo": "availability"}, bad),
                      (f"{slo_rules.ALL_RECORD}{short}", {**jm, "slo": "availability"}, 1.0)]
        if bad:
            obj = next(o for o in slo_rules.objectives(slo, options) if o.key == "availability")
            _burn_expectation(s, slo, obj, bad)
        out.append(s)
    return out


def _burn_expectation(s: Scenario, slo: SLOSpec, obj: slo_rules.Objective,
                      ratio: float) -> None:
    """A burn alert fires when some window pair of its severity is exceeded by ``ratio``."""
    for severity in sorted({aw.severity for aw in slo.alert_windows}):
        pairs = [aw for aw in slo.alert_windows if aw.severity == severity]
        if any(ratio > aw.burn_rate * obj.budget for aw in pairs):
            s.firing[f"Servescope{obj.name}BudgetBurn{severity.capitalize()}"] = [
                ({"job": JOB, "model": MODEL, "slo": obj.key}, ratio)]


def _expected(alert: Alert, firing: list[tuple[dict[str, str], float]]) -> list[dict[str, Any]]:
    out = []
    for labels, value in firing:
        all_labels = {"severity": alert.severity, **alert.labels, **labels}
        ctx = {**all_labels, "alertname": alert.alert}
        out.append({"exp_labels": all_labels, "exp_annotations": {
            "summary": render_annotation(alert.summary, ctx, value),
            "description": render_annotation(alert.description, ctx, value),
            "runbook_url": alert.runbook_url}})
    return out


def tests_document(slo: SLOSpec, options: Options | None = None) -> dict[str, Any]:
    options = options or Options()
    flavor = options.flavor
    rules = all_rules(slo, options)
    alerts = {r.alert: r for r in rules if isinstance(r, Alert)}
    recorded = {(r.record, r.labels.get("slo")) for r in rules if isinstance(r, Record)}
    tests = []
    for scenario in _scenarios(slo, options):
        for missing, instead in scenario.fallback.items():
            if missing not in alerts and missing in scenario.firing:
                scenario.firing[instead] = scenario.firing.pop(missing)
        unknown = set(scenario.firing) - set(alerts)
        if unknown and flavor.families is None:
            raise AssertionError(f"scenario {scenario.name!r} expects unknown alerts {unknown}")
        alert_tests = [{"eval_time": EVAL, "alertname": name,
                        "exp_alerts": _expected(alerts[name], _in_flavor(
                            flavor, scenario.firing.get(name, []),
                            _job_of(flavor, name, options.job)))}
                       for name in alerts]
        record_tests = []
        for name, labels, value in scenario.records:
            translated = _translate_labels(flavor, labels, _job_of(flavor, name, options.job))
            if (name, labels.get("slo")) in recorded and translated is not None:
                record_tests.append({"expr": _sel(name, translated), "eval_time": EVAL,
                                     "exp_samples": [{"labels": _sel(name, translated),
                                                      "value": value}]})
        series = [e for e in (_emit(flavor, i, options.job) for i in scenario.inputs)
                  if e is not None]
        test: dict[str, Any] = {"name": scenario.name, "interval": scenario.interval,
                                "input_series": series, "alert_rule_test": alert_tests}
        if record_tests:
            test["promql_expr_test"] = record_tests
        tests.append(test)
    rules_file = RULES_PATH.format(flavor=flavor.name).rsplit("/", 1)[1]
    return {"rule_files": [rules_file], "evaluation_interval": "1m", "tests": tests}


def _in_flavor(flavor: Flavor, firing: list[tuple[dict[str, str], float]], job: str
               ) -> list[tuple[dict[str, str], float]]:
    out = []
    for labels, value in firing:
        translated = _translate_labels(flavor, labels, job)
        if translated is not None:
            out.append((translated, value))
    return out


def _from_gateway(flavor: Flavor, item: _Input) -> dict[str, str] | None:
    """A catalog series the rules read from the gateway in front of the engine (its job)."""
    if item.spec is None:
        return None
    # the stream TTFT, and the server TTFT of an engine with none (the transport cause)
    lacks_ttft = item.spec.name == cat.SERVER_TTFT.name and flavor.metric(item.spec) is None
    if not flavor.for_rules().from_gateway(item.spec.name) and \
            not (lacks_ttft and flavor.from_gateway(item.spec.name)):
        return None
    labels = {**item.labels, "job": GATEWAY_JOB}
    inner = ", ".join(f'{k}="{v}"' for k, v in labels.items())
    return {"series": f"{item.name}{{{inner}}}", "values": item.values}


def _job_of(flavor: Flavor, what: str, job: str) -> str:
    """The job a record or alert of the rules carries: the gateway's for the stream TTFT."""
    via_gateway = flavor.for_rules().from_gateway(cat.STREAM_TTFT.name)
    stream = what.startswith(diagnostics.RECORDS["stream_ttft"]) or \
        what == CAUSES[("stream_ttft", "transport")]
    return GATEWAY_JOB if via_gateway and stream else job


def _sel(name: str, labels: Mapping[str, str]) -> str:
    inner = ", ".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    return f"{name}{{{inner}}}"
