"""What corpora UL to UO found held out (data engineering and analytics; Central and Eastern
Europe, the Baltics, the Balkans and Central Asia in their own scripts; travel and
hospitality; IoT, telecom core, vehicles and payment terminals), each shape redacted in
process, and what must stay."""

from __future__ import annotations

import pytest
from go_regexp import compile_re2

from servescope.collector.config import RE2_PATTERNS
from servescope.redaction import Redactor

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # data engineering: a PIN block in clear, a password told beside a name in backticks, a
    # database's own encryption key, an OTP under "code" in an event, an escaped slash inside
    # a JSON secret, a password opening with "=", Korea's resident number under its names
    ("atm_tx_raw|628797525|pin_block_clear=5020|amount=200.00|terminal=ATM1135", "5020"),
    ("heads up: the temp password for the read replica user `analyst_ro` is Fepj4P+hshz9PvY9fEu6lF"
     " - please rotate it", "Fepj4P+hshz9PvY9fEu6lF"),
    ("SELECT member_id, pgp_sym_decrypt(ssn_enc, 'e5CLrHOmOH3MmQ5cPMhNi2Aw7fJATw7O') AS ssn",
     "e5CLrHOmOH3MmQ5cPMhNi2Aw7fJATw7O"),
    ('{"event": "OTP Sent", "properties": {"channel": "sms", "code": "549142"}}', "549142"),
    ('{"driver":"s3","secret":"EHZtfBV7jTmuIvJNJy\\/ibHxarE6F0gcZ3basqmAw","region":"eu-west-1"}',
     "ibHxarE6F0gcZ3basqmAw"),
    ('  "database.password": "=4bcBoDd+pZ==2",\n  "database.dbname": "crm",', "4bcBoDd+pZ"),
    ("| cust_no | jumin_no       | hp_no         |\n| 824596  | 010818-4246721 | 010-8210-5682 |",
     "010818-4246721"),
    ('{"member_id": 427538, "national_id": "051209-3718254", "tier": "silver"}',
     "051209-3718254"),
    # travel: GDS passports (Galileo's and Sabre's spacing, an MRZ line, EDIFACT), GDS cards
    # and codes, NDC's identity document, a visa form, a PNR's contacts, Portugal's NIF, a
    # German number with "(0)" and "/", OTA's and Authorize.net's card codes
    (">SI.P1/SSRDOCSLHHK1/P/DEU/YM7G4P961/DEU/03FEB57/F/22JUN30/BRANDT/JONAS", "YM7G4P961"),
    ("  1.SSR DOCS UA HK1/P/GBR/343050765/GBR/06AUG98/M/24AUG33/DONNELLY/LIAM", "343050765"),
    ('evt=DOC_SCAN mrz_l2="90AK116951FRA7308233F2810168<<<<<<<<<<<<<<<2" chk=OK', "90AK11695"),
    ("NAD+FL+++VAN DER BERG:ANNA'\nDOC+P:110:111+C03GC4K4C'\nDTM+36:300612'", "C03GC4K4C"),
    ("FORM OF PAYMENT\n  1.AX377298919220876¥07/28\nGENERAL FACTS", "377298919220876"),
    ("> FP CCVI4539255699996049/0529*CV872/N938445", "872"),
    ("Took deposit by phone, card ending 7212, client read out the CVV (144) - NB", "144"),
    ("<IdentityDoc><IdentityDocID>GB991885</IdentityDocID><IdentityDocTypeCode>PT", "GB991885"),
    ("13. Number of travel document: EH2374549\n17. Applicant's home address", "EH2374549"),
    ("3SSR CTCE AF HK1/T.KRUGER96//WEB.DE-1.1\n3SSR CTCM AF HK1/447960354967-1.1",
     "T.KRUGER96//WEB.DE"),
    ("3SSR CTCE AF HK1/T.KRUGER96//WEB.DE-1.1\n3SSR CTCM AF HK1/447960354967-1.1",
     "447960354967"),
    ("Tomador: Diogo Rodrigues | NIF 188222286 | Telemóvel +351 912 392 095", "188222286"),
    ("Für Rückfragen erreichen Sie mich unter +49 (0)172/9439856. Mit freundlichen Grüßen",
     "9439856"),
    ('<PaymentCard CardCode="VI" CardNumber="4929126454864342" SeriesCode="778" ExpireDate=',
     "778"),
    ('{\\"cardNumber\\": \\"4716728620699994\\", \\"cardCode\\": \\"310\\"}', "310"),
    ('\\"merchantAuthentication\\": {\\"name\\": \\"X8S361WQA\\", \\"transactionKey\\": '
     '\\"UfGNUUcGsmUzJpGy\\"}', "UfGNUUcGsmUzJpGy"),
    # Central and Eastern Europe's ids by their checks and names
    ("паспорт серия 50 23 № 722447, СНИЛС 479-346-030 21, ИНН 789251987491, з", "722447"),
    ("паспорт серия 50 23 № 722447, СНИЛС 479-346-030 21, ИНН 789251987491, з",
     "479-346-030 21"),
    ("паспорт серия 50 23 № 722447, СНИЛС 479-346-030 21, ИНН 789251987491, з", "789251987491"),
    ("Мій РНОКПП 2317131520, прошу розблокувати", "2317131520"),
    ("Маған арыз жазып бер: ЖСН 950227486431, т", "950227486431"),
    ("данъчна декларация по чл. 50 от ЗДДФЛ за ЕГН 5805123990 е подадена", "5805123990"),
    ("Nova poruka Porezne uprave za OIB 50506849300 (Pregled)", "50506849300"),
    ("nje izvoda iz matične knjige rođenih za JMBG 1903997722748 je", "1903997722748"),
    ("Pozdravljeni, sem Špela Mlakar, EMŠO 1812988509971. Prosim", "1812988509971"),
    ("Tere! Olen Margus Sepp, isikukood 37903217438. Soovin", "37903217438"),
    ("Laba diena, esu Tomas Kazlauskas, asmens kodas 36001194676. Noriu", "36001194676"),
    ("Latvija.lv: Personai ar personas kodu 260889-13846 VID", "260889-13846"),
    ("jsem Jana Nováková, rodné číslo 825219/3851, trvale bytem", "825219/3851"),
    ("Horák;Martin;210509/0526;martin.horak@seznam.cz", "210509/0526"),
    ("hogy az adóazonosítóm 8373608419, a TAJ számom pedig 822740074, és", "8373608419"),
    ("hogy az adóazonosítóm 8373608419, a TAJ számom pedig 822740074, és", "822740074"),
    ("Odmera za leto 2023 je pripravljen za davčno številko 22950010. Uredite", "22950010"),
    ("Vreau abonamentul pe numele meu. IDNP-ul meu este 2026352870948, nu", "2026352870948"),
    ("Ja, niżej podpisana Joanna Dąbrowska, PESEL: 99 06 30 741 87, oświadczam", "741 87"),
    ("semanticsIdentifier=PNOEE-46504171432 result=OK", "46504171432"),
    ("Ariza beruvchi: Karimov Jasur\nJSHSHIR: 31103893029144\nPasport", "31103893029144"),
    ("Broj osobne iskaznice: 529242439\nMobitel", "529242439"),
    # passwords and codes told in those languages
    ("Internetbankas parole ir Kvas_plov71, bet kodu kalkulators ir atvilktnē.", "Kvas_plov71"),
    ("Mano Elektroninių valdžios vartų slaptažodis yra mEDVED_90, gal galėtum", "mEDVED_90"),
    ("Bakcell nömrəm dəyişib. E-gov şifrəsi isə Dunaj!kalyna44, unutma.", "Dunaj!kalyna44"),
    ("Geslo za moj račun je rILA_78, preveri prosim.", "rILA_78"),
    ("I šifra za wifi u stanu je Cevapi2000? Hvala", "Cevapi2000"),
    ("Lozinka za e-Dnevnik od malog je kalyna.5610, pa ti pogledaj ocjene.", "kalyna.5610"),
    ("паролата ми за е-услугите на НОИ е dZINTARS_06, ама моля те", "dZINTARS_06"),
    ("Ево ти мејл и лозинка 99Mtatsminda12., уђи па провери", "99Mtatsminda12"),
    ("Emme, Smart-ID PIN1 on 7518 ja e-posti parool Palinka1986*. Ära seda", "7518"),
    ("Emme, Smart-ID PIN1 on 7518 ja e-posti parool Palinka1986*. Ära seda", "Palinka1986*"),
    ("Az ügyfélkapus jelszavam Pejsek1971&, légyszi töltsd le", "Pejsek1971&"),
    ("Сань, карту положил в верхний ящик, пин 2772. Сними 5 тыщ", "2772"),
    ("Никому не сообщайте этот код! Код для входа в СберБанк Онлайн: 040891", "040891"),
    ("OTP Bank: Az Ön egyszer használatos jelszava: 926343. Tranzakció", "926343"),
    ("Пароль 464965 для підтвердження платежу 2 450.00 UAH в ROZETKA.", "464965"),
    ("Kód pro přihlášení do George: 276 217. Kód nikomu nesdělujte.", "276 217"),
    ("Codul tău de verificare eMAG este 636627. Nu îl comunica nimănui.", "636627"),
    # IoT, telecom core and terminals: card track data and ISO 8583 fields, a SIM's keys,
    # OCPP's idTag, Matter, a CDR's calling number
    ("%B5168742677902342^WANG/KWAME^2611101000000487543000000?;5168742677902342=260610100002",
     "5168742677902342"),
    ('<field id="2" value="4910683438605168"/>\n<field id="35" value="4910683438605168D2803201"/>',
     "4910683438605168"),
    ("IMSI=001011515923004;KI=77D409759AFC2EA1645DA5086F59228B;OPC=607A8B55B3706CBA1542356C8"
     "14BB76A;AMF=8000", "77D409759AFC2EA1645DA5086F59228B"),
    ('security: {k: "f77492ad39132e91cef12215f68cab1b", opc: "ae7a9ea749e8c693e1fe1ec84175260c"}',
     "f77492ad39132e91cef12215f68cab1b"),
    ('[2,"41382993","Authorize",{"idTag":"D01E3F8AC2AFE9"}]', "D01E3F8AC2AFE9"),
    ("./chip-tool pairing code-wifi 0xe4 Nordhaus-IoT 'az.4Qez&eOLa7csW!9' 40598672727",
     "az.4Qez&eOLa7csW!9"),
    ("factory data: label MT:OQUAUW3XP5AK3N2M151 printed", "OQUAUW3XP5AK3N2M151"),
    ("record_type,calling_number,called_number,cell_id\nMOC,5541992974215,5551965496686,15448",
     "5541992974215"),
    # devices' secrets: C's #define, a terminal's k/v parameters, a Wi-Fi QR payload, radtest,
    # a Bluetooth LTK and passkey, Z-Wave's DSK, a Zigbee install code, Azure DPS' and Hue's
    # keys, a role's PIN, a PAT
    ('#define BLYNK_AUTH_TOKEN "s_O0_1i593DTD0EjJt4mW9q9aJ1yUIes"\nchar ssid[] = "x";',
     "s_O0_1i593DTD0EjJt4mW9q9aJ1yUIes"),
    ('<Param k="MERCH_PWD" v="Cobalt%Tramonto54"/><Param k="REFUND_PIN" v="6108"/>',
     "Cobalt%Tramonto54"),
    ('<Param k="MERCH_PWD" v="Cobalt%Tramonto54"/><Param k="REFUND_PIN" v="6108"/>', "6108"),
    ("WIFI:S:Guest-Lindenhof;T:WPA;P:P3l1c4n!9033;H:false;;", "P3l1c4n!9033"),
    ("$ radtest aoife.byrne 'ember-nordlicht-orchid-50' 10.10.0.9 0 OWZkwUKCwPCZpw3rXN",
     "ember-nordlicht-orchid-50"),
    ("$ radtest aoife.byrne 'ember-nordlicht-orchid-50' 10.10.0.9 0 OWZkwUKCwPCZpw3rXN",
     "OWZkwUKCwPCZpw3rXN"),
    ("pump_sn=24405920 pairing_state=BONDED ltk=E14C6D60F73A3C6556AE27C1ABD18234 firmware=3.1",
     "E14C6D60F73A3C6556AE27C1ABD18234"),
    ("I BtPairing: SSP numeric comparison passkey=140320 remote=A2:11", "140320"),
    ("Security S2 bootstrapping: received DSK 00931-38930-29695-01849-00924-25518-27611-16736",
     "29695-01849"),
    ("z2m: Adding install code for 0x6e7f447eb93178c9: 7040FFBDB7B483F6F9E80DE4762BE07512B5",
     "7040FFBDB7B483F6F9E80DE4762BE07512B5"),
    ('"symmetricKey": {"primaryKey": "HWttqpeGH/g4ojN4ZfnJc9qSrG1OfNfkTJ+6/+koqPI="}',
     "HWttqpeGH/g4ojN4ZfnJc9qSrG1OfNfkTJ+6/+koqPI="),
    ('{"success": {"username": "x", "clientkey": "3EDFD874A3FAEAAFF78C9A2220182FAB"}}',
     "3EDFD874A3FAEAAFF78C9A2220182FAB"),
    ("[Supervisor]\nOperatorPassword=ee4gny46oxpq8\nSupervisorPIN=766881\nRemoteMgmt=1", "766881"),
    ('OURA_PAT = "0C3J77077Q96YOTRZSC5GX32GESTVKQ8"\nr = requests.get(url)',
     "0C3J77077Q96YOTRZSC5GX32GESTVKQ8"),
])
def test_found_in_process(text: str, value: str) -> None:
    assert value not in _redact(text)


