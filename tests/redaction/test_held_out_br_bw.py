"""The round of corpora BR (remote support tools), BS (account recovery), BT (consumer genetics
and fertility clinics), BU (auction houses), BV (CRM and sales tools) and BW (small businesses
in Italy, Spain and Portugal): each shape they found left or wrongly changed, redacted or kept
in process."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # remote support tools: TeamViewer's and AnyDesk's passwords on their command lines, an ID
    # with its password after a slash, Chrome Remote Desktop's PIN prompt, its access code and
    # Google's authorization code, Quick Assist's code, a join code, a BitLocker recovery key
    ("& $tv setpassword Jpphq%*&np92*Nh@", "Jpphq%*&np92*Nh@"),
    ("  503  sudo teamviewer passwd 'IfV@dS49dUpB3e'", "IfV@dS49dUpB3e"),
    ("# anydesk --set-password _unattended_access kb*t~_4v^Yc*", "kb*t~_4v^Yc*"),
    ("Old lady can't print. TV 378 442 830 / 8vuimkso — she's on the phone", "8vuimkso"),
    ("Enter a PIN of at least six digits: 096732\nEnter the same PIN again: 096732", "096732"),
    ("grandpa: ok the chrome thing says code 1518 2606 7188", "1518 2606 7188"),
    ('start-host --code="4/0A0_d9Pi9vL6mcgyOEPh0xqqw9gZW40YnfAadq1Q0QxpZj2cuaC2iKCoaXdG2x0piiS-'
     'wjHd" --name=$(hostname)', "4/0A0_d9Pi9vL6mcgyOEPh0xqqw9gZW40YnfAadq1Q0QxpZj2"),
    ("Mamá: hija ya abrí lo de Asistencia rápida, me sale el código 9Z34ZF", "9Z34ZF"),
    ("I gave them a Quick Assist code (44KFE8). They had control", "44KFE8"),
    ('"result": {"join_code": "083299", "expires_in": 900}', "083299"),
    ("please open https://help.example-it.com, enter the code 359093 and click Join", "359093"),
    ("Read recovery key to user: 294177-976237-966465-957449-645824-134766-091026-650393.",
     "294177-976237-966465-957449-645824-134766-091026-650393"),
    ("Authorization: AD 1463776791760780:1701989374:ydaVG0zREpLH3Jx0WBLvvTHpV9Y=",
     "ydaVG0zREpLH3Jx0WBLvvTHpV9Y="),
    ("Site VPN\nUser: fernwartung / hafen289", "hafen289"),
    ("Hasło aplikacji Google: xxuu edgb kkoo bifr. Klient poinformowany.", "xxuu edgb kkoo bifr"),
    ("RustDesk で接続。一時パスワード fcehh7 を電話で確認。", "fcehh7"),
    ("远程协助记录：临时密码 mb462e。用户手机已登记", "mb462e"),
    ("パートナーID：1 179 916 315\nパスワード：eknlqidq", "eknlqidq"),
    # account recovery: codes received, told and listed, a reset's GraphQL call and Cognito's
    # flag, reset tokens as cache keys, revoked sessions, a password change's log
    ("17:16 Cliente: hola, me llegó el código 771273 pero dice que no es válido", "771273"),
    ("Seu código de recuperação é: K5VPCS\nDigite-o em até 10 minutos.", "K5VPCS"),
    ("Your account recovery code is: KKGKZT\nEnter it within 10 minutes.", "KKGKZT"),
    ("Notfallcode: FC4T-NCXA-JL2H\nBitte ausgedruckt im Tresor aufbewahren.", "FC4T-NCXA-JL2H"),
    ('{"event.action": "mfa.reset.approved", "mfa.recovery_code_used": "udze-bm7z"}',
     "udze-bm7z"),
    ("Streamly Backup-Codes\nBewahre diese Codes sicher auf. Jeder Code kann nur einmal verwendet"
     " werden.\n(k.tobias@example.de)\n  4f654-c7518\n  8e6d3-3f541\n\nErstellt am 25.07.2024",
     "8e6d3-3f541"),
    ('{"operationName": "CompletePasswordReset", "variables": {"email": "x", "code": "561243",'
     ' "newPassword": "x"}}', "561243"),
    ("aws cognito-idp confirm-forgot-password --confirmation-code 863216 --password 'x'",
     "863216"),
    ("127.0.0.1:6379> GET reset:Oy87rlprXuoC8iQE_hdS93MhgZMwJupl", "Oy87rlprXuoC8iQE_hdS93MhgZ"),
    ("  revoked session sess_nAEgYztokD1qoX13LzRzJyAd last_seen=2024-07-11T23:05:30.951Z",
     "sess_nAEgYztokD1qoX13LzRzJyAd"),
    ("  revoked session e1720184bc783031e0ba9c09106bc9cc last_seen=2024-07-11T23:04:15.232Z",
     "e1720184bc783031e0ba9c09106bc9cc"),
    ("INFO AccountService - password change for user_id=239557 old='Nimbus2011.' "
     "new='Sparrow2005!' result=OK", "Sparrow2005!"),
    ("INFO AccountService - password change for user_id=239557 old='Nimbus2011.' "
     "new='Sparrow2005!' result=OK", "Nimbus2011."),
    ('DEBUG mfa.RecoveryCodeService user_id=452813 generated codes=["dhe3-8ajh", "6090 4116"]',
     "6090 4116"),
    (">>> u.set_password(\"cactus lantern walnut river59\")", "cactus lantern walnut river59"),
    ("form=ImmutableMultiDict([('email', 'x'), ('password', 'Lantern2009$'), ('remember', 'on')])",
     "Lantern2009$"),
    ("  last_refresh_token = ZgHvs5qzpBmBfs0thcWJ9QMD9oY5J2fqK6F6VXCtyIKuXnOtpLoiXhCRxM1oHZ1o",
     "ZgHvs5qzpBmBfs0thcWJ9QMD9oY5J2fqK6F6VXCtyIKuXnOtpLoiXhCRxM1oHZ1o"),
    # reset and results links in other languages
    ("Haz clic aquí: https://mi.clinica.example.es/restablecer/f7a9acbc9053bdf60a4973a4814dcda5"
     "b8cfd35b", "f7a9acbc9053bdf60a4973a4814dcda5b8cfd35b"),
    ("https://resultats.labo.example.fr/cr?acces=3sw3vokoytzxt72ecc4r84vse7l08ssb",
     "3sw3vokoytzxt72ecc4r84vse7l08ssb"),
    # security answers noted in Spanish, Italian, Portuguese and German, and after "answer given"
    ("Nota: el cliente respondió la pregunta de seguridad con «Captain». Coincide.", "Captain"),
    ("domanda di sicurezza superata, risposta \"Biscuit\". Reset inviato.", "Biscuit"),
    ("domanda di sicurezza home banking 'Nome del primo animale domestico' -> Lola", "Lola"),
    ("pergunta de segurança 'Nome do primeiro animal de estimação': Briciola", "Briciola"),
    ("hat die Sicherheitsfrage beantwortet. Antwort: „Captain“ – stimmt überein.", "Captain"),
    ("Verified via security question (first car): answer given \"Grandma Rose\" — matches.",
     "Grandma Rose"),
    # escrow's release code; a gift card's claim code in a sheet's column
    ("give the seller's agent this release code: LUOX-4DVR-4PS2", "LUOX-4DVR-4PS2"),
    ("Store,Card,Claim code,Amount\nApple,4328******,VAVP8NQLNQRV6VX8,$500\n"
     "Apple,0681******,7KL2THE5DKTJ377Q,$500", "VAVP8NQLNQRV6VX8"),
    # Iberian and Italian small business: tax numbers in e-invoices, NAF and NISS columns,
    # Portugal's mobiles, tax portals' secrets, a bank's codes
    ("<TaxIdentification>\n  <TaxIdentificationNumber>71655157Z</TaxIdentificationNumber>",
     "71655157Z"),
    ("<Customer>\n  <CustomerTaxID>377760331</CustomerTaxID>", "377760331"),
    ('nombre,dni_nie,naf,iban\n"Iván Romero",Z1478629X,281406911073,ES1501281911850599022688',
     "281406911073"),
    ("Nome\tNIF\tNISS\tTelemóvel\nRita Costa\t296556556\t23964918239\t929 778 886",
     "23964918239"),
    ("Nome\tNIF\tNISS\tTelemóvel\nRita Costa\t296556556\t23964918239\t929 778 886",
     "929 778 886"),
    ("MB WAY: Recebeu 8222,01 EUR de HELENA RIBEIRO (924 104 670). Mensagem: 'Fatura 298'",
     "924 104 670"),
    ("ou por MB WAY: enviámos um pedido para o número 917 619 529.", "917 619 529"),
    ("Contatti: 361 4497037 / russo.martina@example.it", "361 4497037"),
    ("Pour toute question, le secrétariat est joignable au 0736169799.", "0736169799"),
    ("Client : M. Alain Roux — N° national 95.12.15-015.62", "95.12.15-015.62"),
    ("Credenziali Fisconline cliente X\nPassword: Verano35$\nPIN: 6744180810", "6744180810"),
    ("12/10/2024, 14:26 - Carlos: Me ha llegado el PIN de Cl@ve: L9D", "L9D"),
    ("Nos dicta el número de referencia de Renta WEB: LNRNAR", "LNRNAR"),
    ("nº de adesão 95202568, código multicanal 482673", "482673"),
    ("Nuno: a matriz pede as posições B3, F7 e H2: 486 483 585", "486 483 585"),
    ("- TOTP-Seed (im Tresor, nur zur Not): `FWCYGVQ5JKIFYWAJCQKON5LE3F7MB26C`",
     "FWCYGVQ5JKIFYWAJCQKON5LE3F7MB26C"),
])
def test_the_round_s_shapes_are_redacted(text: str, value: str) -> None:
    assert value not in _redact(text)


@pytest.mark.parametrize("text", [
    # a usage line's and PowerShell's arguments after --set-password, a script that computes a
    # password, a chat command, a vault's item, a scheme's name before a placeholder
    "--set-password [profile]   read password from stdin and set it for unattended access",
    '& "C:\\Program Files (x86)\\AnyDesk\\AnyDesk.exe" --set-password ([Runtime.InteropServices.'
    "Marshal]::PtrToStringAuto($b))",
    "$rustdesk_pw = (-join ((65..90) + (97..122) + (48..57) | Get-Random -Count 16))",
    "a7d3b90 feat: /setpassword for claim vaults (#214)",
    'Wachtwoord voor onbeheerde toegang staat in de kluis (item "KLANT-441"). Tijd: 15 min.',
    "Authorization: Zoho-oauthtoken {access_token}",
    # a request's reference, a log's next field, an invoice's recipient code, a Multibanco
    # reference, a session's key in a cache, a security question that is only named
    "Your recovery request reference is 3925 5851 6231 4280. Keep this for your records.",
    "INFO パスワード再設定リクエスト user_id=486441dd-3a8a-4a97-b2a1-805e16f5d16c 送信先=a***",
    "FATTURA N. 105/2024 del 24/06/2024\nCodice destinatario: 2282XQ9",
    "Pode pagar por Multibanco (Entidade 27818, Referência 964 828 312, Valor 9166,92 €)",
    '127.0.0.1:6379> TTL session:f3206415-59f4-4a60-9b0c-2b55d3a3b1aa',
    "La pregunta de seguridad es obligatoria.",
    "User: admin / Operator",
])
def test_the_round_s_look_alikes_are_kept(text: str) -> None:
    assert _redact(text) == text
