"""The last round of corpora UM (Central and Eastern Europe, Central Asia) and UO (IoT,
telecom core, vehicles, payment terminals): each shape they found left, redacted in process,
and the lines near them that must stay."""

from __future__ import annotations

import pytest
from go_regexp import compile_re2

from servescope.collector.config import RE2_PATTERNS
from servescope.redaction import Redactor

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # tokens that hold a "|" (Netatmo's, Laravel Sanctum's)
    ("Authorization: Bearer 2a7f19f680cc469c01062289|12574fbfc476ba36a54403712ccbc462",
     "12574fbfc476ba36a54403712ccbc462"),
    ('curl -H "Authorization: Bearer 12|kQ9xLmN3pRtV7wYzA2bC4dE6fG8hJ0k" https://x',
     "kQ9xLmN3pRtV7wYzA2bC4dE6fG8hJ0k"),
    # national card schemes (DinaCard, Belkart, Humo, UzCard), Luhn-valid
    ("Evo kartica: 9891 0038 1294 7809, hvala", "9891 0038 1294 7809"),
    ("карта 9112 0637 3144 0693", "9112 0637 3144 0693"),
    ("karta 9860 1836 1043 8131", "9860 1836 1043 8131"),
    ("Uzcard 8600 0669 1095 7594 ga", "8600 0669 1095 7594"),
    # Poland's account number without "PL"
    ("Przelew na konto 17 1023 2990 4623 5404 0217 2796, dzięki", "17 1023 2990 4623 5404"),
    # numbers an SMS gateway or a core network addresses
    ("render ok: to=918500129859 html=&lt;p&gt;", "918500129859"),
    ("[from:LUMABANK] [to:5521963477986] [content:'x']", "5521963477986"),
    ('db.subscribers.insertOne({imsi: "999701349704444", msisdn: ["4917657965162"]})',
     "4917657965162"),
    ("    Subscription-Id-Data: 4915161128030\n", "4915161128030"),
    ("а курьеру дайте номер 8(999)6934559, домофон не работает", "6934559"),
    # an interface's IPv6 address with its prefix length
    ("  Framed-IPv6-Prefix: 2804:14d:89c:40:a05:4f:e:8/64\n", "2804:14d:89c:40:a05:4f:e:8"),
    # one-time codes as SMS give them
    ('body="Code 483241 to confirm EUR 393.96 at ELEKTRO-MARKT."', "483241"),
    ("Your code 483241 expires in 5 minutes", "483241"),
    ("СДЭК: заказ 1374829561. Код получения: 4178. Сообщите его только сотруднику", "4178"),
    ("Нова пошта: посилка прибула. Код отримання 2640. Безкоштовне зберігання", "2640"),
    ("Kaspi.kz: Растау коды 5916. Бұл кодты ешкімге айтпаңыз", "5916"),
    ("Tatra banka: Overovací kód 2277 pre platbu 49,90 EUR", "2277"),
    # columns that hold PINs and keys
    ("name,email,card_number,door_pin,access_group\nAnanya Haddad,a@b.co.uk,43826,77253,Staff",
     "77253"),
    ("dev_eui,join_eui,app_key,name\n70B3D57ED005647F,0000000000000000,"
     "DD130D6BD51519D163D4A7A54B4139A8,soil-01", "DD130D6BD51519D163D4A7A54B4139A8"),
    # a key written as its bytes
    ("advanced:\n  network_key: [213, 43, 129, 233, 226, 74, 37, 189, 95, 143, 251, 65]",
     "213, 43, 129, 233"),
    ("static const uint8_t aes_key[16] = {0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6};",
     "0x2b, 0x7e, 0x15"),
    # an eSIM's activation code
    ("Activation code: 9PF9A-NPEQX-3HTEX-BL2Z\n", "9PF9A-NPEQX-3HTEX-BL2Z"),
    ("Full string: LPA:1$rsp.skylink-mobile.eu$9PF9A-NPEQX-3HTEX-BL2Z", "9PF9A-NPEQX-3HTEX-BL2Z"),
    ('{"iccid": "x", "matchingId": "Q1GMZ-9L7EX-E3MGF-RPV8N", "releaseFlag": true}',
     "Q1GMZ-9L7EX-E3MGF-RPV8N"),
    # ids under their tables' Cyrillic names, Ukraine's UNZR
    ("| ПІБ | РНОКПП | Телефон |\n|---|---|---|\n| Кравчук Наталія | 3194441020 | x |\n"
     "| Олійник Тарас | 2754963833 | y |", "2754963833"),
    ("ФИО;СНИЛС;ИНН\nГригорьева Елена;123-164-140 08;028387339308", "028387339308"),
    ("ID-картка № 006673850, запис в ЄДДР 20040505-11549, орган видачі 8031", "20040505-11549"),
    ("Latvija.lv: Personai ar personas kodu 260889-13846 VID EDS", "260889-13846"),
    # passports, identity cards and a driver's licence as Russia, Kazakhstan and Armenia
    # write them (Cyrillic endings, lower-case Armenian)
    ("Паспорт РК N22489232, срок действия до 17.09.2032", "N22489232"),
    ("удостоверение личности № 050760621 выдано МВД РК 03.04.2021.", "050760621"),
    ("Мои паспортные данные: 9210716886, мама будет присутствовать", "9210716886"),
    ("Номер ВУ 92 96 651067, категория B, стаж с 2012.", "651067"),
    ("Իմ անձնագիրը՝ AR2823355, հեռախոս՝ 091 27-67-99։", "AR2823355"),
    ("Ստացող՝ Անի Հ., հեռ. 093 34-62-05, էլ. փոստ", "34-62-05"),
    ("Broj osobne iskaznice: 529242439\nMobitel: 099/347-6187\n", "347-6187"),
    # a card pasted with its expiry and code; encoded numbers
    ("Оплати мне подписку сам, вот карта: 2200705032409144 11/28 964", "964"),
    ("evt=session_start csid_b64=NDkxNzQ0MTA0NjU0Nw== apn=web.vodafone.de", "NDkxNzQ0MTA0NjU0Nw"),
    ("evt=signup_step2 device=android ph_hex=333830393934303733313633 ab=B",
     "333830393934303733313633"),
    ("body: 00010141434d450001013434373735303631383733360000000000000100000033a9",
     "343437373530363138373336"),
    ("X-User-Context: eyJwaW5mbCI6ICIzMDIxMTY5MjcxMzQ1MCJ9",
     "eyJwaW5mbCI6ICIzMDIxMTY5MjcxMzQ1MCJ9"),
    ("2024-12-17 12:42:02;TORNO-2;ENTRADA;Z7787728W;empresa=Montajes Levante", "Z7787728W"),
    # recovery codes in Polish, VK's session cookie, a password under a Cyrillic JSON key
    ("Kody zapasowe do konta (każdy działa raz):\n9F59-SZPB\nVITU-U5EG", "9F59-SZPB"),
    ("remixlang=0; remixsid=e541i6aoahd4a75wgr2o4x9dqqj1fxwboa9pwcd64em07vdfj0_w; remixdt=0",
     "e541i6aoahd4a75wgr2o4x9dqqj1fxwboa9pwcd64em07vdfj0_w"),
    ('{"\\u043b\\u043e\\u0433\\u0438\\u043d":"ekaterina","\\u043f\\u0430\\u0440\\u043e'
     '\\u043b\\u044c":"kalyna_10","remember":true}', "kalyna_10"),
    # secrets in code and connection strings
    ('    .header("Api-Key", "565b5dd4-7351-4319-bdfb-4116213f94ea")',
     "565b5dd4-7351-4319-bdfb-4116213f94ea"),
    ('Set Base = V83.Connect("Srvr=""srv-1c-01:1541"";Usr=""Обмен"";Pwd=""3@h2XQ%l#%?zd&"";")',
     "3@h2XQ%l#%?zd&"),
    ("define('B24_WEBHOOK', 'https://stroymarket.bitrix24.ru/rest/14/d5rzyj3kwjhiqpx9/');",
     "d5rzyj3kwjhiqpx9"),
])
def test_found_in_process(text: str, value: str) -> None:
    assert value not in _redact(text)


