"""Text nobody wrote for a test: this machine's manual pages and installed packages' metadata,
run through the redactor line by line, and the corpora written blind after them (P-S). What
they showed: hex dumps read as phone numbers, four-part versions as addresses, placeholders,
paths, source files and calls as secrets."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor


@pytest.mark.parametrize("text", [
    # od and hexdump output: bytes of two hex digits, not a number dialled with 00 or a trunk 0
    "0001560 08 00 00 00 40 00 00 00 00 00 00 00 00 00 00 07",
    "0000040 00 00 b8 1a 06 08 cc 1a 06 08 00 00 09 00 10 00",
    "0001000 21 00 81 00 20 80 00 00 20 80 00 00 20 80 00 00",
    # a format's placeholder and documentation's stand-ins under a secret's key
    "token=%(token)s",
    "password={password}",
    "--update-labels=key1=value1,key2=value2",
    '{"key1":"value1", "key2":"value2"}',
    "--sqlserver-password=fakepassword \\",
    "--api-key=dummy-key-for-tests",
    # where the key is, not the key; what the key is for
    "--json-key=path/to/key.json",
    "NID_key_usage => 'digitalSignature,keyEncipherment',",
    'key_algorithm = "RSA_2048"',
    # an entry point under a name with "secrets" in it
    "detect-secrets = detect_secrets.main:main",
    # Node's print of a buffer
    "// Prints: <Buffer 02 01 04 03 06 05 08 07>",
    # four-part versions: pinned, after the word, or shaped like one (vLLM's collect_env
    # lists the CUDA libraries' wheels)
    "[pip3] nvidia-cudnn-cu12==9.1.0.70",
    "[pip3] nvidia-cublas-cu12==12.1.3.1",
    "nvidia-cusparse-cu12       12.1.0.106",
    "TensorRT 8.6.1.6",
    "CUDNN_VERSION=8.9.7.29",
    "dpkg (1.4.1.8) unstable; urgency=low",
    "libcudnn8 (8.9.2.26-1+cuda12.1)",
    'version = "1.2.3.4"',
    "Version: 4.19.0.21",
    # source files before a colon (changelogs, compilers), a key's purpose, calls as values
    "* tests/request_key.test: Likewise.",
    "* examples/read_rsa_key.c: Include stdlib.h.",
    "secrets.c:85:40: warning: argument 6 of type 'const uint8_t[64]'",
    "_gnutls_check_key_purpose: eliminated dead code",
    "const keys = ObjectKeys(target);",
    'my $issuer_key  = PEM_string2key($data) or die "no issuer key found";',
    # corpora P-R: stand-ins tools print (Rails, Sentry, Pulumi, Ansible, percent-encoded)
    '"Parameters: {"authenticity_token"=>"[FILTERED]", "password"=>"[FILTERED]"}',
    "      api_key = '[Filtered]'",
    '  "dbPassword": "[secret]",',
    '"password": "VALUE_SPECIFIED_IN_NO_LOG_PARAMETER",',
    "GET /account/reset-password?token=%3Credacted%3E HTTP/1.1",
    # an empty value ends at the line's end; YAML's next line is a key, not the value
    "DB_PASSWORD=\nAWS_SECRET_ACCESS_KEY=\nHOSTNAME=worker-7f9c",
    "externalSecrets:\n  enabled: true\n  secretStoreRef:\n    name: aws-secretsmanager",
    "    secretKeys:\n      userPasswordKey: password",
    # a secret store's path, a secret's state, when a tool sets it, ids that hold "pwd"
    "  vault.hashicorp.com/agent-inject-secret-db: database/creds/auth-gateway",
    '      "secret_status": "active"',
    '            "update_password": "on_create"',
    '"principalId": "AROAT7SI9EZDQB5ZRPWDD:i-01af0db610e8ae867"',
    # cookies of preferences only, as HAR pairs; a key's empty value in an env array
    '{"name": "cookie", "value": "lang=en-GB; tz=Europe%2FBerlin"}',
    '{"name": "set-cookie", "value": "consent=essential; Path=/; Max-Age=15552000; Secure"}',
    '["PORT=8080", "HF_TOKEN=", "MAX_OUTPUT_TOKENS=8192"]',
    "-H 'X-Auth-Token: ' 'https://shop.internal/graphql'",
    # an access log's two status codes and a size; a quoted name before the next variable
    "app/api-public/1186a057e598d224 10.1.2.3:5001 10.0.3.4:8000 0.001 0.02 0.0 499 499 1404 0",
    '["PYTHONUNBUFFERED=1", "HOSTNAME=ingest-worker-dx86glw6kd-dd2cs", '
    '"DB_PASSWORD=${DB_PASSWORD}"]',
    # corpus S: message ids are not mailboxes; an idempotency token, LDAP's times and hashes
    "Message-ID: <CASZzYAEXydExXpI75awI_A1xOWsdZIvG9sGay7pbnflyu@mail.gmail.com>",
    "In-Reply-To: <AM5PR09MB4337FA8E75020B30DC02081FFC2E@AM5PR09MB4337.eurprd03.prod.outlook.com>",
    "Message-ID: <be803d8d133cf27.42139.JavaMail.app@northpine-labs.io>",
    "Message-ID: <9fc3a241-bd16-4430-abf9-1f514b5bfaa1@news.atelier-brunel.fr>",
    "I-Twilio-Idempotency-Token: 66a1476e-e29b-4346-b598-2af1f5be7a48",
    "pwdChangedTime: 20240415095018Z\ndescription: managed by ansible",
    "userPassword: {SSHA}4GjmIcLd+c2wpnkCRlprHZyYFnQEknwi",
])
def test_the_look_alike_stays(redactor: Redactor, text: str) -> None:
    assert redactor.redact_text(text, {}) == text


@pytest.mark.parametrize(("text", "value"), [
    # the hex dump guard wants a byte before the number, not a word or a figure of prose
    ("appelez-moi au 06 12 34 56 78 merci", "06 12 34 56 78"),
    ("de 06 12 34 56 78 à 18 h", "06 12 34 56 78"),
    ("call 0044 20 7946 0958 please", "0044 20 7946 0958"),
    # a stand-in's word inside a real value does not make it one
    ("password=valueOfMine42", "valueOfMine42"),
    ("--root-password=password123", "password123"),
    # an address in use: with its port or prefix length, or any that is not version-shaped
    ("connect to 8.8.8.8:53 failed", "8.8.8.8"),
    # the addresses everyone knows are never versions, whatever their shape
    ("nameserver 8.8.8.8", "8.8.8.8"),
    ("client 1.1.1.1 connected", "1.1.1.1"),
    ("resolver 8.8.4.4 and 9.9.9.9", "8.8.4.4"),
    ("allow 9.9.9.9/32", "9.9.9.9"),
    ("tcpdump ip.src==34.201.17.9", "34.201.17.9"),
    ("client 52.14.200.7 connected", "52.14.200.7"),
    ("from 3.5.140.2 port 22", "3.5.140.2"),
    # corpora P-R: IPv6 with a port and no brackets (ALB, HAProxy, Apache, OkHttp)
    ("app/x 2a01:4f8:c7a2:e606:59ff:d881:d15f:12af:58531 10.1.2.3:8000",
     "2a01:4f8:c7a2:e606:59ff:d881:d15f:12af"),
    ("[client 2a02:810d:48c2:b155::2e22:49df:55046] AH00957", "2a02:810d:48c2:b155::2e22:49df"),
    ("Failed to connect to api.tallgrass.app/2600:1f18:e237:9d1d:b8bd:2104:5658:7c4d:443",
     "2600:1f18:e237:9d1d:b8bd:2104:5658:7c4d"),
    # secrets in URLs: OAuth codes, CloudFront signatures, Slack webhook paths, appid
    ('"GET /oauth2/callback?code=12c56355f73ce0b3b106&state=w5RLl0 HTTP/1.1"',
     "12c56355f73ce0b3b106"),
    ("/api/auth/callback/github?code=4%2F0AAnBcE_poc3oI1qlVQxpFyP373huEtNtWDO3JPK-J_ZZ&state=x",
     "4%2F0AAnBcE_poc3oI1qlVQxpFyP373huEtNtWDO3JPK-J_ZZ"),
    ("/v/master.m3u8?Expires=1726627932&Signature=Oeo3WDjorybBiwaBr_d8Ps98NYTzVmcRByzugyaRlvD7"
     "&Key-Pair-Id=K2JCJMDEHXQW5F", "Oeo3WDjorybBiwaBr_d8Ps98NYTzVmcRByzugyaRlvD7"),
    ('"RequestPath": "/services/T0Z89HSWJ8/B0QNS9Q6HDO/luMhDK0dE47scNwC6YEHpFkh"',
     "luMhDK0dE47scNwC6YEHpFkh"),
    ("GET /api/v2/rates?appid=d7e9a5c6b16bfc488de18f949e271048&q=Berlin",
     "d7e9a5c6b16bfc488de18f949e271048"),
    # numbers and ids under their query keys: a phone a code is sent to, a tax id
    ("https://id.quillpay.io/account/2fa/setup?to=5511919501253&channel=sms", "5511919501253"),
    ("GET /kyc/check?tax_id=674883713 HTTP/1.1", "674883713"),
    # session cookies by name in maps and SQL; the same value again among the parameters
    ("cookies = {'sessionid': '869g0fitlyihlyzis04lc4gagv', 'csrftoken': '[Filtered]'}",
     "869g0fitlyihlyzis04lc4gagv"),
    ("\"django_session\".\"session_key\" = 'c9ibfvkypk6bo4gkwdzbll3mf3e049l2') LIMIT 21; "
     "args=(datetime.datetime(2024, 3, 12), 'c9ibfvkypk6bo4gkwdzbll3mf3e049l2')",
     "c9ibfvkypk6bo4gkwdzbll3mf3e049l2"),
    ('"request_Cookie": "sid=HwU5yPzxameLqt8ydEOJBwDMGEuFN7VR63mAYhzIvGLTf8Gn; lang=en-GB"',
     "HwU5yPzxameLqt8ydEOJBwDMGEuFN7VR63mAYhzIvGLTf8Gn"),
    # secrets an ORM binds bare, a Go struct's print, Terraform's outputs, state and plans
    ("binding parameter [1] as [VARCHAR] - [qy3rRI1IMnkTeEPUJ+726C8CMlBGrVkGP6Eh2NZX]",
     "qy3rRI1IMnkTeEPUJ+726C8CMlBGrVkGP6Eh2NZX"),
    ("[cached since 337.2s ago] ('VNbxDfRQ8TsX5p5xWa6/B/WvJ8PuvB1s4UogvqKQwL5GYjYvtMG/6lpcOaMku"
     "AvQrd3dpF0UX/DPy+jcrt8Nxw==', '2024-04-25')", "VNbxDfRQ8TsX5p5xWa6/B/WvJ8PuvB1s4UogvqKQ"),
    ("{Path:kv/data/checkout Key:partner_api_key Value:LecYEB516j0OwhvEwULnPksv9Qfd8FOIjz1L7rOy "
     "Version:13}", "LecYEB516j0OwhvEwULnPksv9Qfd8FOIjz1L7rOy"),
    ('  "db_password": {\n    "sensitive": true,\n    "type": "string",\n'
     '    "value": "e70G374RwHdQWgSQsUZxPZCEB"\n  },', "e70G374RwHdQWgSQsUZxPZCEB"),
    ('      "type": "random_password",\n      "name": "admin",\n      "instances": [{\n'
     '        "attributes": {"length": 24, "special": true, "result": "Juniper_Ember1585#"}',
     "Juniper_Ember1585#"),
    ('          + name  = "postgresql.auth.password"\n          + value = "eDsj*fLIQlQ_nTMrLZtJ"',
     "eDsj*fLIQlQ_nTMrLZtJ"),
    # corpus S: SMTP's AUTH, LDIF's userPassword, a MIME body in base64 inside a JSON string,
    # a chat's answer to the question, and secrets two detectors read in parts
    ("C: AUTH PLAIN AHBhYmxvLnJ1aXpAeWFob28uZXMAb3J6ZWNoLVN0ZWluLSM5OQ==\nS: 235 2.7.0",
     "AHBhYmxvLnJ1aXpAeWFob28uZXMAb3J6ZWNoLVN0ZWluLSM5OQ=="),
    ("<-  334 UGFzc3dvcmQ6\n -> bCExMHZDTkxmIXc3SEhhQw==\n<-  235 2.7.0 Authentication",
     "bCExMHZDTkxmIXc3SEhhQw=="),
    ("uidNumber: 10768\nuserPassword:: ZmpvcmQtcml2ZXItIzQ1\nloginShell: /bin/bash",
     "ZmpvcmQtcml2ZXItIzQ1"),
    ('"Content-Transfer-Encoding: base64\\n\\n44GK6Zu76Kmx55Wq5Y+3OiArODEgODAtMzE5OS00NjY5\\n--00"',
     "44GK6Zu76Kmx55Wq5Y+3OiArODEgODAtMzE5OS00NjY5"),
    ("13/04/2024, 13:40 - Javi: ¿Cuál era la contraseña del portal?\n"
     "13/04/2024, 13:41 - Mamá: j7Y=Ief#LJ-r8Oe\n13/04/2024, 13:46 - Javi: 👍", "j7Y=Ief#LJ-r8Oe"),
    ("Authorization: Bearer ya29.d55V6lSBc1PMKi4CZhjBe1acrX.O5QXndlveskdAr0JnY75IK7vMJDAAhQbFJ",
     "O5QXndlveskdAr0JnY75IK7vMJDAAhQbFJ"),
    ("Ihr Passwort zurückzusetzen: https://portal.shop.es/reset?uid=70400&token=Av-_gCPGvgKis"
     "fZp3IQ7vopFEDo4AF95ZlKLQ\nDer Link", "Av-_gCPGvgKisfZp3IQ7vopFEDo4AF95ZlKLQ"),
])
def test_the_value_goes(redactor: Redactor, text: str, value: str) -> None:
    assert value not in redactor.redact_text(text, {})
