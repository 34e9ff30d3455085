"""The series budget: how many series one replica exports for a declared mix.

Counted from the catalog's label sets and the bucket ladders of an SLO spec, the way the
exposition writes them: a counter is one ``_total`` series, a gauge one series, a histogram one
``_bucket`` series per boundary plus ``+Inf``, ``_count`` and ``_sum``; ``_created`` adds one
per counter and histogram child when it is on. A label's values come from the mix (models and
adapters share the ``model`` label; priority classes; finish and rejection reasons) or from the
closed sets servescope itself writes (token stages, step phases, restart and drop reasons).
Families that only appear when something is wrong (hook errors, folded label values) and the
client-side families (a load generator's, not a server's) are counted only when asked.

``REFERENCE_MIX`` is the production mix the budget test pins: 3 models x 3 priority classes
with every finish and rejection reason present.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import catalog as cat
from .buckets import ladders
from .catalog import Kind, MetricSpec
from .slo import SLOSpec
from .status import FinishReason, TokenStage

__all__ = ["REFERENCE_BUDGET", "REFERENCE_MIX", "REJECTION_REASONS", "Mix", "budget_markdown",
           "series_by_family", "series_per_replica"]

#: Every reason a request is refused before admission (engine and HTTP server together).
REJECTION_REASONS = ("empty_prompt", "prompt_too_long", "invalid_token", "queue_full",
                     "shutting_down", "invalid_request", "client_disconnected")
_RESTART_REASONS = ("exited", "lease_expired", "fatal", "startup_timeout")
_DROP_REASONS = ("queue_full", "export_failed", "shutdown")
_REDACTION_SIGNALS = ("spans", "logs")
#: Families a healthy server never writes (a child appears on a fault only).
FAULT_ONLY = frozenset({cat.HOOK_ERRORS.name, cat.LABELS_FOLDED.name})
CLIENT_ONLY = frozenset(s.name for s in cat.CATALOG if s.group == "client")


@dataclass(frozen=True)
class Mix:
    """What one replica serves: the values its open labels take."""

    models: int = 1
    adapters: int = 0  # LoRA adapters are served (and labelled) as models
    priorities: int = 1
    finish_reasons: int = len(FinishReason)
    rejection_reasons: int = len(REJECTION_REASONS)
    pools: int = 1
    redaction_kinds: int = 8  # detector kinds that fired (a label value each)
    created: bool = False  # the ``_created`` series (off by default, see metrics.py)
    faults: bool = False  # count the fault-only families
    client: bool = False  # count the client-side families

    def values(self, spec: MetricSpec, key: str) -> int:
        """How many values label ``key`` of ``spec`` takes in this mix."""
        if key == cat.REASON:
            return {cat.REJECTED.name: self.rejection_reasons,
                    cat.ENGINE_RESTARTS.name: len(_RESTART_REASONS),
                    cat.SPANS_DROPPED.name: len(_DROP_REASONS)}[spec.name]
        if key == cat.KIND:
            return len(_REDACTION_SIGNALS) if spec is cat.REDACTION_ENABLED \
                else self.redaction_kinds
        closed = {cat.MODEL: self.models + self.adapters, cat.PRIORITY: self.priorities,
                  cat.FINISH_REASON: self.finish_reasons, cat.STAGE: len(TokenStage),
                  cat.POOL: self.pools, cat.PHASE: 2, cat.SIGNAL: len(FinishReason),
                  cat.HOOK: 4, cat.METRIC: 4, cat.LABEL: 2}
        return closed[key]

    def label_sets(self, spec: MetricSpec) -> list[dict[str, str]]:
        """Every label set ``spec`` takes in this mix, with stand-in values for the open
        labels (models ``m0``…, priority classes ``p0``…, redaction kinds ``k0``…): what a
        replica of the mix exports, for tests and the fleet benchmark to write."""
        sets: list[dict[str, str]] = [{}]
        for key in spec.labels:
            sets = [{**labels, key: value} for labels in sets
                    for value in self._sample_values(spec, key)]
        return sets

    def _sample_values(self, spec: MetricSpec, key: str) -> list[str]:
        if key == cat.REASON:
            return list({cat.REJECTED.name: REJECTION_REASONS[:self.rejection_reasons],
                         cat.ENGINE_RESTARTS.name: _RESTART_REASONS,
                         cat.SPANS_DROPPED.name: _DROP_REASONS}[spec.name])
        if key == cat.KIND:
            return list(_REDACTION_SIGNALS) if spec is cat.REDACTION_ENABLED else \
                [f"k{i}" for i in range(self.redaction_kinds)]
        return {cat.MODEL: [f"m{i}" for i in range(self.models + self.adapters)],
                cat.PRIORITY: [f"p{i}" for i in range(self.priorities)],
                cat.FINISH_REASON: [r.value for r in FinishReason][:self.finish_reasons],
                cat.STAGE: [s.value for s in TokenStage],
                cat.POOL: [f"pool{i}" if i else "default" for i in range(self.pools)],
                cat.PHASE: ["prefill", "decode"],
                cat.SIGNAL: [r.value for r in FinishReason]}[key]


REFERENCE_MIX = Mix(models=3, priorities=3)
#: The budget of ``REFERENCE_MIX`` under the default SLO spec. A change that raises it fails
#: tests/instrumentation/test_budget.py until this number (and docs/metrics.md) is updated on
#: purpose; the issue's ceiling is 600.
REFERENCE_BUDGET = 587


def _per_child(spec: MetricSpec, mix: Mix, buckets: int) -> int:
    created = 1 if mix.created else 0
    if spec.kind is Kind.COUNTER:
        return 1 + created
    if spec.kind is Kind.GAUGE:
        return 1
    return buckets + 1 + 2 + created  # boundaries, +Inf, _count, _sum


def _children(spec: MetricSpec, mix: Mix) -> int:
    n = 1
    for key in spec.labels:
        n *= mix.values(spec, key)
    return n


def series_by_family(mix: Mix = REFERENCE_MIX, slo: SLOSpec | None = None) -> dict[str, int]:
    """Series per catalog family for one replica serving ``mix``."""
    ladder = ladders(slo or SLOSpec.default())
    out = {}
    for spec in cat.CATALOG:
        if (spec.name in FAULT_ONLY and not mix.faults) or \
                (spec.name in CLIENT_ONLY and not mix.client):
            continue
        buckets = len(ladder[spec.buckets]) if spec.buckets is not None else 0
        out[spec.name] = _children(spec, mix) * _per_child(spec, mix, buckets)
    return out


def series_per_replica(mix: Mix = REFERENCE_MIX, slo: SLOSpec | None = None) -> int:
    return sum(series_by_family(mix, slo).values())


def budget_markdown(mix: Mix = REFERENCE_MIX, slo: SLOSpec | None = None) -> list[str]:
    """The budget table of docs/metrics.md (largest families first)."""
    by_family = series_by_family(mix, slo)
    total = sum(by_family.values())
    specs = {s.name: s for s in cat.CATALOG}
    out = [f"One replica serving {mix.models} models x {mix.priorities} priority classes, "
           f"with all {mix.finish_reasons} finish reasons and {mix.rejection_reasons} "
           f"rejection reasons present, exports **{total} series** (`servescope budget` "
           f"prints it for any mix; {'' if mix.created else '`_created`, '}fault-only and "
           "client-side families not counted"
           f"{'; `_created` series counted' if mix.created else ''}).", "",
           "| family | labels | series | share |", "|---|---|---:|---:|"]
    for name, n in sorted(by_family.items(), key=lambda kv: (-kv[1], kv[0])):
        labels = ", ".join(f"`{k}`" for k in specs[name].labels) or "-"
        out.append(f"| `{name}` | {labels} | {n} | {n / total:.1%} |")
    return out
