"""The round of corpora CX (film and TV production), CY (cannabis dispensaries), CZ (salons
and spas), DI (Turkey and Azerbaijan), DJ (coworking spaces) and DK (Mexico and Colombia):
each shape they found left or wrongly changed, redacted or kept in process."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # film and TV: a gate's code with the keypad's star, a French digicode with letters, China's
    # mobiles on a call sheet, WebOTP's closing line, a database URL whose scheme lost its colon
    ("Tmrw unit base moved. Gate code *5768. Do NOT park on the verge", "5768"),
    ("Digicode du portail : 7B467. Merci de ne pas le diffuser.", "7B467"),
    ("\u5236\u7247\u4e3b\u4efb\uff1a\u738b\u78ca 196 9700 6853\n", "196 9700 6853"),
    ("Your StudioBinder login code: 7853\n\n@studiobinder.com #7853", "#7853"),
    ("Could not parse SQLAlchemy URL from string 'postgresql+psycopg2//budget:ember-maple-"
     "nickel98@10.40.2.15:5432/ledger'", "ember-maple-nickel98"),
    # cannabis: an alarm's code, a German passport after a question, a lower-case quoted
    # answer, a call back in German, a one-time password with its hyphen, a health card's
    # column
    ("3. Arm alarm: code 70711 then AWAY", "70711"),
    ("Can I buy with my German passport? Number is C01VFF0YP in case you need it.",
     "C01VFF0YP"),
    ("Verified identity with security question (first pet / hometown) answer \"blue heeler\".",
     "blue heeler"),
    ("Bitte ruf mich zur\u00fcck unter 040 647135 oder schreib mir.", "040 647135"),
    ("Apotheken-Shop: Ihr Einmal-Passwort lautet 217228", "217228"),
    ("client_no,last_name,health_card,email\nMC341113,Castillo,5288952053,c@telus.net\n"
     "MC896236,Kowalski,3253448827,k@gmail.com\n", "5288952053"),
    # salons: a Czech verification code
    ("V\u00e1\u0161 ov\u011b\u0159ovac\u00ed k\u00f3d je 8639. Plat\u00ed 5 minut.", "8639"),
    # Turkey and Azerbaijan: FİN in text and in a column, an identity card's series, Turkey's
    # identity card serial, a PIN "as" the new one, a password in Azerbaijani, PayTR's salt,
    # Turkish and Egyptian mobiles alone, a verification code, a TCKN after a lower-case "tc",
    # a security answer in Turkish, a session cookie under its capitals
    ("Abonent: Fidan Qas\u0131mova, F\u0130N 9RXMHP0, n\u00f6mr\u0259 050 935 74 47",
     "9RXMHP0"),
    ("\u041a\u043b\u0438\u0435\u043d\u0442: \u0424\u0418\u041d: 9618PBJ, \u0442\u0435\u043b"
     "\u0435\u0444\u043e\u043d", "9618PBJ"),
    ("msisdn,fin,seriya,operator_from,status\n994502220784,37DV9MJ,AZE41538194,Bakcell,DONE\n"
     "994775994050,28YAAHF,AA3648905,Bakcell,REJECTED", "AZE41538194"),
    ("msisdn,fin,seriya,operator_from,status\n994502220784,37DV9MJ,AZE41538194,Bakcell,DONE\n"
     "994775994050,28YAAHF,AA3648905,Bakcell,REJECTED", "28YAAHF"),
    ("\u015e\u0259xsiyy\u0259t v\u0259siq\u0259sinin seriya v\u0259 n\u00f6mr\u0259si: "
     "AA9908145\n", "AA9908145"),
    ("Kimlik Kart\u0131 Seri No: M61O79798\nDo\u011fum Tarihi: 14.12.1974", "M61O79798"),
    ("Abonent yeni PIN olaraq 5835 qoydu\u011funu dedi", "5835"),
    ("Nar: Kabinet\u0259 giri\u015f \u00fc\u00e7\u00fcn m\u00fcv\u0259qq\u0259ti \u015fifr"
     "\u0259niz: 7dsRhh", "7dsRhh"),
    ("    'merchant_salt' => 'KDhP0OWPm8bWa4py',", "KDhP0OWPm8bWa4py"),
    ("G\u00f6nderici: \u0130rem Y\u0131ld\u0131z / TCKN 71419674908 / 05309459414",
     "05309459414"),
    ("Garanti BBVA do\u011frulama kodunuz: 5418. Bu kodu kimseyle payla\u015fmay\u0131n.", "5418"),
    ("ad\u0131m Merve Y\u0131lmaz, tc 11518928274, tel 0559 554 00 03", "11518928274"),
    ("g\u00fcvenlik sorusu (Annenizin k\u0131zl\u0131k soyad\u0131) cevab\u0131 \"Ayten\" "
     "do\u011fru verildi.", "Ayten"),
    ('{"tckn": "95519197488", "TURKIYESESSIONID": "yQFFrgJgnS68cxScYsh2aOrexeufF0vW"}',
     "yQFFrgJgnS68cxScYsh2aOrexeufF0vW"),
    ("Kargo \u00e7\u0131k\u0131nca bu numaraya haber verir misiniz 05419786108",
     "05419786108"),
    # coworking: a voucher's code, a Swedish door code, recovery codes of mixed shapes below
    # two lines, a generated passphrase after "the password"
    ("hotspot[guest-portal] auth method=voucher code=45234-63167 mac=3b:37:0d:39:12:cc",
     "45234-63167"),
    ("Kontorshuset: din portkod denna m\u00e5nad \u00e4r 2673. Dela den inte.", "2673"),
    ("Member portal - recovery codes\nGenerated 2025-02-22\nKeep these somewhere safe.\n\n"
     "m3c9 q9zy\nzcad 77pf\ncarz4dqpz8\n", "carz4dqpz8"),
    ("pick the network \"Hive-Members\" and enter the password maple-sunset-ember. If it",
     "maple-sunset-ember"),
    # Mexico and Colombia: cédula and NSS columns, a NIT with its check digit and a person's
    # without it, WhatsApp's 521 numbers, DIAN's software PIN and certificate password,
    # Nequi's code and wallet, "al" before a mobile, a phone's index, "Tel. oficina:", an
    # answer after "respuesta"
    ("cedula,nombre,celular\n32547380,Luisa,3121991190\n98755733,Carlos,3000757540\n",
     "32547380"),
    ("| Empleado | NSS | Salario |\n|---|---|---|\n| Araceli | 80138773553 | $926.43 |\n"
     "| Yesenia | 16016840122 | $667.02 |", "80138773553"),
    ("Documento: C.C. 80.646.259 de Pereira\nNIT: 80646259-4\n", "80646259-4"),
    ("5. N\u00famero de Identificaci\u00f3n Tributaria (NIT): 43629769  6. DV: 2", "43629769"),
    ("webhook wa_inbound from=5217223995951 type=text", "5217223995951"),
    ("<softwarePin>96329</softwarePin>\n<certificado clave=\"Mqltzx8#DPN\"/>", "96329"),
    ("<softwarePin>96329</softwarePin>\n<certificado clave=\"Mqltzx8#DPN\"/>", "Mqltzx8#DPN"),
    ('"text": "<#> Nequi: usa 07179423 para confirmar tu operaci\u00f3n."', "07179423"),
    ("Vendedor: al Nequi 3175954479, o si prefiere por PSE", "3175954479"),
    ("parce ya le mand\u00e9 la plata al 3135823577, me pidi\u00f3 un c\u00f3digo",
     "3135823577"),
    ("44. Tel\u00e9fono 1: 3172660841\n46. Actividad principal: 5613", "3172660841"),
    ("Gerente comercial\nTel. oficina: (55) 9985 4100 | Cel/WhatsApp: +52 33 6532 8756",
     "(55) 9985 4100"),
    ("Se valida identidad con pregunta de seguridad (\"nombre de su primera mascota / "
     "escuela\"): respuesta \"Firulais\" \u2014 correcta.", "Firulais"),
])
def test_the_rounds_values_are_redacted(text: str, value: str) -> None:
    assert value not in _redact(text)


@pytest.mark.parametrize("text", [
    # a keys' list's names, a safety data sheet's formula id, a door's credential type, an
    # audit log's session record, Zoom's meeting ids, a URL with a doubled slash, a company's
    # NIT, a Russian ОГРН, an order number after "numaram", a URL's placeholder password, a
    # test's counting sample
    "existingSecret: notify-worker-secrets   # keys: twilioAuthToken, sendgridApiKey",
    "Section 8: Wear nitrile gloves (EN 374).\nUFI: OPM3-PYYI-1Z6J-D3TC\nRevision 4.2",
    '{"event": "door.unlock", "member_id": "58acac05", "credential": "mobile", "ms": 641}',
    '{"authenticationContext": {"externalSessionId": "102AbCdEfGhIjKlMnOpQrStUv"}}',
    "Jour fixe Einkauf \u2014 23.5.2024, 15:00 \u00b7 Zoom 195 9778 0046",
    "Starting soon: public livestream. Webinar ID 155 1934 1822 \u2014 open to everyone.",
    "see https://x.example.com//path:abcd@foo",
    "PSE \u2014 Comercio: EPM SERVICIOS P\u00daBLICOS \u2014 NIT 890.904.996-1 \u2014 CUS 37176",
    "\u041e\u0413\u0420\u041d 5215074396170\n\u0440/\u0441 40702810907618504109",
    "\u015eifremi unuttum. Sipari\u015f numaram 12712538759.",
    "DATABASE_URL=postgres://usuario:contrase\u00f1a@localhost:5432/tienda",
    '    assert not tckn_gecerli_mi("01234567890")  # 0 ile ba\u015flayamaz',
    "TC 57672946624 passed",
])
def test_the_rounds_clean_lines_are_kept(text: str) -> None:
    assert _redact(text) == text
