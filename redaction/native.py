"""Which build of the detectors runs: the mypyc-compiled modules (setup.py), or their sources.

A compiled module shadows its source on import, so a source edited after the build would not
run, silently. The build writes a manifest of the digests of the sources it compiled; when the
manifest is missing (a pure-Python install), a source no longer matches it, or
``SERVESCOPE_REDACTION_NATIVE=0`` is set, the sources are loaded instead, before anything
imports the modules, and a stale build is said once on the ``servescope.redaction`` logger.
This module stays interpreted: it decides what the compiled ones are.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

NATIVE_ENV = "SERVESCOPE_REDACTION_NATIVE"
MANIFEST = "_native.json"
#: The modules setup.py compiles, in import order (each one's imports come before it).
NATIVE = ("validators", "national_ids", "prefilter", "decoding", "detectors", "joined", "tables",
          "redactor")
_log = logging.getLogger("servescope.redaction")
_state = {"native": False}


def is_native() -> bool:
    """Whether the compiled detectors are the ones running in this process."""
    return _state["native"]


def choose(package: str, init_file: str) -> None:
    """Load the sources of ``package``'s compiled modules unless the build can be used."""
    here = Path(init_file).parent
    sources = Path(init_file).resolve().parent  # an editable install links each file
    manifest = _manifest(here)
    stale = [] if manifest is None else [
        name for name in NATIVE if _digest(sources / f"{name}.py") != manifest.get(name)]
    built = manifest is not None and all(_compiled(here, name) for name in NATIVE)
    if built and not stale and os.environ.get(NATIVE_ENV, "1") != "0":
        _state["native"] = True
        return
    if stale and built:
        _log.warning("servescope.redaction: the compiled detectors are older than their "
                     "sources (%s); running the sources (reinstall to compile them again)",
                     ", ".join(stale))
    for name in NATIVE:  # in import order: each one's imports are loaded before it runs
        _load_source(f"{package}.{name}", sources / f"{name}.py")


def _manifest(here: Path) -> dict[str, Any] | None:
    """The digests of the sources the build compiled, by module; None: no compiled build."""
    try:
        loaded = json.loads((here / MANIFEST).read_text())
    except (OSError, ValueError):
        return None
    sources = loaded.get("sources") if isinstance(loaded, dict) else None
    return sources if isinstance(sources, dict) else None


def _compiled(here: Path, name: str) -> bool:
    return any((here / f"{name}{suffix}").is_file()
               for suffix in importlib.machinery.EXTENSION_SUFFIXES)


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _load_source(name: str, path: Path) -> None:
    if name in sys.modules:
        return
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    parent, _, child = name.rpartition(".")
    setattr(sys.modules[parent], child, module)  # as an import binds it on its package


# Imported first by the package's __init__, before any module it may replace (setup.py loads
# this file on its own, outside the package, for NATIVE).
if __package__:
    choose(__package__, __file__)
