"""Values said aloud or disguised (redaction/spoken.py): numbers in words, spelled letters and
addresses with their at and dot said, read as what they say, and redacted where they were
said; the text around them, and numbers said that are no value, unchanged."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from servescope.redaction import DETECTORS, Policy, Redactor
from servescope.redaction import spoken as spoken_module
from servescope.redaction.prefilter import hyperscan_available, make_prefilter
from servescope.redaction.spoken import read_spoken

BLIND = Path(__file__).parent / "blind"


@pytest.fixture(scope="module")
def redactor() -> Redactor:
    return Redactor(hash_key=b"spoken-tests")


@pytest.mark.parametrize(("text", "expected"), [
    ("caller: my number is five five five, two one two, eight nine nine one thanks",
     "caller: my number is [REDACTED:phone] thanks"),
    ("card four one one one one one one one one one one one one one one one ok",
     "card [REDACTED:credit_card] ok"),
    ("my social is one two three, four five, six seven eight nine",
     "my social is [REDACTED:us_ssn]"),
    ("the PIN is four four nine one", "the PIN is [REDACTED:secret_assignment]"),
    ("the alarm code is eighty four thirty seven, see you Sunday",
     "the alarm code is [REDACTED:secret_assignment], see you Sunday"),
    ("mon numéro c'est le zéro six, douze, trente-quatre, cinquante-six, soixante-dix-huit",
     "mon numéro c'est le [REDACTED:phone]"),
    ("meine Nummer ist null eins sieben sechs, vier fünf drei, zwei zwei eins acht",
     "meine Nummer ist [REDACTED:phone]"),
    ("IBAN G B eight two W E S T one two three four five six nine eight seven six five four "
     "three two", "IBAN [REDACTED:iban]"),
    ("user: 7 6 0 2 1 3 7 5 8 1 is my cell", "user: [REDACTED:phone] is my cell"),
    ("it's a mastercard 5209... 5470... 4915... 5987 thanks",
     "it's a mastercard [REDACTED:credit_card] thanks"),
    # speech-to-text writes an IBAN in lower case
    ("spk_1: um it's nl96 snsb 4875 1223 03 that's my account",
     "spk_1: um it's [REDACTED:iban] that's my account"),
])
def test_numbers_said_are_redacted_where_they_were_said(redactor: Redactor, text: str,
                                                        expected: str) -> None:
    assert redactor.redact_text(text, {}) == expected


@pytest.mark.parametrize("text", [
    "my email is john dot smith at gmail dot com",
    "reach me at alice [at] example [dot] com",
    "bob(at)firma(dot)de",
    "mi correo es maria arroba hotmail punto com",
    "c'est pierre arobase orange point fr",
    "Kontakt per Mail: sabine Punkt w ät web Punkt de",
    "mail me: anna.k AT proton DOT me",
    "yes it's j o h n underscore s at outlook dot com all lower case",
    "it's t r e v o r underscore w at hallmark hyphen dental dot com",
])
def test_addresses_said_are_redacted_whole(redactor: Redactor, text: str) -> None:
    counts: dict[str, int] = {}
    out = redactor.redact_text(text, counts)
    assert counts.get("email") == 1, out
    for fragment in ("gmail", "example", "firma", "hotmail", "orange", "web Punkt",
                     "proton", "outlook", "hallmark"):
        assert fragment not in out


@pytest.mark.parametrize("text", [
    "visit us at acme dot com for more",
    "we're at acme dot com now",
    "we are at the office. It was fine",
    "order number four five six",
    "at five thirty on the twenty first",
    "twelve hundred dollars, two or three times",
    "flight BA two eight seven, room four oh four",
    "version two point one point four",
    "hmm the error code is four oh one",
    "press one for billing, two for support",
    "gpt four oh and llama three point one seventy b",
    "one two three testing",
    "[null, null, null, null]",
    "->  Nested Loop  (cost=0.56..2485514.56 rows=2975 width=44)",
    "I1202 03:20:37.731395 1 http_server.cc:4700] Started Metrics Service",
    "GigabitEthernet0/0/0/1 unassigned YES NVRAM up",
    "ab12 cd34 ef56 gh78 ij90 (an IBAN's shape, its check failing)",
])
def test_numbers_said_that_are_no_value_stay(redactor: Redactor, text: str) -> None:
    assert redactor.redact_text(text, {}) == text


def test_the_reading_maps_each_character_back() -> None:
    text = "ok it's oh seven seven double oh, nine hundred, one two three if you need me"
    reading, said = read_spoken(text)
    assert reading is not None
    inner, starts, ends = reading
    assert "07700 900 123" in inner
    assert len(inner) == len(starts) == len(ends)
    at = inner.index("07700")
    assert text[starts[at]:ends[at]] == "oh"  # a digit spans the word it was said as
    assert text[starts[at + 3]:ends[at + 4]] == "double oh"
    assert [kind for kind, _, _ in said] == ["phone"]
    _kind, start, end = said[0]
    assert text[start:end] == "oh seven seven double oh, nine hundred, one two three"


def test_a_policy_without_the_kind_gets_none_of_it() -> None:
    policy = dataclasses.replace(Policy.default(), kinds=tuple(
        kind for kind in Policy.default().kinds if kind != "phone"))
    out = Redactor(policy, hash_key=b"k").redact_text(
        "my number is five five five, two one two, eight nine nine one", {})
    assert "[REDACTED:phone]" not in out


def _corpus_lines() -> list[str]:
    return [json.loads(line)["text"] for name in ("corpus_te.jsonl", "corpus_tf.jsonl")
            for line in (BLIND / name).read_text().splitlines() if line.strip()]


@pytest.mark.skipif(not hyperscan_available(), reason="the hyperscan package is not installed")
def test_the_engine_reports_the_gate_wherever_python_does() -> None:
    """The redactor's prefilter reports the gate in its one pass; the engine reads non-ASCII
    letters as stand-ins, so it may report more lines, never fewer, and both engines build
    the same readings."""
    engine = make_prefilter(DETECTORS, "hyperscan", spoken_module.SIGNALS)
    python = make_prefilter(DETECTORS, "python", spoken_module.SIGNALS)
    lines = [*_corpus_lines(), "fünf sechs sieben", "dziewięć osiem siedem", "tobias ät web.de",
             "reach me at alice@example.com", "ok it's 7 6 0 2 1 3 7 5 8"]
    for line in lines:
        expected = spoken_module.signals(line)
        assert python.plan_signals(line)[1] == expected, line
        assert engine.plan_signals(line)[1] & expected == expected, line
    # a written address after "at" is no spoken one: the gate stays shut
    assert spoken_module.signals("you can also reach me at alice@example.com.") == 0


def test_most_lines_pay_only_the_gate() -> None:
    """Ordinary text never reaches the reader."""
    for text in ("2026-12-04T13:15:47Z INFO uvicorn running on http://0.0.0.0:8000",
                 "Can you summarise the thread below? thanks for getting back to me",
                 '{"usage": {"prompt_tokens": 812, "completion_tokens": 64}}'):
        assert read_spoken(text) == (None, [])


_PIECES = ["one", "two", "oh", "double", "five", "twenty", "hundred", "and", "y", "cinco",
           "soixante-dix-huit", "siebenundzwanzig", "null", "uh", "at", "dot", "[at]", "(dot)",
           "arroba", "punto", "ät", "capital", "T", "r", "a", "i", "7", "12", "4111", "...",
           ",", ".", " - ", "/", ":", "'", "gmail", "com", "x", "\u00e9", "\u0664"]


@example(["one"] * 13 + ["double", "one"], [", "] * 40)  # (found by this test: a pause after
# "double" was read before the repeated digit, whose span starts at "double")
@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40),
       st.lists(st.sampled_from([" ", "", ", ", "  "]), min_size=40, max_size=40))
def test_any_mix_reads_back_and_never_raises(pieces: list[str], gaps: list[str]) -> None:
    """Whatever words, digits and marks a text mixes, the reading maps every character back
    into the text, in order, and the redactor returns a string without failing."""
    text = "".join(piece + gap for piece, gap in zip(pieces, gaps, strict=False))
    reading, said = read_spoken(text, spoken_module.ADDRESSES | spoken_module.NUMBERS)
    if reading is not None:
        inner, starts, ends = reading
        assert len(inner) == len(starts) == len(ends)
        assert all(0 <= a < b <= len(text) for a, b in zip(starts, ends, strict=True))
        assert starts == sorted(starts)
    for _, start, end in said:
        assert 0 <= start < end <= len(text)
    counts: dict[str, int] = {}
    Redactor(hash_key=b"k").redact_text(text, counts)
    assert "redaction_failed" not in counts
