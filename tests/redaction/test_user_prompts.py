"""Shapes blind corpus EA (what users paste into a prompt, logged by an inference server as
JSON-escaped text) found missed or mistaken."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor
from servescope.redaction.detectors import DETECTORS
from servescope.redaction.joined import scan_plain
from servescope.redaction.prefilter import RegexPrefilter, make_prefilter


@pytest.mark.parametrize(("text", "value"), [
    # a word for a phone right after a JSON escape ("\\nTel. ...") in a logged prompt
    ("Warszawa\\ntel. 843-215-389, e-mail: biuro@example.pl", "843-215-389"),
    ("Importe a cargar: 2.921,41 €\\nTeléfono: 658 49 93 63<|im_end|>", "658 49 93 63"),
    ("Javier Ruiz\\nMóvil: 719 06 68 56\\nEmail: jr@example.es", "719 06 68 56"),
    # more words for it: an adjective between, Polish, Hindi
    ('Traduz para inglês: "O meu novo número é 965 491 011"', "965 491 011"),
    ("Proszę o kontakt pod numerem 814-178-018", "814-178-018"),
    ("मेरा मोबाइल 65960 24474 है", "65960 24474"),
    # after an escaped line break or tab: an international number, a German one in
    # parentheses; Japanese's and Portuguese's words for a contact and a mobile
    ("Met vriendelijke groet,\\nFemke Jansen\\n+31 6 26586860", "+31 6 26586860"),
    ("Becker\\t(0211) 3300 920\\tDE93200505507913599507", "(0211) 3300 920"),
    ("連絡先変わったので、今後は 08075148138 まで", "08075148138"),
    ("Cumprimentos,\\nInês Ferreira\\nTlm. 932 799 999", "932 799 999"),
    # national formats with the area code in parentheses (Turkey, Japan)
    ("Sorun olursa 0 (532) 772 33 95 numarasını arayın", "0 (532) 772 33 95"),
    ("今後は 06(3144)9376 までご連絡ください", "06(3144)9376"),
    # Korean's short word for a password, Troy's cards, WordPress' constants
    ("펜션 와이파이 비번 g#k+Ffy?D9af#fwv 입니다", "g#k+Ffy?D9af#fwv"),
    ("결제 카드 9792018824430982 로 결제했습니다", "9792018824430982"),
    ("define( 'DB_USER', 'wp_user' );\\ndefine( 'DB_PASSWORD', 'r0AZs#Np?jLOKcZBn' );",
     "r0AZs#Np?jLOKcZBn"),
    # a pretty-printed name/value pair (a Postman environment), a cookie in an escaped curl
    ('{\n  "key": "api_key",\n  "value": "88c1509546e2581f19344697cee0fca6",\n  "enabled": true\n}',
     "88c1509546e2581f19344697cee0fca6"),
    ("  -H \\'cookie: _ga=GA1.1.8060456643.5650446305; __Host-sess=8D82w3b6DdmKQmdbk9Apg7QPrpINO5ky"
     "\\' \\\\", "8D82w3b6DdmKQmdbk9Apg7QPrpINO5ky"),
])
def test_the_value_goes(redactor: Redactor, text: str, value: str) -> None:
    assert value not in redactor.redact_text(text, {})


@pytest.mark.parametrize("text", [
    "openai==1.35.7\\ntiktoken==0.7.0\\nboto3==1.34.131",  # a pin, not an assignment
    "define( 'DB_NAME', 'wordpress' );",
    "define('AUTH_KEY', 'put your unique phrase here');",
    "the hotel has 123456789 rooms",  # "tel" inside a word
    "build 135 2024 1130 finished",
    "see (0.5) 1234 5678 and f(0123) 45678901",
])
def test_the_look_alike_stays(redactor: Redactor, text: str) -> None:
    assert redactor.redact_text(text, {}) == text


def test_the_python_gates_read_case_folded_letters_as_the_patterns_do() -> None:
    """"ſ" folds to "s" under a case-insensitive pattern: the pure-Python prefilter's literal
    gates must admit the detector too, so both engines find the same."""
    text = 'paſſword=AKIA"abcdefghijklmnopqrstuvwxyz0123456789"'
    detectors = tuple(DETECTORS)
    engine = scan_plain(text, detectors, make_prefilter(detectors))
    assert scan_plain(text, detectors, RegexPrefilter(detectors)) == engine


# Corpus FB (agents acting for users: tool calls, browser steps, mailbox and calendar reads).
@pytest.mark.parametrize(("text", "value"), [
    # a form's field named by its selector, the key's quote escaped in a tool call's arguments
    ('{\\"fields\\":{\\"input[name=\'password\']\\":\\"QxTFld5Z86t2*223\\",\\"x\\":1}}',
     "QxTFld5Z86t2*223"),
    ('{"xpath":"//input[@id=\'password\']","text":"N47a_M2VJwD_loN0"}', "N47a_M2VJwD_loN0"),
    # kubectl decoding a Secret's password, then printing it
    ("$ kubectl get secret booking-db -o jsonpath='{.data.password}' | base64 -d; echo\\n"
     "w-#0HQ_QvGFqU4\\n$ ", "w-#0HQ_QvGFqU4"),
    ("lo studio potrebbe chiamarti al 361 0740277 domani", "361 0740277"),
])
def test_the_agents_value_goes(redactor: Redactor, text: str, value: str) -> None:
    assert value not in redactor.redact_text(text, {})


@pytest.mark.parametrize("text", [
    '{"kind": "calendar#event", "iCalUID": "2cy3lw44ullel8bdb8dya9uvse@google.com"}',
    '{"key": "OPS-4962", "id": "98381", "fields": {"summary": "GPU node drained"}}',
    "STRIPE_SECRET_KEY=sk_live_xxx\\nSLACK_BOT_TOKEN=xoxb-...",
    '2025-09-09T14:45:17.204Z pw:api navigating to "https://www.example-airline.com/manage?'
    'pnr=KY3LNM&last=ROSSI", waiting until "load"',
    "AID: A0000000031010\\nTSE-Signatur: 1jic10G54G5oyGpvjYlz+AyRUS3MgoMwYFoQh+sy",
])
def test_the_agents_look_alike_stays(redactor: Redactor, text: str) -> None:
    assert redactor.redact_text(text, {}) == text