@pytest.mark.parametrize("text", [
    # codes that are no one's secret
    "error code 100234 to confirm",
    "promo code 483241 for your next order",
    "status code 200 after 483241 ms",
    "Постачальник: ТОВ «Смарт Логістик», код ЄДРПОУ 42257545, МФО 305299",
    "Personas kods: 150388-*****, tālrunis +371 2*** **17",
    # a catalogue's product id, a time range's epochs and stamps, a hash under a password
    '"ProductId"="00330-80000-00000-AA679"',
    "GET /stats?from=1717000000&to=1717003600",
    "range to=202406131907 ok",
    "user,password\nbob,5f4dcc3b5aa765d61d8327deb882cf99",
    # networks, not hosts; a list of sizes under a key's name; a non-PIN column
    "route 2001:db8::/32 and 2600:1f18::/56 and 2600:1f18:1:2::/64 and fd00::1/64",
    "key_sizes: [128, 192, 256, 16, 24, 32, 64, 512]",
    "name,shipping,pin_length\nAnna,DHL,4",
    # 26 digits spaced as an account number that fails its check
    "ids 12 3456 7890 1234 5678 9012 3456",
])
def test_stays(text: str) -> None:
    assert _redact(text) == text


@pytest.mark.parametrize(("kind", "text", "value"), [
    ("national_id", "запис в ЄДДР 20040505-11549, орган", "20040505-11549"),
    ("national_id", "Мои паспортные данные: 9210716886, мама", "9210716886"),
    ("national_id", "2024-12-17;TORNO-2;ENTRADA;Z7787728W;empresa", "Z7787728W"),
    ("phone", "курьеру дайте номер 8(999)6934559, домофон", "8(999)6934559"),
    ("bearer_token", "Authorization: Bearer 2a7f19f680cc469c01062289|12574fbfc476ba36a544037",
     "12574fbfc476ba36a544037"),
    ("secret_assignment", 'Usr=""Обмен"";Pwd=""3@h2XQ%l#%?zd&"";', "3@h2XQ%l#%?zd&"),
    ("secret_assignment", "LPA:1$rsp.skylink-mobile.eu$9PF9A-NPEQX-3HTEX-BL2Z", "9PF9A-NPEQX"),
    ("secret_assignment", "https://stroymarket.bitrix24.ru/rest/14/d5rzyj3kwjhiqpx9/",
     "d5rzyj3kwjhiqpx9"),
])
def test_the_collectors_patterns_reach_them(kind: str, text: str, value: str) -> None:
    """The Collector tier's RE2 patterns (Python's re standing in: they use no look-around)
    cover each value the detectors now find, or run up to it from its name."""
    match = compile_re2(RE2_PATTERNS[kind]).search(text)
    assert match is not None and value in text[match.start():match.end() + len(value)], text
