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

import re
from collections.abc import Callable
from datetime import date

from .validators import ean13_ok, luhn_ok, ssn_ok

__all__ = [
    "aadhaar_ok",
    "afm_ok",
    "amka_ok",
    "answered_id_ok",
    "any_id_ok",
    "baltic_code_ok",
    "be_card_ok",
    "be_national_number_ok",
    "bsn_ok",
    "checked_id_ok",
    "cn_resident_id_alone_ok",
    "cn_resident_id_ok",
    "cnp_ok",
    "co_nit_ok",
    "co_person_nit_ok",
    "codice_fiscale_ok",
    "cpf_ok",
    "cpr_ok",
    "cuil_ok",
    "cuit_ok",
    "curp_ok",
    "cz_account_ok",
    "digit_count_ok",
    "dni_ok",
    "eg_national_id_ok",
    "egn_ok",
    "emirates_id_ok",
    "fodselsnummer_ok",
    "hetu_ok",
    "hkid_ok",
    "hu_tax_id_ok",
    "iberian_tax_id_ok",
    "idnp_ok",
    "iin_ok",
    "inn_ok",
    "ird_ok",
    "itin_ok",
    "jmbg_ok",
    "kg_pin_ok",
    "kr_licence_ok",
    "kra_pin_ok",
    "lnch_ok",
    "medicare_ok",
    "melli_ok",
    "mrz_ok",
    "mx_rfc_ok",
    "my_number_ok",
    "mykad_ok",
    "na_id_ok",
    "naf_ok",
    "nhs_ok",
    "nida_ok",
    "nik_ok",
    "nino_ok",
    "nir_ok",
    "nis_ok",
    "niss_ok",
    "npwp_ok",
    "nric_ok",
    "nss_ok",
    "oib_ok",
    "pan_ok",
    "passport_ok",
    "personas_kods_ok",
    "personnummer_ok",
    "pesel_ok",
    "pl_id_card_ok",
    "pps_ok",
    "pt_cc_ok",
    "pt_nif_ok",
    "rnokpp_ok",
    "rodne_cislo_ok",
    "rrn_checked_ok",
    "rrn_ok",
    "ruc_ok",
    "rut_ok",
    "sa_id_ok",
    "si_tax_ok",
    "sin_ok",
    "snils_ok",
    "steuer_id_ok",
    "taj_ok",
    "tc_kimlik_ok",
    "teudat_zehut_ok",
    "tfn_ok",
    "thai_id_any_ok",
    "thai_id_ok",
    "titulo_eleitor_ok",
    "tw_id_ok",
    "vn_citizen_id_ok",
    "za_id_ok",
]


def _numerals(text: str) -> str:
    return "".join(ch for ch in text if "0" <= ch <= "9")


def _weighted(n: str, weights: tuple[int, ...]) -> int:
    """The weighted sum most check digits are computed from: ``n``'s first digits, one
    weight each."""
    return sum(int(d) * w for d, w in zip(n, weights, strict=False))


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


def naf_ok(candidate: str) -> bool:
    """Spain's social security affiliation number (NAF, NUSS): a province's two digits, eight
    digits, then two check digits, the remainder by 97 of the number before them (read as the
    province then the eight digits, or, for numbers below ten million, as the province times
    ten million plus the number)."""
    n = _numerals(candidate)
    if len(n) != 12:
        return False
    province, number, check = int(n[:2]), int(n[2:10]), int(n[10:])
    return (int(n[:10]) % 97 == check
            or (number < 10_000_000 and (province * 10_000_000 + number) % 97 == check))


def sa_id_ok(candidate: str) -> bool:
    """Saudi Arabia's national id (1...) or iqama (2...): ten digits, a Luhn check digit."""
    n = _numerals(candidate)
    return len(n) == 10 and n[0] in "12" and luhn_ok(n)


def emirates_id_ok(candidate: str) -> bool:
    """The UAE's Emirates ID: 784, the holder's birth year, seven digits, a Luhn check digit."""
    n = _numerals(candidate)
    return len(n) == 15 and n.startswith("784") and n[3:5] in ("19", "20") and luhn_ok(n)


def melli_ok(candidate: str) -> bool:
    """Iran's national code (kod-e melli): ten digits, the last a check by 11."""
    n = _numerals(candidate)
    if len(n) != 10 or len(set(n)) == 1:
        return False
    rest = sum(int(n[i]) * (10 - i) for i in range(9)) % 11
    return int(n[9]) == (rest if rest < 2 else 11 - rest)


# Taiwan's national id: a letter (its region, read as two digits), 1 or 2 (or 8 or 9 for a
# resident's), eight digits; weighted, the sum ends in 0.
_TW_LETTERS = dict(zip("ABCDEFGHJKLMNPQRSTUVXYWZIO", range(10, 36), strict=True))


def tw_id_ok(candidate: str) -> bool:
    """Taiwan's national id (and resident certificate number): a letter, then 9 digits."""
    text = candidate.upper()
    if (len(text) != 10 or text[0] not in _TW_LETTERS or not text[1:].isdigit()
            or not text.isascii() or text[1] not in "1289"):
        return False
    code = _TW_LETTERS[text[0]]
    total = code // 10 + (code % 10) * 9 + int(text[9])
    total += sum(int(text[i + 1]) * (8 - i) for i in range(8))
    return total % 10 == 0


_EG_GOVERNORATES = frozenset((*range(1, 5), *range(11, 20), *range(21, 36), 88))


def eg_national_id_ok(candidate: str) -> bool:
    """Egypt's national id: 14 digits, the century (2: 1900s, 3: 2000s), the birth date, the
    governorate's code, then a serial; no public check digit, so the date and the code are
    what is checked."""
    n = _numerals(candidate)
    if len(n) != 14 or n[0] not in "23":
        return False
    month, day = int(n[3:5]), int(n[5:7])
    return 1 <= month <= 12 and 1 <= day <= 31 and int(n[7:9]) in _EG_GOVERNORATES


def vn_citizen_id_ok(candidate: str) -> bool:
    """Viet Nam's citizen id (CCCD): 12 digits, a province's code (001-096), then the century
    and sex (0-3) and the birth year's last two digits; no check digit."""
    n = _numerals(candidate)
    return len(n) == 12 and 1 <= int(n[:3]) <= 96 and n[3] in "0123"


def cnh_ok(candidate: str) -> bool:
    """Brazil's CNH (Carteira Nacional de Habilitação): 11 digits, two MOD 11 checks over the
    first nine (weights 9..1, then 1..9; a first check of 10 or more is 0 and lowers the
    second by 2)."""
    n = [int(ch) for ch in _numerals(candidate)]
    if len(n) != 11 or len(set(n)) == 1:
        return False
    first = sum(d * (9 - i) for i, d in enumerate(n[:9])) % 11
    shift = 0
    if first >= 10:
        first, shift = 0, 2
    second = (sum(d * (1 + i) for i, d in enumerate(n[:9])) % 11 - shift) % 11
    second = 0 if second >= 10 else second
    return first == n[9] and second == n[10]


def cbu_ok(candidate: str) -> bool:
    """Argentina's CBU (or CVU): 22 digits, a block of eight (bank, branch, a check digit)
    and one of fourteen (the account, a check digit), each check's weights 3, 1, 7, 9 from
    the digit before it backwards."""
    n = [int(ch) for ch in _numerals(candidate)]
    if len(n) != 22 or len(set(n)) == 1:
        return False
    weights = (3, 1, 7, 9)

    def check(block: list[int]) -> int:
        total = sum(d * weights[i % 4] for i, d in enumerate(reversed(block)))
        return (10 - total % 10) % 10

    return check(n[:7]) == n[7] and check(n[8:21]) == n[21]


def licence_number_ok(candidate: str) -> bool:
    """A driver's licence number: five digits at least among its letters and digits, not a
    date ("your new driver licence was mailed 2024-05-05")."""
    # (not a masked one: "KA85 2417XXXXXXX")
    return (sum(ch.isdigit() for ch in candidate) >= 5 and _ISO_DATE.fullmatch(candidate) is None
            and "XXX" not in candidate.upper())


_ISO_DATE = re.compile(r"(?:19|20)\d\d-[01]\d-[0-3]\d")


def digit_count_ok(least: int, most: int) -> Callable[[str], bool]:
    """A number named by its document whose check is not public (Nigeria's NIN and BVN, a
    c\u00e9dula): ``least`` to ``most`` digits, not one digit repeated."""

    def ok(candidate: str) -> bool:
        n = _numerals(candidate)
        return least <= len(n) <= most and len(set(n)) > 1

    return ok


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
    return len(n) == 12 and n[0] not in "01" and _verhoeff_ok(n)


