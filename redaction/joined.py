"""The joined pass: values glued into ids with ``-`` and ``_``.

Ids glue values together ("req-alice@example.com-4111111111111111"); the detectors' word
boundaries treat those joiners as part of a word, so the kinds a joiner can hide (numbers and
addresses, whose patterns refuse a neighbouring word character) are looked for again in the
text with ``-`` and ``_`` read as spaces (same length, so offsets hold). What that finds where
it overlaps nothing the plain scan found is added.

Rescanning every text with a joiner cost a quarter of the redactor's time and, on realistic
text, almost never found anything. So each detector says where the joined reading can change
its matches (``Detector.joined``: a run of the characters it consumes holding a joiner and room
for what it reports); only those detectors scan the joined text, and the others' matches there
are their matches in the text itself, already found by the plain scan. The findings are those
of a full rescan (tests/redaction/test_joined.py checks it on the corpora and a property test).
"""

from __future__ import annotations

import re
from typing import Any

from .detectors import SSH_LOGIN_WORDS, Detector, Finding, resolve, start_positions
from .prefilter import Plan, Prefilter
from .validators import email_ok

__all__ = ["glued_number", "scan_plain", "spaced"]


# A minus sign, not a joiner: a "-" where a number starts (after a space, a cell's "|", a
# bracket, a comma, "=" or ":"); the number-shaped kinds that such a number cannot be.
_MINUS_BEFORE = re.compile(r"(?:^|[\s|(\[,=:])-$")
_SIGNED = frozenset({"credit_card", "phone"})
# An order or ticket code's letters ("ORD-", "INV_"), right before a number.
_CODE_BEFORE = re.compile(r"[A-Z]{2,}[-_]$")
_BLOCK_ID_BEFORE = re.compile(r"(?<![A-Za-z])blk_-?$")
_VERSION_BEFORE = re.compile(r"(?i)(?<![a-z])(?:linux|kernel|version|release|ver|v)[-_]$")


def glued_number(text: str, found: Finding) -> bool:
    """A number the joined reading cut out of an id: an HDFS block's, a version's four parts,
    or a phone number after a code's capitals (ORD-0567-919251) or beside more digit groups
    (076-0424769-6710935). There the joiner is part of the id, not a separator between a word
    and a value. And an address's tail cut out of a message id whose local part is a UUID
    (<9fc...-1f514b5bfaa1@news.example>)."""
    if found.kind == "email":
        return _glued_message_id(text, found.start)
    start, end = found.start, found.end
    if found.kind in _SIGNED and _MINUS_BEFORE.search(text, max(0, start - 2), start):
        return True  # a negative number (pg_stat_statements' queryid -4328234754145783131)
    if _BLOCK_ID_BEFORE.search(text, max(0, start - 6), start) is not None:
        return True  # an HDFS block's id (blk_3852281952649038166, blk_-4980916519894289629)
    if found.kind == "ipv4":  # a four-part version (Linux-5.15.153.1-microsoft-standard)
        return _VERSION_BEFORE.search(text, max(0, start - 12), start) is not None
    if found.kind not in ("phone", "us_ssn"):
        return False
    digit_before = start >= 2 and text[start - 1] in "-_" and text[start - 2].isdigit()
    digit_after = text[end:end + 1] in ("-", "_") and text[end + 1:end + 2].isdigit()
    if found.kind == "us_ssn":  # an ISBN's middle groups (978-616-26-1542-1)
        return digit_before and digit_after
    if _CODE_BEFORE.search(text, max(0, start - 12), start) is not None:
        return True
    return digit_before or digit_after or _ID_TAIL.match(text, end) is not None


# A joiner then letters and digits mixed: the rest of an id (Databricks' cluster
# "0225-216392-abc12def"), not a word after a number.
_ID_TAIL = re.compile(r"[-_](?=[a-z]*\d)(?=\d*[a-z])[a-z0-9]{4,}")


