"""servescope.instrumentation: the hooks a server imports.

A process makes one :class:`Telemetry` (or calls :func:`setup_telemetry`), then one
:class:`RequestRecorder` per request via :meth:`Telemetry.request`, and reports each scheduler
iteration with :meth:`Telemetry.step`.

Names are imported when first used (PEP 562), so that the engine core, which imports the
recorder, the step report and the finish reasons from here, loads neither prometheus_client
nor OpenTelemetry: only :class:`Telemetry`, :func:`setup_telemetry` and the span exporters do.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .catalog import CATALOG, Buckets, Kind, MetricSpec
    from .labels import DeclaredLabels
    from .null import NullSpanExporter, NullTelemetry
    from .request_recorder import RequestRecorder, RequestSummary
    from .setup import TelemetrySetup, setup_telemetry
    from .slo import SLOError, SLOSpec, load_slo, parse_slo
    from .status import FinishReason, TokenStage
    from .step import RequestEvents, StepReport
    from .telemetry import Telemetry
    from .terminal import TerminalState

#: each public name -> the module that defines it
_HOME = {
    "CATALOG": "catalog", "Buckets": "catalog", "Kind": "catalog", "MetricSpec": "catalog",
    "DeclaredLabels": "labels",
    "NullSpanExporter": "null", "NullTelemetry": "null",
    "RequestRecorder": "request_recorder", "RequestSummary": "request_recorder",
    "SLOError": "slo", "SLOSpec": "slo", "load_slo": "slo", "parse_slo": "slo",
    "FinishReason": "status", "TokenStage": "status",
    "RequestEvents": "step", "StepReport": "step",
    "Telemetry": "telemetry",
    "TelemetrySetup": "setup", "setup_telemetry": "setup",
    "TerminalState": "terminal",
}

__all__ = [
    "CATALOG",
    "Buckets",
    "DeclaredLabels",
    "FinishReason",
    "Kind",
    "MetricSpec",
    "NullSpanExporter",
    "NullTelemetry",
    "RequestEvents",
    "RequestRecorder",
    "RequestSummary",
    "SLOError",
    "SLOSpec",
    "StepReport",
    "Telemetry",
    "TelemetrySetup",
    "TerminalState",
    "TokenStage",
    "load_slo",
    "parse_slo",
    "setup_telemetry",
]


def __getattr__(name: str) -> Any:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