def pan_ok(candidate: str) -> bool:
    """India's PAN: five letters (the fourth the holder's type), four digits, a letter; no
    check digit, so only ever after its name."""
    return (len(candidate) == 10 and candidate[:5].isalpha() and candidate[5:9].isdigit()
            and candidate[9].isalpha() and candidate.isascii() and candidate.isupper()
            # (not a form's "AAAPZ0000Z")
            and candidate[3] in "ABCFGHJLPT" and candidate[5:9] != "0000")


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


def rrn_checked_ok(candidate: str) -> bool:
    """:func:`rrn_ok` with the check digit numbers issued before 2020 carry (weights 2 to 9,
    then 2 to 5; eleven less the sum's remainder, its last digit): what a number with no
    name before it must show."""
    n = _numerals(candidate)
    if not rrn_ok(candidate):
        return False
    return (11 - _weighted(n, (2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5)) % 11) % 10 == int(n[12])


# Czech banks' codes (the four digits after an account's "/").
_CZ_BANKS = frozenset(("0100", "0300", "0600", "0710", "0800", "2010", "2060", "2070", "2250",
                       "2700", "3030", "3050", "3060", "4000", "5500", "5800", "6000", "6100",
                       "6210", "6800", "7910", "8040", "8060", "8090", "8150", "8250", "8265"))


def cz_account_ok(candidate: str) -> bool:
    """A Czech domestic account ("2092407690/5500", "19-2000145399/0800"): a known bank's
    code, the number and its prefix each passing their mod-11 check."""
    number, _, bank = candidate.partition("/")
    prefix, _, number = number.rpartition("-")
    weights = (6, 3, 7, 9, 10, 5, 8, 4, 2, 1)
    return (bank in _CZ_BANKS and len(set(number)) > 2
            and _weighted(number.zfill(10), weights) % 11 == 0
            and (not prefix or _weighted(prefix.zfill(10), weights) % 11 == 0))


def kr_licence_ok(candidate: str) -> bool:
    """Korea's driver's licence number ("18-05-242515-41"): a region's code (11 to 28), the
    year, a serial and two check digits; not one digit repeated."""
    n = _numerals(candidate)
    return len(n) == 12 and 11 <= int(n[:2]) <= 28 and len(set(n)) > 2


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
    # (a format's example: "AA 00 00 00 A", "AA 99 99 99 A")
    return (text[2:8] not in ("000000", "999999")
            and prefix[0] not in "DFIQUV" and prefix[1] not in "DFIOQUV"
            and prefix not in ("BG", "GB", "KN", "NK", "NT", "TN", "ZZ"))


def passport_ok(candidate: str) -> bool:
    """A passport's number: 7 to 9 capital letters and digits, at least five of them digits
    or mixed with letters (a word in capitals, "VERIFIED", is none); no check digit outside
    the machine-readable zone, so only ever after its name or in a booking's DOCS element."""
    digits = sum(ch.isdigit() for ch in candidate)
    # (not a mask that keeps the last digits: "XXXXXX910")
    return (7 <= len(candidate) <= 9 and candidate.isascii() and candidate.isalnum()
            and candidate == candidate.upper() and (digits >= 5 or 0 < digits < len(candidate))
            and not candidate.startswith("XXX"))


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
    if int(text[:-1]) >= 50_000_000:
        return False  # a company's (persons' run below 50 million: "SpA (RUT 77.754.014-9)")
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
    return len(n) == 10 and _valid_day(int(n[2:4]), int(n[4:6]) % 60) and luhn_ok(n)


def _leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _real_date(year: int, month: int, day: int) -> bool:
    """A day the calendar has (29 February in leap years only)."""
    if not 1 <= month <= 12 or day < 1:
        return False
    days = 29 if month == 2 and _leap(year) else _DAYS[month - 1]
    return day <= days


_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def sin_ok(candidate: str) -> bool:
    """Canada's Social Insurance Number: 9 digits, not starting 0 or 8, Luhn check digit."""
    n = _numerals(candidate)
    return len(n) == 9 and n[0] not in "08" and luhn_ok(n)


def kvnr_ok(candidate: str) -> bool:
    """Germany's Krankenversichertennummer: a letter and nine digits, the last a check digit
    over the letter's number (A=01 ... Z=26) and the eight digits, weighted 1 and 2 in turn
    (a product's digits summed)."""
    if len(candidate) != 10 or not candidate[0].isascii() or not candidate[0].isalpha():
        return False
    digits_ = candidate[1:]
    if not digits_.isdigit() or not digits_.isascii():
        return False
    n = f"{ord(candidate[0].upper()) - 64:02d}" + digits_[:8]
    total = 0
    for i, d in enumerate(n):
        product = int(d) * (1 if i % 2 == 0 else 2)
        total += product // 10 + product % 10
    return total % 10 == int(digits_[8])


def cns_ok(candidate: str) -> bool:
    """Brazil's Cartão Nacional de Saúde: fifteen digits, the first 1, 2, 7, 8 or 9, whose sum
    weighted 15 down to 1 divides by 11."""
    n = _numerals(candidate)
    return (len(n) == 15 and n[0] in "12789"
            and sum(int(d) * w for d, w in zip(n, range(15, 0, -1), strict=True)) % 11 == 0)


def ihi_ok(candidate: str) -> bool:
    """Australia's Individual Healthcare Identifier: 800360 and ten digits, Luhn-valid."""
    n = _numerals(candidate)
    return len(n) == 16 and n.startswith("800360") and luhn_ok(n)


def nhs_ok(candidate: str) -> bool:
    """The UK's NHS number: 10 digits, the last a MOD 11 check digit."""
    n = _numerals(candidate)
    return len(n) == 10 and sum(i * int(d) for i, d in enumerate(reversed(n), 1)) % 11 == 0


def tfn_ok(candidate: str) -> bool:
    """Australia's Tax File Number: 8 or 9 digits whose weighted sum divides by 11."""
    n = _numerals(candidate)
    weights = (1, 4, 3, 7, 5, 8, 6, 9, 10)
    return (len(n) in (8, 9) and len(set(n)) > 1  # (not a placeholder's zeros)
            and sum(w * int(d) for w, d in zip(weights, n, strict=False)) % 11 == 0)


def crn_ok(candidate: str) -> bool:
    """Australia's Centrelink CRN: nine digits and a letter, not one digit repeated (its
    check letter's scheme is not published)."""
    n = _numerals(candidate)
    return len(n) == 9 and len(set(n)) > 1 and candidate[-1].isalpha()


def member_id_ok(candidate: str) -> bool:
    """A health plan member's id: four digits at least, not a masked one ("XXXXXXX6168")."""
    return sum(ch.isdigit() for ch in candidate) >= 4 and "XXX" not in candidate


def medicare_ok(candidate: str) -> bool:
    """Australia's Medicare card number: 10 digits (and an individual's 11th), the first 2
    to 6, the ninth a weighted check of the eight before it."""
    n = _numerals(candidate)
    if len(n) not in (10, 11) or n[0] not in "23456":
        return False
    weights = (1, 3, 7, 9, 1, 3, 7, 9)
    return sum(w * int(d) for w, d in zip(weights, n, strict=False)) % 10 == int(n[8])


_NRIC_WEIGHTS = (2, 7, 6, 5, 4, 3, 2)
_NRIC_LETTERS = {"S": ("JZIHGFEDCBA", 0), "T": ("JZIHGFEDCBA", 4), "F": ("XWUTRQPNMLK", 0),
                 "G": ("XWUTRQPNMLK", 4), "M": ("XWUTRQPNJLK", 3)}


def nric_ok(candidate: str) -> bool:
    """Singapore's NRIC or FIN: S, T, F, G or M, 7 digits and a check letter."""
    text = candidate.upper()
    if len(text) != 9 or text[0] not in _NRIC_LETTERS or not text[1:8].isdigit():
        return False
    letters, offset = _NRIC_LETTERS[text[0]]
    total = offset + sum(w * int(d) for w, d in zip(_NRIC_WEIGHTS, text[1:8], strict=True))
    return text.isascii() and letters[total % 11] == text[8]


