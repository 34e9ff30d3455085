"""Load generators in their own processes, one per kind of client, started together.

A load generator inside the server's interpreter takes its GIL from the transport and the
engine, and the slow readers' client-side work is then counted as the server's. Each
``LoadConfig`` here runs in a child process (``python -m servescope.harness.load_process``):
the child reads its config as one JSON line, says ``ready``, waits for ``go`` (so every kind
starts at the same moment), runs, and prints what its clients saw as one JSON line.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from servescope.harness.loadgen import KINDS, LoadConfig, Mix, run_load

__all__ = ["ClientReport", "run_apart"]

METRICS = ("ttft", "tpot", "e2e")


@dataclass(frozen=True)
class ClientReport:
    """What one process's clients saw: request count, finish reasons, sampled latencies."""

    total: int
    finish: dict[str, int]
    samples: dict[str, dict[str, list[float]]]  # metric -> kind -> seconds

    def values(self, metric: str, *kinds: str) -> list[float]:
        """Sampled values of ``metric`` (ttft, tpot, e2e) for ``kinds`` (default: all)."""
        by_kind = self.samples.get(metric, {})
        return [v for kind in kinds or KINDS for v in by_kind.get(kind, [])]


def run_apart(configs: Mapping[str, LoadConfig], *, wait_for: str, timeout_s: float,
              linger_s: float = 0.0) -> dict[str, ClientReport | None]:
    """Run each config in its own process, all started together. Wait up to ``timeout_s``
    for ``wait_for``'s process; give the others ``linger_s`` more to end by themselves, then
    kill them (their connections close: the server sees client_cancel). A killed process's
    report is None."""
    procs = {name: _start(config) for name, config in configs.items()}
    try:
        for proc in procs.values():
            assert proc.stdout is not None
            line = proc.stdout.readline().strip()
            if line != "ready":
                raise RuntimeError(f"a load process did not start: {line!r}")
        for proc in procs.values():
            _send(proc, "go")
        reports: dict[str, ClientReport | None] = {wait_for: _report(procs[wait_for],
                                                                     timeout_s)}
        for name, proc in procs.items():
            if name != wait_for:
                reports[name] = _report(proc, linger_s) if linger_s > 0 else None
        return reports
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
            proc.wait()


def _start(config: LoadConfig) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-m", "servescope.harness.load_process"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    _send(proc, json.dumps(dataclasses.asdict(config)))
    return proc


def _send(proc: subprocess.Popen[str], line: str) -> None:
    assert proc.stdin is not None
    proc.stdin.write(line + "\n")
    proc.stdin.flush()


def _report(proc: subprocess.Popen[str], timeout_s: float) -> ClientReport | None:
    try:
        out, _ = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return None
    if proc.returncode != 0 or not out.strip():
        raise RuntimeError(f"a load process failed (exit status {proc.returncode})")
    data = json.loads(out.strip().splitlines()[-1])
    return ClientReport(data["total"], data["finish"], data["samples"])


def _config_from(text: str) -> LoadConfig:
    fields = json.loads(text)
    return LoadConfig(**{**fields, "mix": Mix(**fields["mix"])})


def _child() -> None:
    config = _config_from(sys.stdin.readline())
    print("ready", flush=True)
    sys.stdin.readline()
    stats = asyncio.run(run_load(config)).stats
    samples = {m: {k: stats.values(m, k) for k in KINDS if stats.values(m, k)}
               for m in METRICS}
    report: dict[str, Any] = {"total": stats.total, "finish": dict(stats.finish),
                              "samples": samples}
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    _child()
