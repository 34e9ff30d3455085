"""Transport and backpressure: pauses, pause time, buffered and discarded tokens, the six
token counts (each named on its axis), slow-consumer finishes, and what left the host: written
vs delivered (acknowledged by the peer), unacknowledged tokens per request, waste per
request."""

from __future__ import annotations

from servescope.instrumentation import catalog as cat
from servescope.instrumentation.status import TokenStage

from .common import Ctx, dashboard_links, variables
from .panels import Board, Target, trend

__all__ = ["build"]

_STAGE_NOTES = {
    TokenStage.PROMPT: "prompt tokens of arriving requests",
    TokenStage.PROPOSED: "speculative draft tokens proposed",
    TokenStage.COMMITTED: "tokens accepted into sequences",
    TokenStage.WRITTEN: "tokens accepted by client sockets (possibly still in buffers)",
    TokenStage.DELIVERED: "tokens acknowledged by the client's TCP (written where the "
                          "platform cannot tell)",
    TokenStage.DISCARDED: "tokens committed but never delivered when their request ended",
}


def _backpressure(ctx: Ctx) -> list[object]:
    q = ctx.q
    return [
        trend("Paused requests", "Running requests skipped because their send queue is at "
              "the high watermark, per replica.", "short",
              [Target(q.level(cat.PAUSED, "instance"), "{{instance}}")], width=8,
              axis_label="requests", min_value=0),
        trend("Backpressure pauses", "Times per second a request was paused by backpressure.",
              "ops", [Target(q.rate(cat.BP_PAUSES, "instance"), "{{instance}}")], width=8,
              axis_label="pauses/s"),
        trend("Pause time", "Seconds of pause accrued per second: the mean number of requests "
              "paused at any moment.", "short",
              [Target(q.rate(cat.BP_PAUSED_SECONDS, "instance"), "{{instance}}")], width=8,
              axis_label="paused seconds/s"),
        trend("Buffered tokens", "Tokens committed but not yet written to clients, across live "
              "streams, per replica.", "short",
              [Target(q.level(cat.STREAM_BUFFERED, "instance"), "{{instance}}")], width=8,
              axis_label="tokens", min_value=0),
        trend("Send-queue peak occupancy", "Per request, the peak send-queue occupancy as "
              "a share of its capacity (p50/p95). 100% means the request hit its watermark.",
              "percentunit", [Target(q.quantile(0.5, cat.STREAM_OCCUPANCY), "p50"),
                              Target(q.quantile(0.95, cat.STREAM_OCCUPANCY), "p95")],
              width=8, min_value=0),
        trend("Slow-consumer finishes", "Requests per second finalized by the slow-consumer "
              "policy (their KV freed), beside deadline finishes.", "reqps",
              [Target(q.rate(cat.FINISHED, finish_reason="slow_consumer"),
                      "slow_consumer"),
               Target(q.rate(cat.FINISHED, finish_reason="deadline"),
                      "deadline")], width=8, axis_label="requests/s"),
    ]


def _tokens(ctx: Ctx) -> list[object]:
    q = ctx.q
    panels: list[object] = []
    for stage in TokenStage:
        panels.append(trend(
            f"{stage.value.capitalize()} tokens/s", f"Rate of {_STAGE_NOTES[stage]} "
            f"(stage=\"{stage.value}\"): the numerator is named on the axis.",
            "short", [Target(q.rate(cat.TOKENS, "instance", stage=stage.value),
                             "{{instance}}")],
            width=8, axis_label=f"{stage.value} tokens/s", min_value=0))
    ratio = (f"({q.rate(cat.TOKENS, stage=TokenStage.DISCARDED.value)} / "
             f"{q.rate(cat.TOKENS, stage=TokenStage.COMMITTED.value)})")
    panels.append(trend("Discarded / committed", "Share of committed tokens thrown away "
                        "because their request ended first: compute wasted on consumers that "
                        "did not read.", "percentunit", [Target(ratio, "discarded/committed")],
                        width=8, min_value=0))
    return panels


def _delivery(ctx: Ctx) -> list[object]:
    """Written vs delivered: bytes on the connection are not bytes that left the host."""
    q = ctx.q
    written = q.rate(cat.TOKENS, stage=TokenStage.WRITTEN.value)
    delivered = q.rate(cat.TOKENS, stage=TokenStage.DELIVERED.value)
    waste = (f"({q.rate(cat.TOKENS, stage=TokenStage.DISCARDED.value)} / "
             f"{q.rate(cat.FINISHED)})")
    return [
        trend("Written vs delivered", "Tokens/s accepted by client sockets beside tokens/s "
              "acknowledged by the peers' TCP: a gap that persists is data held in socket "
              "buffers or a proxy.", "short", [Target(written, "written"),
                                              Target(delivered, "delivered")],
              width=8, axis_label="tokens/s", min_value=0),
        trend("Unacknowledged tokens per request", "Per request, the peak of tokens committed "
              "but not acknowledged by the peer (p50/p95): send queue plus socket buffers (a "
              "non-streamed reply counts its whole length).", "short",
              [Target(q.quantile(0.5, cat.STREAM_UNACKED_PEAK), "p50"),
               Target(q.quantile(0.95, cat.STREAM_UNACKED_PEAK), "p95")],
              width=8, axis_label="tokens", min_value=0),
        trend("Waste per request", "Discarded tokens per finished request: committed tokens "
              "the client never acknowledged.", "short", [Target(waste, "discarded/request")],
              width=8, axis_label="tokens/request", min_value=0),
        trend("Delivery confirmed by TCP", "1: delivered counts bytes acknowledged by the "
              "peer (Linux TCP_INFO); 0: the platform cannot tell and delivered means "
              "written.", "short", [Target(q.level(cat.DELIVERY_ACKED, "instance"),
                                           "{{instance}}")],
              width=8, min_value=0),
    ]


def build(ctx: Ctx) -> Board:
    board = Board(ctx.uid("transport"), ctx.title("Transport and backpressure"),
                  "Backpressure from slow consumers, buffered and discarded tokens, and the "
                  "five token counts as rates.",
                  (ctx.flavor.tag, "transport"), variables(ctx), dashboard_links(ctx),
                  rename=ctx.flavor.rename)
    board.row("Backpressure", *_backpressure(ctx))
    board.row("Token counts", *_tokens(ctx))
    board.row("What left the host", *_delivery(ctx))
    return board
