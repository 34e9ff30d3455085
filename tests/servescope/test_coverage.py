"""docs/engines.md: the coverage table agrees with the generated dashboards and rules."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from servescope.coverage import coverage, render_engines_markdown
from servescope.dashboards import lint
from servescope.dashboards.panels import NO_METRIC
from servescope.instrumentation.slo import SLOSpec
from servescope.promql.flavor import FLAVORS

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "engines.md").read_text()


def _section(flavor: str) -> str:
    heads = {"servescope": "servescope (reference worker)", "vllm": "vLLM", "sglang": "SGLang",
             "tgi": "TGI", "llamacpp": "llama.cpp"}
    return DOC.split(f"## {heads[flavor]}\n", 1)[1].split("\n## ", 1)[0]


def _rows(text: str) -> dict[str, str]:
    """Table rows as first cells -> last cell (escaped pipes kept inside their cell)."""
    out = {}
    for line in text.splitlines():
        if not line.startswith("| ") or line.startswith("|---"):
            continue
        cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        # panel rows: dashboard | panel | (engine only |) filled with the gateway
        out[" | ".join(cells[:2] if len(cells) > 2 else cells[:-1])] = cells[-1]
    return out


def test_the_committed_doc_is_what_the_generator_writes() -> None:
    assert render_engines_markdown() == DOC


@pytest.mark.parametrize("flavor", list(FLAVORS))
def test_every_panel_row_matches_the_panels_own_note(flavor: str) -> None:
    text = _section(flavor)
    rows = _rows(text)
    checked = 0
    for path in (ROOT / "dashboards" / "generated" / flavor).glob("*.json"):
        for panel in lint.panels(json.loads(path.read_text())):
            status = rows[f"{path.stem} | {panel['title']}"]
            lacking = NO_METRIC in panel["description"]
            assert (status != "yes") == lacking, (flavor, panel["title"], status)
            if lacking and not panel.get("targets"):
                assert status.startswith("no: needs ")
            checked += 1
    assert checked > 40


@pytest.mark.parametrize("flavor", list(FLAVORS))
def test_every_alert_row_matches_the_shipped_rules(flavor: str) -> None:
    text = _section(flavor)
    rows = {k: v for k, v in _rows(text).items() if k.startswith("Servescope")}
    shipped = {r["alert"] for g in yaml.safe_load(
        (ROOT / "alerts" / "generated" / flavor / "rules.yaml").read_text())["groups"]
        for r in g["rules"] if "alert" in r}
    assert {a for a, s in rows.items() if s == "yes"} == shipped
    assert all("?" not in s for s in rows.values())  # every left-out alert says what it needs
    if flavor == "tgi":  # the rules take only the stream TTFT from a gateway
        assert "gen_ai_server_time_to_first_token_seconds" in rows["ServescopeTTFTBudgetBurnPage"]


@pytest.mark.parametrize("flavor", [f for f in FLAVORS if FLAVORS[f].gateway is not None])
def test_with_the_gateway_every_client_side_panel_fills(flavor: str) -> None:
    """The transport dashboard is all client-side truth: with the gateway it fills for every
    engine, and nothing the engine fills alone is lost."""
    rows = _rows(_section(flavor))
    transport = {k: v for k, v in rows.items() if k.startswith("transport | ")}
    assert transport and all(v == "yes" for v in transport.values()), transport
    for key in ("overview | Finish reasons (cut short)", "overview | In flight",
                "latency | TTFT heatmap", "latency | End-to-end heatmap"):
        assert rows[key] == "yes", key
    alone, joined, total = coverage(SLOSpec.default(), FLAVORS[flavor])
    assert alone < joined <= total
