"""The round of corpora AR (conferences and events), AS (corrections and inmate services), AT
(mortgages, title and escrow), AU (web scraping, proxies and browser automation), AV (debt
collection and skip tracing) and AW (military and veterans' services): each shape they found
left or wrongly changed, redacted or kept in process."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # a service member's DoD ID (the EDIPI) by its names, and under its columns
    ("Soldier: GySgt James Yazzie   DoD ID: 1048541680\nCourse: ENGL 1301", "1048541680"),
    ("User DoD ID (EDIPI): 1027968514\nCallback: 760-384-3590", "1027968514"),
    ("2024-12-05T11:04:40 GATE3-LANE1 scan edipi=1809745615 cred=CAC result=GRANTED",
     "1809745615"),
    ('{"svc": "milconnect-auth", "edipi": "2242114213", "ial": 1}', "2242114213"),
    ("created sid=adb10a420a8260f0467ad3bf11722fea dodid=2906807013 idp=CAC", "2906807013"),
    ("pass_no,visitor_last,sponsor_dodid,sponsor_phone\nV865349,MURPHY,1888691933,619-549-2938",
     "1888691933"),
    # an immigrant's A-Number after its name, a Vietnamese passport with its country named
    ("I-247A detainer received via fax. A-File A-957-735-322. Notify ERO", "A-957-735-322"),
    ("I-247A detainer received. A-File A405760851. Subject presented", "A405760851"),
    ("Số điện thoại 404-726-2205. Hộ chiếu Việt Nam C0989859.", "C0989859"),
    # SSNs: after Spanish's name for it, as PostgreSQL's unique-key error quotes it
    ("Confirmé su seguro social (125354905) para la verificación de E-Verify.", "125354905"),
    ("ERROR: duplicate key value\n  Detail: Key (ssn)=(759026486) already exists.", "759026486"),
    # phones: a dialer's columns, a people-search record, "call ... at", Spanish's "number is",
    # Spain's and Sweden's groupings, a call's destination, an SMS-activation service's number
    ("call_id,acct,dialed,ani,disposition\nc-99812-7781,3310-99520,3123610015,4124095364,AM",
     "3123610015"),
    ("acct,pan,exp_mmyy,callback,amount\n6577-49615,5559929032590915,1128,8135022985,321.00",
     "8135022985"),
    ('{"phones":[{"number":"7868524318","type":"mobile","carrier":"T-Mobile"}]}', "7868524318"),
    ("Questions: call your attorney's office at 3608070389.", "3608070389"),
    ("Dice que su nuevo número es 7028667131. Confirmé", "7028667131"),
    ("Pago por transferencia o Bizum al 91 696 96 69. Cambio de nombre incluido.",
     "91 696 96 69"),
    ("Titular extranjero. Contesta en 628 08 31 49. Indica que", "628 08 31 49"),
    ("Klient: Emma Andersson. Klienten nås på 08-834 963 59. Övervakningsplan", "08-834 963 59"),
    ("call_setup inmate_id=670-0874 pin=153673835 dest=3185086149 rate_plan=ADVANCE_PAY",
     "3185086149"),
    ("< ACCESS_NUMBER:2943380676:6281622556380", "6281622556380"),
    # codes: recovery codes in columns under their heading, an IVR's PIN, a German storeroom's
    # code, a French portal's access code, an SMS-activation code, a security answer's initial
    ("two-factor recovery codes\nAccount: ops-lead\nEach code can be used once.\n\n"
     "  65502-12542    8A3B9ICHEF\n  94737-14490    ma38-hbpp\n\nGenerated 2025-10-27",
     "8A3B9ICHEF"),
    ('ivr[2219]: menu=PAY_BY_CARD step=verify_pin input_dtmf="7937" result=OK', "7937"),
    ("WLAN: Aussteller-Netz — Code für den Lagerraum hinter Halle 3: 0070. Ihr Messe-Team",
     "0070"),
    ("votre référence RA-24-552044 ainsi que le code d'accès personnel suivant : HGWG-BS63.",
     "HGWG-BS63"),
    ("GET ...&action=getStatus&id=2943380676\n< STATUS_OK:660163", "660163"),
    ("Security question: Your high school\nAnswer provided: Booker T. Washington\nResult: MATCH",
     "T. Washington"),
    # proxies: a proxy list's lines, a status page's login, curl's proxy user
    ("# proxies (ip:puerto:usuario:contraseña)\n51.110.52.19:3128:mx8565:9H2Ex9jImmM9",
     "9H2Ex9jImmM9"),
    ("Пример для проверки:\n79.237.205.215:9421@cbtbtp:t60Z3DTV\n", "t60Z3DTV"),
    ("  http port 30899  auth: mobproxy / 4iXC8eBpbO\n  last IP rotation: 2024-04-10",
     "4iXC8eBpbO"),
    ("curl --proxy http://pr.oxylabs.io:7777 --proxy-user 'customer-seo:notvwKLzKT_604~x' -o a",
     "notvwKLzKT_604~x"),
    # bot managers' cookies in a cookies.txt, a harvester's log and a captcha page's link
    (".nike.com\tTRUE\t/\tTRUE\t1714384665\t_abck\t4D186602D0A42CA5E1AF23AAA1A085C6~0~YAAQu13W"
     "o7fzG4x64g6B1c26~-1~-1~-1", "YAAQu13Wo7fzG4x64g6B1c26"),
    ("DEBUG px-harvester: got fresh cookies\n  _px3=91c44dd28721d3450d45eee9c7e9ee65:34SHHQmV"
     "m1sMthhwl1pVpmjQ:1000:8nS4qlO5de1DE", "34SHHQmVm1sMthhwl1pVpmjQ"),
    ("https://geo.captcha-delivery.com/captcha/?initialCid=x&cid=ScxXmMgD_J4ojaCFeblHx0mnGfZQp8B"
     "omzOY~zCe8WEm&t=fe", "ScxXmMgD_J4ojaCFeblHx0mnGfZQp8BomzOY"),
    # sign-in links' one-letter tokens
    ("link=https://app.eurocardio-congress.eu/auth/magic?e=x&t=tok_x3mnjd6t8tde2uv3wbrk43nm5y8",
     "tok_x3mnjd6t8tde2uv3wbrk43nm5y8"),
    ('"GET /verify?u=eWVz&t=5cab4a8b7fd99413509f53839c96b335de01ccc6 HTTP/1.1" 200',
     "5cab4a8b7fd99413509f53839c96b335de01ccc6"),
    ("url=https://na3.docusign.net/Signing/StartInSession.aspx?t=2565fcc0-9ae8-4376-91a0-a0086c"
     "0118b8&DSLocale=en-US", "2565fcc0-9ae8-4376-91a0-a0086c0118b8"),
    # keys: AWS' secret opening with "//", Airtable's personal access token
    ("export AWS_SECRET_ACCESS_KEY=//Q3yAzRZEb1m7KyyKREu1MhQUJzFieb+ZkxUPLu\n",
     "Q3yAzRZEb1m7KyyKREu1MhQUJzFieb"),
    ('api = pyairtable.Api("patapaYaNIJLZjAgp.2f7794342776116aa3fd4ce9fe83f72eb59657f3e3fdfb084e'
     'e2ff046ac70ac2")', "2f7794342776116aa3fd4ce9fe83f72eb59657f3e3fdfb084ee2ff046ac70ac2"),
])
def test_the_round_s_shapes_are_redacted(text: str, value: str) -> None:
    assert value not in _redact(text)


@pytest.mark.parametrize("text", [
    # a URL's placeholder for its password is no address
    'proxy = "http://USERNAME:PASSWORD@gate.smartproxy.com:7000"',
    "Example: http://user-abc-country-de:PASSWORD@gate.example-proxy.net:7000",
    # records' numbers after "#:", a place's name, a feature flag, placeholders, a vault's stand-in
    "FHA Case #: 096-1343609   ADP Code: 703 (Sec 203(b))   Assigned: 02/25/2024",
    "ACDV Control #: 0617-3394-8821   Bureau: EQ   Response due: 06/27/2024",
    "Cert #: 5699194121   Loan #: 1587811651\nCommunity: Orange County  NFIP Community #: 447816",
    "flags.update key=portal.show_ssn_last4 old=false new=true actor=product-admin",
    '  JWT_SIGNING_KEY: "REPLACE_WITH_32_BYTES"',
    'step=collect_card input_dtmf="****************" pci_pause=true tokenized=tok_9Qm2 result=OK',
    "Books & supplies stipend: up to $1,000/yr   Yellow Ribbon: No\nSchool facility code: 34408160",
    # a proxy list's look-alike: a protocol and a state, no password
    "10.20.30.40:8080:http:enabled",
])
def test_the_round_s_clean_lines_are_kept(text: str) -> None:
    assert _redact(text) == text
