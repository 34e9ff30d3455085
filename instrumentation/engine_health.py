"""Health of an engine that runs in its own process, as seen from the API process.

The API process's monitor (``reference/client/engine_client.py``) counts restarts here and lends two
clocks that are read at scrape time (``Gauge.set_function``): nothing updates them per step,
and a hung monitor still exposes a growing heartbeat age.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import catalog as cat

if TYPE_CHECKING:
    from .telemetry import Telemetry

__all__ = ["RESTART_REASONS", "EngineHealth"]

#: Why an engine was restarted (the ``reason`` label of the restart counter; closed).
RESTART_REASONS = ("exited", "lease_expired", "fatal", "startup_timeout")


class EngineHealth:
    """Restart counter and heartbeat/step ages of one engine pool."""

    def __init__(self, telemetry: Telemetry) -> None:
        self._telemetry = telemetry
        metrics, pool = telemetry.metrics, telemetry.pool
        # every reason exists at 0 from the start, so increase() sees the first restart
        self._restarts: dict[str, Any] = {
            reason: metrics.child(cat.ENGINE_RESTARTS, pool=pool, reason=reason)
            for reason in RESTART_REASONS}
        self._heartbeat = metrics.child(cat.ENGINE_HEARTBEAT_AGE, pool=pool)
        self._last_step = metrics.child(cat.ENGINE_LAST_STEP_AGE, pool=pool)

    def restarted(self, reason: str) -> None:
        try:
            self._restarts[reason if reason in self._restarts else "exited"].inc()
        except Exception:
            self._telemetry.hook_failed("engine_restarted")

    def watch(self, heartbeat_age: Callable[[], float],
              last_step_age: Callable[[], float]) -> None:
        """Expose the two ages, computed when scraped."""
        try:
            self._heartbeat.set_function(heartbeat_age)
            self._last_step.set_function(last_step_age)
        except Exception:
            self._telemetry.hook_failed("engine_watch")
