"""``servescope slo validate|buckets FILE``."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from servescope.instrumentation import catalog
from servescope.instrumentation.buckets import ladders
from servescope.instrumentation.slo import SLOError, SLOSpec, load_slo


def register(sub: Any) -> None:
    slo = sub.add_parser("slo", help="validate an SLO spec or show its bucket ladders")
    actions = slo.add_subparsers(dest="slo_action", metavar="ACTION", required=True)
    validate = actions.add_parser("validate", help="exit 0 if FILE is a valid SLO spec, else 2")
    validate.add_argument("file")
    validate.set_defaults(handler=_validate)
    buckets = actions.add_parser("buckets", help="print each histogram's derived bucket ladder")
    buckets.add_argument("file", nargs="?", help="SLO spec (default: the shipped spec)")
    buckets.set_defaults(handler=_buckets)


def _load(path: str | None) -> SLOSpec | None:
    try:
        return load_slo(path) if path else SLOSpec.default()
    except SLOError as exc:
        print(f"servescope: invalid SLO spec: {exc}", file=sys.stderr)
        return None


def _validate(args: argparse.Namespace) -> int:
    spec = _load(args.file)
    if spec is None:
        return 2
    print(f"{args.file}: ok (ttft <= {spec.ttft.threshold_seconds}s @ {spec.ttft.target}, "
          f"tpot <= {spec.tpot.threshold_seconds}s @ {spec.tpot.target})")
    return 0


def _buckets(args: argparse.Namespace) -> int:
    spec = _load(args.file)
    if spec is None:
        return 2
    ladder = ladders(spec)
    for metric in catalog.CATALOG:
        if metric.buckets is not None:
            bounds = ", ".join(repr(float(b)) for b in ladder[metric.buckets])
            print(f"{metric.name} [{metric.buckets}]: {bounds}")
    return 0
