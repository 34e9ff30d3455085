"""SLI recording rules and multiwindow, multi-burn-rate alerts, generated from the SLO spec.

For each SLO (TTFT, TPOT, availability) and each window the spec's alert windows use, one
recording rule keeps the error ratio by (job, model). Each severity gets one alert that fires
when any of its (long, short) window pairs both burn faster than the pair's burn rate: the long
window proves the burn is significant, the short one that it is still happening.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from servescope.instrumentation import catalog as cat
from servescope.instrumentation.slo import SLOSpec, window_seconds

from .model import Alert, Group, Options, Record

__all__ = ["SLI_RECORD", "SLOS", "Objective", "burn_alerts", "objectives", "sli_records"]

#: The recorded error ratio of every SLO: ``servescope:slo_errors:ratio_rate<window>{slo}``.
SLI_RECORD = "servescope:slo_errors:ratio_rate"
BY = ("job", cat.MODEL)
SLOS = ("ttft", "tpot", "availability")


@dataclass(frozen=True)
class Objective:
    key: str  # the value of the slo label
    name: str  # for alert names: TTFT, TPOT, Availability
    target: float
    what: str  # what a bad event is, for descriptions

    @property
    def budget(self) -> float:
        return 1.0 - self.target


def above(options: Options, spec: cat.MetricSpec, threshold: float) -> str:
    """``above 2s``, naming the bucket boundary actually counted when the exporter's fixed
    buckets lack the threshold."""
    at = options.query("5m").threshold(spec, threshold)
    if at == threshold:
        return f"above {threshold:g}s"
    return f"above {threshold:g}s (counted at the exporter's {at:g}s bucket boundary)"


def objectives(slo: SLOSpec, options: Options | None = None) -> tuple[Objective, ...]:
    options = options or Options()
    bad = ", ".join(sorted(r.value for r in slo.bad_finish_reasons))
    return (
        Objective("ttft", "TTFT", slo.ttft.target, "server-side time to first token "
                  + above(options, cat.SERVER_TTFT, slo.ttft.threshold_seconds)),
        Objective("tpot", "TPOT", slo.tpot.target, "time per output token "
                  + above(options, cat.TPOT, slo.tpot.threshold_seconds)),
        Objective("availability", "Availability", slo.availability_target,
                  f"requests finishing {bad}"),
    )


def windows(slo: SLOSpec) -> list[str]:
    """Every window a burn-rate alert reads, shortest first."""
    names = {w for aw in slo.alert_windows for w in (aw.long, aw.short)}
    return sorted(names, key=window_seconds)


def error_ratio(slo: SLOSpec, key: str, window: str, options: Options) -> str:
    q = options.query(window)
    if key == "ttft":
        return f"1 - {q.within(cat.SERVER_TTFT, slo.ttft.threshold_seconds, *BY)}"
    if key == "tpot":
        return f"1 - {q.within(cat.TPOT, slo.tpot.threshold_seconds, *BY)}"
    bad = '=~"' + "|".join(sorted(r.value for r in slo.bad_finish_reasons)) + '"'
    total = q.rate(cat.FINISHED, *BY)
    # "or 0 * total": a window with requests but no bad finish records 0, not nothing.
    return f"({q.rate(cat.FINISHED, *BY, finish_reason=bad)} or 0 * {total}) / {total}"


def sli_records(slo: SLOSpec, options: Options) -> Iterator[Record]:
    for window in windows(slo):
        for key in SLOS:
            yield Record(f"{SLI_RECORD}{window}", error_ratio(slo, key, window, options),
                         {"slo": key})


def _pair(key: str, long: str, short: str, burn: float, budget: float) -> str:
    limit = f"({burn:g} * {budget:.6g})"
    return (f'{SLI_RECORD}{long}{{slo="{key}"}} > {limit}\n'
            f'and\n{SLI_RECORD}{short}{{slo="{key}"}} > {limit}')


def burn_alerts(slo: SLOSpec, options: Options) -> Iterator[Alert]:
    severities = sorted({w.severity for w in slo.alert_windows},
                        key=lambda s: (s != "page", s))
    for obj in objectives(slo, options):
        for severity in severities:
            pairs = [w for w in slo.alert_windows if w.severity == severity]
            expr = "\nor\n".join(f"(\n{_pair(obj.key, w.long, w.short, w.burn_rate, obj.budget)}"
                                 "\n)" for w in pairs)
            speeds = ", ".join(f"{w.burn_rate:g}x over {w.long} and {w.short}" for w in pairs)
            name = f"Servescope{obj.name}BudgetBurn{severity.capitalize()}"
            flavor = options.flavor
            model = (f" model {{{{ $labels.{flavor.label(cat.MODEL)} }}}}"
                     if flavor.has_label(cat.MODEL) else "")
            yield Alert(
                name, expr, severity,
                summary=f"{obj.name} SLO error budget burning too fast",
                description=(
                    f"{{{{ $labels.job }}}}{model}: "
                    f"{{{{ $value | humanizePercentage }}}} of requests had {obj.what} over "
                    f"the long window; the {obj.target:.4g} target allows "
                    f"{obj.budget:.4g} (burn-rate thresholds: {speeds}; period "
                    f"{slo.period})."),
                runbook_url=options.runbook(name), for_=options.timing.burn_for,
                labels={"slo": obj.key})


def groups(slo: SLOSpec, options: Options) -> list[Group]:
    return [Group("servescope-slo-sli", tuple(sli_records(slo, options))),
            Group("servescope-slo-burn", tuple(burn_alerts(slo, options)))]
