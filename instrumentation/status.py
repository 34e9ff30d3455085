"""Request status: the closed set of terminal states and the signals that race for them."""

from __future__ import annotations

from enum import StrEnum


class FinishReason(StrEnum):
    """The terminal state of a request. Closed: each value is a label value on dashboards."""

    STOP = "stop"
    LENGTH = "length"
    CLIENT_CANCEL = "client_cancel"
    DEADLINE = "deadline"
    SLOW_CONSUMER = "slow_consumer"
    REJECTED = "rejected"
    ERROR = "error"


#: The OpenAI API's finish_reason for each terminal state (None: the stream was cut).
OPENAI_FINISH_REASON: dict[FinishReason, str | None] = {
    FinishReason.STOP: "stop",
    FinishReason.LENGTH: "length",
    FinishReason.CLIENT_CANCEL: None,
    FinishReason.DEADLINE: "length",
    FinishReason.SLOW_CONSUMER: None,
    FinishReason.REJECTED: None,
    FinishReason.ERROR: None,
}


class TokenStage(StrEnum):
    """The six token counts; every tokens/s figure names one of them as its numerator.

    ``written``: accepted by the client connection's socket (may still sit in buffers);
    ``delivered``: acknowledged by the peer (the bytes left the host), or written where the
    platform cannot tell (``servescope_transport_delivery_acknowledged`` is then 0)."""

    PROMPT = "prompt"
    PROPOSED = "proposed"
    COMMITTED = "committed"
    WRITTEN = "written"
    DELIVERED = "delivered"
    DISCARDED = "discarded"
