"""Latency by phase: queue, prefill, decode, stream; server vs stream vs client TTFT; fleet
heatmaps, and per-replica ones whose exemplars open the request's trace in Tempo."""

from __future__ import annotations

from servescope.instrumentation import catalog as cat

from .common import Ctx, dashboard_links, variables
from .overview import latency_quantiles
from .panels import Board, Target, heat, trend

__all__ = ["build"]


def _phases(ctx: Ctx) -> list[object]:
    q = ctx.q
    phases = ((cat.QUEUE_TIME, "queue"), (cat.PREFILL_TIME, "prefill"),
              (cat.DECODE_TIME, "decode"))
    transport = (f"({q.quantile(0.95, cat.STREAM_TTFT)} - "
                 f"{q.quantile(0.95, cat.SERVER_TTFT)})")
    return [
        trend("Phase p95", "p95 of each phase of a request: queue (arrival to first scheduled), "
              "prefill (scheduled to prefill done), decode (prefill done to the terminal "
              "state). The TTFT budget is spent by queue + prefill.", "s",
              [Target(q.quantile(0.95, spec), name) for spec, name in phases]),
        trend("Stream overhead p95", "Stream TTFT p95 minus server TTFT p95: the time between "
              "the first token committed and its first byte written to the connection "
              "(transport, serialization, a full send queue).", "s",
              [Target(transport, "stream - server")]),
        latency_quantiles(ctx, cat.QUEUE_TIME, "Queue time", "time waiting for admission",
                          None),
        latency_quantiles(ctx, cat.PREFILL_TIME, "Prefill time", "prefill duration", None),
        latency_quantiles(ctx, cat.DECODE_TIME, "Decode time", "decode duration (prefill done "
                          "to the terminal state)", None),
    ]


def _ttft_views(ctx: Ctx) -> list[object]:
    q, threshold = ctx.q, ctx.slo.ttft.threshold_seconds
    return [
        trend("TTFT p95: server vs stream vs client", "Three different metrics: server TTFT "
              "(arrival to first token committed), stream TTFT (to its first byte written) and "
              "client TTFT (request sent to first token read, reported by client-side "
              "recorders such as the load generator). The gaps are transport and network.",
              "s", [Target(q.quantile(0.95, cat.SERVER_TTFT), "server"),
                    Target(q.quantile(0.95, cat.STREAM_TTFT), "stream"),
                    Target(q.quantile(0.95, cat.CLIENT_TTFT), "client")],
              width=24, thresholds=(threshold,)),
    ]


def _heatmaps(ctx: Ctx) -> list[object]:
    """Fleet heatmaps, from the recorded bucket rates (every replica; $instance does not
    narrow them, and a recording carries no exemplars: the drill-down row has those)."""
    q = ctx.q
    note = " Every replica; the per-replica heatmaps below link cells to traces."
    return [
        heat("TTFT heatmap", "Server-side TTFT distribution over time (bucket rates)." + note,
             "s", q.buckets(cat.SERVER_TTFT)),
        heat("TPOT heatmap", "Time per output token distribution over time." + note, "s",
             q.buckets(cat.TPOT)),
        heat("Queue time heatmap", "Admission wait distribution over time." + note, "s",
             q.buckets(cat.QUEUE_TIME)),
        heat("End-to-end heatmap", "Request duration distribution over time (all finish "
             "reasons)." + note, "s", q.buckets(cat.E2E)),
    ]


def _replica_heatmaps(ctx: Ctx) -> list[object]:
    """Drill-down heatmaps of the selected replicas, on the raw buckets, whose exemplars
    open a request's trace."""
    q = ctx.q
    note = (" The replicas $instance selects. Exemplar points carry the trace id of a request "
            "in that cell; clicking one opens the trace in Tempo.")
    return [
        heat("TTFT heatmap, per replica", "Server-side TTFT distribution over time." + note,
             "s", q.replica_buckets(cat.SERVER_TTFT), width=8, exemplars=True),
        heat("TPOT heatmap, per replica", "Time per output token distribution over time."
             + note, "s", q.replica_buckets(cat.TPOT), width=8, exemplars=True),
        heat("End-to-end heatmap, per replica", "Request duration distribution over time."
             + note, "s", q.replica_buckets(cat.E2E), width=8, exemplars=True),
    ]


def _client(ctx: Ctx) -> list[object]:
    q = ctx.q
    return [
        latency_quantiles(ctx, cat.CLIENT_TPOT, "Client TPOT", "client-perceived gap between "
                          "streamed tokens", ctx.slo.tpot.threshold_seconds, width=12),
        latency_quantiles(ctx, cat.CLIENT_E2E, "Client end-to-end",
                          "client-perceived request duration", None, width=12),
        trend("End-to-end p95 by model", "Request duration p95 per model, every finish "
              "reason together (the histogram carries no finish_reason label: it would be 7x "
              "the series; the Finish reasons panels count each reason).", "s",
              [Target(q.quantile(0.95, cat.E2E, cat.MODEL), "{{model}}")],
              width=24),
    ]


def build(ctx: Ctx) -> Board:
    board = Board(ctx.uid("latency"), ctx.title("Latency by phase"),
                  "Where request time goes: queue, prefill, decode and stream; server vs "
                  "stream vs client TTFT; fleet heatmaps, and per-replica heatmaps with "
                  "exemplars linking to traces.",
                  (ctx.flavor.tag, "latency"), variables(ctx), dashboard_links(ctx),
                  rename=ctx.flavor.rename)
    board.row("Phases", *_phases(ctx))
    board.row("Time to first token", *_ttft_views(ctx))
    board.row("Distributions", *_heatmaps(ctx))
    board.row("One replica (exemplars link to Tempo)", *_replica_heatmaps(ctx))
    board.row("Client side and by outcome", *_client(ctx))
    return board
