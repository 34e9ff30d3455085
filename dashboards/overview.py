"""The overview: SLO attainment and burn, goodput beside load, the whole request flow."""

from __future__ import annotations

from servescope.instrumentation import catalog as cat
from servescope.instrumentation.status import FinishReason
from servescope.promql.flavor import missing_in
from servescope.promql.query import Query
from servescope.promql.recorded import ALL_RECORD, BAD_RECORD, shed_matcher, stage_window

from .common import Ctx, dashboard_links, variables
from .panels import Board, Target, single, trend

__all__ = ["build", "latency_quantiles"]

QUANTILES = (0.5, 0.95, 0.99)


def _bad_reasons(ctx: Ctx) -> str:
    reasons = sorted(r.value for r in ctx.slo.bad_finish_reasons)
    return f'=~"{"|".join(reasons)}"'


def availability(ctx: Ctx, fn: str = "rate") -> str:
    """Share of terminal requests not ending in a bad finish reason, nor refused by the
    server (:func:`~servescope.promql.recorded.shed_matcher`)."""
    q = ctx.q
    bad = f"({q.rate(cat.FINISHED, fn=fn, finish_reason=_bad_reasons(ctx))} or vector(0))"
    shed = shed_matcher(ctx.slo, ctx.flavor)
    if shed is not None:
        bad = f"({bad} + ({q.rate(cat.REJECTED, fn=fn, reason=shed)} or vector(0)))"
    return f"(1 - {bad} / {q.rate(cat.FINISHED, fn=fn)})"


def _bad_said(ctx: Ctx) -> str:
    said = ", ".join(sorted(r.value for r in ctx.slo.bad_finish_reasons))
    if shed_matcher(ctx.slo, ctx.flavor) is not None:
        said += " nor refused by the server (" + ", ".join(ctx.slo.bad_rejection_reasons) + ")"
    return said


def slo_errors(ctx: Ctx, key: str, good: str, over: str | None = None, *,
               worst: bool = False) -> str:
    """The error ratio of one SLO (``ttft``, ``tpot``, ``availability``) from the SLO rules'
    first stage, what the burn-rate alerts read: bad over all events per second now, or over
    ``over`` (the events of that range, as sums of the recorded rates). ``good``: the share of
    good events from raw series, used as ``1 - good`` on raw dashboards, and whose unavailable
    marker stands in when the flavor lacks the metric (its rules record nothing then).
    ``worst``: the ratio of the worst job and model of the selection, as the burn alerts read
    them one by one (a small model's burn is not diluted by a busy healthy one)."""
    if missing_in(good):
        return good
    if not ctx.q.recorded or not _recorded_sli(ctx, key):
        return f"(1 - {good})"
    short = stage_window(ctx.slo)
    q = ctx.q
    matchers = [f'slo="{key}"'] + [f"{q.label(k)}{q.matchers[k]}" for k in ("job", cat.MODEL)
                                  if k in q.matchers and ctx.flavor.has_label(k)]
    if "job" in q.matchers:
        # and within the rules' own job, as the burn alerts read it: the first stage records
        # every job (a gateway in front of these servers, another flavor's engines), and the
        # $job variable's All would add them in (a request through a gateway counted twice)
        matchers.append(f'{q.label("job")}=~"{ctx.flavor.job_regex}"')
    bad, total = (f"{name}{short}{{{','.join(matchers)}}}" for name in (BAD_RECORD, ALL_RECORD))
    if over is not None:
        bad, total = f"sum_over_time({bad}[{over}])", f"sum_over_time({total}[{over}])"
    if worst:
        keys = [q.label(k) for k in ("job", cat.MODEL) if ctx.flavor.has_label(k)]
        by = f" by ({', '.join(keys)})" if keys else ""
        return f"max(sum{by} ({bad}) / sum{by} ({total}))"
    return f"(sum({bad}) / sum({total}))"


def _recorded_sli(ctx: Ctx, key: str) -> bool:
    """Whether the flavor's rules record the SLO's events (from the engine's own series: a
    gateway's fill dashboards, not rules)."""
    q, slo = Query(flavor=ctx.flavor.for_rules()), ctx.slo
    needs = {"ttft": [q.within(cat.SERVER_TTFT, slo.ttft.threshold_seconds)],
             "tpot": [q.within(cat.TPOT, slo.tpot.threshold_seconds)],
             "availability": [q.rate(cat.FINISHED),
                              q.rate(cat.FINISHED, finish_reason=_bad_reasons(ctx))]}[key]
    return not any(missing_in(expr) for expr in needs)


def counted_at(ctx: Ctx, spec: cat.MetricSpec, threshold: float) -> str:
    """A note when the flavor's buckets put the SLI at another boundary than the threshold."""
    at = ctx.q.threshold(spec, threshold)
    if at == threshold:
        return ""
    return (f" The exporter's buckets have no {threshold:g} s boundary: requests up to {at:g} s "
            "count as good (a conservative bound).")


