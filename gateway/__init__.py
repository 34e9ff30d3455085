"""servescope.gateway: the hooks in front of any OpenAI-compatible engine.

``servescope gateway --upstream URL`` is a streaming reverse proxy (``app``, ``relay``,
``upstream`` and its ``wire``, ``events``, ``serving``) that measures what the reference server
measures, from the client's side of the engine: arrivals and rejections, stream TTFT at the
first byte written, written vs delivered (TCP-acknowledged) tokens, backpressure pauses and
slow consumers, cancels, finish reasons and usage read from the engine's own chunks, and
redacted request spans whose ``traceparent`` the engine receives. ``middleware`` is the same
measurement as an ASGI middleware inside a Starlette/FastAPI engine (vLLM's ``--middleware``).

No torch here: the gateway imports only the reference transport's torch-free pieces.
"""

from __future__ import annotations

from .config import FLAVORS, GatewayConfig

__all__ = ["FLAVORS", "GatewayConfig"]
