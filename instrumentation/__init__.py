"""servescope.instrumentation: the hooks a server imports.

A process makes one :class:`Telemetry` (or calls :func:`setup_telemetry`), then one
:class:`RequestRecorder` per request via :meth:`Telemetry.request`, and reports each scheduler
iteration with :meth:`Telemetry.step`.
"""

from .catalog import CATALOG, Buckets, Kind, MetricSpec
from .labels import DeclaredLabels
from .null import NullSpanExporter, NullTelemetry
from .recorder import RequestRecorder, RequestSummary, StepReport, Telemetry
from .setup import TelemetrySetup, setup_telemetry
from .slo import SLOError, SLOSpec, load_slo, parse_slo
from .status import FinishReason, TokenStage
from .terminal import TerminalState

__all__ = [
    "CATALOG",
    "Buckets",
    "DeclaredLabels",
    "FinishReason",
    "Kind",
    "MetricSpec",
    "NullSpanExporter",
    "NullTelemetry",
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
