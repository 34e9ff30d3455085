"""The seed's slow-consumer trace, reproduced by the real stream buffer and lifecycle."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from servescope.cli import main
from servescope.harness.experiment import simulate_stream

ROOT = Path(__file__).resolve().parents[2]


def test_json_reports_the_seed_results(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["experiment", "slow-consumer", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    unbounded, bounded = result["unbounded"], result["bounded_capacity_3"]
    assert (unbounded["sent"], unbounded["generated"], unbounded["dropped"]) == (
        "AB", "ABCDEFG", "CDEFG")
    assert unbounded["paused_ticks"] == []
    assert (bounded["sent"], bounded["generated"], bounded["dropped"]) == ("AB", "ABCDE", "CDE")
    assert bounded["paused_ticks"] == [3, 5, 7]
    assert result["terminal"] == {
        "reason": "deadline", "seed_reason": "overall_deadline",
        "finalize_attempts": ["deadline", "client_cancel"], "cancel_noop": True,
        "cleanup_count": 1, "kv_blocks": 0, "slots": 0}
    # the recorder saw the same story: the cancel is an ignored signal, CDE were discarded
    assert bounded["ignored_signals"] == ["client_cancel"]
    assert (bounded["committed_tokens"], bounded["delivered_tokens"],
            bounded["discarded_tokens"]) == (5, 2, 3)
    assert bounded["pool_free_blocks"] == bounded["pool_total_blocks"] == 4
    assert result["telemetry"]["goodput_rps"] == 0.1
    assert result["telemetry"]["finish_total"] == {"stop": 2, "client_cancel": 1}


def test_text_report_matches_the_seed_lines(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["experiment", "slow-consumer"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "stream_tokens=ABCDEFG drain_per_tick=[1,0,0,0,1,0,1,0,0] deadline_tick=8"
    assert out[1].startswith("unbounded: sent=AB generated=ABCDEFG dropped=CDEFG paused_ticks=[]")
    assert out[2].startswith(
        "bounded_capacity_3: sent=AB generated=ABCDE dropped=CDE paused_ticks=[3, 5, 7]")
    assert "terminal_reason=deadline" in out[3] and "cleanup_count=1 kv_blocks=0 slots=0" in out[3]
    assert out[4] == ("bounded_trace=[(0, '', 'A'), (1, '', 'AB'), (2, '', 'ABC'), "
                      "(3, '', 'ABC'), (4, 'A', 'BCD'), (5, 'A', 'BCD'), (6, 'AB', 'CDE'), "
                      "(7, 'AB', 'CDE'), (8, 'terminal', 'CDE')]")
    assert out[5].endswith("goodput_rps=0.100")


def test_buffer_never_exceeds_capacity_for_any_capacity() -> None:
    for capacity in range(1, 8):
        run = simulate_stream(capacity)
        assert max(len(state[2]) for state in run.trace) <= capacity
        assert run.cleanup_count == 1 and run.kv_blocks == run.slots == 0


def test_example_script_runs() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "examples/reliability_observability.py")],
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "bounded_capacity_3: sent=AB generated=ABCDE dropped=CDE" in proc.stdout
