"""The round of corpora AF (estates and funeral homes), AG (farms and co-operatives), AH
(translation agencies), SF (hotels and short-term rentals), SG (transit and ride-hailing) and
SH (bug bounty platforms): each shape they found left, redacted in process, and the lines
near them that must stay."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # codes: said a digit at a time, a combination, after 「, in Swahili, a smart lock's
    ("Robot: Your Airbnb code is 9 9 0 0 3 2", "9 9 0 0 3 2"),
    ("la llave está en la caja de seguridad gris, combinación 1362", "1362"),
    ("玄関のキーボックスの暗証番号は「4915」です", "4915"),
    ("kama mnahitaji pin yangu ya mpesa ni 4325", "4325"),
    ("staykey://unlock?lock=d75dedb4-11e1-4cfa-ae66-e06e18674eec&code=246964", "246964"),
    ("listing=6523f0a1e7c9d2001a4b77e1 lock=yale-assure-2 code=567459", "567459"),
    ('{"keyboardPwdId": 38817204, "keyboardPwd": "786578"}', "786578"),
    ("Pelanggan: kak, kode OTP saya 9687", "9687"),
    # backup and recovery codes: under an address, in two groups of five
    ("BACKUP CODES\nt.ramsbottom@gmail.com\n\n1. 0113 3559\n2. 4266 0833\n3. 8658 4949",
     "4266 0833"),
    ("Okta recovery codes for fleet-admin (break glass):\n00218 86625\n95474 03669\n",
     "95474 03669"),
    # security answers: a note's Q and A, a log's security_a, a quoted question answered, a
    # sheet's security_answer column
    ('"Q: City where you met spouse A: Ames; Q: First pet A: Duke"', "Duke"),
    ("Security Q1: What was the make of your first car?  A: Beetle", "Beetle"),
    ('security_q="Name of your first school" security_a="Hollins Lane" memorable_date="02/09"',
     "Hollins Lane"),
    ("Security question 'first school' answered: Piedmont Elementary", "Piedmont Elementary"),
    ("id,email_verified,security_question,security_answer\n66120931,true,Name of your first "
     "pet?,Bucephalus\n66120932,false,Mother maiden name?,Okafor", "Bucephalus"),
    # passwords: French's mdp, Dutch's ww, "it's", "to be", a Portuguese Wi-Fi's, a token or a
    # secret "for ... is", a PSK, a licence key, an aligned table's secrets
    ("chauffeur: bjr, mon mdp c'est xxchU2pDCPtqHFt", "xxchU2pDCPtqHFt"),
    ("Jan: gebruiker loonbedrijf.devries, ww Valtra8R653#", "Valtra8R653#"),
    ("I'm definitely using the right password, it's aWgJaY3j9e", "aWgJaY3j9e"),
    ("could you make the page private? We'd like the password to be Rosebud1930", "Rosebud1930"),
    ("O código da porta da rua é 4996 e a password do wi-fi é cedro78Olivo!", "cedro78Olivo!"),
    ("the H1 API token for the triage automation is `6uuIV7XQEBJNUBxlQiKLU0HgAxUHf4FbdzHVo5xQ`",
     "6uuIV7XQEBJNUBxlQiKLU0HgAxUHf4FbdzHVo5xQ"),
    ("The sandbox client secret for the token endpoint is f6ICc2Bg9t9KCcvQS15f3632ZoEtJI1W.",
     "f6ICc2Bg9t9KCcvQS15f3632ZoEtJI1W"),
    ("for the new depot site-to-site tunnel the PSK is mo5KLQUg7wAvnBfDkAzBmJWCiBvNRbCy",
     "mo5KLQUg7wAvnBfDkAzBmJWCiBvNRbCy"),
    ("MMT_LICENSE=HPYZF3J6-R4MV-5Z8K-JADX-KNUD6LJHZBRL", "HPYZF3J6-R4MV-5Z8K-JADX-KNUD6LJHZBRL"),
    ("Key                 Value\n---                 -----\nwebhook_secret  7153a1549cd978baffcd5"
     "a8abfd305369e0ea4c30664a2ef", "7153a1549cd978baffcd5a8abfd305369e0ea4c30664a2ef"),
    ("WLAN für die Kabinen: SSID Palais-Guest, WPA2-Schlüssel Lisboa2021?", "Lisboa2021?"),
    ("config wifi-iface 'default_radio0'\n  option key 'e3n5gzcr3fxtpt'", "e3n5gzcr3fxtpt"),
    ("and the TOTP seed for the shared MFA device is V4BYXCEWPK754BPW", "V4BYXCEWPK754BPW"),
    # keys: Confluent's, a C define's, a WSKey, SIBA's, a vendor's live_sk_, Postman's, an AES
    # key's bytes, an Authorization scheme's id:secret, base64 piped to base64 -d
    ("schema.registry.basic.auth.user.info=G1PP4ZHE6B5NAUM6:BMoG+wkryQtCkhP/jjkrWY9tssUA",
     "BMoG+wkryQtCkhP/jjkrWY9tssUA"),
    ('#define THINGSPEAK_KEY "BST5E61FCY5MKCPR"', "BST5E61FCY5MKCPR"),
    ("[alloggiati]\nwskey = 1LvX1yb4JntTGNoHOmR/jFE3mb+4jS3XR/S/l8DgYpXp", "1LvX1yb4JntTGNoHOmR"),
    ('siba:\n  chave_acesso: "U1W2HOZS4N9AY20PAHARZA88VQMBO56R"',
     "U1W2HOZS4N9AY20PAHARZA88VQMBO56R"),
    ("Live secret key    vlz_live_sk_xiRVlzC28aCwnXq6pj7jBdiw0bpCbDTw",
     "vlz_live_sk_xiRVlzC28aCwnXq6pj7jBdiw0bpCbDTw"),
    ("postman_key    PMAK-c0fd2110b8e4a2eae9a1c7d0-a1f03d0d16e26097923656ceb03b084e48",
     "PMAK-c0fd2110b8e4a2eae9a1c7d0-a1f03d0d16e26097923656ceb03b084e48"),
    ("lock: aes key = 9D CE BF CB 28 5D 8E 16 09 6F B1 8C 62 2D 78 36", "9D CE BF CB 28 5D"),
    ("Authorization: ApiKey lbtrans:da581a9c9bf4acc4eb1626324eed5d9006b67ab1",
     "da581a9c9bf4acc4eb1626324eed5d9006b67ab1"),
    ("$ echo 'c3ZjLWV4cG9ydDpXSFVwSWdVMGgwOUFSNQ==' | base64 -d",
     "c3ZjLWV4cG9ydDpXSFVwSWdVMGgwOUFSNQ=="),
    ("config.sh_client_secret = 'nG}mq?bNgokKg2;!di]RF1|z<A:IG|EZxG251FK['",
     "nG}mq?bNgokKg2;!di]RF1|z<A:IG|EZxG251FK["),
    ("python3 poc.py --target https://x.io --session a2a022172cfc59330346f703ad49a12c1a752b1ec0c3"
     "f559a8e884e4aaf70c18", "a2a022172cfc59330346f703ad49a12c1a752b1ec0c3f559a8e884e4aaf70c18"),
    # links: an invitation's, Django's reset token, a French invite code
    ("Accept invitation: https://hackerone.com/invitations/84f79d9c4a54f183d711bda3c2c03452",
     "84f79d9c4a54f183d711bda3c2c03452"),
    ("Click here to reset: https://x.oastify.com/account/reset/vmf9s2-aeb5540dcb357f9be2873dd4c"
     "edb655b", "vmf9s2-aeb5540dcb357f9be2873dd4cedb655b"),
    ("Si le lien ne marche pas, le code d'invitation est JCNBS0O6C3VA", "JCNBS0O6C3VA"),
    # ids: a guest register's NUM_DOC, FHIR's us-ssn, licences by more names, a persoonsnummer,
    # a Romanian passport
    ("TIPO_DOC;NUM_DOC;PAIS;FECHA_NAC\nD;29013540Y;ES;1971-01-08\nP;F3718WTJW;DE;1980-02-21",
     "F3718WTJW"),
    ('"system": "http://hl7.org/fhir/sid/us-ssn",\n   "value": "668731987"', "668731987"),
    ("Policyholder: Mr Kwame Mensah\nDriving licence no.: MENSA657147KJ95F", "MENSA657147KJ95F"),
    ("LTO license: M09-55-626159", "M09-55-626159"),
    ("Ad Soyad: Mehmet Yılmaz\nEhliyet No: 242745", "242745"),
    ("Persoonsnummer / Personal No.: 2781.32.042", "2781.32.042"),
    ("vă trimit datele: CNP 2720718273142, pașaport 05785183", "05785183"),
])
def test_found_in_process(text: str, value: str) -> None:
    assert value not in _redact(text), _redact(text)


@pytest.mark.parametrize("text", [
    # "ww" inside ids and base64, in capitals before a product's figures
    '{"id": "cqf8bo3pl542i9mcx4i0lah0ww", "user_id": "wmuyrmta12wwygj8uguieoabv4"}',
    "payout-worker-d78dcfa4e-5p3ww INFO batch=20240913-12",
    "IKEA TRADFRI bulb E27 WW 806 lumen (LED1836G9)",
    # a JWT's header piped to base64 -d; an airline's document numbers; a masked licence;
    # Argentina's patente (a number plate)
    "$ echo 'eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9' | base64 -d",
    "DOC NUMBER      TYPE  ISSUE DATE  AMOUNT\n131-8657841991  EMDA  2024-04-26  EUR 456.87",
    "ticket_id,opened_by,doc_no\n832539383586,NIK,386508606",
    "• Driving Licence — KA85 2417XXXXXXX",
    "Patente : 35712044",
    # a placeholder in a vendor's prefix; a factory default; a password's rule and a list
    'lwa_client_secret: "amzn1.oa2-cs.v1.<hidden>"',
    "MIFARE Classic factory key: FFFFFFFFFFFF",
    '"password_strength": "strong"',
    "full name, date and place of birth, occupation",
    "the password for the scanning station login (user: scan01) will be mailed to you",
    "pw for router: see the sticker",
])
def test_stays(text: str) -> None:
    assert _redact(text) == text


def test_the_password_told_for_what_it_opens_reads_past_a_bracketed_colon() -> None:
    text = ("the password for the scanning station login (user: scan01) is Juniper#1771juniper "
            "- please change it")
    assert "Juniper#1771juniper" not in _redact(text)
    assert "scan01" in _redact(text)
