"""Policy files: the shipped one loads, bad ones get a message naming the field, and
``servescope redact`` exits 2 on them."""

from __future__ import annotations

import io
import json
from collections import Counter

import pytest

from servescope.cli import main
from servescope.redaction import (
    CONTENT_CAPTURE_ENV,
    KINDS,
    OPT_IN_KINDS,
    Action,
    ContentCapture,
    Policy,
    PolicyError,
    Redactor,
    load_policy,
    parse_policy,
)


def test_default_policy_loads_and_covers_every_kind():
    p = Policy.default()
    assert set(p.kinds) == set(KINDS) - OPT_IN_KINDS
    assert {"ipv4_private", "ipv6_private"} == OPT_IN_KINDS
    assert p.action("email") is Action.HASH and p.action("ipv4") is Action.MASK
    assert "http.request.header.authorization" in p.drop


def test_private_network_addresses_stay_unless_a_policy_opts_in():
    """Pods, services and nodes fill operations text with private addresses, and the
    Internet routes none of them: kept by default; a policy that names the twin kinds
    redacts them too."""
    text = ("INFO: 10.96.0.26:15012 - fd00:10:244::5 - 192.168.1.23 - 100.64.3.4 - "
            "fe80::1%eth0 - client 203.0.113.57 [2001:db8::7] allow 198.51.100.237/32 "
            "net 10.0.0.0/8 bind 0.0.0.0:8000 127.0.0.1 ::1")
    default = Redactor().redact_text(text, {})
    assert default == text.replace("203.0.113.57", "[REDACTED:ipv4]").replace(
        "2001:db8::7", "[REDACTED:ipv6]").replace("198.51.100.237", "[REDACTED:ipv4]")
    every = parse_policy("version: 1\ndetectors: [ipv4, ipv6, ipv4_private, ipv6_private]\n")
    counts: Counter[str] = Counter()
    out = Redactor(every).redact_text(text, counts)
    for private in ("10.96.0.26", "fd00:10:244::5", "192.168.1.23", "100.64.3.4", "fe80::1"):
        assert private not in out
    assert counts == {"ipv4_private": 3, "ipv6_private": 2, "ipv4": 2, "ipv6": 1}
    assert "10.0.0.0/8" in out and "0.0.0.0:8000" in out and "127.0.0.1 ::1" in out


@pytest.mark.parametrize(("text", "field"), [
    ("version: 2", "version"),
    ("- a\n- b", "<top level>"),
    ("version: 1\natributes: {}", "atributes"),
    ("version: 1\nattributes: {unknown: maybe}", "attributes.unknown"),
    ("version: 1\nattributes: {allow: [1]}", "attributes.allow[0]"),
    ("version: 1\nactions: {emial: mask}", "actions.emial"),
    ("version: 1\nactions: {email: shred}", "actions.email"),
    ("version: 1\nlimits: {max_value_chars: x}", "limits.max_value_chars"),
    ("version: 1\nlimits: {max_value_chars: 3}", "limits.max_value_chars"),
    ("version: 1\nattributes: {drop_patterns: ['(x']}", "attributes.drop_patterns[0]"),
    ("version: 1\ndetectors: [email, passport]", "detectors[1]"),
    ("version: 1\nhash: {key_env: 'not a name'}", "hash.key_env"),
    ("version: 1\ncontent_capture: always", "content_capture"),
    ("version: [", "not valid YAML"),
])
def test_bad_policy_names_the_field(text, field):
    with pytest.raises(PolicyError) as info:
        parse_policy(text, source="p.yaml")
    assert str(info.value).startswith("p.yaml: ")
    assert field in str(info.value)


def test_missing_file_is_a_policy_error(tmp_path):
    with pytest.raises(PolicyError, match="cannot read"):
        load_policy(tmp_path / "absent.yaml")


