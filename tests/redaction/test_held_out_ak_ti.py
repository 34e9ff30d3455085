"""The round of corpora AK (internet providers), AM (backups and storage), AN (mail servers),
SI (managed service providers), SJ (libraries, archives and museums) and TI (pensions): each
shape they found left or wrongly changed, redacted or kept in process."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # a library's SIP2 messages: the patron's PIN, the login's password, the patron's phone
    ("INPUT MSG: '9300CNbibliotheca1|COC0lophon2#|CPMAIN|AY0AZF181'", "C0lophon2#"),
    ("<- 6300120240405    123622          AOMAIN|AA26029105241854|AC|AD7554|BP1|BQ5|AY2AZEDC5",
     "7554"),
    ("64              00120240611    102211000000030000000000000000AOMAIN|AA23756237224035|"
     "AEHaverford, Maëlle|BLY|CQY|BHUSD|BV0.00|BF(608) 334-3067|AY2AZD008", "334-3067"),
    # EZproxy's log: the session where the common log format's ident is
    ('81.2.69.160 AHnnYWTynQtyvib jdelacroix [06/Feb/2024:13:29:21 -0800] "GET https://www-'
     'nature-com.ezproxy.westmere.edu/articles/x.pdf HTTP/1.1" 200 831557', "AHnnYWTynQtyvib"),
    # Backblaze B2's key id and application key, an S3-compatible store's access key id
    ("$ b2 account authorize 0070663d4a511a00000000074 K005QMthvg8m27Oz52J+e0URYKpfRzn",
     "0070663d4a511a00000000074"),
    ("$ b2 account authorize 0070663d4a511a00000000074 K005QMthvg8m27Oz52J+e0URYKpfRzn",
     "K005QMthvg8m27Oz52J+e0URYKpfRzn"),
    ("[b2-offsite]\ntype = b2\naccount = 0056051ddc8ed540000000003\n", "0056051ddc8ed540000000003"),
    ("[spaces]\ntype = s3\naccess_key_id = DO00IYZQJ37UWQIL3SYT\n", "DO00IYZQJ37UWQIL3SYT"),
    ("AWS_ACCESS_KEY_ID=WIO4UJE5SGZ278V65E54\n", "WIO4UJE5SGZ278V65E54"),
    # Alma's and IT Glue's keys, a search API's wskey, Koha's recovery link, PRTG's passhash
    ("alma-analytics-export --key l7xx1f062407bd8ecef4e670d262b1e23cc4 --out x.csv",
     "l7xx1f062407bd8ecef4e670d262b1e23cc4"),
    ("Add-ITGlueAPIKey -Api_Key 'ITG.70c947f0f5262500801ace983818fbb8.0hKIO6MSGYW_Ghj7VNElKfLRz9n"
     "VyIUUeP_fDDQd3NlVLi2ibaWHn76uJZh68IMA'", "ITG.70c947f0f5262500801ace983818fbb8"),
    ("https://api.europeana.eu/record/v2/search.json?wskey=rowgczstf&query=x", "rowgczstf"),
    ("https://opac.lib.example.net/cgi-bin/koha/opac-password-recovery.pl?uniqueKey=bw44PEeCU8HJ"
     "28IhOtYxpOJKu1ZIgRwZ", "bw44PEeCU8HJ28IhOtYxpOJKu1ZIgRwZ"),
    ("https://prtg.msp.net/api/table.json?username=bp-dashboard&passhash=8279793349", "8279793349"),
    # Synology's emergency codes, eight capitals each, some with no digit
    ("Emergency codes (each can be used once):\nVVUADM7X\nN6Z3QGCS\nLVQNRWBF\nFAIQYCIK",
     "LVQNRWBF"),
    # network gear: an SNMP community that is a word, FortiOS after its prompt, Huawei's RADIUS
    ("snmp-server community birchfvrcro RO 10\n", "birchfvrcro"),
    ("FGT60F-HQ (to-Branch2) # set psksecret CnpM3+FDVZZ!!7G9\n", "CnpM3+FDVZZ!!7G9"),
    (" radius-server shared-key-cipher simple 2q1erc!211\n", "2q1erc!211"),
    # a password's column of generated letters, a Wi-Fi key's column, backup verification
    # codes under a sentence
    ("serial,ssid,wifi_key,admin_password\nHWTC68E083EF,KBB-4FF1,Nebula-0369,ozOGzIUkWN\n"
     "HWTC3F3973B8,KBB-9CA1,Kestrel-2210,BeuGOo0Eki", "ozOGzIUkWN"),
    ("serial,ssid,wifi_key,admin_password\nHWTC68E083EF,KBB-4FF1,Nebula-0369,ozOGzIUkWN\n"
     "HWTC3F3973B8,KBB-9CA1,Kestrel-2210,BeuGOo0Eki", "Nebula-0369"),
    ("Backup verification codes for the super admin\nKeep them somewhere safe. Each code can "
     "only be used once.\n\n1. 1955 7534\n2. 8721 3638\n3. 4143 9317\n", "8721 3638"),
    # vendors' keys: Mailgun's, Spamhaus' DQS and Abusix's in a list's host name, MaxMind's
    ("Use this Mailgun key: 8591547d988eb9ee0b04cd0db8fe451c-f5aaa983-23031308 (EU)",
     "8591547d988eb9ee0b04cd0db8fe451c"),
    ('rbl = "9sbd2590r5u4hnufrw3mohq7zs.zen.dq.spamhaus.net";', "9sbd2590r5u4hnufrw3mohq7zs"),
    ("postscreen_dnsbl_sites = 82f4s1u4wehtvh3ts0lxcvtb6z3i58n9.combined.mail.abusix.zone*3",
     "82f4s1u4wehtvh3ts0lxcvtb6z3i58n9"),
    ("AccountID 498213\nLicenseKey rfClAt_qKDVa66pnNTt9RCNJy8saaG3GQHox\n",
     "rfClAt_qKDVa66pnNTt9RCNJy8saaG3GQHox"),
    ("tr_j1?customer_id=s2508679&requestor_id=dff9d425-d95e-43f6-99ce-3e77a95789d9&begin=2024",
     "dff9d425-d95e-43f6-99ce-3e77a95789d9"),
    # Washington's driving licence
    ("ID verified: WA DL WDLKA5AMOWPJ, exp 2027.", "WDLKA5AMOWPJ"),
    # mail servers' relay passwords, a Perl DBI connection, ldappasswd's new password,
    # Dovecot's LDAP dnpass, a session header
    ("smtp_sasl_password_maps = static:relay-erp:OLwnkhix39@ZI\n", "OLwnkhix39@ZI"),
    ('AuthInfo:smtp.gmail.com "U:smmsp" "I:relay@corp.net" "P:fpqh cljc dzrt rxsn" "M:PLAIN"',
     "fpqh cljc dzrt rxsn"),
    ("  client_send = : relay@corp.net : KVzrxjzb95@QW\n", "KVzrxjzb95@QW"),
    ("['DBI:mysql:database=amavisd;host=127.0.0.1', 'amavisd', 'Vera224winter&'],",
     "Vera224winter&"),
    ("DBI connect('database=koha_lib;host=db','koha_lib','tCkKQ34BexzRDW8xHIsdmX',...) failed",
     "tCkKQ34BexzRDW8xHIsdmX"),
    ("ldappasswd -x -D \"cn=admin\" -w $ADMINPW -s 'Dragon-kaffee-35' \"uid=lnavarro\"",
     "Dragon-kaffee-35"),
    ("dn = uid=dovecot,ou=sysaccounts\ndnpass = FeaQqzRRup#=KPMARw\n", "FeaQqzRRup#=KPMARw"),
    ("Headers: X-ArchivesSpace-Session=6ee62dd5a7618638bcdd0a13aa1830943f84ed9e7f2baf78d26c9730"
     "b2662a81, User-Agent=python", "6ee62dd5a7618638bcdd0a13aa1830943f84ed9e7f2baf78d26c9730"),
    # cloud-init's chpasswd list, AnyDesk's password piped in, Koha's system preferences
    ("chpasswd:\n  list: |\n    root:WillowClover#025\n  expire: false", "WillowClover#025"),
    ('cmd /c "echo gBbW-hqD9dP34 | `"$ad`" --set-password _full_access"', "gBbW-hqD9dP34"),
    ("INSERT INTO `systempreferences` VALUES ('OverDriveClientSecret','4WvNx558gKVXtHVa0eHEXwq3"
     "CZYReVMK',NULL,'Client key',NULL,'Free');", "4WvNx558gKVXtHVa0eHEXwq3CZYReVMK"),
    # broadband servers and gear: radcheck rows, chap-secrets, GenieACS, ONT registrations
    ("  ('fn-5723383', 'Cleartext-Password', ':=', 'ottmBcUL'),", "ottmBcUL"),
    ('# client\tserver\tsecret\t\t\tIP addresses\n"ftth0141165"\t*\t"ZAxKlinDnX"\t*\n',
     "ZAxKlinDnX"),
    ('"Password": {\n         "_value": "uM65Rark"\n        },', "uM65Rark"),
    ('declare("InternetGatewayDevice.ManagementServer.Password", {value: 1}, {value: '
     '"sGraFVn67OnTnh"});', "sGraFVn67OnTnh"),
    ("ont add 5 7 loid-auth K088827557 always-on password-auth 4629258462 omci", "4629258462"),
    ("  onu 21 type ZTEG-F660 pw 6900765750\n", "6900765750"),
    ("configure equipment ont interface 1/1/4/5/40 subslocid 6858506403 fec-up enable",
     "6858506403"),
    # backup tools' command lines
    ("iscsiadm -m node -T iqn.x --op=update -n node.session.auth.password -v 7ykXpMq1ymvRRz",
     "7ykXpMq1ymvRRz"),
    ("MONITOR ups@192.168.5.38 1 monuser XoQrlBM7h6GWMLZubC slave\n", "XoQrlBM7h6GWMLZubC"),
    ("$ rman target sys/21gZlKkguUlcOLmarkxh4@ORCLPDB1 catalog rcat/3xme9EtechqZhnlg8n1vE@RCAT",
     "3xme9EtechqZhnlg8n1vE"),
    ("$ rman target sys/21gZlKkguUlcOLmarkxh4@ORCLPDB1 catalog rcat/3xme9EtechqZhnlg8n1vE@RCAT",
     "21gZlKkguUlcOLmarkxh4"),
    ("zip -r -P Raven1988* restore_44881.zip ./restore/", "Raven1988*"),
    ("$ mc alias set nas-minio http://172.21.19.99:9000 I5QH90X89KAJZ44A0ANX jhb85IEVSXAh9kZgzQ"
     "ltX49G1g39461EQQ4vLg8e", "jhb85IEVSXAh9kZgzQltX49G1g39461EQQ4vLg8e"),
    ('echo "RPZU88KA47T1391FSRL9" | bin/elasticsearch-keystore add --stdin s3.client.access_key',
     "RPZU88KA47T1391FSRL9"),
    ("Enter passphrase for key '/root/.ssh/id_borg': bramble-basalt-saffron-cactus-35",
     "bramble-basalt-saffron-cactus-35"),
    # National Insurance numbers whole in a list, in Welsh, on a W-8BEN; a TFN told in chat;
    # an SSN dotted after SS#; a Spanish phone after "tfno."
    ("1. XY269012D - DOB 1901-01-01, looks like a default.\n2. LC510543C and KH735179D",
     "LC510543C"),
    ("Rhif Yswiriant Gwladol: GN643135D. Diolch", "GN643135D"),
    ("6a Foreign tax identifying number: LW057015C\n", "LW057015C"),
    ("Kylie: and her tfn is 330458591 if they ask", "330458591"),
    ("Re: rollover for acct ending 4471 / SS# 078.64.7958\n", "078.64.7958"),
    ("Alta de usuario: documento NIE X1915300K, tfno. 91 685 07 07, carné", "91 685 07 07"),
    # a sheet's columns: passwords beside a "2FA backup" column, the backup codes under it
    ("Client\tProvider\tUsername\tPassword\t2FA backup\nMcAllister G\tSIPP\tgmc62\t"
     "marigold29Harbour!\t68dc-089c-0888-8d0f\n", "marigold29Harbour!"),
    ("Client\tProvider\tUsername\tPassword\t2FA backup\nMcAllister G\tSIPP\tgmc62\t"
     "marigold29Harbour!\t68dc-089c-0888-8d0f\n", "68dc-089c-0888-8d0f"),
    # security answers: quoted after "answered", a memorable answer's question in brackets,
    # a KBA log's answer_given
    ("Passed secondary: security Q 'first car' answered 'Chevy Nova'. Proceeded", "Chevy Nova"),
    ("Passed on memorable answer (first school) 'Kestrel Road Primary'. Amended",
     "Kestrel Road Primary"),
    ('recovery.kba question_id=Q3 answer_given="Nonna Rosa" normalized="nonnarosa"',
     "Nonna Rosa"),
])
def test_the_round_s_shapes_are_redacted(text: str, value: str) -> None:
    assert value not in _redact(text)


@pytest.mark.parametrize("text", [
    # a Java stack frame's "Exception at <package>" is no address said aloud
    "Fatal Exception: java.lang.NullPointerException at se.pension.app.ui.PrognosFragment."
    "onResume(PrognosFragment.kt:118) build=4.18.2",
    # library barcodes: an item's after its name, a library card's 14 digits told as a card
    "CHECKOUT patron=26808675567438 item=38030813030734 due=2024-05-02 kiosk=SC-MAIN-02",
    '{"item_data": {"barcode": "38715785706952"}}',
    "Card number: 21992845010738\nCategory: Juvenile (JUV)",
    # a policy's words and keys, a checklist's verb, netsh's key=clear
    "keep password_complexity=3_of_4, disable security questions",
    "pwreset member=50418822 new_password_strength=strong(score=4) ip_class=residential_au",
    "Passwort: mindestens 12 Zeichen, davon eine Zahl",
    "- Wi-Fi guest PSK: regenerate, update QR in breakroom",
    "    Key Content            : (requires key=clear)",
    "RequireStrongPassword: Require\nEnableExpiredPasswordReset: Enable",
    'export RESTIC_PASSWORD_COMMAND="secret-tool lookup service restic repo nas-offsite"',
    # templates' placeholders and a loop's variables
    " <pass>__DB_PASS__</pass>\n <api_secret_passphrase>__API_SECRET__</api_secret_passphrase>",
    'imapsync --host1 "$h1" --user1 "$u1" --password1 "$p1" --host2 "$h2"',
    # mail servers' releases and an upgrade's target are versions, not addresses
    "Dovecot 2.3.21.1 on imap01 and 2.3.19.1 on imap02",
    "Upgrade Dovecot 2.3.17 → 2.3.21.1 on imap01/imap02",
    "Upgraded BIND to 9.18.27, MX firmware to 21.4.3.15 and ACOS to 5.2.1.223",
    # masked and stood-in SNMP communities, an EZproxy-shaped line with the ident's "-"
    "snmp-server community [REMOVED] RO\nsnmp-server community public RO",
    '127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326',
    # a job's session id (a UUID) is no credential; a Wi-Fi column's header alone is no key
    "X-Veeam-Session: fc36bd81-431c-425c-9773-bc89603e6562\nSubject: [Success] Nightly",
    "serial,ssid,wifi_key\nHWTC68E083EF,KBB-4FF1,\n",
])
def test_the_round_s_look_alikes_stay(text: str) -> None:
    assert _redact(text) == text


def test_an_address_said_aloud_is_still_read() -> None:
    out = _redact("write to john dot smith at gmail dot com. thanks; email: ana at acme.de.")
    assert "smith" not in out and "acme" not in out


def test_a_diners_card_told_as_a_card_is_still_redacted() -> None:
    assert "36082107965382" not in _redact("charge my card 36082107965382 please")
