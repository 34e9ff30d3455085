"""A labelled corpus for the detectors, generated from a fixed seed.

Positives: one planted value per sample, in the formats people and programs write them,
embedded in telemetry-like text. Negatives: what spans and logs are full of (trace/span ids,
UUIDs, hex digests, timestamps, epochs in ns/us/ms, version strings, numbers that fail their
checksum, and ordinary telemetry text). The benchmark reuses it (same samples, same seed).
"""

from __future__ import annotations

import base64
import json
import random
import re
import string
import uuid
from collections.abc import Callable
from dataclasses import dataclass

SEED = 20261130
PER_KIND = 60
PER_NEGATIVE = 80


@dataclass(frozen=True)
class Sample:
    text: str
    kind: str | None  # None: a negative
    value: str  # the planted value (positives) or the negative class name
    group: str = ""  # the negative class, for per-class false-positive rates


_CONTEXTS = (
    "{v}",
    "user said: please contact {v} about the invoice",
    'prompt="my details are {v}, thanks"',
    "ERROR request failed for {v} (retrying)",
    "{{\"note\": \"{v}\", \"priority\": \"high\"}}",
    "http.request.body: {v}\n",
    "value <{v}> captured at stage decode",
)


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _luhn_complete(prefix: str, length: int, rng: random.Random) -> str:
    body = prefix + "".join(rng.choice(string.digits) for _ in range(length - len(prefix) - 1))
    for check in string.digits:
        candidate = body + check
        total = 0
        for i, ch in enumerate(reversed(candidate)):
            d = int(ch) * (2 if i % 2 else 1)
            total += d - 9 if d > 9 else d
        if total % 10 == 0:
            return candidate
    raise AssertionError("unreachable")


def _group(digits: str, sizes: tuple[int, ...], sep: str) -> str:
    out, pos = [], 0
    for size in sizes:
        out.append(digits[pos:pos + size])
        pos += size
    return sep.join(out)


def card(rng: random.Random) -> str:
    prefix, length = rng.choice([("4", 16), ("4", 13), ("51", 16), ("55", 16), ("2221", 16),
                                 ("2720", 16), ("34", 15), ("37", 15), ("6011", 16), ("65", 16),
                                 ("3530", 16), ("36", 14), ("62", 16), ("4", 19)])
    number = _luhn_complete(prefix, length, rng)
    fmt = rng.choice(["plain", "space", "dash"])
    if fmt == "plain":
        return number
    sep = " " if fmt == "space" else "-"
    if length == 15:
        return _group(number, (4, 6, 5), sep)
    if length == 14:
        return _group(number, (4, 6, 4), sep)
    if length == 19:
        return _group(number, (4, 4, 4, 4, 3), sep)
    if length == 13:
        return _group(number, (4, 4, 4, 1), sep)
    return _group(number, (4, 4, 4, 4), sep)


_IBAN_SHAPES = {"DE": "n18", "GB": "a4n14", "FR": "n23", "NL": "a4n10", "ES": "n20",
                "IT": "a1n22", "CH": "n17", "BE": "n12", "PL": "n24", "NO": "n11"}


def _iban_bban(country: str, rng: random.Random) -> str:
    shape = _IBAN_SHAPES[country]
    out = ""
    i = 0
    while i < len(shape):
        kind = shape[i]
        j = i + 1
        while j < len(shape) and shape[j].isdigit():
            j += 1
        count = int(shape[i + 1:j])
        alphabet = string.ascii_uppercase if kind == "a" else string.digits
        out += "".join(rng.choice(alphabet) for _ in range(count))
        i = j
    return out


def _mod97(text: str) -> int:
    return int("".join(str(int(ch, 36)) for ch in text)) % 97


def iban(rng: random.Random, valid: bool = True) -> str:
    country = rng.choice(sorted(_IBAN_SHAPES))
    bban = _iban_bban(country, rng)
    check = 98 - _mod97(bban + country + "00")
    if not valid:
        check = (check + rng.randint(1, 96)) % 97 or 96  # any other check digits fail
        check = check if check >= 2 else check + 2
    compact = f"{country}{check:02d}{bban}"
    if rng.random() < 0.5:
        return compact
    return " ".join(compact[i:i + 4] for i in range(0, len(compact), 4))


def ssn(rng: random.Random) -> str:
    area = rng.choice([a for a in range(1, 900) if a != 666])
    number = f"{area:03d}{rng.randint(1, 99):02d}{rng.randint(1, 9999):04d}"
    sep = rng.choice(["-", "-", " "])
    return f"{number[:3]}{sep}{number[3:5]}{sep}{number[5:]}"


def _pesel(rng: random.Random) -> str:
    head = (f"{rng.randint(40, 99):02d}{rng.randint(1, 12) + rng.choice([0, 20]):02d}"
            f"{rng.randint(1, 28):02d}{rng.randint(0, 9999):04d}")
    total = sum(int(d) * w for d, w in zip(head, (1, 3, 7, 9, 1, 3, 7, 9, 1, 3), strict=True))
    return head + str((10 - total % 10) % 10)


def _cpf(rng: random.Random, dotted: bool) -> str:
    n = [rng.randint(0, 9) for _ in range(9)]
    for length in (9, 10):
        n.append(sum(d * (length + 1 - i) for i, d in enumerate(n)) * 10 % 11 % 10)
    digits = "".join(map(str, n))
    return f"{digits[:3]}.{digits[3:6]}.{digits[6:9]}-{digits[9:]}" if dotted else digits


def _bsn(rng: random.Random) -> str:
    while True:
        head = [rng.randint(1, 9)] + [rng.randint(0, 9) for _ in range(7)]
        last = sum(d * (9 - i) for i, d in enumerate(head)) % 11
        if last < 10:
            return "".join(map(str, head)) + str(last)


