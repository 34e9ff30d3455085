"""Recall on the classes earlier detectors missed, in realistic surroundings, with the strict
rule (no fragment of half the value left); false positives on operations text."""

from __future__ import annotations

from collections import Counter

import ops_corpus as oc

from servescope.redaction import Redactor

RECALL = 0.95
RECALL_CHECKSUMMED = 0.99
MAX_CHANGED = 0.01


def _recall(redactor: Redactor) -> tuple[Counter[str], Counter[str], list[str]]:
    caught: Counter[str] = Counter()
    total: Counter[str] = Counter()
    misses: list[str] = []
    for s in oc.positives():
        out = redactor.redact_text(s.text, {})
        total[s.kind] += 1
        left = oc.leaked(s.value, out)
        if left is None:
            caught[s.kind] += 1
        else:
            misses.append(f"{s.kind}/{s.surrounding}: {left!r} left in {out!r}")
    return caught, total, misses


def test_every_miss_class_is_caught_in_every_surrounding() -> None:
    caught, total, misses = _recall(Redactor())
    print(f"\n{'kind':<22}{'recall':>8}{'n':>5}")
    failures = []
    for kind in oc.SNIPPETS:
        recall = caught[kind] / total[kind]
        print(f"{kind:<22}{recall:>8.3f}{total[kind]:>5}")
        floor = RECALL_CHECKSUMMED if kind in oc.CHECKSUMMED else RECALL
        if recall < floor:
            failures.append(f"{kind}: {recall:.3f} < {floor}")
    assert {s for s, _, _ in oc.SURROUNDINGS} == {"log", "json", "url", "header", "prompt",
                                                    "chat"}
    assert not failures, (failures, misses[:20])


def test_operations_text_is_left_alone() -> None:
    redactor = Redactor()
    lines = oc.negatives()
    assert len(lines) >= 300
    changed = [(src, line, out) for src, line in lines
               if (out := redactor.redact_text(line, {})) != line]
    by_source = Counter(src for src, _ in lines)
    print(f"\nnegatives: {len(changed)}/{len(lines)} changed; per source {dict(by_source)}")
    for src, line, out in changed:
        print(f"  {src}: {line[:160]!r}\n    -> {out[:160]!r}")
    assert len(changed) / len(lines) <= MAX_CHANGED


def test_the_leak_rule_bites() -> None:
    """Half a password left behind is a miss, not a hit."""
    assert oc.leaked("hunter2hunter2!", "pw [REDACTED] 2hunter2! x") == "2hunter2"
    assert oc.leaked("hunter2hunter2!", "pw [REDACTED:secret_assignment]") is None
    assert oc.leaked("abc", "abc") == "abc"


def test_model_names_and_token_counts_survive_verbatim() -> None:
    r = Redactor()
    for line in ('"total_tokens": 8370}}', '"output_tokens":3101}}', '"max_tokens": 65536}',
                 "tokenizer='mistralai/Mixtral-8x7B-Instruct-v0.1'",
                 "Uvicorn running on http://0.0.0.0:8000"):
        assert r.redact_text(line, {}) == line
