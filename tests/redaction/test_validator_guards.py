"""The cheap tests that spare a secret's validation its costly patterns: each may say "could
match" wrongly, never "cannot" where its pattern matches. Checked on every value the secret
detectors find in every corpus, on every word and key's value of those texts, and on generated
strings built from the characters the patterns turn on."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import ops_corpus
import pytest
import redaction_corpus as rc
from hypothesis import given, settings
from hypothesis import strategies as st

from servescope.redaction import DETECTORS
from servescope.redaction import validators as v
from servescope.redaction.detectors import prefilter_for, scan

BLIND = Path(__file__).parent / "blind"

GUARDS: list[tuple[str, re.Pattern[str], Callable[[str], bool], str]] = [
    ("names a secret", v._NAMES_A_SECRET, v._may_name_a_secret, "fullmatch"),
    ("code", v._CODE, v._may_be_code, "match"),
    ("not a value", v._NOT_A_VALUE, v._may_be_no_value, "match"),
    ("path", v._PATH, lambda s: "/" in s, "fullmatch"),
]


def _texts() -> list[str]:
    texts = [s.text for s in rc.build()]
    texts += [p.text for p in ops_corpus.positives()]
    texts += [line for _, line in ops_corpus.negatives()]
    for path in sorted(BLIND.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                texts.append(row["text"])
                texts += [value["value"] for value in row["values"]]
    return texts


def _candidates(texts: list[str]) -> Iterator[str]:
    """What secret_value_ok is asked about, and more: the detectors' values (as it strips
    them), and every word and every part after a '=' or ':' of each text."""
    prefilter = prefilter_for(DETECTORS)
    for text in texts:
        for i in prefilter.candidates(text):
            d = DETECTORS[i]
            if d.kind != "secret_assignment":
                continue
            for m in d.pattern.finditer(text):
                if m.start(d.group) >= 0:
                    yield m.group(d.group).strip("\"'`").rstrip("):`")
        for word in text.split():
            yield word
            yield word.strip("\"'`,;").rstrip("):`")
            for sep in "=:":
                if sep in word:
                    yield word.split(sep, 1)[1]


_STRINGS = sorted(set(_candidates(_texts())))


def _check(value: str) -> None:
    for name, pattern, may_match, how in GUARDS:
        if getattr(pattern, how)(value) is not None:
            assert may_match(value), (name, value)


def test_the_guards_admit_every_corpus_match() -> None:
    assert len(_STRINGS) > 20_000
    matched = 0
    for value in _STRINGS:
        _check(value)
        matched += any(getattr(p, how)(value) is not None for _, p, _, how in GUARDS)
    assert matched > 500  # (the patterns do match here: the check is not empty)


# Characters the patterns and the guards turn on, beside letters and digits.
_ALPHABET = st.sampled_from([*"aAbBcdeEfFkKsStTxyz019_-.:/$@{}|=,%[]()\\ ",
                             "key", "token", "secret", "pass", "word", "credential", "string",
                             "set", "self.", "com.", "android", "amd64", "-token-", "::",
                             "__Secure-", "hmac-sha256:", "2026-01-02", "ſ", "K", "ß", "İ"])


@settings(max_examples=3000, deadline=None)
@given(st.lists(_ALPHABET, max_size=12).map("".join))
def test_property_the_guards_admit_every_match(value: str) -> None:
    _check(value)


@pytest.mark.parametrize("value", ["db_password", "API-KEYS", "client_secrets", "pass"])
def test_a_name_is_still_a_name(value: str) -> None:
    assert not v.secret_value_ok(value)


@pytest.mark.parametrize("value", ["9f8e7d6c5b4a-secret", "7f3e9a1c5d2b-token"])
def test_a_random_run_before_the_word_is_a_value(value: str) -> None:
    """"db-secret" names a Secret; "9f8e7d6c5b4a-secret" under client_secret is one."""
    assert v.secret_value_ok(value)


def test_a_secret_ending_in_its_word_is_redacted() -> None:
    text = 'config: {"client_secret": "9f8e7d6c5b4a-secret"}'
    assert [f.value for f in scan(text)] == ["9f8e7d6c5b4a-secret"]
    assert scan('secretKeyRef: {name: app1-secret, key: db-password}') == []
