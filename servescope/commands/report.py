"""``servescope report --prometheus URL [--flavor F] [--since 30m] [-o report.html]``.

Evaluates every panel query of the generated dashboards over a range against a real Prometheus
and writes one self-contained HTML page (matplotlib SVG inline: it works offline).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("report", help="draw the generated dashboards from a Prometheus into "
                                      "one self-contained HTML page")
    p.add_argument("--prometheus", required=True, help="Prometheus base URL, e.g. "
                   "http://127.0.0.1:9090")
    p.add_argument("--flavor", default="servescope",
                   help="whose dashboards: servescope (default), vllm, ... (a generated flavor)")
    p.add_argument("--dashboards", default=None,
                   help="folder of dashboard JSON to draw instead of the flavor's")
    p.add_argument("--since", default="30m", help="range ending now (default 30m)")
    p.add_argument("--start", type=float, default=None, help="range start (unix seconds)")
    p.add_argument("--end", type=float, default=None, help="range end (unix seconds)")
    p.add_argument("--job", default=".*", help="regex for the $job variable (default all)")
    p.add_argument("--instance", default=".*", help="regex for $instance (default all)")
    p.add_argument("--model", default=".*", help="regex for $model (default all)")
    p.add_argument("--gateway", default=None,
                   help="regex for $gateway, the gateway jobs an engine flavor's dashboards "
                        "join (default all: servescope-gateway.*)")
    p.add_argument("--scrape-interval", default=None,
                   help="for $__rate_interval (default: read from Prometheus' config)")
    p.add_argument("-o", "--output", default="servescope-report.html")
    p.add_argument("--png", default=None,
                   help="also draw one dashboard row as a PNG here (see --png-row)")
    p.add_argument("--png-row", default=None,
                   help="DASHBOARD/ROW titles for --png (default: the overview's row that "
                        "puts latency beside its causes)")
    p.set_defaults(handler=_report)


MISSING_EXTRA = ("drawing needs matplotlib, the 'report' extra: "
                 "pip install 'servescope[report]'")


def _report(args: argparse.Namespace) -> int:
    from servescope.report import PrometheusError, TimeRange, parse_duration

    try:
        from servescope.report.dashboard import write_report
    except ImportError as exc:
        print(f"servescope report: {MISSING_EXTRA} ({exc})", file=sys.stderr)
        return 2

    for option in ("job", "instance", "model", "gateway"):
        pattern = getattr(args, option)
        if pattern is not None and (why := _regex_error(pattern)) is not None:
            print(f"servescope report: --{option}: not a regular expression: {why}",
                  file=sys.stderr)
            return 2
    try:
        if args.png is not None:
            from servescope.report.dashboard import png_row_key

            png_row_key(args.png_row)  # (refused before Prometheus is asked anything)
        boards = _boards(args)
        end = args.end if args.end is not None else time.time()
        start = args.start if args.start is not None else end - parse_duration(args.since)
        from servescope.report import PrometheusClient

        client = PrometheusClient(args.prometheus)
        scrape = (parse_duration(args.scrape_interval) if args.scrape_interval
                  else client.scrape_interval_s())
        window = TimeRange.ending(start, end, scrape)
    except (ValueError, FileNotFoundError) as exc:
        print(f"servescope report: {exc}", file=sys.stderr)
        return 2
    except PrometheusError as exc:
        print(f"servescope report: {exc}", file=sys.stderr)
        return 1
    variables = {"job": args.job, "instance": args.instance, "model": args.model,
                 "datasource": "prometheus"}
    if args.gateway is not None:
        variables["gateway"] = args.gateway
    try:
        written = write_report(client, boards, window, variables, args.output, args.png,
                               args.png_row, source=f"flavor {args.flavor}")
    except PrometheusError as exc:
        print(f"servescope report: {exc}", file=sys.stderr)
        return 1
    except ValueError as exc:
        print(f"servescope report: {exc}", file=sys.stderr)
        return 2
    print(written)
    return 0


def _regex_error(pattern: str) -> str | None:
    """Why Prometheus would refuse ``pattern`` in a ``=~`` matcher, as far as Python's
    ``re`` can tell (RE2 takes less: lookarounds and backreferences are refused too)."""
    import re

    try:
        re.compile(pattern)
    except re.error as exc:
        return str(exc)
    if re.search(r"\(\?[=!<]|\\[1-9]", pattern):
        return "lookarounds and backreferences are not RE2 (Prometheus' regex syntax)"
    return None


def _boards(args: argparse.Namespace) -> list[Any]:
    from pathlib import Path

    from servescope.report import available_flavors, generated_dir, load_boards

    if args.dashboards:
        return load_boards(Path(args.dashboards))
    flavors = available_flavors()
    if args.flavor not in flavors:
        raise ValueError(f"--flavor: unknown flavor {args.flavor!r} (choose from "
                         f"{', '.join(flavors)})")
    return load_boards(generated_dir(args.flavor))
