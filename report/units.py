"""Grafana units as text: what an axis tick or a stat value shows."""

from __future__ import annotations

import math

__all__ = ["format_value", "unit_label"]

_SI = ((1e9, "G"), (1e6, "M"), (1e3, "k"))
_RATE = {"reqps": "req/s", "ops": "ops/s", "rps": "/s", "wps": "writes/s", "iops": "io/s"}
_LABELS = {"s": "seconds", "ms": "milliseconds", "percentunit": "%", "percent": "%",
           "short": "", "none": "", "bytes": "bytes", "decbytes": "bytes", **_RATE}


def unit_label(unit: str) -> str:
    """The axis label for ``unit`` ('' when the numbers speak for themselves)."""
    if unit.startswith("suffix:"):
        return ""  # the ticks carry it
    return _LABELS.get(unit, unit)


def format_value(value: float, unit: str, decimals: int | None = None) -> str:
    if not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("+Inf" if value > 0 else "-Inf")
    if unit in ("s", "ms"):
        return _duration(value if unit == "s" else value / 1000, decimals)
    if unit == "percentunit":
        return f"{_num(value * 100, decimals)}%"
    if unit == "percent":
        return f"{_num(value, decimals)}%"
    if unit.startswith("suffix:"):
        return f"{_num(value, decimals)}{unit.removeprefix('suffix:')}"
    if unit in ("bytes", "decbytes"):
        return _bytes(value)
    text = _si(value, decimals)
    return f"{text} {_RATE[unit]}" if unit in _RATE else text


def _num(value: float, decimals: int | None) -> str:
    if decimals is not None:
        return f"{value:.{decimals}f}"
    magnitude = abs(value)
    digits = 0 if magnitude >= 100 else 1 if magnitude >= 10 else 2 if magnitude >= 0.1 else 3
    text = f"{value:.{digits}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _si(value: float, decimals: int | None) -> str:
    for scale, prefix in _SI:
        if abs(value) >= scale:
            return f"{_num(value / scale, decimals)}{prefix}"
    return _num(value, decimals)


def _duration(seconds: float, decimals: int | None) -> str:
    magnitude = abs(seconds)
    if magnitude == 0:
        return "0 s"
    if magnitude < 1e-3:
        return f"{_num(seconds * 1e6, decimals)} µs"
    if magnitude < 1:
        return f"{_num(seconds * 1e3, decimals)} ms"
    if magnitude < 120:
        return f"{_num(seconds, decimals)} s"
    return f"{_num(seconds / 60, decimals)} min"


def _bytes(value: float) -> str:
    for scale, prefix in ((2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB")):
        if abs(value) >= scale:
            return f"{value / scale:.1f} {prefix}"
    return f"{value:.0f} B"
