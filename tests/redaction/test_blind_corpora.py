"""Corpora written blind: by an author who read neither the detectors nor the other corpora,
from what LLM-serving logs, configs, requests and prompts hold (tests/redaction/blind/*.jsonl,
one JSON object per line: its text and every sensitive value planted in it). Each was first
run as held-out data; its misses and false positives were then mended, and it stays here so
they stay mended.

A value is caught when no fragment of half its length (at least 6 characters) is left, except
a fragment the rest of the line holds anyway (the domain of an encoded e-mail that is also the
URL's host).

Corpora ZA to ZF were briefed to label every host's address, private ones too; the policy
redacts public addresses only (private ones are a kind a policy opts into), so a script
removed the labels of private, loopback and malformed addresses afterwards, nothing else
changed. Corpora YA to YF were briefed to label public addresses only (the same script
removed four malformed ones from YC).

Corpora Y, AA, AB, UE and UF were briefed to leave documentation addresses (192.0.2/24,
198.51.100/24, 203.0.113/24, 2001:db8::/32) unlabelled; the redactor treats them as public
(corpora A-E label them as PII), so a script labelled them afterwards (UE and UF: each address
but a network written as a CIDR block), nothing else changed.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from servescope.redaction import Redactor

BLIND = Path(__file__).parent / "blind"
CORPORA = sorted(BLIND.glob("*.jsonl"))
RECALL = 0.95
RECALL_CHECKSUMMED = 0.99
CHECKSUMMED = frozenset({"credit_card", "iban"})
MAX_CHANGED = 0.01
# Corpora OA and OB (travel and telecom, in twelve languages; data platforms and their tools).
# Corpus TA (identity documents in fifteen countries' forms, chats, CSVs and logs).
_GENERIC_ID_COLUMN = ("a national id in a Markdown table under 'ID' beside a country column: "
                      "a header naming no document")
_BAD_AADHAAR = ("an Aadhaar number whose last digit fails the Verhoeff check (the corpus's "
                "generator's, not an issued number's)")
_REQUEST_SIGNATURE = ("X-Twilio-Signature: the HMAC of one request, which signs nothing else "
                      "(left, as a webhook's other signatures are)")
_WEBHOOK_SIGNATURE = ("a webhook's or an API request's HMAC (X-Signature, hmacSignature, "
                      "Stripe-Signature's v1): it signs one request, left as every corpus's are")

_CLIENT_ID = ("an OAuth client's id (AMADEUS_CLIENT_ID, \"client_id\"): an identifier, its secret "
              "beside it is redacted")
_TERMINAL_PASSWORD = "a password typed at a GDS terminal's prompt, on the line after ENTER PASSWORD"
_STAND_IN_SET = "'changeme' as a password: read as the stand-in documentation writes"
_KEY_ID_AS_USER = ("a Confluent API key's id under a username (sasl.username, the user half of "
                   "basic.auth.user.info): its secret is redacted")
# Corpora PA and PB (identity providers; mobile apps and their backends).
_CSRF = "a CSRF token (a forgery guard, no login): left alone, as the key rules say"
_DEVICE_COOKIE = "Okta's DT device-token cookie inside a HAR's Cookie header value"
_SCIM_VALUE = ("an SSN as a SCIM patch's value, its key (nationalIdentifier) in the path beside "
               "it")
_APPLE_AUTH_CODE = "Sign in with Apple's authorization code in Swift's Optional(...) print"
_ECHOED = "a secret echoed on a CI step's own line after the command that printed it"
_GRAPHQL_VARS = ("a password as a GraphQL mutation's variable ('current'), the operation's name "
                 "(ChangePassword) apart")
# Corpora RA and RB (health, insurance, HR and payroll; security and observability tools).
_FIXED_WIDTH_SSN = ("an SSN inside a payroll file's fixed-width record, glued to the digits of "
                    "the fields beside it: nothing in the line marks it")
_TOLD_ONE_TIME_CODE = ("a one-time code told in German prose ('Der Einmal-Code ... lautet X'), "
                       "letters and digits with no code word the one-time code detector knows")
_DNS_LABEL = ("an e-mail base64-encoded as the first label of a DNS query's name (exfiltration "
              "through DNS): a label glued to the name's next one is read as part of a host")
# Corpora TE and TF (said aloud or disguised: voice agents' transcripts, call summaries, chat
# that spells its contact details; TF was held out until the spoken reading was built).
_SECURITY_ANSWER = ("a password said as a plain word after words naming no password field "
                    "('read out current password as \"Lighthouse\"', 'das Kennwort für die "
                    "Hotline ist ...'): no shape to tell it by")
_NATO_SPELLING = "letters spelled with a word for each ('C for charlie', 'j as in john'): not read"
_WRITTEN_CODE = ("digits written out (spaced one by one, grouped with double spaces, slashes or "
                 "commas) after words that name no code the detectors know, or with no name")
_NUMBER_WORDS_IN_ADDRESS = "number words inside an address's local part ('oconnor five six at')"
_MIXED_GROUPS = "an IBAN read part in words, part in written groups, its letters in lower case"
_SPOKEN_OTHER = ("a reading left: letters and number words mixed into an id with no check, a run "
                 "broken by a bracketed '[pause]', a short code after words naming none, or "
                 "groups whose pauses do not tell a card from a list")
# Corpus TG (account verification: security answers, PINs, passcodes, one-time and recovery
# codes in support chats, call transcripts and notes; held out until its detectors were built).
_TG_DIGITS = ("digits told with no word naming a code before them, or with the naming words "
              "apart ('I tried 1470', 'Authenticator shows 719 046', a PIN's digits spaced)")
_TG_WORDS = ("an answer, a passphrase or a password after words naming no question or field "
             "the detectors know ('I put Mackenzie', 'I just use X', a voice bot's slot log)")
#: Values a corpus holds that the detectors miss, and why; a miss not listed fails the test,
#: and so does a listed value that is caught now (take it off the list).
#: Corpus E labels a URL's credentials as the whole URL; the password is what is secret and
#: what is redacted, so the rest (scheme, user, host) is "left".
_WHOLE_URL = "labelled as the whole URL: only its password is secret, and it is redacted"
_KEY_ID = ("a service account key's private_key_id: corpus G labels it a secret, corpora O "
           "and V a key's id (its private key is the secret, and the PEM block is redacted)")
_W_PYTHON_LOGGING = ("nine bare digits typed into a form field by Selenium, nothing beside them "
                     "names an SSN")
_W_WRAP76 = "a key wrapped across lines of a quoted reply ('\\n> ' inside it)"
_W_JSON_SPLIT = ("a value split across two JSON fields (card or IBAN halves, a phone's dial code "
                 "apart)")
_W_CODE_SPAN = "a bare 40-character key in backticks after 'key for the cron', no vendor prefix"
_W_HTML_ENTITY = ("a bare hex key after French 'clé API' (a named entity, &eacute;, in the "
                  "word)")
_W_SSE_STREAM = "a key split across two streamed deltas"
_W_HYPHEN_BREAK = "an address hyphenated across two lines of a PDF's text"
_W_FULLWIDTH = ("a phone with Japanese's prolonged sound mark between its groups (read as a dash, "
                "it would break words such as パスワード)")
# Corpora Y, AA and AB (client devices; payments and health; network gear).
_CRYPT_HASH = ("a one-way password hash ($1$, $5$, $6$, $2y$, Cisco's $8$/$9$ with a salt, the "
               "ASA's $sha512$): left, as /etc/shadow lines are (corpora O and Z); Junos' "
               "reversible $9$ and Cisco's type 7 are redacted")
#: Corpora that label one-way hashes as passwords: their hashes are known misses (_CRYPT_HASH).
_HASHES_LABELLED = frozenset({"corpus_ab", "corpus_cc"})
_CRYPT_HASH_SHAPE = re.compile(r"\$(?:1|5|6|2[aby]|[89]|sha512)\$[^$\s]+\$\S+")
_NACHA_ID = ("an SSN at the end of a fixed-width ACH entry's 15-character id field, glued to "
             "six other digits: nothing in the line marks it")
_TOLD_IN_PARENS = "a key told in parentheses after 'the tacacs key from the wiki'"
_DELEGATED_PREFIX = ("a subscriber's delegated /64 (a network written as a CIDR block, which "
                     "stays, as issue 21 asks)")
_INTERFACE_IPV6 = ("an interface's global IPv6 address with its prefix length (inet6 "
                   "2001:db8:6bde::6b1/64): a host's address, its host bits set, redacted as "
                   "the bare address and its IPv4 twin are")
_USSD_STEP = ("a step of a USSD string ('*334*1*1*0706982393*2600*2594#', '1*4*9184'): "
              "what each step is belongs to the menu")
_PUK_AFTER_NUMBER = "a PUK after 'для номера <phone>': a phone between the PUK's name and it"
_NIP = ("a person's Polish NIP (a sole trader's invoice, PIT-37's <etd:NIP>): a NIP is left, "
        "as a company's is")
_AMOUNT_BETWEEN = ("a one-time code whose name stands before an amount and a shop ('... 24,90 "
                   "BGN в EMAG.BG е: 392728'): digits between the name and the code")
_CAMERA_AND_CODES_LEFT = "a code of letters only, or one told with no name for it"
_FORM_USE = "a one-time code in a form-encoded SMS body as 'use X to verify', no word for a code"
_NO_NAME_PASSWORD = ("a password told in prose with no digit and no symbol, or typed into a "
                     "username field (a login log's username=)")
_HL7_CUSTOM = ("a password in a custom HL7 Z-segment (ZPW), HL7-escaped: no standard field "
               "says what it is")
_GIFT_CODE = "a gift or prepaid code without dashes or in three groups of four, no name beside it"
_SPOKEN_OTP = "a one-time code read out in a chat with no word for a code before it"
_CART_TOKEN = ("Shopify's cart token under cart_token: a token's key and a token's shape, "
               "redacted like any value under a token's key")
_XML_ESCAPED_VALUE = ("a password with '&' written '&amp;' inside XML: the value read to the "
                      "'&' (an entity's start), the rest left")
_UTF16_BASE64 = ("PowerShell's -EncodedCommand: base64 of UTF-16 text, which the base64 reading "
                 "(of UTF-8 text) does not decode")
_SIP_URI = ("a SIP URI's user part (a queue, an extension, 'anonymous@anonymous.invalid') "
            "redacted as an address")
_CDR_COLUMNS = "bare ten-digit numbers in a CDR's CSV columns, no header or key"
_HEADERLESS_ROW = ("a national id in a headerless CSV row beside a person's names: bare digits "
                   "nothing names (one 9-digit number in three passes some country's check)")
# Corpora BA and BB (commerce and CRM; machine-learning workflows).
_SSN_EXAMPLES = ("nine bare digits listed as examples beside dashed SSNs ('SSNs in this column: "
                 "...'), no key or word next to them")
_USER_COLON_PASSWORD = ("token=\"user:password\" (Milvus): the value reads as the next field of a "
                        "struct print (\"token: created_at:...\"), which stays")
# Corpora CA and CB (IoT and edge devices; HR, education, government, legal).
_SYNOLOGY_SID = "a session id in a JSON answer's \"sid\" field (Synology's web API, format=sid)"
# Corpus EA (what users paste into a prompt).
_TYPED_BY_INDEX = ("typed by an agent into a page element named only by its index "
                   "(browser-use's input_text), nothing names the field")
_PYDANTIC_INPUT = ("nine digits as a validation error's 'input', the field named 'ssn' only "
                   "inside the error's 'loc' tuple printed before it, with a message between")
#: Corpus UB labels URLs' credentials as the whole URL (see _WHOLE_URL).
_UB_WHOLE_URLS = (
    'https://build-bot:UsHh+8WeoyoSOT@git.quayside.dev/data/etl-jobs.git',
    'mysql://admin:gRShbyEd2u!G@db.dukaan-mumbai.in:3306/dukaan',
    'rediss://default:9a0jNhkxOtHqhqZC3h7dEzQ6H3ZjLYVu@redis-14682.c238.us-central1-2.gce.cloud'
    '.redislabs.com:14682',
    'mongodb+srv://appAdmin:0qIm1rPVKNNncqKF@cluster0.x7k2q.mongodb.net/inventory'
    '?retryWrites=true&w=majority',
    'postgresql://orders_svc:Dzj6YxBIdhV_VU@pg-prod-3.tallyhq.com:5432/orders?schema=public',
    'redis://:LNx2Pj7pjqzrBtnC8Pqr@cache.agenziaviaggi.it:6379/0',
    'mysql://symfony:bC_Qtgoq8_YR8N@bdd-prod.atelier-garonne.fr:3306/boutique?serverVersion=8.0',
    'https://jenkins-svc:se-8oE4ypTNNWx6m@git.ridgeway-labs.net/platform/billing.git',
    'amqp://billing:Z3rZ_7T92HFOFU@mq-01.prod.stackfield.io:5672/billing',
    'ftp://scanner:cVYdB5gb1l!@ftp.printshop-nord.com/incoming/',
    'postgres://loja:hO_lpxm5eZXEb@db.lojadobairro.com.br:5432/loja',
    'postgresql://reporting_ro:Y_YeJc7v6UbxzT_G@analytics-db.prod.harborline.io:5432/finance',
)
# Corpora UE and UF (web and mobile traffic as captured; the business back office).
_CMD_ESCAPED = ("an address percent-encoded, then escaped for cmd.exe (^%40: Chrome's 'Copy as "
                "cURL (cmd)')")
_GRPC_WEB_TEXT = ("an address and a phone inside a protobuf message, base64-encoded as a "
                  "gRPC-web-text body: the bytes are not text the redactor decodes")
_HL7_IN1_SSN = "an SSN as a field of an HL7 IN1 segment: nine bare digits, no key"
# Corpus UG (security and identity operations).
_ENCODED_COMMAND = ("a password inside PowerShell's -EncodedCommand (base64 of UTF-16 text): "
                    "the redactor decodes base64 only where a credential is likely")
_SKIMMED_CODE = "a card's code under a skimmer's one-letter key (\"c\"), URL-encoded JSON"
_OLD_PASSWORD_PROSE = "an old password told in prose ('the OLD one ... was X'), no key"
# Corpus UH (what users in Asia and the Middle East type and paste, in their scripts).
_UNNAMED_PHONE = ("a mobile number with no word for a phone before it (a booking bot's 'We'll "
                  "call X', a JSON key the detectors do not know, a chat's 'PayNow me at X')")
_SPOKEN_CODE = "a one-time code read out in Spanish or Russian words by a voice bot's ASR"
_NAME = ("a person's name percent-encoded in a form or a query (no detector reads names: the "
         "kinds are identifiers and secrets)")
_ADDRESS = "a street address percent-encoded in a form or a query (no detector reads addresses)"
# Corpora ZA to ZF (mail servers; web edge and API gateways; Windows and endpoint security;
# LLM applications' own data; Latin America and Africa; mobility and logistics).
_Z_TRACKING = ("a mail's tracking or unsubscribe token in a pixel's or a list's URL (an opaque id,"
               ' no login)')
_Z_SIGNATURE_PHONE = ("a mobile number in a mail signature after 'M' in a format of no country's "
                      'plan')
_Z_MIGRATED_LOGIN = ('a password after an address on a commented line of a migration script, '
                     'nothing naming it')
_Z_GUILLEMETS = ("a password in French guillemets after 'j'ai bien mis', no word for a password "
                 'before it')
_Z_ESCAPED_BREAK = "an address split by a configuration file's escaped line break"
_Z_TOLD_CREDS = ("a password told after a user and a slash ('admin / X'), words between it and "
                 "'creds'")
_Z_CARD_IN_PATH = "a card number in a URL's path segments, its groups apart by '/'"
_Z_REFRESH_QUERY = 'a refresh token under a query key of two letters (rt=)'
_Z_PIN_SPACED = ('a PIN or a code told in two groups of three digits after words the detectors do '
                 'not read as naming it')
_Z_TOLD_NO_NAME = ("a password told in prose or chat with no word for a password next to it ('the "
                   "temp is X', 'it's X', 'the new one I set is X')")
_Z_BASE64_BSN = ("a BSN base64-encoded as a SAML attribute's value (the attribute's name says BSN,"
                 ' the redactor does not decode there)')
_Z_CRACKED = "a password in a tool's output after 'Cracked offline in 14 minutes:'"
_Z_USERNAME_FIELD = "a password typed into a username field (Windows 4625's Account Name)"
_Z_MAINTENANCE_TOKEN = "a sensor's maintenance token after words between 'token' and its colon"
_Z_TABLE_COLUMN = 'a password in a headerless table column of a PowerShell listing'
_Z_DOUBLE_ESCAPED = ('a password with escaped backslashes and quotes inside a JSON string inside a'
                     " log's JSON")
_Z_DECRYPTED_COOKIE = "a cookie's decrypted value after 'decrypted=' in a browser-store dump"
_Z_RECOVERY_PREFIX = ("a recovery code with a letter prefix (RCV-7Q2M-X8K4-L1N9) after 'use "
                      "recovery code'")
_Z_UNNAMED_PHONE = ('a mobile number with no word for a phone beside it, or in a local format of '
                    "no plan read (India's 98201 44718 without +91, Brazil's 11 98241-7730)")
_Z_SIN_TOLD = ("a SIN told after a question naming it ('you need my SIN right? it's ...'), the "
               'name out of reach')
_Z_ASPNET_HAR = 'ASP.NET\'s auth cookie as a HAR\'s {"name": ..., "value": ...} object'
_Z_SPOKEN_CODE = 'a one-time code or a PIN in a chat with no word for a code beside it'
_Z_MEMBER_ID = 'an insurance member id (no national document)'
_Z_BAD_CHECK = ("a national id whose check digit fails its country's check (the corpus's "
                "generator's)")
_Z_BARE_ID = ("a national id as bare digits with no name beside it (a table cell, a URL's path, a "
              "log's field)")
_Z_CONSUMER_KEY = "M-Pesa's consumerKey (an OAuth consumer's id: its secret beside it is redacted)"
_Z_TYPO_NAME = "a BVN named with a typo ('BBN') in Pidgin"
_Z_OCR_SPLIT = 'a CPF broken across two lines by OCR'
_Z_QUERY_SIGNATURE = "a payment gateway's hash under a one-letter query key (s=)"
_Z_MIXED_SEPARATORS = 'a card number with dots, a space and a dash between its groups'
_Z_COMPANY_SHAPE = ("a person's tax number in a company's shape (Peru's RUC 10..., Colombia's NIT,"
                    " Chile's RUTRecep)")
_Z_IMMAT = 'a Moroccan CNSS registration number (immat=), nine digits with no check'
_Z_ID_NO_NAME = "an id number after 'verified ID', the document unnamed"
_Z_BAD_SHAPE = ("a national id not of its country's shape (a Ugandan NIN of 15 characters, an INE "
                'voter key of random letters)')
_Z_LICENCE_JSON = "a driver's licence number as a JSON 'number' inside a licence or cdl object"
_Z_CHARGING_ID = ("an EV charging card's RFID uid or contract id (EMAID), a token to a charging "
                  "network, no person's id")
_Z_STATION_SUFFIX = 'three digits of a station id labelled as a secret'
_Z_FAMOUS_CF = ("Italy's textbook codice fiscale (Mario Rossi's, RSSMRA85M01H501Z), left as the "
                'published example')
_Z_TRACK2 = "a card's track 2 data broken across two lines"
_Z_DVLA_CODE = 'a DVLA check code spelled in pairs'
_Z_CALL_ARG = "a code as a call's argument (verifyEmail(..., code=470212))"
_Z_SLASH_PHONE = "a German mobile written '+49 (0) 151 / 228 440 19'"
_Z_GERMAN_MOBILE = "a German mobile spaced 0176 22 918 403 after 'Rückruf bitte unter'"
_Z_NIF_FAILS = 'a Portuguese NIF whose check digit fails'
_Z_MESSAGE_ID = ('a message id under a JSON message_id key on a host no mail provider uses for '
                 "ids, its part after '=' read as an address")
_Z_PRODUCT_KEY = ("a Windows product key (KMS's published one): a licence key is redacted whatever"
                  ' its fame')
_Z_NOREPLY = "a commit author's GitHub noreply address (per user on GitHub: it names the account)"
_Z_STEUERNUMMER = "a German Steuernummer of a company (a person's has the same shape)"
_Z_URL_PASSWORD = ("the password in postgresql://rag:rag@localhost: a URL's password is redacted "
                   'whatever it is')
_Z_ROLE_MAILBOX = "a company's role mailbox (support@): addresses are redacted whoever reads them"
_Z_RESERVED_TLD = ('an address at a reserved name (.invalid): redacted as documentation addresses '
                   'are')
_Z_ETIMS = "a Kenyan eTIMS receipt's internal data and signature in groups of four, read as codes"
_Z_BANK_CODE = "a bank's five-digit code under a YAML 'code' key, read as a one-time code"
_Z_DEVICE_IDS = "a tracker's IMEI and ICCID: handset ids are redacted on purpose"
_Z_LUHN_SERIALS = ("a charger's 16-digit serial that passes Luhn with a card's prefix, read as a "
                   'card')
_KNOWN_MISSES_Z: dict[str, dict[str, str]] = {
    'corpus_za': {
        's8Zx-crvZfz00mq_B9CuBN6GVnhS8oCE79MIwW6RJW8t': _Z_TRACKING,
        '{ARGON2ID}$argon2id$v=19$m=65536,t=3,p=1$XDjxWwypVwJLki1+xjkzIK$W2nUrDhViB9bPK4y'
        't+a6klSNmAoIpq50SPkkqBMd385': (_CRYPT_HASH),
        'L17r01_DyQQTwZ8UDVRaSq19j6q7dJ9GFQ7RVaDR': _Z_TRACKING,
        '795-542-913': _Z_SIGNATURE_PHONE,
        'uJLxRcqXJmN6CRlixpEeVC4vo3LZiPJyOo02VmgG1TSylOg': _Z_TRACKING,
        'Fjord_maple-24': _Z_MIGRATED_LOGIN,
        'Cactus-Kaffee-10': _Z_GUILLEMETS,
        'kawa#NEBEL1': _Z_MIGRATED_LOGIN,
        '{SHA512-CRYPT}$6$OHZrdoO/k3Oz5zf3$Z9.ZHPt9xLyKAXjpMQgmfTUGXCfjRxGQbJDRhiC.aCVJO5'
        'fxwYazHQl443lrGf8KyAv78qccOjMjAZ/tKqGcrp': (_CRYPT_HASH),
        '{ARGON2ID}$argon2id$v=19$m=65536,t=3,p=1$4LouNzs0CQ/YubCnqPQT6F$46ZOTfqMwj58IDzQ'
        'MUG1FB42Neg25BAQW/euoTG7X07': (_CRYPT_HASH),
        '{ARGON2ID}$argon2id$v=19$m=65536,t=3,p=1$+/Nh5SWD4tfNVW3VPQ9SWh$7GIg3zYtcKMDhlao'
        '7lqRTCqA2bSQdWZhjx4MKzGkTmY': (_CRYPT_HASH),
    },
    'corpus_zb': {
        'chen_morea\\\n    u@seznam.cz': _Z_ESCAPED_BREAK,
        '0704f8f0d56601812eb837f98807669751e01b620bfa4565eb30fbd067e249e2': _WEBHOOK_SIGNATURE,
        'Changeme449#': _STAND_IN_SET,
        '4d8242c5462fada475bb91e26ac3e01c3b97cde1ad71dea409454ea89f15a028': _WEBHOOK_SIGNATURE,
        'Changeme379': _STAND_IN_SET,
        'sommer-paris98': _Z_TOLD_CREDS,
        '3782/9697/3239/765': _Z_CARD_IN_PATH,
        'b739ae6f9d1fd0e39d034ec33e8405340f02c2e6d0cf2925062540f0255ed9f4': _WEBHOOK_SIGNATURE,
        'Changeme853!': _STAND_IN_SET,
        '0a74e6c1fc25d5071021606e4110ad9480f58bade2a9212a0fbc11a113bceebb': _Z_REFRESH_QUERY,
    },
    'corpus_zc': {
        '881 204': _Z_PIN_SPACED,
        'OTU3ODQ3ODE2': _Z_BASE64_BSN,
        'Summer2019': _Z_CRACKED,
        'Spring2024!mk': _Z_USERNAME_FIELD,
        '482 913': _Z_PIN_SPACED,
        '03f147619b9b8f679cde0a189963e2b3eeb00b792d71c2da0bac0aa68e32a168': _Z_MAINTENANCE_TOKEN,
        'bgBlAHQAIAB1AHMAZQAgAFoAOgAgAFwAXABmAHMAMAAyAFwAZgBpAG4AYQBuAGMAZQAkACAALwB1AHMA'
        'ZQByADoASABBAFIAQgBSAE8ATwBLAFwAYQAuAHMAYwBoAHUAbAB6ACAARgByAPwAaABsAGkAbgBnADIA'
        'MAAyADQAIQAgAC8AcABlAHIAcwBpAHMAdABlAG4AdAA6AG4AbwA=': (_UTF16_BASE64),
        'w7+Kq2#Lm9Vz4xTp': _Z_TABLE_COLUMN,
        'Liverpool!1987': _Z_TOLD_NO_NAME,
        'HKBNbhrc735/.K9Wqe': _Z_TOLD_NO_NAME,
        'J1ra\\\\\\\\Ld@p\\\\\\"bind': _Z_DOUBLE_ESCAPED,
        'PVlaCRwlqNL-V6SQPx71rvo0hTK1eWX3Dj0QuYkxnyhvGXEcEGl4G3RY6JX61A_hGK4VM0_kkmc-dkvl'
        'lK3zjmU1Xgmv5vw0l4c-hws8a1EMITJ649bmc6Ca4WFOrzFI0o-hbE-Xd0JFJN7x2SGYuFcTYI8Tw6FG':
            _Z_DECRYPTED_COOKIE,
    },
    'corpus_zd': {
        '0fa68bf81f4ffb8b616c763e540b8a58105e6957': _CSRF,
        'RCV-7Q2M-X8K4-L1N9': _Z_RECOVERY_PREFIX,
        '$apr1$Zx8kQ2mL$Fq7vR1tN3pW9yB5cE0hJ4/': _CRYPT_HASH,
        '98201 44718': _Z_UNNAMED_PHONE,
        '311 691 711': _Z_SIN_TOLD,
        'CfDJ8WGvct9k_QHBKD8YntDNb9EH2_2UmS3xC7JteTKr30lA0nd0n-l94_Xo6P3V2FAYT50MMJlPzDqf'
        'D2oLIpH21bqDwZs5oN0bK2hBK_p4qiMo-msmhFfJEB5ER_UntqgdPHXeKa2Ph66BGf5e_zB0bTycNezk'
        'PYWvHzrL9zBwo2dAHMIhTWTr3Ca5IXPz1D_f_5xovXDAt7CPvJfC1cJ1-u43sgborDeMrHh1pfkIHmBq'
        'XTs0k_a3kOzaoSHex5mYhOej0c_LY9I_bNfInzqMNvAbn6guNcTcYbFpKTd_84s6Y': (_Z_ASPNET_HAR),
        '17184482290': _Z_UNNAMED_PHONE,
        'Wiosna2024!!': _Z_TOLD_NO_NAME,
        '4ac6d131cf218c8759714f9528c8317577ac40117d27652e2f4f4a99943bb52c': _WEBHOOK_SIGNATURE,
        'seX6YGOrTBt3ZCrcF5ERh77QNXM=': _REQUEST_SIGNATURE,
        'JP-H8841207': _Z_MEMBER_ID,
        '7812 448 209': _Z_UNNAMED_PHONE,
        '248 112 909': _Z_NIF_FAILS,
    },
    'corpus_ze': {
        '19727054384': _Z_BAD_CHECK,
        '955 210 447': _Z_UNNAMED_PHONE,
        '30082214328': _Z_BARE_ID,
        'cUaU73frhGspLDFjikXYEm9F9jZjsmQmncOnG4Q6JJl3NteJ': _Z_CONSUMER_KEY,
        '9343': _Z_SPOKEN_CODE,
        '22224655196': _Z_TYPO_NAME,
        '274 333 700\n13': _Z_OCR_SPLIT,
        '305790': _Z_SPOKEN_CODE,
        '04903496171': _Z_BARE_ID,
        '6933435974e97eccab1866a394081395003ee3fef104240258df6a1605cf032e': _Z_QUERY_SIGNATURE,
        '11 98241-7730': _Z_UNNAMED_PHONE,
        '132120065': _Z_IMMAT,
        '10494252055': _Z_COMPANY_SHAPE,
        '5502.7060 0450-9034': _Z_MIXED_SEPARATORS,
        '6699': _USSD_STEP,
        '18444603-0': _Z_COMPANY_SHAPE,
        '904': _Z_SPOKEN_CODE,
        '20181465671': _Z_BARE_ID,
        '5581220934': _Z_UNNAMED_PHONE,
        '8806235098087': _Z_BARE_ID,
        '468567': _Z_SPOKEN_CODE,
        '0712338901': _Z_UNNAMED_PHONE,
        '13029817': _Z_ID_NO_NAME,
        '378813': _Z_SPOKEN_CODE,
        '20801732659': _Z_BARE_ID,
        'Z2NEZM2GTLHGVTLTLJ': _Z_BAD_SHAPE,
    },
    'corpus_zf': {
        '41823067': _Z_LICENCE_JSON,
        '0176 22 918 403': _Z_GERMAN_MOBILE,
        '04A1C2B3D4E580': _Z_CHARGING_ID,
        'DE-CWK-C78554227-J': _Z_CHARGING_ID,
        '412': _Z_STATION_SUFFIX,
        'NL-EVN-C00418825-7': _Z_CHARGING_ID,
        'RSSMRA85M01H501Z': _Z_FAMOUS_CF,
        'T2s0Z2dYYWVnV2xLYWx0SUNidURNbG95SDI2OW1NY2I=': _WEBHOOK_SIGNATURE,
        '54592441\n87629398': _Z_TRACK2,
        'Xk 7P Qz 2R': _Z_DVLA_CODE,
        '812 441 209': _Z_LICENCE_JSON,
        '470212': _Z_CALL_ARG,
        '043B3878C9140B': _Z_CHARGING_ID,
        '+49 (0) 151 / 228 440 19': _Z_SLASH_PHONE,
        '$9$ZpxVKL1BBKM6yt$7mtOs.uSJZ7sb/KGgln23aCzE3TS/HWjQbsnF4a.n14': _CRYPT_HASH,
        '98201 44120': _Z_UNNAMED_PHONE,
    },
}
_KNOWN_CHANGED_Z: dict[str, dict[str, str]] = {
    'corpus_za': {
        'ZA-096': _Z_MESSAGE_ID,
        'ZA-201': _Z_MESSAGE_ID,
        'ZA-466': _Z_MESSAGE_ID,
    },
    'corpus_zc': {
        'ZC-193': _Z_PRODUCT_KEY,
    },
    'corpus_zd': {
        'ZD-174': _Z_NOREPLY,
        'ZD-346': _Z_STEUERNUMMER,
        'ZD-352': _Z_URL_PASSWORD,
        'ZD-467': _Z_ROLE_MAILBOX,
    },
    'corpus_ze': {
        'ZE-063': _Z_RESERVED_TLD,
        'ZE-274': _Z_ETIMS,
        'ZE-462': _Z_BANK_CODE,
    },
    'corpus_zf': {
        'ZF-034': _Z_DEVICE_IDS,
        'ZF-120': _Z_DEVICE_IDS,
        'ZF-254': _Z_LUHN_SERIALS,
    },
}



# Corpora YA to YF (ad-tech and marketing; cloud audit trails; shell histories; Asia-Pacific
# government and fintech; data science work; voice and messaging infrastructure).
_Y_PASSWORD = ('a password told with no key or word the detectors read beside it (prose, chat, a '
               "table cell, a device's numbered field, a call's argument)")
_Y_SECRET = ('a code or a secret told with no word for it beside it, or after words the detectors '
             'do not read as naming it')
_Y_PHONE = ('a phone number with no word or key the detectors read as naming it (a table column, a'
            ' local format, a number in another script)')
_Y_NATIONAL_ID = ('a national id with no name beside it the detectors read, its name out of reach '
                  "(digits between), a form's code or a shape no detector reads")
_Y_PASSPORT = 'a passport number after words the detectors do not read as naming it'
_Y_API_KEY = ("a key with no vendor prefix of its own, under no key the detectors read (a call's "
              "argument, a URL's path, prose)")
_Y_EMAIL = "an address glued to a URL's '#' or split across a CSV's comma"
_Y_CARD = 'a card number broken across lines, grouped with dots or commas, or sent as tones'
_Y_IBAN = 'an IBAN broken across lines or spaced after its country code'
_Y_TOKEN = 'an opaque token under no key the detectors read'
_Y_SSN = 'nine bare digits with no key or word for an SSN beside them'
_Y_ENCODED = ("PII base64-encoded in a URL's path or a secret's data, where the redactor does not "
              'decode')
_Y_IPV4 = 'a public address glued to Korean text'
_Y_PRIVATE_KEY = 'a WireGuard key given through process substitution (<(echo KEY))'
_Y_DIGEST = "a SIP digest's hash (ha1, a response): one-way, left as password hashes are"
_Y_ENCODED_DASHES = 'a Thai id percent-encoded with its dashes (%2D) in a query'
_Y_RECOVERY_GRID = ("backup codes in two columns of numbered pairs ('1. wbbxz 1pslx   6. v1iak "
                    "u2ui7')")
_Y_ADS_ID = ("a Google Ads customer id (3-3-4 digits, a North American number's shape) read as a "
             'phone')
_Y_ANON_PREFIX = ('an anonymised IPv6 prefix (2a02:8109::): prefixes are redacted, as delegated '
                  'ones name a household')
_Y_SSN_SHAPE = "a batch number in an SSN's shape (202-40-6121)"
_Y_LIST_PAIR = ('a Kubernetes audit policy\'s resource list ("secrets", "configmaps") read as a key'
                ' and its value')
_Y_AWS_USER_ID = "an IAM user's unique id (AIDA...) in a console URL, read as an access key's id"
_Y_SEALED = ("a SealedSecret's encrypted value under 'password:', redacted as a value under a "
             "password's key")
_Y_RECORD_NUMBER = "an order's, a trace's or a receipt's number in a phone's shape"
_Y_COMPANY_TIN = "a company's TIN on a receipt (a person's has the same shape)"
_Y_URL_PASSWORD = ("the password in amqp://guest:guest@localhost: a URL's password is redacted "
                   'whatever it is')
_Y_LUHN_13 = 'a 13-digit id that passes Luhn with a Visa prefix, read as a card'
_Y_CARD_TOKEN = "a payment processor's card token under 'Token:' (tok_...), redacted as a token"
_Y_DB_URL = "Kamailio's database URL built from a variable, read as a password"
_Y_SIP_ACCOUNT = 'a SIP account at a provider (sip:acme_voice_prod@sip.telnyx.com): an address'
_Y_FLOW_TOKEN = "a WhatsApp flow's token under flow_token, redacted as a token"
_Y_SID = "a SIP capture's call id as a search's 'sid' value, read as a session id"
_Y_SECRET_REF = "a Kubernetes secretKeyRef's key name (auth_id) read as a value"
_Y_VERSION_COLUMN = "FreePBX modules' four-part versions in a table column, read as addresses"
_Y_FIRMWARE = "a desk phone's firmware version in its User-Agent (Yealink SIP-T46U 108.86.0.90)"
_Y_SERVICE_ACCOUNT = ("a cloud service account's or a group's address: addresses are redacted "
                      'whoever reads them')
_KNOWN_MISSES_Y: dict[str, dict[str, str]] = {
    'corpus_ya': {
        'ZW1haWw9d29qY2llY2gubWF6dXJAZ2F6ZXRhLnBsJmNpZD1qdW5fbmV3cw==': _Y_ENCODED,
        '024175794': _Y_SSN,
        'ZmaZfLEAEPeaaExy9BWGp6rz3Hoj554W': _Y_API_KEY,
        'aGVjdG9yLmFsdmFyZXpAcHJvZGlneS5uZXQubXg': _Y_ENCODED,
        'MDM3MzhlMTUzOWE3NDhhOWE3YmI=': _Y_API_KEY,
        '137066685': _Y_NATIONAL_ID,
        '6006 4912 8831 0047': _Y_SECRET,
        'frederik.holm,jubii.dk': _Y_EMAIL,
        'GC-ZLSX-K7X3-591M': _Y_SECRET,
    },
    'corpus_yb': {
        'wbbxz 1pslx': _Y_RECOVERY_GRID,
        'v1iak u2ui7': _Y_RECOVERY_GRID,
        '5q242 1nkjl': _Y_RECOVERY_GRID,
        'o87jp hn8zu': _Y_RECOVERY_GRID,
        'tq1k3 ibayk': _Y_RECOVERY_GRID,
        'pifl2 3xlei': _Y_RECOVERY_GRID,
        'w87t8 1oz6q': _Y_RECOVERY_GRID,
        'qucxi 313he': _Y_RECOVERY_GRID,
        '3j9cr lh59q': _Y_RECOVERY_GRID,
        'imgdr polyn': _Y_RECOVERY_GRID,
        'UrVKaSuy': _Y_SECRET,
        'J3372959': _Y_PASSPORT,
        'hannah_kim7@cobaltgrid.net': _Y_EMAIL,
        'brennan.giulia@pinecrest.edu': _Y_EMAIL,
        '00krg10EASs20GITSOU8TZt-cOu8QKtQnFy973eOVB': _Y_API_KEY,
        'thunder-staple-piano-saddle': _Y_PASSWORD,
        'fefddb15fbedf2aa19a7782ec125c0fc': _Y_API_KEY,
        '217.35.37.139': _Y_IPV4,
    },
    'corpus_yc': {
        '61646D696E3A7333637233742D5A326D47665648615A77': _Y_PASSWORD,
        '65489679V132': _Y_NATIONAL_ID,
        'SbyNnfKjl41MQHEOPALTw4vZ+pEo811fOtyDi9JSO78=': _Y_PRIVATE_KEY,
        'pk.eyJ1IjoiynKiCwb5XisxHIDaEhvWJsLI5Wzl7XMJwsWW4ZhG.nm_X9cHIfd1l0RQObgz-VA': _Y_TOKEN,
        'Horse_1996$': _Y_PASSWORD,
        '046 528 519': _Y_NATIONAL_ID,
        'XTbeJ56ySX7B%4934': _Y_PASSWORD,
        '16463182274': _Y_PHONE,
        '627568': _Y_SECRET,
        'bfcb77c76a9b175e3b0eba27fe2847d4f5fdb744d59b1435b8cfb8b70202c678': _WEBHOOK_SIGNATURE,
        'c80105f61cba70772aff990f7aa3532a': _Y_SECRET,
        'Blue_1992x': _Y_PASSWORD,
        '00592062274de62dd0e030a58': _Y_API_KEY,
        'Sommer@2025$': _Y_PASSWORD,
        '8594': _Y_SECRET,
        'af5e323f71cf370ca4e850343c6b8d8098e54486e4b118ae8d19322bf0550cf2': _WEBHOOK_SIGNATURE,
        '6NxGMJg2UFWxIRxyL80ZQqZLR68QkxS535fThNDy': _CSRF,
        'AHXPM1031F': _Y_NATIONAL_ID,
        'Winter_2010': _Y_PASSWORD,
    },
    'corpus_yd': {
        '72115-20637': _Y_PHONE,
        'rzp_live_0DVbpag1xYKiuM': _Y_API_KEY,
        '6586784619': _Y_PHONE,
        '8889 2393': _Y_PHONE,
        'q8Kz2m#X9LpR4vWc': _Y_SECRET,
        '1%2D1037%2D02291%2D44%2D2': _Y_ENCODED_DASHES,
        '523998116379': _Y_NATIONAL_ID,
        'B1928374': _Y_PASSPORT,
        '1596259098077': _Y_NATIONAL_ID,
        'Sayang2024#': _Y_PASSWORD,
        '089542223511': _Y_PHONE,
        '2081928374': _Y_NATIONAL_ID,
        '8137714969002': _Y_NATIONAL_ID,
        '1257995974627': _Y_NATIONAL_ID,
        '71.057.750.8-185.000': _Y_NATIONAL_ID,
        't1433873f': _Y_NATIONAL_ID,
        'rzp_live_sllZq3ZycZOkN8': _Y_API_KEY,
        '740 743 006': _Y_NATIONAL_ID,
        '157 387 222': _Y_NATIONAL_ID,
        '104-399-860': _Y_NATIONAL_ID,
        'Kq9Tz2LmX8vB4nWc': _Y_TOKEN,
        '3849618368430': _Y_NATIONAL_ID,
        '3781944017940': _Y_NATIONAL_ID,
        '4821': _Y_SECRET,
        '9041118518': _Y_PHONE,
    },
    'corpus_ye': {
        '71091758864': _Y_NATIONAL_ID,
        'WGBRUK79L44H380E': _Y_NATIONAL_ID,
        '83052863010': _Y_NATIONAL_ID,
    },
    'corpus_yf': {
        'e1d8d0f3c66b1a0d7e9b3f29b8c4d601': _Y_DIGEST,
        '7731': _Y_SECRET,
        '4932158771': _Y_PHONE,
        '40559c121604c5dc7c1158ade60b349c': _Y_DIGEST,
        '0c7f1e3b9a2d44e8a0f1b6c3d9e2a7f4': _Y_DIGEST,
        '551140040055': _Y_PHONE,
        '7558545395': _Y_PHONE,
        '4226973321': _Y_PHONE,
        '016271339325': _Y_PHONE,
        '8161040662': _Y_PHONE,
        '8107377677': _Y_PHONE,
        '3338170184': _Y_PHONE,
        'B21mGHUnuY5G+h8+XkvtdNBXVoQ=': _WEBHOOK_SIGNATURE,
        'fff5d2bf25d3299ce9edbe5790d5c41609d71ea0feaf0e23f41ff229674283d4': _WEBHOOK_SIGNATURE,
        '5215713734602': _Y_PHONE,
        '839204': _Y_SECRET,
        '16475093318': _Y_PHONE,
        '51 98412-4706': _Y_PHONE,
        'DE 17 9850 5286 2486 7984 40': _Y_IBAN,
        '4417': _Y_SECRET,
        'CXVKCOYCE': _Y_PASSPORT,
        'PL 3725 0735 4697 3402 2415 4898 40': _Y_IBAN,
        '0763159006': _Y_PHONE,
        '491527062952': _Y_PHONE,
        '222992783': _Y_SSN,
        'AmiS3cret': _Y_PASSWORD,
        'mm1dkPd6JFcJJkGIgkhQvXg1Lms=': _WEBHOOK_SIGNATURE,
        'oPdTEPXVI0EYhRNz+KcAj+iuVL4=': _WEBHOOK_SIGNATURE,
        '5,2,1,3,1,6,8,4,8,1,7,6,3,4,0,4': _Y_CARD,
        'WTZjeHLnrXCjGomJYkTeMAIg1NgvBpwHOIl7Qige': _Y_API_KEY,
    },
}
_KNOWN_CHANGED_Y: dict[str, dict[str, str]] = {
    'corpus_ya': {
        'YA-037': _Y_ADS_ID,
        'YA-045': _Y_ADS_ID,
        'YA-047': _Y_ANON_PREFIX,
        'YA-173': _Y_ADS_ID,
        'YA-250': _Y_SSN_SHAPE,
    },
    'corpus_yb': {
        'YB-063': _Y_LIST_PAIR,
        'YB-102': _Y_SERVICE_ACCOUNT,
        'YB-201': _Y_SERVICE_ACCOUNT,
        'YB-256': _Y_SERVICE_ACCOUNT,
        'YB-291': _Y_SERVICE_ACCOUNT,
        'YB-329': _Y_SERVICE_ACCOUNT,
        'YB-355': _Y_SERVICE_ACCOUNT,
        'YB-431': _Y_SERVICE_ACCOUNT,
        'YB-432': _Y_AWS_USER_ID,
        'YB-437': _Y_SERVICE_ACCOUNT,
    },
    'corpus_yc': {
        'YC-112': _Y_SERVICE_ACCOUNT,
        'YC-187': _Y_SEALED,
        'YC-266': _Y_SERVICE_ACCOUNT,
    },
    'corpus_yd': {
        'YD-317': _Y_RECORD_NUMBER,
        'YD-351': _Y_RECORD_NUMBER,
        'YD-375': _Y_COMPANY_TIN,
        'YD-461': _Y_URL_PASSWORD,
    },
    'corpus_ye': {
        'YE-070': _Y_SERVICE_ACCOUNT,
        'YE-255': _Y_LUHN_13,
    },
    'corpus_yf': {
        'YF-224': _Y_DB_URL,
        'YF-234': _Y_SIP_ACCOUNT,
        'YF-255': _Y_FLOW_TOKEN,
        'YF-282': _Y_SID,
        'YF-287': _Y_SECRET_REF,
        'YF-348': _Y_CARD_TOKEN,
        'YF-359': _Y_VERSION_COLUMN,
        'YF-362': _Y_FIRMWARE,
    },
}

# Corpora QC to QH (Europe's consumer services and administration; South Asia, the Middle
# East and Turkey; database administration; SaaS webhooks and integration platforms;
# developers asking for help in public; manufacturing, automotive and industry).
_Q_PASSWORD = ("a password with no key or word the detectors read beside it (a chat's 'pw `X`', a "
               "template's {{code}} marks, an ABAP call's VALUE bapipwd( ), a tracker's SMS "
               "command, a digits-only table cell, Spanish 'con la clave X')")
_Q_SECRET = ('a code or a secret told with no word for it beside it, or its name out of reach (a '
             "date or a serial between: 'Türcode ab 01.06.:', 'Radiocode ... (Seriennummer ...) "
             "lautet'; a psql array; a CSV's bare code column; pyotp's output; a key whose name "
             'the detectors do not read: bleKey, spin)')
_Q_PHONE = ('a phone number with no word or key the detectors read as naming it (a CSV without '
            "headers, an EDIFACT COM segment, German's '(0) 9 41 / 2 08 - 14 77', Hinglish 'aur "
            "number', a number after an address and a slash)")
_Q_NATIONAL_ID = ('a national id with no name the detectors read beside it (a bare SQL or ORM '
                  "parameter, a form's field code, a short key such as op= or ppmpf_1=, a header "
                  "the table reader does not take, a country's id without a check under a generic "
                  'name)')
_Q_PASSPORT = 'a passport number after words the detectors do not read as naming it'
_Q_KEY_ID = ("Razorpay's key id (rzp_live_...): public, sent to the browser's checkout; its secret"
             ' is the key secret')
_Q_BROKEN = "a value broken across two lines (a form's, a chat's, a log's or a table's wrap)"
_Q_TOKEN = "a token inside a Redis key's name (pwreset:<hex>)"
_Q_ENCODED = ('a base64 body the redactor does not decode (a MIME part, a binlog row event, a '
              'Lambda body holding a form, a fastlane session, a fingerprint template, a '
              "PowerShell string's base64)")
_Q_SPELLED_IBAN = ("an IBAN whose country letters and check digits are spelled apart ('D E 3 8 "
                   "2004 ...') in a call's transcript")
_Q_BAD_CHECK = ('an id whose date or check the corpus generator got wrong (a Kuwaiti civil id with'
                ' month 00 or 96, a CNIC ending in 0)')
_Q_MRZ_ESCAPED = "a passport's MRZ lines joined by a JSON-escaped line break inside a string"
_Q_DEVICE_TOKEN = ("a Firebase device registration token (<id>:APA91b...) as a push's 'to': a "
                   "device's address, left as device tokens are")
_Q_COMPANY_IBAN = "a company's IBAN on an invoice: IBANs are redacted whoever holds them"
_Q_ENC = "Jasypt's ENC(...) under a password's key: redacted as a value under that key"
_Q_ERROR_CODE = ("Twilio's error code ('code: 21211') on the line after an exception that names a "
                 'phone number, read as a code told')
_Q_ENV_KEY = ("a feature-flag service's client environment key (env_...) under environment_key, "
              'redacted as a key')
_Q_SID = "Engine.IO's session id in a socket.io URL (sid=...): a session's id, redacted as one"
_Q_SSN_SHAPE = "a part number in an SSN's shape (441-82-0917) in a parts list"
_Q_TELECOM = "a fleet's trackers' IMEIs and ICCIDs in a CSV: redacted on purpose"
_KNOWN_MISSES_Q: dict[str, dict[str, str]] = {
    'corpus_qc': {
        'SGFsbG8sCmFuYmVpIG1laW5lIERhdGVuOiBTYWJpbmUgTcO8bGxlciwgSUJBTiBERTY5MjAwNDEx\nMzMyOTUzMDA5NjYxLCBUZWwuICs0OSAxNzYgNTEyMDE3MjYKR3J1w58=':
            _Q_ENCODED,
        '0623178740': _Q_PHONE,
        '953': _Q_SECRET,
        '769-329-91-55': _NIP,
        '1564deb64277e29976c4af0be484a104443f4006b496489d9cb081521243519a': _WEBHOOK_SIGNATURE,
        'D E 3 8 2004 1133 4189 6281 05': _Q_SPELLED_IBAN,
        '942484722': _Q_NATIONAL_ID,
        'NTyDmVAjF4F5VJB9TGtdPxhDzNP5xVw_9yfxQJim': _CSRF,
        '150099206786644': _Q_NATIONAL_ID,
        'SASX-4DSG-W6HG': _Q_SECRET,
        'D E 4 0 5001 0517 7882 0844 51': _Q_SPELLED_IBAN,
        '23490615573': _Q_NATIONAL_ID,
        'Qm9uam91ciwKdm9pY2kgbWVzIGNvb3Jkb25uw6llcyA6IMOJbG9kaWUgQmVybmFyZCwgSUJBTiBG\nUjc2MzAwMDQzNjE2NzA2MTE5MzIxMzI2MTIsIHTDqWwuIDA2OTAzNDIwNzUKQ29yZGlhbGVtZW50':
            _Q_ENCODED,
        'CH876353': _Q_PASSPORT,
        '8398': _Q_SECRET,
        '199698198': _Q_NATIONAL_ID,
        '176041324396206': _Q_NATIONAL_ID,
        '32547160286': _Q_NATIONAL_ID,
        'p_5rVi5n9n40dVesO6J74r9AevaazezNvqdoudv9': _CSRF,
        '890-071-27-40': _NIP,
        '95564701236': _Q_NATIONAL_ID,
        '525073546': _Q_NATIONAL_ID,
        '666-977-02-69': _NIP,
        '4042': _Q_SECRET,
        '0739502370': _Q_PHONE,
        'cf71156cfbb204910e63f10121d3457f362a5f8b0c5722121f965b03eb65dd11': _WEBHOOK_SIGNATURE,
    },
    'corpus_qd': {
        '5125': _Q_SECRET,
        '289000484242': _Q_BAD_CHECK,
        'b670b433412061b65ecd4366bb5a9da153939ed966a608f992d13fb051a7955a': _WEBHOOK_SIGNATURE,
        '7801': _Q_SECRET,
        '5888 4503\n7870 3907': _Q_BROKEN,
        'rzp_live_6VIFhH4vOHL3lW': _Q_KEY_ID,
        '3696625574129': _Q_NATIONAL_ID,
        'ABFDCB64F3F0468E068A29301FFDB801678332777C027AADDBFE258B6736C838': _WEBHOOK_SIGNATURE,
        '854948\n664123': _Q_BROKEN,
        '7668992551523': _Q_NATIONAL_ID,
        'D723E1F94F401F062407BD8ECEF4E670D262B1E23CC47C3EE38AE14E8496F2FA': _WEBHOOK_SIGNATURE,
        '376966840057': _Q_BAD_CHECK,
        'rzp_live_dLuIEybEGd07bn': _Q_KEY_ID,
        '9cde9a01cc9afd0984db1e1f407ee06ce74cac8fc8bcda2932aa7cab336fb419': _WEBHOOK_SIGNATURE,
        '5185405744281': _Q_NATIONAL_ID,
        '50F067B74C68BD1EE27518E4BD6E1E465A7829EBC325BD99413187604E8EF1B1': _WEBHOOK_SIGNATURE,
        'ZQF4826105': _Q_NATIONAL_ID,
        '66331 71396': _Q_PHONE,
        '84196 93498': _Q_PHONE,
        '424538\n849951': _Q_BROKEN,
    },
    'corpus_qe': {
        '25619502D': _Q_NATIONAL_ID,
        '739990': _Q_SECRET,
        '477330': _Q_SECRET,
        '603084': _Q_SECRET,
        'AT89 8253 5032 |\n | 6831 6297': _Q_BROKEN,
        '650408': _Q_SECRET,
        '163125306853335': _Q_NATIONAL_ID,
        '/lPhkHqWzIY/N56bKqKItF0Z1gAAAAAAF3RvbWFzel9tdWVsbGVyODNAZ214LmRlECszNCA3MjQgNDUgODQgMDAG6mkT9lu/XOC3A5k=':
            _Q_ENCODED,
        '69083921756': _Q_NATIONAL_ID,
        'NL94 SNSB 3205 |\n | 1296 96': _Q_BROKEN,
        'd0hac-o4jiq': _Q_SECRET,
        'GEYG-1QJG-TPV2': _Q_SECRET,
        'YYN4-F96P-U80W': _Q_SECRET,
        '945662968': _Q_NATIONAL_ID,
        '/hXQyuUYpCFIpWP5/ftmr03qGAAAAAAAE25maXNjaGVyQGtwbm1haWwubmwPKzM5IDMyOCAxMDY5Mzg2YUTmVbmnjwIqIhDU':
            _Q_ENCODED,
        'd9c202adda5d1774c7d6660ed9abf974642094de485ba6b4b847bf094323c105': _Q_TOKEN,
        'SGSU-B6DA-6OW4': _Q_SECRET,
        '0945-7021': _Q_SECRET,
        '2236-0906': _Q_SECRET,
        '392900': _Q_SECRET,
        '351031': _Q_SECRET,
        '760065': _Q_SECRET,
    },
    'corpus_qf': {
        'ZW1haWw9YW5hMTQlNDBvcmJpdGNhcnQuc2hvcCZwaG9uZT0lMkIxNDE1Njk2NzM3OCZwbGFuPXBybw==':
            _Q_ENCODED,
        '1dec8ee162646ffa9204c1c9eeb488c6daa9b7fcd3ce2818f26ff6bff254199c': _WEBHOOK_SIGNATURE,
        '973226b722641b0e812e92776e2051ccb9b2baee': _WEBHOOK_SIGNATURE,
        'e50181d960e9558c1530a493afbb8b64cb580fac27cd8995efeba9032050d09c': _WEBHOOK_SIGNATURE,
        '3d0e2e8969da717d8d594ae5d7ec486d1ef4b4b3fbbc85b23ec8d9cdcb6d6eac': _WEBHOOK_SIGNATURE,
        '563faZ4#%lrYM-': _Q_PASSWORD,
        'dMNveJoRSo6mijnUYWkKQt7Tgs1Qevr9jVyNpMJbwcA=': _WEBHOOK_SIGNATURE,
        'V7THARRX3': _Q_MRZ_ESCAPED,
        'b59b6abf3e450f106f01194926fcfa607a655cb61a5f65a1343be4d769e02049': _WEBHOOK_SIGNATURE,
        '4IpIQLldkR1Km6e-ya71D2vzT7D1Ti7iZ5eRoeZxb5EoyW00oR--6AKw': _WEBHOOK_SIGNATURE,
        'wvyk4nJn5sZ3QkfvDe+0CSPWw/AYau1jzwsmiHqlEoQ=': _WEBHOOK_SIGNATURE,
        'e9ywPHe4QeC5tsOHvJv/4Z0t4M3hiEmQ+efNOslp2kU=': _WEBHOOK_SIGNATURE,
        'HFf5Qi9gcJry6VISMEysA3xia6c=': _WEBHOOK_SIGNATURE,
        '5fcda3673edc633d61f0f18b3df763c2af3651dda9674401cb307815ff0d22ea': _WEBHOOK_SIGNATURE,
        'T8Zq-etRngNflmagsJ5kcIG75RZxLu1EfwE6NCPK7gJDH.-6PPBEqUQ9': _WEBHOOK_SIGNATURE,
        'ZuXsYjHB/yMiBBFhq4U+wp2qrB0jNH3s37FiYG1kvV8=': _WEBHOOK_SIGNATURE,
        'AGsPoTlkHTiWq2cp+WKzOOo2X0Y=': _WEBHOOK_SIGNATURE,
        '06ec83ba9014914fc1e82321a73accf59e4d356266d8d9abeee58032babfa513': _WEBHOOK_SIGNATURE,
        '6rcdTokbbPP2TvWCBWBCeAG1pRHEBvLTleOu1QRA2tE=': _WEBHOOK_SIGNATURE,
        'ZW1haWw9dG9tYXN6LnRhbmFrYSUyQmJpbGxpbmclNDBvYWtyaWRnZS1kZW50YWwuY29tJnBob25lPSUyQjEzMTIzNjk2MjAxJnBsYW49cHJv':
            _Q_ENCODED,
        'atlas-orbit-marlin74': _Q_PASSWORD,
        '9a51bb5d9fb33fdebd0bd6ba93e3c411a056d753e37876d6dd9f9b9f5f9707d5': _WEBHOOK_SIGNATURE,
        'bbd933e4a241d65099eec01407ec6a1b044da05c': _WEBHOOK_SIGNATURE,
        'f2ffbf3e0b6e9aba45ee6ebc57f4590641e1f037860cf29ae36563d8b6da25a4': _WEBHOOK_SIGNATURE,
        'qh0qYp7A2bwEQN1+R+m5UKKspZ4/D6PZdH/vcUKu/RE=': _WEBHOOK_SIGNATURE,
        '+jOn+4DMl0NAvJ+M6c8gtaQ4HtovL/QJYIvPkW9QHJ4=': _Q_SECRET,
        '41KnwrxlMA+up01ceM6TeNJrg3VloJtFJwKh5Nq6Lpw=': _Q_SECRET,
        'a735951a942bed6734becc88608b144b0b2a03738e1539a748a9a7bb604c3039': _WEBHOOK_SIGNATURE,
    },
    'corpus_qg': {
        'OmN0bGluY3lhbmN5MjZtYjdudmk1ZXo1cnRlb3Y0ZWxmc2hkbHZjNXhsNmdzYW15ejQ3amk=': _Q_ENCODED,
        '40871822\n67403230': _Q_BROKEN,
        'LS0tCi0gIXJ1Ynkvb2JqZWN0OkhUVFA6OkNvb2tpZQogIG5hbWU6IG15YWNpbmZvCiAgdmFsdWU6IDFjMWM2ZDMyNWE3NWY0N2RiOGJjNWFhODBjZTFjN2FhMjI0YWI3YjZkMTUzNWNhOGVkOWQ0ZTM3NDljYWIyM2U3Y2FkN2E4YzI2Mjk4ODZkZTdmNzZmNmZhMmI0NTMxN2Y1ZGE2NTE5ODE2ZGU1YzllZDgwN2Q2YmQzMDllMzE4YjY1NmViMjY0':
            _Q_ENCODED,
        'UpCk0y91W3Jo1uSKkwcRkU:APA91bWJ4cdmNFC-nmBgqcXbAgI7N-kkR1W2DHZeOakThMUe8GF5DvedfjzilhvMTTzt7svllirNU8H1Zpg53HJ6JBW4-OC_uIe4LxcSMTOaJ14BMX3hg_vDytQAmHJoe5DaVTDFomsq':
            _Q_DEVICE_TOKEN,
        'L4AdcDdtPfq7QJ5IN32XVk:APA91bf_xkkJncNilj7tFFi2B-M8CJejNi1QpBnj5lEOLSWpZo4j8qQBrUYuKvjMGb-QcG2wFt4a4uuhMEddeVQ6-X_gP-xgHZD0ZVF0cjhGGi0UiZYYUUQ0wgNnA_ceHrRBoXU5DWlb':
            _Q_DEVICE_TOKEN,
        'LS0tCi0gIXJ1Ynkvb2JqZWN0OkhUVFA6OkNvb2tpZQogIG5hbWU6IG15YWNpbmZvCiAgdmFsdWU6IDZlZTAxNmQxZmNkZDkwOTQxZGZlNWI2MzZjMzljYzk5Y2QxOTJmMTNlMDk0NzA5OTUzODgwYTgxODJkMTNjMzExYjBiZTVhMGE2ZGE5MGU2Mjg5YWFhMmUzZGIyMGQ0ZGJhMTlkOGM5MWViMWVkM2E1YzI3OTUzYjY1OGMzZmI2NGYyNWJmYmQ4':
            _Q_ENCODED,
        '584285': _Q_SECRET,
        '٠٥٤٩٥٥٥٢٠٩': _Q_PHONE,
        '386496': _Q_SECRET,
    },
    'corpus_qh': {
        '40765219481': _Q_NATIONAL_ID,
        '444888': _Q_SECRET,
        '+49 171\n4829 306': _Q_BROKEN,
        'Ro6lxSbJMaam072jO9grD5Er2ZmXCie5fCgVwW+v5lCkzfyLh1u5I17PmHe2OpnuLtDNr2sBL6EjJyypsCmb3rRM7pRp0Tjwk16ui5Gfu5/Uc2CJKi85tbMAYPMF5zmhQmEAqBwhrk4cyPTXJVSZHzsd4Iu5uPvez7V6isqgJeEMf9Ux/a3f9cKQVrbnNJNLtrOAmkamkVk6CbuqH29pmyQuPiuRFEBTz9d/I38Rh7TiBp3cAzxwRsudVMcfcv/QVTIeHnkl46YCGjXAmlyGUxwVLbkSsmDNGQDnj6y7j4XCFziBaaUWwjW/7a/OgshnRICWMN+ulnA3W4GSf/DZ6LmCUbPc0oJfV08oNehF/7/HIN9shU1cJiX7mzyom5JXY3ZA8v3dZkgy8v1Cx4TOKLHklwcp7V0M6s0J7x4qdhUFmSL+BkfrjUIZQF9V8/D/tNkDKVmrJkmUmtjP5lJvOok0Tidl3cHkC5ELKpoAIJf2adDiCVUqwalyB/Qxss5J':
            _Q_ENCODED,
        '+420602114887': _Q_PHONE,
        '66834': _Q_SECRET,
        'OMAF-404E-AA4X': _Q_SECRET,
        '450720f20db336889d6e22808e240055f0ac202f1eb29e55aa02388b984fe6f0': _Q_SECRET,
        '+49 (0) 9 41 / 2 08 - 14 77': _Q_PHONE,
        '0512': _Q_SECRET,
        '790952': _Q_PASSWORD,
        'Werk735?': _Q_PASSWORD,
        '0049 (0)7031 / 88 21 40': _Q_PHONE,
        '0160 / 92 11 48 73': _Q_PHONE,
        'B072391856U7': _Q_NATIONAL_ID,
        'ebhu6141': _Q_PASSWORD,
    },
}
_KNOWN_CHANGED_Q: dict[str, dict[str, str]] = {
    'corpus_qc': {
        'QC-064': _Q_COMPANY_IBAN,
        'QC-190': _Q_COMPANY_IBAN,
        'QC-439': _Q_COMPANY_IBAN,
    },
    'corpus_qd': {
        'QD-015': _Q_COMPANY_IBAN,
        'QD-524': _Q_COMPANY_IBAN,
    },
    'corpus_qf': {
        'QF-002': _Q_ERROR_CODE,
        'QF-158': _Q_ERROR_CODE,
    },
    'corpus_qg': {
        'QG-128': _Q_ENV_KEY,
        'QG-151': _Q_SID,
        'QG-429': _Q_ENV_KEY,
        'QG-523': _Q_SID,
    },
    'corpus_qh': {
        'QH-091': _Q_SSN_SHAPE,
        'QH-515': _Q_TELECOM,
    },
}

# Corpora NC to NH (crypto exchanges and wallets; the Nordics, the Baltics and Eastern
# Europe; Africa; fitness and consumer health apps; service meshes and API gateways;
# Japan, Korea, China, Taiwan and Hong Kong).
_N_PASSWORD = ("a password with no key or word the detectors read beside it (a file's contents "
               "after cat, a passphrase of words in quotes, a template's error, a Kubernetes "
               "event's message, a password told in Afrikaans or Chinese prose)")
_N_SECRET = ('a code or a secret with no word for it the detectors read, or its name out of reach '
             "(a pickup, door, voucher or gift card's code; a one-time code told in a language or "
             'shape no rule reads; a seed phrase numbered one word a line or in Spanish; a secret '
             "told after 'secret on the hook is')")
_N_PHONE = ('a phone number with no word or key the detectors read beside it (a table without its '
            "header's name, a mobile-money SMS's 'au', 'vers le', 'para', a number spelled digit "
            'by digit, a Hong Kong number after a name)')
_N_NATIONAL_ID = ('a national id with no name the detectors read beside it (a bare SQL, CSV or HL7'
                  " value, a URL's path, a key such as id_number whose numbers need a check, an id"
                  ' with no public check under a generic name, a name declined or abbreviated past'
                  ' the rules)')
_N_PASSPORT = ("a passport number under a generic key (document.number, 'number'), in a CSV row "
               'that does not line up with its header, or inside an MRZ line quoted in a JSON '
               'array')
_N_KEY = ("a key with no vendor prefix under a name the detectors do not read (a Coinbase key's "
          "name, Infura's project id, a Paystack key as curl's user, Rakuten's applicationId, "
          "Baidu's ak=, an HMAC scheme's key id, a key inside a rate limiter's cache key)")
_N_TOKEN = ("a token the redactor leaves by design or cannot name (a push service's device token, "
            "an authorization code, a short link's path, a token told in prose far from its name)")
_N_PRIVATE_KEY = ("a wallet's key with no word for it beside it (a chat line, a key split across "
                  'two messages, a base58 key told in prose)')
_N_CARD = ("a card number broken across lines, grouped with dots, or of a length its issuer's "
           'prefix is not listed for')
_N_COMPANY_ID = "a company's OIB on a receipt (a person's has the same shape and check)"
_N_SERVICE_NUMBER = "a public service's number (0800 147 111) in a list of emergency lines"
_N_MESSAGE = ("a message or a note in a password's place (a validation error, a field's name in "
              'quotes), read as its value')
_N_ZEROS = "a form's stand-in of zeros (000000-0000, +46 00 000 00 00) read as an id and a phone"
_N_SLIP = "a Danish payment slip's creditor number (+10863102<) read as a phone"
_N_KAFKA_KEY = "a Kafka record's key (base64 of an order's id) read as a key's value"
_N_ROLE_MAILBOX = ("a role's or a bot's address (no-reply@, reports@, a GitHub noreply address): "
                   'addresses are redacted whoever owns them')
_N_SECRET_REF = ('a Helm value naming a Kubernetes Secret (license_secret: '
                 'kong-enterprise-license), read as the secret')
_KNOWN_MISSES_N: dict[str, dict[str, str]] = {
    'corpus_nc': {
        'organizations/d23a1786-c769-4955-ac81-012c74437bba/apiKeys/152c291c-a005-44e7-a813-21c2df8ad69b':
            _N_KEY,
        'HMHV5RYGY': _N_PASSPORT,
        'solana53whale?': _N_PASSWORD,
        '4910b83bb7e2d1e01fbfbe8b836ae88e2659269d0cadeea6b52ba585d96e5aec': _N_SECRET,
        'J7NXfa8ZBndMg3x242yIfGSTiDQr98ZupyKvG7gsVCg=': _WEBHOOK_SIGNATURE,
        '756431': _N_SECRET,
        '2fb3cc060b69b259eed15186a739132e': _CSRF,
        'jftEDZiayVenkYbgZep/oJMu4GE9Fc2/aMRLCyuHWdI=': _WEBHOOK_SIGNATURE,
        '587178': _N_SECRET,
        'G5HVHG7R9': _N_PASSPORT,
        'qHmXHTUL/9NTZ/Q7kuxQGExCZHIkICVtn5W0xjTOoIo=': _WEBHOOK_SIGNATURE,
        '4rqzFi6CtobKSCGubucs6ZEGmXYD7boZBdHL2kSRMxBJBwz1t1EEuUk6bURZyUezRAQ8AriPgnzR1o6hF7caxCF4':
            _N_PRIVATE_KEY,
        '0x8a6afff59f947fbb8f523793ef3fc4f127403dfd06b7061c7a7d287fa4f4a5b8': _N_SECRET,
        'z7VKKnwocplbDwQdJEohCEXHFIPHj/P0x+EEOZq3ZR8=': _WEBHOOK_SIGNATURE,
        'actress-author-alert-coyote7': _N_PASSWORD,
        'organizations/555b58bc-dae5-42fc-a55b-425fdb419dc2/apiKeys/fd50cbf9-6daa-4fbc-8194-b8a716666cc4':
            _N_KEY,
        '5293331e4b5d4db09be64e00ed6a5806fad4cfc3a205f1063448fcfcbcb2b49c': _WEBHOOK_SIGNATURE,
        'organizations/61983658-d6cf-45a8-af1b-954070108007/apiKeys/7f707f36-4d93-4c0f-be5c-be5db85413d6':
            _N_KEY,
        'alba adoptar alambre acento adulto aislar antiguo aéreo acoger amasar agrio adulto':
            _N_SECRET,
        '08039580202': _N_PHONE,
        '1b61a180d737e7d597ceb0236731439e2eec4aa892a3957c93202a8c74565594': _WEBHOOK_SIGNATURE,
        ('1. cabin\n2. art\n3. choice\n4. all\n5. clog\n6. angry\n'
         '7. casino\n8. cradle\n9. assault\n10. cupboard\n11. base\n12. city'):
            _N_SECRET,
        '3iScA8ppHfc9sdLJdGk5dcKgZuD5qkQqVsbzSaeMcct55W9h8V9Gvf7xr1X7dFHpLqvN1r6NuYSzF2qhYzQHoYja':
            _N_PRIVATE_KEY,
        '546fe08c1e6fd364bbfbd082775892e5aa': _N_PRIVATE_KEY,
        '75181c32a81041ae03e4ef2ade2d82': _N_PRIVATE_KEY,
        '9dc18e184802f71c129b879232d128cae074f36ac5ffffb8c1697b0d4ba4361d': _WEBHOOK_SIGNATURE,
        '3d6c7bd82150494eb14513b2e4381a11': _N_KEY,
        ('1. avocado\n2. cram\n3. cinnamon\n4. creek\n5. bargain\n6. conduct\n'
         '7. clutch\n8. black\n9. cute\n10. come\n11. boy\n12. camera'):
            _N_SECRET,
        'istanbul60Galaxy$': _N_PASSWORD,
        '2b7635b4b9d5ae875017665a9299e9ae': _CSRF,
        '1D9blnh8WSFSBttmP/BmVn1vB+myzqlbBfkFMEkh+0o=': _WEBHOOK_SIGNATURE,
        '90b462e03f98513cf1ea1a6213a642b9': _N_KEY,
        '46c041085f62a5590c7512681f05ce9b37fd6c79a214b8b4e112071841429a30': _WEBHOOK_SIGNATURE,
        '8wG4jbIA': _N_KEY,
        'aFI4F5oIOcSVVUpL0zd3B5GJ/nidajGb2qrMb4nQ8Sw=': _WEBHOOK_SIGNATURE,
        '0a71ed7fe145c18ed4086c74f3b31cd4a5': _N_PRIVATE_KEY,
        '6818197af90778fe28cd26a73bc074': _N_PRIVATE_KEY,
        '0xc6ec2016a43080f4607277e0cbc316c1a300987184e3bc946b4595bacd53037e': _N_PRIVATE_KEY,
        'df07efb18411c4be96c7578ed46ac919': _CSRF,
        '0xcc956b0aac49b73c3420b1c22fb208b2697420eca734b591ee5c4e08b7390b62': _N_PRIVATE_KEY,
        'Galaxy!2023wagmi': _N_PASSWORD,
        'YDVAhmQsKF5ssGIx+RMXecJ6dNfI4GySmi8rXkR9w+o=': _WEBHOOK_SIGNATURE,
    },
    'corpus_nd': {
        '35004078814': _N_NATIONAL_ID,
        '2275': _N_SECRET,
        '8QSWC4QGQ0': _N_SECRET,
        '689-3405': _N_PHONE,
        '9407': _N_SECRET,
        '130486<639D': _N_NATIONAL_ID,
        'g5fwDYV7CzTQJALjTatf50xscUCJU7D4': _CSRF,
        '49402069538': _N_NATIONAL_ID,
        '71522630554': _N_NATIONAL_ID,
        '17105409672': _N_NATIONAL_ID,
        '21024933935': _N_NATIONAL_ID,
        '492-499': _N_SECRET,
        'HZ432294': _N_NATIONAL_ID,
        '090125222': _N_NATIONAL_ID,
        '36502026951': _N_NATIONAL_ID,
        '45 13': _N_NATIONAL_ID,
        '378892': _N_NATIONAL_ID,
        '200111015996': _N_NATIONAL_ID,
        '251172 -3329': _N_NATIONAL_ID,
        '920251': _N_SECRET,
        '197705021132': _N_NATIONAL_ID,
        '49505148344': _N_NATIONAL_ID,
        '73100852741': _N_NATIONAL_ID,
        '44670947': _N_SECRET,
        '0 5 0 7 4 8 5 4 0 8': _N_PHONE,
        '5783532010429297': _N_NATIONAL_ID,
        '24055': _N_SECRET,
        '985657': _N_SECRET,
        '2966616354': _N_NATIONAL_ID,
        '845-4704': _N_PHONE,
        '6923-9222': _N_SECRET,
        '1302': _N_SECRET,
    },
    'corpus_ne': {
        '21994379': _N_NATIONAL_ID,
        '9585392': _N_NATIONAL_ID,
        '7054': _N_SECRET,
        '260764513733': _N_PHONE,
        '0102': _N_SECRET,
        '0776111886': _N_PHONE,
        '5rTghSNPV6Rz1s0XCRXbpV': _N_TOKEN,
        '61z2vPMzyFBluMpQ8byD': _N_SECRET,
        'lRwbp4K0LaS0qsEWmyazDFaRWfSJR7En': _N_KEY,
        '3522': _N_SECRET,
        '233568469286': _N_PHONE,
        '233548032281': _N_PHONE,
        '233247970516': _N_PHONE,
        '233245061883': _N_PHONE,
        '6411': _N_SECRET,
        '2686205': _N_NATIONAL_ID,
        '3125-5351-6341-17': _N_SECRET,
        '39088807': _N_NATIONAL_ID,
        '1202': _N_SECRET,
        '0548339302': _N_PHONE,
        '08152944088': _N_PHONE,
        'C#uJf0ckUVoDE&m': _N_PASSWORD,
        '0924496504': _N_PHONE,
        '0504758898': _N_PHONE,
        '852900062': _N_PHONE,
        'ubuntu.Mamba96': _N_PASSWORD,
        '5078 6555 6301 0508 170': _N_CARD,
        'RnwBjpSEu4ItA14kjAWn': _N_SECRET,
        '3166': _N_SECRET,
        '0854': _N_SECRET,
        'st4GP1PpnMgb5dr9YVhs0EXNgVUOLKEX': _N_KEY,
        '26047475': _N_NATIONAL_ID,
        '5972474': _N_NATIONAL_ID,
        'BJ9FWLmDsw2CZBTPburVJt': _N_TOKEN,
        '233277831836': _N_PHONE,
        '233502356258': _N_PHONE,
        '233555555253': _N_PHONE,
        '233504518918': _N_PHONE,
        '229736': _N_SECRET,
        '33875115': _N_NATIONAL_ID,
        '254721100319': _N_PHONE,
    },
    'corpus_nf': {
        '2YU1IXPI': _N_SECRET,
        '8d5536ad862650c80ebf499dc0230526cecfe644db4f5d4af08847f10e2165f5': _N_TOKEN,
        'fMjWmZ%2F8MeJoq2K0Ii%2FgxvA%2FmNw%3D': _WEBHOOK_SIGNATURE,
        '8deeb851a07bcf334ef23090330397eeda99869eff817e0f8295718350bf5ca0': _N_TOKEN,
        '+44 7182\n717472': _Q_BROKEN,
        'b30e266282c52cfef0db4e1ffc6c317810417be2': _N_TOKEN,
        'ExponentPushToken[i3buA9bDFgYxgoHRhgJGR8]': _N_TOKEN,
        'HUxB7luF4-Y8Non0pf3vwf:APA91bZRH6VM_lDlsIW3TWLHYFryjxCLQDI-8K0P6aI5yCHyvGNtqHrdAMSUfKAzwJtntzEKL5D-Z0-0HQm4kpI2A7WZPbpJFCyp0P7kw6QZ2U8b2J7Na_tiCJywp6e6ufO2rEeHPksJ':
            _N_TOKEN,
        'sunrise959389': _N_PASSWORD,
        '4556 1263\n2833 4852': _N_CARD,
        'ZpN_agwb0Esqo37DuCAF_U:APA91bZZXIJgnpDPVLLhWo9JgbMj8zKtV30g947DDuscLl2d8dkxx7TJJfm9OnPVr7006V05U_ATgyERIuf0S4Fn8ZEC04m3H1chp8-MQHiO50qLBc5-394AxFlLULHSTd1QuM6cXPcG':
            _N_TOKEN,
        '1208': _N_SECRET,
        '7E3QFLVC': _N_SECRET,
    },
    'corpus_ng': {
        'R2NLzQlzyvWNh9ECnJ57CeEVcy4ArnTiNycBgdT5': _N_SECRET,
        '76121365546': _N_NATIONAL_ID,
        'eJI1UW7Vh1OTK952IcgYgCknCQVo09r0': _N_KEY,
        'dbDqtkYShGpY6bBWyBQOdQuZcoHk/QSsqHozIdmrqss=': _WEBHOOK_SIGNATURE,
        'O2FAhgJxFMLe1xt5r174ScM8PEJEvB5w1B+nwdTDkNw=': _WEBHOOK_SIGNATURE,
        'cactus-rocket-glacier-glacier': _N_PASSWORD,
        '515443050': _N_PASSPORT,
        'H371CR9N6': _N_PASSPORT,
        'AejlluAyeMY8ODmIgJKEXxQbukj5YyecsYZzwKgE': _N_SECRET,
        'Winter2025#': _N_PASSWORD,
        'anchor-correct-violet-staple': _N_PASSWORD,
    },
    'corpus_nh': {
        '070-8287-\n5489': _Q_BROKEN,
        '527': _N_SECRET,
        'hqO2VGCvq6IVgzzm2XmQGsJC7AJo4cXZADXvnmW+zbFR1VEjQU+vWlyuAYQfZlDPJ6W9oQJvl1D2p10HR23BFefvlMLr+itfhk8sFWxtqlSFqMm1jw1eG+n8akU/BeP0kbz+JhOVDXfrrJ6atzF9v06Bz0n80FWf+dd+qGtENh41W/EYONbAd1rFCUxavNM4GBYhxvvvjQ5XdYr8VFh4TheOILmWOgIQJAdXqjRjVRJg8371K0KxQuNWrVt1giBXvqJlcKbrK/IZ8iBv1reL3CX0yCWqTz1TDkP9rTB697V0X8Y/4KrE7B2YJXrRj3Oa2ndz2T65G5KD9mbsIB9rdA==':
            _WEBHOOK_SIGNATURE,
        '672426': _N_PASSWORD,
        '661924314539': _N_NATIONAL_ID,
        'K100940670': _N_NATIONAL_ID,
        '998': _N_SECRET,
        'FJ0mPN/ptzKPA/PMwPiGw8xzS6vux+Io64x/X1l6lFg=': _WEBHOOK_SIGNATURE,
        'rful79U4hIzQtmh6r5WZNO8C+HC9OA8dmVvyvc5sSjU=': _WEBHOOK_SIGNATURE,
        'a_VdBU9pOFjp_oeSp': _N_KEY,
        'Bz1ksYU5F3QL6qVQds6yBk8+8Sd30U4CozBkjvtHENY=': _WEBHOOK_SIGNATURE,
        'MZ0629401': _N_PASSPORT,
        '4si/uC3x02uC3t0HGm5UVPNPQ2NxNF7bIHDNBkSOhWLf2JM4cUhPS4ZjUipnSMPXnFOVbnR4MX/rlwqg7d6jpE0VrzAuuNRinYVxfazWbMJAkJKoBBNn5VF2q4b4x8bl1Ak+wps0PfSh/afBsJeTQSgxjtAYk9A4x6gkSfz+Z77ZEjfzm5Ns2ZaP4TOwumDyWFM64/iTZLfON+n26UufGGjI1ihpRomvfJbkNjZZV/o30SrXu7EoHTf2Fp38jkRnby73BLT3ZVOi6EzDRFc8HUmMHget4qyVoKkMLxly+YOX4mPs38zDE3uAOA6yGL3xKqj7YnUXMGZYkogmLh6wGA==':
            _WEBHOOK_SIGNATURE,
        'c4wyy-nh2zf': _N_SECRET,
        'jwxux-najys': _N_SECRET,
        'z6dfb-jxm25': _N_SECRET,
        '2my69-a63jf': _N_SECRET,
        'J210331166': _N_NATIONAL_ID,
        '2495-6877-2050-215692': _N_SECRET,
        '758': _N_SECRET,
        '353542790': _N_PASSPORT,
        'A111931991': _N_NATIONAL_ID,
        '363655738': _N_PASSPORT,
        'R198378641': _N_NATIONAL_ID,
        '#8841': _N_SECRET,
        '6C482307996661383321CBBC94187748': _WEBHOOK_SIGNATURE,
        '870502 - 1432539': _N_NATIONAL_ID,
        'dcb0e86af171a33b7b10e9e1bc6a7833': _N_KEY,
        '9971#': _N_SECRET,
        'M63122746': _N_PASSPORT,
        '99742656': _N_PHONE,
        'f07b7253bd4e17c4b5444deda18f3d7814330c95d604eb427e0ace6f141af9d0': _WEBHOOK_SIGNATURE,
        '3168152057744424950': _N_KEY,
        '395641088': _N_PASSPORT,
        'K225780734': _N_NATIONAL_ID,
        '395788521': _N_PASSPORT,
        'B251409257': _N_NATIONAL_ID,
        'a_pivdxPv2iZ_x76k': _N_KEY,
        'k/zX8ePZm+9O5iwRubhYVkB4d6LwVvpDJLaGUVbySyg=': _WEBHOOK_SIGNATURE,
        'd5699495ae35fdf0fbcce972fc04361ddc874baef6102025b1d2280c12592da2': _WEBHOOK_SIGNATURE,
        '7282': _N_SECRET,
        '349165752247': _N_NATIONAL_ID,
        '012': _N_SECRET,
    },
}
_KNOWN_CHANGED_N: dict[str, dict[str, str]] = {
    'corpus_nc': {
        'NC-283': _Q_COMPANY_IBAN,
        'NC-291': _Q_COMPANY_IBAN,
    },
    'corpus_nd': {
        'ND-032': _N_COMPANY_ID,
        'ND-113': _N_SERVICE_NUMBER,
        'ND-116': _N_MESSAGE,
        'ND-134': _Q_COMPANY_IBAN,
        'ND-218': _Q_COMPANY_IBAN,
        'ND-239': _Q_COMPANY_IBAN,
        'ND-274': _N_ZEROS,
        'ND-288': _N_SLIP,
        'ND-331': _N_MESSAGE,
    },
    'corpus_ne': {
        'NE-495': _N_KAFKA_KEY,
    },
    'corpus_nf': {
        'NF-263': _N_ROLE_MAILBOX,
        'NF-346': _N_ROLE_MAILBOX,
        'NF-422': _N_ROLE_MAILBOX,
        'NF-508': _N_ROLE_MAILBOX,
    },
    'corpus_ng': {
        'NG-090': _N_SECRET_REF,
        'NG-318': _N_SECRET_REF,
        'NG-357': _N_SECRET_REF,
        'NG-389': _N_SECRET_REF,
    },
}


# Corpora RC to RH (Latin America's consumer and public services; data platforms and
# pipelines; telecom and ISP operations; travel and hospitality; mobile apps' crash
# reporting and analytics; human resources, payroll and accounting).
_R_PASSWORD = ("a password with no key or word the detectors read beside it (a chat's 'pass lama',"
               " 'creds admin/X', a user / password pair, a WLAN key told in German, a passphrase "
               "after 'for <what>:', a device's cipher text, a Terraform plan's new value)")
_R_SECRET = ('a code or a secret with no word for it the detectors read, or its name out of reach '
             "(a voucher's code, a USSD input, a PIN told in Portuguese, an SMS code in a form's "
             "Body, a SIM's Ki, an SNMP community in a list, a keystore's base64)")
_R_PHONE = ("a phone number with no word or key the detectors read beside it (a CDR's or a list's "
            "bare numbers, a GDS's phone entry, a RADIUS User-Name, a line in a URL's path, a SIM "
            "card's 'Numero:')")
_R_NATIONAL_ID = ('a national id with no name the detectors read beside it (a payroll or ECR '
                  "file's fields, a tax id under a key the rules do not read, an id spelled or "
                  "boxed, an IMEI without its name, a Workday record's id)")
_R_PASSPORT = ("a passport number in a table or a CSV whose header names it, in a GDS's APIS "
               'entry, or in an MRZ line after an escaped line break')
_R_KEY = ("a key with no vendor prefix under a name the detectors do not read (a payment gateway's"
          " MerchantKey, an OAuth client id, an SDK's devKey, a Kafka SASL username)")
_R_TOKEN = ("a token the redactor leaves by design or cannot name (a push service's device token, "
            "a store's purchase token, an authorization code, a magic link's path)")
_R_CARD = 'a card number broken across lines'
_R_ACCOUNT = ("a bank account's number with no routing code or name for a bank account beside it "
              "(a fixed-width bank file's field, a CLABE or a CBU under a key the rules do not "
              'read, a Chilean CuentaRUT)')
_R_OTHER = ('a value in a shape the redactor does not read (an e-mail inside a PIX payload or an '
            'IATA contact field, a base64 body it does not decode, an IPv6 address joined to its '
            'port by a dot)')
_R_COMPANY_IBAN = ("a company's IBAN or CLABE on an invoice or a remittance: accounts are redacted"
                   ' whoever holds them')
_R_COMPANY_ID = "a company's tax number on an invoice (a person's has the same shape)"
_R_TOKEN_REF = ("a payment vault's token under token= (tok_vault_...): redacted as a token "
                'whatever it stands for')
_R_BUSINESS_PHONE = ("a business's number (a toll-free line, a switchboard's range): a phone's "
                     "shape, and the redactor does not tell a business's line from a person's")
_R_OTHER_CHANGE = ('an id, a hash, a name or a version in a shape the detectors read as a value (a'
                   " Message-ID's tail in the joined reading, a key's sample or hash under a key's"
                   " name, an HMAC'd audit field, a rate limiter's key, a Kafka record's key, a "
                   "code sample's parameter)")
_KNOWN_MISSES_R: dict[str, dict[str, str]] = {
    'corpus_rc': {
        '9981539170': _R_PHONE,
        '9d174e373bdb76b2ca917b4c5d21718cde22967e79f252019e78d0e2292d7633': _WEBHOOK_SIGNATURE,
        '51948505363': _R_PHONE,
        '00139387110': _R_NATIONAL_ID,
        '7unByGv7rWrnbVZJUVxDQPJXsSRuQYzrurPYkhjJFV1v7hqnxNRIYaTlFMIXh3iK': _R_TOKEN,
        '448 738 803 19': _R_NATIONAL_ID,
        '17120146': _R_ACCOUNT,
        '50669954\n90869683': _R_CARD,
        '47051228\n36322620': _R_CARD,
        'LunaSol87': _R_PASSWORD,
        '14469506': _R_ACCOUNT,
        'ragf9704128x2': _R_NATIONAL_ID,
        'ryrAl0IXAifNG3I6gHsey9rEjRRztnXmjftADkdkztrNwPumBaRjLmLGII8jjKuh': _R_TOKEN,
        '72203592095': _R_NATIONAL_ID,
    },
    'corpus_rd': {
        '06TJ40961': _R_PASSPORT,
        '134007507': _R_PASSPORT,
        'A55581815': _R_PASSPORT,
        'L3775439': _R_PASSPORT,
        'IW2KWJDQPWUMNRY6': _R_KEY,
        '0melqBA6155fMjwlvryWcVB6PgAcUTt5is28ZaZK': _R_KEY,
        'VmR3cW1WbmJpOFhSaGlzago=': _R_PASSWORD,
        '!dQUHW@gnX!V': _R_PASSWORD,
        'ee11fa1b-84ab-455e-8325-f9caa90c0823': _R_SECRET,
        '57117193M': _R_NATIONAL_ID,
        'KUJKF58LY0ET0D34': _R_KEY,
        'dd07547c5474e0361665d1ac265b464f': _R_KEY,
        'ver:1-hint:5413179694-ETMsDgAAAY2rjzx+YFYAIQNGUxN70qxg/pjf/8jnFr2r/JhbdKIa0UcyxtQ08XSwoMDvQNXEYg09EcVoncUl48hk0gtTGvx5KSFjo5Dd5g4H9hxtS/YHVcdD6556pTc8ItHWqZwIXgiCl8sU4HtOAghSdi7d3FD2':
            _R_TOKEN,
    },
    'corpus_re': {
        '7905 3978 4754 6672 7096': _R_PASSWORD,
        'BXQ3-8YG1': _R_SECRET,
        'nur_hidayah3 et ymail titik com': _R_OTHER,
        '491594377048': _R_PHONE,
        '4495 8030 4355 6635 7480': _R_PASSWORD,
        '34680140183': _R_PHONE,
        '8604470374767758': _R_NATIONAL_ID,
        '628146171193': _R_PHONE,
        '22.394.602.6-314.239': _R_NATIONAL_ID,
        '4916073594867': _R_PHONE,
        '4917813162225': _R_PHONE,
        '4916088036015': _R_PHONE,
        '$9$VfPaPl5IM6l8/k$tNxTTcBZnXoYGR0eNxb2A0FiqN7u1YfY.29Bm8xBaoM': _R_SECRET,
        'y6KN7uFSPdoX5b-mPvGPRRC-MgHc7n845XqIi0IB2SU': _R_TOKEN,
        '$6$3PBLfmtw$Cg9ltH97gBcT.ybw2li2xrYTefi8MxIwvgVCS/RV4yu9C7l6zJFXUVraJnrvZUx4WuALCLo07p7M6cp5DuNgYf':
            _R_SECRET,
        '628820837656': _R_PHONE,
        '08176282449': _R_PHONE,
        '$6$DLY8Ci6c$QkWqAhJPdQJADmMW1fQF7sbd5.xk.BQfHz9Es8zv/c1lFxy9HTLDAiQRTpU57Qva.tY3dvOt0oVZCOyRhqs1cH':
            _R_SECRET,
        '6023': _R_SECRET,
        '345 6248428': _R_PHONE,
        '4917857889193': _R_PHONE,
        '491760613448': _R_PHONE,
        '491728093341': _R_PHONE,
        '$9$hic08BNzJ4xzBL$frauI5JEkAmbz04p1j/H48E0KSzD22xmZ9IaTUsas0q': _R_SECRET,
        '491706909268': _R_PHONE,
        'sommer26.': _R_PASSWORD,
        '16177445703': _R_PHONE,
        '14043820048': _R_PHONE,
        '13039274759': _R_PHONE,
        '13036330719': _R_PHONE,
        '4416 5443 8752 3184 0910': _R_PASSWORD,
        '393802443458': _R_PHONE,
        '8753': _R_SECRET,
        '3C3R-7IX6': _R_SECRET,
        '$9$IvpWnTNQj/e4rq$XI.PpAlmXZM0eUUJ5NNViVppAi7GGifNaJb0N0TgJdv': _R_SECRET,
        '659456': _R_SECRET,
        '49891153501': _R_PHONE,
        'wNoshgS7tPkV1': _R_PASSWORD,
        '628586277351': _R_PHONE,
        '6281916272239': _R_PHONE,
        '6282297233950': _R_PHONE,
    },
    'corpus_rf': {
        '3S7aFit0aSdz1FAbvmBT74vIO37ypXiI': _R_KEY,
        '4917183000616': _R_PHONE,
        'CA74892IX': _R_NATIONAL_ID,
        'HZLG80NHY': _R_PASSPORT,
        '4916079042844': _R_PHONE,
        'FVEthljNQlHTCBYIY4fOHcr3CD80sfwY': _R_KEY,
        '（080）0270-8004': _R_PHONE,
        '13056953333': _R_PHONE,
        '（090）5136-9885': _R_PHONE,
        '2fbjIHhQlgFYizcSE8kaAjv8Ow6uzpRu': _R_KEY,
        '332770682': _R_PASSPORT,
        '9pYEmFpBF8PI3cfqduri5NpZzdxrsgga': _R_KEY,
        'CA29339FX': _R_NATIONAL_ID,
        '15NB48683': _R_PASSPORT,
        '16467799669': _R_PHONE,
        '33729406242': _R_PHONE,
        '33710635702': _R_PHONE,
        'eyJkb2MiOiAiUCIsICJudW0iOiAiTVowOTExNjAxIiwgIm5hdCI6ICJKUE4iLCAiZXhwIjogIjIwMjgtMDgtMTAifQ==':
            _R_OTHER,
        '32868317': _R_SECRET,
        '0ORBQaEs8VsRkgEkfQ8aXCBc1Yrx2XsS': _R_KEY,
        'n8AzxmYSsUus7c4CmlRLnQXLvCk7y4QJ': _R_KEY,
    },
    'corpus_rg': {
        'c2f4bfacce9992aa290d2f239c877286f9fd8d0f32ef55c28a3f19f750e23cc2': _R_TOKEN,
        'fd878259d87100dab10ae3bfba739e0241c10d233f137383bc6e31a119a3fb20': _R_TOKEN,
        'QAQCQPG_d8wKXJ_1uIDVJd': _R_TOKEN,
        '810b0fd5 14bbc696 aabcea4c 12007475 f132f458 9c911ffb 84490d05 6f766fe5': _R_TOKEN,
        '0e476802 4acb99d9 f4b174ef 65e040f7 32593000 8065fe6c 7a35d281 fe82821f': _R_TOKEN,
        'eyJ2ZXJzaW9uIjoiMS4wIiwicGFja2FnZU5hbWUiOiJqcC5jby5oYW5hbWFydS5zaG9wIiwiZXZlbnRUaW1lTWlsbGlzIjoiMTc0MTEyOTY4NjcyMCIsInN1YnNjcmlwdGlvbk5vdGlmaWNhdGlvbiI6eyJ2ZXJzaW9uIjoiMS4wIiwibm90aWZpY2F0aW9uVHlwZSI6MTMsInB1cmNoYXNlVG9rZW4iOiJta3Blc2Rpc21zcWFvaWdjZm1yb3lla20uQU8tSjFPb0ZJRC1xemlRdTRaQjRXTVVKaHZzbHNjRW1TU0puODJ1VUcxSEwwN2xiR2tVdUxBMVBFMGFPcEM0VTc4eFVmUEVHX3V0YjgzNGFzbFBiM0tuOWZJckhidlZ3M2xza0JZWWtqU3BneGJmWE9iQ1dFUEVCT0JrbEpWa2t1clQxeSIsInN1YnNjcmlwdGlvbklkIjoicHJlbWl1bV9tb250aGx5In19':
            _R_TOKEN,
        '5f36b1d63a82e0d3e78193c9427ad1edd3b87f7dacd32986cbf875552e2de94a': _R_TOKEN,
        'c17018d103a66502b4d82f30217c236a672b3b69e144b4c5e5dbecac111892ec': _R_TOKEN,
        'ff9f88c45d80b23a24ab8aed6d4024cd555b82fdea09169be762b8f80c54253c': _R_TOKEN,
        'ewuyqsartqpiqinqayyjldlh.AO-J1OrI8nRrFdh1MtYlQOcKMgWNLjKo8ZReSzGngLQ_Z1CIkDfFBibLYkAbmRnEGxmwr6xYQRZZxWSZ0o9Ei2gF1Mp8TtnXk4BbnIPANvT_7QmsBECb9njObGHF2LjXaQyXS':
            _R_TOKEN,
        'AM5Pth9khKSPEGNF-QTzNN16J5Vg1cD-pxrB2yANkoAl1MkoPEs5l3HPBA5_-AHWywkfW8MYKydDL4dVsTkxSzQANb1EvfCLTeM0xWYvhTvowAuBSuCDUeCQuau_Uj-1BpTln3dZhj9TiVNvJxOb-a7-VRDAyxkkiq6HpmX9dRRui1mIrft-PMcOkRcGQPliAnmwjXyjhJhvqsvm1YwqcxPy1QBxa8WkVLkaFPBDI-90UAEzFDajLc6kndepCm4YpEJ0SeiEqW0YFwTAhaTtP-K1tbwgl1i2Rvp2Y_8jUlSCmMsnawA53P_4FsZo5B8CYE':
            _R_TOKEN,
        '152714': _R_SECRET,
        'eUlwuIpkDDusp8cFWIgzZ-': _R_TOKEN,
        '9eecba7ab1f35b0a9b814012e43a5eb7ad8dd5a47a200c70bb32faa87eff4a37': _R_TOKEN,
        '(312)\n907-8214': _R_PHONE,
        'C:\\\\\\\\temp\\\\\\\\Pw#1': _R_PASSWORD,
        '07a2b7ecb4899d3ad9a85e46d8eb1201f6f087f103828af960d190bc860b524c': _R_TOKEN,
        'PcUnWz7c5iO8KcsteWPnzU:APA91bYNADxSgDePFSNbg7P6Z0UfSYmgfQLN1_XCFTA09MU-9DtC2B0tfJf6awH9HZD1AkiIMrhUwgdtyiqrS7eC7rPpKSRtxpvNJag8ck4rMbZGQa4MEjA_AYaVRzmXHfYkex1JFUQR':
            _R_TOKEN,
        '085664': _R_SECRET,
        'AM5PthgQas4hXx_q-dCnPMoPb7J-uK_iSFQBJ-I47uhgIhYPFUy7VLUm02fzTN9XZ4-MQi2f-G5SrtvhHnINHIArA34lf0YqIL8g6cER3lLvhOAV5aTk7H4mDQ7IXq45MRGvN-nidF9CbSvH3TNvuyLwGKlzFNwahACjl1tZKMB_aSfpiH1F2pcdXgr1IeS3UvyEKDOTtsSM0XodNAhcLc9zLvrilLo0N0Oon9Q_OuniN1EtCddDgOQ9gOtVvI8n8Mm6O8hUJwMJsOUNTbvA7RLaYrddWB5eyyCSPBax3TOjtwsJsVb2aq6Hwg62hFIJh2zAlp1':
            _R_TOKEN,
        '174593': _R_SECRET,
        'vhldixmgvxzydqnfjozwmosq.AO-J1O4XIvTg4j1N41kKYS0mXYtAQryHHldgbivKWjvAC3nKSYYYej0WAPeGeprq6gc2tUfDQmKnd912CaCpdGApjb6ZxCICctFhOqG9PW0yhJuVd1037cEBv2af2CByq':
            _R_TOKEN,
        'mVA3FHaDEp6omw9kko-aDb:APA91bTfKScuw77HVWcvqZGnEQ60AX33NFMmTqnU-6QaVzs6j4Rsyy2Jyctr0Kb2p_-JJj3vSyqoEzW2PqrT93O93MELdl9KzkCbKx2RKMduHXj6vYBlTfqZ8ET8rHHSg9mg4dKw-19c':
            _R_TOKEN,
        'xbbqschrcodpizrtifreqxyn.AO-J1OGUlAm6qEwtZ3eFEtw0j06yeIq48U5KPOTr0qFJjNaTfY7exeXHCJKyUOIr_4jdYVJcxQWdhEOJnq-3qto8pSLYHiV8CYl-xMsqQAmUbj_2oPzj6zqizanOH8':
            _R_TOKEN,
        'l1A8VdxoTrE5K2J18HiMxO:APA91b9lbUnqw7sm1lHB64BVhR8-kWQoo_OUb5c2jQkLeDaAQUCIzS4v--FtOVZlbTKEl-fvCWGLIEI2GHpNSQrup5fm9B8yGhTVJCNYjYw1JD08T0fxJ2noc9WHq4UmtptndO9IATNf':
            _R_TOKEN,
        '2003:e5:67e5:3e65::a6e4:f482': _R_OTHER,
        'eyJ2ZXJzaW9uIjoiMS4wIiwicGFja2FnZU5hbWUiOiJpbi5jaGFpcGF5LndhbGxldCIsImV2ZW50VGltZU1pbGxpcyI6IjE3MTc5MTc5NzA0MTkiLCJzdWJzY3JpcHRpb25Ob3RpZmljYXRpb24iOnsidmVyc2lvbiI6IjEuMCIsIm5vdGlmaWNhdGlvblR5cGUiOjEzLCJwdXJjaGFzZVRva2VuIjoibWxqd2lua3ZreGd4cXVqbHZ2bnpseGR2LkFPLUoxT1FrV2U4dU1fSDV0SWp1OFlhZG9PZk84aDR0Z21KWm9reXFMbzkwRks0cHVCdTZseVNKYndHdkM1d3l3UTB4OEFEeVJMM0g1SmNpUlhrWjR6eDF4SVFyOFBrTmp0MXlCU1Bic1dtS3VYLWNNNmFKRGJCR0NfYjlzRTc0UXctWWpmZUtfLVRNcSIsInN1YnNjcmlwdGlvbklkIjoicGx1cy4xbSJ9fQ==':
            _R_TOKEN,
        '635272': _R_SECRET,
        '5nGJspKJ4PjqVt7tlz9sal:APA91bGyIr1Pi71UHLAXWd5sBxXI-KJa80DAR4x2HhbOL1v4zr96pSbzfyeB2qptL5u0KHjHllao5En4dHVkxdwdedye4ZzAngTIJNT__DFmZmsj5cjXTO62W7U7rrdUu4fqfe1aoMgW':
            _R_TOKEN,
        '-NxAmtSTfiHPYEoO5d7CEJ:APA91bylRJNdOJciH6WWIRnl1q5EyLbIcOIZNp1kQLdZ9jFP9FALlj3GW2ntAR4gNICXN7jtOeKPXPDLe8GnGHz8HPlvGhn702osmih2BoHlfm9dqsHJyaLwCicDlUYC0boHkyEbRhQg':
            _R_TOKEN,
        'yldkjeticpvczzwktqaiaeym.AO-J1O9-Hq_BCqDtt_7yt7wWZ9UdX-k0iRRN001SjqsMo_lpvMPy_qZhLI_tgNtG8VnC9G8S-xUL53J95SytYHI_uL633M4oIL4IjyQuR8D2MdDHx4OikLLZFv9JIJxpozoh6qTD9c9w7DTlIU':
            _R_TOKEN,
        'bb6451f4248e335cd15f8630c319600709b8f52011838ba52dc6ac9cc2b43804': _R_TOKEN,
        '8b296acbeec6a34eaa40898336c6079492d60d7cd59981cc5356ee36bab8460c': _R_TOKEN,
        'H4Vynw9imSBxr9h0pyDwUp:APA91bywbHw9na3z4TEId9eO8n1m_koGkfBEOqq8Aign_1hMpRbS8_zbAB8cMUnvkOBlxIvr6F8OtDTdH2b7KViIzLhVgoN7VqBOeF-u3DOish023xuMAv64PuinP2fBaXkuZG1XIAS_':
            _R_TOKEN,
    },
    'corpus_rh': {
        '739095118': _R_SECRET,
        '000462511': _R_SECRET,
        '003111': _R_SECRET,
        'N4681001': _R_PASSPORT,
        '437802594051': _R_SECRET,
        '52996099548103': _R_SECRET,
        '32182961486892': _R_SECRET,
        '2612785530776540': _R_SECRET,
        '743560464': _R_SECRET,
        '57208955155': _R_SECRET,
        '90652051473': _R_SECRET,
        '32189273': _R_SECRET,
        '52143613': _R_SECRET,
        '60579658': _R_SECRET,
        '321195400': _R_NATIONAL_ID,
        '238 816 821': _R_NATIONAL_ID,
        '62864896': _R_SECRET,
        '57356718': _R_SECRET,
        '5 | 7 | 9 | - | 0 | 3 | - | 4 | 7 | 1 | 8': _R_NATIONAL_ID,
        '1122422528': _R_SECRET,
        '39695288837': _R_SECRET,
        '341131053227': _R_SECRET,
        '22320284255528': _R_SECRET,
        '499135264': _R_NATIONAL_ID,
        '031003': _R_SECRET,
        '605240': _R_SECRET,
        '870486565': _R_NATIONAL_ID,
        '2117875432': _R_SECRET,
        '002171927': _R_NATIONAL_ID,
        '13298219': _R_SECRET,
        '59481658': _R_SECRET,
        '18177314': _R_SECRET,
        '295501967': _R_SECRET,
        '751381309': _R_NATIONAL_ID,
        '046848168': _R_NATIONAL_ID,
        '925-78-7609': _R_NATIONAL_ID,
        '0][8][0][5][5][4][5][0][0': _R_NATIONAL_ID,
        '157141341': _R_SECRET,
        'Summer@2020': _R_PASSWORD,
        '4 | 4 | 8 | - | 3 | 3 | - | 9 | 3 | 2 | 9': _R_NATIONAL_ID,
        '578615094': _R_PASSPORT,
        '732049077': _R_SECRET,
        '642321055': _R_SECRET,
        '985056': _R_SECRET,
        '447748589220': _R_SECRET,
        '8313973952': _R_SECRET,
        '800754225202': _R_SECRET,
    },
}
_KNOWN_CHANGED_R: dict[str, dict[str, str]] = {
    'corpus_rc': {
        'RC-141': _R_OTHER_CHANGE,
        'RC-261': _R_COMPANY_IBAN,
        'RC-324': _R_OTHER_CHANGE,
        'RC-362': _R_BUSINESS_PHONE,
        'RC-429': _R_BUSINESS_PHONE,
        'RC-482': _R_COMPANY_IBAN,
    },
    'corpus_rd': {
        'RD-062': _R_OTHER_CHANGE,
        'RD-066': _R_OTHER_CHANGE,
        'RD-103': _R_OTHER_CHANGE,
        'RD-214': _R_COMPANY_IBAN,
        'RD-246': _R_OTHER_CHANGE,
        'RD-266': _R_OTHER_CHANGE,
        'RD-307': _R_OTHER_CHANGE,
        'RD-379': _R_OTHER_CHANGE,
        'RD-393': _R_OTHER_CHANGE,
    },
    'corpus_re': {
        'RE-098': _R_OTHER_CHANGE,
        'RE-122': _R_COMPANY_IBAN,
        'RE-143': _R_COMPANY_IBAN,
        'RE-193': _R_OTHER_CHANGE,
        'RE-337': _R_OTHER_CHANGE,
        'RE-425': _R_OTHER_CHANGE,
        'RE-507': _R_BUSINESS_PHONE,
    },
    'corpus_rf': {
        'RF-056': _Q_ENC,
        'RF-118': _R_COMPANY_ID,
        'RF-303': _R_TOKEN_REF,
        'RF-420': _R_TOKEN_REF,
    },
    'corpus_rg': {
        'RG-526': _R_OTHER_CHANGE,
    },
    'corpus_rh': {
        'RH-316': _R_COMPANY_IBAN,
        'RH-438': _R_COMPANY_IBAN,
    },
}


# Corpora GC to GH (education; real estate, property management and utilities; online
# gaming and streaming; cloud identity and audit logs; LLM agents and their tool calls;
# insurance and claims).
_G_PASSWORD = ("a password with no key or word the detectors read beside it (a CSV's column "
               "without a password's header, a secret store's JSON whose name is lines above, a "
               "German 'Kennwort (...!):', an EZproxy -Auth=user:password)")
_G_SECRET = ('a code or a secret with no word for it the detectors read (a join, invite, '
             "registration or gift card's code, a door code in a smart lock's event, a one-time "
             'code answered in a chat or told in Japanese, a stream key named in Turkish, a '
             "library patron's PIN in SIP2)")
_G_PHONE = ('a phone number with no word the detectors read beside it, or broken across lines (a '
            "chat's signature, a fixed-width record, a callback form's query with '+' for spaces, "
            'a Korean chat)')
_G_NATIONAL_ID = ("a national id with no name the detectors read beside it (a CSV's claimant_id or"
                  ' tax_id column, a fixed-width or pipe-separated record, a Belgian RRN, a CAF '
                  'number, an SSN spaced around its dashes, a codice fiscale in lower case in a '
                  'URL)')
_G_PASSPORT = ("a passport number told in Ukrainian, after a traveller's name, or in an MRZ line "
               "after a stand-in's filler")
_G_KEY = ("a key with no vendor prefix under a name the detectors do not read (a client library's "
          "constructor argument, a property system's interface license, a key wrapped by a "
          'terminal)')
_G_TOKEN = ('a token the redactor leaves by design or cannot name (a CSRF token, an invitation '
            "link's path, a PHP session key in a var_dump, a session's id inside a Redis key)")
_G_BROKEN = ('a card number or an IBAN broken across lines or chat messages, or a card inside a '
             'fixed-width record')
_G_ENCODED = ('a base64 body the redactor does not decode (a MIME part, a field of a Korean school'
              ' system)')
_G_COMPANY_IBAN = ("a company's IBAN (a property manager's, a game studio's, an insurer's, a "
                   "garage's) on an invoice: accounts are redacted whoever holds them")
_G_SSN_SHAPE = "a part number in an SSN's shape on an order (551-76-2835)"
_G_VERSION_IP = "a version in an address's shape (mod_hvp 1.27.2.3, api 2.8.41.3)"
_G_SEALED = ("a SealedSecret's encryptedData that does not start as the controller's ciphertext "
             'does (AgB...): read as the secret under its key')
_G_CDP_SESSION = "the DevTools protocol's sessionId (32 hex digits): read as a session's id"
_G_TELECOM = ("a device's IMEI or ICCID (a stolen phone's, a car's telematics unit): redacted on "
              'purpose')
_G_OTHER_CHANGE = ("an id or a name the detectors read as a value (a course's id decoded from "
                   "base64 as a phone, a warehouse's surrogate keys listed after 'keys:')")
_KNOWN_MISSES_G: dict[str, dict[str, str]] = {
    'corpus_gc': {
        'BFA5EB984A7D6050C71204DCA45FA9F0': _G_SECRET,
        'dZGVrMKINt': _G_TOKEN,
        '99358272C': _G_NATIONAL_ID,
        'LibHYFq6vh43z': _G_PASSWORD,
        '354432385': _G_NATIONAL_ID,
        '660040531': _G_NATIONAL_ID,
        '4TIETC': _G_SECRET,
        '8fe3b8a48254864d0d0f6752b7d93f6b': _G_KEY,
        'UQJKLAW1': _G_SECRET,
        '30eaf6ec037301bf': _G_TOKEN,
        'MD4557329': _G_PASSPORT,
        '384934710': _G_NATIONAL_ID,
        '5014': _G_SECRET,
        '741640': _G_SECRET,
        '272': _G_SECRET,
        'YhMW_5FEZ2KRd1wqoI6gwL': _G_TOKEN,
        'NNH2CI': _G_SECRET,
        'changeme': _G_PASSWORD,
        'FVJDX-GUB8D': _G_SECRET,
        '404 - 20 - 6453': _G_NATIONAL_ID,
        '4500\n6681\n0191\n0132': _G_BROKEN,
        '7e6317a29da24a1f89d2030f904a4bbff38d6030a4f9ee528657ec2d924ec08b': _WEBHOOK_SIGNATURE,
    },
    'corpus_gd': {
        '144503': _G_SECRET,
        'KZVzl+gverN41ePyC27fqJ/93NqyIgxjiOWambabANhIaPZL/4S156b7Vzx3xkGWqOmCutRcfADsejgxWskkmP7GSiQO9tmrtjjHwmqFBbST1RAtrjPPNs74+bzlOz2LMDdII7J8rgoz4zqClpr7mjsLSxY18GWsJlTUm+zmOCUSYn1jsDsNusqIaHHNTCSXCdlkF9iDshEc9chyiDz+I+uHNB1aA0HxpmElimY8FLDs/YgJBNAjWFiJ81pMljAxj2LIRnDvFIemG91vrw==':
            _G_KEY,
        'hMtaBWAnKdWv45I5Da6s7OIV27Kqnm0atuw6ExEJldq2p-Y84_XYKHEFLzp3XqJUKLjVcz--xYfmPes2F4WIsw':
            _G_TOKEN,
        '191928': _G_SECRET,
        'ca4b73d73b00d7a7c492dff24271ad8d0d8fd4fe7963cbb1b3407a7c3c974846': _WEBHOOK_SIGNATURE,
        'C61L-D2JV': _G_SECRET,
        '724+042+003': _G_PHONE,
        'sRyQxEl2Jl7MoJUN/WzkO04bR/wMjbW9SD3G1gk1y304Xk4QATsN+cAvXNr5BPpbDR4tPz0V0FDY2gc+XbihTlZVUt20OsYwx2gy37RczLrFd4tM65PTQebIQKPms/DFbdsZTWCS4dDnvWyfuk2MzIg695A1tGr0Om/FT2MlaUNfKDOQxygB44nl0dfTUFdo5wEdIi2cWMHajsQYro5BOnGMnra9v08=':
            _G_KEY,
        '+49 157\n45694490': _G_PHONE,
        '486f3f87c3cc4c128287e7eb0278c9a45cc097b7608d63737010aa1bb3f85fa3': _WEBHOOK_SIGNATURE,
        '9750877': _G_NATIONAL_ID,
        '+49 171\n32841017': _G_PHONE,
        'IMvQu8D_87b6p7gEazs0YI037KgTAiId6mYgRePOOt1jGDmWkUah6un2OtWVT4miA4vOKIuFkutO_bfWGSsOfw':
            _G_TOKEN,
        '95897': _G_SECRET,
        'IE6X-QJA8': _G_SECRET,
        '1433281': _G_NATIONAL_ID,
        '615 906 437': _G_PHONE,
        'CT5XLG9YF': _G_PASSPORT,
        '182760': _G_SECRET,
        '737 244 642': _G_PHONE,
    },
    'corpus_ge': {
        'N3DR-QFYF-QZRE': _G_SECRET,
        '678-747-25-99': _G_NATIONAL_ID,
        'xfw7-7ryg-h1jj-0jxf-1fua': _G_SECRET,
        '332263': _G_SECRET,
    },
    'corpus_gf': {
        'Granit.sommer76': _G_PASSWORD,
        'raven-violet-copper-anchor85': _G_PASSWORD,
        'NKI9YEP2': _G_SECRET,
        'AZ03SH7N': _G_SECRET,
    },
    'corpus_gg': {
        'fe9d5b629ae1d032a7412c225cbeaa2cb7ee89d9': _G_TOKEN,
        '+49 170\n18069083': _G_PHONE,
        'EF88666553': _G_PASSPORT,
        'sk-proj-DkuOUGHHevxbcwAP5I_Aj2VKHiYLXV07pkW4WC2Uodk6ExU1RcBis2OqB\nbH7N7saEo21CV4jjMT3BlbkFJYtIsMpp7FSZzF-rCwEaFgA1K1hLN94vDbaprQH16l-EFCmg9UQFRnVM\nRKFo8jxvuBRT7ezXLPi':
            _G_KEY,
        '40008760': _G_BROKEN,
        '14912609': _G_BROKEN,
        'c6Jb00014YvfwrW1xFY8FMxDE3uDBTHjHcrnNtkQ': _G_KEY,
        '4a42eea78544d6abd250075f63facd487bacce6d': _G_TOKEN,
        '49163545': _G_BROKEN,
        '49619902': _G_BROKEN,
        '95425489': _G_SECRET,
        '6ad52c708c02cf9d2a1a8f4cb032cd7b769be3c2': _G_TOKEN,
    },
    'corpus_gh': {
        '210191': _G_SECRET,
        '+491765551322': _G_PHONE,
        'CC10J5VF8': _G_PASSPORT,
        '347360489208728': _G_BROKEN,
        'R3V0ZW4gVGFnIEZyYXUgRmlzY2hlciwKCndpciBiZXN0w6R0aWdlbiBkZW4gRWluZ2FuZyBJaHJl\nciBTY2hhZGVubWVsZHVuZyBLRlotMjQtMDA0MTMuCkRpZSBBdXN6YWhsdW5nIGVyZm9sZ3QgYXVm\nIERFNTMgMzcwNCAwMDQ0IDY0MDcgMDY4MyAyNi4KUsO8Y2tmcmFnZW4gYW4gbHVrYXMud2FnbmVy\nQHdlYi5kZS4K':
            _G_ENCODED,
        'EiwMqMCvfZBJCOp95Wl0Rka53ZMG7SRXIRFU19aC_KkD2lQ1': _G_TOKEN,
        '7563976367704': _G_NATIONAL_ID,
        '1496': _G_SECRET,
        '251051327397689': _G_NATIONAL_ID,
        '64384627Z': _G_NATIONAL_ID,
        '340 9886888': _G_PHONE,
    },
}
_KNOWN_CHANGED_G: dict[str, dict[str, str]] = {
    'corpus_gc': {
        'GC-276': _G_VERSION_IP,
        'GC-336': _G_OTHER_CHANGE,
    },
    'corpus_gd': {
        'GD-058': _G_SSN_SHAPE,
        'GD-116': _G_COMPANY_IBAN,
        'GD-194': _G_COMPANY_IBAN,
        'GD-195': _G_SSN_SHAPE,
        'GD-196': _G_SSN_SHAPE,
        'GD-418': _G_SSN_SHAPE,
    },
    'corpus_ge': {
        'GE-101': _G_COMPANY_IBAN,
        'GE-202': _G_COMPANY_IBAN,
    },
    'corpus_gf': {
        'GF-032': _G_SEALED,
        'GF-111': _G_SEALED,
    },
    'corpus_gg': {
        'GG-151': _G_CDP_SESSION,
        'GG-184': _G_CDP_SESSION,
        'GG-410': _G_CDP_SESSION,
    },
    'corpus_gh': {
        'GH-076': _G_COMPANY_IBAN,
        'GH-078': _G_TELECOM,
        'GH-152': _G_TELECOM,
        'GH-213': _G_COMPANY_IBAN,
        'GH-283': _G_OTHER_CHANGE,
        'GH-425': _G_VERSION_IP,
        'GH-515': _G_COMPANY_IBAN,
    },
}


# Corpora LC to LH (pharmacies, e-prescribing and telehealth; logistics and couriers;
# banking operations; social media and communities; CI/CD and developer platforms;
# customer support platforms).
_L_PASSWORD = ("a password with no key or word the detectors read beside it (a chat's 'pass:' line"
               " under a user, a password told in Indonesian or Spanish prose, an SFTP user's "
               "password in a message, a TeamViewer partner's 'Kennwort' of six characters)")
_L_SECRET = ('a code or a secret with no word for it the detectors read (a pickup or reset code, a'
             " code forwarded to a scammer, a push notification's code, a 2FA backup after a "
             "slash, a security question's answer in a recovery log, a PIN block, a pharmacy's "
             'e-prescription code)')
_L_PHONE = ('a phone number with no word the detectors read beside it, or broken across lines (a '
            "Vietnamese or Ukrainian chat, a Redis key's name, a number after 'su número real es')")
_L_NATIONAL_ID = ('a national id with no name the detectors read beside it (a foreign TIN, a NIR '
                  "under a CRM's custom field, a DNI answered on the next line, a Saudi id under "
                  'cardholder_id, an NCPDP patient id field)')
_L_PASSPORT = 'a passport number in an MRZ line quoted in JSON, or told in Vietnamese'
_L_KEY = ('a key with no vendor prefix under a name the detectors do not read (a shipping '
          "platform's public key next to its secret, a client library's constructor argument)")
_L_TOKEN = ("a token the redactor leaves by design or cannot name (an attachment's token in a URL "
            "path, a lab report link's path, a Salesforce session id in SOAP, a CI token in a "
            "URL's user part)")
_L_BROKEN = ('a card number or an IBAN broken across lines or chat messages, or inside a '
             'fixed-width record')
_L_ENCODED = ('a base64 body the redactor does not decode (a signature image, a document id in a '
              'URL)')
_L_COMPANY_IBAN = "a company's IBAN on an invoice: accounts are redacted whoever holds them"
_L_RECORD_PHONE = ("a record's number in a phone's shape (a delivery note's, a CI run's id, an "
                   'order number said aloud)')
_L_COMPANY_ID = "a company's number on an invoice footer read as a person's id"
_L_OTHER_CHANGE = ('a word, a path or a ciphertext the detectors read as a value (a settings path '
                   "after 'Passwort:', a runbook's placeholder, a SealedSecret's ciphertext, a "
                   "version in an address's shape, a bot's address)")
_KNOWN_MISSES_L: dict[str, dict[str, str]] = {
    'corpus_lc': {
        '+39 320\n5089023': _L_PHONE,
        '6127': _L_SECRET,
        'LGOCHQ': _L_SECRET,
        '4028': _L_SECRET,
        'M4YHWCCXANCK3UZT': _L_SECRET,
        '270083303926097': _L_NATIONAL_ID,
        '853527731': _L_NATIONAL_ID,
        '3035532363': _L_PHONE,
        'KGHW6D': _L_SECRET,
        '4165 5433\n8926 9871': _L_BROKEN,
        '265103326914984': _L_NATIONAL_ID,
        'rdl2QJQDkN9SjgFhYwQi5M': _L_TOKEN,
        '192798518': _L_NATIONAL_ID,
        '6143127296': _L_PHONE,
        '996289': _L_SECRET,
        'YB0896511': _L_PASSPORT,
        '2759': _L_SECRET,
        '1870': _L_SECRET,
        '278119328564271': _L_NATIONAL_ID,
        'YC5572210': _L_PASSPORT,
        'FQMIMv7Ru0PPtTq7YVY5HE': _L_TOKEN,
        '5344 2995\n4168 4959': _L_BROKEN,
        '9MjcH47RWCxXGj4fCZf1QL': _L_TOKEN,
        '+39 380\n9626328': _L_PHONE,
        '285235132': _L_NATIONAL_ID,
        '9196502365': _L_PHONE,
        '8986296174': _L_NATIONAL_ID,
    },
    'corpus_ld': {
        '8e5a9a372a4d8c594e882c7d9668228f': _L_KEY,
        '*6612': _L_SECRET,
        '844-412-125': _L_PHONE,
        '7536': _L_SECRET,
        '2731': _L_SECRET,
        'TURNE800206GE124': _L_NATIONAL_ID,
        'iVBORw0KGgoAAAANSUhEUgAAAZAAAADICAYAAADGFbfiAAABIg6LLYnOWIsjyTlmI/pOyHZd/AAl9wZ9tvnlTcIuTQ1g/n7Lp1vD1H/6bqKn5PCYBTLNSxa+ie6NibP25Z/4n89M2WaXIv96TgpqbOzFwXFD2XB2FZAzj9f':
            _L_ENCODED,
        '5972': _L_SECRET,
        '3205': _L_SECRET,
        '639-069-89-44': _L_NATIONAL_ID,
    },
    'corpus_le': {
        'DE32100700009462092128': _L_BROKEN,
        'DE80430609674166260540': _L_BROKEN,
        '2620791125': _L_NATIONAL_ID,
        '0049 (0)162-7165064': _L_PHONE,
        '1332050093': _L_NATIONAL_ID,
    },
    'corpus_lf': {
        'Tía Marta': _L_SECRET,
        '007-153': _L_SECRET,
        '7933 1564': _L_SECRET,
        'd$UOgX^uJQhJYawLth': _L_PASSWORD,
        '660859635290': _L_NATIONAL_ID,
        '086228': _L_SECRET,
        'Ms. Alvarez': _L_SECRET,
        '8088': _L_SECRET,
        'BpIoQnec8d01dwMhk8rFhqYGwiQ4x2K0XjyUAV8ZrhjpQ64C+Ld1gXtdjPRTAzeV\nrsL3j74kYssFDaMTT+oYn1o++YPyl0vi6Z11wuIFxYVcfXR8JDrBph7Shz/d6BpD\nYCjbbgRbJpnrFYieg7cKg/D1tlb0MnhW8WzwDY9jCBMVhTsBkbTA/UX3qtd82Gdy\nVY6YMQyEJTNSNfQKzamdfNbmL76JrGI/5X1+uqIQVhSG1EUsiQij/z5bqQq8Joss\nB3hvUNPopV7s8diwbSnLbILoTcxttf=':
            _L_BROKEN,
        'ktsnda4m2fs10maur9jff80s1lhlfz': _L_SECRET,
        '614657': _L_SECRET,
        'persib1933': _L_PASSWORD,
        '(11) 93845-\n8194': _L_PHONE,
        '21826290': _L_SECRET,
        '7393 8095': _L_SECRET,
        '49.374.445.2-936.000': _L_NATIONAL_ID,
        '5531916514151': _L_PHONE,
    },
    'corpus_lg': {
        'avocado-gletscher-tundra-nebula': _L_PASSWORD,
        'nebula-lighthouse-tornado-winter': _L_PASSWORD,
        '44a9c01a2f84f444bdfbc19fb558dad6': _L_TOKEN,
    },
    'corpus_lh': {
        '182056726880208': _L_NATIONAL_ID,
        'JsnVPKg7j6YwhbF7VEq6mCBAm': _L_TOKEN,
        'Mjk4MjU4NDBT': _L_ENCODED,
        '0706216590': _L_PHONE,
        '634187': _L_SECRET,
        '4532 2230\nCUSTOMER: 1063 1429': _L_BROKEN,
        'TXN0-H4E5': _L_SECRET,
        '705 343 445': _L_PHONE,
        '1970': _L_SECRET,
        '54313903R': _L_NATIONAL_ID,
        '40818696': _L_SECRET,
        '0152 / 1461782': _L_PHONE,
        '873792': _L_SECRET,
        '0327418501': _L_PHONE,
        'Rq6B3A4l8ms/V7lEqZ9pHHGZL0Q9F7wystW0AxnsXpg=': _WEBHOOK_SIGNATURE,
    },
}
_KNOWN_CHANGED_L: dict[str, dict[str, str]] = {
    'corpus_lc': {
        'LC-011': _L_COMPANY_IBAN,
        'LC-113': _L_RECORD_PHONE,
        'LC-253': _L_COMPANY_IBAN,
    },
    'corpus_lf': {
        'LF-160': _L_COMPANY_ID,
    },
    'corpus_lg': {
        'LG-041': _L_OTHER_CHANGE,
        'LG-121': _L_OTHER_CHANGE,
        'LG-239': _L_RECORD_PHONE,
        'LG-292': _L_OTHER_CHANGE,
        'LG-294': _L_OTHER_CHANGE,
        'LG-356': _L_OTHER_CHANGE,
    },
    'corpus_lh': {
        'LH-064': _L_OTHER_CHANGE,
        'LH-125': _L_RECORD_PHONE,
        'LH-355': _L_OTHER_CHANGE,
    },
}


# Corpora KC to KH (monitoring and observability stacks; smart homes and IoT; legal work;
# tax and e-invoicing; chat bots and messaging platforms; retail and e-commerce).
_K_PASSWORD = ('a password with no key or word the detectors read beside it (a Japanese or Turkish'
               " sentence's password with no digit, a login after 'Admin /', a Wi-Fi key quoted "
               "over two lines, a TR-069 'ConnReq Pass', a password bank's entry in parentheses, a"
               " chat's answer on the next line, a Spanish password of letters only)")
_K_SECRET = ("a code or a secret with no word for it the detectors read (a WhatsApp template's "
             "parameter, a two-step PIN after 'for the support number', a Dutch or German "
             "activation code, a three-character SMS PIN, a garage's code after 'y el del', a "
             "DSK's first five digits told apart, a local key with quotes in it, an EMV track's "
             'discretionary data, a 3-D Secure code in French, a recovery code handed over in '
             "chat, a client secret at a sentence's end)")
_K_NATIONAL_ID = ('a national id the detectors do not name or whose check fails (a German '
                  'SV-Nummer or a UK UTR whose check digit fails, a Mexican NSS in a CFDI '
                  "attribute, a Cartao de Cidadao whose check fails, a Steuer-ID in a detector's "
                  'own JSON output, an SSN spelled digit by digit in a deposition)')
_K_PASSPORT = ("a passport or visa number with no name the detectors read (a US visa's foil "
               "number, an MRZ line in an OCR result's JSON array, a passport number of letters "
               'only)')
_K_PHONE = ('a phone number in a format or a place the detectors do not read (Arabic-Indic digits '
            "after an Arabic verb, a German number with a slash or an extension's dash, a Belgian "
            "number with slashes and dots, an Indian 5-5 number after 'Contact', a Spanish number "
            "after 'al', a number split by '+' in a form body)")
_K_KEY = ('a key with no vendor prefix under a name the detectors do not read, or in a GPG key '
          "id's shape (an AvaTax licence key of 16 hex digits, a Magento config row, a Datadog key"
          ' in prose)')
_K_TOKEN = ("a token the redactor leaves by design (a CSRF token in a UUID's shape, a Pushover "
            'user key)')
_K_OTHER = ("an IPv6 address as a YAML key (its colon read as the address's), an Azure key of the "
            'wrong length, a double-encoded URL password, a base64 e-mail in a path')
_K_COMPANY_IBAN = "a company's IBAN on an invoice: accounts are redacted whoever holds them"
_K_RECORD_PHONE = ("a record's number in a phone's shape (a tax file's state registration, a lot "
                   'number)')
_K_OTHER_CHANGE = ("a name or a pattern the detectors read as a value (an ExternalSecret's "
                   "secretKey, a Datadog mask's character class, a version in an address's shape)")
_KNOWN_MISSES_K: dict[str, dict[str, str]] = {
    'corpus_kc': {
        'nuLiY0EmbPvMRXBxUN%252F53': _K_OTHER,
        'Zabbix_Prod!': _K_PASSWORD,
        '230dccf32f74df4553aeefd8a84a0752': _K_KEY,
        'bGVmZXZyZS5kbWl0cmlAaGVsaW8tbW9iaWxpdHkuZnI=': _K_OTHER,
    },
    'corpus_kd': {
        'uy3ewpfkxeo4gtgdv59mknx47dxfmg': _K_TOKEN,
        'df67ab86-6ab8-4939-9f6c-8d4c55d63198': _K_TOKEN,
        '(089) 895 37 384': _K_PHONE,
        '1MiggbbuFIsme\n> ltTEtT9GBjl': _K_PASSWORD,
        '60070': _K_SECRET,
        '7130': _K_SECRET,
        'b8LtY5YEwA37n\n> fnILMWSJaBR': _K_PASSWORD,
        '2ad06e2f-2fe1-4c2d-be60-97a5402d8afe': _K_TOKEN,
        'OWTDewy2PqoUj8SYsrpfSTBmm7T61u4ypQxM6bLLofs=': _WEBHOOK_SIGNATURE,
        "iqNrQ'Fq<68JrvtX": _K_SECRET,
    },
    'corpus_ke': {
        '0221 504049-09': _K_PHONE,
        'Juzgado_1754$': _K_PASSWORD,
        'Saudade681!': _K_PASSWORD,
        '5-9-1, 9-7, 8-7-2-4': _K_NATIONAL_ID,
        '+49 171 / 47 16 949': _K_PHONE,
        '7-5-9, 5-7, 3-9-4-2': _K_NATIONAL_ID,
        'Aut0mne_2021!': _K_PASSWORD,
        '52142182': _K_PASSPORT,
        '78534286901': _K_NATIONAL_ID,
        'HRMVHNVZG': _K_PASSPORT,
        '27800673': _K_PASSPORT,
        '+49 160 / 99 63 149': _K_PHONE,
    },
    'corpus_kf': {
        'YUSE05LL7J': _K_SECRET,
        '415': _K_SECRET,
        '56135511G539': _K_NATIONAL_ID,
        '58251158T268': _K_NATIONAL_ID,
        '59085698H572': _K_NATIONAL_ID,
        'WOI': _K_SECRET,
        '85400022376': _K_NATIONAL_ID,
        '42858 68874': _K_NATIONAL_ID,
        '10053023B639': _K_NATIONAL_ID,
        '62025398W195': _K_NATIONAL_ID,
        '14234557O055': _K_NATIONAL_ID,
        '79742 36917': _K_NATIONAL_ID,
        'NAHKGGPIVQ': _K_SECRET,
        '4529F69AC654804C': _K_KEY,
        '63D0DC555B729338': _K_KEY,
        '42522527833': _K_NATIONAL_ID,
    },
    'corpus_kg': {
        '250a5feb687a17e6650c959ca94bc05c0703c5ac3d4ae2083fafcc87d82a49ef': _WEBHOOK_SIGNATURE,
        'VGRGiLLHAoX2dDLWI8t2f5ymX/kmA+p35qs8R4H3bFc=': _WEBHOOK_SIGNATURE,
        'sha256=09ad4d0b26c66e395b692552e3c927cdafe7be2308dd94e0a8db9a9bdf4a7b38':
            _WEBHOOK_SIGNATURE,
        'sQjYaT^eTBAM': _K_PASSWORD,
        '66750+12375': _K_PHONE,
        'HwoFcWpPoyo69+PYf5xlH3PTRFI=': _WEBHOOK_SIGNATURE,
        '173422': _K_SECRET,
        '007758': _K_SECRET,
        'sha256=17868f7865afd3e4b59217b8ee20626da0d2a9b58172b496f42bb4c43b35edd3':
            _WEBHOOK_SIGNATURE,
        '222869': _K_SECRET,
        'sha256=385bce9cd487fdb7a81f16bd2a158eda1b425b009f66ee0850ab9f1d8a7ce4fb':
            _WEBHOOK_SIGNATURE,
        '574576': _K_SECRET,
        '765338': _K_SECRET,
        'b69afce7fdf0469d6f6693c2f7b5f0dc8b9b822f4231f30a9e0fad1fa9e3e032': _WEBHOOK_SIGNATURE,
        'tzoM2EEDmGjIuiFxYpkP7PHRhIHXQ7iBlvR155N0v1c=': _WEBHOOK_SIGNATURE,
        'a3e75ec0fd535cea837cfc23a0cfe9a99f43b2f9cb7e3d02b5d0f70f9ee9bc6c': _WEBHOOK_SIGNATURE,
        'Q3nr7Y4nUZMhZMIcEuvC1nG8HIw=': _WEBHOOK_SIGNATURE,
        'db26f4da6ea8be35596c60e537e6f68179eaf383a7c50714186d78da33c9bd58': _WEBHOOK_SIGNATURE,
        'KWRYFHRGF': _K_PASSPORT,
    },
    'corpus_kh': {
        '63609 10854': _K_PHONE,
        '٠٥٠٦٤١٤٠٥٥': _K_PHONE,
        '735501806': _K_PHONE,
        'klarna_live_api_LQ9k6MP6sm6MCuCdSLlLRPlmooApVsGYj6v0UWe7': _K_KEY,
        'VZDY-QNA8-T7C7': _K_SECRET,
        '//CZhnVeR5X2fdBdjBuptP9XQZKYZm+F3jMS4mpiJlI6kEibrsuCbdN4OE41HonESAJbjc/GeF7iVcEabmk1Iw==':
            _K_OTHER,
        'aAanxJHB85ievsxaH9KzGZqLTx49g1G3': _K_SECRET,
        '959362': _K_SECRET,
        '٠٥٠١٨٠٣٥٦٣': _K_PHONE,
        '28022215182702954': _K_SECRET,
        '56 3471582': _K_PASSPORT,
    },
}
_KNOWN_CHANGED_K: dict[str, dict[str, str]] = {
    'corpus_kc': {
        'KC-525': _K_OTHER_CHANGE,
    },
    'corpus_ke': {
        'KE-534': _K_OTHER_CHANGE,
    },
    'corpus_kf': {
        'KF-294': _K_RECORD_PHONE,
        'KF-465': _K_COMPANY_IBAN,
        'KF-527': _K_RECORD_PHONE,
    },
    'corpus_kg': {
        'KG-047': _K_COMPANY_IBAN,
        'KG-409': _K_COMPANY_IBAN,
    },
}


# Corpora JC to JH (government and public services; the gig economy and identity
# verification; nonprofits and fundraising; security operations; media and subscriptions;
# research computing and clinical trials).
_J_PASSWORD = ('a password with no key or word the detectors read beside it (a diceware codename '
               "or passphrase of words, an LDAP bind's credentials in an exception, a combo list's"
               ' line after an obfuscated e-mail, a password in a hex field, an escaped quote '
               "inside a JSON value, a stand-in's word in a real password, a TeamViewer password "
               "of six characters, an Italian sentence with an apostrophe before 'e:')")
_J_SECRET = ('a code or a secret with no word for it the detectors read (a PIN of three letters, a'
             " phone PIN 'set up as', an activation or unblinding code, a security answer, an SMS "
             "body's code in a form post, a DTMF answer to an IVR's question, a sign-in code after"
             ' an e-mail, a German confirmation code after a long clause, a salt of sixteen hex '
             'digits)')
_J_NATIONAL_ID = ('a national id with no name the detectors read (a DMV or claimant id of nine '
                  "digits, an ID card's number inside a TD1 MRZ, an id under a generic idNumber or"
                  " documentNumber, a 1099's TIN column of SSNs, a SIN in a form post with '+' for"
                  ' spaces, a licence number with four digits, a Spanish DNI inside an SQL VALUES '
                  'list, a CURP whose check fails)')
_J_PASSPORT = ("a passport number with no name the detectors read (under a KYC vendor's "
               "document_numbers value or identification-number, a form's confirm field, after "
               "'N°' in Spanish, after a Ukrainian word)")
_J_PHONE = ('a phone number in a format or a place the detectors do not read (after a Greek or '
            'German verb, with a Belgian slash and dots, an Italian mobile in a REDCap CSV, a '
            'Telegram number with dashes, glued to its label)')
_J_TOKEN = ('a token the redactor leaves by design or cannot name (CSRF tokens, store purchase '
            "tokens, a hosted page's ht= token, a REDCap survey hash, an Aadhaar licence key, a "
            "Dataverse key in a query, a session id in a PHP warning's path or a JupyterHub cookie"
            ' in hex)')
_J_OTHER = "an address with two @, a bracket-encoded form key's secret, an IBAN with double spaces"
_J_COMPANY_IBAN = ("a company's or a charity's IBAN on an invoice or a donation page: accounts are"
                   ' redacted whoever holds them')
_J_RECORD_PHONE = "a record's number in a phone's shape (a print order's plate batch)"
_J_OTHER_CHANGE = ("a name, a version or a type the detectors read as a value (a bot's noreply "
                   "address, a tool's or a driver's version in an address's shape, a club's tax "
                   "number, a SQL cast after a key's name)")
_KNOWN_MISSES_J: dict[str, dict[str, str]] = {
    'corpus_jc': {
        'ae381614f4fbc1688fb2b40888257006be00ad3ef0e2b349677df5ae63485707': _WEBHOOK_SIGNATURE,
        '742318770': _J_NATIONAL_ID,
        '364b9bfc0f3f64845841b1506ed601df1f892cb7bbfa9e7bbff0708140ebe990': _J_TOKEN,
        '668014631': _J_NATIONAL_ID,
        '0dc4c64de2d8039d62a2c8dd44a269cdd5720bb2941ae80711f470ac96cd1a2c': _J_TOKEN,
        '687878548': _J_NATIONAL_ID,
        '0085895ff1b348e51caf730e67b8672fdf48ae62ca8a4b5ce0ae521b45081515': _WEBHOOK_SIGNATURE,
        'UYG': _J_SECRET,
        'K+zh6LVX6ctTyWWNxIs1vBZTUJpL1GQoMxpLUq9oXkY=': _J_TOKEN,
        '006057': _J_SECRET,
        '252242452': _J_NATIONAL_ID,
        '8Zl8mtf3SPGznWVUi8IdM8QkB/j3KsFuRr9U86qpf8w=': _J_TOKEN,
        '540139': _J_SECRET,
        'HY1v68Gd7GTBCFWD7dIttJVfNosk6Mh6jZlKMyvv4k3r8KHJLDyKDcR': _J_TOKEN,
        'Chevy Nova': _J_SECRET,
        'IAV': _J_SECRET,
        'YAN_atBGCqvO9bsNtibYUtIwLDy1S_vfyR9jDgLaWG7Vzg1vghSuK7F': _J_TOKEN,
    },
    'corpus_jd': {
        'VQ7hoGUBDcz9PgMN0YjiRPIgsk4RHrFX': _J_TOKEN,
        'Entregas_83IH8': _J_PASSWORD,
        'A06230500': _J_PASSPORT,
        '51YT73829': _J_PASSPORT,
        'sljmcwdGEfq62ICzWvrJ8YQelOKAaCI5': _J_TOKEN,
        '831647387': _J_NATIONAL_ID,
        '872802100': _J_NATIONAL_ID,
        '190757009': _J_NATIONAL_ID,
        'Fahrer_71BS7': _J_PASSWORD,
        '358922': _J_SECRET,
        'N66206509': _J_PASSPORT,
        '234030': _J_SECRET,
        '532711641': _J_NATIONAL_ID,
        '694775': _J_SECRET,
        '8049785401352': _J_NATIONAL_ID,
        '962944': _J_SECRET,
    },
    'corpus_je': {
        'f.nwosu@@talktalk.net': _J_OTHER,
        'VJOX800417HVZZBC00': _J_NATIONAL_ID,
        '(404) \n360-4839': _J_PHONE,
        '860850': _J_SECRET,
        'XB6O3ysLirfHkA5Yo16vhuG4PWmhHHs9wET7k56OcGVJhJKv3tVbL64Y_uxqmpQ-3LDfBAgIs7': _J_SECRET,
        'bha6xr8dnpc0oq5r6tuv85tr7q': _J_TOKEN,
        '470-997-628': _J_NATIONAL_ID,
        'Papillon579*': _J_PASSWORD,
    },
    'corpus_jf': {
        '737975752d656c6f662d7a73706a2d6c777562': _J_PASSWORD,
        '187492': _J_SECRET,
        '43tUL\\"bBPsE\\\\': _J_PASSWORD,
        '46657272656972612334373239': _J_PASSWORD,
        'ChangeMe!36': _J_PASSWORD,
        'ePuix\\"SkRar\\\\': _J_PASSWORD,
    },
    'corpus_jg': {
        'tundra ample gravy brisk ladle onion quartz': _J_PASSWORD,
        '0401/26.52.02': _J_PHONE,
        '584-015-145': _J_PHONE,
        'frisk ample cinder plaza oxford quartz gusto': _J_PASSWORD,
        'jznutirhfiobfpporlaaxodj.AO-J1On61Qg3BWROGbZFFrxizycNrB_HE4w9fbx6mhYV1uf5qOx3MAsd5AZDeZbwsxR-8u-Eh4UCYcNbRvDStweKcv7oIq8gqvaqgcFq0FkmaPfdHV3ynHT3koZd1X':
            _J_TOKEN,
        'fd8842179ef7ba4c5915c844b758d6dd': _J_TOKEN,
        'mocha grind yodel plush cover bleak': _J_PASSWORD,
        'slate grind mocha basil relic plush': _J_PASSWORD,
        '50240cffed3b1a0b45280a3d0225a6fe': _J_TOKEN,
        'nftsqoimxpiqcotahwihthms.AO-J1OxnGcEPdZMRM-W4dJli0Q22Zms95KcGkHa4c1XNu43UPjyqRyX1FIK8SAPdGcgeFIuQwy_iudsjR7I3nnV4AWLIxYG5NcEjNLEpwXibkPFwrp6oIumBqvUoFF':
            _J_TOKEN,
        'XkPvvXUZbmUy': _J_PASSWORD,
        'wafer mango nimble ladle tundra frisk brisk': _J_PASSWORD,
    },
    'corpus_jh': {
        'vhtWWob%2FO4iNgAuvfwbG6Xqe%2Bb9Ukk39lwO611o4': _J_OTHER,
        'RL21-9N0W-GBLO': _J_SECRET,
        '030 450 521180': _J_PHONE,
        'FR58  9384  1766 6634 4712 2391 109': _J_OTHER,
        '0dd05dcb148a53b8': _J_SECRET,
        'XRTYPGM6MX': _J_TOKEN,
        'cf6397c6-4ff2-420f-b292-e5470e0785d9': _J_TOKEN,
        '48a8d6b8889c4a839efc6e19b383c6f3': _J_TOKEN,
        '333 1532893': _J_PHONE,
        '0171 1637505': _J_PHONE,
    },
}
_KNOWN_CHANGED_J: dict[str, dict[str, str]] = {
    'corpus_jc': {
        'JC-329': _J_OTHER_CHANGE,
    },
    'corpus_jd': {
        'JD-048': _J_OTHER_CHANGE,
        'JD-157': _J_COMPANY_IBAN,
        'JD-512': _J_OTHER_CHANGE,
    },
    'corpus_je': {
        'JE-107': _J_OTHER_CHANGE,
        'JE-399': _J_COMPANY_IBAN,
        'JE-462': _J_COMPANY_IBAN,
    },
    'corpus_jg': {
        'JG-018': _J_COMPANY_IBAN,
        'JG-162': _J_RECORD_PHONE,
        'JG-395': _J_RECORD_PHONE,
        'JG-449': _J_COMPANY_IBAN,
    },
    'corpus_jh': {
        'JH-026': _J_OTHER_CHANGE,
        'JH-103': _J_OTHER_CHANGE,
        'JH-175': _J_COMPANY_IBAN,
    },
}


# Corpora IC to IH (hospitals and clinical systems; field service and access control;
# mobile carriers' retail and care; developers' credential files; LLM serving
# infrastructure; ERP and accounting systems).
_I_PASSWORD = ("a password with no key or word the detectors read beside it (after a user's name "
               "and a colon in a server's log, read out on the phone, a Wi-Fi key after "
               "'Schlüssel', a PSK in prose, a supervisor's answer in chat, a line of auth.txt or "
               "a vault password file, a Brazilian 'senha' of words, a Supabase password opening "
               "with '=$')")
_I_SECRET = ("a code or a secret with no word for it the detectors read (a door's code with "
             "letters or dashes, a keysafe's code in prose, a Rails master key printed by cat, a "
             "smart lock's code unquoted, a PIN said as words or digit by digit, a voucher's PIN "
             "in a table, an eSIM's matching id, a porting PIN 'on file', a security answer of "
             'three letters, a salt of sixteen hex digits)')
_I_NATIONAL_ID = ('a national id or passport number with no name the detectors read, or whose '
                  'check fails (a Danish CPR as a DICOM patient id, a Swedish personnummer in an '
                  "XML element, an SAP vendor's tax number, a Spanish social security affiliation "
                  'in a payroll CSV, a passport in an MRZ line or an expense request)')
_I_PHONE = ("a phone number in a format or a place the detectors do not read (a CDR's b-number "
            "column, an SMS gateway's receiver, a Spanish number after 'desde el', a number split "
            'over lines, a Chinese mobile with dashes, a number in an HL7 component)')
_I_TOKEN = ("a token the redactor leaves by design or cannot name (a Consul ACL token in a UUID's "
            'shape, a NetSuite token id, a Twilio secret by position, a Salesforce session after '
            "'OAuth', a key told in prose, httpie's --auth)")
_I_OTHER = ("an IPv6 prefix before its length, a card read out in groups with commas, a DSN's "
            "password with '=' in it, a private key's body under a CI log's masked lines, base64 "
            "of an HL7 message, an IP after strongSwan's '...'")
_I_COMPANY_IBAN = "a company's IBAN on an invoice: accounts are redacted whoever holds them"
_I_DEVICE_ID = ("a device's or a SIM's identifier (IMEI, ICCID, EID): redacted as telecom_id by "
                'policy, the corpus counts it as clean')
_I_RECORD_PHONE = "a record's number in a phone's shape (an article number, a cell's id)"
_I_OTHER_CHANGE = ("a name, a ciphertext or a reference the detectors read as a value (SOPS' and "
                   "SealedSecret's ciphertext, a secret manager's path, a Helm value naming a "
                   "Secret's key, an HL7 note's cassette key, a POS receipt's operation number, an"
                   " account id after 'recovery', a scanner's warning word)")
_KNOWN_MISSES_I: dict[str, dict[str, str]] = {
    'corpus_ic': {
        'Szhqbb510@Harbor': _I_PASSWORD,
        '0208988913': _I_NATIONAL_ID,
        'Hrynzi433@Falcon': _I_PASSWORD,
        'TVNIfF5+XCZ8RVBJQ3xOVkh8fHwyMDI0MTIxMDA5MTI0N3x8QURUXkEwOHw3MzMzMjY3N3xQfDIuNQ1QSUR8MXx8MTEwMjA3ODJ8fERPRV5BTEVYfHwxOTc0MDIxMnxVfHx8fHwoMjQ3KTg5OC05NjQ5fHx8fHx8fDYyNi05OS05MTcy':
            _I_OTHER,
        'TVNIfF5+XCZ8RVBJQ3xOVkh8fHwyMDI0MTEyMTAxMTAyMnx8QURUXkEwOHw0MDEwMjEzNnxQfDIuNQ1QSUR8MXx8MjY1MTAwMnx8RE9FXkFMRVh8fDIwMDUwNDIzfFV8fHx8fCg2MTApODY1LTIzNTN8fHx8fHx8MDMxLTM2LTMwMDg=':
            _I_OTHER,
        '010654-3232': _I_NATIONAL_ID,
        'tXnPuMqV5kzAGiYP6qxF': _I_PASSWORD,
        'kUGsVQueHlyDcJy5wCKqybezdgcZML2XOc3KPxdh6pU': _I_SECRET,
        'yTstsVOUPzbDQP9ZFA5p_cwDRGAgCeR1U3lN60DFfz6': _I_SECRET,
        '7676775800': _I_PHONE,
        '250967-3582': _I_NATIONAL_ID,
    },
    'corpus_id': {
        'Boiler2023?': _I_PASSWORD,
        '0624028241': _I_PHONE,
        '452078': _I_SECRET,
        '756.3950.3052.3': _I_NATIONAL_ID,
        '815816': _I_SECRET,
        'AZ8HvgKdF52jZkXYQPjgwd9s0iRHrkXv': _I_TOKEN,
        '3600': _I_SECRET,
        '003916026894611': _I_PHONE,
        '444080': _I_SECRET,
        '7670': _I_SECRET,
        '12/43456308/96': _I_NATIONAL_ID,
        '4154': _I_SECRET,
        '003915050005189': _I_PHONE,
        '9620': _I_SECRET,
        '5018': _I_SECRET,
        '29/73226537/15': _I_NATIONAL_ID,
        '6060': _I_SECRET,
    },
    'corpus_ie': {
        '525904481': _I_NATIONAL_ID,
        '06 62 91\n60 58': _I_PHONE,
        '33520934': _I_SECRET,
        '9849479507829418': _I_SECRET,
        '8235126917551403': _I_SECRET,
        '2a01:598:ede2:de2::': _I_OTHER,
        '1264949047': _I_SECRET,
        'LUL449846': _I_NATIONAL_ID,
        '33 2866 7255': _I_PHONE,
        '34648602192': _I_PHONE,
        '5.13.0.11': _I_OTHER,
        '2a0d:5600:985f::': _I_OTHER,
        '5723 8713 8481 19': _I_SECRET,
        '82256250180815': _I_SECRET,
        '=&~7bi#3HT%!SR': _I_OTHER,
        '6132601906': _I_PHONE,
        'Filou': _I_SECRET,
        '0sLt2lTXwQmbBI3yBldbKUJH1wAHWWOU': _I_TOKEN,
        '2a01:cb00:cec2:eace::': _I_OTHER,
        '973A3C66DFEE0304A6822C0EDD0300AC': _I_SECRET,
        '497573': _I_SECRET,
        '55 4063 9560': _I_PHONE,
        '=_ev-5!6f2BnPw': _I_OTHER,
        'galatasaray_32': _I_PASSWORD,
        '642788908': _I_PHONE,
        '5565, 6568, 5519, 8011': _I_OTHER,
        'four-seven-four-three': _I_SECRET,
        '10477559': _I_SECRET,
        '529835': _I_SECRET,
        '7766994859117209': _I_SECRET,
        '5966665880313682': _I_SECRET,
        '48891010': _I_SECRET,
        'ZBX087693': _I_NATIONAL_ID,
        'Kira': _I_SECRET,
        '2245': _I_SECRET,
        'QR-G-ZN-RZK-NJIAOAA': _I_SECRET,
        '393399956339': _I_PHONE,
    },
    'corpus_if': {
        '$apr1$cus5HDTN$aT9QHwOXUt81H9pGVrCy7f': _I_SECRET,
        'orbit-copper-juniper-harbor': _I_PASSWORD,
        'RzxA-cTnLbVsJSfZiUT98J.Z-RRtscK-igQAfrBnWinahiwW.He': _I_TOKEN,
        '2bb45791-82bc-48a2-a6f8-61c98299f84b': _I_TOKEN,
        '7de69b7b-2263-4603-97a5-b8a5038cbefc': _I_TOKEN,
        'Gtyrtr74-qWsKCv': _I_PASSWORD,
        'zk//y23Dstb8BHtNcjVzkk7AmymccRCkzkGjD8O9I2rnnK2yWd3qpkqgy++D/Bm1\n5u+3FDiajBKAeZe6ZBcEdLTZA+V3QoqUZRrxjS5V4JqSEHQSEPp7kfHkLUmGM6xF\nXQCZR7FdIG5vvsMec3JACLDMqtuFiiRh8I1BZsN3v6DmAkjZrceigDu/nXMWIDla\n5X//y9d4gSxSXwUsS6OjlWmS/w6cuZaxNTrNDYmyWwcauRUKOmYDy1zw3rEp6qDK\nc+2JXv2VFMlzAXEAgVacMzDasCyqDNVQ+UuWHgImSjWQMxdmWz6luuHPn4jHhWqN\nDktfcsUc/GZspTEGsFFwlPOKkMqDteUqN/KdNhEI8PA+tYtpgY34RS24wN8x1V6z\nJz1Khc7nFPDt6YtFJ7voUvQmmShLYYHj5D8CTNmPIXQO4xdOc3ZCET5Jn2Rlb3zw':
            _I_OTHER,
        '=$_16Leb3^g7FH#2': _I_PASSWORD,
        'pDZlixgDlZrQ4PpHvw7PdZ/HIpiiAvGJ0Rp5VStn9k2bsR2tRb98ML3QY3+SgGk4\nhzW/5kJHPG8Dekapfc+LJ22AUmQEBqT2UGgslXTVHfwkgItf2ZNL8TFx8vvkd+hu\nhjHa0GuqULyODj9SWGtWLFfCaxIPqM052pB/AqS+jRwP2RVei5mVqZDhYu8bt4nT\nEOjx1gbIp5uFUFTQ+WMUh2Wcu/ZrsidbvBGK9ZwLiZr6t+ElF+a6F+CX50AJRDCR\nY5r2xQ7hIXylwUhJCcNE4OhnPV9cHHoHoGfnFLhtS8zjMxp5aqcjnv+gB0TZlsNA\n+6qip7sFJkpdMOdo8i/9Onu3+80WHkkzud6vDQa7X606RihV+fZX/jDiMkmSZsND\n9A0/zQSvaSOH0EMx3bY+uFaBzg92CLcY2xK6HRKsUXIvzGko97jvg/cPjQIHDxJQ':
            _I_OTHER,
    },
    'corpus_ig': {
        '333 3720725': _I_PHONE,
        '18832334096': _I_PHONE,
        'Lqf+vRzoNM2DqvSyHsH82HtaG87/xn54': _I_SECRET,
        '8eafZvzl1Fr0bFfE4shB33TkY0Xi6pgH': _I_TOKEN,
        '317590226': _I_NATIONAL_ID,
        'oTLI5mOEhzqf2wR0PMiGARTxTMADnCWa': _I_TOKEN,
        '8aec3c0b98538cd27f024780502aa4b192cc7a2f49b702a87fe22131c853cd39': _WEBHOOK_SIGNATURE,
        'NL 23 ABNA0 664268 659': _I_OTHER,
        '57899ce222a99781435a3d34c6d9f5682ba0c2d6cf50b28232ff62d1daa5112b': _I_TOKEN,
        '706-748-393': _I_PHONE,
        'ek_ttJ3DM1PECO6y5hmONMa1RCBOCxkqSjJ': _I_TOKEN,
        'YFDBqnZzF+6fNG84biXG2BEHUPmVQ8nW': _I_SECRET,
    },
    'corpus_ih': {
        'euWl783aQEnWCcrJVCfxLG%2Fc8JP5FgziQl2Fup2h%2Fbk%3D': _WEBHOOK_SIGNATURE,
        '78621590137': _I_NATIONAL_ID,
        'mLR%nS?K9c384USynh': _I_OTHER,
        '8cx*4iPiql?LDK': _I_OTHER,
        'haus-Bilanz77': _I_PASSWORD,
        '084062633181': _I_NATIONAL_ID,
        'CYa7lotSbB65sjBc': _I_PASSWORD,
        'jPsQ2J1zsycPVSs7': _I_PASSWORD,
        '48655073214': _I_NATIONAL_ID,
        '29463021874': _I_NATIONAL_ID,
        '20490361878': _I_NATIONAL_ID,
        '64147281M': _I_NATIONAL_ID,
        '8gYieNZcYCvmQbTDAET75Ifdao1BNfuKag3b/9LRiP0=': _WEBHOOK_SIGNATURE,
        '285072988990': _I_NATIONAL_ID,
        '0cG68ne6SO1iTGpEGpAs9NBHyuz1T7CN9bxXQwE%2BtAE%3D': _WEBHOOK_SIGNATURE,
        '373899459655100': _I_OTHER,
        '6307062585': _I_NATIONAL_ID,
        'Vorsicht2024': _I_PASSWORD,
        '23518040695': _I_NATIONAL_ID,
        '2199204538041': _I_NATIONAL_ID,
        '77d72720101eca79bfde0765d3377e46c1e9771ac9f15330235059e0ae57c610': _I_TOKEN,
        '980716-3887': _I_NATIONAL_ID,
        'BM3I3ewYRtpjBxVFIRvmR2pUbWeFfLnbKMPue2efP44=': _I_SECRET,
        '58906314291': _I_NATIONAL_ID,
        '410 677 687': _I_NATIONAL_ID,
        '721844541': _I_NATIONAL_ID,
        'ee97653e0d154279dee1d59a8d4032cb9d5059761791b353b191fd0bae5e67bb': _I_TOKEN,
        '2611161099': _I_NATIONAL_ID,
        '98030612649': _I_NATIONAL_ID,
        'ZJ0537819': _I_NATIONAL_ID,
    },
}
_KNOWN_CHANGED_I: dict[str, dict[str, str]] = {
    'corpus_ic': {
        'IC-135': _I_OTHER_CHANGE,
        'IC-222': _I_OTHER_CHANGE,
        'IC-375': _I_COMPANY_IBAN,
        'IC-383': _I_COMPANY_IBAN,
    },
    'corpus_id': {
        'ID-043': _I_COMPANY_IBAN,
        'ID-064': _I_COMPANY_IBAN,
    },
    'corpus_ie': {
        'IE-059': _I_DEVICE_ID,
        'IE-066': _I_DEVICE_ID,
        'IE-096': _I_DEVICE_ID,
        'IE-135': _I_DEVICE_ID,
        'IE-153': _I_DEVICE_ID,
        'IE-166': _I_OTHER_CHANGE,
        'IE-179': _I_COMPANY_IBAN,
        'IE-188': _I_OTHER_CHANGE,
        'IE-212': _I_DEVICE_ID,
        'IE-263': _I_OTHER_CHANGE,
        'IE-274': _I_DEVICE_ID,
        'IE-280': _I_DEVICE_ID,
        'IE-328': _I_DEVICE_ID,
        'IE-345': _I_COMPANY_IBAN,
        'IE-352': _I_DEVICE_ID,
        'IE-362': _I_DEVICE_ID,
        'IE-369': _I_DEVICE_ID,
        'IE-371': _I_OTHER_CHANGE,
        'IE-385': _I_RECORD_PHONE,
        'IE-446': _I_OTHER_CHANGE,
        'IE-474': _I_DEVICE_ID,
        'IE-485': _I_DEVICE_ID,
        'IE-507': _I_DEVICE_ID,
    },
    'corpus_if': {
        'IF-115': _I_OTHER_CHANGE,
        'IF-151': _I_OTHER_CHANGE,
        'IF-163': _I_OTHER_CHANGE,
        'IF-237': _I_OTHER_CHANGE,
        'IF-365': _I_OTHER_CHANGE,
        'IF-379': _I_OTHER_CHANGE,
    },
    'corpus_ih': {
        'IH-017': _I_RECORD_PHONE,
        'IH-122': _I_OTHER_CHANGE,
        'IH-306': _I_COMPANY_IBAN,
        'IH-407': _I_RECORD_PHONE,
    },
}

# Corpora HC to HH (identity providers and SSO; personal-life apps; energy retail and EV
# charging; OCR'd documents; infrastructure-as-code and secrets managers; South-East Asia).
_H_PASSWORD = ("a password with no key or word the detectors read beside it (five letters "
               "under a Python dict's 'password' key, a word and capitals after 'PW' in "
               "German chat, an OCPP key/value pair's AuthorizationKey split over JSON fields)")
_H_SECRET = ("a code with no word for it the detectors read (backup codes of letters alone, a "
             "hex key after YAML's !!str tag)")
_H_NATIONAL_ID = ("a national id or passport number with no name the detectors read, or in a "
                  "shape they do not take (an Aadhaar after a question, a Steuer-ID after a "
                  "law's paragraph number, an SSN a sentence after its name, a CMS-1500's "
                  "insured id, an NINO under an employee id, a Chinese id under "
                  "employee_tax_id, a passport after 'Reisepassnummer für ...', an Aadhaar "
                  "card's OCR, a UK passport's number under 'No. / Nº')")
_H_PHONE = ("a phone number in a format or a place the detectors do not read (split one group a "
            "line to slip past an app's filter, a Vietnamese mobile after 'tu', a Malaysian "
            "number as a bill's reference, a Norwegian number in a guest list)")
_H_OTHER = "an SMS gateway's base64 payload holding a number after 'to='"
_H_CONTRACT_ID = ("an e-mobility contract id (eMAID): a customer's number, left as an order's is "
                  '(an older corpus counts one as clean)')
_H_HASH = "a bcrypt hash in Terraform's state: one-way hashes are left, as everywhere"
_H_TD1_IN_JSON = ("an ID card's TD1 line inside a document-AI JSON whose generic 'ID_CARD' name "
                  'reads the state and the number as one failed id, blocking the TD1 reading')
_H_OCR = ("a value with OCR damage (O for 0, l for 1, a '<' inserted in an MRZ, an IBAN's groups "
          "two spaces apart, spaces around an e-mail's '@')")
_H_CHECK_FAILS = "a DNI whose check letter fails (the corpus' own error message says so)"
_H_COMPANY_IBAN = ("a company's IBAN on an invoice or a bill: accounts are redacted whoever holds "
                   'them')
_H_DEVICE_ID = ("a device's or a SIM's identifier (ICCID): redacted as telecom_id by policy, the "
                'corpus counts it as clean')
_H_OTHER_CHANGE = ("a name or a number the detectors read as a value (a Keycloak message bundle's "
                   "text after a password key, a company's TIN on a receipt, a free-phone number "
                   "on a banner, an OCPI session's id, base64 firmware after a '+', a biller id "
                   "read as a '00' number, a Luhn-passing EAN in an asset sheet)")
_KNOWN_MISSES_H: dict[str, dict[str, str]] = {
    'corpus_hc': {
        'fffn-kzwv': _H_SECRET,
        'mtxb-apzr': _H_SECRET,
    },
    'corpus_hd': {
        '213\n891\n8645': _H_PHONE,
        '578-626-614': _H_PHONE,
        '615\n848\n3977': _H_PHONE,
        '312\n948\n8971': _H_PHONE,
        '448015215': _H_NATIONAL_ID,
        'CM7G4VZNG': _H_OCR,
        'K21WZ60L5': _H_OCR,
        '303\n462\n9398': _H_PHONE,
    },
    'corpus_he': {
        'nAuxK': _H_PASSWORD,
        'NL-NEW-CA2SLLQYC-K': _H_CONTRACT_ID,
        '48 379 901 269': _H_NATIONAL_ID,
        '42 791 315 684': _H_NATIONAL_ID,
        'GB-ION-CH6QFWEYN-H': _H_CONTRACT_ID,
        'NL-ION-CGP32YM8G-2': _H_CONTRACT_ID,
        'jtkYu': _H_PASSWORD,
        'dG89NjgyIDg1MiAxMTImbXNnPVlvdXIgbWV0ZXIgcmVhZGluZyBpcyBkdWU=': _H_OTHER,
        '89 147 560 021': _H_NATIONAL_ID,
        'BE-ION-CROTDN66E-9': _H_CONTRACT_ID,
        '8y5EU': _H_PASSWORD,
        'VWJsU': _H_PASSWORD,
        'GB-EMP-C8RTFKBH2-D': _H_CONTRACT_ID,
        'NL-ION-CSM1F2BC4-8': _H_CONTRACT_ID,
        'admin-TWQIaZFH': _H_PASSWORD,
        'NL-CHM-CSFCYV33D-2': _H_CONTRACT_ID,
        '58F806BB23EDD542DB04F0BB544C90F1675DA37A': _H_PASSWORD,
        'DE-IBE-C1QDPFXV0-X': _H_CONTRACT_ID,
        'GB-ION-C5XWQXNIZ-W': _H_CONTRACT_ID,
        'BE-NEW-CBJAA5CH5-V': _H_CONTRACT_ID,
        'GB-CHM-C9XYNUVDY-S': _H_CONTRACT_ID,
        'DE-NEW-CIILM7V3B-R': _H_CONTRACT_ID,
    },
    'corpus_hf': {
        '70ZV56475': _H_TD1_IN_JSON,
        'CT 8I 76 I8 C': _H_OCR,
        '45932340Y': _H_CHECK_FAILS,
        '45932340A': _H_CHECK_FAILS,
        '+49 (O)89 4Ol 2855': _H_OCR,
        '276876740': _H_TD1_IN_JSON,
        'FR18  8618  3271  4618  2744  5932  223': _H_OCR,
        '162979837': _H_NATIONAL_ID,
        'thanh.nguyen @ outlook,com': _H_OCR,
        'ES09  5044  0470  7645  6311  7057': _H_OCR,
        '57335209G': _H_CHECK_FAILS,
        '57335209A': _H_CHECK_FAILS,
        'NA 74 99 9O C': _H_OCR,
        'GB89  NWBK  2578  2408  0064  64': _H_OCR,
        '531283570': _H_NATIONAL_ID,
        'P37Y4P41M': _H_TD1_IN_JSON,
    },
    'corpus_hg': {
        '$2a$10$8YW2oIKY9DuQjwD4QNXqfGpjfe7Oo9psHX1rqewgJk7GrZ940JzaI': _H_HASH,
        '$2a$10$IWUO8yGWtOXA0Y2lzoXnTlZ7TGc525ZdLFaPIQTIIjiwOq6cBN3fY': _H_HASH,
        'C28CVT4J0': _H_NATIONAL_ID,
        'CLVWXLNXR': _H_NATIONAL_ID,
        '55fae05b37246db7399e2f068796a7296d8606c3a79074977e5dd3d8c292f0d8': _H_SECRET,
        '$2a$10$pz1zlaOhLcmExwAikfOUH8O5pKGZb1d06b5e5pbNJLB1GNYrn36gt': _H_HASH,
    },
    'corpus_hh': {
        '0986205253': _H_PHONE,
        ('49b285727609d3f4f8d382c09edb3061d81302f4964b07b4548043a382e0b054'
         'eb58621654daba42793d9d4963f1b8955a51ff47251b7f6723463cf507903c84'):
            _WEBHOOK_SIGNATURE,
        '0949604678': _H_PHONE,
        'd7b9c12a9e04b44494da69f8da9bbddfa8feb89494bf871eb838973655a8fe8b': _WEBHOOK_SIGNATURE,
        '011-317 21372': _H_PHONE,
        ('858b2d5fafb4ef383256a1777f0a6fc9f863357e3fd0f231e22f58683e40acb0'
         '6ddc6fb9fd79110d628c59855acb49c770468d6509be8d2fdf7a4bcc1988351f'):
            _WEBHOOK_SIGNATURE,
        '5bb310acdccc0e5ea4b081d67998e68f6579b5ef2a3ca66298d55ae0e0c8caa0': _WEBHOOK_SIGNATURE,
        '6aff7a191413ae54edc9c8d0db221fa51a53a65d2002ce8c56ebea5f2420f7f4': _WEBHOOK_SIGNATURE,
        '41c77d21fbe618774dd69c23e1452642c40120d19312ca37043fd493e7a23e80': _WEBHOOK_SIGNATURE,
    },
}
_KNOWN_CHANGED_H: dict[str, dict[str, str]] = {
    'corpus_hc': {
        'HC-029': _H_OTHER_CHANGE,
    },
    'corpus_he': {
        'HE-016': _H_COMPANY_IBAN,
        'HE-036': _H_DEVICE_ID,
        'HE-095': _H_COMPANY_IBAN,
        'HE-104': _H_DEVICE_ID,
        'HE-115': _H_DEVICE_ID,
        'HE-134': _H_DEVICE_ID,
        'HE-137': _H_OTHER_CHANGE,
        'HE-140': _H_OTHER_CHANGE,
        'HE-163': _H_OTHER_CHANGE,
        'HE-182': _H_DEVICE_ID,
        'HE-215': _H_DEVICE_ID,
        'HE-228': _H_DEVICE_ID,
        'HE-235': _H_OTHER_CHANGE,
        'HE-273': _H_COMPANY_IBAN,
        'HE-325': _H_OTHER_CHANGE,
        'HE-326': _H_OTHER_CHANGE,
        'HE-340': _H_OTHER_CHANGE,
        'HE-344': _H_DEVICE_ID,
        'HE-429': _H_OTHER_CHANGE,
        'HE-493': _H_COMPANY_IBAN,
    },
    'corpus_hf': {
        'HF-057': _H_COMPANY_IBAN,
        'HF-191': _H_COMPANY_IBAN,
        'HF-343': _H_COMPANY_IBAN,
        'HF-432': _H_COMPANY_IBAN,
    },
    'corpus_hg': {
        'HG-205': _H_OTHER_CHANGE,
    },
    'corpus_hh': {
        'HH-029': _H_OTHER_CHANGE,
        'HH-085': _H_OTHER_CHANGE,
        'HH-096': _H_OTHER_CHANGE,
        'HH-148': _H_DEVICE_ID,
        'HH-178': _H_DEVICE_ID,
        'HH-296': _H_DEVICE_ID,
        'HH-299': _H_OTHER_CHANGE,
        'HH-317': _H_DEVICE_ID,
        'HH-423': _H_OTHER_CHANGE,
    },
}

# Corpora FC to FH (restaurants and delivery; gambling; browsers and password managers;
# student finance; payment card internals; Chinese, Japanese and Korean developers' text).
_F_PASSWORD = ('a password with no key or word the detectors read beside it (a row of a password '
               "manager's CSV export with no header, an item's field by its designation a few "
               "lines later, a password a word after 'Passwort ist', an Italian 'password del "
               "gestionale X:', 'login changed →', a PPAP mail's letters-only password)")
_F_SECRET = ("a code or a secret with no word for it the detectors read (a gate's code with a "
             "letter, a confirmation code after 'code' alone in chat, 'G-' and a Google code, a "
             "sync chain's words cut short, an HSM's PIN in a command's hex)")
_F_NATIONAL_ID = ('a national id or passport number with no name the detectors read (a Spelpaus '
                  "lookup's subject, a Dutch BSN as a payment's personid, a passport in a "
                  "sentence, an SSN in a fixed-width table, an autofill row's value)")
_F_PHONE = ("a phone number in a format or a place the detectors do not read (a number under 'to' "
            "in a JSON, a fixed-width table's column, a 3-D Secure homePhone's subscriber)")
_F_CLIENT_ID = ("an OAuth client's or an app's id (Naver's client_id, Kakao's REST client id): "
                'public, left as ids are')
_F_TOKEN = "a payment card's single-use nonce (Square's cnon:), left as Stripe's tok_ is"
_F_OTHER = "a cardholder's name as EMV's hex (tag 5F20): names are no kind"
_F_MRZ_CHECK = "a passport's MRZ line whose check digits fail (the corpus' generator)"
_F_HSM = "a PIN and its encrypted block in an HSM's command and reply hex"
_F_CAVV = ('a 3-D Secure authentication value (CAVV): an older corpus counts an ARes with one as '
           'clean')
_F_COMPANY_IBAN = ("a company's or a university's bank account on an invoice or a fees page: "
                   'accounts are redacted whoever holds them')
_F_DEVICE_ID = ("a device's IMEI in an asset list: redacted as telecom_id by policy, the corpus "
                'counts it as clean')
_F_OTHER_CHANGE = ("a name or a number the detectors read as a value (a restaurant's Steuernummer "
                   "on a receipt, a helpline's free number, a key loading device's masked "
                   "components, a Japanese parcel's slip number, a password's place in a "
                   "vault named in Japanese)")
_KNOWN_MISSES_F: dict[str, dict[str, str]] = {
    'corpus_fc': {
        'cnon:5QleB1uzSIylxVXB36e2WNpQ': _F_TOKEN,
        'cnon:VanMe14iXx5h2EwSbGbfjFmi': _F_TOKEN,
        'cnon:otk4pCVHsHbG8WAyVZ1fvbsO': _F_TOKEN,
        'Q3447': _F_SECRET,
        'qzWWMar3!j8WFq': _F_PASSWORD,
        'cnon:G-t3PAQFLFm5JdkP9tUvNHeK': _F_TOKEN,
    },
    'corpus_fd': {
        ('DBPaWiI7vJl5UbvJmCSlE37ES64azGdyybWFytiJVoLLffjRE8l/23lcfo8Yk5Z2'
         'lN3oAVkzuHZO8ahXWLSG6IpRJ9mhKnZzjdrcvv8wcVliK7Y84noiLEuw2wKrNCe5'
         'hQrrlc6p9f+xmHUJery88AWj+R+5vcQ4QTACqmV74RZMuFfEqYhxH6Q1LTYeg9hu'
         'QV6WhjBqU5kQ5e4u9Y1Ro+Ehih2iV0AizTZyXx/VggzVco85wHXpwuz5VCQxQ2br'
         'MMonwQrsIGSH93RItJ9rVRMAD3GU8rAHY/XTwImOsQa6gMJvocDDCFAAauVnBMG+'
         'Bdt+AHA47A1Q4uQ/kQqm7A=='):
            _WEBHOOK_SIGNATURE,
        '05CO40514': _F_MRZ_CHECK,
        '680222-6610': _F_NATIONAL_ID,
        'YRD284125': _F_MRZ_CHECK,
        '11027610228': _F_NATIONAL_ID,
        ('EJj3xXFVE5ddN/KJq4gXo4bmzKvho1o2KCKaB4v3mgBXwhJ4jtRCzf2kwO4V/JyN'
         'KgstbIWMLs5MgTPvOUAVZ8KSeM6Bwkk8QkasFkF6ZS5bTulb1Z9hJ9fZzCcgRyEt'
         '402naX79FZpf7+nKJ2IjYcId7GBfnGgNaMqMuYbuOgiCMz+ISoXY1ZqBlil9EzuN'
         'FiZM4YbKZWKAjTzmPU1/2b5it/dNHhvgPshO0EolIo/fCnenIaqEh6hj5WkPuOdB'
         'oz+BeF8vT99W5s51JctszaaQCrYecygQGv0elD57d1jXVm/655MzAC9Uyr++XZa+'
         'Vj8ESJaRXjEeM0CnwfJkjQ=='):
            _WEBHOOK_SIGNATURE,
        '906212': _F_SECRET,
        '700677122': _F_PHONE,
        ('hFYgeRlsjeQwiFZwgfqBnjUICXU60r+QlEJ2fEHHpE8CNOaeE2C8mrePtrXxGMNV'
         '1KAJAIYn4Lk1o5sQpZL6UG3MFC8ciSrsv3u574FTJvyLgEhgNh+gUQsD9tMkvdXT'
         'nexzHgdBLqOUiCoOqjgEuXjIXVlGqQYiab4JS75uC8BSWbRWgoKFRHHwsZR3XaOU'
         'M/U+hOJDI8neq0xoWbCNwckGDGbjL+ST2cjJ/UjCXPYqroaTyLNf4nTc/Zt+zcyN'
         'wLz8bp0xvzF0EXN6Qz8OKfs/LONE+6dHb4Bg0T0SvVT8hf/6WwaiBlzW8MFm/8Bu'
         'PUos/l5/2bTKk0BxqHlybQ=='):
            _WEBHOOK_SIGNATURE,
        '166341': _F_SECRET,
        'aoL1tOCZgKMT4qpPTaPUOFGo49PsdPdpEIfmjrzl': _CSRF,
        '932826': _F_SECRET,
        'gZ9bE4JqlzO0FRwvUAwVYhidIZV0xFCDugess3e8': _CSRF,
        '60RY21440': _F_MRZ_CHECK,
        '567799840': _F_NATIONAL_ID,
        ('XGMF9AtqwfuelN2K2RDb6CfI1/XcBKf1Bf+7gFE5S73DPTSCdS1qhVODK8U1qt66'
         'hozeEUydF3h5Me5ZvffWqSAGpH8fo2sfXGUtUpVwJeyRp+JGTrp9eSaHSlBmHbdG'
         'AiVnM84PQcbyqwzT7+GIXXujwOjsCdo+nIb/2qvAvhBkOC7h6rpvqvelPAWjTNHy'
         'VpSBqPqMxw7RGQduP+43bbqFKH4P4WdzW+cAhixFfnJ2a16w7gpo8EDTEBzh7UOa'
         'wxEmgmDNF4W2jX8yHN/Fwj5RzggpbSWDXZTOAHDQ18QrVwA5pq9X4kRDpiU+ntgy'
         '+idW4Sf/vaeupU/fSXLQkA=='):
            _WEBHOOK_SIGNATURE,
        '697997597': _F_PHONE,
        '630109-5128': _F_NATIONAL_ID,
        'NusZsePuI5lwwhmik1Qog1VnsYejRKg955U3kgXQ': _CSRF,
        'ENG261010': _F_MRZ_CHECK,
    },
    'corpus_fe': {

        ('kitchen mercy vessel almond brick vessel pilot fabric nephew cou'
         'sin rocket rocket almond brick kitchen cousin fabric cousin neph'
         'ew rocket brick quote absorb kitchen'):
            _F_SECRET,
        'K1BeWhAD7hx#': _F_PASSWORD,
        ('kitchen absorb timber brick rocket pilot brick almond pilot fabr'
         'ic vessel almond nephew absorb brick mercy ladder ladder rocket '
         'fabric ladder absorb quote vessel'):
            _F_SECRET,
        'PD$4&k5a!4^x+UMN!dgTt@X': _F_PASSWORD,
        'xdMsqMGjhTcD#': _F_PASSWORD,
        '64018323976': _F_NATIONAL_ID,
    },
    'corpus_ff': {
        'BN9224118': _F_NATIONAL_ID,
        'U7524024': _F_NATIONAL_ID,
        'GA455885': _F_NATIONAL_ID,
    },
    'corpus_fg': {
        '9053': _F_HSM,
        '35E4B701438B5328': _F_HSM,
        '084237407': _F_NATIONAL_ID,
        '650822': _F_HSM,
        '6D15D208189456CE': _F_HSM,
        '197201235': _F_NATIONAL_ID,
        '157103997': _F_NATIONAL_ID,
        'AAACBZ82RaCgL7NQAE7OzDoXVOs=': _F_CAVV,
        '15139321310': _F_PHONE,
        '4B4F57414C534B412F4D41525441': _F_OTHER,
        'cced5227dfb09b4a8393ff5ea6944ecef03e633f8aa0b2b8d9d14c247dc3196c': _WEBHOOK_SIGNATURE,
        '677a4fb7c623d29c01351973e4e8d9c68d82133165725151825679c0bce99aa8': _WEBHOOK_SIGNATURE,
        '53414E544F532F5041554C4F': _F_OTHER,
        '16020258043': _F_PHONE,
        'AJkBAZWf8oUM1vmn/QWomgXyTGw=': _F_CAVV,
    },
    'corpus_fh': {
        '4jNhyWYTYnHcA1AW0Ylt': _F_CLIENT_ID,
        'RzvQgbK7jGbB7xgatPWv': _F_CLIENT_ID,
        'v94U3VREyhG5e2NRTmsw': _F_CLIENT_ID,
        'SHsl3l3fyRRpDpWMJ415': _F_CLIENT_ID,
        '260389a3914dbd416467c6bbfcfc1935': _F_CLIENT_ID,
        'PXFQxt3+GFokSnFQWtg/Sytt9n0igsUv3HUHFAEJ8VU=': _WEBHOOK_SIGNATURE,
        '3TSMOltEgcblHMOZWZlOSsx4FZiQYtJcZ9ojLjQBJgk=': _WEBHOOK_SIGNATURE,
        ('Dh0g9ZUqsQixLGPzKJ3bAtQrmkQnG3Gc8mrqRQk12lqUlH7Ua3gY9dBVq5IJ+ptc'
         '4GpMGgkv0kv5yEjlp8iIFfVOC/XfwjGyiuXGqvTSo3yMh1qaWhFW+rU2Ss/0+Nxw'
         'B4wV7j6R/3vYjBBWpXAXxKRcSl/cO/W/EHxFpujNFvEAjoAwJgdg6XzOhJ7kIUG3'
         'lH2eEQeRkPYnM8J8tCSOdUmUjD8GNJSoyLR/dvITu7m0sBkDha4yg02qqSQ0kE5a'
         'zitWOVCVLGAys5IKuGHBYWBEcHDlbRanPMvcGYzE5hz0lrGtB0TCFmUe6smXOTdp'
         '/LJI3ZncCGwLNTSI/nKSUk=='):
            _WEBHOOK_SIGNATURE,
        'dad4cf1dbe1e65d976a678feb0eced3a': _F_CLIENT_ID,
        'qCKeyyBGH0RULtHtjoF8gJ63ItibyBhrcVuYvWL6Ehs=': _WEBHOOK_SIGNATURE,
        't2ivDIW3gHPZyUBF0FCW': _F_CLIENT_ID,
        ('6kAmsAZDY+G8M5b0gEEQ84PwLCXTRzRud1kUOyQlPax1zqfmri12dpkVG9x09LEN'
         '5Hrz1Bed7FEC/fcmizvR9f6lLByud+uWW1kCPxDr3/Cc273XwhcjDD3vFQrOZvfN'
         'B+09S9QDEWuYIGDTy8vxhunaHGWNuysbmd3bsUd0afXTl1V7AvgniooHf7FxYzeI'
         '1riuFxMKQcQ/D9suCsd8NPqZbcbj9kre3vhGgR4qcXz2NcI2NevMXTTsMs0FeDaL'
         'Msqb4M57BvWOolI5llE48ReWJDuL5bEid/PNUDUyU32KggrHsPnV7HqlEJ/GCaQJ'
         'OlNWbk7HaopFjq2qwUJjZR=='):
            _WEBHOOK_SIGNATURE,
        ('Lo0I8tR6sIhjhVDEI3WO0kv4QKGFWjb7f5b8daQwsn1EshkdExnS+wr+pYraa6mS'
         'Pj7BMSF3S3RSy3jkM4YpjWmhjW9frYbaT8A8J8JwB/nXfVUdRF35tFZku3sWZD16'
         'fLJa4otma5jHHNC0wY6o0EyX6IsnqQppkgsHcHmFmnHAWow0pZkgSpenOlU5UKnt'
         '5fMjafvRelbbCjOermbyfYCg3kEmWpFdfll6j65xS32U5dcA7qvnSYilOJe5HB7w'
         'QbIDYlBZaM6DH/j8zJltGgIU2dW0nLmAbShy4sm+3vRaa1DSUA2IEsH1OmN2thQK'
         'WYgVRmDSDYdIagwuUwMxsX=='):
            _WEBHOOK_SIGNATURE,
        '1c0be8b1eb2258cc95689a25384e31a6': _F_CLIENT_ID,
    },
}
_KNOWN_CHANGED_F: dict[str, dict[str, str]] = {
    'corpus_fc': {
        'FC-062': _F_OTHER_CHANGE,
        'FC-283': _F_OTHER_CHANGE,
        'FC-286': _F_OTHER_CHANGE,
        'FC-295': _F_OTHER_CHANGE,
        'FC-331': _F_OTHER_CHANGE,
        'FC-431': _F_OTHER_CHANGE,
    },
    'corpus_fd': {
        'FD-101': _F_OTHER_CHANGE,
        'FD-258': _F_COMPANY_IBAN,
        'FD-382': _F_COMPANY_IBAN,
        'FD-396': _F_COMPANY_IBAN,
        'FD-452': _F_COMPANY_IBAN,
    },
    'corpus_ff': {
        'FF-209': _F_COMPANY_IBAN,
        'FF-335': _F_COMPANY_IBAN,
        'FF-441': _F_COMPANY_IBAN,
        'FF-504': _F_COMPANY_IBAN,
    },
    'corpus_fg': {
        'FG-075': _F_OTHER_CHANGE,
        'FG-425': _F_OTHER_CHANGE,
        'FG-484': _F_OTHER_CHANGE,
    },
    'corpus_fh': {
        'FH-113': _F_OTHER_CHANGE,
        'FH-285': _F_DEVICE_ID,
        'FH-324': _F_OTHER_CHANGE,
        'FH-342': _F_DEVICE_ID,
        'FH-344': _F_OTHER_CHANGE,
        'FH-352': _F_DEVICE_ID,
        'FH-504': _F_OTHER_CHANGE,
    },
}

# Corpora EC to EH (pet services; second-hand marketplaces; call centres' speech to text;
# git hosting; post-Soviet countries' services; aviation).
_E_PASSWORD = ("a password with no key or word the detectors read beside it (after 'contraseña "
               "es', a memorable word 'given', a key's password 'ставил', a chat's answer to 'pw?'"
               ' in backticks)')
_E_SECRET = ("a code or a PIN with no word for it the detectors read (an alarm panel's 'type "
             "1358', an SMS code answered on the next line of a chat, a PUK after the number it is"
             " for, a keypad's 'new code', a code in a percent-encoded Cyrillic message)")
_E_NATIONAL_ID = ('a national id or passport number with no name the detectors read (a NINO after '
                  "a question, a passport in a booking request's next sentence, an ID card's "
                  "number under 'number=', a foreign passport with '№', Armenia's social card, "
                  "Georgia's personal number, a SNILS grouped 3-3-5, a passport read out in "
                  'threes)')
_E_PHONE = ("a phone number in a format or a place the detectors do not read (split over a chat's "
            "messages, dots and spaces between groups, a top-up's account=, an answer on the line "
            "after the question, a scam report's number, a NumberParseException's raw)")
_E_CLIENT_ID = "an OAuth client's id (Amadeus' client_id): public, left as ids are"
_E_OTHER = "a card's number split over two chat messages or by ' / '"
_E_SCAM_LINK = "a phishing link's path token (a scammer's page, not the victim's secret)"
_E_SPOKEN = ('a number, a code, an e-mail or a password spelled out in words with fillers, as '
             'speech to text writes it')
_E_BAD_IPV6 = "an IPv6 address of six groups and no '::' (no valid address: the corpus' generator)"
_E_SLASH_IN_URL = ("a URL's password holding an unescaped '/', which ends the authority for any "
                   'URL parser')
_E_COMPANY_IBAN = ("a company's bank account on an invoice's footer: accounts are redacted whoever"
                   ' holds them')
_E_OTHER_CHANGE = ("a name or a number the detectors read as a value (a parcel's Versand-ID, a "
                   "role mailbox, a SIP URI's user at an internal host or Twilio's SIP domain, an "
                   "order number said digit by digit, an SSH login after -p, a SealedSecret's "
                   "ciphertext not starting 'Ag', a diff's EAN rows after '+', a webhook's "
                   'delivery id, a cargo waybill number)')
_KNOWN_MISSES_E: dict[str, dict[str, str]] = {
    'corpus_ec': {
        '1358': _E_SECRET,
        '9356#': _E_SECRET,
        '4225': _E_SECRET,
    },
    'corpus_ed': {
        '366-2896444': _E_PHONE,
        '0740049911': _E_PHONE,
        '349 064 7726': _E_PHONE,
        '6698': _E_SECRET,
        '0wcj6tm9iq9tetakoy53bjmbcfn3m': _E_SCAM_LINK,
        '1vpsstpvelgk7tvxjeytfj39yqq5tj': _E_SCAM_LINK,
        'cjbvqumdxr3ocrip2ihgek3a': _E_SCAM_LINK,
        '015187': _E_PHONE,
        '980297': _E_PHONE,
        'bcq9jqr0xmgd4qf4ro1tzt': _E_SCAM_LINK,
        '3ghlhcemxecntjitb3pna8v01': _E_SCAM_LINK,
        '4bx5t710emiohe9l2s2xt3c3gx98': _E_SCAM_LINK,
        '0162 . 409 . 0148': _E_PHONE,
        '015193': _E_PHONE,
        '635927': _E_PHONE,
        '251833': _E_SECRET,
    },
    'corpus_ee': {
        '2221 6367 / 3254 5413': _E_OTHER,
        '0170 / 758 - 37057': _E_PHONE,
        '06-93145241': _E_PHONE,
        'wisniewska dot ahmed seven nine at gmx dot de': _E_SPOKEN,
        '07 61 53 39 53': _E_PHONE,
        'Quince50': _E_PASSWORD,
        '13981833407': _E_PHONE,
        ('six oh double one six three um double two uh five two erm three '
         'five seven four oh nine'):
            _E_SPOKEN,
        'two three six seven five four two eight triple two three two zero nine oh': _E_SPOKEN,
        'six five six three two four': _E_SPOKEN,
        'capital T iger two thousand and five hash': _E_SPOKEN,
        'Bramble26': _E_PASSWORD,
        'jones dot julien eight four at comcast dot net': _E_SPOKEN,
        '4024 3579 / 7130 1997': _E_OTHER,
        '0173 / 665 - 5111': _E_PHONE,
        'Kestrel5': _E_PASSWORD,
        'double two two one seven nine six um four three four erm nine five one two double oh':
            _E_SPOKEN,
        'four three four double five three': _E_SPOKEN,
        'capital S unflower two thousand and five hash': _E_SPOKEN,
        'five two seven nine four two': _E_SPOKEN,
        '0178 / 612 - 1931': _E_PHONE,
        '८५८०९६७९५३': _E_PHONE,
        '८६२८३१७२७१': _E_PHONE,
        '८४५५३१८७०२': _E_PHONE,
        '913 205 392': _E_PHONE,
    },
    'corpus_ef': {
        '2a00:23c7:9fe9:3c3c:f567:c94': _E_BAD_IPV6,
        '2a01:cb00:4b35:ed96:d1c4:e8a3': _E_BAD_IPV6,
        '2600:1700:974a:6df1:a2c2:ed': _E_BAD_IPV6,
        '2600:1700:3ae9:935e:d9f5:cee9': _E_BAD_IPV6,
        'KAPioxr9gmH1kqsb3XVoxSO/A2X9eQGRj7Qqdti4Tq': _E_SLASH_IN_URL,
        'NR9RDxjZ6fHJ7lLt8+o+m75mq7MibM6l/Z3hvCkqsc': _E_SLASH_IN_URL,
        '2804:14c:4f43:15fb:31eb:2540': _E_BAD_IPV6,
        '2a00:23c7:1d03:ec07:b933:1c78': _E_BAD_IPV6,
    },
    'corpus_eg': {
        '79775338994': _E_PHONE,
        'АМ 552125': _E_NATIONAL_ID,
        '001072688': _E_NATIONAL_ID,
        'GA650630': _E_NATIONAL_ID,
        'qwerty_medved11': _E_PASSWORD,
        '28C2FDD4647E014F49CC9432737E6B0C': _WEBHOOK_SIGNATURE,
        '616911': _E_SECRET,
        '22007066': _E_OTHER,
        '72928948': _E_OTHER,
        '380974475260': _E_PHONE,
        'solnce_medved14': _E_PASSWORD,
        '77083998843': _E_PHONE,
        '057971': _E_SECRET,
        '279-808-81344': _E_NATIONAL_ID,
        'EY132701': _E_NATIONAL_ID,
        '72№9151276': _E_NATIONAL_ID,
        'F2E777C66CB8A2D5B0B24AB7F38856DB': _WEBHOOK_SIGNATURE,
        '380993081002': _E_PHONE,
        'AA5422754': _E_NATIONAL_ID,
        '5996514792': _E_NATIONAL_ID,
        '2343073078': _E_NATIONAL_ID,
        '3708': _E_SECRET,
        '593 309 629': _E_PHONE,
        'DF86A6CAEBFA2B9945693F885DFE8C4F': _WEBHOOK_SIGNATURE,
        '77752318775': _E_PHONE,
        '71 1688337': _E_NATIONAL_ID,
        '22022021': _E_OTHER,
        '63158573': _E_OTHER,
        '435631': _E_SECRET,
    },
    'corpus_eh': {
        'HfwEydpzlVKztJeMb7fZuSDGCSRX1Yc7': _E_CLIENT_ID,
        '214 166 537': _E_NATIONAL_ID,
        'Cockpit530%': _E_PASSWORD,
        'lufthansa.Apron62': _E_PASSWORD,
        'LZtgGUaUi9m3gMa7xghDdv4ADiCIh5x8': _E_CLIENT_ID,
        '9jdRAa8jPwW3RI9alzyGvy5Nf5OZzfB': _E_PASSWORD,
        'JIsg3HlSXnq4xdAxo3xnVD3nHlIjg5Zr': _E_CLIENT_ID,
        'TClkhS1wbHOpwyDz1L7xDTigzjhq1V7f': _E_CLIENT_ID,
        'pr6r76uPpUjxxeMhFvlQRIkwPvqDVpcX': _E_CLIENT_ID,
        'NIHtX6lc8LTf3EN6Z98WNyQuK2NoYLaG': _E_PASSWORD,
        '656 101 927': _E_NATIONAL_ID,
        '508 735 651': _E_NATIONAL_ID,
        'kranich-Tower37': _E_PASSWORD,
    },
}
_KNOWN_CHANGED_E: dict[str, dict[str, str]] = {
    'corpus_ec': {
        'EC-099': _E_OTHER_CHANGE,
    },
    'corpus_ed': {
        'ED-059': _E_COMPANY_IBAN,
        'ED-183': _E_OTHER_CHANGE,
        'ED-327': _E_COMPANY_IBAN,
        'ED-402': _E_OTHER_CHANGE,
        'ED-503': _E_COMPANY_IBAN,
    },
    'corpus_ee': {
        'EE-004': _E_OTHER_CHANGE,
        'EE-019': _E_OTHER_CHANGE,
        'EE-045': _E_OTHER_CHANGE,
        'EE-102': _E_OTHER_CHANGE,
        'EE-177': _E_OTHER_CHANGE,
        'EE-219': _E_OTHER_CHANGE,
        'EE-222': _E_OTHER_CHANGE,
        'EE-267': _E_OTHER_CHANGE,
        'EE-354': _E_OTHER_CHANGE,
        'EE-523': _E_OTHER_CHANGE,
    },
    'corpus_ef': {
        'EF-017': _E_OTHER_CHANGE,
        'EF-055': _E_OTHER_CHANGE,
        'EF-173': _E_OTHER_CHANGE,
        'EF-201': _E_OTHER_CHANGE,
        'EF-367': _E_OTHER_CHANGE,
        'EF-386': _E_OTHER_CHANGE,
        'EF-507': _E_OTHER_CHANGE,
        'EF-510': _E_OTHER_CHANGE,
    },
    'corpus_eg': {
        'EG-091': _E_OTHER_CHANGE,
        'EG-279': _E_OTHER_CHANGE,
        'EG-457': _E_OTHER_CHANGE,
    },
    'corpus_eh': {
        'EH-531': _E_OTHER_CHANGE,
    },
}

# Corpora DC to DH (consumer payments; penetration tests; contact sheets; Canada, Australia
# and New Zealand; India's consumer services; forwarded e-mails).
_D_PASSWORD = ('a password an offensive tool prints with no name the detectors read beside it '
               "(nxc's table, nmap's default accounts, kpcli's output on a line with others, a "
               "PowerShell script's $password, a PFX's export password in a comment, a JSON's "
               'doubled quotes), or one told in prose without a word for it')
_D_SECRET = ('a hash, a key or a code an offensive tool prints where the detectors read no name '
             "for it (a hashcat example line's hash, a JWT secret after a forged token, a DPAPI "
             "blob, a KeePass hash line's shape), or a code told in chat with no word for it")
_D_NATIONAL_ID = ("a national id or a document's number with no name the detectors read, or one "
                  "whose name is not read (Canada's and New Zealand's client, file and licence "
                  "numbers, an NHI whose check fails, a TFN under 'tfn' read as Sweden's word for "
                  "a phone, India's voter and licence ids, Sweden's number under 'subject=')")
_D_PHONE = ('a phone number in a format or a place the detectors do not read (a country code and '
            "its number in two columns, a Polish 'Tel. kom.', a Bizum sender, a number in a "
            "ValueError's literal, a Tamil or Hinglish 'your number')")
_D_CLIENT_ID = ("a payment gateway's key id (Razorpay's rzp_live_ key_id): public, the checkout "
                'page carries it')
_D_OTHER = ("a device's push token (FCM), left by design; a card's number typed across a table's "
            'cells; base64 MIME bodies holding names and addresses (names are no kind); an address'
            " in a URL's user, percent-encoded")
_D_AADHAAR_CHECK = ("an Aadhaar number whose Verhoeff check digit fails (the corpus' generator: "
                    "India's numbers all pass it)")
_D_HASH = 'a bcrypt hash in a database dump: one-way hashes are left, as everywhere'
_D_COMPANY_IBAN = ("a company's bank account or tax number on an invoice: accounts and tax numbers"
                   ' are redacted whoever holds them')
_D_OTHER_CHANGE = ("a name or a number the detectors read as a value (a Message-ID or a reply's id"
                   " in an address's shape, a role mailbox, a GitHub noreply address, a Kerberos "
                   "realm's user in a BloodHound query, an SPN's host, a masked card's helpline "
                   'number)')
_KNOWN_MISSES_D: dict[str, dict[str, str]] = {
    'corpus_dc': {
        '658 443 908': _D_PHONE,
        ('qSn0yEIIysiCh4v8G00hh7:APA91b4yOZfAP_53OV2d2ln_pmnDI3j9bx9uNs9Xq'
         'NFWqAySLq3W5DkC9sBrO_Nuon9qvFdwGHiOorOBQw32wgnM5C34sG8mW-L0tiWoL'
         'DyLi3gy-2qNQsTPHfe9X8moEflf5N-QDedR'):
            _D_OTHER,
        ('_f_8B8i5jEfhRlXgXXvXq3:APA91blR78kqkzHHIfrl5o_6sHXTW7xFFwaTE_Boo'
         'THMFildhE7K8ngdrGKIB2TLRGdlMtCOA-bIu1dnZfqPoVfnvRMCfGOu3sz--ehrq'
         'pz7jWnv6EXIRxdtuo-C8h81rJHRIzU8GOVb'):
            _D_OTHER,
        ('nQC6cPimjLXY1g7I3Qi5RN:APA91bSPGvfApokBK63a3mBlttzuVeIUFL4lvy-2q'
         'gfRkf3461B4FGgDw5vdtTaIrYdVIZP6cpF4DBYESSUJQ87npZsVijDSzLI4SwjjI'
         '-AXq_3mZWrCeRM8L-pXoE3gwqSM6_o9llu2'):
            _D_OTHER,
        '76022224139': _D_NATIONAL_ID,
        ('q8qyPa_kXBWAvmiCvAeWrR:APA91bjqTaRyVVqY1TsSHgxsKlXSRz_XMFI79aZdm'
         'W3AoptN1zDSfcRb29gcD_J0IAzJXHfTC7zjQm3YSZy03ai604Sov-KqiqEQ6J2Re'
         'aM_-F5cz44Qol5VmmR1MZpGyTpjcGpfV_PQ'):
            _D_OTHER,
        '677-292-116': _D_PHONE,
        '629 244 691': _D_PHONE,
    },
    'corpus_dd': {
        '878439018': _D_NATIONAL_ID,
        'dda063932623512581a0080771351998': _D_SECRET,
        '2c04fcb2bcb341e0b7749b4c6f18027e': _D_SECRET,
        'wjCmaD[o0L7Vzpe3': _D_PASSWORD,
        'U,_plC46qc,jun=o': _D_PASSWORD,
        'sKKDfWeeC2j%': _D_PASSWORD,
        '_[FkUI_sMNGN0lxrZtGZ]': _D_PASSWORD,
        'Spring2021$': _D_PASSWORD,
        '$2y$10$q9.8PAbFXE0fIKxUyT898uk7w5Eqf3MJpEfhx5Q0s9jzx1TiDrzP4': _D_HASH,
        '$2y$10$LYukuX7F.x.x4rc8uWCgK.oY3/VK0nb.E2m84J/0c5F2Zda3ZJV.G': _D_HASH,
        '$2y$10$UfeJFZNcuRFdq59BFHVATRTqL1OwV9ouPwBvJxWE9aI.dVR1WA2VX': _D_HASH,
        'n+Sm8L*87mFx64*H(v': _D_PASSWORD,
        'Monday12!!': _D_PASSWORD,
        'Wo7TEK5gIG7OfGb!': _D_PASSWORD,
        ('7CaBR5gcWLnrTyJcs5K2zP/yLVjnbuIckYXu9PknQ0l39T0tGvmV9iELKK3+9i6o'
         'LGGMw6U4YHHJjrdscxEfRqXpjjXgJMt9FthjDJzLKh1pi1Yq9g2Pny0xZPr4EzfZ'
         'HTjxj2iAbMiInq0BErGQrrBMO/gepYL84/TQjAWQ8Ft5u4KXojbDttHs04+0Qu8l'
         'gzx1FCymosN+DioQhuRzDUrStuR3KclNtBKx1cVZiEOikKGefAKyemKgsdBgc84U'
         '1tBL/mkE0/73gJm7QCj8TO+yhUpziltY5ftx79iWzTwbLtQLkmU5szGOceVu2SHc'
         'X2NiJVibuRr6HRwy9Bn7KiL31fuWoy+4AaDo'):
            _D_OTHER,
        'z2lDlVqjUDjpS-B_': _D_SECRET,
        '3291d685cb7d552b84e28cc79170c50196dbf48d': _D_SECRET,
        '$2y$10$IYRzg//nDA5Nply1hHszrZ9KE9q8X2TCeifcXdO33GTWLBO3CYcDF': _D_HASH,
        '$2y$10$.eZBTWAFcDZ13gPTswuJveKOQUqM2DG1N6XNSTf9fMFzbSJohH4lx': _D_HASH,
        'f328fe21ae8b78a8e9dd92712b2b02fa40a6fcf6': _D_SECRET,
        'u7dxjCXDU0#': _D_PASSWORD,
        'Brightwater.119*': _D_PASSWORD,
        'admin123': _D_PASSWORD,
        '819176795': _D_NATIONAL_ID,
        'Quillfeather.1455': _D_PASSWORD,
        ('/nEW9BKMTR7BySIR/RDodTdq8h9dH2/+OUaaft6PN9wKuqfObxHiecPXTMNZm0Nv'
         'Guqbxiwbq8MI32I9UAjvBbdqnMvSYZDgOGQw70+jBDfA2dNZSLrBhuwRm5XPXvgx'
         'zULGdPQtbxvEWZWNr2h8wJRD9vZ3gJKwVA=='):
            _D_OTHER,
        '4412270c53db39ccbccdacf36750bad1': _D_SECRET,
        '321fe0aa6700ea8e1ee577bba873ca86': _D_SECRET,
        'yuv1xugC36R9w&': _D_PASSWORD,
        ('dC3JqIEk/yejpXLj4yMG/eO0hJsLdT+qQ47yDvwC57fjr1TXIQZMbToG19DuwD1x'
         'CRix/Ueyh1uok7NGcBYlYPcy9KuuJiYrSQZPQlsBjUQPQFuG6bcK56/taoAnVh7o'
         'SO+vPexGgjigDg0azftueYN5y+v7S3tKC1SSTzEPw5s0irtRusPnObYHrQ=='):
            _D_OTHER,
        'f00637bd3cf41f6e036f85bea14e6923': _D_SECRET,
        'Invierno2019?': _D_PASSWORD,
        '69015f1e253282ba13d7ff812cc4d848': _D_SECRET,
        'Password2019!': _D_PASSWORD,
        '4ee06a70cb1161c75edd0def71e93590': _D_SECRET,
        '++kYagSW*,6LB8z2),': _D_PASSWORD,
        '$2y$10$kmT2O74037Cr3G7BC6JAkXCEv0XkXkfDSG0Uzb23wKDGVAlkouNY1': _D_HASH,
        '$2y$10$ouUnXenN.ugIhB0HYXZLIJV3hs3/1ZYURGAvXSquMJhjuydRBq2Mp': _D_HASH,
        ('1jWXWg5lGbGG3dxZMSu84I+cwSp6p2tvDryx3R9iCwszG+UHfuQlw3om2gyiCGBs'
         'Bz9wMcHuiLVdSqKp782UmZXjD3UQNS4mE5EPBu/BBAAN5PFvIS0Pkt6QXeFjgcac'
         'BO0vc2LA9HZ/cy858a/TWg9K2S+EY84lxTCq5bm9gPIeiQ=='):
            _D_OTHER,
        'Dragon2022#': _D_PASSWORD,
        'Letmein2021$': _D_PASSWORD,
        'Pa55w0rd!': _D_PASSWORD,
        '9002b53215bfeaa148b420912e2f0ae42564fc09': _D_SECRET,
        'supersecretkey': _D_SECRET,
        'Bienvenue2019#': _D_SECRET,
    },
    'corpus_de': {
        '+33': _D_PHONE,
        '7 64 75 29 90': _D_PHONE,
        '+34': _D_PHONE,
        '638 814 917': _D_PHONE,
        '24 00 70 51': _D_PHONE,
        '08045179740': _D_PHONE,
        '338-6276839': _D_PHONE,
        '751-975-127': _D_PHONE,
        '776-705-174': _D_PHONE,
        '+49': _D_PHONE,
        '162 1491286': _D_PHONE,
        '6011 | 4026 | 3040 | 8575': _D_OTHER,
    },
    'corpus_df': {
        '455 042 758': _D_NATIONAL_ID,
        '776 203 385': _D_NATIONAL_ID,
        'JY611654': _D_NATIONAL_ID,
        '399 781 250': _D_NATIONAL_ID,
        '168 931 046': _D_NATIONAL_ID,
        'KB77572622': _D_NATIONAL_ID,
        'PEA3963': _D_NATIONAL_ID,
        'EM958509': _D_NATIONAL_ID,
        '522 538 044': _D_NATIONAL_ID,
        '36-916-656': _D_NATIONAL_ID,
        'RW651962': _D_NATIONAL_ID,
        '302 309 255': _D_NATIONAL_ID,
        '329 524 797': _D_NATIONAL_ID,
        'LG214390': _D_NATIONAL_ID,
        'RJ447723': _D_NATIONAL_ID,
        '065 045 025': _D_NATIONAL_ID,
        '59-857-231': _D_NATIONAL_ID,
        '403 614 051': _D_NATIONAL_ID,
        'OB89704173': _D_NATIONAL_ID,
        'LC953782': _D_NATIONAL_ID,
        'UO30778981': _D_NATIONAL_ID,
        'XXJ8205': _D_NATIONAL_ID,
    },
    'corpus_dg': {
        '418692': _D_SECRET,
        '93142 33331': _D_PHONE,
        '382384': _D_SECRET,
        'rzp_live_7z65fmalHjV6Yi': _D_CLIENT_ID,
        '403174273313': _D_AADHAAR_CHECK,
        '343173983234': _D_AADHAAR_CHECK,
        'M4849628': _D_NATIONAL_ID,
        '786648263386': _D_AADHAAR_CHECK,
        'rzp_live_XMrMxgWVoiwS4s': _D_CLIENT_ID,
        '895605': _D_SECRET,
        '841004': _D_SECRET,
        '3121 6297 1798': _D_AADHAAR_CHECK,
        '07925430310': _D_PHONE,
        '394077726183': _D_AADHAAR_CHECK,
        'rzp_live_CkiCKalJPiy7Le': _D_CLIENT_ID,
        '9966677090': _D_PHONE,
        '80745 30815': _D_PHONE,
        '4430': _D_SECRET,
        'rzp_live_b9ZRSVLJtN9jNk': _D_CLIENT_ID,
        '83726 66631': _D_PHONE,
        '710049884023': _D_AADHAAR_CHECK,
        '921265387205': _D_AADHAAR_CHECK,
        '928490767921': _D_AADHAAR_CHECK,
        '985042198570': _D_AADHAAR_CHECK,
        '952942': _D_SECRET,
        '520720877367': _D_AADHAAR_CHECK,
        '7015088800': _D_PHONE,
        '663127092269': _D_AADHAAR_CHECK,
        '9828 8809 3711': _D_AADHAAR_CHECK,
        '287524': _D_SECRET,
        '৩৫৯০ ৬৪৩৭ ১২২১': _D_AADHAAR_CHECK,
        '795079434954': _D_AADHAAR_CHECK,
        '8799765971': _D_PHONE,
        'M8152882': _D_NATIONAL_ID,
        '7617 6740 1575': _D_AADHAAR_CHECK,
        '695798114873': _D_AADHAAR_CHECK,
        '802884954133': _D_AADHAAR_CHECK,
        '৯৯২৬ ৭৬১৫ ৩০০৫': _D_AADHAAR_CHECK,
    },
    'corpus_dh': {
        'mzut yioo bgrc ugeg': _D_PASSWORD,
        '159803823': _D_NATIONAL_ID,
        ('SGFsbG8gQ2FtaWxsZSBMaW5kcXZpc3QsDQpJaHJlIG5ldWUgVGVsZWZvbm51bW1l'
         'ciAwMTAtNjI1\nNS0xODgxIHd1cmRlIGdlc3BlaWNoZXJ0Lg0K'):
            _D_OTHER,
        ('RGVhciBCZWF0cml6IFJvc3NpLCB5b3VyIGJvb2tpbmcgaXMgY29uZmlybWVkLiBD'
         'b250YWN0OiB5\ndGFuYWthQG5hdmVyLmNvbQ0K'):
            _D_OTHER,
        ('SGFsbG8gTWVobWV0IEJpYW5jaGksDQpJaHJlIG5ldWUgVGVsZWZvbm51bW1lciAr'
         'NDQgNzg1OCAz\nMDEwMjcgd3VyZGUgZ2VzcGVpY2hlcnQuDQo='):
            _D_OTHER,
        'camille.weber%2Bshop%40gmail.com': _D_OTHER,
        '093801': _D_SECRET,
    },
}
_KNOWN_CHANGED_D: dict[str, dict[str, str]] = {
    'corpus_dd': {
        'DD-042': _D_OTHER_CHANGE,
        'DD-058': _D_OTHER_CHANGE,
        'DD-438': _D_OTHER_CHANGE,
    },
    'corpus_df': {
        'DF-123': _D_COMPANY_IBAN,
        'DF-237': _D_COMPANY_IBAN,
        'DF-517': _D_COMPANY_IBAN,
    },
    'corpus_dg': {
        'DG-048': _D_OTHER_CHANGE,
        'DG-167': _D_OTHER_CHANGE,
        'DG-250': _D_OTHER_CHANGE,
        'DG-259': _D_OTHER_CHANGE,
        'DG-336': _D_OTHER_CHANGE,
        'DG-489': _D_OTHER_CHANGE,
        'DG-500': _D_OTHER_CHANGE,
        'DG-503': _D_OTHER_CHANGE,
    },
    'corpus_dh': {
        'DH-037': _D_COMPANY_IBAN,
        'DH-142': _D_COMPANY_IBAN,
        'DH-149': _D_COMPANY_IBAN,
        'DH-164': _D_OTHER_CHANGE,
        'DH-176': _D_COMPANY_IBAN,
        'DH-195': _D_COMPANY_IBAN,
        'DH-209': _D_COMPANY_IBAN,
        'DH-229': _D_COMPANY_IBAN,
        'DH-292': _D_COMPANY_IBAN,
        'DH-310': _D_COMPANY_IBAN,
        'DH-334': _D_OTHER_CHANGE,
        'DH-355': _D_COMPANY_IBAN,
        'DH-388': _D_COMPANY_IBAN,
        'DH-390': _D_OTHER_CHANGE,
        'DH-470': _D_COMPANY_IBAN,
        'DH-497': _D_COMPANY_IBAN,
    },
}
# Corpora CC to CH (network gear; device management; hiring; web frameworks' debug
# output; immigration and visas; ticketing, gyms and clubs).
_C_ONE_WAY = ("a one-way hash of a device's admin password (FortiOS' SH2, ProCurve's sha1): left, "
              'as crypt hashes are')
_C_NO_WORD = ("a password or a key with no word for it the detectors read (a creds.txt's comment "
              "line, 'enable is X', what a type 7 'decodes to', a PSK of three words with spaces, "
              "a token pasted alone, a passphrase of words after 'Пароль от Wi-Fi')")
_C_CODE_IN_CHAT = ("a one-time or a device's code told in a chat with no word the detectors read "
                   "beside it ('519 387' on its own line, 'den Code 637754')")
_C_BARE_ID = "a tax number in an ORM's bound parameters, with no name beside it"
_C_BIND_PARAMETER = ("a refresh token in Prisma's bound parameters: the query names the column a "
                     'line before')
_C_WRAPPED_CARD = "a card's number wrapped across two lines by a log collector"
_C_ID_COLUMN = "an id under a table's column named only 'ID' (most such columns hold records' ids)"
_C_PUSH_TOKEN = "a device's push token (FCM, Expo): left by design"
_C_MRZ_CHECK = 'a passport number in an MRZ line whose check digits the corpus got wrong'
_C_CURP_CHECK = ("a CURP after its name whose check digit fails (corpus TC counts such a one "
                 "clean: a CURP's digit is checked)")
_C_TOLL_FREE = "a carrier's NOC number (a +49 800 freephone) in an interface's description"
_C_SSH_LOGIN = "sftp's user@host after its options ('-i key'): read as an address"
_C_COMPANY_IBAN = ("a company's or a club's IBAN on a remittance or a notice: accounts are "
                   'redacted whoever holds them')
_C_IMEI = "modems' IMEIs in an inventory CSV: redacted on purpose (telecom_id)"
_C_DDM_TOKEN = "Apple DDM's ServerToken (a declaration's version): read as a secret by its key"
_C_VERSION = "a TPM's firmware version after aligned spaces ('ManufacturerVersion    : ...')"
_KNOWN_MISSES_C: dict[str, dict[str, str]] = {
    'corpus_cc': {
        'SH24RMx0aZ969B/jsiDYN+GpDKyq9sKaa9/vEekB3k4BBmXMswIzBK1gz5Vb=': _C_ONE_WAY,
        'SH2Xem4zX7b0omc18fCGlRbOo7EfVQ3JnXMkNyx1E7LDjHHIkrV9VHGuVqr4=': _C_ONE_WAY,
        'jiUr5+7tbxq1M@Edu': _C_NO_WORD,
        'SH2tGb7DeYx52cMAgHBj7GVb3D9WQYibMWj0rqJLdJ+8EpF9MAZ0b+ZkgAtz=': _C_ONE_WAY,
        'SH29Ph0d/baOcB2wwIGLnVquTVquGbpv/ieDVyT9d9XiqkI65fNcFjl9vd9w=': _C_ONE_WAY,
        'Raptor48zHDY': _C_NO_WORD,
        'T4ngo#172': _C_NO_WORD,
        'tiger forty apple': _C_NO_WORD,
        '519 387': _C_CODE_IN_CHAT,
        '598 224': _C_CODE_IN_CHAT,
        'Nordwind79SNS': _C_NO_WORD,
        'Switch623fM': _C_NO_WORD,
        '5724095bd3071723135c5303089bb208a38bf875': _C_ONE_WAY,
        '6b83c071485d6e51d21716b0a21ff7a95ad2a787': _C_ONE_WAY,
    },
    'corpus_cd': {
        'd6cvpdq377anrc528l8ltewe': _C_NO_WORD,
        '637754': _C_CODE_IN_CHAT,
        'thistle-falcon-summit': _C_NO_WORD,
        '7422': _C_CODE_IN_CHAT,
    },
    'corpus_cf': {
        'abbac7033b757a5eb77382f58205c840f934d58e6bb45f65687de4f1bda6c96e': _WEBHOOK_SIGNATURE,
        '43d09e3ee4cc9fe7436bcc46e9cad3a2172c9f19f11df09e68f9c1b564a3301a': _WEBHOOK_SIGNATURE,
        'c32456b635192320f58a23fc0f3d903a079ca5bc249e34eaa8a0e0c8fa5d37ac': _WEBHOOK_SIGNATURE,
        'ffad3b3865417d93c148c069f3980378f4fe0f9564111c8690761fa6b880dde3': _WEBHOOK_SIGNATURE,
        '89112348831': _C_BARE_ID,
        'CkxgQv6nDVMRJzu7SjDfvdo93A3BCOM5': _CSRF,
        '6fbbb148c646285b8ea609c828297817823bee30fd37e9aee5b18d714b1f0361': _WEBHOOK_SIGNATURE,
        '60119436\n80117855': _C_WRAPPED_CARD,
        '-TuGrzieCyAQL97eT5qCR8TQm6dsQ7JkZ-10ZmtO9NLT4o-rAOguVQhjM9rMvclD': _C_BIND_PARAMETER,
        'lOfn_0kdjycN_sxJ_fXOBRC4QCbsSheX-0XRC32QiNIUD-oo2J7VGK82kLLxKXqx': _C_BIND_PARAMETER,
        '36219420\n941225': _C_WRAPPED_CARD,
    },
    'corpus_cg': {
        'TQRL781114HPLVDJ75': _C_CURP_CHECK,
        'MAGG911115HDFLZF72': _C_CURP_CHECK,
        '183051322556138': _C_ID_COLUMN,
        '281069414322829': _C_ID_COLUMN,
        '166123131788730': _C_ID_COLUMN,
        '48185931B': _C_ID_COLUMN,
    },
    'corpus_ch': {
        ('N2SBMxN0SmZMDM1pWgiszu:APA91beYK9lX7IgWx_9ETLDi0QRPoksgP-c_Hdb90'
         'hpr0u0oKDuIh-5ZzjJPW6hp7f9wvzV89b_PHmdX31MTndYH2EABtggiueNQ8HhJH'
         '1qn0-jDXH5jVsIzf1bno9naGJBgQVOa7XWC'):
            _C_PUSH_TOKEN,
        'asCLqZRVIfz2uFH9i23rF3drD2e5Tw6K8DNAj0Acpec=': _WEBHOOK_SIGNATURE,
        '403167113': _C_MRZ_CHECK,
        'ExponentPushToken[aZGuZ87-bVnNAVN8lhB77h]': _C_PUSH_TOKEN,
        '31a3d39a01df9ab0defe0ad1f3f435c9aef69a4d5b756ef4703810b8ebbea6e0': _WEBHOOK_SIGNATURE,
    },
}
_KNOWN_CHANGED_C: dict[str, dict[str, str]] = {
    'corpus_cc': {
        'CC-078': _C_TOLL_FREE,
        'CC-121': _C_TOLL_FREE,
        'CC-166': _C_TOLL_FREE,
    },
    'corpus_cd': {
        'CD-060': _C_DDM_TOKEN,
        'CD-092': _C_IMEI,
        'CD-109': _C_VERSION,
        'CD-423': _C_DDM_TOKEN,
        'CD-424': _C_IMEI,
    },
    'corpus_ce': {
        'CE-107': _C_SSH_LOGIN,
        'CE-160': _C_COMPANY_IBAN,
        'CE-200': _C_SSH_LOGIN,
        'CE-206': _C_SSH_LOGIN,
        'CE-263': _C_COMPANY_IBAN,
        'CE-295': _C_COMPANY_IBAN,
    },
    'corpus_ch': {
        'CH-088': _C_COMPANY_IBAN,
        'CH-368': _C_COMPANY_IBAN,
    },
}
# Corpora BC to BH (Kubernetes; messaging app exports; video conferencing; tax
# preparation and tax portals; open banking; digital forensics).
_B_NO_WORD = ("a password with no word for it the detectors read (in backticks after 'it's still',"
              " on the line after a login, after 'wifi' or 'clave' alone, kubectl's protobuf "
              "output, a tool's '{UNKNOWN}' line, what a PDF's rule makes it, typed as 'I'm typing"
              " X')")
_B_WAMID = ("a WhatsApp message id (wamid.) whose base64 holds the sender's number: an id, and the"
            ' number is redacted where the payload names it')
_B_NAME_B64 = "a person's name in base64 in a Secret's data (names are no kind)"
_B_WRAPPED = ("a value split across lines or by a stray space (a quoted e-mail's '> ', a token "
              'pasted in two parts, an SSN with a space inside)')
_B_CODE_IN_CHAT = ("a one-time or a door's code told in a chat with no word the detectors read "
                   'beside it, or after an amount or a question')
_B_DIAL_IN_PIN = ("a conference line's dial-in PIN (Google Meet's, a bridge's): corpus KA counts "
                  "them clean, the meeting's own id for phones")
_B_CLIENT_ID = ("an aggregator's client id (Plaid's client_id, Salt Edge's App-id): it names an "
                'app, and an older corpus counts one clean')
_B_STRIPE_OBJECT = "a Stripe object's id (btok_): names a bank account, charges nothing alone"
_B_BARE_NUMBER = ("an account, tax or SSN number bare in a chat or a variable's dump, its name "
                  'sentences or messages away')
_B_STAND_IN = "a weak password read as a documentation stand-in ('Changeme...')"
_B_PHONE = ("a phone in a format or a place the detectors do not read (a call log's column, a "
            "chat's next message, Persian digits after Persian words, '(0)' and '/' inside)")
_B_ANSWERED = ("a passport's number answered in a chat two messages after the question ('mine is "
               "X' after another's answer)")
_B_NONCE = 'a Kubernetes writeback nonce beside a certificate (no credential alone)'
_B_SOPS = "SOPS' MAC ciphertext (ENC[AES256_GCM,data:...]) read as a bare base64 key"
_B_ANSIBLE = "an Ansible task's name after its role ('TASK [k8s_secrets : Create ...]')"
_B_SAFETY_NUMBER = "Signal's safety number in groups of five, read as a phone"
_B_COMPANY_IBAN = ("a company's, a charity's or a landlord's IBAN on an invoice or an appeal: "
                   'accounts are redacted whoever holds them')
_B_LICENCE = "a software licence's serial (four groups of four): read as a product key"
_B_NETWORK_TOKEN = "a card network token's reference (a UUID) under network_token"
_B_VERSION = "a program's version in an Amcache CSV's Version column, read as an address"
_KNOWN_MISSES_B: dict[str, dict[str, str]] = {
    'corpus_bc': {
        'nebula-nebula-nebula79': _B_NO_WORD,
        'QW9pZmUgQnJlbm5hbg==': _B_NAME_B64,
        '51wlJxn6mdtLV!x5wgMq': _B_NO_WORD,
        ('eyJhbGciOiJSUzI1NiIsImtpZCI6Ik0zSVhOVUpyaGVEQzlCY0cxV2szVGtnUVlU'
         'X2tpSExxazVsWjZR\nYUdHaTMifQ.eyJhdWQiOlsiaHR0cHM6Ly9rdWJlcm5ldGVz'
         'LmRlZmF1bHQuc3ZjLmNsdXN0ZXIubG9jY\nWwiXSwiZXhwIjoxNzE5ODk4MDM1LCJ'
         'pYXQiOjE3MTk4OTQ0MzUsImlzcyI6Imh0dHBzOi8va3ViZXJuZ\nXRlcy5kZWZhdW'
         'x0LnN2Yy5jbHVzdGVyLmxvY2FsIiwia3ViZXJuZXRlcy5pbyI6eyJuYW1lc3BhY2'
         'UiO\niJtb25pdG9yaW5nIiwic2VydmljZWFjY291bnQiOnsibmFtZSI6InByb21ld'
         'GhldXMtZmVkZXJhdGUiL\nCJ1aWQiOiI2ZTY2OTFjZS1mZWViLTQ0ZjktOTMxYy00'
         'NmU0ZDA1ZjA5M2YifX0sIm5iZiI6MTcxOTg5N\nDQzNSwic3ViIjoic3lzdGVtOnN'
         'lcnZpY2VhY2NvdW50Om1vbml0b3Jpbmc6cHJvbWV0aGV1cy1mZWRlc\nmF0ZSJ9._'
         'gDPCXgJkTvGTDFhrYyfD_K3moRjnTrwYcz2rKwQjZXI33zfz9h6hs_CDJeq0_CoW'
         'lEXdXG0\nIv19AKgQbFNGIvExr3BliQ18bm1U4HzlYi3hAPy-jtbJYTyehBpWhgXW'
         '7l0ChVZexXPvaH3DZ4dt4m3F\nskL0KOvtuKtd0cBOfA3-WUnOmKMR6IBJh4Fut_9'
         '4E-N-8JhfbcYMBAwjKPpEqmqKUEn8jb0iBVIrOOK3\nO_18csqfBCwOCB2h2imZky'
         'Yx1nbpq3yXd4d7bLyU3uv2v_cOdjDrnRdlfqQc91paBtEDOrcll3N_iOMI\n8JO6u'
         'lh-Z3Gx4iODU1VjPipvfQRmtg'):
            _B_WRAPPED,
        'WXVraSBUYW5ha2E=': _B_NAME_B64,
        'ghp_uWzKdax7tSWcnVVr': _B_WRAPPED,
        'mpdq61KMYb70jLB6yloL': _B_WRAPPED,
    },
    'corpus_bd': {
        'A53483036': _B_ANSWERED,
        '435484': _B_CODE_IN_CHAT,
        'XRZloxv221#': _B_NO_WORD,
        '135 6020 3051': _B_PHONE,
        'ANZXBQTRLKLW': _B_NO_WORD,
        '+49 (0) 172 / 814 80496': _B_PHONE,
        'GAszNDczMTYyOTE1MxUCABIYFDA2NEM4NThGNEM1MUJBNkRGMjk3AA==': _B_WAMID,
        '۰۹۳۶۲۸۵۰۲۶۸': _B_PHONE,
        '94564': _B_CODE_IN_CHAT,
        '779487': _B_CODE_IN_CHAT,
        '649 500': _B_CODE_IN_CHAT,
        '4125': _B_CODE_IN_CHAT,
    },
    'corpus_be': {
        '697 523 390': _B_DIAL_IN_PIN,
        '6975233900394': _B_DIAL_IN_PIN,
        '467322': _B_CODE_IN_CHAT,
        'glByGbFE': _B_NO_WORD,
        '346 701 702': _B_DIAL_IN_PIN,
        '3467017027201': _B_DIAL_IN_PIN,
        '998011944': _B_DIAL_IN_PIN,
        '98623 62537': _B_PHONE,
        '718711623': _B_DIAL_IN_PIN,
        'glGoXC2#': _B_NO_WORD,
        '7676288739': _B_DIAL_IN_PIN,
        '366736': _B_CODE_IN_CHAT,
        '371290': _B_CODE_IN_CHAT,
    },
    'corpus_bf': {
        '066816': _B_CODE_IN_CHAT,
        '13320756940': _B_BARE_NUMBER,
        '610455': _B_CODE_IN_CHAT,
        '64637952808': _B_BARE_NUMBER,
        '183-98-\n> 2102': _B_WRAPPED,
        '232270306': _B_BARE_NUMBER,
        '457-44- 4752': _B_WRAPPED,
        '449201473': _B_BARE_NUMBER,
        'SoYLTzH6RMlPHGivMsT4poMn76xKxD0fxrae8ibXqjs': _CSRF,
        '471-11-\n> 6818': _B_WRAPPED,
        '438-36-66 62': _B_WRAPPED,
        '409-91-\n> 9751': _B_WRAPPED,
        'avEANTqjipIF9SGkKJWwcS4zTEs4GVzNAcRE-QdDcJP': _CSRF,
        '18509274359': _B_BARE_NUMBER,
        'RpMddptNeL-TEQfAvgaKjDxWgyjO7UjuFLy7aubXQM1': _CSRF,
        '850-33-4 071': _B_WRAPPED,
        '850334071': _B_BARE_NUMBER,
        'hvapb9731z07121992': _B_NO_WORD,
        '180 358 173': _B_BARE_NUMBER,
    },
    'corpus_bg': {
        '-fqWH4XTqUGxiPLn1oMOZKPDwgXn2Ip1xelAq97Di7j': _B_CLIENT_ID,
        'fd2f7218fed5336bb9bc0ae5': _B_CLIENT_ID,
        'btok_GgHFgb70yWbOBrHu2eGDEEFw': _B_STRIPE_OBJECT,
        '1377215e6eaeac2bf459fd03': _B_CLIENT_ID,
        '3dddd27f985bea3cd32dd61e': _B_CLIENT_ID,
        'btok_mbs7am2MU5hwuVOtRlULVjfi': _B_STRIPE_OBJECT,
        'THi9Yoxraz5hHo7qvjI7fPFIap9njMHg': _B_CLIENT_ID,
        '23512265199': _B_BARE_NUMBER,
        '92d91b0dca976940894e2775': _B_CLIENT_ID,
        'NPhpZ36IlyDo52SoBWDFPqJJmAp2vp-qYquc9iXPQmk': _B_CLIENT_ID,
        'e2d45eff16967f578ca99cc4': _B_CLIENT_ID,
        '17b3112374210c5549caa2d0': _B_CLIENT_ID,
        '1EtBiZISVyBrYUAumn7VSj8djKUGCwAV': _B_CLIENT_ID,
        '347 9239283': _B_PHONE,
        'Mr1gK40-BkpcmyenOjXX99u31XXcA9GAa_-buKfSdRl': _B_CLIENT_ID,
        '2033622483': _B_BARE_NUMBER,
        '7a54bad7f8feb4932487239c': _B_CLIENT_ID,
        '4c946418df487603467bdc47': _B_CLIENT_ID,
        '95df6eaf8f08c1f1e9eb38cb': _B_CLIENT_ID,
        '392 3817072': _B_PHONE,
    },
    'corpus_bh': {
        'Tottenham#7312': _B_NO_WORD,
        'Changeme123!': _B_STAND_IN,
        'Changeme#1': _B_STAND_IN,
        'opacabana5527': _B_NO_WORD,
        'JMGa+3bsBzLd': _B_NONCE,
        'Letmein!': _B_NO_WORD,
        '0765324768': _B_PHONE,
        '338 9529158': _B_PHONE,
        'S+gzzDn4e5Fyn8AB': _B_NONCE,
        '186-9055-3069': _B_PHONE,
        '602-566-304': _B_PHONE,
    },
}
_KNOWN_CHANGED_B: dict[str, dict[str, str]] = {
    'corpus_bc': {
        'BC-138': _B_SOPS,
        'BC-381': _B_ANSIBLE,
    },
    'corpus_bd': {
        'BD-067': _B_SAFETY_NUMBER,
        'BD-072': _B_COMPANY_IBAN,
        'BD-184': _B_COMPANY_IBAN,
    },
    'corpus_bf': {
        'BF-259': _B_LICENCE,
        'BF-303': _B_LICENCE,
        'BF-418': _B_LICENCE,
    },
    'corpus_bg': {
        'BG-163': _B_COMPANY_IBAN,
        'BG-264': _B_NETWORK_TOKEN,
        'BG-358': _B_COMPANY_IBAN,
        'BG-386': _B_NETWORK_TOKEN,
    },
    'corpus_bh': {
        'BH-366': _B_VERSION,
    },
}


# Corpora MC to MH (office printing, badges and building access; car dealers, vehicle finance
# and rental; social services and benefits casework; fine-tuning datasets and annotation
# platforms; customs brokers and freight forwarders; dating apps and trust and safety).
_M_NO_WORD = ("a password or a key with no word for it the detectors read beside it (an answer "
              "on the chat's next line, \"I think it's X\", \"tried X and Y\", a REPL's output, a "
              "creds file's second line, a Wi-Fi key after the network's name and a slash)")
_M_CODE_APART = ("a PIN or a code with its name words away, in words the detectors do not read "
                 "as one, or of a shape they do not take (three letters, 'c'est 0144B', 'Cust "
                 "chose 5432', 'I set it as 8842', 'MPIN ko pala 9047', a voicemail's spaced "
                 "digits, an answer on the chat's next line)")
_M_ANSWER_APART = ("a security question's answer with the question apart (a table's columns, an "
                   "agent's question a line before, 'answered ... with \"X\"', 'Recovery word she "
                   "set was X')")
_M_SPOKEN = ("a phone or an address written to dodge a filter (digits spelled in words, keycap "
             "emoji, the letter O for a zero, 'chez ... point fr')")
_M_KEY_ID = ("a vendor's key id or client id under a name that says id (keyid, access_key_id, "
             "SecNo, a partner header's UUID): read as an identifier")
_M_BAD_IPV6 = "an IPv6 address of seven groups and no '::' (the corpus generator's: no address)"
_M_CHECK_FAILS = ("a national id whose check digit fails (the corpus generator's, not an issued "
                  "number: a CNIC ending in 0, a CURP's, a NIS's)")
_M_ID_COLUMN = ("an id in a table's column whose values no check the detectors know confirms "
                "(Centrelink's CRN, Spain's NUSS, Korea's personal customs code), or a member id "
                "under 'Member ID' with the plan's name lines above")
_M_ID_NO_NAME = ("an id with no name the detectors read beside it (a CRN told in lower case, a BSN "
                 "glued into a file's name, a NINO in a pipe-delimited record, an SSN after "
                 "'type=SSN value=', a titre de séjour's N°, a licence after an SQL column list, "
                 "a passport after 'Passeport du père', an id after a question mark or an OCR's "
                 "ellipsis, a DNI in an MRZ's optional data, China's id under buyerIdNumber)")
_M_PHONE_FORMAT = ("a phone in a format or a place the detectors do not read (an HL7 component's "
                   "area code apart, an EDIFACT segment's '+31(0)...', Cargo-IMP's /TE/, a "
                   "query's cralTelno=, a bare national number in a CSV or as a chat's answer)")
_M_EDI_PASSWORD = "a password in an EDIFACT UNB header's recipient reference position"
_M_CARGO_EMAIL = "an address in capitals after a Cargo-IMP message's /EM/ element"
_M_TOKEN_KEY = ("a token under a key read as another thing's (clientToken, AWS's idempotency "
                "token; registration_token, a device's; a config editor's 'from \"\" to \"X\"'; a "
                "cookie's value on a Set-Cookie line without its header)")
_M_CARD_CODE_APART = ("a card's CVV or PIN after words the card code detector does not read ('the "
                      "3 numbers on the back are', 'code on back', 'PIN de su tarjeta de débito')")
_M_ENCODED = ("a tax id base64-encoded under an element that says so: the decoded digits alone "
              "name no kind")
_M_KEY_NAME = ("a key under a name the detectors do not read as a secret's (ASP.NET's SigningKey "
               "in camel case, AvaTax's license_key of sixteen capital hex digits read as a PGP "
               "key's id, a JS config's secret read as a path, a consumer key in an error "
               "message, crkyCn=, an SNMP community in an XML element, a token a sentence after "
               "its name)")
_M_LEADING_EQUALS = ("a password opening with '=' and a symbol after 'password=' (read as a "
                     "comparison)")
_M_CSV_CREDENTIAL = ("a credential in a CSV under a generic column ('Value', 'Credential'), or "
                     "digits alone under 'Password'")
_M_VOUCHERS = "guest Wi-Fi vouchers' codes in a CSV under 'Code' (digits in two groups)"
_KNOWN_MISSES_M: dict[str, dict[str, str]] = {
    'corpus_mc': {
        'Toner-Nordlicht-04': _M_NO_WORD,
        'pcm_4oz6-njrxSQN5ONc8_4DpdZDr3MMT9362mwmfaC2sNl8ZZh4': _M_TOKEN_KEY,
        '0Bg8d9fJUo0-CAmXlQ-mBxf00PMyEtqdfXSnbEIeu_8c3ik7': _M_TOKEN_KEY,
        'snmp0dymJO': _M_KEY_NAME,
        '25104': _M_CODE_APART,
        '376861678': _M_ID_NO_NAME,
        'zLJWImK??MG4': _M_CSV_CREDENTIAL,
        'DR&#m0k5^i%q': _M_CSV_CREDENTIAL,
        '3aiGXi85RBvPKaHMPTlLyuiC': _M_TOKEN_KEY,
        'sm0FGw@RA%ZHqs': _M_NO_WORD,
        'haq8jiwaouT2pHYZVc13y--wVrKI-734DkRI': _CSRF,
        '24847-96317': _M_VOUCHERS,
        '64428-26676': _M_VOUCHERS,
        '67044-68555': _M_VOUCHERS,
        '53766-41043': _M_VOUCHERS,
        '4132': _M_CODE_APART,
        '476386': _M_CODE_APART,
        '7560': _M_CODE_APART,
    },
    'corpus_md': {
        ('ctosSEWu2CLjN0DbXbibAi:APA91bUExsrYQvpDu1IqcRiuHHjIC8d586fDXkOXwO3qigi'
         'NLs64z1SBmLukE46-xnCRFAq4fAmeKCXOXndM5BD_TJai5SdZUI0MNr2esXQMI_frubSS-'
         'gkYuVM-fQGzLu0-xrq_mwf3'): _C_PUSH_TOKEN,
        'MjcyNTMzMjQz': _M_ENCODED,
        'Oak Cliff High': _M_ANSWER_APART,
        '2001:4860:f005:a121:447b:7763:6462': _M_BAD_IPV6,
        '951 608': _M_CODE_APART,
        'frzDm80yvIuA6aeEtqWWnmkyXx7VCWdp': _M_KEY_NAME,
        '264626': _M_CODE_APART,
        'FDYIME1KQE43DXJB': _KEY_ID_AS_USER,
        'C5Q0': _M_CODE_APART,
        '5432': _M_CODE_APART,
        '2607:fb90:9fd4:9c80:36:6886:93ec': _M_BAD_IPV6,
        '450ba50e-8481-4aee-babd-aebc6d829166': _M_KEY_ID,
        "grandma's lasagna": _M_ANSWER_APART,
        'AISlYwziXBTd0hZkR+KAv5/AyIJtbqjG+hrbI+DfkN2uaqOMWZr3cXWd6IUFKwtC': _M_KEY_NAME,
        'wtIipBqveu!': _M_NO_WORD,
        'W6OCT18TTW0': _M_ID_NO_NAME,
    },
    'corpus_me': {
        'N362792676': _M_ID_NO_NAME,
        '0735029894': _M_PHONE_FORMAT,
        '/oOByG44Qkn6VeeOnmlVY/0/P1HDKLFnD8MwksQ0NlrPtzzOLDkvlkc0mNnWG7eN': _M_KEY_NAME,
        '7319': _M_CARD_CODE_APART,
        ('YTZhM2E3YTFlNmNjZWRmZDQ4OWE2NDcy|1712681411|L11RWZ2iYegmvFYkfoeaulkrrl'
         'YlXMnj0GuEPH_TnTI'): _M_TOKEN_KEY,
        '2096': _M_CODE_APART,
        '8355820019': _M_ID_NO_NAME,
        '60218': _M_CSV_CREDENTIAL,
        'lamingtons': _M_ANSWER_APART,
        'Anfield': _M_ANSWER_APART,
        'SAJ': _M_CODE_APART,
        'Mrs. Hutchins': _M_ANSWER_APART,
        '918273': _M_CSV_CREDENTIAL,
        '40719': _M_CSV_CREDENTIAL,
        '724': _M_CARD_CODE_APART,
        'Bunnings2024!!': _M_NO_WORD,
        'koala_bear_88': _M_NO_WORD,
        '288878279K': _M_ID_NO_NAME,
        '53 10 51 BZ 7A': _M_CODE_APART,
        '8842': _M_CODE_APART,
        'Rusty': _M_ANSWER_APART,
        'Ciudad Juarez': _M_ANSWER_APART,
        'cutlass supreme': _M_ANSWER_APART,
        'MyKids#Amari&Zoe': _M_NO_WORD,
        '804417': _M_CODE_APART,
        'Tyrone2024?': _M_NO_WORD,
        '07721241874': _M_PHONE_FORMAT,
        '507437385': _FIXED_WIDTH_SSN,
        '711613184': _FIXED_WIDTH_SSN,
        '203330559': _M_ID_NO_NAME,
        '98598031193': _M_CHECK_FAILS,
        '551523646': _M_ID_NO_NAME,
        '6219': _M_CODE_APART,
        'jeremiah2911': _M_NO_WORD,
        '614^6908178': _M_PHONE_FORMAT,
        '307 943 464V': _M_ID_COLUMN,
        '427 335 605L': _M_ID_COLUMN,
        '566671482D': _M_ID_COLUMN,
        'HLV': _M_CODE_APART,
    },
    'corpus_mf': {
        '73916': _M_CODE_APART,
        '0716': _M_CARD_CODE_APART,
        '5df60f290d94d7efecc22a4e5d4697ea93ff69b5': _M_KEY_NAME,
        'sunset1985': _M_NO_WORD,
        '58219': _M_CODE_APART,
        '4821 7730 9165 2284': _M_CODE_APART,
        '14031996F': _M_NO_WORD,
        '9047': _M_CODE_APART,
        '27-04-13': _M_CODE_APART,
        'WLDO940709MVZHLL98': _M_CHECK_FAILS,
        'G7K-2QX': _M_CODE_APART,
        'a9eaec0d21382b0c945880e0eb766cea': _M_KEY_ID,
        'Tallahassee': _M_ANSWER_APART,
        'Wentworth Avenue': _M_ANSWER_APART,
        'LH-cebu-2024-fiber': _M_NO_WORD,
        'Carv3ll-Rpts!': _M_NO_WORD,
        'Sunflower@1987': _M_NO_WORD,
        'Hp-Admin#2291': _M_NO_WORD,
        'bellamy2012': _M_NO_WORD,
        '679 161 794': _M_ID_NO_NAME,
        'purple-otter': _M_NO_WORD,
        'Changeme!2024q': _STAND_IN_SET,
        '2a02:8108:e3de:3d8d:2929:67d1:3687:e037': _INTERFACE_IPV6,
        '0419': _M_CODE_APART,
        '449 102': _M_CODE_APART,
    },
    'corpus_mg': {
        '295ADE912CF389FD': _M_KEY_NAME,
        'Otter_935#': _M_NO_WORD,
        'P735274241634': _M_ID_COLUMN,
        'P362931060204': _M_ID_COLUMN,
        'P881783513563': _M_ID_COLUMN,
        'P480109807989': _M_ID_COLUMN,
        'P998144987142': _M_ID_COLUMN,
        '642538510': _M_ID_NO_NAME,
        '3758DE6B-1645-FA84-7F6C-34EBF62AA514': _M_KEY_ID,
        'IT3RF1R64AU4VB7J': _KEY_ID_AS_USER,
        '496472559571': _M_PHONE_FORMAT,
        'CHLOE.GARCIA@MEKONGEXPORTS.COM.VN': _M_CARGO_EMAIL,
        'UL1MDC3QXDSQ6JHC': _KEY_ID_AS_USER,
        '1c3b2b217200d3f76a23632d7952f3ee': _M_KEY_ID,
        '+31(0)204527415': _M_PHONE_FORMAT,
        'Kaai#412?': _M_NO_WORD,
        'nIGujByCxNUoMH2GqtbBeKH80bfiRWXN': _M_KEY_NAME,
        '52fd5162cd496cb198833becbd5a525d': _M_KEY_ID,
        '388504830': _FIXED_WIDTH_SSN,
        'k522e793r873t81': _M_KEY_NAME,
        'U51NKR0W': _M_EDI_PASSWORD,
    },
    'corpus_mh': {
        '06 . 71 . 48 . 22 . 90': _M_SPOKEN,
        'O1 seven 6 2 3 9 8 4 4 1 O': _M_SPOKEN,
        'camille.moreau chez orange point fr': _M_SPOKEN,
        'Roma$': _M_NO_WORD,
        '84galatasaray!': _M_NO_WORD,
        'R0m@1994': _M_NO_WORD,
        '19 943870303': _M_PHONE_FORMAT,
        '(seven one eight) 4 0 2 -- 6 6 1 9': _M_SPOKEN,
        '0eight0 - 3two1 - 77 09': _M_SPOKEN,
        '=+ZhryscYipWQRS+QMeU': _M_LEADING_EQUALS,
        'seis cuatro dos - 38 - 91 - 07': _M_SPOKEN,
        '3️⃣1️⃣0️⃣ 4️⃣7️⃣2️⃣ 9️⃣0️⃣1️⃣8️⃣': _M_SPOKEN,
        'liverpool.': _M_NO_WORD,
        '2593': _M_CARD_CODE_APART,
        'plus four four seven 9 one one 48two 3o7': _M_SPOKEN,
        'Maggie!!': _M_NO_WORD,
        '8164': _M_CODE_APART,
        'Cookie58': _M_NO_WORD,
        'onze nove 8 7 4 2 - 1 9 0 6': _M_SPOKEN,
        '57724': _M_CODE_APART,
    },
}


# Corpora PC to PH (construction and trades; business telephony; schools, youth clubs and
# churches; ML experiment tracking and notebooks; coding bootcamps; LLM agent frameworks).
_P_PASSPORT_COLUMN = ("passports in a semicolon table under Polish 'Nr paszportu' (an inflected "
                      "word)")
_P_PASSPORT_LIST = "passport numbers in a numbered list after names, the word a line above"
_P_COMPANY_TIN = ("a company's tax number (an EIN, a CNPJ, a Federal Tax ID): left, as companies' "
                  "are")
_P_FUEL_CARD = "a fleet fuel card's number that no card network's range and check take"
_P_TELEPHONY = ("a telephony tool's secret in a shape the detectors do not read (sipsak's -a, a "
                "provisioning file's user_pass1&:, an AudioCodes account line, AMI's "
                "mansession_id, a TURN server's external-ip=)")
_P_LINK_TOKEN = ("a token in a link's path or query the detectors do not know (a provisioning "
                 "URL's, a calendar feed's, an invitation's id, a background check's order)")
_P_SCANNER_RAW = ("a secret scanner's Raw and RawV2 fields (the key and its secret glued without "
                  "a separator)")
_P_OAUTH_CODE = "an OAuth authorization code pasted into a notebook's input after its prompt"
_P_YUBIKEY_OTP = "a YubiKey's one-time password (44 modhex letters) pasted alone"
_P_REPR_PAIR = "a refresh token as a Python list's pair ['refreshToken', '...']"
_P_HOST_IP = "a public address written into a provider's host name (c-189-253-42-146)"
_P_PERCENT_PASSWORD = "a password glued to mysql's -p with a percent sign in it (read as an escape)"
_P_PUBLIC_KEY = "Langfuse's public key (pk-lf-...): public by design, its secret key beside it is"
_P_TYPED = "a password typed by a computer-use agent's type action and xdotool, no name beside it"
_P_SALT = "Langfuse's SALT: a hashing salt under its bare name, read as no secret"
_S_TOLD_A_SENTENCE_LATER = ("a password told a sentence after the word for it (Dutch: 'het "
                            "wachtwoord ... resetten? Het oude was X')")
_S_RECORD_TOKEN = ("LabArchives' user_eid (a user's id for its API, read as an identifier) under "
                   "its config's key")
_S_PERSON_TIN = ("a person's TIN as nine bare digits in an INSERT's tin column: an EIN has the "
                 "same shape, and companies' are left")
_S_VOUCHERS = ("crew Wi-Fi vouchers' codes in a numbered list, the word a heading above (vouchers "
               "by name are read as discount codes, left)")
_S_SHORT_IPV6 = "an IPv6 address of five groups and no '::' (the corpus generator's: no address)"
_S_SSN_LAST_FOUR = ("an SSN's last four digits: older corpora count them clean (ssn_last4 in a "
                    "tool call and a tax refund), four digits name no one alone")
_S_SENTRY_DSN = ("a Sentry DSN's key in a page's config: other corpora label DSN keys (whoever "
                 "holds one can send events)")
_KNOWN_MISSES_S: dict[str, dict[str, str]] = {
    'corpus_sc': {
        '76QltbsFi9=FD^cnEVj': _S_TOLD_A_SENTENCE_LATER,
        '*IOjIlEahC%fzeA8DmL': _S_TOLD_A_SENTENCE_LATER,
        'Lambda727*': _S_TOLD_A_SENTENCE_LATER,
        **dict.fromkeys(('XQKERQ46D16L002X', 'AQEXGU91S41G121R', 'SIOPIY40D10G981Y'),
                        _M_CHECK_FAILS),
        **dict.fromkeys(('0bbbcbc3cead13ae9233c10a13dbb5c1', '6f52f573a17c84ccf6361cb7a156d489'),
                        _S_RECORD_TOKEN),
        '651045926': _S_PERSON_TIN,
    },
    'corpus_sd': {
        **dict.fromkeys(('P2CB-ENKF', '4ST4-EA92', 'SBAK-9RN9', 'M6GL-4E86', '57T0-2Y86',
                         'U5J1-6ECM', 'SXI5-7YK0', 'AX1U-PK9C', 'LRIJ-HY9D'), _S_VOUCHERS),
        **dict.fromkeys(('INDPPJ52A06H061K', 'DYUNTS92R29G762K', 'XSSLNK66B93H109O',
                         '113841385670', '245670236918', '626758996890', '3958707463',
                         '7248826397', '8295710399'), _M_CHECK_FAILS),
        **dict.fromkeys(('2434 3331 1238', '9893 1900 9002', '4190 6683 3074', '7020 1995 5524'),
                        _BAD_AADHAAR),
        **dict.fromkeys(('2a03:b0c0:d884:251e:7785', '2605:59c8:c9d8:72ee:fe5e',
                         '2a02:587:2da4:3866:61c1'), _S_SHORT_IPV6),
    },
    'corpus_se': dict.fromkeys(('5023', '4423', '1490'), _S_SSN_LAST_FOUR),
}
# Corpora OC to OH (web hosting and registrars; home care agencies; self-storage, parking and
# tolls; dental and allied health practices; game servers; academic publishing).
_O_SYMBOL_PASSWORD = ("a password whose brackets, braces or '&' end the value where no quote "
                      "bounds it (a query's passwd=}-VC..., an XML <value>, a hosting export's "
                      "'mysql=', a URL's password, one whose '[j-N' reads as a character range)")
_O_HOSTING = ("a hosting tool's credential in a shape the detectors do not know (WHMCS's API "
              "identifier, a cPanel session's name:token pair, a session id in brackets, a "
              "Vault table's row, an activation code)")
_O_GAME = ("a game platform's secret in a shape the detectors do not know (a Steam Guard code, "
           "a Rust+ player token, a GCM check-in's ids, a gift card, a paysafecard PIN, an AMP "
           "instance's key, Velocity's forwarding secret, a Pushover user key, a "
           "RemoteSecurityKey element, backup 'tokens' of letters only)")
_O_HEALTH_ID = ("a health insurer's or a care system's number with no name the detectors read "
                "beside it (a carteira, a CDAnet certificate, 'ID on card', a member no. of a "
                "South African scheme, Japan's care insurance number a line below its heading, "
                "an NHS number words away, a file name's digits, an EDIFACT segment's)")
_O_SHORT_CODE = "a padlock's or a lift's code of three digits: too short to tell from a number"
_O_LOG_CODE = ("a gate's keypad entries in an access system's log ('ENTRY GRANTED ... code="
               "20218'): 'code=' alone names no secret")
_O_LIBRARY = ("a library system's credential in its protocol's or file's own place (SIP2's CO "
              "and AD fields, EZproxy's user.txt lines and its log's session field, a "
              "Shibboleth session id)")
_O_HL7_SSN = "an SSN bare in an HL7 PID segment's nineteenth field, read by no HL7 field rule"
_O_TABLE_TOKEN = "a reset token in a psql table under a column the detectors do not read"
_O_HASH_SHAPED_KEY = ("an API key shaped as a bcrypt hash (CurseForge's): read as a one-way "
                      "hash, left")
_O_SEALED_SHORT = ("a SealedSecret's encrypted value shorter than the sealed shape the "
                   "detectors know: read as a password")
_O_LABEL = "a label's text after a name and a slash ('Dr Rossi / #11^FS' in ZPL), read as a login"
_O_NAMED_NUMBER = ("an API error's code and a research field's 'FoR code' after 'code:', read as "
                   "a code told")
_O_LUHN_ID = "an Xbox user id (16 digits) that passes Luhn in a card network's range"
_O_COMMENT = "a config's comment under a key named for a token (_comment_token), read as its value"
_O_FIXTURE = ("a test fixture's or a default password ('fixture-only', dspace/dspace): a "
              "password's value is redacted whatever it says")
_O_ISSN = "a journal's ISSN after its name 'Cell', read as a phone"
_O_CONTEXT_HEADER = "a client context header's base64 JSON, read as a credential header's value"
_O_RESUMPTION = "an OAI-PMH resumption token (a listing's cursor), read as a token"
_KNOWN_MISSES_O: dict[str, dict[str, str]] = {
    'corpus_oc': {
        '2R7[Bi]-K<PhN8S9': _O_SYMBOL_PASSWORD,
        'eb32d2e8b677c8d9781403cd4aba4e8d': _O_HOSTING,
        '>fn+Jm[4<(<u5EP': _O_SYMBOL_PASSWORD,
        'P7[j-Nl4AB4o%c~mB@j': _O_SYMBOL_PASSWORD,
        '87 559 822 838': _P_COMPANY_TIN,
        'thistle-willow-cobalt-81': _M_NO_WORD,
        'QuWMTU9AKgjd5wY457tshZSxNL0zdsbB': _O_HOSTING,
        '245': _M_CARD_CODE_APART,
        '12.624.653/0001-20': _P_COMPANY_TIN,
        '=#b^fa3]j@YXNGk73e': _O_SYMBOL_PASSWORD,
        ('oakridge:3Oz3tZuDWMfbDszf:CREATE_USER_SESSION,7cbb6f3247f224'
         '643db403b5b1168b3e'): _O_HOSTING,
        'Ba[m}by?#>&JWXnktt}4': _O_SYMBOL_PASSWORD,
        'D5N7n4AIWKhFz3JONBLRXeMjpJC8caz9': _O_HOSTING,
        '91-9907104': _P_COMPANY_TIN,
        '<4y>!K#4[SAuW@E{89': _O_SYMBOL_PASSWORD,
        '}-VC=b1VXv': _O_SYMBOL_PASSWORD,
        'kN?>%vVJa81%({1': _O_SYMBOL_PASSWORD,
    },
    'corpus_od': {
        'QG6AB9KEPT': _M_ID_NO_NAME,
        '6553': _M_CODE_APART,
        '5327': _M_CODE_APART,
        '576747': _M_CODE_APART,
        '0235637171': _O_HEALTH_ID,
        '97125': _M_CODE_APART,
        '8535519335': _O_HEALTH_ID,
        '439': _O_SHORT_CODE,
        '3445': _M_CODE_APART,
        '680220': _M_CODE_APART,
        '734057': _M_CODE_APART,
        '026140': _M_CODE_APART,
        'jollof rice': _M_ANSWER_APART,
        'Adaeze': _M_ANSWER_APART,
        '2296923885470': _M_ID_NO_NAME,
        'olHIMUwvRfnY1S85OPJx7DQoM0HeJ36zDngbBN0jRUcpgS3yeUSsg0NMePg9LxX8': _CSRF,
        '9325': _M_CODE_APART,
        '5547': _M_CODE_APART,
        '756': _O_SHORT_CODE,
        'Buttons': _M_ANSWER_APART,
        'Alder Creek Rd': _M_ANSWER_APART,
        'c3VucmlzZV9hcGk6M2wqMzR5NXJidTVPZzhzTkNwd1k=': _M_KEY_NAME,
        '93RVFzAw': _M_CODE_APART,
        '9615': _M_CODE_APART,
        '3924': _M_CODE_APART,
        '0980790414': _O_HEALTH_ID,
        '4024': _M_CODE_APART,
        'V562464376': _O_HEALTH_ID,
        '6301': _M_CODE_APART,
        '1312': _M_CODE_APART,
        'ZA24833K': _O_HEALTH_ID,
        '7709': _M_CODE_APART,
        'qnosck38ad': _O_HOSTING,
        '(0231) 418 38979': _M_PHONE_FORMAT,
        '928': _O_SHORT_CODE,
        '9509': _M_CODE_APART,
        '9732': _M_CODE_APART,
        'UaNrsvhA3WoGVDdYWReVMtxTTnRRGEXcVdLFHH3a': _P_LINK_TOKEN,
    },
    'corpus_oe': {
        'be4cddb9e7a8aca3d57f8e0380201e361a50179ec043ec25dc196e9d05976570': _REQUEST_SIGNATURE,
        'PBAXiEJktDCl7kTlXxNdT8sNItzzjvPUcPPOqNNz4Hs': _P_LINK_TOKEN,
        '7152': _M_CODE_APART,
        '20218': _O_LOG_CODE,
        '59840': _O_LOG_CODE,
        '9674': _M_CODE_APART,
        '123637': _M_CODE_APART,
        'VHO4-Y9Q9-C6IG': _M_CODE_APART,
        'RP4EURvxFs5S8D1DL45TB1aTIdvWF5w4LMcSG2dZ': _C_PUSH_TOKEN,
        'mango orbit harbor velvet': _M_NO_WORD,
        'f38138d8f633cb8f91d79deb3be8cd89': _M_KEY_NAME,
        '82-4419021': _P_COMPANY_TIN,
        '4708': _M_CODE_APART,
        '6692e998bba525f5df48d9472675e38b': _M_KEY_NAME,
        '122609': _M_CODE_APART,
        '4726': _M_NO_WORD,
        'Juniper96$': _M_NO_WORD,
        '506766': _M_CODE_APART,
        'c3fd93e23bf157aeea17deca0313d00f': _M_KEY_NAME,
        'Corolla': _M_ANSWER_APART,
        'Mrs Byrne': _M_ANSWER_APART,
        '684137': _M_CODE_APART,
        '0285': _M_CODE_APART,
        'FIuYz-J6WEuUP1XgR55Be7IX4UP8dLFH-Fvt': _P_LINK_TOKEN,
    },
    'corpus_of': {
        '4210297720': _O_HEALTH_ID,
        '336639': _M_CODE_APART,
        '5640': _M_CODE_APART,
        '9320': _M_CARD_CODE_APART,
        '188 422 019': _O_HEALTH_ID,
        '5825': _M_CODE_APART,
        'QX101577': _O_HEALTH_ID,
        '53hpGYg15JSQk-_O': _M_NO_WORD,
        '8813': _M_CODE_APART,
        '250419': _M_CODE_APART,
        '89920265534145629': _O_HEALTH_ID,
        'XQJ199654948': _O_HEALTH_ID,
        'U996149425': _O_HEALTH_ID,
        '592546551': _O_HL7_SSN,
        '72751146': _O_HEALTH_ID,
        'incisor!7761M': _M_NO_WORD,
        'cae86e7d55eabf393b50552674a5bdd046d019a3216e672e548ca2c6cbd485c1': _O_TABLE_TOKEN,
        '240063': _M_CODE_APART,
    },
    'corpus_og': {
        'conveyor': _M_NO_WORD,
        'ACLY1mVnh0LIPgYqJiHMGA.9slrydU13rAFscQEsRiWsjcWAEzW-PCjY': _REQUEST_SIGNATURE,
        'gpg:WinterWarp88': _O_SYMBOL_PASSWORD,
        'chidi-rcon-2210': _M_NO_WORD,
        '49d6a9f40a97c0e3493bfc2991c8e651': _REQUEST_SIGNATURE,
        'F7K2Q': _O_GAME,
        '8939 7070 7207 5177': _O_GAME,
        'k1h0sa3vgzkep3rz2jo23tc3wyoly5': _O_GAME,
        'YmFja3VwdXNlcjpRejchYmtwLU5vZGUwMg==': _M_KEY_NAME,
        '1287186482656359399': _O_GAME,
        '0524337685225982553': _O_GAME,
        'dpr45v1tPhTfZhDF4YS7': _P_SALT,
        'mTrmEUnvcb': _O_GAME,
        'JkAZLHopSI': _O_GAME,
        'VwnpI4zrea': _O_GAME,
        'rLrczOSwmI': _O_GAME,
        '-7241445351': _O_GAME,
        'tV8qLr2mZpK4xN7w': _O_GAME,
        '$2a$10$xPoCCkfpkCQ7trI7DbBX83joHL.lqkwg6GEtV/DXXI9W3GVeq/4G4': _O_HASH_SHAPED_KEY,
        'GC-R7V6-YOU2-ZLN1': _O_GAME,
        '6U63vfTFyHShPaMXscNqOw==': _O_GAME,
        '6e7cca3e-438f-4737-ba1c-678d55b1564f': _O_GAME,
        'AmpAdm1n_Kr4ken': _O_GAME,
        'BtF2idjBSZNggDtybCgwnxEr4KAkKTdivKx4aiXH': _CSRF,
    },
    'corpus_oh': {
        'BACA680909MDFGHV33': _M_CHECK_FAILS,
        'Citrine&34': _O_SYMBOL_PASSWORD,
        'iH9r4_yHx3hx': _O_LIBRARY,
        'violet2005.': _O_LIBRARY,
        'HeB-Uuvd%-pdr%@': _M_NO_WORD,
        'ZR9gEfoTnjNhd10Yo2R87fex': _P_SALT,
        'zQ3zYCzoKn8GAw18VJSGj0wU8fXtWxQXNI7Z9kWr': _P_SALT,
        'eHCKpcFfvQx8EeM': _O_LIBRARY,
        'Zk1iJFAZIFFaYhb': _O_LIBRARY,
        'y4_3bmdOGIstriIp9ljM7r04zHBgsDgwOz6AXL7kbgG': _P_LINK_TOKEN,
        '2217#': _M_CODE_APART,
        'Wgrpdc064&AH': _M_NO_WORD,
        'Ectfvo440#OW': _O_LIBRARY,
        '_13c2597c9495e4617acf1ce5abeca471': _O_LIBRARY,
    },
}


# Corpora AF to AH and SF to SH (estates and funeral homes; farms and co-ops; translation
# agencies; hotels and short-term rentals; transit and ride-hailing; bug bounty platforms).
# Their values left are listed by kind, each kind's reason the round's most common one.
_A_CODE_OR_SECRET = ("a code, a PIN or a key told with its name words away or none (a chat's "
                     "answer, 'enter 5573', a gate's code after the place it opens, a key in a "
                     "list or a deep link's JSON), or in a system's own field no detector reads")
_A_ID = ("an id or a passport with no name the detectors read beside it (in a list under a word "
         "a line above, a fixed-width record, an MRZ's optional data, a nested JSON), or whose "
         "check digit fails")
_A_TOKEN = ("a token or a session cookie in a link's path or a field the detectors do not know "
            "(a sign-in or a share link, a keychain dump's column, a researcher's session)")
_A_KEY = ("a vendor's key in a shape the detectors do not know, under a name that does not say "
          "secret (a UUID under 'key=', a Postman environment's value)")
_A_SSN = ("an SSN as nine bare digits with no name beside it (a fixed-width file, a CSV's TIN "
          "column, an answer to 'do you need my social?')")
_A_BAD_IPV6 = "an IPv6 address of seven groups and no '::' (the corpus generator's: no address)"
_A_ENCODED = "a document number base64-encoded under a field that names no secret (doc_b64)"
_A_SOPS = "SOPS's encrypted values (ENC[AES256_GCM,data:...]): ciphertext, read as a secret"
_A_FIELD_VALUE = ("a field's value read as a secret by its key's name (a strength meter's "
                  "'strong', a record's user_id after a code's error, a UI label, a store's "
                  "name, a Kafka key, a referral code, a premises id, an endpoint's port)")
_A_EXAMPLE_PHONE = "an OpenAPI example's 555-01xx phone: a phone's shape is redacted wherever"
_A_PLACEHOLDER_KEY = ("a key's placeholder in its vendor's shape (ghp_XXXX..., a Slack webhook "
                      "with XXX/YYY): redacted as the shape says")
_KNOWN_MISSES_A: dict[str, dict[str, str]] = {
    'corpus_af': {
        '29448732': _A_ID,
        '10106724801974743794': _A_CODE_OR_SECRET,
        'A44524904': _A_ID,
        '872581': _A_CODE_OR_SECRET,
        '1761': _A_CODE_OR_SECRET,
        '9FTW-3A6L-BR3V-CQB9-LRAC-Q7L3-Z84G-JLRB': _A_CODE_OR_SECRET,
        '3937521BB': _A_ID,
        '0 3 7': _M_CARD_CODE_APART,
        'S B 4 2 2 8 1 6 A': _A_ID,
        'cJVGZGOVn1G2tVo26XP_ACPNZ8xbnV6R': _A_TOKEN,
        '0725': _A_CODE_OR_SECRET,
        'Vn5tp0OeLHWvKX0_iKQt8LkDKdATQLcmzl789i5lTSQVkOtg': _A_TOKEN,
        'G-655971': _A_CODE_OR_SECRET,
        '73248': _A_CODE_OR_SECRET,
        '6726': _A_CODE_OR_SECRET,
        'bramble_magpies1': _M_NO_WORD,
        '0496725369': _M_PHONE_FORMAT,
        '223250': _A_CODE_OR_SECRET,
        '151378': _A_CODE_OR_SECRET,
        '518121': _A_CODE_OR_SECRET,
        '4385': _A_CODE_OR_SECRET,
        '24-35-19': _A_CODE_OR_SECRET,
        '83-2363415': _A_ID,
        'RDGRAWYDCQGF': _A_CODE_OR_SECRET,
        ('cactus falcon jungle anchor yellow shadow glimpse sandal noo'
         'dle marble quiver ribbon parade ladder fossil dolphin pistol'
         ' harbor bamboo ember orbit kitten island lantern'): _A_CODE_OR_SECRET,
        '785756': _A_CODE_OR_SECRET,
        '70263588496': _A_ID,
        '81-0325928': _A_ID,
        'BundabergMam82 rosebud': _M_NO_WORD,
        '9973': _A_CODE_OR_SECRET,
        'Bundaberg1985': _M_NO_WORD,
        '5401 140736': _A_ID,
        'C42407961': _A_ID,
        'ShamrockDad31': _M_NO_WORD,
        '842732': _M_NO_WORD,
        'shamrock&bluey3': _M_NO_WORD,
        'sandringham4611': _A_CODE_OR_SECRET,
        'Sonnenblume24': _A_CODE_OR_SECRET,
        '595754461': _A_SSN,
        'wren': _A_CODE_OR_SECRET,
        'A8YGmNRqQk2IX930cRwft56CObqU0seV': _A_TOKEN,
        'penrith sunflower 11': _A_CODE_OR_SECRET,
        'peachtree': _A_CODE_OR_SECRET,
        'QCW3 JXYC D1WS BZ5U GW4H 9FCL 70AW C5QX': _A_CODE_OR_SECRET,
    },
    'corpus_ag': {
        'U172288605': _A_ID,
        '5284': _A_CODE_OR_SECRET,
        'x9O3ZMi6ONycMUk9In1A2U': _A_TOKEN,
        '460179': _A_CODE_OR_SECRET,
        '21/88173547/17': _A_ID,
        '21/11851440/32': _A_ID,
        '21/47615667/68': _A_ID,
        'DWGIBPUO': _A_TOKEN,
        '4zH4G0gDAPF7SGHkOujrOo7zsxSeRlaUkYkCJtGdQXKYTQsbKhf2oEGF7gU4WKq': _A_CODE_OR_SECRET,
        'hNvOVYSFiYT9FHk0criluKrvqEhUf5KvTRcZj2Rx7qP': _A_TOKEN,
        '163462103': _A_SSN,
        '412273105': _A_ID,
        '506830096': _A_SSN,
        'ddUK7cNiPzm+KmnHiW0tXpolsjfXd0cQCR+tjjCZHNQ=': _REQUEST_SIGNATURE,
        'YWd0cmF4X2FwaTp2c05ZQkJCWURQWloj': _A_KEY,
        'barley.hereford2000': _A_CODE_OR_SECRET,
        '5547b8335a1e977a70e8d1e87611883da4e64125c4f3aa4c792fba6d79bd4bc8': _REQUEST_SIGNATURE,
        '0P9YYPWI': _A_CODE_OR_SECRET,
        'Mz6kRNnwiPVvMjUtHqXoJCcsSd3gcys1ampfD9hNRYn': _A_TOKEN,
        'Farmall 560': _A_CODE_OR_SECRET,
        '7153a1549cd978baffcd5a8abfd305369e0ea4c30664a2ef': _A_CODE_OR_SECRET,
        'IO97M96V': _M_NO_WORD,
        '1hqgp8urgwpj2ezkvjzvburyt0': _A_TOKEN,
        'O7K': _A_CODE_OR_SECRET,
        '9139': _A_CODE_OR_SECRET,
        'CnTUKsv8aiP4f9uSu5z4YHRt7ABivMdQtk-FNIEp': _A_CODE_OR_SECRET,
        '42-3211898': _A_ID,
        'KrFiMPvU': _M_NO_WORD,
        'I10138447': _A_ID,
        '15a344eaeaad3ca3c54e60489f4acbe79209ce00': _A_KEY,
        'tractor_soybean2003': _M_NO_WORD,
        '489471': _A_CODE_OR_SECRET,
        'f2bEgAzcVmBk1uasRObkqb8j1TQXQQ_TU2-1_3pB': _A_CODE_OR_SECRET,
        'GLZ164652': _A_ID,
        'orchard-holstein1978': _M_NO_WORD,
        'WWN 9JJ GUP': _A_CODE_OR_SECRET,
        'WWR TLW JYA': _A_CODE_OR_SECRET,
        '0fa6a4c1d3': _A_CODE_OR_SECRET,
    },
    'corpus_ah': {
        '973426': _M_NO_WORD,
        '1vj3ep6prnn+C': _M_NO_WORD,
        'Tulpen-mariposa19': _A_CODE_OR_SECRET,
        'A1B845EF-0001-4D9F-BC5E-FF2B3B0A2B99': _A_CODE_OR_SECRET,
        '46 53 415156': _A_ID,
        'Tulpen_QGil#': _M_NO_WORD,
        'Lisboa1999*': _M_NO_WORD,
        '75527': _A_CODE_OR_SECRET,
        '840-346-300': _M_PHONE_FORMAT,
        'fulABKpQCe2MVm8PTaaLJMr9uaZQcCVxYt7Pgm8Keo1apBeZ': _A_TOKEN,
        '97 37 249534': _A_ID,
        'PexwO78E0GYzBu7D8iuNFk6SslLwDzbBSdNjGQNNjhC': _A_TOKEN,
        '9518938815': _A_ID,
        'ecff2743b1029dfa9f8f23b27aa4905b': _A_KEY,
        'yHWzPJOpKTIXaRrXwxcNI6Im4-pMtZ30CPFPMQq1SUg': _A_TOKEN,
        'cactus-sorbet-quartz-quartz': _M_NO_WORD,
        'd1ace328-8ccb-4148-9d83-82495354c2d0': _A_KEY,
        'fd14b328-f398-4368-9e2c-40c8cadd465b': _A_TOKEN,
        'YwXX9bSpPM8V5Ea3WcKLUV': _A_TOKEN,
        'jys|6lT=xLU93klBln5W|0xfKSnSWuHEFfNEh0-WBzricGYXRIki24v5RrizLIlZ': _A_KEY,
        'gJ45xy{Wlv-{GYHmNubQ|IX6t3}Ms1Wr}Xg{FB_nVpAJR[[V_WYr19}YZTHy2O8O': _A_CODE_OR_SECRET,
    },
    'corpus_sf': {
        '3f4946437d82d2eaae0d9c0c65567310679b3b22838cdb5cdc26b2b6645e7029': _REQUEST_SIGNATURE,
        'yh0SXPqNiesp3Jwl7gR860Vz': _A_TOKEN,
        'lki1s1v9e1s5p6oaxetrzqfowkbuo3ds': _A_TOKEN,
        '52384106': _M_CARD_CODE_APART,
        '48981268': _M_CARD_CODE_APART,
        'Gaivota@2019': _M_NO_WORD,
        'V-zLrK0F85B-76os90': _M_NO_WORD,
        'zeeland80Harbour!': _M_NO_WORD,
        'DAQ7EI0F1': _A_ID,
        '87MK50343': _A_ID,
        'R1dSTEhZSEhH': _A_ENCODED,
        'gaivota67Sunset?': _M_NO_WORD,
        '466500': _A_CODE_OR_SECRET,
        'A9CE7323E3AAB95F5BDE47A32703F634-1F35D30FDC757FC97B719D5853950F7': _A_KEY,
        '629 998 086': _M_PHONE_FORMAT,
        '568821': _A_CODE_OR_SECRET,
        '4nho1bd6i0': _A_CODE_OR_SECRET,
        'yubhXbPHWDVfSNOkLlbbqkU40qZL85Wg': _A_KEY,
        'e0c5b562c18655ec2f8465709d4b610d': _A_CODE_OR_SECRET,
        '5573': _A_CODE_OR_SECRET,
        'S6688352': _A_ID,
        'copper-tile-moss4': _A_CODE_OR_SECRET,
        'lantern-kettle-amber3': _A_CODE_OR_SECRET,
        '0525': _A_CODE_OR_SECRET,
        '1031': _A_CODE_OR_SECRET,
        '0563': _A_CODE_OR_SECRET,
        ('2c0ec83d8593a186bcf0fbdd31a6210a6fcbc413c969f4762acfd7dc4420'
         '189fe90f5501a0520c30b4d1b13f5faa61772568943bb1b941de836b5d25'
         '783b6400'): _REQUEST_SIGNATURE,
        'FWT-6575': _A_CODE_OR_SECRET,
        'Cedro.Olivo_38': _M_NO_WORD,
        'ys68B3EsbMUZPPgAIQ5Slgtd0A8A1Pyu': _A_TOKEN,
        '8317': _A_CODE_OR_SECRET,
        '7473': _A_CODE_OR_SECRET,
        '8872': _A_CODE_OR_SECRET,
        '6892': _A_CODE_OR_SECRET,
        '4858': _A_CODE_OR_SECRET,
        '5637': _A_CODE_OR_SECRET,
        '6552': _A_CODE_OR_SECRET,
        '1970': _A_CODE_OR_SECRET,
        '4207': _A_CODE_OR_SECRET,
        'EI5770719': _A_ID,
        'PB0186126': _A_ID,
        '4717': _A_CODE_OR_SECRET,
        '9672': _A_CODE_OR_SECRET,
        '794799': _A_CODE_OR_SECRET,
    },
    'corpus_sg': {
        '36207933': _A_ID,
        '0F2BF6F126A51858913CBB4E7841AEBE': _A_CODE_OR_SECRET,
        '1246': _A_CODE_OR_SECRET,
        '378910': _A_CODE_OR_SECRET,
        'Porto@2007': _M_NO_WORD,
        '3E4E56DE6870': _A_CODE_OR_SECRET,
        '2B09E7120FC5': _A_CODE_OR_SECRET,
        '633E1B675125': _A_CODE_OR_SECRET,
        '*#5090#': _A_CODE_OR_SECRET,
        '35-64-96': _A_CODE_OR_SECRET,
        '12024755': _A_CODE_OR_SECRET,
        '741378233': _A_ID,
        'rP7Mprfk': _A_CODE_OR_SECRET,
        '6154': _A_CODE_OR_SECRET,
        'WZI334170': _A_ID,
        '77560': _A_CODE_OR_SECRET,
        '8468#': _A_CODE_OR_SECRET,
        '299': _A_CODE_OR_SECRET,
        'C5178952': _A_ID,
        '9573': _A_CODE_OR_SECRET,
        '59416803652': _A_ID,
        'harbor-violet-cactus-otter': _M_NO_WORD,
        'mk3eHhQqXPLZ1k3egbHD5OJC': _M_NO_WORD,
        'harbor-cactus-willow-stapler': _M_NO_WORD,
        '69170689E596': _A_ID,
        '3RCJJX': _A_CODE_OR_SECRET,
        '483336363011': _A_ID,
        'Maplerocket76%': _M_NO_WORD,
        '358329': _A_CODE_OR_SECRET,
        'willow-tundra-violet-correct': _M_NO_WORD,
        '858159882133': _A_ID,
        '085728766836': _M_PHONE_FORMAT,
        '447267232': _A_ID,
        'saddle-harbor-otter-correct': _M_NO_WORD,
        '141545701': _A_SSN,
        'pc09Pxfj#KRKph': _M_NO_WORD,
        'bpQOlHd0WRMOTK0YX6vGQm': _A_TOKEN,
        '319388140244': _A_ID,
        '1448': _A_CODE_OR_SECRET,
        'F650063A1DAFFC0D83DC6D8754FD4A0E': _A_CODE_OR_SECRET,
        '76CD5097B54C8BC38BE7F034CE72E513': _A_CODE_OR_SECRET,
        '42081607498A69F87771D08D3EF32544': _A_CODE_OR_SECRET,
        '929 536 154': _M_PHONE_FORMAT,
        '6586': _A_CODE_OR_SECRET,
        '9f4c3f72-1e5d-42ee-9fc7-85bb7cc22bf6': _A_KEY,
        '42s8C7u%ws-3sa6J&TuJ': _M_NO_WORD,
        'pixel5815Quartz': _M_NO_WORD,
        'Amberbolt16#': _M_NO_WORD,
        'gravel-saddle-cactus-harbor': _M_NO_WORD,
        '9-2-6-6': _A_CODE_OR_SECRET,
        'woGmnFuN': _A_CODE_OR_SECRET,
        '738381834': _A_ID,
        'cobalt1691Velo': _M_NO_WORD,
    },
    'corpus_sh': {
        'lumora-38603w-2019': _A_CODE_OR_SECRET,
        "St. Brigid's Primary": _A_CODE_OR_SECRET,
        '46-8488201': _A_ID,
        '8C6bTLsIG/8O1DZzvZXfd/OnCxYy0NampvGL/H1INJpc': _A_KEY,
        '2a02:c7c:fae5:f41b:8022:5db3:6309': _A_BAD_IPV6,
        'ISR3UP_LfPMCS432': _M_NO_WORD,
        'kYQWKmEjbX!': _M_NO_WORD,
        '7384B46E': _M_NO_WORD,
        'NtVmuanP-XlMBObs5TBAnQ.mKitiBMtY9mm-XQX9S5R7JnwzJCxigm0jteksgO8TjP': _A_TOKEN,
        'JLZPZ9451G': _A_ID,
        'Tmp-9JdD-3383-7vC2': _M_NO_WORD,
        'nS8eIOuPKhPMDGnWIQth6IpLGgWNuaPHwObnTZU2': _A_TOKEN,
        'Ael4IjOr8h!': _M_NO_WORD,
        'harbor orbit sparrow canyon lantern': _M_NO_WORD,
        'WHUpIgU0h09AR5': _M_NO_WORD,
        '914612': _A_CODE_OR_SECRET,
        'Y29pWZ7bOtlexgDqvEmFq5_fy_gI7HOkgjXSbWYQ': _A_CODE_OR_SECRET,
        'Halcyon1071!XC': _M_NO_WORD,
        '57959-54001': _A_CODE_OR_SECRET,
        '87478-84025': _A_CODE_OR_SECRET,
        '24402-73406': _A_CODE_OR_SECRET,
        '961007-9544': _A_ID,
        ('s%3A8xYq-4kkN6yUmjBwNZoOc2ohSYYNrgff.8Pxq_sOgCJSSYNxnNkYU9gK'
         'FlDP2Eu_fdS3v3eklhdX'): _A_TOKEN,
        'ddb7ecdbf02f9b8153050dbdcdfdb4f5': _A_KEY,
        '7js6x55lf02wgbk2toz7mxmnxr3sxqzcjhy3cfmh': _A_KEY,
        '653358816': _A_SSN,
        '468488201': _A_ID,
        '211851510': _A_SSN,
        'e3n5gzcr3fxtpt': _A_CODE_OR_SECRET,
        ('5f525939465270676e49304c6f7835452d3145697a74523972634449726f'
         '67454b5849414f717558'): _A_TOKEN,
        'Ardent5410!sig': _A_CODE_OR_SECRET,
        '4915774419203': _M_PHONE_FORMAT,
        '447418220961': _M_PHONE_FORMAT,
        '84-3907228': _A_ID,
        'Tshepo': _A_CODE_OR_SECRET,
        '09845011273': _M_PHONE_FORMAT,
        'c47a4ac04f0749313d328494e84c3e0514890046145acbec': _A_TOKEN,
        'rU1XILmy3W84': _M_NO_WORD,
        '55F39CB649DA65D3D4E019BF0621EF02': _A_CODE_OR_SECRET,
        'Lhe6UmKJa97*': _M_NO_WORD,
    },
}


_KNOWN_MISSES_P: dict[str, dict[str, str]] = {
    'corpus_pc': {
        'kran3107@Bayern': _M_CODE_APART,
        'Excav_marlin282': _M_NO_WORD,
        'J*KVEQu+z6mm7Lm1cCaJNk': _M_NO_WORD,
        '01508': _M_CODE_APART,
        '334620': _M_CODE_APART,
        'TJ2480434': _P_PASSPORT_COLUMN,
        'PM0124671': _P_PASSPORT_COLUMN,
        'KJ8074787': _P_PASSPORT_COLUMN,
        '7103608283': _NIP,
        '422551364': _M_ID_NO_NAME,
        '61-2033346': _P_COMPANY_TIN,
        'Bluebonnet': _M_ANSWER_APART,
        '3509': _M_CODE_APART,
        'Bruno2013$$': _M_NO_WORD,
        '885 985 144': _M_PHONE_FORMAT,
        '517899': _M_CODE_APART,
        'bluebonnet': _M_ANSWER_APART,
        '6900469146121277': _P_FUEL_CARD,
        '27645907195': _M_CHECK_FAILS,
        '8716284101': _NIP,
        '5373': _M_CODE_APART,
    },
    'corpus_pd': {
        '95-4943919': _P_COMPANY_TIN,
        'e0MfNBgFUMnnXr3SGj6jH0O80s1gkE2U': _P_TELEPHONY,
        '377': _M_CARD_CODE_APART,
        '82deacbd': _M_KEY_ID,
        'a/H2k7NrXqCxZ7J52/0g6FFj8pU=': _REQUEST_SIGNATURE,
        '03238650': _M_CODE_APART,
        '108.201.87.238': _P_TELEPHONY,
        '17737970535': _M_PHONE_FORMAT,
        '14169585280': _M_PHONE_FORMAT,
        '4154793460': _M_PHONE_FORMAT,
        '5127845081': _M_PHONE_FORMAT,
        'JFG931841': _M_CODE_APART,
        'harbor-pelican-orchid62': _M_NO_WORD,
        '378977': _M_CODE_APART,
        '3467541153': _M_PHONE_FORMAT,
        '10.636.942/0001-14': _P_COMPANY_TIN,
        '1720': _M_CODE_APART,
        '9194442098': _M_PHONE_FORMAT,
        '03P3JMZMMRGV': _M_CODE_APART,
        'nXCgg5ngHtnVTsoCgkSukDQ1': _P_TELEPHONY,
        '4930849399983': _M_PHONE_FORMAT,
        'Mrs Okonkwo': _M_ANSWER_APART,
        'gyp3jk5xfryowntj': _P_LINK_TOKEN,
        '989235': _M_CODE_APART,
        '7023285992': _M_PHONE_FORMAT,
        '3128656974': _M_PHONE_FORMAT,
        'fa2VhGIXYB8hu0iMCZEm+mv+k28=': _REQUEST_SIGNATURE,
        '921': _M_CARD_CODE_APART,
        'M@rlin519?': _M_NO_WORD,
        'mKNjDFJ6aExk': _M_CSV_CREDENTIAL,
        '4AZJjAwYI8ns': _M_CSV_CREDENTIAL,
        '493011145713': _M_PHONE_FORMAT,
        '447782851781': _M_PHONE_FORMAT,
        '1rd1uys1s2a40kf1phmp9ubxeuyv0u6c': _P_LINK_TOKEN,
        '441614231499': _M_PHONE_FORMAT,
        '392 9529489': _M_PHONE_FORMAT,
        'Roosevelt High': _M_ANSWER_APART,
        '6176148149': _M_PHONE_FORMAT,
        '7025024750': _M_PHONE_FORMAT,
        '4167056074': _M_PHONE_FORMAT,
        '928553': _M_CODE_APART,
        '708176c1': _P_TELEPHONY,
        'gfODYkMisxmVEAD7Gau3': _P_TELEPHONY,
    },
    'corpus_pe': {
        '46714841R': _M_ID_NO_NAME,
        '4402389': _M_ID_NO_NAME,
        '634646': _M_CODE_APART,
        'sunflower 9': _M_CODE_APART,
        '3536': _M_CODE_APART,
        'dae0bb5ca22e13c145d8246f95b1b38e771e0bc2052fe89a6014da37f779c2c3': _CLIENT_ID,
        '66584669Z': _M_ID_NO_NAME,
        '5275': _M_CODE_APART,
        '1068': _M_CODE_APART,
        '9687': _M_CODE_APART,
        '8415': _M_CODE_APART,
        '7746': _M_CODE_APART,
        '872566': _M_NO_WORD,
        '796 428 606': _M_PHONE_FORMAT,
        '478182': _M_CSV_CREDENTIAL,
        '518997': _M_CSV_CREDENTIAL,
        '855657': _M_CSV_CREDENTIAL,
        '157973': _M_CSV_CREDENTIAL,
        '771 2749 0007 5314': _M_ID_NO_NAME,
        'Q563': _M_CODE_APART,
        '7194': _M_CODE_APART,
        'Kreisliga': _M_CODE_APART,
        'NDE3NTBiZmI1ZWI0NDk2NmYxMTU2MDQ4ZmQ0Nzcx': _M_KEY_NAME,
        'b58bc4ee206bebcbb59c20848c4715100d805e4427dfc17e5d298434fbf452fd': _CLIENT_ID,
        'BS7EXZYG': _M_CODE_APART,
        '1L52I1': _M_CODE_APART,
        '06-4547280-8': _M_CHECK_FAILS,
        '0111-3706005-3': _M_CHECK_FAILS,
        '853532': _M_CODE_APART,
        '631342': _M_CODE_APART,
        '2647': _M_CODE_APART,
        'Wildcats': _M_ANSWER_APART,
        '8327748096': _M_PHONE_FORMAT,
        '06 16 848462': _M_PHONE_FORMAT,
        '6301': _M_CARD_CODE_APART,
        '9266': _M_CARD_CODE_APART,
        'theo_rosa0917': _M_NO_WORD,
        '16d4c41f2fe516dcc1e1a47630fca1dfa913f50b94e288ba16360ad55bb1dd59': _CLIENT_ID,
        'e9f4fb69c891f0f6b8e043e474c4308b066478f4': _P_LINK_TOKEN,
        '4086368632': _M_PHONE_FORMAT,
        '443356': _M_CODE_APART,
        '6173191883': _M_PHONE_FORMAT,
        '8 1 8, 1 4 3, 2 4 3 1': _M_SPOKEN,
        '3083': _M_CODE_APART,
        'cedar creek': _M_CODE_APART,
        'VSGW MQUA INST HZJT': _M_CODE_APART,
        '720e7870-92d6-4d2b-957f-0405720e9680': _P_LINK_TOKEN,
        'eJ04MuK8JF9Q': _M_CSV_CREDENTIAL,
        'Jaguar!falcons74': _M_CSV_CREDENTIAL,
        'pikachu_921': _M_CSV_CREDENTIAL,
        'mariposa_446!': _M_CSV_CREDENTIAL,
        'XLbtqT02Pl3n': _M_CSV_CREDENTIAL,
        '7035': _M_CODE_APART,
        '48825': _M_CODE_APART,
        '0053': _M_CODE_APART,
        '166138': _M_CODE_APART,
        'BNX5': _M_CODE_APART,
        'P9771335K': _P_PASSPORT_LIST,
        'P3842656G': _P_PASSPORT_LIST,
        'P8571218C': _P_PASSPORT_LIST,
        'rdl-Y6dQNKFUiVKq7UWQlijybnf': _P_LINK_TOKEN,
        '36920': _M_CODE_APART,
        'd44cdcd3694f74038c9048a15c505271513516653ae074be21cf76567fd5afeb': _CLIENT_ID,
    },
    'corpus_pf': {
        'Quasar_tundra81!': _M_NO_WORD,
        'AKIAD7VPYB57GSHE3KUC': _P_SCANNER_RAW,
        'Lt7gAYZsef0TeocwfykKc/4HGzxvP6sd5FkMiWXx': _P_SCANNER_RAW,
        'pixel-piano-river-90': _M_NO_WORD,
        '626 508 599': _M_CODE_APART,
        '*$WANj3@lbEL': _M_NO_WORD,
        'blue Vespa': _M_ANSWER_APART,
        '4/1Ap_3RTjV6p43Vx7fT4WL_EuB4UYmYP6FpnWL20u9NVsWyy_fICBR2StFcn35': _P_OAUTH_CODE,
        '149914': _M_CODE_APART,
        '133-548-446': _M_ID_NO_NAME,
        'ccccccnjcnujjhlkdbugkbjnturnevtdethkjhhvbvkl': _P_YUBIKEY_OTP,
        '15c13a6a199acccc59d3cffd62a5fc7093252311': _M_NO_WORD,
        'XJNAUBAOMO': _M_CSV_CREDENTIAL,
        '715-074-456': _M_ID_NO_NAME,
        '174 580 639': _M_ID_NO_NAME,
    },
    'corpus_pg': {
        '1939#': _M_CODE_APART,
        'vowOK1LZFZISscAPYHbLJe5zFfL1MoVl4qoZ73OlcxNmAa24dn3UDfEH5Q5owydO': _P_REPR_PAIR,
        'NHFY-5792': _M_CODE_APART,
        'c-189-253-42-146': _P_HOST_IP,
        '99303924626': _M_ID_NO_NAME,
        'lantern-harbor-nimbus77': _M_NO_WORD,
        'kittenPikachu%28': _P_PERCENT_PASSWORD,
        '4002#': _M_CODE_APART,
        '0714928182': _M_PHONE_FORMAT,
        'pepper-velvet-pepper54': _M_NO_WORD,
        'Mrs. Okoro': _M_ANSWER_APART,
        'Springfield Elementary': _M_ANSWER_APART,
        '953034': _M_CODE_APART,
    },
    'corpus_ph': {
        'Rua das Flores': _M_ANSWER_APART,
        '3673': _M_CODE_APART,
        'pk-lf-ca6da8c8-8b4b-4e9e-98ef-93466fb3c586': _P_PUBLIC_KEY,
        '164': _M_CARD_CODE_APART,
        'pk-lf-ce6b3fc1-46f8-4b70-a6a7-4727ad3716b7': _P_PUBLIC_KEY,
        'Cobalt@1044thistle': _P_TYPED,
        '6wRLxIDMZ0RL3P46dljepBaM': _P_SALT,
        'favJ4wNnwPID62ADPKkTKknK': _P_SALT,
    },
}


# The AK (internet providers), AM (backups and storage), AN (mail servers), SI (managed service
# providers), SJ (libraries, archives and museums) and TI (pensions) round, held out against
# b6d5573, then mended: what is left, and why.
_U_PASSWORD = ("a password with no key or word the detectors read beside it (a chat's answer, a "
               "table's or a secrets file's unnamed column, a CLI's positional argument, a "
               "passphrase of words, a Perl DSN's list, a script's echo into a tool)")
_U_CODE_OR_SECRET = ("a code, a PIN, an answer or a key told with its name words away or none (a "
                     "chat's reply, a voucher list, a ticket's 'reset to 5931', a vault's code "
                     "after '#', a config's key the detectors do not read as a secret's)")
_U_ID = ("an id or a passport with no name the detectors read beside it (a list of NINOs in a "
         "mail, a licence's card number, a dotted or tabled BSN, an MRZ's number)")
_U_TOKEN = ("a token or a session under a name the detectors do not read as one (EZproxy's "
            "Session column, a Rails session in a log's header, a one-time share link's "
            "fragment, a NAS's sid, a payment link's path)")
_U_KEY = ("a vendor's key with no prefix of its own under a name that does not say secret (a "
          "positional argument, an XML setting named for its product, a DNSBL's key as a host "
          "label, a base64 keytab, a borg key or paper key)")
_U_PHONE = "a phone under a name the detectors do not read (a VoIP username, a SIP header's tel:)"
_U_SSN = ("an SSN as nine digits in a fixed-width record, a compliance query's quotes, or "
          "dotted after 'SS#'")
_U_IPV6 = ("a delegated IPv6 prefix written with its trailing '::' in RADIUS accounting, or an "
           "address of seven groups and no '::' (the corpus generator's: no address)")
_U_ENCODED = ("PII or a login base64- or URL-encoded where the redactor does not decode it (a "
              "Dovecot AUTH line's PLAIN response, a percent-encoded JSON whose wrapper stays)")
_U_FIELD_VALUE = ("a field's value read as a secret by its key's name or its shape (a PGP public "
                  "block's line, TR-069 parameter paths, a template's variable, a policy "
                  "setting's word, a mail filter's SQL, an S3 listing's object key, 'see password "
                  "\"<entry>\"', a dependency's version, a key's id)")
_U_SESSION = ("a session id under 'session=' in a log (an ACS's, Dovecot's, a crash report's): "
              "a session is redacted as a credential")
_U_HASH_READ = ("a stored password's hash or salt under a password's key (a Huawei ONT's SHA-256, "
                "an Evergreen hashed login, AnyDesk's pwd_salt): redacted as the key says")
_U_PLACEHOLDER_MAILBOX = "user@domain.tld in documentation: an address's shape is redacted"
_U_LUHN_NUMBER = ("a voucher's serial, a Dutch payment reference or a library barcode of 14 to "
                  "16 digits that passes Luhn under a card's prefix, with no name beside it")
_U_ID_SHAPE = "a participant number in a payee's line in a national id's shape (8 digits, checked)"


_KNOWN_MISSES_U: dict[str, dict[str, str]] = {
    'corpus_ak': {
        '97476199412286258988': _U_CODE_OR_SECRET,
        'GQRFJAGU': _U_CODE_OR_SECRET,
        '74658368098414144854': _U_CODE_OR_SECRET,
        '9858': _M_CARD_CODE_APART,
        '06681684790': _U_PHONE,
        'Hartlepool': _U_CODE_OR_SECRET,
        '2a02:c7c:7c0b:f900::': _U_IPV6,
        '21CLAKYP': _U_ID,
        'LXPCS3FE2W': _U_CODE_OR_SECRET,
        'VLF419033': _U_CODE_OR_SECRET,
        '2a02:c7c:24ee:f200::': _U_IPV6,
        'Bretagne29!': _U_PASSWORD,
        '2406:3400:efed:cb00::': _U_IPV6,
        '132267565': _U_ID,
        'minecraft4ever': _U_PASSWORD,
        'zluubZXJ7QtvtF': _U_CODE_OR_SECRET,
        '0304625201': _U_PHONE,
        'CRM4VUYU': _U_CODE_OR_SECRET,
        '8WP3EXFR': _U_CODE_OR_SECRET,
        'EBMT24QQ': _U_CODE_OR_SECRET,
        'E9JW4MP3': _U_CODE_OR_SECRET,
        '441733626411': _U_PHONE,
        'b4625c922a283462a1edea56429af213': _U_KEY,
        '1d9d0e8c90717bae1cc65daf02f348ed': _U_CODE_OR_SECRET,
        '0341/141 7538': _U_PHONE,
        'WLNZILQF': _U_CODE_OR_SECRET,
        '7A3JBUYKDd': _U_PASSWORD,
        'jGTSuDnvGg': _U_PASSWORD,
        'laljB9sn3p5oTwik40dWSo': _U_TOKEN,
    },
    'corpus_am': {
        (' 1: 63ad fa39 5d6c ff31 aeea 03bd - ba\n 2: 261a d590 acbc 5f'
         'bb 5ecb 983b - 41\n 3: 0e6f 58de 9b9d 5619 1e28 c2f2 - 38\n 4:'
         ' 8dc1 0da5 bffa cefd 6973 12bb - a8\n 5: 2af9 83ea dec1 08b0 '
         '8c3c e052 - e9\n 6: 6819 b8ac 3e6d feb6 3cc1 7fd0 - 4d'): _U_CODE_OR_SECRET,
        'MosaicMellow48?': _U_PASSWORD,
        'SjU0UTdUNE1SUVVLSlI1TzVDR0Y=': _U_CODE_OR_SECRET,
        'v8m9msm7lHPBYy93fuapOefqHny2w1b5rTOKOonGEyX5g96NbzR94l+l7p3KXj8Y': _U_CODE_OR_SECRET,
        'meadow pylon raven rhubarb glacier': _U_PASSWORD,
        'M34d0w!7214': _U_PASSWORD,
        ('ge+YlFfL/DYG1Jh+WCN8p5VVaejU2FFrhpP2M+navJmvwmB/ZkHdoIA0BwqI'
         'uEAPpHJ/61eZZ4mf19PYYRtdQjcX7nWsPkHiF4N17Cg/5iu87MGCaV9uHX0I'
         '44zVvX82Mvy+fmadjnRGSzwCWw5/1cj/5uDCj50jr6eT1p3U+EtUiSUYu3+Q'
         'nz/3woFrhF6r7NlwO64dcTea654oL+h+iqD94/0yPEgdznwS4s+tJ6l/+gbJ'): _U_CODE_OR_SECRET,
        '828858': _U_CODE_OR_SECRET,
        '5LSSlK6zkoMR0VPHaXTFHhKqjGeq0FP4WMXk9GOt': _U_KEY,
        'KUN2UkY4p5GWXY': _U_PASSWORD,
        ('BORG_KEY 05f4ec5a399fc47f5edbada514e287ba054769ba41cbb44f075'
         '3903870712d5f\nf7w8O3dziQXZ08DTT1cg/9ckSDNyA3b/aTjNULJ5YHdXVM'
         'FC0twwspv2bfJlH4mlt9uofR6r\noibB+TIlRiDLgUtQ79pGISluDNHIgeWSe'
         '+/E5jtkH6OdVQHXL809/PLX4YVPfAX5TxcTEYRW\n0hSA2fhfp7938WoVobc6'
         'V8qBKciyRIkjbLISDtWz3FouJePqfVFC3kjHrDvkqh4by0bNjv8O\n63/n8pW'
         'SIwz8EK1QAFMhfk57VoMmFpcb1RuMKO4G/1iTghWD+B4ZSPHv08Ycr6vEDJz'
         'DoGhV\nLB9/KwDx4VXsBJlbnXYuFm2R+afgBdgtOKV1BltpmwT9J/KTv1NeGg'
         'EBjSztla0gIqkEl44y\nwc22SrpHYUQZSbyNnfKjl41MQHEOPALTw4vZ+pEo8'
         '11fOtyDi9JSO7/oV4K2fp3jGdxpFHOQ\n9BC/gL4gFS1dUU81RMkQCj2NBEuc'): _U_CODE_OR_SECRET,
        'dkdesdx8': _U_TOKEN,
        'CRAY-NEY5-P383-8MGE-VJ83-ON86-EZ2L-95XN': _U_TOKEN,
        ('j2SSrmyEUyThCQ9oe4dvwuLiPxN6ClDzHybZ8SCFObVh+cenOSUoutVmIoJH'
         'wmbI7/Dro+kBXvLZ\n\tz0q2+LLLnLL/n+2BAFMI6zRci3PO5hjxlhzX20KhQt'
         'xzPrHkfw3uy64iNdxP/Tjbf+nWAaruNv8E\n\tGyw7/jtRnlA19fnWZiqKri10'
         'BvakbwhJbtQfjS6cPhS/Dkc0c8kowD4wCFzBzMgPjSyap/MUJVzv\n\t8Lx5yw'
         'ZYnQHGvJBOyJSvvdYiP5W5yftgK3NZV74Ei9sWC88+Dw4gOboZiDIOHnN6iT'
         'BnqxXqcJMH\n\tdOd/QcAXx/b+m1qGoavr2JYOiS3qg3xmIDDWOZZ5c04axneV'
         'usTRRtrvC+NvaC7csuToRc2J0ppQ'): _U_CODE_OR_SECRET,
        ('1acn571XJQNck2KcGDbZdwg7YrrCtxJtx4Uv5fTLRE6xyyhHTyEnWwYzJvh4'
         'jdkraQEZkDbRY1QwsnaknRxDdg6PZApwZkueG398L3Hdxg1YBX8xhv17Scss'
         'VZE6EdxMzd8ryd2LQ7fTXNW5yAYdq1snnZnXsVPoUEvN6suVw5A7Ny8SQPxR'
         'D2JUFR796fi6uMw3MtcJxpGTKKxBjESremWWhVfSCcu75ZB9vo1YCrvTsHCy'
         'sBRyDJrfRPBCLUXjzXuHYmTFarSFRxMMPbD4CGtrp'): _U_KEY,
        'j43jkkvfa0bprnpo46718ysgdwxx': _U_KEY,
        '903941387': _U_ID,
        'orbit meadow tundra umber walnut cobalt': _U_PASSWORD,
        '8zo3fy0U0V7+879dqQ8e2ThEVAXG857jb4Rg2DJRGSI=': _U_PASSWORD,
        'CinderTundra72.': _U_PASSWORD,
        '87OV81199': _U_ID,
        ('U54tJ4bE7GvShFeNyA318KymgP4Bcs-KvgJb4CuPCK8OGiaNBQ5jPqgrXmSc'
         'KaS4HfcjLOY_6kmcSoqUAJ2Q3C'): _U_TOKEN,
        ('p8ju5gTnyK7F0ZHuI3hmZoOpiKNeun8N9Fp0u-Wrfan8I8kUd0kqZjlRw4GD'
         'pNbzPrNv4RkTXQbNEmb9r7dX1H'): _U_TOKEN,
        'edc633d61f0f18b3df763c2af3651dda': _U_KEY,
        'walnut copper thistle fjord raven meadow': _U_PASSWORD,
        '3nckwhkq': _U_TOKEN,
        '013515': _U_CODE_OR_SECRET,
        'umber-raven-saffron-trellis-48': _U_PASSWORD,
        'MellowHarbor52%': _U_PASSWORD,
        'ypVlIi3p5#IawuP^!Wp4Nhs': _U_PASSWORD,
        '3mb3r_36': _U_PASSWORD,
        '_WTK_CwLjkV9S6-ctpagdG': _U_TOKEN,
        '026': _U_CODE_OR_SECRET,
        'thistle sparrow mosaic meadow cactus': _U_PASSWORD,
        'Falcon1990!': _U_PASSWORD,
        ('ZKmwL2G09oYXJsCfMp1raBsWTxNUVgqbY+z7H4gHhGyzV0dsVa+5R23ikJr7'
         'ViDJwas46eQNreRp\ngz90SbD0GOGrbJ/UAjNsX3tJYIbUc24PwKgfQWXADaq'
         'uartzR1mZzlQVx9SFisHCh1BmJkKjZHuo\ncWE0qaF03kuMrkNDs/edJtjP0W'
         'o9+NhpV9aoSfTA+SH1DhBmMvoZsGa4NsIyE3IXzD+fZoq/7Efs\nOdnPRTsRR'
         '0eb9EhMuLTb4h/Em6tp9ZM3RpWK7IxhZJd7qeVVIZxuDz40K2lJvKlhCxqqk'
         'ffAGe29\nbSlLOyr9dq4ewM1rqf2wow17TRage4uoAQUgSH82du95Wi13tuGS'
         't1Y87OtBIw+nyGJZoFI3jp+0\nbWXsb4erSnfXkGzotUYt3GJMHqDkOndTeXs'
         '+xS7DnUcmy6umqir7n0kP6mm0qoKSibpzv/GaAuWU\njndQFRJ6whZpnwIlWH'
         'ByR+ECKYvq4AhjfgM9qYXBAfWm8lkYlK8BXN3Apr0wm6UfdQ/2ALRCtB4Z\nP'
         'MB1wlugyJ2sOD2J5HOILzl+PwXnu7Lv9uGQ9LUom1j+6osLwV9nJQ4GPOqAp'
         'uKz/Z5FsuUd1Ao4'): _U_CODE_OR_SECRET,
        'tALNmL1L5jwDUJ7hWEicakvoXOA7': _U_PASSWORD,
        'tundra copper sable harbor lantern': _U_PASSWORD,
    },
    'corpus_an': {
        'ulmdwiqwxnc7ho%': _U_PASSWORD,
        '168857386': _U_SSN,
        'JVpc_bp1ldD1veb-7ENREhpE6Mop7npdSA3Y9F8bPCa.mJT_flNf7K5MkkIGWW6MThxmgRFHbu2Q': _U_TOKEN,
        'Welcome@426fx': _U_PASSWORD,
        'Bayern2021#': _U_PASSWORD,
        'gRFD9sGSz0PXXRcaQjH1Pacwoyrc': _U_PASSWORD,
        'hrxm ntas cize dezc': _U_PASSWORD,
        'Frue139fruehling&': _U_PASSWORD,
        'Soleil-granit-11': _U_PASSWORD,
        'SKXfoyuzaLT2xJ3yKy08gNxGOrh7SDNJ': _U_TOKEN,
        'dmkv39xyilv1ro$$': _U_PASSWORD,
        '0GH?m%#msNPe@': _U_PASSWORD,
        'd5slqxqbs4zh62$$': _U_PASSWORD,
        'wuFShrVMtjVWQfR_pIvzF4fEdzE1Kc2spKBjcamYiAr.GCsHzaNoW-K7bgW31qPf6rKDx3L6eAQU': _U_TOKEN,
        'CYCV794MW': _U_ID,
        'Harbour-cobalt-55': _U_PASSWORD,
        'awalsh%40harbourview-realty.com': _U_ENCODED,
        'Bayern@672lw': _U_PASSWORD,
        'PIdihazm85!CO': _U_PASSWORD,
        'JSiulbgm35@ZU': _U_PASSWORD,
        'Orch968sonne$': _U_PASSWORD,
        'LavandaKaffee1?': _U_PASSWORD,
        'Warszawa2020%': _U_PASSWORD,
        'AGNhcm1lbkBub3J0aGJyaWRnZS1oZWFsdGguY29tAERyYWdvbkhlcmJzdDIh': _U_ENCODED,
        'jMCd5%j^6kFD&': _U_PASSWORD,
    },
    'corpus_si': {
        'BMxkXvwD': _U_PASSWORD,
        'HKN6YNR8': _U_PASSWORD,
        '432a575e93002b19': _U_TOKEN,
        'SoA!EnLxs^XnS': _U_PASSWORD,
        'Timber2518?': _U_PASSWORD,
        'Sparrow2023!': _U_PASSWORD,
        '4744A1C32854138B04E40A30F077F706': _U_TOKEN,
        'B43496E31436658CE7D8C8F63C2D768D': _U_KEY,
        'Lantern01!': _U_PASSWORD,
        'Jetta': _U_CODE_OR_SECRET,
        'Falconraven914!': _U_CODE_OR_SECRET,
        'Lantern!harbor90': _U_PASSWORD,
        '8558-8197-1162-0585': _U_CODE_OR_SECRET,
        'BARK0Z45UB': _U_CODE_OR_SECRET,
        'GTWABRW8KKZ41WHR0KT6TDSIVUU': _U_KEY,
        '84050882245': _U_ID,
        '84gwbzse': _U_PASSWORD,
        'EriGCWcyAkM4X4g2URc0CD01-nuyKOttj_DoPd-v1bY': _U_TOKEN,
        '5013': _U_CODE_OR_SECRET,
        'tundra-birch-willow1': _U_PASSWORD,
        '1Ak0UejLxhj7uLj%2BAqpjMrBDJEfVkSVzr%2FfT9dWOIQAws3MRxvDzQJEjz9Bt6LNd%3D': _U_TOKEN,
        '1548': _U_CODE_OR_SECRET,
        '0ade07e57cf42335a81808ff2967460d3175ff6981eb11fcd5613d3d7df0f34c': _U_KEY,
        'Marlin2024$7': _U_PASSWORD,
        '4341': _U_CODE_OR_SECRET,
        '1j32nxx80n00pigzs9f19n': _U_TOKEN,
        '6zsb9chi': _U_PASSWORD,
        'ydkprHxl': _U_PASSWORD,
        'BoQCGmn6YrTEmo+': _U_PASSWORD,
        '0658': _U_CODE_OR_SECRET,
        '48BMDK6XSOLT5ZIN89YN': _U_KEY,
        'iy25vyoGACDCz_LpuNGL09X6dxrwEBJI': _U_TOKEN,
        '2Af*cQSLL&zZk': _U_PASSWORD,
        '2a0a:a543:e700:dfbb:7596:2616:9322': _U_IPV6,
        '2003:e8:e76a:b762:c64d:2bc0:5ba3': _U_IPV6,
        'P1B0YMS9QJ8L6M5D4Y4XCYKD3TM': _U_KEY,
    },
    'corpus_sj': {
        'bXeSYh1cbDwqHQZ': _U_TOKEN,
        '5ff0d22ea4f811c2933bb7d3d0e2e8969da7': _U_KEY,
        'FQLZRXSO': _U_KEY,
        'ZL6LUWE3XFK4': _U_KEY,
        '5931': _U_CODE_OR_SECRET,
        '3phemer@9#': _U_PASSWORD,
        'XqVprcKmdN6OXurWgv191T8boxFh4xPK': _U_CODE_OR_SECRET,
        'k-hjn45p.ed75CnrQSkZ5B70co8w7rqhY2yP-PTZSjQlojQU3G9dyPqA': _U_CODE_OR_SECRET,
        '9907': _U_CODE_OR_SECRET,
        '1a942bed6734becc88608b144b0b2a03738e1539a748a9a7bb604c3039b4b1f5': _U_TOKEN,
        'E6920133-D5BD-49F6-8811-5AA97D9B5DEC': _U_KEY,
        '_3e108337eb77e57f705b1bc410783176': _U_TOKEN,
        'mLrDzq9qStxuUsNh': _U_PASSWORD,
        '6AV1iB8PP1XXxhu0': _U_PASSWORD,
        'bsCjxJ675EvQ30xy': _U_PASSWORD,
        '1d65099eec01407ec6a1b044da05ca4e': _U_TOKEN,
        '735290': _U_CODE_OR_SECRET,
        '19091989': _U_PASSWORD,
        'FTEVVCmY7HiBhbs': _U_TOKEN,
        '22e2cf70-67b2-4d79-902f-48d9ca720e45': _U_KEY,
        'xmPd7p89fXjTVkH05B7oKJ9L0BSs45jBUEx/BeAsMAuY': _U_CODE_OR_SECRET,
        '2972 9623': _U_CODE_OR_SECRET,
        '3963': _U_CODE_OR_SECRET,
        'C0d3x9!': _U_PASSWORD,
        'Accession*1616': _U_PASSWORD,
        'Pumpkin8?': _U_PASSWORD,
        '1d59a8d4032cb9d5059761791b353b191fd0': _U_PASSWORD,
        '1uAfLx1ayQL4yKY4MRxmYWKLTbeq5e0Q': _U_CODE_OR_SECRET,
        'vi32NIfkDqCq1ztcVz51wo5FbMST6H2t': _U_TOKEN,
        'b6beed28ed7eb016f62242f9ac7108f7': _U_TOKEN,
        'V1Zhm9tbcN8ICrumqLK6H54ilvWpP7LDnqtCIz4P1y6pqLa81AX0OWKz0GE3Az0YgBANSeQahYKELkd7': _U_KEY,
        '2 8 1 6': _U_CODE_OR_SECRET,
        '353047': _U_CODE_OR_SECRET,
        'pelican310': _U_CODE_OR_SECRET,
    },
    'corpus_ti': {
        '%7B%22bsn%22%3A%20%22901890200%22%7D': _U_ENCODED,
        'PY9DNF': _U_CODE_OR_SECRET,
        'WDZsMbWe70ZbD68PhoSSabdsB4Uzjuuh': _U_KEY,
        'Pelican&7088': _U_PASSWORD,
        '8417': _U_CODE_OR_SECRET,
        'Biscuit': _U_CODE_OR_SECRET,
        'bluebell': _U_CODE_OR_SECRET,
        '9SEM-YLVL': _U_CODE_OR_SECRET,
        'ssn%3D559864935%26dob%3D1964-02-11': _U_ENCODED,
        'KDHX-WPSX-CPBX': _U_CODE_OR_SECRET,
        'Koala@997': _U_PASSWORD,
        'Windmolen!53': _U_PASSWORD,
        '4445': _U_CODE_OR_SECRET,
        '8695': _U_CODE_OR_SECRET,
        '753085940': _U_SSN,
        '671390310': _U_SSN,
        '552971137': _U_SSN,
        '97503281': _U_CODE_OR_SECRET,
        '969971568': _U_ID,
        'dvgeB474_boHLQ': _U_PASSWORD,
        'Tulpen!5871': _U_PASSWORD,
        '7406': _M_CARD_CODE_APART,
        'Pelican$84': _U_PASSWORD,
        '21855907': _U_PHONE,
        '800007207': _U_ID,
        '908450163': _U_ID,
        '60Qmgk7xodrK6Oli5PEktlt0icWZ7Ir0': _U_KEY,
        '14df1f7c26f66915f1eb66e5965653528f41853d660bcf962bae365533cd5def': _U_CODE_OR_SECRET,
    },
}


# The AP (trucking and fleets), AQ (freelance marketplaces and payouts), SK (public-safety
# dispatch), SL (package registries), TJ (alarm monitoring) and TK (background checks and
# tenant screening) round, held out against b3d69b6, then mended: what is left, and why.
_V_PASSWORD = ("a password with no word the detectors read beside it (a chat's reply, a CSV's "
               "unnamed column, a list under an address, a call's argument list, a verbal "
               "passcode in a lower-case or spoken form) or after words they do not read")
_V_CODE_OR_SECRET = ("a code, a PIN, a key or an answer with its name words away or none (a "
                     "keypad's user list, a gate's code after the place it opens, a panel's "
                     "programming string, a chat's reply, a DLS or download code, a radio's "
                     "key after words the detectors do not read)")
_V_ID = ("an id or a passport with no name the detectors read beside it (a company's EIN, "
         "left on purpose; a licence in an ELD header, a CSV's or an XML's column, a state's "
         "shape after 'lic', an NLETS field the detectors do not read, a passport in a list)")
_V_TOKEN = ("a token or a session in a link's path or a field the detectors do not know (an "
            "invitation or share link, a session id in an XML answer, a CSRF cookie)")
_V_PHONE = ("a phone with no word the detectors read as naming it (a CSV column, a caller's "
            "number in a SIP log or an ALI record, a local format after 'Chiamante')")
_V_KEY = ("a vendor's key with no prefix of its own under a name that says no secret (a UUID "
          "key, an Erlang tuple's key, a trufflehog finding's joined key and secret)")
_V_SSN = "an SSN in a fixed-width bureau record, a SQL literal or a W-9's boxes"
_V_CARD = ("a fleet card's PIN spaced a digit apart, a card's code on the line after its "
           "label, or a fuel card of an issuer's prefix no card network lists")
_V_LICENCE_SHAPE = "a PayPal invoice id in a licence key's shape (groups of four capitals)"
_V_CC_WORD = "Adobe's 'CC' before an invoice number, read as Colombia's cédula de ciudadanía"
_V_PUBLIC_SIGNATURE = ("a public signature (a sigstore bundle's, a firmware's config "
                       "signature) under 'sig', redacted as a request's signature would be")
_V_SPOKEN_ID = "a request id read out in words by a caller, read as a code said aloud"
_V_JWT_HEADER = ("a JWT's header alone, cut short with '...', in documentation: read as a "
                 "token a log cut")


# Corpora AR to AW (conferences and events, corrections and inmate services, mortgages and
# escrow, web scraping and proxies, debt collection, military and veterans' services).
_X_DIGITS_ELSEWHERE = ("a card's three-digit code, redacted, whose digits stand inside the "
                       "line's trace id too (the leak rule reads them there)")
_X_SESSION_HEX = ("a bare session= holding 32 hex digits in an audit line: a WebDriver's or a "
                  "kernel's id reads the same, left as every corpus's are")
_X_GENERIC_ID = ("a DoD ID under a generic id_number column whose type (CAC) stands in the "
                 "column beside: a generic id's column asks for a country's check")
_X_LPA_KEY = "Freddie Mac's LPA key (a loan's id) under 'Key:', read as a secret's"
_X_FILE_NAME = "a record's number in a file's name after '_', read as a phone"
_X_PROSE_PASSWORD = "prose's example of a bad password ('BAD password: Company name + year')"
# Corpora AX to BK (fraud and chargebacks, medical billing, embedded devices and factory
# provisioning, home services marketplaces, subscription billing, the creator economy).
_X_TOLD_CODE = ("a one-time code told after a verb or with other words between it and its name "
                "('le client a lu le code 522449', 'SMS con il codice 642099', an amount between)")
_X_MRZ_CHECK = "a passport's number in an MRZ line whose check digits fail (the corpus's own)"
_X_SESSION_ID = ("a session_id in a JSON log: a chat's or an analytics session's id reads the "
                 "same, left as every corpus's are")
_X_ANSWER_APART = "a security answer after 'the answer is', the question's words a sentence away"
_X_PHONE = ("a phone with no word the detectors read as naming it (an Italian mobile after an "
            "office's name, a Mexican landline after an e-mail, an Indian mobile after 'Contact')")
_X_PASSWORD_APART = ("a password at a sentence's end, the words naming it further back ('read "
                     "out the local admin password so we could log in remotely: X', 'I reset it "
                     "yesterday to X')")
_X_CODES_IN_CHAT = "backup codes in a chat's reply to the question that names them"
_X_DEVICE_KEY = ("a device's key as a tool prints it with no name beside it (jq's output, a key "
                 "block's bytes in groups)")
_X_SUPPORT_CODE = "a support session's one-time code of digits and a dash ('632-333')"
_X_ACCESS_CODE = ("a door's, gate's or alarm's code in prose or under a table's 'Access' column "
                  "('gate 263563', 'code FGHC' a clause after the lockbox, 'Code 2158 innerhalb')")
_X_LINK_TOKEN = "a token in a link's path (/u/<token>, /alert-box/v3/<token>)"
_X_LICENCE_HEX = "Avalara's licence key, 16 hex digits under LICENSE_KEY, read as an id"
_X_LETTERS_CELL = ("a password of letters alone in a provisioning export's column, read by the "
                   "cell check as a name")
_X_IMEI = "an IMEI in a device's boot log or a carton's list: redacted on purpose"
# Corpora BL to BQ (elections administration, auto repair, tutoring marketplaces, therapy
# practices, sports teams, AI API resellers and GPU clouds).
_X_ANSWER_COLUMN = "security answers under numbered columns (sq1|answer1|sq2|answer2)"
_X_BUREAU_SSN = ("an SSN in a pipe-delimited feed's record or a SQL IN list's second item, "
                 "no name beside it")
_X_VOTER_TITLE = "Brazil's voter registration number (título de eleitor), no detector for it"
_X_PASSWORD_NO_NAME = ("a password with no name the detectors read beside it (a line of a "
                       "handover list after a network's name, a portal's one-time password "
                       "opening with '=?', a diceware phrase after Korean's 비번은)")
_X_CODE_APART = ("a code told apart from its name or with no name (an alarm's 'arm with code "
                 "6658', a cabinet's 'combo', 'SKC ... it was 9328', a radio's 'codice' after a "
                 "verb)")
_X_VENDOR_KEY = ("a vendor's key or id in a shape the detectors do not know (fk_live_ after "
                 "'Eccolo', Modal's ak- token id)")
_X_SESSION_HEADER = ("a session's token under a header or a label the detectors do not read "
                     "(X-Session-Id, Korean's 세션 토큰, a scanner's session hex)")
_X_HEX_SIGNATURE = "a webhook's or a request's signature (HMAC hex or base64): left by design"
_X_FAQ_ANSWER = "an FAQ's 'Q: ...? A: ...' read as a security question and its answer"
_X_RECEIPT_AUTH = ("a card receipt's six-digit 'Auth code', read as a one-time code (a 2FA "
                   "'auth code' reads the same)")
_X_KEY_PROSE = ("a lower-case word after a name holding a secret's word, read as its value ('New "
                 "key: delivered via ...', a job's 'sig-sync: pulled 1,882 ...')")
_X_PART_NUMBER = "a part number in an invoice's PART NO. column, read as a phone"
_X_LICENCE = "Italy's driving licence number after 'Patente n.:', no detector for it"
_X_I18N_MESSAGE = ("a form's message under an i18n key naming a password "
                   "(errors.password.too_short = \"Use at least 12 characters\")")
_X_FUSE_DIGEST = ("espefuse's key block holding a secure boot digest: a key block's bytes are "
                  "redacted whatever its purpose")
# Corpora BR to BW (remote support, account recovery, consumer genetics, auctions, CRMs,
# Iberian and Italian small business).
_X_PUSH_TOKEN = ("a device's push token (FCM's registration token): left by design, useless "
                 "without the app's own server key")
_X_GIFT_NUMBERS = ("gift cards' numbers or codes a scam's victim gave out, with no checksum and "
                   "no name for them the detectors read")
_X_NO_TLD = "a look-alike sender with no dot in its domain (accounts@reinholt-auktionen-de)"
_X_SALT = ("a password's salt beside its hash, redacted: an application's salt (Nextcloud's "
           "passwordsalt, Flask-Security's) is a secret, and the key reads the same")
_X_SESSION_TRACE = "a remote tool's session ids in its trace (session=<16 hex>), redacted"
# Corpora BX to CK (e-mail marketing, on-call, German-speaking bureaucracy, what people paste
# into an LLM chat, Brazil's services, brokerages).
_X_UNSUBSCRIBE = ("a list's unsubscribe link's token: left, as the corpus of transactional mail "
                  "(LA) keeps it clean (it only unsubscribes)")
_X_UUID_LINK = ("a double opt-in link's token that is a UUID (a record's id in a link reads "
                "the same)")
_X_ID_ACROSS = ("an id told a sentence or a list item away from its name ('BSN ...? Het is "
                "937023437', 'pasaporte ...? El actual es ...', 'Eşimin: ...', '... und 6142 "
                "250360', a bare CPF answering a question)")
_X_PASS_ALONE = "a Swiss passport after 'Pass (CH):' ('Pass' alone names a password as often)"
_X_TC_BARE = "Turkey's id after a bare 'TC' (a test case's id reads the same in English)"
_X_SHORT_ID = "an id shorter than its country's (a 14-digit NIK)"
_X_STEUERNUMMER = "a German Steuernummer: a person's tax number, redacted"
_X_MPAN = "an electricity meter's MPAN, read as a phone"
_X_ORDER_NO = "a Turkish order number after 'Sipariş no', read as a phone"
# Corpora CL to CQ (temp agencies, one-person IT, LLM chat logs, ham radio and makers, French
# and Dutch and Belgian administration).
_X_PASSPHRASE_ALONE = ("a password of words or letters alone, with no symbol, after a label "
                       "that does not name a password ('Tulpe-walnut-1 – aber bitte ...', "
                       "'Wi-Fi: ..., key sparrow-thistle-walnut-2', 'Delad brevlåda ...: "
                       "Midsommar_14', a sheet's 'WalnutViolet')")
_X_CELL_WITH_NOTE = "a document's number in a cell with a note beside it ('C0K7HPCWF (Reisepass)')"
_X_BASE64_HEADER = ("a login in base64 under a header of its own name ('cpro-account: ...'): "
                    "read, base64 JSON under other headers would be too")
_X_USER_ID_PHONE = "a user id's digits after 'u_' read as an international number (00...)"
_X_MOSQUITTO_HASH = ("Mosquitto's password file: its PBKDF2 hashes' last field redacted as a "
                     "base64 key, as corpus KD labels them")
_X_SECRETS_LIST = ("docker-compose's secrets: a Secret's name under 'secrets:' read as its value "
                   "(and its repeats)")

_KNOWN_MISSES_X: dict[str, dict[str, str]] = {
    "corpus_as": {"523": _X_DIGITS_ELSEWHERE},
    "corpus_at": {"cd7bacbcce4dca1293cac38aed8e3fa9": _X_SESSION_HEX,
                  "544e100b983fd8b1caf965e41de70f6c": _X_SESSION_HEX},
    "corpus_au": {"o9jbfc43w15gnvwst2as": _M_KEY_ID, "okonyknhzv0fe959zy0n": _M_KEY_ID,
                  "ERdsft063ElqsN4OxIZ22xx2ClHytv92IwE13vhQzXTc0oe9h2ECiop9yWm8HubK": _CSRF},
    "corpus_av": {"828532536": _V_SSN, "257105628": _V_SSN, "357075778": _V_SSN,
                  "867930786": _V_SSN, "863916061": _V_SSN},
    "corpus_aw": {"1262454713": _X_GENERIC_ID, "1400205757": _X_GENERIC_ID},
    "corpus_ax": {"522449": _X_TOLD_CODE, "642099": _X_TOLD_CODE, "200505": _X_TOLD_CODE,
                  "545895": _X_TOLD_CODE, "266377263": _X_MRZ_CHECK,
                  "42eletyie752ei49jceud19n0o": _X_SESSION_ID,
                  "rkoid536cq32lknrhcmrgbeboc55ky29": _X_SESSION_ID},
    "corpus_ay": {"Tacoma": _X_ANSWER_APART, "196617": _X_TOLD_CODE, "304 1590443": _X_PHONE,
                  "rdhlfsEx6Ph3SOONKE9ALAHeBdnnxjgu9I6gBpANeSI": _CSRF,
                  "nFltTL4NA9KPanSeERW0aEHzWCTe6Cof0BpfsQrv21k": _CSRF},
    "corpus_az": {"4uhre-35per": _X_CODES_IN_CHAT, "1gr6g-ru7rj": _X_CODES_IN_CHAT,
                  "cq9ef-g8aa2": _X_CODES_IN_CHAT, "kk848-e4u8h": _X_CODES_IN_CHAT,
                  "JGrCkaMajQim": _X_LETTERS_CELL, "ImBeQSKVWsLfP2x'": _X_DEVICE_KEY,
                  "632-333": _X_SUPPORT_CODE, "095-459": _X_SUPPORT_CODE,
                  "(33) 1011-1374": _X_PHONE,
                  "9aa9 4ab4 29a0 bc79 caa5 ffb3 01c1 ed3f": _X_DEVICE_KEY,
                  "212f f2b6 f405 5d61 a22e f29c 73f1 11ea": _X_DEVICE_KEY},
    "corpus_bi": {**dict.fromkeys(("189", "263563", "47386", "6193", "2158", "9532", "FGHC",
                                   "8044", "1099", "739120", "31664", "ADHF"), _X_ACCESS_CODE),
                  "Rosie$tigers93": _X_PASSWORD_APART, "cowboys1758.": _X_PASSWORD_APART,
                  "7582638214": _X_PHONE},
    "corpus_bj": {"Bwo3ZWvfEPFL": _X_LINK_TOKEN,
                  "rcKJUyLlfw7O": _X_LINK_TOKEN, "sX0Rf4GA8N": _X_LINK_TOKEN,
                  "nTauyU4D": _X_LINK_TOKEN, "199608A437F4AF38": _X_LICENCE_HEX,
                  "349 6621459": _X_PHONE},
    "corpus_bk": {"FE8E0A46144DB8D2C428": _X_LINK_TOKEN},
    "corpus_bl": {"Mrs. Abernathy": _X_ANSWER_COLUMN, "Flagstaff": _X_ANSWER_COLUMN,
                  "289447705": _X_BUREAU_SSN, "043815441": _X_BUREAU_SSN,
                  "273273046": _X_BUREAU_SSN,
                  "3467 3086 0442": _X_VOTER_TITLE, "2350 7988 0906": _X_VOTER_TITLE,
                  "7858 6212 0590": _X_VOTER_TITLE, "HJF7r31gr0Z2i7m0f4epUXfa": _X_PASSWORD_APART},
    "corpus_bm": {**dict.fromkeys(("1340", "6658", "8287", "54337", "66883", "0351", "918519",
                                   "9328", "1954"), _X_CODE_APART),
                  "fk_live_X2hhmJR7yAWLttsxpYgFQKg86yKI": _X_VENDOR_KEY,
                  "Bosch&motore17": _X_PASSWORD_APART, "Bosch-776*": _X_PASSWORD_NO_NAME,
                  "=?SnRbF6qYAR3QD": _X_PASSWORD_NO_NAME,
                  "lYLNeC5C": _X_CODE_APART,
                  "6109dac733df8a294dc0a4d140fe2f2c": _X_SESSION_HEADER,
                  "5fb0f22ed1edd868e812374604cd1ff6f92e4fd00b2071d5f241222e5ed7df36": _CSRF,
                  "uE9n-D2PUVYMqnGlbPm30D4ARUqrrQ6i4E8wEq9Xy8D": _X_LINK_TOKEN,
                  "f9ee10be7e77c595f929f58adb926e261a8f64437e7178183de2e8cf371c4513":
                      _X_HEX_SIGNATURE,
                  "YZLn+yDsW52qCdkzNMs+zoaHorI=": _X_HEX_SIGNATURE,
                  "uopb-ol9b-s82c-16i2": _X_CODES_IN_CHAT, "q2wu-q0jr": _X_CODES_IN_CHAT,
                  "750 811 189": _X_PHONE, "0769301743": _X_PHONE, "0621/159 3801": _X_PHONE},
    "corpus_bn": {"(six one five) six seven five nine zero seven eight": _SPOKEN_OTHER},
    "corpus_br": {
        "JOLuMEGD09i:APA91bcA0rXNd6AYlSndlZuRTD3UslFYzSw_r9E48IFLvzZ1HNPw9xlp0PsfmZ-rlMRCIJC7Rqn"
        "05dOhiZQUHyc4Qn6d7TeATdFtkwqF1EPWXu3GXXBMRvQKCSM-RxmXL1Tuh1qxbWFT": _X_PUSH_TOKEN,
        **dict.fromkeys(("1400466639608426", "6839924091561148", "C3Q4HHYA93QL5IZ6"),
                        _X_GIFT_NUMBERS),
        **dict.fromkeys(("350", "475791", "947788", "446193"), _X_CODE_APART),
        **dict.fromkeys(("naxc33", "soleil-sommer44", "lisboa2324", "4_?ZirsiE!h-ZECGAr4L"),
                        _X_PASSWORD_APART)},
    "corpus_bs": {"7653": _X_CODE_APART},
    "corpus_bt": {"0OHU1kxI6QsGF_FqKos--J9j6YGxs8aEabWvgJGBDe9": _X_LINK_TOKEN},
    "corpus_bu": {"accounts@reinholt-auktionen-de": _X_NO_TLD},
    "corpus_bv": {"X3HSEfXEarMpVxP5cr839h17pRgd_WNwRo--sWeze1d": _CSRF,
                  "AloOjz5gQchXzFuYqsV4chl6XlGZejdu": _X_VENDOR_KEY},
    "corpus_bw": {"23361314": _X_TOLD_CODE},
    "corpus_bx": {"s7k940Vz2Rywrj6l0LN74Piux3ys7khOiysI2CzqF6LRcdY6": _X_UNSUBSCRIBE,
                  "WPCKwsP5hTDLI0HsSYmGViaYsTKDUeP4GjL_r3UIuM1InUiS": _X_UNSUBSCRIBE,
                  "d78c7a7c-63f0-45c9-9c28-279f3532bc1f": _X_UUID_LINK,
                  "19cee12e-f32b-4a18-a05a-d89772fcdc1a": _X_UUID_LINK,
                  "937023437": _X_ID_ACROSS},
    "corpus_bz": {"3trb#4FauXps": _X_PASSWORD_APART, "0159 760 51898": _X_PHONE,
                  "X3004941": _X_PASS_ALONE, "6142 250360": _X_ID_ACROSS,
                  "Lindau": _X_ANSWER_APART, "7655": _X_CODE_APART, "95758046319": _X_ID_ACROSS,
                  "XK0NF06YXd2739_SmZ9sXPvxY3eU6uhn": _CSRF},
    "corpus_ci": {**dict.fromkeys(("661126", "429022", "943130"), _X_TOLD_CODE),
                  "G59755820": _X_ID_ACROSS, "72415597000": _X_TC_BARE,
                  "35784405762323": _X_SHORT_ID,
                  **dict.fromkeys(("cfa9f109a85254ad9a99b32c6246dbd1d4a3cfa3",
                                   "4feeb4dc3adab6b84c6fc9746f0fcf29f3383b84",
                                   "a8bb3b1a6e9c621822ed7573768c3979aa19f63c"), _X_SESSION_ID)},
    "corpus_cj": {"65 98373-5837": _X_PHONE},
    "corpus_cl": {**dict.fromkeys(("5c9a26e242ae5ba37c1074fe2d834c5f474bbebc",
                                   "d13cca5e09fdf31dad89f7d5730d140850d80b8f",
                                   "b0650ce5099a2b749d4a45909452bbf683e7fb4b",
                                   "8188d87b44489a39fc882cec24b770fa"), _X_SESSION_ID),
                  "Sunflower_1800?": _X_PASSWORD_APART, "pinguin.falcon96": _X_PASSWORD_APART},
    "corpus_cm": {"TTNL0JC1J5": _X_CELL_WITH_NOTE, "C0K7HPCWF": _X_CELL_WITH_NOTE,
                  "CKZ51K1GW": _X_CELL_WITH_NOTE,
                  **dict.fromkeys(("5385", "285507", "5883", "0307", "1836", "607911", "90890",
                                   "89973"), _X_CODE_APART),
                  "240856-5335": _X_ID_ACROSS, "07866903895": _X_PHONE,
                  **dict.fromkeys(("Tulpe-walnut-1", "Midsommar_14", "sparrow-thistle-walnut-2",
                                   "WalnutViolet", "LanternGranitePebbleHarbour83",
                                   "ThistleWalnutMoulin", "pebble-Kiesel-harbour-Leuchtturm28",
                                   "203Bonjour", "FjordMeadow"), _X_PASSPHRASE_ALONE),
                  **dict.fromkeys(("45991123", "6B7ke#p97%_.S", "Library_393"),
                                  _X_PASSWORD_APART)},
    "corpus_cn": {"1b4UIhfu5vxi6uvY3t5uitlmWObPvycg": _X_VENDOR_KEY,
                  "Lakeview Elementary": _X_ANSWER_COLUMN, "Guadalajara": _X_ANSWER_COLUMN,
"9848607817": _X_PHONE, "064709": _X_CODES_IN_CHAT,
                  "==V$%NQD@fXM5qRMNk": _X_PASSWORD_APART,
                  **dict.fromkeys(("モモ", "Bäckerstraße"), _X_ANSWER_APART)},
    "corpus_co": {"Tundra2972%": _X_PASSWORD_APART, "494220": _X_CODE_APART,
                  **dict.fromkeys(("24a1abc940cf6eb020d302d3eac361405867a3bc",
                                   "9b177ecda9bd9fbba33623a1e50bbfe2",
                                   "a5d3f9b032678efbeaa930336180d465",
                                   "4f3aa4c792fba6d79bd4bc83bceadc1d0d199d60"), _X_SESSION_ID)},
    "corpus_cp": {"lpb7e8xHZDgHH4rLGQB9ea:APA91bLL2M9PSWVYaqtuOjqZzXCNJZBkaAXB-tF6t2tv8aXEC-dgG80"
                  "NtPzTLLuilRhQMGJaBFxekAFCgI0963rejyOJVDfRTGqRukDGx7MELAWCLQeMJgQ-_5uzBnGV_H5V5lj"
                  "2NWszgmPs7hp_W4uU56AFIJ": _X_PUSH_TOKEN,
                  "8826": _X_CODE_APART,
                  "QVBJXzgwMjg2MzQwMTo0d0s2Yll6aldvc1NqVw==": _X_BASE64_HEADER,
                  "VEVDSF8xMzU3Mzg4OTI6RHVZYjRqeDJsUTBPN2U=": _X_BASE64_HEADER},
    "corpus_cq": {"111369769": _X_ID_ACROSS, "526399533": _X_ID_ACROSS,
                  "449718293": _X_ID_ACROSS, "413662780": _X_ID_ACROSS,
                  "ef8cc4c9d00739f51f1add8ba0a3c2eb": _X_SESSION_ID,
                  "421212b587584640c8a27968c0af1c29": _X_SESSION_ID,
                  "071/54.43.22": _X_PHONE, "0032 487 01 76 88": _X_PHONE,
                  **dict.fromkeys(("7434", "6396", "9999", "6555", "2971"), _X_CODE_APART)},
    "corpus_ck": {"9b739940ef3dce04b7c281e368cea630": _X_SESSION_ID,
                  "d17896a319604de6433d87a3d7392565": _X_SESSION_ID,
                  "08fed73aa6ecd0fc27a7f599c9e0f89187a219da": _X_VENDOR_KEY,
                  "6a0afdba95760ac837d0a400f217a2a1e00cb302": _X_VENDOR_KEY,
                  "1800 172 5456": _X_PHONE},
    "corpus_bo": {"534449": _X_TOLD_CODE, "100489": _X_TOLD_CODE, "206913086": _X_BUREAU_SSN,
                  "95Gt05EmQffL56k9hibn2jkP217NW5KU": _X_LINK_TOKEN,
                  "RUJVQ8Fr1nHsRMtSOEgNMjB-TnMV5sE0": _X_LINK_TOKEN},
    "corpus_bp": {"lfsypon0t40GqYVZ5wsyVeX9vLkegABBaBx7RsJ8": _X_SESSION_HEADER,
                  "fREQWa0dtNOwwHctwkHQVX8Kz8OVPrDD7Uid0eG0": _X_SESSION_HEADER,
                  "366 6952948": _X_PHONE, "366 6391673": _X_PHONE},
    "corpus_bq": {"horse-battery-mango-lantern": _X_PASSWORD_NO_NAME,
                  "ak-HDZX9mWzjVGmEQcnJRVtQm": _M_KEY_ID, "ak-WMcQ0G7Yzd4csj7ihPCR5l": _M_KEY_ID},
}

_KNOWN_MISSES_V: dict[str, dict[str, str]] = {
    'corpus_ap': {
        '4045760622': _V_PHONE,
        'JsNtrQJEEEk0dflfq94kPXkY': _V_TOKEN,
        '2794': _V_CODE_OR_SECRET,
        '3263': _V_CODE_OR_SECRET,
        '7849': _V_CODE_OR_SECRET,
        '3461': _V_CODE_OR_SECRET,
        '525015424': _V_ID,
        '980633272': _V_ID,
        'C4792362': _V_ID,
        '2135': _V_CODE_OR_SECRET,
        'TAM6302594': _V_ID,
        'Bigrig97$': _V_PASSWORD,
        'B34014701149788': _V_ID,
        'bobtail?631': _V_PASSWORD,
        '4469': _V_CODE_OR_SECRET,
        '3613': _V_CODE_OR_SECRET,
        'kaur*928': _V_PASSWORD,
        '84-0136773': _V_ID,
        '2 3 9 3': _V_CARD,
        '269081': _V_CODE_OR_SECRET,
        'Sooner62$': _V_PASSWORD,
        '5795': _V_PASSWORD,
        '20-1266744': _V_ID,
        'armadillo': _V_CODE_OR_SECRET,
        '88941034': _V_ID,
        '5982': _V_CODE_OR_SECRET,
        '7585': _V_CODE_OR_SECRET,
        'W055471949': _V_ID,
        'red river crossing': _V_CODE_OR_SECRET,
        '482644665': _V_ID,
        '7 4 9 3': _V_CARD,
        'SYV10114': _V_CODE_OR_SECRET,
        'MDc4NDc4MjAw': _U_ENCODED,
        'E9028 42098 12997': _V_ID,
        'W 128 337 157 203': _V_ID,
        '8619417089': _V_ID,
        'S0947 73635 89000': _V_ID,
        'R555196993': _V_ID,
        '7071388130072810': _V_CARD,
        '6900460460931649': _V_CARD,
        '6900465185085548': _V_CARD,
        'L 525 948 046 758': _V_ID,
        'N18895996': _V_ID,
        '983715924': _V_ID,
        'K6085943': _V_ID,
        'Tigers51#': _V_PASSWORD,
        'mustang!263': _V_PASSWORD,
        '87-7661130': _V_ID,
        '4677': _V_CODE_OR_SECRET,
        '92-3130999': _V_ID,
        'outlaw1971': _V_PASSWORD,
        '8329506284': _V_PHONE,
    },
    'corpus_aq': {
        '35-8606768': _V_ID,
        'Lviv#76bandung': _V_PASSWORD,
        '242443': _V_CODE_OR_SECRET,
        '902034': _V_CODE_OR_SECRET,
        '46-4190674': _V_ID,
        'lantern lantern tundra ocean': _V_PASSWORD,
        'l6uv xzjg k56o tidj': _V_CODE_OR_SECRET,
        '757': _V_CARD,
        '268215': _V_CODE_OR_SECRET,
        '09451783534': _V_PHONE,
        '86672 03245': _V_ID,
        '07064269220': _V_PHONE,
        'rzp_live_I8EjQPNtbEVJB2': _V_KEY,
        'Corinthians': _V_CODE_OR_SECRET,
        '992404': _V_CODE_OR_SECRET,
        '74875348-0001': _V_ID,
        '756 | 27 | 8793': _V_SSN,
        '00.158.439/0001-47': _V_ID,
        '43 044 267 599': _V_ID,
    },
    'corpus_sk': {
        'L06795688398': _V_ID,
        'P6eEG8ZvW79csxjbtz57c-': _V_TOKEN,
        '1492': _V_CODE_OR_SECRET,
        'blue&Delta2657': _V_PASSWORD,
        '175725': _V_CODE_OR_SECRET,
        'n5i2dI-GLg5fFTCihTLHGP455fMCk7rQ': _V_TOKEN,
        '6649280214': _V_PHONE,
        '5541': _V_CODE_OR_SECRET,
        'Gunner66$': _V_PASSWORD,
        '62747CAB5F': _V_CODE_OR_SECRET,
        'BulldogCobalt2019': _V_PASSWORD,
        '2472': _V_CODE_OR_SECRET,
        '317973': _V_CODE_OR_SECRET,
        '8880': _V_CODE_OR_SECRET,
        '4075836862': _V_PHONE,
        '3866': _V_CODE_OR_SECRET,
        '4470': _V_CODE_OR_SECRET,
        '388 7412769': _V_PHONE,
        'Patrol97#': _V_PASSWORD,
        'mustang!Eagle4423': _V_PASSWORD,
        '4R9CSDL5': _V_CODE_OR_SECRET,
        '9728 7333 8131': _V_ID,
        ('eyJuYW1lIjoiT0tBRk9SLCBDSElESSIsImRvYiI6IjE5ODgtMDctMzAiLCJk'
         'bCI6IjU0NDI1NzM0MyIsInN0IjoiTlkifQ=='): _U_ENCODED,
        'WJ4927946': _V_ID,
        'Q 888 157 593 251': _V_ID,
        '531399438': _V_ID,
    },
    'corpus_sl': {
        'ce54c2c87687142c44ee81d2cb0ff9c5d4261053fe349e7347fceb4da6dfcbd2': _V_CODE_OR_SECRET,
        '0657f4db2301efb4343ddc0e8144d8da9c15eddbfdc6b4082a536b9b6803a3cc': _V_CODE_OR_SECRET,
        'du-56712373-9c08-4244-8643-f060b2cf04aa': _V_TOKEN,
        ('eyJ2ZXIiOjEsImlzdSI6lPdcw3ag_KUr3icadqTjBXLhozvRZ6ggsj3oUuKg'
         'C5DAn_kYWCqaIAh1wd0NOoSUEE9nmX4skovbsYNqiZejirXfWJrv5HhSCeUl'
         '4QFASgAW2KS8Bv8P5Tpdttiu1pvfzr9n38zYuchQQPDU0BnzByMS8gBdgoo3'
         'U4UpduQfs1vlD89XLSWd8VmYyo5fsAzbB0Do4jNzhtsCUKMjTLVq36WAH8po'
         'Mv1EncXcuDYIyhDd7LJDHO543tBMDjtQvYBuSXVVooYqiwYPYpGF1eZnr9oU'
         'wyX7j7Yx5PpwksHNo2yUbov2iLmXKhggtkr3V491ppdQ0R7JcpmQjkJI9dzq'
         'GTUc-za_-LqNnr-9dsi2YR5_xelPeTR7UlNIIsPdT1bZ72aU6TwYlpIq4eV2'
         '8aJXCqXuG_3ryrSJXlfP0cHL8ifOhjo8b_ZxarGA0xtEzp2gSh18fN17_sA7'
         'z82YkWC9trYmdWuiD3vHjMGW8UNUDwLDAIKGHT6U59kYzLZ-4olsdkb6IZfc'
         '8ZXwLS1RB_FkI1H3XDH_kHr475p59FwAzTIUH96hmKdy64fQRukkqxJyuxpW'
         'pceLWS5nGy0EUaj6I9Y7zGsSyO5pp4sUr1RTB6JAWxnlj5C5z9vz6LaU4qxQ'
         'rGCKf0BsuDG340yjWT8NFCeP19pq-muu5kSX76nkMtANIHxcCtnCs0yGw1A1'): _V_TOKEN,
        'oGvwgrDw5LeZ!014': _V_PASSWORD,
        'R44wRzso': _V_CODE_OR_SECRET,
        'wbnes6q2epqbprj5aqdhguylydoowkenxbfmhf5mapiroucpq6sv': _V_TOKEN,
        'af140e8273423042a98531cc3c3715e9': _V_CODE_OR_SECRET,
        '3jm5xdjbwkbd4bmnyr3tfb1fqb1dr8q35iphnmdgxu5th7qn': _V_KEY,
        'basalt2001!': _V_PASSWORD,
        'a8169c7b935ca5e407374e160f4efd2c4beaadf0': _V_PASSWORD,
        'cdd3d3df2588667ca67e1a2a6dc24901': _V_CODE_OR_SECRET,
        'cmF2ZW5tb29yLWNpOldpbnRlcjIwMjQh': _U_ENCODED,
        'Winter2024!': _V_PASSWORD,
        'AKIACYTO5TFIXAXIO7ZL': _V_KEY,
        'BD13NLnqec87SE7NRRSDFrdamYb9uZSje6Hb/Ikr': _V_KEY,
        '43582..06399463.013038.3': _V_TOKEN,
        'RZEmPQPXcKq0OJWGpIFG': _V_PASSWORD,
        '5244c2976207b617e33840ab0ca0c5a7': _V_KEY,
        'BPS0bVAo0KvmBR4DqD8wfo4A450PFqowQ5lMuX7FqFczvLoY9qP+/kfi9H0JBKJE': _V_CODE_OR_SECRET,
        'glacierpelican50@': _V_PASSWORD,
    },
    'corpus_tj': {
        'sJB-o8HFXpYXqZglJkJF7E6TdjFJXLPrvZYbLFUCzbJ': _V_TOKEN,
        'marshmallow': _V_PASSWORD,
        'Wildcat 88': _V_PASSWORD,
        'silver maple': _V_PASSWORD,
        'PAPRIKA': _V_PASSWORD,
        '11787D32-779D-4EC6-9C64-A9883AFEE256': _V_TOKEN,
        '34FF6DB9831F9E37832D1F0929': _V_CODE_OR_SECRET,
        'Peppermint': _V_PASSWORD,
        'Zinnia': _V_PASSWORD,
        '9592': _V_CODE_OR_SECRET,
        '1009': _V_CODE_OR_SECRET,
        '9754': _V_CODE_OR_SECRET,
        '6471': _V_CODE_OR_SECRET,
        'envis4Lk': _V_PASSWORD,
        '0522': _V_CODE_OR_SECRET,
        '1158': _V_CODE_OR_SECRET,
        'Sasquatch': _V_PASSWORD,
        'Wacholder': _V_PASSWORD,
        '9032': _V_CODE_OR_SECRET,
        '7716': _V_CODE_OR_SECRET,
        '4126': _V_CODE_OR_SECRET,
        '2792': _V_CODE_OR_SECRET,
        '3252': _V_CODE_OR_SECRET,
        'lighthouse': _V_PASSWORD,
        'Chinook': _V_PASSWORD,
        'tj47Awa2Rz7vZYKj': _V_TOKEN,
        'EOXO650415HMCHSD03': _V_ID,
        '5722': _V_CODE_OR_SECRET,
        '0931': _V_CODE_OR_SECRET,
        '07822790282': _V_PHONE,
        '1697': _V_CODE_OR_SECRET,
        '9574': _V_CODE_OR_SECRET,
        '7022': _V_CODE_OR_SECRET,
        '4674': _V_CODE_OR_SECRET,
        '1931CE96-D111-4920-955B-49CCF8D408AD': _V_TOKEN,
        'tangerine': _V_PASSWORD,
        'Tornado Alley': _V_PASSWORD,
        '8316': _V_CODE_OR_SECRET,
        '4970': _V_CODE_OR_SECRET,
        '2583': _V_CODE_OR_SECRET,
        '6047': _V_CODE_OR_SECRET,
        '7192': _V_CODE_OR_SECRET,
        'KLOMPEN': _V_PASSWORD,
        '51eab45f023a4284441768287177c28c': _V_KEY,
        '3640': _V_CODE_OR_SECRET,
        '7516': _V_CODE_OR_SECRET,
        '9196622075': _V_PHONE,
        '287222': _V_CODE_OR_SECRET,
        'Buckeye Nation': _V_PASSWORD,
        '5608': _V_CODE_OR_SECRET,
        '5664': _V_CODE_OR_SECRET,
        'DolphinHarbor8': _V_PASSWORD,
        'Mr. Whiskers': _V_CODE_OR_SECRET,
        '931737': _V_CODE_OR_SECRET,
        '7876': _V_CODE_OR_SECRET,

        ('fsDyOBCQi2MiZ0fLuyk_19Bn75Vh1kvsBc1rlxSJBYG84rlyWGL141xPnqXG'
         'E6hRIryUhkAOBjerPO9mYUYhXM'): _V_TOKEN,
        'pineapple express': _V_PASSWORD,
        '6816': _V_CODE_OR_SECRET,
        'pelican-bailey-oakwood-92': _V_CODE_OR_SECRET,
        'Vesuvio': _V_PASSWORD,
        '0374': _V_CODE_OR_SECRET,
        'Marronnier': _V_PASSWORD,
        '6244': _V_CODE_OR_SECRET,
        '4054': _V_CODE_OR_SECRET,
        '4881': _V_CODE_OR_SECRET,
        '6836': _V_CODE_OR_SECRET,
        '9233': _V_CODE_OR_SECRET,
        '2141': _V_CODE_OR_SECRET,
        'Gooseberry': _V_PASSWORD,
        '5156': _V_CODE_OR_SECRET,
        '8 0 9 3': _V_CODE_OR_SECRET,
        'TANGERINE': _V_PASSWORD,
        '1058': _V_CODE_OR_SECRET,
        'acorn': _V_PASSWORD,
        'chestnut 22': _V_PASSWORD,
        '2FAEF64AC9AE02DDEF75CFDDDBC8335ED6FEBB889B17B2E6626C654CEEBDFD24': _V_CODE_OR_SECRET,
        'BURSZTYN': _V_PASSWORD,
        '237 656 957': _V_ID,
    },
    'corpus_tk': {
        '770': _V_CARD,
        '956-98-0324': _V_ID,
        '056208': _V_CODE_OR_SECRET,
        'NDI0NzYwMzYz': _U_ENCODED,
        'Laredo': _V_CODE_OR_SECRET,
        'ur8rynq7QDV5oMFRVZ7wxRvHjzr8SA1t': _V_TOKEN,
        'Shadow$973c': _V_PASSWORD,
        'LuhkFtgupv': _V_TOKEN,
        '079242202': _V_SSN,
        'Peaches582@': _V_PASSWORD,
        '0064752809': _V_CODE_OR_SECRET,
        '557036': _V_CODE_OR_SECRET,
        '989305': _V_CODE_OR_SECRET,
        '1741': _V_CODE_OR_SECRET,
        'EQVUNM': _V_CODE_OR_SECRET,
        '897993': _V_CODE_OR_SECRET,
        '145398': _V_CODE_OR_SECRET,
        '226215352': _V_SSN,
        '7134470416': _V_PHONE,
        '59787927': _V_ID,
    },
}


_CR_KEY_ID = ("a Backblaze B2 application key's id (printed beside its key, and rclone's "
              "account =): the key's public half, left as other key ids are")
_CR_HEX_SESSION = ("a hex session id in a JSON or key=value log (sess=, session_id, geoSession, "
                   "Pi-hole's sid): an analytics session's id reads the same, left")
_CR_PHONE_AFTER_MISMATCH = ("a phone after 'message=' on a line that names a phone earlier "
                            "('phone mismatch ... directory=<none> message=...')")
_CR_WORDS_BETWEEN = ("a code or a PIN told with no word for it beside it ('وصلني رمز 987320 من "
                     "البنك', 'second door 8478', 'New engineer code 73839008', Egyptian Arabic's "
                     "'كان 9856 ولا 1994')")
_CR_PHONE_UNNAMED = ("a phone after a name or a word the detectors do not read as naming one "
                     "(Tagalog's 'number niya', Urdu's 'میرا نمبر', 'Agent: Priya Iyer 83207 "
                     "37443')")
_CR_ID_AS_LOGIN = ("a national id typed as a login (a password manager's username column) or "
                   "after a question ('tu DNI, ¿es este? 27155702Q')")
_CR_UUID_SECRET = ("a secret that is a UUID (Proxmox Backup Server's token secret after Czech's "
                   "'tajemství', GoCardless' secret id): a UUID reads as an id")
_CR_ACCOUNT_NUMBER = "Mullvad's account number under 'Account number:' (a generic name)"
_CR_PASSWORD_TOLD_LATER = ("a password told after a command and a verb ('l'ho impostata con "
                           "pihole -a -p e adesso è Saturn1976*')")

_CX_SPANISH_MOBILE = ("a Spanish mobile grouped three by three after a name and a '·' (no word "
                      "for a phone; nine digits so grouped read as other numbers too)")
_CX_PHONE_IN_BRACKETS = ("a phone in brackets after a name ('Fleur Jansen (06 68 527 719)', "
                         "'Cliente (313 1911805): es 5422'), or before the word for it in "
                         "Azerbaijani ('(10) 950-55-58 nömrəsi')")
_CX_ANSWER_IS_NAME = ("a security answer that is also the caller's surname in the same note: "
                      "its other mention is a name, not the secret")
_CX_BANK_TOKEN = ("a bank token's code told in a chat with other words between ('el token "
                  "digital me da 44054530', 'me pidió un código y le di 923898')")
_KNOWN_MISSES_CX: dict[str, dict[str, str]] = {
    "corpus_cx": {
        **dict.fromkeys(("669 328 548", "678 049 448", "668 627 182"), _CX_SPANISH_MOBILE),
        "06 68 527 719": _CX_PHONE_IN_BRACKETS,
        **dict.fromkeys(("3Ve-shv3r7A60fFq3DmN0KQ_jPJHri_j",
                         "24a1da09a803606cdab0c6781763b567e32da67e"), _X_LINK_TOKEN),
        **dict.fromkeys(("0dcbab75dcc69cdf0763597a1483e794", "2e160f8d0c433a21f65348d550eff5dd"),
                        _CR_HEX_SESSION),
        **dict.fromkeys(("6549", "694170"), _CR_WORDS_BETWEEN),
    },
    "corpus_cz": {"914 800 014": _CX_SPANISH_MOBILE},
    "corpus_di": {
        "2325f1ef1afa252f7fb1b51b95dad3e2": _CR_HEX_SESSION,
        "Karaca": _CX_ANSWER_IS_NAME,
    },
    "corpus_dj": {
        **dict.fromkeys(("281ecff64fed948078dfa100eaca37e5bbc0c8faae70a4efc093839d6307028c",
                         "487a354d0dd2fcdecb326ca0a458be7364b33d1ae5757d02b6ded6bedd3ca70b"),
                        _X_LINK_TOKEN),
        "967213977": _CR_PHONE_UNNAMED,
        **dict.fromkeys(("008790", "7955"), _CR_WORDS_BETWEEN),
    },
    "corpus_dk": {
        **dict.fromkeys(("313 1911805", "320 108 0099", "2292694022"), _CX_PHONE_IN_BRACKETS),
        **dict.fromkeys(("5422", "7005", "7858"), _CR_WORDS_BETWEEN),
        **dict.fromkeys(("923898", "753868", "820764", "28990323", "44054530"), _CX_BANK_TOKEN),
        "defb699322cb4988817f4e8b184c66e6": _CR_HEX_SESSION,
    },
}

_DL_GENERIC_ID = ("Israel's teudat zehut under a bare 'ID' (a patient's, a chat's 'My name is X, "
                  "ID ...'): nine digits whose check one number in ten passes")
_DL_ENCODED_ID = "an id in base64 under a key of its own ('uid_b64=MDE3MjgzNDgy')"
_DL_PIN_IN_BRACKETS = "a PIN read out in brackets after its name ('the PIN on the call (053750)')"
_DM_UA_ID = ("Ukraine's RNOKPP under a bank statement's key or a form's other name, or an id "
             "card's number under doc_number, whose checks the corpus's values fail or lack")
_DM_SIM_CODES = "a SIM's PUK or a till's PIN told with words or a card's number between"
_DQ_BARE_MOBILE = ("a mobile's digits alone after a generic label ('Primary:', 'Contact:' in a "
                   "script the detectors do not read) or in a list: ten digits read as other "
                   "numbers too")
_DQ_SHORT_CODE = "a code of three or four digits told in a QA transcript with words between"
_DO_BAD_CHECK = "a Nordic person's number whose check or date the corpus's value fails"

_KNOWN_MISSES_DL: dict[str, dict[str, str]] = {
    "corpus_dl": {
        **dict.fromkeys(("115246233", "346284326", "216907998", "037893443", "011054681",
                         "217375823"), _DL_GENERIC_ID),
        **dict.fromkeys(("188125454", "387563877", "146849849"), _X_ID_ACROSS),
        **dict.fromkeys(("0509817690", "0505138295"), _CR_PHONE_UNNAMED),
        **dict.fromkeys(("MDE3MjgzNDgy", "MjQyMjcyMDc4", "MzM3MTMwNDEz"), _DL_ENCODED_ID),
        **dict.fromkeys(("053750", "0580", "201429"), _DL_PIN_IN_BRACKETS),
    },
    "corpus_dm": {
        **dict.fromkeys(("3697268341", "2795873962", "2658742811", "3784862189", "001895113",
                         "003611918", "007791773"), _DM_UA_ID),
        **dict.fromkeys(("380504868541",), _CR_PHONE_UNNAMED),
        **dict.fromkeys(("7542", "4413344240", "8187", "47060221", "6114007921", "5684621936"),
                        _DM_SIM_CODES),
    },
    "corpus_do": {
        **dict.fromkeys(("5522", "0261", "6646"), _CR_WORDS_BETWEEN),
        **dict.fromkeys(("260153-5905", "281291-8687"), _DO_BAD_CHECK),
    },
    "corpus_dp": dict.fromkeys(("dAYJUH7ocG!38", "JO2ehCdiQa#22"), _X_PASSWORD_APART),
    "corpus_dq": {
        **dict.fromkeys(("8703", "015", "273118", "8522"), _DQ_SHORT_CODE),
        **dict.fromkeys(("7569525786", "09984001195", "09276557148", "06017041901",
                         "7269925055", "06312532911", "6848648730", "7933940334",
                         "8744071590"), _DQ_BARE_MOBILE),
    },
}

_KNOWN_MISSES_CR: dict[str, dict[str, str]] = {
    "corpus_cr": dict.fromkeys(("2156093347", "7133250588"), _CR_PHONE_AFTER_MISMATCH),
    "corpus_cs": {
        **dict.fromkeys(("9856", "1994", "987320"), _CR_WORDS_BETWEEN),
        "OVjYfSevkgsWUA6SKUnN91:APA91bDvME1dK54x-3buIhNprpeblOohE-QTlz0KEESJ93BZbw9uy0IJkdcW9UZQw-"
        "jCa0wXuFFFAdMY_ssoJ2PY91kimdvFPqJZu1huXeUSiaoutdtei_q7hb5La48JU6ltnmRO3Ld1": _X_PUSH_TOKEN,
    },
    "corpus_ct": dict.fromkeys(
        ("107f7ed5d5845bfd8bf9dc6426a0ba59", "2f1c20d9fa24a3da0eae5915006564fe",
         "b7dc50d4ea8797e18940f387d012823c0032185a", "19cc927b5852c4c2a6a6e3ef5a1537723472fcc3"),
        _CR_HEX_SESSION),
    "corpus_cu": {
        **dict.fromkeys(("00519d85b61a2874d8a8e59b1", "00545b56ffb9c04a3acf56af6"), _CR_KEY_ID),
        **dict.fromkeys(("28088148500", "27155702Q"), _CR_ID_AS_LOGIN),
        **dict.fromkeys(("a5126f8e-f440-4689-a463-82130abdb6ca",
                         "420ebade-d093-499e-afb1-a201ed130535"), _CR_UUID_SECRET),
        "5982262896128986": _CR_ACCOUNT_NUMBER,
        "1d1314ee00b38daede3cf2bc340896d1": _CR_HEX_SESSION,
        "d6dVhwhWTa676FrvCUhPaodhU8XwbBaxmRxoqkcPzPsMjNo4": _CSRF,
        "Saturn1976*": _CR_PASSWORD_TOLD_LATER,
    },
    "corpus_cv": {
        "83207 37443": _CR_PHONE_UNNAMED,
        **dict.fromkeys(("73839008", "8478"), _CR_WORDS_BETWEEN),
        **dict.fromkeys(("e4b56946da1fe414eab14b87477fd50476fabd0f1b3852716b52aa5e8f428e47",
                         "ec5ef73fa6724d6fbb736d2ebfef59bcf78c6347481bc4a01f6e513d7b417237"),
                        _CR_HEX_SESSION),
    },
}

# Corpora DR to DW (Italy and Spain; France, Belgium, Switzerland and the Maghreb; Central
# Europe; Pakistan, Bangladesh, Sri Lanka and Nepal; Iran, Afghanistan and Central Asia;
# German- and Dutch-speaking Europe), held out against 23b9436, then mended.
_DR_PHONE_UNNAMED = ("a mobile after words no phone word covers ('Avvisare al ritiro:', 'Numero "
                     "da portare:', 'eSewa ID ... मा', 'Telefoon voor verificatie:' before "
                     "'06 - ...', a caller in a chat's next line)")
_DR_DOOR_CODE = ("a door's, gate's or alarm's code told with its name apart ('il codice 69390 "
                 "sul tastierino', 'Tiefgarage Tor:', 'alarm: 8741 + OFF', a Cyrillic letter "
                 "inside it, '504К9368')")
_DR_NSS_SLASHES = "Spain's social security number written 46/87205527-45 with no name before it"
_DR_OLD_CARD = ("Italy's paper identity card (two letters, seven digits) after 'documento' "
                "words the id detectors do not name")
_DR_CAN = "the six-digit CAN printed on Italy's electronic identity card, with no word for it"
_DR_PASSWORD_PROSE = ("a password in a chat's sentence ('la password del db ... è X', 'admin / "
                      "X', 'si c'est X ou pas mon mdp'): no shape tells it")
_DR_LINK_TOKEN = "a download link's token (?tk=): a link token, as others are left"
_DR_HU_PHONE = ("Hungary's numbers as its texts write them (06 30 426 7532, 06503183354) with "
                "the word for a phone after them or none")
_DR_PIN_TOLD = ("a PIN told with words between its name and it ('PIN ke kartě do bankomatu "
                "3841', 'die neue PIN habe ich auf 871421 gesetzt')")
_DR_BOK = "Slovakia's eID security code (BOK) told with no verb before it ('nový BOK 957576')"
_DR_NIP_BESIDE_PESEL = "a NIP after 'NIP / numer PESEL': read as the PESEL the name ends with"
_DR_CODE_AFTER_AMOUNT = "a one-time code after an amount and its currency ('na kwote ... PLN:')"
_DR_ID_AFTER_ID = "Nepal's citizenship number after a bare 'ID'"
_DR_CODE_AFTER_PASSWORD = ("a code after 'code for ... password reset is': the password's word "
                           "between")
_DR_NEPAL_PAN = "Nepal's nine-digit PAN in a column headed PAN: no check digit to tell it by"
_DR_BD_NID_COLUMN = ("Bangladesh's NID (10, 13 or 17 digits, no check digit) under "
                     "nid_birth_reg")
_DR_BENEFICIARY_ID = "a remittance's 'Beneficiary ID' column: a header naming no document"
_DR_SALT = "a payment gateway's integrity salt under its key (JAZZCASH_INTEGRITY_SALT=)"
_DR_CODE_IN_CHAT = "a code quoted in a pasted chat's next line ('\"ok, code 557652\"')"
_DR_PINFL_CHECK = ("a PINFL in a CSV column whose check digit fails (the corpus generator's): "
                   "the column asks for a valid one")
_DR_EAN = ("a product's EAN-13 in a column headed EAN: a shape the detectors read as an id or "
           "a card (a column's header does not clear a shape)")
_DR_KAFKA_KEY = "a Kafka record's key (26 base32 characters) under key=, read as a secret"
_DR_DINERS_PARCEL = "a parcel's 14 digits passing Luhn with a Diners Club prefix"
_DR_RECEIPT_PHONE = "a receipt's number opening with 00 and a country code, read as a phone"

_KNOWN_MISSES_DR: dict[str, dict[str, str]] = {
    "corpus_dr": {
        "324 0073914": _DR_PHONE_UNNAMED,
        "69390": _DR_DOOR_CODE,
        "46/87205527-45": _DR_NSS_SLASHES,
        "AV6766445": _DR_OLD_CARD,
        "AU1863936": _DR_OLD_CARD,
        "198728": _DR_CAN,
        "958225": _DR_CAN,
        "tesoro-dragon-girona-79": _DR_PASSWORD_PROSE,
        "1663": _DR_DOOR_CODE,
        "555969": _DR_DOOR_CODE,
        "Gir4s0l3%%": _DR_PASSWORD_PROSE,
        "411805": _DR_CAN,
        "Fs_HrtP1x0uApRQb7D__GKawt1IPjx37FTgcQQWEdss8": _DR_LINK_TOKEN,
        "AY4101241": _DR_OLD_CARD,
        "3287653948": _DR_PHONE_UNNAMED,
    },
    "corpus_ds": {
        "Sfax3000!": _DR_PASSWORD_PROSE,
    },
    "corpus_dt": {
        "06 30 426 7532": _DR_HU_PHONE,
        "3841": _DR_PIN_TOLD,
        "957576": _DR_BOK,
        "5749": _DR_BOK,
        "927230": _DR_BOK,
        "8741": _DR_DOOR_CODE,
        "0635": _DR_BOK,
        "5211725524": _DR_NIP_BESIDE_PESEL,
        "piesek-lipa-macka-58": _DR_PASSWORD_PROSE,
        "9994": _DR_PIN_TOLD,
        "737 495 275": _DR_PIN_TOLD,
        "6298": _DR_PIN_TOLD,
        "062799": _DR_CODE_AFTER_AMOUNT,
        "06 31 414 5167": _DR_HU_PHONE,
        "06 31 395 1158": _DR_HU_PHONE,
        "06503183354": _DR_HU_PHONE,
    },
    "corpus_du": {
        "9744355714": _DR_PHONE_UNNAMED,
        "9861": _DR_CODE_AFTER_PASSWORD,
        "647851818": _DR_NEPAL_PAN,
        "556341492": _DR_NEPAL_PAN,
        "ow0xtj4e4k": _DR_SALT,
        "752ei49jce": _DR_SALT,
        "1538264213": _DR_BD_NID_COLUMN,
        "7619858934": _DR_BD_NID_COLUMN,
        "20022640718913976": _DR_BD_NID_COLUMN,
        "346178345": _DR_NEPAL_PAN,
        "215160249": _DR_NEPAL_PAN,
        "1960": _DR_CODE_AFTER_PASSWORD,
        "138e8z2r8t": _DR_SALT,
        "20003088835385227": _DR_BD_NID_COLUMN,
        "7679282771": _DR_BD_NID_COLUMN,
        "2735671448": _DR_BD_NID_COLUMN,
        "4102932626": _DR_BENEFICIARY_ID,
        "4010104179": _DR_BENEFICIARY_ID,
        "557652": _DR_CODE_IN_CHAT,
    },
    "corpus_dv": {
        "32105753050333": _DR_PINFL_CHECK,
        "30912993018409": _DR_PINFL_CHECK,
        "31911723119628": _DR_PINFL_CHECK,
        "504К9368": _DR_DOOR_CODE,
        "819К1032": _DR_DOOR_CODE,
        "40810823022439": _DR_PINFL_CHECK,
        "30803643014017": _DR_PINFL_CHECK,
        "40701773236516": _DR_PINFL_CHECK,
    },
    "corpus_dw": {
        "06 - 12148776": _DR_PHONE_UNNAMED,
        "871421": _DR_PIN_TOLD,
        "681211": _DR_PIN_TOLD,
        "6966": _DR_DOOR_CODE,
        "4842": _DR_DOOR_CODE,
        "1163": _DR_DOOR_CODE,
    },
}

# Corpora DX to EK (the Andes and the southern cone; Central America and the Caribbean; the
# Levant and Iraq; the Horn of Africa and Sudan; Russia and Belarus; Ireland and the UK's
# nations), held out against 742e5e7, then mended.
_DX_TOLD_IN_CHAT = ("a value told in a chat's or a call transcript's reply, its name on another "
                    "line or none ('es el 32249531', '👤 0961295526', 'ya me llegó es 238965', "
                    "'PIN-kayguna waa 3907', a USSD session's input before '(PIN)')")
_DX_ID_COLUMN = ("an id without a check digit in a column whose header names no document "
                 "(documento, id_number) or with a check that fails")
_DX_ID_IN_URL = "an id as a path segment or a query's doc= with no check it passes"
_DX_ID_UNNAMED = ("an id after words the detectors do not read as its name (a bare 'ID:' or "
                  "'ID card no:', Fayda's kebele form, a student portal's id, a Lebanese id "
                  "after 'Bado ID', a pension number, a Puerto Rico MPI)")
_DX_CODE_APART = ("a one-time code or PIN with an amount, a card's last digits or other words "
                  "between its name and it (Arabic's 'رمز التحقق ... بمبلغ ... هو', Kurmanji's "
                  "'Koda te ... 5117', a PUK after 'jarrabt', Oromo's 'Koodiin mirkaneessaa')")
_DX_PASSWORD_NAMED_APART = ("a password whose name stands words away ('Clave de acceso "
                            "Marangatu:', 'la ultima clave que use fue', an SMS's 'Ваш пароль "
                            "для lk.megafon.ru:', a Somali SMS's reply)")
_DX_ANSWER_TOLD = ("a security answer or code word told after a dash or in a caller's words "
                   "('Кодовое слово — Мурзик', 'бабушка Нина', 'Favourite team: ...')")
_DX_OMS = ("a 16-digit ОМС policy number the generator made to pass a card's Luhn check too: "
           "read as neither")
_DX_INVOICE_BUYER = "a buyer's RUC inside an e-invoice's XML element (identificacionComprador)"
_DX_DOC_CIPHER = "a help text's cipher name after 'cifrada con', read as the password it names"
_DX_CHECKSUM = "a migration's checksum after 'checksum:' read as an id"
_DX_MTCN = ("a money transfer's control number (MTCN): who holds it, with the receiver's "
            "name, collects the money (corpus EU labels it a secret)")
_DX_TXN = "a transaction's or a statement's reference of 00 and twelve digits, read as a phone"
_DX_ICCID = "SIM ICCIDs in a warehouse's batch file: the policy redacts ICCIDs on purpose"
_DX_COMPANY_INN = "a company's INN (ten digits) under owner_inn, read as a person's"

_KNOWN_MISSES_DX: dict[str, dict[str, str]] = {
    "corpus_dx": {
        "inti8094": _DX_PASSWORD_NAMED_APART,
        "933798447": _DR_PHONE_UNNAMED,
        "0399": _DR_DOOR_CODE,
        "820697": _DX_CODE_APART,
        "2049591668001": _DX_INVOICE_BUYER,
        "9120": _DX_TOLD_IN_CHAT,
        "274858": _DX_CODE_APART,
        "961270297": _DX_TOLD_IN_CHAT,
        "946 434 906": _DX_TOLD_IN_CHAT,
        "1401737703001": _DX_INVOICE_BUYER,
        "1.249.474": _DX_ID_IN_URL,
        "57047021": _DX_ID_IN_URL,
        "508638": _DX_CODE_APART,
        "65800663": _DR_PHONE_UNNAMED,
        "8725": _DX_TOLD_IN_CHAT,
        "V- 14.148.505": _DX_ID_COLUMN,
        "911214840": _DX_TOLD_IN_CHAT,
        "932 557 772": _DX_TOLD_IN_CHAT,
        "V- 10.344.297": _DX_ID_COLUMN,
        "33205543": _DX_ID_IN_URL,
        "79239252": _DR_PHONE_UNNAMED,
        "2937": _DR_DOOR_CODE,
        "0984139971": _DR_PHONE_UNNAMED,
        "1019798147001": _DX_INVOICE_BUYER,
        "8583921": _DX_ID_UNNAMED,
        "79215486": _DR_PHONE_UNNAMED,
        "valentina768": _DX_PASSWORD_NAMED_APART,
        "oruro098": _DX_PASSWORD_NAMED_APART,
        "18862234": _DX_ID_IN_URL,
        "6998": _DX_TOLD_IN_CHAT,
        "0972270498": _DR_PHONE_UNNAMED,
        "952 606 007": _DX_TOLD_IN_CHAT,
        "misti3320": _DX_PASSWORD_NAMED_APART,
        "9687": _DR_DOOR_CODE,
    },
    "corpus_dy": {
        "22370053732": _DX_ID_IN_URL,
        "5706": _DX_TOLD_IN_CHAT,
        "0053007108799": _DX_ID_UNNAMED,
        "POQR_kyxjr*01": _DX_PASSWORD_NAMED_APART,
        "819050": _DX_TOLD_IN_CHAT,
        "4696": _DX_TOLD_IN_CHAT,
        "157085": _DX_TOLD_IN_CHAT,
        "02843954740": _DX_ID_IN_URL,
        "8694-8353": _DR_PHONE_UNNAMED,
        "22513157937": _DX_ID_IN_URL,
    },
    "corpus_dz": {
        "٤٢٣٥٦٨": _DX_CODE_APART,
        "٠٠٢٣٧١": _DX_CODE_APART,
        "25c3e1d1764f04e99c882723451cb26814dd4517a3ff2deabe3421edb3fe525f": _WEBHOOK_SIGNATURE,
        "c4a945ad6f450299d295de3497edab60c0c20427287b6f45275dafe8555d9e6d": _WEBHOOK_SIGNATURE,
        "09345381373": _DX_ID_UNNAMED,
        "١٥٥٦٢٤": _DX_CODE_APART,
        "458557758": _DX_ID_UNNAMED,
        "٩٤٣٢٥٣١٠٤": _DX_ID_UNNAMED,
        "٢٨٠٨٤٥": _DR_DOOR_CODE,
        "427101068": _DX_ID_UNNAMED,
        "00fd5a69da2e30e4e7507708cc10fd4f7d777438d3c8896798fec1753fccd197": _WEBHOOK_SIGNATURE,
        "861427284": _DX_ID_UNNAMED,
        "٥٧٨٤٩٩": _DR_DOOR_CODE,
        "000468415990": _DX_ID_UNNAMED,
        "76-281516": _DR_PHONE_UNNAMED,
        "078 023 2079": _DR_PHONE_UNNAMED,
        "408885457": _DX_ID_UNNAMED,
        "0fec4c6b2c83d19b296e60194bd9c445749dfd2500c908bc0e94bde5a6690cc3": _WEBHOOK_SIGNATURE,
        "NHI-٩٠٧٧٢٨٥٦": _DX_ID_UNNAMED,
        "04836200477": _DX_ID_UNNAMED,
        "000890869282": _DX_ID_UNNAMED,
        "767123": _DR_DOOR_CODE,
        "5117": _DX_CODE_APART,
        "79088398": _DR_PHONE_UNNAMED,
        "317172491": _DX_ID_UNNAMED,
        "000305660378": _DX_ID_UNNAMED,
        "٦٣١٢٢٨٨٦٤": _DX_ID_UNNAMED,
        "١٩٨٦٠٨": _DX_CODE_APART,
        "849181870": _DX_ID_UNNAMED,
        "078 755 0506": _DR_PHONE_UNNAMED,
        "١٦٨٠٣٥٥٥٥٨٢٩": _DX_ID_UNNAMED,
        "٠٢٧٨٦١٨٥٧٠٥": _DX_ID_UNNAMED,
        "949927032": _DX_ID_UNNAMED,
        "146064": _DX_CODE_APART,
        "N735022199": _DX_ID_UNNAMED,
        "959315540": _DX_ID_UNNAMED,
        "806372575": _DX_ID_UNNAMED,
        "0783815311": _DR_PHONE_UNNAMED,
        "996410924": _DX_ID_UNNAMED,
        "76 287 255": _DR_PHONE_UNNAMED,
        "0780795337": _DR_PHONE_UNNAMED,
        "٣١٤٦٦٦": _DX_CODE_APART,
        "171741210070": _DX_ID_UNNAMED,
        "07506805340": _DR_PHONE_UNNAMED,
        "3289054189": _DX_ID_UNNAMED,
        "١٧٣٤٣٩٦٨٤٤٣٣": _DX_ID_UNNAMED,
        "٠٧٨٢٧٠٢٩٤٧٥": _DR_PHONE_UNNAMED,
        "٦٧٠٧١٩": _DX_CODE_APART,
        "978762136": _DX_ID_UNNAMED,
    },
    "corpus_ei": {
        "HargeisaAsmara4!": _DX_PASSWORD_NAMED_APART,
        "6222172003": _DX_ID_UNNAMED,
        "3907": _DX_TOLD_IN_CHAT,
        "5673": _DX_TOLD_IN_CHAT,
        "ቀ/20/770297": _DX_ID_UNNAMED,
        "0680426034": _DR_PHONE_UNNAMED,
        "8658": _DX_TOLD_IN_CHAT,
        "0937083616": _DX_TOLD_IN_CHAT,
        "0033": _DX_TOLD_IN_CHAT,
        "8662376569": _DX_ID_UNNAMED,
        "harar_harar38": _DX_PASSWORD_NAMED_APART,
        "4336507": _DX_ID_UNNAMED,
        "9886166": _DX_ID_UNNAMED,
        "15993071972": _DX_ID_COLUMN,
        "0947640920": _DX_TOLD_IN_CHAT,
        "4078": _DX_TOLD_IN_CHAT,
        "ቀ/13/110445": _DX_ID_UNNAMED,
        "889616833743": _DX_ID_COLUMN,
        "705388706171": _DX_ID_COLUMN,
        "8238481763": _DX_ID_UNNAMED,
        "3832517": _DX_ID_UNNAMED,
        "207287": _DX_CODE_APART,
        "12/41178/14": _DX_ID_UNNAMED,
        "4142367": _DX_ID_UNNAMED,
        "4572": _DX_TOLD_IN_CHAT,
        "0617730925": _DX_TOLD_IN_CHAT,
        "axum_abeba21": _DX_PASSWORD_NAMED_APART,
        "mogadishu_massawa8": _DX_PASSWORD_NAMED_APART,
        "0923078318": _DX_TOLD_IN_CHAT,
        "5897": _DX_TOLD_IN_CHAT,
        "14880399811": _DX_ID_COLUMN,
    },
    "corpus_ej": {
        "23268": _DX_CODE_APART,
        "Мурзик": _DX_ANSWER_TOLD,
        "knJshz": _DX_PASSWORD_NAMED_APART,
        "5245": _DR_DOOR_CODE,
        "бабушка Нина": _DX_ANSWER_TOLD,
        "NN6P0H": _DX_PASSWORD_NAMED_APART,
        "7122": _DR_DOOR_CODE,
        "66221": _DX_CODE_APART,
        "7720524023749727": _DX_OMS,
        "0798": _DR_DOOR_CODE,
        "9438": _DR_DOOR_CODE,
        "6207": _DX_CODE_APART,
        "0210625943580589": _DX_OMS,
        "1627 1909 9513 2461": _DX_OMS,
        "wutljfij": _DX_PASSWORD_NAMED_APART,
        "9251": _DR_DOOR_CODE,
    },
    "corpus_ek": {
        "St Brigid's NS": _DX_ANSWER_TOLD,
        "3943175W": _DX_ID_UNNAMED,
        "9883826K": _DX_ID_UNNAMED,
        "799668": _DX_CODE_APART,
        "07771472587": _DR_PHONE_UNNAMED,
    },
}

# Corpora EL to EQ (the Gulf states; West Africa; East and Southern Africa; South-East Europe
# and the Black Sea; the Nordics and the Baltics; maritime South-East Asia), held out against
# bc26333, then mended.
_EL_SIGNATURE = ("a webhook's, a payment callback's or an e-identity's signature (X-Nafath-"
                 "Signature, x-tabby-signature, x-paystack-signature, Paymongo's, a BankID "
                 "completion's): it signs one message, left as every corpus's are")
_EL_ID_UNNAMED = ("an id under a name that names no document: a portal's userId or user=, an "
                  "application's idNumber, a remittance's 'Sender ID', a FHIR identifier's "
                  "value, an audit log's subject=, an insurance card's number, an 'ssn' key's "
                  "Estonian code, a HETU or a fødselsnummer after a person's name")
_EL_PUSH_TOKEN = "a device's push token (FCM) in a crash report's breadcrumbs, under no key"
_EL_FORM_TOKEN = "a hidden form field's token under a name that names no secret (__profile)"
_EL_PHONE_UNNAMED = ("a phone number with no word for a phone before it: 'queued for', an "
                     "otpTarget, 'X pa rin number ko' (its words after it), 'or me X', a "
                     "contributions list's rows, a receipt's or a parcel label's lines, a CV's "
                     "header, a wallet's account number")
_EL_ENCODED = ("a name percent-encoded in a query (names are no kind), or a base64 payload in a "
               "log's payload= or a URL's d= whose decoded fields carry no name of a kind")
_EL_PASSWORD_APART = ("a password named words away in Tagalog ('password ng Facebook ko pala X') "
                      "or under a Greek table's 'Κωδικός' (code: a price list's column too)")
_EL_RU_PASSPORT = ("a Russian passport's series and number (2 and 7 digits) under a Turkish "
                   "form's or a hotel's field")
_EL_IPV6_PREFIX = ("a public IPv6 prefix written as a network (Framed-IPv6-Prefix=...::/64): "
                   "networks are kept, as CIDR blocks are")
_EL_KEY_VALUE = "an API key as a log's value= after key=x-api-key (the key's name is a value)"
_EL_ACCESS_ID = "a transit API's access id (accessId, access_id): an identifier by its name"
_EL_TEST_PIN = "a documented test card's PIN (0000) in a payment API's example request"
_EL_BENIN_NPI = "Benin's NPI after its name: 'NPI' and ten digits is a US provider's number"
_EL_TIN_COLUMN = ("a Nigerian TIN (ten digits, no check) under a 'tin' column: read under that "
                  "name only with a check")
_EL_ID_COLUMN = "Rwanda's id unspaced (16 digits, no check) under an 'id_no' column"
_EL_SPOKEN_SWAHILI = ("a phone number said in Swahili's number words (sifuri saba ...): the "
                      "spoken reading knows eight languages' words")
_EL_XML_TURNS = ("a reply inside an XML transcript's <turn speaker=...> elements: the "
                 "conversation reading reads lines that open with their speaker")
_EL_TIMESTAMP_ID = ("a migration log's timestamps after a column's name (national_id_hash), "
                    "their digits passing a country's check")
_EL_AUTH_CODE = ("a card receipt's authorization code ('Auth code: 771648', 'ONAY KODU'), read "
                 "as a one-time code")
_EL_USSD_SESSION = ("a USSD gateway's session id (ATUid_...) under session_id, read as a web "
                    "session's")
_EL_COMPANY_ID = ("a firm's tax number on its receipt or invoice (Greece's ΑΦΜ, Moldova's IDNO, "
                  "the Philippines' and Malaysia's TIN): a person's has the same shape and check")

_ER_SIGNATURE = ("a webhook's or a payment callback's signature or secure hash (X-IPN-Signature, "
                 "Stripe-Signature, X-Culqi-Signature, X-Remitly-Signature, JazzCash's "
                 "pp_SecureHash): it signs one message, left as every corpus's are")
_ER_UUID_KEY = ("a payment gateway's key as a UUID (Fawry's security_key, ZarinPal's merchant "
                "id): a UUID under a key is read as an identifier, as most are")
_ER_CSRF = "a CSRF token inside a Redis session's JSON: a forgery guard, left as everywhere"
_ER_CODES_UNNAMED = ("recovery codes after an audit event's 'codes shown:' (its event's name, "
                     "MFA_RECOVERY_CODES_VIEWED, runs into it) or on their own lines under a "
                     "heading")
_ER_ANSWER_SCRIPT = ("a security question's answer in Arabic or Persian on the line after the "
                     "question (الإجابة, پاسخ): read in the Latin languages only")
_ER_PHONE_UNNAMED = ("a phone with no word for one before it, or a word not read: a Tunisian "
                     "chat's 'el jdid', Pashto's 'zama number ... de', a Yape transfer's 'al', "
                     "Guaraní's 'pumbyry', a prompt's quoted chat, a CSV whose header holds a "
                     "quote (ת\"ז)")
_ER_CODE_APART = ("a code, a PIN or a password named words away or in words not read: Haitian "
                  "Creole's 'PIN li se', Chile's 'clave de 4 dígitos ... es', Guaraní's 'clave "
                  "ha'e', Darija's '3tawni code', Finglish's 'ramze gmailam X hast', an Arabic "
                  "Wi-Fi's 'صارت X' (became), a password told after the cédula in a chat")
_ER_SALT = ("a payment integration's salt and password in a shell comment's JAZZCASH_* "
            "assignments after a hash")
_ER_QUOTED_HEADER = ("ids under a CSV's header that holds an unbalanced quote (Hebrew's ת\"ז): "
                     "the sheet is not read as a table")
_ER_APP_SID = "an SMS gateway's app_sid (Unifonic): an application's id by its name"
_ER_RESET_PATH = "a password reset's token as a URL's last path segment, under no key"
_ER_ID_UNNAMED = ("an id under a name that names no document: a KYC error's message, a SIM "
                  "registration's id_number=, an audit log's subject_id=, UNHCR's 'Individual "
                  "ID', a UBL invoice's CompanyID of a person, a 'nit' column, Slovakia's DIČ "
                  "(a firm's has the same shape), Iran's social insurance number, Algeria's NIN "
                  "in Arabizi (its words hold digits: 'NIN ta3i')")

# Corpora FL to FQ (Central Asia; mainland South-East Asia; South Asia beyond India and
# Pakistan; the German-speaking countries and the Benelux; Greater China; LLM-serving traffic).
_FL_PHONE_APART = ("a phone with no word for one before it, or after words not read: a chat's "
                   "reply, a recipients' list after its first number, a QR payload's account, "
                   "Burmese, Lao, Dhivehi and Tibetan labels, a number in the script's own "
                   "digits, a mobile told in a Chinese chat")
_FL_ID_APART = ("an id after words not read (Thai work permits, Lao family books, Tajik "
                "passports in a chat), a licence's or an insurance card's number under a "
                "generic 'number' key, a Kyrgyz PIN in an INSERT's 'pin' column, Viet Nam's "
                "personal tax code on its return, Bhutan's CID in a table, a permit told in a "
                "Chinese chat")
_FL_CODE_APART = ("a code, a PIN, a password or an answer in words not read or named words "
                  "away: Lao, Burmese, Khmer, Sinhala and Chinese chats and SMS, a code in the "
                  "script's own digits, Vietnamese's 'MK' (mật khẩu), a browser agent's typed "
                  "text, a config's identity value")
_FL_CSRF = "a form's CSRF token: a forgery guard, no login (left alone on purpose)"
_FL_ACCOUNT = ("a bank account's domestic number after 'Hisob raqami', 'Лицевой счёт' or "
               "'Суратҳисоб' (Uzbekistan's twenty digits, Kyrgyzstan's sixteen): no IBAN, no "
               "check digit")
_FL_EMAIL_SLASHES = ("an address written with '//' for '@', as a booking's CTCE element "
                     "writes it")
_FL_WRAPPED = "a token a log formatter wrapped across lines, its pieces each too short"
_KNOWN_MISSES_FL: dict[str, dict[str, str]] = {
    "corpus_fl": {
        "k1Vl0L1XzRv1BUxRoMCjUynoy+hmReF4+MZfG/NfMXKqmYnw7fS0VpDksQXe"
        "1prd52zuQNCE6fRLxTPJjZ4fc7uC4bd4nXErKENjQ30NM6WCwDsU3MrDLtfm"
        "D5llXg0NSdoWuMxkN010uEaJ09wLMX0WAOTX0+cSCsyZICnoF8sOLs6gIVym"
        "tfORtEsOW1XSaAbWSl73e6Bul9tyeHoGVxuaba1INUMcE2w5y0rUysb2wHLl"
        "lO1Fz/iNXDmrP4yN1fRT4q0OEImRtQLLa6k4/WWWCEvyzc6SyPLG5R42CE9P"
        "BL/xNZ32cP9ECMWfEaFSyL6m9Uhqoy/OkixZ/T26==": _ER_SIGNATURE,
        "vBTalUp9wz6Wi6s9nZYTZsuB0qM26SxD1hzBHY+lMb6E52f+3b0F4hXM40EI"
        "O+kRzMf+JqHRiI6F1n7mzNY5O7EFdVCV/fr1tiH9zqDJNLFQmQgr5E7f2GAS"
        "PMiPvgX9wZG+JEJClIcwgk5T6q0SaA3QObaVnvN9jdkMkSMQXIiSbZH2bbrA"
        "uXTbC9WsMSzteP8Sc+G0VfYJRa0Z6xZGceenIRmuR2UfQfF/jcz2TGqWMeUl"
        "jIB3CUt70VPAFFZ/7kcdRcdA++uL9i6Z/DfzF83rXcpEsGOxlh5uxj+KYGwi"
        "jgkQnVNOzSSgLRw+GK+8gxByPTpQXlr4orqW6e2R==": _ER_SIGNATURE,
        "1090400676144168": _FL_ACCOUNT,
        "400121161": _FL_ID_APART,
        "21802200375560": _FL_ID_APART,
        "11606197530182": _FL_ID_APART,
        "21602197925308": _FL_ID_APART,
        "400385344": _FL_ID_APART,
        "11 998 21 32": _FL_PHONE_APART,
        "%D0%A2%D1%83%D0%BB%D0%B5%D0%B3%D0%B5%D0%BD%D0%BE%D0%B2%D0%B0"
        "%20%D0%94%D0%B0%D0%BD%D0%B0": _EL_ENCODED,
        "71f2c660c14cf9c897e95a8059ac19a48699e59f550ede8a20c00b391d9ec0a3": _ER_SIGNATURE,
        "1e5722745cbeffc217e1b5b3f19b6ad33ab6322eb183e3c0734a243db8113288": _ER_SIGNATURE,
        "771018316036": _FL_ID_APART,
        "Normatov%20Islom": _EL_ENCODED,
        "20208000851977250983": _FL_ACCOUNT,
        "b4a2aa3f206e06a1a5dd30716a2216b6d9f25cbdcda06f291e322c8214c932ce": _ER_SIGNATURE,
        "21501196498168": _FL_ID_APART,
        "20905198680555": _FL_ID_APART,
        "21510196417275": _FL_ID_APART,
        "20206840541968418316": _FL_ACCOUNT,
        "500883257": _FL_ID_APART,
        "1180741762143456": _FL_ACCOUNT,
        "021123629598": _FL_ID_APART,
        "998975401476": _FL_PHONE_APART,
        "02382b416934a1ffa2519bd6972eca02": _ER_SIGNATURE,
        "2488689744": _FL_ID_APART,
        "20206840504603635706": _FL_ACCOUNT,
        "df5890ead4d32d793dca19819b207a2c": _ER_SIGNATURE,
        "998507106298": _FL_PHONE_APART,
        "620812480926": _FL_ID_APART,
        "22620000510683992042": _FL_ACCOUNT,
        "Baxt76084.": _FL_CODE_APART,
        "998338453020": _FL_PHONE_APART,
        "e3a8d6b0ddc25a0ab032ef140734cc62": _ER_SIGNATURE,
    },
    "corpus_fm": {
        "\u17e4\u17e0\u17e0\u17e4\u17e0\u17e1": _FL_CODE_APART,
        "P9596427": _FL_ID_APART,
        "8762806777": _FL_ID_APART,
        "0580048038": _FL_PHONE_APART,
        "0385363385": _FL_PHONE_APART,
        "0377227519": _FL_PHONE_APART,
        "0891641763": _FL_PHONE_APART,
        "6dccb90b1055d22bac0cf7c496d8b42dccc450ef5929303a739bab7e2ebfaf6d": _ER_SIGNATURE,
        "duyen.phan//gmail.com": _FL_EMAIL_SLASHES,
        "Phnompenh@12": _FL_CODE_APART,
        "b575280324dc1c2862e55d763262a421727625d04475008c9d02698a0d1b3351": _ER_SIGNATURE,
        "390123": _FL_CODE_APART,
        "464596": _FL_CODE_APART,
        "0844549270": _FL_PHONE_APART,
        "0902250117": _FL_PHONE_APART,
        "811c693fd0d326aa5644f3ef13bcb2cb5dab470d0f1596b30e1fbdc33052"
        "297ea7bab9eec2b5be3506708a6f7f5762c01283ca07bdaae4a3aa9d2479"
        "9f7df520": _ER_SIGNATURE,
        "MsAyOmDn/F2WIIymUywCheCrO2WJvE+EhTo8yFIP50ZEYimRuFpugcgZ3aTk"
        "Dkix3GMUSFKB4ZjJSwmHWXGJxA==": _ER_SIGNATURE,
        "trinhminhdat39//gmail.com": _FL_EMAIL_SLASHES,
        "b5f8f2aae03543fa1ded60265721f7c43d0a15152e500eab483bfa7f7392"
        "6b6cec69de6b5ecb9af760fefcc6f453e5be3ad661f60ed9114054b3e2be"
        "b87c83c2": _ER_SIGNATURE,
        "lCRkfnMXH2vpVVOorWvlxPdHqBYwDAcriMAJkGzw5sk=": _ER_SIGNATURE,
        "0322534139": _FL_PHONE_APART,
        "0562234995": _FL_PHONE_APART,
        "Noona#4455": _FL_CODE_APART,
        "Mekong_River88": _FL_CODE_APART,
        "0329999537": _FL_PHONE_APART,
        "P1439445": _FL_ID_APART,
        "AB9-7457140-39": _FL_ID_APART,
        "4cfd054cbf61b3b9ceca9d0872ff9630a98e92be9d88206fa12c8ff0555dabf2": _ER_SIGNATURE,
        "8120505952": _FL_ID_APART,
        "32a2ae1774194ab06a00543424339f331153b099923a1e858056389459761897": _ER_SIGNATURE,
        "lan.vu96//gmail.com": _FL_EMAIL_SLASHES,
        "F2nuHfSa8mAdfohSg62k4DxDqDZdkD8q0RTPlb7BySA=": _ER_SIGNATURE,
        "9y9QK8r+lX9+92m1m6xCDI5N62Gbt3fZ5lwAm3nXvnddKtX9X5P3wVMyAFaK"
        "AmFEMBcUWRa3cZMLFxdr8EsYIQ==": _ER_SIGNATURE,
        "105177": _FL_CODE_APART,
        "157699": _FL_CODE_APART,
        "3b99d3cbf4042ef5adb79030dd3548c1f329efb99e716d3905905e834dda"
        "9c0f7488dbaf876a21fd61f7c3c042e48dc8801fdb6295b5f2e093e10ec2"
        "3653c7dc": _ER_SIGNATURE,
        "%7B%22citizen_id%22%3A%20%223650127703925%22%2C%20%22name%22"
        "%3A%20%22%E0%B8%93%E0%B8%B1%E0%B8%90%E0%B8%9E%E0%B8%A5%20%E0"
        "%B8%AA%E0%B8%B2%E0%B8%A2%E0%B8%97%E0%B8%AD%E0%B8%87%22%2C%20"
        "%22mobile%22%3A%20%220634158529%22%7D": _EL_ENCODED,
        "078 748 142": _FL_PHONE_APART,
        "692add381dda293fed6552917153852c9503a683158890a02a121d81755feab3": _ER_SIGNATURE,
        "781109": _FL_CODE_APART,
        "0364457144": _FL_PHONE_APART,
        "8022801077": _FL_ID_APART,
        "P2235109": _FL_ID_APART,
        "8800161603": _FL_ID_APART,
        "391495": _FL_CODE_APART,
        "015027": _FL_CODE_APART,
        "370663": _FL_CODE_APART,
    },
    "corpus_fn": {
        "739-8007": _FL_PHONE_APART,
        "Sigiriya2024SI*": _FL_CODE_APART,
        "77107636": _FL_PHONE_APART,
        "101737972": _FL_ID_APART,
        "JTTX#rasel2024": _FL_CODE_APART,
        "Aishath%20Rasheeda%2C%20A175793": _EL_ENCODED,
        "207039349": _FL_ID_APART,
        "214377685": _FL_ID_APART,
        "342009312": _FL_ID_APART,
        "17588742": _FL_PHONE_APART,
        "9829674581": _FL_PHONE_APART,
        "773-0511": _FL_PHONE_APART,
        "739-4351": _FL_PHONE_APART,
        "8801374519967": _FL_PHONE_APART,
        "8801626185974": _FL_PHONE_APART,
        "11454136794": _FL_ID_APART,
        "11163067908": _FL_ID_APART,
        "01630621580": _FL_PHONE_APART,
        "RRV#mJIJAJ2Xc2": _FL_CODE_APART,
        "7941197": _FL_PHONE_APART,
        "M7642077": _FL_ID_APART,
        "9820875036": _FL_PHONE_APART,
        "959083274": _FL_ID_APART,
        "9847652118": _FL_PHONE_APART,
        "564146": _FL_CODE_APART,
        "xVur750OT3nxIvEiLkvX5PeABTLyhAyf": _FL_CSRF,
        "2652108148108": _FL_ID_APART,
        "6969507296748": _FL_ID_APART,
        "622-026-8291": _FL_ID_APART,
        "A06073957": _FL_ID_APART,
        "8801838322483": _FL_PHONE_APART,
        "8801878027813": _FL_PHONE_APART,
        "9767382785": _FL_PHONE_APART,
        "\u0969\u0967\u096a\u096a\u0967\u0968\u096f\u096c": _FL_ID_APART,
        "\u096f\u096e\u0968\u0968\u096a\u096d\u096d\u0967\u096c\u096f": _FL_PHONE_APART,
        "7956219": _FL_PHONE_APART,
        "f79c754e3d6bd890c8a14b76effaf70f8f2b5938e8710b76a21a95b547882f20": _ER_SIGNATURE,
        "10782F4E8A8F3BAB01BCA2F83569AB1A": _ER_SIGNATURE,
        "B08749277": _FL_ID_APART,
        "01405683076": _FL_PHONE_APART,
        "a1d0f84535a8d46b4d15155a181a15491a40db7cbd41712c0512b85b5775bdb2": _ER_SIGNATURE,
        "\u0968\u096b\u096f\u096a\u096f\u0969": _FL_CODE_APART,
        "BX5858979": _FL_ID_APART,
        "9296339137": _FL_ID_APART,
        "369963BC55F1FDD703CE91519328DDAD": _ER_SIGNATURE,
        "11783912964": _FL_ID_APART,
        "7608529": _FL_PHONE_APART,
    },
    "corpus_fo": {
        "050 95 94 00": _FL_PHONE_APART,
        "77544ddfaa7d2fa4ea6662ea2d85e6e86a4adc71cb6217abb9e7af20eb4c81f1": _ER_SIGNATURE,
        "b81671d78f89aaf988324d68230207ad71c8290aa59cbeb69811aa604eeaa39d": _ER_SIGNATURE,
        "0177 565 48559": _FL_PHONE_APART,
        "06 - 66 36 84 46": _FL_PHONE_APART,
        "60bb49d472aac3a1767a92ecac8418142213e44fdc1f6655dc415a8c550cbc53": _ER_SIGNATURE,
        "0941 / 22 29 044": _FL_PHONE_APART,
        "229943": _FL_CODE_APART,
        "01/11107388": _FL_PHONE_APART,
        "G9F88RJKW": _FL_ID_APART,
        "016216889478": _FL_PHONE_APART,
        "0683573308": _FL_PHONE_APART,
        "492393": _FL_CODE_APART,
        "02 829 39 77": _FL_PHONE_APART,
    },
    "corpus_fp": {
        "17895259201": _FL_PHONE_APART,
        "dilM+Hsos69iA0EeItad8n8TmEjUX7jIPCzNBiHxr8EqUoqZLQuK681z3OQX"
        "FPTIY3KvKKRZzqpfoU6db9vKGlRPOR6rXHDzD2eDzDKMt+tmZfxqNn4wiC81"
        "PTIcynYPr77TTZEryB3YDscDOqpB2wl6q/LaOAjZ10IUbmYLbe4g3HElinG/"
        "Lrk0PvzxkcVqgV5KjqBjgFUCFXxASxjKEU5L0glW+imxHUVaHQbKv/JVUN0K"
        "tZcxAYJlr5yIYeQkA41NWj0r1oQaG2MM6ZbW7lPAlLYmBlmdo4Wflx9TQSZC"
        "jYuo4P5b/+WsksRjIm4lFdRGOD7fO5B9GjFf9cqGZw==": _ER_SIGNATURE,
        "dbd2eba78398d1824780bcd376c6a180": _ER_SIGNATURE,
        "CJ5925313": _FL_ID_APART,
        "C16107812": _FL_ID_APART,
        "798448": _FL_CODE_APART,
        "155770": _FL_CODE_APART,
        "9115 9141": _FL_PHONE_APART,
        "MkPLTadexIh%2BSHzCOEZwkh6sBN9Kgog74sNlNtFu4fk%2FivzHre49l0Vq"
        "vGpK4CHcqzTfEGyGKGpi%2BOQbw1nuUINDlSc9mHsCu5j7I%2Bl%2B8rhfjf"
        "nY%2FVHKxJ1nHFhMsuiJQgRgrZQVBzZ4aPZ0DzOs2v%2BsnT3uChr1McJ5an"
        "0ubetJMc%2BxuTh3ISZi4sSaDRM%2Fsu%2B%2B5bQN%2BqIOaGXoCrScobtA"
        "9gS4s3RNlSE07vqsjzm68Q0049TyFjkeGwZUyGSjfK3xXqrbJeJdXExclheB"
        "LMJB7N1IGN7J%2FOMHUbabDj4BdIabzomROoDKBu8xzLXKpWzWm84e%2FYeW"
        "o71%2F%2BBAM%2Fg%3D%3D": _ER_SIGNATURE,
        "D3gKmCb3Oi#B": _FL_CODE_APART,
        "06-854-7829": _FL_PHONE_APART,
        "YtjeKkOcsX7gff4RgLAFzrWdqoOu4I%2BqCwwklSZCFVMR3sO3VVOtykDY60"
        "2%2BhUjdbTRz6v8K8xRV1q43qnYAycVgGxA45jqEAUqWjQcmAV4yU9UA%2F5"
        "cOhgextSLoU3v06MY4nDFs1wM0VHcomzE1ahM06OqISBlVqRmKJvwInjc%2F"
        "5sqNmTwJz9ljQF7ai%2FNYcQlEWPnxpMJUgMC5O6mzqC1EFgNcHIdGOoOec2"
        "X5NbtNJ0koOjasb4YU3gpE37f78lmIE7rkgU%2BoNpfiebKhE24ZwoiQXUZ0"
        "2QAAkRq5n54iBQ9RYRC44rAx8Pl3gHJ2X8WvDVc%2Fkm9CJno7ZbTDuw%3D%"
        "3D": _ER_SIGNATURE,
        "992604": _FL_CODE_APART,
        "(03)472-6996": _FL_PHONE_APART,
        "IwHvavAFQBvtSnMjE38MR+mFJHeqgdCgwksk95VeZ98kQdP6j/32ugVXigOs"
        "R9/Nf6TTtYMd1Q6IMQJjDHC5NzLHM6HC8mTCgYuaDe2BbJjxNTbNGv9VMoSF"
        "CYb1/U+oT6QTwijMeiXTRrUs8rM1sYRKeqQcqY5w7xJvPucd2tP9J5H28zY6"
        "Vot/EYbzVPM2wQade9BKmzELE9WMSUzgGz17eFzSALt7vElUpVpuFF5cbAEf"
        "kYgAYP3cPAFWB3rZkvnYrNml18AYKqAQCaK2yh4FPBfQkI3RILdRd/JUcCok"
        "TCDd+aD/6G6bXmX2bK+QjS1giIfhqlNbnNrYbFj10w==": _ER_SIGNATURE,
        "XqNDyWDR9wra51Db": _FL_CODE_APART,
        "gYeqOBhwceCUjX0e": _FL_CODE_APART,
        "a83099b0692dcc60bd77400c10250d63": _ER_SIGNATURE,
        "86-15562268144": _FL_PHONE_APART,
        "P@ss9353cn": _FL_CODE_APART,
        "86-18177925454": _FL_PHONE_APART,
        "C88542455": _FL_ID_APART,
        "2%2FcJ7cBrCeVP1achbf9KU8p6Y7dD0j9Om1nibFFyZ604W2B%2FCrGBaW6F"
        "EjqMDNYF55MO1UriBfSUypDU3yu0ChPRj9VTgLIyvvGmEOtk90HRikTSj6JF"
        "Q7X2o%2FiN6iKDhWTGvFEbIqb3hx3%2Bi3T6ctifrytZCTCQfUKBYvtgUomQ"
        "VU0XxAVPcAv8Kk%2Bu61%2Bkq0Q%2Bvz37XPhJhOUhSECnqmX1T8DNgrMGrj"
        "EKofmLsuuhveezS3cxRQOt6kfFOoaR86bqshLW7VnhlxHvx8k3xXyveI57Y2"
        "NJADhVU7VMK7alRuaFVeiAzjHOlrcurZ%2BzY7OhaeiwUFr2Y6DBnjF04A%3"
        "D%3D": _ER_SIGNATURE,
        "STgreqvnmJ+vzCLtg+MOhE/ZP8PekPXS3uINuiaTjMjaDLnI4sjBk3bSlRX9"
        "nAb6YqiMc2laLIArhYnHCoJYTFqygTHph86CtS2WfyhtEALBdStOCh2jsSGh"
        "wTJhXGaUcr4FlUgpiWMBil9ot8GJy7WPkxiLe9BsKbJOTwiP141J+66alhEE"
        "p9kTc5gAeXrpSMZS1fwosqCLknLZ9Ms8vGvw9wJJIKeNdhMr5RY97EJRfKyS"
        "JkzSPjv6VxITOe/nFttCSeB4kqAYcmKQpb79rYyAzgElUE0URuPX0TLP5YKu"
        "pV+CVTqzKjD13P7Gfr6R7sJpuBM8ByhuwtqQ4zgwrA==": _ER_SIGNATURE,
        "86-18501067657": _FL_PHONE_APART,
        "265015": _FL_CODE_APART,
        "9514 1265": _FL_PHONE_APART,
        "060517": _FL_CODE_APART,
        "86-18632240381": _FL_PHONE_APART,
        "6YSt6ZuF5paHfEEyMjg4MjA0NTB8MDk5NjUwMjk1Mw==": _EL_ENCODED,
        "18505906643": _FL_PHONE_APART,
    },
    "corpus_fq": {
        "D48C59953": _FL_ID_APART,
        "(0505) 354 32 81": _FL_PHONE_APART,
        "(0554) 440 01 00": _FL_PHONE_APART,
        "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6ImFmODQwNDhlYTc4"
        "ZjY5NTUifQ.eyJzd\nWIiOiIxMTE3ZDgwYy02ZWZiLTQ3NjEtYjM3ZS1kZDM1"
        "OTgzZTEzODciLCJlbWFpbCI6ImFubmFfa\nG9mZm1hbm5AcG9zdGVvLmRlIiw"
        "iZXhwIjoxNzMzMDAwMDAwfQ.zsPUGa2D6S8LrJQh8sIc79dDdJ\n_T6fOS4Ss"
        "U2uk8ffi4y7PukJI_2tqPsBzWiqKlMDWYthRZYHGouSUNM7atDiWRZPTYRMy"
        "dPLx-PL\nMgx3IJrGaW-StQaI4adpmu3DshVnvRSegD6jgqWkZuX_d87dDh0_"
        "dH4dtTQ9dLVd83UWrAlGSM_a\nj_qOJ2M7hVp5m-XritgoEPcoyqKQvTvyDb6"
        "x61re6cggMhO6xTMXol4g2hUjuHflwQf9I0rIraxz\nbLy-wFT335eFoJTIlY"
        "KDg8FxQBWILprRvuwr0KMFeWr4wduzqYvw8rY6Udy72dsQobCd5QMfeVqY\nc"
        "oQ_c324geZx": _FL_WRAPPED,
        "hwSEFpL4oElZxS6/Xui+XK5EDnE=": _ER_SIGNATURE,
        "0633285218": _FL_PHONE_APART,
        "07086357748": _FL_PHONE_APART,
        "ffcac1b2f7ccb441d4760f63c31d47f8f997b2443f2d60a3d71d37cc7e23c023": _ER_SIGNATURE,
        "Tiger6342": _FL_CODE_APART,
        "C+6L6OdFXQ350HEFD7reGtEgi00=": _ER_SIGNATURE,
        "2736e26802d010d126a348cb2769b4133bdebe4d6ac292683bd4ebbe43851ea9": _ER_SIGNATURE,
        "189383099": _FL_ID_APART,
        "sk-proj-eBsluHhp_H_0rchkB_sco1YR3WiqjJHZpXm1ce_KaHafNBwfD8dX"
        "ZjLv11smMzsO7uxqdW6nG\nlT3BlbkFJN_-aXG9ddZMF_tGZtmf-r-RdH4N0t"
        "fRsDLviRkVaYm2BAcs5-nQeqJsweV2Bum8ct2PATFxp0_": _FL_WRAPPED,
        "bad7565ac4f7869f3e9cc152539340804c0bf04fd99aa0562b951a9038dc360d": _ER_SIGNATURE,
    },
}


# Corpora FR to FW (agents and developer tools; cloud operations; southern and western
# Europe's back offices; health cover in the English-speaking world; Japan and Korea; money
# and crypto).
_FR_SALT = "an app's SALT variable: a hashing salt, no credential"
_FR_TYPED = ("a card's code or a PIN a browser agent types into a field named only by its "
             "index")
_FR_PASSPORT_BELOW = "a passport's number under 'N° / No.' three lines below the page's title"
_FS_TRIED = "a password tried in a chat, in backticks, with no word for one near it"
_FS_PHONE_CELL = "a phone in Poland's 3-3-3 groups in a table's 'Contact' column"
_FS_ENCODED_NAME = ("a person's name percent-encoded in a query: names are no kind of the "
                    "detectors")
_FU_BASE64_PREFILL = ("a prefill link's base64 of a name, a birth date and a phone with no word "
                      "for one")
_FU_ROTATED = "a refresh token after 'rotated old=': its key names no token"
_FU_NOT_AN_SSN = "a number labelled an SSN in area 9xx, which no SSN has (ITINs' range)"
_FU_MEMBER_UNNAMED = "a health plan's member id after a bare 'id' in an agent's note"
_FV_PHONE_REPLY = "a mobile alone in a chat's reply to 'call my mobile'"
_FV_SPOKEN_NO = "a phone read digit by digit with Japanese's の between its groups"
_FV_APP_ID = "Rakuten's application id: an app's public id, its secret apart"
_FW_KEY_ID = ("Razorpay's key id: public (every checkout page carries it), as Stripe's "
              "publishable key is")
_FW_INVALID_NINO = "a National Insurance number with the prefix BG, which is never issued"
_FW_FOREIGN_TIN = "a Mexican RFC as a W-8BEN's foreign tax identifying number"
_FW_CODE_REPEAT = ("a code's repeat under a tool call's sca_code key, shorter than a repeat is "
                   "looked for (its first mention is redacted)")
_FW_ACH = "an SSN in an ACH entry's fixed-width individual id field, with no name for it"
_FW_OLD_NUMBER = ("a phone after 'número viejo' (the old number), the word for a phone a "
                  "line above")
_FT_NOT_IPV6 = "not an IPv6 address: fewer than eight groups and no '::'"
_FT_DEPENDANT = "a dependant's tax number on an IRS form's 'D1:' line"
_FT_WHERE = "a tax number in an SQL WHERE clause under 'documento'"
_FT_PERSON_VAT = ("a person's tax number in an ERP's vat column, its country first: a firm's "
                  "VAT number stands in the same place")
_FT_PASSWORD_LATER = ("a password told a sentence after the word for it ('ara poso «X»', 'O "
                      "que tiña era X')")
_FT_PHONE_REPLY = ("a phone in a reply with no word for a phone ('agora é X', 'è corretto il "
                   "X?')")
_FT_CODE_ARRIVED = "a code after 'è arrivato:' (it has arrived), spelled out or not"
_KNOWN_MISSES_FR: dict[str, dict[str, str]] = {
    "corpus_fr": {
        "Hunter.1810": _FR_SALT,
        "28e9c9bcee061e7d52b475995249e1415c42f1e728e760199c5fcf2d5df25704": _ER_SIGNATURE,
        "575": _FR_TYPED,
        "730c74d99bfded353107d492fcc1eb2ed7542e3f7128c3555127e4507b503ccb": _ER_SIGNATURE,
        "CN5C5T8ZH": _FR_PASSPORT_BELOW,
        "b016f62242f9ac7108f713dc9337d1128430d047bd593b194e9181475d826204": _ER_SIGNATURE,
        "23AU96661": _FR_PASSPORT_BELOW,
        "8775c60c5b94c7e05e52f929bb4a02937b0bbbcbc3cead13ae9233c10a13dbb5": _ER_SIGNATURE,
        "maple-tiger-garrafa66": _FR_SALT,
        "2124": _FR_TYPED,
        "GA837290": _FR_PASSPORT_BELOW,
        "22FQ52961": _FR_PASSPORT_BELOW,
    },
    "corpus_fs": {
        "rapid-river-cactus-18": _FS_TRIED,
        "e50fbb0d32b73fa04bf67bef50824b624c17188d4e703e9e6898f4c098f2197f": _ER_SIGNATURE,
        "555-844-689": _FS_PHONE_CELL,
        "Katrin%20Sch%C3%A4fer": _FS_ENCODED_NAME,
        "331630c04df232a9ee86b5289ce56a9893abd61e8976648226068499bb16b460": _ER_SIGNATURE,
        "fa609f05764b2a056471d6c4d11e6aa519c347a7e5496b9fe4e4e181758a2b50": _ER_SIGNATURE,
        "3c3418b451f7a22f82df99b62e55ddaf8210d6402188a3561c0458bc914efe99": _ER_SIGNATURE,
        "Magdalena%20Kami%C5%84ska": _FS_ENCODED_NAME,
        "d7b3e4ddf9b43886f27d3cff0e164a2947156bfc33c8b0f6b9061fae473a7bdf": _ER_SIGNATURE,
        "acdd7194c4bdacdc7060eabdcb20307c4fd8cbc3ac363f765ad23c66bac89c20": _ER_SIGNATURE,
    },
    "corpus_ft": {
        "7f55e2ec0d97b1ce8a858256dddb83a750b7e3eef3507fd7445108d7ca394b81": _ER_SIGNATURE,
        "83d3db368ce5953f05a5264bc67c44765ade50a97191b34647e8fa42cee56baa": _ER_SIGNATURE,
        "556871da084ef04db5979b7b01c737c5bec6db4d31394fbcc5707910e9755c16": _ER_SIGNATURE,
        "2a02:8109:1cfc:147b:1c2d:a93:220a": _FT_NOT_IPV6,
        "2a02:2f0c:47f9:888b:1c70": _FT_NOT_IPV6,
        "262417669": _FT_DEPENDANT,
        "277731062": _FT_DEPENDANT,
        "NC@aBcnwDDO": _FT_PASSWORD_LATER,
        "Wv5SRc?lfFhhqC": _FT_PASSWORD_LATER,
        "239387139": _FT_DEPENDANT,
        "215656733": _FT_WHERE,
        "PT122313410": _FT_PERSON_VAT,
        "966135824": _FT_PHONE_REPLY,
        "388 3029874": _FT_PHONE_REPLY,
        "7 0 5 9 0 9": _FT_CODE_ARRIVED,
        "ES54273613F": _FT_PERSON_VAT,
        "2001:4860:709e:58d2:4c7": _FT_NOT_IPV6,
        "342208543": _FT_WHERE,
        "ES22942526A": _FT_PERSON_VAT,
        "3942810392": _FT_PHONE_REPLY,
        "386075": _FT_CODE_ARRIVED,
        "ToKelbRex_98": _FT_PASSWORD_LATER,
        "913 740 609": _FT_PHONE_REPLY,
        "343 4147561": _FT_PHONE_REPLY,
        "2 8 5 6 4": _FT_CODE_ARRIVED,
        "Ete4195@": _FT_PASSWORD_LATER,
        "ES64838617F": _FT_PERSON_VAT,
        "2001:4860:8e2a:541d:3aeb:4ff8:f93a": _FT_NOT_IPV6,
    },
    "corpus_fu": {
        "XEH451166048": _FU_MEMBER_UNNAMED,
        "CEfRfd4WBxJFd_7aXYL0m3qkeFDnxHHtfpqbuOShkq6CyKBXXpV6ScGVmNNjp7_Y": _FU_ROTATED,
        "T2xpdmVyIFRheWxvcnwxOTc3LTEwLTA1fDY2ODkwODk1MTc=": _FU_BASE64_PREFILL,
        "de0be03cb8fb480b5c285540058f474a580e67455461312c3c78fdcbf79547e3": _ER_SIGNATURE,
        "jN7U6IJ11eG9QFV0MpiAtpC82cSYJWit3GIZ83IWRy4KaIgD7z-PF6mAgnHFnTQU": _FU_ROTATED,
        "1100ceaa1aabbbe4d101487303af9fe5c97d0aba07fd5591a586a16597f38e67": _ER_SIGNATURE,
        "083a3d0118f8ac16b808eb248a0a6000ddd97ee40077ee34354c801916e20ed6": _ER_SIGNATURE,
        "JQU293990607": _FU_MEMBER_UNNAMED,
        "YUB326810470": _FU_MEMBER_UNNAMED,
        "5Fg7nSGK4OM1ukWxX3R7J5W8fkx6ORkTtmtMQOar3pLJmddCpKo6Tjx_Yp5kcoGS": _FU_ROTATED,
        "2a5b338f193b37160b23376ce1a2ad539a7853aa4839ce10f9b5b22741b41ffa": _ER_SIGNATURE,
        "946-70-4506": _FU_NOT_AN_SSN,
    },
    "corpus_fv": {
        "0 9 0 \u306e 1 4 1 5 \u306e 2 8 1 7": _FV_SPOKEN_NO,
        "08014361749": _FV_PHONE_REPLY,
        "0 7 0 \u306e 6 7 6 9 \u306e 5 9 6 3": _FV_SPOKEN_NO,
        "%E6%B1%A0%E7%94%B0%E5%92%8C%E4%B9%9F": _FS_ENCODED_NAME,
        "00aa90b1549b7f68704af6758db7db9f05e73855995e6a008cd1585765d9f4b3": _ER_SIGNATURE,
        "581f6adb68ce5bffcc82bd206c753bdbd8603799288a750d1dc723e15f554061": _ER_SIGNATURE,
        "2616955498085549458": _FV_APP_ID,
        "1765753029276530157": _FV_APP_ID,
        "0 9 0 \u306e 4 5 2 4 \u306e 6 2 0 9": _FV_SPOKEN_NO,
        "af0df3c81a016de0cb8fde631cc657f41a6b0d025617d668fba605cb6726024b": _ER_SIGNATURE,
        "%E5%8A%A0%E8%97%A4%E7%9B%B4%E6%A8%B9": _FS_ENCODED_NAME,
    },
    "corpus_fw": {
        "rzp_live_ZDavg2g8DWwg5g": _FW_KEY_ID,
        "BG 87 12 50 D": _FW_INVALID_NINO,
        "11 6417-4159": _FW_OLD_NUMBER,
        "d547c82dab851603d0662988a9eb2346ee5512d077a152ba7d892c9cac79c958": _ER_SIGNATURE,
        "FxhmOULLa7m43ySaeBhpzmKyt4HxJf1WwGH38kQ51uY=": _ER_SIGNATURE,
        "4d1da726d8d3cdb673852e137aa39ff40c3f384d12845a250a39d2e17f7e58ed": _ER_SIGNATURE,
        "DTDI661126GJE": _FW_FOREIGN_TIN,
        "407936": _FW_CODE_REPEAT,
        "8WnrHpFVCa3NjmOmami6HmQDSfIMnkIdRAPClEhyg+E=": _ER_SIGNATURE,
        "rzp_live_IAoe8q19FIOvhJ": _FW_KEY_ID,
        "630660": _FW_CODE_REPEAT,
        "JLgbmXfWCug9YtQl9Xeru8OGreBv1LK1": _FL_CSRF,
        "h78Zao0lJp8pFDdWDG8zLZeif8iJIRqr": _FL_CSRF,
        "037d20d9bfe61e1af2b0f9fdcdeb3881fced875637e0fc58733d57b2758a1f14": _ER_SIGNATURE,
        "581939274": _FW_ACH,
        "419100447": _FW_ACH,
        "2515881148": _EL_ID_UNNAMED,
        "8788b3507f08f2f8fa5cd8394f572bd38b9d55f10add4db475ffdfffa03326d9": _ER_SIGNATURE,
        "UQ3omoVpWqjO+jgL0PZfj1CfHCrs75kUB2KEG6KfX9M=": _ER_SIGNATURE,
        "38efd3d8a0c514b0e409d8f9fa9e86716ba99c5eddf4209ff4199a798e90"
        "3db52fe74a732150fa4af10071cd0da68be69db70f3b0f2ba9e0b836ded5"
        "a4fa944c": _ER_SIGNATURE,
        "f459204d9aa30c391ada5d13b15c2add6a85f5dac07cc29a392dcdf1c55280d5": _ER_SIGNATURE,
        "3064a23f3bade7441c3f9ea150e043710075957192443382e2972d262951097f": _ER_SIGNATURE,
        "666 012 552": _FW_OLD_NUMBER,
        "861641": _FW_CODE_REPEAT,
        "501797855": _FW_ACH,
        "z7l6aRGmefPA5v1Cs8hbvvDCcGBwvUZt": _FL_CSRF,
        "rzp_live_ZQ3HGjnrRVrTGQ": _FW_KEY_ID,
        "2472354907": _EL_ID_UNNAMED,
        "ad21f6049c4de66d808cc247068c0e7ff547def4186294ce26a75cc910fb1d6b": _ER_SIGNATURE,
    },
}


# Corpora FX to GK (Eastern Europe; voice and contact centres; education and HR in the
# Americas; security tooling; travel and hospitality; telecom operators).
_FX_PHONE_APART = ("a phone after words not read as a phone's: Russian's 'Номер был', Czech's "
                   "'volal z', Polish's 'blik na numer', a reply to 'który przenosimy?', a "
                   "profile log's new= after field=telefon")
_FX_DOC_KEY = "a document's number under a generic doc_number key"
_FX_PASSPORT_PAGE = ("an internal passport's series and number at an OCR'd page's foot, no name "
                     "before it")
_FX_ID_CELL = "a taxpayer number in a console table's column whose header is not read"
_FX_SNILS_CELL = "a SNILS in a semicolon-separated export whose header is not read"
_FX_SOLE_TRADER = ("a sole trader's NIP: public in the business register, as a firm's is (left "
                   "on purpose)")
_FX_LOGIN_PAIR = "a password after a site's login and ' / ' in a note with no word for one"
_FX_PIN_KARTA = "a card's PIN after Polish 'PIN karta' (the card's word after 'PIN')"
_FX_ANSWER = "a security question's answer after Polish 'Odpowiedź:'"
_FX_CVV_LATER = "a CVV told after words between it and 'CVV'"
_FX_CODE_PARCEL = "a parcel's pickup code after its tracking number and a colon"
_FX_CODE_REPLY = "a code in a reply ('Przyszło, 6744': it came) to the agent's 'kod SMS'"
_FY_SPELLED = "a tax code spelled with Italian's city names ('G come Genova ...')"
_FY_ID_REPLY = ("an id in a reply in Arabic-Indic digits, and its echo after a bare 'ID' in "
                "the agent's note")
_FY_SPELLED_EMAIL = "an address spelled with the NATO alphabet ('M as in Mike, ...')"
_FY_PHONE_REPLY = "a phone in a reply to 'su número celular a diez dígitos'"
_FY_SPOKEN = ("a phone read out in words the spoken reading does not know (Portuguese, "
              "Arabic and Hindi numerals, Spanish pairs, German 'zwo')")
_FY_BACKUP = "backup codes read out, quoted in a QA note"
_FY_SPOKEN_CODE = "a one-time code read back in words ('seven five nine two three eight')"
_FY_ANSWER = "a security question's answer in a call's reply (a town, a first car)"
_FZ_LOGIN_ID = "a student's DNI as a login's username (usuario=, 'del usuario X')"
_FZ_ITIN = "an ITIN quoted after 'TIN' in an import's error"
_FZ_CTPS = "a work card's number and series ('CTPS nº 1742001 série 8857-MG')"
_FZ_SSN_SAID = "an SSN said in three groups with commas"
_FZ_TIN_ON_FILE = "a TIN of nine digits after 'TIN on file'"
_FZ_TAX_ID_COLUMN = ("nine digits under a payroll export's 'Tax ID' column (an employer's EIN has "
                     "the same shape)")
_FZ_PHONE_APART = ("a phone in a CV's header line or after 'me liga nesse outro número:' with "
                   "Argentina's 15 inside")
_FZ_ANSWER_YAML = "a security answer under a YAML list's a: after its q:"
_FZ_CODE_SHAPE = "a login code in an SMS, dashed ('909-170') or eight digits ('Use X to verify')"
_GI_PAREN = "a password in parentheses after Portuguese's 'minha senha'"
_GJ_TEMP = "a temporary password with '*=' and '?' in it, read as an expression"
_GJ_ANSWER = "an answer= after question= in a log line"
_GJ_ROOM_CODE = "a room safe's or a self check-in door's code in a guest's message"
_GJ_CLIENT_ID = "an API client's id (AMADEUS_CLIENT_ID, client_id): an id, its secret apart"
_GJ_PNR_PHONE = "a phone in a PNR's PHONES or APM element, glued to its city code"
_GJ_B64_CACHE = "a base64 JSON of a passenger's document in a cache's value= field"
_GK_RESET = "a voicemail PIN after 'reset to'"
_GK_CODE_TR = "a code after Turkish 'Onay kodu' (confirmation code)"
_GK_MISLABEL = "a timestamp's milliseconds labelled as a code"
_GK_MSG_CODE = "a code right after an SMSC log's msg:, before 'is your OTP'"
_GK_CSV = "a NIN-SIM linkage record's MSISDN and NIN in a CSV with no header"
_GK_PHONE_APART = ("a subscriber's number in prose with no word for a phone ('redefinição para "
                   "o X', 'Victim X replied', 'rang from X', 'Número a portar' in national form)")
_GK_NPWP = "an NPWP after its name that its check rejects"
_KNOWN_MISSES_FX: dict[str, dict[str, str]] = {
    "corpus_fx": {
        "89051918839": _FX_PHONE_APART,
        "736 883 626": _FX_PHONE_APART,
        "270085524": _FX_DOC_KEY,
        "3636380780": _FX_ID_CELL,
        "1183951808": _FX_SOLE_TRADER,
        "3254291685": _FX_ID_CELL,
        "2595157150": _FX_ID_CELL,
        "3547882431": _FX_ID_CELL,
        "PL6790014234": _FX_SOLE_TRADER,
        "9373600967": _FX_SOLE_TRADER,
        "82 05 203821": _FX_PASSPORT_PAGE,
        "3030445501": _FX_ID_CELL,
        "3226839012": _FX_ID_CELL,
        "8999495985": _FX_SOLE_TRADER,
        "5ed21dd68b1bc5ecd6cb3fe34fab06dd7f175a113c948a65944b91f198609339c1d018c3415e2e"
        "666748ff75f29d6bbe": _ER_SIGNATURE,
        "7c80b3d1f9127b82cafff6f4d835f517e4120e3f50900c5f249dec9cab88361c": _ER_SIGNATURE,
        "92 14 210861": _FX_PASSPORT_PAGE,
        "X1jNGHIg0c": _FX_LOGIN_PAIR,
        "2966": _FX_PIN_KARTA,
        "Zieli\u0144ska": _FX_ANSWER,
        "880 484 183": _FX_PHONE_APART,
        "6744": _FX_CODE_REPLY,
        "883 685 807": _FX_PHONE_APART,
        "6487": _FX_CODE_REPLY,
        "268": _FX_CVV_LATER,
        "601717602": _FX_PHONE_APART,
        "574 808 819": _FX_PHONE_APART,
        "7412": _FX_CODE_REPLY,
        "slonko099": _FX_LOGIN_PAIR,
        "6159": _FX_PIN_KARTA,
        "6149dfd792331ce5077afa66b326d550599c46e9004c094cb3b6b07ae5c38ec9bff80f41ccb54a"
        "af2b1e7c72ef21d565": _ER_SIGNATURE,
        "883 681 106": _FX_PHONE_APART,
        "dd130a089ed30ba07ec46b06bd250f5f3fb88d9451b547c24b78e88e62ba00ad7fefa998476059"
        "cd7463136b985211c2": _ER_SIGNATURE,
        "644": _FX_CVV_LATER,
        "880718142": _FX_PHONE_APART,
        "721 062 998": _FX_PHONE_APART,
        "7827": _FX_CODE_REPLY,
        "951-901-47-63": _FX_SOLE_TRADER,
        "779-54-95-345": _FX_SOLE_TRADER,
        "68 05 453551": _FX_PASSPORT_PAGE,
        "67817743758": _FX_SNILS_CELL,
        "4540": _FX_CODE_PARCEL,
        "7799025174": _FX_SOLE_TRADER,
        "3146038848": _FX_ID_CELL,
        "348163088909f96d592410a4c8abba0092c89bbdea4d3b7d769b44faa9c67140f0fe6bf9cfb933"
        "cbdacf198dc1ae1784": _ER_SIGNATURE,
    },
    "corpus_fy": {
        "\u0662\u0667\u0663\u0660\u0662\u0661\u0663\u0660\u0661\u0667\u0663\u0667\u0665"
        "\u0660": _FY_ID_REPLY,
        "27302130173750": _FY_ID_REPLY,
        "fiX94WeHpo+Ewr4Ap4nOKl99DH0=": _ER_SIGNATURE,
        "G come Genova L come Livorno L come Livorno G come Genova L come Livorno I com"
        "e Imola 99S62F839T": _FY_SPELLED,
        "Al Ain": _FY_ANSWER,
        "6498-8154": _FY_BACKUP,
        "4068-7516": _FY_BACKUP,
        "4968-1716": _FY_BACKUP,
        "Mrs. Kowalski": _FY_ANSWER,
        "1141840841": _FY_ID_REPLY,
        "nove tr\u00eas zero nove tr\u00eas dois zero quatro cinco": _FY_SPOKEN,
        "M as in Mike, W as in Whiskey, I, L, L, I, A, M, S at outlook dot com": _FY_SPELLED_EMAIL,
        "2962-9125": _FY_BACKUP,
        "1453-2020": _FY_BACKUP,
        "8409-8185": _FY_BACKUP,
        "55 5424 5417": _FY_PHONE_REPLY,
        "cinco cinco, veintinueve treinta y seis, noventa y siete sesenta y cinco": _FY_SPOKEN,
        "seven five nine two three eight": _FY_SPOKEN_CODE,
        "one five nine four three five": _FY_SPOKEN_CODE,
        "sifr wahid wahid thamanya tis3a thalatha thamanya sab3a sab3a ithnain arba3a": _FY_SPOKEN,
        "nove seis quatro oito sete quatro cinco seis um": _FY_SPOKEN,
        "nau paanch teen paanch chhe nau shunya nau paanch paanch": _FY_SPOKEN,
        "cinco cinco, ochenta y cinco cincuenta y tres, cuarenta y dos veintid\u00f3s": _FY_SPOKEN,
        "sifr wahid khamsa thalatha sifr thalatha thalatha khamsa sifr arba3a wahid": _FY_SPOKEN,
        "L as in Lima, D as in Delta, A, V, I, S at gmail dot com": _FY_SPELLED_EMAIL,
        "64CnOmobD5wURCSQbU5jj80nRxg=": _ER_SIGNATURE,
        "nove dois oito zero nove quatro dois oito quatro": _FY_SPOKEN,
        "dois um nove oito nove nove nove meia nove nove meia": _FY_SPOKEN,
        "R come Roma S come Savona S come Savona G come Genova L come Livorno I come Im"
        "ola 87P47L219O": _FY_SPELLED,
        "null eins sieben null, f\u00fcnf vier zwo sieben f\u00fcnf drei sechs neun": _FY_SPOKEN,
        "BpXf3wMPoTp4XTCRQYbQCN2zT6s=": _ER_SIGNATURE,
        "1832-0466": _FY_BACKUP,
        "2791-9119": _FY_BACKUP,
        "8367-1635": _FY_BACKUP,
        "sifr khamsa khamsa ithnain thalatha arba3a thalatha thalatha khamsa ithnain": _FY_SPOKEN,
        "\u0662\u0668\u0666\u0660\u0665\u0661\u0663\u0661\u0662\u0660\u0666\u0664\u0661"
        "\u0663": _FY_ID_REPLY,
        "28605131206413": _FY_ID_REPLY,
        "Kiel": _FY_ANSWER,
        "nove seis dois oito seis oito cinco quatro nove": _FY_SPOKEN,
        "Zaragoza": _FY_ANSWER,
        "\u0662\u0668\u0665\u0660\u0665\u0662\u0663\u0668\u0668\u0666\u0661\u0660\u0668"
        "\u0668": _FY_ID_REPLY,
        "28505238861088": _FY_ID_REPLY,
    },
    "corpus_fz": {
        "40480377": _FZ_LOGIN_ID,
        "41343241": _FZ_LOGIN_ID,
        "40441933": _FZ_LOGIN_ID,
        "39122286": _FZ_LOGIN_ID,
        "436092811": _FZ_TAX_ID_COLUMN,
        "195587204": _FZ_TAX_ID_COLUMN,
        "(261) 15 823-4201": _FZ_PHONE_APART,
        "977-71-5844": _FZ_ITIN,
        "3398288977a4e8e45c4542cd91f8451354a4e3f6a159e72ea32b0692502cef40": _ER_SIGNATURE,
        "315 4859880": _FZ_PHONE_APART,
        "909-170": _FZ_CODE_SHAPE,
        "527, 44, 9663": _FZ_SSN_SAID,
        "36840461": _FZ_CODE_SHAPE,
        "720493306": _FZ_TAX_ID_COLUMN,
        "056423531": _FZ_TAX_ID_COLUMN,
        "620884647": _FZ_TAX_ID_COLUMN,
        "00396543eac1b134675ba02079097eb231e8836c0a7bec224fca130fbd2b2434": _ER_SIGNATURE,
        "351 15-075-6373": _FZ_PHONE_APART,
        "Maple Street": _FZ_ANSWER_YAML,
        "Guadalajara": _FZ_ANSWER_YAML,
        "b5cc2314306f3e6f11f7f263b0704d297fcbcc3daeac8d527d57c76d782ef132": _ER_SIGNATURE,
        "965-61-7206": _FZ_ITIN,
        "405499341": _FZ_TIN_ON_FILE,
        "11 97812 2323": _FZ_PHONE_APART,
        "1742001 s\u00e9rie 8857-MG": _FZ_CTPS,
        "5c80c38c68fb54086be0934ddab4c20e8771f6d75b3650cfd024b4dbf6b6faba": _ER_SIGNATURE,
        "El Paso": _FZ_ANSWER_YAML,
    },
    "corpus_gi": {
        "copper-zebra-copper-otter": _GI_PAREN,
        "QyP3++ZK6SidLqMsrtOSJBy1WV56cw9dOzMlxT/uB8k=": _ER_SIGNATURE,
        "e447502bff51cb734f27a569b0160b2d730552150d251d23a6a9493d94eb093b": _ER_SIGNATURE,
        "jyYsOLkSmpM9umILpROlPMNDClvQO4Lsft3sh/9RRPE=": _ER_SIGNATURE,
        "4bf4ceccb06e9e0fac4a848d7438c36238ba9d9fb97cb6c4e3b9512e6968a68b": _ER_SIGNATURE,
        "bcbcdccf442434e34d9424373b64903c42e10003b375dd7a6e36e802e40d2490": _ER_SIGNATURE,
        "17cad6d502b9eb082e2ab29c570bae5bfb957f62f1471d9f07a94c8910948115": _ER_SIGNATURE,
    },
    "corpus_gj": {
        "ulIYON1nnQmv5JwBOyd9oHQR6MVqQeEbIWWt5S9/mSQ=": _ER_SIGNATURE,
        "250d84c2701b864afcee3398f093c0c0aab5a3deb9feb2f180df115c31ba19bf": _ER_SIGNATURE,
        "JoazcDx*=TQkB?V": _GJ_TEMP,
        "716583": _GJ_ROOM_CODE,
        "vyg0OQx9EroGPbcRgjXBzyfVwruFSfHq": _GJ_CLIENT_ID,
        "xJLVNVYedFwTQkAKXo3mBPzzIGuTLctG": _GJ_CLIENT_ID,
        "Bobby": _GJ_ANSWER,
        "086-863-8310": _GJ_PNR_PHONE,
        "0176 34650561": _GJ_PNR_PHONE,
        "081-034-1732": _GJ_PNR_PHONE,
        "07039989775": _GJ_PNR_PHONE,
        "9fd4499759655a6df0daec1b5cc4b2e50786a7e29ad9806759212f2fad65e514": _ER_SIGNATURE,
        "eyJwYXgiOiAiQVlESU4vQlVSQUsiLCAiZG9jIjogIlU0NDkzNzMyNyIsICJuYXQiOiAiVFVSIn0=":
            _GJ_B64_CACHE,
        "1150": _GJ_ROOM_CODE,
        "34YmydBC9Ac8fWTLobJrzcRfRgSkc3Oe": _GJ_CLIENT_ID,
    },
    "corpus_gk": {
        "7714": _GK_RESET,
        "5527984320761": _GK_PHONE_APART,
        "nk23u0UiIXMmsgx+9b5fL+0q+cr9Tq7dVU95Q7aDyIw=": _ER_SIGNATURE,
        "7571": _GK_CODE_TR,
        "77.320.906.2-601.193": _GK_NPWP,
        "Kendriya Vidyalaya": _FY_ANSWER,
        "2348130195131": _GK_CSV,
        "84201537138": _GK_CSV,
        "483": _GK_MISLABEL,
        "639052826875": _GK_PHONE_APART,
        "2347013947387": _GK_PHONE_APART,
        "0685872429": _GK_PHONE_APART,
        "5573776776": _GK_PHONE_APART,
        "914138": _GK_MSG_CODE,
        "08104706496": _GK_PHONE_APART,
        "5527974244559": _GK_PHONE_APART,
        "0748013539": _GK_PHONE_APART,
        "0890": _GK_RESET,
        "10672804": _EL_ID_UNNAMED,
        "EaXhuhZP+NPX7ZgyR92JjvB19AyaDC2j9oIrDK7R67Y=": _ER_SIGNATURE,
        "374b03876da4b9cf2e64e639de1690e4384f12dc30ca43d1f0829b8ea954fb75": _ER_SIGNATURE,
        "57.252.446.6-541.205": _GK_NPWP,
        "Batangas": _FY_ANSWER,
        "0686239727": _GK_PHONE_APART,
        "8373849325": _GK_PHONE_APART,
        "8035335277": _GK_PHONE_APART,
        "qCHr6ciTKuJa12sDWhy7Dim4GFTCVbhS1hIKTpJUd9g=": _ER_SIGNATURE,
        "35.611.147.7-037.086": _GK_NPWP,
        "cb11fbb48084d1f27fe56b845df184ecde2e5ca07e37193903c92c92109391a2": _ER_SIGNATURE,
        "2348156241119": _GK_CSV,
        "66233627460": _GK_CSV,
        "edffb3cf4ca55cd1be513c5796fa31b865be9a537d36111764cc2456b276172e": _ER_SIGNATURE,
        "447705937220": _GK_PHONE_APART,
    },
}


_EX_PHONE_UNNAMED = ("a phone with no word for one before it, or a word not read: a mobile "
                     "money receipt's counterparty, a chat's reply, a roster's column with no "
                     "header, Tok Pisin's, Kiribati's and Malagasy's words, a number in brackets")
_EX_ID_UNNAMED = ("an id under a name that names no document or under words not read: a "
                  "provident fund's or an insurer's 'Member No', a student's or a client's id, "
                  "a sheet's column whose header is in a script not read, a ration card, a "
                  "call's reply to an id's ask, a sheet whose amounts hold unquoted commas")
_EX_CODE_APART = ("a code, a PIN, a password or an answer named words away or in words not "
                  "read: Kiriol's, Tok Pisin's and Samoan's, a gate's code 'alterado para', a "
                  "USSD menu's PIN, a security answer under 'resposta' or after an arrow")
_EX_KEY_ID = "Razorpay's key id (rzp_live_, rzp_test_): the public half, shipped to checkout pages"
_EX_UPI_BANK = ("a UPI id at a bank's own handle (@icici): merchants' payment addresses there "
                "are clean in older corpora")
_KNOWN_MISSES_EX: dict[str, dict[str, str]] = {
    "corpus_ex": {
        "258858764631": _EX_PHONE_UNNAMED,
        "28573856": _EX_ID_UNNAMED,
        "deaeb235f751a73e6dfc42674f3b9f7540ad128a4c90321efb3ebbae03edbdd0": _ER_SIGNATURE,
        "9888356": _EX_PHONE_UNNAMED,
        "854875567": _EX_PHONE_UNNAMED,
        "141838130": _EX_ID_UNNAMED,
        "5024": _EX_CODE_APART,
        "956 06 83 56": _EX_PHONE_UNNAMED,
        "305651": _EX_CODE_APART,
        "35fae93e0ba3126a2030f620bb1f7a59f7f4c54b5527820aa3ca8c4eee32fe4e": _ER_SIGNATURE,
        "4704": _EX_CODE_APART,
        "063890082": _EX_ID_UNNAMED,
        "605924888": _EX_ID_UNNAMED,
        "289379249": _EX_ID_UNNAMED,
        "668734": _EX_CODE_APART,
        "866046125": _EX_PHONE_UNNAMED,
        "1036#": _EX_CODE_APART,
        "626387": _EX_CODE_APART,
        "845429710": _EX_PHONE_UNNAMED,
        "476572647": _EX_ID_UNNAMED,
        "723208711": _EX_ID_UNNAMED,
        "936 044 572": _EX_PHONE_UNNAMED,
        "Escola n.\u00ba 12 do Rangel": _EX_CODE_APART,
        "Mindelo": _EX_CODE_APART,
        "0281": _EX_CODE_APART,
        "581 82 90": _EX_PHONE_UNNAMED,
        "875529": _EX_CODE_APART,
    },
    "corpus_ey": {
        "5fFR2X5nWGFVyzX+S9uypAzsTQX7efKo1dXw8WfOdY0=": _ER_SIGNATURE,
        "033 46 485 75": _EX_PHONE_UNNAMED,
        "034 20 700 65": _EX_PHONE_UNNAMED,
        "8528": _EX_CODE_APART,
        "355 93 34": _EX_PHONE_UNNAMED,
        "6830": _EX_CODE_APART,
        "3633654473": _EX_ID_UNNAMED,
        "76158844480": _EX_ID_UNNAMED,
        "29204942096": _EX_ID_UNNAMED,
        "7c4fccce8e71f7b400cac27f380d06caa489bb03ca40dab08d25b952dda1b3d8": _ER_SIGNATURE,
        "1575 8828 7548": _EX_ID_UNNAMED,
        "q6mxuvoXA34CQJbPsnr4aVgsV6KRoMW65OR9TyWQKhM=": _ER_SIGNATURE,
        "034 30 243 74": _EX_PHONE_UNNAMED,
        "0389245535": _EX_PHONE_UNNAMED,
        "M0809607453701": _EX_ID_UNNAMED,
        "P0402739339357": _EX_ID_UNNAMED,
        "261339153646": _EX_PHONE_UNNAMED,
        "681207": _EX_CODE_APART,
        "2 79 46 29": _EX_PHONE_UNNAMED,
        "698435107": _EX_PHONE_UNNAMED,
        "243814130011": _EX_PHONE_UNNAMED,
        "1134 3304 8639": _EX_ID_UNNAMED,
        "1526637894": _EX_ID_UNNAMED,
        "0692947460": _EX_PHONE_UNNAMED,
        "243890230833": _EX_PHONE_UNNAMED,
        "353 49 25": _EX_PHONE_UNNAMED,
        "3730": _EX_CODE_APART,
        "P2506026143926": _EX_ID_UNNAMED,
        "L0901584421688": _EX_ID_UNNAMED,
        "e534d4497a186feb734feee73c43de1d21dd6b71b9d7c3f37db8ab80edbc545e": _ER_SIGNATURE,
        "452915132": _EX_ID_UNNAMED,
        "2482577778": _EX_PHONE_UNNAMED,
        "J1809941262197": _EX_ID_UNNAMED,
        "S200793501017D": _EX_ID_UNNAMED,
        "673398762": _EX_PHONE_UNNAMED,
        "0333987017": _EX_PHONE_UNNAMED,
        "74321006": _EX_PHONE_UNNAMED,
        "05435853": _EX_ID_UNNAMED,
    },
    "corpus_ez": {
        "820421160": _EX_ID_UNNAMED,
        "tSX67HDXY1eqO+0KrDvSJ+g9VpBFDEmq+AEi4wfJpiI=": _ER_SIGNATURE,
        "rzp_live_4Mkv5QhBJZuOiR": _EX_KEY_ID,
        "Kamala": _EX_CODE_APART,
        "rzp_live_HbqwhQvO9xK1VD": _EX_KEY_ID,
        "73706 65969": _EX_PHONE_UNNAMED,
        "338086611910": _EX_ID_UNNAMED,
        "WAP290127556": _EX_ID_UNNAMED,
        "7658215643": _EX_PHONE_UNNAMED,
        "WAP939929499": _EX_ID_UNNAMED,
        "9731081818": _EX_PHONE_UNNAMED,
        "TNAHD08183550008460597": _EX_ID_UNNAMED,
        "8823972073": _EX_PHONE_UNNAMED,
        "3686869004": _EX_ID_UNNAMED,
        "QTH5241179": _EX_ID_UNNAMED,
        "5897a30bad1568f3dc80f27a181e5200f8dd4c82f6e91383d930c012b4663e09": _ER_SIGNATURE,
        "yYxflpJBxBs0oLFmI0J7Bo+2dCPLoDsrPP0OMStWOrA=": _ER_SIGNATURE,
        "KL9633403898": _EX_ID_UNNAMED,
        "8199760301": _EX_PHONE_UNNAMED,
        "84340 51819": _EX_PHONE_UNNAMED,
        "7676099052": _EX_PHONE_UNNAMED,
        "Priya+Rajesh%2C+Door+No.+7%2C+Gandhi+Road%2C+Peelamedu%2C+Co"
        "imbatore+641004%2C+Ph+9044423306": _EL_ENCODED,
        "24400256952181": _EX_ID_UNNAMED,
        "rzp_test_2kPuhzSE0C4x8H": _EX_KEY_ID,
        "KA-4720100094444": _EX_ID_UNNAMED,
        "8336318837": _EX_PHONE_UNNAMED,
        "783036519e37abc6576f6bd5a8867f144c50ba67980213a474acb8e8c1efd801": _ER_SIGNATURE,
        "4789999002526979": _EX_ID_UNNAMED,
        "anita.kushwaha@icici": _EX_UPI_BANK,
        "79860731065005": _EX_ID_UNNAMED,
        "8388928915": _EX_PHONE_UNNAMED,
        "rajibmo@icici": _EX_UPI_BANK,
        "6994295968": _EX_ID_UNNAMED,
        "7528632870": _EX_PHONE_UNNAMED,
        "7581854137": _EX_ID_UNNAMED,
        "9074467740": _EX_PHONE_UNNAMED,
        "2627094119": _EX_ID_UNNAMED,
        "9008877653": _EX_PHONE_UNNAMED,
        "APKOL85766550001685264": _EX_ID_UNNAMED,
        "AAY140955373": _EX_ID_UNNAMED,
        "DAV Public School Bhubaneswar": _EX_CODE_APART,
        "PB1972782314": _EX_ID_UNNAMED,
        "7490134556": _EX_PHONE_UNNAMED,
        "PB3212499328": _EX_ID_UNNAMED,
        "6650659339": _EX_PHONE_UNNAMED,
    },
    "corpus_fi": {
        "Zugdidi": _EX_CODE_APART,
        "568706221": _EX_PHONE_UNNAMED,
        "06340595": _EX_ID_UNNAMED,
        "0770027793": _EX_PHONE_UNNAMED,
        "Darkhan": _EX_CODE_APART,
        "62311746181": _EX_ID_UNNAMED,
        "59027511790": _EX_ID_UNNAMED,
        "6XF0SAL": _EX_ID_UNNAMED,
        "a626d305bb2505ed12d1cd0181085a6c": _ER_SIGNATURE,
        "26683305091": _EX_ID_UNNAMED,
        "52825717": _EX_ID_UNNAMED,
        "33150498211": _EX_ID_UNNAMED,
        "19281081907": _EX_ID_UNNAMED,
        "PGlyZ03ea8ckE9bDwkW7xlSCLz7EmZBbuefy/nf8Zq+b1rXiNM6m/GlvAddn"
        "d74hhGlv4V9ETlDVprbmHQFRCtF/5CetYY4Fh6Vh5dTZYkeUr0Gq5H2NIIkn"
        "0bKE4eGmOA3uPvbYG9dtdwAe5mN0YCT96smQtBvJmrlklxX+WdOPNmiYdXDE"
        "R9iWxkNSofAUbo7B0EsaaKVs2zUsWhYmWUsxtIPC9dgft9cBsxlWTiJcs2z5"
        "8Al92kZT5nAOIpWzu3SOyvfg35pYhpgWocUyGjWHbHwxRkbGusqoe3p6GpJ0"
        "VNn0vbGY/3dFWBIFp3ZMGttxZeU3sP0Ph/VQhV/41Q==": _ER_SIGNATURE,
        "203": _EX_CODE_APART,
        "35278762554": _EX_ID_UNNAMED,
        "26026873330": _EX_ID_UNNAMED,
        "54253903307": _EX_ID_UNNAMED,
        "EB0AASA": _EX_ID_UNNAMED,
        "753N4PH": _EX_ID_UNNAMED,
        "087": _EX_CODE_APART,
        "598866706": _EX_PHONE_UNNAMED,
        "5cfc984ee5954554a2c17f207f71eb7a": _ER_SIGNATURE,
        "XToxjGuvAY14tFwwAopArFvje7sNUz8itEzFmndVG5OQX/aYSUknXjweOkFw"
        "culiGpLE+bQ297Pqyv5ktEB9e4H65VnsxehVKJGI38RsZ6MznOrTJJOXQByO"
        "0OXXMdAOFca0rh9dz0NSa1WLfGgktum2uz1tfOzdWOiU+xkqhAbYGVKB03Uc"
        "3LsCK4hJ+QrLvGtEDHB4CN8AOki+fbbOd1cTFxa6+zuXfhb+p/X7+Ob4Vl8N"
        "lS9UIkob19w4lOONDTdBWY007n0mIUaq+ezTtAAlSakrczsXtUXndjrubuO6"
        "lncsvnFs+BWclnqPa9oGNTQjk8pqyRHjlqHE6ew2cQ==": _ER_SIGNATURE,
    },
    "corpus_fj": {
        "413251": _EX_CODE_APART,
        "W933789881": _EX_ID_UNNAMED,
        "98 144 617": _EX_ID_UNNAMED,
        "765347500": _EX_ID_UNNAMED,
        "5122353112": _EX_PHONE_UNNAMED,
        "985-76-6418": _EX_ID_UNNAMED,
        "622231216": _EX_ID_UNNAMED,
        "H54529947": _EX_ID_UNNAMED,
        "3126177814": _EX_PHONE_UNNAMED,
        "639760965": _EX_ID_UNNAMED,
        "389358": _EX_CODE_APART,
        "386556235": _EX_ID_UNNAMED,
        "W693414394": _EX_ID_UNNAMED,
        "809371911": _EX_ID_UNNAMED,
        "66 296 692": _EX_ID_UNNAMED,
        "f9b275917120a9f58e791696e1da39130a7b2a19bda991c0facdbe39e317b610": _ER_SIGNATURE,
        "U3546733902": _EX_ID_UNNAMED,
        "U7561182801": _EX_ID_UNNAMED,
        "GHW44057009901": _EX_ID_UNNAMED,
        "140313718": _EX_ID_UNNAMED,
        "776387323": _EX_ID_UNNAMED,
        "1e0718717b16ab1263a95a36c53c23fa758c958e2c60ec8bdd84d29d5e1e1269": _ER_SIGNATURE,
        "45 443 874": _EX_ID_UNNAMED,
        "953412533": _EX_ID_UNNAMED,
        "02080502": _EX_ID_UNNAMED,
        "Soo-jin%20Park%2007%2F07%2F1957": _EL_ENCODED,
        "276588384": _EX_ID_UNNAMED,
        "940252974": _EX_ID_UNNAMED,
        "b8f648abb93d7f5c5ef64e88e6bf0476b0cbdb27c917c9ec657c10e3ffc1bbef": _ER_SIGNATURE,
        "1053560335": _EX_ID_UNNAMED,
        "244370641": _EX_ID_UNNAMED,
        "372-00-8022": _EX_ID_UNNAMED,
    },
    "corpus_fk": {
        "3359602": _EX_ID_UNNAMED,
        "0537183709971": _EX_ID_UNNAMED,
        "Taro_hibiscus_2221": _EX_CODE_APART,
        "8059185": _EX_ID_UNNAMED,
        "429777": _EX_CODE_APART,
        "7271 7555": _EX_PHONE_UNNAMED,
        "758 5757": _EX_PHONE_UNNAMED,
        "SuvaVanua62&": _EX_CODE_APART,
        "0661642210971": _EX_ID_UNNAMED,
        "4803005": _EX_ID_UNNAMED,
        "(679) 8301302": _EX_PHONE_UNNAMED,
        "774 1756": _EX_PHONE_UNNAMED,
        "f433f8188d9a4e3b6b49e03310def50d45a8de2692e0ba89b6c7189f02ebc5d8": _ER_SIGNATURE,
        "122256": _EX_CODE_APART,
        "72667694": _EX_PHONE_UNNAMED,
        "7GHZtqVzB1K0xVJTu": _EX_CODE_APART,
        "4rkdphTIfOvnlgu9Ym%": _EX_CODE_APART,
        "ffea87a0b310f0c1bd180d12df1d6deb6d1c89f4994febd1788c5e6dddb362d6": _ER_SIGNATURE,
        "774 3775": _EX_PHONE_UNNAMED,
        "749 5823": _EX_PHONE_UNNAMED,
        "debbe37b8c9005d05490bba15eaf063f479ec462ab0292702d2428a9e98e58e5": _ER_SIGNATURE,
        "3cfc269351c27cb7439447c46dcc8a46c632f4a4967e59401be1b5f94e0ed00c": _ER_SIGNATURE,
        "28731635": _EX_ID_UNNAMED,
        "964805": _EX_ID_UNNAMED,
        "304481": _EX_ID_UNNAMED,
        "88.94.62.04": _EX_PHONE_UNNAMED,
        "TN103993": _EX_ID_UNNAMED,
        "003588": _EX_CODE_APART,
        "(679) 9339714": _EX_PHONE_UNNAMED,
        "7947 2560": _EX_PHONE_UNNAMED,
        "3949/1981": _EX_ID_UNNAMED,
        "931 9429": _EX_PHONE_UNNAMED,
        "7308 8792": _EX_PHONE_UNNAMED,
        "3485957442": _EX_ID_UNNAMED,
        "3485722552": _EX_ID_UNNAMED,
        "3078971845": _EX_ID_UNNAMED,
        "3745384091": _EX_ID_UNNAMED,
        "7343507": _EX_PHONE_UNNAMED,
        "8536464": _EX_ID_UNNAMED,
        "251152356": _EX_ID_UNNAMED,
        "287835227": _EX_ID_UNNAMED,
        "855066": _EX_ID_UNNAMED,
        "1144401052": _EX_ID_UNNAMED,
        "3058626195": _EX_ID_UNNAMED,
        "15218338": _EX_ID_UNNAMED,
        "1563871": _EX_ID_UNNAMED,
        "8987463": _EX_ID_UNNAMED,
        "9a1/pK7pvz467wVh+AbakP5wUuWkVOjIVRY2847nEsg=": _ER_SIGNATURE,
        "805 1482": _EX_PHONE_UNNAMED,
        "1455464305": _EX_ID_UNNAMED,
        "982983150": _EX_ID_UNNAMED,
        "7247805": _EX_ID_UNNAMED,
        "704569": _EX_PHONE_UNNAMED,
        "353022514": _EX_ID_UNNAMED,
        "19166239": _EX_ID_UNNAMED,
        "676 7719999": _EX_PHONE_UNNAMED,
        "027 722 851": _EX_PHONE_UNNAMED,
        "587293": _EX_ID_UNNAMED,
        "98.88.69": _EX_PHONE_UNNAMED,
        "806 4653": _EX_PHONE_UNNAMED,
        "037066": _EX_CODE_APART,
        "1156270": _EX_ID_UNNAMED,
        "5072612": _EX_ID_UNNAMED,
        "884284": _EX_PHONE_UNNAMED,
        "606656": _EX_CODE_APART,
        "216110803": _EX_ID_UNNAMED,
        "143311255": _EX_ID_UNNAMED,
        "205515555": _EX_ID_UNNAMED,
        "761 9410": _EX_PHONE_UNNAMED,
    },
}


_KNOWN_MISSES_ER: dict[str, dict[str, str]] = {
    "corpus_er": {
        "53262015": _ER_PHONE_UNNAMED,
        "406282": _ER_CODE_APART,
        "9c08927c-ae57-4848-9090-fb254c2a992a": _ER_UUID_KEY,
        "EB92154": _ER_ID_UNNAMED,
        "3a30b760-203a-4fe5-ad49-6ed631e44524": _ER_UUID_KEY,
        "b9f5f9707d5bbd933e4a241d65099eec01407ec6a1b044da05ca4ed81004c1de": _ER_SIGNATURE,
        "9m-WNfOzQEAW61Btbs3zfEI0rckj2pnXWT4d111n-ac": _ER_CSRF,
        "1e9577d7-d5ab-4fdc-a64f-3f0468e068a2": _ER_UUID_KEY,
        "108655706302978867": _ER_ID_UNNAMED,
        "7c5eba021711473613ef6c2e0ef82b15fc467fe93e81dd58a0c1f9a51bb5d9fb": _ER_SIGNATURE,
        "Njc0NDAxY2IzMDc4MTVmZjBkMjJlYTRmODExYzI5MzM=": _ER_SIGNATURE,
        "e6637-35bae": _ER_CODES_UNNAMED,
        "94053-6cc9b": _ER_CODES_UNNAMED,
        "eaf7d-97861": _ER_CODES_UNNAMED,
        "nCee7OMJe7MsT6xA3YYYg2Z72d5_QulsIwOusc5bl9o": _ER_CSRF,
        "c214f-4f9b1": _ER_CODES_UNNAMED,
        "04edf-28642": _ER_CODES_UNNAMED,
        "c6b40-8cdae": _ER_CODES_UNNAMED,
        "d56191e28c2f2388dc10da5bffacefd697312bba82af983eadec108b08c3ce05": _ER_SIGNATURE,
        "d39a4d82-4aeb-4f9c-9ec6-211d3d1d0915": _ER_UUID_KEY,
        "NbNh9cl-CA5DRQ659d-EAIpIqOjCsIHr0FcElNPrrx1": _ER_CSRF,
        "756e61d6b91cda411dfd72f1a3447c745c48c0b90a16be3388e7f14697f06035": _ER_SIGNATURE,
        "95 729 733": _ER_PHONE_UNNAMED,
        "NIhi1Ay5oGsiAq-ge4Qk2zKNoImteEAo-Clc-Udkzmd": _ER_CSRF,
        "105780486257874993": _ER_ID_UNNAMED,
        "b7fcd3ce2818f26ff6bff254199c973226b722641b0e812e92776e2051ccb9b2": _ER_SIGNATURE,
        "K367517": _ER_ID_UNNAMED,
        "97 676 121": _ER_PHONE_UNNAMED,
        "0362": _ER_CODE_APART,
        "K608872": _ER_ID_UNNAMED,
        "0771175367": _ER_PHONE_UNNAMED,
        "94d7efec-c22a-44e5-b469-7ea93ff69b52": _ER_UUID_KEY,
    },
    "corpus_es": {
        "029b5722c7e62049cc58bfddc811be3470816c76f80be0aba9cf505e3349b650": _ER_SIGNATURE,
        "672-35877122": _ER_ID_UNNAMED,
        "1457b2d5bcff7578a51c5568f8c0b2085c052b8063b65cd154b6889117586b81": _ER_SIGNATURE,
        "ef59bcf78c6347481bc4a01f6e513d7b4172374bb742ee678ae2a10cab39dc31": _ER_SIGNATURE,
        "Mansaf%Fridayx": _ER_CODE_APART,
        "672-89478752": _ER_ID_UNNAMED,
        "672-64000926": _ER_ID_UNNAMED,
        "041b4071dd134cdbcf3ed6276ed60ca4ee46bca4e85015cd13761ac34669eca5": _ER_SIGNATURE,
        "336789714": _ER_QUOTED_HEADER,
        "351305628": _ER_QUOTED_HEADER,
        "365441856": _ER_QUOTED_HEADER,
        "0500738782": _ER_PHONE_UNNAMED,
        "\u0627\u0644\u0634\u0648\u0646\u0629": _ER_ANSWER_SCRIPT,
        "20c1965d7b880e1d948beb75b044a8fe8b9e28ebd1049852b9dbc8a3e1bd460d": _ER_SIGNATURE,
        "dak92mel5jzcozujwus1b6soad6i7trd": _ER_APP_SID,
        "672-20447768": _ER_ID_UNNAMED,
    },
    "corpus_et": {
        "7bf353b8ff5d2580aa07afdc40c665e163812c52812e2aad120935ebe5a99ab8": _ER_SIGNATURE,
        "\u06f0\u06f1\u06f9\u06f3\u06f5\u06f3\u06f1\u06f2\u06f4\u06f4": _ER_ID_UNNAMED,
        "09139633848": _ER_PHONE_UNNAMED,
        "09015801346": _ER_PHONE_UNNAMED,
        "c198fdbd8c042e58dfdaf74252c74bf51ed798866e764eebdff6113ac8b1b0e7": _ER_SIGNATURE,
        "7c3c47a2-db75-4e55-967c-06c052cd24b7": _ER_UUID_KEY,
        "d61d6e98-e625-4747-a984-aeb131fbb709": _ER_UUID_KEY,
        "GVqAE6yd3ioqapW0": _ER_CODE_APART,
        "0912-451-1331": _ER_PHONE_UNNAMED,
        "zahra_262397": _ER_CODE_APART,
        "e4eb92cdb094d33e371e327c0a64f04f690f83a24c7c5e03c2f4c1b215bdf3b1": _ER_SIGNATURE,
        "6E4802193F2462D134FCE7AF1DEC662A83422F3414C9D03411929C3394EFB69B": _ER_SIGNATURE,
        "7a3db06d-5e11-4267-bd12-804e3b2ad4c4": _ER_UUID_KEY,
        "0722814535": _ER_PHONE_UNNAMED,
        "0777703763": _ER_PHONE_UNNAMED,
        "09123205914": _ER_PHONE_UNNAMED,
        "\u0622\u0642\u0627\u06cc \u06a9\u0631\u06cc\u0645\u06cc": _ER_ANSWER_SCRIPT,
        "%D8%AD%D8%B1%D8%A7%20%D8%B4%D8%A7%DB%81%7C09229560351": _EL_ENCODED,
        "ED7BE6CE39A224F929FFAB6618A78451B3F8BB5BA5846C37796D922F3E424FA5": _ER_SIGNATURE,
        "f59nxfhp2w": _ER_SALT,
        "f6236819-3010-44a4-b313-e22c424e7bdb": _ER_UUID_KEY,
        "09156449843": _ER_PHONE_UNNAMED,
        "c79f90ee35aabb5daf6fcb21ae9635ed182b570534db69e04325d705ccd974c7": _ER_SIGNATURE,
        "AB218E3ED92C033AB23EB272E26808631F4CCF3E11F4A773CFAFC854328DD080": _ER_SIGNATURE,
        "7t6p93jnsl": _ER_SALT,
        "2E6C42756247EB4A49D1875F40E2F5EC53F1887C9D77D6087BD2DD44596E1060": _ER_SIGNATURE,
        "200fisy36n": _ER_SALT,
        "3c77256c-918d-43e9-8ff1-1ec9610b0ae0": _ER_UUID_KEY,
        "5e8d1b9ab1d38d2ab2adbdcf89893c77f984747e688dfb32583cf99ab142d2bb": _ER_SIGNATURE,
        "0FCD098940412D2662FF90455CAF8FECCABD4F95078A992FFE8A3D8FAF75A814": _ER_SIGNATURE,
        "1i2bne91gx": _ER_SALT,
    },
    "corpus_eu": {
        "4086": _ER_CODE_APART,
        "0499a695e369e72d39ed3a2123dd573372ebdd107199bbfe95ac3509ed3106b1": _ER_SIGNATURE,
        "b74fc3aea60fc8fd083d9dd6e78b82462da51ba517c1274001ca741f51ef7c88": _ER_SIGNATURE,
        "0daa0b66f924c652bf2c47c30f5ebfc956ec9fc4231326d36800be7e9c8242d2": _ER_SIGNATURE,
        "eyJub21icmUiOiAiQW5hIEx1Y8OtYSBCYXR6IERlIGxhIENydXoiLCAiZG9jdW1lbnRvIj"
        "ogIjA4MDExOTg4NTM1NTgifQ==": _EL_ENCODED,
        "6603-4955": _ER_PHONE_UNNAMED,
        "(509) 3285 0742": _ER_PHONE_UNNAMED,
        "eyJub21icmUiOiAiUm9zYSBFbGVuYSBMw7NwZXoiLCAiZG9jdW1lbnRvIjogIjAzMDEtMT"
        "k3Ny03MjE4MyJ9": _EL_ENCODED,
        "3832": _ER_CODE_APART,
        "51532b7df078c3e8cdf01512de3c18c7a29ea49fdfff0d0254e8f97491017ae3": _ER_SIGNATURE,
        "eyJub21icmUiOiAiTWFyaWVsYSBSb2Ryw61ndWV6IExhY2F5byIsICJkb2N1bWVudG8iOi"
        "AiMDQ3NTI0MjM4NTcifQ==": _EL_ENCODED,
        "4346-4233": _ER_PHONE_UNNAMED,
        "3b2a1e9a602b1996e5d3cf7ec865f5f9c152332555d0c33d79d33fd86562a8ce": _ER_SIGNATURE,
        "eyJub21icmUiOiAiUm9zYSBFbGVuYSBGdW5lcyIsICJkb2N1bWVudG8iOiAiMDgwMSAxOT"
        "Y2IDIwNzg1In0=": _EL_ENCODED,
        "8ebd10f28d083b35641864f119d7a89b2aba1857e2b44768d4cea333824c56b9": _ER_SIGNATURE,
        "2289": _ER_CODE_APART,
        "72470327-6": _ER_ID_UNNAMED,
        "75673007-4": _ER_ID_UNNAMED,
        "fdccf2d98ebe831bd9759fd87e0578217d97cbb614282c8a6d54e14a9070e311": _ER_SIGNATURE,
        "(509) 3334 5577": _ER_PHONE_UNNAMED,
        "5597": _ER_CODE_APART,
    },
    "corpus_ev": {
        "945404901": _ER_PHONE_UNNAMED,
        "91245125": _ER_ID_UNNAMED,
        "0992104390": _ER_PHONE_UNNAMED,
        "3138648894": _ER_PHONE_UNNAMED,
        "MiQuitoBravo82": _ER_CODE_APART,
        "0971058818": _ER_PHONE_UNNAMED,
        "VUi5efHFiUHtwx": _ER_CODE_APART,
        "1114636304": _ER_ID_UNNAMED,
        "925839493": _ER_PHONE_UNNAMED,
        "3100213639": _ER_PHONE_UNNAMED,
        "915267154": _ER_PHONE_UNNAMED,
        "4309": _ER_CODE_APART,
        "eyJub21icmUiOiAiVGXDs2ZpbG8gVGljb25hIENvbmRvcmkiLCAiZG9jIjogIjY1NjA2NDU4In0": _EL_ENCODED,
        "1032226669": _ER_ID_UNNAMED,
        "95736beab7e0874db9a0245861588cab4447023a1d1d2b7b94afecc870f59230": _ER_SIGNATURE,
        "Olimpia2023!": _ER_CODE_APART,
        "3158551796": _ER_PHONE_UNNAMED,
        "3233345416": _ER_PHONE_UNNAMED,
        "aba6a15e15031609bdb0dfc38831d352db1e5e7db6e57758032d4e05f386f0e0": _ER_SIGNATURE,
        "968253583": _ER_PHONE_UNNAMED,
        "de14eaf8b7381d685d447d30e18f6e3e9f26e861f441b4eaa09168546e471878": _ER_SIGNATURE,
        "1557": _ER_CODE_APART,
    },
    "corpus_ew": {
        "vofi-p5ur": _ER_CODES_UNNAMED,
        "6d9t-ah4g": _ER_CODES_UNNAMED,
        "xjnm-cfea": _ER_CODES_UNNAMED,
        "31892485": _ER_ID_UNNAMED,
        "%7B%22ime%22%3A%20%22Nikolina%22%2C%20%22prezime%22%3A%20%22Kova%C4%8D"
        "evi%C4%87%22%2C%20%22jmbg%22%3A%20%221507952730216%22%7D": _EL_ENCODED,
        "t=1733203980,v1=79616c33c60a2d446e52ff5e1e6d29a5bd002a90e1164d8e92c04f"
        "cb2bcb341e": _ER_SIGNATURE,
        "SzpQUnxWOjAxfEM6MXxSOjE2MDY4ODEwNDkxNjQ0NzYyOHxOOlN0ZWZhbiBJbGnEhywgS3"
        "JhbGpldm98STpSU0QxMjgsMDB8U0Y6MTg5fFM6VXBsYXRh": _EL_ENCODED,
        "t=1739218859,v1=cb314754c83b9768784ff93de561aff5285fc16da84b1dde3e07d3"
        "16f6bea91f": _ER_SIGNATURE,
        "1886874541": _ER_ID_UNNAMED,
        "2115442894": _ER_ID_UNNAMED,
        "%7B%22ime%22%3A%20%22Katarina%22%2C%20%22prezime%22%3A%20%22Stankovi%C"
        "4%87%22%2C%20%22jmbg%22%3A%20%220805000763444%22%7D": _EL_ENCODED,
        "SzpQUnxWOjAxfEM6MXxSOjI2NTkzNzkzODEzNDQ1OTAwNHxOOlRpamFuYSBTdGFua292ac"
        "SHLCBLcmFsamV2b3xJOlJTRDM0OTQsMDB8U0Y6MTg5fFM6VXBsYXRh": _EL_ENCODED,
        "a208adbcdb341999a1ec795fde4ad53ffb1db4436b2ce8c3f794282b5a7dfb59": _ER_SIGNATURE,
        "3859872901": _ER_ID_UNNAMED,
        "%7B%22ime%22%3A%20%22Ivana%22%2C%20%22prezime%22%3A%20%22Nikoli%C4%87%"
        "22%2C%20%22jmbg%22%3A%20%222105999803370%22%7D": _EL_ENCODED,
        "H3-ZpMPHVhOL_T7L2nfBKZqNDD4d8HttuHLN9sOL4gj": _ER_RESET_PATH,
        "SzpQUnxWOjAxfEM6MXxSOjI2NTMyNjgyMDg4MzUxNjIxN3xOOkFuYSBQZXRyb3ZpxIcsIE"
        "5vdmkgU2FkfEk6UlNEMzc5NywwMHxTRjoxODl8UzpVcGxhdGE=": _EL_ENCODED,
        "t=1722225507,v1=31d620b67a639bb505335fcc9d4be2ac6f20dec0be1d8d8f5629d0"
        "44cf984334": _ER_SIGNATURE,
    },
}

_KNOWN_MISSES_EL: dict[str, dict[str, str]] = {
    "corpus_el": {
        "lyrTkLJl4MQFhSEqK5UVUwtYYOeTIr9wQA9UA0USrILGopYZlnO17TrzK4I6KxUEwAirFLU3mFng04O5"
        "jDX7IOmeoVJhj/kiXb4FDsFaXmLy/xvG3zxINo1iJ9M0WlYUh6rmO9RGL4hZgX8JmxnbFqcguUqqyWil"
        "sdoKfNxf4c1v0Mu+MdBaB01xjrUlXA4e3P1dQv8SgDz40gljE9aZxWB+N0NS2jo/DDLsRXP0xzeoWTvG"
        "D/VA1kQpg4byyYG+cy+fUn/ASv2r5Yn5W/cH3GAC3CxtIMrs0//Zqc0V4Jm9Pd3ud3YEai+BCQ+sZzlw"
        "gycBkNPwS+hwl5Zx1VrGgA==": _EL_SIGNATURE,
        "2843441912": _EL_ID_UNNAMED,
        "4-273-34765213-02": _EL_ID_UNNAMED,
        "92eb26a8c6fedf2fd0e013902325431dccbe39ea166648a1c64af2c3612b0ab8": _EL_SIGNATURE,
        "2369205329": _EL_ID_UNNAMED,
        "2939751265": _EL_ID_UNNAMED,
        "k3gipgzcRaF:APA91bkSpCoFizJYy8TgwAQ0QObo3bvBS-TQc7SlymdUeodPRPOgDrceUIpYSEggufYY"
        "7LYJ_wbt2SxBtNJAsd75N43PgClzYkESlKVmKn2W1YiAMILBJC1zA7A1LlZ1y_di60PIzv9E": _EL_PUSH_TOKEN,
        "1576763591": _EL_ID_UNNAMED,
        "X3j-zCAqt9w:APA91b5ur72ckIYIvAcqLeKkDmyyILOUp2HX27hSRhVJs7QucH2_erzALUELtwndlkDb"
        "6Y5L2NuzlC6vwfM9jKlrpvnY61Id_lSRHxkZoZ0piZcZ6MQNK6_T9ea5cRCP6Z1KvXTgwZP3": _EL_PUSH_TOKEN,
        "26835649353": _EL_ID_UNNAMED,
        "1932451022": _EL_ID_UNNAMED,
        "NHv3be76tyJIZooy5nO0VTgcE0qbGf0gv31WNKS9p+0=": _EL_SIGNATURE,
        "2970720682": _EL_ID_UNNAMED,
        "1092288909": _EL_ID_UNNAMED,
        "a7887ea43de0a12cab860ea3e0eb16b0742547d7acc5d8cc69a5a97b9fa53c9d": _EL_SIGNATURE,
        "1768039719": _EL_ID_UNNAMED,
        "khcQKv/u3kPr2047t8JZ+bs257N9FpwzcMD9hwabRpQ=": _EL_SIGNATURE,
        "1298303767": _EL_ID_UNNAMED,
        "2334227192": _EL_ID_UNNAMED,
        "faB8YRf1ZKp:APA91bEMplI2YwTGZwS8hWbPD2OPUWny_tc4Z97JrdtpPF_wp-g2baX1J1AN4itJu0aE"
        "qA3Is2YiyiK30QVzlLO7k-LdnC-ULAsPpjMrmhzy5gg1cc1s2HPjDCNMkY5zlnZuqjyayCjW": _EL_PUSH_TOKEN,
        "6247 1040": _EL_PHONE_UNNAMED,
        "%D9%81%D9%8A%D8%B5%D9%84%20%D8%A7%D9%84%D8%B9%D8%AA%D9%8A%D8%A8%D9%8A": _EL_ENCODED,
        "2632755928": _EL_ID_UNNAMED,
        "0556640598": _EL_PHONE_UNNAMED,
        "1661588986": _EL_ID_UNNAMED,
        "53240071": _EL_ID_UNNAMED,
        "eyJuIjoiQWJlZXIgQWwtSnVoYW5pIiwiaWQiOiIxNTU2MDc5NjIwIiwibXJuIjoiNzM1MTc3OCJ9": _EL_ENCODED,
        "53299685": _EL_PHONE_UNNAMED,
        "88e2ce3b5ae3b49d2aa2afe406d4c90e6c2b302c5ab7db427c6b5f4f7ef87956": _EL_SIGNATURE,
        "2705136006": _EL_ID_UNNAMED,
        "Khobar@304!": _EL_PASSWORD_APART,
        "94497334": _EL_PHONE_UNNAMED,
        "89149a8b3e568ff5edfbb20048aaa78ccd79c6887ee665536c8296c606002667": _EL_SIGNATURE,
        "IV49AMIQOKiy7J56u3vtDwe3coBv2uqKYuBv9wQ17JDuO1xj956zcqVssoHGk4bEXI16YIq9DNlzzlnt"
        "3KoqpmENN2DEqHw92p/BaYCeP0bNfRTvoH8oyh9dJiTF7K4KF91nsroan6WSrKx+nRn3dWEyABzknFee"
        "mcQkorPvTXLz/V56/xtV3mr1Z7HY7mlfEZRvLPWXUc4FKHMvQ/fm7pZ+fnaQ4L9+YLIPy2rYy6Ly/03H"
        "cIJe3cedwFVwkaKWI/dlR6SMWU0CrFFx+i1liw6MQbll0xeiX53mN+04M+WD91YweChgZXXaTObcDl3H"
        "u8ACZS84Q0U0tYfRxUttvw==": _EL_SIGNATURE,
        "dFzd2tUKUs/V4XHvYhw6eZCJuzaWduAddET/50iVHvY=": _EL_SIGNATURE,
    },
    "corpus_em": {
        "1537877656": _EL_BENIN_NPI,
        "2570027566": _EL_TIN_COLUMN,
        "9196804510": _EL_TIN_COLUMN,
        "7845827099": _EL_TIN_COLUMN,
        "1495346395": _EL_BENIN_NPI,
        "6280258232": _EL_BENIN_NPI,
        "9dad1072b77f7e145ce9eff53cd91ffaa2c7a4e14b69e37ef2ac961bda4dc9544a925e5a60182ac4"
        "baf1a3c5088513c90d67a1d8799e3c5e4dbb5d73f6147d46": _EL_SIGNATURE,
        "0000": _EL_TEST_PIN,
        "6b646230c7d4dd25f4ccfe4a338c3c7cb221dbba85bf85cd671bf32f5acbab4b": _EL_SIGNATURE,
        "6310689839": _EL_TIN_COLUMN,
        "7028562634": _EL_TIN_COLUMN,
        "8188759069": _EL_TIN_COLUMN,
        "cd78b8f86a4f195a0b44f9741094c3da01a84254e192afae617411029bab30f3e3b1e07bfee4da7d"
        "9024eeba9604951769942f7e1304cdaa66f77d37123430d7": _EL_SIGNATURE,
        "1eba36d7db839b4a4a4fee0bcd7435fbb7b253aa0a0cca0a0276c57e0712d0fdaf5e9ef24b1f0817"
        "aba84acc9b8bfeea63ba2f630b2372ef719c5c90d61ed3ec": _EL_SIGNATURE,
        "0f20869a69f3572093ae3d24856cb9996af7b9381db6a8c096812eb62516257b": _EL_SIGNATURE,
    },
    "corpus_en": {
        "0100378853": _EL_PHONE_UNNAMED,
        "0105074587": _EL_PHONE_UNNAMED,
        "1199277881735092": _EL_ID_COLUMN,
        "0744458920": _EL_PHONE_UNNAMED,
        "27849688682": _EL_XML_TURNS,
        "bd87e6a32cf10dee0b09904af9bd78fab4b9d67642d7b970aebbf78768d5016e": _EL_SIGNATURE,
        "250726809423": _EL_PHONE_UNNAMED,
        "9832428b992b40b6fc9267f3449c66c786e5ef5576b34cf4cfb5657655abd782": _EL_SIGNATURE,
        "72505aab74ce724a1190108165e3df14dec409c79ae70e39f6c835adb4b71ebd2c197adc7620eff5"
        "d0e3cab20bd4f3861512081ac53d5ac2673ba33b7f9b8bef": _EL_SIGNATURE,
        "sifuri saba nane tatu tisa saba tano moja sifuri tano": _EL_SPOKEN_SWAHILI,
        "0742576856": _EL_PHONE_UNNAMED,
        "0743331978": _EL_PHONE_UNNAMED,
        "0766479680": _EL_PHONE_UNNAMED,
        "0745165999": _EL_PHONE_UNNAMED,
        "0747551031": _EL_PHONE_UNNAMED,
        "84d00b90a5ac79b4ef73d6f48395043d58e513cbb205c75204b6d8b05c85f8ad8626bf1b255266aa"
        "f298eca3ddaedd0d5c305e019becebe66386afbd9e95f526": _EL_SIGNATURE,
    },
    "corpus_eo": {
        "2a05:d018:3d70:f34b::": _EL_IPV6_PREFIX,
        "2a02:2f0c:2129:fce5::": _EL_IPV6_PREFIX,
        "Meltemi!10x": _EL_PASSWORD_APART,
        "Rakia$7628x": _EL_PASSWORD_APART,
        "QW5hIEJpdm9sfDIwMDc3MTAwOTA0NjJ8MDY4ODQ2MjA4": _EL_ENCODED,
        "90ecf58bac6abdac3bf870134dcc2b8af2875fb1852be5ff8e2ab4492cd91128": _EL_SIGNATURE,
        "ZWNhNGNlZTRmYzVjYTllYjU1MTUzMmI3ZGYwNzhjM2U=": _EL_SIGNATURE,
        "d3a2123dd573372ebdd107199bbfe95ac3509ed3106b1aac3ada3559d5bc020e": _EL_SIGNATURE,
        "77 4283043": _EL_RU_PASSPORT,
        "79 6161338": _EL_RU_PASSPORT,
        "Thalassa*9827!": _EL_PASSWORD_APART,
        "1aEX*dfyb5yg": _EL_PASSWORD_APART,
        "sofia64Pssu?": _EL_PASSWORD_APART,
    },
    "corpus_ep": {
        "150970-3252": _EL_ID_UNNAMED,
        "270255-1245": _EL_ID_UNNAMED,
        "080565-8734": _EL_ID_UNNAMED,
        "201042-4466": _EL_ID_UNNAMED,
        "240303A2989": _EL_ID_UNNAMED,
        "862 8578": _EL_PHONE_UNNAMED,
        "ed64fdf7702a36b4385d0e43f9273be4000771a62bb710cdfb0304c54afe2814": _EL_SIGNATURE,
        "ostrabank_ZpLTifQXYlOC67D1xlOeiqucxSiVDB": _EL_KEY_VALUE,
        "2379 5677": _EL_PHONE_UNNAMED,
        "260885-3329": _EL_ID_UNNAMED,
        "130554-4319": _EL_ID_UNNAMED,
        "110782-5949": _EL_ID_UNNAMED,
        "10107515394": _EL_ID_UNNAMED,
        "75ca630237dcb8a2f2b23c0b34bc77bc24bd1fa5506188a39ea9c3fc964ac71b": _EL_SIGNATURE,
        "ae114481055ee46e7bf32047db3a06c5": _EL_ACCESS_ID,
        "WJ9QyucS19AvMp2gUAeSsUfFgUl8oPK+HJN45P/ED75cNRqsKz5b70CO8W7R==": _EL_SIGNATURE,
        "wdFkc9jd0TmnzJJN1z4liGaH7jsbauw9aPZjci9f5Sk=": _EL_SIGNATURE,
        "07044708773": _EL_ID_UNNAMED,
        "8b059fcee5ce346edd778e1d65d9fc14": _EL_ACCESS_ID,
        "47709242052": _EL_ID_UNNAMED,
        "f818b6a5765067fb677f4004bdd7eeda77ebac64877bbb8a6da08b06534992fe": _EL_SIGNATURE,
        "3ae9233c10a13dbb5c12959a2e7275b31f37f609": _EL_KEY_VALUE,
    },
    "corpus_eq": {
        "9add3a6306b1213a746bbe2312c5bd7ef7a7f27a5a608a51a1958e39c2c5f186": _EL_SIGNATURE,
        "LQR9/ElQ9iKJCl9KnwJfyRduuBV5DtNoyXn5VMM6vBw=": _EL_SIGNATURE,
        "085884750899": _EL_PHONE_UNNAMED,
        "09463875735": _EL_PHONE_UNNAMED,
        "231167": _DX_TOLD_IN_CHAT,
        "46c6be7f46fbaa70afead03758bd1d7560fef400c2f0c566c52e8ae9f2572392eeef362990455290"
        "d8d1ace396a42394ebb62ac9c13e9e6a470359f1270df9b3": _EL_SIGNATURE,
        "h0YbiyazDsEygIcYyUOmMWnkoBGvPGZtdoBV4ZT1": _EL_FORM_TOKEN,
        "09455790691": _EL_PHONE_UNNAMED,
        "081886484508": _EL_PHONE_UNNAMED,
        "1d4da8d88920073a1a613f5691962e484295e10de3fdf95291fb7363bece1de0": _EL_SIGNATURE,
        "083852106209": _EL_PHONE_UNNAMED,
        "827 4219": _EL_PHONE_UNNAMED,
        "0127494961": _EL_PHONE_UNNAMED,
        "0108868545": _EL_PHONE_UNNAMED,
        "081821499410": _EL_PHONE_UNNAMED,
        "62-856-0685-4771": _EL_PHONE_UNNAMED,
        "62-896-4329-9387": _EL_PHONE_UNNAMED,
        "088705750047": _EL_PHONE_UNNAMED,
        "9f76ff94bb55d36a77f96322fbee9a48f839c81bfa587bb1d98c88e6bfbb4d958b27c18fffa1f2bf"
        "1143a0a028c25e8cc0a46d549b46ef59e1fdf2a85b17982b": _EL_SIGNATURE,
        "0130010391": _EL_PHONE_UNNAMED,
        "5491": _DX_TOLD_IN_CHAT,
    },
}


KNOWN_MISSES: dict[str, dict[str, str]] = {
    **_KNOWN_MISSES_FX,
    **_KNOWN_MISSES_FR,
    **_KNOWN_MISSES_FL,
    **_KNOWN_MISSES_EX,
    **_KNOWN_MISSES_ER,
    **_KNOWN_MISSES_EL,
    **_KNOWN_MISSES_DX,
    **_KNOWN_MISSES_DR,
    **_KNOWN_MISSES_Z,
    **_KNOWN_MISSES_CR,
    **_KNOWN_MISSES_CX,
    **_KNOWN_MISSES_DL,
    **_KNOWN_MISSES_Y,
    **_KNOWN_MISSES_Q,
    **_KNOWN_MISSES_N,
    **_KNOWN_MISSES_R,
    **_KNOWN_MISSES_G,
    **_KNOWN_MISSES_L,
    **_KNOWN_MISSES_K,
    **_KNOWN_MISSES_J,
    **_KNOWN_MISSES_I,
    **_KNOWN_MISSES_H,
    **_KNOWN_MISSES_F,
    **_KNOWN_MISSES_E,
    **_KNOWN_MISSES_D,
    **_KNOWN_MISSES_C,
    **_KNOWN_MISSES_B,
    **_KNOWN_MISSES_M,
    **_KNOWN_MISSES_P,
    **_KNOWN_MISSES_S,
    **_KNOWN_MISSES_O,
    **_KNOWN_MISSES_A,
    **_KNOWN_MISSES_U,
    **_KNOWN_MISSES_V,
    **_KNOWN_MISSES_X,
    # Corpora VA, VB and VC (LLM-serving operations text, mostly clean; the classes that slip
    # past redactors, in six surroundings; records as observability backends store them).
    "corpus_va": {"679551805": ("an SSN bare in Postgres's 'Failing row contains (...)', no "
                                "column named (nine digits alone are no SSN)")},
    "corpus_vb": {
        **dict.fromkeys(("Mar%C3%ADa+Jos%C3%A9+Fern%C3%A1ndez", "S%C3%B8ren+%C3%98deg%C3%A5rd",
                         "Siobh%C3%A1n%20N%C3%AD%20Bhriain", "%C5%81ukasz%20Wr%C3%B3bel"),
                        _NAME),
        **dict.fromkeys(("Flat+3%2C+47+Marchmont+Road%2C+Edinburgh+EH9+1HX",
                         "Storgatan+5%2C+114+51+Stockholm",
                         "Storgatan%205%2C%20114%2051%20Stockholm",
                         "1-2-3%20Jingumae%2C%20Shibuya-ku%2C%20Tokyo"), _ADDRESS),
    },
    # Corpora VJ, VK and VL (security incidents around LLM apps; fine-tuning and evaluation
    # data; email and calendar as an assistant reads them).
    "corpus_vj": {
        **dict.fromkeys(("7yoZfl8yXkVTnpS-*3!w", "Copper2024$"),
                        "a password under a key spelled in leetspeak (kw_p4ss)"),
        **dict.fromkeys(("639 761 863", "490 949 040", "144 440 019"),
                        "a TFN as an audit log's value=, its kind named by another field "
                        "(pii_detected=au_tfn)"),
        **dict.fromkeys(("AAhiWC9ILV83TWVWR_W-6j5Ga38g7oaO82AgbPST4edc3Qz8O5dP14CbyKC38Vmrv"
                         "VX9lkSqTyUUVGWE7mwjgicr-30ipa-tna-ks",
                         "S7KWS70fY9PtkLkQoBevWmFE_evil_ks",
                         "mQ2pTxHoNPHoDYlgW5zsynCGhKsqAlbK7m2cjwbWmyU.vj3C4pSlhx1AkEN1LHlr-9.GS"),
                        "a key written backwards by a jailbroken model"),
        **dict.fromkeys(("ghp_AnKv", "91RC2Sen", "CMise9mP", "ghp_RdRQ", "3EOlP7ej", "TeTvE5li"),
                        "a key leaked in eight-character chunks, one a line"),
        **dict.fromkeys(("72306154442", "76444185204", "325264399", "614 666 909",
                         "111 484 416"),
                        "an id after 'ID on file to' or 'document number' with no check its "
                        "generic name takes"),
        **dict.fromkeys(("cobalt-orbit-nimbus-saffron", "tundra-mango-mango-lilac"),
                        "a passphrase of words alone in parentheses after 'password' (no "
                        "digit to tell it from prose)"),
        **dict.fromkeys(("6d9a98fd3e0cd07ccdbbc25cbfde5181", "9534f1483ddce854391fa052c1a10df7",
                         "ccabfdd52f09958f8bb675dbe8e2b04b"),
                        "a SECRET_KEY told in the answer after the question names it ('It is "
                        "set to ...')"),
        **dict.fromkeys(("6753", "f05a766c45f452593a4d16f1ce20f39f",
                         "6392a0f8ef9ddea0c58afd35b595b462", "339269", "190331"),
                        "a client secret in prose or short and numeric (a stand-in's shape)"),
        **dict.fromkeys(("0 3 0 4 7 1 0 4 4", "4 6 0 2 7 6 3 0 1", "4 5 3 3 0 8 6 6 9"),
                        "nine digits spelled out one at a time with no word for an SSN"),
        "932293620a8359866bba1842b54e29b8": ("a session id percent-encoded as an exfiltration "
                                             "URL's query value (c=session%3D...)"),
    },
    "corpus_vk": {
        "Use8xW4isvihJT3z4FCpmv5o8iZqVo41hO37TvQS": "a key under an unnamed key (x_magic)",
        "l0byQFBUH6kwWzC9U0y6nS4svHibJKcxCAN5mnKi": ("a key with no prefix passed to "
                                                     "require(\"stripe\")(...)"),
    },
    # Corpora VS, VT and VU (healthcare, pharmacy and insurance; HR, payroll and recruiting;
    # public-sector records and forms).
    "corpus_vs": {
        **dict.fromkeys(("eyJuYW1lIjogIlJoeXMgTGxld2VsbHluIiwgImRvYiI6ICIxOTQ3LTA0LTEzIiwg"
            "ImlkIjogIjQyOTk4MzEwOTgifQ==",
            "eyJuYW1lIjogIkRlY2xhbiBNb3dicmF5IiwgImRvYiI6ICIxOTc1LTA3LTA0Iiwg"
            "ImlkIjogIjY5ODk0NDM1NjEifQ==",),
                        "a patient's name, birth date and number in a base64 header (name"
                            "s and dates are not read)"),
        **dict.fromkeys(("399130331", "652387861",),
                        "an SSN as an NCPDP claim's CY field, control characters between fields"),
        "W721765026": (
            "a KVNR in an HL7 IN1 segment's field after IN1-36"),
        **dict.fromkeys(("Harriet%20Oduya", "Yannick%20Brossard",),
                        "a person's name percent-encoded in a query (names are not read)"),
        **dict.fromkeys(("TVNIfF5+XCZ8UkVHfEhPU1B8fHwyMDI1MDIwNzE0MzU0OXx8QURUXkEyOHw4ODg1"
            "MDU3MHxQfDIuNQ1QSUR8MXx8TTkyNzc4NzMyfHxQUllDRV5MQUNITEFOfHwxOTk2"
            "MDkxN3xNfHx8fHx8fHx8fHwzNjc5ODIyNzI1",
            "TVNIfF5+XCZ8UkVHfEhPU1B8fHwyMDI0MDcwOTEzMTE0M3x8QURUXkEyOHxNU0c3"
            "NzQ5OTk1NTAwMDV8UHwyLjUNUElEfDF8fDIxMjUyNjd8fFBSWUNFXkxBQ0hMQU58"
            "fDE5OTgwNTA3fE18fHx8fHx8fHx8fDYxMzA2NjY0MjM=",),
                        "an HL7 message base64-encoded in a queue's event (a long base64 "
                            "token is decoded only in a URL or as JSON)"),
        **dict.fromkeys(("515009519", "556162018",),
                        "a BSN as DICOM's PatientID (a hospital's record number there, mo"
                            "st often)"),
        "GQYbVCCJ8kwqH-lTGIDJPgrlspdp": (
            "a results link's token under t= (a generic name, read only for t"
                "okens that switch case often)"),
    },
    "corpus_vu": {
        **dict.fromkeys(("M6FKJDS", "3JP", "RL43ZZ0", "WW9",),
                        "a vehicle document's security code and a plate seal's code (ZB I"
                            ", Stempelplakette)"),
        **dict.fromkeys(("0S2ISC", "XBXCP0",),
                        "a tax return's reference code as a log's ref="),
        **dict.fromkeys(("Paprika#9415bramble", "DGRC@kbvof095",),
                        "a certificate's PIN in ELSTER ERiC's debug line"),
        **dict.fromkeys(("qw72u", "glzet",),
                        "an appointment's cancellation code in a citizen office's letter"),
        "N3A": (
            "a three-character Cl@ve PIN"),
        **dict.fromkeys(("52584956X", "58700836Y",),
                        "a DNI after 'Para' or 'Titular:', no name for it"),
        "9k vg O2 US": (
            "a DVLA check code spaced in pairs"),
        **dict.fromkeys(("343339383433303354", "363736303733383358",),
                        "a DNI hex-encoded under subj_hex (hex is decoded for '@', '-' or"
                            " '+' only)"),
        "8496-2898": (
            "a Canadian UCI after its name in parentheses"),
        "48119054": (
            "an authorisation code numbered ('kod autoryzacyjny nr 1 ...: N')"),
        **dict.fromkeys(("75QW29987", "44TJ27141",),
                        "a passport under travelDocument.number in JSON escaped twice"),
        "9040039934": (
            "a Dutch vehicle transfer code (tenaamstellingscode)"),
    },
    "corpus_vt": {
        "370 0059934": ("a mobile number written national, no country code, after "
                        "'al numero'"),
        "6771137528": "ten digits as an SMS gateway's to=, no country code",
        **dict.fromkeys(("61438759255", "35760954820"),
                        "a Steuer-ID in a DATEV record, its column named in a header section "
                        "lines above"),
    },
    # Corpora VP, VQ and VR (identity and sign-in systems; travel, hospitality and logistics;
    # IoT, telecom and connected vehicles).
    "corpus_vp": {
        **dict.fromkeys(("730717-5435", "951119-9680"),
                        "a ten-digit personnummer under an LDAP attribute named for nothing"),
        "c6070f1d92c60f52c2c6be8b45d75f0ae159c8e043b5a2a3": (
            "a PIV management key as ykman's --new-management-key argument"),
        "2806:2f0:d7ef:21de:feef:da4a:92b:570": (
            "an IPv6 address with its port joined by a colon after Samba's 'ipv6:'"),
        "165125934104923": "a NIR as a CSV row's field in an import error, its column unnamed",
    },
    "corpus_vq": {
        **dict.fromkeys(("FR38522732786784", "FR34385227327", "GB797060107", "DE646331033",
                         "DE1511215", "GB480806636000", "DE647532075", "60866270634",
                         "09XIICY6136Z2ZR", "06TJMCB4080P2Z3", "51.490.050/0001-35",
                         "EXM580105G98"),
                        "a company's tax or customs id (VAT, EORI, GSTIN, CNPJ, RFC): a "
                        "business's, not a person's"),
        **dict.fromkeys(("K6SV1YUAFfCguXWoxHApEp0MbFlViBRF", "l7icpkd34fd0lw8ssoio7mvmommp90z7",
                         "l73sc8npgxnp4rvmxs97ddircw5u2zv2", "tcJf7br9oMLuuR1wCKCyc3nXCmA1Pbla"),
                        "an OAuth client_id (public by design; the client_secret beside it "
                        "is redacted)"),
        "8499": "a room's access code after 'chambre 439 :' (digits between name and code)",
        "54744861P": "a DNI in parentheses after a recipient's name, no name for it",
        **dict.fromkeys(("40MS31157", "HRCZ1CG76"),
                        "a passport number inside Alloggiati Web's fixed-width record"),
        "hts66MVM.gqHz": ("a password told in Spanish, its user and system between "
                          "'contraseña' and 'es'"),
    },
    "corpus_vr": {
        **dict.fromkeys(("Prinsengracht+512-2%2C+1017+KH+Amsterdam",
                         "Lindenstra%C3%9Fe+14%2C+10969+Berlin"),
                        "a street address (no detector reads addresses)"),
        **dict.fromkeys(('t2D\\"=4kmLFm6xmQ', 'j@=\\"i6eD!w1Mnx0a'),
                        "an RTSP URL's password with an escaped quote inside, in a JSON string"),
        "@6CXs\\\\\\\\+OY3B&!U": "a password with escaped backslashes in JSON inside JSON",
        **dict.fromkeys(("54ac8e0a6f1c2f4383180676b30c8e40", "c1b5e0335fa750e5a9f7c3ee28f5efb7"),
                        "a hawkBit token as swupdate's -k argument"),
    },
    # Corpora VM, VN and VO (databases and data pipelines as their logs print them; mobile and
    # web client telemetry; payments and fintech messages).
    "corpus_wg": {
        **dict.fromkeys(("8966", "5828"), "a till supervisor's code told in French, a till's "
                        "number between the name and the code"),
        **dict.fromkeys(("Sommer#3831", "#MarzoLager53"),
                        "a password told in Spanish after a parenthesis naming the user: the "
                        "user's name is read as the value"),
        "hQxH4QW9aZOz7KoQhcO958F7vgbtHyPX7chNayCI": ("an AWS secret after Polish 'sekretu', its "
                                                     "key id before it"),
        "rTbdENsSfz": _NO_NAME_PASSWORD,
    },
    # Corpora WH to WK (insurance claims, charities, media and streaming, utilities).
    "corpus_wh": {
        **dict.fromkeys(("346", "782"), "a card's code in a call's dialogue, after the agent's "
                        "question and the expiry ('12/29, and the code is 346')"),
        "U3RlZmFubyBNYXJpbm8gLSAzMzMtOTk1NTg3NA==": ("a name and an Italian mobile base64-encoded "
                                                    "in an EXIF comment, no word for a phone"),
        "Tobias%20Pohl%2C%20Gartenweg%2015%2C%2052766%20Leipzig": (
            "a name and a street address, percent-encoded: no detector reads names or addresses"),
        **dict.fromkeys(("069380", "207 946"), "a one-time code told in Italian or French "
                        "('codice di sicurezza', 'code à usage unique') without a verb"),
        **dict.fromkeys(
            ("S29udG9pbmhhYmVyOiBPbGl2aWVyIE1lcmNpZXIKSUJBTjogRlI3NiAxMTMxIDUxOTkgOTg0MCAy\n"
             "MDExIDQ3NzggMTI2ClRlbGVmb246IDA3IDI5IDAyIDYwIDY1Cg==",
             "S29udG9pbmhhYmVyOiBIZW5yaWsgS8O8aG4KSUJBTjogREUzNiAyMDA4IDczNzQgNzQ4OCA5Mzcw\n"
             "IDczClRlbGVmb246ICs0OSAyMjEgNzUxMDQ2Nwo="),
            "a MIME part's base64 body broken into lines: each line alone decodes to no value"),
        "07549168719": "a UK mobile after an e-mail and a slash, no word for a phone",
    },
    "corpus_wi": {
        **dict.fromkeys(("7393", "9080"), "a PIN told in Norwegian with words between ('PIN til "
                        "innsamlingsbøssene i lageret er X')"),
        "/cMh3lYNrRL5AbJzfpBPp8m/hpM8KfLy48/GGa6/ALgP": ("a client secret that starts with '/', "
                                                         "read as a path"),
        "939 202 444": "a Portuguese mobile after 'enviado para', no word for a phone",
    },
    "corpus_wj": {
        "wez5e9hzonejscksij84rc24uvuixziwi379o05y": "a private feed's token in a URL's path",
        "2200": ("a PIN told in Italian with words between ('il PIN del telefono satellitare "
                 "della troupe in Libia è X')"),
    },
    "corpus_wk": {
        **dict.fromkeys(("10A76A62A046AE1F4D6111480F9CC81F", "C736E26267E1DE0B138857484A8F50F1"),
                        "a smart meter's key under 'authentication' in escaped JSON (a word "
                        "naming a process, not a key)"),
        **dict.fromkeys(("WLXJ37!JKm5FZ58", "nube-chmura-regen-91"),
                        "a password under a key spelled in leetspeak (auth_k3y_plain)"),
        **dict.fromkeys(("957 949", "884 033"), "a one-time code in German prose after 'liest "
                        "... vor', in parentheses"),
        "569500": "a one-time code told in Dutch ('eenmalige code ... :')",
        "A1449": "a digicode of a letter and digits ('digicode bât. C A1449')",
    },
    # Corpora WA to WF (legal and real estate, education, call centres, Windows administration,
    # gaming and moderation, research and clinical trials).
    "corpus_wa": {
        **dict.fromkeys(("1722627476", "1342974556"), _NIP),
    },
    "corpus_wb": {
        **dict.fromkeys(("HaCJ1x",), "a meeting's 'code secret' told in French without "
                        "a verb (a word for a code, not a password)"),
        **dict.fromkeys(("633496365", "886430113", "200590885", "567205053"), _HEADERLESS_ROW),
        **dict.fromkeys(("517844837", "069894088"), _FIXED_WIDTH_SSN),
        "hsXuHxkOif": _NO_NAME_PASSWORD,
        **dict.fromkeys(("224947630", "413558198"), _HEADERLESS_ROW),
        "}/PETVCNgz?&zeY.g9OoM<xS;n8WRh,g": ("a PHP salt holding '<', ';' and ',', read as a "
                                             "value's end"),
        "612 464 723": "a Spanish mobile after 'llamó ... desde el', no word for a phone",
    },
    "corpus_wc": {
        **dict.fromkeys(("1 00 08 13 118 055, clé 12", "2 00 02 69 223 462, clé 35"),
                        "a NIR said with its key apart ('..., clé 12'): thirteen digits alone "
                        "are no NIR"),
        **dict.fromkeys(("D as in Delta, d, u, A as in Alfa, r, t, E as in Echo, at aol dot com",
                         "L as in Lima, d, u, A as in Alfa, r, t, E as in Echo, at aol dot com",
                         "Lima Tango, one eight, zero six, six seven, Charlie",
                         "Lima Golf, four four, six nine, seven zero, Alfa"), _NATO_SPELLING),
        "hag6-wpbu": "a second backup code on the line after the first, no word for it",
        **dict.fromkeys(("oito três seis, quatro um um, sete sete zero, traço zero seis",
                         "cinco dois sete, um três seis, um cinco nove, traço quatro um",
                         "valentina eins neun acht sieben at web Punkt de",
                         "v a l e n t i n a b seven nine at uol dot com dot br",
                         "capital H, arvest, five two, dollar sign",
                         "capital P, elican, four six, exclamation point",
                         "O E J P R 6 6 1 5 P"), _SPOKEN_OTHER),
        **dict.fromkeys(("six five four, zero three nine", "nine eight two, eight eight three",
                         "8, 6, 4, 4", "8644"), _SPOKEN_OTP),
        "Vm9pY2VtYWlsIGZyb20gMzEyLTY5MS0zMDM0ICg1NSBzZWMpClRyYW5zY3JpcHQ6IHBsZWFzZSBj\n"
        "YWxsIG1lIGJhY2sgYWJvdXQgbXkgY2xhaW0sIG15IG1lbWJlciBJRCBpcyBvbiB0aGUgY2FyZA==": (
            "a MIME part's base64 body broken into lines: each line alone decodes to no value"),
        "7+0+0+9+4+0+6+8+3": "an SSN said digit by digit, form-encoded with '+' between them",
        "be99985a-b53b-3c5c-9f2b-14a8fc471da0": ("a Genesys cookie's UUID value under its name "
                                                 "(ININ-Auth-Api), a name no list holds"),
    },
    "corpus_wd": {
        **dict.fromkeys(
            (
             ("UwBlAG4AZAAtAE0AYQBpAGwATQBlAHMAcwBhAGcAZQAgAC0AVABvACAAJwBpAHkAZQByAC4AagBvAGEAcQB1"
              "AGkAbQBAAHkAYQBoAG8AbwAuAGMAbwAuAGoAcAAnACAALQBGAHIAbwBtACAAJwBuAG8AcgBlAHAAbAB5AEAA"
              "cwB0AG8AbgBlAGIAcgBpAGQAZwBlAC0AbABhAHcALgBjAG8AbQAnACAALQBTAHUAYgBqAGUAYwB0ACAAJwBC"
              "AGEAYwBrAHUAcAAgAGQAbwBuAGUAJwAgAC0AUwBtAHQAcABTAGUAcgB2AGUAcgAgAHIAZQBsAGEAeQAwADEA"),
             ("UwBlAG4AZAAtAE0AYQBpAGwATQBlAHMAcwBhAGcAZQAgAC0AVABvACAAJwBxAGMAYQByAHYAYQBsAGgAbwA3"
              "ADkAQABoAG8AdABtAGEAaQBsAC4AYwBvAC4AdQBrACcAIAAtAEYAcgBvAG0AIAAnAG4AbwByAGUAcABsAHkA"
              "QAB5AGEAbQBhAGIAdQBrAGkALQBzAGgAbwBqAGkALgBjAG8ALgBqAHAAJwAgAC0AUwB1AGIAagBlAGMAdAAg"
              "ACcAQgBhAGMAawB1AHAAIABkAG8AbgBlACcAIAAtAFMAbQB0AHAAUwBlAHIAdgBlAHIAIAByAGUAbABhAHkA"
              "MAAxAA==")), _UTF16_BASE64),
        "marguerite.abernathy@sable-analytics.io": ("an address glued to the next word by '-' "
                                                    "(AD FS's 'X-The user name ...')"),
        "Ember&amp;Pebble93": _XML_ESCAPED_VALUE,
    },
    "corpus_wf": {
        "Ybb6UtyMW-9Iq-2iAH2xPvnIguhx3Guy": "a personal link's token in a URL's path (/l/X)",
        "419259920": _FIXED_WIDTH_SSN,
        "d87c0acecf0dba4693d06e7e8b769e41": "a PHP config's $salt (a salt is no credential alone)",
        "Mcslfi891!BH": "a password told in Italian without 'è' ('password temporanea X')",
    },
    "corpus_vm": {
        "799196308": "nine digits as a Hibernate binding, no name for them",
        "LX8t1Jt9swwvUiNW3JNpItd6_RnFrLQZy8s7vMVwUTr": (
            "a token as sp_executesql's @p0, its column named in the statement before"),
        "91735895G": "a DNI in a mysqldump row, its column named in no line of it",
        "35764201949": "a Steuer-ID in a pg_dump row, its column named in no line of it",
        "8845": "a PIN as a Hibernate binding, its column named in the statement after",
        "558792": "a one-time code after a phone and '|' in a Redis SLOWLOG's ZADD",
        **dict.fromkeys(("6hlww-hes77", "btq2z-bykqr", "2rige-vq15w"),
                        "recovery codes as an INSERT's values, the table named before"),
        "684643": "a one-time code as an INSERT's value, its column named in the list before",
    },
    "corpus_vn": {
        **dict.fromkeys(("963 856", "214 415"),
                        "a one-time code split in two in a replay's OtpInputView text node"),
        **dict.fromkeys(("v93b-gjbw", "qk8p-cjp8", "7gqy-ekhm", "h6b3-gkqa", "wqh9-h6uy",
                         "t9rf-gm8p"),
                        "backup codes a '·' apart on a screen named TwoFactorBackupScreen, "
                        "told in Portuguese"),
        **dict.fromkeys(("187", "262"),
                        "a card's code as a replay's text node, its field named in a comment"),
        "631 268971": "a Spanish mobile as a notification's to=, split 3/6",
    },
    "corpus_vl": {
        **dict.fromkeys(("928 288 881", "440 975 891"),
                        "a conference line's PIN or ID: corpus KA counts them clean, a "
                        "meeting's shared access"),
        "0621 485987-74": "a German dial-in number with its extension after a dash",
        "399437022": "nine digits after 'ID number ... on file', no check a generic name takes",
        "668229": "a gate's code in French after 'désormais', its '#' after",
        "Nr!BldzLXEfi": "a password after Spanish 'contraseña del portal de proveedores:'",
    },
    # Corpora VG, VH and VI (support chats in twelve languages; documents as a RAG pipeline
    # extracts them; LLM gateways and their observability).
    "corpus_vg": {
        "645": "a card's code after Chinese 安全码是 (no detector reads the Chinese name)",
        **dict.fromkeys(("653017", "564621", "289738"),
                        "a one-time code's second mention on its line (received=, after "
                        "expected=): six digits are not looked for again"),
        "seis cuatro ocho nueve seis tres": _SPOKEN_CODE,
        "восемь восемь четыре восемь восемь девять": _SPOKEN_CODE,
    },
    "corpus_vh": {
        "pat_9mmo6484uafinyr02c3w9bo3w7x5rh6c1dxsmo6j": ("a key in curly quotes under a token's "
                                                          "name (“ocr_vendor_token”: “pat_...”)"),
        **dict.fromkeys(("447273692", "758912226", "784068385"),
                        "an SSN in a 1099's column under RECIPIENT'S TIN, the payer's TIN "
                        "between"),
        "5448 4859\\n0402 0619": ("a card broken across an OCR'd line inside a JSON string "
                                  "(its escaped break is no line's end)"),
        **dict.fromkeys(("1677769079224", "3938860923361", "1776867623027", "2544871321363"),
                        "France's numéro fiscal (SPI) on an avis d'impôt: no detector for it"),
        "m35Jz9ke8XO23g04LX6gPcmzJ4Tk1b1MJE1f2kY4": ("a token alone on the line after 'a "
                                                     "long-lived test token was issued:'"),
        "810": "a card's code under 'Security code' in a flattened table's next row",
    },
    "corpus_vi": {
        **dict.fromkeys(("NCDCP9672U", "FYBCO9978G"),
                        "a PAN after 'PAN' (no check digit; a card's PAN has the same name)"),
        **dict.fromkeys(("60y8ATe7quw2rQrWdUnoRNIp", "TxPcTucpcijqt7fsKeRr1oST",
                         "5nrQ8edu4at4xk4H31YTrEMf"),
                        "Langfuse's SALT quoted in a compose file's environment"),
        **dict.fromkeys(("vOBRfxMfD43BcUvXOYHr4dUr", "YOT7x8VZfr2FCotqpK", "AGuziMQXraXFF3Qnxd"),
                        "REDIS_AUTH: a key whose last word is 'auth' alone"),
        **dict.fromkeys(("47d4eb0cf8d5f3d12d7752aa3fcfc7c9",
                         "5642173f1d3b4d5834ea4e2081b5e3338458aedd58580baf943fe64e9951be41"),
                        "hex keys in a Markdown table's 'Key' column"),
    },
    # Corpus VF (an LLM platform's business operations: keys, billing, KYC, support).
    "corpus_vf": {
        "234": "a CVC after a card and a slash, no word for it ('card: 3572... / 234')",
        "1237": "an Amex's CID on an OCR'd card ('CID' alone is most often an id)",
        "NDI4LTY0LTY5MDA=": ("an SSN base64-encoded under 'ssn_b64=' (base64 is decoded where a "
                             "credential is likely: auth fields, long tokens in URLs)"),
        **dict.fromkeys(("558509071", "588 351 478"),
                        "national ids in an ASCII table beside a country column, no header "
                        "naming them"),
    },
    "corpus_vc": {
        "7XecuXjZzrmSleduTJSiD7YbB3N8rcASa3Rb+CMs": ("an AWS secret key's shape under 'sk=' in "
                                                     "logfmt: a two-letter key names no secret"),
        "623376349": ("a nine-digit number under a generic 'document_number' (a BSN's check "
                      "passes one number in eleven: generic names take longer checked ids)"),
    },
    "corpus_ux": {
        **dict.fromkeys(("54804857", "81780995"), "a card told in two halves, a message each"),
        "8824": "a card's CID inside an HTML-escaped XML element (&lt;CID&gt;)",
        **dict.fromkeys(("1672", "6032"), "the CID after an OCR'd Amex card, four digits"),
        **dict.fromkeys(("J15842858", "F30275573"),
                        "a passport's number as an I-9 payload's doc_number, 66 characters "
                        "after 'U.S. Passport'"),
        **dict.fromkeys(("934294539", "581776842", "771666757", "704566797"),
                        "ids under a legacy system's own keys (X_IDENT, TAXREF, natl_ident_val, "
                        "tin_nbr_raw)"),
        **dict.fromkeys(("538899474", "204372330"),
                        "an SSN by position in an IRS FIRE fixed-width B record"),
        **dict.fromkeys(("Steelers$248x", "QUGY6-DpJ0m-RB._Z6"),
                        "a password under French motDePasse in a HAR's escaped postData"),
        **dict.fromkeys(("248370", "3227"),
                        "a voicemail password of digits after 'reset to' (digits alone are "
                        "refused as a password there)"),
        "859640856": "an SSN as an API path's segment (/persons/<n>/benefits)",
        **dict.fromkeys(("998", "537"), "a CVV after 'the code on back is'"),
        **dict.fromkeys(("336228768", "49897761", "903406179"),
                        "driver licences in a markdown table under 'license' (no check to "
                        "read them by)"),
        **dict.fromkeys(("364 901 074", "163 568 611"),
                        "a SIN in Workday's <wd:ID>, its type CAN-SIN in the element after"),
    },
    "corpus_uy": {
        **dict.fromkeys(("333 685 882", "446 979 330"),
                        "a TFN after a question on its own line ('...bond form?? it's ...')"),
        **dict.fromkeys(("063-633181864780", "633-475224497624", "11316091258181",
                         "09976827227013"),
                        "a bank account by position in an ABA or BACS fixed-width record"),
        **dict.fromkeys(("298359", "888197", "174393"),
                        "a one-time code told with no word for a code ('texted me', Irish "
                        "'cód fíoraithe')"),
        **dict.fromkeys(("2406:e001:5108:43bf:9542:ceb6:cb90",
                         "2403:5800:b5c0:d0b7:8708:33e3:35ae",
                         "2406:e001:adf2:a0af:d9a5:d7ce:bacc",
                         "2406:e001:4948:2b9d:6ee0:6e2b:8c5c",
                         "2a00:23c5:517b:8813:1686:566e:a5da",
                         "2406:e001:5361:362a:f0a2:247:6f3f",
                         "2406:e001:59fa:9c4f:cff8:df48:8cdf",
                         "2a01:4b00:6d75:dce5:f6c6:aae6:540f",
                         "2a01:4b00:5ae7:7714:37e:9dd8:f47e",
                         "2001%3Abb6%3A2c30%3A1252%3A4e11%3Ad5a9%3A2a4f",
                         "2406%3Ae001%3A1f5b%3A2da8%3A8650%3Ad7ee%3Af026"),
                        "an IPv6 address of seven groups and no '::' (no address: the "
                        "corpus's generator dropped a group)"),
        "LN bb tS NA": "a DVLA check code of letter pairs told after 'check code is'",
        **dict.fromkeys(("4676  53629  3", "2345  17501  2"),
                        "a Medicare card number OCR'd with two spaces between its groups"),
        **dict.fromkeys(("M416905268", "4789035893"),
                        "a licence card's number under DVS's cardNumber"),
        **dict.fromkeys(("Cardiff_galway1802*", "Bluebell.brisbane23"),
                        "a password told in Irish or te reo Māori (pasfhocal, kupuhipa)"),
        "0231909V": "an Irish PPSN under 'TIN' (a TIN's shape is any country's)",
        "hughe 658184 bm9 np": "a driving licence number typed in lower case with spaces",
        "frk*ciWwhKvwUVB%$l": "a Wi-Fi key after 'SSID ..., key' in prose",
        "6983094234": "a UTR repeated as a payment reference glued to its K (6983094234K)",
        "QSY*0WTtkX8A": "a password after 'tried resetting to', no word for it",
    },
    "corpus_ut": {
        "196812308879": "a personnummer as a payslip PDF's file name in a blob URL's path",
        "683 8262": "an Icelandic number (seven digits) after 'Hringdu í' (call), a verb not read",
        "199509241114": "a personnummer in Skatteverket's XML as <ink:Arendeagare>, no name",
        "MzExMjQ2LTI4NzE=": ("a Danish CPR number base64-encoded in a header (a CPR has no "
                             "check digit to read it bare)"),
        "10014907616": "a fødselsnummer as a tax-card API path's last segment after the year",
        "01 868 59 92": "a Vienna number after 'rufen wir Sie unter' (call you at), not read",
        "22 52 01 00": "a Norwegian landline (no trunk 0) after 'fasttelefon', inside a word",
        "212 – 67 – 2262": "an SSN OCR'd with en dashes and spaces between its groups",
        "31666978381": "a Dutch mobile as a message API's {\"to\": [{\"number\": ...}]}",
        "937 37 579": "a Norwegian mobile as a semicolon row's third field, no header",
        "NH1YDXpYIWMgx6W40AlwQCymScHdhpbz": "a Swisscom API key sent as a client_id header",
    },
    "corpus_uv": {
        **dict.fromkeys(("0284860301", "6280881539", "09906913805", "09907656655"),
                        "an INSERT's values with no column names (Iran's kode melli, mobiles)"),
        "rxivqbka7j": "a payment gateway's integrity_salt (a salt is no secret elsewhere)",
        "SGlyYSBNYWxpa3w0NzQyODA1Njc3NTMwfDE5NzgtMDYtMTU=": (
            "a QR payload in base64 whose text is a name, a CNIC without dashes and a date"),
        "9853497040": "a Nepali mobile (no trunk 0) after 'received from' in a wallet SMS",
        "MzEwMmQ0MjBjZGFjMGYxNGQ2YzQyNTZmfGd3NWlSNzBaN2E3Nw==": (
            "a Postman environment's value whose key hp_access names no credential"),
        **dict.fromkeys(("297120193046", "62167298"),
                        "a civil id and a phone as a payment gateway's udf1 and udf2"),
        "rvUXz0MoZO2iC7ltRZNsDcZI": "a key under Turkish 'anahtar' (key), a word not read",
        "6943": "a card's temporary PIN in Arabic after the card's last four digits",
        "483": "a CVV after Hebrew 'three digits on the back of the card'",
        "090515055491": "a phone number semi-octet encoded in an SMS PDU",
        "admin@1705": "a password after 'router admin ka' (Hinglish), no word for a password",
        "426": "a CVV after Arabic 'the secret code', three digits",
        "1re4qWnB1q1D5EI6uiIFm101TY6JklFW6JLWKcpEWvAXyuuY5aaWc6ZzUD2XdkLw": (
            "a token under SharedPreferences' auth_tkn (an abbreviation not read)"),
        "7742": "a wallet PIN under wlt_pn (an abbreviation not read)",
    },
    "corpus_uw": {
        "75.154.968.2-584.941": "an NPWP whose ninth digit fails its Luhn check (stdnum's too)",
        "J253706283": "an INSERT's values with no column names (a Taiwan id)",
        "0984113257": "an INSERT's values with no column names (a Taiwan mobile)",
        "０８０４６１８２０８９": "a Japanese mobile in full-width digits, no word for it",
        "%E5%A7%93%E5%90%8D%3D%E5%BC%A0%E4%BC%9F%26%E8%BA%AB%E4%BB%BD%E8%AF%81%3D"
        "330106198807180986": ("a percent-encoded name and resident id: the id is redacted, "
                               "the encoded name (no kind of its own) is left"),
    },
    # Corpus UJ (LLM API traffic: requests, tool calls, RAG chunks, traces, caches).
    "corpus_ul": {
        "421": "a card's code in a binlog row's third column (@3='421'): the columns are unnamed",
        "515": "a card's code in a binlog row's third column again",
        "254749895": "an SSN inside a fixed-width record, glued to the name and the birth date",
        "495276409": "an SSN inside a fixed-width record again",
        "8074 6976 6212": _BAD_AADHAAR,
        "242257573128": _BAD_AADHAAR,
        "425539347290": _BAD_AADHAAR,
        "393 2438232": ("an Italian mobile without its +39 in a list of a column's unexpected "
                        "values, no word for a phone"),
        "A7IJQLWBzTkKyboTFxfB": _CLIENT_ID,
        "0HkFIqUwgwYhyTG1qWdb": _CLIENT_ID,
    },
    "corpus_up": {
        **dict.fromkeys(("Tgj5\\T\\t0y#511", "YCaH\\T\\1Uj!022"), _HL7_CUSTOM),
        "four-zero-five, nine-zero, zero-zero-seven-four": (
            "an SSN said digit by digit in words with commas between the groups"),
        "1640392614586": ("a NIR's thirteen digits with its key in the next element "
                          "(<CleNIR>): the check cannot be read from the number alone"),
        **dict.fromkeys(("edf7cd5eb6a41bbaddb0bbc6de2ee143b0d58cb4e8df0549cf8d8dd7bd4a541d",
                         "372ebdd107199bbfe95ac3509ed3106b1aac3ada3559d5bc020e66dd0fdccf2d"),
                        _WEBHOOK_SIGNATURE),
        **dict.fromkeys(("ZRXAqoSHQM", "Quartz!Tulip83", "embe#438PEP*"),
                        _NO_NAME_PASSWORD),
        "340 126": _SPOKEN_OTP,
        "72507081H": "a DNI as a FHIR identifier's value, its type two fields before it",
        "084683288388": "Spain's NASS (social security) as a FHIR identifier, type named apart",
        "1RIRAQRK": "an unblinding authorization code of capitals only after its name",
        "712": "a card's code told in a chat after the card, no name for it",
        "442494227": "an SSN as a DICOMweb query's PatientID= with IssuerOfPatientID=SSA",
        "V866850587": "a KVNR in an HL7 IN1 segment's 38th field (not IN1-36 or IN1-49)",
        "6956725642": "a Medicare number under patientMedicareNo= (the name glued to a word)",
        **dict.fromkeys(("143172", "393173"), _FORM_USE),
    },
    "corpus_uq": {
        **dict.fromkeys(("BF1P-KN7U-30N3", "HXB4ETHMD8MDNK73", "6YNGWWOQL5Y77AKPQ6K2"),
                        _GIFT_CODE),
        "688655": ("a parental PIN in Japanese prose ('...が勝手に688655に変えた'), no name "
                   "beside it"),
        "tqYlD0VgxEzu": "Velocity's forwarding.secret file content alone on its line",
        **dict.fromkeys(("758138705", "282165609"), (
            "SSNs under a 1099 CSV's 'tin' column: a TIN may be an EIN (a business's), left")),
        **dict.fromkeys(("Kiara1999", "Luna2010"),
                        "a password told in a chat or a call after 'la clave es' or 'so', "
                        "past the clause the reading takes"),
        "4147 71 613845 6253": "a card OCR'd from a receipt in 4-2-6-4 groups",
        **dict.fromkeys(("WZQFM3UHO7", "XFMWN"), _CAMERA_AND_CODES_LEFT),
        "UV6qmSa7bpBhdD3B2b": "a password as mysqloo.connect's third argument",
    },
    "corpus_ur": {
        "4311": "a door code in German after 'Hintertür, Code' (four digits after 'Code' alone)",
        "URKP0V7E": "an EDIFACT UNB header's recipient password (S005), by position only",
        "1aAVFNXaOuwM6UCjwuaxOneGL7YJ8joqvJyny_IKWzNC8AbEZs-7Dz_DeRI0rmf7": (
            "a token in backticks told as 'the bearer' after it"),
        "t<WW=.!o}OvAi4=u0hBaOqjr_tM_!4`ICGyX@o8~kCb=Moj~Is": (
            "a webhook secret as a mysqldump INSERT's sixth value, no column names"),
        "153 974": _SPOKEN_OTP,
    },
    "corpus_uo": {
        "0706982393": _USSD_STEP,
        "2594": _USSD_STEP,
        "9184": _USSD_STEP,
        "27768006146": "a South African mobile bare in a pipe-delimited SIM registration row",
        "19544989041": ("a SIP account's number as a Polycom config's reg.1.address and userId "
                        "(an account's name that is a number)"),
        "2600:1700:5ef1:6e2b::": _DELEGATED_PREFIX,
        "4917046433921": "a number in an Asterisk Master.csv row: headerless CSV columns",
        "614 059 188": "a Spanish mobile bare in a semicolon-separated visitor row",
        "467795": ("a Bluetooth passkey after 'passkey entry for <address> (<name>):': the "
                   "device stands between the word and the value"),
        "40598672727": "Matter's manual pairing code as chip-tool's positional argument",
        "004759": "a tracker's password glued to its command ('admin004759')",
        "917193453501": "a phone number as a tracker's SMS command argument",
        "4114804346661952": ("a card inside an ISO 8583 message's raw run (field 2 after its "
                             "length prefix, no separator)"),
        "wldte82hg6xxs7": "a password as Teltonika's numbered parameter (2003:...) in a setparam",
        "0032": "a door code under an intercom's Code1 key",
        "0647": "a door code in Spanish prose after 'código' alone (four digits)",
        "160218": "a lock's code as a JSON number under 'code'",
        "5157": "a keypad code under 'code' in an MQTT event (four digits)",
        "703a20190963b62c49b9": ("OCPP's BasicAuthPassword set through attributeValue, the "
                                 "variable's name two fields after the value"),
        "0926": "a keypad buffer's digits in an alarm panel's debug line",
        "238423": "a smartwatch's password as an SMS command's argument (pw,238423,...)",
        "42535990": ("an eSIM order's confirmationCode (in travel a confirmationCode is a "
                     "booking's reference, left)"),
    },
    "corpus_um": {
        "khrFR80YT1xSjD3VpaGFEifdZa4vfXLwP7Q4G1JB": _CSRF,
        "3:3498543363.5.0.8789221381753:Ttb-hF3-aDIBfPm4sonVHa:00.1.2:1|5778033905.0.2.3:"
        "60684924|3:92027.687351.2jqi8R6gkP5bl5w1LNDsi9NJHb-": (
            "Yandex's Session_id, read up to its first '|' (a log's field separator)"),
        "c210048f0cdca7f0cea6e87aecb20e50": ("a key under 'POSKey': 'key' glued to a word is "
                                             "read as part of it (monkey, hotkey)"),
        "4672": "an old PIN told in Azerbaijani ('köhnəsi 4672 idi': the old one was)",
        "985-195-21-59": _NIP,
        "7603968033": _NIP,
        "7917738576": ("a person's Slovak DIČ: a tax number is left, as a company's DIČ "
                       "and INN are"),
        "644945": _AMOUNT_BETWEEN,
        "sandbox_trMbZPqtAISjtPiwHmQhYcA6SBR3M233eLzengIO": (
            "LiqPay's private key as a constructor's second argument, no name beside it"),
    },
    "corpus_un": {
        "7717": "a safe's combination 'changed to' a number: no word for a code before it",
        "3d62d5e9ae99f6e83892c6dcfc4fbf7b": ("an iCal export link's s= token (32 hex digits, "
                                             "the query's one-letter key)"),
        "sGBDTwyiWIEk6yCsHQLLx6broCoriU3p": _CLIENT_ID,
        "BUqbhk8glbv1VkLBM9W3pBBAWI9El8kr": _CLIENT_ID,
        "833515002": "an SSN in a headerless CSV row, nine bare digits",
        "07863 003857": ("a UK mobile in a Sabre PNR's PHONES element glued to its city code "
                         "('1.LHR07863 003857-M')"),
        "(512) 986-0409": "a US number in a Sabre PNR's PHONES element after its city code",
        "8519": "a door code after Italian 'codice' in a host's message, no word for a door",
        "88996": "a front door's code after 'col codice' again",
        "z3kt%7=44o5ep!4epj9u*f&tb&1u=)p5o!v#1b40x60lm6bb^y": ("Django's SECRET_KEY with '&' and "
                                                             "'=' inside: read as a query's pairs"),
        "po!tr=oz&o7xg4=4izlc^2*@kq&7^*j_(jev0yc6l97k8#=6$r": "Django's SECRET_KEY again",
        "PS-40DL3cSsAW625ISxVJVybaNVAx3Bb2Eb0m4y_wmU": ("a car-sharing unlock token under a "
                                                         "vendor's key name not known"),
        "NsFzAx2B2q9WQyhJnmGUyPABFOJVqI26": "a magic link's one-letter key (?k=...)",
        "92OR04676": "a passport's number after 'number=' in a bag-drop log, no passport word",
        "215986834": ("a passport's number of nine digits in a manifest's doc_number column: "
                      "no check to read"),
        **dict.fromkeys((
            "EEXz5+G5FQFM2UgQOizxCJnvUMhmEEvtB+unR9iTFNE=",
            "c08b5c6a5d610992d5288355c0f2f20c4e0724e0c1c050e131c3e6c9d91741c5",
            "F+hUf7iNeBts/i03LfZPoba9mzBHPQVlqTmDFZtyUKs=",
            "ef799d8c036ae2bb985d9d8f6cacb0526be7e110b4ab916a9d22064a0fa21e5aa9c7f8d621fcf22d2369"
            "5931489b708146dbf989f49d09b75879d005fa5a7695",
            "n1VnuaX3/pZITRsXWEi45bURXPwg0eBbglZGx+774gE=",
            "a03e47273c3039951535a622c042ea835139744453a1218e9c9cf3f9af68d3b9951fcd57376ad0b0cdc1"
            "6fd531405050dc5c858c03edbae4b2befb9a74521acc",
            "o1ESVtCvJg/BULNb3lEw90thA4DVXA3bFOq8LjhQLCM=",
            "a77d839662187e9bc8efc208966439599dbed770ba2a19ca9a91b481ff241f0c",
            "9f26404d94ecdf6a215c928a0c9991bf6c511e7f3db70665317b980332300e5c",
            "23320694bae9082fa1c7b21c0807217e29d09645643d56c8b6aa9b62c17655b0",
            "88bb0613022ed34c6a39c52acfec50a819c838d1e3b659351ed2164d440581e0"),
            _WEBHOOK_SIGNATURE),
    },
    "corpus_uk": {
        "768320102": ("a Senegalese mobile, nine digits without its 0, after 'du' in an Orange "
                      "Money SMS: nine bare digits are as often an amount or an id"),
        "658065895": "a Cameroonian mobile, nine digits, after 'Client' in a withdrawal SMS",
        "2c0f:f4c0:afe6:58fc:82e:b805:d830": ("seven groups and no '::': no IPv6 address (one "
                                              "has eight, or '::' for the zeros left out)"),
        "2c0f:eb58:b5da:fd0f:1fce:56b0:371d": "seven groups and no '::' again",
        "4059": ("a PIN as the last step of a USSD session's text ('1*3*4059', percent-encoded): "
                 "what each step is belongs to the menu"),
        "2057": "a PIN as the last step of a USSD trace's path ('1>1>0711610604>1500>2057')",
    },
    "corpus_uj": {
        "5720": "an Amex card's four-digit code after 'cid' (in logs, cid is most often an id)",
        "311992167": ("an Australian TFN as an agent's action parameter ({\"name\": \"tfn\", "
                      "\"type\": \"string\", \"value\": ...}): the name two fields away"),
    },
    "corpus_uh": {
        "885636472": "an Israeli id under doc_no, its document's type (tz) a field before it",
        "883696": "an SMS template's code under a JSON key 'code' in a sender's log",
        "S3UfGIhDIwDbOT5YYVVVeVRr": ("Razorpay's key secret as the second of a client's auth "
                                     "pair, its id read from the environment"),
        "9301 2098": _UNNAMED_PHONE,
        "%7B%22aadhaar%22%3A%20%22861943689304%22%7D": ("an Aadhaar number in a URL-encoded JSON "
                                                        "body, labelled whole"),
        "3754393627162": ("a Thai citizen id as a PromptPay lookup's proxyValue, its kind "
                          "(NATID) in the field before"),
    },
    "corpus_ug": {
        **dict.fromkeys((
            "JABwAD0AQwBvAG4AdgBlAHIAdABUAG8ALQBTAGUAYwB1AHIAZQBTAHQAcgBpAG4AZwAgACcAVgA0AHYA"
            "PQBtAGwAQwB2AH4ANgBCAFgARgBNAEcAVgAqAEMAJwAgAC0AQQBzAFAAbABhAGkAbgBUAGUAeAB0ACAA"
            "LQBGAG8AcgBjAGUA",
            "JABwAD0AQwBvAG4AdgBlAHIAdABUAG8ALQBTAGUAYwB1AHIAZQBTAHQAcgBpAG4AZwAgACcAYgBsAFMA"
            "NQBGAHUANwBFAEgAIwA5AGkAYwBIACsARAB2AHIAJwAgAC0AQQBzAFAAbABhAGkAbgBUAGUAeAB0ACAA"
            "LQBGAG8AcgBjAGUA"), _ENCODED_COMMAND),
        "608": _SKIMMED_CODE,
        "708": _SKIMMED_CODE,
        "172": ("a card's code as a form's one-letter field (c=172) in an IDS alert's "
                "printable payload"),
        "OeLafIvTl5Ka8": _OLD_PASSWORD_PROSE,
        "*Cjb4ssCUDEIzdPyys": _OLD_PASSWORD_PROSE,
        "{SSHA}hP78DIoRXmMp2bXLf3J2hf9X61bd9u93": _CRYPT_HASH,
        "R&amp;D-Quill28": ("a schtasks /rp password with an XML-escaped '&' (&amp;) in a Sysmon "
                            "event"),
        "Fjord@2023$": "a root password in backticks after 'is still', in a chat message",
    },
    "corpus_ue": {
        "niamh^%2Btest^%40web.de": _CMD_ESCAPED,
        "yuki^%2Bnews^%40voltaic.energy": _CMD_ESCAPED,
        "AAAAADMKImxpYW0uZmVycmVpcmFAbm9ydGh3aW5kLWZyZWlnaHQuZXUSDSs5MTgxNjUwNTM1MzM=":
            _GRPC_WEB_TEXT,
        "AAAAACYKFnRrb3dhbHNraUBibHVlZmluY2guY28SDCszMzY1MDM2MTAzNQ==": _GRPC_WEB_TEXT,
    },
    "corpus_uf": {
        "322642233": _HL7_IN1_SSN,
        "153749412": _HL7_IN1_SSN,
        "271485206": "a Dutch document number in a KYC report's document_numbers list",
    },
    "corpus_ud": {
        "72030119382": "a PESEL typed by a browser agent into a field named only by its "
                       "selector (#pesel), no word for the id in prose",
        "35344232V": "a Spanish NIF as a browser tool's text argument, the field's name "
                     "(\\\"NIF\\\") only in the result after it",
        "6558 8819 9149": "an Aadhaar number in a psql table's row under an 'aadhaar' column, "
                          "beside other columns: a table's id column is not read (as GA's)",
        "kw9oar3-5BmiImYBfT68MlTHlX4DapnY3PTP47V_6MX": "a session cookie in Playwright's cookie "
                                                     "dict, its name and value five keys apart",
    },
    "corpus_ua": {
        "593057175": _PYDANTIC_INPUT,
    },
    "corpus_ub": dict.fromkeys(_UB_WHOLE_URLS, _WHOLE_URL),
    "corpus_te": {
        "siete cinco siete, nueve uno seis, uno dos cero": _SPOKEN_OTHER,
        ("i t quattro cinque a zero uno zero tre zero cinque due cinqu"
         "e sei sette sei sei sette sei tre tre nove zero otto otto ze"
         "ro nove"): _SPOKEN_OTHER,
        "t r e v o r dot oconnor five six at hey dot com": _NUMBER_WORDS_IN_ADDRESS,
        "p fünf m z drei m w vier f neun": _SPOKEN_OTHER,
        "D E 6 5 2 0 0 5 2 8 3 6 8 8 4 7 4 4 5 1 2 5": _SPOKEN_OTHER,
        "j as in john e s s i c a c h e 1972 at aol dot com": _NATO_SPELLING,
        "5196 / 4028 / 5433 / 0249": _WRITTEN_CODE,
        ("five five six three, seven three five nine, one one zero zer"
         "o, three seven two zero"): _SPOKEN_OTHER,
        "a as in apple l i c e oh four at acmecorp dot io": _NATO_SPELLING,
        "Lighthouse": _SECURITY_ANSWER,
        "big T, r, o, v, a, d, o, r, seven, eight, exclamation mark": _SPOKEN_OTHER,
        ("four seven five nine - three nine three two - nine one four "
         "seven - five oh seven one"): _SPOKEN_OTHER,
        "oito um, nove um meia cinco nove, oito zero oito meia": _SPOKEN_OTHER,
        "c67086902": _SPOKEN_OTHER,
    },
    "corpus_tf": {
        "N L zeven zeven, INGB 0777 0143 21": _MIXED_GROUPS,
        "8 0 9  6 7 5  7 6 4": _WRITTEN_CODE,
        "3454, 322873, 07903": _WRITTEN_CODE,
        "4746 ... 9518 ... 8790 ... 3818": _WRITTEN_CODE,
        ("C for charlie, A for apple, L for lima, L for lima, U for un"
         "iform, M for mike, 51, at gmail dot com"): _NATO_SPELLING,
        "3462, 009031, 12307": _WRITTEN_CODE,
        ("sześć zero jeden jeden [pause] siedem dwa dziewięć sześć [pa"
         "use] trzy cztery zero pięć [pause] dwa trzy cztery dwa"): _SPOKEN_OTHER,
        ("G for golf, R for romeo, A for apple, C for charlie, E for e"
         "cho, 69, at gmail dot com"): _NATO_SPELLING,
        "F U J acht M D F E vier": _SPOKEN_OTHER,
        "pumpkin with a capital P one nine nine two": _SPOKEN_OTHER,
        "siete tres siete ... cuatro uno siete ... ocho tres siete": _SPOKEN_OTHER,
        "G B seven zero, SRLG 2863 9683 6653 05": _MIXED_GROUPS,
        "een negen twee": _SPOKEN_OTHER,
        "vier vijf zes": _SPOKEN_OTHER,
        "V T T acht R zeven E K vier": _SPOKEN_OTHER,
        "L for lima, I for india, A for apple, M for mike, 61, at outlook dot com": _NATO_SPELLING,
        "Apfelstrudel": _SECURITY_ANSWER,
    },
    "corpus_tg": {
        "O'Sullivan": _TG_WORDS,
        "Mackenzie": _TG_WORDS,
        "119 402": _TG_DIGITS,
        "557 083": _TG_DIGITS,
        "1122": _TG_DIGITS,
        "Skegness": _TG_WORDS,
        "P7QK9": _TG_WORDS,
        "B-Y-D-G-O-S-Z-C-Z": _TG_WORDS,
        "lighthouse": _TG_WORDS,
        "1717": _TG_DIGITS,
        "558 302": _TG_DIGITS,
        "KP72X": _TG_WORDS,
        "1470": _TG_DIGITS,
        "Fluffy": _TG_WORDS,
        "Fluffie": _TG_WORDS,
        "381 664": _TG_DIGITS,
        "Nakamura": _TG_WORDS,
        "719 046": _TG_DIGITS,
        "river ocean velvet nine": _TG_WORDS,
        "3 8 5 0": _TG_DIGITS,
        "lasagne": _TG_WORDS,
        "avocado": _TG_WORDS,
        "Gdańsk": _TG_WORDS,
        "six eight one four": _TG_WORDS,
        "7": _TG_DIGITS,
        "3": _TG_DIGITS,
        "B4719": _TG_WORDS,
        "mirror": _TG_WORDS,
        "C2580": _TG_WORDS,
        "Vespa": _TG_WORDS,
        "7181": _TG_DIGITS,
        "604 933": _TG_DIGITS,
        "Mr Patel": _TG_WORDS,
        "57 40 19": _TG_DIGITS,
        "Eastbourne General": _TG_WORDS,
        "Tiddles": _TG_WORDS,
        "Pumpkin*Spice*22": _TG_WORDS,
        "0311": _TG_DIGITS,
        "Tangerine": _TG_WORDS,
        "Aberystwyth": _TG_WORDS,
        "KX7-29Q": _TG_WORDS,
        "Our Lady of Lourdes": _TG_WORDS,
        "6251": _TG_DIGITS,
        "30815": _TG_DIGITS,
        "Biscuit": _TG_WORDS,
        "D4K9M2": _TG_WORDS,
        "A9F2C1": _TG_WORDS,
        "5 2 9 1": _TG_DIGITS,
        "Liverpool1892": _TG_WORDS,
        "1 Feb 1990": _TG_WORDS,
        "2 0 9 9 1 4": _TG_DIGITS,
        "Mrs Okonkwo": _TG_WORDS,
        "zero eight zero eight": _TG_WORDS,
        "purple monkey dishwasher ladder": _TG_WORDS,
        "913 442": _TG_DIGITS,
        "Bramble": _TG_WORDS,
        "Port Talbot": _TG_WORDS,
    },
    "corpus_ha": {
        "river-amber-quiet-horse67": "'requirepass X' quoted in the middle of a chat line, not "
                                     "at a config line's start",
        "5SvNEnlpx-Wihtu1DwZjAFGOBd0p8BnD": "a Postman cookie's key and value on two lines of a "
                                            "CI log, each behind its own timestamp",
    },
    "corpus_jb": {
        **dict.fromkeys(("https://hook:Harbor9315x@ci.northwind.com/github-webhook/",
                         "https://jenkins:Cobalt7398*@ci.acme-corp.io/github-webhook/"),
                        "the corpus labels the whole URL: its password is redacted, the user "
                        "and the host are kept on purpose"),
        **dict.fromkeys(("Po90sqgzxyH2wKDNxoG4Ml6UwM_JMGqHcXV0DTat",
                         "YJ3_hEGtEq9kskhAFSL2JUsGfO85M-Sn-4kdutAQ"),
                        "a Cloudflare token under \"value\" at the end of its create answer, no "
                        "word for a secret within reach"),
        **dict.fromkeys(("Y1B0T0lzcHgxc3JmOWcwN28zYks6ZWFOUUxkQlVTTFFIT1g0UlBDZFVOdw==",
                         "VHZSNXhkMThEUlQ3LWxZbTk2X1I6ZTRxMXNncjBsUmZtZkZEbTdibmJ4Zw=="),
                        "an Elasticsearch key (base64 of id:key) alone on a comment line under "
                        "the comment that names it"),
    },
    "corpus_ib": dict.fromkeys(
        ("http://svc-proxy:emIVYT8kUy2@proxy.acme-robotics.io:3128",
         "http://jdoe:GpsRzXlWWsfz@proxy.corp.example:8080",
         "https://preview:y5Av2oRV2Xs@staging.wayfarer.travel/account",
         "https://qa:9amyVrPGwB@staging.coinpod.finance/account"),
        "the corpus labels the whole URL: its password is redacted, the user and the host "
        "(what locates the endpoint) are kept on purpose"),
    "corpus_fa": {
        ("kx9R8onI-y5kbGWQ0VRmRfhWFbRjeSwmD-CKgJxQNol-1709948970-1.2.1.1-epZ-pQKacfiKkYX3CbWM1Jv5"
         "\\nX-Request-Id: 3623de81-ada4-41f1-98bc-271f9d4b5a9a\\n```\\nSSE stream opens, first "
         "token never arrives (waited 219s)\", \"create_at\": 1728903288953}}"):
            "labelled past the header's end (the rest of the message): the cookie is redacted",
    },
    "corpus_fb": {
        **dict.fromkeys(("CWvazadUsuijCyrS", "ZHFE0W.8iNRbhb_n", "$idPWi41MwTXAUn_"),
                        _TYPED_BY_INDEX),
    },
    "corpus_ea": {
        "Gatito!2022": "an alarm's code told in a Dutch group chat ('code alarm X')",
    },
    "corpus_ca": {
        **dict.fromkeys((
            "T905bFzu0onFC6rAZg7KDDfRWN-gunnbjmwbwM4cO6wCXzecx2KE0WmD4f323_m6Cm-rGk",
            "dG3X8HkUgAgdQyo9Gw62wNrNZmDWIBE-mJJfn6KkpF4TFJ6uFxpYC94xwP2TbZlfvRzban",
            "5q4mcMHdUJxVHJXJ0x1rkmKjXJ9sZMAyskN07uhvYMJSPy3atyttOoOB2WRIIAdV7KPYJO"),
            _SYNOLOGY_SID),
    },
    "corpus_bb": {
        "460929327": _SSN_EXAMPLES,
        "728821779": _SSN_EXAMPLES,
        "Marlin5790x8fgKP": _USER_COLON_PASSWORD,
        "LACLc3FTv2Yen": _USER_COLON_PASSWORD,
    },
    "corpus_aa": {
        '244837335': _NACHA_ID,
        '137764723': _NACHA_ID,
        '497890591': _NACHA_ID,
        '590608197': _NACHA_ID,
        '564457746': _NACHA_ID,
        '852249915': _NACHA_ID,
        '210541224': _NACHA_ID,
        '421598135': _NACHA_ID,
        '539783293': _NACHA_ID,
        '235680021': _NACHA_ID,
        '012883452': _NACHA_ID,
    },
    "corpus_ab": {
        **dict.fromkeys(("ENC SH2TvBkym+54xoeIcd5SUpovICkPO7iaUaN2jxZAfU9LCTwEsR3csb5pDPYQldh=",
                         "ENC SH2UjvStrBkcy/Z3cgfZLkhnPAWOBL0QENCh/HR03TwxavSXM/yjRnWKyEQmVAT="),
                        "FortiOS's admin password as its config keeps it, ENC SH2...: a salted "
                        "SHA-256, one-way, left as crypt hashes are"),
        'TlD9hZEkvgrj': _TOLD_IN_PARENS,
        'tunnel_mon_63': "a community inside a PHP array(...) under ['community']",
        '2604:a880:ed70:ecf1::': _DELEGATED_PREFIX,
        'Jjg-TNyjG1T*': _TOLD_IN_PARENS,
        '2607:f8b0:7527:2ea6::': _DELEGATED_PREFIX,
        'Fnzu6!vLw#X+JUd%': "told after 'the NAS secret in clients.conf is'",
        'kqzynN_L!T8n': _TOLD_IN_PARENS,
        '3054028984': _CDR_COLUMNS,
    },
    "corpus_t": {
        "134982295": _W_PYTHON_LOGGING,
        "318747425": _W_PYTHON_LOGGING,
    },
    "corpus_w": {
        ("R+kd\n> vr7HKNDvZyLlVOGJsV7EbsMuZzS4LxLMV014GQLjW/2"
         "j558MO0Xx9qpMVjeoZ5EuiBNjg/9/pD\n> azHsNl+g=="): _W_WRAP76,
        ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIzO"
         "TU5ODQ3MTUiLCJpYXQiOjE3MTc\n0ODg1NTgsImV4cCI6MTcxNz"
         "Q5MjE1OCwicm9sZSI6ImFkbWluIn0.YlumblVzHQxP1YcPKYdh"
         "jFJ\nm0TmsGbZfCFBce_M6hb8"): _W_WRAP76,
        ("R\n> lxVJs3hypCrlx6Yu+X7hCKMKXIHVYn4RaVmfgAWBKOJC4d"
         "4PzY3ZMg4sDmKb4keSkC4uEUaW9i\n> XaZ82X8XAYA=="): _W_WRAP76,
        "7 51 54 71 72": _W_JSON_SPLIT,
        "FR42 9687 7291": _W_JSON_SPLIT,
        "3430 3128 2999 779": _W_JSON_SPLIT,
        "NL68 TRIO": _W_JSON_SPLIT,
        "6199 2848 19": _W_JSON_SPLIT,
        "4248 5225": _W_JSON_SPLIT,
        "6123 7857": _W_JSON_SPLIT,
        "49143797": _W_JSON_SPLIT,
        "49316126": _W_JSON_SPLIT,
        "4050 9939": _W_JSON_SPLIT,
        "8295 8958": _W_JSON_SPLIT,
        "FR45 1795 2796": _W_JSON_SPLIT,
        "7559 5823 3252 707": _W_JSON_SPLIT,
        "KZkoPVAKh5egHYih4IK8DaspUtbuleC5C0HzjwSL": _W_CODE_SPAN,
        "c6f5b72ad4f890c3b2c81cf9fa8201ba": _W_HTML_ENTITY,
        "zWLDxb8rII1GYXrgupfyKTpZQd9vViN4KCY0sXBKs4wnG-3ptPcIsAA": _W_SSE_STREAM,
        ("I_7hlO_9T3BlbkFJhsdJ4gkJgEZfGyn2Thj-9tLORzB5MqFJMw"
         "p8MFfcR8ZiuoHKXNGxHqh30YaH_-CXTfcu_DDpt3"): _W_SSE_STREAM,
        "3KpR9BH3R3gU-6cI4HjHUdXmMOILKeM9fDhxEHUpJPCjGkCj90mZ2jAA": _W_SSE_STREAM,
        "clemencegira-\nrd@free.fr": _W_HYPHEN_BREAK,
        "leafournier-\n@free.fr": _W_HYPHEN_BREAK,
        "０８０ー２５９０ー４１４２": _W_FULLWIDTH,
    },
    "corpus_z": {
        "EXuV2xp0j7i56teroQ8sgD6DzeN3OOhxQG6ty64L":
            "a key echoed by a CI step on its own line, its name lines above",
        ("sv=2022-11-02&ss=b&srt=co&sp=rwdlac&se=2025-09-01T00:00:00Z&"
         "sig=ZH9SKLFzeN7mJtfnVdXwcoXGOdALjrkYvXgSLuSzOaI%3D"):
            "an Azure SAS query labelled whole: its signature (sig=) is redacted",
    },
    "corpus_g": dict.fromkeys(("0054e436193e9af7462453559eabbb349db325b1",
                               "a365d035ec69822163afa3b7fa01dffd9a1b6758"), _KEY_ID),
    "corpus_e": {
        'amqp://admin:FyO6gkjVCGe0@mq.example.com:5672/vhost': _WHOLE_URL,
        'https://root:MAPq26o0YBN0@git.example.com/org/repo.git': _WHOLE_URL,
        'mysql://admin:PUtK07Z4JHLu@mysql.example.net:3306/crm': _WHOLE_URL,
        'redis://root:FyIOc3GVntBj@cache.example.org:6379/0': _WHOLE_URL,
        'amqp://root:22LqMrBvOytr@mq.example.com:5672/vhost': _WHOLE_URL,
        'https://deploy:3mPpQCLLWmtP@git.example.com/org/repo.git': _WHOLE_URL,
    },
    "corpus_h": {
        "0538423461": "ten bare digits after 'text' (a verb too common to take as a phone's word)",
    },
    "corpus_la": dict.fromkeys(
        ("071 98469-9544", "954.528.836", "775-084-291"),
        "a phone number streamed as its own delta: the words that say it is a phone are in "
        "an earlier event or log line"),
    "corpus_ma": {
        "03-695-6318": "a phone glued to Hebrew's preposition by a hyphen (ל-03-...): read as "
                       "part of a longer run",
        "081336378931": "twelve bare digits under from= in a chat bridge's log, nothing beside "
                        "them that says phone",
    },
    "corpus_na": dict.fromkeys(
        ("postgresql://claims_rw:hunter2-Maple!@pg-prod-2.northwind.local:5432/claims",
         "postgresql://claims_rw:Tr0ub4dor&3@pg-prod-2.northwind.local:5432/claims"),
        _WHOLE_URL),
    "corpus_nb": {
        "2001:db8:96a::5c1e": "an IPv6 address as rsync's host, its path's colon right after "
                              "it (deploy@2001:db8:96a::5c1e:/srv/www/): no reading tells where "
                              "the address ends",
    },
    "corpus_oa": {
        "9rgKCWpL8zR4abwUNP8rxX00CqQ=": _REQUEST_SIGNATURE,
        "QMqIzZ3vML7sks2e9XTXNdrGlA1pzTee": _CLIENT_ID,
        "TI8KR3BG": _TERMINAL_PASSWORD,
        "6Kkz4NU1GRKgQL3Lfz6Tzh74a98pl3oF": _CLIENT_ID,
        "f3bqghoNLLR6wh5KqyOKc7qAStbtzBFG": _CLIENT_ID,
        "4ZjgXhmmBVhqS+DaxIr2C5mV2eE=": _REQUEST_SIGNATURE,
        "changeme": _STAND_IN_SET,
        "BkjvCuIDhyQkxcbRccgUczyq3z7FNXFY": _CLIENT_ID,
        "Q4OGAYHT": _TERMINAL_PASSWORD,
    },
    "corpus_ob": {
        "282389989": _SSN_EXAMPLES,
        "603853388": _SSN_EXAMPLES,
        "II3958E9IG2V65C0": _KEY_ID_AS_USER,
        "1LPM8F01XL0BG5GC": _KEY_ID_AS_USER,
    },
    "corpus_pa": {
        "h2xulnxTCTV8qITUEApl7DTuNlAgIaD6": _CSRF,
        "QUGPJOA4GahK3vwJcSJrkmMwISsthVXv": _CSRF,
        "changeme": _STAND_IN_SET,
        "BEFpoJ2Bh3BlMaLemQcxQk": _DEVICE_COOKIE,
        "446100884": _SCIM_VALUE,
    },
    "corpus_ra": {"745018373": _FIXED_WIDTH_SSN, "v1iYCZJDKZAK5IjUgpp9": _TOLD_ONE_TIME_CODE},
    "corpus_sa": {
        "vKS7WNgueugbTFj8KKRwDJiP": "a key told in Hindi after 'key_secret' and a space (the "
                                    "key's name glued to 'key_', no '=' or ':')",
    },
    "corpus_ta": {
        "0782614504": "a French mobile alone on a letter's last line, under the sender's name",
        "50915654218": _GENERIC_ID_COLUMN,
        "8940 7417 4800": _GENERIC_ID_COLUMN,
        "677 467 538": "a Spanish mobile told with its word after it ('... su móvil?')",
        "6146528865": "an Indian mobile under otp_sent_to=, a key that names no phone",
        "YC4865399": "a passport after 'passport for customer <id>:': the customer's id is the "
                     "first number after the name (and is read as the passport)",
    },
    # Corpus TC (the second round's eighteen countries' ids in their forms, chats, CSVs, URLs
    # and logs)
    "corpus_tc": {
        **dict.fromkeys((
            "2560827518666", "420857849", "27118636185", "837 879 704", "695062653",
            "8759577074838", "4564063I", "649210564", "984-87-9119", "21109543095",
            "23255935704", "387567688", "16090077477", "1908420590", "114-655-031",
            "4973439290", "R358441A", "5119587222"), _HEADERLESS_ROW),
        **dict.fromkeys(("734003601", "2611101224236", "210241-2519"),
                        "a national id with its document's name after it ('... thats my sin "
                        "number', '- cnp mama')"),
        "937 748 408": "a SIN after 'My SIN starts with a 9 because ...': the digit in between "
                       "is the first number after the name",
        "56354362225": "a Medicare number after a question about it ('... for the claim form? "
                       "5635...'): a question on the number's line names none",
        "8560262MA": "a PPS number in a chat's follow-up line ('its the new format one'), "
                     "its name three lines up",
        "3940 56986 1": "a Medicare number in a chat's follow-up line ('its ... on the green "
                        "card'), its name lines up",
        "55 1234 5678": "a Mexican mobile in a headerless CSV row, no word for it",
    },
    # Corpus TD (numbers beside the words for PINs, card codes, SIM ids and national ids in
    # operations and business text, mostly clean lines)
    "corpus_td": {
        "379707052": "an Israeli id after 'my ID (tz) is': tz in brackets, not a key",
        **dict.fromkeys(("89492053180971172571", "238062766547106", "358753111026904"),
                        "a SIM's ICCID and IMSI, a handset's IMEI in headerless CSV rows"),
        "860124043092383": "an IMEI as a Kafka message's key (key=), no name for it",
        "352099009243037": "an IMEI as a Terraform resource's index, no name for it",
        **dict.fromkeys(("867697041941795", "353328118474558"),
                        "the second and third IMEIs of a list after one 'IMEI' (the first goes)"),
    },
    "corpus_tb": {
        "9096 0696 6242": _BAD_AADHAAR,
        "3626 6826 9439": _BAD_AADHAAR,
        "M2749252": "a passport number as a SQL result after '->', the column named in the "
                    "SELECT before it",
        "79319922101": "a CPF in a mysql result row whose header is the SELECT's column list, "
                       "not a table's header row",
    },
    "corpus_sb": {
        "KHNP4zG4n1lzJqjv6He5vNJf": "the second key of a comma-separated list under "
                                    "AUTHENTICATION_APIKEY_ALLOWED_KEYS (the first is redacted)",
        "Milvus-Root-7731!": _USER_COLON_PASSWORD,
        "7UjYyNzbRwYc52muNHy6TKlUJIaAzm": "a key told in a system prompt after 'the weather API "
                                          "with key', no verb or separator",
    },
    "corpus_rb": {"ZC5pdmFub3ZhQHlhbmRleC5ydQ": _DNS_LABEL},
    "corpus_pb": {
        "c74bbf3cc1212e73eba625ca0ad51076e.0.sruw.O1K6lmyIY1qK5SHu0-7gck": _APPLE_AUTH_CODE,
        "UzFnbiFuZzM2NTg0Cg==": _ECHOED,
        "nADqEwvb3RpJoD2Yddu+KwXHrxUs98MX3dXBjHQnbMJYwNkjYeKzJK+ZIR37ES20VcAYcafwsRQhO5m25vO4w2Z8"
        "CESrX/K4QEqYOSCamwrcNCmIV76W/rwZHURX5FRC1om0XxCBOz0Asbrf1F4aHRb8Sfktxmh6": _ECHOED,
        "fcbjQrLormgHYc34EJ4uEKC0Cg5Fhjyz": _CSRF,
        "senhaAntiga99": _GRAPHQL_VARS,
    },
    "corpus_o": {
        "Summer2020!G13": "a TSV row whose header names the column, lines away",
    },
}
_DOCS_RANGE = ("documentation addresses (192.0.2/24, 198.51.100/24, 203.0.113/24, 2001:db8::/32) "
               "are redacted as public ones: corpora A-E, like most test data, stand them in for "
               "real clients' addresses")
_AWS_EXAMPLE = ("AWS's documentation key pair (AKIA...EXAMPLE): redacted like any key, as test "
                "data stands it in for real ones (this project's own corpus does)")
#: Clean lines a corpus holds that the redactor changes on purpose, by id, and why.
# Corpora MC to MH: the clean lines redacted on purpose, or left changed.
_M_VERSION_IP = "a firmware version shaped as a public address ('NIB : 68.28.4.72')"
_M_FIELD_NOTE = ("a field reference's or a setting's text after a secret's name ('password : "
                 "SMB/FTP login password', PowerShell's 'PasswordCredentials: {KeyId=...}', a "
                 "Django setting's second hasher class)")
_M_PLACEHOLDER_EMAIL = ("an address used as a placeholder or an example (user@domain.tld, "
                        "name@company.com, .test, .invalid): redacted as any address is")
_M_RECORD_PHONE = ("a record's number shaped as a phone (an expediente's last groups after a "
                   "slash, an ACH trace number, an IMb's first fields, a parts list's number)")
_M_DIGEST = ("a password's sha256sum printed after the command that read it, and a WS-Security "
             "PasswordDigest: read as the password")
_M_SECRET_NAME = "a Docker secret's name (/run/secrets/amqp_url, secrets: [amqp_url])"
_M_NOT_AN_ADDRESS = "a Kerberos principal and an SMTP message id: read as addresses"
_M_COOKIE_HEADER = ("a Cookie header whose cookies include a load balancer's (AWSALB): one with "
                    "a token-shaped value is redacted whole")
_M_ASKED_PASSWORD = ("a password asked about in a prompt ('Is 'P@ssw0rd123' a good password?'): "
                     "redacted as any password told")
_M_TEST_CARD = "Stripe's test cards: a valid card number is redacted whoever publishes it"
_M_TOKENIZER = "a tokenizer's vocabulary row ('\u2581PIN\\t27149'): read as a PIN in a table"
_M_INDIA_PIN = "India's postal PIN code on an address ('PIN Code: 560048'), read as a PIN"
_M_CHALLENGE = "an OTP service's challenge id (challenge=ch_...): read as a secret by its key"
_M_MEMBER_ID = ("a health plan member's id (in an X12 message, NM1*IL or NM1*QC ... *MI*, or as "
                "the plan's 'Member ID'): a HIPAA identifier, redacted on purpose (corpora ME and "
                "PE label it)")
_KNOWN_CHANGED_M: dict[str, dict[str, str]] = {
    'corpus_mc': {
        'MC-004': _M_VERSION_IP,
        'MC-121': _M_FIELD_NOTE,
        'MC-202': _M_FIELD_NOTE,
        'MC-309': _M_PLACEHOLDER_EMAIL,
        'MC-526': _M_RECORD_PHONE,
    },
    'corpus_md': {
        'MD-001': _AWS_EXAMPLE,
        'MD-059': _C_IMEI,
        'MD-061': _C_IMEI,
        'MD-195': _C_IMEI,
        'MD-255': _AWS_EXAMPLE,
        'MD-260': _C_IMEI,
        'MD-336': _C_IMEI,
        'MD-445': _C_IMEI,
    },
    'corpus_me': {
        'ME-095': _M_DIGEST,
        'ME-167': _M_FIELD_NOTE,
        'ME-195': _M_SECRET_NAME,
        'ME-242': _M_RECORD_PHONE,
        'ME-262': _M_RECORD_PHONE,
        'ME-270': _M_DIGEST,
        'ME-303': _M_NOT_AN_ADDRESS,
        'ME-320': _M_COOKIE_HEADER,
        'ME-329': _M_NOT_AN_ADDRESS,
        'ME-504': _M_RECORD_PHONE,
    },
    'corpus_mf': {
        'MF-007': _Z_NOREPLY,
        'MF-082': _Z_ROLE_MAILBOX,
        'MF-087': _M_ASKED_PASSWORD,
        'MF-181': _M_PLACEHOLDER_EMAIL,
        'MF-235': _M_PLACEHOLDER_EMAIL,
        'MF-405': _M_TEST_CARD,
        'MF-427': _M_PLACEHOLDER_EMAIL,
        'MF-466': _M_TOKENIZER,
        'MF-525': _M_PLACEHOLDER_EMAIL,
    },
    'corpus_mg': {
        'MG-496': _M_INDIA_PIN,
    },
    'corpus_mh': {
        'MH-134': _M_CHALLENGE,
        'MH-292': _M_CHALLENGE,
        'MH-421': _M_TEST_CARD,
        'MH-461': _M_CHALLENGE,
        'MH-480': _Z_NOREPLY,
        'MH-524': _M_TEST_CARD,
    },
}


# Corpora PC to PH: the clean lines redacted on purpose, or left changed.
_P_GLUED_SSN = ("an SSN's shape inside a longer number (a parcel's APN after its book, a "
                "catalogue's part number)")
_P_DIGEST = ("a SIP Digest's response (read as a secret: it can be cracked offline), and a "
             "version after a product's name read as an address")
_KNOWN_CHANGED_S: dict[str, dict[str, str]] = {
    'corpus_sc': {
        **dict.fromkeys(('SC-245', 'SC-365'), _S_SENTRY_DSN),
        **dict.fromkeys(('SC-451', 'SC-461', 'SC-481'), _Z_NOREPLY),
    },
    'corpus_sd': dict.fromkeys(('SD-033', 'SD-175', 'SD-183', 'SD-321', 'SD-354', 'SD-356',
                                'SD-359', 'SD-388', 'SD-440', 'SD-441', 'SD-511'), _G_TELECOM),
}
_KNOWN_CHANGED_O: dict[str, dict[str, str]] = {
    'corpus_od': {
        'OD-049': _G_TELECOM,
        'OD-304': _G_TELECOM,
        'OD-444': _O_SEALED_SHORT,
    },
    'corpus_oe': {
        'OE-037': _G_TELECOM,
        'OE-077': _AWS_EXAMPLE,
        'OE-140': _M_RECORD_PHONE,
        'OE-195': _G_TELECOM,
        'OE-259': _G_TELECOM,
        'OE-400': _G_TELECOM,
        'OE-542': _M_PLACEHOLDER_EMAIL,
    },
    'corpus_of': {
        'OF-089': _M_VERSION_IP,
        'OF-122': _M_NOT_AN_ADDRESS,
        'OF-433': _O_LABEL,
        'OF-504': _M_COOKIE_HEADER,
        'OF-548': _S_SENTRY_DSN,
    },
    'corpus_og': {
        'OG-080': _O_NAMED_NUMBER,
        'OG-301': _O_LUHN_ID,
        'OG-361': _N_ROLE_MAILBOX,
        'OG-470': _M_TEST_CARD,
        'OG-519': _O_COMMENT,
    },
    'corpus_oh': {
        'OH-106': _M_TEST_CARD,
        'OH-108': _O_FIXTURE,
        'OH-230': _O_ISSN,
        'OH-243': _M_PLACEHOLDER_EMAIL,
        'OH-249': _O_CONTEXT_HEADER,
        'OH-262': _Z_URL_PASSWORD,
        'OH-281': _O_RESUMPTION,
        'OH-329': _O_NAMED_NUMBER,
        'OH-334': _M_ASKED_PASSWORD,
        'OH-456': _O_FIXTURE,
    },
    'corpus_ea': {
        'ea-0297': _M_MEMBER_ID,
    },
}


_KNOWN_CHANGED_A: dict[str, dict[str, str]] = {
    'corpus_af': {
        'AF-080': _M_TEST_CARD,
        'AF-186': _A_SOPS,
        'AF-231': _AWS_EXAMPLE,
        'AF-346': _G_TELECOM,
        'AF-358': _A_FIELD_VALUE,
        'AF-371': _G_TELECOM,
        'AF-470': _A_EXAMPLE_PHONE,
        'AF-494': _A_FIELD_VALUE,
    },
    'corpus_ag': {
        'AG-014': _G_TELECOM,
        'AG-052': _G_TELECOM,
        'AG-055': _A_FIELD_VALUE,
        'AG-066': _G_TELECOM,
        'AG-151': _G_TELECOM,
        'AG-334': _A_FIELD_VALUE,
        'AG-336': _A_FIELD_VALUE,
        'AG-348': _M_RECORD_PHONE,
        'AG-380': _O_SEALED_SHORT,
        'AG-397': _M_RECORD_PHONE,
        'AG-439': _G_TELECOM,
    },
    'corpus_ah': {
        'AH-020': _A_FIELD_VALUE,
        'AH-039': _A_FIELD_VALUE,
        'AH-080': _A_FIELD_VALUE,
        'AH-099': _M_RECORD_PHONE,
        'AH-163': _A_FIELD_VALUE,
        'AH-327': _A_FIELD_VALUE,
        'AH-441': _M_RECORD_PHONE,
    },
    'corpus_sf': {
        'SF-442': _Z_NOREPLY,
        'SF-484': _A_FIELD_VALUE,
    },
    'corpus_sg': {
        'SG-015': _A_FIELD_VALUE,
        'SG-025': _A_FIELD_VALUE,
        'SG-121': _A_FIELD_VALUE,
        'SG-151': _G_TELECOM,
        'SG-305': _A_PLACEHOLDER_KEY,
        'SG-324': _M_TEST_CARD,
        'SG-391': _A_FIELD_VALUE,
        'SG-413': _G_TELECOM,
        'SG-482': _AWS_EXAMPLE,
    },
    'corpus_sh': {
        'SH-076': _A_PLACEHOLDER_KEY,
        'SH-156': _M_TEST_CARD,
        'SH-187': _AWS_EXAMPLE,
        'SH-204': _A_PLACEHOLDER_KEY,
        'SH-265': _S_SENTRY_DSN,
        'SH-421': _O_LUHN_ID,
        'SH-475': _P_GLUED_SSN,
        'SH-524': _M_PLACEHOLDER_EMAIL,
    },
}


_KNOWN_CHANGED_P: dict[str, dict[str, str]] = {
    'corpus_pc': {
        'PC-029': _AWS_EXAMPLE,
        'PC-086': _P_GLUED_SSN,
        'PC-115': _P_GLUED_SSN,
        'PC-277': _P_GLUED_SSN,
        'PC-298': _M_VERSION_IP,
        'PC-364': _M_VERSION_IP,
    },
    'corpus_pd': {
        'PD-027': _M_VERSION_IP,
        'PD-103': _Z_ROLE_MAILBOX,
        'PD-161': _P_DIGEST,
        'PD-187': _P_DIGEST,
        'PD-211': _Z_ROLE_MAILBOX,
        'PD-242': _P_DIGEST,
        'PD-269': _M_VERSION_IP,
        'PD-402': _Z_ROLE_MAILBOX,
        'PD-407': _P_DIGEST,
    },
    'corpus_pf': {
        'PF-021': _C_SSH_LOGIN,
        'PF-376': _C_SSH_LOGIN,
    },
    'corpus_pg': {
        'PG-255': _M_PLACEHOLDER_EMAIL,
        'PG-328': _M_TEST_CARD,
        'PG-352': _AWS_EXAMPLE,
        'PG-363': _M_PLACEHOLDER_EMAIL,
        'PG-443': _M_ASKED_PASSWORD,
    },
    'corpus_ph': {
        'PH-431': _AWS_EXAMPLE,
    },
}


_KNOWN_CHANGED_U: dict[str, dict[str, str]] = {
    'corpus_ak': {
        'AK-004': _U_FIELD_VALUE,
        'AK-040': _G_TELECOM,
        'AK-066': _U_SESSION,
        'AK-068': _Y_DIGEST,
        'AK-139': _U_FIELD_VALUE,
        'AK-140': _U_HASH_READ,
        'AK-141': _U_FIELD_VALUE,
        'AK-149': _U_FIELD_VALUE,
        'AK-241': _M_RECORD_PHONE,
        'AK-297': _U_FIELD_VALUE,
        'AK-356': _Y_DIGEST,
        'AK-363': _U_FIELD_VALUE,
        'AK-379': _M_RECORD_PHONE,
        'AK-391': _Z_ROLE_MAILBOX,
        'AK-493': _U_FIELD_VALUE,
    },
    'corpus_am': {
        'AM-043': _A_PLACEHOLDER_KEY,
        'AM-139': _Y_SEALED,
        'AM-232': _U_FIELD_VALUE,
        'AM-346': _U_FIELD_VALUE,
        'AM-467': _AWS_EXAMPLE,
    },
    'corpus_an': {
        'AN-015': _U_PLACEHOLDER_MAILBOX,
        'AN-047': _U_FIELD_VALUE,
        'AN-172': _U_FIELD_VALUE,
        'AN-174': _Z_ROLE_MAILBOX,
        'AN-303': _U_PLACEHOLDER_MAILBOX,
        'AN-366': _U_FIELD_VALUE,
        'AN-375': _U_FIELD_VALUE,
        'AN-518': _U_SESSION,
    },
    'corpus_si': {
        'SI-118': _G_TELECOM,
        'SI-194': _U_FIELD_VALUE,
        'SI-196': _AWS_EXAMPLE,
        'SI-252': _U_FIELD_VALUE,
        'SI-321': _Y_VERSION_COLUMN,
        'SI-389': _U_HASH_READ,
        'SI-416': _U_FIELD_VALUE,
        'SI-454': _G_TELECOM,
        'SI-535': _U_FIELD_VALUE,
    },
    'corpus_sj': {
        'SJ-010': _U_HASH_READ,
        'SJ-185': _U_LUHN_NUMBER,
        'SJ-253': _U_FIELD_VALUE,
        'SJ-291': _U_LUHN_NUMBER,
        'SJ-337': _U_FIELD_VALUE,
        'SJ-409': _M_RECORD_PHONE,
    },
    'corpus_ti': {
        'TI-003': _M_RECORD_PHONE,
        'TI-026': _U_LUHN_NUMBER,
        'TI-059': _U_LUHN_NUMBER,
        'TI-151': _Y_COMPANY_TIN,
        'TI-196': _M_RECORD_PHONE,
        'TI-247': _Z_ROLE_MAILBOX,
        'TI-294': _G_TELECOM,
        'TI-317': _Y_SEALED,
        'TI-470': _U_ID_SHAPE,
        'TI-545': _U_SESSION,
    },
}


_DO_PERMIT_PHONE = ("a permit's number grouped as a landline is ('permit 0211 205 779'), read "
                    "as a phone")
_DO_SERIAL_NIE = ("a rifle's serial number in an acquisition book's column shaped as Spain's "
                  "NIE with its check letter ('X4897292V'), redacted")
_DO_ORDER_LICENCE = ("an order's number after a hunting licence's name ('license is ready. Order "
                     "11310708'), read as a licence's number")

_KNOWN_CHANGED_DL: dict[str, dict[str, str]] = {
    "corpus_do": {"DO-078": _DO_PERMIT_PHONE, "DO-172": _DO_SERIAL_NIE,
                  "DO-269": _DO_ORDER_LICENCE},
}

_KNOWN_CHANGED_CR: dict[str, dict[str, str]] = {
    "corpus_cr": {"CR-250": _X_STEUERNUMMER, "CR-344": _X_STEUERNUMMER},
}

_KNOWN_CHANGED_X: dict[str, dict[str, str]] = {
    "corpus_at": {"AT-025": _X_LPA_KEY},
    "corpus_au": {"AU-262": _DOCS_RANGE},
    "corpus_av": {"AV-381": _X_FILE_NAME, "AV-400": _X_PROSE_PASSWORD},
    "corpus_az": {"AZ-077": _X_IMEI, "AZ-238": _X_IMEI, "AZ-426": _X_IMEI,
                  "AZ-265": _X_FUSE_DIGEST, "AZ-452": _X_FUSE_DIGEST},
    "corpus_bl": {"BL-011": _X_RECEIPT_AUTH, "BL-105": _X_KEY_PROSE, "BL-354": _X_KEY_PROSE},
    "corpus_bm": {"BM-059": _X_PART_NUMBER, "BM-230": _X_IMEI, "BM-358": _X_IMEI,
                  "BM-297": _X_FAQ_ANSWER},
    "corpus_bo": {"BO-441": _X_I18N_MESSAGE},
    "corpus_br": {"BR-251": _X_SALT, "BR-284": _X_SALT, "BR-389": _X_SESSION_TRACE},
    "corpus_bs": {"BS-350": _AWS_EXAMPLE},
    "corpus_ci": {"CI-055": _X_STEUERNUMMER, "CI-369": _X_STEUERNUMMER, "CI-129": _X_MPAN,
                  "CI-311": _X_ORDER_NO},
    "corpus_cm": {"CM-289": _X_SECRETS_LIST},
    "corpus_co": {"CO-052": _X_MOSQUITTO_HASH, "CO-160": _X_MOSQUITTO_HASH,
                  "CO-220": _X_MOSQUITTO_HASH},
    "corpus_cn": {"CN-271": _X_USER_ID_PHONE},
}

_KNOWN_CHANGED_V: dict[str, dict[str, str]] = {
    'corpus_ap': {
        'AP-186': _G_TELECOM,
        'AP-444': _G_TELECOM,
        'AP-485': _AWS_EXAMPLE,
    },
    'corpus_aq': {
        'AQ-023': _M_TEST_CARD,
        'AQ-348': _U_FIELD_VALUE,
        'AQ-378': _V_LICENCE_SHAPE,
        'AQ-524': _V_CC_WORD,
    },
    'corpus_sk': {
        'SK-080': _U_FIELD_VALUE,
        'SK-145': _U_FIELD_VALUE,
        'SK-151': _U_FIELD_VALUE,
        'SK-307': _Y_DIGEST,
        'SK-333': _Z_ROLE_MAILBOX,
        'SK-423': _M_RECORD_PHONE,
        'SK-473': _Y_SEALED,
    },
    'corpus_sl': {
        'SL-053': _V_PUBLIC_SIGNATURE,
        'SL-066': _Y_VERSION_COLUMN,
        'SL-262': _U_HASH_READ,
        'SL-469': _U_SESSION,
        'SL-530': _V_SPOKEN_ID,
        'SL-533': _U_FIELD_VALUE,
    },
    'corpus_tj': {
        'TJ-009': _Y_SEALED,
        'TJ-025': _Y_DIGEST,
        'TJ-053': _V_PUBLIC_SIGNATURE,
        'TJ-098': _G_TELECOM,
        'TJ-168': _G_TELECOM,
        'TJ-181': _Y_DIGEST,
        'TJ-182': _G_TELECOM,
        'TJ-291': _U_HASH_READ,
        'TJ-332': _G_TELECOM,
    },
    'corpus_tk': {
        'TK-087': _U_SESSION,
        'TK-199': _AWS_EXAMPLE,
        'TK-330': _V_JWT_HEADER,
        'TK-352': _M_TEST_CARD,
        'TK-527': _U_FIELD_VALUE,
    },
}


_KNOWN_CHANGED_DR: dict[str, dict[str, str]] = {
    "corpus_dr": {
        "DR-295": _DR_DINERS_PARCEL,
    },
    "corpus_ds": {
        "DS-035": _DR_RECEIPT_PHONE,
        "DS-430": _DR_EAN,
    },
    "corpus_du": {
        "DU-001": _DR_KAFKA_KEY,
        "DU-140": _DR_KAFKA_KEY,
        "DU-154": _DR_KAFKA_KEY,
        "DU-200": _DR_KAFKA_KEY,
    },
    "corpus_dv": {
        "DV-094": _DR_EAN,
    },
}

# Corpora ER to EW: the clean lines redacted on purpose, or left changed.
_ER_COMPANY_ID = ("a firm's number on its invoice or receipt (Morocco's ICE read as a phone, "
                  "Guatemala's NIT, Costa Rica's cédula jurídica, Croatia's OIB, Peru's RUC in "
                  "an e-invoice's numDoc, Iran's company national id): a person's has the "
                  "same shape")
_ER_SERVICE_LINE = ("a bank's call centre line and a sales tax registration after a phone's "
                    "word: a business's number has a person's shape")
_EX_COURSE_CODE = "a university course's code after 'Código UC' (a unit's code), read as a code"
_EX_MERCHANT_CODE = "a mobile-money merchant's code on its statement, read as a code"
_EX_PINCODE = "India's postal PIN codes under a 'Pincode' column, read as PINs"
_EX_UPC = "UPC barcodes under a 'upc' column, read as phones"
_EX_CACHE_KEY = "a CI cache's key (key=pip-<hash>), read as a secret"
_KNOWN_CHANGED_EX: dict[str, dict[str, str]] = {
    "corpus_ex": dict.fromkeys(("EX-014", "EX-350", "EX-395"), _EX_COURSE_CODE),
    "corpus_ey": {**dict.fromkeys(("EY-009", "EY-205", "EY-461", "EY-462"), _EX_MERCHANT_CODE),
                  "EY-042": _DOCS_RANGE},
    "corpus_ez": {"EZ-346": _EX_PINCODE},
    "corpus_fi": {"FI-192": _ER_COMPANY_ID},
    "corpus_fj": {**dict.fromkeys(("FJ-124", "FJ-175", "FJ-179", "FJ-216", "FJ-367", "FJ-371",
                                   "FJ-388", "FJ-411"), _DOCS_RANGE),
                  "FJ-101": _EX_UPC, "FJ-483": _EX_UPC, "FJ-315": _EX_CACHE_KEY},
    "corpus_fk": dict.fromkeys(("FK-301", "FK-316"), _ER_COMPANY_ID),
}

# Corpora FX to GK: the clean lines left changed.
_FX_VERSION = ("a product's four-part version (1C's 3.1.29.95, a SIP phone's firmware "
               "108.86.0.45 in its User-Agent), read as a public address")
_FX_POSTCODES = "postal codes' ranges with an en dash (01001–04999), in a phone's shape"
_FX_NOREPLY = "a service's no-reply address: an address is redacted, whoever's"
_FY_ORDER_SAID = "an order's number read aloud digit by digit, read as a phone"
_FZ_INEP = "a school's INEP code after 'Código INEP:', read as a code told"
_GJ_BSP = ("a BSP sales file's ticket numbers and agents' IATA numbers, in a semicolon-separated "
           "export whose header is not read")
_KNOWN_CHANGED_FX: dict[str, dict[str, str]] = {
    "corpus_fx": {"FX-142": _ER_COMPANY_ID, "FX-232": _FX_VERSION, "FX-252": _DOCS_RANGE,
                  "FX-329": _FX_POSTCODES, "FX-395": _FX_NOREPLY},
    "corpus_fy": {**dict.fromkeys(("FY-119", "FY-374"), _FY_ORDER_SAID),
                  **dict.fromkeys(("FY-204", "FY-337", "FY-344", "FY-421", "FY-435", "FY-455"),
                                  _FX_VERSION)},
    "corpus_fz": {**dict.fromkeys(("FZ-061", "FZ-189", "FZ-247", "FZ-403", "FZ-436"),
                                  _DOCS_RANGE),
                  **dict.fromkeys(("FZ-332", "FZ-334", "FZ-438"), _FZ_INEP)},
    "corpus_gi": {**dict.fromkeys(("GI-036", "GI-046", "GI-064", "GI-199", "GI-321", "GI-384",
                                   "GI-386", "GI-455", "GI-481"), _DOCS_RANGE),
                  "GI-356": _AWS_EXAMPLE},
    "corpus_gj": {**dict.fromkeys(("GJ-033", "GJ-107", "GJ-306", "GJ-341"), _DOCS_RANGE),
                  **dict.fromkeys(("GJ-147", "GJ-240", "GJ-243", "GJ-284", "GJ-325"), _GJ_BSP)},
}

# Corpora FR to FW: the clean lines left changed, and earlier corpora's lines changed by it.
_FU_PLAN_MEMBER = ("a health plan's member id (memberId, 'Membership number'): its holder's, one "
                   "of HIPAA's identifiers, though this corpus counted it clean")
_KNOWN_CHANGED_FR: dict[str, dict[str, str]] = {
    "corpus_fr": dict.fromkeys(("FR-248", "FR-371", "FR-462"), _DOCS_RANGE),
    "corpus_fs": dict.fromkeys(("FS-049", "FS-056", "FS-058", "FS-063", "FS-233", "FS-309",
                                "FS-332", "FS-387", "FS-409", "FS-431"), _DOCS_RANGE),
    "corpus_ft": {**dict.fromkeys(("FT-236", "FT-269", "FT-296", "FT-389", "FT-467"),
                                  _ER_COMPANY_ID),
                  "FT-417": _DOCS_RANGE},
    "corpus_aq": {"AQ-383": _FU_PLAN_MEMBER},
    "corpus_na": dict.fromkeys(("na-12", "na-48", "na-63", "na-69", "na-115", "na-133"),
                               _FU_PLAN_MEMBER),
}

# Corpora FL to FQ: the clean lines left changed.
_FL_HS_CODE = "a customs declaration's commodity code (код ТН ВЭД, ten digits), read as a phone"
_FP_LIQUOR_LICENCE = "a restaurant's liquor licence number after 'Licence No.', read as a driver's"
_FP_ORDER_LUHN = ("a marketplace's order id (oid) that passes Luhn under a card's prefix, read as "
                  "a card")
_FP_CLAUSE_CODE = "an insurance product's clause code (CI and six digits), read as an id"
_KNOWN_CHANGED_FL: dict[str, dict[str, str]] = {
    "corpus_fl": {**dict.fromkeys(("FL-319", "FL-370", "FL-371"), _FL_HS_CODE),
                  "FL-428": _ER_COMPANY_ID},
    "corpus_fn": dict.fromkeys(("FN-050", "FN-097", "FN-180", "FN-281"), _DOCS_RANGE),
    "corpus_fp": {**dict.fromkeys(("FP-053", "FP-309"), _FP_LIQUOR_LICENCE),
                  **dict.fromkeys(("FP-099", "FP-155"), _FP_ORDER_LUHN),
                  **dict.fromkeys(("FP-114", "FP-377", "FP-388", "FP-420"), _ER_SERVICE_LINE),
                  "FP-174": _FP_CLAUSE_CODE},
}

_KNOWN_CHANGED_ER: dict[str, dict[str, str]] = {
    "corpus_er": {**dict.fromkeys(("ER-018", "ER-171", "ER-186", "ER-210", "ER-385", "ER-437"),
                                  _ER_COMPANY_ID), "ER-157": _ER_SERVICE_LINE},
    "corpus_et": {"ET-090": _ER_COMPANY_ID, "ET-113": _ER_SERVICE_LINE},
    "corpus_eu": dict.fromkeys(("EU-086", "EU-375", "EU-475"), _ER_COMPANY_ID),
    "corpus_ev": dict.fromkeys(("EV-001", "EV-106", "EV-107", "EV-234", "EV-277", "EV-348"),
                               _ER_COMPANY_ID),
    "corpus_ew": {**dict.fromkeys(("EW-031", "EW-091", "EW-251", "EW-365", "EW-422", "EW-430"),
                                  _DOCS_RANGE),
                  **dict.fromkeys(("EW-373", "EW-424"), _ER_COMPANY_ID)},
}
_KNOWN_CHANGED_EL: dict[str, dict[str, str]] = {
    "corpus_el": {"EL-081": _EL_TIMESTAMP_ID, "EL-314": _AWS_EXAMPLE, "EL-370": _EL_AUTH_CODE,
                  "EL-379": _DOCS_RANGE},
    "corpus_em": dict.fromkeys(("EM-085", "EM-094", "EM-158", "EM-188", "EM-419"),
                               _EL_USSD_SESSION),
    "corpus_en": {"EN-112": _EL_AUTH_CODE, "EN-354": _EL_USSD_SESSION,
                  "EN-396": _EL_USSD_SESSION},
    "corpus_eo": {**dict.fromkeys(("EO-001", "EO-087", "EO-090", "EO-113", "EO-151", "EO-169",
                                   "EO-336", "EO-378"), _EL_COMPANY_ID),
                  **dict.fromkeys(("EO-009", "EO-237", "EO-288", "EO-430"), _DOCS_RANGE),
                  "EO-220": _EL_AUTH_CODE, "EO-242": _EL_AUTH_CODE},
    "corpus_eq": {"EQ-066": _EL_COMPANY_ID, "EQ-300": _EL_COMPANY_ID, "EQ-122": _EL_AUTH_CODE,
                  "EQ-104": _DOCS_RANGE, "EQ-276": _DOCS_RANGE},
}

_KNOWN_CHANGED_DX: dict[str, dict[str, str]] = {
    "corpus_dx": {
        "DX-225": _DX_DOC_CIPHER,
    },
    "corpus_dy": {
        "DY-112": _DX_MTCN,
        "DY-113": _DX_CHECKSUM,
        "DY-221": _DX_MTCN,
        "DY-260": _DX_CHECKSUM,
    },
    "corpus_dz": {
        "DZ-067": _DX_TXN,
        "DZ-149": _DX_TXN,
    },
    "corpus_ei": {
        "EI-022": _DX_ICCID,
        "EI-316": _DX_ICCID,
        "EI-425": _DX_ICCID,
        "EI-456": _DX_ICCID,
    },
    "corpus_ej": {
        "EJ-279": _DX_COMPANY_INN,
    },
}

KNOWN_CHANGED: dict[str, dict[str, str]] = {
    **_KNOWN_CHANGED_FX,
    **_KNOWN_CHANGED_FR,
    **_KNOWN_CHANGED_FL,
    **_KNOWN_CHANGED_EX,
    **_KNOWN_CHANGED_ER,
    **_KNOWN_CHANGED_EL,
    **_KNOWN_CHANGED_DX,
    **_KNOWN_CHANGED_DR,
    **_KNOWN_CHANGED_Z,
    **_KNOWN_CHANGED_Y,
    **_KNOWN_CHANGED_Q,
    **_KNOWN_CHANGED_N,
    **_KNOWN_CHANGED_R,
    **_KNOWN_CHANGED_G,
    **_KNOWN_CHANGED_L,
    **_KNOWN_CHANGED_K,
    **_KNOWN_CHANGED_J,
    **_KNOWN_CHANGED_I,
    **_KNOWN_CHANGED_H,
    **_KNOWN_CHANGED_F,
    **_KNOWN_CHANGED_E,
    **_KNOWN_CHANGED_D,
    **_KNOWN_CHANGED_C,
    **_KNOWN_CHANGED_B,
    **_KNOWN_CHANGED_M,
    **_KNOWN_CHANGED_P,
    **_KNOWN_CHANGED_S,
    **_KNOWN_CHANGED_O,
    **_KNOWN_CHANGED_A,
    **_KNOWN_CHANGED_U,
    **_KNOWN_CHANGED_V,
    **_KNOWN_CHANGED_X,
    **_KNOWN_CHANGED_CR,
    **_KNOWN_CHANGED_DL,
    "corpus_va": dict.fromkeys(
        ("VA-018", "VA-045", "VA-046", "VA-049", "VA-128", "VA-177", "VA-244", "VA-285",
         "VA-337", "VA-386", "VA-418", "VA-458", "VA-471"), _DOCS_RANGE),
    "corpus_vb": dict.fromkeys(("VB-060", "VB-381"), _DOCS_RANGE),
    "corpus_vg": dict.fromkeys(("VG-206", "VG-332", "VG-354", "VG-396"), _DOCS_RANGE),
    "corpus_vj": dict.fromkeys(
        ("VJ-005", "VJ-017", "VJ-060", "VJ-066", "VJ-134", "VJ-135", "VJ-199", "VJ-211",
         "VJ-257", "VJ-408", "VJ-421", "VJ-466"), _DOCS_RANGE),
    "corpus_vk": dict.fromkeys(
        ("VK-116", "VK-212", "VK-241", "VK-346", "VK-374", "VK-389"), _DOCS_RANGE),
    "corpus_vs": {
        **dict.fromkeys(("VS-036", "VS-089", "VS-169", "VS-193", "VS-285", "VS-303", "VS-380",
                         "VS-421", "VS-476"), _DOCS_RANGE),
        **dict.fromkeys(("VS-214", "VS-377"),
                        "a device's UDI-DI (a GTIN-14 with 00) read as a number dialled with 00"),
    },
    "corpus_vu": {
        **dict.fromkeys(("VU-008", "VU-044", "VU-078", "VU-149", "VU-162", "VU-221", "VU-245",
                         "VU-361", "VU-400", "VU-442"), _DOCS_RANGE),
        **dict.fromkeys(("VU-085", "VU-144", "VU-169", "VU-181", "VU-246", "VU-325", "VU-388",
                         "VU-326"),
                        "a public agency's phone number: a phone is redacted, whoever's"),
        "VU-028": "a Saudi tender's twelve-digit number read as an identity number",
    },
    "corpus_vt": dict.fromkeys(("VT-014", "VT-022", "VT-047", "VT-052", "VT-145", "VT-168",
                                "VT-278", "VT-358", "VT-471"), _DOCS_RANGE),
    "corpus_vp": {
        **dict.fromkeys(("VP-010", "VP-012", "VP-032", "VP-036", "VP-104", "VP-158", "VP-207",
                         "VP-218", "VP-232", "VP-252", "VP-279", "VP-293", "VP-301", "VP-304",
                         "VP-341", "VP-355", "VP-383", "VP-406", "VP-424", "VP-444", "VP-471",
                         "VP-475", "VP-499", "VP-518"), _DOCS_RANGE),
    },
    "corpus_vq": {
        **dict.fromkeys(("VQ-122", "VQ-299", "VQ-313"), _DOCS_RANGE),
        **dict.fromkeys(("VQ-011", "VQ-109", "VQ-193"),
                        "an air waybill number (016-13801701) in a German mobile's shape"),
    },
    "corpus_vr": {
        **dict.fromkeys(("VR-050", "VR-061", "VR-097", "VR-132", "VR-133", "VR-180", "VR-225",
                         "VR-269", "VR-338", "VR-379", "VR-403", "VR-404"), _DOCS_RANGE),
        **dict.fromkeys(("VR-142", "VR-159", "VR-417"),
                        "an IMEI that fails Luhn, under its name: redacted, its check right or "
                        "not"),
    },
    "corpus_wg": dict.fromkeys(("WG-003", "WG-015", "WG-084", "WG-120", "WG-122", "WG-202",
                                "WG-215", "WG-234", "WG-245", "WG-286", "WG-445", "WG-463"),
                               _DOCS_RANGE),
    "corpus_wh": {
        **dict.fromkeys(("WH-157", "WH-163", "WH-168", "WH-175", "WH-219", "WH-238", "WH-283",
                         "WH-287", "WH-367", "WH-392", "WH-401"), _DOCS_RANGE),
        "WH-196": "a vault's token (a UUID) after 'stored as token': a value under a token's word",
        "WH-360": ("a form's placeholder address (vorname.nachname@domain.tld) in an address's "
                   "shape"),
    },
    "corpus_wi": {
        **dict.fromkeys(("WI-220", "WI-233", "WI-262", "WI-283", "WI-357", "WI-515"),
                        _DOCS_RANGE),
        **dict.fromkeys(("WI-134", "WI-295"), "an association's tax number (St.-Nr.) in a "
                        "Steuernummer's shape, read as a person's"),
    },
    "corpus_wj": {
        **dict.fromkeys(("WJ-080", "WJ-142", "WJ-148", "WJ-293", "WJ-339", "WJ-381", "WJ-405",
                         "WJ-437", "WJ-439", "WJ-440"), _DOCS_RANGE),
        **dict.fromkeys(("WJ-027", "WJ-204"), "a product's four-part version (vMix 25.0.0.30) "
                        "after its name, read as a public address"),
    },
    "corpus_wk": {
        **dict.fromkeys(("WK-094", "WK-230", "WK-232", "WK-257"), _DOCS_RANGE),
        **dict.fromkeys(("WK-244", "WK-402"), "a smart meter's equipment id, hex of ASCII "
                        "digits, decoded and read as a number: a household's device id"),
    },
    "corpus_wa": dict.fromkeys(("WA-008", "WA-076", "WA-167", "WA-241", "WA-290", "WA-333",
                                "WA-335", "WA-424"), _DOCS_RANGE),
    "corpus_wb": dict.fromkeys(("WB-089", "WB-091", "WB-121", "WB-144", "WB-148", "WB-229",
                                "WB-307", "WB-326", "WB-327", "WB-367", "WB-482", "WB-491"),
                               _DOCS_RANGE),
    "corpus_wc": {
        **dict.fromkeys(("WC-075", "WC-090", "WC-112", "WC-163", "WC-221", "WC-228", "WC-241",
                         "WC-251", "WC-252", "WC-264", "WC-265", "WC-269", "WC-341", "WC-369",
                         "WC-409", "WC-469", "WC-482"), _DOCS_RANGE),
        **dict.fromkeys(("WC-053", "WC-066", "WC-129", "WC-201", "WC-296", "WC-091", "WC-190",
                         "WC-344", "WC-359", "WC-388"), _SIP_URI),
    },
    "corpus_wd": {
        **dict.fromkeys(("WD-012", "WD-017", "WD-023", "WD-051", "WD-064", "WD-082", "WD-115",
                         "WD-158", "WD-165", "WD-209", "WD-218", "WD-221", "WD-246", "WD-350",
                         "WD-360", "WD-370", "WD-398", "WD-405", "WD-437"), _DOCS_RANGE),
        **dict.fromkeys(("WD-034", "WD-281"), "an X.509 extension's OID (2.5.29.17) reads as a "
                        "public IPv4 address"),
        **dict.fromkeys(("WD-276", "WD-433"), "an IMEI: a device's id, personal data as a "
                        "phone's number is"),
    },
    "corpus_we": dict.fromkeys(("WE-057", "WE-065", "WE-081", "WE-099", "WE-196", "WE-203",
                                "WE-218", "WE-253", "WE-270", "WE-301", "WE-309", "WE-312",
                                "WE-313", "WE-327", "WE-329", "WE-334", "WE-387", "WE-426",
                                "WE-437", "WE-457", "WE-461", "WE-464"), _DOCS_RANGE),
    "corpus_wf": {
        **dict.fromkeys(("WF-013", "WF-071", "WF-109", "WF-189", "WF-365"), _DOCS_RANGE),
        "WF-401": "a range of kit numbers with an en dash (099258–754261) in a phone's shape",
    },
    "corpus_vm": dict.fromkeys(("VM-021", "VM-030", "VM-181", "VM-292", "VM-386", "VM-409",
                                "VM-462"), _DOCS_RANGE),
    "corpus_vn": dict.fromkeys(("VN-244", "VN-251", "VN-254", "VN-287", "VN-289", "VN-305",
                                "VN-389"), _DOCS_RANGE),
    "corpus_vo": {
        **dict.fromkeys(("VO-020", "VO-069", "VO-181", "VO-278", "VO-385", "VO-394"),
                        _DOCS_RANGE),
    },
    "corpus_vl": {
        **dict.fromkeys(
            ("VL-134", "VL-146", "VL-150", "VL-160", "VL-186", "VL-207", "VL-214", "VL-218",
             "VL-222", "VL-232", "VL-317", "VL-320", "VL-332", "VL-388", "VL-407", "VL-482",
             "VL-499", "VL-500", "VL-506"), _DOCS_RANGE),
        **dict.fromkeys(("VL-017", "VL-070", "VL-301", "VL-325", "VL-475", "VL-494"),
                        "a documentation range's address and an example.com mailbox: "
                        "corpora label both as PII, so both are redacted"),
    },
    "corpus_vh": {
        **dict.fromkeys(("VH-213", "VH-319", "VH-409", "VH-439"), _DOCS_RANGE),
    },
    "corpus_vi": {
        **dict.fromkeys(("VI-006", "VI-021", "VI-043", "VI-095", "VI-281", "VI-312"),
                        _DOCS_RANGE),
    },
    "corpus_vd": {
        **dict.fromkeys(("VD-202", "VD-289", "VD-409", "VD-428", "VD-444"), _DOCS_RANGE),
        "VD-174": ("X.509's extension OIDs (2.5.29.17) in prose: four numbers a public address "
                   "could be"),
        "VD-387": ("lottery numbers ('02 03 34 45 61'), the shape of a French landline: "
                   "redacted as any number"),
    },
    "corpus_ve": dict.fromkeys(
        ("VE-016", "VE-036", "VE-089", "VE-112", "VE-120", "VE-129", "VE-131", "VE-258",
         "VE-282", "VE-333", "VE-366", "VE-401", "VE-408", "VE-418", "VE-430", "VE-435",
         "VE-441", "VE-457", "VE-522"), _DOCS_RANGE),
    "corpus_vf": dict.fromkeys(
        ("VF-034", "VF-041", "VF-058", "VF-088", "VF-185", "VF-186", "VF-193", "VF-201",
         "VF-224", "VF-231", "VF-254", "VF-265", "VF-289", "VF-353", "VF-401", "VF-424"),
        _DOCS_RANGE),
    "corpus_vc": dict.fromkeys(
        ("VC-001", "VC-040", "VC-056", "VC-057", "VC-168", "VC-246", "VC-266", "VC-294",
         "VC-339", "VC-418"), _DOCS_RANGE),
    "corpus_ux": {
        **dict.fromkeys(("UX-007", "UX-184", "UX-201", "UX-205", "UX-331", "UX-350", "UX-401",
                         "UX-446"), _DOCS_RANGE),
        **dict.fromkeys(("UX-127", "UX-318", "UX-363"),
                        "555-01xx numbers, fiction's: redacted as any other number"),
    },
    "corpus_uy": {
        **dict.fromkeys(("UY-032", "UY-093", "UY-199", "UY-217", "UY-326", "UY-384"),
                        _DOCS_RANGE),
        **dict.fromkeys(("UY-130", "UY-142", "UY-329", "UY-341", "UY-371", "UY-387", "UY-005",
                         "UY-139", "UY-383"),
                        "Ofcom's and ACMA's drama numbers: other corpora use them for real "
                        "people's, so they are redacted as any number"),
    },
    "corpus_uv": dict.fromkeys(("UV-174", "UV-386"), _DOCS_RANGE),
    "corpus_uw": {
        **dict.fromkeys(("UW-017", "UW-310", "UW-333"), _DOCS_RANGE),
        "UW-092": "an IMEI the corpus counts clean: a handset's id is redacted",
    },
    "corpus_up": {
        **dict.fromkeys(("UP-053", "UP-093", "UP-111", "UP-185", "UP-359", "UP-398", "UP-418"),
                        _DOCS_RANGE),
        "UP-010": ("a claim id (003795199069) in a CSV column read as a number dialled with "
                   "00"),
        "UP-100": ("Ofcom's drama number (07700 900xxx) after 'mobile': redacted as other "
                   "corpora's stand-ins for real numbers are"),
    },
    "corpus_uq": dict.fromkeys(
        ("UQ-026", "UQ-087", "UQ-116", "UQ-143", "UQ-152", "UQ-153", "UQ-227", "UQ-247",
         "UQ-265", "UQ-266", "UQ-322", "UQ-370", "UQ-401", "UQ-445"), _DOCS_RANGE),
    "corpus_ur": {
        **dict.fromkeys(("UR-034", "UR-170", "UR-222", "UR-266", "UR-272", "UR-277", "UR-322"),
                        _DOCS_RANGE),
        **dict.fromkeys(("UR-152", "UR-265"), _CART_TOKEN),
    },
    "corpus_uo": {
        **dict.fromkeys(("UO-124", "UO-332", "UO-531"),
                        "ICCIDs, IMSIs and IMEIs the corpus counts clean: a SIM's and a "
                        "handset's ids are redacted whatever carries them"),
        "UO-367": ("a SIP URI with an extension at a PBX's .lan host, read as an e-mail "
                   "address"),
        "UO-250": ("ONVIF's profile tokens (token=\"Profile_1\"): a value under a token's "
                   "name is redacted"),
    },
    "corpus_um": {
        "UM-094": "a version in brackets (3.0.150.25) read as a public address",
        "UM-383": "a product's seven-digit code after Czech 'kód', read as a one-time code",
    },
    "corpus_un": {
        **dict.fromkeys(("UN-053", "UN-331"), "a card's network token (ntok_...) under "
                        "network_token: a token's key and a token's shape, redacted as one"),
        "UN-196": ("an airline ticket's number, 001 and ten digits, read as a US number dialled "
                   "with 00 (the CSV's header names it, the row alone does not)"),
    },
    "corpus_uk": {
        "UK-331": ("a bearer token cut to its JWT header by a log scrubber "
                   "('eyJ...J9.<redacted>.<redacted>'): what is left is redacted as a token"),
    },
    "corpus_uh": {"UH-178": "a bot's address at GitHub's noreply domain in a commit's author: "
                            "an e-mail address, redacted as any is"},
    "corpus_uf": dict.fromkeys(("UF-331", "UF-447"), _INTERFACE_IPV6),
    "corpus_ud": dict.fromkeys(("UD-041", "UD-158", "UD-169"), _DOCS_RANGE),
    "corpus_uc": dict.fromkeys(("UC-138", "UC-292"), _DOCS_RANGE),
    "corpus_ua": {
        "UA-208": _DOCS_RANGE,
    },
    "corpus_ub": {
        **dict.fromkeys(("UB-115", "UB-281"), _DOCS_RANGE),
        "UB-129": _AWS_EXAMPLE,
    },
    "corpus_td": {
        "td-0379": _DOCS_RANGE,
        "td-0286": "a Kafka message's key under key= (txn_01HF3K2Z9Y): a value under a bare "
                   "'key' is read as a secret's, as most are",
    },
    "corpus_tc": {
        **dict.fromkeys(("tc-0038", "tc-0121"), _DOCS_RANGE),
        "tc-0109": "an NHS number that failed its check, in a North American phone's exact "
                   "shape (470 278 2745): read as a phone",
        **dict.fromkeys(("tc-0418", "tc-0441"),
                        "a service's toll-free line (1-800-622-6232, 0800 611 116): a phone's "
                        "shape, and the redactor does not tell a business's line from a "
                        "person's (another corpus labels a toll-free number as PII)"),
    },
    "corpus_tb": {
        "tb-0044": "'phone-shaped serial 0800-541-2400': a phone's word and a number in a "
                   "phone's national format",
        "tb-0353": "a NANP-shaped serial in a CSV column named 'serial' (the table pass names "
                   "kinds, it does not clear them)",
    },
    "corpus_ka": {"KA-244": "10-digit Zoom meeting ids (477 374 2359) in a participants "
                            "report's first column, shaped as North American numbers"},
    "corpus_kb": {
        **dict.fromkeys(("KB-6", "KB-11", "KB-63", "KB-182", "KB-187"), _AWS_EXAMPLE),
        **dict.fromkeys(("KB-18", "KB-145", "KB-146", "KB-164"),
                        "a removed line's PASSWORD = \"postgres\": a weak password is a "
                        "password"),
    },
    "corpus_ia": dict.fromkeys(
        ("IA-119", "IA-269", "IA-365"),
        "a UUID under token= in a survey link: the corpus counts it clean, the redactor a "
        "credential (reset and magic-link tokens are UUIDs too)"),
    "corpus_ja": dict.fromkeys(
        ("JA-50", "JA-248", "JA-352"),
        "UUIDs under a psp_token column: the corpus counts them clean, the redactor a "
        "credential (as under token= in IA)"),
    "corpus_ca": {
        **dict.fromkeys(("ca-0163", "ca-0222", "ca-0342"), _AWS_EXAMPLE),
        **dict.fromkeys(
            ("ca-0060", "ca-0121", "ca-0152", "ca-0167", "ca-0252", "ca-0305", "ca-0323",
             "ca-0340"),
            "a vehicle tracker's IMEI and its SIM's ICCID under their names: a handset's and "
            "a SIM's ids are redacted whatever carries them (a tracker follows its driver)"),
    },
    "corpus_qa": {"qa-neg-0079": _AWS_EXAMPLE},
    "corpus_sb": {"sb-neg-0063": _AWS_EXAMPLE},
    "corpus_rb": {
        "rb-neg-0091": _AWS_EXAMPLE,
        "rb-neg-0092": "Stripe's test card 4242 4242 4242 4242: a valid card number is redacted "
                       "whoever publishes it (as in corpus I)",
    },
    "corpus_qb": {
        "qb-neg-0120": _AWS_EXAMPLE,
        "qb-neg-0134": "the first 8 characters of a CI job's token, as GitLab Runner prints it "
                       "(token=ilcmkze8): the corpus counts it clean, the redactor a value "
                       "under token= (a token's prefix narrows a guess at it)",
    },
    "corpus_mb": dict.fromkeys(
        ("mb-124", "mb-174"),
        "a 19-digit query id in a pg_stat_statements table that passes Luhn in a Diners "
        "range: read as an unspaced card number"),
    "corpus_la": {
        **dict.fromkeys(("la-55", "la-68", "la-145", "la-254", "la-303", "la-311", "la-366"),
                        "a mailing list's unsubscribe token (token= in a link): the corpus "
                        "counts it clean, the redactor a credential (whoever holds it acts on "
                        "the subscription)"),
        "la-223": "a 12-digit tracking number grouped 0xxx-xxxx-xxxx, as national phone "
                  "numbers are written",
    },
    "corpus_fb": dict.fromkeys(
        ("fb-0038", "fb-0121", "fb-0127", "fb-0154"),
        "a session's id in a URL's query (sid=...): the corpus counts it clean, the redactor "
        "a credential (whoever holds it is logged in)"),
    "corpus_cb": {
        "cb-0044": "an applicant's nationalId in a benefit claim (a valid Steuer-ID), which the "
                   "corpus left unlabelled: redacted on purpose",
        "cb-0228": ("an applicant's nationalId whose Steuer-ID check fails, which the corpus "
                    "left unlabelled: any number under that key is redacted"),
        "cb-0112": ("a payslip's 'N° SS' with a NIR whose key checks (89), which the corpus left "
                    "unlabelled: redacted on purpose"),
        **dict.fromkeys(("cb-0156", "cb-0250"), "school codes shaped as North American phone "
                                                "numbers (ddd-ddd-dddd) in a list"),
        **dict.fromkeys(("cb-0197", "cb-0201", "cb-0249"),
                        "webhook_url_secret naming the secret's entry in a store "
                        "(slack-webhook-payroll): a value under a secret's key"),
    },
    "corpus_ba": {
        **dict.fromkeys(("ba-0238", "ba-0250", "ba-0268", "ba-0285"),
                        "Shopify's checkout_token (32 hex digits under a token's key): redacted "
                        "like any value under a token's key"),
    },
    "corpus_bb": dict.fromkeys(("bb-0052", "bb-0151", "bb-0193", "bb-0350"),
                               "Airflow's sql_alchemy_conn_secret names the secret backend's key "
                               "(sql_alchemy_conn): a value under a secret's key"),
    "corpus_aa": {
        **dict.fromkeys(("aa-0032", "aa-0086", "aa-0119", "aa-0164", "aa-0217", "aa-0287",
                         "aa-0292", "aa-0350", "aa-0357", "aa-0359", "aa-0403"), _M_MEMBER_ID),
        "aa-0003": "an ACH trace number, fifteen bare digits after '00', read as a number "
                   "dialled abroad (the country codes' lengths are not known to the detector)",
        **dict.fromkeys(("aa-0022", "aa-0027", "aa-0133"),
                        "a no-reply address in a commit's author: an address is redacted whoever "
                        "it belongs to"),
        "aa-0062": "a report's number shaped as a national phone number (0 and groups of four)",
        "aa-0219": "a card network's token (a card number's stand-in) under network_token: "
                   "redacted like any value under a token's key",
    },
    "corpus_ab": {
        **dict.fromkeys(("ab-0157", "ab-0160", "ab-0169"), _INTERFACE_IPV6),
        **dict.fromkeys(("ab-0118", "ab-0173", "ab-0205", "ab-0244"),
                        "a desk phone's firmware version in its User-Agent, shaped as a "
                        "public address (96.86.0.75)"),
        **dict.fromkeys(("ab-0063", "ab-0095", "ab-0280", "ab-0339"),
                        "a conference bridge's PIN ('Bridge line PIN 183564#'): an access code, "
                        "redacted as a card's or an IVR's PIN is"),
    },
    "corpus_g": {
        **dict.fromkeys(("g-0013", "g-0250", "g-0285", "g-0310", "g-0352", "g-0375", "g-0384",
                         "g-0399"), _DOCS_RANGE),
        "g-0383": _AWS_EXAMPLE,
    },
    "corpus_h": {"h11-0397": _DOCS_RANGE},
    "corpus_z": {
        "z-0076": _AWS_EXAMPLE,
        **dict.fromkeys(("z-0117", "z-0295", "z-0392"),
                        "Stripe's test card 4242 4242 4242 4242: a valid card number is "
                        "redacted whoever publishes it"),
    },
    "corpus_x": dict.fromkeys(("x-0066", "x-0143", "x-0162", "x-0187"),
                              "LiteLLM's spend log names its key's SHA-256 'api_key': 64 hex "
                              "digits under a key's name are redacted (secrets.token_hex(32) "
                              "makes keys of that shape)"),
    "corpus_w": dict.fromkeys(("w-0032", "w-0054", "w-0321", "w-0423"),
                              "a no-reply address in a MIME encoded-word header: an address is "
                              "redacted whoever it belongs to (corpus W leaves role addresses)"),
    "corpus_i": {
        "h12-0234": _DOCS_RANGE,
        "h12-0361": _AWS_EXAMPLE,
        "h12-0014": "Stripe's test card 4242 4242 4242 4242: a valid card number is redacted "
                    "whoever publishes it",
        "h12-0058": "user@example.com in a help string: documentation addresses are redacted "
                    "like others (corpora A-E label them as PII)",
        "h12-0109": "the password in postgres://postgres:postgres@localhost: a URL's password is "
                    "redacted whatever it is",
    },
}


def leaked(value: str, text: str, redacted: str) -> str | None:
    """A fragment of ``value`` left in ``redacted`` that the text around it does not hold.
    What the redactor wrote in the value's place is not read: a keyed hash's hex digits hold
    a three-digit code one run in a few hundred ("[email:65f85064c98184da]" and "818")."""
    redacted = _MARKER.sub("[]", redacted)
    rest = text.replace(value, "\0")
    n = max(6, (len(value) + 1) // 2)
    if len(value) < n:
        return value if redacted.count(value) > rest.count(value) else None
    for i in range(len(value) - n + 1):
        fragment = value[i:i + n]
        if fragment in redacted and fragment not in rest:
            return fragment
    return None


# What the redactor writes in a value's place: its kind, or its kind and a keyed hash.
_MARKER = re.compile(r"\[(?:REDACTED:[a-z_]+|[a-z_]+:[0-9a-f]{16})\]")


def test_the_leak_rule_bites() -> None:
    hashed = "[email:65f85064c98184da]"
    assert leaked("818", '"cvc": "818"', f'"cvc": "[REDACTED:credit_card]" {hashed}') is None
    assert leaked("818", '"cvc": "818"', f'"cvc": "818" {hashed}') == "818"
    text = "https://a.example.com/?u=jo%40a.example.com"
    assert leaked("jo%40a.example.com", text, text) == "jo%40a.ex"
    assert leaked("jo%40a.example.com", text, "https://a.example.com/?u=[email:1]") is None
    assert leaked("hunter2hunter2!", "pw hunter2hunter2!", "pw [X] 2hunter2!") == "2hunter2"


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("path", CORPORA, ids=[p.stem for p in CORPORA])
def test_blind_corpus(path: Path) -> None:
    redactor = Redactor()
    known = dict(KNOWN_MISSES.get(path.stem, {}))
    hashes: set[str] = set()  # (left as one-way hashes are, or caught beside a secret's name)
    if path.stem in _HASHES_LABELLED:
        hashes = {v["value"] for row in _rows(path) for v in row["values"]
                  if _CRYPT_HASH_SHAPE.fullmatch(v["value"])}
        known.update(dict.fromkeys(hashes, _CRYPT_HASH))
    caught: Counter[str] = Counter()
    total: Counter[str] = Counter()
    on_purpose = KNOWN_CHANGED.get(path.stem, {})
    misses, changed, clean, kept_on_purpose = [], [], 0, 0
    known_kinds: set[str] = set()  # kinds with a known miss: their floor is the list
    # (a listed value caught everywhere it stands is caught now: take it off the list; one
    # caught in one row and left in another stays listed)
    caught_known: set[str] = set()
    missed_known: set[str] = set()
    for row in _rows(path):
        out = redactor.redact_text(row["text"], {})
        if not row["values"]:
            clean += 1
            if row["id"] in on_purpose:
                assert out != row["text"], f"left unchanged now: {row['id']}"
                kept_on_purpose += 1
            elif out != row["text"]:
                changed.append(f"{row['text'][:160]!r}\n  -> {out[:160]!r}")
            continue
        for value in row["values"]:
            total[value["kind"]] += 1
            left = leaked(value["value"], row["text"], out)
            if left is None:
                caught[value["kind"]] += 1
                if value["value"] in known:
                    caught_known.add(value["value"])
            elif value["value"] in known:
                known_kinds.add(value["kind"])
                missed_known.add(value["value"])
            else:
                misses.append(f"{value['kind']}: {left!r} left in {out[:200]!r}")
    print(f"\n{path.stem}: {sum(caught.values())}/{sum(total.values())} values caught, "
          f"{len(changed)}/{clean} clean lines changed ({kept_on_purpose} more on purpose)")
    failures = []
    for kind in sorted(total):
        recall = caught[kind] / total[kind]
        print(f"  {kind:<20}{recall:>6.2f} ({caught[kind]}/{total[kind]})")
        floor = RECALL_CHECKSUMMED if kind in CHECKSUMMED else RECALL
        if recall < floor and kind not in known_kinds:
            failures.append(f"{kind}: {recall:.2f} < {floor}")
    # (a corpus is big enough to mean something: NA and NB, written in twenty minutes, are
    # the smallest, 130 clean lines and 244 values each)
    assert clean >= 120 and sum(total.values()) >= 100 and clean + sum(total.values()) >= 370
    now = caught_known - missed_known - hashes
    assert not now, f"caught now: {sorted(now)}"
    assert not failures, (failures, misses)
    assert not misses, misses
    assert len(changed) / clean <= MAX_CHANGED, changed
