"""Metric flavors: whose metric names the generated dashboards and rules query.

The ``servescope`` flavor queries the catalog as is. Another flavor (``vllm``) maps catalog
entries to its own metric families; an entry it has no metric for maps to None, and the panel
built on it says so in its description.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from servescope.instrumentation import catalog as cat
from servescope.instrumentation.catalog import MetricSpec

__all__ = ["FLAVORS", "SERVESCOPE", "Flavor", "get_flavor"]


@dataclass(frozen=True)
class Flavor:
    name: str
    tag: str
    uid_prefix: str
    title_prefix: str
    presence_series: str  # a series every healthy target exposes (drives the variables)
    model_series: tuple[str, str]  # (series, label) listing the models served
    mapping: Callable[[MetricSpec], MetricSpec | None] = field(default=lambda s: s)
    rename: Mapping[str, str] = field(default_factory=dict)
    #: label values of finish reasons in this flavor (catalog value -> flavor value)
    finish_reasons: Mapping[str, str] = field(default_factory=dict)

    def metric(self, spec: MetricSpec) -> MetricSpec | None:
        return self.mapping(spec)

    def reason(self, value: str) -> str:
        return self.finish_reasons.get(value, value)


SERVESCOPE = Flavor(
    name="servescope", tag="servescope", uid_prefix="", title_prefix="servescope / ",
    presence_series=cat.SPANS_EXPORTED.sample_name,
    model_series=(cat.ARRIVED.sample_name, cat.MODEL),
)

FLAVORS: dict[str, Flavor] = {SERVESCOPE.name: SERVESCOPE}


def get_flavor(name: str) -> Flavor:
    try:
        return FLAVORS[name]
    except KeyError:
        raise ValueError(f"flavor: unknown value {name!r} (known: {', '.join(FLAVORS)})") \
            from None
