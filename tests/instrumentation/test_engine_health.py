"""Engine-process health metrics: restarts by reason, ages read at scrape time."""

from __future__ import annotations

from servescope.instrumentation import Telemetry
from servescope.instrumentation.engine_health import RESTART_REASONS, EngineHealth


def _value(telemetry: Telemetry, name: str, **labels: str) -> float | None:
    return telemetry.registry.get_sample_value(name, {"pool": "default", **labels})


def test_restarts_count_by_reason_and_every_reason_starts_at_zero() -> None:
    telemetry = Telemetry()
    health = EngineHealth(telemetry)
    assert all(_value(telemetry, "servescope_engine_restarts_total", reason=r) == 0
               for r in RESTART_REASONS)
    health.restarted("lease_expired")
    health.restarted("lease_expired")
    health.restarted("not-a-reason")  # a closed label set: folded into "exited"
    assert _value(telemetry, "servescope_engine_restarts_total", reason="lease_expired") == 2
    assert _value(telemetry, "servescope_engine_restarts_total", reason="exited") == 1


def test_ages_are_read_when_scraped() -> None:
    telemetry = Telemetry()
    ages = {"heartbeat": 0.25, "step": 4.0}
    EngineHealth(telemetry).watch(lambda: ages["heartbeat"], lambda: ages["step"])
    assert _value(telemetry, "servescope_engine_heartbeat_age_seconds") == 0.25
    ages["heartbeat"] = 12.5  # nothing updates the gauge: the next scrape reads the clock
    assert _value(telemetry, "servescope_engine_heartbeat_age_seconds") == 12.5
    assert _value(telemetry, "servescope_engine_last_step_age_seconds") == 4.0


def test_in_process_servers_expose_no_engine_series() -> None:
    telemetry = Telemetry()
    assert _value(telemetry, "servescope_engine_heartbeat_age_seconds") is None
    assert _value(telemetry, "servescope_engine_restarts_total", reason="exited") is None
