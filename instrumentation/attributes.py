"""Span attribute keys (GenAI semantic conventions where they exist): plain strings, so the
recorder names them without loading OpenTelemetry."""

from __future__ import annotations

__all__ = ["ATTR"]


class ATTR:
    """Span attribute keys (GenAI semantic conventions where they exist)."""

    REQUEST_ID = "servescope.request.id"
    MODEL = "gen_ai.request.model"
    OPERATION = "gen_ai.operation.name"
    FINISH_REASONS = "gen_ai.response.finish_reasons"
    INPUT_TOKENS = "gen_ai.usage.input_tokens"
    OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
    PRIORITY = "servescope.priority"
    FINISH_REASON = "servescope.finish_reason"
    TOKENS_PROPOSED = "servescope.tokens.proposed"
    TOKENS_COMMITTED = "servescope.tokens.committed"
    TOKENS_WRITTEN = "servescope.tokens.written"
    TOKENS_DELIVERED = "servescope.tokens.delivered"
    TOKENS_DISCARDED = "servescope.tokens.discarded"
    TTFT = "servescope.ttft_seconds"
    STREAM_TTFT = "servescope.stream_ttft_seconds"
    TPOT = "servescope.tpot_seconds"
    GOOD = "servescope.goodput.good"
    PAUSES = "servescope.backpressure.pauses"
    PAUSE_EVENTS_DROPPED = "servescope.backpressure.pause_events_dropped"
    # OTel's low-cardinality class of the error a request ended with (a proxy's cause).
    ERROR_TYPE = "error.type"
    # Marks a trace that a metric exemplar points to, so tail sampling keeps it.
    EXEMPLAR = "servescope.exemplar"
