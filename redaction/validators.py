"""Checksums and structural checks that turn a pattern match into a detection.

A regular expression finds candidates; these functions decide. They keep the detectors quiet
on what telemetry is full of: numbers that fail a checksum, digit runs that only look like a
card or an account number, colon-separated hex that is not an address.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import itertools
import json
import re
import unicodedata
from urllib.parse import unquote

__all__ = [
    "IBAN_COUNTRIES",
    "STRONG_PASSWORD_SYMBOLS",
    "alpaca_key_id_ok",
    "app_password_ok",
    "aws_secret_like",
    "b64_text",
    "base64_credentials",
    "base64_login",
    "bitlocker_key_ok",
    "bracketed_password",
    "card_prefix",
    "clabe_ok",
    "credential_ok",
    "digits",
    "has_digit_and_letter",
    "header_credential_ok",
    "iban_ok",
    "iban_prefix",
    "international_00_ok",
    "ipv4_ok",
    "ipv4_private_ok",
    "ipv6_ok",
    "ipv6_private_ok",
    "jwt_ok",
    "key_bytes_ok",
    "keypair_bytes_ok",
    "labelled_password_ok",
    "letters_and_digits_or_mixed_case",
    "luhn_ok",
    "nanp_ok",
    "password_as_user",
    "password_like",
    "payment_card_ok",
    "phone_digits_ok",
    "profile_secret_ok",
    "random_key_bytes",
    "random_token",
    "secret_value_ok",
    "slashed_password",
    "ssn_ok",
    "strong_password_shape",
    "strong_token",
    "symbol_password_ok",
    "telecom_id_ok",
    "tokenish",
    "wif_ok",
    "wifi_key_ok",
    "word_passphrase",
]


def digits(text: str) -> str:
    """The digits of ``text`` (separators dropped)."""
    if text.isdigit():  # most candidates: no separators, nothing to drop
        return text
    return "".join(filter(str.isdigit, text))


# Luhn's doubled digits (d * 2, less 9 above 9), by character.
_DOUBLED = {str(d): (2 * d - 9 if d > 4 else 2 * d) for d in range(10)}


def luhn_ok(number: str) -> bool:
    """The Luhn (mod 10) checksum of a digit string (separators are ignored)."""
    numerals = digits(number)
    if not numerals:
        return False
    if numerals.isascii():  # C-level sums; the loop below for other scripts' digits
        backwards = numerals[::-1]
        return (sum(map(int, backwards[0::2]))
                + sum(map(_DOUBLED.__getitem__, backwards[1::2]))) % 10 == 0
    total = 0
    for i, ch in enumerate(reversed(numerals)):
        d = ord(ch) - 48
        if i % 2:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


# Issuer prefixes (IIN ranges) and the lengths each brand issues. Requiring a real issuer
# prefix keeps nanosecond epochs (17..., 18...) and other digit runs out even when one
# happens to pass Luhn, which one in ten does.
_CARD_BRANDS: tuple[tuple[tuple[int, int], int, frozenset[int]], ...] = (
    ((4, 4), 1, frozenset({13, 16, 19})),                 # Visa
    ((51, 55), 2, frozenset({16})),                       # Mastercard
    ((2221, 2720), 4, frozenset({16})),                   # Mastercard 2-series
    ((34, 34), 2, frozenset({15})),                       # American Express
    ((37, 37), 2, frozenset({15})),
    ((6011, 6011), 4, frozenset({16, 19})),               # Discover
    ((644, 649), 3, frozenset({16, 19})),
    ((65, 65), 2, frozenset({16, 19})),
    ((3528, 3589), 4, frozenset({16, 17, 18, 19})),       # JCB
    ((300, 305), 3, frozenset({14, 16, 19})),             # Diners Club
    ((36, 36), 2, frozenset({14, 16, 19})),
    ((38, 39), 2, frozenset({14, 16, 19})),
    ((62, 62), 2, frozenset({16, 17, 18, 19})),           # UnionPay
    ((5018, 5018), 4, frozenset(range(12, 20))),          # Maestro
    ((5020, 5020), 4, frozenset(range(12, 20))),
    ((5038, 5038), 4, frozenset(range(12, 20))),
    ((6304, 6304), 4, frozenset(range(12, 20))),
    ((6759, 6759), 4, frozenset(range(12, 20))),
    ((6761, 6763), 4, frozenset(range(12, 20))),
    ((2200, 2204), 4, frozenset({16, 17, 18, 19})),       # Mir
    ((9792, 9792), 4, frozenset({16})),                   # Troy
    ((5060, 5061), 4, frozenset({16, 18, 19})),           # Verve
    ((508, 508), 3, frozenset({16})),                     # RuPay
    ((6521, 6522), 4, frozenset({16})),
    ((6069, 6085), 4, frozenset({16})),
    ((5019, 5019), 4, frozenset({16})),                   # Dankort (Denmark)
    ((509, 509), 3, frozenset({16})),                     # Elo
    ((5041, 5041), 4, frozenset({16})),
    ((5066, 5067), 4, frozenset({16})),
    ((6362, 6363), 4, frozenset({16})),
    ((6516, 6516), 4, frozenset({16})),
    ((6550, 6550), 4, frozenset({16})),
    ((6062, 6062), 4, frozenset({16, 19})),               # Hipercard
    ((9891, 9891), 4, frozenset({16})),                   # DinaCard (Serbia)
    ((9112, 9112), 4, frozenset({16})),                   # Belkart (Belarus)
    ((9860, 9860), 4, frozenset({16})),                   # Humo (Uzbekistan)
    ((8600, 8600), 4, frozenset({16})),                   # UzCard
    ((5614, 5614), 4, frozenset({16})),                   # UzCard's co-badged range
    ((9417, 9417), 4, frozenset({16})),                   # Elcart (Kyrgyzstan)
    ((9051, 9051), 4, frozenset({16})),                   # ArCa (Armenia)
    ((9762, 9762), 4, frozenset({16})),                   # Korti Milli (Tajikistan)
    ((9804, 9804), 4, frozenset({16})),                   # Prostir (Ukraine)
    ((6037, 6037), 4, frozenset({16})),                   # Shetab (Iran)
    ((6104, 6104), 4, frozenset({16})),
    ((5078, 5078), 4, frozenset({16})),                   # Meeza (Egypt)
    ((9704, 9704), 4, frozenset({16, 19})),               # NAPAS (Vietnam)
    ((6767, 6767), 4, frozenset({16, 18, 19})),           # Solo (United Kingdom)
)


# (issuer prefix, length) pairs some brand issues: four set look-ups instead of a walk over
# the brands with an int() each.
_CARD_PREFIXES: frozenset[tuple[str, int]] = frozenset(
    (str(prefix), length) for (low, high), _width, lengths in _CARD_BRANDS
    for prefix in range(low, high + 1) for length in lengths)


def luhn_13_19(candidate: str) -> bool:
    """13 to 19 digits that pass Luhn (a number told as a card, whatever its prefix)."""
    numerals = digits(candidate)
    # (not a form's zeros, "0000 0000 0000 0000", which pass Luhn)
    return 13 <= len(numerals) <= 19 and luhn_ok(numerals) and numerals.strip("0") != ""


def told_card_ok(candidate: str) -> bool:
    """A number told as a card: :func:`luhn_13_19`, and fourteen digits only under Diners'
    prefixes (the one issuer of that length; a library card's 14-digit barcode passes Luhn
    too: "Card number: 21992845010738")."""
    return luhn_13_19(candidate) and (len(digits(candidate)) != 14
                                      or payment_card_ok(candidate))


def payment_card_ok(candidate: str) -> bool:
    """A known issuer prefix, a length that issuer uses, and a valid Luhn checksum."""
    numerals = digits(candidate)
    n = len(numerals)
    # other scripts' digits are read by their value, as int() reads them
    head = numerals[:4] if numerals.isascii() else "".join(str(int(d)) for d in numerals[:4])
    prefixes = _CARD_PREFIXES
    if ((head[:1], n) in prefixes or (head[:2], n) in prefixes
            or (head[:3], n) in prefixes or (head, n) in prefixes):
        return luhn_ok(numerals)
    return False


def card_number_ok(candidate: str) -> bool:
    """A card by :func:`payment_card_ok`, and no barcode: thirteen digits that are an EAN-13
    with its check digit right are a product (Visa stopped issuing 13-digit cards long ago,
    and a GTIN feed passes Luhn one time in ten)."""
    if not payment_card_ok(candidate):
        return False
    numerals = digits(candidate)
    return not (len(numerals) == 13 and ean13_ok(numerals))


def ean13_ok(numerals: str) -> bool:
    """An EAN-13 (GTIN-13) barcode's check digit: the digits weighted 1 and 3 in turn."""
    return (len(numerals) == 13 and numerals.isascii()
            and sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(numerals)) % 10 == 0)


def card_expiry_code_ok(candidate: str) -> bool:
    """A card's number, its expiry and its code in a row: the number before the expiry is a
    card (an issuer's prefix and Luhn)."""
    number = candidate[:candidate.rindex("/")].rstrip("0123456789").rstrip()
    return card_number_ok(number)


def card_prefix(candidate: str) -> int | None:
    """Length of the card at the start of ``candidate``: all of it, or, where a short group
    runs on after the card's own ("4111 1111 1111 1111 12/26", an expiry), the groups before
    that one; None when neither is a card."""
    if card_number_ok(candidate):
        return len(candidate)
    cut = max(candidate.rfind(" "), candidate.rfind("-"))
    return cut if cut > 0 and card_number_ok(candidate[:cut]) else None


# IBAN lengths by country (ISO 13616 registry): a country code outside the table, or a
# length that country does not use, is not an IBAN whatever its checksum.
_IBAN_LENGTHS: dict[str, int] = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22,
    "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28,
    "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23,
    "GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26,
    "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20,
    "LV": 21, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MR": 27, "MT": 31, "MU": 30, "NL": 18,
    "NO": 15, "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "SA": 24,
    "SC": 31, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "ST": 25, "SV": 28, "TL": 23, "TN": 24,
    "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
    # the registry's later entries
    "BI": 27, "DJ": 27, "FK": 18, "HN": 28, "IR": 26, "LY": 25, "MN": 20, "NI": 28, "OM": 23,
    "RU": 33, "SD": 18, "SO": 23, "YE": 30,
    # Africa's national IBANs, in use at their banks before (or without) the registry's entry
    # ("IBAN : SN66SN83...", a Moroccan transfer order's "MA29 2303 ..."), the same checksum
    "AO": 25, "BF": 28, "BJ": 28, "CF": 27, "CG": 27, "CI": 28, "CM": 27, "CV": 25, "DZ": 24,
    "GA": 27, "GQ": 27, "GW": 25, "KM": 27, "MA": 28, "MG": 27, "ML": 28, "MZ": 25, "NE": 28,
    "SN": 28, "TD": 27, "TG": 28,
}


#: The country codes IBANs start with.
IBAN_COUNTRIES: frozenset[str] = frozenset(_IBAN_LENGTHS)


def iban_ok(candidate: str) -> bool:
    """Country length and the ISO 7064 mod-97-10 checksum (remainder 1)."""
    iban = "".join(candidate.split()).upper()
    if _IBAN_LENGTHS.get(iban[:2]) != len(iban) or not iban.isalnum():
        return False
    rearranged = iban[4:] + iban[:4]
    # A=10 ... Z=35 (one C-level translate), then one big integer
    return int(rearranged.translate(_IBAN_LETTERS)) % 97 == 1


def nrb_ok(candidate: str) -> bool:
    """Poland's account number (NRB): 26 digits whose IBAN, PL before them, checks."""
    return iban_ok("PL" + digits(candidate))


def pt_nib_ok(candidate: str) -> bool:
    """Portugal's account number (NIB): 21 digits whose IBAN, PT50 before them, checks (the
    NIB's own two check digits make a Portuguese IBAN's always 50)."""
    return iban_ok("PT50" + digits(candidate))


def clabe_ok(candidate: str) -> bool:
    """Mexico's CLABE: eighteen digits (bank, branch, account), the last a check digit over
    the others weighted 3, 7, 1."""
    numerals = digits(candidate)
    if len(numerals) != 18:
        return False
    total = sum(int(d) * (3, 7, 1)[i % 3] % 10 for i, d in enumerate(numerals[:17]))
    return (10 - total % 10) % 10 == int(numerals[17])


