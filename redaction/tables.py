"""Values in a table's columns, told by the column's header.

A phone number, an SSN or a password alone in a cell carries nothing that tells it from an
order number or a word; the header above it does ("| Telefon |" in a pasted sheet,
"Email,Phone,MobilePhone" in a CRM export, " phone       |" in a psql result). This pass finds
the tables in a text, reads each header cell for a kind's name and reports the cells under
such a header that have the kind's shape.

A table is a header row and the rows after it that split the same way: on a delimiter ("|",
a tab, ";" or ","), every row with as many cells as the header; or, with none (pandas,
kubectl, fixed-width reports), on runs of two spaces or more, each cell going to the header
cell it lies under. Separator rows ("---+---", "|:---|") are skipped. Rows are lines, or the
escaped lines ("\\n") of a JSON string that holds a pasted table, where a row also ends at the
string's closing quote.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .detectors import Finding
from .national_ids import any_id_ok, digit_count_ok, npwp_ok, passport_ok, person_inn_ok
from .validators import (
    digits,
    generated_letters,
    lowered,
    not_a_code_stand_in,
    not_counting_run,
    secret_value_ok,
    ssn_ok,
    telecom_id_ok,
    told_password,
    word_passphrase,
)

__all__ = ["LineTables", "column_kind", "table_findings"]

# A row break: a line's end, or an escaped one inside a JSON string.
_BREAK = re.compile(r"\r?\n|\\r\\n|\\n")
# The end of a JSON string in an escaped row (a quote no backslash escapes).
_STRING_END = re.compile(r'(?<!\\)"')
# Any header word: a cheap test that a text can hold a table this pass reads.
# Any header word, in a text with its letters in lower case: a table this pass reads has one.
_GATE = re.compile(
    r"phone|tel|mobil|mobiel|cell|fax|msisdn|handy|gsm|whatsapp|celular|m[oó]vil|ssn|social"
    r"|pass|pwd?|contrase|senha|has[łl]o|wachtwoord|l[öo]senord|salasana|[şs]ifre|parola"
    r"|recipient"
    r"|secret|token|api.?key|credential|session|value|wert|valeur|valor|пароль|телефон|тел"
    r"|电话|電話"
    r"|手机|手機|携帯|전화|휴대폰|密码|密碼|パスワード|비밀번호|هاتف|جوال"
    # identity documents' names (the passport words hold "pas" or "pass" above)
    r"|pesel|cpf|dni|nie|nif|bsn|aadha|pan|nik|ktp|rrn|jumin|nino|nir|rut|kimlik|tckn|steuer"
    r"|national|fiscal|personnummer|身份|マイナンバー|個人番号|주민|आधार|旅券|护照|여권"
    r"|nhs|medicare|nric|hkid|curp|hetu|henkil|f[øo]dsels|cpr|cui[tl]|cnp|ppsn|teudat"
    r"|tax.?file|เลขประจำตัว|บัตรประชาชน|תעודת|ת\.ז|imei|imsi|iccid|meid|cvv|cvc|cvn|pr[üu]e?f(?:nummer|ziffer)"
    r"|инн|снилс|рнокпп|іпн|иин|жсн|егн|snils|rnokpp|pinfl|jmbg|oib|dav[čc]na|em[šs]o|taj"
    "|\u092e\u094b\u092c\u093e\u0907\u0932|\u09ae\u09cb\u09ac\u09be\u0987\u09b2"
    "|\u0928\u093e\u0917\u0930\u093f\u0915\u0924\u093e|citizenship|trn|dpi|dui"
    r"|pin|app.?key|nwk.?key|network.?key|master.?key|private.?key|install.?code"
    # (South Asia's, the Gulf's, South-East Asia's, the DACH countries' and the Nordics' ids)
    r"|cnic|nic|sss|tin|qid|svnr|vsnr|pnr|kennital|matricule|ahv|abha|npwp|perid|idnr|sv.?nr"
    r"|nuss|naf|crn|nis|kvnr|homeph|rvnr|cns"
    # (the Philippines' PhilHealth, Vietnam's CCCD and its phone's abbreviation, SĐT)
    r"|philhealth|cccd|s\u0111t"
    # (Nigeria's BVN, France's "N° Sécurité sociale", an exported item's TOTP seed; Nigeria's
    # NIN beside another's name only: "nin" is in too many words)
    r"|bvn|s\u00e9cu|totp|otp|tax.?id"
    r"|id.?number|身分證|ni.?number|ni.?no|sin|nas|chi|ird|dl.?number"
    # (China's and Belgium's ids as their sheets head them, France's NIR as "num_secu"; a
    # contact centre's caller number, its ANI)
    r"|id.?card|rijksregister|secu|ani|caller.?id|aes.?key"
    # (Greece's tax and social security numbers, Jordan's and Saudi Arabia's ids, the Czech
    # birth number)
    r"|αφμ|αμκα|afm|amka|iqama|rodne"
    # (India's voter id; a seafarer's documents: his seaman's book, the Philippines' SIRB,
    # India's CDC and INDoS number)
    r"|epic|sirb|seam[ae]n|cdc|indos|ndis|medicaid"
    # (a service member's DoD ID, the EDIPI; a dialer's dialled and callback numbers)
    r"|edipi|dodid|dial|callback"
    # (an access system's or a care agency's door, gate and alarm codes: GateCode, entry_code)
    r"|(?:gate|entry|door|alarm|access|keypad|lockbox)[ _-]?code|answer|num.?doc"
    r"|num(?:ero)?.?documento|clave"
    # (a gift card's claim or redemption code)
    r"|claim.?code|redemption|ausweis|health.?card|c[eé]dula|fin|seriya"
    # (Hebrew's telephone and id: טלפון, ת"ז)
    r"|\u05d8\u05dc\u05e4\u05d5\u05df|\u05ea[\"\u05f4]\u05d6"
    # (the EL to EQ round's: Estonia's, Finland's, Moldova's, Bulgaria's ids; Kenya's,
    # Zambia's, Botswana's, Ghana's, Malaysia's and Indonesia's social and health funds'
    # numbers; Malaysia's IC; Arabic's passport)
    r"|isikukood|veronumero|idnp|egn|nssf|nhif|tpin|omang|nrc|nhis|ssnit|kwsp|bpjs|ic.?no"
    "|contact.?n"
    "|\u062c\u0648\u0627\u0632"
    # (the ER to EW round's: Morocco's and Tunisia's CIN, a Latin American sheet's documento,
    # Central America's social security funds, Trinidad's BIR number, Hungary's tax id, a
    # driver's licence, Persian's mobile)
    r"|cin|documento|igss|ccss|ihss|asegurado|seguro|bir|adoazonosito|licen"
    "|\u0458\u043c\u0431|\u0435\u043c\u0431\u0433|\u0645\u0648\u0628\u0627\u06cc\u0644"
    # (the EX to FK round's: Chad's NNI, Mozambique's NUIT, Cameroon's NIU, Georgia's personal
    # number, a payroll's M-Pesa, the DRC's INSS, Mongolia's РД)
    r"|nni|nuit|niu|personal[ _-]?n|mpesa|inss"
    # (the FL to FQ round's: Bangladesh's NID, Uzbekistan's JSHSHIR, Viet Nam's BHXH and MST,
    # Belgium's INSZ/NISS, China's housing fund, social insurance and document numbers)
    r"|nid|iin|jshshir|bhxh|mst|insz|niss|tho[a\u1ea1]i|pasport|\u043f\u0430\u0441\u043f\u043e\u0440\u0442"
    "|\u516c\u79ef\u91d1|\u793e\u4fdd|\u8bc1\u4ef6|\u098f\u09a8\u0986\u0987\u09a1\u09bf"
    "|\u0440\u0434|\u10de\u10d8\u10e0\u10d0\u10d3\u10d8|\u0443\u0442\u0430\u0441"
    "|\u0570\u0565\u057c\u0561\u056d\u0578\u057d"
    "|\u10e2\u10d4\u10da\u10d4\u10e4\u10dd\u10dc\u10d8")
#: The same words as plain strings (what every alternative of ``_GATE`` holds).
_GATE_WORDS = ("phone", "tel", "pass", "pw", "recipient", "token", "secret", "value", "mobil",
               "mobiel", "davčna", "davcna", "emšo", "emso", "taj",
               "\u092e\u094b\u092c\u093e\u0907\u0932", "\u09ae\u09cb\u09ac\u09be\u0987\u09b2",
               "\u0928\u093e\u0917\u0930\u093f\u0915\u0924\u093e", "citizenship", "trn", "dpi",
               "dui",
               "cell",
               "fax", "msisdn", "handy", "gsm", "whatsapp", "celular", "móvil", "movil", "ssn",
               "social", "contrase", "senha", "hasło", "haslo", "wachtwoord", "lösenord",
               "losenord", "salasana", "şifre", "sifre", "parola", "apikey", "api_key",
               "api key", "api-key", "api.key", "credential", "session", "wert", "valeur",
               "valor",
               "пароль", "телефон", "тел", "电话", "電話", "手机", "手機", "携帯", "전화",
               "휴대폰", "密码", "密碼", "パスワード", "비밀번호", "هاتف", "جوال",
               "pesel", "cpf", "dni", "nie", "nif", "bsn", "aadha", "pan", "nik", "ktp", "rrn",
               "jumin",
               "nino", "nir", "rut", "kimlik", "tckn", "steuer", "national", "fiscal",
               "personnummer", "身份", "マイナンバー", "個人番号", "주민", "आधार", "旅券", "护照",
               "여권", "nhs", "medicare", "nric", "hkid", "curp", "hetu", "henkil", "fødsels",
               "fodsels", "cpr", "cuit", "cuil", "cnp", "ppsn", "teudat", "taxfile",
               "tax_file", "tax file", "tax-file", "tax.file", "เลขประจำตัว", "บัตรประชาชน",
               "תעודת", "ת.ז", "imei", "imsi", "iccid", "meid", "cvv", "cvc", "cvn", "pin",
               "prüfnummer", "pruefnummer", "prufnummer", "prüfziffer", "pruefziffer",
               "prufziffer",
               "инн", "снилс", "рнокпп", "іпн", "иин", "жсн", "егн", "snils", "rnokpp", "pinfl",
               "jmbg", "oib",
               "appkey", "app_key", "app key", "nwkkey", "nwk_key", "network_key",
               "network key", "networkkey", "master_key", "masterkey", "private_key",
               "privatekey", "install_code", "installcode",
               "cnic", "nic", "sss", "tin", "qid", "svnr", "vsnr", "pnr", "kennital", "matricule",
               "nuss", "naf", "crn", "nis", "kvnr", "homeph", "rvnr", "cns",
               "ahv", "abha", "npwp", "perid", "idnr", "sv-nr", "sv_nr", "id_number",
               "idnumber", "id number", "id-number", "身分證", "ni_number", "ni number",
               "ni-number", "ni_no", "sin", "nas", "chi", "ird", "dl_number", "dl number",
               "dl-number", "dlnumber", "idcard", "id card", "id_card", "id-card", "id.card",
               "rijksregister", "secu", "ani", "callerid", "caller id", "caller_id",
               "caller-id", "caller.id", "aes_key", "aes key", "aeskey", "aes-key", "aes.key",
               "αφμ", "αμκα", "afm", "amka", "iqama", "rodne", "philhealth", "cccd",
               "s\u0111t",
               "thoai", "tho\u1ea1i", "bvn", "s\u00e9cu", "totp", "otp", "tax_id", "tax id",
               "taxid",
               "tax-id", "tax.id", "epic", "sirb", "seaman", "seamen", "cdc", "indos", "ndis",
               "medicaid", "edipi", "dodid", "dial", "callback", "gatecode", "gate_code",
               "gate code", "entry_code", "entrycode", "ausweis", "health_card", "health card",
               "healthcard", "health-card", "health.card", "cedula", "cédula", "fin", "seriya",
               "\u05d8\u05dc\u05e4\u05d5\u05df", 'ת"ז', "ת\u05f4ז",
               "entry code", "door_code", "doorcode", "door code", "alarm_code", "alarmcode",
               "alarm code", "access_code", "accesscode", "access code", "keypad_code",
               "keypadcode", "keypad code", "lockbox_code", "lockboxcode", "lockbox code",
               "gate-code", "entry-code", "door-code", "alarm-code", "access-code",
               "keypad-code", "lockbox-code", "answer", "num_doc", "num doc", "numdoc",
               "num_documento", "numero_documento", "numero documento", "clave", "claim code",
               "claim_code", "claimcode", "claim-code", "redemption", "isikukood", "veronumero",
               "idnp", "egn", "nssf", "nhif", "tpin", "omang", "nrc", "nhis", "ssnit", "kwsp",
               "bpjs", "ic_no", "ic no", "icno", "ic-no", "ic.no", "\u062c\u0648\u0627\u0632",
               "contact n", "contact_n", "contactn",
               "contact-n", "contact.n", "cin", "documento", "igss", "ccss", "ihss", "asegurado",
               "seguro", "bir", "adoazonosito", "licen", "\u0645\u0648\u0628\u0627\u06cc\u0644",
               "\u0458\u043c\u0431", "\u0435\u043c\u0431\u0433",
               "nni", "nuit", "niu", "personal_n", "personal n", "personaln", "personal-n",
               "mpesa", "inss", "\u0440\u0434",
               "\u10de\u10d8\u10e0\u10d0\u10d3\u10d8", "\u0443\u0442\u0430\u0441",
               "\u0570\u0565\u057c\u0561\u056d\u0578\u057d",
               "\u10e2\u10d4\u10da\u10d4\u10e4\u10dd\u10dc\u10d8",
               "nid", "iin", "jshshir", "bhxh", "mst", "insz", "niss", "\u516c\u79ef\u91d1",
               "\u793e\u4fdd", "\u8bc1\u4ef6", "\u098f\u09a8\u0986\u0987\u09a1\u09bf",
               "pasport", "\u043f\u0430\u0441\u043f\u043e\u0440\u0442")
_SEPARATOR_ROW = re.compile(r"[\s|+:=\-]*[-=]{3}[\s|+:=\-]*")
_ALIGNED_GAP = re.compile(r" {2,}|\t|\\t")

# Header words, read from the header's tokens (camelCase and joiners split, lower case).
_PHONE_WORDS = frozenset((
    "phone", "phones", "telephone", "tel", "tele", "mobile", "mob", "cell", "cellphone",
    "fax", "msisdn", "handy", "mobil", "mobiel", "gsm", "whatsapp", "celular", "movil",
    # (Italian's mobile, Portugal's telemóvel)
    "cellulare", "telemóvel", "telemovel",
    # (a dealer system's export: HOMEPH, CELLPH, WORKPH)
    "homeph", "cellph", "workph", "mobph",
    "móvil", "portable", "cep", "hp", "telf", "tlf", "tfn", "puhelin", "telefoon",
    # (an SMS gateway's delivery report: the number it sent to)
    "recipient",
    # (a dialer's record: the number it dialled, the one a customer asked to be called back on)
    "dialed", "dialled", "callback",
    # (a contact centre's report: the caller's number, automatic number identification)
    "ani", "callerid",
    # (Vietnamese's số điện thoại, as a sheet heads it: SĐT)
    "s\u0111t",
    # (and its số điện thoại unaccented, as a CSV heads it: "So dien thoai")
    "thoai", "tho\u1ea1i",
    # (a payroll's mobile-money wallet, keyed by the mobile: M-Pesa; Mongolian's, Armenian's
    # and Georgian's phone)
    "mpesa", "\u0443\u0442\u0430\u0441", "\u0570\u0565\u057c\u0561\u056d\u0578\u057d",
    "\u10e2\u10d4\u10da\u10d4\u10e4\u10dd\u10dc\u10d8"))
_PHONE_STEMS = ("phone", "telefon", "teléfon", "téléphon", "telephon", "telefoon", "mobil",
                "телефон")
_PHONE_SCRIPTS = ("电话", "電話", "手机", "手機", "携帯", "전화", "휴대폰", "연락처", "тел",
                  "\u0645\u0648\u0628\u0627\u06cc\u0644",
                  "هاتف", "جوال", "โทร", "\u05d8\u05dc\u05e4\u05d5\u05df",
                  # (Hindi's and Nepali's mobile, Bengali's)
                  "\u092e\u094b\u092c\u093e\u0907\u0932", "\u09ae\u09cb\u09ac\u09be\u0987\u09b2",
                  # (Telugu's, Malayalam's, Punjabi's, Marathi's, Kannada's, Gujarati's and
                  # Odia's)
                  "\u0c2e\u0c4a\u0c2c\u0c48\u0c32\u0c4d",
                  "\u0d2e\u0d4a\u0d2c\u0d48\u0d7d",
                  "\u0a2e\u0a4b\u0a2c\u0a3e\u0a08\u0a32",
                  "\u092e\u094b\u092c\u093e\u0908\u0932",
                  "\u0cae\u0cca\u0cac\u0cc8\u0cb2\u0ccd",
                  "\u0aae\u0acb\u0aac\u0abe\u0a87\u0ab2",
                  "\u0b2e\u0b4b\u0b2c\u0b3e\u0b07\u0b32")
# (and a CDR's other party, its A and B numbers: other_party, b_number)
_CALL_PARTIES = frozenset(("calling", "called", "caller", "callee", "dialled", "dialed", "other",
                           "a", "b"))
_CALL_NUMBERS = frozenset(("number", "no", "num", "party", "msisdn"))
_SSN_WORDS = frozenset(("ssn", "ssns"))
_TELECOM_WORDS = frozenset(("imei", "imeisv", "imsi", "iccid", "meid"))
_CARD_CODE_WORDS = frozenset(("cvv", "cvc", "cvv2", "cvc2", "cvn",
                              # (German's "Kartenprüfnummer": its check number)
                              "prüfnummer", "pruefnummer", "prufnummer", "kartenprüfnummer",
                              "kartenpruefnummer",
                              # (and its "Prüfziffer", as a shop's order export heads it)
                              "prüfziffer", "pruefziffer", "prufziffer"))
# An identity document's number: its name as a header token, or two tokens ("national_id",
# "steuer_id", "ni_number", "codice_fiscale"), or in its own script ("身份证号").
_ID_WORDS = frozenset((
    "pesel", "cpf", "dni", "nie", "nif", "bsn", "aadhaar", "aadhar", "pan", "nik", "ktp", "rrn",
    "jumin",
    "nino", "nir", "rut", "tckn", "personnummer", "passport", "paszport", "pasaporte",
    "passaporte", "passeport", "reisepass", "passaporto", "paspoort", "pasaport", "paspor",
    "pasport", "\u043f\u0430\u0441\u043f\u043e\u0440\u0442",
    "reisepassnr",
    "steuerid", "idnr", "mynumber", "nhs", "medicare", "nric", "hkid", "curp", "hetu",
    "henkilötunnus", "fødselsnummer", "fodselsnummer", "cpr", "cuit", "cuil", "cnp", "ppsn",
    # (the ids of Russia, Ukraine, Kazakhstan, Bulgaria, Uzbekistan and the Balkans, as their
    # tables head them: ИНН, СНИЛС, РНОКПП, ІПН, ИИН, ЖСН, ЕГН, PINFL, JMBG, OIB)
    # (and Kazakhstan's IIN in Latin letters)
    "iin",
    "инн", "снилс", "рнокпп", "іпн", "иин", "жсн", "егн", "snils", "rnokpp", "pinfl", "jmbg",
    "oib",
    # (Slovenia's tax number and EMŠO, Hungary's TAJ, as a staff list heads them)
    "davčna", "davcna", "emšo", "emso", "taj",
    # (Pakistan's, Sri Lanka's, the Philippines', Qatar's, Austria's, Sweden's, Iceland's,
    # Luxembourg's, Switzerland's, India's health and Indonesia's tax numbers; SAP's PERID)
    "cnic", "nic", "sss", "tin", "qid", "svnr", "vsnr", "pnr", "kennitala", "kt", "matricule",
    "ahv", "avs", "abha", "npwp", "nid", "perid",
    # (Canada's SIN and its French name, Scotland's CHI)
    "sin", "nas", "chi", "ird",
    # (China's ID card as one word, Belgium's national register's number)
    "idcard", "rijksregisternr", "rijksregisternummer", "rijksregister",
    # (Greece's ΑΦΜ and ΑΜΚΑ, Saudi Arabia's iqama)
    "αφμ", "αμκα", "afm", "amka", "iqama",
    # (the Philippines' health insurance number, Vietnam's citizen identity card)
    "philhealth", "cccd",
    # (Nigeria's national identification number and bank verification number; New Zealand's
    # National Health Index)
    "nin", "bvn", "nhi",
    # (Spain's social security number, Australia's Centrelink CRN, Brazil's NIS, Germany's
    # health insurance number)
    "nuss", "naf", "crn", "nis", "kvnr",
    # (Portugal's social security number; Germany's pension insurance number, Brazil's health
    # card)
    "niss", "rvnr", "cns",
    # (Germany's identity card, as a trip's list heads it: "Ausweis-Nr.")
    "ausweis", "personalausweis", "ausweisnummer", "ausweisnr",
    # (Colombia's cédula, which has no check digit, and Mexico's social security number, NSS)
    "cedula", "c\u00e9dula", "nss",
    # (Estonia's isikukood, Moldova's IDNP, Bulgaria's EGN in Latin letters)
    "isikukood", "idnp", "egn",
    # (Morocco's and Tunisia's CIN, a Latin American sheet's "documento", Guatemala's CUI,
    # Hungary's tax id, "adóazonosító jel")
    "cin", "documento", "cui", "adoazonosito", "ad\u00f3azonos\u00edt\u00f3",
    # (Serbia's and North Macedonia's personal numbers in Cyrillic)
    "\u0458\u043c\u0431\u0433", "\u0458\u043c\u0431", "\u0435\u043c\u0431\u0433"))
_ID_PAIRS = (("national", "id"), ("steuer", "id"), ("tax", "id"), ("ni", "number"),
             ("ni", "no"), ("tc", "kimlik"), ("codice", "fiscale"), ("my", "number"),
             ("id", "card"), ("passport", "no"), ("passport", "number"), ("no", "paspor"),
             ("social", "insurance"), ("tax", "file"), ("sa", "id"), ("teudat", "zehut"),
             # (a passenger manifest's document: a passport's shape or a country's check)
             ("doc", "number"), ("document", "number"),
             # (an id's number under its generic name, DATEV's IdNr and SV-Nr, Kuwait's)
             ("id", "number"), ("id", "nr"), ("sv", "nr"), ("civil", "id"),
             # (a driving licence's number, a voter file's dl_number)
             ("dl", "number"),
             # (France's NIR as a form's field names it: num_secu, numero_secu)
             ("num", "secu"), ("numero", "secu"),
             # (Jordan's national number, the Czech birth number)
             ("national", "no"), ("national", "number"), ("rodne", "cislo"), ("kra", "pin"),
             # (France's social security number as a payroll export heads it)
             ("s\u00e9curit\u00e9", "sociale"), ("securite", "sociale"),
             # (a provincial health card's number, as a clinic's export heads it)
             ("health", "card"),
             # (Malaysia's identity card number, as a customer table heads it: ic_no)
             ("ic", "no"), ("ic", "number"))
_ID_SCRIPTS = ("身份证", "身份證", "身分證", "マイナンバー", "個人番号", "주민등록번호", "주민번호",
               "आधार",
               "旅券", "护照", "여권", "パスポート", "เลขประจำตัวประชาชน", "บัตรประชาชน",
               "תעודת זהות", "ת.ז", 'ת"ז', "ת\u05f4ז", "\u062c\u0648\u0627\u0632")
# What an id column's header may add to its name: the number, not a fact about it.
_ID_ABOUT_OK = frozenset(("id", "no", "number", "num", "nr"))
_PASSWORD_WORDS = frozenset((
    "password", "passwd", "pwd", "passphrase", "passwort", "kennwort", "contraseña",
    "contrasena", "senha", "hasło", "haslo", "wachtwoord", "lösenord", "losenord", "salasana",
    "şifre", "sifre", "parola", "mdp", "пароль", "pass", "pw", "clave"))
_PASSWORD_SCRIPTS = ("密码", "密碼", "パスワード", "비밀번호", "пароль")
_SECRET_WORDS = frozenset(("secret", "token", "apikey", "api_key",
                           # LoRaWAN's root and session keys (app_key is split to "app", "key")
                           "appkey", "nwkkey", "appskey", "nwkskey",
                           # (a password manager's export: Bitwarden's login_totp, its seed)
                           "totp"))
# A key's column named by two words: a LoRaWAN import's app_key, a Zigbee network_key.
_KEY_PAIRS = (("app", "key"), ("nwk", "key"), ("network", "key"), ("master", "key"),
              ("private", "key"), ("secret", "key"), ("install", "code"),
              # (a wireless M-Bus meter's AES key, an export's column; a one-time password's
              # seed, a vault listing's mfa_seed)
              ("aes", "key"), ("mfa", "seed"), ("totp", "seed"), ("otp", "seed"),
              # (a gift card's code that spends it, in a scam's evidence list)
              ("claim", "code"), ("redemption", "code"))
# A wireless network's words before its key's.
_WIFI_WORDS = frozenset(("wifi", "wlan", "wpa", "wpa2", "wireless"))
# A PIN's column: an access system's door_pin, a card's pin (a code of 4 to 8 digits).
_PIN_WORDS = frozenset(("pin", "pins", "pincode", "passcode"))
# What a code opens, before "code" in a column's name (GateCode, entry_code, alarm_code).
_OPENING_WORDS = frozenset(("gate", "entry", "door", "alarm", "access", "keypad", "lockbox"))
# What a tokenization vault stands a token in for: a column of them holds no secret.
_TOKENIZED = frozenset(("email", "phone", "card", "pan", "ssn", "account", "iban", "address"))
# A header word that makes the column about the kind but not the value itself: a flag, a
# date, a hash, a count, a name or an id ("phone_verified", "password_changed_at",
# "password_hash", "prompt_tokens", "token_id").
_ABOUT_WORDS = frozenset((
    "hash", "hashed", "digest", "salt", "type", "types", "verified", "verification",
    "confirmed", "country", "code", "ext", "extension", "id", "ids", "at", "date", "time",
    "changed", "updated", "created", "expires", "expiry", "expired", "expiration", "last",
    "policy", "length", "len", "count", "status", "enabled", "required", "reset", "hint",
    "strength", "age", "format", "prefix", "masked", "last4", "redacted", "name", "scope",
    "url", "tokens", "usage", "limit", "prompt", "completion", "total", "input", "output",
    "max", "min", "rotated", "ttl", "provider", "carrier", "model", "brand", "os", "plan",
    "set", "is", "has", "manager", "ref", "path", "file", "version", "fingerprint", "kid",
    # (a dashboard's counts: "otp_sent", "OTP delivered", "login_success_rate")
    "sent", "delivered", "attempts", "rate", "success", "failed", "failures", "errors",
    # (a document's type, in Spanish and Portuguese: "tipo_documento")
    "tipo"))


def _tokens(name: str) -> list[str]:
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name)
    return re.split(r"[\s_\-./#:()\[\]*'\"`]+", spaced.lower())


def column_kind(name: str) -> str | None:
    """The kind a column's header names: "phone", "us_ssn", "national_id", "passport",
    "document" (an id with no check digit that only its column tells), "member" (a health
    plan's member id), "telecom_id",
    "card_code" (a card's CVC), "pin", "codes" (an account's backup codes), "password" (a
    password's or a secret's column) or None."""
    name = name.strip().strip("\"'`*").strip()
    # (an import template's note after the name: "Password [Required]")
    name = _BRACKETED_NOTE.sub("", name).strip() if "[" in name else name
    if not name or len(name) > 40 or "@" in name or "://" in name:
        return None
    tokens = [t for t in _tokens(name) if t]
    if not tokens or len(tokens) > 4:
        return None
    if tokens in (["npwp"], ["no", "npwp"], ["npwp", "no"]):
        return "npwp"  # (Indonesia's tax number: its own check, not a generic id's)
    if tuple(tokens) in _PERSONAL_NUMBER_COLUMNS:
        return "personal_number"  # (Georgia's, Sweden's: ten to twelve digits, not a part's)
    if tuple(tokens) in _NAMED_ID_COLUMNS:  # (before the words about an id: "national_code")
        return "national_id_named"
    if not _SSN_WORDS.isdisjoint(tokens) and _ABOUT_WORDS.isdisjoint(set(tokens) - _ID_ABOUT_OK):
        return "us_ssn"  # (before the generic pairs: ADP's "Tax ID (SSN)")
    if _ABOUT_WORDS.isdisjoint(set(tokens) - _ID_ABOUT_OK) and _names_a_document(name, tokens):
        # (a national id by that name: any id's number, checked or not; Kenya's has no check)
        # (and a provincial health card's: ten digits whose check is one Luhn digit)
        # (a passport's column: a passport's shape, which has no check to ask for; and a
        # guest register's document number, a passport's or an id card's: NUM_DOC)
        if (not _PASSPORT_WORDS.isdisjoint(tokens) or any(s in name for s in _PASSPORT_SCRIPTS)
                or any(a in tokens and b in tokens for a, b in _DOC_NUMBER_PAIRS)):
            return "passport"
        return "national_id"
    if (_ABOUT_WORDS.isdisjoint(set(tokens) - _ID_ABOUT_OK)
            and _names_an_unchecked_document(tokens)):
        return "document"
    if _ABOUT_WORDS.isdisjoint(set(tokens) - _ID_ABOUT_OK) and _names_a_member(tokens):
        return "member"  # (a health plan's or a fund's member: member_id, fund_member_no)
    if tokens in (["fin"], ["fin", "kod"], ["f\u0131n"], ["f\u0069\u0307n"]):
        return "az_fin"  # (Azerbaijan's personal code, seven letters and digits)
    # (a PIN's or a key's column may say "code": pin_code, install_code)
    named_alone = _ABOUT_WORDS.isdisjoint(set(tokens) - {"code"})
    # (and a one-time code's, a test account's "otp bypass"; not its seed's, "otp_secret")
    if named_alone and (not _PIN_WORDS.isdisjoint(tokens) or (
            "code" in tokens and not _OPENING_WORDS.isdisjoint(tokens)) or (
            "otp" in tokens and _SECRET_WORDS.isdisjoint(tokens) and "seed" not in tokens)):
        return "pin"
    # (an account's backup or recovery codes, as a sheet of logins heads them)
    if ("backup" in tokens or "recovery" in tokens) and (
            "codes" in tokens or "code" in tokens or "2fa" in tokens or "mfa" in tokens):
        return "codes"
    if named_alone and any(a in tokens and b in tokens for a, b in _KEY_PAIRS):
        return "secret"
    # (a Wi-Fi network's key, as a router's label sheet heads it: wifi_key, wpa_psk, psk)
    if named_alone and ("psk" in tokens or (
            any(w in "".join(tokens) for w in _WIFI_WORDS)
            and ("key" in tokens or "passphrase" in tokens))):
        return "password"
    if tokens in (["contact", "no"], ["contact", "number"], ["contact", "num"]):
        return "phone"  # (a staff list's "Contact No")
    if not _ABOUT_WORDS.isdisjoint(tokens):
        return None
    lower = name.lower()
    # (a word that camelCase split: "WhatsApp")
    if (not _PHONE_WORDS.isdisjoint(tokens) or "".join(tokens) in _PHONE_WORDS
            or any(t.startswith(_PHONE_STEMS) for t in tokens)
            or any(s in lower for s in _PHONE_SCRIPTS)
            # (a CDR's calling_number and called_number)
            or (not _CALL_PARTIES.isdisjoint(tokens) and not _CALL_NUMBERS.isdisjoint(tokens))):
        return "phone"
    if "social security" in lower:  # (an "ssn" token's column returned above)
        return "us_ssn"
    if not _TELECOM_WORDS.isdisjoint(tokens):
        return "telecom_id"
    if not _CARD_CODE_WORDS.isdisjoint(tokens) or "security code" in " ".join(tokens):
        return "card_code"
    if ("security" in tokens or "secret" in tokens) and "answer" in tokens:
        return "answer"  # (a security question's answer: a word or a name)
    if (not _PASSWORD_WORDS.isdisjoint(tokens) or "mot de passe" in lower
            or any(s in lower for s in _PASSWORD_SCRIPTS)):
        return "password"
    if "token" in tokens and not _TOKENIZED.isdisjoint(tokens):
        return None  # a vault's stand-in for a value (email_token, card_token), no secret
    if (not _SECRET_WORDS.isdisjoint(tokens) or "api key" in " ".join(tokens)
            or "access key" in " ".join(tokens) or "credential" in tokens
            or "credentials" in tokens
            # a session's key or cookie (Django's django_session.session_key): the login
            or ("session" in tokens and ("key" in tokens or "cookie" in tokens))):
        return "secret"
    return None


# (not "doc_no" nor "DOC NUMBER" alone: a ticket system's and an airline's documents)
_DOC_NUMBER_PAIRS = (("num", "doc"), ("numero", "documento"), ("num", "documento"))
# The columns that name a national id whatever its country (any id's number, checked or
# not): Kenya's has no check, nor a cédula, a DNI of Peru, a CIN of Morocco or Tunisia, a
# Libyan national number, a provincial health card (ten digits, one Luhn digit).
_NAMED_ID_COLUMNS = frozenset(tuple(name.split()) for name in (
    "national id", "nationalid", "nid", "national id number", "nin", "bvn", "health card",
    "health card number", "health card no", "cedula", "c\u00e9dula", "nss", "cin", "dni",
    "national no", "national number", "national code", "documento", "nro documento",
    "numero documento", "num documento", "no documento", "cui", "adoazonosito jel", "rut",
    # (Chad's and Mauritania's NNI, Mauritius' and Cameroon's NIC, Mozambique's NUIT,
    # Cameroon's NIU, Angola's and Mozambique's BI, Chad's CNPS, Georgia's personal number in
    # Georgian, Mongolia's register number (РД), India's UAN, the DRC's INSS)
    "nni", "nic", "nuit", "niu", "bi", "cnps",
    "\u10de\u10d8\u10e0\u10d0\u10d3\u10d8 \u10dc\u10dd\u10db\u10d4\u10e0\u10d8",
    "\u0440\u0434", "uan", "inss", "num inss",
    # (the FL to FQ round's: Uzbekistan's JSHSHIR, Viet Nam's social insurance and personal tax
    # codes, Belgium's INSZ/NISS, China's housing fund and social insurance numbers and a
    # sheet's "document number", Bengali's NID)
    "jshshir", "ma so bhxh", "so bhxh", "bhxh", "mst tncn", "insz", "niss",
    # (a sheet's identity card column, as Cambodia's payrolls head it: its numbers have no check)
    "id card", "id card no", "id card number",
    "\u4e2a\u4eba\u516c\u79ef\u91d1\u8d26\u53f7", "\u4e2a\u4eba\u793e\u4fdd\u7f16\u53f7",
    "\u8bc1\u4ef6\u53f7\u7801", "\u098f\u09a8\u0986\u0987\u09a1\u09bf"))
_PERSONAL_NUMBER_COLUMNS = frozenset((("personal", "no"), ("personal", "number"),
                                      ("personal", "num"), ("personal", "nr")))
_BRACKETED_NOTE = re.compile(r"[ \t]*\[[^\]]*\]")
_PASSPORT_WORDS = frozenset(("passport", "passeport", "pasaporte", "paszport", "paspor",
                             "reisepass", "passaporto", "passaporte", "reisepassnr",
                             # (Uzbek's and Turkmen's, Russian's)
                             "pasport", "\u043f\u0430\u0441\u043f\u043e\u0440\u0442"))
_PASSPORT_SCRIPTS = ("旅券", "护照", "여권", "パスポート", "\u062c\u0648\u0627\u0632")


def _names_a_document(name: str, tokens: list[str]) -> bool:
    if not _ID_WORDS.isdisjoint(tokens) or any(s in name for s in _ID_SCRIPTS):
        return True
    return any(a in tokens and b in tokens for a, b in (*_ID_PAIRS, *_DOC_NUMBER_PAIRS))


# Documents with no check digit, whose numbers only their column tells: India's voter id
# (EPIC), a seafarer's identity documents (a seaman's book, the Philippines' SIRB, India's
# CDC and INDoS number), Australia's NDIS number, a Medicaid id.
_UNCHECKED_DOCUMENT_WORDS = frozenset(("epic", "sirb", "indos", "ndis", "ndisnumber", "medicaid",
                                       # (a US service member's DoD ID number, the EDIPI)
                                       "edipi", "dodid",
                                       # (Azerbaijan's identity card's series and number)
                                       "seriya",
                                       # (Nepal's citizenship certificate, in Nepali and
                                       # English)
                                       "\u0928\u093e\u0917\u0930\u093f\u0915\u0924\u093e",
                                       "citizenship",
                                       # (Jamaica's TRN, Guatemala's DPI, El Salvador's DUI,
                                       # Bolivia's CI, as payroll sheets head them)
                                       "trn", "dpi", "dui", "ci",
                                       # (Finland's tax number; the social and health funds
                                       # of Kenya, Ghana, Malaysia and Indonesia; Zambia's
                                       # TPIN and NRC, Botswana's Omang)
                                       "veronumero", "nssf", "nhif", "nhis", "ssnit", "kwsp",
                                       "bpjs", "tpin", "nrc", "omang",
                                       # (Central America's social security funds' numbers,
                                       # Trinidad's BIR number)
                                       "igss", "ccss", "ihss", "bir", "asegurado"))
_UNCHECKED_DOCUMENT_PAIRS = (("seaman", "book"), ("seamans", "book"), ("seamen", "book"),
                             ("cdc", "no"), ("cdc", "number"), ("seguro", "social"),
                             # (a driver's licence, as a fleet's sheet heads it: licence_no)
                             ("licence", "no"), ("license", "no"), ("licence", "number"),
                             ("license", "number"), ("driving", "licence"),
                             ("driving", "license"))


def _names_a_member(tokens: list[str]) -> bool:
    return ("member" in tokens or "membership" in tokens) and not _MEMBER_NUMBER_WORDS.isdisjoint(
        tokens)


_MEMBER_NUMBER_WORDS = frozenset(("id", "no", "number"))
# A member's number: a plan's few capitals, then eight to twelve digits (a shop's or a forum's
# member number is shorter).
_MEMBER_CELL = re.compile(r"[A-Z]{0,4}\d{8,12}")


def _names_an_unchecked_document(tokens: list[str]) -> bool:
    return (not _UNCHECKED_DOCUMENT_WORDS.isdisjoint(tokens)
            or any(a in tokens and b in tokens for a, b in _UNCHECKED_DOCUMENT_PAIRS))


# Such a document's number: a few capitals (a series, an office's code: "MUM 658730"), then
# five digits and more.
_AZ_FIN_CELL = re.compile(r"(?=[A-Z]*\d)(?=\d*[A-Z])[0-9A-Z]{7}")
# (or Nepal's citizenship number: a serial and the year, or district, year, ward, serial)
# (and Jamaica's TRN in threes, Guatemala's DPI in its groups, El Salvador's DUI and its
# check digit)
_DOCUMENT_CELL = re.compile(r"(?:[A-Z]{1,4}[ -]?)?\d{5,13}[A-Z]?|\d{1,6}/\d{4}"
                            r"|\d{2}-\d{2}-\d{2}-\d{5}|\d{3}[ -]\d{3}[ -]\d{3}|\d{4} \d{5} \d{4}"
                            r"|\d{8}-\d"
                            # (a social security fund's number in its groups, "872-51558-1";
                            # a Pakistani licence, "KHI-86-18007")
                            r"|\d{3}-\d{5}-\d|\d{3}-\d{4}|[A-Z]{2,4}-\d{2}-\d{4,6}")
_PHONE_CELL = re.compile(r"\+?\(?\d[\d \t().\-/]*\d")
_DATE_OR_TIME = re.compile(r"\d{4}[-./]\d\d[-./]\d\d.*|\d\d?[-./]\d\d?[-./]\d{2,4}"
                           r"|\d\d?:\d\d(?::\d\d(?:\.\d+)?)?")
_DOTTED_QUAD = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
_SSN_CELL = re.compile(r"\d{3}([- ]?)\d{2}\1\d{4}")
_NOT_A_SECRET = frozenset((
    "true", "false", "yes", "no", "null", "none", "nil", "n/a", "na", "set", "unset",
    "hidden", "masked", "redacted", "required", "optional", "empty", "default", "changeme",
    "password", "secret", "token", "string", "str", "text", "varchar"))
# A one-way hash (crypt's $id$salt$hash, LDAP's {SSHA}, a hex digest): left as everywhere.
_ONE_WAY = re.compile(r"\$[0-9a-z]{1,6}\$.*|\{[A-Z0-9-]+\}.*|[0-9a-fA-F]{32}|[0-9a-fA-F]{40}"
                      r"|[0-9a-fA-F]{64}|[0-9a-fA-F]{128}")


def _cell_ok(kind: str, value: str) -> bool:
    if kind == "npwp":
        return npwp_ok(value)
    if kind == "phone":
        n = len(digits(value))
        return (7 <= n <= 15 and _PHONE_CELL.fullmatch(value) is not None
                and _DATE_OR_TIME.fullmatch(value) is None
                and _DOTTED_QUAD.fullmatch(value) is None and digits(value)[1:].strip("0") != "")
    if kind == "us_ssn":
        return _SSN_CELL.fullmatch(value) is not None and ssn_ok(value)
    if kind == "national_id_named":  # under "national_id": six digits and more, not repeated
        # (as written: "13.367.283-4", "V-7246448", "6547409 PT", "T874084")
        return len(value) <= 24 and (any_id_ok(value) or (
            _GROUPED_ID.fullmatch(value) is not None and _ANY_ID_DIGITS(value)
            and _DATE_OR_TIME.fullmatch(value) is None))
    if kind == "personal_number":
        return (_PERSONAL_NUMBER_CELL.fullmatch(value) is not None
                and not_counting_run(digits(value)))
    if kind == "national_id":  # under its document's name: one some country's check takes
        # (and, under its column's name only, Ukraine's RNOKPP and Russia's INN, whose one
        # check digit is too weak for a generic name's)
        return len(value) <= 24 and (any_id_ok(value) or person_inn_ok(value))
    if kind == "az_fin":
        return _AZ_FIN_CELL.fullmatch(value) is not None
    if kind == "member":
        return _MEMBER_CELL.fullmatch(value) is not None and digits(value).strip("0") != ""
    if kind == "document":
        return _DOCUMENT_CELL.fullmatch(value) is not None and digits(value).strip("0") != ""
    if kind == "passport":
        return len(value) <= 24 and (passport_ok(value) or any_id_ok(value))
    if kind == "telecom_id":
        return len(value) <= 26 and telecom_id_ok(value)
    if kind == "answer":  # (letters, a word or three: not a flag, a date or a number)
        return (2 <= len(value) <= 40 and any(ch.isalpha() for ch in value)
                and value.lower() not in _NOT_A_SECRET and secret_value_ok(value))
    if kind == "card_code":
        return 3 <= len(value) <= 4 and value.isdigit() and value.isascii()
    if kind == "pin":
        # (a word lockbox's code too, four to six capitals: "FAHC")
        return (4 <= len(value) <= 8 and value.isascii() and len(set(value)) > 1
                and (value.isdigit() or (len(value) <= 6 and value.isalpha() and value.isupper()
                                         and not_a_code_stand_in(value))))
    if kind == "codes":  # (one or several, "4387-2500 4574-9699", each a code's shape)
        return _CODES_CELL.fullmatch(value) is not None and any(ch.isdigit() for ch in value)
    # (a hex digest under a password's column is its hash; under a key's, the key itself)
    if (len(value) < 4 or len(value) > 256 or any(ch.isspace() for ch in value)
            or value.lower() in _NOT_A_SECRET
            or (_ONE_WAY.fullmatch(value) is not None
                and (kind == "password" or not value.isalnum()))
            or len(set(value)) == 1 or not secret_value_ok(value)):
        return False
    if kind == "secret":  # a token: long, with letters and a digit (not an identifier's
        # CamelCase words, "ForwardTokenAOTInput", nor a plain number)
        return (len(value) >= 12 and any(ch.isdigit() for ch in value)
                and any(ch.isalpha() for ch in value))
    # (words under "pass" are a test's results; under a password's column, letters and
    # digits are one whatever symbol ends them: "kiwi741-", "monsoon754."; and under
    # "password", a passphrase of words: "thistle-quartz-nebula-ripple")
    return told_password(value) or (len(value) >= 6 and value[0].isalpha()
                                    and any(ch.isdigit() for ch in value)) or (
        kind == "password" and (word_passphrase(value)
                                or generated_letters(value)
                                # (and such letters with a symbol or two: "QwHOG=VG-XaXnT")
                                or (not value.isalnum()
                                    and generated_letters(_NOT_LETTERS.sub("", value)))))


_NOT_LETTERS = re.compile(r"[^A-Za-z]")




_ANY_ID_DIGITS = digit_count_ok(6, 20)  # (under a national_id column: an id without a check)
# A personal number as Georgia, Sweden and the Nordics write one (a part's number is shorter).
_PERSONAL_NUMBER_CELL = re.compile(r"\d{10,12}|\d{6,8}[-+]\d{4}")
# ... its digits in groups, a series' letters before them or an office's after.
_GROUPED_ID = re.compile("(?:[A-Z]{1,4}-?|[\u0410-\u042f\u0401\u04e8\u04ae]{2})?"
                         r"\d{1,20}(?:[ .\-/]\d{1,10}){0,4}(?:[ -]?[0-9A-Z]{1,2})?"
                         # (Angola's BI: its province's letters between the digits)
                         r"|\d{9}[A-Z]{2}\d{3}")


_FINDING_KIND = {"phone": "phone", "us_ssn": "us_ssn", "password": "secret_assignment",
                 "npwp": "national_id",
                 "pin": "secret_assignment",
                 "secret": "secret_assignment", "national_id": "national_id",
                 "national_id_named": "national_id", "passport": "national_id",
                 "personal_number": "national_id",
                 "document": "national_id", "az_fin": "national_id", "member": "national_id",
                 "telecom_id": "telecom_id", "card_code": "credit_card",
                 "codes": "secret_assignment", "answer": "secret_assignment"}
_CODE_SHAPE = r"(?:[A-Za-z0-9]{4,6}(?:-[A-Za-z0-9]{4,6})+|\d{8}|\d{4} \d{4})"
_CODES_CELL = re.compile(rf"{_CODE_SHAPE}(?:[ ,;]+{_CODE_SHAPE})*")


def table_findings(text: str, kinds: frozenset[str] | None = None) -> list[Finding]:
    """The cells of ``text``'s tables whose column's header names a kind (of ``kinds``, when
    given) and that have the kind's shape, as findings; and an INSERT's values under such
    columns."""
    found = _insert_findings(text) if "NSERT" in text or "nsert" in text else []
    found += _table_findings(text)
    return sorted((f for f in found if kinds is None or f.kind in kinds),
                  key=lambda f: f.start)


def _table_findings(text: str) -> list[Finding]:
    if "\n" not in text and "\\n" not in text:
        return []
    lower = lowered(text)
    if not any(word in lower for word in _GATE_WORDS):  # (str searches: a fifth of the regex's)
        return []
    # Box-drawing borders (duckdb, ClickHouse, sqlite's box mode) read as "|" and spaces: the
    # same length, so a cell's span in the reading is its span in the text.
    view = text.translate(_BOX) if _BOX_CHARS.search(text) else text
    if "FROM stdin;" in view:
        view = _COPY.sub(_copy_header, view)
    if "#fields\t" in view:  # a Zeek log's header: the names after "#fields"
        view = _ZEEK_FIELDS.sub(_zeek_header, view)
    rows = list(_rows(view))
    shapes = [_shape(view, start, end) for start, end in rows]
    found = _pair_findings(text, view, rows, shapes)
    after = 0  # the row after the last table found
    for i in range(len(rows) - 1):
        # a header: split as a row after it is (past a separator), and with a header word
        if i < after or not (_may_continue(shapes[i], shapes[i + 1]) or (
                i + 2 < len(rows) and _may_continue(shapes[i], shapes[i + 2]))):
            continue
        if _GATE.search(lower, *rows[i]) is None:
            continue
        table = _table_at(view, rows, i)
        if table is not None:
            columns, layout, after = table
            found += _column_findings(text, view, rows[i + 1:after], columns, layout)
    return found


# An INSERT names its columns, then its values in the same order: "INSERT INTO api_sessions
# (user_id, session_token, expires_at) VALUES ('E10482', '<token>', ...)" (an ORM's or a
# database's statement log).
_INSERT = re.compile(r"(?i)\binsert[ \t]+into[ \t]+[\w.\"`\[\]]+[ \t]*\(([^()\n]{1,2000})\)"
                     r"\s*values\s*\(")
# One value: a quoted string ('' inside it is a quote), a function's call ("NOW()"), or
# anything up to a comma or the end.
# (SQL Server's Unicode strings too: N'...')
_SQL_VALUE = re.compile(r"[ \t]*(N?'(?:[^'\n]|'')*'|\w+\([^()'\n]*\)|[^,()'\n]*)[ \t]*([,)])")


def _insert_findings(text: str) -> list[Finding]:
    found: list[Finding] = []
    for insert in _INSERT.finditer(text):
        names = [n.strip().strip("\"`[]") for n in insert.group(1).split(",")]
        pos: int | None = insert.end()
        while pos is not None:  # each row of a multi-row INSERT: "VALUES (...), (...)"
            pos = _row_findings(text, pos, names, found)
    return found


# Where the next row of an INSERT's values opens.
_NEXT_ROW = re.compile(r"\s*,\s*\(")


def _row_findings(text: str, pos: int, names: list[str], found: list[Finding]) -> int | None:
    """The findings of the row of values at ``pos`` (after its "("), added to ``found``; where
    the next row starts, or None."""
    for name in names:
        value = _SQL_VALUE.match(text, pos)
        if value is None:
            return None
        start, stop = value.span(1)
        if text.startswith("'", start) and stop - start >= 2:
            start, stop = start + 1, stop - 1
        elif text.startswith("N'", start) and stop - start >= 3:
            start, stop = start + 2, stop - 1
        kind = _told_kind(name)
        if kind in _FINDING_KIND and _cell_ok(kind, text[start:stop]):
            found.append(Finding(_FINDING_KIND[kind], start, stop, text[start:stop]))
        pos = value.end()
        if value.group(2) == ")":
            more = _NEXT_ROW.match(text, pos)
            return None if more is None else more.end()
    return None


# pg_dump's data: a COPY statement names the columns, then rows of tab-separated cells.
_COPY = re.compile(r"(?m)^COPY [\w.\"]+ \(([^)\n]*)\) FROM stdin;$")


def _copy_header(match: re.Match[str]) -> str:
    """A COPY statement read as its rows' header: the column names, tab-separated, padded
    to the statement's length (spans after it stay where they are)."""
    header = "\t".join(name.strip().strip('"') for name in match.group(1).split(","))
    return header + " " * (len(match.group(0)) - len(header))


# Zeek's logs name their columns on a "#fields" line, tab-separated like the rows below it.
_ZEEK_FIELDS = re.compile(r"(?m)^#fields\t([^\n]*)$")


def _zeek_header(match: re.Match[str]) -> str:
    """A Zeek "#fields" line read as its rows' header: the names, padded to its length."""
    return match.group(1) + " " * (len(match.group(0)) - len(match.group(1)))


_BOX = str.maketrans({**dict.fromkeys("│┃║┌┬┐├┼┤└┴┘╔╦╗╠╬╣╚╩╝╭╮╯╰╞╪╡╟╫╢", "|"),
                      **dict.fromkeys("─━═", " ")})
_BOX_CHARS = re.compile("[│┃║]")


def _column_findings(text: str, view: str, rows: list[tuple[int, int]], columns: Columns,
                     layout: str | None) -> list[Finding]:
    """The cells of ``rows`` under a kind's column, for each column where at least half the
    cells filled have the kind's shape (a header row that is really a row of data names
    nothing the cells under it agree with); and the values whose row's name cell names a
    secret, in a table of names and values (a cookie jar, a config listing)."""
    hits: dict[int, list[Finding]] = {}
    filled: dict[int, int] = {}
    name_column = next((n for n, c in enumerate(columns) if c[0] == "name"), None)
    for row in rows:
        cells = _row_cells(view, row, columns, layout)
        for column, (start, stop) in cells.items():
            kind = columns[column][0]
            if stop - start > 2 and text[start] == "`" == text[stop - 1]:
                start, stop = start + 1, stop - 1  # (a Markdown cell's code span)
            value = text[start:stop]
            if kind == "value":
                name = cells.get(name_column) if name_column is not None else None
                told = _told_kind(text[name[0]:name[1]]) if name is not None else None
                if told is not None and _cell_ok(told, value):
                    hits.setdefault(-1, []).append(Finding(_FINDING_KIND[told], start, stop,
                                                           value))
            elif kind in _FINDING_KIND:
                filled[column] = filled.get(column, 0) + 1
                if _cell_ok(kind, value):
                    hits.setdefault(column, []).append(
                        Finding(_FINDING_KIND[kind], start, stop, value))
    return [f for column, found in hits.items()
            if column < 0 or 2 * len(found) >= filled[column] for f in found]


def _shape(view: str, start: int, end: int) -> Shape:
    """What a row's split depends on: its count of each delimiter, and whether it has a run
    of spaces (columns aligned); None for a row with none of them (no table's)."""
    bars, tabs = view.count("|", start, end), view.count("\t", start, end)
    escaped_tabs = view.count("\\t", start, end)
    commas = view.count(",", start, end) + view.count(";", start, end)
    aligned = view.find("  ", start, end) >= 0
    if not (bars or tabs or escaped_tabs or commas or aligned):
        return None
    return bars, tabs, escaped_tabs, commas, aligned


Shape = tuple[int, int, int, int, bool] | None


def _may_continue(header: Shape, row: Shape) -> bool:
    """Whether ``row`` may split as ``header`` does: the same count of one delimiter (of
    commas at least as many: a quoted cell may hold one), or runs of spaces in both."""
    if header is None or row is None:
        return False
    bars, tabs, escaped_tabs, commas, aligned = header
    return ((bars > 0 and bars == row[0]) or (tabs > 0 and tabs == row[1])
            or (escaped_tabs > 0 and escaped_tabs == row[2]) or (commas > 0 and commas <= row[3])
            or (aligned and row[4]))


def _pair_findings(text: str, view: str, rows: list[tuple[int, int]],
                   shapes: list[Shape]) -> list[Finding]:
    """Values in rows of a name and its value ("password   | X" in psql's expanded records),
    two such rows or more in a row, where the name names a kind or a secret."""
    found: list[Finding] = []
    run: list[tuple[str, int, int]] = []
    for (start, end), shape in zip([*rows, (0, 0)], [*shapes, None], strict=True):
        cells = _split(view, start, end, "|") if shape is not None and shape[0] == 1 else []
        if len(cells) == 2 and cells[0][1] > cells[0][0] and cells[1][1] > cells[1][0] \
                and _name_like(view[cells[0][0]:cells[0][1]]):
            (a, b), (c, d) = cells
            run.append((text[a:b], c, d))
            continue
        if len(run) >= 2:
            for name, a, b in run:
                kind = _told_kind(name)
                if kind is not None and _cell_ok(kind, text[a:b]):
                    found.append(Finding(_FINDING_KIND[kind], a, b, text[a:b]))
        run = []
    return found


# A name that names a secret: a session cookie's (JSESSIONID, laravel_session, connect.sid),
# a credential's (password, api_key, client_secret, token). Not a CSRF token's.
_SECRET_NAME_WORDS = frozenset((
    "session", "sessionid", "sessid", "jsessionid", "phpsessid", "sid", "password", "passwd",
    "pwd", "secret", "token", "apikey", "credential", "credentials", "jwt", "bearer", "auth",
    "passphrase", "pass"))


def _told_kind(name: str) -> str | None:
    """The kind of the value a name names: a column's kind, or a secret's."""
    return column_kind(name) or ("secret" if _names_a_secret(name) else None)


def _names_a_secret(name: str) -> bool:
    tokens = [t for t in _tokens(name) if t]
    return (not _SECRET_NAME_WORDS.isdisjoint(tokens) and "csrf" not in tokens
            and "xsrf" not in tokens and not any(t in ("id", "ids", "type", "name", "expires",
                                                        "count", "hash", "at") for t in tokens))


def _rows(text: str) -> Iterator[tuple[int, int]]:
    """Each row's span. An escaped break lies inside a JSON string: the row before it starts
    after the string's opening quote, and the row after the last one ends at its closing
    quote."""
    if "\\n" not in text:  # lines only (the usual case): no regex, no quotes to mind
        pos = 0
        for line in text.split("\n"):
            end = pos + len(line)
            yield pos, end - 1 if line.endswith("\r") else end
            pos = end + 1
        return
    pos = 0
    after_escaped = False
    for brk in _BREAK.finditer(text):
        escaped = brk.group().startswith("\\")
        start, end = pos, brk.start()
        if escaped:
            for quote in _STRING_END.finditer(text, start, end):
                start = quote.end()
        elif after_escaped:
            end = _string_end(text, start, end)
        yield start, end
        pos, after_escaped = brk.end(), escaped
    yield pos, _string_end(text, pos, len(text)) if after_escaped else len(text)


def _string_end(text: str, start: int, end: int) -> int:
    quote = _STRING_END.search(text, start, end)
    return end if quote is None else quote.start()


# A table's layout: its delimiter, or None for columns aligned by spaces.
# Per header cell: its kind (or role: "name", "value"), and its span in the row.
Columns = list[tuple[str | None, int, int]]


def _table_at(text: str, rows: list[tuple[int, int]], i: int
              ) -> tuple[Columns, str | None, int] | None:
    """The table whose header is row ``i``: its columns, layout and the row after its last."""
    start, end = rows[i]
    for columns, layout in _headers(text, start, end):
        last = _table_end(text, rows, i, len(columns), layout)
        if last > i + 1:
            return columns, layout, last
    return None


def _headers(text: str, start: int, end: int) -> Iterator[tuple[Columns, str | None]]:
    """Each reading of the row from ``start`` to ``end`` (one that holds a header word) as a
    header naming a kind's column (or a table of names and values): its columns and layout,
    the likeliest first."""
    if end - start > 2000:
        return
    for layout in _layouts(text, start, end):
        cells = _split(text, start, end, layout)
        names = [text[a:b] for a, b in cells]
        if len(cells) < (2 if layout in ("|", "\\t", "\t") else 3) and not (
                len(cells) == 2 and [_role(n) for n in names] == ["name", "value"]):
            # (a key and its value beside it, "password:   31 bytes", is no table; a header of
            # a name and a value is: pulumi config's "KEY    VALUE")
            continue
        if sum(1 for n in names if n) < 2 or not all(_name_like(n) for n in names if n):
            continue
        kinds = [column_kind(n) if n else None for n in names]
        roles = [_role(n) for n in names]
        if "name" in roles and "value" in roles:  # a table of names and their values
            kinds = [k or r for k, r in zip(kinds, roles, strict=True)]
        if any(k in _FINDING_KIND or k == "value" for k in kinds):
            yield ([(k, a - start, b - start) for k, (a, b) in zip(kinds, cells, strict=True)],
                   layout)


class LineTables:
    """Table headers across lines that arrive one at a time (``servescope redact`` reads
    stdin line by line): :meth:`context` says which header line a row is to be read under,
    so a CSV's rows are redacted as the same rows in one text would be."""

    def __init__(self) -> None:
        self._header: str | None = None
        self._layout: str | None = None
        self._width = 0

    def context(self, line: str) -> str | None:
        """The header ``line`` is a row of (read the two as one text), or None; a line that
        is a header is remembered for the lines after it."""
        view = line.translate(_BOX) if _BOX_CHARS.search(line) else line
        if self._header is not None:
            if _SEPARATOR_ROW.fullmatch(view) or self._fits(view):
                return self._header
            self._header = None
        if _GATE.search(lowered(view)) is None:
            return None
        for columns, layout in _headers(view, 0, len(view)):
            self._header, self._layout, self._width = line, layout, len(columns)
            break
        return None

    def _fits(self, view: str) -> bool:
        if not view.strip():
            return False
        cells = _split(view, 0, len(view), self._layout)
        return len(cells) == self._width if self._layout is not None else len(cells) >= 2


_NAME_HEADERS = frozenset(("name", "key", "cookie", "variable", "var", "setting", "parameter",
                           "param", "field", "property", "attribute", "env", "option"))
_VALUE_HEADERS = frozenset(("value", "val", "wert", "valeur", "valor", "content"))


def _role(name: str) -> str | None:
    """"name" or "value": the columns of a table of names and their values."""
    tokens = [t for t in _tokens(name) if t]
    if len(tokens) == 1 and tokens[0] in _VALUE_HEADERS:
        return "value"
    if len(tokens) == 1 and tokens[0] in _NAME_HEADERS:
        return "name"
    return None


def _layouts(text: str, start: int, end: int) -> Iterator[str | None]:
    row = text[start:end]
    for delimiter in ("|", "\\t", "\t", ";", ","):
        if delimiter in row:
            yield delimiter
    yield None


# A column's name: words (of any script) with the few symbols names hold ("E-mail", "Phone #",
# "Tel. (mobile)"), starting with a letter; not code ("('pw','pwd')"), a comment or a value.
# (or a row number's column: "#", "№")
# (a name may open with a digit before letters: "2FA backup", "3DS")
# (Hebrew's abbreviations hold a quote or a gershayim inside: ת"ז, ת״ז, מס')
# (Indic and Thai vowel signs are marks, not word characters: "मोबाइल" holds three)
# (and a number sign after a word, "Таб.№")
# (a currency's sign after a name too: a payroll's "Цалин ₮", "Salary ₹", "Amount $")
_HEADER_CELL = re.compile(r"[^\W\d_][\w .\-/#&()%?°º№'\"\u05f3\u05f4\u0900-\u0dff\u0e00-\u0eff"
                          "\u20a0-\u20bf$\u00a3\u00a5\u058f]*"
                          r"|\d[A-Za-z]{2,}[\w .\-/#&()%?°º]*|#|№")


def _name_like(name: str) -> bool:
    """A header cell: a short name, not a value (an import template's note after it read
    away: "Recovery Phone [MUST BE IN THE E.164 FORMAT]")."""
    if "[" in name:
        name = _BRACKETED_NOTE.sub("", name)
    return (len(name) <= 40 and _HEADER_CELL.fullmatch(name.strip("*")) is not None
            and len(name.split()) <= 4)


def _table_end(text: str, rows: list[tuple[int, int]], i: int, width: int,
               layout: str | None) -> int:
    r = i + 1
    while r < len(rows):
        start, end = rows[r]
        row = text[start:end]
        if _SEPARATOR_ROW.fullmatch(row):
            r += 1
            continue
        if not row.strip():
            break
        if layout is not None:
            cells = _split(text, start, end, layout)
            if len(cells) != width:
                break
            if all(b == a for a, b in cells):  # a border drawn with box characters
                r += 1
                continue
        if layout is None and len(_split(text, start, end, None)) < 2:
            break
        r += 1
    return r


def _split(text: str, start: int, end: int, layout: str | None) -> list[tuple[int, int]]:
    """The spans of a row's cells, each without the spaces and quotes around it."""
    spans: list[tuple[int, int]] = []
    if layout is None:
        pos = start
        for gap in _ALIGNED_GAP.finditer(text, start, end):
            if gap.start() > pos:
                spans.append(_trim(text, pos, gap.start()))
            pos = gap.end()
        if pos < end:
            spans.append(_trim(text, pos, end))
        return [s for s in spans if s[1] > s[0]]
    pos = start
    quoted = False
    at = start
    step = len(layout)
    while at < end:
        ch = text[at]
        if ch == '"' and layout in (",", ";", "\t"):
            quoted = not quoted
        elif not quoted and text.startswith(layout, at):
            spans.append(_trim(text, pos, at))
            pos = at + step
            at += step
            continue
        at += 1
    spans.append(_trim(text, pos, end))
    return spans


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start] in " \t":
        start += 1
    while end > start and text[end - 1] in " \t":
        end -= 1
    for quote in ('\\"', '"', "'"):
        q = len(quote)
        if end - start >= 2 * q and text.startswith(quote, start) and \
                text.startswith(quote, end - q):
            return start + q, end - q
    return start, end


def _row_cells(text: str, row: tuple[int, int], columns: Columns, layout: str | None
               ) -> dict[int, tuple[int, int]]:
    """A row's filled cells under a column with a role, by column."""
    start, end = row
    cells: dict[int, tuple[int, int]] = {}
    if _SEPARATOR_ROW.fullmatch(text, start, end):
        return cells
    for n, (a, b) in enumerate(_split(text, start, end, layout)):
        column = n if layout is not None else _under(columns, a - start, b - start)
        if column is not None and b > a and columns[column][0] is not None:
            cells[column] = (a, b)
    return cells


def _under(columns: Columns, a: int, b: int) -> int | None:
    """The one header cell an aligned cell lies under (None: none, or two)."""
    under = [n for n, (_, s, e) in enumerate(columns) if a < e and s < b]
    return under[0] if len(under) == 1 else None
