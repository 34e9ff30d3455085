"""The suite cannot flake: run ``make test`` several times in a row beside a CPU hog.

The hog is ``--hogs`` busy-loop processes (one per core by default would halve the suite's CPU
on a small machine; the default is one), each spinning ``while True: pass`` at the same
priority as the suite, started before the first run and killed after the last. Each run's exit
status, pytest's summary line and wall time go to stdout and to ``--log``; the exit status is
non-zero if any run failed.

    make soak                      # three runs beside one hog
    make soak SOAK_RUNS=5 SOAK_HOGS=2
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import subprocess
import sys
import time
from pathlib import Path

SUMMARY = re.compile(r"^=*\s*(\d+ (?:passed|failed|error).*?) in [\d.]+s", re.MULTILINE)


def _spin() -> None:
    while True:
        pass


def _run_suite(index: int) -> dict[str, object]:
    started = time.monotonic()
    proc = subprocess.run(["make", "--no-print-directory", "test"], capture_output=True,
                          text=True, check=False)
    took = time.monotonic() - started
    found = SUMMARY.findall(proc.stdout + proc.stderr)
    summary = found[-1] if found else (proc.stdout + proc.stderr).strip()[-400:]
    if proc.returncode:
        sys.stdout.write(proc.stdout[-20000:] + proc.stderr[-5000:])
    return {"run": index, "rc": proc.returncode, "seconds": round(took, 1),
            "summary": summary, "load_1m": round(os.getloadavg()[0], 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--hogs", type=int, default=1)
    parser.add_argument("--log", type=Path, default=Path("build/soak.log"))
    args = parser.parse_args(argv)
    if args.runs < 1 or args.hogs < 0:
        parser.error("--runs must be >= 1 and --hogs >= 0")
    hogs = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(args.hogs)]
    for hog in hogs:
        hog.start()
    args.log.parent.mkdir(parents=True, exist_ok=True)
    results = []
    try:
        for i in range(1, args.runs + 1):
            result = _run_suite(i) | {"hogs": args.hogs, "cores": os.cpu_count()}
            results.append(result)
            line = json.dumps(result)
            print(line, flush=True)
            with args.log.open("a") as log:
                log.write(line + "\n")
    finally:
        for hog in hogs:
            hog.kill()
    failed = [r for r in results if r["rc"]]
    print(f"soak: {len(results) - len(failed)} of {len(results)} runs green beside "
          f"{args.hogs} busy-loop process(es)", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
