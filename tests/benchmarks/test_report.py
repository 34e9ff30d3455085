"""benchmarks/report.py draws the benchmarks' JSON lines (real ones: a fresh hooks run, and
the committed results of ``make bench``)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "report.py"
RESULTS = ROOT / "benchmarks" / "results.jsonl"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-P", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=300, check=False)


def _figures(text: str) -> list[str]:
    return re.findall(r"<figcaption>(.*?)</figcaption>", text)


def test_hook_costs_are_drawn_in_observe_equivalents_of_the_same_run(tmp_path: Path) -> None:
    run = _run("benchmarks/hooks.py", "--requests", "100", "--repeat", "1")
    assert run.returncode == 0, run.stderr
    line = next(x for x in run.stdout.splitlines() if x.startswith("{"))
    result = json.loads(line)
    lines = tmp_path / "results.jsonl"
    lines.write_text(line + "\n" + json.dumps({"benchmark": "future", "rows": [
        {"layer": "h2", "tokens": 3}, {"layer": "nginx", "tokens": 5}]}) + "\n")
    out = tmp_path / "report.html"
    made = _run(str(SCRIPT), str(lines), "-o", str(out))
    assert made.returncode == 0, made.stderr
    text = out.read_text()
    assert _figures(text) == ["Cost of the hooks in Histogram.observe-equivalents"]
    # each bar is labelled with its cost in observes, as measured paired in that run
    assert result["observes"] and result["observe_us"] > 0
    for name, ratio in result["observes"].items():
        assert f">{ratio:,.0f}<" in text if ratio >= 100 else f">{ratio:.3g}<" in text, name
    # an unknown benchmark still shows its records as a table
    assert "<caption>rows</caption>" in text and ">nginx<" in text
    assert "<script" not in text


@pytest.mark.skipif(not RESULTS.is_file(), reason="no committed make bench results")
def test_committed_bench_results_give_every_figure_the_issue_names(tmp_path: Path) -> None:
    out, png = tmp_path / "report.html", tmp_path / "bench.png"
    made = _run(str(SCRIPT), str(RESULTS), "-o", str(out), "--png", str(png))
    assert made.returncode == 0, made.stderr
    text = out.read_text()
    names = {json.loads(x)["benchmark"] for x in RESULTS.read_text().splitlines() if x}
    assert {"backpressure", "hooks", "overhead", "redaction"} <= names
    figures = _figures(text)
    for title in ("Fast clients&#x27; TPOT, with and without slow clients",
                  "Unsent and discarded tokens over time (slow clients present)",
                  "Cost of the hooks in Histogram.observe-equivalents",
                  "Redaction throughput", "Recall per kind against the anchors"):
        assert title in figures
    assert text.count("<svg") == len(figures)
    assert "<caption>configs</caption>" in text  # backpressure's configurations
    if "transport" in names:  # the transport layer table, one row per transport
        assert "<caption>rows</caption>" in text and ">HTTP/2 (hypercorn)<" in text
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_refuses_a_file_without_json_lines(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("just a table\n")
    made = _run(str(SCRIPT), str(empty), "-o", str(tmp_path / "r.html"))
    assert made.returncode == 2 and "no JSON lines" in made.stderr
