"""Capacity: KV blocks and usage, prefix-cache hits, running/waiting/paused, preemptions,
batch size and composition, forward time per step by phase, and the engine process's
restarts and heartbeat."""

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
    phase = "{{" + q.label(cat.PHASE) + "}}"
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
        trend("Forward time per step by phase", "Model forward time of one scheduler step, "
              "mean and p95, per phase (prefill or decode forward). A prefill rise with the "
              "same tokens per step is slower kernels; with more tokens, longer prompts.", "s",
              [Target(q.mean(cat.FORWARD_TIME, cat.PHASE), f"mean {phase}"),
               Target(q.quantile(0.95, cat.FORWARD_TIME, cat.PHASE), f"p95 {phase}")],
              axis_label="seconds/step", min_value=0),
        trend("Tokens per step by phase", "Tokens one scheduler step feeds the model, mean per "
              "phase: prompt tokens prefilled, decode inputs (drafts included). The batch "
              "composition behind a TPOT or TTFT change.", "short",
              [Target(q.mean(cat.STEP_TOKENS, cat.PHASE), phase)],
              axis_label="tokens/step", min_value=0),
        trend("Scheduler iterations", "Scheduler iterations per second (batch-size "
              "observations), per replica.", "ops",
              [Target(q.count(cat.BATCH_SIZE, "instance"), "{{instance}}")],
              axis_label="iterations/s"),
    ]


def _engine(ctx: Ctx) -> list[object]:
    q = ctx.q
    return [
        trend("Engine restarts", "Engine processes declared dead and restarted, per second, "
              "by why (exited, lease_expired: hung, fatal, startup_timeout). Each one ends "
              "the requests it held with error.", "ops",
              [Target(q.rate(cat.ENGINE_RESTARTS, "instance", "reason"),
                      "{{instance}} {{reason}}")], axis_label="restarts/s", min_value=0),
        trend("Engine heartbeat and last step", "Seconds since the API process heard from "
              "its engine process, and since the engine last ran a forward step (idle "
              "engines do not step; a stalled one does not heartbeat).", "s",
              [Target(q.level(cat.ENGINE_HEARTBEAT_AGE, "instance", agg="max"),
                      "heartbeat {{instance}}"),
               Target(q.level(cat.ENGINE_LAST_STEP_AGE, "instance", agg="max"),
                      "last step {{instance}}")], axis_label="seconds", min_value=0),
    ]


def build(ctx: Ctx) -> Board:
    board = Board(ctx.uid("capacity"), ctx.title("Capacity"),
                  "KV-cache blocks and usage, prefix-cache hits, the scheduler's running, "
                  "waiting and paused requests, preemptions, batch size and composition, and "
                  "forward time per step.",
                  (ctx.flavor.tag, "capacity"), variables(ctx), dashboard_links(ctx),
                  rename=ctx.flavor.rename)
    board.row("KV cache", *_kv(ctx))
    board.row("Scheduler", *_scheduler(ctx))
    board.row("Engine process", *_engine(ctx))
    return board
