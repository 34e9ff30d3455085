"""What corpora UE to UK found held out (web and mobile traffic as captured; the business back
office; security and identity operations; what users in Asia and the Middle East type; LLM
API traffic; Africa's and Latin America's fintech and telecom text), each
shape redacted in process (and by the Collector's patterns where they have it), and what must
stay."""

from __future__ import annotations

import pytest
from go_regexp import compile_re2

from servescope.collector.config import RE2_PATTERNS
from servescope.redaction import Redactor

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # Mailchimp's key, Akamai's token HMAC, Segment's writeKey
    ("use our Mailchimp key c5df6d90cb91dc9b91fb2a0885b6ec9b-us2 - thanks",
     "c5df6d90cb91dc9b91fb2a0885b6ec9b-us2"),
    ("seg_00739.ts?hdnts=st=1730862191~exp=1767467327~acl=/hls/*~hmac="
     "97d9ebbf568a47fb03e762828d1a75ca40852b27093c9569ac05c6a0956b6dce",
     "97d9ebbf568a47fb03e762828d1a75ca40852b27093c9569ac05c6a0956b6dce"),
    ('{"messageId":"b5d6","writeKey":"urVZmAcMSn7dgVZ8He34GlqWcV6zL9hp"}',
     "urVZmAcMSn7dgVZ8He34GlqWcV6zL9hp"),
    # reset links and one-time codes
    ('"GET /password/reset?t=BjHXBCzGArwz6KyLlOlbMLf7TfGbmmbB HTTP/2.0" 200',
     "BjHXBCzGArwz6KyLlOlbMLf7TfGbmmbB"),
    ('"GET /auth/reset/Jss/NwDBkYnq2si8-lB8ekPqwOmH8019Xi8DLDvBiWV5/ HTTP/2.0" 200',
     "NwDBkYnq2si8-lB8ekPqwOmH8019Xi8DLDvBiWV5"),
    ('"GET https://auth.example.app/v1/otp/verify?phone=%2B61465349201&code=087182 HTTP/1.1"',
     "087182"),
    ('[sms-gw] -> +81 70-1032-4226: "597327 ist Ihr Bestätigungscode für die Zahlung."',
     "597327"),
    ("Body=277316 est votre code de connexion PetalPost", "277316"),
    ("SMS: 409764 is your verification code.", "409764"),
    # a password in code and in a stack trace, a session cookie made in PowerShell
    ("#0 db.php(12): PDO-&gt;__construct('mysql:host=db;dbname=shop', 'shop_rw', "
     "'rftz885ILAjok62')", "rftz885ILAjok62"),
    ('$session.Cookies.Add((New-Object System.Net.Cookie("sessionid", '
     '"dwgmcua0s4wrw24lwf97uxsg3fknm3d2", "/", "app.example.dev")))',
     "dwgmcua0s4wrw24lwf97uxsg3fknm3d2"),
    # Windows' credential material, Entra ID's client secrets (corpus UG)
    ("$krb5tgs$23$*svc_iis$CORP.LOCAL$MSSQLSvc/sql01.corp.local:1433*$786365ce0593520ac30b1e66a"
     "b2bb2e2$65ef836557c66a6c8cff3a8d66805456", "786365ce0593520ac30b1e66ab2bb2e2"),
    ("[SMB] NTLMv2-SSP Hash     : osein::CORP:d4453475587a1504:9871954BAF8F58A7F16F62A3A4E6397"
     "7:01010000000000006E35EAFC237BAFBF", "9871954BAF8F58A7F16F62A3A4E63977"),
    ("CORP.LOCAL\\Administrator:500:aad3b435b51404eeaad3b435b51404ee:1fd8c4506bfe44bebda3e4ca0"
     "09c73c1:::", "1fd8c4506bfe44bebda3e4ca009c73c1"),
    ("\t * NTLM     : a2be34c69292c204403995d0b831c447\n", "a2be34c69292c204403995d0b831c447"),
    ('+ value = "tVN7Q~~A3f2w6P2RRARsBKOYflVw47PMQYC5_4L6"',
     "tVN7Q~~A3f2w6P2RRARsBKOYflVw47PMQYC5_4L6"),
])
def test_found_in_process_and_by_the_collector(text: str, value: str) -> None:
    assert value not in _redact(text)
    match = compile_re2(RE2_PATTERNS["secret_assignment"]).search(text)
    assert match is not None and value in match.group(0), text


