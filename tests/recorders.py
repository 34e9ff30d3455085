"""Keep every recorder a server's telemetry makes, so a test can read each request's summary."""

from __future__ import annotations

from typing import Any

from servescope.instrumentation import RequestRecorder, Telemetry


def capture_recorders(telemetry: Telemetry) -> list[RequestRecorder]:
    """Wrap ``telemetry.request``: every recorder it makes from now on is appended to the
    returned list (in arrival order)."""
    recorders: list[RequestRecorder] = []
    make = telemetry.request

    def capture(*args: Any, **kwargs: Any) -> RequestRecorder:
        recorder = make(*args, **kwargs)
        recorders.append(recorder)
        return recorder

    telemetry.request = capture  # type: ignore[method-assign]
    return recorders