_IBAN_LETTERS = {ord(c): str(i) for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZ", 10)}


def iban_prefix(candidate: str) -> int | None:
    """Length of the valid IBAN at the start of ``candidate`` (which may run on into the next
    word group), or None. The country code fixes how many characters belong to it."""
    want = _IBAN_LENGTHS.get(candidate[:2].upper())
    if want is None:
        return None
    if candidate.replace(" ", "").isalnum():  # what the pattern matches: C-level counts
        end = want  # the least end holding ``want`` characters besides spaces
        while (longer := want + candidate.count(" ", 0, end)) != end:
            end = longer
        if end > len(candidate) or (end < len(candidate) and candidate[end].isalnum()):
            return None
        return end if iban_ok(candidate[:end]) else None
    seen = 0
    for i, ch in enumerate(candidate):
        if ch.isalnum():
            seen += 1
            if seen == want:
                end = i + 1
                if end < len(candidate) and candidate[end].isalnum():
                    return None
                return end if iban_ok(candidate[:end]) else None
    return None


def ssn_ok(candidate: str) -> bool:
    """US SSN issuance rules: no 000/666/9xx area, no 00 group, no 0000 serial."""
    numerals = digits(candidate)
    if len(numerals) != 9:
        return False
    area, group, serial = numerals[:3], numerals[3:5], numerals[5:]
    return (area not in ("000", "666") and not area.startswith("9") and group != "00"
            and serial != "0000")


def ocr_ssn_ok(candidate: str) -> bool:
    """An SSN as OCR read it, a zero or two taken for the letter O ("3O6-79-3835")."""
    return 0 < candidate.count("O") <= 2 and ssn_ok(candidate.replace("O", "0"))


def phone_digits_ok(candidate: str) -> bool:
    """E.164 numbers carry 8 to 15 digits after the +, country code first (never 0), and a
    number after it (a page's "+1-000-000-0000" stands in for one, and a form's
    "+55 (00) 00000-0000": its last seven digits zeros)."""
    numerals = digits(candidate)
    return (8 <= len(numerals) <= 15 and numerals[0] != "0" and numerals[1:].strip("0") != ""
            and not _zeros_after(numerals))


# Mobile numbers written in full with no "+", as telecom systems log them (CDRs, SMSCs,
# RADIUS, CGNAT): a country's code, then how many digits follow and what they start with.
_MOBILE_PLANS: dict[str, tuple[int, int, str]] = {
    "1": (10, 10, "23456789"), "7": (10, 10, "9"), "20": (10, 10, "1"), "27": (9, 9, "678"),
    "31": (9, 9, "6"), "32": (9, 9, "4"), "33": (9, 9, "67"), "34": (9, 9, "67"),
    "39": (9, 10, "3"), "41": (9, 9, "7"), "43": (10, 13, "6"), "44": (10, 10, "7"),
    "45": (8, 8, "2345"), "46": (9, 9, "7"), "47": (8, 8, "49"), "48": (9, 9, "4578"),
    "49": (10, 11, "1"), "52": (10, 11, "123456789"), "55": (10, 11, "123456789"),
    "60": (9, 10, "1"), "61": (9, 9, "4"), "62": (9, 12, "8"), "63": (10, 10, "9"),
    "64": (8, 10, "2"), "65": (8, 8, "89"), "66": (9, 9, "689"), "81": (10, 10, "789"),
    "82": (9, 10, "1"), "84": (9, 9, "35789"), "86": (11, 11, "1"), "90": (10, 10, "5"),
    "91": (10, 10, "6789"), "92": (10, 10, "3"), "233": (9, 9, "25"), "234": (10, 10, "789"),
    "254": (9, 9, "17"), "255": (9, 9, "67"), "256": (9, 9, "7"), "260": (9, 9, "79"),
    "263": (9, 9, "7"), "351": (9, 9, "9"), "353": (9, 9, "8"), "358": (9, 10, "4"),
    "880": (10, 10, "1"), "966": (9, 9, "5"), "971": (9, 9, "5"),
}


def international_mobile_ok(candidate: str) -> bool:
    """A mobile number in full without its "+" ("2348121340536", "491629700400"): a country's
    code in the table above, then a mobile's length and first digit there."""
    numerals = digits(candidate)
    for size in (1, 2, 3):
        plan = _MOBILE_PLANS.get(numerals[:size])
        if plan is not None:
            rest = numerals[size:]
            low, high, first = plan
            if low <= len(rest) <= high and rest[0] in first and len(set(rest)) > 2:
                return True
    return False


def _zeros_after(numerals: str) -> bool:
    """A stand-in's subscriber number: the last seven digits zeros ("+55 (00) 00000-0000",
    "SAC 0800 000 0000")."""
    return numerals[-7:].strip("0") == ""


def national_ok(candidate: str) -> bool:
    """A national number with its trunk 0: 10 to 12 digits, and an area code after the 0
    (never 0 itself: "00000 00003" and "0003-00012345" are references), not a date and a
    time (HDFS's "081109 203615": 2008-11-09 at 20:36:15), nor a stand-in whose last seven
    digits are zeros (a form's "SAC 0800 000 0000")."""
    numerals = digits(candidate)
    return (10 <= len(numerals) <= 12 and numerals[1] != "0"
            and not _zeros_after(numerals)
            and _DATE_TIME.fullmatch(candidate) is None)


# A date (YYMMDD) and a time (HHMMSS), as HDFS and other Hadoop-era logs start their lines.
_DATE_TIME = re.compile(r"\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])[ -]"
                        r"(?:[01]\d|2[0-3])[0-5]\d[0-5]\d")


def told_phone_ok(candidate: str) -> bool:
    """A number told beside a word for a phone: 8 to 13 digits, not a stand-in of zeros, a
    date or an address ("via mobile app from IP 100.113.35.181": the address detectors
    decide on those)."""
    numerals = digits(candidate)
    # (13 digits from a "1" are no number of any plan: a time in milliseconds)
    return (8 <= len(numerals) <= 13 and numerals[1:].strip("0") != ""
            and not _zeros_after(numerals)
            and not (len(numerals) == 13 and numerals[0] == "1")
            and _DATED.match(candidate) is None and _ipv4_octets(candidate) is None
            and _DECIMAL.fullmatch(candidate) is None)


def short_phone_ok(candidate: str) -> bool:
    """A number after a label that names a phone: eight to thirteen digits as any told phone,
    seven in a small country's grouping ("754 9503", "9888356"), six in the French Pacific's
    pairs ("91 87 63")."""
    numerals = digits(candidate)
    if len(numerals) >= 8:
        return told_phone_ok(candidate)
    return (((len(numerals) == 7 and _SEVEN_DIGITS.fullmatch(candidate) is not None)
             or (len(numerals) == 6 and _PAIRS.fullmatch(candidate) is not None
                 and _DOTTED_DATE.fullmatch(candidate) is None))
            and not_counting_run(numerals))


_SEVEN_DIGITS = re.compile(r"\d{3}[ .-]?\d{4}")
_PAIRS = re.compile(r"\d{2}([ .])\d{2}\1\d{2}")
# (a date, not a number: "12.03.24")
_DOTTED_DATE = re.compile(r"(?:0[1-9]|[12]\d|3[01])\.(?:0[1-9]|1[0-2])\.\d{2}")


def hex_digits_phone_ok(candidate: str) -> bool:
    """Hex of ASCII digits that spell a number an E.164 phone can be: 9 to 15 of them, not
    one digit repeated."""
    number = candidate[1::2]
    return phone_digits_ok(number) and len(set(number)) > 1


def addressed_phone_ok(candidate: str) -> bool:
    """A number under an SMS gateway's address field, not a time range's end in epoch
    seconds or milliseconds ({"from": "1717000000000", "to": "1717003600000"})."""
    return (told_phone_ok(candidate) and not (candidate[0] == "1" and len(candidate) in (10, 13))
            and _STAMP.fullmatch(candidate) is None)


# A date and a time of day written as one run of digits (to=202406131907): no number to call.
_STAMP = re.compile(r"(?:19|20)\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])(?:[01]\d|2[0-3])"
                    r"[0-5]\d(?:[0-5]\d)?")


# A measurement with its decimals (an SMS gateway's "sms_dlr_latency_seconds_sum 16237.963"):
# one point, at most three digits after it.
# (and a coordinate: "lat: 32.085790")
_DECIMAL = re.compile(r"\d+\.\d{1,3}|\d{1,3}\.\d{5,}")


# A date, not a number to call ("Итоги звонка 18.11.2025", a call's summary).
_DATE = re.compile(r"\d{1,2}([./-])\d{1,2}\1\d{4}|\d{4}([./-])\d{1,2}\2\d{1,2}")
# ... or a date and its hour (a ticket export's "PHONE","2024-08-29 17:38": the channel's
# column, then a time).
_DATED = re.compile(rf"(?:{_DATE.pattern})(?:$|[ T])")


_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


# A record's id under its namespace ("session:19bf0ee6-...", a cache key): a name, not a secret.
_NAMESPACED_ID = re.compile(r"[A-Za-z_]+:" + _UUID.pattern)


def session_key_ok(candidate: str) -> bool:
    """A session's key in a store: a token, not a UUID (the record ids stores key by)."""
    return tokenish(candidate) and _UUID.fullmatch(candidate) is None


def session_cookie_ok(candidate: str) -> bool:
    """A session cookie's value: not a stand-in, not a UUID (a log's conversation or
    session record id, "session=283d11ea-74ce-...") and not a Twilio resource's id
    ("sid=SM" and 32 hex digits: a message's, an account's, a call's)."""
    return (secret_value_ok(candidate) and _UUID.fullmatch(candidate) is None
            and _TWILIO_SID.fullmatch(candidate) is None
            and _STRIPE_OBJECT.fullmatch(candidate) is None
            # (a record's id with its date, sess_2024-11-18_0193: no random token)
            and _DATED_ID.search(candidate) is None)


_DATED_ID = re.compile(r"(?:19|20)\d\d-[01]\d-[0-3]\d")


# A Stripe object's id (a Checkout Session's cs_live_..., a PaymentIntent's pi_...): a record,
# readable only with the account's secret key, which is the credential.
_STRIPE_OBJECT = re.compile(r"(?:cs|pi|ch|cus|sub|in|pm|evt|seti|prod|price|po|tr|re|txn|acct)"
                            r"_(?:live_|test_)?[A-Za-z0-9]{14,}")


_TWILIO_SID = re.compile(r"[A-Z]{2}[0-9a-f]{32}")


def phone_link_ok(candidate: str) -> bool:
    """A tel: link's number: 7 to 15 digits, not a stand-in of zeros."""
    numerals = digits(candidate)
    return 7 <= len(numerals) <= 15 and numerals.strip("0") != "" and (
        not candidate.startswith("+") or phone_digits_ok(candidate))


def nanp_ok(candidate: str) -> bool:
    """North American numbering: area and exchange codes start with 2-9. (Its numbers'
    shape is other countries' too, a Greek mobile's "698 764 3114": no rule of the plan's
    own refuses more.) Not three fields of an access log (an ALB's "499 499 1404": two
    status codes, then a size)."""
    numerals = digits(candidate)
    if len(numerals) == 11 and numerals[0] == "1":
        numerals = numerals[1:]
    return (len(numerals) == 10 and numerals[0] >= "2" and numerals[3] >= "2"
            and _STATUS_PAIR.search(candidate) is None)


# Two equal HTTP status codes and a figure, spaced: an access log's fields, not a number.
_STATUS_PAIR = re.compile(r"(?:^|\D)([1-5]\d\d) \1 \d{4}$")


def _ipv4_octets(candidate: str) -> tuple[int, int] | None:
    """The first two octets of a dotted quad (each at most 255, none with a leading zero)."""
    parts = candidate.split(".")
    if len(parts) != 4:
        return None
    for p in parts:  # a plain loop: this runs for every address-shaped value
        if not p.isdigit() or len(p) > 3 or int(p) > 255 or (p[0] == "0" and p != "0"):
            return None
    return int(parts[0]), int(parts[1])


def _ipv4_scope(candidate: str) -> str | None:
    """``"public"``, ``"private"`` or ``"nobody"``; None: not an address."""
    octets = _ipv4_octets(candidate)
    if octets is None:
        return None
    a, b = octets
    # 0.x.x.x names no host ("this network": a four-part version string such as 0.10.1.1),
    # 127/8 is loopback, 224/4 multicast groups and 240/4 reserved (255.255.255.255 too).
    if a in (0, 127) or a >= 224:
        return "nobody"
    # x.y.z.0 is a network's own address ("failed network connection on network 5.5.224.0")
    # or a four-part version (AssemblyVersion("5.3.0.0"), "~amd64~~6.1.34.0" in a Windows
    # package's name): no host.
    if candidate.endswith(".0"):
        return "nobody"
    # RFC 1918, carrier-grade NAT (RFC 6598, pod networks use it) and link-local: addresses
    # the Internet does not route, i.e. a cluster's pods, services and nodes.
    if (a == 10 or (a == 172 and 16 <= b <= 31) or (a == 192 and b == 168)
            or (a == 100 and 64 <= b <= 127) or (a == 169 and b == 254)):
        return "private"
    # The documentation ranges (192.0.2/24, 198.51.100/24, 203.0.113/24) stay public: examples
    # use them for real clients' addresses.
    return "public"


def ipv4_ok(candidate: str) -> bool:
    """An address the Internet routes: one that can name a person's connection."""
    return _ipv4_scope(candidate) == "public"


def dashed_public_ipv4(candidate: str) -> bool:
    """A public address with its dots as dashes (EC2's ec2-54-12-3-4 host names)."""
    return ipv4_ok(candidate.replace("-", "."))


def defanged_ipv4_ok(candidate: str) -> bool:
    """A public address written defanged ("89[.]42[.]110[.]213")."""
    return ipv4_ok(candidate.replace("[.]", ".").replace("(.)", ".").replace("[dot]", "."))


def interface_ipv4_ok(candidate: str) -> bool:
    """A public address with its prefix length whose host bits are set: an interface's
    address (a network's own address, 203.0.113.0/24, names no host; one ending in .0 is
    read as a network written loosely, "allow 172.126.150.0/10")."""
    address, _, length = candidate.partition("/")
    if address.endswith(".0") or not ipv4_ok(address):
        return False
    host_bits = 32 - int(length)
    if host_bits == 1:  # (a point-to-point link's /31: both its addresses are hosts)
        return True
    return host_bits > 0 and int(ipaddress.IPv4Address(address)) & ((1 << host_bits) - 1) != 0


def ipv6_interface_ok(candidate: str) -> bool:
    """A routed IPv6 address with its prefix length and its host bits set: an interface's
    (a network's own address, 2600:1f18::/56, names no host; see :func:`interface_ipv4_ok`)."""
    address, _, length = candidate.partition("/")
    if not ipv6_ok(address):
        return False
    host_bits = 128 - int(length)
    if host_bits == 1:  # (a point-to-point link's /127, as RFC 6164 numbers it)
        return True
    return int(ipaddress.IPv6Address(address)) & ((1 << host_bits) - 1) != 0


def key_bytes_ok(candidate: str) -> bool:
    """A key's bytes: each below 256, and not one byte repeated (a stand-in of zeros)."""
    values = [int(part, 0) if part.strip().lower().startswith("0x") else int(part)
              for part in candidate.split(",")]
    return all(value < 256 for value in values) and len(set(values)) > 1


def ipv4_private_ok(candidate: str) -> bool:
    """An address inside a private network (RFC 1918, shared, link-local): redacted only when
    a policy opts in (``ipv4_private``), as ops text is full of pod and node addresses."""
    return _ipv4_scope(candidate) == "private"


_ULA = ipaddress.IPv6Network("fc00::/7")
_LINK_LOCAL = ipaddress.IPv6Network("fe80::/10")


def _ipv6_scope(candidate: str) -> str | None:
    """As :func:`_ipv4_scope`. A parseable IPv6 address with a digit or a '::' (keeps
    ``abc:def`` prose quiet); an IPv4-mapped one is judged by its IPv4 address."""
    if candidate.count(":") < 2:
        return None
    try:
        address = ipaddress.IPv6Address(candidate.split("%", 1)[0])
    except ValueError:
        return None
    if "::" not in candidate and not any(ch.isdigit() for ch in candidate):
        return None
    if address.ipv4_mapped is not None:
        return _ipv4_scope(str(address.ipv4_mapped))
    # ::/96 (the deprecated IPv4-compatible block) holds no one's address: "::1:8080" there is
    # loopback and a port, as Node prints them.
    if (address.is_unspecified or address.is_loopback or address.is_multicast
            or int(address) >> 32 == 0):
        return "nobody"
    if address in _ULA or address in _LINK_LOCAL:
        return "private"
    # Only 2000::/3 is handed out (global unicast); the rest is reserved, and Python's slices
    # read as addresses ("operands[1::2]")
    if not 0x2000 <= int(address) >> 112 <= 0x3FFF:
        return "nobody"
    # One group before "::" ("2317::1", a debugger's "2,16,2317::1"): no registry hands out a
    # prefix that short, so no host's address is written so.
    if candidate.partition("::")[0].count(":") == 0 and "::" in candidate:
        return "nobody"
    return "public"  # 2001:db8::/32 (documentation) too, as for IPv4


def ipv6_ok(candidate: str) -> bool:
    """A routed IPv6 address (see :func:`ipv4_ok`)."""
    return _ipv6_scope(candidate) == "public"


def ipv6_private_ok(candidate: str) -> bool:
    """A unique-local or link-local IPv6 address (see :func:`ipv4_private_ok`)."""
    return _ipv6_scope(candidate) == "private"


# A value that names a secret instead of holding one: Kubernetes' "key: api-key" in a
# secretKeyRef, "auth: token", "credentials: db-password".
_NAMES_A_SECRET = re.compile(
    # each part before the secret's word is a word ("db-", "app1-"), not a random run: a
    # part of 8 characters or more with 3 digits makes a value ("9f8e7d6c5b4a-secret")
    r"(?i)(?:(?:(?![a-z0-9]{8})|(?![a-z0-9]*\d[a-z0-9]*\d[a-z0-9]*\d))[a-z0-9]+[-_.])*"
    r"(?:api[-_]?key|apikey|passw(?:or)?d|pass|token|secret|credentials?|"
    # (a Secret's key under a secretKeyRef: "key: id_key")
    r"(?:access|secret|private|auth)[-_]?key|client[-_]?secret|key|connection[-_]?string)s?")
# ... and a setting's name in camel case (OCPP's {"key":"AuthorizationKey","value":...}).
_CAMEL_SECRET_NAME = re.compile(r"(?:[A-Z][a-z]+){1,4}(?:Key|Password|Secret|Token|Credentials?)s?")
# What every name it matches ends with (before its "s?"; ASCII: other text is matched as is).
_SECRET_NAME_ENDS = ("key", "passwd", "password", "pass", "token", "secret", "credential",
                     "credentials", "string")


def _may_name_a_secret(value: str) -> bool:
    """False only where ``_NAMES_A_SECRET`` cannot match all of ``value``."""
    if not value.isascii():
        return True
    lower = value.lower()
    return lower.endswith(_SECRET_NAME_ENDS) or (lower.endswith("s") and lower[:-1].endswith(
        _SECRET_NAME_ENDS))


# A file path (GOOGLE_APPLICATION_CREDENTIALS=/var/secrets/key.json): where a secret is.
_PATH = re.compile(r"(?:~|\.{1,2})?/[\w.-]+(?:/[\w.-]+)*/?"
                   # a secret store's path to it (Vault's database/creds/app, a secrets
                   # manager's prod/ledger/stripe): lower-case names
                   r"|[a-z][a-z0-9_.-]*(?:/[a-z][a-z0-9_.-]*)+"
                   # (and the key to read there, as Ansible's hashi_vault lookup names it:
                   # secret=kv/data/payroll:db_password)
                   r"(?::[a-z][a-z0-9_]*)?"
                   # a relative one to a file (path/to/key.json), an object store's key
                   # (builds/021a9a8/app.tar.gz)
                   r"|[\w.-]+(?:/[\w.-]+)+\.[A-Za-z][A-Za-z0-9]{0,7}"
                   # an object store's prefix (AWSLogs/940481797238/elasticloadbalancing/,
                   # secrets_prefix = "iam-keys/")
                   r"|[\w.-]+(?:/[\w.-]+){2,}/|[a-z][a-z0-9_.-]*/")


# Where a configuration reads the secret from: os.environ["X"], os.environ/X (LiteLLM),
# process.env.X, ${X}, $X, {{ secrets.X }}.
# Percent-encoded in a query string too (%24%7BOPENAI_API_KEY%7D), and Terraform's references
# (var.db_password, local.creds, module.x.y, data.x.y).
# PowerShell reads one from a vault or a prompt ((Get-Secret -Name x), Read-Host), and Zabbix
# names a macro ({$SNMP_COMMUNITY}), FreeRADIUS an environment variable ($ENV{X}).
_REFERENCE = re.compile(r"os\.(?:environ|getenv)|process\.env\.|\$\{|\$\(|\{\{|\$[A-Z_][A-Z0-9_]*$"
                        # Grafana's provisioning ($__env{X}, $__file{/path})
                        r"|\$__(?:env|file|vault)\{"
                        # Kong's vault references ({vault://env/mobile-app-key}), 1Password's
                        # secret references (op://Engineering/GitHub/token)
                        r"|\{vault://|op://"
                        # (a Jenkins pipeline's credentials('harbor-robot-ci'): an id)
                        r"|credentials\("
                        # a bracketed stand-in ([YOUR-PASSWORD], [PASSWORD])
                        r"|\[[A-Z][A-Z0-9_ -]*\]$"
                        # a release tool's variable (Azure DevOps, Octopus: #{MapsApiKey}#)
                        r"|#\{[\w.-]+(?:\}#?)?$"
                        # an instruction in the value's place (generate-with-openssl-rand-...)
                        r"|generate[-_ ]with[-_ ]|openssl[-_ ]rand"
                        # a shell variable in lower case: snake_case or a secret's own word
                        # ($redis_password, $pass), not a password that starts with "$"
                        r"|\$[a-z][a-z0-9]*_[a-z0-9_]*$|\$(?:pass|passwd|password|pwd?|token|secret|key)$"
                        # (a loop's short variable: imapsync --password1 "$p1")
                        r"|\$[a-z][a-z0-9]?\d$"
                        r"|\(?(?:Get|Read|ConvertTo|ConvertFrom|Unprotect|Import|Invoke)-[A-Z]"
                        r"|\{\$[A-Z]|\$ENV\{"
                        # Salesforce's merge fields ({!$Credential.Password}), PHP's and
                        # Laravel's getenv('X') and env('X')
                        r"|\{!\$|(?:getenv|env)\("
                        # Home Assistant's and ESPHome's "!secret mqtt_password"
                        r"|!secret\b"
                        r"|%24%7[Bb]|%7[Bb]%7[Bb]|(?:var|local|module|data)\.[A-Za-z_][\w.-]*$")


# What stands in a secret's place: what tools print (Terraform's "(sensitive value)", CI's
# "***", "[REDACTED]") and what documentation writes ("sk-...", "ghp_xxxxxxxx",
# "YOUR_PASSWORD_HERE", "<your-api-key>", "changeme"). Terraform's progress words stand where
# a resource's value would ("..._secret_version.db: Creation complete"), and GitLab prints
# "[MASKED]", Redis's MONITOR "(redacted)". What may stand anywhere in a value is told by
# substring tests, what starts it by one anchored match: as one case-folded regex searched at
# every position, this was most of a secret's validation.
# Capitals of any script and "_", one at least: a placeholder's name.
_CAPITALS_PLACEHOLDER = re.compile(r"(?=[^_]*_)[^\W\d_a-z\u0430-\u044f\u0451-\u045f]*(?:_[^\W\d_a-z"
                                   r"\u0430-\u044f\u0451-\u045f]+)+")
_STANDS_IN_PARTS = ("...", "…", "\\u2026", "xxxxxx", "***", "changeme", "change_me", "change-me",
                    # (a template's "please-set-me", "set_me")
                    "set-me", "set_me", "setme",
                    "replaceme", "replace_me", "replace-me", "replace_with", "replace-with",
                    # a format shown by its first letters and digits ("ABCDE-12345-FGHIJ")
                    "abcde-12345", "abcde12345", "12345-abcde",
                    # (SendGrid's documentation's key, "SG.xxxxx.yyyyy")
                    "xxxxx.yyyyy",
                    # a tool's mask, alone or after a vendor's prefix ("sk-proj-[REDACTED]")
                    "[redacted", "[masked", "[filtered", "<redacted",
                    # (a secret scanner's mask after a vendor's prefix: flk_REDACTED_BY_...)
                    "_redacted_",
                    # what PowerShell prints for a SecureString, and an app setting's
                    # reference to where the secret is kept (Azure's Key Vault)
                    "system.security.securestring", "@microsoft.keyvault(",
                    # (what Windows setup leaves in unattend.xml once it scrubbed it)
                    "*sensitive*data*deleted*")
# A vendor's prefix with nothing after it: what is left of "sk_live_<YOUR_KEY_HERE>" before
# its "<" ("ghp_", "xoxb-", "sk_live_").
_PREFIX_ONLY = re.compile(r"[A-Za-z]{2,8}(?:[_-][A-Za-z]{2,8})?[_-]")
# (three bullets, or their escapes in a JSON string: "sk_live_\\u2022\\u2022\\u2022")
_BULLETS = re.compile(r"[•●]{3}|(?:\\u(?:2022|25cf|25CF)){3}")
_STANDS_IN_WHOLE = re.compile(r"your[_ -]|<|\\*u003c"  # ("\u003credacted\u003e": JSON's "<")
                              r"|\*+redacted\*+$|redacted|fake|dummy|value\d*$|\[secret\]?$"
                              # what a local server's client is given for a key it ignores
                              # (Ollama's, LM Studio's, vLLM's "EMPTY")
                              # (and LiteLLM's documented master key, "sk-1234")
                              r"|sk-1234$"
                              # (an OpenAPI example's type where its value goes)
                              r"|string$"
                              # (a form's blank to fill in: "Answer: ____________")
                              r"|_{3,}$"
                              r"|(?:ollama|lm-studio|empty|not[-_ ]?needed"
                              r"|no[-_]key(?:[-_]required)?|sk-no-key-required)$"
                              r"|VALUE_SPECIFIED_IN_NO_LOG_PARAMETER$|NOT_LOGGING_PARAMETER$"
                              r"|DATA\+OMITTED$"
                              # the Auth0 Deploy CLI's keywords to replace (##CLIENT_SECRET##,
                              # @@SCIM_BRIDGE_SECRET@@)
                              r"|##[A-Za-z0-9_]+##$|@@[A-Za-z0-9_]+@@$"
                              # (and a Docker image's template, Koha's "__DB_PASS__")
                              r"|__[A-Z][A-Z0-9_]*__$"
                              # a format's placeholder: %(token)s, {password}, {0}
                              r"|%\(\w+\)[sdr]$|\{\w*\}?$"
                              r"|(?:\(sensitive(?: value)?\)?|\(redacted\)?|\(hidden\)?|\*+"
                              # (a logger's bracketed mask: Okta's "[hidden]", Spring's
                              # "[PROTECTED]")
                              r"|\[?(?:hidden|protected|scrubbed|obfuscated|stripped)\]?"
                              # (or a CI's mask, four x's and the last characters:
                              # CircleCI's "xxxxa5t1")
                              r"|x{4,}(?:[A-Za-z0-9]{1,4})?"
                              r"|filtered|\*password\*"
                              r"|creation|modifications|destruction|still|refreshing|reading"
                              r"|none\.?|null|nil|undefined"
                              # (an empty PHP array: "'client_passphrases'] = array();")
                              r"|array\(\)?"
                              # (a setting's word, "jbh_only"; a Terraform function opening,
                              # "jsonencode({")
                              r"|[a-z]+_only|[a-z_]+\(\{?)$",
                              re.IGNORECASE)


_FINGERPRINT = re.compile(r"SHA256:[A-Za-z0-9+/]{43}=?(?![A-Za-z0-9+/=])|MD5(?::[0-9a-f]{2}){16}")


def _truncated_token(value: str) -> bool:
    """A token a log cut short ("NIaqwlltF88UCA2HLPTwuke...", 24 token characters or more
    before the ellipsis): the token is there, not stood in for."""
    head, sep, tail = value.partition("...")
    return (bool(sep) and len(head) >= 24 and not tail.strip(".")
            and all(ch.isalnum() or ch in "+/=_-" for ch in head))


def stands_in(value: str) -> bool:
    """Whether ``value`` is what a tool or a document writes in a secret's place."""
    if _STANDS_IN_WHOLE.match(value) is not None:
        return True
    if not value.isascii() and _CAPITALS_PLACEHOLDER.fullmatch(value) is not None:
        return True  # another script's YOUR_API_KEY ("ВАШ_API_КЛЮЧ")
    lower = value.lower()
    if any(part in lower for part in _STANDS_IN_PARTS) and not _truncated_token(value):
        return True
    if len(value) > 4 and value.startswith("%%") and value.endswith("%%"):
        return True  # a template's placeholder (CiviCRM's '%%siteKey%%')
    if value[:1] == "[" and value[1:].isalpha() and value[1:].isupper() and len(value) > 4:
        return True  # a note in brackets, cut at its first space ("[REMOVED BY MODERATOR]")
    if ("•" in value or "●" in value or "\\u2" in value) and _BULLETS.search(value) is not None:
        return True
    if value[-1:] in ("_", "-") and _PREFIX_ONLY.fullmatch(value):
        return True
    # what it ends with, as "$" reads an end: the last character, or before a last "\n"
    ends = (lower, lower[:-1]) if lower.endswith("\n") else (lower,)
    return any(end.endswith(_HERE) or _x_run_after_joiner(end) for end in ends)


# "Put it here" as documentation writes it in English and beside it ("vul-hier-in",
# "hier_eintragen", "a-remplir", "pon-aqui", "inserisci-qui")
_HERE = ("_here", " here", "-here", "hier-in", "hier_in", "hier in", "eintragen", "remplir",
         "rellenar", "_aqui", "-aqui", "_aquí", "-aquí", "_qui", "-qui")


def _x_run_after_joiner(text: str) -> bool:
    """Three or more x's at the end, after "_", "-" or "." (ghp_xxxxxxxx, "token-XXX",
    SendGrid's "SG.xxxxx")."""
    head = text.rstrip("x")
    return len(text) - len(head) >= 3 and head.endswith(("_", "-", "."))


# Words that follow "password:" in prose and documentation, not passwords ("# password:
# supplied at upload time", "token: optional").
_PROSE_WORDS = frozenset((
    # OAuth's client authentication methods, as an OIDC discovery document lists them under
    # token_endpoint_auth_methods_supported
    "client_secret_basic", "client_secret_post", "client_secret_jwt", "private_key_jwt",
    # a strength meter's verdicts, a code's keyword in a diff
    "strong", "weak", "medium", "very strong", "return",
    # a password manager named where the password is kept ("heslo je v trezoru 1Password")
    "1password", "bitwarden", "keepass", "lastpass", "keeper",
    "tls_client_auth", "self_signed_tls_client_auth",
    "supplied", "required", "optional", "provided", "missing", "invalid", "incorrect",
    "generate", "auto", "random",
    # a field's name as the value (an ExternalSecret's "secretKey: username")
    "username", "user", "login", "email", "host", "hostname", "port", "database",
    # a type where the value goes (pydantic's openai_api_key: SecretStr), a key exchange's
    # group (openssl s_client's "Peer Temp Key: X25519")
    "secretstr", "secretbytes", "x25519", "x448",
    # what a loader says it did ("secrets: loaded 7 secrets"), git's credential helpers
    # (credential.helper=cache), where a voicemail keeps its PINs (passwordlocation=spooldir)
    # and an instance's role as credentials (credentials: instance-profile)
    "loaded", "fetched", "found", "synced", "retrieved", "resolved", "refreshed", "cache",
    "store", "osxkeychain", "libsecret", "wincred", "manager-core", "spooldir",
    "instance-profile", "successfully",
    # AWS CloudTrail's stand-in for a value it withholds
    "hidden_due_to_security_reasons",
    # an encoding named where the value goes ("Authorization: Basic base64(key:secret)")
    "base64", "b64",
    # the word for a password itself, as a form's label (i18n: "login.password": "...")
    "كلمة المرور", "كلمة السر", "mot de passe", "contraseña", "passwort", "kennwort", "senha",
    "wachtwoord", "hasło", "şifre", "пароль", "密码", "パスワード", "비밀번호", "parola",
    "salasana", "lösenord", "adgangskode", "heslo", "jelszó",
    # (a key that is public by design: a Sentry DSN's "sentry_key=public")
    "public",
    "expired", "changed", "hidden", "stored", "unset", "empty", "blank", "omitted", "prompted",
    "generated", "encrypted", "masked", "removed", "rotated", "updated", "injected", "mounted",
    "read", "set", "see", "same", "from", "via", "will", "must", "should", "is", "was",
    "are", "not", "never", "ignored", "disabled", "enabled", "inherited", "unchanged",
    # what prose calls the flag itself ("does not recognize --api-key argument"), and booleans
    "argument", "arguments", "option", "options", "flag", "flags", "parameter", "parameters",
    # the Fetch API's credentials mode ({"credentials": "include"}): whether cookies go along
    "include", "omit", "same-origin",
    "variable", "variables", "setting", "settings", "field", "true", "false", "arg", "args",
    # a tool's prompt, then its warning on the next line (docker login's "WARNING!")
    "warning", "warning!", "error", "note",
    # what a server sets a cookie to when it ends a session (auth_token=deleted; expires=...)
    "deleted",
    # a client's error after the word ("failed to fetch oauth token: unexpected status: 401")
    "unexpected",
    # Terraform's plan for a value it cannot show ("(known after apply)", "(sensitive value)")
    "(known", "(sensitive",
    # a check's outcome after its dotted leader (pre-commit's "detect private key.....Passed")
    "passed", "failed", "skipped",
    # who may hold one, in prose ("Treat it like a key: anyone with the PIN ...")
    "anyone", "anybody", "someone", "somebody", "everyone", "nobody", "nothing",
    # a field reference's notes on its columns ("secret : reserved", "key : display")
    "reserved", "display",
    # what a checklist or a policy says of it ("Wi-Fi guest PSK: regenerate", netsh's
    # "key=clear", "Passwort: mindestens 12 Zeichen", Koha's "RequireStrongPassword: Require")
    "regenerate", "clear", "mindestens", "minimum", "require", "enforce", "enforced", "enable",
    "disable", "allow", "deny",
    # (and in Italian and Spanish: "Requisiti password: almeno 8 caratteri")
    "almeno", "minimo", "m\u00ednimo",
    # (an Azure SDK setting's way to authenticate: EventHub__Credential=managedidentity)
    "managedidentity", "workloadidentity", "azurecli", "defaultazurecredential"))
# A Sealed Secret's ciphertext (kind: SealedSecret, encryptedData): made to be committed, and
# no text a person types starts with the byte 0x02 ("Ag" in base64).
# (and AWS KMS's ciphertext blob, as SSM prints a SecureString not decrypted: "AQICAH...")
# A one-way hash in its scheme's format: crypt's "$id$salt$hash" (bcrypt, SHA-crypt, Argon2,
# yescrypt), an algorithm and its salt and hash ("SHA3-512$salt$hash", "pbkdf2_sha256$..."),
# a hex digest after its algorithm ("SHA1:1a79a4d6..."), LDAP's "{SSHA}...".
_ONE_WAY_HASH = re.compile(
    r"\$(?:2[abxy]?|1|5|6|7|y|gy|apr1|argon2(?:id|i|d)|scrypt|pbkdf2[\w-]*|sha\d*|md5)\$\S{8,}"
    r"|(?i:sha3?-?\d{0,3}|pbkdf2_sha\d+|argon2\w*|bcrypt(?:_sha256)?|scrypt|md5)\$[^\s$]+\$\S{8,}"
    r"|(?i:sha(?:1|224|256|384|512)|md5|ssha):[0-9a-fA-F]{32,}"
    r"|\{(?i:s?sha\d*|md5|crypt|pbkdf2[\w-]*|argon2\w*)\}\S{8,}")
_NOT_A_SECRET_VALUE = re.compile(
    r"(?i)(?:var)?char\(\d+\)?$|(?:var)?binary\(\d+\)?$|(?-i:&[0-9a-fk-or][A-Z][a-z]+(?: |$))|@/"
    r"|0{8}-0{4}-0{4}-0{4}-0{12}|\(?(?:argon2(?:id|i|d)?|bcrypt|scrypt|pbkdf2|sha-?\d+)\W*$"
    r"|(?:2fa|mfa|otp)-?codes?\W*$")
_SEALED = re.compile(r"Ag[A-Za-z0-9+/]{200,}={0,2}|AQ[IE][BCD]AH[A-Za-z0-9+/]{60,}={0,2}")
# Stripe's test-mode tokens and payment methods by name (tok_visa, pm_card_mastercard): what its
# docs tell tests to send; a real one is its prefix and 24 mixed-case letters and digits.
_STRIPE_TEST = re.compile(r"(?:tok|pm|src)_[a-z]+(?:_[a-z0-9]+)*")
# Public by design: Mapbox's pk. tokens and Stripe's publishable keys ship in web pages; public
# keys and certificates; values encrypted at rest (SOPS's ENC[AES256_GCM,...], Ansible's
# !vault).
# (and Midtrans' client key, which its Snap page embeds: Mid-client-...)
# (and a public key's DER in base64, as a browser extension's manifest "key" holds it: RSA's
# SubjectPublicKeyInfo, 2048 and 4096 bits, and an EC P-256 key's)
_PUBLIC = re.compile(r"pk\.eyJ|pk_(?:live|test)_|Mid-client-|-----BEGIN (?:PUBLIC KEY|CERTIFICATE)"
                     r"|MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A|MIICIjANBgkqhkiG9w0BAQEFAAOCAg8A"
                     r"|MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE"
                     # (the LM and NT hashes of the empty password: constants, no secret)
                     r"|(?i:aad3b435b51404eeaad3b435b51404ee|31d6cfe0d16ae931b73c59d7e0c089c0)$"
                     r"|ssh-(?:ed25519|rsa|dss)|ecdsa-sha2-|ENC\[|!vault"
                     # Stripe's object ids (a card's single-use token, a customer, a charge: 14
                     # to 28 characters; tok_ and 40 is an OAuth server's access token)
                     r"|(?:tok|pm|card|cus|ch|pi|seti|src)_[A-Za-z0-9]{14,30}$")
# An environment variable's name (os.environ["PASSWORD_MIN_LENGTH"], --api-key-env
# OPENAI_API_KEY): capitals and underscores, naming a secret's kind.
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_SECRET_PART = re.compile(r"KEY|TOKEN|SECRET|PASS|PWD|CREDENTIAL|AUTH")
_SECRET_RESOURCE_NAME = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*-(?:tls|certs?|secrets?|creds"
                                   r"|credentials|keys?|tokens?)")
# ... or one that names a setting (a secretKeyRef's "key: DATABASE_URL")
_ENV_NAME_ENDS = ("_URL", "_URI", "_DSN", "_HOST", "_HOSTNAME", "_ENDPOINT", "_ADDR", "_PORT",
                  "_PATH", "_FILE", "_DIR", "_NAME", "_USER", "_USERNAME", "_ID", "_REGION",
                  "_BUCKET", "_CONFIG")
# Code, not a value: a call or a path through names (System.getenv(, re.compile(, std::env::var(,
# Rails.application.credentials.dig(, Aws::InstanceProfileCredentials.new).
# A key's id, not the key: 8, 16 or 40 capital hex digits (a GPG key id or fingerprint).
_KEY_ID = re.compile(r"(?=[0-9A-F]*[A-F])(?=[0-9A-F]*\d)(?:[0-9A-F]{8}|[0-9A-F]{16}|[0-9A-F]{40})")
# A PEM block's first word: the private key detector finds the block whole.
_PEM_START = "-----BEGIN"
_CODE = re.compile(
    # (optional chaining too: req.headers.authorization?.split(' '))
    r"[A-Za-z_]\w*(?:(?:\??\.|::)[A-Za-z_]\w*)+\(|[A-Za-z_]\w*::[A-Za-z_]"
    # a call of a snake_case name or a builtin, a subscript by a name, a tuple's opening
    r"|[a-z_][a-z0-9]*_[a-z0-9_]*\(|(?:set|list|dict|tuple|sorted|len|str|int|bytes|bool|getattr"
    r"|open|lambda)\b|[A-Za-z_]\w*\[[A-Za-z_]|\([A-Za-z_]\w*\(|self\.|cls\.|this\."
    # an encoding's or a digest's call, as a template writes how a value is made
    # ("Password = base64(Shortcode + Passkey + Timestamp)")
    r"|(?:base64|b64encode|btoa|sha(?:1|256|512)|md5|hmac)\("
    # a formula's function ("passphrase: log2(7776^5) = ...", an entropy worked out)
    r"|(?:log2|log10|log|ln|exp|sqrt|pow|abs|floor|ceil)\("
    # an attribute path's subscript, a call with a string (a key read from configuration,
    # "builder.Configuration[\"Jwt:Key\"]"; a prompt, "getpass(\\\"HF token\\\")")
    r"|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\[|[A-Za-z_]\w*\(\\*[\"']"
    # a call of a CamelCase, camelCase or Capital_snake name on names (ObjectKeys(target),
    # prepareSecretKey(key, ...), PEM_string2key($data))
    r"|(?:[A-Za-z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[A-Z][A-Za-z0-9]*_\w+)"
    r"\((?:[$@]?[A-Za-z_][\w.]*(?:, ?[$@]?[A-Za-z_][\w.]*)*)?(?:\)|$)")
# What every code it matches holds or opens with.
_CODE_OPENINGS = ("set", "list", "dict", "tuple", "sorted", "len", "str", "int", "bytes", "bool",
                  "getattr", "open", "lambda", "self.", "cls.", "this.")


def _may_be_code(value: str) -> bool:
    """False only where ``_CODE`` cannot match at the start of ``value``."""
    return "(" in value or "[" in value or "::" in value or value.startswith(_CODE_OPENINGS)
# A name, not a value: a private variable (_token, _AzureApiKeyT) or an attribute path with no
# digit (Keyword.Type, Name.Variable).
# An API object's field name in lowerCamelCase, the next word after "Secret:" in Kubernetes'
# "failed to list *v1.Secret: resourceVersion 1100254 is too old" (secretName, keyRef...).
_API_FIELD = re.compile(r"[a-z]{2,}(?:[A-Z][a-z]+)?(?:Version|Name|Ref|Id|Key|Type|Count|Time"
                        r"|Policy|Mode|Path|Status|Spec|Selector|Namespace)")
# (and a label's dotted name with dashes: "io.cri-containerd.image")
_IDENTIFIER = re.compile(r"_[a-z][a-z0-9]*(?:_[a-z0-9]+)*|_[A-Z][A-Za-z]*"
                         r"|(?:[A-Z]?[a-z]+|[a-z_]+(?:-[a-z]+)*)"
                         r"(?:\.(?:[A-Z]?[a-z]+|[a-z_]+(?:-[a-z]+)*))+")
# Not a value: a timestamp (password_changed_at: 2026-08-08T21:39:00Z), the next field of a
# struct or map print ("token: created_at:2026-...", not Rancher's "kubeconfig-user-x:<token>"),
# Vault's audit log's HMAC of a value ("hmac-sha256:..."), a password's hash ($2b$, $argon2id$,
# $6$, $apr1$), a Windows variable (%DB_PASSWORD%), a module's attribute (pkg.module:name), an
# LDAP time (20240415095018Z).
_NOT_A_VALUE = re.compile(
    r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?)?$"
    # (a name and a colon: a struct's next field; a word with a digit in it is a password's
    # first half, "pwag64nixe:a4X94s"; and a name in one case or capitalised: letters of
    # mixed case before the colon are a password's, "MGq:%FQZDi*aP0")
    r"|(?:[a-z_][a-z_-]*|[A-Z][a-z_-]*|[A-Z_][A-Z_-]*|[A-Z]?[a-z]+(?:[A-Z][a-z0-9]+)+):(?!//)"
    r"(?![A-Za-z0-9]{32,}$)|hmac-sha(?:1|256|384|512):|\$(?:2[aby]?|argon2(?:id|i|d)?|[156]|apr1|pbkdf2[\w-]*)\$"
    # Cisco's type 8 and 9 hashes ($9$salt$hash; Junos' reversible $9$ has no second "$") and
    # the ASA's $sha512$
    r"|\$[89]\$[^$\s]+\$|\$sha512\$"
    # Django's and Passlib's hashes: the algorithm's name, then "$" (pbkdf2_sha256$600000$...,
    # bcrypt_sha256$$2b$..., argon2$argon2id$...)
    r"|(?:pbkdf2_sha(?:1|256|512)|bcrypt(?:_sha256)?|argon2|scrypt)[$:]\$?[\w$./+=,-]{20,}$"
    # a cookie's name (__Secure-next-auth.session-token)
    r"|__(?:Secure|Host)-[\w.-]+$"
    # a command's long option (wandb login --relogin)
    r"|--[a-z][a-z-]*[`'\")]?$"
    r"|%[A-Z_][A-Z0-9_]*%$|string\(\d+\)?|\d{14}(?:\.\d+)?Z$"
    # a duration as .NET prints a TimeSpan (Get-ADDefaultDomainPasswordPolicy's
    # MaxPasswordAge : 42.00:00:00), a signed score (SpamAssassin's tests=[SPF_PASS=-0.001])
    r"|(?:\d+\.)?\d\d:\d\d:\d\d(?:\.\d+)?$|[-+]\d*\.?\d+$"
    # a directory's distinguished name ({CN=SQL-PRD-03,OU=Servers,...}: who may read a
    # managed password, not the password)
    r"|\{(?:CN|OU|DC)=|(?:CN|OU|DC)=[^,=\s]+,(?:CN|OU|DC)="
    # a regular expression's rest (a log pipeline's rule: pattern: (?:api_key=)[a-f0-9]{28})
    r"|\)?\[\^?(?:\w-\w)+"
    # a spec of options (docker build --secret id=npmrc,src=$(HOME)/.npmrc)
    r"|[a-z]+=[^,\s]*,[a-z]+="
    # a service account's token Secret (Mountable secrets: default-token-nwv80)
    r"|[a-z0-9][a-z0-9.-]*-token-[a-z0-9]{5}$"
    # an entry point (detect-secrets = detect_secrets.main:main)
    r"|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+:[A-Za-z_]\w*$"
    # an object as Java and Android print it: its class and identity hash
    # (android.os.BinderProxy@2bd79ce, Token{a64f992 ActivityRecord{...}}); a hash with a
    # hex letter in it (all digits, it is more likely a password's tail: "Test@88990011"),
    # after "@" only a class's name in parts or in CamelCase (one word, it is a password's
    # head: "Neko@8001a")
    r"|(?:[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+@|[A-Z][a-z\d$]*[A-Z][\w$]*@"
    r"|[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*\{)(?=\d*[a-f])[0-9a-f]{5,8}(?![0-9A-Za-z])"
    # a reverse-DNS name (com.apple.xpc.activity/4505) and Android's notification key
    # (0|com.tencent.mm|4097|null|10112)
    r"|(?:com|org|net|io|android|androidx)\.[a-z]\w*(?:\.\w+)+(?:/|$)"
    r"|-?\d+\|(?:com|org|net|io|android|androidx)\.\w+(?:\.\w+)*\|"
    # a template's placeholder ({device-key}: its closing brace ends the value)
    r"|\{[A-Za-z][\w.-]*\}?$"
    # a Debian package's architecture (libsecret-1-0:amd64)
    r"|(?:amd64|arm64|i386|armhf|armel|ppc64el|s390x|riscv64|mips64el)\W?$")