def hkid_ok(candidate: str) -> bool:
    """Hong Kong's identity card number: one or two letters, 6 digits and a check character
    (0-9 or A; written in brackets or not)."""
    text = candidate.upper().replace("(", "").replace(")", "").replace(" ", "")
    head = len(text) - 7
    if head not in (1, 2) or not text[:head].isalpha() or not text[head:-1].isdigit():
        return False
    if not text.isascii():
        return False
    values = [36] * (2 - head) + [ord(ch) - 55 for ch in text[:head]]
    values += [int(d) for d in text[head:-1]]
    check = (11 - sum(v * w for v, w in zip(values, range(9, 1, -1), strict=True)) % 11) % 11
    return text[-1] == ("A" if check == 10 else str(check))


def _mrz_check(field: str) -> str:
    """ICAO 9303's check digit: the field's characters weighted 7, 3, 1 ("<" 0, A 10 ...)."""
    total = 0
    for i, ch in enumerate(field):
        value = 0 if ch == "<" else int(ch) if ch.isdigit() else ord(ch) - 55
        total += value * (7, 3, 1)[i % 3]
    return str(total % 10)


def mrz_ok(candidate: str) -> bool:
    """A passport's machine-readable zone, the second line's first 28 characters: the
    number, nationality, birth date and expiry, their three check digits right."""
    return (len(candidate) == 28 and _mrz_check(candidate[:9]) == candidate[9]
            and _mrz_check(candidate[13:19]) == candidate[19]
            and _mrz_check(candidate[21:27]) == candidate[27])


def pt_nif_ok(candidate: str) -> bool:
    """Portugal's NIF of a person (it starts 1, 2 or 3): nine digits, a mod-11 check digit
    over the others weighted 9 to 2."""
    n = _numerals(candidate)
    if len(n) != 9 or n[0] not in "123":
        return False
    check = 11 - _weighted(n, (9, 8, 7, 6, 5, 4, 3, 2)) % 11
    return (0 if check >= 10 else check) == int(n[8])


def iberian_tax_id_ok(candidate: str) -> bool:
    """A person's tax number in Spain (the DNI or the NIE, with its letter) or Portugal (the
    NIF), as e-invoices carry them."""
    return dni_ok(candidate) or pt_nif_ok(candidate)


def niss_ok(candidate: str) -> bool:
    """Portugal's social security number (NISS): eleven digits, a 1 or a 2 first, the last
    nine less the remainder by ten of the others weighted 29, 23, 19, 17, 13, 11, 7, 5, 3, 2."""
    n = _numerals(candidate)
    if len(n) != 11 or n[0] not in "12":
        return False
    return 9 - _weighted(n, (29, 23, 19, 17, 13, 11, 7, 5, 3, 2)) % 10 == int(n[10])


def nss_ok(candidate: str) -> bool:
    """Mexico's social security number (NSS, IMSS): eleven digits, a Luhn check digit."""
    n = _numerals(candidate)
    return len(n) == 11 and luhn_ok(n)


def ruc_ok(candidate: str) -> bool:
    """Peru's RUC of a person (10, then the DNI): eleven digits, a mod-11 check digit over
    the others weighted 5, 4, 3, 2, 7, 6, 5, 4, 3, 2. A company's (20...) is public."""
    n = _numerals(candidate)
    if len(n) != 11 or not n.startswith("10"):
        return False
    check = 11 - _weighted(n, (5, 4, 3, 2, 7, 6, 5, 4, 3, 2)) % 11
    return check % 10 == int(n[10])


def nis_ok(candidate: str) -> bool:
    """Brazil's NIS/PIS/NIT: eleven digits, a mod-11 check digit over the others weighted
    3, 2, 9, 8, 7, 6, 5, 4, 3, 2 (10 and 11 read as 0)."""
    n = _numerals(candidate)
    if len(n) != 11:
        return False
    check = 11 - _weighted(n, (3, 2, 9, 8, 7, 6, 5, 4, 3, 2)) % 11
    return (0 if check >= 10 else check) == int(n[10])


def titulo_eleitor_ok(candidate: str) -> bool:
    """Brazil's voter card (título de eleitor): eight digits of sequence, a state's code
    (01 to 28) and two mod-11 check digits, the first over the sequence weighted 2 to 9, the
    second over the state's code and the first weighted 7, 8, 9 (10 read as 0; São Paulo's
    and Minas Gerais' 0 read as 1)."""
    n = _numerals(candidate)
    if len(n) != 12 or not 1 <= int(n[8:10]) <= 28:
        return False
    first = _voter_digit(_weighted(n[:8], (2, 3, 4, 5, 6, 7, 8, 9)), n[8:10])
    second = _voter_digit(int(n[8]) * 7 + int(n[9]) * 8 + first * 9, n[8:10])
    return n[10:] == f"{first}{second}"


def _voter_digit(total: int, state: str) -> int:
    rest = total % 11
    return 1 if rest == 0 and state in ("01", "02") else rest % 10


def za_id_ok(candidate: str) -> bool:
    """South Africa's identity number: a birth date, a serial, citizenship (0 or 1), and a
    Luhn check digit."""
    n = _numerals(candidate)
    if len(n) != 13 or n[10] not in "01":
        return False
    year = 2000 + int(n[:2])
    if year > date.today().year:
        year -= 100
    return _real_date(year, int(n[2:4]), int(n[4:6])) and luhn_ok(n)


_CURP_ALPHABET = "0123456789ABCDEFGHIJKLMN&OPQRSTUVWXYZ"
_CURP_STATES = frozenset((
    "AS", "BC", "BS", "CC", "CH", "CL", "CM", "CS", "DF", "DG", "GR", "GT", "HG", "JC", "MC", "MN",
    "MS", "NE", "NL", "NT", "OC", "PL", "QR", "QT", "SL", "SP", "SR", "TC", "TL", "TS", "VZ", "YN",
    "ZS"))


def curp_ok(candidate: str) -> bool:
    """Mexico's CURP: four letters of the name, a birth date, sex, state, three consonants,
    a century character and a check digit."""
    text = candidate.upper()
    if (len(text) != 18 or not text.isascii() or not text[:4].isalpha()
            or not text[4:10].isdigit() or not text[10:16].isalpha()
            or not text[16].isalnum() or not text[17].isdigit()):
        return False
    year = int(text[4:6]) + (1900 if text[16].isdigit() else 2000)
    if text[10] not in "HM" or text[11:13] not in _CURP_STATES:
        return False
    if not _real_date(year, int(text[6:8]), int(text[8:10])):
        return False
    total = sum(_CURP_ALPHABET.index(ch) * (18 - i) for i, ch in enumerate(text[:17]))
    return str((10 - total % 10) % 10) == text[17]


# (50 to 65 since 2011, 70 to 88, 90 to 92 and 94 to 99: the IRS's ranges)
_ITIN_GROUPS = frozenset(range(50, 66)) | frozenset(range(70, 100)) - {89, 93}


def itin_ok(candidate: str) -> bool:
    """The US Individual Taxpayer Identification Number: 9 digits, starting 9, with a group
    (the fourth and fifth) in the ITIN ranges."""
    n = _numerals(candidate)
    return len(n) == 9 and n[0] == "9" and int(n[3:5]) in _ITIN_GROUPS


_HETU_CENTURIES = {"+": 1800, "-": 1900, "Y": 1900, "X": 1900, "W": 1900, "V": 1900,
                   "U": 1900, "A": 2000, "B": 2000, "C": 2000, "D": 2000, "E": 2000, "F": 2000}
_HETU_CHECKS = "0123456789ABCDEFHJKLMNPRSTUVWXY"


def hetu_ok(candidate: str) -> bool:
    """Finland's personal identity code (henkilötunnus): a birth date, a century sign, an
    individual number (002-899) and a MOD 31 check character."""
    text = candidate.upper()
    if (len(text) != 11 or not text.isascii() or not text[:6].isdigit()
            or text[6] not in _HETU_CENTURIES or not text[7:10].isdigit()):
        return False
    year = _HETU_CENTURIES[text[6]] + int(text[4:6])
    if not _real_date(year, int(text[2:4]), int(text[:2])) or not 2 <= int(text[7:10]) <= 899:
        return False
    return _HETU_CHECKS[int(text[:6] + text[7:10]) % 31] == text[10]


def fodselsnummer_ok(candidate: str) -> bool:
    """Norway's fødselsnummer (and D- and H-numbers): a birth date, an individual number
    that tells the century, and two MOD 11 check digits."""
    n = _numerals(candidate)
    if len(n) != 11:
        return False
    for weights, at in (((3, 7, 6, 1, 8, 9, 4, 5, 2), 9), ((5, 4, 3, 2, 7, 6, 5, 4, 3, 2), 10)):
        check = (11 - sum(w * int(d) for w, d in zip(weights, n, strict=False))) % 11
        if check == 10 or check != int(n[at]):
            return False
    day, month, year, individual = int(n[:2]), int(n[2:4]), int(n[4:6]), int(n[6:9])
    if day >= 80:
        return False  # an FH-number: no birth date by design
    day, month = day - 40 if day > 40 else day, month - 40 if month > 40 else month
    if individual < 500:
        year += 1900
    elif individual < 750 and year >= 54:
        year += 1800
    elif year < 40:
        year += 2000
    elif individual >= 900:
        year += 1900
    else:
        return False
    return _real_date(year, month, day) and date(year, month, day) <= date.today()


