"""A Prometheus beside a short-lived server, then the report: what ``servescope demo`` runs.

``started(url)`` launches Prometheus on a loopback port with the generated rules (for the given
SLO spec) and a 1 s scrape of ``url``; ``finished(url)`` waits for the last scrapes of the load;
``write()`` draws the report over the whole run. Any failure to install, start or query
Prometheus becomes ``problem``, a sentence for the user: the demo goes on without the report.
"""

from __future__ import annotations

import tempfile
import time
import urllib.parse
from pathlib import Path

from servescope.instrumentation.slo import SLOSpec

from .boards import TimeRange, generated_dir, load_boards
from .launcher import LaunchError, LocalPrometheus, start_prometheus
from .prometheus import PrometheusClient, PrometheusError

__all__ = ["ReportSession"]

SCRAPE_INTERVAL_S = 1.0


class ReportSession:
    def __init__(self, slo: SLOSpec | None = None, flavor: str = "servescope") -> None:
        self.slo = slo or SLOSpec.default()
        self.flavor = flavor
        self.problem: str | None = None
        self.prometheus: LocalPrometheus | None = None
        self.started_at = 0.0
        self.finished_at = 0.0
        self._tmp = tempfile.TemporaryDirectory(prefix="servescope-demo-prometheus-")

    def started(self, url: str) -> None:
        """Start Prometheus scraping ``url`` (failures are kept in ``problem``)."""
        try:
            rules = Path(self._tmp.name) / "rules.yaml"
            rules.write_text(_rules_text(self.slo), "utf-8")
            target = urllib.parse.urlparse(url).netloc
            self.prometheus = start_prometheus(self._tmp.name, [target], [rules],
                                               scrape_interval=f"{SCRAPE_INTERVAL_S:g}s")
            _wait_first_scrape(PrometheusClient(self.prometheus.url), timeout_s=15)
        except (LaunchError, PrometheusError, OSError) as exc:
            self.problem = f"Prometheus could not be started: {exc}"
            self._stop_prometheus()
        self.started_at = time.time()

    def finished(self, url: str) -> None:
        """The load is over: let Prometheus take the last scrapes and evaluate the rules."""
        if self.prometheus is not None:
            time.sleep(3 * SCRAPE_INTERVAL_S)
        self.finished_at = time.time()

    def write(self, output: str, png: str | None = None) -> str:
        """Draw the report over the run; return the line to print (or the problem)."""
        if self.prometheus is None:
            return f"report: none. {self.problem or 'Prometheus was not started.'}"
        try:
            from .dashboard import write_report  # matplotlib: only when drawing
        except ImportError as exc:
            return ("report: none. Drawing needs matplotlib, the 'report' extra: pip install "
                    f"'servescope[report]' ({exc}).")
        try:
            client = PrometheusClient(self.prometheus.url)
            window = TimeRange.ending(self.started_at - 2, self.finished_at, SCRAPE_INTERVAL_S)
            boards = load_boards(generated_dir(self.flavor))
            variables = {"job": ".*", "instance": ".*", "model": ".*"}
            return write_report(client, boards, window, variables, output, png,
                                source=f"servescope demo, flavor {self.flavor}")
        except (PrometheusError, OSError, ValueError) as exc:
            return f"report: none. Drawing it failed: {exc}"

    def close(self) -> None:
        self._stop_prometheus()
        self._tmp.cleanup()

    def _stop_prometheus(self) -> None:
        if self.prometheus is not None:
            self.prometheus.stop()
            self.prometheus = None

    def __enter__(self) -> ReportSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _rules_text(slo: SLOSpec) -> str:
    from servescope.alerts.model import Options
    from servescope.alerts.render import dump, rules_document

    return dump(rules_document(slo, Options()))


def _wait_first_scrape(client: PrometheusClient, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if client.query("up == 1", time.time()):
                return
        except PrometheusError:
            pass
        time.sleep(0.2)
    raise PrometheusError(f"no successful scrape of the demo server within {timeout_s:g} s")
