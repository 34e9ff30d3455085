"""servescope: observability for LLM inference servers.

The front door re-exports the hooks a server needs; each room is importable on its own
(``servescope.instrumentation``, ``servescope.redaction``, ``servescope.reference``, ...).
"""

from importlib.metadata import PackageNotFoundError, version

from servescope.instrumentation import (
    FinishReason,
    RequestRecorder,
    RequestSummary,
    SLOError,
    SLOSpec,
    StepReport,
    Telemetry,
    TelemetrySetup,
    TokenStage,
    load_slo,
    setup_telemetry,
)

try:
    __version__ = version("servescope")
except PackageNotFoundError:  # running from a source tree without an install
    __version__ = "0.0.0"

__all__ = [
    "FinishReason",
    "RequestRecorder",
    "RequestSummary",
    "SLOError",
    "SLOSpec",
    "StepReport",
    "Telemetry",
    "TelemetrySetup",
    "TokenStage",
    "__version__",
    "load_slo",
    "setup_telemetry",
]
