"""The redaction engine before and after a change, side by side in one run.

The redaction package at a git revision (``--baseline``, e.g. the commit a branch started from)
is unpacked into a temporary folder and imported beside the working tree's; both redact the
same unique realistic lines (benchmarks/redaction_styles.py, three styles), cache off and on,
beside Presidio's pattern recognizers on the same lines; and both span stages run beside a
pass-through copy of the same spans. Every run takes each small chunk in turn and is timed in
this process's CPU seconds, so the load of other jobs on a shared machine hits them alike;
ratios from one run are what such a machine can compare.

Run: python benchmarks/redaction_ab.py [--baseline REV] [--style-lines 1500] [--repeat 3]
                                       [--spans 2000]
Prints tables and one JSON line.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import importlib
import importlib.util
import io
import json
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from servescope import redaction as current
from servescope.instrumentation import NullSpanExporter

ROOT = Path(__file__).resolve().parents[1]


def _load_bench() -> Any:
    """benchmarks/redaction.py (corpora, Presidio, span helpers), by path: a plain import
    of "redaction" could find the repository's own redaction/ folder."""
    spec = importlib.util.spec_from_file_location("redaction_bench",
                                                  ROOT / "benchmarks" / "redaction.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["redaction_bench"] = module
    spec.loader.exec_module(module)
    return module


bench = _load_bench()

BASELINE_PACKAGE = "servescope_redaction_baseline"
MODEL = "llama-3.1-8b-instruct"  # the model benchmarks/redaction.py's recorder spans name


def load_baseline(rev: str, into: Path) -> ModuleType:
    """The redaction package as it was at ``rev`` (its modules import each other relatively)."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", rev,
                              "redaction"], check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    (into / "redaction").rename(into / BASELINE_PACKAGE)
    sys.path.insert(0, str(into))
    return importlib.import_module(BASELINE_PACKAGE)


class _NoCache(dict[str, None]):
    def __setitem__(self, key: str, value: None) -> None:
        pass


def _redactor(package: ModuleType, cache: bool) -> Callable[[str], object]:
    redactor = package.Redactor(hash_key=b"bench")
    if not cache:
        redactor._clean = _NoCache()
    run = redactor.redact_text
    return lambda text: run(text, {})


def interleaved(runs: dict[str, Callable[[Any], object]], items: list[Any], repeat: int,
                once: frozenset[str] = frozenset(), chunk: int = 25) -> dict[str, float]:
    """Items per CPU-second of each run. The items go in chunks, every run taking each chunk
    in turn, so load that comes and goes hits them alike; a chunk's time is the least of
    ``repeat`` tries (``once``: one try, for the slow reference) and counts this process's CPU
    only (time.process_time), not the time other jobs on the machine held the cores."""
    spent = dict.fromkeys(runs, 0.0)
    gc.collect()
    gc.disable()  # as timeit does: a collection lands on whichever run is timed then
    try:
        _chunks(runs, items, repeat, once, chunk, spent)
    finally:
        gc.enable()
    return {name: len(items) / max(t, 1e-9) for name, t in spent.items()}


def _chunks(runs: dict[str, Callable[[Any], object]], items: list[Any], repeat: int,
            once: frozenset[str], chunk: int, spent: dict[str, float]) -> None:
    for i in range(0, len(items), chunk):
        part = items[i:i + chunk]
        best = dict.fromkeys(runs, float("inf"))
        order = list(runs.items())
        for round_ in range(repeat):
            # the order turns every round and chunk: no run always follows another
            turn = (i // chunk + round_) % len(order)
            for name, run in order[turn:] + order[:turn]:
                if round_ and name in once:
                    continue
                t0 = time.process_time()
                for item in part:
                    run(item)
                best[name] = min(best[name], time.process_time() - t0)
        for name in runs:
            spent[name] += best[name]


def styles(packages: dict[str, ModuleType], n: int, repeat: int) -> dict[str, Any]:
    corpora = bench.styles.build(bench.ops_corpus, bench.corpus, n)
    engine, presidio_info = bench.presidio_analyzer()
    presidio = bench._presidio(engine) if engine is not None else None
    if presidio is not None:
        presidio("warm up the recognizers")
    rows: dict[str, Any] = {}
    for style, lines in corpora.items():
        runs = {f"{name}, cache {'on' if cache else 'off'}": _redactor(pkg, cache)
                for name, pkg in packages.items() for cache in (False, True)}
        for key, run in runs.items():
            if key.endswith("on"):  # every line seen once, as a repeated line would have been
                for line in lines:
                    run(line)
        if presidio is not None:
            runs["presidio"] = presidio
        row: dict[str, Any] = {"lines": len(lines),
                               **interleaved(runs, lines, repeat, frozenset({"presidio"}))}
        if presidio is not None:
            for key in list(row):
                if ", cache " in key:
                    row[f"{key} x presidio"] = row[key] / row["presidio"]
        rows[style] = row
    return {"styles": rows, "presidio": presidio_info}


def span_stage(packages: dict[str, ModuleType], n: int, repeat: int) -> dict[str, Any]:
    import random

    ours = bench.recorder_spans(max(1, n // 5))
    mixed = bench.make_spans(n, capture=False, rng=random.Random(7))
    rows: dict[str, Any] = {}
    # setup_telemetry tells the redactor the model it serves; an adapter name outside the
    # configured ones is hashed (and counted, so the span carries a summary).
    for label, spans, known in (("servescope spans, model served", ours, (MODEL,)),
                                ("servescope spans, model unknown", ours, ()),
                                ("mixed spans", mixed, ())):
        exporters: dict[str, Any] = {"copy": bench.CopyExporter()}
        for name, pkg in packages.items():
            policy = dataclasses.replace(pkg.Policy.default(),
                                         content_capture=pkg.ContentCapture.NO_CONTENT)
            exporters[name] = pkg.RedactingSpanExporter(
                NullSpanExporter(), pkg.Redactor(policy, hash_key=b"bench", known_models=known))
        batches = [spans[i:i + 64] for i in range(0, len(spans), 64)]
        rates = interleaved({name: e.export for name, e in exporters.items()}, batches, repeat,
                            chunk=4)
        rows[label] = {name: {"spans_per_s": rate * len(spans) / len(batches),
                              "x_copy": rates["copy"] / rate}
                       for name, rate in rates.items()}
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", default="HEAD",
                    help="git revision to compare against (default HEAD: the uncommitted change;"
                         " with nothing uncommitted, an A/A control)")
    ap.add_argument("--style-lines", type=int, default=1500)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--spans", type=int, default=2000)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        baseline = load_baseline(args.baseline, Path(tmp))
        packages = {"before": baseline, "after": current}
        current.detectors.prefilter_for(current.DETECTORS)  # compile both engines' databases
        baseline.detectors.prefilter_for(baseline.DETECTORS)
        t0 = time.perf_counter()
        by_style = styles(packages, args.style_lines, args.repeat)
        spans = span_stage(packages, args.spans, args.repeat)
    print(f"redaction before ({args.baseline}) and after, one run, "
          f"{time.perf_counter() - t0:.0f} s; {by_style['presidio']}")
    print(f"\n{'style':<13}{'cache':>6}{'before/s':>10}{'after/s':>10}{'after x before':>16}"
          f"{'presidio/s':>12}{'before x P':>12}{'after x P':>11}")
    for style, r in by_style["styles"].items():
        for cache in ("off", "on"):
            b, a = r[f"before, cache {cache}"], r[f"after, cache {cache}"]
            p = r.get("presidio", float("nan"))
            print(f"{style:<13}{cache:>6}{b:>10,.0f}{a:>10,.0f}{a / b:>15.2f}x{p:>12,.0f}"
                  f"{b / p:>11.0f}x{a / p:>10.0f}x")
    print(f"\n{'span stage (capture off)':<34}{'copy/s':>10}{'before x copy':>15}"
          f"{'after x copy':>14}")
    for label, r in spans.items():
        print(f"{label:<34}{r['copy']['spans_per_s']:>10,.0f}{r['before']['x_copy']:>15.2f}"
              f"{r['after']['x_copy']:>14.2f}")
    print(json.dumps({"benchmark": "redaction_ab", "baseline": args.baseline,
                      "styles": by_style, "span_stage": spans}, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
