"""``servescope budget [--models N] [--adapters N] [--priorities N] [--slo FILE] [--created]``.

Prints the series one replica exports for a declared mix, per catalog family, from the catalog's
label sets and the SLO spec's bucket ladders (``instrumentation/budget.py``).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(sub: Any) -> None:
    budget = sub.add_parser("budget", help="print the series one replica exports for a mix")
    budget.add_argument("--models", type=int, default=3, help="models served (default 3)")
    budget.add_argument("--adapters", type=int, default=0,
                        help="LoRA adapters served as models (default 0)")
    budget.add_argument("--priorities", type=int, default=3,
                        help="priority classes (default 3)")
    budget.add_argument("--slo", default=None, help="SLO spec file (default: the shipped spec)")
    budget.add_argument("--created", action="store_true",
                        help="count the _created series too (SERVESCOPE_CREATED_SERIES=1)")
    budget.set_defaults(handler=_handler)


def _handler(args: argparse.Namespace) -> int:
    from servescope.instrumentation.budget import Mix, budget_markdown
    from servescope.instrumentation.slo import SLOError, SLOSpec, load_slo

    for field in ("models", "adapters", "priorities"):
        # (one model at least; and one priority class: a request that names none is
        # "default", always kept)
        least = 0 if field == "adapters" else 1
        if getattr(args, field) < least:
            print(f"servescope budget: --{field}: {getattr(args, field)} is out of range "
                  f"(at least {least})", file=sys.stderr)
            return 2
    try:
        slo = load_slo(args.slo) if args.slo else SLOSpec.default()
    except SLOError as exc:
        print(f"servescope budget: {exc}", file=sys.stderr)
        return 2
    mix = Mix(models=args.models, adapters=args.adapters, priorities=args.priorities,
              created=args.created)
    print("\n".join(budget_markdown(mix, slo)))
    return 0