# What every string it matches holds, or opens with (keep in step with the pattern: a test
# checks this against it on every corpus's words).
_NO_VALUE_OPENINGS = ("string(", "com.", "org.", "net.", "io.", "android", "amd64", "arm64",
                      "i386", "armhf", "armel", "ppc64el", "s390x", "riscv64", "mips64el",
                      "pbkdf2_", "bcrypt", "argon2$", "argon2:", "scrypt$")


def _may_be_no_value(value: str) -> bool:
    """False only where ``_NOT_A_VALUE`` cannot match at the start of ``value``."""
    return (":" in value or "@" in value or "{" in value or "|" in value
            or "-token-" in value or ("=" in value and "," in value)
            or value[:1] in "$_-%[)+" or value[:1].isdigit()
            or value.startswith(_NO_VALUE_OPENINGS))


def telecom_id_ok(candidate: str) -> bool:
    """An IMEI (14 or 15 digits, 16 with a software version), an IMSI (14 or 15), an ICCID
    (18 to 22, an "F" filler at the end) or a MEID (14 hexadecimal digits) under its name;
    not one character repeated (a stand-in)."""
    compact = candidate.replace(" ", "").replace("-", "")
    return (len(set(compact)) > 1 and (14 <= len(digits(compact)) <= 22 or len(compact) == 14)
            # (not a test network's subscriber: MCC 001 and 999 are for test SIMs,
            # "001010000000000" a lab's fixture)
            and not (len(compact) == 15 and compact.startswith(("00101", "999"))))