def _dni(rng: random.Random) -> str:
    number = rng.randint(10_000_000, 99_999_999)
    return f"{number}{'TRWAGMYFPDXBNJZSQVHLCKE'[number % 23]}"


def national_id(rng: random.Random) -> str:
    """A document's name and its number (the text after ": " is the value)."""
    kind = rng.randrange(6)
    if kind == 0:
        return f"PESEL: {_pesel(rng)}"
    if kind == 1:
        return f"cpf: {_cpf(rng, dotted=rng.random() < 0.5)}"
    if kind == 2:
        return f"BSN: {_bsn(rng)}"
    if kind == 3:
        return f"DNI: {_dni(rng)}"
    if kind == 4:
        return f"Codice Fiscale: {rng.choice(_CODICI_FISCALI)}"
    return f"CPF do titular: {_cpf(rng, dotted=True)}"


# Published examples (the Agenzia delle Entrate's and common test data), each with its check.
_CODICI_FISCALI = ("RSSMRA85T10A562S", "MRTMTT91D08F205J")


def _nanp(rng: random.Random) -> tuple[str, str, str]:
    return (f"{rng.randint(2, 9)}{rng.randint(0, 9)}{rng.randint(0, 9)}",
            f"{rng.randint(2, 9)}{rng.randint(0, 9)}{rng.randint(0, 9)}",
            f"{rng.randint(0, 9999):04d}")


def phone(rng: random.Random) -> str:
    a, b, c = _nanp(rng)
    d = "".join(rng.choice(string.digits) for _ in range(8))
    return rng.choice([
        f"+1{a}{b}{c}", f"+1 {a} {b} {c}", f"+1-{a}-{b}-{c}", f"+1 ({a}) {b}-{c}",
        f"({a}) {b}-{c}", f"{a}-{b}-{c}", f"{a}.{b}.{c}", f"1-{a}-{b}-{c}",
        f"+44 20 {d[:4]} {d[4:]}", f"+44 7700 {d[:6]}", f"+49 30 {d}", f"+33 1 {d[:2]} {d[2:4]} "
        f"{d[4:6]} {d[6:]}", f"+81 3-{d[:4]}-{d[4:]}", f"+91 98{d[:3]} {d[3:8]}",
        f"020 {d[:4]} {d[4:]}", f"07700 {d[:6]}", f"01 {d[:2]} {d[2:4]} {d[4:6]} {d[6:]}",
        f"030 {d}", f"+4930{d}",
    ])


def _quad(first: int, second: int, rng: random.Random) -> str:
    return f"{first}.{second}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"


def ipv4(rng: random.Random) -> str:
    """A routed address (documentation ranges included: examples stand them for clients)."""
    first = rng.choice([8, 34, 52, 81, 203, 198, 1, 223, rng.randint(11, 99),
                        rng.randint(128, 168), rng.randint(193, 223)])
    return _quad(first, rng.randint(0, 255), rng)


def ipv4_private(rng: random.Random) -> str:
    first, second = rng.choice([(10, rng.randint(0, 255)), (172, rng.randint(16, 31)),
                                (192, 168), (100, rng.randint(64, 127)), (169, 254)])
    return _quad(first, second, rng)


def _groups(rng: random.Random) -> list[str]:
    return [format(rng.randint(0, 0xFFFF), "x") for _ in range(8)]


def ipv6(rng: random.Random) -> str:
    groups = _groups(rng)
    routed = [format(rng.randint(0x2000, 0x3FFF), "x"), *groups[1:]]
    return rng.choice([
        ":".join(routed), f"2001:db8::{groups[0]}:{groups[1]}",
        f"2a00:1450:4001:{groups[6]}::1", f"2a00:1450:4001:{groups[4]}::200e",
        ":".join(g.upper() for g in routed), f"::ffff:{ipv4(rng)}",
    ])


def ipv6_private(rng: random.Random) -> str:
    """Unique-local and link-local addresses."""
    groups = _groups(rng)
    return rng.choice([
        f"fe80::{groups[2]}:{groups[3]}", f"fe80::{groups[5]}%eth0",
        f"fd00:10:244:{groups[1]}::{groups[2]}", ":".join(["fc00", *groups[1:]]),
        f"::ffff:{ipv4_private(rng)}",
    ])


def _rand(rng: random.Random, n: int, alphabet: str = string.ascii_letters + string.digits
          ) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def jwt(rng: random.Random) -> str:
    """JWS with a JSON payload mostly; also unsecured, opaque (non-JSON) payloads and JWE."""
    alg = rng.choice(["HS256", "RS256", "ES256", "none", "RSA-OAEP"])
    header: dict[str, str] = {"alg": alg, "typ": "JWT"}
    if alg == "RSA-OAEP":
        header = {"alg": alg, "enc": "A256GCM"}
    payload = _b64url(json.dumps({"sub": _rand(rng, 10), "tenant": _rand(rng, 6),
                                  "iat": rng.randint(1_600_000_000, 1_800_000_000)}).encode())
    if rng.random() < 0.3:  # a payload that is not JSON (opaque bytes, nested JWE, ...)
        payload = _b64url(rng.randbytes(rng.randint(16, 64)))
    sig = _rand(rng, 43, string.ascii_letters + string.digits + "-_")
    head = _b64url(json.dumps(header).encode())
    if alg == "none":
        return f"{head}.{payload}."
    if alg == "RSA-OAEP":  # JWE compact: header.key.iv.ciphertext.tag
        return ".".join([head, sig, _rand(rng, 22), payload, _rand(rng, 22)])
    return f"{head}.{payload}.{sig}"