def cpr_ok(candidate: str) -> bool:
    """Denmark's CPR number: a birth date and four digits, the first of which tells the
    century (no check digit since 2007: the date is the shape)."""
    n = _numerals(candidate)
    if len(n) != 10:
        return False
    year = int(n[4:6])
    if n[6] in "5678" and year >= 58:
        year += 1800
    elif n[6] in "0123" or (n[6] in "49" and year >= 37):
        year += 1900
    else:
        year += 2000
    return (_real_date(year, int(n[2:4]), int(n[:2]))
            and date(year, int(n[2:4]), int(n[:2])) <= date.today())


def thai_id_ok(candidate: str) -> bool:
    """Thailand's personal identification number: 13 digits, not starting 0 or 9, MOD 11
    check digit."""
    n = _numerals(candidate)
    return len(n) == 13 and n[0] not in "09" and _thai_check_ok(n)


def _thai_check_ok(n: str) -> bool:
    """A Thai identification number's MOD 11 check digit (``n``: its 13 digits)."""
    total = sum((13 - i) * int(d) for i, d in enumerate(n[:12]))
    return (11 - total % 11) % 10 == int(n[12])


def cuit_ok(candidate: str) -> bool:
    """Argentina's CUIT/CUIL: a type (20, 23, 24, 27 for people), the DNI, a MOD 11 check."""
    n = _numerals(candidate)
    if len(n) != 11 or n[:2] not in ("20", "23", "24", "27", "30", "33", "34", "50", "51", "55"):
        return False
    weights = (5, 4, 3, 2, 7, 6, 5, 4, 3, 2)
    total = sum(w * int(d) for w, d in zip(weights, n, strict=False))
    return "012345678990"[11 - total % 11] == n[10]


def cuil_ok(candidate: str) -> bool:
    """A person's CUIL or CUIT (types 20, 23, 24, 27): a company's (30, 33, 34) is public."""
    n = _numerals(candidate)
    return n[:2] in ("20", "23", "24", "27") and cuit_ok(n)


_MYKAD_PLACES = frozenset(list(range(1, 17)) + list(range(21, 60)) + list(range(60, 69))
                          + [71, 72] + list(range(74, 80)) + list(range(82, 94)) + [98, 99])


def mykad_ok(candidate: str) -> bool:
    """Malaysia's MyKad number: a birth date (YYMMDD), a place of birth's code (a state's or a
    country's), a serial; no check digit."""
    n = _numerals(candidate)
    if len(n) != 12 or int(n[6:8]) not in _MYKAD_PLACES:
        return False
    month, day = int(n[2:4]), int(n[4:6])
    return _real_date(2000 + int(n[:2]), month, day) or _real_date(1900 + int(n[:2]), month, day)


def afm_ok(candidate: str) -> bool:
    """Greece's tax number (ΑΦΜ): 9 digits, the last the first eight weighted by powers of
    two, mod 11, mod 10."""
    n = _numerals(candidate)
    if len(n) != 9 or len(set(n)) == 1:
        return False
    return sum(int(d) << (8 - i) for i, d in enumerate(n[:8])) % 11 % 10 == int(n[8])


def amka_ok(candidate: str) -> bool:
    """Greece's social security number (ΑΜΚΑ): the birth date (DDMMYY), four digits and a
    Luhn check digit."""
    n = _numerals(candidate)
    return len(n) == 11 and _valid_day(int(n[2:4]), int(n[:2])) and luhn_ok(n)


def pt_cc_ok(candidate: str) -> bool:
    """Portugal's Cartão de Cidadão's number: the civil id (8 digits) and its check digit,
    the card's version (two letters or digits) and a check digit over all twelve (Luhn's
    doubling, letters read as 10 to 35)."""
    text = candidate.replace(" ", "").replace("-", "").upper()
    if len(text) != 12 or not text[:9].isdigit() or not text[9:].isalnum() or not text.isascii():
        return False
    total = 0
    for i, ch in enumerate(reversed(text)):
        value = int(ch, 36)
        if i % 2:
            value = value * 2 - 9 if value * 2 > 9 else value * 2
        total += value
    return total % 10 == 0


def pl_id_card_ok(candidate: str) -> bool:
    """Poland's identity card (dowód osobisty): three letters, six digits, the first of
    them a check digit (weights 7 3 1 . 7 3 1 7 3, letters read as 10 to 35)."""
    text = candidate.replace(" ", "").upper()
    if (len(text) != 9 or not text.isascii() or not text[:3].isalpha()
            or not text[3:].isdigit()):
        return False
    weights = (7, 3, 1, 0, 7, 3, 1, 7, 3)
    return sum(int(ch, 36) * w for ch, w in zip(text, weights, strict=True)) % 10 == int(text[3])


def kra_pin_ok(candidate: str) -> bool:
    """Kenya's KRA PIN of a person: "A", nine digits (not a form's zeros), a letter."""
    return (len(candidate) == 11 and candidate[0] == "A" and candidate[1:10].isdigit()
            and candidate[10].isalpha() and candidate.isascii() and candidate.isupper()
            and candidate[1:10].strip("0") != "")


def teudat_zehut_ok(candidate: str) -> bool:
    """Israel's identity number (teudat zehut): up to 9 digits, Luhn check digit."""
    n = _numerals(candidate)
    return 0 < len(n) <= 9 and int(n) > 0 and luhn_ok(n.zfill(9))


_CNP_COUNTIES = frozenset([f"{c:02d}" for c in range(1, 49)] + ["51", "52", "70", "80", "81",
                                                                 "82", "83"])


def cnp_ok(candidate: str) -> bool:
    """Romania's CNP: sex and century, a birth date, a county, a serial, a MOD 11 check."""
    n = _numerals(candidate)
    if len(n) != 13 or n[0] == "0" or n[7:9] not in _CNP_COUNTIES:
        return False
    year = int(n[1:3]) + {"3": 1800, "4": 1800, "5": 2000, "6": 2000}.get(n[0], 1900)
    if not _real_date(year, int(n[3:5]), int(n[5:7])):
        return False
    weights = (2, 7, 9, 1, 4, 6, 3, 5, 8, 2, 7, 9)
    check = sum(w * int(d) for w, d in zip(weights, n, strict=False)) % 11
    return ("1" if check == 10 else str(check)) == n[12]


_PPS_LETTERS = "WABCDEFGHIJKLMNOPQRSTUV"


def pps_ok(candidate: str) -> bool:
    """Ireland's PPS number: 7 digits, a check letter, and (since 2013) a second letter."""
    text = candidate.upper().replace(" ", "")
    if (len(text) not in (8, 9) or not text.isascii() or not text[:7].isdigit()
            or not "A" <= text[7] <= "W" or (len(text) == 9 and text[8] not in "ABHWTX")):
        return False
    extra = _PPS_LETTERS.index(text[8]) if len(text) == 9 and text[8] in "ABH" else 0
    total = sum((8 - i) * int(d) for i, d in enumerate(text[:7])) + 9 * extra
    return _PPS_LETTERS[total % 23] == text[7]


def ird_ok(candidate: str) -> bool:
    """New Zealand's IRD number: 8 or 9 digits in the issued range, MOD 11 check digit (a
    second set of weights where the first gives 10)."""
    n = _numerals(candidate)
    if len(n) not in (8, 9) or not 10_000_000 < int(n) < 150_000_000:
        return False
    body = n[:-1].zfill(8)
    for weights in ((3, 2, 7, 6, 5, 4, 3, 2), (7, 4, 3, 2, 5, 2, 7, 6)):
        check = -sum(w * int(d) for w, d in zip(weights, body, strict=True)) % 11
        if check != 10:
            return check == int(n[-1])
    return False


# --- Central and Eastern Europe, the Baltics, the Balkans and Central Asia -----------------

def snils_ok(candidate: str) -> bool:
    """Russia's SNILS: eleven digits, the last two a check over the nine weighted 9 to 1
    (mod 101, 100 read as 0)."""
    n = _numerals(candidate)
    if len(n) != 11 or int(n[:9]) <= 1001998:
        return False
    total = _weighted(n, (9, 8, 7, 6, 5, 4, 3, 2, 1)) % 101
    return (0 if total == 100 else total) == int(n[9:])


