"""What blind corpora SA (commerce and payments in Asia-Pacific) and SB (LLM application
developers' text) carried past the detectors, in shapes of their own: payment providers' and
platforms' key prefixes, a secret key told in Chinese, Japanese, Korean or Thai, a Thai phone
word, an SSN in a KYC document, a form's password field, a camel-case Pw, a salt key, a
*_BEARER variable, app-named session cookies, a secret put in the environment by a test,
Neo4j's and the tunnels' credentials, an INSERT's later rows; and what must stay: a local
server's stand-in key, a request's own signature, a Secret's name, a dated session record, an
analytics cookie, a documentation's APPSECRET."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor


@pytest.mark.parametrize(("text", "secret"), [
    ("Saya pakai key xnd_development_Q2xq7LpZ2mN9vR4tY8wK3sJ6hDaB1cE5fG7hJ0kL2oPqRsTu",
     "xnd_development_Q2xq7LpZ2mN9vR4tY8wK3sJ6hDaB1cE5fG7hJ0kL2oPqRsTu"),
    ("시크릿 키 test_sk_Q2xq7LpZ2mN9vR4tY8wK3s 로 호출하면", "test_sk_Q2xq7LpZ2mN9vR4tY8wK3s"),
    ("token 是 r8_Q2xq7LpZ2mN9vR4tY8wK3sJ6hDaB1cE5fG7hJ，为什么",
     "r8_Q2xq7LpZ2mN9vR4tY8wK3sJ6hDaB1cE5fG7hJ"),
    ("    access_key_id: LTAI5tQ2xq7LpZ2mN9vR4tY8", "LTAI5tQ2xq7LpZ2mN9vR4tY8"),
    ("El secreto es whsec_Q2xq7LpZ2mN9vR4tY8wK3sJ6hDaB1cE5f, ¿alguna idea?",
     "whsec_Q2xq7LpZ2mN9vR4tY8wK3sJ6hDaB1cE5f"),
    ("微信支付 APIv3 密钥设置成 Q2xq7LpZ2mN9vR4tY8wK3sJ6hDaB1cE 之后",
     "Q2xq7LpZ2mN9vR4tY8wK3sJ6hDaB1cE"),
    ("PayPayのシークレット Qx8s+2jg0bWKhP62Pd7jvhap を設定した", "Qx8s+2jg0bWKhP62Pd7jvhap"),
    ("ตอนนี้ใช้รหัส Shop@Admin2025 อยู่ ช่วยรีเซ็ตให้หน่อย", "Shop@Admin2025"),
    ("เบอร์ที่ผูกไว้คือ 0819274410 ค่ะ", "0819274410"),
    ("Secret Q2xq7LpZ2mN9vR4tY8wK3sJ6hDaB1cE5fG7h，我现在去禁用",
     "Q2xq7LpZ2mN9vR4tY8wK3sJ6hDaB1cE5fG7h"),
    ('{"document":{"type":"SSN","number":"318620491"},"status":"MANUAL_REVIEW"}', "318620491"),
    ('<input type="password" name="pass" value="Shop_RW!2025">', "Shop_RW!2025"),
    ("https://edi.example.kr/api/login?userId=SHOP01&userPw=Sh1p!KRx&format=json", "Sh1p!KRx"),
    ("  phonepe:\n    salt_key: 34f4579a-5251-4296-8987-4b9ea6d921ba",
     "34f4579a-5251-4296-8987-4b9ea6d921ba"),
    ("$ export SNAP_BEARER=Q2xq7LpZ2mN9vR4tY8wK3sJ6hDaB1cE5fG7hJ0kL",
     "Q2xq7LpZ2mN9vR4tY8wK3sJ6hDaB1cE5fG7hJ0kL"),
    ("copy cookie shopsession=Q2xq7LpZ2mN9vR4tY8wK3sJ6hDaB1c sang máy khác",
     "Q2xq7LpZ2mN9vR4tY8wK3sJ6hDaB1c"),
    ('"sorami_sid=Q2xq7LpZ2mN9vR4tY8wK3sJ6hDaB1c; lang=ja"', "Q2xq7LpZ2mN9vR4tY8wK3sJ6hDaB1c"),
    ('monkeypatch.setenv("AZURE_OPENAI_API_KEY", "98c8baf5df18ceea23a157e08bd0186d")',
     "98c8baf5df18ceea23a157e08bd0186d"),
    ("NEO4J_AUTH=neo4j/orbit-lantern-57-Gx", "orbit-lantern-57-Gx"),
    ("ngrok config add-authtoken 2Q2xq7LpZ2mN9vR4tY8wK3sJ6hD_aB1cE5fG7hJ0kL && ngrok http 7860",
     "2Q2xq7LpZ2mN9vR4tY8wK3sJ6hD_aB1cE5fG7hJ0kL"),
    ("cloudflared service install eyJhIjogIjc1MzQyMTEzOWZlMzlmMWI1ZmIwZDIwN2ZkM2RmMDM0In0=",
     "eyJhIjogIjc1MzQyMTEzOWZlMzlmMWI1ZmIwZDIwN2ZkM2RmMDM0In0="),
    ("Token response: access_token=tok_cYre1Qrj9aThLChVvczChBKzmgh6IdChfxOmWG3n expires_in=7200",
     "tok_cYre1Qrj9aThLChVvczChBKzmgh6IdChfxOmWG3n"),
    ("INSERT INTO api_credentials (tenant, provider, secret) VALUES ('a', 'x', 'Q2xq7LpZ2mN9vR4t'),"
     " ('b', 'y', 'Zk9vYmFyMTIzNDU2Nzg5');", "Zk9vYmFyMTIzNDU2Nzg5"),
])
def test_caught(redactor: Redactor, text: str, secret: str) -> None:
    out = redactor.redact_text(text, {})
    assert secret not in out and secret[: len(secret) // 2] not in out, out


@pytest.mark.parametrize("text", [
    'llm = ChatOpenAI(model="llama3.1", base_url="http://127.0.0.1:11434/v1", api_key="ollama")',
    'client = OpenAI(base_url="http://localhost:8000/v1", api_key="EMPTY")',
    "INFO signature valid order_id=ORD-1 signature_key=f11e19d4584f22bb37b0f159db0e2c61e1ae2737"
    "511925b32f98b9ff6c367750 fraud_status=accept",
    "[cert-manager] renewed certificate secret=api-example-jp-tls:",
    "created session_id=sess_2024-11-18_0193 for anonymous visitor (ttl=1800s)",
    "Set-Cookie: ajs_anonymous_id=%220f8e2d41-6c3b-49a7-b1e5-27d9c0a3f416%22; Path=/",
    "https://api.weixin.qq.com/cgi-bin/token?grant_type=client_credential&appid=wx8f3c2a1b9d0e4f56"
    "&secret=APPSECRET",
    'monkeypatch.setenv("STRIPE_SECRET_KEY", "sk_test_fake")',
    "charge created for tok_1MqLN3LkdIwHu7ixAbCdEfGh (card)",
])
def test_left(redactor: Redactor, text: str) -> None:
    assert redactor.redact_text(text, {}) == text


@pytest.mark.parametrize(("text", "value"), [
    # Korean words for a mobile phone (휴대폰, 핸드폰) before the number
    ("다음 정보로 전입신고서 초안을 작성해 줘: 이서연, 휴대폰 01058120151", "01058120151"),
    ("핸드폰 번호는 010-1234-5678 입니다", "010-1234-5678"),
])
def test_a_korean_mobile_after_its_word(redactor: Redactor, text: str, value: str) -> None:
    assert value not in redactor.redact_text(text, {})


def test_a_phone_case_order_stays(redactor: Redactor) -> None:
    text = "휴대폰 케이스 3개 주문, 주문번호 20240611"
    assert redactor.redact_text(text, {}) == text