@pytest.mark.parametrize(("text", "value"), [
    ('headers = {"Authorization": "Basic " + "YmFjc19hcGk6U2FrdXJhOTkxIQ=="}',
     "YmFjc19hcGk6U2FrdXJhOTkxIQ=="),
    ("<pay:Expiry>1128</pay:Expiry><pay:Cvv2>012</pay:Cvv2>", "012"),
    ('"text": "{\\"recovery_codes\\":[\\"tbjwc-cje5x\\",\\"w2p9l-3vp5g\\"]}"', "w2p9l-3vp5g"),
    ("my backup codes: o07c-8vgj, 3p8k-594v and oydc-jj4m. Can you", "oydc-jj4m"),
    ('{"source":"sftp:\\/\\/camt_reader:Bicicleta_bruma~69@h2h.example.nl\\/outbox\\/"}',
     "Bicicleta_bruma~69"),
    ('{"name": "intercom-session-hutxgxcm", "value": "BNokbC5wGWc7380kfllO0iXxeqOdY0B7xjwr"}',
     "BNokbC5wGWc7380kfllO0iXxeqOdY0B7xjwr"),
    ("__Secure-next-auth.session-token\tSZpURQYjIByUqaZLSVoLTpqTk74..yzBPKHnT3HhLbW\t"
     "app.example.com\t/", "SZpURQYjIByUqaZLSVoLTpqTk74..yzBPKHnT3HhLbW"),
    ("I AuthRepository: saved refresh_token DEzgoH2gPdfEI2YTpuQnIRTfTV307bZcipbeH01jkvq to "
     "EncryptedSharedPreferences", "DEzgoH2gPdfEI2YTpuQnIRTfTV307bZcipbeH01jkvq"),
    ("<enderDest><nro>308</nro><fone>11935058478</fone></enderDest>", "11935058478"),
    ('{"svc":{"x_tok_v2":"s3sHt4rlnixo0pt69cTi9anKMoegk4mV","retry":3}}',  # a key's word
     "s3sHt4rlnixo0pt69cTi9anKMoegk4mV"),
    ("id,name,temp_password,start_date\n1,Ann,falcon1922?,2024-06-23\n"
     "2,Shelby,kiwi741-,2025-03-03", "kiwi741-"),
    # national ids under their keys and names
    ('{"numero_securite_sociale":"1 50 10 38 137 877 86"}', "1 50 10 38 137 877 86"),
    ('{"name": "jumin", "value": "661214-2592707"}', "661214-2592707"),
    ("documento=Y9781658W&telefono=", "Y9781658W"),
    ('[{\\"nombre\\": \\"Lotte\\", \\"doc\\": \\"480873446\\"}]', "480873446"),
    ("Social insurance number (12): 371 663 378\nBox 14", "371 663 378"),
    ('<UidData uid="517575022618"><Poi name="R"/></UidData>', "517575022618"),
    ("N\u00ba afiliaci\u00f3n SS: 28/48216505/73\nIBAN", "28/48216505/73"),
    # corpus UG: what Windows' credential tools print, logins a spraying tool reports, combo
    # lists, an infostealer's cookies.txt, Entra ID's session cookie and client secrets
    ("[*] AS-REP hash:\n\n      $krb5asrep$23$cokafor@CORP.LOCAL:9919ce1773ddce7a5421537299fc0e"
     "bd$7bcb7cdfb692175f3510916b9298b2451962e6395611929655448e1ebd3d24c7",
     "9919ce1773ddce7a5421537299fc0ebd$7bcb7cdfb692175f3510916b9298b2451962e63956"),
    ("[SMB] NTLMv2-SSP Hash     : amarah::CORP:d2aede8d3c5cf40d:821154B2BC1E81B164BC3440FAA403"
     "E1:010100000000000070375FFED726E9BFC36ED601376267ED", "821154B2BC1E81B164BC3440FAA403E1"),
    ("CORP.LOCAL\\krbtgt:502:aad3b435b51404eeaad3b435b51404ee:d326fae4ae3731eaac67c8e96af20725:::",
     "d326fae4ae3731eaac67c8e96af20725"),
    ("\t * Username : joaquin.mazur\n\t * Domain   : CORP\n\t * NTLM     : "
     "fc6d9e0cfbcd584aec96b45edb2ae706\n", "fc6d9e0cfbcd584aec96b45edb2ae706"),
    ('CommandLine="net  user svc_sqlrpt Summer2019! /add /domain" Parent=cmd.exe', "Summer2019!"),
    ("SMB  10.10.10.188  445  WKS-114  [+] corp.local\\svc_backup:Raven_8196 (Pwn3d!)",
     "Raven_8196"),
    ("Sample from paste:\nmikael.vanderberg@wp.pl:XzVznB~8=B!cD\nmukherjee.t@mail.ru:Saffron#4234*",
     "XzVznB~8=B!cD"),
    ("== O365 LOGS ==\nhannah.kruger@fernhill.ie|-okqS670A2LS2ui6G9|46.174.169.149|GB",
     "-okqS670A2LS2ui6G9"),
    (".github.com\tTRUE\t/\tTRUE\t1735426442\tuser_session\tjFFtYySJffi7h4Ud0w3xVf6GCxMciik1\n"
     ".github.com\tTRUE\t/\tFALSE\t1754677654\t_octo\tGH1.1.882991668.1736790026",
     "jFFtYySJffi7h4Ud0w3xVf6GCxMciik1"),
    ('tokens: [{"name":"ESTSAUTHPERSISTENT","value":"0.AE5gjcWa36g-OxmsDTHQ9BFZCAe5P8lpBnpUtTC"}]',
     "0.AE5gjcWa36g-OxmsDTHQ9BFZCAe5P8lpBnpUtTC"),
    ('      + value          = "dWo7Q~nnxbaE5tS69cI0iBvNrmzRJkXPeG9HxtyN"\n    }',
     "dWo7Q~nnxbaE5tS69cI0iBvNrmzRJkXPeG9HxtyN"),
    ("#fields\tts\tuid\thost\tusername\tpassword\n1710257320.869070\tCa0hQzizwmMK9zf9vf\t"
     "cam-lobby-02\tsvc_print\t2BS*Vhz2h5cohV\n# analyst: seen", "2BS*Vhz2h5cohV"),
    ("backup codes: 8772 8524  7114 0841  8467 5918 (I used the first one)", "8467 5918"),
    # corpus UH: one-time codes in the languages their SMS come in
    ("RM0.00 Touch 'n Go eWallet: Your TAC is 806656. Valid for 3 mins.", "806656"),
    ("Garanti BBVA: 800188 kodunu kimseyle paylasmayiniz.", "800188"),
    ("898069 is OTP for Aadhaar (XX0786) authentication, valid for 10 mins.", "898069"),
    ("bhai mera Swiggy login OTP 5078 aaya hai", "5078"),
    ("MoMo: Ma xac thuc cua ban la 342156. Tuyet doi KHONG chia se", "342156"),
    ("رمز التحقق الخاص بك هو: 8656\nلا تشاركه مع أحد. stc pay", "8656"),
    ("كود التفعيل الخاص بك هو ٨٢١٥٠٦ - لا تشارك الكود", "٨٢١٥٠٦"),
    ("*409301* adalah kode verifikasi Anda.", "409301"),
    ("ओटीपी १३११३२ है, किसी के साथ साझा न करें", "१३११३२"),
    ("LINEの認証番号：937041\nこの番号を他人に教えないでください。", "937041"),
    ("بانک ملت\nرمز پویا: ۹۴۳۷۰\nمبلغ", "۹۴۳۷۰"),
    # national ids of Saudi Arabia, the UAE, Iran, Egypt, Taiwan, Viet Nam and Korea
    ("ابي أجدد الجواز عن طريق أبشر، رقم الهوية 1862780556 والجوال", "1862780556"),
    ('{"employee": {"iqamaNo": "2359647993", "nationality": "IND"}}', "2359647993"),
    ("ts=... country=AE id_type=EMIRATES_ID id_number=784-2002-4076444-7 liveness=0.98",
     "784-2002-4076444-7"),
    ("رقم الهوية 784-1998-3684332-8 والآيبان", "784-1998-3684332-8"),
    ("کد ملی: 1362136026\nشماره شبا", "1362136026"),
    ('{"document": {"type": "MELLI", "number": "1288671733"}}', "1288671733"),
    ("الرقم القومي 27803261609013، ومش عارف", "27803261609013"),
    ("我的身分證是 N 開頭，完整是N252365478，戶政事務所說要補件", "N252365478"),
    ("POST /v3/identity/verify?country=TW&doc_type=national_id&doc_no=H291677673 202",
     "H291677673"),
    ("Chào shop, mình tên Mai, số CCCD 083083248547, SĐT", "083083248547"),
    ("주민등록증\n정하은\n940606-1758408\n서울특별시", "940606-1758408"),
    # a card's code named in Japanese, Chinese and Hebrew; an address's full-width at sign
    ("JCB 3530 2648 7039 3092、有効期限 09/28、セキュリティコード 043 です。", "043"),
    ("卡號 4147208373759583，到期日 11/27，背面末三碼 591，麻煩幫我更新。", "591"),
    ("החיוב בכרטיס 4319404124700362 נכשל, תוקף 06/27, 3 ספרות בגב 266.", "266"),
    ("ارسلوا الفاتورة على noura.sh＠yahoo.com لو سمحتوا", "noura.sh＠yahoo.com"),
    # cloud keys pasted by developers
    ('cred = credential.Credential("AKID0GC04GiHlXahBCJpKaRAADR7swnFGSPD", '
     '"JBcO1ahYPF1ZtgZDgCfiXz1veWfr386K")', "JBcO1ahYPF1ZtgZDgCfiXz1veWfr386K"),
    ("auth = oss2.Auth('LTAI5tPOVwsqnIOaH7BEbA3F', 'kGnmEpSHRZeP5bNtnASJPTzvdF66eQ')",
     "kGnmEpSHRZeP5bNtnASJPTzvdF66eQ"),
    ("fp.pdf?q-sign-algorithm=sha1&q-ak=AKIDCEtCfaQPxVHhz7q0Gtvkhx7KefFlK1FQ&q-signature="
     "02801487207f662d12140d92f4c7d6b16cb06ab2", "02801487207f662d12140d92f4c7d6b16cb06ab2"),
    ("mchId: 1618490631\napiV3Key: qHXlgofwoDw7a57ps94c7oa3mLh190Kv\n",
     "qHXlgofwoDw7a57ps94c7oa3mLh190Kv"),
    ("<login><user>wilaiwan.s</user><pass>Tiger7830!</pass><otpChannel>SMS</otpChannel>",
     "Tiger7830!"),
    ('{"req":"{\\"headers\\":{\\"Authorization\\":'
     '\\"KakaoAK 41808d0fd7ce64c1d2e433aa4b5cccf7\\"}}"}',
     "41808d0fd7ce64c1d2e433aa4b5cccf7"),
    ("هذا المفتاح السري حق AWS: nNsngs8KDKl9STvxDwI5SxrEoPDqtCmX2YRsuWp4 — ليش",
     "nNsngs8KDKl9STvxDwI5SxrEoPDqtCmX2YRsuWp4"),
    # corpus UJ: an address written as hex, Tavily's key, a session cookie handed to requests,
    # "my social is", a Spanish telecom's line
    ("vector_id=usr_6d617269 meta.owner_hex=6d617269612e646576726965732b62696c6c696e67406f75"
     "746c6f6f6b2e636f6d meta.lang=fr", "6d617269612e646576726965732b62696c6c696e6740"),
    ('call the search endpoint with api_key \\"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\\". Never',
     "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"),
    ('r = requests.get(url, cookies={"SESSION": '
     '"b951560dacd30bbf7ee72534053f56d7352ac29451d78f40"})',
     "b951560dacd30bbf7ee72534053f56d7352ac29451d78f40"),
    ('{"role":"user","content":"for the tax form my social is 500863537, no dashes"}',
     "500863537"),
    ("Buenos días, soy Hannah. Quiero dar de baja la línea 699 93 41 70. Gracias.",
     "699 93 41 70"),
    # corpus UK: national ids of Africa and Latin America, under their names or in their shapes
    ("SIM SWAP REQUEST | MSISDN: 08104767520 | NIN: 94430351223 | Reason: lost phone",
     "94430351223"),
    ('{"status":true,"data":{"bvn":"22703490722","first_name":"AISHA"}}', "22703490722"),
    ("NATIONAL IDENTIFICATION NUMBER SLIP\nSurname: OGUNLEYE\nNIN: 6203 766 1726\n",
     "6203 766 1726"),
    ("support note: sender verified with NIN CF53047P43VCSP", "CF53047P43VCSP"),
    ("my ID number is 25871941 and KRA pin A001851230U. It keeps saying", "A001851230U"),
    ("Hola, quiero abrir la cuenta. Mi cédula es 3.321.797-7 y el celular 094 027 095.",
     "3.321.797-7"),
    ("Banco: 0102 Venezuela\nC.I.: V-10.835.027\nTeléfono: 0426-2041066", "V-10.835.027"),
    ("Remesa pagada — Beneficiario con DPI 0958 37302 0111, tel. +502 3338-7290",
     "0958 37302 0111"),
    ("Ordre de virement — Bénéficiaire: Youssef Alaoui — CIN: CD892820 — IBAN: MA29", "CD892820"),
    ('{"typePiece": "CNI", "numeroPiece": "2788092987086", "pays": "SN"}', "2788092987086"),
    ("Documento de identificação: RG 84.445.420-5 SSP/SP, CPF 698.982.673-80.", "84.445.420-5"),
    ('<cfdi:Receptor Rfc="REVG611206C62" Nombre="GUADALUPE REYES VARGAS" UsoCFDI="S01"/>',
     "REVG611206C62"),
    ("Airtel Money Zambia KYC upgrade: NRC 661667/78/1, MSISDN +260 97 292 3372",
     "661667/78/1"),
    ("Your SIM 0201461738 has been registered with Ghana Card GHA-301097854-4. Dial *404#",
     "GHA-301097854-4"),
    ("Usajili wa laini: NIDA 19940214-04824-58658-81 | Namba ya simu 0752404438",
     "19940214-04824-58658-81"),
    ('{"beneficiary": {"iban": "EG27...", "nationalId": "27312121493342", "mobile": "0117"}}',
     "27312121493342"),
    ("GET /api/score/v1/consulta?documento=74928431197&dataNascimento=1991-09-12 HTTP/1.1",
     "74928431197"),
])
def test_found_in_process(text: str, value: str) -> None:
    assert value not in _redact(text)


