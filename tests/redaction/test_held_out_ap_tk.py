"""The round of corpora AP (trucking and fleets), AQ (freelance marketplaces and payouts), SK
(public-safety dispatch), SL (package registries), TJ (alarm monitoring) and TK (background
checks and tenant screening): each shape they found left or wrongly changed, redacted or kept
in process."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # trucking: a fuel card's NIP, express and money codes, a load board's U:/P: login, a
    # Carta Porte's licence, The Work Number's salary key
    ("la tarjeta Comdata es 5532 3194 4851 5742 y el NIP 6829. Carga nomás diesel", "6829"),
    ("rosa ahí te va la tarjeta de combustible\nNIP: 2308\nSi te pide Driver ID", "2308"),
    ("Comchek express code for the wash-out: 9119 8657 3922. Auth # 689857.", "9119 8657 3922"),
    ("EFS Money Code issued: 4837980909 | amount: $420.00", "4837980909"),
    ("DAT\nU: rmf_dispatch\nP: Tigers379\n\nTRUCKSTOP\nU: rmfloads\nP: cowboys*858", "cowboys*858"),
    ('TipoFigura="01" RFCFigura="RAKR780326UT4" NumLicencia="NLE1775644" NombreFigura="R"',
     "NLE1775644"),
    ("Authorization: Employee salary key 452906 (valid 1 use)", "452906"),
    # W-8BEN's foreign TIN (India's PAN), a taxId key's ITIN, an SSN card, a SIN's note
    ("6a Foreign tax identifying number: PLRPJ9512H\n6b Check if FTIN not legally required",
     "PLRPJ9512H"),
    ('"subject":{"first":"Jose","taxId":"988877388","taxIdType":"ITIN"}', "988877388"),
    ("SOCIAL SECURITY\nTHIS NUMBER HAS BEEN ESTABLISHED FOR\n852.51.1253\nJAMAL K BAPTISTE",
     "852.51.1253"),
    ("Total: $2,337.50\nSIN (for T4A slip): 495 137 671\nPayPal: x", "495 137 671"),
    # app passwords: WordPress's, Apple's, Google's unspaced
    ("Application password generated for 'zapier-sync': 6Dkj wzfB 0BUS bFo5 rypL qN7C\n",
     "6Dkj wzfB 0BUS bFo5 rypL qN7C"),
    ("the CI Apple ID with the app-specific password hbwg-hpnw-qfod-ozdg (not mine)",
     "hbwg-hpnw-qfod-ozdg"),
    ("Scan to email: SMTP smtp.office365.com:587 (app password bofkpeloupqmvkyg)",
     "bofkpeloupqmvkyg"),
    # a value whose letters before a colon are of mixed case is a password's, not a field's
    ('db_password     = "MGq:%FQZDi*aP0*?4-KH"\n', "MGq:%FQZDi*aP0*?4-KH"),
    # payments: a Stripe Express login link, Tipalti's hashkey, Persona's key
    ("login: https://connect.stripe.com/express/acct_1PiAzTVI0pmlVJyd/3G6xzECfC0Zl (5 min)",
     "3G6xzECfC0Zl"),
    ("payeedashboard/home?idap=fl_1204649&ts=1724156467&hashkey=e0236469daddcf06986e09ea2e8d29b3"
     "5d5a6c0af4c59bf52", "e0236469daddcf06986e09ea2e8d29b35d5a6c0af4c59bf52"),
    ("c.api_key = ENV.fetch('PERSONA_API_KEY', 'persona_production_18d38959-37ff-49e6-9925-79"
     "9e1e4b2c11')", "persona_production_18d38959-37ff-49e6-9925-799e1e4b2c11"),
    # security answers: a profile's security_a1, a log's q=/answer=, a question and its Answer
    ("security_q1: Mother's maiden name\nsecurity_a1: Delacroix\n", "Delacroix"),
    ('kba q_id=Q17 q="What was the name of your elementary school?" answer="Roosevelt Middle" '
     'result=match', "Roosevelt Middle"),
    ("Security question 1: Name of your first school? Answer: Pelican Bay Elementary\n",
     "Pelican Bay Elementary"),
    # package registries
    ('    npmAuthIdent: "svc-yarn:Sommer2024!"\n', "Sommer2024!"),
    ('BUNDLE_GEMS__TALLYHO__APP: "deploy:00f0e67ec084f82ebbdfdbd1d4e5bea5de5f482f"',
     "00f0e67ec084f82ebbdfdbd1d4e5bea5de5f482f"),
    ("PS> nuget setapikey oy2kbv12ilhenb1gpgqp1cy8wrwyummh2zgv3btzkfmj4u -source x",
     "oy2kbv12ilhenb1gpgqp1cy8wrwyummh2zgv3btzkfmj4u"),
    ("- cmd: cargo login cioGnuNjfPfvt4unngTFG3TZo1eKiYh3sWm\n",
     "cioGnuNjfPfvt4unngTFG3TZo1eKiYh3sWm"),
    ("<settingsSecurity>\n  <master>{tPAJOjdWJig1lkvLG7M/07azhqfrQIb1P/3Nu+D/BeI=}</master>",
     "tPAJOjdWJig1lkvLG7M/07azhqfrQIb1P/3Nu+D/BeI="),
    ("$ docker exec nexus cat /nexus-data/admin.password\n7f1c2daf-1b86-4d40-9fed-25bc978f6664",
     "7f1c2daf-1b86-4d40-9fed-25bc978f6664"),
    ("$ conan remote login artifactory ci-conan -p Harbor2002!\n", "Harbor2002!"),
    ("$ npm hook add @ravenmoor https://hooks.ravenmoor.tech/npm HRTveeHgdOoVLo5463ykApiTY5DPfSaM",
     "HRTveeHgdOoVLo5463ykApiTY5DPfSaM"),
    ("deb [signed-by=/usr/share/keyrings/k.gpg] https://dl.cloudsmith.io/uMkP879D4oi5BMIE/k/deb/",
     "uMkP879D4oi5BMIE"),
    ("https://crates.io/confirm/OGwtpS3svHw46RD71lskpdi8hHrKmmIe",
     "OGwtpS3svHw46RD71lskpdi8hHrKmmIe"),
    ("artifactory:\n  masterKey: e530668ffa8059aa85a2f486c080c18461f1816ebb05f141a\n",
     "e530668ffa8059aa85a2f486c080c18461f1816ebb05f141a"),
    # alarm monitoring: installers', masters' and users' codes, verbal passcodes and code
    # words, a camera's verification code, a DC-09 AES key, a Wi-Fi key in a device's XML
    ("Customer locked out. Entered installer code 5270 -> [*][5] -> reset user 40", "5270"),
    ("[006] Installer code ......... 4943  (prev. default crossed out)", "4943"),
    ("Pose centrale Hikvision AX PRO. Code installateur 827916, code maître donné par le client "
     "112432.", "112432"),
    ("Código instalador 6544, código del titular 234624, código de coacción 369930.", "369930"),
    ("Errichtercode 271220, Betreibercode 462378. Aufschaltung NSL über IP", "462378"),
    ("Alarm acct #9183  passcode \"CHESAPEAKE\" (in case you need it)", "CHESAPEAKE"),
    ("Mobiel: 06 49 11 44 99\nCodewoord: HAGELSLAG\nMet vriendelijke groet", "HAGELSLAG"),
    ("Rückruf: Teilnehmer nennt Kennwort Lindenbaum - KORREKT", "Lindenbaum"),
    ("hey can you check 7721-03, customer says her code word is Cedar Point but", "Cedar Point"),
    ("EZVIZ C6N\nSerial No. E10326744\nVerification code: PHERDO\nMAC: 9C8ECDA18006", "PHERDO"),
    ("Monitoring: SIA DC-09 to ARC, account F402, encryption key \"5B444E621BF003F4058D4E4261517"
     "1C4\"", "5B444E621BF003F4058D4E42615171C4"),
    ("<WPA>\n<algorithmType>AES</algorithmType>\n<sharedKey>cheddar-cheddar-cheddar-55</sharedKey>",
     "cheddar-cheddar-cheddar-55"),
    # police systems: NCIC's fields, a radio system's keys, a login's SQL, PagerDuty's key
    ("HGT/507 WGT/190 EYE/BRO HAI/BLK SKN/MED\nSOC/514969688\nOFF/3599 - DANGEROUS DRUGS",
     "514969688"),
    ("QW.CA0194200.NAM/ESPINOZA, ANDRES.SEX/M.RAC/W.DOB/19930817.MNU/PP-N69491902", "N69491902"),
    ("CKR 0118  ALGID 84  KID 02A1  KEY 16976CC80F0E0E38161C4F12006AD25B245D0DDB6E87702626414143"
     "320B173D\n", "16976CC80F0E0E38161C4F12006AD25B"),
    ("CREATE LOGIN [cad_iface] WITH PASSWORD = N'*eU*mxyM7IkA_GDt', CHECK_POLICY = ON",
     "*eU*mxyM7IkA_GDt"),
    ('{"routing_key": "alqp4lsruykx55x1kvoj5qx8vfyuifu0", "event_action": "trigger"}',
     "alqp4lsruykx55x1kvoj5qx8vfyuifu0"),
    ("CJIS token PIN is 3197 and security answer (mother's birthplace) is 'Tombstone'.",
     "Tombstone"),
    ("Caller verified with security question 'first car?' answer 'Grandma Ruth'. Reset",
     "Grandma Ruth"),
    # a word given and checked on a call, a Finnish tunnussana, the ARC's password, an
    # engineer's code, Italian's installer's and user's codes, a panel's download id, a
    # TotalConnect user code, check_http's login
    ("Keyholder informed on the mobile, password Foxglove confirmed. URN 2248877", "Foxglove"),
    ("Client joint au 780-834-8423, mot de passe CARIBOU correct. Fausse alarme", "CARIBOU"),
    ("- 01:12 acct 4417 BURG z3, spoke to owner, pw HOPSCOTCH ok, cancelled", "HOPSCOTCH"),
    ("Henkilötunnus annettu. Tunnussana REVONTULI.", "REVONTULI"),
    ("Our password for the ARC remains PENGUIN.\n\nKind regards", "PENGUIN"),
    ("UDL password changed. Engineer code 1664, master user 7876 (customer chose).", "1664"),
    ("Il tecnico ha lasciato il codice installatore 8752 scritto sul manuale", "8752"),
    ("*48 REPORT FORMAT: 77 (Contact ID)\n*94 DOWNLOAD ID: 44D60BAF\nUSER 02 (MASTER): 7896",
     "44D60BAF"),
    ("<DeviceID>8265448</DeviceID><ArmType>1</ArmType><UserCode>5795</UserCode>", "5795"),
    ("command_line $USER1$/check_http -H $HOSTADDRESS$ -u /status -a monitor:KW=gzmX9oj2~ -e 200",
     "KW=gzmX9oj2~"),
])
def test_the_round_s_shapes_are_redacted(text: str, value: str) -> None:
    assert value not in _redact(text)


@pytest.mark.parametrize("text", [
    # a company's EIN and a form's stand-in ITIN stay (a company's number, test data)
    "Payee: Riverbend Unified School District\nEIN: 74-6000712\nUEI: KJ7MZ4L9N2B5",
    "If the SSN is unknown, enter 999-99-9999 and the funeral director signs.",
    # a fare's "1PC" is no passcode's abbreviation; Go's struct print is fields
    "ZRH-SFO KL1915 YCLASS 12OCT BAG 1PC FARE BASIS KFLXDE\nFORM OF PAYMENT: CASH",
    "&{Token: PasswordMinLength:12 RequireDigits:true}",
    # prose after a passcode's name, a hashcat result's password still read
    "passcode: Required for all arming changes",
    "Verbal password: see the account notes",
    # Gradle's credentials type, Hatch's environment references, an Azure SDK's setting
    "credentials(PasswordCredentials::class)   // reads from gradle.properties",
    'PIP_INDEX_URL = "https://{env:PIP_USER}:{env:PIP_PASSWORD}@pkgs.example.net/simple"',
    "EventHub__Credential=managedidentity\nEventHub__Name=alarm-signals",
    # a checked word that is prose's ("password Reset ok"), a download's words without a code
    "Password Reset ok for the portal user",
    "Download ID: pending, ask the dealer",
    # a hash's work factor, a signature's algorithm, a secret scanner's mask
    "model=Body4 fw=1.52.7 sig_alg=ECDSA-P256 sig_ok=true",
    "-FLOCK_API_KEY=flk_REDACTED_BY_SECRET_SCANNER\n+FLOCK_API_KEY=${FLOCK_API_KEY}",
])
def test_the_round_s_look_alikes_stay(text: str) -> None:
    assert _redact(text) == text


def test_a_cracked_hash_s_password_is_still_read() -> None:
    out = _redact("Recovered........: 1/1 (100.00%) Digests\n\n"
                  "c9a85f2ff5369a708ce66a1e190786e7:Falcon1992#")
    assert "Falcon1992#" not in out
