"""Operations text the sixth to ninth blind corpora showed: where a secret or a number sits
in tools' own output, and the look-alikes beside it that must stay."""

from __future__ import annotations

import json

import pytest

from servescope.redaction import Redactor

_SIG = "87afca20b2fcb0407fa3267e4d73499bd9469354d082a18dda0c02ae83f03ef9"
_AZURE = "Ca8ReDz/TSz27PuCEbCt4aEuFVhkPzX6+viF4w9E2oEDc71bhAKXFY8ijhrHqk/vcqL90KFuQC5tq531JXY9bz=="


@pytest.mark.parametrize(("text", "value"), [
    ('1794463564.621551 [0 10.4.195.187:39837] "AUTH" "default" "zvn!6iTwQALAey13XeF"',
     "zvn!6iTwQALAey13XeF"),
    ("rabbitmqctl add_user span_exporter 'GvZ4uvfET$g8'", "GvZ4uvfET$g8"),
    ("sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
     "username='LTG1VLUX8NSME3GM' password='3kF/44JJlrxdnXY65/x';", "LTG1VLUX8NSME3GM"),
    (f'"GET /b/o?X-Amz-Expires=3600&X-Amz-Signature={_SIG} HTTP/1.1" 206', _SIG),
    (f'[{{"keyName": "key1", "permissions": "FULL", "value": "{_AZURE}"}}]', _AZURE),
    ('os.environ["LANGSMITH_API_KEY"] = "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"',
     "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"),
    ('ApplicationBuilder().token("7714138339:AAhS7A4PNwsvQh3g0ooVS9MNEBaPzaeV55n").build()',
     "7714138339:AAhS7A4PNwsvQh3g0ooVS9MNEBaPzaeV55n"),
    ("doctl auth init --access-token dop_v1_" + "c4" * 32, "dop_v1_" + "c4" * 32),
    ("RUN wandb login 946573bc9d8a8314c20fc0d769e529c74999886f",
     "946573bc9d8a8314c20fc0d769e529c74999886f"),
    ('<a href="tel:01763807693">call now</a>', "01763807693"),
    ('To: "fatima alsayed"@brightpath.consulting', '"fatima alsayed"@brightpath.consulting'),
    ("queue=voice customer_ref=KzEgNjE3LTQ0OS0yNTI3 retry_in=300s", "KzEgNjE3LTQ0OS0yNTI3"),
    ('{"contact": {"phone": "(31) 99481-3461"}}', "99481-3461"),
    ("Can the courier ring me on 81 7661 6779 when they arrive?", "81 7661 6779"),
    ("Caller asked us to use 076489 74564 from now on", "076489 74564"),
    ("The password I'm using right now is nopal&9217quartz and it fails", "nopal&9217quartz"),
    ("„CNHlnbOT_8XbvLBOBcF8qs“ – das ist mein neues Passwort", "CNHlnbOT_8XbvLBOBcF8qs"),
    ("我的密码是Winter!7739quartz，手机号", "Winter!7739quartz"),
    ("Password baru saya: C+5a1Z39y1zoCTau (jangan disebar).", "C+5a1Z39y1zoCTau"),
    ("I forgot my login, try my usual password Zebra!Lamp_u6emuT7", "Zebra!Lamp_u6emuT7"),
    # JSON's \uXXXX escapes (Python's json.dumps by default), once and escaped again
    (json.dumps({"content": "「ffI9y0ebsBXc1lSHW%w5HZ4」が仮パスワードです"}),
     "ffI9y0ebsBXc1lSHW%w5HZ4"),
    (json.dumps({"m": json.dumps({"content": "電話は090-1234-5678"})}), "090-1234-5678"),
    # the eighth and ninth corpora: payloads, code and configuration
    ("my card is 4 0 2 4 4 5 6 1 5 1 9 6 8 0 4 5 (spaced out)", "4 0 2 4 4 5 6 1 5 1 9 6 8 0 4 5"),
    ("カード番号：５３３９\u3000９４７３\u3000５５５０\u3000８４３６（有効期限）",
     "５３３９\u3000９４７３\u3000５５５０\u3000８４３６"),
    ("電話番号は０９０－６７２８－８７０２です", "０９０－６７２８－８７０２"),
    ("reset my password, the old one was zEalhq8eeWODeN32", "zEalhq8eeWODeN32"),
    ("Username lukas, password *JxQlav$%!yxq. Is it locked?", "*JxQlav$%!yxq"),
    ('result: "sessionid=vyUMKDGi6-ffazjo7fM8lb-ncHh12ur3goGULOt1; django_language=en"',
     "vyUMKDGi6-ffazjo7fM8lb-ncHh12ur3goGULOt1"),
    ('"SET" "sess:EA3B2EC10D50B4651B89B95B9545D721" "{}"', "EA3B2EC10D50B4651B89B95B9545D721"),
    ("curl https://x.example.app/api -b 'connect.sid=7064C1FB8225D3AEFC0C3DC995A8FFD7; _ga=1'",
     "7064C1FB8225D3AEFC0C3DC995A8FFD7"),
    ("return jwt.sign({ uid: user.id }, 'G2JOGVulv7Le1IpDto5q10yUs5Y7YjRx', { expiresIn: '15m' });",
     "G2JOGVulv7Le1IpDto5q10yUs5Y7YjRx"),
    ('server.login("madeyemi@harborline.app", "HNrYqKJSobsHISsnME55sk2k")',
     "HNrYqKJSobsHISsnME55sk2k"),
    ('new PDO("mysql:host=db;dbname=shop", "shop", "8eFBouXVeqpRewN4l7pRAnXj", [])',
     "8eFBouXVeqpRewN4l7pRAnXj"),
    ("    NEXUS_PASS = 'Quartz-Harbor-584nimbus'", "Quartz-Harbor-584nimbus"),
    ("export DD_API_KEY := key-9437dd4a66e3e516ac9d4d6a0ce52b4c",
     "key-9437dd4a66e3e516ac9d4d6a0ce52b4c"),
    ('{"HTTP_COOKIE"=>"_shop_session=ck8tnk7fi527igx4wubztcrg3shtqxfq"}',
     "ck8tnk7fi527igx4wubztcrg3shtqxfq"),
    ("il mio numero di cellulare è 338 2256978.", "338 2256978"),
    ("Hey, new number is 8 925 078-78-81, mail me", "8 925 078-78-81"),
    ("Account Manager | 0555 607 54 67", "0555 607 54 67"),
])
def test_the_value_goes(redactor: Redactor, text: str, value: str) -> None:
    assert value not in redactor.redact_text(text, {})


