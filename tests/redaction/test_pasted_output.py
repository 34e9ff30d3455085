"""Output people paste into the issue threads of LLM-serving projects (vLLM, LiteLLM, Ray,
Kubernetes, OpenTelemetry), in lines written after the shapes a hunt over such threads found
changed: prose about a flag, a Kubernetes Secret's name, protobuf's text format, booleans and
placeholders in backticks, lower-case shell variables, and a password repeated inside a
longer word."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor


@pytest.mark.parametrize("text", [
    # prose about the flag, not its value
    "# vllm-mlx serve does not recognize --api-key argument",
    "but there is no mention of an --api-key option for serve.",
    # a Kubernetes Secret's name after the verb that names it
    "$ kubectl describe secret builder-token-7hx2k",
    "- kubectl get secret deployer-token-4m9qz --template='{{.data.token}}'",
    "kubectl delete secret registry-token-z81kq -n ci",
    # an OTLP exporter's debug print: a key/value pair in protobuf's text format
    'attributes:{key:"span_id" value:{string_value:"fd59f6a10c2e7b41"}}',
    # a boolean and placeholders in backticks, a placeholder in words
    "run the code as before with `use_auth_token=True`. You can verify with `huggingface-cli`",
    '    use_auth_token="YOUR TOKEN HERE",',
    'DATABASE_URL="postgresql://`username`:`password`@localhost:5432/`db_name`?schema=public"',
    "OPENAI_API_KEY=sk-...",
    # a shell variable in lower case
    "ray start --head --redis-port=6379 --redis-password=$redis_password &",
    "# add back vLLM --api-key arg so that it is not logged in plain text",
    # documentation's stand-ins after Bearer
    '  -H "Authorization: Bearer lightspeed_xs_pat_YourTokenHere"',
    '  -H "Authorization: Bearer abcdef1234567890abcdef1234567890abcdef12"',
    'curl -H "Authorization: Bearer hf_org_api_key_YourOrganizationToken" \\',
    # llama.cpp's log stamp (minutes, seconds, ms, µs) and a kernel's four-part version
    "16.15.202.152 I slot get_availabl: id  3 | task -1 | selected slot by LRU, t_last = 1685042",
    "16.15.202.165 I srv          load:  - found better prompt with f_keep = 0.308, sim = 0.298",
    "Python platform: Linux-5.15.153.1-microsoft-standard-WSL2-x86_64-with-glibc2.35",
    # log probabilities, and a keyword argument passing its own name
    "text_offset=[0, 1, 7], token_logprobs=[-1.1920928244535389e-07, -2.706014311115723e-05]",
    "+            token_logprobs=token_logprobs,",
    # a service account's token Secret, and docker login's prompt then its warning
    "Mountable secrets:  default-token-nwv80",
    "    Username: thajeztah\n    Password:\n    WARNING! Your password will be stored "
    "unencrypted in /root/.docker/config.json.",
    # SnowSQL's prompt (user#warehouse@database.schema), and an IRC channel on its network
    "DBT_RUNNER#COMPUTE_WH@RAW.PUBLIC> SELECT payment_id, amount FROM payments;",
    "ANALYST#XS_WH@PROD_DB.PUBLIC> SELECT 1;",
    "Run the command below suggested by geirha in ##sed@irc.freenode.net.",
    # a link under a secret's words (a markdown reference, a scope), and curl's user given
    # by a variable with no password
    "[set up the credentials]: https://github.com/nodejs/node-core-utils#setting-up-credentials",
    "oauth_token_authentication_scope=https://www.googleapis.com/auth/cloud-platform",
    "$ curl -s -u $SCALE_API_KEY: https://api.scale.com/v1/task/02efade8322b4e873c90855f",
])
def test_the_pasted_line_stays(redactor: Redactor, text: str) -> None:
    assert redactor.redact_text(text, {}) == text


def test_a_repeated_password_is_redacted_as_a_word_not_inside_one(redactor: Redactor) -> None:
    text = 'DATABASE_URL="postgresql://postgres:postgres@localhost:5432/crew_ai"'
    out = redactor.redact_text(text, {})
    assert out.startswith('DATABASE_URL="postgresql://[REDACTED:')  # the scheme is kept
    assert "postgres:" not in out and ":postgres@" not in out


@pytest.mark.parametrize(("text", "value"), [
    ('attributes:{key:"db.password" value:{string_value:"Zq8!vR2mWx"}}', "Zq8!vR2mWx"),
    ("ray start --redis-password=$uperS3cret! --port=6379", "$uperS3cret!"),
    ("my secret 9f86d081884c7d659a2feaa0c55ad015", "9f86d081884c7d659a2feaa0c55ad015"),
    # a real token next to the stand-ins' words
    ("Authorization: Bearer 7Fq2YourKz9P0xLm2Qw8Rt5Yv", "7Fq2YourKz9P0xLm2Qw8Rt5Yv"),
    # an address followed by a word that is no log level
    ("connect from 81.2.69.142 I think", "81.2.69.142"),
    # an API key as curl's user, with no password (Stripe's and Scale's way)
    ("$ curl -s -u live_97bdad1db61d18bfa4c21a8b4eeaccb5: https://api.scale.com/v1/task/1",
     "live_97bdad1db61d18bfa4c21a8b4eeaccb5"),
    ("curl https://api.stripe.com/v1/charges \\\n  -u sk_test_4eC39HqLyjWDarjtT1zdp7dc: \\\n"
     "  -d amount=2000", "4eC39HqLyjWDarjtT1zdp7dc"),
    # a vCard attached as base64 (its lines decode too)
    ('{"mime": "text/vcard", "data_b64": "QkVHSU46VkNBUkQKVkVSU0lPTjozLjAKRk46Sm/Do28gU2ls'
     'dmEKRU1BSUw6anNpbHZhNzdAdGVycmEuY29tLmJyClRFTDorNTUgKDIxKSA5NDUxNS00ODQyCkVORDpWQ0FS'
     'RA=="}', "RU1BSUw6anNpbHZhNzdAdGVycmEuY29tLmJy"),
    # a munged address is still one
    ("applied patch from Tim Engler <tim@burntcouch_.com>", "tim@burntcouch"),
])
def test_the_value_goes(redactor: Redactor, text: str, value: str) -> None:
    assert value not in redactor.redact_text(text, {})
