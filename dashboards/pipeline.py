"""The telemetry pipeline itself: spans exported and dropped, redactions, folded label values,
hook errors, ignored terminal signals and scrape health."""

from __future__ import annotations

from servescope.instrumentation import catalog as cat

from .common import Ctx, dashboard_links, variables
from .panels import Board, Target, trend

__all__ = ["build"]


def _spans(ctx: Ctx) -> list[object]:
    q = ctx.q
    return [
        trend("Spans exported", "Spans the exporter accepted per second, per replica.", "ops",
              [Target(q.rate(cat.SPANS_EXPORTED, "instance"), "{{instance}}")], width=8,
              axis_label="spans/s"),
        trend("Spans dropped", "Spans dropped per second by reason (export queue full, export "
              "failed): traces and exemplars go missing when this is above zero.", "ops",
              [Target(q.rate(cat.SPANS_DROPPED, cat.REASON), "{{reason}}")], width=8,
              axis_label="spans/s"),
        trend("Redactions by kind", "Values redacted before export per second, by detector "
              "kind.", "ops", [Target(q.rate(cat.REDACTIONS, cat.KIND), "{{kind}}")], width=8,
              axis_label="values/s"),
        trend("Redaction enabled", "1 while redaction is on for spans and for logs, per "
              "replica; 0 means someone opted out (prompts, ids and attributes leave as "
              "recorded).", "short",
              [Target(q.level(cat.REDACTION_ENABLED, "instance", cat.KIND, agg="min"),
                      "{{instance}} {{kind}}")], width=24, min_value=0),
    ]


def _guards(ctx: Ctx) -> list[object]:
    q = ctx.q
    return [
        trend("Folded label values", "Label values folded into 'other' per second because a "
              "label's cap was reached (metric, label): a caller is sending high-cardinality "
              "values.", "ops",
              [Target(q.rate(cat.LABELS_FOLDED, cat.METRIC, cat.LABEL), "{{metric}} {{label}}")],
              width=8, axis_label="values/s"),
        trend("Hook errors", "Internal errors swallowed by instrumentation hooks, per second, "
              "by hook (the server never sees them).", "ops",
              [Target(q.rate(cat.HOOK_ERRORS, cat.HOOK), "{{hook}}")], width=8,
              axis_label="errors/s"),
        trend("Ignored terminal signals", "Terminal signals that lost the race to an earlier "
              "one (counted no-ops), per second, by signal.", "ops",
              [Target(q.rate(cat.IGNORED_SIGNALS, cat.SIGNAL), "{{signal}}")], width=8,
              axis_label="signals/s"),
    ]


def _scrape(ctx: Ctx) -> list[object]:
    q = ctx.q
    return [
        trend("Targets up", "1 when Prometheus scraped the replica successfully.", "short",
              [Target(q.raw("up"), "{{instance}}")], width=8, min_value=0),
        trend("Scrape duration", "Time Prometheus took to scrape each replica.", "s",
              [Target(f"max by (instance) ({q.raw('scrape_duration_seconds')})",
                      "{{instance}}")], width=8),
        trend("Samples per scrape", "Samples exposed per scrape, per replica: a jump is new "
              "series (cardinality).", "short",
              [Target(f"max by (instance) ({q.raw('scrape_samples_scraped')})",
                      "{{instance}}")], width=8, axis_label="samples"),
    ]


def build(ctx: Ctx) -> Board:
    board = Board(ctx.uid("pipeline"), ctx.title("Telemetry pipeline"),
                  "Is the telemetry itself healthy: spans exported/dropped, redactions, label "
                  "folding, hook errors, scrape health.",
                  (ctx.flavor.tag, "pipeline"), variables(ctx), dashboard_links(ctx),
                  rename=ctx.flavor.rename)
    board.row("Spans", *_spans(ctx))
    board.row("Guards", *_guards(ctx))
    board.row("Scrape health", *_scrape(ctx))
    return board
