"""Text nobody wrote for a test: this machine's manual pages and installed packages' metadata,
run through the redactor line by line, and the corpora written blind after them (P-S). What
they showed: hex dumps read as phone numbers, placeholders and paths read as secrets."""

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
])
def test_the_value_goes(redactor: Redactor, text: str, value: str) -> None:
    assert value not in redactor.redact_text(text, {})