def lowered(text: str) -> str:
    """``text`` in lower case, each character where it was: lower() lengthens only "İ" (to
    "i" and a combining dot), which is read as "i" first. (15 times faster on a non-ASCII
    line than a translate() of the ASCII capitals alone.)"""
    lower = text.lower()
    return lower if len(lower) == len(text) else text.replace("\u0130", "i").lower()


def command_line_secret_ok(candidate: str) -> bool:
    """A secret after its flag on a command line, not a usage line's placeholder for one:
    its metavar in capitals ("[--token TOKEN]") or its type ("--api-key string")."""
    bare = candidate.rstrip("]").strip("<>")
    if bare.lower() in _METAVARS or (bare.isalpha() and bare.isupper()):
        return False
    # (nor a usage line's optional argument, "--set-password [profile]", nor PowerShell's
    # expression that computes it: --set-password ([Runtime.InteropServices...]::...))
    if candidate.startswith("(") or (candidate.startswith("[") and candidate.endswith("]")):
        return False
    if candidate.startswith("_") and candidate.endswith("_access"):
        return False  # AnyDesk's permission profile, the password after it (_unattended_access)
    return secret_value_ok(candidate)


_METAVARS = frozenset(("string", "str", "text", "value", "token", "secret", "key", "pass",
                       "password", "passwd"))


