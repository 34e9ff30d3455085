"""What a client asks the engine for: one :class:`GenerationRequest`.

Validation here is about shape (types, ranges); limits that depend on the engine (context
length, vocabulary, queue room) are checked when an engine takes the request
(:meth:`GenerationRequest.misfit`), which rejects with a reason instead of raising.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["GenerationRequest"]


@dataclass
class GenerationRequest:
    """One generation. ``deadline_s`` is relative to the request's arrival at the engine."""

    request_id: str
    prompt: list[int]
    max_tokens: int
    deadline_s: float | None = None
    priority: str = "default"
    carrier: Mapping[str, str] | None = None  # W3C trace-context headers (traceparent, ...)
    stop_token_ids: tuple[int, ...] = ()
    ignore_eos: bool = False
    operation: str = "text_completion"
    #: The served name it asked for (the model or one of its adapters); None: the model's.
    model: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.request_id, str) or not self.request_id:
            raise ValueError(f"request_id: must be a non-empty string, got {self.request_id!r}")
        if not isinstance(self.prompt, list) or not all(
                isinstance(t, int) and not isinstance(t, bool) for t in self.prompt):
            raise ValueError("prompt: must be a list of integer token ids")
        if isinstance(self.max_tokens, bool) or not isinstance(self.max_tokens, int) \
                or self.max_tokens < 1:
            raise ValueError(f"max_tokens: must be an integer >= 1, got {self.max_tokens!r}")
        if self.deadline_s is not None and (
                isinstance(self.deadline_s, bool) or not isinstance(self.deadline_s, int | float)
                or not self.deadline_s > 0):
            raise ValueError(f"deadline_s: must be a number of seconds > 0, "
                             f"got {self.deadline_s!r}")
        if not isinstance(self.priority, str) or not self.priority:
            raise ValueError(f"priority: must be a non-empty string, got {self.priority!r}")
        if self.carrier is not None and not isinstance(self.carrier, Mapping):
            raise ValueError("carrier: must be a mapping of trace-context headers")
        self.stop_token_ids = tuple(self.stop_token_ids)
        if not all(isinstance(t, int) and not isinstance(t, bool) for t in self.stop_token_ids):
            raise ValueError("stop_token_ids: must be integer token ids")
        if not isinstance(self.ignore_eos, bool):
            raise ValueError(f"ignore_eos: must be a boolean, got {self.ignore_eos!r}")
        if not isinstance(self.operation, str) or not self.operation:
            raise ValueError(f"operation: must be a non-empty string, got {self.operation!r}")

    def misfit(self, *, max_context: int, vocab_size: int) -> str | None:
        """Why a model with this context and vocabulary cannot take the request (the
        ``rejected`` reason), or None. Both engines, in process and in its own, ask this."""
        if not self.prompt:
            return "empty_prompt"
        if len(self.prompt) >= max_context:
            return "prompt_too_long"
        if any(t < 0 or t >= vocab_size for t in self.prompt):
            return "invalid_token"
        return None