def bearer(rng: random.Random) -> str:
    scheme = rng.choice(["Bearer", "bearer", "Basic"])
    token = (_rand(rng, rng.randint(24, 48), string.ascii_letters + string.digits + "._~-")
             if scheme != "Basic" else _b64url(f"{_rand(rng, 6)}:{_rand(rng, 12)}".encode()))
    return f"{scheme} {token}"


def aws_key(rng: random.Random) -> str:
    prefix = rng.choice(["AKIA", "AKIA", "ASIA", "ABIA", "ACCA",
                         "A3T" + rng.choice(string.ascii_uppercase + string.digits)])
    return prefix + _rand(rng, 16, string.ascii_uppercase + string.digits)


def github_token(rng: random.Random) -> str:
    if rng.random() < 0.3:  # fine-grained: 22 characters, an underscore, 59 characters
        return f"github_pat_{_rand(rng, 22)}_{_rand(rng, 59)}"
    return f"gh{rng.choice('pousr')}_" + _rand(rng, 36)


def api_key(rng: random.Random) -> str:
    return rng.choice([
        "sk-" + _rand(rng, 48), "sk-proj-" + _rand(rng, 64, string.ascii_letters + "0123456789_-"),
        "sk-ant-api03-" + _rand(rng, 80, string.ascii_letters + "0123456789_-"),
        "sk_live_" + _rand(rng, 24), "rk_test_" + _rand(rng, 24), "rk_live_" + _rand(rng, 24),
        "xoxb-" + _rand(rng, 30),
        f"xoxp-{rng.randint(10**11, 10**12)}-{rng.randint(10**11, 10**12)}-"
        f"{_rand(rng, 32, string.ascii_lowercase + string.digits)}",
        f"xapp-1-A{_rand(rng, 10, string.ascii_uppercase + string.digits)}-"
        f"{rng.randint(10**12, 10**13)}-{_rand(rng, 64, '0123456789abcdef')}",
        f"https://hooks.slack.com/services/T{_rand(rng, 8, string.ascii_uppercase)}/"
        f"B{_rand(rng, 8, string.ascii_uppercase)}/{_rand(rng, 24)}",
        "AIza" + _rand(rng, 35, string.ascii_letters + string.digits + "_-"),
        "hf_" + _rand(rng, 34, string.ascii_letters),
        f"sk-{_rand(rng, 20)}T3BlbkFJ{_rand(rng, 20)}",
    ])


def secret_assignment(rng: random.Random) -> str:
    key = rng.choice(["password", "db_password", "API_KEY", "client_secret", "token",
                      "access_token", "secret", "auth_key", "PGPASSWORD", "private_key",
                      "x-api-key", "apikey", "key"])
    value = _rand(rng, rng.randint(10, 24), string.ascii_letters + string.digits + "!#$%*+/")
    if not any(ch.isalpha() for ch in value):
        value += "x"
    form = rng.choice(["{k}={v}", "{k}: {v}", '"{k}": "{v}"', "{k} = '{v}'", "--{k}={v}",
                       "?{k}={v}&page=2"])
    return form.format(k=key, v=value)


def private_key(rng: random.Random) -> str:
    label = rng.choice(["RSA PRIVATE KEY", "EC PRIVATE KEY", "PRIVATE KEY", "DSA PRIVATE KEY",
                        "OPENSSH PRIVATE KEY", "ENCRYPTED PRIVATE KEY", "PGP PRIVATE KEY BLOCK",
                        "putty", "ssh2"])
    lines = [_rand(rng, 64, string.ascii_letters + string.digits + "+/") for _ in range(4)]
    if label == "putty":
        return ("PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nComment: imported\n"
                "Public-Lines: 2\n" + "\n".join(lines[:2]) + "\nPrivate-Lines: 2\n"
                + "\n".join(lines[2:]) + "\nPrivate-MAC: " + _rand(rng, 40, "0123456789abcdef"))
    if label == "ssh2":
        return ("---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\n" + "\n".join(lines)
                + "\n---- END SSH2 ENCRYPTED PRIVATE KEY ----")
    end = "" if rng.random() < 0.15 else f"\n-----END {label}-----"  # truncated dumps too
    return f"-----BEGIN {label}-----\n" + "\n".join(lines) + end


def email(rng: random.Random) -> str:
    low = string.ascii_lowercase
    local = rng.choice([f"{_rand(rng, 5, low)}.{_rand(rng, 7, low)}",
                        f"{_rand(rng, 8, low)}{rng.randint(1, 99)}",
                        f"{_rand(rng, 6, low)}+{_rand(rng, 4, low)}",
                        _rand(rng, 3, string.ascii_uppercase)])
    domain = rng.choice(["example.com", "mail.example.co.uk", "corp.io", "uni-berlin.de",
                         "sub.domain.example.org", "gmail.com"])
    return f"{local}@{domain}"


def telecom_id(rng: random.Random) -> str:
    """A handset's, a subscriber's or a SIM's id after its name (the text after ": ")."""
    body = "35" + "".join(rng.choice(string.digits) for _ in range(12))
    total = sum((int(d) * 2 - 9 if int(d) * 2 > 9 else int(d) * 2) if i % 2 else int(d)
                for i, d in enumerate(body))
    imei = body + str(-total % 10)
    imsi = rng.choice(["310260", "262011", "234150", "460001"]) + "".join(
        rng.choice(string.digits) for _ in range(9))
    iccid = "8944" + "".join(rng.choice(string.digits) for _ in range(15))
    name, value = rng.choice([("IMEI", imei), ("imsi", imsi), ("ICCID", iccid),
                              ("device IMEI", f"{imei[:2]}-{imei[2:8]}-{imei[8:14]}-{imei[14]}")])
    return f"{name}: {value}"


