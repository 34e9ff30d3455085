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
from dataclasses import dataclass

from servescope.instrumentation import catalog as cat
from servescope.instrumentation.catalog import MetricSpec
from servescope.instrumentation.status import TokenStage
from servescope.promql.flavor import Flavor, NativeSpec
from servescope.promql.recorded import FLEET_RATES, WINDOW, record_name

from .model import REPLICA, Group, Options, Record

__all__ = ["CLIENTS_SUFFIX", "GROUPS", "Source", "groups", "natives", "sources"]

#: One group per kind of series, so that each evaluates on its own schedule (rules in a group
#: run one after another; groups run side by side): counters, histogram buckets, and the
#: sums and counts of means.
GROUPS = {"": "servescope-dashboard-counters", "_bucket": "servescope-dashboard-buckets",
          "_sum": "servescope-dashboard-means", "_count": "servescope-dashboard-means"}


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


@dataclass(frozen=True)
class Source:
    """One recording: its name, the series it rates and the labels it keeps (beside job)."""

    record: str
    series: str
    keys: tuple[str, ...]
    suffix: str


def _source(native: MetricSpec, suffix: str, flavor: Flavor) -> Source:
    series = f"{native.name}{suffix}" if suffix else native.sample_name
    keys = [flavor.label(k) for k in native.labels if flavor.has_label(k)]
    if isinstance(native, NativeSpec):
        keys += [label for label, _ in native.fixed]
    if suffix == "_bucket":
        keys.append("le")
    return Source(record_name(native, suffix), series, tuple(dict.fromkeys(keys)), suffix)


def sources(options: Options) -> list[Source]:
    """Every recording of the flavor, once (a metric several families share is rated once)."""
    out: dict[str, Source] = {}
    for spec, suffix in FLEET_RATES:
        for native in natives(options.flavor, spec):
            source = _source(native, suffix, options.flavor)
            out.setdefault(source.record, source)
    return list(out.values())


#: The job of the load generators that measure a job's servers from the client's side
#: (``servescope load --metrics-port``): the server job's name and this suffix
#: (``servescope-clients``; the stack's Prometheus scrapes them so).
CLIENTS_SUFFIX = "-clients"
_CLIENT_SERIES = tuple(spec.name for spec in cat.CATALOG if spec.group == "client")


def records(options: Options, group: str) -> Iterator[Record]:
    for source in sources(options):
        if GROUPS[source.suffix] == group:
            by = ", ".join(["job", *source.keys])
            yield Record(source.record, f"sum by ({by}) ({_rate(source, options.job)})")


def _rate(source: Source, job: str) -> str:
    """The per-second rate of ``source`` under ``job``. A client family (``servescope_client_*``)
    is read from the job's load generators too (``<job>-clients``), recorded under the job
    their servers run in: the client panels then filter by ``$job`` as the server panels do."""
    if not source.series.startswith(_CLIENT_SERIES):
        return f'rate({source.series}{{job=~"{job}"}}[{WINDOW}])'
    clients = f"(?:{job}){CLIENTS_SUFFIX}"
    return (f'label_replace(rate({source.series}{{job=~"{job}|{clients}"}}[{WINDOW}]), '
            f'"job", "$1", "job", "(.+){CLIENTS_SUFFIX}")')


def groups(options: Options) -> list[Group]:
    return [Group(name, tuple(records(options, name)), REPLICA)
            for name in dict.fromkeys(GROUPS.values())]
