"""The SLO spec: thresholds, targets, the goodput definition and alert windows.

Loaded from YAML and validated with the JSON schema that ships beside this module. Every way a
spec can be wrong ends in :class:`SLOError`, whose message names the field and the value.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema

from .config_text import ConfigTextError, load_config_text
from .status import FinishReason

__all__ = ["AlertWindow", "LatencySLO", "SLOError", "SLOSpec", "load_slo", "parse_slo"]

#: Thresholds must be whole milliseconds so that they render exactly as bucket boundaries.
RESOLUTION_SECONDS = 0.001
_WINDOW = re.compile(r"^(\d+)(ms|s|m|h|d|w)$")
_UNIT_SECONDS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}

# The multiwindow, multi-burn-rate alerts of the SRE workbook for a 30-day period: (long window
# as a fraction of the period, short = long / 12, burn rate, severity).
_WORKBOOK_WINDOWS = ((1 / 720, 14.4, "page"), (1 / 120, 6.0, "page"),
                     (1 / 30, 3.0, "ticket"), (1 / 10, 1.0, "ticket"))


#: Rejections the server chose, bad for availability unless a spec says otherwise: load shed
#: (``queue_full``), a server going down, the connection cap, and a gateway's engine out of
#: reach or refusing (``upstream_*``, its 5xx and 429 answers).
SHED_REASONS = ("queue_full", "shutting_down", "too_many_connections", "upstream_.+", "http_5..",
                "http_429")


class SLOError(ValueError):
    """A spec that cannot be used; the message names the offending field and value."""


@dataclass(frozen=True)
class LatencySLO:
    threshold_seconds: float
    target: float
    extra_thresholds_seconds: tuple[float, ...] = ()

    @property
    def thresholds(self) -> tuple[float, ...]:
        return tuple(sorted({self.threshold_seconds, *self.extra_thresholds_seconds}))


@dataclass(frozen=True)
class AlertWindow:
    long: str
    short: str
    burn_rate: float
    severity: str


@dataclass(frozen=True)
class SLOSpec:
    ttft: LatencySLO
    tpot: LatencySLO
    e2e: LatencySLO | None
    availability_target: float
    bad_finish_reasons: frozenset[FinishReason]
    eligible_finish_reasons: frozenset[FinishReason]
    count_cancellations_in_attempted: bool
    count_rejections_in_attempted: bool
    period: str
    alert_windows: tuple[AlertWindow, ...]
    service: str = "llm-inference"
    #: Rejection reasons (Prometheus regexes) that count as bad for availability: the server
    #: refusing work it was there to take.
    bad_rejection_reasons: tuple[str, ...] = ()

    @classmethod
    def default(cls) -> SLOSpec:
        text = resources.files(__package__).joinpath("default_slo.yaml").read_text("utf-8")
        return parse_slo(text, source="default_slo.yaml")

    def shed_matcher(self) -> str | None:
        """The ``reason`` matcher of the rejections availability counts as bad; None when
        none is listed, or when every rejection is bad already (``rejected`` among the bad
        finish reasons)."""
        if not self.bad_rejection_reasons or FinishReason.REJECTED in self.bad_finish_reasons:
            return None
        return '=~"' + "|".join(self.bad_rejection_reasons) + '"'

    def is_good(self, reason: FinishReason, ttft: float | None, tpot: float | None) -> bool:
        """Goodput eligibility of one finished request (None: no such sample, e.g. 1 token)."""
        if reason not in self.eligible_finish_reasons or ttft is None:
            return False
        if ttft > self.ttft.threshold_seconds:
            return False
        return tpot is None or tpot <= self.tpot.threshold_seconds

    def counts_as_attempted(self, reason: FinishReason) -> bool:
        """Whether a request that ended with ``reason`` is in the goodput denominator."""
        if reason is FinishReason.CLIENT_CANCEL:
            return self.count_cancellations_in_attempted
        if reason is FinishReason.REJECTED:
            return self.count_rejections_in_attempted
        return True


def window_seconds(window: str) -> float:
    match = _WINDOW.match(window)
    if match is None:
        raise SLOError(f"window {window!r} is not a duration like 5m, 1h or 30d")
    return int(match.group(1)) * _UNIT_SECONDS[match.group(2)]


def format_window(seconds: float) -> str:
    """The largest whole unit that expresses ``seconds`` (PromQL duration syntax)."""
    for unit in ("w", "d", "h", "m", "s"):
        size = _UNIT_SECONDS[unit]
        if seconds >= size and seconds % size == 0:
            return f"{int(seconds // size)}{unit}"
    return f"{max(1, round(seconds * 1000))}ms"


def workbook_windows(period: str) -> tuple[AlertWindow, ...]:
    """The SRE workbook's 14.4/6/3/1 windows scaled from 30 days to ``period``."""
    total = window_seconds(period)
    windows = []
    for fraction, burn, severity in _WORKBOOK_WINDOWS:
        long_s = max(60.0, round(total * fraction / 60) * 60)
        short_s = max(60.0, round(long_s / 12 / 60) * 60)
        windows.append(AlertWindow(format_window(long_s), format_window(short_s), burn, severity))
    return tuple(windows)