POSITIVES: dict[str, Callable[[random.Random], str]] = {
    "email": email, "credit_card": card, "iban": iban, "us_ssn": ssn, "phone": phone,
    "ipv4": ipv4, "ipv6": ipv6, "ipv4_private": ipv4_private, "ipv6_private": ipv6_private,
    "jwt": jwt, "bearer_token": bearer,
    "aws_access_key": aws_key, "github_token": github_token, "api_key": api_key,
    "secret_assignment": secret_assignment, "private_key": private_key,
    "national_id": national_id, "telecom_id": telecom_id,
}


def _planted(kind: str, text: str) -> str:
    """The part of a positive that must be redacted (key=value: the value)."""
    if kind == "secret_assignment":
        match = re.search(r"""[:=]\s*["']?([^\s"'&]+)""", text)
        assert match is not None, text
        return match.group(1)
    if kind == "bearer_token":
        return text.split(" ", 1)[1]
    if kind in ("national_id", "telecom_id"):
        return text.split(": ", 1)[1]
    return text


# --- negatives ------------------------------------------------------------------------------
def _hex(rng: random.Random, n: int) -> str:
    return _rand(rng, n, "0123456789abcdef")


def _ns_epoch(rng: random.Random) -> int:
    return rng.randint(1_577_836_800, 1_893_456_000) * 10**9 + rng.randint(0, 10**9 - 1)


def neg_trace_ids(rng: random.Random) -> str:
    t, s = _hex(rng, 32), _hex(rng, 16)
    return rng.choice([f"trace_id={t} span_id={s}", f"traceparent: 00-{t}-{s}-01",
                       f'{{"traceId":"{t}","spanId":"{s}"}}', f"{t}", f"span {s} ended"])


def neg_uuid(rng: random.Random) -> str:
    u = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    return rng.choice([u, u.upper(), f"request_id={u}", f"servescope.request.id: {u}",
                       f"/v1/requests/{u}/events"])


def neg_digest(rng: random.Random) -> str:
    return rng.choice([f"sha256:{_hex(rng, 64)}", f"md5 {_hex(rng, 32)}", _hex(rng, 40),
                       f"commit {_hex(rng, 12)}", f"etag W/\"{_hex(rng, 32)}\"",
                       f"blake2b={_hex(rng, 128)}", _hex(rng, 64).upper()])


def neg_timestamp(rng: random.Random) -> str:
    s = rng.randint(1_577_836_800, 1_893_456_000)
    import datetime as dt
    t = dt.datetime.fromtimestamp(s, dt.UTC)
    return rng.choice([
        t.isoformat(), t.strftime("%Y-%m-%dT%H:%M:%S.%fZ"), t.strftime("%Y-%m-%d %H:%M:%S,%f")[:-3],
        t.strftime("%a, %d %b %Y %H:%M:%S GMT"), t.strftime("%b %d %H:%M:%S"),
        t.strftime("%Y%m%dT%H%M%SZ"), f"{s}.{rng.randint(0, 999999):06d}", f"ts={s}",
        t.strftime("%d/%b/%Y:%H:%M:%S +0000"), t.strftime("%H:%M:%S.%f"),
        t.strftime("%Y-%m-%d"), t.strftime("%d.%m.%Y %H:%M"),
    ])