def _glued_message_id(text: str, start: int) -> bool:
    """An address the joined reading cut out of something that is none: a message id, a
    variable's name as a URL's user, an SSH login (the plain pass refused each whole)."""
    if start < 2 or text[start - 1] not in "-_":
        return False
    if _VARIABLE_BEFORE.search(text, max(0, start - 64), start) is not None:
        return True  # a variable's name as a URL's user ("https://oauth2:$CI_JOB_TOKEN@host")
    if _SSH_LOGIN_BEFORE.search(text, max(0, start - 80), start) is not None:
        return True  # an SSH login, as the plain pass reads it ("sftp connect feeds_x@host")
    word = start
    while word > 0 and (text[word - 1].isalnum() or text[word - 1] in "._%+-"):
        word -= 1
    if word > 0 and text[word - 1] == "#":
        return True  # a Snowflake prompt's user#warehouse@database, as the plain pass reads it
    if text.endswith("://", 0, word):
        return True  # a URL's user (snowflake://DBT_CI@account.region), as the plain pass reads it
    left = start - 1
    while left > 0 and text[left - 1] in _HEX_ID:
        left -= 1
    at = text.find("@", start)
    return at > 0 and not email_ok(text[left:at] + "@" + text[at + 1:at + 64])


_HEX_ID = frozenset("0123456789abcdefABCDEF-.")
_VARIABLE_BEFORE = re.compile(r"\$\{?[A-Z][A-Z0-9_]*[-_]$")
_SSH_LOGIN_BEFORE = re.compile(r"(?:^|[^\w.+%$-])(?:" + "|".join(SSH_LOGIN_WORDS)
                               + r") [\w.+%-]*[-_]$")


def spaced(text: str) -> str:
    """``text`` with ``-`` and ``_`` read as spaces, in two C-level replaces (translate() with
    a table ran about 30 times slower on a 250-character line)."""
    return text.replace("-", " ").replace("_", " ")


def scan_plain(text: str, detectors: tuple[Detector, ...], prefilter: Prefilter,
               plan: Plan | None = None) -> list[Finding]:
    """Findings in ``text`` (as :func:`~.detectors.scan`), plus what the joined reading finds
    where it overlaps nothing those found. ``plan``: the prefilter's, when already made."""
    candidates, joined_candidates, starts, joined_starts = (
        plan if plan is not None else prefilter.plan(text))
    has_joiner = "-" in text or "_" in text
    raw: dict[int, list[Finding]] = {}  # by detector, kept for the joined pass
    every: list[Finding] = []
    memo: dict[str, Any] = {}  # what the start bounds found in this text, shared
    for i in candidates:
        positions = start_positions(detectors[i], i, text, starts)
        if positions is not None:
            reported = detectors[i].find_at(text, positions)
        else:
            reported = detectors[i]._find(text, memo=memo)
        if reported:
            every += reported
            if has_joiner:
                raw[i] = reported
    found = resolve(every)
    if not has_joiner:
        return found
    text_spaced = ""
    memo = {}
    joined: list[Finding] = []
    # A detector whose joined prefilter did not match reports nothing in the joined reading.
    for i in joined_candidates:
        d = detectors[i]
        if joined_starts is not None and d.starts and d.joined_starts != ():
            # The engine named every position where a match can start in the joined reading:
            # trying the pattern there is the whole rescan, cheaper than finding the runs.
            positions = joined_starts.get(i)
            if positions:
                text_spaced = text_spaced or spaced(text)
                joined.extend(d.find_at(text_spaced, positions))
            continue
        spans = d.joined(text, memo)  # type: ignore[misc]
        plain = raw.get(i, ())
        if not spans:  # the same matches as in the text itself
            joined.extend(plain)
            continue
        # outside the runs rescanned, the plain scan's matches hold (a match lies in one run)
        joined.extend(f for f in plain if not any(a <= f.start < b for a, b in spans))
        text_spaced = text_spaced or spaced(text)
        for a, b in spans:
            joined.extend(d.find_between(text_spaced, a, b))
    if not joined:
        return found
    new = tuple.__new__  # Finding's own __new__ is a Python function
    extra = [new(Finding, (f.kind, f.start, f.end, text[f.start:f.end])) for f in resolve(joined)
             if not any(f.start < g.end and g.start < f.end for g in found)
             and not glued_number(text, f)]
    return sorted(found + extra, key=lambda f: f.start) if extra else found