# Corpus UK's second round: Africa's national IBANs and Mexico's CLABE, Brazil's Elo cards,
# mobile-money numbers as their countries write them, more national ids, PINs and codes in
# Swahili, Hausa, Arabic and Spanish, and the payment platforms' secrets.
@pytest.mark.parametrize(("text", "value"), [
    ("IBAN : SN66SN8365300735397407232529\nBIC : SGSNSNDA", "SN66SN8365300735397407232529"),
    ("CIN: BK410528 — IBAN: MA71 0110 7957 2773 5484 1236 8004 — Montant: 3 533 MAD",
     "MA71 0110 7957 2773 5484 1236 8004"),
    ("Comprovativo — IBAN destino: AO08 7927 7877 6137 6719 4732 5 — BI", "6137 6719 4732"),
    ("Beneficiario: R. TORRES\nCuenta CLABE: 072320004266622033\nMonto: $12,809.00",
     "072320004266622033"),
    ("Te paso mi clabe interbancaria: 002 580 24268331726 3 (banco Banorte)", "24268331726"),
    ('{"text": "{\\"cardNumber\\": \\"6363682332708299\\", \\"cvv\\": \\"282\\"}"}',
     "6363682332708299"),
    ("Umepokea Ksh17,766.00 kutoka kwa OMONDI KAMAU 0707844973 mnamo 9/2/24", "0707844973"),
    ("Umepokea Tsh326,769.00 kutoka 255714216698 - NEEMA KIMARO tarehe 06/05/24",
     "255714216698"),
    ("Transfert de 55 000 FCFA vers Yao Yao (0141614211) effectué avec succès.", "0141614211"),
    ("تم تحويل 4641 جنيه إلى رقم 01594043416 بنجاح.", "01594043416"),
    ("EcoCash: Transfer Confirmation. ZWG 659.00 sent to 0743760553. Approval", "0743760553"),
    ("ẹ fi owó náà ránṣẹ́ sí Opay mi: 08077207823. Orúkọ ni Adeola.", "08077207823"),
    ("ussd_trace: *170# > 1 (Transfer Money) > 0207187567 > 559 > SUCCESS", "0207187567"),
    ("Your SIM 0201461738 has been registered with Ghana Card", "0201461738"),
    ("Can you check my status? cellphone 0713672127. It says pending", "0713672127"),
    ("<identityType>001</identityType><mobileNo>0723318287</mobileNo>", "0723318287"),
    ("23:45:40 IVR call_id=ee94a1fe8995 ani=27791169662 menu=3", "27791169662"),
    ("deep link: opay://transfer?r=KzIzNDgxMjAwNTAxMDU&amt=15000&src=qr", "KzIzNDgxMjAwNTAxMDU"),
    ("NSS: 47709807326\nCURP: TORR930512HNLRZB25", "47709807326"),
    ("Para la factura usa mi RUC 10840184141 (persona natural con negocio).", "10840184141"),
    ("Kitambulisho changu ni 9521986. Naomba mnisaidie.", "9521986"),
    ("| Indangamuntu | 1198381021705097 |\n| Telefone | 250787661859 |", "1198381021705097"),
    ("رقم هاتفي 0622720430 ورقم البطاقة الوطنية G944159. بغيت", "G944159"),
    ("DNI: 97646673 - 0\nTeléfono: +51 904 603 846", "97646673"),
    ("Consulta ANSES: DNI 89.384.041 / CUIL 27-89384041-4.", "89.384.041"),
    ("IBAN destino: AO08 7927 — BI do ordenante: 111516441MG255", "111516441MG255"),
    ("MCB Juice transfer\nNIC R140892125069R\nAmount MUR 46,384.00", "R140892125069R"),
    ("SELECT * FROM clientes WHERE rut = '87148696' AND estado = 'ACTIVO';", "87148696"),
    ("my ID number is 25871941 and KRA pin A001851230U", "25871941"),
    ("<identityNumber>29166179</identityNumber><identityType>001</identityType>", "29166179"),
    ("Sawubona. I-ID yami ngu-9603089161089. Ngicela ningisize.", "9603089161089"),
    ("Meu NIS é 274.33116.80-5, quero saber se o Bolsa Família já foi liberado", "274.33116.80-5"),
    ("ZWG 659.00 sent. Registered ID on file 29-164732-E-45.", "29-164732-E-45"),
    ('{"qr_text":"00020126330014br.gov.bcb.pix0111972082071355204000053039865406274.58"}',
     "97208207135"),
    ('IVR menu=3 dtmf_collected="95507#" purpose=card_pin_reset result=OK', "95507"),
    ("Lambar sirri ta ita ce 2546, kar ka gaya wa kowa.", "2546"),
    ("nimebadilisha PIN yangu ya M-PESA kuwa 0756 lakini bado inakataa.", "0756"),
    ("mi tarjeta vence 12/26 y el código de atrás 347, revisen por favor", "347"),
    ("بطاقة ميزة — رمز التحقق 467 — تم رفض العملية", "467"),
    ("تم تحويل 4641 جنيه. كود التأكيد 425940. رصيدك الحالي", "425940"),
    ("<#> 2047 es tu código de verificación de Rappi. hQ8sLk2pXfA", "2047"),
    ("MPESA_SHORTCODE=841576\nMPESA_PASSKEY=b783c21dd33aafe2c26b016bda427d44e79c35d14b5159f5"
     "f97c2e2e70d217b0", "b783c21dd33aafe2c26b016bda427d44e79c35d14b5159f5f97c2e2e70d217b0"),
    ("Customer typed *141*5801782064399060# but got \"Invalid voucher\".", "5801782064399060"),
    ('headers={"verif-hash": "Cigy5Hwz2dyYtbGemni3NbgF", "content-type": "application/json"}',
     "Cigy5Hwz2dyYtbGemni3NbgF"),
    ("FLW_ENCRYPTION_KEY=aa36a3f5933e005547f4626f\nFLW_SECRET_HASH=JtLaX4snNc57LcD7SltY",
     "JtLaX4snNc57LcD7SltY"),
    ('headers = {"Authorization": f"Bearer {os.getenv(\'X\', \'utKcE8gOYFNlV5-NBztBoRwr_hNsjn'
     'hyQkliKP7E4MjJTg8V\')}"}', "utKcE8gOYFNlV5-NBztBoRwr_hNsjnhyQkliKP7E4MjJTg8V"),
    ("s.cookies.set('sessionid', '6suv4tx1rkhmcnzp0zyn0e2ydsxc11ey', domain='painel.example')",
     "6suv4tx1rkhmcnzp0zyn0e2ydsxc11ey"),
    ('sdk = mercadopago.SDK("APP_USR-8018987256837580-060319-a7be7b1a801416fe12dfea9afeb19d20-'
     '611894901")', "a7be7b1a801416fe12dfea9afeb19d20"),
    ("mi RFC es RARJ900203N42 y la contraseña de la e.firma es chapati11@Jollof, ¿por qué",
     "chapati11@Jollof"),
])
def test_found_in_process_second_round(text: str, value: str) -> None:
    assert value not in _redact(text)


