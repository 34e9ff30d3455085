"""The round of corpora BX (e-mail marketing), BY (on-call and incident response), BZ
(German-speaking bureaucracy and small business), CI (what people paste into an LLM chat), CJ
(Brazil's services) and CK (brokerages and trading platforms): each shape they found left or
wrongly changed, redacted or kept in process."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor

_redactor = Redactor(hash_key=b"test-key-0123456789abcdef")


def _redact(text: str) -> str:
    return _redactor.redact_text(text, {})


@pytest.mark.parametrize(("text", "value"), [
    # e-mail marketing: a VERP bounce address, an inbound service's mailbox, a double opt-in
    # link's token, Ghost's Admin API key, a session cookie named in capitals
    ("Return-Path: <bounces+9248226-d91d-ferreira.beatriz=sapo.pt@em4042.example-outdoor.de>",
     "ferreira.beatriz"),
    (' "To": "969e2eeb1557061eb3dd304119b42874@inbound.postmarkapp.com",',
     "969e2eeb1557061eb3dd304119b42874"),
    ("https://shop.example.de/newsletter/doi/NaMte-SgQB4fQ9M0EBfIXD9Ur0ihS5ArNzbJ0zP_IXg",
     "NaMte-SgQB4fQ9M0EBfIXD9Ur0ihS5ArNzbJ0zP_IXg"),
    ("https://shop.example.nl/nieuwsbrief/bevestig?k=O7Ks8GKrYF5m1ga1esiEGn4cfKTQ1xZO",
     "O7Ks8GKrYF5m1ga1esiEGn4cfKTQ1xZO"),
    ("Ghost Admin API key: dccab556097bff088e83ef81:97bc1d3f19560981b909b2071a8cc98c739f60d12"
     "0b729d6d78e21672a9fdb4b", "97bc1d3f19560981b909b2071a8cc98c739f60d120b729d6d78e21672a9fdb4b"),
    ('{"name": "Cookie", "value": "MCSID=2809fbc60f2ce77a0c717f411b5dea87; _ga=GA1.2.3"}',
     "2809fbc60f2ce77a0c717f411b5dea87"),
    # on-call: a bridge's code before its "#", security answers in a registrar's call notes
    ("SEV1 déclaré. Numéro : +33 6 71 94 88 57, code 31944425#", "31944425"),
    ("They asked the security question (first pet / street) — answered \"Mr. Pickles\".",
     "Pickles"),
    ("Q: What was the name of your first pet?  A (provided by caller): Bella2\nResult: matched",
     "Bella2"),
    # German-speaking bureaucracy: pension insurance numbers, health insurance numbers, SVNR,
    # ELSTER's activation id, a cancellation code, CI variables, a PUK, Wi-Fi passwords, a
    # letter's password, a Teams passcode
    ("[x] SV-Ausweis: 52 150857 D 353", "52 150857 D 353"),
    ("pers_nr\tname\tkvnr\trvnr\n4965\tRoth\tI384231077\t61 130902 K 552", "I384231077"),
    ('{"patient":{"phone":"x","kvnr":"D104707940"}}', "D104707940"),
    ('{"dienstnehmer":{"persnr":"71116","svnr":"1918070963"}}', "1918070963"),
    ("vielen Dank. Ihre Aktivierungs-ID lautet: DQV3-MZNL-JYQ6", "DQV3-MZNL-JYQ6"),
    ("Nutzer nannte alte Aktivierungs-ID GQV7-7ZZL-84QP und", "GQV7-7ZZL-84QP"),
    ("Vorgangsnummer: 73776776\nAbsage-Code: 3e129db71dfee46adbe6f012cf9c440f",
     "3e129db71dfee46adbe6f012cf9c440f"),
    ("variable: DATEV_CLIENT_SECRET  value: f7c881590961c8c856bb1f969b0809df15fe1b05",
     "f7c881590961c8c856bb1f969b0809df15fe1b05"),
    ("eID-PIN: 52986\nPUK aus dem PIN-Brief: 3417585368", "3417585368"),
    ("Zugänge\nWLAN: GWx_GAsLN#-1w3lbj1", "GWx_GAsLN#-1w3lbj1"),
    ("Super. WLAN für die Wallbox-Konfiguration: Lindenblatt_616$", "Lindenblatt_616$"),
    ("ELSTER Papa: Zertifikat-PW Edelweiss_1011?", "Edelweiss_1011?"),
    ("Sehr geehrter Herr Haas\nIhr Erstpasswort lautet: lw!quCQEbvjvziXPr", "lw!quCQEbvjvziXPr"),
    ("Besprechungs-ID: 551 585 348 137  Kennung: jBSoTI", "jBSoTI"),
    # what people paste into an LLM chat: passwords changed "to", a PIN asked for and given on
    # the next line, a magic link's token_hash, an OpenVPN credentials file, a list of security
    # answers, a Chinese visa form's travel document, Chile's "fono"
    ("I changed the admin password to xfnm-asgg-smjs-oebg and the WLAN key to BtOWElpf$boPQ7",
     "xfnm-asgg-smjs-oebg"),
    ("I changed the admin password to xfnm-asgg-smjs-oebg and the WLAN key to BtOWElpf$boPQ7",
     "BtOWElpf$boPQ7"),
    ("[10:02] Agent: can I take your account PIN please?\n[10:03] You: 480377", "480377"),
    ("https://app.example/auth/confirm?token_hash=y0ibI8cWCWyVAG1SSZs3PbQBVEaHve1NcnxT6JotNko"
     "&type=magiclink", "y0ibI8cWCWyVAG1SSZs3PbQBVEaHve1NcnxT6JotNko"),
    ("auth-user-pass creds.txt\n\ncreds.txt:\nvpnuser\nrocket1529$\nthe same login works",
     "rocket1529$"),
    ("my answers were mother's maiden name = Lindqvist, first pet = Ziggy, elementary school = "
     "Greenfield Primary. Maybe", "Greenfield Primary"),
    ("申根签证表格第 13 项要填旅行证件号码，我填的是 E69803190。", "E69803190"),
    ("Soy Marta Torres, fono 9 3394 2432. El contrato vence", "9 3394 2432"),
    # Brazil: a voter card after "título", an RG and a NIS as keys, a CNS column, a security
    # answer on the next line, a code to use, a number called back from and with no space
    ("Eleitor solicita regularização do título 2149 7093 1503 (zona 0264)", "2149 7093 1503"),
    ('"cpf": "14855249890",\n    "rg": "83.874.263-4",', "83.874.263-4"),
    ("[cadunico-sync] INFO responsavel_nis=12372509820 responsavel_cpf=17332643707",
     "12372509820"),
    ("cns,nome,data_nasc\n269841584050007,Rosângela Almeida,17/11/1973", "269841584050007"),
    ("Atendente: qual a resposta da sua pergunta de segurança (nome do primeiro animal)?\n"
     "Cliente: Frajola\nAtendente: Confirmado.", "Frajola"),
    ("Meu INSS: use o codigo 504529 para confirmar seu cadastro.", "504529"),
    ("Cliente retornou do número 84994147823. Confirmou", "84994147823"),
    ("Em caso de dúvida, ligue (61)2738-3619.", "(61)2738-3619"),
    # brokerages: Alpaca's key id and its headers, a settings class's validation error, FIX's
    # passwords, a W-8BEN's foreign tax number, a session's random id, a code received
    ("$ export APCA_API_KEY_ID=PKZR494RGSXN2IID7636", "PKZR494RGSXN2IID7636"),
    ('-H "APCA-API-SECRET-KEY: l1xhU3UQHpcRnZMtifrK72EqH36KtH0Ds4zixTea" | jq',
     "l1xhU3UQHpcRnZMtifrK72EqH36KtH0Ds4zixTea"),
    ("alpaca_secret\n  String should have at least 40 characters [type=string_too_short, "
     "input_value='sNRUKNpFFiUg4a6R1K6gWhz24lpd5OQ4CdCpMyn', input_type=str]",
     "sNRUKNpFFiUg4a6R1K6gWhz24lpd5OQ4CdCpMyn"),
    ('Logon rejected from x SenderCompID=X reason="Invalid password" (554=Hawk_sole316)',
     "Hawk_sole316"),
    ("8=FIX.4.4|35=A|553=U08071|554=J#RglC$!l*576sOF^Vk|925=^0SFjQQ*ErNB*|10=105|",
     "^0SFjQQ*ErNB*"),
    ("^A553=ironwoodfix^A554=Dividend.ledger888$^A10=174^A", "Dividend.ledger888$"),
    ("6a Foreign tax identifying number: 15812661T", "15812661T"),
    ('"client_ip": "100.177.10.49", "session_id": "P_jnzWWKUCAYJdt43wu_UVFasvl_Rm9b", "ua": "x"',
     "P_jnzWWKUCAYJdt43wu_UVFasvl_Rm9b"),
    ("[chat] Cliente: me ha llegado el 695967", "695967"),
    ("cliente Sergio Rodríguez, llama desde 675 224 420 por la retención", "675 224 420"),
    ("Por favor, TC Kimlik No: 72415597000", "72415597000"),
])
def test_the_round_s_shapes_are_redacted(text: str, value: str) -> None:
    assert value not in _redact(text)


@pytest.mark.parametrize("text", [
    # code spans after a secret's word, a masked key, a stored token's digest, a password
    # policy's compound, an appointment's case number after an identity card's name, a tax
    # code, a backup's snapshot, a parcel after "me ha llegado", a test case's id, a Wi-Fi
    # scan's BSSID, a prescription's number
    "4. Update the Kubernetes secret: `kubectl -n rag create secret generic db-creds`",
    "1. Generate a 2048-bit key: `opendkim-genkey -b 2048 -s s1 -d yourdomain.tld`",
    '{"route": "/v1/chat/completions", "api_key": "sk-ant-\\u2026mozQ", "status": 529}',
    "API tokens are hashed with SHA-256, e.g. token_hash=67bf3f59c6a0afd5af98f628804f5e2057053c2"
    "89e9af7dae0fc35a2137ecfcd. Session cookies: HttpOnly",
    "Schreib mir eine Passwortrichtlinie für unser 8-Personen-Steuerbüro.",
    "Termin für einen neuen Personalausweis, Vorgangsnummer 50922225, am 07.11.2024",
    "NI no: ** ** ** ** *   Tax code: 1239L",
    "[2024-09-16 11:04:55,558] backup: restic snapshot be5cafa1 saved, 4491 files new",
    "Me ha llegado el paquete 123456 hoy",
    "Test senaryosu TC 96474740146 geçti; toplam 910 senaryo",
    "I (1677) scan: SSID=iot-lab BSSID=67:99:4e:92:ed:89 RSSI=-34 CH=8",
    "Ordonnance n° 0179-761-11350 : Kardégic 75 mg",
    "Llama 3 70B running on 4 GPUs, latency 120 ms",
])
def test_the_round_s_look_alikes_are_kept(text: str) -> None:
    assert _redact(text) == text