def test_content_capture_is_off_unless_opted_in(monkeypatch):
    monkeypatch.delenv(CONTENT_CAPTURE_ENV, raising=False)
    assert parse_policy("version: 1").content_capture is ContentCapture.NO_CONTENT
    monkeypatch.setenv(CONTENT_CAPTURE_ENV, "true")
    assert parse_policy("version: 1").content_capture is ContentCapture.SPAN_AND_EVENT
    monkeypatch.setenv(CONTENT_CAPTURE_ENV, "span_only")
    assert parse_policy("version: 1").content_capture is ContentCapture.SPAN_ONLY
    monkeypatch.setenv(CONTENT_CAPTURE_ENV, "bogus")
    assert parse_policy("version: 1").content_capture is ContentCapture.NO_CONTENT
    # the file, when it says so, wins over the environment
    monkeypatch.setenv(CONTENT_CAPTURE_ENV, "true")
    assert parse_policy("version: 1\ncontent_capture: no_content").content_capture \
        is ContentCapture.NO_CONTENT


def _cli(monkeypatch, capsys, args, stdin):
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(["redact", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_redact_command_plain_and_jsonl(monkeypatch, capsys):
    monkeypatch.setenv("SERVESCOPE_REDACTION_HASH_KEY", "k")
    code, out, _ = _cli(monkeypatch, capsys, [],
                        "card 4111-1111-1111-1111 at 198.51.100.1\nversion 1.45.2\n")
    assert code == 0
    assert out == "card [REDACTED:credit_card] at [REDACTED:ipv4]\nversion 1.45.2\n"
    code, out, err = _cli(monkeypatch, capsys, ["--jsonl", "--summary"],
                          '{"text": "ssn 123-45-6789", "user.email": "a@b.io", "n": 2}\n'
                          "not json\n")
    assert code == 0
    (line,) = out.splitlines()
    assert json.loads(line) == {"text": "ssn [REDACTED:us_ssn]", "n": 2}
    assert "line 2: not JSON" in err and '"us_ssn": 1' in err and '"blocked_key": 1' in err


def test_redact_command_jsonl_reads_nested_objects(monkeypatch, capsys):
    """A JSON line's nested objects and arrays are read at every level, under the key
    policy there too (a request's headers, a message list)."""
    monkeypatch.setenv("SERVESCOPE_REDACTION_HASH_KEY", "k")
    secret = "sk-proj-Q7vXk2Lm9Pz4Rt8Wn3Yb6Hc1Jd5Fg0Ks2Ae7Uo4Ip9Ty"
    line = json.dumps({
        "text": "request logged", "ssn": "536228471",
        "request": {"headers": {"authorization": f"Bearer {secret}", "accept": "*/*"},
                    "body": {"messages": [{"content": "card 4539148803436467"}]}},
        "items": [{"email": "zelda.quokka7@fastmail.com"}, "AKIAQ7ZPROBE4XYZ9K2M"]})
    code, out, _ = _cli(monkeypatch, capsys, ["--jsonl"], line + "\n")
    assert code == 0
    for planted in (secret, "536228471", "4539148803436467", "zelda.quokka7@fastmail.com",
                    "AKIAQ7ZPROBE4XYZ9K2M"):
        assert planted not in out, planted
    got = json.loads(out)
    assert got["request"]["headers"]["accept"] == "*/*"
    assert got["request"]["body"]["messages"][0]["content"] == "card [REDACTED:credit_card]"
    assert got["items"][1] == "[REDACTED:aws_access_key]"


def test_redact_command_reads_a_tables_rows_under_its_header(monkeypatch, capsys):
    """Line by line, a CSV's phone columns are redacted as in one text: each row is read
    under the header above it, until a line that is no row of it."""
    monkeypatch.setenv("SERVESCOPE_REDACTION_HASH_KEY", "k")
    stdin = ("id,name,Phone,MobilePhone,city\n"
             "1,Ines,605 10 04 98,0428 654 614,Milano\n"
             "2,Ola,,7712 3456,Oslo\n"
             "\n"
             "order 605 10 04 98 shipped\n")
    code, out, err = _cli(monkeypatch, capsys, ["--summary"], stdin)
    assert code == 0
    assert out.splitlines() == ["id,name,Phone,MobilePhone,city",
                                "1,Ines,[REDACTED:phone],[REDACTED:phone],Milano",
                                "2,Ola,,[REDACTED:phone],Oslo", "",
                                "order 605 10 04 98 shipped"]  # the table ended
    assert '"phone": 3' in err


def test_redact_command_exits_2_on_a_bad_policy(monkeypatch, capsys, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("version: 1\nactions: {email: shred}\n")
    code, out, err = _cli(monkeypatch, capsys, ["--policy", str(bad)], "a@b.io\n")
    assert code == 2 and out == ""
    assert "invalid redaction policy" in err and "actions.email" in err


@pytest.mark.parametrize(("text", "field", "line", "what"), [
    ("version: 1\nattributes:\n  drop_patterns:\n    - ok\n    - '(x'\n",
     "attributes.drop_patterns[1]", 5, "invalid regular expression"),
    ("version: 1\nattributes:\n  hash_patterns: ['[a-']\n", "attributes.hash_patterns[0]", 3,
     "invalid regular expression"),
    ("version: 1\ndetectors:\n  - email\n  - passport\n", "detectors[1]", 4,
     "unknown detector 'passport'"),
    ("version: 1\nactions:\n  email: hash\n  emial: mask\n", "actions.emial", 4,
     "unknown detector 'emial'"),
    ("version: 1\nlimits:\n  max_value_chars: many\n", "limits.max_value_chars", 3,
     "is not of type 'integer'"),
    ("version: 1\nattributes:\n  allow:\n    - service.name\n    - 7\n", "attributes.allow[1]",
     5, "is not of type 'string'"),
    ("version: 1\nmodels:\n  unknown: forget\n", "models.unknown", 3, "is not one of"),
    # a key the schema does not know: its own line, not its mapping's
    ("version: 1\nattributes:\n  allow: [a]\n  alow: [b]\n", "attributes.alow", 4,
     "'alow' was unexpected"),
    ("version: 1\ndetectors: []\n", "detectors", 2, "lists no detector"),
    ("version: 1\nactions:\n  email: hash\n  email: mask\n", "email", 4, "given twice"),
])
def test_bad_policy_names_the_field_and_the_line(text, field, line, what):
    with pytest.raises(PolicyError) as info:
        parse_policy(text, source="p.yaml")
    assert str(info.value).startswith(f"p.yaml: {field} (line {line}): "), str(info.value)
    assert what in str(info.value)


def test_redact_command_passes_bytes_and_line_endings_through(tmp_path):
    """What is not a value leaves as it came: bytes that are not UTF-8, CRLF endings, and a
    last line without its newline."""
    import subprocess
    import sys

    data = b"a\xff\xfeb secret=Abc123def456\r\nmail bob@corp-x.io\nlast token=Zx9yW8vU7tS6"
    result = subprocess.run([sys.executable, "-m", "servescope", "redact"], input=data,
                            capture_output=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(b"a\xff\xfeb secret=[REDACTED:secret_assignment]\r\n")
    assert b"bob@corp-x.io" not in result.stdout
    assert result.stdout.endswith(b"last token=[REDACTED:secret_assignment]")


def test_redact_command_takes_a_private_key_cut_into_lines_whole():
    """Line by line, a PEM key's base64 lines are only base64: from BEGIN to END they are
    one record. An unterminated one runs to the end of the input."""
    import subprocess
    import sys

    body = "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgwMbRvI0MBZhpF"
    data = (f"key:\n-----BEGIN RSA PRIVATE KEY-----\n{body}\n{body[::-1]}\n"
            f"-----END RSA PRIVATE KEY-----\nafter\n-----BEGIN OPENSSH PRIVATE KEY-----\n"
            f"{body}\n").encode()
    result = subprocess.run([sys.executable, "-m", "servescope", "redact"], input=data,
                            capture_output=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout == (b"key:\n[REDACTED:private_key]\nafter\n"
                             b"[REDACTED:private_key]\n")


def test_a_policy_file_may_leave_the_version_out(monkeypatch, capsys, tmp_path):
    """An overlay that only sets ``actions.default`` (as the README says) loads without
    ``version:``, and keeps the default's other rules."""
    monkeypatch.setenv("SERVESCOPE_REDACTION_HASH_KEY", "k")
    overlay = tmp_path / "p.yaml"
    overlay.write_text("actions:\n  default: hash\n")
    code, out, err = _cli(monkeypatch, capsys, ["--policy", str(overlay)],
                          "mail bob.ruiz@corp-x.io password=Zx9yW8vU7tS6q\n")
    assert code == 0, err
    assert "bob.ruiz@corp-x.io" not in out and "Zx9yW8vU7tS6q" not in out
    assert "[email:" in out


def _redact_bytes(data: bytes, *args: str) -> tuple[bytes, str]:
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-m", "servescope", "redact", *args], input=data,
                            capture_output=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout, result.stderr.decode()


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
def test_redact_command_reads_and_writes_utf16_and_utf32(encoding):
    """What Windows PowerShell's redirection writes (UTF-16, with or without a byte order
    mark) is read as text and written back in the same encoding, redacted; not passed
    through unscanned as bytes that are not UTF-8."""
    text = ("user=bob.ruiz@corp-x.io card 4539 1488 0343 6467\r\n"
            "key AKIAQ7ZPROBE4XYZ9K2M ok\r\n")
    out, err = _redact_bytes(text.encode(encoding), "--summary")
    bom = {"utf-16": 2, "utf-32": 4}.get(encoding, 0)
    assert out[:bom] == text.encode(encoding)[:bom]  # the byte order mark written back
    decoded = out.decode(encoding)
    assert decoded == ("user=[email:" + decoded.split("[email:")[1].split("]")[0] + "] card "
                       "[REDACTED:credit_card]\r\nkey [REDACTED:aws_access_key] ok\r\n")
    assert '"credit_card": 1' in err and "reading and writing UTF-" in err


def test_redact_command_jsonl_keeps_arrays_and_survives_a_lone_surrogate():
    """--jsonl: nested arrays stay arrays with their types; a lone surrogate (valid JSON) is
    written as JSON escapes it, and the lines after it are redacted too."""
    lines = ['{"text": "x", "m": [["a", 1, null, true]], "deep": [[["gina.ortiz@corp-x.io"]]]}',
             '{"text": "\\ud800 lone hank.moss@corp-x.io"}',
             '{"text": "after it ivan.petrov@corp-x.io"}']
    out, _ = _redact_bytes(("\n".join(lines) + "\n").encode(), "--jsonl")
    first, second, third = (json.loads(line) for line in out.decode().splitlines())
    assert first["m"] == [["a", 1, None, True]]
    assert first["deep"][0][0][0].startswith("[email:")
    assert second["text"].startswith("\ud800 lone [email:")
    assert third["text"].startswith("after it [email:")


def test_redact_command_says_when_it_cuts_a_long_line():
    """A line longer than limits.max_content_chars is cut there: said once on stderr, and
    counted in the summary."""
    long_line = "x" * 20_000 + " mail bob.ruiz@corp-x.io\n"
    out, err = _redact_bytes((long_line * 2 + "short\n").encode(), "--summary")
    assert out.decode().splitlines()[2] == "short"
    assert "bob.ruiz@corp-x.io" not in out.decode()
    assert err.count("cut there") == 1 and '"cut_line": 2' in err
