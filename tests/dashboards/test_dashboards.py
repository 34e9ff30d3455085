"""The committed dashboards: schema-valid, conventional, catalog-only, complete, fresh."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import jsonschema
import pytest
from vendored import schemas_dir

from servescope.alerts.dashboard_rules import GROUPS
from servescope.alerts.model import Options, Record
from servescope.alerts.rules import rule_groups
from servescope.cli import main
from servescope.dashboards import lint
from servescope.dashboards.common import UIDS
from servescope.dashboards.panels import NO_METRIC
from servescope.dashboards.render import dashboards
from servescope.instrumentation import catalog as cat
from servescope.instrumentation.slo import SLOSpec, parse_slo
from servescope.promql.flavor import FLAVORS, SERVESCOPE, VLLM, Flavor
from servescope.promql.recorded import RECORD_PREFIX, WINDOW

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "dashboards" / "generated"
SCHEMA = json.loads((schemas_dir() / "grafana-dashboard.jsonschema.json").read_text())


def committed(flavor: str = "servescope") -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text())
            for p in sorted((GENERATED / flavor).glob("*.json"))}


def recordings(flavor: Flavor = SERVESCOPE) -> dict[str, list[str]]:
    """Record name -> the expressions of the flavor's rules that record it."""
    out: dict[str, list[str]] = {}
    for group in rule_groups(SLOSpec.default(), Options(flavor=flavor)):
        for rule in group.rules:
            if isinstance(rule, Record):
                out.setdefault(rule.record, []).append(rule.expr)
    return out


@pytest.mark.parametrize("flavor", sorted(FLAVORS))
def test_every_dashboard_is_committed(flavor: str) -> None:
    assert set(committed(flavor)) == set(UIDS)


@pytest.mark.parametrize("flavor", sorted(FLAVORS))
@pytest.mark.parametrize("key", sorted(UIDS))
def test_dashboard_validates_against_grafana_schema(key: str, flavor: str) -> None:
    validator = jsonschema.Draft7Validator(SCHEMA)
    errors = [f"{list(e.absolute_path)}: {e.message}"
              for e in validator.iter_errors(committed(flavor)[key])]
    assert errors == []


def test_schema_rejects_a_broken_dashboard() -> None:
    broken = committed()["overview"]
    broken["panels"][1]["gridPos"] = {"h": "tall"}
    assert list(jsonschema.Draft7Validator(SCHEMA).iter_errors(broken))


@pytest.mark.parametrize("flavor", sorted(FLAVORS))
@pytest.mark.parametrize("key", sorted(UIDS))
def test_conventions(key: str, flavor: str) -> None:
    board = committed(flavor)[key]
    assert lint.convention_errors(board) == []
    assert board["uid"] == FLAVORS[flavor].uid_prefix + UIDS[key]
    assert board["graphTooltip"] == 1  # shared crosshair: one time axis across panels
    ids = [p["id"] for p in board["panels"]]
    assert len(ids) == len(set(ids))
    # every row expanded, every panel once at the top level (as Grafana stores them)
    rows = [p for p in board["panels"] if p["type"] == "row"]
    assert rows and all(r["collapsed"] is False and r["panels"] == [] for r in rows)
    assert len(list(lint.panels(board))) == len(board["panels"]) - len(rows)


def test_lint_catches_convention_breaks() -> None:
    board = committed()["overview"]
    panel = next(lint.panels(board))
    panel["description"] = ""
    panel["fieldConfig"]["defaults"].pop("unit")
    panel["targets"][0]["expr"] = f"{cat.ARRIVED.sample_name}{{}}"
    board["panels"].append({"type": "timeseries", "title": "raw rate", "description": "d",
                            "datasource": {"uid": "${datasource}"},
                            "fieldConfig": {"defaults": {"unit": "s"}},
                            "targets": [{"expr": f"rate({cat.TOKENS.sample_name}{{}}[5m])"}]})
    errors = "\n".join(lint.convention_errors(board))
    assert "no description" in errors and "no unit" in errors
    assert "outside rate/increase" in errors
    assert "not inside an aggregation" in errors and "not $__rate_interval" in errors


