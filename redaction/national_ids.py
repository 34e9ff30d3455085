"""National identity numbers other than the US SSN: each country's own check, so a number
is reported only when its digits are one the issuer could have given; and passport numbers,
which have no check outside the machine-readable zone.

Most of these numbers are bare digits any id or amount could be, so their detectors
(``detectors.py``) look for them only after the document's own name (PESEL, CPF, BSN,
Aadhaar, マイナンバー, 주민등록번호 ...), and these checks then refuse the one number in ten
or eleven that a typo or a neighbouring figure would be. The formats that carry their own
shape (Italy's codice fiscale, China's resident id, Brazil's dotted CPF) are looked for
anywhere, their check being the only gate.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = [
    "aadhaar_ok", "any_id_ok", "be_national_number_ok", "bsn_ok", "checked_id_ok",
    "cn_resident_id_ok",
    "codice_fiscale_ok", "cpf_ok", "dni_ok", "my_number_ok", "nik_ok", "nino_ok", "nir_ok",
    "pan_ok", "passport_ok", "personnummer_ok", "pesel_ok", "rrn_ok", "rut_ok", "steuer_id_ok",
    "tc_kimlik_ok",
]


def _numerals(text: str) -> str:
    return "".join(ch for ch in text if "0" <= ch <= "9")


def _valid_day(month: int, day: int) -> bool:
    return 1 <= month <= 12 and 1 <= day <= 31


def steuer_id_ok(candidate: str) -> bool:
    """Germany's Steuer-ID: 11 digits, no leading 0, ISO 7064 MOD 11,10 check digit."""
    n = _numerals(candidate)
    if len(n) != 11 or n[0] == "0" or len(set(n[:10])) > 9:  # one digit repeats, by rule
        return False
    product = 10
    for ch in n[:10]:
        total = (int(ch) + product) % 10 or 10
        product = (2 * total) % 11
    return (11 - product) % 10 == int(n[10])


def pesel_ok(candidate: str) -> bool:
    """Poland's PESEL: 11 digits, a birth date (the century in the month) and a check digit."""
    n = _numerals(candidate)
    if len(n) != 11:
        return False
    if not _valid_day(int(n[2:4]) % 20, int(n[4:6])):
        return False
    weights = (1, 3, 7, 9, 1, 3, 7, 9, 1, 3)
    return (10 - sum(int(d) * w for d, w in zip(n, weights, strict=False)) % 10) % 10 == int(n[10])


def tc_kimlik_ok(candidate: str) -> bool:
    """Türkiye's TC Kimlik No: 11 digits, no leading 0, two check digits."""
    n = [int(ch) for ch in _numerals(candidate)]
    if len(n) != 11 or n[0] == 0:
        return False
    tenth = (sum(n[0:9:2]) * 7 - sum(n[1:8:2])) % 10
    return tenth == n[9] and sum(n[:10]) % 10 == n[10]


def cpf_ok(candidate: str) -> bool:
    """Brazil's CPF: 11 digits (not one digit repeated), two MOD 11 check digits."""
    n = [int(ch) for ch in _numerals(candidate)]
    if len(n) != 11 or len(set(n)) == 1:
        return False
    first = sum(d * (10 - i) for i, d in enumerate(n[:9])) * 10 % 11 % 10
    second = sum(d * (11 - i) for i, d in enumerate(n[:10])) * 10 % 11 % 10
    return first == n[9] and second == n[10]


_DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"


def dni_ok(candidate: str) -> bool:
    """Spain's DNI (8 digits and a letter) or NIE (X, Y or Z, 7 digits, a letter): the letter
    is the number's remainder by 23."""
    text = candidate.replace("-", "").replace(".", "").upper()
    if len(text) != 9 or not text[-1].isalpha():
        return False
    head = text[:8]
    if head[0] in "XYZ":
        head = str("XYZ".index(head[0])) + head[1:]
    if not head.isdigit() or not head.isascii():
        return False
    return _DNI_LETTERS[int(head) % 23] == text[-1]


_CF_ODD = dict(zip("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ",
                   (1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4,
                    18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23), strict=True))


def codice_fiscale_ok(candidate: str) -> bool:
    """Italy's codice fiscale: 16 characters whose last is their check letter."""
    text = candidate.upper()
    if len(text) != 16 or not text.isalnum() or not text.isascii():
        return False
    total = 0
    for i, ch in enumerate(text[:15]):
        if i % 2 == 0:  # the odd places, counted from 1
            total += _CF_ODD[ch]
        else:
            total += int(ch) if ch.isdigit() else ord(ch) - 65
    return chr(65 + total % 26) == text[15]


def bsn_ok(candidate: str) -> bool:
    """The Netherlands' BSN: 9 digits passing the eleven test."""
    n = [int(ch) for ch in _numerals(candidate)]
    if len(n) != 9 or not any(n):
        return False
    return (sum(d * (9 - i) for i, d in enumerate(n[:8])) - n[8]) % 11 == 0