def inn_ok(candidate: str) -> bool:
    """Russia's INN: a person's twelve digits with two check digits, or an organisation's
    ten with one (weights 7, 2, 4, 10, 3, 5, 9, 4, 6, 8 and their shifts, mod 11 mod 10)."""
    n = _numerals(candidate)
    w = (3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8)
    if len(n) == 10:
        return _weighted(n, w[2:]) % 11 % 10 == int(n[9])
    return (len(n) == 12 and _weighted(n, w[1:]) % 11 % 10 == int(n[10])
            and _weighted(n, w) % 11 % 10 == int(n[11]))


def person_inn_ok(candidate: str) -> bool:
    """A person's number under "ИНН": Russia's twelve digits, or Ukraine's ten (an RNOKPP) that
    is not a Russian organisation's INN, whose ten digits are on its every invoice."""
    n = _numerals(candidate)
    if len(n) == 12:
        return inn_ok(n)
    return len(n) == 10 and rnokpp_ok(n) and not inn_ok(n)


def unzr_ok(candidate: str) -> bool:
    """Ukraine's UNZR: a birth date (YYYYMMDD), "-", four digits and a check digit over the
    twelve before it weighted 7, 3, 1 (mod 10)."""
    n = _numerals(candidate)
    return (len(n) == 13 and "1900" <= n[:4] <= "2099" and _valid_day(int(n[4:6]), int(n[6:8]))
            and _weighted(n, (7, 3, 1) * 4) % 10 == int(n[12]))


def rnokpp_ok(candidate: str) -> bool:
    """Ukraine's RNOKPP (the taxpayer's card number): ten digits, the first five the days
    since 1899-12-31, a check digit over the others weighted -1, 5, 7, 9, 4, 6, 10, 5, 7."""
    n = _numerals(candidate)
    return (len(n) == 10 and len(set(n)) > 1
            and _weighted(n, (-1, 5, 7, 9, 4, 6, 10, 5, 7)) % 11 % 10 == int(n[9]))


def _two_pass_mod11(n: str, first: tuple[int, ...], second: tuple[int, ...]) -> int:
    """A mod-11 check digit that, where the first weights give 10, takes the second's."""
    check = _weighted(n, first) % 11
    if check == 10:
        check = _weighted(n, second) % 11
    return check


def iin_ok(candidate: str) -> bool:
    """Kazakhstan's IIN: a birth date, a century and sex digit, a serial, a check digit
    (two passes of weights, mod 11)."""
    n = _numerals(candidate)
    if len(n) != 12 or n[6] not in "0123456" or not _valid_day(int(n[2:4]), int(n[4:6])):
        return False
    check = _two_pass_mod11(n, (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11),
                            (3, 4, 5, 6, 7, 8, 9, 10, 11, 1, 2))
    return check != 10 and check == int(n[11])


def baltic_code_ok(candidate: str) -> bool:
    """Estonia's isikukood and Lithuania's asmens kodas: a century and sex digit, a birth
    date, a serial, a check digit (two passes of weights, mod 11, 10 read as 0)."""
    n = _numerals(candidate)
    if len(n) != 11 or n[0] not in "123456" or not _valid_day(int(n[3:5]), int(n[5:7])):
        return False
    check = _two_pass_mod11(n, (1, 2, 3, 4, 5, 6, 7, 8, 9, 1), (3, 4, 5, 6, 7, 8, 9, 1, 2, 3))
    return (0 if check == 10 else check) == int(n[10])


def personas_kods_ok(candidate: str) -> bool:
    """Latvia's personas kods: a birth date, a century digit and a serial, a check digit
    ((1101 - weighted sum) mod 11); or since 2017 one starting 32, with no date."""
    n = _numerals(candidate)
    if len(n) != 11:
        return False
    if n.startswith("32"):
        return True
    check = (1101 - _weighted(n, (1, 6, 3, 7, 9, 10, 5, 8, 4, 2))) % 11
    return _valid_day(int(n[2:4]), int(n[:2])) and check == int(n[10])


def co_nit_ok(candidate: str) -> bool:
    """Colombia's NIT with its check digit (DV) after a dash: up to fifteen digits weighted by
    primes from the right (3, 7, 13, 17, 19, ...), the DIAN's modulo 11."""
    number, dash, check = candidate.replace(".", "").replace(" ", "").rpartition("-")
    if not dash or not number.isdigit() or not check.isdigit() or not 6 <= len(number) <= 15:
        return False
    if not co_person_nit_ok(number):
        return False
    total = sum(int(d) * w for d, w in zip(reversed(number), _NIT_WEIGHTS[:len(number)],
                                           strict=True))
    rest = total % 11
    return (11 - rest if rest > 1 else rest) == int(check)


_NIT_WEIGHTS = (3, 7, 13, 17, 19, 23, 29, 37, 41, 43, 47, 53, 59, 67, 71)


def co_person_nit_ok(number: str) -> bool:
    """A Colombian NIT's digits that are a person's (a cédula's), not a company's nine digits
    from 800.000.000 up: a company's is no one's data."""
    return not (len(number) == 9 and number[0] in "89")


def egn_ok(candidate: str) -> bool:
    """Bulgaria's EGN: a birth date (the month plus 20 before 1900, plus 40 after 1999), a
    serial, a check digit over the others weighted 2, 4, 8, 5, 10, 9, 7, 3, 6."""
    n = _numerals(candidate)
    if len(n) != 10 or not _valid_day(int(n[2:4]) % 20, int(n[4:6])) or int(n[2:4]) > 52:
        return False
    return _weighted(n, (2, 4, 8, 5, 10, 9, 7, 3, 6)) % 11 % 10 == int(n[9])


def oib_ok(candidate: str) -> bool:
    """Croatia's OIB: eleven digits, ISO 7064's MOD 11,10 check digit."""
    n = _numerals(candidate)
    if len(n) != 11 or len(set(n)) == 1:
        return False
    product = 10
    for d in n[:10]:
        total = (product + int(d)) % 10 or 10
        product = total * 2 % 11
    return (11 - product) % 10 == int(n[10])


def jmbg_ok(candidate: str) -> bool:
    """The former Yugoslavia's JMBG (Serbia, Bosnia, Montenegro, North Macedonia; Slovenia's
    EMŠO): a birth date (a three-digit year), a region, a serial, a mod-11 check digit."""
    n = _numerals(candidate)
    if len(n) != 13 or not _valid_day(int(n[2:4]), int(n[:2])) or n[4] not in "09":
        return False
    check = 11 - _weighted(n, (7, 6, 5, 4, 3, 2, 7, 6, 5, 4, 3, 2)) % 11
    return (0 if check > 9 else check) == int(n[12])


def rodne_cislo_ok(candidate: str) -> bool:
    """Czechia's and Slovakia's rodné číslo: a birth date (women's month plus 50, later ones
    plus 20), "/", a serial; ten digits divisible by 11 (or, rarely, remainder 10 and a
    last 0), nine before 1954."""
    n = _numerals(candidate)
    month = int(n[2:4]) % 50 if len(n) >= 4 else 0
    if month > 20:
        month -= 20
    if len(n) not in (9, 10) or not _valid_day(month, int(n[4:6])):
        return False
    if len(n) == 9:
        return int(n[:2]) < 54
    return int(n) % 11 == 0 or (int(n[:9]) % 11 == 10 and n[9] == "0")


def hu_tax_id_ok(candidate: str) -> bool:
    """Hungary's adóazonosító jel: ten digits starting 8, a check digit over the nine weighted
    1 to 9 (mod 11)."""
    n = _numerals(candidate)
    return (len(n) == 10 and n[0] == "8"
            and _weighted(n, (1, 2, 3, 4, 5, 6, 7, 8, 9)) % 11 == int(n[9]))


def taj_ok(candidate: str) -> bool:
    """Hungary's TAJ (social security) number: nine digits, a check over eight weighted
    3, 7 (mod 10)."""
    n = _numerals(candidate)
    return len(n) == 9 and _weighted(n, (3, 7, 3, 7, 3, 7, 3, 7)) % 10 == int(n[8])


def si_tax_ok(candidate: str) -> bool:
    """Slovenia's davčna številka: eight digits, a mod-11 check over seven weighted 8 to 2."""
    n = _numerals(candidate)
    if len(n) != 8 or n[0] == "0":
        return False
    check = 11 - _weighted(n, (8, 7, 6, 5, 4, 3, 2)) % 11
    return check != 11 and check % 10 == int(n[7])


