"""The round of corpora DL (Israel's services), DM (Ukraine's), DN (blood banks and organ
donation), DO (hunting, fishing and firearms licensing), DP (au pair and nanny agencies) and
DQ (call-centre quality assurance in the Philippines and India): each shape they found left or
wrongly changed, redacted or kept in process."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # Israel: phones after Hebrew's words for them and in a column headed so, a teudat zehut
    # after Arabic's, Russian's and a parent's form's names, a decoded secret, a session's
    # token, a security answer in Hebrew
    ("\u05e0\u05d9\u05d9\u05d3: 054-3505274 | \u05e4\u05e7\u05e1: 03-3356020", "03-3356020"),
    ("\u05dc\u05d1\u05d9\u05e8\u05d5\u05e8\u05d9\u05dd \u05d1\u05d8\u05dc\u05e4\u05d5\u05df "
     "042120279. \u05d4\u05d5\u05d3\u05e2\u05d4", "042120279"),
    ("\u05ea\u05d0\u05e8\u05d9\u05da\t\u05e1\u05db\u05d5\u05dd\t\u05d8\u05dc\u05e4\u05d5\u05df "
     "\u05e6\u05d3 \u05e9\u05e0\u05d9\n10/02/2024\t2701.66\t0588597165\n09/10/2024\t8000.13\t"
     "0588175177", "0588597165"),
    # (a Markdown table whose header holds Hebrew's quote, ת"ז)
    ("| \u05e9\u05dd | \u05ea\"\u05d6 | \u05d8\u05dc\u05e4\u05d5\u05df |\n|---|---|---|\n"
     "| \u05d4\u05d9\u05dc\u05d4 | 397126855 | 0584635473 |\n"
     "| \u05d0\u05d1\u05d9 | 081499105 | +972559789536 |", "081499105"),
    ("| \u05e9\u05dd | \u05ea\"\u05d6 | \u05d8\u05dc\u05e4\u05d5\u05df |\n|---|---|---|\n"
     "| \u05d4\u05d9\u05dc\u05d4 | 397126855 | 0584635473 |\n"
     "| \u05d0\u05d1\u05d9 | 081499105 | +972559789536 |", "0584635473"),
    ("\u0627\u0644\u0632\u0628\u0648\u0646: \u0631\u0642\u0645 \u0627\u0644\u0647\u0648\u064a"
     "\u0629 206981102", "206981102"),
    ("\u0410\u043d\u043a\u0435\u0442\u0430\n\u0422\u0435\u0443\u0434\u0430\u0442 \u0437\u0435"
     "\u0443\u0442: 364224360\n", "364224360"),
    ("\u05ea.\u05d6. \u05d4\u05d5\u05e8\u05d4 1: 241652809\n", "241652809"),
    ("$ echo VVdqQWdAN2J3IXByMHl1 | base64 -d\nUWjAg@7bw!pr0yu", "UWjAg@7bw!pr0yu"),
    ('{"msg": "beneficiary added", "session": "ySKWKjyGaCRXXmZ7OkrsIcB1Zrhe5U0s", "x": 1}',
     "ySKWKjyGaCRXXmZ7OkrsIcB1Zrhe5U0s"),
    ("\u05e9\u05d0\u05dc\u05ea \u05d0\u05d1\u05d8\u05d7\u05d4 (\u05e9\u05dd \u05d7\u05d9\u05ea "
     "\u05d4\u05de\u05d7\u05de\u05d3): \"\u05d1\u05d9\u05ea \u05e1\u05e4\u05e8\" - \u05d0\u05d5"
     "\u05de\u05ea.", "\u05d1\u05d9\u05ea \u05e1\u05e4\u05e8"),
    # Ukraine: "my number" in Russian, a code word, a JSON list's mobiles
    ("\u041e\u043a, \u043c\u043e\u0439 \u043d\u043e\u043c\u0435\u0440 (097) 172-73-91, \u043f"
     "\u0438\u0448\u0438\u0442\u0435", "(097) 172-73-91"),
    ("\u0432\u0435\u0440\u0438\u0444\u0438\u043a\u0430\u0446\u0438\u044f: \u043a\u043e\u0434"
     "\u043e\u0432\u043e\u0435 \u0441\u043b\u043e\u0432\u043e \u00ab\u0417\u043e\u0440\u044f"
     "\u043d\u0430\u00bb.", "\u0417\u043e\u0440\u044f\u043d\u0430"),
    ('body={"recipients":["380668993227","380669612641"],"sms":{}}', "380669612641"),
    # blood banks: a recovery code of three groups, a kiosk's PIN, a sign-in code's e-mail
    ("Recovery code read out: 388 263 422. Advised to enable 2FA.", "388 263 422"),
    ("kiosk-8 checkin method=PIN pin_entered=6046 result=OK queue_no=58", "6046"),
    ("Use 992424 to sign in to MyDonorRecord. If you didn't request this, ignore this e-mail.",
     "992424"),
    # firearms: a one-time code in Finnish
    ("Riistakeskus: kerta\u00e4ytt\u00f6inen kirjautumiskoodisi on 527683. \u00c4l\u00e4 kerro",
     "527683"),
    # call-centre QA: a contact number in Tamil, a national id on a CRM's screen, an answer
    # after who gave it
    ("\u0ba4\u0bca\u0b9f\u0bb0\u0bcd\u0baa\u0bc1 \u0b8e\u0ba3\u0bcd: 7142844618, \u0bae\u0bbf",
     "7142844618"),
    ("Email: x@example.com.ph\nID on file: 885582223539\nCard on file: x", "885582223539"),
    ("Q2 Security question (mother's maiden name / first school / first pet): customer "
     "answered \"Vizag\" - MATCH", "Vizag"),
])
def test_the_rounds_values_are_redacted(text: str, value: str) -> None:
    assert value not in _redact(text)


@pytest.mark.parametrize("text", [
    # a template's placeholders, an empty form field before the next, Ukrainian income and
    # bank codes, a JWT header decoded, a verification session's id, an AWS account id in a
    # CloudTrail record, a form's example passport number
    "DJANGO_SECRET_KEY=please-set-me\nWORKDIR /app",
    '-d \'{"apiKey": "\u0412\u0410\u0428_API_\u041a\u041b\u042e\u0427", "modelName": "Address"}\'',
    "password=&remember=1&submit=Sign+in",
    "\u041a\u043e\u0434 \u043a\u043b\u0430\u0441\u0438\u0444\u0456\u043a\u0430\u0446\u0456"
    "\u0457 \u0434\u043e\u0445\u043e\u0434\u0456\u0432: 18050400",
    "\u0434\u043b\u044f \u041f\u0440\u0438\u0432\u0430\u0442\u0411\u0430\u043d\u043a\u0443 "
    "\u043a\u043e\u0434 \u0431\u0430\u043d\u043a\u0443 305299, \u0434\u043b\u044f monobank",
    "$ echo 'eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9' | base64 -d\n"
    "{\"alg\":\"RS256\",\"typ\":\"JWT\"}",
    '{"session": "vs_jlLWn51PxJDbWf24DGu5ggT7", "status": "requires_input"}',
    '{"userIdentity": {"type": "AWSService", "accountId": "380532517794"}}',
    '<input id="passport_no" name="passport_no" type="text" placeholder="e.g. C01X00T47">',
])
def test_the_rounds_clean_lines_are_kept(text: str) -> None:
    assert _redact(text) == text


def test_a_password_opening_with_an_ampersand_is_still_one() -> None:
    """The empty field's rule ("password=&remember=1") reads a next field's lower-case name,
    not a password that opens with "&"."""
    assert "&PoZlin=olN3PWhz" not in _redact("password: &PoZlin=olN3PWhz")
