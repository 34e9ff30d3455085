"""servescope.redaction: PII and secret detection, the redaction policy, and the span and log
stages that apply it before anything leaves the process.

Stands alone: it imports nothing else of servescope. ``setup_telemetry(redaction=
RedactionStage(policy))`` puts the span stage inside the batch processor, off the request
thread, and wires its counts to ``servescope_redactions_total{kind}``.
"""

from . import native  # first: it decides whether the compiled detectors or their sources run
from .detectors import (
    CHECKSUMMED_KINDS,
    DEFAULT_KINDS,
    DETECTORS,
    KINDS,
    OPT_IN_KINDS,
    Detector,
    Finding,
    scan,
)
from .logs import RedactingFilter, RedactingLogExporter, install_log_redaction
from .policy import (
    CONTENT_CAPTURE_ENV,
    Action,
    ContentCapture,
    Policy,
    PolicyError,
    load_policy,
    parse_policy,
)
from .redactor import BLOCKED_KEY, CONTENT, Place, Redactor
from .spans import OnRedacted, RedactingSpanExporter, RedactionStage

is_native = native.is_native

__all__ = [
    "BLOCKED_KEY",
    "CHECKSUMMED_KINDS",
    "CONTENT",
    "CONTENT_CAPTURE_ENV",
    "DEFAULT_KINDS",
    "DETECTORS",
    "KINDS",
    "OPT_IN_KINDS",
    "Action",
    "ContentCapture",
    "Detector",
    "Finding",
    "OnRedacted",
    "Place",
    "Policy",
    "PolicyError",
    "RedactingFilter",
    "RedactingLogExporter",
    "RedactingSpanExporter",
    "RedactionStage",
    "Redactor",
    "install_log_redaction",
    "is_native",
    "load_policy",
    "parse_policy",
    "scan",
]
