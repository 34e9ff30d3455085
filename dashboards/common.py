"""What every generated dashboard shares: the context, the variables and the links."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from servescope.instrumentation import catalog as cat
from servescope.instrumentation.slo import SLOSpec
from servescope.promql.flavor import Flavor
from servescope.promql.query import Query

from .panels import DATASOURCE
from .sdk import db, dm

__all__ = ["TAG", "UIDS", "Ctx", "dashboard_links", "variables"]

TAG = "servescope"

#: Stable uids: links between dashboards and bookmarks survive regeneration.
UIDS = {
    "overview": "servescope-overview",
    "latency": "servescope-latency",
    "capacity": "servescope-capacity",
    "transport": "servescope-transport",
    "pipeline": "servescope-pipeline",
}


@dataclass(frozen=True)
class Ctx:
    """The inputs of a dashboard: the SLO spec, the metric flavor, and the query scope."""

    slo: SLOSpec
    flavor: Flavor
    q: Query = field(default_factory=Query)

    @staticmethod
    def for_dashboards(slo: SLOSpec, flavor: Flavor, *, recorded: bool = True) -> Ctx:
        """Fleet rates read the replica rules' recordings (``recorded``), per-instance ones
        the raw series."""
        matchers = {"job": '=~"$job"', "instance": '=~"$instance"', cat.MODEL: '=~"$model"'}
        gateway = '=~"$gateway"' if flavor.gateway is not None else None
        return Ctx(slo, flavor, Query(matchers, "$__rate_interval", flavor, gateway,
                                      recorded=recorded))

    def uid(self, key: str) -> str:
        return self.flavor.uid_prefix + UIDS[key]

    def title(self, text: str) -> str:
        return f"{self.flavor.title_prefix}{text}"


def _query_variable(name: str, label: str, query: str, description: str,
                    all_value: str | None = ".*") -> Any:
    """A multi-value variable; ``all_value`` None: no All option, so Grafana selects the
    first value until the user picks others."""
    variable = (db.QueryVariable(name).label(label).description(description)
                .datasource(DATASOURCE).query(query)
                .refresh(dm.VariableRefresh.ON_TIME_RANGE_CHANGED)
                .sort(dm.VariableSort.ALPHABETICAL_ASC).multi(True))
    if all_value is None:
        return variable.include_all(False)
    return variable.include_all(True).all_value(all_value)


def variables(ctx: Ctx) -> list[Any]:
    """datasource, job, instance and model: the variables of every dashboard."""
    presence = ctx.flavor.presence_series
    model_series, model_label = ctx.flavor.model_series
    return [*_engine_variables(presence, model_series, model_label),
            *_gateway_variables(ctx.flavor)]


def _gateway_variables(flavor: Flavor) -> list[Any]:
    """The scrape job(s) of the gateway whose catalog series fill what the engine lacks."""
    if flavor.gateway is None:
        return []
    regex = f"{flavor.gateway}.*"
    return [_query_variable(
        "gateway", "gateway",
        f'label_values({cat.ARRIVED.sample_name}{{job=~"{regex}"}}, job)',
        "Scrape job(s) of the servescope gateway in front of these servers: its client-side "
        "series fill the panels the engine has no metric for.", all_value=regex)]


def _engine_variables(presence: str, model_series: str, model_label: str) -> list[Any]:
    return [
        db.DatasourceVariable("datasource").label("Data source").type("prometheus")
        .description("The Prometheus that scrapes the inference servers."),
        _query_variable("job", "job", f"label_values({presence}, job)",
                        "Scrape job(s) of the inference servers."),
        # No All: every fleet panel adds up the replicas whatever is selected, and only the
        # per-replica drill-downs read $instance, over the raw series; at fleet scale All
        # would make each of them read every replica's (the picker can still select all).
        _query_variable("instance", "instance",
                        f'label_values({presence}{{job=~"$job"}}, instance)',
                        "Replica(s) the per-replica panels drill into (the first one until "
                        "others are picked); fleet panels add up every replica regardless.",
                        all_value=None),
        _query_variable("model", "model",
                        f'label_values({model_series}{{job=~"$job"}}, {model_label})',
                        "Model(s) served."),
    ]


def dashboard_links(ctx: Ctx) -> list[Any]:
    """One dropdown linking the pack's dashboards, keeping time range and variables."""
    return [db.DashboardLink("servescope").type(dm.DashboardLinkType.DASHBOARDS)
            .tags([ctx.flavor.tag]).as_dropdown(True).include_vars(True).keep_time(True)]
