"""Which request paths generate: the OpenAI-compatible endpoints the gateway and the
middleware measure, however a client spells them."""

from __future__ import annotations

__all__ = ["MEASURED", "measured_operation"]

#: Generation paths and the operation each one's span names.
MEASURED = {"/v1/completions": "text_completion", "/v1/chat/completions": "chat",
            # the same endpoints without the version (llama.cpp, LiteLLM and others serve both)
            "/completions": "text_completion", "/chat/completions": "chat"}


def measured_operation(path: str) -> str | None:
    """The operation of a generation path, however it is spelled: a repeated or trailing
    "/" and letter case do not take a request out of the measurement (an engine that serves
    such a spelling would otherwise generate unmeasured)."""
    operation = MEASURED.get(path)
    if operation is None and path:
        operation = MEASURED.get("/" + "/".join(p for p in path.lower().split("/") if p))
    return operation
