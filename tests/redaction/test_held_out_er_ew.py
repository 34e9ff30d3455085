"""The round of corpora ER (North Africa), ES (the Levant, Iraq and Israel), ET (Iran,
Afghanistan and Pakistan), EU (Central America and the Caribbean), EV (the Andes) and EW (the
Western Balkans and Central Europe): each shape they found left or wrongly changed, redacted or
kept in process."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor
from servescope.redaction.tables import column_kind

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # sheets' and statements' columns that name an id whatever its country, its digits in
    # groups, after a series' letters or before an office's
    ("nom,prenom,cin,telephone,ville\nALAOUI,Hamza,T874084,0738523320,Sousse\nTAZI,Khadija,"
     "EE599333,0782900259,Tlemcen", "EE599333"),
    ("name,national_no,phone,city\nHanan Elfituri,219662930428,0946627962,Tripoli\n"
     "Abdulsalam Al-Mabrouk,219978529511,0942376832,Benghazi", "219978529511"),
    ("cedula,nombre,numero_asegurado_ccss,iban,salario_bruto\n4-5484-8107,Alejandra Mart\u00ednez,"
     "454848107,CR30010271934116898079,1959000.00\n2-5723-6641,Yunior Peralta,0257236641,"
     "CR78010442712204623789,2005000.00", "2-5723-6641"),
    ("cedula,nombre,numero_asegurado_ccss,iban,salario_bruto\n4-5484-8107,Alejandra Mart\u00ednez,"
     "454848107,CR30010271934116898079,1959000.00\n2-5723-6641,Yunior Peralta,0257236641,"
     "CR78010442712204623789,2005000.00", "0257236641"),
    ("id_cliente,nombre,documento,email,telefono\n367403,\"Benjam\u00edn Valenzuela\",13.367.283-4,"
     "b.v@uc.cl,+56 9 7412 1439\n598995,\"Luis Marcano\",V-7246448,l.m@cantv.net,0426-9843953",
     "V-7246448"),
    ("INSERT INTO clientes (nombre_completo, nro_documento, telefono) VALUES\n  ('Ximena Ticona', "
     "'6547409 PT', '+591 60389752'),\n  ('Sayuri Callisaya', '9138878 BE', '+591 68113023');",
     "9138878 BE"),
    ("INSERT INTO customers (id, first_name, national_code, mobile) VALUES\n(061297, 'x', "
     "'5101779199', '09379168702'),\n(259324, 'y', '4216896790', '09909128331');", "4216896790"),
    ("### Planilla quincenal\n\n| Colaborador | C\u00e9dula | No. Seguro Social (CSS) | Celular |\n"
     "|---|---|---|---|\n| Alejandra Chaves | 9-164-598 | 372-5217 | 6228-8605 |\n| Byron Castro |"
     " 6-534-2248 | 9942434 | 6301-1120 |", "372-5217"),
    ("captain_id,name,cnic,mobile,licence_no,city\nCPT207015,Kamran Awan,33011-2477051-8,"
     "03461652279,6524218790171,Multan\nCPT041326,Fatima Malik,15131-9876704-3,03021960440,"
     "KHI-86-18007,Peshawar", "KHI-86-18007"),
    ("nev,adoazonosito_jel,email,mobil\n\"Horv\u00e1th Krisztina\",8466846689,k@t-online.hu,"
     "+36709972973\n\"T\u00f3th Judit\",8376161725,j@citromail.hu,+36701234567", "8376161725"),
    ("| \u0418\u043c\u0435 | \u0408\u041c\u0411\u0413 | IBAN |\n|---|---|---|\n| \u0408\u0435"
     "\u043b\u0435\u043d\u0430 | 2311978714431 | RS35170767547830941872 |", "2311978714431"),
    ("| Nombre | RUT | Cargo | Celular |\n|---|---|---|---|\n| Fernanda Rojas | 17.257.090-9 | "
     "Cajera | +56 9 1776 8537 |\n| Francisca Mu\u00f1oz | 13.227.912-8 | Jefe | +56 9 9379 7256 "
     "|", "13.227.912-8"),
    ("| \u06a9\u0627\u0631\u0628\u0631 | \u06a9\u062f \u0645\u0644\u06cc | \u0645\u0648\u0628"
     "\u0627\u06cc\u0644 |\n|---|---|---|\n| \u0639\u0644\u06cc | 0632598379 | 09229155399 |",
     "09229155399"),
    # ids after their names in the round's languages
    ("crm.order.created order_id=ME-3433973 jmbg=0807958284706 msisdn=+38267737997",
     "0807958284706"),
    ('{"servis": "euprava.gov.me", "podnosilac": {"ime": "Marija", "jmbg": "2902000264459"}}',
     "2902000264459"),
    ("user: w ra2am el beta2a 27805052626081", "27805052626081"),
    ("agent: tab momken el raqam el qawmy?\ncustomer: 28512031705271\nagent: tamam",
     "28512031705271"),
    ("\u0645\u0646\u0638\u0648\u0645\u0629 \u0627\u0644\u0641\u0627\u062a\u0648\u0631\u0629\n"
     "\u0631\u0642\u0645 \u0627\u0644\u062a\u0633\u062c\u064a\u0644 \u0627\u0644\u0636\u0631"
     "\u064a\u0628\u064a: 568-832-412\n\u0627\u0644\u0631\u0642\u0645 \u0627\u0644\u0642\u0648"
     "\u0645\u064a: 29301092288128", "568-832-412"),
    ("Mon identifiant assur\u00e9 CNAM est 96743218/24 et ma CIN 03347498.", "96743218/24"),
    ("NARSA \u2013 Permis de conduire \u00e9lectronique\nN\u00b0 permis : 35/816136\nCIN : D890895",
     "35/816136"),
    ("CNAS \u2013 Carte Chifa\nN\u00b0 d'immatriculation: 40 5226 9104 58\nAgence: Oran",
     "40 5226 9104 58"),
    ("M. Mehdi CHRAIBI, titulaire de la CNIE n\u00b0 D820784, demeurant \u00e0 Casablanca",
     "D820784"),
    ("\u0645\u0631\u062d\u0628\u0627 \u0623\u062e\u064a\u060c \u0631\u0642\u0645\u0647\u0627 "
     "\u0627\u0644\u0648\u0637\u0646\u064a 02045812217 \u0648\u0631\u0642\u0645", "02045812217"),
    ('{"service": "x", "citizen": {"unified_card_no": "193474845587", "mobile": "+9647803603229"}}',
     "193474845587"),
    ("\u0631\u0642\u0645 \u0627\u0644\u0625\u0642\u0627\u0645\u0629 / \u0698\u0645\u0627\u0631"
     "\u06d5\u06cc \u0626\u06cc\u0642\u0627\u0645\u06d5: D-8986509", "D-8986509"),
    ("\u05de\u05e1\u05e4\u05e8 \u05d3\u05e8\u05db\u05d5\u05df: EB0934578\n\u05de\u05e1\u05e4\u05e8"
     " \u05d0\u05e9\u05e8\u05d4: 115445228", "115445228"),
    ("\u05ea.\u05d6.: 345669261\n\u05de\u05e1\u05e4\u05e8 \u05e8\u05d9\u05e9\u05d9\u05d5\u05df "
     "\u05e0\u05d4\u05d9\u05d2\u05d4: 35490101", "35490101"),
    ("\u062f \u062a\u0630\u06a9\u0631\u06d0 \u06ab\u06bc\u0647 \u0645\u06d0 \u06f5\u06f8\u06f9"
     "\u06f2\u06f4\u06f8 \u062f\u0647", "\u06f5\u06f8\u06f9\u06f2\u06f4\u06f8"),
    ("\u0634\u0645\u0627\u0631\u0647 \u06af\u0648\u0627\u0647\u06cc\u0646\u0627\u0645\u0647: "
     "7515419297", "7515419297"),
    ("- CNIC: 69874-7673508-7\n- Personal NTN: 8328386-3\n- Salary account", "8328386-3"),
    ("Identificaci\u00f3n: 1-9497-7393. Dudas al +506 6195 0931.", "1-9497-7393"),
    ("RUC (persona natural): 7-420-1595 DV 46", "7-420-1595"),
    ("TRN: 102-392-750\nNIS No.: DE554438\nMobile: 876-348-0301", "DE554438"),
    ("Identidad (DNI): 0501-1962-31238\nRTN: 05061968951158\nNo. de afiliaci\u00f3n IHSS: "
     "99695598738", "99695598738"),
    ("National Registration Number: 591002-7439\nTelephone: (246) 589-5326", "591002-7439"),
    ("Se llama Josu\u00e9 Reyes, carn\u00e9 de identidad 81110312338, tel\u00e9fono +53 5 858",
     "81110312338"),
    ("NIT/CI/CEX: 10903684-2B\nCelular: 71949034", "10903684-2B"),
    ("C\u00c9DULA DE IDENTIDAD\nNo. 14317363 OR\nSAYURI LIMACHI", "14317363"),
    ("che n\u00famero 0992104390 ha che CI 7.347.415 rehe", "7.347.415"),
    ("[llamada 00:08:51] cliente: mi rut es 13736023 guion 3, a nombre de Vicente",
     "13736023 guion 3"),
    ("C\u00f3digo de asegurado (autogenerado): 8911216TNEOF002\nCentro", "8911216TNEOF002"),
    ("Vala / IPKO \u2013 Kontrat\u00eb\nNr. personal: 1504038595\nNr. telefonit: +383 44 255 964",
     "1504038595"),
    ("LBO: 55464786149. Otkazivanje na 063/409-1093 nije mogu\u0107e.", "55464786149"),
    ("\u0160t. zavarovane osebe (ZZZS): 698696703\nDatum rojstva 09.10.1988\n\u0160t. kartice "
     "626307748", "626307748"),
    ("Okm\u00e1nyazonos\u00edt\u00f3: 793224SZ\nSzem\u00e9lyi azonos\u00edt\u00f3: 15806206087",
     "15806206087"),
    ("Tart\u00f3zkod\u00e1si enged\u00e9ly sz\u00e1ma: AZ5777864\n\u00datlev\u00e9lsz\u00e1m: "
     "SK215127", "SK215127"),
    ("\u010c\u00edslo \u0158P: VI 696946\nTelefon: 704 312 780", "VI 696946"),
    ("Broj zdr. kartice: 73641497057\nDom zdravlja: Centar", "73641497057"),
    ("OIB 21908969817\nMBO (HZZO) 531387182\nMob. 095 038 7565", "531387182"),
    ("\u0408\u041c\u0411\u0413: 0405988779288\n\u0411\u0440\u043e\u0458 \u043b\u0438\u0447\u043d"
     "\u0435 \u043a\u0430\u0440\u0442\u0435: 378980641", "378980641"),
    ("  3 AP 56 685 675\n  4 SRDOCS AT HK1-P-TUN-N100485-TUN-23SEP79-11JAN30-M-HAMMAMI",
     "N100485"),
    ("  3 AP 56 685 675\n  4 SRDOCS AT HK1-P-TUN-N100485-TUN-23SEP79-11JAN30-M-HAMMAMI",
     "56 685 675"),
    # bank accounts, phones, codes and passwords
    ("Salari\u00e9: Mehdi CHRAIBI\nRIB: 050 450 149 690 013 572 258 627\nT\u00e9l: 0635647677",
     "050 450 149 690 013 572 258 627"),
    ("Ticket #3526289 \u2013 Baridimob\nRIP: 00799999027511462756\nNIN: 206032791315685339",
     "00799999027511462756"),
    ("T\u00e9l 1: +213 583 83 80 64\nT\u00e9l 2: 0699023394\nCOD: 1915.00", "0699023394"),
    ("nimewo telef\u00f2n mwen se (509) 3149 1581. Kisa pou m f\u00e8?", "(509) 3149 1581"),
    ("Allillanchu. DNI-ymi 72235112. Celularniy 985 606 757. Qhawariwaychik", "985 606 757"),
    ("Po\u0161tovani, otkazivanje na 063/409-1093 nije mogu\u0107e.", "063/409-1093"),
    ("[21:16] \u05de\u05e9\u05d4: \u05d0\u05dd \u05dc\u05d0 \u05d4\u05d2\u05d9\u05e2 "
     "\u05ea\u05db\u05ea\u05d1\u05d9 \u05dc\u05d9 \u05dc0549953108", "0549953108"),
    ("\u0625\u0644\u0649 \u0627\u0644\u0627\u0633\u0645 \u0627\u0644\u0645\u0633\u062a\u0639"
     "\u0627\u0631: 0787438749\n\u0627\u0644\u0631\u0642\u0645", "0787438749"),
    ("\u0635\u0627\u0644\u062d \u0644\u0645\u062f\u0629 5 \u062f\u0642\u0627\u0626\u0642\n\u0627"
     "\u0644\u0645\u062d\u0641\u0638\u0629: 0782503051", "0782503051"),
    ("\u0698\u0645\u0627\u0631\u06d5\u06cc \u062a\u06d5\u0644\u06d5\u0641\u06c6\u0646: 07503394111"
     "\n\u0646\u0627\u0648", "07503394111"),
    ("\u0643\u0648\u062f \u062a\u0641\u0639\u064a\u0644 \u062d\u0633\u0627\u0628\u0643 \u0641"
     "\u064a \u0645\u0635\u0631 \u0627\u0644\u0631\u0642\u0645\u064a\u0629: 365830", "365830"),
    ("\u0627\u0644\u0631\u0642\u0645 \u0627\u0644\u0633\u0631\u064a \u0627\u0644\u062c\u062f\u064a"
     "\u062f \u0627\u0644\u0645\u0624\u0642\u062a: 250305 \u064a\u0631\u062c\u0649", "250305"),
    ('{"ts": "x", "event": "wu.payout.available", "mtcn": "5773825989", "receiver_name": "D"}',
     "5773825989"),
    ("Mot de passe temporaire : PrM^IblniPhMsL\nMerci de le modifier", "PrM^IblniPhMsL"),
    ("Pierre-Richard: modpas la se Kingston!!58, eseye li ank\u00f2", "Kingston!!58"),
    ("\u067e\u0633\u0648\u0631\u062f \u062f \u0633\u06cc\u0633\u062a\u0645: Tehran@1402\n"
     "\u06a9\u0627\u0631\u0646: ahmed", "Tehran@1402"),
    ("\u067e\u06cc\u0627\u0631\u06d2 \u0635\u0627\u0631\u0641\u060c \u0622\u067e \u06a9\u0627 "
     "\u0639\u0627\u0631\u0636\u06cc \u067e\u0627\u0633 \u0648\u0631\u0688 Pa55w0rd-E350 \u06c1"
     "\u06d2\u06d4", "Pa55w0rd-E350"),
    ("\u0627\u0644\u0628\u0627\u0633\u0648\u0648\u0631\u062f \u0644\u064a \u062d\u0637\u064a\u062a"
     " \u0647\u0648 Casa!1999 \u0648\u0627\u0644\u0631\u0642\u0645", "Casa!1999"),
    ("Pregunta secreta: \u00bfCiudad donde naci\u00f3 su madre?\nRespuesta: Chichicastenango\n"
     "Correo de recuperaci\u00f3n: x@live.com", "Chichicastenango"),
    # a conversation's reply: an id of letters and digits, eighteen digits, a phone asked for
    # in the Balkans' words, a one-time code asked for in Urdu
    ("Agent: 3tini la CIN 3afak\nClient: AE50800\nAgent: w num\u00e9ro dyal la ligne?\n"
     "Client: 0 6 1 9 3 4 1 5 5 7", "AE50800"),
    ("Agent: Djezzy, s'il vous pla\u00eet\nClient: salam, ndir portabilit\u00e9\nAgent: 3tini "
     "NIN ta3ek\nClient: 105225785261448351\nAgent: w num\u00e9ro?", "105225785261448351"),
    ("[10.09.24. 04:32] Mirza: jel ima\u0161 broj od Selma?\n[27.04.25. 05:45] Mama: 062 779 571"
     "\n[01.04.24. 08:48] Mirza: hvala. a njen mail?", "062 779 571"),
    ("[00:00:47] Agent: Shukriya. Aap ke registered number 0321-0800118 pe OTP bheja hai, bata "
     "dein.\n[00:00:58] Caller: 532355\n[00:01:02] Agent: Shukriya", "532355"),
    ("[05:51] Operator: Ve molime EMBG i telefonski broj\n[17:19] Goran: embg 0205977411158 tel "
     "+389 70 123 456\n[17:20] Operator: Fala", "0205977411158"),
])
def test_the_rounds_values_are_redacted(text: str, value: str) -> None:
    assert value not in _redact(text)


@pytest.mark.parametrize("text", [
    # a university course's code in Persian; a shop's NTN beside its sales tax registration;
    # a firm's tax registration in Egypt (no national number beside it); a pod's name after
    # a phone's word; a barcode's and a discount's codes in Arabic; a Spanish question
    "\u06a9\u062f \u062f\u0631\u0633: \u06f7\u06f0\u06f9\u06f8\u06f3\u06f7\u06f1 \u2014 \u0645"
    "\u062f\u0627\u0631\u0647\u0627\u06cc \u0627\u0644\u06a9\u062a\u0631\u06cc\u06a9\u06cc",
    "Khaadi\nBranch: DHA Phase 5, Lahore\nNTN: 6967435-6   STRN: 67-34-3032-283-62\nPOS ID: "
    "497253",
    "\u0634\u0631\u0643\u0629 \u0627\u0644\u0646\u064a\u0644 \u0644\u0644\u062a\u062c\u0627\u0631"
    "\u0629 \u2014 \u0631\u0642\u0645 \u0627\u0644\u062a\u0633\u062c\u064a\u0644 \u0627\u0644"
    "\u0636\u0631\u064a\u0628\u064a: 787-764-177 \u2014 \u0633\u062c\u0644 \u062a\u062c\u0627"
    "\u0631\u064a 308544",
    "2025-02-14T02:05:34.151Z DEBUG pod=sms-gw-743992302d-0wgka node=ip-10-34-140-178 "
    'msg="GC pause 12ms"',
    "\u0628\u0627\u0631\u0643\u0648\u062f \u0627\u0644\u0645\u0646\u062a\u062c: 6221234567890",
    "\u0643\u0648\u062f \u0627\u0644\u062e\u0635\u0645: 2024",
    "Pregunta secreta: \u00bfCiudad donde naci\u00f3 su madre?",
    # (an order's number after a Hebrew word, not glued to a prefix letter)
    "\u05de\u05e1\u05e4\u05e8 \u05d4\u05d6\u05de\u05e0\u05d4 0501234567",
    # an e-mail address after a list of backup codes' heading: the address, not its name
    "2025-10-13 03:20:19,057 INFO scan -> sscc=359012349208004514 gtin=25905051587113 "
    "location=D-36-3-2",
])
def test_the_rounds_clean_lines_are_kept(text: str) -> None:
    assert _redact(text) == text


def test_backup_codes_leave_the_address_they_are_for_to_the_email_reading() -> None:
    out = _redact("Backup codes for noursaad32@hotmail.com\n8q26-j9wv\nsm1f-2bc4")
    assert "noursaad32" not in out and "[email:" in out and "[REDACTED:secret_assignment]" in out


@pytest.mark.parametrize(("header", "kind"), [
    ("cin", "national_id_named"), ("national_no", "national_id_named"),
    ("national_code", "national_id_named"), ("nro_documento", "national_id_named"),
    ("RUT", "national_id_named"), ("adoazonosito_jel", "national_id_named"),
    ("numero_asegurado_ccss", "document"), ("afiliacion_igss", "document"),
    ("No. Seguro Social (CSS)", "document"), ("licence_no", "document"),
    ("\u0645\u0648\u0628\u0627\u06cc\u0644", "phone"),
    # (not a document's kind, nor a licence's notes)
    ("tipo_documento", None), ("licence_type", None),
])
def test_the_rounds_column_names(header: str, kind: str | None) -> None:
    assert column_kind(header) == kind
