"""What blind corpora RA (health, insurance, HR and payroll) and RB (security and observability
tools) carried past the detectors, in shapes of their own: passwords on more tools' command
lines, session cookies by an app's name or told in prose, more vendors' token prefixes, a
private key's bare DER, passwords told after a longer clause or in Arabic, an INSERT's values
under a secret's column; and what must stay: a database after mysql's bare -p, a port, a CSRF
field, an analytics session id, a VPN's session record, a log's next field, a drug's NDC code,
a Secret's entry name."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor


@pytest.mark.parametrize(("text", "secret"), [
    ("lftp -u uploader,'Hq4!zR8wLp' sftp://sftp.partner.example -e 'put a.csv; bye'",
     "Hq4!zR8wLp"),
    ("rabbitmqadmin -H mq.internal -u svc -p Carrot!9Xq list queues", "Carrot!9Xq"),
    ("./mccommand -a https://mirth.internal:8443 -u admin -p 'Adm1n#Mirth' -s x.txt",
     "Adm1n#Mirth"),
    ("openssl pkcs12 -export -in c.pem -out c.p12 -passout pass:Exp0rt!Pfx", "Exp0rt!Pfx"),
    ("keytool -list -keystore app.jks -storepass Ks-St0re#9", "Ks-St0re#9"),
    ("net use Z: \\\\files01\\share /user:CORP\\svc Sh4re$Pass /persistent:no", "Sh4re$Pass"),
    ("smbclient //files01/share -U 'CORP\\svc%Smb!P4ss' -c 'ls'", "Smb!P4ss"),
    ("set_cookie name=PLAY_SESSION value=Zk9vYmFyMTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1u",
     "Zk9vYmFyMTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1u"),
    ("WARN same PortalSession=4e1f0c9a7b2d6e3f8a5c1b9d0e7f2a6c seen twice",
     "4e1f0c9a7b2d6e3f8a5c1b9d0e7f2a6c"),
    ("navigated to https://app.example.io/magic-login?t=Xq7LpZ2mN9vR4tY8wK3sJ6hD",
     "Xq7LpZ2mN9vR4tY8wK3sJ6hD"),
    ("attacker replayed the stolen session cookie q8v2k7z1m4n9p3x6w5r0t2y8",
     "q8v2k7z1m4n9p3x6w5r0t2y8"),
    ("临时 token 先用这个 hvs.CAESIM2xq7LpZ2mN9vR4tY8wK3sJ6hDaB1c ，明天过期",
     "hvs.CAESIM2xq7LpZ2mN9vR4tY8wK3sJ6hDaB1c"),
    ("echo dckr_pat_Q2xq7LpZ2mN9vR4tY8wK3sJ6hDa | docker login -u bot --password-stdin",
     "dckr_pat_Q2xq7LpZ2mN9vR4tY8wK3sJ6hDa"),
    ("token: glsa_Xq7LpZ2mN9vR4tY8wK3sJ6hDaB1cE5fG_0a1b2c3d",
     "glsa_Xq7LpZ2mN9vR4tY8wK3sJ6hDaB1cE5fG_0a1b2c3d"),
    ("tls: failed to find PEM block, got raw base64 MHcCAQEEIBx9q2v7LpZ2mN9vR4tY8wK3sJ6hDa"
     "B1cE5fG7hJ0kL2oAoGCCqGSM49AwEHoUQDQgAE== (len=164)",
     "MHcCAQEEIBx9q2v7LpZ2mN9vR4tY8wK3sJ6hDaB1cE5fG7hJ0kL2oAoGCCqGSM49AwEHoUQDQgAE=="),
    ("Paciente: esqueci a senha do app da farmácia, a última que usei foi Zt!4rQm#8vLx. Ajuda?",
     "Zt!4rQm#8vLx"),
    ("نسيت كلمة المرور، آخر واحدة استخدمتها كانت سرّي2025! هل يمكن إعادة تعيينها؟", "سرّي2025"),
    ("ho reimpostato la password del portale: ora è Busta!Paga42. Funziona?", "Busta!Paga42"),
    ("INSERT INTO api_sessions (user_id, session_token, expires_at) VALUES ('E1', "
     "'Qm9vYmFyMTIzNDU2Nzg5MGFiY2Rl-x9', '2024-11-08');", "Qm9vYmFyMTIzNDU2Nzg5MGFiY2Rl-x9"),
])
def test_caught(redactor: Redactor, text: str, secret: str) -> None:
    out = redactor.redact_text(text, {})
    assert secret not in out and secret[: len(secret) // 2] not in out, out


@pytest.mark.parametrize("text", [
    "mysql -u root -p app2 < dump.sql",
    "docker run -u 1000 -p 8080:80 nginx:1.27",
    '<input type="hidden" name="csrf_token" value="4vUpFaN-_gTRLmm7QwZ3kd9sQ2xq7LpZ">',
    "analytics event reported (firstSessionId=30878a8ebf4a85ca668cdd1778325833)",
    "Connected. Session id ee40ef88-0f8a-484c-a590-8749888a30b1 (latency 74 ms)",
    "401 invalid_client at https://login.example.com/oauth2/v2.0/token "
    "trace_id=3c497db8ebf0070b291c6b1cdba64023",
    "ndc,description,package\n00093-7146-56,Atorvastatin 20mg tab,90 EA\n"
    "00378-0018-77,Metformin 500mg tab,1000 EA",
    "      secretKeyRef:\n        name: llm-keys\n        key: openai",
    "INFO Contraseña actualizada correctamente para el usuario id=4412; 3 sesiones cerradas",
    "INSERT INTO audit (user_id, token_count, note) VALUES ('E1', 4096, 'ok');",
])
def test_left(redactor: Redactor, text: str) -> None:
    assert redactor.redact_text(text, {}) == text
