"""The round of corpora DR (Italy and Spain), DS (France, Belgium, Switzerland and the
Maghreb), DT (Poland, Czechia, Slovakia, Hungary, Croatia and Slovenia), DU (Pakistan,
Bangladesh, Sri Lanka and Nepal), DV (Iran, Afghanistan and Central Asia) and DW (Germany,
Austria, Switzerland, the Netherlands and Flanders): each shape they found left or wrongly
changed, redacted or kept in process."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # Iran and Afghanistan: phones after Persian's mobile, "شماره تماس", "شماره:" and Pashto's
    # words (Persian digits too), an e-Tazkira, an insurance number, a dynamic PIN in
    # Persian digits, Dari's "کود تایید"
    ("\u0645\u0648\u0628\u0627\u06cc\u0644: \u06f0\u06f9\u06f9\u06f0\u06f0\u06f5\u06f5\u06f0"
     "\u06f9\u06f1\u06f7", "\u06f0\u06f9\u06f9\u06f0\u06f0\u06f5\u06f5\u06f0\u06f9\u06f1\u06f7"),
    ("\u0645\u0648\u0628\u0627\u06cc\u0644: 09351507718\n", "09351507718"),
    ("\u0634\u0645\u0627\u0631\u0647 \u062a\u0645\u0627\u0633: 0735436033", "0735436033"),
    ("\u06a9\u0633 \u0634\u0631\u06cc\u06a9 \u0646\u0633\u0627\u0632\u06cc\u062f. "
     "\u0634\u0645\u0627\u0631\u0647: 0738971339", "0738971339"),
    ("\u062f \u062a\u0644\u06cc\u0641\u0648\u0646 \u0634\u0645\u06d0\u0631\u0647 \u0645\u06d0 "
     "0715907399 \u062f\u0647", "0715907399"),
    ("\u0646\u0645\u0628\u0631 \u062a\u0630\u06a9\u0631\u0647 \u0627\u0644\u06a9\u062a\u0631"
     "\u0648\u0646\u06cc\u06a9\u06cc: \u06f1\u06f4\u06f0\u06f1-\u06f7\u06f9\u06f2\u06f0-"
     "\u06f6\u06f3\u06f5\u06f3\u06f0", "\u06f1\u06f4\u06f0\u06f1-\u06f7\u06f9\u06f2\u06f0-"
     "\u06f6\u06f3\u06f5\u06f3\u06f0"),
    ("\u0634\u0645\u0627\u0631\u0647 \u0628\u06cc\u0645\u0647: 1200567327\n", "1200567327"),
    ("#\u0631\u0645\u0632_\u062f\u0648\u0645_\u067e\u0648\u06cc\u0627\n\u0631\u0645\u0632: "
     "\u06f5\u06f1\u06f9\u06f1\u06f2\u06f6\n", "\u06f5\u06f1\u06f9\u06f1\u06f2\u06f6"),
    ("M-Paisa: \u06a9\u0648\u062f \u062a\u0627\u06cc\u06cc\u062f \u0634\u0645\u0627 2597 "
     "\u0627\u0633\u062a.", "2597"),
    # Central Asia: Kazakhstan's mobiles after "тел=" and Kaspi's "по номеру", Kyrgyzstan's
    # "Мобильный:", a PINFL and a Kyrgyz PIN, an identity card, passports, codes before
    # their words, Payme's cards.verify, Tajikistan's Korti Milli card
    ("\u0418\u0418\u041d=x \u0442\u0435\u043b=87074831953 ip=", "87074831953"),
    ("\u043f\u0435\u0440\u0435\u0432\u043e\u0434 \u043f\u043e \u043d\u043e\u043c\u0435\u0440"
     "\u0443 87755641816", "87755641816"),
    ("\u041c\u043e\u0431\u0438\u043b\u044c\u043d\u044b\u0439: 0 (999) 50-07-01\n",
     "0 (999) 50-07-01"),
    ("\u0416\u0428\u0428\u0418\u0420: 42111993265144\n", "42111993265144"),
    ("\u041f\u0418\u041d: 12508196433743\n", "12508196433743"),
    ("\u0416\u0435\u043a\u0435 \u043a\u0443\u04d9\u043b\u0456\u043a \u2116: 012462121, "
     "\u0431\u0435\u0440\u0456\u043b\u0433\u0435\u043d", "012462121"),
    ("\u041f\u0430\u0441\u043f\u043e\u0440\u0442 \u0441\u0435\u0440\u0438\u044f\u0441\u0438 "
     "\u0432\u0430 \u0440\u0430\u049b\u0430\u043c\u0438: AC 3255169\n", "AC 3255169"),
    ("\u0420\u0430\u049b\u0430\u043c\u0438 \u0448\u0438\u043d\u043e\u0441\u043d\u043e\u043c"
     "\u0430\u0438: 400246265\n", "400246265"),
    ("Optima24: 3872 - \u0431\u0438\u0440 \u0436\u043e\u043b\u043a\u0443 \u043a\u043e\u0434.",
     "3872"),
    ("Halyk: 300726 \u2014 \u043a\u043e\u0434 \u0434\u043b\u044f \u043f\u043e\u0434\u0442"
     "\u0432\u0435\u0440\u0436\u0434\u0435\u043d\u0438\u044f \u043f\u0435\u0440\u0435\u0432"
     "\u043e\u0434\u0430", "300726"),
    ('{"method": "cards.verify", "params": {"token": "x", "code": "85477"}}', "85477"),
    ("\u041a\u043e\u0440\u0442\u0438 \u041c\u0438\u043b\u043b\u04e3: 9762 3103 1619 0737",
     "9762 3103 1619 0737"),
    # France and the Maghreb: a numéro fiscal (its mod-511 key), an AGDREF number, Algeria's
    # NIN, a CNSS registration, a security answer in French, Belgium's GSM and Tunisia's
    # "Ligne :", a caller "appelé depuis le"
    ("Pays de r\u00e9sidence fiscale : France \u2014 NIF : 0663052083456", "0663052083456"),
    ("impots.gouv : identifiant 32 18 169 711 043, mot de passe", "32 18 169 711 043"),
    ("- N\u00b0 \u00e9tranger (titre de s\u00e9jour) : 6999433524\n", "6999433524"),
    ("ma carte Edahabia ... NIN : 202585376729847305. T\u00e9l", "202585376729847305"),
    ("Num\u00e9ro d'immatriculation dyali: 107387789, CIN", "107387789"),
    ("Identification par question secr\u00e8te : r\u00e9ponse \u00ab Kiki \u00bb OK.", "Kiki"),
    ('{"gsm": "081 54 14 71", "niss": "x"}', "081 54 14 71"),
    ("CIN : x\nLigne : 28 995 115\nMotif", "28 995 115"),
    ("a appel\u00e9 depuis le 0692516520 (num\u00e9ro connu)", "0692516520"),
    # German- and Dutch-speaking Europe: a telco's Kundenkennwort, a PUK told after its SIM's
    # number, a BSN spaced and under personal_number, a German passport in a booking
    ("Kundenkennwort: 8883\nRufnummer", "8883"),
    ("Ihr PUK f\u00fcr die Nummer 079 123 45 67 lautet 15803995. Freundliche", "15803995"),
    ("De PUK-code van je simkaart met nummer 06 1234 5678 is 73209221.", "73209221"),
    ("the gemeente gave me my BSN: 540 688 666. Now", "540 688 666"),
    ('{"number": "x", "personal_number": "247838202", "result": "clear"}', "247838202"),
    ('{"doc_type": "P", "doc_no": "CXKLVWZW51", "nationality": "DEU"}', "CXKLVWZW51"),
    # Italy and Spain: a DNI after Catalan's "Document" and a CSV's DOC_IDENTIDAD, a health
    # card's 80380, NUHSA, CIP and the DNI's support number, a CIE, a landline column, a
    # Bizum "al número", Catalan's validation code, Fisconline's PIN
    ("enviament OTP correcte document=39202240M mobil=", "39202240M"),
    ("CLIENTE,Paula\nDOC_IDENTIDAD,31515700L\nMOVIL,x", "31515700L"),
    ("TESSERA SANITARIA\nnumero tessera 80380043894436506657\n", "80380043894436506657"),
    ("NUHSA: AN0560005291\nDNI", "AN0560005291"),
    ("Recepta electr\u00f2nica - CatSalut\nCIP: BAOL1021115069\n", "BAOL1021115069"),
    ("N\u00ba SOPORTE LOO851658  V\u00c1LIDO HASTA", "LOO851658"),
    ("N. CB89724DQ  SCADENZA 12/02/2025", "CB89724DQ"),
    ("MOVIL,x\nFIJO,928953623\nEMAIL,x", "928953623"),
    ("hice un Bizum de 13,12 \u20ac por error al n\u00famero 625866020 en vez", "625866020"),
    ("idCAT M\u00f2bil: el vostre codi de validaci\u00f3 \u00e9s 701070. No el compartiu",
     "701070"),
    ("Il PIN Fisconline completo \u00e8 2890794210, la password", "2890794210"),
    # Central Europe: a BLIK code, a door's and an alarm's code in Hungarian and Croatian,
    # a PIN "je", backup codes' lists in Slovenian and Czech, phones after "Telefón",
    # "SIM broj", "s broja" and "številka", a birth number under its claim's key, a TAJ with
    # dashes, a Slovenian staff table's tax number and EMŠO
    ('{"event": "blik.authorize.request", "blikCode": "825002", "msisdn": "x"}', "825002"),
    ("Bej\u00e1rati ajt\u00f3 k\u00f3dja: 80761\nRiaszt\u00f3 k\u00f3d: 5226\n", "80761"),
    ("Bej\u00e1rati ajt\u00f3 k\u00f3dja: 80761\nRiaszt\u00f3 k\u00f3d: 5226\n", "5226"),
    ("Kod za alarm je 3175, klju\u010d je kod portira", "3175"),
    ("za Va\u0161 novi SIM broj 095/322-7310 PIN je 7001, a PUK", "7001"),
    ("za Va\u0161 novi SIM broj 095/322-7310 PIN je 7001, a PUK", "095/322-7310"),
    ("primio poziv s broja 097/241-2062 od osobe", "097/241-2062"),
    ("kartica zaklenjena (\u0161tevilka 031 833 188).", "031 833 188"),
    ("Telef\u00f3n: 0949/860 491\nE-mail", "0949/860 491"),
    ("Rezervne kode za dvostopenjsko preverjanje:\n1. 07490705\n2. tiy7-b3z9\n3. ajpg-3m27",
     "tiy7-b3z9"),
    ("Z\u00e1lo\u017en\u00ed k\u00f3dy pro dvouf\u00e1zov\u00e9 ov\u011b\u0159en\u00ed:\n"
     "1. 41540787\n2. 76409200", "41540787"),
    ('"family_name": "Zemanov\u00e1",\n    "birthnumber": "8356066554",', "8356066554"),
    ("TAJ: 195-059-614. Lemond\u00e1s", "195-059-614"),
    ("| Ime in priimek | Dav\u010dna \u0161t. | EM\u0160O | GSM |\n|---|---|---|---|\n"
     "| Mojca Kralj | 49810162 | 1311951508909 | 064 651-909 |", "1311951508909"),
    # South Asia: a CNIC after Roman Urdu's name and NADRA's citizen_number (its last digit
    # 0 too), Bangladesh's TIN and mobiles, Pakistan's mobiles alone, an SMS API's "to",
    # Nepal's citizenship number (in Devanagari's digits too) and personal PAN, a Nepali
    # table's mobile column, a Sri Lankan Tamil "number", a wallet's id
    ("8300 par apna shanakhti card number 1610179410499 bhejein", "1610179410499"),
    ('{"event": "cnic_lookup", "citizen_number": "5440051102684", "msisdn": "x"}',
     "5440051102684"),
    ("CNIC: 61101-5858669-0\nIBAN", "61101-5858669-0"),
    ("Amar TIN 697934841105, NID x", "697934841105"),
    ("ekhon ki korbo? amar number 01804420716. taka", "01804420716"),
    ("Customer: CNIC x hai aur number 03089846095 hai", "03089846095"),
    ("body={'to': '94716789237', 'text': 'Your order has been dispatched.'}", "94716789237"),
    ("\u0928\u093e\u0917\u0930\u093f\u0915\u0924\u093e \u092a\u094d\u0930\u092e\u093e\u0923"
     "\u092a\u0924\u094d\u0930 \u0928\u0902.: \u096c\u096b-\u0966\u0967-\u096d\u096c-\u096e"
     "\u0967\u096e\u096f\u096d\n", "\u096c\u096b-\u0966\u0967-\u096d\u096c-\u096e\u0967\u096e"
     "\u096f\u096d"),
    ("ID type: Citizenship  ID No: 51-03-79-21105\nBiometric", "51-03-79-21105"),
    ("Dear Anjali,\nYour Personal PAN 102384622 has been registered", "102384622"),
    ("\u0938\u0926\u0938\u094d\u092f \u0928\u0902.,\u0928\u093e\u092e,\u0928\u093e\u0917\u0930"
     "\u093f\u0915\u0924\u093e \u0928\u0902.,\u092e\u094b\u092c\u093e\u0907\u0932,PAN\n"
     "4836,\u0938\u0941\u091c\u0928,42332/2051,9822641118,647851818", "9822641118"),
    ("\u0938\u0926\u0938\u094d\u092f \u0928\u0902.,\u0928\u093e\u092e,\u0928\u093e\u0917\u0930"
     "\u093f\u0915\u0924\u093e \u0928\u0902.,\u092e\u094b\u092c\u093e\u0907\u0932,PAN\n"
     "4836,\u0938\u0941\u091c\u0928,42332/2051,9822641118,647851818", "42332/2051"),
    ("\u0b8e\u0ba9\u0bcd Dialog \u0b87\u0bb2\u0b95\u0bcd\u0b95\u0bae\u0bcd 0700736197 "
     "\u0b95\u0bcd\u0b95\u0bc1", "0700736197"),
    ("Dear Customer, 123456 is your OTP for eSewa. Wallet: 9741357602. Never share",
     "9741357602"),
])
def test_the_rounds_values_are_redacted(text: str, value: str) -> None:
    assert value not in _redact(text)


@pytest.mark.parametrize("text", [
    # a masked phone after a code's words, an OpenAPI example's "string", a French company's
    # activity code and a school's code, a ticket's check code, a build's version after
    # Czech's word for it, an SMS sender's metric, a password rule in Italian
    "\u06a9\u062f \u062a\u0627\u06cc\u06cc\u062f \u0628\u0647 \u0634\u0645\u0627\u0631\u0647 "
    "\u06f0\u06f9\u06f1\u06f2***\u06f4\u06f5\u06f2\u06f8 \u0627\u0631\u0633\u0627\u0644 "
    "\u0634\u062f.",
    '{\n  "access_token": "string",\n  "token_type": "Bearer"\n}',
    "N\u00b0 TVA intracommunautaire : FR04419322235\nCode NAF/APE : 6820B\nRCS Lille",
    "Code \u00e9tablissement : 690712\nMontant pay\u00e9 : 9,470 DT",
    "Cena: 168,38 z\u0142  Kod kontrolny: 84668050",
    "mObywatel 3.11.9 (build 800402)\nSestaven\u00ed: 1.3.120.4  commit 8207d8cf2fe3",
    "sms_sender_latency_seconds_sum 72165.7286\nprocess_resident_memory_bytes 438315305",
    "Requisiti password: almeno 8 caratteri, una maiuscola, un numero.",
    # look-alikes of the new shapes: a company's NTN and a firm's PAN, a GTIN, a company's
    # registration number in Slovenian, Croatian documents' and referrals' numbers, a health
    # card's print batch with a number between
    "Supplier: Indus Textiles (Pvt.) Ltd.  NTN: 4301458-3  STRN: 52-26-1362-327-36",
    "PAN (Firm): 302145678 | VAT Bill No: 86855",
    "GS1 check ok: GTIN 5903626670679, GTIN 186461697161, SSCC 078912344239978996",
    "MLEKARNA KRAS d.d.\nMati\u010dna \u0161tevilka: 5060026\nID za DDV: SI50600263",
    "e-Ra\u010dun zaprimljen. Broj dokumenta: 4417283301. Status: Preuzet.",
    "HZZO: Va\u0161 termin. Broj uputnice: 4417283301. Ponesite zdravstvenu iskaznicu.",
    "Tessera sanitaria: numero non mostrato; codice regione 120, batch stampa "
    "80380021171957332273",
])
def test_the_rounds_clean_lines_are_kept(text: str) -> None:
    assert _redact(text) == text
