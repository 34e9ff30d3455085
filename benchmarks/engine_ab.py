"""The engine's critical path and kill -9 recovery before and after a change, interleaved.

The package at each git revision (``--baseline``, repeatable, e.g. the commit a branch started
from) is unpacked into a temporary folder; each round runs one child process on each and one
on the working tree, one after the other (the order turns every round), so the load of other
jobs on a shared machine hits them alike. Each child measures, on its own tree's code:

  scheduler        the real in-process scheduler stepped by hand (no thread), ``--batch``
                   requests of ``--tokens`` tokens each, a reader popping and reporting every
                   token delivered after each step: the scheduler thread's CPU time per step
                   outside the model forward (``schedule`` + ``update``: admission, commits,
                   the request events and the step report), so the whole request's hooks are
                   in it, not only the step's
  step sink        the in-process scheduler's own step sink (whatever that tree gives it)
                   taking one step report of ``--batch`` requests, one token each, named as
                   that tree's scheduler names them (the recorders): thread CPU time per
                   step, the median of 7 runs of 2000 steps, and its ratio to
                   ``Telemetry.step`` alone, timed alternately in the same process
  hook time        ``engine_faults.hook_time()`` of that tree, wall time (in process,
                   Telemetry.step alone, own process, decode), per step at batch 32
  kill -9          ``engine_faults.kill_recovery(--kills, --streams)`` of that tree: time to
                   every in-flight request finalized, and to the replacement engine ready

Medians over the rounds; the load average is recorded before and after. ``--kills 0``: the
CPU figures alone (scheduler, step sink), a quicker run.

Run: python benchmarks/engine_ab.py [--baseline REV ...] [--rounds 3] [--kills 5]
Prints a table and one JSON line.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
#: The package's folders (pyproject's package-dir): linked under one ``servescope`` folder.
ROOMS = ("instrumentation", "redaction", "collector", "reference", "harness", "promql",
         "dashboards", "alerts", "report", "gateway")


def unpack(rev: str, into: Path) -> Path:
    """The tree at ``rev`` under ``into/src``, and an importable ``servescope`` beside it;
    returns the folder to put first on the children's path."""
    src = into / "src"
    src.mkdir()
    archive = subprocess.run(["git", "archive", rev], cwd=ROOT, check=True,
                             capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(src, filter="data")
    package = into / "pkg" / "servescope"
    package.mkdir(parents=True)
    for entry in (src / "servescope").iterdir():
        (package / entry.name).symlink_to(entry)
    for room in ROOMS:
        (package / room).symlink_to(src / room)
    return into / "pkg"


def run_child(tree: Path, path: Path | None, args: argparse.Namespace) -> dict[str, Any]:
    env = dict(os.environ, PYTHONSAFEPATH="1")
    env.pop("PYTHONPATH", None)
    if path is not None:
        env["PYTHONPATH"] = str(path)
    out = subprocess.run(
        [sys.executable, __file__, "--child", str(tree), "--batch", str(args.batch),
         "--tokens", str(args.tokens), "--kills", str(args.kills),
         "--streams", str(args.streams)],
        env=env, check=True, capture_output=True, text=True, timeout=900).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


# --- in a child: one tree's figures -------------------------------------------------------
def scheduler_step(batch: int, tokens: int) -> float:
    """Thread CPU seconds per step of ``schedule`` + ``update`` (the forward left out)."""
    import time

    from servescope.instrumentation import Telemetry
    from servescope.reference.client.engine import Engine
    from servescope.reference.config import EngineConfig, ModelConfig
    from servescope.reference.core.request import GenerationRequest

    tiny = ModelConfig(dim=32, n_layers=1, n_heads=4, n_kv_heads=2, hidden_dim=64,
                       max_context=tokens + 16)
    config = EngineConfig(model=tiny, block_size=16, max_batch=batch, max_waiting=batch,
                          num_blocks=batch * ((tokens + 16) // 16 + 1), device="cpu",
                          unbounded_streams=True, idle_report_s=100.0)
    engine = Engine(config, Telemetry())  # never started: this thread is the scheduler
    scheduler = engine._scheduler
    per_wave = []
    for wave in range(5):
        spent, steps = 0.0, 0
        handles = [engine.submit(GenerationRequest(f"w{wave}-{i}", [1 + i % 7, 2, 3, 4],
                                                   tokens, ignore_eos=True))
                   for i in range(batch)]
        while any(h.finish_reason is None for h in handles):
            t0 = time.thread_time()
            plan = scheduler.schedule()
            spent += time.thread_time() - t0
            if not plan.groups:
                scheduler._report([])
                continue
            outputs = scheduler.execute(plan)
            t0 = time.thread_time()
            scheduler.update(plan, outputs)
            spent += time.thread_time() - t0
            steps += 1
            for h in handles:
                chunk = h.get_chunk(0.0, max_tokens=tokens)
                if chunk:
                    h.delivered(len(chunk))
            for h in handles:  # the writer saw the end: the request may be recorded
                if h.stream.closed and h.get_chunk(0.0) is None:
                    h.writer_done()
        per_wave.append(spent / steps)
    return statistics.median(per_wave)


def step_sink(batch: int, steps: int = 2000, repeat: int = 7) -> tuple[float, float]:
    """Thread CPU seconds per step of the in-process scheduler's step sink, and the median
    ratio to ``Telemetry.step`` alone on the same requests, timed alternately in this
    process (the load of the moment hits both alike). The requests are submitted (live on
    the API side) and named in the report as that tree's scheduler names them."""
    import time

    from servescope.instrumentation import StepReport, Telemetry
    from servescope.reference.client.engine import Engine
    from servescope.reference.config import EngineConfig, ModelConfig
    from servescope.reference.core.request import GenerationRequest

    tiny = ModelConfig(dim=32, n_layers=1, n_heads=4, n_kv_heads=2, hidden_dim=64)
    telemetry = Telemetry()
    engine = Engine(EngineConfig(model=tiny, device="cpu", max_waiting=batch), telemetry)
    sink = engine._scheduler.telemetry  # never started: the submissions stay live
    handles: list[Any] = [engine.submit(GenerationRequest(f"s{i}", [1, 2, 3], 8))
                          for i in range(batch)]
    seqs = [getattr(h, "_seq", None) or h.engine.seq for h in handles]
    keys = [getattr(seq, "step_key", seq.recorder) for seq in seqs]
    recorders = [h.recorder for h in handles]

    def run(target: Any, names: list[Any]) -> float:
        t0 = time.thread_time()
        for k in range(steps):
            target.step(StepReport(advanced=[(r, 1, 0, float(k)) for r in names],
                                   now=float(k), kv_blocks_used=10, kv_blocks_total=100,
                                   running=batch, waiting=0, paused=0, buffered_tokens=batch))
        return (time.thread_time() - t0) / steps

    pairs = [(run(sink, keys), run(telemetry, recorders)) for _ in range(repeat)]
    return (statistics.median(p[0] for p in pairs),
            statistics.median(p[0] / p[1] for p in pairs))


def child(tree: Path, args: argparse.Namespace) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("engine_faults_under_test",
                                                  tree / "benchmarks" / "engine_faults.py")
    assert spec is not None and spec.loader is not None
    faults = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(faults)
    sink, ratio = step_sink(args.batch)
    out: dict[str, Any] = {"scheduler_us": scheduler_step(args.batch, args.tokens) * 1e6,
                           "step_sink_us": sink * 1e6, "sink_over_telemetry_step": ratio}
    if args.kills == 0:  # the CPU figures alone
        print(json.dumps(out))
        return
    hooks = faults.hook_time()
    if isinstance(hooks, tuple):  # an older hook_time: (in process, own process, decode)
        hooks = {"in_process": hooks[0], "telemetry_step": hooks[0],
                 "own_process": hooks[1], "decode": hooks[2]}
    out.update({f"hook_{k}_us": v * 1e6 for k, v in hooks.items()})
    samples = faults.kill_recovery(args.kills, args.streams)
    out["finalized_ms"] = statistics.median(s[0] for s in samples) * 1e3
    out["ready_s"] = statistics.median(s[1] for s in samples)
    print(json.dumps(out))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--baseline", action="append",
                    help="a revision to compare (repeatable; default: main)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--tokens", type=int, default=64)
    ap.add_argument("--kills", type=int, default=5)
    ap.add_argument("--streams", type=int, default=32)
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        child(args.child, args)
        return
    baselines = args.baseline or ["main"]
    load_before = os.getloadavg()
    names = [*baselines, "after"]
    runs: dict[str, list[dict[str, Any]]] = {n: [] for n in names}
    with tempfile.TemporaryDirectory() as tmp:
        trees: dict[str, tuple[Path, Path | None]] = {"after": (ROOT, None)}
        for i, rev in enumerate(baselines):
            into = Path(tmp) / str(i)
            into.mkdir()
            trees[rev] = (into / "src", unpack(rev, into))
        for r in range(args.rounds):  # each round in another order: none always first
            turn = r % len(names)
            for name in names[turn:] + names[:turn]:
                runs[name].append(run_child(*trees[name], args))
    load_after = os.getloadavg()
    keys = list(runs["after"][0])
    medians = {name: {k: statistics.median(run[k] for run in rs) for k in keys
                      if all(k in run for run in rs)} for name, rs in runs.items()}
    print(f"engine at {', '.join(baselines)} and after (the working tree), {args.rounds} "
          f"interleaved rounds; load average {load_before[0]:.2f} before, "
          f"{load_after[0]:.2f} after")
    print(f"{'figure (median)':<26}" + "".join(f"{n[:12]:>14}" for n in names)
          + f"{'after/' + baselines[0][:8]:>16}")
    for k in keys:
        if not all(k in medians[n] for n in names):
            continue
        values = [medians[n][k] for n in names]
        first, last = values[0], values[-1]
        ratio = last / first if first else float("nan")
        print(f"{k:<26}" + "".join(f"{v:>14.2f}" for v in values) + f"{ratio:>16.3f}")
    print(json.dumps({"benchmark": "engine_ab", "baselines": baselines,
                      "rounds": args.rounds, "load": [round(load_before[0], 2),
                                                      round(load_after[0], 2)],
                      "median": {n: {k: round(v, 3) for k, v in m.items()}
                                 for n, m in medians.items()},
                      "runs": runs}))


if __name__ == "__main__":
    main()
