"""The round of corpora CC (network gear's configs and backups), CD (device management), CE
(hiring), CF (web frameworks' debug output), CG (immigration and visas) and CH (ticketing,
gyms and clubs): each shape they found left, redacted in process, and the lines near them
that must stay."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # network gear: Cisco's type 7 in a diff, after an FTP client's password and NTP's key;
    # type 6 and Huawei's ciphers; PAN-OS' encrypted values and API key; FortiOS' ENC
    # (not an admin's SH2 hash); communities and passwords in a diff and a command log; a
    # WLC's and MikroTik's PSKs; Extreme's, a cable modem's, LibreNMS' and FortiOS'
    # communities; an OLT's ONT password; Oxidized's router.db and RANCID's .cloginrc
    ("-  tacacs-server key 7 0314722D20297501033F4F4F15085B29527B7C6E2A3C74671D052C\n",
     "0314722D20297501033F4F4F15085B29527B7C6E2A3C74671D052C"),
    ("ip ftp username cfgbackup\nip ftp password 7 107A1B180B041B1F58577A1207",
     "107A1B180B041B1F58577A1207"),
    ("tacacs-server key 7 \"123E5D2E1A3E0251271F2C2B3D010C1C082E5303\"",
     "123E5D2E1A3E0251271F2C2B3D010C1C082E5303"),
    ("+  ntp authentication-key 1 md5 121F102206095C0E3E7D7D 7\n", "121F102206095C0E3E7D7D"),
    ("what's the cleartext of this cisco type 7: 013414055502120A781C7F1A ? I need it",
     "013414055502120A781C7F1A"),
    ("radius server NPS01\n key 6 eaR[RSPcD^XZW]MbFAIEdJC[SQMdSD`[bYCGWUZJUPYQZRVaE\n!",
     "eaR[RSPcD^XZW]MbFAIEdJC[SQMdSD`[bYCGWUZJUPYQZRVaE"),
    (" hwtacacs-server shared-key cipher %^%#=k1IMIl*g{Z@<]Zcd5]5jFoCuS1vRny8B7qGkfI?4t%^%#\n",
     "=k1IMIl*g{Z@<]Zcd5]5jFoCuS1vRny8B7qGkfI?4t"),
    ("radius-server host 172.16.47.3 key ciphertext AQBapXby85XC+A++4oU+SHBpzMTqqZ2O5TJ4MlTt vrf",
     "AQBapXby85XC+A++4oU+SHBpzMTqqZ2O5TJ4MlTt"),
    ("<pre-shared-key>\n  <key>-AQ==82CvDB0rZYRjKVKE725IEU/34sk=66IUn4+OXchB72+ebMNWLJ</key>",
     "82CvDB0rZYRjKVKE725IEU"),
    ("<response status = 'success'><result><key>LUFRPT1anF4NWhRSkViVE1XQUtINXBqM0hB</key>",
     "LUFRPT1anF4NWhRSkViVE1XQUtINXBqM0hB"),
    ("        set ddns-password ENC MvJszAab7cq3JYD9PEaqY823J0IXFQoaHWKMr7OZampCZbx460kcfbvG\n",
     "MvJszAab7cq3JYD9PEaqY823J0IXFQoaHWKMr7OZampCZbx460kcfbvG"),
    ("-snmp-server community zbx-ITgDIb5r RO 10\n+snmp-server community Pinguin420ro RO 10",
     "zbx-ITgDIb5r"),
    ("%PARSER-5-CFGLOG_LOGGEDCMD: User:tkrueger  logged command:username helpdesk privilege 5 "
     "secret Basalt!985\n", "Basalt!985"),
    (" security wpa psk set-key ascii 0 Wn33zd0hlIW2B0fNWnfBcjT7Dp0tbOog\n",
     "Wn33zd0hlIW2B0fNWnfBcjT7Dp0tbOog"),
    ("(Cisco Controller) >config wlan security wpa akm psk set-key ascii Kaffee Kaffee tiger 12\n"
     "(Cisco Controller) >config wlan enable 1", "Kaffee Kaffee tiger"),
    ("name=corp-psk wpa2-pre-shared-key=gO6MEKKY9lX4TJxXmexFEf\\\n    VE2NwyKG9L92HDvURU",
     "VE2NwyKG9L92HDvURU"),
    ("configure snmpv3 add community GJdA_Sh6jhgHP name Delta039RO user v1v2c_ro", "Delta039RO"),
    ("\tSnmpMibObject docsDevNmAccessCommunity.1 String \"Sommer601ro\";", "Sommer601ro"),
    ("$config['snmp']['community'] = array('KEVcEs4LPuO12ALJ0Q', '47Zp6C038Lc5f');",
     "47Zp6C038Lc5f"),
    ("config system snmp community\n    edit 1\n        set name \"obs-Bi6RtcCV\"\n",
     "obs-Bi6RtcCV"),
    (" ont add 1 65 password-auth \"9484982903\" always-on omci", "9484982903"),
    ("# name:model:username:password:enable\nham1-tor15:junos:oxidized:Fiber053Whm:Lantern93ZZ",
     "Lantern93ZZ"),
    ("add user * rancid\nadd password *.noc.lan Pinguin22Kv Kraken9084Nq", "Kraken9084Nq"),
    ("vars:\n  enable: \"Ladd3r#1173\"\n  remove_secret: false", "Ladd3r#1173"),
    ("par2-bgw19#license smart register idtoken ODkJbEw18UsHS87Cfi1PDzrQghNmTv-MTYYgfAH force",
     "ODkJbEw18UsHS87Cfi1PDzrQghNmTv-MTYYgfAH"),
    ('{"jsonrpc": "2.0", "auth": "a48279391b0a54ff30941719abd312a4", "id": 78}',
     "a48279391b0a54ff30941719abd312a4"),
    ('dashboard = meraki.DashboardAPI("e191d9f572a9a949416fc2300552ee3edcc91b58")',
     "e191d9f572a9a949416fc2300552ee3edcc91b58"),
    # ... told in chats: "RADIUS-Schlüssel ... ist", "la clave es", "comunidad SNMP", Russian,
    # Japanese; "Mot de passe :" and "Kennwort:" before letters and digits; a sticker's
    # "WLAN-Netzwerkschlüssel (WPA2):"; OpenWrt's uci show; a Telekom PPPoE login
    ("Anja: und der RADIUS-Schlüssel für die neuen APs ist d4_DLbw=?U0FUxY3XcvvJRJ!=@",
     "d4_DLbw=?U0FUxY3XcvvJRJ!=@"),
    ("[14:40] Marta: la clave es z&uK2p*&9HGb_-4i00t (la cambiamos el lunes)",
     "z&uK2p*&9HGb_-4i00t"),
    ("[14:41] Marta: y la comunidad SNMP para el Zabbix: HHICxyXIjqurgI", "HHICxyXIjqurgI"),
    ("Ключ IPsec до филиала: cOoCI9NuHk1eYP2aKZqu. Пароль от Wi-Fi в переговорке — 4363567733.",
     "4363567733"),
    ("対向ルータ: 89.64.65.188\n事前共有鍵は「2FkSpOe58xEdIUap29」です。", "2FkSpOe58xEdIUap29"),
    ("Identifiant PPPoE : fti/cclryk8\nMot de passe : 2gz5k9w7\nAdresse IP fixe", "2gz5k9w7"),
    ("WPS-PIN: 70889024\nFRITZ!Box-Kennwort: zrbo2368\nCWMP-Account", "zrbo2368"),
    ("WLAN-Netzwerkschlüssel (WPA2): 7841 9864 2607 5026 0936\nWPS-PIN", "2607 5026 0936"),
    ("network.wan.proto='pppoe'\nnetwork.wan.password='00833648'\nnetwork.wan.ipv6='auto'",
     "00833648"),
    ("network.wan.username='438666162187639497782374#0001@t-online.de'",
     "438666162187639497782374#0001@t-online.de"),
    # ... and addresses: a /31 and a /127 of a point-to-point link, nfdump's address.port,
    # strongSwan's remote address after its "...", a Received header's (IPv6:...)
    ("Our side IPv4: 99.77.211.38/31\nOur side IPv6: 2401:4900:40b0:6e07:f2b9:80c6:c3f:536e/127",
     "2401:4900:40b0:6e07:f2b9:80c6:c3f:536e"),
    ("Our side IPv4: 99.77.211.38/31\n", "99.77.211.38"),
    ("181.754 UDP     2c0f:f248:24b:2d1f:da5a::dde0.28577 -> fe80::9343:bf93.53",
     "2c0f:f248:24b:2d1f:da5a::dde0"),
    ("IKE_SA established between 172.29.178.93[vpn.corp.ch]...12.11.20.53[marco@corp.ch]",
     "12.11.20.53"),
    ("Received: from [192.168.247.59] (IPv6:2405:201:e2::e6:321d) by smtp.web.de",
     "2405:201:e2::e6:321d"),
    # device management: SCEP's challenge, FileVault's key, Activation Lock's bypass code,
    # BitLocker's key wrapped, Workspace ONE's tenant code, NanoMDM's key, Apple's push
    # magic, a PKCS#12 and a shared secret as data, <SecurityKey>, a Temporary Access Pass,
    # enrolment codes, LAPS in PowerShell and in German, a CSV's password column
    ('\\"challenge\\": \\"vlpy9qyaZBh2qyaXc7mZ\\", \\"subject\\"', "vlpy9qyaZBh2qyaXc7mZ"),
    ('  "personalRecoveryKey": "9G6M-B24G-SNA7-CQWM-SGYU-5VGH",', "9G6M-B24G-SNA7-CQWM-SGYU-5VGH"),
    ("Activation Lock Bypass Code: 33N93-QW2PW-MVCK4-XG45L-ARYDD-9W\n",
     "33N93-QW2PW-MVCK4-XG45L-ARYDD-9W"),
    ("tech2: ok here it is, copy carefully it wrapped\n135927-629145-011660-682715-\n"
     "130801-033495-046629-216799\n", "130801-033495-046629-216799"),
    ("aw-tenant-code: abpEa55KAb7HVQCUpJOkMAAO05A67KKe\n", "abpEa55KAb7HVQCUpJOkMAAO05A67KKe"),
    ("serve -server-url=https://mdm.corp.no -api-key bb1DIr6akIlgEyQP32nq0UlZUFDDMdToEK6YArWt",
     "bb1DIr6akIlgEyQP32nq0UlZUFDDMdToEK6YArWt"),
    ("\t<key>PushMagic</key>\n\t<string>522E2D4F-BF1B-4601-94C7-E4D968D427BF</string>",
     "522E2D4F-BF1B-4601-94C7-E4D968D427BF"),
    ("<string>corp-wifi-client.p12</string>\n<key>PayloadContent</key>\n<data>\n"
     "l7mCxDLdno6b+D5hGpDoQPYW7/ZltkNTIlWPqHHzr1qsFysLgnae\n</data>",
     "l7mCxDLdno6b+D5hGpDoQPYW7/ZltkNTIlWPqHHzr1qsFysLgnae"),
    ("<key>SharedSecret</key>\n<data>cG96QjRJS0lkRU9nOU9IWnM1TXhIR3JVRmZiV2Y1VzM=</data>",
     "cG96QjRJS0lkRU9nOU9IWnM1TXhIR3JVRmZiV2Y1VzM="),
    ("<SecurityType>WPA2-Personal</SecurityType>\n<SecurityKey>marble-velvet-ember8</SecurityKey>",
     "marble-velvet-ember8"),
    ('body="Your Temporary Access Pass for your new laptop is JA+UU5KCOsDn6u5J (valid 8h)"',
     "JA+UU5KCOsDn6u5J"),
    ("Your Duo enrollment code is 6637-2023.\n", "6637-2023"),
    ("enroll with Group ID PINECREST and one-time token MIU2H2. Expires in 24h.", "MIU2H2"),
    ("Account             : Administrator\nPassword            : =}r6w%dMwOTc&04\n",
     "=}r6w%dMwOTc&04"),
    ("LAPS-Kennwort für DESKTOP-O8XGSQ5: #K2PfQ+c8qeocZ4vf%]QJBw! (läuft nach Nutzung ab)",
     "#K2PfQ+c8qeocZ4vf%]QJBw!"),
    ("First Name [Required],Email Address [Required],Password [Required],Org Unit Path\n"
     "Tom,tom@corp.de,thistle-quartz-nebula-ripple,/Students\nAna,ana@corp.de,Falcon@2023,/S",
     "thistle-quartz-nebula-ripple"),
    # hiring: an I-9's document number, a dashed A-number, an alien_number, a share code, a
    # scheduling link, LinkedIn's JSESSIONID, a tax id under tax_identifier and a CSV's
    # tax_id column, a BRP's key, numbered backup codes under a note, "Ref." kept apart
    ("List A document: Foreign passport\nDocument number: PAY591374\nIssuing authority: Brazil",
     "PAY591374"),
    ("USCIS A-Number: A-577-475-359\n", "A-577-475-359"),
    ("case_create status=TNC alien_number=A232091665 doc_type=I-766", "A232091665"),
    ("Share code provided by candidate: UMB NHC ZK9\n", "UMB NHC ZK9"),
    ("url=https://app.goodtime.io/schedule/neMB9R7Dx1h0lTtZg5_jbcu54Tj4Be7g expires_in=7d",
     "neMB9R7Dx1h0lTtZg5_jbcu54Tj4Be7g"),
    ('LINKEDIN_COOKIE="li_at=AQEDARh9; JSESSIONID=\\"ajax:4562774592459104150\\""',
     "ajax:4562774592459104150"),
    ('"bank_iban": "DE56100700003649743735", "tax_identifier": "OM857757C", "start"', "OM857757C"),
    ("employee_id;first_name;tax_id;tax_class\n8300;Katharina;93133056875;5\n", "93133056875"),
    ("status transition holder_nino=\"RT 95 94 28 B\" brp_no=ZR3501332 route=SKILLED",
     "ZR3501332"),
    ("Greenhouse – backup codes for recruiting-shared@ account\n(keep these safe!)\n\n"
     "1. kcsi8-2jera\n2. mam6r-gt6ef\n", "mam6r-gt6ef"),
    # web frameworks: Symfony's and Laravel's variables, Werkzeug's PIN, PHP_AUTH_PW, SignalR's
    # id, securecookie's session, PHP's session id, Rails' params
    ('  APP_SECRET       n/a               "8241cdd47fd909c000557f10941b0de7"',
     "8241cdd47fd909c000557f10941b0de7"),
    ('DB_PASSWORD\t"lantern-battery-staple-orbit"\nMAIL_MAILER\t"smtp"',
     "lantern-battery-staple-orbit"),
    (' * Debugger is active!\n * Debugger PIN: 194-857-551\n', "194-857-551"),
    ('  ["PHP_AUTH_PW"]=>\n  string(11) "Winter2025$"\n', "Winter2025$"),
    ("GET https://live.bank.com/hubs/notifications?id=rJy85I-4c6PjG4j-H2nQVZ&access_token=eyJ",
     "rJy85I-4c6PjG4j-H2nQVZ"),
    ('cookie "portal-session"=MTc5fYOfuVj7N_3bi52t4gC85LH5bpWGOR9ogwag rejected: securecookie',
     "MTc5fYOfuVj7N_3bi52t4gC85LH5bpWGOR9ogwag"),
    ("session_start(): Session data file is not created by your uid "
     "(sid 83meri0if5s28k8caifmq0slkr)",
     "83meri0if5s28k8caifmq0slkr"),
    ('Parameters: {"application"=>{"social_security_number"=>"304545090", "income"=>"2250"}}',
     "304545090"),
    ('"cc_num"=>"[FILTERED]", "cc_cvc"=>"168", "cc_exp"=>"10/27"', "168"),
    ("Task notifications.tasks.send_otp[4195fe96-a05e] raised unexpected: X\n"
     "args: ['m@gmail.com', '+447572599493', '358181'] kwargs: {'channel': 'sms'}", "358181"),
    # immigration: an eAT's number, a passport after Arabic's "his passport" and under
    # pp_num, a passport in a list of documents, a French CNI in parentheses, a Russian code
    # after words, a phone after "called back on" and after a signature's "T:", a session
    # cookie by its record's name
    ("Nummer des elektronischen Aufenthaltstitels: Y2R3V7WH3. Meine Telefonnummer", "Y2R3V7WH3"),
    ("اكتب لي خطاب دعوة لزيارة أخي. رقم جواز سفره A86571533 ورقم هاتفه", "A86571533"),
    ("DEBUG applicant.validate pp_num=M6737322 step=review ok=true", "M6737322"),
    ('"documents": [{"type": "P", "number": "N22972443", "nationality": "ITA"}]', "N22972443"),
    ("merci d'indiquer le numéro de votre carte d'identité («QLUSEF4KY») et", "QLUSEF4KY"),
    ("Код подтверждения для записи в визовый центр: 869622. Никому не сообщайте этот код.",
     "869622"),
    ("Call note: paid by Amex, called back on 761 070 977. Receipt emailed.", "761 070 977"),
    ("--\nSenior Paralegal | T: 710 133 563", "710 133 563"),
    ('"session": {"cookie_name": "connect.sid", "value": "YVE6P0ROLmIkTEJKYHVJbmNNMkdtUXR5"}',
     "YVE6P0ROLmIkTEJKYHVJbmNNMkdtUXR5"),
    ("invite_link sent, NI_Number__c\": \"PC438915A\", \"Visa_Route__c\"", "PC438915A"),
    # ticketing and gyms: a card's code "on the back", a climbing wall's Zugangscode, a
    # locker's code
    ("Card is 4781 8762 0122 7972, expiry 06/28, the 3 digits on the back are 056. Best",
     "056"),
    ('"body": "Dein Zugangscode für die Boulderhalle heute: 313480"', "313480"),
    ("locker-bank B2 locker=233 action=SET_CODE code=9606 member=94581", "9606"),
])
def test_found_in_process(text: str, value: str) -> None:
    assert value not in _redact(text), _redact(text)


@pytest.mark.parametrize("text", [
    # a BGP community (an AS's number and a value) under "set community"; a span's hex id
    # holding "2fa" before a counter; a reference's middle read as a Czech birth number; an
    # empty PHP array under a passphrases' key; an OData annotation; a webhook's placeholder
    # path; a serial in a product key's shape; PKCE's code challenge; a fixture's zeroed
    # A-number; a bulleted mask; "Ref." before a number
    "route-map TRANSIT-OUT permit 10\n set community 64810:259 additive\n",
    "trace_id=f141d7dec186e9fe span_id=8e2fabba2bfbaf21 received=15098473 dropped=0",
    "申请编号 FRPA/513123/6583/81，签证费 ¥1,050 已缴纳。",
    "$conf['client_passphrases'] = array(); // filled by puppet",
    '{"rootCertificate@odata.bind": "https://graph.microsoft.com/beta/x"}',
    "SLACK_WEBHOOK=https://hooks.slack.com/services/XXXX/XXXX/XXXX",
    "serial A1B2-C3D4-E5F6-A7B8-C9D0-E1F2 registered",
    "pkce: verifier stored, challenge=7sGrRAAwN5bty18Td6jQzrJ4llJ9T59Qyxy-MyBGuKs method=S256",
    'fixtures:\n  - passport: "XXXXXXXXX"\n    a_number: "A000000000"',
    '{"stripe": {"secret_key": "sk_live_\\u2022\\u2022\\u2022\\u2022\\u2022\\u2022"}}',
    "Ref. 731 777 9183 – requisition batch import (rows 24–260)",
])
def test_stays(text: str) -> None:
    assert _redact(text) == text
