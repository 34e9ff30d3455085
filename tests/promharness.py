"""Start real Prometheus and Alertmanager processes for integration tests.

Every process listens on 127.0.0.1 on a free port, keeps its data in a temp dir the caller owns,
and is stopped by ``.stop()`` (or the context manager). Prometheus is started by the library's
launcher (``servescope.report.launcher``, what the demo uses); this module adds the HTTP API
helpers the tests query with, Alertmanager and a webhook receiver::

    prom = start_prometheus(tmp_path, ["127.0.0.1:8000"], rule_files=[rules])
    try:
        prom.wait_for(lambda: prom.query("up") or None, timeout=20)
    finally:
        prom.stop()

Binaries: ``prometheus`` and ``prometheus-alertmanager`` (Debian) or ``alertmanager``
(upstream); override with the ``PROMETHEUS_BIN`` / ``ALERTMANAGER_BIN`` environment variables.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, TypeVar

import yaml
from waiting import poll_until

from servescope.report import launcher
from servescope.report.launcher import free_port, prometheus_binary

__all__ = [
    "AlertmanagerHandle",
    "PromQueryError",
    "PrometheusHandle",
    "WebhookReceiver",
    "alertmanager_binary",
    "free_port",
    "prometheus_binary",
    "start_alertmanager",
    "start_prometheus",
    "start_prometheus_config",
    "wait_for",
]

T = TypeVar("T")


class PromQueryError(RuntimeError):
    """Prometheus answered a query with status "error" (bad PromQL, bad matcher, ...)."""


def alertmanager_binary() -> str | None:
    return (os.environ.get("ALERTMANAGER_BIN") or shutil.which("prometheus-alertmanager")
            or shutil.which("alertmanager"))


def wait_for(predicate: Callable[[], T | None], timeout: float = 30.0, interval: float = 0.25,
             what: str = "condition") -> T:
    """Poll ``predicate`` until it returns something other than None/False (0 and empty
    answers count: a query's value may be 0); return that. Errors of a server not up yet, or
    of a transient query, count as "not yet"."""
    def answered() -> tuple[T] | None:
        value = predicate()
        return None if value is None or value is False else (value,)

    found = poll_until(answered, what=what, timeout_s=timeout, interval_s=interval,
                       transient=(OSError, PromQueryError, ValueError))
    assert found is not None  # poll_until returns only a truthy answer
    return found[0]


def _get_json(url: str, timeout: float = 10.0) -> Any:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return json.loads(resp.read())
    except urllib.error.HTTPError as exc:  # Prometheus reports bad queries as 400 with JSON
        body = exc.read()
        try:
            return json.loads(body)
        except ValueError:
            raise OSError(f"{url}: HTTP {exc.code}: {body[:200]!r}") from None


@dataclass
class _Process:
    proc: subprocess.Popen[bytes]
    log_path: Path

    def log_tail(self, n: int = 4000) -> str:
        try:
            return self.log_path.read_text("utf-8", "replace")[-n:]
        except OSError:
            return ""

    def stop(self) -> None:
        launcher.stop_process(self.proc)


def _spawn(argv: Sequence[str], log_path: Path) -> _Process:
    log = log_path.open("wb")
    try:
        proc = subprocess.Popen(list(argv), stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
    finally:
        log.close()
    return _Process(proc, log_path)


def _wait_ready(process: _Process, url: str, timeout: float, name: str) -> None:
    def ready() -> bool:
        if process.proc.poll() is not None:
            raise RuntimeError(f"{name} exited with {process.proc.returncode}:\n"
                               f"{process.log_tail()}")
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                return bool(resp.status == 200)
        except (OSError, urllib.error.URLError):
            return False

    try:
        wait_for(ready, timeout=timeout, interval=0.1, what=f"{name} at {url}")
    except TimeoutError:
        process.stop()
        raise TimeoutError(f"{name} not ready at {url}:\n{process.log_tail()}") from None


@dataclass
class PrometheusHandle:
    """A running Prometheus: HTTP API helpers and ``stop``."""

    url: str
    config_path: Path
    data_dir: Path
    process: _Process = field(repr=False)

    # --- the HTTP API ---------------------------------------------------------------------
    def api(self, path: str, **params: str) -> Any:
        """GET /api/v1/<path>; return ``data`` or raise :class:`PromQueryError`."""
        query = f"?{urllib.parse.urlencode(params)}" if params else ""
        body = _get_json(f"{self.url}/api/v1/{path}{query}")
        if body.get("status") != "success":
            raise PromQueryError(f"{path} {params}: {body.get('errorType')}: {body.get('error')}")
        return body["data"]

    def query(self, promql: str, at: float | None = None) -> list[dict[str, Any]]:
        """Instant query; the result list (a scalar result comes back as one sample)."""
        params = {"query": promql}
        if at is not None:
            params["time"] = repr(at)
        data = self.api("query", **params)
        if data["resultType"] in ("scalar", "string"):
            return [{"metric": {}, "value": data["result"]}]
        result: list[dict[str, Any]] = data["result"]
        return result

    def query_range(self, promql: str, start: float, end: float,
                    step: str = "1s") -> list[dict[str, Any]]:
        data = self.api("query_range", query=promql, start=repr(start), end=repr(end), step=step)
        result: list[dict[str, Any]] = data["result"]
        return result

    def value(self, promql: str) -> float | None:
        """The single value of an instant query (None when empty; error when several)."""
        result = self.query(promql)
        if not result:
            return None
        if len(result) > 1:
            raise ValueError(f"{promql}: {len(result)} series, expected one")
        return float(result[0]["value"][1])

    def exemplars(self, promql: str, start: float, end: float) -> list[dict[str, Any]]:
        data: list[dict[str, Any]] = self.api("query_exemplars", query=promql,
                                              start=repr(start), end=repr(end))
        return data

    def rule_groups(self) -> list[dict[str, Any]]:
        groups: list[dict[str, Any]] = self.api("rules")["groups"]
        return groups

    def alerts(self) -> list[dict[str, Any]]:
        alerts: list[dict[str, Any]] = self.api("alerts")["alerts"]
        return alerts

    def targets(self) -> list[dict[str, Any]]:
        active: list[dict[str, Any]] = self.api("targets")["activeTargets"]
        return active

    # --- waiting --------------------------------------------------------------------------
    def wait_for(self, predicate: Callable[[], T | None], timeout: float = 30.0,
                 interval: float = 0.25, what: str = "condition") -> T:
        if self.process.proc.poll() is not None:
            raise RuntimeError(f"prometheus exited:\n{self.process.log_tail()}")
        return wait_for(predicate, timeout, interval, what)

    def wait_for_query(self, promql: str, timeout: float = 30.0) -> list[dict[str, Any]]:
        """Poll an instant query until it returns at least one series."""
        return self.wait_for(lambda: self.query(promql) or None, timeout, what=promql)

    def wait_for_targets_up(self, timeout: float = 30.0) -> list[dict[str, Any]]:
        def all_up() -> list[dict[str, Any]] | None:
            targets = self.targets()
            return targets if targets and all(t["health"] == "up" for t in targets) else None
        return self.wait_for(all_up, timeout, what="all scrape targets up")

    def log_tail(self, n: int = 4000) -> str:
        return self.process.log_tail(n)

    def stop(self) -> None:
        self.process.stop()

    def __enter__(self) -> PrometheusHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_prometheus(tmpdir: str | Path, scrape_targets: Sequence[str],
                     rule_files: Iterable[str | Path] = (),
                     alertmanager_url: str | None = None,
                     extra_flags: Sequence[str] = (), *, job: str = "servescope",
                     scrape_interval: str = "1s", evaluation_interval: str = "1s",
                     port: int | None = None, ready_timeout: float = 30.0,
                     extra_jobs: Mapping[str, Sequence[str]] | None = None,
                     scrape_configs: Sequence[Mapping[str, Any]] = ()) -> PrometheusHandle:
    """Start Prometheus with the library's launcher (a fresh folder under ``tmpdir``) and
    wrap it in the query helpers. Raises RuntimeError (``LaunchError``) when the binary is
    missing, exits or is not ready within ``ready_timeout``."""
    local = launcher.start_prometheus(
        Path(tmpdir) / f"prometheus-{free_port()}", scrape_targets, list(rule_files), job=job,
        scrape_interval=scrape_interval, evaluation_interval=evaluation_interval,
        alertmanager_url=alertmanager_url, extra_jobs=extra_jobs,
        scrape_configs=scrape_configs, extra_flags=extra_flags, port=port,
        ready_timeout_s=ready_timeout)
    return PrometheusHandle(local.url, local.config_path, local.data_dir,
                            _Process(local.process, local.log_path))


def start_prometheus_config(tmpdir: str | Path, config: Mapping[str, Any],
                            extra_flags: Sequence[str] = (), *, port: int | None = None,
                            ready_timeout: float = 30.0) -> PrometheusHandle:
    """Start Prometheus with a whole config document (external labels, remote_write, relabel
    rules: a shard or a global tier); ``extra_flags`` such as
    ``--web.enable-remote-write-receiver``."""
    local = launcher.start_prometheus_config(
        Path(tmpdir) / f"prometheus-{free_port()}", config, extra_flags, port=port,
        ready_timeout_s=ready_timeout)
    return PrometheusHandle(local.url, local.config_path, local.data_dir,
                            _Process(local.process, local.log_path))


# --- Alertmanager and a webhook receiver -------------------------------------------------
class WebhookReceiver:
    """An HTTP server on 127.0.0.1 that records every Alertmanager webhook notification."""

    def __init__(self) -> None:
        self.notifications: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                payload = json.loads(self.rfile.read(length) or b"{}")
                with receiver._lock:
                    receiver.notifications.append(payload)
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/alerts"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def alerts(self) -> list[dict[str, Any]]:
        """Every alert carried by any notification so far."""
        with self._lock:
            return [a for n in self.notifications for a in n.get("alerts", [])]

    def alertnames(self, status: str = "firing") -> set[str]:
        return {a["labels"].get("alertname", "") for a in self.alerts()
                if a.get("status") == status}

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@dataclass
class AlertmanagerHandle:
    url: str
    config_path: Path
    process: _Process = field(repr=False)

    def alerts(self) -> list[dict[str, Any]]:
        alerts: list[dict[str, Any]] = _get_json(f"{self.url}/api/v2/alerts")
        return alerts

    def log_tail(self, n: int = 4000) -> str:
        return self.process.log_tail(n)

    def stop(self) -> None:
        self.process.stop()

    def __enter__(self) -> AlertmanagerHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def alertmanager_config(webhook_url: str) -> dict[str, Any]:
    """Route everything to one webhook, grouped per alert, with second-scale timers."""
    return {
        "route": {"receiver": "test-webhook", "group_by": ["alertname"],
                  "group_wait": "1s", "group_interval": "1s", "repeat_interval": "1h"},
        "receivers": [{"name": "test-webhook",
                       "webhook_configs": [{"url": webhook_url, "send_resolved": True}]}],
    }


def start_alertmanager(tmpdir: str | Path, webhook_url: str | None = None,
                       config_path: str | Path | None = None,
                       ready_timeout: float = 30.0) -> AlertmanagerHandle:
    """Start Alertmanager (clustering off) with ``config_path`` or a webhook-only config."""
    binary = alertmanager_binary()
    if binary is None:
        raise RuntimeError("alertmanager binary not found (Debian 'prometheus-alertmanager')")
    root = Path(tmpdir) / f"alertmanager-{free_port()}"
    (root / "data").mkdir(parents=True)
    if config_path is None:
        if webhook_url is None:
            raise ValueError("start_alertmanager needs webhook_url or config_path")
        config_path = root / "alertmanager.yml"
        config_path.write_text(yaml.safe_dump(alertmanager_config(webhook_url)), "utf-8")
    port = free_port()
    argv = [binary, f"--config.file={config_path}", f"--storage.path={root / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}", "--cluster.listen-address=",
            "--log.level=warn"]
    process = _spawn(argv, root / "alertmanager.log")
    url = f"http://127.0.0.1:{port}"
    _wait_ready(process, f"{url}/-/ready", ready_timeout, "alertmanager")
    return AlertmanagerHandle(url, Path(config_path), process)
