"""The round of corpora EX (the Lusophone world outside Brazil), EY (Francophone Central Africa
and the Indian Ocean), EZ (India's regional languages), FI (the Caucasus and Mongolia), FJ (the
United States, state by state) and FK (Oceania and the Pacific Islands): each shape they found
left or wrongly changed, redacted or kept in process."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor
from servescope.redaction.tables import column_kind

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # the Caucasus and Mongolia
    ("My details: Ekaterine Tsiklauri, personal number 61528986127, account", "61528986127"),
    ('{"personal_no": "19053531611", "first_name": "Ekaterine"}', "19053531611"),
    ("\u0417\u0430\u044f\u0432\u043a\u0430 \u0432\u043e\u0434\u0438\u0442\u0435\u043b\u044f\n"
     "\u041b\u0438\u0447\u043d\u044b\u0439 \u043d\u043e\u043c\u0435\u0440: 60954329640\n\u041f"
     "\u0430\u0441\u043f\u043e\u0440\u0442: 50TL68443", "60954329640"),
    ("\u10d4\u10e0\u10d7\u10d8 \u10db\u10ee\u10e0\u10d8\u10d5, \u10e5\u10d4\u10d7\u10d4\u10d5"
     "\u10d0\u10dc \u10db\u10d0\u10db\u10e3\u10da\u10d0\u10e8\u10d5\u10d8\u10da\u10d8 (\u10de/"
     "\u10dc 61689590274), \u10e8\u10d4\u10db\u10d3\u10d2\u10dd\u10db\u10e8\u10d8", "61689590274"),
    ("e-Mongolia \u2014 \u04e9\u0440\u0433\u04e9\u0434\u04e9\u043b \u2116436850668\n\u0420\u0435"
     "\u0433\u0438\u0441\u0442\u0440\u0438\u0439\u043d \u0434\u0443\u0433\u0430\u0430\u0440: "
     "\u0412\u041300301016\n\u0423\u0442\u0430\u0441: +976 9108 0345",
     "\u0412\u041300301016"),
    ('{"register_no": "\u0415\u042799121183", "mobile": "+97689576692"}', "\u0415\u042799121183"),
    ("minii dugaar 88360265 data ni duussan. RD \u0414\u042381021387", "\u0414\u042381021387"),
    ('{\n "applicant": {\n  "fin": "R54FDXR",\n  "document": "AZE21158879"', "R54FDXR"),
    ('{\n "applicant": {\n  "fin": "R54FDXR",\n  "document": "AZE21158879"', "AZE21158879"),
    ("M\u00fc\u015ft\u0259ri: F\u0130N 26BHW7D, v\u0259siq\u0259 AA8028494", "AA8028494"),
    ("\u015e\u0259xsi n\u00f6mr\u0259 / Personal No: 6XF0SAL\nP<AZEGASIMOV<<FARID", "6XF0SAL"),
    ("\u0130cra\u00e7\u0131: F\u0259rdi sahibkar Tural Abbasov, V\u00d6EN 2937287182, tel. 099 5"
     "86 53 90", "2937287182"),
    ('{"ssn": "5253645505", "id_card": "002943826", "mobile": "+37441603413"}', "5253645505"),
    ('{"ssn": "5253645505", "id_card": "002943826", "mobile": "+37441603413"}', "002943826"),
    # the Lusophone world
    ("[user] renovar a receita, utente n\u00ba 535 749 669, tlm 969 870 602", "535 749 669"),
    ("ts=2024-09-22T16:23:45Z svc=agendamento utente=426973079 tel=+351966384079", "426973079"),
    ('{"name": "sns24_triagem", "arguments": {"numero_utente": "535749669"}}', "535749669"),
    ('{"role": "user", "content": "O meu NUIT \u00e9 117245259 e o meu email"}', "117245259"),
    ("O meu NISS \u00e9 11208170712 e o Cart\u00e3o de Cidad\u00e3o n.\u00ba 21390082 3",
     "11208170712"),
    ("titular do Cart\u00e3o de Cidad\u00e3o n.\u00ba 21390082 3;", "21390082 3"),
    ("N.\u00ba da carta: P-587159 9\nCategorias: B, C, CE", "P-587159 9"),
    ('{"nome": "Ad\u00e3o Nsimba Mbinda", "bi": "001163695LA048", "msisdn": "244924885612"}',
     "001163695LA048"),
    ("Tipo de documento: Bilhete de Identidade   N.\u00ba: 110182429364C", "110182429364C"),
    ("  01 Sujeito passivo A ............ 393257622\n  02 Sujeito passivo B", "393257622"),
    ("\u6fb3\u9580\u5c45\u6c11\u8eab\u4efd\u8b49 BIR: 7364614(4)\n\u8b77\u7167 Passaporte: MA933"
     "781", "7364614(4)"),
    ("nome,nuit,bi,iban,mpesa,liquido_mzn\nFelisberto Cumbe,101090277,110109721264M,"
     "MZ59000102596297769741887,847897739,35488.00", "110109721264M"),
    ("nome,nuit,bi,iban,mpesa,liquido_mzn\nFelisberto Cumbe,101090277,110109721264M,"
     "MZ59000102596297769741887,847897739,35488.00", "847897739"),
    ("student_id,full_name,personal_no,program\n5061286,Ana Kavtaradze,33741404294,BA Law\n"
     "5004802,Ekaterine Tsiklauri,33896699107,BSc Computer Science", "33896699107"),
    ("Queria cancelar o d\u00e9bito direto. O meu NIB \u00e9 0036 0772 82731762837 95 e o NIF",
     "0036 0772 82731762837 95"),
    # Francophone Central Africa and the Indian Ocean
    ("Employ\u00e9: Rakotoarison Fitia\nCIN: 310 708 306 756\nNIF: 3633654473", "310 708 306 756"),
    ("Name: Pillay, Vanessa\nNIN: 369-3417-1-1-10\nMobile: 2849238", "369-3417-1-1-10"),
    ("Name: Pillay, Vanessa\nNIN: 369-3417-1-1-10\nMobile: 2849238", "2849238"),
    ("National Identity Card No.: P140799281549E\nMobile: (+230) 5789 1234", "P140799281549E"),
    ("Patient: Emmanuel Fon Nfor\nNIC No: 969166560\nDiagnosis: Sepsis", "969166560"),
    ("Bonjour, nazali Neema. Carte d'\u00e9lecteur na ngai eza na num\u00e9ro 10270044860",
     "10270044860"),
    ("Date de naissance : 12/05/1984\nN\u00b0 assur\u00e9 CNAMGS : 37547890564", "37547890564"),
    ("N\u00b0 immatriculation CNSS: 8304485849\nNIU: P7751303511156384", "P7751303511156384"),
    ("NIF: 3633654473\nN\u00b0 CNaPS: 1670936100\nSalaire brut", "1670936100"),
    ('{"msisdn": "+243844231628", "id_type": "CARTE_ELECTEUR", "id_number": "66329980366"}',
     "66329980366"),
    ('"payer": {\n    "partyIdType": "MSISDN",\n    "partyId": "242046622567"\n  }',
     "242046622567"),
    ("matricule,nom,prenom,nni,cnps,telephone\nEMP-7024,DJIBRINE,Achta,8667559047,CNPS71844773,"
     "23565226741", "8667559047"),
    ("- Laharana CIN: 427 889 814 066\n- Finday: 261342871460\n- Mailaka: a@b.mg",
     "261342871460"),
    # India
    ("\u0ab5\u0abf\u0aa6\u0acd\u0aaf\u0abe\u0ab0\u0acd\u0aa5\u0ac0\u0aa8\u0ac1\u0a82 \u0aa8"
     "\u0abe\u0aae: \u0a9c\u0aaf\u0ac7\u0ab6 \u0aaa\u0a82\u0aa1\u0acd\u0aaf\u0abe\nAPAAR ID: 453"
     "810146126\n\u0a86\u0aa7\u0abe\u0ab0 \u0aa8\u0a82\u0aac\u0ab0: 612589208810",
     "453810146126"),
    ("GSTIN: 27NWCPP2592Q1ZE   Mob: +91 93 2222 1111", "27NWCPP2592Q1ZE"),
    ("GSTIN: 24YVUPP3304M1ZH   Mob: 7125678458\nEmail: j@x.in", "7125678458"),
    ("Sandeep Jadhav\n\u0935\u0930\u094d\u0917\u0936\u093f\u0915\u094d\u0937\u093f\u0915\u093e\n"
     "\u092e\u094b\u092c\u093e\u0908\u0932: 9214481338\n\u0908-\u092e\u0947\u0932: s@x.in",
     "9214481338"),
    ("ABHA Number: 91-2770-6143-4363\nABHA Address: muhammed.8611@abdm\nMobile",
     "muhammed.8611@abdm"),
    ("GPay/PhonePe: jayesh.p26@fbl. \u0aab\u0acb\u0aa8: 8564047048 - \u0aa6\u0ac7\u0ab8\u0abe"
     "\u0a88", "jayesh.p26@fbl"),
    ("GPay/PhonePe: jayesh.p26@fbl. \u0aab\u0acb\u0aa8: 8564047048 - \u0aa6\u0ac7\u0ab8\u0abe"
     "\u0a88", "8564047048"),
    # the United States
    ('curl "https://api.mvrdata.com/v1/mvr?state=IL&license=F260-8509-1853"', "F260-8509-1853"),
    ("[9:33 PM] Araceli: Licencia V451-0619-7957", "V451-0619-7957"),
    ("registered (VUID 1548176774) but your ballot", "1548176774"),
    ("voter_lookup result (Florida)\nVoter ID: 442323124\nName: MEI-LIN", "442323124"),
    # Oceania
    ("Employee: Salma Naidu   Emp No: 78125\nFNPF No: 3449712      TIN: 50-81626-0-1",
     "3449712"),
    ("Employee: Salma Naidu   Emp No: 78125\nFNPF No: 3449712      TIN: 50-81626-0-1",
     "50-81626-0-1"),
    ("Hamar FNPF member number 1876737 hai. Hamar naya phone", "1876737"),
    ("Derek Kikolo\nVoter ID Card: 177725681\nContact: 754 9503\nAddress: Kukum", "754 9503"),
    ("Email: lupe_fifita@kalianet.to\nMobile: 889 0319\nRegistration", "889 0319"),
    ("CAFAT\nN\u00b0 d'assur\u00e9 CAFAT : 4744009\nAdresse : Pa\u00efta", "4744009"),
    # the round's second pass: tables with a currency sign in a header, the Caucasus' codes
    # and passports, labels of a phone in other scripts, short phones, codes in Portuguese
    ("\u041d\u044d\u0440,\u0420\u0414,\u0414\u0430\u043d\u0441 (IBAN),\u0426\u0430\u043b\u0438"
     "\u043d \u20ae\n\u0416.\u041c\u04e9\u043d\u0445\u0431\u0430\u0442,\u0420\u042f94040842,MN05"
     "0015007416706522,\"4,400,000\"\n\u0413.\u0410\u0440\u0438\u0443\u043d\u0430\u0430,\u041b"
     "\u042e94062216,MN440032009964603291,\"4,000,000\"", "\u041b\u042e94062216"),
    ("mygov: Giri\u015f \u00fc\u00e7\u00fcn t\u0259sdiq kodu 9960", "9960"),
    ("Bank of Georgia: mBank-\u10e8\u10d8 \u10e8\u10d4\u10e1\u10d5\u10da\u10d8\u10e1 \u10d9"
     "\u10dd\u10d3\u10d8 254292. \u10d1\u10d0\u10dc\u10d9\u10d8", "254292"),
    ("Evocabank: EvocaTOUCH \u0574\u0578\u0582\u057f\u0584\u056b \u056f\u0578\u0564\u055d 683797"
     "\u0589", "683797"),
    ("(\u10de/\u10dc 61164376677, \u10de\u10d0\u10e1\u10de\u10dd\u10e0\u10e2\u10d8 \u211605TY127"
     "39), \u10e8\u10d4\u10db\u10d3\u10d2\u10dd\u10db\u10e8\u10d8", "05TY12739"),
    ("Aram: paymanagir@ im anunov e, andznagir AN8698704, heraxos +374 93 123456", "AN8698704"),
    ("\u0420\u0435\u0433\u0438\u0441\u0442\u0440\u0438\u0439\u043d \u0434\u0443\u0433\u0430"
     "\u0430\u0440: \u041f\u042181102687\n\u0423\u0442\u0430\u0441: 8315-3516\n\u0418-\u043c"
     "\u044d\u0439\u043b: t@x.mn", "8315-3516"),
    ("\u0540\u0565\u057c.\u055d 099 04 96 40\n\u0533\u0576\u0578\u0580\u0564\u055d",
     "099 04 96 40"),
    ("\u10d3\u10d0\u10d1\u10d0\u10d3\u10d4\u10d1\u10d8\u10e1 \u10d7\u10d0\u10e0\u10d8\u10e6"
     "\u10d8: 10.11.1987\n\u10e2\u10d4\u10da\u10d4\u10e4\u10dd\u10dc\u10d8: 995599417045\n\u10d4"
     "\u10da-\u10e4\u10dd\u10e1\u10e2\u10d0", "995599417045"),
    ("\u09a6\u09be\u09a6\u09be, \u0986\u09ae\u09be\u09b0 IRCTC \u0987\u0989\u099c\u09be\u09b0 ba"
     "pi.das88, \u09aa\u09be\u09b8\u0993\u09af\u09bc\u09be\u09b0\u09cd\u09a1 Bapi$1988\u0964 "
     "\u0995\u09be\u09b2", "Bapi$1988"),
    ("GET /auth/login?phone=%2B916604377244&code=477384 HTTP/1.1", "477384"),
    ("\"pending_challans\": 2, \"contact\": \"8654950061\", \"source\": \"m\"", "8654950061"),
    ("Customer: maza number 8241724606 aahe, kripaya", "8241724606"),
    ("INSERT INTO customers (id, name_local, name_en, mobile, pan) VALUES\n(86469, N'\u0a2e"
     "\u0a28\u0a26\u0a40\u0a2a \u0a17\u0a3f\u0a71\u0a32', 'Mandeep Gill', '9970919790', 'OJQPG02"
     "55H'),\n(73232, N'\u0a30\u0a3e\u0a1c\u0a40\u0a35', 'Rajeev Pillai', '7156544371', 'SKOPP64"
     "43E');", "9970919790"),
    ("\u0a2e\u0a47\u0a30\u0a3e \u0a28\u0a3e\u0a2e \u0a39\u0a30\u0a2a\u0a4d\u0a30\u0a40\u0a24 "
     "\u0a15\u0a4c\u0a30 \u0a39\u0a48, \u0a06\u0a27\u0a3e\u0a30 \u0a28\u0a70\u0a2c\u0a30 6634 93"
     "84 6503, \u0a2e\u0a4b\u0a2c\u0a3e\u0a08\u0a32", "6634 9384 6503"),
    ("  \"msisdn\": \"7226231\",\n  \"relation\": \"sister\"", "7226231"),
    ("O la\u2019u numera telefoni o le 767 5579, imeli", "767 5579"),
    ("T\u00e9l. : 91 87 63  Courriel : m@x.nc", "91 87 63"),
    ("Her M-PAiSA number is 700 2925. You can reach", "700 2925"),
    ("Ligne concern\u00e9e: 650552529\nEmail de contact", "650552529"),
    ("\"paymentMethod\": \"MBWAY\",\n  \"customerPhone\": \"351#937188509\",", "351#937188509"),
    ("BNU: O seu c\u00f3digo de confirma\u00e7\u00e3o \u00e9 626387.", "626387"),
    ("Cart\u00e3o de Eleitor n.\u00ba 665972320\nSector: Bolama", "665972320"),
    ("N\u00b0 attestation de r\u00e9fugi\u00e9: CMR-00-754031\nT\u00e9l\u00e9phone",
     "CMR-00-754031"),
    ("dataFimFilter=2024-12-31&nifEmitente=&nifAdquirente=218016131 200 OK", "218016131"),
    ("V\u00e9rifie la coh\u00e9rence: nom=Ogandaga Davy; NIP=1920 3146 5006; t\u00e9l\u00e9phone"
     "=062", "1920 3146 5006"),
    ("Name: MENDOZA, RICARDO   DOB: 04/10/1997\nLicense: CW640965   Class: B", "CW640965"),
    ("\u60a8\u597d\uff0c\u6211\u60f3\u9884\u7ea6\u529e\u7406\u9a7e\u7167\u66f4\u65b0\u3002\u9a7e"
     "\u7167\u53f7\u7801\uff1aL8251817\uff0c\u8054\u7cfb\u7535\u8bdd\uff1a2015970101", "L8251817"),
])
def test_the_rounds_values_are_redacted(text: str, value: str) -> None:
    assert value not in _redact(text)


@pytest.mark.parametrize("text", [
    # a company's NIU (M), a firm's V\u00d6EN (it ends in 1), a part's "personal number", an
    # invoice's and a shipment's document numbers, merchants' UPI addresses at a bank's
    # handle, a company's GSTIN (its PAN's fourth letter C)
    "DOUALA PRINT & PACK SA\nRCCM : RC/YAO/2010/B/2486  -  NIU : M028633174605G\nBP 8898",
    'Sifari\u015f\u00e7i: "Nar Tech Solutions" MMC, V\u00d6EN 9228604391',
    "personal number 72014097442 of spindle motor replaced during maintenance window",
    '{"msg":"document processed","document_type":"invoice","document_number":"422354920104337"}',
    "UPDATE shipments SET status='DELIVERED' WHERE document_number='49490760810';",
    "Rs.565.00 debited from A/c XX8352 on 18-10-24 to VPA irctc.upi@sbi (UPI Ref No "
    "518153548066).",
    "Tax invoice\nGSTIN: 27AABCU9603R1ZM\nPlace of supply: Maharashtra",
    # a register's letters and digits that are no birth date; a phone's seven digits counting
    "\u0421\u0447\u0451\u0442 \u0421\u042400001234 \u043e\u0442 12.03.2024",
    "Contact: 1234567",
    # a date after a phone's label; an order's number after "my order number"; a licence's
    # name with no number
    "T\u00e9l : 12.03.24",
    "my order number is 123 4567",
    "License: MIT",
    # (a NIB whose check digits fail)
    "NIB 0036 0772 82731762837 96",
    # a part's number under "personal_number"; an encounter's number on the line after a masked
    # SSN's key; a phone told on the line after a TIN's name
    "part_no,personal_number,lot\nSP-2415,242350044,433757\nSP-2416,242350045,433758",
    "Patient: [REDACTED]  SSN: XXX-XX-XXXX  Phone: (***) ***-****\nEncounter CSN 2858129980 | "
    "HAR 272906902",
])
def test_the_rounds_clean_lines_are_kept(text: str) -> None:
    assert _redact(text) == text


def test_a_phone_after_a_tins_line_is_read_as_a_phone_whole() -> None:
    out = _redact('My FIRS TIN is 74875348-0001. The system says "TIN format invalid".\n'
                  "Please call me on +234 803 555 1294 if you need more info.")
    assert "[REDACTED:phone]" in out and "1294" not in out


@pytest.mark.parametrize(("header", "kind"), [
    ("nni", "national_id_named"), ("NIC", "national_id_named"), ("nuit", "national_id_named"),
    ("bi", "national_id_named"), ("personal_no", "personal_number"),
    ("\u0420\u0414", "national_id_named"), ("uan", "national_id_named"), ("num_inss",
                                                                          "national_id_named"),
    ("mpesa", "phone"),
])
def test_the_rounds_column_names(header: str, kind: str | None) -> None:
    assert column_kind(header) == kind
