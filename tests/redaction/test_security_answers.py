"""Secrets a caller gives to prove who they are: security questions' answers, PINs and the
codes that open a door or an alarm, one-time codes read back (redaction/detectors.py,
``_SECURITY_ANSWERS``, the PIN detector's names). Questions asked and rules told stay."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor


@pytest.fixture(scope="module")
def redactor() -> Redactor:
    return Redactor(hash_key=b"kba-tests")


@pytest.mark.parametrize(("text", "answer"), [
    ("first pet was Skippy", "Skippy"),
    ("mother's maiden name, it's Szymańska", "Szymańska"),
    ("memorable word is marmalade and my PIN is 4821", "marmalade"),
    ("the name of my first school, that's St Mary's primary", "St Mary's primary"),
    ("the answer to the security question is Ballarat", "Ballarat"),
    ("el nombre de mi primera mascota era Lupo", "Lupo"),
    ("le nom de jeune fille de ma mère, c'est Lemaire", "Lemaire"),
    ("nazwisko panieńskie matki: Jankowska", "Jankowska"),
    ("het antwoord op de beveiligingsvraag is Boris", "Boris"),
    ('{"role":"user","content":"Mädchenname meiner Mutter ist Brandt"}', "Brandt"),
])
def test_a_security_answer_is_redacted(redactor: Redactor, text: str, answer: str) -> None:
    counts: dict[str, int] = {}
    out = redactor.redact_text(text, counts)
    assert answer not in out
    assert counts.get("secret_assignment", 0) >= 1


@pytest.mark.parametrize(("text", "code"), [
    ("the PIN I set up was 1504", "1504"),
    ("the delivery PIN on the text is 5456", "5456"),
    ("hi love, the alarm code is 7345, the spare key's under the pot", "7345"),
    ("uh telephone banking passcode 109258", "109258"),
    ("gate code: 4410#", "4410"),
    ("yeah the code you just texted me is 706 482", "706 482"),
])
def test_a_code_said_after_its_name_is_redacted(redactor: Redactor, text: str,
                                                code: str) -> None:
    assert code not in redactor.redact_text(text, {})


@pytest.mark.parametrize("text", [
    "what was the name of your first pet?",
    "Please confirm your mother's maiden name.",
    "memorable word reset by agent 4412",
    "your memorable word is required",
    "first pet was a dog named after a footballer",
    "Security question updated for user 1234",
    "pin count is 1024",
    "exit code 1234 after 2048 ms",
    "HTTP status code 401, retry in 1500 ms",
    "the code expires in 10 minutes",
    "pinned the dependency to 2.1.0 and pinned workers to CPU 3",
    "the favourite colour picker shipped in 2024",
])
def test_questions_and_rules_stay(redactor: Redactor, text: str) -> None:
    assert redactor.redact_text(text, {}) == text


@pytest.mark.parametrize("text", [
    "My favorite movie is Inception, can you recommend similar films?",
    "Deliver to 12 First Street, Springfield",
    "first love: Paris in the spring",
])
def test_what_a_chat_is_about_is_no_answer(redactor: Redactor, text: str) -> None:
    assert redactor.redact_text(text, {}) == text
