"""The series budget: counted from the catalog, checked against a real exposition, pinned."""

from __future__ import annotations

import math
import subprocess
import sys

from prometheus_client import CollectorRegistry
from prometheus_client.parser import text_string_to_metric_families

from servescope.instrumentation import DeclaredLabels
from servescope.instrumentation import catalog as cat
from servescope.instrumentation.budget import (
    REFERENCE_BUDGET,
    REFERENCE_MIX,
    Mix,
    series_by_family,
    series_per_replica,
)
from servescope.instrumentation.metrics import MetricSet, render
from servescope.instrumentation.slo import SLOSpec


def test_the_reference_mix_stays_within_its_pinned_budget() -> None:
    # Raising the budget is a decision: update REFERENCE_BUDGET (and regenerate docs/metrics.md).
    assert series_per_replica(REFERENCE_MIX) <= REFERENCE_BUDGET <= 600
    assert series_per_replica(REFERENCE_MIX) == REFERENCE_BUDGET  # a cut is pinned too


def _touch_every_child(metrics: MetricSet, mix: Mix) -> None:
    """Write every series the mix declares, through the guarded path the hooks use."""
    for spec in cat.CATALOG:
        if spec.group == "client" or spec in (cat.HOOK_ERRORS, cat.LABELS_FOLDED):
            continue
        for labels in mix.label_sets(spec):
            metrics.child(spec, **labels)


def test_the_count_matches_a_real_exposition() -> None:
    registry = CollectorRegistry()
    mix = REFERENCE_MIX  # its models and priority classes are declared, as a deployment would
    declared = DeclaredLabels(priorities=tuple(f"p{i}" for i in range(mix.priorities)),
                              models=tuple(f"m{i}" for i in range(mix.models)))
    metrics = MetricSet(registry, SLOSpec.default(), label_caps={cat.KIND: 64},
                        declared=declared)
    _touch_every_child(metrics, REFERENCE_MIX)
    text = render(registry)[0].decode()
    samples = [s for f in text_string_to_metric_families(text) for s in f.samples]
    assert not any(s.name.endswith("_created") for s in samples)
    by_family: dict[str, int] = {}
    for spec in cat.CATALOG:
        names = set(cat.series_names(spec))
        n = sum(1 for s in samples if s.name in names)
        if n:
            by_family[spec.name] = n
    assert by_family == series_by_family(REFERENCE_MIX)


def test_the_budget_grows_with_the_mix_and_created_series() -> None:
    base = series_per_replica(Mix())
    assert series_per_replica(Mix(models=2)) > base
    assert series_per_replica(Mix(adapters=1)) == series_per_replica(Mix(models=2))
    assert series_per_replica(Mix(priorities=2)) > base
    assert series_per_replica(Mix(created=True)) > base


def test_the_cli_prints_the_table() -> None:
    out = subprocess.run([sys.executable, "-m", "servescope", "budget"], capture_output=True,
                         text=True, check=True).stdout
    assert f"**{REFERENCE_BUDGET} series**" in out
    assert "| `gen_ai_server_time_to_first_token_seconds` |" in out
    for option in ("--models", "--priorities"):  # (one of each at least: "default")
        bad = subprocess.run([sys.executable, "-m", "servescope", "budget", option, "0"],
                             capture_output=True, text=True)
        assert bad.returncode == 2 and f"{option}: 0 is out of range" in bad.stderr


def test_the_label_sets_a_mix_lists_are_the_ones_it_counts() -> None:
    mix = Mix(models=2, adapters=1, priorities=3, pools=2, redaction_kinds=5)
    for spec in cat.CATALOG:
        if spec.group == "client" or spec in (cat.HOOK_ERRORS, cat.LABELS_FOLDED):
            continue
        sets = mix.label_sets(spec)
        assert len({tuple(sorted(s.items())) for s in sets}) == len(sets), spec.name
        assert len(sets) == math.prod(mix.values(spec, key) for key in spec.labels), spec.name
