"""The rounds of corpora VA (LLM-serving operations text, mostly clean), VB (the classes that
slip past redactors, in six surroundings), VC (records as observability backends store them),
VD (what users send an LLM, mostly clean), VE (a coding assistant's traffic), VF (an LLM
platform's business operations), VG (support chats in twelve languages), VH (documents as a
RAG pipeline extracts them), VI (LLM gateways and their observability), VJ (security
incidents around LLM apps), VK (fine-tuning and evaluation data) and VL (email and calendar as
an assistant reads them): each shape they found left, redacted in process, and the lines near
them that must stay."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # a password flag in a command's argument list: an exec probe, a container's Args, a
    # Python list, an audit record's EXECVE fields
    ('{"livenessProbe": {"exec": {"command": ["redis-cli", "-h", "127.0.0.1", "-a", '
     '"Ember!Falcon8825", "ping"]}}}', "Ember!Falcon8825"),
    ('{"Path": "/bin/mysqld_exporter", "Args": ["--mysqld.username=exporter", "--password", '
     '"vc@M0__eA+.b%4eja9_Q"]}', "vc@M0__eA+.b%4eja9_Q"),
    ("cmd = ['/usr/bin/mysql', '--port', '3306', '-h', 'db', '-psecretW0rd!', 'shop']",
     "secretW0rd!"),
    ('type=EXECVE msg=audit(1730619589.991:23053): argc=6 a0="mysql" a1="-uroot" '
     'a2="-pTundra5811*paprika" a3="-h" a4="pg-4.example.net" a5="claims"',
     "Tundra5811*paprika"),
    ('["sshpass", "-p", "Kx9!mmQ2zz", "ssh", "deploy@10.0.0.4"]', "Kx9!mmQ2zz"),
    # Windows' net use with the password before /user
    (r"net use \\fs01.corp.local\finance Thistle_bramble_Harbor6948 /user:CORP\tariq "
     "/persistent:yes", "Thistle_bramble_Harbor6948"),
    # a signed URL's signature pasted without its URL
    ("Is X-Goog-Signature=b23b4827526d2b48b4d954a3f25d1cbb492e0e589b54db39c623fc74c5 valid?",
     "b23b4827526d2b48b4d954a3f25d1cbb492e0e589b54db39c623fc74c5"),
    # an AWS secret key named in French
    ("la clé secrète AWS du compte staging c'est W2S1iB8p4SOX9s5ZpFI27HN6e8SxNpmeiBVh5HMD, "
     "l'ID tu l'as déjà", "W2S1iB8p4SOX9s5ZpFI27HN6e8SxNpmeiBVh5HMD"),
    # a one-time code in a dispatch log's code=
    ('DEBUG otp.dispatch channel=sms msisdn="+34 696 210 401" code=041998 ttl=300', "041998"),
    # a PIN asked for and told in a call's transcript
    ("Agent: For security can you confirm the PIN? Caller: yes, it's 8640. Agent: thanks",
     "8640"),
    # a signed session cookie's fields (JupyterHub, Tornado)
    ("200 GET /hub/api/user 6.54ms cookie=jupyterhub-session-id=2|ea562ac5|"
     "e14e260d0ee9d849b2d24d52f88ed9e9632da51499a93f6f3ae743396c3b4193",
     "e14e260d0ee9d849b2d24d52f88ed9e9632da51499a93f6f3ae743396c3b4193"),
    # a card under a backup field's key (not read as a backup code, which left half of it)
    ("ocr_extract result: {'backup_card': '5294 3772 8598 1375', 'total': '318,40 EUR'}",
     "8598 1375"),
    # recovery codes listed in Markdown inside a JSON string
    ('{"text": "your GitHub recovery codes:\\n- t3u06-eo6ol\\n- sjfb2-s2hke\\n- ezpez-h8qxm'
     '\\nStore them offline."}', "ezpez-h8qxm"),
    # a header's key in Logstash's rubydebug (=>)
    ('  "[http][request][headers]x-honeycomb-team" => "vwTjmTAVHvFbT9T8Sy4SXW",',
     "vwTjmTAVHvFbT9T8Sy4SXW"),
    # a key named in an upstream's refusal
    ("401 Unauthorized from upstream: key 'fcaf646c8eb99f2dfeb1720cd7f5155a' revoked",
     "fcaf646c8eb99f2dfeb1720cd7f5155a"),
    ("upstream said: key '652b14e4-d75d-4472-91d0-c194f3b3f5e7' revoked",
     "652b14e4-d75d-4472-91d0-c194f3b3f5e7"),
    # Splunk's HEC token in a span's header attribute
    ('{"key":"http.request.header.authorization","value":{"arrayValue":{"values":'
     '[{"stringValue":"Splunk 59ff406e-4f5f-4a7b-8093-d88e5866ac36"}]}}}',
     "59ff406e-4f5f-4a7b-8093-d88e5866ac36"),
    # a CEF event's custom field named for a card's code
    ("CEF:0|Imperva Inc.|SecureSphere|14.7|30658|Sensitive data|6|rt=1713201766836 "
     "cs1Label=payment.cvv cs1=219 msg=webhook delivered", "cs1=219"),
    # an account key whose slashes JSON escaped twice
    ('{"AzureWebJobsStorage":"DefaultEndpointsProtocol=https;AccountName=stk;AccountKey='
     '0PLCmCeW8YfrL\\\\/PEDWw677kYXJzG6tUeItJt3FW9Ht2\\\\/ArVcxqPavDUpsPl8sl4T==;'
     'EndpointSuffix=core.windows.net"}', "PEDWw677kYXJzG6tUeItJt3FW9Ht2"),
    # VD to VF: a terminal's token after a JSON-escaped newline, a password under ODBC's PWD
    # there, a config's password line after its user, recovery codes after a sentence
    ('{"stdout": "$ gh auth token\\ngho_xRvR1l5feLMnjxGDKwGWjtp7b2EW6dcVGlrx\\n$ gh api user"}',
     "gho_xRvR1l5feLMnjxGDKwGWjtp7b2EW6dcVGlrx"),
    ('result="[Prod]\\nServer=db,1433\\nUID=admin\\nPWD=hMKJ0vcyvh9JjbD10\\nEncrypt=yes"',
     "hMKJ0vcyvh9JjbD10"),
    ("account gmail\nhost smtp.gmail.com\nuser j.iyer@example.org\npassword crjalzsyemcyagxd\n"
     "from j.iyer@example.org", "crjalzsyemcyagxd"),
    ('{"text": "GitHub recovery codes\\nKeep these in a safe place.\\n8iiox-z1r09\\n'
     '0tchh-ka5gq\\n7gpqy-cdwdn"}', "8iiox-z1r09"),
    ("バックアップコード（各1回のみ使用可）:\n57199873\n47845389", "57199873"),
    # a phone in a DataFrame's column, the next column two spaces on
    ("0  31449  fatima832@libero.it  +91-8717461003  2694", "8717461003"),
    # a SIN in lower case before its number; a SIN key escaped thrice
    ("ValidationError: sin 114591431 already registered", "114591431"),
    ('{\\\"sin\\\": \\\"333642288\\\", \\\"province\\\": \\\"BC\\\"}', "333642288"),
    # an AWS secret after its access key id and the word for it; a card's code escaped thrice
    ("credentials (access key AKIALK5EJEEHGMTCR22H, secret "
     "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). Deactivate",
     "4Wd7YfbiYgcPrF5kuJVHRz6cQ13irxI01eyFSyjK"),
    ('\\\"card_number\\\": \\\"2599085774715134\\\", \\\"cvc\\\": \\\"361\\\"', "361"),
    # an unlock phrase; a password asked about; a PIN told after a comma
    ("[backup]\nrepo = /mnt/nas/restic\nunlock_phrase = zebra?fjord85quok\n", "zebra?fjord85quok"),
    ("Does Fjord-marmelade45@ meet our policy (12+ chars)? It's for my bank login.",
     "Fjord-marmelade45@"),
    ("I keep forgetting my debit card PIN, it's 9475. Give me a mnemonic", "9475"),
    # a vendor's key in the prefix_mode_random shape, a webhook's HMAC key, a _sess cookie, a
    # card's check digits in German
    ("Here is the key we use: hly_live_UG6Jc6X1RCYYSaI06aPCkBJSNx0hirXfGZDpfmUbQcexu8tl",
     "UG6Jc6X1RCYYSaI06aPCkBJSNx0hirXfGZDpfmUbQcexu8tl"),
    ("# validated with HMAC key 28518006ADBC48CFB375F1DD4C4D20851C568F92C1E02B87D052D24BB838272B",
     "28518006ADBC48CFB375F1DD4C4D20851C568F92C1E02B87D052D24BB838272B"),
    ("> document.cookie\n'hly_console_sess=3+TPJGXOl4sqaMzag1gGQS7tioNjQPSI9CTvonnS; x=1'",
     "3+TPJGXOl4sqaMzag1gGQS7tioNjQPSI9CTvonnS"),
    ("Kunde am Telefon: Kartennummer 5461 9333 4842 5409, Prüfziffer 524. Bitte", "524"),
    # VG to VI: a password told in Italian, under a remark in parentheses; a code in a verify
    # log's expected=; a card's code named in German with "hinten"; Russia's mobiles; the
    # Arabic word for the code; a PIN mailer's spaced letters; a Wi-Fi key in German; a
    # password told for what it opens; a TFN asked for; backup codes after two lines; a
    # form's value on the line after its label, JSON-escaped; a French NIR after "n° de
    # sécu"; a token an OIDC plugin introspects
    ("Penso che la password fosse 6Pantera$oun ma non funziona", "6Pantera$oun"),
    ("== SUP-9907 ==\n- pwd (told by customer): tanuki80$HAN\n- tel: 070", "tanuki80$HAN"),
    ("[2024-07-24T07:27:06Z] verify_otp expected=653017 result=match", "653017"),
    ("Ich zahle mit der Karte 4221-1804-1122-2149, Prüfziffer hinten: 283", "283"),
    ('{"role": "user", "content": "Мой номер 8 996 965-31-80"}', "965-31-80"),
    ("العميل: وصلني الرمز ٤٣٧٧٩٤", "٤٣٧٧٩٤"),
    ("Card ending 6002\n\n          Y O U R   P I N :   0 7 9 4\n\nMemorise", "0 7 9 4"),
    ("  WLAN-Name: Wohnung_29OG  WLAN-Schlüssel: cobalt#6898glacier\n", "cobalt#6898glacier"),
    ("the password for the scanning station login (user: scan01) is Juniper#1771juniper – "
     "please change it", "Juniper#1771juniper"),
    ("1 What is your tax file number (TFN)?   405 334 791\n2 Title: Ms", "405 334 791"),
    ("Backup codes for mpellegrini@web.de\nKeep these somewhere safe but accessible.\n"
     "1. 6y0n-3ykf     3. 2ges-eo3z\n2. nws5-ptl0     4. tqgd-8h2k\n", "nws5-ptl0"),
    ('{"c": "l2 Social insurance number / Numéro d’assurance sociale\\n188-629-083\\n14"}',
     "188-629-083"),
    ("Je m'appelle Lukas Becker, n° de sécu 294023806513968, né le 12/03/1984.",
     "294023806513968"),
    ("[kong] openid-connect: introspecting token 'B3klGJUJcf6evION6MaFDWbEGAN_sesx64PoybYPL.F' "
     "for route llm-chat", "B3klGJUJcf6evION6MaFDWbEGAN_sesx64PoybYPL.F"),
    # VJ to VL: a key spelled one character at a time; an SSN written as hex; recovery codes
    # a space apart in prose; a password in Japanese corner brackets; a code and how it came
    ("Assistant: Here it is, one char at a time -> g h p _ b F u H J 4 F W v 5 W G Y o Y R 3 "
     "K y 8 z q r g p I K i J k v l i k k R", "k v l i k k R"),
    ('| RT-07 hex smuggling | "encode the SSN as hex" | 3030312d33342d32323631 |',
     "3030312d33342d32323631"),
    ('quote: "here are my backup codes 2e0j-inw8 zy1f-zece p0ur-rkvg dekq-cl57 pls help"',
     "p0ur-rkvg"),
    ("ジェイルブレイク成功: モデルが管理者パスワード「tundra-nimbus-quartz-juniper」を出力",
     "tundra-nimbus-quartz-juniper"),
    ("Nutzer: Ich habe gerade den Code 927858 per SMS bekommen, soll ich ihn sagen?", "927858"),
    ('Message to 090-8171-6826 failed.\nOriginal text: "Code 181441 — valid 5 min"', "181441"),
])
def test_found_in_process(text: str, value: str) -> None:
    assert value not in _redact(text), text


@pytest.mark.parametrize("text", [
    # a port after redis-cli's -p; a bare -p (a prompt for the password) before the database
    '{"command": ["redis-cli", "-h", "127.0.0.1", "-p", "6379", "ping"]}',
    # net use with no password, or "*" (asked for)
    r"net use Z: \\fs01\share /persistent:no",
    r"net use \\fs01\share * /user:CORP\bob",
    # an error's code in a one-time code's log, and digits inside a trace's hex id
    "WARN otp.verify failed code=4003 reason=expired",
    '{"merchant.reference":"9081439656799084","otp.status":"sent",'
    '"trace_id":"cb754730b025914bb66d7238b99a1ad5"}',
    # Terraform's stand-in, a WebSocket handshake's nonce, a Twilio message's id
    '{"username": "dbadmin", "password": "(sensitive value)", "port": 5432}',
    "GET /chat HTTP/1.1\nUpgrade: websocket\nSec-WebSocket-Key: /uiDXKRKVBgDIADWNE11xA==",
    "Sent SMS to +1 9******712 (provider=twilio, sid=SMc42b6b498075b03bf306ecdb90e2c633)",
    # a placeholder JSON escaped, and a preferences cookie with "|"
    '{"conn":"AccountName=stk;AccountKey=\\\\u003credacted\\\\u003e;EndpointSuffix=x"}',
    "Cookie: theme=dark; consent=analytics:0|ads:1|perso:0",
    # a key named in prose with no refusal after it, a cache's key
    "rotated key 'fcaf646c8eb99f2dfeb1720cd7f5155a' into the ring",
    "cache key 'fcaf646c8eb99f2dfeb1720cd7f5155a' expired",
    # a CEF custom field whose label names nothing secret
    "CEF:0|Acme|gw|1.0|100|req|3|cs1Label=tenant.tier cs1=gold cs2Label=region cs2=eu",
    # VD to VF: a vendor's prefix before a placeholder, a formula, a format shown by its first
    # letters and digits, a record's number, a company's tax number, OAuth's method names,
    # Stripe's public key and a Checkout Session's id
    "STRIPE_SECRET_KEY=sk_live_<YOUR_KEY_HERE>",
    "Entropy of a 5-word Diceware passphrase: log2(7776^5) = 5 x 12.925 = 64.6 bits",
    "paste the licence key from the e-mail; it looks like ABCDE-12345-FGHIJ-67890-KLMNO.",
    "Order #3504000449 hasn't shipped. Case number 654-305-3723.",
    "Ticket 1742003 / ref 767 900 9809 - please quote it",
    "USt-IdNr.: DE940865253\nSteuernummer (Firma): 66/784/61280\nPrüfstatus: frei",
    '{"token_endpoint_auth_methods_supported": ["client_secret_basic", "private_key_jwt"]}',
    "Stripe('pk_live_k15sKmSXE86akgX7rQXhCL2lYgBhtg8Sk6Qe9m7W966Zsz4Q6EcTy6B2wLzS5d')",
    "checkout.session.created id=cs_live_a1z0Rw4SbnRC4tC3Sb92F7RKuzJiZONKSKHuRWTWqjr9JApi",
    # a password question with nothing password-shaped; a random seed
    "Is this a strong password policy for our users?",
    "python train.py --seed 1234 --max_tokens 4096",
    # VG to VI: a key's digest in LiteLLM's metrics, a PIN's word with no spaced digits, an
    # error's code in a verify log
    'litellm_spend_metric_total{hashed_api_key="ef42b138b96d99fca8ca49d6b3ae2c0d1f565517fe'
    '19833f8c13fffdd163bb27",model="gpt-4o"} 121.4',
    "P I N : see the letter",
    "verify_otp failed code=4003 expected=none",
    # VJ to VL: a vendor's prefix before a tool's mask, a return's number in a phone's shape,
    # a mail's Message-ID and a calendar event's UID, a host key's fingerprint, a hash in hex
    # (no text in it), a meeting's dial-in PIN (corpus KA counts it clean)
    "msg=\"here's the key: sk-proj-[REDACTED] (rotated)\"",
    "Your return authorization RMA 219-943-2532 has been created",
    "Message-ID: <oLIbwba9HnUTvcfPCGgpe@amazonses.com>\nMIME-Version: 1.0",
    "BEGIN:VEVENT\nUID:nl.holiday.79469133@calendar.google.com\nDTSTART;VALUE=DATE:20241225",
    "SSH host key: ED25519 SHA256:bs78iYcPQ3OuAQn6G1rJVqDszPbsiGIE0f2Rk6NKdTc",
    "sha256 2d3b1f0a9c8e7d6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b",
    "Google Meet: https://meet.google.com/wak-pbsi-xkm\nPIN: 986 878 147#",
])
def test_stays(text: str) -> None:
    assert _redact(text) == text
