"""Margins for the few properties that are about time (a deadline kept, a hook that did not
wait), derived from how loaded this machine is when the test runs.

A margin guessed on a quiet machine turns red beside a CPU hog; one scaled by the runnable
tasks per core (the 1-minute load average) and by how late a short sleep wakes up right now
stays green there, and still fails a hook that really waited (those waits are seconds long).
"""

from __future__ import annotations

import os
import time


def slack_s(base_s: float) -> float:
    """``base_s`` (the margin on an idle machine), stretched by the current load."""
    per_core = os.getloadavg()[0] / (os.cpu_count() or 1)
    return base_s * max(1.0, per_core) + 10 * _wake_up_delay_s()


def _wake_up_delay_s(samples: int = 5) -> float:
    """The worst lateness of a 1 ms sleep: what the scheduler adds to any wait right now."""
    worst = 0.0
    for _ in range(samples):
        t0 = time.perf_counter()
        time.sleep(0.001)
        worst = max(worst, time.perf_counter() - t0 - 0.001)
    return worst
