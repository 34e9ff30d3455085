"""promtool unit tests for the generated rules, derived from the same SLO spec.

Each scenario is a set of synthetic series (one replica, one model, scraped every minute); the
tests say which alerts fire in it (with their exact labels and rendered annotations) and which
stay silent, and check the recorded values. Every alert is covered firing and not firing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from servescope.instrumentation import catalog as cat
from servescope.instrumentation.slo import SLOSpec
from servescope.instrumentation.status import TokenStage

from . import diagnostics, slo_rules
from .model import Alert, Options
from .render import RULES_PATH, all_rules

__all__ = ["EVAL", "render_annotation", "tests_document"]

EVAL = "15m"
MINUTES = 20
JOB, INSTANCE, MODEL = "servescope", "replica-0:8000", "m"
_TEMPLATE = re.compile(r"\{\{\s*([^}]*?)\s*\}\}")


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
        raise ValueError(f"template form {expr!r} has no renderer in unittests.py")
    return _TEMPLATE.sub(one, template)


def _labels(**extra: str) -> dict[str, str]:
    return {"job": JOB, "instance": INSTANCE, **extra}


def _series(name: str, labels: Mapping[str, str], values: str) -> dict[str, str]:
    inner = ", ".join(f'{k}="{v}"' for k, v in labels.items())
    return {"series": f"{name}{{{inner}}}", "values": values}


def _counter(per_minute: float) -> str:
    return f"0+{per_minute:g}x{MINUTES}"


def _gauge(value: float, step: float = 0) -> str:
    return f"{value:g}+{step:g}x{MINUTES}"


@dataclass
class Scenario:
    name: str
    series: list[dict[str, str]] = field(default_factory=list)
    firing: dict[str, list[tuple[dict[str, str], float]]] = field(default_factory=dict)
    records: list[tuple[str, dict[str, str], float]] = field(default_factory=list)

    def add(self, name: str, labels: Mapping[str, str], values: str) -> Scenario:
        self.series.append(_series(name, labels, values))
        return self


def _requests(s: Scenario, slo: SLOSpec, *, ttft_good: float, tpot_good: float,
              finishes: Mapping[str, float], per_minute: float = 60) -> None:
    """Latency histograms and finish counters for ``per_minute`` requests a minute."""
    ml = _labels(model=MODEL, priority="default")
    for spec, threshold, good in ((cat.SERVER_TTFT, slo.ttft.threshold_seconds, ttft_good),
                                  (cat.TPOT, slo.tpot.threshold_seconds, tpot_good)):
        s.add(f"{spec.name}_bucket", {**ml, "le": repr(float(threshold))},
              _counter(per_minute * good))
        s.add(f"{spec.name}_bucket", {**ml, "le": "+Inf"}, _counter(per_minute))
        s.add(f"{spec.name}_count", ml, _counter(per_minute))
    for reason, share in finishes.items():
        s.add(cat.FINISHED.sample_name, {**ml, "finish_reason": reason},
              _counter(per_minute * share))


def _target(s: Scenario, *, up: float = 1, instrumented: bool = True) -> None:
    s.add("up", _labels(), _gauge(up))
    if instrumented:
        s.add(cat.SPANS_EXPORTED.sample_name, _labels(), _counter(60))


def _capacity(s: Scenario, *, waiting: float = 0, waiting_step: float = 0, kv_used: float = 10,
              preempt: float = 0, discarded: float = 0) -> None:
    pool = _labels(pool="default")
    s.add(cat.WAITING.name, pool, _gauge(waiting, waiting_step))
    s.add(cat.KV_BLOCKS_USED.name, pool, _gauge(kv_used))
    s.add(cat.KV_BLOCKS_TOTAL.name, pool, _gauge(100))
    s.add(cat.PREEMPTIONS.sample_name, pool, _counter(preempt))
    tokens = _labels(model=MODEL)
    s.add(cat.TOKENS.sample_name, {**tokens, "stage": TokenStage.COMMITTED.value},
          _counter(1000))
    s.add(cat.TOKENS.sample_name, {**tokens, "stage": TokenStage.DISCARDED.value},
          _counter(1000 * discarded))
    s.add(cat.SPANS_DROPPED.sample_name, _labels(reason="queue_full"), _counter(0))


def _scenarios(slo: SLOSpec, options: Options) -> list[Scenario]:
    w = options.timing.diagnostic_window
    t = options.thresholds
    sli = slo_rules.SLI_RECORD
    rec = diagnostics.RECORDS
    jm = {"job": JOB, "model": MODEL}
    ji = {"job": JOB, "instance": INSTANCE}
    out: list[Scenario] = []

    healthy = Scenario("healthy: every request good, nothing fires")
    _requests(healthy, slo, ttft_good=1, tpot_good=1, finishes={"stop": 1})
    _target(healthy)
    _capacity(healthy)
    for window in slo_rules.windows(slo):
        for key in slo_rules.SLOS:
            healthy.records.append((f"{sli}{window}", {**jm, "slo": key}, 0.0))
    healthy.records += [(rec["kv"], ji, 0.1), (rec["waiting"], ji, 0.0),
                        (f"{rec['discard']}{w}", ji, 0.0),
                        (f"{rec['finish']}{w}", {**ji, "finish_reason": "stop"}, 1.0)]
    out.append(healthy)

    burn = Scenario("all three SLOs burning: half the requests slow and failing")
    _requests(burn, slo, ttft_good=0.5, tpot_good=0.5, finishes={"stop": 0.5, "error": 0.5})
    _target(burn)
    _capacity(burn)
    for obj in slo_rules.objectives(slo):
        _burn_expectation(burn, slo, obj, 0.5)
    for window in slo_rules.windows(slo):
        for key in slo_rules.SLOS:
            burn.records.append((f"{sli}{window}", {**jm, "slo": key}, 0.5))
    burn.firing["ServescopeErrorRatioHigh"] = [({**ji, "finish_reason": "error"}, 0.5)]
    if diagnostics.burning_limit(slo)[1] < 0.5:
        burn.firing["ServescopeTTFTBurnPrefillOrTransport"] = [(ji, 0.5)]
    burn.records.append((f"{rec['ttft']}{w}", ji, 0.5))
    out.append(burn)

    queue = Scenario("TTFT burning while the queue grows")
    _requests(queue, slo, ttft_good=0, tpot_good=1, finishes={"stop": 1})
    _ttft_burning(queue, slo)
    _target(queue)
    _capacity(queue, waiting=2, waiting_step=1)
    queue.firing["ServescopeTTFTBurnQueueGrowing"] = [(ji, 1.0)]
    out.append(queue)

    kv = Scenario("TTFT burning with KV nearly full")
    _requests(kv, slo, ttft_good=0, tpot_good=1, finishes={"stop": 1})
    _ttft_burning(kv, slo)
    _target(kv)
    _capacity(kv, kv_used=100 * min(0.99, t.kv_usage_high + 0.05))
    kv.firing["ServescopeTTFTBurnKVPressure"] = [(ji, 1.0)]
    out.append(kv)

    preempt = Scenario("TTFT burning while requests are preempted")
    _requests(preempt, slo, ttft_good=0, tpot_good=1, finishes={"stop": 1})
    _ttft_burning(preempt, slo)
    _target(preempt)
    _capacity(preempt, preempt=6)
    preempt.firing["ServescopeTTFTBurnKVPressure"] = [(ji, 1.0)]
    out.append(preempt)

    prefill = Scenario("TTFT burning with an empty queue and free KV")
    _requests(prefill, slo, ttft_good=0, tpot_good=1, finishes={"stop": 1})
    _ttft_burning(prefill, slo)
    _target(prefill)
    _capacity(prefill)
    prefill.firing["ServescopeTTFTBurnPrefillOrTransport"] = [(ji, 1.0)]
    out.append(prefill)

    slow = Scenario("slow consumers: a quarter of committed tokens discarded")
    _requests(slow, slo, ttft_good=1, tpot_good=1,
              finishes={"stop": 0.5, "slow_consumer": 0.25, "client_cancel": 0.25})
    _target(slow)
    _capacity(slow, discarded=0.25)
    slow.firing["ServescopeSlowConsumersWastingCompute"] = [(ji, 0.25)]
    slow.firing["ServescopeCancelRatioHigh"] = [({**ji, "finish_reason": "client_cancel"}, 0.25)]
    slow.records += [(f"{rec['discard']}{w}", ji, 0.25),
                     (f"{rec['finish']}{w}", {**ji, "finish_reason": "slow_consumer"}, 0.25)]
    out.append(slow)

    dropping = Scenario("telemetry dropping spans")
    _requests(dropping, slo, ttft_good=1, tpot_good=1, finishes={"stop": 1})
    _target(dropping)
    _capacity(dropping)
    dropping.series[-1] = _series(cat.SPANS_DROPPED.sample_name, _labels(reason="queue_full"),
                                  _counter(120))
    dropping.firing["ServescopeTelemetryDroppingSpans"] = [({**ji, "reason": "queue_full"}, 2)]
    out.append(dropping)

    go_style = Scenario("le written as a Go client does (le=\"2\"): the SLI still matches")
    _requests(go_style, slo, ttft_good=1, tpot_good=1, finishes={"stop": 1})
    _target(go_style)
    for entry in go_style.series:
        entry["series"] = entry["series"].replace(
            f'le="{float(slo.ttft.threshold_seconds)!r}"', f'le="{slo.ttft.threshold_seconds:g}"')
    go_style.records.append((f"{sli}{slo_rules.windows(slo)[0]}", {**jm, "slo": "ttft"}, 0.0))
    out.append(go_style)

    down = Scenario("target down")
    _target(down, up=0, instrumented=False)
    down.firing["ServescopeTargetDown"] = [(ji, 0.0)]
    out.append(down)

    bare = Scenario("target up without servescope metrics")
    _target(bare, instrumented=False)
    bare.firing["ServescopeMetricsAbsent"] = [(ji, 1.0)]
    out.append(bare)

    missing = Scenario("no target at all")
    missing.add("unrelated_series", {"job": "other"}, _gauge(1))
    missing.firing["ServescopeTargetsMissing"] = [({}, 1.0)]
    out.append(missing)
    return out


def _burn_expectation(s: Scenario, slo: SLOSpec, obj: slo_rules.Objective,
                      ratio: float) -> None:
    """A burn alert fires when some window pair of its severity is exceeded by ``ratio``."""
    for severity in sorted({aw.severity for aw in slo.alert_windows}):
        pairs = [aw for aw in slo.alert_windows if aw.severity == severity]
        if any(ratio > aw.burn_rate * obj.budget for aw in pairs):
            s.firing[f"Servescope{obj.name}BudgetBurn{severity.capitalize()}"] = [
                ({"job": JOB, "model": MODEL, "slo": obj.key}, ratio)]


def _ttft_burning(s: Scenario, slo: SLOSpec) -> None:
    """Every request slow: the TTFT burn-rate alerts fire too (error ratio 1)."""
    _burn_expectation(s, slo, slo_rules.objectives(slo)[0], 1.0)


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


def tests_document(slo: SLOSpec, options: Options | None = None,
                   flavor: str = "servescope") -> dict[str, Any]:
    options = options or Options()
    alerts = {r.alert: r for r in all_rules(slo, options) if isinstance(r, Alert)}
    tests = []
    for scenario in _scenarios(slo, options):
        unknown = set(scenario.firing) - set(alerts)
        if unknown:
            raise AssertionError(f"scenario {scenario.name!r} expects unknown alerts {unknown}")
        alert_tests = [{"eval_time": EVAL, "alertname": name,
                        "exp_alerts": _expected(alerts[name], scenario.firing.get(name, []))}
                       for name in alerts]
        record_tests = [{"expr": _sel(name, labels),
                         "eval_time": EVAL,
                         "exp_samples": [{"labels": _sel(name, labels), "value": value}]}
                        for name, labels, value in scenario.records]
        test: dict[str, Any] = {"name": scenario.name, "interval": "1m",
                                "input_series": scenario.series, "alert_rule_test": alert_tests}
        if record_tests:
            test["promql_expr_test"] = record_tests
        tests.append(test)
    rules_file = RULES_PATH.format(flavor=flavor).rsplit("/", 1)[1]
    return {"rule_files": [rules_file], "evaluation_interval": "1m", "tests": tests}


def _sel(name: str, labels: Mapping[str, str]) -> str:
    inner = ", ".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    return f"{name}{{{inner}}}"