_VERHOEFF_D = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8, 9), (1, 2, 3, 4, 0, 6, 7, 8, 9, 5),
    (2, 3, 4, 0, 1, 7, 8, 9, 5, 6), (3, 4, 0, 1, 2, 8, 9, 5, 6, 7),
    (4, 0, 1, 2, 3, 9, 5, 6, 7, 8), (5, 9, 8, 7, 6, 0, 4, 3, 2, 1),
    (6, 5, 9, 8, 7, 1, 0, 4, 3, 2), (7, 6, 5, 9, 8, 2, 1, 0, 4, 3),
    (8, 7, 6, 5, 9, 3, 2, 1, 0, 4), (9, 8, 7, 6, 5, 4, 3, 2, 1, 0))
_VERHOEFF_P = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8, 9), (1, 5, 7, 6, 2, 8, 3, 0, 9, 4),
    (5, 8, 0, 3, 7, 9, 6, 1, 4, 2), (8, 9, 1, 6, 0, 4, 3, 5, 2, 7),
    (9, 4, 5, 3, 1, 2, 6, 8, 7, 0), (4, 2, 8, 6, 5, 7, 3, 9, 0, 1),
    (2, 7, 9, 3, 8, 0, 6, 4, 1, 5), (7, 0, 4, 6, 9, 1, 3, 2, 5, 8))


def aadhaar_ok(candidate: str) -> bool:
    """India's Aadhaar: 12 digits, not starting 0 or 1, Verhoeff check digit."""
    n = _numerals(candidate)
    if len(n) != 12 or n[0] in "01":
        return False
    check = 0
    for i, ch in enumerate(reversed(n)):
        check = _VERHOEFF_D[check][_VERHOEFF_P[i % 8][int(ch)]]
    return check == 0


def pan_ok(candidate: str) -> bool:
    """India's PAN: five letters (the fourth the holder's type), four digits, a letter; no
    check digit, so only ever after its name."""
    return (len(candidate) == 10 and candidate[:5].isalpha() and candidate[5:9].isdigit()
            and candidate[9].isalpha() and candidate.isascii() and candidate.isupper()
            and candidate[3] in "ABCFGHJLPT")


def my_number_ok(candidate: str) -> bool:
    """Japan's My Number (個人番号): 12 digits, the last a MOD 11 check digit."""
    n = [int(ch) for ch in _numerals(candidate)]
    if len(n) != 12:
        return False
    total = sum(n[10 - i] * (i + 2 if i < 6 else i - 4) for i in range(11))
    rest = total % 11
    return (0 if rest <= 1 else 11 - rest) == n[11]


def rrn_ok(candidate: str) -> bool:
    """Korea's resident registration number: a birth date, a sex-and-century digit, six more
    (no check digit since 2020: the date and the seventh digit are the shape)."""
    n = _numerals(candidate)
    return len(n) == 13 and _valid_day(int(n[2:4]), int(n[4:6])) and n[6] in "12345678"


def nik_ok(candidate: str) -> bool:
    """Indonesia's NIK: a region code, a birth date (a woman's day plus 40), a serial."""
    n = _numerals(candidate)
    if len(n) != 16 or not 11 <= int(n[:2]) <= 94:
        return False
    day = int(n[6:8])
    return _valid_day(int(n[8:10]), day - 40 if day > 40 else day) and n[12:] != "0000"


def cn_resident_id_ok(candidate: str) -> bool:
    """China's resident identity card number: 17 digits (a region, a birth date, a serial)
    and an ISO 7064 MOD 11-2 check character."""
    text = candidate.upper()
    if len(text) != 18 or not text[:17].isdigit() or not text.isascii():
        return False
    year, month, day = int(text[6:10]), int(text[10:12]), int(text[12:14])
    if not (1900 <= year <= 2099 and _valid_day(month, day)):
        return False
    total = sum(int(ch) * (2 ** (17 - i) % 11) for i, ch in enumerate(text[:17]))
    return "10X98765432"[total % 11] == text[17]


def nino_ok(candidate: str) -> bool:
    """The UK's National Insurance number: two letters of the allowed pairs, six digits,
    A to D; no check digit, so only ever after its name."""
    text = candidate.replace(" ", "").upper()
    if len(text) != 9 or not text[2:8].isdigit() or text[8] not in "ABCD":
        return False
    prefix = text[:2]
    return (prefix[0] not in "DFIQUV" and prefix[1] not in "DFIOQUV"
            and prefix not in ("BG", "GB", "KN", "NK", "NT", "TN", "ZZ"))


