"""``servescope demo``: the reference server and a mixed load in one process, then a summary.

Runs on embedded defaults, with no external service: spans go to a JSON-lines file (or where
the standard ``OTEL_*`` variables say), the metrics are served on the server's ``/metrics``
during the run and written to a file at the end.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from servescope.instrumentation.metrics import render
from servescope.instrumentation.setup import SpanRedaction
from servescope.instrumentation.slo import SLOSpec
from servescope.reference.config import EngineConfig
from servescope.reference.transport.server import LocalServer

from .load_summary import Summary, format_summary, scrape, summarize
from .loadgen import LoadConfig, Mix, Progress, run_load

__all__ = ["DemoHook", "DemoResult", "progress_printer", "run_demo"]

#: Called with the server's base URL: once it listens, and once the load is done (it still
#: serves ``/metrics`` then). The command layer starts and feeds Prometheus through these.
DemoHook = Callable[[str], None]

DEFAULT_METRICS_FILE = "servescope-demo-metrics.txt"
DEFAULT_TRACE_FILE = "servescope-traces.jsonl"


@dataclass
class DemoResult:
    summary: Summary
    url: str
    metrics_file: Path
    traces: str
    notes: list[str] = field(default_factory=list)

    def report(self) -> str:
        return "\n".join([
            format_summary(self.summary), "",
            f"metrics: served at {self.url}/metrics during the run; final exposition "
            f"(OpenMetrics, with exemplars) written to {self.metrics_file}",
            f"traces: exported to {self.traces}", *self.notes])


def progress_printer(duration_s: float, stream: TextIO | None = None) -> Progress:
    """A one-line progress bar on stderr (rewritten in place on a terminal)."""
    out = stream if stream is not None else sys.stderr
    tty = out.isatty()
    last = [-10.0]

    def show(elapsed: float, done: int, in_flight: int) -> None:
        frac = min(1.0, elapsed / duration_s)
        bar = "#" * int(frac * 30)
        phase = "  (finishing the requests in flight)" if elapsed > duration_s else ""
        line = (f"[{bar:<30}] {elapsed:5.1f}/{duration_s:.0f} s  {done} done  "
                f"{in_flight} in flight{phase}")
        if tty:
            print(f"\r{line:<110}", end="", file=out, flush=True)
        elif elapsed - last[0] >= 5.0:
            last[0] = elapsed
            print(line, file=out, flush=True)

    return show


def run_demo(duration_s: float = 30.0, *, concurrency: int = 24, mix: Mix | None = None,
             config: EngineConfig | None = None, slo: SLOSpec | None = None,
             metrics_file: str | Path = DEFAULT_METRICS_FILE,
             trace_file: str = DEFAULT_TRACE_FILE, max_tokens: int = 128,
             progress: bool = True,
             redaction: SpanRedaction | None = None, on_started: DemoHook | None = None,
             on_finished: DemoHook | None = None) -> DemoResult:
    """Start the server on a free 127.0.0.1 port, drive the mixed load, summarise, stop."""
    server = LocalServer(config, slo=slo, trace_file=trace_file, redaction=redaction).start()
    try:
        if on_started is not None:
            on_started(server.url)
        load_config = LoadConfig(server.url, duration_s=duration_s, concurrency=concurrency,
                                 mix=mix or Mix(), max_tokens=max_tokens,
                                 grace_s=max(5.0, min(10.0, duration_s / 3)))
        before = scrape(server.url)
        printer = progress_printer(duration_s) if progress else None
        load = asyncio.run(run_load(load_config, slo=server.telemetry.slo, progress=printer))
        if printer is not None and sys.stderr.isatty():
            print(file=sys.stderr)
        server.engine.wait_idle(10.0)
        if on_finished is not None:
            on_finished(server.url)
        after = scrape(server.url)
        summary = summarize(load, after.minus(before), server.telemetry.slo)
        data, _ = render(server.setup.registry, "application/openmetrics-text")
        path = Path(metrics_file)
        path.write_bytes(data)
        stats = server.engine.stats()
        notes = [f"engine after the run: {stats.free_blocks}/{stats.total_blocks} KV blocks "
                 f"free, {stats.used_slots} slots used, {stats.live_streams} live streams"]
        return DemoResult(summary, server.url, path, server.setup.traces_destination, notes)
    finally:
        server.stop()
