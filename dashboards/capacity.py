"""Capacity: KV blocks and usage, prefix-cache hits, running/waiting/paused, preemptions,
batch size."""

from __future__ import annotations

from servescope.instrumentation import catalog as cat

from .common import Ctx, dashboard_links, variables
from .panels import Board, Target, heat, trend

__all__ = ["build"]


def _kv(ctx: Ctx) -> list[object]:
    q = ctx.q
    usage = q.kv_usage("instance")
    hits = f"({q.rate(cat.PREFIX_HITS, 'instance')} / {q.rate(cat.PREFIX_QUERIES, 'instance')})"
    return [
        trend("KV blocks", "KV-cache blocks holding a reference, and the pool size, per "
              "replica and pool.", "short",
              [Target(q.level(cat.KV_BLOCKS_USED, "instance", "pool"), "used {{instance}}"),
               Target(q.level(cat.KV_BLOCKS_TOTAL, "instance", "pool"),
                      "capacity {{instance}}")], axis_label="blocks", min_value=0),
        trend("KV-cache usage", "Used blocks as a share of the pool, per replica. Near 100% "
              "admission stalls and preemptions start.", "percentunit",
              [Target(usage, "{{instance}}")], thresholds=(0.9,), min_value=0),
        trend("Prefix-cache hit ratio", "Full prompt blocks found in the prefix cache as a "
              "share of those looked up, per replica.", "percentunit",
              [Target(hits, "{{instance}}")], min_value=0),
        trend("Preemptions", "Running requests preempted to free KV blocks, per second.",
              "reqps", [Target(q.rate(cat.PREEMPTIONS, "instance"), "{{instance}}")],
              axis_label="preemptions/s"),
    ]


def _scheduler(ctx: Ctx) -> list[object]:
    q = ctx.q
    return [
        trend("Running / waiting / paused", "Requests holding a batch slot, waiting for "
              "admission, and skipped by backpressure (fleet total).", "short",
              [Target(q.level(cat.RUNNING), "running"), Target(q.level(cat.WAITING), "waiting"),
               Target(q.level(cat.PAUSED), "paused")], axis_label="requests", min_value=0),
        trend("Batch size", "Requests advanced per scheduler iteration: p50/p95 and the mean.",
              "short", [Target(q.quantile(0.5, cat.BATCH_SIZE), "p50"),
                        Target(q.quantile(0.95, cat.BATCH_SIZE), "p95"),
                        Target(q.mean(cat.BATCH_SIZE), "mean")],
              axis_label="requests/iteration", min_value=0),
        heat("Batch size heatmap", "Distribution of requests per scheduler iteration.",
             "short", q.buckets(cat.BATCH_SIZE)),
        trend("Scheduler iterations", "Scheduler iterations per second (batch-size "
              "observations), per replica.", "ops",
              [Target(q.count(cat.BATCH_SIZE, "instance"), "{{instance}}")],
              axis_label="iterations/s"),
    ]


def build(ctx: Ctx) -> Board:
    board = Board(ctx.uid("capacity"), ctx.title("Capacity"),
                  "KV-cache blocks and usage, prefix-cache hits, the scheduler's running, "
                  "waiting and paused requests, preemptions and batch size.",
                  (ctx.flavor.tag, "capacity"), variables(ctx), dashboard_links(ctx),
                  rename=ctx.flavor.rename)
    board.row("KV cache", *_kv(ctx))
    board.row("Scheduler", *_scheduler(ctx))
    return board