def neg_epoch(rng: random.Random) -> str:
    ns = _ns_epoch(rng)
    return rng.choice([str(ns), f"start_time_unix_nano={ns}", f'"timeUnixNano": "{ns}"',
                       str(ns // 1000), str(ns // 10**6), f"observed={ns} end={ns + 12345678}"])


def neg_version(rng: random.Random) -> str:
    a, b, c = rng.randint(0, 30), rng.randint(0, 200), rng.randint(0, 99)
    return rng.choice([f"{a}.{b}.{c}", f"v{a}.{b}.{c}", f"{a}.{b}.{c}-rc.{rng.randint(1, 9)}",
                       f"{a}.{b}.{c}+cpu", f"{a}.{b}.{c}rc1", f"go{a}.{b}.{c}",
                       f"Python/{a}.{b}.{c}", f"opentelemetry-sdk=={a}.{b}.{c}",
                       f"v{a}.{b}.{c}.{rng.randint(0, 9)}",
                       f"{a}.{b}.{c}.{rng.randint(1000, 99999)}",
                       f"nginx:{a}.{b}.{c}-alpine", f"{a}.{b}", f"0.{rng.randint(100, 140)}.0",
                       f"{a}.{b}.{c}.{rng.randint(0, 9)}-beta"])


def neg_bad_checksum(rng: random.Random) -> str:
    which = rng.choice(["card", "iban", "ssn", "nanp"])
    if which == "card":
        while True:
            prefix, length = rng.choice([("4", 16), ("51", 16), ("37", 15), ("6011", 16)])
            good = _luhn_complete(prefix, length, rng)
            bad = good[:-1] + str((int(good[-1]) + rng.randint(1, 9)) % 10)
            return rng.choice([bad, _group(bad, (4, 4, 4, 4), " ") if length == 16 else bad])
    if which == "iban":
        return iban(rng, valid=False)
    if which == "ssn":
        area = rng.choice(["000", "666", f"9{rng.randint(0, 99):02d}"])
        return f"{area}-{rng.randint(1, 99):02d}-{rng.randint(1, 9999):04d}"
    # NANP numbers whose area code starts with 1 do not exist (0xx would be a national
    # number elsewhere, e.g. Irish mobiles, so it is not a negative).
    return (f"1{rng.randint(10, 99)}-{rng.randint(0, 1)}{rng.randint(10, 99)}-"
            f"{rng.randint(0, 9999):04d}")


def neg_telemetry(rng: random.Random) -> str:
    return rng.choice([
        f"gen_ai.usage.input_tokens={rng.randint(1, 100000)}",
        f"ttft={rng.random():.4f}s tpot={rng.random() / 10:.5f}s",
        f"latency_ms={rng.randint(1, 60000)} queue_ms={rng.randint(0, 9999)}",
        f"servescope-{_hex(rng, 10)}-{_rand(rng, 5, string.ascii_lowercase + string.digits)}",
        "POST /v1/chat/completions 200", f"model=llama-3.1-{rng.randint(1, 70)}b-instruct",
        f"Qwen2.5-{rng.randint(1, 72)}B-Instruct", f"memory: {rng.randint(64, 4096)}Mi",
        f"kv_blocks_used={rng.randint(0, 4096)}/{rng.randint(4096, 16384)}",
        f"max_tokens={rng.randint(1, 8192)} temperature=0.{rng.randint(0, 9)}",
        f"batch_size={rng.randint(1, 256)} step={rng.randint(1, 10**7)}",
        f"bytes_sent={rng.randint(10**6, 10**9)}",
        f"{rng.randint(0, 100)}% of {rng.randint(1, 999)}",
        f"grpc.status_code={rng.randint(0, 16)} attempt={rng.randint(1, 6)}",
        f"/metrics scrape took {rng.randint(1, 999)}ms", "finish_reason=stop",
        f"pid={rng.randint(1, 99999)} thread={rng.randint(10**14, 10**15)}",
        f"localhost:{rng.randint(1024, 65535)}", f"port {rng.randint(1024, 65535)}",
        f"shape=[{rng.randint(1, 64)}, {rng.randint(1, 4096)}, {rng.randint(1, 128)}]",
    ])


_BLOB_SIZES = tuple(n for n in range(12, 121) if n != 64)


def neg_base64(rng: random.Random) -> str:
    """Opaque blobs: payloads, cursors, protobuf bytes, image data, padding and all (not of 64
    bytes: 88 characters ending "==" are an Azure storage account key's very shape, which the
    detectors report bare, as an ORM prints one)."""
    blob = base64.b64encode(rng.randbytes(rng.choice(_BLOB_SIZES))).decode()
    url = _b64url(rng.randbytes(rng.randint(12, 96)))
    return rng.choice([blob, f"data:image/png;base64,{blob}", f"cursor={url}",
                       f'{{"payload": "{blob}"}}', f"grpc-status-details-bin: {url}",
                       f"continuation={url}"])


def neg_pod_name(rng: random.Random) -> str:
    low = string.ascii_lowercase + string.digits
    name = rng.choice(["servescope", "llm-inference", "vllm-worker", "otel-collector",
                       "prometheus-k8s", "gateway"])
    pod = f"{name}-{_rand(rng, 10, 'bcdfghjklmnpqrstvwxz2456789')}-{_rand(rng, 5, low)}"
    return rng.choice([pod, f"pod={pod}", f"k8s.pod.name: {pod}", f"{name}-{rng.randint(0, 9)}",
                       f"{pod} 1/1 Running 0 {rng.randint(1, 59)}m",
                       f"node ip-10-{rng.randint(0, 255)}-{rng.randint(0, 255)}-"
                       f"{rng.randint(0, 255)}.ec2.internal"])


def neg_cidr(rng: random.Random) -> str:
    v4 = f"{rng.choice([10, 172, 192, 100])}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.0"
    v6 = f"{rng.choice(['2001:db8', 'fd00', 'fe80', '2600:1f18'])}::"
    mask4, mask6 = rng.randint(8, 30), rng.choice([32, 48, 56, 64])
    return rng.choice([f"{v4}/{mask4}", f"allow {v4}/{mask4} deny all",
                       f"podCIDR: {v4}/{mask4}", f"serviceSubnet: {v4}/{mask4}",
                       f"{v6}/{mask6}", f"ipv6 cidr {v6}/{mask6} routed",
                       f"networkpolicy ipBlock cidr={v4}/{mask4} except={v4}/{mask4 + 1}"])


NEGATIVES: dict[str, Callable[[random.Random], str]] = {
    "trace_span_ids": neg_trace_ids, "uuid": neg_uuid, "hex_digest": neg_digest,
    "timestamp": neg_timestamp, "epoch": neg_epoch, "version": neg_version,
    "failed_checksum": neg_bad_checksum, "telemetry": neg_telemetry,
    "base64_blob": neg_base64, "pod_name": neg_pod_name, "cidr": neg_cidr,
}


def build(seed: int = SEED, per_kind: int = PER_KIND, per_negative: int = PER_NEGATIVE,
          with_handwritten: bool = True) -> list[Sample]:
    rng = random.Random(seed)
    samples: list[Sample] = handwritten() if with_handwritten else []
    for kind, make in POSITIVES.items():
        for i in range(per_kind):
            raw = make(rng)
            context = _CONTEXTS[i % len(_CONTEXTS)]
            if kind == "private_key" and "{{" in context:
                context = "{v}"
            samples.append(Sample(context.format(v=raw), kind, _planted(kind, raw)))
    for group, make in NEGATIVES.items():
        for i in range(per_negative):
            context = _CONTEXTS[i % len(_CONTEXTS)]
            samples.append(Sample(context.format(v=make(rng)), None, group, group))
    return samples


# --- written by hand: formats from documentation and real logs, not from the generators ----
_JWT_IO = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9l"
           "IiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c")
HANDWRITTEN_POSITIVES: tuple[tuple[str, str, str | None], ...] = (
    # (kind, text, planted value; None: the whole text)
    ("email", "From: \"Jane Doe\" <jane.doe+billing@mail.example.co.uk>",
     "jane.doe+billing@mail.example.co.uk"),
    ("email", "reply-to=ops_team@sub.example.org;", "ops_team@sub.example.org"),
    ("email", "mailto:First.Last@Example.COM", "First.Last@Example.COM"),
    ("credit_card", "stripe test card 4242 4242 4242 4242 exp 12/34", "4242 4242 4242 4242"),
    ("credit_card", "amex 3782 822463 10005", "3782 822463 10005"),
    ("credit_card", "mc=5555555555554444", "5555555555554444"),
    ("credit_card", "discover 6011-1111-1111-1117.", "6011-1111-1111-1117"),
    ("credit_card", "diners 3056 930902 5904", "3056 930902 5904"),
    ("credit_card", "jcb:3530111333300000", "3530111333300000"),
    ("iban", "IBAN: GB82 WEST 1234 5698 7654 32", "GB82 WEST 1234 5698 7654 32"),
    ("iban", "pay to DE89370400440532013000 today", "DE89370400440532013000"),
    ("iban", "FR1420041010050500013M02606", "FR1420041010050500013M02606"),
    ("iban", "NL91ABNA0417164300,", "NL91ABNA0417164300"),
    ("us_ssn", "SSN: 078-05-1120 (the famous Woolworth card)", "078-05-1120"),
    ("us_ssn", "ssn=219-09-9999", "219-09-9999"),
    ("phone", "Call us at (212) 555-0123 ext. 4", "(212) 555-0123"),
    ("phone", "tel:+1-202-555-0173", "+1-202-555-0173"),
    ("phone", "whatsapp +447911123456", "+447911123456"),
    # 9 digits: a short Berlin number; the national-format detector wants 10-11 (a known miss)
    ("phone", "Tel. 030 901820", "030 901820"),
    ("phone", "+33 6 12 34 56 78", "+33 6 12 34 56 78"),
    ("phone", "mobile: 07911 123456", "07911 123456"),
    ("phone", "support line 1-800-555-0199", "1-800-555-0199"),
    ("ipv4_private", "client.address=192.168.1.23", "192.168.1.23"),
    ("ipv4", "client.address=198.51.100.23", "198.51.100.23"),
    ("ipv4", "allowlist:\n  - 198.51.100.237/32", "198.51.100.237"),
    ("ipv4", "X-Forwarded-For: 203.0.113.195", "203.0.113.195"),
    ("ipv4", "connect to 8.8.8.8:53 failed", "8.8.8.8"),
    ("ipv6", "peer [2001:db8:85a3::8a2e:370:7334]:443", "2001:db8:85a3::8a2e:370:7334"),
    ("ipv6_private", "src=fe80::1ff:fe23:4567:890a%eth0", "fe80::1ff:fe23:4567:890a%eth0"),
    ("ipv6", "whitelist-source-range: \"2001:db8:d686:bf7::6aa8/128\"", "2001:db8:d686:bf7::6aa8"),
    ("ipv6", "peer [2a00:1450:4001:82b::200e]:443", "2a00:1450:4001:82b::200e"),
    ("jwt", "Authorization: Bearer " + _JWT_IO, _JWT_IO),
    ("bearer_token", "curl -H 'Authorization: Bearer ya29.a0AfH6SMBx3kLq9_zX-7y'",
     "ya29.a0AfH6SMBx3kLq9_zX-7y"),
    ("bearer_token", "authorization: Basic dXNlcjpwYXNzd29yZDEyMw==", "dXNlcjpwYXNzd29yZDEyMw=="),
    ("aws_access_key", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    ("aws_access_key", "ASIAY34FZKBOKMUTVV7A expired", "ASIAY34FZKBOKMUTVV7A"),
    ("github_token", "git clone https://ghp_16C7e42F292c6912E7710c838347Ae178B4a@github.com/o/r",
     "ghp_16C7e42F292c6912E7710c838347Ae178B4a"),
    ("api_key", "OPENAI_API_KEY=sk-proj-4fJ9kL2mN8pQ1rS5tU7vW0xY3zA6bC9dE2fG",
     "sk-proj-4fJ9kL2mN8pQ1rS5tU7vW0xY3zA6bC9dE2fG"),
    ("api_key", "client = OpenAI(api_key='sk-4fJ9kL2mN8pQ1rS5tU7vW0xY3zA6bC9dE2fG')",
     "sk-4fJ9kL2mN8pQ1rS5tU7vW0xY3zA6bC9dE2fG"),
    ("api_key", "SLACK_BOT=xoxb-123456789012-123456789012-abcdefABCDEF",
     "xoxb-123456789012-123456789012-abcdefABCDEF"),
    ("secret_assignment", "DATABASE_PASSWORD=correct-horse-battery", "correct-horse-battery"),
    # network gear's configs and Windows' command lines (blind corpora Y and AB)
    ("secret_assignment", "username netops privilege 15 password 0 Backbone@793x",
     "Backbone@793x"),
    ("secret_assignment", "radius server ISE\n key 7 0963410C48171E1D0548527D",
     "0963410C48171E1D0548527D"),
    ("secret_assignment", 'set security ike policy P pre-shared-key ascii-text "$9$1GIrjTdIdR18nl"',
     "$9$1GIrjTdIdR18nl"),
    ("secret_assignment", "snmp-server community Rw5IMrzDW9 RO", "Rw5IMrzDW9"),
    ("secret_assignment", '146.178.40.81 %any : PSK "7EZcjkLJ16KX5A9O1BIbTM"',
     "7EZcjkLJ16KX5A9O1BIbTM"),
    ("secret_assignment", "createUser -e 0x80000009 trapuser SHA Winter2022! AES lk0Z1E*uFJB",
     "Winter2022!"),
    ("secret_assignment", "snmpget -v3 -l authPriv -u zbx -a SHA -A Winter@923x -X q 1.1.1.1",
     "Winter@923x"),
    ("secret_assignment", '<param name="password" value="vhp!ByVj8CcUNFQ9Y!"/>',
     "vhp!ByVj8CcUNFQ9Y!"),
    ("secret_assignment", "<key>UserPassword</key>\n<string>Porto2025?x</string>", "Porto2025?x"),
    ("secret_assignment", "cmdkey /add:TERMSRV/rds01 /user:CONTOSO\\carlos /pass:GGIsxgfc925$",
     "GGIsxgfc925$"),
    ("secret_assignment", "$pw = ConvertTo-SecureString 'Mariposa2024!' -AsPlainText -Force",
     "Mariposa2024!"),
    ("secret_assignment", 'powershell.exe -file x.ps1 -LocalAdminPassword "dragon_7921!"',
     "dragon_7921!"),
    ("secret_assignment", 'config: {"client_secret": "9f8e7d6c5b4a-secret"}',
     "9f8e7d6c5b4a-secret"),
    ("secret_assignment", "postgres://app:pw@db?password=Hunter2Hunter2", "Hunter2Hunter2"),
    ("private_key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAE"
                    "\n-----END OPENSSH PRIVATE KEY-----", None),
    # Formats secret scanners catch (from their documentation and rule sets).
    ("aws_access_key", "AWS_ACCESS_KEY_ID=AKIA2E0A8F3B244C9986", "AKIA2E0A8F3B244C9986"),
    ("aws_access_key", "legacy id A3TXIOSFODNN7EXAMPLE rotated", "A3TXIOSFODNN7EXAMPLE"),
    ("aws_access_key", "role creds ABIA1234567890ABCDEF", "ABIA1234567890ABCDEF"),
    ("jwt", "token=eyJhbGciOiJIUzI1NiJ9.SGVsbG8sIHdvcmxkIQ."
     "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
     "eyJhbGciOiJIUzI1NiJ9.SGVsbG8sIHdvcmxkIQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
    ("jwt", "unsecured eyJhbGciOiJub25lIn0.eyJpc3MiOiJqb2UifQ. accepted",
     "eyJhbGciOiJub25lIn0.eyJpc3MiOiJqb2UifQ."),
    ("github_token", "GH_TOKEN=github_pat_11ABCDEFG0123456789abc_"
     "ZyXwVuTsRqPoNmLkJiHgFeDcBa0123456789zyxwvutsrqponmlkjihgfedc",
     "github_pat_11ABCDEFG0123456789abc_"
     "ZyXwVuTsRqPoNmLkJiHgFeDcBa0123456789zyxwvutsrqponmlkjihgfedc"),
    ("api_key", "HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyzABCDEFGH",
     "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH"),
    ("api_key", "stripe.api_key = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc'",
     "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    ("api_key", "webhook https://hooks.slack.com/services/T00000000/B00000000/"
     "XXXXXXXXXXXXXXXXXXXXXXXX posted",
     "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"),
    ("api_key", "GOOGLE_API_KEY: AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe",
     "AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe"),
    ("private_key", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF8Lx2sBCAC7\n"
                    "-----END PGP PRIVATE KEY BLOCK-----", None),
    ("secret_assignment", "secret: s3cr3t-Valu3-42", "s3cr3t-Valu3-42"),
    ("phone", "prompt contains: 'my number is 00 49 30 1234567, text me when done'",
     "00 49 30 1234567"),
    ("secret_assignment", "Cookie: sessionid=8f14e45fceea167a5a36dedd4bea2543; csrftoken=Xy9Kq2Lm",
     "sessionid=8f14e45fceea167a5a36dedd4bea2543; csrftoken=Xy9Kq2Lm"),
    ("secret_assignment", "curl -u admin:S3cretPa55 https://api.example.com/v1/models",
     "S3cretPa55"),
    ("secret_assignment", 'db: {password="p@ss w0rd with spaces"}', "p@ss w0rd with spaces"),
    ("secret_assignment", "user: my twilio auth token 9f86d081884c7d659a2feaa0c55ad015 ok?",
     "9f86d081884c7d659a2feaa0c55ad015"),
    ("bearer_token", "Authorization: Token 9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b",
     "9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b"),
    ("bearer_token", '"authorization": "SSWS 00QCjAl4MlV-WPXM-ABCDEFGHIJKLMNOPQRSTUVWXY"',
     "00QCjAl4MlV-WPXM-ABCDEFGHIJKLMNOPQRSTUVWXY"),
    ("secret_assignment", "machine api.example.com login ci-bot password Maple_pTaX28~",
     "Maple_pTaX28~"),
    ("secret_assignment", '{"cookies": [{"name": "sessionid", "value": "McUNvmITxs8MHksyIL"}]}',
     "McUNvmITxs8MHksyIL"),
    ("secret_assignment", '{"key": "db.password", "value": {"stringValue": "hunter2Hunter2"}}',
     "hunter2Hunter2"),
    ("secret_assignment", 'DEBUG web.request cookies="laravel_session=5FDEE937DBA4DFEA6E515" ok',
     "laravel_session=5FDEE937DBA4DFEA6E515"),
    ("api_key", "twine upload -u __token__ -p pypi-AgEIcHlwaS5vcmcWj8I0Zql27MJj9SjD3Xk39BlnzIWao0f"
     "rl5BXGJUS_hGJt2QpA dist/*", "pypi-AgEIcHlwaS5vcmcWj8I0Zql27MJj9SjD3Xk39BlnzIWao0frl5BXGJUS_"
     "hGJt2QpA"),
    ("secret_assignment", "LOG:  statement: ALTER USER llm WITH PASSWORD 'kg500cctVz4IJDSd'",
     "kg500cctVz4IJDSd"),
    ("secret_assignment", "CREATE USER 'app'@'%' IDENTIFIED BY \"S3cr3t-pass\";", "S3cr3t-pass"),
    ("secret_assignment", "user: the grafana admin password is hunter921801Xy!, can you log in?",
     "hunter921801Xy!"),
    ("secret_assignment", "here are my creds AKIAIOSFODNN7EXAMPLE / "
     "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY can you check",
     "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
)

HANDWRITTEN_NEGATIVES: tuple[tuple[str, str], ...] = (
    # (group, text)
    ("trace_span_ids", "traceparent: 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"),
    ("trace_span_ids", "exemplar {trace_id=\"4bf92f3577b34da6a3ce929d0e0e4736\"} 0.25"),
    ("uuid", "x-request-id: 123e4567-e89b-12d3-a456-426614174000"),
    ("uuid", "pod uid 00000000-0000-0000-0000-000000000000"),
    ("hex_digest",
     "image@sha256:a3ed95caeb02ffe68cdd9fd84406680ae93d633cb16422d00e8a7c22955b46d4"),
    ("hex_digest", "git rev 1f0c2e8e9b4d3a2c1b0a99887766554433221100"),
    ("hex_digest", "blake3 00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"),
    ("timestamp", "2026-11-30T02:54:30.123456789+00:00 INFO started"),
    ("timestamp", "[30/Nov/2026:02:54:30 +0000] \"GET /healthz HTTP/1.1\" 200"),
    ("timestamp", "Nov 30 02:54:30 host servescope[1234]: ready"),
    ("timestamp", "elapsed 00:01:02.345"),
    ("epoch", "start_time_unix_nano: 1764471270123456789"),
    ("epoch", "{\"ts\": 1764471270.123456, \"ms\": 1764471270123}"),
    ("epoch", "observed_time=1764471270123456789 end=1764471270999999999"),
    ("version", "opentelemetry-sdk 1.45.2, grpcio 1.85.3, protobuf 7.36.2"),
    ("version", "torch==2.13.0+cpu cuda 12.4.1"),
    ("version", "Linux 6.8.0-45-generic #45-Ubuntu SMP x86_64"),
    ("version", "otel/opentelemetry-collector-contrib:0.135.0"),
    ("version", "chrome/124.0.6367.207 safari/537.36"),
    ("version", "go1.22.5 linux/amd64"),
    ("failed_checksum", "card 4111 1111 1111 1112 declined"),
    ("failed_checksum", "order 1234567890123456 shipped"),
    ("failed_checksum", "GB82 WEST 1234 5698 7654 33"),
    ("failed_checksum", "ssn 000-12-3456"),
    ("telemetry", "servescope_requests_finished_total{model=\"llama\",finish_reason=\"stop\"} 42"),
    ("telemetry", "histogram_quantile(0.99, sum by (le) (rate(x_bucket[5m])))"),
    ("telemetry", "kv_blocks_used=1024 kv_blocks_total=4096 ratio=0.25"),
    ("telemetry", "GET /v1/models 200 0.004s"),
    ("telemetry", "batch 64 tokens 8192 step 1000000"),
    ("telemetry", "resources: limits: {cpu: 500m, memory: 512Mi}"),
    ("telemetry", "servescope-7d9f8b6c5d-x2x9k 1/1 Running 0 3h"),
    ("telemetry", "p50=12.5ms p99=250.0ms max=1.234s"),
    ("telemetry", "shape torch.Size([8, 128, 4096]) dtype=torch.float16"),
    ("telemetry", "listening on http://localhost:8000"),
    # addresses that name no host: what servers bind to, loopback
    ("telemetry", "Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)"),
    ("telemetry", "listening on [::]:8000 and ::1 port 9090, 127.0.0.1:8081"),
    ("telemetry", "model: meta-llama/Llama-3.1-8B-Instruct revision: main"),
    ("telemetry", "gen_ai.usage.output_tokens: 256"),
    ("telemetry", "queue_time_seconds_bucket{le=\"0.005\"} 10"),
    ("telemetry", "schedule_delay_millis=5000 max_export_batch_size=512"),
    ("cidr", "kubectl get node n1 -o jsonpath='{.spec.podCIDR}' -> 10.244.0.0/24"),
    ("cidr", "ip -6 route add 2001:db8:1::/48 dev eth0"),
    ("cidr", "aws ec2 authorize-security-group-ingress --cidr 172.31.0.0/16"),
    ("pod_name", "vllm-worker-6c9f7d8b5-qz7xk   1/1  Running  0  12m"),
    ("pod_name", "k8s.pod.name=servescope-gateway-5f7d9c6b8d-2xkqz"),
    ("base64_blob", "data:application/octet-stream;base64,"
                    "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="),
    ("base64_blob", "grpc-status-details-bin: CAMSEGludmFsaWQgYXJndW1lbnQ"),
)


def handwritten() -> list[Sample]:
    """Written by hand, so not shaped by the generators the detectors were tuned on."""
    samples = [Sample(text, kind, value if value is not None else text)
               for kind, text, value in HANDWRITTEN_POSITIVES]
    samples += [Sample(text, None, group, group) for group, text in HANDWRITTEN_NEGATIVES]
    return samples
