"""The engine, the span stage and the log stage on their own (no network)."""

from __future__ import annotations

import dataclasses
import logging
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Status, StatusCode

from servescope.redaction import (
    Action,
    Place,
    Policy,
    RedactingFilter,
    RedactingSpanExporter,
    Redactor,
    parse_policy,
)

KEY = b"test-key"


def _redactor(**changes) -> Redactor:
    return Redactor(dataclasses.replace(Policy.default(), **changes), hash_key=KEY)


def test_actions_mask_hash_drop():
    r = _redactor(actions={"email": Action.HASH, "ipv4": Action.DROP},
                  default_action=Action.MASK)
    counts: Counter[str] = Counter()
    out = r.redact_attributes({"a": "mail x@y.io", "b": "mail x@y.io", "c": "from 203.0.113.3",
                               "d": "card 4111111111111111"}, counts)
    assert out["a"] == out["b"] and out["a"].startswith("mail [email:")
    assert "c" not in out  # drop: the attribute goes
    assert out["d"] == "card [REDACTED:credit_card]"
    assert counts == {"email": 2, "ipv4": 1, "credit_card": 1}
    # in free text a drop masks (there is no attribute to remove)
    assert r.redact_text("from 203.0.113.3", Counter()) == "from [REDACTED:ipv4]"
    # another key, another hash: not comparable across deployments
    other = Redactor(r.policy, hash_key=b"other")
    assert other.redact_text("x@y.io", Counter()) != r.redact_text("x@y.io", Counter())


def test_keys_allowed_dropped_scanned():
    r = Redactor(parse_policy("""
version: 1
attributes:
  allow: [safe]
  drop: [gone]
  drop_patterns: ['(?i)password']
  scan: [checked]
  unknown: drop
"""), hash_key=KEY)
    counts: Counter[str] = Counter()
    out = r.redact_attributes({"safe": "a@b.io", "gone": "x", "DB_PASSWORD": "x",
                               "checked": "a@b.io", "other": "x", "quota.a@b.io": 3}, counts)
    # (the shipped default's actions stand where the file gives none: e-mails are hashed)
    assert out.keys() == {"safe", "checked"} and out["safe"] == "a@b.io"
    assert out["checked"].startswith("[email:")
    assert counts == {"blocked_key": 4, "email": 1}


def test_a_policy_file_is_laid_over_the_shipped_default():
    """A file that only changes the default action still drops passwords and keys and hashes
    tenant ids (an outside tester's policy lost them all, silently); a key it gives replaces
    the default's whole."""
    r = Redactor(parse_policy("version: 1\nactions:\n  default: mask\n"), hash_key=KEY)
    out = r.redact_attributes({"text": "hi", "password": "letmein99", "api_key": "zzz",
                               "tenant.id": "acme-bank"}, Counter())
    assert out.keys() == {"text", "tenant.id"}
    assert out["tenant.id"].startswith("[identity:")
    bare = Redactor(parse_policy("version: 1\nattributes:\n  drop_patterns: []\n"
                                 "  hash_patterns: []\n  hash: []\n"), hash_key=KEY)
    out = bare.redact_attributes({"password": "letmein99", "tenant.id": "acme-bank"}, Counter())
    assert out == {"password": "letmein99", "tenant.id": "acme-bank"}


def test_size_limit_never_leaves_half_a_secret():
    r = _redactor(max_value_chars=64)
    value = "x" * 59 + " 4111 1111 1111 1111 " + "y" * 100
    out = r.redact_text(value, Counter(), limit=64)
    assert "4111" not in out and "1111" not in out
    assert out.endswith("…[truncated]") and len(out) <= 64 + len("…[truncated]")


def test_numbers_and_arrays():
    r = _redactor()
    counts: Counter[str] = Counter()
    out = r.redact_attributes({"n": 4111111111111111, "small": 42, "ns": 1764471270123456789,
                               "list": ("a@b.io", "fine"), "f": 0.25, "b": True}, counts)
    assert out["n"] == "[REDACTED:credit_card]"
    assert out["small"] == 42 and out["ns"] == 1764471270123456789
    assert out["list"][0].startswith("[email:") and out["list"][1] == "fine"
    assert out["f"] == 0.25 and out["b"] is True