@pytest.mark.parametrize("text", [
    # a variable after a quoted key; Snowflake's credentials list of stand-ins; a vault's
    # tokens of PII; Airflow's *_CMD; a comparison in a JMESPath query; a masked e-mail and
    # X12's single "*"; OpenTravel's EchoToken; an issuer's approval code; a cell's
    # tracking area; a template's placeholders; a UI card's code; Matter's documentation;
    # a company's INN, DIČ and NIP on their invoices
    'df = spark.read.jdbc(url=jdbc_url, properties={"user": "etl", "password": jdbc_pw})',
    "COPY INTO raw.orders FROM @stage CREDENTIALS = (AWS_KEY_ID='***' AWS_SECRET_KEY='***')",
    "customer_id,email_token,phone_token\n73437,tkn_em_jn2Kr4koys710S5x6se7fM,tkn_ph_ZYjXu0MHG",
    "AIRFLOW__CORE__FERNET_KEY_CMD='cat /run/secrets/fernet_key'",
    "aws ec2 describe-instances --query 'Reservations[].Instances[].{Name:Tags[?Key==`Name`]}'",
    "Guest Federica Ricci | email f***i@web.de | passport ******820 | tier Member",
    '<OTA_HotelResNotifRQ EchoToken="096039de-f10d-4af7-99e8-db0a578682e4" Version="1.0">',
    "FORM OF PAYMENT: AX2306XXXXXXXX3319  APPROVAL CODE: 889509\nTOTAL: EUR 527.92",
    "mme-1 S1AP InitialUEMessage eNB-UE-S1AP-ID=727285 TAI=262-02-7215 ECGI=262-02-0530bd6",
    'HostName={hub-name}.azure-devices.net;DeviceId={device-id};SharedAccessKey={device-key}',
    "network={\n\tssid=\"${WIFI_SSID}\"\n\tpsk=\"${WIFI_PSK}\"\n\tkey_mgmt=WPA-PSK\n}",
    '[ui-kit] Card code 404 rendered in <EmptyState/>: "We couldn\'t find that page"',
    "chip-tool pairing code-wifi <node-id> <ssid> <password> <setup-pin-code|MT:XXXXXXXXXXXXXXXX"
    "XXX>",
    "ООО «Ромашка-Инвест», ОГРН 1625047745970, ИНН 7716418497, ОКПО 04736512",
    "Dodávateľ: TechNova s.r.o., IČO 51834762, DIČ 2120783412, IČ DPH SK2120783412",
    "Sprzedawca: Logisty Sp. z o.o., NIP 7450129973, REGON 913924803, KRS 0000847261",
])
def test_stays(text: str) -> None:
    assert _redact(text) == text


@pytest.mark.parametrize(("text", "value"), [
    ("СНИЛС 479-346-030 21, ИНН 789251987491", "479-346-030 21"),
    ("Мій РНОКПП 2317131520, прошу", "2317131520"),
    ("za JMBG 1903997722748 je", "1903997722748"),
    ("isikukood 37903217438. Soovin", "37903217438"),
    ("jsem Jana, 825219/3851, trvale", "825219/3851"),
])
def test_the_collectors_names_reach_them(text: str, value: str) -> None:
    match = compile_re2(RE2_PATTERNS["national_id"]).search(text)
    assert match is not None and value in text[match.start():match.end() + len(value)], text
