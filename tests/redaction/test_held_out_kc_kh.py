"""The round of corpora KC (monitoring and observability stacks), KD (smart homes and IoT), KE
(legal work), KF (tax and e-invoicing), KG (chat bots and messaging platforms) and KH (retail
and e-commerce): each shape they found left, redacted in process, and the lines near them that
must stay."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # an IBAN and a card's number broken over two lines
    ("Kontoinhaber: Sabine Meyer IBAN: DE61 5605 6961\n3705 8827 16\nBIC: COBADEFFXXX",
     "5605 6961\n3705 8827"),
    ("[10:02:11] Kunde: meine Kreditkarte ist 3745 421287\n51434\n[10:02:40] Kunde: Ablauf",
     "421287\n51434"),
    # a smart lock's and an alarm panel's codes where home automation and handover sheets
    # hold them, and German's words for them
    ('sensor.frontdoor_code_slot_2: name="Nounou" code="189274" enabled=true', "189274"),
    ('{"service": "alarm_disarm", "target": {"entity_id": "alarm_control_panel.haus"}, '
     '"service_data": {"code": "707644"}}', "707644"),
    ('"arguments": "{\\"entity_id\\": \\"lock.front_door\\", \\"code\\": \\"494883\\"}"',
     "494883"),
    ("Texecom Premier Elite 24 - user code sheet\nMaster                          932786\n"
     "User 1 (Emily)                  9421\nDuress                          6369", "9421"),
    ("Mastercode                      291370\nZwangscode (stiller Alarm)      949921", "949921"),
    ("Lukas: Alarmanlage unscharf schalten mit 3255, Schlüssel liegt beim Nachbarn", "3255"),
    ("# Notfallcode für Nachbarin (nur Deaktivieren): 713734", "713734"),
    ("Bike shed keypad: 7178. Wi-Fi details in the welcome book.", "7178"),
    # a Z-Wave controller's keys, a Zigbee link key seed, a Thread dataset, an install code,
    # a backup's encryption key, a Matter pairing code
    ('"securityKeys": {\n  "S0_Legacy": "DA08B7F8486517486F3F87C3CC4C1282"\n}',
     "DA08B7F8486517486F3F87C3CC4C1282"),
    ('"stack_specific": {"zstack": {"tclk_seed": "70912f0daa0b66f924c652bf2c47c30f"}}',
     "70912f0daa0b66f924c652bf2c47c30f"),
    ("Install code: 969B 0809 DF15 FE1B 052E 100C DE21 400B E795", "DF15 FE1B 052E"),
    ("is it this one from my emergency kit pdf? J5F0-R8QK-F6KO-1446-2BWT-RONU-KDZW",
     "J5F0-R8QK-F6KO-1446-2BWT-RONU-KDZW"),
    ("Add it to Home Assistant with the following encryption key:\n\n"
     "    Oe4gih7S6XHAalW/kw7YQrigoQQFM52XM06/XJSl7Gg=\n", "Oe4gih7S6XHAalW/kw7YQrigoQQFM52XM06"),
    ("$ chip-tool pairing code 0x9e 13307951493", "13307951493"),
    ("curl -X POST http://192.168.1.12:8123/api/webhook/-1xLzXtUGOtGiYvkeTaAvbZ4u",
     "-1xLzXtUGOtGiYvkeTaAvbZ4u"),
    # Telegram's api_hash, a WhatsApp account's number, a Chinese mobile after a word
    ("API_ID=9640636\nAPI_HASH=ec5d44116a3419bb1bc0a88f48f76cfc",
     "ec5d44116a3419bb1bc0a88f48f76cfc"),
    ('"me":{"id":"34688710430:33@s.whatsapp.net","name":"Carlos"}', "34688710430"),
    ("帮我分析一下这条告警：用户 13909731281 的短信验证码一直发送失败", "13909731281"),
    # recovery codes in Italian, an authenticator's secret for manual entry
    ("Codici di recupero (conservali in un luogo sicuro):\n21342-41396\n39264-55771\n",
     "39264-55771"),
    ("Chiave TOTP (inserimento manuale): GOV4X4QXS26SKPEKCIWSLMIEEMTMYGSX",
     "GOV4X4QXS26SKPEKCIWSLMIEEMTMYGSX"),
    # a Mexican RFC in a path, immigration forms' fields, NIEM's SSN
    ("/srv/descargas-sat/HEGJ8904114P5/recibidos/2024/11/", "HEGJ8904114P5"),
    ("form1[0].#subform[5].Part3Line4_SSN[0]=394221334", "394221334"),
    ("form1[0].#subform[5].Line5_AlienNumber[0]=253334409", "253334409"),
    ("<nc:PersonSSNIdentification>\n  <nc:IdentificationID>459714363</nc:IdentificationID>",
     "459714363"),
    ('{"aNumber": "A239189934", "i94Number": "127893907L6"}', "127893907L6"),
    ("Sponsor compliance check\nBRP: RH1139029 (exp. 07/10/2024)", "RH1139029"),
    ("Right to work share code: WWIWCNPUB\nResult: continuous right", "WWIWCNPUB"),
    # a shop's secrets: a gift card's number and code, an order key, a reset link's token,
    # a card's code after its expiry in Spanish, eBay's cert name, a PACER login token
    ('POST /v1/giftcards/balance body={"cardNumber":"6280745424192893666","pin":"5415"}',
     "6280745424192893666"),
    ("Gift card code: S4R3 WHUJ ZTD4 NFLK\nValue: €50.00", "S4R3 WHUJ ZTD4 NFLK"),
    ("(2340, '_order_key', 'wc_order_PLyJLdf6oljzy');", "wc_order_PLyJLdf6oljzy"),
    ("https://shop.example/account/reset/7396557583545/552cf3c4b2fdd3a1ed8cf0ccf5ee33eb-1720596564",
     "552cf3c4b2fdd3a1ed8cf0ccf5ee33eb"),
    ("tarjeta 4556 6983 6624 2056 caducidad 06/26, código 146. Gracias", "146"),
    ("X-EBAY-API-CERT-NAME: PRD-13efd066d943-1c20-cdf5-d84c-ad6d", "PRD-13efd066d943-1c20"),
    ('{"nextGenCSO": "6qlRgkzS01jwx5FsHgoSOsNq5ylRYc09IAIFx1uNaqApCW9X", "loginResult": "0"}',
     "6qlRgkzS01jwx5FsHgoSOsNq5ylRYc09"),
    # monitoring: Checkmk's automation secret, a Splunk HEC token, Zabbix's session
    ("--header 'Authorization: Bearer automation zX2L1pdh0naXNbEQTWck3zmRZFPHrxTC'",
     "zX2L1pdh0naXNbEQTWck3zmRZFPHrxTC"),
    ("  hec_token 5479FBEA-0CB8-4DDB-9A1D-84BF5CB2786E\n  index k8s_logs",
     "5479FBEA-0CB8-4DDB-9A1D-84BF5CB2786E"),
    ('{"method": "user.login", "params": {}}\n{"jsonrpc": "2.0", "result": '
     '"641ce97a1813a26240a9566273ddaa9f495d5b1235c687e9d2ca2becfc98e128", "id": 1}',
     "641ce97a1813a26240a9566273ddaa9f"),
    # a password told after "with", a tax service's PIN element and key
    ("login is sanne@free.fr with password volga_perro5342", "volga_perro5342"),
    ("<ses:pin>Girasole26$Rlmz</ses:pin>", "Girasole26$Rlmz"),
    ("FisconlineSession - avvio sessione utente=x pin=7996147652 password=y", "7996147652"),
])
def test_found_in_process(text: str, value: str) -> None:
    assert value not in _redact(text), _redact(text)


@pytest.mark.parametrize("text", [
    # ids the secrets' names sit beside: a key pair's id, a record's version, a trace token,
    # a Kafka record's key, a WeChat menu's event key, a cache key's prefix
    "ebook-dl policy=eyJTdGF0ZW1lbnQiOltdfQ key_pair=KW74TIPIRRZVNK ttl=900s",
    '"receipt_number":"EJ9C","version_token":"xC1RMMqNQjnKlzGIQ6VEF9QcdA8UoRh57fA7xBtHsAh"}',
    "X-DocuSign-TraceToken: 4455c23e-4691-4a69-b2ce-3ee7499f89bd",
    "consumer=order-events partition=0 offset=51820991 key=DE-2023-298596",
    '{"type": "click", "name": "查订单", "key": "V1001_ORDER"}',
    "define( 'WP_CACHE_KEY_SALT', 'moda-lucia.it:' );",
    # stand-ins: a vendor's prefix with its value hidden, a SendGrid key of x's
    'amazon:\n  lwa_client_secret: "amzn1.oa2-cs.v1.<hidden>"',
    "SENDGRID_API_KEY=SG.xxxxx",
    # a preferences cookie in base64 JSON, a Splunk search job's sid
    "Set-Cookie: ui_prefs=eyJ0aGVtZSI6ICJkYXJrIiwgImxvY2FsZSI6ICJmci1GUiIsICJjdXJyZW5jeSI6ICJVU0Qi"
    "LCAidiI6IDN9; Path=/; Max-Age=31536000; SameSite=Lax",
    "Job sid=1742513222.30843_1UD6QNYO  (7837190 events, 16.747 seconds)",
    # an order number after a word for a phone, an address after a key's name
    "Kunde bittet um Rückruf unter [PHONE] wegen SO-2024-442462",
    "Invalid encryption key: host=192.168.1.75, port=6053; the key does not match",
    # a dial-in link's PIN, a GUID beside a card's word, a card's number and a date's year
    "Weitere Telefonnummern: https://tel.meet/wak-pbsi-xkm?pin=986878147",
    "card_id: 3F2504E0-4F89-11D3-9A0C-0305E82C3301",
    "E   card on file: none\n2024-08-02T23:19:53.5367789Z 1 failed, 212 passed in 48.22s",
    # six groups of four, a generic RFC of the public, a date-like RFC with a wrong check
    "serial A1B2-C3D4-E5F6-A7B8-C9D0-E1F2 registered",
    "RFC receptor XAXX010101000 (público en general)",
    "/srv/descargas-sat/HEGJ8904114P4/recibidos/",
])
def test_stays(text: str) -> None:
    assert _redact(text) == text