_FROM_RECORDS = (" Read from the SLO rules' recorded events per job and model (what the "
                 "burn-rate alerts read), so $instance does not narrow it.")


def _slo_stats(ctx: Ctx) -> list[object]:
    slo, ranged = ctx.slo, ctx.q.with_window("$__range")
    ttft, tpot = slo.ttft, slo.tpot
    rctx = Ctx(slo, ctx.flavor, ranged)
    return [
        single("TTFT SLO attainment", f"Share of requests whose server-side time to first token "
               f"was at most {ttft.threshold_seconds:g} s over the selected range (target "
               f"{ttft.target:.2%}). Counted from the TTFT histogram's bucket at the threshold."
               + _FROM_RECORDS
               + counted_at(ctx, cat.SERVER_TTFT, ttft.threshold_seconds),
               "percentunit", Target(_attained(ctx, "ttft", ranged.within(
                   cat.SERVER_TTFT, ttft.threshold_seconds, fn="increase"))),
               good_above=ttft.target, decimals=2),
        single("TPOT SLO attainment", f"Share of requests whose time per output token was at "
               f"most {tpot.threshold_seconds:g} s over the selected range (target "
               f"{tpot.target:.2%})." + _FROM_RECORDS
               + counted_at(ctx, cat.TPOT, tpot.threshold_seconds),
               "percentunit",
               Target(_attained(ctx, "tpot", ranged.within(cat.TPOT, tpot.threshold_seconds,
                                                           fn="increase"))),
               good_above=tpot.target, decimals=2),
        single("Availability", f"Share of terminal requests not ending in "
               f"{_bad_said(ctx)} over the selected "
               f"range (target {slo.availability_target:.2%})." + _FROM_RECORDS, "percentunit",
               Target(_attained(ctx, "availability", availability(rctx, fn="increase"))),
               good_above=slo.availability_target, decimals=3),
        single("Goodput share", "Good requests (finished stop/length within the TTFT and TPOT "
               "SLOs) as a share of attempted load (cancellations and rejections counted) over "
               "the selected range.", "percentunit",
               Target(f"({ranged.rate(cat.GOOD, fn='increase')} / "
                      f"{ranged.rate(cat.ATTEMPTED, fn='increase')})"), decimals=2),
    ]


def _attained(ctx: Ctx, key: str, raw: str) -> str:
    """The share of good events over the dashboard's range, from the SLO records."""
    ratio = slo_errors(ctx, key, raw, over="$__range")
    return ratio if missing_in(ratio) else f"(1 - {ratio})"


def _burn(ctx: Ctx) -> object:
    q, slo = ctx.q, ctx.slo
    fast = max(w.burn_rate for w in slo.alert_windows)
    slow = min(w.burn_rate for w in slo.alert_windows if w.severity == "page") \
        if any(w.severity == "page" for w in slo.alert_windows) else fast
    ttft_good = q.within(cat.SERVER_TTFT, slo.ttft.threshold_seconds)
    ttft = f"{slo_errors(ctx, 'ttft', ttft_good, worst=True)} / {1 - slo.ttft.target:.6g}"
    tpot_good = q.within(cat.TPOT, slo.tpot.threshold_seconds)
    tpot = f"{slo_errors(ctx, 'tpot', tpot_good, worst=True)} / {1 - slo.tpot.target:.6g}"
    avail = f"{slo_errors(ctx, 'availability', availability(ctx), worst=True)} / " \
            f"{1 - slo.availability_target:.6g}"
    return trend(
        "Error-budget burn rate", "How fast each SLO spends its error budget: 1 spends it "
        f"exactly over the {slo.period} period; the dashed lines are the page thresholds "
        f"({slow:g}x and {fast:g}x, see the burn-rate alerts): the same "
        f"{stage_window(slo)} events the alerts read (recorded per job and model; $instance "
        "does not narrow it). Each line is the worst job and model of the selection, as the "
        "alerts burn per model: a small model's burn is not diluted by a busy healthy one.",
        "suffix:x",
        [Target(ttft, "TTFT"), Target(tpot, "TPOT"), Target(avail, "availability")],
        thresholds=(slow, fast), min_value=0, axis_label="burn rate")


def latency_quantiles(ctx: Ctx, spec: cat.MetricSpec, title: str, what: str,
                      threshold: float | None, width: int = 8) -> object:
    q = ctx.q
    targets = [Target(q.quantile(p, spec), f"p{round(p * 100)}") for p in QUANTILES]
    slo_note = f" The dashed line is the SLO threshold ({threshold:g} s)." if threshold else ""
    return trend(title, f"p50/p95/p99 of {what}, estimated from the histogram buckets "
                 f"(interpolated inside a bucket).{slo_note}", "s", targets, width=width,
                 thresholds=(threshold,) if threshold else ())


