"""National identity numbers other than the US SSN, and passport numbers: each country's
check on published examples, the numbers found after their document's name in the
surroundings they are written in, and look-alikes left alone."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from servescope.redaction import Redactor, scan
from servescope.redaction import national_ids as ids

# Published examples (the issuers' documentation, common test data), each valid.
VALID: list[tuple[Callable[[str], bool], str]] = [
    (ids.steuer_id_ok, "86095742719"),
    (ids.pesel_ok, "44051401359"),
    (ids.tc_kimlik_ok, "10000000146"),
    (ids.cpf_ok, "111.444.777-35"),
    (ids.dni_ok, "12345678Z"),
    (ids.dni_ok, "X1234567L"),
    (ids.codice_fiscale_ok, "RSSMRA85T10A562S"),
    (ids.bsn_ok, "111222333"),
    (ids.aadhaar_ok, "2341 2341 2346"),
    (ids.my_number_ok, "123456789018"),
    (ids.cn_resident_id_ok, "11010519491231002X"),
    (ids.nino_ok, "AB 12 34 56 C"),
    (ids.pan_ok, "ABCPE1234F"),
    (ids.rrn_ok, "900101-1234567"),
    (ids.nik_ok, "3273016608790003"),
    (ids.nir_ok, "1 84 12 76 451 089 46"),
    (ids.be_national_number_ok, "85.07.30-033.28"),
    (ids.rut_ok, "12.345.678-5"),
    (ids.personnummer_ok, "811218-9876"),
    (ids.naf_ok, "28/48216505/73"),
    (ids.naf_ok, "080123456774"),  # below ten million: 08 * 10^7 + 1234567, by 97
]


@pytest.mark.parametrize(("check", "number"), VALID)
def test_a_published_example_passes_its_check(check: Callable[[str], bool], number: str) -> None:
    assert check(number)


@pytest.mark.parametrize(("check", "number"), [
    (c, n) for c, n in VALID if c not in (ids.nino_ok, ids.pan_ok, ids.rrn_ok, ids.nik_ok,
                                          ids.rut_ok)])
def test_one_digit_changed_fails_the_check(check: Callable[[str], bool], number: str) -> None:
    at = max(i for i, ch in enumerate(number[:-1]) if ch.isdigit())
    changed = number[:at] + str((int(number[at]) + 1) % 10) + number[at + 1:]
    assert not check(changed), changed


@pytest.mark.parametrize(("check", "number"), [
    (ids.cpf_ok, "111.111.111-11"),  # one digit repeated passes the sums, never issued
    (ids.steuer_id_ok, "01234567890"),  # a leading 0
    (ids.pesel_ok, "44151401359"),  # month 15
    (ids.aadhaar_ok, "1341 2341 2346"),  # starts with 1
    (ids.nino_ok, "QQ 12 34 56 C"),  # a prefix never allotted
    (ids.pan_ok, "ABCDE1234F"),  # a holder type that is none
    (ids.nik_ok, "3273016613790003"),  # month 13
    (ids.passport_ok, "VERIFIED"),  # a word in capitals
])
def test_shapes_the_issuers_never_give_fail(check: Callable[[str], bool], number: str) -> None:
    assert not check(number)


@pytest.mark.parametrize(("text", "value"), [
    ("Steuerliche Identifikationsnummer: 86 095 742 719\nMobil: ...", "86 095 742 719"),
    ("Document type: PESEL\nDocument number: 44051401359\nAddress: ul. Polna 3",
     "44051401359"),
    ("TC kimlik no: 10000000146, cep telefonu sonra", "10000000146"),
    ('{"tipo":"EMAIL","cpf_titular":"11144477735","valor":"1289.90"}', "11144477735"),
    ("CPF do titular: 111.444.777-35", "111.444.777-35"),
    ("a nombre de Lucía Fernández, DNI 12345678Z, domicilio", "12345678Z"),
    ("NIE X1234567L", "X1234567L"),
    ('book(args={"nome":"Mario","codice_fiscale":"RSSMRA85T10A562S"})', "RSSMRA85T10A562S"),
    ("Klant: BSN is 111222333 als dat nodig is", "111222333"),
    ('"id_proof_type":"AADHAAR","id_proof_no":"234123412346"', "234123412346"),
    ("एजेंट: आधार नंबर?\nग्राहक: 2341 2341 2346", "2341 2341 2346"),
    ("एजेंट: और PAN?\nग्राहक: ABCPE1234F", "ABCPE1234F"),
    ("マイナンバーは1234 5678 9018です。", "1234 5678 9018"),
    ("본인확인용 주민등록번호 900101-1234567", "900101-1234567"),
    ('{"customer": {"rrn": "9001011234567"}}', "9001011234567"),
    ('{"nama": "Dewi", "nik": "3273016608790003"}', "3273016608790003"),
    ("身份证号码：11010519491231002X", "11010519491231002X"),
    ("NI number: AB 12 34 56 C", "AB 12 34 56 C"),
    ("  5 SSR DOCS TK HK1 P/TUR/U32224244/TUR/16JUN79/M/10SEP29/YILDIRIM/EMRE",
     "U32224244"),
    ("Passport No. CHRJ7MGL0, issued 2019", "CHRJ7MGL0"),
    ("Altersverifikation mit Personalausweis CFC1LL2FT ok", "CFC1LL2FT"),
    ("Müşteri bilgisi TC: 10000000146, cep", "10000000146"),
    ("PAX 1: MUELLER/ANNA MS  PPT JXTWWCT37 DE", "JXTWWCT37"),
    ("N° de sécurité sociale : 1 84 12 76 451 089 46", "1 84 12 76 451 089 46"),
    ("Rijksregisternummer: 85.07.30-033.28", "85.07.30-033.28"),
    ("Cliente: mi RUT es 12.345.678-5, necesito la boleta", "12.345.678-5"),
    ("Personnummer: 811218-9876", "811218-9876"),
    ("N\u00ba afiliaci\u00f3n SS: 28/48216505/73\nIBAN abono: ...", "28/48216505/73"),
    ('{"trabajador": "R. Ortega", "nuss": "296950881591"}', "296950881591"),
    ('{"numero_securite_sociale":"1 84 12 76 451 089 46"}', "1 84 12 76 451 089 46"),
    ('{"name": "jumin", "value": "900101-1234567"}', "900101-1234567"),
    ("documento=12345678Z&telefono=", "12345678Z"),
    ("Social insurance number (12): 371 663 378\nBox 14", "371 663 378"),
    ('<UidData uid="234123412346"><Poi name="R"/></UidData>', "234123412346"),
    ('{"document_type":"NATIONAL_ID","document_number":"44051401359"}', "44051401359"),
    ("GET /verify?id_no=11010519491231002X&name=x", "11010519491231002X"),
    ("Talep 377301586: 10000000146 TC numaralı müşteri", "10000000146"),
    ("https://portal.example.in/pan/verify?pan=ABCPE1234F&dob=1989-04-12", "ABCPE1234F"),
    # a question, an acknowledgement, then the answer: three lines after the name
    ("Kunde: Ich möchte meine Steuer-ID hinterlegen.\nAgent: Gerne, bitte nennen Sie sie.\n"
     "Kunde: 86095742719", "86095742719"),
])
def test_the_number_is_found_after_its_name(text: str, value: str) -> None:
    found = [f for f in scan(text) if f.kind == "national_id"]
    assert [f.value for f in found] == [value]
    assert value not in Redactor().redact_text(text, {})


@pytest.mark.parametrize("text", [
    "PESEL 44051401358",  # the check fails: a typo or another number
    "order 44051401359 shipped",  # no document named
    "discord message_id=110105194912310021 in #general",  # 18 digits, no name
    "passport.authenticate('jwt', { session: false })",
    "npm i passport@0.7.0 passport-jwt@4.0.1",
    "passport: VERIFIED",
    "cpf validation failed for field cpf (empty)",
    "nie mogę się zalogować od 2024 roku",  # Polish: "I cannot log in"
    "bsn lookup took 12345 ms",
    "Faut-il le passeport pour la Corse ? Billet réservé, référence KX8P3M2.",
    "document_number: 7465903292 (invoice)",  # no country's check takes it
    # a generic name inside another's (a PESEL-valid number after each)
    "order_id_no=44051401359",
    "invoice_document_number: 44051401359",
    "tax_id_type=vat 44051401359",
    '"billingProvider": {"npi": "1210120464", "taxId": "64-3819009"}',  # a US employer's id
    # a test case's number, a ticket's and an invoice's (each passing some country's check)
    "TC 57672946624 passed in 12ms",
    "ticket id number 230756608 escalated to L2",
    "the invoice document number is 5107141806507, download it from the portal",
])
def test_a_look_alike_stays(text: str) -> None:
    assert Redactor().redact_text(text, {}) == text


@pytest.mark.parametrize(("text", "value"), [
    ("lead_id,name,pan,email\n104672178,Priya Nair,ABCPE1234F,x", "ABCPE1234F"),
    ("id;imie;nazwisko;pesel\n7731;Magdalena;Nowak;44051401359", "44051401359"),
    ("kunde_id,name,steuer_id,tel\n100482,Jonas Weber,86095742719,x", "86095742719"),
    ("用户ID,身份证号,手机\n6491468876,11010519491231002X,x", "11010519491231002X"),
    ("name,nationality,passport\nSofia Romano,IT,YB4951017", "YB4951017"),
])
def test_a_table_column_named_for_the_document(text: str, value: str) -> None:
    assert value not in Redactor().redact_text(text, {})


# The second round of countries (their checks against stdnum: test_national_id_checks.py).
@pytest.mark.parametrize(("text", "value"), [
    ("Customer SIN: 298 259 797, please update the payroll record", "298 259 797"),
    ("Numéro d'assurance sociale (NAS) : 190-748-335", "190-748-335"),
    ("Patient NHS No: 9434765919 admitted to ward 7", "9434765919"),
    ('{"patient": {"nhs_number": "943 476 5919", "gp": "Dr Shah"}}', "943 476 5919"),
    ("My TFN is 123 456 782 if you need it for the super fund", "123 456 782"),
    ("Medicare card 2123 45670 1, expiry 11/27", "2123 45670 1"),
    ("Agent: NRIC please?\nCustomer: S1234567D", "S1234567D"),
    ("FIN: F1234567N (work pass)", "F1234567N"),
    ("HKID A123456(3) verified at branch", "A123456(3)"),
    ("SA ID number: 8001015009087", "8001015009087"),
    ("ITIN 912-70-1234 on the W-7", "912-70-1234"),
    ("Asiakkaan henkilötunnus on 131052-308T", "131052-308T"),
    ("Fødselsnummer: 01010750160", "01010750160"),
    ("CPR-nummer: 070761-4285", "070761-4285"),
    ("เลขประจำตัวประชาชน 1-1017-00230-70-8", "1-1017-00230-70-8"),
    ("Factura a nombre de Juan Pérez, CUIT 20-12345678-6", "20-12345678-6"),
    ("מספר תעודת זהות: 000000018", "000000018"),
    ("Client: CNP 1800101420010, adresa Str. Lunga 3", "1800101420010"),
    ("My PPS number is 1234567T", "1234567T"),
    ("IRD number 49-091-850 for the tax return", "49-091-850"),
    ('{"curp": "GOMA850101HDFRRN00", "nombre": "Ana"}', "GOMA850101HDFRRN00"),
    ("Solicitante GOMA850101HDFRRN00 registrado", "GOMA850101HDFRRN00"),  # its own shape
    ('{"document_type":"NATIONAL_ID","document_number":"8001015009087"}', "8001015009087"),
    # corpus TC's forms: keys, inflections, other scripts' abbreviations, a bare "ID"
    ('{"social_insurance_number": "298-259-797"}', "298-259-797"),
    ("payroll lookup?sin=298259797&year=2023", "298259797"),
    ('{"tfn":"123456782","state":"VIC"}', "123456782"),
    ("Henkilötunnukseni on 131052-308T, voitteko", "131052-308T"),
    ('{"cnp": "1800101420010", "nume": "Ionescu"}', "1800101420010"),
    ("cpr nr 070761 4285 til tandlægen", "070761 4285"),
    ("Personnummer: 01010750160. Ring meg", "01010750160"),
    ("ת.ז. 000000018", "000000018"),
    ("btl.lookup tz=000000018 status=found", "000000018"),
    ('{"uinfin": {"value": "S1234567D"}}', "S1234567D"),
    ("the number on my ID card is A123456 (3), do I include it", "A123456 (3)"),
    ("C.U.I.T./C.U.I.L.: 20-12.345.678-6", "20-12.345.678-6"),
    ("PPSN 1234567 T for the child benefit", "1234567 T"),
    ("taxprep submit tin=912701234 form=1040", "912701234"),
    ("here's my ID nr for the lease: 8001015009087", "8001015009087"),
    ("Identification No. 1 1017 00230 70 8   Religion: Buddhism", "1 1017 00230 70 8"),
    ("curp: goma850101hdfrrn00", "goma850101hdfrrn00"),
    ('{"taxpayer":{"tin":"86095742719","country":"DE"}}', "86095742719"),
    ("No IC saya 831025-01-2239, akaun KWSP", "831025-01-2239"),  # Malaysia's MyKad
    # shapes of their own, anywhere: an NRIC and a henkilötunnus with a check letter
    ("T0123456G,Tan Wei Ming,Tampines", "T0123456G"),
    ("131052-308T;Virtanen;Aino", "131052-308T"),
])
def test_more_countries_are_found_after_their_names(text: str, value: str) -> None:
    found = [f for f in scan(text) if f.kind == "national_id"]
    assert [f.value for f in found] == [value]
    assert value not in Redactor().redact_text(text, {})


@pytest.mark.parametrize("text", [
    "sin embargo 298 259 797 filas se perdieron",  # Spanish "however"
    "the third 123-456-789 step failed",  # "ird" inside a word
    "pip list shows 12 apps 1234567T build",
    "biscuit 20-12345678-6 pack",
    "TFN: 123 456 781 (a typo)",  # the check fails
    "CPR certified 2019-2023, renewal due",
    "tax id 298259797",  # nine digits under a generic name: a US employer's
    "ticket id number 9434765919 escalated",
    "Proveedor: Distribuidora del Sur S.A., CUIT 30-71234567-1",  # a company's: public
    "S1234567A is the SKU",  # an NRIC's shape, its check letter wrong
    "build 131052-308X finished",  # a henkilötunnus's shape, its check letter wrong
    "ID 1234567890123 not found",  # 13 digits after "ID", no South African id's date
    "tz=Europe/Berlin offset=3600",
    "IC 831399-01-2239 part",  # a MyKad's shape, no such day
])
def test_more_look_alikes_stay(text: str) -> None:
    assert Redactor().redact_text(text, {}) == text


@pytest.mark.parametrize(("text", "value"), [
    ("name,nhs_number,ward\nAmelia Jones,9434765919,7", "9434765919"),
    ("employee,social_insurance_number,dept\nLuc Tremblay,298259797,ops", "298259797"),
    ("nombre,curp\nAna,GOMA850101HDFRRN00", "GOMA850101HDFRRN00"),
])
def test_a_table_column_named_for_a_second_round_document(text: str, value: str) -> None:
    assert value not in Redactor().redact_text(text, {})


@pytest.mark.parametrize("text", [
    "lead_id,name,pan_masked\n104672178,Priya Nair,XXXXX1234X",  # a fact about it
    "id;pesel_verified;count\n7731;true;44051401359",
])
def test_a_column_about_the_document_stays(text: str) -> None:
    assert Redactor().redact_text(text, {}) == text


@pytest.mark.parametrize("text", [
    "Sendungsnummer: 006799580836 (DHL Paket), Zustellung 18.06.2024",
    "INFO order 79493733804 shipped via DHL, tracking 004847227167",
    "tracking,carrier\n006987681586,DHL",
])
def test_a_parcels_tracking_number_is_no_phone(text: str) -> None:
    assert Redactor().redact_text(text, {}) == text


@pytest.mark.parametrize("text", [
    # Kubernetes' client: the word after "Secret:" is the API's field, not a value
    "E1104 11:02:44.019 1 reflector.go:138] failed to list *v1.Secret: resourceVersion "
    "110025403945 is too old",
    "device serial 387-464-6867 (model TX-496) reported battery 87%",
])
def test_operations_shapes_stay(text: str) -> None:
    assert Redactor().redact_text(text, {}) == text
