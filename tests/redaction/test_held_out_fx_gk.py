"""The round of corpora FX (Eastern Europe), FY (voice and contact centres), FZ
(education and HR in the Americas), GI (security tooling), GJ (travel and hospitality) and GK
(telecom operators): each shape they found left or wrongly changed, redacted or kept in
process."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor
from servescope.redaction.tables import column_kind

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # Eastern Europe
    ("312;Kr\u00f3l;Zofia;93111749487;Umowa o prac\u0119;9 779,00;541142327277093856838"
     "67677\n310;Piotrowski",
     "54114232727709385683867677"),
    ("I\u010cO: 36808130\nDI\u010c: CZ0404071294\n\u00da\u010det: 903622177/5500\nOdb"
     "\u011bratel",
     "903622177/5500"),
    ("\u0417\u0430\u043f\u0438\u0441 \u2116/Record No.: 19800727-54339\n\u0414\u043e"
     "\u043a\u0443\u043c\u0435\u043d\u0442 \u2116/Document No.: 448999433\n\u0420\u041d"
     "\u041e\u041a\u041f\u041f",
     "19800727-54339"),
    ("\u0417\u0430\u043f\u0438\u0441 \u2116/Record No.: 19800727-54339\n\u0414\u043e"
     "\u043a\u0443\u043c\u0435\u043d\u0442 \u2116/Document No.: 448999433\n\u0420\u041d"
     "\u041e\u041a\u041f\u041f",
     "448999433"),
    ("04. Rodzaj dokumentu: 1 (dow\u00f3d osobisty) 05. Seria i numer: EXC404919\nKod",
     "EXC404919"),
    ("Identyfikator podatkowy: 68090267848\nKwota przychodu",
     "68090267848"),
    ("Najemca: Magdalena Piotrowska\nPrawo jazdy nr: 62772/14/4964 kat. B",
     "62772/14/4964"),
    ("\u0420\u0435\u0454\u0441\u0442\u0440\u0430\u0446\u0456\u0439\u043d\u0438\u0439 "
     "\u043d\u043e\u043c\u0435\u0440 \u043e\u0431\u043b\u0456\u043a\u043e\u0432\u043e"
     "\u0457 \u043a\u0430\u0440\u0442\u043a\u0438 \u043f\u043b\u0430\u0442\u043d\u0438"
     "\u043a\u0430 \u043f\u043e\u0434\u0430\u0442\u043a\u0456\u0432: 2255034003\n\u041f"
     "\u0440\u0456\u0437\u0432\u0438\u0449\u0435",
     "2255034003"),
    ("\u0424\u0418\u041e: \u041a\u043e\u0437\u043b\u043e\u0432 \u041d\u0438\u043a\u0438"
     "\u0442\u0430 \u041f\u0435\u0442\u0440\u043e\u0432\u0438\u0447\n\u0412\u043e\u0434"
     "\u0438\u0442\u0435\u043b\u044c\u0441\u043a\u043e\u0435 \u0443\u0434\u043e\u0441"
     "\u0442\u043e\u0432\u0435\u0440\u0435\u043d\u0438\u0435: 39 54 481980\n\u0421"
     "\u0442\u0430\u0436",
     "39 54 481980"),
    ("Numar pa\u0161parta: MC0133603\nAsabisty numar",
     "MC0133603"),
    ("Tinkoff: \u041a\u043e\u0434 9896 \u0434\u043b\u044f \u043f\u043e\u0434\u0442"
     "\u0432\u0435\u0440\u0436\u0434\u0435\u043d\u0438\u044f \u043e\u043f\u0435\u0440"
     "\u0430\u0446\u0438\u0438",
     "9896"),
    ("\u0421\u0431\u0435\u0440\u0411\u0430\u043d\u043a: \u0412\u0445\u043e\u0434 \u0441"
     " \u043d\u043e\u0432\u043e\u0433\u043e \u0443\u0441\u0442\u0440\u043e\u0439\u0441"
     "\u0442\u0432\u0430. \u041a\u043e\u0434: 84449. \u041d\u0438\u043a\u043e\u043c"
     "\u0443 \u0435\u0433\u043e \u043d\u0435 \u0441\u043e\u043e\u0431\u0449\u0430\u0439"
     "\u0442\u0435",
     "84449"),
    ("\u041d\u0438\u043a\u043e\u043c\u0443 \u043d\u0435 \u0441\u043e\u043e\u0431\u0449"
     "\u0430\u0439\u0442\u0435 \u043a\u043e\u0434 68571! \u041f\u0435\u0440\u0435\u0432"
     "\u043e\u0434 21448\u0440",
     "68571"),
    ("Nova Poshta: Posylka u viddilenni \u211688. Kod otrymannia 0339. Bezkoshtovne",
     "0339"),
    ("mBank: Haslo do autoryzacji nr 3 z 12.05.2024: 45557352. Platnosc",
     "45557352"),
    ("localStorage.setItem('refresh_token', 'Zwvj7wRiYPQxTiJIwttFE1E0BOENrWDhKR2FC6eF04"
     "J4lR51');",
     "Zwvj7wRiYPQxTiJIwttFE1E0BOENrWDhKR2FC6eF04J4lR51"),
    # voice and contact centres, education and HR
    ("02:27 CSR: aur email id?\n02:31 Caller: vikram dot iyer at the rate gmail dot com"
     "\n02:42 CSR: ji",
     "vikram dot iyer at the rate gmail dot com"),
    ("IVR> Marque su PIN actual seguido de almohadilla.\nDTMF: 3279#\nIVR> Marque su nu"
     "evo PIN",
     "3279"),
    ("{\"event\": \"gather\", \"input\": \"dtmf\", \"digits\": \"7638\", \"prompt\": \""
     "enter_pin\"}",
     "7638"),
    ("sms.outbound to=+919935875735 status=delivered body=\"225429 aapka OTP hai. Kisi "
     "ke saath\"",
     "225429"),
    ("<nomina12:Receptor Curp=\"FOME830206HBCLND05\" NumSeguridadSocial=\"35109839742\""
     " Fecha=\"",
     "35109839742"),
    ("| RFC con homoclave | GOGA9206042B7 |\n| N\u00famero de Seguro Social | 55-15-84-"
     "6352-5 |",
     "55-15-84-6352-5"),
    ("Employee's SIN / NAS de l'employ\u00e9 (12): 764 946 745\nEmployee's name: WILSON",
     "764 946 745"),
    ("Section 2. List A: Permanent Resident Card (I-551)  Document Number: LIN580947069"
     "1",
     "LIN5809470691"),
    ("Tarjeta de identidad: 1076246908\nDeudor solidario (C.C.): 1.039.891.691\nCelular",
     "1076246908"),
    ("Tarjeta de identidad: 1076246908\nDeudor solidario (C.C.): 1.039.891.691\nCelular",
     "1.039.891.691"),
    # security tooling, travel, telecom
    ("cracked w/ hashcat -m 13100 in 6 min \u2192 `svc_backup:Contrasena623#`\n- creds "
     "valid",
     "Contrasena623#"),
    ("<uri>https://portal.example.pl/sso/callback?session_token=jDniYcekyj8TMK30Ehv8ujM"
     "HyToXteF9TxIv&amp;state=6d79</uri>\n<evidence>jDniYcekyj8TMK30Ehv8ujMHyToXteF9TxI"
     "v</evidence>",
     "jDniYcekyj8TMK30Ehv8ujMHyToXteF9TxIv"),
    ("FOP: CCDS6011008554461720 EXP1231\nDOCS: P/ARE/N8965780\nCONTACT: X",
     "N8965780"),
    ("\u0e1e\u0e34\u0e21\u0e1e\u0e4c\u0e0a\u0e19\u0e01: \u0e1e\u0e32\u0e2a\u0e1b\u0e2d"
     "\u0e23\u0e4c\u0e15\u0e40\u0e25\u0e02\u0e17\u0e35\u0e48 AB4479254 \u0e2b\u0e21"
     "\u0e14\u0e2d\u0e32\u0e22\u0e38 22/01/2030",
     "AB4479254"),
    ("<tipoDocumento>PAS</tipoDocumento>\n  <numeroDocumento>420304638</numeroDocumento"
     ">",
     "420304638"),
    ("<Documento_Identificacao>371265023</Documento_Identificacao>",
     "371265023"),
    ("CARLOS                        102/08/1998           100000238PASORPAB231787\n19",
     "PAB231787"),
    ("\"content\": \"Merhaba, PAK385498 numaral\u0131 pasaportumla otel\"",
     "PAK385498"),
    ("\"driver\": {\"name\": \"Shota Ito\", \"licenseNumber\": \"305977434534\", \"lice"
     "nseCountry\": \"JP\"",
     "305977434534"),
    ("Stolen device report - Name: Aisha Bello, Line: 2348121340536, IMEI: 868910045288"
     "892",
     "2348121340536"),
    ("pgw6.epc.mnc007.mcc639.3gppnetwork.org Subscription-Id[END_USER_E164]=25471201912"
     "0 Framed",
     "254712019120"),
    ("Feb 12 07:09:56 smsc01 kannel[4678]: SMS request sender:4444 receiver:91810418678"
     "4 msg:x",
     "918104186784"),
    ("record_type,served_msisdn,other_party,start_time\nSMSMO,4917843229402,49162970040"
     "0,20240312065416",
     "491629700400"),
    ("MO from=628530587740 to=4444 text=\"REG 6472010501711331#3374012611074433#\" -> D"
     "ukcapil",
     "6472010501711331"),
    ("MO from=628530587740 to=4444 text=\"REG 6472010501711331#3374012611074433#\" -> D"
     "ukcapil",
     "3374012611074433"),
    ("\"input\": {\"msisdn\": \"5511981203536\", \"id_number\": \"74.148.133-9\", \"id_"
     "type\": \"RG\"}}",
     "74.148.133-9"),
    ("O c\u00f3digo PUK da linha 5531965785174 \u00e9 84896236.",
     "84896236"),
    ("msisdn=254110230893 text=\"1*1*1248*2648\"  # WARN raw input logged",
     "2648"),
    ("\"matchingId\": \"JSYQHPFPVKONXFTXIHAX7TSD\", \"eid\": \"89049032000025\"",
     "JSYQHPFPVKONXFTXIHAX7TSD"),
    ("Voici mon RIO pour la portabilit\u00e9 : 04E9UWW9ZXRV\nNum\u00e9ro \u00e0 porter",
     "04E9UWW9ZXRV"),
    ("NIP de portabilidad: 8170\nCURP",
     "8170"),
    ("\"pagerduty_routing_key\": \"19bfa7b7f807ad589d9fd4499759655a\"",
     "19bfa7b7f807ad589d9fd4499759655a"),
])
def test_the_rounds_values_are_redacted(text: str, value: str) -> None:
    assert value not in _redact(text)


@pytest.mark.parametrize("text", [
    # a Bulgarian postcode after its word; a product code in Russian
    "\u043a\u043e\u0434 \u043d\u0430 \u043e\u0444\u0438\u0441: 7534\n\u043f\u043e\u0449"
    "\u0435\u043d\u0441\u043a\u0438 \u043a\u043e\u0434: 7000",
    # a password kept in XML with its ampersand escaped stays one value
    "<RequestorID Type=\"22\" ID=\"SMX_32460\" MessagePassword=\"[REDACTED]&amp;31ko\"/"
    ">",
    # a line number; a PUK's mention beside a phone
    "see line 1234567890123 of the file",
    "die alte PUK habe ich nicht mehr. Bitte rufen Sie mich an",
    # a Spring config's reference into Vault
    "password: \"{vault:secret/data/loyalty#db_password}\"",
    # a password manager named where a password is kept
    "; heslo je v trezoru 1Password (polo\u017eka)",
])
def test_the_rounds_clean_lines_are_kept(text: str) -> None:
    assert _redact(text) == text


@pytest.mark.parametrize(("header", "kind"), [
    ("other_party", "phone"), ("b_number", "phone"), ("a_number", "phone"),
    ("other", None), ("number", None),
])
def test_a_calls_parties_are_phone_columns(header: str, kind: str | None) -> None:
    assert column_kind(header) == kind
