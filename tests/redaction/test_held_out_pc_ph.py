"""The round of corpora PC (construction and trades), PD (business telephony), PE (schools,
youth clubs and churches), PF (ML experiment tracking and notebooks), PG (coding bootcamps) and
PH (LLM agent frameworks and tool servers): each shape they found left, redacted in process,
and the lines near them that must stay."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # telephony: voicemail.conf's PINs, Grandstream's P-values, Yealink's user_password, an
    # SBC's SNMP passwords, Cisco's "password 0", ARI's api_key=user:password, a Caller-ID
    ("[default]\n207 => 5065,Priya Moretti,priya@x.net,,attach=no\n221 => 3024,Jo\n", "5065"),
    ("<gs_provision>\n  <P2>Orchid$2316ember</P2>\n  <P34>9jxdH61s5v2BR1C9DoC6</P34>",
     "9jxdH61s5v2BR1C9DoC6"),
    ("P2 = QqOjKv8C0FMHZxbN\nP47 = pbx.meridianhotels.ie", "QqOjKv8C0FMHZxbN"),
    ("static.security.user_name.admin = admin\nstatic.security.user_password = admin:Qu@rtz993?",
     "Qu@rtz993?"),
    ("snmp-user-entry\n  auth-protocol sha\n  auth-password cobalt-comet-marlin1\n",
     "cobalt-comet-marlin1"),
    ("sip-ua\n authentication username pstn-gw01 password 0 L@nt3rn794?", "L@nt3rn794?"),
    ("ws://10.0.0.5:8088/ari/events?app=callbot&api_key=callbot:OAIUuTZPFxojCg6X",
     "OAIUuTZPFxojCg6X"),
    ("eFax Message 008031150 - 5 page(s) - Caller-ID: (704) 836-5816", "836-5816"),
    ("[00:01:46] caller: my pin is 6 1 2 7 ... sorry, should I say that out loud?", "6 1 2 7"),
    ('"args": ["-y", "@twilio-alpha/mcp", "ACd88c75f3fb0aa79715968d9d719116ad/4c21c1fe1b3faf5c3'
     '6c60d7b000b4411"]', "4c21c1fe1b3faf5c36c60d7b000b4411"),
    # locks, safes and codes; a password changed to a value; credentials as a call's tuple
    ("Master Lock combo on the door is 1-3-7-5", "1-3-7-5"),
    ("Petty cash safe in QS room, combination 39-38-21", "39-38-21"),
    ("Servus, Zahlenschloss vom Materialcontainer ist 2460, WLAN im Bauwagen", "2460"),
    ("heads up: gate code changed today. new contractor code is #3625*", "3625"),
    ("I changed my password yesterday to correct-nimbus-pepper15 and now it fails",
     "correct-nimbus-pepper15"),
    ('demo.launch(share=True, auth=("mateus_alb", "Ac5P5h?UJec3@"))', "Ac5P5h?UJec3@"),
    ('es = Elasticsearch("https://172.21.126.201:9200", basic_auth=("elastic", "lantern-Orchid7'
     '12#"))', "lantern-Orchid712#"),
    ('    s.login("anna_schneider@gmail.com", "ruol flwq bpfg jodn")', "ruol flwq bpfg jodn"),
    ('ngrok.set_auth_token("2jVha4qlZklhvPw3y2lQNEPVVpX_dElaEojdKy5R2b30ude1e")',
     "2jVha4qlZklhvPw3y2lQNEPVVpX_dElaEojdKy5R2b30ude1e"),
    ("127.0.0.1:6379> AUTH QHn7jxMTqfayOmPnuEWNIU1a", "QHn7jxMTqfayOmPnuEWNIU1a"),
    ("Customer: is this it? PHPSESSID = jlny5xy4y53h628zabps4bv9k7", "jlny5xy4y53h628zabps4bv9k7"),
    ("Rosa: yes use FB-7997915444402292-0-AbH6zETZWl5VEBZGUeCWuv8y2eiTYi_d",
     "AbH6zETZWl5VEBZGUeCWuv8y2eiTYi_d"),
    # keys: Dropbox's, --accesskey, Rails' master.key, Slack's and Hugging Face's links, a
    # French "clé API", Haystack's Secret.from_token, a DocuSign secret key (a UUID), a PSK
    ('dbx = dropbox.Dropbox("sl.Bv3Svzt1ptIn3qzoyJQ1f_rEzQOuDh08dw6KzwpSWJygyZKPCMgWJFiiwlWz8_hi'
     '1TXAAIAwiZGZmbu62kNxRZq_tyAaaqDCObBq3rzSWzoKJfDylKZdCIf2ouH4rfrBqVqgjSBnDbQM")',
     "Bv3Svzt1ptIn3qzoyJQ1f_rEzQOuDh08dw6Kzwp"),
    ("python download_imagenet.py --username arjun --accesskey 21b3af372285b0748f548862a7d6005cf"
     "feb9e14", "21b3af372285b0748f548862a7d6005cffeb9e14"),
    ("heroku says InvalidMessage. my master.key is 8b7caefc380ecb0cc112a0f901473e93",
     "8b7caefc380ecb0cc112a0f901473e93"),
    ("https://join.slack.com/t/byteforge-cohort26/shared_invite/zt-kq8hnebpzu8-9V4Kk0lq0sD71qK6TI"
     "fVlz", "zt-kq8hnebpzu8-9V4Kk0lq0sD71qK6TIfVlz"),
    ("Salut, voici la clé API Mistral pour le POC : nVpVeG9v2FJLL4FCiEgQ17yjb2Iv0QK1",
     "nVpVeG9v2FJLL4FCiEgQ17yjb2Iv0QK1"),
    ('CohereDocumentEmbedder(api_key=Secret.from_token("rr1gFrh8SSL8NwYEOsDxvRfK7HA8pk8acHoVLHvC")'
     ')', "rr1gFrh8SSL8NwYEOsDxvRfK7HA8pk8acHoVLHvC"),
    ("- Integration key: 30c467c3-47f6-4253-bdea-bbcf3f244125\n- Secret key: be3a21c3-bd27-495e-"
     "8c8a-6e3ed45f3824", "be3a21c3-bd27-495e-8c8a-6e3ed45f3824"),
    ("Public IP: 31.99.235.200\nIKE v2, AES256/SHA256, DH14\nPSK: yGQtQkwBO^8tSJQ1D+^o^E6=",
     "yGQtQkwBO^8tSJQ1D+^o^E6="),
    # ids and lists: an Aadhaar on its card, numbered backup codes, a member id by its
    # insurer, passwords after their names in other languages, answers after an arrow
    ("Government of India\nHyun-woo Fernández\nDOB: 12/07/1991\nFEMALE\n7068 7737 1098\n",
     "7068 7737 1098"),
    ("BACKUP VERIFICATION CODES\n1. 1820 0769\n2. 4023 1690\n3. 8254 9444\nKeep these safe.",
     "4023 1690"),
    ("Allergies: peanuts\nInsurance: Aetna member ID W579719795\nPediatrician: Dr. Lee",
     "W579719795"),
    ("Entra con mi usuario si quieres: 46714841R y la clave Kalayaan2021@", "Kalayaan2021@"),
    ("Boîte mail APE : même adresse, mot de passe Cielo$archangel9", "Cielo$archangel9"),
    ("Security question 1: Name of your first pet? \u2192 Mochi\nSecurity question 2: First car? "
     "\u2192 Fiat Uno", "Mochi"),
])
def test_found_in_process(text: str, value: str) -> None:
    assert value not in _redact(text), _redact(text)


@pytest.mark.parametrize("text", [
    # a date after a safe's word, a combo that is a name's part, the combination of years; a
    # masked licence key; Twilio's resource SIDs; Asterisk's md5secret; a sample code that
    # counts up; a stylesheet's colour; an emoji's code; optional chaining; a Java package
    "Tresor geprüft am 12-03-24",
    '{"connector": "IEC_62196_T2_COMBO", "max_voltage": 920}',
    "the combination of both 2024 and 2025 budgets",
    "Your 3CX licence has been renewed.\nLicence key: XXXX-XXXX-XXXX-XR8E\nEdition: Enterprise",
    '{"key": "io.call_sid", "value": {"stringValue": "CA3a2df0281c83175703ea169065f367b1"}}',
    "[181]\ntype=friend\nmd5secret=094d87b25c8df823e90f2577608f2efa\ncallerid=\"Room 181\" <181>",
    '"sample_messages": ["Your Lakeshore Vets code is 123456. Reply STOP to opt out."]',
    ":root {\n  --token-highlight: #ffe066; /* used for code tokens in the editor */\n}",
    "Secret Santa! The bot will DM your match - keep it secret :shushing_face:. Exchange Dec 14",
    "const token = req.headers.authorization?.split(' ')[1];",
    "ERROR [rating-batch-2] c.c.rating.RateJob - batch 78883100 failed",
    "Order #0099-3475-8203-7922 confirmed\nInstance: 8x A100 80GB SXM",
    "CEEB code (high school feeder): 146322\nGrades: PK-5",
    "Use HTTP basic auth with your client ID and secret: `Authorization: Basic <base64>`",
    "c.PasswordIdentityProvider.hashed_password = 'argon2:$argon2id$v=19$m=10240,t=10,p=8$EDvrHz"
    "wI1qh13wFPxQVgWS$FnyiORTDUCDVpMqhDWvOX'",
    "remote_receiver:\n  pin: GPIO23",
])
def test_stays(text: str) -> None:
    assert _redact(text) == text
