"""A small client for the Prometheus HTTP API (standard library only).

Only what the report reads: ``query``, ``query_range``, ``query_exemplars``, ``alerts``, ``rules``,
the metric names present in a range, and the global scrape interval from the loaded config.
"""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

import yaml

__all__ = ["PrometheusClient", "PrometheusError", "parse_duration"]

_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, "w": 604800.0}


class PrometheusError(RuntimeError):
    """Prometheus could not be reached, or answered a request with an error."""


def _without_login(url: str) -> tuple[str, dict[str, str]]:
    """``url`` without its user information, and the basic-auth header it stood for."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return url, {}
    if "@" not in parts.netloc:
        return url, {}
    login, _, host = parts.netloc.rpartition("@")
    user, _, password = login.partition(":")
    token = base64.b64encode(f"{urllib.parse.unquote(user)}:{urllib.parse.unquote(password)}"
                             .encode()).decode("ascii")
    bare = urllib.parse.urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))
    return bare, {"Authorization": f"Basic {token}"}


def parse_duration(text: str) -> float:
    """Seconds in a Prometheus duration (``90s``, ``30m``, ``1h30m``, ``250ms``)."""
    rest, total = text.strip(), 0.0
    if not rest:
        raise ValueError("empty duration")
    while rest:
        digits = len(rest) - len(rest.lstrip("0123456789."))
        unit = next((u for u in ("ms", "s", "m", "h", "d", "w")
                     if rest[digits:].startswith(u)), None)
        if digits == 0 or unit is None:
            raise ValueError(f"not a duration: {text!r} (use e.g. 30s, 15m, 1h)")
        total += float(rest[:digits]) * _UNITS[unit]
        rest = rest[digits + len(unit):]
    return total


class PrometheusClient:
    """GETs against ``{url}/api/v1/...``; every failure is a :class:`PrometheusError`."""

    def __init__(self, url: str, timeout_s: float = 30.0) -> None:
        # A login in the URL (a Prometheus behind basic auth) goes in an Authorization
        # header, never into a message: errors show the URL without it.
        self.url, self._headers = _without_login(url.rstrip("/"))
        self.timeout_s = timeout_s

    def api(self, path: str, params: list[tuple[str, str]] | None = None) -> Any:
        query = f"?{urllib.parse.urlencode(params)}" if params else ""
        url = f"{self.url}/api/v1/{path}{query}"
        try:
            request = urllib.request.Request(url, headers=self._headers)
            with urllib.request.urlopen(request, timeout=self.timeout_s) as resp:
                body = json.loads(resp.read())
        except urllib.error.HTTPError as exc:  # bad queries come back as 400/422 with JSON
            body = _error_body(exc)
        except (OSError, ValueError) as exc:
            raise PrometheusError(f"cannot read {self.url}/api/v1/{path}: {exc}") from None
        if body.get("status") != "success":
            raise PrometheusError(f"{body.get('errorType', 'error')}: {body.get('error')}")
        return body["data"]

    def query(self, promql: str, at: float) -> list[dict[str, Any]]:
        data = self.api("query", [("query", promql), ("time", _ts(at))])
        if data["resultType"] in ("scalar", "string"):
            return [{"metric": {}, "value": data["result"]}]
        result: list[dict[str, Any]] = data["result"]
        return result

    def query_range(self, promql: str, start: float, end: float,
                    step_s: float) -> list[dict[str, Any]]:
        data = self.api("query_range", [("query", promql), ("start", _ts(start)),
                                        ("end", _ts(end)), ("step", f"{step_s:g}")])
        result: list[dict[str, Any]] = data["result"]
        return result

    def exemplars(self, promql: str, start: float, end: float) -> list[dict[str, Any]]:
        data: list[dict[str, Any]] = self.api(
            "query_exemplars", [("query", promql), ("start", _ts(start)), ("end", _ts(end))])
        return data or []

    def alerts(self) -> list[dict[str, Any]]:
        alerts: list[dict[str, Any]] = self.api("alerts")["alerts"]
        return alerts

    def alerting_rules(self) -> list[dict[str, Any]]:
        groups = self.api("rules", [("type", "alert")])["groups"]
        return [rule for group in groups for rule in group["rules"]]

    def metric_names(self, start: float, end: float) -> set[str]:
        names: list[str] = self.api("label/__name__/values",
                                    [("start", _ts(start)), ("end", _ts(end))])
        return set(names)

    def scrape_interval_s(self, default: float = 15.0) -> float:
        """The global scrape interval of the running config (``default`` when unset)."""
        config = yaml.safe_load(self.api("status/config")["yaml"]) or {}
        interval = (config.get("global") or {}).get("scrape_interval")
        return parse_duration(str(interval)) if interval else default


def _ts(t: float) -> str:
    return f"{t:.3f}"


def _error_body(exc: urllib.error.HTTPError) -> dict[str, Any]:
    raw = exc.read()
    try:
        body: dict[str, Any] = json.loads(raw)
        return body
    except ValueError:
        return {"status": "error", "errorType": f"HTTP {exc.code}", "error": raw[:200]}
