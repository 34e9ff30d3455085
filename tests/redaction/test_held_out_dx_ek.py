"""The round of corpora DX (Peru, Ecuador, Bolivia, Venezuela, Paraguay and Uruguay), DY
(Central America and the Caribbean), DZ (the Levant and Iraq), EI (the Horn of Africa and
Sudan), EJ (Russia and Belarus) and EK (Ireland and the UK's nations): each shape they found
left or wrongly changed, redacted or kept in process."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # Central America and the Caribbean: El Salvador's DUI (its check) by name and in a
    # payroll column, Jamaica's TRN by name and column, Guatemala's DPI and NIT, Honduras's
    # DNI, Nicaragua's cédula in its shape and run together, Haiti's CIN and NIF, Costa Rica's
    # identification and DIMEX, Cuba's CI as a JSON key
    ("SOLICITUD\nDUI: 04476293-7\nNIT: homologado con DUI", "04476293-7"),
    ("empleado;dui;iban;monto_usd\nJos\u00e9 Mej\u00eda;02216956-1;x;1384.40\n"
     "Juan Morales;07935636-3;x;460.75", "07935636-3"),
    ("My TRN is 166-631-165 and my licence plate is 7310", "166-631-165"),
    ("| Employee | TRN | NIS | Mobile |\n|---|---|---|---|\n| Aaliyah Clarke | 167-428-486 | x"
     " | y |\n| Kerry Ramdass | 158-525-196 | x | y |", "158-525-196"),
    ("| No. | Colaborador | DPI | IBAN |\n|---|---|---|---|\n| 1 | Mayra | 1691530961703 | x |\n"
     "| 2 | Josu\u00e9 | 1823 84152 1411 | y |", "1823 84152 1411"),
    ("Contribuyente: Marvin Aguilar\nNIT: 3713552K\nCorreo", "3713552K"),
    ("Se valid\u00f3 identidad con DNI 0103 1978 76339 y n\u00famero Tigo", "0103 1978 76339"),
    ('{"cedula": "201-020764-5506H", "tienda": "Metrocentro"}', "201-020764-5506H"),
    ("nombre,cedula_ni,telefono\n\"Kevin\",2010804760652K,x\n\"Marvin\",2012110882043Y,y",
     "2012110882043Y"),
    ("NIF : 908-267-603-7\nCIN : 01-07-27-1995-12-63406\nAdresse", "01-07-27-1995-12-63406"),
    ("NIF : 908-267-603-7\nCIN : 01-07-27-1995-12-63406\nAdresse", "908-267-603-7"),
    ("Paciente: MEJ\u00cdA\nIdentificaci\u00f3n: 716790338\nTel\u00e9fono", "716790338"),
    ("Tipo de identificaci\u00f3n: DIMEX\nN\u00famero: 184557337133\n", "184557337133"),
    ('"beneficiario": {"nombre": "Yoandry", "ci": "61080111661", "movil": "x"}',
     "61080111661"),
    # the Andes: Ecuador's cédula and RUC (their checks) by name and as a JSON key, Venezuela's
    # cédula with and without its dots, Bolivia's CI, Paraguay's RUC (its check) and dotted CI,
    # a wallet's temporary PIN, a bank's "código ... para"
    ("Afiliado: Yolanda Zambrano, CI 2326768237. Consulta", "2326768237"),
    ("Le env\u00edo lo solicitado. Mi RUC es 0520254418001 (c\u00e9dula", "0520254418001"),
    ('{"doc_type": "CI", "doc_number": "0603678210", "ip": "x"}', "0603678210"),
    ("mi cedula es V10370935 y la clave es", "V10370935"),
    ("CLIENTE: s\u00ed, es el V-5.825.291, y mi tel\u00e9fono", "V-5.825.291"),
    ("Destinatario: Roxana Ticona (CI 5002040)\nCel.", "5002040"),
    ("RUC: 3365377-1\nClave de acceso Marangatu", "3365377-1"),
    ("Doc. nacional: 5.450.284\n", "5.450.284"),
    ("Para retirar usa el PIN temporal 0739. Ref: 8689342227.", "0739"),
    ('body="Interbank informa: c\u00f3digo 330509 para activar tu tarjeta"', "330509"),
    # the Levant and Iraq: Iraq's unified card, Kurdish's national card and mobile, Syria's
    # national number, a Palestinian's id, UNHCR's case numbers, Kurdish's code, Arabic's
    # "كلمة السر"
    ("\u0631\u0642\u0645 \u0627\u0644\u0628\u0637\u0627\u0642\u0629 \u0627\u0644\u0645\u0648"
     "\u062d\u062f\u0629: \u0661\u0668\u0666\u0664\u0669\u0661\u0660\u0666\u0669\u0666\u0660"
     "\u0664\n", "\u0661\u0668\u0666\u0664\u0669\u0661\u0660\u0666\u0669\u0666\u0660\u0664"),
    ("\u0698\u0645\u0627\u0631\u06d5\u06cc \u06a9\u0627\u0631\u062a\u06cc \u0646\u06cc\u0634"
     "\u062a\u0645\u0627\u0646\u06cc: 159938723987\n", "159938723987"),
    ("\u0698\u0645\u0627\u0631\u06d5\u06cc \u0645\u06c6\u0628\u0627\u06cc\u0644: 07901833333\n",
     "07901833333"),
    ("\u0627\u0644\u0631\u0642\u0645 \u0627\u0644\u0648\u0637\u0646\u064a \u0660\u0668\u0667"
     "\u0669\u0660\u0667\u0661\u0666\u0666\u0664\u0664\u060c \u0631\u0642\u0645",
     "\u0660\u0668\u0667\u0669\u0660\u0667\u0661\u0666\u0666\u0664\u0664"),
    ("\u062d\u0648\u0644\u062a \u0662\u0660\u0660 \u0634\u064a\u0643\u0644. \u0647\u0648\u064a"
     "\u062a\u064a \u0669\u0665\u0661\u0669\u0663\u0669\u0665\u0666\u0660\u060c",
     "\u0669\u0665\u0661\u0669\u0663\u0669\u0665\u0666\u0660"),
    ("Registration no.: LEB-14C75162\nPA: x", "LEB-14C75162"),
    ("\u06a9\u06c6\u062f\u06cc \u067e\u0634\u062a\u0695\u0627\u0633\u062a\u06a9\u0631\u062f"
     "\u0646\u06d5\u0648\u06d5 \u0667\u0669\u0669\u0666\u0662\u0668 \u0628\u06c6",
     "\u0667\u0669\u0669\u0666\u0662\u0668"),
    ("\u0643\u0644\u0645\u0629 \u0627\u0644\u0633\u0631: HiAWjh5AyU\n", "HiAWjh5AyU"),
    # the Horn of Africa and Sudan: Sudan's national number and a JSON's national_no,
    # Somalia's NIRA number and passport, Ethiopia's CBHI membership and TIN, Tigrinya's
    # passport, Somali's and Oromo's phone words, a password in brackets
    ("\u0627\u0644\u0631\u0642\u0645 \u0627\u0644\u0648\u0637\u0646\u064a: 19497739339\n",
     "19497739339"),
    ('{"sender_mobile": "x", "national_no": "26643228302", "amount": 10}', "26643228302"),
    ("Baasaboor No.: P44516387\nLambarka aqoonsiga (NIRA): 919453870097\n", "919453870097"),
    ("Baasaboor No.: P44516387\nLambarka aqoonsiga (NIRA): 919453870097\n", "P44516387"),
    ("Member: CBHI/AA/26/627739 (Addis Ababa)", "CBHI/AA/26/627739"),
    ("- TIN (\u130d\u1265\u122d \u12a8\u134b\u12ed \u1218\u1208\u12eb \u1241\u1325\u122d): "
     "0094336257\n", "0094336257"),
    ("\u1353\u1235\u1356\u122d\u1270\u12ed \u1241\u133d\u122a E2565933 \u12a3\u1265", "E2565933"),
    ("EVC Plus-kayga ayaa xanibmay. Lambarkaygu waa 252684574569.", "252684574569"),
    ("Lakkoofsa bilbilaa koo 0939256051.", "0939256051"),
    ("Furaha sirta ah (password): qnE26kEfwlP3\nQolka: 315", "qnE26kEfwlP3"),
    # Russia and Belarus: a passport's series and number in a bank's JSON, Belarusian's
    # "пашпарт", a residence permit, a security question's answer, an OTP service's code=, a
    # 1С payroll export's ИНН column (its header's "№")
    ('"doc": {"type": "PASSPORT_RF", "series_number": "9221 977924", "issued": "x"}',
     "9221 977924"),
    ("\u043f\u0430 \u0434\u0430\u0434\u0437\u0435\u043d\u044b\u0445 \u043f\u0430\u0448\u043f"
     "\u0430\u0440\u0442\u0430 BM2377738, \u0456\u0434", "BM2377738"),
    ("\u0412\u0438\u0434 \u043d\u0430 \u0436\u0438\u0442\u0435\u043b\u044c\u0441\u0442\u0432"
     "\u043e: 83 1212746\n", "83 1212746"),
    ("\u041a\u043e\u043d\u0442\u0440\u043e\u043b\u044c\u043d\u044b\u0439 \u0432\u043e\u043f"
     "\u0440\u043e\u0441: \u0414\u0435\u0432\u0438\u0447\u044c\u044f \u0444\u0430\u043c\u0438"
     "\u043b\u0438\u044f \u043c\u0430\u0442\u0435\u0440\u0438\n\u041e\u0442\u0432\u0435\u0442: "
     "\u0428\u0430\u0440\u0438\u043a\n", "\u0428\u0430\u0440\u0438\u043a"),
    ("sent OTP for my.mts.by login: msisdn=x code=4252 ttl=300s", "4252"),
    ("\u0422\u0430\u0431.\u2116;\u0424\u0418\u041e;\u0421\u041d\u0418\u041b\u0421;\u0418\u041d"
     "\u041d\n00911;\u041c\u043e\u0440\u043e\u0437\u043e\u0432\u0430;297-579-871 77;"
     "239148907634\n00912;\u041e\u0440\u043b\u043e\u0432;734-068-655 08;772904019154",
     "772904019154"),
    # Ireland and the UK's nations: Northern Ireland's H&C number by name and JSON key, a
    # one-time code "that I didn't ask for"
    ("Patient: MALLON, Conor   H&C No: 3278133889\nDOB", "3278133889"),
    ('{"name": "lookup_patient_appointments", "input": {"hc_number": "3844341854"}}',
     "3844341854"),
    ("also I got a text with code 851774 that I didn't ask for, sent to x", "851774"),
])
def test_the_rounds_values_are_redacted(text: str, value: str) -> None:
    assert value not in _redact(text)


@pytest.mark.parametrize("text", [
    # an e-invoice's access key and its number, a Paraguayan invoice's number, a Belarusian
    # payment's service code, a site's page after "at", an establishment's national number,
    # a Premises ID's PIN in brackets
    "Comprobante AUTORIZADO\nN\u00famero: 001-082-301788470\nClave de acceso: "
    "0787034632915631916431176225103692444000061824026\nAmbiente: PRODUCCI\u00d3N",
    "RUC: 80099639-9\nFactura: 001-741-7931236\nTotal Gs.: 120.259",
    "\u0423\u0441\u043b\u0443\u0433\u0430: \u0414\u0435\u0442\u0441\u043a\u0438\u0439 \u0441"
    "\u0430\u0434\n\u041a\u043e\u0434 \u0443\u0441\u043b\u0443\u0433\u0438: 6924620\n",
    "Royal Mail: Your parcel OS 4127 6737 8GB will be delivered today. Manage at "
    "royalmail.com/track (ref 327765)",
    "\u0627\u0644\u0631\u0642\u0645 \u0627\u0644\u0648\u0637\u0646\u064a \u0644\u0644\u0645"
    "\u0646\u0634\u0623\u0629: 200145678912\n",
    "Premises ID (PIN): 00KT4P7\nLocation: Ostrander Grain",
    # look-alikes of the new shapes: a company's RUC in Paraguay (80 million and up), a
    # version's "V" and digits, a ticket's "CI" pipeline number with a hash
    "DESPENSA SAN JORGE S.A.\nRUC: 80099639-9\nTimbrado N\u00b0: 88372122",
    "release V2.10.3 built by CI #4821",
])
def test_the_rounds_clean_lines_are_kept(text: str) -> None:
    assert _redact(text) == text
