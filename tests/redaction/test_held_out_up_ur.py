"""What corpora UP to UR found held out (healthcare, pharmacy and insurance; gaming,
streaming and creator platforms; e-commerce, retail and logistics), each shape redacted in
process, and what must stay."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # healthcare: HL7 v2 identifiers by their fields, health numbers by their shapes or names
    ("MSH|^~\\&|PAS|RJ1|ICE|RJ1|20240827081810||ADT^A28|84355225|P|2.4\r"
     "PID|1||9291374881^^^NHS^NH~RJ10322879^^^RJ1^MR||CHAUDHRY^CALLUM||20030604|F",
     "9291374881"),
    ("processed msg MSH|^~\\&|REG|WMC|||20240105044113||ADT^A08|8638310|P|2.3<CR>PID|1||"
     "49070541||NGUYEN^TAMIKA||19520717|M|||||||||||397941918<CR>PV1|1|E", "397941918"),
    ("PID|1||7628073772^NS^^^JHN^^^^ON&Ontario&HL70347||TREMBLAY^ETIENNE||19910920|F",
     "7628073772"),
    ("NM1*IL*1*DOE*JANE****MI*2H75YC7GY14~", "2H75YC7GY14"),
    ("OCR: Medicare card 8HP2-TG7-EU24 effective 01-01-2024", "8HP2-TG7-EU24"),
    ('{"system": "http://fhir.de/sid/gkv/kvid-10", "value": "M237656953"}', "M237656953"),
    ("Kundenkartei | Versichertennr.: D934116890 | Kasse: TK", "D934116890"),
    ('{"identifier": [{"system": "urn:oid:1.2.250.1.213.1.4.8", "value": "280075025036470"}]}',
     "280075025036470"),
    ("HIPS lookup IHI 8003606420679080 ok", "8003606420679080"),
    ("registro e-SUS: CNS 252 9863 4175 0002, atendimento", "252 9863 4175 0002"),
    ('{"system": "https://saude.gov.br/fhir/sid/cns", "value": "109569168090000"}',
     "109569168090000"),
    ("ISA*00*          *01*S0RIAAVPYK*ZZ*SUB792676      *ZZ*CLAIMSCH       *240608*0139*^*",
     "S0RIAAVPYK"),
    ("(0010,0020) LO [1574286064]                              #  10, 1 PatientID",
     "1574286064"),
    ('ORTHANC__REGISTERED_USERS={"radadmin": "rryi12IPB$6ua"}', "rryi12IPB$6ua"),
    ('  "RegisteredUsers" : {\n    "pacsadmin" : "a5fDQaEMZn03r49Tyjed"\n  },',
     "a5fDQaEMZn03r49Tyjed"),
    ("0 2 * * * lftp -e 'mirror -R /out /in; bye' -u tpa_feed,'kmbu90UVZ!gjw' sftp://mft",
     "kmbu90UVZ!gjw"),
    ("jdbc.url=jdbc:oracle:thin:hl7stage/LTdtRTMVGbm7@//ora-scan.hosp.local:1521/CLINPRD",
     "LTdtRTMVGbm7"),
    ("Loading keystore keystore.jks (type=JCEKS, storepass=lo2TOcrp8rJL8Rx5zIJV, keypass same)",
     "lo2TOcrp8rJL8Rx5zIJV"),
    ('{"evt":"admin.reset","tempPwd":"Kestrel!Meadow18","by":"svc-idm"}', "Kestrel!Meadow18"),
    ("<Identification><SocialSecurity>451195948</SocialSecurity></Identification>",
     "451195948"),
    ("Ihr Einmalpasswort für das Patientenportal lautet 584764. Es ist 5 Minuten gültig.",
     "584764"),
    ("Network password: Saffron2023$. Gate code #57853.", "57853"),
    ("Content-Transfer-Encoding: quoted-printable\n\nKontakt: henrike_lindemann=40t-online.de =\n"
     "bitte Gr=C3=BC=C3=9Fe", "henrike_lindemann"),
    # gaming and streaming: stream keys, chat logins, license keys, product and gift codes
    ("Reddit: my key live_272273343_K6nOWVyY6U5cwm0UH8p0EkoKwFK811 leaked",
     "K6nOWVyY6U5cwm0UH8p0EkoKwFK811"),
    ("ffmpeg -re -i in.mp4 -f flv rtmp://a.rtmp.youtube.com/live2/v15n-1oox-pl7y-duxu-4sun",
     "v15n-1oox-pl7y-duxu-4sun"),
    ("< PASS oauth:fditvbdrzv66fevy5pl710g5ygqjwp", "fditvbdrzv66fevy5pl710g5ygqjwp"),
    ('sv_licenseKey "cfxk_mb0gnt9u1GveiOZVHwFV_e8fR3n"\nrcon_password "cDCy2sWlP0H9Ql"',
     "cfxk_mb0gnt9u1GveiOZVHwFV_e8fR3n"),
    ('sv_licenseKey "cfxk_mb0gnt9u1GveiOZVHwFV_e8fR3n"\nrcon_password "cDCy2sWlP0H9Ql"',
     "cDCy2sWlP0H9Ql"),
    ('\t"pass"\t\t"S%Dhx-e@%x*T!ivfMbP"', "S%Dhx-e@%x*T!ivfMbP"),
    ("<key>account.saved_pw</key>\n<string>bpixt-bogcyc-phgk6</string>", "bpixt-bogcyc-phgk6"),
    ('{"revocation_code": "R71193", "shared_secret": "x"}', "R71193"),
    ('body="Your Steam Guard code is PKR57" status=queued', "PKR57"),
    ("When I enter DWMUN-B4FOG-BOSLQ it says 'invalid product code'.", "DWMUN-B4FOG-BOSLQ"),
    ("recovery code from when I set up 2-step: HVQ78-D878V-FWJ7V-6JJTG-WTJPQ",
     "HVQ78-D878V-FWJ7V-6JJTG-WTJPQ"),
    ("SAVE YOUR BACKUP CODES\nKeep these backup codes somewhere safe.\n1. 5012 0379\n"
     "2. 4869 2807", "4869 2807"),
    ('{"discord":"https:\\/\\/discordapp.com\\/api\\/webhooks\\/837840745268211689\\/ik_xaMfFS6'
     'tGBcE74fdNVcGLTFmBWGo9oM_gWxFH7rCgnMACdYaLYkG_7gZH5MTz6TxK"}', "ik_xaMfFS6tGBcE74fd"),
    ("To=+18482990488&From=MyGameAuth&Body=Your+login+code+is+487174", "487174"),
    # e-commerce and logistics: door codes in five languages, keys under other languages'
    # names, a token with "^" and "#", a password of no digit, carriers' credentials
    ("La Poste : votre colis sera livré demain. Digicode communiqué : 7904. Gérer", "7904"),
    ('"deliveryNotes": "Código del portal 0336. Si no estoy, llamar"', "0336"),
    ('body="InPost: kod odbioru paczki 2921. Paczkomat WAW28M czeka 48h."', "2921"),
    ("配達メモ: 山本様宅、オートロック暗証番号は1029です。", "1029"),
    ("config.carriers = { gls: { clave_api: 'r9r8bf9HIsHA9uG9mOy8XQNxF1d7y1uaWZkak8uC' } }",
     "r9r8bf9HIsHA9uG9mOy8XQNxF1d7y1uaWZkak8uC"),
    ("headers={'Authorization': 'Bearer v^1.1#i^1#I^3#f^0#r^0#p^3#t^H4sIAAAAAAAAAObutExYyTVP"
     "vukDJ1NwHcBM19VL11gJjF', 'X': 1}", "H4sIAAAAAAAAAObutExYyTVP"),
    ("Akun JNE API — username: gudang_bekasi, kata sandi: @i*HvaJ%oW%JpW", "@i*HvaJ%oW%JpW"),
    ("login: sklep_api | hasło: SUxJ-ybgy-nRam | serwis: Poczta Polska", "SUxJ-ybgy-nRam"),
    ('klaviyo.Client("pk_69a9d2a49dc7d367f3084ab35c408e3b6f")',
     "pk_69a9d2a49dc7d367f3084ab35c408e3b6f"),
    ("XML=%3CAddressValidateRequest%20USERID%3D%22611VVUBG2667%22%3E%3CRevision%3E1",
     "611VVUBG2667"),
    ('request="{\\"cc_number\\": \\"4604643155420713\\", \\"cc_exp\\": \\"01/29\\", '
     '\\"cc_cid\\": \\"575\\"}"', "575"),
    ('"tins": [{"number": "47351633282", "tinType": "PERSONAL_NATIONAL"}]', "47351633282"),
    ("[przelewy24]\nmerchant_id = 299612\ncrc = 4dba41af6dc86f3d\nsandbox = false",
     "4dba41af6dc86f3d"),
])
def test_found_in_process(text: str, value: str) -> None:
    assert value not in _redact(text)


@pytest.mark.parametrize("text", [
    # barcodes that pass Luhn with a Visa prefix, a hospital's own record numbers
    "<item><g:id>BTL-YWB-38-509</g:id><g:gtin>4015790611523</g:gtin></item>",
    "PID|1||RJ10322879^^^RJ1^MR~44780753^^^KLIN-NORD^PI||DOE^JANE||19730101|F",
    # SKUs and part numbers in dashed groups, a stand-in key, a ProductId
    "sku CAP-BCY-NAV-723 ids ABCDE-ABCDE-ABCDE 2024-0001-0002-0003 XXXXX-XXXXX-XXXXX",
    '"ProductId"="00330-80000-00000-AA679"',
    # a password named beside another; words after a password's name; a request id
    "DE: Wir fragen niemals nach deinem Passwort oder 2FA-Codes.",
    "hasło: Zmień-Hasło-Teraz",
    '{"request_id":"167033387661467","route":"/api/v2/quotes","status":200}',
    # form values that hold no secret; codes no one keeps secret
    "q=red+running+shoes&page=2",
    "error code 100234 to confirm",
])
def test_stays(text: str) -> None:
    assert _redact(text) == text