def passport_ok(candidate: str) -> bool:
    """A passport's number: 7 to 9 capital letters and digits, at least five of them digits
    or mixed with letters (a word in capitals, "VERIFIED", is none); no check digit outside
    the machine-readable zone, so only ever after its name or in a booking's DOCS element."""
    digits = sum(ch.isdigit() for ch in candidate)
    return (7 <= len(candidate) <= 9 and candidate.isascii() and candidate.isalnum()
            and candidate == candidate.upper() and (digits >= 5 or 0 < digits < len(candidate)))


def nir_ok(candidate: str) -> bool:
    """France's NIR (numéro de sécurité sociale): sex, birth year and month, place, serial,
    and a key of 97 less the first 13 digits' remainder by 97 (Corsica's 2A/2B read as 19/18)."""
    text = candidate.replace(" ", "").replace(".", "").upper()
    if len(text) != 15 or text[0] not in "12378":
        return False
    body = text[:13].replace("2A", "19", 1) if text[5:7] == "2A" else text[:13]
    body = body.replace("2B", "18", 1) if text[5:7] == "2B" else body
    if not body.isdigit() or not text[13:].isdigit() or not body.isascii():
        return False
    month = int(body[3:5])
    if not (1 <= month <= 12 or 20 <= month <= 42 or 50 <= month <= 99):
        return False
    return 97 - int(body) % 97 == int(text[13:])


def be_national_number_ok(candidate: str) -> bool:
    """Belgium's national register number: a birth date, a serial and a MOD 97 key (with 2
    before the number for those born since 2000)."""
    n = _numerals(candidate)
    if len(n) != 11:
        return False
    body, key = int(n[:9]), int(n[9:])
    return 97 - body % 97 == key or 97 - (2_000_000_000 + body) % 97 == key


def rut_ok(candidate: str) -> bool:
    """Chile's RUT/RUN: a number and its MOD 11 check character (0-9 or K)."""
    text = candidate.replace(".", "").replace("-", "").upper()
    if not 8 <= len(text) <= 9 or not text[:-1].isdigit() or not text.isascii():
        return False
    total, weight = 0, 2
    for ch in reversed(text[:-1]):
        total += int(ch) * weight
        weight = 2 if weight == 7 else weight + 1
    check = 11 - total % 11
    return text[-1] == {10: "K", 11: "0"}.get(check, str(check))


def personnummer_ok(candidate: str) -> bool:
    """Sweden's personnummer: a birth date, a serial and a Luhn check digit (on the ten
    digits after the century, when it is written)."""
    n = _numerals(candidate)
    if len(n) == 12:
        n = n[2:]
    if len(n) != 10 or not _valid_day(int(n[2:4]), int(n[4:6]) % 60):
        return False
    total = 0
    for i, ch in enumerate(n):
        d = int(ch) * (2 if i % 2 == 0 else 1)
        total += d - 9 if d > 9 else d
    return total % 10 == 0


_DIGIT_CHECKS: dict[int, tuple[Callable[[str], bool], ...]] = {
    9: (bsn_ok,),
    10: (personnummer_ok,),
    11: (steuer_id_ok, pesel_ok, tc_kimlik_ok, cpf_ok, be_national_number_ok),
    12: (aadhaar_ok, my_number_ok, personnummer_ok),
    13: (rrn_ok,),
    15: (nir_ok,),
    16: (nik_ok,),
    18: (cn_resident_id_ok,),
}
_SHAPE_CHECKS: tuple[Callable[[str], bool], ...] = (
    dni_ok, codice_fiscale_ok, cn_resident_id_ok, rut_ok, nino_ok, pan_ok, passport_ok)


def any_id_ok(candidate: str) -> bool:
    """A number under a generic name ("national_id", "document_number", "tax id"): one that
    some country's check above accepts."""
    n = _numerals(candidate)
    if n and len(n) == len(candidate.replace(" ", "").replace("-", "").replace(".", "")):
        return any(check(candidate) for check in _DIGIT_CHECKS.get(len(n), ()))
    return any(check(candidate) for check in _SHAPE_CHECKS)


# Under a generic name, only numbers with a check: Korea's and Indonesia's (a date and a
# serial) are any 13 or 16 digits with a plausible date in them; and not nine digits, which
# under "tax id" are a US employer's or person's (the SSN has its own kind), one in eleven of
# them passing the BSN's test.
_CHECKED_DIGITS = {n: tuple(c for c in checks if c not in (rrn_ok, nik_ok, bsn_ok))
                   for n, checks in _DIGIT_CHECKS.items()}


def checked_id_ok(candidate: str) -> bool:
    """:func:`any_id_ok` without the numbers that carry no check digit (RRN, NIK, PAN, NINO,
    passports): what a generic name ("id number", "tax id") may name."""
    n = _numerals(candidate)
    if n and len(n) == len(candidate.replace(" ", "").replace("-", "").replace(".", "")):
        return any(check(candidate) for check in _CHECKED_DIGITS.get(len(n), ()))
    return any(check(candidate) for check in (dni_ok, codice_fiscale_ok, cn_resident_id_ok,
                                               rut_ok))