def test_every_series_is_in_the_catalog() -> None:
    exprs = [e for board in committed().values() for _, e in lint.targets(board)]
    exprs += [v["query"] for board in committed().values()
              for v in board["templating"]["list"] if v["type"] == "query"]
    assert lint.series_errors(exprs, recordings()) == []
    assert lint.series_errors(["sum(rate(servescope_not_a_metric_total{}[5m]))"])
    # a record is checked through its rule: one reading a series nothing writes fails
    assert lint.series_errors(["sum(servescope_job:x:rate1m{})"],
                              {"servescope_job:x:rate1m": ["sum(rate(nope_total{}[1m]))"]})
    assert lint.series_errors(["sum(servescope_job:unrecorded:rate1m{})"], recordings())


def _raw_rated(expr: str) -> set[str]:
    """Counter and histogram series an expression reads raw (a gateway's own excepted)."""
    engine = re.sub(r'[A-Za-z_:]+\{job=~"\$gateway"[^}]*\}', "", expr)
    return set(lint.SELECTOR.findall(engine)) & lint.rated_series()


@pytest.mark.parametrize("flavor", sorted(FLAVORS))
def test_fleet_panels_read_recorded_series(flavor: str) -> None:
    """Raw counters and histograms remain only on per-replica drill-downs: panels by
    instance, and the heatmaps of the selected replicas (their exemplars live on the raw
    buckets); every other panel, fleet heatmaps included, sums recordings."""
    raw = []
    for key, board in committed(flavor).items():
        for panel, expr in lint.targets(board):
            if "by (instance" in expr or (panel["title"].endswith(", per replica")
                                          and 'instance=~"$instance"' in expr):
                continue
            if _raw_rated(expr):
                raw.append(f"{key} › {panel['title']}: {sorted(_raw_rated(expr))}")
    assert raw == []


@pytest.mark.parametrize("flavor", sorted(FLAVORS))
def test_every_recording_a_panel_reads_is_recorded(flavor: str) -> None:
    records = recordings(FLAVORS[flavor])
    read = {n for board in committed(flavor).values() for _, e in lint.targets(board)
            for n in lint.SELECTOR.findall(e) if n.startswith(("servescope_job:", "servescope:"))}
    assert read and read <= set(records), read - set(records)


def test_every_dashboard_recording_is_read_by_a_panel() -> None:
    """No recording is evaluated for nothing: each one a servescope panel reads."""
    recorded = {r.record for g in rule_groups(SLOSpec.default(), Options())
                if g.name in GROUPS.values() for r in g.rules if isinstance(r, Record)}
    assert recorded and all(n.startswith(RECORD_PREFIX) and n.endswith(f":rate{WINDOW}")
                            for n in recorded)
    text = "\n".join(e for board in committed().values() for _, e in lint.targets(board))
    assert sorted(n for n in recorded if f"{n}{{" not in text) == []


def test_raw_dashboards_read_no_recording() -> None:
    """The benchmark's baseline: ``recorded=False`` puts every query back on raw series."""
    for board in dashboards(SLOSpec.default(), SERVESCOPE, recorded=False).values():
        for _, expr in lint.targets(board):
            assert not [n for n in lint.SELECTOR.findall(expr) if ":" in n], expr


def test_every_catalog_family_is_on_a_dashboard() -> None:
    text = "\n".join(e for board in committed().values() for _, e in lint.targets(board))
    missing = [spec.name for spec in cat.CATALOG if spec.name not in text]
    assert missing == []


def test_five_token_counts_each_name_their_numerator_on_the_axis() -> None:
    transport = committed()["transport"]
    labels = {p["fieldConfig"]["defaults"]["custom"].get("axisLabel")
              for p in lint.panels(transport)}
    for stage in ("prompt", "proposed", "committed", "delivered", "discarded"):
        assert f"{stage} tokens/s" in labels


def _row_of(board: dict, title: str) -> int:
    panel = next(p for p in lint.panels(board) if p["title"] == title)
    return int(panel["gridPos"]["y"])


def test_panels_that_explain_each_other_sit_side_by_side() -> None:
    overview = committed()["overview"]
    assert _row_of(overview, "TTFT p95") == _row_of(overview, "Queue depth") \
        == _row_of(overview, "KV-cache usage")
    assert _row_of(overview, "Finish reasons (cut short)") == \
        _row_of(overview, "Paused by backpressure")


