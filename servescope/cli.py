"""The ``servescope`` command line.

Each subcommand lives in ``servescope/commands/<name>.py`` and exposes
``register(subparsers) -> None``; this module discovers them, so adding a command touches no
other file. Command modules import heavy dependencies (torch, the HTTP stack) inside their
handlers so that ``--help`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from servescope import __version__, commands


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="servescope", description="Observability for LLM inference servers.")
    parser.add_argument("--version", action="version", version=f"servescope {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda i: i.name):
        if not info.name.startswith("_"):
            module = importlib.import_module(f"{commands.__name__}.{info.name}")
            module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "handler", None) is None:
        parser.print_help()
        return 2
    try:
        code: int = args.handler(args)
    except KeyboardInterrupt:
        return 130
    except OSError as exc:  # a port in use, a path that is a file: said, not a traceback
        print(f"servescope {args.command}: {exc}", file=sys.stderr)
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
