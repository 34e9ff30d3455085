"""``servescope demo``: the reference server plus a mixed load, in one process."""

from __future__ import annotations

import argparse
import json
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("demo", help="run the reference server under a mixed streaming load "
                                    "and print the summary")
    p.add_argument("--duration", type=float, default=30.0, help="seconds of load (default 30)")
    p.add_argument("--concurrency", type=int, default=24, help="concurrent clients")
    p.add_argument("--mix", default="fast=0.6,slow=0.2,cancel=0.1,deadline=0.1",
                   help="client kinds and weights")
    p.add_argument("--max-tokens", type=int, default=128)
    p.add_argument("--metrics-file", default="servescope-demo-metrics.txt")
    p.add_argument("--trace-file", default="servescope-traces.jsonl",
                   help="where spans go when no OTEL_* exporter is configured")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON line")
    p.add_argument("--report", default="servescope-demo-report.html",
                   help="where the dashboard report goes (a loopback Prometheus scrapes the "
                        "server every second during the run)")
    p.add_argument("--no-report", action="store_true",
                   help="no Prometheus, no report: only the summary")
    p.add_argument("--report-png", default=None,
                   help="also draw the overview's latency-and-causes row as a PNG here")
    p.set_defaults(handler=_demo)


def _demo(args: argparse.Namespace) -> int:
    from servescope.harness.demo import run_demo
    from servescope.harness.loadgen import Mix

    try:
        mix = Mix.parse(args.mix)
        if args.duration <= 0 or args.concurrency < 1 or args.max_tokens < 1:
            raise ValueError("--duration, --concurrency and --max-tokens must be positive")
    except ValueError as exc:
        print(f"servescope demo: {exc}")
        return 2
    from servescope.redaction import RedactionStage
    from servescope.report.live import ReportSession

    with ReportSession() as session:
        result = run_demo(args.duration, concurrency=args.concurrency, mix=mix,
                          metrics_file=args.metrics_file, trace_file=args.trace_file,
                          max_tokens=args.max_tokens, progress=not args.json,
                          redaction=RedactionStage(),  # spans leave redacted, as in production
                          on_started=None if args.no_report else session.started,
                          on_finished=None if args.no_report else session.finished)
        report = None if args.no_report else session.write(args.report, args.report_png)
    if args.json:
        print(json.dumps({**result.summary.to_dict(), "metrics_file": str(result.metrics_file),
                          "traces": result.traces, "report": report}))
    else:
        print(result.report())
        if report is not None:
            print(report)
    return 0