def _schema() -> dict[str, Any]:
    text = resources.files(__package__).joinpath("slo_schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def _field(path: Any) -> str:
    parts = [str(p) for p in path]
    return ".".join(parts) if parts else "(top level)"


def _schema_error(error: jsonschema.ValidationError) -> SLOError:
    if error.validator == "additionalProperties":
        schema: Any = error.schema
        allowed = set(schema.get("properties", {}))
        instance: Any = error.instance
        extra = sorted(set(instance) - allowed)
        where = _field(error.absolute_path)
        prefix = f"{where}." if error.absolute_path else ""
        return SLOError(f"{prefix}{extra[0]}: unknown key (allowed: {', '.join(sorted(allowed))})")
    value = json.dumps(error.instance, default=str)
    return SLOError(f"{_field(error.absolute_path)}: {value} is invalid: {error.message}")


def _check_representable(field: str, seconds: float) -> None:
    steps = seconds / RESOLUTION_SECONDS
    if not math.isclose(steps, round(steps), abs_tol=1e-6):
        raise SLOError(
            f"{field}: {seconds!r} is not representable as a bucket boundary "
            f"(thresholds must be whole milliseconds)")


def _latency(raw: dict[str, Any], name: str) -> LatencySLO:
    _check_representable(f"{name}.threshold_seconds", raw["threshold_seconds"])
    extras = tuple(float(x) for x in raw.get("extra_thresholds_seconds", ()))
    for i, extra in enumerate(extras):
        _check_representable(f"{name}.extra_thresholds_seconds.{i}", extra)
    return LatencySLO(float(raw["threshold_seconds"]), float(raw["target"]), extras)


def _windows(raw: dict[str, Any], period: str) -> tuple[AlertWindow, ...]:
    custom = raw.get("alerts", {}).get("burn_rate_windows")
    if custom is None:
        return workbook_windows(period)
    windows = []
    for i, w in enumerate(custom):
        if window_seconds(w["short"]) >= window_seconds(w["long"]):
            raise SLOError(f"alerts.burn_rate_windows.{i}.short: {w['short']!r} must be shorter "
                           f"than long ({w['long']!r})")
        windows.append(AlertWindow(w["long"], w["short"], float(w["burn_rate"]), w["severity"]))
    return tuple(windows)


def parse_slo(text: str, source: str = "<string>") -> SLOSpec:
    """Parse and validate a YAML SLO spec; raise :class:`SLOError` naming the file (its
    ``source``) and the bad field."""
    try:
        return _parse_slo(text, source)
    except SLOError as exc:
        if str(exc).startswith(f"{source}: "):
            raise
        raise SLOError(f"{source}: {exc}") from None


def _no_nan(value: Any, path: list[Any]) -> None:
    """Refuse a NaN (YAML's ``.nan``) anywhere in the spec, naming its field."""
    if isinstance(value, float) and math.isnan(value):
        raise SLOError(f"{_field(path)}: NaN is invalid: a threshold or target is a number")
    if isinstance(value, dict):
        for key, item in value.items():
            _no_nan(item, [*path, key])
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _no_nan(item, [*path, i])


def _parse_slo(text: str, source: str) -> SLOSpec:
    try:
        raw = load_config_text(text, source=source)
    except ConfigTextError as exc:
        raise SLOError(str(exc)) from None
    if not isinstance(raw, dict):
        raise SLOError(f"{source}: (top level): expected a mapping, got {type(raw).__name__}")
    _no_nan(raw, [])  # (a schema's minimum and maximum both pass NaN: every comparison fails)
    validator = jsonschema.Draft202012Validator(_schema())
    error = jsonschema.exceptions.best_match(validator.iter_errors(raw))
    if error is not None:
        raise _schema_error(error)
    period = _period(raw.get("period", "30d"))
    goodput = raw.get("goodput", {})
    availability = raw.get("availability", {"target": 0.999})
    return SLOSpec(
        ttft=_latency(raw["ttft"], "ttft"),
        tpot=_latency(raw["tpot"], "tpot"),
        e2e=_latency(raw["e2e"], "e2e") if "e2e" in raw else None,
        availability_target=float(availability["target"]),
        bad_finish_reasons=frozenset(
            FinishReason(r) for r in availability.get("bad_finish_reasons", ["error", "deadline"])),
        bad_rejection_reasons=_regexes(availability.get("bad_rejection_reasons", SHED_REASONS),
                                       "availability.bad_rejection_reasons"),
        eligible_finish_reasons=frozenset(
            FinishReason(r) for r in goodput.get("eligible_finish_reasons", ["stop", "length"])),
        count_cancellations_in_attempted=bool(
            goodput.get("count_cancellations_in_attempted", True)),
        count_rejections_in_attempted=bool(goodput.get("count_rejections_in_attempted", True)),
        period=period,
        alert_windows=_windows(raw, period),
        service=str(raw.get("service", "llm-inference")),
    )


#: The shortest SLO period taken: the page's windows are 1/720 of it and 1/12 of that, and
#: below a day they collapse into one minute (no multiwindow protection left).
MIN_PERIOD_S = 86400.0


def _regexes(values: Any, field: str) -> tuple[str, ...]:
    for i, value in enumerate(values):
        try:
            re.compile(value)
        except re.error as exc:
            raise SLOError(f"{field}[{i}]: {value!r} is not a regular expression ({exc})") \
                from None
    return tuple(values)


def _period(period: str) -> str:
    seconds = window_seconds(period)
    if seconds < MIN_PERIOD_S:
        raise SLOError(f"period: {period} is shorter than a day: the burn-rate alerts' windows "
                       "(the page's is 1/720 of the period) would collapse into one minute; an "
                       "SLO period is days, like 7d, 28d or 30d")
    return period


def load_slo(path: str | Path) -> SLOSpec:
    """Load a spec file; a missing or unreadable file is an :class:`SLOError` too."""
    try:
        text = Path(path).read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SLOError(f"{path}: cannot read: {exc}") from None
    return parse_slo(text, source=str(path))
