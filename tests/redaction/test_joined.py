"""The joined pass rescans only where a joiner can change a detector's matches, and finds
exactly what a full rescan finds.

The reference is the pass as it was: every text with a "-" or "_" scanned again, whole, by
every detector of the kinds a joiner can hide, with the joiners read as spaces. The gated pass
(``redaction.joined``) must return the same findings on the corpora, on every value glued into
an id, and on texts a property test stitches from values, joiners, separators and lookalikes.
"""

from __future__ import annotations

import random

import ops_corpus
import redaction_corpus as rc
from hypothesis import given, settings
from hypothesis import strategies as st

from servescope.redaction import DETECTORS, Finding, scan
from servescope.redaction.detectors import prefilter_for
from servescope.redaction.joined import glued_number, scan_plain, spaced
from servescope.redaction.prefilter import RegexPrefilter

# The kinds the joined pass covered before it was gated: the gate must not change the set.
JOINABLE_KINDS = frozenset({"email", "iban", "credit_card", "us_ssn", "ipv4", "ipv6", "phone",
                            "ipv4_private", "ipv6_private"})
SUBSET = tuple(d for d in DETECTORS if d.kind in JOINABLE_KINDS)
PREFILTER = prefilter_for(DETECTORS)


def rescan_all(text: str) -> list[tuple[str, int, int, str]]:
    """The ungated pass: a whole second scan of the joined text."""
    found = scan(text, DETECTORS)
    if "-" in text or "_" in text:
        extra = [Finding(f.kind, f.start, f.end, text[f.start:f.end])
                 for f in scan(spaced(text), SUBSET, prefilter=prefilter_for(SUBSET))
                 if not any(f.start < g.end and g.start < f.end for g in found)
                 and not glued_number(text, f)]
        found = sorted(found + extra, key=lambda f: f.start)
    return [(f.kind, f.start, f.end, f.value) for f in found]


def gated(text: str) -> list[tuple[str, int, int, str]]:
    return [(f.kind, f.start, f.end, f.value) for f in scan_plain(text, DETECTORS, PREFILTER)]


def test_the_detectors_in_the_joined_pass_are_the_joinable_kinds() -> None:
    assert {d.kind for d in DETECTORS if d.joined is not None} == JOINABLE_KINDS
    assert all(d.joined is not None for d in SUBSET)


def _glued(value: str) -> list[str]:
    return [f"req-{value}-7", f"id_{value}_x", f"{value}-{value}", f"a-{value}", f"{value}_",
            f"x {value}-", f"order_{value} and ref-{value}-"]


def _corpus_texts() -> list[str]:
    rng = random.Random(11)
    texts = [s.text for s in rc.build()]
    texts += [p.text for p in ops_corpus.positives()]
    texts += [line for _, line in ops_corpus.negatives()]
    for make in rc.POSITIVES.values():
        for _ in range(6):
            texts += _glued(make(rng))
    for snippet in ops_corpus.SNIPPETS.values():
        for _ in range(4):
            texts += _glued(snippet(rng)[0])
    return texts


def test_corpus_and_glued_values_find_what_a_full_rescan_finds() -> None:
    texts = _corpus_texts()
    assert len(texts) > 2000
    changed = 0
    for text in texts:
        expected = rescan_all(text)
        assert gated(text) == expected, text
        changed += expected != [(f.kind, f.start, f.end, f.value) for f in scan(text)]
    assert changed > 100  # the joined reading does find values here: the check has teeth


def test_the_pure_python_engine_gates_the_same_way() -> None:
    """Without Hyperscan, the literal gates on the joined text say which detectors it needs."""
    python = RegexPrefilter(DETECTORS)
    for text in _corpus_texts()[::3]:
        assert [(f.kind, f.start, f.end, f.value)
                for f in scan_plain(text, DETECTORS, python)] == rescan_all(text), text


def test_the_gate_skips_joiners_that_cannot_hide_a_value() -> None:
    memo: dict[str, object] = {}
    quiet = ("2026-11-30T12:00:01.123Z INFO [worker-3] rank_0_0 vllm-0 ok "
             "social_security_number=262955875 from 202-16-4032 at jane@example.com")
    assert not [d.kind for d in SUBSET if d.joined(quiet, memo)  # type: ignore[misc]
                and d.kind not in ("us_ssn", "phone")]
    # a dashed number is rescanned, but only its own run of digits and separators
    for d in SUBSET:
        for start, end in d.joined(quiet, memo):  # type: ignore[misc]
            assert quiet[start:end] == " 202-16-4032 ", (d, quiet[start:end])
    for text, kind in (("req-alice@example.com-4111111111111111", "email"),
                       ("req-alice@example.com-4111111111111111", "credit_card"),
                       ("ssn-078051120", "us_ssn"), ("host_198.51.100.3", "ipv4"),
                       ("iban_DE89370400440532013000", "iban"), ("zone 2001:db8::1_x", "ipv6")):
        rescanned = {d.kind for d in SUBSET if d.joined(text, {})}  # type: ignore[misc]
        assert kind in rescanned, (text, kind)


_FRAGMENTS = st.sampled_from([
    "-", "_", "--", "_-", " ", "  ", ".", "(", ")", "+", "@", ":", "::", "%", "=", "'", '"', "\\",
    "4111111111111111", "4111 1111 1111 1111", "4111-1111-1111-1111", "4111", "1111 ", "111",
    "078-05-1120", "078 05 1120", "078051120", "ssn", "SSN", "social", "security", "number", "no",
    "jane", "doe", "example.com", "ex-ample.org", "xn--bcher-kva", "müller",
    "DE89370400440532013000", "DE89 3704 0044 0532 0130 00", "GB82WEST12345698765432", "DE",
    "89", "3704", "+1", "+44 20 7946 0958", "(212) 555-0123", "212", "555", "0123",
    "0044 20 7946 0958", "00491512345678", "07700 900123", "01 81 03 37 07", "0",
    "10.1.2.3", "192.168.1.23", "1.2.3", "fe80::1", "2001:db8::8a2e:370:7334", "%eth0",
    "1:2:3:4:5:6:7:8", "abcd", "ef", "x", "id", "req", "٣٣٣", "٢٢", "\u00a0", "\t", "é",
])
_TEXTS = st.lists(st.one_of(_FRAGMENTS, st.text(alphabet="-_ 0123456789@.:+()aZ", max_size=8)),
                  max_size=16).map("".join)


@settings(max_examples=1500, deadline=None)
@given(_TEXTS)
def test_property_the_gated_pass_finds_what_a_full_rescan_finds(text: str) -> None:
    assert gated(text) == rescan_all(text)


@settings(max_examples=1500, deadline=None)
@given(_TEXTS)
def test_property_joined_prefilters_read_the_text_as_the_prefilters_read_it_joined(
        text: str) -> None:
    """A detector's joined prefilter matches a text exactly where its prefilter matches the
    text with the joiners read as spaces (one engine pass then tells both)."""
    _, joined = PREFILTER.candidates_joined(text)
    reference = [i for i in PREFILTER.candidates(spaced(text)) if DETECTORS[i].joined]
    assert joined == reference
