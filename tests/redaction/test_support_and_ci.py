"""What blind corpora QA (support and billing) and QB (infrastructure as code and CI) carried
past the detectors, in shapes of their own: SQL Server's and Redis' password flags, a key as
curl's user with Freshdesk's "X" for the password, a webhook's HMAC key, a session cookie in a
cookie jar, one-time links' tokens, a Vault AppRole's secret_id, a Pulumi secret in plain text,
a name/value listing with two columns; and what must stay: a setting's name in a secretKeyRef,
a cookie that only says where to go after a login."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor


@pytest.mark.parametrize(("text", "secret"), [
    ("sqlcmd -S db.internal -U sa -P 'Ledger!2025#x' -Q \"SELECT 1\"", "Ledger!2025#x"),
    ("bcp dbo.Invoices out inv.dat -S db01 -U loader -P Rk8#vT2qLw -c", "Rk8#vT2qLw"),
    ("command: redis-server --appendonly yes --requirepass Qz7!cache9", "Qz7!cache9"),
    ("redis-server /etc/redis.conf --masterauth 'Rpl1ca#Auth'", "Rpl1ca#Auth"),
    ('curl -u Pm3kW9xQ2vL8tR5nY7zA:X "https://acme.freshdesk.com/api/v2/tickets"',
     "Pm3kW9xQ2vL8tR5nY7zA"),
    ('{"hmacKey": "7C1E0A4F9B2D6E8A3C5F7B9D1E3A5C7F9B1D3E5A7C9F1B3D5E7A9C1F3B5D7E9A"}',
     "7C1E0A4F9B2D6E8A3C5F7B9D1E3A5C7F9B1D3E5A7C9F1B3D5E7A9C1F3B5D7E9A"),
    ("ADYEN_HMAC_KEY=44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056",
     "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056"),
    ('[{"name": "intercom-session-ab12cd34", "value": "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==--'
     '4f1c2a", "domain": ".example.io"}]', "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==--4f1c2a"),
    ("Join the team: https://grafana.example.io/invite/Xk3Lm9Qp2Rt7Vw4Yz8Ab",
     "Xk3Lm9Qp2Rt7Vw4Yz8Ab"),
    ("GET /reset-password/9f8e7d6c5b4a39281706f5e4d3c2b1a0 HTTP/1.1",
     "9f8e7d6c5b4a39281706f5e4d3c2b1a0"),
    ("vault write auth/approle/login role_id=ci-runner "
     "secret_id=3f2c9a1e-7b4d-4e6f-9a8b-1c2d3e4f5a6b", "3f2c9a1e-7b4d-4e6f-9a8b-1c2d3e4f5a6b"),
    ('{"role_id": "llm-ci", "secret_id": "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"}',
     "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"),
    ('"dbPassword": {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", '
     '"plaintext": "\\"Tq9!mZ2#pL\\""}', "Tq9!mZ2#pL"),
    ('const client = algoliasearch("Q1W2E3R4T5", "0f1e2d3c4b5a69788796a5b4c3d2e1f0");',
     "0f1e2d3c4b5a69788796a5b4c3d2e1f0"),
    ("KEY                      VALUE\nbilling:region           eu-west-1\n"
     "billing:stripeSecret     Hx7#kP2mQ9vL4nR8", "Hx7#kP2mQ9vL4nR8"),
])
def test_caught(redactor: Redactor, text: str, secret: str) -> None:
    out = redactor.redact_text(text, {})
    assert secret not in out and secret[: len(secret) // 2] not in out, out


@pytest.mark.parametrize("text", [
    "      secretKeyRef: {name: billing-db, key: DATABASE_URL}",
    "  - name: REDIS_HOST\n    valueFrom:\n      secretKeyRef: {name: cache, key: REDIS_HOST}",
    "Set-Cookie: redirect_to=%2Fd%2Fllm-serving; Path=/; HttpOnly; SameSite=Lax",
    "See https://docs.example.io/invite/how-to-invite-your-teammates-2024 for the steps",
    "aws secretsmanager get-secret-value --secret-id prod/billing/db",
    "KEY        VALUE\nreplicas   4\nregion     eu-west-1",
    "password:   31 bytes",
])
def test_left(redactor: Redactor, text: str) -> None:
    assert redactor.redact_text(text, {}) == text
