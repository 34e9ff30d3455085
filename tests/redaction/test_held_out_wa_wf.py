"""The rounds of corpora WA (legal, real estate and e-signature), WB (education and student
systems), WC (call centres and voice systems), WD (Windows and enterprise IT administration),
WE (gaming, social platforms and moderation), WF (research, surveys and clinical trials), WG
(retail and loyalty), WH (insurance claims), WI (charities and fundraising), WJ (media and
live streaming) and WK (utilities and energy): each shape they found left, redacted in
process, and the lines near them that must stay."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # access codes: an e-signature envelope's, a survey's in Dutch, a guest network's
    ("when prompted, enter the access code Cedar4716 (case sensitive).", "Cedar4716"),
    ("Werkt de link niet? Gebruik dan toegangscode DLP4YMB6A op de site.", "DLP4YMB6A"),
    ("Visitante: red CAMPUS-INVITADOS · Código de acceso: 8YS4-DG4X · Válido 24 h", "8YS4-DG4X"),
    ("Seu código de acesso é K7Q2M9", "K7Q2M9"),
    # a course's enrolment key, in Portuguese and Turkish
    ("Pessoal, a chave de inscrição da disciplina no Moodle é sL3fzTKuu — entrem até sexta.",
     "sL3fzTKuu"),
    ("Moodle ders kayıt anahtarı: UsTZOA9N", "UsTZOA9N"),
    # OAuth 1.0's signature in an LTI launch; a PHP config's dbpass
    ("oauth_nonce=c55adf2d164d&oauth_signature=hlYvTr8PxriSVxsgugQhDiMtF34%3D&roles=Learner",
     "hlYvTr8PxriSVxsgugQhDiMtF34"),
    ("$CFG->dbpass    = 'h@mburg134#';", "h@mburg134#"),
    # ldap.conf's bind password; an event named for a password, then its value
    ("BASE dc=campus,dc=edu\nBINDPW lagoon-sprocket-violet2", "lagoon-sprocket-violet2"),
    ('[proctor-agent] event=exam_password_entered value="harbor-maple-sprocket1" result=OK',
     "harbor-maple-sprocket1"),
    # an XML element its attribute names for a secret
    ('<lticm:property name="shared_secret">iqStoSYlQ1OepmBe</lticm:property>',
     "iqStoSYlQ1OepmBe"),
    # Windows: a Teams webhook, the registry's autologon, LAPS, unattend.xml, PowerShell
    ("https://x.webhook.office.com/webhookb2/afb03457-e504-4159-bc0a-9fe5bbe7e881@9a2102e4-ab95-"
     "4bf5-a1fe-f4d9c24f7c73/IncomingWebhook/35d6ebfac8eb5df49f428989b38e9bb5/07ff93ac-33f6-"
     "4a13-be65-74133303cbe0", "35d6ebfac8eb5df49f428989b38e9bb5"),
    ("    DefaultPassword    REG_SZ    Orchid-352\n", "Orchid-352"),
    ('reg add "HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon" /v '
     'DefaultPassword /t REG_SZ /d "Bramblewillow17@" /f', "Bramblewillow17@"),
    ("Name          ms-Mcs-AdmPwd\n----          -------------\nLT-FRA-82     BP9DXgdNB9Q3DPooeLC",
     "BP9DXgdNB9Q3DPooeLC"),
    ("<AutoLogon>\n    <Password>\n        <Value>larkspur-granite-anvil63</Value>",
     "larkspur-granite-anvil63"),
    ('ParameterBinding(ConvertTo-SecureString): name="String"; value="Fjordbasalt99?"',
     "Fjordbasalt99?"),
    ("-File C:\\Scripts\\Sync.ps1 -ApiKey ff8cc26b4c65d5a01856d977dddb5292 -Verbose",
     "ff8cc26b4c65d5a01856d977dddb5292"),
    ('"net.exe" use \\\\CM-FRA-185\\OSD$ /user:TESSIER\\svc_naa sprocket-paprika-willow16]LOG]',
     "sprocket-paprika-willow16"),
    ('"C:\\Program Files\\7-Zip\\7z.exe" a -tzip -pharbor-anvil-bramble52 -mem=AES256 x.zip',
     "harbor-anvil-bramble52"),
    ("ASP.NET_SessionId=cpgnc0tccypfbh1ccraochxs;+.ASPXAUTH=D21910BAEE9AD1FEEB23FD4AC9326070CC5C",
     "D21910BAEE9AD1FEEB23FD4AC9326070CC5C"),
    # game servers: a Source server's login token, AuthMe's commands, a Unity serial, a Steam
    # Guard code, a Discord bot's token
    ("sv_setsteamaccount FF56197B43ADB1068EC0FCE21330F562", "FF56197B43ADB1068EC0FCE21330F562"),
    ("[17:30:52] [Server thread/INFO]: moose issued server command: /changepassword "
     "YNBF5325enim% 3uA7Bhf^EKI-!6", "3uA7Bhf^EKI-!6"),
    ("UNITY_SERIAL=E3-BXWA-PPWO-U1XA-ZQ1E-PUGL", "E3-BXWA-PPWO-U1XA-ZQ1E-PUGL"),
    ("Here is the Steam Guard code you need to login to account vortex_fang32:\n\nNBDTK\n\nThis",
     "NBDTK"),
    ('login() called, token "MTAxMjk4MTU3NTk0MjUwMDU1MA.35LIms.bOs3IKbNA60TmrmtbmTEaAYfPPvMPtPpRKj'
     '3sk" (shard 0/1)', "bOs3IKbNA60TmrmtbmTEaAYfPPvMPtPpRKj3sk"),
    ('"sharedKey": "Fzrwj0Y3QIVCDezrdf9jJNBLEg6SuGs0"}', "Fzrwj0Y3QIVCDezrdf9jJNBLEg6SuGs0"),
    ('EncryptionKey="941f7418dfcf126f8fcb9eaeb4e030c5874f93cbbc08ba2e33b688df10b31dce")',
     "941f7418dfcf126f8fcb9eaeb4e030c5874f93cbbc08ba2e33b688df10b31dce"),
    # a key safe's and a lockbox's codes in a listing's notes
    ("Besichtigung: Schlüsseltresor rechts neben der Tür, Code 9882. Bei Problemen", "9882"),
    ("Supra not working, use combo box on hose bib, combo 8227. Call listing agent", "8227"),
    # Poland's account number whole, a MISMO loan file's SSN, ids in XML elements
    ("Kaucja zostanie zwrócona na rachunek bankowy nr 26249024329870585159301630.",
     "26249024329870585159301630"),
    ("<TaxpayerIdentifierValue>593399554</TaxpayerIdentifierValue>", "593399554"),
    ("<nif>240231775</nif>", "240231775"),
    ("<payee><name>Tyler Raman</name><tfn>767 715 342</tfn></payee>", "767 715 342"),
    ("provisto/a de D.N.I. número 72.386.408-A.", "72.386.408-A"),
    ('{"name": "张伟", "idNum": "440106197803113752"}', "440106197803113752"),
    ('<ItemData ItemOID="num_secu" Value="270067510772416"/>', "270067510772416"),
    # contact centres: a keyed PIN, a voice bot's SSN, callers' numbers
    ('msg="auth step" step=pin_entry dtmf=8184 match=true', "8184"),
    ('{"gather_pin": {"Digits": "4198", "FinishedOnKey": "#"}}', "4198"),
    ('-- Executing [s@ivr-auth:4] Read("PJSIP/t-1", "ACCTPIN,custom/enter-pin,4") in new stack\n'
     "    -- User entered '7216'", "7216"),
    ("VXML field 'ssn' filled: value=\"826951653\" confidence=1.0", "826951653"),
    ('{"SSN": {"value": {"originalValue": "x", "interpretedValue": "867096180"}}}', "867096180"),
    ("From: <sip:447791300370@71.4.249.206>;tag=4c839c03", "447791300370"),
    ("New Channel sofia/external/4915237286778@95.251.163.254:5060", "4915237286778"),
    ("CallerIDNum: 447373428601\nCallerIDName: GONZALEZ B", "447373428601"),
    ("<fromAddress>2162803582</fromAddress>", "2162803582"),
    # upper-case hex holding a CPF
    ("User-to-User: 616363743D35363939323934323B6370663D3539322E3439392E3631342D30353B6E6F6D653D"
     "43616D696C6C65;encoding=hex", "6370663D3539322E3439392E3631342D3035"),
    # tables headed by an id's or a caller's name
    ("SampleID\tDonorID\tIDCard\tContact\nSH-011523\tD7254\t330106195801281870\t-",
     "330106195801281870"),
    ("| Deelnemer | Rijksregisternr. |\n| SUBJ-1716 | 92.10.23-449.87 |", "92.10.23-449.87"),
    ("matricule;nom;num_secu\n88056;HADDAD;2 59 10 40 834 946 96", "2 59 10 40 834 946 96"),
    ("CALL ID,CAMPAIGN,ANI,SKILL\n965263637890,Inbound_Sales,4155787889,Billing_EN",
     "4155787889"),
    # the second round: a Steuer-ID after its law, a NIR after "N° sécu" and "N° SS", a
    # session token a log cut short, stream keys, an admin key, a password told in Italian
    # with more words, in Polish further on, in German after "lautet", in Portuguese
    ("Identifikationsnummer (§ 139b AO): 62 485 912 030 | Betrag", "62 485 912 030"),
    ("Bénéficiaire : Solène Berthier — N° sécu : 145116127470556 — tél", "145116127470556"),
    ("Patient : Julien Girard — N° SS : 1 85 05 75 402 373 31", "1 85 05 75 402 373 31"),
    ("Found credentials: SessionToken=NIaqwlltF88UCA2HLPTwuke2IKYn750MHKi9VEQ+QPCMpauZfwtS...",
     "NIaqwlltF88UCA2HLPTwuke2IKYn750MHKi9VEQ"),
    ("pour ce soir la clé de diffusion c'est hzbt-nkfg-sj60-i9x8-tr06 — ne la colle pas",
     "hzbt-nkfg-sj60-i9x8-tr06"),
    ('<Stream Name="Facebook Live" StreamKey="FB-788268516464671-0-JEM1JDaSgx40IWebbsflSUO57cDZ6'
     'SrV" Bitrate="4000"/>', "JEM1JDaSgx40IWebbsflSUO57cDZ6SrV"),
    ('{ appId: "V0N4ZNEE7E", adminKey: "9a67694fb83f0745f517f1f0cf3864ad" }',
     "9a67694fb83f0745f517f1f0cf3864ad"),
    ("La password del server FTP per i contributi è Mezcla!1044nw, utente: sport.",
     "Mezcla!1044nw"),
    ("Hasło do panelu e-BOK dla klienta 00559980 zresetowane przez konsultanta na: "
     "DQVX60!K29AzX02", "DQVX60!K29AzX02"),
    ("Das Installateur-Passwort für den Wechselrichter 7E56E15B lautet regen-lampe-tetto-12 – "
     "bitte", "regen-lampe-tetto-12"),
    ("Olá, a palavra-passe da conta de peritos no portal é duna-colibri-75. — por favor",
     "duna-colibri-75"),
    # an AWS secret told in prose, a meter's AES key in a table, DLMS's keys
    ("the rotated secret for the mdm-export IAM user is KqlUt71bGuFlUc4CI6jIovpuuji1FvA2cchp7quR "
     "- key id unchanged.", "KqlUt71bGuFlUc4CI6jIovpuuji1FvA2cchp7quR"),
    ("meter_id;manufacturer;medium;aes_key;install_date\n19751159;ITW;water;"
     "AA67E8F9F0A19CB25BD68E465EB771F6;21.03.2024", "AA67E8F9F0A19CB25BD68E465EB771F6"),
    ("security_policy=3\nGUEK=5CE42B9749175ED9B01BFFEFBD00C498\nGAK=62CE35CE35F11650581F53B996C51780",
     "62CE35CE35F11650581F53B996C51780"),
    # gate codes in Italian, German, French and Spanish; a callback number in German
    ("sostituzione contatore gas. Codice cancello 51419, citofono 'Ferrari'.", "51419"),
    ("Zugang: Hoftor Code 32818 + Raute, Zählerschrank im Keller", "32818"),
    ("Accès : portail code 3554A, digicode bât. C", "3554A"),
    ("revisión de contador de agua. Acceso garaje con código 6690#. Llamar al", "6690"),
    ("Herr Hartmann meldet Gasgeruch. Rückrufnummer 040 318688, Nachbarin", "040 318688"),
    # Wowza's publish.password, an IBAN form-encoded with "+"
    ("# Wowza conf/publish.password\n# username password\nteradek-cube Regie%9201dl\n",
     "Regie%9201dl"),
    ("GET /api/payee/validate?iban=DE53+6004+1490+1327+0690+89&claim=CC-574459540 200",
     "1490+1327+0690"),
    # a gift card's claim code; a router's plain-text password
    ("Amount: $50.00\nClaim code: 41AF-IF99PL-NSZQ\nRedeem at checkout", "41AF-IF99PL-NSZQ"),
    ('set system login user admin authentication plain-text-password "%+2nD^a*Egve7K"',
     "%+2nD^a*Egve7K"),
])
def test_found_in_process(text: str, value: str) -> None:
    assert value not in _redact(text), _redact(text)


@pytest.mark.parametrize("text", [
    # PowerShell's type name where a SecureString was, a Key Vault reference, when a password
    # was set, .NET's public key token, a version in a game server's status
    "Password            : System.Security.SecureString",
    '"SqlPassword": "@Microsoft.KeyVault(SecretUri=https://kv.vault.azure.net/secrets/sql/)"',
    "PasswordLastSet      : 9/28/2025",
    'processorArchitecture="amd64" publicKeyToken="31bf3856ad364e35" language="neutral"',
    "hostname: Kestrel Scrim Server\nversion : 1.38.2.2/13822 secure",
    # a Windows event's message reference under a name holding "Token"
    '<Data Name="ElevatedToken">%%1842</Data><Data Name="VirtualAccount">%%1843</Data>',
    # an access code's words without a code; a PIN step with no digits keyed
    "the access code for your account expires soon",
    'msg="auth step" step=pin_entry dtmf= match=false',
    # a key safe without a code, a registry value that is not a password
    "key safe by the bins, ask the vendor",
    "    ProductName    REG_SZ    Windows 10 Pro",
    # a masked stream key on a dashboard, an HLS playlist's key tag, a template's placeholder,
    # a claim's file reference and an air waybill's number in a phone's shape
    "Primary stream key: live_574002767_•••••••••••••••••••••••••••••• [Show] [Copy]",
    '#EXT-X-KEY:METHOD=AES-128,URI="https://keys.example/k1",IV=0x1234',
    "define('CIVICRM_SITE_KEY', '%%siteKey%%');",
    "Aktenzeichen 0151-0837-7931 (internes Schadenaktenzeichen, Altbestand)",
    "shipment of 10 boxes dry ice: AWB 095-86987595",
    "<AutoLogon>\n  <Password>\n    <Value>*SENSITIVE*DATA*DELETED*</Value>",
    # a public key's fingerprint under "ssh key", a till receipt's TSE signature, a till's
    # transaction number
    "ssh key: SHA256:gbYQ62RlC2bNAHs6vzg08d5mHd+poZRArtpn3kJpvl0 pos-deploy (ED25519)",
    "TSE-Signatur: CJ2sFKiZsqwU/0MYomTrW88JRjpyKt3O4DtAEJOZRtIFdN9OAjJjuiq1dVmBkMD29sw+bVAmI9MX"
    "YcHGrCPlyg==",
    "2025-04-28 21:06:48 S0563 T14 TXN 0067-03-537292",
])
def test_stays(text: str) -> None:
    assert _redact(text) == text
