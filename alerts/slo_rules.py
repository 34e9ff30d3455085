"""SLI recording rules and multiwindow, multi-burn-rate alerts, generated from the SLO spec.

The SLIs are built in two stages, so that their cost stops growing with the replica count and
shards can add them up:

* per replica scope (each shard, where the raw series are): for each SLO, the rate of bad and of
  all events over the shortest alert window, summed by (job, model):
  ``servescope_job:slo_bad:rate<short>{slo}`` and ``servescope_job:slo_all:rate<short>{slo}``;
* fleet scope (the global tier, reading only those records): the error ratio of every window
  the alerts read, ``servescope:slo_errors:ratio_rate<window>{slo}``, by (job, model). The
  shortest window is the ratio of the summed rates; a longer window W is
  ``sum_over_time(bad[W]) / sum_over_time(all[W])``, the traffic-weighted ratio of the short
  windows it covers, whose cost is one sample per evaluation per (job, model) whatever the
  number of replicas. Summing ``by (job, model)`` drops the shards' external labels, so the
  shards' partial sums add up to the fleet's.

Each severity gets one alert that fires when any of its (long, short) window pairs both burn
faster than the pair's burn rate: the long window proves the burn is significant, the short one
that it is still happening. Beside them the shards record a heartbeat and their targets, and
the global tier alerts when a shard or a shard's targets disappear.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from servescope.instrumentation import catalog as cat
from servescope.instrumentation.slo import SLOSpec
from servescope.promql.recorded import (
    ALL_RECORD,
    BAD_RECORD,
    shed_matcher,
    slo_windows,
    stage_window,
)

from .model import FLEET, REPLICA, Alert, Group, Options, Record

__all__ = ["ALL_RECORD", "BAD_RECORD", "HEARTBEAT", "HEARTBEAT_LAST", "SLI_RECORD", "SLOS",
           "TARGETS", "TARGETS_LAST", "TARGETS_UP", "Objective", "burn_alerts", "objectives",
           "sli_records", "stage_window"]

#: The recorded error ratio of every SLO: ``servescope:slo_errors:ratio_rate<window>{slo}``.
SLI_RECORD = "servescope:slo_errors:ratio_rate"
#: Each shard's heartbeat (its evaluation time) and its targets, by job.
HEARTBEAT = "servescope_shard:heartbeat:time"
TARGETS = "servescope_shard:targets:count"
TARGETS_UP = "servescope_shard:targets_up:sum"
#: On the global tier: each shard's last heartbeat, and when each shard last had targets of
#: a job, carried forward after the shard's own series end (see :func:`shard_memory`).
HEARTBEAT_LAST = "servescope_fleet:shard_heartbeat:last_time"
TARGETS_LAST = "servescope_fleet:shard_targets:last_seen_time"
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
    if shed_matcher(slo, options.flavor) is not None:
        bad += (" or refused by the server (reason "
                + ", ".join(slo.bad_rejection_reasons) + ")")
    return (
        Objective("ttft", "TTFT", slo.ttft.target, "server-side time to first token "
                  + above(options, cat.SERVER_TTFT, slo.ttft.threshold_seconds)),
        Objective("tpot", "TPOT", slo.tpot.target, "time per output token "
                  + above(options, cat.TPOT, slo.tpot.threshold_seconds)),
        Objective("availability", "Availability", slo.availability_target,
                  f"requests finishing {bad}"),
    )


#: Every window a burn-rate alert reads, shortest first (the first stage's window: the
#: shortest, ``stage_window``); the dashboards read the first stage too.
windows = slo_windows


def _events(slo: SLOSpec, key: str, options: Options) -> tuple[str, str]:
    """(bad, all) events per second of one SLO over the stage window, by (job, model)."""
    q = options.query(stage_window(slo))
    if key in ("ttft", "tpot"):
        spec, threshold = (cat.SERVER_TTFT, slo.ttft.threshold_seconds) if key == "ttft" \
            else (cat.TPOT, slo.tpot.threshold_seconds)
        total = q.count(spec, *BY)
        return f"{total} - {q.under(spec, threshold, *BY)}", total
    bad = '=~"' + "|".join(sorted(r.value for r in slo.bad_finish_reasons)) + '"'
    total = q.rate(cat.FINISHED, *BY)
    # "or 0 * total": a window with requests but no bad finish records 0, not nothing.
    events = f"({q.rate(cat.FINISHED, *BY, finish_reason=bad)} or 0 * {total})"
    shed = shed_matcher(slo, options.flavor)
    if shed is not None:  # rejections are finishes too: in the total already
        events = f"({events} + ({q.rate(cat.REJECTED, *BY, reason=shed)} or 0 * {total}))"
    return events, total


def stage_records(slo: SLOSpec, options: Options) -> Iterator[Record]:
    short = stage_window(slo)
    for key in SLOS:
        bad, total = _events(slo, key, options)
        yield Record(f"{BAD_RECORD}{short}", bad, {"slo": key})
        yield Record(f"{ALL_RECORD}{short}", total, {"slo": key})


def error_ratio(slo: SLOSpec, key: str, window: str, options: Options) -> str:
    """The fleet's error ratio over ``window``, from the first stage's records only."""
    short = stage_window(slo)
    by = options.query(window).by(*BY)
    # The job matcher keeps each flavor's SLIs to its own jobs when several rule files share
    # one Prometheus (the records' names are the same for every flavor).
    match = f'{{slo="{key}",job=~"{options.job}"}}'
    bad, total = f"{BAD_RECORD}{short}{match}", f"{ALL_RECORD}{short}{match}"
    if window == short:
        return f"sum{by} ({bad}) / sum{by} ({total})"
    return (f"sum{by} (sum_over_time({bad}[{window}]))\n/\n"
            f"sum{by} (sum_over_time({total}[{window}]))")


def sli_records(slo: SLOSpec, options: Options, key: str) -> Iterator[Record]:
    """One SLO's error ratio over every window."""
    for window in windows(slo):
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


