"""The round of corpora FC (restaurants, food delivery and their point of sale), FD (online
gambling and lotteries), FE (browsers, desktop apps and password managers), FF (university
admissions and student finance), FG (payment card infrastructure) and FH (Chinese, Japanese
and Korean developers' text): each shape they found left, redacted in process, and the lines
near them that must stay."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # restaurants and delivery: a Belgian mobile, a booking's manage link, a safe's code
    ('"0478/25.35.95",1964-02-12,VIP;Regular', "0478/25.35.95"),
    ("Manage your booking: https://www.thefork.fr/reservation/manage/187826296"
     "?t=1a849d88c9ce4fc89cf1a5ac00e52f76cf8f0939780b3918", "1a849d88c9ce4fc89cf1a5ac00e5"),
    ("Marco: e la combinazione della cassaforte è 2056, non ditela a nessuno", "2056"),
    ("Lena: Backoffice login changed. Safe code is now 4992. Delete this", "4992"),
    ("Matricule;Nom;N° Sécurité sociale;Emploi\nCUI879;KOWALSKI;198024406234631;Chef",
     "198024406234631"),
    # gambling: BankID's nnin, a paysafecard's PIN, a W-2G payee's TIN, Sumsub's token, an
    # Italian identity card, a Spanish "call me at"
    ('bankid.oidc userinfo={"nnin":"04078538290","name":"Ingrid Solberg"}', "04078538290"),
    ("ERROR [psc-redeem] redeem failed pin=6776871766156087 serial=0000000268882919",
     "6776871766156087"),
    ("compré una paysafecard de 50€ y el PIN 5315 9530 0667 5010 no funciona",
     "5315 9530 0667 5010"),
    ("W2G generated player=62734495 payee_tin=092200204 gross_winnings=81661.00", "092200204"),
    ("export SUMSUB_APP_TOKEN=prd:gPvuIYU1crhbQtjgGI0F7LHr.jS8G6GN58OPDAtCpFZY6KWe2xHvE5or6",
     "jS8G6GN58OPDAtCpFZY6KWe2xHvE5or6"),
    ("cf=LVFVZP86T10E300U nome=Francesca documento=CI numero=EY96780AT email=x", "EY96780AT"),
    ("Llamadme al 699999015, danke / gracias", "699999015"),
    # browsers and password managers: KeePass' protected values, FileZilla's base64 password,
    # 1Password's Secret Key, a TOTP seed, a card item's code, macOS' security -w, an IMAP
    # LOGIN, a cookie export's session, Slack's d cookie, German backup codes, an address
    # whose local part ends in a given name, Lan
    ('<String><Key>Password</Key><Value ProtectInMemory="True">zebra4235!</Value></String>',
     "zebra4235!"),
    ('<String><Key>PIN</Key><Value ProtectInMemory="True">465074</Value></String>', "465074"),
    ('<User>lan</User>\n<Pass encoding="base64">LSRQK08jMGRrdVctMCV6Qis3JXdt</Pass>',
     "LSRQK08jMGRrdVctMCV6Qis3JXdt"),
    ("My Secret Key from the Emergency Kit is A3-FHHC0K-11AHLX-UJKKK-1W8HY-GYNG1-WLZXY but",
     "A3-FHHC0K-11AHLX-UJKKK-1W8HY-GYNG1-WLZXY"),
    ('"password": "xB6WkuULkfOkB%", "totp": "5FBJKTMERJEWLKXDSASX6DSGWHG7CKSZ", "x": 1',
     "5FBJKTMERJEWLKXDSASX6DSGWHG7CKSZ"),
    ('"number": "2514800307302065",\n"expMonth": "2",\n"expYear": "2026",\n"code": "212"\n',
     '"212"'),
    ("$ security find-internet-password -s shop.example-store.de -a jonas -w\na7hC8DQo52y#\n$ ",
     "a7hC8DQo52y#"),
    ('IMAP: C: 2 LOGIN "mateusz+news@mareva-studio.fr" "6uCUUdkwOnmGU#"', "6uCUUdkwOnmGU#"),
    ('{\n "name": "_gh_sess",\n "path": "/",\n "value": "rhviMR1vxDKu1zXe22B4jWiptdqElfG1"\n}',
     "rhviMR1vxDKu1zXe22B4jWiptdqElfG1"),
    ("debug: cookie d=xoxd-8qqOKLVIex103eX9jt01HrgYNorfl5SSCegphLiTu9qPr; domain=.slack.com",
     "8qqOKLVIex103eX9jt01HrgYNorfl5SSCegphLiTu9qPr"),
    ("Sicherungscodes (Google-Konto)\n  6394 5422\n  9524 1126\n  n3ck-bz8h\n", "9524 1126"),
    ("<Key>UserName</Key><Value>tanaka.lan@mail.ru</Value>", "tanaka.lan@mail.ru"),
    # student finance: Nigeria's NIN and BVN under their columns
    ("applicant_id,nin,bvn,passport_no,phone\nAPP-662588,68255132231,22341291219,A99074239,"
     "08164671379", "22341291219"),
    # card infrastructure: EMV's PAN tag, packed and spaced, a packager's BCD, Postilion's
    # CardNumber, a UK Solo card, PIN blocks and a PIN pad's buffer, clear key components,
    # 3-D Secure's challenge answer
    ("de55.raw=9F02060000001991635A0840240003839608575F3401019F2608", "4024000383960857"),
    ("0000: 70 3B 5A 08 43 42 56 11 14 28 95 64 5F 24 03", "43 42 56 11 14 28 95 64"),
    ("IsoPackager  F002 LLVAR len=16 BCD: 60 11 56 43 03 98 46 36\n", "60 11 56 43 03 98 46 36"),
    ("StructuredData: 218Postilion:MetaData235211CardholderInfo111212CardNumber116"
     "4917612445227206216TerminalType11022", "4917612445227206"),
    ("TXN rrn=444526324282 pan_clear=6767700182263633247 resp=00", "6767700182263633247"),
    ('"body":{"pin_block":"C79FBD4B08D666D0","pan":"x"}', "C79FBD4B08D666D0"),
    ("  DE052 PIN Data ...................... : DF6E5758C678E262", "DF6E5758C678E262"),
    ("pedd[500]: PIN entry complete len=06 buf=086691 timeout=false", "086691"),
    ("DEBUG KLD-01 component[1] = FABA 2D32 BBAD BBE2 54CE F5B9 CC25 3E9D kcv=B463D5",
     "FABA 2D32 BBAD"),
    ("dukpt.bdk.id=BDK-UK-02\ndukpt.bdk.clear=85573666DEE2FD39D9C14CE5ED80BB5C\n",
     "85573666DEE2FD39D9C14CE5ED80BB5C"),
    ('{"messageType":"CReq","messageVersion":"2.2.0","challengeDataEntry":"698231"}', "698231"),
    # Chinese, Japanese and Korean: Tencent's SecretKey, Alibaba's STS key id, Huawei's sk=,
    # Naver's cookies, an Alipay buyer, LINE's channel access token, a spaced Chinese mobile,
    # TEL glued to a number, a certNo, 验证码, a CVC before Korean's 는, Chinese backup codes
    ('credential := common.NewCredential(\n    "AKIDdepYpdrHJQ9fqdXL77GxYsOnDox4LcNp",\n'
     '    "cjf1LbiQTu4Y7yJI69sRYW7E2SOVgIf2",\n)', "cjf1LbiQTu4Y7yJI69sRYW7E2SOVgIf2"),
    ('"AccessKeyId": "STS.4nhMDku5Q9UN9KneGBsQpM2h3",', "STS.4nhMDku5Q9UN9KneGBsQpM2h3"),
    ("[Credentials]\nak=F28NOAHKIINJET5MCX2H\nsk=VGrROSxAXQdnP9YPnXmn46xn3RoSvoVkf4kOfk00\n",
     "VGrROSxAXQdnP9YPnXmn46xn3RoSvoVkf4kOfk00"),
    ("cookies = {\n    'NID_AUT': '16ruMByov7qQ4GSr8W8xDTHxDuVKTNfXJDBYleew',\n}",
     "16ruMByov7qQ4GSr8W8xDTHxDuVKTNfXJDBYleew"),
    ("&buyer_logon_id=18147625561&trade_no=2024961722", "18147625561"),
    ("チャネルアクセストークン（長期）：\nqkenQXarGaY0au5tSkGnMlElHofRVJGPZHouSM+H2NN1fEHq7abc",
     "qkenQXarGaY0au5tSkGnMlElHofRVJGPZHouSM"),
    ("加我微信吧，手机号 186 - 2283 - 8956（同微信号）", "2283"),
    ("備考：TEL090-6903-3753 までご連絡ください", "090-6903-3753"),
    ('"biz_content": "{\\"certNo\\": \\"320102197703267364\\", \\"certType\\": \\"IDENTITY',
     "320102197703267364"),
    ("content=\"【阿里云】您的验证码为7418，5分钟内有效\"", "7418"),
    ("카드번호 4563-0560-9159-4278 이고 CVC는 190입니다.", "190"),
    ("帮我把这些备用码整理成表格，我怕丢了：\nx5vx-e87a\n461q-lneh\nlwgn-kglq\n", "461q-lneh"),
])
def test_found_in_process(text: str, value: str) -> None:
    assert value not in _redact(text), _redact(text)


@pytest.mark.parametrize("text", [
    # a barcode after its name, a browser's engine version, a subresource integrity hash,
    # electron-builder's sha512, an extension's public key, a PIN pad's key layout, a
    # Feishu event's tenant_key, a 3-D Secure ARes' authentication value (left, as an older
    # corpus counts it)
    "scan history: EAN 4841672956896 (Kaffeebohnen 1kg), ISBN 978-3-54-712548-5",
    "Google Chrome\t119.0.5642.54 (Official Build)\nV8\t11.2.211.23",
    '<script src="/static/js/runtime.js" integrity="sha256-qUozLqVkDRwc76MNW00yJLM/Dker5/SJsq'
    '36iwiCznMP273LJUCp0osunmnR7wenII3T8AGOYdUh5n5BsQtnrQ=="></script>',
    "files:\n  - url: Notely-Setup-10.7.5.exe\n    sha512: R2YudhsO4lmuFxhlGwc/k2XRQltsZPPXuY0d8G"
    "AJ9WYQg9/rcWR2YudhsO4lmuFxhlGwc/k2XRQltsZPPXuY0d8GAJ9WYQg9/rcW1234567890AB==",
    '{"manifest_version": 3, "key": "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu5Og8sNCpwYf'
    '/cPB2bT16qNrDRWqoORp8EWKnThlg5hY"}',
    "pinpad-07 pedd[111]: PIN entry started keys=numeric timeout=30s",
    '{"token": "", "app_id": "cli_e3ce283532ec1d29", "tenant_key": "38dc74bbbc298948"}',
    "mpi ARes transStatus=Y eci=02 authenticationValue=AAACBZ82RaCgL7NQAE7OzDoXVOs= dsTrans",
])
def test_stays(text: str) -> None:
    assert _redact(text) == text
