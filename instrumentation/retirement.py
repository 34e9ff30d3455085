"""Retiring label children: a model or adapter that stops being used stops exporting.

A server that serves adapters which come and go (a LoRA loaded for a day, then unloaded)
would otherwise export every one of them forever, and the first values to arrive would hold
their slots under the label cap for good. A model value none of whose series changed for
``idle_s``, with no request of it in flight, is retired: its children leave every family
(the next scrape no longer has them; Prometheus marks the series stale) and its slot under
the cap is freed.

Nothing of this runs on the hooks' path. Activity is read at scrape time (the metric set's
``collect``) by comparing each model's monotone totals (counter values, histogram counts)
with the previous scrape's: the hooks pay nothing. A retired child is parked, not dropped:
a write that raced the retirement through a reference taken before it (a request that
arrived while the scrape decided) lands on the parked child, and the next scrape puts it
back, its totals intact; asking for the child again revives it too. Parked children are
dropped for good after a second ``idle_s`` without a write.

The idle time is, like the OpenTelemetry SDK's settings, the argument, then the
``SERVESCOPE_LABEL_IDLE_S`` environment variable, then :data:`DEFAULT_IDLE_S`; ``0`` turns
retirement off. The telemetry's own served model is never retired.
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Iterable, Mapping

__all__ = ["DEFAULT_IDLE_S", "IDLE_ENV", "IdleModels", "idle_seconds"]

_log = logging.getLogger("servescope.instrumentation")

#: One hour: longer than any SLO alert's short window, so a model's last requests are read by
#: every rate before its series go.
DEFAULT_IDLE_S = 3600.0
IDLE_ENV = "SERVESCOPE_LABEL_IDLE_S"


def idle_seconds(argument: float | None = None) -> float | None:
    """The idle time after which a model's series retire (None: never): ``argument``, then
    ``SERVESCOPE_LABEL_IDLE_S``, then :data:`DEFAULT_IDLE_S`. An unreadable environment value
    is logged and the default used; an invalid argument raises (it is the caller's code)."""
    if argument is not None:
        if isinstance(argument, bool) or not isinstance(argument, int | float) \
                or not math.isfinite(argument) or argument < 0:
            raise ValueError(f"label_idle_s: must be a number of seconds >= 0 (0: never "
                             f"retire), got {argument!r}")
        return float(argument) or None
    raw = os.environ.get(IDLE_ENV, "").strip()
    if not raw:
        return DEFAULT_IDLE_S
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not math.isfinite(value) or value < 0:
        _log.warning("%s=%r is not a number of seconds >= 0; using %g", IDLE_ENV, raw,
                     DEFAULT_IDLE_S)
        return DEFAULT_IDLE_S
    return value or None


class IdleModels:
    """Which model values have been idle for ``idle_s``, judged from scrape to scrape.

    :meth:`observe` is given, per model value, a fingerprint of its totals (a number that
    grows with every write) and whether a request of it is in flight; a value whose
    fingerprint has not moved, with nothing in flight, since ``idle_s`` ago is idle. Not
    thread-safe: the metric set calls it under its sweep lock. Retired children stay parked
    for ``keep_s`` (default ``idle_s``) before they are dropped.
    """

    def __init__(self, idle_s: float, pinned: Iterable[str] = (),
                 keep_s: float | None = None) -> None:
        self.idle_s = idle_s
        self.pinned = frozenset(pinned)
        #: how long a retired child stays parked (revivable) before it is dropped
        self.keep_s = idle_s if keep_s is None else keep_s
        self._seen: dict[str, tuple[float, float]] = {}  # model -> (fingerprint, since)

    def observe(self, activity: Mapping[str, tuple[float, bool]], now: float) -> list[str]:
        """The model values to retire now."""
        idle: list[str] = []
        for model, (fingerprint, busy) in activity.items():
            seen = self._seen.get(model)
            if seen is None or busy or seen[0] != fingerprint:
                self._seen[model] = (fingerprint, now)
            elif now - seen[1] >= self.idle_s and model not in self.pinned:
                idle.append(model)
        for model in [m for m in self._seen if m not in activity or m in idle]:
            del self._seen[model]  # gone (or going): a return starts a fresh idle clock
        return idle