def shard_records(options: Options) -> tuple[Record, ...]:
    """What the global tier watches each shard by: a heartbeat and its targets, by job."""
    up = f'up{{job=~"{options.job}"}}'
    return (Record(HEARTBEAT, "vector(time())", {"flavor": options.flavor.name}),
            Record(TARGETS, f"count by (job) ({up})"),
            Record(TARGETS_UP, f"sum by (job) ({up})"))


def shard_memory(options: Options) -> tuple[Record, ...]:
    """The global tier's memory of its shards. A shard that dies leaves its last samples for
    5 minutes and then nothing; an alert over a window of them (``max_over_time(...[1h])``)
    would resolve itself once the window passed the last one, and a shard down for an hour
    would go quiet. Each record instead carries its own last value forward (read back over
    ``shard_lookback``, so a restart of the global tier shorter than that keeps it) until
    ``shard_forget_s`` after the shard's last sample: a shard taken out of service for good
    stops paging then (or silence it in Alertmanager)."""
    lookback, forget = options.timing.shard_lookback, options.timing.shard_forget_s
    kept = f"> time() - {forget:g}"
    return (Record(HEARTBEAT_LAST, f"{HEARTBEAT}\nor\n"
                   f"(last_over_time({HEARTBEAT_LAST}[{lookback}]) {kept})"),
            Record(TARGETS_LAST, f"time() + 0 * {TARGETS}\nor\n"
                   f"(last_over_time({TARGETS_LAST}[{lookback}]) {kept})"))


def shard_alerts(options: Options) -> list[Alert]:
    """Global-tier alerts on the shards themselves, over :func:`shard_memory`: a dead shard's
    fleet SLIs cover the live shards only, so the silence itself must page, for as long as it
    lasts."""
    silent_s = options.timing.shard_silent_s
    specs = [
        ("ServescopeShardSilent", f"time() - {HEARTBEAT_LAST} > "
         f"{silent_s:g}", "page", "A Prometheus shard stopped sending its series",
         f"A shard (its external labels are this alert's) last sent a heartbeat "
         f"{{{{ $value | humanizeDuration }}}} ago (threshold {silent_s:g}s): it is down or "
         "its remote_write is failing. "
         "Its replicas are out of every fleet SLI and dashboard until it is back."),
        ("ServescopeShardTargetsDown", f"{TARGETS_UP} < {TARGETS}", "ticket",
         "Scrape targets down behind a shard",
         "{{ $labels.job }}: only {{ $value | humanize }} of the shard's targets answer scrapes: "
         "their requests are missing from the fleet SLIs (the shard's own "
         "ServescopeTargetDown names them)."),
        ("ServescopeShardTargetsMissing", f"{TARGETS_LAST}\nunless\n{TARGETS}", "page",
         "A shard lost every target of a job",
         "{{ $labels.job }}: the shard scraped targets of this job and now has none "
         "(service discovery or the scrape config lost them, or the shard is gone)."),
    ]
    return [Alert(name, expr, severity, summary, desc, options.runbook(name),
                  options.timing.shard_silent_for if name == "ServescopeShardSilent"
                  else options.timing.target_for)
            for name, expr, severity, summary, desc in specs]


def groups(slo: SLOSpec, options: Options) -> list[Group]:
    return [Group("servescope-slo-events", tuple(stage_records(slo, options)), REPLICA),
            Group("servescope-shard", shard_records(options), REPLICA),
            # one group per SLO: the 1 d and 3 d windows read every shard's first stage, and
            # groups evaluate side by side (a group's rules one after another)
            *(Group(f"servescope-slo-sli-{key}", tuple(sli_records(slo, options, key)), FLEET)
              for key in SLOS),
            Group("servescope-slo-burn", tuple(burn_alerts(slo, options)), FLEET),
            # the memory first: a group evaluates its rules in order
            Group("servescope-shards", (*shard_memory(options), *shard_alerts(options)), FLEET)]
