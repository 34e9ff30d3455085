"""The round of corpora BC (Kubernetes and containers), BD (messaging app exports), BE (video
conferencing), BF (tax preparation and tax portals), BG (open banking and aggregators) and BH
(digital forensics): each shape they found left, redacted in process, and the lines near them
that must stay."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # Kubernetes: a container's next argument, kubectl's jsonpath output, kubeadm's
    # certificate key, docker login's piped password, a Secret in etcd, the static token
    # file, a realm's credential
    ("        args:\n          - run\n          - --token\n          - eyJhIjoiYzQ4ZTVmYThkZTZm\n",
     "eyJhIjoiYzQ4ZTVmYThkZTZm"),
    ("❯ kubectl -n monitoring get secret grafana -o jsonpath='{.data.admin-password}'\n"
     "RGIhblVJRlc4NTk=%\n❯ kubectl get pods", "RGIhblVJRlc4NTk="),
    ("kubeadm join 10.0.0.10:6443 --control-plane --certificate-key "
     "24f3a44d7817b1085642bc4e2101121b653adf4ee6591e577f165924fe7ea2c2",
     "24f3a44d7817b1085642bc4e2101121b653adf4ee6591e577f165924fe7ea2c2"),
    ("$ echo Adm1n#BBa3qp18 | docker login harbor.corp.de -u robot --password-stdin",
     "Adm1n#BBa3qp18"),
    ('{"key":"L3JlZ2lzdHJ5","value":"azhzAAoMCgJ2MRIGU2VjcmV0EpwBChsKD3BzcC1jcmVkZW50aWFscw=="}',
     "azhzAAoMCgJ2MRIGU2VjcmV0EpwBChsKD3BzcC1jcmVkZW50aWFscw=="),
    ("pmgGuiiR9naI4LREDecK5GVCm9ed8cen,admin,admin,\"system:masters\"\n",
     "pmgGuiiR9naI4LREDecK5GVCm9ed8cen"),
    ("        credentials:\n          - type: password\n            value: pI75ErSjoBlJ1PpEaV\n",
     "pI75ErSjoBlJ1PpEaV"),
    # messaging exports: an id answered in the next message, a BLIK code likewise; WhatsApp's
    # media key, its backup key in fours, its code, a template's code; Signal's passphrase;
    # Telethon's session and api_hash; Baileys' pairing code; Telegram's, Google's and Apple's
    # codes; a pushTAN; a door's code; "mdp :", "Schlüssel:"; an iPhone backup's password;
    # an SMS backup's call; a decryption key on a command line
    ("4/1/22, 7:29 PM - Mom: what's your social again? the tax guy needs it\n"
     "4/1/22, 7:30 PM - Tyler: 674588080\n", "674588080"),
    ("15/6/22, 07:36 - Rafael: che pasame tu CUIL para el monotributo\n"
     "15/6/22, 07:42 - Marta: 27-41236792-3\n", "27-41236792-3"),
    ("2024년 3월 5일 오후 7:41, 김민수 : 주민등록번호 알려줘 연말정산\n"
     "2024년 3월 5일 오후 7:45, 이수진 : 921202-1561176\n", "921202-1561176"),
    ("10.11.2024, 22:16 - Kasia: Tomek płacisz za bilety? daj kod BLIK\n"
     "10.11.2024, 22:21 - Tomek: 974384 szybko bo wygaśnie\n", "974384"),
    ('    "mediaKey": "gbBatcENcdasRrjNlZUP6NdHzhyzUJ2rk5fy1bA2XCI=",',
     "gbBatcENcdasRrjNlZUP6NdHzhyzUJ2rk5fy1bA2XCI="),
    ("Backup-Schlüssel:\nf910 199e 9fcd 1bb3 a5e5 5594 d83b 3ac5 3563 125a 7046 1e33 54b7 8692 "
     "0a1b 2c3d\n", "f910 199e 9fcd 1bb3"),
    ("Mãe: filho chegou isso aqui: Seu código do WhatsApp: 314-353. Não compartilhe", "314-353"),
    ("Signal backup passphrase (written down 2024-01-03, Pixel 7):\n"
     "33978 43881 15554 24545 88092 23749\n", "33978 43881 15554"),
    ('client = TelegramClient(StringSession("10sxJ0-mIStT6AkqtOmvaSM-p0gBk009M_FWkwFQTyTAfV9tE"), '
     '25469725, "2d5463a0906b7c21006e4942975a2e66")', "2d5463a0906b7c21006e4942975a2e66"),
    ("INFO baileys pairing code requested for session default: MG0V-YGWH (expires in 160s)",
     "MG0V-YGWH"),
    ('"text": "Код для входа в Telegram: 21662. Не давайте код никому"', "21662"),
    ("9/4/24, 4:47 PM - Dad: G-754509 is your Google verification code", "754509"),
    ('body="Ihre pushTAN für die Überweisung: 705076. Betrag 1.240,00 EUR"', "705076"),
    ("Schlüsselbox am Tor, Code 1178. Haustür-Code 1167#.", "1167"),
    ("Hugo: Le wifi c'est Livebox-BD1E et le mdp : RDBU47xaju# (attention)", "RDBU47xaju#"),
    ("Katrin: WLAN: FRITZ!Box 7590 GF\n[03.05.24, 13:49:16] Katrin: Schlüssel: Kaffee-6822#\n",
     "Kaffee-6822#"),
    ('$ idevicebackup2 -i encryption on "Sonnenblume!74so"', "Sonnenblume!74so"),
    ('  <call number="89177056475" duration="0" date="1647" type="3" />', "89177056475"),
    ("$ wadecrypt --key 543d043c30950d2d952288f5851ad1d5ed202007f549724eaa483af0780f3224 x",
     "543d043c30950d2d952288f5851ad1d5ed202007f549724eaa483af0780f3224"),
    # conferencing: passcodes by their names and in five languages, one tap mobile's, Zoom's
    # SIP address, a recording's share token, a registrant's tk=, published calendars,
    # Graph's clientState, host keys, activation codes, vouchers, Slack's code, Webex's
    # numeric password, a SharePoint personal site
    ("Meeting ID: 715 575 1649\nPasscode: US!6327wbg\n", "US!6327wbg"),
    ('"attendees": ["a@b.nl"], "passcode": "RLI6yOqsS0", "waiting_room": true', "RLI6yOqsS0"),
    ('"password": "uAi35Y", "h323_password": "158010", "pstn_password": "158010"', "158010"),
    ('category=Meeting action=Update change="Passcode: KI882$ab -> WnRWTm" source=web', "WnRWTm"),
    ("+442034815237,,7155751649#,,,,*829968# United Kingdom", "829968"),
    ("Join by SIP\n98856668310.350642@zoomcrc.com\n", "350642"),
    ("https://us06web.zoom.us/rec/share/i9PnYAJtNHMj3tVaXTraM24NnfdP1Qq51kkOx?startTime=1",
     "i9PnYAJtNHMj3tVaXTraM24NnfdP1Qq51kkOx"),
    ('"join_url": "https://us06web.zoom.us/w/99768783373?tk=K7f0L1b2kbdwH6jzwwOBq9sSTF5hIuSr"',
     "K7f0L1b2kbdwH6jzwwOBq9sSTF5hIuSr"),
    ("https://outlook.office365.com/owa/calendar/7ba2974bf4907d8349528f55fd1f6fe1@corp.no/"
     "c5f8a0099fcdf00ca5a8767dbb85cd8a6181816112347110750/calendar.ics",
     "c5f8a0099fcdf00ca5a8767dbb85cd8a6181816112347110750"),
    ("https://calendar.google.com/calendar/ical/b%40gmail.com/private-9dd490ef0a3f781cfdbc104e7ab11"
     "bf7/basic.ics", "9dd490ef0a3f781cfdbc104e7ab11bf7"),
    ('  "clientState": "OTdkM6r0zBnZvj5QP2yOJZPlsJyNO47h"\n', "OTdkM6r0zBnZvj5QP2yOJZPlsJyNO47h"),
    ("You can also dial 52.207.217.31 and enter your meeting number.\n\nHost key: 476121\n",
     "476121"),
    ("Hostschlüssel für den Raum Besprechungsraum Elbe: 061426 – bitte nicht weitergeben",
     "061426"),
    ("Webex device activation code for Rm 118 Lakeside: 2319-2991-4222-6259 (valid 7 days).",
     "2319-2991-4222-6259"),
    ("Your guest Wi-Fi voucher for the conference floor is 4555-1601-0462 (valid 12 h).",
     "4555-1601-0462"),
    ("Subject: Slack confirmation code: L5D-2J9\n\nConfirm your email address\n\nL5D-2J9\n",
     "L5D-2J9"),
    ("Meeting password: JJFV4041bsf (44566940 from phones and video systems)", "44566940"),
    ("Meeting recording: https://corp-my.sharepoint.com/:v:/g/personal/azhang_corp_university_edu/"
     "E0MB220A_N8QBkvb6-jbRqhzxrzIrE856u?e=E1AiF8", "azhang_corp_university_edu"),
    ("ミーティングID: 886 5664 4875\nパスコード: 527886\n", "527886"),
    ("회의 ID: 848 0176 7816\n암호: Vst2xEHP\n문의: 이지은", "Vst2xEHP"),
    ("#腾讯会议：983-904-712\n会议密码：3570\n", "3570"),
    ("اجتماع Teams غداً. رمز المرور: 730228 — للتواصل", "730228"),
    ("Emeka (01:50): Toegangscode vergadering: KsN#T7e7s", "KsN#T7e7s"),
    ("Lukas (06:22): Пароль конференции: HhDkdZnQu", "HhDkdZnQu"),
    ("— Código de acceso: tGKoKQCU", "tGKoKQCU"),
    # tax: India's login entity and EVC, an ITR's OTP, ELSTER's code, HMRC's UTR path, a
    # form-encoded SIN, a nested licence, MeF's PINs and phone, a certificate's PIN, a
    # passcode entered, a code by text, "pw", "number to reach me", "with password"
    ("\nentity=YIBPC6197B&serviceName=loginService", "YIBPC6197B"),
    ("EVC for PAN HUYPN1169T generated through bank account pre-validation: 04U03D8HUP. Valid",
     "04U03D8HUP"),
    ("Dear Taxpayer, OTP for e-verification of ITR for AY 2024-25 is 872683. Valid", "872683"),
    ("Ihr Aktivierungscode lautet:\nHLOZ-TZC0-NN9O\n\nBitte verwenden", "HLOZ-TZC0-NN9O"),
    ("https://www.tax.service.gov.uk/self-assessment/ind/6842502068/taxreturn/2024/summary",
     "6842502068"),
    ("first_name=Harpreet&last_name=Wong&sin=161+813+415&province=ON", "161+813+415"),
    ('"primaryDriversLicense": {"number": "L43666403550", "issuingState": "IL"', "L43666403550"),
    ("  <PrimarySignaturePIN>65333</PrimarySignaturePIN>\n", "65333"),
    ("    <PhoneNum>6142086805</PhoneNum>\n", "6142086805"),
    ("ELSTER_CERT_PIN=schatz-kor25%\nERIC_LOG_DIR=C:\\ProgramData", "schatz-kor25%"),
    ('  zertifikat_pin: "QRjIyfx!@kK4"\n', "QRjIyfx!@kK4"),
    ("TRACE auth-proxy passcode sent to x@shaw.ca; user entered 168858", "168858"),
    ("user: the irs site is asking for a code, I got 308896 by text - do I put that", "308896"),
    ("Their IRS online account login is k.maria@aol.com, pw Kiwi!12 (they said", "Kiwi!12"),
    ("Best number to reach me during the day is 6463992166.\n", "6463992166"),
    ("Form 26AS opened fine with password 26031974. PAN RGRPP3102F.", "26031974"),
    # open banking: cvv_number, curl's cert password, Swish, a nested SSN, Yodlee's answer
    # and account numbers, TrueLayer's number, SCA's code
    ('{"pan":"5221969523336475","cvv_number":"852","expiration":"0527"}', "852"),
    ("curl -v --cert ./certs/obwac.pem:hfkd-gzul-47!RWZ --key ./certs/obwac.key",
     "hfkd-gzul-47!RWZ"),
    ('"descriptions":{"original":"Swish betalning 0720408142","display":"Swish"}', "0720408142"),
    ('"id_number": {"value": "396218204", "type": "us_ssn"}', "396218204"),
    ('{"name":"SECURITY_ANSWER","label":"first pet?","value":"Springfield39"}', "Springfield39"),
    ('"fullAccountNumberList":{"paymentAccountNumber":"6791152613"}', "6791152613"),
    ('"account_number": {\n  "iban": "GB46MONZ04000473662091",\n  "number": "73662091",',
     "73662091"),
    ('payload={"scaAuthenticationData":"499648"} method=SMS_OTP', "499648"),
    # forensics: Hebrew's passport, a boot key, net user, a cookie export, a chat's "pass",
    # unlock codes, a VirusTotal key, "pw ... :", MEGA's key, Android's tokens, Winlogon's
    # password, "password supplied by", "creds ... are", an MRZ's number repeated, PASS:
    ("13487|8613817531095@s.whatsapp.net|1|1713809418000|מספר דרכון 466403049 – need it",
     "466403049"),
    ("[*] Target system bootKey: 0x9077f42ca9c799396994882719708f39\n",
     "9077f42ca9c799396994882719708f39"),
    ("net user helpdesk$ W1nter!Pass /add", "W1nter!Pass"),
    ("host_key,name,value,path\n.linkedin.com,li_at,AQEDxH0llsDUVrdNum-5k7I932nsDL6M,/,133577,1",
     "AQEDxH0llsDUVrdNum-5k7I932nsDL6M"),
    ("56692|393492117962@s.whatsapp.net|0|1710440213000|login k@gmail.com pass Shadow1974*",
     "Shadow1974*"),
    ("取证记录：嫌疑人手机号 89032319514，邮箱 d.sokolov@bk.ru，解锁密码 773302。", "773302"),
    ("l'intéressé a communiqué le code de déverrouillage 420918 de son téléphone", "420918"),
    ("Giulia: VT key for the enrichment script: 5fe5636d0648d2b99ba2acb0012a7ec3ffd9330c3cf38217f9"
     "ed2122f926c352 (team quota)", "5fe5636d0648d2b99ba2acb0012a7ec3ffd9330c3cf38217f9"),
    ("- Samsung account pw per subject: T0tt3nh@m09!\n- SIM: +39 335-5815450", "T0tt3nh@m09!"),
    ('"https://mega.nz/file/gE3pyRjL#CE6z0GX86uWIqG29U90KS5V6WoJ77Jf-TkWASl-gj_E","MEGA"',
     "CE6z0GX86uWIqG29U90KS5V6WoJ77Jf-TkWASl-gj_E"),
    ("3|1|com.google.android.gms|aas_et/5xeFNYef0EpmzpqXB9xG1aV8DlD73jWIuCTS-sfvZZN5RBgob",
     "aas_et/5xeFNYef0EpmzpqXB9xG1aV8DlD73jWIuCTS-sfvZZN5RBgob"),
    ("Winlogon,DefaultPassword,RegSz,p7jFqwzyR!VDiGI,2024-03-03 00:50:27", "p7jFqwzyR!VDiGI"),
    ("iTunes backup is encrypted. Password supplied by custodian: M0nk3y02! -> decrypted",
     "M0nk3y02!"),
    ("Rafael [18:19]: creds for the client VPN are ir-contractor / C0p@c@b@n@29! – rotate",
     "C0p@c@b@n@29!"),
    ("P<SWENYSTROM<<MAJA<<<<<<<<<<<<<<<<<<<<<<<<<<\n2927018951SWE7902114F3405020<<<<<<<<<<<<<<06\n"
     "OCR fields -> document_number: 292701895; date_of_birth: 790211", "292701895"),
    ("URL: https://my.nordvpn.com/login/\nUSER: g@outlook.com\nPASS: Rotterdam1999#\n",
     "Rotterdam1999#"),
])
def test_found_in_process(text: str, value: str) -> None:
    assert value not in _redact(text), _redact(text)


@pytest.mark.parametrize("text", [
    # a Google Meet invitation's dial-in PIN (corpus KA counts it the meeting's id); Zoom's
    # webhook challenge; a dial plan's prefix; a Zoom SIP address of the meeting's id; a
    # chat export's media file; WhatsApp's server id; a container's label; a status
    # "[stripped]"; an EAN; a date after a masked SSN; the empty NT hash; a messenger's
    # version; a vault command's substitution
    "Google Meet: https://meet.google.com/wak-pbsi-xkm\nPIN: 986 878 147#\n",
    "INFO webhook: endpoint.url_validation plainToken=rCOvyqFKyvnPyDrNbU5VKm",
    "  Rule 'Internal4Digit':  Pattern ^(\\d{4})$          Translation +49301606$1",
    "Join by SIP\n94416763522@zoomcrc.com\n",
    "├── video_files/video_2@05-03-2024_19-41-22.mp4",
    "server_jid=0@s.whatsapp.net; status_jid=status@broadcast; groups=37",
    'labels:{key:\\"io.cri-containerd.image\\" value:\\"managed\\"}',
    '"status":{"token":"[stripped]","expirationTimestamp":"2024-02-17T12:49:04Z"}',
    "shipment created order_id=0681958233480006 ean=4009212809203 qty=1",
    "Screening report\nApplicant SSN: ***-**-3113\nDOB: 07/03/1993\nCredit score: 712",
    "Guest:501:aad3b435b51404eeaad3b435b51404ee:31d6cfe0d16ae931b73c59d7e0c089c0:::",
    "WhatsApp 2.24.5.76 (Android 14), Telegram 10.9.1 (4821), Signal 7.3.0",
    'export AWS_SECRET_ACCESS_KEY="$(vault kv get -field=secret aws/ir-upload)"\nexport X=1',
    # (an id's name with no question on its line, or a host's name: no answer follows)
    "Your passport has been dispatched.\nCourier: DHL Express\nWaybill: 5572177377\n",
    "sin1-fw19#show license summary\nAccount Information:\n  Smart Account: CORP-NET As of Oct 08 "
    "18:09:51 2023 UTC\n",
])
def test_stays(text: str) -> None:
    assert _redact(text) == text
