"""Every alert's ``runbook_url`` resolves: a configurable base (``--runbook-base``,
``SERVESCOPE_RUNBOOK_BASE``, pyproject.toml) and an anchor that is a heading of
alerts/runbooks.md, for every flavor's rules and the Kubernetes copies."""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

import pytest
import yaml

from servescope.alerts.model import (
    RUNBOOK_ENV,
    RUNBOOKS,
    default_runbook_base,
    published_runbooks,
    slug,
)
from servescope.cli import main
from servescope.commands.generate import expected_files
from servescope.promql.flavor import FLAVORS

ROOT = Path(__file__).resolve().parents[2]
BASE = "https://git.example.com/org/servescope/blob/v0.1.0/alerts/runbooks.md"
#: where servescope is published (pyproject.toml [project.urls])
PUBLISHED_REPOSITORY = "https://github.com/servescope/servescope"


def _headings() -> set[str]:
    text = (ROOT / RUNBOOKS).read_text("utf-8")
    return {slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, re.M)}


def _runbook_urls(files: dict[str, str]) -> list[str]:
    urls = []
    for rel, text in files.items():
        if not rel.endswith((".yaml", ".yml")) or "alerts" not in text:
            continue
        for doc in yaml.safe_load_all(text):
            groups = (doc or {}).get("groups") or (doc or {}).get("spec", {}).get("groups", [])
            for group in groups:
                urls += [r["annotations"]["runbook_url"] for r in group["rules"]
                         if "alert" in r]
    return urls


@pytest.mark.parametrize("flavor", sorted(FLAVORS))
def test_every_alert_links_to_a_heading_that_exists(flavor: str) -> None:
    headings = _headings()
    for base in (RUNBOOKS, BASE):
        urls = _runbook_urls(expected_files(flavor, runbook_base=base))
        assert urls, "no alerts rendered"
        for url in urls:
            where, _, anchor = url.partition("#")
            assert where == base, url
            assert anchor in headings, f"{url}: no such heading in {RUNBOOKS}"


def test_the_base_comes_from_the_setting_then_the_published_repository(tmp_path,
                                                                       monkeypatch) -> None:
    monkeypatch.delenv(RUNBOOK_ENV, raising=False)
    meta = metadata.metadata("servescope")
    published = (f"{PUBLISHED_REPOSITORY}/blob/v{meta['Version']}/alerts/runbooks.md")
    # nothing configured: servescope's own repository at the installed version's tag
    assert default_runbook_base(tmp_path) == published
    # a user's own [project.urls] names their project, which does not hold these runbooks
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "acme-serving"\nversion = "1.2.0"\n'
        '[project.urls]\nRepository = "https://git.example.com/acme/serving/"\n')
    assert default_runbook_base(tmp_path) == published
    with (tmp_path / "pyproject.toml").open("a") as fh:
        fh.write('[tool.servescope]\nrunbook_base = "https://wiki.example.com/runbooks"\n')
    assert default_runbook_base(tmp_path) == "https://wiki.example.com/runbooks"
    monkeypatch.setenv(RUNBOOK_ENV, BASE)
    assert default_runbook_base(tmp_path) == BASE


def test_an_unpublished_distribution_links_to_the_repository_path() -> None:
    assert published_runbooks("servescope-no-such-distribution") is None


def test_the_shipped_rules_link_to_the_published_runbooks() -> None:
    rules = yaml.safe_load((ROOT / "alerts/generated/servescope/rules.yaml").read_text())
    urls = [r["annotations"]["runbook_url"] for g in rules["groups"] for r in g["rules"]
            if "alert" in r]
    assert urls and all(u.startswith(PUBLISHED_REPOSITORY + "/blob/v") for u in urls)


def test_generate_takes_the_base_from_the_command_line(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.delenv(RUNBOOK_ENV, raising=False)
    assert main(["generate", "--out", str(tmp_path), "--flavor", "vllm",
                 "--runbook-base", BASE]) == 0
    rules = yaml.safe_load((tmp_path / "alerts/generated/vllm/rules.yaml").read_text())
    urls = [r["annotations"]["runbook_url"] for g in rules["groups"] for r in g["rules"]
            if "alert" in r]
    assert urls and all(u.startswith(BASE + "#") for u in urls)
    assert main(["generate", "--out", str(tmp_path), "--flavor", "vllm",
                 "--runbook-base", "https://x.example/runbooks.md#top"]) == 2
    assert "--runbook-base" in capsys.readouterr().err


@pytest.mark.parametrize("base", [
    "javascript:alert(1)//",
    "https://zelda:ghp_R7tY2uI9oP4aS6dF1gH3jK5lZ8xC0vB2nM4q@git.example.com/runbooks.md",
    "https://git.example.com/runbooks.md?token=sk-proj-Q7vXk2Lm9Pz4Rt8Wn3Yb6Hc1",
])
def test_a_base_that_would_carry_a_login_or_run_script_is_refused(tmp_path, monkeypatch, capsys,
                                                                  base: str) -> None:
    """Every notification carries the link to every receiver: a login or a query would ride
    along, and a javascript: link would run in whoever opens it."""
    monkeypatch.delenv(RUNBOOK_ENV, raising=False)
    assert main(["generate", "--out", str(tmp_path), "--flavor", "vllm",
                 "--runbook-base", base]) == 2
    err = capsys.readouterr().err
    assert "--runbook-base" in err and "ghp_" not in err and "sk-proj" not in err
    assert not (tmp_path / "alerts").exists()
