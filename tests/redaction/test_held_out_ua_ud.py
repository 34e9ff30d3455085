"""What corpora UA (LLM-serving telemetry), UB (prompts and chats), UC (the operations of
ML infrastructure) and UD (agents' tool traces), written blind, found held out: values told a
few words after their name or in other languages' words, tools' own ways of printing a
secret, passwords a browser agent types, and operations text that is no secret."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor


@pytest.mark.parametrize(("text", "value"), [
    # nine digits a few words after "SSN", in a prompt and in an error
    ("the W-4 form keeps rejecting my SSN. i typed 568967118 without dashes", "568967118"),
    ("ValueError('Invalid SSN checksum for applicant: 462144005')", "462144005"),
    # under a taxpayer id's name
    ("extract tax id from: 'TIN: 883624186'", "883624186"),
    # a bearer token told in German and French
    ("Mein Bearer-Token lautet 6XfNBU0dOJOUG9ZjyrolaIveKugAdlDrmusAT5k2, wurde gestern neu "
     "erstellt.", "6XfNBU0dOJOUG9ZjyrolaIveKugAdlDrmusAT5k2"),
    ("mon jeton bearer est r12DcpywcdMYseiGP6PHhIqsXAtyK9Rx.SwhCANeqQksb74a6z8wg si tu veux",
     "r12DcpywcdMYseiGP6PHhIqsXAtyK9Rx.SwhCANeqQksb74a6z8wg"),
    # a Japanese mobile after 携帯 (mobile), with no separators
    ("ユーザー：修理の件で折り返しお願いします。携帯は 09095229971 です。", "09095229971"),
    # what aws ecr get-login-password prints, on the next line
    ("$ aws ecr get-login-password --region eu-central-1\n" + "eyJwYXlsb2FkIjoiSzBjRHZX" * 6,
     "eyJwYXlsb2FkIjoiSzBjRHZX" * 6),
    # Vault's unseal keys
    ("Unseal Key 1: WDsS9pJrG+feOSCpqrBLdCIlvzEAMxVeZxySRxOwlKbp\n",
     "WDsS9pJrG+feOSCpqrBLdCIlvzEAMxVeZxySRxOwlKbp"),
    # poetry's repository login, a registry's credentials for skopeo, OCI's key pass phrase
    ("$ poetry config http-basic.ml-private ci-ml 'NHCIDTJQkOArnLARYjkLU'",
     "NHCIDTJQkOArnLARYjkLU"),
    ("skopeo copy --dest-creds robot$mirror:ubeOZqZzuaZYiOQSYZAb1kYTxGV docker://a docker://b",
     "ubeOZqZzuaZYiOQSYZAb1kYTxGV"),
    ("region=eu-frankfurt-1\npass_phrase=nYhIHVVgaSEfAHJhMeA3", "nYhIHVVgaSEfAHJhMeA3"),
    # a password a browser agent types into a form
    ('[stagehand] act: type "Harbor-drift-meadow-45" into the "Password" input',
     "Harbor-drift-meadow-45"),
    ("await page.getByRole('textbox', { name: 'Password' }).fill('mango!2021');", "mango!2021"),
    ("page.fill('#password', 'Tr0ub4dor&3')", "Tr0ub4dor&3"),
    ('driver.find_element(By.NAME, "password").send_keys("Zq8!mx77Lp")', "Zq8!mx77Lp"),
    ('- textbox "Create password" [ref=e30]: I??$Iax_!.79W\n- button "Hide password"',
     "I??$Iax_!.79W"),
    ('{"name":"browser_type","arguments":{"element":"Password textbox","ref":"e34",'
     '"text":"saffron!10$","submit":true}}', "saffron!10$"),
])
def test_the_value_is_redacted(redactor: Redactor, text: str, value: str) -> None:
    out = redactor.redact_text(text, {})
    assert value not in out and "[REDACTED:" in out


@pytest.mark.parametrize("text", [
    # nine digits the words before them name as something else
    "SSN on file; order 123456789 shipped",
    "SSN verified, case no. 568967118",
    "the SSN field has 9 digits; build 202411051 failed",
    # another field's value after an ssn-named one
    "ssn_verified=true latency_ns=123456789",
    '{"ssn_valid": true, "amount": 123456789}',
    "ssn check | ok | 123456789",
    # a parcel's tracking number after the word for one (Italian)
    "Vettore BRT, spedizione 0712 2245 9981 – Consegna prevista 08/11/2024",
    # a callback URL in a cookie (next-auth), percent-encoded
    "set-cookie: __Secure-next-auth.callback-url=https%3A%2F%2Flangfuse.lumenrail.ai; Path=/; "
    "Secure; SameSite=Lax",
    # an embedding of 16 floats as the OpenAI API's base64 encoding returns it
    '{"object": "embedding", "index": 0, "embedding": "TvKDPQGiIL2fPoI8aMwkPb3HGb31ZJ49JQLVPPF'
    'HkT1keRe9A1ulvFEyOb0kJT299kCLvdgoazwQkZo8c6CHPQ=="}',
    # "fill in here" in Dutch, German, French and Spanish
    "SECRET_KEY=vul-hier-in",
    "API_KEY=hier_eintragen",
    "password=a-remplir",
    "token=pon-aqui",
    # an environment variable's name in a sentence, and a client's error after "token:"
    'The API key is read from secret "tgi-mixtral-api-key" (key: VLLM_API_KEY).',
    "failed to fetch oauth token: unexpected status: 401 Unauthorized",
    "skopeo copy --dest-creds robot:$REGISTRY_PASSWORD docker://a docker://b",
    # a form's password field filled from the environment, or with a stand-in, or empty
    "await page.getByLabel('Password').fill(process.env.TEST_PASSWORD);",
    "await page.getByLabel('Password').fill('<password>');",
    '- textbox "Password" [ref=e12]',
    'type "hello world" into the search box',
    # German prose with "Basic ist"
    "Basic ist eine Programmiersprache aus den Sechzigern",
])
def test_operations_text_is_left_alone(redactor: Redactor, text: str) -> None:
    assert redactor.redact_text(text, {}) == text


def test_a_phone_is_still_a_phone_where_no_parcel_is_named(redactor: Redactor) -> None:
    assert "0712 2245 9981" not in redactor.redact_text("chiamami al 0712 2245 9981", {})