def test_heatmaps_query_exemplars_where_the_raw_buckets_are() -> None:
    """Fleet heatmaps read recordings (no exemplars there); the per-replica ones read the
    raw buckets of the replicas $instance selects and query their exemplars."""
    heatmaps = [p for b in committed().values() for p in lint.panels(b)
                if p["type"] == "heatmap"]
    replica = [p for p in heatmaps if p["title"].endswith(", per replica")]
    assert len(heatmaps) - len(replica) >= 4 and len(replica) >= 2
    for panel in heatmaps:
        target = panel["targets"][0]
        assert target["format"] == "heatmap" and "by (le)" in target["expr"]
        drill_down = panel in replica
        assert target.get("exemplar", False) is drill_down, panel["title"]
        assert ("servescope_job:" not in target["expr"]) is drill_down, panel["title"]
        assert ('instance=~"$instance"' in target["expr"]) is drill_down, panel["title"]


def test_the_instance_variable_has_no_all_option() -> None:
    """At fleet scale All would make every drill-down read every replica's raw series."""
    for board in committed().values():
        variables = {v["name"]: v for v in board["templating"]["list"]}
        assert variables["instance"]["includeAll"] is False
        assert variables["instance"]["multi"] is True
        assert variables["job"]["includeAll"] is True


def test_slo_thresholds_come_from_the_spec() -> None:
    spec = parse_slo("version: 1\nttft: {threshold_seconds: 1.5, target: 0.95}\n"
                     "tpot: {threshold_seconds: 0.05, target: 0.9}\n")
    overview = dashboards(spec, SERVESCOPE)["overview"]
    # the SLO panels read the SLO rules' events: the thresholds are in the rules' buckets
    assert "servescope_job:slo_bad:rate5m{" in json.dumps(overview)
    rules = "\n".join(r.expr for g in rule_groups(spec) for r in g.rules)
    raw = dashboards(spec, SERVESCOPE, recorded=False)["overview"]
    for exprs in (rules, "\n".join(e for _, e in lint.targets(raw))):
        assert 'le=~"1\\\\.5"' in exprs and 'le=~"0\\\\.05"' in exprs
        assert 'le=~"2(' not in exprs
    assert "(target 95.00%)" in json.dumps(overview)


def test_generation_is_deterministic() -> None:
    spec = SLOSpec.default()
    assert dashboards(spec, SERVESCOPE) == dashboards(spec, SERVESCOPE)


def test_generate_check_passes_on_the_committed_files(capsys) -> None:
    assert main(["generate", "--check", "--out", str(ROOT)]) == 0


