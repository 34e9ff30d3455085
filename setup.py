"""The redaction detectors, compiled with mypyc (the mypy project's compiler for typed Python)
where a C compiler is at hand; everything else is in pyproject.toml.

The detectors run on every string a span or log carries, so they are the one place where
interpreted Python's per-call cost is the product's cost (about half the time on realistic
lines: benchmarks/redaction.py, "native" beside "pure Python"). The sources stay the truth:
the compiled modules are built from them unchanged, ``servescope.redaction`` loads the sources
instead when the compiled build is missing, stale or turned off (``SERVESCOPE_REDACTION_NATIVE
=0``), and a build that cannot compile installs the pure-Python package with a warning.
``SERVESCOPE_BUILD_NATIVE=0`` skips the compiler.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
PACKAGE = "servescope.redaction"
SOURCE_DIR = HERE / "redaction"


def _native_module() -> Any:
    """redaction/native.py, which names the modules to compile and reads the manifest."""
    spec = importlib.util.spec_from_file_location("_servescope_native", SOURCE_DIR / "native.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_NATIVE = _native_module()
NATIVE: tuple[str, ...] = _NATIVE.NATIVE
MANIFEST: str = _NATIVE.MANIFEST
STAGE = HERE / "build" / "mypyc-src"


def _wanted() -> bool:
    return os.environ.get("SERVESCOPE_BUILD_NATIVE", "1") != "0"


def _stage() -> list[str]:
    """The package's sources under their installed module names: mypyc names a module from
    its path, and the repository keeps ``servescope.redaction`` in ``redaction/``."""
    shutil.rmtree(STAGE, ignore_errors=True)
    package = STAGE / "servescope" / "redaction"
    package.mkdir(parents=True)
    (STAGE / "servescope" / "__init__.py").write_text("")
    for source in SOURCE_DIR.glob("*.py"):
        shutil.copy2(source, package / source.name)
    return [str((package / f"{name}.py").relative_to(HERE)) for name in NATIVE]


def _native_modules() -> list[Any]:
    if not _wanted():
        return []
    try:
        from mypyc.build import mypycify
    except ImportError as error:
        print(f"servescope: mypyc unavailable ({error}); redaction stays pure Python",
              file=sys.stderr)
        return []
    paths = _stage()
    restore = _cap_memory()
    try:
        return list(mypycify(paths, opt_level="3", group_name="servescope_redaction",
                             target_dir=str(Path("build") / "mypyc")))
    except (Exception, SystemExit) as error:  # mypy's errors end in SystemExit
        print(f"servescope: mypyc could not compile the detectors ({error!r}); redaction "
              "stays pure Python", file=sys.stderr)
        return []
    finally:
        restore()


def _cap_memory() -> Any:
    """Caps this process's address space at 85% of the machine's memory while mypyc runs, and
    returns what lifts the cap. mypyc holds the whole detector table's module in memory at
    once: on a small machine a compile that would outgrow it then fails with MemoryError, a
    failed compile like any other (the package installs pure Python), instead of the kernel
    killing the install. ``SERVESCOPE_BUILD_MEMORY_CAP=0`` leaves the limit alone."""
    try:
        import resource

        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, ValueError, OSError, AttributeError):
        return lambda: None
    if os.environ.get("SERVESCOPE_BUILD_MEMORY_CAP", "1") == "0" or total <= 0:
        return lambda: None
    cap = int(total * 0.85)
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    return lambda: resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


class BuildNative(build_ext):  # type: ignore[misc]
    """Compiles the detectors, or installs without them: a failed compile is a warning, and
    the manifest that tells the package its compiled modules match these sources is written
    only after every one of them built."""

    def run(self) -> None:
        # The modules go to the build's own tree only (an editable install links it): never
        # beside the sources, where the manifest would be packaged as the sources' data.
        self.inplace = False
        try:
            super().run()
        except Exception as error:  # a compiler error (distutils' CompileError and friends)
            print(f"servescope: compiling the detectors failed ({error}); redaction stays "
                  "pure Python", file=sys.stderr)
            return
        if self.extensions:
            manifest = self._manifest_path()
            manifest.parent.mkdir(parents=True, exist_ok=True)
            # the digests native.py checks the sources against, made by its own function
            sources = {name: _NATIVE._digest(SOURCE_DIR / f"{name}.py") for name in NATIVE}
            manifest.write_text(json.dumps({"sources": sources}, indent=1) + "\n")

    def _manifest_path(self) -> Path:
        return Path(self.build_lib).joinpath(*PACKAGE.split("."), MANIFEST)

    def get_outputs(self) -> list[str]:
        outputs = list(super().get_outputs())
        if self.extensions:
            outputs.append(str(self._manifest_path()))
        return outputs


setup(ext_modules=_native_modules(), cmdclass={"build_ext": BuildNative})
