"""The round of corpora CR (pharmacies and e-prescribing), CS (the Gulf's and Egypt's
services), CT (Greece, Cyprus, the Balkans, Romania and Bulgaria), CU (home labs and
self-hosting), CV (parcel carriers) and CW (crowdfunding and peer-to-peer lending): each shape
they found left or wrongly changed, redacted or kept in process."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # pharmacies: a fax in an NCPDP SCRIPT message, a cardholder id in a claim's trace, a NIR as
    # an ameli pro login, a temporary password of letters and symbols in a sheet's column
    ("<CommunicationNumbers>\n  <Fax><Number>4698808825</Number></Fax>", "4698808825"),
    ("AM04 INSURANCE  C2(CardholderID)=024921910 C1(Group)=RX8555 C3(PersonCode)=01",
     "024921910"),
    ("les identifiants ameli pro : identifiant 157110621938216 / mot de passe x",
     "157110621938216"),
    ("| Store | Role | Login | Temp password |\n|---|---|---|---|\n"
     "| 2925 | CPhT | rk@mainstreetrx.com | v4CWW*jCvlmB |\n"
     "| 0742 | Tech | yc@mainstreetrx.com | QwHOG=VG-XaXnT |", "QwHOG=VG-XaXnT"),
    # the Gulf and Egypt: a WPS salary file's worker id, a contact list's typed phones, Egypt's
    # mobiles, a Qatari id and a passport under their Arabic names, one-time codes as gateways
    # send them, a security answer in Arabic, a test sheet's "otp bypass" column
    ("EDR,10020249495386,803520101,AE740266355509291075190,2024-09-13,2024-09-14,31",
     "10020249495386"),
    ('{"phones":[{"type":"mobile","value":"+971 50 051 0493"},'
     '{"type":"work","value":"02 606 7074"}]}', "02 606 7074"),
    ("Call 03/04/2024 10:00 \u2013 inbound 01266659006\nCaller verified", "01266659006"),
    ('{"msisdn":"971583552524","alt_contact":"01229697811","email":null}', "01229697811"),
    ("\u0631\u0642\u0645 \u0627\u0644\u0628\u0637\u0627\u0642\u0629 \u0627\u0644\u0634\u062e"
     "\u0635\u064a\u0629: 28460817755\n", "28460817755"),
    ("\u0631\u0642\u0645 \u0627\u0644\u062c\u0648\u0627\u0632: A95354461\n", "A95354461"),
    ("Use 647607 for Nol Pay. It expires in 10 minutes.", "647607"),
    ('-d \'{"to":"+966530472874","sender":"Jahez","text":"Your code 3026"}\'', "3026"),
    ("otp-svc verify phone=+974 6703 6013 submitted=746392 expected=746392 result=MATCH",
     "746392"),
    ('"template":"auth_code","params":["200161"]}', "200161"),
    ("\u0631\u0645\u0632 \u0627\u0644\u062a\u062d\u0642\u0642 \u0644\u0639\u0645\u0644\u064a"
     "\u0629 \u0627\u0644\u0634\u0631\u0627\u0621 \u0628\u0645\u0628\u0644\u063a 250.00 \u062f"
     "\u0631\u0647\u0645 \u0647\u0648 457276. \u0644\u0627", "457276"),
    ("\u0648\u0625\u062c\u0627\u0628\u0629 \u0633\u0624\u0627\u0644 \u0627\u0644\u0623\u0645"
     "\u0627\u0646 \"\u0627\u0644\u0632\u0645\u0627\u0644\u0643\". \u062a\u0645\u062a",
     "\u0627\u0644\u0632\u0645\u0627\u0644\u0643"),
    ("| env | user | password | otp bypass |\n|---|---|---|---|\n"
     "| staging | h@gulfsteel.ae | Summer.1997 | 544274 |\n"
     "| uat | r@sahabtech.com | Falcon.1988 | 153532 |", "153532"),
    # Greece, Cyprus, the Balkans: Bulgaria's EGN in a table's column and its revenue agency's
    # PIK, Greek phones after "τηλ.", a Macedonian's after "контактирајте ме", one-time codes in
    # Romanian and Greek, security answers and recovery codes in Greek, Cyprus's TIC and id card,
    # Romania's id card by its series
    ("\u0418\u043c\u0435\t\u0422\u0435\u043b\u0435\u0444\u043e\u043d\t\u0415\u0413\u041d\n"
     "\u041c\u0430\u0440\u0438\u044f\t0897085854\t5905210568\n", "5905210568"),
    ("\u0412\u0430\u0448\u0438\u044f\u0442 \u043a\u043e\u0434 (\u041f\u0418\u041a) \u043d\u0430"
     " \u041d\u0410\u041f \u0435: P0G336V7TD\n", "P0G336V7TD"),
    ("\u03a0\u03b5\u03bb\u03ac\u03c4\u03b7\u03c2: \u0394., \u03c4\u03b7\u03bb. 697 179 8141\n",
     "697 179 8141"),
    ("\u0412\u0435 \u043c\u043e\u043b\u0430\u043c \u043a\u043e\u043d\u0442\u0430\u043a\u0442"
     "\u0438\u0440\u0430\u0458\u0442\u0435 \u043c\u0435 \u043d\u0430 077 342 638 \u0438\u043b"
     "\u0438", "077 342 638"),
    ("Codul tau 3D Secure este 218388 pentru plata de 146,64 RON la ALTEX.", "218388"),
    ("Eurobank: \u039a\u03c9\u03b4\u03b9\u03ba\u03cc\u03c2 \u03bc\u03af\u03b1\u03c2 \u03c7\u03c1"
     "\u03ae\u03c3\u03b7\u03c2 954081 \u03b3\u03b9\u03b1", "954081"),
    ("- \u038c\u03bd\u03bf\u03bc\u03b1 \u03c0\u03c1\u03ce\u03c4\u03bf\u03c5 \u03ba\u03b1\u03c4"
     "\u03bf\u03b9\u03ba\u03af\u03b4\u03b9\u03bf\u03c5: \u03a1\u03b5\u03be\n",
     "\u03a1\u03b5\u03be"),
    ("\u039a\u03c9\u03b4\u03b9\u03ba\u03bf\u03af \u03b1\u03bd\u03ac\u03ba\u03c4\u03b7\u03c3\u03b7"
     "\u03c2 (\u03ba\u03c1\u03b1\u03c4\u03ae\u03c3\u03c4\u03b5 \u03c4\u03bf\u03c5\u03c2):\n"
     "qq63-ku27\nbl9o-g8od\ntl7v-4171\n", "tl7v-4171"),
    ("login ok tic=03474243R src=5.29.239.244", "03474243R"),
    ("\u0391\u03c1. \u0394\u03b5\u03bb\u03c4\u03af\u03bf\u03c5 \u03a4\u03b1\u03c5\u03c4\u03cc"
     "\u03c4\u03b7\u03c4\u03b1\u03c2: 9714813\n", "9714813"),
    ("Carte de identitate: seria \u0219i nr. IF 614907\nTelefon", "IF 614907"),
    # home labs: ntfy's tokens, Porkbun's keys, a Proxmox ticket, a Bitwarden Send link's key,
    # cloud-init's password on qm's command line, docker-mailserver's new account, an IPv6
    # address as a YAML key, Nextcloud's backup codes, a login and a generated password
    ("- tk_ii293lxcifrhj3ethgh4buy4a26wi, never expires", "tk_ii293lxcifrhj3ethgh4buy4a26wi"),
    ("api_secret_key sk1_e0ce778ea29f0a33786c34b59fdc483ac8b611d3778d30f57199eb17c9327efe",
     "sk1_e0ce778ea29f0a33786c34b59fdc483ac8b611d3778d30f57199eb17c9327efe"),
    ('{"ticket":"PVE:root@pam:67DEED12::rVINMl5Fy2BSyTDztMD+/iKFD8ifY02UlePcGvwltNDKrTxptZu5q"}',
     "rVINMl5Fy2BSyTDztMD+/iKFD8ifY02UlePcGvwltNDKrTxptZu5q"),
    ("https://vault.example.de/#/send/4vG3nKq0T0-1P7xYAQJ9XQ/rZZ2U+eHHoKVLdOe3Z1WqUCzsX8fTF7Fpa"
     "RDm0l6wek=", "rZZ2U+eHHoKVLdOe3Z1WqUCzsX8fTF7FpaRDm0l6wek="),
    ("qm set 9000 --ciuser debian --cipassword 'e5B=UkcQxqHV9~Xk' --sshkeys ~/.ssh/keys",
     "e5B=UkcQxqHV9~Xk"),
    ("$ docker exec -it mailserver setup email add fd21@libero.it Tortuga_sofa859!",
     "Tortuga_sofa859!"),
    ("31.141.196.224:\n  banned_at: '2024-05-28'\n2a01:4f9:442a:cc95::8b04:2c9e:\n  banned_at: x",
     "2a01:4f9:442a:cc95::8b04:2c9e"),
    ("Nextcloud backup codes for user jonas (generated 2024-06-11)\nSave these codes in a safe "
     "place. Each code can be used once.\nSKotjFXSajMDsgjQ\nIKdcP4vllwcMV9bv\n",
     "IKdcP4vllwcMV9bv"),
    ("Jag har skapat ett konto \u00e5t honom: erik / yO7Q52ETgR1Teh. Tips?", "yO7Q52ETgR1Teh"),
    ("- Contact host: 938 049 718", "938 049 718"),
    ("Numero di emergenza assicurazione: 376 0042602", "376 0042602"),
    # parcel carriers: pickup, drop-off and locker codes with no verb, in six languages; a German
    # ID card's column; China's resident id under a customs form's bare "ID"; Japan's
    # toll-free number; a JSON phone object's number
    ("Your parcel is in 24/7 Parcel Locker Bondi Junction. Collection code 440863. Expires",
     "440863"),
    ("GLS: Din pakke er klar. Afhentningskode 87309. Kontakt kundeservice", "87309"),
    ("D\u00e9pose le colis avec le code de d\u00e9p\u00f4t 15279259 avant le 03.09.2024.",
     "15279259"),
    ("Give the driver code 9475 for package 282938403687.", "9475"),
    ('ablageort="Garage, Zahlencode 5203" genehmigt_durch=EMPFAENGER', "5203"),
    ('{"rma":"RMA-1059969","dropoff_code":"60262021","customer_email":null}', "60262021"),
    ("\u653e\u7f6e\u4e8e\u4e30\u5de2\u67dc\uff0c\u53d6\u4ef6\u7801 642123\uff0c\u8bf7\u4e8e",
     "642123"),
    ("Vollmacht-ID;Empf\u00e4nger;Ausweisnummer;Mobil\nVM-250947;Max Z;NMF43LLF46;0171-8274858",
     "NMF43LLF46"),
    ("ID (required for personal import): 320102198810029470\nTel: x", "320102198810029470"),
    ("\u518d\u914d\u9054\u306e\u3054\u4f9d\u983c\u306f\u3053\u3061\u3089: 0120-01-9625 \u307e"
     "\u305f\u306f", "0120-01-9625"),
    ('"sender": {"phone1": {"number": "0899793298"}}, "service": {}', "0899793298"),
    ("Call note - caller verified via security Q (mother's maiden name) answer \"Oakridge\", ok.",
     "Oakridge"),
    # crowdfunding: a memorable answer without its question, a PIN told with a card's last four
    # between, a code with an amount before its currency's sign, Polish's "mój nr"
    ("caller passed security \u2014 memorable answer \"Mr Whiskers\", phone-banking PIN 6107.",
     "Mr Whiskers"),
    ("hi its me, the pin for the campaign debit card ending 2934 is 9690, dont lose it", "9690"),
    ("tu c\u00f3digo para confirmar la inversi\u00f3n de 2004 \u20ac es 206358. No lo compartas",
     "206358"),
    ("kod BLIK wygas\u0142? m\u00f3j nr 891-371-848, mail x", "891-371-848"),
])
def test_the_rounds_values_are_redacted(text: str, value: str) -> None:
    assert value not in _redact(text)


@pytest.mark.parametrize("text", [
    # a delivery's proof, a locker's fault ticket, a count of failed logins, a prior
    # authorization's key, a masked KVNR under FHIR's system, a terminal's approval code on
    # its receipt, a Greek business's activity code, a Portuguese direct debit's reference, a
    # fax job's number, a dashboard's OTP counts, a test-account sheet's seed column (its value
    # is the seed, a secret), a plain "Contact ID"
    "2025-01-06T04:32:25.527Z pod stop=3 status=DELIVERED sig=captured geo=geohash:j1dgsxj",
    "WARN pakketautomaat=PA-4257 vak=17 melding=DEUR_NIET_GESLOTEN ticket=ONH-902196",
    "## Impact\n8174 login attempts failed; 367 customers contacted support.",
    "PA Key: QRAG2CQO   Plan: Caremark\nDrug: Trulicity 1.5 mg/0.5 mL",
    '{"identifier":{"system":"http://fhir.de/sid/gkv/kvid-10","value":"X******399"}}',
    "Card: VISA ************9802\nAuth code: 154806   RRN: 499950037643   Batch: 456",
    "\u039a\u0391\u0394 \u03ba\u03cd\u03c1\u03b9\u03b1\u03c2 \u03b4\u03c1\u03b1\u03c3\u03c4\u03b7"
    "\u03c1\u03b9\u03cc\u03c4\u03b7\u03c4\u03b1\u03c2: 47.81.19.50 \u2014 \u039b\u03b9\u03b1",
    "tenho d\u00e9bito direto ativo (refer\u00eancia ADC 01096252200). Como contesto?",
    "Fax job 16082617 delivered.\nPages: 4   Duration: 316s",
    "date,app,dau,otp_sent,otp_verified,otp_failed\n2024-12-07,ios,633152,44287,70496,1835\n"
    "2025-01-10,android,508127,79780,28827,2466",
    "| Carrier | OTP sent | Delivered |\n|---|---|---|\n| e& (AE) | 702148 | 98.3% |\n"
    "| du (AE) | 296249 | 97.1% |",
    "Contact ID: 12345678",
    "use 2048 for the buffer size",
    "branch main / FeatureBranch2024",
])
def test_the_rounds_clean_lines_are_kept(text: str) -> None:
    assert _redact(text) == text


def test_a_seed_column_stays_a_secrets_column() -> None:
    """An "otp_secret" column holds a TOTP seed (a secret), not a one-time code: the seed is
    redacted as the secret column's value, not dropped as a PIN's misfit."""
    text = ("name,username,password,otp_secret\n"
            '"Cloudflare",it@tristatehvac.com,WillowClover=112,LWF5ONBYEGYUD3OQ7CAGCFM5EPSWUMSL\n'
            '"M365",bg@ridgeline.example,63TnDKVTZ7jADE+,OJJX3NZ5G2CS5MUVVPEZRK7V34CDMLXY\n')
    out = _redact(text)
    assert "LWF5ONBYEGYUD3OQ7CAGCFM5EPSWUMSL" not in out
    assert "OJJX3NZ5G2CS5MUVVPEZRK7V34CDMLXY" not in out
