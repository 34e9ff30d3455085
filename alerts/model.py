"""The rule-file vocabulary: rules, groups, timing knobs and the naming of recorded series."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from servescope.promql.flavor import SERVESCOPE, Flavor
from servescope.promql.query import Query

__all__ = ["FLEET", "REPLICA", "RUNBOOKS", "RUNBOOK_ENV", "SCOPES", "Alert", "Group", "Options",
           "Record", "RuleTiming", "Thresholds", "check_runbook_base", "default_runbook_base",
           "published_runbooks", "slug"]

#: The runbooks' path in the repository, and the setting that overrides where links point.
RUNBOOKS = "alerts/runbooks.md"
RUNBOOK_ENV = "SERVESCOPE_RUNBOOK_BASE"


@dataclass(frozen=True)
class RuleTiming:
    """How long a condition must hold before alerting, and diagnostic rate windows.

    The committed rules use :meth:`default`; the live integration test loads the same rules
    generated with :meth:`fast` so that a fault fires within seconds, not minutes.
    """

    burn_for: str = "2m"
    diagnostic_for: str = "5m"
    target_for: str = "2m"
    diagnostic_window: str = "5m"
    baseline_window: str = "1h"  # what "rose" and "dropped" compare the diagnostic window to
    #: Seconds without a shard's heartbeat before the global tier pages (a few of the shard's
    #: evaluation intervals plus remote_write's delay), how long that must hold, and how far
    #: back it looks for one. 60 s (one evaluation of promtool's unit tests: their heartbeat is
    #: a minute old between evaluations) + 30 s, at a 15 s evaluation interval on the global
    #: tier: the page fires within 2 minutes of the shard's last sample.
    shard_silent_s: float = 60.0
    shard_silent_for: str = "30s"
    shard_lookback: str = "1h"
    #: How long after a shard's last sample the global tier still pages about it (a shard
    #: retired for good; ``slo_rules.shard_memory``).
    shard_forget_s: float = 7 * 86400.0

    @staticmethod
    def default() -> RuleTiming:
        return RuleTiming()

    @staticmethod
    def fast() -> RuleTiming:
        return RuleTiming(burn_for="0s", diagnostic_for="0s", target_for="0s",
                          diagnostic_window="30s", baseline_window="5m", shard_silent_s=15.0,
                          shard_silent_for="0s", shard_lookback="10m")


@dataclass(frozen=True)
class Thresholds:
    """Diagnostic thresholds (each is rendered into the alert's description)."""

    kv_usage_high: float = 0.9
    queue_low: float = 1.0
    discarded_ratio: float = 0.1
    #: Share of requests ended by the slow-consumer policy: each is a client that stopped
    #: reading, so a few percent is already a broken client or network.
    slow_consumer_ratio: float = 0.01
    cancel_ratio: float = 0.2
    error_ratio: float = 0.05
    prefix_drop: float = 0.5  # prefix miss: hit ratio under this share of its baseline
    prefill_slowdown: float = 1.5  # prefill compute: step time above this multiple of baseline
    batch_growth: float = 1.5  # decode load: batch size above this multiple of baseline
    prefill_share: float = 0.5  # prefill interference: prefill share of forward time above
    #: Seconds without an engine heartbeat, with requests in flight, that count as stalled:
    #: well past the API process's lease (10 s by default), so the monitor itself has failed
    #: to replace the engine.
    engine_stall_s: float = 30.0
    #: Engine restarts within the diagnostic window that page (a crash loop); one tickets.
    engine_crash_loop: float = 3.0


@dataclass(frozen=True)
class Options:
    """What varies between deployments: whose metrics, the scrape job, runbook location,
    timing. ``job_regex`` None: the flavor's default job."""

    flavor: Flavor = SERVESCOPE
    job_regex: str | None = None
    # the published runbooks, as the CLI's default (a late-bound call: published_runbooks is
    # defined below and reads the installed distribution's metadata)
    runbook_base: str = field(default_factory=lambda: published_runbooks() or RUNBOOKS)
    timing: RuleTiming = field(default_factory=RuleTiming)
    thresholds: Thresholds = field(default_factory=Thresholds)

    @property
    def job(self) -> str:
        return self.job_regex if self.job_regex is not None else self.flavor.job_regex

    def query(self, window: str) -> Query:
        return Query(window=window, flavor=self.flavor.for_rules())

    def runbook(self, alert: str) -> str:
        return f"{self.runbook_base}#{slug(alert)}"


def default_runbook_base(root: Path | None = None) -> str:
    """Where alert notifications link (``servescope generate --runbook-base`` overrides):

    1. ``SERVESCOPE_RUNBOOK_BASE``;
    2. ``[tool.servescope] runbook_base`` in ``root/pyproject.toml`` (the user's own project);
    3. the repository servescope is published from (the installed distribution's
       ``Project-URL: Repository``) at the installed version's tag,
       ``{repository}/blob/v{version}/alerts/runbooks.md``, which resolves once that version
       is published; a user's own ``[project.urls]`` is not read: it names their project,
       which does not hold these runbooks;
    4. else the path in the repository (resolves only where the checkout is browsed).
    """
    configured = os.environ.get(RUNBOOK_ENV, "").strip()
    if configured:
        return check_runbook_base(configured, RUNBOOK_ENV)
    try:
        meta = tomllib.loads(((root or Path(".")) / "pyproject.toml").read_text("utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        meta = {}
    tool = meta.get("tool", {}).get("servescope", {}).get("runbook_base")
    if tool:
        return check_runbook_base(str(tool), "[tool.servescope] runbook_base")
    return published_runbooks() or RUNBOOKS


def published_runbooks(distribution: str = "servescope") -> str | None:
    """The runbooks at the installed version's tag in the repository the distribution names
    (``Project-URL: Repository``, else ``Source`` or ``Homepage``), or None."""
    try:
        meta = metadata.metadata(distribution)
    except metadata.PackageNotFoundError:
        return None
    urls = dict(_project_url(entry) for entry in meta.get_all("Project-URL") or [])
    repository = next((urls[k] for k in ("Repository", "Source", "Homepage") if urls.get(k)),
                      None)
    if not repository or not meta["Version"]:
        return None
    return f"{repository.rstrip('/')}/blob/v{meta['Version']}/{RUNBOOKS}"


def _project_url(entry: str) -> tuple[str, str]:
    label, _, url = entry.partition(",")
    return label.strip(), url.strip()


def check_runbook_base(base: str, field_name: str) -> str:
    """``base`` if links can be made from it (no fragment, no spaces); ValueError naming the
    setting otherwise."""
    if not base or "#" in base or any(ch.isspace() for ch in base):
        raise ValueError(f"{field_name}: a runbook base is a URL or path without '#' or "
                         f"spaces, got {base!r}")
    parts = urlsplit(base)
    if parts.scheme and parts.scheme not in ("http", "https", "file"):
        raise ValueError(f"{field_name}: a runbook link opens in a browser from every "
                         f"notification: http, https or a path, not {parts.scheme!r}")
    # every alert carries the link to every receiver: no login or query may ride in it
    # (the value is not repeated here, since it would land in a CI log)
    if "@" in parts.netloc or parts.query:
        raise ValueError(f"{field_name}: a runbook base may not hold a login (user@) or a "
                         "query (?...): each notification would carry it")
    return base


def slug(heading: str) -> str:
    """The anchor GitHub (and most Markdown renderers) give a heading."""
    return "".join(c for c in heading.lower().replace(" ", "-") if c.isalnum() or c in "-_")


@dataclass(frozen=True)
class Record:
    record: str
    expr: str
    labels: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"record": self.record, "expr": self.expr}
        if self.labels:
            out["labels"] = dict(self.labels)
        return out


@dataclass(frozen=True)
class Alert:
    alert: str
    expr: str
    severity: str
    summary: str
    description: str
    runbook_url: str
    for_: str = "0s"
    labels: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"alert": self.alert, "expr": self.expr}
        if self.for_ not in ("0s", "0m", ""):
            out["for"] = self.for_
        out["labels"] = {"severity": self.severity, **self.labels}
        out["annotations"] = {"summary": self.summary, "description": self.description,
                              "runbook_url": self.runbook_url}
        return out


#: Where a rule group runs. ``replica``: beside the replicas' own series (each shard, or the one
#: Prometheus): diagnostics, cause alerts, anything by instance, and the first stage of the SLO
#: and dashboard aggregates (per job and model, so shards can add them up). ``fleet``: on the
#: global tier (a global Prometheus, Thanos Ruler, Mimir ruler), reading recorded series only.
REPLICA, FLEET = "replica", "fleet"
SCOPES = (REPLICA, FLEET)


@dataclass(frozen=True)
class Group:
    name: str
    rules: tuple[Record | Alert, ...]
    scope: str = REPLICA

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "rules": [r.to_dict() for r in self.rules]}
