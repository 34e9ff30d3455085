"""The README's and docs/'s links to files of this repository resolve: the file exists, and
an anchor into a Markdown file names one of its headings (as GitHub renders them)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from servescope.alerts.model import slug

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: [text](target): not an image's, not an absolute URL, not a page's own anchor
_LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(((?![a-z]+:|#)[^)\s]+)\)")
_FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def _headings(path: Path) -> set[str]:
    text = _FENCE.sub("", path.read_text("utf-8"))
    return {slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, re.M)}


def _links(path: Path) -> list[str]:
    return _LINK.findall(_FENCE.sub("", path.read_text("utf-8")))


@pytest.mark.parametrize("doc", DOCS, ids=[p.name for p in DOCS])
def test_every_local_link_resolves(doc: Path) -> None:
    broken = []
    for target in _links(doc):
        where, _, anchor = target.partition("#")
        path = (doc.parent / where).resolve()
        if not path.exists():
            broken.append(f"{target}: no such file")
        elif anchor and path.suffix == ".md" and anchor not in _headings(path):
            broken.append(f"{target}: no such heading in {path.name}")
    assert not broken, "\n".join(broken)


def test_the_link_check_bites(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# Top\n\n[ok](b.md#the-part) [bad](b.md#nothing) "
                                   "[gone](c.md) [web](https://example.com/x)\n")
    (tmp_path / "b.md").write_text("## The part\n")
    assert _links(tmp_path / "a.md") == ["b.md#the-part", "b.md#nothing", "c.md"]
    assert "the-part" in _headings(tmp_path / "b.md")
    assert "nothing" not in _headings(tmp_path / "b.md")
