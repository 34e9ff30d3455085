"""The round of corpora BL (elections administration), BM (auto repair), BN (tutoring
marketplaces), BO (therapy practices), BP (sports teams) and BQ (AI API resellers and GPU
clouds): each shape they found left or wrongly changed, redacted or kept in process."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # passwords: a Windows program's switch, curl's -u among other short flags
    ('Process Command Line: "C:\\EMS\\ResultsExport.exe" /server:ems-db01 /user:svc /password:'
     'hjUC0XSbO1IoWVUbTQYI2l /election:GEN2024', "hjUC0XSbO1IoWVUbTQYI2l"),
    ("  993  curl -su video_ops:CZye5XKjlqLZ0Rroa2NpdkZyWr9jsGrC https://clips.example-scout.com/x",
     "CZye5XKjlqLZ0Rroa2NpdkZyWr9jsGrC"),
    ("Guest Wi-Fi (waiting room): SSID BrightwaterGuest  WPA2: Piston$camshaft75",
     "Piston$camshaft75"),
    # authenticators' seeds: a manual entry key, an MFA seed
    ("Re-enrolled authenticator. Manual entry key shown to user: GLIPLXLLLMQYFDBCO3RLXURM36VYVHQA.",
     "GLIPLXLLLMQYFDBCO3RLXURM36VYVHQA"),
    ("OEM portal SSO (MFA seed SIQQUROTVCXER2QIVRLZTGLPJM35WTGC loaded in authenticator)",
     "SIQQUROTVCXER2QIVRLZTGLPJM35WTGC"),
    # a vehicle's codes: a locksmith portal's incode, an immobiliser's, a French key card's, a
    # key drop box's
    ("2024-07-04 | VSP-32833 | Ford | key code + PATS | key code 04505, incode 797360", "04505"),
    ("Dopo sostituzione centralina, inserito codice immobilizer 94402 (code card cliente).",
     "94402"),
    ("Clé supplémentaire Renault Mégane IV : code carte 2055 fourni par le constructeur", "2055"),
    ('"vehicle":{"plate":"5TDH888"},"key_drop_code":"4770","notes":"x"}', "4770"),
    # security answers: an export's JSON questions, the answer on the line after the question,
    # Spanish's guillemets
    ('"security_questions": [{"q":"First pet\'s name","a":"Ms. Patterson"},{"q":"City","a":'
     '"Lakers"}]', "Patterson"),
    ("Q: Your first car?\nA (as given): blue Civic\nUpdated login email", "blue Civic"),
    ("Verificación: respuesta de seguridad «Rivera» correcta; correo", "Rivera"),
    # Agora's RTC token in a config's comment
    ("# 调试用临时 token（24小时）：\n# 007eJx3oXWiJDKp6+MHiKRIQxJnl7vE7NyBcsjhBbG1C4qouMMC"
     "JvRtJ5l9UJUkGI6Cksq0d4ccE3FB+61hM8Yzt71pZ+3cmFkQROWIQ7uJCxfumZ6Z9Cg0ERmyq9NayENuybPTZF",
     "007eJx3oXWiJDKp6+MHiKRIQxJnl7vE7NyBcsjhBbG1C4qouMMCJvRtJ5l9U"),
])
def test_the_round_s_shapes_are_redacted(text: str, value: str) -> None:
    assert value not in _redact(text)


@pytest.mark.parametrize("text", [
    # a GPU marketplace's table (its DLPerf column is no driving licence), a JWKS's cached key
    # ids, LiteLLM's hashed key with the model before its spend
    "| offer_id | gpu | n | $/h | DLPerf | location |\n|---|---|---|---|---|---|\n"
    "| 18357781 | H100 SXM5 80GB | 4 | 3.681 | 163.2 | PL |",
    "JWT validation failed: kid \"e9f42f73b54f3f80\" not found; cached keys: [3891afa9aa0eeea1, "
    "957e646ab58328b6]; alg=RS256",
    '{"request_id": "chatcmpl-0fb8", "api_key": "481d409368a99372538e2efb3028edf34e88b28dcce31f'
    '8980c52b9407c91fa0", "model": "gpt-4o", "spend": 0.293007}',
    # a migration's SQL on a key's column, a rotated key's note in its place, a customer's
    # number, a voting machine's id
    "UPDATE api_keys SET key_hash = encode(sha256(key_plain::bytea), 'hex'), "
    "key_last4 = right(key_plain, 4);",
    '-  stripe_secret_key: "sk_live_REDACTED_ROTATED"',
    "Codice cliente: 83936 — Pacchetto 10 lezioni di matematica",
    "Código de identificação da urna: 6871046   Resumo digital: b2",
    # a password's path segment in a URL
    "see https://help.example-portal.net/a/password:reset",
])
def test_the_round_s_clean_lines_are_kept(text: str) -> None:
    assert _redact(text) == text
