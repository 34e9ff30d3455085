"""Processes in CPU cgroups of their own, as containers run: a benchmark's proxy, its engine
and its clients each get one group (equal weights), the way Kubernetes gives a sidecar, the
engine's container and (on other machines) the clients theirs.

Why it matters for latency: Linux shares a CPU between groups first, then between the tasks
of a group. In one flat group a proxy that uses more CPU than each light client process is
the one kept waiting when a packet wakes it (the stub and the clients run first); in a group
of its own, using less than its share, it runs as soon as it wakes, as a sidecar with its own
CPU request does. cgroup v1 (``/sys/fs/cgroup/cpu``) and v2 (the ``cpu`` controller) are
supported; without write access (not root, a read-only cgroupfs) :func:`cpu_groups` returns
None and the caller says so.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

__all__ = ["CpuGroups", "cpu_groups"]

_V1 = Path("/sys/fs/cgroup/cpu")
_V2 = Path("/sys/fs/cgroup")


class CpuGroups:
    """Named CPU cgroups under one parent made for this run; removed by :meth:`close`."""

    def __init__(self, parent: Path, v2: bool) -> None:
        self.parent = parent
        self.v2 = v2
        self._made: list[Path] = []

    def put(self, name: str, *pids: int) -> None:
        """Move ``pids`` (all their threads) into the group ``name``, made at first use."""
        group = self.parent / name
        if not group.exists():
            group.mkdir()
            self._made.append(group)
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, FileNotFoundError):
                (group / "cgroup.procs").write_text(str(pid))

    def close(self) -> None:
        """Remove the groups (their processes must have ended) and the parent."""
        for group in reversed(self._made):
            with contextlib.suppress(OSError):
                group.rmdir()
        with contextlib.suppress(OSError):
            self.parent.rmdir()


def cpu_groups(label: str) -> CpuGroups | None:
    """A parent group ``label-<pid>`` for this run's groups; None where none can be made."""
    name = f"{label}-{os.getpid()}"
    try:
        if (_V2 / "cgroup.controllers").exists():
            if "cpu" not in (_V2 / "cgroup.controllers").read_text().split():
                return None
            (_V2 / "cgroup.subtree_control").write_text("+cpu")
            parent = _V2 / name
            parent.mkdir()
            (parent / "cgroup.subtree_control").write_text("+cpu")
            return CpuGroups(parent, v2=True)
        if _V1.is_dir():
            parent = _V1 / name
            parent.mkdir()
            return CpuGroups(parent, v2=False)
    except OSError:
        return None
    return None
