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
    p.add_argument("--scrape-interval", default=None,
                   help="for $__rate_interval (default: read from Prometheus' config)")
    p.add_argument("-o", "--output", default="servescope-report.html")
    p.add_argument("--png", default=None,
                   help="also draw one dashboard row as a PNG here (see --png-row)")
    p.add_argument("--png-row", default=None,
                   help="DASHBOARD/ROW titles for --png (default: the overview's row that "
                        "puts latency beside its causes)")
    p.set_defaults(handler=_report)


def _report(args: argparse.Namespace) -> int:
    from servescope.report import PrometheusError, TimeRange, parse_duration

    try:
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


def write_report(client: Any, boards: list[Any], window: Any, variables: dict[str, str],
                 output: str, png: str | None = None, png_row: str | None = None,
                 source: str = "") -> str:
    """Build, write, optionally draw the PNG; return the line that says where it went."""
    from servescope.report.dashboard import build_report

    report = build_report(client, boards, window, variables, source=source)
    path = report.write(output)
    line = f"report: {path} ({report.summary()})"
    if png:
        draw_row_png(report, png, png_row)
        line += f"\nreport picture: {png}"
    return line


#: The row of the overview that puts latency beside queue, KV, finish reasons, backpressure.
DEFAULT_PNG_ROW = ("overview", "Why")


def draw_row_png(report: Any, path: str, row: str | None) -> None:
    from servescope.report.figures import stack_png

    board_key, row_key = row.split("/", 1) if row else DEFAULT_PNG_ROW
    for result in report.boards:
        board = result.board
        if board_key.lower() not in (board.uid.lower(), board.path.stem.lower(),
                                     board.title.lower()):
            continue
        panels = [p for p in result.panels if p.panel.row.lower().startswith(row_key.lower())]
        if panels:
            stack_png(panels, report.window, path, f"{board.title} › {panels[0].panel.row}")
            return
    raise ValueError(f"--png-row: no row {row_key!r} in a dashboard {board_key!r}")