def test_content_follows_the_capture_mode():
    from servescope.redaction import ContentCapture

    for mode, on_span, on_event in [(ContentCapture.NO_CONTENT, False, False),
                                    (ContentCapture.SPAN_ONLY, True, False),
                                    (ContentCapture.EVENT_ONLY, False, True),
                                    (ContentCapture.SPAN_AND_EVENT, True, True)]:
        r = _redactor(content_capture=mode)
        attrs = {"gen_ai.input.messages": "hi, I am a@b.io"}
        span = r.redact_attributes(attrs, Counter(), Place.SPAN)
        event = r.redact_attributes(attrs, Counter(), Place.EVENT)
        assert ("gen_ai.input.messages" in span) is on_span
        assert ("gen_ai.input.messages" in event) is on_event
        for kept in (span, event):
            assert "a@b.io" not in str(kept)


def _traced(redactor: Redactor):
    sink = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(RedactingSpanExporter(sink, redactor)))
    return provider, sink


def test_span_stage_covers_name_events_links_status():
    provider, sink = _traced(_redactor())
    tracer = provider.get_tracer("t")
    with tracer.start_as_current_span("seed") as seed:
        link_ctx = seed.get_span_context()
    link = trace.Link(link_ctx, {"why": "asked by a@b.io"})
    with tracer.start_as_current_span("GET /users/a@b.io", links=[link]) as span:
        span.add_event("retry from 198.51.100.7", {"ip": "198.51.100.7"})
        span.set_status(Status(StatusCode.ERROR, "bad token ghp_" + "a" * 36))
    out = sink.get_finished_spans()[-1]
    text = f"{out.name}{out.events[0].name}{dict(out.events[0].attributes)}" \
           f"{dict(out.links[0].attributes)}{out.status.description}"
    for leaked in ("a@b.io", "198.51.100.7", "ghp_aaaa"):
        assert leaked not in text
    assert out.attributes["servescope.redaction.count"] == 5
    assert out.attributes["servescope.redaction.count.ipv4"] == 2
    assert out.context == span.get_span_context()  # ids survive: traces still join up


class _Broken:
    """A redactor whose attribute redaction raises (a compiled redactor's methods cannot be
    patched, so this stands in front of one)."""

    def __init__(self, inner: Redactor) -> None:
        self._inner = inner

    def __getattr__(self, name: str):
        return getattr(self._inner, name)

    def redact_attributes(self, *_a, **_k):
        raise RuntimeError("boom")


def test_a_span_that_cannot_be_redacted_is_not_exported():
    provider, sink = _traced(_Broken(_redactor()))
    with provider.get_tracer("t").start_as_current_span("s") as span:
        span.set_attribute("x", "a@b.io")
    assert sink.get_finished_spans() == ()


def test_log_filter(caplog):
    counts: Counter[str] = Counter()
    f = RedactingFilter(_redactor(), on_redacted=lambda k, n: counts.update({k: n}))
    log = logging.getLogger("servescope.test.logfilter")
    handler = logging.StreamHandler()
    handler.addFilter(f)
    records: list[logging.LogRecord] = []
    handler.emit = records.append  # type: ignore[method-assign]
    log.addHandler(handler)
    log.propagate = False
    try:
        tracer = TracerProvider().get_tracer("t")
        with tracer.start_as_current_span("req") as span:
            log.warning("user %s from %s", "a@b.io", "203.0.113.9",
                        extra={"tenant": "c@d.io", "user.email": "e@f.io"})
            try:
                raise ValueError("card 4111 1111 1111 1111")
            except ValueError:
                log.exception("failed")
    finally:
        log.removeHandler(handler)
    first, second = records
    assert first.getMessage().startswith("user [email:") and "203.0.113.9" not in first.getMessage()
    # a tenant is an identity whatever it holds: a keyed hash of the whole value
    assert first.tenant.startswith("[identity:") and not hasattr(first, "user.email")
    assert first.trace_id == format(span.get_span_context().trace_id, "032x")
    assert second.exc_info is None and "4111" not in second.getMessage()
    assert "Traceback" in second.getMessage()
    assert counts["email"] == 1 and counts["identity"] == 1 and counts["blocked_key"] == 1
    assert counts["credit_card"] == 2


@settings(max_examples=800, deadline=None)
@given(st.lists(st.sampled_from(["%", "%4", "%41", "%2540", "%zz", "a", "b=", " ", "\u00a0",
                                 "\t", "/", "%%", "é"]), max_size=20).map("".join))
def test_property_encoded_words_are_the_patterns_matches(text: str) -> None:
    """The encoded-word search jumps between "%" signs; it finds what the plain search does."""
    from servescope.redaction.redactor import _ENCODED_WORD, _encoded_words

    assert [m.span() for m in _encoded_words(text)] == [
        m.span() for m in _ENCODED_WORD.finditer(text)]


