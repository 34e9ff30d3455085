"""The recordings fleet panels read: each family's rate summed across instances, per job.

One record per series of :data:`~servescope.promql.recorded.FLEET_RATES` the flavor exports,
kept by ``job``, every label the family carries (``model``, ``priority``, ``finish_reason``,
``stage``, ...), the labels a flavor's fixed matchers test and ``le`` for buckets: the panels
sum them by whatever they show and filter on the same labels as before, at a cost that no longer
grows with the replica count. Replica scope: they read raw series, so they run where the
replicas are scraped (each shard; the global tier's panels add the shards' partial sums up).
"""

from __future__ import annotations

from collections.abc import Iterator

from servescope.instrumentation import catalog as cat
from servescope.instrumentation.catalog import MetricSpec
from servescope.instrumentation.status import TokenStage
from servescope.promql.flavor import Flavor, NativeSpec
from servescope.promql.recorded import FLEET_RATES, WINDOW, record_name

from .model import REPLICA, Group, Options, Record

__all__ = ["GROUP", "groups", "natives"]

GROUP = "servescope-dashboard-rates"


def natives(flavor: Flavor, spec: MetricSpec) -> list[MetricSpec]:
    """Every metric of the flavor's own (no gateway's) that a query for ``spec`` may select:
    its metric, and per-stage or per-reason counters for flavors that split them."""
    if flavor.families is None:
        return [spec]
    found: list[MetricSpec | None] = [flavor.metric(spec)]
    if spec.name == cat.TOKENS.name:
        found = [flavor.stage_metric(stage.value) for stage in TokenStage]
    elif spec.name == cat.FINISHED.name and flavor.reason_counters is not None:
        found += [m.spec() for m in flavor.reason_counters.values() if m is not None]
    return [m for m in found if m is not None]


def _record(native: MetricSpec, suffix: str, options: Options) -> Record:
    flavor = options.flavor
    series = f"{native.name}{suffix}" if suffix else native.sample_name
    keys = [flavor.label(k) for k in native.labels if flavor.has_label(k)]
    if isinstance(native, NativeSpec):
        keys += [label for label, _ in native.fixed]
    if suffix == "_bucket":
        keys.append("le")
    by = ", ".join(dict.fromkeys(["job", *keys]))
    return Record(record_name(native, suffix),
                  f'sum by ({by}) (rate({series}{{job=~"{options.job}"}}[{WINDOW}]))')


def records(options: Options) -> Iterator[Record]:
    seen: set[str] = set()
    for spec, suffix in FLEET_RATES:
        for native in natives(options.flavor, spec):
            record = _record(native, suffix, options)
            if record.record not in seen:
                seen.add(record.record)
                yield record


def groups(options: Options) -> list[Group]:
    return [Group(GROUP, tuple(records(options)), REPLICA)]
