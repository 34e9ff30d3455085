"""servescope.reference: a small inference server that every servescope hook is wired into.

Three rooms, with one-way arrows between them (tests/architecture.py checks them):

- ``core``: the engine core: a continuous-batching scheduler over a Llama-style decoder and a
  paged KV block pool, the request state, the stream buffers;
- ``client``: the engine client, in process (``client.engine``) or with the core in a child
  process (``client.engine_client``, ``client.engine_process``, ``client.engine_wire``);
- ``transport``: the OpenAI-compatible HTTP server in front of a client.

``config`` (the settings of all three) sits at the top, and imports none of them.

Names are imported lazily so that ``import servescope.reference.config`` does not load torch.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["Engine", "EngineConfig", "EngineStats", "GenerationRequest", "ModelConfig",
           "RequestHandle"]

_HOME = {"Engine": "client.engine", "EngineStats": "core.stats", "RequestHandle": "client.handle",
         "EngineConfig": "config", "ModelConfig": "config", "GenerationRequest": "core.request"}


def __getattr__(name: str) -> Any:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
