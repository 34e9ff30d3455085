"""The round of corpora EC (pet services), ED (second-hand marketplaces), EE (call centres'
speech to text), EF (git hosting and code review), EG (post-Soviet countries' services) and
EH (aviation and airports): each shape they found left, redacted in process, and the lines
near them that must stay."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # pet services: a keypad's code in a chat's code span, a FRITZ!Box's key, a number to call
    ("> Garage keypad: `7543` · Owner cell: `720-506-1234`", "7543"),
    ("Für die Katzensitterin:\n- WLAN-Schlüssel: 8501 0525 2097 7517 0397\n- Futter: Nassfutter",
     "8501 0525 2097 7517 0397"),
    ("Lockbox on side gate, code 9491. Call 07864781598 if Biscuit won't eat.", "07864781598"),
    # marketplaces and call centres: French's "Tél", Viber, Twilio's keyed digits, a
    # Salesforce session, Asterisk's recording name
    ("La mienne : leal69@hotmail.fr. Tél : 0699186434", "0699186434"),
    ("Напишіть мені в Telegram або Viber: (068) 232-66-77", "232-66-77"),
    ("CallStatus=in-progress&Digits=022487&Direction=inbound", "022487"),
    ("screen pop lookup ani=+31646776551 using session 00DSlepzZHJCbfv!AQ2nfzoHiybuch5tLWvsIA"
     "ufzfmTeMJgJ9URGuI2VlLa.AfwCpLdEl instance=x", "AQ2nfzoHiybuch5tLWvsIA"),
    ("upload failed for /var/spool/recordings/2024/08/27/in-+33632607133-110-1724775865.42.wav",
     "+33632607133"),
    # git hosting: filter-repo's replacements, recovery codes a diff adds, a NINO under
    # "tax id", a diff's added host address left
    ("$ cat replacements.txt\nOSMa4HtvnhrQ2QAqBhCZ==>***REMOVED***\n", "OSMa4HtvnhrQ2QAqBhCZ"),
    ("printf 'AKIAMZ7QYP3A263HV37H==>REMOVED\\nRU8pjgOohuwnn9BBfupTJwffmsaV2QyHO9UcFMJp"
     "==>REMOVED\\n'", "RU8pjgOohuwnn9BBfupTJwffmsaV2QyHO9UcFMJp"),
    ("+GitHub recovery codes for @orbitbank-bot:\n+\n+- 80d16-dcb09\n+- 32793-fba1f\n",
     "32793-fba1f"),
    ("their profile has tax id WL586343B and an empty avatar_url", "WL586343B"),
    # post-Soviet services: passports by their names, a person's INN, UNZR, FIN, a
    # passport's series in a form, smsc.ru's password and recipient, Uzbek's parol,
    # Georgian's ტელ, Yandex Cloud's IAM token, Diia's share link, pickup codes
    ("Здравствуйте, номер соцкарты 5996514792, паспорт AS5010925, телефон", "AS5010925"),
    ("Верифікація клієнта: паспорт серії КВ130397, виданий Шевченківським", "КВ130397"),
    ("Төлқұжат нөмірі: N14226515\nЖеке куәлік: 045606802", "045606802"),
    ("Şəxsiyyət vəsiqəsi: AA6344161\nMobil: +994106828450", "AA6344161"),
    ("здравствуйте, не приходит уведомление об имущественном налоге, инн 520850087958",
     "520850087958"),
    ("<ns2:SNILS>89324536945</ns2:SNILS><ns2:INNFL>507599706485</ns2:INNFL>", "507599706485"),
    ("KYC ok: doc=ID_CARD unzr=19700506-99752 checked_by=ops-77", "19700506-99752"),
    ("INFO asan-login user fin=SV7CST8 phone=050 116 84 76", "SV7CST8"),
    ('"passport": {"series": "4424", "number": "387858", "issued": "x"}', "4424"),
    ("GET https://smsc.ru/sys/send.php?login=dostavka24&psw=Yerevan1977&phones=79192683103&x",
     "Yerevan1977"),
    ("GET https://smsc.ru/sys/send.php?login=dostavka24&psw=Yerevan1977&phones=79192683103&x",
     "79192683103"),
    ("Wi-Fi parol: P@ssw0rd_Sunkar29 — ofis 3-qavat", "P@ssw0rd_Sunkar29"),
    ("გამარჯობა, ტელ: 599 501 878. ბარათი", "599 501 878"),
    ("$ yc iam create-token\n"
     "t1.9euelZ8WM7Zzuvq5Gfir9GWH0R.39hqRXHzWcpo3XBQwRR2OUzj3m5byi0bgNbCXSn0",
     "39hqRXHzWcpo3XBQwRR2OUzj3m5byi0bgNbCXSn0"),
    ("deeplink=https://diia.app/acquirers/offer-request/dynamic/2068/diia_id/share/"
     "XKchdmhsAUpUnacxH4GDEmv16IEwsJRfTBsoQ8e0GoZ requestId=x",
     "XKchdmhsAUpUnacxH4GDEmv16IEwsJRfTBsoQ8e0GoZ"),
    ("Заберу заказ завтра, код для получения 6865. Если что", "6865"),
    ("Курьер Ozon: Здравствуйте, подъезжаю, назовите код 1735.", "1735"),
    # aviation: a travel document's number in XML, an ACARS login's PIN
    ('<TravelDocument type="P"><DocNumber>20TD72372</DocNumber>', "20TD72372"),
    ('text="#M1BCREWLOGIN/ID97588/PIN10091/WAW"', "10091"),
])
def test_found_in_process(text: str, value: str) -> None:
    assert value not in _redact(text), _redact(text)


@pytest.mark.parametrize("text", [
    # a usage line's placeholders, a card receipt's approval code, a record's id after an
    # OTP event, a masked passport, a placeholder card of zeros, a GTIN in JSON, a diff's
    # added address
    "usage: wb-export [-h] [--token TOKEN] [--since YYYY-MM-DD]",
    "Flags:\n  --api-key string    Kaspi merchant API key (env KASPI_API_KEY)",
    "RRN: 373809864950\nКод авторизации: 373735\nТерминал: 60498124",
    "INFO otp.sent user_id=96693868 channel=sms phone_suffix=**63 attempt=2",
    "Pax contact on file: email: ******** | phone: +44 7*** ***462 | passport: XXXXXX910",
    "Numéro de carte : 0000 0000 0000 0000 · Date d'expiration MM/AA · CVC ***",
    '{"batch": "QY6184C", "gtin": "0029812983844", "given": "2024-03-01"}',
    "@@ -1,5 +1,6 @@\n [gitlab]\n+10.204.198.31 ansible_host=gitlab-02",
])
def test_stays(text: str) -> None:
    assert _redact(text) == text