_POSSESSIVE = re.compile(r"[A-Z]?[a-z]+['\u2019]s")
_CSS_COLOUR = re.compile(r"#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})")
_EMOJI_CODE = re.compile(r":?[a-z0-9_+-]+:\.?")
_MASKED = re.compile(r"(?i)x{4}[- ]x{4}|\*{4}[- ]?\*{4}")
_TWILIO_RESOURCE_SID = re.compile(r"(?:CA|SM|MM|MG|PN|RE|CF|QU|IS|VA|WW|FW)[0-9a-f]{32}")
# A pattern or a schedule where a value would be (a scanner's rule, "aws_access_key:
# 'A(KIA|SIA)[A-Z0-9]{16}'"; a job's cron, "rotate_session_keys: \"0 3 * * 0\""): no secret.
_PATTERN_OR_CRON = re.compile(r"\[[A-Za-z0-9]-[A-Za-z0-9]|\\[dwsb][+*{]|\{\d+(?:,\d*)?\}|\(\?[:=!<]"
                              r"|^[\d*/,-]+(?: [\d*/,?A-Za-z-]+){4,5}$")


def secret_value_ok(candidate: str) -> bool:
    """A value under a secret's key that is not just the name of one, a file's path, a
    reference to where the secret is kept or what a tool prints in its place."""
    # (quotes and backticks around it, and what ends a sentence or a call after it)
    if candidate.strip("\"'").startswith(("`", "$(")) and (
            " " in candidate or candidate.strip("\"'").startswith("$(")):
        # a command that prints it (mutt's imap_pass = "`pass show mail/imap`"; a shell's
        # "$(vault kv get ...)", cut at its first space)
        return False
    if candidate.strip("\"'").startswith(("!/", "$${", "{$", "//")):
        # git's credential helper command, FreeSWITCH's $${var}, {$var}; a URL's rest after a
        # key's word and its scheme's colon (git's credential.https://host.helper=...)
        return False
    if (candidate.startswith("::") or _SCOPED_CLOSE.fullmatch(candidate) or "{env:" in candidate
            or "{vault:" in candidate):
        # a scope's operator after a name (Gradle's PasswordCredentials::class, the key's
        # colon read as the first), Hatch's environment references ({env:PIP_PASSWORD}), a
        # Spring app's reference into Vault ({vault:secret/data/app#db_password})
        return False
    if candidate.startswith(("\u00bf", "\u00a1")):
        return False  # a Spanish question's first word ("Pregunta secreta: \u00bfCiudad ...?")
    if candidate.strip("\"'`").endswith(":") and candidate.strip("\"'`:").isalpha():
        return False  # a label after the secret's word ("client ID and secret: `Authorization:")
    if _SCHEME_NAME.fullmatch(candidate) is not None:
        return False  # an Authorization scheme's name ("Klaviyo-API-Key [REDACTED]")
    bare = candidate.strip("\"'`").rstrip("):`")
    if bare.startswith("{cipher}${"):
        bare = bare[8:]  # Spring Cloud Config's cipher of a variable: the variable's reference
    if bare.startswith("(") and bare[1:].replace(" ", "").isalpha():
        return False  # a note in its place ("webhook_secret: (shown once on creation)")
    if bare.startswith(("(-", "([")):
        return False  # PowerShell's expression that computes it ("$pw = (-join (...))")
    if _NAME_LIST.fullmatch(candidate):
        return False  # a list of names (docker-compose's "secrets: [db_root]")
    if _SECRETS_NAME.fullmatch(bare.rstrip(",")) is not None:
        return False  # a secret's name in camelCase ("# keys: twilioAuthToken, sendgridApiKey")
    if candidate.startswith("`") and not candidate.rstrip(".,;:)").endswith("`"):
        # a code span that opens after the word and runs on past the value ("Update the
        # Kubernetes secret: `kubectl -n x create secret ...`")
        return False
    if _FINGERPRINT.match(bare) is not None:
        return False  # a public key's fingerprint ("ssh key: SHA256:..."): published
    if _VENDOR_PREFIX.fullmatch(bare) is not None:
        return False  # a vendor's prefix alone, its value hidden ("amzn1.oa2-cs.v1.<hidden>")
    if bare.endswith(".") and not bare.endswith(".."):  # (an ellipsis stands in for a value)
        bare = bare[:-1].rstrip("`):")  # (a sentence's end after a call's: "(key: X).")
    # a stand-in percent-encoded in a query ("token=%3Credacted%3E")
    plain = unquote(bare) if "%" in bare else bare
    if _keyboard_run(plain) or _placeholder_in_base64(plain):
        return False
    if (_POSSESSIVE.fullmatch(plain) or _CSS_COLOUR.fullmatch(plain)
            or _EMOJI_CODE.fullmatch(candidate) or _MASKED.search(plain)
            or _TWILIO_RESOURCE_SID.fullmatch(plain)):
        # a name's possessive in prose ("(Token = Paxton's term for a card)"), a stylesheet's
        # colour ("--token-highlight: #ffe066"), an emoji's short code ("keep it secret
        # :shushing_face:."), a masked value ("Licence key: XXXX-XXXX-XXXX-XR8E"), a Twilio
        # resource's SID (a call's, a message's: ids, not its API key's SK...)
        return False
    if ("{" in plain or "[" in plain or "*" in plain or "(?" in plain or "\\" in plain) \
            and _PATTERN_OR_CRON.search(plain):
        return False
    if (_NOT_A_SECRET_VALUE.match(plain) is not None or _ONE_WAY_HASH.match(plain) is not None
            or len(set(plain.lower())) == 1):  # (one character repeated: a factory default)
        # a one-way hash, a column's SQL type, a game's colour-coded message, a file read in
        # its place ("password=@/dev/stdin"), a UUID of zeros, a hash's algorithm, "2FA-Code"
        return False
    if not plain.isascii() and (_prose_word(plain) or plain.endswith(("。", "।", "؟"))):
        return False  # a message under a secret's key ("password_short": "Пароль должен ...")
    # (each costly pattern runs only when a cheap test says it could match: together they
    # took two thirds of a secret's validation)
    return (any(ch.isalnum() for ch in plain) and not stands_in(plain)
            # a pin or a comparison, not an assignment (tiktoken==0.7.0, Key==`Name`); a
            # password may open with "=" and a letter or a digit
            and not (bare.startswith("=")
                     and (not bare[1:2].isalnum() or _VERSION_PIN.fullmatch(bare)))
            and plain.lower() not in _PROSE_WORDS
            and not (_may_name_a_secret(bare) and _NAMES_A_SECRET.fullmatch(bare))
            and _CAMEL_SECRET_NAME.fullmatch(bare) is None
            and not ("/" in bare and _PATH.fullmatch(bare)
                     and _SLASH_LED_TOKEN.fullmatch(bare) is None
                     and not (_AWS_SECRET_SHAPE.fullmatch(bare) and aws_secret_like(bare)))
            and _REFERENCE.match(bare) is None
            and _SEALED.fullmatch(bare) is None and _PUBLIC.match(bare) is None
            and _STRIPE_TEST.fullmatch(bare) is None
            and not (_may_be_code(bare) and _CODE.match(bare))
            and _KEY_ID.fullmatch(bare) is None
            and _NAMESPACED_ID.fullmatch(bare) is None and _IDENTIFIER.fullmatch(bare) is None
            and _API_FIELD.fullmatch(bare) is None
            and not (_may_be_no_value(bare) and _NOT_A_VALUE.match(bare))
            # (one capital word naming one too: WeChat's documentation's secret=APPSECRET)
            and not (bare.isalpha() and bare.isupper() and _SECRET_PART.search(bare))
            and not (_ENV_NAME.fullmatch(bare) and (_SECRET_PART.search(bare)
                                                     or bare.endswith(_ENV_NAME_ENDS)))
            and not bare.startswith(_PEM_START)
            # the next field of a line after a key that names a job ("xero-token-refresh:
            # tenants=4 refreshed=31"): a name and a count, no secret; a date and a time
            # (when a stream key was last rotated)
            and _FIELD_AND_COUNT.fullmatch(bare) is None
            and _DATE_TIME_VALUE.fullmatch(bare) is None
            # a Kubernetes Secret's name (cert-manager's secret=api-example-tls)
            and _SECRET_RESOURCE_NAME.fullmatch(bare) is None
            # a record's number under a bare "key" (a Kafka record's key=DE-2023-298596) and
            # an event's constant (a WeChat menu button's "key": "V1001_ORDER")
            and _RECORD_NUMBER.fullmatch(bare) is None and _EVENT_CONSTANT.fullmatch(bare) is None)


_SCOPED_CLOSE = re.compile(r":\w+\)")  # (what "::class)" leaves after a key's colon)
_VENDOR_PREFIX = re.compile(r"[a-z]{2,8}\d\.(?:[a-z0-9-]{1,8}\.){1,4}")
_RECORD_NUMBER = re.compile(r"[A-Z]{2,5}-(?:19|20)\d\d-\d{3,9}")
_EVENT_CONSTANT = re.compile(r"[A-Z]+\d+(?:_[A-Z]{3,})+")


# (or an address: "Invalid encryption key: host=192.168.1.75, port=6053")
_FIELD_AND_COUNT = re.compile(r"[a-z][a-z_]{1,23}=(?:\d{1,6}|\d{1,3}(?:\.\d{1,3}){3})")
_DATE_TIME_VALUE = re.compile(r"(?:19|20)\d\d-[01]\d-[0-3]\d(?:[T ][0-2]\d(?::[0-5]\d(?::[0-5]\d"
                              r"(?:\.\d{1,9})?)?)?(?:Z|[+-][0-2]\d:?[0-5]\d)?)?")
# A version a requirement pins, the "=" of "==" left in front ("=0.7.0", "=2.1.0rc1").
_VERSION_PIN = re.compile(r"=+[ \t]*v?\d+(?:\.\d+)*(?:[._+-]?[a-z]+\d*)*(?:\.\*)?")


# A key that only starts with "/" (an AWS secret key: 40 base64 characters, "/" among them):
# one segment, long, in mixed case with digits, which no file's path is.
_SLASH_LED_TOKEN = re.compile(r"/(?=[A-Za-z0-9+]*[a-z])(?=[A-Za-z0-9+]*[A-Z])"
                              r"(?=[A-Za-z0-9+]*\d)[A-Za-z0-9+]{19,}")
_SCHEME_NAME = re.compile(r"(?i)[a-z]+-api-key")
# An AWS secret access key: 40 base64 characters in mixed case with digits, which may hold
# "/" anywhere ("/zF/Z6kzA6op5DMq3fEYCti96WFGUshy8XZiO0Bh" reads as a path).
_AWS_SECRET_SHAPE = re.compile(r"[A-Za-z0-9+/]{40}")  # (its cases and digit: aws_secret_like)


def _keyboard_run(value: str) -> bool:
    """Documentation's example value typed along the keyboard (certbot's api_token
    0123456789abcdef0123456789abcdef01234567)."""
    lower = value.lower()
    return "0123456789abcdef" in lower or "abcdef0123456789" in lower


_BASE64_VALUE = re.compile(r"[A-Za-z0-9+/]{8,}={0,2}")


def _placeholder_in_base64(value: str) -> bool:
    """A Kubernetes Secret's base64 of a stand-in (cGxhY2Vob2xkZXI= is "placeholder",
    Q0hBTkdFX01F "CHANGE_ME")."""
    if len(value) > 64 or _BASE64_VALUE.fullmatch(value) is None:
        return False
    text = b64_text(value)
    return text is not None and (stands_in(text)
                                 or text.lower() in ("placeholder", "change_me", "secret",
                                                     "password", "todo", "tbd"))


def _prose_word(text: str) -> bool:
    """A word of a script's prose: letters and their marks only (Devanagari's vowel signs are
    marks), no capital inside it."""
    return (all(unicodedata.category(ch)[0] in "LM" for ch in text)
            and not any(ch.isupper() for ch in text[1:]))


