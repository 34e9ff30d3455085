"""The round of corpora AX (fraud prevention and chargebacks), AY (medical billing), AZ
(embedded devices and factory provisioning), BI (home services marketplaces), BJ (subscription
billing) and BK (the creator economy): each shape they found left or wrongly changed, redacted
or kept in process."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # phones: EMV 3-D Secure's phone object, "Called ... at", French's caller's number, a call
    # note's callback, a form's bracketed note
    ('"mobilePhone": {\n  "cc": "1",\n  "subscriber": "2125183538"\n }', "2125183538"),
    ("Called CH at 697-459-659, confirmed she did NOT place order WEB-2023-303520", "697-459-659"),
    ("Numéro appelant : 0764796029. Virement de 8603 € émis", "0764796029"),
    ("Pt paying in full. Conf #41734015. Best callback 6159584749. Closed", "6159584749"),
    ("Aadhaar: 7686 6395 5940\nMobile (OTP sent): 08042065233\nICCID range", "08042065233"),
    # codes: an IVR's entered PIN, a verification service's sent code, a terminal's PIN, a word
    # lockbox's code in prose and in a table, a keypad's code after a comma or in brackets
    ("ani=(919) 532-7212 menu=card_services action=pin_change dtmf_entered=0608 result=OK",
     "0608"),
    ('DEBUG verify.send channel=sms to="+31 6 0552 8046" locale=eu code=214106 attempt=1',
     "214106"),
    ("[AUTH] local fallback: badge server unreachable, PIN entered=868298", "868298"),
    ("Unit 4C lockbox: EFDE (the old one is broken, use the one on the railing)", "EFDE"),
    ("unit,property,lockbox_serial,lockbox_code,alarm_code\n309,Maple Court,SL-205719,FAHC,9851",
     "FAHC"),
    ("[+14698675324 -> +12145286459] coming! actually just use the keypad, 9499", "9499"),
    ("Pro can enter through garage keypad (8126) and must disarm the alarm", "8126"),
    ("Infos d'accès transmises : digicode A1156, bât. B.", "A1156"),
    # security answers: a log's answer_provided=, a ticket's quoted question "with" its answer
    ('step=security_question q_id=3 answer_provided="blue Corolla" match=false', "blue Corolla"),
    ('answered security question "first pet\'s name" with "Peanut". Agent proceeded', "Peanut"),
    ("Answered security question (first pet's name) with \"Granny Rosa\" - matches.",
     "Granny Rosa"),
    # passwords: a helpdesk's temporary one, Wi-Fi's after its network
    ("[7:26 AM] helpdesk: reset it, temp is Claims@8720T , change at login", "Claims@8720T"),
    ("Panel: Kestrel Hub G2\nWi-Fi: NETGEAR88 / NKIgnugMXNTT\nKeypad master code", "NKIgnugMXNTT"),
    # devices: a flash partition's strings, a SIM's new PIN after its PUK, a modem's PSK, WPS,
    # HomeKit, U-Boot's environment, an ESP's proof of possession, a bootloader's unlock code,
    # a device's claim code
    ("$ strings -n 8 nvs.bin | grep -iE 'pass|token'\nsta.pswd\nHaus2010#\nmqtt_host\n10.0.0.2",
     "Haus2010#"),
    ("cloud_token\n4694b2addd5981f463b7ad568b35f17d15265c69\n",
     "4694b2addd5981f463b7ad568b35f17d15265c69"),
    ('AT+CPIN="53375324","6942"\nOK', "6942"),
    ('AT%CMNG=0,13905815,3,"0a58197fae07e330f81f621bac556b6c"\nOK',
     "0a58197fae07e330f81f621bac556b6c"),
    ("wpa_cli -i wlan0 wps_pin any 94566512", "94566512"),
    ("[hap] accessory AC2222R9BC5E ready for pairing\n[hap] setup code: 291-14-540", "291-14-540"),
    ("=> setenv ota_token ZtpEf5D2kNdKxd3NxArfNgqp1tolWPMW\n=> saveenv",
     "ZtpEf5D2kNdKxd3NxArfNgqp1tolWPMW"),
    ("    fw_setenv mqtt_pass 'QiFCWCwa67'", "QiFCWCwa67"),
    ("D ProvisionManager: Security1 session, pop=v0ii9irh", "v0ii9irh"),
    ("$ fastboot oem unlock 9DA377B6ACBFF1D3\n(bootloader) Unlock code accepted",
     "9DA377B6ACBFF1D3"),
    ('{"claim_code": "M8TENO", "owner_hint": "x", "region": "apac"}', "M8TENO"),
    # ids: Germany's KVNR as a connector logs it, a CPF as a Pix key
    ("WARN VSDM Prüfungsnachweis fehlt; Versicherten-ID=Y666154573; Kostenträger-IK=107192537",
     "Y666154573"),
    ('{"event": "repasse.pix.enviado", "chave_pix": "58678739517", "tipo_chave": "CPF"}',
     "58678739517"),
    # cookies and keys: a quoted session cookie in a log, Cloudflare's bot cookie, Paddle's key
    ('WARN session.anomalie ip=86.80.85.176 cookie_session="un713m1u9y62u0ujl8xb2dnqsf" raison=',
     "un713m1u9y62u0ujl8xb2dnqsf"),
    ('"value": "theme=dark; __cf_bm=H1DPcilnI0yvkYGFpRg9znLhBz0G0o3a"',
     "H1DPcilnI0yvkYGFpRg9znLhBz0G0o3a"),
    ('new Paddle("pdl_live_apikey_01qjkpn7hmnrxhktc87l9xoalw_45F18adsdBZb1e2iqtWTQQoKhmS")',
     "pdl_live_apikey_01qjkpn7hmnrxhktc87l9xoalw_45F18adsdBZb1e2iqtWTQQoKhmS"),
])
def test_the_round_s_shapes_are_redacted(text: str, value: str) -> None:
    assert value not in _redact(text)


@pytest.mark.parametrize("text", [
    # a bank's lockbox is where payments go, no key box
    "Lockbox 347033 deposit 08/04/2025\nBatch 9014: 136 items, $18,772.68",
    "DEPOSIT BATCH 93076682\nBatch total: $2554.03   Items: 74\nLockbox: 604342",
    # a battery's voltage ("pin" in Vietnamese), a chart's reference to its Secret
    "Nhật ký trạm kiểm tra FCT-02\nĐiện áp pin: 3807 mV – Đạt\nDòng ngủ: 28 µA – Đạt",
    "  database:\n    existingSecret: ota-db-credentials\n  s3:\n    credentialsSecret: ota-s3",
    # a diff's empty secret, its next context line another assignment
    "+TWITCH_CLIENT_SECRET=\n PORT=5173\n VITE_API_BASE=http://localhost:8787",
    # a payment platform's invoice id as a record's key
    "INFO consumer group=revrec topic=billing.invoices offset=3052924 key=in_15WMrlLO2O7DLAq0JJOFV",
    # temperatures and folders after "temp", a lockbox's stand-in
    "GPU temp is 83C, fan at 70%; temp: 37.5C and rising",
    "lockbox: NONE (ask the concierge)",
])
def test_the_round_s_clean_lines_are_kept(text: str) -> None:
    assert _redact(text) == text
