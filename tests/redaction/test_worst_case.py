"""No detector backtracks into a square on a long run of what it reads: every pattern is tried
on 20,000-character runs built to make a backtracking engine retry (runs of escapes, digits and
separators, quotes, base64, key words repeated).

A linear scan of such a run takes milliseconds here; a quadratic one takes seconds. The bound
below is about a hundred times the linear cost, so the test fails on the shape of the cost,
not on a busy machine's noise."""

from __future__ import annotations

import time

import pytest

from servescope.redaction import DETECTORS, Redactor

N = 20_000
BOUND_S = 1.0

RUNS = {
    "backslashes": "the password is a" + "\\" * N + '"',
    "escaped quotes": "password=" + '\\"a' * (N // 3),
    "digits and spaces": "phone " + "1 " * (N // 2),
    "digit groups": "tel:" + "12-" * (N // 3),
    "dots": "1." * (N // 2),
    "colons": "a:" * (N // 2),
    "hex and colons": "fe80:" * (N // 5),
    "base64": "k=" + "QUJD" * (N // 4),
    "at signs": "a@" * (N // 2),
    "percent escapes": "%41" * (N // 3),
    "unicode escapes": "\\u0041" * (N // 6),
    "full-width digits": "０" * N,
    "words": "password " + "word " * (N // 5) + "is",
    "key words": "token=" * (N // 6),
    "quotes": '"' + "a" * 60 + '" ' * (N // 64),
    "joiners": "a-" * (N // 2),
    "underscores": "1_" * (N // 2),
    "capitals": "AKIA" * (N // 4),
    # keys with an empty value on one long line: each one's value is the next key, found again
    # at every other place (an outside probe: 22 s for 32 KB, cubic, before repeats were
    # looked up by bisection)
    "empty assignments": "password= " * (N // 10),
    "SQL passwords": "IDENTIFIED BY '" * (N // 15),
    "a key id and a slash": "AKIAQ3ZJ7X2M9K4P1RTW / " * (N // 23),
    "basic auth headers": "Authorization: Basic " * (N // 21),
    # a cookie's name run on with no value after it; a tool's -U with no "%" (blind corpora
    # RA and RB's detectors, quadratic as first written)
    "a cookie's name": "name=" + "session" * (N // 7),
    "smbclient users": "smbclient -U " * (N // 13),
    "lftp users": "lftp -u " * (N // 8),
}


@pytest.mark.parametrize("name", sorted(RUNS))
def test_every_detector_reads_a_long_run_in_linear_time(name: str) -> None:
    text = RUNS[name]
    slow = []
    for detector in DETECTORS:
        start = time.perf_counter()
        detector.find(text)
        elapsed = time.perf_counter() - start
        if elapsed > BOUND_S:
            slow.append(f"{detector.kind} {detector.pattern.pattern[:80]!r}: {elapsed:.1f} s")
    assert not slow, slow


def test_the_whole_redactor_on_long_runs() -> None:
    redactor = Redactor(hash_key=b"test")
    for name, text in RUNS.items():
        start = time.perf_counter()
        redactor.redact_text(text, {})
        assert time.perf_counter() - start < BOUND_S, name
