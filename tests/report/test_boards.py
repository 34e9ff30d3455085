"""Reading the generated dashboards generically, Grafana's variables, units (no Prometheus)."""

from __future__ import annotations

import json
import math

import pytest

from servescope.dashboards import lint
from servescope.report import TimeRange, available_flavors, generated_dir, load_boards
from servescope.report.boards import substitute
from servescope.report.evaluate import evaluate_panel, legend, series_names
from servescope.report.prometheus import parse_duration
from servescope.report.units import format_value


@pytest.mark.parametrize("flavor", available_flavors())
def test_every_panel_and_target_of_every_flavor_is_read(flavor: str) -> None:
    boards = load_boards(generated_dir(flavor))
    assert [b.path.stem for b in boards][:2] == ["overview", "latency"]
    for board in boards:
        doc = json.loads(board.path.read_text())
        assert [p.title for p in board.panels] == [p["title"] for p in lint.panels(doc)]
        assert [t.expr for p in board.panels for t in p.targets] == \
            [expr for _, expr in lint.targets(doc) if expr]
        assert all(p.unit for p in board.panels)


@pytest.mark.parametrize("flavor", available_flavors())
def test_every_query_of_every_flavor_takes_the_cli_variables_and_the_boards_all_values(
        flavor: str) -> None:
    """The CLI names $job, $instance, $model (and $gateway when given); any other variable
    a board has takes its "All" value, as Grafana shows it: the engine flavors' $gateway
    panels were each an 'unknown dashboard variable' error."""
    from servescope.report.evaluate import evaluate_board

    class NoData:  # a Prometheus that holds nothing: only the queries' own words matter here
        def query(self, expr: str, at: float) -> list[object]:
            return []

        def query_range(self, *args: object, **kwargs: object) -> list[object]:
            return []

        def exemplars(self, *args: object, **kwargs: object) -> list[object]:
            return []

    window = TimeRange.ending(0, 3600, scrape_interval_s=15)
    cli = {"job": ".*", "instance": ".*", "model": ".*", "datasource": "prometheus"}
    for board in load_boards(generated_dir(flavor)):
        result = evaluate_board(NoData(), board, window, cli, set())  # type: ignore[arg-type]
        assert [e for p in result.panels for e in p.errors] == []
        assert all("$" not in q for p in result.panels for q in p.queries)
    if flavor != "servescope":
        boards = load_boards(generated_dir(flavor))
        assert boards[0].all_values["gateway"] == "servescope-gateway.*"


def test_flavor_without_a_metric_explains_the_empty_panel() -> None:
    boards = load_boards(generated_dir("vllm"))
    empty = [p for b in boards for p in b.panels if not p.targets]
    assert empty
    for panel in empty:  # no query at all: nothing is asked of Prometheus
        result = evaluate_panel(None, panel, TimeRange(0, 60, 1, 1), {}, set())  # type: ignore[arg-type]
        assert "vLLM exposes no metric for" in result.empty_reason
        assert not result.has_data


def test_grafana_variables_follow_grafana() -> None:
    hour = TimeRange.ending(0, 3600, scrape_interval_s=1)
    assert hour.step_s == 15 and hour.rate_interval_s == 16  # interval + scrape
    short = TimeRange.ending(0, 60, scrape_interval_s=1)
    assert short.step_s == 1 and short.rate_interval_s == 4  # 4 x scrape
    expr = 'sum(rate(x{job=~"$job",le=~"2(\\\\.0)?"}[$__rate_interval])) / ${__range_s}'
    assert substitute(expr, short, {"job": "a.*"}) == \
        'sum(rate(x{job=~"a.*",le=~"2(\\\\.0)?"}[4s])) / 60'
    assert substitute("increase(x[$__range])", hour, {}) == "increase(x[3600s])"
    with pytest.raises(ValueError, match=r"\$tenant"):
        substitute('x{tenant="$tenant"}', short, {})
    with pytest.raises(ValueError, match="end after"):
        TimeRange.ending(10, 10, 1)


def test_durations_units_legends_and_series_names() -> None:
    assert parse_duration("1h30m") == 5400 and parse_duration("250ms") == 0.25
    with pytest.raises(ValueError, match="not a duration"):
        parse_duration("ten")
    assert format_value(0.0123, "s") == "12.3 ms"
    assert format_value(2.0, "s") == "2 s"
    assert format_value(0.99512, "percentunit", 2) == "99.51%"
    assert format_value(1500, "reqps") == "1.5k req/s"
    assert format_value(14.4, "suffix:x") == "14.4x"
    assert format_value(math.nan, "s") == "NaN"
    from servescope.report.boards import Target

    target = Target("e", "{{finish_reason}} on {{instance}}", "A", False, False, False)
    assert legend(target, {"finish_reason": "stop", "instance": "h:1"}) == "stop on h:1"
    assert series_names('histogram_quantile(0.9, sum by (le) (rate(a_bucket{x="1"}[1m])))'
                        ' / on() b{y="2"}') == ["a_bucket", "b"]


def test_the_worker_never_imports_the_report() -> None:
    """Arrows point one way: the command layer joins the demo and the report."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "reference"
    offenders = []
    for path in sorted(root.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            offenders += [f"{path.name}: {n}" for n in names
                          if n.startswith(("servescope.report", "matplotlib"))]
    assert offenders == []


def test_exemplars_are_thinned_evenly_keeping_the_slowest() -> None:
    from servescope.report.evaluate import Exemplar, thin_exemplars

    many = [Exemplar(float(t), 0.01 * (t % 7), f"{t:032x}", {}) for t in range(5000)]
    many[1234] = Exemplar(1234.0, 9.0, "slowest", {})
    kept = thin_exemplars(many, 300)
    assert len(kept) == 300
    assert any(e.trace_id == "slowest" for e in kept)
    times = [e.time for e in kept]
    assert times == sorted(times) and times[0] < 100 and times[-1] > 4800  # the whole range
    assert thin_exemplars(many[:10], 300) == many[:10]