def spaced_secret_ok(candidate: str) -> bool:
    """A quoted secret with spaces in it (a passphrase), not a sentence (a locale file's
    "password_short": "La contraseña debe tener al menos 12 caracteres.") nor a stand-in
    ("[redacted len=1187]")."""
    words = candidate.split()
    if len(words) >= 4 and candidate.rstrip().endswith((".", "।", "。", "!", "?", "…")):
        return False
    lower = candidate.lower()
    if candidate.startswith(("[", "<", "(")) and any(
            word in lower for word in ("redact", "mask", "filter", "hidden", "omit")):
        return False
    return secret_value_ok(candidate)


def table_secret_ok(candidate: str) -> bool:
    """A value in a table's row under a secret's name: a token (a digit, or both cases), not
    a stand-in or a reference."""
    return tokenish(candidate) and secret_value_ok(candidate)


def credential_ok(candidate: str) -> bool:
    """A token (see :func:`tokenish`) that is not one already masked ("sk-...REDACTED") nor
    documentation's stand-in ("hf_org_api_key_YourOrganizationToken", "abcdef1234567890...")."""
    return (tokenish(candidate) and _not_a_stand_in(candidate)
            and _SCHEME_NAME.fullmatch(candidate) is None)


def header_credential_ok(candidate: str) -> bool:
    """What an Authorization header carries, however short or plain ("devsecret"): anything
    but a name, a reference or a stand-in (:func:`secret_value_ok`, and documentation's
    "YourTokenHere" or masked forms as :func:`credential_ok` reads them)."""
    return secret_value_ok(candidate) and _not_a_stand_in(candidate)


def _not_a_stand_in(candidate: str) -> bool:
    lower = candidate.lower()
    return ("..." not in candidate and "…" not in candidate and "***" not in candidate
            and "redacted" not in lower and _WRITTEN_AS_PLACEHOLDER.search(candidate) is None)


# Documentation's stand-ins for a token: words that tell the reader what to put there
# (YourTokenHere, _your_token_, ...Here), and runs typed along the keyboard.
_WRITTEN_AS_PLACEHOLDER = re.compile(
    r"(?:^|[_.-])(?:Your|YOUR)(?=[A-Z_.-])|(?<=[a-z])Here$|[_.-](?:your|here)(?:[_.-]|$)"
    r"|1234567890|0123456789|abcdefghij|(?i:abcdef123456)")


def told_password(candidate: str) -> bool:
    """A password told with no verb or separator: password-shaped (or mixed case with two of
    the symbols password rules ask for: "*JxQlav$%!yxq") and not a stand-in."""
    symbols = sum(ch in _RULE_SYMBOLS for ch in candidate)
    mixed = (any(ch.isupper() for ch in candidate) and any(ch.islower() for ch in candidate))
    return (password_like(candidate) or (mixed and symbols >= 2)
            or (mixed and _random_letters(candidate))) and secret_value_ok(candidate)


def named_password(candidate: str) -> bool:
    """A password right after its short name and no verb ("pw bronco.1967", "pass: Roma$",
    "password HS674IZZ"): letters with a digit or a rule's symbol, not a version, a path or a
    stand-in. The name says what it is; the shape only keeps words and numbers out."""
    bare = candidate.rstrip(".,;:)")
    if (len(bare) < 5 or bare.startswith(("/", "~", "-", "{", "}")) or "(" in bare
            or "{{" in bare or "}}" in bare or bare.endswith(("=", ":"))
            or _VERSION_LIKE.fullmatch(bare) or _PRICE.fullmatch(bare)):
        return False  # (a path, a note, a template's, an attribute's name: 'Password
        # encrypted="true"', a price: "HK$32 / S$5.20")
    # (a sentence's mark after a word is no symbol: "das Passwort geändert?"; after a word in
    # both cases it may be: "wtIipBqveu!")
    body = bare.rstrip("!?")
    mixed = any(ch.isupper() for ch in body) and any(ch.islower() for ch in body)
    # (or capitals inside letters that no words in CamelCase make: "password ZfLEAEPe")
    marked = (any(ch.isdigit() or ch in _RULE_SYMBOLS for ch in body)
              or (mixed and len(body) < len(bare))
              or (mixed and len(body) >= 8 and body.isalpha()
                  and _CAMEL_WORDS.fullmatch(body) is None))
    return ((any(ch.isalpha() for ch in bare) and marked and secret_value_ok(bare))
            or word_passphrase(bare))


def word_passphrase(candidate: str) -> bool:
    """Three to six words of four letters and more, joined by dashes, maybe a few digits
    after: a passphrase as generators make them ("maple-sunset-ember",
    "thistle-quartz-nebula-ripple"), under a password's name or in its column."""
    return _WORD_PASSPHRASE.fullmatch(candidate) is not None


_WORD_PASSPHRASE = re.compile(r"[a-z]{4,}(?:-[a-z]{4,}){2,5}\d{0,4}")


def paired_password(candidate: str) -> bool:
    """A password after a login and a slash with no name for either ("mike.f / Pant36Fwey#"):
    one of the symbols password rules ask for as well, which model names and versions
    ("GPT-4o / GPT-4o-mini") and pairs of words ("read / write") do not hold."""
    # (not a setting, "p50 / p99=12ms", nor a word with a mark, "read / write!")
    # (nor Markdown's bold closing after a name: "**1:1 Jennifer / Marcus**")
    body = candidate.rstrip("*")
    # (or twelve letters and digits and more, both cases, no words in CamelCase: a generated
    # one, "erik / yO7Q52ETgR1Teh")
    return ("=" not in body
            and (any(ch in _RULE_SYMBOLS for ch in body) or _generated_mix(body.rstrip(".,;:!?")))
            and any(ch.isdigit() or ch.isupper() for ch in candidate)
            and named_password(candidate))


def _generated_mix(candidate: str) -> bool:
    return (len(candidate) >= 12 and candidate.isascii() and candidate.isalnum()
            and any(ch.isdigit() for ch in candidate) and _case_switches(candidate) >= 4
            and _CAMEL_WORDS.fullmatch(candidate.rstrip("0123456789")) is None)


def bracketed_secret(candidate: str) -> bool:
    """A value after a secret's name and an aside in brackets: a PIN's digits, a key's
    letters and digits (16 and more), or a password's shape."""
    bare = candidate.rstrip(".,;:)")
    if bare.isdigit():
        return 4 <= len(bare) <= 12
    return ((len(bare) >= 16 and letters_and_digits(bare)) or password_like(bare)) \
        and secret_value_ok(bare)


def mixed_code(candidate: str) -> bool:
    """A code of capitals and digits, two of each at least (a release PIN, "7T6LGM"), not a
    word with a number ("VERIFY2", "ATM4")."""
    return (sum(ch.isdigit() for ch in candidate) >= 2
            and sum(ch.isalpha() for ch in candidate) >= 2)


# A version or a build's name ("v1.2.3", "TLSv1.3", "1.0.4-rc2"): no password
_PRICE = re.compile(r"[A-Za-z]{0,3}[$\u20ac\u00a3\u00a5\u20b9][\d.,]+[A-Za-z]{0,3}")
_VERSION_LIKE = re.compile(r"(?i)[a-z]{0,6}v?\d+(?:[._-]\d+)+(?:[._-]?[a-z]+\d*)?")


def _random_letters(candidate: str) -> bool:
    """Twelve letters and more in both cases that no words in CamelCase make up: a generated
    password ("oFDKNHXBOqEMRXWa"), not a name ("ReadOnlyAccess")."""
    return (len(candidate) >= 12 and candidate.isascii() and candidate.isalpha()
            and _CAMEL_WORDS.fullmatch(candidate) is None)


def generated_letters(candidate: str) -> bool:
    """Eight letters and more in both cases, the case switching often and no CamelCase words
    making them up: a generated password in a password's column ("ozOGzIUkWN")."""
    return (len(candidate) >= 8 and candidate.isascii() and candidate.isalpha()
            and _case_switches(candidate) >= 3 and _CAMEL_WORDS.fullmatch(candidate) is None)


_CAMEL_WORDS = re.compile(r"[A-Z]?[a-z]+(?:[A-Z][a-z]+)*|[A-Z]+[a-z]*(?:[A-Z][a-z]+)*")


_COOKIE_TOKEN = re.compile(r"[A-Za-z0-9%._~+/=-]{16,}")
# Analytics cookies (Google Analytics and Ads, Meta's pixel, Hotjar): a visitor's id and a
# timestamp, no credential.
_ANALYTICS_COOKIES = ("_ga", "_gid", "_gcl_", "_fbp", "_hj", "ajs_")


def cookie_header_ok(candidate: str) -> bool:
    """A Cookie header's value that holds a token-shaped value (a session's id), not only
    preferences ("theme=dark; lang=en-GB; consent=analytics:0")."""
    for pair in candidate.split(";"):
        name, _, value = pair.partition("=")
        value = value.strip()
        if name.strip().startswith(_ANALYTICS_COOKIES):
            continue  # a visitor's analytics id ("_ga=GA1.2.907934097.1722241722")
        target = unquote(value) if "%" in value else _base64_json(value)
        if target.startswith(("/", "https://", "http://")) and "@" not in target:
            continue  # where to go after a login (redirect_to=%2Fd%2Fllm-serving,
            # next-auth's callback-url=https%3A%2F%2F...)
        # (a signed cookie's fields apart: Tornado's and JupyterHub's "2|ea562ac5|<hex>|<hex>";
        # a percent-encoded one read as its text, its JSON or list apart: a consent's
        # {"necessary":true,...}, "SKU-530350,SKU-815469"; Express' "s:<id>.<signature>")
        parts = _COOKIE_FIELDS.split(target) if target else value.split("|")
        # (not a page's slug: last_visited_event=summer-fete-2024)
        if any(_COOKIE_TOKEN.fullmatch(part) and any(ch.isdigit() for ch in part)
               and any(ch.isalpha() for ch in part) and _SLUG.fullmatch(part) is None
               for part in parts):
            return True
    return False


_COOKIE_FIELDS = re.compile(r"[|,:{}\[\]\"' ]+")
_SLUG = re.compile(r"[a-z]+(?:-[a-z]+)+-\d{1,4}")


def _base64_json(value: str) -> str:
    """A cookie's value that is a JSON object in base64 (a preferences cookie's
    "eyJ0aGVtZSI6..."), decoded; "" for any other (a signed one holds a "." after it)."""
    if not value.startswith("eyJ") or "." in value:
        return ""
    try:
        decoded = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)).decode("utf-8")
    except (binascii.Error, ValueError):
        return ""
    return decoded if decoded.endswith("}") else ""


def app_password_ok(candidate: str) -> bool:
    """Four groups of four random letters (a Google app password), not four words: a
    group with no vowel, or one of the letters words seldom hold."""
    groups = candidate.replace("-", " ").split()
    return any(not set(g) & _VOWELS or set(g) & _RARE_LETTERS for g in groups)


_VOWELS = frozenset("aeiouy")
_RARE_LETTERS = frozenset("qxzj")


def told_passphrase(candidate: str) -> bool:
    """A password told beside the word for it: password-shaped, or a passphrase (letters and
    a digit, eight characters or more: "jupiter-marmotte-falcon59"), not a stand-in."""
    # (eight characters are enough: "zrbo2368", what a router's sticker and a provider's
    # letter print)
    passphrase = len(candidate) >= 8 and letters_and_digits(candidate)
    # (whose password it is, not the password: an account's id after the word, a UUID with
    # its sentence's full stop, Okta's user and group ids)
    return ((password_like(candidate) or passphrase) and secret_value_ok(candidate)
            and _UUID.fullmatch(candidate.removesuffix(".")) is None
            and _OKTA_ID.fullmatch(candidate) is None)


# Okta's user and group ids: 00u or 00g, then 17 letters and digits.
_OKTA_ID = re.compile(r"00[ug][A-Za-z0-9]{17}")


def sharepoint_owner_ok(candidate: str) -> bool:
    """A SharePoint personal site's owner, its address with "@" and "." as "_"
    (azhang_pinecrest_university_edu): a user's part and a domain of two labels and more,
    the last one a top-level domain's shape."""
    parts = candidate.split("_")
    return len(parts) >= 3 and 2 <= len(parts[-1]) <= 6 and parts[-1].isalpha()


def k8s_protobuf_secret(candidate: str) -> bool:
    """A Kubernetes object as the API server stores it in etcd (protobuf, "k8s\\0" first), in
    base64: a Secret's, its type's name inside."""
    try:
        raw = base64.b64decode(candidate + "=" * (-len(candidate) % 4))
    except (binascii.Error, ValueError):
        return False
    return raw.startswith(b"k8s\x00") and b"Secret" in raw[:64]


def told_secret_ok(candidate: str) -> bool:
    """A key or a password told in a chat by what it opens ("the RADIUS key is X"): password-
    shaped, a passphrase, random letters, or six digits and more (not a stand-in)."""
    return (told_password(candidate) or told_passphrase(candidate)
            or labelled_password_ok(candidate))


def has_letter(candidate: str) -> bool:
    """A letter anywhere (a password, not /etc/shadow's "99999:7:::")."""
    return any(ch.isalpha() for ch in candidate) and secret_value_ok(candidate)


def profile_secret_ok(candidate: str) -> bool:
    """A configuration profile's secret: a value under a secret's key, or a run of hex
    digits (SCEP's challenge, F8599504B337017E, which reads as a key's id elsewhere)."""
    return secret_value_ok(candidate) or _HEX_SECRET.fullmatch(candidate) is not None


_HEX_SECRET = re.compile(r"(?=[0-9A-Fa-f]*\d)(?=[0-9A-Fa-f]*[A-Fa-f])[0-9A-Fa-f]{16,}")


def b2_key_id_ok(candidate: str) -> bool:
    """Backblaze B2's key id: "00", the account's twelve hex digits, then zeros and the key's
    number (six zeros in a row where they stand), a letter somewhere."""
    return "000000" in candidate[12:22] and has_digit_and_letter(candidate)


_NOT_A_PASSCODE = frozenset((
    "required", "optional", "none", "not", "see", "set", "changed", "updated", "reset", "please",
    "given", "correct", "incorrect", "wrong", "confirmed", "verified", "unknown", "needed",
    "provided", "same", "new", "old", "the", "this", "that", "your", "their", "our", "his",
    "her", "was", "for", "and", "with", "from", "entered", "accepted", "failed", "valid",
    "invalid", "match", "matches", "ok", "okay", "yes", "passcode", "password", "code", "word",
    "null", "empty", "blank", "pending", "expired", "hidden", "masked", "redacted", "reveal",
    "show", "shown", "asked", "ask", "request", "requested", "change", "call"))


def verbal_passcode_ok(candidate: str) -> bool:
    """A monitoring centre's verbal passcode: a word (or two) in capitals or capitalised, not a
    word prose says after the name ("passcode: Required", "code word: See file")."""
    words = candidate.lower().split()
    return bool(words) and words[0] not in _NOT_A_PASSCODE and not _may_be_code(candidate)


def has_letter_or_long(candidate: str) -> bool:
    """A key with a letter in it, or ten digits and more (PRTG's passhash is digits)."""
    return has_letter(candidate) or len(candidate) >= 10


