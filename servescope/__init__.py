"""servescope: observability for LLM inference servers.

The front door re-exports the hooks a server needs; each room is importable on its own
(``servescope.instrumentation``, ``servescope.redaction``, ``servescope.reference``, ...).
"""

import importlib
import importlib.abc
import importlib.util
import sys
import tomllib
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any


class _SourceTreeRooms(importlib.abc.MetaPathFinder):
    """Finds ``servescope.<room>`` in its top-level folder of a source tree (pyproject.toml's
    package-dir), when Python runs from the repository root: the working directory comes first
    on sys.path, so ``servescope/`` there is this package, and its rooms are its siblings."""

    def __init__(self, rooms: dict[str, Path]) -> None:
        self.rooms = rooms

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        folder = self.rooms.get(fullname)
        if folder is None:
            return None
        return importlib.util.spec_from_file_location(
            fullname, folder / "__init__.py", submodule_search_locations=[str(folder)])


def _map_source_tree_rooms() -> None:
    here = Path(__file__).parent
    pyproject = here.parent / "pyproject.toml"
    # Installed (or linked by a strict editable install), the rooms sit inside this folder.
    if (here / "instrumentation").is_dir() or not pyproject.is_file():
        return
    if any(isinstance(finder, _SourceTreeRooms) for finder in sys.meta_path):
        return
    setuptools = tomllib.loads(pyproject.read_text(encoding="utf-8"))["tool"]["setuptools"]
    rooms = {name: here.parent / folder for name, folder in setuptools["package-dir"].items()
             if name.startswith("servescope.") and name.count(".") == 1}
    sys.meta_path.append(_SourceTreeRooms(rooms))


_map_source_tree_rooms()

# The hooks are re-exported lazily (PEP 562), like the room's own front door: importing any
# servescope module (the engine core's included) loads no exporter until Telemetry is used.
if TYPE_CHECKING:
    from servescope.instrumentation import (
        FinishReason,
        RequestRecorder,
        RequestSummary,
        SLOError,
        SLOSpec,
        StepReport,
        Telemetry,
        TelemetrySetup,
        TokenStage,
        load_slo,
        setup_telemetry,
    )

try:
    __version__ = version("servescope")
except PackageNotFoundError:  # running from a source tree without an install
    __version__ = "0.0.0"

__all__ = [
    "FinishReason",
    "RequestRecorder",
    "RequestSummary",
    "SLOError",
    "SLOSpec",
    "StepReport",
    "Telemetry",
    "TelemetrySetup",
    "TokenStage",
    "__version__",
    "load_slo",
    "setup_telemetry",
]


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module("servescope.instrumentation"), name)
