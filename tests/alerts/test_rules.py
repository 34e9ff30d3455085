"""The generated rules: promtool-valid, unit-tested firing and silent, catalog-only, documented."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from servescope.alerts import diagnostics, slo_rules
from servescope.alerts.model import Alert, Options, Record, default_runbook_base, slug
from servescope.alerts.render import all_rules, render
from servescope.dashboards import lint
from servescope.instrumentation import catalog as cat
from servescope.instrumentation.slo import SLOSpec, parse_slo
from servescope.promql.flavor import FLAVORS, GATEWAY_JOB
from servescope.promql.query import series_in

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "alerts" / "generated" / "servescope"
RULES, TESTS = GENERATED / "rules.yaml", GENERATED / "rules_test.yaml"
PROMTOOL = shutil.which("promtool")
needs_promtool = pytest.mark.skipif(PROMTOOL is None, reason="needs promtool (Debian prometheus)")


def promtool(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    assert PROMTOOL is not None
    return subprocess.run([PROMTOOL, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, check=False)


def rules_doc() -> dict:
    return yaml.safe_load(RULES.read_text())


def alerts() -> list[dict]:
    return [r for g in rules_doc()["groups"] for r in g["rules"] if "alert" in r]


@needs_promtool
def test_promtool_check_rules() -> None:
    result = promtool("check", "rules", RULES.name, cwd=GENERATED)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"SUCCESS: {len(all_rules(SLOSpec.default()))} rules found" in result.stdout
    assert len(all_rules(SLOSpec.default())) == 110  # 32 of them the dashboards' recordings


@needs_promtool
def test_promtool_unit_tests_pass() -> None:
    result = promtool("test", "rules", TESTS.name, cwd=GENERATED)
    assert result.returncode == 0, result.stdout + result.stderr


def test_unit_tests_cover_every_alert_firing_and_silent() -> None:
    tests = yaml.safe_load(TESTS.read_text())["tests"]
    fired: set[str] = set()
    silent: set[str] = set()
    for test in tests:
        for case in test["alert_rule_test"]:
            (fired if case["exp_alerts"] else silent).add(case["alertname"])
    names = {a["alert"] for a in alerts()}
    assert len(names) == 30
    assert fired == names and silent == names


def test_unit_tests_check_every_recording_rule_value() -> None:
    tests = yaml.safe_load(TESTS.read_text())["tests"]
    checked = {re.match(r"[^{]+", c["expr"]).group(0)
               for t in tests for c in t.get("promql_expr_test", [])}
    recorded = {r["record"] for g in rules_doc()["groups"] for r in g["rules"] if "record" in r}
    missing = recorded - checked
    # deriv()/preemption records are read only through the alerts that use them
    assert missing <= {f"{diagnostics.RECORDS['preempt']}5m"}, missing


@needs_promtool
def test_unit_tests_fail_when_the_le_matcher_breaks(tmp_path) -> None:
    """The tests can fail: an exact le="2.0" matcher breaks the Go-style exposition case."""
    text = RULES.read_text().replace('le=~"2(\\\\.0)?"', 'le="2.0"')
    assert text != RULES.read_text()
    (tmp_path / RULES.name).write_text(text)
    shutil.copy(TESTS, tmp_path / TESTS.name)
    result = promtool("test", "rules", TESTS.name, cwd=tmp_path)
    assert result.returncode != 0
    # only the Go-style scenario (le="2") loses its SLI series
    output = result.stdout + result.stderr
    assert 'slo="ttft"} 0E+00' in output and "got: nil" in output


@needs_promtool
def test_unit_tests_fail_when_a_threshold_moves(tmp_path) -> None:
    text = RULES.read_text().replace("> 0.1\n", "> 0.3\n")
    (tmp_path / RULES.name).write_text(text)
    shutil.copy(TESTS, tmp_path / TESTS.name)
    result = promtool("test", "rules", TESTS.name, cwd=tmp_path)
    assert result.returncode != 0
    assert "ServescopeTokensDiscarded" in result.stdout + result.stderr


def test_every_alert_is_documented() -> None:
    runbooks = (ROOT / "alerts" / "runbooks.md").read_text()
    anchors = {slug(h) for h in re.findall(r"^## (.+)$", runbooks, re.M)}
    for alert in alerts():
        labels, notes = alert["labels"], alert["annotations"]
        assert labels["severity"] in ("page", "ticket")
        assert (notes["summary"] and "{{ $" in notes["description"]) or \
            alert["alert"] == "ServescopeTargetsMissing"
        url = notes["runbook_url"]
        # the shipped rules link to the published repository at the released tag
        assert url.startswith(default_runbook_base(ROOT) + "#"), url
        assert url.startswith("https://"), url
        assert url.split("#", 1)[1] in anchors, url


def test_runbooks_point_at_panels_that_exist() -> None:
    titles = {}
    for path in (ROOT / "dashboards" / "generated" / "servescope").glob("*.json"):
        board = json.loads(path.read_text())
        name = board["title"].split(" / ", 1)[1]
        titles[name] = {p["title"] for p in lint.panels(board)}
    text = re.sub(r"\s+", " ", (ROOT / "alerts" / "runbooks.md").read_text())
    refs = re.findall(r"\*\*([^*›]+) › ([^*]+)\*\*", text)
    assert len(refs) > 30
    for board, panel in refs:
        assert panel.strip() in titles[board.strip()], f"{board} › {panel}"
    sections = re.split(r"^## ", (ROOT / "alerts" / "runbooks.md").read_text(), flags=re.M)[1:]
    for section in sections:
        assert " › " in section, f"runbook {section.splitlines()[0]} names no panel"


def test_rules_name_only_catalog_series() -> None:
    recorded = [r["record"] for g in rules_doc()["groups"] for r in g["rules"] if "record" in r]
    exprs = [r["expr"] for g in rules_doc()["groups"] for r in g["rules"]]
    assert lint.series_errors(exprs, recorded) == []
    assert lint.series_errors(["sum(rate(gen_ai_nope_seconds_count{}[5m]))"], recorded)
    names = set().union(*(series_in(e) for e in exprs))
    assert "gen_ai_server_time_to_first_token_seconds_bucket" in names


def test_burn_windows_follow_the_spec_period() -> None:
    spec = parse_slo("version: 1\nperiod: 7d\nttft: {threshold_seconds: 1.5, target: 0.95}\n"
                     "tpot: {threshold_seconds: 0.05, target: 0.9}\n")
    rules = all_rules(spec)
    windows = {w for aw in spec.alert_windows for w in (aw.long, aw.short)}
    records = {r.record for r in rules if isinstance(r, Record)}
    for window in windows:
        assert f"{slo_rules.SLI_RECORD}{window}" in records
    page = next(r for r in rules if isinstance(r, Alert)
                and r.alert == "ServescopeTTFTBudgetBurnPage")
    assert "(14.4 * 0.05)" in page.expr and 'le=~"1\\\\.5"' in \
        next(r.expr for r in rules if isinstance(r, Record) and r.labels.get("slo") == "ttft")
    assert spec.alert_windows[0].long in page.expr


@needs_promtool
def test_rules_for_another_spec_pass_their_own_unit_tests(tmp_path) -> None:
    spec = parse_slo("version: 1\nperiod: 7d\nttft: {threshold_seconds: 1.5, target: 0.95}\n"
                     "tpot: {threshold_seconds: 0.05, target: 0.9}\n"
                     "availability: {target: 0.99, bad_finish_reasons: [error]}\n")
    for rel, text in render(spec, Options(job_regex="servescope")).items():
        (tmp_path / Path(rel).name).write_text(text)
    result = promtool("test", "rules", "rules_test.yaml", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_committed_rules_match_default_spec() -> None:
    assert render(SLOSpec.default())[f"alerts/generated/servescope/{RULES.name}"] == \
        RULES.read_text()


# --- engine flavors: the same rules over each engine's metric names ------------------------
ENGINE_LEFT_OUT = {
    # no discarded-token, span-pipeline, per-step forward time or batch metric (the stream
    # TTFT of the transport cause comes from the gateway in front of it)
    "vllm": {"ServescopeSlowConsumersWastingCompute", "ServescopeTokensDiscarded",
             "ServescopeTelemetryDroppingSpans",
             "ServescopeTTFTBurnPrefillCompute", "ServescopeTPOTBurnPrefillInterference",
             "ServescopeTPOTBurnBatchGrowth",
             # the engine-process monitor is ours (vLLM's engine core has its own)
             "ServescopeEngineRestarting", "ServescopeEngineCrashLooping",
             "ServescopeEngineStalled"},
}


@needs_promtool
@pytest.mark.parametrize("flavor", ["vllm", "sglang", "tgi", "llamacpp"])
def test_engine_rules_pass_promtool_check_and_their_unit_tests(flavor: str) -> None:
    folder = ROOT / "alerts" / "generated" / flavor
    check = promtool("check", "rules", "rules.yaml", cwd=folder)
    assert check.returncode == 0, check.stdout + check.stderr
    test = promtool("test", "rules", "rules_test.yaml", cwd=folder)
    assert test.returncode == 0, test.stdout + test.stderr


@pytest.mark.parametrize("flavor", ["vllm", "sglang", "tgi", "llamacpp"])
def test_engine_rules_read_engine_series_only_and_cover_every_alert(flavor: str) -> None:
    chosen = FLAVORS[flavor]
    folder = ROOT / "alerts" / "generated" / flavor
    doc = yaml.safe_load((folder / "rules.yaml").read_text())
    rules = [r for g in doc["groups"] for r in g["rules"]]
    recorded = [r["record"] for r in rules if "record" in r]
    exprs = [r["expr"] for r in rules]
    assert lint.series_errors(exprs, recorded, flavor=chosen) == []
    # the engine's series, and the gateway's (on its job) for the transport cause: its stream
    # TTFT, and its server TTFT where the engine has none
    text = "\n".join(exprs)
    gateway = {s for s in series_in(text) - set(recorded)
               if f'{s}{{job=~"{GATEWAY_JOB}"' in text}
    assert gateway <= set(cat.series_names(cat.STREAM_TTFT)) | set(
        cat.series_names(cat.SERVER_TTFT))
    names = set().union(*(series_in(e) for e in exprs)) - set(recorded) - {"up"} - gateway
    prefix = "tgi_" if flavor == "tgi" else f"{flavor}:"
    assert names and all(n.startswith(prefix) for n in names), names
    alert_names = {r["alert"] for r in rules if "alert" in r}
    if flavor in ENGINE_LEFT_OUT:
        assert alert_names == {a["alert"] for a in alerts()} - ENGINE_LEFT_OUT[flavor]
    tests = yaml.safe_load((folder / "rules_test.yaml").read_text())["tests"]
    fired = {c["alertname"] for t in tests for c in t["alert_rule_test"] if c["exp_alerts"]}
    silent = {c["alertname"] for t in tests for c in t["alert_rule_test"] if not c["exp_alerts"]}
    assert fired == silent == alert_names
    assert f'up{{job=~"{flavor}"}}' in "\n".join(exprs)


def test_vllm_rules_use_vllm_names_and_buckets() -> None:
    text = (ROOT / "alerts" / "generated" / "vllm" / "rules.yaml").read_text()
    assert 'finished_reason="abort"' in text  # client cancels are vLLM aborts
    assert 'vllm:time_to_first_token_seconds_bucket{le=~"1(\\\\.0)?"}' in text  # 2 s -> 1 s
    assert "vllm:request_time_per_output_token_seconds_bucket" in text


def test_sglang_and_tgi_rules_leave_out_what_the_engine_cannot_count() -> None:
    sglang = (ROOT / "alerts" / "generated" / "sglang" / "rules.yaml").read_text()
    assert 'slo="availability"' not in sglang  # SGLang counts no worker errors
    assert "sglang:num_aborted_requests_total" in sglang  # cancels: aborts / requests
    tgi = (ROOT / "alerts" / "generated" / "tgi" / "rules.yaml").read_text()
    assert 'slo="ttft"' not in tgi  # TGI has no time to first token
    assert 'tgi_request_failure{err=~"generation|dropped|incomplete"}' in tgi


# --- the cause matrix: each cause alone fires its alert, every other stays silent ----------
CAUSE_ALERTS = set(diagnostics.CAUSES.values())


@pytest.mark.parametrize("flavor", ["servescope", "vllm", "sglang", "tgi", "llamacpp"])
def test_each_cause_scenario_fires_exactly_one_cause_alert(flavor: str) -> None:
    tests = yaml.safe_load(
        (ROOT / "alerts" / "generated" / flavor / "rules_test.yaml").read_text())["tests"]
    shipped = {c["alertname"] for t in tests for c in t["alert_rule_test"]}
    matrix = [t for t in tests if "cause" in t["name"] or "transport" in t["name"]]
    assert len(matrix) == (12 if flavor == "servescope" else 11)  # (queue_full: ours only)
    covered = set()
    for test in matrix:
        fired = {c["alertname"] for c in test["alert_rule_test"] if c["exp_alerts"]}
        causes = fired & CAUSE_ALERTS
        silent = {c["alertname"] for c in test["alert_rule_test"] if not c["exp_alerts"]}
        assert len(causes) <= 1, (test["name"], causes)
        assert (CAUSE_ALERTS & shipped) - causes <= silent
        covered |= causes
    # every cause alert the flavor ships has a scenario where it alone fires
    assert covered == CAUSE_ALERTS & shipped
    if flavor == "servescope":
        assert covered == CAUSE_ALERTS


def test_cause_rules_fail_their_tests_when_a_cause_condition_breaks(tmp_path) -> None:
    """The matrix can fail: a prefix-miss rule that compares the wrong way round fires in the
    wrong scenarios and misses its own."""
    if PROMTOOL is None:
        pytest.skip("needs promtool (Debian prometheus)")
    rules = (GENERATED / "rules.yaml").read_text()
    broken = rules.replace("servescope_instance:prefix_cache_hits:ratio_rate5m < 0.5 *",
                           "servescope_instance:prefix_cache_hits:ratio_rate5m > 0.5 *")
    assert broken != rules
    (tmp_path / "rules.yaml").write_text(broken)
    shutil.copy(TESTS, tmp_path / TESTS.name)
    result = promtool("test", "rules", TESTS.name, cwd=tmp_path)
    assert result.returncode != 0
    assert "ServescopeTTFTBurnPrefixMiss" in result.stdout + result.stderr


@pytest.mark.parametrize("flavor", ["vllm", "sglang"])
def test_the_transport_cause_pairs_a_gateway_with_the_engine_in_its_pod(flavor: str) -> None:
    """Pod b's engine burning does not hide pod a's late first tokens (promtool runs it)."""
    tests = yaml.safe_load(
        (ROOT / "alerts" / "generated" / flavor / "rules_test.yaml").read_text())["tests"]
    [paired] = [t for t in tests if t["name"].startswith("pod a:")]
    transport = diagnostics.CAUSES[("stream_ttft", "transport")]
    [check] = [c for c in paired["alert_rule_test"] if c["alertname"] == transport]
    assert [a["exp_labels"]["pod"] for a in check["exp_alerts"]] == ["a"]
    rules = (ROOT / "alerts" / "generated" / flavor / "replica-rules.yaml").read_text()
    assert "unless on (pod)" in rules
