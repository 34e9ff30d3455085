"""Start a local Prometheus on a loopback port: what the demo uses to draw its report.

The binary is ``$PROMETHEUS_BIN`` or ``prometheus`` on the PATH (the Debian package). Data and
config live in a folder the caller owns; the process listens on 127.0.0.1 only, scrapes the
given targets every ``scrape_interval`` and evaluates the given rule files.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

__all__ = ["LaunchError", "LocalPrometheus", "prometheus_binary", "start_prometheus"]


class LaunchError(RuntimeError):
    """Prometheus is not installed, or did not start; the message says which and why."""


def prometheus_binary() -> str | None:
    return os.environ.get("PROMETHEUS_BIN") or shutil.which("prometheus")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class LocalPrometheus:
    url: str
    root: Path
    process: subprocess.Popen[bytes]

    @property
    def log_path(self) -> Path:
        return self.root / "prometheus.log"

    def log_tail(self, n: int = 2000) -> str:
        try:
            return self.log_path.read_text("utf-8", "replace")[-n:]
        except OSError:
            return ""

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)

    def __enter__(self) -> LocalPrometheus:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def config_document(targets: Sequence[str], rule_files: Sequence[Path], job: str,
                    scrape_interval: str) -> dict[str, object]:
    return {
        "global": {"scrape_interval": scrape_interval, "scrape_timeout": scrape_interval,
                   "evaluation_interval": scrape_interval},
        "rule_files": [str(Path(p).resolve()) for p in rule_files],
        "scrape_configs": [{"job_name": job, "static_configs": [{"targets": list(targets)}]}],
    }


def start_prometheus(root: str | Path, targets: Sequence[str], rule_files: Sequence[Path] = (),
                     *, job: str = "servescope", scrape_interval: str = "1s",
                     ready_timeout_s: float = 30.0) -> LocalPrometheus:
    """Start Prometheus (exemplar storage on) and wait until it is ready."""
    binary = prometheus_binary()
    if binary is None:
        raise LaunchError("Prometheus is not installed (Debian package 'prometheus', or set "
                          "PROMETHEUS_BIN)")
    root = Path(root)
    (root / "data").mkdir(parents=True, exist_ok=True)
    config = root / "prometheus.yml"
    config.write_text(yaml.safe_dump(config_document(targets, rule_files, job,
                                                     scrape_interval), sort_keys=False), "utf-8")
    port = _free_port()
    argv = [binary, f"--config.file={config}", f"--storage.tsdb.path={root / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}", "--enable-feature=exemplar-storage",
            "--log.level=warn"]
    with (root / "prometheus.log").open("wb") as log:
        try:
            process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL)
        except OSError as exc:
            raise LaunchError(f"cannot run {binary}: {exc}") from None
    handle = LocalPrometheus(f"http://127.0.0.1:{port}", root, process)
    _wait_ready(handle, ready_timeout_s)
    return handle


def _wait_ready(handle: LocalPrometheus, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if handle.process.poll() is not None:
            raise LaunchError(f"Prometheus exited with status {handle.process.returncode}: "
                              f"{handle.log_tail(600).strip()}")
        try:
            with urllib.request.urlopen(f"{handle.url}/-/ready", timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.1)
    handle.stop()
    raise LaunchError(f"Prometheus was not ready after {timeout_s:g} s: "
                      f"{handle.log_tail(600).strip()}")
