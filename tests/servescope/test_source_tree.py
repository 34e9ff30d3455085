"""From the repository root, without ``-P``, the working directory's ``servescope/`` is the
package Python finds first; its rooms (sibling folders) must still import, and only they."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FINDER = "any(type(f).__name__ == '_SourceTreeRooms' for f in sys.meta_path)"


def _python(code: str, *flags: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONSAFEPATH"}
    return subprocess.run([sys.executable, *flags, "-c", code], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def test_rooms_import_from_the_repository_root_without_safe_path():
    run = _python("import sys, servescope.instrumentation, servescope.collector.config\n"
                  "print(servescope.__file__, servescope.instrumentation.__file__, "
                  f"servescope.collector.config.SCHEMA_FILE.is_file(), {FINDER})")
    assert run.returncode == 0, run.stderr
    front, room, schema_found, mapped = run.stdout.split()
    # the working directory's front door (the case the mapping exists for), its sibling room
    assert Path(front) == ROOT / "servescope" / "__init__.py"
    assert Path(room).resolve() == ROOT / "instrumentation" / "__init__.py"
    assert (schema_found, mapped) == ("True", "True")


def test_only_the_mapped_rooms_are_found():
    run = _python("import servescope.tests")
    assert run.returncode == 1
    assert "No module named 'servescope.tests'" in run.stderr


def test_the_installed_package_maps_nothing():
    run = _python(f"import sys, servescope\nprint(servescope.__file__, {FINDER})", "-P")
    assert run.returncode == 0, run.stderr
    front, mapped = run.stdout.split()
    assert Path(front) != ROOT / "servescope" / "__init__.py"
    assert mapped == "False"
