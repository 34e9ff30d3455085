"""The engine's single-match mode against its every-match mode, on the blind corpora's texts.

The prefilter database asks Hyperscan to report each detector's prefilter once a text
(SINGLEMATCH). One round found a line ("echo '...' | base64 -d") on which that mode reported
nothing for one prefilter while the every-match mode did: three prefilters that opened with
the same literal ("\\|") were enough. The prefilter was rewritten; this test scans the corpora's
texts with both modes, so a prefilter that meets the defect again is found before a value
slips past its detector."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from servescope.redaction.detectors import DETECTORS
from servescope.redaction.prefilter import _STAND_IN

hyperscan = pytest.importorskip("hyperscan")

_BLIND = Path(__file__).parent / "blind"


def _database(flags: int) -> object:
    expressions = [d.prefilter.encode("ascii") for d in DETECTORS]
    database = hyperscan.Database()
    database.compile(expressions=expressions, ids=list(range(len(expressions))),
                     elements=len(expressions), flags=[flags] * len(expressions))
    return database


def _reported(database: object, text: bytes) -> set[int]:
    found: set[int] = set()
    database.scan(text, match_event_handler=lambda i, *_: found.add(i))  # type: ignore[attr-defined]
    return found


def test_single_match_reports_every_prefilter_that_matches() -> None:
    single = _database(hyperscan.HS_FLAG_SINGLEMATCH | hyperscan.HS_FLAG_ALLOWEMPTY)
    every = _database(hyperscan.HS_FLAG_ALLOWEMPTY)
    missed = []
    for path in sorted(_BLIND.glob("*.jsonl")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
            if n % 4:  # (a quarter of each corpus: a second, not ten)
                continue
            text = json.loads(line)["text"].encode("ascii", _STAND_IN)
            lost = _reported(every, text) - _reported(single, text)
            if lost:
                missed.append((path.stem, n, sorted(lost)))
    assert missed == []


def test_the_line_that_found_the_defect() -> None:
    single = _database(hyperscan.HS_FLAG_SINGLEMATCH | hyperscan.HS_FLAG_ALLOWEMPTY)
    every = _database(hyperscan.HS_FLAG_ALLOWEMPTY)
    text = b"$ echo 'c3ZjLWV4cG9ydDpXSFVwSWdVMGgwOUFSNQ==' | base64 -d"
    assert _reported(every, text) == _reported(single, text) != set()
