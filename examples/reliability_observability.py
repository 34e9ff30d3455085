"""The seed's reliability experiment, run with servescope's real classes.

Tokens A..G pass through the reference worker's bounded stream buffer (capacity 3) and an
unbounded one while a slow consumer drains [1,0,0,0,1,0,1,0,0] per tick; an overall deadline
and a client cancel race at tick 8. The deadline wins, the cancel is a counted no-op, and the
request's KV blocks and batch slot are released exactly once. Run:

    python examples/reliability_observability.py
"""

from __future__ import annotations

import platform

from servescope.harness.experiment import format_report, run_experiment


def main() -> None:
    result = run_experiment()
    unbounded, bounded = result["unbounded"], result["bounded_capacity_3"]
    # the seed's assertions, checked against the real classes' results
    assert bounded["sent"] == unbounded["sent"] == "AB"
    assert len(bounded["generated"]) < len(unbounded["generated"])
    assert len(bounded["dropped"]) <= 3 < len(unbounded["dropped"])
    assert bounded["paused_ticks"] == [3, 5, 7]
    terminal = result["terminal"]
    assert terminal["reason"] == "deadline" and terminal["cancel_noop"]
    assert terminal["cleanup_count"] == 1 and terminal["kv_blocks"] == terminal["slots"] == 0
    assert result["telemetry"]["goodput_rps"] == 0.1
    print(f"python={platform.python_version()} "
          f"implementation={platform.python_implementation()}")
    print(format_report(result))


if __name__ == "__main__":
    main()
