"""The round of corpora OC (web hosting and registrars), OD (home care agencies), OE (storage,
parking and tolls), OF (dental and allied health practices), OG (game servers) and OH
(academic publishing): each shape they found left, redacted in process, and the lines near
them that must stay."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # passwords with brackets, braces and angles: to the closing quote, or to the line's end
    ('"user": "deploy",\n   "password": "W<=lvO@uvEWGI+0e]mx"', "W<=lvO@uvEWGI+0e]mx"),
    ("$db_password = 'E9hb]@oPyKL{';", "E9hb]@oPyKL{"),
    ('[client]\nuser=root\npassword="D<nw=K0)xOLf&k"', "D<nw=K0)xOLf&k"),
    ("user=da_admin\npasswd=oxmw%^<<8*+wFz^", "oxmw%^<<8*+wFz^"),
    # a domain's transfer code, in EPP's XML and in mail
    ("<domain:authInfo>\n  <domain:pw>smakwb-gbtamr-08</domain:pw>", "smakwb-gbtamr-08"),
    ("- cPanel user: greenlea\n- EPP code: hPir2ofRS0is\n", "hPir2ofRS0is"),
    ("here is the authorization code (EPP code) for mendeztiles.eu:\n\n    GiH7NsKI%n4i\n\n",
     "GiH7NsKI%n4i"),
    ("Olá! Segue o código EPP do domínio northside-travel.co.za: j~KV$<Eu$n341H — pode",
     "j~KV$<Eu$n341H"),
    ("me podéis confirmar si el código de transferencia de x.se es eh%81CBf7dmZKAdw? El",
     "eh%81CBf7dmZKAdw"),
    ("Auth code supplied: deilfz-timolt-94\nApproved: YES", "deilfz-timolt-94"),
    # cPanel, WHM, GoDaddy, WHMCS, Plesk, ZeroSSL, Imunify360
    ('"POST /cpsess9736912514/execute/Email/add_pop HTTP/1.1" 200', "cpsess9736912514"),
    ("Authorization: whm root:SO4YGC8S9E2R6WR9VYUR9C5QE68QUMZ5",
     "SO4YGC8S9E2R6WR9VYUR9C5QE68QUMZ5"),
    ('-H "Authorization: sso-key VNeDLaKwMOw7_WGzK7cQ6McEIWQrf9vqiTI:dqgjTxXMEXAXTTmdbSwFzr"',
     "dqgjTxXMEXAXTTmdbSwFzr"),
    ("$cc_encryption_hash = 'ynCPLHvFgHDXf7xCqdKFcPPZunNEZOpj8rtHfdBu0QvAZGN3xITn7EsH';",
     "ynCPLHvFgHDXf7xCqdKFcPPZunNEZOpj8rtHfdBu0QvAZGN3xITn7EsH"),
    ("https://s54.example.net:8443/enterprise/rsession_init.php?PLESKSESSID=5c29710de2b5ad6cc16"
     "8772b367846c2", "5c29710de2b5ad6cc168772b367846c2"),
    ("--eab-kid vjxA5_89MMA1T0Q6AKb0Ea --eab-hmac-key JP14rCqeuGNVic2YNq1Pw4OLIkM5BrOUvR3tFy80",
     "JP14rCqeuGNVic2YNq1Pw4OLIkM5BrOUvR3tFy80"),
    ("imunify360-agent register IM360-C6ON5RUVUGSOKS12E4YS9PVW", "IM360-C6ON5RUVUGSOKS12E4YS9PVW"),
    ("Successful login for x (ID: 81) from 10.1.1.1 in session mtzbg018es1ivxtfpqp843vtro",
     "mtzbg018es1ivxtfpqp843vtro"),
    # key safes, lockboxes and padlocks in English, Dutch, German, Polish and Japanese
    ("keybox 3197", "3197"),
    ("FYI the son changed the lockbox to 4639 and the alarm code is 8584.", "4639"),
    ("Medicatie zit in een kluisje in de keukenkast (cijferslot 7736)", "7736"),
    ("mevr. Peeters, sleutelkastje 2488, daarna", "2488"),
    ("佐藤様宅、キーボックスの番号が変わりました→8633", "8633"),
    ("6/11 田中様 玄関キ一ボックス 1971", "1971"),
    ("09:32 Arrived. KS code 7206 not working", "7206"),
    ("Entry: keypad on front door 81887", "81887"),
    ("Barrier B stuck twice, used manual override code 82058", "82058"),
    ("Bonjour, mon code confidentiel c'est 7156", "7156"),
    # security answers: by the caller, on the line under the question, after a bracketed one
    ("Security question: What was the name of your first pet?\nAnswer given by caller: "
     "Tottenham", "Tottenham"),
    ("Security question: Name of your first pet?\nAnswer: Kruimel", "Kruimel"),
    ("Verified with security answer (first pet): 'Biscuit'", "Biscuit"),
    ("Verified DOB. Security question (first pet) answered 'Mrs Finnegan'", "Mrs Finnegan"),
    # codes and passwords in prose: Dutch recovery codes, an Italian password changed, a
    # password that would be, a certificate's passphrase, lists of backup codes
    ("Haar 2FA-herstelcode was N0F9-9A7N-6630.", "N0F9-9A7N-6630"),
    ("ho cambiato la password in NzsHwOy3OY902OFqYy5 ieri", "NzsHwOy3OY902OFqYy5"),
    ("If I did the password would be Tussock2018@", "Tussock2018@"),
    ("fac_8003629900011234.p12, passphrase Retina2022!", "Retina2022!"),
    ("key below, passphrase is OHH47ZmbukQL!", "OHH47ZmbukQL!"),
    ("Alpaka Hosting backup codes\nKeep these somewhere safe. Each code can be used once.\n\n"
     "o72482tmyf\n6723-9573\nb3dkh-tm9x2\n", "o72482tmyf"),
    # Wi-Fi keys under a heading and after a network's name and a slash
    ("GUEST WI-FI\nNetwork: UB-Gast\nKey: thistle-granite-43", "thistle-granite-43"),
    ("職員用 SSID: himawari-staff / ZDyGudAFvAWvkBo2", "ZDyGudAFvAWvkBo2"),
    ("wifi for the tablet is DelgadoHome / bc8465hbn", "bc8465hbn"),
    # care and health numbers: DVA, NDIS, KVNR after Vers.-Nr. and in eGK's XML, NISS, a
    # state's licence, a Medicaid id, a dental or vision plan's member id
    ("Medicare: 2282 11723 3  IRN 2\nDVA file no: VX548461", "VX548461"),
    ("Re: Mr Brett Campbell, DOB 04/11/1947, DVA Gold Card NQ551523", "NQ551523"),
    ("NDIS SERVICE AGREEMENT\nParticipant: Liam O'Connor   NDIS number: 438534813", "438534813"),
    ("Pflegebedürftige/r: Heinz Müller, Vers.-Nr. W084354578", "W084354578"),
    ('<P g="Gertrud" f="Hoffmann" b="19340314" egk="H020345572"/>', "H020345572"),
    ("Bénéficiaire: Bakker Lotte   NISS: 69.07.27-724.61", "69.07.27-724.61"),
    ("MacCredit application - ID provided: NSW licence 76745270", "76745270"),
    ('{"dob": "1941-03-22", "medicaid_id": "ZP45081U"}', "ZP45081U"),
    ("EyeMed VISION CARE\nMember: CHLOE NGUYEN\nMember ID: 122733160", "122733160"),
    ("Customer: my PESEL is 002 522 269 20 and the parcel", "002 522 269 20"),
    ("INSERT INTO clients (id, medicaid_id, entry_code) VALUES (771093, '129101861971', '3280');",
     "3280"),
    ("UnitID,Name,Unit,GateCode,Size\n1500,Marcus,A318,98478,10x20\n1402,Dani,A264,33238,10x15",
     "98478"),
    # game servers: RCON and Steam passwords, a chat's login and register, a GSLT, a FiveM
    # convar, Twitch's token, a Discord gift link
    ("+sv_setsteamaccount BFD6 +rcon_password Mirage#Rtk2024 +map de_dust2", "Mirage#Rtk2024"),
    ("RConPassword be-Rc0n-Cherno", "be-Rc0n-Cherno"),
    ("steampass='Kd9$steamcmd!v'", "Kd9$steamcmd!v"),
    ("2024-05-19 22:14:03 | hub | DarkoMC: login Darko2009!!", "Darko2009!!"),
    ("[Lobby] Guest_4471: register patinho123 patinho123", "patinho123"),
    ("Steam>login kestrel_dedicated Kd9$steamcmd!v", "Kd9$steamcmd!v"),
    ("Perspective Both\nOwner 76561198301928374\nGSLT EC564F625082E6CAC16753941A55D820",
     "EC564F625082E6CAC16753941A55D820"),
    ('set steam_webApiKey "433B94B0EB009D3B8DD3B13820BFAA00"', "433B94B0EB009D3B8DD3B13820BFAA00"),
    ('twitch:\n  channel: mirabuilds\n  oauth: "oauth:9axp5ufna4qua1dkw4ve2vwhezzmcj"',
     "9axp5ufna4qua1dkw4ve2vwhezzmcj"),
    ("happy birthday https://discord.gift/JOuYYDJqcLsxhUFr", "JOuYYDJqcLsxhUFr"),
    # practices: Cliniko's key, Open Dental's FHIR keys, a serialized option, rsyncd's
    # secrets, TeamViewer, Hik-Connect, a FHIR phone, an invite code, a Rails master key
    ("auth=Basic(MS0KL5mv1KBPCXSWunSHqh8FdavhR2UyBrO0gRVj8rBZK2xt-au3)",
     "MS0KL5mv1KBPCXSWunSHqh8FdavhR2UyBrO0gRVj8rBZK2xt-au3"),
    ('"value": "ODFHIR g2k5oPH06wL6TtU7/ev2dzycsdymaaqpa"', "ev2dzycsdymaaqpa"),
    ('a:3:{s:8:"username";s:5:"admin";s:7:"api_key";s:36:"A3A6DCA8-860B-E9AC-8A85-34FA386B05F3";}',
     "A3A6DCA8-860B-E9AC-8A85-34FA386B05F3"),
    ("root@od-replica:~# cat /etc/rsyncd.secrets\nodbackup:6KkpF4TFJ^6uF=", "6KkpF4TFJ^6uF="),
    (" - TeamViewer 1 442 881 903 / kl22in2o", "kl22in2o"),
    ("P2P (Hik-Connect) verification code: KRTIQR", "KRTIQR"),
    ('"telecom": [\n  {\n   "system": "phone",\n   "value": "0490495022"', "0490495022"),
    ("download the app and enter invite code ZQ28-6IAH to link", "ZQ28-6IAH"),
    ("$ cat config/master.key\ne36d62dbac35ddad793a2691a6c78235",
     "e36d62dbac35ddad793a2691a6c78235"),
    ("enter this key manually in your authenticator app:\nLWBO OM5W MUJU AMCY TQDX X7BP WNOQ HASZ",
     "LWBO OM5W MUJU AMCY TQDX X7BP WNOQ HASZ"),
    # publishing: ScholarOne's and Editorial Manager's login links, an ORCID callback's code,
    # EZproxy's cookie, a Perl config's dbpass; phones after Dutch "bel" and Indonesian "telp"
    ("Agreed: https://mc.manuscriptcentral.com/ijoc?URL_MASK=4bba07931db925306a0799dc6ebd718b",
     "4bba07931db925306a0799dc6ebd718b"),
    ("https://www.editorialmanager.com/pone/l.asp?i=1183452&l=0LLSD9D2", "0LLSD9D2"),
    ('"GET /orcid/callback?code=SzfWjG HTTP/1.1" 302', "SzfWjG"),
    ("Cookie: ezproxy=DZCI1d3BXHdnMb0", "DZCI1d3BXHdnMb0"),
    ("$c->{dbpass} = 'Citrine2020.';", "Citrine2020."),
    ("Kunt u een nieuwe afspraak inplannen? Bel me op 06 51 364 434", "06 51 364 434"),
    ("Kalau ada apa-apa telp saya di 081351992563", "081351992563"),
    ("Contact No.: 09105775081", "09105775081"),
])
def test_found_in_process(text: str, value: str) -> None:
    assert value not in _redact(text), _redact(text)


@pytest.mark.parametrize("text", [
    # one-way hashes and what stands in a password's place
    "UPDATE `tbladmins` SET `password` = '$2y$10$UWWotPtwYaDoZfoulxV4/RrUwpSRgqOhS0.2YH6/Ei87lHz"
    "gjGSid', `passwordhash` = '' WHERE `id` = 3;",
    "org.lockss.ui.users.lockss-u.password=SHA1:1a79a4d60de6718e8e5b326e338ae533",
    "userPassword: {SSHA}cTh1ZPq6rnZzjEbG6mn8wzYPMSPSKjB8",
    'password: "<your-password-1>"', 'DB_PASSWORD="${DB_PASS_1}"',
    "password = os.environ['DB_PASSWORD2']", '"password": "{{ .Values.pass1 }}"',
    "  password VARCHAR(255) NOT NULL,",
    "    wrong_password: '&cWrong password!'",
    "vault kv put secret/gameservers/rcon password=@/dev/stdin",
    "ORCID_CLIENT_SECRET=00000000-0000-0000-0000-000000000000",
    "Wachtwoorden slaan wij op als hash (Argon2id, 64 MB)",
    "mit deinem Passwort, deiner PIN oder deinem 2FA-Code.",
    # versions, public keys, part numbers, barcodes and serials in a number's shape
    "[2024-03-07 23:15:15 -0000]   Detected version '11.118.0.16'",
    "mendez-yoga.es. 3600 IN DNSKEY 257 3 13 BUMWFGogNyH1nR73TBnMWOZKm70Mras9RF6WTskjsNyPZ9Gxv41"
    "mDgeO78vgPW3VTBtX0YTj/avUEe8DNXFA5y==",
    "- PSU part no. 390-42-8175",
    "JAN 4987241153158 アテント 夜1枚安心パッド",
    "Tags: 004-12093847, 004-12093848",
    "NI number field: validate format AA 99 99 99 A",
    "AGB-code zorgaanbieder: 98001234",
    "Identifiant HAL : tel-04612877",
    # a payment's auth_code and a voucher; a login that is not a password; a passphrase's rule
    "2024-06-01 ret=y err=null auth_code=e6ad3decf0d22570e5ede2dc9214c6b5",
    "INFO: login successful2",
    "the passphrase is required",
    "the password would be required",
    "Security question: first pet?\nAnswer: see vault",
    "WiFi 6 / 802.11ax support",
    "(admin / user)",
])
def test_stays(text: str) -> None:
    assert _redact(text) == text
