"""``servescope experiment slow-consumer [--json]``: the seed's trace on the real classes."""

from __future__ import annotations

import argparse
import json
from typing import Any


def register(sub: Any) -> None:
    exp = sub.add_parser("experiment", help="run a reproducible experiment from the seed")
    which = exp.add_subparsers(dest="experiment", metavar="EXPERIMENT", required=True)
    slow = which.add_parser(
        "slow-consumer",
        help="tokens A..G through the worker's bounded stream buffer and request lifecycle")
    slow.add_argument("--json", action="store_true", help="print one JSON object")
    slow.set_defaults(handler=_slow_consumer)


def _slow_consumer(args: argparse.Namespace) -> int:
    from servescope.harness.experiment import format_report, run_experiment

    result = run_experiment()
    print(json.dumps(result, sort_keys=True) if args.json else format_report(result))
    return 0
