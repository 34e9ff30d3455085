"""``servescope load``: mixed streaming clients against a server on this machine."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from typing import Any

from servescope.commands import port_number


def register(sub: Any) -> None:
    p = sub.add_parser("load", help="drive a running server (127.0.0.1 only) with fast, slow, "
                                    "cancelling and deadline streaming clients")
    p.add_argument("--url", default="http://127.0.0.1:8000")
    p.add_argument("--duration", type=float, default=30.0, help="seconds of load")
    p.add_argument("--concurrency", type=int, default=16)
    p.add_argument("--mix", default="fast=0.6,slow=0.2,cancel=0.1,deadline=0.1",
                   help="client kinds and weights, e.g. fast=1,slow=1")
    p.add_argument("--max-tokens", type=int, default=128)
    p.add_argument("--max-requests", type=int, default=None, help="stop after this many")
    p.add_argument("--deadline", type=float, default=0.2,
                   help="seconds given to deadline clients (x-servescope-deadline-s)")
    p.add_argument("--slow-read-bytes", type=int, default=128,
                   help="bytes a slow client reads per interval")
    p.add_argument("--slow-interval", type=float, default=0.05)
    p.add_argument("--slo", default=None, help="SLO spec for client-side goodput")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--wait", type=float, default=30.0,
                   help="seconds to wait for the server to come up")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON line")
    p.add_argument("--metrics-port", type=port_number, default=None,
                   help="serve the clients' own series (servescope_client_*: TTFT, TPOT, "
                        "end-to-end as the clients saw them) on /metrics at this port while "
                        "the load runs")
    p.add_argument("--metrics-host", default="127.0.0.1",
                   help="address for --metrics-port (0.0.0.0 in a container)")
    p.set_defaults(handler=_load)


def _load(args: argparse.Namespace) -> int:
    from prometheus_client import CollectorRegistry

    from servescope.harness.demo import progress_printer
    from servescope.harness.load_summary import format_summary, scrape, summarize
    from servescope.harness.loadgen import LoadConfig, Mix, run_load
    from servescope.instrumentation.scrape import CachedExposition, MetricsServer
    from servescope.instrumentation.slo import SLOError, SLOSpec, load_slo

    try:
        slo = load_slo(args.slo) if args.slo else SLOSpec.default()
        config = LoadConfig(args.url, duration_s=args.duration, concurrency=args.concurrency,
                            mix=Mix.parse(args.mix), max_tokens=args.max_tokens,
                            max_requests=args.max_requests, deadline_s=args.deadline,
                            slow_read_bytes=args.slow_read_bytes,
                            slow_interval_s=args.slow_interval, seed=args.seed)
    except (ValueError, SLOError) as exc:
        print(f"servescope load: {exc}", file=sys.stderr)
        return 2
    deadline = time.monotonic() + max(0.0, args.wait)
    while True:  # the server may still be starting (compose, scripts)
        try:
            before = scrape(config.url)
            break
        except (OSError, RuntimeError) as exc:
            if time.monotonic() >= deadline:
                print(f"servescope load: cannot scrape {config.url}/metrics: {exc}",
                      file=sys.stderr)
                return 1
            time.sleep(0.5)
    printer = None if args.json else progress_printer(config.duration_s)
    registry = CollectorRegistry()
    exporter = None
    if args.metrics_port is not None:
        try:
            exporter = MetricsServer(CachedExposition(registry), args.metrics_host,
                                     args.metrics_port).start()
        except OSError as exc:  # (the port taken: say which argument)
            print(f"servescope load: --metrics-port: cannot listen on {args.metrics_host}:"
                  f"{args.metrics_port}: {exc.strerror or exc}", file=sys.stderr)
            return 1
        print(f"servescope load: client metrics at {exporter.url}/metrics", file=sys.stderr)
    try:
        load = asyncio.run(run_load(config, slo=slo, progress=printer, registry=registry))
    finally:
        if exporter is not None:
            exporter.stop()
    if printer is not None and sys.stderr.isatty():
        print(file=sys.stderr)
    summary = summarize(load, scrape(config.url).minus(before), slo)
    print(json.dumps(summary.to_dict()) if args.json else format_summary(summary))
    return 0
