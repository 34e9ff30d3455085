"""Checks every generated dashboard must pass (used by the tests; usable on any dashboard).

* every series a query names is in the catalog, written by Prometheus, or a recording rule
  (given the rules' expressions, a record is checked through the series its rules read);
* counters and histogram series only appear under rate/irate/increase, inside an aggregation;
* every rate uses ``$__rate_interval`` (``increase`` may also span ``$__range``);
* every panel has a title, a description, a unit and the ``$datasource`` datasource;
* the datasource/job/instance/model variables exist.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from servescope.instrumentation import catalog as cat
from servescope.instrumentation.catalog import Kind
from servescope.promql.flavor import FLAVORS, Flavor
from servescope.promql.query import PROMETHEUS_SERIES, SELECTOR

from .panels import NO_METRIC

__all__ = ["REQUIRED_VARIABLES", "convention_errors", "known_series", "panels", "rated_series",
           "reads",            "series_errors", "targets"]

REQUIRED_VARIABLES = ("datasource", "job", "instance", "model")
_RANGE = re.compile(r"\[([^\]]+)\]")
_AGGREGATED = re.compile(r"(sum|max|min|avg|count)(\s+by\s*\([^)]*\))?\s*\(\s*$")


def panels(dashboard: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every panel that is not a row (nested rows included)."""
    for panel in dashboard.get("panels", []):
        if panel.get("type") == "row":
            yield from panels(panel)
        else:
            yield panel


def targets(dashboard: dict[str, Any]) -> Iterator[tuple[dict[str, Any], str]]:
    for panel in panels(dashboard):
        for target in panel.get("targets", []):
            yield panel, target.get("expr", "")


def rated_series() -> set[str]:
    """Counter and histogram series of the catalog and of every flavor: rate them only."""
    specs = list(cat.CATALOG)
    for flavor in FLAVORS.values():
        specs += [m.spec() for m in flavor.mapped() if m.kind is not Kind.GAUGE]
    out = set()
    for spec in specs:
        if spec.kind is Kind.COUNTER:
            out.add(spec.sample_name)
        elif spec.kind is Kind.HISTOGRAM:
            out.update(f"{spec.name}{s}" for s in ("_bucket", "_count", "_sum"))
    return out


def known_series(flavor: Flavor | None = None) -> set[str]:
    """Every series name a query of ``flavor`` may reference (the catalog's by default)."""
    if flavor is None or flavor.families is None:
        return {s for spec in cat.CATALOG for s in cat.series_names(spec)}
    declared = {flavor.presence_series, flavor.model_series[0]}  # what the variables read
    gateway = {s for spec in cat.CATALOG if flavor.from_gateway(spec.name)
               for s in cat.series_names(spec)}  # a gateway's own series, on its job
    return {s for m in flavor.mapped() for s in m.series()} | declared | gateway


def series_errors(exprs: Iterable[str],
                  recorded: Mapping[str, Sequence[str]] | Iterable[str] = (),
                  flavor: Flavor | None = None) -> list[str]:
    """Series named by ``exprs`` that nothing produces. ``recorded``: record names, or record
    name -> the expressions of the rules recording it, through which a query reading a record
    is checked against the series those rules read."""
    rules = dict(recorded) if isinstance(recorded, Mapping) else {n: () for n in recorded}
    known = known_series(flavor) | PROMETHEUS_SERIES
    errors = []
    for expr in exprs:
        for name in sorted(reads(expr, rules) - known):
            errors.append(f"{name}: no such series (query: {expr[:120]})")
    return errors


def reads(expr: str, rules: Mapping[str, Sequence[str]],
          seen: frozenset[str] = frozenset()) -> set[str]:
    """The series ``expr`` reads, a recorded one replaced by what its rules read."""
    out: set[str] = set()
    for name in SELECTOR.findall(expr):
        if name in rules and name not in seen:
            for rule in rules[name]:
                out |= reads(rule, rules, seen | {name})
        elif name not in rules:
            out.add(name)
    return out


def _selector_errors(expr: str) -> list[str]:
    errors = []
    rated = rated_series()
    for match in SELECTOR.finditer(expr):
        name = match.group(1)
        if name not in rated:
            continue
        before = expr[:match.start()]
        fn = re.search(r"(rate|irate|increase)\(\s*$", before)
        if fn is None:
            errors.append(f"{name}: a counter/histogram series outside rate/increase")
            continue
        if not _AGGREGATED.search(before[:fn.start()]):
            errors.append(f"{name}: {fn.group(1)}() not inside an aggregation")
        window = _RANGE.match(expr, expr.index("}", match.end()) + 1)
        allowed = {"$__rate_interval"} | ({"$__range"} if fn.group(1) == "increase" else set())
        if window is None or window.group(1) not in allowed:
            errors.append(f"{name}: {fn.group(1)}() window is not $__rate_interval")
    return errors


def convention_errors(dashboard: dict[str, Any]) -> list[str]:
    errors = []
    names = {v.get("name") for v in dashboard.get("templating", {}).get("list", [])}
    errors += [f"variable {v!r} missing" for v in REQUIRED_VARIABLES if v not in names]
    if not dashboard.get("uid"):
        errors.append("dashboard has no uid")
    for panel in panels(dashboard):
        title = panel.get("title") or "<untitled>"
        if not panel.get("title"):
            errors.append("a panel has no title")
        if not panel.get("description"):
            errors.append(f"{title}: no description")
        if not panel.get("fieldConfig", {}).get("defaults", {}).get("unit"):
            errors.append(f"{title}: no unit")
        if panel.get("datasource", {}).get("uid") != "${datasource}":
            errors.append(f"{title}: datasource is not the $datasource variable")
        if not panel.get("targets") and NO_METRIC not in panel.get("description", ""):
            errors.append(f"{title}: no query (and no note that the flavor lacks the metric)")
        for target in panel.get("targets", []):
            errors += [f"{title}: {e}" for e in _selector_errors(target.get("expr", ""))]
    return errors