def has_digit_and_letter(candidate: str) -> bool:
    """A random run: a digit and a letter in it (not a run of one kind, 0000... or FFFF...)."""
    return any(ch.isdigit() for ch in candidate) and any(ch.isalpha() for ch in candidate)


def bitlocker_key_ok(candidate: str) -> bool:
    """A BitLocker recovery password: each of its eight groups a multiple of 11 below
    720896 (each encodes 16 bits of the key times 11)."""
    return all(int(group) % 11 == 0 and int(group) < 720896 for group in candidate.split("-"))


def bitlocker_groups_ok(candidate: str) -> bool:
    """:func:`bitlocker_key_ok` for a key written with spaces or wrapped after a dash."""
    groups = re.findall(r"\d{6}", candidate)
    return len(groups) == 8 and bitlocker_key_ok("-".join(groups))


def has_digit(candidate: str) -> bool:
    """A digit anywhere (a list of codes, not of words)."""
    return any(ch.isdigit() for ch in candidate)


def not_counting_run(candidate: str) -> bool:
    """A code that is not a sample's stand-in: not digits counting up from 0 or 1 ("Your code
    is 123456" in an SMS campaign's sample messages), nor one digit repeated."""
    digits_only = candidate.replace(" ", "")
    return len(set(digits_only)) > 1 and not (
        digits_only[0] in "01" and (digits_only in "0123456789" or digits_only in "1234567890"))


def combination_ok(candidate: str) -> bool:
    """A lock's combination, not a date written with dashes ("12-03-24")."""
    parts = candidate.split("-")
    return not (len(parts) == 3 and 1 <= int(parts[0]) <= 31 and 1 <= int(parts[1]) <= 12)


def unmasked_code(candidate: str) -> bool:
    """A code with a digit, not one masked but for its last group ("XXXX-XXXX-XXXX-XR8E")."""
    return has_digit(candidate) and _MASKED.search(candidate) is None


# The symbols password rules ask for (a password's, not a word's or a version's).
_RULE_SYMBOLS = "!#$%&*~^@+?="
_BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def wif_ok(candidate: str) -> bool:
    """A Bitcoin private key in Wallet Import Format: base58 whose last four bytes are the
    double SHA-256 of the rest, which opens with 0x80 (main net) or 0xef (test net)."""
    import hashlib  # (rare: only a 51- or 52-character base58 run reaches here)

    number = 0
    for ch in candidate:
        digit = _BASE58.find(ch)
        if digit < 0:
            return False
        number = number * 58 + digit
    raw = number.to_bytes(38, "big").lstrip(b"\0")
    if len(raw) not in (37, 38) or raw[0] not in (0x80, 0xEF):
        return False
    body, check = raw[:-4], raw[-4:]
    return hashlib.sha256(hashlib.sha256(body).digest()).digest()[:4] == check


def keypair_bytes_ok(candidate: str) -> bool:
    """A 64-byte key written as a JSON array of its bytes (Solana's id.json)."""
    parts = candidate.strip("[]").split(",")
    return (len(parts) == 64 and all(p.strip().isdigit() and int(p) < 256 for p in parts)
            and len(set(parts)) > 8)


def labelled_password_ok(candidate: str) -> bool:
    """A password under its label that :func:`password_like` leaves: six to sixteen digits,
    not a stand-in ("123456", "000000"), or eight characters and more of both cases and a
    password rule's symbol, no digit ("m*K#Nx.&$gxQ.P")."""
    if candidate.isdigit():
        return len(set(candidate)) > 2 and "123456" not in candidate and secret_value_ok(candidate)
    return ((len(candidate) >= 8 and "://" not in candidate
             and any(ch.isupper() for ch in candidate) and any(ch.islower() for ch in candidate)
             and any(ch in _RULE_SYMBOLS for ch in candidate)) or _random_letters(candidate)
            ) and secret_value_ok(candidate)


def password_like(candidate: str) -> bool:
    """A password, not a word, a date or a version: a letter and a digit, and mixed case or
    one of the symbols password rules ask for. Not a link ("Passwort zurücksetzen:
    https://..."): a URL's secrets are its parts', found by their own detectors. Not a
    one-way hash (bcrypt's "$2y$10$..."), left as everywhere."""
    if _GENERATED_GROUPS.fullmatch(candidate):
        return True  # a generated password in groups of four letters ("xfnm-asgg-smjs-oebg")
    return ("://" not in candidate and letters_and_digits(candidate)
            and _ONE_WAY_HASH.match(candidate) is None
            and ((any(ch.isupper() for ch in candidate) and any(ch.islower() for ch in candidate))
                 or any(ch in _RULE_SYMBOLS for ch in candidate)))


_GENERATED_GROUPS = re.compile(r"[a-z]{4}(?:-[a-z]{4}){3}")
_NAME_LIST = re.compile(r"\[[a-z][a-z0-9_.-]*(?:,[ \t]*[a-z][a-z0-9_.-]*)*\]")
_SECRETS_NAME = re.compile(r"[a-z]+(?:[A-Z][a-z]+)*(?:Token|Key|Secret|Password|Passwd|Pwd"
                           r"|Credentials?)")


def password_as_user(candidate: str) -> bool:
    """A password typed at a login's user prompt, as sshd logs it ("Invalid user
    Dgyot7427!Ma"): a password's shape, with mixed case or a symbol no user name has (not
    "ec2-user", "svc_backup01")."""
    return (password_like(candidate) and secret_value_ok(candidate)
            and (any(ch in _RULE_SYMBOLS for ch in candidate)
                 or (any(ch.isupper() for ch in candidate)
                     and any(ch.islower() for ch in candidate))))


def bracketed_password(candidate: str) -> bool:
    """A password with brackets, braces or angles in it ("D<nw=K0)xOLf&k"), not a template
    or a call in its place ("<your-password>", "{{ .Values.pass }}", "${DB_PASS}",
    "getenv('DB_PASS')", "os.environ['DB_PASSWORD']")."""
    return (letters_and_digits(candidate) and " " not in candidate.strip()
            and _TEMPLATE_OR_CALL.search(candidate) is None and secret_value_ok(candidate))


# What stands in a password's place: a placeholder, a template's or a shell's variable, a
# format's field, a call or a lookup.
_TEMPLATE_OR_CALL = re.compile(
    # (and a scheme's prefix in braces: LDAP's {SSHA} hash, Spring's {cipher})
    r"\{\{|\$\{|\{\$|<%|%\(|^<[^<>]*>$|^\[[^\[\]]*\]$|^\([^()]*\)$|^\{[\w.:-]*\}"
    r"|^[A-Za-z_][\w.]*\(.*\)$|^[A-Za-z_][\w.]*\[.*\]$|<[A-Za-z][A-Za-z _-]{2,}>")


def slashed_password(candidate: str) -> bool:
    """A password after an account's name and a slash ("admin / khswpLj9Gi1iuf"): a
    password's shape, or eight characters and more of both cases and a symbol
    ("^Iblni=PhMsLewIt"), or twelve of random case ("pPIUhuyuCrnDoBlk", not CamelCase
    words)."""
    if not secret_value_ok(candidate):
        return False
    mixed = (any(ch.isupper() for ch in candidate) and any(ch.islower() for ch in candidate))
    return password_like(candidate) or (mixed and len(candidate) >= 8 and any(
        ch in _RULE_SYMBOLS for ch in candidate)) or (
        mixed and len(candidate) >= 12 and candidate.isalpha()
        and _case_switches(candidate) >= 0.35 * len(candidate))



def discord_token_ok(candidate: str) -> bool:
    """A Discord bot token's first part is its bot's id (a snowflake: 17 to 20 digits) in
    base64."""
    head = candidate.split(".", 1)[0]
    try:
        decoded = base64.urlsafe_b64decode(head + "=" * (-len(head) % 4))
    except (binascii.Error, ValueError):
        return False
    return 17 <= len(decoded) <= 20 and decoded.isdigit()


def e164ish(candidate: str) -> bool:
    """A telephony record's caller number: 7 to 15 digits, not one digit repeated."""
    numerals = digits(candidate)
    return 7 <= len(numerals) <= 15 and len(set(numerals)) > 1


def letters_and_digits(candidate: str) -> bool:
    """A code of letters and digits both (not a word, not a number)."""
    return any(ch.isdigit() for ch in candidate) and any(ch.isalpha() for ch in candidate)


def letters_and_digits_or_mixed_case(candidate: str) -> bool:
    """A generated code: letters and digits, or letters whose case changes after the first
    ("jBSoTI"; not a capitalised word)."""
    return letters_and_digits(candidate) or (
        candidate.isalpha() and any(ch.isupper() for ch in candidate[1:])
        and any(ch.islower() for ch in candidate))


def symbol_password_ok(candidate: str) -> bool:
    """A password as a person or a generator makes one: a letter, one of the symbols password
    rules ask for, and a digit or both cases ("Lindenblatt_616$", "lw!quCQEbvjvziXPr"); a
    network's name or a word with an exclamation mark has no such mix."""
    return (len(candidate) >= 6 and any(ch.isalpha() for ch in candidate)
            and any(ch in _RULE_SYMBOLS for ch in candidate)
            and (any(ch.isdigit() for ch in candidate)
                 or (any(ch.isupper() for ch in candidate[1:])
                     and any(ch.islower() for ch in candidate)))
            and secret_value_ok(candidate))


def strong_password_shape(candidate: str) -> bool:
    """A generated or a strong password alone: a lower-case and an upper-case letter, a digit
    and one of "!#$%&*^@?" (not "+", "/" and "=" alone: base64; nor "~" alone, a Windows
    package's separator), not an address, a hash or a placeholder ("t=Wc@FbKO_nE*%DXu9",
    "Gemeente$2017")."""
    return (any(ch.islower() for ch in candidate) and any(ch.isupper() for ch in candidate)
            and any(ch.isdigit() for ch in candidate)
            and any(ch in STRONG_PASSWORD_SYMBOLS for ch in candidate)
            and _NOT_A_STRONG_PASSWORD.search(candidate) is None
            and not candidate.startswith(("$", "%", "0x"))
            and secret_value_ok(candidate))


#: The symbols a strong password alone on a line must hold one of (the rules' but "~", "+"
#: and "=": a Windows package's separator and base64's).
STRONG_PASSWORD_SYMBOLS = frozenset("!#$%&*^@?")
# An address, a name at a version or a host (AzureCLI@2, app@4.8.8+7745, user@192.168.1.20,
# "SMTP+queueing@00:30:00"), percent-encoding, a debugger's module!function.
_NOT_A_STRONG_PASSWORD = re.compile(r"@[\w-]+\.[A-Za-z]{2,}|@[\d.:+]+$|%[0-9A-Fa-f]{2}"
                                    r"|![A-Za-z_]{6,}$")


def wifi_key_ok(candidate: str) -> bool:
    """A Wi-Fi key after its network's label: a password with a symbol, or a generated
    passphrase of words (three and more, joined by "-" or in capitals) with a digit."""
    if symbol_password_ok(candidate):
        return True
    words = [w for w in re.split(r"[-_.]|(?<=[a-z])(?=[A-Z])", candidate) if w]
    return (len(candidate) >= 10 and any(ch.isdigit() for ch in candidate) and len(words) >= 3
            and secret_value_ok(candidate))


def alpaca_key_id_ok(candidate: str) -> bool:
    """Alpaca's API key id (PK or AK, eighteen capitals and digits): both, not AWS' AKIA."""
    digits_in = sum(ch.isdigit() for ch in candidate)
    return not candidate.startswith("AKIA") and 3 <= digits_in <= 14


def product_key_ok(candidate: str) -> bool:
    """A product key's or a gift code's groups: at least two hold a letter and at least one a
    digit, no group repeats one character, and no two groups are the same (a part number's
    "ABCDE-ABCDE-..." or a stand-in's "XXXXX-XXXXX")."""
    groups = candidate.split("-")
    return (sum(any(ch.isalpha() for ch in g) for g in groups) >= 2
            and any(ch.isdigit() for ch in candidate)
            and all(len(set(g)) > 1 for g in groups) and len(set(groups)) == len(groups)
            # (nor a format shown by the alphabet's and the digits' runs, ABCDE-12345-FGHIJ)
            and not stands_in(candidate))


def scrambled_password_ok(candidate: str) -> bool:
    """A password with no digit that is random all the same: a symbol, its case switching
    between adjacent letters four times or more, a part that is no word ("SUxJ-ybgy-nRam",
    not "Siehe-KeePass" or "Zmień-Hasło-Teraz") and no run of five small letters."""
    return (_case_switches(candidate) >= 4 and any(ch in _PASSWORD_SYMBOLS for ch in candidate)
            and "://" not in candidate and _WORD_RUN.search(candidate) is None
            and not all(_WORDISH.fullmatch(part) for part in _LETTERS.findall(candidate)))


_PASSWORD_SYMBOLS = frozenset("!#$%&*~^@+?=-_.<>{}[]()/\\")
_WORD_RUN = re.compile(r"[^\W\d_A-Z]{5}")
# A word, capitalised or not, or CamelCase words, or capitals alone ("KeePass", "API").
_WORDISH = re.compile(r"(?:[A-Z]?[^\W\d_A-Z]+)+|[A-Z]+")
_LETTERS = re.compile(r"[^\W\d_]+")


def not_a_code_stand_in(candidate: str) -> bool:
    """A code of digits, or of letters that is no stand-in ("TBD", "NONE", "SEE NOTES")."""
    return any(ch.isdigit() for ch in candidate) or candidate.upper() not in _NO_CODE_WORDS


_NO_CODE_WORDS = frozenset(("NONE", "NULL", "TBD", "TBA", "NOTE", "NOTES", "SEE", "EMPTY", "BLANK",
                            "UNSET", "XXXX", "XXXXX", "XXXXXX", "ASK", "CALL", "OPEN", "BROKEN",
                            "MISSING", "CODE", "SAME", "NEW", "OLD", "LEFT", "RIGHT", "FRONT",
                            "BACK", "BELOW", "ABOVE", "HERE", "LOCK", "LOCKED", "UNLOCK", "ENTER",
                            "ALARM", "CLEAR", "RESET", "AWAY", "STAY", "HOME", "SMART", "TOUCH",
                            "KEYS"))


def temp_password_ok(candidate: str) -> bool:
    """A temporary password told after "temp is": letters and digits together (not a
    temperature, "temp is 37.5C", nor a folder, "temp is /tmp"), not a placeholder."""
    return (has_digit_and_letter(candidate) and candidate[0] not in "/\\~.$%"
            and _TEMPERATURE.fullmatch(candidate) is None and secret_value_ok(candidate))


def device_secret_ok(candidate: str) -> bool:
    """A device's secret on the line after its key's: a password's or a token's shape, not a
    name in lower case joined by dots or dashes (a topic's, "auth.token-revoked.v1")."""
    return temp_password_ok(candidate) and _DOTTED_NAME.fullmatch(candidate) is None


_DOTTED_NAME = re.compile(r"[a-z0-9]+(?:[._-][a-z0-9]+)+")
_TEMPERATURE = re.compile(r"-?\d+(?:[.,]\d+)?\s*(?:°|deg)?\s*[CFK]?\.?", re.IGNORECASE)