def lnch_ok(candidate: str) -> bool:
    """Bulgaria's LNCh (a foreigner's number): ten digits, a check over nine weighted 21, 19,
    17, 13, 11, 9, 7, 3, 1 (mod 10)."""
    n = _numerals(candidate)
    return len(n) == 10 and _weighted(n, (21, 19, 17, 13, 11, 9, 7, 3, 1)) % 10 == int(n[9])


def idnp_ok(candidate: str) -> bool:
    """Moldova's IDNP: thirteen digits starting 0 or 2, a check over twelve weighted 7, 3, 1."""
    n = _numerals(candidate)
    return (len(n) == 13 and n[0] in "02"
            and _weighted(n, (7, 3, 1) * 4) % 10 == int(n[12]))


def _verhoeff_ok(n: str) -> bool:
    check = 0
    for i, ch in enumerate(reversed(n)):
        check = _VERHOEFF_D[check][_VERHOEFF_P[i % 8][int(ch)]]
    return check == 0


def cnic_ok(candidate: str) -> bool:
    """Pakistan's CNIC: 13 digits (5-7-1 as the card writes them), the first the province's
    (1 to 7), the last the holder's sex (odd or even, not 0); no public check digit."""
    return cnic_named_ok(candidate) and _numerals(candidate)[12] != "0"


def dui_ok(candidate: str) -> bool:
    """El Salvador's DUI: eight digits, then a check digit over them weighted 9 to 2 (the
    sum's complement to ten)."""
    n = _numerals(candidate)
    return (len(n) == 9 and len(set(n)) > 2
            and (10 - _weighted(n, (9, 8, 7, 6, 5, 4, 3, 2)) % 10) % 10 == int(n[8]))


def ec_cedula_ok(candidate: str) -> bool:
    """Ecuador's cédula: a province (01 to 24, or 30), a third digit below 6, and a check
    digit over nine weighted 2, 1 (products past 9 less 9; the sum's complement to ten)."""
    n = _numerals(candidate)
    if len(n) != 10 or not (1 <= int(n[:2]) <= 24 or n[:2] == "30") or n[2] > "5":
        return False
    total = sum(d - 9 if d > 9 else d
                for d in (int(ch) * (2 - i % 2) for i, ch in enumerate(n[:9])))
    return (10 - total % 10) % 10 == int(n[9])


def ec_ruc_ok(candidate: str) -> bool:
    """Ecuador's RUC of a person: the holder's cédula and 001."""
    n = _numerals(candidate)
    return len(n) == 13 and n.endswith("001") and ec_cedula_ok(n[:10])


def py_ruc_ok(candidate: str) -> bool:
    """Paraguay's RUC of a person (below 80 million: a company's from there), "-", a check
    digit by 11 over the number weighted 2, 3, 4 ... from the right."""
    number, _, check = candidate.replace(".", "").partition("-")
    if not (number.isdigit() and check.isdigit() and len(check) == 1 and 5 <= len(number) <= 8
            and int(number) < 80_000_000):
        return False
    rest = sum(int(d) * k for k, d in enumerate(reversed(number), 2)) % 11
    return (11 - rest if rest > 1 else 0) == int(check)


def gt_nit_ok(candidate: str) -> bool:
    """Guatemala's NIT: digits, then a check by 11 over them weighted from their count plus one
    down to 2 (10 written K)."""
    text = candidate.replace("-", "").upper()
    number, check = text[:-1], text[-1]
    if not (number.isdigit() and 5 <= len(number) <= 12) or len(set(number)) < 3:
        return False
    total = sum(int(d) * (len(number) + 1 - i) for i, d in enumerate(number))
    value = (11 - total % 11) % 11
    return check == ("K" if value == 10 else str(value))


def ni_cedula_ok(candidate: str) -> bool:
    """Nicaragua's cédula: a municipality's three digits, the birth date (DDMMYY), four digits
    and a letter (3-6-4 and the letter, as the card prints it, or run together)."""
    text = candidate.replace("-", "").upper()
    if len(text) != 14 or not text[:13].isdigit() or not text[13].isalpha():
        return False
    return _valid_day(int(text[5:7]), int(text[3:5]))


def cnic_named_ok(candidate: str) -> bool:
    """A CNIC after its name: 13 digits, the first the province's (1 to 7), the last any (the
    name tells it; alone, :func:`cnic_ok` asks more)."""
    n = _numerals(candidate)
    return len(n) == 13 and n[0] in "1234567" and len(set(n)) > 2


def fr_spi_ok(candidate: str) -> bool:
    """France's tax number (numéro fiscal, SPI): thirteen digits, the first 0 to 3, the last
    three the first ten's remainder by 511."""
    n = _numerals(candidate)
    return len(n) == 13 and n[0] in "0123" and int(n[:10]) % 511 == int(n[10:])


def lk_nic_ok(candidate: str) -> bool:
    """Sri Lanka's NIC: the old nine digits and V or X, or the new twelve; the birth year and
    the day of the year in it (a woman's plus 500)."""
    text = candidate.upper()
    if len(text) == 10 and text[:9].isdigit() and text[9] in "VX" and text.isascii():
        if text[9] == "X" and _weighted(text[:9], (10, 9, 8, 7, 6, 5, 4, 3, 2)) % 11 == 1:
            return False  # a book's ISBN-10 whose check digit is X (10), as a catalogue lists it
        days = int(text[2:5])
    elif len(text) == 12 and text.isdigit() and text.isascii() and text[:2] in ("19", "20"):
        days = int(text[4:7])
    else:
        return False
    return 1 <= days <= 366 or 501 <= days <= 866


def kw_civil_id_ok(candidate: str) -> bool:
    """Kuwait's civil id: the century (2: the 1900s, 3: the 2000s), the birth date, four
    digits and a check digit by 11."""
    n = _numerals(candidate)
    if len(n) != 12 or n[0] not in "23" or not _valid_day(int(n[3:5]), int(n[5:7])):
        return False
    check = 11 - _weighted(n, (2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)) % 11
    return check < 10 and check == int(n[11])


def at_svnr_ok(candidate: str) -> bool:
    """Austria's social insurance number: three digits, a check digit by 11, the birth date
    (DDMMYY)."""
    n = _numerals(candidate)
    if len(n) != 10 or n[0] == "0":
        return False
    check = _weighted(n, (3, 7, 9, 0, 5, 8, 4, 2, 1, 6)) % 11
    return check < 10 and check == int(n[3]) and 1 <= int(n[6:8]) <= 12


def de_rvnr_ok(candidate: str) -> bool:
    """Germany's pension insurance number (the SV-Nummer): an area, the birth date (DDMMYY),
    the birth name's initial, a serial and a check digit (the initial read as its place in
    the alphabet, weighted 2 1 2 5 7 1 2 1 2 1 2 1, the products' digit sums, modulo 10)."""
    text = candidate.replace(" ", "").upper()
    if (len(text) != 12 or not text.isascii() or not text[:8].isdigit()
            or not text[8].isalpha() or not text[9:].isdigit()
            or not _valid_day(int(text[4:6]), int(text[2:4]))):
        return False
    n = text[:8] + f"{ord(text[8]) - 64:02d}" + text[9:11]
    total = sum(sum(divmod(int(d) * w, 10))
                for d, w in zip(n, (2, 1, 2, 5, 7, 1, 2, 1, 2, 1, 2, 1), strict=True))
    return total % 10 == int(text[11])


# The SAT's alphabet for the RFC's check digit: each character's value is its place.
_RFC_ALPHABET = "0123456789ABCDEFGHIJKLMN&OPQRSTUVWXYZ \u00d1"


def mx_rfc_ok(candidate: str) -> bool:
    """Mexico's RFC of a person: four letters, the birth date (YYMMDD), a two-character
    homoclave and a check digit (the twelve before it read in the SAT's alphabet, weighted
    13 down to 2, modulo 11; 10 is "A"). Not the generic RFCs of the public and of
    foreigners, on every such invoice."""
    text = candidate.upper()
    if (len(text) != 13 or not text[4:10].isdigit() or text in _GENERIC_RFCS
            or not _valid_day(int(text[6:8]), int(text[8:10]))):
        return False
    values = [_RFC_ALPHABET.find(ch) for ch in text[:12]]
    if min(values) < 0:
        return False
    check = (11 - sum(value * (13 - i) for i, value in enumerate(values)) % 11) % 11
    return text[12] == ("A" if check == 10 else str(check))