def _flow(ctx: Ctx) -> list[object]:
    q = ctx.q
    return [
        trend("Goodput beside attempted load", "Goodput: requests per second that finished "
              "stop/length within the TTFT and TPOT SLOs. Attempted: terminal requests per "
              "second in the goodput denominator (cancels and rejections included, so a "
              "falling goodput cannot hide behind shed load).", "reqps",
              [Target(q.rate(cat.GOOD), "goodput"), Target(q.rate(cat.ATTEMPTED), "attempted"),
               Target(q.rate(cat.ARRIVED), "arrivals")], axis_label="requests/s"),
        trend("Request flow", "Arrivals, admissions and rejections per second beside the "
              "requests cut short (client cancels, errors, deadlines): latency panels only see "
              "survivors, this panel shows who did not survive.", "reqps",
              [Target(q.rate(cat.ARRIVED), "arrived"), Target(q.rate(cat.ADMITTED), "admitted"),
               Target(q.rate(cat.REJECTED), "rejected"),
               Target(q.rate(cat.FINISHED, finish_reason="client_cancel"),
                      "cancelled"),
               Target(q.rate(cat.FINISHED, finish_reason="error"), "errored"),
               Target(q.rate(cat.FINISHED, finish_reason="deadline"), "deadline")],
              axis_label="requests/s"),
        trend("In flight", "Requests arrived and not yet in a terminal state, per replica.",
              "short", [Target(q.level(cat.IN_FLIGHT, "instance"), "{{instance}}")],
              axis_label="requests", min_value=0),
        trend("Finish reasons", "Terminal requests per second by finish reason (stacked): "
              "every request ends in exactly one of "
              f"{', '.join(r.value for r in FinishReason)}.", "reqps",
              [Target(q.rate(cat.FINISHED, cat.FINISH_REASON), "{{finish_reason}}")],
              stacked=True, axis_label="requests/s"),
    ]


def _correlate(ctx: Ctx) -> list[object]:
    q, slo = ctx.q, ctx.slo
    kv = q.kv_usage("instance")
    return [
        trend("TTFT p95", "Server-side TTFT p95 per replica. Read it with the two panels to "
              "the right: a rise with a growing queue is admission/capacity, with full KV is KV "
              "pressure, with neither is prefill or transport.", "s",
              [Target(q.quantile(0.95, cat.SERVER_TTFT, "instance"), "{{instance}}")],
              width=8, thresholds=(slo.ttft.threshold_seconds,)),
        trend("Queue depth", "Requests waiting for admission, per replica.", "short",
              [Target(q.level(cat.WAITING, "instance"), "{{instance}}")], width=8,
              axis_label="requests", min_value=0),
        trend("KV-cache usage", "Used KV blocks as a share of the pool, per replica.",
              "percentunit", [Target(kv, "{{instance}}")], width=8, min_value=0),
        trend("Finish reasons (cut short)", "Requests per second ending cut short, by reason; "
              "next to it the requests paused by backpressure: slow consumers show up as "
              "pauses first, then as slow_consumer or deadline finishes.", "reqps",
              [Target(q.rate(cat.FINISHED, cat.FINISH_REASON,
                             finish_reason='!~"stop|length"'), "{{finish_reason}}")],
              axis_label="requests/s"),
        trend("Paused by backpressure", "Running requests skipped because their stream "
              "buffer is at the high watermark, per replica.", "short",
              [Target(q.level(cat.PAUSED, "instance"), "{{instance}}")],
              axis_label="requests", min_value=0),
    ]


def build(ctx: Ctx) -> Board:
    slo = ctx.slo
    board = Board(ctx.uid("overview"), ctx.title("Overview"),
                  f"SLOs of {slo.service}: attainment, error-budget burn, goodput beside "
                  "attempted load, and every request's fate.",
                  (ctx.flavor.tag, "overview"), variables(ctx), dashboard_links(ctx),
                  rename=ctx.flavor.rename)
    board.row("Service level", *_slo_stats(ctx), _burn(ctx))
    board.row("Load and outcomes", *_flow(ctx))
    board.row("Latency", latency_quantiles(ctx, cat.SERVER_TTFT, "TTFT", "server-side time to "
                                           "first token", slo.ttft.threshold_seconds),
              latency_quantiles(ctx, cat.TPOT, "TPOT", "time per output token",
                                slo.tpot.threshold_seconds),
              latency_quantiles(ctx, cat.E2E, "End-to-end", "request duration",
                                slo.e2e.threshold_seconds if slo.e2e else None))
    board.row("Why (shared time axis)", *_correlate(ctx))
    return board
