"""Secrets as secret scanners see them: on every kind detect-secrets also covers, servescope's
recall on the same corpus is at least its recall."""

from __future__ import annotations

from collections import Counter

import redaction_corpus as rc
import secret_scanners as ss

from servescope.redaction import scan


def test_recall_at_least_detect_secrets_on_every_shared_kind() -> None:
    samples = [s for s in rc.build() if s.kind in ss.SHARED_KINDS]
    ours: Counter[str] = Counter()
    theirs: Counter[str] = Counter()
    total: Counter[str] = Counter()
    with ss.scanner() as detect_secrets:
        for s in samples:
            total[s.kind] += 1
            start = s.text.index(s.value)
            end = start + len(s.value)
            ours[s.kind] += any(f.kind == s.kind and f.start <= start and f.end >= end
                                for f in scan(s.text))
            theirs[s.kind] += ss.covers(detect_secrets(s.text), s.kind, s.value)
    print(f"\n{'kind':<20}{'servescope':>11}{'detect-secrets':>16}{'n':>5}")
    for kind in ss.SHARED_KINDS:
        print(f"{kind:<20}{ours[kind] / total[kind]:>11.3f}"
              f"{theirs[kind] / total[kind]:>16.3f}{total[kind]:>5}")
    assert set(total) == set(ss.SHARED_KINDS)
    # the anchor is real: it finds a good share of what it has rules for
    assert sum(theirs.values()) > 0.5 * sum(total.values())
    behind = [k for k in ss.SHARED_KINDS if ours[k] < theirs[k]]
    assert not behind, behind


def test_the_anchor_sees_a_secret_we_must_see() -> None:
    with ss.scanner() as detect_secrets:
        found = detect_secrets("AWS_ACCESS_KEY_ID=AKIA2E0A8F3B244C9986")
    assert ss.covers(found, "aws_access_key", "AKIA2E0A8F3B244C9986")
    assert [f.kind for f in scan("AWS_ACCESS_KEY_ID=AKIA2E0A8F3B244C9986")] == [
        "aws_access_key"]
