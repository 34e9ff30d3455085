"""Start a local Prometheus on a loopback port: what the demo uses to draw its report, and the
one launcher the integration tests start theirs with (``tests/promharness.py`` adds its query
helpers and Alertmanager around it).

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
import urllib.parse
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

__all__ = ["LaunchError", "LocalPrometheus", "config_document", "free_port", "prometheus_binary",
           "start_prometheus", "stop_process"]


class LaunchError(RuntimeError):
    """Prometheus is not installed, or did not start; the message says which and why."""


def prometheus_binary() -> str | None:
    return os.environ.get("PROMETHEUS_BIN") or shutil.which("prometheus")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
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

    @property
    def config_path(self) -> Path:
        return self.root / "prometheus.yml"

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    def log_tail(self, n: int = 2000) -> str:
        try:
            return self.log_path.read_text("utf-8", "replace")[-n:]
        except OSError:
            return ""

    def stop(self) -> None:
        stop_process(self.process)

    def __enter__(self) -> LocalPrometheus:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def stop_process(process: subprocess.Popen[bytes], grace_s: float = 10.0) -> None:
    """Terminate ``process`` (if it still runs) and reap it; kill it past ``grace_s``."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def config_document(targets: Sequence[str], rule_files: Sequence[str | Path], job: str,
                    scrape_interval: str, *, evaluation_interval: str | None = None,
                    alertmanager_url: str | None = None,
                    extra_jobs: Mapping[str, Sequence[str]] | None = None,
                    scrape_configs: Sequence[Mapping[str, Any]] = ()) -> dict[str, Any]:
    """The config :func:`start_prometheus` writes: ``job`` scraping ``targets``, each of
    ``extra_jobs`` its own targets, then ``scrape_configs`` entries as given; rule files by
    absolute path; alerts to ``alertmanager_url`` (like ``http://127.0.0.1:9093``) if given."""
    jobs = {job: list(targets), **{k: list(v) for k, v in (extra_jobs or {}).items()}}
    config: dict[str, Any] = {
        "global": {"scrape_interval": scrape_interval, "scrape_timeout": scrape_interval,
                   "evaluation_interval": evaluation_interval or scrape_interval},
        "rule_files": [str(Path(p).resolve()) for p in rule_files],
        "scrape_configs": [{"job_name": name, "static_configs": [{"targets": listed}]}
                           for name, listed in jobs.items()] + [dict(c) for c in scrape_configs],
    }
    if alertmanager_url:
        parsed = urllib.parse.urlparse(alertmanager_url)
        config["alerting"] = {"alertmanagers": [{
            "scheme": parsed.scheme or "http",
            "static_configs": [{"targets": [parsed.netloc]}]}]}
    return config


def start_prometheus(root: str | Path, targets: Sequence[str],
                     rule_files: Sequence[str | Path] = (), *, job: str = "servescope",
                     scrape_interval: str = "1s", evaluation_interval: str | None = None,
                     alertmanager_url: str | None = None,
                     extra_jobs: Mapping[str, Sequence[str]] | None = None,
                     scrape_configs: Sequence[Mapping[str, Any]] = (),
                     extra_flags: Sequence[str] = (), port: int | None = None,
                     ready_timeout_s: float = 30.0) -> LocalPrometheus:
    """Start Prometheus (exemplar storage on) in ``root`` and wait until it is ready (see
    :func:`config_document` for what it scrapes and where it sends alerts)."""
    document = config_document(targets, rule_files, job, scrape_interval,
                               evaluation_interval=evaluation_interval,
                               alertmanager_url=alertmanager_url, extra_jobs=extra_jobs,
                               scrape_configs=scrape_configs)
    return start_prometheus_config(root, document, extra_flags, port=port,
                                   ready_timeout_s=ready_timeout_s)


def start_prometheus_config(root: str | Path, document: Mapping[str, Any],
                            extra_flags: Sequence[str] = (), *, port: int | None = None,
                            ready_timeout_s: float = 30.0) -> LocalPrometheus:
    """Start Prometheus with a whole config document (external labels, remote_write, relabel
    rules: a shard or a global tier) and flags such as ``--web.enable-remote-write-receiver``;
    wait until it is ready."""
    binary = prometheus_binary()
    if binary is None:
        raise LaunchError("Prometheus is not installed (Debian package 'prometheus', or set "
                          "PROMETHEUS_BIN)")
    root = Path(root)
    (root / "data").mkdir(parents=True, exist_ok=True)
    config = root / "prometheus.yml"
    config.write_text(yaml.safe_dump(dict(document), sort_keys=False), "utf-8")
    port = port or free_port()
    argv = [binary, f"--config.file={config}", f"--storage.tsdb.path={root / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}", "--enable-feature=exemplar-storage",
            "--web.enable-lifecycle", "--log.level=warn", *extra_flags]
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