_GENERIC_RFCS = frozenset(("XAXX010101000", "XEXX010101000"))


_DE_ID_CARD = "0123456789CFGHJKLMNPRTVWXYZ"


def de_id_card_ok(candidate: str) -> bool:
    """A German identity card's (Personalausweis) number: nine characters of its alphabet
    (no vowels), then a check digit (weights 7 3 1, letters read as 10 to 35)."""
    text = candidate.upper()
    if (len(text) != 10 or any(ch not in _DE_ID_CARD for ch in text[:9])
            or not text[9].isdigit() or not any(ch.isalpha() for ch in text)):
        return False
    values = [int(ch, 36) for ch in text[:9]]
    return sum(v * w for v, w in zip(values, (7, 3, 1) * 3, strict=True)) % 10 == int(text[9])


def kennitala_ok(candidate: str) -> bool:
    """Iceland's kennitala of a person: the birth date (DDMMYY; a company's day is plus 40),
    two digits, a check digit by 11 and the century (9, 0 or 8)."""
    n = _numerals(candidate)
    if len(n) != 10 or n[9] not in "908" or not _valid_day(int(n[2:4]), int(n[:2])):
        return False
    check = 11 - _weighted(n, (3, 2, 7, 6, 5, 4, 3, 2)) % 11
    return (0 if check == 11 else check) == int(n[8])


def lu_matricule_ok(candidate: str) -> bool:
    """Luxembourg's national identification number: the birth date (YYYYMMDD), a serial and
    two check digits, Luhn's and Verhoeff's over the eleven before them."""
    n = _numerals(candidate)
    return (len(n) == 13 and _real_date(int(n[:4]), int(n[4:6]), int(n[6:8]))
            and luhn_ok(n[:12]) and _verhoeff_ok(n[:11] + n[12]))


def ahv_ok(candidate: str) -> bool:
    """Switzerland's AHV/AVS number: 756, nine digits and an EAN-13 check digit."""
    n = _numerals(candidate)
    return n.startswith("756") and ean13_ok(n)


def ph_tin_ok(candidate: str) -> bool:
    """The Philippines' TIN as it is written: nine digits in threes, and a branch code of
    three to five (no public check digit: the dashes are the shape)."""
    parts = candidate.split("-")
    return (len(parts) in (3, 4) and all(p.isdigit() and p.isascii() for p in parts)
            and [len(p) for p in parts[:3]] == [3, 3, 3]
            and (len(parts) == 3 or 3 <= len(parts[3]) <= 5))


def ph_sss_ok(candidate: str) -> bool:
    """The Philippines' SSS number as it is written: 2-7-1 digits (no public check)."""
    parts = candidate.split("-")
    return ([len(p) for p in parts] == [2, 7, 1]
            and all(p.isdigit() and p.isascii() for p in parts))


def npwp_ok(candidate: str) -> bool:
    """Indonesia's NPWP of a person: fifteen digits (not 01 to 03, a company's), the ninth a
    Luhn check digit over the first eight."""
    n = _numerals(candidate)
    return (len(n) == 15 and n[:2] not in ("00", "01", "02", "03") and len(set(n)) > 2
            and luhn_ok(n[:9]))


def na_id_ok(candidate: str) -> bool:
    """Namibia's id: eleven digits, a birth date (YYMMDD) first, no public check digit."""
    n = _numerals(candidate)
    return len(n) == 11 and _valid_day(int(n[2:4]), int(n[4:6]))


def nida_ok(candidate: str) -> bool:
    """Tanzania's NIDA number: a birth date (YYYYMMDD), then twelve digits."""
    n = _numerals(candidate)
    return len(n) == 20 and _valid_day(int(n[4:6]), int(n[6:8]))


def qid_ok(candidate: str) -> bool:
    """Qatar's QID: eleven digits, the century (2: the 1900s, 3: the 2000s) and the birth
    year's last two digits first (no public check digit)."""
    n = _numerals(candidate)
    return len(n) == 11 and n[0] in "23" and len(set(n)) > 2


def ohip_ok(candidate: str) -> bool:
    """Ontario's health card number: ten digits, the last a Luhn check digit."""
    n = _numerals(candidate)
    return len(n) == 10 and n[0] != "0" and luhn_ok(n)


def bc_phn_ok(candidate: str) -> bool:
    """British Columbia's Personal Health Number: 9, eight digits weighted 2 4 8 5 10 9 7 3
    (each product's remainder by 11 summed), and a check digit, 11 less the sum's remainder
    (0 for none)."""
    n = _numerals(candidate)
    if len(n) != 10 or n[0] != "9":
        return False
    total = sum(int(d) * w % 11 for d, w in zip(n[1:9], (2, 4, 8, 5, 10, 9, 7, 3), strict=True))
    check = (11 - total % 11) % 11
    return check < 10 and check == int(n[9])


def chi_ok(candidate: str) -> bool:
    """Scotland's CHI number: the birth date (DDMMYY), three digits and the NHS number's
    check digit by 11."""
    n = _numerals(candidate)
    return len(n) == 10 and _valid_day(int(n[2:4]), int(n[:2])) and nhs_ok(n)


def utr_ok(candidate: str) -> bool:
    """The UK's Unique Taxpayer Reference: ten digits, the first a check digit over the nine
    after it (weights 6 7 8 9 10 5 4 3 2)."""
    n = _numerals(candidate)
    return (len(n) == 10
            and "21987654321"[_weighted(n[1:], (6, 7, 8, 9, 10, 5, 4, 3, 2)) % 11] == n[0])


_NHI_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"  # (no I or O)


def nhi_ok(candidate: str) -> bool:
    """New Zealand's NHI number: three letters and four digits, the last a check by 11
    (AAA9999), or two digits, a letter and a check letter by 23 (AAA99AA)."""
    text = candidate.upper()
    if (len(text) != 7 or not all(ch in _NHI_LETTERS for ch in text[:3])
            or not text[3:5].isdigit() or not text.isascii()):
        return False
    values = [_NHI_LETTERS.index(ch) + 1 if ch.isalpha() else int(ch) for ch in text[:6]
              if ch.isdigit() or ch in _NHI_LETTERS]
    if len(values) != 6:
        return False
    total = sum(v * w for v, w in zip(values, (7, 6, 5, 4, 3, 2), strict=True))
    if text[5:].isdigit():  # the first format
        return total % 11 != 0 and (11 - total % 11) % 10 == int(text[6])
    check = 23 - total % 23
    return text[5] in _NHI_LETTERS and check <= 24 and _NHI_LETTERS[check - 1] == text[6]


def dvla_ok(candidate: str) -> bool:
    """A British driving licence number: five letters of the surname (9s pad it), the birth
    decade's digit, the month (plus 50 for a woman), the day, the year's digit, two initials,
    a digit and two check letters."""
    text = candidate.upper()
    if len(text) != 16 or not text[5:11].isdigit():
        return False
    month, day = int(text[6:8]), int(text[8:10])
    return (1 <= month <= 12 or 51 <= month <= 62) and 1 <= day <= 31


_NZ_BANKS = frozenset(("01", "02", "03", "04", "06", "08", "09", "10", "11", "12", "13", "14",
                       "15", "16", "17", "18", "19", "20", "21", "22", "23", "24", "25", "26",
                       "27", "28", "29", "30", "31", "33", "35", "38"))


def nz_account_ok(candidate: str) -> bool:
    """A New Zealand bank account number (bank, branch, account, suffix): a bank's code."""
    return candidate[:2] in _NZ_BANKS


def person_pan_ok(candidate: str) -> bool:
    """India's PAN of a person (its fourth letter P); a company's (C), a firm's (F), a
    trust's (T) are on their every invoice."""
    return pan_ok(candidate) and candidate[3] == "P"


def person_gstin_ok(candidate: str) -> bool:
    """India's GSTIN of a sole proprietor: its check character right (Luhn's mod 36) and,
    inside it, the PAN of a person (a firm's GSTIN is on its every invoice)."""
    if len(candidate) != 15 or any(ch not in _BASE36 for ch in candidate):
        return False
    total = 0
    for i, ch in enumerate(candidate[:14]):
        product = _BASE36.index(ch) * (2 if i % 2 else 1)
        total += product // 36 + product % 36
    return (_BASE36[(36 - total % 36) % 36] == candidate[14]
            and person_pan_ok(candidate[2:12]))


_BASE36 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def mn_register_ok(candidate: str) -> bool:
    """Mongolia's register number: two letters, then the birth date (YYMMDD, the month plus
    20 from 2000) and two digits."""
    month, day = int(candidate[4:6]), int(candidate[6:8])
    return (1 <= month <= 12 or 21 <= month <= 32) and 1 <= day <= 31