@pytest.mark.parametrize("text", [
    # a model's name as an environment variable's fallback; bare numbers beside no word for a
    # phone (a Dutch statement's reference, an ISBN); a 12-digit time after "from"; a toll-free
    # stand-in of zeros; a template of how a password is made; a dedupe key's digest; a
    # CamelCase name in a URL (letters alone that decode to no digit and no "@")
    "model = os.getenv('MODEL_NAME', 'Meta-Llama-3-8B-Instruct-Turbo')",
    "21-07-2024  Huur 07-2024  Kenmerk 0206302037  -€ 1.395,00",
    "I ordered the ISBN 9780831765835 edition but received 0912076879.",
    "rows from 202401011230 to 202401021230 were compacted",
    "Retirada na loja | Seg a Sáb 10h–22h | SAC 0800 000 0000",
    "# Password = base64(Shortcode + Passkey + Timestamp)",
    "dedupe_key=c7a0bb8687ccd034b043ffedf5bf4864ef4511657cb9779039a80db74fbd7e11 bucket=9",
    "GET /docs/ThisIsSomeLongCamelCaseName?ref=AnotherLongCamelCaseWord HTTP/1.1",
])
def test_stays_second_round(text: str) -> None:
    assert _redact(text) == text


@pytest.mark.parametrize("text", [
    # the Fetch API's credentials mode, a feature flag's key, wget's mask of a password
    'fetch("https://api.example.eu/v1/stores", {\n  "mode": "cors",\n'
    '  "credentials": "include"\n});',
    '{"kind":"feature","key":"new-checkout-flow","version":205,"value":true}',
    "--2025-09-17 06:48:26--  https://deploy:*password*@nexus.example.dev/raw/app-1.15.6.apk",
    # a year before "is your", a path that resets something, a code far from its word
    "In 2024 is your best year for code",
    "/api/v1/reset/compute-pipeline-state-machine",
    "1234 is your turn to review the code",
    # a session's duration under a session-named key; a pass column's short results
    '{"name": "session-duration", "value": "3600000ms-long"}',
    "test,pass,fail\nunit,v2,0\nlint,ok12,1",
    # a repository's address after an e-mail-like user, a net user without a password, an
    # analytics cookie in a cookies.txt
    "git@github.com:acme2/Repo.git",
    "C:\\> net user jdoe /domain",
    ".github.com\tTRUE\t/\tFALSE\t1754677654\t_octo\tGH1.1.882991668.1736790026",
    # a Thai payment's reference code, a Japanese slip's and a Korean receipt's numbers, a
    # Midtrans client key (public, embedded in its checkout page)
    "วันที่ 15 ส.ค. 2567 ยอดชำระ ฿1,250.00 รหัสอ้างอิง U0P6YF4YCQ21",
    "ヤマト運輸 伝票番号 0036-3685-4580 配達完了 2024/08/13 11:42",
    "발행일 2024.08.15 / 접수번호 0811-6599657 / 처리기한 2024.08.29",
    '<script src="https://app.midtrans.com/snap/snap.js"\n'
    '  data-client-key="Mid-client-Impr2kwEG2KK">',
    # a semantic cache's key (a namespace and a digest); a hash in hex, which holds no "@"
    "cache HIT key=llm:8d0f67a5bfe34fd0687cbf7a032f628efa02461d56654ea9f7edf5e8643fc491 sim=0.994",
    "sha256=8d0f67a5bfe34fd0687cbf7a032f628efa02461d56654ea9f7edf5e8643fc491 blob=4040404040404040",
    # a company's KRA PIN (P...) on its invoice; Mexico's generic RFC of the public
    "TAX INVOICE 33144932 | Supplier: SOKO FRESH LTD | KRA PIN: P057973213E | VAT 16%",
    '<cfdi:Receptor Rfc="XAXX010101000" Nombre="PUBLICO EN GENERAL" UsoCFDI="S01"/>',
])
def test_stays(text: str) -> None:
    assert _redact(text) == text


@pytest.mark.parametrize(("text", "value"), [
    ("SIM SWAP REQUEST | MSISDN: 08104767520 | NIN: 94430351223 | Reason: lost phone",
     "94430351223"),
    ('{"employee": {"iqamaNo": "2359647993", "nationality": "IND"}}', "2359647993"),
    ("Chào shop, mình tên Mai, số CCCD 083083248547, SĐT", "083083248547"),
    ("N\u00ba afiliaci\u00f3n SS: 28/48216505/73\nIBAN", "28/48216505"),
    ("NSS: 47709807326\nCURP", "47709807326"),
    ("Kitambulisho changu ni 9521986. Naomba", "9521986"),
    ("ورقم البطاقة الوطنية G944159. بغيت", "G944159"),
    ("Meu NIS é 274.33116.80-5, quero saber", "274.33116.80-5"),
])
def test_the_collectors_names_reach_them(text: str, value: str) -> None:
    match = compile_re2(RE2_PATTERNS["national_id"]).search(text)
    assert match is not None and value in text[match.start():match.end() + len(value)], text
