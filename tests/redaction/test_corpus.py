"""Recall and precision per kind on the labelled corpus; false positives on the negatives."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import redaction_corpus as rc

from servescope.redaction import CHECKSUMMED_KINDS, DETECTORS, KINDS, Detector, scan
from servescope.redaction.detectors import KIND_PRECEDENCE

RECALL_CHECKSUMMED = 0.99
RECALL_OTHER = 0.95
MAX_NEGATIVE_FP = 0.0  # ids, digests, blobs, pods, CIDRs, timestamps: never a finding


def _evaluate(samples: list[rc.Sample], detectors: tuple[Detector, ...] = DETECTORS
              ) -> tuple[Counter[str], Counter[str], Counter[str],
                                                    Counter[str], Counter[str]]:
    tp: Counter[str] = Counter()
    fn: Counter[str] = Counter()
    fp: Counter[str] = Counter()
    neg_fp: Counter[str] = Counter()
    neg_n: Counter[str] = Counter()
    for s in samples:
        found = scan(s.text, detectors)
        if s.kind is None:
            neg_n[s.group] += 1
            if found:
                neg_fp[s.group] += 1
            continue
        start = s.text.index(s.value)
        end = start + len(s.value)
        covered = any(f.kind == s.kind and f.start <= start and f.end >= end for f in found)
        (tp if covered else fn)[s.kind] += 1
        for f in found:
            if not (f.kind == s.kind and f.start < end and f.end > start):
                fp[f.kind] += 1
    return tp, fn, fp, neg_fp, neg_n


def test_every_detector_kind_has_positives() -> None:
    assert set(rc.POSITIVES) == set(KINDS)


def test_recall_precision_and_negatives() -> None:
    tp, fn, fp, neg_fp, neg_n = _evaluate(rc.build())
    print(f"\n{'kind':<20}{'recall':>8}{'precision':>11}{'tp':>5}{'fn':>5}{'fp':>5}")
    failures = []
    for kind in KINDS:
        recall = tp[kind] / (tp[kind] + fn[kind])
        precision = tp[kind] / (tp[kind] + fp[kind]) if tp[kind] + fp[kind] else 0.0
        print(f"{kind:<20}{recall:>8.3f}{precision:>11.3f}{tp[kind]:>5}{fn[kind]:>5}{fp[kind]:>5}")
        floor = RECALL_CHECKSUMMED if kind in CHECKSUMMED_KINDS else RECALL_OTHER
        if recall < floor:
            failures.append(f"{kind}: recall {recall:.3f} < {floor}")
    total_neg = sum(neg_n.values())
    print(f"negatives: {sum(neg_fp.values())}/{total_neg} with a finding")
    for group in sorted(neg_n):
        rate = neg_fp[group] / neg_n[group]
        print(f"  {group:<18}{rate:>7.3f} ({neg_fp[group]}/{neg_n[group]})")
    rate = sum(neg_fp.values()) / total_neg
    if rate > MAX_NEGATIVE_FP:
        failures.append(f"false positives on negatives {rate:.3%} > {MAX_NEGATIVE_FP:.0%}")
    assert not failures, failures


def test_the_corpus_would_catch_a_broken_validator() -> None:
    """The thresholds bite: a Luhn check that rejects everything fails the card recall."""
    broken = tuple(replace(d, validator=lambda _s: False,
                           prefix=None if d.prefix is None else lambda _s: None)
                   if d.kind == "credit_card" else d for d in DETECTORS)
    samples = [s for s in rc.build(per_kind=20, per_negative=0) if s.kind == "credit_card"]
    tp, fn, *_ = _evaluate(samples, broken)
    assert tp["credit_card"] == 0 and fn["credit_card"] == len(samples) > 20


def test_every_kind_has_one_place_in_the_precedence() -> None:
    assert sorted(KIND_PRECEDENCE) == sorted(KINDS)


def test_a_url_password_is_a_secret_before_it_is_an_address() -> None:
    """A URL's password with a "!" in it reads as an address's local part too ("LfR9@host"):
    the secret's kind comes first (KIND_PRECEDENCE), wherever its detectors sit."""
    text = "REDIS_URL=redis://:D3zWbPZiVM!LfR9@redis-master.default.svc:6379/0"
    assert [(f.kind, f.value) for f in scan(text)] == [("secret_assignment", "D3zWbPZiVM!LfR9")]
    assert KIND_PRECEDENCE.index("secret_assignment") < KIND_PRECEDENCE.index("email")


def test_checksums_decide() -> None:
    assert [f.kind for f in scan("card 4111 1111 1111 1111")] == ["credit_card"]
    assert scan("card 4111 1111 1111 1112") == []
    assert [f.kind for f in scan("DE89 3704 0044 0532 0130 00")] == ["iban"]
    assert scan("DE88 3704 0044 0532 0130 00") == []
    # A valid IBAN followed by more groups: the country length bounds it.
    found = scan("DE89370400440532013000 4111 1111 1111 1111")
    assert [(f.kind, f.value) for f in found] == [("iban", "DE89370400440532013000"),
                                                   ("credit_card", "4111 1111 1111 1111")]