# (and Central Europe's: Slovenia's tax number, Hungary's TAJ and tax id, Czechia's and
# Slovakia's birth number, Croatia's OIB; Kazakhstan's IIN)
_DIGIT_CHECKS: dict[int, tuple[Callable[[str], bool], ...]] = {
    8: (tfn_ok, ird_ok, si_tax_ok),
    9: (bsn_ok, sin_ok, tfn_ok, ird_ok, teudat_zehut_ok, itin_ok, afm_ok, pt_nif_ok, taj_ok),
    10: (personnummer_ok, nhs_ok, medicare_ok, cpr_ok, hetu_ok, sa_id_ok, melli_ok, at_svnr_ok,
         kennitala_ok, ph_sss_ok, egn_ok, rodne_cislo_ok, hu_tax_id_ok),
    11: (steuer_id_ok, pesel_ok, tc_kimlik_ok, cpf_ok, be_national_number_ok, cuil_ok,
         fodselsnummer_ok, medicare_ok, qid_ok, amka_ok, niss_ok, oib_ok, baltic_code_ok,
         personas_kods_ok),
    12: (aadhaar_ok, my_number_ok, personnummer_ok, mykad_ok, vn_citizen_id_ok, kw_civil_id_ok,
         lk_nic_ok, ph_tin_ok, naf_ok, iin_ok),
    13: (rrn_ok, za_id_ok, thai_id_ok, cnp_ok, cnic_ok, lu_matricule_ok, ahv_ok, jmbg_ok,
         idnp_ok),
    14: (eg_national_id_ok,),
    15: (nir_ok, emirates_id_ok, cns_ok),
    16: (nik_ok,),
    18: (cn_resident_id_ok,),
}
_SHAPE_CHECKS: tuple[Callable[[str], bool], ...] = (
    dni_ok, codice_fiscale_ok, cn_resident_id_ok, rut_ok, nino_ok, pan_ok, passport_ok, curp_ok,
    hetu_ok, nric_ok, hkid_ok, pps_ok, tw_id_ok, lk_nic_ok, de_rvnr_ok, ph_tin_ok, kra_pin_ok,
    nhi_ok, kvnr_ok, nir_ok, de_id_card_ok, ni_cedula_ok)


def any_id_ok(candidate: str) -> bool:
    """A number under a generic name ("national_id", "document_number", "tax id"): one that
    some country's check above accepts."""
    n = _numerals(candidate)
    if n and len(n) == len(candidate.replace(" ", "").replace("-", "").replace(".", "")):
        return any(check(candidate) for check in _DIGIT_CHECKS.get(len(n), ()))
    return any(check(candidate) for check in _SHAPE_CHECKS)


# Under a generic name, only numbers with a check: Korea's and Indonesia's (a date and a
# serial) are any 13 or 16 digits with a plausible date in them, Denmark's CPR any date and
# four digits, the ITIN any 9 digits in its ranges; and not eight or nine digits, which under
# "tax id" are a US employer's or person's (the SSN has its own kind), one in ten or eleven
# of them passing the BSN's, the SIN's, the TFN's or the IRD number's test. Nor Medicare's
# ten nor Portugal's NISS, whose checks are one digit's.
_UNCHECKED = (rrn_ok, nik_ok, cpr_ok, itin_ok, medicare_ok, mykad_ok, vn_citizen_id_ok, cnic_ok,
              lk_nic_ok, ph_tin_ok, ph_sss_ok, qid_ok, niss_ok)
_CHECKED_DIGITS = {n: tuple(c for c in checks if c not in _UNCHECKED)
                   for n, checks in _DIGIT_CHECKS.items() if n > 9}


def checked_id_ok(candidate: str) -> bool:
    """:func:`any_id_ok` without the numbers that carry no check digit (RRN, NIK, CPR, ITIN,
    PAN, NINO, passports) or a short one: what a generic name ("id number", "tax id") may
    name."""
    n = _numerals(candidate)
    if n and len(n) == len(candidate.replace(" ", "").replace("-", "").replace(".", "")):
        return any(check(candidate) for check in _CHECKED_DIGITS.get(len(n), ()))
    return any(check(candidate) for check in (dni_ok, codice_fiscale_ok, cn_resident_id_ok,
                                               rut_ok, curp_ok, hetu_ok, nric_ok, hkid_ok,
                                               pps_ok, tw_id_ok, de_id_card_ok, pl_id_card_ok))


def td1_length(candidate: str) -> int | None:
    """An ID card's machine-readable zone (ICAO 9303 TD1), its first line after the state: the
    document's number (a digit in it, its check digit right), then the optional data a
    country puts there (a Spanish DNI, a Polish PESEL). The length to redact: the number
    alone when the optional data is fillers (so its other mentions are found as repeats),
    else up to the data's last character; None: not a TD1 line."""
    number = candidate[:9]
    if not (len(candidate) == 25 and any(ch.isdigit() for ch in number)
            and _mrz_check(number) == candidate[9]):
        return None
    data = candidate[10:].rstrip("<")
    return len(candidate) - (15 - len(data)) if data else 9


def generic_id_ok(candidate: str) -> bool:
    """:func:`checked_id_ok`, and the two shapes no other number has though they carry no
    check: the UK's National Insurance number and India's PAN of a person (under "tax id",
    "id number")."""
    return checked_id_ok(candidate) or nino_ok(candidate) or person_pan_ok(candidate)


# A passport's shape as a chat's answer: letters, then digits (nine digits alone answer
# anything); a date's, which is no answer ("DOB: 07/03/1993" on the next line).
_PASSPORT_ANSWER = re.compile(r"[A-Z]{1,3}\d{6,9}")
_DATE_ANSWER = re.compile(r"\d{1,2}([.-])\d{1,2}\1\d{4}|\d{4}([.-])\d{1,2}\2\d{1,2}")


def answered_id_ok(candidate: str) -> bool:
    """A value given as the answer to a chat's question for an id: one that some country's
    check takes, an SSN, a passport's shape (letters, then digits), or Korea's resident
    number; not a date."""
    if "/" in candidate or _DATE_ANSWER.fullmatch(candidate) is not None:
        return False
    bare = candidate.replace(" ", "").replace("-", "").replace(".", "")
    return (any_id_ok(candidate) or any_id_ok(bare) or ssn_ok(candidate)
            or (_PASSPORT_ANSWER.fullmatch(bare) is not None and passport_ok(bare))
            or rrn_ok(candidate))


# China's provinces, Hong Kong's, Macau's and Taiwan's residence permits: the first two
# digits a resident identity card number can start with.
_CN_REGIONS = frozenset((11, 12, 13, 14, 15, 21, 22, 23, 31, 32, 33, 34, 35, 36, 37, 41, 42,
                         43, 44, 45, 46, 50, 51, 52, 53, 54, 61, 62, 63, 64, 65, 71, 81, 82,
                         83))


def cn_resident_id_alone_ok(candidate: str) -> bool:
    """China's resident identity card number with no name before it: the check character, a
    province's code and a birth date since 1920 (an order's eighteen digits pass all three
    about once in a hundred thousand)."""
    return (cn_resident_id_ok(candidate) and int(candidate[:2]) in _CN_REGIONS
            and 1920 <= int(candidate[6:10]) <= date.today().year)


def thai_id_any_ok(candidate: str) -> bool:
    """Thailand's identification number as a foreign worker's card has it too (starting 00):
    13 digits and the MOD 11 check digit."""
    n = _numerals(candidate)
    # (a firm's starts 0 and its kind, 1 to 9: "0-1055-..." is a company's, on its invoices)
    return (len(n) == 13 and n[0] != "9" and not (n[0] == "0" and n[1] != "0")
            and _thai_check_ok(n))


def kg_pin_ok(candidate: str) -> bool:
    """Kyrgyzstan's personal identification number (ПИН): a sex digit (1 or 2), a birth date
    written DDMMYYYY, a five-digit serial; no check digit."""
    n = _numerals(candidate)
    return (len(n) == 14 and n[0] in "12" and _real_date(int(n[5:9]), int(n[3:5]), int(n[1:3]))
            and 1900 <= int(n[5:9]) <= date.today().year)


def be_card_ok(candidate: str) -> bool:
    """A Belgian identity card's number (592-3304314-90): ten digits and a MOD 97 key (97
    when the remainder is 0)."""
    n = _numerals(candidate)
    return len(n) == 12 and (int(n[:10]) % 97 or 97) == int(n[10:])