def test_generate_check_fails_when_a_file_is_stale(tmp_path, capsys) -> None:
    for folder in ("dashboards/generated", "alerts/generated", "deploy/kubernetes", "collector",
                   "docs"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    assert main(["generate", "--check", "--out", str(tmp_path)]) == 0
    victim = tmp_path / "dashboards/generated/servescope/overview.json"
    victim.write_text(victim.read_text().replace("TTFT SLO attainment", "TTFT"))
    (tmp_path / "alerts/generated/servescope/leftover.yaml").write_text("x: 1\n")
    (tmp_path / "alerts/generated/vllm/rules.yaml").unlink()
    agent = tmp_path / "collector/agent.yaml"
    agent.write_text(agent.read_text().replace("limit_percentage: 80", "limit_percentage: 99"))
    assert main(["generate", "--check", "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "overview.json: differs" in err and "leftover.yaml: no longer generated" in err
    assert "alerts/generated/vllm/rules.yaml: missing" in err
    assert "collector/agent.yaml: differs" in err
    assert main(["generate", "--out", str(tmp_path)]) == 0
    (tmp_path / "alerts/generated/servescope/leftover.yaml").unlink()
    assert main(["generate", "--check", "--out", str(tmp_path)]) == 0


def test_generate_rejects_an_unknown_flavor(capsys) -> None:
    assert main(["generate", "--check", "--flavor", "nope"]) == 2
    assert "flavor: unknown value 'nope'" in capsys.readouterr().err


def test_vllm_dashboards_name_only_vllm_series() -> None:
    boards = committed("vllm")
    exprs = [e for board in boards.values() for _, e in lint.targets(board)]
    exprs += [v["query"] for board in boards.values()
              for v in board["templating"]["list"] if v["type"] == "query"]
    records = recordings(VLLM)
    assert lint.series_errors(exprs, records, flavor=VLLM) == []
    engine = [re.sub(r'[A-Za-z_:]+\{job=~"(\$gateway|servescope-gateway\.\*)"[^}]*\}', "", e)
              for e in exprs]
    names = set().union(*(lint.reads(e, records) for e in engine)) - lint.PROMETHEUS_SERIES
    assert names and all(n.startswith("vllm:") for n in names), names  # or the gateway's
    # what the panels read, and through the recordings they read, what their rules read
    text = "\n".join(exprs + [rule for e in exprs for n in lint.SELECTOR.findall(e)
                               for rule in records.get(n, ())])
    for wanted in ("vllm:time_to_first_token_seconds_bucket", "vllm:kv_cache_usage_perc",
                   "vllm:request_success_total", "model_name=~\"$model\"",
                   "by (finished_reason)"):
        assert wanted in text


def test_vllm_panels_without_a_metric_say_so() -> None:
    boards = committed("vllm")
    by_title = {p["title"]: p for b in boards.values() for p in lint.panels(b)}
    for title in ("Batch size", "KV blocks", "Engine restarts"):  # only a scheduler knows
        panel = by_title[title]
        assert not panel.get("targets") and "vLLM exposes no metric for this panel" in \
            panel["description"]
    for title in ("Goodput share", "In flight", "Paused requests", "Discarded / committed",
                  "Spans dropped"):  # client-side truth: the gateway's series, on its job
        exprs = [t["expr"] for t in by_title[title]["targets"]]
        assert exprs and all('job=~"$gateway"' in e for e in exprs), title
    flow = by_title["Request flow"]
    # vLLM counts admission rejections (vllm:admission_rejections): the flow shows them
    # beside the gateway's arrivals, admissions and deadlines
    flow_by = {t["legendFormat"]: t["expr"] for t in flow["targets"]}
    assert list(flow_by) == ["arrived", "admitted", "rejected", "cancelled", "errored",
                             "deadline"]
    assert "servescope_job:vllm_admission_rejections:rate1m" in flow_by["rejected"]
    assert 'finished_reason="abort"' in flow_by["cancelled"]
    assert all('job=~"$gateway"' in flow_by[k] for k in ("arrived", "admitted", "deadline"))
    assert NO_METRIC not in flow["description"]
    # the 2 s TTFT threshold is no vLLM bucket boundary: the SLI counts at 1 s and says so
    attainment = by_title["TTFT SLO attainment"]
    assert "servescope_job:slo_bad:rate5m{" in attainment["targets"][0]["expr"]
    assert any('le=~"1(\\\\.0)?"' in e for e in recordings(VLLM)["servescope_job:slo_bad:rate5m"])
    assert "no 2 s boundary: requests up to 1 s count as good" in attainment["description"]
    assert by_title["Finish reasons"]["targets"][0]["legendFormat"] == "{{finished_reason}}"


@pytest.mark.parametrize("name", sorted(FLAVORS))
def test_slo_panels_read_the_rules_own_job_as_the_burn_alerts_do(name: str) -> None:
    """The first stage records every job's events (a gateway in front of these servers,
    another flavor's engines in the same Prometheus): an SLO panel under $job's All added
    them in (each request through a gateway counted twice) while the alerts read the rules'
    job only. Every panel query over the first stage is held to that job too."""
    flavor, reads = FLAVORS[name], 0
    for board in committed(name).values():
        for panel, expr in lint.targets(board):
            for selector in re.findall(r"servescope_job:slo_(?:bad|all):rate\w+\{([^}]*)\}",
                                       expr):
                reads += 1
                assert f'job=~"{flavor.job_regex}"' in selector, (panel, expr)
    assert reads > 0 or name == "llamacpp"  # llama.cpp records no SLO of its own
