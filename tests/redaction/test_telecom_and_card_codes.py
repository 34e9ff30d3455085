"""A handset's, a subscriber's and a SIM's ids (kind ``telecom_id``), a card's security code
and a PIN: numbers any count or id could be, so each is found under its own name only."""

from __future__ import annotations

import pytest
from go_regexp import compile_re2

from servescope.collector.config import RE2_PATTERNS
from servescope.redaction import Redactor, scan
from servescope.redaction.policy import parse_policy


@pytest.mark.parametrize(("text", "kind", "value"), [
    ("2024-06-05T15:27:42Z INFO esim order=483119 iccid=8949238217231650625 step=download",
     "telecom_id", "8949238217231650625"),
    ('{"device": {"imei": "356938035643809", "model": "SM-A546B"}}', "telecom_id",
     "356938035643809"),
    ("The device IMEI is 35-209900-176148-1, please block it", "telecom_id",
     "35-209900-176148-1"),
    ("attach accepted imsi=310260123456789 apn=internet", "telecom_id", "310260123456789"),
    ("SIM serial: 89441000301234567890F", "telecom_id", "89441000301234567890F"),
    ("MEID A0000012345678 on the CDMA handset", "telecom_id", "A0000012345678"),
    ('"payment_method_data[card][cvc]":"324"}', "credit_card", "324"),
    ("caller read the CVV 123 from the back of the card", "credit_card", "123"),
    ("security code: 9876 (Amex, front)", "credit_card", "9876"),
    ('  step=collect_pin dtmf="4108#"', "secret_assignment", "4108"),
    ("my card PIN is 4821, can you reset it?", "secret_assignment", "4821"),
    ("pin_code=736201", "secret_assignment", "736201"),
    # corpus TD's forms: a modem's AT answers, a second IMEI, a SIM under sim=, other
    # languages' names for a card's code, a PIN with words between, a PUK, a SIM lock
    ("modem[ttyUSB2]: AT+CGSN -> 353911100125476 OK", "telecom_id", "353911100125476"),
    ("AT+CIMI -> 334020570301806", "telecom_id", "334020570301806"),
    ("AT+QCCID -> +QCCID: 89492049266926661268", "telecom_id", "89492049266926661268"),
    ("serial F2LXK9Q1HG7F, IMEI2 864531058364562, owner r.o", "telecom_id", "864531058364562"),
    ("heartbeat sim=8910042930500533070 volt=12.6", "telecom_id", "8910042930500533070"),
    ("Kartennummer folgt, Prüfnummer 727, bitte", "credit_card", "727"),
    ("el código de seguridad 611, no me deja pagar", "credit_card", "611"),
    ("oh and the card code on the back is 591, sorry", "credit_card", "591"),
    ("New Amex, 4-digit code 9531 on the front.", "credit_card", "9531"),
    ("el PIN de la tarjeta SIM es 9202, ¿me ayudas?", "secret_assignment", "9202"),
    ("and the PUK 35866522 if it locks", "secret_assignment", "35866522"),
    ('modem: AT+CPIN="094182" -> OK', "secret_assignment", "094182"),
    ('sim unlock: AT+CLCK="SC",0,"468203" -> OK', "secret_assignment", "468203"),
])
def test_a_value_under_its_name_is_found(text: str, kind: str, value: str) -> None:
    assert [(f.kind, f.value) for f in scan(text)] == [(kind, value)]
    assert value not in Redactor().redact_text(text, {})


@pytest.mark.parametrize("text", [
    "imei_count 123456789012345 devices registered",
    "imsi_hash: 1234567890123456789",
    "IMEI-like serial 203900539635589 registered to fleet tracker 761899211",
    "IMSI attach took 1500 ms",
    "imei=000000000000000 (placeholder)",
    "pin_memory=True batch 4096",
    "GPIO pin 17 high",
    "spin 10000 iterations",
    "pinned 2048 pages",
    "PIN changed 2024-05-01",
    "CVE-2024-1234 fixed in 1.2.3",
    "cvc_version=1234",
    '[ui-kit] Card code 404 rendered in <EmptyState/>',
    "pin count is 1024 on the BGA package",
    "security code review 2024 scheduled",
    "AT+CSQ -> +CSQ: 23,99 OK",
])
def test_a_number_beside_the_word_stays(text: str) -> None:
    assert Redactor().redact_text(text, {}) == text


def test_a_cdr_exports_columns_are_found_by_their_headers() -> None:
    text = ("record_type,served_msisdn,served_imsi,served_imei,duration_s\n"
            "MOC,628779981629,510103653191937,536540279117728,184\n"
            "MTC,491602390435,262014878755812,715759049493555,97")
    out = Redactor().redact_text(text, {})
    for value in ("510103653191937", "536540279117728", "262014878755812", "715759049493555"):
        assert value not in out
    assert "184" in out and "97" in out


def test_an_inserts_cvv_column_is_found_by_its_name() -> None:
    text = "INSERT INTO payment_attempts(pan, cvv) VALUES ('4539730460074465', '862');"
    out = Redactor().redact_text(text, {})
    assert "862" not in out and "4539730460074465" not in out


def test_a_policy_may_leave_telecom_ids_out() -> None:
    policy = parse_policy("version: 1\ndetectors: [email, phone]\n")
    text = "imei=356938035643809"
    assert Redactor(policy).redact_text(text, {}) == text


@pytest.mark.parametrize(("kind", "text", "value"), [
    ("telecom_id", "iccid=8949238217231650625 msisdn=x", "8949238217231650625"),
    ("telecom_id", "served_imsi: 510103653191937", "510103653191937"),
    ("credit_card", '"card[cvc]":"324"', "324"),
    ("secret_assignment", 'step=collect_pin dtmf="4108#"', "4108"),
    ("telecom_id", "AT+QCCID -> +QCCID: 89492049266926661268", "89492049266926661268"),
    ("telecom_id", "heartbeat sim=8910042930500533070 volt=12.6", "8910042930500533070"),
    ("credit_card", "el código de seguridad 611, no me deja", "611"),
    ("secret_assignment", 'sim unlock: AT+CLCK="SC",0,"468203" -> OK', "468203"),
    ("secret_assignment", "el PIN de la tarjeta SIM es 9202", "9202"),
])
def test_the_collectors_patterns_take_them(kind: str, text: str, value: str) -> None:
    match = compile_re2(RE2_PATTERNS[kind]).search(text)
    assert match is not None and value in match.group(0)
