"""Values told in a sentence rather than under a key: word orders other than English's, a
quote escaped inside a value, a rotated key's new value."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor


@pytest.mark.parametrize(("text", "value"), [
    # Italian says the English word, then "è"
    ("La password temporanea è Kaffee*2020lisboa; come la cambio?", "Kaffee*2020lisboa"),
    ("la mia password è Ciao2024!! grazie", "Ciao2024!!"),
    # the number first, then the word for calling (Hindi, Japanese, Korean)
    ("मुझे 92006 99787 पर कॉल करें", "92006 99787"),
    ("090-1234-5678に電話してください", "090-1234-5678"),
    ("010-1234-5678로 전화 주세요", "010-1234-5678"),
    # a quote escaped inside a value, once and twice
    (r'connect(user=\"etl\", password=\"l0qnp\"Im4s#187\")', r'l0qnp\"Im4s#187'),
    (r'the password is 7cZt3\\\"eaGk#614 \\u2014 keep it', r'7cZt3\\\"eaGk#614'),
    # a rotated key's new value
    ("rotated key, new value 398178dfab5c5d7f224b02374b575f2c", "398178dfab5c5d7f224b02374b575f2c"),
    ("Token rotated. New value: ghx_8f7d6c5b4a39281726354abc", "ghx_8f7d6c5b4a39281726354abc"),
])
def test_the_value_is_redacted_whole(redactor: Redactor, text: str, value: str) -> None:
    out = redactor.redact_text(text, {})
    assert value not in out
    assert "[REDACTED:" in out
    # nothing of the value is left beside its mask (no fragment after an inner quote)
    assert not any(part in out for part in value.replace("\\", " ").replace('"', " ").split()
                   if len(part) >= 4)


@pytest.mark.parametrize("text", [
    "la password è stata cambiata ieri",           # no token after the verb
    "ordine 2024 12 01 12345 電話で確認",            # 13 digits: not a phone number
    r'{\"password\": \"[REDACTED]\", \"user\": \"etl\"}',
    "new value 398178dfab5c5d7f224b02374b575f2c for the etag",  # no key word before it
    "the cache hit rate is up, new value 0.93",
])
def test_look_alikes_stay(redactor: Redactor, text: str) -> None:
    assert redactor.redact_text(text, {}) == text


def test_an_escaped_quote_before_a_separator_closes_the_value(redactor: Redactor) -> None:
    text = r'{\"password\":\"abc123x\",\"user\":\"etl\"}'
    assert redactor.redact_text(text, {}) == (
        r'{\"password\":\"[REDACTED:secret_assignment]\",\"user\":\"etl\"}')
