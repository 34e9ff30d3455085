"""The hooks' old address: ``servescope.instrumentation.recorder`` names the per-request
recorder (``request_recorder.py``), the step report (``step.py``) and the process-wide
:class:`Telemetry` (``telemetry.py``) as it always did. New code imports them from
``servescope.instrumentation``; importing this module loads the exporters (through Telemetry).
"""

from __future__ import annotations

from .request_recorder import RequestRecorder, RequestSummary
from .step import StepReport
from .telemetry import Telemetry

__all__ = ["RequestRecorder", "RequestSummary", "StepReport", "Telemetry"]
