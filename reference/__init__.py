"""servescope.reference: a small inference server that every servescope hook is wired into.

The engine half: a Llama-style decoder over a paged KV cache (``model``, ``block_pool``), a
continuous-batching scheduler that owns request state (``scheduler``; the request state in
``sequence`` and ``lifecycle``, control signals in ``mailbox``, stats in ``stats``), bounded
per-request stream buffers (``stream``), and the :class:`Engine` facade with its request
handles (``engine``).

Names are imported lazily so that ``import servescope.reference.config`` does not load torch.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["Engine", "EngineConfig", "EngineStats", "GenerationRequest", "ModelConfig",
           "RequestHandle"]

_HOME = {"Engine": "engine", "EngineStats": "stats", "RequestHandle": "engine",
         "EngineConfig": "config", "ModelConfig": "config", "GenerationRequest": "request"}


def __getattr__(name: str) -> Any:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
