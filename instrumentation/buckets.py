"""Bucket ladders derived from the SLO spec: every threshold is exactly a boundary.

A ladder is the union of a coarse 1-2.5-5 scale over the family's range, each SLO threshold, and
points around each threshold (x0.8, x1.25) for resolution where it matters. Ladders are thinned
to at most ``MAX_BUCKETS`` by dropping the scale point closest (in log space) to a neighbour
(points around a threshold and the range's ends go last: 11 boundaries keep the series budget of
a replica under 600, see ``budget.py``). Two points a side (x0.5 and x2 as well) left the scale
one point a decade or less: a TTFT ladder with nothing between 25 ms and 250 ms, whose
interpolated p95 of an 80 ms population read 212 ms, above what every client measured.
Boundaries are whole milliseconds (or plain counts), so they render identically in every
exposition format (``le="1.0"``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from .catalog import Buckets
from .slo import SLOSpec

__all__ = ["MAX_BUCKETS", "derive_ladder", "ladders"]

MAX_BUCKETS = 11
_AROUND = (0.8, 1.25)

# (lowest, highest) boundary of each latency family, in seconds.
_RANGES: dict[Buckets, tuple[float, float]] = {
    Buckets.TTFT: (0.025, 60.0),
    Buckets.QUEUE: (0.005, 60.0),
    Buckets.TPOT: (0.005, 2.5),
    Buckets.E2E: (0.25, 600.0),
}
_BATCH = (1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0)
_RATIO = (0.1, 0.25, 0.5, 0.75, 0.9, 1.0)
_TOKENS = (1.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0, 1024.0, 4096.0)
# One step's forward time (seconds): a CPU toy step to a long prefill chunk on a GPU.
_STEP = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
# Tokens one step processes: powers of four up to a large batched-token budget (the panels
# show the mean per phase; a factor of 4 is enough for the p95).
_STEP_TOKENS = (1.0, 4.0, 16.0, 64.0, 256.0, 1024.0, 4096.0, 16384.0)


def _ms(x: float) -> float:
    """Round to whole milliseconds (the representable grid)."""
    return round(x * 1000) / 1000


def _scale(lo: float, hi: float) -> list[float]:
    points = []
    decade = 10.0 ** math.floor(math.log10(lo))
    while decade <= hi:
        points += [_ms(decade * m) for m in (1.0, 2.5, 5.0) if lo <= decade * m <= hi]
        decade *= 10
    return points


def derive_ladder(thresholds: Iterable[float], lo: float, hi: float,
                  max_buckets: int = MAX_BUCKETS) -> tuple[float, ...]:
    must = {_ms(t) for t in thresholds}
    near = {_ms(t * f) for t in must for f in _AROUND if lo <= t * f <= hi}
    points = sorted(must | near | set(_scale(lo, hi)))
    points = [p for p in points if p > 0]
    # Thinning drops scale points first: the points around each threshold give the quantiles
    # their resolution where the SLO is judged, and the end points keep the family's range.
    while len(points) > max_buckets:
        droppable = [i + 1 for i, p in enumerate(points[1:-1]) if p not in must | near] or \
            [i for i, p in enumerate(points) if p not in must]
        if not droppable:
            break
        def crowding(i: int) -> float:
            left = math.log(points[i] / points[i - 1]) if i > 0 else math.inf
            right = math.log(points[i + 1] / points[i]) if i + 1 < len(points) else math.inf
            return min(left, right)
        points.pop(min(droppable, key=crowding))
    return tuple(points)


def ladders(spec: SLOSpec) -> dict[Buckets, tuple[float, ...]]:
    """The bucket ladder of every family, derived from ``spec``."""
    e2e = spec.e2e.thresholds if spec.e2e else ()
    by_family = {
        Buckets.TTFT: spec.ttft.thresholds,
        Buckets.QUEUE: spec.ttft.thresholds,  # queue time is spent out of the TTFT budget
        Buckets.TPOT: spec.tpot.thresholds,
        Buckets.E2E: e2e,
    }
    out = {fam: derive_ladder(ts, *_RANGES[fam]) for fam, ts in by_family.items()}
    out[Buckets.BATCH] = _BATCH
    out[Buckets.RATIO] = _RATIO
    out[Buckets.TOKENS] = _TOKENS
    out[Buckets.STEP] = _STEP
    out[Buckets.STEP_TOKENS] = _STEP_TOKENS
    return out
