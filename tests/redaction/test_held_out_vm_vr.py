"""The rounds of corpora VM (databases and data pipelines as their logs print them), VN
(mobile and web client telemetry), VO (payments and fintech messages), VP (identity and
sign-in systems), VQ (travel, hospitality and logistics), VR (IoT, telecom and connected
vehicles), VS (healthcare, pharmacy and insurance), VT (HR, payroll and recruiting) and VU
(public-sector records and forms): each shape they found left, redacted in process, and the
lines near them that must stay."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # SQL literals with a quote inside, doubled or escaped
    ("LOG:  statement: CREATE ROLE dbt_ci LOGIN PASSWORD 'Kc7YC3''9R0Y^480';", "Kc7YC3''9R0Y^480"),
    (r"Query	ALTER USER 'looker'@'10.%' IDENTIFIED BY 'V57e\'ZCLV8#20'", r"V57e\'ZCLV8#20"),
    # a key in backquotes, compared in SQL
    ("WHERE `User`.`resetPasswordToken` = '1cb83ba2968d9fc0b3d224063e514cb4e394e3e5' LIMIT 1",
     "1cb83ba2968d9fc0b3d224063e514cb4e394e3e5"),
    # a configuration dump's dotted leader
    ("maximumPoolSize.................20\npassword........................walrus-quartz-saffron-01",
     "walrus-quartz-saffron-01"),
    # "tkn" as a key's word
    ("sources:\n  zendesk:\n    zd_tkn: 3HegpjhB1rVNslt89LwCIxCathIvtiorsldyCd2L",
     "3HegpjhB1rVNslt89LwCIxCathIvtiorsldyCd2L"),
    # a Rails log's binds, PgBouncer's userlist, Elasticsearch's ApiKey, express-session's id
    ('UPDATE "users" SET "otp_secret" = $1  [["otp_secret", "7ATLHY4BUVHJW37TEWWEQJIVZFYVQNNY"], '
     '["id", 72113]]', "7ATLHY4BUVHJW37TEWWEQJIVZFYVQNNY"),
    ('"pgbouncer_admin" "pylon-quartz-violet-90"\n"stats_collector" ""', "pylon-quartz-violet-90"),
    ("headers: map[Authorization:[ApiKey ZkFqY0FXYzViTTk5MHNOMU80cXM6M1NxTkpkRjUzTkY0VEcyNkU3bnVu"
     "cA==] Content-Type:[application/x-ndjson]]",
     "ZkFqY0FXYzViTTk5MHNOMU80cXM6M1NxTkpkRjUzTkY0VEcyNkU3bnVucA=="),
    ('{ "_id" : "s%3A-Qvkhxzf8QomHf3x03_tX4YlthGBiP-E.SLKhrELHJDCDbcxxImcMyDYUYDeBEBxPWLHtl2KI34G",'
     ' "expires" : 1 }', "-Qvkhxzf8QomHf3x03_tX4YlthGBiP-E"),
    ("basic.auth.user.info=2VIVX4N8W362APCI:Tgcb7oxtLispcCvmiIvGYp5bIV9VbLvhAiwOBB0E",
     "2VIVX4N8W362APCI"),
    # an SSN under a Salesforce custom field's name, a TFN under its column's
    ("UPSERT Contact failed on SSN__c = '756914166' (Contact 003c740bab22882)", "756914166"),
    ("where \"public\".\"wallets\".\"tax_file_number\" = '686 852 811'", "686 852 811"),
    # an address as a PostgreSQL bytea literal's hex
    ("DETAIL:  parameters: $1 = 'customer.updated', $2 = '\\x736162696e652e706174656c40756f6c2e"
     "636f6d2e6272'", "736162696e652e706174656c40756f6c2e636f6d2e6272"),
    # vendors' keys by their shapes: Stripe's client secret, LaunchDarkly's SDK key, Mollie's,
    # Sign in with Apple's authorization code
    ('stripe.confirmCardPayment("pi_32boC9ypWmEzWSChw7zVTKYj_secret_EFd48nD5mHPGaEsGpTPrsKC2F")',
     "pi_32boC9ypWmEzWSChw7zVTKYj_secret_EFd48nD5mHPGaEsGpTPrsKC2F"),
    ("Starting LaunchDarkly client 7.4.1 with sdkKey sdk-ecac01dc-76d3-440c-9872-580c0ccabdc1",
     "sdk-ecac01dc-76d3-440c-9872-580c0ccabdc1"),
    ('$mollie->setApiKey("live_SAvWaIfhmSEkAzk9Hp9vqh0DVId8C5");',
     "live_SAvWaIfhmSEkAzk9Hp9vqh0DVId8C5"),
    ("authorizationCode: c6835fa27a51f0693314ce98e532da9d.0.ahwh.qL7Eun_Mhz3pAKfOTvSQbn)",
     "c6835fa27a51f0693314ce98e532da9d.0.ahwh.qL7Eun_Mhz3pAKfOTvSQbn"),
    # an app's PIN under a camel-case key, in SharedPreferences; a key in a manifest's meta-data
    ("TRACE hsm-client cmd=CA test-harness input: clearPIN=0958 pan12=710796284984", "0958"),
    ('<map>\n    <string name="wallet_pin">2356</string>\n</map>', "2356"),
    ('<meta-data android:name="com.bugsnag.android.API_KEY"\n    '
     'android:value="ed9dd76dde1568170e3aaba958689bad"/>', "ed9dd76dde1568170e3aaba958689bad"),
    # what an analytics tool captured of a password field
    ('{"event":"text_input_changed","properties":{"field_id":"et_password",'
     '"text_input_value":"gunungOtono78?","length":14}}', "gunungOtono78?"),
    # India's PAN after its Hindi name; the UK's NINO spaced as HMRC prints it
    ("breadcrumb[ui.input] KycFormScreen: पैन = WIKPI4024S", "WIKPI4024S"),
    ("exec sp_executesql N'SELECT * FROM dbo.Members WHERE NationalInsuranceNo = @p0',"
     "N'@p0 nvarchar(13)',@p0=N'NA 78 58 39 B'", "NA 78 58 39 B"),
    # payments: a 3-D Secure code told after its amount, a seed phrase in a ticket, an MT940
    # counterparty's IBAN, an EMV chip's PAN, an MT103's national id, 3DS's subscriber number,
    # a NACHA child-support addendum's SSN, a German check-number column
    ('sms-gateway submit text="Uw code voor de betaling van 273.23 EUR bij ALLEGRO is 501579."',
     "501579"),
    ('Der Kunde schreibt: "Meine Wiederherstellungsphrase lautet scatter ladder engine nephew '
     'delay yellow actor embark sketch mosquito garlic angle, bitte prüfen Sie mein Wallet."',
     "scatter ladder engine nephew delay yellow actor embark sketch mosquito garlic angle"),
    (":86:166?00GUTSCHRIFT?30BNPAFRPP?31DE21200411331436237045?32WAGNER FELIX",
     "DE21200411331436237045"),
    ("outbound 0200 stan=776776 f22=071 f55=9F26087775B0678DB0BC209F2701809F10120110A000032200"
     "00000000000000000000FF5A0852224973321377195F3401019F36020CC49A032408039C0100",
     "5222497332137719"),
    (":32A:240817EUR11575,21\n:50F:NIDN/ES/30746537E\n1/MARTA GARCIA", "30746537E"),
    ('{"email": "x", "mobilePhone": {"cc": "33", "subscriber": "643363659"}}', "643363659"),
    (r"705DED*CS*189303508*240525*0000130716*185388905*N*CASTILLO*01265*N\    00013549062",
     "185388905"),
    ("order_id;kunde;karte;gueltig_bis;pruefnummer\n934054;Ostsee Reisen;340970337507647;11/26;969",
     ";969"),
    ('{"individual": {"ssn_last_4": "6679", "id_number": "779626679"}}', "779626679"),
    # identity systems: SCIM's path/value, an escaped backslash in JSON, a hook's header pair,
    # LDIF's unicodePwd, a device flow's codes, camel-case keys, Duo's skey, an NT hash told,
    # reset links, a helpdesk's bypass code, SAML's identity attributes, a DNIe's subject,
    # Microsoft's sign-in cookie, a camel-case Authorization key
    ('{"Operations":[{"op":"replace","path":"password","value":"Herbstlaub.1458xPIK"}]}',
     "Herbstlaub.1458xPIK"),
    ('{"op":"bind","bind_dn":"CORP\\\\svc-h","password":"Wint3r\\\\c6A2%72","timeout":5}',
     "c6A2%72"),
    ('"authScheme":{"type":"HEADER","key":"Authorization","value":"oyDZAYthD7u4GYbtG71dMPNbz2L"}',
     "oyDZAYthD7u4GYbtG71dMPNbz2L"),
    ("replace: unicodePwd\nunicodePwd:: IgBOAGEAcgBhAG4AagBhACoAMgAwADIANAAiAA==\n-",
     "IgBOAGEAcgBhAG4AagBhACoAMgAwADIANAAiAA=="),
    ("open the page https://microsoft.com/devicelogin and enter the code QM363ACZJ to "
     "authenticate.", "QM363ACZJ"),
    ('{"device_code": "jtmni2cg9nKT6RW6IXV0MO1wEWkWHWCCqbADAGHH-Kx", "user_code": "QJDR-WNMX"}',
     "QJDR-WNMX"),
    ('    bindPW: "ostrich-ember-harbor74"', "ostrich-ember-harbor74"),
    ("ikey=DIMQEVZ13FO72WC36IYB\nskey=Kia1I7VtqFQyhuAlqnaXNwtDZZwj91HYccIqXvNE",
     "Kia1I7VtqFQyhuAlqnaXNwtDZZwj91HYccIqXvNE"),
    ('{"id":"0869f031","temporaryAccessPass":"ujVI5jPO","createdDateTime":"2024"}', "ujVI5jPO"),
    ("NT hash for CORP\\rsorensen from NTDS.dit: e4c1994ea5e1a4508dde10acd2dc5ac9 (4 min)",
     "e4c1994ea5e1a4508dde10acd2dc5ac9"),
    ("https://compte.mutuelle-horizon.fr/reinitialiser?jeton=sVUmKQwfDxRU02En4ZV8zf3_CQUbBCM4Fp",
     "sVUmKQwfDxRU02En4ZV8zf3_CQUbBCM4Fp"),
    ("https://portal.pinecrest-labs.net/accounts/reset/NjExMQ/qez2mu-1c7f1c4e2fa7c818a49170290467"
     "1223/", "qez2mu-1c7f1c4e2fa7c818a491702904671223"),
    ("Generated one-time bypass code 01012858 (valid 4h) and told user to re-enrol.", "01012858"),
    ('<saml2:Attribute FriendlyName="personalIdentityNumber" Name="urn:oid:1.2.752.29.4.13">\n'
     "    <saml2:AttributeValue>198504052963</saml2:AttributeValue>", "198504052963"),
    ("<saml:Subject><saml:NameID>s00000000:219835718</saml:NameID>", "219835718"),
    ('subject="CN=RUIZ MATEO (AUTENTICACION), SERIALNUMBER=IDCES-69711819S, C=ES"', "69711819S"),
    ("ESTSAUTHPERSISTENT=0.AOX4qASjoHtfy3Yv3rTfrtWGBPowLqR1gtIetOzwmjaD63yyXJ-uXOHwUD9NtVCB",
     "0.AOX4qASjoHtfy3Yv3rTfrtWGBPowLqR1gtIetOzwmjaD63yyXJ"),
    ('"httpAuthorization":"Splunk 9fN-i7uG8Lk_ElXd7qbxas9-LN3qtfBiBenDsaR2"',
     "9fN-i7uG8Lk_ElXd7qbxas9-LN3qtfBiBenDsaR2"),
    ('Rad: "65069;Wallin;Björn;072-317 87 86;19720605-3287;Ekonomi"', "19720605-3287"),
    # travel: a PNL's document and contact, GDS phones, Travelport's phone, a FOID, a signed
    # media URL, Korea's customs code, driving licences by their European names, a parcel
    # locker's code, a delivery code in Arabic, Portuguese's palavra-passe, a passport in Hindi
    (".R/DOCS HK1 P/DEU/JG0T8PK24/DEU/25JUN96/M/02MAR33\n.R/CTCE HK1/JONAS.KRUGER//GMAIL.COM",
     "JG0T8PK24"),
    (".R/DOCS HK1 P/DEU/JG0T8PK24/DEU/25JUN96/M/02MAR33\n.R/CTCE HK1/JONAS.KRUGER//GMAIL.COM",
     "JONAS.KRUGER//GMAIL.COM"),
    ("OSI VY CTCP 5531914381481 PAX", "5531914381481"),
    ("PHONES\n  1.NYC5531932798775-M", "5531932798775"),
    ('<common_v52_0:PhoneNumber Type="Mobile" CountryCode="91" Number="8348098610"/>',
     "8348098610"),
    ("3OSI DL FOID PP47BH75793-1.1", "47BH75793"),
    ("https://res.cloudinary.com/x/image/authenticated/s--W5shkwhl--/c_fill,w_800/id.jpg",
     "W5shkwhl"),
    ("수취인 박서연 / 개인통관고유부호 P887202358253 / 연락처", "P887202358253"),
    ("Führerscheinnummer: 2675Y9OOS42 (Klasse B)", "2675Y9OOS42"),
    ("Permiso de conducir nº 13556752T (expedido en España)", "13556752T"),
    ("counter-app: renter verified | DL FL G662239685106 exp 08/15/2029", "G662239685106"),
    ("DHL: Ihr Paket liegt in der Packstation 103 (Leipzig). Abholcode: 463121. Abholung bis",
     "463121"),
    ("أرامكس: شحنتك في الطريق. رمز التسليم: 050605", "050605"),
    ("utilizador: ops.lisboa / palavra-passe: %kdNEHD9YGnl^z. Depois", "kdNEHD9YGnl"),
    ("पासपोर्ट संख्या: J4064822", "J4064822"),
    ('{"driver": "DRV-6234", "otp_entered": "7956", "otp_valid": true}', "7956"),
    # devices: paho, AT+CGAUTH, a Hue bridge's key, Matter's and HomeKit's codes, a pairing
    # code, OpenWrt's UCI, a Wi-Fi key in groups, LoRaWAN's and Thread's keys, TR-069, OCPP,
    # Android's Wi-Fi store, SIP digest's response, ChirpStack's nwkKey, an invitation's token
    ('client.username_pw_set("gateway", "Sarang!2008!")', "Sarang!2008!"),
    ('AT+CGAUTH=1,2,"m2m-user","dTb4OVjOijhEiQaVb"', "dTb4OVjOijhEiQaVb"),
    ('"GET /api/xHHME-V42K1B6jblIlefFP-PlwieutGsBgAy3Opi/lights HTTP/1.1" 200',
     "xHHME-V42K1B6jblIlefFP-PlwieutGsBgAy3Opi"),
    ("./chip-tool pairing ble-wifi 134 'HomeNet-5G' 'pw' 49015651 1093", "49015651"),
    ("I (1551) chip[SVR]: Setup Pin Code (0 for UNKNOWN/ERROR): 03660113", "03660113"),
    ("Der HomeKit-Einrichtungscode der Bridge lautet 201-44-788 – bitte", "201-44-788"),
    ("Saisissez le code d'appairage 338-741 sur l'écran central.", "338-741"),
    ("\toption key 'Jkfg0geLlY2XYMLU'", "Jkfg0geLlY2XYMLU"),
    ("the sticker says Wi-Fi key: 5469 7340 2241 5489. The thermostat", "5469 7340 2241 5489"),
    ("lns: MIC ok using AppKey A7A1496A B4002241 13735F10 FA13B018", "B4002241 13735F10"),
    ("Network Key: 07e683ef5f4025b444e621bf003f4058\nPSKc: d4e42615171c4f460338d9805d0f8614",
     "d4e42615171c4f460338d9805d0f8614"),
    ("<Name>InternetGatewayDevice.WANDevice.1.WANPPPConnection.1.Password</Name><Value xsi:type="
     '"xsd:string">bK#00j0XDZdqIj</Value>', "bK#00j0XDZdqIj"),
    ('{"variable": {"name": "BasicAuthPassword"}, "attributeValue": "541030fc25df0f50"}',
     "541030fc25df0f50"),
    ('<string name="PreSharedKey">&quot;Mo&quot;lenkanaal92&amp;&quot;</string>', "lenkanaal92"),
    ('Authorization: Digest username="v", realm="x", response="281d4feac26f7ac845f235779a1334f0"',
     "281d4feac26f7ac845f235779a1334f0"),
    ('"nwkKey": "2a05eaac649c2a6a720a253572ff90bc",', "2a05eaac649c2a6a720a253572ff90bc"),
    ("Accept here: https://keys.example-mobility.com/accept?invite=d2BtcFrgLqMXL_tFEhBu9TV4 —",
     "d2BtcFrgLqMXL_tFEhBu9TV4"),
    # HR and payroll (corpus VT): a token told in parentheses, a checklist's temporary
    # password in backquotes, a NINO under "ni" in base64 JSON, an Okta activation link, a
    # DSN's NIR, Amex's CID after the card
    ("I swapped in a fresh token (VMtxTTnRRGEXcVdLFHH3asjya7ns1M1wXVui5MTqdBV6UdoM) — the old",
     "VMtxTTnRRGEXcVdLFHH3asjya7ns1M1wXVui5MTqdBV6UdoM"),
    ("- [ ] Temporary password (force change at first logon): `XTNjsy182#Bd`", "XTNjsy182#Bd"),
    ("payroll.rti.fps queued body_b64=eyJuaSI6ICJaRTg4MjgwN0IiLCAidGF4X2NvZGUiOiAiMTI1N0wifQ==",
     "eyJuaSI6ICJaRTg4MjgwN0IiLCAidGF4X2NvZGUiOiAiMTI1N0wifQ=="),
    ("activationUrl=https://copperline.okta.com/welcome/AYkJVM5qz4w1iCqYL5OB sendEmail=false",
     "AYkJVM5qz4w1iCqYL5OB"),
    ("S21.G00.30.001,'298085913976844'\nS21.G00.30.002,'MERCIER'", "298085913976844"),
    ("the new corporate Amex: 3499 441337 01424, valid thru 02/27, CID 3558. Going", "3558"),
    # health records (corpus VS): HL7's national number type (NN and a country), phones in
    # PID-13 and their area code and number apart, MSH-8's security field; Orthanc's second
    # user; FHIR's identifier systems, DICOM's Other Patient IDs; a password typed as a user
    # name; a retrieval PIN of letters and digits; a results link's token; Japan's insured
    # person's number; Ontario's health card with its version code
    ("PID|1||4177148^^^ZKH^PI~523506776^^^NLMINBIZA^NNNLD||VAN DIJK^THIJS||19660609|M",
     "523506776"),
    ("PID|1||308845266^^^BAYVIEWMC^MR||ASHBY^GREGORY^A||19590812|M|||915 Magnolia Ave^^Austin"
     "||(415)826-4584^PRN^PH^^1^415^8264584", "8264584"),
    ("MSH|^~\\&|AGFA|MERCYWEST|EMPI|HIE|20241106154256|k$JlkBqVS8z|QBP^Q22^QBP_Q21|MSG1|P|2.5",
     "k$JlkBqVS8z"),
    ("GT1|1|661171|WHITAKER^DARNELL||915 Magnolia Ave^^Austin^TX^78704|6177672444||20000607|M||"
     "SPO|814934359", "814934359"),
    ("GT1|1|661171|WHITAKER^DARNELL||915 Magnolia Ave^^Austin^TX^78704|6177672444||20000607|M||"
     "SPO|814934359", "6177672444"),
    ('"RegisteredUsers" : {\n    "admin" : "z4xfrcJWXlRi5GjcWBy9uH",\n    "ohif" : '
     '"hRbtbHXHLqvMKgcX"\n  },', "hRbtbHXHLqvMKgcX"),
    ('"identifier":{"system":"http://hl7.org/fhir/sid/us-ssn","value":"229151018"}', "229151018"),
    ("(0010,1000) LO [4683280566]                            #  10, 1 OtherPatientIDs",
     "4683280566"),
    ('WARN auth: login failed for user "meadow!falcon176" from 213.23.114.162', "meadow!falcon176"),
    ("Ihre persönliche Abruf-PIN lautet: ACWT-668P\nDie PIN ist 14 Tage gültig.", "ACWT-668P"),
    ("View them here: https://results.x.net/r/open?u=a%40b.com&t=zoc5HWtyVm1bzgiCVsiWeo3rbxoq-3QR",
     "zoc5HWtyVm1bzgiCVsiWeo3rbxoq-3QR"),
    ("保険者番号: 39855464\u3000被保険者番号: 83276978", "83276978"),
    ("My health card is 8805-274-977-SD. Please fax the completed form", "8805-274-977"),
    # public-sector records (corpus VU): a code before "is your ... security code", DigiD's
    # sms code, an IP PIN after "(IP PIN) is:", a password given with what it is, France's
    # numéro fiscal, ELSTER's Steuer-ID field, ATO's TFN element, an access code, Aadhaar's
    # license key and uid, the SSA's EFW2 record, Portugal's NISS, Japan's pension number
    ('body="305302 is your GOV.UK One Login security code"', "305302"),
    ('digid-sms INFO sms_verificatie bsn=256593383 code=087412 client_ip=x', "087412"),
    ("Your Identity Protection Personal Identification Number (IP PIN) is: 779539", "779539"),
    ("Prima parte del PIN: 4670   Password iniziale: FT8HzirV", "FT8HzirV"),
    ("Votre numéro fiscal : 06 10 168 188 462", "06 10 168 188 462"),
    ("<E0100001>Hofmann, Anja</E0100001><E0100401>35824977019</E0100401>", "35824977019"),
    ("<tns:ITR><tns:RP><tns:TaxFileNumberId>517375825</tns:TaxFileNumberId>", "517375825"),
    ("POST /netfile/submit sin=604639500 access_code=MP6CYHMW tax_year=2023", "MP6CYHMW"),
    ('<Otp uid="476746348356" ac="public" lk="7zMm9Y7TKC1ANgyFA-GjQ7k88iWYGuZqLJEdoceE">',
     "7zMm9Y7TKC1ANgyFA-GjQ7k88iWYGuZqLJEdoceE"),
    ("eKYC response mismatch for uid 486431184462", "486431184462"),
    ("RW813867532OLIVIA                        PRITCHARD", "813867532"),
    ("NISS: 10530397540  NIF: 107615223", "10530397540"),
    ("基礎年金番号：4138-442494", "4138-442494"),
])
def test_found_in_process(text: str, value: str) -> None:
    assert value not in _redact(text), _redact(text)


@pytest.mark.parametrize("text", [
    # keys named by what they are not: an HSM key's name, a Spark plan's attribute, a SQL
    # Server lock's resource, a feature flag's snake-case key, an app's strings
    "hsm-proxy cmd=M6 (generate MAC) key=ZPK.ACQ.NEXI.01 kcv=34040C lmk=06 rc=00",
    "+- HashAggregate(keys=[country#12], functions=[count(1)])",
    '<process waitresource="KEY: 7:72057594045333504 (8194443284a0)" waittime="9384"/>',
    '{"id":"exp_6724","key":"onboarding_carousel","variants":[{"key":"three_slides"}]}',
    '"login.password.placeholder" = "비밀번호를 입력하세요";\n'
    '"login.password.forgot" = "비밀번호 찾기";',
    # a check's outcome after a dotted leader
    "detect private key.......................................................Passed",
    # lower-case words in a row that are not a seed phrase, and a test's name
    "please review these changes carefully before merging them into main because several "
    "tests still fail sometimes",
    "def test_HandlesUnicodeInput2Properly(): pass",
    # a PIN's look-alikes: a word ending in "pin", a pinned tab's id
    "SPIN=1234 spin=4567",
    '<string name="pinned_tab">1234</string>',
    # an error code after a version, not a one-time code
    "the error code for release 2.10 is 4040",
    # a Stripe object's id after "token", a machine account in FreeRADIUS' log, whose
    # password an admin reset, a documentation sample's user code, an LDAP password's hash,
    # a Wi-Fi QR template, an Authorization pair's placeholder, a dated build's name
    "Payment method verified: Visa ending 7582, token pm_gulgXbuWhnE8UGfVCUW5o0iU",
    "Auth: (1801) Login OK: [host/WS-0678.corp.nordvik.se] (from client wlc-hq-04 port 0)",
    "ユーザー 00uUF1QUfazEVcUP3Jw2 のパスワードが管理者 00u00agmdm6bveLoyeX8 によって"
    "リセットされました。",
    "Restablecimiento de contraseña solicitado para el usuario con id "
    "182c9705-e28d-49d1-8206-3d848b87455d. Enlace enviado.",
    '{"expires_in":600,"interval":5,"user_code":"XXXX-XXXX"}',
    "userPassword: {SSHA}cTh1ZPq6rnZzjEbG6mn8wzYPMSPSKjB8",
    "WIFI:T:WPA;S:Office-IoT;P:<see vault entry IOT-WIFI>;;",
    '{"key": "Authorization", "value": "Bearer {{access_token}}"}',
    "backup written to /var/backups/db-20240517-0042.tar.gz",
    # a request's CID, no card on the line; drug codes and a barcode (not numbers dialled
    # with 00); a failed login's user name
    "request CID 4821 failed after 3 retries",
    "metformin 500 mg tablet, NDC 0054-4297-25, lot SY34815W",
    "specimen=571762862256 barcode=0038707705178 status=received",
    'WARN auth: login failed for user "m.holloway" from 10.0.0.4',
    # a de-identified feed's masked number in PID-20
    "PID|1||XXXXXXXX^^^MRN||REDACTED^REDACTED||19890101|M|||^^^^021**||(***)***-1952|||||||"
    "***-**-9579",
])
def test_stays(text: str) -> None:
    assert _redact(text) == text