def _decoded_by_regex(text: str) -> tuple[str, list[tuple[int, int, int, bool]]] | None:
    """One level of percent-decoding the plain way: each run the regex finds, decoded."""
    import re

    segments: list[tuple[int, int, int, bool]] = []
    parts: list[str] = []
    pos = decoded = 0
    for match in re.finditer(r"(?:%[0-9A-Fa-f]{2})+", text):
        start, end = match.span()
        if start > pos:
            segments.append((decoded, pos, start, True))
            parts.append(text[pos:start])
            decoded += start - pos
        run = bytes.fromhex(match.group().replace("%", "")).decode("utf-8", "replace")
        segments.append((decoded, start, end, False))
        parts.append(run)
        decoded += len(run)
        pos = end
    if not segments:
        return None
    if pos < len(text):
        segments.append((decoded, pos, len(text), True))
        parts.append(text[pos:])
    return "".join(parts), segments


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(
    ["%", "%4", "%41", "%2F", "%e2%82%ac", "%E2%82", "%C3%A9", "%zz", "%%", "%25", "%2540",
     "%40", "41", "a", "é", "x y", "%0A"]), st.text(max_size=4)), max_size=12).map("".join))
def test_property_percent_decoding_is_the_regex_runs_decoded(text: str) -> None:
    """The decoder splits at "%" instead of searching for runs of escapes; its text and its
    map back are those of the plain regex way."""
    from servescope.redaction.decoding import _decode_once

    view = _decode_once(text)
    expected = _decoded_by_regex(text)
    if expected is None:
        assert view is None
        return
    assert view is not None
    assert (view.text, view._segments) == expected
    assert view._starts == [s[0] for s in expected[1]]


@settings(max_examples=1500, deadline=None)
@given(st.one_of(st.text(alphabet="0123456789", min_size=12, max_size=19),
                 st.text(alphabet="0123456789 -\u0663\u0967", max_size=24)))
def test_property_card_issuers_are_looked_up_as_the_brand_table_says(candidate: str) -> None:
    """The issuer check looks prefixes up in a set made from the brand table; it decides as
    walking the table does (any brand whose prefix range and lengths admit the number)."""
    from servescope.redaction.validators import _CARD_BRANDS, digits, luhn_ok, payment_card_ok

    numerals = digits(candidate)
    walked = any(len(numerals) in lengths and numerals[:width].isdigit()
                 and low <= int(numerals[:width]) <= high
                 for (low, high), width, lengths in _CARD_BRANDS)
    assert payment_card_ok(candidate) == (walked and luhn_ok(numerals))


def test_known_cards_pass_and_a_wrong_issuer_fails() -> None:
    from servescope.redaction.validators import payment_card_ok

    for card in ("4111 1111 1111 1111", "5500005555555559", "371449635398431",
                 "6011111111111117", "3530111333300000", "2221000000000009"):
        assert payment_card_ok(card), card
    assert not payment_card_ok("1234567890123452")  # passes Luhn, no issuer starts with 1


def test_a_card_before_its_expiry_is_still_a_card() -> None:
    """A short group after a grouped card's own (an expiry, a count) made the whole run fail
    the checksum, and the card was left (an outside probe)."""
    redactor = _redactor()
    for text, card in (("card 4111 1111 1111 1111 12/26 cvv 123", "4111 1111 1111 1111"),
                       ("paid with 5555 5555 5555 4444 2 times", "5555 5555 5555 4444"),
                       ("4111-1111-1111-1111-12", "4111-1111-1111-1111")):
        out = redactor.redact_text(text, {})
        assert card not in out and "[REDACTED:credit_card]" in out, out
    # an id that is no card stays, short group or not
    assert redactor.redact_text("id 4111 1111 1111 1112 12", {}) == "id 4111 1111 1111 1112 12"


def test_a_password_ending_in_digits_after_an_at_sign_is_not_a_java_object() -> None:
    """'Test@88990011' read as a class and its identity hash (all digits are hex digits too)
    and was left under a password's key; a Java object's hash has a hex letter nearly always
    (an outside corpus)."""
    redactor = _redactor()
    for text in ('{"password":"Test@88990011"}', '{"pwd":"Test@88990011"}'):
        assert "88990011" not in redactor.redact_text(text, {}), text
    kept = "token=android.os.BinderProxy@2bd79ce"
    assert redactor.redact_text(kept, {}) == kept
