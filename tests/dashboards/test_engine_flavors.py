"""The vllm, sglang, tgi and llamacpp flavors against each engine's real series
(tests/fixtures/engines).

Every series a flavor's dashboards and rules select must exist in the engine's fixture, with the
type the query assumes, every label the query matches or groups by, and label values the engine
really writes; each histogram's boundaries are the engine's; SLO thresholds that are not a
boundary count at the nearest boundary below and say so.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import engines
import pytest
import yaml

from servescope.alerts.model import Options, Record
from servescope.alerts.render import all_rules
from servescope.dashboards import lint
from servescope.dashboards.render import dashboards
from servescope.instrumentation import catalog as cat
from servescope.instrumentation.catalog import Kind
from servescope.instrumentation.slo import SLOSpec
from servescope.instrumentation.status import FinishReason
from servescope.promql.flavor import (
    FLAVORS,
    GATEWAY_FAMILIES,
    GATEWAY_JOB,
    SGLANG,
    TGI,
    VLLM,
    Flavor,
    Mapped,
)
from servescope.promql.query import PROMETHEUS_SERIES, TARGET_LABELS, Query

ROOT = Path(__file__).resolve().parents[2]
SELECTOR = re.compile(r"(?<![A-Za-z0-9_:])([A-Za-z_:][A-Za-z0-9_:]*)\{([^}]*)\}")
MATCHER = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"')
BY = re.compile(r"\b(?:by|ignoring|on)\s*\(([^)]*)\)")
ALWAYS = set(TARGET_LABELS)  # what Prometheus gives every series of a target
_GATEWAY_JOB = re.compile(r'job=~"(\$gateway|' + re.escape(GATEWAY_JOB) + ')"')
_CATALOG = {n: spec for spec in cat.CATALOG for n in cat.series_names(spec)}


def _exprs(flavor: Flavor) -> list[tuple[str, str]]:
    """(where, expr) for every dashboard query and rule of the flavor (as generated; the
    committed files are the same, `servescope generate --check` proves it)."""
    slo = SLOSpec.default()
    out = []
    for key, board in dashboards(slo, flavor).items():
        for panel, expr in lint.targets(board):
            out.append((f"{key} › {panel['title']}", expr))
    for rule in all_rules(slo, Options(flavor=flavor)):
        out.append((getattr(rule, "alert", None) or getattr(rule, "record", ""), rule.expr))
    return out


class Records:
    """The flavor's recording rules by record name: what a query reading a record reads."""

    def __init__(self, flavor: Flavor) -> None:
        self.rules: dict[str, list[Record]] = {}
        for rule in all_rules(SLOSpec.default(), Options(flavor=flavor)):
            if isinstance(rule, Record):
                self.rules.setdefault(rule.record, []).append(rule)

    def __contains__(self, name: str) -> bool:
        return name in self.rules

    def raw_series(self, expr: str, seen: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
        """(selector name, matchers) of every raw series ``expr`` reads, through records."""
        out = []
        for name, inner in SELECTOR.findall(expr):
            if name in self.rules and name not in seen:
                for rule in self.rules[name]:
                    out += self.raw_series(rule.expr, seen | {name})
            elif name not in self.rules:
                out.append((name, inner))
        return out

    def labels(self, name: str, fixture: engines.Fixture) -> set[str]:
        """The labels a record's series carry: its rules' outer ``by`` and static labels, or,
        for a rule that does not aggregate, the labels of what it reads."""
        out: set[str] = set()
        for rule in self.rules[name]:
            out |= set(rule.labels)
            groups = BY.findall(rule.expr)
            if groups:
                out |= {k.strip() for k in groups[0].split(",") if k.strip()}
                continue
            stored = fixture.by_stored_name()
            for raw, _ in self.raw_series(rule.expr):
                out |= set(stored[raw].labels) if raw in stored else set()
        return out


def fixture_errors(flavor: Flavor, fixture: engines.Fixture) -> list[str]:
    """What a flavor's queries assume that the engine's real series contradict. A query that
    reads a recorded series is checked against the raw series the recording rule reads, and
    its matchers and groupings against the labels the record keeps."""
    stored = fixture.by_stored_name()
    records = Records(flavor)
    errors = []
    for where, expr in _exprs(flavor):
        labels_here: set[str] = set(ALWAYS)
        for name, inner in SELECTOR.findall(expr):
            if name in PROMETHEUS_SERIES:
                continue
            if name in records:
                kept = records.labels(name, fixture)
                labels_here |= kept
                errors += _matcher_errors(where, name, inner, kept | ALWAYS, fixture)
                errors += [f"{where}: via {name}: {e}" for e in
                           _raw_errors(records.raw_series(f"{name}{{}}"), stored, fixture)]
                continue
            if name.startswith(("servescope_job:", "servescope:", "servescope_instance:",
                                "servescope_shard:")):
                errors.append(f"{where}: {name} is recorded by no rule of the flavor")
                continue
            if _GATEWAY_JOB.search(inner):  # a gateway's own series: the catalog's names
                spec = _CATALOG.get(name)
                if spec is None or spec.name not in GATEWAY_FAMILIES:
                    errors.append(f"{where}: {name} is not a series the gateway writes")
                    continue
                labels_here |= set(spec.labels)
                continue
            series = stored.get(name)
            if series is None:
                errors.append(f"{where}: {name} is not a series {fixture.engine} writes")
                continue
            labels_here |= set(series.labels)
            allowed = set(series.labels) | ALWAYS | ({"le"} if name.endswith("_bucket") else set())
            errors += _matcher_errors(where, name, inner, allowed, fixture)
        for group in BY.findall(expr):
            for key in (k.strip() for k in group.split(",") if k.strip()):
                if key not in labels_here and key != "le":
                    errors.append(f"{where}: groups by {key}, which its series do not carry")
    return errors


def _raw_errors(raw: list[tuple[str, str]], stored: dict[str, engines.Series],
                fixture: engines.Fixture) -> list[str]:
    """The raw series a record reads that the engine does not write (the gateway's and
    Prometheus's own excepted)."""
    return [f"{name} is not a series {fixture.engine} writes" for name, inner in raw
            if name not in stored and name not in PROMETHEUS_SERIES
            and not _GATEWAY_JOB.search(inner)]


def _matcher_errors(where: str, name: str, inner: str, allowed: set[str],
                    fixture: engines.Fixture) -> list[str]:
    errors = []
    for key, op, value in MATCHER.findall(inner):
        if key not in allowed:
            errors.append(f"{where}: {name} has no label {key}")
            continue
        known = fixture.label_values.get(key)
        if known and not value.startswith("$") and op in ("=", "=~"):
            wanted = value.split("|") if op == "=~" else [value]
            errors += [f"{where}: {name}{{{key}}} is never {v!r}" for v in wanted
                       if v not in known and v not in (".*", ".+")]
    return errors


@pytest.mark.parametrize("engine", engines.ENGINES)
def test_every_query_names_real_series_labels_and_values(engine: str) -> None:
    flavor = FLAVORS[engine]
    assert fixture_errors(flavor, engines.load(engine)) == []


def test_the_check_catches_a_wrong_name_label_or_value() -> None:
    """Mistakes of the kind the fixture exists for fail: a series vLLM no longer writes, a
    catalog label name, a finish reason vLLM never reports."""
    fixture = engines.load("vllm")
    old_tpot = dataclasses.replace(VLLM, families={
        **VLLM.families, cat.TPOT.name: Mapped("vllm:time_per_output_token_seconds",
                                               Kind.HISTOGRAM, (cat.MODEL,), (0.1,))})
    assert any("vllm:time_per_output_token_seconds_bucket is not a series" in e
               for e in fixture_errors(old_tpot, fixture))
    no_rename = dataclasses.replace(VLLM, rename={cat.FINISH_REASON: "finished_reason"})
    assert any("has no label model" in e for e in fixture_errors(no_rename, fixture))
    cancelled = dataclasses.replace(VLLM, finish_reasons={
        **VLLM.finish_reasons, FinishReason.CLIENT_CANCEL.value: "cancelled"})
    assert any("is never 'cancelled'" in e for e in fixture_errors(cancelled, fixture))
    assert any("is not a series vllm writes" in e for e in fixture_errors(SGLANG, fixture))


def test_the_check_sees_through_recordings() -> None:
    """A panel reading a recorded series is checked against what the recording rule reads:
    a renamed engine histogram fails at the fleet panel that reads its recording, not only at
    the rule; and a record is matched only on labels its rule keeps."""
    fixture = engines.load("vllm")
    renamed = dataclasses.replace(VLLM, families={
        **VLLM.families, cat.E2E.name: Mapped("vllm:e2e_latency_seconds", Kind.HISTOGRAM,
                                              (cat.MODEL,), (1.0,))})
    errors = fixture_errors(renamed, fixture)
    assert any(e.startswith("latency › End-to-end p95 by model: via servescope_job:")
               and "vllm:e2e_latency_seconds_bucket is not a series vllm writes" in e
               for e in errors), errors
    records = Records(VLLM)
    kept = records.labels("servescope_job:vllm_time_to_first_token_seconds_bucket:rate1m",
                          fixture)
    assert kept == {"job", "model_name", "le"}
    assert records.labels("servescope_job:slo_bad:rate5m", fixture) == \
        {"job", "model_name", "slo"}
    assert _matcher_errors("p", "r", 'finished_reason="stop"', kept, fixture) == \
        ["p: r has no label finished_reason"]


@pytest.mark.parametrize("engine", engines.ENGINES)
def test_histogram_boundaries_are_the_engines(engine: str) -> None:
    flavor, fixture = FLAVORS[engine], engines.load(engine)
    by_name = {s.name: s for s in fixture.series}
    histograms = [m for m in flavor.mapped() if m.kind is Kind.HISTOGRAM]
    assert histograms or not any(s.type == "histogram" for s in fixture.series)  # llama.cpp
    for mapped in histograms:
        assert by_name[mapped.name].type == "histogram"
        assert mapped.buckets == by_name[mapped.name].buckets, mapped.name


@pytest.mark.parametrize("engine", engines.ENGINES)
def test_every_mapped_metric_has_the_engines_type(engine: str) -> None:
    flavor, fixture = FLAVORS[engine], engines.load(engine)
    stored = fixture.by_stored_name()
    for mapped in flavor.mapped():
        spec = mapped.spec()
        if mapped.kind is Kind.COUNTER:
            series = stored.get(spec.sample_name)
            assert series is not None, spec.sample_name
            # a histogram's _sum rated as a counter (TGI token totals) is fine
            assert series.type in ("counter", "histogram"), spec.sample_name
        else:
            series = stored.get(mapped.name if mapped.kind is Kind.GAUGE else
                                f"{mapped.name}_bucket")
            assert series is not None and series.type == mapped.kind.value, mapped.name


def test_vllm_tpot_is_per_request_and_pages_name_the_model() -> None:
    assert VLLM.metric(cat.TPOT).name == "vllm:request_time_per_output_token_seconds"
    doc = yaml.safe_load((ROOT / "alerts/generated/vllm/rules.yaml").read_text())
    burn = [r for g in doc["groups"] for r in g["rules"]
            if r.get("alert", "").startswith("ServescopeTPOTBudgetBurn")]
    assert burn
    for rule in burn:
        assert "{{ $labels.model_name }}" in rule["annotations"]["description"]
        assert "{{ $labels.model }}" not in rule["annotations"]["description"]
    rules = (ROOT / "alerts/generated/vllm/rules.yaml").read_text()
    assert "vllm:inter_token_latency_seconds" not in rules
    assert 'finished_reason="abort"' in rules


def test_vllm_rejections_and_repetition_are_visible() -> None:
    q = Query(flavor=VLLM)
    assert q.rate(cat.REJECTED, cat.REASON) == \
        "sum by (reason) (rate(vllm:admission_rejections_total{}[$__rate_interval]))"
    overview = (ROOT / "dashboards/generated/vllm/overview.json").read_text()
    # the fleet panel reads the recording of it, per job and model, from the replica rules
    assert "servescope_job:vllm_admission_rejections:rate1m" in overview
    assert "rate(vllm:admission_rejections_total" in \
        (ROOT / "alerts/generated/vllm/replica-rules.yaml").read_text()
    assert "exposes no metric for this panel: servescope_requests_rejected" not in overview
    # cut short = not stop/length: vLLM's repetition finishes show under their own name
    cut = q.rate(cat.FINISHED, cat.FINISH_REASON, finish_reason='!~"stop|length"')
    assert 'finished_reason!~"stop|length"' in cut
    assert "repetition" in engines.load("vllm").label_values["finished_reason"]
    assert "repetition" in VLLM.extra_reasons


@pytest.mark.parametrize(("flavor", "spec", "threshold", "at"), [
    (VLLM, cat.SERVER_TTFT, 2.0, 1.0),
    (SGLANG, cat.SERVER_TTFT, 2.0, 2.0),
    (SGLANG, cat.TPOT, 0.1, 0.1),
    (TGI, cat.TPOT, 0.1, 0.09852612533569335),
    (TGI, cat.E2E, 60.0, 43.143988327398915),
])
def test_thresholds_count_at_the_nearest_boundary_below(flavor, spec, threshold, at) -> None:
    assert Query(flavor=flavor).threshold(spec, threshold) == at


def test_tgi_rules_say_where_the_threshold_is_counted() -> None:
    rules = (ROOT / "alerts/generated/tgi/rules.yaml").read_text()
    assert "counted at the exporter''s 0.0985261s bucket boundary" in rules
    assert 'le=~"0\\\\.09852612533569335"' in rules
    assert "model" not in {k for r in yaml.safe_load(rules)["groups"] for x in r["rules"]
                           for k in x.get("labels", {})}
    overview = (ROOT / "dashboards/generated/tgi/overview.json").read_text()
    assert "requests up to 0.0985261 s count as good" in overview


def test_tgi_counters_have_no_total_suffix_in_queries() -> None:
    text = "\n".join(e for _, e in _exprs(TGI))
    assert "tgi_request_count{" in text and "tgi_request_count_total" not in text
    assert 'tgi_request_failure{err=~"generation|dropped|incomplete"}' in text


def test_sglang_scrape_job_renames_escaped_series_back() -> None:
    job = SGLANG.scrape_job(["h:30000"])
    relabel = job["metric_relabel_configs"][0]
    assert re.fullmatch(relabel["regex"], "sglang_num_running_reqs")
    assert relabel["replacement"] == "sglang:${1}"
    assert VLLM.scrape_job(["h:8000"]) == {"job_name": "vllm",
                                           "static_configs": [{"targets": ["h:8000"]}]}
