"""The round of corpora HC (identity providers and single sign-on), HD (personal-life apps),
HE (energy retail and EV charging), HF (OCR'd documents), HG (infrastructure-as-code and
secrets managers) and HH (South-East Asia's consumer services): each shape they found left,
redacted in process, and the lines near them that must stay."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # identity providers: SSSD's bind password, kadmin's -pw, Entra's verification code,
    # PingFederate's cookie, klist -K's keys, recovery codes in Russian and Auth0's one code
    ("ldap_default_authtok_type = password\nldap_default_authtok = Kaffee2020!\n",
     "Kaffee2020!"),
    ("kadmin.local:  addprinc -pw UgJt314$LhT HTTP/wiki.example-corp.local", "UgJt314$LhT"),
    ('countryCode="BR" verificationCode="810398" correlationId=56bc6c80', "810398"),
    ("# browser cookie during test: PF=dCJPjCRPvDMSU3XbgPXYq_ySrN68LblW5hI_zzinzAC",
     "dCJPjCRPvDMSU3XbgPXYq_ySrN68LblW5hI_zzinzAC"),
    ("   3 09/16/2025 05:41:00 HTTP/sso.tatra.pl@TATRA.LOCAL "
     "(0x92a437bba8be8d03e18189099e288ee6)", "0x92a437bba8be8d03e18189099e288ee6"),
    ("Вот резервные коды для входа в мой аккаунт, пока я в отпуске:\n  1. 73621267\n"
     "  2. 13264422", "13264422"),
    ("Recovery code (store it safely, shown only once): EEFFR8519WCK3XHTV6FDZY3B\n---",
     "EEFFR8519WCK3XHTV6FDZY3B"),
    ('"ssn": "199905173366", "name": "Liam Dubois"', "199905173366"),
    # energy retail and EV charging: a card's code asked for on a call, an RFID card's uid
    # where OCPI names it, a one-time code in Dutch, a password after "PW"
    ("[00:02:40] Agent: And the three or four digits on the back?\n"
     "[00:02:44] Customer: 808\n[00:03:05] Agent: Lovely.", "808"),
    ("PUT /ocpi/cpo/2.2.1/tokens/NL/TNM/E50181D9?type=RFID HTTP/1.1", "E50181D9"),
    ('\\"cdr_token\\": {\\"uid\\": \\"DBCDB316\\", \\"type\\": \\"RFID\\"}', "DBCDB316"),
    ("Je eenmalige inlogcode voor Mijn Laadpas is 284605", "284605"),
    ("Login tobias.wagner@gmail.com, PW nube-strada-strada72", "nube-strada-strada72"),
    # OCR'd documents: an ID card's TD1 zone, a Russian passport's series and number, a
    # Japanese licence's number, an EU licence's field 5, Textract's DOCUMENT_NUMBER
    ("MRZ read as\nI<FRA72YM972492<<<<<<<<<<<<<<<\n9006278M\nDoc no 72YM97249 ok",
     "72YM97249"),
    ("I<ESPCAB033923919076166N<<<<<<\n6908038M3307250ESP<<<<<<<<<<<9", "19076166N"),
    ("Серия и номер: 16 20 649093\nФамилия", "649093"),
    ("運転免許証\n番号 第 779338897276 号", "779338897276"),
    ("FÜHRERSCHEIN\n1. Hoffmann\n2. Felix\n5. J215R2BC7KM\n9. AM/B1/B/L", "J215R2BC7KM"),
    ('{"Type": {"Text": "DOCUMENT_NUMBER"}, "ValueDetection": {"Text": "505744106", '
     '"Confidence": 97.02}}', "505744106"),
    # infrastructure-as-code: SSM's SecureString, Key Vault's secret by name, Consul's
    # gossip key and bootstrap token, RabbitMQ's cookie, a NIR in its groups, EC2's host name
    ('"Name": "/staging/search/PASSWORD",\n"Type": "SecureString",\n'
     '"Value": "Maple1065%Falcon",', "Maple1065%Falcon"),
    ('"name": "db-password",\n"tags": {"owner": "platform"},\n'
     '"value": "YRgUOFpLJKQETHqUwt5j"', "YRgUOFpLJKQETHqUwt5j"),
    ('data_dir = "/opt/consul"\nencrypt = "SsDwb4FlidpVpdXAw58WKuGtAQlgf8XnH1voXOAapIY="\n',
     "SsDwb4FlidpVpdXAw58WKuGtAQlgf8XnH1voXOAapIY="),
    ('  tokens {\n    initial_management = "5fd3094b-3e7e-4aa0-b0cf-dadb82eb6cb0"\n  }',
     "5fd3094b-3e7e-4aa0-b0cf-dadb82eb6cb0"),
    ("rabbitmq_erlang_cookie: JMSLQPXFICFUIWEYUDCZ\nrabbitmq_default_user: a",
     "JMSLQPXFICFUIWEYUDCZ"),
    ('"employee_tax_id": "1 67 03 18 370 369 86"}', "370 369"),
    ('"public_dns": "ec2-151-250-240-151.compute-1.amazonaws.com"', "151-250-240-151"),
    # South-East Asia: a NAPAS card, PromptPay's QR fields, SIM registration by SMS, a USSD
    # voucher, MyKad under ic=, a NIK in fours, PhilHealth, a Vietnamese passport and table,
    # Tagalog's "number ko" and "MPIN ko", Arabic's "for contact"
    ("Thẻ ATM Vietcombank của tôi số 9704366576485283 bị nuốt", "9704366576485283"),
    ("qr.decode raw=00020101021229370016A0000006770101110113006662047561858"
     "02TH5303764", "0066620475618"),
    ("qr.decode raw=00020101021229370016A0000006770101110213150508226093058"
     "02TH5303764", "1505082260930"),
    ('SMS out body="REG#3174014101040024#3174012401917822#" status=DELIVERED',
     "3174012401917822"),
    ('USSD input="*1388*73550704277399#" result=LOAD_OK', "73550704277399"),
    ("GET /api/summon/check?ic=891109079152&plate=WHBY3434 HTTP/1.1", "891109079152"),
    ("ocr.ktp fields={provinsi: 'DKI JAKARTA', nik: '3172 0311 1282 0026', agama:",
     "3172 0311 1282 0026"),
    ("EMP-19696,\"Maria Clara Santos\",06-4019352-6,19-990266560-9,09192615140",
     "19-990266560-9"),
    ("em gửi thông tin làm visa Hàn: hộ chiếu số N1435927, ngày", "N1435927"),
    ("STT | Họ và tên | Số CCCD | SĐT\n--- | --- | --- | ---\n"
     "1 | Nguyễn Văn An | 092206306058 | 0965.761.402", "0965.761.402"),
    ("bakit ayaw mag login? number ko 09661557803 tapos MPIN ko 9900 tama naman",
     "09661557803"),
    ("bakit ayaw mag login? number ko 09661557803 tapos MPIN ko 9900 tama naman", "9900"),
    ("مرحبا، وجدت محفظة في المول. للتواصل: ٠٥٧٣٤٠٥٥٣٠ — شكرا", "٠٥٧٣٤٠٥٥٣٠"),
])
def test_found_in_process(text: str, value: str) -> None:
    assert value not in _redact(text), _redact(text)


@pytest.mark.parametrize("text", [
    # a Kerberos service's principal, Azure AD B2C's metadata items, a message bundle's text
    # about a password, a HAR's CSRF header, SSM's KMS ciphertext, an eMAID
    "Default principal: HTTP/sso.ardent-pharma.ch@ARDENT-PHARMA.LOCAL",
    '    <Item Key="UserMessageIfClaimsPrincipalDoesNotExist">We can\'t find it</Item>\n'
    '    <Item Key="IdTokenAudience">IdentityExperienceFrameworkAppId</Item>',
    "invalidPasswordMessage=Usuario o contraseña incorrectos.",
    '"headers": [{"name": "X-CSRF-Token", "value": '
    '"K+zh6LVX6ctTyWWNxIs1vBZTUJpL1GQoMxpLUq9oXkY="}]',
    '{"Name": "/dev/billing/DB_PASSWORD", "Type": "SecureString", "Value": '
    '"AQICAHhhfXPxhG4HvPkpQIAHhhfXPxhG4HvPkpQIAHhhfXPxhG4HvPkpQIAHhhfXPxhG4HvPkpQIAHhhfXPx"}',
    "Ladekarte CD-EO7-C58331961-8 gesperrt; Grund: Verlust gemeldet",
    # an MRZ line whose check digit fails, a licence's field 5 outside a licence, a private
    # host's EC2 name
    "I<FRA72YM972493<<<<<<<<<<<<<<<",
    "Steps:\n5. RESTART2024 the service",
    "ip-10-0-1-2.ec2.internal ec2-10-0-1-2.compute-1.amazonaws.com",
])
def test_stays(text: str) -> None:
    assert _redact(text) == text
