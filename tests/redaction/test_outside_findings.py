"""Text an outside tester and two blind corpora carried past the detectors: credentials under a
headers mapping's keys and after a short Authorization header, "pw" for a password, values
inside nginx's \\xNN-escaped bodies and Rust's Some("..."), phone numbers told with French and
Portuguese verbs; and what must stay: a latency named after a token, Playwright's debug
namespace, a carrier's reference that reads as a number dialled abroad."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from servescope.redaction import Redactor


@pytest.mark.parametrize(("text", "secret"), [
    ("Authorization: Bearer devsecret", "devsecret"),
    ('curl -H "Authorization: Bearer mytoken123" http://x', "mytoken123"),
    ('"authorization": "Basic dXNlcjpwYXNz"', "dXNlcjpwYXNz"),
    ("ssh root@10.0.0.9 -i ~/.ssh/id_rsa  # pw: rootroot", "rootroot"),
    ("My card was charged twice. Pw is QWbjwZnGaG7c, log in to look", "QWbjwZnGaG7c"),
    ('WARN smtp: auth failed for bob with pass "Mailpass#2026"', "Mailpass#2026"),
    ('    api_key: Some("QutZbdM4ZwUsMpGaScQUzzckeaD7vv6H"),', "QutZbdM4ZwUsMpGaScQUzzckeaD7vv6H"),
    ('"POST /v1/users HTTP/1.1" 201 {\\x22email\\x22: \\x22tom60@outlook.com\\x22, '
     '\\x22phone\\x22: \\x22+16466874882\\x22, \\x22ssn\\x22: \\x22718-20-4597\\x22}',
     "718-20-4597"),
    ("Le livreur peut m'appeler au 0322951437", "0322951437"),
    ("Vous pouvez me joindre au 0580227057.", "0580227057"),
    ("Mon numéro est le 0660208376.", "0660208376"),
    ("Pode me ligar no (11) 98943 2346.", "98943 2346"),
    ("The courier should ring (03) 7751 2418 when he's outside", "7751 2418"),
    ("Que el repartidor me llame al 0034 780934117 Gracias.", "780934117"),
    ("CREATE USER etl IDENTIFIED WITH sha256_password BY 'Quartz1996&' HOST ANY", "Quartz1996&"),
    ('1716915772.725718 [0 127.0.0.1:31778] "CONFIG" "SET" "requirepass" "KwSLk7WfLvPP"',
     "KwSLk7WfLvPP"),
    ("Variable\tValue\nemail\t'kenji@acme-corp.io'\npassword1\t'xJerfIC5J9P&qsJw'\n",
     "xJerfIC5J9P&qsJw"),
    ("env: AWS_SECRET_ACCESS_KEY=/COby6QWk0Cn3p6Nkv0GElxpZmpL0raAWKkEFezm",
     "COby6QWk0Cn3p6Nkv0GElxpZmpL0raAWKkEFezm"),
    ("can you ping Yujin? number is 02-365-5762, mail her", "365-5762"),
    ('[pagerduty]\nrouting_key = "key-e5cc2ae29224db4f62e1dc5a97ce6ffc"', "e5cc2ae29224db4f"),
])
def test_caught(redactor: Redactor, text: str, secret: str) -> None:
    assert secret not in redactor.redact_text(text, {})


@pytest.mark.parametrize("text", [
    "     -> gen_ai.latency.time_to_first_token: Double(0.064225)",
    "  pw:browser <launching> /ms-playwright/chromium-1116/chrome-linux/chrome --headless",
    "fetched order=945-1138053-1398042 status=DELIVERED carrier_ref=004600930371",
    "pw: 350W",
    '  -H "Authorization: Bearer lightspeed_xs_pat_YourTokenHere"',
    "Authorization: Bearer $TOKEN",
    "From: root@es-data-4.internal (Cron Daemon)",
    "rsync -az --delete --exclude .git ./ deploy@staging.internal:/srv/app/",
    "order number is 123-456-7890",
    "key_file=/etc/ssl/private/server.key",
    "PPOIMCAcIoafRlRjt80rwayc8v9wrwhTScMjP/grij3fj0LZ2vlqfB6wTtpBNjI7C\n"
    "paYqfNc9+23hF/8ODGB1uGK2bcNVppyziZqJYwMT\n-----END PUBLIC KEY-----",
])
def test_left(redactor: Redactor, text: str) -> None:
    assert redactor.redact_text(text, {}) == text


def test_a_headers_mapping_loses_its_credentials_under_the_default_policy() -> None:
    line = {"text": "req", "headers": {"authorization": "Bearer abc.def.ghi",
                                       "Proxy-Authorization": "Basic Zm9vOmJhcg==",
                                       "Cookie": "sid=abc123", "accept": "text/plain"}}
    done = subprocess.run([sys.executable, "-m", "servescope", "redact", "--jsonl"],
                          input=json.dumps(line), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"text": "req", "headers": {"accept": "text/plain"}}