@pytest.mark.parametrize("text", [
    "2026-11-26T22:45:31Z Cache restored from key: pip-Linux-52b51df72f25b9a747c74251fe7dbe18db9"
    "abc70bb99cb544da66dd61dc8e505",
    "auth:\n  existingSecret: gateway-creds\n  existingSecretPasswordKey: password",
    '"GET /v1/usage?token_count=512&page_token=cGFnZToy HTTP/1.1" 200',
    "$ echo \"CI_JOB_TOKEN=$CI_JOB_TOKEN\"\nCI_JOB_TOKEN=[MASKED]",
    "aws_secretsmanager_secret_version.db: Creation complete after 1s [id=arn:aws:"
    "secretsmanager:eu-west-1:650314257839:secret:prod/db-zNbp1Y|a757e032-6cfe]",
    "fe_api be_models/srv2 0/0/1/32/286 200 1649 - - ----",
    '"GET /v1/models?api_key=%24%7BOPENAI_API_KEY%7D HTTP/1.1" 401',
    '{"api_key_set": true, "api_key_sha256": "9921ed8336cf372d"}',
    "  access_key = var.aws_access_key_id",
    "Order 076-0424769-6710935, ISBN 9787099338191",
    "binding parameter [1] as [VARCHAR] - [ORD-0567-919251]",
    "kind: SealedSecret\nspec:\n  encryptedData:\n    api-key: Ag" + "B7x+Q" * 60,
    '<a href="tel:+1-000-000-0000" class="disabled">soon</a>',
    '<input type="email" name="email" placeholder="you@company.com" required>',
    'export GROQ_API_KEY="$(op read op://ml/groq/credential)"',
    'mapboxgl.accessToken = "pk.eyJ1IjoiYWNtZSIsImEiOiJxZGUxb3JiaWpjY2xycWl0ZGRqeXAifQ.3UdNgiH2t";',
    "la password è stata cambiata",
    '{"virtual_key_slug":"anthropic-prod-ffbcd0","config":"pc-rlgnfn"}',
    '{"method":"notifications/progress","params":{"progressToken":"KVSQPbl4","progress":35}}',
    'String apiKey = Objects.requireNonNull(System.getenv("PARTNER_API_KEY"), "PARTNER_API_KEY");',
    '[assembly: AssemblyVersion("5.3.0.0")]',
    'gpg_signing_key = "531B983D68A168A7"',
    '"public_key": "-----BEGIN PUBLIC KEY-----\\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA"',
    "db_password: ENC[AES256_GCM,data:Tr3f9Q==,iv:abc=,tag:def==,type:str]",
    "vault_db_password: !vault |",
    "passwordVariable: 'NEXUS_PASS')]) {",
    "    token = provider.refresh(refresh_token=refresh_token)",
    "STRIPE_SECRET_KEY=sk_test_REPLACE_ME",
])
def test_the_look_alike_stays(redactor: Redactor, text: str) -> None:
    assert redactor.redact_text(text, {}) == text
