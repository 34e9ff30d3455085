"""Subcommands of the ``servescope`` CLI, one module each (see ``servescope.cli``)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def port_number(text: str) -> int:
    """An argparse type: a TCP port, 0 (any free one) to 65535."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0-65535, got {port}")
    return port


def config_mapping(path: str, what: str) -> dict[str, Any]:
    """The mapping of settings in the YAML or JSON file at ``path`` (``.json``: JSON), read
    strictly (a key given twice is an error); ``what`` names what its keys are."""
    from servescope.instrumentation.config_text import load_config_text

    data = load_config_text(Path(path).read_text("utf-8"), source=path,
                            json_format=path.endswith(".json"))
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping of {what}, got {type(data).__name__}")
    return data
