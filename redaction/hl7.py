"""Identifiers in HL7 v2 messages, read by their fields.

An HL7 v2 segment is a line of "|"-separated fields ("PID|1||9291374881^^^NHS^NH~..."): what a
value is depends on where it sits, not on a word beside it. PID-3 lists a patient's
identifiers, each with its assigning authority and its type ("NH" a national health number,
"SS" a social security number, "NN" and a country's code its national number, "MR" a
hospital's record number); PID-13 and PID-14 the patient's phones; PID-19 holds the SSN, PID-20
the driver's licence; GT1-6 and GT1-7 a guarantor's phones and GT1-12 their SSN; IN1-36 and
IN1-49 the insured's policy and id numbers; MSH-8 the sending
system's security field (a password, where a system fills it). Record numbers a hospital
assigns itself (MR, PI, VN, AN) stay: they name a record, not a person across systems.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .detectors import Finding
from .validators import ssn_ok

__all__ = ["hl7_findings"]

# A segment of the kinds read here, up to its end (a carriage return, a line break, Mirth's
# "<CR>" marker, or the escaped "\r" of a JSON string).
_SEGMENT = re.compile(r"(?<![A-Za-z0-9])(PID|IN1|MSH|GT1)\|([^\r\n]*?)(?=\r|\n|<CR>|\\r|\\n|$)")
# Identifier types (PID-3.5) and assigning authorities (PID-3.4) that name a person's number
# across systems: national, health, social security, passport and licence numbers.
_PERSON_TYPES = frozenset(("NH", "NI", "SS", "SB", "MC", "MA", "JHN", "HC", "PPN", "DL", "PEN",
                           "PRN", "NNFRA", "INS-NIR", "INS-C", "BR", "CZ", "TAX", "NIIP"))
_SSN_SHAPE = re.compile(r"\d{3}-?\d{2}-?\d{4}")
_PERSON_AUTHORITIES = frozenset(("NHS", "AUSHIC", "AUSHICPR", "SSA", "JHN", "CHS", "CNS",
                                 "GKV", "INS-NIR", "ASIP-SANTE-INS-NIR", "1.2.250.1.213.1.4.8"))


def hl7_findings(text: str) -> list[Finding]:
    """The person's identifiers in ``text``'s PID and IN1 segments, as findings."""
    if "PID|" not in text and "IN1|" not in text and "MSH|" not in text and "GT1|" not in text:
        return []
    found: list[Finding] = []
    for segment in _SEGMENT.finditer(text):
        fields = list(_fields(segment.group(2), segment.start(2)))
        if segment.group(1) == "PID":
            found += _pid_findings(text, fields)
        elif segment.group(1) == "GT1":
            found += _guarantor_findings(text, fields)
        elif segment.group(1) == "MSH":
            # (MSH-1 is the separator itself: the body's first field is MSH-2, its seventh
            # MSH-8)
            if len(fields) >= 7 and fields[6][1] > fields[6][0]:
                start, end = fields[6]
                found.append(Finding("secret_assignment", start, end, text[start:end]))
        else:
            found += [Finding("national_id", start, end, text[start:end])
                      for number, (start, end) in enumerate(fields, 1) if number in (36, 49)
                      and end > start and any(ch.isdigit() for ch in text[start:end])]
    return found


def _fields(body: str, offset: int) -> Iterator[tuple[int, int]]:
    """The spans of a segment's fields, numbered from 1 (the segment's name is field 0)."""
    at = 0
    for part in body.split("|"):
        yield offset + at, offset + at + len(part)
        at += len(part) + 1


def _pid_findings(text: str, fields: list[tuple[int, int]]) -> list[Finding]:
    found = []
    if len(fields) >= 3:
        found += _person_identifiers(text, *fields[2])
    for number in (13, 14):  # the home and business phones, each repetition's number
        if len(fields) >= number:
            found += _phones(text, *fields[number - 1])
    if len(fields) >= 19:
        found += _ssn(text, *fields[18])
    if len(fields) >= 20:
        start, end = fields[19]
        licence = text[start:end].split("^", 1)[0]
        # (not one masked but for its end, "***-**-9579": what a de-identified feed leaves)
        if len(licence) >= 5 and any(ch.isdigit() for ch in licence) and "*" not in licence:
            found.append(Finding("national_id", start, start + len(licence), licence))
    return found


def _ssn(text: str, start: int, end: int) -> list[Finding]:
    """An SSN field's value (its first component), when it is one."""
    ssn = text[start:end].split("^", 1)[0]
    if _SSN_SHAPE.fullmatch(ssn) and ssn_ok(ssn):
        return [Finding("us_ssn", start, start + len(ssn), ssn)]
    return []


def _guarantor_findings(text: str, fields: list[tuple[int, int]]) -> list[Finding]:
    """A guarantor's phones (GT1-6 home, GT1-7 business) and SSN (GT1-12)."""
    found = []
    for number in (6, 7):
        if len(fields) >= number:
            found += _phones(text, *fields[number - 1])
    if len(fields) >= 12:
        found += _ssn(text, *fields[11])
    return found


# "NN" and a country's ISO code: that country's national number (NNNLD, the Dutch BSN).
_NATIONAL_TYPE = re.compile(r"NN[A-Z]{3}")
# A phone's number as an XTN's first component writes it ("07830338181", "(415)826-4584").
_PHONE_NUMBER = re.compile(r"\+?\(?\d[\d ()./-]{5,20}\d")


def _phones(text: str, start: int, end: int) -> list[Finding]:
    """A phone field's repetitions: each one's number (its first component), when it is one."""
    found = []
    at = start
    for repetition in text[start:end].split("~"):
        parts = repetition.split("^")
        number = parts[0]
        if _PHONE_NUMBER.fullmatch(number) and sum(ch.isdigit() for ch in number) >= 7:
            found.append(Finding("phone", at, at + len(number), number))
        # (and its area code and local number apart, XTN-6 and XTN-7: "^415^8264584")
        if len(parts) >= 7 and parts[5].isdigit() and parts[6].isdigit() and len(parts[6]) >= 5:
            head = at + sum(len(part) + 1 for part in parts[:5])
            tail = head + len(parts[5]) + 1 + len(parts[6])
            found.append(Finding("phone", head, tail, text[head:tail]))
        at += len(repetition) + 1
    return found


def _person_identifiers(text: str, start: int, end: int) -> list[Finding]:
    """PID-3's repetitions ("~") whose type or assigning authority names a person's number."""
    found = []
    at = start
    for repetition in text[start:end].split("~"):
        parts = repetition.split("^")
        authority = parts[3].split("&", 1)[0] if len(parts) > 3 else ""
        kind = parts[4] if len(parts) > 4 else ""
        number = parts[0]
        if number and any(ch.isdigit() for ch in number) and (
                kind.upper() in _PERSON_TYPES or authority.upper() in _PERSON_AUTHORITIES
                or _NATIONAL_TYPE.fullmatch(kind.upper())):
            found.append(Finding("national_id", at, at + len(number), number))
        at += len(repetition) + 1
    return found
