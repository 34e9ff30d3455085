"""The recorded series fleet panels read instead of raw series, and how each is named.

A fleet panel (one that adds up every replica the variables select) over raw series costs a
read of every replica's series at every step: at 1,000 replicas a TTFT quantile reads 20,000
bucket series. The replica rule set therefore records, for each family in :data:`FLEET_RATES`,
its per-second rate summed across instances and kept by every other label the family carries
(``job``, ``model``, ``priority``, ``le``, ...), once per evaluation:
``servescope_job:<series>:rate1m``. A panel then sums those (a handful of series per job) and
still filters by job, model and any other label; only ``$instance`` no longer narrows it. Shards
each record their own partial sums and the global tier's panels add them up.

The SLO panels read the SLO rules' first stage instead (:data:`BAD_RECORD`, :data:`ALL_RECORD`),
so a panel and the burn-rate alert compute the same ratio from the same samples.
"""

from __future__ import annotations

from servescope.instrumentation import catalog as cat
from servescope.instrumentation.catalog import MetricSpec
from servescope.instrumentation.slo import SLOSpec, window_seconds

from .flavor import Flavor

__all__ = ["ALL_RECORD", "BAD_RECORD", "FLEET_RATES", "RECORD_PREFIX", "WINDOW", "is_recorded",
           "record_name", "shed_matcher", "slo_windows", "stage_window"]

#: The rate window of the dashboard records: four scrapes at the usual 15 s interval (a
#: Grafana ``$__rate_interval`` at that interval), recorded every evaluation (30 s-1 m).
WINDOW = "1m"
RECORD_PREFIX = "servescope_job:"

#: The SLO rules' first stage, per (job, model): bad and all events per second over the
#: shortest alert window (``{slo="ttft|tpot|availability"}``).
BAD_RECORD = "servescope_job:slo_bad:rate"
ALL_RECORD = "servescope_job:slo_all:rate"

_QUANTILES = (cat.SERVER_TTFT, cat.STREAM_TTFT, cat.TPOT, cat.E2E, cat.QUEUE_TIME,
              cat.PREFILL_TIME, cat.DECODE_TIME, cat.CLIENT_TTFT, cat.CLIENT_TPOT, cat.CLIENT_E2E,
              cat.STREAM_OCCUPANCY, cat.STREAM_UNACKED_PEAK, cat.BATCH_SIZE, cat.FORWARD_TIME)
_MEANS = (cat.BATCH_SIZE, cat.FORWARD_TIME, cat.STEP_TOKENS)
_COUNTERS = (cat.ARRIVED, cat.ADMITTED, cat.REJECTED, cat.FINISHED, cat.GOOD, cat.ATTEMPTED,
             cat.IGNORED_SIGNALS, cat.TOKENS, cat.SPANS_DROPPED, cat.LABELS_FOLDED,
             cat.HOOK_ERRORS, cat.REDACTIONS)
#: (family, series suffix) that fleet panels read from a recording: counters (no suffix), the
#: ``_bucket`` series of the histograms fleet quantiles read, ``_sum`` and ``_count`` of those
#: whose mean a panel shows. Heatmaps keep the raw buckets: a recording carries no exemplars.
FLEET_RATES: tuple[tuple[MetricSpec, str], ...] = (
    *((spec, "") for spec in _COUNTERS),
    *((spec, "_bucket") for spec in _QUANTILES),
    *((spec, suffix) for spec in _MEANS for suffix in ("_sum", "_count")),
)
_RECORDED = frozenset((spec.name, suffix) for spec, suffix in FLEET_RATES)


def is_recorded(spec: MetricSpec, suffix: str) -> bool:
    """Whether fleet panels read ``spec``'s ``suffix`` series from a recording."""
    return (spec.name, suffix) in _RECORDED


def record_name(native: MetricSpec, suffix: str) -> str:
    """The recording of ``native`` (the catalog's or a flavor's metric): its series name, the
    ``_total`` and any colon dropped, between the job prefix and the window."""
    series = f"{native.name}{suffix}" if suffix else native.sample_name
    base = series.removesuffix("_total").replace(":", "_")
    return f"{RECORD_PREFIX}{base}:rate{WINDOW}"


def slo_windows(slo: SLOSpec) -> list[str]:
    """Every window a burn-rate alert reads, shortest first."""
    names = {w for aw in slo.alert_windows for w in (aw.long, aw.short)}
    return sorted(names, key=window_seconds)


def rejection_reasons_known(flavor: Flavor) -> bool:
    """Whether ``flavor``'s rejections carry servescope's reasons (``queue_full``, ...) and end
    as finishes: servescope's own series only (an engine flavor's do neither)."""
    return flavor.families is None


def shed_matcher(slo: SLOSpec, flavor: Flavor) -> str | None:
    """The ``reason`` matcher of the rejections availability counts as bad, for the SLO rules
    and the overview alike (where :func:`rejection_reasons_known`)."""
    return slo.shed_matcher() if rejection_reasons_known(flavor) else None


def stage_window(slo: SLOSpec) -> str:
    """The window of the SLO rules' first stage: the shortest window an alert reads."""
    return slo_windows(slo)[0]