def proxy_password_ok(candidate: str) -> bool:
    """A proxy list's password: not a word in lower case (a protocol's or a state's name,
    "1.2.3.4:8080:http:enabled") and not a placeholder."""
    return (not candidate.isalpha() or not candidate.islower()) and secret_value_ok(candidate)


def aws_secret_like(candidate: str) -> bool:
    """40 base64 characters as an AWS secret key has them: both cases and a digit."""
    return (any(ch.isupper() for ch in candidate) and any(ch.islower() for ch in candidate)
            and any(ch.isdigit() for ch in candidate))


def random_key_bytes(candidate: str) -> bool:
    """64 bytes in base64 as a storage account's key has them: :func:`aws_secret_like`, and
    not the encoding of a hex digest's text (an e-invoice's previous-invoice hash, PIH)."""
    if not aws_secret_like(candidate):
        return False
    try:
        decoded = base64.b64decode(candidate, validate=True)
    except ValueError:
        return True
    return not (len(decoded) == 64 and all(c in b"0123456789abcdefABCDEF" for c in decoded))


# A run of one character six times or more: a placeholder's filler (hf_xxxxxxxx...), never
# the body of a random key.
_FILLER = re.compile(r"(.)\1{5,}")


def not_filler(candidate: str) -> bool:
    """A vendor's key that is not its documentation's placeholder (hf_ and 34 x's, or words:
    xoxb-your-token-here, a webhook's /services/XXXX/XXXX/XXXX)."""
    return (_FILLER.search(candidate) is None and _PLACEHOLDER_WORDS.search(candidate) is None
            and _X_PATH.search(candidate) is None)


_X_PATH = re.compile(r"/X{3,}/X{3,}(?:/X{3,})?$")


_PLACEHOLDER_WORDS = re.compile(r"(?i)(?:^|[_.-])(?:your|here|example|placeholder|replace"
                                # (a rotated key's note in its place: sk_live_REDACTED_ROTATED)
                                r"|changeme|dummy|fake|redacted|rotated|revoked)(?:[_.-]|$)")


def bare_secret_ok(candidate: str) -> bool:
    """40 base64 characters read as an AWS secret key with no name beside them: both cases
    and digits several times over, and at most three '/' (a path has more)."""
    upper = sum(ch.isupper() for ch in candidate)
    lower = sum(ch.islower() for ch in candidate)
    numerals = sum(ch.isdigit() for ch in candidate)
    return upper >= 4 and lower >= 4 and numerals >= 2 and candidate.count("/") <= 3


def random_token(candidate: str) -> bool:
    """A token drawn at random, not a name in words and digits: both cases and digits as
    :func:`bare_secret_ok` asks, its case switching between adjacent letters six times or
    more ("utKcE8gOYFNl...", not "Meta-Llama-3-8B-Instruct")."""
    return _case_switches(candidate) >= 6 and bare_secret_ok(candidate)


def mixed_token_ok(candidate: str) -> bool:
    """A generated id in a place no word takes (EZproxy's session, where the common log
    format's ident is): letters and digits, or both cases switching often."""
    return (letters_and_digits(candidate) and not candidate.isdigit()) or (
        _case_switches(candidate) >= 4)


def _case_switches(candidate: str) -> int:
    """How often the case changes between adjacent letters (a random token's mark)."""
    return sum(1 for a, b in itertools.pairwise(candidate)
               if a.isalpha() and b.isalpha() and a.isupper() != b.isupper())


def strong_token(candidate: str) -> bool:
    """A long token with letters and digits: what a key word followed by a value with no
    verb or separator between them ("auth token 9f86d0...") must be to count; not a Stripe
    object's id ("token pm_1Nx..." names a saved card, which charges nothing by itself)."""
    return (len(candidate) >= 16 and letters_and_digits(candidate)
            and _STRIPE_OBJECT.fullmatch(candidate) is None
            # (not a secret store's path: "vault kv get -field=secret kv/noc/radius/bng-02")
            and not ("/" in candidate and _PATH.fullmatch(candidate)))



def _b64url_json(segment: str) -> object:
    padded = segment + "=" * (-len(segment) % 4)
    try:
        return json.loads(base64.urlsafe_b64decode(padded))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None


def jwt_ok(candidate: str) -> bool:
    """A JOSE header (base64url JSON with ``alg``) followed by a payload segment."""
    header = _b64url_json(candidate.split(".", 1)[0])
    return isinstance(header, dict) and "alg" in header


def path_token_ok(candidate: str) -> bool:
    """A random token in a link's path, not a slug ("team-onboarding-2024"): both cases and
    digits, or 32 hex digits or more."""
    if len(candidate) >= 32 and all(ch in _HEX_DIGITS for ch in candidate):
        return letters_and_digits(candidate)
    return ((sum(ch.isupper() for ch in candidate) >= 2
             and sum(ch.islower() for ch in candidate) >= 2
             and sum(ch.isdigit() for ch in candidate) >= 2) or _base36_token(candidate)
            or _django_reset_token(candidate)) and (
        _not_a_stand_in(candidate))


def _django_reset_token(candidate: str) -> bool:
    """Django's password reset token: its time in base 36, "-", and an HMAC's hex digits."""
    return re.fullmatch(r"[0-9a-z]{1,13}-[0-9a-f]{20,40}", candidate) is not None


def _base36_token(candidate: str) -> bool:
    """Random lower-case letters and digits, one run ("xltjm88a132do0hzyjue"): twenty
    characters and more, digits in three places and more (a slug's words have none inside)."""
    return (len(candidate) >= 20 and candidate.isalnum() and candidate.isascii()
            and candidate == candidate.lower()
            and len(re.findall(r"\d+", candidate)) >= 3 and not candidate.isdigit())


_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def tokenish(candidate: str) -> bool:
    """A token, not a word: it has a digit, or upper and lower case letters."""
    return (any(ch.isdigit() for ch in candidate)
            or (any(ch.isupper() for ch in candidate) and any(ch.islower() for ch in candidate)))


def international_00_ok(candidate: str) -> bool:
    """00 then a country code and subscriber number: 8 to 15 digits after the 00. Written
    without separators, the number after the country code never starts with its trunk 0
    ("0044 20..." dials London, "00330800000000" is a product id): a run of digits that reads
    0 after every possible country code (one, two or three digits) is an id (an ACH trace
    number, a report's number, a carrier's reference 004600930371)."""
    numerals = digits(candidate)
    if not 8 <= len(numerals) - 2 <= 15:
        return False
    if any(not ch.isdigit() for ch in candidate):
        # (a separator right after a one-digit code other than 1 and 7 is no country code's
        # place: a tag's serial, "004-12093847")
        return not (candidate[3:4] in "-. /" and numerals[2] not in "17")
    if numerals[2] == "1":  # (North America's: ten digits, the area code from 2, or none:
        # Morocco's ICE, a company's 15 digits, "001524791000088")
        return len(numerals) == 13 and numerals[3] not in "01"
    # (one-digit country codes are 1 and 7 only)
    return any(numerals[2 + n] != "0" for n in (1, 2, 3) if n > 1 or numerals[2] in "17") \
        and len(numerals) <= 15


def b64_text(candidate: str) -> str | None:
    """``candidate`` decoded as base64 (standard or URL-safe, padding optional) when the
    result is printable UTF-8 text (lines too: a vCard, a form), else None."""
    body = candidate.rstrip("=")
    if len(body) % 4 == 1:
        return None
    padded = body + "=" * (-len(body) % 4)
    try:
        raw = (base64.urlsafe_b64decode(padded) if ("-" in body or "_" in body)
               else base64.b64decode(padded, validate=True))
        text = raw.decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None
    printable = text.isprintable() or (
        ("\n" in text or "\t" in text)
        and text.replace("\r\n", "").replace("\n", "").replace("\t", "").isprintable())
    return text if text and printable else None


# A password's hash as LDAP keeps it: {SSHA}..., {CRYPT}$6$..., {PBKDF2-SHA256}...
_LDAP_HASH = re.compile(r"\{[A-Z0-9-]+\}")


def ldap_password_ok(candidate: str) -> bool:
    """An LDIF userPassword value (clear, or base64 after "::"), not a scheme's hash."""
    if _LDAP_HASH.match(candidate):
        return False
    decoded = b64_text(candidate)
    return (decoded is None or not _LDAP_HASH.match(decoded)) and secret_value_ok(candidate)


# A message's id, not a mailbox (Message-ID, In-Reply-To, a relay's msgid=): mail servers
# name them by hosts no one has a mailbox on (Gmail's mail.gmail.com, Exchange Online's
# *.prod.outlook.com), JavaMail by its own name, others by a UUID or a run of hex digits.
_MESSAGE_ID_HOST = re.compile(r"(?i)mail\.gmail\.com|.*\.prod\.outlook\.com|(?:.*\.)?amazonses\.com"
                              # a systemd unit's instance (getty@tty1.service, user@1000.service)
                              r"|.*\.(?:service|socket|target|timer|mount|automount|path|slice"
                              r"|scope|device|swap)")
# SSH's algorithm names (chacha20-poly1305@openssh.com, curve25519-sha256@libssh.org)
_SSH_ALGORITHM_HOST = re.compile(r"(?i)openssh\.com|libssh\.org")
_ICAL_UID = re.compile(r"[a-z0-9]{26}")
_MACHINE_LOCAL = re.compile(r"(?=(?:[.-]*[0-9a-fA-F]){16})(?=.*\d)[0-9a-fA-F.-]+")
# A system account at a host of a private name space (cron's "From: root@db-1.internal"):
# mail between machines, no one's address.
_SYSTEM_ACCOUNT = frozenset({"root", "daemon", "nobody", "postmaster", "mailer-daemon", "cron",
                             "www-data", "systemd",
                             # a build's or a pipeline's sender (git's "Author: ci-bot <ci@...>")
                             "ci", "ci-bot", "jenkins", "gitlab-runner", "build", "deploy"})
_PRIVATE_HOST = re.compile(r"(?i)(?:[\w-]+\.)*[\w-]+\.(?:internal|local|localdomain|lan|"
                           r"home\.arpa|intranet|corp)")
# A local part of two words whose second is "lan" (a given name): a person's, not a host's.
_NAMED_LAN = re.compile(r"(?i)[a-z]+[._]lan$")


# Not a top-level domain: an image's or a media file's type (a chat export's
# "video_2@05-03-2024_19-41-22.mp4"), a cloud region.
_IMAGE_SUFFIXES = frozenset({"png", "jpg", "jpeg", "gif", "webp", "svg", "ico", "bmp", "heic",
                             "avif", "tiff", "mp4", "m4a", "mp3", "ogg", "oga", "opus", "wav",
                             "webm", "pdf", "txt", "csv", "tgs", "vcf"})
_CLOUD_REGION = re.compile(r"(?i)[a-z]{2}(?:-gov)?-[a-z]+-\d{1,2}")


def email_ok(candidate: str) -> bool:
    """An address a person or a team reads mail at, not a message's id (nor a calendar
    event's: Google Calendar's iCalUID is 26 base32 characters @google.com)."""
    local, _, host = candidate.rpartition("@")
    if host.lower() == "google.com" and _ICAL_UID.fullmatch(local):
        return False
    if host.lower().endswith(".calendar.google.com"):
        return False  # a shared calendar's or a room's id (c_...@group.calendar.google.com)
    if len(local) >= 3 and set(local.lower()) <= {"x", "*"}:
        return False  # a URL's user:password masked (Go's url.Redacted(): "user:xxxxx@host")
    if local.lower() in _SYSTEM_ACCOUNT and _PRIVATE_HOST.fullmatch(host) is not None:
        return False
    if local == "0" and host.lower() == "s.whatsapp.net":
        return False  # WhatsApp's server's own id (server_jid=0@s.whatsapp.net)
    if host.lower() == "zoomcrc.com" and local.replace(".", "").isdigit():
        return False  # a Zoom meeting's SIP address (its id, and its passcode after a dot)
    if local.isdigit() and _PRIVATE_HOST.fullmatch(host) is not None:
        return False  # a PBX's extension (sip:2104@pbx.internal), no one's mailbox
    if local.lower() == "anonymous":
        # SIP's anonymous caller (RFC 3261's anonymous@anonymous.invalid), EAP's outer
        # identity (anonymous@realm: who the user is stays inside the tunnel)
        return False
    if host.lower().startswith("odata."):
        return False  # an OData annotation's name ("rootCertificate@odata.bind")
    if "_" in host and host.isupper():
        return False  # an Oracle database link, no mail host (ap_invoices_all@EBSPRD_LINK.WORLD)
    last_label = host.rpartition(".")[2]
    if last_label.lower() in _IMAGE_SUFFIXES:
        return False  # an image's density variant (avatar_placeholder@2x.png)
    if local.lower() == host.lower() or (_PRIVATE_HOST.fullmatch(local) is not None
                                         and (host.isupper() or not _NAMED_LAN.match(local))):
        # a Kerberos principal (krbtgt/REALM@REALM, HTTP/host.corp.internal@REALM); a person
        # named Lan is no host on a LAN unless a realm in capitals follows (tanaka.lan@mail.ru)
        return False
    # (git@github.com is SSH's user at a forge, [url "git@github.com:"] in a git config)
    # (a cloud region is no top-level domain: Snowflake's account locator in
    # snowflake://DBT_CI@xy12345.us-east-1/ANALYTICS)
    return (_MESSAGE_ID_HOST.fullmatch(host) is None and ".JavaMail." not in local
            and _CLOUD_REGION.fullmatch(last_label) is None
            and _SSH_ALGORITHM_HOST.fullmatch(host) is None
            and _MACHINE_LOCAL.fullmatch(local) is None and local != "git")


def key_block_ok(candidate: str) -> bool:
    """A private key's armour around key material, not around a stand-in (a template's
    "-----BEGIN PRIVATE KEY-----\\n<REDACTED>\\n-----END PRIVATE KEY-----")."""
    return not candidate.startswith("-") or \
        _KEY_MATERIAL.search(_ARMOUR.sub(" ", candidate)) is not None


_ARMOUR = re.compile(r"-{4,5}[^-\n]*-{4,5}")
_KEY_MATERIAL = re.compile(r"[A-Za-z0-9+/]{16}")


def encoded_email_ok(candidate: str) -> bool:
    """A percent-encoded address that reads as one."""
    return email_ok(unquote(candidate))


def base64_credentials(candidate: str) -> bool:
    """Base64 of ``user:password`` (what a docker config.json keeps under ``auth``)."""
    text = b64_text(candidate)
    return text is not None and ":" in text and len(text) >= 3


def base64_login(candidate: str) -> bool:
    """Base64 of a login's ``user:password`` alone, not of JSON that holds a colon (a JWT's
    header, '{"alg":"RS256"}')."""
    text = b64_text(candidate)
    return text is not None and _LOGIN_PAIR.fullmatch(text) is not None


_LOGIN_PAIR = re.compile(r"[^\s:{}\"]{1,64}:[^\s]{1,128}")
