"""Detectors for structured PII and secrets: a pattern finds candidates, a validator decides.

Each detector names one ``kind`` (the label value of ``servescope_redactions_total{kind}``).
Patterns are anchored on what surrounds a value, not only on its shape: a digit run glued to
letters, dots or dashes is part of an identifier (a trace id, a UUID, a digest, a version
string), never a card or a phone number. Overlaps go to the detector listed first.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from . import national_ids as ids
from . import spoken
from . import validators as v
from .bip39 import WORDS as _BIP39_WORDS
from .prefilter import Prefilter, engine_reading, make_prefilter

__all__ = ["CHECKSUMMED_KINDS", "DEFAULT_KINDS", "DETECTORS", "KEY_BEGIN", "KEY_END", "KINDS",
           "OPT_IN_KINDS", "Detector", "Finding", "prefilter_for", "resolve", "scan"]

# A number starts where no identifier character precedes it and ends where none follows.
# Patterns put a one-character look-ahead first: the regex engine then skips positions by that
# character set instead of running the look-behind at every one.
# ASCII word characters only: CJK, Hangul and other scripts write a number straight after a
# word ("番号4555480337880491で", "是414-76-3009，"), which Python's \w would count as a
# word going on.
# Or right after a JSON or repr escape: prompts are logged escaped ("...log line:\\n198.51...").
_ESC = r"(?<=\\[nrt])"


def _edge(before: str) -> str:
    """Where a value starts: no character of the class ``before`` precedes it, or an escape
    does."""
    return rf"(?:(?<![{before}])|{_ESC})"


# (after an ellipsis too: a snippet's cut, "Evidence snippet: ...833-74-8156")
_L = "(?:" + _edge(r"A-Za-z_.+\d-") + r"|(?<=\.\.\.))"
_R = r"(?![A-Za-z_+\d-]|\.\d)"
# Not inside a hex dump (od, xxd, hexdump: "0001560 08 00 00 00 40 00 00 00"): no byte of two
# hex digits, one of them a digit, right before ("de " in prose is a word, not a byte).
_NOT_IN_HEX_DUMP = r"(?<![0-9A-Fa-f][0-9] )(?<![0-9][0-9A-Fa-f] )"
# Not a time's seconds and what follows them: "16:16:00.233 28601 28601" (logcat's seconds,
# process and thread ids), "00:00:00.272 25746" (a Python log's seconds and pid).
_NOT_SECONDS = r"(?<!\d:)"
# Not an AWS account's id (twelve digits, "008465319470"): under its key, or in an ARN
# ("arn:aws:sts::008465319470:assumed-role/...").
# (nor a part's number: "品番 04465-48150", "P/N 90915-10004", "Teilenummer 1K0-615-301")
_NOT_A_SERIAL = "".join(rf"(?<!{w} )(?<!{w}: )" for w in (
    "serial", "Serial", "S/N", "SN", "\u54c1\u756a", "\u90e8\u54c1\u756a\u53f7", "P/N", "PN",
    "part", "Part", "Teilenummer", "Teile-Nr."))
# Nor a record's number after its word ("Case number 654-305-3723", "ref 767 900 9809").
# (and "#:" after it: "FHA Case #: 096-1343609", "ACDV Control #: 0617-3394-8821")
_NOT_A_RECORD = "".join(rf"(?<!{w} )(?<!{w}: )(?<!{w} #)(?<!{w}#)(?<!{w} #: )" for w in (
    "case number", "Case number", "Case Number", "CASE NUMBER", "case", "Case", "ticket",
    "Ticket", "ref", "Ref", "REF",
    # (and abbreviated with its dot: "Ref. 731 777 9183")
    "ref.", "Ref.", "REF.",
    "reference", "Reference", "claim", "Claim", "invoice", "Invoice", "order", "Order",
    "confirmation", "Confirmation", "RMA", "control", "Control"))
_NOT_A_PARCEL = "".join(rf"(?<!{w} )(?<!{w}: )" for w in (
    "tracking", "Tracking", "Paket", "Sendungsnummer", "Sendung", "parcel", "Parcel",
    "shipment", "Shipment", "colis", "Colis", "spedizione", "Spedizione", "envío", "Envío",
    "envio", "Envio", "encomenda", "Encomenda", "zending", "Zending", "przesyłka",
    "Przesyłka",
    # a Japanese carrier's slip and tracking numbers, a Korean receipt's number
    "伝票番号", "追跡番号", "お問い合わせ番号", "접수번호",
    # a Japanese insurance policy's and a contract's numbers
    "証券番号", "契約番号",
    # an air waybill's number, a German file's reference (a claim's Aktenzeichen)
    "AWB", "Aktenzeichen", "Schadennummer", "Vorgangsnummer",
    # a till's transaction and receipt numbers
    "TXN", "Bon", "Beleg",
    # a Portuguese invoice's series and number ("Fatura n.º FAT 0446/4206690")
    "FAT", "FT", "FR"))
# Not a number the word before it names as something else ("order 123456789"); for a
# caseless pattern.
_NOT_A_NAMED_NUMBER = "".join(rf"(?<!{w} )(?<!{w}: )(?<!{w} #)(?<!{w} no\. )" for w in (
    "order", "ticket", "invoice", "case", "account", "reference", "ref", "phone", "tracking",
    "id", "claim", "policy", "member", "routing", "ein"))
_NOT_AN_ACCOUNT = "(?<!::)" + "".join(rf"(?<!{k}{sep})" for k in ("ccountId", "ccount_id",
                                                                "ccount")
                                      for sep in ('":"', '": "', "=", ": ", ":"))
# Not a time under a key that says so ("ns": 2302989477428812, "ts_ms": 1717..., time=...).
_NOT_A_CLOCK = "".join(rf"(?<!{k}\": )(?<!{k}\":)(?<!{k}=)" for k in (
    "ns", "ms", "us", "ts", "time", "stamp", "nanos", "millis", "epoch",
    # a Cloud Storage object's generation (microseconds since the epoch: ?generation=...)
    "generation")) + "".join(
    # (nor a barcode after its name: "EAN 4841672956896", "GTIN: ...", a log's "ean=...")
    rf"(?<!{k} )(?<!{k}: )(?<!{k}=)(?<!{k.lower()}=)"
    for k in ("EAN", "GTIN", "UPC", "EAN-13", "ISBN", "JAN")) + "".join(
    # (nor a library's item barcode, 14 digits that pass Luhn and may open with a Diners
    # prefix: "item=36006604502729", "barcode 38697943895796")
    rf"(?<!{k} )(?<!{k}: )(?<!{k}=)(?<!{k}\": \")" for k in ("item", "barcode", "Barcode",
                                                            "primary_item"))
# ... and none right after (Node's "<Buffer 02 01 04 03 06 05 08 07>").
_NOT_BEFORE_HEX_BYTES = r"(?! [0-9][0-9A-Fa-f](?![^\s>\]]))(?! [0-9A-Fa-f][0-9](?![^\s>\]]))"


# A four-part version, not an address: pinned (nvidia-cudnn-cu12==9.1.0.70, but Wireshark's
# ip.src==x is an address), after the word (Version: 4.19.0.21, CUDNN_VERSION=8.9.7.29), or
# shaped like one (TensorRT 8.6.1.6, dpkg (1.4.1.8): first part 1-12 but not 10, the next two
# under 20; a random address has that shape about once in 10,000) with no port or prefix
# length after it, which an address in use has (8.8.8.8:53).
# Addresses everyone knows, which no version is numbered like: the public resolvers
# (8.8.8.8, 1.1.1.1, 9.9.9.9, 8.8.4.4, 1.0.0.1, 4.2.2.x) and the other repeated quads.
_ICONIC_V4 = ("(?:" + "|".join(rf"{d}\.{d}\.{d}\.{d}" for d in range(1, 10))
              + r"|8\.8\.4\.4|1\.0\.0\.1|4\.2\.2\.[1-6])(?![\d.])")
_NOT_A_VERSION = ("(?:(?<![=<>~!]=)|(?<=addr==)|(?<=src==)|(?<=dst==)|(?<=ip==)|(?<=host==))"
                  + "".join(rf"(?<![Vv]ersion{sep})(?<!VERSION{sep})"
                            for sep in (" ", "=", ": ", ' = "', '="', ' = ', ': "', ":", " : ",
                                        '": "', '":"'))
                  # a server's or an agent's version after its name (openresty/1.25.3.2,
                  # kong/3.8.0.0, "Sentinel Agent 23.4.4.223")
                  + "".join(rf"(?<!{name})" for name in (
                      "openresty/", "nginx/", "kong/", "envoy/", "haproxy/", "traefik/",
                      "Apache/", "lighttpd/", "Agent ",
                      # (a device's firmware, a program's build: "Firmware 7.50.5.138",
                      # "build 72.6.22.36 (previous 97.12.6.32)")
                      "Firmware ", "firmware ", "Firmware: ", "firmware: ", "build ", "Build ",
                      # (and in Czech, "Sestavení: 2.13.226.211")
                      "Sestaven\u00ed: ", "sestaven\u00ed: ",
                      # (cPanel's updater: "Detected version '11.118.0.16'", its sync URL)
                      "version '", "version set to '", "cpanelsync/",
                      # (a modem's status page: "Modem SN: 54195  FW 4.8.20.4")
                      r"\bFW ", r"\bFW: ", r"\bfw ",
                      # (a forensic suite's: "UFED 4PC 7.68.1.12"; a messenger's)
                      "UFED 4PC ", "UFED ", "WhatsApp ", "WhatsApp/",
                      r"\(previous ", r"\(api ",
                      # (a browser's engine as its about page prints it: "V8\t11.2.211.23")
                      r"V8\t", "V8 ",
                      # (a mail server's release, an upgrade's target: "Dovecot 2.3.21.1",
                      # "MX firmware to 21.4.3.15", "Dovecot 2.3.17 → 2.3.21.1")
                      "Dovecot ", "Postfix ", "Exim ", "firmware to ", r"\d → ",
                      # (a Greek business's activity code, ΚΑΔ: "ΚΑΔ κύριας δραστηριότητας:
                      # 47.81.19.50")
                      "\u039a\u0391\u0394 ", "\u039a\u0391\u0394: ",
                      "\u03b4\u03c1\u03b1\u03c3\u03c4\u03b7\u03c1"
                      "\u03b9\u03cc\u03c4\u03b7\u03c4\u03b1\u03c2: "))
                  + r"(?!(?!" + _ICONIC_V4 + r")(?:[1-9]|1[12])\.1?\d\.1?\d\.\d{1,3}"
                  r"(?![\d:/]|\.\d))")


@dataclass(frozen=True)
class Detector:
    """One kind of sensitive value: its pattern, the group to redact, and its validator."""

    kind: str
    pattern: re.Pattern[str]
    validator: Callable[[str], bool] | None = None
    group: int = 0  # 0: the whole match; n: only group n (e.g. the value of key=value)
    # Cheap pre-checks, each a necessary condition (literal alternations and one-character
    # classes run at C speed over long prose): skip the pattern unless all of them match.
    gates: tuple[re.Pattern[str], ...] = ()
    checksummed: bool = False
    # For candidates that may run on into the next group: the length of the valid prefix.
    prefix: Callable[[str], int | None] | None = None
    # A necessary condition in the syntax a multi-pattern engine takes (no look-around, no
    # back-references), tighter than ``gates``: on ASCII text, wherever ``pattern`` can match,
    # this matches too. redaction.prefilter compiles all of them into one database.
    prefilter: str = ""
    # Where a match can first start in a text (a lower bound; -1: nowhere), found with
    # C-level searches for a literal or one character class every match holds within a
    # fixed distance of its start. The pattern then scans from there, not from 0: on a long
    # prompt with one value near its end, most of the line is skipped. None: from 0. Its
    # second argument is a memo shared by the detectors scanning one text (see scan()).
    start: Start | None = None
    # For the kinds a joiner can hide (redaction.joined): False means reading every "-" and
    # "_" of the text as a space cannot change this detector's matches, so the joined pass
    # reuses the plain scan's. None: the detector is not in the joined pass.
    joined: Joined | None = None
    # ``prefilter`` for the joined reading, written for the text as it is: it matches a text
    # wherever ``prefilter`` matches the text with "-" and "_" read as spaces (a class that
    # holds a space takes the joiners too; one without a space loses them). Scanned in the
    # same engine pass as the prefilters, it tells which detectors the joined pass needs.
    joined_prefilter: str = ""
    # Where a match can start, for a multi-pattern engine that reports match ends: pairs of an
    # expression (prefilter syntax) and its one fixed length. Wherever ``pattern`` matches at
    # p (any match, validated or not: a rejected one still consumes text), one of these matches
    # the text's characters p to p + length (ASCII stand-ins as for ``prefilter``). The engine
    # then reports every position a match can start at, and the pattern is tried only there
    # (:meth:`find_at`), not at every character of a long line. Empty: scan as ``start`` says.
    starts: tuple[tuple[str, int], ...] = ()
    # ``starts`` for the joined reading, written for the text as it is (as ``joined_prefilter``
    # is): the joined pass then tries the pattern only there. None: the same as ``starts``
    # (they hold no space, which a joiner reads as). Empty: the joined pass rescans the runs
    # ``joined`` names, as for a detector without starts.
    joined_starts: tuple[tuple[str, int], ...] | None = None
    # Where a match can start, computed from the text, for a pattern whose starts no fixed
    # length expression can name (an e-mail address starts up to 64 characters before its
    # "@"): every position the pattern can match at is among them and ``starts``' (the two
    # together, where a detector has both: the phone words of other scripts, whose letters
    # the engine reads alike), and the pattern is tried only there (:meth:`find_at`).
    anchors: Callable[[str], list[int]] | None = None

    def applies(self, text: str) -> bool:
        """False means the pattern cannot match ``text``."""
        for gate in self.gates:  # noqa: SIM110  (a plain loop: no generator on the hot path)
            if gate.search(text) is None:
                return False
        return True

    def find(self, text: str) -> list[Finding]:
        """Findings, and for a checksummed kind also *blockers* (kind ``!kind``): candidates
        that have the shape but fail the checksum, so no lower-priority detector reports a
        fragment of them (a phone number inside an invalid IBAN)."""
        if not self.applies(text):
            return []
        return self._find(text)

    def _find(self, text: str, *, whole: bool = False, memo: dict[str, Any] | None = None
              ) -> list[Finding]:
        """``whole``: scan from position 0 (the reference the start bound is checked against).
        Look-behinds and ``\\b`` still see the text before the start position."""
        if self.anchors is not None and not self.starts and not whole:
            return self.find_at(text, self.anchors(text))
        pos = 0
        if self.start is not None and not whole:
            pos = self.start(text, {} if memo is None else memo)
            if pos < 0:
                return []
        return self._report(text, self.pattern.finditer(text, pos))

    def find_at(self, text: str, positions: list[int], endpos: int | None = None
                ) -> list[Finding]:
        """What :meth:`_find` reports, with the pattern tried only at ``positions`` (ascending;
        every position where a match can start, as ``starts`` promises): the leftmost match
        at or after the previous one's end, as ``finditer`` finds it. ``endpos``: the text
        ends there for the pattern (as in :meth:`find_between`)."""
        match = self.pattern.match
        if endpos is None:
            endpos = len(text)
        matches: list[re.Match[str]] = []
        end = 0
        for pos in positions:
            if pos < end:
                continue  # inside the last match (or a repeated position)
            m = match(text, pos, endpos)
            if m is not None:
                matches.append(m)
                end = m.end()
        return self._report(text, matches)

    def find_between(self, text: str, start: int, end: int) -> list[Finding]:
        """As :meth:`_find`, for matches that start at or after ``start`` and end at or before
        ``end``: the pattern reads ``text`` up to two characters past ``end`` (its look-aheads),
        and before ``start`` (its look-behinds)."""
        return self._report(text, self.pattern.finditer(text, start, end + 2))

    def _report(self, text: str, matches: Iterable[re.Match[str]]) -> list[Finding]:
        found: list[Finding] = []
        group, kind, prefix, validator = self.group, self.kind, self.prefix, self.validator
        new = _new
        for match in matches:
            start, end = match.span(group)
            if start < 0:
                continue
            value = text[start:end]
            if prefix is not None:
                length = prefix(value)
                if length is not None:
                    found.append(new(Finding, (kind, start, start + length, value[:length])))
                    continue
            elif validator is None or validator(value):
                found.append(new(Finding, (kind, start, end, value)))
                continue
            if self.checksummed:
                found.append(new(Finding, ("!" + kind, start, end, value)))
        return found


class Finding(NamedTuple):
    """One value found: its kind, its span in the text and the text there. (A named tuple:
    made for every match, it costs a quarter of what a frozen dataclass does.)"""

    kind: str
    start: int
    end: int
    value: str


# Findings are made by tuple's own constructor: a named tuple's __new__ is a Python function
# (three times the cost), and a busy line makes a dozen of them.
_new = tuple.__new__

_DIGIT = re.compile(r"\d")


Start = Callable[[str, dict[str, Any]], int]
Joined = Callable[[str, dict[str, Any]], list[tuple[int, int]]]


def _at_literal(needles: tuple[str, ...], back: int = 0, *, fold: bool = False) -> Start:
    """The start bound of a pattern whose every match holds one of ``needles`` at most
    ``back`` characters after its start. ``fold``: the pattern is case-insensitive; on ASCII
    text lower() is exact, elsewhere (Python folds "ſ" to "s", "K" to "k") scan from 0."""
    if fold:  # (the text is lowered: so are the needles, "TIN" as "tin")
        needles = tuple(needle.lower() for needle in needles)

    def start(text: str, memo: dict[str, Any]) -> int:
        if fold:
            if not text.isascii():
                return 0
            lower = memo.get("lower")
            if lower is None:
                lower = memo["lower"] = text.lower()
            text = lower
        first = -1
        for needle in needles:  # str.find: memchr-speed, no regex
            at = text.find(needle)
            if at >= 0 and (first < 0 or at < first):
                first = at
        return first if first <= 0 else max(0, first - back)

    return start


def _at_words(needles: tuple[str, ...], back: int = 0) -> Start:
    """As :func:`_at_literal` for a pattern folding ASCII case only (``(?ai)``), on any text:
    the text is lowered (its length and positions kept) and the lower-case ``needles``
    looked for; -1 when none is there. ``str.lower()`` also lowers other scripts' capitals
    (a needle then found where the pattern, folding ASCII only, reads none only starts the
    scan sooner) and is 15 times faster than a translate() of the ASCII capitals on a
    non-ASCII line (:func:`~.validators.lowered`)."""
    needles = tuple(needle.lower() for needle in needles)

    def start(text: str, memo: dict[str, Any]) -> int:
        lower = memo.get("lower")  # (shared with _at_literal: the same on ASCII text)
        if lower is None:
            lower = memo["lower"] = v.lowered(text)
        first = -1
        for needle in needles:
            at = lower.find(needle)
            if at >= 0 and (first < 0 or at < first):
                first = at
        return first if first <= 0 else max(0, first - back)

    return start


def _at_class(chars: str, back: int = 0, within: str = "") -> Start:
    """As :func:`_at_literal`, for a one-character class (``\\d``, ``[1-9]``); the first
    position is found once per text for every detector that asks for the same class.
    ``within``: a wider class whose first position, when already found, is where to look
    from (the first [1-9] is at or after the first digit)."""
    search = re.compile(chars).search

    def start(text: str, memo: dict[str, Any]) -> int:
        first = memo.get(chars)
        if first is None:
            wider = memo.get(within, 0) if within else 0
            found = search(text, wider) if wider >= 0 else None
            first = memo[chars] = -1 if found is None else found.start()
        return first if first <= 0 else max(0, first - back)

    return start


# --- joiner sensitivity (redaction.joined) ---------------------------------------------------
# The joined pass scans a text again with "-" and "_" read as spaces, for the kinds a joiner can
# hide. Every match of such a detector, and every character its look-arounds read that could be
# a joiner, lies inside one *run* of the characters its pattern consumes (joiners included: they
# are spaces in the joined text); a character outside the run is neither consumed nor a joiner,
# so it reads the same in both texts. A run without a joiner is the same in both texts, so the
# detector's matches there are those of the plain scan; and a run without room for what the
# detector reports (too few digits, no "@") has nothing to report in either. So the joined pass
# rescans a detector only inside its runs that hold a joiner and that room (``Detector.joined``
# names them) and keeps the plain scan's matches elsewhere. The room tests are loose: a run
# named needlessly only costs a rescan of it, never a finding. tests/redaction/test_joined.py
# checks the gated pass against a full rescan.

Span = tuple[int, int]


class _Runs:
    """Maximal runs of one character class around given characters. Python's regex engine
    pays for every position it tries, so runs are not searched for: a character each one must
    hold (a joiner, an "@", a colon) is found with ``str.find``, and the run grown from it."""

    def __init__(self, chars: str) -> None:
        self._chars = chars
        self._match = re.compile(f"[{chars}]*").match

    def around(self, text: str, at: int, memo: dict[str, Any]) -> Span:
        """The run holding position ``at`` (whose character is in the class)."""
        backwards = memo.get("reversed")
        if backwards is None:
            backwards = memo["reversed"] = text[::-1]
        back = len(text) - at  # where the character before ``at`` is in the reversed text
        before = self._match(backwards, back)
        after = self._match(text, at)
        assert before is not None and after is not None  # a starred class always matches
        return at - (before.end() - back), after.end()

    def holding(self, text: str, anchors: str, memo: dict[str, Any]) -> list[Span]:
        """The runs that hold one of ``anchors`` and a joiner, found once per text."""
        key = self._chars + "\0" + anchors
        found: list[Span] | None = memo.get(key)
        if found is None:
            found = memo[key] = []
            end = -1
            for at in sorted(_positions(text, anchors)):
                if at < end:
                    continue  # in the run found last
                start, end = self.around(text, at, memo)
                if anchors == "-_" or "-" in text[start:end] or "_" in text[start:end]:
                    found.append((start, end))
        return found


def _positions(text: str, chars: str) -> list[int]:
    found: list[int] = []
    for ch in chars:
        at = text.find(ch)
        while at >= 0:
            found.append(at)
            at = text.find(ch, at + 1)
    return found


# What the number-shaped patterns (cards, SSNs, phones, IPv4) consume: digits, the separators
# " .-()" and "+" (a joiner read as a space is a separator there too).
_DIGIT_RUNS = _Runs(r"\d .()+_-")
_DECIMAL = re.compile(r"\d")


def _joined_digits(least: int, needle: str = "") -> Joined:
    """Runs of number characters with a joiner, at least ``least`` digits (the fewest a match
    the detector reports holds) and ``needle``."""

    def spans(text: str, memo: dict[str, Any]) -> list[Span]:
        return [(start, end) for start, end in _DIGIT_RUNS.holding(text, "-_", memo)
                if end - start > least and needle in text[start:end]
                and len(_DECIMAL.findall(text, start, end)) >= least]

    return spans


def _joined_where(where: re.Pattern[str]) -> Joined:
    """The whole text where ``where`` finds the one place a joiner can change what a
    pattern of words matches (most texts: nowhere, so nothing is rescanned)."""

    def spans(text: str, memo: dict[str, Any]) -> list[Span]:
        return [(0, len(text))] if where.search(text) else []

    return spans


# A tax id's key with a joiner between it and its digits ("tax_id_=", read "tax id =").
_joined_tax_key = _joined_where(re.compile(
    r"(?i)tax[_ -]?id(?:entification)?(?:[_ -]?(?:number|no))?[\\\"':=\s_-]*[-_][\\\"':=\s_-]*\d"))
# A number in a query with "_" after it, which the look-ahead refuses and a space ends.
_joined_query_number = _joined_where(re.compile(r"=(?:%2B|\+)?\d{10,15}_"))


def _nothing_joined(text: str, memo: dict[str, Any]) -> list[Span]:
    """For a pattern that reads "-", "_" and " " alike wherever it reads any of them."""
    return []


# An address: the characters of its local part and domain, and the "@".
_EMAIL_RUNS = _Runs(r"\w\u0300-\u036f\u0900-\u0dff\u0e00-\u0eff.%+@-")


def _joined_email(text: str, memo: dict[str, Any]) -> list[Span]:
    return _EMAIL_RUNS.holding(text, "@", memo)


_IPV6_RUNS = _Runs(r"\w:.%-")


def _joined_ipv6(text: str, memo: dict[str, Any]) -> list[Span]:
    """A valid IPv6 address holds "::" or at least six colons (with a dotted IPv4 tail)."""
    return [(start, end) for start, end in _IPV6_RUNS.holding(text, ":", memo)
            if "::" in text[start:end] or text.count(":", start, end) >= 6]


# An IBAN starts with two capitals and two digits.
_IBAN_RUNS = _Runs(r"A-Z\d _-")
_IBAN_HEAD = re.compile(r"[A-Z]{2}\d{2}")


def _joined_iban(text: str, memo: dict[str, Any]) -> list[Span]:
    return [(start, end) for start, end in _IBAN_RUNS.holding(text, "-_", memo)
            if _IBAN_HEAD.search(text, start, end)]


# The SSN-key pattern consumes words, so it is not rescanned by runs: it tells a joiner from a
# space only between the key and the digits (its \s*); inside the key ("social_security_number")
# both are the separator [_ -]. Where a joiner sits there, the whole text is rescanned. The key
# ends in "ssn" or "security" (then perhaps "number" or "no").
_AFTER_SSN_KEY = re.compile(r"(?i)(?:[_ -]?(?:number|no))?[\\\"':=\s_-]*[-_][\\\"':=\s_-]*\d")
_SSN_KEY_JOINED = re.compile(r"(?i)(?:ssn|security)" + _AFTER_SSN_KEY.pattern[4:])


def _joined_ssn_key(text: str, memo: dict[str, Any]) -> list[Span]:
    whole = [(0, len(text))]
    if not text.isascii():  # Python folds "ſ" to "s", "K" to "k": the engine, not find()
        return whole if _SSN_KEY_JOINED.search(text) else []
    lower = text.lower()
    for key in ("ssn", "security"):
        at = lower.find(key)
        while at >= 0:
            if _AFTER_SSN_KEY.match(text, at + len(key)):
                return whole
            at = lower.find(key, at + 1)
    return []


def start_positions(detector: Detector, i: int, text: str,
                    starts: dict[int, list[int]] | None) -> list[int] | None:
    """Where ``detector`` (the ``i``-th) is tried in ``text``: the engine's ``starts`` (None:
    this engine names none) with the detector's anchors; None when its pattern must scan as
    ``start`` says."""
    if starts is None:
        return None
    positions = starts.get(i)
    if detector.anchors is None:
        return positions
    if positions is None:
        if not detector.starts:
            return None  # (_find reads its anchors)
        positions = []  # the engine found no start: the anchors are all there is
    more = detector.anchors(text)
    return sorted({*positions, *more}) if more else positions


def _local_part_char(ch: str) -> bool:
    """A character an address's local part may hold (``[{_UW}.%+-]``)."""
    return (ch.isalnum() or ch in "_.%+-" or "\u0300" <= ch <= "\u036f"
            or "\u0900" <= ch <= "\u0dff" or "\u0e00" <= ch <= "\u0eff")


def _email_starts(text: str) -> list[int]:
    """Where an address can start (the e-mail detector's ``anchors``): in the run of at most
    64 local-part characters before an "@", wherever the look-behind allows one, after a
    character that is no word character nor one of ".+%$#-", or after a JSON escape (\\n).
    Tried only there, the pattern no longer runs on at every character of the prose after
    the first "@" (a quarter of a PII-heavy prompt's scan)."""
    positions: list[int] = []
    at = text.find("@")
    while at >= 0:
        run = at
        floor = max(0, at - 64)
        while run > floor and _local_part_char(text[run - 1]):
            run -= 1
        for p in range(run, at):
            before = text[p - 1] if p else " "
            if (not (before.isalnum() or before in "_.+%$#-")
                    or (before in "nrt" and p >= 2 and text[p - 2] == "\\")):
                positions.append(p)
        at = text.find("@", at + 1)
    return positions


def _trie(words: Iterable[str]) -> str:
    """One regex for any of ``words``, as a trie (a shared first letter is tried once: a flat
    alternation of thousands would try each at every position)."""
    heads: dict[str, list[str]] = {}
    ends = False
    for word in sorted(words):
        if word:
            heads.setdefault(word[0], []).append(word[1:])
        else:
            ends = True
    branches = [re.escape(head) + _trie(tails) for head, tails in heads.items()]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 and not ends else "(?:" + "|".join(branches) + ")"
    return f"(?:{body})?" if ends else body


def _each(kind: str, patterns: tuple[str, ...], validator: Callable[[str], bool] | None = None,
          **options: Any) -> tuple[Detector, ...]:
    """One detector per pattern (each value in its group 1), sharing the rest: shapes of one
    source that a single pattern would have to tell apart by its groups."""
    return tuple(_d(kind, pattern, validator, group=1, **options) for pattern in patterns)


#: One word of BIP-39's list, whole.
_BIP39_WORD = "(?:" + _trie(_BIP39_WORDS) + ")(?![a-z])"
# What a line holding a seed phrase calls it, one of these in it (as written: a needle is a
# literal).
_SEED_WORDS = (*(w for word in (
    "seed", "phrase", "mnemonic", "wallet", "recovery", "words", "frase", "semilla", "semente",
    "palabras", "palavras", "mots", "w\u00f6rter", "woorden", "parole", "s\u0142owa", "kelime",
    "herstel", "r\u00e9cup", "recupera", "wiederherstellung",
    # (a browser's sync chain, Brave's "Sync chain code", its words BIP-39's)
    "sync")
    for w in (word, word.capitalize(), word.upper())),
    "\u30b7\u30fc\u30c9", "\u30cb\u30fc\u30e2\u30cb\u30c3\u30af", "\u52a9\u8bb0\u8bcd",
    "\ubcf5\uad6c")
# ... for the engine, which reads other scripts' letters as "a" (and is given "phrase" for
# "Wiederherstellungsphrase", "phrase de récupération").
_SEED_CONTEXT = ("seed|phrase|mnemonic|wallet|recovery|words|frase|semilla|semente|palabras"
                 "|palavras|mots|woorden|parole|kelime|herstel|recupera|sync|aaa")
# Twelve lower-case words in a row, as a seed phrase is written.
_WORD_ROW = r"(?:[a-z]{3,8}(?:[ \t]+|,[ \t]*)){11}[a-z]{3,8}"
# A word as the seed phrase's pattern reads one (a letter run; "'" and "-" join none).
_TOKEN = re.compile(r"[A-Za-z'-]+")
_TWELVE = b"\x01" * 12


def _seed_phrase_anchors(text: str) -> list[int]:
    """Where a seed phrase can start (its detector's ``anchors``): the first of twelve words
    in a row that are all on BIP-39's list. The words are looked up all at once, and only a
    line with such a row is read again for where they are (the word list's pattern, tried
    along every run of lower-case words, cost a prose line 5%)."""
    tokens = _TOKEN.findall(text)
    known = bytes([token in _BIP39_WORDS for token in tokens])
    if _TWELVE not in known:
        return []
    positions: list[int] = []
    streak: list[int] = []
    for token in _TOKEN.finditer(text):
        if token.group() in _BIP39_WORDS:
            streak.append(token.start())
            if len(streak) >= 12:  # (each window's first: punctuation may split the run)
                positions.append(streak[-12])
        else:
            streak = []
    return positions


def _d(kind: str, pattern: str, validator: Callable[[str], bool] | None = None, *,
       prefilter: str, group: int = 0, needles: tuple[str, ...] = (),
       checksummed: bool = False, prefix: Callable[[str], int | None] | None = None,
       digits: bool = False, start: Start | None = None,
       joined: Joined | None = None, joined_prefilter: str = "",
       starts: tuple[tuple[str, int], ...] = (),
       joined_starts: tuple[tuple[str, int], ...] | None = None,
       anchors: Callable[[str], list[int]] | None = None, gate: str = "") -> Detector:
    """``gate``: a pattern every text it matches holds (where no literal ``needles`` do)."""
    gates: tuple[re.Pattern[str], ...] = ()
    if needles:
        gates = (re.compile("|".join(re.escape(n) for n in needles)),)
    if gate:
        gates += (re.compile(gate),)
    if digits:
        gates += (_DIGIT,)
    return Detector(kind, re.compile(pattern), validator, group, gates, checksummed, prefix,
                    prefilter, start, joined, joined_prefilter, starts, joined_starts, anchors)


# Only the value is redacted, so the match may start at the keyword inside a longer key
# (db_password, x-api-key); a bare "key" must start a word or follow a separator (not monkey).
# Not counts or names that only mention tokens (max_tokens, prompt_token_ids,
# time_per_token, tokenizer) nor keys that index data (cache_key, routing_key).
# Each alternative starts with its literal and looks behind only once that matched: a
# look-behind first would run at every position of every line.
_NOT_TOKEN_COUNTS = (r"token(?<!(?<![a-z])per[_ -]token)"
                     # (nor "tokenized": a vault's stand-in for a card, tokenized=tok_9Qm2)
                     r"(?!izer|ized|s|total|[_ -](?:ids?|count|type|len|logprobs?)\b)"
                     # a page's place in a listing (page_token, nextPageToken, NextToken)
                     + "".join(rf"(?<!{w}[_ -]token)(?<!{w}token)" for w in (
                         "page", "next", "continuation", "sync", "resume", "progress",
                         "pagination",
                         # LoRaWAN's uplink_token (a gateway's opaque routing handle)
                         "uplink",
                         # a request's key against doing it twice (Idempotency-Token)
                         "idempotency",
                         # a form's CSRF token: a forgery guard, no login (left alone)
                         "csrf", "xsrf", "_csrf",
                         # a webhook's URL validation challenge and its answer, an HMAC
                         # (Zoom's plainToken and encryptedToken)
                         "plain", "encrypted",
                         # a device's push address (APNs' deviceToken, FCM's registration
                         # token) and a store's purchase handle: useless without the app's
                         # own server credentials
                         "device", "registration", "purchase",
                         # the app's own id for its user on a store purchase (Apple's
                         # appAccountToken, a UUID the app chose)
                         "appaccount", "app_account",
                         # a token's digest, kept to look it up (GitHub's audit log)
                         "hashed"))
                     # a latency named after a token (gen_ai.latency.time_to_first_token)
                     + "(?<!first_token)"
                     # an AWS call's idempotency token (EC2's clientToken; Vault's
                     # client_token is a token)
                     + "(?-i:(?<!clientToken))")
# One argument of a quoted argument list and what separates two: a JSON or Python list's comma,
# or an audit record's next field (a0="mysql" a1="-uroot").
_ARG = r"\\?[\"'][^\"'\n]{0,80}?\\?[\"']"
_ARG_SEP = r"(?:[ \t]*,[ \t]*|[ \t]+a\d{1,2}=)"
_COMMAND = r"\\?[\"'](?:[^\s\"']*/)?"  # an argument list's first: the command, maybe by its path
_DATA_KEYS = "".join(rf"(?<!{w}[_. -]key)" if w != "map" else
                     # (a map's key, not a service's named for maps: openweathermap_key)
                     r"(?<!(?<!weather)map[_. -]key)" for w in (
    "cache", "routing", "partition", "sort", "replication", "virtual", "primary", "foreign",
    # (Safe Exam Browser's Config Key and Browser Exam Key: hashes of its settings)
    "config", "exam",
    "idempotency", "dedup", "dedupe", "message", "record", "incident", "alert",
    "lookup", "shard", "group", "hash", "prefix", "row", "index", "dict", "map", "sharding",
    # (a dedupe job's "sample keys: <md5>, ...": a list's keys, a mailing list member's hash)
    "sample",
    # a CI cache's key ("Cache restored from key: pip-Linux-<sha256>")
    "from", "saved with", "input", "step", "asset", "run", "job",
    # a public key (WireGuard's "public key:", MikroTik's public-key=): published by design
    # (and a host's, whose fingerprint "SSH host key: ED25519 SHA256:..." prints)
    "public", "host",
    # a WebSocket handshake's nonce (Sec-WebSocket-Key): 16 random bytes that guard nothing
    "websocket",
    # an Apple crash report's device digest ("CrashReporter Key:   <40 hex>")
    "crashreporter",
    # a JWKS's cached key ids ("cached keys: [3891afa9aa0eeea1, ...]"): public
    "cached",
    # a prior authorization's key at a pharmacy benefit portal ("PA Key: QRAG2CQO"), not a
    # Wi-Fi's WPA key
    "(?<![A-Za-z])(?-i:PA)"))
# "secret" after an account id is an ARN's resource type (arn:aws:secretsmanager:...:secret:x)
# UPI's handles (a payment address's bank: rohit.verma@okhdfcbank), and what the detector
# of rewritten, guest and UPI addresses needs (its prefilter, plain and joined alike).
_UPI_HANDLES = ("ybl|ibl|axl|paytm|upi|apl|okhdfcbank|okicici|oksbi|okaxis|ptyes|ptaxis|pthdfc"
                "|ptsbi|hdfcbank|axisbank|kotak|yesbank|freecharge|airtel|jio|waaxis|wahdfcbank"
                "|wasbi|waicici|ikwik|yapl|abfspay|axisb|idfcbank|federal|rbl|aubank|barodampay"
                "|unionbank|pnb|cnrb|boi|mahb|kbl|kvb|dbs|fbl")
_REWRITTEN_OR_UPI = rf"SRS[01][=+-]|#EXT#@|@(?:{_UPI_HANDLES})"
# A number under a telephony system's key (the phone detector after Alibaba's keys).
_TELECOM_KEY_PHONE = (r"(?:wa_id|display_phone_number|caller_?id|callerid|destination_number"
                      r"|sip_from_user|sip_to_user|cid_num|cid_ani|agi_callerid|agi_dnid|ani"
                      r"|dnis|msisdn|rU|fU|tU|exten|src|dst|dest|Party[AB])[\"']?[ \t]*"
                      r"(?::|=)[ \t]*"
                      r"[\"']?"
                      r"\+?[0-9]{10}|\"(?:from|to)\\?\"[ \t]*:[ \t]*\[?[ \t]*\\?\"\+?[0-9]{10}"
                      r"|(?:From|To)=\+?[0-9]{10}|PhoneNumber\",\s*\"Value\":[ \t]*\"?[0-9]{10}"
                      r"|msisdn>\+?[0-9]{10}")
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_ULID = r"[0-7][0-9A-HJKMNP-TV-Z]{25}"  # a ULID: a timestamp's 10 characters, then 16
# An entity's id: its type's word, a joiner, then letters and digits.
_ENTITY_ID = (r"(?:(?i:user|usr|tenant|org|account|acct|customer|cus|team|project|proj|device"
              r"|order|workspace|ws)[_-][A-Za-z0-9]+"
              # (a payment platform's objects: an invoice's, a subscription's, a charge's)
              r"|(?:in|sub|ch|pi|py|re|txn|ii|il)_[A-Za-z0-9]{14,}"
              # a Jira issue's key (OPS-4962)
              r"|[A-Z][A-Z0-9]{1,9}-\d+)(?![\w.-]*[^\w\s\"',;}\]])")
_ROUTE_KEY = (r"(?!\\*[\"'][ \t]*:[ \t]*\\*[\"'][A-Z]\w*-[\w-]{21}\\*[\"'][ \t]*,[ \t]*"
              r"\\*[\"']name\\*[\"'])")
# (not a key's digest: LiteLLM's metrics label it hashed_api_key)
_SECRET_WORDS = (r"api[_-]?key(?<!hashed_api_key)(?<!hashed-api-key)|apikey|api[_-]?v\d[_-]?key"
                 r"|app(?:lication)?[_-]?key|"
                 # (an API key named in Spanish, Polish, Portuguese or Hungarian: clave_api,
                 # klucz_api, api_chave, kulcs)
                 r"(?:clave|klucz|chave)[_-]?api|api[_-]?(?:clave|klucz|chave)|kulcs|"
                 # (not a Secret's name in an ingress annotation: .../auth-secret: <name>)
                 # (nor detect-secrets' baseline: a secret's SHA-1 under hashed_secret)
                 # (nor a secretary, in English, Spanish or Italian: "bookings secretary: ...")
                 r"secret(?!ar(?:y|ia|io|iat))(?<!:secret)(?<!\.io/auth-secret)(?<!auth-tls-secret)"
                 r"(?<!hashed_secret)(?<!hashed-secret)(?<!hashedsecret)"
                 # (nor Asterisk's md5secret: the MD5 of user:realm:secret)
                 r"(?<!md5secret)|"
                 r"session[_-]?cookie|"
                 # "pass" as a key's word only after a separator, in an object or before "="
                 # (NEXUS_PASS, "pass":, { user, pass: }, pass = x), not in prose ("first
                 # pass: ...")
                 # (and as an indented YAML key: dbt's profiles.yml "      pass: ...")
                 r"(?:(?<=[_\-\"'])|(?<=[{,] ))pass(?![a-z])|(?<![a-z])pass(?=[ \t]*=)|"
                 # (offlineimap's remotepass = ...)
                 r"(?<=remote)pass(?=[ \t]*=)|"
                 r"(?:(?<=\n  )|(?<=\n    )|(?<=\n      )|(?<=\n        ))pass(?=:[ \t])|"
                 + _NOT_TOKEN_COUNTS
                 # pwd as a word or after "db" (DB_PWD, dbpwd), not inside an id (AROA...RPWDD)
                 + r"|passw(?:or)?[dt]|(?:(?<![a-z0-9])|(?<=db)|(?<=\\[nrt]))pwd|"
                 # (a PHP config's $CFG->dbpass; sshpass's SSHPASS, Moodle's --adminpass and
                 # smtppass)
                 + r"(?<=db)pass(?![a-z])|(?<=ssh)pass(?![a-z])|(?<=smtp)pass(?![a-z])"
                 + r"|(?<=admin)pass(?![a-z])|(?<=dn)pass(?![a-z])|"
                 # (not a debug namespace: Playwright's "pw:browser")
                 + r"(?<![a-z0-9])pw(?![a-z0-9])(?=\\*[\"']?[ \t]*(?:=|:[ \t]))|"
                 # (not a validator's withdrawal credentials: an address, on chain)
                 # (nor systemd's LoadCredential=<name>:<path>: where the credential is read from)
                 # (not a door's credential type: "credential": "mobile")
                 r"(?<!withdrawal_)(?<!load)credentials?(?!\\*[\"']?[ \t]*[:=][ \t]*\\*[\"']?"
                 r"(?:mobile|card|badge|pin|fingerprint|face|nfc|ble|qr|fob|key[ _-]?fob|none)"
                 r"\\*[\"'])|auth[_-]?key|access[_-]?key|account[_-]?key|"
                 # (and an abbreviation: eQSL's EQSL_PSWD=)
                 r"(?<![a-z])pswd(?![a-z])|(?<=_)pswd(?![a-z])|"
                 r"private[_-]?key|"
                 # Wi-Fi and VPN keys (wpa_passphrase=, psk=, WireGuard's PresharedKey), SNMP's
                 # (LibreNMS' ['authpass'], ['cryptopass'], ['community'])
                 # (capital PSK only before "=": OpenSSL's cipher lists say "PSK:HIGH")
                 # (OCI's config file: pass_phrase=)
                 r"pass[_-]?phrase|pass[_-]?key|"
                 # (a key's unlock phrase, a wallet's seed or recovery phrase, its mnemonic)
                 r"unlock[_-]?phrase|seed[_-]?phrase|recovery[_-]?phrase|mnemonic|"
                 r"(?:(?-i:psk)|(?-i:PSK)(?=[ \t]*=|:[ \t]))(?![a-z])"
                 r"|pre[_-]?shared[_-]?key|"
                 r"(?:auth|crypto|priv)pass(?![a-z])|"
                 # (not a place's name in a form: "Community: Orange County")
                 r"community(?![a-z])(?![ \t]*:[ \t]*(?-i:[A-Z][a-z]+[ \t]+[A-Z][a-z]+))|"
                 # a bare "key" holding a UUID is a record's key (Kafka's key=<uuid>, a store's
                 # key='<uuid>'), not a credential
                 # (not an XML setting's name attribute: <add key="X" value="..."/>, Azure
                 # AD B2C's <Item Key="IdTokenAudience">)
                 # (a payment platform's webhook signing key: Adyen's hmacKey; PhonePe's
                 # salt_key, a UUID; an environment's *_BEARER; a form's userPw)
                 # (a camel-case "Pwd" too, tempPwd)
                 r"hmac[_-]?key|salt[_-]?key|bearer(?![a-z])|(?<=[a-z])(?-i:Pwd?)(?![a-z0-9])|"
                 # (a payment gateway's MerchantKey, AppsFlyer's devKey, Airflow's fernetKey; a
                 # one-time code under its key: invitation_code=, authorizationCode=, smsCode=;
                 # a signing keystore in base64)
                 # (and PayTR's merchant_salt, its HMAC's other secret)
                 r"merchant[_-]?(?:key|salt)(?![a-z])|(?<![a-z])devkey(?![a-z])|appsflyer[_-]?key|"
                 # (French's password as a form's field: mot_de_passe=)
                 r"(?<![a-z])mot[_-]de[_-]passe(?![a-z])|"
                 # (a tax API's licenseKey, Avalara's)
                 r"licen[cs]e[_-]?key(?![a-z])|"
                 # (a device's claim code: "claim_code": "M8TENO")
                 # (an escrow's release code, a remote session's join code)
                 r"fernet[_-]?key|(?:invitation|authorization|verification|claim|release|join)"
                 r"[_-]?code(?![a-z])|"
                 r"sms[_-]?code(?![a-z])|keystore[_-]?(?:base64|b64)|"
                 # (PlayStation's SSO cookie, kept in a tool's config as npsso = "..."; a
                 # one-time password's seed, mfa_seed in a vault's listing)
                 r"(?<![a-z])npsso(?![a-z])|(?<![a-z])(?:mfa|totp|otp)[_-]?seed(?![a-z])|"
                 # (a security question's answer as an agent's memory keeps it)
                 r"security[_-]?answer|"
                 # (Dex's bindPW, Entra's temporaryAccessPass; Duo's skey, its secret key;
                 # LoRaWAN's nwkKey and a Thread network's key; Portuguese's palavra-passe)
                 r"(?<=[a-z])(?-i:PW|Pass)(?![a-zA-Z0-9])|(?<![a-z0-9])skey(?![a-z])|"
                 # (a tax agency's access code: NETFILE's access_code=)
                 r"access[_-]?code(?![a-z])|"
                 r"nwk[_-]?(?:s[_-]?)?key|network[_-]?key|palavra[_-]?passe|"
                 # (Azure's SAS keys, a Hue bridge's clientkey; a personal access token's PAT
                 # as a key only: OURA_PAT = "...")
                 r"primary[_-]?key|secondary[_-]?key|client[_-]?key|"
                 r"(?<![a-z0-9])pat(?![a-z0-9])(?=\\*[\"']?[ \t]*[:=])|"
                 # (Authorize.net's transactionKey)
                 r"client[_-]?secret|transaction[_-]?key|"
                 # (an engine's EncryptionKey, a webhook's sharedKey; an encoder's
                 # StreamKey, a search service's adminKey; a smart meter's DLMS keys)
                 r"encryption[_-]?key|shared[_-]?key|stream[_-]?key|admin[_-]?key|"
                 # (Artifactory's masterKey and joinKey)
                 r"master[_-]?key|join[_-]?key|"
                 r"(?<![a-z0-9])(?:guek|gbek|gak)(?![a-z0-9])|"
                 r"key(?<![a-z0-9]key)(?<!<add key)(?<!<item key)(?<!hashed_api_key)(?![a-z]{2})"
                 # (nor keys= and a word of letters: a PIN pad's "keys=numeric", its layout)
                 r"(?!s=[a-z]{2,16}(?![\w-]))"
                 # (a "secret key" may be one: DocuSign's, "Secret key: <uuid>")
                 rf"(?!(?<!secret key)(?<!Secret key)(?<!SECRET KEY)"
                 rf"\\*[\"']?[ \t]*[:=][ \t]*\\*[\"']?(?:{_UUID}|{_ULID})(?![\w-]))"
                 # nor an entity's id (a Kafka record's key=tenant-2704, LaunchDarkly's
                 # context {"kind":"user","key":"usr_x4qk..."})
                 rf"(?!\\*[\"']?[ \t]*[:=][ \t]*\\*[\"']?{_ENTITY_ID})"
                 # nor a React Navigation route's key (its name, "-" and a nanoid, then the
                 # name: {"key": "Home-u3q_k9eq8VLWrhK26GjTu", "name": "Home"})
                 + _ROUTE_KEY
                 # nor a word of letters alone ("key": "SYSTEM", an actor's kind in an audit
                 # log; key="linear", a parameter's choice in code): a key names a credential
                 # only with digits or length in it (the pattern folds case: any letters)
                 + r"(?!\\*[\"']?[ \t]*[:=][ \t]*\\*[\"'][A-Z]{2,12}\\*[\"'])"
                 # nor a cache's key: a namespace, then a digest ("key=llm:<sha256>")
                 + r"(?!\\*[\"']?[ \t]*[:=][ \t]*\\*[\"']?[a-z][\w.-]*:[0-9a-f]{32,64}(?![\w-]))"
                 # nor lower-case words joined by "-" or "_" (a feature flag's key,
                 # "new-checkout-flow", an experiment's "onboarding_carousel")
                 # (quoted, or bare to the line's end: Envoy's rate limit "- key: remote_address")
                 # (a serial after them too: NetSuite's customdeploy_mr_invoice_sync_3)
                 + r"(?!\\*[\"']?[ \t]*[:=][ \t]*(?:\\*[\"'][a-z]+(?:[-_][a-z]+)+(?:[-_]\d{1,3})?"
                 r"\\*[\"']"
                 r"|[a-z]+(?:[-_][a-z]+)+(?:[-_]\d{1,3})?[ \t]*(?:\n|$)"
                 # (and dotted: a feature flag's namespaced key, key=portal.show_ssn_last4)
                 r"|[a-z]+(?:_[a-z]+)*(?:\.[a-z]+(?:_[a-z]+)*\d{0,2})+(?=[ \t,]|$)))"
                 # nor an HSM key's name (key=ZMK.VISA.2024, key=ZPK.ACQ.NEXI.01: a key check
                 # value beside it, never the key), a Spark plan's attribute (keys=[country#12])
                 # or a SQL Server lock's resource ("KEY: 7:72057594045333504 (8194443284a0)")
                 + r"(?!s?[ \t]*[:=][ \t]*(?:(?-i:[A-Z]{2,5}(?:\.[A-Z0-9]{2,8}){1,4})(?![\w.-])"
                 r"|\[[\w.]+#\d+|\d{1,5}:\d{6,20}[ \t]+\([0-9a-f]{8,16}\)))"
                 # nor, in YAML, a word of letters alone (a secretKeyRef's "key: openai" names
                 # the Secret's entry)
                 + r"(?![ \t]*:[ \t]*[a-z][a-z-]{1,30}[ \t]*(?:$|\r?\n|\}|,))"
                 # nor a Celery queue's routing key ("exchange=celery(direct) key=celery")
                 + "".join(rf"(?<!\({kind}\) key)" for kind in ("direct", "topic", "fanout"))
                 + _DATA_KEYS +
                 r"|sig(?<![a-z0-9]sig)(?![a-z0-9])"
                 # (not a word: a delivery's proof, "sig=captured")
                 r"(?![ \t]*[:=][ \t]*[a-z]{2,20}(?![\w+/=%.-]))"
                 # Segment's writeKey; "tok" as a key's word (x_tok_v2, zd_tok_prod)
                 r"|write[_-]?key|(?<![a-z0-9])tok(?![a-z])"
                 # ("tkn" the same: a pipeline's zd_tkn)
                 r"|(?<![a-z0-9])tkn(?![a-z])")
# Keys that name where a secret lives or how it is handled, not the secret itself
# (secretName, SECRET_KEY_FILE, passwordSecretRef, tokenPath, API_KEY_HEADER, TOKEN_URL): the
# key's last word, looked behind for once the key has been read whole.
_NOT_THE_SECRET = "".join(rf"(?<!{w})" for w in (
    "name", "names", "header", "file", "path", "dir", "ref", "env", "url", "uri", "endpoint",
    # (a UI string's key: api_key_label)
    "label",
    # how a secret is stored, not the secret (postgresql.conf's password_encryption)
    "encryption",
    "ttl", "length", "len", "size", "type", "id", "arn", "version", "mode", "count", "format",
    # a command that prints it (Airflow's AIRFLOW__CORE__FERNET_KEY_CMD, restic's
    # RESTIC_PASSWORD_COMMAND)
    "cmd", "command",
    # a policy's rule for it (password_complexity=3_of_4, new_password_strength=strong), a
    # hash's work factor (PasswordHashIterations), a signature's algorithm (sig_alg)
    "complexity", "strength", "iterations", "alg",
    # OpenTravel's message correlation id (<OTA_HotelResNotifRQ EchoToken="...">)
    "echotoken",
    # how keys are managed (wpa_supplicant's key_mgmt=WPA-PSK)
    "mgmt",
    "expiry", "expires", "timeout", "lifetime", "minutes", "provider", "store", "backend",
    "enabled", "alias", "hash",
    # a cache of tokens and its key (TokenCacheKey, token_cache)
    "cache", "cachekey",
    # what a key starts with, and how passwords are hashed and checked (api_key_prefix:
    # "lumo_sk_live_", key_prefix: uploads/, PASSWORD_HASHERS, AUTH_PASSWORD_VALIDATORS,
    # password_attribute: unicodePwd)
    "prefix", "hashers", "validators", "attribute",
    "fingerprint", "sha1", "sha256", "sha512", "md5", "digest", "checksum", "slug",
    # a callback's signature of its own request (Midtrans' signature_key)
    "(?<!webhook_)signature_key",
    # how a secret is used or checked: auth_method, password_policy, KeyError, key_usage
    "method", "policy", "policies", "rules", "requirements", "hint", "error", "usage", "usages",
    # (the same in German: "Passwort-Anforderungen: mindestens 12 Zeichen")
    "anforderungen", "richtlinie", "richtlinien", "regeln",
    "purpose",
    # an exception's class (Android's WindowManager$BadTokenException: Unable to add window)
    "exception",
    "algorithm", "algo", "rotation",
    # a service's name (arn:aws:secretsmanager:..., "secret_manager": "vault")
    "manager",
    # Helm's existingSecret: the name of a Kubernetes Secret that holds it
    "existingsecret", "existing_secret", "existing-secret",
    # (a chart's reference to the Secret holding them: credentialsSecret: ota-s3)
    "credentialssecret", "credentials_secret",
    # a secret's state, and when a tool updates it (Ansible's update_password: on_create)
    "status", "state", "update_password", "helper", "identifier",
    # when it changed (LDAP's pwdChangedTime)
    "time",
    # an app's strings about it (Localizable.strings' "login.password.placeholder",
    # "password.forgot"): what a screen says, in the user's language
    "placeholder", "label", "title", "forgot", "caption", "tooltip",
    # (and a message bundle's text about it: Keycloak's invalidPasswordMessage=..., a
    # token's audience, B2C's IdTokenAudience)
    "message", "audience",
    # Active Directory's facts about a password (PasswordLastSet, PasswordNeverExpires), and
    # an assembly's public key token (.NET's publicKeyToken="31bf3856ad364e35"): public
    "lastset", "neverexpires", "notrequired", "expired", "publickeytoken",
    # an HLS playlist's tag (#EXT-X-KEY:METHOD=AES-128,URI=...): where the key is, not it
    "ext-x-key",
    # a job about keys and its schedule (key_rotation_check: "0 3 1 * *"), when a key
    # changed (stream_key_last_rotated)
    "check", "schedule", "cron", "rotated", "updated", "created",
    # a key pair's id (CloudFront's key_pair=K2JCJMDEHXQW5F), a record's version for
    # optimistic locking (Square's version_token), a cache key's prefix (WordPress'
    # WP_CACHE_KEY_SALT), a request's trace id (DocuSign's X-DocuSign-TraceToken)
    "pair", "version_token", "versiontoken", "cache_key_salt", "tracetoken", "trace_token",
    "trace-token",
    # Feishu's and Lark's tenant_key: the tenant's id in every event
    "tenant_key")) + "".join(
    # a source file (a changelog's "* tests/request_key.test: Likewise.", a compiler's
    # "secrets.c:85:40: warning"), and a file's name as a manifest's key (a wallet pass's
    # manifest.json: {"pass.json": "<sha1 of the file>"})
    rf"(?<!\.{ext})" for ext in ("c", "h", "cc", "cpp", "hpp", "py", "java", "kt", "go", "rs",
                                  "js", "ts", "rb", "pl", "sh", "scm", "test", "txt", "md",
                                  "json", "png"))
# A sampled token and its log probability ({"token": " Paris", "logprob": -0.27}, OpenAI's and
# vLLM's logprobs): text the model wrote, not a credential. And a key/value pair's key
# (OTLP/JSON attributes: {"key": "service.name", "value": {...}}): a name, not a key.
_NOT_LOGPROBS = (r"(?!\\?[\"']?\s*,\s*\\?[\"'](?:logprob|value\\?[\"']\s*:))"
                 # LiteLLM's spend log: the key's SHA-256 under api_key, then the spend
                 # (and its key info: {"key": "<sha256>", "info": {"key_name": "sk-...x"}})
                 # (its model's name between them too: "api_key": "<sha256>", "model": ..., "spend")
                 r"(?!(?<=[0-9a-f]{64})\\?[\"']\s*,\s*(?:\\?[\"']model\\?[\"']\s*:\s*\\?[\"'][^\"'\\\n]{1,80}"
                 r"\\?[\"']\s*,\s*)?\\?[\"'](?:spend|info)\\?[\"'])"
                 # the same pair in protobuf's text format (key:"span_id" value:{...})
                 r"(?!\\?[\"']?[ \t]+value[ \t]*:[ \t]*\{)")
# A key holding a secret's word, read whole, and its closing quote; and, in the prefilter's
# syntax, a necessary condition for it.
# A tag's "key" field (Jaeger: {"key": "http.status_code", "type": "int64", "value": 200}).
_NOT_A_TAG = (r"(?!key\\*[\"'][ \t]*:[ \t]*\\*[\"'][^\"'\n]*\\*[\"']\s*,\s*\\*[\"']"
              r"(?:type|vType|readonly|value)\\*[\"'])")
# (not a word of an image's or a path's last part: ghcr.io/acme/token-meter:5400fb8)
_SECRET_KEY = (rf"(?i)(?=[abcdefghiklmnprstuvw])(?<!/){_NOT_A_TAG}(?:{_SECRET_WORDS})[\w.-]*"
               rf"{_NOT_THE_SECRET}"
               # (not a chart's name of a Secret's entry: LiteLLM's "masterkeySecretKey:
               # masterkey", "passwordKey: password", a word alone to the line's end)
               r"(?!(?<=(?-i:Key))[ \t]*:[ \t]*(?-i:[a-z][a-z_-]{1,30})[ \t]*(?:\r?\n|$))"
               r"\\*[\"']?")
_SECRET_KEY_PREFILTER = (r"(?i)(?:api[_-]?key|apikey|api[_-]?v\d[_-]?key|app(?:lication)?[_-]?key"
                         r"|clave|klucz|chave|kulcs|api[_-]?(?:clave|klucz|chave)"
                         r"|secret|tok|tkn|skey|nwk|network[_-]?key|palavra|"
                         r"passw(?:or)?[dt]|pass|pwd?|pswd|credentials?|psk|pre[_-]?shared[_-]?key|"
                         r"community|"
                         r"auth[_-]?key|access[_-]?key|account[_-]?key|private[_-]?key|"
                         r"client[_-]?secret|key|sig|session[_-]?cookie|bearer|pat|access[_-]?code"
                         r"|encryption[_-]?key|shared[_-]?key|stream[_-]?key|admin[_-]?key"
                         r"|guek|gbek|gak"
                         r"|(?:invitation|authorization|verification|sms|claim|release|join)[_-]?code"
                         r"|licen[cs]e[_-]?key|mot[_-]de[_-]passe|merchant[_-]?salt"
                         r"|npsso|(?:mfa|totp|otp)[_-]?seed|security[_-]?answer"
                         r"|unlock[_-]?phrase|seed[_-]?phrase|recovery[_-]?phrase|mnemonic)"
                         r"[\w.-]*\\*[\"']?")
# What every alternative of _SECRET_WORDS starts with (lower case), for the start bound.
_SECRET_STARTS = ("api", "app", "secret", "token", "pass", "pwd", "pw", "credential", "auth",
                  "session", "access", "account", "private", "client", "key", "sig", "psk", "pre",
                  "crypto", "priv", "community", "hmac", "salt", "bearer", "write", "tok",
                  "transaction", "primary", "secondary", "pat", "clave", "klucz", "chave",
                  "kulcs", "unlock", "seed", "recovery", "mnemonic", "tkn", "skey", "nwk",
                  "network", "palavra", "encryption", "shared", "stream", "admin", "guek",
                  "gbek", "gak", "merchant", "devkey", "appsflyer", "fernet", "invitation",
                  "license", "licence", "mot",
                  "verification", "smscode", "sms_code", "sms-code", "npsso", "mfa", "totp",
                  "otp", "security", "master", "join", "claim", "release", "pswd")
# Where a match of a pattern that opens with _SECRET_KEY can start, for the engine.
# Each word whole, one expression per length (the start is the end less it): three-letter
# prefixes fired at "created", "compute", "seconds" and "print" on most log lines, and every
# report is a callback into Python and a place to try the pattern.
_SECRET_KEY_STARTS = (*(("(?i)" + "|".join(sorted(w for w in _SECRET_STARTS
                                                 if len(w) == n and w != "tok")), n)
                        for n in sorted({len(w) for w in _SECRET_STARTS} - {2, 5})),
                      (r"(?i)pw", 2), (r"(?i)write|clave|klucz|chave|kulcs|admin|npsso|claim", 5),
                      # "tok" as a key's word, not the start of "token" (reported apart)
                      (r"(?i)tok[^e]", 4),
                      # "token" as a key, not "tokens" (which the pattern refuses): a character
                      # must follow, for the separator
                      (r"(?i)token[^s]", 6))
# A value ends at a separator or where a JSON object or array closes ("total_tokens": 8370}}).
# Word characters for addresses in any script: \w plus the combining vowel signs and marks
# of Indic and South-East Asian scripts (Python's \w leaves them out: "डाटामेल").
_MARKS = r"\u0300-\u036f\u0900-\u0dff\u0e00-\u0eff"
_UW = r"\w" + _MARKS
_VALUE_STOP = r"\s\"',;&<>}\]"
# In JSON-escaped text ("KEY=x\\nNEXT=y") an escape ends a value: a backslash is part of a
# value only when no escape letter follows it (a \uXXXX escape is one of its characters).
# (an escaped slash escaped again, "\\/", as JSON inside a JSON string writes it, is one too)
_NOT_AN_ESCAPE = (r"(?:\\(?![nrtu\"\\/])|\\{1,3}/|\\u[0-9A-Fa-f]{4}"
                  # (a backslash escaped, then a character no escape begins with: JSON's
                  # "Wint3r\\c6A2")
                  r"|\\\\(?![nrtu\"\\/\s]))")
# A quote escaped inside a value (JSON: password=\\"l0qnp\\"Im4s#187\\"): part of the value when
# more of it follows at once; an escaped quote before a separator or the end closes it.
# (at most seven backslashes: an escape escaped thrice; unbounded, a run of them costs a square)
_INNER_QUOTE = r"\\{1,7}[\"'](?=[^\s\"',;&<>}\])\\])"
# A value told in prose: no quote or separator, but an inner escaped quote (not first).
_PROSE_VALUE = (rf"[‘“«„]?([^\s\"',;<>\\‘’“”«»„](?:{_INNER_QUOTE}|[^\s\"',;<>‘’“”«»„]){{5,}})")
# Python's \s also matches the ASCII separators \x1c-\x1f; a prefilter must too.
_S = r"[\s\x1c-\x1f]"
# AWS access key id prefixes (IAM user, STS temporary, group, role, ...; A3T: the legacy
# form secret scanners still look for). The body is [A-Z0-9]: ids seen in the wild use
# the whole alphabet, not only base32.
_AWS_PREFIXES = ("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA",
                 "ANVA", "APKA")
_PEM = r"-{4,5} ?%s (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)? ?-{4,5}"
# Where a private key's armour begins and ends: a PEM block's lines, a PuTTY key file's.
_KEY_BEGIN = (_PEM % "BEGIN") + r"|PuTTY-User-Key-File-\d+:"
_KEY_END = (_PEM % "END") + r"|Private-(?:MAC|Hash): *[0-9A-Fa-f]+"
#: A private key's first line and last (``servescope redact`` reads the lines between as one).
KEY_BEGIN = re.compile(_KEY_BEGIN)
KEY_END = re.compile(_KEY_END)

# Before a start, for the patterns whose look-behind refuses a digit there: the engine then
# reports a run of digits once, not at each of its positions. Not a letter: a combining mark
# reaches the engine as "a", though Python's \w refuses it.
_ND = "(?:^|[^0-9])"
# A North American number: an optional "1" and separator, an area code in parentheses (a space
# may follow) or followed by a separator, then ddd-dddd. Its starts, by length.


def _nanp_starts(space: str, separator: str) -> tuple[tuple[str, int], ...]:
    """The starts, by length; ``space`` and ``separator`` as the text reads them (the joined
    reading takes a joiner for either)."""
    tail = rf"\d{{3}}{separator}\d{{4}}"
    return tuple((_ND + "(?:" + "|".join(forms) + ")", length) for length, forms in (
        (12, [rf"\d{{3}}{separator}" + tail]),
        (13, [r"\(\d{3}\)" + tail, rf"1\d{{3}}{separator}" + tail]),
        (14, [rf"\(\d{{3}}\){space}" + tail, r"1\(\d{3}\)" + tail,
              rf"1{separator}\d{{3}}{separator}" + tail]),
        (15, [rf"1\(\d{{3}}\){space}" + tail, rf"1{separator}\(\d{{3}}\)" + tail]),
        (16, [rf"1{separator}\(\d{{3}}\){space}" + tail]),
    ))


def _ipv4_starts(before: str) -> tuple[tuple[str, int], ...]:
    """An address's first two octets and the dot after each (a version such as 0.25 has one),
    by length, after ``before`` (or the text's start)."""
    by_length: dict[int, list[str]] = {}
    for a in range(1, 4):
        for b in range(1, 4):
            by_length.setdefault(a + b + 2, []).append(rf"\d{{{a}}}\.\d{{{b}}}\.")
    return tuple((f"(?:^|{before})(?:" + "|".join(forms) + ")", length)
                 for length, forms in sorted(by_length.items()))


def _zero_starts(separator: str, pair_separator: str) -> tuple[tuple[str, int], ...]:
    """A national number with a leading 0: its prefix, a separator and three digits, or two
    digit pairs (01 81 03 37 07), by length; separators as the text reads them."""
    by_length: dict[int, list[str]] = {6: [rf"0[1-9]{pair_separator}\d{{2}}{pair_separator}"],
                                       # (four digits, then pairs: Belgium's mobiles)
                                       8: [rf"0\d{{3}}{pair_separator}\d{{2}}{pair_separator}"]}
    for prefix in range(1, 6):
        by_length.setdefault(prefix + 5, []).append(rf"0\d{{{prefix}}}{separator}\d{{3}}")
    return tuple((_ND + "(?:" + "|".join(forms) + ")", length)
                 for length, forms in sorted(by_length.items()))


def _under_key(key: str, value: str, validator: Callable[[str], bool] | None, *,
               needles: tuple[str, ...], prefilter_value: str = "") -> Detector:
    """A secret whose vendor names its key (a header, a config field): ``key`` (a regex, case
    folded), a separator, and ``value`` (its shape) as the whole value."""
    head = rf"{key}\\*[\"']?[ \t]*(?:=>|[:=])"  # (=>: a Ruby hash's, Logstash's rubydebug)
    return _d("secret_assignment",
              r"(?i)(?<![\w-])" + head
              + rf"[ \t]*\\*[\"']?((?<=[\s:=>\"']){value})(?![\w-])", validator,
              prefilter="(?i)" + head + (rf"[ \t\\\"']*{prefilter_value}" if prefilter_value
                                         else ""),
              group=1, needles=needles,
              start=_at_literal((key.split("[", 1)[0],), fold=True))


# Between a document's name and its number: the rest of the name's line and up to two more
# lines (a chat's question, an acknowledgement, the answer: "Document type: PESEL\nDocument
# number: ..."), no digit (the first number after the name is the one it names), and no end
# of a question or an exclamation on the number's own line ("passport for Corsica? Booking
# KX8P3M" names no passport).
_NAMED_GAP = r"(?:[^\n\d]{0,60}?\n){0,2}?[^\n\d?!\uff1f\uff01]{0,60}?"
# A number of a script without spaces ("マイナンバーは9956 5013 6227です") may follow a
# word: only ASCII letters and digits glue to one.
# (after a JSON-escaped line break too: a form's value on the line after its label, "\\n920 ...")
_ID_L, _ID_R = r"(?:(?<![0-9A-Za-z.-])|(?<=\\[nrt]))", r"(?![0-9A-Za-z-])"
# ... for a passport or an identity card: not across another record's number ("neuen
# Personalausweis, Vorgangsnummer 50922225": the appointment's case, not the card's).
_PASSPORT_GAP = (r"(?:[^\n\d]{0,60}?\n){0,2}?"
                 r"(?:(?!vorgangsnummer|aktenzeichen|kundennummer|auftragsnummer|bestellnummer"
                 # (nor a shift's reference: "... lub paszport. Nr ref. S596361")
                 r"|ref\b|ref\.|reference|referenz)"
                 r"[^\n\d?!\uff1f\uff01]){0,60}?"
                 # (a question, then the number told: "Can I buy with my German passport? Number
                 # is C01VFF0YP")
                 r"(?:\?[ \t]+(?:the[ \t]+)?(?:number|nr\.?|no\.?)(?:[ \t]+is)?[ \t]*:?[ \t]*)?"
                 # (not a form's example: placeholder="e.g. C01X00T47")
                 r"(?<!e\.g\.[ \t])(?<!z\.B\.[ \t])(?<!eg[ \t])(?<!ex\.[ \t])")


# A short name as a key only ("sin=", "payee_tfn=", "\"tz\":"), not a word of prose.
# (and an XML element's name: <tfn>767 715 342</tfn>, not its closing tag)
_AS_KEY = r"(?<![a-z])(?<!</)%s(?=\\*[\"']?[ \t]*[:=]|>)"  # (its quote escaped, once or thrice)


# Aadhaar's name in Tamil, Bengali, Telugu, Kannada, Malayalam, Gujarati and Urdu.
_AADHAAR_SCRIPTS = ("\u0b86\u0ba4\u0bbe\u0bb0\u0bcd", "\u0986\u09a7\u09be\u09b0",
                    # (Punjabi's and Odia's)
                    "\u0a06\u0a27\u0a3e\u0a30", "\u0b06\u0b27\u0b3e\u0b30",
                    "\u0c06\u0c27\u0c3e\u0c30\u0c4d", "\u0c86\u0ca7\u0cbe\u0cb0\u0ccd",
                    "\u0d06\u0d27\u0d3e\u0d7c", "\u0a86\u0aa7\u0abe\u0ab0",
                    "\u0622\u062f\u06be\u0627\u0631")


def _named_id(names: tuple[str, ...], words: tuple[str, ...], value: str,
              validator: Callable[[str], bool], *, checksummed: bool = True,
              shape: str = "", gap: str = _NAMED_GAP, kind: str = "national_id",
              reach: str = "") -> Detector:
    """A value after its name (a national id after its document's name, unless ``kind`` says
    otherwise): ``names`` (regexes, ASCII case folded), then
    :data:`_NAMED_GAP`, then ``value`` (its shape, case as written); ``words``: where a name
    can start, lower case (the scan starts at the first; none in the text: not run).
    ``validator``: the country's check. The prefilter asks for a name and the value's shape
    within reach (``shape``: the value's, without look-arounds, where ``value`` has them);
    ``gap``: what may stand between the name and the value;
    ``kind``: what the value is (a phone after its label's words: "phone"); ``reach``: what
    the prefilter reads between a name and the value's shape (by default two lines on);
    the engine reads the names of other scripts as runs of "a" (prefilter.py)."""
    near = "|".join(dict.fromkeys(_engine_name(n) for n in names))
    reach = reach or r"(?:[^\n]{0,60}\n){0,2}[^\n]{0,60}"
    prefilter = rf"(?i:{near}){reach}(?:{shape or value})"
    # (a phone's or an account's: the joined pass reads it as the text does, its name before
    # it)
    joins = kind in ("phone", "iban")
    return _d(kind,
              rf"(?ai)(?:{'|'.join(names)}){gap}{_ID_L}((?-i:{value})){_ID_R}",
              validator, prefilter=prefilter,
              group=1, checksummed=checksummed, digits=True, start=_at_words(words),
              joined=_nothing_joined if joins else None,
              joined_prefilter=prefilter if joins else "")


def _not_zeros(value: str) -> bool:
    """A named number of a shape that holds letters too, whose digits are not a form's
    zeros ("format A000000000X")."""
    return any(ch in "123456789" for ch in value)


def _has_six_digits(value: str) -> bool:
    """A field of letters and digits that holds a number: six digits at least."""
    return sum(ch.isdigit() for ch in value) >= 6


def _member_number_ok(value: str) -> bool:
    """A member's number: not a counting run, not a form's zeros."""
    return _not_zeros(value) and v.not_counting_run(value)


def _has_digit(value: str) -> bool:
    """A named number of a shape that holds letters too: at least a digit."""
    return any(ch.isdigit() for ch in value)


# The records whose numbers are no person's: "invoice document number", "ticket id number".
_NOT_A_RECORDS = "".join(rf"(?<!{w} )" for w in (
    "invoice", "Invoice", "ticket", "Ticket", "order", "Order", "customer", "Customer",
    "account", "Account", "transaction", "Transaction", "case", "Case", "request", "Request",
    "shipment", "Shipment", "booking", "Booking", "reference", "Reference", "the invoice"))


def _engine_name(name: str) -> str:
    """A document's name as the prefilter engine reads it (looser: no boundaries; the
    letters of other scripts as "a": "ת.ז" is "a.a"). A look-ahead the name must meet is
    read as text (a key's "tin" and its "=": "tin" alone is inside "getting" and "waiting")."""
    engine = _LOOK_AROUND.sub("", name).replace("(?=", "(?:")
    # (a name in capitals stays so there: the engine takes "(?-i:SIN)" inside "(?i:...)", and
    # "sin" is inside "using", "business" and "since")
    return engine_reading(engine.replace(r"\b", ""))


_LOOK_AROUND = re.compile(r"\(\?(?:<[!=]|!)[^()]*\)")


def _national_ids() -> tuple[Detector, ...]:
    return (
    _named_id((r"steuer[ _-]?id", r"steuer[ _-]?identifikationsnummer",
               # (and the law that names it: "Identifikationsnummer (§ 139b AO): ...")
               r"identifikationsnummer(?:[ \t]*\(§[ \t]*139b[ \t]*AO\))?", r"idnr"),
              ("steuer", "identifikationsnummer", "idnr"),
              r"\d{2} ?\d{3} ?\d{3} ?\d{3}", ids.steuer_id_ok),
    _named_id((r"pesel",), ("pesel",),
              r"\d{11}|\d{2} \d{2} \d{2} \d{3} \d{2}|\d{3} \d{3} \d{3} \d{2}",
              ids.pesel_ok),
    # (not "TC" alone: a test case's number, "TC 57672946624 passed")
    _named_id((r"t\.?c\.?[ _]?kimlik", r"tckn", r"kimlik[ _]?no", _AS_KEY % "tc(?:no)?",
               # (lower case alone before its eleven digits, as a chat writes it: "tc
               # 11518928274")
               r"tc(?:'[a-z]+\b|[ _]?no\b|[ _]?numara|:)|(?-i:tc)(?=[ \t])"),
              ("tc", "t.c", "kimlik"), r"[1-9]\d{10}", ids.tc_kimlik_ok),
    _named_id((r"cpf", r"documento\b"), ("cpf", "documento"), r"\d{3}\.?\d{3}\.?\d{3}-?\d{2}",
              ids.cpf_ok),
    # (and written with dots, as a deed writes them: "D.N.I. número 72.386.408-A")
    _named_id((r"dni", r"nie\b", r"nif(?:_[a-z]{1,16})?\b", r"documento(?: nacional)?\b",
               # (Catalan's "Document:", a CSV's DOC_IDENTIDAD column)
               r"document\b", r"doc_identidad",
               _AS_KEY % "doc",
               r"d\.n\.i\.?", r"n\.i\.e\.?"),
              ("dni", "nie", "nif", "documento", "doc", "d.n.i", "n.i.e"),
              r"\d{8}-?[A-Za-z]|\d{2}\.\d{3}\.\d{3}-?[A-Za-z]|[XYZxyz]-?\d{7}-?[A-Za-z]",
              ids.dni_ok),
    # A person's tax id in FedEx's Ship API ({"number": "...", "tinType":
    # "PERSONAL_NATIONAL"}): the type says whose it is.
    _d("national_id",
       r"\\?\"number\\?\"[ \t]*:[ \t]*\\?\"([0-9A-Za-z./-]{5,20})\\?\"[ \t]*,[ \t]*"
       r"\\?\"tinType\\?\"[ \t]*:[ \t]*\\?\"PERSONAL_(?:NATIONAL|STATE)", _has_digit,
       prefilter=r"tinType\\?\"[ \t]*:[ \t]*\\?\"PERSONAL_", group=1, needles=("tinType",),
       start=_at_literal(('"number"', '\\"number'))),
    # Health systems' numbers in their own shapes: the US Medicare Beneficiary Identifier
    # (eleven characters in a fixed pattern, letters never S, L, O, I, B or Z; 4-3-4 on a
    # card), Australia's IHI (800360, Luhn), Brazil's CNS as its card spaces it (3-4-4-4).
    _d("national_id",
       # (the pattern is the whole check: the MBI has no check digit)
       # (a card prints it 4-3-4 with spaces, a form with dashes)
       r"(?<![\w-])([1-9][AC-HJKMNP-RT-Y][AC-HJKMNP-RT-Y0-9]\d([- ]?)[AC-HJKMNP-RT-Y]"
       r"[AC-HJKMNP-RT-Y0-9]\d\2[AC-HJKMNP-RT-Y]{2}\d{2})(?![\w-])",
       prefilter=r"[1-9][A-Z][A-Z0-9]\d[- ]?[A-Z][A-Z0-9]\d[- ]?[A-Z]{2}\d{2}", group=1,
       digits=True,
       start=_at_class(r"[1-9]")),
    _d("national_id", r"(?<![\w.,/-])(800360\d{10})(?![\w-])", ids.ihi_ok,
       prefilter=r"800360\d{10}", group=1, digits=True, needles=("800360",)),
    # (not an Envoy access log's byte counts and durations after the status and its flags:
    # "503 UO 740 5895 1189 2036")
    _d("national_id", r"(?<![\w.,/-])(?<!\d [A-Z]{2} )(?<!\d [A-Z]{3} )(?<!\d [A-Z]{4} )"
       r"(?<!\d - )([12789]\d{2} \d{4} \d{4} \d{4})(?![\w-])", ids.cns_ok,
       # (not inside a spaced card number, whose first group ends in a digit)
       prefilter=r"(?:^|[^0-9A-Za-z_.,/-])[12789]\d{2} \d{4} \d{4} \d{4}", group=1, digits=True,
       start=_at_class(r"\d")),
    # Spain's NIE anywhere in its own shape (X, Y or Z, seven digits, the check letter), as a
    # site's visitor log writes it in a row of its own: one such run in 23 passes.
    _d("national_id", r"(?<![\w-])([XYZ]\d{7}[A-Z])(?![\w-])", ids.dni_ok,
       prefilter=r"[XYZ]\d{7}[A-Z]", group=1, digits=True, start=_at_class(r"[XYZ]")),
    # Saudi Arabia's national id and iqama, the UAE's Emirates ID (also in its own shape
    # anywhere below), Iran's national code, Egypt's national number, Taiwan's national id,
    # Viet Nam's citizen id. ("\u0631\u0642\u0645 \u0627\u0644\u0647\u0648\u064a\u0629",
    # "ID number", names either country's.)
    _named_id((r"iqama", r"(?<![a-z])absher",
               "\u0631\u0642\u0645 \u0627\u0644\u0647\u0648\u064a\u0629",
               "\u0627\u0644\u0647\u0648\u064a\u0629 \u0627\u0644\u0648\u0637\u0646\u064a\u0629",
               "\u0627\u0644\u0625\u0642\u0627\u0645\u0629", r"emirates[ _-]?id",
               # (a customer's "my id number", رقم هويتي, and "his", رقم هويته)
               "\u0631\u0642\u0645 \u0647\u0648\u064a\u062a[\u064a\u0647]"),
              ("iqama", "absher", "\u0631\u0642\u0645", "\u0627\u0644\u0647\u0648\u064a\u0629",
               "\u0627\u0644\u0625\u0642\u0627\u0645\u0629", "emirates"),
              r"[12]\d{9}|784-?\d{4}-?\d{7}-?\d",
              lambda value: ids.sa_id_ok(value) or ids.emirates_id_ok(value)),
    _named_id(("\u06a9\u062f \u0645\u0644\u06cc", "\u06a9\u062f\u0645\u0644\u06cc",
               r"(?<![a-z])(?:code[ _-]?)?melli\b", r"national[ _-]code"),
              ("\u06a9\u062f", "melli", "code", "national"), r"\d{10}|\d{3}-\d{6}-\d",
              ids.melli_ok),
    # (a JSON key's underscore for its space, "my national number" and a permit's nid=)
    _named_id(("\u0627\u0644\u0631\u0642\u0645[ _]\u0627\u0644\u0642\u0648\u0645[\u064a\u0649]",
               "\u0631\u0642\u0645[ _]\u0642\u0648\u0645\u064a",
               "\u0631\u0642\u0645\u064a[ _]\u0627\u0644\u0642\u0648\u0645\u064a", _AS_KEY % "nid"),
              ("\u0627\u0644\u0631\u0642\u0645", "\u0631\u0642\u0645", "nid"), r"[23]\d{13}",
              ids.eg_national_id_ok, checksummed=False),
    _named_id(("\u8eab\u5206\u8b49", "\u5168\u6c11\u5065\u5eb7\u4fdd\u96aa",
               # (a resident certificate's unified number, 居留證統一證號)
               "\u7d71\u4e00\u8b49\u865f", "\u5c45\u7559\u8b49",
               r"(?<![a-z])(?:id|doc)[ _-]?no(?=\\?[\"']?[ \t]*[:=])"),
              ("\u8eab\u5206", "\u5168\u6c11", "\u7d71\u4e00", "\u5c45\u7559", "id", "doc"),
              r"[A-Z][1289]\d{8}", ids.tw_id_ok),
    # (its name in capitals too, as the card prints it: "CĂN CƯỚC CÔNG DÂN"; the flags fold
    # ASCII letters only)
    _named_id((r"(?<![a-z])cccd\b", r"(?<![a-z])cmnd\b", r"c[aăĂ]n c[uưƯ]+[oớỚ]c"),
              ("cccd", "cmnd", "c"), r"\d{12}", ids.vn_citizen_id_ok, checksummed=False),
    # Africa's and Latin America's, named (their checks are not public, so the name and
    # the shape decide): Nigeria's NIN and BVN, Kenya's KRA PIN, a c\u00e9dula (C.I.) of
    # Spanish-speaking America, Guatemala's DPI, Morocco's, Tunisia's and West Africa's CIN or
    # CNI, Brazil's RG, Mexico's RFC of a person, Zambia's NRC.
    _named_id((r"(?-i:NIN)\b", _AS_KEY % "nin", r"national identification number",
               r"(?-i:BVN)\b", _AS_KEY % "bvn", r"bank verification number"),
              # (and Nepal's ten)
              ("nin", "national", "bvn", "bank"), r"\d{10,11}|\d{4} \d{3} \d{4}",
              ids.digit_count_ok(10, 11), checksummed=False),
    # Nepal's citizenship certificate number ("76-06-77-44904").
    _named_id((r"citizenship[ _-]?(?:no|number|certificate)",), ("citizenship",),
              r"\d{2}-\d{2}-\d{2}-\d{4,6}", ids.digit_count_ok(10, 12), checksummed=False),
    _named_id((r"(?-i:NIN)\b", _AS_KEY % "nin"), ("nin",), r"C[MF][A-Z0-9]{12}",
              _has_digit, checksummed=False),
    # (a person's KRA PIN starts with A; a company's, with P, is on its every invoice)
    # (and as a "PIN" alone, its shape told apart: "PIN yako A521487816P"; not a form's
    # pattern, "A000000000X")
    _named_id((r"kra[ _-]?pin", r"(?-i:PIN)\b"), ("kra", "pin"), r"A\d{9}[A-Z]", _not_zeros,
              checksummed=False),
    # Brazil's CNH (a driver's licence: 11 digits, two check digits), and a CPF as a PIX key
    # ("chave": "42410332617"); Argentina's CBU and CVU (a bank account: 22 digits, two
    # check digits).
    _named_id((r"(?<![a-z])cnh\b", _AS_KEY % "cnh", _AS_KEY % "cnh_registro",
               r"carteira[ \t]+(?:nacional[ \t]+)?de[ \t]+habilita\w+"),
              ("cnh", "carteira"), r"\d{11}", ids.cnh_ok),
    _named_id((_AS_KEY % "chave", r"chave[ \t]+pix"), ("chave",), r"\d{11}", ids.cpf_ok),
    _named_id((r"(?<![a-z])(?-i:CBU|CVU)\b", _AS_KEY % "cbu(?:_[a-z]{1,12})?",
               _AS_KEY % "cvu(?:_[a-z]{1,12})?"), ("cbu", "cvu"),
              r"\d{8}[ -]?\d{14}", ids.cbu_ok),
    # A driver's licence number under its name ("Driver's License #: D412-7790-3318",
    # "CDL: FL B123-456-78-912-0", "permis=12AB34567"): letters and digits, five digits at least.
    # ("DRIVER LIC: X803-...", "my license is CA Q9340508", "Rijbewijs PL nr: 89685/36/1197",
    # a British licence's own shape: "driver licence no. THORN450896QZ5SW")
    _named_id((r"driver'?s?[ \t]+licen[cs]e(?:[ \t]+(?:number|no\.?|#))?",
               r"driver'?s?[ \t]+lic\b\.?", r"(?<![a-z])licen[cs]e[ \t]+is", r"rijbewijs",
               # (a UK form's "Driving licence no.", the DVLA's, the Philippines' LTO's,
               # Turkey's ehliyet, Italy's patente)
               r"driving[ \t]+licen[cs]e(?:[ \t]+(?:number|no\.?|#))?",
               r"(?-i:DVLA|LTO)[ \t]+licen[cs]e(?:[ \t]+(?:number|no\.?|#))?",
               r"ehliyet(?:[ \t]+no)?",
               # (an Australian state's: "NSW licence 76745270")
               r"(?-i:NSW|VIC|QLD|WA|SA|TAS|ACT|NT)[ \t]+(?:driver'?s?[ \t]+)?licen[cs]e"
               r"(?:[ \t]+(?:number|no\.?|#))?",
               r"(?<![a-z])permis\b",
               # (not a link's direction: an LTE bearer's "UL/DL 45000/246000 kbps")
               # (nor a bearer's downlink rate: Diameter's APN-AMBR-DL=256336971)
               r"(?<![a-z0-9/-])(?-i:CDL|DL)\b(?!/)(?:[ \t]*#|[ \t]+(?:no\.?|number))?",
               _AS_KEY % "permis", r"permis[ \t]+de[ \t]+conduire",
               r"f[üu]hrerschein(?:nummer)?",
               _AS_KEY % "dl_no", _AS_KEY % "dl_number", _AS_KEY % "licen[cs]e_?no",
               _AS_KEY % "driver_?licen[cs]e(?:_?(?:number|no))?"),
              ("driver", "cdl", "dl", "permis", "f\u00fchrerschein", "fuhrerschein", "licen",
               "rijbewijs", "nsw", "vic", "qld", "wa ", "sa ", "tas", "act", "nt ", "driving",
               "dvla", "lto", "ehliyet"),
              r"\d{5}/\d{2}/\d{4}|[A-Z9]{5}\d{6}[A-Z9]{2}\d[A-Z0-9]{2}"
              r"|(?:[A-Z]{2}[ \t]+)?[A-Z0-9]{1,4}(?:[ -]?\d[A-Z0-9]{0,10}){1,6}",
              ids.licence_number_ok,
              checksummed=False),
    # The Philippines' PhilSys (PSN, PCN: 16 digits), PhilHealth, Pag-IBIG and UMID numbers;
    # Thailand's id card's laser code; India's voter id (EPIC) and EPF account (UAN); Japan's
    # residence card; Vietnam's old identity card (CMND, nine digits).
    _named_id((r"philsys", _AS_KEY % "psn", _AS_KEY % "pcn", r"philippine identification card",
               r"phil[ _-]?id\b"),
              ("philsys", "psn", "pcn", "philippine", "phil"),
              r"\d{4}[ -]?\d{4}[ -]?\d{4}[ -]?\d{4}",
              ids.digit_count_ok(16, 16), checksummed=False),
    _named_id((r"phil[ -]?health",), ("phil",), r"\d{2}-?\d{9}-?\d", ids.digit_count_ok(12, 12),
              checksummed=False),
    _named_id((r"pag-?ibig(?:[ \t]+mid)?", r"(?<![a-z])hdmf\b"), ("pag", "hdmf"),
              r"\d{4}-?\d{4}-?\d{4}", ids.digit_count_ok(12, 12), checksummed=False),
    _named_id((r"(?<![a-z])umid\b", _AS_KEY % "umid_crn", r"(?-i:CRN)\b"), ("umid", "crn"),
              r"\d{4}-?\d{7}-?\d", ids.digit_count_ok(12, 12), checksummed=False),
    _named_id((r"laser[ _-]?code",), ("laser",), r"[A-Z]{2}\d-?\d{7}-?\d{2}", _has_digit,
              checksummed=False),
    _named_id((r"(?<![a-z])epic(?:[ _-]?no)?\b",), ("epic",), r"[A-Z]{3}\d{7}", _has_digit,
              checksummed=False),
    # Australia's DVA file number (its Gold Card's: a state's letter or two, then digits) and
    # NDIS number (nine digits, 43 first)
    _named_id((r"(?-i:DVA)(?:[ \t]+(?:gold[ \t]+card|file))?(?:[ \t]*(?:no\.?|number|#))?",),
              ("dva",), r"[A-Z]{1,3}[ ]?\d{5,7}[A-Z]?", _has_digit, checksummed=False),
    _named_id((r"ndis(?:[ _-]?(?:number|no|#))?",), ("ndis",), r"43\d{7}",
              ids.digit_count_ok(9, 9), checksummed=False),
    # A seafarer's documents: his seaman's book (the Philippines' SIRB, India's CDC) and
    # India's INDoS number ("INDoS No: 27H5432", "CDC No: MUM 714431", "seaman book C8079316")
    _named_id((r"seam[ae]n'?s?[ _-]?book", r"(?-i:SIRB)\b", r"(?-i:CDC)[ _-]?(?:no|number)\b",
               r"indos\b", r"discharge[ _-]?book"),
              ("seam", "sirb", "cdc", "indos", "discharge"),
              r"(?:[A-Z]{1,4}[ -]?)?\d{5,10}[A-Z]?|\d{2}[A-Z]\d{4}", _not_zeros,
              checksummed=False),
    _named_id((_AS_KEY % "uan", r"(?-i:UAN)\b"), ("uan",), r"\d{12}", ids.digit_count_ok(12, 12),
              checksummed=False),
    _named_id((r"zairyu[ _-]?card(?:[ _-]?no)?", "\u5728\u7559\u30ab\u30fc\u30c9",
               # (and in English, under a key: "residence_card_no")
               r"residence[ _-]?card(?:[ _-]?(?:no|number))?"),
              ("zairyu", "\u5728\u7559", "residence"), r"[A-Z]{2}\d{8}[A-Z]{2}", _has_digit,
              checksummed=False),
    _named_id((r"(?<![a-z])cmnd\b",), ("cmnd",), r"\d{9}", ids.digit_count_ok(9, 9),
              checksummed=False),
    _named_id(("c[ée]dula(?:[ _-]?(?:de[ _]identidad|n[úu]mero|no\\.?))?",
               r"(?-i:C\.I\.)", r"(?-i:DPI|CUI)\b", _AS_KEY % "dpi",
               # (Colombia's cédula as a form and a bank write it: "titular CC 79.845.120",
               # tipoDoc=CC&numDoc=...)
               # (not a Diameter AVP's "CC-Total-Octets=31457280")
               r"(?<![a-z.-])(?-i:CC)\b(?!-)", _AS_KEY % "numdoc",
               # (and with its dots, "Deudor solidario (C.C.): 1.039.891.691"; a minor's
               # "Tarjeta de identidad")
               r"(?<![a-z.])(?-i:C\.C\.)", r"tarjeta[ \t]+de[ \t]+identidad"),
              ("c\u00e9dula", "cedula", "c.i.", "dpi", "cui", "cc", "numdoc", "c.c.", "tarjeta"),
              # (Venezuela's with its letter, a dash or a space after it or neither: "V-5.825.291",
              # "V- 14.148.505", "V10370935")
              # (not an amount's whole part: "(CC + desempleo + FP + FOGASA): 175.439,47 €")
              r"(?:[VE]-? ?)?\d(?:[ .-]?\d){5,12}(?!,\d)", ids.digit_count_ok(6, 13),
              checksummed=False, shape=r"(?:[VE]-? ?)?\d(?:[ .-]?\d){5,12}"),
    # (and New York Medicaid's CIN, two letters, five digits, a letter)
    _named_id((r"(?-i:CIN|CNI)\b", _AS_KEY % "cin"), ("cin", "cni"),
              r"[A-Z]{1,2}\d{5,9}|\d{8,13}|[A-Z]{2}\d{5}[A-Z]",
              _has_digit, checksummed=False),
    # (its name a word of its own: not the end of SAP's BETRG column)
    # (and as a KYC request's key: "rg": "83.874.263-4")
    _named_id((r"(?<![A-Za-z])(?-i:RG)\b", r"registro geral", _AS_KEY % "rg"), ("rg", "registro"),
              r"\d{1,2}\.?\d{3}\.?\d{3}-?[\dXx]", ids.digit_count_ok(8, 10), checksummed=False),
    _named_id((r"(?-i:RFC)\b", _AS_KEY % "rfc(?:_[a-z]{1,12})?"), ("rfc",),
              # (not the generic RFCs of the public and of foreigners, on every such invoice)
              "(?!X[AE]XX010101000)[A-ZÑ&]{4}\\d{6}[A-Z0-9]{3}", _has_digit, checksummed=False,
              shape=r"[A-Za-z&]{4}\d{6}[A-Z0-9]{3}"),
    _named_id((r"(?-i:NRC)\b",), ("nrc",), r"\d{6}/\d{2}/\d", _has_digit, checksummed=False),
    # Mexico's NSS (IMSS: a Luhn digit), Peru's RUC of a person (10, the DNI, a check digit),
    # Kenya's id under Swahili's name for it and Rwanda's under Kinyarwanda's, Morocco's CIN
    # under Arabic's name for the card, a DNI of Peru or Argentina (digits only: Spain's ends
    # in a letter, above), Angola's BI, Mauritius' NIC, a rut in a query (its body, no check
    # digit), and Kenya's id (seven or eight digits, no check) under an id's generic name.
    _named_id((r"(?-i:NSS)\b", _AS_KEY % "nss", r"(?<![a-z])imss\b"), ("nss", "imss"), r"\d{11}",
              ids.nss_ok),
    _named_id((r"(?-i:RUC)\b", _AS_KEY % "ruc"), ("ruc",), r"10\d{9}", ids.ruc_ok),
    # (Portugal's NIF of a person: Spain's, above, ends in a letter)
    _named_id((r"(?-i:NIF)\b", _AS_KEY % "nif", r"contribuinte"), ("nif", "contribuinte"),
              r"[123]\d{8}", ids.pt_nif_ok),
    _named_id((r"(?<![a-z])kitambulisho",), ("kitambulisho",), r"\d{7,8}",
              ids.digit_count_ok(7, 8), checksummed=False),
    _named_id((r"(?<![a-z])indangamuntu",), ("indangamuntu",), r"1(?:19|20)\d\d[78]\d{10}",
              _has_digit, checksummed=False),
    _named_id(("\u0627\u0644\u0628\u0637\u0627\u0642\u0629 "
               "\u0627\u0644\u0648\u0637\u0646\u064a\u0629",),
              ("\u0627\u0644\u0628\u0637\u0627\u0642\u0629",), r"[A-Z]{1,2}\d{5,8}",
              _has_digit, checksummed=False),
    _named_id((r"(?-i:DNI)\b", _AS_KEY % "dni"), ("dni",),
              r"\d{8}(?: ?- ?\d)?|\d{1,2}\.\d{3}\.\d{3}", ids.digit_count_ok(7, 9),
              checksummed=False),
    _named_id((r"(?-i:BI)\b", r"bilhete de identidade"), ("bi", "bilhete"),
              r"\d{9}[A-Z]{2}\d{3}", _has_digit, checksummed=False),
    _named_id((r"(?-i:NIC)\b",), ("nic",), r"[A-Z]\d{12}[A-Z0-9]", _has_digit,
              checksummed=False),
    _named_id((_AS_KEY % "rut",), ("rut",), r"\d{7,8}", ids.digit_count_ok(7, 8),
              checksummed=False),
    _named_id((_NOT_A_RECORDS + r"(?<![a-z_])id[ _-]?(?:number|no)\b",
               r"(?<![a-z_])identity[ _-]?(?:number|no)\b", r"(?<![a-z])national[ _-]?id\b",
               _NOT_A_RECORDS + r"(?<![a-z_])document[ _-]?(?:number|no)\b"),
              ("id", "identity", "national", "document"), r"\d{7,8}", ids.digit_count_ok(7, 8),
              checksummed=False),
    # ... and Korea's resident number under one ({"national_id": "051209-3718254"})
    _named_id((_NOT_A_RECORDS + r"(?<![a-z_])id[ _-]?(?:number|no)\b",
               r"(?<![a-z_])identity[ _-]?(?:number|no)\b", r"(?<![a-z])national[ _-]?id\b"),
              ("id", "identity", "national"), r"\d{6}-[1-8]\d{6}", ids.rrn_ok,
              checksummed=False),
    # Central and Eastern Europe's, the Baltics', the Balkans' and Central Asia's, each by its
    # check under its own name, in its own script: Russia's SNILS and INN, Ukraine's RNOKPP,
    # Kazakhstan's IIN (ЖСН), Bulgaria's EGN and LNCh, Croatia's OIB, the JMBG and Slovenia's
    # EMŠO, Estonia's and Lithuania's personal codes, Latvia's, Hungary's tax id and TAJ,
    # Slovenia's tax number, Moldova's IDNP, a Czech DIČ of a person (its rodné číslo). Not
    # Poland's NIP: a sole trader's is public as a company's is.
    _named_id(("\u0421\u041d\u0418\u041b\u0421", r"(?-i:SNILS)\b", _AS_KEY % "snils",
               "\u0421\u0442\u0440\u0430\u0445\u043e\u0432\u043e\u0439\u041d\u043e\u043c\u0435\u0440"),
              ("\u0441\u043d\u0438\u043b\u0441", "snils",
               "\u0441\u0442\u0440\u0430\u0445\u043e\u0432\u043e\u0439"),
              r"\d{3}-\d{3}-\d{3}[ -]?\d{2}|\d{11}", ids.snils_ok),
    _named_id(("\u0418\u041d\u041d", r"(?-i:INN)\b", r"(?-i:TIN)(?=>)", _AS_KEY % "inn"),
              # (a person's twelve digits, or Ukraine's ten under the old name: an
              # organisation's ten are on its every invoice)
              ("\u0438\u043d\u043d", "inn", "tin"), r"\d{12}|\d{10}", ids.person_inn_ok),
    # Germany's health insurance number (KVNR: a letter, nine digits, a check digit), under
    # its names and FHIR's identifier system (kvid-10); Brazil's CNS under its name.
    # (a care service's "Vers.-Nr." and the eGK's egk="..." attribute too)
    # (and a connector's log's "Versicherten-ID=")
    # (and as a booking's JSON key: "kvnr":"D104707940")
    _named_id((r"(?-i:KVNR)\b", r"(?<![a-z])kvnr(?=\\?[\"'][ \t]*:)",
               r"versicherten[ -]?(?:n(?:umme)?r\.?|id)\b", r"kvid-10",
               r"(?-i:eGK)\b", r"insured[ _-]?id", r"vers\.?[ -]?-?nr\.?", r"egk(?==)"),
              ("kvnr", "versicherten", "kvid", "egk", "insured", "vers"), r"[A-Z]\d{9}",
              ids.kvnr_ok),
    # (and under its card's and its fund's names: "KV-Nr. O368723124", "Krankenkasse ... die
    # Nummer ist L712969113")
    _named_id((r"(?-i:KV)-?(?:nr|nummer)\.?", r"krankenkasse", r"krankenversicherungsnummer"),
              ("kv", "krankenkasse", "krankenversicherungsnummer"), r"[A-Z]\d{9}", ids.kvnr_ok),
    # Australia's Centrelink Customer Reference Number (nine digits, a letter), under its name
    # or its key ("CRN 394 912 969D", {"crn":"369924494L"}).
    _named_id((r"(?-i:CRN)\b", r"customer reference number", _AS_KEY % "crn"),
              ("crn", "customer"), r"\d{3} ?\d{3} ?\d{3}[A-Z]", ids.crn_ok),
    # Colombia's cédula by its abbreviation ("C.C. 4080972494 de Bogotá"), Brazil's NIS, PIS
    # and NIT by their names, France's NIR after "numéro sécu", Korea's personal customs
    # clearance code (P and twelve digits) by its name and its query's parameter.
    # (the abbreviation in capitals only: not a Java package's "c.c.rating.RateJob")
    _named_id((r"(?<![A-Za-z.])(?-i:C\.[ \t]?C\.)(?=[ \t])", r"c[ée]dula de ciudadan[ií]a"),
              ("c.", "c"),
              r"\d{1,3}(?:\.?\d{3}){1,3}", ids.digit_count_ok(6, 10)),
    # (and as a job's key: "responsavel_nis=12372509820")
    _named_id((r"(?-i:NIS|PIS|PASEP|NIT)\b",
               r"(?:(?<=_)|(?<![a-z]))(?:nis|pis)(?=\\?[\"']?[ \t]*[:=])"),
              ("nis", "pis", "pasep", "nit"), r"\d{11}", ids.nis_ok),
    # Brazil's voter card, under its names ("Título de eleitor: 1263 4861 0485")
    _named_id((r"t.tulo[ _](?:de[ _])?eleitor(?:al)?", r"inscri..o[ _]eleitoral"),
              ("título", "titulo", "inscri"), r"\d{4}[ .]?\d{4}[ .]?\d{4}",
              ids.titulo_eleitor_ok),
    # (or "título" alone right before the card's twelve digits: "regularização do título
    # 2149 7093 1503")
    _named_id((r"t.tulo",), ("título", "titulo"), r"\d{4}[ .]?\d{4}[ .]?\d{4}",
              ids.titulo_eleitor_ok, gap=r"[ \t]+(?:n[º°o.]{1,2}[ \t]*)?"),
    _named_id((r"num[ée]ro[ \t]+s[ée]cu\b",), ("num",),
              r"[12378] ?\d{2} ?\d{2} ?(?:\d{2}|2[AB]) ?\d{3} ?\d{3} ?\d{2}", ids.nir_ok),
    _named_id(("\uac1c\uc778\ud1b5\uad00\uace0\uc720\ubd80\ud638", r"persEcm=",
               r"(?-i:PCCC)\b", r"customs clearance code"),
              ("\uac1c\uc778\ud1b5\uad00", "persecm", "pccc", "customs"), r"P\d{12}",
              _has_digit, checksummed=False),
    # A US Medicaid or Medicare member's id: by its name ("Your Medicaid ID is RP39989S"),
    # as an X12 eligibility message's subscriber (NM1*IL*...*MI*<id>~), and under FHIR's
    # identifier systems (us-medicaid, us-medicare, a state's driver's licence OID).
    _named_id((r"medica(?:id|re)[ \t]+(?:id|number|no\.?|#|member[ \t]+id)(?:[ \t]+is)?",),
              ("medica",), r"[A-Z0-9]{8,14}", _has_digit, checksummed=False),
    # A US immigrant's alien registration number (the A-Number): "A" and eight or nine digits,
    # after its name ("A-File A-957-735-322", "A-Number: A405760851", "USCIS # 123456789").
    _d("national_id",
       r"(?i)(?<![\w-])(?:a-?file|a-?number|a#|alien[ \t]+(?:registration[ \t]+)?"
       r"(?:number|no\.?|#)|uscis[ \t]{0,3}(?:#|number|no\.?))[ \t:#.]{0,6}"
       r"((?-i:A)?-?\d{3}-?\d{3}-?\d{3}|(?-i:A)-?\d{8})(?![\w-])",
       _not_zeros,
       prefilter=r"(?i)(?:a-?file|a-?number|a#|alien|uscis)[^\r\n]{0,40}\d{3}-?\d{3}",
       group=1, digits=True, gate=r"(?i:file|number|a#|alien|uscis)"),
    # A US service member's DoD ID number, the EDIPI on a CAC: ten digits, no check, by its
    # name ("DoD ID: 1048541680", "User DoD ID (EDIPI): ...", edipi=, "dodid": ...).
    _named_id((r"(?<![a-z])(?:dod[ _-]?id|dodid|edipi|dod[ _-]?edi[ _-]?pn[ _-]?id)\b",),
              ("dod", "edipi"), r"\d{10}", _not_zeros, checksummed=False),
    _d("national_id", r"NM1\*(?:IL|QC)\*[^~\n]{0,120}?\*MI\*([A-Z0-9]{6,20})~",
       ids.member_id_ok, prefilter=r"NM1\*(?:IL|QC)\*", group=1, needles=("NM1*",)),
    _d("national_id",
       r"\\?\"system\\?\"[ \t]*:[ \t]*\\?\"(?:http://hl7\.org/fhir/sid/us-(?:medicaid|medicare|mbi)"
       r"|urn:oid:2\.16\.840\.1\.113883\.4\.3\.\d+)\\?\"[ \t]*,[ \t]*\\?\"value\\?\""
       r"[ \t]*:[ \t]*\\?\"([A-Za-z0-9-]{4,30})\\?\"",
       _has_digit, prefilter=r"sid/us-medica|sid/us-mbi|113883\.4\.3\.", group=1,
       needles=("sid/us-", "113883.4.3.")),
    # A driver's licence as its barcode (AAMVA's PDF417) reads: the DAQ field's number.
    _d("national_id", r"ANSI [\s\S]{0,400}?DAQ([A-Z0-9]{4,25})(?=\r?\n|\\n|$)", _has_digit,
       prefilter=r"ANSI ", group=1, needles=("ANSI ",)),
    _named_id((r"(?-i:CNS)\b", r"cart[ãa]o (?:nacional de sa[úu]de|sus)", r"(?<=sid/)cns\b"),
              ("cns", "cart"), r"\d{15}|\d{3} \d{4} \d{4} \d{4}", ids.cns_ok),
    # South Asia's, the Gulf's and the Levant's under their names: Pakistan's CNIC (and in
    # Urdu, شناختی کارڈ), Sri Lanka's NIC (old and new, and in Sinhala and Tamil), Kuwait's
    # civil id (and in Arabic), Jordan's national number, India's ABHA health number,
    # Bangladesh's NID (and in Bengali), Qatar's QID.
    _named_id((r"(?<![a-z])cnic\b", r"(?<![a-z])nicop\b",
               "\u0634\u0646\u0627\u062e\u062a\u06cc \u06a9\u0627\u0631\u0688",
               # (Roman Urdu's "shanakhti card", NADRA's Verisys log's citizen_number)
               r"shanakhti(?: card)?", _AS_KEY % "citizen_number"),
              ("cnic", "nicop", "\u0634\u0646\u0627\u062e\u062a\u06cc", "shanakhti",
               "citizen_number"), r"\d{5}-?\d{7}-?\d",
              ids.cnic_named_ok, checksummed=False),
    _named_id((r"(?-i:NIC)\b", _AS_KEY % "nic", r"(?<![a-z])nic[ _-]?(?:no|number|old|new)\b",
               "\u0da2\u0dcf\u0dad\u0dd2\u0d9a \u0dc4\u0dd0\u0db3\u0dd4\u0db1\u0dd4\u0db8",
               "\u0ba4\u0bc7\u0b9a\u0bbf\u0baf \u0b85\u0b9f\u0bc8\u0baf\u0bbe\u0bb3"),
              ("nic", "\u0da2\u0dcf\u0dad\u0dd2\u0d9a", "\u0ba4\u0bc7\u0b9a\u0bbf\u0baf"),
              r"\d{9}[VvXx]|\d{12}", ids.lk_nic_ok),
    _named_id((r"civil[ _-]?id",
               "\u0627\u0644\u0631\u0642\u0645 \u0627\u0644\u0645\u062f\u0646\u064a"),
              ("civil", "\u0627\u0644\u0631\u0642\u0645"), r"\d{12}", ids.kw_civil_id_ok),
    _named_id(("\u0627\u0644\u0631\u0642\u0645 \u0627\u0644\u0648\u0637\u0646\u064a",
               r"(?<![a-z])national[ _-]?no\b"),
              ("\u0627\u0644\u0631\u0642\u0645", "national"), r"\d{10}",
              ids.digit_count_ok(10, 10), checksummed=False),
    _named_id((r"(?<![a-z])abha\b", r"healthid\.ndhm\.gov\.in",
               r"(?<![a-z])health[ _-]?id[ _-]?(?:number|no)\b"),
              ("abha", "healthid", "health"), r"\d{2}-?\d{4}-?\d{4}-?\d{4}",
              ids.digit_count_ok(14, 14), checksummed=False),
    _named_id((r"(?-i:NID)\b", _AS_KEY % "nid",
               "\u099c\u09be\u09a4\u09c0(?:\u09af\u09bc|\u09df) \u09aa\u09b0\u09bf\u099a"),
              ("nid", "\u099c\u09be\u09a4\u09c0"), r"\d{17}|\d{13}|\d{10}",
              lambda value: len(value) in (10, 13, 17) and len(set(value)) > 2,
              checksummed=False),
    # (and Arabic's "personal card", البطاقة الشخصية, as Qatar's forms name the QID)
    _named_id((r"(?-i:QID)\b", _AS_KEY % "qid", r"qatar[ _-]?id",
               "\u0627\u0644\u0628\u0637\u0627\u0642\u0629 "
               "\u0627\u0644\u0634\u062e\u0635\u064a\u0629"),
              ("qid", "qatar", "\u0627\u0644\u0628\u0637\u0627\u0642\u0629"), r"[23]\d{10}",
              ids.digit_count_ok(11, 11), checksummed=False),
    # South-East Asia's: the Philippines' PhilSys number (PSN, or the card's PCN), TIN and
    # SSS number, Indonesia's NPWP of a person.
    _named_id((r"philsys", r"(?-i:PSN|PCN)\b"), ("philsys", "psn", "pcn"),
              r"\d{4}-?\d{4}-?\d{4}(?:-?\d{4})?",
              lambda value: len(v.digits(value)) in (12, 16), checksummed=False),
    _named_id((r"(?-i:TIN)\b", _AS_KEY % "tin"), ("tin",), r"\d{3}-\d{3}-\d{3}(?:-\d{3,5})?",
              ids.ph_tin_ok, checksummed=False),
    _named_id((r"(?-i:SSS)\b", r"(?<![a-z])sss[ _-]?(?:no|number)\b"), ("sss",),
              r"\d{2}-?\d{7}-?\d", ids.digit_count_ok(10, 10), checksummed=False),
    _named_id((r"(?-i:NPWP)\b", _AS_KEY % "npwp"), ("npwp",),
              r"\d{2}\.?\d{3}\.?\d{3}\.?\d-?\d{3}\.?\d{3}", ids.npwp_ok, checksummed=False),
    # The DACH countries' and Luxembourg's: Switzerland's AHV number, Germany's Steuernummer,
    # pension insurance number (SV-Nummer) and identity card number, Austria's social
    # insurance number, Luxembourg's matricule; Iceland's kennitala.
    _named_id((r"(?-i:AHV|AVS)\b", r"sv-as-number", r"num[ée]ro avs"),
              ("ahv", "avs", "sv-as", "num"),
              r"756\.?\d{4}\.?\d{4}\.?\d{2}", ids.ahv_ok),
    # (not a company's: "Steuernummer (Firma)", "Steuernummer des Unternehmens")
    _named_id((r"(?-i:StNr|St\.-?Nr)\.?",
               # (each look-ahead without a group: the engine's reading drops them whole)
               r"steuernummer(?![ \t]*\x28?firma)(?![ \t]*\x28?der[ \t]+firma)"
               r"(?![ \t]*\x28?des[ \t]+unternehmens)"),
              ("stnr", "st.", "steuernummer"),
              r"\d{2,3}/\d{3,4}/\d{4,5}|\d{3} \d{3} \d{5}|\d{10,13}", ids.digit_count_ok(10, 13),
              checksummed=False),
    _named_id((r"(?<![a-z])(?:renten)?versicherungs-?n(?:umme)?r",
               r"(?-i:SV|RV)[ -]?(?:Nr|Nummer)\.?",
               r"sozialversicherungs-?n(?:umme)?r",
               # (and as a form abbreviates it: "Rentenvers.-Nr.: 39 010477 G 398"; the card's
               # name, "SV-Ausweis: 52 150857 D 353")
               r"rentenvers\.-?nr\.?", r"(?-i:SV)-?ausweis"),
              ("versicherungs", "rentenversicherungs", "sv", "rv", "sozialversicherungs",
               "rentenvers"),
              r"\d{2} ?\d{6} ?[A-Z] ?\d{3}", ids.de_rvnr_ok),
    # (and as a payroll API's key: "svnr":"1918070963")
    _named_id((r"(?-i:SVNR|VSNR|SV-Nr|SV-Nummer)\b",
               r"(?<![a-z])(?:sozial)?versicherungs-?n(?:umme)?r",
               r"(?<![a-z])svnr(?=\\?[\"'][ \t]*:)"),
              ("svnr", "vsnr", "sv-nr", "sv-nummer", "sozialversicherungs", "versicherungs"),
              r"\d{4} ?\d{6}", ids.at_svnr_ok),
    _named_id((r"ausweis[ _-]?n(?:umme)?r", r"personalausweis(?:[ _-]?n(?:umme)?r)?"),
              ("ausweis", "personalausweis"), r"[0-9CFGHJKLMNPRTVWXYZ]{9}\d", ids.de_id_card_ok),
    _named_id((r"(?<![a-z])matricule",), ("matricule",), r"\d{4} ?\d{4} ?\d{3} ?\d{2}",
              ids.lu_matricule_ok),
    # (and as Icelandic declines it: "fyrir kennitölu")
    _named_id(("kennit(?:a|\u00f6)l\\w*", _AS_KEY % "kt", r"(?<![a-z])kt\."), ("kennit", "kt"),
              r"\d{6}-?\d{4}",
              ids.kennitala_ok),
    # Ukraine's record number in the population register (УНЗР, "запис в ЄДДР"): a birth
    # date, four digits and a check digit.
    _named_id(("\u0423\u041d\u0417\u0420", "\u0404\u0414\u0414\u0420"),
              ("\u0443\u043d\u0437\u0440", "\u0454\u0434\u0434\u0440"), r"\d{8}-\d{5}",
              ids.unzr_ok),
    _named_id(("\u0420\u041d\u041e\u041a\u041f\u041f", "\u0406\u041f\u041d",
               "\u0456\u0434\u0435\u043d\u0442\u0438\u0444\u0456\u043a\u0430\u0446\u0456\u0439\u043d",
               "\u0414\u0420\u0424\u041e", r"(?-i:RNOKPP)\b", _AS_KEY % "rnokpp"),
              ("\u0440\u043d\u043e\u043a\u043f\u043f", "rnokpp", "\u0456\u043f\u043d",
               "\u0456\u0434\u0435\u043d\u0442\u0438\u0444\u0456\u043a\u0430\u0446\u0456\u0439\u043d",
               "\u0434\u0440\u0444\u043e"), r"\d{10}", ids.rnokpp_ok),
    _named_id(("\u0418\u0418\u041d", "\u0416\u0421\u041d", r"(?-i:IIN)\b", _AS_KEY % "iin"),
              ("\u0438\u0438\u043d", "\u0436\u0441\u043d", "iin"), r"\d{6} ?\d{6}", ids.iin_ok),
    _named_id(("\u0415\u0413\u041d", r"(?-i:EGN)\b", _AS_KEY % "egn"),
              ("\u0435\u0433\u043d", "egn"),
              r"\d{10}",
              ids.egn_ok),
    _named_id(("\u041b\u041d\u0427", r"(?-i:LNCH|LNC)\b"), ("\u043b\u043d\u0447", "lnc"),
              r"\d{10}", ids.lnch_ok),
    _named_id((r"(?-i:OIB)\b", _AS_KEY % "oib"), ("oib",), r"\d{11}", ids.oib_ok),
    # (and as keys, "jmbg=0807958284706"; in a chat, "embg 0205977411158")
    _named_id(("\u0408\u041c\u0411\u0413?", "\u0415\u041c\u0411\u0413", r"(?-i:JMBG|JMB)\b",
               "(?-i:EM\u0160O|EMSO)\\b", r"mati.n\w* (?:broj|knjig)", _AS_KEY % "jmbg",
               _AS_KEY % "embg", _AS_KEY % "emso", r"(?-i:embg|jmbg)(?= \d)"),
              ("\u0458\u043c\u0431\u0433", "\u0435\u043c\u0431\u0433", "jmb", "em\u0161o", "emso",
               "mati"), r"\d{13}", ids.jmbg_ok),
    _named_id((r"isikukood\w*", r"asmens[ _]kod\w*", r"personal code"),
              ("isikukood", "asmens", "personal code"), r"\d{11}", ids.baltic_code_ok),
    _named_id((r"personas[ _]?kod\w*", r"personal code"), ("personas", "personal code"),
              r"\d{6}-?\d{5}", ids.personas_kods_ok),
    _named_id(("ad\u00f3azonos\u00edt\u00f3\\w*", r"adoazonosito\w*"),
              ("ad\u00f3azonos", "adoazonos"), r"\d{10}", ids.hu_tax_id_ok),
    _named_id((r"(?-i:TAJ)\b", _AS_KEY % "taj"), ("taj",), r"\d{3}[ -]?\d{3}[ -]?\d{3}",
              ids.taj_ok),
    _named_id(("dav\u010dn\\w* \u0161tevil\\w*", r"davcn\w* stevil\w*"),
              ("dav\u010dn", "davcn"), r"\d{8}", ids.si_tax_ok),
    _named_id((r"(?-i:IDNP)",), ("idnp",), r"\d{13}", ids.idnp_ok),
    _named_id(("DI\u010c", r"(?-i:DIC)\b", "rodn[\u00e9e][ _]?[\u010dc][\u00edi]slo",
               # (Czech bank identity's userinfo claim, "birthnumber")
               _AS_KEY % "birth_?number"),
              ("di\u010d", "dic", "rodn", "birth"), r"(?:CZ|SK)?\d{9,10}",
              ids.rodne_cislo_ok),
    # ... and those whose check is not public, by their names: Uzbekistan's PINFL (JSHSHIR),
    # Georgia's personal number, Armenia's social card number (ՀԾՀ).
    _named_id((r"(?-i:JSHSHIR|PINFL|jshshir|pinfl)\b", "\u041f\u0418\u041d\u0424\u041b"),
              ("jshshir", "pinfl", "\u043f\u0438\u043d\u0444\u043b"), r"\d{14}",
              ids.digit_count_ok(14, 14), checksummed=False),
    _named_id(("\u10de\u10d8\u10e0\u10d0\u10d3\u10d8 \u10dc\u10dd\u10db\u10d4\u10e0\u10d8",),
              ("\u10de\u10d8\u10e0\u10d0\u10d3\u10d8",), r"\d{11}", ids.digit_count_ok(11, 11),
              checksummed=False),
    _named_id(("\u0540\u053e\u0540",), ("\u0570\u056e\u0570",), r"\d{10}",
              ids.digit_count_ok(10, 10), checksummed=False),
    # Identity cards and passports as these countries write them: Russia's and Ukraine's
    # passport series and number ("паспорт серия 50 23 № 722447", "серії КМ № 256196"), and an
    # identity card's number under its name in a dozen languages.
    _named_id(("[\u041f\u043f]\u0430\u0441\u043f\u043e\u0440\u0442",
               "\u0437\u0430\u0433\u0440\u0430\u043d\u043f\u0430\u0441\u043f\u043e\u0440\u0442",
               "\u0414\u043e\u043a\u0443\u043c\u0435\u043d\u0442\u0421\u0435\u0440\u0438\u044f",
               "\u0441\u0435\u0440\u0456\u0457"),
              ("\u043f\u0430\u0441\u043f\u043e\u0440\u0442", "\u0437\u0430\u0433\u0440\u0430\u043d",
               "\u0434\u043e\u043a\u0443\u043c\u0435\u043d\u0442",
               "\u0441\u0435\u0440\u0456\u0457"),
              # (and Kazakhstan's, N and eight digits: "Паспорт РК N22489232")
              "\\d{2} ?\\d{2} ?(?:\u2116 ?)?\\d{6}|\\d{2} \\d{7}|[\u0410-\u042f]{2} ?\u2116 ?\\d{6}"
              "|N\\d{8}",
              ids.digit_count_ok(6, 10), checksummed=False, shape=r"\d{6}"),
    # A Russian driver's licence (ВУ, водительское удостоверение): series and number.
    _named_id(("(?<![\u0400-\u04ff])\u0412\u0423(?![\u0400-\u04ff])",
               "\u0432\u043e\u0434\u0438\u0442\u0435\u043b\u044c\u0441\u043a[\u0430-\u044f]* "
               "\u0443\u0434\u043e\u0441\u0442\u043e\u0432\u0435\u0440\u0435\u043d\u0438"),
              ("\u0432\u0443", "\u0432\u043e\u0434\u0438\u0442\u0435\u043b\u044c\u0441\u043a"),
              "\\d{2} ?\\d{2} ?\\d{6}", ids.digit_count_ok(10, 10), checksummed=False),
    # ("OP" not after a dash: a contest log's "CATEGORY-OPERATOR: SINGLE-OP")
    _named_id((r"(?<![\w-])(?-i:OP)\b", r"osobn\w* iskaznic\w*", r"li.n\w* kart\w*",
               "szem\u00e9lyi igazolv\u00e1ny\\w*", r"dow[oó]d\w* osobist\w*",
               r"(?-i:CI) seria", "\u043b\\.\u043a\\.",
               # (Cyrillic endings spelt out: under (?a) \w is ASCII)
               "ID-\u043a\u0430\u0440\u0442\u043a[\u0430-\u044f\u0456\u0457]*",
               "\u0443\u0434\u043e\u0441\u0442\u043e\u0432\u0435\u0440\u0435\u043d\u0438"
               "[\u0430-\u044f]* "
               "\u043b\u0438\u0447\u043d\u043e\u0441\u0442\u0438",
               "(?-i:F\u0130N|FIN) kod\\w*", "(?-i:F\u0130N)\\b",
               "[\u0531\u0561]\u0576\u0571\u0576\u0561\u0563\u056b\u0580"),
              ("op", "osobn", "li", "szem\u00e9lyi", "dow", "ci", "\u043b.\u043a.", "id-",
               "\u0443\u0434\u043e\u0441\u0442\u043e\u0432\u0435\u0440\u0435\u043d\u0438",
               "f\u0131n", "fin", "f\u0130n", "\u0561\u0576\u0571\u0576\u0561\u0563\u056b\u0580"),
              r"(?:[A-Z]{2,3} ?|[A-Z]{2} nr\. )?\d{6,9}|\d{6}[A-Z]{2}|(?=[A-Z]*\d)[A-Z0-9]{7}",
              _has_digit, checksummed=False, shape=r"\d{6}|[A-Z0-9]{7}", gap=_PASSPORT_GAP),
    # ... and in their own shapes: South Africa's id (a birth date, citizenship, a Luhn
    # digit; "I-ID yami ngu-9603089161089"), Brazil's NIS/PIS (274.33116.80-5), Zimbabwe's
    # (29-164732-E-45), a PIX key's CPF inside its QR code's payload.
    _d("national_id", r"(?<![0-9A-Za-z.])(\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{4}"
       r"[01][89]\d)" + _ID_R, ids.za_id_ok, prefilter=r"\d\d[01]\d[0-3]\d{5}[01][89]\d", group=1,
       digits=True, start=_at_class(r"\d")),
    # (and these shapes anywhere: Russia's SNILS, a rodné číslo with its slash, Belarus'
    # personal number, a Smart-ID's semantics identifier "PNOEE-<personal code>")
    _d("national_id", rf"{_ID_L}(\d{{3}}-\d{{3}}-\d{{3}}[ -]\d{{2}}){_ID_R}", ids.snils_ok,
       prefilter=r"\d{3}-\d{3}-\d{3}[ -]\d{2}", group=1, checksummed=True, digits=True,
       start=_at_class(r"\d")),
    # (not a path's or a reference's middle: "FRPA/513123/6583/81")
    _d("national_id", rf"{_ID_L}(?<!/)(\d{{2}}[0-35-8]\d{{3}}/\d{{3,4}}){_ID_R}(?!/)",
       ids.rodne_cislo_ok,
       prefilter=r"\d{2}[0-35-8]\d{3}/\d{3}", group=1, digits=True, start=_at_class(r"\d")),
    _d("national_id", rf"{_ID_L}(\d{{7}}[A-Z]\d{{3}}[A-Z]{{2}}\d){_ID_R}",
       prefilter=r"\d{7}[A-Z]\d{3}[A-Z]{2}\d", group=1, digits=True, start=_at_class(r"\d")),
    _d("national_id", r"(?<![A-Za-z])PNO(?:EE|LT|LV)-(\d{6}-?\d{5})(?!\d)",
       prefilter=r"PNO(?:EE|LT|LV)-\d{6}", group=1, needles=("PNO",), digits=True),
    _d("national_id", rf"{_ID_L}(\d{{3}}\.\d{{5}}\.\d{{2}}-\d){_ID_R}", ids.nis_ok,
       prefilter=r"\d{3}\.\d{5}\.\d{2}-\d", group=1, checksummed=True, digits=True,
       start=_at_class(r"\d")),
    _d("national_id", rf"{_ID_L}(\d\d-\d{{6,7}}-?[A-Z]-?\d\d){_ID_R}",
       prefilter=r"\d\d-\d{6,7}-?[A-Z]-?\d\d", group=1, digits=True, start=_at_class(r"\d")),
    _d("national_id", r"(?i)br\.gov\.bcb\.pix0111(\d{11})(?=\d\d|$)", ids.cpf_ok,
       prefilter=r"(?i)br\.gov\.bcb\.pix0111\d{11}", group=1, needles=("bcb.pix", "BCB.PIX"),
       digits=True, start=_at_literal(("br.gov.bcb.pix",), fold=True)),
    # ... and in their own shapes, named or not: Ghana's card (GHA-, nine digits, a check
    # digit), Tanzania's NIDA number (a birth date and three groups).
    _d("national_id", rf"{_ID_L}(GHA-\d{{9}}-\d){_ID_R}", prefilter=r"GHA-\d{9}-\d", group=1,
       needles=("GHA-",), start=_at_literal(("GHA-",))),
    _d("national_id", rf"{_ID_L}((?:19|20)\d{{6}}-\d{{5}}-\d{{5}}-\d{{2}}){_ID_R}",
       prefilter=r"[12][09]\d{6}-\d{5}-\d{5}-\d{2}", group=1, digits=True,
       start=_at_class(r"\d")),
    # The Emirates ID in its own shape, named or not: 784, a year, seven digits, a check.
    _d("national_id", rf"{_ID_L}(784-(?:19|20)\d\d-\d{{7}}-\d){_ID_R}", ids.emirates_id_ok,
       prefilter=r"784-[12][09]\d\d-\d{7}-\d", group=1, needles=("784-",), checksummed=True,
       start=_at_literal(("784-",))),
    # Spain's social security affiliation number ("N\u00ba afiliaci\u00f3n SS: 28/48216505/73")
    _named_id((r"afiliaci.n", r"(?<![a-z])nuss\b", r"(?<![a-z])naf\b",
               r"n.mero de (?:la )?seguridad social",
               # (a contract's "Nº de la Seguridad Social: 35/16560640/46")
               r"n[º°o]\.?[ \t]*de (?:la )?seguridad social"),
              ("afiliaci", "nuss", "naf", "n"), r"\d{2}[/ ]?\d{8}[/ ]?\d{2}", ids.naf_ok),
    _named_id((r"bsn", r"burgerservicenummer", r"sofi[ _-]?n(?:umme)?r", _AS_KEY % "doc",
               r"persoonsnummer", _AS_KEY % "personal_number"),
              ("bsn", "burgerservicenummer", "sofi", "doc", "persoonsnummer", "personal_number"),
              r"\d{9}|\d{4}\.\d{2}\.\d{3}|\d{3} \d{3} \d{3}",
              ids.bsn_ok),
    # (an Aadhaar e-KYC answer's or QR code's XML names it uid="...")
    # (and in Tamil, Bengali, Telugu, Kannada, Malayalam, Gujarati and Urdu)
    _named_id((r"aadhaa?r", "\u0906\u0927\u093e\u0930", r"uidai", _AS_KEY % "uid",
               *_AADHAAR_SCRIPTS),
              ("aadha", "\u0906\u0927\u093e\u0930", "uid", *_AADHAAR_SCRIPTS),
              r"[2-9]\d{3}[ -]?\d{4}[ -]?\d{4}", ids.aadhaar_ok),
    # (and in Hindi: पैन)
    _named_id((r"pan\b", r"pan[ _-]?(?:card|no|number|num)\b", r"permanent account",
               "\u092a\u0948\u0928", "\u092a\u0945\u0928"),
              ("pan", "permanent account", "\u092a\u0948\u0928", "\u092a\u0945\u0928"),
              r"[A-Z]{3}P[A-Z]\d{4}[A-Z]",
              ids.person_pan_ok,
              checksummed=False),
    _named_id(("\u30de\u30a4\u30ca\u30f3\u30d0\u30fc", "\u500b\u4eba\u756a\u53f7",
               # (its English name, "Individual Number", as an API's key: individualNumber)
               r"my[ _-]?number", _AS_KEY % "(?:kojin_bango|individual_?number)"),
              ("\u30de\u30a4\u30ca\u30f3\u30d0\u30fc", "\u500b\u4eba\u756a\u53f7", "my", "kojin",
               "individual"),
              r"\d{4}[ -]?\d{4}[ -]?\d{4}", ids.my_number_ok),
    _named_id(("\uc8fc\ubbfc\ub4f1\ub85d\ubc88\ud638", "\uc8fc\ubbfc\ubc88\ud638", r"rrn\b",
               # (a foreigner's registration number, 외국인등록번호: the same shape)
               "\uc678\uad6d\uc778\ub4f1\ub85d\ubc88\ud638",
               r"resident[ _]registration", r"jumin(?:[ _-]?(?:no|num|number|bunho))?\b",
               _AS_KEY % "resident_?(?:no|num|number)",
               "\uc8fc\ubbfc\ub4f1\ub85d\uc99d"),
              ("\uc8fc\ubbfc", "rrn", "resident", "jumin", "\uc678\uad6d\uc778"),
              r"\d{6}-?[1-8]\d{6}", ids.rrn_ok,
              checksummed=False),
    _named_id((r"nik\b", r"nomor induk kependudukan", r"ktp\b"), ("nik", "nomor induk", "ktp"),
              r"\d{16}|\d{6} \d{6} \d{4}", ids.nik_ok, checksummed=False),
    # (in Welsh too, "Rhif Yswiriant Gwladol", and on a W-8BEN as the "foreign tax identifying
    # number" a UK resident gives)
    _named_id((r"national[ _-]?insurance", r"ni[ _]?(?:number|no)(?:__c)?\b", r"nino\b",
               r"(?-i:NI)\b", _AS_KEY % "ni", r"yswiriant gwladol",
               r"foreign tax identifying number"),
              ("national", "ni", "nino", "yswiriant", "foreign tax"),
              r"[A-CEGHJ-PR-TW-Za-ceghj-pr-tw-z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-Da-d]",
              ids.nino_ok, checksummed=False),
    # China's resident id: 18 characters with a birth date and a check character, but an
    # 18-digit run is also a chat platform's message id: after its name only.
    _named_id(("\u8eab\u4efd\u8bc1", "\u8eab\u4efd\u8b49", "\u516c\u6c11\u8eab\u4efd",
               r"resident[ _]id", r"id[ _-]?card", r"shenfenzheng", r"id[ _-]?num\b",
               # (a customs form's bare "ID (required for personal import):": the check and
               # the birth date in it keep a message's id out)
               r"(?-i:ID)(?:[ \t]*\([^)\n]{1,40}\))?[ \t]*:"),
              ("\u8eab\u4efd", "\u516c\u6c11", "resident", "id", "shenfenzheng"),
              # (spaced as the card groups it too: "350203 19750508 533X")
              r"\d{17}[\dXx]|\d{6} \d{8} \d{3}[\dXx]",
              lambda value: ids.cn_resident_id_ok(value.replace(" ", ""))),
    # Korea's personal customs clearance code (개인통관고유부호): "P" and twelve digits.
    _named_id((r"personal[ _-]?customs[ _-]?(?:clearance[ _-]?)?code", r"(?-i:PCCC)\b",
               "\uac1c\uc778\ud1b5\uad00\uace0\uc720\ubd80\ud638"),
              ("personal", "pccc", "\uac1c\uc778"), r"P\d{12}", ids.digit_count_ok(12, 12),
              checksummed=False),
    # France's NIR, Belgium's national number, Chile's RUT, Sweden's personnummer.
    # (any one character for an accented one: "s\u00e9curit\u00e9", "securite")
    # (and France's INS, the NIR as health records carry it: FHIR's identifier system, its OID)
    # (and as an Italian writes it to a French office: "numero di previdenza sociale")
    _named_id((r"s.curit.[ _-]sociale", r"nir\b", r"insee", r"carte vitale", r"assur. ",
               r"previdenza sociale", r"french social security(?: number)?",
               r"(?-i:INS)\b", r"1\.2\.250\.1\.213\.1\.4\.8",
               r"num.ro de s.cu", r"n.[ \t]*de[ \t]+s.cu\b", _AS_KEY % "doc",
               r"n.[ \t]*s.cu\b", r"n.[ \t]*ss\b",
               r"num[_ .-]?s.cu\b"),
              ("s", "nir", "insee", "carte", "assur", "num", "doc", "ins", "1.2.250", "n°",
               "nº", "no", "n.", "n ", "previdenza", "french"),
              r"[12378] ?\d{2} ?\d{2} ?(?:\d{2}|2[AB]) ?\d{3} ?\d{3} ?\d{2}", ids.nir_ok),
    # (an eID's and itsme's nationalNumber, eHealth's SSIN)
    # (and an invoice's "N° national")
    _named_id((r"rijksregister", r"registre national", r"num.ro national", r"n[°º][ \t]*national",
               r"national[ _-]?number", r"insz", r"(?<![a-z])ssin\b", r"(?<![a-z])niss\b"),
              ("rijksregister", "registre", "num", "national", "insz", "ssin", "niss", "n°",
               "nº"),
              r"\d{2}\.?\d{2}\.?\d{2}[ -]?\d{3}[ .-]?\d{2}", ids.be_national_number_ok),
    _named_id((r"rut\b", r"run\b"), ("rut", "run"), r"\d{1,2}\.?\d{3}\.?\d{3}-?[\dkK]",
              ids.rut_ok),
    # (and as FHIR names it, by its OID and the samordningsnummer's; a journal's patient=)
    _named_id((r"personnummer", r"personnr", r"samordningsnummer", _AS_KEY % "pnr",
               r"(?<![a-z])pnr\b",
               _AS_KEY % "perid", _AS_KEY % "patient", r"1\.2\.752\.129\.2\.1\.3\.[13]"),
              ("personn", "samordningsnummer", "pnr", "perid", "patient", "1.2.752"),
              r"(?:\d{2})?\d{6}[-+]?\d{4}", ids.personnummer_ok),
    # Canada's SIN, the UK's NHS number, Australia's TFN and Medicare number, Singapore's
    # NRIC/FIN, Hong Kong's HKID, South Africa's id, the US ITIN, Finland's henkilötunnus,
    # Norway's fødselsnummer, Denmark's CPR, Thailand's id, Argentina's CUIT/CUIL, Israel's
    # teudat zehut, Romania's CNP, Ireland's PPS number, New Zealand's IRD number.
    # ("SIN" in capitals or as a key only: "sin" is Spanish for "without")
    # (a T4 slip numbers its boxes: "Social insurance number (12): ...")
    _named_id((r"social[ _-]insurance[ _-]number[ \t]*\(\d{1,2}\)", r"social[ _-]insurance",
               r"(?-i:SIN)\b", r"(?-i:S\.I\.N\.)", r"(?-i:SIN)[ \t]*\([^)\n]{1,30}\)",
               r"(?<![a-z])sin[ _-]?(?:no|number|num)\b", _AS_KEY % "sin",
               r"num.ro d.assurance sociale", r"(?-i:NAS)\b", _AS_KEY % "nas"),
              ("social", "sin", "s.i.n", "num", "nas"), r"\d{3}[ -]?\d{3}[ -]?\d{3}", ids.sin_ok),
    # ... or in lower case with its number right after it ("ValidationError: sin 114591431
    # already registered"), by its check
    _d("national_id", r"(?i)(?<![a-z])sin[ \t]+(\d{3}[ -]?\d{3}[ -]?\d{3})(?![\d-])", ids.sin_ok,
       prefilter=r"(?i)sin[ \t]+\d{3}[ -]?\d{3}[ -]?\d{3}", group=1,
       needles=("sin", "SIN", "Sin")),
    # ... and on a T4 slip, after its box's number ("Social insurance number ... 12 380 204 883")
    _d("national_id", r"(?i)(?:social[ \t]+insurance[ \t]+number|num[ée]ro[ \t]+d.assurance"
       r"[ \t]+sociale)[ \t]+12[ \t]+(\d{3}[ -]?\d{3}[ -]?\d{3})(?![\d-])", ids.sin_ok,
       prefilter=r"(?i)(?:insurance[ \t]+number|assurance[ \t]+sociale)[ \t]+12[ \t]+\d{3}",
       group=1,
       needles=("12 ",)),
    # Canada's and the US's health and driving numbers under their names: Ontario's health
    # card (OHIP, HCN; Luhn), British Columbia's PHN (9, then a check by 11), Quebec's RAMQ
    # number (four letters, eight digits); a driver's licence in the states' and provinces'
    # shapes (California's letter and seven digits, Texas' eight, New York's nine, Florida's
    # and Ontario's and Quebec's dashed groups); USCIS's A-Number.
    _named_id((r"(?-i:HCN|OHIP)\b", _AS_KEY % "(?:hcn|ohip)",
               r"health[ _-]?card(?:[ _-]?(?:number|no))?",
               r"ontario[ \t]+health", r"health[ _-]?number"),
              # (its version code after it: "8805-274-977-SD")
              ("hcn", "ohip", "health", "ontario"), r"\d{4}[ -]?\d{3}[ -]?\d{3}(?:[ -]?[A-Z]{2})?",
              ids.ohip_ok, shape=r"\d{4}[ -]?\d{3}[ -]?\d{3}"),
    _named_id((r"(?-i:PHN)\b", _AS_KEY % "phn", r"personal[ _-]?health[ _-]?number"),
              ("phn", "personal"),
              r"9\d{3}[ -]?\d{3}[ -]?\d{3}", ids.bc_phn_ok),
    # (Quebec's card number is the NAM, "numéro d'assurance maladie": "NAM : MACP67072144")
    _named_id((r"(?-i:RAMQ|NAM)\b", _AS_KEY % "nam", r"assurance[ \t]+maladie"),
              ("ramq", "nam", "assurance"),
              r"[A-Z]{4} ?\d{4} ?\d{4}", _has_digit, checksummed=False),
    _named_id((r"driver'?s?[ _-]?licen[cs]e(?:[ _-]?(?:no|number|num|#))?\.?",
               # (not inside a word in capitals: a report's "CALLS HANDLED" column; nor a
               # bearer's downlink rate, APN-AMBR-DL=)
               # (not a column's word that starts with it: "DLPerf")
               r"(?<![A-Za-z-])(?-i:DL)(?![a-z])(?:[ _/-]?(?:#|no|number|ID[ \t]+Number))?",
               _AS_KEY % "dl_?number",
               r"permis[ \t]+de[ \t]+conduire", r"(?<![a-z])licencia",
               r"licen[cs]e[ _-]?(?:number|no)\b"),
              ("driver", "dl", "permis", "licencia", "licen"),
              r"[A-Z]\d{4}-\d{5}-\d{5}|[A-Z]\d{3}-\d{3}-\d{2}-\d{3}-\d|[A-Z]\d{4}-\d{6}-\d{2}"
              # (Florida's and Maryland's: a letter and twelve digits)
              r"|[A-Z]\d{12}|[A-Z]\d{7,8}|\d{3} \d{3} \d{3}|\d{7,9}", _has_digit,
              checksummed=False),
    # ... and Europe's, under their own names (a rental agreement's "Führerscheinnummer:",
    # "Permiso de conducir nº"): eight to thirteen capitals and digits.
    _named_id((r"f(?:ü|ue|u)hrerschein(?:nummer|[ \t-]?nr\.?)?", r"permiso[ \t]+de[ \t]+conducir",
               r"carn[ée]t?[ \t]+de[ \t]+conducir", r"patente[ \t]+di[ \t]+guida",
               r"rijbewijs(?:nummer)?", r"prawo[ \t]+jazdy"),
              ("f\u00fchrerschein", "fuehrerschein", "fuhrerschein", "permiso", "carn", "patente",
               "rijbewijs", "prawo"),
              r"(?=[A-Z]*\d)[A-Z0-9]{8,13}", _has_digit, checksummed=False,
              shape=r"[A-Z0-9]{8,13}"),
    # (E-Verify's alien_number=; not a fixture's "A000000000")
    _named_id((r"a[-_]?number", r"alien[ _-]?(?:registration[ _-]?)?(?:number|no|num)\b",
               r"uscis[ \t]+number"),
              ("a-number", "a_number", "anumber", "alien", "uscis"),
              r"A-?\d{8,9}|A-?\d{3}-\d{3}-\d{3}", _not_zeros,
              checksummed=False),
    # An I-94 record's number (nine digits, a letter, a digit), France's foreigner's number
    # (AGDREF: ten digits), a UK biometric residence permit's, Brazil's migrant registration
    # (RNM, once RNE: a letter, six digits, a check character).
    _named_id((r"i-?94(?:[ _-]?(?:number|no))?",), ("i94", "i-94"), r"\d{9}[A-Z]\d", _has_digit,
              checksummed=False),
    # (and as a préfecture's letter names it: "N° étranger (titre de séjour) : 6999433524")
    _named_id((r"agdref", r"n[°º]\.?[ \t]*(?:d')?[ée]tranger"), ("agdref", "n\u00b0", "n\u00ba"),
              r"\d{10}", ids.digit_count_ok(10, 10), checksummed=False),
    _named_id((r"(?-i:BRP)\b", r"biometric[ \t]+residence[ \t]+permit",
               r"(?<![a-z])brp[_-]?(?:no|num|number)\b"), ("brp", "biometric"),
              r"[A-Z]{2}[0-9X]\d{6}", _has_digit, checksummed=False),
    _named_id((r"(?-i:RNM|RNE)\b",), ("rnm", "rne"), r"[A-Z]\d{6}-?[0-9A-Z]", _has_digit,
              checksummed=False),
    # (and as a record's key: nhsNumber="159 564 1904")
    # (and Northern Ireland's H&C number, its mod-11 check the same: "H&C No:", hc_number)
    _named_id((r"(?<![a-z])nhs(?![a-z])", r"(?<![a-z])nhs[_-]?(?:number|no|num)\b", r"rhif gig",
               r"(?<![a-z])h&c\b", _AS_KEY % "hc_number"),
              ("nhs", "rhif gig", "h&c", "hc_number"),
              r"\d{3}[ -]?\d{3}[ -]?\d{4}", ids.nhs_ok),
    _named_id((r"(?-i:TFN)\b", r"(?<![a-z])tfn[ _-]?(?:no|number)\b", _AS_KEY % "tfn",
               r"tax[ _-]?file[ _-]?number", r"(?<![a-z])tfn[ \t]+is\b"),
              ("tfn", "tax file", "tax_file", "tax-file", "taxfile"),
              r"\d{3}[ -]?\d{3}[ -]?\d{2,3}",
              ids.tfn_ok),
    _named_id((r"(?<![a-z])medicare",), ("medicare",),
              r"[2-6]\d{3}[ -]?\d{5}[ -]?\d(?:[ /-]?[1-9])?", ids.medicare_ok),
    _named_id((r"nric", r"uinfin", r"(?-i:FIN)\b", r"(?<![a-z])fin[ _-]?(?:no|number)\b",
               r"(?<![a-z])ic[ _-]?(?:no|number)\b", r"(?-i:IC)\b", r"identity card",
               r"kad pengenalan", "\u8eab\u4efd\u8bc1", "\u8eab\u4efd\u8b49"),
              ("nric", "uinfin", "fin", "ic", "identity card", "kad pengenalan", "\u8eab\u4efd"),
              r"[STFGM]\d{7}[A-Z]", ids.nric_ok),
    # Malaysia's MyKad number: a birth date, a place of birth's code, a serial (no check
    # digit: the date and the code are the shape)
    _named_id((r"mykad", r"(?-i:IC)\b", r"(?<![a-z])no\.?[ \t]*(?:ic|kp|k/p)\b", r"kad pengenalan",
               r"(?<![a-z])ic[ _-]?(?:no|number)\b"),
              ("mykad", "ic", "no", "kad pengenalan"), r"\d{6}-?\d{2}-?\d{4}", ids.mykad_ok,
              checksummed=False),
    _named_id((r"hkid", r"(?<![a-z])hk[ _-]?id", r"hong kong id", r"identity card",
               r"(?<![a-z])id card", "\u8eab\u4efd\u8b49"),
              ("hkid", "hk", "hong kong", "identity card", "id card", "\u8eab\u4efd"),
              r"[A-Z]{1,2}\d{6} ?(?:\([0-9A]\)|[0-9A])", ids.hkid_ok,
              shape=r"[A-Z]{1,2}\d{6} ?\(?[0-9A]"),
    # (South Africa's is told as "my ID", "ID nr", "ID-nommer": thirteen digits with a birth
    # date, a citizenship digit and a Luhn digit after a bare "ID")
    _named_id((r"(?<![a-z])r?sa[ _-]?id\b", r"south african id", r"(?-i:ID)\b",
               r"(?<![a-z])id[ _-]?(?:nr|nommer)\b", r"(?<![a-z])idnr(?![a-z])"),
              ("sa", "rsa", "south african", "id"),
              r"\d{6}[ -]?\d{4}[ -]?\d{2}[ -]?\d", ids.za_id_ok),
    _named_id((r"(?-i:ITIN)\b", r"(?<![a-z])itin[ _-]?(?:no|number)\b", r"individual taxpayer",
               _AS_KEY % "i?tin"),
              ("itin", "individual taxpayer", "tin"), r"9\d{2}[ -]?\d{2}[ -]?\d{4}", ids.itin_ok,
              checksummed=False),
    _named_id((r"henkil.tunnu", r"(?<![a-z])hetu\b", r"sosiaaliturvatunnu", r"(?-i:sotu)\b",
               r"personal identity code", r"personbeteckning"),
              ("henkil", "hetu", "sosiaaliturva", "sotu", "personal identity", "personbeteckning"),
              r"\d{6}[-+A-FU-Y]\d{3}[0-9A-Y]", ids.hetu_ok),
    # (Norway's and Denmark's "personnummer" too, whose numbers are not Sweden's length)
    # (ID-porten's pid claim, Altinn's /person/ subject, FHIR's system for it, its OID)
    _named_id((r"f.dselsn(?:umme)?r", r"foedselsnummer", r"(?<![a-z])fnr(?![a-z])", r"f\.nr\b",
               r"d-nummer", r"personn(?:umme)?r", _AS_KEY % "pid", r"(?<![\w-])person/",
               r"norskidentifikator",
               r"2\.16\.578\.1\.12\.4\.1\.4\.[12]"),
              ("f\u00f8dsels", "fodsels", "foedsels", "fnr", "f.nr", "d-nummer", "personn", "pid",
               "person/", "2.16.578", "norskidentifikator"),
              r"\d{6}[ -]?\d{5}", ids.fodselsnummer_ok),
    _named_id((r"(?<![a-z])cpr(?:[ _-]?(?:nr|nummer|number|no))?\b", r"personn(?:umme)?r"),
              ("cpr", "personn"), r"\d{6}[ -]?\d{4}", ids.cpr_ok, checksummed=False),
    _named_id(("\u0e40\u0e25\u0e02\u0e1b\u0e23\u0e30\u0e08\u0e33\u0e15\u0e31\u0e27",
               "\u0e1a\u0e31\u0e15\u0e23\u0e1b\u0e23\u0e30\u0e0a\u0e32\u0e0a\u0e19",
               "\u0e40\u0e25\u0e02\u0e1a\u0e31\u0e15\u0e23", "\u0e1b\u0e0a\u0e0a",
               r"thai[ _-]?(?:national[ _-]?)?id", _AS_KEY % "cid"),
              ("\u0e40\u0e25\u0e02", "\u0e1a\u0e31\u0e15\u0e23", "\u0e1b\u0e0a\u0e0a", "thai",
               "cid"),
              r"[1-8][ -]?\d{4}[ -]?\d{5}[ -]?\d{2}[ -]?\d", ids.thai_id_ok),
    # (a person's CUIL or CUIT: a company's is public, on every invoice it issues)
    _named_id((r"(?<![a-z])cui[tl]\b", r"c\.u\.i\.[tl]\."), ("cui", "c.u.i"),
              r"\d{2}-?\d{2}\.?\d{3}\.?\d{3}-?\d|\d{2}-?\d{8}-?\d", ids.cuil_ok),
    _named_id(("\u05ea\u05e2\u05d5\u05d3\u05ea \u05d6\u05d4\u05d5\u05ea",
               "\u05ea\u05e2\u05d5\u05d3\u05ea \u05d4\u05d6\u05d4\u05d5\u05ea",
               "\u05de\u05e1\u05e4\u05e8 \u05d6\u05d4\u05d5\u05ea",
               "\u05ea[.\u05f4\"]\u05d6", r"teudat[ _-]?zehut", r"israeli id", _AS_KEY % "tz",
               # (a form's abbreviation, מס' זהות; Arabic's "ID number", رقم الهوية)
               "\u05de\u05e1['\u05f3] \u05d6\u05d4\u05d5\u05ea",
               "\u0631\u0642\u0645 \u0627\u0644\u0647\u0648\u064a\u0629",
               # (a parent's on a kindergarten's form, "ת.ז. הורה 1:")
               "\u05ea[.\u05f4\"]\u05d6\\.?[ \t]+\u05d4\u05d5\u05e8\u05d4[ \t]+[12]",
               # (and in Russian, "Теудат зеут")
               "[\u0422\u0442]\u0435\u0443\u0434\u0430\u0442[ \t]+\u0437\u0435\u0443\u0442\\w*"),
              ("\u05ea\u05e2\u05d5\u05d3\u05ea", "\u05de\u05e1\u05e4\u05e8", "\u05ea",
               "teudat", "israeli", "tz", "\u05de\u05e1",
               "\u0631\u0642\u0645", "\u0442\u0435\u0443\u0434\u0430\u0442"),
              r"\d{8}-?\d|\d{3} \d{3} \d{3}",
              ids.teudat_zehut_ok),
    # Portugal's Cartão de Cidadão ("Cartão de Cidadão: 79434950 1 TV3"), Poland's identity
    # card ("numer dowodu ABD426471"), France's tax number (numero_fiscal=, numéro fiscal).
    _named_id((r"cart[ãa]o[ \t]+de[ \t]+cidad[ãa]o", r"(?-i:CC)\b"), ("cart", "cc"),
              r"\d{8}[ -]?\d[ -]?[0-9A-Z]{2}\d", ids.pt_cc_ok),
    _named_id((r"dowod(?:u|em)?(?:[ \t]+osobist\w+)?\b", r"dow[óo]d(?:[ \t]+osobisty)?\b"),
              ("dowod", "dowód", "dow"), r"[A-Z]{3} ?\d{6}", ids.pl_id_card_ok),
    _named_id((r"num[ée]ro[ _]fiscal", r"(?-i:SPI)\b"), ("num", "spi"), r"[0-3]\d(?: ?\d){11}",
              ids.digit_count_ok(13, 13), checksummed=False),
    # Ethiopia's Fayda numbers (the FAN's 16 digits, the FIN's 12; "የፋይዳ ቁጥሬ", fan=),
    # Senegal's CNI (13 digits, spaced as the card prints them), Mozambique's BI.
    _named_id((r"fayda(?:[ \t]+(?:fan|fin|number|id))?", "\u12e8\u134b\u12ed\u12f3",
               _AS_KEY % "fan", r"(?-i:FAN|FIN)\b"),
              ("fayda", "\u12e8\u134b\u12ed\u12f3", "fan", "fin"),
              r"\d{4} ?\d{4} ?\d{4}(?: ?\d{4})?", ids.digit_count_ok(12, 16), checksummed=False),
    _named_id((r"(?-i:CNI)\b", _AS_KEY % "cni", r"carte[ \t]+nationale[ \t]+d.identit[ée]"),
              ("cni", "carte"), r"\d(?: ?\d){12}", ids.digit_count_ok(13, 13), checksummed=False),
    _named_id((r"(?-i:BI)\b", r"bilhete[ \t]+de[ \t]+identidade"), ("bi", "bilhete"),
              r"\d{12}[A-Z]", ids.digit_count_ok(12, 12), checksummed=False),
    # Greece's tax number (ΑΦΜ, Α.Φ.Μ., afm=) and social security number (ΑΜΚΑ, amka=).
    _named_id(("\u0391\\.?\u03a6\\.?\u039c\\.?", _AS_KEY % "afm", r"(?-i:AFM)\b"),
              ("\u03b1", "afm"), r"\d{9}", ids.afm_ok),
    _named_id(("\u0391\\.?\u039c\\.?\u039a\\.?\u0391\\.?", _AS_KEY % "amka", r"(?-i:AMKA)\b"),
              ("\u03b1", "amka"), r"\d{11}", ids.amka_ok),
    _named_id((r"(?<![a-z])cnp(?![a-z])", r"cod numeric personal"), ("cnp", "cod numeric"),
              r"[1-9]\d{12}", ids.cnp_ok),
    _named_id((r"(?<![a-z])ppsn?\b", r"personal public service", r"(?-i:PSP)\b", r"(?-i:Ppsn)\b"),
              ("pps", "personal public", "psp"), r"\d{7} ?[A-Wa-w][ABHWTXabhwtx]?", ids.pps_ok),
    # (and myIR's "IR number 36-916-656")
    _named_id((r"(?<![a-z])ird(?:[ _-]?(?:number|no|num))?\b", r"inland revenue",
               r"(?<![a-z])ir[ \t]+number\b"),
              ("ird", "inland revenue"), r"\d{2,3}[ -]?\d{3}[ -]?\d{3}", ids.ird_ok),
    _named_id((r"(?<![a-z])curp(?![a-z])",), ("curp",),
              r"[A-Za-z]{4}\d{6}[HMhm][A-Za-z]{5}[0-9A-Za-z]\d", ids.curp_ok),
    # A generic name ("national_id", "document_number", "tax id", "id number"): a number one
    # of the checks above accepts.
    # (a word of its own: not an order's "order_id_no", a "tax_id_type" or a "syntax id"; nor
    # an invoice's or a ticket's "document number is ...", "ticket id number ...")
    _named_id((r"(?<![a-z])national[ _-]?id",
               _NOT_A_RECORDS + r"(?<![a-z_])document[ _-]?(?:number|no)\b",
               r"(?<![a-z_])tax[ _-]?id(?:entifier)?\b",
               _NOT_A_RECORDS + r"(?<![a-z_])id[ _-]?(?:number|no)\b",
               r"(?<![a-z_])personal[ _-]?(?:id|number)\b",
               r"(?<![a-z_])identity[ _-]?(?:number|no)\b",
               r"(?<![a-z_])identification[ _-]?(?:number|no)\b",
               r"(?<![a-z_])citizen[ _-]?id\b", r"(?<![a-z_])id[ _-]?card\b", _AS_KEY % "tin",
               _AS_KEY % "documento", _AS_KEY % "numero_documento"),
              ("national", "document", "tax", "id", "personal", "identity", "identification",
               "citizen", "tin", "documento", "numero_documento"),
              r"\d(?:[ .-]?\d){8,17}|(?=[A-Za-z]*\d)[A-Za-z0-9]{7,18}", ids.generic_id_ok,
              shape=r"\d(?:[ .-]?\d){8,17}|[A-Za-z0-9]{7,18}"),
    # ... and a name no other number has (a key "nationalId", "customerNationalId=", Go's
    # "NationalID:", Bangladesh's "nidNumber"): any number of an id's length, checked or not.
    # (and Bengali's NID, এনআইডি; Nepal's citizenship number, नागरिकता नं)
    _named_id((r"national[ _-]?id(?:entity)?(?:[ _-]?(?:number|no|num|code))?\b",
               r"(?<![a-z])nid(?:[ _-]?(?:number|no|num))?\b",
               "\u098f\u09a8\u0986\u0987\u09a1\u09bf",
               "\u0928\u093e\u0917\u0930\u093f\u0915\u0924\u093e"),
              ("national", "nid", "\u098f\u09a8\u0986\u0987\u09a1\u09bf",
               "\u0928\u093e\u0917\u0930\u093f\u0915\u0924\u093e"),
              r"\d(?:[ -]?\d){7,19}", ids.digit_count_ok(8, 20), checksummed=False,
              # (its value right after it: not "national_id document_number=419481707")
              gap=r"[^\n\d=:]{0,12}?(?:[:=：][ \t]*\\?[\"']?)?"),
    # A passport's number after its name (a booking agent's call, a KYC form, a PAX list) ...
    # (NDC's <IdentityDocID>, a visa form's "Number of travel document")
    _named_id((r"passport", r"pasaporte", r"identity[ _-]?doc(?:ument)?[ _-]?id",
               r"travel[ _-]document", r"passaporte", r"passeport", r"reisepass",
               r"passaporto", r"paspoort", r"paszport", r"pasaport", r"paspor",
               # (Greek's διαβατήριο, Czech's cestovní pas)
               "[\u0394\u03b4]\u03b9\u03b1\u03b2\u03b1\u03c4[\u03ae\u03b7]\u03c1[\u03b9\u03af]\u03bf\u03c5?",
               "cestovn[\u00edi](?:ho)?[ \t]+pasu?",
               r"pass(?:nummer|nr)", r"pass-nr\.?", r"(?-i:PPT)\b(?![ \t]*\n)",
               r"documentn(?:r|ummer)\b",
               r"(?:personal)?ausweis(?:nummer)?", "pa\u0219aport",
               "\u30d1\u30b9\u30dd\u30fc\u30c8", "\u65c5\u5238", "\u62a4\u7167", "\u8b77\u7167",
               "\uc5ec\uad8c", "\u092a\u093e\u0938\u092a\u094b\u0930\u094d\u091f",
               # (Chinese's travel document, 旅行证件, as a visa form asks for its number)
               "\u65c5\u884c\u8bc1\u4ef6",
               # (Thai's passport, พาสปอร์ต and หนังสือเดินทาง)
               "\u0e1e\u0e32\u0e2a\u0e1b\u0e2d\u0e23\u0e4c\u0e15",
               "\u0e2b\u0e19\u0e31\u0e07\u0e2a\u0e37\u0e2d\u0e40\u0e14\u0e34\u0e19"
               "\u0e17\u0e32\u0e07",
               # (Arabic's "passport", جواز السفر, and "his passport", جواز سفره)
               "\u062c\u0648\u0627\u0632 (?:\u0627\u0644)?\u0633\u0641\u0631[\u0621-\u064a]?",
               # (and "رقم الجواز: A95354461", the passport's number before its colon)
               "\u062c\u0648\u0627\u0632(?=[ \t]*:)",
               # (a form's key: pp_num=M6737322)
               r"(?<![a-z])pp[_-]?(?:num|no|nr|number)\b",
               # (a crew list's "Indian pp M5226333": the abbreviation, a passport's shape
               # after it, not a page range)
               r"(?<![\w.])pp(?=[ \t]+(?-i:[A-Z]))",
               # (an assistance desk's "pp# PC7930431")
               r"(?<![\w.])pp[ \t]?#"),
              ("pas", "pa\u0219", "reisepass", "ppt", "personalausweis", "ausweis", "identity",
               "travel",
               "documentn",
               "\u03b4\u03b9\u03b1\u03b2\u03b1\u03c4", "cestovn",
               "\u30d1\u30b9\u30dd\u30fc\u30c8", "\u65c5\u5238",
               "\u62a4\u7167", "\u8b77\u7167", "\uc5ec\uad8c",
               "\u092a\u093e\u0938\u092a\u094b\u0930\u094d\u091f", "\u062c\u0648\u0627\u0632",
               "\u65c5\u884c\u8bc1\u4ef6", "pp", "\u0e1e\u0e32\u0e2a", "\u0e2b\u0e19\u0e31\u0e07"),
              r"(?=[A-Z]*\d)[A-Z0-9]{7,9}", ids.passport_ok, checksummed=False,
              shape=r"[A-Z0-9]{7,9}", gap=_PASSPORT_GAP),
    # Turkish names the number after it: "86129891194 TC numaralı müşteri".
    _d("national_id", r"(?<![0-9A-Za-z.-])([1-9]\d{10}) (?:T\.?C\.?|TC kimlik) numaral",
       ids.tc_kimlik_ok, prefilter=r"[1-9]\d{10} (?:T\.?C\.?|TC kimlik) numaral", group=1,
       checksummed=True, digits=True, start=_at_class("[1-9]", within=r"\d")),
    # ... and in an airline booking's DOCS element (IATA's SSR DOCS: P/issuing state/number/
    # nationality/birth date/sex/expiry/names).
    # (as Amadeus, Galileo and Sabre space it: "SSR DOCS BA HK1 P/PRT/N450474/",
    # "SSRDOCSLHHK1/P/DEU/...", "SSR DOCS UA HK1/P/GBR/...")
    _d("national_id",
       r"SSR ?DOCS ?[A-Z0-9]{2} {0,2}[A-Z]{2}\d{1,3}[ /]P/[A-Z]{3}/([A-Z0-9]{5,15})/",
       ids.passport_ok, prefilter=r"SSR ?DOCS ?[A-Z0-9]{2} {0,2}[A-Z]{2}\d{1,3}[ /]P/[A-Z]{3}/",
       group=1, needles=("DOCS",)),
    # ... in a passport's machine-readable zone, its second line: the number, its check
    # digit, nationality, birth date and expiry with theirs (all four checks must hold)
    _d("national_id", r"(?<![A-Z0-9<])[A-Z0-9<]{9}\d[A-Z<]{3}\d{7}[MFX<]\d{7}", ids.mrz_ok,
       # (the number may open with up to nine letters: the first digit can be its check digit)
       prefilter=r"[A-Z0-9<]{9}\d[A-Z<]{3}\d{7}[MFX<]\d{7}", digits=True,
       start=_at_class(r"\d", 9)),
    # ... and in a passenger list's EDIFACT (PAXLST's DOC+P:110:111+<number>').
    _d("national_id", r"(?<![A-Z])DOC\+P(?::\d+)*\+([A-Z0-9]{5,15})(?=['+:])", ids.passport_ok,
       prefilter=r"DOC\+P(?::\d+)*\+[A-Z0-9]{5}", group=1, needles=("DOC+P",)),
    # Shapes of their own, anywhere: a codice fiscale (surname, name, birth date and place
    # letters and digits in their places) and a dotted CPF.
    _d("national_id", r"(?<![0-9A-Za-z])([A-Z]{6}[0-9LMNP-V]{2}[ABCDEHLMPRST][0-9LMNP-V]{2}"
       r"[A-Z][0-9LMNP-V]{3}[A-Z])(?![0-9A-Za-z])", ids.codice_fiscale_ok,
       prefilter=r"[A-Z]{6}[0-9LMNP-V]{2}[ABCDEHLMPRST][0-9LMNP-V]{2}[A-Z][0-9LMNP-V]{3}[A-Z]",
       group=1, checksummed=True, digits=True, start=_at_class("[A-Z]")),
    # Singapore's NRIC/FIN (a prefix letter, seven digits, a check letter) and Finland's
    # henkilötunnus with a check letter (a birth date, a century sign, three digits, one of 21
    # letters): shapes no count, id or date has, anywhere (a headerless CSV's first cell).
    _d("national_id", r"(?<![0-9A-Za-z])([STFGM]\d{7}[A-Z])(?![0-9A-Za-z])", ids.nric_ok,
       prefilter=r"[STFGM]\d{7}[A-Z]", group=1, checksummed=True, digits=True,
       start=_at_class("[STFGM]")),
    _d("national_id", r"(?<![0-9A-Za-z.:/-])(\d{6}[-+A-FU-Y]\d{3}[A-FHJ-NPR-Y])(?![0-9A-Za-z])",
       ids.hetu_ok, prefilter=r"\d{6}[-+A-FU-Y]\d{3}[A-FHJ-NPR-Y]", group=1, checksummed=True,
       digits=True, start=_at_class(r"\d")),
    # Mexico's CURP: four letters, a birth date, sex, state, consonants, a check digit.
    _d("national_id", r"(?<![0-9A-Za-z])([A-Z]{4}\d{6}[HM][A-Z]{5}[0-9A-Z]\d)(?![0-9A-Za-z])",
       ids.curp_ok, prefilter=r"[A-Z]{4}\d{6}[HM][A-Z]{5}[0-9A-Z]\d", group=1, checksummed=True,
       digits=True, start=_at_class("[A-Z]")),
    _d("national_id", r"(?<![0-9A-Za-z.-])(\d{3}\.\d{3}\.\d{3}-\d{2})(?![0-9A-Za-z-])", ids.cpf_ok,
       prefilter=r"\d{3}\.\d{3}\.\d{3}-\d{2}", group=1, checksummed=True, digits=True,
       start=_at_class(r"\d")),
    # ... Pakistan's CNIC in its dashes (5-7-1, a province's first digit), Sri Lanka's old NIC
    # (nine digits and V or X, the day of the year in them), Malaysia's MyKad in its dashes
    # (a birth date, a place's code, a serial), Germany's pension insurance number (eight
    # digits, the birth name's initial, three digits, the check), Switzerland's AHV number in
    # its dots (756, the EAN-13 check), an Emirates ID without its dashes (784, the birth
    # year, the Luhn digit): shapes no count, id or date has.
    # (not M-Pesa's Daraja API's request id, "requestId": "11728-2929992-1", of that shape)
    _d("national_id", r"(?<![\w-])(?<!equestId\": \")(?<!equestId\":\")"
       r"([1-7]\d{4}-\d{7}-\d)(?![\w-])", ids.cnic_ok,
       prefilter=r"[1-7]\d{4}-\d{7}-\d", group=1, digits=True, needles=("-",),
       start=_at_class(r"[1-7]", within=r"\d")),
    _d("national_id", r"(?<![\w-])(\d{9}[VX])(?![\w-])", ids.lk_nic_ok,
       prefilter=r"\d{9}[VX]", group=1, digits=True, start=_at_class(r"\d")),
    _d("national_id", r"(?<![\w-])(\d{6}-\d{2}-\d{4})(?![\w-])", ids.mykad_ok,
       prefilter=r"\d{6}-\d{2}-\d{4}", group=1, digits=True, needles=("-",),
       start=_at_class(r"\d")),
    _d("national_id", r"(?<![\w-])(\d{8}[A-Z]\d{3})(?![\w-])", ids.de_rvnr_ok,
       prefilter=r"\d{8}[A-Z]\d{3}", group=1, digits=True, start=_at_class(r"\d")),
    _d("national_id", r"(?<![\w.-])(756\.\d{4}\.\d{4}\.\d{2})(?![\w-]|\.\d)", ids.ahv_ok,
       prefilter=r"756\.\d{4}\.\d{4}\.\d{2}", group=1, digits=True, needles=("756.",),
       start=_at_literal(("756.",))),
    _d("national_id", r"(?<![\w.-])(784(?:19|20)\d{10})(?![\w-])", ids.emirates_id_ok,
       prefilter=r"784(?:19|20)\d{10}", group=1, digits=True, needles=("784",),
       start=_at_literal(("784",))),
    # A US taxpayer's number whose record says it is an SSN (FATCA and CRS forms: a TIN, its
    # type SSN beside it, in either order).
    _d("us_ssn", r"(?i)(?<![a-z])tin_?type\\?[\"']?[ \t]*[:=|][ \t]*\\?[\"']?ssn\b[^\n]{0,40}?"
       r"tin(?:_?value)?\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?(\d{3}-?\d{2}-?\d{4})(?![\w-])",
       v.ssn_ok, prefilter=r"(?i)tin[ _-]?type[^\n]{0,8}ssn[^\n]{0,60}\d{3}[ _-]?\d{2}[ _-]?\d{4}",
       group=1, needles=("SSN", "ssn"), joined=_nothing_joined,
       joined_prefilter=r"(?i)tin[ _-]?type[^\n]{0,8}ssn[^\n]{0,60}\d{3}[ _-]?\d{2}[ _-]?\d{4}"),
    _d("us_ssn", r"(?i)tin\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?(\d{3}-?\d{2}-?\d{4})\\?[\"']?"
       r"[ \t]*[,|&]"
       r"[^\n]{0,20}?tin_?type\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?ssn\b",
       v.ssn_ok,
       prefilter=r"(?i)tin[^\n]{0,8}\d{3}[ _-]?\d{2}[ _-]?\d{4}[^\n]{0,30}tin[ _-]?type"
                 r"[^\n]{0,8}ssn",
       group=1, needles=("SSN", "ssn"), joined=_nothing_joined,
       joined_prefilter=r"(?i)tin[^\n]{0,8}\d{3}[ _-]?\d{2}[ _-]?\d{4}[^\n]{0,30}tin[ _-]?type"
                        r"[^\n]{0,8}ssn"),
    # The UK's, Ireland's and New Zealand's: Scotland's CHI number, the UK's UTR, New
    # Zealand's NHI number (named), a British driving licence number (its own shape, bare),
    # a National Insurance number in an HMRC API's path.
    _named_id((r"(?-i:CHI)\b", _AS_KEY % "chi(?:_?no)?", r"chi[ _-]?number"), ("chi",),
              r"\d{6} ?\d{4}", ids.chi_ok),
    _named_id((r"(?-i:UTR)\b", r"unique[ \t]+taxpayer[ \t]+reference"), ("utr", "unique"),
              r"\d{5} ?\d{5}", ids.utr_ok),
    _named_id((r"(?-i:NHI)\b", r"nhi-id", r"national[ \t]+health[ \t]+index"),
              ("nhi", "national"), r"[A-HJ-NP-Z]{3}\d{2}(?:\d{2}|[A-HJ-NP-Z]{2})", ids.nhi_ok),
    _d("national_id",
       r"(?<![A-Za-z0-9])([A-Z9]{5}\d[0156]\d[0-3]\d\d[A-Z9]{2}\d[A-Z]{2})(?![A-Za-z0-9])",
       ids.dvla_ok, prefilter=r"[A-Z9]{5}\d[0156]\d[0-3]\d\d[A-Z9]{2}\d[A-Z]{2}", group=1,
       digits=True, start=_at_class("[A-Z9]")),
    _d("national_id", r"/individuals/[\w/-]*?/([A-CEGHJ-PR-TW-Z]{2}\d{6}[A-D])(?=[/?#\s]|$)",
       ids.nino_ok, prefilter=r"/individuals/", group=1, needles=("/individuals/",)),
    # Sweden's personnummer written whole (century, date, "-", serial and Luhn digit): a
    # shape and a check nothing else in operations text takes.
    # (born before 2013: a build's or a backup's dated name, 20240517-0042, is recent)
    _d("national_id", r"(?<![\w.+-])((?:19\d\d|200\d|201[0-2])[01]\d[0-3]\d-\d{4})(?![\w-]|[.,]\d)",
       ids.personnummer_ok, prefilter=r"(?:19|20)[0-9]{6}-[0-9]{4}", group=1, digits=True,
       start=_at_class(r"\d")),
    # ... and written as HMRC prints it, its pairs a space apart ("QQ 12 34 56 C"): a shape
    # nothing else in operations text takes, its name or not.
    _d("national_id",
       r"(?<![A-Za-z0-9])([A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] \d{2} \d{2} \d{2} [A-D])"
       r"(?![A-Za-z0-9])", ids.nino_ok, prefilter=r"[A-Z]{2} \d{2} \d{2} \d{2} [A-D]", group=1,
       digits=True, gate=r"[A-Z]{2} \d\d \d\d \d\d [A-D]", start=_at_class("[A-Z]")),
    # ... and written whole, its prefix one HMRC issues and its suffix A to D ("XY269012D" in an
    # actuary's list of members): nino_ok refuses the prefixes never issued.
    _d("national_id",
       r"(?<![A-Za-z0-9])([A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]\d{6}[A-D])(?![A-Za-z0-9])",
       ids.nino_ok, prefilter=r"[A-Z]{2}\d{6}[A-D]", group=1, digits=True,
       gate=r"[A-Z]{2}\d{6}[A-D]", start=_at_class("[A-Z]")),
    # An SSN dotted after its name ("SS# 078.64.7958" on a fax cover).
    _d("us_ssn",
       r"(?i)(?<![a-z])(?:ss#|ssn|soc\.?[ \t]*sec\.?(?:[ \t]*(?:no\.?|#))?)[ \t:#]*"
       r"(\d{3}\.\d{2}\.\d{4})(?![\d.])", v.ssn_ok,
       prefilter=r"(?i)(?:ss#|ssn|soc)[^\r\n]{0,12}\d{3}\.\d{2}\.\d{4}", group=1, digits=True,
       needles=("ss", "SS", "Soc", "soc", "SOC"), joined=_nothing_joined,
       joined_prefilter=r"(?i)(?:ss#|ssn|soc)[^\r\n]{0,12}\d{3}\.\d{2}\.\d{4}"),
    # A SWIFT MT103's ordering customer (50F) names a person by a document: its code, the
    # issuing country, the number (NIDN national id, CCPT passport, SOSE social security, TXID
    # tax id, DRLC driving licence, ARNU alien registration).
    _d("national_id",
       r"(?m)^(?::50F:)?/?(?:NIDN|CCPT|SOSE|TXID|DRLC|ARNU)/[A-Z]{2}/(?:[^/\n]*/)?([A-Za-z0-9-]{5,35})",
       prefilter=r"(?:NIDN|CCPT|SOSE|TXID|DRLC|ARNU)/[A-Z]{2}/", group=1,
       needles=("NIDN/", "CCPT/", "SOSE/", "TXID/", "DRLC/", "ARNU/")),
    # ... and as the documents that carry them name them: a Saudi e-invoice's buyer (ZATCA's
    # schemeID NAT or IQA), an Egyptian e-invoice's receiver of type P (a person).
    _d("national_id", r"schemeID=\\?[\"'](?:NAT|IQA)\\?[\"']>(\d{10})<", ids.sa_id_ok,
       prefilter=r"schemeID=\\?[\"'](?:NAT|IQA)\\?[\"']>\d{10}<", group=1, needles=("schemeID",)),
    _d("national_id", r"\"type\"[ \t]*:[ \t]*\"P\"[ \t]*,[ \t]*\"id\"[ \t]*:[ \t]*\"(\d{14})\"",
       ids.eg_national_id_ok, prefilter=r"\"type\"[ \t]*:[ \t]*\"P\"[ \t]*,[ \t]*\"id\"",
       group=1, needles=('"P"',)),
    )


_NATIONAL_IDS = _national_ids()


# A handset's IMEI (and IMEISV, MEID), a subscriber's IMSI, a SIM's ICCID: any long number's
# shape, so after their names only (a field, a log's key, a record's "served_imsi"), the first
# number within the same line. Under its own name a number is one, its Luhn digit right or not.
_TELECOM_NAMES = (r"(?:served[ _-]?)?(?:imei(?:sv|2)?|imsi|iccid|meid"
                  r"|sim[ _-]?(?:serial|card[ _-]?(?:number|no))|sim(?=[ \t]*[:=])"
                  # a modem's answer to the AT commands that read them (IMSI, IMEI, ICCID)
                  r"|at\+(?:cimi|c?gsn|q?ccid|iccid))")
# (a fact about one, not one: imei_count, imsi_hash)
_NOT_ABOUT = (r"(?![_ -](?:count|counts|total|len|length|type|hash|hashed|status|state|changed"
              r"|verified|valid|prefix|mask|masked|last4|format|like|style|shaped)(?![a-z]))")
_TELECOM_IDS = (
    _d("telecom_id",
       rf"(?ai)(?<![a-z]){_TELECOM_NAMES}(?![a-z]){_NOT_ABOUT}[^\d\n]{{0,40}}?(?<![0-9A-Za-z.-])"
       r"(\d{14,22}F?|\d{2}[ -]\d{6}[ -]\d{6}[ -]\d{1,2}|[0-9A-F]{14})(?![0-9A-Za-z-])",
       v.telecom_id_ok,
       prefilter=r"(?i)(?:imei|imsi|iccid|meid|sim|at\+c?gsn|at\+cimi|at\+q?ccid)[^\r\n]{0,40}"
                 r"(?:\d{14}|\d{2}[ -]\d{6}[ -]\d{6}|[0-9A-F]{14})",
       group=1, digits=True,
       start=_at_words(("imei", "imsi", "iccid", "meid", "served", "sim", "at+"))),
)
# A card's security code (CVC, CVV, Amex's four digits on the front) and a PIN (a card's, a
# SIM's and its PUK) under their names: three to eight digits, any number's anywhere else.
# An address in India, its state last before its postal PIN code ("Noida, Uttar Pradesh\nPIN:
# 600017"): no secret PIN after it.
_AFTER_AN_INDIAN_STATE = "".join(
    rf"(?<!{state}{sep})"
    for state in ("Pradesh", "Maharashtra", "Karnataka", "Tamil Nadu", "Kerala", "Gujarat",
                  "Rajasthan", "Bihar", "Delhi", "Telangana", "Bengal", "Punjab", "Haryana",
                  "Odisha", "Assam", "Jharkhand", "Uttarakhand", "Goa", "India")
    for sep in ("\n", ", ", " - ", " "))
# (OpenTravel's SeriesCode="778", Authorize.net's "cardCode": "310"; as a key only, not a
# UI card's "Card code 404")
# (and Moneris' and Canada's cvd, the card verification digits; not a code's letters before
# its digits, a project's 'CVD-677', which the joined reading sees as 'CVD 677')
_CARD_CODE_NAMES = (r"cvc2?|cvv2?|cvn|cvd(?![-_]?\d)(?!(?<=['\"]cvd) \d)"
                    r"|card[ _-]?(?:security|verification)[ _-]?(?:code|value)"
                    # (Magento's saved-card field, cc_cid: "cid" alone is most often an id)
                    r"|cc_cid"
                    r"|series[_-]?code|card[_-]?code|pr[üu]fziffer"
                    # (a payment gateway's parameter, CardCVV2=; French's "code au dos")
                    r"|card[_-]?cv[vc]2?|code[ \t]+au[ \t]+dos"
                    r"|security[ _-]?code|sec[ .]code|card[ _-]?verification(?:[ _-]?value)?"
                    r"|[34]-digit[ \t]+(?:security[ \t]+)?code"
                    r"|code[ \t]+on[ \t]+the[ \t]+(?:back|front)"
                    # ("the three or four digits on the back", asked on a call)
                    r"|(?:three|four|[34])(?:[ \t]+or[ \t]+(?:three|four|[34]))?[ \t]+digits"
                    r"[ \t]+on[ \t]+the[ \t]+(?:back|front)"
                    r"|c[óo]digo[ \t]+de[ \t]+seguran[çc]a|c[óo]digo[ \t]+de[ \t]+seguridad"
                    r"|(?:karten)?pr[üu]fnummer|code[ \t]+de[ \t]+s[ée]curit[ée]"
                    r"|cryptogramme(?:[ \t]+visuel)?|codice[ \t]+di[ \t]+sicurezza"
                    # Japanese, Chinese (the back's last three digits) and Hebrew (three
                    # digits on the back)
                    "|セキュリティコード|末三[碼码]|安全[碼码]|ספרות[ \t]+בגב|קוד[ \t]+אבטחה"
                    # (Spanish's code "on the back", Arabic's verification code)
                    r"|c[óo]digo[ \t]+(?:de[ \t]+)?atr[áa]s"
                    r"|\u0631\u0645\u0632[ \t]+\u0627\u0644\u062a\u062d\u0642\u0642")
_CARD_CODE_PREFILTER = (r"(?i)(?:cvc|cvv|cvn|cvd|cc_cid|security[ _-]?code|sec[ .]code"
                        r"|card[ _-]?verification"
                        r"|pr[au]fziffer"
                        r"|digit code|digits on the"
                        r"|series[ _-]?code|card[ _-]?code"
                        r"|code on the|c[ao]digo (?:de )?(?:segur|atr)|pr[au]fnummer|code de s"
                        r"|code au dos"
                        r"|cryptogramme"
                        r"|codice di sicurezza|aaa)[^\r\n]{0,40}\d{3}")
# Words that may stand between a code's or a PIN's name and its digits ("the card code on the
# back is 591", "el PIN de la tarjeta SIM es 9202"): a closed list, so "pin count is 1024"
# names no PIN.
# A battery's or a circuit's measure after digits: no code ("pin" is a battery in Vietnamese).
_ELECTRIC_UNITS = r"(?![ \t]*(?:mV|mAh|mA|\u00b5A|V|%)(?![A-Za-z]))"
_CODE_GAP = (r"(?:[ \t]+(?:on|the|back|front|of|my|your|card|de|la|el|del|tarjeta|sim|da|do|"
             r"cart[ãa]o|der|die|meiner|karte|ma|carte|mi|mia|carta|is|es|ist|est|[ée\u00e8]|was|"
             # how a caller says where it came from ("the PIN I set up was 1504", "the
             # delivery PIN on the text is 5456")
             # (a terminal's log: "PIN entered=868298")
             r"i|set|up|just|you|sent|texted|me|text|message|sms|new|now|door|gate|entrance|entered|"
             # Swahili's and Hausa's ("PIN yangu ya M-PESA kuwa 0756", "ta ita ce 2546")
             r"yangu|ya|m-?pesa|kuwa|ta|ita|ce|"
             # Indonesian's my and your, and its wallets ("PIN DANA saya 726045")
             r"saya|anda|kamu|dana|ovo|gopay|shopeepay|"
             # (a French notice's "Digicode communiqué : 7904")
             r"communiqu[ée]|hinten|auf|der|r[üu]ckseite|"
             # (French's "it is", said on the phone: "le cryptogramme c'est 596")
             r"c['’]est))"
             r"{0,6}")
# Codes that open something, said as a PIN is ("the alarm code is 7345", "telephone banking
# passcode 109258"): the same digits after them.
_OPENING_CODE_WORDS = ("alarm", "door", "gate", "entry", "garage", "keypad", "lockbox",
                       "locker", "disarm",
                       "key safe", "key-safe", "key_safe", "keysafe", "keybox", "key box",
                       "key_box", "key-box", "key_drop", "key drop", "key-drop", "keydrop",
                       "building", "passcode",
                       "pass code", "pass-code", "pass_code", "digicode", "c\u00f3digo",
                       "codigo", "kod ", "t\u00fcrcode", "haust\u00fcrcode", "torcode",
                       "\u6697\u8a3c\u756a\u53f7", "\u30aa\u30fc\u30c8\u30ed\u30c3\u30af",
                       "codice", "hoftor", "garagentor", "tor ", "portail", "code du",
                       "code portail", "garaje", "safe code", "safe-code", "safe_code",
                       "safecode", "combinazione", "combinaci", "combina\u00e7", "master",
                       # (a care worker's and a tenant's key safes, padlocks and lift codes in
                       # Dutch, German, Polish and Japanese)
                       "sleutelkast", "sleutelkluis", "cijferslot", "kluis", "zahlenschloss",
                       "schl\u00fcsselkasten", "schluesselkasten", "schl\u00fcsselsafe",
                       "schl\u00fcsseltresor", "tresor", "ks ", "ks-", "lift", "intercom",
                       "override", "\u30ad\u30fc\u30dc\u30c3\u30af\u30b9",
                       "\u30ad\u4e00\u30dc\u30c3\u30af\u30b9")
# (and as a courier's or a concierge's message says it in French, Spanish, Polish, German
# and Japanese: "Digicode communiqué : 7904", "Código del portal 0336", "kod odbioru paczki
# 2921", "Haustürcode", "オートロック暗証番号は1029です")
_OPENING_CODES = (r"(?:alarm|door|gate|entry|garage|keypad|lockbox|key[ _-]?safe|key[ _-]?box"
                  # (a repair shop's key drop box: "key_drop_code": "4770")
                  r"|key[ _-]?drop"
                  r"|building|locker|lift|intercom|override|(?-i:KS)"
                  r"|disarm)"
                  r"[ _-]?code|pass[ _-]?code|digicode"
                  # (a key safe or a padlock by its word alone: "keybox 3197", "the lockbox to
                  # 4639", Dutch's "sleutelkastje 2488" and "cijferslot 7736", German's
                  # "Zahlenschloss 928", Japanese's "キーボックス6301")
                  # (not a bank's lockbox, the number its payments are sent to: "Lockbox 347033
                  # deposit", "Lockbox: 604342" on a deposit batch; a key's lockbox opens with
                  # four or five digits)
                  r"|lock[ _-]?box(?![ \t]*:?[ \t]*\d{6})|key[ _-]?box|key[ _-]?safe"
                  r"|sleutel(?:kast(?:je)?|kluis(?:je)?)"
                  r"|cijferslot|kluisje|zahlenschloss|schl(?:ü|ue)ssel(?:kasten|safe|tresor)"
                  "|\u30ad[\u30fc\u4e00]\u30dc\u30c3\u30af\u30b9"
                  "(?:\u306e\u756a\u53f7(?:[^\\n\\d]{0,12}?(?=\u2192|\u306f))?)?"
                  # (a keypad's or an alarm's disarming code by its word alone: "Main entrance
                  # keypad: **3872**", "Alarm (Texecom) disarm: 5197")
                  r"|keypad|disarm"
                  r"|c[óo]digo[ \t]+de(?:l|[ \t]+la)?[ \t]+(?:portal|puerta|port[óo]n)"
                  r"|kod[ \t]+(?:do[ \t]+(?:drzwi|domofonu|bramy|sejfu)|odbioru(?:[ \t]+paczki)?)"
                  r"|(?:haus)?t[üu]rcode|torcode"
                  # (a gate's code in Italian, a yard gate's in German, a French portail's, a
                  # Spanish garage's: "Codice cancello 51419", "Hoftor Code 32818")
                  r"|codice[ \t]+(?:del[ \t]+)?(?:cancello|portone|citofono)"
                  r"|(?:hof|garagen)?tor[ \t]+code|portail[ \t]+code|code[ \t]+(?:du[ \t]+)?portail"
                  r"|garaje[ \t]+con[ \t]+c[óo]digo"
                  # (a safe's: "Safe code is now 4992", Italian's "la combinazione della
                  # cassaforte è 2056")
                  r"|safe[ _-]?code|combinazione(?:[ \t]+della[ \t]+cassaforte)?"
                  # (Spanish's and Portuguese's combination, a master code for the locks)
                  r"|combinaci[óo]n|combina[çc][ãa]o|master[ _-]?code"
                  "|(?:\u30aa\u30fc\u30c8\u30ed\u30c3\u30af)?\u6697\u8a3c\u756a\u53f7")
# (a joiner between the name and the code, or one and a digit after it: the whole text again)
_joined_card_code = _joined_where(re.compile(r"(?i)(?:cvc|cvv|cvn|cvd|code|verification|value"
                                             r"|c[óo]digo|pr[üu]fnummer|cryptogramme|codice"
                                             r"|seguran[çc]a|seguridad|s[ée]curit[ée]|sicurezza)"
                                             r"[^\n]{0,48}?[-_]"))
# A card's code asked for and answered on the next line of a call's transcript ("e il codice
# CVV?" / "[00:02:17] CLIENTE: 218"): the answer's digits after its speaker's label.
_CODE_ANSWERED = _d(
    "credit_card",
    rf"(?ai)(?<![a-z])(?:{_CARD_CODE_NAMES}|codice[ \t]+cvv)(?![a-z])[^\n?]{{0,30}}\?[ \t]*"
    r"(?:\n|\\n)(?:\[[\d:.]{5,12}\][ \t]*)?[^\n\d:]{1,24}:[ \t]*(\d{3,4})(?![\d])",
    prefilter=r"(?i)(?:cvc|cvv|cvn|cvd|security[ _-]?code|c[ao]digo|codice|code|digits on the)"
              r"[^\r\n]{0,60}\?",
    group=1, digits=True, needles=("?",), joined=_nothing_joined,
    joined_prefilter=r"(?i)(?:cvc|cvv|cvn|cvd|security[ _-]?code|c[ao]digo|codice|code"
                     r"|digits on the)"
                     r"[^\r\n]{0,60}\?")
# Values whose name or place says what they are, found by held-out corpora of telecom, travel,
# payroll and Latin American text.
_BANK_WORDS = r"(?:routing|rtn|aba|ifsc|bsb|sort[ _-]?code|ag[êe]ncia)"
_ACCOUNT_WORDS = (r"(?:(?:bank[ ._-]?)?account(?:[ _-]?(?:number|no|num))?|acct|a/c(?:[ \t]*no\.?)?"
                  r"|conta(?:[ \t]+corrente)?|n[°º][ \t]*(?:de[ \t]+)?cuenta)")


def _across_a_break(check: Callable[[str], bool]) -> Callable[[str], bool]:
    """``check`` of a value broken over two lines, read as one line; a value on one line is
    its own detector's."""

    def across(value: str) -> bool:
        # (a JSON string's escaped break too)
        return ("\n" in value or "\\n" in value) and check(
            " ".join(value.replace("\\r\\n", " ").replace("\\n", " ").split()))

    return across


def _password_or_passphrase(value: str) -> bool:
    return v.password_like(value) or v.told_passphrase(value)


# One code of a grid of backup codes: groups joined by "-" or a run of capitals or of lower
# case letters, with a digit ("65502-12542", "ma38-hbpp", "8A3B9ICHEF").
_GRID_CODE = (r"(?=[\w-]*\d)(?-i:[A-Za-z0-9]{4,6}(?:-[A-Za-z0-9]{4,6}){1,3}|[A-Z0-9]{8,12}"
              r"|[a-z0-9]{8,12})(?![\w-])")

# Where an SSN after Spanish's name for it or in PostgreSQL's key error can stand (joiners
# read as spaces: the joined reading's prefilter too).
_SSN_NAMED = r"(?i)seguro[ \t_-]+social|Key[ \t_-]\([^)\n]*(?:ssn|social)"


def _plain(kind: str, pattern: str, validator: Callable[[str], bool] | None = None, *,
           prefilter: str, needles: tuple[str, ...], group: int = 1,
           digits: bool = False, checksummed: bool = False) -> Detector:
    """A detector whose pattern reads "-", "_" and " " as itself alone, where each is read
    (a joinable kind's then has nothing for the joined pass to rescan)."""
    joinable = kind in ("email", "iban", "credit_card", "us_ssn", "phone", "ipv4", "ipv6")
    return _d(kind, pattern, validator, prefilter=prefilter, group=group, needles=needles,
              digits=digits, checksummed=checksummed,
              joined=_nothing_joined if joinable else None,
              joined_prefilter=prefilter if joinable else "")


# Values found by the name or the place their system gives them: records and configurations
# of telecom, travel, payroll, banking, CI and Latin American systems (held-out corpora RC to
# LH found each).
def _passcode_ok(value: str) -> bool:
    """A meeting's passcode: four digits and more (not a run of one), or a password's shape,
    not a stand-in ("Passcode: ********", "passcode: required")."""
    if value.isdigit():
        return len(value) >= 4 and len(set(value)) > 1
    # (letters alone in both cases are a generated passcode too: "HhDkdZnQu"; a capitalised
    # word is prose's, "Passcode: Required")
    mixed = (value.isalpha() and not value.islower() and not value.isupper()
             and not value[1:].islower())
    return v.told_secret_ok(value) or (len(value) >= 6 and (v.letters_and_digits(value) or mixed)
                                       and not v.stands_in(value))


def _not_stand_in(value: str) -> bool:
    """A value in a place only a secret takes (a device's encrypted secret after its type's
    word, Huawei's cipher or Cisco's type 6; LAPS' password as PowerShell lists it): any
    printable run is the secret, unless it is a tool's stand-in ("<removed>")."""
    return not v.stands_in(value)


# What a chat asks for by name, its answer in the next message (a national id's, a tax
# number's, a passport's, Japan's My Number, Korea's resident number, China's id).
_ASKED_IDS = ("social|ssn|steuer-?id|steuernummer|pesel|cuil|cuit|dni|nie|bsn|cpf|aadhaar|pan"
              "|passport|pasaporte|passeport|reisepass|tax[ _-]?id|tfn|sin|nin|nino"
              "|krankenversichertennummer|versichertennummer|identifikationsnummer"
              "|\u30de\u30a4\u30ca\u30f3\u30d0\u30fc|\uc8fc\ubbfc(?:\ub4f1\ub85d)?\ubc88\ud638"
              "|\u8eab\u4efd\u8bc1")
_ASKING = ("\\?|\\b(?:need|send|give|tell|what|enter|provide|please|confirm|share|bitte"
           "|brauch|schick|gib|necesit|pasa|dame|manda|daj"
           "|podaj|potrzeb|nodig|stuur|geef|besoin|envoie|donne|preciso|passa|serve)"
           "|\u6559\u3048\u3066|\uc54c\ub824|\ubcf4\ub0b4|\ud544\uc694|\u53d1\u7ed9|\u544a\u8bc9"
           "|\u9700\u8981|\uff1f")
_ASKED_IDS_PREFILTER = ("social|ssn|steuer|pesel|cuil|cuit|dni|nie|bsn|cpf|aadhaar|pan"
                        "|passport|pasaporte|passeport|reisepass|tax[ _-]?id|tfn|sin|nin"
                        "|versichertennummer|identifikationsnummer|aaaaaa|aaaa|aaa")


# Oxidized's models, as its router.db names them (name:model:username:password:enable).
_OXIDIZED_MODELS = (r"ios|iosxe|iosxr|nxos|junos|eos|fortios|asa|procurve|aoscx|routeros|vyos"
                    r"|edgeos|panos|comware|vrp|ironware|powerconnect|dnos\d*|aos\d*|screenos"
                    r"|opnsense|pfsense|airos|mlnxos|awplus|saos|timos|sros|arubaos|dlink|zynos"
                    r"|netscaler|tmos|sonicos|cumulus|onyx|slxos|ciscosmb")


def _named_fields() -> tuple[Detector, ...]:
    return (
    # A library's SIP2 message (a self-check's login, a patron's status): its fields are
    # named by two letters, the patron's PIN (AD), the login's and terminal's passwords (CO,
    # AC) and the patron's phone (BF); the message ends in its checksum, "AY<n>AZ<4 hex>".
    _plain("secret_assignment",
           r"\|(?:AD|CO|AC)([^|\r\n*][^|\r\n]{0,63})(?=\|[^\n]*AZ[0-9A-F]{4}(?![0-9A-Za-z]))",
           _not_stand_in, prefilter=r"\|(?:AD|CO|AC)[^|\r\n*][^\n]*AZ[0-9A-F]{4}",
           needles=("|AD", "|CO", "|AC")),
    _plain("phone",
           r"\|BF([+(]?\d[\d ()./-]{5,20}\d)(?=\|[^\n]*AZ[0-9A-F]{4}(?![0-9A-Za-z]))", None,
           prefilter=r"\|BF[+(]?\d[^\n]*AZ[0-9A-F]{4}", needles=("|BF",), digits=True),
    # EZproxy's log (LogFormat %h %{ezproxy-session}i %u %t ...): the session where the
    # common log format's ident is, between the client's address and the user.
    _plain("secret_assignment",
           r"(?m)^(?:\d{1,3}(?:\.\d{1,3}){3}|\[[a-z]+:[0-9a-f]{16}\]|[0-9A-Fa-f:]{3,39}|"
           r"\[REDACTED:ip(?:v4|v6)\]) ([A-Za-z0-9]{10,40}) [^\s\[]+ \[\d\d/[A-Z][a-z]{2}/\d{4}:",
           v.mixed_token_ok,
           prefilter=r"[A-Za-z0-9]{10} [^\s\[]+ \[\d\d/[A-Z][a-z]{2}/\d{4}:",
           needles=("/",)),
    # A card's number grouped with dots ("6062.8204.6167.0211", as some people type it).
    _plain("credit_card", r"(?<![\d.])([1-9]\d{3}\.\d{4}\.\d{4}\.\d{4})(?![\d]|\.\d)",
           v.card_number_ok, prefilter=r"\d{4}\.\d{4}\.\d{4}\.\d{4}", needles=(),
           checksummed=True, digits=True),
    # A SIP address whose user is a number (client_uri=sip:491594377048@..., a trunk's
    # registration): the subscriber's number; a PBX's short extension is not one.
    _plain("phone", r"(?i)(?<![\w.])sips?:(\+?\d{8,15})@", v.told_phone_ok,
           prefilter=r"(?i)sips?:\+?\d{8}", needles=("sip", "SIP"), digits=True),
    # A bank account's number beside its bank's routing code (a US RTN or ABA number, an
    # Indian IFSC, an Australian BSB, a Brazilian agência), either order, within a few lines;
    # or under a name that is a bank account's alone (bank.account=, "Bank A/c No:").
    _plain("iban",
           rf"(?i)(?<![a-z]){_BANK_WORDS}(?![a-z])(?:[^\n]|\n(?!\n)){{0,120}}?(?<![a-z])"
           rf"{_ACCOUNT_WORDS}(?![a-z])\\?[\"']?[ \t]*[:=#]?[ \t]*\\?[\"']?"
           r"(\d{6,18})(?![\d])", _not_zeros,
           prefilter=r"(?i)(?:routing|rtn|aba|ifsc|bsb|sort[ _-]?code|ag.ncia)"
                     r"[\s\S]{0,140}(?:account|acct|a/c|conta|cuenta)",
           digits=True, needles=("outing", "OUTING", "RTN", "rtn", "ABA", "aba", "IFSC", "ifsc",
                                 "BSB", "bsb", "ort", "ORT", "ncia", "NCIA")),
    _plain("iban",
           rf"(?i)(?<![a-z]){_ACCOUNT_WORDS}(?![a-z])\\?[\"']?[ \t]*[:=#]?[ \t]*\\?[\"']?"
           rf"(\d{{6,18}})(?![\d])(?:[^\n]|\n(?!\n)){{0,120}}?(?<![a-z]){_BANK_WORDS}(?![a-z])",
           # (not a template's zeros: "sort code 00-00-00, account 00000000")
           _not_zeros,
           prefilter=r"(?i)(?:account|acct|a/c|conta|cuenta)[\s\S]{0,140}"
                     r"(?:routing|rtn|aba|ifsc|bsb|sort[ _-]?code|ag.ncia)",
           digits=True, needles=("ccount", "CCOUNT", "cct", "CCT", "/c", "/C", "onta", "uenta")),
    _plain("iban",
           r"(?i)(?<![a-z])(?:bank[ ._-]?(?:account|acct|a/c)(?:[ _-]?(?:number|no|num))?\.?"
           r"|bankdetails|bank_account_number)(?![a-z])\\?[\"']?[ \t]*[:=#>]?[ \t]*\\?[\"']?"
           r"(\d{6,18})(?![\d])",
           prefilter=r"(?i)bank[ ._-]?(?:account|acct|a/c|details)[^\r\n]{0,12}\d{6}",
           digits=True, needles=("ank", "ANK")),
    # A network device's secret in its configuration's own words: a PPP or L2TP password
    # ("ppp chap password 0 X", Cisco's type 0: in clear), an SNMP agent's community
    # (Huawei's "snmp-agent community read X"), a ZTE OLT's ONU password
    # ("registration-method pw X"), hostapd's passphrase (the rest of its line).
    _plain("secret_assignment",
           r"(?i)(?<![\w-])(?:(?:ppp[ \t]+(?:chap|pap)|l2tp[ \t]+tunnel)[ \t]+password[ \t]+0"
           r"|snmp-agent[ \t]+community[ \t]+(?:read|write)(?:[ \t]+cipher)?"
           r"|registration-method[ \t]+pw)[ \t]+(\S{4,})",
           v.secret_value_ok,
           prefilter=r"(?i)(?:password[ \t]+0|snmp-agent[ \t]+community"
                     r"|registration-method[ \t]+pw)[ \t]+[^ \t\r\n]",
           needles=("password 0", "PASSWORD 0", "snmp-agent", "registration-method")),
    _plain("secret_assignment", r"(?m)^[ \t]*wpa_passphrase=([^\n]{8,63}?)[ \t]*$",
           v.secret_value_ok, prefilter=r"wpa_passphrase=[^\r\n]{8}", needles=("wpa_passphrase=",)),
    # A subscriber's IMSI where a core network's logs put it: Open5GS's "[imsi-262039...]",
    # an HSS's "User-Name=262013703629512" (S6a names the subscriber by its IMSI).
    _plain("telecom_id",
           r"(?i)(?<![a-z])(?:imsi-|user-name[ \t]*=[ \t]*\"?)([2-7]\d{14})(?![\d])",
           v.telecom_id_ok, prefilter=r"(?i)(?:imsi-|user-name[ \t]*=[ \t]*\"?)[2-7]\d{14}",
           digits=True, needles=("msi-", "MSI-", "ser-", "SER-", "ser-N", "ame")),
    # An identity document's number as a record holds it: a "document" or a "licence"
    # object's number ({"document": {"type": "P", "number": "MU5064795"}}), an ID scanner's
    # log (document=ID_CARD country=D number=WKY542CK8), a form's numeroDocumento.
    _plain("national_id",
           r"(?i)(?<![a-z])(?:document|doc_?type|dokument|licen[cs]e|passport|id_?card)\\?[\"']?"
           r"[ \t]*[:=][ \t]*(?:\{|[A-Z_]{1,16}\b)[^\n{}]{0,60}?(?<![a-z])"
           r"(?:number|numer|numero|nummer|nr)"
           r"\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?"
           r"([A-Z0-9][A-Z0-9-]{4,19})(?![\w-])",
           v.has_digit,
           prefilter=r"(?i)(?:document|doc_?type|dokument|licen[cs]e|passport|id_?card)[^\r\n]{0,80}"
                     r"(?:nu(?:mb|m|mm)er|nr)",
           needles=("ocument", "OCUMENT", "okument", "OKUMENT", "ocType", "octype",
                         "OCTYPE", "oc_type", "icen", "ICEN", "assport", "ASSPORT", "card",
                         "CARD")),
    _plain("national_id",
           r"(?i)(?<![a-z])(?:numero_?documento|nro_?documento|doc_?nro|numdocumento)\\?[\"']?"
           r"[ \t]*[:=][ \t]*\\?[\"']?([A-Z0-9][A-Z0-9.-]{4,19})(?![\w-])",
           v.has_digit,
           prefilter=r"(?i)(?:numero_?documento|nro_?documento|doc_?nro|numdocumento)[ \t]*[\"']?"
                     r"[ \t]*[:=]",
           needles=("ocumento", "OCUMENTO", "ocNro", "ocnro", "OCNRO", "oc_nro")),
    # A phone under an XML element's number (OpenTravel's <Phone countryCode="1"
    # number="7182008373"/>), Tally's ledger contacts, a PCF's subscription id
    # ({"type": "END_USER_E164", "data": "..."}), an HLR's ISDN="...", FreeRADIUS's
    # "(from client bng port 1584 cli 491623092909)", RADIUS's User-Name of digits.
    _plain("phone", r"(?i)<phone\b[^>\n]{0,80}?\bnumber=\\?\"(\+?\d[\d -]{5,18}\d)\\?\"",
           v.told_phone_ok, prefilter=r"(?i)<phone[^>\r\n]{0,80}number=",
           needles=("hone", "HONE")),
    _plain("phone", r"<(LEDGER(?:PHONE|MOBILE))>(\+?[\d -]{8,18})</\1>", v.told_phone_ok,
           prefilter=r"<LEDGER(?:PHONE|MOBILE)>", needles=("<LEDGER",), group=2),
    _plain("phone",
           r"END_USER_E164\\?\"[ \t]*,[ \t]*\\?\"data\\?\"[ \t]*:[ \t]*\\?\"(\+?\d{8,15})",
           v.e164ish, prefilter=r"END_USER_E164[^\r\n]{0,30}data", needles=("END_USER_E164",)),
    _plain("phone", r"\bISDN=\"(\+?\d{8,15})\"", v.e164ish, prefilter=r"ISDN=\"\+?\d{8}",
           needles=("ISDN=",)),
    _plain("phone", r"\(from client \S+ port \d+ cli (\+?\d{8,15})\)", v.e164ish,
           prefilter=r"from client [^ \t\r\n]+ port [0-9]+ cli [0-9+]", needles=(" cli ",)),
    _plain("phone", r"(?i)\buser-name[ \t]*=[ \t]*\"?(\+?\d{10,13})(?![\d])", v.told_phone_ok,
           prefilter=r"(?i)user-name[ \t]*=[ \t]*\"?\+?\d{10}", needles=("ame",)),
    # A SIM's secret key in an HLR's command (ADD KI: ... KIVALUE="...").
    _plain("secret_assignment", r"\bKIVALUE=\"([0-9A-Fa-f]{32})\"",
           prefilter=r"KIVALUE=\"[0-9A-Fa-f]{32}", needles=("KIVALUE",)),
    # Device configurations: a Zabbix user macro's value ({$SNMP_COMMUNITY}), a MikroTik
    # SNMP community's name, radclient's shared secret (its last argument), a Huawei
    # local user's password cipher text.
    _plain("secret_assignment",
           r"\{\$[A-Z0-9_.]*(?:PASSWORD|PASSWD|SECRET|COMMUNITY|TOKEN|KEY|PSK|PASS)[A-Z0-9_.]*\}"
           r"\\?\"[ \t]*,[ \t]*\\?\"value\\?\"[ \t]*:[ \t]*\\?\"([^\"\\\n]{4,})",
           v.secret_value_ok,
           prefilter=r"\{\$[A-Z0-9_.]*(?:PASS|SECRET|COMMUNITY|TOKEN|KEY|PSK)[^\r\n]{0,60}value",
           needles=("{$",)),
    _plain("secret_assignment",
           r"(?m)^/snmp community\b(?:\n(?!/)[^\n]*){0,6}?\n[ \t]*(?:add|set)\b[^\n]*?"
           r"[ \t]name=(\S+)",
           v.secret_value_ok, prefilter=r"/snmp community", needles=("/snmp community",)),
    _plain("secret_assignment",
           r"\bradclient\b[^\n|;]*?[ \t](?:auth|acct|status|coa|disconnect)[ \t]+'?([^'\s]{4,})",
           v.secret_value_ok,
           prefilter=r"radclient[^\r\n]{0,200}(?:auth|acct|status|coa|disconnect)[ \t]",
           needles=("radclient",)),
    _plain("secret_assignment", r"(?i)\bpassword[ \t]+(?:irreversible-)?cipher[ \t]+(\S{8,})",
           v.secret_value_ok,
           prefilter=r"(?i)password[ \t]+(?:irreversible-)?cipher[ \t]+[^ \t\r\n]",
           needles=("ipher", "IPHER")),
    # Credentials told as user/password ("creds admin/dhlR6HCko0"), Peru's "clave SOL", an
    # API's "Clave API: ...", a password in backticks after its word ("pw `...`").
    _plain("secret_assignment",
           r"(?i)(?<![a-z])creds?\b[ \t]*:?[ \t]+[^\s/]{1,40}/([^\s/]{4,64}?)(?=[.,;]?(?:\s|$))",
           v.told_password, prefilter=r"(?i)creds?[ \t:]+[^ \t\r\n/]{1,40}/",
           needles=("red", "RED")),
    _plain("secret_assignment",
           r"(?i)(?<![a-z])clave[ \t]+(?:sol|api|de[ \t]+acceso)\b[ \t]*:?[ \t]*[«\"']?"
           # (not an e-invoice's access key, Ecuador's 49 digits: a public reference)
           r"(?!\d{49}(?!\d))([^\s«»\"',]{6,64})",
           v.secret_value_ok, prefilter=r"(?i)clave[ \t]+(?:sol|api|de[ \t]+acceso)",
           needles=("lave", "LAVE")),
    _plain("secret_assignment",
           r"(?i)(?<![\w`-])(?:pw|pwd|password|pass)[ \t]*[:=]?[ \t]*`([^`\s]{6,64})`",
           v.secret_value_ok, prefilter=r"(?i)(?:pw|pwd|pass)[^\r\n]{0,12}`", needles=("`",)),
    # A PIN told as Brazilians tell a password of digits ("minha senha do cartão é 4998").
    _plain("secret_assignment",
           r"(?i)(?<![a-z])senha\b[^\n.!?]{0,40}?(?:[ \t](?:é|e|era|foi)[ \t]+|:[ \t]*)(\d{4,8})"
           r"(?![\d])",
           prefilter=r"(?i)senha[^\r\n]{0,48}[0-9]{4}", needles=("enha", "ENHA"), digits=True),
    # A session's credentials as SQL takes them (Redshift's UNLOAD ... SESSION_TOKEN '...'),
    # an ODBC string's PWD={...}, a Terraform plan's new secret ("old" -> "new").
    _plain("secret_assignment",
           r"(?i)\b(?:aws_)?(?:session|security)_token[ \t]+'([^'\s]{16,})'",
           prefilter=r"(?i)(?:session|security)_token[ \t]+'", needles=("_TOKEN", "_token")),
    # (not Spring Cloud Config's marker of a ciphertext: password={cipher}...)
    _plain("secret_assignment", r"(?i)(?<![a-z])(?:pwd|password)=\{(?!cipher\})([^{}\s]{4,})\}",
           v.secret_value_ok, prefilter=r"(?i)(?:pwd|password)=\{", needles=("={",)),
    _plain("secret_assignment",
           r"(?i)(?:password|secret|token)[\w-]*\"?[ \t]*=[ \t]*\"[^\"\n]*\"[ \t]*->[ \t]*"
           r"\"([^\"\n]{4,})\"",
           v.secret_value_ok, prefilter=r"(?i)(?:password|secret|token)[^\r\n]{0,60}->[ \t]*\"",
           needles=("->",)),
    # macOS's security tool's keychain password (-p) and a PKCS#12's passphrase (-P).
    _plain("secret_assignment",
           r"\bsecurity[ \t]+(?:create-keychain|unlock-keychain|import|export"
           r"|set-keychain-password)\b[^\n|;&]*?[ \t]-[pP][ \t]+(?!-)(\S+)",
           v.secret_value_ok,
           prefilter=r"security[ \t]+(?:create-keychain|unlock-keychain|import|export"
                     r"|set-keychain-password)[^\r\n]{0,200}[ \t]-[pP][ \t]",
           needles=("security",)),
    # A key-value store's write of a secret (an app's "KeychainStore set key=refreshToken
    # value=..."): the value after the secret's name.
    _plain("secret_assignment",
           r"(?i)\bkey=\w*(?:token|pin|password|passwd|secret|passcode|credential)\w*[ \t]+"
           r"value=([^\s\"',;]{4,})",
           v.secret_value_ok,
           prefilter=r"(?i)key=[A-Za-z0-9_]*(?:token|pin|passw|secret|passcode|credential)"
                     r"[^\r\n]{0,40}value=",
           needles=("alue=", "ALUE=")),
    # ASP.NET Core's session and login cookies.
    _plain("secret_assignment",
           r"(?<![\w.])\.AspNetCore\.(?:Session|Cookies|Identity\.Application)=([^;\s\"']{16,})",
           prefilter=r"\.AspNetCore\.[A-Za-z.]+=", needles=(".AspNetCore.",)),
    # Travel: an APIS entry's passport (DCS's "DOC P THA AC0768454 EXP ..."), SSR DOCS in its
    # dashed form ("SR DOCS LH HK1-P-D-HYMVGPJZT-D-...").
    _plain("national_id", r"\bDOC[ \t]+P[ \t]+[A-Z]{3}[ \t]+([A-Z0-9]{6,9})[ \t]+EXP\b",
           prefilter=r"DOC[ \t]+P[ \t]+[A-Z]{3}[ \t]+[A-Z0-9]{6}", needles=("DOC P",)),
    _plain("national_id", r"\bDOCS[ \t]+[A-Z0-9]{2}[ \t]+HK\d-P-[A-Z]{1,3}-([A-Z0-9]{5,20})-",
           prefilter=r"DOCS[ \t]+[A-Z0-9]{2}[ \t]+HK[0-9]-P-", needles=("DOCS",)),
    # A PIX key that is an e-mail inside a payment's BR Code ("...br.gov.bcb.pix0121
    # paula@...5204..."): up to the next field, the merchant's category.
    _plain("email",
           r"br\.gov\.bcb\.pix01\d\d([A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+?)(?=5204\d{4}5303)",
           prefilter=r"br\.gov\.bcb\.pix01[0-9]{2}[^\r\n]{1,80}@", needles=("bcb.pix",)),
    # Mexico's SPEI fields (cuentaOrdenante, cuentaBeneficiario): a CLABE.
    _plain("iban",
           r"(?i)(?<![a-z])cuenta_?(?:ordenante|beneficiario|destino|origen)\\?[\"']?[ \t]*[:=]"
           r"[ \t]*\\?[\"']?(\d{18})(?![\d])",
           v.clabe_ok, prefilter=r"(?i)cuenta_?(?:ordenante|beneficiario|destino|origen)",
           needles=("uenta", "UENTA"), digits=True),
    # India: EPFO's ECR file (UAN#~#NAME#~#...), Tally's <INCOMETAXNUMBER> (a PAN).
    _plain("national_id", r"(?m)^(1\d{11})#~#", prefilter=r"(?:^|[\r\n])1[0-9]{11}#~#",
           needles=("#~#",), digits=True),
    # Named ids: India's PAN typed in lower case after its name, an ESIC insurance number, a
    # UK UTR or a tax reference, a US I-94 record, Mexico's voter key.
    _named_id((r"(?<![a-z])pan(?:[ \t]*(?:no|number|card))?\b\.?",), ("pan",),
              r"[a-z]{3}[abcfghjlpt][a-z]\d{4}[a-z]", lambda value: ids.pan_ok(value.upper()),
              checksummed=False),
    _named_id((r"(?<![a-z])esic(?:[ _-]?ip)?(?:[ _-]?(?:number|no))?\b",), ("esic",), r"\d{10}",
              ids.digit_count_ok(10, 10), checksummed=False),
    _named_id((r"(?<![a-z])utr\b", r"tax[ _-]?ref(?:erence)?(?:[ _-]?(?:number|no))?\b"),
              ("utr", "tax"), r"\d{10}", ids.digit_count_ok(10, 10), checksummed=False),
    _named_id((r"(?-i:I-94)",), ("i-94",), r"\d{11}|\d{9}[A-Z]\d", _has_digit, checksummed=False),
    _named_id((r"clave[ \t_]+de[ \t_]+elector", r"clave_?elector"), ("clave",),
              r"[A-Z]{6}\d{8}[HM]\d{3}", _has_digit, checksummed=False),
    # (Italy's codice fiscale typed in lower case after its name; a Ukrainian passport's
    # series and number, "серія СО 017988"; Poland's patient id in the P1 system's query)
    _named_id((r"codice[ \t]+fiscale", r"(?<![a-z])cf\b"), ("codice", "cf"),
              r"[a-z]{6}\d{2}[a-z]\d{2}[a-z]\d{3}[a-z]",
              lambda value: ids.codice_fiscale_ok(value.upper())),
    _named_id(("\u0441\u0435\u0440\u0456\u044f",), ("\u0441\u0435\u0440\u0456\u044f",),
              "[\u0410-\u042f\u0406\u0407\u0404\u0490]{2} ?\\d{6}", _has_digit,
              checksummed=False, shape=r"aa ?[0-9]{6}"),
    _named_id((r"identyfikator_?pacjenta",), ("identyfikator",), r"\d{11}", ids.pesel_ok),
    # An MFA device's code on the AWS CLI (sts get-session-token ... --token-code 716821), a
    # YubiKey's one-time password in a RADIUS log (otp=ccccccvvv...: 44 modhex characters),
    # Entra ID's Temporary Access Pass as a helpdesk hands it out.
    _plain("secret_assignment", r"--token-code[ =]+(\d{6})(?![\d])",
           prefilter=r"--token-code[ =]+[0-9]{6}", needles=("--token-code",), digits=True),
    _plain("secret_assignment", r"(?i)(?<![a-z])otp=([cbdefghijklnrtuv]{32,48})(?![a-z])",
           prefilter=r"(?i)otp=[cbdefghijklnrtuv]{32}", needles=("otp=", "OTP=")),
    _plain("secret_assignment",
           r"(?i)(?:temporary[ \t]+access[ \t]+pass|passe[ \t]+d['’]acc[èe]s[ \t]+temporaire)"
           r"(?:[ \t]*\(TAP\))?(?:[^\n:]{0,60}:)?[ \t]+([^\s]{8,})",
           v.told_password,
           prefilter=r"(?i)temporary[ \t]+access[ \t]+pass|passe[ \t]+d.acc.s[ \t]+temporaire",
           needles=("emporary", "EMPORARY", "emporaire")),
    # A presigned POST's x-amz-signature field (the policy it signs grants an upload; a
    # webhook's signature, Stripe's or Zoom's, is left as everywhere: it grants nothing).
    _plain("secret_assignment",
           r"(?i)(?<![\w-])x-amz-signature\\?[\"']?[ \t]*:[ \t]*\\?[\"']([0-9a-f]{64})",
           prefilter=r"(?i)x-amz-signature[^\r\n]{0,8}:[^\r\n]{0,4}[0-9a-f]{64}",
           needles=("amz-signature", "AMZ-SIGNATURE", "Amz-Signature")),
    # A door's code where a host or a smart lock's log puts it: a key box's code in a host's
    # message ("A caixa das chaves está ao lado da porta, código 6478"), an access code
    # object's code (Seam's {"access_code": {..., "code": "11852625"}}), Z-Wave's user code.
    _plain("secret_assignment",
           r"(?i)(?:caixa[ \t]+das[ \t]+chaves|cassetta[ \t]+delle[ \t]+chiavi"
           r"|bo[iî]te[ \t]+[àa][ \t]+cl[ée]s|key[ \t]*box|schl[üu]ssel(?:tresor|kasten)?|tresor"
           # (and Spanish's, Italian's and Dutch's: "Caja de llaves ..., combinación 2488",
           # "Chiave cassetta: codice 0709", "Sleutelkluis naast voordeur, code 6483")
           r"|caja[ \t]+de[ \t]+llaves|chiave[ \t]+cassetta|sleutelkluis"
           r"|smart[ \t]+lock)[^\n.]{0,60}?(?:c[óo]digo|codice|code|combinaci[óo]n)[ \t:]*[«\"']?"
           r"(\d{4,8})"
           r"(?![\d])",
           prefilter=r"(?i)(?:caixa|cassetta|bo.te|key[ \t]*box|schl.ssel|tresor|smart[ \t]+lock"
                     r"|caja[ \t]+de[ \t]+llaves|sleutelkluis)"
                     r"[^\r\n]{0,64}(?:c.digo|codice|code|combinaci)",
           needles=("aixa", "assetta", "te ", "box", "BOX", "ssel", "resor", "lock", "LOCK",
                    "llaves", "LLAVES", "kluis", "KLUIS"),
           digits=True),
    _plain("secret_assignment",
           r"access_code\\?\"[ \t]*:[ \t]*\{[^{}\n]{0,200}?\\?\"code\\?\"[ \t]*:[ \t]*\\?\"?"
           r"(\d{4,10})",
           prefilter=r"access_code[^\r\n]{0,210}code[^\r\n]{0,6}[0-9]{4}", needles=("access_code",),
           digits=True),
    _plain("secret_assignment", r"\[User Code CC\][^\n]{0,80}?\bcode=\\?\"?(\d{4,10})",
           prefilter=r"User Code CC[^\r\n]{0,80}code=", needles=("User Code CC",), digits=True),
    # A card's code after the card and its expiry in one breath ("amex 370238469673261 0926
    # cid 4471", "card 3457 670752 95434 exp 04/28 cid 0042").
    _plain("credit_card",
           r"(?i)(?<![\d])(?:\d[ -]?){12,18}\d[ \t,]+"
           r"(?:(?:exp(?:iry|ires)?|caducidad|vence|validade|scadenza)[ \t:.]*)?"
           r"(?:0[1-9]|1[0-2])/?\d{2}[ \t,;]+(?:cvv2?|cvc2?|cid|csc|code|c[óo]digo|codice)[ \t:]*"
           r"(\d{3,4})(?![\d])",
           prefilter=r"(?i)[0-9]{4}[^\r\n]{0,30}[01][0-9]/?[0-9]{2}[ \t,;]+"
                     r"(?:cvv|cvc|cid|csc|code|c.digo|codice)",
           needles=("cvv", "CVV", "cvc", "CVC", "cid", "CID", "csc", "CSC", "code", "CODE"),
           digits=True),
    # A form's field as an agent or a page script holds it: a labelled value
    # ({"label": "CVC", "value": "056"}), a browser agent's fill of a password input, a
    # cookie object's value (Playwright's {name: 'PHPSESSID', value: '...'}), a Moodle
    # setting, a secret printed by the command that names it on the line before
    # (terraform output -raw db_password, vault kv get -field=password).
    _plain("secret_assignment",
           r"(?i)\\?[\"']label\\?[\"'][ \t]*:[ \t]*\\?[\"'](?:cvc2?|cvv2?|security[ \t]+code|pin"
           r"|password|passcode)\\?[\"'][ \t]*,[ \t]*\\?[\"']value\\?[\"'][ \t]*:[ \t]*\\?[\"']"
           r"([^\"'\\\n]{3,64})",
           prefilter=r"(?i)label[^\r\n]{0,8}(?:cvc|cvv|security code|pin|passw|passcode)"
                     r"[^\r\n]{0,12}value",
           needles=("abel", "ABEL")),
    _plain("secret_assignment",
           r"(?i)selector=\\?\"[^\"\n]*password[^\"\n]*\\?\"[ \t]+value=\\?\"([^\"\\\n]{4,})",
           v.secret_value_ok, prefilter=r"(?i)selector=[^\r\n]{0,80}password[^\r\n]{0,80}value=",
           needles=("selector=",)),
    _plain("secret_assignment",
           r"(?i)\bname:[ \t]*['\"](?:PHPSESSID|JSESSIONID|ASP\.NET_SessionId|connect\.sid"
           r"|sessionid|session|sid|[\w.-]*_session)['\"][ \t]*,[ \t]*value:[ \t]*['\"]"
           r"([^'\"\s]{16,})",
           prefilter=r"(?i)name:[ \t]*['\"][A-Za-z0-9_.-]*(?:sess|sid)[^\r\n]{0,40}value:",
           needles=("name:", "NAME:", "Name:")),
    _plain("secret_assignment",
           r"(?i)<setting[ \t]+name=\"[^\"\n]*(?:pass|secret|token|apikey|api_key)[^\"\n]*\">"
           r"([^<\n]{4,})</setting>",
           v.secret_value_ok, prefilter=r"(?i)<setting[ \t]+name=\"[^\"\r\n]*(?:pass|secret|token"
                                        r"|apikey|api_key)",
           needles=("<setting", "<SETTING")),
    _plain("secret_assignment",
           # (not inside a command's substitution: "$(vault kv get ...)" prints nothing here)
           r"(?<!\$\()(?:\bterraform[ \t]+output[ \t]+(?:-raw|-json)[ \t]+"
           r"|\bvault[ \t]+kv[ \t]+get[ \t]+-field=)[\w-]*(?:password|passwd|secret|token|api_key)"
           r"[^\n]*\r?\n([^\s]{6,})",
           v.secret_value_ok,
           prefilter=r"(?:terraform[ \t]+output|vault[ \t]+kv[ \t]+get[ \t]+-field=)[^\r\n]{0,80}"
                     r"(?:passw|secret|token|api_key)",
           needles=("output", "-field=")),
    # A mail client's preference (Thunderbird's user_pref("mail.smtpserver.smtp1.password",
    # "...")).
    _plain("secret_assignment",
           r"(?i)user_pref\(\"[^\"\n]*(?:password|secret|token)[^\"\n]*\",[ \t]*"
           r"\"([^\"\n]{4,})\"\)",
           v.secret_value_ok, prefilter=r"(?i)user_pref\([^\r\n]{0,80}(?:passw|secret|token)",
           needles=("user_pref(",)),
    # Banking messages: an ISO 20022 gateway's debtor id by its type (debtorIdType=NAT_ID
    # debtorId=...), SWIFT MT103's party identification line (6/FR/NIDN/..., CCPT a
    # passport's), Temenos T24's OFS message's password (APP,VERSION/I/PROCESS,USER/PASSWORD,),
    # an ISO 8583 message's PIN block (field 52).
    _plain("national_id",
           r"(?i)idType=(?:NAT_ID|NIDN|NATIONAL_ID|PASSPORT|CCPT|TXID)[ \t,;&]+\w*?Id="
           r"([A-Za-z0-9]{5,20})",
           prefilter=r"(?i)idType=(?:NAT_ID|NIDN|NATIONAL_ID|PASSPORT|CCPT|TXID)",
           needles=("dType=", "DTYPE=", "dtype=")),
    _plain("national_id", r"(?m)^6/[A-Z]{2}/(?:NIDN|CCPT|SOSE|DRLC|TXID)/([^\s/]{5,35})",
           prefilter=r"(?:^|[\r\n])6/[A-Z]{2}/(?:NIDN|CCPT|SOSE|DRLC|TXID)/", needles=("6/",)),
    _plain("secret_assignment",
           r"\bOFS IN :[ \t]*[A-Z][A-Z.]*,[^,\s]*,[^/\s,]+/([^,\s]+),",
           v.secret_value_ok, prefilter=r"OFS IN :[ \t]*[A-Z][A-Z.]*,[^,\r\n]*,[^/\r\n,]+/",
           needles=("OFS IN",)),
    _plain("secret_assignment", r"<field id=\"52\" value=\"([0-9A-Fa-f]{16})\"",
           prefilter=r"<field id=\"52\" value=\"[0-9A-Fa-f]{16}", needles=('id="52"',)),
    # CI's credentials on a command line: signtool's PFX password (sign /f x.pfx /p ...), a
    # registry login's -p="..." (podman, docker, helm), Azure DevOps' PAT in a debug line,
    # Codecov's and Snyk's tokens (UUIDs after -t and auth), Netlify's tokens (nfp_).
    _plain("secret_assignment",
           r"(?i)\bsigntool(?:\.exe)?\"?[ \t]+sign\b[^\n]*?[ \t]/p[ \t]+\"?([^\s\"]{4,})",
           v.secret_value_ok, prefilter=r"(?i)signtool[^\r\n]{0,200}[ \t]/p[ \t]",
           needles=("signtool", "SIGNTOOL", "SignTool")),
    _plain("secret_assignment",
           r"\b(?:docker|podman|buildah|skopeo|helm[ \t]+registry)[ \t]+login\b[^\n|;&]*?[ \t]"
           r"(?:-p|--password)=[\"']?([^\s\"']{4,})",
           v.secret_value_ok,
           prefilter=r"(?:docker|podman|buildah|skopeo|registry)[ \t]+login[^\r\n]{0,200}"
                     r"(?:-p|--password)=",
           needles=("login",)),
    _plain("secret_assignment", r"\bPAT\b[^\n]{0,40}?:[ \t]*([a-z2-7]{52})(?![a-z0-9])",
           prefilter=r"PAT[^\r\n]{0,40}:[ \t]*[a-z2-7]{52}", needles=("PAT",)),
    _plain("secret_assignment",
           r"(?i)\b(?:codecov\b[^\n]*?[ \t]-t|snyk[ \t]+auth)[ \t]+['\"]?"
           r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})",
           prefilter=r"(?i)(?:codecov[^\r\n]{0,200}[ \t]-t|snyk[ \t]+auth)[ \t]+['\"]?[0-9a-f]{8}-",
           needles=("codecov", "snyk", "Codecov", "Snyk")),
    # A code a log says it sent, then names (sending recovery code via sms ... code=528128).
    _plain("secret_assignment",
           r"(?i)(?:recovery|verification|reset|login|one[- ]time|otp)[ \t]+code\b[^\n]{0,80}?"
           r"(?<![\w-])code=(\d{4,8})(?![\d])",
           prefilter=r"(?i)(?:recovery|verification|reset|login|one[- ]time|otp)[ \t]+code"
                     r"[^\r\n]{0,80}code=[0-9]{4}",
           needles=("code=", "CODE="), digits=True),
    # A parcel locker's or a courier's handover code by its key (open_code=, openCode=,
    # handoverCode=) or its word (Dutch "Ophaalcode:", Turkish "Teslim alma şifreniz:"), a
    # Dutch key box's code; an FTP server's log of a client's PASS command.
    _plain("secret_assignment",
           r"(?i)(?<![a-z])(?:open|handover|pickup|pick_up|collect(?:ion)?|unlock|locker)[_-]?code"
           r"\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?(\d{4,8})(?![\d])",
           prefilter=r"(?i)(?:open|handover|pickup|pick_up|collect|unlock|locker)[_-]?code[^\r\n]{0,6}"
                     r"[:=][^\r\n]{0,6}[0-9]{4}",
           needles=("ode", "ODE"), digits=True),
    _plain("secret_assignment",
           r"(?i)(?:ophaalcode|afhaalcode|abholcode|teslim[ \t]+alma[ \t]+şifre(?:niz|si)?"
           r"|sleutelkast(?:je)?[^\n.]{0,40}?code)[ \t]*:?[ \t]*[«\"']?(\d{4,8})(?![\d])",
           prefilter=r"(?i)ophaalcode|afhaalcode|abholcode|teslim[ \t]+alma|sleutelkast",
           needles=("code", "CODE", "eslim", "ESLIM", "leutelkast"), digits=True),
    _plain("secret_assignment", r"\)[ \t]*>[ \t]*PASS[ \t]+(?!\*+(?:\s|$))(\S{4,})",
           prefilter=r"\)[ \t]*>[ \t]*PASS[ \t]+[^ \t\r\n]", needles=("> PASS", ">PASS")),
    # The UK's driving licence number: the surname's five letters, a birth date, initials.
    _plain("national_id",
           r"(?<![A-Za-z0-9])([A-Z9]{5}\d[0156]\d[0-3]\d\d[A-Z9]{2}\d[A-Z]{2})(?![A-Za-z0-9])",
           prefilter=r"[A-Z9]{5}[0-9][0156][0-9][0-3][0-9][0-9][A-Z9]{2}[0-9][A-Z]{2}",
           needles=(), digits=True),
    # Steam Guard's login code in its e-mail, in any language ("Steam Guard コード:\n\n9FKBT").
    _plain("secret_assignment",
           r"Steam[ \t]+Guard[^\n]{0,80}?[:：][ \t]*(?:\r?\n[ \t]*){0,3}([A-Z0-9]{5})"
           r"(?![A-Za-z0-9])",
           prefilter=r"Steam[ \t]+Guard", needles=("Steam Guard",)),
    _plain("national_id", r"<INCOMETAXNUMBER>([A-Za-z0-9]{10})</INCOMETAXNUMBER>",
           lambda value: ids.pan_ok(value.upper()),
           prefilter=r"<INCOMETAXNUMBER>", needles=("<INCOMETAXNUMBER>",)),
    # Held-out corpora of monitoring stacks, smart homes, legal work, tax filing, chat bots
    # and retail (KC to KH) found the rest of this tuple.
    # An IBAN or a card's number broken over two lines, as a letter's or a chat's wrapping
    # leaves it ("IBAN: DE61 5605 6961\n3705 8827 16"): its check read across the break
    # (a JSON string's escaped one too: a document loader's page_content).
    _plain("iban",
           r"(?<![A-Za-z0-9])([A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){0,6}[ \t]*(?:\r?\n|\\n)[ \t]*(?:> ?)?"
           r"(?:[A-Z0-9]{4} ?){0,6}[A-Z0-9]{1,4})(?![A-Za-z0-9])",
           _across_a_break(v.iban_ok),
           prefilter=(r"[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]{4}){0,6}[ \t]*(?:\r?\n|\\n)[ \t]*(?:> ?)?"
                      r"[A-Z0-9]"),
           needles=("\n", "\\n"), digits=True),
    _plain("credit_card",
           r"(?i)(?:card|karte|tarjeta|carte|carta|cart[ãa]o|valid[ \t]+thru)[^\n]{0,80}?"
           r"(?:\r?\n[^\n\d]{0,80}?)?"
           # (the whole number: not a group inside one, nor a date's year on the next line)
           r"(?<![\d])(?<!\d )(\d{4}(?: ?\d{2,6}){0,3}[ \t]*\r?\n[ \t]*(?:> ?)?"
           r"\d{2,6}(?: ?\d{2,6}){0,3})"
           r"(?![\d]|[-/:.T]\d)",
           _across_a_break(v.card_number_ok),
           prefilter=r"(?i)(?:card|karte|tarjeta|carte|carta|cart.o|valid[ \t]+thru)",
           needles=("ard", "ARD", "arte", "ARTE", "arjeta", "ARJETA", "arta", "ARTA", "art",
                    "THRU", "thru", "Thru"),
           checksummed=True, digits=True),
    # A lock's or an alarm panel's user code where home automation holds it: keymaster's code
    # slots (code_slot_1: name="Claire" code="7951"), a service call's data ({"service":
    # "alarm_disarm", ..., "code": "707644"}), an agent's call to a lock ({"entity_id":
    # "lock.front_door", "code": "494883"}).
    _plain("secret_assignment",
           r"(?i)(?:code_slot|alarm_(?:dis)?arm|alarm_control_panel\.|(?<![a-z])lock(?:\.[a-z]"
           r"|_unlock))[^\n]{0,200}?(?<![\w-])code\\*[\"']?[ \t]*[:=][ \t]*\\*[\"'](\d{4,8})"
           r"\\*[\"']",
           prefilter=r"(?i)(?:code_slot|alarm_|lock\.|lock_unlock)[^\r\n]{0,200}code[^\r\n]{0,8}"
                     r"[0-9]{4}",
           needles=("code_slot", "alarm_", "lock.", "lock_"), digits=True),
    # An alarm panel's codes as a handover sheet lists them, one a line ("Master   932786",
    # "User 1 (Emily)   9421", "Duress   6369"), and as German names them ("Mastercode",
    # "Zwangscode (stiller Alarm)", "Notfallcode für Nachbarin: 713734"), a keypad's code
    # ("Bike shed keypad: 7178") and an alarm disarmed with one ("Alarmanlage unscharf
    # schalten mit 3255").
    _plain("secret_assignment",
           r"(?im)^[ \t]*(?:master|duress|engineer|installer|(?:user|benutzer)[ \t]*\d{1,2}[ \t]*"
           r"\([^()\n]{1,40}\))(?:[ \t]*code)?(?:[ \t]*:[ \t]*|[ \t]{2,})(\d{4,8})[ \t]*$",
           prefilter=r"(?i)(?:master|duress|engineer|installer|user|benutzer)[^\r\n]{0,50}"
                     r"(?::|[ \t]{2})[ \t]*[0-9]{4}",
           needles=("aster", "ASTER", "uress", "URESS", "ngineer", "NGINEER", "nstaller",
                    "NSTALLER", "ser", "SER", "enutzer", "ENUTZER"), digits=True),
    _plain("secret_assignment",
           r"(?i)(?<![a-z])(?:(?:notfall|zwangs|errichter|master|benutzer|bedien)code"
           # (the keypad's code in a chat's code span too: "Garage keypad: `7543`")
           r"[^\n\d]{0,60}?|keypad(?:[ \t]+code)?[ \t]*[:=][ \t]*`?|(?:unscharf[ \t]+(?:schalten"
           r"|stellen)|entsch[äa]rfen|disarm(?:ed)?|d[ée]sarmer|desactivar|disattivare)[ \t]+"
           r"(?:mit|with|avec|con)[ \t]+(?:(?:dem|the|le|el|il)[ \t]+)?"
           r"(?:(?:code|pin|c[óo]digo|codice)[ \t]+)?)(\d{4,8})(?![\d])",
           prefilter=r"(?i)(?:notfall|zwangs|errichter|master|benutzer|bedien)code|keypad"
                     r"|unscharf|entsch.rfen|disarm|d.sarmer|desactivar|disattivare",
           needles=("code", "CODE", "eypad", "EYPAD", "scharf", "SCHARF", "ntsch", "NTSCH",
                    "isarm", "ISARM", "sarmer", "SARMER", "esactivar", "isattivare"),
           digits=True),
    # A Z-Wave controller's network keys (Z-Wave JS' securityKeys, "S2_Unauthenticated":
    # hex), a Zigbee stack's trust centre link key seed (zigpy's tclk_seed), a Thread
    # network's active dataset (its network key inside), a Zigbee device's install code.
    _plain("secret_assignment",
           r"(?i)(?<![a-z0-9])(?:S[02]_(?:Unauthenticated|Authenticated|AccessControl|Legacy)"
           r"|tclk_seed)\\*[\"']?[ \t]*[:=][ \t]*\\*[\"']?([0-9a-f]{32})(?![0-9a-f])",
           prefilter=r"(?i)(?:S[02]_[a-z]{6,15}|tclk_seed)[^\r\n]{0,8}[:=][^\r\n]{0,6}[0-9a-f]{32}",
           needles=("S0_", "S2_", "s0_", "s2_", "tclk_seed")),
    _plain("secret_assignment",
           r"(?i)(?<![a-z])(?:active[_-]?)?dataset[_-]?tlvs\\*[\"']?[ \t]*[:=][ \t]*\\*[\"']?"
           r"([0-9a-f]{64,512})(?![0-9a-f])",
           prefilter=r"(?i)dataset[_-]?tlvs[^\r\n]{0,8}[:=][^\r\n]{0,6}[0-9a-f]{64}",
           needles=("tlvs", "TLVS")),
    _plain("secret_assignment",
           r"(?i)install[ _-]?code[ \t]*[:;=][ \t]*\\*[\"']?([0-9a-f]{4}(?:[ \t]?[0-9a-f]{4}){3,8})"
           r"(?![0-9a-f])",
           prefilter=r"(?i)install[ _-]?code[ \t]*[:;=]", needles=("nstall", "NSTALL")),
    # Telegram's API hash (my.telegram.org's api_hash, beside its api_id): an app's secret.
    _plain("secret_assignment",
           r"(?i)(?<![a-z])api[_-]?hash\\*[\"']?[ \t]*[:=][ \t]*\\*[\"']?([0-9a-f]{32})"
           r"(?![0-9a-f])",
           prefilter=r"(?i)api[_-]?hash[^\r\n]{0,8}[:=][^\r\n]{0,6}[0-9a-f]{32}",
           needles=("hash", "HASH")),
    # An authenticator's secret for manual entry ("Chiave TOTP (inserimento manuale): GOV4...",
    # "TOTP-Secret (für neues Handy): XLS3..."): base32.
    _plain("secret_assignment",
           r"(?i)(?:(?:totp|2fa|mfa|otp|authenticator)[^\n:]{0,30}?(?:secret|key|chiave"
           r"|schl[üu]ssel|clave|cl[ée]|geheimnis|seed)|(?:secret|key|chiave|schl[üu]ssel|clave"
           r"|cl[ée]|geheimnis|seed)[ \t_-]+(?:totp|2fa|mfa|otp))[^\n:]{0,40}?:[ \t]*"
           # (in a wiki's backquotes too: "TOTP-Seed (im Tresor, nur zur Not): `FWCY...`")
           # (and in lower case, in groups of four as Google shows it: "imcv dbzt hvbk fjjz ...")
           r"`?((?-i:[A-Z2-7]{4}(?: ?[A-Z2-7]{4}){3,15}|[a-z2-7]{4}(?: [a-z2-7]{4}){3,15}))"
           r"(?![A-Za-z0-9])",
           v.has_digit,
           prefilter=r"(?i)(?:totp|2fa|mfa|otp|authenticator)[^\r\n]{0,80}:[ \t]*`?[A-Z2-7]{4}",
           needles=("otp", "OTP", "2fa", "2FA", "mfa", "MFA", "uthenticator", "UTHENTICATOR")),
    # Mexico's RFC of a person wherever it stands (a download folder's name, a path): its
    # birth date and check digit tell it; a company's has three letters.
    _plain("national_id", r"(?<![A-Za-z0-9\u00d1&])([A-Z\u00d1&]{4}\d{6}[A-Z0-9]{2}[0-9A])"
                          r"(?![A-Za-z0-9])",
           ids.mx_rfc_ok, prefilter=r"[A-Za-z&]{4}[0-9]{6}[A-Z0-9]{2}[0-9A]", needles=(),
           digits=True),
    # US immigration forms' fields as a PDF form's data dump names them
    # (form1[0].#subform[5].Part3Line4_SSN[0]=394221334, ..._AlienNumber[0]=253334409,
    # ..._PassportNumber[0]=FO438572), and NIEM's XML of a person's SSN.
    _plain("us_ssn", r"(?i)[_.]SSN\[\d{1,2}\]=(\d{3}-?\d{2}-?\d{4})(?![\d])", v.ssn_ok,
           prefilter=r"(?i)SSN\[[0-9]{1,2}\]=", needles=("SSN[", "ssn["), digits=True),
    _plain("national_id",
           r"(?i)[_.](?:AlienNumber|A_?Number|PassportNumber|Passport_?No|I94_?Number)"
           r"\[\d{1,2}\]=([A-Z0-9-]{6,12})(?![A-Za-z0-9])", v.has_digit,
           prefilter=r"(?i)(?:AlienNumber|A_?Number|PassportNumber|Passport_?No|I94_?Number)"
                     r"\[[0-9]{1,2}\]=",
           needles=("umber[", "UMBER[", "_No[", "_NO["), digits=True),
    _plain("us_ssn",
           r"SSNIdentification>\s*<(?:[\w-]+:)?IdentificationID>(\d{3}-?\d{2}-?\d{4})<",
           v.ssn_ok, prefilter=r"SSNIdentification>", needles=("SSNIdentification>",),
           digits=True),
    # A Home Assistant webhook's id (the path is the secret: /api/webhook/<id>, its
    # "webhook_id", a Nabu Casa cloudhook's URL).
    _plain("secret_assignment",
           r"(?:/api/webhook/|hooks\.nabu\.casa/)([A-Za-z0-9_-]{16,256})(?![A-Za-z0-9_-])",
           v.has_digit, prefilter=r"/api/webhook/|hooks\.nabu\.casa/",
           needles=("/api/webhook/", "hooks.nabu.casa/")),
    _plain("secret_assignment",
           r"(?i)(?<![a-z])webhook_id\\*[\"']?[ \t]*[:=][ \t]*\\*[\"']?([0-9a-f]{64})(?![0-9a-f])",
           prefilter=r"(?i)webhook_id[^\r\n]{0,8}[:=][^\r\n]{0,6}[0-9a-f]{64}",
           needles=("webhook_id", "WEBHOOK_ID")),
    # A WhatsApp account's number in its JID ("34688710430:33@s.whatsapp.net", the device's
    # number after the colon), and a Cloud API status's recipient.
    _plain("phone", r"(?<![\w.+-])(\d{8,15})(?::\d{1,3})?@(?:s\.whatsapp\.net|c\.us)(?![\w-])",
           v.told_phone_ok, prefilter=r"[0-9]{8}(?::[0-9]{1,3})?@(?:s\.whatsapp\.net|c\.us)",
           needles=("@s.whatsapp.net", "@c.us"), digits=True),
    _plain("phone",
           r"(?i)(?<![a-z])recipient_id\\*[\"']?[ \t]*[:=][ \t]*\\*[\"']?(\+?[1-9]\d{9,14})"
           r"(?![\d])",
           v.told_phone_ok, prefilter=r"(?i)recipient_id[^\r\n]{0,8}[:=][^\r\n]{0,6}[0-9]{10}",
           needles=("recipient_id", "RECIPIENT_ID"), digits=True),
    # Checkmk's automation login (Authorization: Bearer <user> <secret>), a Splunk HEC token
    # under its name (fluentd's hec_token, a UUID), Zabbix's session token answering its
    # user.login call, PACER's login token (nextGenCSO), eBay's cert name (its app's
    # secret), India's e-invoice session key ("Sek"), Brazil's NFC-e CSC token.
    _plain("secret_assignment",
           r"(?i)(?<![\w-])bearer[ \t]+(?:automation|cmkadmin)[ \t]+([A-Za-z0-9]{16,64})"
           r"(?![A-Za-z0-9])",
           prefilter=r"(?i)bearer[ \t]+(?:automation|cmkadmin)[ \t]+[A-Za-z0-9]{16}",
           needles=("earer", "EARER")),
    _plain("secret_assignment",
           r"(?i)(?<![a-z])(?:hec|splunk)[_-]?token\\*[\"']?[ \t]*[:= \t][ \t]*\\*[\"']?"
           r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?![0-9a-f-])",
           prefilter=r"(?i)(?:hec|splunk)[_-]?token[^\r\n]{0,8}[0-9a-f]{8}-",
           needles=("token", "TOKEN", "Token")),
    _plain("secret_assignment",
           r"user\.login[\s\S]{0,400}?\\?\"result\\?\"[ \t]*:[ \t]*\\?\"([0-9a-f]{32,64})\\?\"",
           prefilter=r"user\.login", needles=("user.login",)),
    _plain("secret_assignment",
           r"(?i)\\?[\"']nextGenCSO\\?[\"'][ \t]*:[ \t]*\\?[\"']([A-Za-z0-9+/=_-]{20,})",
           prefilter=r"(?i)nextGenCSO", needles=("nextGenCSO",)),
    _plain("secret_assignment",
           r"(?i)X-EBAY-API-CERT-NAME[ \t]*:[ \t]*([A-Za-z0-9-]{16,64})(?![A-Za-z0-9-])",
           prefilter=r"(?i)X-EBAY-API-CERT-NAME", needles=("CERT-NAME", "cert-name", "Cert-Name")),
    _plain("secret_assignment",
           r"\\?\"(?:Sek|sek|SEK)\\?\"[ \t]*:[ \t]*\\?\"([A-Za-z0-9+/]{40,}={0,2})\\?\"",
           prefilter=r"\"(?:Sek|sek|SEK)\\?\"[ \t]*:", needles=("Sek", "sek", "SEK")),
    _plain("secret_assignment",
           r"\\?\"(?:Csc|CSC|csc)(?:Token)?\\?\"[ \t]*:[ \t]*\\?\"([0-9A-Fa-f-]{16,40})\\?\"",
           prefilter=r"\"(?:Csc|CSC|csc)(?:Token)?\\?\"[ \t]*:", needles=("Csc", "CSC", "csc")),
    # An app's one-time code or access code under its key, digits alone (DocuSign's
    # "accessCode": "765241"), a gift card's number and code (a balance check's
    # {"cardNumber": "6280745424192893666"}, "Gift card code: S4R3 WHUJ ZTD4 NFLK"), a share
    # code (the UK's right to work: "share code: WWIWCNPUB").
    # (and a remote session's join code, ScreenConnect's "join_code": "083299")
    _plain("secret_assignment",
           r"(?i)(?<![a-z])(?:access|join)[_-]?code\\*[\"']?[ \t]*[:=][ \t]*\\*[\"']?"
           r"(\d{4,12})(?![\d])",
           prefilter=r"(?i)(?:access|join)[_-]?code[^\r\n]{0,8}[:=][^\r\n]{0,6}[0-9]{4}",
           needles=("ccess", "CCESS", "join", "Join", "JOIN"), digits=True),
    _plain("secret_assignment",
           # (the key's own name: not a membership card's, membership_card_no=)
           r"(?i)(?<![\w-])(?:gift[_-]?)?card[_-]?(?:number|no|num)\\*[\"']?[ \t]*[:=][ \t]*"
           r"\\*[\"']?(\d{16,19})(?![\d])",
           prefilter=r"(?i)card[_-]?(?:number|no|num)[^\r\n]{0,8}[:=][^\r\n]{0,6}[0-9]{16}",
           needles=("ard", "ARD"), digits=True),
    _plain("secret_assignment",
           r"(?i)gift[ _-]?card[ _-]?(?:code|pin|number)[ \t]*[:=#][ \t]*"
           r"((?-i:[A-Z0-9]{4}(?:[ -]?[A-Z0-9]{4}){2,4}))(?![A-Za-z0-9])", v.has_digit,
           prefilter=r"(?i)gift[ _-]?card[ _-]?(?:code|pin|number)", needles=("ift", "IFT")),
    _plain("secret_assignment",
           r"(?i)(?<![a-z])giftcard[^\n]{0,160}?(?<![\w-])code=((?-i:[A-Z0-9]{12,20}))"
           r"(?![A-Za-z0-9])", v.has_digit,
           prefilter=r"(?i)giftcard[^\r\n]{0,160}code=", needles=("iftcard", "IFTCARD")),
    _plain("secret_assignment",
           r"(?i)share[ \t]+code[ \t]*[:=][ \t]*((?-i:[A-Z0-9]{3} ?[A-Z0-9]{3} ?[A-Z0-9]{3}))"
           r"(?![A-Za-z0-9])",
           prefilter=r"(?i)share[ \t]+code[ \t]*[:=]", needles=("hare", "HARE")),
    # A shop's order key (WooCommerce's wc_order_...) and a password reset link's token
    # (Shopify's /account/reset/<customer>/<token>).
    _plain("secret_assignment", r"(?<![\w-])(wc_order_[A-Za-z0-9]{10,16})(?![A-Za-z0-9])",
           prefilter=r"wc_order_[A-Za-z0-9]{10}", needles=("wc_order_",)),
    _plain("secret_assignment",
           r"/account/reset/\d{6,16}/([0-9a-f]{32}(?:-\d{10})?)(?![\w-])",
           prefilter=r"/account/reset/[0-9]{6}", needles=("/account/reset/",)),
    # A Home Assistant backup's encryption key (seven groups of four, from its emergency
    # kit), an ESPHome device's API encryption key printed on the lines after its name, a
    # Matter device's manual pairing code, a WhatsApp Web session's private key (Baileys'
    # creds.json: {"private": {"type": "Buffer", "data": "<base64>"}}).
    _plain("secret_assignment",
           r"(?<![A-Za-z0-9-])([A-Z0-9]{4}(?:-[A-Z0-9]{4}){6})(?![A-Za-z0-9-])",
           v.has_digit_and_letter, prefilter=r"[A-Z0-9]{4}(?:-[A-Z0-9]{4}){6}", needles=("-",)),
    _plain("secret_assignment",
           r"(?i)encryption[ \t]+key[ \t]*:?[ \t]*(?:\r?\n[ \t]*){1,3}([A-Za-z0-9+/]{43}=)"
           r"(?![A-Za-z0-9+/=])",
           prefilter=r"(?i)encryption[ \t]+key[ \t]*:?[ \t]*\r?\n",
           needles=("ncryption", "NCRYPTION")),
    _plain("secret_assignment",
           r"(?i)pairing[ _-]?code[^\n\d]{0,20}?(?:0x[0-9a-f]{1,4}[ \t]+)?"
           r"(\d{11}|\d{4}-\d{3}-\d{4})(?![\d])",
           prefilter=r"(?i)pairing[ _-]?code", needles=("airing", "AIRING"), digits=True),
    _plain("secret_assignment",
           r"\\?\"private\\?\"[ \t]*:[ \t]*\{[ \t]*\\?\"type\\?\"[ \t]*:[ \t]*\\?\"Buffer\\?\""
           r"[ \t]*,[ \t]*\\?\"data\\?\"[ \t]*:[ \t]*\\?\"([A-Za-z0-9+/]{40,}={0,2})\\?\"",
           prefilter=r"\"private\\?\"[ \t]*:[ \t]*\{[ \t]*\\?\"type", needles=("Buffer",)),
    # A Chinese mobile number right after a Chinese word ("用户 13909731281 的短信验证码").
    _plain("phone",
           "(?:(?<=[\u4e00-\u9fff])|(?<=[\u4e00-\u9fff][ \t]))(1[3-9]\\d{9})(?![\\d])",
           # (its prefilter reads a joiner as the space it is in the joined reading)
           v.told_phone_ok, prefilter=r"a[ \t_-]?1[3-9][0-9]{9}", needles=(), digits=True),
    # A card dump's line (number|MM|YYYY|CVV|...), an FTP session's password after the
    # server asks for it, PyMISP's key by position, a threat-intel service's key told in a
    # prompt, Akismet's key as its API host's name, WordPress' application password (six
    # groups of four), a comment's "# pass:" in an htpasswd file's notes.
    _plain("secret_assignment",
           r"(?<![\d|])\d{13,19}\|(?:0[1-9]|1[0-2])\|(?:20)?\d\d\|(\d{3,4})\|",
           prefilter=r"[0-9]{13}\|[01][0-9]\|[0-9]{2,4}\|[0-9]{3}", needles=("|",), digits=True),
    _plain("secret_assignment",
           r"(?m)^331[ \t][^\n]*\r?\n(?:[^\n]*\r?\n)?PASS[ \t]+(?!\*+(?:\s|$))(\S{4,})",
           prefilter=r"331[ \t][^\r\n]*\r?\n(?:[^\r\n]*\r?\n)?PASS[ \t]", needles=("PASS",)),
    _plain("secret_assignment",
           r"PyMISP\([ \t]*[^,\n]{1,200},[ \t]*['\"]([A-Za-z0-9]{40})['\"]",
           prefilter=r"PyMISP\(", needles=("PyMISP(",)),
    _plain("secret_assignment",
           r"(?i)(?<![a-z])(?:virustotal|shodan|abuseipdb|otx|urlscan|greynoise|hybrid[ -]analysis)"
           r"[ \t_-]*(?:api[ \t_-]*)?key[ \t]*[:=]?[ \t]*[\"'`]?([0-9a-f]{32,64})(?![0-9a-f])",
           prefilter=r"(?i)(?:virustotal|shodan|abuseipdb|otx|urlscan|greynoise|analysis)[^\r\n]{0,12}"
                     r"key",
           needles=("otal", "OTAL", "hodan", "HODAN", "buse", "BUSE", "otx", "OTX", "rlscan",
                    "reynoise", "nalysis")),
    _plain("secret_assignment", r"(?<![\w-])([0-9a-f]{12})\.rest\.akismet\.com",
           prefilter=r"[0-9a-f]{12}\.rest\.akismet\.com", needles=(".rest.akismet.com",)),
    _plain("secret_assignment",
           r"(?i)application[ \t]+password[^\n]{0,40}?[`\"'][ \t]*"
           r"((?-i:[a-zA-Z0-9]{4}(?: [a-zA-Z0-9]{4}){5}))[ \t]*[`\"']",
           prefilter=r"(?i)application[ \t]+password", needles=("pplication", "PPLICATION")),
    _plain("secret_assignment", r"(?m)^#[ \t]*pass(?:word)?:[ \t]+(\S{6,64})[ \t]*$",
           _password_or_passphrase, prefilter=r"#[ \t]*pass(?:word)?:[ \t]", needles=("pass",)),
    # Stripe Connect's person's SSN (individual[id_number]=...), a W-8BEN's foreign TIN in
    # India's PAN shape, Veriff's client key header.
    _plain("us_ssn",
           r"individual\[id_number\]\\?\"?[ \t]*=[ \t]*\\?\"?(\d{3}-?\d{2}-?\d{4})(?![\d])",
           v.ssn_ok, prefilter=r"individual\[id_number\]", needles=("[id_number]",), digits=True),
    _plain("national_id",
           r"(?i)foreign[_-]?tin\\*[\"']?[ \t]*[:=][ \t]*\\*[\"']?((?-i:[A-Z]{5}\d{4}[A-Z]))"
           r"(?![A-Za-z0-9])", ids.pan_ok,
           prefilter=r"(?i)foreign[_-]?tin", needles=("oreign", "OREIGN")),
    _plain("secret_assignment",
           r"(?i)x-auth-client\\*[\"']?[ \t]*[:=][ \t]*\\*[\"']?"
           r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?![0-9a-f-])",
           prefilter=r"(?i)x-auth-client", needles=("auth-client", "AUTH-CLIENT", "Auth-Client")),
    # DigiD's BSN in a SAML attribute (s00000000:<BSN>), a US criminal-justice query's
    # SSN and licence (NCIC's .SOC/ and .OLN/ fields), an SSN with dots after its word, a
    # voter portal's magic login link.
    _plain("national_id", r"(?<![\w])s00000000:(\d{9})(?![\d])", ids.bsn_ok,
           prefilter=r"s00000000:[0-9]{9}", needles=("s00000000:",), digits=True),
    _plain("us_ssn", r"\.SOC/(\d{3}-?\d{2}-?\d{4})(?![\d])", v.ssn_ok,
           prefilter=r"\.SOC/[0-9]{3}", needles=(".SOC/",), digits=True),
    _plain("national_id", r"\.OLN/([A-Z0-9][A-Z0-9-]{5,24})(?=[.\s])", v.has_digit,
           prefilter=r"\.OLN/[A-Z0-9]", needles=(".OLN/",), digits=True),
    _plain("us_ssn",
           r"(?i)(?<![a-z])(?:social|ssn|soc\.?[ \t]*sec\.?)[^\n\d]{0,24}?(?<![\d.])"
           r"(\d{3}\.\d{2}\.\d{4})(?![\d.])", v.ssn_ok,
           prefilter=r"(?i)(?:social|ssn|soc)[^\r\n]{0,30}[0-9]{3}\.[0-9]{2}\.[0-9]{4}",
           needles=("ocial", "OCIAL", "ssn", "SSN", "oc", "OC"), digits=True),
    _plain("secret_assignment", r"/(?:login/)?magic(?:[_-]link)?/([0-9a-f]{32,64})(?![\w-])",
           prefilter=r"/magic(?:[_-]link)?/[0-9a-f]{32}", needles=("/magic",)),
    # Research computing's keys: Dataverse's API key header, a JupyterHub cookie secret from
    # hex, a Medidata RWS connection's password by position, a conda channel's token, an
    # Oracle EZConnect string's password (user/password@//host), a JupyterHub pod's name
    # holding its user's e-mail escaped (jupyter-wei-2ezhang-40qq-2ecom).
    _plain("secret_assignment",
           r"(?i)x-dataverse-key[\"']?[ \t]*[:=][ \t]*[\"']?"
           r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})",
           prefilter=r"(?i)x-dataverse-key", needles=("ataverse", "ATAVERSE")),
    _plain("secret_assignment",
           r"(?i)secret[\w.]*[ \t]*=[ \t]*bytes\.fromhex\([ \t]*['\"]([0-9a-f]{32,})['\"]",
           prefilter=r"(?i)bytes\.fromhex\(", needles=("fromhex(",)),
    _plain("secret_assignment",
           r"RWSConnection\([^,\n]{1,200},[ \t]*['\"][^'\"\n]{1,80}['\"],[ \t]*"
           r"['\"]([^'\"\n]{4,})['\"]",
           prefilter=r"RWSConnection\(", needles=("RWSConnection(",)),
    _plain("secret_assignment", r"anaconda\.org/t/([A-Za-z0-9-]{20,})/",
           prefilter=r"anaconda\.org/t/", needles=("anaconda.org/t/",)),
    _plain("secret_assignment", r"(?<![\w/])[A-Za-z][\w$#]{0,29}/([^\s/@\"']{4,64})@//[\w.-]",
           prefilter=r"/[^ \t\r\n/@]{4,64}@//", needles=("@//",)),
    _plain("email",
           r"(?<![\w-])jupyter-([a-z0-9]+(?:-2e[a-z0-9]+)*-40[a-z0-9]+(?:-2e[a-z0-9]+)*-2e"
           r"[a-z]{2,10})(?![a-z0-9])",
           lambda value: v.email_ok(value.replace("-40", "@").replace("-2e", ".")),
           prefilter=r"jupyter-[a-z0-9-]{1,64}-40[a-z0-9-]{1,64}-2e", needles=("jupyter-",)),
    # Access control and alarm monitoring: a code before what it does ("needs code 1502 to
    # disarm"), an invitation code in prose, a door's user_code, OSDP's secure channel base
    # key, a monitoring centre's password words ("DURESS WORD: RAINCOAT", "Codewort bei
    # Rückruf: KELLER"), a keypad's digits after the word.
    _plain("secret_assignment",
           r"(?i)(?<![a-z])code[ \t]+(\d{4,8})[ \t]+to[ \t]+(?:disarm|arm|open|unlock|enter)"
           r"(?![a-z])",
           prefilter=r"(?i)code[ \t]+[0-9]{4,8}[ \t]+to[ \t]+(?:disarm|arm|open|unlock|enter)",
           needles=("code", "CODE", "Code"), digits=True),
    _plain("secret_assignment",
           r"(?i)invitation[ \t]+code[ \t]*:?[ \t]*((?-i:[A-Z0-9]{4}(?:-[A-Z0-9]{4}){1,3}))"
           r"(?![A-Za-z0-9])", v.has_digit,
           prefilter=r"(?i)invitation[ \t]+code", needles=("nvitation", "NVITATION")),
    _plain("secret_assignment",
           r"(?i)(?<![a-z])user_code\\*[\"']?[ \t]*[:=][ \t]*\\*[\"']?(\d{4,8})(?![\d])",
           prefilter=r"(?i)user_code[^\r\n]{0,8}[:=][^\r\n]{0,6}[0-9]{4}",
           needles=("user_code", "USER_CODE"), digits=True),
    _plain("secret_assignment",
           r"(?i)(?<![a-z])scbk\\*[\"']?[ \t]*[:=][ \t]*\\*[\"']?([0-9a-f]{32})(?![0-9a-f])",
           prefilter=r"(?i)scbk[^\r\n]{0,8}[:=][^\r\n]{0,6}[0-9a-f]{32}", needles=("scbk", "SCBK")),
    _plain("secret_assignment",
           # (not "password": a word of its own, "PASS WORD", or a duress or code word)
           r"(?i)(?:(?:duress|code)[ \t]*word|pass[ \t]+word|codewort)[^:\n\"'=]{0,30}:[ \t]*"
           r"((?-i:[A-Z][A-Za-z]{3,19}))(?![A-Za-z0-9])",
           prefilter=r"(?i)(?:duress|code)[ \t]*word|pass[ \t]+word|codewort",
           needles=("ord", "ORD", "ort", "ORT")),
    _plain("secret_assignment", r"(?i)(?<![a-z])keypad[ \t]+(\d{4,8})(?![\d])(?![ \t]*[a-z])",
           prefilter=r"(?i)keypad[ \t]+[0-9]{4}", needles=("eypad", "EYPAD"), digits=True),
    # Mobile carriers' codes: a device's network unlock code (NCK, "codice di sblocco"), a
    # SIM's PUK1 and CHV1 in an OTA or IVR log, a porting request's telephone number
    # (NANP's tn=) and Mexico's porting NIP, France's RIO, the UK's STAC as a template's key.
    _plain("secret_assignment",
           r"(?i)(?:(?:network[ \t]+)?unlock[ \t]+code(?:[ \t]+\((?:NCK|SPCK)\))?"
           r"|(?<![a-z])(?:nck|spck)"
           r"|codice[ \t]+di[ \t]+sblocco|c[óo]digo[ \t]+de[ \t]+desbloqueo|entsperrcode)"
           r"[^\n\d]{0,40}?(?<![\d])(\d{8,16})(?![\d])",
           prefilter=r"(?i)unlock[ \t]+code|nck|spck|codice[ \t]+di[ \t]+sblocco|desbloqueo"
                     r"|entsperrcode",
           needles=("nlock", "NLOCK", "nck", "NCK", "spck", "SPCK", "sblocco", "desbloqueo",
                    "ntsperrcode"), digits=True),
    _plain("secret_assignment",
           r"(?i)(?<![a-z])(?:puk[12]|chv[12])\\*[\"']?[ \t]*[:=][ \t]*\\*[\"']?(\d{4,8})(?![\d])",
           prefilter=r"(?i)(?:puk[12]|chv[12])[^\r\n]{0,6}[:=][^\r\n]{0,4}[0-9]{4}",
           needles=("puk", "PUK", "chv", "CHV"), digits=True),
    _plain("phone",
           r"(?<![\w.-])tn\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?(\+?1?[2-9]\d{9})(?![\d])",
           v.told_phone_ok, prefilter=r"tn\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?\+?[0-9]{10}",
           needles=("tn=", "tn\"", "tn:"), digits=True),
    _plain("secret_assignment", r"(?<![\w.-])nip=(\d{4})(?![\d])",
           prefilter=r"nip=[0-9]{4}", needles=("nip=",), digits=True),
    _plain("secret_assignment",
           r"(?i)(?<![a-z])(?:code[ \t]+)?RIO(?:[ \t]+(?:est|is|:))?[ \t]*:?[ \t]*"
           r"((?-i:\d{2}[PE][A-Z0-9]{9}))(?![A-Za-z0-9])",
           prefilter=r"(?i)RIO[^\r\n]{0,12}[0-9]{2}[PE][A-Z0-9]{9}", needles=("RIO", "rio")),
    _plain("secret_assignment",
           r"(?i)\\?[\"'](?:pac|stac)\\?[\"'][ \t]*:[ \t]*\\?[\"']"
           r"((?-i:[A-Z]{3}\d{6}|\d{6}[A-Z]{3}))"
           r"\\?[\"']", _not_zeros,
           prefilter=r"(?i)[\"'](?:pac|stac)\\?[\"'][ \t]*:",
           needles=("ac\"", "AC\"", "ac'", "AC'")),
    # A password told after "with" or "using" ("login is ... with password volga_perro5342").
    _plain("secret_assignment",
           r"(?i)(?<![\w-])(?:with|using|use|mit|avec|con|com)[ \t]+(?:(?:the|das|dem|le|la|el|a|o)"
           r"[ \t]+)?(?:password|passwort|passwd|mot[ \t]+de[ \t]+passe|contrase[ñn]a|senha)"
           r"[ \t]+[«\"']?([^\s\"',;<>«»]{6,64})",
           _password_or_passphrase,
           prefilter=r"(?i)(?:with|using|use|mit|avec|con|com)[ \t]+[a-z \t]{0,4}"
                     r"(?:passw|mot[ \t]+de|contrase|senha)",
           needles=("ass", "ASS", "mot", "MOT", "ontrase", "ONTRASE", "enha", "ENHA")),
    )


_NAMED_FIELDS = _named_fields()
_CARD_CODES = (
    _CODE_ANSWERED,
    _d("credit_card",
       # (a card scanner's guess at it too: cvc_candidate="229")
       rf"(?ai)(?<![a-z])(?:{_CARD_CODE_NAMES})(?:_(?:candidate|value|input))?(?![a-z]){_CODE_GAP}"
       # (an XML element's close: <pay:Cvv2>012</pay:Cvv2>)
       # (its quotes escaped, once or thrice: a tool call's arguments inside a message)
       # (Japanese's は, Korean's 는 and 은: "CVC는 190입니다")
       r"[\]\\\"'>]{0,8}[ \t]*(?:[:=]|is\b|は|는|은)?[ \t]*(?:\\*[\"']|\()?(\d{3,4})"
       r"(?![\d.,:/-]?\d)",
       # (not a sandbox's zeros: "any card, CVV 000 → declined")
       _not_zeros,
       prefilter=_CARD_CODE_PREFILTER, group=1, digits=True,
       start=_at_words(("cvc", "cvv", "cvn", "cvd", "cc_cid", "security", "sec", "card", "digit",
                        "code",
                        "c\u00f3digo",
                        "series",
                        "codigo", "pr\u00fcf", "pruf", "kartenpr", "cryptogramme", "codice",
                        "セキュリティコード", "末三", "安全", "ספרות", "קוד", "\u0631\u0645\u0632"),
                       2),  # ("4-digit code": the name starts two characters before "digit")
       joined=_joined_card_code, joined_prefilter=_CARD_CODE_PREFILTER),
    _d("secret_assignment",
       # (Russian's "пин"; a PIN numbered, Smart-ID's "PIN1"; a role's, SupervisorPIN=; a
       # Bluetooth pairing's passkey)
       # (a camel-case key's too: an HSM test's clearPIN=, walletPin)
       r"(?ai)(?:(?<![a-z])|(?<=(?-i:[a-z]))(?-i:(?=PIN|Pin(?![a-z]))))"
       # (not India's postal PIN code: "Delivery address PIN code 427284", "pincode":"457138")
       r"(?<!address )(?<!delivery )(?<!postal )(?<!area )" + _AFTER_AN_INDIAN_STATE +
       r"(?!pincode\\?\"?[ \t]*[:=][ \t]*\\?\"?\d{6}\b)"
       rf"(?:pin[12]?(?:[ _-]?(?:code|number|no|lock))?|pincode|(?:card|atm|sim)[ _-]?pin"
       "|[\u041f\u043f]\u0438\u043d"
       r"|(?:supervisor|refund|admin|operator|master|service)[ _-]?pin|passkey"
       # (an IVR's digits collected for a PIN, "dtmf_collected=\"95507#\""; Hausa's "lambar
       # sirri", a secret number)
       rf"|collect[ _-]pin|puk2?|at\+cpin|{_OPENING_CODES}|dtmf[ _-]?(?:collected|digits|input)"
       # (an ATM extract's PIN block in clear)
       r"|pin[ _-]?block(?:[ _-]?clear)?"
       r"|lambar[ \t]+sirri"
       # (a wallet's MPIN; Korean's 비밀번호 and Bengali's পিন before digits only)
       "|mpin|\ube44\ubc00\ubc88\ud638|\u09aa\u09bf\u09a8)(?![a-z0-9_])" + _CODE_GAP +
       # (Japanese's "は" says "is": "暗証番号は1029です")
       # (and changed to it: "the son changed the lockbox to 4639")
       # (and after a comma: "just use the keypad, 9499")
       r"[\]\\\"')]{0,3}[ \t]*(?:[:=,\uff1a\u2192]|is\b|to\b|ni\b|\u306f)?[ \t]*"
       r"(?:is[ \t]*:[ \t]*)?"
       # (nine digits and more only as a key's value, not a link's query: Fisconline's
       # pin=7996147652, not a dial-in link's ?pin=986878147)
       # (in Markdown's bold too: "keypad: **3872**")
       # (and said one digit at a time: "my pin is 6 1 2 7")
       # (in brackets too: "garage keypad (8126)")
       r"(?:dtmf[ \t]*=[ \t]*)?(?:\\?[\"']|`|\*\*|\u300c|\()?#?(\d{4,8}|(?<==)(?<![?&]pin=)\d{9,12}"
       r"|\d(?: \d){3,5}(?! ?\d))"
       # (not a measure: Vietnamese's "pin" is a battery, "Điện áp pin: 3807 mV")
       r"(?![\d.,:/-]?\d)" + _ELECTRIC_UNITS,
       prefilter=(r"(?i)(?:pin|puk|code|c[ao]digo|kod|dtmf|sirri|aaa|passkey|codice|portail"
                  r"|garaje|combinaz|combinaci|combina.{1,2}o|keypad|disarm|lock[ _-]?box"
                  r"|key[ _-]?(?:box|safe|drop)|sleutel"
                  r"|cijferslot|kluisje|zahlenschloss|ssel(?:kasten|safe|tresor))"
                  r"[^\r\n]{0,48}(?:\d{4}|\d \d \d \d)"),
       group=1,
       digits=True,
       start=_at_words(("pin", "mpin", "puk", "at+cpin", "dtmf", "lambar", "\u043f\u0438\u043d",
                        "passkey",
                        "supervisor", "refund", "admin", "operator", "master", "service",
                        "\ube44\ubc00\ubc88\ud638", "\u09aa\u09bf\u09a8",
                        *_OPENING_CODE_WORDS))),
    # a SIM's PIN given to lock or unlock it (AT+CLCK="SC",0,"1234")
    _d("secret_assignment", r"(?i)at\+clck=\"sc\",[012],\"(\d{4,8})\"",
       prefilter=r"(?i)at\+clck=\"sc\",[012],\"\d{4}", group=1, needles=("AT+", "at+"),
       start=_at_words(("at+clck",))),
)


# An answer to a security question, given after the question's words ("mother's maiden name,
# it's Szymańska", "first pet was Skippy", "memorable word is marmalade", "el nombre de mi
# primera mascota era Lupo"): knowledge that unlocks an account, as a password does. The
# question alone ("what was your first pet's name?") and what is said of it ("memorable word
# reset", "... is required") are not answers.
_T = r"[ \t]+"
# Who answers in a transcript, after the question's "?" ("... maiden name? Customer: X").
_KBA_ANSWERER = r"caller|customer|cust|user|client|cliente|kunde|klant|klient\w*|c"
_KBA_NAMES = (
    rf"(?:mother'?s|mom'?s|mum'?s){_T}maiden{_T}name|maiden{_T}name"
    rf"|(?:name{_T}of{_T}(?:my|your|the){_T})?first{_T}(?:pet|dog|cat|school|car|teacher|boss"
    rf"|employer)(?:'?s{_T}name)?"
    rf"|(?:city|town|place){_T}(?:where{_T})?(?:i|you){_T}(?:was|were){_T}born"
    rf"|(?:city|town|place){_T}of{_T}birth|birth{_T}?(?:place|city)"
    # (a favourite film or food is what a chat is about; a favourite teacher, a question's)
    rf"|favou?rite{_T}teacher"
    rf"|memorable{_T}(?:word|place|name|date|phrase|information|info)"
    # (the question in brackets first: "security answer (first pet): 'Biscuit'", "Security
    # question (first pet) answered 'Mrs Finnegan'")
    # (a note's "Q: City where you met spouse A: Ames", "Security Q1: ...?  A: Beetle", a
    # log's security_a="...")
    # (and the answer's source in brackets: "A (provided by caller): Bella2")
    rf"|(?-i:Q)[1-3]?:[^\n?;]{{3,80}}?(?:\?[ \t]*|[ \t]+)(?-i:A)"
    r"(?:[ \t]*\([^)\n]{1,30}\))?(?=[ \t]*:)"
    rf"|security_a(?:nswer)?(?==)"
    rf"|security{_T}(?:q(?:uestion)?|answer)[1-3]?[ \t]*'[^'\n]{{1,40}}'{_T}answered"
    r"(?=:|[ \t]+['\"])"
    # (a call's note: "Passed on memorable answer (first school) 'Kestrel Road Primary'", a
    # KBA check's log: answer_given="Nonna Rosa")
    rf"|memorable{_T}answer[ \t]*\([^)\n]{{1,40}}\)(?=[ \t]+['\"])"
    # (and with no question: "caller passed security \u2014 memorable answer \"Mr Whiskers\"")
    rf"|memorable{_T}answer(?=[ \t]*[:=]|[ \t]+[\"'\u201c\u00ab])"
    # (and answer_provided=, answer_supplied= as an auth service logs them)
    r"|answer_(?:given|provided|supplied)(?==)"
    # (a profile's security_a1:, a log's q="..." answer="...", a question and its Answer: on
    # one line, Spanish's "pregunta de seguridad (ciudad donde nací) es")
    r"|security_a(?:nswer)?[1-3]?(?=[ \t]*[:=])|(?-i:q)=\"[^\"\n]{3,100}\"[ \t]+answer(?==)"
    rf"|security{_T}question(?:[ \t]*\d)?[ \t]*:[^\n?]{{3,100}}\?[ \t]*answer(?=[ \t]*:)"
    rf"|pregunta{_T}de{_T}seguridad[ \t]*\([^)\n]{{1,40}}\)"
    rf"|security{_T}(?:q(?:uestion)?|answer)[1-3]?[ \t]*\([^)\n]{{1,64}}\)"
    # (a dash before "answered": "They asked the security question (first pet / street) —
    # answered \"Oakridge Elementary\"")
    # (or "answer" before a quoted answer: "security Q (mother's maiden name) answer \"Oak\"")
    rf"(?:(?=[ \t]*[:=])|(?:[ \t]*[\u2014\u2013-])?{_T}answered|(?={_T}is{_T})"
    rf"|{_T}answer(?=[ \t]+[\"'\u201c\u00ab]))"
    # (the question quoted in the brackets, its answer after a colon: "security answer
    # (\"mother maiden name\": Mittens)")
    r"|security[ \t_-]+answer[ \t]*\([ \t]*[\"'][^\"'\n]{1,40}[\"'](?=[ \t]*:)"
    # (a list of answers as a person set them up: "elementary school = Greenfield Primary")
    rf"|(?:elementary|primary|grade){_T}school(?=[ \t]*[:=])"
    # (the question asked in Portuguese or Spanish, the customer's answer on the next line:
    # "...pergunta de segurança (nome do primeiro animal)?\nCliente: Frajola")
    rf"|(?:pergunta{_T}de{_T}seguran[çc]a|pregunta{_T}de{_T}seguridad|security{_T}question)"
    rf"[^\n?]{{0,100}}\?(?=[ \t]*\n[ \t]*(?:{_KBA_ANSWERER})[ \t]*:)"
    rf"|security{_T}question[ \t]*'[^'\n]{{1,40}}'{_T}answer(?=[ \t]+['\"])"
    # (and as a call's note writes it: "Security answer given: 'Bartolina'")
    rf"|(?:security|secret){_T}(?:answer|word|phrase)(?:{_T}(?:given|provided|supplied))?"
    rf"|answer{_T}(?:given|provided|supplied)(?:{_T}by{_T}(?:the{_T})?(?:caller|customer|client"
    rf"|member|tenant|user)|{_T}(?:on|over|by|via){_T}(?:the{_T})?(?:phone|call|chat|e-?mail))?"
    # (and a quoted question, then who answered: "security question 'first pet's name', I
    # answered Rusty")
    rf"|security{_T}question[ \t]*['\"][^\"\n]{{1,40}}?['\"][ \t]*,?"
    rf"(?:{_T}(?:i|we|they|he|she|customer|caller))?{_T}answered"
    # (the question on its line, the answer on the next: "Security question: Name of your
    # first pet?\nAnswer: Kruimel")
    rf"|security{_T}question[^\n]{{0,100}}\n[ \t]*answer(?=[ \t]*:)"
    # (and in French, Dutch, German, Spanish, Portuguese and Italian: "Question secrète : ...?
    # \nRéponse : Snuffie", "Beveiligingsvraag: ...?\nAntwoord: Sint-Truiden")
    rf"|(?:question{_T}secr[èe]te|question{_T}de{_T}s[ée]curit[ée]|beveiligingsvraag"
    rf"|veiligheidsvraag|sicherheitsfrage|pregunta{_T}(?:de{_T}seguridad|secreta)"
    rf"|pergunta{_T}de{_T}seguran[çc]a|domanda{_T}di{_T}sicurezza)[^\n]{{0,100}}\n[ \t]*"
    r"(?:r[ée]ponse|antwoord|antwort|respuesta|resposta|risposta)(?=[ \t]*:)"
    # (the question in brackets, "Security Q (first pet / school): Rex"; a password
    # manager's note, "SecQ pet=Ardbeg; SecQ city=Leuven")

    rf"|(?-i:SecQ|SECQ|secq)[1-3]?(?:{_T}[a-z]{{2,12}})?(?=[ \t]*[:=])"
    rf"|answer{_T}to{_T}(?:(?:my|the|your){_T})?(?:security|secret){_T}question"
    rf"|nombre{_T}de{_T}(?:mi|tu|su){_T}primera{_T}mascota"
    rf"|apellido{_T}de{_T}soltera{_T}de{_T}(?:mi|tu|su){_T}madre"
    rf"|respuesta{_T}(?:a|de){_T}(?:(?:la|mi|tu|su){_T})?pregunta{_T}(?:de{_T}seguridad|secreta)"
    # (a call note's "respuesta de seguridad «Rivera» correcta"; an export's questions as JSON,
    # {"q":"First pet's name","a":"Ms. Patterson"})
    rf"|respuesta{_T}de{_T}seguridad"
    # (Spanish's, Italian's and Portuguese's notes: "respondió la pregunta de seguridad con
    # «Captain»", "domanda di sicurezza superata, risposta \"Biscuit\"", "domanda di sicurezza
    # home banking 'Nome del primo animale domestico' -> Lola", "pergunta de segurança 'Nome do
    # primeiro animal de estimação': Briciola")
    rf"|pregunta{_T}de{_T}seguridad{_T}con(?=[ \t]+[\"'\u00ab\u201c])"
    # (and the answer's own label after the question's, "hat die Sicherheitsfrage beantwortet.
    # Antwort: „Captain“")
    rf"|(?:security{_T}question|sicherheitsfrage|pregunta{_T}de{_T}seguridad"
    rf"|domanda{_T}di{_T}sicurezza|pergunta{_T}de{_T}seguran[çc]a)"
    r"[^\n]{0,60}?(?<![a-z])(?:answer|antwort|respuesta|risposta|resposta)(?=[ \t]*:)"
    rf"|(?:domanda{_T}di{_T}sicurezza|pergunta{_T}de{_T}seguran[çc]a|pregunta{_T}de{_T}seguridad)"
    r"(?:[^\n\"'\u00ab]{0,40}?(?:risposta|resposta|respuesta)(?=[ \t]*[:=]?[ \t]*[\"'\u00ab\u201c])"
    r"|[^\n\"'\u00ab]{0,40}?['\"\u00ab\u201c][^'\"\n\u00bb\u201d]{3,80}['\"\u00bb\u201d]"
    r"(?=[ \t]*(?:->|:|\u2192)))"
    # (and the question on its line, the answer on the next, "Q: Your first car?\nA (as
    # given): blue Civic"; a question of a security question's words, not an FAQ's)
    r"|(?-i:Q)[1-3]?:[^\n?]{0,60}\b(?:first|pets?|car|school|born|city|mother'?s?|maiden"
    r"|street|favou?rite|teacher|nickname)\b[^\n?]{0,60}\?[ \t]*\n[ \t]*(?-i:A)"
    r"(?:[ \t]*\([^)\n]{1,30}\))?(?=[ \t]*:)"
    r"|(?-i:q)\\?\"[ \t]*:[ \t]*\\?\"[^\"\n]{3,100}\\?\"[ \t]*,[ \t]*\\?\"(?-i:a)\\?\"(?=[ \t]*:)"
    rf"|palabra{_T}(?:secreta|memorable)"
    rf"|nom{_T}de{_T}jeune{_T}fille{_T}de{_T}(?:ma|votre|ta){_T}m[èe]re"
    rf"|(?:nom{_T}de{_T})?mon{_T}premier{_T}animal"
    rf"|r[ée]ponse{_T}[àa]{_T}(?:la{_T})?question{_T}(?:secr[èe]te|de{_T}s[ée]curit[ée])"
    rf"|mot{_T}m[ée]morable"
    rf"|m[äa]dchenname{_T}(?:meiner|ihrer|deiner){_T}mutter"
    rf"|(?:name{_T}meines{_T})?ersten{_T}haustiers?"
    rf"|antwort{_T}auf{_T}die{_T}sicherheitsfrage|sicherheitsantwort"
    rf"|meisjesnaam{_T}van{_T}(?:mijn|je|uw){_T}moeder"
    rf"|antwoord{_T}op{_T}de{_T}(?:beveiligingsvraag|veiligheidsvraag)"
    rf"|(?:mijn|je|uw){_T}eerste{_T}huisdier"
    rf"|nazwisko{_T}panie[ńn]skie{_T}(?:matki|mamy)"
    rf"|imi[ęe]{_T}(?:mojego{_T})?pierwszego{_T}(?:zwierz\w*|psa|kota)"
    rf"|odpowied[źz]{_T}na{_T}pytanie{_T}(?:bezpiecze[ńn]stwa|pomocnicze)"
    rf"|cognome{_T}(?:da{_T}nubile|di{_T}nascita){_T}di{_T}(?:mia|tua|sua){_T}madre"
    rf"|nome{_T}del{_T}(?:mio|tuo|suo){_T}primo{_T}animale"
    rf"|risposta{_T}alla{_T}domanda{_T}(?:di{_T}sicurezza|segreta)"
    rf"|nome{_T}de{_T}solteira{_T}da{_T}(?:minha|sua|tua){_T}m[ãa]e"
    rf"|nome{_T}do{_T}(?:meu|seu|teu){_T}primeiro{_T}animal"
    rf"|resposta{_T}[àa]{_T}pergunta{_T}(?:de{_T}seguran[çc]a|secreta)"
    # the abbreviations of an ID&V note ("MMN Drummond", "SQ1 Carlisle / SQ2 Rex")
    rf"|(?-i:MMN)|mother{_T}maiden{_T}name|(?-i:SQ)(?:[1-3]|{_T}answer|(?=[ \t]*[:=]))"
    rf"|security{_T}question{_T}answer|(?:respuesta|risposta|r[ée]ponse|resposta){_T}secret[ae]"
    rf"|parola{_T}segreta|(?:mijn{_T})?geheime{_T}woord|(?:mi{_T})?primera{_T}mascota"
    rf"|nombre{_T}de{_T}soltera{_T}de{_T}(?:mi|tu|su){_T}madre|(?:la{_T}mia{_T})?prima{_T}scuola"
    rf"|(?:mijn{_T})?eerste{_T}school|(?:city|town|place){_T}i{_T}was{_T}born{_T}in"
    rf"|geburtsort|ville{_T}de{_T}naissance|cidade{_T}natal|lieblingslehrer(?:in)?"
    rf"|erstes{_T}auto|street{_T}(?:i|you){_T}grew{_T}up{_T}(?:on|in)"
    rf"|memorable{_T}(?:word|place|date){_T}(?:was|is)?{_T}?(?:set{_T}to|as)")
# The words that say "is" between the question and its answer; a colon, a comma or a dash.
_KBA_IS = (r"(?:it'?s|that'?s|it[ \t]+is|that[ \t]+is|is|was|es|era|c'est|est|[ée]tait|ist"
           r"|war|jest|to|[èeé]|foi|are|were|just|se[ \t]+llamaba|hie(?:ß|ss)|heette"
           r"|si[ \t]+chiamava|se[ \t]+chamava|è[ \t]+stata|era[ \t]+la|was[ \t]+called)")
# First words of what is no answer ("... is required", "was a dog named Rex", "is wrong").
_KBA_NOT = (r"(?:required|needed|missing|wrong|incorrect|correct|invalid|not|set|reset|updated"
            r"|changed|locked|the|a|an|your|my|his|her|their|our|what|which|who|where|when|how"
            r"|optional|mandatory|empty|blank|case|asked|unknown|none|null|same|different|also"
            r"|still|too|please|being|stored|hashed|encrypted|verified|confirmed|accepted"
            r"|rejected|used|no|yes|ok|okay|fine|on|in|at|for|to|of|and|or|but|so|because"
            r"|something|anything|easy|hard|simple|un|une|el|la|le|der|die|das|de|het|een"
            r"|il|lo|o|os|as|uh|um|hmm|er|like|actually|probably|maybe|i|we|you|it|its|this"
            r"|that|there|so|was|is|very|quite|really|all|just|gone|lost|forgotten"
            # (a state, not an answer: "The secret word is hidden from you")
            r"|hidden|shown|private|here|below|above|attached|redacted|masked|see|ask|check"
            # (a form's list of fields after "place of birth", a question's own words)
            r"|occupation|nationality|gender|security|question"
            # (nor the note's next words: "security question (first car): answer given ...")
            r"|answer|answered|answers|respuesta|risposta|resposta"
            # (nor who answered: "...: customer answered \"Vizag\"")
            r"|customer|caller|client|member)")
# What ends an answer of several words ("Van der Berg", "St Mary's primary" go on).
_KBA_THEN = (r"(?:and|but|so|or|if|because|y|et|und|en|e|o|ou|oder|lub|ale|please|thanks|which"
             r"|that|who|when|is|was|it|i|we|you|with|for|not|then|also|to|in|on|at|from|as)")
_KBA_VALUE = r"[^\s,.;:!?\"'()\[\]{}<>=\u00ab\u00bb\u201c\u201d\u201e]"
_KBA_PREFILTER = (r"(?i:maiden|mmn|sq[1-3]?[^a-zA-Z0-9]|secret[ae]|segreta|geheime|mascota|scuola"
                  r"|eerste"
                  r"|born|geburtsort|naissance|natal|lieblingslehrer|erstes|grew"
                  r"|first[ \t]+(?:pet|dog|cat|school|car|teacher|boss|employer)"
                  r"|birth|favou?rite|memorable|(?:security|secret)[ \t]+(?:answer|word|phrase"
                  r"|question|q)|secq|answer[ \t]+(?:given|provided|supplied)|security[ \t]+answer"
                  r"|q[1-3]?:[^\r\n]{3,90}a:|security_a|answer_(?:given|provided|supplied)|answer="
                  r"|q[1-3]?:[^\r\n]{3,90}\?[ \t]*\r?\n[ \t]*a|respuesta[ \t]+de[ \t]+seguridad"
                  r"|q\\?\"[ \t]*:[^\r\n]{3,110}\\?\"a\\?\"[ \t]*:"
                  r"|mascota|soltera|pregunta|palabra"
                  r"|jeune[ \t]+fille|premier[ \t]+animal|question|m.morable|m.+dchenname"
                  r"|haustier|sicherheits|meisjesnaam|(?:beveiligings|veiligheids)vraag"
                  r"|huisdier|panie.+skie|pierwszego|pytanie|nubile|nascita|primo[ \t]+animale"
                  r"|domanda|solteira|primeiro[ \t]+animal|pergunta)")  # (scoped: a gate)
# A code or a PIN named, then what is said of it, then its digits ("meine PIN lautet 6640",
# "mój PIN to 8025", "il codice dell'allarme è 9087", "the PIN for my Revolut card is 4096",
# "la clave de banca telefónica 30815"): up to five words between, none a digit, and a word
# saying "is" (or a colon) before the digits. Not an error's, a status's or a place's code,
# and not a count ("the code is 2048 lines").
_NAMED_CODES = (r"pin|pincode|puk|passcode|geheimzahl|digicode|code|c[óo]digo|codice|kod|kode"
                # (Hungarian's code and "its code": "Riasztó kód: 5226", "ajtó kódja: 80761")
                r"|k\u00f3d(?:ja)?"
                # (a door's code in Swedish: "din portkod denna månad är 2673")
                r"|portkod"
                r"|clave|has[łl]o"
                # (a parcel locker's pickup code: DHL's Abholcode; a delivery's in Arabic)
                r"|abholcode|zustellcode|abhol-?pin"
                r"|\u0631\u0645\u0632[ \t]+\u0627\u0644\u062a\u0633\u0644\u064a\u0645"
                # (Arabic's secret number, a wallet's PIN, "الرقم السري"; Egyptian's and Dari's
                # "كود", code, not a barcode's "باركود")
                r"|\u0627\u0644\u0631\u0642\u0645[ \t]+\u0627\u0644\u0633\u0631\u064a"
                # (nor a discount's, a product's, a postcode's or a shipment's code)
                r"|(?<![\u0600-\u06ff])[\u0643\u06a9]\u0648\u062f(?![ \t]+(?:\u0627\u0644)?"
                r"(?:\u062e\u0635\u0645|\u0645\u0646\u062a\u062c|\u0628\u0631\u064a\u062f"
                r"|\u0634\u062d\u0646))")
_NAMED_CODE_NOT = "".join(rf"(?<!{w}[ _-])" for w in (
    "error", "exit", "status", "response", "return", "http", "zip", "postal", "post", "area",
    # (a payslip's tax code, "Tax code: 1239L"; a Dutch register's activity, "SBI-code: 8691")
    "tax", "sbi",
    # (a French municipality's code, "Code commune INSEE : 33063")
    "commune", "insee",
    "country", "promo", "discount", "voucher", "coupon", "product", "tracking", "booking",
    "reference", "order", "source", "qr", "bar", "reason", "event", "result", "op", "opcode",
    "fault", "trouble", "diagnostic", "color", "colour", "hex", "unicode", "char", "key",
    "short", "dial", "dialling", "dialing", "sort", "swift", "bank", "branch", "iso", "icd",
    "cpt", "hs", "tariff", "airport", "iata", "icao", "station", "language", "currency",
    # a place's or an exam's ("Centre code: 22010412")
    "centre", "center", "exam", "course", "school", "region", "district", "office", "site",
    "store", "agency", "department",
    # a card's (the card code detector's: credit_card)
    "security", "verification",
    # an issuer's answer on a receipt ("APPROVAL CODE: 889509")
    "approval",
    # a school's code for college boards and tests ("CEEB code (high school feeder): 146322")
    "ceeb",
    # a Dutch care provider's AGB code ("AGB-code zorgaanbieder: 98001234")
    "agb",
    # a school's facility code for benefits (the GI Bill's), an access card's site code
    "facility"))
# (after a space, or a colon: the prefilter below looks for the same)
# (and "changed to": "door code ... changed to 58219#"; " = " between spaces, not a log's
# "code=21211")
_CODE_SAYS = (r"(?:[ \t]*:|[ \t]+=(?=[ \t])|[ \t]+(?:changed|set|reset)[ \t]+to"
              r"|[ \t]*,[ \t]*(?:it'?s|it[ \t]+is|which[ \t]+is)"  # ("PIN, it's 9475")
              r"|[ \t]+c'est"  # ("mon code confidentiel c'est 7156")
              # (French says "is the": "Votre code de sécurité ... est le 841979")
              # (and the Slavic languages' "je": "Kod za alarm je 3175", "PIN je 7001")
              r"|[ \t]+(?:is|was|es|est[ \t]+l[ea]|est|ist|lautet|lautete|war|è|é|e|to|jest|je"
              r"|says|said"
              r"|era|foi|are|were|be|will[ \t]+be"
              # (Azerbaijani's "as": "yeni PIN olaraq 5835 qoyduğunu dedi"; Swedish's "is")
              r"|olaraq|\u00e4r))")
# When a code holds from: "ab Montag", "from Monday", "as of today", "now".
_CODE_FROM = (r"(?:(?:ab|seit|from|starting|desde|vanaf|dal|as[ \t]+of)[ \t]+[^\s\d:=,.]{2,12}"
              r"|now|jetzt|nun|ahora|maintenant|nu)")
_CODE_UNITS = (r"(?![ \t]*(?:lines?|ms|seconds?|secs?|s\b|bytes?|[kmg]b|tokens?|rows?|items?|%"
               r"|px|chars?|characters|words|times|users?|requests?|errors?|files?|steps?))")
_NAMED_CODE = (
    # (not India's postal PIN code, "Pincode: 380015", six digits)
    rf"(?ai)(?<![a-z]){_NAMED_CODE_NOT}{_AFTER_AN_INDIAN_STATE}"
    r"(?!pincode\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?[1-9]\d{5}\b)"
    rf"(?:{_NAMED_CODES})(?![a-z0-9])"
    # (nor a customer's number: Italian's "Codice cliente: 83936")
    r"(?:[ \t]+(?!(?:count|pad|pads|length|size|memory|mode|map|mapping|number|numbers|of|in"
    r"|cliente|clienti|destinatario|commune"
    r"|change|review|base|path|block|coverage|owner|owners|style|smell|freeze|generation"
    r"|point|page|name|editor|quality|sample|snippet|example|lines?|postal|post|zip|area"
    r"|country|promo\w*|descuento|r[ée]duction|rabatt|sconto|produit|producto|art[ií]culo"
    # (and a device's identification: "Código de identificação da urna: 6871046")
    r"|article|erreur|error|fehler|errore|erro|retour|de[ \t]+(?:erreur|error|erro|errore"
    r"|identifica\w*)"
    # (a tax's, Brazil's "Código da receita: 0190", an activity's or a product's class)
    r"|receita|tributo|munic[íi]pio|ibge|cnae|ncm|cfop"
    # (France's activity class, "Code NAF/APE : 6820B"; a school's "Code établissement", a
    # ticket's check code, "Kod kontrolny")
    r"|naf|ape|[ée]tablissement|kontrolny)\b)"
    # (or an amount: a 3-D Secure text's "code to approve the 84.20 EUR payment at X is")
    # (or a room's number: "zum Kühlraum 2.114")
    # (or an amount before its currency's sign, "la inversión de 2004 € es", a card's last
    # four, "the pin for the card ending 2934 is", or "3D Secure")
    r"(?:[^\s\d:=]{1,24}|\d{1,7}[.,]\d{2}(?![\d.,])|\d{1,2}\.\d{3}(?![\d.,])"
    r"|\d{1,7}(?=[ \t]?[\u20ac$\u00a3])|(?<=ending[ \t])\d{4}(?![\d.,])|3-?d(?![a-z]))){0,8}?"
    # (a gate's keypad code with its keys: "new contractor code is #3625*")
    # (and when it holds: "der Code ... ist ab Montag 1016", "is from Monday 4471")
    # (and said a digit at a time: "Your Airbnb code is 9 9 0 0 3 2")
    rf"{_CODE_SAYS}(?:[ \t]+{_CODE_FROM})?[ \t]*[\"'(]?#?"
    # (not a driver's error object's number before its name: "code: 8000, codeName: ...")
    r"(\d{4,8}|\d{3} \d{3}|\d(?: \d){3,7})"
    # (nor an id's digits before its letters: "Código de asegurado: 8911216TNEOF002")
    r"(?![\d.,:/-]?\d)(?! \d)(?![ \t]*,[ \t]*codeName)(?![A-Z]{3,}\d)"
    # (nor a card terminal's approval code on its receipt, "Auth code: 154806   RRN: ...")
    r"(?![ \t]+(?-i:RRN|STAN|Batch|BATCH|TID)\b)"
    rf"{_CODE_UNITS}{_ELECTRIC_UNITS}")
# A recovery or backup code, told one at a time ("my recovery code is 7QJX-P2LM-9H4D",
# "Backup code used: 92618374"); a list of them after "Backup codes:" is the detector below.
_ONE_RECOVERY_CODE = (r"(?=[a-z0-9-]*\d)[a-z0-9]{4,6}(?:-[a-z0-9]{4,6}){1,7}|\d{8}"
                      r"|\d{4}[ -]\d{4}"
                      # (letters and digits in one run: "supplied backup code 60703ryncg")
                      r"|(?=[a-z]*\d)(?=\d*[a-z])[a-z0-9]{8,12}")
_AND = r"(?:and|or|und|oder|et|ou|y|o|e|en|i|och|og)"
_RECOVERY_CODE = (
    # (and German's emergency code for a second factor, "Notfallcode: FC4T-NCXA-JL2H")
    r"(?ai)(?<![a-z])(?:recovery|backup|wiederherstellungs|herstel|notfall|rezervn\w*"
    r"|(?:codice|c[óo]digo)[ \t]+de?[ \t]*"
    r"recupera\w*|codice[ \t]+di[ \t]+recupero|code[ \t]+de[ \t]+r[ée]cup[ée]ration)"
    # (not another field of a backup's: backup_card, backup-email)
    # (nor a request's reference: "Your recovery request reference is 3925 5851 ...")
    # (the code a log says was used: "mfa.recovery_code_used": "udze-bm7z")
    r"(?:[ \t_-]*(?:code|key|codes)(?:[_-](?:used|entered|provided|supplied))?)?(?![_-]?[a-z])"
    # (nor a backup tool's snapshot: "backup: restic snapshot be5cafa1 saved")
    r"(?:(?!reference|ticket|case|order|snapshot)[^\n\d]){0,30}?[ \t:=(]"
    r"(?:\[?\\*[\"']?)?"  # (a JSON array's first: "recovery_codes":["...",)
    # (a list of them, to its last: "o07c-8vgj, 3p8k-594v and oydc-jj4m", or the array's)
    # (not a hex number: a logon id after an account "svc_backup", "LID: 0x75c9897")
    rf"(?!0x)((?:{_ONE_RECOVERY_CODE})(?:(?:[ \t]*,[ \t]*(?:{_AND}[ \t]+)?|[ \t]+{_AND}[ \t]+"
    r"|\\*[\"'][ \t]*,[ \t]*\\*[\"']|[ \t]+)"
    rf"(?:{_ONE_RECOVERY_CODE}))*)"
    # (not an address's local part: "backup codes for omar1991+work@web.de")
    r"(?![\w-])(?!@)(?![+.%][\w.+%-]*@)")
_SECURITY_ANSWERS = (
    _d("secret_assignment",
       rf"(?i)(?<![a-z])(?:{_KBA_NAMES})(?![a-z])"
       # (the question quoted or in brackets before the colon: 'Security question "first pet's
       # name": Kettering', "security q (first pet): Chispita")
       r"(?:[\"'\u2019\u201d)]{1,2}(?=[ \t]*[:=]))?"
       # (or an arrow: "First car? \u2192 Fiat Uno")
       rf"(?:[ \t]*(?:->|[:=,\u2013\u2192-]|\?[ \t]*(?:\u2192|->))[ \t]*(?:{_KBA_IS}[ \t]+)?"
       rf"|[ \t]+{_KBA_IS}[ \t]+"
       # a note's "first pet Ziggy", "(Okafor)", a caller's answer after the question
       # (or a quoted answer in lower case: 'answer "blue heeler"')
       r"|[ \t]+(?=(?-i:[\"'\u2018\u201c\u00ab]?[A-Z0-9])|[\"'\u201c\u00ab])"
       r"|[ \t]*\([ \t]*(?:current:[ \t]*)?"
       rf"|\?[ \t]*(?:{_KBA_ANSWERER})[ \t]*:[ \t]*"
       rf"|(?<=\?)[ \t]*\n[ \t]*(?:{_KBA_ANSWERER})[ \t]*:[ \t]*"
       # (the answer's own word after the colon, before its quotes: 'pregunta de seguridad
       # ("...") : respuesta "Firulais"')
       r"|[ \t]*[:=][ \t]*(?:respuesta|answer|r[ée]ponse|resposta|risposta|antwort)[ \t]*[:=]?"
       r"[ \t]*(?=[\"'\u201c\u00ab])"
       # (or who answered: "...(mother's maiden name / first pet): customer answered \"Vizag\"")
       r"|[ \t]*[:=][ \t]*(?:the[ \t]+)?(?:customer|caller|client|member|user)[ \t]+"
       r"(?:answered|replied|said)[ \t]*:?[ \t]*(?=[\"'\u201c\u00ab])"
       # (a ticket's 'answered security question "first pet's name" with "Peanut"', "(first
       # pet's name) with \"Granny Rosa\"")
       "|[\"'\u201d)][ \t]+with[ \t]+(?=[\"'\u201c]))"
       r"(?:(?:a|an|the|ein|eine|la|el|le|de)[ \t]+(?=(?-i:[A-Z])))?"
       r"[\"'\u2018\u201c\u201e\u00ab]?"
       # (a title's dot is part of it: "Mrs. Okafor")
       rf"((?!{_KBA_NOT}(?![^\W_]))(?:(?-i:Mrs?|Ms|Dr|St)\.[ \t](?=(?-i:[A-Z])))?"
       rf"(?:{_KBA_VALUE}['\u2019]{_KBA_VALUE}{{1,20}}"
       rf"|{_KBA_VALUE}{{2,40}}(?:['\u2019]{_KBA_VALUE}{{1,20}})?)"
       # (a middle initial's dot too: "Booker T. Washington")
       rf"(?:[ \t](?:(?-i:[A-Z])\.(?=[ \t](?-i:[A-Z]))"
       rf"|(?!{_KBA_THEN}(?![^\W_])){_KBA_VALUE}{{2,30}}"
       rf"(?:['\u2019]{_KBA_VALUE}{{1,20}})?))"
       r"{0,3})",
       _not_stand_in, prefilter=_KBA_PREFILTER, gate=_KBA_PREFILTER,
       group=1),
    _d("secret_assignment", _NAMED_CODE, v.not_counting_run,
       prefilter=r"(?i)(?:pin|puk|code|c.digo|codice|kod|kode|k.d|clave|has.o|geheimzahl|aaa)"
                 r"[^\r\n]{0,160}(?:[:=]|[ \t]to|[ \t](?:it.s|is|was|es|est(?:[ \t]+l[ea])?|ist"
                 r"|lautet|war|a|c.est"
                 r"|e|to|jest|je"
                 r"|says|said|era|foi|are|were|be|olaraq|ar))"
                 r"(?:[ \t]+(?:(?:ab|seit|from|starting|desde|vanaf|dal|as[ \t]+of)[ \t]+"
                 r"[^\s\d:=,.]{2,12}|now|jetzt|nun|ahora|maintenant|nu))?[ \t]*[\"'(#]?"
                 r"(?:\d{3}|\d \d \d)",
       group=1, digits=True,
       start=_at_words(("pin", "puk", "passcode", "geheimzahl", "code", "c\u00f3digo",
                        "codigo", "codice", "kod", "kode", "k\u00f3d", "clave", "has\u0142o",
                        "haslo",
                        "abhol", "zustell", "\u0631\u0645\u0632", "\u0627\u0644\u0631\u0642\u0645",
                        "\u0643\u0648\u062f", "\u06a9\u0648\u062f"),
                       4)),  # ("digicode": the name starts four characters before its "code")
    # A parcel's pickup, drop-off or locker code, named and then its digits with no verb
    # between, as carriers' messages print them ("Collection code 440863.", "Afhentningskode
    # 87309", "code de dépôt 15279259", "Give the driver code 9475", "Zahlencode 5203").
    _d("secret_assignment",
       r"(?ai)(?<![a-z])(?:(?:collection|pick-?up|drop-?off|locker|parcel|delivery|driver|door"
       r"|gate|alarm|keypad|lockbox)[ \t_-]?code"
       r"|code[ \t]+de[ \t]+(?:d[\u00e9e]p[\u00f4o]t|retrait)"
       # (an alarm's: "Arm alarm: code 70711 then AWAY")
       r"|alarm[ \t]*:[ \t]*code"
       r"|(?:afhentnings|abhol|zahlen|zustell)(?:code|kode)"
       r"|(?:give[ \t]+the[ \t]+driver|pr[\u00e9e]sente[rz][ \t]+(?:le|ce|votre))[ \t]+code)"
       # (a JSON key's quotes too: "dropoff_code":"60262021")
       # (and the keypad's star before it: "Gate code *5768")
       r"(?:\\?[\"'])?[ \t]*[:#=]?[ \t]*(?:\\?[\"'])?\*?(\d{4,8})#?(?![\d.,:/-]?\d)"
       + _CODE_UNITS,
       v.not_counting_run,
       prefilter=r"(?i)(?:code|kode)(?:[ \t]+de[ \t]+(?:d.p.t|retrait))?[^\r\n0-9]{0,8}[0-9]{4}",
       group=1, digits=True, start=_at_words(("code", "kode"), 24)),
    # ... and in Chinese: a courier station's pickup code (取件码, 取货码, 提货码).
    _d("secret_assignment",
       "(?:\u53d6\u4ef6\u7801|\u53d6\u4ef6\u78bc|\u53d6\u8d27\u7801|\u63d0\u8d27\u7801)"
       "[ \t:\uff1a]{0,3}(\\d{4,8})(?!\\d)",
       v.not_counting_run, prefilter=r"aaa[^\r\n0-9]{0,3}[0-9]{4}", group=1, digits=True,
       needles=("\u53d6\u4ef6", "\u53d6\u8d27", "\u63d0\u8d27")),
    # A password line of a mail client's or a tool's config after its user (msmtp's
    # "user j.iyer@...\npassword crjalzsyemcyagxd", fetchmail's, a netrc written a line a key).
    _d("secret_assignment",
       r"(?m)^[ \t]*(?:user|login|account|username)[ \t]+\S+[ \t]*\n(?:[^\n]*\n){0,6}?"
       r"[ \t]*password[ \t]+(\S{6,})[ \t]*$", v.secret_value_ok,
       prefilter=r"(?i)(?:user|login|account)[ \t]+[^ \t\r\n]+[ \t]*\n[^\r]*password[ \t]",
       group=1, needles=("password",)),
    # A password asked about ("Does Fjord-marmelade45@ meet our policy?", "is X a strong
    # password?"): password-shaped, beside the question that names it.
    _d("secret_assignment",
       r"(?i)\b(?:does|would|will|is|can)[ \t]+[\"'`]?([^\s\"'`]{8,64})[\"'`]?[ \t]+"
       r"(?:(?:meet|pass|satisfy|fit)[ \t]+(?:our|the|my|your|this|its)[ \t]+"
       r"(?:password[ \t]+)?(?:policy|requirements|rules)"
       r"|(?:a[ \t]+)?(?:strong|secure|good|safe|valid)[ \t]+(?:enough[ \t]+)?"
       r"(?:password|passphrase))",
       v.password_like,
       prefilter=(r"(?i)(?:does|would|will|is|can)[ \t][^\r\n]{8,70}[ \t]"
                  r"(?:meet|pass|satisfy|fit|strong|secure|good|safe|valid)"),
       group=1, needles=("olicy", "equirements", "ules", "assword", "assphrase")),
    # A password under its name with a remark in parentheses before the colon ("- pwd (told by
    # customer): ...").
    _d("secret_assignment",
       # (the value in backquotes too: a checklist's "Temporary password (...): `X`")
       r"(?i)(?<![\w-])(?:pwd|password|passwort|passwd|pw)[ \t]*\([^()\n]{1,40}\)[ \t]*:[ \t]*`?"
       r"([^\s\"'`,;<>]{6,64})", v.secret_value_ok,
       prefilter=r"(?i)(?:pwd|passw[a-z]*|pw)[ \t]*\([^()\r\n]{1,40}\)[ \t]*:", group=1,
       needles=("(",)),
    # Russia's mobile numbers written 8 9XX XXX-XX-XX, without the area code's parentheses
    # (spaces, "-" and "_" read alike, so the joined reading finds nothing more).
    _d("phone", r"(?<![\w+(.,/-])8[ \t_-]9\d{2}[ \t_-]\d{3}[ \t_-]\d{2}[ \t_-]\d{2}"
       r"(?!\d)(?![ \t_-]\d)",
       prefilter=r"8[ \t_-]9\d{2}[ \t_-]\d{3}[ \t_-]\d{2}[ \t_-]\d{2}", digits=True,
       joined=_nothing_joined,
       joined_prefilter=r"8[ \t_-]9\d{2}[ \t_-]\d{3}[ \t_-]\d{2}[ \t_-]\d{2}"),
    # A password in parentheses after its word ("include the user's password
    # (cobalt-orbit-nimbus-saffron) so ..."), and in Japanese corner brackets
    # ("管理者パスワード「...」").
    _d("secret_assignment",
       r"(?i)\bpassword[ \t]*\(([^()\s]{6,64})\)", v.told_passphrase,
       prefilter=r"(?i)password[ \t]*\([^()\s]{6}", group=1, needles=("assword", "ASSWORD")),
    _d("secret_assignment",
       "\u30d1\u30b9\u30ef\u30fc\u30c9[^\u300c\n]{0,12}\u300c([^\u300d\n]{6,64})\u300d",
       v.secret_value_ok, prefilter="aaaaa[^\r\n]{0,12}~[^\r\n]{6}", group=1,
       needles=("\u30d1\u30b9\u30ef\u30fc\u30c9",)),
    # A PIN mailer's letters and digits spaced out ("Y O U R   P I N :   0 7 9 4").
    _d("secret_assignment", r"(?<![A-Za-z])P[ \t]I[ \t]N[ \t]*:[ \t]*(\d(?: \d){3,7})(?![ \t]?\d)",
       prefilter=r"P[ \t]I[ \t]N[ \t]*:[ \t]*\d \d \d \d", group=1, needles=("P I N",)),
    # A Wi-Fi network's key under its German or English name ("WLAN-Schlüssel: ...").
    _d("secret_assignment",
       r"(?i)(?<![a-z])(?:wlan|wi-?fi|wpa2?|netzwerk)[ _-]?(?:schl[üu]ssel|passwor[dt]|kennwort"
       r"|key|passphrase)[ \t]*[:=][ \t]*([^\s\"',;<>]{8,63})", v.secret_value_ok,
       prefilter=(r"(?i)(?:wlan|wi-?fi|wpa2?|netzwerk)[ _-]?(?:schl(?:a|u|ue)ssel|passwor"
                  r"|kennwort|key|passphrase)[ \t]*[:=]"),
       group=1, needles=("lan", "LAN", "ifi", "IFI", "i-Fi", "i-fi", "pa", "PA", "etzwerk",
                         "ETZWERK")),
    # A password told for what it opens ("the password for the scanning station login (user:
    # scan01) is Juniper#1771juniper", "pw for the CCTV NVR is Capitan_104Qbq").
    _d("secret_assignment",
       # (and a token's, a key's or a client secret's: "the H1 API token for the triage
       # automation is `...`", "The sandbox client secret for the token endpoint is X")
       r"(?i)\b(?:password|pwd?|(?:api[ \t]+)?token|api[ \t]+key|(?:client[ \t]+)?secret)[ \t]+"
       # (or a colon after what it opens, with no bracket between: "pw for router: X")
       # (or what uses it: "API key used by WaveLogGate: X", "API key in Cura plugin: X")
       # (and "for" in German, French, Spanish, Italian and Dutch: "API-Token für Export: X")
       r"(?:for|to|used[ \t]+by|in|f(?:ü|ue)r|pour|para|per|voor)[ \t]+"
       r"(?:[^\n.!?]{1,80}?[ \t]+(?:is|was)[ \t]*:?"
       r"|[^\n.!?:(]{1,80}?[ \t]*:)"
       r"[ \t]+[\"'`]?([^\s\"'`]{6,64}?)[\"'`]?(?=[\s,;)]|[.!?](?:\s|$)|$)",
       v.told_passphrase,
       prefilter=(r"(?i)(?:password|pwd?|token|api[ \t]+key|secret)[ \t]+"
                  r"(?:for|to|used[ \t]+by|in|f(?:.|ue)r|pour|para|per|voor)[ \t]"
                  r"[^\r\n.!?]{1,80}(?:[ \t](?:is|was)[ \t:]|:)"),
       group=1, needles=("assword", "ASSWORD", "pw", "PW", "Pw", "pW", "oken", "OKEN", "key",
                         "KEY", "ecret", "ECRET")),
    # Australia's TFN asked for on its declaration ("What is your tax file number (TFN)?
    # 405 334 791"), by its check.
    _d("national_id",
       r"(?i)tax[ \t]+file[ \t]+number(?:[ \t]*\(tfn\))?[ \t]*\?[ \t]*(\d{3}[ -]?\d{3}[ -]?\d{2,3})"
       r"(?![\d-])", ids.tfn_ok,
       prefilter=r"(?i)tax[ \t]+file[ \t]+number[^\r\n]{0,8}\?[ \t]*\d{3}", group=1,
       needles=("file", "FILE", "File")),
    # A PIN asked for and told in a call's transcript ("can you confirm the PIN? Caller: yes,
    # it's 8640"; a chat's "fill station PIN? -> it's 7214").
    _d("secret_assignment",
       # (or "please?", the answer on the chat's next line: "can I take your account PIN
       # please?\n[10:03] You: 480377")
       r"(?ai)(?<![a-z])(?:pin|pincode|pin[ \t]+code|passcode)(?:[ \t]+please)?\?[ \t]*"
       r"(?:(?:->|\u2192)[ \t]*|\n[ \t]*(?:\[[0-9:]{4,8}\][ \t]*)?(?=[a-z]{1,12}[ \t]*:))?"
       rf"(?:(?:agent|you|{_KBA_ANSWERER})[ \t]*:[ \t]*)?"
       r"(?:(?:yes|yeah|yep|sure|ok|okay)[ \t]*[,.]?[ \t]*)?"
       r"(?:it'?s[ \t]+|it[ \t]+is[ \t]+|that'?s[ \t]+)?(\d{4,8})(?![\d.,:/-]?\d)",
       prefilter=(r"(?i)(?:pin|passcode|pin[ \t]+code)(?:[ \t]+please)?\?[^\r\n]{0,40}"
                  r"(?:\r?\n[^\r\n]{0,40})?\d{4}"),
       group=1,
       needles=("?",), digits=True, start=_at_words(("pin", "passcode"))),
    _d("secret_assignment", _RECOVERY_CODE,
       prefilter=r"(?i)(?:recovery|backup|wiederherstellungs|herstel|recupera|recupero"
                 r"|r.cup.ration|notfall|rezervn)[^\r\n]{0,60}\d",
       group=1, digits=True,
       start=_at_words(("recovery", "backup", "wiederherstellungs", "herstel", "notfall", "codice",
                        "rezervn",
                        "c\u00f3digo",
                        "codigo", "code"))),
)


def _after(literal: str, pattern: str, *, group: int, prefilter: str = "") -> Detector:
    """A secret value found after ``literal``, which every match holds at its start; not a
    name, a reference or a stand-in (:func:`~.validators.secret_value_ok`)."""
    return _d("secret_assignment", pattern, v.secret_value_ok,
              prefilter=prefilter or re.escape(literal), group=group, needles=(literal,),
              start=_at_literal((literal,)))


# A field named for a secret (a form's name="db_password", <smtp_password>, ["secret_key"]),
# and, in the prefilter's syntax, a necessary condition for it.
# (and Authorize.net's <transactionKey>)
_FIELD_SECRET = (r"passw(?:or)?d|pwd|secret|token|api_?key|pre-?shared-?key|passphrase"
                 r"|transaction_?key")
_FIELD_SECRET_PREFILTER = (r"passw|pwd|secret|token|api_?key|pre-?shared-?key|passphrase"
                           r"|transaction_?key")
#: The words before a user@host that is an SSH login, not an address (ssh pi@host, sftp
#: connect feeds@host); the joined pass reads them too (joined.py).
SSH_LOGIN_WORDS = ("ssh", "sftp", "scp", "connect")
_NOT_AN_SSH_LOGIN = "".join(rf"(?<!{word} )" for word in SSH_LOGIN_WORDS)

# Network gear's config lines (see the detector): where one starts, its secrets' keywords
# (Cisco, Junos, FortiOS, EdgeOS, BIRD, keepalived, FreeRADIUS, BIND, Redis, snmpd), the type
# word a value may carry (Cisco's 0/5/7/8/9, FortiOS's ENC, Junos' ascii-text), and the same
# keywords in the prefilter's syntax.
_NET_LINE = (r"(?m)(?:^|(?<=\\n)|(?<=\tcmd=))[ \t]*"
             # (after a device's prompt too: "FGT60F-HQ (to-Branch2) # set psksecret X")
             r"(?:[\w.-]+(?:[ \t]*\([\w.-]{1,40}\))?[ \t]*[#>][ \t]*)?"
             r"(?:set[ \t]+(?:[\w./:-]+[ \t]+)*?)?")
_NET_SECRET_WORDS = (
    r"enable[ \t]+(?:secret|password)(?:[ \t]+level[ \t]+\d+)?"
    r"|username[ \t]+\S+(?:[ \t]+privilege[ \t]+\d+)?[ \t]+(?:secret|password)"
    # (a bare "key" only with its type: "key 7 X"; "key ASN1 method" is prose)
    r"|(?:tacacs|radius)-server[^\n]*?[ \t]key|key-string|key(?=[ \t]+\d[ \t])"
    r"|(?:encrypted-|simple-|plain-?text-|remote_)?password|secret|psksecret|auth_pass"
    r"|requirepass"
    r"|masterauth|(?:snmp-server[ \t]+)?community|(?:ro|rw)community6?"
    r"|authCommunity[ \t]+[a-z,]+|crypto[ \t]+isakmp[ \t]+key"
    r"|(?:ikev[12][ \t]+)?(?:(?:local|remote)-authentication[ \t]+)?pre-shared-key"
    r"(?:[ \t]+(?:local|remote))?|ntp[ \t]+authentication-key[ \t]+\d+[ \t]+md5"
    r"|ip[ \t]+ospf[ \t]+(?:authentication-key|message-digest-key[ \t]+\d+[ \t]+md5)"
    r"|neighbor[ \t]+\S+[ \t]+password|authentication-key|wpa-psk[ \t]+ascii"
    r"|ip[ \t]+nhrp[ \t]+authentication"
    # (an ASA's LDAP bind, EdgeOS' IPsec secret, HSRP's key, a WireGuard key in VyOS' set)
    # (a Huawei's RADIUS key, "radius-server shared-key-cipher simple X")
    r"|radius-server[ \t]+shared-key(?:-cipher)?(?:[ \t]+simple)?"
    r"|ldap-login-password|pre-shared-secret|standby[ \t]+\d+[ \t]+authentication[ \t]+md5"
    r"[ \t]+key-string|private-key")
_NET_TYPE = r"(?:(?:[0-9]|ENC|ascii-text|hex|clear)[ \t]+)?"
_NET_SECRET_PREFILTER = (r"secret|password|key(?:-string|-cipher)?|auth_pass|requirepass|masterauth"
                         r"|community|psk"
                         r"|nhrp[ \t]+authentication"
                         r"|Community[ \t]+[a-z,]+")
_NET_NEEDLES = ("secret", "password", "key", "auth_pass", "requirepass", "masterauth",
                "ommunity", "nhrp", "psk")
# net-snmp's createUser up to its auth passphrase (the privacy one follows the auth protocol's
# value), and RANCID's "add password <router glob>" before its {vty} {enable} passwords.
_CREATE_USER = r"\bcreateUser[ \t]+(?:-e[ \t]+\S+[ \t]+)?\S+[ \t]+(?:MD5|SHA[\w-]*)[ \t]+"
_RANCID_PASSWORD = r"(?m)^[ \t]*add[ \t]+(?:password|spassword)[ \t]+\S+[ \t]+"
# An SNMP command's option that takes a secret (-c community, -A/-X v3 passphrases), and a
# Cisco SNMPv3 user's line up to a keyword.
_SNMP_USER = r"\bsnmp-server[ \t]+user[ \t][^\n]*?[ \t]"
_SNMP_FLAG = r"\bsnmp[a-z]*[ \t][^\n|;&]*?[ \t]-[cAX][ \t]*"


# OTLP/JSON's value object around a string, or around an array of strings (a header's or
# gRPC metadata's values): {"stringValue": "..."}, {"arrayValue": {"values": [{"stringValue":
# "..."}]}}.
_OTLP_VALUE = (r"(?:\{[ \t]*\\?[\"']arrayValue\\?[\"'][ \t]*:[ \t]*\{[ \t]*\\?[\"']values\\?[\"']"
               r"[ \t]*:[ \t]*\[[ \t]*)?"
               r"(?:\{[ \t]*\\?[\"']stringValue\\?[\"'][ \t]*:[ \t]*)?")
# A CLI's verb on a resource: the name of a Kubernetes Secret or a service account follows
# ("kubectl describe secret robot-token-66z81"), not a secret.
_NOT_A_RESOURCE = "".join(rf"(?<!{verb} )" for verb in (
    "get", "describe", "delete", "edit", "patch", "create", "label", "annotate", "proxy-config"))


#: In priority order: when two findings overlap, the one listed first wins.
def _told(then: str, then_prefilter: str, validator: Callable[[str], bool], *, pwd: bool,
          compound: bool = False) -> Detector:
    """A secret told in prose: one of the words for it, then ``then`` (its value in group 1);
    ``then_prefilter`` is ``then`` in the prefilter's syntax. ``compound``: the word may be a
    hyphenated word's second half (German joins words so: "das Webhook-Secret lautet X"; a
    flag's name does not count, "--token"); off where a verb does not follow, since a
    resource's name then reads alike ("notifier-db-password --project=...")."""
    words = ["password", "passwd", "passcode", "api", "access", "secret", "token"] + (
        ["pwd", "pw"] * pwd)
    spoken = "|".join(_TOLD_WORDS.get(w, w) for w in words)
    needles = [n for w in words for n in (_TOLD_NEEDLES[w], _TOLD_NEEDLES[w].upper())]
    before = r"(?<!\w)(?<![^\w]-)(?<!^-)" if compound else r"(?<![\w-])"
    return _d("secret_assignment", rf"(?i){before}{_NOT_A_RESOURCE}(?:{spoken}){then}",
              validator,
              prefilter=rf"(?i)(?:{spoken}){then_prefilter}", group=1, needles=tuple(needles),
              start=_at_literal(tuple(words), fold=True))


# Words for a password and for a phone, in the languages prompts are written in.
# Matched folding ASCII case only ((?ai)): the other scripts' capitals are spelled out.
# English is the other detectors' ("password: X", "the password is X").
# (not the first half of a German compound: "Passwortrichtlinie für unser 8-Personen-Büro")
_PASSWORD_WORDS = ("passwort(?![a-zäöüß]{5})|kennwort(?![a-zäöüß]{5})|"
                   # (a reset's "mot de passe temporaire : X"; Haitian Creole's "modpas")
                   "mot de passe(?: temporaire| provisoire)?|modpas|"
                   "contrase[ñÑn]a|senha|wachtwoord|has[łl]o|"
                   # (Catalan's, Galician's and Basque's)
                   "contrasenya|contrasinal|pasahitza|"
                   "[Пп]ароль|パスワード|密码|密碼|비밀번호|패스워드|비번|पासवर्ड|"
                   "كلمة[ _](?:المرور|السر)|"
                   # (Kurdish's "وشەی نهێنی", Oromo's "jecha icciitii")
                   "\u0648\u0634\u06d5\u06cc \u0646\u0647\u06ce\u0646\u06cc|jecha icciitii|"
                   "[ŞşSs]ifre|"
                   # (a chat's "and pass is X"; a login told as "... is user / X")
                   r"l[öÖ]senord|passord|salasana|heslo|login\b[^\n/]{0,30}? /|"
                   # (an e-mail for the login: "Login gegeben: x@mail.ru / X")
                   r"login\b[^\n/@]{0,20}?[\w.+-]+@[\w.-]+ /|"
                   r"palavra[ -]passe|"
                   r"login\b[^\n/]{0,48}?[ \t]is[ \t]+[^\s/]+[ \t]+/|"
                   r"(?<![a-z])pass(?=[ \t]+(?:is|was)[ \t])|"
                   # Italian says the English word, then "è" ("la password temporanea è X")
                   r"password(?:[ \t]+[a-z-]+){0,6}[ \t]+(?:è|é|e')|"
                   # ("ho cambiato la password in X")
                   r"cambiat[oa][ \t]+(?:la[ \t]+)?password[ \t]+in|"
                   # (French's and Dutch's short words: "mon mdp c'est X", "ww Valtra8R653#")
                   r"(?<![a-z])mdp(?![a-z])|(?<![^\s,;:(])(?-i:ww)(?=[ \t])|"
                   # ... or says what it is now ("ho reimpostato la password ...: ora è X")
                   r"password\b[^\n.!?]{0,40}?[ \t](?:ora|adesso)[ \t]+(?:è|e')|"
                   # Indonesian and Malay: "kata sandi", or the English word ("Password baru
                   # saya: X", my new password)
                   r"kata sandi|kata laluan|password(?:[ \t]+(?:baru|saya|lama|anda|kamu|ko)){1,2}|"
                   # Hungarian, Swahili, Greek, Hebrew, Persian, Arabic, Vietnamese, Bengali,
                   # Tamil, Thai
                   "jelszó|nenosiri|κωδικός|סיסמה|הסיסמה|رمز عبور|الباسورد|باسورد|"
                   "الباسوورد|باسوورد|"
                   # (Persian's and Pashto's, Urdu's: "پسورد د سیستم", "پاس ورڈ")
                   "پسورد|پاسورد|پاس ورڈ|mật[ _]khẩu|"
                   "পাসওয়ার্ড|கடவுச்சொல்|รหัสผ่าน|parola|"
                   # Latvian, Lithuanian, Azerbaijani, Slovenian, Serbian and Croatian (Latin
                   # and Cyrillic), Bulgarian, Estonian, Hungarian's "my password", Georgian
                   # (not Dutch's "gesloten", closed: "melding=DEUR_NIET_GESLOTEN")
                   # (and Azerbaijani's "your password", şifrəniz)
                   r"parole|slapta[žz]od\w*|[Şş]ifr[əe](?:si|niz)|geslo(?!t)|[Šš]ifr[ae]|lozink\w*|"
                   "\u043b\u043e\u0437\u0438\u043d\u043a|[Пп]арола|parool\\w*|jelszav\\w*|"
                   "\u10de\u10d0\u10e0\u10dd\u10da|"
                   # a secret key in Chinese, Japanese and Korean, Thai's "code" (what a shop
                   # calls its login's password: "ใช้รหัส X")
                   # (not a reference's code: "รหัสอ้างอิง", a payment's reference)
                   "密钥|秘钥|シークレット|APIキー|시크릿[ \t]?키|비밀[ \t]?키|รหัส(?!อ้างอิง)|"
                   # a secret key in Arabic and Persian
                   "المفتاح السري|مفتاح سري|کلید مخفی")
_PASSWORD_NEEDLES = ("asswort", "ASSWORT", "mdp", "MDP", "Mdp", "ww", "WW", "Ww", "sandi", "SANDI",
                     "ennwort", "de passe", "ontrase", "ontrasi", "asahitz",
                     "pass is", "pass was", "Pass is", "PASS IS", "alavra",
                     "enha", "achtwoord",
                     "as\u0142o", "aslo", "ароль", "パスワード", "密码", "密碼", "비밀번호",
                     "패스워드",
                     "비번", "पासवर्ड", "كلمة المرور", "كلمة_المرور", "ifre", "ösenord", "assord",
                     "alasana", "كلمة السر", "\u0648\u0634\u06d5\u06cc", "icciitii",
                     "eslo",
                     "ogin", "assword", "ASSWORD", "laluan", "jelsz", "nenosiri", "κωδικός",
                     "סיסמה", "رمز عبور", "باسورد", "باسوورد", "پسورد", "پاسورد", "پاس ورڈ",
                     "modpas", "khẩu", "পাসওয়ার্ড", "கடவுச்சொல்", "รหัสผ่าน",
                     "arola", "密钥", "秘钥", "シークレット", "APIキー", "キー", "시크릿", "비밀",
                     "รหัส", "المفتاح", "مفتاح", "کلید", "arole", "lapta", "ifr", "IFR", "ozink",
                     "OZINK", "\u043e\u0437\u0438\u043d\u043a", "\u0430\u0440\u043e\u043b\u0430",
                     "arool",
                     "\u10de\u10d0\u10e0\u10dd\u10da")
# What a "number is" names when a record's word comes before it: not a phone.
_NOT_A_RECORDS_NUMBER = "".join(rf"(?<!{w} )" for w in (
    "order", "ticket", "tracking", "case", "invoice", "reference", "account", "serial", "part",
    "model", "build", "version", "card", "policy", "claim", "confirmation", "booking",
    "reservation", "member", "customer", "application", "document"))
# Latin words whole ("tel", not "telemetry" or "hotel"; "llame", not "llama").
# (a word starts after a JSON escape too: "...\\nTel. 843-215-389" in a logged prompt)
# (a camelCase key's word starts at its capital: recipientPhone, payerMobile)
_PHONE_WORDS = (r"(?:(?<![a-z])|(?<=\\[nrt])|(?-i:(?<=[a-z])(?=[A-Z])))"
                r"(?:phone|phone_?numbers?|mobile_?(?:phone|number)|wa_?id|contacto|contato|"
                r"contact[áa]vel|denwa|"
                # (not HAL's thesis id, "tel-04612877")
                r"t[eé]l(?![ \t]+aviv)(?!-\d)|"  # (not the city; French's "Tél")
                # (a messenger's number: "Telegram або Viber: (068) 232-66-77")
                r"viber|"
                # (Twilio's WaId: a WhatsApp sender's number; a signature's "Línea directa")
                # (a Spanish telecom's "dar de baja la línea 699 93 41 70")
                r"l[íi]nea(?:[ \t]+directa)?|"
                # ("cellphone 0713672127", a credit bureau's <mobileNo>)
                # (the Balkans' "Mobitel")
                r"mobile?(?:[ _-]?no)?|mobitel|handy|"
                # (and Argentina's "celu"; Indonesia's no_hp; a CDR's A and B parties)
                # (Quechua's "Celularniy", my mobile; Haitian Creole's "telefòn")
                r"celular\w*|cellulare|celu|no[_ ]?hp|[ab]_party|m[óo]vil|portable|smsnr|mobiel|"
                r"telef[òo]n|"
                # (German's number to call and call back: "Rückrufnummer 040 318688")
                r"r[üu]ckrufnummer|rufnummer|"
                # (Brazil's NF-e names it <fone>)
                r"fone|"
                # (not an SMS template's code: TemplateCode=SMS_245883971)
                r"whatsapp|sms(?![_-]?\d)(?!_[a-z])|cell(?:[ _-]?phone)?|msisdn|"
                # (and in Hinglish: "mera number 08014521698 hai", "is number pe call ...")
                r"(?:my|new|cell|mobile|phone|alternate|alternative|mera|mere|meri|apna|is|wrong"
                # (Banglish's "amar number", a fraud note's "caller number")
                r"|registered|amar|caller)"
                r"[ \t]+number|"
                # (Swahili's number and line, not an id's "namba ya kitambulisho"; Hausa's
                # phone number; Darija's "my number")
                # (only "namba ya simu" of its "number of ...": not a loan's, "namba ya mkopo")
                r"namba(?![ \t]+ya[ \t]+(?!simu))|laini|lambar[ \t]+waya|"
                r"num[ée]ro[ \t]+dyal\w*|"
                # "number is 02-365-5762", not an order's or a ticket's number
                + _NOT_A_RECORDS_NUMBER + r"number[ \t]+is|"
                r"nomor(?:[ \t]+hp)?|"
                # Indonesian "HP" (handphone) before a number, "(di)hubungi" (contact);
                # Italian "ricontattare", "contattami" (not "HP: 250", a game's hit points)
                r"(?-i:HP)(?=[ \t]*:|[ \t]+(?:0|\+|[89]\d{3} \d{4}))|(?:di)?hubungi|ricontatt\w*|"
                # Spanish "cel", Nordic "tlf" and "ring meg/mig" (call me)
                r"cel|tlf|tfno|ring[ \t]+m[ei]g|"
                # (and Italian's contacts, "Contatti: 361 4497037 / ...")
                r"contatta(?:mi|rmi|re)|contatti|"
                r"(?:mi|mio|meu|mon|mein|mijn|m[óo]j)(?:[ \t]+[a-z]{3,8})?[ \t]+"
                # (and "nr" for short: Polish's "mój nr 891-371-848")
                r"n(?:[úu]mero|um[ée]ro|ummer|umer|r\.?)|"
                # (Portuguese's "a request to the number", "call me on this number", "called back
                # from the number"; Chile's "fono"; Spanish's "llama desde")
                r"(?:para[ \t]+o|ao|do|nesse|neste)[ \t]+n[úu]mero|fono|llama[ \t]+(?:desde|al)|"
                # (a form's "Emergency contact: Jack Hussain 07536832268"; Dutch's call back,
                # "Terugbellen op 06 - 2449 3098", "Terugbelnummer: 0476 17 90 07")
                r"emergency[ \t]+contact|terugbel(?:len|nummer)|"
                # (Italian's emergency number, "Numero di emergenza assicurazione: 376 ...";
                # a fax's, an NCPDP message's <Fax><Number>; a note's "Contact host: ...")
                r"emergenza|fax(?![ \t]+(?:job|id|ticket|queue))"
                # (Colombia's wallets, keyed by a mobile: "al Nequi 3175954479"; "al" right
                # before a Colombian mobile, "le mandé la plata al 3135823577")
                r"|nequi|daviplata|al(?=[ \t]+3[0-5]\d[ ]?\d{3}[ ]?\d{4}(?!\d))"
                # (Belgium's and Slovenia's GSM, a telco's "Ligne :", a caller "appelé depuis
                # le", Spain's landline column, Catalan's "contactar-me al")
                r"|gsm(?![a-z])|ligne(?=[ \t]*:)|appel[\u00e9e][ \t]+depuis(?:[ \t]+le)?|fijo"
                r"|contactar(?:-me|-nos|me)?|al[ \t]+n[\u00fau]mero"
                # (Nepal's wallets keyed by a mobile: "eSewa ID 9744355714", "Wallet: ...")
                r"|(?:e-?sewa|khalti)[ \t]+id|wallet(?=[ \t]*:)"
                # (Sri Lankan Tamil's "number", இலக்கம்)
                "|\u0b87\u0bb2\u0b95\u0bcd\u0b95\u0bae\u0bcd"
                # (Somali's number, "Lambarkaygu waa", Oromo's phone, "bilbilaa", Kurmanji's
                # number, "jimara", Sorani's mobile and number, Arabic's line, "رقم الخط")
                r"|lambar(?:ka\w*|kay\w*)?(?![a-z])(?![ \t]+waya)|bilbil\w*|jimar[ae]"
                "|\u0645\u06c6\u0628\u0627\u06cc\u0644"
                "|\u0698\u0645\u0627\u0631\u06d5(?=[ \t]?:?[ \t]?[0+\u06f0\u0660])"
                "|\u0631\u0642\u0645 \u0627\u0644\u062e\u0637"
                # (Slovak's "Telefón", Croatian's phone's number, "SIM broj", "s broja" (not
                # a document's, "Broj dokumenta"), Slovenian's, "številka",
                # Hungarian's phone number, "hívószám")
                "|telef[\u00f3o]n\\w*"
                r"|(?:sim|s|sa|moj|novi|mobilni|telefonski)[ \t]+broj(?:a|em|u)?(?![a-z])"
                # (not a company's registration number, "Matična številka")
                "|(?<!mati\u010dna )(?<!maticna )[\u0161s]tevilk\\w*"
                "|h[\u00edi]v[\u00f3o]sz[\u00e1a]m\\w*"
                # (Turkish's "to this number", "my number": numaraya, numaram)
                r"|numaraya"
                # (Hebrew's telephone, mobile and fax: טלפון, נייד, פקס; Tamil's "contact
                # number", தொடர்பு எண்)
                r"|\u05d8\u05dc\u05e4\u05d5\u05df|\u05e0\u05d9\u05d9\u05d3|\u05e4\u05e7\u05e1"
                # (Russian's and Ukrainian's "my number": мой номер, мій номер)
                r"|[\u041c\u043c](?:\u043e\u0439|\u0456\u0439)[ \t]+\u043d\u043e\u043c\u0435\u0440"
                r"|\u0ba4\u0bca\u0b9f\u0bb0\u0bcd\u0baa\u0bc1 \u0b8e\u0ba3\u0bcd"
                # (German's "call me back", "ruf mich zurück unter 040 647135")
                r"|ruf(?:e|en)?[ \t]+(?:mich|uns)|"
                r"rufen[ \t]+sie[ \t]+(?:mich|uns)"
                r"|contact(?:[ \t]+[a-z]{2,10})?(?=[ \t]*:)|"
                # (Dutch's "bereikbaar op", Italian's "Recapito:", Polish's "dzwonić")
                r"bereikbaar(?:[ \t]+op)?|recapito|dzwoni\w*|"
                # (Dutch's "bel me op", "Zoon bellen bij vragen:"; Indonesian's "telp";
                # "Contact No.:")
                r"bel(?:len)?(?=[ \t]+(?:me|mij|ons|op|bij|naar|gerust|even|[0+(]))|telp"
                r"|contact[ \t]+no\.?|"
                # French and Portuguese verbs for calling ("m'appeler au", "me joindre au",
                # "pode me ligar no"); "ring" only before a number ("should ring (03) ...")
                # (and a French secretariat "joignable au 04.91.94.31.72")
                r"(?:r?appel(?:er|ez|le|lez)|joindre|joignable|contacte[rz](?:-moi|-nous)?|ligar"
                r"|ligamos)"
                r"|ring(?=[ \t]+[(+0-9])|"
                r"kontakt\w*|pod[ \t]+numerem|"
                r"t[ée]l[ée]?(?:f|ph)on\w*(?:[ \t]+[1-3](?=[ \t]*:))?|tlm|telem[óo]vel"
                r"|llam(?:ar|e|ame)\w*|llamada|llámame|"
                r"ligue(?:m(?:-me)?)?|zadzwo\w*|"
                r"(?:ri)?chiam(?:a|ami|are|ar[mtc][ei]|ate|atemi|at[oai])|richiamo"
                # Vietnamese's SĐT (số điện thoại), a caller's "called from"
                r"|s[đĐd]t|called[ \t]+(?:from|on)|calling[ \t]+from)(?![a-z])|"
                "電話|电话|手机|手機|携帯|連絡先|联系方式|연락처|전화|फ़ोन|फोन|هاتف|[Тт]елефон|[Тт]ел\\.|[Зз]вон|"
                "휴대폰|핸드폰|"
                # Bengali's number (নম্বর, নাম্বার)
                "\u09a8\u09ae\u09cd\u09ac\u09b0|\u09a8\u09be\u09ae\u09cd\u09ac\u09be\u09b0|"
                r"(?<![a-z])(?:call|ring|text)[ \t]+me(?![a-z])|"
                # Hindi, Arabic, Persian, Swahili, Swiss German, Tamil
                "नंबर|मोबाइल|व्हाट्सऐप|جوال|موبايل|شماره (?:من|تلفن|موبایل|همراه|تماس)|تلفن|"
                # (Persian's and Dari's mobile, Pashto's telephone and its number, "شمېره مې")
                "موبایل|تلیفون|\u0634\u0645\u06d0\u0631\u0647(?:[ \t]+\u0645\u06d0)?"
                "(?=[ \t]?:?[ \t]?[0+\u06f0\u0660])|"
                # (Russian's mobile, a log's "тел=", Kaspi's "перевод по номеру")
                "[\u041c\u043c]\u043e\u0431\u0438\u043b\u044c\u043d\\w*|\u0442\u0435\u043b(?==)|"
                "\u043f\u043e[ \t]+\u043d\u043e\u043c\u0435\u0440\u0443|"
                # (Persian's number right before its digits: "برای شماره ۰۹۰۱۰۹۷۹۵۸۷")
                # (its digits open with a zero or "+": "سفارش شما با شماره ۳۵۲۴۴۴۸۶۸" is an
                # order's number)
                "\u0634\u0645\u0627\u0631\u0647(?=[ \t]?:?[ \t]?[0+\u06f0\u0660])|"
                # (Kurdish's telephone; Arabic's wallet and a transfer's alias, before a
                # mobile's digits: "المحفظة: 0782503051", "الاسم المستعار: 0787438749")
                "\u062a\u06d5\u0644\u06d5\u0641\u06c6\u0646|"
                "(?:\u0627\u0644\u0645\u062d\u0641\u0638\u0629|\u0627\u0644\u0627\u0633\u0645"
                " \u0627\u0644\u0645\u0633\u062a\u0639\u0627\u0631)(?=[ \t]?:?[ \t]?0[5-9])|"
                r"(?<![a-z])simu(?![a-z])|natel\w*|தொலைபேசி|"
                # Tamil's and Bengali's "mobile", Sinhala's "telephone" and "mobile"
                "மொபைல்|মোবাইল|දුරකථන|ජංගම|"
                # Chinese's "call" (致电, 致電)
                "\u81f4\u7535|\u81f4\u96fb|"
                # Arabic's "my number", Amharic's phone (ስልክ)
                # (a word of its own, or after "and": not "الرقمية", digital)
                "(?:(?<![\u0600-\u06ff])|(?<=\u0648))\u0631\u0642\u0645\u064a(?![\u0600-\u06ff])|"
                "\u1235\u120d\u12ad|"
                # Greek's telephone and mobile (Τηλέφωνο, κινητό, and "τηλ." for short)
                "[\u03a4\u03c4]\u03b7\u03bb(?:\u03ad\u03c6\u03c9\u03bd\u03bf|\\.)"
                "|[\u039a\u03ba]\u03b9\u03bd\u03b7\u03c4\u03cc|"
                # (Macedonian's, Bulgarian's and Serbian's "contact me": контактирајте,
                # контактирайте)
                "[\u041a\u043a]\u043e\u043d\u0442\u0430\u043a\u0442\\w*|"
                # Thai: "เบอร์" (a number), "โทร" (to call)
                "เบอร์|โทร|"
                # Armenian: "հեռ." and "հեռախոս" (telephone)
                "[\u0540\u0570]\u0565\u057c(?:\u0561\u056d\u0578\u057d)?")
_PHONE_NEEDLES = ("hone", "HONE", "bel", "Bel", "BEL", " me", " ME", "elu", "ELU", "_hp", "_HP",
                  "ohp", "OHP",
                  "_party", "_PARTY", "wa_id", "WaId", "waId", "waid", "WAID",
                  "sdt", "SDT", "s\u0111t", "S\u0110T", "S\u0111t", "alled", "alling",
                  "\u09a8\u09ae\u09cd\u09ac\u09b0", "\u09a8\u09be\u09ae\u09cd\u09ac\u09be\u09b0",
                  "nea directa", "NEA DIRECTA", "ontact", "ONTACT", "ontakt",
                  "ONTAKT", "umerem", "UMEREM", "नंबर", "मोबाइल", "व्हाट्सऐप",
                  "جوال", "موبايل", "شماره", "موبایل", "تلیفون", "\u0634\u0645\u06d0\u0631\u0647",
                  "\u062a\u06d5\u0644\u06d5\u0641\u06c6\u0646",
                  "\u0627\u0644\u0645\u062d\u0641\u0638\u0629",
                  "\u0627\u0644\u0645\u0633\u062a\u0639\u0627\u0631",
                  "\u043e\u0431\u0438\u043b\u044c\u043d", "\u0442\u0435\u043b=",
                  "\u043d\u043e\u043c\u0435\u0440\u0443", "மொபைல்", "মোবাইল", "දුරකථන", "ජංගම",
                  "ηλέφωνο", "ηλ.", "ινητό", "онтакт", "amba", "AMBA", "aini", "AINI", "waya",
                  "\u05d8\u05dc\u05e4\u05d5\u05df", "\u05e0\u05d9\u05d9\u05d3",
                  "\u05e4\u05e7\u05e1", "\u0ba4\u0bca\u0b9f\u0bb0\u0bcd\u0baa\u0bc1",
                  "\u0439 \u043d\u043e\u043c\u0435\u0440",
                  "WAYA", "dyal",
                  "\u0631\u0642\u0645\u064a", "\u1235\u120d\u12ad", "wrong", "denwa",
                  "\u81f4\u7535", "\u81f4\u96fb",
                  "تلفن", "simu", "atel", "தொலைபேசி", "sisdn", "SISDN", "umber", "UMBER", "úmero",
                  "omor", "ell", "ел.", "ellulare", "tel", "TEL",
                  "Tel", "andy", "obil", "OBIL", "elular", "óvil",
                  "ovil", "ortable", "lam", "hiam", "fono", "FONO", "mergency", "MERGENCY",
                  "igue", "adzwo", "sms", "SMS", "hatsapp",
                  "ppel", "oindre", "oignable", "igar", "igamos", "uméro", "UMÉRO",
                  "電話", "携帯", "tlm", "Tlm", "TLM", "連絡先", "联系方式",
                  "电话", "手机", "手機", "연락처", "전화", "फ़ोन", "फोन", "هاتف", "елефон", "вон",
                  "휴대폰", "핸드폰", "HP", "hubungi", "ontatt", "lternat", "cel", "Cel", "CEL",
                  "ummer", "umer", "UMER", "ereikbaar", "ecapito", "ECAPITO", "dzwo", "obiel",
                  "OBIEL",
                  "tlf", "Tlf", "TLF", "tfno", "Tfno", "TFNO",
                  "\u0e40\u0e1a\u0e2d\u0e23\u0e4c", "\u0e42\u0e17\u0e23",
                  "obitel", "OBITEL", "\u0565\u057c",
                 "call", "ring", "text", "T\u00e9l", "t\u00e9l", "T\u00c9L", "iber", "IBER",
                 " nr", " Nr", " NR", "mergenz", "fax", "Fax", "FAX", "uf mich", "uf uns",
                 "ufe mich", "ufe uns", "ufen mich", "ufen uns", "ufen Sie", "ufen sie",
                 "equi", "EQUI", "aviplata", "AVIPLATA", "al 3", "umaray", "gsm", "GSM", "Gsm",
                  "igne", "IGNE", "depuis", "fijo", "FIJO", "Fijo", "amar", "Amar", "aller",
                  "broj", "Broj", "BROJ", "allet", "ALLET", "ambar", "AMBAR", "ilbil", "imar",
                  "\u0645\u06c6\u0628\u0627\u06cc\u0644", "\u0698\u0645\u0627\u0631\u06d5",
                  "\u0631\u0642\u0645 \u0627\u0644\u062e\u0637", "sewa", "SEWA", "halti", "HALTI",
                  "\u0b87\u0bb2\u0b95\u0bcd\u0b95\u0bae\u0bcd", "tevilk", "TEVILK",
                  "v\u00f3sz\u00e1m", "voszam",
                  "V\u00d3SZ\u00c1M")
# Words for calling that come after the number (Hindi, Japanese, Chinese, Korean, Spanish).
_CALL_AFTER_NEEDLES = ("कॉल", "फ़ोन", "फोन", "電話", "电话", "전화", "연락", "llámame", "llámeme",
                       "llamame")
_CALL_AFTER = "|".join(_CALL_AFTER_NEEDLES)
# the words' letters read as "a", and Spanish's "llámame"
_CALL_AFTER_PREFILTER = r"\d{2}[ .-]?\d[^\r\n]{0,40}(?:aa|llam[ae]me)"
# Words for a one-time code. Matched folding ASCII case only ((?ai)).
_OTP_WORDS = (r"(?:got|received)[ \t]+(?:the|a|my)[ \t]+code(?=[ \t]+\d{6}[ \t]+(?:by|via|in)[ \t]+"
              r"(?:sms|text|whatsapp|e-?mail))|"  # ("I just got the code 071319 by SMS")
              # ("a text with code 851774 that I didn't ask for")
              r"code(?=[ \t]+\d{6}[ \t]+(?:that|which)[ \t]+i[ \t]+(?:didn'?t|did[ \t]+not|never)"
              r"[ \t]+(?:ask|request))|"
              # (Spanish's and Portuguese's "me llegó el código 771273", "recebi o código")
              r"(?:lleg[óo]|recib[íi]|recebi|chegou)[ \t]+(?:el|o|un|um)[ \t]+c[óo]digo|"
              # (and "me ha llegado el 695967"; an SMS's "use o codigo 504529 para confirmar")
              r"ha[ \t]+llegado[ \t]+(?:el|un)(?:[ \t]+c[óo]digo)?(?=[ \t]+\d)|"
              r"(?:use|usa|utilize|digite|informe|ingresa|introduce)[ \t]+(?:o|el|este|esse)[ \t]+"
              r"c[óo]digo|"
              # (a code and how it came or how long it holds: "den Code 927858 per SMS",
              # "Code 181441 — valid 5 min")
              r"code(?=[ \t]+\d{6}(?:[ \t]+(?:by|via|per|par|por)[ \t]+(?:sms|text|whatsapp"
              r"|e-?mail)|[ \t]*[,\u2014\u2013-][ \t]*(?:valid|expires|g\u00fcltig|v\u00e1lido"
              r"|valable)))|"
              "(?:verification|security|login|one[- ]time|2fa|otp|access|confirmation|sms)"
              # (not a metric's name: "otp_sent_total{channel=\"sms\"} 8181279")
              r"[ \t]+(?:code|pin)|(?<![a-z])otp(?![a-z])(?!\w*\{)|(?:your|the)[ \t]+code[ \t]+is|"
              r"the[ \t]+code[ \t]+(?:you|we)[ \t]+(?:just[ \t]+)?(?:sent|texted|emailed)|"
              r"code[ \t]+re[çc]u|code[ \t]+de[ \t]+(?:v[ée]rification|confirmation)|"
              r"c[óo]digo[ \t]+de[ \t]+(?:verificaci[óo]n|verifica[çc][ãa]o|acesso|acceso|"
              r"confirmaci[óo]n|confirma[çc][ãa]o|seguridad|seguran[çc]a)|bestätigungscode|"
              r"verifizierungscode|sicherheitscode|verifieringskod|verificatiecode|inlogcode|"
              r"einmal-?(?:passwort|kennwort|code)|"
              r"kod[ \t]+weryfikacyjny|doğrulama[ \t]+kod\w*|kode[ \t]+(?:otp|verifikasi)|"
              r"(?:tuo[ \t]+)?codice(?:[ \t]+di[ \t]+verifica)?(?=[ \t]+[èe:])|"
              r"mã[ \t]+xác[ \t]+(?:thực|nhận)|[Кк]од[ \t]+подтверждения|验证码|驗證碼|"
              "認証コード|確認コード|인증번호|رمز التحقق|الرمز|"
              # more languages: a code's word with six digits after it
              r"kód|(?<![a-z])tan(?![a-z])|msimbo|[Κκ]ωδικός|(?<![\u05d0-\u05ea])קוד|[Кк]од|"
              # (not a ticket's check code, Polish's "Kod kontrolny")
              r"c[óo]digo[ \t]+es|kod(?![ \t]+kontroln)|ověřovací|"
              # (Hungarian's one-time password, a numeric password told as a code)
              r"jelszav\w*|jelsz[óo]|[Пп]ароль|"
              # (Persian's code, not a trip's, a postcode, a national code, a tracking or an
              # order's number, a discount's, a university course's, "کد درس")
              "\u06a9\u062f(?![ \t]+(?:\u0633\u0641\u0631|\u067e\u0633\u062a\u06cc"
              "|\u0645\u0644\u06cc|\u062f\u0631\u0633"
              "|\u0631\u0647\u06af\u06cc\u0631\u06cc|\u067e\u06cc\u06af\u06cc\u0631\u06cc"
              "|\u062a\u062e\u0641\u06cc\u0641|\u0633\u0641\u0627\u0631\u0634))"
              r"|codul|vahvistuskoodi|kirjautumiskoodi\w*|ওটিপি")
_OTP_NEEDLES = ("ode", "ODE", "otp", "OTP", "Otp", "ódigo", "odice", "kod", "Kod", "xác", "код",
                "jelsz", "ароль",
                "Код", "验证码", "驗證碼", "コード", "인증번호", "رمز", "kód", "Kód", "TAN", "tan",
                "simbo", "κωδικός", "Κωδικός", "קוד", "Ově", "ově", "کد", "odul", "koodi", "ওটিপি",
                "inmal",
                "INMAL", "llegado")
# A company's registry codes a "код" names (Ukraine's ЄДРПОУ, Russia's ИНН, ОГРН, КПП, ОКПО,
# a bank's БИК and МФО): public numbers, not one-time codes.
_COMPANY_CODES = ("\u0404\u0414\u0420\u041f\u041e\u0423|\u0415\u0414\u0420\u041f\u041e\u0423"
                  "|\u041e\u041a\u041f\u041e|\u0418\u041d\u041d|\u041a\u041f\u041f"
                  "|\u041e\u0413\u0420\u041d|\u0411\u0418\u041a|\u041c\u0424\u041e"
                  # (Ukrainian's income classification code, a bank's code)
                  "|\u043a\u043b\u0430\u0441\u0438\u0444\u0456\u043a\u0430\u0446\u0456\u0457"
                  "|\u0431\u0430\u043d\u043a\u0443"
                  # (a payment system's service code, ЕРИП's "Код услуги")
                  "|\u0443\u0441\u043b\u0443\u0433\u0438"
                  # (and a card payment's approval code on a receipt, "Код авторизации")
                  "|\u0430\u0432\u0442\u043e\u0440\u0438\u0437\u0430\u0446\u0438\u0438")
# What every match holds, ASCII letters lowered, at most five characters in.
_OTP_STARTS = ("verif", "secur", "login", "one t", "one-t", "2fa", "otp", "acces", "confi", "sms",
               "code", "digo", "best", "siche", "kod", "codic", "tuo c", "rulama", "xác", "код",
               "Код", "验证码", "驗證碼", "認証コード", "確認コード", "인증번호", "رمز", "kód",
               "tan", "msimb", "κωδικός", "קוד", "ově", "کد", "codul", "vahvi",
               "kirja", "ওটিপি", "jelsz",
               "ароль", "einma", "got t", "got a", "got m", "recei", "lleg", "recib", "receb",
               "chego", "ha ll", "use o", "usa e", "utili", "digit", "infor", "ingre", "intro")
# A word for it, then six digits within reach (most lines with "code" hold none).
# A one-time code's phrases in Persian (login and verification codes, a one-time password),
# Arabic (an activation code), Urdu (a verification code), Hindi and Nepali, Bengali, Hebrew
# (a one-time password, a verification code) and Japanese (a one-time password).
_OTP_PHRASES_OF_SCRIPTS = (
    "\u06a9\u062f \u0648\u0631\u0648\u062f", "\u06a9\u062f \u062a\u0627\u06cc\u06cc\u062f",
    # (and in Sorani Kurdish, "کۆدی پشتڕاستکردنەوە")
    "\u06a9\u06c6\u062f\u06cc \u067e\u0634\u062a",
    # (and in Dari, "کود تایید")
    "\u06a9\u0648\u062f \u062a\u0627\u06cc\u06cc\u062f",
    "\u06a9\u062f \u062a\u0623\u06cc\u06cc\u062f",
    "\u0631\u0645\u0632 \u06cc\u06a9\u0628\u0627\u0631 \u0645\u0635\u0631\u0641",
    "\u0643\u0648\u062f \u0627\u0644\u062a\u0641\u0639\u064a\u0644",
    "\u0631\u0645\u0632 \u0627\u0644\u062a\u0641\u0639\u064a\u0644",
    "\u062a\u0635\u062f\u06cc\u0642\u06cc \u06a9\u0648\u0688",
    "\u092a\u094d\u0930\u092e\u093e\u0923\u0940\u0915\u0930\u0923 \u0915\u094b\u0921",
    "\u0938\u0924\u094d\u092f\u093e\u092a\u0928 \u0915\u094b\u0921",
    "\u09ad\u09c7\u09b0\u09bf\u09ab\u09bf\u0995\u09c7\u09b6\u09a8 \u0995\u09cb\u09a1",
    "\u05e1\u05d9\u05e1\u05de\u05d4 \u05d7\u05d3 \u05e4\u05e2\u05de\u05d9\u05ea",
    "\u05e7\u05d5\u05d3 \u05d0\u05d9\u05de\u05d5\u05ea",
    "\u30ef\u30f3\u30bf\u30a4\u30e0\u30d1\u30b9\u30ef\u30fc\u30c9")
_OTP_PREFILTER = (r"(?i)(?:code|codic|otp|c[ao]digo|kod|k[a]d|x[a]c|aa|rulama|tan|msimbo|ov[a]|"
                  r"codul|koodi|jelsz|einmal|ha[ \t]+llegado)[^\r\n]{0,80}\d{3} ?\d{3}")
# What every match holds, its ASCII letters lowered (_at_words), at most 2 characters in.
_PASSWORD_STARTS = ("asswort", "ennwort", "mot de passe", "ontrase", "ontrasi", "asahitz", "enha",
                    "achtwoord", "asło",
                    "pass", "palavra",
                    "aslo", "ароль", "パスワード", "密码", "密碼", "비밀번호", "패스워드", "비번",
                    "पासवर्ड",
                    "كلمة المرور", "كلمة_المرور", "ifre", "senord", "assord", "alasana", "eslo",
                    "كلمة السر", "\u0648\u0634\u06d5\u06cc", "jecha icciitii",
                    "ogin",
                    "assword", "kata", "jelsz", "nenosiri", "κωδικός", "סיסמה",
                    "הסיסמה", "رمز", "باسورد", "الباسورد", "باسوورد", "الباسوورد", "پسورد",
                    "پاسورد", "پاس ورڈ", "modpas", "mật", "পাসওয়ার্ড", "கடவுச்சொல்",
                    "รหัสผ่าน", "parola", "密钥", "秘钥", "シークレット", "apiキー", "시크릿", "비밀",
                    "รหัส", "المفتاح", "مفتاح", "کلید", "arole", "lapta", "ifr", "ozink",
                    "\u043e\u0437\u0438\u043d\u043a", "\u0430\u0440\u043e\u043b\u0430", "arool",
                    "\u10de\u10d0\u10e0\u10dd\u10da", "cambiat", "mdp", "ww")
_PHONE_STARTS = ("phone", "bel", "wa_id", "waid", "nea ", "contact", "tel", "mobil", "handy",
                 "no_hp", "nohp", "no hp", "a_party", "b_party",
                 "celular", "cellulare", "fone",
                 "vil", "portable",
                 "whatsapp", "msisdn", "my number", "new number", "cell ", "cell.", "cell:",
                 "nomor", "mi ", "mio ", "meu ", "mon ", "mein ", "mijn ", "ел.", "नंबर",
                 "मोबाइल", "kontakt", "pod",
                 "व्हाट्सऐप", "جوال", "موبايل", "شماره", "تلفن", "موبایل", "تلیفون",
                 "\u0634\u0645\u06d0\u0631\u0647", "\u043c\u043e\u0431\u0438\u043b\u044c\u043d",
                 "\u0442\u0435\u043b=",
                 "\u043f\u043e \u043d\u043e\u043c", "simu", "natel", "தொலைபேசி",
                 "மொபைல்", "মোবাইল", "දුරකථන", "ජංගම", "τηλέφωνο", "τηλ.", "κινητό", "контакт",
                 "namba",
                 "laini", "lambar", "numero", "numéro", "\u0631\u0642\u0645\u064a",
                 "\u1235\u120d\u12ad", "wrong", "denwa", "\u81f4\u7535", "\u81f4\u96fb",
                 "sms", "llam", "chiam", "ligue", "zadzwo", "tél", "電話", "电话", "手机", "手機",
                 "mój ", "moj ", "bereikbaar", "recapito", "dzwoni",
                 "携帯",
                 "tlm", "連絡先", "联系方式",
                 "연락처", "전화", "फ़ोन", "फोन", "هاتف", "елефон", "вон", "call me", "ring me",
                 "휴대폰", "핸드폰",
                 "text me", "appel", "rappel", "joind", "joign", "ligar", "para o", "ao n",
                 "nesse", "neste", "do n", "fono", "emerg", "terugb", "ligamos", "ring ", "ring\t",
                 "number",
                 "hp", "hubungi", "contatt", "alternat", "cel", "tlf", "tfno",
                 "\u0e40\u0e1a\u0e2d\u0e23\u0e4c", "\u0e42\u0e17\u0e23", "mobit",
                 "\u0570\u0565\u057c", "sdt", "s\u0111t", "called", "calling",
                 "\u09a8\u09ae\u09cd\u09ac\u09b0", "\u09a8\u09be\u09ae\u09cd\u09ac\u09be\u09b0",
                 "mera ", "mere ", "meri ", "apna ", "is number", "rufnummer", "rückruf",
                 "ruckruf", "fax", "ruf", "nequi", "davip", "al 3", "numara", "gsm", "ligne",
                 "appelé", "appele", "fijo", "amar ", "caller ", "sim ", "s broj", "sa broj",
                 "novi ", "\u0161tevilk",
                 "al n", "wallet", "esewa", "e-sewa", "khalti", "lambar", "bilbil", "jimar",
                 "\u0645\u06c6\u0628\u0627\u06cc\u0644", "\u0698\u0645\u0627\u0631\u06d5",
                 "\u0631\u0642\u0645 \u0627\u0644\u062e\u0637",
                 "\u0b87\u0bb2\u0b95\u0bcd\u0b95\u0bae\u0bcd",
                 "stevilk", "h\u00edv\u00f3", "hivo",
                 "\u05d8\u05dc\u05e4\u05d5\u05df", "\u05e0\u05d9\u05d9\u05d3",
                 "\u05e4\u05e7\u05e1", "\u0ba4\u0bca\u0b9f\u0bb0\u0bcd\u0baa\u0bc1",
                 "\u043c\u043e\u0439 \u043d\u043e\u043c", "\u043c\u0456\u0439 \u043d\u043e\u043c")
# Where a match of _PHONE_WORDS starts: each Latin word's first three characters ("í", "ó"
# and "é" read as "a").
_PHONE_WORD_STARTS = ((r"(?i)pho|wa_|wai|con|tel|l[ia]n|mob|han|cel|m[oa]v|por|wha|sms|msi|new|num"
                       r"|nom|mi[ \to]|mij|meu|mon|mei|my[ \t]|rap|app|joi|lig|rin|kon|pod|t[ea]l"
                       r"|tlm|lla|zad|ric|chi|cal|tex|sim|nat|hp[ \t:]|dih|hub|alt|tlf|fon|s[ad]t"
                       r"|mer|apn|is[ \t]|ruf|r[ua]c|nam|lai|lam|wro|den|no[_ h]|[ab]_p|m[oa]j"
                       r"|ber|rec|dzw|vib|reg|bel|tfn|fax|neq|dav|gsm|fij|ama|bro|wal|ese|e-s"
                       r"|kha|bil|jim",
                       3),
                      # (Portuguese's "para o número", "ao número", "nesse número": whole, not
                      # every word that opens with "par")
                      (r"(?i)para[ \t]o", 6), (r"(?i)[ad]o[ \t]n", 4), (r"(?i)ness|nest|fono", 4),
                      (r"(?i)emerg|terug", 5), (r"(?i)al[ \t]3", 4),
                      # (Slovenian's and Hungarian's words: "š", "í" and "ó" read as "a")
                      (r"(?i)[sa]tevil|h[ia]v[oa]sz", 6), (r"(?i)al[ \t]n", 4),
                      (r"(?i)s[ \t]bro", 5), (r"(?i)sa[ \t]bro", 6),
                      (r"(?i)novi[ \t]bro", 8))
# ... and the words of other scripts, found in the text itself: the engine reads all their
# letters as "a", and a start expression "aa" fired at every pair of a Chinese line's
# characters (the line took 1.7 times as long).
_PHONE_WORDS_OF_OTHER_SCRIPTS = (
    "電話", "电话", "手机", "手機", "携帯", "連絡先", "联系方式", "연락처", "전화", "फ़ोन", "फोन",
    "هاتف", "휴대폰", "핸드폰",
    "Телефон", "телефон", "Тел.", "тел.", "Звон", "звон", "नंबर", "मोबाइल", "व्हाट्सऐप", "جوال",
    "موبايل", "شماره ", "شماره:", "تلفن", "موبایل", "تلیفون", "\u0634\u0645\u06d0\u0631\u0647",
    "\u062a\u06d5\u0644\u06d5\u0641\u06c6\u0646", "\u0627\u0644\u0645\u062d\u0641\u0638\u0629",
    "\u0627\u0644\u0627\u0633\u0645 \u0627\u0644\u0645\u0633\u062a\u0639\u0627\u0631",
    "\u041c\u043e\u0431\u0438\u043b\u044c\u043d", "\u043c\u043e\u0431\u0438\u043b\u044c\u043d",
    "\u0442\u0435\u043b=", "\u043f\u043e \u043d\u043e\u043c\u0435\u0440\u0443",
    "\u041f\u043e \u043d\u043e\u043c\u0435\u0440\u0443", "தொலைபேசி", "เบอร์", "โทร",
    "\u0570\u0565\u057c",
    "மொபைல்", "মোবাইল", "දුරකථන", "ජංගම", "Τηλέφωνο", "τηλέφωνο", "Τηλ.", "τηλ.", "Κινητό",
    "κινητό", "Контакт", "контакт", "\u05d8\u05dc\u05e4\u05d5\u05df",
    "\u05e0\u05d9\u05d9\u05d3", "\u05e4\u05e7\u05e1",
    "\u0ba4\u0bca\u0b9f\u0bb0\u0bcd\u0baa\u0bc1 \u0b8e\u0ba3\u0bcd",
    "Мой номер", "мой номер", "Мій номер", "мій номер",
    "\u0631\u0642\u0645\u064a", "\u1235\u120d\u12ad", "\u81f4\u7535", "\u81f4\u96fb",
    "\u0540\u0565\u057c", "\u09a8\u09ae\u09cd\u09ac\u09b0",
    "\u0b87\u0bb2\u0b95\u0bcd\u0b95\u0bae\u0bcd", "\u0645\u06c6\u0628\u0627\u06cc\u0644",
    "\u0698\u0645\u0627\u0631\u06d5", "\u0631\u0642\u0645 \u0627\u0644\u062e\u0637",
    "\u09a8\u09be\u09ae\u09cd\u09ac\u09be\u09b0")


def _strong_password_anchors(text: str) -> list[int]:
    """Where the strong-password-after-a-colon detector can match: a line's last ": " when the
    line's last token holds a symbol password rules ask for (the value is that token, the
    line's end after it)."""
    found: list[int] = []
    pos = 0
    for line in text.split("\n"):
        tail = line.rstrip()
        last = tail[max(tail.rfind(" "), tail.rfind("\t")) + 1:]
        if last and any(ch in v.STRONG_PASSWORD_SYMBOLS for ch in last):
            at = max(tail.rfind(": "), tail.rfind(":\t"))
            if at >= 0:
                found.append(pos + at)
        pos += len(line) + 1
    return found


def _phone_word_anchors(text: str) -> list[int]:
    """Where a phone word of another script starts (the phone words' ``anchors``)."""
    if text.isascii():
        return []
    found: set[int] = set()
    for word in _PHONE_WORDS_OF_OTHER_SCRIPTS:
        at = text.find(word)
        while at >= 0:
            found.add(at)
            at = text.find(word, at + 1)
    return sorted(found)


# The country codes an IBAN starts with, as an alternation (the IBAN shape's look-ahead).
_IBAN_COUNTRY = "(?:" + "|".join(sorted(v.IBAN_COUNTRIES)) + ")"


# The words that may come before a mobile-money number (within 100 characters: the pattern
# bounds what it reads between), looked for before each run of digits of the number's shape;
# a translate and a find name the runs at C speed (a regex for them cost more than the rest).
_MONEY_WORD = re.compile("(?i)>|to|du|kwa|sim|from|vers|para|sent|opay|momo|m-?pesa|kutoka"
                         "|linked|palmpay|ecocash|\u0631\u0642\u0645|\u0625\u0644\u0649")
_DIGITS_AS_D = bytes(ord("d") if 0x30 <= i <= 0x39 else ord(" ") for i in range(256))


def _money_word_anchors(text: str) -> list[int]:
    """Where a mobile-money number's detector can match (its ``anchors``): the words before
    each run of digits of the number's shape. Found by the text, not by the engine: "to" and
    "du" are in most lines, a number of this shape in few."""
    mapped = text.encode("ascii", "replace").translate(_DIGITS_AS_D)  # a byte a character
    found: set[int] = set()
    at = mapped.find(b"d" * 10)
    while at >= 0:
        end = mapped.find(b" ", at)
        end = len(text) if end < 0 else end
        # (the number's shapes: 0, then not 0, ten or eleven digits; 2, twelve)
        if ((end - at in (10, 11) and text[at] == "0" and text[at + 1] != "0")
                or (end - at == 12 and text[at] == "2")):
            for word in _MONEY_WORD.finditer(text, max(0, at - 100), at):
                found.add(word.start())
        at = mapped.find(b"d" * 10, end)
    return sorted(found)


# The prefilters read non-ASCII letters as "a" (prefilter.py's stand-ins): a word in another
# script is any run of them, then a digit within reach.
_PASSWORD_PREFILTER = (r"(?i)passwort|kennwort|de passe|contrase|contrasi|pasahitz|senha|"
                       r"wachtwoord|has[al]o|"
                       r"pass[ \t]+(?:is|was)[ \t]|palavra.passe|"
                       r"ifre|senord|passord|salasana|heslo|login|aa|laluan|jelsz|nenosiri|"
                       r"parole|slapta|ifr|geslo|lozink|parool|"
                       r"parola|m[a]t[ _]kh|"
                       # (the pattern asks for nothing after Italian's "è": no space either)
                       r"password(?:[ \t]+[a-z-]+){0,6}[ \t]+(?:a|e')|kata sandi|"
                       r"password[^\r\n]{0,40}[ \t](?:ora|adesso)[ \t]+(?:a|e')|"
                       r"password[ \t]+(?:baru|saya|lama|anda|kamu)|cambiat|mdp|ww|modpas")
# "tel" starts a word ("telemetry" does, "OpenTelemetry" and "hotel" do not); "é" reads "a".
_PHONE_PREFILTER = (r"(?i)phone|wa_?id|contac?to|contactavel|contacte[rz]|l[ai]nea[ \t]|kontakt"
                    r"|fono|"
                    r"numerem|tlm|(?:^|[^a-z]|\\[nrt])t[ea]l"
                    r"|mobil|mobitel|handy|celular|fone|"
                    r"cellulare|m[ao]vil|portable|r.ckrufnummer|rufnummer|"
                    r"whatsapp|sms|"
                    r"(?:my|new|cell|alternat\w*|mera|mere|meri|apna|is|wrong|registered) number"
                    r"|number[ \t]+is"
                    r"|namba|laini|lambar[ \t]+waya|dyal|denwa"
                    r"|cell[ .:]|msisdn|nomor|"
                    r"n[au]mero|"
                    r"simu|natel|"
                    r"llam(?:ar|e|ame|ada)|llama[ \t]+(?:desde|al)|emergency[ \t]+contact|terugbel|"
                    r"chiam|ligue|dzwo|aa|(?:call|ring|text)[ \t]+me|"
                    r"nummer|numer|bereikbaar|recapito|mobiel|"
                    r"num[ae]ro|appel|joindre|joignable|ligar|ligamos|ring[ \t]+[(+0-9]|hp|hubungi"
                    r"|contatt"
                    r"|cel|[ab]_party|"
                    r"tlf|tfno|ring[ \t]+m[ei]g|s[ad]t|call(?:ed|ing)[ \t]+(?:from|on)|viber"
                    r"|(?:^|[^a-z])bel(?:len)?[ \t]+(?:me|mij|ons|op|bij|naar|gerust|even|[0+(])"
                    r"|contact[ \t]+no"
                    r"|(?:mi|mio|meu|mon|mein|mijn|m.j)(?:[ \t]+[a-z]{3,8})?[ \t]+nr"
                    r"|emergenz|fax|contact[^\r\n]{0,12}:|ruf(?:e|en)?[ \t]+(?:mich|uns)"
                    r"|nequi|daviplata|al[ \t]+3[0-5][0-9]|numaray"
                    r"|rufen[ \t]+sie|gsm|ligne|fijo|contactar|(?:amar|caller) number"
                    r"|broj|[sa]tevilk|h[ia]v[oa]sz[aa]m|wallet|e-?sewa|khalti|lambar|bilbil|jimar")
# (CJK's full stop and marks end a value too: "密码：Sunflower@435。谢谢！")
_TOLD_STOP = (r"\s«»„“”\"'「」『』，,、；;：؛)）！？\u3000-\u303f\u3040-\u30ff\u3400-\u9fff"
              r"\uac00-\ud7af")


# What each word of _told holds in any case's capitalisation ("Password", "API", "Secret").
_TOLD_WORDS = {"api": "api[ _-]?key", "access": "access[ _-]?key"}
_TOLD_NEEDLES = {"access": "ccess", "password": "assw", "passwd": "assw", "passcode": "asscode",
                 "api": "pi",
                 "secret": "ecret", "token": "oken", "pwd": "wd", "pw": "pw"}


def _with_private_twin(public: Detector, private_ok: Callable[[str], bool]
                       ) -> tuple[Detector, Detector]:
    """An address detector and its twin for private networks: the same shape, the other
    validator, so an address is one kind or the other."""
    return public, replace(public, kind=f"{public.kind}_private", validator=private_ok)


# Formats of systems whose own fields carry a credential or a person's number: Windows
# administration (the registry's autologon, unattend.xml, LAPS, PowerShell's logs), learning
# platforms, game servers, contact centres and telephony, and leases and deeds.
def _system_fields() -> tuple[Detector, ...]:
    return (
    # A learning platform's enrolment key, which lets whoever holds it into the course
    # ("a chave de inscrição da disciplina no Moodle é X", "ders kayıt anahtarı: X").
    _d("secret_assignment",
       r"(?i)(?:enrol(?:l)?ment[ \t]+key|chave[ \t]+de[ \t]+inscri..o|clave[ \t]+de[ \t]+"
       r"matriculaci.n|kay.t[ \t]+anahtar.|einschreibe-?schl.ssel|cl[ée][ \t]+d'inscription)"
       r"[^\n.]{0,40}?(?:[:=]|[ \t](?:é|es|est|ist|is|lautet)(?![\w]))[ \t]*[\"'“]?"
       r"([^\s\"'”,;]{5,40})", v.secret_value_ok,
       prefilter=r"(?i)enrol|inscri|matricula|kay.t[ \t]+anahtar|einschreibe", group=1,
       gate=r"(?i:enrol|inscri|matricula|kay.t|einschreibe)"),
    # ldap.conf's and slapd.conf's bind and root passwords, a line each ("BINDPW X"), not a
    # hash ({SSHA}...).
    _d("secret_assignment",
       r"(?im)^[ \t]*(?:bind_?pw|rootpw)[ \t]+(?!\{)(\S{4,128})[ \t]*(?:\r?$)",
       v.secret_value_ok, prefilter=r"(?i)(?:bind_?pw|rootpw)[ \t]+[^ \t\r\n]", group=1,
       gate=r"(?i:bind_?pw|rootpw)"),
    # An event or a field named for a password, then its value ("event=exam_password_entered
    # value=\"X\"").
    _d("secret_assignment",
       r"(?i)(?<![\w-])(?:event|field|name|param)=[\w.-]*pass(?:word|wd|code|phrase)[\w.-]*"
       + _NOT_THE_SECRET + r"[ \t,;]+value=\\?[\"']?([^\"'\s]{4,128})", v.secret_value_ok,
       prefilter=r"(?i)=[a-z0-9_.-]*pass[a-z0-9_.-]*[ \t,;]+value=", group=1,
       gate=r"(?i:value=)"),
    # An XML element its attribute names for a secret (an LTI tool's
    # <lticm:property name="shared_secret">X</lticm:property>, Java's
    # <entry key="db.password">X</entry>).
    _d("secret_assignment",
       r"(?i)<[\w:.-]+[ \t]+(?:name|key|id)=\\?[\"'][\w:.-]*(?:secret|passw(?:or)?d|pwd|token"
       r"|api[_-]?key|private[_-]?key|shared[_-]?key)[\w.-]*" + _NOT_THE_SECRET
       # (not a Windows event's message reference: <Data Name="ElevatedToken">%%1842</Data>)
       + r"\\?[\"'][ \t]*>(?!%%)([^<\s]{4,256})</", v.secret_value_ok,
       prefilter=(r"(?i)(?:name|key|id)=\\?[\"'][^\"'\r\n]*(?:secret|passw|pwd|token|api[_-]?key"
                  r"|private[_-]?key|shared[_-]?key)"), group=1,
       gate=r"(?i:secret|passw|pwd|token|api.?key|shared.?key)"),
    # A Teams incoming webhook's URL: whoever holds it posts to the channel.
    _d("secret_assignment",
       r"(?i)/IncomingWebhook/([0-9a-f]{32}/[0-9a-f-]{36}(?:/[A-Za-z0-9_-]{20,})?)",
       prefilter=r"(?i)/IncomingWebhook/[0-9a-f]{32}", group=1,
       gate=r"(?i:IncomingWebhook)"),
    # Windows' autologon password in the registry: as reg query prints it ("DefaultPassword
    # REG_SZ X") and as reg add sets it ("/v DefaultPassword /t REG_SZ /d X").
    _d("secret_assignment",
       r"(?im)^[ \t]*\w*Password[ \t]+REG_SZ[ \t]+([^\r\n]*[^\s])", v.secret_value_ok,
       prefilter=r"(?i)Password[ \t]+REG_SZ[ \t]+[^ \t\r\n]", group=1, gate="REG_SZ"),
    _d("secret_assignment",
       r"(?i)/v[ \t]+\"?\w*pass(?:word|wd)?\"?[ \t]+(?:/t[ \t]+REG_SZ[ \t]+)?/d[ \t]+\"?"
       r"([^\"\s]{1,128})", v.secret_value_ok,
       prefilter=r"(?i)/v[ \t]+\"?[a-z0-9_]*pass[^\r\n]*/d[ \t]", group=1,
       gate=r"(?i:/d[ \t])"),
    # LAPS's password as Get-ADComputer's table prints it, under its column's header.
    _d("secret_assignment",
       r"(?i)ms-Mcs-AdmPwd[ \t]*\r?\n[- \t]+\r?\n\S+[ \t]+(\S{8,64})",
       prefilter=r"(?i)ms-Mcs-AdmPwd[ \t]*\r?\n[- \t]+\r?\n", group=1, gate=r"(?i:AdmPwd)"),
    # unattend.xml's passwords (<AdministratorPassword><Value>X</Value>, AutoLogon's
    # <Password>): plain or base64 of UTF-16 (PlainText false), which anyone decodes.
    _d("secret_assignment",
       r"(?i)<\w*Password>\s*<Value>([^<\s][^<]{0,255})</Value>", v.secret_value_ok,
       prefilter=r"(?i)Password>\s*<Value>[^<]", group=1, gate=r"(?i:<Value>)"),
    # PowerShell's module log of ConvertTo-SecureString's -String (event 4103).
    _d("secret_assignment",
       r"ParameterBinding\(ConvertTo-SecureString\): name=\"String\"; value=\"([^\"\r\n]{1,256})\"",
       prefilter=r"ParameterBinding\(ConvertTo-SecureString\): name=\"String\"; value=\"",
       group=1, gate="ParameterBinding"),
    # A PowerShell script's key or token parameter ("-ApiKey ff8cc26b...").
    _d("secret_assignment",
       r"(?i)(?<![\w-])-(?:ApiKey|AccessToken|ClientSecret|Secret|Token|Pat)[ \t]+[\"']?"
       r"(?![-$(@])([^\s\"';)]{8,256})", v.secret_value_ok,
       prefilter=r"(?i)-(?:apikey|accesstoken|clientsecret|secret|token|pat)[ \t]+[^ \t\r\n-]",
       group=1, gate=r"(?i:-(?:apikey|accesstoken|clientsecret|secret|token|pat)[ \t])"),
    # Windows' net use, the password after /user: ("net use \\srv\share /user:DOM\svc X",
    # "NET.EXE" in a process log, quoted as CMTrace logs it: '"net.exe" use ... X]LOG]').
    _d("secret_assignment",
       r"(?i)(?<![\w-])net(?:\.exe)?\"?[ \t]+use\b[^\n|;&]*?[ \t]/user:\S+[ \t]+"
       r"(?![/*])('[^'\n]*'|\"[^\"\n]*\"|[^\s\]\"']{1,128})", v.secret_value_ok,
       prefilter=r"(?i)net(?:\.exe)?\"?[ \t]+use[^\n]*[ \t]/user:", group=1,
       gate=r"(?i:/user:)"),
    # R's assignment of a quoted value to a key's name (token <- "..."), as REDCapR's
    # scripts hold an API token.
    _d("secret_assignment",
       _SECRET_KEY + r"[ \t]*<-[ \t]*([\"'])([^\"'\n]{6,256})\1", v.secret_value_ok,
       prefilter=_SECRET_KEY_PREFILTER + r"[ \t]*<-[ \t]*[\"']", group=2, needles=("<-",),
       start=_at_literal(_SECRET_STARTS, fold=True), starts=_SECRET_KEY_STARTS),
    # A password told in German after its words and what it opens ("Das Installateur-
    # Passwort für den Wechselrichter 7E56E15B lautet X"): the value after "lautet" (the
    # told reading stops at the first token, the device's serial).
    _d("secret_assignment",
       r"(?i)passw(?:or)?t[\w-]*[^\n.!?]{0,80}?(?<![a-z])lautet[ \t:]+[„\"']?([^\s„“”\"']{6,64})",
       v.told_passphrase, prefilter=r"(?i)passw[^\r\n]{0,90}lautet[ \t:]", group=1,
       gate=r"(?i:lautet)"),
    # An AWS secret access key by its own name, whatever its first characters ("//Q3yA...":
    # a value starting "//" is read as a path or a URL elsewhere).
    _d("secret_assignment",
       r"(?i)aws_?secret_?access_?key\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?"
       r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
       v.aws_secret_like, prefilter=r"(?i)aws_?secret_?access_?key[^\r\n]{0,6}[:=]", group=1,
       gate=r"(?i:secret)"),
    # An AWS secret access key told in prose ("the rotated secret for the ... IAM user is X").
    _d("secret_assignment",
       r"(?i)\bsecret\b[^\n.]{0,60}?\b(?:is|was|:)[ \t]+([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
       v.aws_secret_like, prefilter=r"(?i)secret[^\r\n]{0,64}[ \t][A-Za-z0-9/+]{40}", group=1,
       gate=r"(?i:secret)"),
    # A live stream's key told in a chat ("la clé de diffusion c'est hzbt-nkfg-sj60-...").
    _d("secret_assignment",
       r"(?i)(?:stream[ \t_-]?key|cl[ée][ \t]+de[ \t]+(?:diffusion|stream)|clave[ \t]+de[ \t]+"
       r"(?:transmisi[óo]n|retransmisi[óo]n|stream)|stream-?schl[üu]ssel|chave[ \t]+de[ \t]+"
       r"(?:transmiss[ãa]o|stream))[^\n]{0,30}?(?:[:=]|[ \t](?:is|c['’]est|est|es|ist|é))"
       # (not a masked one: "live_574002767_••••••", a dashboard's)
       r"[ \t]*[\"']?([A-Za-z0-9_-]{12,128}+)(?![•●*:])", v.letters_and_digits,
       prefilter=(r"(?i)(?:stream[ \t_-]?key|cl.[ \t]+de[ \t]+(?:diffusion|stream)|clave[ \t]+de"
                  r"|stream-?schl|chave[ \t]+de)"), group=1,
       gate=r"(?i:stream|diffusion|clave|chave)"),
    # Wowza Streaming Engine's publish.password: a user and a password a line, under its
    # header comment.
    _d("secret_assignment",
       r"(?i)#[ \t]*username[ \t]+password[ \t]*\r?\n((?:[^\s#][^\s]*[ \t]+[^\s]+[ \t]*"
       r"(?:\r?\n|$))+)",
       prefilter=r"(?i)#[ \t]*username[ \t]+password[ \t]*\r?\n[^ \t\r\n#]", group=1,
       gate=r"(?i:username[ \t]+password)"),
    # A gift card's claim code (XXXX-XXXXXX-XXXX): whoever holds it spends the card.
    _d("secret_assignment",
       r"(?i)(?:claim|gift[ \t]?card|redemption|redeem)[ \t]+code[ \t]*[:#]?[ \t]*"
       r"([A-Z0-9]{4}-[A-Z0-9]{6}-[A-Z0-9]{4,5})(?![\w-])", v.product_key_ok,
       prefilter=(r"(?i)(?:claim|gift[ \t]?card|redemption|redeem)[ \t]+code[^\r\n]{0,4}"
                  r"[A-Z0-9]{4}-"), group=1, gate=r"(?i:code)"),
    # Chocolatey's source password, mcrcon's RCON password.
    _d("secret_assignment",
       r"(?i)(?<![\w-])choco(?:latey)?(?:\.exe)?[ \t][^\n|;&]*?[ \t](?:-p|--password)(?:=|[ \t]+)"
       r"(\"[^\"\n]+\"|'[^'\n]+'|[^\s\"']+)", v.secret_value_ok,
       prefilter=r"(?i)choco[^\r\n]*[ \t](?:-p|--password)[= \t]", group=1,
       gate=r"(?i:choco)"),
    _d("secret_assignment",
       r"(?i)(?<![\w-])mcrcon\b[^\n|;&]*?[ \t](?-i:-p)[ \t]+('[^'\n]+'|\"[^\"\n]+\"|[^\s'\"]+)",
       v.secret_value_ok, prefilter=r"(?i)mcrcon[^\r\n]*[ \t]-p[ \t]", group=1,
       gate=r"(?i:mcrcon)"),
    # A password named for whom it is ("quit pw for invigilators: X"), password-shaped.
    _d("secret_assignment",
       r"(?i)(?<![a-z])(?:pw|pwd|password|passwort)[ \t]+(?:for|f[üu]r)[ \t]+[^:\n]{1,40}?:"
       r"[ \t]*([^\s<>\"']{6,64})", v.told_passphrase,
       prefilter=r"(?i)(?:pw|pwd|password|passwort)[ \t]+f(?:or|ur|.r)[ \t][^:\r\n]{1,40}:",
       group=1, gate=r"(?i:\b(?:pw|pwd|password|passwort)[ \t]+f)"),
    # 7-Zip's password switch ("7z a -tzip -pX archive.zip").
    _d("secret_assignment",
       r"(?i)(?<![\w-])7z[ar]?(?:\.exe)?\"?[ \t]+[adeux][ \t]+(?:[^\r\n]*?[ \t])?"
       r"-p([^\s\"]{3,128})",
       v.secret_value_ok, prefilter=r"(?i)7z[^\r\n]*[ \t]-p[^ \t\r\n]", group=1,
       needles=("7z", "7Z")),
    # ASP.NET's and SharePoint's authentication cookies.
    _d("secret_assignment",
       r"(?i)(?:\.ASPXAUTH|\.AspNetCore\.(?:Cookies|Session|Identity\.Application)|FedAuth"
       r"|\.AspNet\.ApplicationCookie)=([^;\s&\"']{16,})",
       prefilter=r"(?i)(?:aspxauth|aspnetcore\.|fedauth|aspnet\.applicationcookie)=",
       group=1, gate=r"(?i:aspxauth|aspnet|fedauth)"),
    # A Source game server's login token (server.cfg's sv_setsteamaccount).
    _d("secret_assignment", r"(?i)sv_setsteamaccount[ \t]+\"?([0-9A-F]{32})(?![0-9A-Za-z])",
       prefilter=r"(?i)sv_setsteamaccount[ \t]+\"?[0-9a-f]{32}", group=1,
       gate=r"(?i:setsteamaccount)"),
    # A Minecraft server's log of AuthMe's commands: the player's passwords.
    _d("secret_assignment",
       r"(?i)issued server command: /(?:register|reg|login|log|l|changepassword|changepass"
       r"|cp|unregister)[ \t]+([^\r\n]{3,128})",
       prefilter=r"(?i)issued server command: /(?:reg|log|l[ \t]|c|unreg)", group=1,
       gate="issued server command"),
    # Unity's licence serial (UNITY_SERIAL=E3-XXXX-XXXX-XXXX-XXXX-XXXX).
    _d("secret_assignment",
       r"(?i)unity[_-]?serial\\?[\"']?[ \t]*[=:][ \t]*\\?[\"']?"
       r"([A-Z0-9]{2}-(?:[A-Z0-9]{4}-){4}[A-Z0-9]{4})(?![\w-])",
       prefilter=r"(?i)unity[_-]?serial", group=1, gate=r"(?i:serial)"),
    # A Steam Guard code, on its own line after the e-mail's sentence.
    _d("secret_assignment",
       r"Steam Guard code[^\n]{0,80}:[ \t]*\r?\n(?:[ \t]*\r?\n)?[ \t]*([A-Z0-9]{5})(?![A-Za-z0-9])",
       prefilter=r"Steam Guard code", group=1, gate="Steam Guard"),
    # A Discord bot's token: the bot's id in base64, a timestamp, an HMAC.
    _d("api_key",
       r"(?<![\w-])([MNO][A-Za-z\d_-]{23,25}\.[\w-]{6}\.[\w-]{27,38})(?![\w-])",
       v.discord_token_ok,
       prefilter=r"[MNO][A-Za-z0-9_-]{23}[A-Za-z0-9_-]{0,2}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27}",
       group=1, gate=r"[MNO][\w-]{23,25}\.[\w-]{6}\."),
    # (any first part where the text names Discord or a bot: a token pasted from a tutorial,
    # or made up for a test, is read as a real one would be)
    _d("api_key",
       r"(?i)(?:discord|client\.run\(|bot[ _-]?token)[^\n]{0,200}?(?<![\w-])"
       r"((?-i:[A-Za-z\d_-]{24,26}\.[\w-]{6}\.[\w-]{27,38}))(?![\w-])",
       v.letters_and_digits,
       prefilter=r"(?i)(?:discord|client\.run\(|bot[ _-]?token)[^\r\n]{0,200}[A-Za-z0-9_-]{24}"
                 r"[A-Za-z0-9_-]{0,2}\.[A-Za-z0-9_-]{6}\.",
       group=1, gate=r"(?i:discord|client\.run|bot)"),
    # ASP.NET's machine key (<machineKey validationKey="..." decryptionKey="..."/>): it signs
    # and decrypts every session's and view state's data.
    _d("secret_assignment", r"\b(?:validationKey|decryptionKey)=\"([0-9A-Fa-f]{16,256})\"",
       prefilter=r"(?:validationKey|decryptionKey)=\"[0-9A-Fa-f]{16}", group=1,
       needles=("validationKey", "decryptionKey")),
    # Tailscale's keys (tskey-auth-..., tskey-api-...), OneSignal's REST keys (os_v2_app_...),
    # Scale AI's (live_ and 32 hex digits), GOV.UK Notify's (a name, then two UUIDs).
    _d("api_key",
       r"(?<![\w-])(?:tskey-(?:auth|api|client|scim|webhook)-[A-Za-z0-9]{6,}-[A-Za-z0-9]{16,}"
       r"|os_v2_(?:app|org)_[a-z2-7]{50,}|live_[0-9a-f]{32})(?![\w-])",
       prefilter=r"tskey-[a-z]{3}|os_v2_[a-z]{3}_[a-z2-7]{50}|live_[0-9a-f]{32}",
       needles=("tskey-", "os_v2_", "live_")),
    _d("api_key",
       rf"(?<![\w-])[a-z0-9_-]{{1,80}}-{_UUID}-{_UUID}(?![\w-])",
       prefilter=r"-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-[0-9a-f]{8}-",
       gate=r"-[0-9a-f]{12}-[0-9a-f]{8}-"),
    # Zendesk's API token in its Basic credentials' text ("agent@acme.com/token:KEY").
    _d("secret_assignment", r"@[\w.-]+/token:([A-Za-z0-9]{40})(?![A-Za-z0-9])",
       prefilter=r"/token:[A-Za-z0-9]{40}", group=1, needles=("/token:",)),
    # An authenticator's setup key as sites show it to type in by hand (Google's eight groups
    # of four, lower case; or one run in capitals), after its name and an aside
    # ("Portbase MFA setup key (if the QR doesn't scan): bico 6d4r xhek ...").
    _d("secret_assignment",
       r"(?i)(?:setup|secret|authenticator|2fa|mfa|totp|otp)[ \t-]*key\b[^:\n]{0,50}?"
       r"[:=]?[ \t]*((?-i:(?:[a-z2-7]{4} ){3,7}[a-z2-7]{4}|[A-Z2-7]{16,64}))(?![\w])",
       v.letters_and_digits,
       prefilter=r"(?i)(?:setup|secret|authenticator|2fa|mfa|totp|otp)[ \t-]*key",
       group=1, gate=r"(?i:key)"),
    # A PIN in brackets after its name ("I've tried my PIN (8207)"), and any secret's name, an
    # aside in brackets, then its value ("Booking PIN (to manage): 8830", "signing secret (from
    # Basic Information page): a74f...", "API token (Configure > API Token): 1120...").
    _d("secret_assignment", r"(?<![\w-])PIN[ \t]*\((\d{4,8})\)",
       prefilter=r"PIN[ \t]*\([0-9]{4}", group=1, needles=("PIN",)),
    _d("secret_assignment",
       # (a space before the aside: not a call's or an encoding's "key(base64)=", nor
       # PostgreSQL's "Key (key)=(<uuid>) already exists", its value in brackets)
       r"(?i)(?<![\w-])(?:pin|passcode|password|secret|token|key)[ \t]+\([^()\n]{1,40}\)"
       # (quoted, words and all: 'Pickup password (must be given verbally): "sunflower 9"')
       r"[ \t]*[:=][ \t]*\"?((?<=\")[^\"\n]{4,64}(?=\")|[^\s\"',;<>(]{4,128}(?![^\s\"',;<>]))",
       v.bracketed_secret,
       prefilter=r"(?i)(?:pin|passcode|password|secret|token|key)[ \t]*\(", group=1,
       gate=r"\)[ \t]*[:=]"),
    # A code or a password told in Chinese as digits alone ("卡密码是 03551662", a print
    # job's release code "释放码是 937099").
    _d("secret_assignment",
       "(?:\u5bc6\u7801|\u5bc6\u78bc|\u91ca\u653e\u7801|\u53d6\u4ef6\u7801"
       "|\u63d0\u53d6\u7801)(?:\u662f|\u4e3a|\u70ba|\uff1a|:)[ \t]*(\\d{4,12})(?!\\d)",
       prefilter=engine_reading("(?:\u5bc6\u7801|\u5bc6\u78bc|\u91ca\u653e\u7801"
                                "|\u53d6\u4ef6\u7801|\u63d0\u53d6\u7801)"),
       group=1, digits=True),
    # A key safe's or a lockbox's code, in a listing's showing notes ("key safe by the bins,
    # code 7868", "Schlüsseltresor rechts neben der Tür, Code 9882", "combo box ..., combo 8227").
    _d("secret_assignment",
       r"(?i)(?:key[ \t]?safe|lock[ \t]?box|combo(?:[ \t]+box)?|schl.ssel(?:tresor|kasten|safe)"
       r"|supra|key[ \t]?box)[^\n.;]{0,40}?(?:code|combo|pin)[ \t]*(?::|is|=)?[ \t]*#?"
       r"(\d{3,8})(?![\d.,/-]?\d)",
       prefilter=(r"(?i)(?:key[ \t]?safe|lock[ \t]?box|combo|schl.ssel|supra|key[ \t]?box)"
                  r"[^\r\n]{0,48}\d{3}"), group=1, digits=True,
       gate=r"(?i:safe|box|combo|schl|supra)"),
    # Poland's account number written whole after its name ("rachunek bankowy nr 2624...").
    _d("iban",
       r"(?i)(?:rachun\w*|kont[oa]|nrb)[^\n\d]{0,40}?(?<![\w.,/-])(\d{26})(?![\w-])", v.nrb_ok,
       prefilter=r"(?i)(?:rachun|kont[oa]|nrb)[^\r\n]{0,48}\d{26}", group=1, digits=True,
       gate=r"(?i:rachun|kont[oa]|nrb)", joined=_nothing_joined,
       joined_prefilter=r"(?i)(?:rachun|kont[oa]|nrb)[^\r\n]{0,48}\d{26}"),
    # MISMO's loan files: a borrower's tax id (an SSN for a person).
    _d("us_ssn", r"<TaxpayerIdentifierValue>(\d{3}-?\d{2}-?\d{4})</", v.ssn_ok,
       prefilter=r"<TaxpayerIdentifierValue>\d", group=1, gate="TaxpayerIdentifierValue",
       joined=_nothing_joined, joined_prefilter=r"<TaxpayerIdentifierValue>\d"),
    # Contact centres: a PIN the caller keyed (an IVR's "step=pin_entry dtmf=8184", Twilio
    # Studio's gather widget, Asterisk's Read() of a PIN); an SSN a voice bot captured
    # (VoiceXML's filled field, Amazon Lex's slot).
    *_each("secret_assignment",
           # (and its input under a step naming a PIN: step=verify_pin input_dtmf="7937",
           # action=pin_change dtmf_entered=0608)
           (r"(?i)pin[\w-]*[ \t]+(?:[\w-]*_)?dtmf(?:_[a-z]+)?=\\?\"?(\d{4,8})(?!\d)",
            r"(?i)\\?\"[\w-]*pin[\w-]*\\?\"\s*:\s*\{\s*\\?\"Digits\\?\"\s*:\s*\\?\"(\d{4,8})\\?\"",
            r"(?i)Read\([^)\n]*PIN[^)\n]*\)[^\n]*\r?\n[^\n]*User entered '(\d{3,12})'"),
           prefilter=r"(?i)dtmf(?:_[a-z]+)?=\\?\"?\d|\"Digits\\?\"|User entered '\d",
           digits=True, gate=r"(?i:dtmf|Digits|User entered)"),
    *_each("us_ssn",
           (r"(?i)field '(?:ssn|social\w*)' filled: value=\"(\d{3}-?\d{2}-?\d{4})\"",
            r"(?i)\\?\"(?:ssn|social\w*)\\?\"\s*:\s*\{\s*\\?\"value\\?\"\s*:\s*\{[^{}]{0,200}?"
            r"\\?\"interpretedValue\\?\"\s*:\s*\\?\"(\d{3}-?\d{2}-?\d{4})\\?\""),
           validator=v.ssn_ok, prefilter=r"(?i)(?:ssn|social)[^\r\n]*(?:filled|interpretedValue)",
           digits=True, gate=r"(?i:filled|interpretedValue)", joined=_nothing_joined,
           joined_prefilter=r"(?i)(?:ssn|social)[^\r\n]*(?:filled|interpretedValue)"),
    # Telephony's records of a caller: a SIP URI's user part that is a number (10 to 15
    # digits; an extension is shorter), FreeSWITCH's channel name, Asterisk's CallerIDNum,
    # Cisco Finesse's fromAddress.
    *_each("phone",
           (r"(?i)(?:(?<![\w.])sips?:|sofia/[\w-]+/)(\+?\d{10,15})@",
            r"(?im)^(?:CallerIDNum|ConnectedLineNum)[ \t]*:[ \t]*(\+?\d{7,15})[ \t]*\r?$",
            r"<fromAddress>(\+?\d{10,15})</fromAddress>",
            # (a caller id as Asterisk writes it, "\"GONZALEZ\" <3034540042>"; Homer's
            # from_user and to_user)
            r"\\?\"[^\"<>\n]{1,40}\\?\" <(\+?\d{10,15})>",
            r"(?i)\\?\"(?:from|to|caller|callee|ruri)_user\\?\"\s*:\s*\\?\"(\+?\d{10,15})\\?\""),
           validator=v.e164ish,
           prefilter=(r"(?i)(?:sip:|sips:|sofia/|LineNum|IDNum|fromAddress|\" <[+0-9]"
                      r"|_user\\?\"\s*:)"),
           digits=True, gate=r"(?i:sips?:|sofia/|LineNum|IDNum|fromAddress|\" <|_user)",
           joined=_nothing_joined,
           joined_prefilter=(r"(?i)(?:sip:|sips:|sofia/|LineNum|IDNum|fromAddress|\" <[+0-9]"
                             r"|_user\\?\"\s*:)")),
    # A DLP engine's record of what it matched: the matched text is the personal data itself
    # (Zscaler's dlpmatch, Forcepoint's matched_value, a Japanese gateway's 一致文字列).
    _d("secret_assignment",
       r"(?i)(?<![\w-])(?:dlp_?match(?:es)?|match(?:ed)?[_ -]?(?:value|data|text|string|content)s?"
       "|\u4e00\u81f4\u6587\u5b57\u5217|\u691c\u51fa\u6587\u5b57\u5217)"
       r"\\?[\"']?[ \t]{0,3}[:=][ \t]*\\?[\"']([^\"'\n\\]{4,200})\\?[\"']", v.has_digit,
       prefilter=r"(?i)(?:dlp_?match|match(?:ed)?[_ -]?(?:value|data|text|string|content)"
                 r"|aaaaa)[^\n]{0,6}[:=]",
       group=1, gate=r"(?i:match|\u6587\u5b57\u5217)"),
    # A credential built in code from a user and its password (C#'s NetworkCredential, Java's
    # PasswordAuthentication, requests' HTTPBasicAuth, Apache's UsernamePasswordCredentials).
    _d("secret_assignment",
       r"(?<![\w.])(?:NetworkCredential|PasswordAuthentication|HTTP(?:Basic|Digest|Proxy)Auth"
       r"|UsernamePasswordCredentials|BasicAuth|SqlCredential|BasicCredentials)\("
       r"[ \t]*[\"'][^\"'\n]{1,100}[\"'][ \t]*,[ \t]*@?[\"']([^\"'\n]{4,128})[\"']",
       v.secret_value_ok,
       prefilter=r"(?:Credential|Authentication|Auth|Credentials)\([ \t]*[\"'][^\n]*,[ \t]*@?[\"']",
       group=1, gate=r"(?:Credential|Authentication\(|Auth\()"),
    # A cookie set in code or a test: Cypress' cy.setCookie(name, value), k6's jar.set(url,
    # name, value), Selenium's add_cookie, a client's "Cookie" header given as two strings
    # (.Add("Cookie", ".AspNetCore.Cookies=CfDJ8...")).
    _d("secret_assignment",
       r"(?:(?<!\w)(?:setCookie|set_cookie|cookies\.set|jar\.set)\([ \t]*"
       r"(?:[\"'][^\"'\n]{1,200}[\"'][ \t]*,[ \t]*)?[\"'][^\"'\n]{1,80}[\"'][ \t]*,[ \t]*"
       r"|[\"']Cookie[\"'][ \t]*,[ \t]*[\"'][^\"'=;\n]{1,80}=)"
       r"[\"']?([^\"'\s;]{16,4096})", v.strong_token,
       prefilter=r"(?:setCookie|set_cookie|cookies\.set|jar\.set)\(|[\"']Cookie[\"'][ \t]*,",
       group=1, gate=r"(?:Cookie|cookie|jar\.set)"),
    # A Slack webhook's URL as JSON escapes it (https:\/\/hooks.slack.com\/services\/T..\/B..\/X).
    _d("secret_assignment",
       r"hooks\.slack\.com\\/(?:services|workflows|triggers)\\/T[A-Z0-9]{8,12}\\/B[A-Z0-9]{8,12}"
       r"\\/([A-Za-z0-9]{24})(?![A-Za-z0-9])",
       prefilter=r"hooks\.slack\.com\\/", group=1, needles=("hooks.slack.com\\/",)),
    # IRC clients' commands: NickServ's IDENTIFY (the password last: "IDENTIFY [account]
    # X") and WeeChat's /set of a password option ("/set irc.server.libera.sasl_password X").
    _d("secret_assignment",
       r"(?im)(?<![\w-])(?:/msg[ \t]+NickServ[ \t]+|/ns[ \t]+|/nickserv[ \t]+)"
       r"(?:IDENTIFY|REGISTER)(?:[ \t]+\S+)??[ \t]+(\S+)(?:[ \t]+\S+@\S+)?[ \t]*$",
       v.secret_value_ok,
       prefilter=r"(?i)(?:NickServ|/ns)[ \t]+(?:IDENTIFY|REGISTER)[ \t]", group=1,
       gate=r"(?i:IDENTIFY|REGISTER)"),
    _d("secret_assignment",
       r"(?i)(?<![\w-])/set[ \t]+[\w.]*(?:password|passwd|secret)[ \t]+\\?\"?([^\s\"\\]{4,128})",
       v.secret_value_ok, prefilter=r"(?i)/set[ \t]+[\w.]*(?:passw|secret)", group=1,
       gate=r"(?i:/set[ \t])"),
    # Vendors' secrets by their own shape: age's secret key (SOPS' keys.txt), a k3s node token,
    # a Twitter app's bearer token (its 22 leading A's), Consul's gossip key, WordPress' salts.
    _d("secret_assignment", r"(?<![A-Z0-9-])(AGE-SECRET-KEY-1[02-9AC-HJ-NP-Z]{58})(?![A-Z0-9])",
       prefilter=r"AGE-SECRET-KEY-1", group=1, needles=("AGE-SECRET-KEY-",)),
    _d("secret_assignment", r"(?<![\w])(K10[0-9a-f]{64}::[a-z]+:[0-9a-f]{16,64})(?![0-9a-f])",
       prefilter=r"K10[0-9a-f]{64}::", group=1, needles=("K10",)),
    _d("secret_assignment", r"(?<![A-Za-z0-9%])(A{22}[A-Za-z0-9%]{40,200})(?![A-Za-z0-9%])",
       prefilter=r"A{22}[A-Za-z0-9%]{40}", group=1, needles=("AAAAAAAAAAAAAAAAAAAAAA",)),
    _d("secret_assignment",
       r"\\?[\"']encrypt\\?[\"'][ \t]*[:=][ \t]*\\?[\"']([A-Za-z0-9+/]{22,86}={0,2})\\?[\"']",
       v.strong_token, prefilter=r"encrypt\\?[\"'][ \t]*[:=]", group=1, needles=("encrypt",)),
    _d("secret_assignment",
       r"define\([ \t]*[\"'](?:AUTH|SECURE_AUTH|LOGGED_IN|NONCE)_(?:KEY|SALT)[\"'][ \t]*,[ \t]*"
       r"'([^'\n]{16,128})'", v.strong_token,
       prefilter=r"(?:AUTH|LOGGED_IN|NONCE)_(?:KEY|SALT)[\"'][ \t]*,", group=1,
       needles=("_KEY", "_SALT")),
    # A tool that prints a new password on the line after saying so (Elasticsearch's
    # elasticsearch-reset-password: "... successfully reset.\nNew value: X").
    _d("secret_assignment",
       r"(?i)password[^\n]{0,60}?reset\.?[ \t]*\r?\n[ \t]*New value:[ \t]*(\S{6,128})",
       v.secret_value_ok, prefilter=r"(?i)reset\.?[ \t]*\r?\n[ \t]*New value:", group=1,
       gate=r"(?i:New value)"),
    # A US taxpayer id under its short name (tin=544789933) or an XML element's
    # (<ns:TaxId>814862213</ns:TaxId>): nine digits, an SSN's shape.
    _d("us_ssn",
       r"(?i)(?:(?<![a-z0-9_])tin[ \t]*[:=][ \t]*\\?[\"']?"
       r"|<(?:[\w-]+:)?(?:tax_?id|tin|ssn)(?:[ \t][^<>\n]{0,80})?>)(\d{9})(?![\d-])",
       v.ssn_ok, prefilter=r"(?i)tin[ \t]*[:=]|(?:tax_?id|tin|ssn)[^<>\n]{0,80}>\d{9}", group=1,
       digits=True, gate=r"(?i:tin|taxid|tax_id|ssn)", joined=_nothing_joined,
       joined_prefilter=r"(?i)tin[ \t]*[:=]|(?:tax_?id|tin|ssn)[^<>\n]{0,80}>\d{9}"),
    # IPsec's keys as ip xfrm state prints them ("auth-trunc hmac(sha256) 0x7e83... 128",
    # "enc cbc(aes) 0xf3d7...").
    _d("secret_assignment",
       r"(?m)^[ \t]*(?:auth|auth-trunc|enc|aead|comp)[ \t]+[\w-]+\([\w-]+\)[ \t]+"
       r"(0x[0-9a-f]{16,512})(?![0-9a-f])",
       prefilter=r"(?:auth|enc|aead|comp)[^\n]{0,40}\)[ \t]+0x[0-9a-f]{16}", group=1,
       gate=r"\)[ \t]+0x"),
    # Held-out corpora HC to HH: identity providers, personal-life apps, energy retail and EV
    # charging, OCR'd documents, infrastructure-as-code, South-East Asia.
    # SSSD's bind password (ldap_default_authtok = X, as sssd.conf and a Puppet diff of it
    # hold it), and a principal's password on kadmin's command line (addprinc -pw X).
    _d("secret_assignment",
       r"(?i)(?<![\w-])(?:ldap_default_authtok|ldap_authtok)[ \t]*[:=][ \t]*\\?[\"']?"
       r"([^\s\"'#]{4,128})",
       v.secret_value_ok, prefilter=r"(?i)ldap_(?:default_)?authtok[ \t]*[:=]", group=1,
       gate=r"(?i:authtok)"),
    _d("secret_assignment",
       r"(?<![\w-])(?:addprinc|add_principal|ank|cpw|change_password|ktadd)[ \t][^\n]{0,80}?"
       r"(?<![\w-])-pw[ \t]+([^\s\"']{4,128})",
       v.secret_value_ok, prefilter=r"(?:addprinc|add_principal|ank|cpw|change_password|ktadd)"
                                    r"[ \t][^\r\n]{0,80}-pw[ \t]",
       group=1, needles=("-pw",)),
    # RabbitMQ's Erlang cookie (an Ansible variable or a Helm value: capitals, 20 of them).
    _d("secret_assignment",
       r"(?i)erlang[_-]?cookie\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?([A-Za-z0-9]{16,64})(?![\w])",
       v.secret_value_ok, prefilter=r"(?i)erlang[_-]?cookie", group=1, gate=r"(?i:cookie)"),
    # Consul's gossip encryption key in HCL (encrypt = "...", 32 bytes in base64), and its
    # bootstrap ACL token (initial_management, formerly master).
    _d("secret_assignment",
       r"(?m)^[ \t]*encrypt[ \t]*=[ \t]*\"([A-Za-z0-9+/]{42,43}=)\"",
       v.strong_token, prefilter=r"encrypt[ \t]*=[ \t]*\"[A-Za-z0-9+/]{42}", group=1,
       needles=("encrypt",)),
    _d("secret_assignment",
       r"(?<![\w-])(?:initial_management|acl_master_token)[ \t]*=[ \t]*\""
       rf"({_UUID})\"",
       prefilter=r"(?:initial_management|master_token)[ \t]*=[ \t]*\"[0-9a-fA-F]{8}-",
       group=1, needles=("initial_management", "master_token")),
    # A parameter store's or a key vault's secret printed whole: the value beside a name
    # that says it is a secret (AWS SSM's {"Name": "/prod/db/PASSWORD", "Type":
    # "SecureString", "Value": "X"}, az keyvault secret show's "name": "db-password" ...
    # "value": "X"), or any SecureString's value; and an OCPP key/value pair
    # ({"key":"AuthorizationKey","value":"..."}).
    _d("secret_assignment",
       # (not a form's CSRF token, a HAR's {"name": "X-CSRF-Token", "value": ...}: left)
       # (and a browser's session cookie by its name, as a cookie export holds it:
       # {"name": "_gh_sess", ..., "value": "..."})
       # (or a session's record of one: {"cookie_name": "connect.sid", "value": "..."})
       r"(?i)\\?\"(?:(?:cookie_?)?name|key)\\?\"[ \t]*:[ \t]*\\?\"(?![^\"\n]*[cx]srf)"
       r"(?:[^\"\n\\]{0,120}?"
       r"(?:password|passwd|secret|api[_-]?key|token|authorizationkey|credential)s?"
       r"|[^\"\n\\]{0,60}?(?:sess(?:ion)?(?:_?id)?|sid))"
       # (a tags object between: az keyvault secret show's "tags": {"owner": "x"})
       r"\\?\"(?:[^{}]|\{[^{}]{0,80}\}){0,200}?"
       r"\\?\"value\\?\"[ \t]*:[ \t]*\\?\"([^\"\\\n]{4,512})\\?\"",
       v.secret_value_ok,
       prefilter=r"(?i)(?:name|key)\\?\"[ \t]*:[ \t]*\\?\"[^\"\r\n]{0,120}"
                 r"(?:passw|secret|api.?key|token|authorizationkey|credential|sess|sid)",
       group=1, gate=r"(?i:value)"),
    _d("secret_assignment",
       r"(?i)\\?\"type\\?\"[ \t]*:[ \t]*\\?\"SecureString\\?\"[^{}]{0,200}?"
       r"\\?\"value\\?\"[ \t]*:[ \t]*\\?\"([^\"\\\n]{4,512})\\?\"",
       v.secret_value_ok, prefilter=r"(?i)SecureString", group=1,
       gate=r"(?i:securestring)"),
    # PingFederate's session cookie, PF=, as a browser or a test note prints it.
    _d("secret_assignment", r"(?<![\w-])PF=([A-Za-z0-9_-]{30,128})(?![\w-])",
       v.strong_token, prefilter=r"PF=[A-Za-z0-9_-]{30}", group=1, needles=("PF=",)),
    # A password after "PW" in a message ("Login x@y.de, PW nube-strada-strada72").
    _d("secret_assignment",
       r"(?<![\w-])PW[ \t]+([^\s\"',;<>]{6,64})(?![^\s\"',;<>])", v.has_digit_and_letter,
       prefilter=r"PW[ \t]+[^\s]{6}", group=1, needles=("PW",)),
    # A password right after its short name, no verb ("user tdelgado88 pw hYEQLeBkQX?",
    # "Temp pw bronco.1967", "pass: Panther$1070z", "password HS674IZZ", "pw - jasp3rT!remo"):
    # "pass" only before a separator ("pass rate" and "1 pass 2 fail" name none).
    _d("secret_assignment",
       # (not go test's "--- PASS: TestLuhn/invalid_16_digit", nor inside a base64 value)
       # (and its names in other languages, and "passcode": "y la clave Kalayaan2021@",
       # "mot de passe Cielo$archangel9", "passcode blauwal_304")
       r"(?i)(?<![\w/+=-])(?:pwd?|passw(?:or)?d|passwort|(?-i:[Pp]ass)(?=[ \t]*[:=])|clave|senha"
       r"|contrase[ñn]a|wachtwoord|has[łl]o|kennwort|passcode|mot[ \t]+de[ \t]+passe|mdp)"
       r"(?:[ \t]*[:=][ \t]*|[ \t]+-[ \t]+|[ \t]+)(?!&(?-i:[a-z_]+)=)([^\s\"',;<>\\]{5,64})"
       r"(?![^\s\"',;<>])",
       v.named_password,
       prefilter=engine_reading(r"(?i)(?:pw|pass|clave|senha|contrase|wachtwoord|has[łl]o|kennwort"
                                r"|mdp)[a-z]{0,5}[ \t:=-]+[^\s]{5}"), group=1,
       gate=r"(?i:pw|pass|clave|senha|contrase|wachtwoord|has[łl]o|kennwort|mdp)"),
    # A login and its password with a slash between, as people write them down ("gmail:
    # jo@x.com / Lilo&Stitch09", "RouteOne: mike.f / Pant36Fwey#", "(vpnuser07 / Vpn07#spring)"):
    # after an address, a password's shape; after a bare login, a rule's symbol too.
    _d("secret_assignment",
       r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+[ \t]+/[ \t]+"
       r"([^\s\"',;<>()]{5,64})(?![^\s\"',;<>()])", v.named_password,
       prefilter=r"@[A-Za-z0-9_-]+\.[A-Za-z0-9_.-]+[ \t]+/[ \t]+[^\s]{5}", group=1,
       needles=(" / ",)),
    _d("secret_assignment",
       r"(?<![\w./@-])[A-Za-z0-9][\w.-]{1,40}[ \t]+/[ \t]+"
       r"([^\s\"',;<>()]{5,64})(?![^\s\"',;<>()])", v.paired_password,
       prefilter=r"[A-Za-z0-9][ \t]+/[ \t]+(?:[^\s]{0,63}[!#$%&*~^@+?=]|[A-Za-z0-9]{12})", group=1,
       needles=(" / ",)),
    # A password said to have changed, and to what ("mailbox password expired again, reset it
    # to `kopierer_Falcon94`", "then i changed it to Destiny2024!!", "its now Bunnings2024!!
    # but the old one was koala_bear_88"): the password's word first, on the same line.
    _d("secret_assignment",
       r"(?i)(?:passw|pwd|(?<![a-z])pw(?![a-z])|kennwort|passwort|contrase|senha)[^\n]{0,80}?"
       r"(?<![a-z])(?:(?:changed|reset|set|updated|switched)(?:[ \t]+(?:it|mine))?[ \t]+to"
       r"|(?:it'?s|its|is)[ \t]+now|(?:old|new)[ \t]+one[ \t]+(?:was|is)|it'?s[ \t]+either"
       r"|either)[ \t]+[`'\"\u201c]?([^\s`'\"\u201d,;<>]{5,64})", v.named_password,
       prefilter=r"(?i)(?:passw|pw|kennwort|contrase|senha)[^\r\n]{0,80}(?:to|now|was|is|either)"
                 r"[ \t]",
       group=1, gate=r"(?i:pw|pass|kennwort|contrase|senha)"),
    # A device's or a profile's key as network gear's configs quote it after its word, on a
    # line of its own (Aruba's wlan ssid-profile: passphrase "Butterfly0683$").
    _d("secret_assignment",
       r"(?im)^[ \t]*(?:passphrase|wpa-passphrase|psk|wpa2-psk)[ \t]+\"([^\"\n]{8,63})\"[ \t]*$",
       v.secret_value_ok, prefilter=r"(?i)(?:passphrase|psk)[ \t]+\"", group=1,
       gate=r"(?i:passphrase|psk)"),
    # A user and a password under a basic-auth setting (ADMIN_BASIC_AUTH=ops:X), an internal
    # auth header's token in a logged headers object ("X-Internal-Auth": "..."), an access and
    # a refresh token a log line says it issued (access=... refresh=...), Agora's app
    # certificate, a print job's PIN (PJL's JOBPASSWORD and HOLDKEY, IPP's job-password).
    _d("secret_assignment",
       r"(?i)(?<![\w-])[\w-]*basic[_-]?auth[\w-]*\\?[\"']?[ \t]*[=:][ \t]*\\?[\"']?[^\s:\"'/]+:"
       r"([^\s\"']{4,128})", v.secret_value_ok,
       prefilter=r"(?i)basic[_-]?auth[A-Za-z0-9_-]*[\"' \t]*[=:]", group=1,
       gate=r"(?i:basic.?auth)"),
    _d("secret_assignment",
       r"(?i)\\?[\"'](?:x-(?:[\w-]*-)?)?(?:internal|service|upstream|gateway)[_-]auth"
       r"\\?[\"'][ \t]*:"
       r"[ \t]*\\?[\"']([A-Za-z0-9_.~+/=-]{20,256})\\?[\"']", v.strong_token,
       prefilter=r"(?i)(?:internal|service|upstream|gateway)[_-]auth[\"'\\]+[ \t]*:", group=1,
       gate=r"(?i:auth)"),
    _d("secret_assignment",
       r"(?i)(?<![\w.-])(?:access|refresh)=([A-Za-z0-9_.~+/-]{24,512}={0,2})"
       r"(?![\w.~+/=-])", v.strong_token,
       prefilter=r"(?i)(?:access|refresh)=[A-Za-z0-9_.~+/-]{24}", group=1,
       gate=r"(?i:access=|refresh=)"),
    _d("secret_assignment",
       r"(?i)app[_-]?certificate\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?([0-9a-f]{32})(?![0-9a-f])",
       prefilter=r"(?i)app[_-]?certificate[\"'\\]*[ \t]*[:=]", group=1,
       gate=r"(?i:certificate)"),
    _d("secret_assignment",
       r"(?:@PJL[ \t]+SET[ \t]+(?:JOBPASSWORD|HOLDKEY)[ \t]*=[ \t]*\"?"
       r"|job-password[ \t]+\(octetString\)[ \t]*=[ \t]*)(\d{4,12})(?!\d)",
       prefilter=r"JOBPASSWORD|HOLDKEY|job-password", group=1,
       needles=("JOBPASSWORD", "HOLDKEY", "job-password")),
    # Gift cards' codes where a text names the cards (a scam's victim sends them: "Razer Gold
    # cards ... here are the codes: 9265UXWULW8OLY9T and PAS9BE4BE9OS6KKH"): sixteen capitals
    # and digits, both.
    _d("secret_assignment",
       r"(?i)(?:gift[ \t-]?cards?|razer[ \t]+gold|steam[ \t]+(?:wallet|card)|itunes"
       r"|google[ \t]+play[ \t]+cards?|apple[ \t]+gift)[^\n]{0,120}?codes?\b[^\n\w]{0,6}"
       r"((?-i:(?=[A-Z0-9]{0,15}\d)(?=[A-Z0-9]{0,15}[A-Z])[A-Z0-9]{16})"
       r"(?:(?:[ \t]*,[ \t]*|[ \t]+and[ \t]+|[ \t]*&[ \t]*)"
       r"(?-i:(?=[A-Z0-9]{0,15}\d)(?=[A-Z0-9]{0,15}[A-Z])[A-Z0-9]{16})){0,5})(?![A-Za-z0-9])",
       prefilter=r"(?i)(?:gift|razer|steam|itunes|play|apple)[^\r\n]{0,130}code[^\r\n]{0,8}"
                 r"[A-Z0-9]{16}", group=1,
       gate=r"(?i:code)"),
    # Recovery codes listed one to a line under their name (Login.gov's "7bt5 25kr k2ze"), and
    # three and more of one shape with nothing naming them, each of letters and digits ("ignore:
    # 7kdq-2mzx p4wn-8fhe 3tcj-9rvb", "a7f2c-91e4b\na8e0-c6b17\n..."): a list of one account's
    # backup codes.
    # (and Greek's, "Κωδικοί ανάκτησης"; Nextcloud's sixteen letters and digits, a line or two
    # of advice between)
    _d("secret_assignment",
       r"(?im)(?:(?:recovery|backup)[ \t]+(?:verification[ \t]+)?codes?\b"
       "|[\u039a\u03ba]\u03c9\u03b4\u03b9\u03ba\u03bf\u03af[ \t]+"
       "\u03b1\u03bd\u03ac\u03ba\u03c4\u03b7\u03c3\u03b7\u03c2)"
       r"[^\n]{0,80}\n(?:[^\n]{0,100}\n){0,3}?"
       # (numbered too, and Google's eight digits in two groups: "1. 1820 0769")
       # (and two groups of four, ten letters and digits: "m3c9 q9zy", "carz4dqpz8")
       r"((?:[ \t]*(?:\d{1,2}[.)][ \t]*)?(?:[a-z0-9]{4}(?: [a-z0-9]{4}){1,2}"
       r"|[a-z0-9]{4,6}-[a-z0-9]{4,6}|(?=[a-z]*\d)[a-z0-9]{8,12}|[a-z0-9]{16})[ \t]*\n){1,15}"
       r"[ \t]*(?:\d{1,2}[.)][ \t]*)?(?:[a-z0-9]{4}(?: [a-z0-9]{4}){1,2}"
       r"|[a-z0-9]{4,6}-[a-z0-9]{4,6}|(?=[a-z]*\d)[a-z0-9]{8,12}|[a-z0-9]{16}))"
       r"(?=[ \t]*(?:\n|$))",
       v.has_digit,
       prefilter=r"(?i)(?:recovery|backup)[ \t]+(?:verification[ \t]+)?code|aaaaaaa[ \t]+aaaaaaaaa",
       group=1,
       gate="(?i:code)|\u03b1\u03bd\u03ac\u03ba\u03c4\u03b7\u03c3\u03b7\u03c2"),
    # ... and in two columns or more, a few lines below their heading ("two-factor recovery
    # codes\nAccount: ...\nEach code can be used once.\n\n  65502-12542    8A3B9ICHEF\n...").
    _d("secret_assignment",
       rf"(?i)(?:recovery|backup)[ \t]+codes?\b[^\n]{{0,80}}\n(?:[^\n]{{0,100}}\n){{0,4}}?"
       rf"((?:[ \t]*{_GRID_CODE}(?:(?:[ \t]{{2,}}|\t)[ \t]*{_GRID_CODE}){{1,3}}[ \t]*\n){{0,12}}"
       rf"[ \t]*{_GRID_CODE}(?:(?:[ \t]{{2,}}|\t)[ \t]*{_GRID_CODE}){{1,3}})(?=[ \t]*(?:\n|$))",
       v.has_digit, prefilter=r"(?i)(?:recovery|backup)[ \t]+code", group=1,
       gate=r"(?i:code)"),
    _d("secret_assignment",
       r"(?<![\w-])((?:(?=[a-z]*\d)(?=\d*[a-z])[a-z0-9]{4,5}-(?=[a-z]*\d)(?=\d*[a-z])[a-z0-9]{4,5}"
       r"(?:[ \t]+|[ \t]*\n)){2,15}(?=[a-z]*\d)(?=\d*[a-z])[a-z0-9]{4,5}-(?=[a-z]*\d)"
       r"(?=\d*[a-z])[a-z0-9]{4,5})(?![\w-])",
       prefilter=r"[a-z0-9]{4}[a-z0-9]?-[a-z0-9]{4}[a-z0-9]?[ \t\n]+[a-z0-9]{4}[a-z0-9]?-"
                 r"[a-z0-9]{4}[a-z0-9]?[ \t\n]+[a-z0-9]{4}",
       group=1, gate=r"[a-z0-9]-[a-z0-9]{4}"),
    # A PIN or an activation, registration or release code in capitals and digits both, after
    # its name ("Pincode: 7T6LGM", "PIN 2U45ES1S6E", "pin=DHS96KYN", "one-time registration
    # code: 4IN4-O8X7", "Your activation code is: X8SAU944E4", proda.device.activation.code=).
    _d("secret_assignment",
       # (not Kenya's KRA PIN, a tax number, nor a board's pin: "pin: GPIO23")
       r"(?i)(?<![\w-])(?<!KRA )(?:pin(?:code)?|(?:activation|registration|release|unlock)"
       # (nor a firm's KRA PIN on an invoice: "PIN: P053371799S")
       r"[ _.-]?code)(?:[ \t]*[:=][ \t]*|[ \t]+is:?[ \t]+|[ \t]+)(?!GPIO)"
       r"(?![AP]\d{9}[A-Z](?![\w-]))"
       r"((?-i:(?=[A-Z0-9-]*\d)(?=[A-Z0-9-]*[A-Z])[A-Z0-9]{4,12}(?:-[A-Z0-9]{3,6})?))(?![\w-])",
       v.mixed_code,
       prefilter=r"(?i)(?:pin|code)[ \t:=]+(?:is:?[ \t]+)?[A-Z0-9]{4}", group=1,
       gate=r"(?i:pin|code)"),
    # Twilio's account SID and its auth token joined by a slash or a colon (an MCP server's
    # argument, a basic credential's text), an API key told in French ("voici la clé API
    # Mistral pour le POC : ..."), Haystack's Secret.from_token("...").
    _d("secret_assignment", r"(?<![\w-])AC[0-9a-f]{32}[/:]([0-9a-f]{32})(?![\w-])",
       prefilter=r"AC[0-9a-f]{32}[/:][0-9a-f]{32}", group=1, needles=("AC",)),
    _d("secret_assignment",
       r"(?i)cl[ée]s?[ \t]+(?:d['\u2019])?api[^\n:]{0,50}?[ \t]*:[ \t]*([A-Za-z0-9_.-]{16,128})"
       r"(?![\w.-])", v.strong_token,
       prefilter=r"(?i)cl.s?[ \t]+(?:d.)?api[^\r\n:]{0,50}:[ \t]*[A-Za-z0-9_.-]{16}", group=1,
       gate=r"(?i:api)"),
    _d("secret_assignment", r"Secret\.from_token\([ \t]*[\"']([^\"'\s]{8,256})[\"']",
       prefilter=r"Secret\.from_token\(", group=1, needles=("Secret.from_token(",)),
    # An Aadhaar number in its groups where the text is an Aadhaar card's (its OCR, a
    # description of one): the Verhoeff check decides.
    _d("national_id",
       r"(?i)(?:government[ \t]+of[ \t]+india|aadhaa?r|\u0906\u0927\u093e\u0930|uidai)"
       r"[\s\S]{0,200}?(?<![\d-])(\d{4} \d{4} \d{4})(?![\d-])", ids.aadhaar_ok,
       prefilter=engine_reading("(?i)(?:government[ \t]+of[ \t]+india|aadhaa?r"
                                "|\u0906\u0927\u093e\u0930|uidai)"),
       group=1, digits=True),
    # A combination lock's numbers ("Master Lock combo on the door is 1-3-7-5", "safe in QS
    # room, combination 39-38-21", "Zahlenschloss vom Materialcontainer ist 2460").
    _d("secret_assignment",
       # (not a name's part, "IEC_62196_T2_COMBO", nor past a quote or a comma)
       r"(?i)(?<![\w-])(?:combo|combination|zahlenschloss|kombination|combinaison"
       r"|(?=[a-z]+[^\n\d.;,\"']{0,40}?[ \t]+\d{1,2}-\d)(?:safe|tresor|cadenas|padlock))(?![a-z])"
       # (digits alone only after a word or a mark saying "is": not "the combination of both
       # 2024")
       r"[^\n\d.;,\"']{0,40}?(?:(?:[ \t](?:is|ist|est|es)|:|=)[ \t]+|[ \t]+(?=\d{1,2}-\d))"
       r"(\d{1,2}(?:-\d{1,2}){2,3}|\d{3,6})(?![\d.,/-]?\d)", v.combination_ok,
       prefilter=r"(?i)(?:combo|combination|zahlenschloss|kombination|combinaison|safe|tresor"
                 r"|cadenas|padlock)[^\r\n]{0,48}"
                 r"[ \t][0-9]{1,2}",
       group=1, digits=True),
    # A password said to be changed to a value with the password's word between ("I changed my
    # password yesterday to correct-nimbus-pepper15").
    _d("secret_assignment",
       r"(?i)(?<![a-z])(?:changed|reset|set|updated)[ \t]+(?:my|the|your|his|her|our)[ \t]+"
       r"(?:password|passwort|pw|pin|passcode)(?:[ \t]+[a-z]+){0,2}?[ \t]+to[ \t]+[`'\"\u201c]?"
       r"([^\s`'\"\u201d,;<>]{5,64})", v.named_password,
       prefilter=r"(?i)(?:changed|reset|set|updated)[ \t]+[a-z]+[ \t]+(?:passw|pw|pin|passcode)",
       group=1, gate=r"(?i:pass|pw|pin)"),
    # A user and a password as a call's tuple or arguments (Gradio's auth=("u", "p"),
    # Elasticsearch's basic_auth=("elastic", "p"), smtplib's s.login("u", "p")), a client's
    # token setter (ngrok.set_auth_token("...")), Dropbox's short-lived token, a command's
    # --accesskey, a Rails master.key told, Slack's invite link and a Hugging Face org's share
    # link.
    _d("secret_assignment",
       r"(?:\b(?:basic_|http_)?auth[ \t]*=[ \t]*\(|\.login\()[ \t]*\\?[\"'][^\"'\n\\]{1,80}\\?[\"']"
       r"[ \t]*,[ \t]*\\?[\"']([^\"'\n\\]{4,128})\\?[\"'][ \t]*\)", v.secret_value_ok,
       prefilter=r"(?:auth[ \t]*=[ \t]*\(|\.login\()", group=1,
       needles=("auth", ".login(")),
    _d("secret_assignment",
       r"\.set_(?:auth_)?(?:token|api_key|key|password|secret)\([ \t]*\\?[\"']([^\"'\s\\]{8,256})"
       r"\\?[\"']", v.secret_value_ok,
       prefilter=r"\.set_(?:auth_)?(?:token|api_key|key|password|secret)\(", group=1,
       needles=(".set_",)),
    _d("api_key", r"(?<![\w.-])(sl\.(?:u\.)?[A-Za-z0-9_-]{100,})(?![\w-])",
       prefilter=r"sl\.[A-Za-z0-9_-]{100}", group=1, needles=("sl.",)),
    # Backblaze B2's application key ("K005" and 27 more) and its key's id (25 hex digits:
    # "00", the account's twelve, six zeros and more, as AWS's AKIA id is redacted too);
    # Ex Libris Alma's API key ("l7xx" and 32 hex digits); IT Glue's ("ITG." and two parts).
    _d("api_key", r"(?<![\w/+])(K00\d[A-Za-z0-9+/]{27})(?![\w/+])", v.letters_and_digits,
       prefilter=r"K00\d[A-Za-z0-9+/]{27}", group=1, needles=("K00",)),
    _d("api_key", r"(?<![0-9A-Za-z])(00[0-9a-f]{23})(?![0-9A-Za-z])", v.b2_key_id_ok,
       prefilter=r"00[0-9a-f]{10}[0-9a-f]{0,3}000000", group=1, needles=("000000",)),
    _d("api_key", r"(?<![\w])(l7xx[0-9a-f]{32})(?![\w])", prefilter=r"l7xx[0-9a-f]{32}",
       group=1, needles=("l7xx",)),
    _d("api_key", r"(?<![\w.])(ITG\.[0-9a-f]{32}\.[A-Za-z0-9_-]{32,})(?![\w-])",
       prefilter=r"ITG\.[0-9a-f]{32}\.", group=1, needles=("ITG.",)),
    # An S3-compatible store's access key id under its name (Wasabi's, DigitalOcean's,
    # Scaleway's, MinIO's: 20 capitals and digits, as AWS's AKIA ids are).
    _d("api_key",
       r"(?i)(?:access[_-]?key(?:[_-]?id)?|b2_key_id|b2_account_id|_b2_id)\\?[\"']?[ \t]*[:=][ \t]*"
       r"\\?[\"']?((?-i:[A-Z0-9]{20}|00[0-9a-f]{23}))(?![\w])", v.has_digit_and_letter,
       prefilter=r"(?i)(?:access[_-]?key|b2_key_id|b2_account_id|_b2_id)[^\r\n]{0,8}[:=]",
       group=1, gate=r"(?i:key|b2)"),
    # A search API's key in its query (WorldCat's and Europeana's wskey=), Koha's password
    # recovery link's uniqueKey=, PRTG's passhash=, a COUNTER SUSHI harvest's requestor_id
    # (a credential beside its api_key, a UUID often).
    _d("secret_assignment",
       r"[?&](?:wskey|uniqueKey|passhash|requestor_id)=([A-Za-z0-9_-]{8,})(?![\w-])",
       v.has_letter_or_long,
       prefilter=r"[?&](?:wskey|uniqueKey|passhash|requestor_id)=[A-Za-z0-9_-]{8}", group=1,
       needles=("wskey=", "uniqueKey=", "passhash=", "requestor_id=")),
    # Mailgun's private key (32 hex digits and two groups of 8), Spamhaus' DQS and Abusix's
    # keys where a mail server puts them (the first label of the list's DNS name), MaxMind's
    # licence key in GeoIP.conf.
    _d("api_key", r"(?<![\w-])([0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8})(?![\w-])",
       prefilter=r"[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}", group=1, needles=("-",)),
    _d("api_key",
       r"(?<![\w-])([a-z0-9]{26}|[a-z0-9]{32})\.(?:(?:zen|dbl|zrd|sbl|xbl|pbl|authbl|sbl-xbl)"
       r"\.dq\.spamhaus\.net|[a-z.-]*\.mail\.abusix\.zone)", v.has_digit_and_letter,
       prefilter=r"[a-z0-9]{26}\.[a-z.-]*(?:dq\.spamhaus|abusix)", group=1,
       needles=("spamhaus", "abusix")),
    _d("api_key", r"(?m)^[ \t]*LicenseKey[ \t]+([A-Za-z0-9_]{16,})[ \t]*$", v.has_digit_and_letter,
       prefilter=r"LicenseKey[ \t]+[A-Za-z0-9_]{16}", group=1, needles=("LicenseKey",)),
    # Washington's driving licence since 2018: "WDL" and nine capitals and digits.
    _d("national_id", r"(?<![A-Za-z0-9])(WDL[A-Z0-9]{9})(?![A-Za-z0-9])", v.has_digit,
       prefilter=r"WDL[A-Z0-9]{9}", group=1, needles=("WDL",)),
    # Where mail servers keep a relay's password: Postfix's static map, sendmail's authinfo
    # ("P:..."), Exim's client_send (": user : password"); a Perl DBI connection's list
    # ('DBI:mysql:...', 'user', 'password'); ldappasswd's new password after -s; a session's
    # header (X-ArchivesSpace-Session).
    _d("secret_assignment", r"smtp_sasl_password_maps[ \t]*=[ \t]*static:[^:\s]+:(\S+)",
       _not_stand_in, prefilter=r"smtp_sasl_password_maps[ \t]*=[ \t]*static:", group=1,
       needles=("static:",)),
    _d("secret_assignment", r"AuthInfo:[^\n]*?\"P:([^\"\n]+)\"", _not_stand_in,
       prefilter=r"AuthInfo:[^\r\n]*\"P:", group=1, needles=("AuthInfo:",)),
    _d("secret_assignment", r"client_send[ \t]*=[ \t]*[:^][^:^\n]*[:^][ \t]*([^\s:^]+)",
       _not_stand_in, prefilter=r"client_send[ \t]*=", group=1, needles=("client_send",)),
    _d("secret_assignment",
       r"(?i)(?:[\"']DBI:[^\"'\n]+[\"']|DBI(?:->)?[ \t]*connect\([ \t]*[\"'][^\"'\n]+[\"'])"
       r"[ \t]*,[ \t]*[\"'][^\"'\n]*[\"'][ \t]*,[ \t]*[\"']([^\"'\n]+)[\"']",
       _not_stand_in, prefilter=r"(?i)[\"']DBI:|DBI(?:->)?[ \t]*connect\(", group=1,
       gate=r"(?i:dbi)"),
    _d("secret_assignment",
       r"ldappasswd\b[^\n]*?[ \t]-s[ \t]+(['\"]?)([^\s'\"]+)\1", _not_stand_in,
       prefilter=r"ldappasswd[^\r\n]*-s", group=2, needles=("ldappasswd",)),
    _d("secret_assignment", r"(?i)X-[A-Za-z]+-Session[ \t]*[=:][ \t]*([A-Za-z0-9_-]{20,})",
       v.session_key_ok, prefilter=r"(?i)x-[a-z]+-session[ \t]*[=:]", group=1,
       gate=r"(?i:session)"),
    # cloud-init's chpasswd list (user:password a line), AnyDesk's password piped to
    # --set-password.
    _d("secret_assignment",
       r"chpasswd:[ \t]*\n[ \t]+list:[ \t]*\|?[ \t]*\n[ \t]+[\w.-]+:([^\s]+)",
       _not_stand_in, prefilter=r"chpasswd:[ \t]*\n[ \t]+list:", group=1, needles=("chpasswd",)),
    _d("secret_assignment",
       r"echo[ \t]+([^\s|\"']{6,})[ \t]*\|[^\n]{0,60}--set-password", _not_stand_in,
       prefilter=r"echo[ \t]+[^\r\n]*--set-password", group=1, needles=("--set-password",)),
    # Police systems: NCIC's and NLETS' fields (SOC/ an SSN, MNU/PP- a passport, MNU/CI- a
    # Canadian SIN, OLN/ a licence), a radio system's keys (a P25 KVL's or KMF's KEY, TEK and
    # KEK in hex), SQL Server's CREATE LOGIN ... WITH PASSWORD, PagerDuty's routing key.
    # An SSN after Spanish's name for it ("Confirmé su seguro social (125354905)"), and as
    # PostgreSQL's unique-key error quotes it ("Key (ssn)=(759026486) already exists").
    *_each("us_ssn",
           (r"(?i)(?<![a-z])seguro[ \t]+social[^\d\n]{0,20}?(\d{3}-?\d{2}-?\d{4})(?![\d-])",
            r"Key \((?:\w+,[ \t]*)*\\?\"?(?i:ssn|social_security\w*)\\?\"?(?:,[ \t]*\w+)*\)="
            r"\((?:[^,()\n]*,[ \t]*)*(\d{3}-?\d{2}-?\d{4})[,)]"),
           v.ssn_ok, prefilter=_SSN_NAMED, digits=True, joined=_nothing_joined,
           joined_prefilter=_SSN_NAMED),
    _d("us_ssn", r"(?<![A-Z])SOC/(\d{9})(?!\d)", v.ssn_ok, prefilter=r"SOC/\d{9}", group=1,
       needles=("SOC/",), joined=_nothing_joined, joined_prefilter=r"SOC/\d{9}"),
    _d("national_id", r"(?<![A-Z])(?:MNU/(?:PP|CI|SS|AS|MD|MC|MI|MP|NA|OA|PI|VA)-|OLN/)"
       r"([A-Z0-9]{6,20})(?![A-Z0-9])", v.has_digit,
       prefilter=r"MNU/[A-Z]{2}-[A-Z0-9]{6}|OLN/[A-Z0-9]{6}", group=1, needles=("MNU/", "OLN/")),
    _d("secret_assignment",
       r"(?<![A-Za-z_<-])(?<!PUBLIC )(?:KEY|TEK|KEK)"
       r"(?:[ \t]+(?:for[ \t]+)?KID[ \t]+[0-9A-Fa-f]{1,4})?"
       r"(?:[ \t]*\([^)\n]{1,20}\))?[ \t]*(?:=[ \t]*|[ \t]+)"
       r"([0-9A-Fa-f]{64}|[0-9A-Fa-f]{48}|[0-9A-Fa-f]{32})(?![0-9A-Fa-f])", v.has_digit_and_letter,
       prefilter=r"(?:KEY|TEK|KEK)[^\r\n]{0,30}[0-9A-Fa-f]{32}", group=1,
       needles=("KEY", "TEK", "KEK")),
    _d("secret_assignment", r"(?i)with[ \t]+password[ \t]*=[ \t]*N?'([^'\n]{4,128})'",
       _not_stand_in,
       prefilter=r"(?i)with[ \t]+password[ \t]*=", group=1, gate=r"(?i:password)"),
    _d("api_key", r"\"routing_key\"[ \t]*:[ \t]*\"([a-z0-9]{32})\"", v.has_digit_and_letter,
       prefilter=r"\"routing_key\"[ \t]*:[ \t]*\"[a-z0-9]{32}\"", group=1,
       needles=("routing_key",)),
    # Alarm panels and monitoring centres: the installer's, the master's, the duress and the
    # users' codes by their names in five languages (dotted leaders too: "[006] Installer
    # code ......... 4943"); a verbal passcode or code word, a word in capitals or
    # capitalised, in eight languages; a camera's six-letter verification code; a DC-09
    # receiver's AES key; a Hikvision device's Wi-Fi key in its XML.
    _d("secret_assignment",
       r"(?i)(?<![a-z])(?:installer|master|duress|keypad|alarm|disarm|errichter|betreiber|benutzer"
       r"|bedrohungs|zutritts?|engineer)[ \t-]*code(?![a-z])[ \t.:=]*"
       r"(?:(?:is|was|now|es|ist)[ \t]+)?"
       r"(\d{4,6}#?)(?![\d])", v.not_counting_run,
       prefilter=r"(?i)(?:installer|master|duress|keypad|alarm|disarm|errichter|betreiber|benutzer"
                 r"|bedrohungs|zutritt|engineer)[^\r\n]{0,30}\d{4}",
       group=1, gate=r"(?i:code)"),
    _d("secret_assignment",
       r"(?i)c[óo]d(?:e|igo|ice)[ \t]+(?:de[lí]?[ \t]+)?"
       r"(?:installateur|instalador|ma[îi]tre|titular"
       r"|coacci[óo]n|usuario|utilisateur|contrainte|installatore|utente)(?![a-z])[^\n\d]{0,30}?(\d{4,6})(?!\d)",
       v.not_counting_run,
       prefilter=r"(?i)c.d(?:e|igo|ice)[ \t]+[^\r\n]{0,40}\d{4}", group=1,
       gate=r"(?i:installateur|instalador|ma.tre|titular|coacci|usuario|utilisateur|contrainte"
            r"|installatore|utente)"),
    _d("secret_assignment",
       r"(?i)(?<![a-z])(?:verbal[ \t]+(?:password|passcode|pass[ \t]?word)|code[ \t]?word|codewoord"
       r"|kodeord|l[öo]senord[ \t]+till[ \t]+larmcentralen|contrase[ñn]a[ \t]+verbal"
       r"|palabra[ \t]+clave|clave[ \t]+para[ \t]+la[ \t]+central|(?:bedrohungs)?kennwort"
       r"(?:[ \t]+f[üu]r[ \t]+die[ \t]+(?:leitstelle|notruf\S*[ \t]+und[ \t]+serviceleitstelle))?"
       r"|passcode|password[ \t]+for[ \t]+(?:monitoring|the[ \t]+arc)|duress[ \t]+word|tunnussana"
       # (an operator's note abbreviates it, "gave pc 'Mickey'": quoted only)
       r"|(?-i:pc)(?=[ \t]+['\"]))(?![a-z])"
       r"(?:[ \t]*:|[ \t]+(?:is|es|ist|er|är|wäre|auf|remains|word[ \t]+is)|[ \t]+(?:von|da|la))?"
       r"[ \t]*[\"'„“‚]?"
       r"((?-i:[A-ZÄÖÜÅÆØ]{4,20}|[A-ZÄÖÜÅÆØ][a-zäöüßåæø]{3,19}(?:[ \t][A-Z][a-z]{2,15})?))"
       r"(?![\w-])", v.verbal_passcode_ok,
       prefilter=r"(?i)(?:verbal|code[ \t]?word|codewoord|kodeord|larmcentralen|contrase|palabra"
                 r"|clave|kennwort|passcode|monitoring|arc|duress|pc|tunnussana)[^\r\n]{0,60}[A-Z]",
       group=1, gate=r"(?i:verbal|code|kodeord|larm|contrase|palabra|clave|kennwort|monitoring"
                      r"|arc|duress|pc|tunnussana)"),
    # ... and a word given and checked on a call ("password Foxglove confirmed", "mot de
    # passe CARIBOU correct", "pw HOPSCOTCH ok"): the checker's word after it says it is one.
    _d("secret_assignment",
       r"(?i)(?<![a-z])(?:password|passcode|pw|mot[ \t]+de[ \t]+passe|kennwort|wachtwoord)[ \t]+"
       r"((?-i:[A-Z]{4,20}|[A-Z][a-z]{3,19}(?:[ \t][A-Z][a-z]{2,15})?))[ \t]+"
       r"(?:correct|confirmed|verified|ok|matched|accepted|korrekt|correcte?)(?![a-z])",
       v.verbal_passcode_ok,
       prefilter=r"(?i)(?:password|passcode|pw|passe|kennwort|wachtwoord)[ \t]+[^\r\n]{4,36}"
                 r"(?:correct|confirmed|verified|ok|matched|accepted|korrekt)",
       group=1, gate=r"(?i:correct|confirmed|verified|ok|matched|accepted|korrekt)"),
    # An alarm panel's download code or id (DLS, Compass), a TotalConnect request's user code.
    _d("secret_assignment",
       r"(?i)download(?:ing)?[ \t]+(?:id|code)[ \t.:]*((?-i:[0-9A-F]{6,8}))(?![0-9A-Za-z])",
       v.has_digit_and_letter, prefilter=r"(?i)download[^\r\n]{0,30}[0-9a-f]{6}", group=1,
       gate=r"(?i:download)"),
    _d("secret_assignment", r"<UserCode>(\d{4,8})</UserCode>", v.not_counting_run,
       prefilter=r"<UserCode>\d{4}", group=1, needles=("<UserCode>",)),
    # Nagios' check_http with a login (-a user:password).
    _d("secret_assignment", r"check_http\b[^\n]*?[ \t]-a[ \t]+[^:\s]+:([^\s]+)", _not_stand_in,
       prefilter=r"check_http[^\r\n]*-a[ \t]", group=1, needles=("check_http",)),
    _d("secret_assignment",
       r"(?i)verification[ \t]+code(?:[ \t]+on[ \t]+the[ \t]+(?:sticker|label))?"
       r"(?:[ \t]*:|[ \t]+is)"
       r"[ \t]*((?-i:[A-Z]{6}))(?![A-Za-z0-9])",
       prefilter=r"(?i)verification[ \t]+code[^\r\n]{0,30}[A-Z]{6}", group=1,
       gate=r"(?i:verification)"),
    _d("secret_assignment",
       r"(?i)(?:aes[ \t-]?(?:key|schl[üu]ssel)|encryption[ \t]+key)[^\n0-9a-f]{0,12}"
       r"((?-i:[0-9A-F]{32}|[0-9a-f]{32}))(?![0-9A-Fa-f])", v.has_digit_and_letter,
       prefilter=r"(?i)(?:aes|encryption)[^\r\n]{0,24}[0-9a-f]{32}", group=1,
       gate=r"(?i:aes|encryption)"),
    _d("secret_assignment", r"<sharedKey>([^<\s]{8,63})</sharedKey>", _not_stand_in,
       prefilter=r"<sharedKey>", group=1, needles=("<sharedKey>",)),
    # Trucking's money: a fuel card's PIN as Mexico and Quebec name it ("el NIP 6829"), a
    # Comchek express code and an EFS money code, The Work Number's salary key.
    _d("secret_assignment", r"(?<![A-Za-z])(?:NIP|nip)(?![A-Za-z])[ \t]*(?::|es|is)?[ \t]*"
       r"(\d{4,6})(?!\d)", v.not_counting_run, prefilter=r"(?i)nip[ \t]*(?::|es|is)?[ \t]*\d{4}",
       group=1, needles=("NIP", "nip")),
    _d("secret_assignment",
       r"(?i)(?:express|money)[ \t]+code[^\n:\d]{0,40}?(?::|[ \t]+is|issued:)?[ \t]*"
       r"(\d{4}[ -]?\d{4}[ -]?\d{2,4})(?![\d-])", v.not_counting_run,
       prefilter=r"(?i)(?:express|money)[ \t]+code[^\r\n]{0,48}\d{4}", group=1,
       gate=r"(?i:code)"),
    _d("secret_assignment", r"(?i)salary[ \t]+key[^\n\d]{0,60}?(\d{6})(?!\d)", v.not_counting_run,
       prefilter=r"(?i)salary[ \t]+key[^\r\n]{0,60}\d{6}", group=1, gate=r"(?i:salary)"),
    # A login kept as "U:" and "P:" lines (a dispatcher's note of load boards' accounts).
    _d("secret_assignment", r"(?m)^[ \t]*U:[ \t]*\S+[ \t]*\n[ \t]*P:[ \t]*(\S+)", _not_stand_in,
       prefilter=r"U:[ \t]*[^ \t\r\n]+[ \t]*\n[ \t]*P:", group=1, needles=("P:",)),
    # (an employer identification number is left: a company's, most often; and an ITIN
    # dashed with no name, as test data and forms' stand-ins are written)
    # An ITIN under a taxId key; an SSN card's number under its words.
    _d("national_id",
       r"(?i)tax_?id\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?(9\d{2}-?\d{2}-?\d{4})(?![\d-])", ids.itin_ok,
       prefilter=r"(?i)tax_?id[^\r\n]{0,8}9\d{2}-?\d{2}-?\d{4}", group=1,
       gate=r"(?i:taxid|tax_id)"),
    _d("us_ssn",
       r"(?i)this[ \t]+number[ \t]+has[ \t]+been[ \t]+established[ \t]+for[ \t]*\n?[ \t]*"
       r"(\d{3}[ .-]?\d{2}[ .-]?\d{4})(?![\d.-])", v.ssn_ok,
       prefilter=r"(?i)established[ \t]+for[ \t]*\n?[ \t]*\d{3}", group=1,
       gate=r"(?i:established)", joined=_nothing_joined,
       joined_prefilter=r"(?i)established[ \t]+for[ \t]*\n?[ \t]*\d{3}"),
    # Mexico's Carta Porte names the driver's licence (NumLicencia="..."); India's PAN as a
    # W-8BEN's foreign TIN.
    _d("national_id", r"NumLicencia=\"([A-Z0-9]{6,15})\"", v.has_digit,
       prefilter=r"NumLicencia=\"", group=1, needles=("NumLicencia",)),
    _d("national_id",
       r"(?i)(?:foreign[ \t]+tin|foreign[ \t]+tax[ \t]+identifying[ \t]+number)[^\n]{0,6}?:[ \t]*"
       r"((?-i:[A-Z]{3}[PCHFATBLJG][A-Z]\d{4}[A-Z]))(?![A-Za-z0-9])",
       prefilter=r"(?i)foreign[ \t]+t[^\r\n]{0,40}[A-Z]{5}\d{4}[A-Z]", group=1,
       gate=r"(?i:foreign)"),
    # App passwords: Google's sixteen letters, Apple's four groups of four, WordPress's six
    # groups of four, after their name.
    _d("secret_assignment",
       r"(?i)app(?:lication|[ -]specific)?[ -]password\b(?:[^\n:]{0,60}?:|[ \t]+is)?[ \t]*\(?"
       r"((?-i:[a-z]{16}|[a-z]{4}-[a-z]{4}-[a-z]{4}-[a-z]{4})|[A-Za-z0-9]{4}(?: [A-Za-z0-9]{4}){5})"
       r"(?![\w-])", v.not_counting_run,
       prefilter=r"(?i)app(?:lication|[ -]specific)?[ -]password[^\r\n]{0,70}[a-z0-9]{4}",
       group=1, gate=r"(?i:password)"),
    # Payments' links and signatures: a Stripe Express dashboard's login link, Tipalti's
    # hashkey=, Persona's API key.
    _d("secret_assignment",
       r"connect\.stripe\.com/express/acct_[A-Za-z0-9]+/([A-Za-z0-9]{10,})(?![\w-])",
       prefilter=r"connect\.stripe\.com/express/acct_", group=1, needles=("/express/acct_",)),
    _d("secret_assignment", r"[?&]hashkey=([0-9a-fA-F]{32,})(?![\w-])",
       prefilter=r"[?&]hashkey=[0-9a-fA-F]{32}", group=1, needles=("hashkey=",)),
    _d("api_key", r"(?<![\w-])(persona_(?:production|sandbox)_[0-9a-f]{8}-[0-9a-f-]{27})(?![\w-])",
       prefilter=r"persona_(?:production|sandbox)_", group=1, needles=("persona_",)),
    # Package registries: Yarn's npmAuthIdent (user:password), Bundler's credentials in its
    # environment (BUNDLE_GEMS__HOST__COM: "user:password"), NuGet's (oy2...), JFrog's
    # (AKCp...) and crates.io's (cio...) keys, Maven's encrypted master password, Nexus's
    # first admin password, conan's -p, npm hook's secret, Cloudsmith's entitlement in a
    # repository's URL, a registry's confirmation and reset links.
    _d("secret_assignment", r"npmAuthIdent[ \t]*:[ \t]*[\"']?[^:\s\"']+:([^\s\"']+)", _not_stand_in,
       prefilter=r"npmAuthIdent[ \t]*:", group=1, needles=("npmAuthIdent",)),
    _d("secret_assignment",
       r"BUNDLE_[A-Z0-9_]+__[A-Z0-9_]+[ \t]*[:=][ \t]*[\"']?[^:\s\"']+:([^\s\"']+)",
       _not_stand_in, prefilter=r"BUNDLE_[A-Z0-9_]+__[A-Z0-9_]+[ \t]*[:=]", group=1,
       needles=("BUNDLE_",)),
    _d("api_key", r"(?<![\w-])(oy2[a-z0-9]{43}|AKCp[A-Za-z0-9]{60,80}|cio[A-Za-z0-9]{32})(?![\w-])",
       v.has_digit_and_letter, prefilter=r"oy2[a-z0-9]{43}|AKCp[A-Za-z0-9]{60}|cio[A-Za-z0-9]{32}",
       group=1, needles=("oy2", "AKCp", "cio")),
    _d("secret_assignment", r"<master>(\{[A-Za-z0-9+/=]{20,}\})</master>",
       prefilter=r"<master>\{", group=1, needles=("<master>",)),
    _d("secret_assignment",
       r"admin\.password[^\n]*\n[ \t]*"
       r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})",
       prefilter=r"admin\.password[^\r\n]*\n", group=1, needles=("admin.password",)),
    _d("secret_assignment", r"\bconan[ \t]+remote[ \t]+login\b[^\n]*?[ \t]-p[ \t]+([^\s\"']+)",
       _not_stand_in, prefilter=r"conan[ \t]+remote[ \t]+login", group=1, needles=("conan",)),
    _d("secret_assignment",
       r"\bnpm[ \t]+hook[ \t]+(?:add|update)[ \t]+\S+[ \t]+\S+[ \t]+([^\s\"']{8,})",
       _not_stand_in, prefilter=r"npm[ \t]+hook[ \t]+(?:add|update)", group=1, needles=("hook",)),
    _d("secret_assignment", r"dl\.cloudsmith\.io/([A-Za-z0-9]{16})/",
       prefilter=r"dl\.cloudsmith\.io/[A-Za-z0-9]{16}/", group=1, needles=("cloudsmith",)),
    _d("secret_assignment", r"(?:crates\.io/confirm/|#passwordreset/)([A-Za-z0-9_-]{20,})",
       v.has_digit_and_letter, prefilter=r"crates\.io/confirm/|#passwordreset/", group=1,
       needles=("/confirm/", "#passwordreset/")),
    # Broadband gear and its servers: FreeRADIUS' radcheck rows ('Cleartext-Password', ':=',
    # 'X'), pppd's chap-secrets and pap-secrets ("user" * "secret" *), GenieACS' device
    # documents and provisions ("Password": {"_value": "X"}, declare("...Password", ..., {value:
    # "X"})), a GPON ONT's registration password (Huawei's password-auth, ZTE's "pw", Nokia's
    # subslocid).
    _d("secret_assignment",
       r"'Cleartext-Password'[ \t]*,[ \t]*'[:=+]{1,2}'[ \t]*,[ \t]*'([^'\n]+)'", _not_stand_in,
       prefilter=r"'Cleartext-Password'[ \t]*,", group=1, needles=("Cleartext-Password",)),
    _d("secret_assignment",
       r"(?m)^\"[^\"\s]+\"[ \t]+(?:\*|\"[^\"\s]*\"|[\w.-]+)[ \t]+\"([^\"\n]{4,})\""
       r"(?:[ \t]+\S+)?[ \t]*$",
       _not_stand_in, prefilter=r"\"[ \t]+(?:\*|\"[^\"\s]*\"|[\w.-]+)[ \t]+\"[^\"\r\n]{4}",
       group=1, needles=("\"",)),
    _d("secret_assignment",
       r"\"\w*(?:Password|KeyPassphrase|PreSharedKey)\"[ \t]*:[ \t]*\{[ \t\n]*\"_value\""
       r"[ \t]*:[ \t]*\"([^\"\n]+)\"", _not_stand_in,
       prefilter=r"(?:Password|KeyPassphrase|PreSharedKey)\"[ \t]*:[ \t]*\{[ \t\r\n]*\"_value",
       group=1, needles=("_value",)),
    _d("secret_assignment",
       r"declare\([ \t]*\"[\w.]*(?:Password|KeyPassphrase|PreSharedKey)\"[^)\n]*?\{[ \t]*"
       r"value:[ \t]*\"([^\"\n]+)\"", _not_stand_in,
       prefilter=r"declare\([ \t]*\"[\w.]*(?:Password|KeyPassphrase|PreSharedKey)\"", group=1,
       needles=("declare(",)),
    _d("secret_assignment",
       r"(?:(?<![\w-])password-auth|\bonu[ \t]+\d+[ \t]+type[ \t]+\S+[ \t]+pw|\bsubslocid)[ \t]+"
       r"([^\s\"]{4,})", _not_stand_in,
       prefilter=r"password-auth[ \t]|type[ \t]+[^\r\n]*pw[ \t]|subslocid[ \t]", group=1,
       needles=("password-auth", " pw", "subslocid")),
    # Backup and storage tools' command lines: iscsiadm's CHAP password, NUT's MONITOR line,
    # RMAN's connections (target user/password@db), zip's -P and 7-Zip's -p, MinIO's "mc
    # alias set" (its access key and secret), a key piped into a keystore, a passphrase
    # typed at ssh's prompt and echoed.
    _d("secret_assignment",
       r"-n[ \t]+[\w.]*\.auth\.password(?:_in)?[ \t]+-v[ \t]+(\S+)", _not_stand_in,
       prefilter=r"auth\.password[^\r\n]*-v[ \t]", group=1, needles=("auth.password",)),
    _d("secret_assignment",
       r"(?m)^[ \t]*MONITOR[ \t]+\S+@\S+[ \t]+\d+[ \t]+\S+[ \t]+(\S+)[ \t]+"
       r"(?:master|slave|primary|secondary)\b", _not_stand_in,
       prefilter=r"MONITOR[ \t]+[^\r\n]*(?:master|slave|primary|secondary)", group=1,
       needles=("MONITOR",)),
    _d("secret_assignment",
       r"(?i)\brman\b[^\n]*?\b(?:target|catalog|auxiliary)[ \t]+[\w$#]+/([^@\s/]+)@",
       _not_stand_in, prefilter=r"(?i)rman[^\r\n]*(?:target|catalog|auxiliary)[ \t]+[^\r\n]*@",
       group=1, gate=r"(?i:rman)"),
    _d("secret_assignment",
       r"(?i)\brman\b[^\n]*?\bcatalog[ \t]+[\w$#]+/([^@\s/]+)@", _not_stand_in,
       prefilter=r"(?i)rman[^\r\n]*catalog[ \t]+[^\r\n]*@", group=1, gate=r"(?i:rman)"),
    _d("secret_assignment",
       r"(?:\bzip\b[^\n|;&]*?[ \t]-P[ \t]+|\b7z[a-z]?\b[^\n|;&]*?[ \t]-p)([^\s\"']+)",
       _not_stand_in, prefilter=r"zip[^\r\n]*-P[ \t]|7z[^\r\n]*-p[^ \t]", group=1,
       needles=("zip", "7z")),
    _d("secret_assignment",
       r"\bmc[ \t]+alias[ \t]+set[ \t]+\S+[ \t]+\S+[ \t]+([^\s\"']+[ \t]+[^\s\"']+)",
       _not_stand_in, prefilter=r"mc[ \t]+alias[ \t]+set[ \t]", group=1, needles=("alias",)),
    _d("secret_assignment",
       r"echo[ \t]+(['\"]?)([^\s|\"']{6,})\1[ \t]*\|[^\n]{0,60}keystore[ \t]+add", _not_stand_in,
       prefilter=r"echo[ \t]+[^\r\n]*keystore[ \t]+add", group=2, needles=("keystore",)),
    _d("secret_assignment", r"Enter passphrase for key '[^'\n]*':[ \t]*(\S+)", _not_stand_in,
       prefilter=r"Enter passphrase for key '", group=1, needles=("Enter passphrase",)),
    # A Koha systempreferences row: its name, then its value ('OverDriveClientSecret','...')
    _d("secret_assignment",
       r"\([ \t]*'[A-Za-z]*(?:Pass|Password|Passwd|Pwd|Secret|ApiKey|Token)'[ \t]*,[ \t]*"
       r"'([^'\s]{6,})'", v.secret_value_ok,
       prefilter=r"'[A-Za-z]*(?:Pass|Password|Passwd|Pwd|Secret|ApiKey|Token)'[ \t]*,[ \t]*'",
       group=1, needles=("',",)),
    _d("secret_assignment",
       r"(?i)(?<![\w-])--(?:access-?key|secret-?key|accesskey-?secret)(?:=|[ \t]+)"
       r"([A-Za-z0-9_/+=.-]{16,128})"
       r"(?![\w/+=.-])", v.strong_token,
       prefilter=r"(?i)--(?:access|secret)-?key", group=1, gate=r"(?i:key)"),
    _d("secret_assignment",
       r"(?i)master\.key[^\n]{0,20}?(?:[ \t]is|:|=)[ \t]*`?([0-9a-f]{32})(?![0-9a-f])",
       prefilter=r"(?i)master\.key", group=1, gate=r"(?i:master\.key)"),
    _d("secret_assignment",
       r"(?:join\.slack\.com/t/[\w-]+/shared_invite/|huggingface\.co/organizations/[\w-]+/share/)"
       r"([A-Za-z0-9_-]{16,})",
       prefilter=r"join\.slack\.com/t/|huggingface\.co/organizations/", group=1,
       needles=("join.slack.com/t/", "huggingface.co/organizations/")),
    # Telephony's configs: Asterisk's voicemail.conf (a mailbox => its PIN, the name, the
    # address), Grandstream's provisioning P-values (P2 the admin's password, P34 the SIP
    # account's), Yealink's user_password (user:password), a session border controller's
    # SNMP auth and privacy passwords, Cisco's cleartext "password 0 X" inside a line, an ARI
    # link's api_key=user:password.
    _d("secret_assignment", r"(?m)^[ \t]*\d{2,10}[ \t]*=>[ \t]*(\d{3,10}),",
       prefilter=r"[0-9]{2}[ \t]*=>[ \t]*[0-9]{3}", group=1, needles=("=>",), digits=True),
    _d("secret_assignment",
       r"(?m)(?:^[ \t]*P(?:2|34)[ \t]*=[ \t]*|<P(?:2|34)>)([^<\s]{4,64})",
       v.secret_value_ok, prefilter=r"(?:^|<)[ \t]*P(?:2|34)[ \t]*[=>]", group=1,
       needles=("P2", "P34")),
    _d("secret_assignment",
       r"(?i)\buser_password[ \t]*=[ \t]*[^:\s]{1,40}:(\S{4,64})", v.secret_value_ok,
       prefilter=r"(?i)user_password[ \t]*=", group=1, gate=r"(?i:user_password)"),
    _d("secret_assignment",
       r"(?im)^[ \t]*(?:auth|priv)-password[ \t]+(\S{6,64})[ \t]*$", v.secret_value_ok,
       prefilter=r"(?i)(?:auth|priv)-password[ \t]", group=1, gate=r"(?i:-password)"),
    _d("secret_assignment", r"(?<![\w-])password[ \t]+0[ \t]+(\S{4,64})(?![^\s])",
       v.secret_value_ok, prefilter=r"password[ \t]+0[ \t]+", group=1, needles=("password",)),
    _d("secret_assignment", r"[?&]api_key=[^:&\s]{1,40}:([^&\s#]{6,128})", v.secret_value_ok,
       prefilter=r"[?&]api_key=[^:&\s]{1,40}:", group=1, needles=("api_key=",)),
    # A health plan's member id where the text names an insurer or a plan ("Insurance: Aetna
    # member ID W579719795", a card's OCR: "UnitedHealthcare ... Member ID: 907291269").
    _d("national_id",
       r"(?i)(?:insurance|insurer|health[ \t]+plan|aetna|cigna|humana|unitedhealthcare|bluecross"
       r"|blue[ \t]+cross|blue[ \t]+shield|anthem|kaiser|medicaid|medicare|tricare"
       # (a dental or a vision plan's, a claim's, a payer's: "EyeMed VISION CARE\nMember ID:
       # 122733160", "Appeal of Claim Denial - Patient: ..., Member ID: 37983678461")
       r"|eyemed|vsp|delta[ \t]+dental|metlife|bcbs|dental|vision|hicaps|claim|payer)"
       r"[\s\S]{0,120}?"
       r"member[ \t]+(?:id|number|no\.?|#)[ \t]*(?:[:#]|is)?[ \t]*"
       r"((?-i:[A-Z]{0,4}\d[A-Z0-9]{5,14}))(?![\w-])", ids.member_id_ok,
       prefilter=r"(?i)(?:insur|health|aetna|cigna|humana|unitedhealth|blue|anthem|kaiser|medica"
                 r"|tricare|eyemed|vsp|dental|metlife|bcbs|vision|hicaps|claim|payer)"
                 r"[\s\S]{0,130}member[ \t]",
       group=1, gate=r"(?i:member)"),
    # ... and a Medicaid id under its name, as a key or in prose ("medicaid_id": "ZP45081U",
    # "medicaid DS28316E").
    _d("national_id",
       r"(?i)(?<![a-z])medicaid(?:[ _-]?(?:id|number|no|#))?\\?[\"']?"
       r"[ \t]*[:=]?[ \t]*\\?[\"']?((?-i:[A-Z]{0,4}\d[A-Z0-9]{5,14}))(?![\w-])",
       ids.member_id_ok, prefilter=r"(?i)medicaid", group=1, gate=r"(?i:medicaid)"),
    # Held-out corpora OC to OH (web hosting and registrars, home care, storage and parking,
    # dental and allied health practices, game servers, academic publishing) found these.
    # cPanel's session token in its URLs and its API's Authorization schemes (whm, cpanel),
    # GoDaddy's sso-key, WHMCS's card encryption hash, licence and AutoAuth hash, Plesk's
    # session id, WHM's legacy remote access key, ZeroSSL's EAB HMAC key, Imunify360's key.
    _plain("secret_assignment", r"/(cpsess\d{10})(?![\w])", prefilter=r"/cpsess\d{10}",
           needles=("/cpsess",)),
    _plain("secret_assignment",
           r"(?i)Authorization:[ \t]*(?:whm|cpanel)[ \t]+[\w.@-]+:([A-Z0-9]{32})(?![A-Za-z0-9])",
           prefilter=r"(?i)authorization:[ \t]*(?:whm|cpanel)[ \t]", needles=("uthorization",)),
    _plain("secret_assignment", r"(?i)\bsso-key[ \t]+([\w-]{8,}:[\w-]{8,})",
           prefilter=r"(?i)sso-key[ \t]", needles=("sso-key", "SSO-KEY")),
    _plain("secret_assignment",
           r"\$(?:cc_encryption_hash|license)[ \t]*=[ \t]*'([^'\s]{16,128})'", v.secret_value_ok,
           prefilter=r"\$(?:cc_encryption_hash|license)[ \t]*=", needles=("$cc_enc", "$license")),
    _plain("secret_assignment", r"(?i)dologin\.php\?[^\s\"'<>]*?[?&]hash=([0-9a-f]{40,64})",
           prefilter=r"(?i)dologin\.php\?", needles=("dologin",)),
    _plain("secret_assignment", r"(?i)[?&;][a-z]*sessid=([0-9a-f]{32}|[A-Za-z0-9,-]{20,64})",
           v.tokenish, prefilter=r"(?i)[?&;][a-z]*sessid=", needles=("SESSID=", "sessid=")),
    _plain("secret_assignment",
           r"(?i)remote[ \t]+access[ \t]+key[^\n]*\n(?:[ \t]*\n)?[ \t]*((?:[0-9a-f]{32}[ \t]*\r?\n"
           r"[ \t]*){2,}[0-9a-f]{32})",
           prefilter=r"(?i)remote[ \t]+access[ \t]+key", needles=("ccess",)),
    _plain("secret_assignment", r"--eab-hmac-key[ =]['\"]?([A-Za-z0-9_-]{20,})",
           prefilter=r"--eab-hmac-key", needles=("--eab-hmac-key",)),
    _plain("secret_assignment", r"\b(IM360-[A-Z0-9]{16,40})\b", prefilter=r"IM360-[A-Z0-9]{16}",
           needles=("IM360-",)),
    # Game servers: RCON and Steam passwords by their settings' names (+rcon_password X,
    # RConPassword X, steampass='...'), steamcmd's and a chat's login and register commands
    # (a password typed into a game's chat), Twitch's chat token, a Discord gift link, a
    # game server login token (GSLT), Discord's CDN signature, a
    # FiveM convar holding a key (set steam_webApiKey "...").
    _plain("secret_assignment",
           r"(?i)(?<![\w-])(?:rcon[_ .]?password|sv_password|steampass|serveradminpassword)"
           r"(?:[ \t]*=[ \t]*|[ \t]+)[\"']?([^\s\"']{4,64})", _password_or_passphrase,
           prefilter=r"(?i)(?:rcon.?password|sv_password|steampass|serveradminpassword)",
           needles=("assword", "ASSWORD", "steampass", "STEAMPASS")),
    _plain("secret_assignment",
           r"(?m)(?:^|Steam>|[:>\]][ \t]+)/?(?:login[ \t]+[\w.@-]+|login|register|enablecheats)"
           r"[ \t]+(\S{6,64})[ \t]*\r?$", v.password_like,
           prefilter=r"(?:login|register|enablecheats)[ \t]+[^ \t\r\n]{6}",
           needles=("login", "register", "enablecheats")),
    _plain("secret_assignment",
           r"(?m)(?:^|[:>\]][ \t]+)/?register[ \t]+(\S{6,64})[ \t]+\1[ \t]*\r?$", v.told_passphrase,
           prefilter=r"register[ \t]+[^ \t\r\n]{6}", needles=("register",)),
    _plain("secret_assignment", r"\boauth:([a-z0-9]{30})\b", prefilter=r"oauth:[a-z0-9]{30}",
           needles=("oauth:",)),
    _plain("secret_assignment", r"\bdiscord(?:app\.com/gifts|\.gift)/([A-Za-z0-9]{16,24})\b",
           prefilter=r"discord(?:app\.com/gifts|\.gift)/", needles=("discord",)),
    _plain("secret_assignment", r"\bGSLT[ \t]*[:=]?[ \t]*([0-9A-F]{32})\b",
           prefilter=r"GSLT[ \t]*[:=]?[ \t]*[0-9A-F]{32}", needles=("GSLT",)),
    _plain("secret_assignment", r"[?&]ex=[0-9a-f]{6,}&is=[0-9a-f]{6,}&hm=([0-9a-f]{64})",
           prefilter=r"[?&]ex=[0-9a-f]{6,}&is=[0-9a-f]{6,}&hm=", needles=("&hm=",)),
    _plain("secret_assignment",
           r"(?im)^[ \t]*set[rs]?[ \t]+[\w.]*(?:api_?key|password|secret|token|licen[cs]e_?key)"
           r"\w*[ \t]+\"([^\"\s]{8,})\"", v.secret_value_ok,
           prefilter=r"(?i)set[rs]?[ \t]+[\w.]*(?:api_?key|password|secret|token|licen)",
           needles=("set", "SET")),
    # A Wi-Fi network's key: on a line below its heading ("GUEST WI-FI\nNetwork: UB-Gast\nKey:
    # thistle-granite-43"), or after the network's name and a slash ("SSID: himawari-staff /
    # ZDyGudAFvAWvkBo2", "wifi for the tablet is DelgadoHome / bc8465hbn"); EZproxy's session
    # cookie (fifteen characters, shorter than other sessions' ids).
    _plain("secret_assignment",
           r"(?i)(?:wi-?fi|wlan)\b[^\n]{0,60}\n(?:[^\n]{0,60}\n){0,2}?[ \t]*(?:key|password"
           r"|passphrase|psk|passwort|wachtwoord|schl[üu]ssel)[ \t]*[:=][ \t]*([^\s\"']{8,63})",
           v.told_passphrase,
           # (the words alone: with the key's word up to 200 characters on, the one Hyperscan
           # database lost this expression's matches on a MicroPython boot.py, as
           # test_prefilter.py's check of the corpora found)
           prefilter=r"(?i)wi-?fi|wlan",
           needles=("i-Fi", "i-fi", "I-FI", "iFi", "ifi", "IFI", "lan", "LAN")),
    _plain("secret_assignment",
           r"(?i)(?:wi-?fi|wlan|ssid)\b[^\n/]{0,60}?[ \t:\uff1a][^\s/:]{2,32}[ \t]+/[ \t]+"
           r"([^\s/]{8,63}?)(?=[,.;)]?(?:\s|$))", v.told_passphrase,
           prefilter=r"(?i)(?:wi-?fi|wlan|ssid)[^\r\n/]{0,100}[ \t]/[ \t]",
           needles=(" / ",)),
    _plain("secret_assignment", r"(?i)(?<![\w.-])ezproxy[a-z0-9]*=([A-Za-z0-9]{12,64})(?![\w-])",
           v.tokenish, prefilter=r"(?i)ezproxy[a-z0-9]*=", needles=("zproxy", "ZPROXY")),
    # Manuscript systems' login links (ScholarOne's URL_MASK, Editorial Manager's l.asp?...&l=),
    # an ORCID sign-in's callback code, an app's invite code, a Rails master key as cat prints
    # it, an authenticator's setup key typed by hand, a FHIR contact's phone.
    _plain("secret_assignment", r"[?&]URL_MASK=([0-9a-f]{32})\b", prefilter=r"URL_MASK=",
           needles=("URL_MASK=",)),
    _plain("secret_assignment", r"/l\.asp\?[^\s\"'<>]*?[?&]l=([A-Z0-9]{8,16})\b",
           prefilter=r"/l\.asp\?", needles=("/l.asp?",)),
    _plain("secret_assignment", r"/callback\?(?:[^\s&#\"']*&)*code=([A-Za-z0-9_-]{6,})",
           v.tokenish, prefilter=r"/callback\?[^\s\"']*code=", needles=("/callback?",)),
    _plain("secret_assignment",
           r"(?i)(?:invit(?:e|ation)[ \t_-]+code|code[ \t]+d'invitation(?:[ \t]+est)?)"
           r"[ \t]*:?[ \t]*((?=[A-Z0-9-]*\d)(?=[0-9-]*[A-Z])"
           r"(?-i:[A-Z0-9]{4}-[A-Z0-9]{4}|[A-Z0-9]{6,12}))\b",
           prefilter=r"(?i)invit(?:e|ation)[ \t_-]+code|code[ \t]+d.invitation",
           needles=("nvit", "NVIT")),
    _plain("secret_assignment",
           r"\b(?:master|credentials/[\w-]+)\.key\b[^\n]*\n[ \t]*([0-9a-f]{32})\b",
           prefilter=r"\.key[^\r\n]*\n[ \t]*[0-9a-f]{32}", needles=(".key",)),
    _plain("secret_assignment",
           r"(?i)(?:authenticator|authy|totp|2fa|mfa)[^\n]{0,60}?(?::|[ \t]is)[ \t]*"
           r"(?:\r?\n[ \t]*)?"
           r"((?-i:[A-Z2-7]{4}(?: [A-Z2-7]{4}){3,7}|[A-Z2-7]{16,32}))(?![A-Za-z0-9])",
           v.has_digit,
           prefilter=r"(?i)(?:authenticator|authy|totp|2fa|mfa)[^\r\n]{0,60}(?::|[ \t]is)",
           needles=("uthenticator", "UTHENTICATOR", "uthy", "UTHY", "otp", "OTP", "2fa", "2FA",
                    "mfa", "MFA")),
    _plain("phone",
           r"\\?\"system\\?\"[ \t]*:[ \t]*\\?\"(?:phone|sms)\\?\"[ \t]*,[ \t\r\n]*"
           r"\\?\"value\\?\"[ \t]*:"
           r"[ \t]*\\?\"(\+?[\d][\d ().-]{6,18}\d)\\?\"", v.e164ish,
           prefilter=r"\"system\\?\"[ \t]*:[ \t]*\\?\"(?:phone|sms)", needles=('"system',)),
    # A database's or a mail server's password under a short key ($c->{dbpass} = '...',
    # $smtp_pass = "..."), and PHP's session id told in a log's prose ("in session
    # mtzbg018es1ivxtfpqp843vtro").
    _plain("secret_assignment",
           r"(?i)(?<![a-z])(?:db|sql|mysql|pg|smtp|ldap|ftp|mail|imap)_?pass(?:wd)?(?![\w-])\}?"
           r"\\?[\"']?[ \t]*(?:=>|[:=])[ \t]*\\?[\"']([^\"'\n\\]{4,128})\\?[\"']",
           v.secret_value_ok, prefilter=r"(?i)(?:db|sql|pg|smtp|ldap|ftp|mail|imap)_?pass",
           needles=("pass", "PASS", "Pass")),
    _plain("secret_assignment", r"(?i)\bin[ \t]+session[ \t]+([a-z0-9]{26})\b",
           v.letters_and_digits,
           prefilter=r"(?i)in[ \t]+session[ \t]+[a-z0-9]{26}", needles=("session", "SESSION")),
    # Held-out corpora AF to AH and SF to SH (estates, farms, translation agencies, hotels
    # and rentals, transit and ride-hailing, bug bounties): an SSN under FHIR's us-ssn system,
    # Confluent's basic.auth.user.info, a C define holding a key, a smart lock's code in a
    # deep link and after its lock=, TTLock's keyboardPwd, a WSKey, SIBA's chave_acesso, a
    # PSK told, a vendor's live_sk_/test_sk_ key, an AES key as hex bytes.
    _plain("us_ssn",
           r"\\?\"system\\?\"[ \t]*:[ \t]*\\?\"http://hl7\.org/fhir/sid/us-ssn\\?\"[ \t]*,"
           r"[ \t\r\n]*"
           r"\\?\"value\\?\"[ \t]*:[ \t]*\\?\"(\d{3}-?\d{2}-?\d{4})\\?\"", v.ssn_ok,
           prefilter=r"fhir/sid/us-ssn", needles=("us-ssn",)),
    _plain("secret_assignment", r"basic\.auth\.user\.info[ \t]*[=:][ \t]*([^\s:\"';]+:[^\s\"';]+)",
           prefilter=r"basic\.auth\.user\.info", needles=("basic.auth.user.info",)),
    _plain("secret_assignment",
           # (not a BLE characteristic's UUID: "#define KEYER_CFG_UUID \"961d061f-...\"")
           r"(?m)^[ \t]*#define[ \t]+(?!\w*UUID\b)\w*(?:KEY|SECRET|TOKEN|PASS(?:WORD)?|PSK)\w*"
           r"[ \t]+"
           r"\"([^\"\s]{8,})\"",
           v.secret_value_ok, prefilter=r"#define[ \t]+\w*(?:KEY|SECRET|TOKEN|PASS|PSK)",
           needles=("#define",)),
    _plain("secret_assignment",
           r"(?i)(?:unlock\?[^\s\"'&]*&|\block=[^\s&]+[ \t&]+)code=(\d{4,8})\b",
           prefilter=r"(?i)(?:unlock\?|lock=)[^\r\n]{0,120}code=\d{4}", needles=("code=",)),
    _plain("secret_assignment", r"\\?\"keyboardPwd\\?\"[ \t]*:[ \t]*\\?\"(\d{4,10})\\?\"",
           prefilter=r"keyboardPwd", needles=("keyboardPwd",)),
    _plain("secret_assignment",
           r"(?im)^[ \t]*(?:wskey|chave_acesso|chave_de_acesso)[ \t]*[:=][ \t]*[\"']?"
           r"((?=[^\s\"']*[A-Za-z])[A-Za-z0-9+/=_-]{16,})", v.letters_and_digits,
           prefilter=r"(?i)(?:wskey|chave_acesso|chave_de_acesso)[ \t]*[:=]",
           needles=("wskey", "WSKey", "chave_")),
    _plain("secret_assignment",
           r"(?i)\b(?:psk|pre-?shared[ -]key)[ \t]+(?:is|was)[ \t]*:?[ \t]+([^\s\"',;]{8,64})",
           v.secret_value_ok, prefilter=r"(?i)(?:psk|pre-?shared[ -]key)[ \t]+(?:is|was)",
           needles=("psk", "PSK", "shared")),
    _plain("secret_assignment", r"\b([a-z][a-z0-9]{1,11}_(?:live|test|prod)_sk_[A-Za-z0-9]{20,})\b",
           prefilter=r"_(?:live|test|prod)_sk_", needles=("_sk_",)),
    _plain("secret_assignment",
           r"(?i)\baes[ _-]?key[ \t]*[:=][ \t]*((?:[0-9A-F]{2}[ :]){15,31}[0-9A-F]{2})\b",
           prefilter=r"(?i)aes[ _-]?key[ \t]*[:=]", needles=("aes", "AES")),
    # A licence key in an env file (MMT_LICENSE=HPYZF3J6-R4MV-...), a Wi-Fi key after its
    # German name with no colon ("WPA2-Schlüssel Lisboa2021?"), OpenWrt's wireless key, a
    # secret in an aligned key/value table (vault kv get, Postman's export), Postman's API
    # key, a session flag's value, base64 credentials piped to base64 -d.
    _plain("secret_assignment",
           r"(?im)^[ \t]*(?:export[ \t]+)?[A-Z0-9_]*LICEN[CS]E(?:_KEY)?[ \t]*=[ \t]*[\"']?"
           r"((?=[A-Z0-9-]*\d)[A-Z0-9]{4,}(?:-[A-Z0-9]{4,}){3,})",
           prefilter=r"(?i)licen[cs]e(?:_key)?[ \t]*=", needles=("LICEN", "licen")),
    _plain("secret_assignment",
           r"(?i)(?:wlan|wi-?fi|wpa2?)[ _-]?(?:schl[üu]ssel|passwort|kennwort|key|passphrase)"
           r"[ \t]+([^\s\"',;<>]{8,63})", v.told_passphrase,
           prefilter=r"(?i)(?:wlan|wi-?fi|wpa2?)[ _-]?(?:schl|passwort|kennwort|key|passphrase)",
           needles=("lan", "LAN", "ifi", "IFI", "i-Fi", "i-fi", "pa", "PA")),
    _plain("secret_assignment", r"(?m)^[ \t]*option[ \t]+key[ \t]+'([^'\n]{8,63})'",
           v.secret_value_ok, prefilter=r"option[ \t]+key[ \t]+'", needles=("option",)),
    _plain("secret_assignment",
           r"(?im)^[ \t]*[\w.-]*(?:secret|passw(?:or)?d|passwd|token|api_?key|_key)[ \t]{2,}"
           r"([^\s]{8,128})[ \t]*$", v.table_secret_ok,
           prefilter=r"(?i)(?:secret|passw|token|api_?key|_key)[ \t][ \t]+[^\s]{8}",
           needles=("  ", "\t ", " \t", "\t\t")),
    _plain("secret_assignment", r"\b(PMAK-[0-9a-f]{24}-[0-9a-f]{34})\b", prefilter=r"PMAK-",
           needles=("PMAK-",)),
    _plain("secret_assignment", r"--session[ =][\"']?([A-Za-z0-9%._-]{20,})", v.tokenish,
           prefilter=r"--session[ =]", needles=("--session",)),
    _plain("secret_assignment",
           r"\becho[ \t]+(?:-n[ \t]+)?['\"]?([A-Za-z0-9+/]{12,}={0,2})['\"]?[ \t]*\|[ \t]*base64"
           r"[ \t]+(?:-d|--decode|-D)", v.base64_login,
           # (not "\|[ \t]*base64...": beside two other prefilters that open with "\|", the
           # engine's single-match mode missed it on some lines, a defect of the engine's)
           prefilter=r"base64[ \t]+(?:-d|--decode|-D)", needles=("base64",)),
    # Practices: Cliniko's API key, Open Dental's FHIR Authorization (developer and customer
    # keys), a PHP-serialized option's secret, rsyncd's secrets file, TeamViewer's id and
    # password, Hikvision's Hik-Connect verification code, a FHIR phone.
    _plain("secret_assignment", r"\b(MS0[A-Za-z0-9]{30,80}-(?:au|uk|ca|eu|us)\d)\b",
           prefilter=r"MS0[A-Za-z0-9]{30}", needles=("MS0",)),
    _plain("secret_assignment", r"\bODFHIR[ \t]+([A-Za-z0-9]{8,}/[A-Za-z0-9]{8,})",
           prefilter=r"ODFHIR[ \t]", needles=("ODFHIR",)),
    _plain("secret_assignment",
           r"(?i)s:\d+:\\?\"[\w-]*(?:api_?key|passw(?:or)?d|secret|token)[\w-]*\\?\";s:\d+:\\?\""
           r"([^\"\\]{6,})", v.secret_value_ok,
           prefilter=r"(?i)s:\d+:\\?\"[\w-]*(?:api_?key|passw|secret|token)",
           needles=(";s:",)),
    _plain("secret_assignment",
           r"rsyncd\.secrets\b[^\n]*\n[ \t]*[\w.-]+:(\S{4,128})", v.secret_value_ok,
           prefilter=r"rsyncd\.secrets", needles=("rsyncd.secrets",)),
    _plain("secret_assignment",
           r"(?i)teamviewer[^\n/]{0,30}?\d(?:[ ]?\d){7,10}[ \t]*/[ \t]*(\S{4,32})",
           v.secret_value_ok, prefilter=r"(?i)teamviewer[^\r\n]{0,50}/",
           needles=("eamViewer", "eamviewer", "EAMVIEWER")),
    _plain("secret_assignment",
           r"(?i)hik-?connect\)?[ \t]+verification[ \t]+code[ \t]*:[ \t]*((?-i:[A-Z]{6}))\b",
           prefilter=r"(?i)hik-?connect", needles=("ik-Connect", "ikConnect", "ik-connect")),

    # redis-cli's AUTH at its prompt, a session cookie told with spaces round its "=", and a
    # Facebook Live stream key.
    _d("secret_assignment", r"(?m)^[\w.:-]*>[ \t]*AUTH[ \t]+(?:\S+[ \t]+)?(\S{6,128})[ \t]*$",
       v.secret_value_ok, prefilter=r">[ \t]*AUTH[ \t]", group=1, needles=("AUTH",)),
    _d("secret_assignment",
       r"\b(?:PHPSESSID|JSESSIONID|ASP\.NET_SessionId|laravel_session|connect\.sid)[ \t]+=[ \t]+"
       r"([A-Za-z0-9%._~-]{16,256})", prefilter=r"(?:SESSID|SESSIONID|SessionId|_session|\.sid)"
       r"[ \t]+=[ \t]+", group=1, needles=("SESSID", "SESSIONID", "SessionId", "_session", ".sid")),
    _d("secret_assignment", r"(?<![\w-])(FB-\d{15,17}-\d-[A-Za-z0-9_-]{20,})(?![\w-])",
       prefilter=r"FB-[0-9]{15}", group=1, needles=("FB-",)),
    # Kerberos keys as klist -K prints them: the principal, then the key in brackets.
    _d("secret_assignment",
       r"@[A-Z0-9.-]+[ \t]+\((0x[0-9a-f]{32,128})\)",
       prefilter=r"@[A-Z0-9.-]+[ \t]+\(0x[0-9a-f]{32}", group=1, needles=("(0x",)),
    # A wallet's PIN said in Tagalog or Indonesian ("MPIN ko 9900", "PIN ko ay 4321").
    _d("secret_assignment",
       r"(?<![\w-])M?PIN[ \t]+(?:ko|ku|nya|saya|namin)(?:[ \t]+(?:ay|ya|is))?[ \t]+(\d{4,6})(?!\d)",
       prefilter=r"PIN[ \t]+(?:ko|ku|nya|saya|namin)", group=1, needles=("PIN",), digits=True),
    # EV charging: an RFID card's uid where OCPI names it (its token's path, a cdr_token's or
    # a token's "uid" beside "RFID"): what the charger takes as the driver's card. (Not the
    # contract's eMAID, DE-8EO-C12345678-9: a customer's number, as an order's is.)
    _d("secret_assignment", r"/tokens/[A-Z]{2}/[A-Z0-9]{3}/([0-9A-Fa-f]{8,20})(?![\w-])",
       prefilter=r"/tokens/[A-Z]{2}/[A-Z0-9]{3}/[0-9A-Fa-f]{8}", group=1, needles=("/tokens/",)),
    _d("secret_assignment",
       r"\\?\"uid\\?\"[ \t]*:[ \t]*\\?\"([0-9A-Fa-f]{8,20})\\?\"[ \t]*,[ \t]*\\?\"type\\?\""
       r"[ \t]*:[ \t]*\\?\"RFID",
       prefilter=r"uid\\?\"[ \t]*:[ \t]*\\?\"[0-9A-Fa-f]{8}", group=1, needles=("RFID",)),
    # A Malaysian MyKad under a short key (ic=, idno=, beneficiary_idno=).
    _d("national_id",
       r"(?i)(?<![a-z])(?:ic|ic_?no|idno|id_no|mykad)\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?"
       r"(\d{6}-?\d{2}-?\d{4})(?![\d-])", ids.mykad_ok,
       prefilter=r"(?i)(?:ic|idno|id_no|mykad)[^\r\n]{0,6}[:=][^\r\n]{0,4}\d{6}", group=1,
       gate=r"(?i:ic|id|mykad)", digits=True),
    # An Indonesian NIK grouped in fours under its key (an OCR of a KTP: nik: '3172 0311 ...').
    _d("national_id",
       r"(?i)(?<![a-z])nik\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?(\d{4} \d{4} \d{4} \d{4})(?![\d])",
       ids.nik_ok, prefilter=r"(?i)nik[^\r\n]{0,6}[:=][^\r\n]{0,4}\d{4} \d{4}", group=1,
       gate=r"(?i:nik)", digits=True),
    # The Philippines' PhilHealth number (2-9-1 digits), anywhere in its shape.
    _d("national_id", r"(?<![\d-])(\d{2}-\d{9}-\d)(?![\d-])", prefilter=r"\d{2}-\d{9}-\d",
       group=1, digits=True, gate=r"-\d{9}-"),
    # Passports and identity documents: a Vietnamese passport after its word ("hộ chiếu số
    # N1435927"), a Russian one's series and number, a Japanese licence's number between
    # 第 and 号, an EU driving licence's field 5 (its number) on an OCR of the card, Textract
    # AnalyzeID's DOCUMENT_NUMBER, and an ID card's machine-readable zone (TD1: the
    # document's number, its check digit, and the optional data a country puts there, a
    # Spanish DNI or a Polish PESEL).
    _d("national_id",
       "(?i)(?<![\\w])(?:h\u1ed9[ \\t]+chi\u1ebfu|ho[ \\t]+chieu|paspor|pasaporte)"
       # (its country named first: "Hộ chiếu Việt Nam C0989859")
       "(?:[ \\t]+Vi(?:\u1ec7|e)t[ \\t]+Nam)?"
       r"(?:[ \t]+(?:s\u1ed1|so|no\.?|nomor|number))?[ \t]*:?[ \t]*([A-Z]{1,2}\d{6,8})(?![\w])",
       prefilter=r"(?i)(?:ha[ \t]+chiau|ho[ \t]+chieu|paspor|pasaporte)[^\r\n]{0,12}[A-Z]\d{6}",
       group=1, digits=True, gate="(?i:h\u1ed9|ho|paspor|pasaporte)"),
    _d("national_id",
       "(?i)\u0441\u0435\u0440\u0438\u044f[ \\t]+\u0438[ \\t]+\u043d\u043e\u043c\u0435\u0440"
       r"[ \t]*:?[ \t]*(\d{2}[ \t]?\d{2}[ \t]?\d{6})(?!\d)",
       prefilter=r"aaaaa[ \t]+a[ \t]+aaaaa[ \t]*:?[ \t]*\d{2}[ \t]?\d{2}[ \t]?\d{6}", group=1,
       gate="(?i:\u0441\u0435\u0440\u0438\u044f)", digits=True),
    _d("national_id", "\u7b2c[ \\t\u3000]{0,3}(\\d{12})[ \\t\u3000]{0,3}\u53f7",
       v.has_digit, prefilter=r"a[ \t]{0,3}\d{12}[ \t]{0,3}a", group=1, needles=("\u7b2c",),
       digits=True),
    _d("national_id",
       "(?i)(?:f\u00fchrerschein|permis[ \\t]+de[ \\t]+conduire|driving[ \\t]+licen[cs]e"
       "|patente[ \\t]+di[ \\t]+guida|permiso[ \\t]+de[ \\t]+conducci\u00f3n|rijbewijs"
       r"|prawo[ \t]+jazdy)[\s\S]{0,400}?(?<![\w.])5\.[ \t]+(?-i:([A-Z0-9]{8,13}))(?![\w])",
       v.has_digit,
       prefilter=r"(?i)f.hrerschein|permis[ \t]+de[ \t]+conduire|driving[ \t]+licen[cs]e"
                 r"|patente[ \t]+di[ \t]+guida|permiso[ \t]+de[ \t]+conducci.n|rijbewijs"
                 r"|prawo[ \t]+jazdy",
       group=1, digits=True,
       gate="(?i:f\u00fchrerschein|permis|licen|patente|permiso|rijbewijs|prawo)"),
    _d("national_id",
       r"\\?\"Text\\?\"[ \t]*:[ \t]*\\?\"(?:DOCUMENT_NUMBER|ID_NUMBER|PASSPORT_NUMBER)\\?\"\}"
       r"[ \t]*,[ \t]*\\?\"ValueDetection\\?\"[ \t]*:[ \t]*\{[ \t]*\\?\"Text\\?\"[ \t]*:[ \t]*"
       r"\\?\"([^\"\\\n]{4,30})\\?\"",
       v.has_digit, prefilter=r"(?:DOCUMENT|ID|PASSPORT)_NUMBER", group=1,
       needles=("_NUMBER",)),
    _d("national_id", r"(?<![A-Z0-9<])[IAC][A-Z<][A-Z<]{3}([A-Z0-9<]{9}\d[A-Z0-9<]{15})"
                      r"(?![A-Z0-9<])",
       prefix=ids.td1_length, prefilter=r"[ACI][A-Z<][A-Z<]{3}[A-Z0-9<]{9}\d[A-Z0-9<]{15}",
       group=1,
       digits=True, gate=r"[ACI][A-Z<][A-Z<]{3}"),
    # France's NIR printed in its groups ("1 67 03 18 370 369 86"), its key right.
    _d("national_id",
       r"(?<!\d)(?<!\d )([12] \d{2} (?:0[1-9]|1[0-2]|[2-9]\d) (?:\d{2}|2[AB]) \d{3} \d{3} \d{2})"
       r"(?![\d])", ids.nir_ok,
       prefilter=r"[12] \d{2} \d{2} [0-9AB]{2} \d{3} \d{3} \d{2}", group=1, digits=True,
       checksummed=True, gate=r"\d \d{3} \d{3} \d"),
    # A public address as EC2's public DNS name spells it (ec2-54-1-2-3.compute-1...).
    # (its prefilter needs the "-" the joined reading has none of: no joined prefilter)
    _d("ipv4",
       r"(?<![\w-])ec2-(\d{1,3}-\d{1,3}-\d{1,3}-\d{1,3})\.(?:[a-z0-9-]+\.)?compute(?:-1)?\."
       r"amazonaws\.com", v.dashed_public_ipv4,
       prefilter=r"ec2-\d{1,3}-\d{1,3}-\d{1,3}-\d{1,3}\.", group=1, needles=("ec2-",),
       digits=True, joined=_nothing_joined),
    # A Swedish personnummer under "ssn", as BankID's claims carry it ("ssn": "199905173366"),
    # or a payment's payerSSN ("810705-9928").
    _d("national_id",
       r"(?i)\\?[\"'][a-z_]{0,16}ssn\\?[\"'][ \t]*:[ \t]*\\?[\"']((?:19|20)?\d{6}[-+]?\d{4})"
       r"\\?[\"']",
       ids.personnummer_ok, prefilter=r"(?i)ssn\\?[\"'][ \t]*:[ \t]*\\?[\"'][0-9]{6}",
       group=1, gate=r"(?i:ssn)", digits=True),
    # An SSN after its name on a form's OCR: broken after its second dash by the line's end
    # ("social security number 098-96-\n0382"), or a zero read as the letter O.
    # (each prefilter needs a "-", which the joined reading has none of: no joined prefilter)
    _d("us_ssn",
       r"(?i)(?:social[ \t]+security[ \t]+(?:number|no\.?)|(?<![a-z])ssn(?![a-z]))"
       r"[^\n\d]{0,24}\n?[ \t'\"]*(\d{3}-\d{2}-[ \t]*\n[ \t]*\d{4})(?!\d)", v.ssn_ok,
       prefilter=r"(?i)(?:security[ \t]+(?:number|no)|ssn)[^\n0-9]{0,24}\n?[ \t'\"]*"
                 r"\d{3}-\d{2}-[ \t]*\n",
       needles=("ecurity", "ECURITY", "ssn", "SSN", "Ssn"), digits=True, group=1,
       joined=_nothing_joined),
    _d("us_ssn",
       r"(?i)(?:social[ \t]+security[ \t]+(?:number|no\.?)|(?<![a-z])ssn(?![a-z]))"
       r"[^\n\d]{0,24}\n?[ \t'\"]*(?-i:([\dO]{3}-[\dO]{2}-[\dO]{4}))(?![\dO])", v.ocr_ssn_ok,
       prefilter=r"(?i)(?:security[ \t]+(?:number|no)|ssn)[^\n0-9]{0,24}\n?[ \t'\"]*"
                 r"[0-9O]{3}-[0-9O]{2}-[0-9O]{4}",
       needles=("ecurity", "ECURITY", "ssn", "SSN", "Ssn"), group=1, joined=_nothing_joined),
    # A bank's letter with a card's PIN, the PIN alone on a line after "lautet:" ("Ihre
    # persönliche Geheimzahl (PIN) für die Karte ... lautet:\n\n    2304").
    _d("secret_assignment",
       r"(?i)(?:geheimzahl|(?<![a-z])pin(?![a-z]))[^\n]{0,100}?lautet:?[ \t]*\n(?:[ \t]*\n)?"
       r"[ \t]*(\d{4,6})[ \t]*(?:\n|$)",
       prefilter=r"(?i)(?:geheimzahl|pin)[^\n]{0,100}lautet:?[ \t]*\n", group=1,
       gate=r"(?i:lautet)", digits=True),
    # Held-out corpora FC to FH: restaurants and delivery, gambling, browsers and password
    # managers, student finance, payment card internals, CJK developers' text.
    # A card's number where card processing writes it: EMV's PAN tag (5A, eight bytes) in a
    # terminal's TLV hex, packed or spaced by bytes; an ISO 8583 packager's BCD of field 2;
    # Postilion's structured data (CardNumber, the length of the length, the length).
    _plain("credit_card", r"(?<![0-9A-F])(?:[0-9A-F]{2})*?5A08(\d{16})(?=[0-9A-F]|\b)",
           v.card_number_ok, prefilter=r"5A08\d{16}", needles=("5A08",), digits=True),
    # (the prefilters read a joiner as the space it stands for in the joined reading)
    _plain("credit_card", r"(?<![0-9A-F])5A 08 ((?:\d\d ){7}\d\d)(?![ ]?[0-9A-F]{2}\b(?! ))",
           v.card_number_ok,
           prefilter=r"5A[ _-]08[ _-](?:\d\d[ _-]){7}\d\d", needles=(), digits=True),
    _plain("credit_card", r"(?i)(?:BCD|PAN)[^\n:]{0,20}:[ \t]*((?:\d\d ){6,9}\d\d)(?![ ]?\d)",
           v.card_number_ok,
           prefilter=r"(?i)(?:BCD|PAN)[^\r\n:]{0,20}:[ \t_-]*(?:\d\d[ _-]){6}\d\d", needles=(),
           digits=True),
    *(_plain("credit_card", rf"CardNumber1{n}(\d{{{n}}})", v.card_number_ok,
             prefilter=rf"CardNumber1{n}\d{{{n}}}", needles=("CardNumber1",), digits=True)
      for n in (15, 16, 19)),
    # PINs and keys in card processing: a PIN block under its name (a JSON's pin_block, an
    # ISO 8583 dump's DE052 or field 52), a PIN pad's buffer, a key's clear components
    # (a key loading device's log, a custodian's e-mail) and clear keys a debug build
    # printed (clear(zpk)=, dukpt.bdk.clear=), 3-D Secure's challenge answer. (Not its
    # authentication value, the CAVV: an older corpus counts an ARes with one as clean.)
    _d("secret_assignment",
       r"(?i)(?:pin[ _-]?block|pin[ \t]+data|(?<![\w])de0?52|(?<![\w.])52)\\?[\"']?[ \t.]*[:=]"
       r"[ \t.:]*\\?[\"']?([0-9A-F]{16})(?![0-9A-F])",
       prefilter=r"(?i)(?:pin.?block|pin[ \t]+data|de0?52|52)[^\r\n]{0,40}[:=][^\r\n]{0,40}"
                 r"[0-9A-F]{16}",
       group=1, gate=r"(?i:pin|52)"),
    _d("secret_assignment", r"(?i)PIN entry[^\n]{0,40}?buf=(\d{4,12})(?![\w*])",
       prefilter=r"(?i)PIN entry[^\r\n]{0,40}buf=\d{4}", group=1, gate=r"(?i:buf=)",
       digits=True),
    _d("secret_assignment",
       r"(?i)(?:component(?:\[\d\]|[ \t]+\d)|clear\([a-z]{2,4}\)|bdk\.clear|clear[_ ]key)"
       r"[ \t]*[:=][ \t]*((?:[0-9A-F]{4}[ ]?){3,11}[0-9A-F]{4})(?![0-9A-F])",
       prefilter=r"(?i)(?:component|clear\(|bdk\.clear|clear.key)[^\r\n]{0,8}[:=][ \t]*"
                 r"[0-9A-F]{4}",
       group=1, gate=r"(?i:component|clear)"),
    _d("secret_assignment",
       r"\\?\"challengeDataEntry\\?\"[ \t]*:[ \t]*\\?\"([^\"\\\n]{4,16})\\?\"",
       prefilter=r"challengeDataEntry", group=1, needles=("challengeDataEntry",)),
    # Chinese and Korean clouds' keys: Tencent Cloud's SecretKey beside its AKID SecretId
    # (NewCredential("AKID...", "...")), Alibaba Cloud's STS key id, Huawei Cloud's
    # credentials file (ak=, sk=); Naver's login cookies; an Alipay buyer's login (a mobile).
    _d("api_key",
       r"AKID[A-Za-z0-9]{32}\\?[\"']?[ \t]*,[ \t\n]*\\?[\"']([A-Za-z0-9]{32})\\?[\"']",
       prefilter=r"AKID[A-Za-z0-9]{32}[^\r\n]{0,4},\s*[^\r\n]{0,2}[A-Za-z0-9]{32}", group=1,
       needles=("AKID",)),
    _d("api_key", r"(?<![\w.])(STS\.[A-Za-z0-9]{20,40})(?![\w])",
       prefilter=r"STS\.[A-Za-z0-9]{20}", group=1, needles=("STS.",)),
    _d("api_key", r"(?m)^[ \t]*(?:ak|AK)[ \t]*=[ \t]*([A-Z0-9]{20})[ \t]*$",
       prefilter=r"(?:ak|AK)[ \t]*=[ \t]*[A-Z0-9]{20}", group=1, gate=r"(?i:ak)"),
    _d("api_key", r"(?m)^[ \t]*(?:sk|SK)[ \t]*=[ \t]*([A-Za-z0-9]{30,64})[ \t]*$",
       prefilter=r"(?:sk|SK)[ \t]*=[ \t]*[A-Za-z0-9]{30}", group=1, gate=r"(?i:sk)"),
    _d("secret_assignment",
       r"\\?[\"']NID_(?:AUT|SES)\\?[\"'][ \t]*:[ \t]*\\?[\"']([^\"'\\\s]{20,})",
       prefilter=r"NID_(?:AUT|SES)", group=1, needles=("NID_",)),
    # Japanese and Chinese: a channel's access token on the line after its name (LINE's
    # チャネルアクセストークン), a mobile after 手机号 with spaced dashes, a Japanese number
    # glued to TEL, a Chinese resident id under an Alipay certification's certNo, a short
    # code after 验证码.
    _d("secret_assignment",
       "\u30a2\u30af\u30bb\u30b9\u30c8\u30fc\u30af\u30f3[^\\n]{0,12}[:\uff1a][ \\t]*\\n?"
       r"[ \t]*([A-Za-z0-9+/=]{40,})",
       # (the name's eight characters as the engine reads them; either colon: "~" is how it
       # reads the full-width one. A one-letter opening here met Hyperscan's single-match
       # defect beside two other prefilters: tests/redaction/test_engine_single_match.py)
       prefilter=r"aaaaaaaa[^\r\n]{0,12}[:~][ \t]*\n?[ \t]*[A-Za-z0-9+/=]{40}", group=1,
       needles=("\u30a2\u30af\u30bb\u30b9\u30c8\u30fc\u30af\u30f3",)),
    # (these three's prefilters need a "-" or a "_", which the joined reading has none of:
    # no joined prefilter)
    _d("phone",
       "(?:\u624b\u673a\u53f7?|\u7535\u8bdd|\u624b\u6a5f)[^\\d\\n]{0,6}"
       r"(1[3-9]\d[ \t]*-[ \t]*\d{4}[ \t]*-[ \t]*\d{4})(?!\d)",
       prefilter=r"a[^\r\n0-9]{0,6}1[3-9][0-9][ \t]*-[ \t]*[0-9]{4}", group=1, digits=True,
       needles=("\u624b\u673a", "\u7535\u8bdd", "\u624b\u6a5f"), joined=_nothing_joined),
    _d("phone", r"(?<![A-Za-z])TEL[:\uff1a]?[ \t]*(0\d{1,4}-\d{1,4}-\d{4})(?![\d-])",
       v.told_phone_ok, prefilter=r"TEL[^\r\n]{0,3}0\d{1,4}-\d{1,4}-\d{4}", group=1,
       needles=("TEL",), digits=True, joined=_nothing_joined),
    _d("national_id",
       r"(?i)\\?[\"'](?:cert_?no|id_?card_?no)\\?[\"'][ \t]*:[ \t]*\\?[\"'](\d{17}[\dXx])\\?[\"']",
       ids.cn_resident_id_ok, prefilter=r"(?i)(?:cert_?no|id_?card_?no)[^\r\n]{0,8}\d{17}",
       group=1, gate=r"(?i:no)", digits=True),
    _d("phone", r"(?<![\w])buyer_logon_id=(1[3-9]\d{9})(?![\d])",
       prefilter=r"buyer_logon_id=1[3-9][0-9]{9}", group=1, needles=("buyer_logon_id=",),
       digits=True, joined=_nothing_joined),
    _d("secret_assignment",
       "\u9a8c\u8bc1\u7801[\u4e3a\u662f:\uff1a]?[ \\t]*(\\d{4,8})(?!\\d)",
       prefilter=r"a[^\r\n]{0,2}[ \t]*[0-9]{4}", group=1,
       needles=("\u9a8c\u8bc1\u7801",), digits=True),
    # A Belgian mobile as Belgians write it (0478/25.35.95), anywhere.
    _plain("phone", r"(?<![\d/.])(04[5-9]\d/\d\d\.\d\d\.\d\d)(?![\d.])",
           prefilter=r"04[5-9][0-9]/[0-9]{2}\.[0-9]{2}\.[0-9]{2}", needles=("/",), digits=True),
    # A booking's manage link: its token opens the booking (TheFork's ?t=).
    _d("secret_assignment",
       r"(?i)/(?:reservations?|bookings?)/manage/[\w-]*\?(?:[^\s&#\"']*&)*(?:t|token)="
       r"([A-Za-z0-9_-]{24,128})",
       prefilter=r"(?i)/(?:reservation|booking)s?/manage/", group=1, gate=r"(?i:manage/)"),
    # A Norwegian fødselsnummer or a Swedish personnummer under BankID's claims and a
    # payment's payer (nnin, personid).
    _d("national_id",
       r"(?i)\\?[\"']?(?:nnin|personid|person_id|personal_?number)\\?[\"']?[ \t]*[:=][ \t]*"
       r"\\?[\"']?(\d{6}-?\d{4,5})(?![\d-])", ids.checked_id_ok,
       prefilter=r"(?i)(?:nnin|person_?id|personal_?number)[^\r\n]{0,6}[:=][^\r\n]{0,4}\d{6}",
       group=1, gate=r"(?i:nnin|person)", digits=True),
    # A paysafecard's PIN (sixteen digits, grouped or not) told or logged by its redeemer.
    _d("secret_assignment",
       r"(?i)(?:paysafecard|psc-redeem)[^\n]{0,60}?(?<![a-z])pin[^\n\d]{0,12}"
       r"(\d{4}[ ]?\d{4}[ ]?\d{4}[ ]?\d{4})(?![\d])",
       prefilter=r"(?i)(?:paysafecard|psc-redeem)[^\r\n]{0,60}pin",
       group=1, gate=r"(?i:pin)", digits=True),
    # A US payee's taxpayer id under a W-2G's or a 1099's key (payee_tin=092200204).
    _d("us_ssn",
       r"(?i)(?<![a-z])(?:payee|recipient|player|winner|customer)_tin[ \t]*[:=][ \t]*\\?[\"']?"
       r"(\d{3}-?\d{2}-?\d{4})(?![\d-])", v.ssn_ok,
       prefilter=r"(?i)_tin[ \t]*[:=][^\r\n]{0,3}\d{3}", group=1, gate=r"(?i:_tin)",
       digits=True, joined=_nothing_joined),
    # Sumsub's app token (prd: or sbx:, a key and its secret).
    _d("api_key", r"(?<![\w])((?:prd|sbx):[A-Za-z0-9]{24}\.[A-Za-z0-9]{32})(?![\w])",
       prefilter=r"(?:prd|sbx):[A-Za-z0-9]{24}\.[A-Za-z0-9]{32}", group=1,
       needles=("prd:", "sbx:")),
    # Italy's electronic identity card's number (CA12345AB) after its name.
    _d("national_id",
       r"(?i)(?:carta[ \t]+d.identit[aà]|documento[ \t]*=[ \t]*CI|(?<![a-z])CIE)"
       r"[^\n]{0,30}?(?<![A-Za-z0-9])(?-i:([A-Z]{2}\d{5}[A-Z]{2}))(?![A-Za-z0-9])",
       prefilter=r"(?i)(?:carta[ \t]+d.identit|documento[ \t]*=[ \t]*CI|CIE)[^\r\n]{0,30}"
                 r"[A-Z]{2}[0-9]{5}[A-Z]{2}",
       group=1, gate=r"(?i:identit|ci)", digits=True),
    # A number after "call ... at" ("Questions: call your attorney's office at 3608070389",
    # "Called CH at 697-459-659"), Spanish's "number is" ("su nuevo número es 7028667131") and
    # French's caller's number.
    _plain("phone",
           r"(?i)(?<![a-z])(?:call(?:ed|ing)?(?:[ \t]+[\w'\u2019]+){0,4}?[ \t]+at"
           # (and French's caller's number: "Numéro appelant : 0764796029")
           r"|n[\u00fau]mero[ \t]+es|num[\u00e9e]ro[ \t]+appelant[ \t]*:?"
           # (a call note's "Best callback 6159584749"; a form's "Mobile (OTP sent): ...")
           r"|call[ -]?back(?:[ \t]+(?:number|no\.?|#))?[ \t]*:?"
           r"|(?:mobile|phone|cell)[ \t]*\([^()\n]{1,30}\)[ \t]*:)[ \t]+"
           r"(\+?\(?\d[\d \t().-]{7,14}\d)(?![\d])", v.told_phone_ok,
           # (joiners read as spaces: the prefilter serves the joined reading too)
           prefilter=(r"(?i)(?:call[^\r\n]{0,50}[ \t_-]at|n.mero[ \t_-]+es"
                      r"|num.ro[ \t_-]+appelant[ \t_-]*:?|call[ _-]?back[^\r\n]{0,8}"
                      r"|(?:mobile|phone|cell)[ \t_-]*\([^\r\n]{1,30}:)[ \t_-]+\+?\(?[0-9]"),
           needles=(), digits=True),
    # Spain's numbers as Spaniards group them ("628 08 31 49", "91 696 96 69"), Sweden's
    # ("08-834 963 59", "070-123 45 67"), a phone's record in a people-search answer ({"number":
    # "7868524318","type":"mobile"}), an SMS-activation service's rented number
    # (ACCESS_NUMBER:<id>:<number>) and EMV 3-D Secure's phone objects ("mobilePhone":
    # {"cc": "1", "subscriber": "2125183538"}).
    # (each shape first, then what may not stand before it: the look-behinds run only where
    # a number of the shape starts)
    _plain("phone",
           # (not a record's number after its word: "order 605 10 04 98 shipped")
           # ("-" and "_" read as a space around it, as the joined reading reads them)
           r"(?=[6-9]\d{2} \d{2} \d{2} \d{2}|9\d \d{3} \d{2} \d{2})(?<![A-Za-z0-9.,:/+])"
           + _NOT_A_RECORD
           + r"((?:[6-9]\d{2}(?: \d{2}){3}|9\d \d{3} \d{2} \d{2}))(?![A-Za-z0-9:/]|[.,]\d)",
           v.told_phone_ok,
           prefilter=r"[6-9]\d{2}[ _-]\d{2}[ _-]\d{2}[ _-]\d{2}|9\d[ _-]\d{3}[ _-]\d{2}[ _-]\d{2}",
           needles=(), digits=True),
    _plain("phone",
           r"(?=0\d{1,3}-\d{2,3} \d{2,3})(?<![\w.,:/+-])" + _NOT_A_RECORD
           + r"(0\d{1,3}-\d{2,3}(?: \d{2,3}){1,2})(?![\w:/-]|[.,]\d)",
           v.told_phone_ok, prefilter=r"0\d{1,3}[ _-]\d{2,3}[ _-]\d{2,3}", needles=("-",),
           digits=True),
    _plain("phone",
           r"\\?\"(?:number|value|phone)\\?\"\s*:\s*\\?\"(\+?[\d() .-]{10,18})\\?\""
           r"(?=\s*,\s*\\?\"(?:type|kind|label|line_type)\\?\"\s*:\s*\\?\""
           r"(?i:mobile|cell|landline|home|work|wireless|voip|fax))",
           v.told_phone_ok,
           prefilter=(r"\+?[\d() ._-]{10,18}\\?\"[\s_-]*,[\s_-]*\\?\"(?:type|kind|label"
                      r"|line[ _-]type)\\?\"[\s_-]*:[\s_-]*\\?\""
                      r"(?i:mobile|cell|landline|home|work|wireless|voip|fax)"),
           needles=(), digits=True),
    _plain("phone", r"ACCESS_NUMBER:\d+:(\d{10,15})(?!\d)", v.told_phone_ok,
           prefilter=r"ACCESS[ _-]NUMBER:\d", needles=("ACCESS_NUMBER:",), digits=True),
    _plain("phone",
           r"\\?\"(?:mobile|home|work)Phone\\?\"\s*:\s*\{\s*\\?\"cc\\?\"\s*:\s*\\?\"\d{1,3}\\?\"\s*,"
           r"\s*\\?\"subscriber\\?\"\s*:\s*\\?\"(\d{4,15})\\?\"",
           v.told_phone_ok, prefilter=r"Phone\\?\"[\s_-]*:[\s_-]*\{[\s_-]*\\?\"cc\\?\"",
           needles=("Phone",),
           digits=True),
    # A number after Spanish's "call me at" (Llamadme al 699999015).
    _plain("phone",
           r"(?i)(?<![a-z])(?:ll[aá]ma(?:me|dme|nos)|ll[aá]menme)[ \t]+al[ \t]+"
           r"(\+?\d[\d \t-]{7,14}\d)(?![\d])", v.told_phone_ok,
           prefilter=r"(?i)ll[a-z]{4,7}[ \t_-]+al[ \t_-]+\+?[0-9]", needles=(),
           digits=True),
    # Password managers' exports and the tools around them: a KeePass XML entry's protected
    # values (Password, PIN, ...), FileZilla's base64 password, 1Password's Secret Key, an
    # item's TOTP seed, a card item's code after its expiry, the line macOS' security tool
    # prints a password on (-w), an IMAP LOGIN's quoted password.
    _d("secret_assignment",
       r"(?i)<Key>(?:password|passwort|pin|passphrase|secret|otp|totp[^<]{0,20})</Key>[ \t]*"
       r"<Value(?:[ \t][^>\n]{0,60})?>([^<\n]{3,256})</Value>",
       v.secret_value_ok, prefilter=r"(?i)<Key>(?:passw|pin|passphrase|secret|otp|totp)",
       group=1, gate=r"(?i:</key>)"),
    _d("secret_assignment", r"<Pass(?:[ \t]+encoding=\"base64\")?>([^<\n]{3,256})</Pass>",
       v.secret_value_ok, prefilter=r"<Pass[ >]", group=1, needles=("<Pass",)),
    _d("secret_assignment",
       r"(?<![A-Z0-9-])(A3-[A-Z0-9]{6}-[A-Z0-9]{6}-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}"
       r"-[A-Z0-9]{5})(?![A-Z0-9-])",
       prefilter=r"A3-[A-Z0-9]{6}-[A-Z0-9]{6}-[A-Z0-9]{5}-", group=1, needles=("A3-",)),
    _d("secret_assignment",
       r"(?i)\\?[\"'](?:totp|login_totp|otp_?secret)\\?[\"'][ \t]*:[ \t]*\\?[\"']"
       r"((?:otpauth://[^\"'\\\s]{10,})|[A-Z2-7]{16,128}=*)\\?[\"']",
       prefilter=r"(?i)(?:totp|otp_?secret)\\?[\"'][ \t]*:[ \t]*\\?[\"'][A-Z2-7]{16}", group=1,
       gate=r"(?i:otp)"),
    _d("credit_card",
       r"(?i)\\?\"exp_?year\\?\"[ \t]*:[ \t]*\\?\"?\d{2,4}\\?\"?[ \t]*,[ \t\n]*"
       r"\\?\"(?:code|cvv|cvc|security_?code)\\?\"[ \t]*:[ \t]*\\?\"(\d{3,4})\\?\"",
       prefilter=r"(?i)exp[ _-]?year[^\r\n]{0,12}[0-9]{2}", group=1, gate=r"(?i:year)",
       digits=True, joined=_nothing_joined,
       joined_prefilter=r"(?i)exp[ _-]?year[^\r\n]{0,12}[0-9]{2}"),
    _d("secret_assignment",
       r"(?<![\w-])security[ \t]+find-(?:generic|internet)-password[^\n]*?[ \t]-w[ \t]*\n"
       r"([^\s$]{4,256})(?=\n|$)",
       v.secret_value_ok, prefilter=r"find-(?:generic|internet)-password[^\r\n]*-w",
       group=1, needles=("find-",)),
    _d("secret_assignment",
       r"(?<![\w])\d{1,4}[ \t]+LOGIN[ \t]+\"[^\"\n]{1,128}\"[ \t]+\"([^\"\n]{3,128})\"",
       v.secret_value_ok, prefilter=r"[0-9][ \t]+LOGIN[ \t]+\"", group=1, needles=("LOGIN",)),
    # Held-out corpora EC to EH: pet services, second-hand marketplaces, call centres' speech
    # to text, git hosting, post-Soviet services, aviation.
    # A passport's or an identity card's number after its name in Russian, Ukrainian, Uzbek,
    # Kazakh and Azerbaijani ("паспорт AS5010925", "паспорт серії КВ130397", "Төлқұжат
    # нөмірі: N14226515", "Жеке куәлік: 045606802", "Şəxsiyyət vəsiqəsi: AA6344161").
    _d("national_id",
       "(?i)(?<![\\w])(?:\u043f\u0430\u0441\u043f\u043e\u0440\u0442\\w*"
       "(?:[ \\t]+\u0441\u0435\u0440(?:\u0438[\u0438\u044f]|\u0456\u0457))?"
       "|\u0442\u04e9\u043b\u049b\u04b1\u0436\u0430\u0442\\w*"
       "(?:[ \\t]+\u043d\u04e9\u043c\u0456\u0440\u0456)?"
       "|\u0436\u0435\u043a\u0435[ \\t]+\u043a\u0443\u04d9\u043b\u0456\u043a\\w*"
       "|\u015f\u0259xsiyy\u0259t[ \\t]+v\u0259siq\u0259si|pasport)"
       "[ \\t]*:?[ \\t]*(?-i:((?:[A-Z\u0410-\u042f\u0406\u0407\u0404]{1,2}[ ]?)?\\d{6,9}))"
       "(?![\\w])",
       prefilter=r"(?i)(?:aaaaaaa|pasport|aaaaaaaa|aaaa[ \t]+aaaaaa|aaxsiyyat)[^\r\n]{0,24}"
                 r"[0-9]{6}",
       group=1, gate="(?i:\u043f\u0430\u0441\u043f\u043e\u0440\u0442|\u0442\u04e9\u043b\u049b"
                     "|\u043a\u0443\u04d9\u043b\u0456\u043a|v\u0259siq\u0259|pasport)",
       digits=True),
    # Russia's INN of a person (twelve digits, two check digits) after its name or as the
    # FNS' XML element; Ukraine's UNZR under its key; Azerbaijan's FIN under its key; the
    # series of a Russian passport in a form's JSON (its number, six digits, is its own).
    _d("national_id",
       "(?i)(?:(?<![\\w])\u0438\u043d\u043d|<(?:[\\w-]+:)?INNFL>|(?<![a-z])inn(?![a-z]))"
       r"[ \t]*[:=]?[ \t]*\\?[\"']?(\d{12})(?!\d)", ids.person_inn_ok,
       prefilter=r"(?i)(?:aaa|innfl>|inn)[^\r\n]{0,6}[0-9]{12}", group=1,
       gate="(?i:\u0438\u043d\u043d|inn)", digits=True),
    _d("national_id",
       r"(?i)(?<![a-z])unzr\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?(\d{8}-?\d{5})(?![\d])", ids.unzr_ok,
       prefilter=r"(?i)unzr[^\r\n]{0,6}[0-9]{8}", group=1, gate=r"(?i:unzr)", digits=True),
    _d("national_id", r"(?i)(?<![a-z])fin[ \t]*[:=][ \t]*(?-i:([0-9A-Z]{7}))(?![0-9A-Za-z])",
       v.has_digit_and_letter, prefilter=r"(?i)fin[ \t]*[:=][ \t]*[0-9A-Z]{7}", group=1,
       gate=r"(?i:fin)", digits=True),
    _d("national_id",
       r"\\?\"series\\?\"[ \t]*:[ \t]*\\?\"(\d{4})\\?\"[ \t]*,[ \t]*\\?\"number\\?\"[ \t]*:"
       r"[ \t]*\\?\"\d{6}\\?\"",
       prefilter=r"series\\?\"[ \t]*:[ \t]*\\?\"[0-9]{4}", group=1, needles=("series",),
       digits=True),
    # An SMS gateway's request: its password and its recipients in the query (smsc.ru's
    # psw= and phones=).
    _d("secret_assignment", r"(?<=[?&])psw=([^&\s#\"']{4,128})",
       v.secret_value_ok, prefilter=r"[?&]psw=", group=1, needles=("psw=",)),
    _d("phone", r"(?<=[?&])phones?=(\+?\d{10,15})(?![\d])", v.told_phone_ok,
       prefilter=r"[?&]phones?=\+?[0-9]{10}", group=1, needles=("phone",), digits=True,
       joined=_nothing_joined, joined_prefilter=r"[?&]phones?=\+?[0-9]{10}"),
    # A Wi-Fi's password in Uzbek and Azerbaijani ("Wi-Fi parol: ..."), in German (a FRITZ!Box's
    # "WLAN-Schlüssel: 8501 0525 2097 7517 0397", the rest of its line).
    _d("secret_assignment",
       r"(?i)(?<![a-z])parol(?![a-z])[ \t]*:[ \t]*([^\s\"',;<>]{6,64})(?![^\s\"',;<>])",
       v.secret_value_ok, prefilter=r"(?i)parol[ \t]*:[ \t]*[^\s]{6}", group=1,
       gate=r"(?i:parol)"),
    _d("secret_assignment",
       "(?i)(?:(?:wlan|wifi|wi-fi|wpa)[ -]?(?:schl\u00fcssel|kennwort|passwort)"
       # (a sticker's "WLAN-Netzwerkschlüssel (WPA2): ...")
       r"|netzwerkschl\u00fcssel)(?:[ \t]*\([^)\n]{1,12}\))?[ \t]*:[ \t]*([^\n]{8,63}?)"
       r"[ \t]*(?:\n|$)",
       v.secret_value_ok,
       prefilter=r"(?i)(?:schl.ssel|kennwort|passwort)(?:[ \t]*\([^)\r\n]{1,12}\))?[ \t]*:"
                 r"[ \t]*[^\r\n]{8}",
       group=1, gate="(?i:schl\u00fcssel|kennwort|passwort)"),
    # A Georgian number after "tel" in Georgian (ტელ), a number after "call" in a note.
    _plain("phone", "\u10e2\u10d4\u10da[:.]?[ \\t]*(\\+?\\d[\\d \\t-]{7,15}\\d)(?![\\d])",
           v.told_phone_ok, prefilter=r"aaa[:.]?[ \t_-]*\+?[0-9]",
           needles=("\u10e2\u10d4\u10da",), digits=True),
    _plain("phone",
           # (and "called back on 761 070 977")
           r"(?i)(?<![a-z])call(?:ed|ing)?(?:[ \t]+(?:me|us|back|him|her|them))?"
           r"(?:[ \t]+(?:on|at))?[ \t]+"
           r"(\+?\d[\d \t]{8,15}\d)(?![\d])", v.told_phone_ok,
           prefilter=r"(?i)call[a-z]{0,3}[ \t_-]+(?:[a-z]{2,4}[ \t_-]+){0,2}"
                     r"\+?[0-9][0-9 \t_-]{8}",
           needles=("all", "ALL"), digits=True),
    # Tokens by their vendors' shapes and places: Yandex Cloud's IAM token (t1.), a Diia
    # deep link's share token, Salesforce's session id (the org's id, "!", the session).
    _d("api_key", r"(?<![\w.])(t1\.9euel[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{40,})",
       prefilter=r"t1\.9euel", group=1, needles=("t1.9euel",)),
    _d("secret_assignment", r"diia\.app/[^\s\"']*?/share/([A-Za-z0-9_-]{30,})",
       prefilter=r"diia\.app/", group=1, needles=("diia.app/",)),
    _d("secret_assignment", r"(?<![\w!])(00D[A-Za-z0-9]{12,15}![A-Za-z0-9._]{40,})",
       prefilter=r"00D[A-Za-z0-9]{12}", group=1, needles=("00D",)),
    # A call's keyed digits in Twilio's webhook (Digits=), a caller's number in Asterisk's
    # recording name (in-+33632607133-110-...wav), a crew member's PIN in an ACARS login.
    _d("secret_assignment", r"(?<=[?&])Digits=(\d{4,12})(?![\d])",
       prefilter=r"Digits=[0-9]{4}", group=1, needles=("Digits=",), digits=True),
    _d("phone", r"/(?:in|out)-(\+\d{8,15})-\d", v.told_phone_ok,
       prefilter=r"/(?:in|out)-\+[0-9]{8}", group=1, needles=("-+",), digits=True,
       joined=_nothing_joined),
    _d("secret_assignment", r"(?<=/)PIN(\d{4,8})/",
       prefilter=r"/PIN[0-9]{4}", group=1, needles=("/PIN",), digits=True),
    # A travel document's number in an airline's XML (<TravelDocument ...><DocNumber>).
    _d("national_id",
       r"<TravelDocument[^>\n]{0,40}>[ \t\n]*<DocNumber>([A-Z0-9]{6,12})</DocNumber>",
       prefilter=r"<TravelDocument", group=1, needles=("<TravelDocument",)),
    # What git filter-repo's replacements file names to remove ("<secret>==>REMOVED"), a line
    # each (or "\n" escaped inside a command).
    _d("secret_assignment",
       r"(?:^|(?<=\n)|(?<=\\n)|(?<=printf ')|(?<=printf \"))([^\s'\"\\=]{8,128})==>",
       v.has_digit_and_letter, prefilter=r"[^\s'\"\\=]{8}==>", group=1, needles=("==>",)),
    # Held-out corpora DC to DH: consumer payments, penetration tests, contact sheets, Canada,
    # Australia and New Zealand, India's consumer services, forwarded e-mails.
    # An offensive engagement's output: NT hashes after the empty LM hash (secretsdump, nxc,
    # getST) and after mimikatz's "Hash NTLM:", pass-the-hash on a command line, domain
    # cached credentials ($DCC2$), Kerberos AES keys, DPAPI keys, a KeePass database's hash.
    # (not the empty password's NT hash, 31d6cfe0...: a disabled account's, Guest's)
    _d("secret_assignment",
       r"(?i)aad3b435b51404eeaad3b435b51404ee:(?!31d6cfe0d16ae931b73c59d7e0c089c0)"
       r"([0-9a-f]{32})(?![0-9a-f])",
       prefilter=r"(?i)aad3b435b51404eeaad3b435b51404ee:[0-9a-f]{32}", group=1,
       gate=r"(?i:aad3b435b51404ee)"),
    _d("secret_assignment",
       r"(?i)(?:Hash NTLM|ntlm- \d|NTLM)[ \t]*:[ \t]*([0-9a-f]{32})(?![0-9a-f])",
       prefilter=r"(?i)ntlm[^\r\n]{0,4}:[ \t]*[0-9a-f]{32}", group=1, gate=r"(?i:ntlm)"),
    _d("secret_assignment",
       r"(?<![\w-])(?:nxc|netexec|crackmapexec|cme|evil-winrm|impacket-\w+|\w+\.py)\b[^\n]*?"
       r"[ \t]-(?:H|hashes)[ \t]+['\"]?(?:[0-9a-fA-F]{32})?:?([0-9a-fA-F]{32})(?![0-9a-fA-F])",
       prefilter=r"-(?:H|hashes)[ \t]+['\"]?[0-9a-fA-F:]{32}", group=1, gate=r"-(?:H|hashes)[ \t]"),
    _d("secret_assignment", r"(\$DCC2\$\d+#[^#\s]{1,64}#[0-9a-f]{32})",
       prefilter=r"\$DCC2\$", group=1, needles=("$DCC2$",)),
    _d("secret_assignment",
       r"(?i):(?:aes256|aes128)-cts-hmac-sha1-96:([0-9a-f]{32,64})(?![0-9a-f])"
       r"|(?i:dpapi_(?:machine|user)key):0x([0-9a-f]{40})(?![0-9a-f])"
       r"|\[MASTERKEY\][^:\n]{0,60}:([0-9a-f]{64,128})(?![0-9a-f])",
       prefilter=r"(?i)cts-hmac-sha1-96:[0-9a-f]{32}|dpapi_(?:machine|user)key:0x|\[MASTERKEY\]",
       group=0, gate=r"(?i:hmac-sha1|dpapi|masterkey)"),
    _d("secret_assignment", r"(\$keepass\$\*[^\s:]{20,})",
       prefilter=r"\$keepass\$\*", group=1, needles=("$keepass$",)),
    # ... and the passwords such tools print in clear: john --show's passwd lines, hashcat's
    # cracked "<hash>:<plaintext>" (an NT hash, a NetNTLMv2 response, a KeePass hash) and
    # john's "<plaintext> ($krb5asrep$...)", secretsdump's CLEARTEXT, aircrack-ng's KEY
    # FOUND, onesixtyone's community, kpcli's Pass:, Responder's captured passwords, a
    # decoded Basic header, gpp-decrypt's answer, impacket's 'domain/user:password@host'.
    _d("secret_assignment",
       r"(?m)^[\w.$-]{1,32}:([^:\s]{4,64}):\d{1,6}:\d{1,6}:[^:\n]*:/",
       v.secret_value_ok, prefilter=r":[0-9]{1,6}:[0-9]{1,6}:[^:\r\n]*:/", group=1,
       needles=(":/",), digits=True),
    _d("secret_assignment",
       r"(?m)(?:^[0-9a-f]{32}|\$keepass\$\*[^\s:]{20,}|::[\w.-]+:[0-9a-f]{16}:[0-9a-f]{32}:"
       r"[0-9a-f]{20,})(:[^\s:][^\s]{2,127})$",
       v.secret_value_ok, prefilter=r"[0-9a-f]{16}:[^\s:][^\s]{2}", group=1,
       gate=r"[0-9a-f]{16}:"),
    _d("secret_assignment", r"(?m)^(\S{4,64})[ \t]+\(\$krb5(?:asrep|tgs)\$",
       v.secret_value_ok, prefilter=r"\(\$krb5(?:asrep|tgs)\$", group=1, needles=("($krb5",)),
    _d("secret_assignment", r":CLEARTEXT:(\S{3,128})", prefilter=r":CLEARTEXT:", group=1,
       needles=(":CLEARTEXT:",)),
    _d("secret_assignment", r"KEY FOUND! \[ (.{4,63}?) \]", prefilter=r"KEY FOUND! \[ ",
       group=1, needles=("KEY FOUND!",)),
    _d("secret_assignment",
       r"(?m)^\d{1,3}(?:\.\d{1,3}){3} \[([^\]\s]{3,64})\] ",
       prefilter=r"[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3} \[", group=1,
       needles=(" [",), digits=True),
    # (and an infostealer log's "PASS:" under its "USER:")
    _d("secret_assignment", r"(?m)^[ \t]*(?:Pass|PASS):[ \t]+(\S{4,128})[ \t]*$",
       v.secret_value_ok, prefilter=r"(?:Pass|PASS):[ \t]+[^\s]{4}", group=1,
       needles=("Pass:", "PASS:")),
    _d("secret_assignment",
       r"\] (?:Basic |Cleartext |NTLMv\d )?Password[ \t]*:[ \t]*(\S{3,128})", None,
       prefilter=r"\] (?:Basic |Cleartext |NTLMv[0-9] )?Password[ \t]*:", group=1,
       needles=("Password",)),
    _d("secret_assignment", r"decoded -> [^:\s]{1,64}:(\S{3,128})", v.secret_value_ok,
       prefilter=r"decoded -> [^:\s]{1,64}:", group=1, needles=("decoded ->",)),
    _d("secret_assignment", r"gpp-decrypt[ \t]+\S+[ \t]*\n(\S{3,128})", v.secret_value_ok,
       prefilter=r"gpp-decrypt[ \t]", group=1, needles=("gpp-decrypt",)),
    _d("secret_assignment",
       r"(?<![\w-])impacket-\w+[ \t]+['\"]?[\w.-]+/[\w.$-]+:([^@\s'\"]{3,128})@",
       v.secret_value_ok, prefilter=r"impacket-[a-z]+[ \t]+['\"]?[^\s/]+/[^\s:]+:", group=1,
       needles=("impacket-",)),
    # Canada's, Australia's and New Zealand's ids where their systems put them: a health
    # number in a booking's or PharmaNet's query (ohip=, phn=), Ontario's in an HL7 PID
    # (^^^ON^JHN), an IHI in its URI, Quebec's RAMQ number under its key, a Centrelink CRN
    # (nine digits and a letter), IRCC's UCI, Alberta's ULI, an NHI after its name or in
    # the FHIR path that names it.
    _d("national_id", r"(?i)[?&](?:ohip|phn|hcn|health_?card)=(\d{10})(?![\d])",
       lambda value: ids.ohip_ok(value) or ids.bc_phn_ok(value),
       prefilter=r"(?i)[?&](?:ohip|phn|hcn|health_?card)=[0-9]{10}", group=1,
       gate=r"(?i:ohip|phn|hcn|health)", digits=True),
    _d("national_id", r"\|(\d{10})\^[A-Z]{0,2}\^\^\^ON\^JHN", ids.ohip_ok,
       prefilter=r"\|[0-9]{10}\^[A-Z]{0,2}\^\^\^ON\^JHN", group=1, needles=("^ON^JHN",),
       digits=True),
    _d("national_id", r"/ihi/1\.0/(\d{16})(?![\d])", ids.ihi_ok,
       prefilter=r"/ihi/1\.0/[0-9]{16}", group=1, needles=("/ihi/",), digits=True),
    _d("national_id",
       r"(?i)assurance_?maladie\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?([A-Z]{4}[ ]?\d{4}[ ]?\d{4})",
       prefilter=r"(?i)assurance_?maladie", group=1, gate=r"(?i:maladie)", digits=True),
    _d("national_id",
       r"(?<![A-Za-z])CRN(?:[ \t]+Centrelink)?[^\n\d]{0,30}?(?<![\w])(\d{9}[A-Z])(?![\w])",
       prefilter=r"CRN[^\r\n]{0,40}[0-9]{9}[A-Z]", group=1, needles=("CRN",), digits=True),
    _d("national_id",
       r"(?i)(?<![a-z])uci\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?(\d{2,4}-\d{4}(?:-\d{4})?|\d{8,10})"
       r"(?![\d-])",
       prefilter=r"(?i)uci[^\r\n]{0,6}[:=][^\r\n]{0,4}[0-9]{2}", group=1, gate=r"(?i:uci)",
       digits=True),
    _d("national_id", r"(?<![A-Za-z])ULI\)?[ \t]*:[ \t]*(\d{5}-\d{4})(?![\d])",
       prefilter=r"ULI\)?[ \t]*:[ \t]*[0-9]{5}-", group=1, needles=("ULI",), digits=True),
    _d("national_id",
       r"(?i)(?:(?<![a-z])nhi(?![a-z])|/Patient/)[^\n]{0,60}?(?<![A-Za-z0-9])"
       r"(?-i:([A-HJ-NP-Z]{3}\d{4}))(?![A-Za-z0-9])", ids.nhi_ok,
       prefilter=r"(?i)(?:nhi|/Patient/)[^\r\n]{0,60}[A-Z]{3}[0-9]{4}", group=1,
       gate=r"(?i:nhi|/patient/)", digits=True),
    # An address a bounce's VERP return path carries inside ("bounce+1db92530-kenji.nowak+bank=
    # hotmail.es@em.sparkasse.de": kenji.nowak+bank@hotmail.es), a sender's IPv6 address in a
    # Received header ([IPv6:2607:f8b0:...]), Spain's social security number after its name
    # ("Nº afiliación SS: 28/12650363/53").
    _d("email", r"(?i)(?<![\w.+-])bounces?[+-][0-9a-f]{6,16}-([\w.+-]{1,64}=[\w-]+(?:\.[\w-]+)+)@",
       prefilter=r"(?i)bounces?[+-][0-9a-f]{6}", group=1, gate=r"(?i:bounce)",
       # (the joined reading keeps the "+" alone of the two: "-" reads as a space there)
       joined=_nothing_joined, joined_prefilter=r"(?i)bounces?\+[0-9a-f]{6}"),
    _plain("ipv6", r"[\[(]IPv6:([0-9a-fA-F]{1,4}(?::[0-9a-fA-F]{0,4}){2,7})[\])]", v.ipv6_ok,
           prefilter=r"[\[(]IPv6:[0-9a-fA-F]", needles=("IPv6:",)),
    _d("national_id",
       "(?i)afiliaci[o\u00f3]n[^\\n\\d]{0,24}(\\d{2}/\\d{8}/\\d{2}|\\d{12})(?![\\d/])",
       prefilter=r"(?i)afiliaci.n[^\r\n0-9]{0,24}[0-9]{2}", group=1, gate=r"(?i:afiliaci)",
       digits=True),
    # A Pix key that is a phone, in a Pix copy-and-paste code (EMV's tag 01 after the
    # scheme's id: "br.gov.bcb.pix0114+5521917734833").
    _d("phone", r"(?i)br\.gov\.bcb\.pix01\d\d(\+\d{12,13})(?=\d{4}|[0-9]{2}[0-9A-Z])",
       prefilter=r"(?i)br\.gov\.bcb\.pix01[0-9]{2}\+", group=1, gate=r"(?i:bcb\.pix)",
       digits=True, joined=_nothing_joined),
    # Held-out corpora CC to CH: network gear's configs, device management, hiring, web
    # frameworks' debug output, immigration, ticketing and memberships.
    # Cisco's type 7 (a Vigenère of a fixed key: reversible) wherever its type says so: after
    # a keyword and "7" in a diff's line or an FTP client's (ip ftp password 7 X), quoted
    # (tacacs-server key 7 "X"), after NTP's key with its type last ("md5 X 7"), in a
    # question ("the cleartext of this cisco type 7: X").
    _d("secret_assignment",
       r"(?i)(?:password|secret|key|key-string)[ \t]+7[ \t]+\\?\"?"
       r"((?:0[0-9]|1[0-5])(?:[0-9A-F]{2}){2,})(?![0-9A-Za-z])",
       prefilter=r"(?i)(?:password|secret|key|key-string)[ \t]+7[ \t]+\\?\"?[01][0-9A-F]{5}",
       group=1, gate=r"(?i:password|secret|key)", digits=True),
    _d("secret_assignment",
       r"(?i)authentication-key[ \t]+\d+[ \t]+md5[ \t]+([0-9A-F]{4,})[ \t]+7(?![\w])",
       prefilter=r"(?i)authentication-key[ \t]+[0-9]+[ \t]+md5[ \t]+[0-9A-F]{4}", group=1,
       gate=r"(?i:authentication-key)"),
    _d("secret_assignment",
       r"(?i)type[ \t-]?7\b[^\n]{0,80}?(?<![0-9A-Za-z])[`'\"]?"
       r"((?:0[0-9]|1[0-5])(?:[0-9A-F]{2}){4,})(?![0-9A-Za-z])",
       prefilter=r"(?i)type[ \t-]?7[^\r\n]{0,80}[01][0-9A-F]{9}", group=1,
       gate=r"(?i:type)", digits=True),
    # A network device's reversibly encrypted secrets by their markers: Huawei's %^%#...%^%#
    # and "cipher"/"ciphertext" values, Cisco's type 6, PAN-OS' -AQ== values and API keys
    # (LUFRPT...), Extreme's "shared-secret encrypted", FortiOS' ENC values (not the SH2 of
    # an admin's one-way hash), a D-Link/TP-Link PreSharedKey attribute.
    _d("secret_assignment", r"(%\^%#[^\s%]{8,}%\^%#)", prefilter=r"%\^%#", group=1,
       needles=("%^%#",)),
    _d("secret_assignment",
       r"(?i)(?:password|key|secret|shared-key)[ \t]+(?:cipher(?:text)?|6)[ \t]+"
       r"([!-~]{16,})(?![!-~])",
       _not_stand_in,
       prefilter=r"(?i)(?:password|key|secret|shared-key)[ \t]+(?:cipher|6[ \t])", group=1,
       gate=r"(?i:cipher|key[ \t]+6|secret[ \t]+6|password[ \t]+6)"),
    _d("secret_assignment", r"(?<![\w+/=-])(-AQ==[A-Za-z0-9+/=]{16,})", prefilter=r"-AQ==",
       group=1, needles=("-AQ==",)),
    _d("api_key", r"<key>(LUFRPT[A-Za-z0-9+/=]{20,})</key>", prefilter=r"<key>LUFRPT", group=1,
       needles=("LUFRPT",)),
    _d("secret_assignment",
       r"(?i)shared-secret[ \t]+(?:encrypted[ \t]+)?\"([^\"\n]{4,})\"", v.secret_value_ok,
       prefilter=r"(?i)shared-secret[ \t]+", group=1, gate=r"(?i:shared-secret)"),
    _d("secret_assignment",
       r"(?m)^[ \t]*set[ \t]+(?:[\w-]+-)?(?:passwd|password|psk|secret|key)[ \t]+ENC[ \t]+"
       r"(?!SH2)([A-Za-z0-9+/=]{16,})",
       prefilter=r"set[ \t]+[^\s]*(?:passwd|password|psk|secret|key)[ \t]+ENC[ \t]", group=1,
       needles=("ENC",)),
    _d("secret_assignment", r"(?i)<(?:X_[A-Z]+_)?PreSharedKey[ \t]+val=\"([^\"\n]+)\"",
       v.secret_value_ok, prefilter=r"(?i)PreSharedKey[ \t]+val=\"", group=1,
       gate=r"(?i:presharedkey)"),
    # ... and in clear: a diff's changed config line or IOS' command log ("logged command:
    # snmp-server community X RO"), a WLC's PSK (set-key ascii [0] X), MikroTik's
    # wpa2-pre-shared-key=, Extreme's SNMP communities, a cable modem's, LibreNMS', FortiOS'
    # community by its name, an OLT's ONT password, Oxidized's enable and router.db, RANCID's
    # .cloginrc without braces (beside its braced shapes, below).
    _d("secret_assignment",
       r"(?m)(?:^[-+]|logged command:)[ \t]*(?:(?:snmp-server[ \t]+)?community|enable[ \t]+"
       r"(?:secret|password)|username[ \t]+\S+(?:[ \t]+privilege[ \t]+\d+)?[ \t]+"
       r"(?:secret|password))[ \t]+(?:[0-9][ \t]+)?(?!\$\w+\$)([^\s\"\\;{}]{4,})",
       v.table_secret_ok,
       prefilter=r"(?:community|secret|password)[ \t]+[^\s]{4}", group=1,
       needles=("ommunity", "secret", "password")),
    _d("secret_assignment",
       r"(?i)set-key[ \t]+(?:ascii|hex)[ \t]+(?:0[ \t]+)?(\S{8,63})(?:[ \t]*$|[ \t]*\n)",
       v.secret_value_ok, prefilter=r"(?i)set-key[ \t]+(?:ascii|hex)[ \t]", group=1,
       gate=r"(?i:set-key)"),
    _d("secret_assignment",
       r"(?i)wlan[ \t]+security[ \t]+wpa[ \t]+akm[ \t]+psk[ \t]+set-key[ \t]+(?:ascii|hex)"
       r"[ \t]+(\S[^\n]{6,62}?)[ \t]+\d+[ \t]*(?=\n|$)",
       v.secret_value_ok, prefilter=r"(?i)akm[ \t]+psk[ \t]+set-key", group=1,
       gate=r"(?i:set-key)"),
    # (MikroTik's export wraps a long line with a backslash: the key runs on after it)
    _d("secret_assignment",
       r"(?i)(?:wpa2?-)?pre-shared-key=\"?((?:[^\s\"\\]|\\\n[ \t]*){8,80})",
       v.secret_value_ok, prefilter=r"(?i)pre-shared-key=", group=1,
       gate=r"(?i:pre-shared-key=)"),
    *(_d("secret_assignment", r"(?i)snmpv3[ \t]+add[ \t]+community[ \t]+" + value,
         v.secret_value_ok, prefilter=r"(?i)snmpv3[ \t]+add[ \t]+community[ \t]", group=1,
         gate=r"(?i:snmpv3)")
      for value in (r"(\S+)", r"\S+[ \t]+name[ \t]+(\S+)")),
    _d("secret_assignment",
       r"(?i)Community(?:\.\d+)*[ \t]+String[ \t]+\"([^\"\n]+)\"", v.secret_value_ok,
       prefilter=r"(?i)Community[.0-9]*[ \t]+String[ \t]+\"", group=1,
       gate=r"(?i:community)"),
    _d("secret_assignment",
       r"\['community'\][ \t]*=[ \t]*(?:array\(|\[)[ \t]*'([^'\n]+)'", v.secret_value_ok,
       prefilter=r"\['community'\][ \t]*=", group=1, needles=("['community']",)),
    _d("secret_assignment",
       r"\['community'\][ \t]*=[ \t]*(?:array\(|\[)[ \t]*'[^'\n]+'[ \t]*,[ \t]*'([^'\n]+)'",
       v.secret_value_ok, prefilter=r"\['community'\][ \t]*=", group=1,
       needles=("['community']",)),
    _d("secret_assignment",
       r"config[ \t]+system[ \t]+snmp[ \t]+community[ \t]*\n[ \t]*edit[ \t]+\d+[ \t]*\n"
       r"[ \t]*set[ \t]+name[ \t]+\"([^\"\n]+)\"",
       v.secret_value_ok, prefilter=r"system[ \t]+snmp[ \t]+community", group=1,
       needles=("snmp community",)),
    _d("secret_assignment", r"\bont[ \t]+add[ \t][^\n]*?password-auth[ \t]+\"([^\"\n]+)\"",
       v.secret_value_ok, prefilter=r"password-auth[ \t]+\"", group=1,
       needles=("password-auth",)),
    _d("secret_assignment", r"(?m)^[ \t]*enable:[ \t]*\"([^\"\n]{4,})\"", v.password_like,
       prefilter=r"enable:[ \t]*\"", group=1, needles=("enable:",)),
    *(_d("secret_assignment",
         rf"(?m)^[\w.-]+:(?:{_OXIDIZED_MODELS}):[\w.@-]+:" + value, v.secret_value_ok,
         prefilter=rf":(?:{_OXIDIZED_MODELS}):[^\s:]+:[^\s:]{{4}}", group=1, needles=(":",))
      for value in (r"([^:\s]{4,}):[^:\s]*$", r"[^:\s]+:([^:\s]{4,})$")),
    # Cisco Smart Licensing's registration token, a Zabbix API session, Meraki's key in code.
    _d("secret_assignment", r"(?i)license[ \t]+smart[ \t]+register[ \t]+idtoken[ \t]+(\S{20,})",
       prefilter=r"(?i)register[ \t]+idtoken[ \t]", group=1, gate=r"(?i:idtoken)"),
    _d("secret_assignment", r"\"auth\"[ \t]*:[ \t]*\"([0-9a-f]{32})\"",
       prefilter=r"\"auth\"[ \t]*:[ \t]*\"[0-9a-f]{32}\"", group=1, needles=("\"auth\"",)),
    _d("api_key", r"DashboardAPI\([ \t]*(?:api_key[ \t]*=[ \t]*)?['\"]([0-9a-f]{40})['\"]",
       prefilter=r"DashboardAPI\(", group=1, needles=("DashboardAPI(",)),
    # A key or a password told by what it opens, in a chat: "RADIUS-Schlüssel ... ist X",
    # "la comunidad SNMP para el Zabbix: X", "Ключ IPsec до филиала: X", "Пароль от Wi-Fi в
    # переговорке — X", "clave compartida: X", "事前共有鍵は「X」".
    _d("secret_assignment",
       "(?i)(?:(?:radius|ipsec|vpn|wlan|wi-?fi|psk|snmp|tacacs)[ -]?(?:schl\u00fcssel|key"
       "|kennwort|passwort|secret|community)|clave[ \\t]+(?:compartida|wifi|wi-fi|del[ \\t]+wifi)"
       "|la[ \\t]+clave|comunidad[ \\t]+snmp|community[ \\t]+snmp"
       "|(?:\u043a\u043b\u044e\u0447|\u043f\u0430\u0440\u043e\u043b\u044c)[ \\t]+"
       "(?:ipsec|vpn|radius|snmp|\u043e\u0442[ \\t]+wi-?fi))"
       "[^\\n]{0,40}?(?:[ \\t](?:ist|is|es|est|lautet|\u2014|-)|:)[ \\t]+"
       "([^\\s\"',;<>()]{6,64}?)(?:[.,;)]?(?:\\s|$))",
       v.told_secret_ok,
       prefilter=r"(?i)(?:radius|ipsec|vpn|wlan|wi-?fi|psk|snmp|tacacs|clave|comunidad|aaaa|aaaaaa)",
       group=1,
       gate="(?i:radius|ipsec|vpn|wlan|wi-?fi|psk|snmp|tacacs|clave|comunidad"
            "|\u043a\u043b\u044e\u0447|\u043f\u0430\u0440\u043e\u043b\u044c)"),
    _d("secret_assignment",
       "\u4e8b\u524d\u5171\u6709\u9375(?:\u306f|:|\uff1a)[ \\t]*[\u300c\"']?([!-~]{6,64}?)"
       "[\u300d\"']",
       v.told_secret_ok, prefilter=r"aaaaa", group=1, needles=("\u4e8b\u524d\u5171\u6709\u9375",)),
    # Hiring and immigration: a document's number after "document number" in a passport's
    # shape (an I-9, an MRZ reader's parsed fields), a right-to-work share code, a scheduling
    # link's token, LinkedIn's JSESSIONID (its CSRF token too), a residence permit's number
    # in German (Aufenthaltstitel), a passport in a list of documents ({"type": "P",
    # "number": ...}).
    _d("national_id",
       r"(?i)" + _NOT_A_RECORDS + r"(?<![a-z_])document[ _-]?(?:number|no)\\?[\"']?[ \t]*[:=]"
       r"[ \t]*\\?[\"']?(?-i:((?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{8,9}))(?![A-Za-z0-9-])",
       ids.passport_ok,
       prefilter=r"(?i)document[ _-]?(?:number|no)[^\r\n]{0,6}[:=][^\r\n]{0,6}[A-Z0-9]{8}",
       group=1, gate=r"(?i:document)", digits=True),
    _d("national_id",
       r"\\?\"type\\?\"[ \t]*:[ \t]*\\?\"P\\?\"[ \t]*,[ \t]*\\?\"number\\?\"[ \t]*:[ \t]*\\?\""
       r"([A-Z0-9]{6,9})\\?\"", ids.passport_ok,
       prefilter=r"\"P\\?\"[ \t]*,[ \t]*\\?\"number", group=1, needles=("number",),
       digits=True),
    _d("secret_assignment",
       r"(?i)share[ _-]?code\b[^\n:]{0,40}:[ \t]*"
       r"(?-i:([A-Z0-9]{3}[ -]?[A-Z0-9]{3}[ -]?[A-Z0-9]{3}))(?![A-Za-z0-9])",
       v.has_digit_and_letter, prefilter=r"(?i)share[ _-]?code", group=1,
       gate=r"(?i:share)"),
    _d("secret_assignment", r"(?<=/schedule/)([A-Za-z0-9_-]{24,64})(?![\w-])", v.strong_token,
       prefilter=r"/schedule/[A-Za-z0-9_-]{24}", group=1, needles=("/schedule/",)),
    _d("secret_assignment", r"(?i)JSESSIONID=\\?\"?(ajax:\d{15,20})", prefilter=r"(?i)=\\?\"?ajax:",
       group=1, gate=r"(?i:ajax:)"),
    _named_id((r"(?:elektronischen[ \t]+)?aufenthaltstitels?", r"aufenthaltskarte"),
              ("aufenthalts", "elektronischen"),
              r"(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{9}", _has_digit, checksummed=False,
              shape=r"[A-Z0-9]{9}"),
    # Device management: SCEP's challenge, FileVault's personal recovery key, Activation
    # Lock's bypass code, BitLocker's key spaced or wrapped, Workspace ONE's tenant code,
    # NanoMDM's API key on its command line, Apple's push magic and unlock token, a
    # profile's PKCS#12 and shared secret as data, Windows' WLAN <SecurityKey>, Entra's
    # Temporary Access Pass, an enrolment's code, Apple's ADM session.
    _d("secret_assignment",
       # (not OAuth's PKCE code_challenge: a verifier's SHA-256, 43 characters, public)
       r"(?i)(?<![\w-])challenge(?:[_ ]?password)?\\?\"?[ \t]*[:=][ \t]*\\?\"?"
       r"([A-Za-z0-9+/=_-]{8,40})(?![\w+/=-])",
       v.has_digit_and_letter, prefilter=r"(?i)challenge[^\r\n]{0,12}[:=]", group=1,
       gate=r"(?i:challenge)"),
    _d("secret_assignment",
       # (and in French, Portuguese, Spanish, Italian and Dutch: "Sua chave de recuperação é:")
       "(?i)(?:recovery[ _-]?key|filevault|cl[\u00e9e][ \\t]+de[ \\t]+(?:secours|r[\u00e9e]cup)"
       "|chave[ \\t]+de[ \\t]+recupera|clave[ \\t]+de[ \\t]+recuperaci"
       "|chiave[ \\t]+di[ \\t]+recupero|herstelsleutel"
       "|wiederherstellungsschl)[^\\n]{0,60}?(?<![\\w-])(?-i:([A-Z0-9]{4}(?:-[A-Z0-9]{4}){5}))"
       r"(?![\w-])", v.product_key_ok,
       prefilter=r"(?i)(?:recovery[ _-]?key|filevault|cl. de (?:secours|r.cup)"
                 r"|chave de recupera|clave de recuperaci|chiave di recupero|herstelsleutel"
                 r"|wiederherstellungsschl)"
                 r"[^\r\n]{0,60}[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}-",
       group=1, gate="(?i:recovery|filevault|secours|cup|recupera|recupero|herstel"
                     "|wiederherstellungs)"),
    _d("secret_assignment",
       r"(?i)bypass[ _-]?code\\?\"?[ \t]*[:=][ \t]*\\?\"?([A-Z0-9]{4,6}(?:-[A-Z0-9]{2,6}){3,6})",
       prefilter=r"(?i)bypass[ _-]?code", group=1, gate=r"(?i:bypass)"),
    _d("secret_assignment", r"(?<![\d-])(\d{6}(?:(?:-[ \t]*\n?[ \t]*|[ ])\d{6}){7})(?![\d-])",
       v.bitlocker_groups_ok, prefilter=r"\d{6}[ \t\r\n-]{1,8}\d{6}", group=1, digits=True),
    _d("api_key", r"(?i)aw-tenant-code[ \t]*:[ \t]*([A-Za-z0-9+/=]{16,})",
       prefilter=r"(?i)aw-tenant-code", group=1, gate=r"(?i:aw-tenant-code)"),
    _d("secret_assignment", r"(?<![\w-])-api(?:-key)?[ \t]+([A-Za-z0-9_-]{20,})(?![\w-])",
       v.strong_token, prefilter=r"-api(?:-key)?[ \t]+[A-Za-z0-9_-]{20}", group=1,
       needles=("-api",)),
    _d("secret_assignment",
       r"<key>(?:PushMagic|UnlockToken)</key>\s*<(?:string|data)>\s*([A-Za-z0-9+/=\s-]{16,}?)"
       r"\s*</(?:string|data)>",
       prefilter=r"<key>(?:PushMagic|UnlockToken)</key>", group=1,
       needles=("PushMagic", "UnlockToken")),
    _d("secret_assignment",
       r"\.(?:p12|pfx)</string>\s*<key>PayloadContent</key>\s*<data>\s*"
       r"([A-Za-z0-9+/=\s]{40,}?)\s*</data>",
       prefilter=r"\.(?:p12|pfx)</string>", group=1, needles=(".p12<", ".pfx<")),
    _d("secret_assignment",
       rf"(?i)<key>[^<\n]*(?:{_FIELD_SECRET}|psk)[^<\n]*</key>\s*<data>\s*([A-Za-z0-9+/=]{{8,}})"
       r"\s*</data>", v.secret_value_ok,
       prefilter=rf"(?i)<key>[^<\r\n]*(?:{_FIELD_SECRET_PREFILTER}|psk)", group=1,
       needles=("<key>", "<KEY>")),
    _d("secret_assignment", r"(?i)<SecurityKey>([^<\n]{4,})</SecurityKey>", v.secret_value_ok,
       prefilter=r"(?i)<SecurityKey>", group=1, gate=r"(?i:<securitykey>)"),
    _d("secret_assignment",
       r"(?i)temporary[ \t]+access[ \t]+pass[^\n]{0,60}?[ \t](?:is|:)[ \t]+(\S{8,48}?)"
       r"(?=[ \t]*[(\"]|[ \t]*$|[.,;]?[ \t]|\n)",
       v.secret_value_ok, prefilter=r"(?i)temporary[ \t]+access[ \t]+pass", group=1,
       gate=r"(?i:access[ \t]+pass)"),
    _d("secret_assignment",
       r"(?i)(?:enrol?lment[ \t]+(?:code|token|pin)|one-time[ \t]+token)(?:[ \t]+is)?[ \t]*:?"
       r"[ \t]*(?-i:([A-Z0-9]{6,8}|\d{4}-\d{4}))(?![\w-])",
       v.has_digit,
       prefilter=r"(?i)(?:enrol?lment[ \t]+(?:code|token|pin)|one-time[ \t]+token)", group=1,
       gate=r"(?i:enrol|one-time)", digits=True),
    _d("secret_assignment", r"(?i)X-ADM-Auth-Session[ \t]*:[ \t]*([A-Za-z0-9_]{20,})",
       prefilter=r"(?i)X-ADM-Auth-Session", group=1, gate=r"(?i:adm-auth-session)"),
    _d("secret_assignment",
       "(?i)(?:laps-)?kennwort[ \\t]+f(?:\u00fc|ue)r[ \\t]+[^\\s:]{1,64}[ \\t]*:[ \\t]*"
       r"([^\s\"']{6,64}?)(?=[ \t]*\(|[ \t]*$|\s)",
       v.secret_value_ok, prefilter=r"(?i)kennwort[ \t]+f", group=1, gate=r"(?i:kennwort)"),
    # Web frameworks' debug output: Symfony's and Laravel's tables of environment variables
    # (a name, tabs or aligned spaces, the value quoted), Werkzeug's debugger PIN, a PHP
    # var_dump's PHP_AUTH_PW, a SignalR connection's id beside its access token, Go's
    # securecookie rejecting a session, PHP's session id in its warning, Rails' params
    # (=>) under an SSN's or a card code's key.
    _d("secret_assignment",
       r"(?m)^[ \t]*[A-Z][A-Z0-9_]*(?:PASSWORD|PASSWD|SECRET|_KEY|TOKEN|_PASS)[A-Z0-9_]*"
       r"(?:\t|[ ]{2,})(?:n/a[ \t]+)?\"([^\"\n]{4,})\"",
       v.secret_value_ok,
       prefilter=r"(?:PASSWORD|PASSWD|SECRET|_KEY|TOKEN|_PASS)[A-Z0-9_]*(?:\t|  )[^\r\n]*\"",
       group=1, needles=("PASS", "SECRET", "_KEY", "TOKEN")),
    _d("secret_assignment", r"Debugger PIN: (\d{3}-\d{3}-\d{3})", prefilter=r"Debugger PIN: ",
       group=1, needles=("Debugger PIN",)),
    _d("secret_assignment", r"\[\"PHP_AUTH_PW\"\]=>\s*string\(\d+\)\s*\"([^\"\n]+)\"",
       prefilter=r"PHP_AUTH_PW", group=1, needles=("PHP_AUTH_PW",)),
    _d("secret_assignment", r"(?<=[?&])id=([A-Za-z0-9_-]{22})(?=&access_token=)",
       prefilter=r"[?&]id=[A-Za-z0-9_-]{22}&access_token=", group=1, needles=("&access_token=",)),
    _d("secret_assignment", r"(?i)cookie[ \t]+\"([\w.-]*sess[\w.-]*)\"=([A-Za-z0-9_=+/-]{20,})",
       prefilter=r"(?i)cookie[ \t]+\"[^\"\r\n]*sess", group=2, gate=r"(?i:sess)"),
    _d("secret_assignment", r"\(sid ([a-z0-9]{26,40})\)", prefilter=r"\(sid [a-z0-9]{26}",
       group=1, needles=("(sid ",)),
    _d("us_ssn",
       r"(?i)\"(?:ssn|social_security_number|social_security_no)\"=>\"(\d{3}-?\d{2}-?\d{4})\"",
       v.ssn_ok, prefilter=r"(?i)(?:ssn|social_security_n[a-z]*)\"=>\"", group=1,
       gate=r"(?i:ssn|social_security)", digits=True, joined=_nothing_joined),
    _d("secret_assignment", r"(?i)\"(?:cc_)?(?:cvc|cvv|cvv2|cvc2|cvn)\"=>\"(\d{3,4})\"",
       prefilter=r"(?i)(?:cvc|cvv|cvn)[0-9]?\"=>\"", group=1, gate=r"(?i:cvc|cvv|cvn)",
       digits=True),
    # Tickets, gyms and clubs: a card's code "the 3 digits on the back", a climbing wall's
    # access code (Zugangscode), a locker bank's set code.
    _d("secret_assignment",
       r"(?i)(?:3|three|4|four)[ \t]+digits[ \t]+on[ \t]+the[ \t]+back(?:[ \t]+(?:are|is))?"
       r"[ \t]*:?[ \t]*(\d{3,4})(?!\d)",
       prefilter=r"(?i)digits[ \t]+on[ \t]+the[ \t]+back", group=1, gate=r"(?i:on the back)",
       digits=True),
    _d("secret_assignment",
       "(?i)zugangscode(?:[ \\t]+f(?:\u00fc|ue)r[^\\n:]{0,40})?[ \\t]*:?[ \\t]*(\\d{4,8})(?!\\d)",
       prefilter=r"(?i)zugangscode", group=1, gate=r"(?i:zugangscode)", digits=True),
    _d("secret_assignment", r"action=SET_CODE[ \t]+code=(\d{4,8})(?!\d)",
       prefilter=r"action=SET_CODE", group=1, needles=("SET_CODE",)),
    # nfdump's IPv6 address and port ("2c0f:f248::dde0.28577 -> fe80::1.443").
    _d("ipv6", r"(?<![\w:.])([0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{0,4}){2,7})\.\d{1,5}(?=[ \t]+->)",
       v.ipv6_ok, prefilter=r"[0-9A-Fa-f]:[0-9A-Fa-f:]*\.[0-9]{1,5}[ \t]+->", group=1,
       needles=("->",), joined=_nothing_joined,
       joined_prefilter=r"[0-9A-Fa-f]:[0-9A-Fa-f:]*\.[0-9]{1,5}[ \t]+->"),
    # France's identity card (CNI: nine letters and digits since 2021, twelve digits before)
    # after its name, quoted or in parentheses; a password as PowerShell's Format-List prints
    # it (LAPS: "Password            : X"); a phone after an e-mail signature's "T:" or "M:";
    # a one-time code in the arguments of a task named for sending one (Celery's
    # "send_otp[...] ... args: ['x@y', '+44...', '358181']"); strongSwan's remote address
    # after its "..." ("192.168.1.2[gw]...150.67.145.228[user]").
    _named_id(("carte[ \t]+(?:nationale[ \t]+)?d['\u2019]identit[e\u00e9]", r"(?-i:CNI)\b"),
              ("carte", "cni"),
              r"(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{9}|\d{12}", _has_digit,
              checksummed=False, shape=r"[A-Z0-9]{9}"),
    _d("secret_assignment",
       r"(?m)^(?:Password|ClearTextPassword|AccountPassword)[ \t]{2,}:[ \t]*(\S[^\n]{3,127}?)"
       r"[ \t]*$",
       _not_stand_in, prefilter=r"Password[ \t]{2,}:", group=1, needles=("Password",)),
    _d("phone", r"(?:(?<=\| )|(?<=\n)|^)[TM]:[ \t]*(\(?\d[\d ().-]{7,16}\d)(?![\d])",
       v.told_phone_ok, prefilter=r"[TM]:[ \t]*\(?[0-9][0-9 ().-]{7}", group=1,
       needles=("T:", "M:"), digits=True, joined=_nothing_joined,
       joined_prefilter=r"[TM]:[ \t]*\(?[0-9][0-9 ().-]{7}"),
    _d("secret_assignment",
       r"(?i)\bsend_(?:otp|verification_code|sms_code|2fa_code)\[[^\n]{0,400}\n(?:[^\n]*\n){0,3}?"
       r"args:[ \t]*\[[^\]\n]*?'(\d{4,8})'\]",
       prefilter=r"(?i)send_(?:otp|verification_code|sms_code|2fa_code)\[", group=1,
       gate=r"(?i:send_)", digits=True),
    _d("ipv4", r"\.\.\.((?:\d{1,3}\.){3}\d{1,3})\[", v.ipv4_ok,
       prefilter=r"\.\.\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\[", group=1,
       needles=("...",), digits=True, joined=_nothing_joined,
       joined_prefilter=r"\.\.\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\["),
    # OpenWrt's uci show: an interface's or a radio's password or key ('00833648', digits
    # too), and a Deutsche Telekom PPPoE login (the line id, '#', the co-user's number).
    _d("secret_assignment", r"(?m)^[\w@\[\].-]+\.(?:password|key)='([^'\n]{4,})'$", _not_stand_in,
       prefilter=r"\.(?:password|key)='", group=1, needles=(".password='", ".key='")),
    _d("email", r"(?<![\w#])(\d{12,24}#\d{4}@t-online\.de)(?![\w.-])",
       prefilter=r"#[0-9]{4}@t-online\.de", group=1, needles=("@t-online.de",),
       joined=_nothing_joined),
    # Open banking and aggregators: a card issuer's cvv_number, curl's --cert file:password,
    # a Swish payment's mobile (not a client's id: Plaid's client_id, Salt Edge's App-id
    # name an app, and an older corpus counts one clean), an aggregator's nested SSN,
    # Yodlee's security answer and unmasked account numbers, a
    # TrueLayer account's number beside its IBAN, Berlin Group's SCA one-time code.
    _d("secret_assignment",
       r"(?i)\\?\"cvv_?(?:number|code|value)\\?\"[ \t]*:[ \t]*\\?\"(\d{3,4})\\?\"",
       prefilter=r"(?i)cvv_?(?:number|code|value)\\?\"[ \t]*:", group=1, gate=r"(?i:cvv)",
       digits=True),
    _d("secret_assignment",
       r"(?:--cert|(?<![\w-])-E)[ \t]+['\"]?[^\s:'\"]+\.(?:pem|p12|pfx|crt|cer):([^\s'\"]{4,})",
       v.secret_value_ok,
       prefilter=r"(?:--cert|-E)[ \t]+['\"]?[^\s:'\"]+\.(?:pem|p12|pfx|crt|cer):",
       group=1, needles=("--cert", "-E")),
    _d("phone",
       r"(?i)swish(?:[ \t]+(?:betalning|payment|till|fr\u00e5n|from|to|nr|nummer))?[ \t:]+"
       r"(0?7\d[ -]?\d{3}[ -]?\d{2}[ -]?\d{2}|\+467\d{8})(?![\d])",
       v.told_phone_ok, prefilter=r"(?i)swish[^\r\n0-9+]{0,16}[0-9+]", group=1,
       gate=r"(?i:swish)", digits=True, joined=_nothing_joined),
    _d("us_ssn",
       r"\"value\"[ \t]*:[ \t]*\"(\d{3}-?\d{2}-?\d{4})\"[ \t]*,[ \t]*\"type\"[ \t]*:[ \t]*"
       r"\"us_ssn\"",
       v.ssn_ok, prefilter=r"\"type\"[ \t]*:[ \t]*\"us_ssn\"", group=1, needles=("us_ssn",),
       digits=True, joined=_nothing_joined),
    _d("secret_assignment",
       r"\"name\"[ \t]*:[ \t]*\"SECURITY_ANSWER\"[^{}]{0,300}?\"value\"[ \t]*:[ \t]*\"([^\"\n]+)\"",
       prefilter=r"SECURITY_ANSWER", group=1, needles=("SECURITY_ANSWER",)),
    _d("national_id",
       r"(?i)\"(?:payment|unmasked|full)AccountNumber\"[ \t]*:[ \t]*\"(\d{6,17})\"",
       prefilter=r"(?i)(?:payment|unmasked|full)AccountNumber\"", group=1,
       gate=r"(?i:accountnumber)", digits=True),
    _d("national_id",
       r"\"account_number\"[ \t]*:[ \t]*\{[^{}]{0,200}?\"number\"[ \t]*:[ \t]*\"(\d{6,12})\"",
       prefilter=r"\"account_number\"[ \t]*:[ \t]*\{", group=1, needles=("account_number",),
       digits=True),
    _d("secret_assignment", r"\"scaAuthenticationData\\?\"[ \t]*:[ \t]*\\?\"(\d{4,8})\\?\"",
       prefilter=r"scaAuthenticationData", group=1, needles=("scaAuthenticationData",),
       digits=True),
    # Tax portals: India's e-filing login (entity=<PAN>) and its EVC, an ITR's OTP after its
    # year, ELSTER's activation code, HMRC's UTR in its Self Assessment paths, a SIN
    # form-encoded with "+", a driver's licence nested in a state return, IRS e-file
    # signature PINs and a filer's phone in MeF XML, a certificate's PIN (ELSTER_CERT_PIN,
    # zertifikat_pin), a passcode the user entered, a code got by text, "pw X".
    _d("national_id", r"(?<![\w])entity=([A-Z]{3}P[A-Z]\d{4}[A-Z])(?![A-Za-z0-9])",
       ids.person_pan_ok, prefilter=r"entity=[A-Z]{3}P[A-Z][0-9]{4}[A-Z]", group=1,
       needles=("entity=",), digits=True),
    _d("secret_assignment", r"(?i)\bEVC\b[^\n]{0,80}?:[ \t]*([A-Z0-9]{10})(?![A-Za-z0-9])",
       v.has_digit_and_letter, prefilter=r"(?i)EVC[^\r\n]{0,80}:[ \t]*[A-Z0-9]{10}", group=1,
       gate=r"(?i:evc)"),
    _d("secret_assignment", r"(?i)\bOTP\b[^\n]{0,60}?[ \t]is[ \t]+(\d{6})(?![\d])",
       prefilter=r"(?i)OTP[^\r\n]{0,60}[ \t]is[ \t]+[0-9]{6}", group=1, gate=r"(?i:otp)",
       digits=True),
    _d("secret_assignment",
       r"(?i)aktivierungs(?:code|schl\u00fcssel|id)[^\n:]{0,20}:?\s{0,4}([A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4})"
       r"(?![\w-])",
       v.has_digit, prefilter=r"(?i)aktivierungs", group=1, gate=r"(?i:aktivierungs)"),
    _d("national_id", r"/self-assessment/ind/(\d{10})/", ids.utr_ok,
       prefilter=r"/self-assessment/ind/[0-9]{10}/", group=1, needles=("/self-assessment/",),
       digits=True),
    _d("national_id", r"(?i)(?<=[?&])(?:sin|nas)=(\d{3}\+\d{3}\+\d{3})(?![\d+])", ids.sin_ok,
       prefilter=r"(?i)[?&](?:sin|nas)=[0-9]{3}\+", group=1, gate=r"(?i:sin=|nas=)",
       digits=True),
    _d("national_id",
       r"(?i)drivers?_?licen[cs]e\\?\"?[ \t]*:[ \t]*\{[^{}]{0,80}?\"number\\?\"[ \t]*:[ \t]*\\?\""
       r"([A-Z0-9-]{5,20})\\?\"",
       _has_digit, prefilter=r"(?i)drivers?_?licen[cs]e\\?\"?[ \t]*:[ \t]*\{", group=1,
       gate=r"(?i:licen)", digits=True),
    _d("secret_assignment",
       r"<(?:Primary|Spouse|Practitioner|ERO|Taxpayer)?(?:Signature)?PIN(?:Txt)?>(\d{5,6})"
       r"</", prefilter=r"PIN(?:Txt)?>[0-9]{5}", group=1, needles=("PIN>", "PINTxt>"),
       digits=True),
    _d("phone", r"<(?:PhoneNum|PhoneNumber|ForeignPhoneNum)>(\+?\d{10,15})</",
       v.told_phone_ok, prefilter=r"Phone(?:Num|Number)>\+?[0-9]{10}", group=1,
       needles=("PhoneNum",), digits=True, joined=_nothing_joined),
    # (not Kenya's KRA PIN, a taxpayer's number; nor a pattern, "port_pin: '^\d{4,10}$'")
    _d("secret_assignment",
       # (not a board's pin in a printer's or a controller's config: Klipper's "step_pin: PF13",
       # "dir_pin: !PF12", a GPIO's number)
       r"(?i)(?<![a-z])(?!kra_pin)(?:[a-z]+_)+pin\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?"
       r"(?![!^~]*(?-i:P[A-K]\d{1,2}|P\d\.\d{1,2}|gpio\d{1,3}|GPIO\d{1,3})(?![\w.]))"
       r"([^\s\"'^\\]{4,64})(?=[\s\"',;]|$)",
       v.has_digit, prefilter=r"(?i)_pin\\?[\"']?[ \t]*[:=]", group=1, gate=r"(?i:_pin)"),
    _d("secret_assignment",
       r"(?i)passcode[^\n]{0,80}?\buser[ \t]+entered[ \t]+(\d{4,8})(?![\d])",
       prefilter=r"(?i)passcode[^\r\n]{0,80}user[ \t]+entered", group=1, gate=r"(?i:passcode)",
       digits=True),
    _d("secret_assignment",
       r"(?i)(?:got|received)[ \t]+(\d{6})[ \t]+(?:by|via)[ \t]+(?:text|sms|e-?mail|whatsapp)",
       prefilter=r"(?i)(?:got|received)[ \t]+[0-9]{6}[ \t]+(?:by|via)", group=1,
       gate=r"(?i:got|received)", digits=True),
    _d("secret_assignment", r"(?<![\w-])pw[ \t]+([^\s\"',;<>]{6,64})(?![^\s\"',;<>])",
       v.password_like, prefilter=r"pw[ \t]+[^\s]{6}", group=1, needles=("pw",)),
    _plain("phone",
           r"(?i)number[ \t]+to[ \t]+reach[ \t]+me[^\n\d]{0,40}?(?:is|:)[ \t]*"
           r"(\+?\(?\d[\d ().-]{8,16}\d)(?![\d])", v.told_phone_ok,
           prefilter=r"(?i)number[ \t_-]+to[ \t_-]+reach[ \t_-]+me", needles=("reach",),
           digits=True),
    # Meetings: a passcode by its name (Zoom's, Teams', a recording's play passcode, the
    # numeric H.323 and PSTN passwords), a passcode's change in an audit log (not a dial-in
    # line's PIN: Google Meet's, a bridge's, which corpus KA counts as the meeting's own id,
    # as anyone with the invitation has it), one tap mobile's passcode after ",,,,*", Zoom's SIP
    # address carrying it, a recording's share token and a registrant's tk=, a published
    # calendar's secret URL (Outlook, Google), Graph's clientState, a host key, a device's
    # activation code, a guest Wi-Fi voucher, Slack's confirmation code, Webex's numeric
    # password for phones, a SharePoint personal site's owner and its sharing token; and the
    # passcode's name in Japanese, Korean, Chinese, Arabic and Dutch.
    _d("secret_assignment",
       r"(?i)(?<![a-z])(?:[a-z0-9]+_)*passcode\\?\"?[ \t]*[:=][ \t]*\\?\"?"
       r"([^\s\"'<>,;\\]{4,64}?)(?=\\?\"|[\s,;<]|$)",
       _passcode_ok, prefilter=r"(?i)passcode\\?\"?[ \t]*[:=]", group=1, gate=r"(?i:passcode)"),
    _d("secret_assignment",
       r"(?i)(?<![a-z])(?:h323|pstn|sip|phone|dial_?in)_?password\\?\"?[ \t]*[:=][ \t]*\\?\"?"
       r"(\d{4,12})(?![\d])",
       prefilter=r"(?i)(?:h323|pstn|sip|phone|dial_?in)_?password", group=1,
       gate=r"(?i:password)", digits=True),
    _d("secret_assignment",
       # (not a signature's return type: "password: str) -> Session:")
       r"(?i)(?:passcode|password|pin)[ \t]*:[ \t]*[^\s\"]+[ \t]*->[ \t]*([^\s\":]{4,64})"
       r"(?=[\"\s]|$)",
       _not_stand_in, prefilter=r"(?i)(?:passcode|password|pin)[ \t]*:[^\r\n]*->", group=1,
       gate=r"(?i:passcode|password|pin)"),
    _d("secret_assignment", r",,\d{9,11}#,*\*(\d{4,10})#", prefilter=r",,[0-9]{9}[0-9]*#,*\*",
       group=1, needles=("#,",), digits=True),
    _d("secret_assignment", r"(?<![\w.])\d{9,11}\.(\d{4,10})@zoomcrc\.com",
       prefilter=r"[0-9]{9}\.[0-9]{4}[0-9]*@zoomcrc\.com", group=1, needles=("@zoomcrc.com",),
       digits=True),
    _d("secret_assignment", r"zoom\.us/rec/(?:share|play)/([A-Za-z0-9_.-]{30,})",
       prefilter=r"zoom\.us/rec/(?:share|play)/", group=1, needles=("zoom.us/rec/",)),
    _d("secret_assignment", r"zoom\.us/w/\d+\?(?:[^\s\"'#]*&)?tk=([A-Za-z0-9_.-]{20,})",
       prefilter=r"zoom\.us/w/[0-9]+\?", group=1, needles=("zoom.us/w/",)),
    _d("secret_assignment",
       r"/owa/calendar/[0-9a-f]{32}@[^/\s\"']+/([0-9a-f]{32,})/(?:calendar|reachcalendar)\."
       r"(?:ics|html)",
       prefilter=r"/owa/calendar/[0-9a-f]{32}@", group=1, needles=("/owa/calendar/",)),
    _d("secret_assignment", r"/calendar/ical/[^/\s\"']+/private-([0-9a-f]{32})/",
       prefilter=r"/calendar/ical/[^/\s\"']+/private-", group=1, needles=("/calendar/ical/",)),
    _d("secret_assignment", r"\"clientState\\?\"[ \t]*:[ \t]*\\?\"([^\"\\\n]{8,})\\?\"",
       v.secret_value_ok, prefilter=r"clientState\\?\"[ \t]*:", group=1,
       needles=("clientState",)),
    _d("secret_assignment",
       "(?i)(?:host[ \\t]?key|hostschl(?:\u00fc|ue)ssel)[^\\n:]{0,60}:[ \\t]*(\\d{6})(?![\\d])",
       prefilter=r"(?i)(?:host[ \t]?key|hostschl)[^\r\n:]{0,60}:[ \t]*[0-9]{6}", group=1,
       gate=r"(?i:host[ \t]?key|hostschl)", digits=True),
    _d("secret_assignment",
       r"(?i)activation[ \t]+code[^\n:]{0,60}:[ \t]*(\d{4}(?:-\d{4}){2,4})(?![\d-])",
       prefilter=r"(?i)activation[ \t]+code[^\r\n:]{0,60}:", group=1, gate=r"(?i:activation)",
       digits=True),
    _d("secret_assignment",
       r"(?i)voucher[^\n]{0,60}?(?:\bis|:)[ \t]*(\d{4}-\d{4}-\d{4}(?:-\d{4})?|[A-Z0-9]{8,12})"
       r"(?![\w-])",
       v.has_digit, prefilter=r"(?i)voucher", group=1, gate=r"(?i:voucher)"),
    _d("secret_assignment", r"(?i)confirmation[ \t]+code:[ \t]*([A-Z0-9]{3}-[A-Z0-9]{3})(?![\w-])",
       v.has_digit, prefilter=r"(?i)confirmation[ \t]+code:", group=1,
       gate=r"(?i:confirmation)"),
    _d("secret_assignment", r"(?i)\((\d{6,10})[ \t]+from[ \t]+phones",
       prefilter=r"(?i)from[ \t]+phones",
       group=1, gate=r"(?i:phones)", digits=True),
    _d("email",
       r"(?i)\.sharepoint\.com/(?::[a-z]:/[a-z]/)?personal/([a-z0-9]+(?:[._-][a-z0-9]+)*"
       r"(?:_[a-z0-9-]+){2,4})/",
       v.sharepoint_owner_ok, prefilter=r"(?i)\.sharepoint\.com/[^\s]*personal/", group=1,
       gate=r"(?i:sharepoint)", joined=_nothing_joined),
    _d("secret_assignment",
       r"(?i)\.sharepoint\.com/:[a-z]:/[a-z]/personal/[^/\s]+/([A-Za-z0-9_-]{30,})\?e=",
       prefilter=r"(?i)\.sharepoint\.com/:[a-z]:/[a-z]/personal/", group=1,
       gate=r"(?i:sharepoint)"),
    _d("secret_assignment",
       "(?:\u30d1\u30b9\u30b3\u30fc\u30c9|[\u4f1a\u6703\u5165][\u8bae\u8b70\u4f1a\u6703]?[\u5bc6][\u7801\u78bc]"
       "|\uc554\ud638|\u0631\u0645\u0632 \u0627\u0644\u0645\u0631\u0648\u0631"
       "|[\u041f\u043f]\u0430\u0440\u043e\u043b\u044c[ \\t]+"
       "\u043a\u043e\u043d\u0444\u0435\u0440\u0435\u043d\u0446\u0438\u0438"
       "|(?i:toegangscode)(?:[ \\t]+vergadering)?|(?i:c[o\u00f3]digo[ \\t]+de[ \\t]+acceso))"
       "[ \\t]*[:\uff1a][ \\t]*([!-~]{4,32}?)(?=[\\s\u3002\uff0c,]|$)",
       _passcode_ok,
       prefilter=r"(?i)(?:aaaaa|aaaa|aaa|aa|aaa aaaaaa|toegangscode|c.digo[ \t]+de[ \t]+acceso)"
                 r"[^\r\n]{0,16}[:a~]",
       group=1, needles=("\u30d1\u30b9\u30b3\u30fc\u30c9", "\u5bc6\u7801", "\u5bc6\u78bc",
                         "\uc554\ud638", "\u0627\u0644\u0645\u0631\u0648\u0631", "oegangscode",
                         "OEGANGSCODE", "\u0430\u0440\u043e\u043b\u044c", "acceso", "ACCESO")),
    # A password told after "with password" ("Form 26AS opened fine with password 26031974").
    _d("secret_assignment",
       r"(?i)\bwith[ \t]+(?:the[ \t]+)?password[ \t]+([^\s\"',;<>]{4,64}?)(?=[.,;]?(?:\s|$))",
       v.told_secret_ok, prefilter=r"(?i)with[ \t]+(?:the[ \t]+)?password[ \t]+[^\s]{4}",
       group=1, gate=r"(?i:password)"),
    # Forensics: a passport's number after Hebrew's name for it, secretsdump's boot key, net
    # user's password, a browser's cookie export (host, name, value), a chat's "pass X", a
    # phone's unlock code in Chinese, French, Russian and German and a bank's code in German,
    # a VirusTotal key, "pw ... :", MEGA's file key, Android's account tokens (aas_et/, an
    # SID row), Winlogon's DefaultPassword as RegRipper and a JSON export print it, a
    # password after words ("Password supplied by custodian:"), "creds ... are user / pass".
    _d("national_id",
       "\u05de\u05e1\u05e4\u05e8[ \\t]+\u05d3\u05e8\u05db\u05d5\u05df[ \\t:\u2013-]*"
       r"([A-Z0-9]{7,9})(?![A-Za-z0-9])", ids.passport_ok,
       prefilter=r"aaaa[ \t]+aaaa[^\r\n]{0,4}[A-Z0-9]{7}", group=1,
       needles=("\u05d3\u05e8\u05db\u05d5\u05df",), digits=True),
    _d("secret_assignment", r"(?i)bootKey:[ \t]*0x([0-9a-f]{32})(?![0-9a-f])",
       prefilter=r"(?i)bootKey:[ \t]*0x", group=1, gate=r"(?i:bootkey)"),
    _d("secret_assignment", r"(?i)\bnet[ \t]+user[ \t]+\S+[ \t]+(\S{4,64})[ \t]+/add\b",
       v.secret_value_ok, prefilter=r"(?i)net[ \t]+user[ \t][^\r\n]*/add", group=1,
       gate=r"(?i:net[ \t]+user)"),
    _d("secret_assignment",
       r"(?m)^\.?[\w-]+(?:\.[\w-]+)+,(?:xs|c_user|li_at|session-token|session_token|sessionid"
       r"|SID|SSID|HSID|APISID|SAPISID|__Secure-[\w-]+|[\w-]*sess[\w-]*|[\w-]*auth[\w-]*"
       r"|[\w-]*token[\w-]*),([^,\n]{8,}),/",
       _not_stand_in, prefilter=r",/,[0-9]", group=1, needles=(",/,",)),
    # (not a check's result before the next field: "result=pass rule=min_age_18")
    _d("secret_assignment", r"(?<![\w=.-])pass[ \t]+([^\s\"',;<>=]{6,64})(?![^\s\"',;<>])",
       v.password_like, prefilter=r"pass[ \t]+[^\s]{6}", group=1, needles=("pass",)),
    _d("secret_assignment",
       "(?i)(?:\u89e3\u9501\u5bc6\u7801|\u9501\u5c4f\u5bc6\u7801|code[ \\t]+de[ \\t]+"
       "d[\u00e9e]verrouillage|PIN-\u043a\u043e\u0434"
       "(?:[ \\t]+\u0442\u0435\u043b\u0435\u0444\u043e\u043d\u0430)?"
       "|entsperr(?:code|-?pin)|unlock[ \\t]+(?:code|pin)|sicherheitscode(?:[ \\t]+lautet)?)"
       "[^\\n\\d]{0,30}?(\\d{4,8})(?!\\d)",
       prefilter=r"(?i)(?:aaaa|code[ \t]+de[ \t]+d|pin-aaa|entsperr|unlock[ \t]+(?:code|pin)"
                 r"|sicherheitscode)[^\r\n0-9]{0,40}[0-9]{4}",
       group=1, gate="(?i:\u5bc6\u7801|verrouillage|pin-\u043a\u043e\u0434|entsperr|unlock"
                     "|sicherheitscode)", digits=True),
    _d("api_key",
       r"(?i)\b(?:VT|virus[ _-]?total)[ \t]+(?:api[ \t]+)?key\b[^\n:]{0,40}:[ \t]*([0-9a-f]{64})"
       r"(?![0-9a-f])",
       prefilter=r"(?i)(?:VT|virus[ _-]?total)[ \t]+(?:api[ \t]+)?key", group=1,
       gate=r"(?i:vt|virus)"),
    _d("secret_assignment", r"(?i)(?<![\w-])pw\b[^\n:]{1,30}:[ \t]*(\S{6,64}?)(?=[.,;]?(?:\s|$))",
       v.told_secret_ok, prefilter=r"(?i)pw[^\r\n:]{1,30}:", group=1, gate=r"(?i:pw)"),
    _d("secret_assignment",
       r"mega\.(?:nz|co\.nz)/(?:file|folder)/[A-Za-z0-9_-]{8}#([A-Za-z0-9_-]{22,43})",
       prefilter=r"mega\.(?:nz|co\.nz)/(?:file|folder)/", group=1, needles=("mega.",)),
    _d("secret_assignment", r"(?<![\w/])(aas_et/[A-Za-z0-9_./-]{40,})", prefilter=r"aas_et/",
       group=1, needles=("aas_et/",)),
    _d("secret_assignment", r"(?m)^\d+\|\d+\|SID\|([A-Za-z0-9_-]{40,})$",
       prefilter=r"\|SID\|[A-Za-z0-9_-]{40}", group=1, needles=("|SID|",)),
    _d("secret_assignment", r"DefaultPassword,Reg_?Sz,([^,\n]+),", _not_stand_in,
       prefilter=r"DefaultPassword,", group=1, needles=("DefaultPassword,",)),
    _d("secret_assignment",
       r"\"Name\"[ \t]*:[ \t]*\"DefaultPassword\"[^{}]{0,80}?\"Data\"[ \t]*:[ \t]*\"([^\"\n]+)\"",
       _not_stand_in, prefilter=r"\"DefaultPassword\"", group=1,
       needles=("DefaultPassword",)),
    _d("secret_assignment",
       # (not a log line's quote after it: "already hidden: '[C][wifi:410]:")
       r"(?i)\bpassword(?:[ \t]+[a-z]+){1,4}[ \t]*:[ \t]*([^\s'\"\[(<]\S{5,63}?)(?=[.,;]?(?:\s|$))",
       v.told_password, prefilter=r"(?i)password[ \t]+[a-z]+[^\r\n:]{0,40}:", group=1,
       gate=r"(?i:password)"),
    _d("secret_assignment",
       r"(?i)\bcreds?\b[^\n]{0,60}?\bare[ \t]+[^\s/]+[ \t]*/[ \t]*(\S{6,64}?)(?=[.,;]?(?:\s|$))",
       v.told_password, prefilter=r"(?i)creds?[^\r\n]{0,60}are[ \t]+[^\s/]+[ \t]*/", group=1,
       gate=r"(?i:cred)"),
    # Kubernetes: a token as a container's next argument ("- --token" then "- X"), a
    # Secret's field printed by kubectl's jsonpath (base64 on the next line), kubeadm's
    # certificate key, a password piped into docker login, a Secret in etcd as protobuf
    # (base64 of "k8s\0"), the API server's static token file, a realm's credential value.
    _d("secret_assignment",
       r"(?m)^[ \t]*-[ \t]+['\"]?--(?:token|password|api-key|secret|auth-token)['\"]?[ \t]*\n"
       r"[ \t]*-[ \t]+['\"]?([^\s'\"]{8,})",
       v.secret_value_ok, prefilter=r"-[ \t]+['\"]?--(?:token|password|api-key|secret|auth-token)",
       group=1, needles=("--",)),
    _d("secret_assignment",
       r"(?i)jsonpath=['\"]?\{\.data\.[\w.\\-]*(?:password|passwd|token|secret|key)[\w.\\-]*\}"
       r"['\"]?[^\n]*\n[^\S\n]*([A-Za-z0-9+/]{8,}={0,2})%?(?=\s|$)",
       prefilter=r"(?i)jsonpath=['\"]?\{\.data\.", group=1, gate=r"(?i:jsonpath)"),
    _d("secret_assignment", r"--certificate-key[ \t=]+([0-9a-f]{64})(?![0-9a-f])",
       prefilter=r"--certificate-key[ \t=]+[0-9a-f]{64}", group=1,
       needles=("--certificate-key",)),
    _d("secret_assignment",
       # (not a variable: "$REGISTRY_TOKEN", a Makefile's "$$REGISTRY_TOKEN")
       r"\becho[ \t]+(['\"]?)(?!\$)([^\s'\"|]{4,128})\1[ \t]*\|[ \t]*(?:sudo[ \t]+)?"
       r"(?:docker|podman|helm"
       r"|nerdctl|buildah)[ \t]+(?:registry[ \t]+)?login\b",
       # (the prefilter without its "|": beside "\|[ \t]*convertto-securestring" the engine
       # (Hyperscan 5.4, python-hyperscan 0.9.1) lost this one's matches when it began so;
       # tests/redaction/test_prefilter.py checks the corpora for any such loss)
       v.secret_value_ok, prefilter=r"(?:docker|podman|helm|nerdctl|buildah)[ \t]+"
                                    r"(?:registry[ \t]+)?login", group=2, needles=("login",)),
    _d("secret_assignment", r"\"value\"[ \t]*:[ \t]*\"(azhzAA[A-Za-z0-9+/=]{40,})\"",
       v.k8s_protobuf_secret, prefilter=r"\"azhzAA", group=1, needles=("azhzAA",)),
    _d("secret_assignment",
       # (its groups quoted last, "system:masters": not a CSV row of ids)
       r"(?m)^((?=[A-Za-z0-9]*[a-z])(?=[A-Za-z0-9]*[A-Z])(?=[A-Za-z0-9]*\d)[A-Za-z0-9]{32,64}),"
       r"[\w:.@-]+,[\w:.@-]+,\"[^\"\n]*\"$",
       prefilter=r"[A-Za-z0-9]{32},[^\s,]+,[^\s,]+", group=1, needles=(",",)),
    _d("secret_assignment",
       r"(?m)^[ \t]*-?[ \t]*type:[ \t]*['\"]?password['\"]?[ \t]*\n[ \t]*value:[ \t]*['\"]?"
       r"([^\s'\"]{4,128})",
       v.secret_value_ok, prefilter=r"type:[ \t]*['\"]?password['\"]?[ \t]*\r?\n[ \t]*value:",
       group=1, needles=("password",)),
    # Chats: a value answered in the next message after its name was asked for ("what's your
    # social again?" ... "Tyler: 674588080"; "daj kod BLIK" ... "974384 szybko"), in the
    # exports of WhatsApp, LINE, Telegram and KakaoTalk (a timestamp, a name, the text).
    _d("national_id",
       # (asked: the line holds a question's mark or a word that asks, "what's your social
       # again?", "pasame tu CUIL", "マイナンバー教えて"; the answer follows a speaker's name,
       # not a clock's "18:09:")
       rf"(?i)(?:(?:{_ASKING})[^\n]{{0,100}}?(?<![a-z])(?:{_ASKED_IDS})(?![a-z0-9])"
       rf"|(?<![a-z])(?:{_ASKED_IDS})(?![a-z0-9])(?=[^\n]{{0,100}}?(?:{_ASKING})))"
       r"[^\n]{0,100}\n(?:[^\n]{0,60}\n)?[^\n]{0,60}?"
       r"(?:(?<!\d):|[\t\]])[ \t]*(?:(?:el|la)[ \t]+m[i\u00ed][oa][ \t]+|mine(?:[ \t]+is)?[ \t]+"
       r"|it'?s[ \t]+|meine?[ \t]+(?:ist[ \t]+)?)?"
       r"(?-i:([A-Z0-9][A-Z0-9 .\-/]{4,18}[A-Z0-9]))(?=[ \t]*(?:\n|$))",
       ids.answered_id_ok, prefilter=rf"(?i)(?:{_ASKED_IDS_PREFILTER})[^\r\n]{{0,100}}\r?\n",
       group=1, gate=rf"(?i:{_ASKED_IDS})", digits=True),
    _d("secret_assignment",
       r"(?i)(?:kod[ \t]+blik|blik[ \t]+kod|\bblik\b|verification[ \t]+code|the[ \t]+code)"
       r"[^\n]{0,80}\n(?:[^\n]{0,60}\n)?[^\n]{0,60}?[:\t\]][ \t]*(\d{3}[ -]?\d{3}|\d{4,8})"
       r"(?=[ \t]*(?:\n|$)|[ \t]+[^\W\d_]{2,})",
       prefilter=r"(?i)(?:blik|verification[ \t]+code|the[ \t]+code)[^\r\n]{0,80}\r?\n", group=1,
       gate=r"(?i:blik|code)", digits=True),
    # ... and messengers' own secrets: WhatsApp's media and bundle keys, its end-to-end
    # backup's key (64 hex digits in fours), its code ("código do WhatsApp: 314-353"), a
    # template's one-time code, Signal's backup passphrase (30 digits), a Telethon session
    # and its api_hash, Baileys' pairing code, a Telegram login code, Google's and Apple's
    # codes by their senders, a bank's pushTAN, a door's code, "mdp :", "Schlüssel:", an
    # iPhone backup's password, an SMS backup's call number, decryption keys on a command
    # line (--key).
    _d("secret_assignment",
       r"\\?\"(?:enc|mac|media|cipher|noise|adv|signed|root)Key\\?\"[ \t]*:[ \t]*\\?\""
       r"([A-Za-z0-9+/]{40,}={0,2})\\?\"",
       prefilter=r"Key\\?\"[ \t]*:[ \t]*\\?\"[A-Za-z0-9+/]{40}", group=1, needles=("Key",)),
    _d("secret_assignment", r"(?<![0-9a-f])((?:[0-9a-f]{4} ){15}[0-9a-f]{4})(?![0-9a-f])",
       prefilter=r"(?:[0-9a-f]{4} ){15}[0-9a-f]{4}", group=1, needles=(" ",)),
    _d("secret_assignment", r"(?i)whatsapp[^\n\d]{0,40}?(\d{3}-\d{3})(?![\d-])",
       prefilter=r"(?i)whatsapp[^\r\n0-9]{0,40}[0-9]{3}-[0-9]{3}", group=1,
       gate=r"(?i:whatsapp)", digits=True),
    _d("secret_assignment",
       r"(?i)\"name\"[ \t]*:[ \t]*\"[^\"\n]*(?:otp|auth|verif|code|login)[^\"\n]*\"[^\n]{0,300}?"
       r"\"parameters\"[ \t]*:[ \t]*\[[ \t]*\{[ \t]*\"type\"[ \t]*:[ \t]*\"text\"[ \t]*,[ \t]*"
       r"\"text\"[ \t]*:[ \t]*\"(\d{4,8})\"",
       prefilter=r"\"parameters\"[ \t]*:[ \t]*\[", group=1, needles=("parameters",),
       digits=True),
    _d("secret_assignment", r"(?i)(?:signalbackup-tools[ \t]+\S+\.backup[ \t]+|backup[ \t]+"
       r"passphrase[^\n]{0,80}\n[ \t]*)(\d{30}|\d{5}(?:[ ]\d{5}){5})(?![\d])",
       prefilter=r"(?i)(?:signalbackup-tools|backup[ \t]+passphrase)", group=1,
       gate=r"(?i:signalbackup|passphrase)", digits=True),
    _d("secret_assignment", r"StringSession\([ \t]*['\"]([A-Za-z0-9_=+/-]{40,})['\"]",
       prefilter=r"StringSession\(", group=1, needles=("StringSession(",)),
    _d("secret_assignment",
       r"(?:TelegramClient\([^,\n]+,[ \t]*\d+,[ \t]*['\"]|\bAPI_HASH=['\"]?|api_hash[ \t]*=[ \t]*"
       r"['\"])([0-9a-f]{32})(?![0-9a-f])",
       prefilter=r"(?i)(?:TelegramClient\(|api_hash)", group=1,
       gate=r"(?i:telegramclient|api_hash)"),
    _d("secret_assignment", r"(?i)\bSESSION_STRING=['\"]?([A-Za-z0-9_=+/-]{40,})",
       prefilter=r"(?i)SESSION_STRING=", group=1, gate=r"(?i:session_string)"),
    _d("secret_assignment", r"(?i)pairing[ \t]+code[^\n:]{0,40}:[ \t]*([A-Z0-9]{4}-[A-Z0-9]{4})",
       prefilter=r"(?i)pairing[ \t]+code", group=1, gate=r"(?i:pairing)"),
    _d("secret_assignment",
       "[\u041a\u043a]\u043e\u0434[ \\t]+(?:\u0434\u043b\u044f[ \\t]+\u0432\u0445\u043e\u0434\u0430"
       "|\u043f\u043e\u0434\u0442\u0432\u0435\u0440\u0436\u0434\u0435\u043d\u0438\u044f)"
       "[^\\n\\d]{0,40}?:[ \\t]*(\\d{4,8})(?![\\d])",
       prefilter=r"aaa[ \t]+aaa[^\r\n0-9]{0,60}:[ \t]*[0-9]{4}", group=1,
       needles=("\u043e\u0434",), digits=True),
    _d("secret_assignment", r"(?<![\w-])G-(\d{6})(?=[ \t]+is[ \t]+your[ \t]+Google)",
       prefilter=r"G-[0-9]{6}[ \t]+is[ \t]+your[ \t]+Google", group=1, needles=("G-",),
       digits=True),
    _d("secret_assignment",
       r"(?i)(?:account|login|sign-in|security|verification|apple|google|microsoft)[ \t]+"
       r"(?:account[ \t]+)?code[ \t]+is:?[ \t]*(\d{4,8})(?![\d])",
       prefilter=r"(?i)code[ \t]+is:?[ \t]*[0-9]{4}", group=1, gate=r"(?i:code)", digits=True),
    _d("secret_assignment",
       "(?i)(?<![a-z])(?:push|sms|mobile|chip|photo)tan\\b[^\\n\\d]{0,40}?:?[ \\t]*"
       "(\\d{6})(?![\\d])",
       prefilter=r"(?i)(?:push|sms|mobile|chip|photo)tan", group=1, gate=r"(?i:tan)",
       digits=True),
    _d("secret_assignment",
       "(?i)(?:haust(?:\u00fc|ue)r|t(?:\u00fc|ue)r|tor)-?code[ \\t]*:?[ \\t]*(\\d{4,8})(?![\\d])",
       prefilter=r"(?i)t(?:.|ue)r-?code[ \t]*:?[ \t]*[0-9]{4}", group=1, gate=r"(?i:code)",
       digits=True),
    _d("secret_assignment", r"(?i)(?<![a-z])mdp[ \t]*:[ \t]*(\S{4,64}?)(?=[.,;)]?(?:\s|$))",
       v.told_secret_ok, prefilter=r"(?i)mdp[ \t]*:", group=1, gate=r"(?i:mdp)"),
    _d("secret_assignment",
       "(?i)(?<![a-z\u00e4\u00f6\u00fc-])schl(?:\u00fc|ue)ssel[ \\t]*:[ \\t]*(\\S{6,64}?)"
       r"(?=[.,;)]?(?:\s|$))",
       v.told_password, prefilter=r"(?i)schl(?:.|ue)ssel[ \t]*:", group=1,
       gate="(?i:schl\u00fcssel|schluessel)"),
    _d("secret_assignment",
       r"idevicebackup2\b[^\n]*?encryption[ \t]+on[ \t]+['\"]?([^\s'\"]{4,128})",
       prefilter=r"idevicebackup2", group=1, needles=("idevicebackup2",)),
    _d("phone", r"<call[ \t]+number=\"(\+?\d{7,15})\"", v.told_phone_ok,
       prefilter=r"<call[ \t]+number=\"", group=1, needles=("<call",), digits=True,
       joined=_nothing_joined),
    _d("secret_assignment", r"(?<![\w-])--key[ \t=]+([0-9a-f]{64})(?![0-9a-f])",
       prefilter=r"--key[ \t=]+[0-9a-f]{64}", group=1, needles=("--key",)),
    # Midtrans' server key (its client key is public: a Snap page embeds it).
    _d("api_key", r"(?<![\w-])((?:SB-)?Mid-server-[A-Za-z0-9_-]{20,64})(?![\w-])",
       prefilter=r"Mid-server-[A-Za-z0-9_-]{20}", group=1, needles=("Mid-server-",)),
    # A Wi-Fi's or an account's password after a lower-case "pass:" in a chat message ("--
    # PLDTHOMEFIBR_QS5PO pass: kuv0ifm8k9 po"): letters and digits, no path or file name.
    _d("secret_assignment",
       r"(?<![\w-])pass[ \t]*:[ \t]*([A-Za-z0-9!@#$%^&*_+=~-]{6,64})(?![^\s\"',;<>])",
       v.has_digit_and_letter, prefilter=r"pass[ \t]*:[ \t]*[A-Za-z0-9!@#$%^&*_+=~-]{6}", group=1,
       needles=("pass",)),
    # A number after "my number" in Tagalog ("number ko 09661557803"), and after Arabic's
    # "to reach me" and "call me at" ("للتواصل: ٠٥٧٣٤٠٥٥٣٠", "اتصل بي على ٠٧٩...").
    _d("phone",
       r"(?i)(?<![a-z])(?:number|numero|num)[ \t]+(?:ko|nya|namin)[ \t]*:?[ \t]*"
       r"(\+?\d[\d \t-]{7,15}\d)(?![\d])", v.told_phone_ok,
       prefilter=r"(?i)num(?:ber|ero)?[ \t]+(?:ko|nya|namin)[ \t]*:?[ \t]*\+?\d", group=1,
       gate=r"(?i:num)", digits=True, joined=_nothing_joined,
       joined_prefilter=r"(?i)num(?:ber|ero)?[ \t_-]+(?:ko|nya|namin)[ \t_-]*:?[ \t_-]*\+?\d"),
    _plain("phone",
           "(?:\u0644\u0644\u062a\u0648\u0627\u0635\u0644|\u0627\u062a\u0635\u0644(?:[ \\t]+"
           "\u0628\u064a)?(?:[ \\t]+\u0639\u0644\u0649)?|\u0631\u0642\u0645\u064a)[ \\t]*:?[ \\t]*"
           r"(\+?\d[\d \t-]{7,15}\d)(?![\d])", v.told_phone_ok,
           # (a joiner where the pattern reads a space: the joined reading's prefilter)
           prefilter=r"aa[ \t_-]*:?[ \t_-]*\+?[0-9]", digits=True,
           needles=("\u0644\u0644\u062a\u0648\u0627\u0635\u0644", "\u0627\u062a\u0635\u0644",
                    "\u0631\u0642\u0645\u064a")),
    )


_SYSTEM_FIELDS = _system_fields()


# Long digit runs named by their place, ahead of the cards' checks: a card-shaped run that
# fails Luhn blocks any later detector's finding inside it, and these are such runs (a QR
# payload's fields, an SMS registration's two ids, a voucher's PIN in a USSD code).
_BEFORE_CARDS = (
    # A voucher's PIN keyed into a USSD code ("*1388*73550704277399#"): twelve digits and more.
    _d("secret_assignment", r"(?<![\w*#])\*\d{2,4}\*(\d{12,20})#",
       prefilter=r"\*\d{2,4}\*\d{12}", group=1, needles=("*",), digits=True),
    # Thailand's PromptPay in an EMVCo QR payload: after its application id, tag 01 holds a
    # mobile ("0066" and nine digits), tag 02 a citizen id, 03 an e-wallet's id.
    # (each field its length after its tag: the next tag's digits follow at once)
    _plain("phone", r"A000000677010111(?:\d\d\d\d[0-9A-Z]*?)??0113(0066\d{9})",
           prefilter=r"A000000677010111", needles=("A000000677010111",), digits=True),
    _d("national_id", r"A000000677010111(?:01\d\d\d+?)??0213(\d{13})", ids.thai_id_ok,
       prefilter=r"A000000677010111", group=1, needles=("A000000677010111",), digits=True),
    # A Thai citizen id as a payment's proxy ({"type": "NATID", "value": "..."}).
    _d("national_id",
       r"\\?\"type\\?\"[ \t]*:[ \t]*\\?\"NATID\\?\"[ \t]*,[ \t]*\\?\"value\\?\"[ \t]*:[ \t]*"
       r"\\?\"(\d{13})\\?\"", ids.thai_id_ok, prefilter=r"NATID", group=1, needles=("NATID",),
       digits=True),
    # Indonesia's SIM registration by SMS: REG#<NIK>#<family card number>#, each its own
    # finding (each is exactly a failed card's run, which a finding over both would not win).
    *_each("national_id", (r"(?<![\w])REG#(\d{16})#\d{16}#", r"(?<![\w])REG#\d{16}#(\d{16})#"),
           prefilter=r"REG#\d{16}#\d{16}#", needles=("REG#",), digits=True),
)

def _detectors_first() -> tuple[Detector, ...]:
    """The first part of the table (mypyc compiles each function on its own: the table as
    one module-level expression outgrew a 24 GiB machine's memory in the compiler)."""
    return (
    *_BEFORE_CARDS,
    # PEM/OpenSSH/PGP/SSH2 private key blocks (a dump cut short still counts), PuTTY key files.
    # OpenVPN's static keys (tls-auth, tls-crypt) too.
    _d("private_key",
       (_PEM % "BEGIN") + r"[\s\S]*?(?:" + (_PEM % "END") + r"|\Z)"
       r"|PuTTY-User-Key-File-\d+:[\s\S]*?(?:Private-(?:MAC|Hash): *[0-9A-Fa-f]+|\Z)"
       r"|-----BEGIN OpenVPN Static key V1-----[\s\S]*?(?:-----END OpenVPN Static key V1-----|\Z)",
       v.key_block_ok,
       prefilter=r"PRIVATE KEY|PuTTY-User-Key-File-|OpenVPN Static key",
       needles=("PRIVATE KEY", "PuTTY-User-Key-File-", "OpenVPN Static key"),
       start=_at_literal(("----", "PuTTY-User-Key-File-"))),
    # Wallets' keys: BIP32 extended private keys (xprv, tprv, yprv, zprv), Bitcoin's WIF
    # (its base58check holds), a 64-byte key as Solana's id.json array of bytes.
    _d("private_key", r"(?<![A-Za-z0-9])[xyzt]prv[1-9A-HJ-NP-Za-km-z]{100,}",
       prefilter=r"[xyzt]prv[1-9A-HJ-NP-Za-km-z]{100}", needles=("prv",),
       start=_at_literal(("prv",), 1)),
    _d("private_key", r"(?<![A-Za-z0-9])([59cKL][1-9A-HJ-NP-Za-km-z]{50,51})(?![A-Za-z0-9])",
       v.wif_ok, group=1, prefilter=r"[59cKL][1-9A-HJ-NP-Za-km-z]{50}",
       needles=("5", "9", "c", "K", "L"),
       start=_at_class("[59cKL]", within="[1-9A-HJ-NP-Za-km-z]")),
    _d("private_key", r"\[(?:[ \t]*\d{1,3}[ \t]*,){63}[ \t]*\d{1,3}[ \t]*\]", v.keypair_bytes_ok,
       prefilter=r"\[(?:[ \t]*[0-9]{1,3}[ \t]*,){63}", needles=("[",)),
    # ... and a raw 32-byte hex key, or Solana's 64-byte base58 one, after the words for it
    # (Account.from_key('0x...'), cast's --private-key, "khóa bí mật ví của em là 0x...").
    _d("private_key",
       r"(?i)(?:--private-key|from_key\(|privkey|priv(?:ate)?[ _-]?key|kh\u00f3a b\u00ed m\u1eadt)"
       r"[^\n0-9a-f]{0,40}?(?:\b|['\"`])((?:0x)?[0-9a-f]{64}|[1-9A-HJ-NP-Za-km-z]{86,88})"
       r"(?![0-9A-Za-z])",
       group=1, prefilter=r"(?i)(?:private-key|from_key|privkey|priv(?:ate)?[ _-]?key|kh.a)"
                          r"[^\r\n]{0,50}(?:[0-9a-f]{64}|[1-9A-HJ-NP-Za-km-z]{86})",
       needles=("rivate", "RIVATE", "rivkey", "from_key", "riv_key", "riv-key", "kh\u00f3a"),
       start=_at_literal(("--private-key", "from_key(", "privkey", "private", "priv_key",
                          "priv-key", "priv key", "privatekey", "kh\u00f3a"), fold=True)),
    # A JSON Web Key with its private part ("d"; an RSA key's "p", "q", "dp"... beside it):
    # the whole key object, as a PEM block is (a JWKS of public keys has no "d").
    _d("private_key",
       r"\{(?=[^{}]*\\?\"kty\\?\")(?=[^{}]*\\?\"d\\?\"\s*:\s*\\?\"[A-Za-z0-9_-]{16})[^{}]*\}",
       prefilter=r"\\?\"d\\?\"\s*:\s*\\?\"[A-Za-z0-9_-]{16}", needles=('"d', "kty")),
    # A private key's DER as bare base64, with no PEM armour (a loader's error message, a
    # kubeconfig field): EC (SEC 1 and PKCS#8), Ed25519, and RSA (PKCS#1 and PKCS#8), each by
    # the encoding's fixed opening.
    _d("private_key",
       r"(?<![A-Za-z0-9+/])(?:MHcCAQEE|MIGHAgEAMBMGByqGSM49|MC4CAQAwBQYDK2Vw"
       r"|MII[A-Za-z0-9+/]{3}IBA(?:AKC|DAN))[A-Za-z0-9+/]{20,}={0,2}(?![A-Za-z0-9+/=])",
       prefilter=r"MHcCAQEE|MIGHAgEAMBMGByqGSM49|MC4CAQAwBQYDK2Vw|MII[A-Za-z0-9+/]{3}IBA(?:AKC|DAN)",
       needles=("MHcCAQEE", "MIGHAgEA", "MC4CAQAw", "MII"),
       start=_at_literal(("MHcCAQEE", "MIGHAgEA", "MC4CAQAw", "MII"))),
    # Any token whose first segment is a JOSE header: JWS (the payload need not be JSON) and
    # JWE (five segments).
    _d("jwt",
       r"(?<![\w-])eyJ[A-Za-z0-9_-]{5,}={0,2}\.[A-Za-z0-9_-]+={0,2}"
       r"(?:\.[A-Za-z0-9_-]*={0,2}){0,3}",
       v.jwt_ok, prefilter=r"eyJ[A-Za-z0-9_-]{5}", needles=("eyJ",),
       start=_at_literal(("eyJ",)), starts=((r"eyJ", 3),)),
    _d("aws_access_key",
       r"(?<![A-Za-z0-9])(?:" + "|".join(_AWS_PREFIXES) + r"|A3T[A-Z0-9])[A-Z0-9]{16}"
       r"(?![A-Za-z0-9])", v.not_filler,
       prefilter=r"(?:" + "|".join(_AWS_PREFIXES) + r"|A3T)[A-Z0-9]{16}",
       needles=(*_AWS_PREFIXES, "A3T"), start=_at_literal((*_AWS_PREFIXES, "A3T")),
       starts=(("|".join(_AWS_PREFIXES) + r"|A3T[A-Z0-9]", 4),)),
    # Classic (ghp_, gho_, ghu_, ghs_, ghr_) and fine-grained (github_pat_) tokens.
    _d("github_token",
       # (after a JSON-escaped newline too: a terminal's output in a tool call, "\\ngho_...")
       r"(?:(?<![A-Za-z0-9_])|(?<=\\[nrt]))"
       r"(?:gh[pousr]_[A-Za-z0-9_]{36,251}|github_pat_[A-Za-z0-9_]{22,255})"
       r"(?![A-Za-z0-9_])(?<!xxxxxxxxxxxx)",  # (not documentation's ghp_xxxx...)
       prefilter=r"gh[pousr]_[A-Za-z0-9_]{36}|github_pat_[A-Za-z0-9_]{22}",
       needles=("gh", "github_pat_"), start=_at_literal(("gh", "github_pat_")),
       starts=((r"gh[pousr]_|gith", 4),)),
    # OpenAI (sk-, sk-proj-, sk-svcacct-), Anthropic (sk-ant-), Stripe (sk_/rk_ live/test),
    # Slack (xox?- tokens, xapp- app tokens, webhooks), Google API keys, Hugging Face (hf_).
    _d("api_key",
       # (glued after "-" or "_" only with a prefix no word has: an adapter named
       # lora-sk-proj-..., a variable's value in a slug; "eu-sk-bratislava-..." is a name)
       "(?:" + _edge("A-Za-z0-9_-") + "|(?<=[-_])(?=sk-(?:proj|svcacct|ant)-|[sr]k_(?:live|test)_"
       r"|xox[abposred]-|glpat-|npm_|pypi-|gsk_))"
       r"(?:(?:sk|rk)[-_](?:live_|test_|proj-|svcacct-|ant-api03-|ant-)?"
       # (Slack's d cookie, xoxd-, percent-encoded as a browser keeps it)
       r"[A-Za-z0-9_-]{20,}|xox[abposre]-[A-Za-z0-9-]{10,}|xoxd-[A-Za-z0-9%/+=-]{20,}"
       r"|xapp-\d-[A-Za-z0-9-]{10,}"
       r"|AIza[0-9A-Za-z_-]{35}|hf_[A-Za-z0-9]{34,}"
       r"|glpat-[A-Za-z0-9_-]{20,}|npm_[A-Za-z0-9]{36,}|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"
       r"|pypi-[A-Za-z0-9_-]{50,}|SK[0-9a-fA-F]{32}|ya29\.[A-Za-z0-9_-]{20,}|gsk_[A-Za-z0-9]{40,}"
       r"|https://hooks\.slack\.com/(?:services|workflows|triggers|commands)/[A-Za-z0-9_/-]+"
       # a webhook's path without its host (a proxy logs the path: /services/T../B../secret)
       r"|/services/T[A-Z0-9]{8,12}/B[A-Z0-9]{8,12}/[A-Za-z0-9]{24})"
       r"(?![A-Za-z0-9_-])", v.not_filler,
       prefilter=(r"[sr]k[-_][A-Za-z0-9_-]{20}|xox[abposre]-[A-Za-z0-9-]{10}|xapp-\d-"
                  r"|xoxd-[A-Za-z0-9%/+=-]{20}"
                  r"|AIza[0-9A-Za-z_-]{35}|hf_[A-Za-z0-9]{34}|https://hooks\.slack\.com/"
                  r"|glpat-[A-Za-z0-9_-]{20}|npm_[A-Za-z0-9]{36}|SG\.[A-Za-z0-9_-]{16}"
                  r"|pypi-[A-Za-z0-9_-]{50}|SK[0-9a-fA-F]{32}|ya29\.[A-Za-z0-9_-]{20}|gsk_"
                  r"|/services/T[A-Z0-9]{8}"),
       needles=("sk-", "sk_", "rk-", "rk_", "xox", "xapp-", "AIza", "hf_", "hooks.slack.com",
                "glpat-", "npm_", "SG.", "pypi-", "SK", "ya29.", "gsk_", "/services/T"),
       start=_at_literal(("sk-", "sk_", "rk-", "rk_", "xox", "xapp-", "AIza", "hf_", "glpat-",
                          "npm_", "SG.", "https://hooks.slack.com/", "pypi-", "SK", "ya29.",
                          "gsk_", "/services/T")),
       starts=((r"[sr]k[-_]|xox|xap|AIz|hf_|glp|npm|SG\.|pyp|SK[0-9a-fA-F]|ya2|gsk", 3),
               (r"https://hooks\.slack\.com/", 24), (r"/services/T", 11))),
    # A personal access code in a French letter ("le code d'accès personnel suivant :
    # HGWG-BS63"): letters and digits, in groups.
    _d("secret_assignment",
       r"(?i)code[ \t]+d['\u2019]acc(?:\u00e8|e)s(?:[ \t]+(?:personnel|confidentiel|provisoire"
       r"|unique|temporaire))?(?:[ \t]+suivant)?[ \t]*:?[ \t]*"
       r"((?=[A-Z0-9-]*\d)(?-i:[A-Z0-9]{3,8}(?:-[A-Z0-9]{3,8}){0,3}))(?![\w-])",
       prefilter=r"(?i)code[ \t]+d.{1,3}acc", group=1, gate=r"(?i:acc)"),
    # Airtable's personal access token: "pat", its id's 14 characters, a dot, 64 hex digits.
    _d("api_key", r"(?<![A-Za-z0-9_])pat[A-Za-z0-9]{14}\.[0-9a-f]{64}(?![A-Za-z0-9_])",
       prefilter=r"pat[A-Za-z0-9]{14}\.[0-9a-f]{64}", needles=("pat",),
       start=_at_literal(("pat",))),
    # ldap3's Connection repr: the simple bind's password ('authentication': {'sasl': None,
    # 'simple': '...'}).
    _d("secret_assignment",
       r"['\"]authentication['\"]:[ \t]*\{[^{}\n]{0,80}?['\"]simple['\"]:[ \t]*(['\"])"
       r"([^'\"\n]+)\1", v.secret_value_ok, group=2,
       prefilter=r"['\"]authentication['\"]:[ \t]*\{[^{}\r\n]{0,80}['\"]simple['\"]:",
       needles=("simple",)),
    # Android's SharedPreferences file: <string name="refresh_token">...</string>.
    # (and a Garmin app's properties.xml, <property id="ApiToken" type="string">...</property>)
    _d("secret_assignment",
       r"(?i)<(string|property|setting|entry)[ \t]+(?:[\w:-]+=\\?\"[^\"<>\n]*\\?\"[ \t]+)?"
       r"(?:name|id|key)=\\?\"[\w.-]*(?:token|secret|passw(?:or)?d|api_?key)[\w.-]*\\?\""
       r"(?:[ \t]+[\w:-]+=\\?\"[^\"<>\n]*\\?\")*>([^<\s]{8,})</\1>", v.secret_value_ok, group=2,
       prefilter=r"(?i)<(?:string|property|setting|entry)[ \t][^>\r\n]*(?:name|id|key)=\\?\""
                 r"[\w.-]*(?:token|secret|passw|api_?key)",
       needles=("<string", "<STRING", "<property", "<PROPERTY", "<setting", "<entry")),
    # More vendors, each by its prefix: LangSmith (lsv2_pt_, lsv2_sk_), DigitalOcean (dop_v1_),
    # Mapbox secret tokens (sk.eyJ...; pk. ones are public), Firebase Cloud Messaging's legacy
    # server keys, Telegram bot tokens (id:AA...), Discord webhooks, Prefect Cloud (pnu_),
    # NVIDIA's API keys (nvapi-, NGC and build.nvidia.com); data platforms' and app SDKs':
    # Databricks personal access tokens (dapi + 32 hex, a workspace suffix), New Relic's
    # license (40 characters ending NRAL), insert (NRII-) and user (NRAK-) keys, Cloud
    # Storage's HMAC access ids (GOOG1 + 56 or more), Branch's live keys (key_live_);
    # HashiCorp Vault's tokens (hvs. service, hvb. batch, hvr. recovery), Docker Hub's
    # personal access tokens (dckr_pat_), Grafana's service account tokens (glsa_); Xendit's
    # keys, Toss Payments' secret keys (live_sk_), Replicate's tokens (r8_), Alibaba Cloud's
    # AccessKey ids (LTAI), Stripe's webhook signing secrets (whsec_), Mailchimp's API keys
    # (32 hex digits, then the data centre: -us21).
    _d("api_key",
       _edge("A-Za-z0-9_-") +
       r"(?:lsv2_(?:pt|sk)_[0-9a-f]{32}_[0-9a-f]{10}|do[por]_v1_[0-9a-f]{64}|pnu_[A-Za-z0-9]{36}"
       r"|nvapi-[A-Za-z0-9_-]{40,}"
       r"|sk\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"
       r"|AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,}|\d{8,10}:AA[A-Za-z0-9_-]{33}"
       r"|https://(?:canary\.|ptb\.)?discord(?:app)?\.com/api/(?:v\d+/)?webhooks/\d+/"
       r"[A-Za-z0-9_-]{60,}"
       r"|dapi[0-9a-f]{32}(?:-\d{1,2})?|[0-9a-f]{36}NRAL|NRII-[A-Za-z0-9_-]{32}"
       r"|NRAK-[A-Z0-9]{27}|GOOG1[A-Z0-9]{56,}|key_live_[a-z0-9]{32}"
       r"|hv[sbr]\.[A-Za-z0-9_-]{24,}|dckr_pat_[A-Za-z0-9_-]{27}|glsa_[A-Za-z0-9]{32}_[0-9a-f]{8}"
       r"|xnd_(?:production|development)_[A-Za-z0-9]{40,}|(?:live|test)_sk_[A-Za-z0-9]{20,}"
       r"|r8_[A-Za-z0-9]{37}|LTAI[A-Za-z0-9]{12,20}|whsec_[A-Za-z0-9+/=]{32,}"
       r"|[0-9a-f]{32}-us\d{1,2}"
       # (Entra ID's client secrets: three characters, a digit, "Q~", then 31 to 34)
       r"|[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}"
       # (Tencent Cloud's SecretId; Tavily's keys; Riot Games' API keys)
       r"|AKID[A-Za-z0-9]{32}|tvly-(?:dev-|prod-)?[A-Za-z0-9]{32}"
       r"|RGAPI-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
       # (Plaid's access tokens; Netlify's personal access tokens)
       r"|access-(?:production|sandbox|development)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}"
       r"-[0-9a-f]{4}-[0-9a-f]{12}|nfp_[A-Za-z0-9]{36,40}"
       # (EasyPost's production and test keys)
       r"|EZ[AT]K[0-9a-f]{48,64})"
       # (not a template's filler: TOSS_SECRET_KEY=test_sk_xxxxxxxxxxxxxxxxxxxx)
       r"(?![A-Za-z0-9_-])", v.not_filler,
       prefilter=(r"lsv2_(?:pt|sk)_|do[por]_v1_|sk\.eyJ|:APA91b|\d{8}:AA[A-Za-z0-9_-]{33}"
                  r"|discord(?:app)?\.com/api/(?:v[0-9]+/)?webhooks/|pnu_[A-Za-z0-9]{36}"
                  r"|nvapi-[A-Za-z0-9_-]{40}|dapi[0-9a-f]{32}|[0-9a-f]{36}NRAL"
                  r"|NRII-[A-Za-z0-9_-]{32}|NRAK-[A-Z0-9]{27}|GOOG1[A-Z0-9]{56}"
                  r"|key_live_[a-z0-9]{32}|hv[sbr]\.[A-Za-z0-9_-]{24}|dckr_pat_[A-Za-z0-9_-]{27}"
                  r"|glsa_[A-Za-z0-9]{32}_|xnd_(?:production|development)_|(?:live|test)_sk_"
                  r"|r8_[A-Za-z0-9]{37}|LTAI[A-Za-z0-9]{12}|whsec_[A-Za-z0-9+/=]{32}"
                  r"|[0-9a-f]{32}-us\d|\dQ~[A-Za-z0-9_~.-]{31}|AKID[A-Za-z0-9]{32}|tvly-"
                  r"|RGAPI-|access-(?:production|sandbox|development)-[0-9a-f]{8}-"
                  r"|nfp_[A-Za-z0-9]{36}|EZ[AT]K[0-9a-f]{48}"),
       needles=("lsv2_", "_v1_", "sk.eyJ", ":APA91b", ":AA", "/webhooks/", "pnu_",
                "nvapi-", "dapi", "NRAL", "NRII-", "NRAK-", "GOOG1", "key_live_", "hvs.", "hvb.",
                "hvr.", "dckr_pat_", "glsa_", "xnd_", "_sk_", "r8_", "LTAI", "whsec_", "-us",
                "Q~", "AKID", "tvly-", "RGAPI-", "access-", "nfp_", "EZAK", "EZTK"),
       # (back 36: New Relic's license ends in its needle)
       start=_at_literal(("lsv2_", "_v1_", "sk.eyJ", ":APA91b", ":AA", "discord", "pnu_",
                          "nvapi-", "dapi", "NRAL", "NRII-", "NRAK-", "GOOG1", "key_live_", "hvs.",
                          "hvb.", "hvr.", "dckr_pat_", "glsa_", "xnd_", "live_sk_", "test_sk_",
                          "r8_", "LTAI", "whsec_", "-us", "Q~", "AKID", "tvly-", "RGAPI-",
                          "access-", "nfp_", "EZAK", "EZTK"),
                         36)),
    # A Stripe PaymentIntent's or SetupIntent's client secret (pi_..._secret_..., what a page
    # confirms a payment with), LaunchDarkly's server and mobile SDK keys (sdk- or mob-, then
    # a UUID), Mollie's API keys (live_ or test_, then 30 letters and digits), Sign in with
    # Apple's authorization code (32 hex digits, ".0.", a few letters, "." and 22 more).
    _d("api_key",
       _edge("A-Za-z0-9_-") +
       r"(?:(?:pi|seti)_[A-Za-z0-9]{14,}_secret_[A-Za-z0-9]{10,}"
       r"|(?:sdk|mob)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
       r"|(?:live|test)_(?=[A-Za-z0-9]{0,29}[A-Z])(?=[A-Za-z0-9]{0,29}[a-z])"
       r"(?=[A-Za-z0-9]{0,29}\d)[A-Za-z0-9]{30}"
       r"|[0-9a-f]{32}\.0\.[a-z]{3,5}\.[A-Za-z0-9_-]{20,24})"
       r"(?![A-Za-z0-9_-])", v.not_filler,
       prefilter=(r"_secret_[A-Za-z0-9]{10}|(?:sdk|mob)-[0-9a-f]{8}-[0-9a-f]{4}-"
                  r"|(?:live|test)_[A-Za-z0-9]{30}|[0-9a-f]{32}\.0\.[a-z]{3}"),
       needles=("_secret_", "sdk-", "mob-", "live_", "test_", ".0."),
       start=_at_literal(("pi_", "seti_", "sdk-", "mob-", "live_", "test_", ".0."), 32)),
    # Elasticsearch's API key as a client sends it: "ApiKey " and base64 of its id and key
    # (a Go map's print too, Beats' "headers: map[Authorization:[ApiKey ...]]").
    _d("secret_assignment",
       r"(?<![\w-])ApiKey[ \t]+([A-Za-z0-9+/_-]{16,}={0,2})(?![\w+/=-])", v.base64_credentials,
       prefilter=r"ApiKey[ \t]+[A-Za-z0-9+/_-]{16}", group=1, needles=("ApiKey",),
       start=_at_literal(("ApiKey",))),
    # express-session's signed session id ("s:" the id "." its HMAC, percent-encoded in a
    # cookie and in a session store's _id): whoever holds it is logged in.
    _d("secret_assignment",
       r"(?<![\w%])(s(?:%3A|:)[\w-]{16,64}\.[A-Za-z0-9+/]{43})(?![\w+/])",
       prefilter=r"s(?:%3A|:)[A-Za-z0-9_-]{16}", group=1,
       gate=r"s(?:%3A|:)[\w-]{16,64}\.[A-Za-z0-9+/]{43}",
       start=_at_literal(("s%3A", "s:"))),
    # Confluent's Schema Registry credentials (basic.auth.user.info=<key id>:<secret>): the
    # key id too (the secret is the password's part).
    _d("api_key",
       r"(?i)basic\.auth\.user\.info[ \t]*[:=][ \t]*([A-Za-z0-9]{12,32}):[^\s:]",
       prefilter=r"(?i)basic\.auth\.user\.info", group=1, needles=("user.info",),
       start=_at_literal(("basic.auth",), fold=True)),
    # PgBouncer's auth_file (userlist.txt): a quoted user and its quoted password a line.
    _d("secret_assignment",
       r"(?m)^\"[\w.@$-]{1,63}\"[ \t]+\"([^\"\s]{6,})\"[ \t]*$", v.secret_value_ok,
       prefilter=r"\"[A-Za-z0-9_.@$-]{1,63}\"[ \t]+\"[^\"\s]{6}", group=1, needles=('" "',)),
    # Rails' ActiveRecord log binds its values as pairs ([["otp_secret", "..."], ...]).
    _d("secret_assignment",
       r"(?i)\[\\?\"[\w.-]*(?:secret|token|passw(?:or)?d|api_?key|otp)[\w.-]*\\?\",[ \t]*"
       r"\\?\"([^\"\\\n]{6,})\\?\"\]", v.secret_value_ok,
       prefilter=r"(?i)\[\\?\"[\w.-]*(?:secret|token|passw|api_?key|otp)", group=1,
       needles=('["', '[\\"'), start=_at_literal(('["', '[\\"'))),
    # Android's SharedPreferences: a PIN under its name (<string name="wallet_pin">2356<...).
    _d("secret_assignment",
       r"(?i)<string[ \t]+name=\\?\"[\w.-]*?(?<![a-z])(?:pin|pincode|passcode)(?:[_.-]?code)?"
       r"\\?\">(\d{4,8})</string>",
       prefilter=r"(?i)<string[ \t]+name=\\?\"[\w.-]*(?:pin|passcode)", group=1,
       needles=("<string", "<STRING")),
    # A directory's password attributes in LDIF (ldapmodify's input, a dump): Active Directory's
    # unicodePwd (base64 of the quoted password in UTF-16), userPassword, Samba's hashes.
    _d("secret_assignment",
       # (not a hash: {SSHA}..., {CRYPT}$6$..., which the policy leaves wherever it is)
       r"(?im)^(?:unicodePwd|userPassword|sambaNTPassword|sambaLMPassword)::?[ \t]*"
       r"(?!\{[A-Z0-9.-]{2,16}\})(\S{6,})",
       v.secret_value_ok, prefilter=r"(?i)(?:unicodePwd|userPassword|samba[NL][TM]Password):",
       group=1, needles=("nicodePwd", "serPassword", "Password:"),
       start=_at_literal(("unicodepwd", "userpassword", "samba"), fold=True)),
    # A device's sign-in code (OAuth's device flow: Azure CLI's "enter the code X to
    # authenticate", the answer's device_code and user_code).
    *_each("secret_assignment",
           (r"(?i)enter the code ([A-Z0-9]{8,9}) to authenticate",
            r"\\?\"(?:device_code|user_code)\\?\"[ \t]*:[ \t]*\\?\"([A-Za-z0-9_-]{6,})\\?\""),
           v.secret_value_ok,  # (not documentation's "user_code": "XXXX-XXXX")
           prefilter=r"(?i)enter the code [A-Z0-9]{8}|\"(?:device_code|user_code)\\?\"",
           needles=("the code", "THE CODE", "_code")),
    # An NT hash told in a report ("NT hash for CORP\\x recovered ...: <32 hex>").
    _d("secret_assignment",
       r"(?i)\bNT(?:LM)?[ \t]+hash\b[^\n]{0,80}?[:=][ \t]*([0-9a-f]{32})(?![0-9a-z])",
       prefilter=r"(?i)NT(?:LM)?[ \t]+hash[^\r\n]{0,80}[:=]", group=1,
       needles=("hash", "HASH", "Hash"), start=_at_literal(("nt",), fold=True)),
    # Password-reset links: a French "jeton" (token) in the query, Django's reset path
    # (/reset/<uid in base64>/<token>/), an invitation's token (accept?invite=...).
    *_each("secret_assignment",
           # (and French's "accès" in a results portal's link, ?acces=<token>)
           (r"[?&](?:jeton|acces|invite|invitation|invite_token)=([A-Za-z0-9_-]{16,})",
            r"/reset/[A-Za-z0-9_-]{1,40}/([a-z0-9]{1,13}-[0-9a-f]{20,40})/"),
           prefilter=r"[?&](?:jeton|acces|invite|invitation|invite_token)=|/reset/[A-Za-z0-9_-]{1,40}/",
           needles=("jeton=", "acces=", "invite", "/reset/")),
    # A one-time code a helpdesk generated ("one-time bypass code 01012858 (valid 4h)").
    _d("secret_assignment",
       r"(?i)(?:one[- ]time|bypass|temporary|backup|recovery)[ \t]+(?:bypass[ \t]+|access[ \t]+)?"
       r"code[ \t]+(\d{6,8})(?![\d.,:/-]?\d)",
       prefilter=r"(?i)(?:time|bypass|temporary|backup|recovery)[ \t]+[a-z \t]{0,8}code[ \t]+\d{6}",
       group=1, digits=True, start=_at_literal(("one", "bypass", "temporary", "backup",
                                                 "recovery"), fold=True)),
    # An identity number in a SAML assertion: Sweden's BankID (personalIdentityNumber, its
    # OID), eIDAS' PersonIdentifier (ES/SE/<id>), the Netherlands' DigiD (sector s00000000 is
    # the BSN); in a certificate's subject, Spain's DNIe (SERIALNUMBER=IDCES-<DNI>); in an
    # identity check's log, a document's type and number.
    *_each("national_id",
           (r"(?:personalIdentityNumber|1\.2\.752\.29\.4\.13|naturalperson/PersonIdentifier"
            r"|FriendlyName=\\?\"PersonIdentifier)\\?\"[^>]*>\s*<(?:\w+:)?AttributeValue[^>]*>"
            r"(?:[A-Z]{2}/[A-Z]{2}/)?([A-Za-z0-9-]{6,40})<",
            r"NameID[^>]*>s00000000:(\d{9})<",
            r"SERIALNUMBER=IDC[A-Z]{2}-([0-9XYZ]\d{7}[A-Z])\b",
            r"type=[A-Z]{2}_(?:RESIDENT|NATIONAL|SSN|SIN|TAX|ID)\w*[ \t]+"
            r"number=([A-Z0-9][\w-]{5,20})"),
           prefilter=r"personalIdentityNumber|1\.2\.752\.29\.4\.13|PersonIdentifier|s00000000:"
                     r"|SERIALNUMBER=IDC|type=[A-Z]{2}_",
           needles=("Identi", "1.2.752", "s00000000:", "SERIALNUMBER=", "type=")),
    # Microsoft's sign-in cookies as a cookie file or a header holds them (ESTSAUTH...=...).
    _d("secret_assignment", r"\bESTSAUTH(?:PERSISTENT|LIGHT)?[=\t]([^\s;]{20,})",
       prefilter=r"ESTSAUTH", group=1, needles=("ESTSAUTH",), start=_at_literal(("ESTSAUTH",))),
    # A travel booking's traveller data (IATA's PNL/ADL, GDS screens, Travelport's XML): a
    # document's number in SSR DOCS and FOID, a contact's e-mail in CTCE ("//" for "@"), a
    # phone in CTCM/CTCP, a Sabre phone field (a city code, the number, -M), a phone element's
    # Number attribute.
    *_each("national_id",
           (r"DOCS\b[^/\n]{0,80}?/?P/[A-Z]{2,3}/([A-Z0-9]{5,15})/",
            r"FOID[ /](?:PP|NI|ID)([A-Z0-9]{5,15})\b"),
           prefilter=r"DOCS[^\r\n]{0,80}P/[A-Z]{2}|FOID[ /]", needles=("DOCS", "FOID")),
    _d("email",
       # (EDIFACT's PNR element has no "/": "SSR+CTCE CHLOE_TAYLOR62//GMAIL.COM'")
       r"\bCTCE\b[ \t]*(?:[A-Z]{2}[ \t]*)?(?:HK\d[ \t]*)?(?:/|(?<=[ \t]))"
       r"([A-Z0-9._%+-]+//[A-Z0-9.-]+\.[A-Z]{2,})",
       prefilter=r"CTCE[^\r\n]{0,12}[A-Z0-9._%+-]+//", group=1, needles=("CTCE",),
       joined=_nothing_joined, joined_prefilter=r"CTCE[^\r\n]{0,12}[A-Z0-9._%+-]+//"),
    *_each("phone",
           (r"\bCTC[MPBH]\b[ \t]*(?:[A-Z]{2}[ \t]*)?(?:HK\d[ \t]*)?/?[ \t]*(\+?\d{8,15})\b",
            r"(?m)^[ \t]*\d\.[A-Z]{3}(\d{8,15})-[MHBA]\b",
            r"<(?:\w+:)?PhoneNumber\b[^>]*\bNumber=\\?\"(\d[\d -]{5,15}\d)\\?\""),
           prefilter=r"CTC[MPBH]|[0-9]\.[A-Z]{3}[0-9]{8}|PhoneNumber", digits=True,
           needles=("CTC", "PhoneNumber", "-M", "-H", "-B", "-A"),
           joined=_nothing_joined,
           joined_prefilter=r"CTC[MPBH]|[0-9]\.[A-Z]{3}[0-9]{8}|PhoneNumber"),
    # A signed media URL's signature in its path (Cloudinary's authenticated /s--XXXXXXXX--/).
    _d("secret_assignment", r"/s--([A-Za-z0-9_-]{8})--/", prefilter=r"/s--[A-Za-z0-9_-]{8}--/",
       group=1, needles=("/s--",)),
    # Korea's personal customs clearance code (개인통관고유부호): P and twelve digits.
    _d("national_id",
       "\uac1c\uc778\ud1b5\uad00\uace0\uc720\ubd80\ud638[^\\n\\d]{0,12}?(P\\d{12})\\b",
       prefilter=r"P\d{12}", group=1, needles=("\ud1b5\uad00",)),
    # MQTT and modem credentials in code and logs: paho's username_pw_set("u", "pw"), the
    # AT command that sets an APN's login (AT+CGAUTH=<cid>,<type>,"user","password").
    *_each("secret_assignment",
           (r"username_pw_set\(\s*[\"'][^\"'\n]*[\"']\s*,\s*(?:password\s*=\s*)?[\"']([^\"'\n]{4,})[\"']",
            r"AT\+CGAUTH=\d+,\d+,\"[^\"\n]*\",\"([^\"\n]{4,})\""),
           prefilter=r"username_pw_set\(|AT\+CGAUTH=", needles=("username_pw_set", "CGAUTH")),
    # A Hue bridge's app key (the "username" it grants, 40 characters) in its API paths and
    # in its answer beside the clientkey.
    *_each("api_key",
           (r"/api/([A-Za-z0-9-]{40})/(?:lights|groups|config|sensors|scenes|rules|schedules"
            r"|resourcelinks|capabilities)\b",
            r"\"username\"[ \t]*:[ \t]*\"([A-Za-z0-9-]{40})\"[ \t]*,[ \t]*\"clientkey\""),
           prefilter=r"/api/[A-Za-z0-9-]{40}/|\"username\"[ \t]*:[ \t]*\"[A-Za-z0-9-]{40}\"",
           needles=("/api/", '"username"')),
    # Matter's and HomeKit's setup codes: chip-tool's pairing arguments (the setup PIN, then
    # the discriminator), a boot log's manual pairing code, HomeKit's XXX-XX-XXX.
    *_each("secret_assignment",
           (r"chip-tool[ \t]+pairing[ \t]+\S+[^\n]*?[ \t](\d{8})[ \t]+\d{3,4}\b",
            r"(?i:manual[ \t]+pairing[ \t]+code)[^\n\d]{0,12}(\d{11}|\d{4}-\d{3}-\d{4})",
            r"Setup Pin Code \(0 for UNKNOWN/ERROR\):[ \t]*(\d{8})\b",
            r"(?i:homekit)[^\n]{0,60}?(\d{3}-\d{2}-\d{3})(?![\d-])"),
           prefilter=r"chip-tool[ \t]+pairing|(?i:manual[ \t]+pairing[ \t]+code)|Setup Pin Code"
                     r"|(?i:homekit)[^\r\n]{0,60}[0-9]{3}-[0-9]{2}-[0-9]{3}",
           needles=("chip-tool", "airing code", "AIRING CODE", "omeKit", "omekit", "OMEKIT",
                    "Setup Pin Code")),
    # A device's pairing code ("code d'appairage 338-741", "페어링 코드 717-716").
    _d("secret_assignment",
       "(?i)(?:pairing|appairage|kopplungs|emparejamiento|\ud398\uc5b4\ub9c1)[ \\t]*"
       "(?:code|\ucf54\ub4dc|-?code)?[^\\n\\d]{0,20}?(\\d{3}-\\d{3}|\\d{6})(?![\\d-])",
       prefilter=r"(?i)(?:pairing|appairage|kopplungs|emparejamiento|aaa)[^\r\n]{0,30}\d{3}",
       group=1, digits=True,
       start=_at_literal(("pairing", "appairage", "kopplungs", "emparejamiento",
                          "\ud398\uc5b4\ub9c1"), fold=True)),
    # A one-time code a courier's app records ("otp_entered": "7956").
    _d("secret_assignment",
       r"(?i)\\?\"otp(?:_entered|_input|_value|_code)?\\?\"[ \t]*:[ \t]*\\?\"(\d{4,8})\\?\"",
       prefilter=r"(?i)\"otp[a-z_]{0,8}\\?\"[ \t]*:", group=1, needles=("otp", "OTP"),
       digits=True),
    # Amex's four-digit code as its card calls it (CID), after the card or its expiry on the
    # line ("a request's CID 4821" is an id).
    _d("credit_card",
       r"(?i)(?:amex|american[ \t]+express|card|valid[ \t]+thru|exp(?:iry|ires)?)[^\n]{0,80}?"
       r"\b(?-i:CID)[ \t:]*(\d{4})(?![\d.,:/-]?\d)",
       prefilter=r"(?i)(?:amex|american[ \t]+express|card|valid[ \t]+thru|exp)[^\r\n]{0,80}CID",
       group=1, needles=("CID",), digits=True, joined=_nothing_joined,
       joined_prefilter=r"(?i)(?:amex|american[ \t]+express|card|valid[ \t]+thru|exp)"
                        r"[^\r\n]{0,80}CID"),
    # Health records' identifiers by their systems: FHIR's (an identifier's system names the
    # number: us-ssn, NHS number, BSN, NIR, KVID...), DICOM's Other Patient IDs (a national
    # number beside the hospital's PatientID), a Japanese insured person's number.
    *_each("national_id",
           (r"(?i)\\?\"system\\?\"[ \t]*:[ \t]*\\?\"[^\"\n]*(?:us-ssn|nhs-number|/bsn|insee|nir"
            r"|kvid|ahv|medicare|ihi|health-?card|social-security)[^\"\n]*\\?\"[ \t]*,[ \t]*"
            # (not a masked one: "X******399")
            r"\\?\"value\\?\"[ \t]*:[ \t]*\\?\"([^\"\n\\*]{6,20})\\?\"",
            r"\(0010,1000\)[ \t]+LO[ \t]+\[([^\]\n]{6,20})\]",
            r"\\?\"00101000\\?\"[ \t]*:[ \t]*\{[^{}\n]*?\\?\"Value\\?\"[ \t]*:[ \t]*\[[ \t]*"
            r"\\?\"([^\"\n\\]{6,20})",
            r"\\?\"00101002\\?\"[^\n]{0,60}?\\?\"00100020\\?\"[ \t]*:[ \t]*\{[^{}\n]*?"
            r"\\?\"Value\\?\""
            r"[ \t]*:[ \t]*\[[ \t]*\\?\"([^\"\n\\]{6,20})",
            "\u88ab\u4fdd\u967a\u8005\u756a\u53f7[:\uff1a]?[ \t\u3000]*([0-9]{6,10})"),
           prefilter=r"(?i)\"system\\?\"|\(0010,1000\)|00101000|00101002|aaa", needles=(
               "system", "SYSTEM", "(0010,1000)", "00101000", "00101002",
               "\u88ab\u4fdd\u967a\u8005")),
    # A password typed into the username field, as a failed login logs it ("login failed for
    # user \"meadow!falcon176\""): a password's shape, not a name's or an address's.
    _d("secret_assignment", r"(?i)login failed for user \\?\"([^\"\\\s@]{8,40})\\?\"",
       v.password_like, prefilter=r"(?i)login failed for user \\?\"", group=1,
       needles=("ailed for user",)),
    # A retrieval PIN of letters and digits ("Ihre persönliche Abruf-PIN lautet: XIE7-ZQE4").
    _d("secret_assignment",
       r"(?i)\b(?:abruf-?)?pin\b[^\n\d]{0,24}?(?:lautet|is|ist|est|es|:)[ \t:]*"
       r"((?=[A-Z-]*\d)(?=[\d-]*[A-Z])[A-Z0-9]{4}-[A-Z0-9]{4})(?![\w-])",
       prefilter=r"(?i)pin[^\r\n]{0,30}[A-Z0-9]{4}-[A-Z0-9]{4}", group=1,
       needles=("PIN", "pin", "Pin")),
    # A results portal's link token (?t=<random>), a random token only.
    _d("secret_assignment", r"[?&]t=([A-Za-z0-9_-]{20,})(?![\w-])", v.random_token,
       prefilter=r"[?&]t=[A-Za-z0-9_-]{20}", group=1, needles=("?t=", "&t=")),
    # A password given with what it is ("Password iniziale: FT8HzirV", "temporary password:").
    _d("secret_assignment",
       r"(?i)\b(?:password|passwort|kennwort|mot de passe|contrase[ñn]a)[ \t]+(?:iniziale|initiale"
       r"|inicial|initial|temporanea|temporaire|temporal|tempor[äa]r|provisoire|provvisoria"
       r"|nuova|nouveau|nueva|neues?)[ \t]*:[ \t]*(\S{6,})", v.password_like,
       prefilter=r"(?i)(?:password|passwort|kennwort|de passe|contrase)[ \t]+[a-z]{3,12}[ \t]*:",
       group=1, needles=("assw", "ASSW", "ennwort", "passe", "ontrase")),
    # Tax and social security numbers in the fields and records that carry them: ELSTER's
    # Steuer-ID (E0100401), the SSA's EFW2 employee record (RW and the SSN), France's numéro
    # fiscal (SPI), Portugal's NISS, Japan's basic pension number (基礎年金番号), an Aadhaar
    # e-KYC request's license key (lk=) and an Aadhaar after "uid".
    *_each("national_id",
           (r"<E0100401>(\d{11})</E0100401>",
            r"(?m)^RW(\d{9})[A-Z ]",
            r"(?i)num[ée]ro[ \t]+fiscal[ \t]*(?:de[ \t]+r[ée]f[ée]rence)?[ \t]*:?[ \t]*"
            r"([0-3]\d[ \t]?\d{2}[ \t]?\d{3}[ \t]?\d{3}[ \t]?\d{3})(?![\d ]\d)",
            # (and told: "O meu NISS é 11208170712")
            "\\bNISS\\b[ \\t]*(?::|\u00e9)?[ \\t]*([12]\\d{10})\\b",
            "\u57fa\u790e\u5e74\u91d1\u756a\u53f7[:\uff1a]?[ \t\u3000]*(\\d{4}-?\\d{6})",
            r"(?i)\buid[ \t]+([2-9]\d{11})\b"),
           prefilter=r"E0100401|RW[0-9]{9}|(?i:fiscal)|NISS|(?i:uid)[ \t]+[2-9][0-9]{11}|aaa",
           needles=("E0100401", "RW", "fiscal", "FISCAL", "Fiscal", "NISS", "uid", "UID",
                    "\u5e74\u91d1")),
    _d("api_key", r"<(?:Otp|Auth|Kyc)\b[^>]*\blk=\\?\"([A-Za-z0-9_-]{20,})", group=1,
       prefilter=r"<(?:Otp|Auth|Kyc)[^>]*lk=", needles=("lk=",)),
    # An Okta activation link (/welcome/<token>: whoever opens it sets the account's password);
    # a DSN's individual block (S21.G00.30.001 is the employee's NIR).
    *_each("secret_assignment",
           (r"\.okta(?:preview)?\.com/welcome/([A-Za-z0-9_-]{16,})",),
           prefilter=r"\.okta(?:preview)?\.com/welcome/", needles=("/welcome/",)),
    _d("national_id", r"S21\.G00\.30\.001,'(\d{13,15})'", prefilter=r"S21\.G00\.30\.001,'",
       group=1, needles=("S21.G00.30.001",)),
    # OpenWrt's UCI configuration (option key 'X' in a wifi-iface, option password 'X').
    _d("secret_assignment",
       r"(?m)^[ \t]*option[ \t]+(?:key|password|psk|secret|auth_secret|acct_secret|sae_password)"
       r"[ \t]+'([^'\n]{4,})'", v.secret_value_ok,
       prefilter=r"option[ \t]+(?:key|password|psk|secret|auth_secret|acct_secret|sae_password)"
                 r"[ \t]+'", group=1, needles=("option",)),
    # A Wi-Fi key told in digit groups ("the sticker says Wi-Fi key: 5469 7340 2241 5489").
    _d("secret_assignment",
       r"(?i)wi-?fi[ _-]?(?:key|password|passwort|pass|schl[üu]ssel|cl[ée])[ \t]*(?:is[ \t]+)?:?"
       r"[ \t]*((?:\d{4}[ -]){2,5}\d{4})(?![\d-])",
       prefilter=r"(?i)wi-?fi[ _-]?(?:key|pass|schl|cl)[^\r\n]{0,8}[0-9]{4}[ -][0-9]{4}", group=1,
       digits=True, start=_at_literal(("wi",), fold=True)),
    # A LoRaWAN or Thread key told as hex, grouped or whole ("using AppKey A7A1496A B4002241
    # 13735F10 FA13B018", ot-ctl's "Network Key: <32 hex>").
    _d("secret_assignment",
       r"(?i)\b(?:(?:app|nwk|network|gen|master)[ _-]?(?:s[ _-]?)?key|pskc)[ \t]*[:=]?[ \t]*"
       r"((?:[0-9a-f]{8} ){3}[0-9a-f]{8}|[0-9a-f]{32})(?![0-9a-z])",
       prefilter=r"(?i)(?:(?:app|nwk|network|gen|master)[ _-]?(?:s[ _-]?)?key|pskc)[ \t:=]{0,4}"
                 r"[0-9a-f]{8}",
       group=1, needles=("key", "Key", "KEY", "PSKc", "pskc", "PSKC"),
       start=_at_literal(("app", "nwk", "network", "gen", "master", "pskc"), fold=True)),
    # A credential in a TR-069 parameter list (<Name>...Password</Name><Value>...</Value>),
    # an OCPP SetVariables call (BasicAuthPassword), Android's Wi-Fi store (PreSharedKey
    # quoted as &quot;...&quot;), a SIP digest's response.
    *_each("secret_assignment",
           (r"<Name>[^<\n]*(?:Password|Passphrase|PreSharedKey|SharedSecret|KeyPassphrase)"
            r"</Name>\s*<Value[^>]*>([^<\n]+)</Value>",
            r"\"name\"[ \t]*:[ \t]*\"BasicAuthPassword\"[ \t]*\}[ \t]*,[ \t]*\"attributeValue\""
            r"[ \t]*:[ \t]*\"([^\"\n]+)\"",
            r"<string name=\"PreSharedKey\">&quot;(.+?)&quot;</string>",
            r"Digest[ \t]+username=[^\n]*?\bresponse=\"([0-9a-f]{32,64})\""),
           prefilter=r"Password</Name>|Passphrase</Name>|PreSharedKey|SharedSecret</Name>"
                     r"|BasicAuthPassword|Digest[ \t]+username=",
           needles=("</Name>", "BasicAuthPassword", "PreSharedKey", "Digest")),
    # An Android manifest's meta-data: a key by its name (com.bugsnag.android.API_KEY).
    _d("secret_assignment",
       r"android:name=\\?\"[\w.-]*(?i:api[_-]?key|secret|token|password)[\w.-]*\\?\"\s+"
       r"android:value=\\?\"([^\"\\\s]{16,})\\?\"", v.secret_value_ok,
       prefilter=r"android:name=\\?\"[\w.-]*(?i:api[_-]?key|secret|token|password)", group=1,
       needles=("android:value",), start=_at_literal(("android:name",))),
    # Honeycomb's key goes in a header named for the team; PagerDuty's integration key under
    # routing_key (32 hex digits; a broker's routing key is a name, "orders.created").
    _under_key("x-honeycomb-team", "[A-Za-z0-9_]{20,80}", v.credential_ok,
               needles=("oneycomb", "ONEYCOMB")),
    _under_key("routing[_-]?key", "[0-9a-f]{32}", None, needles=("outing", "OUTING"),
               prefilter_value="[0-9a-f]{32}"),
    # Unifonic's AppSid (its API's credential, in every request's query).
    _under_key("appsid", r"[A-Za-z0-9]{20,40}", v.secret_value_ok,
               needles=("AppSid", "appsid", "appSid", "APPSID")),
    # Flutterwave's webhook secret: its verif-hash header, FLW_SECRET_HASH (any key ending in
    # "hash" is else a digest's, passed over).
    *(_under_key(key, r"[A-Za-z0-9_.~+/=-]{12,128}", v.secret_value_ok,
                 needles=(key[1:], key[1:].upper()))
      for key in ("verif-hash", "flw_secret_hash")),
    # Mercado Pago's access token (APP_USR-<app id>-<date>-<32 hex>-<user id>; TEST- in its
    # sandbox).
    _d("api_key", r"(?<![\w-])((?:APP_USR|TEST)-\d{13,19}-\d{6}-[0-9a-f]{32}-\d{6,12})(?![\w-])",
       prefilter=r"(?:APP_USR|TEST)-\d{13}", group=1, needles=("APP_USR-", "TEST-")),
    # A prepaid voucher's PIN keyed in a recharge code (*141*<12 to 16 digits>#).
    _d("secret_assignment", r"(?<![\d*])\*1\d\d\*(\d{12,16})#", prefilter=r"\*1\d\d\*\d{12}",
       group=1, needles=("#",), digits=True),
    # Game and streaming platforms' credentials by their shapes: Twitch's stream key
    # (live_<user id>_<30 characters>), a stream key as an RTMP URL's last segment
    # (rtmp://a.rtmp.youtube.com/live2/<key>), Twitch chat's IRC login (PASS oauth:<token>),
    # FiveM's license key (cfxk_), Roblox's .ROBLOSECURITY cookie (its warning, then hex).
    _d("secret_assignment", r"(?<![\w-])live_\d{5,12}_[A-Za-z0-9]{20,40}(?![\w-])",
       prefilter=r"live_\d{5}", needles=("live_",), start=_at_literal(("live_",))),
    _d("secret_assignment", r"(?i)rtmps?://[^\s/\"']+(?::\d+)?/(?:live2?|app)/([A-Za-z0-9_-]{12,})",
       v.has_digit, prefilter=r"(?i)rtmps?://", group=1, needles=("rtmp", "RTMP"),
       start=_at_literal(("rtmp",), fold=True)),
    _d("bearer_token", r"(?i)(?<![\w])PASS[ \t]+oauth:([a-z0-9]{20,40})(?![a-z0-9])",
       prefilter=r"(?i)PASS[ \t]+oauth:", group=1, needles=("oauth:",),
       start=_at_literal(("pass",), fold=True)),
    _d("api_key", r"(?<![\w-])cfxk_[A-Za-z0-9_]{16,}(?![\w-])", prefilter=r"cfxk_",
       needles=("cfxk_",), start=_at_literal(("cfxk_",))),
    _d("secret_assignment", r"_\|WARNING:-DO-NOT-SHARE-THIS\.[^|\n]{0,200}\|_[A-F0-9]{64,}",
       prefilter=r"_\|WARNING:-DO-NOT-SHARE-THIS", needles=("_|WARNING:",),
       start=_at_literal(("_|WARNING:",))),
    # A Discord webhook's token in JSON whose slashes are escaped (PHP's json_encode).
    _d("api_key", r"discord(?:app)?\.com\\/api\\/webhooks\\/\d+\\/([A-Za-z0-9_-]{60,})",
       prefilter=r"discord(?:app)?\.com\\/api\\/webhooks", group=1, needles=("\\/webhooks",),
       start=_at_literal(("discord",))),
    # A game server's RCON or join password as its config sets it, with no "=" (Source's and
    # FiveM's cfg: rcon_password "X", sv_password "X"), and a password in Valve's KeyValues
    # ("pass"  "X" in SourceMod's databases.cfg) or a property list (<key>password</key>
    # <string>X</string>, Unity's PlayerPrefs on macOS).
    _d("secret_assignment",
       r"(?i)(?<![\w])(?:rcon_password|sv_password|rcon\.password)[ \t]+\\?\"([^\"\n]{4,})\\?\"",
       v.secret_value_ok, prefilter=r"(?i)(?:rcon_password|sv_password|rcon\.password)[ \t]+",
       group=1, needles=("_password", "_PASSWORD", ".password"),
       start=_at_literal(("rcon_password", "sv_password", "rcon.password"), fold=True)),
    _d("secret_assignment",
       r"(?i)\\?\"(?:pass|password|pwd|passwd)\\?\"[ \t]+\\?\"([^\"\n\\]{4,})\\?\"",
       v.secret_value_ok, prefilter=r"(?i)(?:pass|password|pwd|passwd)\\?\"[ \t]+\\?\"",
       group=1, needles=('"\t', '" '), start=_at_literal(("pass", "pwd"), 2, fold=True)),
    _d("secret_assignment",
       r"(?i)<key>(?:[\w.-]*(?:password|passwd|pwd|[._]pw|secret|token|api_?key))</key>\s*"
       r"<string>([^<\n]{4,})</string>",
       v.secret_value_ok, prefilter=r"(?i)<key>[\w.-]*(?:passw|pwd|[._]pw|secret|token|api_?key)",
       group=1, needles=("<key>",), start=_at_literal(("<key>",))),
    # Steam Guard's revocation code in a Steam Desktop Authenticator .maFile.
    _d("secret_assignment", r"\\?\"revocation_code\\?\"[ \t]*:[ \t]*\\?\"([A-Za-z0-9]{5,10})\\?\"",
       v.has_digit, prefilter=r"revocation_code", group=1, needles=("revocation_code",)),
    # A code of letters and digits a login sends ("Your Steam Guard code is PKR57").
    _d("secret_assignment",
       r"(?i)(?:steam[ \t]+guard|login|verification|security|sign-?in|one-time|2fa"
       r"|auth(?:entication)?)[ \t]+code[ \t]+is[ \t:]*((?-i:[A-Z0-9]{5,8}))(?![\w-])",
       v.letters_and_digits, prefilter=r"(?i)code[ \t]+is[ \t:]*[A-Z0-9]{5}", group=1,
       needles=("ode is", "ODE IS", "ode IS")),
    # A product key or a gift card's code by its shape: groups of five capitals and digits
    # (an Xbox or Windows key's five, a Steam key's three: "DWMUN-B4FOG-BOSLQ"), or four of
    # four ("U26L-KPBK-HU82-JO0V"), letters and digits in its groups.
    _d("secret_assignment",
       # (not a safety data sheet's formula identifier, "UFI: OPM3-PYYI-1Z6J-D3TC")
       r"(?<![\w-])(?<!UFI: )(?<!UFI )"
       r"([A-Z0-9]{5}(?:-[A-Z0-9]{5}){2,4}|[A-Z0-9]{4}(?:-[A-Z0-9]{4}){3,4})(?![\w-])",
       v.product_key_ok, prefilter=r"[A-Z0-9]{4}-[A-Z0-9]{4,5}-[A-Z0-9]{4}", group=1,
       needles=("-",), start=_at_class(r"[A-Z0-9]"),
       # (where a match can start: a group's first character before its dash)
       starts=((r"[A-Z0-9]{5}-[A-Z0-9]{5}-", 12), (r"[A-Z0-9]{4}-[A-Z0-9]{4}-", 10))),
    # X12's interchange password: ISA04, when ISA03 says "01" (a password follows).
    _d("secret_assignment", r"(?<![A-Z0-9])ISA\*\d\d\*[^*\n]{0,10}\*01\*([^*\n]*[^*\s])[ ]*\*",
       v.has_digit, prefilter=r"ISA\*\d\d\*[^*\r\n]{0,10}\*01\*", group=1, needles=("ISA*",)),
    # A DICOM dump's PatientID (0010,0020) when it is a number some country's check takes (an
    # NHS number; a hospital's own record number stays).
    _d("national_id", r"\(0010,0020\)[ \t]+LO[ \t]+\[([^\]\n]{6,64})\]",
       ids.checked_id_ok, prefilter=r"\(0010,0020\)", group=1, needles=("(0010,0020)",)),
    # Orthanc's users and their passwords (RegisteredUsers {"name": "password", ...}): the
    # first pair's password; lftp's login on its command line (-u user,password).
    _d("secret_assignment",
       r"(?i)registered_?users\\?[\"']?[ \t]*[:=][ \t]*\{\s*\\?\"[^\"\n]{1,64}\\?\"[ \t]*:[ \t]*"
       r"\\?\"([^\"\n\\]{4,})\\?\"", v.secret_value_ok,
       prefilter=r"(?i)registered_?users", group=1, needles=("egistered", "EGISTERED")),
    # ... and the pairs after it, to the fifth
    *(_d("secret_assignment",
         r"(?i)registered_?users\\?[\"']?[ \t]*[:=][ \t]*\{"
         rf"(?:\s*\\?\"[^\"\n]{{1,64}}\\?\"[ \t]*:[ \t]*\\?\"[^\"\n\\]*\\?\"\s*,){{{n}}}"
         r"\s*\\?\"[^\"\n]{1,64}\\?\"[ \t]*:[ \t]*\\?\"([^\"\n\\]{4,})\\?\"", v.secret_value_ok,
         prefilter=r"(?i)registered_?users", group=1, needles=("egistered", "EGISTERED"))
      for n in range(1, 5)),
    _d("secret_assignment",
       r"(?<![\w-])lftp\b[^\n]{0,200}?[ \t]-u[ \t]+[^\s,'\"]+,\\?(['\"]?)([^\s'\",]{4,})\1",
       v.secret_value_ok, prefilter=r"lftp[^\r\n]{0,200}-u[ \t]", group=2, needles=("lftp",)),
    # A Java keystore's password (keytool's -storepass and -keypass, a log's storepass=).
    _d("secret_assignment",
       r"(?i)(?<![\w])-?(?:store|key)[_-]?pass(?:word)?(?:[ \t]*[=:][ \t]*|[ \t]+)\\?[\"']?"
       r"([^\s,;\"'\\]{4,})", v.secret_value_ok,
       prefilter=r"(?i)(?:store|key)[_-]?pass", group=1,
       needles=("torepass", "TOREPASS", "eypass", "EYPASS", "tore_pass", "ey_pass", "tore-pass",
                "ey-pass", "torePass", "eyPass"),
       start=_at_literal(("storepass", "keypass", "store_pass", "key_pass", "store-pass",
                          "key-pass"), 1, fold=True)),
    # Oracle's thin JDBC URL with the login in it (jdbc:oracle:thin:user/password@//host...).
    _d("secret_assignment", r"(?i)jdbc:oracle:thin:[^/\s:@\"']+/([^@\s\"']+)@", v.secret_value_ok,
       prefilter=r"(?i)jdbc:oracle:thin:[^/\s:@\"']+/", group=1, needles=("oracle:thin:",),
       start=_at_literal(("jdbc:oracle",), fold=True)),
    # An SSN as an XML element names it (NCPDP SCRIPT's <SocialSecurity>, <SSN>).
    _d("us_ssn",
       r"(?i)<(?:\w+:)?(?:social[_-]?security(?:[_-]?number)?|ssn)>(\d{3}-?\d{2}-?\d{4})<",
       v.ssn_ok, prefilter=r"(?i)<(?:\w+:)?(?:social[_-]?security|ssn)", group=1,
       needles=("ocial", "OCIAL", "SSN>", "ssn>", "Ssn>"),
       joined=_nothing_joined,
       joined_prefilter=r"(?i)<(?:\w+:)?(?:social[ _-]?security|ssn)"),
    # Klaviyo's private API key: "pk_" and 34 hex digits (Stripe's publishable pk_ keys say
    # live or test after it).
    _d("api_key", r"(?<![\w-])pk_[0-9a-f]{34}(?![\w-])", v.has_digit, prefilter=r"pk_[0-9a-f]{34}",
       needles=("pk_",), start=_at_literal(("pk_",))),
    # Przelewy24's CRC key (it signs a shop's payments), under p24_crc or a crc beside the
    # gateway's name: sixteen hex digits.
    _d("secret_assignment",
       r"(?is)(?:przelewy24.{0,300}?(?<![\w-])crc(?:_key)?|(?<![\w-])p24_crc)\\?[\"']?[ \t]*"
       r"(?:=>|[:=])[ \t]*\\?[\"']?([0-9a-f]{16})(?![0-9a-z])", v.has_digit,
       prefilter=r"(?i)przelewy24|p24_crc", group=1,
       needles=("rzelewy24", "RZELEWY24", "p24_", "P24_"),
       start=_at_literal(("przelewy24", "p24_crc"), fold=True)),
    # USPS Web Tools' USERID, the account's credential, in a request's XML (often URL-encoded
    # in the query: the decoded view reads it).
    _d("api_key", r"Request[ \t]+USERID=\\?\"([0-9A-Z]{8,16})\\?\"", v.has_digit,
       prefilter=r"Request[ \t]+USERID=\\?\"[0-9A-Z]{8}", group=1, needles=("USERID=",),
       start=_at_literal(("Request",))),
    # A password in a language's words after a colon or "=", with no digit but random in its
    # case and symbols ("kata sandi: @i*HvaJ%oW%JpW", "hasło: SUxJ-ybgy-nRam"): the prose
    # reading below wants a digit.
    _d("secret_assignment",
       rf"(?ai)(?:{_PASSWORD_WORDS})[ \t]*[:=\uff1a][ \t]*([^\s\"'|,;]{{8,64}})",
       v.scrambled_password_ok, prefilter=_PASSWORD_PREFILTER, group=1,
       needles=_PASSWORD_NEEDLES, start=_at_words(_PASSWORD_STARTS, 2)),
    # A key named in an upstream's refusal ("401 Unauthorized from upstream: key '<hex>'
    # revoked"): a key's 32 hex digits or its UUID, quoted, then what became of it.
    _d("api_key",
       # (not a cache's or a partition's key: "cache key '<hex>' expired")
       r"(?i)(?<![\w.-])(?<!cache )(?<!routing )(?<!partition )(?<!idempotency )(?<!object )"
       r"(?:api[ _-]?)?key[ \t]+\\*[\"']([0-9a-f]{32,64}|" + _UUID + r")\\*[\"']"
       r"[ \t]+(?:was[ \t]+|is[ \t]+|has[ \t]+been[ \t]+)?"
       r"(?:revoked|expired|invalid|rejected|disabled|deactivated|suspended|not[ \t]+found"
       r"|unknown|denied|leaked|compromised)",
       prefilter=r"(?i)key[ \t]+\\*[\"'][0-9a-f]{8}", group=1,
       needles=("key", "KEY", "Key"), start=_at_literal(("key",), 4, fold=True)),
    # A vendor's key in the shape most now take: a short prefix, the mode or the scope, then 32
    # or more random characters ("hly_live_...", "acme_test_...", "hly_scim_..."), random as
    # a key is (capitals, small letters and digits).
    _d("api_key",
       # (not Stripe's public ones: a publishable key, pk_live_; a Checkout Session's id,
       # cs_live_; a payment's or a token's object id)
       r"(?<![A-Za-z0-9_-])(?!(?:pk|cs|pi|pm|ch|in|po|tr|re|ba|src|seti|cus|evt|sub|tok|acct"
       r"|price|prod|card)_)[a-z]{2,6}_(?:live|test|prod|sandbox|dev|scim|sk|key|api|pat)_"
       r"[A-Za-z0-9]{32,}(?![A-Za-z0-9_-])", v.strong_token,
       prefilter=r"[a-z]{2}_(?:live|test|prod|sandbox|dev|scim|sk|key|api|pat)_[A-Za-z0-9]{32}",
       needles=("_live_", "_test_", "_prod_", "_sandbox_", "_dev_", "_scim_", "_sk_", "_key_",
                "_api_", "_pat_")),
    # A webhook's HMAC key told by its name ("validated with HMAC key 28518006AD...").
    _d("secret_assignment", r"(?i)\bhmac[ _-]?key[ \t]*[:=]?[ \t]+([0-9a-f]{32,128})(?![0-9a-z])",
       prefilter=r"(?i)hmac[ _-]?key[ \t]*[:=]?[ \t]+[0-9a-f]{32}", group=1,
       needles=("hmac", "HMAC", "Hmac")),
    # A token an OpenID Connect plugin introspects, quoted in its debug log (Kong's
    # "introspecting token '...' for route ...").
    _d("bearer_token", r"(?i)\bintrospect(?:ing|ed)?[ \t]+(?:access[ \t]+)?token[ \t]+[\"']"
       r"([A-Za-z0-9._~+/-]{16,}=*)[\"']", v.credential_ok,
       prefilter=r"(?i)introspect[a-z]*[ \t]+(?:access[ \t]+)?token[ \t]+[\"']", group=1,
       needles=("ntrospect", "NTROSPECT")),
    # Splunk's HTTP Event Collector token, sent as "Authorization: Splunk <uuid>" (and so in a
    # span's header attribute, whatever its encoding).
    _d("api_key", r"\bSplunk[ \t]+(" + _UUID + r")(?![\w-])",
       prefilter=r"Splunk[ \t]+[0-9a-fA-F]{8}-", group=1, needles=("Splunk",)),
    # An ArcSight CEF event's custom field named for a secret (cs1Label=payment.cvv cs1=219).
    _d("secret_assignment",
       r"(?i)(?<![\w-])cs(\d)Label=[\w.-]*(?:cvv|cvc|cvv2|passw\w*|secret|token|pin|api[_-]?key)"
       r"[\w.-]*(?=[ \t])[^\n]*?(?<![\w-])cs\1=([^\s=\\|]+)",
       prefilter=r"(?i)cs\dLabel=[A-Za-z0-9_.-]*(?:cvv|cvc|passw|secret|token|pin|api[_-]?key)",
       group=2, needles=("Label=", "label=", "LABEL=")),
    # Twilio's client made with the account SID and, beside it, the auth token.
    _d("api_key",
       r"\bClient(?:\.new)?\([ \t]*[\"']AC[0-9a-f]{32}[\"'][ \t]*,[ \t]*[\"']([0-9a-f]{32})[\"']",
       prefilter=r"Client(?:\.new)?\([ \t]*[\"']AC[0-9a-f]{32}", group=1,
       needles=("Client(", "Client.new("), start=_at_literal(("Client",))),
    # Also in prose: "my bearer is ...", "bearer token: ...". A token has a digit or mixed
    # case, so "basic configuration-management" stays.
    _d("bearer_token",
       # (and as German, French, Spanish, Portuguese and Italian say it: "Mein Bearer-Token
       # lautet X", "mon jeton bearer est X")
       r"\b(?:[Bb]earer|BEARER|[Bb]asic|BASIC)"
       r"(?:[\s-]+(?:[Tt]oken|TOKEN|is|was|lautet|ist|est|es|é|è)\b)*\s*[:=]?\s*"
       # (Salesforce's session ids hold a "!": 00D...!AQ...)
       # (Laravel Sanctum's and Netatmo's tokens hold a "|": 12|Xy..., a1b2...|c3d4...)
       # (and a percent-encoded one's escapes: a Twitter app's "AAAA...%3D...")
       r"(?<=[\s:=])([A-Za-z0-9._~+/!-][A-Za-z0-9._~+/!|%-]{15,}=*)", v.credential_ok,
       prefilter=r"[Bb]earer|BEARER|[Bb]asic|BASIC",
       group=1, needles=("earer", "EARER", "asic", "ASIC"),
       start=_at_literal(("earer", "EARER", "asic", "ASIC"), 1),
       starts=((r"[Bb]eare|BEARE|[Bb]asic|BASIC", 5),)),
    # Whatever an Authorization header carries is a credential, however short
    # ("Authorization: Bearer devsecret" in a curl line or a logged request).
    _d("bearer_token",
       r"(?i)(?<![\w-])(?:proxy-)?authorization\\*[\"']?[ \t]*[:=][ \t]*\\*[\"']?"
       # (or the scheme and the credential as strings joined in code: "Basic " + "...")
       r"(?:bearer|basic|token|digest|apikey)(?:[ \t]*\\*[\"'][ \t]*\+[ \t]*\\*[\"']|[ \t]+)"
       # (a Digest's parameters are not one: username="...", its response its own)
       r"(?![A-Za-z]+=\\?[\"'])"
       # (eBay's user tokens hold "^" and "#": v^1.1#i^1#I^3#f^0#...; a key's id and secret
       # joined by ":", "Token a79wrshpz...:ws8g226u...", "ApiKey lbtrans:da581a9c...")
       r"([A-Za-z0-9._~+/!-][A-Za-z0-9._~+/!|^#%:-]{5,}=*)(?![\w.~+/!|^#%:-])",
       v.header_credential_ok,
       prefilter=r"(?i)authorization\\*[\"']?" + _S + r"*[:=]",
       group=1, needles=("uthorization", "UTHORIZATION"),
       start=_at_literal(("authorization", "proxy-authorization"), fold=True)),
    # A token named in a log's sentence ("saved refresh_token X to EncryptedSharedPreferences",
    # "access_token is X"): long, and a token's mix of characters.
    _d("secret_assignment",
       r"(?i)(?<![a-z0-9])(?:refresh|access|id|auth|session)[_-]token[ \t]+(?:is[ \t]+)?"
       r"([A-Za-z0-9._~+/-]{24,}=*)(?![\w.~+/=-])", v.credential_ok,
       prefilter=r"(?i)(?:refresh|access|id|auth|session)[_-]token[ \t]+(?:is[ \t]+)?"
                 r"[A-Za-z0-9._~+/-]{24}",
       group=1, needles=("oken", "OKEN"), start=_at_literal(("_token", "-token"), 8, fold=True)),
    # A session cookie as DevTools' Application tab copies its row: the name, a tab, the value.
    _d("secret_assignment",
       r"(?i)(?:^|(?<=\n))(?:__(?:secure|host)-)?[\w.-]*(?:session[_.-]?token|sessionid"
       r"|auth[_.-]?token)\t([^\t\s]{16,})\t", v.secret_value_ok,
       prefilter=r"(?i)(?:session[_.-]?token|sessionid|auth[_.-]?token)\t", group=1,
       needles=("\t",)),
    # What Windows' credential tools print: Kerberos AS-REP and TGS hashes (Rubeus, impacket;
    # cracked offline to the password), NetNTLMv2 captures (Responder), NT hashes as
    # secretsdump (uid:rid:lmhash:nthash:::) and mimikatz (* NTLM : ...) print them, which
    # sign in as they are (pass-the-hash).
    _d("secret_assignment", r"\$krb5(?:asrep|tgs|pa)\$\d{1,2}\$[^\s\"'<>]{20,}",
       prefilter=r"\$krb5(?:asrep|tgs|pa)\$", needles=("$krb5",), start=_at_literal(("$krb5",))),
    _d("secret_assignment",
       r"(?<=::)[\w.-]{1,64}:([0-9a-fA-F]{16}:[0-9a-fA-F]{32}:[0-9a-fA-F]{20,})",
       prefilter=r"::[\w.-]{1,64}:[0-9a-fA-F]{16}:[0-9a-fA-F]{32}:", group=1, needles=("::",),
       start=_at_literal(("::",))),
    # (not the empty password's pair, a disabled account's: Guest's, DefaultAccount's)
    _d("secret_assignment",
       r":\d{1,10}:(?!(?i:aad3b435b51404eeaad3b435b51404ee:31d6cfe0d16ae931b73c59d7e0c089c0))"
       r"([0-9a-fA-F]{32}:[0-9a-fA-F]{32}):::",
       prefilter=r":[0-9a-fA-F]{32}:[0-9a-fA-F]{32}:::", group=1, needles=(":::",),
       start=_at_literal((":::",), 80)),
    _d("secret_assignment", r"\*[ \t]+(?:NTLM|LM|SHA1)[ \t]*:[ \t]*([0-9a-fA-F]{32,40})\b",
       prefilter=r"\*[ \t]+(?:NTLM|LM|SHA1)[ \t]*:[ \t]*[0-9a-fA-F]{32}", group=1,
       needles=("NTLM", "LM", "SHA1")),
    # A password set on a command line (net user NAME X /add), and the logins a spraying
    # tool reports ("[+] corp.local\\svc_backup:X (Pwn3d!)", CrackMapExec and NetExec).
    _d("secret_assignment",
       r"(?i)\bnet1?(?:\.exe)?[ \t]+user[ \t]+[^\s/]+[ \t]+([^\s/*\"][^\s\"]*)[ \t]+"
       r"/(?:add|domain)",
       v.secret_value_ok, prefilter=r"(?i)net1?(?:\.exe)?[ \t]+user[ \t]", group=1,
       needles=("user", "USER", "User")),
    _d("secret_assignment", r"\[[+-]\][ \t]+[\w.-]+\\[\w.$-]+:([^\s]+)", v.secret_value_ok,
       prefilter=r"\[[+-]\][ \t]+[\w.-]+\\[\w.$-]+:", group=1, needles=("] ",)),
    # A combo list's line (what credential stuffing feeds on): an e-mail, ":" or "|", a
    # password, then the line's end or the next field.
    _d("secret_assignment",
       # (";" or " | " between them too, as stealer logs' samples print them)
       r"(?m)(?:^|(?<=\\n))[\w.+-]{1,64}@[\w-]+(?:\.[\w-]+)+(?:[:|;]|[ \t]\|[ \t])"
       r"([^\s|/:;]{6,64})(?=[ \t]*\||\\n|$)",
       _password_or_passphrase,
       prefilter=r"@[\w-]+(?:\.[\w-]+)+(?:[:|;]|[ \t]\|[ \t])[^ \t\r\n|/:;]{6}", group=1,
       needles=("@",)),
    # Bot managers' clearance cookies, by name, as name=value or in a cookies.txt line
    # (Akamai's _abck and bm_sz, PerimeterX's _px3, DataDome's, Cloudflare's cf_clearance):
    # replayed, each passes a site's bot check as the browser that solved it; and DataDome's
    # cookie as its captcha page's cid parameter.
    *_each("secret_assignment",
           (r"(?<![\w-])(?:_abck|bm_s[zv]|ak_bmsc|_px[23]|_pxhd|datadome|cf_clearance|__cf_bm)"
            r"(?:=|\t)"
            r"([^\s;,\"']{20,})",
            r"captcha-delivery\.com/[^\s\"'<>]*?[?&]cid=([^&\s\"'<>]{20,})"),
           v.has_digit,
           prefilter=(r"(?:_abck|bm_s[zv]|ak_bmsc|_px[23]|_pxhd|datadome|cf_clearance|__cf_bm)[=\t]"
                      r"|captcha-delivery\.com/"),
           gate=r"_abck|bm_s|ak_bmsc|_px|datadome|cf_clearance|_cf_bm|captcha-delivery"),
    # A sign-in, verification or signing link's one-letter token (/auth/magic?...&t=tok_...,
    # /verify?u=...&t=<40 hex>, DocuSign's StartInSession.aspx?t=<uuid>): the link signs in.
    _d("secret_assignment",
       r"(?i)/[\w./-]*(?:magic|verify|verification|login|signin|sign-in|confirm|activate|reset"
       r"|startinsession)[\w./-]*\?(?:[^\s#\"'<>]*?&)?t=([A-Za-z0-9_-]{20,200})(?![\w-])",
       v.has_digit,
       prefilter=(r"(?i)(?:magic|verif|login|signin|sign-in|confirm|activate|reset"
                  r"|startinsession)[^\s]{0,300}[?&]t=[A-Za-z0-9_-]{20}"),
       group=1, gate=r"(?i:t=)"),
    # A login written user, slash, password after its word ("auth: mobproxy / 4iXC8eBpbO",
    # a proxy farm's status page; "Wi-Fi: NETGEAR88 / NKIgnugMXNTT", a network and its key),
    # a German code for a place ("Code für den Lagerraum hinter Halle 3: 0070") and an
    # SMS-activation service's code (STATUS_OK:660163).
    *_each("secret_assignment",
           (r"(?i)(?<![\w-])(?:auth|login|credentials?|creds|wi-?fi|wlan)[ \t]*:[ \t]*"
            r"[\w.@+-]{2,64}[ \t]*/"
            r"[ \t]*([^\s/]{6,64})(?=[ \t]*(?:$|\n|,|;|\)))",),
           v.proxy_password_ok,
           prefilter=(r"(?i)(?:auth|login|credentials?|creds|wi-?fi|wlan)[ \t]*:[ \t]*"
                      r"[\w.@+-]{2,64}[ \t]*/"),
           gate=r"(?i:auth|login|cred|fi|wlan)"),
    # (and after a user's label in English, German and Spanish, with a digit in it: "User:
    # fernwartung / hafen289"; "User: admin / Operator" names two roles)
    _d("secret_assignment",
       r"(?i)(?<![\w-])(?:user|benutzer|usuario)[ \t]*:[ \t]*[\w.@+-]{2,64}[ \t]*/"
       r"[ \t]*((?=[^\s/]*\d)[^\s/]{6,64})(?=[ \t]*(?:$|\n|,|;|\)))",
       v.proxy_password_ok,
       prefilter=r"(?i)(?:user|benutzer|usuario)[ \t]*:[ \t]*[\w.@+-]{2,64}[ \t]*/", group=1,
       gate=r"(?i:user|benutzer|usuario)"),
    *_each("secret_assignment",
           (r"(?i)(?<![\w-])code[ \t]+f(?:\u00fc|u|ue)r[ \t]+[^\n:.]{1,50}:[ \t]*(\d{4,8})"
            r"(?![\d,/:-]|\.\d)",
            r"(?<![\w-])STATUS_OK:(\d{4,8})(?!\w)"),
           prefilter=r"(?i)code[ \t]+f(?:.|ue)r[ \t]|STATUS_OK:\d", digits=True,
           gate=r"(?i:code)|STATUS_OK"),
    # A lockbox's or a door's code of letters ("lockbox: EFDE", a word lockbox's) or a letter
    # and digits ("digicode A1156"); an OTP a verification service logs sending
    # ("verify.send channel=sms to=... code=214106").
    *_each("secret_assignment",
           (r"(?i)(?<![a-z])(?:lock[ _-]?box|digicode|keypad|door[ _-]?code|gate[ _-]?code)"
            r"[ \t]*(?::|is)[ \t]*((?-i:[A-Z]{4,6}))(?![\w/-])",
            r"(?i)(?<![a-z])(?:digicode|lock[ _-]?box|keypad)(?:[ _-]?code)?[ \t]*(?::|is)?[ \t]*"
            r"((?-i:[A-Z]\d{3,6}|\d{3,6}[A-Z]))(?![\w/-])",
            r"(?i)(?<![a-z])(?:verify|verification|otp|2fa|mfa)[\w-]*\.(?:send|sent|issued?|deliver\w*)"
            r"\b[^\n]{0,120}?(?<![\w-])code=\\?\"?(\d{4,8})(?!\d)"),
           v.not_a_code_stand_in,
           prefilter=(r"(?i)(?:lock[ _-]?box|digicode|keypad|door[ _-]?code|gate[ _-]?code)"
                      r"[ \t]*(?::|is)?[ \t]*[A-Z0-9]{4}|(?:verif|otp|2fa|mfa)[^\r\n]{0,200}code="),
           gate=r"(?i:box|code|keypad)"),
    # A session cookie's value quoted after its name in a log (cookie_session="..."); Brazil's
    # CPF as a Pix key ("chave_pix": "58678739517"); Paddle's API key.
    _d("secret_assignment",
       r"(?i)(?<![\w.-])(?:cookie_session|session_cookie|[\w-]*_session_id)=\\?[\"']"
       r"([^;\s\"'&,]{16,})\\?[\"']", v.session_cookie_ok,
       prefilter=r"(?i)(?:cookie_session|session_cookie|_session_id)=\\?[\"']", group=1,
       gate=r"(?i:session)"),
    _d("national_id", r"\\?\"chave_?pix\\?\"\s*:\s*\\?\"(\d{11})\\?\"", ids.cpf_ok,
       prefilter=r"(?i)chave_?pix\\?\"\s*:", group=1, digits=True, gate=r"(?i:chave)"),
    # Agora's RTC access token (AccessToken2: "007" and a zlib stream in base64, "eJ...").
    _d("api_key", r"(?<![A-Za-z0-9+/])007eJ[A-Za-z0-9+/]{60,}={0,2}(?![A-Za-z0-9+/=])",
       prefilter=r"007eJ[A-Za-z0-9+/]{60}", needles=("007eJ",), start=_at_literal(("007eJ",))),
    _d("api_key", r"(?<![A-Za-z0-9_])pdl_(?:live|sdbx|test)_apikey_[A-Za-z0-9_]{30,}",
       prefilter=r"pdl_(?:live|sdbx|test)_apikey_", needles=("pdl_",),
       start=_at_literal(("pdl_",))),
    # A vehicle's immobiliser, key and radio codes (a locksmith portal's "key code 04505,
    # incode 797360", "codice immobilizer 94402", "immo pin ... 54337" a line apart is not
    # read) and a Wi-Fi network's WPA2 key after its label ("WPA2: Piston$camshaft75").
    _d("secret_assignment",
       r"(?i)(?<![a-z])(?:key[ \t]*code|incode|outcode|radio[ \t]*code"
       r"|immo(?:bili[sz]er)?[ \t]*(?:pin|code)|codice[ \t]+(?:immobilizer|radio|autoradio)"
       # (a French key's "code carte", the card the maker gives with the car)
       r"|code[ \t]+carte)"
       r"[ \t]*(?:is[ \t]+|[:=][ \t]*)?(\d{4,6})(?![\d/:-]|[.,]\d)", _not_zeros,
       prefilter=(r"(?i)(?:key[ \t]*code|incode|outcode|radio[ \t]*code|immo"
                  r"|codice[ \t]+(?:immo|radio|autoradio)|code[ \t]+carte)"),
       group=1, digits=True, gate=r"(?i:code|immo)"),
    _d("secret_assignment",
       r"(?i)(?<![\w-])wpa2?(?:[ _-]?(?:psk|key|personal|passphrase))?[ \t]*:[ \t]*"
       r"([^\s,;\"']{8,63})"
       r"(?=[\s,;\"']|$)", v.temp_password_ok,
       prefilter=r"(?i)wpa2?[a-z _-]{0,12}:[ \t]*[^\s,;\"']{8}", group=1, gate=r"(?i:wpa)"),
    # A Windows program's password switch ("/password:hjUC0XSb...", "/pwd:..."), as a process
    # creation event's command line shows it; an authenticator's manual entry key ("Manual
    # entry key shown to user: GLIPLXLL...", "MFA seed SIQQ..."), base32.
    _d("secret_assignment",
       r"(?i)(?<![\w/-])/(?:password|passwd|pass|pwd)[:=](\\?[\"']?[^\s\"']{4,128})",
       v.secret_value_ok, prefilter=r"(?i)/(?:password|passwd|pass|pwd)[:=]", group=1,
       gate=r"(?i:/pass|/pwd)"),
    _d("secret_assignment",
       r"(?i)(?:(?:manual[ \t]+entry|setup|totp|authenticator)[ \t]+key(?:[ \t]+[a-z]+){0,4}"
       r"[ \t]*(?::|is)|(?:mfa|totp|otp|2fa)[ \t]+(?:seed|secret)(?:[ \t]*(?::|is))?)"
       r"[ \t]*((?-i:[A-Z2-7]{16,64}))(?![A-Za-z0-9])", v.has_digit,
       prefilter=(r"(?i)(?:manual[ \t]+entry|setup|totp|authenticator)[ \t]+key"
                  r"|(?:mfa|totp|otp|2fa)[ \t]+(?:seed|secret)"), group=1,
       gate=r"(?i:key|seed|secret)"),
    # A temporary password given in a chat after a reset ("reset it, temp is Claims@8720T").
    _d("secret_assignment",
       r"(?i)(?<![\w-])temp(?:orary)?(?:[ \t]+(?:password|passwd|pw|pass|pwd))?[ \t]*(?:is|:|=)"
       r"[ \t]*([^\s,;\"'`]{6,64})(?=[\s,;\"'`]|$)", v.temp_password_ok,
       prefilter=r"(?i)temp[a-z \t]{0,20}(?:is|:|=)[ \t]*[^\s,;\"'`]{6}", group=1,
       gate=r"(?i:temp)"),
    # Devices' secrets as their tools print them: a flash partition's strings, each value on
    # the line after its key's ("sta.pswd\nHaus2010#", "mqtt_pass\n...", "cloud_token\n..."),
    # a SIM's new PIN after its PUK (AT+CPIN="53375324","6942"), an nRF91 modem's pre-shared
    # key (AT%CMNG=0,<tag>,3,"<hex>"), a WPS PIN (wpa_cli wps_pin any 94566512) and a HomeKit
    # accessory's setup code ("setup code: 291-14-540").
    *_each("secret_assignment",
           # (a key's name alone on its line, a short one: not a base64 body's line holding
           # "pwd" or "psk" by chance)
           (r"(?im)^[ \t]*(?=[\w.-]{3,32}[ \t]*\r?\n)[\w.-]{0,16}"
            r"(?:pass(?:word|wd)?|pswd|pwd|token|secret|psk)[\w.-]{0,16}[ \t]*\r?\n"
            r"[ \t]*([^\s]{6,128})[ \t]*\r?$",
            r"(?i)AT%CMNG=0,\d+,3,\\?\"([0-9A-Fa-f]{8,128})\\?\""),
           v.device_secret_ok,
           prefilter=r"(?i)(?:pass|pswd|pwd|token|secret|psk)[\w.-]*[ \t]*\r?\n|AT%CMNG=0",
           gate=r"(?i:pass|pswd|pwd|token|secret|psk|cmng)"),
    # ... a bootloader's environment set by hand (U-Boot's "setenv ota_token X", "fw_setenv
    # mqtt_pass 'X'"), an ESP device's proof of possession (pop=) and a bootloader's unlock
    # code (fastboot oem unlock <hex>).
    *_each("secret_assignment",
           (r"(?i)(?<![\w-])(?:fw_)?setenv[ \t]+[\w.-]*(?:pass|pswd|pwd|token|secret|key|psk)"
            r"[\w.-]*[ \t]+['\"]?([^\s'\"]{6,128})",
            r"(?<![\w-])pop=([A-Za-z0-9]{6,64})(?![\w-])",
            r"(?i)fastboot[ \t]+(?:oem|flashing)[ \t]+unlock[ \t]+([0-9A-Fa-f]{8,64})(?![\w-])"),
           v.has_digit,
           prefilter=r"(?i)setenv[ \t]|pop=[A-Za-z0-9]{6}|fastboot[ \t]",
           gate=r"(?i:setenv|pop=|fastboot)"),
    *_each("secret_assignment",
           (r"(?i)AT\+CPIN=\\?\"\d{8}\\?\",\\?\"(\d{4,8})\\?\"",
            r"(?i)wps_pin[ \t]+\S+[ \t]+(\d{8})(?!\d)",
            r"(?i)setup[ _-]?code[ \t]*[:=][ \t]*(\d{3}-\d{2}-\d{3})(?![\d-])"),
           _not_zeros, prefilter=r"(?i)AT\+CPIN=\\?\"\d{8}|wps_pin|setup[ _-]?code", digits=True,
           gate=r"(?i:cpin|wps_pin|setup)"),
    # A proxy list's line, as its sellers and scrapers' settings write it: address, port,
    # user and password ("51.110.52.19:3128:mx8565:9H2Ex9jImmM9", "...:9421@cbtbtp:t60Z3DTV").
    _d("secret_assignment",
       r"(?<![\w.:@/-])(?:\d{1,3}\.){3}\d{1,3}:\d{2,5}[:@][A-Za-z0-9_.+-]{2,64}:"
       r"([^\s:@'\"`]{6,128})(?![^\s,;'\"`)\]])", v.proxy_password_ok,
       prefilter=r"\d\.\d{1,3}:\d{2,5}[:@][A-Za-z0-9_.+-]{2,64}:[^\s:@'\"`]{6}", group=1,
       needles=(":",)),
    # A browser's cookies.txt (Netscape's format, as infostealers dump it): domain, flag,
    # path, secure, expiry, a session's name, its value.
    _d("secret_assignment",
       r"(?im)(?:^|(?<=\\n))[^\t\n]+\t(?:true|false)\t[^\t\n]*\t(?:true|false)\t\d+\t"
       r"[^\t\n]*(?:sess|sid|token|auth|login|jwt|remember)[^\t\n]*\t([^\t\n]{8,})",
       v.secret_value_ok, prefilter=r"(?i)\t(?:true|false)\t[^\t\n]*\t(?:true|false)\t",
       group=1, needles=("\t",)),
    # A cloud SDK's client made with a key pair: the access key's id, then its secret
    # (Tencent Cloud's Credential("AKID...", X), Alibaba Cloud's oss2.Auth('LTAI...', X)).
    _d("secret_assignment",
       r"(?:AKIA|ASIA|LTAI|AKID)[A-Za-z0-9]{12,40}\\?[\"'][ \t]*,[ \t]*\\?[\"']"
       r"([A-Za-z0-9/+=_-]{16,})\\?[\"']", v.tokenish,
       prefilter=r"(?:AKIA|ASIA|LTAI|AKID)[A-Za-z0-9]{12}[A-Za-z0-9]*\\?[\"'][ \t]*,", group=1,
       needles=("AKIA", "ASIA", "LTAI", "AKID")),
    # PHP's PDO made with its password (new PDO($dsn, 'user', 'X')), as a stack trace prints
    # the call (PDO->__construct('mysql:host=db', 'shop_rw', 'X'), "-&gt;" in an HTML page).
    _d("secret_assignment",
       r"(?:new[ \t]+PDO|PDO(?:->|-&gt;)__construct)\([^,()\n]{1,200},[ \t]*(['\"])[^'\"\n]*\1"
       r"[ \t]*,[ \t]*(['\"])([^'\"\n]{1,200})\2",
       v.secret_value_ok, prefilter=r"PDO[^\n]{0,20}\([^\n]*,[^\n]*,", group=3,
       needles=("PDO",), start=_at_literal(("PDO",), 4)),
    # A session cookie handed to an HTTP client in code (requests' cookies={"SESSION": X}).
    _d("secret_assignment",
       r"(?i)cookies[ \t]*=[ \t]*\{[^{}\n]{0,200}?[\"'][\w.-]*(?:sess|sid|token|auth|jwt)[\w.-]*"
       r"[\"'][ \t]*:[ \t]*[\"']([^\"'\s]{16,})[\"']", v.secret_value_ok,
       prefilter=r"(?i)cookies[ \t]*=[ \t]*\{", group=1, needles=("ookies", "OOKIES")),
    # ... or set on its session (requests' s.cookies.set('sessionid', X, domain=...)).
    _d("secret_assignment",
       r"(?i)cookies\.set\([ \t]*[\"'][\w.-]*(?:sess|sid|token|auth|jwt)[\w.-]*[\"'][ \t]*,"
       r"[ \t]*[\"']([^\"'\s]{8,})[\"']", v.secret_value_ok,
       prefilter=r"(?i)cookies\.set\(", group=1, needles=("ookies.set", "OOKIES.SET")),
    # A secret written into code as an environment variable's fallback (os.getenv('X',
    # '<token>'), os.environ.get(...)): a token's shape, at least 20 characters.
    _d("secret_assignment",
       r"(?:getenv|environ\.get)\([ \t]*([\"'])[\w.-]*\1[ \t]*,[ \t]*([\"'])"
       r"([A-Za-z0-9_\-+/=.~]{20,})\2[ \t]*\)", v.random_token,
       prefilter=r"(?:getenv|environ\.get)\([^\n]{0,80},[ \t]*[\"'][A-Za-z0-9_+/=.~-]{20}",
       group=3, needles=("getenv", "environ.get")),
    # A session cookie made in PowerShell ("Copy as PowerShell": System.Net.Cookie("sessionid",
    # "X", "/", "host")).
    _d("secret_assignment",
       r"(?i)Net\.Cookie\([ \t]*[\"'][\w.-]*(?:sess|sid|token|auth|jwt)[\w.-]*[\"'][ \t]*,"
       r"[ \t]*[\"']([^\"'\s]{8,})[\"']", v.secret_value_ok,
       prefilter=r"(?i)Net\.Cookie\(", group=1, needles=("Cookie(", "COOKIE(", "cookie("),
       start=_at_literal(("net.cookie(",), fold=True)),
    # A card's number in its track data: track 1 (%B<number>^NAME^...), track 2 and its
    # EMV or ISO 8583 equivalents (;<number>=<expiry>..., <number>D<expiry>...).
    _d("credit_card", r"(?:(?<=%B)|(?<![0-9A-Za-z]))(\d{13,19})(?=[D=]\d{4}|\^)", v.luhn_13_19,
       prefilter=r"\d{13}[D=^]", group=1, digits=True, joined=_nothing_joined,
       joined_prefilter=r"\d{13}[D=^]",
       start=_at_class(r"\d")),
    # A SIM's keys as an HSS or a core's subscriber database holds them (KI=, OPC=, Open5GS'
    # security: {k: "...", opc: "..."}): 32 hex digits under their names.
    *(_under_key(key, "[0-9A-Fa-f]{32}", None, needles=(key, key.upper()),
                 prefilter_value="[0-9A-Fa-f]{32}") for key in ("ki", "opc", "op", "k")),
    # A secret named in C's #define (an Arduino sketch's BLYNK_AUTH_TOKEN, WIFI_PASSWORD).
    _d("secret_assignment",
       r"#define[ \t]+\w*(?:TOKEN|SECRET|PASSWORD|PASS|PSK|API_?KEY|AUTH)\w*[ \t]+"
       r"\"([^\"\n]{8,})\"",
       v.secret_value_ok, prefilter=r"#define[ \t]+[^\r\n]{0,60}\"", group=1,
       needles=("#define",)),
    # A key/value setting as a terminal's parameters hold it (<Param k="MERCH_PWD" v="..."/>).
    _d("secret_assignment",
       r"(?i)\bk=\"[\w.-]*(?:pwd|pass|pin|secret|token|key)[\w.-]*\"[ \t]+v=\"([^\"\n]{4,})\"",
       v.secret_value_ok, prefilter=r"(?i)k=\"[^\"\r\n]*(?:pwd|pass|pin|secret|token|key)", group=1,
       needles=("k=",)),
    # A Wi-Fi network's QR payload (WIFI:S:<ssid>;T:WPA;P:<password>;;).
    _d("secret_assignment", r"WIFI:(?:[^;\n]*;)*?P:((?:\\[;,:\"\\]|[^;\n\\])+);",
       v.secret_value_ok,  # (not a template's "P:<see vault entry>;")
       prefilter=r"WIFI:[^\r\n]*P:", group=1, needles=("WIFI:",)),
    # RADIUS' test client: radtest <user> <password> <server> <port> <shared secret>.
    _d("secret_assignment", r"radtest[ \t]+\S+[ \t]+(['\"]?)([^'\"\s]+)\1",
       prefilter=r"radtest[ \t]+", group=2, needles=("radtest",)),
    _d("secret_assignment",
       r"radtest[ \t]+\S+[ \t]+\S+[ \t]+\S+[ \t]+\d+[ \t]+(['\"]?)([^'\"\s]+)\1",
       prefilter=r"radtest[ \t]+", group=2, needles=("radtest",)),
    # A Bluetooth link's long-term key (ltk=), Z-Wave's DSK (eight groups of five digits) and a
    # Zigbee device's install code: what pairs or joins a device.
    _under_key("ltk", "[0-9A-Fa-f]{32}", None, needles=("ltk", "LTK"),
               prefilter_value="[0-9A-Fa-f]{32}"),
    _d("secret_assignment", r"(?<![\d-])(\d{5}(?:-\d{5}){7})(?![\d-])",
       prefilter=r"\d{5}(?:-\d{5}){7}", group=1, digits=True, start=_at_class(r"\d")),
    _d("secret_assignment",
       r"(?i)install[ _-]?code[^\n]{0,40}?[:=][ \t]*([0-9A-F]{32,36})(?![0-9A-F])",
       prefilter=r"(?i)install[ _-]?code[^\r\n]{0,41}[0-9A-F]{32}", group=1,
       needles=("nstall",)),
    # An EV charging card's RFID under OCPP's idTag: it authorizes the session.
    _under_key("idtag", "[0-9A-Fa-f]{8,20}", None, needles=("idTag", "idtag", "IDTAG")),
    # A Wi-Fi password handed to Matter's chip-tool ("pairing ble-wifi <node> <ssid> <psk>
    # <passcode> ..."), and a Matter onboarding payload ("MT:..."), which holds the passcode.
    _d("secret_assignment",
       r"chip-tool[ \t]+pairing[ \t]+(?:ble-wifi|code-wifi)[ \t]+\S+[ \t]+\S+[ \t]+"
       r"(['\"]?)([^\s'\"]+)\1", v.secret_value_ok, prefilter=r"chip-tool[ \t]+pairing[ \t]+",
       group=2, needles=("chip-tool",)),
    _d("secret_assignment",
       r"(?<![A-Za-z0-9])MT:(?=[0-9A-Z.-]{0,21}\d)([0-9A-Z.-]{19,22})(?![0-9A-Z.-])",
       prefilter=r"MT:[0-9A-Z.-]{19}", group=1, needles=("MT:",)),
    # A key handed to the database's own encryption in a query (pgcrypto's
    # pgp_sym_decrypt(ssn_enc, 'key'), MySQL's AES_DECRYPT(col, 'key')).
    _d("secret_assignment",
       r"(?i)(?<![\w.])(?:pgp_sym_(?:en|de)crypt(?:_bytea)?|aes_(?:en|de)crypt)\([^,()\n]{1,120},"
       r"[ \t]*'([^'\n]{8,})'", v.secret_value_ok,
       prefilter=r"(?i)(?:pgp_sym_|aes_)(?:en|de)crypt[^\r\n]{0,130},[ \t]*'", group=1,
       needles=("crypt(", "CRYPT(", "Crypt(")),
    # A one-time code under "code" in a payload that says it is one ({"event": "OTP Sent",
    # ..., "code": "549142"}).
    _d("secret_assignment",
       # (Dutch: DigiD's sms_verificatie)
       # (and BLIK's six digits: POST /v1/blik/authorize body={"code":"930432"})
       # (not inside a hex id: "span_id=8e2fabba...")
       r"(?i)(?:otp|(?<![0-9a-f])2fa|mfa|one[ _-]?time|verification|verificatie|blik|reset[ _]code"
       r"|templatecode=sms_)"
       r"[^\n]{0,160}?"
       r"(?:\\?\"code\\?\"[ \t]*:[ \t]*\\?\"(?=\d{4,8}\\?\")"
       # (or a log's code=NNNNNN: six or eight digits, not an error's code=4003)
       r"|(?<![\w.-])(?:(?:submitted|entered|received|expected|input)_)?"
       r"(?:code|expected|received|entered|submitted)=\\?\"?"
       r"(?=(?:\d{6}|\d{8})(?![\w.-])))(\d{4,8})",
       prefilter=(r"(?i)(?:otp|2fa|mfa|one.time|verificati|blik|reset.code|templatecode=sms_)"
                  r"[^\r\n]{0,160}code"
                  r"(?:\\?\"[ \t]*:[ \t]*\\?\"\d{4}|=\\?\"?\d{6})"
                  r"|(?:otp|2fa|mfa|one.time|verificati)[^\r\n]{0,160}"
                  r"(?:expected|received|entered|submitted)=\\?\"?\d{6}"),
       group=1, needles=("code", "expected", "received", "entered", "submitted"), digits=True),
    # Passwords in URLs, found by URL structure (scheme://user:password@host), before the
    # email detector can read "password@host" as an address and leave the rest behind.
    _d("secret_assignment",
       # (Snowflake's URLs may leave the host out: snowflake://user:password@/db?account=x)
       # (its slashes escaped too, as JSON encoders may write them: sftp:\/\/user:X@host)
       r"(?i)\b[a-z][a-z0-9+.-]{1,30}:(?://|\\/\\/)[^\s/?#@:\"'<>]*:([^\s/\"'<>]+)@"
       r"(?=[\w\[]|/\w)",
       v.secret_value_ok, prefilter=r":(?://|\\/\\/)[^/@]*@", group=1,
       needles=("://", ":\\/\\/"),
       start=_at_literal(("://", ":\\/\\/"), 31)),  # the scheme: at most 31 characters
    # redis-cli's reply to HGETALL (or CONFIG GET): a field's name, then on the next
    # numbered line its value ('7) "signing_secret"', '8) "QElc43..."').
    _d("secret_assignment",
       r"(?im)(?:^|(?<=\\n))[ \t]*\d{1,4}\) \\?\"[\w.:-]*(?:secret|passw(?:or)?d|token|api_?key"
       r"|credential|private_key)[\w.:-]*" + _NOT_THE_SECRET
       + r"\\?\"[ \t]*(?:\r?\n|\\n)[ \t]*\d{1,4}\) \\?\""
       r"([^\"\n\\]{6,})\\?\"", v.secret_value_ok,
       prefilter=r"(?i)\d\) \\?\"[\w.:-]*(?:secret|passw|token|api_?key|credential|private_key)",
       group=1, needles=(') "', ') \\"'), start=_at_literal((') "', ') \\"'), 8)),
    # Go's MySQL driver DSN, which has no scheme: user:password@tcp(host:port)/db (also
    # unix(...) and udp(...)).
    _d("secret_assignment",
       r"(?<![\w.:/@-])[\w.-]{1,64}:([^\s@/:\"'<>]{1,128})@(?:tcp6?|udp|unix)\(",
       v.secret_value_ok, prefilter=r":[^\s@/:]+@(?:tcp|udp|unix)\(", group=1,
       needles=("@tcp(", "@tcp6(", "@udp(", "@unix("),
       start=_at_literal(("@tcp(", "@tcp6(", "@udp(", "@unix("), 64 + 128 + 2)),
    # A token as a URL's whole userinfo (pip's https://<token>@host/simple, git's
    # https://<token>@github.com): a long run of letters and digits, no password after it.
    _d("secret_assignment",
       # (not an Ethereum node's id, enode://<public key>@host: it is public)
       r"(?i)\b(?!enode://)[a-z][a-z0-9+.-]{1,30}://([A-Za-z0-9_.~-]{20,})@(?=[\w\[])",
       v.strong_token,
       prefilter=r"://[A-Za-z0-9_.~-]{20,}@", group=1, needles=("://",),
       start=_at_literal(("://",), 31)),
    # Passwords on command lines: --password X, mysql -pX, redis-cli -a X, sshpass -p X,
    # docker login -p X, htpasswd -b file user X; a tool's own key (--wandb-api-key X); the
    # tools of a security test (nxc smb ... -p X, evil-winrm, hydra) and Windows' net user.
    _d("secret_assignment",
       # (Proxmox's qm set --cipassword: cloud-init's user password)
       r"(?:(?<![\w-])--(?:password|passwd|pass|passphrase|access-token|api-key|auth-token|cipassword"
       r"|token|client-secret|secret|requirepass|masterauth)(?![\w-])(?:=|[ \t]+)"
       # (and one dash, as WebSphere's wsadmin and other Java tools take it: -password X)
       r"|(?<![\w-])-(?:password|passwd|passphrase)(?![\w-])(?:=|[ \t]+)"
       r"|(?<![\w-])--[a-z][\w-]*?-(?:api-key|password|passwd|secret|access-token|auth-token)"
       r"(?![\w-])(?:=|[ \t]+)"
       r"|(?<![\w-])(?:nxc|netexec|crackmapexec|cme|evil-winrm|hydra|kerbrute|smbmap)\b"
       r"[^\n|;&]*?[ \t]-p[ \t]+"
       r"|(?<![\w-])ipmitool\b[^\n|;&]*?[ \t]-P[ \t]+"
       # SQL Server's clients (sqlcmd -S host -U user -P X)
       r"|(?<![\w-])(?:sqlcmd|bcp|osql)\b[^\n|;&]*?[ \t]-P[ \t]*"
       r"|(?<![\w-])net[ \t]+user[ \t]+[^\s/*\"']+[ \t]+(?=[^\s/*])"
       r"|(?<![\w-])wandb[ \t]+login(?:[ \t]+--[\w-]+)*[ \t]+"
       r"|(?<![\w-])(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n|;&]*?[ \t]-p(?=\S)"
       r"|(?<![\w-])redis-cli\b[^\n|;&]*?[ \t]-a[ \t]+"
       r"|(?<![\w-])cqlsh\b[^\n|;&]*?[ \t]-p[ \t]+"
       # OpenLDAP's clients: the bind password after -w (ldapsearch -D cn=admin -w X)
       r"|(?<![\w-])ldap(?:search|modify|add|delete|passwd|whoami|compare|modrdn|exop)\b"
       r"[^\n|;&]*?[ \t]-w[ \t]+"
       r"|(?<![\w-])sshpass[ \t]+-p[ \t]*"
       r"|(?<![\w-])docker[ \t]+login\b[^\n|;&]*?[ \t]-p[ \t]+"
       r"|(?<![\w-])(?:htpasswd|mosquitto_passwd)(?:[ \t]+-\w+)*?[ \t]+-\w*b\w*(?:[ \t]+-\w+)*"
       r"(?:[ \t]+[^\s-]\S*){2}[ \t]+"
       # (its proxy's login too: -U, --proxy-user)
       # (and -u among other short flags: curl -su user:X)
       r"|(?<![\w-])curl\b(?:[^\n|;&]|\\\n)*?[ \t](?:-[a-zA-Z]*u|--user|-U|--proxy-user)[ \t]+"
       # (no password after a key and its colon: -u "$STRIPE_SECRET_KEY:" -d ...)
       r"(?:['\"]?[^\s:'\"]*|\"[^\s:'\"]*\"|'[^\s:'\"]*'):(?![\"'](?:[ \t]|$))"
       r"|(?<![\w-])curl\b[^\n|&]*?[ \t](?:-b|--cookie)[ \t]+"
       r"|(?<![\w-])az[ \t]+login\b[^\n|;&]*?[ \t]-p[ \t]+"
       r"|(?<![\w-])mosquitto_(?:pub|sub|rr)\b[^\n|;&]*?[ \t]-P[ \t]+"
       r"|(?<![\w-])openssl[ \t]+passwd(?:[ \t]+-\w+)*[ \t]+"
       r"|(?<![\w-])rabbitmqctl[ \t]+(?:add_user|change_password)[ \t]+\S+[ \t]+"
       # Windows' net use with the password before /user: (net use Z: \\host\share X
       # /user:DOM\user; the password after it has a detector of its own)
       r"|(?<![\w-])net[ \t]+use(?:[ \t]+[A-Za-z]:)?[ \t]+\\\\\S+[ \t]+"
       r"(?=[^/\s*]\S*[ \t]+/(?i:user|u):)"
       # Java's keytool (-storepass, -keypass, -srcstorepass, -deststorepass)
       r"|(?<![\w-])-(?:src|dest)?(?:storepass|keypass)[ \t]+"
       # Samba's clients: the password after "%" in -U user%password
       # (the arguments before -U bounded: without a "%" each "smbclient" would read the rest
       # of the line)
       r"|(?<![\w-])(?:smbclient|rpcclient|smbcacls|winexe)\b[^\n|;&]{0,200}?[ \t]-U[ \t]+['\"]?"
       r"[^\s%'\"]+%"
       # lftp's login (lftp -u user,password sftp://...)
       r"|(?<![\w-])lftp\b[^\n|;&]{0,200}?[ \t]-u[ \t]+['\"]?[^\s,'\"]+,"
       # a registry's user:password for skopeo, podman and buildah (--creds, --src-creds,
       # --dest-creds) and poetry's repository login (poetry config http-basic.repo user X)
       r"|(?<![\w-])--(?:src-|dest-)?creds(?:=|[ \t]+)['\"]?[^\s:'\"]+:"
       r"|(?<![\w-])poetry[ \t]+config[ \t]+http-basic\.[\w.-]+[ \t]+[^\s'\"]+[ \t]+"
       # OpenSSL's pass phrase arguments (-passin pass:X, -passout pass:X)
       r"|(?<![\w-])-(?:passin|passout|password|pass|k)[ \t]+pass:"
       # any tool's user and password flags side by side (rabbitmqadmin -u u -p X,
       # Mirth's mccommand -u admin -p X), password-shaped: a letter, a digit, and mixed
       # case or a symbol (not a port, nor mysql's database after a bare -p: "-p app2")
       r"|(?<![\w-])-u[ \t]+['\"]?[^\s'\"-][^\s'\"]*['\"]?[ \t]+-p[ \t]+"
       r"(?=['\"]?[^\s'\"]*[A-Za-z])(?=['\"]?[^\s'\"]*\d)"
       r"(?=['\"]?[^\s'\"]*(?:[!#$%&*~^@+?=]|[A-Z][^\s'\"]*[a-z]|[a-z][^\s'\"]*[A-Z])))"
       r"('[^'\n]*'|\\\"[^\"\n]*\"|\"[^\"\n]*\"|[^\s'\"]+)", v.command_line_secret_ok,
       prefilter=r"--(?:pass|access-token|api-key|auth-token|token|client-secret|secret"
                 r"|requirepass|masterauth|cipass)"
                 r"|-(?:api-key|passw|secret|access-token|auth-token)"
                 r"|mysql|mariadb|redis-cli|cqlsh|sshpass|docker|htpasswd|curl|az[ \t]+login"
                 r"|rabbitmqctl|wandb|mosquitto_|openssl[ \t]+passwd|ldap[a-z]"
                 r"|nxc|netexec|crackmapexec|cme|evil-winrm|hydra|kerbrute|smbmap|ipmitool"
                 r"|net[ \t]+u|sqlcmd|bcp|osql|lftp|pass:|-u[ \t]|storepass|keypass|smbclient"
                 r"|rpcclient|smbcacls|winexe|creds|poetry", group=1,
       needles=("--", "mysql", "mariadb", "redis-cli", "sshpass", "docker", "htpasswd",
                "curl", "login", "rabbitmqctl", "cqlsh", "mosquitto_", "openssl", "nxc",
                "netexec", "crackmapexec", "cme", "evil-winrm", "hydra", "kerbrute", "smbmap",
                "net", "ipmitool", "ldap", "sqlcmd", "bcp", "osql", "lftp", "pass:", "-u",
                "storepass", "keypass", "smbclient", "rpcclient", "smbcacls", "winexe",
                "poetry"),
       start=_at_literal(("--", "mysql", "mariadb", "redis-cli", "sshpass", "docker",
                          "htpasswd", "curl", "az", "rabbitmqctl", "wandb", "cqlsh",
                          "mosquitto_", "openssl", "nxc", "netexec", "crackmapexec", "cme",
                          "evil-winrm", "hydra", "kerbrute", "smbmap", "net", "ipmitool",
                          "ldap", "sqlcmd", "bcp", "osql", "lftp", "pass:", "-u", "-src", "-dest",
                          "-storepass", "-keypass", "smbclient", "rpcclient", "smbcacls",
                          "winexe", "poetry")),
       starts=((r"--[a-z][\w-]{2}|mysql|maria|redis|sshpa|docke|htpas|curl[^A-Za-z0-9_]|rabbi"
                r"|wandb|cqlsh|mosqu|opens|netex|crack|evil-|hydra|kerbr|smbma|net[ \t]u|ipmit"
                r"|ldap[a-z]|sqlcm|-pass|-srcs|-srck|-dest|-stor|-keyp|smbcl|rpccl|smbca|winex"
                r"|poetr",
                5),
               (r"az[ \t]|nxc|cme|bcp|osq|-u[ \t]|-k[ \t]", 3), (r"lftp", 4))),
    # A setting's value beside its name as a key/value pair (OCPP's ChangeConfiguration:
    # {"key":"AuthorizationKey","value":X}; a GPO's <data id="DefaultPassword" value="X"/>),
    # and a Wi-Fi profile's key (netsh wlan export: <keyMaterial>X</keyMaterial>).
    _d("secret_assignment",
       # (pretty-printed too, the pair on two lines: a CI's variables, Postman's environment)
       rf"(?i)(?:\\?\"key\\?\"[ \t]*:[ \t]*\\?\"[\w.-]*(?:{_FIELD_SECRET}|key|(?<![a-z])pin)\\?\""
       r"(?:\s*,\s*\\?\"readonly\\?\"[ \t]*:[ \t]*\w+)?\s*,\s*\\?\"value\\?\"[ \t]*:"
       r"[ \t]*\\?\"|\bid=\"[\w.-]*(?:passw(?:or)?d|pwd|secret)[\w.-]*\"[ \t]+value=\""
       r"|<keyMaterial>)([^\"<\\\s]+)", v.secret_value_ok,
       prefilter=r"(?i)key\\?\"[ \t]*:[ \t]*\\?\"[A-Za-z0-9_.-]*"
                 r"(?:passw|pwd|secret|token|key|pass|pin)"
                 r"|id=\"[A-Za-z0-9_.-]*(?:passw|pwd|secret)|<keymaterial>", group=1,
       needles=("alue", "ALUE", "eyMaterial")),
    # A password under Spanish's "clave" (a bank's login form: clave=Colocolo.1991): a
    # password-shaped value only, as "clave" names any key too.
    _d("secret_assignment",
       r"(?i)(?<![\w.-])clave(?:[_-]?(?:acceso|secreta|web|internet|app))?"
       r"(?:[ \t]*=[ \t]*\\?[\"']?|\\?[\"'][ \t]*:[ \t]*\\?[\"'])([^\s,;&\"'}]{6,64})",
       v.told_password,
       prefilter=r"(?i)clave[a-z_-]{0,10}(?:[ \t]*=|\\?[\"'][ \t]*:)", group=1,
       needles=("clave", "Clave", "CLAVE")),
    # A one-time code under its key in a query or a form (totp=957372, otp_code=...).
    _d("secret_assignment",
       # (and an exchange's withdrawal: email_code=, sms_code=, google_code=)
       r"(?i)(?<![\w-])(?:totp|otp|mfa[_-]?code|otp[_-]?code|2fa[_-]?code"
       r"|one[_-]?time[_-]?code|verification[_-]?code|(?:email|sms|google|gauth|totp)_code)"
       # (quoted too: Entra's audit log, verificationCode="810398")
       r"=(?:\\?\")?(\d{4,8})(?![\w])",
       prefilter=r"(?i)(?:totp|otp|mfa[_-]?code|2fa[_-]?code|one[_-]?time[_-]?code"
                 r"|verification[_-]?code|(?:email|sms|google|gauth)_code)=(?:\\?\")?\d{4}",
       group=1,
       needles=("otp=", "OTP=", "ode=", "ODE=", "otp_code=", "OTP_CODE=", "otp-code=",
                "OTP-CODE=")),
    # More tools' password arguments: imapsync's --password1/--password2, doveadm pw -p,
    # FreeRDP's /p:, dsadd's -pwd, ktpass' /pass, HAProxy's insecure-password and its stats
    # page's "stats auth user:X".
    _d("secret_assignment",
       r"(?:(?<![\w-])--password[12](?:=|[ \t]+)"
       r"|(?<![\w-])doveadm[ \t]+pw\b[^\n|;&]*?[ \t]-p[ \t]+"
       r"|(?<![\w-])x?freerdp\b[^\n|;&]*?[ \t]/p:"
       r"|(?<![\w-])(?:dsadd|dsmod)\b[^\n|;&]*?[ \t]-pwd[ \t]+"
       r"|(?<![\w-])ktpass\b[^\n|;&]*?[ \t][/-]pass[ \t]+"
       r"|(?<![\w-])insecure-password[ \t]+"
       r"|(?<![\w-])stats[ \t]+auth[ \t]+[^\s:]+:"
       r"|(?<![\w-])SentinelCtl(?:\.exe)?\b[^\n|;&]*?[ \t]-k[ \t]+)"
       r"('[^'\n]*'|\"[^\"\n]*\"|[^\s'\"]+)", v.secret_value_ok,
       prefilter=r"--password[12]|doveadm|freerdp|dsadd|dsmod|ktpass|insecure-password"
                 r"|stats[ \t]+auth|SentinelCtl",
       group=1, needles=("--password", "doveadm", "freerdp", "dsadd", "dsmod", "ktpass",
                         "insecure-password", "stats", "SentinelCtl"),
       start=_at_literal(("--password", "doveadm", "freerdp", "dsadd", "dsmod", "ktpass",
                          "insecure-password", "stats", "SentinelCtl"), 1)),
    # Postfix's sasl_passwd: a relay ([smtp.host]:587) or a sender's domain (@example.org),
    # then user:password.
    _d("secret_assignment",
       r"(?:\[[\w-]+(?:\.[\w-]+)+\]:\d{1,5}[ \t]+[^\s:]+"
       r"|(?<!\S)@[\w-]+(?:\.[\w-]+)+[ \t]+[^\s:@]+@[\w-]+(?:\.[\w-]+)+):([^\s`'\"]+)",
       v.secret_value_ok,
       prefilter=r"\][:]\d{1,5}[ \t]+[^ \t\r\n:]+:"
                 r"|@[A-Za-z0-9_-]+\.[^ \t\r\n]*[ \t]+[^ \t\r\n:@]+@[^ \t\r\n]*:",
       group=1, needles=("]:", "@")),
    # Dovecot's passwd-file and htpasswd-style entries with the password in the clear
    # (user@host:{PLAIN}X:5000:5000::..., auth: "user:{PLAIN}X").
    _d("secret_assignment", r"(?<![\w}])\{(?:PLAIN|CLEARTEXT)\}([^\s:\"']+)", v.secret_value_ok,
       prefilter=r"\{(?:PLAIN|CLEARTEXT)\}", group=1, needles=("{PLAIN}", "{CLEARTEXT}"),
       start=_at_literal(("{PLAIN}", "{CLEARTEXT}"))),
    # Google's app password, told near the word for a password: four groups of four
    # letters, spaced or dashed ("Contraseña de aplicación: cfbb ysvo fixt koif", Polish's
    # "Hasło aplikacji Google: xxuu edgb kkoo bifr").
    _d("secret_assignment",
       r"(?i:pass(?:word|wort)|contrase[ñn]a|mot de passe|senha|wachtwoord|passord"
       r"|l[öo]senord|kennwort|has[łl]o)[^\n]{0,80}?(?:\n[ \t]*){0,2}"
       r"(?<![a-z])([a-z]{4}[ -][a-z]{4}[ -][a-z]{4}[ -][a-z]{4})(?![a-z])", v.app_password_ok,
       prefilter=r"(?is)(?:passw|contrase|mot de passe|senha|wachtwoord|passord|senord"
                 r"|kennwort|has.o).*[a-z]{4}[ -][a-z]{4}[ -][a-z]{4}[ -][a-z]{4}", group=1,
       needles=("assw", "ASSW", "ontrase", "ONTRASE", "ot de passe", "OT DE PASSE", "enha",
                "ENHA", "achtwoord", "ACHTWOORD", "assord", "ASSORD", "senord", "SENORD",
                "ennwort", "ENNWORT", "as\u0142o", "AS\u0141O", "aslo", "ASLO")),
    # A password told as a temporary one ("temp password sent: NQY0875ropv$", "Temp password
    # given verbally: Welcome-Harbrook-4471"): a few words between, then a colon.
    _d("secret_assignment",
       r"(?i)(?:(?<![a-z])(?:temp(?:orary)?|initial|one-time)[ \t]+(?:password|passwort|pw)\b"
       "|\u0432\u0440\u0435\u043c\u0435\u043d\u043d\\w*[ \t]+\u043f\u0430\u0440\u043e\u043b\\w*)"
       r"[^\n:]{0,45}?:[ \t]*[\"'\u00ab\u201c]?[ \t]*([^\s\"'\u00bb\u201d]{6,64})",
       v.told_passphrase,
       prefilter=r"(?i)(?:(?:temp|initial|one-time)[a-z]*[ \t]+(?:password|passwort|pw)"
                 r"|a{8}[ \t]+a{6})[^\r\n:]{0,45}:",
       group=1, needles=("emp", "EMP", "nitial", "NITIAL", "ne-time", "NE-TIME",
                         "\u0440\u0435\u043c\u0435\u043d\u043d",
                         "\u0420\u0415\u041c\u0415\u041d\u041d")),
    # Elastic Beats' and Elastic Agent's Cloud credentials (cloud.auth: "user:password").
    _d("secret_assignment", r"(?<![\w.])cloud\.auth[ \t]*[:=][ \t]*[\"']?[^\s:\"']+:([^\s\"']+)",
       v.secret_value_ok, prefilter=r"cloud\.auth[ \t]*[:=]", group=1,
       needles=("cloud.auth",)),
    # A password a Windows registry or policy export shows in the clear: Sysmon's registry
    # event (TargetObject: ...\Winlogon\DefaultPassword, then Details: X) and LGPO's text
    # (ProxyPassword, then SZ:X).
    _d("secret_assignment",
       r"(?im)(?:\\[\w]*passw(?:or)?d[ \t]*\r?\n[ \t]*Details:[ \t]*"
       r"|^[ \t]*[\w]*(?:passw(?:or)?d|secret)[ \t]*\r?\n[ \t]*(?:SZ|EXSZ):)"
       r"([^\r\n]+?)[ \t]*\r?$", v.secret_value_ok,
       prefilter=r"(?i)(?:passw|passwd|secret)[a-z]*[ \t]*\r?\n[ \t]*(?:details|sz|exsz):",
       group=1, needles=("\n",)),
    # PowerShell's password piped into a SecureString ($p = 'X' | ConvertTo-SecureString).
    _d("secret_assignment",
       r"(?i)\$\w+[ \t]*=[ \t]*['\"]([^'\"\n]+)['\"][ \t]*\|[ \t]*ConvertTo-SecureString",
       v.secret_value_ok, prefilter=r"(?i)\|[ \t]*convertto-securestring", group=1,
       needles=("ConvertTo-SecureString", "convertto-securestring", "CONVERTTO-SECURESTRING")),
    # An Apple configuration profile's secret value (<key>Password</key><string>X</string>;
    # SCEP's <key>Challenge</key>).
    _d("secret_assignment",
       r"(?i)<key>[^<\n]*(?:passw(?:or)?d|passcode|challenge|secret|sharedsecret)[^<\n]*"
       r"</key>\s*<string>([^<\n]+)</string>", v.profile_secret_ok,
       prefilter=r"(?i)</key>[ \t\r\n]*<string>", group=1, needles=("</key>",)),
    # A BitLocker recovery key: eight groups of six digits, dashed (the shape alone: a key read
    # out with a typo, a group no longer a multiple of 11, is still the key).
    _d("secret_assignment", r"(?<![\d-])(\d{6}(?:-\d{6}){7})(?![\d-])",
       prefilter=r"\d{6}-\d{6}-\d{6}-\d{6}-\d{6}-\d{6}-\d{6}-\d{6}", group=1, digits=True,
       needles=("-",)),
    # An NT hash handed to impacket (-hashes LM:NT: pass-the-hash needs no password) and the
    # Kerberos keys mimikatz prints (aes256_hmac (4096) : <hex>).
    _d("secret_assignment",
       r"(?i)(?:-hashes\\?[\"']?[ \t]+(?:a\d{1,2}=)?\\?[\"']?(?:[0-9a-f]{32})?:"
       r"|\b(?:aes256_hmac|aes128_hmac|rc4_hmac(?:_nt|_old)?|rc4_md4|des_cbc_md5)[ \t]*"
       r"(?:\(\d+\))?[ \t]*:[ \t]*)([0-9a-f]{16,64})(?![0-9a-z])",
       prefilter=r"(?i)-hashes|(?:aes256_hmac|aes128_hmac|rc4_hmac|rc4_md4|des_cbc_md5)",
       group=1, needles=("hashes", "HASHES", "_hmac", "_HMAC", "rc4_md4", "des_cbc")),
    # CrowdStrike's customer id with its checksum (CID=<32 hex>-<2 hex>, falconctl license):
    # whoever has it can enrol a sensor in the tenant.
    _d("secret_assignment", r"(?<![0-9A-Za-z-])([0-9A-F]{32}-[0-9A-F]{2})(?![0-9A-Za-z-])",
       v.has_digit_and_letter,
       prefilter=r"[0-9A-F]{32}-[0-9A-F]{2}", group=1, needles=("-",)),
    # A password echoed into a command that reads it from its input (echo 'X' | kinit,
    # realm join, passwd --stdin, docker login --password-stdin).
    _d("secret_assignment",
       r"(?i)\becho[ \t]+(?:-n[ \t]+|-e[ \t]+)?['\"](?![$%])([^'\"\n]{4,128})['\"][ \t]*\|"
       r"[ \t]*(?:sudo[ \t]+(?:-S[ \t]+)?)?(?:realm[ \t]+join|kinit|passwd|chpasswd"
       r"|(?:docker|podman|nerdctl)[ \t]+login|helm[ \t]+registry[ \t]+login|cryptsetup"
       r"|net[ \t]+ads|adcli|sudo[ \t]+-S|ipa[ \t]|ldappasswd|vault[ \t]+login)",
       v.secret_value_ok,
       prefilter=r"(?i)echo[ \t][^\r\n|]{4,140}\|[ \t]*(?:sudo[ \t]+)?(?:realm|kinit|passwd"
                 r"|chpasswd|docker|podman|nerdctl|helm|cryptsetup|net|adcli|sudo|ipa"
                 r"|ldappasswd|vault)",
       group=1, needles=("echo", "ECHO", "Echo")),
    # A Basic header's user and password written out in a comment after it
    # (proxy_set_header Authorization "Basic ...";  # reporting:Sommer1982).
    _d("secret_assignment",
       r"(?i)\bBasic[ \t]+[A-Za-z0-9+/]{8,}={0,2}[^\n#]*#[ \t]*[\w.@-]+:([^\s\"']+)",
       v.secret_value_ok, prefilter=r"(?i)basic[ \t]+[A-Za-z0-9+/]{8}[^\r\n#]*#",
       group=1, needles=("#",)),
    # CloudFront's signed cookie or query parameter: it grants the resource to whoever has it.
    _d("secret_assignment", r"(?<![\w-])CloudFront-Signature=([A-Za-z0-9~_-]{40,})",
       prefilter=r"CloudFront-Signature=[A-Za-z0-9~_-]{40}", group=1,
       needles=("CloudFront-Signature=",)),
    # An API key told in prose ("their key is u9HufwlUSCvZj9frszk5iTdCdsxcbTha").
    _d("secret_assignment",
       r"(?i)\b(?:their|my|our|his|her|your|the)[ \t]+(?:api[ \t]+|access[ \t]+|secret[ \t]+)?"
       r"key[ \t]+(?:is|was)[ \t]*:?[ \t]+[`'\"]?([A-Za-z0-9_-]{24,})", v.strong_token,
       prefilter=r"(?i)key[ \t]+(?:is|was)[ \t:]*[`'\"]?[A-Za-z0-9_-]{24}", group=1,
       needles=("key", "KEY", "Key")),
    # SMTP's AUTH LOGIN: the client's answer to "334 UGFzc3dvcmQ6" (base64 of "Password:")
    # is the password in base64; XOAUTH2's answer is base64 of "user=...^Aauth=Bearer ...".
    _d("secret_assignment",
       r"(?m)334[ \t]+UGFzc3dvcmQ6[ \t]*\r?\n[^\r\n]*?([A-Za-z0-9+/]{4,}={0,2})[ \t]*\r?$",
       prefilter=r"334[ \t]+UGFzc3dvcmQ6", group=1, needles=("UGFzc3dvcmQ6",)),
    _d("secret_assignment",
       r"(?<![A-Za-z0-9+/])(dXNlcj1[A-Za-z0-9+/]{20,}={0,2})(?![A-Za-z0-9+/=])",
       prefilter=r"dXNlcj1[A-Za-z0-9+/]{20}", group=1, needles=("dXNlcj1",)),
    # A mail or file service's password as a "pass" field ("SMTP pass: `...`").
    _d("secret_assignment",
       r"(?i)\b(?:smtp|imap|pop3?|mail|ftp|sftp|db|wifi|vpn|ldap)[ \t_-]+pass[ \t]*:[ \t]*"
       r"`?([^\s`]+)`?", v.secret_value_ok,
       prefilter=r"(?i)(?:smtp|imap|pop|mail|ftp|db|wifi|vpn|ldap)[ \t_-]+pass[ \t]*:",
       group=1, needles=("pass", "PASS", "Pass")),
    # A Meta (Facebook, Instagram, WhatsApp Cloud) access token: EAA and a long run.
    _d("api_key", r"(?<![A-Za-z0-9])(EAA[A-Za-z0-9]{60,})(?![A-Za-z0-9])", v.has_digit_and_letter,
       prefilter=r"EAA[A-Za-z0-9]{60}", group=1, needles=("EAA",)),
    # A passport's number in the second line of its machine-readable zone (the two lines'
    # layout tells it: an OCR'd or a forged zone's check digits may fail, so they are not read).
    _d("national_id",
       r"(?m)^P[A-Z<][A-Z<]{3}[A-Z<]{39}[ \t]*\r?\n([A-Z0-9<]{9}\d)[A-Z<]{3}\d{7}[MF<]\d{7}",
       v.has_digit, prefilter=r"P[A-Z<]{43}[ \t]*\r?\n[A-Z0-9<]{10}", group=1,
       needles=("<<",)),
    # An Arabic one-time code ("كود التحقق الخاص بك في كريم هو 413218").
    _d("secret_assignment",
       "(?:\u0643\u0648\u062f|\u0631\u0645\u0632)[ \t]+(?:\u0627\u0644\u062a\u062d\u0642\u0642"
       "|\u0627\u0644\u062a\u0641\u0639\u064a\u0644|\u0627\u0644\u062f\u062e\u0648\u0644)"
       r"[^\n\d]{0,40}?(?<!\d)(\d{4,8})(?!\d)",
       prefilter=r"a[ \t]+a[^\r\n]{0,80}\d{4}", group=1, digits=True,
       needles=("\u0643\u0648\u062f", "\u0631\u0645\u0632")),
    # Jenkins' first start ("Please use the following password to proceed to installation:",
    # then the password on a line of its own) and a Jupyter server's login cookie
    # (username-<host>-<port>: a JupyterHub user's server's session).
    _d("secret_assignment",
       r"(?i)use the following password to proceed to installation:[ \t]*(?:\r?\n[ \t]*){1,3}"
       r"([0-9a-f]{32})(?![0-9a-f])",
       prefilter=r"(?i)use the following password to proceed to installation:", group=1,
       needles=("proceed to installation",)),
    _d("secret_assignment",
       r"(?<![\w-])username-[\w.-]+\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?([A-Za-z0-9|:_-]{20,})",
       v.has_digit_and_letter, prefilter=r"username-[A-Za-z0-9_.-]+[\"']?[ \t]*[:=]", group=1,
       needles=("username-",)),
    # A Wi-Fi passphrase given to wpa_passphrase, PuTTY's -pw, IMAP's LOGIN command (a tag,
    # LOGIN, the user, the password) and rtpengine's --redis-auth.
    _d("secret_assignment",
       r"(?:(?<![\w-])wpa_passphrase[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\S+)[ \t]+"
       r"|(?<![\w-])(?:plink|pscp|psftp)(?:\.exe)?\b[^\n|;&]*?[ \t]-pw[ \t]+"
       # (an IMAP command's tag opens with a letter, or its LOGIN is in capitals: not a
       # count, "8174 login attempts failed;")
       r"|(?m:^[ \t]*(?:[~>]|C:)?[ \t]*(?:[A-Za-z]\d{1,4}[ \t]+(?i:LOGIN)|\d{1,4}[ \t]+LOGIN)"
       r"[ \t]+\S+[ \t]+)"
       r"|--redis-auth(?:=|[ \t]+))"
       r"(\"[^\"\n]+\"|'[^'\n]+'|[^\s\"']+)", v.secret_value_ok,
       prefilter=r"wpa_passphrase|plink|pscp|psftp|(?i:[ \t]login[ \t])|--redis-auth", group=1,
       needles=("wpa_passphrase", "plink", "pscp", "psftp", "LOGIN", "login", "--redis-auth")),
    # A password in database text: hashed in the query itself (password=SHA2('X', 256),
    # PASSWORD('X')), a Redis ACL's >X (user app on >X ~app:*, ACL SETUSER), Oracle's
    # user/X@db on a command line (sqlplus system/X@//host:1521/FIN).
    _d("secret_assignment",
       r"(?i)(?:(?<![\w-])passw(?:or)?d[\"'`]?[ \t]*=[ \t]*(?:sha[12]?|md5|password|"
       r"old_password|crypt|encrypt|aes_encrypt|crypt_gen_salt|digest)[ \t]*\([ \t]*"
       r"|(?m:^)[ \t]*(?:acl[ \t]+setuser|user)[ \t]+[^\s>]+(?:[ \t]+[^\s>]+)*?[ \t]+>"
       r"|(?<![\w-])(?:sqlplus|sqlldr|expdp|impdp|rman)(?:\.exe)?(?:[ \t]+-\w+)*[ \t]+"
       r"['\"]?\w+/(?=[^\s@/'\"]{4}))"
       r"('[^'\n]{4,128}'|[^\s@'\"]{4,128})",
       v.secret_value_ok, group=1,
       prefilter=(r"(?i)passw(?:or)?d[\"'`]?[ \t]*=[ \t]*(?:sha|md5|password|old_|crypt|encrypt"
                  r"|aes_|digest)|(?:acl[ \t]+setuser|user)[ \t]+\S+[^\r\n]*[ \t]>"
                  r"|(?:sqlplus|sqlldr|expdp|impdp|rman)[^\r\n]*/"),
       needles=("assw", "ASSW", "user", "USER", "setuser", "SETUSER", "sqlplus", "sqlldr",
                "expdp", "impdp", "rman")),
    # A wallet's password handed over in a command or a call: geth's --password <(echo 'X'),
    # web3's account.decrypt(keyfile, 'X').
    _d("secret_assignment",
       r"(?:--password(?:-file)?[ \t=]+<\(echo[ \t]+|\.decrypt\([^,()\n]{1,60},[ \t]*)"
       r"(['\"])([^'\"\n]{6,128})\1", v.secret_value_ok, group=2,
       prefilter=r"--password(?:-file)?[ \t=]+<\(echo|\.decrypt\([^,()\r\n]{1,60},",
       needles=("<(echo", ".decrypt(")),
    # WalletConnect's symmetric key in its pairing URI (symKey=<64 hex>), a Lightning node's
    # macaroon in a header (Grpc-Metadata-macaroon: <hex>).
    _d("secret_assignment",
       r"(?i)(?:[?&]symKey=|macaroon\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?)([0-9a-f]{40,})(?![0-9a-z])",
       group=1, prefilter=r"(?i)(?:symKey=|macaroon[^\r\n]{0,6}[:=][^\r\n]{0,4}[0-9a-f]{40})",
       needles=("symKey=", "symkey=", "acaroon")),
    # A one-time code set in Redis under its key ("SETEX" "otp:sms:+48..." "300" "384986").
    _d("secret_assignment",
       r"(?i)\"(?:setex|psetex|set|setnx)\"[ \t]+\"[^\"\n]*(?:otp|2fa|mfa|verif\w*|one.?time)"
       r"[^\"\n]*\"(?:[ \t]+\"\d+\")?[ \t]+\"(\d{4,8})\"",
       group=1, prefilter=r"(?i)\"(?:p?setex|setnx|set)\"[ \t]+\"[^\"\r\n]*(?:otp|2fa|mfa|verif"
                           r"|one.?time)",
       needles=("SET", "set", "Set")),
    # A password under its label, of the shapes the key rules leave: digits only
    # ("Passwort: 051793676") or symbols and both cases with no digit
    # ("パスワード：m*K#Nx.&$gxQ.P").
    _d("secret_assignment",
       r"(?i)(?:(?<![\w.-])(?:password|passwort|passwd|pwd|kennwort|wachtwoord|senha|contrase[ñn]a"
       r"|has[łl]o|mot[ \t]+de[ \t]+passe)|パスワード|密码|密碼|비밀번호|패스워드|(?<!\w)[Пп]ароль)"
       # (not the next field of a form when it is empty: "password=&remember=1")
       r"\\*[\"']?[ \t]*[:=：][ \t]*\\*[\"']?(?!&(?-i:[a-z_]+)=)"
       r"(\d{6,16}(?![\w.-])|[^\s\"'，。、\\{}()\[\]<>]{8,64}(?<![.,;:!?]))",
       v.labelled_password_ok,
       group=1, prefilter=(r"(?i)(?:passw|pwd|kennwort|wachtwoord|senha|contrase|has.o|de passe"
                           r"|aa)[^\r\n]{0,6}[:=a]"),  # (a full-width colon reads "a")
       needles=(*_PASSWORD_NEEDLES, "pwd", "PWD", "Pwd", "ennwort", "ENNWORT", "ACHTWOORD",
                "ENHA", "DE PASSE"),
       # (the pattern folds case as Python does, "paſſword" too: the start folds alike)
       start=_at_literal(("password", "passwort", "passwd", "pwd", "kennwort", "wachtwoord",
                          "senha", "contrase", "has", "mot", "パスワード", "密码", "密碼",
                          "비밀번호", "패스워드", "пароль"), fold=True)),
    # ... and one with brackets, braces or angles in it, which the key rules end a value at
    # (generated passwords hold them: "W<=lvO@uvEWGI+0e]mx"): to its closing quote when quoted
    # ("password": "...", $db_password = '...', password="..."), to the line's end when not
    # (passwd=oxmw%^<<8*+wFz^).
    _d("secret_assignment",
       r"(?i)(?<![\w.-])[\w$.-]*?(?:passw(?:or)?d|pwd|passwort|kennwort|passphrase|secret)"
       r"\\*[\"']?"
       r"[ \t]*(?:=>|[:=])[ \t]*\\*[\"']((?=[^\"'\n\\]*[<>{}()\[\]])[^\"'\n\\]{6,128})"
       r"\\*[\"']",
       v.bracketed_password, group=1,
       prefilter=(r"(?i)(?:passw|pwd|kennwort|passphrase|secret)[^\r\n]{0,40}[:=][ \t]*\\*[\"']"
                  r"[^\"'\r\n]*[<>{}()\[\]]"),
       needles=("[", "]", "{", "}", "(", ")", "<", ">")),
    _d("secret_assignment",
       r"(?im)^[ \t]*(?:export[ \t]+)?[\w.-]*?(?:passw(?:or)?d|pwd)[ \t]*[:=][ \t]*"
       r"((?=[^\s\"']*[<>{}()\[\]])[^\s\"'][^\s]{5,127})[ \t]*\r?$",
       v.bracketed_password,
       prefilter=r"(?i)(?:passw|pwd)[^\r\n]{0,30}[:=][ \t]*[^\s\"'][^\r\n]*[<>{}()\[\]]",
       group=1, needles=("[", "]", "{", "}", "(", ")", "<", ">")),
    # A domain's transfer code (EPP's authInfo): in EPP's XML (<domain:pw>...</domain:pw>),
    # and told by its names in mail and tickets ("EPP code: hPir2ofRS0is", "the
    # authorization code (EPP code) for mendeztiles.eu:\n\n    GiH7NsKI%n4i", "código EPP do
    # domínio ...: X", "el código de transferencia de ... es X", "Auth code supplied: X").
    _d("secret_assignment", r"<(?:domain|contact|host):pw>([^<\s]{4,64})</",
       v.secret_value_ok, prefilter=r":pw>[^<\s]{4}", group=1, needles=(":pw>",)),
    _d("secret_assignment",
       r"(?i)(?<![\w-])(?:epp(?:[ _-]?(?:auth(?:info)?[ _-]?)?(?:code|key|password))?"
       # (an authorization code by that name only as a registrar's form says it: a payment's
       # auth_code is its issuer's approval)
       r"|auth(?:ori[sz]ation)?[ _-]?code[ \t]+supplied|authinfo|transfer[ _-]?(?:code|key)"
       r"|c[óo]digo[ \t]+(?:epp|de[ \t]+transfer[eê]ncia))(?![\w-])"
       r"[^\n:=]{0,60}?(?:[ \t]*[:=]|[ \t]+(?:is|es|é|ist|supplied:?))[ \t]*(?:\n[ \t]*){0,2}"
       r"[\"'`]?([^\s\"'`]{6,64}?)[\"'`]?(?=[.,;:!?)]*(?:\s|$))",
       v.told_passphrase,
       prefilter=(r"(?i)(?:epp|auth(?:ori[sz]ation)?[ _-]?code[ \t]+supplied|authinfo"
                  r"|transfer[ _-]?(?:code|key)|c.digo[ \t]+(?:epp|de[ \t]+transfer))"),
       group=1, needles=("EPP", "epp", "Epp", "uth", "UTH", "ransfer", "RANSFER"),
       start=_at_words(("epp", "auth", "transfer", "c\u00f3digo", "codigo"))),
    # A password echoed into a password file (echo 'X' > ~/.vault_pass).
    _d("secret_assignment",
       r"(?i)\becho[ \t]+['\"](?![$%])([^'\"\n]{4,128})['\"][ \t]*>>?[ \t]*\S*(?:pass|secret|token"
       r"|key|cred)\S*",
       v.secret_value_ok, prefilter=r"(?i)echo[ \t]+['\"][^\r\n]{4,130}>[^\r\n]*(?:pass|secret"
                                    r"|token|key|cred)", group=1,
       needles=("echo", "ECHO", "Echo")),
    # Heroku's and HubSpot's tokens (HRKU-<uuid>, pat-na1-<uuid>), and Alibaba Cloud's
    # AccessKey secret after its id (LTAI... / secret).
    _d("api_key",
       r"(?<![\w-])(HRKU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
       r"|pat-(?:na|eu|ap)\d-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?![\w-])",
       prefilter=r"HRKU-[0-9a-f]{8}-|pat-(?:na|eu|ap)[0-9]-[0-9a-f]{8}-", group=1,
       needles=("HRKU-", "pat-")),
    _d("secret_assignment",
       r"(?<![A-Za-z0-9])LTAI[A-Za-z0-9]{12,20}[ \t]*[/:,|][ \t]*([A-Za-z0-9]{30})(?![A-Za-z0-9])",
       prefilter=r"LTAI[A-Za-z0-9]{12}", group=1, needles=("LTAI",)),
    # Integration platforms' tokens, by their prefixes: Shopify's admin, app and custom-app
    # tokens (shpat_, shpss_, shpca_, shppa_), Atlassian's API tokens (ATATT3...), Typeform's
    # personal tokens (tfp_), Asana's personal access tokens (2/<user>/<app>:<32 hex>).
    _d("api_key",
       _edge("A-Za-z0-9_-") +
       r"(shp(?:at|ss|ca|pa)_[0-9a-fA-F]{32}|ATATT3[A-Za-z0-9_=-]{40,}|tfp_[A-Za-z0-9_]{40,}"
       # (GitLab's runner, trigger, deploy, CI job and agent tokens; a runner's registration
       # token, GR1348941...)
       r"|gl(?:rt|ptt|dt|cbt|imt|agent|soat|ffct|oas)-[A-Za-z0-9_-]{20,}|GR1348941[A-Za-z0-9_-]{20}"
       r"|[12]/\d{10,20}(?:/\d{10,20})?:[0-9a-f]{32})(?![A-Za-z0-9_=-])",
       v.not_filler, group=1,
       prefilter=(r"shp(?:at|ss|ca|pa)_[0-9a-fA-F]{32}|ATATT3[A-Za-z0-9_=-]{40}"
                  r"|gl(?:rt|ptt|dt|cbt|imt|agent|soat|ffct|oas)-[A-Za-z0-9_-]{20}"
                  r"|GR1348941[A-Za-z0-9_-]{20}"
                  r"|tfp_[A-Za-z0-9_]{40}|[12]/\d{10}[0-9/]*:[0-9a-f]{32}"),
       needles=("shp", "ATATT3", "tfp_", "1/", "2/", "gl", "GR1348941"),
       start=_at_literal(("shp", "ATATT3", "tfp_", "1/", "2/", "gl", "GR1348941"))),
    # DeepL's API keys: a UUID, then ":fx" on the free plan.
    _d("api_key",
       r"(?<![\w-])([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}:fx)(?![\w-])",
       group=1, prefilter=r"[0-9a-f]{12}:fx", needles=(":fx",), start=_at_literal((":fx",), 36)),
    # A webhook's secret path: Make's (hook.eu1.make.com/<32>), Zapier's catch hooks
    # (hooks.zapier.com/hooks/catch/<account>/<hook>/), and a ThingsBoard device's access
    # token in its HTTP API's path (/api/v1/<token>/telemetry).
    # (and blockchain RPC providers' keys: infura.io/v3/<32 hex>, alchemy.com/v2/<key>,
    # QuickNode's <40 hex> path; Binance's user-data stream's listen key)
    _d("api_key",
       r"(?:\bhook\.(?:[a-z]{2}\d\.)?(?:make|integromat)\.com/"
       r"|\bhooks\.zapier\.com/hooks/catch/\d+/"
       r"|\binfura\.io/v3/(?=[0-9a-f]{32}\b)|\balchemy\.com/v2/(?=[A-Za-z0-9_-]{32}\b)"
       # (WeCom's and Feishu's bot webhooks: a UUID that posts to the group)
       r"|\bqyapi\.weixin\.qq\.com/cgi-bin/webhook/send\?key=|\bopen-apis/bot/v2/hook/"
       r"|\bquiknode\.pro/(?=[0-9a-f]{40}\b)|\bstream\.binance\.com(?::\d+)?/ws/(?=[A-Za-z0-9]{60}\b)"
       r"|/api/v1/(?=[A-Za-z0-9]{20}/(?:telemetry|attributes|rpc|claim)\b))"
       r"([A-Za-z0-9_-]{6,60})(?![A-Za-z0-9_-])", v.not_filler, group=1,
       prefilter=r"hook\.(?:[a-z]{2}[0-9]\.)?(?:make|integromat)\.com/|hooks\.zapier\.com/"
                 r"|infura\.io/v3/|alchemy\.com/v2/|quiknode\.pro/|stream\.binance\.com"
                 r"|webhook/send\?key=|bot/v2/hook/"
                 r"|/api/v1/[A-Za-z0-9]{20}/(?:telemetry|attributes|rpc|claim)",
       needles=("make.com/", "integromat.com/", "zapier.com/", "/api/v1/", "infura.io/",
                "alchemy.com/", "quiknode.pro/", "binance.com", "webhook/send?key=",
                "bot/v2/hook/")),
    # Twilio's auth token beside its account SID (twilio('AC...', '<32 hex>'), AC...:<token>).
    _d("secret_assignment",
       r"(?<![A-Za-z0-9])AC[0-9a-f]{32}\\?['\"]?[ \t]*[,:][ \t]*\\?['\"]?([0-9a-f]{32})"
       r"(?![0-9A-Za-z])", group=1,
       prefilter=r"AC[0-9a-f]{32}[^\r\n]{0,8}[0-9a-f]{32}", needles=("AC",),
       start=_at_literal(("AC",))),
    # A phone number under a telephony system's own key, bare digits with a country code
    # (a WhatsApp contact's wa_id, a SIP proxy's rU/fU, an AGI call's callerid, a CDR's
    # src/dst): the key says what it is.
    _d("phone",
       r"(?:(?<![\w-])(?:wa_id|display_phone_number|caller_?id(?:_number)?|callerid(?:num)?"
       r"|destination_number|sip_(?:from|to)_user|cid_(?:num|ani)|agi_(?:callerid|dnid)"
       # (an inmate phone platform's call setup: dest=, the number called)
       r"|ani|dnis|msisdn|rU|fU|tU|exten|src|dst|dest|Party[AB])\\?[\"']?[ \t]*(?::|=>?)[ \t]*"
       r"\\?[\"']?"
       # (M-Pesa's callback metadata, {"Name": "PhoneNumber", "Value": 2547...}; a SOAP
       # body's <req:msisdn>)
       r"|\"Name\":[ \t]*\"PhoneNumber\",\s*\"Value\":[ \t]*\"?|<(?:\w+:)?msisdn>"
       # (and an SMS API's sender and recipients, quoted in JSON or as Twilio's From=/To=)
       r"|\\?\"(?:from|to)\\?\"[ \t]*:[ \t]*\[?[ \t]*\\?\"|(?<![\w-])(?-i:From|To)=)"
       r"(\+?\d{10,15})(?![\d\w])", v.told_phone_ok,
       prefilter=_TELECOM_KEY_PHONE, group=1, digits=True, joined=_nothing_joined,
       joined_prefilter=_TELECOM_KEY_PHONE),
    # The same flags in a command's argument list, each argument quoted: an exec probe's or a
    # container's JSON array ("redis-cli", "-a", "X"; "--password", "X"), a Python list, an
    # audit log's EXECVE record (a0="mysql" a1="-uroot" a2="-pX").
    _d("secret_assignment",
       rf"(?:\\?[\"']--(?:password|passwd|pass|requirepass|masterauth|client-secret|api-key"
       rf"|auth-token|access-token|secret)\\?[\"']{_ARG_SEP}\\?[\"']"
       rf"|{_COMMAND}(?:mysql|mysqldump|mysqladmin|mariadb)\\?[\"'](?:{_ARG_SEP}{_ARG}){{0,12}}?"
       rf"{_ARG_SEP}\\?[\"']-p"
       rf"|(?:{_COMMAND}redis-cli\\?[\"'](?:{_ARG_SEP}{_ARG}){{0,12}}?{_ARG_SEP}\\?[\"']-a"
       rf"|{_COMMAND}(?:sshpass|cqlsh)\\?[\"'](?:{_ARG_SEP}{_ARG}){{0,12}}?{_ARG_SEP}\\?[\"']-p)"
       rf"\\?[\"']{_ARG_SEP}\\?[\"'])"
       r"([^\s\"'\\]+)(?=\\?[\"'])", v.secret_value_ok,
       prefilter=(r"[\"']--(?:pass|requirepass|masterauth|client-secret|api-key|auth-token"
                  r"|access-token|secret)[^\r\n]*[\"']|(?:mysql|maria|redis-cli|sshpass"
                  r"|cqlsh)[^\r\n]*[\"']-[pa]"),
       group=1, needles=('"--', "'--", "mysql", "mariadb", "redis-cli", "sshpass", "cqlsh")),
    # A password a browser agent types into a form: Playwright's locator by the field's name,
    # then fill/type ("getByRole('textbox', { name: 'Password' }).fill('X')", page.fill(
    # '#password', 'X'), Selenium's send_keys), an accessibility snapshot's textbox and its
    # value ('- textbox "Password" [ref=e30]: X'), a tool call naming the field (Playwright
    # MCP's {"element": "Password textbox", ..., "text": "X"}), a tool call with keyword
    # arguments whose selector names the field ('type(selector="#password", text="X")').
    _d("secret_assignment",
       r"(?i)(?:passw(?:or)?d[^\n;]{0,60}?\.(?:fill|type|press_?sequentially|send_?keys)\([ \t]*"
       r"|\.(?:fill|type)\([ \t]*['\"][^'\"\n]*passw[^'\"\n]*['\"][ \t]*,[ \t]*"
       r"|textbox[ \t]+\"[^\"\n]*passw[^\"\n]*\"(?:[ \t]+\[[^\]\n]*\])*:[ \t]*(?=[^'\"\s])"
       r"|\\*\"element\\*\"[ \t]*:[ \t]*\\*\"[^\"\\\n]*passw[^\"\\\n]*\\*\"[^{}\n]{0,80}?"
       r"\\*\"text\\*\"[ \t]*:[ \t]*"
       r"|\b(?:type|fill|input_text|send_keys)\([^()\n]{0,80}?passw[^()\n]{0,60}?"
       r"\b(?:text|value|keys)[ \t]*=[ \t]*(?=\\?['\"]))"
       r"(\\*['\"][^'\"\n\\]{1,128}\\*['\"]|[^\s'\"]{1,128})", v.secret_value_ok,
       prefilter=r"(?i)passw[^\n;]{0,63}\.(?:fill|type|press|send)"
                 r"|\.(?:fill|type)\([ \t]*['\"][^'\"\n]*passw"
                 r"|textbox[ \t]+\"[^\"\n]*passw|element\\*\"[ \t]*:[ \t]*\\*\"[^\"\\\n]*passw"
                 r"|(?:type|fill|input_text|send_keys)\([^\n]{0,80}passw[^\n]{0,60}"
                 r"(?:text|value|keys)[ \t]*=",
       group=1, needles=("assw", "ASSW")),
    # ... and told before the field ('type "X" into the "Password" input', an agent's plan).
    _d("secret_assignment",
       r"(?i)\b(?:type|typing|typed|fill|filling|filled|enter|entering|entered)[ \t]+"
       r"(\\?[\"'][^\"'\n]{4,128}\\?[\"'])(?=[ \t]+(?:in|into)[ \t]+[^\n]{0,30}?passw)",
       v.secret_value_ok, prefilter=r"(?i)(?:typ|fill|enter)[^\n]{0,180}passw", group=1,
       needles=("assw", "ASSW")),
    # What AWS's registry logins print: the password itself, on the line after the command
    # (aws ecr get-login-password, aws codeartifact get-authorization-token --output text).
    _d("secret_assignment",
       r"get-(?:login-password|authorization-token)\b[^\n]*\n([A-Za-z0-9+/]{100,}={0,2})"
       r"(?![A-Za-z0-9+/=])",
       prefilter=r"get-(?:login-password|authorization-token)[^\r\n]*\n[A-Za-z0-9+/]{100}",
       group=1, needles=("get-login-password", "get-authorization-token"),
       start=_at_literal(("get-",))),
    # Vault's operator init: its unseal (or recovery) keys, as secret as the root token.
    _d("secret_assignment",
       r"(?<![\w-])(?:Unseal|Recovery) Key \d{1,2}:[ \t]*([A-Za-z0-9+/]{20,}={0,2})"
       r"(?![A-Za-z0-9+/=])",
       prefilter=r"(?:Unseal|Recovery) Key \d{1,2}:", group=1,
       needles=("Unseal Key", "Recovery Key"), start=_at_literal(("Unseal", "Recovery"))),
    # OAuth's one-time secrets in a form or a query: an authorization code, a PKCE verifier,
    # Firebase's action code (a sign-in link's), a refresh token, a password reset's or a
    # CAS login's ticket; bearer credentials while they last.
    _d("bearer_token",
       # (and Supabase's magic link's token_hash)
       # (not a token's SHA-256 as a store keeps it: "token_hash=<64 hex>")
       r"(?<![\w.-])(?:code|code_verifier|oobCode|refresh_token|ticket|token_hash)="
       r"(?!(?<=token_hash=)[0-9a-f]{40,64}(?![A-Za-z0-9_~-]))"
       r"([A-Za-z0-9._~-]{20,})(?![A-Za-z0-9._~%-])", v.credential_ok,
       prefilter=(r"(?:code|code_verifier|oobCode|refresh_token|ticket|token_hash)="
                  r"[A-Za-z0-9._~-]{20}"),
       group=1, needles=("code=", "Code=", "refresh_token=", "ticket=", "token_hash="),
       start=_at_literal(("code=", "Code=", "refresh_token=", "ticket=", "token_hash="), 14)),
    # A one-time link's token as a path segment (Grafana's /invite/<code>, a reset or magic
    # link's /reset-password/<token>): whoever holds the link joins or signs in.
    _d("bearer_token",
       r"(?i)/(?:invite|invites|invitations?|accept[_-]?invite|reset[_-]?password|password[_-]?reset"
       r"|magic(?:[_-]?(?:link|login))?|verify[_-]?email|email[_-]?verification|activate"
       r"|activation"
       # (and as Spanish, Portuguese, French, Italian and German links name it:
       # /restablecer/<token>, /redefinir-senha/, /reinitialiser/, /reimposta/, /zuruecksetzen/)
       r"|restablecer(?:[_-]contrase(?:n|%C3%B1)a)?|redefinir(?:[_-]senha)?|recuperar(?:[_-]senha)?"
       r"|r(?:e|%C3%A9)initiali[sz]er|reimposta(?:re)?|zur(?:ue|%C3%BC)cksetzen"
       # (a newsletter's double opt-in link: /newsletter/doi/<token>, /bevestig?k=...,
       # /confirmar?c=<uuid>, /confirmation/<token>)
       r"|doi|opt-?in|confirm(?:ation|ar|er)?|bevestig(?:en)?|best(?:ae|%C3%A4)tig(?:en|ung)?"
       # (a reset link of its own: /password/reset?t=..., Django's /reset/<uidb64>/<token>/)
       r"|reset)"
       # (or its query's one-letter parameter: /onboarding/magic-link?t=<token>)
       r"(?:/(?:(?<=/reset/)[A-Za-z0-9_-]{1,12}/)?|\?(?:[\w-]+=[^&#\s]*&)*(?:t|k|c)=)"
       r"([A-Za-z0-9_-]{20,})(?![A-Za-z0-9_.~%-])", v.path_token_ok,
       prefilter=r"(?i)/(?:invite|invitation|accept[_-]?invite|reset[_-]?password|password[_-]?reset"
                 r"|magic|verify[_-]?email|email[_-]?verification|activat"
                 r"|restablecer|redefinir|recuperar|r(?:e|%C3%A9)initiali|reimposta|zur(?:ue|%C3%BC)ck"
                 r"|doi|opt-?in|confirm|bevestig|best(?:ae|%C3%A4)tig"
                 r"|reset)[A-Za-z0-9%_-]*(?:/(?:[A-Za-z0-9_-]{1,12}/)?|\?[^ \t\r\n#]*[tkc]=)"
                 r"[A-Za-z0-9_-]{20}",
       group=1, needles=("/",), start=_at_literal(("/",))),
    # The credential of a Vault AppRole (secret_id, a UUID: vault write auth/approle/login
    # role_id=... secret_id=..., or its JSON); a key's id elsewhere is no secret (AWS'
    # SecretId names one).
    _d("secret_assignment",
       rf"(?i)(?<![a-z0-9])secret[_-]?id\\*[\"']?[ \t]*[:=][ \t]*\\*[\"']?({_UUID})(?![\w-])",
       prefilter=r"(?i)secret[_-]?id[^\r\n]*[0-9a-f]{8}-[0-9a-f]{4}-", group=1,
       needles=("ecret",), start=_at_literal(("secret",), fold=True)),
    # A Pulumi secret shown in plain text (its signature key, then "plaintext"): pulumi stack
    # output --json --show-secrets.
    _d("secret_assignment",
       r"\"4dabf18193072939515e22adb298388d\"[ \t]*:[ \t]*\"1b47061264138c4ac30d75fd1eb44270\""
       r"[ \t]*,\s*\"plaintext\"[ \t]*:[ \t]*\"((?:[^\"\\\n]|\\.)+)\"",
       prefilter=r"4dabf18193072939515e22adb298388d", group=1,
       needles=("4dabf18193072939515e22adb298388d",),
       start=_at_literal(("\"4dabf18193072939515e22adb298388d",))),
    # A secret set in the environment by a test or a script: monkeypatch.setenv("X_API_KEY",
    # "..."), os.putenv(...).
    _d("secret_assignment",
       r"(?i)\b(?:setenv|putenv|setdefault)\([ \t]*[\"'][A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASS"
       r"|PWD|CREDENTIALS?)[A-Z0-9_]*[\"'][ \t]*,[ \t]*[\"']([^\"'\s]{6,})[\"']",
       v.table_secret_ok,  # (a token: a test's "sk_test_fake" stays)
       prefilter=r"(?i)(?:setenv|putenv|setdefault)\([ \t]*[\"'][A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASS"
                 r"|PWD|CREDENTIAL)", group=1, needles=("env(", "ENV(", "setdefault("),
       start=_at_literal(("setenv", "putenv", "setdefault"), fold=True)),
    # Neo4j's NEO4J_AUTH=user/password (its Docker image's setting).
    _d("secret_assignment", r"(?i)\bNEO4J_AUTH[ \t]*[=:][ \t]*[\"']?[^/\s\"']+/([^\s\"']{4,})",
       v.secret_value_ok, prefilter=r"(?i)NEO4J_AUTH[ \t]*[=:]", group=1,
       needles=("NEO4J_AUTH", "neo4j_auth"), start=_at_literal(("neo4j_auth",), fold=True)),
    # A tunnel's credential on its command line: ngrok's authtoken, cloudflared's token.
    _d("secret_assignment",
       r"(?<![\w-])(?:ngrok\b[^\n|;&]{0,80}?[ \t](?:config[ \t]+)?add-authtoken[ \t]+"
       r"|cloudflared\b[^\n|;&]{0,80}?[ \t](?:service[ \t]+install|--token)[ \t]+)"
       r"([A-Za-z0-9_+/=.-]{20,})",
       v.credential_ok, prefilter=r"add-authtoken|cloudflared", group=1,
       needles=("ngrok", "cloudflared"), start=_at_literal(("ngrok", "cloudflared"))),
    # A KYC check's document: {"type": "SSN", "number": "..."}.
    _d("us_ssn",
       r"(?i)\\?\"type\\?\"[ \t]*:[ \t]*\\?\"(?:ssn|us_ssn|social_security_number)\\?\""
       r"[ \t]*,[ \t]*\\?\"(?:number|value|id)\\?\"[ \t]*:[ \t]*\\?\"(\d{3}-?\d{2}-?\d{4})\\?\"",
       v.ssn_ok, prefilter=r"(?i)\"(?:ssn|us_ssn|social_security_number)\\?\"[ \t]*,", group=1,
       joined=_joined_digits(9),
       needles=("SSN\"", "ssn\"", "SSN\\\"", "ssn\\\"", "number\""),
       start=_at_literal(('"type"', '\\"type\\"'))),
    # An HTML form's password field with its value (type="password" ... value="...").
    _d("secret_assignment",
       # (a tag is short: each "<input" reads at most 500 characters of it)
       r"(?i)<input\b(?=[^>]{0,500}?\btype=[\"']?password\b)[^>]{0,500}?\bvalue=[\"']"
       r"([^\"'<>]{4,})[\"']",
       v.secret_value_ok, prefilter=r"(?i)type=[\"']?password", group=1,
       needles=("password", "PASSWORD"), start=_at_literal(("<input",), fold=True)),
    # Algolia's JavaScript client: algoliasearch("APP_ID", "<32 hex digits>").
    _d("api_key",
       r"algoliasearch(?:Lite)?\([ \t]*[\"'][A-Z0-9]{10}[\"'][ \t]*,[ \t]*[\"']([a-f0-9]{32})[\"']",
       prefilter=r"algoliasearch", group=1, needles=("algoliasearch",),
       start=_at_literal(("algoliasearch",))),
    # A password in a connection URL's query (PHP's redis session.save_path "...?auth=X").
    _d("secret_assignment", r"[?&](?:auth|requirepass)=([^&\s\"'#<>]{8,})", v.table_secret_ok,
       prefilter=r"[?&](?:auth|requirepass)=[^&\s\"'#<>]{8}", group=1,
       needles=("auth=", "requirepass="), start=_at_literal(("auth=", "requirepass="), 1)),
    # Mailgun's private API key ("key-" and 32 hex digits), under whatever name holds it
    # (a PagerDuty block's routing_key in one pasted config).
    _d("api_key", r"(?<![\w-])(key-[0-9a-f]{32})(?![\w-])", None,
       prefilter=r"key-[0-9a-f]{32}", group=1, needles=("key-",),
       start=_at_literal(("key-",))),
    # A Telegram bot's token (the bot's id, a colon, 35 characters), in its API's URL too.
    _d("api_key", r"(?<![\d:])(\d{8,10}:AA[A-Za-z0-9_-]{33})(?![\w-])", None,
       prefilter=r"[0-9]{8}:AA[A-Za-z0-9_-]{33}", group=1, needles=(":AA",),
       start=_at_literal((":AA",), 10)),
    # An e-mail address as a URL's user, percent-encoded (smtp://postmaster%40mg.example.com:
    # password@host): the user is a person's or a team's address.
    _d("email", r"://([A-Za-z0-9._+-]{1,64}%40[A-Za-z0-9.-]+\.[A-Za-z]{2,24})(?=[:@])",
       v.encoded_email_ok, prefilter=r"://[A-Za-z0-9._+-]+%40", group=1, needles=("%40",),
       start=_at_literal(("://",)), joined=_joined_email,
       joined_prefilter=r"://[A-Za-z0-9.+]+%40"),
    # curl's -u KEY: with no password: an API key as the login's user (Stripe's, Scale's).
    _d("secret_assignment",
       r"(?<![\w-])curl\b(?:[^\n|;&]|\\\n)*?[ \t](?:-u|--user)[ \t]+['\"]?"
       # (or with the "X" Freshdesk's documentation puts in the password's place)
       r"([A-Za-z0-9_.~+/-]{16,}):(?=[Xx]?['\"]?(?:\s|$))", v.credential_ok,
       prefilter=r"[ \t]-(?:u|-user)[ \t]+['\"]?[A-Za-z0-9_.~+/-]{16}", group=1,
       needles=("curl",), start=_at_literal(("curl",))),
    )


def _detectors_second() -> tuple[Detector, ...]:
    """The second part of the table."""
    return (
    # A login pair quoted after the word for credentials, as test notes write it ("default
    # credentials `admin` / `letmein5101`", "identifiants par défaut 'admin' / 'X'").
    _d("secret_assignment",
       r"(?i)(?:credential|creds|identifiants|credenciales|credenziali|credenciais"
       r"|zugangsdaten|anmeldedaten)[^\n`'\"]{0,40}?([`'\"])[^`'\"\s]{1,64}\1[ \t]*/[ \t]*"
       r"([`'\"])([^`'\"\s]{4,64})\2", v.secret_value_ok,
       prefilter=r"(?i)(?:credential|creds|identifiants|credenciales|credenziali|credenciais"
                 r"|zugangsdaten|anmeldedaten)[^\n`'\"]{0,40}[`'\"]", group=3,
       needles=("red", "RED", "Red", "dentif", "DENTIF", "ugangs", "UGANGS", "nmelde",
                "NMELDE"),
       start=_at_literal(("cred", "identif", "zugangs", "anmelde"), fold=True)),
    # A Secret's field decoded by kubectl, printed on the next line ("kubectl get secret db -o
    # jsonpath='{.data.password}' | base64 -d; echo" then the password).
    _d("secret_assignment",
       r"(?i)jsonpath=\\?[\"']?\{\.data\.[\w.-]*(?:passw|pwd|token|secret|key)[\w.-]*\}"
       r"\\?[\"']?[ \t]*\|[ \t]*base64[ \t]+(?:-d|--decode)[^\n\\]*(?:\n|\\n)([^\s\\\"']{4,})",
       v.secret_value_ok, prefilter=r"(?i)jsonpath=[^\r\n]*\{\.data\.[^\r\n]*base64", group=1,
       needles=("jsonpath=", "JSONPATH="), start=_at_literal(("jsonpath=",), fold=True)),
    # A meeting's passcode (Zoom's "Passcode: 180986", Teams' "Passcode: p10IZK"), also on an
    # invite's folded next line ("Passcode: \n oOPvgtGu" in an .ics DESCRIPTION).
    _d("secret_assignment", "(?i)" + _edge(r"\w-") + r"(?:passcode|kenncode|toegangscode"
       # (a digit in it, or a small letter before a capital: a code, not "siehe Einladung")
       r"|l[öo]senkod)[ \t]*[:=][ \t]*(?:(?:\r?\n|\\n)[ \t]+)?"
       r"(?=(?-i:[A-Za-z0-9]*(?:\d|[a-z][A-Za-z0-9]*[A-Z])))([A-Za-z0-9]{4,12})(?![\w-])",
       v.secret_value_ok,
       prefilter=r"(?i)(?:passcode|kenncode|toegangscode|l[ao]senkod)[ \t]*[:=]", group=1,
       needles=("asscode", "ASSCODE", "enncode", "ENNCODE", "angscode", "ANGSCODE", "senkod",
                "SENKOD"),
       start=_at_literal(("passcode", "kenncode", "toegangscode", "lösenkod", "losenkod"),
                         fold=True)),
    # A name/value pair in HCL whose name is a secret's (a Helm release's set block in a
    # Terraform plan: name = "adminPassword" -> null, then value = "...").
    _d("secret_assignment",
       "(?i)" + _edge(r"\w-")
       + r"name[ \t]*=[ \t]*\\?\"[^\"\n]*(?:passw|secret|token|api[_-]?key)[^\"\n]*"
       # (the value on a line of its own: an HTML input's name="csrf_token" value="..." is not)
       r"\\?\"(?:[ \t]*->[ \t]*null)?[ \t]*(?:\r?\n|\\n)(?:\s|\\n)*[-+~]?[ \t]*value[ \t]*=[ \t]*"
       r"\\?\""
       r"([^\"\\\n]{4,})\\?\"", v.secret_value_ok,
       prefilter=r"(?i)name[ \t]*=[ \t]*\\?\"[^\"\r\n]*(?:passw|secret|token|api[_-]?key)",
       group=1, needles=("value", "VALUE"), start=_at_literal(("name",), fold=True)),
    # Redis's MONITOR prints every command, AUTH's password too: "AUTH" ["user"] "password".
    _d("secret_assignment",
       r"(?i)(?<![\w-])\"auth\"(?:[ \t]+\"[^\"\n]*\")?[ \t]+\"([^\"\n]+)\"", v.secret_value_ok,
       prefilter=r"(?i)\"auth\"[ \t]", group=1, needles=('"auth"', '"AUTH"', '"Auth"'),
       start=_at_literal(('"auth"',), fold=True)),
    # Kafka's SASL/PLAIN login with a Confluent Cloud key as the username (16 capitals and
    # digits; its password is the secret half, found under its key).
    _d("api_key",
       r"PlainLoginModule[ \t]+required[ \t]+username[ \t]*=[ \t]*\\?([\"'])([A-Z0-9]{16})\\?\1",
       v.tokenish, prefilter=r"PlainLoginModule[ \t]+required[ \t]+username", group=2,
       needles=("PlainLoginModule",), start=_at_literal(("PlainLoginModule",))),
    # A presigned URL's signature and session token (S3, GCS, CloudFront's Signature=):
    # whoever holds the URL holds the access until it expires.
    _d("secret_assignment",
       # (after "&amp;" too: a link in an HTML attribute)
       # (Tencent COS's q-signature too)
       # (the vendors' own parameters also outside a query: "X-Goog-Signature=..." pasted alone)
       r"(?i)(?:[?&;]|(?<![\w-])(?=x-(?:amz|goog)-s))"
       # (and OAuth 1.0's, an LTI launch's oauth_signature)
       r"(?:x-amz-signature|x-goog-signature|x-amz-security-token|q-signature|signature"
       r"|oauth_signature)"
       r"=([^&\s\"'#<>]{16,})",
       prefilter=(r"(?i)[?&;](?:x-(?:amz|goog)-|q-|oauth_)?s(?:ignature|ecurity-token)="
                  r"|x-(?:amz|goog)-s(?:ignature|ecurity-token)="), group=1,
       needles=("Signature=", "signature=", "-Security-Token=", "-security-token=",
                "SIGNATURE="),
       start=_at_literal(("x-amz-s", "x-goog-s", "q-signature=", "signature=",
                          "oauth_signature="), 1, fold=True)),
    # Akamai's token authentication (?hdnts=st=...~exp=...~acl=...~hmac=<hex>): the token is
    # the access until it expires, its HMAC the part nobody could forge.
    _d("secret_assignment", r"(?i)[~?&;]hmac=([0-9a-f]{32,})(?![0-9a-z])",
       prefilter=r"(?i)[~?&;]hmac=[0-9a-f]{32}", group=1, needles=("hmac=", "HMAC="),
       start=_at_literal(("hmac=",), 1, fold=True)),
    # An OAuth authorization code in its callback ("/oauth2/callback?code=...&state=..."):
    # exchanged for tokens by whoever holds it until it is used.
    _d("secret_assignment",
       r"(?i)/[^\s?\"'#]*(?:callback|oauth|/auth|/login|signin|redirect)[^\s?\"'#]*\?"
       r"(?:[^\s\"'#&]*&)*?code=([A-Za-z0-9._~%/-]{16,})(?=[&#\s\"'\\]|$)", v.tokenish,
       prefilter=r"(?i)(?:callback|oauth|/auth|/login|signin|redirect)[^\s?\"'#]*\?[^\s\"'#]*code=",
       group=1, needles=("code=",), start=_at_literal(("/",))),
    # A one-time code in its verification request's query (/otp/verify?phone=...&code=028847).
    _d("secret_assignment",
       r"(?i)/(?:otp|totp|2fa|mfa|verify|verification)(?![a-z])[^\s?\"'#]*\?"
       r"(?:[^\s\"'#&]*&)*?(?:code|otp|pin|token)=(\d{4,8})(?=[&#\s\"'\\]|$)",
       prefilter=(r"(?i)/(?:otp|totp|2fa|mfa|verif)[^\s?\"'#]*\?[^\s\"'#]*"
                  r"(?:code|otp|pin|token)=\d{4}"),
       group=1, needles=("?",), digits=True),
    # ... and in the message that carries it: "409764 is your verification code", "597327
    # ist Ihr Bestätigungscode", "277316 est votre code de connexion".
    _d("secret_assignment",
       # (not a year of the past or of the next few: "2024 is your year")
       r"(?i)(?<![\w.,:/+-])(?!(?:19\d|20[0-3])\d(?!\d))(\d{4,8})\*?[ \t]+"
       r"(?:is[ \t]+your|ist[ \t]+ihr|est[ \t]+votre|es[ \t]+tu|[eè][ \t]+il[ \t]+tuo"
       r"|is[ \t]+uw|[eé][ \t]+(?:o[ \t]+)?seu|jest[ \t]+tw|är[ \t]+din"
       # ("*409301* adalah kode verifikasi Anda")
       r"|adalah)"
       # (the code's own word within four: "your PetalPost login code", "your GOV.UK One
       # Login security code": a dot inside a word is no sentence's end)
       # (not a sentence of other words: "1234 is your turn to review the code")
       r"[ \t]+(?:(?!(?:to|turn|the|a)[ \t])[^\s.!]+(?:\.[^\s.!]+)*[ \t]+){0,4}?[^\s.!]*?"
       r"(?:code|c[óo]digo|codice|kod|pin|otp|passcode|wachtwoord)",
       prefilter=(r"(?i)\d{4}\*?[ \t]+(?:(?:is|ist|est|es|e|a|jest|ar)[ \t]+"
                  r"(?:your|ihr|votre|tu|il|uw|o|seu|tw|din)|adalah)"),
       group=1, gate=r"\d{4}\*?[ \t]+(?i:is|ist|est|es|[eèé]|jest|är|adalah)[ \t]",
       digits=True),
    # Some put the code first: "800188 kodunu kimseyle paylasmayiniz" (a Turkish bank's),
    # "898069 is OTP for Aadhaar ..." (UIDAI's).
    _d("secret_assignment",
       r"(?i)(?<![\w.,:/+-])(\d{4,8})[ \t]+(?:kodunu|kodunuz|şifreniz"
       r"|is[ \t]+(?:the[ \t]+|your[ \t]+)?otp)\b",
       prefilter=(r"(?i)\d{4}[ \t]+(?:kodunu|kodunuz|a+ifreniz"
                  r"|is[ \t]+(?:the[ \t]+|your[ \t]+)?otp)"),
       group=1, digits=True, gate=r"(?i:kodunu|ifreniz|otp)"),
    # ... and a one-time code after its name, in the languages its SMS come in ("Your TAC is
    # 806656", "login OTP 5078", "Ma xac thuc cua ban la 342156", "LINEの認証番号：937041",
    # "كود التفعيل الخاص بك هو ٨٢١٥٠٦", "رمز پویا: ۹۴۳۷۰", "ओटीपी १३११३२ है"); digits of any
    # script.
    _d("secret_assignment",
       # (a bank's TAC, not a cell's tracking area code or an IMEI's type code, tac=16962)
       r"(?i)(?<![a-z])(?:otp|tac(?!=)|one[ -]time[ -](?:password|passcode|code|pin)"
       r"|kode[ \t]+(?:otp|verifikasi)|m[aã][ \t]+(?:x[aá]c[ \t]+(?:th[uự]c|nh[aậ]n)|otp)"
       "|\u0913\u091f\u0940\u092a\u0940|\u8a8d\u8a3c\u756a\u53f7|\u78ba\u8a8d\u30b3\u30fc\u30c9"
       "|\u9a8c\u8bc1\u7801|\u9a57\u8b49\u78bc|\uc778\uc99d\ubc88\ud638"
       "|(?:\u0643\u0648\u062f|\u0631\u0645\u0632)[ \t]+(?:\u0627\u0644\u062a\u062d\u0642\u0642"
       "|\u0627\u0644\u062a\u0641\u0639\u064a\u0644|\u0627\u0644\u062f\u062e\u0648\u0644"
       "|\u0627\u0644\u062a\u0623\u0643\u064a\u062f"
       "|\u067e\u0648\u06cc\u0627)"
       "|\u0627\u0644\u0631\u0642\u0645[ \t]+\u0627\u0644\u0633\u0631\u064a)(?![a-z])"
       # (what may stand between: "is", "is your", "cua ban la", "الخاص بك هو", "الجديد")
       "(?:[ \t]+(?:is|your|adalah|anda|cua|của|ban|bạn|la|là|hai|\u0647\u0648"
       "|\u0627\u0644\u062e\u0627\u0635|\u0628\u0643|\u0627\u0644\u062c\u062f\u064a\u062f))*"
       r"[ \t]*[:\uff1a=]?[ \t]*[*\"']?(\d{4,8})(?![\d.,:/-]?\d)",
       prefilter=r"(?i)(?:^|[^a-z])(?:otp|tac)[^a-z]|one.time|kode[ \t]|m[a][ \t]+(?:xac|otp)|aa",
       group=1, digits=True,
       gate=("(?i:otp|tac|one.time|kode|m[a\u00e3][ \t]|\u0913\u091f\u0940\u092a\u0940|"
             "\u8a8d\u8a3c|\u78ba\u8a8d|\u9a8c\u8bc1|\u9a57\u8b49|\uc778\uc99d|"
             "\u0643\u0648\u062f|\u0631\u0645\u0632|\u0627\u0644\u0631\u0642\u0645)"),
       # (the engine reads every word of another script as "aa": the scan starts at a name)
       start=_at_words(("otp", "tac", "one", "kode", "ma ", "ma\t", "m\u00e3 ", "m\u00e3\t",
                        "\u0913\u091f\u0940\u092a\u0940", "\u8a8d\u8a3c\u756a\u53f7",
                        "\u78ba\u8a8d\u30b3\u30fc\u30c9", "\u9a8c\u8bc1\u7801",
                        "\u9a57\u8b49\u78bc", "\uc778\uc99d\ubc88\ud638", "\u0643\u0648\u062f",
                        "\u0631\u0645\u0632", "\u0627\u0644\u0631\u0642\u0645"))),
    # OpenWeatherMap's key in its query (appid=<32 hex digits>).
    _d("secret_assignment", r"(?i)[?&]appid=([0-9a-f]{32})(?![0-9a-z])", v.tokenish,
       prefilter=r"(?i)[?&]appid=[0-9a-f]{32}", group=1, needles=("appid=", "APPID=", "appId="),
       start=_at_literal(("appid=",), 1, fold=True)),
    # A Go struct's print of a secret's key and value ({Path:kv/x Key:partner_api_key
    # Value:...}, Vault's client).
    _d("secret_assignment",
       rf"(?i)\bKey:[\w.-]*?(?:{_SECRET_WORDS})[\w.-]*{_NOT_THE_SECRET}[ \t]+Value:([^\s}}]{{6,}})",
       v.secret_value_ok, prefilter=r"(?i)Key:[^ \t\r\n]*[ \t]+Value:", group=1,
       needles=("Value:", "value:", "VALUE:"), start=_at_literal(("key:",), fold=True)),
    # A secret's own shape with nothing named beside it, where an ORM or a driver prints its
    # parameters bare ("binding parameter [1] as [VARCHAR] - [<40 characters>]"): an AWS
    # secret key's 40 base64 characters (both cases, digits, and a '/' or '+', few '/': not a
    # path), and an Azure storage key's 86 and "==" (not a SHA-512 integrity digest).
    _d("secret_assignment",
       # (not a run inside a password's hash: $2b$14$<22 salt><31 hash>, split by "." and "$";
       # nor an ssdeep hash's first part, after its block size: "3072:iPHWN8...:wnUz...")
       # (nor a signature told as one: a receipt's "TSE-Signatur: ...")
       # (nor beside a letter or digit of another script, which the prefilter reads as one)
       r"(?<![A-Za-z0-9/+=$.])(?<![^\W_])(?<!\d:)(?<!ignatur: )(?<!ignature: )"
       r"(?=[A-Za-z0-9]*[/+])([A-Za-z0-9+][A-Za-z0-9/+]{39})"
       # (not the last line of a PEM block: a public key's, whose END line follows)
       r"(?![A-Za-z0-9/+=.$])(?![^\W_])(?!\r?\n-{4,5} ?END )",
       v.bare_secret_ok, prefilter=r"(?:^|[^A-Za-z0-9/+=])[A-Za-z0-9+][A-Za-z0-9/+]{39}"
                                   r"(?:[^A-Za-z0-9/+=]|$)", group=1, needles=("/", "+"),
       start=_at_literal(("/", "+"), 39)),
    _d("secret_assignment",
       # (a digest under its algorithm's name: an integrity attribute, electron-builder's
       # latest.yml "sha512: ...")
       r"(?<![A-Za-z0-9/+=])(?<![^\W_])(?<!sha512-)(?<!sha512:)(?<!sha512=)(?<!sha512: )"
       r"(?<!sha256-)(?<!sha384-)"
       # (nor an embedding of 16 floats, as the OpenAI API's base64 encoding returns it)
       r"(?<!\"embedding\": \")(?<!\"embedding\":\")"
       # (nor a German till receipt's TSE signature: printed for anyone to check)
       r"(?<!TSE-Signatur: )"
       # (nor a zone's public key: "IN DNSKEY 257 3 13 <88 characters>")
       r"(?<!DNSKEY 257 3 13 )(?<!DNSKEY 256 3 13 )"
       r"([A-Za-z0-9/+]{86}==)(?![A-Za-z0-9/+=])(?![^\W_])", v.random_key_bytes,
       prefilter=r"(?:^|[^A-Za-z0-9/+=])[A-Za-z0-9/+]{86}==(?:[^A-Za-z0-9/+=]|$)", group=1,
       needles=("==",), start=_at_literal(("==",), 86)),
    # A secret's value a field or two below its name: terraform output -json ("db_password":
    # {"sensitive": true, "type": "string", "value": "..."}), and a name/value pair on two
    # lines: Kubernetes' env (- name: CODECOV_TOKEN, then value: "..."), Terraform's plan
    # of a Helm release's set block (name = "postgresql.auth.password", then value = "...").
    _d("secret_assignment",
       _SECRET_KEY + r"[ \t]*:[ \t]*\{[^{}]{0,200}?\\?\"value\\?\"[ \t]*:[ \t]*"
       r"\\?\"([^\"\\\n]{6,})",
       v.secret_value_ok, prefilter=_SECRET_KEY_PREFILTER + r"[ \t]*:[ \t]*\{", group=1,
       needles=('"value"', '\\"value\\"'), start=_at_literal(_SECRET_STARTS, fold=True),
       starts=_SECRET_KEY_STARTS),
    _d("secret_assignment",
       rf"(?i)\bname[ \t]*[:=][ \t]*\\*[\"']?[\w.-]*?(?:{_SECRET_WORDS})[\w.-]*{_NOT_THE_SECRET}"
       r"\\*[\"']?[ \t]*(?:\r?\n|\\n)[ \t]*[+~-]?[ \t]*value[ \t]*[:=][ \t]*\\*[\"']?"
       r"([^\s\"'\\]{6,})", v.secret_value_ok,
       prefilter=r"(?i)name[ \t]*[:=][^\r\n]*(?:\r?\n|\\n)[ \t]*[+~-]?[ \t]*value[ \t]*[:=]",
       group=1, needles=("value", "VALUE", "Value"), start=_at_literal(("name",), fold=True)),
    # A Terraform variable's default, the secret its name says it holds (variable
    # "db_password" { default = "..." }).
    _d("secret_assignment",
       rf"(?i)\bvariable[ \t]+\\?\"[\w-]*?(?:{_SECRET_WORDS})[\w-]*{_NOT_THE_SECRET}\\?\""
       r"[ \t]*\{[^{}]{0,400}?\bdefault[ \t]*=[ \t]*\\?\"([^\"\\\n]{6,})",
       v.secret_value_ok,
       prefilter=r"(?i)variable[ \t]+\\?\"[^\r\n]*\{[^{}]{0,400}default[ \t]*=[ \t]*\\?\"",
       group=1, needles=("variable",), start=_at_literal(("variable",))),
    # The password a random_password resource made, in Terraform's state.
    _d("secret_assignment",
       r"\\?\"type\\?\"[ \t]*:[ \t]*\\?\"random_password\\?\"[\s\S]{0,2000}?\\?\"result\\?\"[ \t]*:"
       r"[ \t]*\\?\"([^\"\\\n]+)", v.secret_value_ok, prefilter=r"random_password", group=1,
       needles=("random_password",), start=_at_literal(('"type"', '\\"type\\"'))),
    # SMTP's AUTH: PLAIN's base64 of "\0user\0password", and LOGIN's answer to the server's
    # "334 UGFzc3dvcmQ6" (base64 "Password:").
    _d("secret_assignment",
       r"(?<![\w-])AUTH[ \t]+PLAIN[ \t]+([A-Za-z0-9+/]{8,}={0,2})(?![\w+/=])",
       prefilter=r"AUTH[ \t]+PLAIN[ \t]+[A-Za-z0-9+/]{8}", group=1, needles=("AUTH",),
       start=_at_literal(("AUTH",))),
    _d("secret_assignment",
       r"334[ \t]+UGFzc3dvcmQ6(?:\\[rn]|\s)+(?:[A-Za-z]:|->|>)?[ \t]*([A-Za-z0-9+/]{4,}={0,2})"
       r"(?![\w+/=])", prefilter=r"334[ \t]+UGFzc3dvcmQ6", group=1, needles=("UGFzc3dvcmQ6",),
       start=_at_literal(("334",))),
    # LDIF's userPassword in clear or base64 ("userPassword:: <base64>"), not a hash.
    _d("secret_assignment", r"(?i)" + _edge(r"\w-") + r"userPassword::?[ \t]*([^\s\\]+)",
       v.ldap_password_ok, prefilter=r"(?i)userPassword:", group=1,
       needles=("assword:", "ASSWORD:"), start=_at_literal(("userpassword",), fold=True)),
    # A chat's answer to "what was the password?": the next message, one password-shaped
    # word ("13/04/2024, 13:41 - Mamá: j7Y=Ief#LJ-r8Oe").
    _d("secret_assignment",
       r"(?i)(?:password|passwort|kennwort|mot de passe|contrase[ñn]a|senha|wachtwoord"
       r"|kata sandi|parol[ae]?|[şs]ifre|heslo|salasana)[^\n?\\]{0,60}\?[ \t]*(?:\r?\n|\\n)"
       r"[^\n\\]{0,60}?:[ \t]+([^\s\\\"]{8,64})(?=[ \t]*(?:\r?\n|\\n|$|\"))", v.told_password,
       prefilter=r"(?i)(?:passw|kennwort|passe|contrase|senha|wachtwoord|sandi|parol|ifre|heslo"
                 r"|salasana)[^\r\n?]{0,60}\?", group=1, needles=("?",)),
    # A wireless network's or a VPN's shared key, told ("Code wifi de la salle Jura :
    # «X»", "WiFi Invités — clé X", "the VPN pre-shared key is “X”").
    _d("secret_assignment",
       r"(?ai)(?:(?:code|cl[ée]|key|password|passwort|mot de passe)[ \t]+(?:wi-?fi|wlan|wpa2?)"
       r"|(?:wi-?fi|wlan|wpa2?|vpn)[^\n]{0,30}?(?:code|cl[ée]|key|password|passwort"
       r"|mot de passe|psk)|pre-shared key)"
       r"(?:[^\n:=]{0,30}?(?:[:=]|\bis\b|\best\b))?[ \t\u00a0\u202f]*[«“‘„\"'「]?[ \t\u00a0\u202f]?"
       r"([^\s«»“”‘’„\"'」<>]{6,64})", v.told_password,
       prefilter=r"(?i)wi-?fi|wlan|wpa|vpn|pre-shared", group=1,
       needles=("fi", "FI", "Fi", "wlan", "WLAN", "wpa", "WPA", "vpn", "VPN", "pre-shared")),
    # A table's row: a secret's name, two spaces or more, its value (vault kv get, aws
    # configure list, kubectl describe).
    _d("secret_assignment",
       rf"(?im)^[ \t]*[\w.-]*?(?:{_FIELD_SECRET})[\w.-]*{_NOT_THE_SECRET}[ \t]{{2,}}(\S{{6,}})"
       r"[ \t]*\r?$",
       v.table_secret_ok, prefilter=rf"(?i)(?:{_FIELD_SECRET_PREFILTER})[A-Za-z0-9_.-]*[ \t][ \t]",
       group=1, needles=("  ", "\t")),
    # An attribute in protobuf's text format (an OTLP exporter's debug print) whose key names
    # a secret: key:"db.password" value:{string_value:"..."}.
    _d("secret_assignment",
       r"(?i)\bkey[ \t]*:[ \t]*\\?\"[^\"\n]*(?:passw|pwd|secret|token|api[_.-]?key|auth"
       r"|cookie|session)[^\"\n]*\\?\"[ \t]+value[ \t]*:[ \t]*\{[ \t]*string_value[ \t]*:"
       r"[ \t]*\\?\"([^\"\\\n]{4,})", v.secret_value_ok,
       prefilter=r"(?i)key[ \t]*:[^\r\n]*value[ \t]*:[ \t]*\{[ \t]*string_value", group=1,
       needles=("string_value",), start=_at_literal(("key",), fold=True)),
    # PHP's constants (WordPress' wp-config.php): define( 'DB_PASSWORD', '...' ), its keys
    # and salts.
    _d("secret_assignment",
       r"(?i)(?:\b|(?<=\\[nrt]))define\([ \t]*\\?[\"']"
       # (not a cache's key prefix: WP_CACHE_KEY_SALT, a plugin's namespace)
       r"[A-Z_]*(?:PASSWORD|PASS|SECRET|KEY|SALT|TOKEN)[A-Z_]*(?<!CACHE_KEY_SALT)\\?[\"'][ \t]*,"
       r"[ \t]*\\?[\"']([^\"'\\\n]{4,})\\?[\"']", v.secret_value_ok,
       prefilter=r"(?i)define\([ \t]*\\?[\"'][A-Z_]*(?:PASS|SECRET|KEY|SALT|TOKEN)", group=1,
       needles=("define(", "DEFINE("), start=_at_literal(("define(",), fold=True)),
    # A browser automation typing into a password field: Playwright's page.fill("#password",
    # "..."), Selenium's send_keys, an agent's {"selector": "input#password", "value": ...}.
    _d("secret_assignment",
       r"(?i)\b(?:fill|type|send_?keys|set_?value|press_?sequentially)\([ \t]*\\?[\"'][^\"'\n]*"
       r"(?:passw|pwd|passcode|secret|token|otp)[^\"'\n]*\\?[\"'][ \t]*,[ \t]*\\?[\"']"
       r"([^\"'\\\n]{4,})", v.secret_value_ok,
       prefilter=r"(?i)(?:fill|type|send_?keys|set_?value|press_?sequentially)\(", group=1,
       needles=("(",)),
    _d("secret_assignment",
       r"(?i)\\?\"(?:selector|xpath|css|locator)\\?\"[ \t]*:[ \t]*\\?\"[^\"\n]*"
       r"(?:passw|pwd|passcode|otp)[^\"\n]*"
       r"\\?\"[ \t]*,"
       r"[ \t]*\\?\"(?:value|text)\\?\"[ \t]*:[ \t]*\\?\"([^\"\\\n]{4,})", v.secret_value_ok,
       prefilter=r"(?i)(?:selector|xpath|css|locator)\\?\"[ \t]*:[^\r\n]*"
                 r"(?:passw|pwd|passcode|otp)",
       group=1, needles=("selector", "SELECTOR", "Selector", "xpath", "XPATH", "XPath", "css",
                         "CSS", "locator", "LOCATOR", "Locator")),
    # A password that "has been updated to" / "was changed to" / "is set to" a value.
    _d("secret_assignment",
       r"(?i)(?<![A-Za-z-])(?:password|passwd|passcode)(?:,?[ \t]+[\w']+){0,4}?[ \t]+"
       r"(?:updated|changed|set|reset)[ \t]+to[ \t]*:?[ \t]+" + _PROSE_VALUE, v.told_passphrase,
       prefilter=r"(?i)passw(?:or)?d[^\r\n]{0,60}(?:updated|changed|set|reset)[ \t]+to[ \t]",
       group=1, needles=("assw", "ASSW", "asscode"),
       start=_at_literal(("passw", "passcode"), fold=True)),
    # A Secret's value decoded on the command line, on the line after the command
    # (kubectl get secret x -o jsonpath='{.data.password}' | base64 -d).
    _d("secret_assignment",
       r"(?i)\{\.data\.[\w.-]*(?:passw|pwd|secret|token|key)[\w.-]*\}['\"]?[ \t]*\|[ \t]*base64"
       r"[ \t]+(?:-d|--decode|-D)[^\n]*\r?\n[ \t]*(\S{6,})", v.secret_value_ok,
       prefilter=r"(?i)\{\.data\.[^}\r\n]*\}[^|\r\n]*\|[ \t]*base64", group=1,
       needles=("{.data.",)),
    # A login told as "user / password" with both quoted ("staging admin is `admin` /
    # `orbit!tibrO56`").
    _d("secret_assignment",
       r"(?i)\b(?:admin|root|user(?:name)?|login|creds?|credentials?|account)\b[^\n/]{0,30}?"
       r"[`'\"][\w.@+-]{2,40}[`'\"][ \t]*/[ \t]*[`'\"]([^\s`'\"/]{6,64})[`'\"]", v.told_password,
       prefilter=r"(?i)(?:admin|root|user|login|cred|account)[^\r\n]{0,80}[`'\"][ \t]*/"
                 r"[ \t]*[`'\"]",
       group=1, needles=("/",)),
    # An Azure storage account's keys as the CLI lists them: {"keyName": "key1", ...,
    # "value": "<88 characters>"}.
    _d("secret_assignment",
       r"\"keyName\"[ \t]*:[ \t]*\"[^\"\n]*\"[^{}]{0,200}?\"value\"[ \t]*:[ \t]*"
       r"\"([A-Za-z0-9+/]{86}==)\"", prefilter=r"\"keyName\"", group=1,
       needles=('"keyName"',), start=_at_literal(('"keyName"',))),
    # A password told with words between it and the verb ("the password I'm using right now
    # is X"): a password-shaped value only.
    _d("secret_assignment",
       # (a name in backticks among the words: "the temp password for the read replica user
       # `analyst_ro` is X")
       # ("If I did the password would be Tussock2018@")
       r"(?i)(?<![\w-])(?:password|passwd|passcode|passphrase)"
       r"(?:(?:,?[ \t]+(?:[\w']+|`[\w.@-]+`)){0,6}?"
       r"[ \t]+(?:is|was)|(?:,?[ \t]+[\w']+){0,6}?[ \t]+(?:would|should|will|might|could|may"
       r"|to)[ \t]+be|,[ \t]*it(?:'s|[ \t]+is))"
       r"[ \t]*:?[ \t]+" + _PROSE_VALUE, v.told_passphrase,
       prefilter=(r"(?i)passw(?:or)?d,?[ \t][^\r\n]{0,60}[ \t](?:is|was|be)[ \t]"
                  r"|passcode,?[ \t]|passphrase[ \t]|passw(?:or)?d,[ \t]*it"),
       group=1,
       needles=("assw", "ASSW", "asscode", "assphrase", "ASSPHRASE"),
       start=_at_literal(("passw", "passcode", "passphrase"), fold=True)),
    # ... and with no verb ("try my usual password Zebra!Lamp_u6emuT7"): a password-shaped
    # value that is not a placeholder.
    _d("secret_assignment",
       # (a certificate's passphrase too: "fac_8003629900011234.p12, passphrase Retina2022!")
       # (not a log line's next field: "field=password user_id=WK54524")
       r"(?i)(?<![\w-])(?:password|passwd|passphrase)[ \t]+(?![A-Za-z_]\w*=)"
       r"([^\s\"',;<>()\[\]{}]{8,64})(?![^\s\"',;<>])",
       v.told_password, prefilter=r"(?i)(?:passw(?:or)?d|passphrase)[ \t]+[^ \t\r\n]{8}", group=1,
       needles=("assw", "ASSW", "assphrase", "ASSPHRASE"),
       start=_at_literal(("passw", "passphrase"), fold=True)),
    # A password in brackets or quotes within the clause after the word ("the temporary
    # password you sent (X)", "the wifi password at the office is \"X\""), or set by someone
    # ("Password was reset to X").
    _d("secret_assignment",
       # (not Playwright's debug log: "pw:api navigating to \"https://...\"")
       r"(?i)(?<![\w-])(?:password|passwd|passcode|pw(?!:(?:api|browser|protocol|channel|test)))"
       r"\b[^\n.!?()\"“„«]{0,40}?[(\"“„«]"
       r"([^\s()\"“”„«»]{8,64})[)\"”“»]", v.told_passphrase,
       prefilter=r"(?i)pass(?:w(?:or)?d|code)[^\r\n]{0,40}[(\"~]|pw[^\r\n]{0,40}[(\"~]", group=1,
       needles=("assw", "ASSW", "asscode", "pw", "PW"),
       start=_at_literal(("passw", "passcode", "pw"), fold=True)),
    _d("secret_assignment",
       r"(?i)(?<![\w-])(?:password|passwd|passcode)(?:[ \t]+\w+){0,3}?[ \t]+(?:was[ \t]+)?"
       r"(?:reset|changed|set|updated)[ \t]+to[ \t]+" + _PROSE_VALUE, v.told_password,
       prefilter=r"(?i)passw(?:or)?d[^\r\n]{0,40}(?:reset|changed|set|updated)[ \t]+to[ \t]",
       group=1, needles=("assw", "ASSW"), start=_at_literal(("passw",), fold=True)),
    # "pw: X" in a message ("the shared test account is x@y.ch / pw: winter1990!").
    _d("secret_assignment",
       r"(?i)(?<![\w-])pw[ \t]*[:=][ \t]*([^\s\"',;<>]{6,64})(?![^\s\"',;<>])", v.told_password,
       prefilter=r"(?i)pw[ \t]*[:=]", group=1, needles=("pw", "PW", "Pw"),
       start=_at_literal(("pw",), fold=True)),
    # Recovery and backup codes, listed after their name ("recovery codes for the admin
    # account: 96i78-sqj3v rhxd2-jbtst", one per line after "Backup codes ...:").
    _d("secret_assignment",
       # (and as Polish, German, French and Spanish name them: "Kody zapasowe do
       # konta (każdy działa raz):")
       # (the Korean and Japanese names after any character: a CJK word runs into them,
       # "管理者アカウント用リカバリーコード")
       # (and a file's name: an infostealer's "github-recovery-codes.txt:")
       r"(?i)(?:(?<![\w-])(?:(?:recovery|backup|2fa|mfa|emergency)[ \t-]+"
       r"(?:verification[ \t]+)?codes?\b"
       # (Dutch's "herstelcodes")
       r"|herstelcodes?|kody[ \t]+(?:zapasowe"
       r"|odzyskiwania)|backup-codes|wiederherstellungscodes|sicherungscodes"
       r"|codes[ \t]+de[ \t]+(?:secours"
       r"|r[ée]cup[ée]ration)|c[óo]digos[ \t]+de[ \t]+(?:recupera(?:ci[óo]n|[çc][ãa]o)|respaldo)"
       # (Italian's, "Codici di recupero (conservali in un luogo sicuro):")
       r"|codici[ \t]+di[ \t]+(?:recupero|backup)"
       # (Slovenian's "Rezervne kode", Czech's and Slovak's "Záložní kódy", "záložné kódy")
       "|rezervne[ \t]+kode|z[\u00e1a]lo[\u017ez]n[\u00ed\u00e9ie][ \t]+k[\u00f3o]dy"
       # (Turkish's "yedek kodlarınız", Korean's 백업 코드)
       "|yedek[ \t]+kod\\w*"
       # (Swedish's, Norwegian's, Danish's and Finnish's: "Återställningskoder för ...:")
       "|[\u00e5a]terst[\u00e4a]llningskoder|gjenopprettingskoder|gendannelseskoder"
       "|palautuskoodit"
       # (Russian's "резервные коды", "коды восстановления")
       "|\u0440\u0435\u0437\u0435\u0440\u0432\u043d\\w*[ \t]+\u043a\u043e\u0434\\w*"
       "|\u043a\u043e\u0434\\w*[ \t]+\u0432\u043e\u0441\u0441\u0442\u0430\u043d\\w*)"
       # (Chinese's backup and recovery codes, 备用码, 恢复码, 备份码)
       "|\u5907\u7528\u7801|\u6062\u590d\u7801|\u5907\u4efd\u7801"
       "|\ubc31\uc5c5[ \t]*\ucf54\ub4dc"
       # (and Japanese's, バックアップコード, リカバリーコード)
       "|\u30d0\u30c3\u30af\u30a2\u30c3\u30d7\u30b3\u30fc\u30c9"
       "|\u30ea\u30ab\u30d0\u30ea\u30fc\u30b3\u30fc\u30c9"
       # (and a file of them an infostealer lists: "github-recovery-codes.txt:")
       r"|recovery[_-]codes\.txt)"
       # (or a sentence, then the codes numbered one a line, as Google's sheet prints them:
       # "Keep these backup codes somewhere safe.\n1. 5012 0379\n2. ...")
       # (a Markdown list's items too, "- t3u06-eo6ol", and its lines JSON-escaped, "\\n")
       r"[^\n:]{0,100}?(?::[ \t]*(?:\n|\\n)?|\.?[ \t]*(?:\n|\\n))"
       # (a blank line under the heading; each line a diff's added one too, "+")
       r"(?:\+?[ \t]*(?:\n|\\n))?"
       # (a sentence's line between: "Backup codes for x@y.de\nKeep these somewhere safe.\n",
       # "(keep these safe!)")
       # (or the account's address: "BACKUP CODES\nt.ramsbottom@gmail.com\n\n1. 0113 3559")
       # (two: "Keep these somewhere safe. Each code can be used once.\n(a@b.com)\n")
       r"(?:(?:[^\n:]{0,80}?[.:!)]|[\w.+-]+@[\w.-]+)[ \t]*(?:\n|\\n)(?:[ \t]*(?:\n|\\n))?){0,2}"
       # (and a Markdown code fence's opening: "```\na712a-a3637\n...")
       r"(?:```\w*[ \t]*(?:\n|\\n))?"
       r"((?:(?:(?<=\n)\+)?[ \t]*(?:(?:\d{1,2}[.)]|[*\u2022-])[ \t]+)?"
       # (each followed by a separator, "and" before the last, or the sentence's end:
       # "cpvvx-vxbj9, 2fmvl-4q6eh and rk4p4-tur0c.")
       # (or GitHub's and PyPI's hex codes: "cdd84f9651", "f9641166f45ecd47")
       # (or Auth0 Guardian's one code in capitals, "EEFFR8519WCK3XHTV6FDZY3B")
       # (or letters and digits in one run, "o72482tmyf")
       rf"(?:[a-z0-9]{{4,6}}(?:-[a-z0-9]{{4,6}}){{1,3}}|\d{{4}} \d{{4}}|\d{{8}}|[0-9a-f]{{10,16}}"
       # (and Okta's, two groups of five digits: "00218 86625")
       r"|(?=[a-z]*\d)(?=\d*[a-z])[a-z0-9]{8,12}|\d{5} \d{5}|(?-i:[A-Z0-9]{20,32})"
       # (and Synology's emergency codes, eight capitals, some with no digit: "LVQNRWBF")
       r"|(?-i:[A-Z0-9]{8}(?![A-Za-z0-9])))"
       rf"(?:[ \t,]+(?:{_AND}[ \t]+)?"
       r"|\n|\\n|$|(?=[.;)\uff08\u3002\uff09]))){1,16})",
       v.has_digit,
       prefilter=r"(?i)(?:recovery|backup|2fa|mfa|emergency)[ \t-]+(?:verification[ \t]+)?code"
                 r"|kody[ \t]+(?:zapasowe|odzyskiwania)"
                 r"|backup-codes|wiederherstellungscodes|sicherungscodes|codes[ \t]+de[ \t]"
                 r"|c[ao]digos[ \t]+de"
                 r"|yedek[ \t]+kod|codici[ \t]+di[ \t]|aa[ \t]*aa|aaa|herstelcode"
                 r"|rezervne[ \t]+kode|z.lo.n.[ \t]+k.dy"
                 r"|.terst.llningskoder|gjenopprettingskoder|gendannelseskoder|palautuskoodit",
       group=1, needles=("code", "Code", "CODE", "kody", "Kody", "KODY", "digos", "DIGOS", "kod",
                         "koodit",
                         "odici", "ODICI", "\u043a\u043e\u0434", "\u041a\u043e\u0434",
                         "\u7801",
                         "\u041a\u041e\u0414",
                         "KOD", "\ucf54\ub4dc", "\u30b3\u30fc\u30c9", "k\u00f3dy",
                         "K\u00d3DY"),
       start=_at_words(("recovery", "backup", "2fa", "mfa", "emergency", "kody", "herstelcode",
                        "wiederherstellungscodes",
                        "sicherungscodes",
                        "codes", "c\u00f3digos", "codigos", "codici", "yedek", "\ubc31\uc5c5",
                        "\u0440\u0435\u0437\u0435\u0440\u0432", "\u043a\u043e\u0434",
                        "\u5907\u7528", "\u6062\u590d", "\u5907\u4efd",
                        "\u30d0\u30c3\u30af", "\u30ea\u30ab\u30d0", "rezervne",
                        "z\u00e1lo", "zalo", "\u00e5terst\u00e4llningskoder",
                        "aterstallningskoder", "gjenopprettingskoder", "gendannelseskoder",
                        "palautuskoodit"))),
    # A one-time code, told in the languages messages are written in ("Ihr Bestätigungscode
    # lautet 982549", "验证码是636507", "Code reçu par SMS : 996 016"): six to eight digits.
    _d("secret_assignment",
       # (the word and its digits up to 40 characters apart: a bank's or a shop's name
       # between, "Код для входа в СберБанк Онлайн: 040891")
       # (not a company's code: "код ЄДРПОУ 42257545", "код ИНН"; nor a personal code's
       # first half, "Personas kods: 150388-*****", which the ids' detectors read)
       # (not digits inside a hex id, a trace's "cb754730b0...")
       # (not a record's id after its key: "otp.sent user_id=96693868")
       # (and one amount or a "3D" between: "Codul tau 3D Secure este 218388", "رمز التحقق
       # ... بمبلغ 250.00 درهم هو 154911")
       rf"(?ai)(?:{_OTP_WORDS})(?![ \t]+(?:{_COMPANY_CODES}))[^\n\d]{{0,40}}?"
       r"(?:(?<![\d.,])(?:\d{1,7}[.,]\d{2}|3-?d)(?![\d.,a-z])[^\n\d]{0,24}?)?"
       r"(?<![\da-z])(?<!id=)"
       r"(\d{3} \d{3}|\d{6,8})(?! ?\d)(?!-[\d*])(?![a-z])",
       prefilter=_OTP_PREFILTER, group=1, needles=_OTP_NEEDLES, digits=True,
       start=_at_words(_OTP_STARTS, 5)),
    # A short code (four or five digits too) after a phrase that can only name a one-time
    # one: a parcel locker's pickup code and a bank's confirmation code, as their SMS say it
    # ("Код получения: 4178", "Код отримання 2640", "Растау коды 5916", "Overovací kód 2277").
    _d("secret_assignment",
       r"(?ai)(?<![\w])(?:verification[ \t]+code|one[ -]time[ \t]+code|pickup[ \t]+code"
       # (a sign-in's: "Meta sent the login code 8355 to it", "the SMS code 4417")
       r"|(?:log-?in|sign-?in|sms|mfa|2fa)[ \t]+code|kode[ \t]+otp(?:[ \t]+(?:saya|anda|kamu))?"
       r"|(?:over|ov[eě][rř])ovac[ií][ \t]+k[oó]d|kod[ \t]+weryfikacyjny|jednokratni[ \t]+kod"
       r"|code[ \t]+de[ \t]+v[ée]rification|c[óo]digo[ \t]+de[ \t]+verificaci[óo]n"
       r"|bestätigungscode|doğrulama[ \t]+kodu(?:nuz|n|m)?"
       "|[\u041a\u043a]\u043e\u0434[ \t]+(?:\u043f\u043e\u043b\u0443\u0447\u0435\u043d\u0438\u044f"
       "|\u043e\u0442\u0440\u0438\u043c\u0430\u043d\u043d\u044f"
       "|\u043f\u0456\u0434\u0442\u0432\u0435\u0440\u0434\u0436\u0435\u043d\u043d\u044f"
       "|\u043f\u043e\u0434\u0442\u0432\u0435\u0440\u0436\u0434\u0435\u043d\u0438\u044f)"
       "|[\u0420\u0440]\u0430\u0441\u0442\u0430\u0443[ \t]+\u043a\u043e\u0434\u044b"
       # (a marketplace's pickup code and a courier's: "код для получения 6865", "Код для
       # курьера: 2872", "назовите код 1735")
       "|[\u041a\u043a]\u043e\u0434[ \t]+\u0434\u043b\u044f[ \t]+"
       "(?:\u043f\u043e\u043b\u0443\u0447\u0435\u043d\u0438\u044f|\u043a\u0443\u0440\u044c\u0435\u0440\u0430)"
       "|\u043d\u0430\u0437\u043e\u0432\u0438\u0442\u0435[ \t]+\u043a\u043e\u0434)"
       r"[ \t]*(?:[:\uff1a=\u2014\u2013-]|is|je|es|est|ist|lautet|\u0435)?[ \t]*"
       rf"(\d{{4,8}})(?![\d.,:/-]?\d){_CODE_UNITS}",
       prefilter=r"(?i)(?:code|c[ao]digo|k[a]d|kod|aa)[^\r\n]{0,40}\d{4}", group=1, digits=True,
       gate=("(?i:verification|one.time|pickup|ovac|weryfikac|jednokratni|rification|"
             "verificaci|bestätigungs|doğrulama|\u043a\u043e\u0434|log-?in|sign-?in|sms|mfa"
             "|2fa|kode)"),
       start=_at_words(("verification", "one", "pickup", "over", "ov\u011b", "kod", "jednokratni",
                        "log", "sign", "sms", "mfa", "2fa",
                        "code", "c\u00f3digo", "codigo", "best\u00e4tigungscode", "do\u011frulama",
                        "\u043a\u043e\u0434", "\u0440\u0430\u0441\u0442\u0430\u0443",
                        "\u043d\u0430\u0437\u043e\u0432"))),
    # ... and in the scripts of South Asia, the Middle East and Japan: a login's, an
    # activation's or a verification's code, a one-time password, four to eight digits within
    # its clause ("کد ورود شما به اسنپ: ۰۵۵۵۶", "آپ کا JazzCash تصدیقی کوڈ 8856", "bKash
    # ভেরিফিকেশন কোড ১০৩৩০৯", "رمز كريم الخاص بك هو 6543", "ワンタイムパスワード：７４０６９０").
    _d("secret_assignment",
       "(?i)(?:" + "|".join(_OTP_PHRASES_OF_SCRIPTS)
       + r"|\u0631\u0645\u0632[^\n\d]{0,30}?\u0647\u0648|3d[ \t]+secure[ \t]+[şs]ifre\w*)"
       r"[^\n\d]{0,40}?(?<!\d)(\d{4,8})(?![\d*])",
       prefilter=r"(?i)(?:aa|3d[ \t]+secure)[^\r\n]{0,72}\d{4}", group=1, digits=True,
       start=_at_words((*_OTP_PHRASES_OF_SCRIPTS, "\u0631\u0645\u0632", "3d secure"))),
    # ... a one-time code first, the word for it after, as an SMS opens ("58497 आपका PhonePe
    # OTP है", "【美团】863859（登录验证码）"): at the message's start or after its sender's tag.
    _d("secret_assignment",
       r"(?:^|(?<=[\n\]\u3011>]))[ \t]*(\d{4,8})(?=[^\d\n]{0,40}?(?:(?-i:OTP)|\u9a8c\u8bc1\u7801"
       r"|\u9a57\u8b49\u78bc|\u6821\u9a8c\u7801|\u8a8d\u8a3c\u30b3\u30fc\u30c9|\uc778\uc99d\ubc88\ud638"
       r"|(?i:verification code|security code|login code)))",
       prefilter=r"(?:^|[\n\]>~])[ \t]*\d{4,8}[^\d\r\n]{0,40}"
                 r"(?:OTP|aa|(?i:verification code|security code|login code))",
       group=1, digits=True, start=_at_class(r"\d")),
    # A German bank's TAN or login code told after what it is for ("Ihre mobileTAN für die
    # Überweisung über 1.159,98 EUR an IBAN ... lautet 257053", "Ihr Code für das Login lautet
    # 28 01 47", "Ihr TAN lautet ET345G").
    _d("secret_assignment",
       r"(?ai)(?<![a-z])(?:(?:mobile|sms|push|photo|chip|m)?tan|code|einmalcode)(?![a-z])"
       # (after a colon too, and in groups: "Ihr Aktivierungs-Code für ELSTER lautet: 5CKS-...")
       r"[^\n]{0,120}?(?<![a-z])lautet:?[ \t]+"
       r"(\d{2} \d{2} \d{2}|\d{3} \d{3}|[A-Z0-9]{4}(?:-[A-Z0-9]{4}){1,3}|[A-Z0-9]{4,8})(?![\w-])",
       v.has_digit, prefilter=r"(?i)(?:tan|code)[^\r\n]{0,120}lautet:?[ \t]+[A-Z0-9]",
       group=1, needles=("lautet",), start=_at_words(("tan", "code", "einmalcode"), 6)),
    # ... and as an SMS gives it with no word for what kind of code: "Your code 483241 expires
    # in 5 minutes", "Code 483241 to confirm EUR 39.96", "Use code 483241 to sign in". Said
    # to the one who uses it, or with what it is for; "error code 100234" is neither.
    _d("secret_assignment",
       r"(?ai)(?:(?<=your )|(?<=use )|(?<=enter )"
       r"|(?<![\w-])(?<!error )(?<!promo )(?<!coupon )(?<!status )"
       r"(?=code[ \t]*[:#]?[ \t]*\d+[ \t]+"
       r"(?:to[ \t]+(?:confirm|verify|log|sign|complete|approve|authori[sz]e|reset)"
       r"|expires|is[ \t]+valid|valid[ \t]+for|for[ \t]+(?:login|verification))\b))"
       r"code[ \t]*[:#]?[ \t]*(\d{6,8})(?![\d.,/-]?\d)",
       prefilter=r"(?i)code[ \t]*[:#]?[ \t]*\d{6}", group=1, needles=("ode", "ODE"), digits=True,
       start=_at_words(("code",))),
    # An e-Transfer's security answer as the notice gives it ("Security question: ...?
    # Answer (shared by sender): X", "Question de sécurité : ...? Réponse : X"), and an access
    # or security code of letters and digits as a tax agency's letter gives it ("Your NETFILE
    # access code ... is H04FE6AI", "Votre code de sécurité de l'ARC est : IE0EZM64").
    _d("secret_assignment",
       r"(?i)(?:security[ \t]+question|question[ \t]+de[ \t]+s[ée]curit[ée])[^\n]{0,80}?"
       r"(?:answer|r[ée]ponse)(?:[ \t]*\([^)\n]{0,30}\))?[ \t]*:[ \t]*([^\s.,;]{3,40})",
       v.secret_value_ok, prefilter=r"(?i)(?:security[ \t]+question|question[ \t]+de[ \t]+s)",
       group=1, needles=("uestion", "UESTION")),
    _d("secret_assignment",
       # (an e-signature envelope's "enter the access code 3VAJM8", a survey's Dutch
       # "toegangscode", a guest network's "Código de acceso: 8YS4-DG4X")
       r"(?i)(?:access[ \t]+code|security[ \t]+code|code[ \t]+de[ \t]+s[ée]curit[ée]"
       r"|toegangscode|zugangscode|c[óo]digo[ \t]+de[ \t]+ac?ces?so|code[ \t]+d'acc[èe]s"
       r"|codice[ \t]+di[ \t]+accesso)[^\n.]{0,40}?"
       r"(?:(?:is|est|ist|es|é)[ \t]*:?|:)?[ \t]*([A-Z0-9]{6,10}|[A-Z0-9]{3,5}-[A-Z0-9]{3,5})"
       r"(?![\w-])", v.letters_and_digits,
       prefilter=(r"(?i)(?:access[ \t]+code|security[ \t]+code|code[ \t]+de[ \t]+s|toegangscode"
                  r"|zugangscode|digo[ \t]+de[ \t]+ac|code[ \t]+d.acc|codice[ \t]+di[ \t]+acc)"),
       group=1, needles=("code", "Code", "CODE", "digo", "DIGO")),
    # A mobile number's porting code (the UK's PAC and STAC: three letters and six digits, or
    # six digits and three letters) and a right-to-rent or immigration share code.
    _d("secret_assignment",
       r"(?<![A-Za-z])(?:N-)?(?:PAC|STAC)(?:[ \t]+(?:code|is))*[ \t]*:?[ \t]*"
       r"([A-Z]{3}\d{6}|\d{6}[A-Z]{3})"
       # (not a template's "AAA000000")
       r"(?![\w-])", _not_zeros, prefilter=r"PAC|STAC", group=1, needles=("PAC", "STAC")),
    _d("secret_assignment",
       r"(?i)share[ \t]+code(?:[ \t]+(?:is|of))?[ \t]*:?[ \t]*"
       r"([A-Z0-9]{3} ?[A-Z0-9]{3} ?[A-Z0-9]{3})"
       r"(?![\w])", v.has_digit, prefilter=r"(?i)share[ \t]+code", group=1,
       needles=("hare code", "HARE CODE")),
    # (and a right-to-work service's log, letters alone too: "share_code=RRR LZA NQS")
    _d("secret_assignment",
       r"(?<![\w-])share_code=(?-i:([A-Z0-9]{3} ?[A-Z0-9]{3} ?[A-Z0-9]{3}))(?![\w])",
       v.not_a_code_stand_in, prefilter=r"share_code=", group=1, needles=("share_code=",)),
    # Kavenegar's API key, the first segment of its API's path; an e-prescription's access
    # code (gematik's E-Rezept: /Task/<id>/$accept?ac=<64 hex>), which fetches the
    # prescription.
    _d("api_key", r"api\.kavenegar\.com/v1/([A-Za-z0-9]{40,})/",
       prefilter=r"api\.kavenegar\.com/v1/", group=1, needles=("kavenegar",)),
    _d("secret_assignment",
       r"/\$(?:accept|reject|close|abort)\?(?:[^\s&#]*&)*ac=([0-9a-f]{64})(?![0-9a-f])",
       prefilter=r"/\$(?:accept|reject|close|abort)\?[^\s#]*ac=[0-9a-f]{64}",
       group=1, needles=("ac=",)),
    # A password told in Hinglish ("wifi ka password toranj545 hai"), and a PIN that is a
    # password (a certificate's PIN in an INI file: "pin = @QdJqNWjFO").
    _d("secret_assignment",
       r"(?i)(?<![a-z])password[ \t]+([^\s\"',;<>]{6,64})[ \t]+(?:hai|hain|he|h)(?![a-z])",
       lambda value: v.told_password(value) or v.letters_and_digits(value),
       prefilter=r"(?i)password[ \t]+[^\s]{6}[^\r\n]{0,60}h", group=1,
       needles=("assword", "ASSWORD"), start=_at_literal(("password",), fold=True)),
    _d("secret_assignment",
       r"(?i)(?<![\w-])pin[ \t]*[:=][ \t]*([^\s\"',;<>]{6,64})(?![^\s\"',;<>])",
       lambda value: v.told_password(value) or v.scrambled_password_ok(value),
       prefilter=r"(?i)pin[ \t]*[:=]", group=1, needles=("pin", "PIN", "Pin"),
       start=_at_literal(("pin",), fold=True)),
    # A password in a 1C:Enterprise connection string inside a VBScript or batch string,
    # its quotes doubled: Srvr=""srv"";Ref=""base"";Usr=""user"";Pwd=""X"";
    _d("secret_assignment", r"(?i)(?<![\w])pwd=\"\"([^\"\n]+)\"\"", v.secret_value_ok,
       prefilter=r"(?i)pwd=\"\"[^\"\r\n]", group=1, needles=('=""',),
       start=_at_literal(("pwd=",), fold=True)),
    # A credential set as a request's header in code (OkHttp's .header("Api-Key", "..."),
    # .addHeader, XMLHttpRequest's setRequestHeader): under a key's name, a UUID is the key.
    _d("secret_assignment",
       r"(?i)\.(?:add|set)?(?:request)?header\([ \t]*\\?[\"']"
       r"(?:x-)?[\w-]*(?:api[-_]?key|apikey|token|secret|passw(?:or)?d|auth[-_]?key|access[-_]?key)"
       r"\\?[\"'][ \t]*,[ \t]*\\?[\"']([^\"'\s\\]{8,})\\?[\"']", v.secret_value_ok,
       prefilter=r"(?i)header\([ \t]*\\?[\"'][\w-]*(?:api[-_]?key|apikey|token|secret|passw"
                 r"|auth[-_]?key|access[-_]?key)",
       group=1, needles=("eader(",), start=_at_literal(("header(",), 11, fold=True)),
    # Bitrix24's inbound webhook: its secret is the path's code after the user's id
    # (https://portal.bitrix24.ru/rest/14/<code>/).
    _d("api_key", r"(?i)\.bitrix24\.[a-z.]{2,6}/rest/\d+/([a-z0-9]{16})(?![a-z0-9])", v.has_digit,
       prefilter=r"(?i)\.bitrix24\.[a-z.]{2,6}/rest/\d+/[a-z0-9]{16}", group=1,
       needles=("bitrix24", "BITRIX24", "Bitrix24")),
    # A quoted password, then the word for it ("„X“ – das ist mein neues Passwort", "'X' is
    # my new password"): a password-shaped value within the clause before the word.
    _d("secret_assignment",
       r"(?ai)[„\"“'«「『]([^\s„“”\"'«»「」『』]{8,64})[“”\"'»」』][^\n.!?。！？\"{}]{0,30}?"
       # the word, not a variable's name ("HOSTNAME=x", "DB_PASSWORD=...") or an argument's
       # (URL.create("postgresql+psycopg2", username=..., password=...))
       # (nor a network's name before its masked or hidden password: 'connecting to "Workshop-2.4"
       # (password: ********)', 'Wi-Fi "Livebox-7A21" (senha oculta)')
       rf"(?<![_A-Za-z])(?:{_PASSWORD_WORDS}|password)(?!\w*[ \t]*=)"
       r"(?![ \t]*:?[ \t]*(?:\*{3,}|hidden|oculta|oculto|masqu|versteckt|verborgen|nascosta"
       r"|redacted))", v.password_like,
       prefilter=r"(?i)[~\"'][^\r\n]{8,100}(?:passw|kennwort|de passe|contrase|senha|wachtwoord"
                 r"|has[al]o|sandi|aa)", group=1, needles=_PASSWORD_NEEDLES),
    # A secret key printed without "=" (aws configure list, env dumps).
    _d("secret_assignment",
       r"(?i)(?:secret[_ -]?access[_ -]?key|secret[_-]?key)[\"']?(?:[ \t]*\[[^\]\n]*\])?"
       r"[ \t]*:?[ \t]+([A-Za-z0-9/+=]{20,})",
       v.tokenish, prefilter=r"(?i)secret[_ -]?(?:access[_ -]?)?key", group=1,
       needles=("ecret", "ECRET"), start=_at_literal(("secret",), fold=True),
       starts=((r"(?i)secret", 6),)),
    # An AWS secret key's 40 characters where its name is in the same text: a notebook prints
    # os.environ['AWS_SECRET_ACCESS_KEY'] and, below it, the value.
    _d("secret_assignment",
       # (named in French, Spanish, Portuguese, Italian or German too: "la clé secrète AWS
       # c'est ...", "la clave secreta es ...")
       r"(?is)(?:secret[_ -]?access[_ -]?key|cl[ée] secr[èe]te|clave secreta|chave secreta"
       r"|chiave segreta|geheimer? (?:zugriffs)?schl[üu]ssel)"
       r".{0,200}?(?<![A-Za-z0-9/+=])([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])", v.aws_secret_like,
       prefilter=(r"(?i)secret[_ -]?access[_ -]?key|cl[ea] secr[ea]te|c(?:lav|hav)e secreta"
                  r"|chiave segreta|geheimer? (?:zugriffs)?schl(?:a|u|ue)ssel"),
       group=1, needles=("ccess", "CCESS", "secr", "SECR", "Secr", "segreta", "SEGRETA",
                         "chl", "CHL")),
    # .pgpass lines: host:port:database:user:password.
    _d("secret_assignment",
       # (a colon in the password is escaped, "\:": an unescaped one makes it no .pgpass line)
       r"(?m)^[\w.*-]+:(?:\d+|\*):[\w.*-]+:[\w.*-]+:((?:[^\s:\\]|\\.){4,})$", v.has_letter,
       prefilter=r"[A-Za-z0-9_.*-]:(?:[0-9]+|\*):[A-Za-z0-9_.*-]+:[A-Za-z0-9_.*-]+:[^ \t\r\n]",
       group=1, needles=(":",)),
    # The secret key printed beside its access key id ("AKIA... / secret", "AKIA...:secret").
    _d("secret_assignment",
       # (or a word for it between: "access key AKIA..., secret ...")
       r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}[\s:/,|;\"']{1,5}"
       r"(?:(?i:secret(?:[ _-]access)?(?:[ _-]key)?)[\s:=\"']{1,4})?([A-Za-z0-9/+]{40})"
       r"(?![A-Za-z0-9/+=])", v.tokenish,
       prefilter=r"(?:AKIA|ASIA)[A-Z0-9]{16}[ \t\r\n:/,|;\"']{1,5}[A-Za-z0-9/+]{6}", group=1,
       needles=("AKIA", "ASIA"), start=_at_literal(("AKIA", "ASIA"))),
    # Passwords in SQL (Postgres: WITH PASSWORD '...', MySQL: IDENTIFIED BY '...'), as
    # statement logs print them.
    # (ClickHouse and MySQL name the plugin first: IDENTIFIED WITH sha256_password BY '...')
    _d("secret_assignment",
       # (a quote inside it doubled, as SQL writes it, or escaped, as MySQL also takes it)
       r"(?i)(?<![\w-])(?:password|identified(?:\s+with\s+\w+)?\s+by)\s+(['\"])"
       r"((?:(?!\1)[^\\\n]|\1\1|\\[^\n])+)\1",
       # (not a log's mask: Airflow's "password '***'")
       lambda value: not v.stands_in(value),
       prefilter=r"(?i)(?:password|identified[ \t\r\n]+(?:with[ \t\r\n]+\w+[ \t\r\n]+)?by)"
                 r"[ \t\r\n]+['\"]", group=2,
       needles=("assword", "ASSWORD", "dentified", "DENTIFIED"),
       start=_at_literal(("password", "identified"), fold=True)),
    # Redis' MONITOR prints each argument quoted: "CONFIG" "SET" "requirepass" "...",
    # "AUTH" "...", "AUTH" "user" "...", "masterauth" "..."
    _d("secret_assignment",
       r"(?i)\\?\"(?:requirepass|masterauth|auth(?:\\?\"[ \t]+\\?\"[^\"\\\s]+)?)\\?\"[ \t]+"
       r"\\?\"([^\"\\\s]{4,})\\?\"",
       v.secret_value_ok, prefilter=r"(?i)\"(?:requirepass|masterauth|auth)\\?\"[ \t]+\\?\"",
       group=1, needles=("requirepass", "masterauth", "AUTH", "auth"),
       start=_at_literal(('"requirepass', '"masterauth', '"auth'), fold=True)),
    # A debug page's table of a form's fields, a name and its repr a tab apart (Django:
    # "password1\t'...'")
    _d("secret_assignment",
       r"(?im)^(?:password\d?|passwd|secret|api_key|token|access_token)\t'([^'\n]{4,})'$",
       v.secret_value_ok, prefilter=r"(?i)(?:password|passwd|secret|api_key|token)\d?\t'",
       group=1, needles=("\t'",), start=_at_literal(("password", "passwd", "secret", "api_key",
                                                      "token", "access_token"), fold=True)),
    # A technician's "router admin pw X": "pw" or "pwd", then a password-shaped word.
    _d("secret_assignment",
       # (not a path after the shell's pwd)
       r"(?i)(?<![\w/.$-])pwd?[ \t]+(?:is[ \t]+)?(?![/~.])([^\s'\",;()<>`]{8,64})(?<![.:])",
       v.password_like, prefilter=r"(?i)pwd?[ \t]+[^\s'\",;]{8}", group=1,
       needles=("pw ", "PW ", "Pw ", "pwd ", "PWD ", "pw\t", "pwd\t"),
       start=_at_literal(("pw",), fold=True)),
    # A log's "auth failed for bob with pass \"X\"": a password-shaped value only.
    _d("secret_assignment", r"(?i)(?<![\w-])(?:pass|pwd?)\s+(['\"])([^'\"\n]{6,})\1",
       v.password_like, prefilter=r"(?i)(?:pass|pwd?)[ \t\r\n]+['\"]", group=2,
       needles=("pass", "PASS", "Pass", "pw", "PW", "Pw"),
       start=_at_literal(("pass", "pw"), fold=True)),
    # Told in prose: "the admin password is hunter2X!", "my api key was 9f8e...". Only a
    # token-shaped value (a digit, or mixed case): "the password is wrong" stays.
    # (and as Italian and Spanish say it: "la password fosse ...", "la contraseña era ...")
    # (and what it is for, and "now": "das Webhook-Secret für Calendly ist jetzt X")
    _told(r"(?:\s+(?:for|f[üu]r|pour|para|per|von)\s+[\w.-]+)?"
          r"\s+(?:is|was|fosse|era|fue|ist|war|lautete?)(?:\s+(?:now|jetzt|nun|ahora|agora|ora))?"
          r"\s*:?\s+"
          + _PROSE_VALUE,
          r"(?:[ \t]+(?:for|f.r|pour|para|per|von)[ \t]+[\w.-]+)?[ \t\r\n]+"
          r"(?:is|was|fosse|era|fue|ist|war|lautet)[ \t\r\n:e]", v.tokenish,
          pwd=True, compound=True),
    # "I changed my password to X": a password-shaped value only.
    _told(r"\s+to\s+" + _PROSE_VALUE, r"[ \t\r\n]+to[ \t\r\n]", v.password_like, pwd=True),
    # ... and with no verb: "twilio auth token 9f86d081884c7d65...": a long token only ("pwd"
    # then is the shell's command, and a path follows it).
    # (not the next field of a log line: ".../oauth2/v2.0/token trace_id=3c49...")
    # (or in parentheses: "I swapped in a fresh token (VMtx...) — the old one ...")
    _told(r"[ \t]+(?:\((?=[A-Za-z0-9/+_=.-]{16,}\)))?(?![A-Za-z_][\w.-]*=[^=\s])"
          r"([A-Za-z0-9/+_=.-]{16,})"
          r"(?![^\s\"',;<>，。、；：）」』)])",
          r"[ \t]+\(?[A-Za-z0-9/+_=.-]{16}",
          v.strong_token, pwd=False),
    # A session's cookie told in prose ("using the leaked session cookie j0crftdt30n..."); a
    # session's id in a log is often a record's (a VPN's "Session id <uuid>"), and stays.
    _d("secret_assignment",
       r"(?i)(?<![\w-])session[ _-]?cookie[ \t]+(?:(?:is|was)[ \t]+|[:=][ \t]*)?"
       r"([A-Za-z0-9%._~+/=-]{16,})(?![^\s\"',;<>)])",
       v.strong_token, prefilter=r"(?i)session[ _-]?cookie[ \t]", group=1,
       needles=("ession", "ESSION"), start=_at_literal(("session",), fold=True)),
    # A key rotated, told in a chat message ("rotated key, new value 398178dfab5c...", "Token
    # rotated. New value: X"): the key word just before, then "new value" and a long token.
    _d("secret_assignment",
       r"(?i)(?<![\w-])(?:key|secret|token|password|credential)s?(?![\w-])[^\n;!?]{0,24}?"
       r"(?<![\w-])new[ \t]+value[ \t]*:?[ \t]+([A-Za-z0-9/+_=.-]{16,})(?![^\s\"',;<>])",
       v.strong_token, prefilter=r"(?i)new[ \t]+value[ \t:]", group=1,
       needles=("new value", "New value", "NEW VALUE"),
       start=_at_literal(("key", "secret", "token", "password", "credential"), fold=True)),
    # A password told in another language ("Das Passwort lautet „X“", "密码：X", "パスワード「X」"),
    # or after a login ("Test-Login ist admin / X"): a token with a letter and a digit, and
    # mixed case or a symbol, within the clause.
    _d("secret_assignment",
       # (a full stop inside a word is no clause's end: "la contraseña de la e.firma es X")
       # (not a link's path: ".../passwort/neu?key=...")
       # (nor a note that names the vault's item that keeps it: "Wachtwoord ... staat in de
       # kluis (item \"KLANT-441\")")
       # (nor a URL's placeholder, "postgres://usuario:contraseña@localhost:5432/tienda")
       rf"(?ai)(?<!/)(?:{_PASSWORD_WORDS})(?!@)"
       r"(?![^\n.!?]{0,80}?(?:kluis|vault|tresor|coffre|safe)[ \t]+\((?:item|entry|eintrag"
       r"|entr[ée]e)\b)"
       r"(?:[^\n.!?。！？]|\.(?=[a-z])){0,80}?"
       r"[ \t\u3000:：=«»„“”\"'「」『』—–/是はが为為는은]"  # a separator, or CJK's "is"
       # (not what is named beside it, "Passwort oder 2FA-Codes", "password or PIN")
       # (not Swahili's "ni" nor Romanian's "e", which say "is")
       r"(?<! or )(?<! oder )(?<! ou )(?<! lub )(?<! and )(?<! und )(?<! et )"
       r"(?<! ili )(?<! veya )(?<! atau )(?<! y )"
       # (not the next field of a log line: "... para el usuario id=4412", "パスワード再設定
       # リクエスト user_id=<uuid>")
       r"(?![A-Za-z_]\w*=\d+(?![^\s,;]))(?![A-Za-z_]*(?:_id|Id|ID)=)"
       # a letter: ASCII mode's \w misses Latin's accents, Greek, Cyrillic, Hebrew, Arabic,
       # the Indic scripts and Thai ("كلمةالسر2024!")
       rf"((?=[^{_TOLD_STOP}]*\d)(?=[^{_TOLD_STOP}]*[A-Za-z\u00c0-\u024f\u0370-\u04ff"
       r"\u0590-\u06ff\u0900-\u0dff\u0e00-\u0e7f])"
       rf"[^{_TOLD_STOP}]{{6,64}})",
       v.told_passphrase, prefilter=_PASSWORD_PREFILTER, group=1,
       needles=_PASSWORD_NEEDLES, start=_at_words(_PASSWORD_STARTS, 2)),
    # A built-in account's password after its name and a slash, as handover notes and
    # README files write them ("NAS (Synology): admin / khswpLj9Gi1iuf", "VENUS admin
    # login: Administrator / ^Iblni=PhMsLewIt", "root/Tr0ub4dor&3")
    _d("secret_assignment",
       # (a Windows account's domain or machine before it: ".\itadmin / Falcon-Granite-77";
       # brackets inside the password, not at its end: "root / P7[j-Nl4AB4o%c~mB@j")
       r"(?i)(?<![\w/.@-])(?:[\w.-]{1,30}\\)?[a-z]{0,8}?(?:admin|administrator|root|superuser"
       r"|supervisor|sysadmin|manager|operator|service|maintenance)[ \t]*/[ \t]*"
       r"((?-i:[^\s/,;\"']{5,63}[^\s/,;<>\"'()\[\]]))(?![^\s,;<>\"')\]])",
       v.slashed_password, prefilter=r"(?i)(?:admin|administrator|root|superuser|visor|manager|"
       r"operator|service|maintenance)[ \t]*/[ \t]*[^\s/]{6}", group=1, needles=("/",)),
    # A password typed at a login's user prompt, as sshd logs the attempt ("Failed password
    # for invalid user Dgyot7427!Ma from ...", "Invalid user x@nzAc3twVVNF from ...")
    _d("secret_assignment",
       r"(?<![\w-])(?:[Ii]nvalid|[Ii]llegal) user ([^\s]{6,64})"
       r"(?= (?:from )?[0-9A-Fa-f:.]{3,45} port\b| from )",
       v.password_as_user, prefilter=r"(?:nvalid|llegal) user [^\s]{6,64} ", group=1,
       needles=("nvalid user", "llegal user")),
    # ... and as a JSON object's key in those languages ({"пароль":"kalyna_10"}, its key
    # \u-escaped in the raw body): an assignment, read as "password" is.
    _d("secret_assignment",
       rf"(?ai)(?<=\")(?:{_PASSWORD_WORDS})\\*\"[ \t]*:[ \t]*\\*\"([^\"\\\n]{{4,128}})\\*\"",
       v.secret_value_ok, prefilter=_PASSWORD_PREFILTER, group=1, needles=_PASSWORD_NEEDLES,
       start=_at_words(_PASSWORD_STARTS, 2)),
    # A phone number told in prose, in the groupings national numbers are written in
    # ("llamarme al 680 05 60 64", "手机号是137-0222-6912"): 9 to 12 digits after a word for a
    # phone within the clause.
    _d("phone",
       # (not an id a word for a phone names: Teams' "Phone Conference ID: 875 358 208#")
       # (a dot before a word and its colon too: "Tel. oficina: (55) 9985 4100")
       # (a label's index too: "Tél 2: 0699023394")
       # (and Armenian's full stop after its abbreviation: "Հեռ.՝ 099 04 96 40")
       rf"(?ai)(?:{_PHONE_WORDS})(?:[^\n\d.!?。！？(]|\.(?=[\w:\u055d]|[ \t]?[\d(+]"
       r"|[ \t][a-z]{3,12}[ \t]*:)|(?<=[ \t])\d(?=:)){0,30}?(?<!\d)"
       r"(?<!id: )(?<!id:)(?<!id )(?<![A-Za-z])"  # (not an id's digits after its letters)
       r"(?<![A-Za-z]/)"  # (nor a path's or an invoice number's part: "INV/20250831/MPL")
       r"(?<!(?-i:[A-Z])-)"  # (nor after its letters and a dash: "wegen SO-2024-442462")
       # (nor a dotted path's part: a DOI's journal, "doi:10.7039/j.cell.4562.84634")
       r"(?<!\.cell\.)(?<!\.tel\.)(?<!\.phone\.)(?<!\.mobile\.)"
       # (German's slash between spaces too: "0176 / 449 404 77")
       # (and none after the area code's bracket: "ligue (61)2738-3619")
       r"\(?(\d{8,13}|(?:\d{1,2}[ .-]?)?(?:\(\d{1,5}\)|\d{1,5})"
       r"(?:(?: / | - |[ ./-]|(?<=\)))\d{2,9}){1,4})"
       # (nor a digest's first digits: "git_sha": "065943807f948fc6...", nor a pod's name's
       # hash after a phone word: "pod=sms-gw-743992302d-0wgka")
       r"(?!\d|[./-]\d|[a-fA-F][0-9a-fA-F]|[a-z0-9]{0,3}-[a-z0-9]{5}(?![\w-]))",
       v.told_phone_ok,
       prefilter=_PHONE_PREFILTER, group=1, needles=_PHONE_NEEDLES,
       joined=_joined_digits(9), joined_prefilter=_PHONE_PREFILTER,
       start=_at_words(_PHONE_STARTS, 2),
       # (the joined pass rescans only the runs of digits _joined_digits names: a date in
       # a CSV after a "PHONE" column, "2024-08-29 17:38", is not read as 2024 08 29 17)
       starts=_PHONE_WORD_STARTS, joined_starts=(), anchors=_phone_word_anchors),
    # National numbers with the area code in parentheses: Turkey's "0 (532) 772 33 95",
    # Japan's "06(3144)9376", Germany's "(0211) 3300 920".
    _d("phone", _edge(r"A-Za-z0-9.+(")
       + r"(?:0 ?\(\d{3}\) ?\d{3} \d{2} \d{2}|0\d{1,4}\(\d{1,4}\)\d{4}"
       r"|\(0\d{1,5}\) ?\d{2,8}(?: \d{2,6})?)(?![A-Za-z0-9)]|\.\d)",
       v.national_ok,
       prefilter=r"0 ?\(\d{3}\) ?\d{3} \d{2} \d{2}|0\d{1,4}\(\d{1,4}\)\d{4}|\(0\d{1,5}\) ?\d{2}",
       needles=("(",), digits=True, start=_at_literal(("0", "(")),
       joined=_joined_digits(10, "0"),
       joined_prefilter=r"0[ _-]?\(\d{3}\)[ _-]?\d{3}[ _-]\d{2}[ _-]\d{2}"
                        r"|0\d{1,4}\(\d{1,4}\)\d{4}|\(0\d{1,5}\)[ _-]?\d{2}"),
    # A Russian mobile number with its trunk 8, as Russia writes it: "8 (922) 073-81-52" (or
    # its groups spaced: the joined reading reads them so).
    _d("phone", r"(?<![\w+(-])8[ -]?\(9\d{2}\)[ -]?\d{3}[ -]\d{2}[ -]\d{2}(?![\w-])",
       prefilter=r"8[ -]?\(9\d{2}\)[ -]?\d{3}[ -]\d{2}[ -]\d{2}", needles=("(",), digits=True,
       start=_at_literal(("8",)), joined=_joined_digits(11),
       joined_prefilter=r"8[ _-]?\(9\d{2}\)[ _-]?\d{3}[ _-]\d{2}[ _-]\d{2}"),
    # A Brazilian mobile number as Brazil writes it: "(21) 92408-6939" (or "(21) 92408 6939").
    _d("phone", r"(?<![\w(])\(\d{2}\) ?9\d{4}[ -]\d{4}(?![\w-])",
       prefilter=r"\(\d{2}\) ?9\d{4}[ -]\d{4}",
       needles=("(",), digits=True, start=_at_literal(("(",)), joined=_nothing_joined,
       joined_prefilter=r"\(\d{2}\)[ _-]?9\d{4}[ _-]\d{4}"),
    # A WhatsApp link's number (https://wa.me/447700912345).
    _d("phone", r"(?i)(?<![\w.-])wa\.me/(\d{8,15})(?![\d])", prefilter=r"(?i)wa\.me/\d{8}",
       group=1, needles=("wa.me/",), start=_at_literal(("wa.me/",), fold=True),
       joined=_nothing_joined, joined_prefilter=r"(?i)wa\.me/\d{8}"),
    # A tel: link's number (href="tel:01763807693").
    # Joiners read as themselves or as spaces give the same matches: the joined pass has
    # nothing to rescan.
    _d("phone", r"(?i)(?<![A-Za-z0-9])tel:(\+?[\d(][\d ()._-]{5,20}\d)(?![\d])", v.phone_link_ok,
       prefilter=r"(?i)tel:\+?[0-9(]", group=1, needles=("tel:", "TEL:", "Tel:"),
       start=_at_literal(("tel:",), fold=True), joined=_nothing_joined,
       joined_prefilter=r"(?i)tel:\+?[0-9(]"),
    # ... and in the languages whose verb comes last, the number first ("92006 99787 पर कॉल
    # करें", "090-1234-5678に電話して", "010-1234-5678로 전화"): a word for calling right after.
    _d("phone",
       r"(?a)(?<![\d.])(\d{2,5}(?:[ .-]\d{2,5}){1,4}|\d{9,12})(?![\d])[^\n\d.!?。！？A-Za-z]{0,8}?"
       rf"(?:{_CALL_AFTER})", lambda s: 9 <= len(v.digits(s)) <= 12,
       prefilter=_CALL_AFTER_PREFILTER, group=1, needles=_CALL_AFTER_NEEDLES, digits=True,
       start=_at_class(r"\d"), joined=_joined_digits(9),
       joined_prefilter=_CALL_AFTER_PREFILTER.replace("[ .-]", "[ ._-]")),
    # .NET's appSettings: <add key="SmtpPassword" value="..." />, FreeSWITCH's and other XML
    # configs' <param name="password" value="..."/>.
    _d("secret_assignment",
       # (not a form's anti-forgery token: name="csrf_token" value="...")
       # (nor a setting about one: PasswordResetTokenLifetimeMinutes, MinPasswordLength)
       rf"(?i)\b(?:key|name)=([\"'])(?![^\"'\n]*[cx]srf)"
       r"(?![^\"'\n]*(?:lifetime|minutes|seconds|hours|days|length|ttl|expir|timeout|count"
       r"|attempts|policy|enabled|required)[^\"'\n]*[\"'])"
       rf"[^\"'\n]*(?:{_FIELD_SECRET}|connectionstring)"
       r"[^\"'\n]*\1[ \t]+value=([\"'])([^\"'\n]+)\2", v.secret_value_ok,
       prefilter=rf"(?i)(?:key|name)=[\"'][^\"'\r\n]*(?:{_FIELD_SECRET_PREFILTER}|connectionstring)",
       group=3, needles=("key=", "KEY=", "Key=", "name=", "NAME=", "Name="),
       start=_at_literal(("key=", "name="), fold=True)),
    # chpasswd's input: echo 'user:password' | chpasswd.
    _after("echo",
           # (the user a shell's variable in a loop: echo "$u:Changeme!2024q" | chpasswd)
           r"\becho[ \t]+(['\"]?)\$?[\w.-]+:([^'\"\s|]+)\1[ \t]*\|[ \t]*(?:sudo[ \t]+)?chpasswd",
           group=2, prefilter=r"chpasswd"),
    # Network gear's configs, by their own keywords at a line's start (after its indentation,
    # or a Junos/FortiOS "set <path>"): Cisco IOS/NX-OS/ASA, Junos, FortiOS, EdgeOS, BIRD,
    # keepalived, FreeRADIUS, BIND, Redis. A type word may come before the value ("7", "ENC",
    # "ascii-text"); one-way hashes ($1$, $5$, $6$) are left as everywhere else.
    _d("secret_assignment",
       # (not FortiOS' "ENC SH2...": an admin password's SHA-256 hash, one-way like $6$)
       # (nor a BGP community, "set community 64810:259": an AS's number and a value)
       _NET_LINE + rf"(?:{_NET_SECRET_WORDS})[ \t]+{_NET_TYPE}(?!SH2[A-Za-z0-9+/]{{40}})"
       r"(?!\d{1,10}:\d{1,10}(?![^\s\"\\;{}]))"
       rf"(\\?\"?)([^\s\"\\;{{}}]{{4,}})\1",
       v.table_secret_ok, prefilter=rf"(?:{_NET_SECRET_PREFILTER})[ \t]", group=2,
       needles=_NET_NEEDLES),
    # An SNMP community in Cisco's line, a word often ("snmp-server community birchfvrcro RO"):
    # anything but the defaults everyone knows.
    _d("secret_assignment",
       r"(?m)^[ \t]*snmp-server[ \t]+community[ \t]+(?!(?:public|private)[ \t]|\[)"
       r"([^\s\"]{4,})[ \t]+(?:RO|RW|ro|rw)\b", _not_stand_in,
       prefilter=r"snmp-server[ \t]+community[ \t]", group=1, needles=("community",)),
    # ... and a bare "key" in a sub-mode (" key G8T9e0=D9n5Qb%BOfiTk" under "radius server X"):
    # indented, alone on its line with a password-shaped value.
    _d("secret_assignment", r"(?m)^[ \t]+key[ \t]+([^\s\"]{8,})[ \t]*$", v.told_password,
       prefilter=r"key[ \t]+[^ \t\r\n\"]{8}", group=1, needles=("key",)),
    # Tasmota's console (Backlog ...; Password1 X; MqttPassword Y), Teltonika's SMS commands
    # ('<user> <password> <command>'), a modem's MQTT login (AT+QMTCONN=0,"client","user",
    # "password"), Azure DPS's symmetric key in its errors.
    _d("secret_assignment", r"(?<![\w])(?:MqttPassword|WebPassword|Password[1-3])[ \t]+([^;\s]+)",
       v.table_secret_ok, prefilter=r"(?:MqttPassword|WebPassword|Password[1-3])[ \t]", group=1,
       needles=("Password",)),
    _d("secret_assignment", r"SMS command from [^:\n]*: '\S+ (\S+) ", v.table_secret_ok,
       prefilter=r"SMS command from ", group=1, needles=("SMS command",)),
    _d("secret_assignment", r"AT\+QMTCONN=\d+,\"[^\"\n]*\",\"[^\"\n]*\",\"([^\"\n]+)\"",
       v.secret_value_ok, prefilter=r"AT\+QMTCONN=", group=1, needles=("QMTCONN",)),
    _d("secret_assignment", r"(?i)symmetric[ _-]?key[^:\n]{0,12}:[ \t]*([A-Za-z0-9+/]{40,}={0,2})",
       v.tokenish, prefilter=r"(?i)symmetric[ _-]?key", group=1,
       needles=("ymmetric", "YMMETRIC")),
    # strongSwan's ipsec.secrets: "<ids> : PSK "x"", ": EAP "x"", ": XAUTH "x"".
    _d("secret_assignment", r":[ \t]*(?:PSK|EAP|XAUTH)[ \t]+\"([^\"\n]{4,})\"",
       v.secret_value_ok, prefilter=r":[ \t]*(?:PSK|EAP|XAUTH)[ \t]+\"", group=1,
       needles=("PSK", "EAP", "XAUTH")),
    # SNMPv3 users' keys: Cisco's "snmp-server user u g v3 auth sha X priv aes 128 Y" (NX-OS:
    # "auth md5 0x... priv 0x..."), net-snmp's createUser, and the command line's -A/-X (and
    # -c's community).
    _d("secret_assignment", _SNMP_USER + r"auth[ \t]+(?:md5|sha[\w-]*)[ \t]+([^\s\"]{6,})",
       v.table_secret_ok, prefilter=r"snmp-server[ \t]+user[^\r\n]*auth", group=1,
       needles=("snmp-server",)),
    _d("secret_assignment",
       _SNMP_USER + r"priv(?:[ \t]+(?:aes(?:-?\d+)?|3?des))?(?:[ \t]+\d+)?[ \t]+([^\s\"]{6,})",
       v.table_secret_ok, prefilter=r"snmp-server[ \t]+user[^\r\n]*priv", group=1,
       needles=("snmp-server",)),
    *(_d("secret_assignment", _CREATE_USER + value, v.secret_value_ok,
         prefilter=r"createUser[ \t]", group=1, needles=("createUser",))
      for value in (r"(\S+)", r"\S+[ \t]+(?:AES|DES)[\w-]*[ \t]+(\S+)")),
    _d("secret_assignment", _SNMP_FLAG + r"(\S+)", v.table_secret_ok,
       prefilter=r"snmp[a-z]*[ \t][^\r\n]*[ \t]-[cAX]", group=1, needles=("snmp",)),
    _d("secret_assignment", _SNMP_FLAG + r"\S+[^\n|;&]*?[ \t]-[cAX][ \t]*(\S+)", v.table_secret_ok,
       prefilter=r"snmp[a-z]*[ \t][^\r\n]*[ \t]-[cAX][^\r\n]*[ \t]-[cAX]", group=1,
       needles=("snmp",)),
    # A trap's community (snmptrapd: snmpTrapCommunity.0 = STRING: "x").
    _d("secret_assignment", r"(?i)community(?:\.\d+)*[ \t]*=[ \t]*STRING:[ \t]*\"([^\"\n]+)\"",
       v.table_secret_ok, prefilter=r"(?i)community[^\r\n]*STRING:", group=1,
       needles=("ommunity", "OMMUNITY")),
    # RANCID's .cloginrc: add password <router glob> {vty password} {enable password}, the
    # braces left out too.
    *(_d("secret_assignment", _RANCID_PASSWORD + value, v.secret_value_ok,
         prefilter=r"add[ \t]+s?password[ \t]", group=1, needles=("add",))
      for value in (r"\{([^{}\n]+)\}", r"\{[^{}\n]*\}[ \t]+\{([^{}\n]+)\}",
                    r"([^\s{}]{4,})", r"\{?[^\s{}]+\}?[ \t]+([^\s{}]{4,})")),
    # FreeRADIUS with auth_badpass/auth_goodpass: "Login incorrect (...): [user/password]".
    _d("secret_assignment", r"Login (?:incorrect|OK)[^\n]*?: \[(?!host/)[^/\]\n]+/([^\]\n]+)\]",
       v.secret_value_ok, prefilter=r"Login (?:incorrect|OK)", group=1, needles=("Login",)),
    # Windows: a property list's <key>UserPassword</key><string>X</string> (Apple's and MDM
    # profiles), cmdkey's /pass: and schtasks' /rp (in an event's XML, quoted as &quot;),
    # PowerShell's ConvertTo-SecureString 'X' and -SomethingPassword "X", netsh's Key Content.
    _d("secret_assignment",
       rf"(?i)<key>[^<\n]*(?:{_FIELD_SECRET}|psk)[^<\n]*</key>\s*<string>([^<\n]+)</string>",
       v.secret_value_ok, prefilter=rf"(?i)<key>[^<\r\n]*(?:{_FIELD_SECRET_PREFILTER}|psk)",
       group=1, needles=("<key>", "<KEY>"), start=_at_literal(("<key>",), fold=True)),
    _d("secret_assignment",
       r"(?i)\b(?:cmdkey|schtasks)(?:\.exe)?\b[^\n]*?[ \t]/(?:pass|rp)[: ][ \t]*(?:&quot;|\")?"
       r"([^\s\"&<]+)", v.secret_value_ok,
       prefilter=r"(?i)(?:cmdkey|schtasks)[^\r\n]*/(?:pass|rp)", group=1,
       needles=("cmdkey", "schtasks", "CMDKEY", "SCHTASKS")),
    _d("secret_assignment",
       # (its switches before the string too: -AsPlainText "X" -Force)
       r"(?i)ConvertTo-SecureString[ \t]+(?:-(?:String|AsPlainText|Force)[ \t]+)*([\"'])"
       r"([^\"'\n]+)\1", v.secret_value_ok,
       prefilter=r"(?i)ConvertTo-SecureString[ \t]", group=2,
       needles=("ecureString", "ECURESTRING", "ecurestring")),
    _d("secret_assignment",
       r"(?<![\w-])-[A-Za-z]*(?:Password|Secret|Token|Passphrase)[ \t]+([\"'])([^\"'\n]+)\1",
       v.secret_value_ok, prefilter=r"-[A-Za-z]*(?:Password|Secret|Token|Passphrase)[ \t]+[\"']",
       group=2, needles=("Password", "Secret", "Token", "Passphrase")),
    _d("secret_assignment", r"Key Content[ \t]*:[ \t]*(\S+)", v.secret_value_ok,
       prefilter=r"Key Content[ \t]*:", group=1, needles=("Key Content",)),
    # A browser's cookie store log: "SetCookie() key: <session cookie's name> value: X".
    _d("secret_assignment",
       r"(?i)\bkey:[ \t]+\S*(?:session|token|sid|auth)\S*[ \t]+value:[ \t]+([^\s;]{8,})",
       v.secret_value_ok, prefilter=r"(?i)key:[ \t]+[^ \t\r\n]*(?:session|token|sid|auth)",
       group=1, needles=("key:", "KEY:", "Key:")),
    # ... and an HTTP client's: "set_cookie name=PLAY_SESSION domain=.x.com value=X".
    _d("secret_assignment",
       # (not an HTML form's hidden field, quoted: name="csrf_token" value="...")
       # (the name's run read once: possessive, its word found by a look-ahead)
       r"(?i)(?<![\w-])name=(?![^\s=;\"']*[cx]srf)(?=[^\s=;\"']*(?:session|token|sid|auth))"
       r"[^\s=;\"']*+[ \t]+(?:domain=\S+[ \t]+)?(?:path=\S+[ \t]+)?value=([^\s;\"']{16,})",
       v.credential_ok, prefilter=r"(?i)name=[^ \t\r\n=;]*(?:session|token|sid|auth)", group=1,
       needles=("name=", "NAME=", "Name="), start=_at_literal(("name=",), fold=True)),
    # Python's auth tuples (requests, httpx, Gradio's launch): auth=("user", "password"); a
    # secret passed to a call named for it (Weaviate's Auth.api_key("..."), a token("...")).
    _d("secret_assignment",
       r"\bauth[ \t]*=[ \t]*\([ \t]*([\"'])[^\"'\n]*\1[ \t]*,[ \t]*([\"'])([^\"'\n]+)\2[ \t]*[,)]",
       v.secret_value_ok, prefilter=r"auth[ \t]*=[ \t]*\([ \t]*[\"']", group=3,
       needles=("auth",)),
    _d("secret_assignment",
       r"(?i)\b(?:api_?key|token|password|secret|bearer)\([ \t]*([\"'])([^\"'\n]{8,})\1[ \t]*\)",
       v.table_secret_ok,
       prefilter=r"(?i)(?:api_?key|token|password|secret|bearer)\([ \t]*[\"']", group=2,
       needles=("(",)),
    # SigV4's signature in an Authorization header (a request's, replayable for a while).
    _d("secret_assignment", r"SignedHeaders=[^,\s]*,[ \t]*Signature=([0-9a-f]{64})(?![0-9a-f])",
       prefilter=r"SignedHeaders=[^, \t\r\n]*,[ \t]*Signature=[0-9a-f]{64}", group=1,
       needles=("SignedHeaders=",)),
    # A quoted cookie value in a Cookie header (JupyterHub's login cookie: name="2|1:0|...").
    _d("secret_assignment", r"(?i)\bcookie:[^\r\n]*?=(\"[^\"\r\n]{16,}\")", v.tokenish,
       prefilter=r"(?i)cookie:[^\r\n]*=\"", group=1, needles=("ookie:", "OOKIE:")),
    # A form's field under a secret's name: multipart (name="db_password", a blank line, the
    # value), XML elements (<smtp_password>X</smtp_password>), PHP's var_dump
    # (["secret_key"]=> string(40) "X").
    _d("secret_assignment",
       rf"(?i)name=\\?\"[^\"\n]*(?:{_FIELD_SECRET})[^\"\n]*\\?\""
       r"(?:\r?\n|\\r\\n){2}([^\r\n\\]{4,})", v.secret_value_ok,
       prefilter=rf"(?i)name=\\?\"[^\"\r\n]*(?:{_FIELD_SECRET_PREFILTER})", group=1,
       needles=("name=", "NAME="), start=_at_literal(("name=",), fold=True)),
    _d("secret_assignment",
       # (attributes too: WS-Security's <wsse:Password Type="...#PasswordText">)
       # (and an element named "pass" alone: <pass>X</pass>)
       # (and a namespaced "pin": a tax service's <ses:pin>X</ses:pin>)
       # (not a hash's element, nor .NET's UserSecretsId: the id of a project's secret store)
       rf"(?i)<([\w:.-]*(?:{_FIELD_SECRET}|(?<=[<:])pass(?=>)|(?<=:)pin(?=>))[\w.-]*)"
       r"(?<!hex)(?<!hash)"
       r"(?<!sha256)(?<!sha1)(?<!usersecretsid)"
       r"(?:[ \t][^<>\n]*)?>"
       r"([^<\s][^<\n]{3,})</\1>", v.secret_value_ok,
       prefilter=rf"(?i)<[A-Za-z0-9_:.-]*(?:{_FIELD_SECRET_PREFILTER}|pass|:pin)[A-Za-z0-9_.-]*"
                 r"(?:[ \t][^<>\r\n]*)?>",
       group=2, needles=("<",), start=_at_literal(("<",))),
    _d("secret_assignment",
       rf"(?i)\[\"[^\"\n]*(?:{_FIELD_SECRET})[^\"\n]*\"\]=>\s*"
       r"string\(\d+\)[ \t]+\"([^\"\n]+)\"", v.secret_value_ok,
       prefilter=r"\]=>[ \t\r\n]*string\(", group=1, needles=("]=>",),
       start=_at_literal(('["',))),
    # Every value of a Cookie or Set-Cookie header: session ids are bearer credentials.
    _d("secret_assignment",
       r"(?i)(?<![A-Za-z0-9-])(?:set-)?cookies?(?:[ \t]+header)?(?:[ \t]+(?:is|was))?[\"']?"
       r"[ \t]*[:=]>?"
       # (a quote escaped after it ends it: -H \'cookie: a=b\' in a JSON-escaped log)
       r"[ \t]*[\"']?([^\r\n\"'=]+=[^\r\n\"']*[^\s\"';\\])", v.cookie_header_ok,
       prefilter=r"(?i)cookie", group=1, needles=("ookie", "OOKIE"),
       start=_at_literal(("cookie",), 4, fold=True)),
    # A session cookie by its name, wherever it is (document.cookie, curl -b, a Rails
    # header dump): sessionid, JSESSIONID, PHPSESSID, connect.sid, <app>_session.
    _d("secret_assignment",
       # (a bare "session" holding 32 hex digits is a WebDriver's or a kernel's id)
       # (the browser's cookie prefixes too: __Host-session=, __Secure-sessionid=)
       r"(?i)(?<![\w.-])(?:__(?:host|secure)-)?"
       r"(?:[\w-]*_session(?:_?id)?|session(?!=[0-9a-f]{32}(?![\w%.-]))"
       # (an app's camel-case name before it: MyChartSession=, PLAY_SESSION= above; not an
       # analytics field's firstSessionId=)
       r"|[A-Za-z][A-Za-z0-9]*(?-i:Session)"
       # (and a session id's name in capitals after the site's letters: Mailchimp's MCSID)
       r"|sessionid|session_id|jsessionid|_?oauth2_proxy|[a-z][a-z0-9]{1,20}session|[\w-]*_sid"
       r"|(?!B?SSID)[A-Za-z]{1,8}(?-i:SID)"
       r"|[\w-]*_sess(?:id)?|[\w-]*-session-id"
       # (VK's remixsid)
       # (not a Twilio resource's id, sid=SM and 32 hex digits: a message's, a call's)
       r"|phpsessid|connect\.sid|asp\.net_sessionid|moodlesession|remixsid"
       # (Magento's session cookie, "frontend": PHP's session id)
       r"|frontend(?==[a-z0-9]{26,40}(?![\w-]))"
       # (nor a Splunk search job's, sid=1742513222.30843_1UD6QNYO: a time and a serial)
       r"|sid(?!=(?-i:[A-Z]{2})[0-9a-f]{32}(?![\w%.-]))(?!=\d{9,10}\.\d))"
       r"=([^;\s\"'&,|]{16,})",
       v.session_cookie_ok,
       prefilter=r"(?i)(?:session|sessionid|session_id|phpsessid|connect\.sid|sid|oauth2_proxy|_sess"
                 r"|frontend)=",
       group=1, needles=("ession", "ESSION", "SESSID", "sessid", "connect.sid", "sid=", "SID=",
                         "_sess", "_SESS",
                         "oauth2_proxy=", "frontend="),
       start=_at_literal(("session", "sessid", "connect.sid", "sid=", "oauth2_proxy", "_sess",
                          "frontend="), 30, fold=True)),
    # ... quoted in a map or a query (Django's {'sessionid': '...'}, "session_key" = '...').
    _d("secret_assignment",
       r"(?i)(?<![\w.-])(?:sessionid|session_key|jsessionid|phpsessid|connect\.sid"
       r"|[\w-]*_session)\\?[\"'][ \t]*(?:=>?|:)[ \t]*\\?[\"']([^;\s\"'&,]{16,})",
       v.session_cookie_ok,
       prefilter=r"(?i)(?:sessionid|session_key|sessid|connect\.sid|_session)\\?[\"']", group=1,
       needles=("ession", "ESSION", "SESSID", "sessid", "connect.sid"),
       start=_at_literal(("session", "sessid", "connect.sid"), 30, fold=True)),
    # A session's key in a store (Redis MONITOR: "SET" "sess:EA3B2EC1...").
    _d("secret_assignment", r"(?i)(?<![\w-])sess(?:ion)?:([A-Za-z0-9_-]{24,})(?![\w-])",
       v.session_key_ok, prefilter=r"(?i)sess(?:ion)?:[A-Za-z0-9_-]{24}", group=1,
       needles=("sess:", "session:", "SESS:", "SESSION:"),
       start=_at_literal(("sess",), fold=True)),
    # Secrets passed by position: a JWT's signing key (jwt.sign(payload, 'k'), jwt.encode(...,
    # "k", algorithm=...), Keys.hmacShaKeyFor("k"...)), a login's password (smtplib's
    # server.login("user", "pw")), PDO's third argument.
    _after("jwt.", r"\bjwt\.(?:sign|encode)\(.{0,300}?,[ \t]*(['\"])([^'\"\n]{8,})\1[ \t]*[,)]",
           group=2, prefilter=r"jwt\.(?:sign|encode)\("),
    _after("hmacShaKeyFor(", r"\bhmacShaKeyFor\([ \t]*(['\"])([^'\"\n]{8,})\1", group=2),
    _after(".login(",
           r"\.login\([ \t]*(['\"])[^'\"\n]*\1[ \t]*,[ \t]*(['\"])([^'\"\n]{6,})\2[ \t]*\)",
           group=3),
    _d("secret_assignment",
       r"\bnew[ \t]+PDO\([ \t]*(['\"])[^'\"\n]*\1[ \t]*,[ \t]*(['\"])[^'\"\n]*\2[ \t]*,[ \t]*"
       r"(['\"])([^'\"\n]+)\3", v.secret_value_ok, prefilter=r"PDO\(", group=4,
       needles=("PDO(",), start=_at_literal(("new",))),
    # .netrc: "machine h login u password p".
    _d("secret_assignment", r"(?<![\w-])login[ \t]+\S+[ \t]+password[ \t]+(\S+)", v.secret_value_ok,
       prefilter=r"login[ \t]+[^ \t\r\n]+[ \t]+password[ \t]", group=1, needles=("password",),
       start=_at_literal(("login",))),
    # A name/value pair whose name is a credential's: HAR cookies and headers, form fields
    # ({"name": "sessionid", "value": "..."}), OTLP/JSON attributes ({"key": "db.password",
    # "value": {"stringValue": "..."}}).
    # (Keycloak's credentials too: {"type": "password", "value": "..."})
    _d("secret_assignment",
       # (and an analytics tool's capture of a field: {"field_id": "et_password",
       # "text_input_value": "..."})
       # (SCIM's PatchOp: {"path": "password", "value": ...})
       r"(?i)[\"'](?:name|key|type|field_id|field|path)\\?[\"'][ \t]*:[ \t]*\\?[\"'][\w.-]*?"
       # (a session cookie's name may carry the app's id: Intercom's intercom-session-<app id>)
       # (Intercom's: intercom-session-<app id>, eight letters and digits, digits or not)
       # (and Entra ID's session cookies: ESTSAUTH, ESTSAUTHPERSISTENT)
       rf"(?:session-[a-z0-9]{{8}}(?<=intercom-session-[a-z0-9]{{8}})|estsauth(?:persistent|light)?"
       rf"|sess(?:ion)?(?:[_-]?id)?(?:[_-](?=[a-z]*\d)[a-z0-9]{{4,12}})?|sid"
       rf"|(?:{_SECRET_WORDS})[\w.-]*{_NOT_THE_SECRET})"
       r"\\?[\"']"
       # (a pretty-printed pair puts the value on the next line: Postman's environments)
       r"\s*,\s*\\?[\"'](?:text_input_|input_)?value\\?[\"'][ \t]*:[ \t]*" + _OTLP_VALUE
       + r"\\?[\"']([^\"'\\]{6,})",
       v.secret_value_ok,
       prefilter=r"(?i),\s*\\?[\"'](?:text_input_|input_)?value\\?[\"'][ \t]*:", group=1,
       needles=("alue", "ALUE"), start=_at_literal(("name", "key", "type", "field", "path"),
                                                    1, fold=True)),
    # ... an Authorization header as such a pair (an Okta event hook's authScheme, Postman's
    # headers): its value judged as the header's is (a scheme and a credential, not a stand-in)
    _d("secret_assignment",
       r"(?i)[\"']key\\?[\"'][ \t]*:[ \t]*\\?[\"']authorization\\?[\"']\s*,\s*\\?[\"']value\\?[\"']"
       r"[ \t]*:[ \t]*\\?[\"'](?:(?:bearer|basic|token|ssws|apikey|digest)[ \t]+)?"
       r"([^\"'\\\n]{8,})", v.header_credential_ok,
       prefilter=r"(?i)[\"']key\\?[\"'][ \t]*:[ \t]*\\?[\"']authorization", group=1,
       needles=("uthorization", "UTHORIZATION"), start=_at_literal(("key",), 1, fold=True)),
    # ... and a Cookie or Set-Cookie header as such a pair (HAR): judged as the header is,
    # so a session's id goes and preferences ("lang=en-GB; tz=Europe%2FBerlin") stay.
    _d("secret_assignment",
       r"(?i)[\"'](?:name|key)\\?[\"'][ \t]*:[ \t]*\\?[\"'][\w.-]*?(?:set-)?cookie\\?[\"']"
       r"[ \t]*,[ \t]*\\?[\"']value\\?[\"'][ \t]*:[ \t]*" + _OTLP_VALUE
       + r"\\?[\"']([^\"'\\]{6,})",
       v.cookie_header_ok, prefilter=r"(?i)cookie\\?[\"'][ \t]*,[ \t]*\\?[\"']value", group=1,
       needles=("ookie", "OOKIE"), start=_at_literal(("name", "key"), 1, fold=True)),
    # An Authorization header of any scheme (Token, ApiKey, SSWS, Digest, ...): its
    # credential. Bearer and Basic are the bearer_token detector's, listed first.
    # (a camel-case key's too: Auth0's log stream "httpAuthorization": "Splunk ...")
    _d("bearer_token",
       r"(?i)(?:(?<![\w-])|(?<=(?-i:[a-z]))(?=(?-i:A)))(?:proxy-)?authorization\\*[\"']?[ \t]*[:=]"
       # (not SigV4's scheme name before its fields: "AWS4-HMAC-SHA256 Credential=<...>")
       r"[ \t]*\\*[\"']?(?:[a-z][\w-]*[ \t]+)?(?!AWS4-HMAC-SHA256[ \t])"
       # (nor a scheme's name before a placeholder: "Zoho-oauthtoken {access_token}"; the
       # credential's fields after colons too, AnyDesk's "AD <license>:<time>:<hash>")
       r"([A-Za-z0-9._~+/=-]{12,}+(?::[A-Za-z0-9._~+/=-]+)*+)(?![ \t]+(?:\{|<|\$\{?|%)[A-Za-z_])",
       v.credential_ok,
       prefilter=r"(?i)authorization\\*[\"']?[ \t]*[:=]", group=1,
       needles=("uthorization", "UTHORIZATION"),
       start=_at_literal(("authorization",), 6, fold=True)),
    # A quoted value with spaces in it under a secret's key (password="p@ss w0rd x"): the
    # unquoted form below stops at the first space.
    _d("secret_assignment",
       # (not a "sig" with spaces: a prescription's directions, sig="1 tab PO BID"; a
       # signature has none)
       _SECRET_KEY + r"(?<![\s\"'{,;&?]sig)(?<![\s\"'{,;&?]sig[\"'])"
       r"[ \t]*[:=][ \t]*(\\?[\"'])([^\"'\s][^\"'\n]*[ \t][^\"'\n]*?)\1"
       + _NOT_LOGPROBS,
       v.spaced_secret_ok, group=2,
       prefilter=_SECRET_KEY_PREFILTER + r"[ \t]*[:=][ \t]*\\?[\"'][^\"'\n]*[ \t]",
       needles=("=", ":"), start=_at_literal(_SECRET_STARTS, fold=True),
       starts=_SECRET_KEY_STARTS),
    # Base64 credentials under an "auth" key (a docker config.json): "user:password" encoded.
    _d("secret_assignment",
       # npm's "//registry/:_auth=" too
       r"(?i)(?<![a-z0-9_])_?auth\\?[\"']?\s*[:=]\s*(?:\\?[\"'])?([A-Za-z0-9+/_-]{8,}={0,2})",
       v.base64_credentials, prefilter=r"(?i)auth\\?[\"']?" + _S + r"*[:=]", group=1,
       needles=("auth", "AUTH", "Auth"), start=_at_literal(("auth",), 1, fold=True),
       starts=((r"(?i)auth", 4), (r"(?i)_auth", 5))),
    # ... and under Elasticsearch's "encoded" (its create-API-key answer: base64 of id:key,
    # what a client sends as "Authorization: ApiKey ...").
    _d("secret_assignment",
       r"\"encoded\\?\"\s*:\s*\\?\"([A-Za-z0-9+/_-]{16,}={0,2})\\?\"",
       v.base64_credentials, prefilter=r"\"encoded\\?\"" + _S + r"*:", group=1,
       needles=('"encoded',), start=_at_literal(('"encoded',))),
    _d("secret_assignment",
       # the value on the same line, or indented on the next (YAML); an empty one ends there
       # (DB_PASSWORD= then the next variable's line)
       # (a selector as the key: {"input[name='password']":"..."}, its quote escaped)
       # (a key in backquotes, SQL's `User`.`resetPasswordToken` = '...'; a dump's dotted
       # leader, HikariCP's "password........value" and "Password . . . : value")
       _SECRET_KEY + r"\]?(?:\\*[\"'`])?(?:[ \t]*(?:=>|[:?]=|[:=])|\.{4,}|(?:[ \t]\.){3,}[ \t]*:)"
       r"[ \t]*"
       # not a link: a URL's own secrets are its parts' (and "curl -u $API_KEY: https://..."
       # is the user part of a login, the URL after it)
       r"(?![A-Za-z][A-Za-z0-9+.-]*://)"
       # (nor a diff's next context line holding an assignment of its own: "+SECRET=\n PORT=5173")
       r"(?:\r?\n[ \t]+(?![\w.-]+(?::(?:\s|$)|[ \t]*=)))?"
       # a list of one ('api_key': ['...'], vLLM's non-default args); a repr inside JSON
       # (Sentry's frame variables: "password": "'...'"); Rust's Debug of an Option (TGI's
       # start-up args: api_key: Some("..."))
       r"(?:\[[ \t]*)?(?:Some\()?(?:\\*[\"'])?'?"
       # (not a variable after a quoted key, {"password": jdbc_pw}: a string would be quoted;
       # nor a list of settings, Snowflake's CREDENTIALS = (AWS_KEY_ID='...' ...))
       r"(?!(?:(?<=[\"']:)|(?<=[\"']: ))[A-Za-z_]\w*[ \t]*[,})\]\n])(?!\([A-Za-z_]\w*[ \t]*=)"
       # (nor a SQL or code function's call on a column: key_last4 = right(key_plain, 4))
       r"(?![a-z_]+\((?:[a-z_]+[,)]|[a-z_]+::))"
       # (not an object or a list opening: "credentials": [{"type": ...}] holds pairs)
       # (not a number: something past digits and dots, "&" too, as in KC_DB_PASSWORD: 0&&tk4j)
       # (nor HTML's escaped "&" before the next parameter, "...&amp;state=": in a value it
       # stays, "Baltic&amp;31ko")
       rf"(?!\[?\{{\\*[\"'])((?=[^{_VALUE_STOP}]*(?:[^{_VALUE_STOP}\d.]|&(?![\w.-]*=|amp;[\w.-]*=)))"
       rf"(?:[^{_VALUE_STOP}\\]|{_NOT_AN_ESCAPE}"
       rf"|{_INNER_QUOTE}|(?<=[A-Za-z0-9])'(?=[A-Za-z0-9])"
       rf"|&(?![\w.-]*=|amp;[\w.-]*=)){{6,}}+)"
       + _NOT_LOGPROBS,
       v.secret_value_ok,
       prefilter=_SECRET_KEY_PREFILTER + r"\]?(?:\\*[\"'`])?(?:" + _S + r"*[:=]|\.\.\.\.|[ \t]\.)",
       group=1, needles=("=", ":", "...."), start=_at_literal(_SECRET_STARTS, fold=True),
       starts=_SECRET_KEY_STARTS),
    # A key written as its bytes (zigbee2mqtt's network_key: [213, 43, ...], a C array's
    # {0x2b, 0x7e, ...} under a key's name): eight bytes or more.
    _d("secret_assignment",
       _SECRET_KEY + r"(?:\[\d*\])?\\*[\"']?[ \t]*[:=][ \t]*[\[{][ \t]*"
       r"((?:(?:0[xX][0-9A-Fa-f]{2}|\d{1,3})[ \t]*,[ \t]*){7,63}(?:0[xX][0-9A-Fa-f]{2}|\d{1,3}))"
       r"[ \t]*,?[ \t]*[\]}]",
       v.key_bytes_ok, group=1,
       prefilter=_SECRET_KEY_PREFILTER + r"(?:\[\d*\])?\\*[\"']?" + _S + r"*[:=]" + _S
                 + r"*[\[{]" + _S
                 + r"*(?:0[xX][0-9A-Fa-f]{2}|\d{1,3})" + _S + r"*,",
       needles=("[", "{"), start=_at_literal(_SECRET_STARTS, fold=True),
       starts=_SECRET_KEY_STARTS),
    # A wallet's seed phrase: twelve to twenty-four words of BIP-39's list in a row, pasted
    # into a ticket after a sentence in any language, quoted, listed with commas, where the
    # line names what it is (seed, phrase, mnemonic, wallet, recovery, words, in the languages
    # tickets are written in). Prose never runs twelve of them without an article or a
    # particle.
    _d("secret_assignment",
       rf"(?<![A-Za-z'-])({_BIP39_WORD}(?:(?:[ \t]+|,[ \t]*){_BIP39_WORD}){{11,23}}"
       # (and the lower-case words that go on with it: a phrase of 24 with a word mistyped)
       r"(?:[ \t]+[a-z]{3,8}(?![A-Za-z'-])){0,12})(?![A-Za-z'-])",
       prefilter=(rf"(?i:{_SEED_CONTEXT})[\s\S]*(?-i:{_WORD_ROW})"
                  rf"|(?-i:{_WORD_ROW})[\s\S]*(?i:{_SEED_CONTEXT})"), group=1,
       gate=_WORD_ROW, anchors=_seed_phrase_anchors, needles=_SEED_WORDS),
    # An eSIM's activation code: the matching id of an LPA string (LPA:1$<SM-DP+>$<id>) and
    # a dashed key under its name (activation code, product or licence key, matchingId).
    _d("secret_assignment", r"\bLPA:1\$[^$\s]+\$([A-Za-z0-9-]{4,})", v.has_digit,
       prefilter=r"LPA:1\$", group=1, needles=("LPA:1$",), start=_at_literal(("LPA:1$",))),
    _d("secret_assignment",
       r"(?i)(?<![\w-])(?:(?:activation|product|licen[cs]e|registration)[ _-]?(?:code|key)"
       r"|matching[ _-]?id)\\*[\"']?[ \t]*[:=][ \t]*\\*[\"']?"
       r"([A-Z0-9]{4,6}(?:-[A-Z0-9]{4,6}){2,5})(?![\w-])", v.unmasked_code,
       prefilter=r"(?i)(?:activation|product|licen[cs]e|registration)[ _-]?(?:code|key)"
                 r"|matching[ _-]?id",
       group=1, gate=r"(?i:activation|product|licen[cs]e|registration|matching)"),
    # An address rewritten for forwarding (SRS: SRS0=hash=tt=orig-domain=orig-user@forwarder):
    # the original address is inside, read whole. An Entra guest's user principal name
    # (lucas.ferreira_gmail.com#EXT#@tenant.onmicrosoft.com): the guest's address inside.
    # A UPI id (rohit.verma@okhdfcbank): a payment address at a bank's handle.
    _d("email",
       r"(?<![\w.+=-])(?:SRS[01][=+-][^\s@<>\"']{4,200}"
       r"|[\w.+-]+_[\w-]+(?:\.[\w-]+)+#EXT#)@[\w-]+(?:\.[\w-]+)+"
       # (not a mask: "xxxx@ybl")
       # (a sentence's full stop after it: "GPay: jayesh.p26@fbl.")
       rf"|(?<![\w.+])(?![xX*]+@)[\w.-]{{2,64}}@(?:{_UPI_HANDLES})(?![\w]|\.\w)",
       prefilter=_REWRITTEN_OR_UPI, needles=("@",), joined=_nothing_joined,
       joined_prefilter=_REWRITTEN_OR_UPI),
    # Unicode local parts and IDN domains too (\w is Unicode in Python; on ASCII text, where
    # the prefilter decides, it is [A-Za-z0-9_]).
    _d("email",
       # not a URL's user (ssh://git@host.corp:2222/...)
       # not an SSH login (ssh pi@host, sftp connect feeds@host)
       # not a Snowflake prompt's warehouse (ANALYST#COMPUTE_WH@PROD_DB.PUBLIC>)
       # (after a JSON escape the address starts past it: "...\\npablo@x.es" keeps its "\\n")
       # (not the end of a masked one, "f***i@web.de"; one "*" is an X12 segment's separator)
       rf"(?:(?<![\w.+%$#-])(?<!\*\*)(?!(?<=\\)[nrt])|(?<=\\[nrt]))(?<!placeholder=[\"'])(?<!://)"
       # (nor a mail's Message-ID or a calendar event's UID: ids in an address's shape)
       r"(?<!Message-ID: <)(?<!Message-Id: <)(?<!Message ID: <)(?<!Message Id: <)(?<!\nUID:)"
       # (nor the ids a reply names: In-Reply-To, References)
       r"(?<!In-Reply-To: <)(?<!References: <)"
       # (nor a SIP dialog's Call-ID: "c8tkifr3pa0RsQIMSVlKYE76z@pbx.local")
       r"(?<!Call-ID: )(?<!Call-ID:)(?<!\ni: )"
       rf"{_NOT_AN_SSH_LOGIN}"
       # (nor a URL's placeholder for its password: http://USERNAME:PASSWORD@gate.host:7000)
       r"(?!(?<=:)(?i:(?:your[_-]?)?(?:password|passwd|pass|pwd|secret|token|api[_-]?key)"
       r"(?:[_-]?here)?)@)"
       # (nor a Kerberos service's principal, its realm in capitals: HTTP/sso.corp.ch@CORP.LOCAL)
       r"(?!(?<=[A-Za-z]/)[\w.+-]{1,64}@[A-Z0-9-]+(?:\.[A-Z0-9-]+)+(?![\w.-]))"
       rf"[{_UW}.%+-]{{1,64}}@(?:[{_UW}](?:[{_UW}-]{{0,61}}[{_UW}])?\.)+"
       # not git's scp form (git@github.com:org/repo.git): a host and a path
       rf"(?:(?:[^\W\d_]|[{_MARKS}]){{2,24}}|xn--[a-z0-9-]{{2,59}})(?![{_UW}-])"
       # (nor rsync's and scp's user@host:/path)
       r"(?!:[\w~]?[\w.~ -]*/)", v.email_ok,
       prefilter=r"[A-Za-z0-9_.%+-]@[A-Za-z0-9]", needles=("@",),
       start=_at_literal(("@",), 64),  # the local part: at most 64 characters
       anchors=_email_starts,
       joined=_joined_email, joined_prefilter=r"[A-Za-z0-9.%+]@[A-Za-z0-9]"),
    # A quoted local part (RFC 5321: "siti rahayu"@example.com).
    _d("email", r"(?<![\w\"])\"[^\"\n@\\]{1,64}\"@"
       r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}(?![\w-])",
       prefilter=r"\"@[A-Za-z0-9]", needles=('"@',),
       start=_at_literal(('"@',), 66), joined=_joined_email,
       joined_prefilter=r"\"@[A-Za-z0-9]"),
    # A phone number in a query that sends it a code or a message (2fa/sms paths, or a
    # channel=sms beside it): "/2fa/setup?to=5511919501253&channel=sms". Before the card
    # detector, whose checksum blocker would hide it.
    _d("phone",
       r"(?i)(?:sms|whatsapp|otp|2fa|mfa|verif|phone)[^\s?\"'#]*\?(?:[^\s\"'#&]*&)*?"
       r"(?:to|recipient|msisdn|phone(?:_?number)?|mobile|tel|number)=(?:%2B|\+)?(\d{10,15})"
       r"(?![\w%])", v.told_phone_ok,
       prefilter=r"(?i)(?:sms|whatsapp|otp|2fa|mfa|verif|phone)[^\s?\"'#]*\?[^\s\"'#]*"
                 r"(?:to|recipient|msisdn|phone|mobile|tel|number)=(?:%2B|\+)?\d{10}",
       group=1, needles=("=",), joined=_joined_query_number,
       joined_prefilter=r"(?i)(?:sms|whatsapp|otp|2fa|mfa|verif|phone)[^\s?\"'#_-]*\?"
                        r"[^\s\"'#_-]*(?:to|recipient|msisdn|phone|mobile|tel|number)="
                        r"(?:%2B|\+)?\d{10}"),
    _d("phone",
       r"(?i)[?&](?:to|recipient|msisdn|phone(?:_?number)?|mobile|number)=(?:%2B|\+)?(\d{10,15})"
       r"&(?:[^\s\"'#&]*&)*?(?:channel|via|method|type)=(?:sms|whatsapp|voice|call)",
       v.told_phone_ok,
       prefilter=r"(?i)[?&](?:to|recipient|msisdn|phone|mobile|number)=(?:%2B|\+)?\d{10}[^\s\"'#]*"
                 r"(?:channel|via|method|type)=(?:sms|whatsapp|voice|call)",
       group=1, needles=("=",), joined=_joined_query_number,
       joined_prefilter=r"(?i)[?&](?:to|recipient|msisdn|phone|mobile|number)=(?:%2B|\+)?\d{10}"
                        r"[^\s\"'#_-]*(?:channel|via|method|type)=(?:sms|whatsapp|voice|call)"),
    # A number an SMS gateway sends to or from, under its field's name (SMPP's source_addr,
    # MessageBird's recipients, Infobip's {"to": "905554831732"}, an MSISDN).
    # (Open5GS's list of them, msisdn: ["4917657965162"]; a Diameter dump's
    # Subscription-Id-Data; a gateway log's to=918500129859 and Jasmin's [to:5521963477986])
    _d("phone",
       # (Msegat's and Unifonic's "numbers", Kavenegar's receptor=, Swish's payerAlias)
       r"(?i)(?:(?<![\w.-])(?:msisdn|recipients?|source_addr|dest(?:ination)?_addr|ani"
       # (not a shipment's "Serial numbers:")
       r"|subscription-id-data|(?<![Ss]erial )numbers|receptor|payer_?alias)\\?[\"']?[ \t]*[:=]"
       r"[ \t]*"
       r"(?:\[[ \t]*)?"
       r"|\"to\"[ \t]*:[ \t]*(?=\")|(?<![\w.&?/-])to=|(?<=\[)to:)\\?[\"']?\+?(\d{10,15})"
       r"(?![\w.])",
       v.addressed_phone_ok, group=1,
       prefilter=r"(?i)(?:msisdn|recipients?|source_addr|dest_addr|destination_addr|ani"
                 r"|subscription-id-data|numbers|receptor|payer_?alias|\"to\")\\?[\"']?[ \t]*[:=]"
                 r"[ \t]*\[?[ \t]*\\?[\"']?\+?\d{10}"
                 r"|to[=:]\+?\d{10}",
       needles=("msisdn", "MSISDN", "ecipient", "_addr", '"to"', "ani", "ANI", "ubscription-Id",
                "to=", "to:", "umbers", "eceptor", "lias"),
       joined=_nothing_joined),
    # A person's bank account as the UK, Australia and New Zealand write one: a UK account
    # number beside its sort code (the pair written together, "09-43-71, 39741216", is
    # redacted whole), Open Banking's SortCodeAccountNumber, an Australian account after its
    # BSB, a New Zealand account in its own dashes (bank, branch, account, suffix).
    _d("iban",
       r"(?i)sort[ _-]?code[^\n\d]{0,40}?"
       r"(\d{2}-?\d{2}-?\d{2}(?:[ \t]*[/,][ \t]*|[ \t]+)\d{8})(?!\d)",
       prefilter=r"(?i)sort[ _-]?code", group=1, needles=("ort", "ORT"), digits=True,
       joined=_nothing_joined, joined_prefilter=r"(?i)sort[ _-]?code"),
    # (a payments API's GB account: "branch_code": "624015", "account_number": "79170266")
    _d("iban",
       r"(?i)(?:sort|branch)[ _-]?code\\?[\"']?\W{1,8}\d{2}-?\d{2}-?\d{2}(?!\d)"
       r"(?:[^\n]|\n(?!\n)){0,80}?"
       r"account[ _-]?(?:number|no|identifier)?\\?[\"']?\W{1,8}(\d{8})(?!\d)",
       prefilter=r"(?i)(?:sort|branch)[ _-]?code", group=1,
       needles=("ort", "ORT", "ranch", "RANCH"), digits=True, joined=_nothing_joined,
       joined_prefilter=r"(?i)(?:sort|branch)[ _-]?code"),
    _d("iban",
       r"(?i)account[ _-]?(?:number|no|identifier)\\?[\"']?\W{1,8}(\d{8})(?!\d)[^\n]{0,100}?"
       r"sort[ _-]?code",
       prefilter=r"(?i)account[ _-]?(?:number|no|identifier)[^\r\n]{0,120}sort[ _-]?code", group=1,
       needles=("ort", "ORT"), digits=True, joined=_nothing_joined,
       joined_prefilter=r"(?i)account[ _-]?(?:number|no|identifier)[^\r\n]{0,120}sort[ _-]?code"),
    _d("iban",
       r"SortCodeAccountNumber\\?[\"'][^\n]{0,20}?Identification\\?[\"'][ \t]*:[ \t]*\\?[\"']"
       r"(\d{14})",
       prefilter=r"SortCodeAccountNumber", group=1, needles=("SortCodeAccountNumber",),
       joined=_nothing_joined, joined_prefilter=r"SortCodeAccountNumber"),
    _d("iban",
       r"(?i)(?<![a-z])BSB\W{0,4}\d{3}-?\d{3}(?!\d)"
       r"(?:[^\n<]{0,40}?(?:acc(?:ount)?(?:[ _-]?(?:no|number))?"
       r"|a/c)\W{0,4}|</BSB>[ \t\n]*<AccountNumber>)(\d{5,10})(?!\d)",
       prefilter=r"(?i)BSB", group=1, needles=("BSB", "bsb", "Bsb"), digits=True,
       joined=_nothing_joined, joined_prefilter=r"(?i)BSB"),
    _d("iban", r"(?<![\w-])(\d{2}-\d{4}-\d{7}-\d{2,3})(?![\w-])", ids.nz_account_ok,
       prefilter=r"\d{2}[ _-]\d{4}[ _-]\d{7}[ _-]\d{2}", group=1, needles=("-",), digits=True,
       start=_at_class(r"\d"), joined=_nothing_joined,
       joined_prefilter=r"\d{2}[ _-]\d{4}[ _-]\d{7}[ _-]\d{2}"),
    # A phone written as an object of its parts, under the phone's key: Tap's and Stripe's
    # {"phone": {"country_code": "965", "number": "61542552"}}, Singpass MyInfo's
    # "mobileno": {"prefix": ..., "areacode": ..., "nbr": {"value": "88385905"}}.
    _d("phone",
       r"(?i)\"(?:phone|mobile|mobile_?no|mobileno|telephone|homeno|msisdn)\"[ \t]*:[ \t]*\{"
       r"[^\n]{0,120}?\"(?:number|nbr|national_?number|subscriber_?number)\"[ \t]*:[ \t]*"
       r"(?:\{[ \t]*\"value\"[ \t]*:[ \t]*)?\"(\d{6,15})\"",
       v.told_phone_ok, group=1,
       prefilter=r"(?i)\"(?:phone|mobile|telephone|homeno|msisdn)[^\"]{0,3}\"[ \t]*:[ \t]*\{",
       needles=("umber", "nbr"), joined=_nothing_joined,
       joined_prefilter=r"(?i)\"(?:phone|mobile|telephone|homeno|msisdn)[^\"]{0,3}\"[ \t]*:"
                        r"[ \t]*\{"),
    # A Russian mobile number with its trunk 8 and the operator's code in brackets, as Russians
    # write one ("8(999)6934559", "8 (916) 659-34-66"): the brackets around 9xx say phone.
    _d("phone", r"(?<![\w+(.,/-])8[ \t-]?\(9\d\d\)[ \t-]?\d{3}[ \t-]?\d{2}[ \t-]?\d{2}(?![\d])",
       prefilter=r"8[ \t-]?\(9\d\d\)[ \t-]?\d{3}", needles=("(9",), digits=True,
       joined=_nothing_joined, joined_prefilter=r"8[ \t_-]?\(9\d\d\)[ \t_-]?\d{3}"),
    # A phone number written as the hex of its ASCII digits, alone ("ph_hex=3338303939...") or
    # inside a PDU's hex dump (SMPP's destination_addr): nine to fifteen "3x" bytes at a
    # byte's boundary of a hex run. A decimal number is such a run one time in 10^9.
    _d("phone",
       r"(?<![0-9A-Za-z])(?:[0-9A-Fa-f]{2})*?((?:3[0-9]){9,15})"
       r"(?=(?:[0-9A-Fa-f]{2})*(?![0-9A-Za-z]))",
       v.hex_digits_phone_ok, prefilter=r"(?:3\d){9}", group=1, gate=r"(?:3\d){9}",
       joined=_nothing_joined, joined_prefilter=r"(?:3\d){9}"),
    # A mobile number in a mobile-money or carrier message, as its country writes it (a 0,
    # nine or ten digits, no separators): after a word that sends money or a message to it
    # or names who sent it, and the sender's name ("from KWAME DARKO 0596194359", "natuma
    # kwa 0701974545", "sent to 0743760553", "vers Yao Yao (0141614211)", "\u0625\u0644\u0649
    # \u0631\u0642\u0645 01594043416", "Your SIM 0201461738"), or between a USSD trace's
    # steps ("> 0207187567 >"). Bare, such a number is as often a reference or an ISBN
    # ("Kenmerk 0206302037", "received 0912076879").
    _d("phone",
       # (every part before the number bounded: a match starts at most 100 characters before
       # its number)
       r"(?ai)(?:(?<![a-z])(?:from|to|kwa|kutoka|vers|du|para|(?-i:SIM)|linked[ \t]{1,2}to"
       "|sent[ \t]{1,2}to|\u0631\u0642\u0645|\u0625\u0644\u0649)[ \t]{1,2}"
       r"(?-i:[A-Z][A-Za-z'.-]{0,24}[ \t]{1,2}){0,3}?\(?|>[ \t]?(?=0[1-9]\d{8,9}[ \t]?>)"
       # (a wallet's name, and "my" in a few words: "Opay mi: 08077207823")
       r"|(?<![a-z])(?:opay|palmpay|momo|m-?pesa|ecocash)(?:[ \t]{1,2}[a-z]{1,6})?[ \t]{0,2}:?"
       r"[ \t]{0,2})"
       # (or with the country's code, one of Africa's 2xx, not a year's 20xx, for its 0:
       # "kutoka 255714216698")
       # (nor a registry's host: "naming to 284392246720.dkr.ecr...")
       r"(0[1-9]\d{8,9}|2[1-9]\d[1-9]\d{8})(?![\w-]|[.,]\d|\.[a-z0-9-]+\.)",
       v.told_phone_ok, prefilter=r"0[1-9]\d{8}|2[1-9]\d[1-9]\d{8}", group=1, needles=("0", "2"),
       digits=True, anchors=_money_word_anchors,
       joined=_joined_digits(10), joined_prefilter=r"0[1-9]\d{8}|2[1-9]\d[1-9]\d{8}"),
    # A reservation's contact elements (Amadeus' "3 AP IST 905333873217 - H", "APE
    # NAME//HOST.COM": a GDS writes an e-mail's "@" as "//").
    _d("phone", r"(?<![A-Za-z0-9])AP[MBHN]?[ \t]+[A-Z]{3}[ \t]+(\+?\d{8,15})(?!\d)",
       v.told_phone_ok, group=1, prefilter=r"AP[MBHN]?[ \t]+[A-Z]{3}[ \t]+\+?\d{8}",
       needles=("AP",), joined=_nothing_joined),
    _d("email",
       # (and in an SSR CTCE element: "SSR CTCE BA HK1 ANA..PEREIRA86//GMAIL.COM", ".." for
       # "_" and "-")
       r"(?:(?<![A-Za-z0-9])APE[ \t]+|(?<![A-Za-z])SSR ?CTCE ?[A-Z0-9]{2} {0,2}[A-Z]{2}\d{1,3}"
       r"[ /]?[ \t]*)"
       r"([A-Z0-9._%+-]+//[A-Z0-9-]+(?:\.[A-Z0-9-]+)*\.[A-Z]{2,})",
       group=1, prefilter=r"(?:APE[ \t]+|CTCE[^\r\n]{0,16})[A-Z0-9._%+-]+//",
       needles=("APE", "CTCE"), joined=_nothing_joined,
       joined_prefilter=r"(?:APE[ \t]+|CTCE[^\r\n]{0,16})[A-Z0-9._%+-]+//"),
    # ... and a phone number in an SSR CTCM element ("SSR CTCM LH HK1 4917628794965").
    _d("phone", r"SSR ?CTCM ?[A-Z0-9]{2} {0,2}[A-Z]{2}\d{1,3}[ /]?[ \t]*(\+?\d{8,15})(?![\d])",
       v.told_phone_ok, group=1, prefilter=r"CTCM[^\r\n]{0,16}\d{8}", needles=("CTCM",),
       joined=_nothing_joined, joined_prefilter=r"CTCM[^\r\n]{0,16}\d{8}"),
    # A user and password in one setting (Logstash's cloud_auth => "elastic:...", the
    # Schema Registry's basic.auth.user.info=KEY:SECRET): the password after the colon.
    _d("secret_assignment",
       r"(?i)(?<![\w.-])(?:cloud_auth|basic\.auth\.user\.info)[ \t]*(?:=>|[=:])[ \t]*[\"']?"
       r"[^:\s\"']+:([^\s\"']+)", v.secret_value_ok, group=1,
       prefilter=r"(?i)(?:cloud_auth|basic\.auth\.user\.info)[ \t]*(?:=>|[=:])",
       needles=("cloud_auth", "user.info")),
    # RADIUS's caller (a mobile's MSISDN, a DSL line's number): Calling-Station-Id = "x".
    # (the name's dashes are in every match: the joined reading finds nothing new)
    _d("phone", r"(?i)(?:Calling|Called)-Station-Id[ \t]*[=:][ \t]*\"?\+?(\d{8,15})(?![\d.:-])",
       v.told_phone_ok, prefilter=r"(?i)(?:Calling|Called)-Station-Id[ \t]*[=:]", group=1,
       needles=("Station-Id", "station-id", "STATION-ID"), joined=_nothing_joined,
       joined_prefilter=r"(?i)(?:Calling|Called)-Station-Id[ \t]*[=:]"),
    # X12 EDI's contact segments: "PER*IC*BILLING DEPT*TE*4806554495" (TE: telephone).
    _d("phone", r"(?<=\*TE\*)(\d{10,15})(?=[*~\n]|$)", v.told_phone_ok, prefilter=r"\*TE\*\d{10}",
       group=1, needles=("*TE*",), joined=_nothing_joined, joined_prefilter=r"\*TE\*\d{10}"),
    # International numbers dialled with 00 instead of +. Before the card detector: a card
    # number never starts with 0, and its checksum blocker would hide the phone number.
    # A separator may follow the 00 ("00 49 30 1234567"), then the country code. Not three
    # groups of five digits (Windows' product id, "00330-80000-00000-AA...", or its joined
    # reading with spaces).
    # (nor a drug's NDC code, labeler-product-package: 00378-0018-77, 0054-4297-25)
    # (nor a parcel's tracking number, DHL's 00 and ten digits: after a word for one, or with
    # its carrier after it, "006987681586,DHL")
    # (nor a product's GTIN as a device's UDI or a barcode names it)
    # (nor an invoice's number, establishment, point and sequence: "Factura: 001-741-7931236")
    _d("phone", r"(?=0)(?!\d{5}[ -]\d{5}[ -]\d{5})(?!00\d{2,3}([ -])\d{3,4}\1\d{1,2}(?![\d-]))"
       r"(?!0\d{2}([ _-])\d{3}\2\d{7,9}(?![\d_-]))"
       r"(?<!UDI-DI )(?<!UDI )(?<!GTIN )(?<!GTIN: )(?<!barcode=)(?<!barcode: )(?<!EAN )"
       # (a GTIN as JSON's key holds it: "gtin": "0029812983844")
       r'(?<!gtin": ")(?<!gtin":")'
       # (a food scanner's "ean=0052521860632", a feed's gtin= and upc=)
       r"(?<![Ee][Aa][Nn]=)(?<![Gg][Tt][Ii][Nn]=)(?<![Uu][Pp][Cc]=)(?<!EAN: )(?<!ean: )"
       # (a GS1 barcode's GTIN after its application identifier: "]d2(01)0097357811452")
       r"(?<!\(01\))"
       # (an order's or a ticket's number after "#": "Order #0099-3475-8203-7922")
       r"(?<!#)"
       + _L + _NOT_IN_HEX_DUMP + _NOT_SECONDS
       + _NOT_AN_ACCOUNT + _NOT_A_PARCEL
       + r"00(?:[1-9](?:\d{9,13}|\d{0,3}(?:[ .-]\d{1,9}){1,5})"
       r"|[ .-][1-9]\d{0,2}(?:[ .-]\d{1,8}){1,5})" + _R + _NOT_BEFORE_HEX_BYTES
       + r"(?![ \t]*[,;|(][ \t]*(?:DHL|UPS|FedEx|GLS|DPD|Hermes|USPS|PostNL|Colissimo|InPost))",
       v.international_00_ok,
       prefilter=r"00[1-9]\d{0,3}[ .-]\d|00[1-9]\d{9}|00[ .-][1-9]\d{0,2}[ .-]\d",
       needles=("00",), start=_at_literal(("00",)), joined=_joined_digits(10, "00"),
       starts=((_ND + r"00[1-9]", 3), (_ND + r"00[ .-][1-9]", 4)),
       joined_starts=((_ND + r"00[1-9]", 3), (_ND + r"00[ ._-][1-9]", 4)),
       joined_prefilter=r"00[1-9]\d{0,3}[ ._-]\d|00[1-9]\d{9}|00[ ._-][1-9]\d{0,2}[ ._-]\d"),
    # An IBAN typed in lower case, after the word for it ("refund to IBAN nl56tljl0649327339",
    # "mon RIB : fr11 4153 ..."). Joiners, spaces and separators read alike wherever it reads
    # one: the joined pass has nothing to rescan.
    _d("iban",
       r"(?<![A-Za-z])(?:[Ii][Bb][Aa][Nn]|[Rr][Ii][Bb])(?![A-Za-z])[^\n\d]{0,30}?(?<![A-Za-z0-9])"
       r"([a-z]{2}\d{2}(?:[ _-]?[a-zA-Z0-9]{4}){2,7}(?:[ _-]?[a-z0-9]{1,3})?)(?![A-Za-z0-9])",
       v.iban_ok, prefilter=r"(?i)(?:iban|rib)[^\r\n]{0,40}[a-z]{2}\d{2}",
       group=1, needles=("iban", "IBAN", "Iban", "rib", "RIB"), digits=True,
       start=_at_literal(("iban", "rib"), fold=True), joined=_nothing_joined,
       joined_prefilter=r"(?i)(?:iban|rib)[^\r\n]{0,40}[a-z]{2}\d{2}"),
    # Poland's account number (NRB) as Poles write it, without "PL": two check digits and six
    # groups of four ("17 1023 2990 4623 5404 0217 2796"), its IBAN's checksum with PL before.
    _d("iban", r"(?<![\w.,/-])(\d{2}(?: \d{4}){6})(?![\w-]|[.,/]\d)", v.nrb_ok,
       prefilter=r"\d{2} \d{4} \d{4} \d{4} \d{4} \d{4} \d{4}", group=1, needles=(" ",), digits=True,
       start=_at_class(r"\d"), joined=_nothing_joined,
       joined_prefilter=r"\d{2}[ _-]\d{4}[ _-]\d{4}[ _-]\d{4}[ _-]\d{4}[ _-]\d{4}[ _-]\d{4}"),
    # Mexico's CLABE, its IBAN, under its name ("Cuenta CLABE: 012580701756758963", "mi clabe
    # interbancaria: 002 580 24268331726 3"): eighteen digits, a weighted check digit.
    _d("iban",
       r"(?i)(?<![a-z])clabe(?![a-z])[^\n\d]{0,48}?(?<!\d)(\d{3}[ _-]?\d{3}[ _-]?\d{11}[ _-]?\d)"
       r"(?!\d)",
       v.clabe_ok, prefilter=r"(?i)clabe[^\r\n]{0,40}\d{3}", group=1,
       needles=("clabe", "CLABE", "Clabe"), digits=True,
       start=_at_literal(("clabe",), fold=True), joined=_nothing_joined,
       joined_prefilter=r"(?i)clabe[^\r\n]{0,40}\d{3}"),
    # (a country's code that starts IBANs: a GDS's "AX3772..." is a card after Amex's code,
    # and an IBAN's shape that fails would hide it)
    _d("iban", r"(?=" + _IBAN_COUNTRY + r"\d)" + _edge(r"\w")
       + r"[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}"
       r"(?: ?[A-Z0-9]{1,3})?(?!\w)",
       v.iban_ok, prefilter=r"[A-Z]{2}\d{2} ?[A-Z0-9]{4} ?[A-Z0-9]{4}", checksummed=True,
       prefix=v.iban_prefix, digits=True, start=_at_class(r"\d", 2), joined=_joined_iban,
       starts=((_ND + r"[A-Z]{2}\d{2}", 4),),
       joined_prefilter=r"[A-Z]{2}\d{2}[ _-]?[A-Z0-9]{4}[ _-]?[A-Z0-9]{4}"),
    # An MT940 statement's ?-subfields: the counterparty's IBAN in ?31 (?30 its BIC, ?32 its
    # name), the subfield's digits right before it.
    _d("iban", r"\?3[0-4]([A-Z]{2}\d{2}[A-Z0-9]{11,30})(?=\?\d\d|\s|$)", v.iban_ok,
       prefilter=r"\?3\d[A-Z]{2}\d{2}[A-Z0-9]{11}", checksummed=True, group=1,
       needles=("?3",), joined=_nothing_joined,
       joined_prefilter=r"\?3\d[A-Z]{2}\d{2}[A-Z0-9]{11}"),
    # An EMV chip's data (ISO 8583 field 55, a switch's log of it): tag 5A holds the card's
    # number in BCD, "F"-padded to whole bytes.
    _d("credit_card",
       r"(?i)(?:f55|de55|field[ _]?55|icc[ _]?data|emv[ _]?data)[\w\]]*[ \t]*[=:\[][ \t]*"
       r"(?:[0-9a-f]{2})*?5a0([6-9a])((?:\d\d){6,10}|(?:\d\d){5,9}\df)",
       v.luhn_13_19, prefilter=r"(?i)(?:f55|de55|field[ _]?55|icc[ _]?data|emv[ _]?data)",
       group=2, needles=("55", "ICC", "icc", "EMV", "emv"), digits=True,
       joined=_nothing_joined,
       joined_prefilter=r"(?i)(?:f55|de55|field[ _]?55|icc[ _]?data|emv[ _]?data)"),
    # EMV 3-D Secure's phone fields: a country code and the subscriber's number apart
    # ("mobilePhone": {"cc": "33", "subscriber": "643363659"}).
    _d("phone",
       r"(?i)(?:mobile|home|work)Phone\\?\"[ \t]*:[ \t]*\{[ \t]*\\?\"cc\\?\"[ \t]*:[ \t]*"
       r"\\?\"\d{1,3}\\?\"[ \t]*,[ \t]*\\?\"subscriber\\?\"[ \t]*:[ \t]*\\?\"(\d{4,15})\\?\"",
       prefilter=r"(?i)(?:mobile|home|work)Phone\\?\"[ \t]*:[ \t]*\{", group=1,
       needles=("subscriber",), digits=True, joined=_nothing_joined,
       joined_prefilter=r"(?i)(?:mobile|home|work)Phone\\?\"[ \t]*:[ \t]*\{"),
    # A NACHA child-support addendum (DED): the absent parent's SSN is its sixth field.
    _d("us_ssn", r"\b705DED\*CS\*[^*\\\n]*\*\d{6}\*\d{10}\*(\d{9})\*", v.ssn_ok,
       prefilter=r"705DED\*CS\*", group=1, needles=("705DED*",), digits=True,
       joined=_nothing_joined, joined_prefilter=r"705DED\*CS\*"),
    # A GDS's form of payment (Amadeus' "FP CCVI4111111111111111/0327"): CC, the card's
    # two-letter code, the number.
    _d("credit_card", r"(?<![A-Za-z0-9])CC[A-Z]{2}(\d{13,19})(?!\d)", v.luhn_13_19, group=1,
       prefilter=r"CC[A-Z]{2}\d{13}", needles=("CC",), digits=True,
       start=_at_literal(("CC",)), joined=_nothing_joined),
    # ... Sabre's, the card's code then the number ("FORM OF PAYMENT 1.AX377298919220876¥07/28"),
    # and the security code Amadeus keeps after the expiry ("/0529*CV872").
    _d("credit_card", r"(?<![A-Za-z0-9])(?:AX|VI|CA|MC|DC|DS|JC|TP)(\d{13,19})(?=[¥/ \t]|$)",
       v.luhn_13_19, group=1, prefilter=r"(?:AX|VI|CA|MC|DC|DS|JC|TP)\d{13}", digits=True,
       needles=("AX", "VI", "CA", "MC", "DC", "DS", "JC", "TP"), joined=_nothing_joined,
       joined_prefilter=r"(?:AX|VI|CA|MC|DC|DS|JC|TP)\d{13}"),
    _d("credit_card", r"/\d{4}\*CV(\d{3,4})(?!\d)", prefilter=r"/\d{4}\*CV\d{3}", group=1,
       needles=("*CV",), digits=True, joined=_nothing_joined,
       joined_prefilter=r"/\d{4}\*CV\d{3}"),
    # A card's code after the card and its expiry, as people paste the three together
    # ("вот карта: 2200705032409144 11/28 964"): the code is the group after the expiry.
    _d("credit_card",
       r"(?<![\d.,/-])((?:\d[ -]?){12,18}\d[ \t]+(?:0[1-9]|1[0-2])/(?:\d\d|20\d\d)[ \t,;]+"
       r"\d{3,4})(?![\d.,/-]?\d)", v.card_expiry_code_ok,
       prefilter=r"\d{4}[ \t]+[01]\d/\d\d[ \t,;]+\d{3}", group=1, digits=True,
       needles=("/",), joined=_nothing_joined,
       joined_prefilter=r"\d{4}[ \t_-]+[01]\d/\d\d[ \t,;_-]+\d{3}"),
    # A number told as a card ("charge my card 3791 8861 6104 5538 exp 02/26"): 13 to 19
    # digits that pass Luhn, whatever the issuer's prefix says of the length. Joiners,
    # spaces and dashes read alike: the joined pass has nothing to rescan.
    # After a JSON string's escaped line break too ("\nTarjeta de garantía: 5980 ..."),
    # Vietnamese's "số thẻ", and a card's number as a field ("pan": "...").
    _d("credit_card",
       r"(?i)(?:(?<![a-z])|(?<=\\[nrt]))"
       r"(?:card|tarjeta|carte|karte|cart[ãa]o|carta|kaart|karta|kart[ıi]|بطاق\w*"
       r"|کارت\w*|thẻ|pan(?=\\?[\"']?[ \t]*[:=]))"
       r"(?![a-z])[^\n\d]{0,20}?(?<!\d)(\d{4}(?:[ _-]?\d{3,4}){2,3}(?:[ _-]?\d{1,3})?)(?![\d])",
       v.told_card_ok, group=1,
       prefilter=r"(?i)(?:card|tarjeta|carte|karte|cart[aa]o|carta|kaart|karta|kart|aa|tha|pan)"
                 r"[^\r\n]{0,24}\d{4}",
       needles=("ard", "ARD", "arjeta", "arte", "arta", "aart", "art", "بطاق", "کارت", "thẻ",
                "pan"),
       digits=True,
       start=_at_literal(("card", "tarjeta", "carte", "karte", "cart", "kaart", "karta", "kart",
                          "بطاق", "کارت", "thẻ", "pan"), fold=True),
       joined=_nothing_joined,
       joined_prefilter=r"(?i)(?:card|tarjeta|carte|karte|cart[aa]o|carta|kaart|karta|kart|aa|tha|pan)"
                        r"[^\r\n]{0,24}\d{4}"),
    _d("credit_card",
       # No issuer number starts with 0: such a run is an id or a phone number (0049...).
       # (not a clock's reading under its key: Triton's {"name": ..., "ns": 2302989477428812})
       r"(?=[1-9])" + _L + _NOT_A_CLOCK
       # (four-digit groups inside a longer run of them are a document's key, not a card:
       # Brazil's NF-e access key, 44 digits in eleven groups; a group of its own before the
       # card, at the text's or a line's start too, "\n" escaped or not, and not the end of
       # a longer token: an IBAN's "...3000 4111 1111 1111 1111")
       + r"(?:[1-9]\d{12,18}|(?<!\W\d{4} )(?<!^\d{4} )(?<!\\n\d{4} )"
       r"[1-9]\d{3}([ -])\d{4}\1\d{4}\1\d{1,4}(?:\1\d{1,3})?"
       r"(?![ -]\d{4}[ -]\d{4})|[1-9]\d{3}([ -])\d{6}\2\d{4,5})" + _R,
       # (a short group after a grouped card's own is its expiry or a count: the card is the
       # groups before it, "4111 1111 1111 1111 12/26")
       prefix=v.card_prefix,
       prefilter=r"\d{13}|\d{4}[ -]\d{4}[ -]\d{4}[ -]\d|\d{4}[ -]\d{6}[ -]\d{4}",
       checksummed=True, digits=True, start=_at_class("[1-9]", within=r"\d"),
       starts=((_ND + r"[1-9]\d{12}", 13),
               (_ND + r"[1-9]\d{3}[ -](?:\d{4}[ -]\d{4}[ -]\d|\d{6}[ -]\d{4})", 16)),
       joined_starts=((_ND + r"[1-9]\d{12}", 13),
                      (_ND + r"[1-9]\d{3}[ _-](?:\d{4}[ _-]\d{4}[ _-]\d|\d{6}[ _-]\d{4})", 16)),
       joined=_joined_digits(13),
       joined_prefilter=r"\d{13}|\d{4}[ _-]\d{4}[ _-]\d{4}[ _-]\d|\d{4}[ _-]\d{6}[ _-]\d{4}"),
    # A card's groups told with wider gaps: a call's transcript ("4484 - 2745 - 2362 - 5596")
    # or an OCR'd card with two spaces between its groups ("3474  976264  47759").
    _d("credit_card",
       r"(?<![\d-])([1-9]\d{3}( - |  )\d{4}\2\d{4}\2\d{1,4}|3[47]\d{2}(  | - )\d{6}\3\d{5})"
       r"(?![\d]| ?-[ ]?\d)", v.card_number_ok,
       prefilter=r"\d{4}[ _-]{2,3}\d{4}[ _-]{2,3}\d|3[47]\d{2}[ _-]{2,3}\d{6}[ _-]{2,3}\d",
       checksummed=True, digits=True, start=_at_class("[1-9]", within=r"\d"),
       joined=_nothing_joined,
       joined_prefilter=r"\d{4}[ _-]{2,3}\d{4}[ _-]{2,3}\d|3[47]\d{2}[ _-]{2,3}\d{6}[ _-]{2,3}\d"),
    # A card number typed with a space between its digits ("4 0 2 4 4 5 6 1 ...").
    _d("credit_card", r"(?<!\d)(?<!\d )[1-9](?: \d){12,18}(?! ?\d)", v.card_number_ok,
       prefilter=r"\d \d \d \d \d \d \d \d \d \d \d \d \d", checksummed=True, digits=True,
       start=_at_class("[1-9]", within=r"\d"), joined=_joined_digits(13),
       joined_prefilter=r"\d[ _-]\d[ _-]\d[ _-]\d[ _-]\d[ _-]\d[ _-]\d[ _-]\d[ _-]\d[ _-]\d[ _-]\d"
                        r"[ _-]\d[ _-]\d"),
    # (not a cell's tracking area, MCC-MNC-TAC: an MME's "TAI=262-02-7215")
    # (not a part's number: "PSU part no. 390-42-8175")
    _d("us_ssn", r"(?=\d)" + _L + r"(?<!TAI=)(?<!tai=)(?<!part no\. )(?<!part no )(?<!P/N )"
       r"\d{3}([- ])\d{2}\1\d{4}" + _R, v.ssn_ok,
       prefilter=r"\d{3}[- ]\d{2}[- ]\d{4}", digits=True, start=_at_class(r"\d"),
       starts=((_ND + r"\d{3}[- ]\d{2}[- ]\d{4}", 11),),
       joined_starts=((_ND + r"\d{3}[ _-]\d{2}[ _-]\d{4}", 11),),
       joined=_joined_digits(9), joined_prefilter=r"\d{3}[ _-]\d{2}[ _-]\d{4}"),
    # X12 EDI (837/835 claims): a REF segment qualified SY holds an SSN ("REF*SY*123456789~").
    # (no space in a match or around it: the joined reading changes nothing)
    _d("us_ssn", r"REF\*SY\*(\d{3}-?\d{2}-?\d{4})(?=[*~\n]|$)", v.ssn_ok,
       prefilter=r"REF\*SY\*\d{3}-?\d{2}-?\d{4}", group=1, needles=("REF*SY*",),
       # (read with its dashes as spaces, the prefilter takes nine digits only)
       joined=_nothing_joined, joined_prefilter=r"REF\*SY\*\d{9}"),
    # ... an 834's member (NM1*IL with id qualifier 34, an SSN) and its subscriber number
    # (REF*0F), nine digits an SSN's ranges take
    _d("us_ssn", r"NM1\*(?:IL|QC|74)\*[12](?:\*[^*~\n]*){5}\*34\*(\d{9})(?=[*~\n]|$)", v.ssn_ok,
       prefilter=r"NM1\*(?:IL|QC|74)\*[12]", group=1, needles=("*34*",), joined=_nothing_joined,
       joined_prefilter=r"NM1\*(?:IL|QC|74)\*[12]"),
    _d("us_ssn", r"REF\*0F\*(\d{9})(?=[*~\n]|$)", v.ssn_ok, prefilter=r"REF\*0F\*\d{9}", group=1,
       needles=("REF*0F*",), joined=_nothing_joined, joined_prefilter=r"REF\*0F\*\d{9}"),
    # ... and a member's phone in a PER segment (home, cell, work, telephone)
    _d("phone", r"PER\*[A-Z0-9]{2}\*[^*~\n]*\*(?:HP|TE|CP|WP|BN)\*(\d{10})(?=[*~\n]|$)",
       v.told_phone_ok, prefilter=r"PER\*[A-Z0-9]{2}\*", group=1, needles=("PER*",),
       joined=_nothing_joined, joined_prefilter=r"PER\*[A-Z0-9]{2}\*"),
    # Nine digits with no dashes only under an SSN key: alone they are any other id.
    # (and under a taxpayer id's, TIN or ITIN: in the US most people's TIN is their SSN)
    _d("us_ssn",
       # (and a camel-case key's, IRS e-file's <PrimarySSN>, <SpouseSSN>)
       r"(?i)(?:(?<![a-z0-9])|(?-i:(?<=[a-z])(?=SSN)))"
       # (a Salesforce custom field's, SSN__c; Stripe Connect's individual's id_number)
       r"(?:ssn(?:__c)?|social[_ -]?security(?:[_ -]?(?:number|no))?|(?-i:I?TIN)|id[_-]?number)"
       r"\\?[\"']?\s*"
       # (FHIR's token search: "identifier=...us-ssn|123456789")
       r"[:=|,>]?\s*(?:(?:it'?s|it is|is|was)\s*:?\s*)?(?:\\?[\"'])?(\d{9})(?!\d)", v.ssn_ok,
       prefilter=r"(?i)ssn|social[_ -]?security|(?-i:TIN)|id[_ -]?number", group=1,
       needles=("ssn", "SSN", "Ssn", "ecurity", "ECURITY", "TIN", "id_number", "id-number",
                "idnumber", "ID_NUMBER", "idNumber", "IdNumber"), digits=True,
       start=_at_literal(("ssn", "social", "TIN", "ITIN", "id_number", "id-number", "idnumber"),
                         fold=True), joined=_joined_ssn_key,
       starts=((r"(?i)ssn|soc|idn", 3), (r"TIN", 3), (r"ITI", 3), (r"(?i)id[_-]n", 4)),
       joined_prefilter=r"(?i)ssn|social[_ -]?security|(?-i:TIN)|id[_ -]?number"),
    # ... or a few words after the word, in prose or an error ("my SSN. i typed 568967118",
    # "Invalid SSN checksum for applicant: 462144005"): no digit between, and not a number
    # the words before it name (an order's, a ticket's) nor another field's value.
    _d("us_ssn",
       r"(?i)(?<![a-z0-9])(?:ssn|social[ -]security(?:[ -]number)?)(?![a-z0-9])"
       # (not across another field: an "=", a "|", a JSON or dict key's end)
       r"(?:(?![\"'],|[,;][ \t]*[\"'])[^\d\n=|]){1,40}?(?<![a-z0-9-])" + _NOT_A_NAMED_NUMBER
       + r"(\d{9})(?![\d-])", v.ssn_ok,
       prefilter=r"(?i)(?:ssn|social[ -]security)[^\d\r\n]{1,40}\d{9}", group=1,
       needles=("ssn", "SSN", "Ssn", "ecurity", "ECURITY"), digits=True,
       start=_at_literal(("ssn", "social"), fold=True), joined=_nothing_joined,
       starts=((r"(?i)ssn|soc", 3),),
       joined_prefilter=r"(?i)(?:ssn|social[ -]security)[^\d\r\n]{1,40}\d{9}"),
    # ... or "my social" as Americans say it ("for the tax form my social is 500863537").
    _d("us_ssn",
       r"(?i)(?<![a-z])my[ \t]+social(?:[ \t]+(?:number|no\.?|#))?[ \t]*(?::|is|was|=)[ \t]*"
       r"(\d{3}-?\d{2}-?\d{4})(?![\d-])", v.ssn_ok,
       prefilter=r"(?i)my[ \t]+social[^\r\n]{1,16}\d{3}", group=1, needles=("social", "SOCIAL"),
       digits=True, start=_at_literal(("my",), fold=True), joined=_nothing_joined,
       joined_prefilter=r"(?i)my[ \t]+social[^\r\n]{1,16}\d{3}"),
    # An IPv6 address with its port and no brackets (an ALB's or HAProxy's client field,
    # OkHttp's host/2600:...:443): eight groups then the port, or a compressed address then
    # a port no group can be (five digits). The plain detector below refuses the run whole.
    *_with_private_twin(_d("ipv6",
       r"(?<![\w:.])((?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}(?=:\d{1,5}(?![\w:.]))"
       r"|(?:[0-9A-Fa-f]{1,4}:){1,6}(?::[0-9A-Fa-f]{1,4}){1,6}(?=:\d{5}(?![\w:.])))", v.ipv6_ok,
       prefilter=r"[0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{1,4}){7}:\d|::[0-9A-Fa-f:]*:\d{5}", group=1,
       needles=(":",), start=_at_literal((":",), 4), joined=_joined_ipv6,
       joined_prefilter=r"[0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{1,4}){7}:\d|::[0-9A-Fa-f:]*:\d{5}"),
       v.ipv6_private_ok),
    # An IPv6 address with its port after a dot: Apple's Network framework
    # ("IPv6#2600:1f18::b8db.443", a scope "%en0" perhaps between) and tcpdump ("IP6
    # 2001:db8::1.443 > 2001:db8::2.55012:"). The plain detector refuses the dotted tail.
    *_with_private_twin(_d("ipv6",
       r"(?:(?<=IPv6#)|(?<=IP6 )|(?<=> ))([0-9A-Fa-f]{0,4}:[0-9A-Fa-f:]{1,38})(?:%\w+)?"
       r"\.\d{1,5}(?![\w.])", v.ipv6_ok,
       prefilter=r"(?:IPv6#|IP6 |> )[0-9A-Fa-f]{0,4}:[0-9A-Fa-f:]+(?:%\w+)?\.\d", group=1,
       needles=("IPv6#", "IP6 ", "> "), start=_at_literal(("IPv6#", "IP6 ", "> ")),
       joined=_joined_ipv6,
       joined_prefilter=r"(?:IPv6#|IP6[ _-]|>[ _-])[0-9A-Fa-f]{0,4}:[0-9A-Fa-f:]+(?:%\w+)?\.\d"),
       v.ipv6_private_ok),
    # A US tax id (an SSN for a person) under its key, nine bare digits.
    _d("us_ssn",
       r"(?i)(?<![a-z0-9])tax[_ -]?id(?:entification)?(?:[_ -]?(?:number|no))?\\?[\"']?[ \t]*"
       r"[:=][ \t]*\\?[\"']?(\d{9})(?!\d)", v.ssn_ok,
       prefilter=r"(?i)tax[_ -]?id", group=1, needles=("tax", "TAX", "Tax"),
       start=_at_literal(("tax",), fold=True), joined=_joined_tax_key,
       joined_prefilter=r"(?i)tax[_ -]?id"),
    # National ids other than the SSN: after the document's name, or, for the three whose
    # shape is their own, anywhere (national_ids.py: each country's check decides).
    *_NATIONAL_IDS,
    *_SYSTEM_FIELDS,
    *_TELECOM_IDS,
    *_CARD_CODES,
    *_NAMED_FIELDS,
    *_SECURITY_ANSWERS,
    )


def _detectors_third() -> tuple[Detector, ...]:
    """The table's last part: the addresses, the held-out rounds' shapes and the phones."""
    return (
    # A CIDR block (10.0.0.0/8, 2001:db8::/32) names a network, not a host: not reported,
    # unless it holds exactly one host (/32, /128: an allow-list entry for one client).
    # Addresses of private networks are a twin kind a policy opts into (validators.py).
    *_with_private_twin(_d("ipv6",
       # after a colon only when a name ends there (Go's PeerAddr:2a01:4f8::1), not a group
       # (or an ASA's interface: "src outside:2003:40eb::1/30936")
       # (after an ellipsis too: strongSwan's "local[id]...remote[id]")
       r"(?=[0-9A-Fa-f:])(?:" + _edge(r"\w.") + r"|(?<=\.\.\.))"
       r"(?<!::)(?:(?<=[G-Zg-z_]:)|(?<=side:)|(?<!:))"
       r"(?:[0-9A-Fa-f]{1,4}|:)[0-9A-Fa-f:.]{1,43}"
       r"(?:[0-9A-Fa-f]|::)(?:%[\w.]+)?"
       # (a colon after it ends a field: "x-forwarded-for=2406:...:1b48: rate limit"; after
       # a "/", a prefix length is a network's, unless /128, and a port follows an ASA's
       # address, "outside:2003:40eb::1/30936": four or five digits, or three over 128)
       # (or a line's end: a YAML mapping's key, "2a01:4f9:442a:cc95::8b04:2c9e:\n")
       r"(?!\w|:(?![ \t\"'\r\n]|$)"
       r"|/(?!128(?!\d)|\d{4,5}(?!\d)|(?:129|1[3-9]\d|[2-9]\d\d)(?!\d))\d)",
       v.ipv6_ok,
       # A valid address holds "::" or six groups in a row; a time of day (12:30:45) neither.
       prefilter=r"::|[0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{1,4}){5}:", needles=(":",),
       start=_at_literal((":",), 4), joined=_joined_ipv6,
       joined_prefilter=r"::|[0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{1,4}){5}:"), v.ipv6_private_ok),
    *_with_private_twin(_d(
       "ipv4", r"(?=\d)" + _edge(r"\w.-") + _NOT_A_VERSION + r"(?:\d{1,3}\.){3}\d{1,3}"
       # (after a "/", one or two digits are a prefix length; more are a port, as the ASA
       # writes "outside:161.46.172.62/5205")
       # (nor a version's build metadata after it: "Build id: 23.4.4.223+8d7e6f5a")
       r"(?![\w-]|\.\w|/(?!32(?!\d))\d\d?(?!\d)|\+[0-9a-f]{6})"
       # (not llama.cpp's log stamp: minutes, seconds, ms and µs, then the level: "16.15.202.152
       # I srv  load: ...")
       r"(?<!\.\d{3}\.\d{3}(?=[ \t][DIWE][ \t]))", v.ipv4_ok,
       prefilter=r"\d\.\d{1,3}\.\d{1,3}\.\d", needles=(".",), digits=True,
       start=_at_class(r"\d"), joined=_joined_digits(4, "."),
       # Not after a dot (the pattern looks behind for one): "10.1.2.3" starts once, not
       # again at "1.2." (not a joiner either: the joined reading takes it for a space).
       starts=_ipv4_starts("[^0-9.]"),
       joined_prefilter=r"\d\.\d{1,3}\.\d{1,3}\.\d"), v.ipv4_private_ok),
    # An interface's address with its prefix length ("155.206.52.102/29 dev eth0"): a host's
    # address, unlike a network's (10.0.0.0/8), which has no host bits set.
    _d("ipv4", r"(?=\d)" + _edge(r"\w.-") + r"(?:\d{1,3}\.){3}\d{1,3}/(?:3[01]|[12]?\d)(?![\w.-])",
       v.interface_ipv4_ok, prefilter=r"\d\.\d{1,3}\.\d{1,3}\.\d{1,3}/\d", needles=("/",),
       digits=True, start=_at_class(r"\d"), joined=_joined_digits(4, "."),
       joined_prefilter=r"\d\.\d{1,3}\.\d{1,3}\.\d{1,3}/\d"),
    # An IPv6 interface's address with its prefix length ("2804:14d:89c:40:a05:4f:e:8/64" in a
    # Diameter dump, "inet6 2a01:4f8::6b1/64 scope global"): a host's, its host bits set. A
    # network's own (2600:1f18::/56, a subscriber's delegated /64) is a CIDR block, left.
    _d("ipv6", r"(?=[0-9A-Fa-f:])" + _edge(r"\w.:") + r"(?:[0-9A-Fa-f]{1,4}|:)[0-9A-Fa-f:]{1,38}"
       r"(?:[0-9A-Fa-f]|::)/(?:12[0-7]|1[01]\d|[1-9]\d)(?![\w.-])",
       v.ipv6_interface_ok, prefilter=r":[0-9A-Fa-f]{0,4}/\d\d", needles=("/",),
       joined=_nothing_joined, joined_prefilter=r":[0-9A-Fa-f]{0,4}/\d\d"),
    # A defanged address, as threat reports write an indicator so no one clicks it
    # ("89[.]42[.]110[.]213", "185.220.101(.)4", "203[dot]0[dot]113[dot]9"). "-", "_" and a
    # space are read alike around it: the joined reading finds nothing new.
    _d("ipv4", r"(?<![A-Za-z0-9.\]])(?=[\d.]*(?:\[\.\]|\(\.\)|\[dot\]))"
       r"(?:\d{1,3}(?:\[\.\]|\(\.\)|\[dot\]|\.)){3}\d{1,3}(?![A-Za-z0-9\[(]|\.\d)",
       v.defanged_ipv4_ok, prefilter=r"\d(?:\[\.\]|\(\.\)|\[dot\])\d",
       needles=("[.]", "(.)", "[dot]"),
       digits=True, joined=_nothing_joined,
       joined_prefilter=r"\d(?:\[\.\]|\(\.\)|\[dot\])\d"),
    # Spain's and Portugal's tax numbers in their e-invoices' elements (Facturae's
    # <TaxIdentificationNumber>, SAF-T PT's <CustomerTaxID>): a person's, by its check (a
    # company's CIF and NIPC fail it).
    _d("national_id",
       r"<(?:TaxIdentificationNumber|CustomerTaxID|SupplierTaxID)>([0-9XYZ]\d{7,8}[A-Z]?)</",
       ids.iberian_tax_id_ok,
       prefilter=r"<(?:TaxIdentificationNumber|CustomerTaxID|SupplierTaxID)>", group=1,
       needles=("TaxIdentificationNumber>", "TaxID>")),
    # A mobile number of Portugal's or Poland's in brackets after a name (MB WAY's "Recebeu
    # ... de HELENA RIBEIRO (924 104 670)", "pracownika banku (572-122-878)").
    _plain("phone", r"\(([5-9]\d{2}[ _-]\d{3}[ _-]\d{3})\)", v.told_phone_ok,
           prefilter=r"\([5-9][0-9]{2}[ _-][0-9]{3}[ _-][0-9]{3}\)", needles=("(",),
           digits=True),
    # Remote support tools' passwords on their command lines: TeamViewer's (teamviewer passwd
    # 'X', TeamViewer.exe setpassword X) and AnyDesk's for a permission profile (anydesk
    # --set-password _unattended_access X); and an ID with its password after a slash, as a
    # technician passes them on ("TV 378 442 830 / 8vuimkso").
    *_each("secret_assignment",
           # (with a digit or a symbol: not a chat command's "/setpassword for claim vaults")
           (r"(?i)(?<![\w-])(?:setpassword|(?<=teamviewer )passwd)[ \t]+(?=['\"]?\S*[\d!@#$%^&*])"
            r"('[^'\n]+'|\"[^\"\n]+\"|[^\s'\"]+)",
            r"(?i)--set-password[ \t]+_[a-z_]*access[ \t]+([^\s'\"]+)"),
           v.command_line_secret_ok,
           prefilter=r"(?i)setpassword[ \t]|teamviewer[ \t]+passwd[ \t]|--set-password[ \t]+_",
           needles=("assword", "ASSWORD", "passwd")),
    _d("secret_assignment",
       r"(?<![\w-])(?:TV|TeamViewer|AnyDesk|RustDesk)(?:[ \t]+ID)?[ \t]*:?[ \t]*"
       r"\d{3}[ \t]?\d{3}[ \t]?\d{3,4}[ \t]*/[ \t]*([^\s/,;]{4,32})",
       v.secret_value_ok,
       prefilter=r"(?:TV|TeamViewer|AnyDesk|RustDesk)[^\r\n]{0,8}[0-9]{3}[ \t]?[0-9]{3}[ \t]?"
                 r"[0-9]{3,4}[ \t]*/",
       group=1, needles=("TV", "TeamViewer", "AnyDesk", "RustDesk")),
    # Chrome Remote Desktop's host setup: the PIN as its prompt takes it, and the OAuth
    # authorization code it starts with (Google's "4/0A...", a grant whoever holds redeems).
    _d("secret_assignment",
       r"Enter (?:a PIN of at least six digits|the same PIN again):[ \t]*(\d{6,})",
       prefilter=r"Enter (?:a PIN of|the same PIN)", group=1, needles=("PIN",)),
    _d("bearer_token", r"(?<![\w/])4/0A[A-Za-z0-9_-]{40,}(?![\w-])",
       prefilter=r"4/0A[A-Za-z0-9_-]{40}", needles=("4/0A",), start=_at_literal(("4/0A",))),
    # Quick Assist's code (six capitals and digits) after the tool's name, in the languages
    # its users write ("abrí lo de Asistencia rápida, me sale el código 9Z34ZF", "Quick Assist
    # with Susan P. - ... Her code was 6XY7FL", "I gave them a Quick Assist code (44KFE8)").
    _d("secret_assignment",
       r"(?i)(?:quick[ \t]?assist|asistencia[ \t]+r[áa]pida|schnellhilfe|assistance[ \t]+rapide"
       r"|assist[êe]ncia[ \t]+r[áa]pida|assistenza[ \t]+rapida)[\s\S]{0,300}?(?<![\w-])"
       # (not a Windows update's number, "KB503417")
       r"(?-i:(?=[A-Z]*\d)(?=\d*[A-Z])(?!KB\d)([A-Z0-9]{6}))(?![\w-])",
       prefilter=(r"(?i)quick[ \t]?assist|asistencia[ \t]+r|schnellhilfe|assistance[ \t]+rapide"
                  r"|assist.ncia[ \t]+r|assistenza[ \t]+rapida"),
       group=1, gate=r"(?i:assist|asisten|schnellhilfe)"),
    # A code a support tool's or a sign-in page asks for, told with the verb for entering it
    # ("enter the code 359093 and click Join", "escriba el código 163331").
    _d("secret_assignment",
       r"(?i)(?<![a-z])(?:enter|type|entered|typed|escriba|introduzca|introduce|ingrese|digite"
       r"|insira|inserisci|saisissez|entrez)[ \t]+(?:(?:the|this|your|el|este|su|tu|o|seu|il"
       r"|le|votre|ce)[ \t]+)?(?:code|c[óo]digo|codice)[ \t]+(\d{6,9})(?![\d.,:/-]?\d)",
       prefilter=(r"(?i)(?:enter|type|escriba|introduzca|introduce|ingrese|digite|insira"
                  r"|inserisci|saisissez|entrez)[a-z]*[ \t]+[^\r\n]{0,8}(?:code|c.digo|codice)"
                  r"[ \t]+[0-9]{6}"),
       group=1, digits=True),
    # A recovery code in capitals told in its message ("Your account recovery code is:
    # KKGKZT", "Seu código de recuperação é: K5VPCS", "Tu código de recuperación es: Z6N3ER").
    _d("secret_assignment",
       r"(?i)(?:recovery[ \t]+code|c[óo]digo[ \t]+de[ \t]+recupera(?:ci[óo]n|[çc][ãa]o)"
       r"|code[ \t]+de[ \t]+r[ée]cup[ée]ration|wiederherstellungscode"
       r"|codice[ \t]+di[ \t]+recupero)[ \t]+(?:is|es|é|est|ist|lautet|è)[ \t]*:?[ \t]*"
       r"(?-i:([A-Z0-9]{6,10}))(?![\w-])", v.not_a_code_stand_in,
       prefilter=(r"(?i)(?:recovery[ \t]+code|c.digo[ \t]+de[ \t]+recupera[a-z]*"
                  r"|code[ \t]+de[ \t]+r.cup.ration|wiederherstellungscode"
                  r"|codice[ \t]+di[ \t]+recupero)[ \t]+[a-z]{1,6}[ \t]*:?"),
       group=1, gate=r"(?i:recover|recupera|r\u00e9cup|recup|wiederherstellung|recupero)"),
    # A one-time code in a password reset's GraphQL request ({"operationName":
    # "CompletePasswordReset", "variables": {..., "code": "561243"}}) and on Cognito's command
    # line (aws cognito-idp confirm-forgot-password --confirmation-code 863216).
    _d("secret_assignment",
       r"(?i)\"operationName\"\s*:\s*\"[^\"\n]*(?:reset|verif|confirm|otp|mfa|2fa|login|signin)"
       r"[^\"\n]*\"[\s\S]{0,400}?\"code\"\s*:\s*\"(\d{4,8})\"",
       prefilter=r"(?i)\"operationName\"", group=1, needles=("operationName",)),
    _d("secret_assignment",
       r"(?<![\w-])--(?:confirmation|verification|mfa|otp|totp)-code(?:=|[ \t]+)(\d{4,8})(?!\d)",
       prefilter=r"--(?:confirmation|verification|mfa|otp|totp)-code", group=1,
       needles=("-code",)),
    # A password's reset token as a cache's key (redis-cli's "GET reset:<token>"; a session's
    # key there is a record's, "TTL session:<uuid>") and the sessions a runbook revoked
    # ("revoked session sess_nAEg...", "revoked session <32 hex>").
    _d("secret_assignment",
       r"(?i)(?<![\w-])(?:GET|SET|SETEX|DEL|TTL|EXPIRE|HGETALL|EXISTS)[ \t]+(?:[\w-]+:)*"
       r"(?:reset|pwreset|password_reset|magic|verify)[:_]([A-Za-z0-9_-]{20,})",
       v.credential_ok,
       prefilter=(r"(?i)(?:GET|SET|DEL|TTL|EXPIRE|EXISTS)[a-z]*[ \t]+[^\r\n]{0,40}(?:reset|magic"
                  r"|verify)[^\r\n]{0,10}[A-Za-z0-9_-]{20}"),
       group=1, gate=r"(?i:reset|magic|verify)"),
    _d("secret_assignment",
       r"(?i)(?<![a-z])(?:revoked|revoking|killed|terminated|invalidated)[ \t]+session[ \t]+"
       r"((?-i:sess_)[A-Za-z0-9]{16,}|[0-9a-f]{32})(?![\w-])",
       prefilter=r"(?i)(?:revok|killed|terminated|invalidated)[a-z]*[ \t]+session[ \t]",
       group=1, needles=("ession", "ESSION")),
    # A password change's log line with the old and the new one (old='X' new='Y').
    *(_d("secret_assignment",
         rf"(?i)pass(?:word|wd)[ \t]+change[^\n]*?[ \t]{which}=(['\"]?)([^'\"\s]{{3,128}})\1"
         r"(?=[ \t]|$)",
         v.secret_value_ok,
         prefilter=r"(?i)pass(?:word|wd)[ \t]+change[^\r\n]*[ \t](?:old|new)=",
         group=2, needles=("assw", "ASSW")) for which in ("old", "new")),
    # A service's recovery codes as a debug log lists them ("mfa.RecoveryCodeService ...
    # generated codes=[\"dhe3-8ajh\", \"6090 4116\"]"): the list, whole.
    _d("secret_assignment",
       r"(?i)(?:recovery|backup)[^\n]{0,120}?[ \t]codes?[ \t]*[=:][ \t]*\["
       r"((?:\\?[\"'][^\"'\n]{4,24}"
       r"\\?[\"'][ \t]*,?[ \t]*){1,20})\]",
       prefilter=r"(?i)(?:recovery|backup)[^\r\n]{0,120}[ \t]codes?[ \t]*[=:][ \t]*\[", group=1,
       gate=r"(?i:recovery|backup)"),
    # Python's set_password("...") (Django's shell, a management command) and a form's pair in
    # werkzeug's debug log (ImmutableMultiDict([('password', 'X')])).
    _d("secret_assignment",
       r"(?i)\.set_?password\([ \t]*(?:raw_password[ \t]*=[ \t]*)?([\"'])([^\"'\n]{1,128})\1"
       r"[ \t]*\)",
       v.secret_value_ok, prefilter=r"(?i)set_?password\([ \t]*", group=2,
       needles=("password(", "Password(")),
    _d("secret_assignment",
       r"(?i)\([ \t]*([\"'])(?:password|passwd|pwd|new_password|password1|password2|passwort"
       r"|senha|contrase\u00f1a|mot_de_passe)\1[ \t]*,[ \t]*([\"'])([^\"'\n]{1,128})\2[ \t]*\)",
       v.secret_value_ok,
       prefilter=r"(?i)\([ \t]*[\"'](?:passw|pwd|new_passw|senha|contrase|mot_de_passe)", group=3,
       needles=("(",)),
    # A code that releases or redeems something, told after its name in capitals and dashes
    # ("give the seller's agent this release code: LUOX-4DVR-4PS2", "claim code: ...").
    _d("secret_assignment",
       r"(?i)(?<![a-z])(?:release|claim|redemption|unlock)[ \t]+code[ \t]*:[ \t]*"
       r"(?-i:((?=[A-Z-]*\d)[A-Z0-9]{4,6}(?:-[A-Z0-9]{4,6}){1,4}))(?![\w-])",
       v.not_a_code_stand_in,
       prefilter=r"(?i)(?:release|claim|redemption|unlock)[ \t]+code[ \t]*:", group=1,
       gate=r"(?i:code)"),
    # A password after its Japanese, Chinese or Korean name, ASCII after the name's colon
    # ("パスワード：eknlqidq") or after a space with a letter and a digit in it ("一時パスワード
    # fcehh7 を電話で確認", "临时密码 mb462e。"): a remote session's one-time password.
    *(_d("secret_assignment",
         "(?:\u30d1\u30b9\u30ef\u30fc\u30c9|\u5bc6\u7801|\u5bc6\u78bc|\ube44\ubc00\ubc88\ud638)"
         + separator + r"([A-Za-z0-9!@#$%^&*._~+-]{6,32})(?![A-Za-z0-9!@#$%^&*._~+-])",
         validator, prefilter=r"aa[^\r\n]{0,3}[A-Za-z0-9!@#$%^&*._~+-]{6}", group=1,
         needles=("\u30d1\u30b9\u30ef\u30fc\u30c9", "\u5bc6\u7801", "\u5bc6\u78bc",
                  "\ube44\ubc00\ubc88\ud638"))
      for separator, validator in (("[ \t]*[:\uff1a][ \t\u3000]*", v.secret_value_ok),
                                   ("[ \t\u3000]+", v.letters_and_digits))),
    # Italy's and Spain's tax portals' own secrets: Fisconline's ten-digit PIN after its
    # login, the Cl@ve PIN (three characters) and Renta WEB's reference (six), a Portuguese
    # bank's multichannel code, and the digits a bank's matrix card gives for the positions it
    # asks ("a matriz pede as posições B3, F7 e H2: 486 483 585").
    _d("secret_assignment",
       r"(?i)(?:fisconline|entratel)[\s\S]{0,200}?(?<![a-z])PIN[ \t]*:[ \t]*(\d{10})(?!\d)",
       prefilter=r"(?i)fisconline|entratel", group=1, gate=r"(?i:fisconline|entratel)",
       digits=True),
    *_each("secret_assignment",
           (r"(?i)PIN(?:[ \t]+de)?[ \t]+Cl@ve(?:[ \t]+PIN)?[ \t]*:?[ \t]*(?-i:([A-Z0-9]{3}))"
            r"(?![\w@])",
            r"(?i)referencia(?:[ \t]+de)?[ \t]+Renta[ \t]*WEB[ \t]*:?[ \t]*(?-i:([A-Z0-9]{6}))"
            r"(?!\w)",
            r"(?i)c[óo]digo[ \t]+multicanal[ \t]*:?[ \t]*(\d{4,8})(?!\d)",
            r"(?i)(?:matriz|cart[ãa]o[ \t]+matriz|tarjeta[ \t]+de[ \t]+coordenadas|coordenadas)"
            r"[^\n]{0,60}?(?:posi[çc](?:[õo]es|[ãa]o)|posiciones|posici[óo]n|casillas?)[^\n:]{0,30}:"
            r"[ \t]*(\d{2,4}(?:[ \t,]+\d{2,4}){0,5})(?![\d.,])"),
           prefilter=(r"(?i)cl@ve|renta[ \t]*web|c.digo[ \t]+multicanal"
                      r"|(?:matriz|coordenadas)[^\r\n]{0,60}(?:posi|casilla)"),
           gate=r"(?i:cl@ve|renta|multicanal|matriz|coordenadas)"),
    # Chrome Remote Desktop's access code (twelve digits) on the line that names the tool
    # ("the chrome thing says code 1518 2606 7188", "Escritorio remoto de Chrome ... Vale:
    # 285235025091").
    _d("secret_assignment",
       r"(?i)(?:chrome[ \t-]+remote[ \t-]?desktop|remote[ \t-]?desktop|escritorio[ \t]+remoto"
       r"|area[ \t]+de[ \t]+trabalho[ \t]+remota|remotedesktop|chrome(?=[ \t]+(?:thing|app))"
       r"|chrome-remotedesktop)[^\n]{0,120}?(?<![\d.-])(\d{4}[ \t]?\d{4}[ \t]?\d{4})(?![\d.-])",
       prefilter=(r"(?i)(?:remote[ \t-]?desktop|escritorio[ \t]+remoto|trabalho[ \t]+remota"
                  r"|remotedesktop|chrome[ \t]+(?:thing|app))[^\r\n]{0,120}[0-9]{4}[ \t]?[0-9]{4}"
                  r"[ \t]?[0-9]{4}"),
       group=1, digits=True, gate=r"(?i:remot|chrome)"),
    # A dial-in's conference code before its "#" ("Numéro : +33 6 71 94 88 57, code 31944425#").
    _d("secret_assignment",
       r"(?i)(?<![a-z])(?:code|pin|passcode|conference[ \t]+id|kennung)[ \t]*:?[ \t]*(\d{4,10})#",
       prefilter=r"(?i)(?:code|pin|passcode|conference[ \t]+id|kennung)[ \t]*:?[ \t]*[0-9]{4,10}#",
       group=1, needles=("#",), digits=True),
    # Teams' meeting passcode under its German name ("Besprechungs-ID: ... Kennung: jBSoTI").
    _d("secret_assignment", r"(?<![\w-])Kennung:[ \t]*([A-Za-z0-9]{5,12})(?![\w-])",
       v.letters_and_digits_or_mixed_case,
       prefilter=r"Kennung:[ \t]*[A-Za-z0-9]{5}", group=1, needles=("Kennung:",)),
    # A bounce address that carries its recipient (VERP: "bounces+9248226-d91d-ferreira.beatriz
    # =sapo.pt@em4042.example.de", SRS's rewritten sender): whole, the recipient inside.
    _plain("email",
           # (what stands around it read alike with "-" and "_" as spaces, as the joined
           # reading reads them)
           r"(?i)(?<![A-Za-z0-9.+=])((?:bounces?|bnc|return|srs0|prvs|msprvs1)[+=][\w.+=-]{0,200}="
           r"[\w.+-]{1,64}@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,24})(?![A-Za-z0-9])",
           prefilter=r"(?i)(?:bounces?|bnc|return|srs0|prvs|msprvs1)[+=][^\s@]{0,200}=[^\s@]+@",
           needles=("@",)),
    # A mailbox an inbound mail service gives a customer (Postmark's <hash>@inbound.postmarkapp
    # .com): mail to it reaches them, whatever the hash looks like.
    _plain("email", r"(?<![A-Za-z0-9.+])([0-9a-f]{16,64}@inbound\.postmarkapp\.com)(?![A-Za-z0-9])",
           prefilter=r"@inbound\.postmarkapp\.com", needles=("@inbound.postmarkapp",)),
    # Ghost's Admin API key (24 hex, a colon, 64 hex: its id and its secret).
    _d("api_key", r"(?<![0-9a-f])[0-9a-f]{24}:[0-9a-f]{64}(?![0-9a-f])",
       prefilter=r"[0-9a-f]{24}:[0-9a-f]{64}", needles=(":",), digits=True),
    # Germany's pension insurance number as it is printed, spaced, with its check ("SV-Ausweis:
    # 52 150857 D 353").
    _d("national_id", r"(?<![\w-])(\d{2} \d{6} [A-Z] \d{3})(?![\w-])", ids.de_rvnr_ok,
       prefilter=r"[0-9]{2} [0-9]{6} [A-Z] [0-9]{3}", group=1, digits=True, checksummed=True),
    # ELSTER's activation id ("Ihre Aktivierungs-ID lautet: DQV3-MZNL-JYQ6") and an
    # appointment's cancellation code ("Absage-Code: <hex>"): they unlock the account or the
    # booking.
    *_each("secret_assignment",
           # (and DigiD's "Activeringscode: XKF1-NR5X-2G1F", nine characters without dashes too)
           (r"(?i)(?:aktivierungs|activerings|activation)[ -]?(?:id|code)"
            r"(?:[^\n]{0,40}?(?:lautet|ist|is|:))?[ \t]*:?[ \t]*"
            r"(?-i:([A-Z0-9]{4}(?:-[A-Z0-9]{4}){2,3}|(?=[A-Z]*\d)(?=\d*[A-Z])[A-Z0-9]{9}))(?![\w-])",
            r"(?i)(?:absage|storno|stornierungs|cancel(?:lation)?)[ -]?code[ \t]*:[ \t]*"
            r"([A-Za-z0-9]{6,64})(?![\w-])"),
           prefilter=(r"(?i)(?:aktivierungs|activerings|activation)[ -]?(?:id|code)"
                      r"|(?:absage|storno|cancel)[a-z]*[ -]?code"),
           gate=r"(?i:aktivierung|activering|activation|absage|storno|cancel)"),
    # GitLab's CI/CD variables as an export lists them ("variable: DATEV_CLIENT_SECRET  value:
    # f7c8..."), the name holding a secret's word.
    _d("secret_assignment",
       r"(?i)variable:[ \t]*\w*(?:secret|password|passwd|token|api_?key|pin|pwd)\w*[ \t]+"
       r"value:[ \t]*(\S{4,256})", v.secret_value_ok,
       prefilter=r"(?i)variable:[ \t]*[A-Za-z0-9_]*(?:secret|passw|token|api_?key|pin|pwd)",
       group=1, needles=("ariable:", "ARIABLE:")),
    # A PUK (eight to ten digits) after its name and a colon ("PUK aus dem PIN-Brief:
    # 3417585368").
    _d("secret_assignment", r"(?<![A-Za-z])PUK\b[^\n\d:]{0,30}:?[ \t]*(\d{8,12})(?!\d)",
       prefilter=r"PUK[^\r\n0-9:]{0,30}:?[ \t]*[0-9]{8}", group=1, needles=("PUK",),
       digits=True),
    # A Wi-Fi password or a "PW" after its label, with a symbol in it as passwords have
    # ("WLAN: GWx_GAsLN#-1w3lbj1", "WLAN für die Wallbox-Konfiguration: Lindenblatt_616$",
    # "Zertifikat-PW Edelweiss_1011?"): a network's name has none.
    *_each("secret_assignment",
           (r"(?i)(?<![a-z])(?:wlan|wi-?fi)(?:[ \t]+[^\n:]{1,40})?[ \t]*:[ \t]*([^\s/,;]{8,63})",
            r"(?<![A-Za-z])PW[ \t]*:?[ \t]+([^\s,;]{8,64})"),
           v.symbol_password_ok, prefilter=r"(?i)(?:wlan|wi-?fi)[^\r\n]{0,44}:|PW[ \t]",
           gate=r"(?i:wlan|wi-?fi|pw)"),
    # A password a letter tells ("Ihr Erstpasswort lautet: lw!quCQEbvjvziXPr").
    _d("secret_assignment",
       r"(?i)(?:passwort|kennwort)[ \t]+lautet[ \t]*:?[ \t]*([^\s\"'„“]{6,64})",
       v.symbol_password_ok, prefilter=r"(?i)(?:passwort|kennwort)[ \t]+lautet", group=1,
       needles=("wort", "WORT")),
    # An OpenVPN credentials file pasted under its name (auth-user-pass's creds.txt: the user
    # on one line, the password on the next).
    _d("secret_assignment",
       r"(?i)(?:creds|credentials|auth|login|pass(?:word)?s?|up)\.txt:?[ \t]*\n[ \t]*[^\s]{1,64}"
       r"[ \t]*\n[ \t]*([^\s]{4,128})", v.secret_value_ok,
       prefilter=r"(?i)(?:creds|credentials|auth|login|pass|up)[a-z]*\.txt", group=1,
       needles=(".txt",)),
    # Alpaca's API key id (PK or AK, eighteen capitals and digits) and its headers' and
    # environment's names; a settings class's validation error, its field's name on the line
    # above the input it quotes (pydantic: "alpaca_secret\n  ... input_value='...'").
    _d("api_key", r"(?<![A-Z0-9])(?:PK|AK)(?=[A-Z0-9]{18}(?![A-Za-z0-9]))(?=[A-Z]*\d)"
       r"(?=\d*[A-Z])[A-Z0-9]{18}", v.alpaca_key_id_ok,
       prefilter=r"(?:PK|AK)[A-Z0-9]{18}", needles=("PK", "AK"),
       start=_at_literal(("PK", "AK"))),
    _d("secret_assignment",
       r"(?i)APCA[_-]API[_-](?:KEY[_-]ID|SECRET[_-]KEY)\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?"
       r"([A-Za-z0-9/+]{16,64})", prefilter=r"(?i)APCA[_-]API[_-]", group=1,
       needles=("APCA", "apca")),
    _d("secret_assignment",
       r"(?m)^\w*(?:secret|password|passwd|token|api_?key|_key)\w*[ \t]*\n[^\n]*\binput_value="
       r"'([^'\n]{6,256})'", v.secret_value_ok,
       prefilter=(r"(?i)(?:secret|passw|token|api_?key|_key)[A-Za-z0-9_]*[ \t]*\n[^\r\n]*"
                  r"input_value="),
       group=1, needles=("input_value=",)),
    # FIX's Password (554) and NewPassword (925) in a logon message or a log of its
    # rejection ("554=Hawk_sole316", "|925=^0SFjQQ*ErNB*|").
    _d("secret_assignment",
       r"(?:(?<=[\x01|(^ \t])|(?<=\^A)|^)(?:554|925)=((?:[^\x01|\s()^]|\^(?!A)){1,64})",
       v.secret_value_ok, prefilter=r"(?:554|925)=[^\r\n]", group=1, needles=("554=", "925="),
       start=_at_literal(("554=", "925="))),
    # A W-8BEN's foreign tax identifying number (a country's check: Spain's DNI, ...).
    _d("national_id",
       r"(?i)foreign[ \t]+tax[ \t]+identif(?:ying|ication)[ \t]+number[^\n:]{0,20}:[ \t]*"
       r"([A-Z0-9][A-Z0-9 .-]{5,20}[A-Z0-9])(?![\w-])", ids.checked_id_ok,
       prefilter=r"(?i)foreign[ \t]+tax[ \t]+identif", group=1, needles=("oreign", "OREIGN")),
    # A session's id under its key when it is a random token of both cases and digits (an
    # auth service's "session_id": "P_jnzWWKUC..."); hex or a UUID is as often a chat's or an
    # analytics session's, and stays.
    _d("secret_assignment",
       # (and under German's, Portuguese's, Spanish's and Italian's names: "sessão=1ZG5...")
       r"(?i)(?<![a-z])(?:session[_-]?id|sitzung|sess[ãa]o|sesi[óo]n|sessione)"
       r"\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?"
       r"((?=[A-Za-z0-9_-]*\d)(?-i:(?=[A-Za-z0-9_-]*[a-z])(?=[A-Za-z0-9_-]*[A-Z]))"
       r"[A-Za-z0-9_-]{20,})(?![A-Za-z0-9_-])", v.strong_token,
       prefilter=(r"(?i)(?:session[_-]?id|sitzung|sess.o|sesi.n|sessione)[^\r\n]{0,6}[:=]"
                  r"[^\r\n]{0,4}[A-Za-z0-9_-]{20}"),
       group=1, gate=r"(?i:session|sitzung|sess|sesi)"),
    # Turkey's identity number after "TC Kimlik", "T.C." or "TC no" (its two check digits; a
    # bare "TC" is as often a test case's).
    _d("national_id", r"(?<![A-Za-z])(?-i:T\.C\.|TC(?=[ \t]+(?:[Kk]imlik|[Nn]o|numaram)|:))"
       r"(?:[ \t]+(?:[Kk]imlik(?:[ \t]+[Nn]o)?|[Nn]o\.?|numaram))?[ \t:]*"
       r"([1-9]\d{10})(?!\d)", ids.tc_kimlik_ok,
       prefilter=r"T\.?C\.?[^\r\n0-9]{0,16}[1-9][0-9]{10}", group=1, needles=("TC", "T.C"),
       digits=True, checksummed=True),
    # A wireless network's key told as changed or named ("the WLAN key to jfes-yaaq-fstx-shsw",
    # "Wi-Fi password is Tr0ub4dor&3").
    _d("secret_assignment",
       r"(?i)(?<![a-z])(?:wlan|wi-?fi|wireless|wpa2?)[ \t-]+(?:key|password|passphrase|passwort"
       r"|schl(?:ü|ue)ssel)[ \t]+(?:to|is|ist|lautet)[ \t]*:?[ \t]*([^\s,;\"']{8,63})",
       v.password_like,
       prefilter=(r"(?i)(?:wlan|wi-?fi|wireless|wpa)[^\r\n]{0,4}(?:key|passw|passphrase|schl)"
                  r"[^\r\n]{0,12}(?:to|is|ist|lautet)"),
       group=1, gate=r"(?i:wlan|wi-?fi|wireless|wpa)"),
    # A PASETO token (v1 to v4, local or public, then its payload in base64url): a bearer
    # credential, as a JWT is.
    _d("bearer_token",
       r"(?<![\w.])v[1-4]\.(?:local|public)\.[A-Za-z0-9_-]{20,}(?:\.[A-Za-z0-9_-]+)?",
       prefilter=r"v[1-4]\.(?:local|public)\.[A-Za-z0-9_-]{20}", needles=(".local.", ".public."),
       digits=True),
    # itsme's confirmation code (five digits) after its name ("Klant gaf zijn itsme-code
    # (86191) aan de telefoon").
    _d("secret_assignment", r"(?i)itsme[- ]?(?:code|pin)[^\n\d]{0,20}?\(?(\d{5})\)?(?!\d)",
       prefilter=r"(?i)itsme[- ]?(?:code|pin)[^\r\n0-9]{0,20}[0-9]{5}", group=1,
       needles=("itsme", "ITSME", "Itsme"), digits=True),
    # A digicode with a letter in it ("Digicode de l'entrée du cabinet : A3786").
    _d("secret_assignment",
       r"(?i)digicode[^\n:]{0,40}:[ \t]*(?-i:([A-Z]\d{3,6}|\d{3,6}[A-Z]))(?![\w])",
       prefilter=r"(?i)digicode[^\r\n:]{0,40}:", group=1, needles=("igicode", "IGICODE"),
       digits=True),
    # France's NIR as people write it, its key apart ("1050276352554 54"), by its key.
    _d("national_id", r"(?<![\w-])([12]\d{4}(?:\d{2}|2[AB])\d{6} \d{2})(?![\w-])", ids.nir_ok,
       prefilter=r"[12][0-9]{4}(?:[0-9]{2}|2[AB])[0-9]{6} [0-9]{2}", group=1, digits=True,
       checksummed=True),
    # A network's or a broker's login in a board's code: MicroPython's wlan.connect('<ssid>',
    # '<password>'), Arduino's WiFi.begin(ssid, "<password>"), PubSubClient's client.connect(
    # "<id>", "<user>", "<password>"), a sketch's char pass[] = "...".
    *_each("secret_assignment",
           (r"(?i)(?:wlan|wifi|sta|sta_if|network)\w*\.(?:connect|begin)\([ \t]*"
            r"(?:['\"][^'\"\n]{1,64}['\"]|\w+)[ \t]*,[ \t]*['\"]([^'\"\n]{4,64})['\"]",
            r"(?i)(?:client|mqtt\w*)\.connect\([ \t]*\"[^\"\n]{1,64}\"[ \t]*,[ \t]*"
            r"\"[^\"\n]{1,64}\"[ \t]*,[ \t]*\"([^\"\n]{4,64})\"",
            r"(?i)\bchar[ \t]*\*?[ \t]*\w*(?:pass|pwd|password|psk|secret|token)\w*(?:\[\d*\])?"
            r"[ \t]*=[ \t]*\"([^\"\n]{4,128})\""),
           v.secret_value_ok,
           prefilter=(r"(?i)(?:wlan|wifi|sta|network)[A-Za-z0-9_]*\.(?:connect|begin)\("
                      r"|(?:client|mqtt[A-Za-z0-9_]*)\.connect\(|char[ \t]*\*?[ \t]*[A-Za-z0-9_]*"
                      r"(?:pass|pwd|psk|secret|token)"),
           gate=r"(?i:connect|begin|char)"),
    # A LoRaWAN device's root key on The Things Stack's command line, an APRS-IS passcode in
    # Dire Wolf's IGLOGIN, TQSL's certificate password after -p, a query's user and password
    # as a logbook's API takes them (?u=...&p=...), IFTTT's webhook key in its URL.
    *_each("secret_assignment",
           (r"--root-keys\.(?:app|nwk)-key\.key[ \t=]+([0-9A-Fa-f]{32})(?![0-9A-Fa-f])",
            r"(?m)^[ \t]*IGLOGIN[ \t]+\S+[ \t]+(\d{4,5})\b",
            r"(?<![\w-])tqsl\b[^\n|;&]*?[ \t]-p[ \t]+('[^'\n]+'|\"[^\"\n]+\"|[^\s'\"]+)",
            r"[?&]u=[^&\s#]{1,64}&p=([^&\s#]{4,128})",
            r"maker\.ifttt\.com/trigger/[^/\s]+/with/key/([A-Za-z0-9_-]{16,})"),
           prefilter=(r"--root-keys\.|IGLOGIN|tqsl|[?&]u=[^&\s#]{1,64}&p=|maker\.ifttt\.com"),
           gate=r"--root-keys|IGLOGIN|tqsl|&p=|ifttt"),
    # cloud-init's chpasswd list ("chpasswd:\n  list: |\n    root:<password>"), in a state
    # file's JSON-escaped user data too.
    _d("secret_assignment",
       r"chpasswd:[ \t]*(?:\n|\\n)[ \t]*list:[ \t]*\|?[ \t]*(?:\n|\\n)[ \t]*[\w.-]{1,32}:"
       r"([^\s\\:\"]{4,128})", v.secret_value_ok, prefilter=r"chpasswd:", group=1,
       needles=("chpasswd:",)),
    # xAI's and Perplexity's API keys.
    _d("api_key", r"(?<![\w-])(?:xai-[A-Za-z0-9]{70,90}|pplx-[A-Za-z0-9]{40,56})(?![\w-])",
       prefilter=r"xai-[A-Za-z0-9]{70}|pplx-[A-Za-z0-9]{40}", needles=("xai-", "pplx-"),
       start=_at_literal(("xai-", "pplx-"))),
    # A notebook's cell that reads a secret from the environment, and its output on the next
    # line (In [8]: os.environ["COHERE_API_KEY"]\nOut[8]: '...').
    _d("secret_assignment",
       r"(?i)environ(?:\.get\()?\[?[\"'][A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASS|PWD)[A-Z0-9_]*"
       r"[\"']\]?\)?[ \t]*\n[ \t]*Out\[\d+\]:[ \t]*'([^'\n]{8,256})'", v.secret_value_ok,
       prefilter=r"(?i)environ[^\r\n]{0,80}\n[ \t]*Out\[", group=1, needles=("Out[",)),
    # A strong password alone after a label's colon at a line's end, as handover notes and
    # password sheets list them ("Router (Ziggo Connectbox) beheer: fvh+y@7O@Ixhoh",
    # "- finance: L*Ny2_IzsNX?i++-+"): both cases, a digit and a symbol password rules ask
    # for (a network's name, a path or a base64 blob has not these).
    _d("secret_assignment",
       r"(?m):[ \t]+(?:[\w.@+-]{1,64}[ \t]+/[ \t]+)?([^\s/\\{}()<>\[\]\"'`,;|]{8,64})[ \t]*$",
       v.strong_password_shape,
       prefilter=(r"(?m):[ \t]+(?:[^ \t\r\n]{1,64}[ \t]+/[ \t]+)?[^ \t\r\n]{0,63}[!#$%&*^@?]"
                  r"[^ \t\r\n]{0,63}[ \t]*$"),
       group=1,
       needles=(": ", ":\t"),
       anchors=_strong_password_anchors),
    # A Wi-Fi network's key after its label and what it is for ("Wi-Fi för personal:
    # meadow-sparrow-juniper-granite96", "Wifi personeel: Leuchtturm-Wolke-cerise46"): a
    # generated passphrase or a password.
    _d("secret_assignment",
       r"(?im)(?<![a-z])(?:wlan|wi-?fi)[ \t]+[^\n:/]{2,40}:[ \t]*([^\s/,;]{8,63})[ \t]*$",
       v.wifi_key_ok, prefilter=r"(?i)(?:wlan|wi-?fi)[ \t][^\r\n:]{2,40}:", group=1,
       gate=r"(?i:wlan|wi-?fi)"),
    # A key named in German, Dutch, Swedish or Polish, then what it is for,
    # then a long token ("Schlüssel für Datenübernahme (Schulmanager): 7c2b253a...").
    _d("secret_assignment",
       r"(?i)(?<![a-z])(?:schl(?:ü|ue)ssel|sleutel|nyckel|klucz)\b[^\n:]{0,60}:"
       r"[ \t]*([A-Za-z0-9+/_=-]{20,})(?![A-Za-z0-9+/_=-])", v.strong_token,
       prefilter=(r"(?i)(?:schl(?:a|u|ue)ssel|sleutel|nyckel|klucz)[^\r\n:]{0,60}:"
                  r"[ \t]*[A-Za-z0-9+/_=-]{20}"),
       group=1, gate=r"(?i:schl|sleutel|nyckel|klucz)"),
    # An OTA upload's password (PlatformIO's espota flag, --auth=...) and a logbook's API key
    # as a form field (curl -F api=<hex>).
    *_each("secret_assignment",
           (r"(?<![\w-])--auth=((?=[^\s'\"]*\d)[^\s'\"]{6,64})",
            r"(?<![\w-])-F[ \t]+['\"]?api(?:_?key)?=([A-Za-z0-9]{20,})"),
           v.secret_value_ok, prefilter=r"--auth=|-F[ \t]+['\"]?api", gate=r"--auth=|-F"),
    # tcpdump's address and port ("IP 104.201.54.116.500 > 192.168.1.2.500: isakmp").
    _d("ipv4", r"(?:(?<=IP )|(?<=IP6 )|(?<=> ))((?:\d{1,3}\.){3}\d{1,3})\.\d{1,5}(?=[ :])",
       v.ipv4_ok, prefilter=r"(?:IP |> )\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\.\d", group=1,
       needles=("IP", ">"), joined=_joined_digits(4, "."),
       joined_prefilter=r"(?:IP|>)[ _-]\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\.\d"),
    # (a "/" after the area code too, as Germany writes it: "+49 (0)172/9439856")
    # (not across two spaces: a table's next column, "+91-8717461003  2694")
    # (nor an address a diff's line adds: "+10.204.198.31 ansible_host=...")
    _d("phone", _edge(r"A-Za-z_+\d") + r"\+(?!\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}(?![\d.]))"
       # (nor a dial plan's prefix before its group: "Translation +49301606$1")
       r"\d(?:[\d.()-]| (?! )|/(?=\d)){6,20}\d(?![A-Za-z_\d$-]|\.\d)",
       v.phone_digits_ok,
       prefilter=r"\+\d[\d .()/-]{6,20}\d", needles=("+",), start=_at_literal(("+",)),
       starts=((r"\+\d", 2),),
       joined=_joined_digits(8, "+"), joined_prefilter=r"\+\d[\d ._()/-]{6,20}\d"),
    # Not after "<digits>/": one of a list of figures (HAProxy's timers "0/0/1/32/286 200 1649");
    # not after a status and a space: a load balancer's statuses and byte counts (an ALB's
    # "200 200 934 4731", the second status read as an area code).
    # Nor a meeting's id ("ID: 798 987 2413", "Zoom 622 417 9140"), nor a device's serial.
    # (a caller's id is a number: "Caller-ID: (704) 836-5816")
    _d("phone", r"(?=[\d(])" + _L + r"(?<!\d/)(?<![ \t][1-5]\d\d[ \t])"
       r"(?<!(?<!Caller-)(?<!Caller )ID: )(?<!ID )(?<!Zoom )"
       + _NOT_A_SERIAL + _NOT_A_RECORD +
       r"(?:1[ .-]?)?(?:\(\d{3}\) ?|\d{3}[ .-])\d{3}[ .-]\d{4}"
       + _R,
       v.nanp_ok,
       prefilter=r"(?:\(\d{3}\) ?|\d{3}[ .-])\d{3}[ .-]\d{4}", digits=True,
       start=_at_class(r"\d", 1), joined=_joined_digits(10),
       starts=_nanp_starts(" ", "[ .-]"), joined_starts=_nanp_starts("[ _-]", "[ ._-]"),
       joined_prefilter=r"(?:\(\d{3}\)[ _-]?|\d{3}[ ._-])\d{3}[ ._-]\d{4}"),
    # Not Chromium's log prefix ("[0701/114930:WARNING:...]": the month, day and time).
    # Nor a parcel's tracking number after the word for one ("spedizione 0712 2245 9981"), nor
    # a record's number after its word.
    _d("phone", r"(?=0)" + _L + r"(?<!Zoom )(?<!(?<!Caller-)(?<!Caller )ID: )" + _NOT_A_SERIAL
       + _NOT_A_RECORD + _NOT_IN_HEX_DUMP
       + _NOT_SECONDS + _NOT_A_PARCEL
       # (and Belgium's mobiles, 0478 13 96 75; Vienna's, 01 868 59 92)
       + r"(?:0\d{1,4}[ -]\d{3,4}[ -]?\d{3,4}|0[1-9](?:[ .]\d{2}){4}|0\d{3} \d{2} \d{2} \d{2}"
       r"|0\d{4,5}[ -]\d{5,6}|0\d{1,3} \d{3} \d{2} \d{2}|0\d{2,4}/\d{6,8}(?!:[A-Z]))" + _R
       + _NOT_BEFORE_HEX_BYTES
       # (nor the first groups of a longer number in fours: an NF-e's access key, "Chave de
       # acesso: 0265 3794 6235 1562 ...")
       + r"(?! \d{4}\b)",
       v.national_ok,
       prefilter=r"0\d{1,4}[ -]\d{3,4}[ -]?\d{3,4}|0[1-9](?:[ .]\d{2}){4}|0\d{4,5}[ -]\d{5}"
                 r"|0\d{3} \d{2} \d{2} \d{2}|0\d{1,3} \d{3} \d{2} \d{2}|0\d{2,4}/\d{6}",
       needles=("0",),
       start=_at_literal(("0",)), joined=_joined_digits(10, "0"),
       starts=_zero_starts("[ /-]", "[ .]"), joined_starts=_zero_starts("[ _/-]", "[ ._-]"),
       joined_prefilter=r"0\d{1,4}[ _-]\d{3,4}[ _-]?\d{3,4}|0[1-9](?:[ ._-]\d{2}){4}"
                        r"|0\d{4,5}[ _-]\d{5}|0\d{1,3}[ _-]\d{3}[ _-]\d{2}[ _-]\d{2}"
                        r"|0\d{3}[ _-]\d{2}[ _-]\d{2}[ _-]\d{2}|0\d{2,4}/\d{6}"),
    )


def _mobile_alone_ok(value: str) -> bool:
    """A mobile's eleven digits with no word for it: a phone's shape, not a test's sample
    counting up ("01234567890")."""
    return v.told_phone_ok(value) and "0123456789" not in value and "1234567890" not in value


def _carriers_and_home_labs() -> tuple[Detector, ...]:
    """The shapes of the CR to DK rounds: pharmacies, the Gulf's and the Balkans' services,
    home labs, parcel carriers, crowdfunding; cannabis dispensaries, Mexico and Colombia,
    Turkey and Azerbaijan, coworking spaces, film crews, salons."""
    return (
        # A home lab's secrets in their vendors' shapes: an ntfy access token (tk_ and 29),
        # Porkbun's API key and secret (pk1_ and sk1_, 64 hex digits), a Proxmox VE ticket
        # (PVE:user@realm:<hex time>::<signature>), a Bitwarden Send link's key (after its id
        # in the fragment), docker-mailserver's new account's password.
        _d("api_key", r"(?<![\w-])(?:tk_(?=[a-z]*\d)[a-z0-9]{29}|[ps]k1_[0-9a-f]{64})(?![\w-])",
           prefilter=r"tk_[a-z0-9]{29}|[ps]k1_[0-9a-f]{64}", needles=("tk_", "k1_"),
           start=_at_literal(("tk_", "pk1_", "sk1_"))),
        _d("secret_assignment",
           r"(?<![\w-])(PVE:[^\s:\\\"']{1,64}@[^\s:\\\"']{1,32}:[0-9A-F]{8}::[A-Za-z0-9+/=]{40,})",
           prefilter=r"PVE:[^\r\n:]{1,64}@[^\r\n:]{1,32}:[0-9A-F]{8}::", group=1,
           needles=("PVE:",)),
        _d("secret_assignment", r"/#/send/[A-Za-z0-9_-]{16,32}/([A-Za-z0-9+/_-]{20,}={0,2})",
           prefilter=r"/#/send/[A-Za-z0-9_-]{16}", group=1, needles=("/#/send/",)),
        _d("secret_assignment",
           r"(?<![\w-])setup[ \t]+email[ \t]+(?:add|update)[ \t]+[^\s@]+@\S+[ \t]+"
           r"('[^'\n]+'|\"[^\"\n]+\"|[^\s'\"]+)", v.command_line_secret_ok,
           prefilter=r"setup[ \t]+email[ \t]+(?:add|update)[ \t]", group=1, needles=("setup",)),
        # A UAE salary file's employee record (WPS SIF: EDR, the worker's 14-digit id, the
        # agent's routing code, the IBAN ...), an NCPDP claim's cardholder id (C2), Cyprus's
        # tax identification code in a portal's log (tic=), Romania's identity card by its
        # series and number ("seria și nr. IF 614907").
        *_each("national_id",
               (r"(?m)^EDR,(\d{14}),\d{9},",
                r"(?<![\w(])C2(?:\((?i:cardholder[ _]?id)\))?=([A-Z0-9]{6,20})(?![\w])",
                r"(?<![\w-])(?i:tic)=(\d{8}[A-Z])(?![\w])",
                "(?i:seria)[ \t]+(?:(?i:\u0219i|\u015fi|si)[ \t]+)?(?i:nr\\.?|num\u0103rul|numarul)"
                r"[ \t]*:?[ \t]*([A-Z]{2}[ \t]?\d{6})(?!\d)"),
               prefilter=r"EDR,[0-9]{14},|C2(?:\([A-Za-z _]{12,14}\))?=[A-Z0-9]{6}"
                         r"|(?i:tic)=[0-9]{8}[A-Z]|(?i:seria)[ \t]",
               gate=r"EDR,|C2|(?i:tic=|seria)"),
        # Cyprus's and Greece's identity card after its name ("Αρ. Δελτίου Ταυτότητας: 9714813",
        # "ΑΔΤ: ΑΒ 123456").
        _named_id(("\u03b4\u03b5\u03bb\u03c4[\u03af\u03b9]\u03bf\u03c5 "
                   "\u03c4\u03b1\u03c5\u03c4[\u03cc\u03bf]\u03c4\u03b7\u03c4\u03b1\u03c2",
                   "\u0394\u03b5\u03bb\u03c4[\u03af\u03b9]\u03bf\u03c5 "
                   "\u03a4\u03b1\u03c5\u03c4[\u03cc\u03bf]\u03c4\u03b7\u03c4\u03b1\u03c2",
                   "(?-i:\u0391\u0394\u03a4)"),
                  ("\u03b4\u03b5\u03bb\u03c4", "\u0394\u03b5\u03bb\u03c4", "\u03b1\u03b4\u03c4"),
                  "\\d{6,8}|[\u0391-\u03a9A-Z]{1,2}[ -]?\\d{6}", _has_digit, checksummed=False,
                  shape=r"[0-9]{6}"),
        # Bulgaria's personal identification code for the revenue agency's e-services (ПИК на
        # НАП): a secret the agency mails, ten letters and digits.
        _d("secret_assignment",
           "\\(?\u041f\u0418\u041a\\)?[^\n\\d:]{0,24}?(?:[ \t]\u0435)?[ \t]*:[ \t]*"
           r"((?=[A-Z0-9]{0,11}\d)[A-Z0-9]{8,12})(?![\w])",
           prefilter=r"aaa[^\r\n0-9:]{0,26}:[ \t]*[A-Z0-9]{8}", group=1,
           needles=("\u041f\u0418\u041a",)),
        # Phones: Japan's toll-free numbers (0120-01-9625), Egypt's and Turkey's mobiles alone
        # (01266659006, 05309459414), a JSON phone object's number ({"phone1": {"number":
        # "0899793298"}})
        # and a contact list's typed values ({"type":"work","value":"02 606 7074"}).
        _d("phone", r"(?<![\d-])0(?:120|800)-\d{2,3}-\d{3,4}(?![\d-])",
           prefilter=r"0(?:120|800)-[0-9]{2,3}-[0-9]{3}", needles=("0120-", "0800-"),
           joined=_nothing_joined),
        # (not a direct debit's reference, "referência ADC 01096252200"; "-" and "_" read as a
        # space is read around it, as the joined reading would)
        _d("phone", r"(?<![A-Za-z0-9+.])"
           + "".join(rf"(?<!{w}[ _-])" for w in ("ADC", "ref", "Ref", "REF", "ref.", "Ref.",
                                                 "ref:", "Ref:", "reference", "Reference",
                                                 "order", "Order", "case", "Case", "ticket",
                                                 "Ticket", "invoice", "Invoice"))
           # (nor an X12 remittance's trace number, "TRN*1*01803962884")
           + r"(?<!TRN\*[12]\*)"
           # (and Bangladesh's mobiles, 013 to 019, and Pakistan's, 030 to 034)
           + r"0(?:1[0-9]|3[0-4]|5[0345])\d{8}(?![A-Za-z0-9.])",
           _mobile_alone_ok, prefilter=r"0(?:1[0-9]|3[0-4]|5[0345])[0-9]{8}", digits=True,
           joined=_nothing_joined, joined_prefilter=r"0(?:1[0-9]|3[0-4]|5[0345])[0-9]{8}",
           start=_at_literal(("01", "03", "05"))),
        *_each("phone",
               (r"(?i)\\?\"(?:phone|mobile|tel|fax|cell)\w{0,12}\\?\"\s*:\s*\{\s*\\?\"(?:number|value)"
                r"\\?\"\s*:\s*\\?\"(\+?[\d ()./-]{7,20})\\?\"",
                r"(?i)\{\s*\\?\"type\\?\"\s*:\s*\\?\"(?:mobile|work|home|cell|landline|fax|phone"
                r"|office|other|main|personal|business)\\?\"\s*,\s*\\?\"(?:value|number)\\?\"\s*:"
                r"\s*\\?\"(\+?[\d ()./-]{7,20})\\?\""),
               v.told_phone_ok,
               prefilter=r"(?i)(?:phone|mobile|tel|fax|cell)[A-Za-z0-9_]{0,12}\\?\"\s*:\s*\{"
                         r"|\"type\\?\"\s*:\s*\\?\"[a-z]{3,9}\\?\"\s*,\s*\\?\"(?:value|number)",
               gate=r"(?i:number|value)", joined=_nothing_joined),
        # One-time codes as SMS gateways and services print them: "Use 647607 for Nol Pay. It
        # expires in 10 minutes.", "Your code 3026", an OTP service's log (submitted=746392
        # expected=746392), a WhatsApp template's parameter ("template":"auth_code",
        # "params":["200161"]).
        *_each("secret_assignment",
               (r"(?i)(?<![\w])use[ \t]+(\d{4,8})[ \t]+(?:for|to|as)[ \t][^\n]{0,60}?"
                r"(?:expire|valid|do[ \t]+not[ \t]+share|don'?t[ \t]+share|didn'?t[ \t]+request"
                r"|did[ \t]+not[ \t]+request)",
                r"(?i)(?<![a-z])your[ \t]+(?:(?:verification|login|one-time|otp|security|access"
                r"|confirmation)[ \t]+)?code[ \t]*:?[ \t]+(\d{4,8})(?![\d.,:/-]?\d)"
                + _CODE_UNITS,
                r"(?<![\w.])submitted=(\d{4,8})[ \t]+expected=\d{4,8}(?!\d)",
                r"(?<![\w.])submitted=\d{4,8}[ \t]+expected=(\d{4,8})(?!\d)",
                r"\\?\"template\\?\"\s*:\s*\\?\"[^\"\n]{0,40}(?i:auth|otp|verif|code|login|2fa)"
                r"[^\"\n]{0,40}\"\s*,\s*\\?\"params\\?\"\s*:\s*\[\s*\\?\"(\d{4,8})\\?\""),
               v.not_counting_run,
               prefilter=r"(?i)use[ \t]+[0-9]{4}|your[ \t]+[^\r\n]{0,14}code[ \t]*:?[ \t]+[0-9]{4}"
                         r"|submitted=[0-9]{4,8}[ \t]+expected=[0-9]{4}"
                         r"|template\\?\"\s*:",
               gate=r"(?i:use|code)|submitted|template", digits=True),
        # France's NIR as an ameli pro login's identifier ("identifiant 157110621938216").
        _named_id((r"identifiant",), ("identifiant",),
                  r"[12378] ?\d{2} ?\d{2} ?(?:\d{2}|2[AB]) ?\d{3} ?\d{3} ?\d{2}", ids.nir_ok),
        # Colombia's NIT with its check digit ("NIT: 80646259-4", "1.016.206.602-9"), or a
        # person's without it on the DIAN's form ("Identificación Tributaria (NIT): 43629769");
        # Mexico's WhatsApp numbers (521 and ten digits: "from=5217223995951"); a PIN in an
        # XML element of its own (DIAN's <softwarePin>96329</softwarePin>); a code in Spanish,
        # "usa 07179423 para confirmar".
        _named_id((r"(?-i:NIT)\b",), ("nit",), r"\d{6,10}-\d|\d{1,3}(?:\.\d{3}){2,3}-\d",
                  ids.co_nit_ok, shape=r"[0-9]{6}"),
        _d("national_id", r"(?i:tributaria)[ \t]*\((?-i:NIT)\)[ \t]*:[ \t]*(\d{6,10})(?![\d-])",
           ids.co_person_nit_ok, prefilter=r"(?i:tributaria)[ \t]*\(NIT\)", group=1,
           needles=("(NIT)",)),
        # (after "+", a key's "=", a colon or "al" only: a Russian ОГРН opens with 521 too)
        _d("phone", r"(?:(?<=\+)|(?<==)|(?<=:[ _-])|(?<=al[ _-]))521[1-9]\d{9}(?![A-Za-z0-9.])",
           v.told_phone_ok, prefilter=r"521[1-9][0-9]{9}", digits=True, joined=_nothing_joined,
           joined_prefilter=r"521[1-9][0-9]{9}", start=_at_literal(("521",))),
        _d("secret_assignment",
           r"<(?:[a-z][A-Za-z0-9]*(?:Pin|PIN)|pin|PIN)>(\d{4,8})</", v.not_counting_run,
           prefilter=r"(?i:pin)>[0-9]{4}", group=1, needles=("in>", "IN>")),
        _d("secret_assignment",
           r"(?i)(?<![\w])usa[ \t]+(\d{4,8})[ \t]+para[ \t][^\n]{0,60}?"
           r"(?:confirmar|ingresar|validar|nunca|no[ \t]+lo[ \t]+compartas|vence|expira)",
           v.not_counting_run, prefilter=r"(?i)usa[ \t]+[0-9]{4}", group=1, digits=True,
           gate=r"(?i:usa)"),
        # Azerbaijan's personal code (FİN, ФИН: seven letters and digits) and Turkey's
        # identity card's serial ("Kimlik Kartı Seri No: M61O79798").
        _named_id(("(?-i:F\u0130N|FIN)\\b", "\u0424\u0418\u041d"),
                  ("fin", "f\u0131n", "f\u0130n", "f\u0069\u0307n", "\u0444\u0438\u043d"),
                  r"(?=[A-Z]*\d)(?=\d*[A-Z])[0-9A-Z]{7}", _has_digit, checksummed=False,
                  shape=r"[0-9A-Z]{7}"),
        _named_id(("kimlik[ \t]+kart\u0131[ \t]+seri[ \t]+no", r"kimlik[ \t]+seri[ \t]+no"),
                  ("kimlik",), r"[A-Z]\d{2}[A-Z]\d{5}", _has_digit, checksummed=False),
        # Azerbaijan's identity card by its series and number ("Şəxsiyyət vəsiqəsinin seriya
        # və nömrəsi: AA9908145").
        _named_id(("seriya[ \t]+v\u0259[ \t]+n\u00f6mr\u0259si",), ("seriya",),
                  r"AZE\d{8}|AA\d{7}", _has_digit, checksummed=False),
        # A security question's answer in Turkish: güvenlik sorusu (...) cevabı "Ayten".
        _d("secret_assignment",
           "(?i)g\u00fcvenlik[ \t]+sorusu[ \t]*(?:\\([^)\n]{1,60}\\))?[ \t]*cevab\u0131"
           "[ \t]*[\"\u201c]([^\"\u201d\n]{2,40})[\"\u201d]",
           _not_stand_in, prefilter=r"(?i)g.venlik[ \t]+sorusu", group=1,
           needles=("sorusu",)),
        # A guest Wi-Fi's voucher (UniFi's five and five digits: "auth method=voucher
        # code=45234-63167").
        _d("secret_assignment",
           r"(?i)voucher(?:[ \t]+code|[^\n]{0,12}?code=|[ \t]*:)[ \t]*:?[ \t]*(\d{5}-\d{5})"
           r"(?![\d-])",
           prefilter=r"(?i)voucher[^\r\n]{0,18}[0-9]{5}-[0-9]{5}", group=1, gate=r"(?i:voucher)"),
        # China's mobiles grouped three, four and four after Chinese text ("王磊 196 9700
        # 6853"), "-", "_" and a space read alike; a French digicode with its letters
        # ("Digicode du portail : 7B467"); the WebOTP line that closes a one-time code's SMS
        # ("@studiobinder.com #7853"); a URL's password whose scheme lost its colon
        # ("postgresql+psycopg2//budget:X@10.40.2.15").
        # (right after Chinese text only: Zoom's meeting ids are grouped so too)
        _d("phone", "(?:(?<=[\u3000-\u9fff\uff00-\uffef])"
           "|(?<=[\u3000-\u9fff\uff00-\uffef][ _-]))"
           r"1[3-9]\d[ _-]\d{4}[ _-]\d{4}(?![ _-]?\d)", v.told_phone_ok,
           prefilter=r"1[3-9][0-9][ -][0-9]{4}[ -][0-9]{4}", digits=True, joined=_nothing_joined,
           joined_prefilter=r"1[3-9][0-9][ _-][0-9]{4}[ _-][0-9]{4}"),
        *_each("secret_assignment",
               (r"(?i)digicode[^\n:\d]{0,30}:[ \t]*((?=[0-9AB]*\d)[0-9AB]{4,6})(?![\w])",
                r"(?m)^@[\w-]+(?:\.[\w-]+)+[ \t]+#([A-Za-z0-9]{4,10})[ \t]*$",
                r"(?i)(?<![\w:])(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?"
                r"|mssql|oracle|cockroachdb)(?:\+\w+)?//[^\s:/@]{1,64}:([^\s@/]{4,128})@[\w.-]+"),
               v.secret_value_ok,
               prefilter=r"(?i)digicode[^\r\n:]{0,30}:|@[A-Za-z0-9_-]+\.[A-Za-z0-9_.-]+[ \t]+#"
                         r"|(?i:postgres|mysql|mariadb|mongodb|redis|amqp|mssql|oracle|cockroach)"
                         r"[A-Za-z0-9+]{0,16}//[^\s:/@]{1,64}:[^\s@/]{4}",
               gate=r"(?i:digicode)|#|//"),
        # A session's token as a JSON log's value: under a session cookie's own name
        # ("TURKIYESESSIONID": "yQFFrgJgnS68cxScYsh2aOrexeufF0vW") or under "session"; letters
        # of both cases and digits (a hex id or a UUID reads as an analytics session's, as
        # elsewhere; a vendor's object id, Stripe Identity's "vs_...", is none).
        _d("secret_assignment",
           # (a cookie's name in capitals: an audit log's "externalSessionId" names a record)
           r"\\?\"(?:[A-Z0-9_]*SESSIONID|session(?:_?token)?)\\?\"[ \t]*:[ \t]*\\?\""
           r"(?![a-z]{2,5}_)((?=[^\"]*[A-Z])(?=[^\"]*[a-z])[A-Za-z0-9_-]{20,128})\\?\"",
           v.strong_token,
           prefilter=r"(?:SESSIONID|session(?:_?token)?)\\?\"[ \t]*:[ \t]*\\?\"[A-Za-z0-9_-]{20}",
           group=1, needles=("SESSIONID", "session")),
        # A value a shell printed when asked to decode it (kubectl's secret, "echo X | base64
        # -d" and the line after it); a CRM's "ID on file:" before a national id some
        # country's check takes; a security answer in Hebrew ("שאלת אבטחה (...): \"בית ספר
        # אלונים\"").
        _d("secret_assignment",
           r"(?m)^[$#>][ \t]*echo[ \t]+\S{4,}[ \t]*\|[ \t]*base64[ \t]+(?:-d|--decode|-D)\b[^\n]*\n"
           r"(?![{\[])([^\s]{4,128})[ \t]*$", v.secret_value_ok,
           prefilter=r"echo[ \t]+[^\s]{4}[^\r\n]*base64[ \t]+(?:-d|--decode|-D)", group=1,
           needles=("base64",)),
        _named_id((r"(?-i:ID)[ \t]+on[ \t]+file[ \t]*:",), ("id",),
                  r"\d{4}[ -]?\d{4}[ -]?\d{4}|\d{2}-?\d{7}-?\d|\d{9,12}",
                  lambda value: ids.any_id_ok(value.replace(" ", "").replace("-", ""))
                  or ids.ph_sss_ok(value)),
        _d("secret_assignment",
           "\u05e9\u05d0\u05dc\u05ea \u05d0\u05d1\u05d8\u05d7\u05d4[ \t]*(?:\\([^)\n]{1,64}\\))?"
           "[ \t]*:[ \t]*[\"\u201c\u05f4]([^\"\u201d\u05f4\n]{2,40})[\"\u201d\u05f4]",
           _not_stand_in, prefilter=r"aaaa[ \t]+aaaaa[^\r\n]{0,70}:[ \t]*\"", group=1,
           needles=("\u05d0\u05d1\u05d8\u05d7\u05d4",)),
        # Ukraine's: a person's RNOKPP under a bank statement's EDRPOU key (ten digits: a
        # company's code has eight), a mobile quoted in a JSON list (380 and nine digits), a
        # code word told to an operator ("кодовое слово «Зоряна»").
        _d("national_id", r"(?i)\\?\"(?:counter)?edrpou\\?\"[ \t]*:[ \t]*\\?\"(\d{10})\\?\"",
           ids.person_inn_ok, prefilter=r"(?i)edrpou\\?\"[ \t]*:[ \t]*\\?\"[0-9]{10}", group=1,
           gate=r"(?i:edrpou)"),
        # (an item of a JSON list: an AWS account's id is twelve digits under its key too)
        _d("phone", r"(?:(?<=[\[,][\"'])|(?<=[\[,] [\"']))380[1-9]\d{8}(?=\\?[\"'])",
           v.told_phone_ok, prefilter=r"[\[,] ?[\"']380[1-9][0-9]{8}\\?[\"']", digits=True,
           joined=_nothing_joined, joined_prefilter=r"[\[,] ?[\"']380[1-9][0-9]{8}\\?[\"']"),
        _d("secret_assignment",
           "[Кк]одов(?:ое|е)[ \t]+слово"
           "[ \t]*:?[ \t]*[\u00ab\"\u201c\u201e]([^\u00bb\"\u201d\n]{2,40})[\u00bb\"\u201d\u201c]",
           _not_stand_in, prefilter=r"aaaaaa[ \t]+aaaaa[^\r\n]{0,4}[^\r\n]", group=1,
           needles=("\u043b\u043e\u0432\u043e",)),
        # A recovery code of three groups of three, by its whole name ("Recovery code read
        # out: 097 359 399"; a backup job's three VM ids are not one).
        _d("secret_assignment",
           r"(?i)recovery[ \t]+code[^\n\d]{0,30}?(?<!\d)(\d{3} \d{3} \d{3})(?![ \d])",
           prefilter=r"(?i)recovery[ \t]+code[^\r\n0-9]{0,30}[0-9]{3} [0-9]{3} [0-9]{3}", group=1,
           gate=r"(?i:recovery)"),
        # A PIN a kiosk's log says was entered ("method=PIN pin_entered=8845").
        _d("secret_assignment", r"(?i)(?<![\w])pin[_-]?entered=(\d{4,8})(?!\d)", v.not_counting_run,
           prefilter=r"(?i)pin[_-]?entered=[0-9]{4}", group=1, gate=r"(?i:entered)"),
        # Security answers in Greek and Arabic ("Όνομα πρώτου κατοικίδιου: Ρεξ", "Πόλη γέννησης
        # μητέρας: Τρίπολη", "إجابة سؤال الأمان \"الزمالك\"").
        *_each("secret_assignment",
               ("(?:[ΌοΟ]νομα πρώτου κατοικ[ίι]διου|[Ππ]όλη γέννησης(?: μητέρας| πατέρα)?"
                "|[Ππ]ατρικό επώνυμο μητέρας)[ \t]*:[ \t]*"
                "([^\\s,;.:!?\"'()]{2,30}(?: [^\\s,;.:!?\"'()]{2,30}){0,2})"
                "(?=[ \t]*(?:$|\n|[,;.]))",
                "سؤال الأمان[ \t]*[:\u00ab\"\u201c]+[ \t]*([^\"\u201d\u00bb\n]{2,40}?)[ \t]*"
                "[\"\u201d\u00bb]"),
               _not_stand_in, prefilter=r"aaaa[ \t]+aaaaaa[^\r\n]{0,20}[:\"]",
               needles=("πρώτου", "γέννησης", "επώνυμο", "الأمان")),
    )




def _central_asia_and_europe() -> tuple[Detector, ...]:
    """The shapes of the DR to DW round: Italy and Spain; France, Belgium, Switzerland and the
    Maghreb; Central Europe; Pakistan, Bangladesh, Sri Lanka and Nepal; Iran, Afghanistan and
    Central Asia; Germany, Austria, Switzerland and the Low Countries."""
    return (
        # Afghanistan's e-Tazkira (a year, four and five digits: "نمبر تذکره الکترونیکی:
        # ۱۴۰۱-۷۹۲۰-۶۳۵۳۰"), after its name in Dari, Pashto or English.
        _d("national_id",
           "(?i)(?:\u062a\u0630\u06a9\u0631[\u0647\u06d0]|tazkira|tazkera)[^\n\\d]{0,40}?"
           r"(?<![0-9])([0-9]{4}-[0-9]{4}-[0-9]{5})(?![0-9-])",
           prefilter=r"(?i:aaaaa|tazk[ie]ra)[^\r\n]{0,60}[0-9]{4}-[0-9]{4}-[0-9]{5}", group=1,
           needles=("\u062a\u0630\u06a9\u0631", "azkira", "AZKIRA", "azkera", "AZKERA")),
        # Numbers a document's name in Persian, Russian, Uzbek, Kyrgyz or Kazakh names: Iran's
        # insurance number (شماره بیمه), Uzbekistan's PINFL (ЖШШИР, ПИНФЛ, JShShIR) and
        # Kyrgyzstan's PIN (fourteen digits), Kazakhstan's identity card (Жеке куәлік №).
        _d("national_id",
           "(?:\u0634\u0645\u0627\u0631\u0647 \u0628\u06cc\u0645\u0647)[ \t]*:?[ \t]*"
           r"([0-9]{10})(?![0-9])", v.not_counting_run,
           prefilter=r"aaaaa aaaa[ \t]*:?[ \t]*[0-9]{10}", group=1,
           needles=("\u0634\u0645\u0627\u0631\u0647 \u0628\u06cc\u0645\u0647",)),
        _d("national_id",
           "(?:\u0416\u0428\u0428\u0418\u0420|\u041f\u0418\u041d\u0424\u041b|\u041f\u0418\u041d"
           r"|(?i:jshshir|pinfl))\b[^\n\d]{0,20}?(?<!\d)([1-6]\d{13})(?!\d)",
           v.not_counting_run,
           prefilter=r"(?i:aaaa|aaa|jshshir|pinfl)[^\r\n0-9]{0,20}[1-6][0-9]{13}",
           group=1, needles=("\u0416\u0428\u0428\u0418\u0420", "\u041f\u0418\u041d", "JShShIR",
                             "jshshir", "PINFL", "pinfl", "Pinfl")),
        _d("national_id",
           "(?i:\u043a\u0443\u04d9\u043b\u0456(?:\u043a|\u0433\u0456))[ \t]*"
           "(?:\u2116|N[o\u00ba]\\.?)?"
           r"[ \t]*:?[ \t]*(\d{9})(?!\d)", v.not_counting_run,
           prefilter=r"aaaaaa[^\r\n0-9]{0,6}[0-9]{9}", group=1,
           needles=("\u043a\u0443\u04d9\u043b\u0456\u043a",
                    "\u041a\u0443\u04d9\u043b\u0456\u043a")),
        # Passports by their Russian, Tajik and Uzbek names: Tajikistan's nine digits
        # ("паспорт гражданина РТ № 400246265", "Рақами шиносномаи: 400246265"), Uzbekistan's
        # series and seven ("Паспорт серияси ва рақами: AC 3255169").
        _d("national_id",
           # (and Belarusian's, "пашпарт")
           "(?:[\u041f\u043f]\u0430(?:\u0441\u043f\u043e|\u0448\u043f\u0430)\u0440\u0442"
           "|\u0448\u0438\u043d\u043e\u0441"
           "\u043d\u043e\u043c\\w*)[^\n\\d]{0,40}?(?<![\\w-])(\\d{9}|[A-Z]{2} ?\\d{7})(?![\\w-])",
           v.not_counting_run,
           prefilter=r"aaaaaa[^\r\n0-9]{0,40}(?:[0-9]{9}|[A-Z]{2} ?[0-9]{7})", group=1,
           needles=("\u0430\u0441\u043f\u043e\u0440\u0442", "\u0448\u0438\u043d\u043e\u0441",
                    "\u0430\u0448\u043f\u0430\u0440\u0442")),
        # One-time codes told before their words (Kyrgyz "3872 - бир жолку код", Russian
        # "300726 — код для подтверждения"), a JSON-RPC
        # call's "code" beside its card's token (Payme's cards.verify), Persian's "رمز:" with
        # its digits in Persian.
        _d("secret_assignment",
           r"(?<![\w.,])(\d{4,8})[ \t]*[-\u2013\u2014][ \t]*(?:\u0431\u0438\u0440 \u0436\u043e"
           r"\u043b\u043a\u0443 \u043a\u043e\u0434|\u043a\u043e\u0434 (?:\u0434\u043b\u044f "
           r"\u043f\u043e\u0434\u0442\u0432\u0435\u0440\u0436\u0434\u0435\u043d\u0438\u044f|"
           r"\u043f\u043e\u0434\u0442\u0432\u0435\u0440\u0436\u0434\u0435\u043d\u0438\u044f))",
           v.not_counting_run, prefilter=r"[0-9]{4,8}[ \t]*[^\r\n0-9]{1,3}[ \t]*aaa aaa",
           group=1, needles=("\u0436\u043e\u043b\u043a\u0443", "\u043a\u043e\u0434 "),
           digits=True),
        _d("secret_assignment",
           r"\\?\"method\\?\"\s*:\s*\\?\"cards\.verify\\?\"[^\n]{0,200}?\\?\"code\\?\"\s*:\s*"
           r"\\?\"(\d{4,8})\\?\"", prefilter=r"cards\.verify", group=1, needles=("cards.verify",)),
        _d("secret_assignment",
           # (in Persian digits, as the SMS writes it: the view of other scripts' digits reads
           # the others)
           "(?:^|\n)\u0631\u0645\u0632[ \t]*:[ \t]*([\u06f0-\u06f9]{4,8})(?![\u06f0-\u06f9])",
           v.not_counting_run, prefilter=r"aaa[ \t]*:[ \t]*[0-9]{4}", group=1,
           needles=("\u0631\u0645\u0632",)),
        # France's tax number (numéro fiscal, the mod-511 check) after NIF, "numéro fiscal",
        # impots.gouv's "identifiant"; Algeria's NIN (eighteen digits); Morocco's CNSS registration
        # (nine digits); Nepal's personal PAN (nine), Bangladesh's e-TIN (twelve).
        _named_id((r"nif\b", r"num[ée]ro fiscal", r"identifiant(?: fiscal)?", r"(?-i:SPI)\b"),
                  ("nif", "num", "identifiant", "spi"), r"[0-3]\d(?: ?\d){11}", ids.fr_spi_ok,
                  shape=r"[0-3][0-9]"),
        _named_id((r"(?-i:NIN)\b", r"num[ée]ro national", r"numero national",
                   "\u0631\u0642\u0645 \u0627\u0644\u062a\u0639\u0631\u064a\u0641 "
                   "\u0627\u0644\u0648\u0637\u0646\u064a"),
                  ("nin", "num", "\u0631\u0642\u0645"), r"[12]\d{17}", v.not_counting_run,
                  checksummed=False),
        _named_id((r"cnss", r"immatriculation"), ("cnss", "immatriculation"), r"\d{9}",
                  v.not_counting_run, checksummed=False),
        _named_id((r"personal[ \t]+(?-i:PAN)\b",), ("personal",), r"[1-6]\d{8}",
                  v.not_counting_run, checksummed=False),
        _named_id((r"(?<![a-z])e-?tin\b", r"(?<![a-z])(?-i:TIN)\b"), ("e-tin", "etin", "tin"),
                  r"\d{10}|\d{12}",
                  v.not_counting_run, checksummed=False),
        # Nepal's citizenship certificate (its number and the year it was issued, or district,
        # year, ward and serial; in Devanagari's digits too) after its name in Nepali or
        # English.
        _named_id(("\u0928\u093e\u0917\u0930\u093f\u0915\u0924\u093e",
                   r"citizenship(?:[ _](?:no|number|certificate))?"),
                  ("\u0928\u093e\u0917\u0930\u093f\u0915\u0924\u093e", "citizenship"),
                  r"\d{1,6}/\d{4}|\d{2}-\d{2}-\d{2}-\d{5}|\d{11,12}",
                  _has_digit, checksummed=False,
                  shape=r"[0-9]{1,6}/[0-9]{4}|[0-9]{2}-[0-9]{2}-[0-9]{2}-[0-9]{5}|[0-9]{11}"),
        # Italy's health card's number (80380 and fifteen digits, after its name), Andalusia's
        # NUHSA, Catalonia's
        # CIP, Spain's identity card's support number (Nº SOPORTE).
        _named_id((r"tessera",), ("tessera",), r"80380\d{15}", v.not_counting_run,
                  checksummed=False),
        _named_id((r"nuhsa",), ("nuhsa",), r"AN\d{10}", _has_digit, checksummed=False),
        _named_id((r"(?-i:CIP)\b",), ("cip",), r"[A-Z]{4}\d{10}", _has_digit, checksummed=False),
        _named_id((r"soporte",), ("soporte",), r"[A-Z]{3}\d{6}", _has_digit, checksummed=False),
        # A security question's answer in French ("question secrète : réponse « Kiki »"), a
        # telco's customer password (Kundenkennwort), a PUK told after its SIM's number
        # ("Ihr PUK für die Nummer ... lautet 15803995"), a BLIK code in a payment's log,
        # Catalan's validation code, Fisconline's PIN.
        _d("secret_assignment",
           "(?i)question[ \t]+secr[\u00e8e]te[^\n\u00ab\"]{0,40}?r[\u00e9e]ponse[ \t]*"
           "[\u00ab\"\u201c][ \t\u00a0]*([^\u00bb\"\u201d\n]{2,40}?)[ \t\u00a0]*[\u00bb\"\u201d]",
           _not_stand_in, prefilter=r"(?i)question[ \t]+secr.te", group=1,
           needles=("secr\u00e8te", "secrete", "SECR\u00c8TE")),
        _d("secret_assignment", r"(?i)kunden-?kennwort[ \t]*:[ \t]*([^\s,;]{4,32})",
           _not_stand_in, prefilter=r"(?i)kunden-?kennwort[ \t]*:", group=1,
           needles=("ennwort", "ENNWORT")),
        _d("secret_assignment",
           r"(?i)(?<![a-z])puk(?:[ _-]?code)?(?![a-z])[^\n]{0,80}?(?:lautet|is|ist|est|es|je)"
           r"[ \t]*:?[ \t]*(\d{8})(?!\d)", v.not_counting_run,
           prefilter=r"(?i)puk[^\r\n]{0,90}[0-9]{8}", group=1, needles=("puk", "PUK", "Puk"),
           digits=True),
        _d("secret_assignment", r"(?i)\\?\"blik_?code\\?\"\s*:\s*\\?\"(\d{6})\\?\"",
           prefilter=r"(?i)blik_?code", group=1, needles=("blik", "BLIK", "Blik")),
        _d("secret_assignment",
           "(?i)codi[ \t]+de[ \t]+(?:validaci[\u00f3o]|verificaci[\u00f3o]|seguretat)"
           r"[^\n\d]{0,20}?(?<!\d)(\d{4,8})(?!\d)", v.not_counting_run,
           prefilter=r"(?i)codi[ \t]+de[ \t]+", group=1, needles=("codi", "Codi", "CODI")),
        _d("secret_assignment",
           r"(?i)pin[ \t]+fisconline[^\n\d]{0,30}?(?<!\d)(\d{10})(?!\d)", v.not_counting_run,
           prefilter=r"(?i)pin[ \t]+fisconline", group=1, needles=("isconline", "ISCONLINE")),
        # Italy's electronic identity card (CIE) in its own shape: C, a letter, five digits,
        # two letters ("N. CB89724DQ").
        _d("national_id", r"(?<![\w-])(C[A-Z]\d{5}[A-Z]{2})(?![\w-])",
           prefilter=r"C[A-Z][0-9]{5}[A-Z]{2}", group=1, digits=True, start=_at_class("C")),
        # A German passport's or identity card's number as a booking's passenger record
        # keys it ("doc_no": "CXKLVWZW51"): nine characters of its alphabet and the check.
        _d("national_id",
           r"(?i)\\?\"(?:doc(?:ument)?_?(?:no|nr|num(?:ber)?)|passport_?(?:no|nr|num(?:ber)?)?)"
           r"\\?\"\s*:\s*\\?\"((?-i:[CFGHJKLMNPRTVWXYZ0-9]{9}\d))\\?\"", ids.de_id_card_ok,
           prefilter=r"(?i)(?:doc|passport)[A-Za-z_]{0,12}\\?\"\s*:\s*\\?\"[A-Z0-9]{10}\\?\"",
           group=1, needles=("doc", "Doc", "DOC", "assport", "ASSPORT")),
        # An SMS API's recipient in its JSON ({'to': '94716789237'}): a phone with its country
        # code.
        _d("phone",
           r"(?<![\w])\\?[\"']to\\?[\"']\s*:\s*\\?[\"'](\+?[1-9]\d{9,13})\\?[\"']",
           v.told_phone_ok, prefilter=r"[\"']to\\?[\"']\s*:\s*\\?[\"']\+?[1-9][0-9]{9}",
           group=1, needles=("'to'", '"to"', '\\"to\\"'), digits=True, joined=_nothing_joined,
           joined_prefilter=r"[\"']to\\?[\"']\s*:\s*\\?[\"']\+?[1-9][0-9]{9}"),
    )


def _americas_and_the_east() -> tuple[Detector, ...]:
    """The shapes of the DX to EK round: the Andes and the southern cone; Central America and
    the Caribbean; the Levant and Iraq; the Horn of Africa and Sudan; Russia and Belarus;
    Ireland and the UK's nations."""
    return (
        # Central America's and the Caribbean's ids after their names: El Salvador's DUI (its
        # check), Jamaica's TRN, Guatemala's NIT (its check; its DPI is a cédula's, above),
        # Honduras's DNI (13
        # digits), Haiti's NIF, Costa Rica's identification (nine digits) and DIMEX, Cuba's
        # CI as a JSON key.
        _named_id((r"(?-i:DUI)\b", _AS_KEY % "dui"), ("dui",), r"\d{8}-\d", ids.dui_ok),
        _named_id((r"(?-i:TRN)\b", r"(?<![a-z])trn\b"), ("trn",), r"\d{3}[ -]?\d{3}[ -]?\d{3}",
                  v.not_counting_run, checksummed=False),
        _named_id((r"(?-i:NIT)\b",), ("nit",), r"\d{5,8}-?[0-9K]", ids.gt_nit_ok),
        _named_id((r"(?-i:DNI)\b",), ("dni",), r"\d{4}[ -]\d{4}[ -]\d{5}|\d{4} \d{4} \d{5}"
                  r"|[01]\d{12}", v.not_counting_run, checksummed=False,
                  shape=r"[0-9]{4}[ -]?[0-9]{4}[ -]?[0-9]{5}"),
        _named_id((r"(?-i:NIF)\b",), ("nif",), r"\d{3}-\d{3}-\d{3}-\d", v.not_counting_run,
                  checksummed=False),
        _named_id((r"identificaci[óo]n",), ("identificaci",), r"[1-9]\d{8}",
                  v.not_counting_run, checksummed=False),
        _named_id((r"(?-i:DIMEX)\b",), ("dimex",), r"\d{11,12}", v.not_counting_run,
                  checksummed=False),
        _named_id((_AS_KEY % "ci",), ("ci",), r"\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{5}",
                  v.not_counting_run, checksummed=False),
        # ... and in their own shapes anywhere: Nicaragua's cédula (3-6-4 and a letter, its
        # birth date inside), Haiti's CIN (2-2-2-4-2-5), Venezuela's cédula with its dots.
        _d("national_id", r"(?<![\w-])(\d{3}-\d{6}-\d{4}[A-Z])(?![\w-])", ids.ni_cedula_ok,
           prefilter=r"[0-9]{3}-[0-9]{6}-[0-9]{4}[A-Z]", group=1, digits=True, needles=("-",)),
        _named_id((r"c[ée]dula(?:_ni)?",), ("c",), r"\d{13}[A-Z]", ids.ni_cedula_ok),
        _d("national_id", r"(?<![\w-])(\d{2}-\d{2}-\d{2}-\d{4}-\d{2}-\d{5})(?![\w-])",
           prefilter=r"[0-9]{2}-[0-9]{2}-[0-9]{2}-[0-9]{4}-[0-9]{2}-[0-9]{5}", group=1,
           digits=True, needles=("-",)),
        _d("national_id", r"(?<![\w-])([VE]-\d{1,2}\.\d{3}\.\d{3})(?![\w-])",
           prefilter=r"[VE]-[0-9]{1,2}\.[0-9]{3}\.[0-9]{3}", group=1, digits=True,
           needles=("V-", "E-")),
        # Venezuela's cédula, Ecuador's cédula and RUC (their checks), Paraguay's RUC of a
        # person (its check) after their names.
        _named_id((r"(?-i:C\.?I)\b\.?", r"nro\.?", r"doc_?(?:number|num|nro)?"),
                  ("ci", "c.i", "nro", "doc"), r"[VE]-? ?\d{6,8}|[VE]-? ?\d{1,2}\.\d{3}\.\d{3}",
                  _has_digit, checksummed=False, shape=r"[VE]"),
        # Bolivia's CI right after its name ("CI 12755396", "Tipo doc.: CI  Nro.: 2167131"),
        # Paraguay's with its dots after "Doc. nacional".
        _d("national_id",
           r"(?<![\w.])(?-i:C\.?I)\.?[ \t]*(?:(?:N[°º]|Nro)\.?[ \t]*)?:?[ \t]*(\d{6,8})"
           r"(?![\d.,/-])",
           v.not_counting_run, prefilter=r"C\.?I\.?[^\r\n0-9]{0,10}[0-9]{6}", group=1,
           needles=("CI", "C.I"), digits=True),
        _named_id((r"doc\.?[ \t]*nacional",), ("doc",), r"\d{1,2}\.\d{3}\.\d{3}",
                  v.not_counting_run, checksummed=False),
        _named_id((r"(?-i:C\.?I)\b\.?", r"documento",
                   _AS_KEY % "doc(?:_?(?:number|num|nro))?", r"(?-i:RUC)\b"),
                  ("ci", "c.i", "documento", "doc", "ruc"), r"\d{10}",
                  ids.ec_cedula_ok),
        _named_id((r"(?-i:RUC)\b",), ("ruc",), r"\d{13}", ids.ec_ruc_ok),
        _named_id((r"(?-i:RUC)\b",), ("ruc",), r"\d{5,8}-\d", ids.py_ruc_ok),
        # One-time codes and PINs: a wallet's temporary PIN ("PIN temporal 0739"), a code
        # before "para" ("código 330509 para activar"), Haitian Creole's ("Kòd verifikasyon ou
        # se 713369"), an OTP service's "code=" on its line, Tatar's ("Алу коды: 93773").
        *_each("secret_assignment",
               (r"(?i)pin[ \t]+temporal[ \t]*:?[ \t]*(\d{4,8})(?!\d)",
                r"(?i)c[óo]digo[ \t]+(\d{4,8})[ \t]+para[ \t]",
                "(?i)k[\u00f2o]d(?:[ \t]+verifikasyon)?[ \t]+(?:ou[ \t]+)?(?:se|la)[ \t]*:?"
                r"[ \t]*(\d{4,8})(?!\d)",
                # (sent: not a verification's failure, "otp.verify failed code=4003")
                r"(?i)(?<![a-z])sent[ \t]+otp(?![a-z])[^\n]{0,80}?(?<![\w.])code=(\d{4,8})(?!\d)",
                "(?i)\u043a\u043e\u0434\u044b[ \t]*:[ \t]*(\\d{4,8})(?!\\d)"),
               v.not_counting_run,
               prefilter=r"(?i)pin[ \t]+temporal|c.digo[ \t]+[0-9]{4}[0-9]*[ \t]+para"
                         r"|k.d[^\r\n]{0,20}[0-9]{4}|sent[ \t]+otp[^\r\n]{0,90}code=[0-9]{4}"
                         r"|aaaa[ \t]*:[ \t]*[0-9]{4}",
               gate=r"(?i:temporal|digo|k\u00f2d|kod|otp|\u043a\u043e\u0434\u044b)",
               digits=True),
        # A password whose word stands in brackets after another language's ("Furaha sirta ah
        # (password): X").
        _d("secret_assignment",
           r"(?i)\((?:password|passwort|contrase[ñn]a|mot de passe|senha|wachtwoord)\)"
           r"[ \t]*:[ \t]*([^\s\"'<>]{4,64})", v.secret_value_ok,
           prefilter=r"(?i)\((?:password|passwort|contrase.a|mot de passe|senha|wachtwoord)\)"
                     r"[ \t]*:", group=1, needles=("(", )),
        # A router's CLI listing its Wi-Fi key after a dotted leader ("Passphrase ......
        # mofongo_Tortuga3").
        _d("secret_assignment",
           r"(?i)(?<![\w])(?:passphrase|pre-?shared[ \t]+key|psk|wpa[ \t]+key)[ \t]*\.{3,}[ \t]*"
           r"(\S{8,63})", v.secret_value_ok,
           prefilter=r"(?i)(?:passphrase|shared[ \t]+key|psk|wpa[ \t]+key)[ \t]*\.\.\.",
           group=1, gate=r"(?i:passphrase|key|psk)"),
        # A security question's answer in Spanish ("pregunta de seguridad (...): respondió
        # \"La Ceiba\"") and Russian ("Контрольный вопрос: ...\nОтвет: Шарик").
        *_each("secret_assignment",
               ("(?i)pregunta[ \t]+de[ \t]+seguridad[^\n\"\u201c]{0,80}?respondi[\u00f3o]"
                "[ \t]*:?[ \t]*[\"\u201c\u00ab]([^\"\u201d\u00bb\n]{2,40})[\"\u201d\u00bb]",
                "(?i)\u043a\u043e\u043d\u0442\u0440\u043e\u043b\u044c\u043d\\w*[ \t]+"
                "\u0432\u043e\u043f\u0440\u043e\u0441[^\n]{0,80}\n[ \t]*\u041e\u0442\u0432"
                "\u0435\u0442[ \t]*:[ \t]*([^\n]{2,40}?)[ \t]*(?=\n|$)"),
               _not_stand_in,
               prefilter=r"(?i)pregunta[ \t]+de[ \t]+seguridad|aaaaaaaaaaa[ \t]+aaaaaa",
               needles=("seguridad", "SEGURIDAD", "\u043e\u043f\u0440\u043e\u0441")),
        # Russia's passport as a bank's JSON keeps it (a PASSPORT document's series_number),
        # a residence permit's series and number ("Вид на жительство: 83 1212746").
        _d("national_id",
           r"PASSPORT\w*\\?\"\s*,\s*\\?\"(?:series_number|number|series)\\?\"\s*:\s*\\?\""
           r"(\d{4} ?\d{6})\\?\"", prefilter=r"PASSPORT[A-Za-z_]*\\?\"\s*,", group=1,
           needles=("PASSPORT",)),
        # The Levant's, Iraq's, Sudan's and Somalia's ids after their names (Arabic-Indic
        # digits are read as ASCII ones by the view of other scripts' digits): Iraq's unified
        # card, Kurdish's national card, Lebanon's identity card, Iraq's civil status id,
        # Syria's and Sudan's national number, a Palestinian's "هويتي", a JSON's national_no,
        # Somalia's NIRA number; UNHCR's registration numbers and Ethiopia's CBHI membership in
        # their own shapes.
        _named_id(("\u0631\u0642\u0645 \u0627\u0644\u0628\u0637\u0627\u0642\u0629 "
                   "\u0627\u0644\u0645\u0648\u062d\u062f\u0629",
                   "\u06a9\u0627\u0631\u062a\u06cc \u0646\u06cc\u0634\u062a\u0645\u0627"
                   "\u0646\u06cc",
                   "\u0631\u0642\u0645 \u0628\u0637\u0627\u0642\u0629 \u0627\u0644\u0647"
                   "\u0648\u064a\u0629",
                   "\u0647\u0648\u064a\u0629 \u0627\u0644\u0623\u062d\u0648\u0627\u0644",
                   # (not an establishment's, "الرقم الوطني للمنشأة")
                   "\u0627\u0644\u0631\u0642\u0645 \u0627\u0644\u0648\u0637\u0646\u064a"
                   "(?! \u0644\u0644\u0645\u0646\u0634\u0623)",
                   "\u0647\u0648\u064a\u062a\u064a", _AS_KEY % "national_no",
                   r"(?-i:NIRA)\b", r"hawiye"),
                  ("\u0631\u0642\u0645", "\u06a9\u0627\u0631\u062a\u06cc", "\u0647\u0648\u064a",
                   "\u0627\u0644\u0631\u0642\u0645", "national_no", "nira", "hawiye"),
                  r"\d{7,12}", v.not_counting_run, checksummed=False, shape=r"[0-9]{7}"),
        _d("national_id", r"(?<![\w-])([A-Z0-9]{3}-\d{2}C\d{5,6})(?![\w-])",
           prefilter=r"[A-Z0-9]{3}-[0-9]{2}C[0-9]{5}", group=1, digits=True, needles=("C",)),
        _d("national_id", r"(?<![\w/])(CBHI/[A-Z]{2}/\d{2}/\d{5,7})(?![\w/])",
           prefilter=r"CBHI/[A-Z]{2}/[0-9]{2}/[0-9]{5}", group=1, needles=("CBHI/",)),
        # Passports by their Somali, Tigrinya, Arabic and Urdu names ("Baasaboor No.:",
        # "ፓስፖርተይ ቁጽሪ", "رقم الجواز", "پاسپورٹ نمبر").
        _named_id((r"baasaboor", "\u1353\u1235\u1356\u122d", "\u0627\u0644\u062c\u0648"
                   "\u0627\u0632", "\u062c\u0648\u0627\u0632 \u0627\u0644\u0633\u0641\u0631",
                   "\u067e\u0627\u0633\u067e\u0648\u0631\u0679"),
                  ("baasaboor", "\u1353\u1235", "\u0627\u0644\u062c\u0648", "\u062c\u0648",
                   "\u067e\u0627\u0633"),
                  r"[A-Z]{1,2}\d{7,9}", _has_digit, checksummed=False,
                  gap=_PASSPORT_GAP),
        _named_id(("[\u0412\u0432]\u0438\u0434[ \t]+\u043d\u0430[ \t]+"
                   "\u0436\u0438\u0442\u0435\u043b\u044c\u0441\u0442\u0432\u043e",),
                  ("\u0432\u0438\u0434",),
                  r"\d{2} ?\d{7}", v.not_counting_run, checksummed=False),
    )


def _called_number_ok(value: str) -> bool:
    """A number told after a word for calling: 7 to 13 digits (Iceland's and Brunei's have
    seven), not a date."""
    return 7 <= len(v.digits(value)) <= 13 and _A_DATE.match(value) is None


_A_DATE = re.compile(r"(?:19|20)\d\d-[01]\d-[0-3]\d")


def _baltic_or_latvian(value: str) -> bool:
    return ids.baltic_code_ok(value) or ids.personas_kods_ok(value)


# Words for calling, texting or reaching someone at a number, in the languages of the EL to EQ
# round: "Courier will call 51500040", "call my wife 52141299", "Reach me at 0149380125",
# Arabic's "will call on" (سيتصل على), Urdu's "my number" and "phone number", Malayalam's
# number, Chinese's 号码, Latvian's phone and "my number is", Icelandic's phone, Bulgarian's
# "called from" and courier, the wallets a mobile number keys (GCash, Maya, GoPay, DANA,
# OVO, Touch 'n Go).
_CALL_WORDS = (
    # (every alternative starts at one of _CALL_STARTS, the words before it looked behind
    # for: the engine reports where those words are, and the pattern is tried only there)
    r"(?:(?:(?<=will )|(?<=shall )|(?<=can )|(?<=to )|(?<=please )|(?<=pls ))"
    r"(?:call|ring|text|sms|whatsapp)(?:[ \t]+(?:you|u|me|us))?(?:[ \t]+(?:on|at))?"
    r"|(?:(?<=will )|(?<=shall )|(?<=can )|(?<=to )|(?<=please )|(?<=pls ))"
    r"contact[ \t]+(?:(?:you|u|me|us)(?:[ \t]+(?:on|at))?|(?-i:[A-Z][a-z]{1,15})[ \t]+(?:on|at))"
    r"|(?<![a-z])call[ \t]+(?:my|his|her|our)[ \t]+[a-z]{3,10}"
    r"|(?<![a-z])reach(?:ed)?[ \t]+(?:me|us|on|at)(?:[ \t]+(?:at|on))?"
    r"|(?<![a-z])text[ \t]+(?:the[ \t]+)?confirmation[ \t]+to"
    r"|(?:(?<=your )|(?<=my ))line(?![a-z])|(?<![a-z])line[ \t]+ni(?![a-z])"
    r"|(?<=my )(?:hp|handphone)(?:[ \t]+(?:no|number))?[ \t]+is"
    r"|(?<![a-z])(?:gcash|maya|gopay|dana|ovo|shopeepay|grabpay|touch[ \t]?'?n[ \t]?go)(?![a-z])"
    # (West and Southern Africa: Yoruba's phone, Twi's, Krio's and Wolof's number, Igbo's
    # "call me at", Swahili's "call me", Zulu's and Xhosa's phone's number, Setswana's,
    # Afrikaans's cell number, Luganda's phone)
    "|f\u00f3\u00f2n\u00f9|n\u0254ma|(?<![a-z])nomba(?![a-z])|(?<![a-z])nimero(?![a-z])"
    "|kp\u1ecd\u1ecd[ \\t]+m|nipigie|inombolo[ \\t]+(?:yami[ \\t]+)?(?:yocingo|yefowuni)"
    "|mogala|selnommer|essimu"
    # (Arabic's "will call on", Urdu's "my number", "phone number", "their number")
    "|\u0633\u064a\u062a\u0635\u0644(?:[ \t]+\u0628\u0643)?[ \t]+\u0639\u0644\u0649"
    "|(?:(?<=\u0645\u06cc\u0631\u0627 )|(?<=\u0641\u0648\u0646 )|(?<=\u06a9\u0627 ))"
    "\u0646\u0645\u0628\u0631"
    "|\u0d28\u0d2e\u0d4d\u0d2a\u0d7c|\u6211\u7684(?:\u53f7\u7801|\u865f\u78bc)"
    "|t\u0101lrunis|t\u0101lr\\.|(?<![a-z])numurs(?:[ \t]+ir)?"
    "|(?<![a-z])s\u00edm(?:i|an\u00famer)(?![a-z])"
    "|\u043e\u0431\u0430\u0434\u0438[ \t]+\u043e\u0442|\u043a\u0443\u0440\u0438\u0435\u0440"
    # (Greek's mobile for short, "Κιν.", its phone's "τηλ" before the number, and "call me
    # at", καλέστε με στο; Tagalog's "my number", "the number that ...", "contact ... at")
    "|[\u039a\u03ba]\u03b9\u03bd\\.|\u03ba\u03b1\u03bb\u03ad\u03c3\u03c4\u03b5"
    "|[\u03a4\u03c4]\u03b7\u03bb(?=[ \t]+\\d)"
    r"|(?<![a-z])number[ \t]+(?:ko|na|niya|mo)(?![a-z])|(?:(?<=pa-)|(?<=pa))contact)")
_CALL_PREFILTER = engine_reading(
    r"(?i)(?:(?:will|shall|can|to|please|pls)[ \t]+(?:call|ring|text|sms|whatsapp|contact)"
    r"|call[ \t]+(?:my|his|her|our)|reach|text[ \t]+(?:the[ \t]+)?confirmation"
    r"|(?:your|my)[ \t]+line|line[ \t]+ni|my[ \t]+(?:hp|handphone)|gcash|maya|gopay|dana|ovo"
    "|shopeepay|grabpay|touch|f\u00f3\u00f2n\u00f9|n\u0254ma|nomba|nimero|kp|nipigie|inombolo"
    r"|mogala|selnommer|essimu|aa|numurs|t.lr|s.m[ia]|number[ \t]+(?:ko|na|niya|mo)|contact)"
    r"[^\r\n]{0,50}[0-9][ ()-]?[0-9]")
# The words a match starts at.
_CALL_STARTS = ("call", "ring", "text", "sms", "whatsapp", "contact", "reach", "line", "hp",
                "handphone",
                "gcash", "maya", "gopay", "dana", "ovo", "shopeepay", "grabpay", "touch",
                "f\u00f3\u00f2n\u00f9", "n\u0254ma", "nomba", "nimero", "kp\u1ecd\u1ecd",
                "nipigie", "inombolo", "mogala", "selnommer", "essimu",
                "\u0633\u064a\u062a\u0635\u0644", "\u0646\u0645\u0628\u0631",
                "\u0d28\u0d2e\u0d4d\u0d2a\u0d7c", "\u6211\u7684", "t\u0101lr", "numurs",
                "s\u00edm", "\u043e\u0431\u0430\u0434\u0438",
                "\u043a\u0443\u0440\u0438\u0435\u0440",
                "\u03ba\u03b9\u03bd.", "\u03ba\u03b1\u03bb\u03ad\u03c3\u03c4\u03b5",
                "\u03c4\u03b7\u03bb", "number")


# ... as the engine reports them (other scripts' words as runs of "a", their lengths kept).
_CALL_WORD_STARTS = tuple((engine_reading("(?i)" + re.escape(word)), len(word))
                          for word in _CALL_STARTS)


_CALL_NEEDLES = ("call", "CALL", "Call", "ring", "text", "Text", "sms", "SMS", "hatsapp",
                 "each", "ontact", "ONTACT", "onfirmation", "line", "Line", "LINE",
                 "hp", "HP", "Hp", "andphone",
                 "cash", "CASH", "aya", "AYA", "opay", "OPAY", "ana", "ANA", "ovo", "OVO",
                 "pay", "Pay", "PAY", "ouch", "OUCH", "\u00f3\u00f2n\u00f9", "n\u0254ma",
                 "omba", "OMBA", "imero", "IMERO", "p\u1ecd\u1ecd", "ipigie", "nombolo",
                 "ogala", "elnommer", "ssimu",
                 "\u0633\u064a\u062a\u0635\u0644", "\u0646\u0645\u0628\u0631",
                 "\u0d28\u0d2e\u0d4d\u0d2a\u0d7c", "\u6211\u7684",
                 "t\u0101lr", "umurs", "s\u00edm", "\u043e\u0431\u0430\u0434\u0438",
                 "\u043a\u0443\u0440\u0438\u0435\u0440", "\u03b9\u03bd.", "\u03b7\u03bb",
                 "umber", "UMBER",
                 "\u03ba\u03b1\u03bb\u03ad\u03c3\u03c4\u03b5")


def _the_gulf_africa_and_the_north() -> tuple[Detector, ...]:
    """The shapes of the EL to EQ round: the Gulf states; West Africa; East and Southern
    Africa; South-East Europe and the Black Sea; the Nordics and the Baltics; maritime
    South-East Asia."""
    return (
        # The Gulf: Oman's civil number, Bahrain's CPR (nine digits, a birth year and month
        # first), a resident card's number, a Saudi id after "هوية" with words between (a
        # student's, "رقم هوية الطالب"), Oman's civil status card.
        _named_id((r"civil[ \t]*(?:no|number|num)\.?",), ("civil",), r"\d{7,9}",
                  v.not_counting_run, checksummed=False),
        _named_id((r"(?-i:CPR)(?:[ \t]*(?:no|nr|number)\.?)?",), ("cpr",),
                  r"\d{2}(?:0[1-9]|1[0-2])\d{5}", v.not_counting_run, checksummed=False),
        _named_id((r"resident(?:ce)?[ \t]+card(?:[ \t]+(?:no|number))?\.?",
                   "carte[ \\t]+de[ \\t]+r[\u00e9e]sident"), ("resident", "carte"),
                  r"(?:CR)?\d{7,9}", v.not_counting_run, checksummed=False,
                  shape=r"(?:CR)?[0-9]{7}"),
        _named_id(("\u0647\u0648\u064a\u0629",), ("\u0647\u0648\u064a\u0629",), r"[12]\d{9}",
                  ids.sa_id_ok),
        _named_id(("\u0627\u0644\u0623\u062d\u0648\u0627\u0644 \u0627\u0644\u0645\u062f\u0646"
                   "\u064a\u0629",), ("\u0627\u0644\u0623\u062d\u0648\u0627\u0644",), r"\d{7,9}",
                  v.not_counting_run, checksummed=False),
        # ... a passport, a card's PIN and a one-time code in Malayalam; a delivery's code in
        # Arabic ("رمز الاستلام") and English ("Share delivery PIN 832822").
        _named_id(("\u0d2a\u0d3e\u0d38\u0d4d\u0d2a\u0d4b\u0d7c\u0d1f\u0d4d\u0d1f\u0d4d",),
                  ("\u0d2a\u0d3e\u0d38\u0d4d\u0d2a\u0d4b\u0d7c",), r"[A-Z]\d{7,8}", _has_digit,
                  checksummed=False),
        *_each("secret_assignment",
               ("(?:\u0d2a\u0d3f\u0d7b|\u0d12\u0d1f\u0d3f\u0d2a\u0d3f)[ \t]*:?[ \t]*(\\d{4,8})"
                r"(?!\d)",
                "\u0631\u0645\u0632[ \t]+(?:\u0627\u0644\u0627\u0633\u062a\u0644\u0627\u0645"
                "|\u0627\u0644\u062a\u0633\u0644\u064a\u0645)[ \t]*:?[ \t]*(\\d{4,8})(?!\\d)",
                r"(?i)(?<![a-z])(?:delivery|collection|pick-?up|handover)[ \t]+(?:PIN|code|OTP)"
                r"(?:[ \t]+(?:is|:))?[ \t]*:?[ \t]*(\d{4,8})(?!\d)"),
               v.not_counting_run,
               prefilter=engine_reading(
                   r"(?i)(?:aa|delivery|collection|pick-?up|handover)[ \t]+(?:[^\r\n]{0,20}"
                   r"[ \t]*)?[0-9]{4}|aaa[ \t]*:?[ \t]*[0-9]{4}"),
               gate="(?i:\u0d2a\u0d3f\u0d7b|\u0d12\u0d1f\u0d3f\u0d2a\u0d3f|\u0631\u0645\u0632"
                    "|delivery|collection|pick|handover)",
               digits=True),
        # A number told after a word for calling or a wallet keyed by it (see _CALL_WORDS).
        _d("phone",
           # (not a pod's address, "ip-10-1-65-245", nor an order's "ORD-2024..."; Zulu's
           # copula before the number, "ngu-0841336537")
           rf"(?i){_CALL_WORDS}[^\n\d.!?(\"'=<>]{{0,20}}?(?<![\w+/])(?:(?<!-)|(?<=ngu-))"
           r"(\+?\d[\d ()\-]{5,16}\d)"
           r"(?![\d\w]|[./-]\d)",
           _called_number_ok, prefilter=_CALL_PREFILTER, group=1, needles=_CALL_NEEDLES,
           start=_at_words(_CALL_STARTS), starts=_CALL_WORD_STARTS,
           # (a joiner hides a number of nine digits or more: a date's eight are not rescanned)
           digits=True, joined=_joined_digits(9),
           joined_prefilter=_CALL_PREFILTER.replace("[ ()-]", "[ _()-]")),
        # West Africa: Senegal's IPRES number, Benin's IFU, Ghana's NHIS and SSNIT
        # numbers, Nigeria's voter (VIN, nineteen characters), Sierra Leone's NASSIT number
        # and NIN (eight letters and digits), Cameroon's CNPS number and a person's NIU.
        _named_id((r"(?-i:IPRES)",), ("ipres",), r"\d{6,9}", v.not_counting_run,
                  checksummed=False),
        # (a person's IFU opens with 1; a firm's, on its invoices, with 2 or 3. Not Benin's
        # NPI by its name alone: "NPI" and ten digits is a US provider's number, most often)
        _named_id((r"(?-i:IFU)\b",), ("ifu",), r"1\d{12}", v.not_counting_run,
                  checksummed=False),
        _named_id((r"(?-i:NHIS)", r"(?-i:NHIF)", r"(?-i:NASSIT)"), ("nhis", "nhif", "nassit"),
                  r"\d{7,10}", v.not_counting_run, checksummed=False),
        _named_id((r"(?-i:SSNIT)",), ("ssnit",), r"[A-Z]\d{12}", _not_zeros, checksummed=False),
        _named_id((r"(?-i:VIN)\b",), ("vin",), r"[0-9A-Z]{19}", _has_digit, checksummed=False),
        _named_id((r"(?-i:NIN)\b",), ("nin",), r"(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{8}",
                  _has_digit, checksummed=False, shape=r"[A-Z0-9]{8}"),
        _named_id((r"(?-i:CNPS)",), ("cnps",), r"\d{9,10}[A-Z]?", v.not_counting_run,
                  checksummed=False),
        _named_id((r"(?-i:NIU)\b",), ("niu",), r"P\d{12}[A-Z]", _not_zeros, checksummed=False),
        # ... and in their own shapes anywhere: Nigeria's pension PIN (PEN and twelve
        # digits), Senegal's CNI spaced as the card prints it (1-3-4-5).
        _d("national_id", r"(?<![\w-])(PEN\d{12})(?![\w-])", prefilter=r"PEN[0-9]{12}",
           group=1, digits=True, needles=("PEN",)),
        _d("national_id", r"(?<![\w-])([12] \d{3} \d{4} \d{5})(?![\w-]| \d)",
           prefilter=r"[12] [0-9]{3} [0-9]{4} [0-9]{5}", group=1, digits=True,
           needles=(" ",)),
        # East and Southern Africa: Uganda's NIN (CM or CF, then twelve), Kenya's KRA PIN of
        # a person alone (its own line under the certificate's heading), Zambia's NRC
        # (6/2/1), Rwanda's national id spaced as the card prints it, Tanzania's NIDA number
        # (a birth date and twelve digits), in their own shapes anywhere.
        _d("national_id", r"(?<![\w-])(C[MF]\d{7,8}[0-9A-Z]{4,5})(?![\w-])", v.not_counting_run,
           prefilter=r"C[MF][0-9]{7}[0-9A-Z]{4}", group=1, digits=True, needles=("CM", "CF")),
        _d("national_id", r"(?<![\w-])(A\d{9}[A-Z])(?![\w-])", ids.kra_pin_ok,
           prefilter=r"A[0-9]{9}[A-Z]", group=1, digits=True, needles=("A",)),
        _d("national_id", r"(?<![\w/-])(\d{6}/\d{2}/[1-3])(?![\w/-])",
           prefilter=r"[0-9]{6}/[0-9]{2}/[1-3]", group=1, digits=True, needles=("/",)),
        _d("national_id", r"(?<![\w-])([123] (?:19|20)\d\d [78] \d{7} \d \d\d)(?![\w-]| \d)",
           prefilter=r"[123] (?:19|20)[0-9]{2} [78] [0-9]{7} [0-9] [0-9]{2}", group=1,
           digits=True, needles=(" ",)),
        _d("national_id", r"(?<![\w-])((?:19|20)\d{6}-\d{5}-\d{5}-\d{2})(?![\w-])",
           ids.nida_ok, prefilter=r"(?:19|20)[0-9]{6}-[0-9]{5}-[0-9]{5}-[0-9]{2}", group=1,
           digits=True, needles=("-",)),
        _named_id((r"(?-i:NIDA)", _AS_KEY % "nin"), ("nida", "nin"), r"\d{20}", ids.nida_ok),
        # ... and after their names: Rwanda's "indangamuntu", Zambia's TPIN, Botswana's
        # Omang, Namibia's id (a birth date first) after "ID No" or Afrikaans's "ID
        # nommer", South Africa's income tax number, Zimbabwe's national id (a letter
        # between its digits and its district).
        _named_id((r"indangamuntu",), ("indangamuntu",), r"1 ?\d{4} ?[78] ?\d{7} ?\d ?\d\d",
                  v.not_counting_run, checksummed=False),
        _named_id((r"(?-i:TPIN)",), ("tpin",), r"\d{10}", v.not_counting_run,
                  checksummed=False),
        _named_id((r"omang",), ("omang",), r"\d{9}", v.not_counting_run, checksummed=False),
        _named_id((r"(?-i:ID)[ \t]*(?:no|nommer|number|nr)\.?",), ("id",), r"\d{11}",
                  ids.na_id_ok, checksummed=False),
        _named_id((r"income[ \t]+tax[ \t]+(?:no|number|ref(?:erence)?)\.?",), ("income",),
                  r"[0-39]\d{9}", v.not_counting_run, checksummed=False),
        _named_id((r"national[ \t]+id(?:[ \t]+(?:no|number))?\.?",), ("national",),
                  r"\d{2}-?\d{6,7}[ -]?[A-Z][ -]?\d{2}", _has_digit, checksummed=False),
        # South-East Europe: Bulgaria's identity card, Cyprus's, Romania's by its series and
        # number, Greece's ΑΔΤ (Greek capitals and six digits), ΑΦΜ and ΑΜΚΑ in lower case,
        # Moldova's IDNP as a key, Romania's health card, Cyprus's TIN (eight digits and a
        # letter).
        _named_id(("\u043b\u0438\u0447\u043d\u0430[ \\t]+\u043a\u0430\u0440\u0442\u0430",
                   "\u041b\u0438\u0447\u043d\u0430[ \\t]+\u043a\u0430\u0440\u0442\u0430"),
                  ("\u043b\u0438\u0447\u043d\u0430",), r"(?:[A-Z]{2})?\d{7,9}", _has_digit,
                  checksummed=False),
        _named_id((r"identity[ \t]+card[ \t]*(?:no|number|nr)\.?",), ("identity",),
                  r"\d{6,9}", v.not_counting_run, checksummed=False),
        _d("national_id",
           r"(?i)(?<![a-z])seria[ \t]+[A-Z]{2}[ \t]*(?:nr\.?|num[\u0103a]r)[ \t]*(\d{6})(?!\d)",
           prefilter=r"(?i)seria[ \t]+[A-Z]{2}[ \t]*n[^\r\n]{0,6}[0-9]{6}", group=1,
           digits=True, needles=("seria", "SERIA", "Seria")),
        _named_id(("\u0391\\.?\u0394\\.?\u03a4\\.?",), ("\u03b1.\u03b4", "\u03b1\u03b4\u03c4"),
                  "[\u0391-\u03a9A-Z]{1,2} ?\\d{6}", _has_digit, checksummed=False,
                  shape="a{1,2} ?[0-9]{6}"),
        _named_id(("[\u0391\u03b1]\\.?[\u03a6\u03c6]\\.?[\u039c\u03bc]\\.?",),
                  ("\u03b1\u03c6\u03bc", "\u03b1.\u03c6"), r"\d{9}", ids.afm_ok),
        _named_id(("[\u0391\u03b1]\\.?[\u039c\u03bc]\\.?[\u039a\u03ba]\\.?[\u0391\u03b1]\\.?",),
                  ("\u03b1\u03bc\u03ba\u03b1", "\u03b1.\u03bc"), r"\d{11}", ids.amka_ok),
        _named_id((_AS_KEY % "idnp",), ("idnp",), r"\d{13}", ids.idnp_ok),
        _named_id(("card[ \\t]+na[\u021bt]ional[ \\t]+de[ \\t]+s[\u0103a]n[\u0103a]tate",),
                  ("card",), r"\d{20}", v.not_counting_run, checksummed=False),
        _named_id((r"(?-i:TIN)\b",), ("tin",), r"\d{8}[A-Z]", _not_zeros, checksummed=False),
        # The Nordics and the Baltics: Latvia's and Lithuania's codes after "p.k." and
        # "a.k.", Finland's veronumero and "hetuni" (my hetu), a Norwegian residence card,
        # an EHIC's personal number and the card's own, driving licences by their Nordic
        # and Baltic names, an Estonian or Lithuanian code as a JSON key.
        _named_id((r"(?<![a-z])[pa]\.[ \t]?k\.",), ("p.k", "p. k", "a.k", "a. k"),
                  r"\d{6}-?\d{5}", _baltic_or_latvian),
        _named_id((r"veronumero",), ("veronumero",), r"\d{12}", v.not_counting_run,
                  checksummed=False),
        _named_id((r"hetu(?:ni|si|n)",), ("hetu",), r"\d{6}[-+A-FU-Y]\d{3}[0-9A-Y]",
                  ids.hetu_ok),
        _named_id((r"oppholdskort(?:[ \t]*nr\.?)?",), ("oppholdskort",), r"[A-Z]?\d{8}",
                  _has_digit, checksummed=False),
        _named_id((r"personal[ \t]+identification[ \t]+number",), ("personal",),
                  r"\d{6}-?\d{4,5}", ids.any_id_ok),
        _named_id((r"identification[ \t]+number[ \t]+of[ \t]+the[ \t]+card",),
                  ("identification",), r"\d{20}", v.not_counting_run, checksummed=False),
        _named_id(("k\u00f8rekort(?:nummer|[ \\t]*nr\\.?)",
                   "f\u00f8rerkort(?:nummer|[ \\t]*nr\\.?)", "k\u00f6rkortsnummer",
                   "ajokortin[ \\t]+numero",
                   "vairuotojo[ \\t]+pa\u017eym\u0117jimo(?:[ \\t]*nr\\.?)?",
                   "vad\u012bt\u0101ja[ \\t]+apliec\u012bbas(?:[ \\t]*nr\\.?)?"),
                  ("k\u00f8rekort", "f\u00f8rerkort", "k\u00f6rkort", "ajokortin", "vairuotojo",
                   "vad\u012bt\u0101ja"),
                  r"\d{8}|\d{3} ?\d{2} ?\d{6}", v.not_counting_run, checksummed=False),
        _named_id((_AS_KEY % "personal_?code",), ("personal",), r"\d{11}", ids.baltic_code_ok),
        # A passenger's passport in an airline's APIS record ("docType": "P", then its
        # "docNumber").
        _d("national_id",
           r"\"docType\"[ \t]*:[ \t]*\"P\"[^{}]{0,80}?\"docNumber\"[ \t]*:[ \t]*"
           r"\"([A-Z0-9]{6,12})\"",
           _has_digit, prefilter=r"\"docType\"[ \t]*:[ \t]*\"P\"", group=1,
           needles=("docType",)),
        # Maritime South-East Asia: Indonesia's BPJS cards and KPJ, the SEP's card number,
        # Malaysia's KWSP member number and income tax number, Brunei's smart card (2-6),
        # Indonesia's driving licence (4-4-6), the Philippines' (a letter, 2-2-6), an SSS
        # number as a JSON key.
        _named_id((r"(?-i:BPJS)(?:[ \t]+kesehatan)?", r"no\.[ \t]*kartu"), ("bpjs", "no."),
                  r"\d{13}", v.not_counting_run, checksummed=False),
        _named_id((r"(?-i:KPJ)\b",), ("kpj",), r"\d{11}", v.not_counting_run,
                  checksummed=False),
        _named_id((r"(?-i:KWSP)", r"(?-i:EPF)\b"), ("kwsp", "epf"), r"\d{7,9}",
                  v.not_counting_run, checksummed=False),
        _named_id((r"cukai[ \t]+pendapatan",), ("cukai",), r"(?:IG|SG|OG)?\d{9,11}",
                  v.not_counting_run, checksummed=False),
        _named_id((r"kad[ \t]+pengenalan(?:[ \t]+pintar)?", r"(?-i:IC)\b"),
                  ("kad", "ic"), r"\d{2}-\d{6}", v.not_counting_run, checksummed=False),
        _named_id((r"(?-i:SIM)\b",), ("sim",), r"\d{4}-\d{4}-\d{6}", v.not_counting_run,
                  checksummed=False),
        _named_id((r"licen[cs]e[ \t]*(?:no|number)\.?",), ("licen",), r"[A-Z]\d{2}-\d{2}-\d{6}",
                  _has_digit, checksummed=False),
        _named_id((_AS_KEY % "sss",), ("sss",), r"\d{10}", v.not_counting_run,
                  checksummed=False),
        # Mobile numbers spaced as Cameroon and Senegal write them ("6 98 12 76 62", "77 056
        # 63 08"): shapes no other number has.
        _d("phone", r"(?<![\w])(?<!\d )(6 [5-9]\d \d\d \d\d \d\d|7[05678] \d{3} \d\d \d\d)"
           r"(?![\w]| \d)",
           prefilter=r"6 [5-9][0-9] [0-9]{2} [0-9]{2} [0-9]{2}|7[05678] [0-9]{3} [0-9]{2} [0-9]{2}",
           group=1, digits=True, needles=(" ",), joined=_joined_digits(9),
           joined_prefilter=r"6[ _][5-9][0-9][ _][0-9]{2}[ _][0-9]{2}[ _][0-9]{2}"
                            r"|7[05678][ _][0-9]{3}[ _][0-9]{2}[ _][0-9]{2}"),
        # A passport by Kinyarwanda's and Swahili's names ("nimero ya pasiporo yanjye ni
        # PC339363"), a Kenyan id told in Swahili ("ID yangu ni 30943200").
        _named_id((r"pasiporo", r"pasipoti"), ("pasiporo", "pasipoti"), r"[A-Z]{1,2}\d{6,8}",
                  _has_digit, checksummed=False),
        _named_id((r"(?-i:ID)[ \t]+yangu",), ("id",), r"\d{7,8}", v.not_counting_run,
                  checksummed=False),
        # A security question's answer as a JSON field ("security_answer": "Tartu").
        _d("secret_assignment",
           r"(?i)\"(?:security|secret)_?answer\"[ \t]*:[ \t]*\"([^\"\n]{2,64})\"",
           prefilter=r"(?i)\"(?:security|secret)_?answer\"[ \t]*:[ \t]*\"[^\"\r\n]{2}",
           group=1, needles=("nswer", "NSWER")),
        # Passwords after the words of Zulu ("iphasiwedi ethi X"), Kinyarwanda ("Ijambo
        # ry'ibanga ... ni X") and Luganda ("Ekigambo ky'ekyama ... kyekino: X").
        *_each("secret_assignment",
               (r"(?i)iphasiwedi[ \t]+(?:ethi|ngu-?)[ \t]*([^\s\"'<>]{4,64})",
                r"(?i)ijambo[ \t]+ry['’]ibanga[^\n:]{0,40}?[ \t](?:ni|:)[ \t]*([^\s\"'<>]{4,64})",
                r"(?i)ekigambo[ \t]+ky['’]ekyama[^\n:]{0,60}:[ \t]*([^\s\"'<>]{4,64})",
                r"(?i)(?<![a-z])password(?:nya|ku|mu)[ \t]*:?[ \t]*([^\s\"'<>]{4,64})"),
               v.told_password,
               prefilter=r"(?i)iphasiwedi[ \t]+(?:ethi|ngu)|ijambo[ \t]+ry.ibanga"
                         r"|ekigambo[ \t]+ky.ekyama|password(?:nya|ku|mu)",
               gate=r"(?i:iphasiwedi|ibanga|ekyama|passwordnya|passwordku|passwordmu)"),
        # More one-time codes: Wolof's "code secret bi 3331", Twi's "PIN no ne 8525", Zulu's
        # "Ikhodi ... ngu-309994", Swahili's "Nambari yako ya uthibitisho ni 029450",
        # French's confirmation code "est 20065341" and "code reçu ... était 10112",
        # Kinyarwanda's "kode y'ibanga ni", Luganda's "ennamba ey'ekyama (OTP) ye", a result
        # checker's "Card PIN", Bulgarian's ПИН.
        *_each("secret_assignment",
               (r"(?i)code[ \t]+secret(?:[ \t]+bi)?[ \t]*:?[ \t]*(\d{4,8})(?!\d)",
                r"(?<![A-Za-z])PIN[ \t]+no[ \t]+ne[ \t]+(\d{4,8})(?!\d)",
                r"(?i)ikhodi[^\n\d]{0,40}?(?:ngu-?|:)[ \t]*(\d{4,8})(?!\d)",
                r"(?i)nambari[ \t]+(?:yako[ \t]+)?ya[ \t]+(?:uthibitisho|siri)[^\n\d]{0,12}?"
                r"(\d{4,8})(?!\d)",
                r"(?i)code[ \t]+de[ \t]+(?:confirmation|validation|v[ée]rification|retrait)"
                r"[^\n]{0,60}?[ \t](?:est|:)[ \t]*(\d{4,8})(?!\d)",
                r"(?i)code[ \t]+re[çc]u[^\n\d]{0,30}?(?:[ée]tait|est|:)[ \t]*(\d{4,8})(?!\d)",
                r"(?i)kode[ \t]+y['’]ibanga[^\n\d]{0,10}?(\d{4,8})(?!\d)",
                r"(?i)ey['’]ekyama[^\n\d]{0,20}?(\d{4,8})(?!\d)",
                r"(?i)card[ \t]+pin[ \t]*:[ \t]*(\d{4,16})(?!\d)",
                "\u041f\u0418\u041d[^\\n\\d]{0,20}:[ \\t]*(\\d{4,8})(?!\\d)"),
               v.not_counting_run,
               prefilter=engine_reading(
                   r"(?i)code[ \t]+secret[^\r\n]{0,6}[0-9]{4}|PIN[ \t]+no[ \t]+ne[ \t]+[0-9]{4}"
                   r"|ikhodi[^\r\n]{0,46}[0-9]{4}|nambari[^\r\n]{0,40}[0-9]{4}"
                   r"|code[ \t]+(?:de|re)[^\r\n]{0,90}[0-9]{4}|kode[ \t]+y.ibanga"
                   r"|ey.ekyama|card[ \t]+pin[ \t]*:|aaa[^\r\n]{0,20}:[ \t]*[0-9]{4}"),
               gate="(?i:code|PIN|ikhodi|nambari|kode|ekyama|\u041f\u0418\u041d)",
               digits=True),
        # PayMongo's webhook secret by its prefix ("whsk_" and 32 letters and digits).
        _d("secret_assignment", r"(?<![\w-])(whsk_[A-Za-z0-9]{24,64})(?![\w-])",
           prefilter=r"whsk_[A-Za-z0-9]{24}", group=1, needles=("whsk_",)),
        # One-time codes in the round's languages: Romanian's "Codul ... este 101287",
        # Turkish's "şifreniz 771493", English's "one-time password ... is 71339325",
        # Estonian's kinnituskood, Danish's, Norwegian's and Swedish's engangskode,
        # Finnish's and the Baltic languages' one-time codes, Greek's code "είναι 4857",
        # Moldova's pickup code, Malaysia's TAC, Indonesian's "kode 3669".
        *_each("secret_assignment",
               (r"(?i)(?<![a-z])cod(?:ul)?[ \t][^\n]{0,60}?[ \t]este[ \t]+(\d{4,8})(?!\d)",
                "(?i)(?<![a-z])(?:tek[ \\t]+kullan[\u0131i]ml[\u0131i]k[ \\t]+)?"
                "[\u015fs]ifren(?:iz|in)?[ \\t]*:?[ \\t]*(\\d{4,8})(?!\\d)",
                r"(?i)one-?time[ \t]+password[^\n\d]{0,40}?[ \t]is[ \t]+(\d{4,8})(?!\d)",
                "(?i)(?:kinnituskood|engangskode[nr]?|eng\u00e5ngskod(?:en)?|vahvistuskoodi"
                "|kertak\u00e4ytt\u00f6koodi|vienreiz\u0113j\u0101?s?[ \\t]+kods"
                "|vienkartinis[ \\t]+kodas)"
                "[^\\n\\d]{0,30}?(?<![\\w])(\\d{4,8})(?!\\d)",
                "\u03ba\u03c9\u03b4\u03b9\u03ba[^\\n]{0,90}?\u03b5\u03af\u03bd\u03b1\u03b9"
                "[ \\t]+(\\d{4,8})(?!\\d)",
                r"(?i)cod[ \t]+de[ \t]+ridicare[^\n\d]{0,50}?(\d{4,8})(?!\d)",
                r"(?<![A-Za-z])TAC\b[^\n]{0,100}?[ \t]is[ \t]+(\d{6})(?!\d)",
                r"(?i)(?<![a-z])kode(?:[ \t]+(?:otp|verifikasi|aktivasi))?[ \t]*:?[ \t]*(\d{4,8})"
                r"(?!\d)"),
               v.not_counting_run,
               prefilter=engine_reading(
                   r"(?i)cod[^\r\n]{0,70}este[ \t]+[0-9]{4}|ifren[^\r\n]{0,6}[0-9]{4}"
                   r"|time[ \t]+password[^\r\n]{0,44}[0-9]{4}"
                   r"|(?:kinnituskood|engangskode|eng.ngskod|vahvistuskoodi|kertak.ytt.koodi"
                   r"|vienreiz|vienkartinis)[^\r\n]{0,40}[0-9]{4}"
                   r"|aaaaaa[^\r\n]{0,100}[0-9]{4}|ridicare[^\r\n]{0,50}[0-9]{4}"
                   r"|(?-i:TAC)[^\r\n]{0,104}[0-9]{6}|kode[^\r\n]{0,16}[0-9]{4}"),
               gate="(?i:cod|ifren|password|kinnituskood|engangskode|eng\u00e5ngskod"
                    "|vahvistuskoodi|kertak|vienreiz|vienkartinis|\u03ba\u03c9\u03b4\u03b9\u03ba"
                    "|TAC|kode)",
               digits=True),
    )


def _north_africa_the_levant_and_the_balkans() -> tuple[Detector, ...]:
    """The shapes of the ER to EW round: North Africa; the Levant, Iraq and Israel; Iran,
    Afghanistan and Pakistan; Central America and the Caribbean; the Andes; the Western
    Balkans and Central Europe."""
    return (
        # North Africa: Egypt's national number in Arabizi ("ra2am el beta2a"), a tax
        # registration's number (Egypt's, dashed in threes) and Lebanon's financial number,
        # Tunisia's CNAM number ("96743218/24"), a Moroccan driving licence ("N° permis :
        # 35/816136"), Algeria's CNAS number and NIN (eighteen digits), a tax identifier,
        # Morocco's CNIE.
        _named_id(("(?:ra2am|raqam|rakam)[ \\t]+(?:el[ \\t]+)?(?:qawm[yi]|beta2a|bita2a|betaka)",),
                  ("ra2am", "raqam", "rakam"),
                  r"[23]\d{13}", ids.eg_national_id_ok),
        # (a person's, beside the national number on the next line: a firm's is the same)
        _named_id(("\u0631\u0642\u0645 \u0627\u0644\u062a\u0633\u062c\u064a\u0644"
                   " \u0627\u0644\u0636\u0631\u064a\u0628\u064a",),
                  ("\u0631\u0642\u0645",),
                  "\\d{3}-\\d{3}-\\d{3}(?=[^\\n]*\\n[^\\n]*\u0627\u0644\u0631\u0642\u0645"
                  " \u0627\u0644\u0642\u0648\u0645\u064a)", v.not_counting_run,
                  checksummed=False, shape=r"[0-9]{3}-[0-9]{3}-[0-9]{3}"),
        _named_id(("\u0627\u0644\u0631\u0642\u0645 \u0627\u0644\u0645\u0627\u0644\u064a",),
                  ("\u0627\u0644\u0631\u0642\u0645",), r"\d{5,9}", v.not_counting_run,
                  checksummed=False),
        _named_id((r"(?-i:CNAM)",), ("cnam",), r"\d{8}/\d{2}", v.not_counting_run,
                  checksummed=False),
        _named_id((r"permis(?:[ \t]+de[ \t]+conduire)?",), ("permis",), r"\d{2}/\d{6}",
                  v.not_counting_run, checksummed=False),
        _named_id((r"immatriculation",), ("immatriculation",),
                  r"\d{9,12}|\d{2} \d{4} \d{4} \d{2}", v.not_counting_run, checksummed=False),
        _named_id((r"(?-i:NIN)\b",), ("nin",), r"\d{18}", v.not_counting_run,
                  checksummed=False),
        _named_id((r"identifiant[ \t]+fiscal",), ("identifiant",), r"\d{7,8}",
                  v.not_counting_run, checksummed=False),
        _named_id((r"(?-i:CNIE)\b", r"national[ \t]+identity[ \t]+number"), ("cnie", "national"),
                  r"[A-Z]{1,2}\d{5,6}", _has_digit, checksummed=False),
        # The Levant and Iraq: a national number in Arabic ("رقمها الوطني", her national
        # number), Iraq's unified card (twelve digits) by its names and keys, Kurdish's
        # national id, a residence's number in Arabic and Kurdish ("D-8986509"); Israel's
        # work visa and driving licence in Hebrew.
        _named_id(("(?:\u0627\u0644\u0631\u0642\u0645|\u0631\u0642\u0645\u0647\u0627"
                   "|\u0631\u0642\u0645\u0647|\u0631\u0642\u0645\u064a)"
                   " \u0627\u0644\u0648\u0637\u0646\u064a"
                   # (not an establishment's or a company's, "للمنشأة", "للشركة")
                   "(?![ \\t]+\u0644\u0644\u0645\u0646\u0634\u0623\u0629)"
                   "(?![ \\t]+\u0644\u0644\u0634\u0631\u0643\u0629)",
                   "\u0627\u0644\u0628\u0637\u0627\u0642\u0629 \u0627\u0644\u0648\u0637\u0646"
                   "\u064a\u0629",
                   "\u0646\u0627\u0633\u0646\u0627\u0645\u06d5\u06cc \u0646\u06cc\u0634\u062a"
                   "\u0645\u0627\u0646\u06cc",
                   _AS_KEY % "unified_card_no", _AS_KEY % "national_card_no"),
                  ("\u0627\u0644\u0631\u0642\u0645", "\u0631\u0642\u0645",
                   "\u0627\u0644\u0628\u0637\u0627\u0642\u0629", "\u0646\u0627\u0633\u0646",
                   "unified_card", "national_card"), r"\d{10,12}", v.not_counting_run,
                  checksummed=False),
        _named_id(("\u0631\u0642\u0645 \u0627\u0644\u0625\u0642\u0627\u0645\u0629",
                   "\u0698\u0645\u0627\u0631\u06d5\u06cc \u0626\u06cc\u0642\u0627\u0645\u06d5"),
                  ("\u0631\u0642\u0645", "\u0698\u0645\u0627\u0631\u06d5\u06cc"),
                  r"[A-Z]-?\d{7}", _has_digit, checksummed=False),
        _named_id(("\u05de\u05e1\u05e4\u05e8 \u05d0\u05e9\u05e8\u05d4",),
                  ("\u05de\u05e1\u05e4\u05e8",),
                  r"\d{9}", v.not_counting_run, checksummed=False),
        _named_id(("\u05e8\u05d9\u05e9\u05d9\u05d5\u05df \u05e0\u05d4\u05d9\u05d2\u05d4",),
                  ("\u05e8\u05d9\u05e9\u05d9\u05d5\u05df",), r"\d{7,8}", v.not_counting_run,
                  checksummed=False),
        # Iran, Afghanistan and Pakistan: a driving licence, a birth certificate's number, a
        # passport in Persian; a tazkira in Dari and Pashto ("د تذکرې ګڼه مې ۵۸۹۲۴۸ ده");
        # Pakistan's NTN of a person (seven digits and a check).
        _named_id(("\u0634\u0645\u0627\u0631\u0647 \u06af\u0648\u0627\u0647\u06cc\u0646\u0627"
                   "\u0645\u0647",
                   "\u0634\u0645\u0627\u0631\u0647 \u0634\u0646\u0627\u0633\u0646\u0627"
                   "\u0645\u0647",
                   "\u062a\u0630\u06a9\u0631(?:\u0647|\u06d0)"),
                  ("\u0634\u0645\u0627\u0631\u0647", "\u062a\u0630\u06a9\u0631"), r"\d{3,12}",
                  v.not_counting_run, checksummed=False),
        _named_id(("\u0634\u0645\u0627\u0631\u0647 \u06af\u0630\u0631\u0646\u0627\u0645\u0647",),
                  ("\u0634\u0645\u0627\u0631\u0647",), r"[A-Z]\d{8}", _has_digit,
                  checksummed=False),
        # (not a shop's on its receipt, beside its sales tax registration: "NTN: 4661199-5
        # STRN: ...")
        _named_id((r"(?-i:NTN)\b",), ("ntn",), r"\d{7}-\d(?![^\n]*(?-i:STRN))",
                  v.not_counting_run, checksummed=False, shape=r"[0-9]{7}-[0-9]"),
        # Central America and the Caribbean: Costa Rica's cédula after "Identificación"
        # (1-9497-7393), Panama's RUC of a person (its cédula, "7-420-1595"), Jamaica's NIS,
        # Honduras's RTN, a social security fund's affiliation (IGSS, IHSS), Barbados's
        # national registration number, Cuba's identity card, Peru's foreigner's card,
        # Bolivia's NIT/CI/CEX.
        _named_id(("identificaci[\u00f3o]n",), ("identificaci",),
                  r"\d-\d{4}-\d{4}|\d \d{4} \d{4}", v.not_counting_run, checksummed=False),
        _named_id((r"(?-i:RUC)[ \t]*\([ \t]*persona[ \t]+natural[ \t]*\)",), ("ruc",),
                  r"(?:E|PE|N)-\d{1,2}-\d{1,6}|\d{1,2}-\d{1,4}-\d{1,6}", _has_digit,
                  checksummed=False),
        _named_id((r"(?-i:NIS)[ \t]*(?:no|number)\.?",), ("nis",), r"[A-Z]{2}\d{6}", _has_digit,
                  checksummed=False),
        _named_id((r"(?-i:RTN)\b",), ("rtn",), r"\d{14}", v.not_counting_run, checksummed=False),
        _named_id(("afiliaci[\u00f3o]n(?:[ \\t]+(?-i:IHSS|IGSS))?",), ("afiliaci",),
                  r"\d{3}-\d{5}-\d|\d{11}", v.not_counting_run, checksummed=False),
        _named_id((r"national[ \t]+registration[ \t]+(?:number|no)\.?",), ("national",),
                  r"\d{6}-\d{4}", v.not_counting_run, checksummed=False),
        _named_id(("carn[\u00e9e][ \\t]+de[ \\t]+identidad",), ("carn",), r"\d{11}",
                  v.not_counting_run, checksummed=False),
        _named_id(("carn[\u00e9e][ \\t]+de[ \\t]+extranjer[\u00edi]a",), ("carn",), r"\d{9}",
                  v.not_counting_run, checksummed=False),
        _named_id((r"(?-i:NIT/CI)(?:/(?-i:CEX))?",), ("nit/ci",), r"\d{7,8}(?:-\d[A-Z])?",
                  v.not_counting_run, checksummed=False),
        # The Andes: Bolivia's identity card on its face ("CÉDULA DE IDENTIDAD\nNo. 14317363
        # OR"), a cédula or a CI in Paraguay's dotted groups ("CI 7.347.415"), Chile's RUT
        # said aloud ("13736023 guion 3"), EsSalud's insured code ("8911216TNEOF002").
        _named_id(("c[\u00c9\u00e9e]dula[ \\t]+de[ \\t]+identidad",), ("c\u00e9dula", "cedula"),
                  r"\d{7,8}", v.not_counting_run, checksummed=False),
        _named_id(("c[\u00e9e]dula", r"(?-i:CI)\b", "documento"),
                  ("c\u00e9dula", "cedula", "ci", "documento"),
                  r"\d{1,2}\.\d{3}\.\d{3}(?:-[0-9K])?", v.not_counting_run, checksummed=False,
                  shape=r"[0-9]{1,2}\.[0-9]{3}\.[0-9]{3}"),
        _named_id((r"(?-i:rut|RUT)[ \t]+es",), ("rut",), r"\d{7,8} guion \d",
                  v.not_counting_run, checksummed=False, shape=r"[0-9]{7,8} guion [0-9]"),
        _named_id(("c[\u00f3o]digo[ \\t]+de[ \\t]+asegurado",), ("c\u00f3digo", "codigo"),
                  r"\d{7}[A-Z]{5}\d{3}", _has_digit, checksummed=False),
        # The Western Balkans and Central Europe: Kosovo's personal number (ten digits) and
        # Albania's NID (a letter, eight digits, a letter), Serbia's health insurance number
        # (LBO), Slovenia's and Bosnia's health cards' numbers, an identity card's number
        # (Czech "Číslo dokladu", Hungarian "Okmányazonosító"), Hungary's personal number,
        # driving licences, residence permits, passports.
        _named_id((r"(?:nr\.?|numri|numrin)[ \t]+personal", r"(?-i:NID)\b"),
                  ("nr", "numri", "nid"), r"\d{10}|[A-Z]\d{8}[A-Z]", _has_digit,
                  checksummed=False),
        _named_id((r"(?-i:LBO)\b", "\u041b\u0411\u041e"), ("lbo", "\u043b\u0431\u043e"),
                  r"\d{11}", v.not_counting_run, checksummed=False),
        _named_id((r"zavarovane[ \t]+osebe", r"(?:[Šš]t|broj)\.?[ \t]+(?:zdr\.?[ \t]+)?kartice"),
                  ("zavarovane", "\u0161t", "broj"), r"\d{9}|\d{11}", v.not_counting_run,
                  checksummed=False),
        _named_id((r"[Čč][íi]slo[ \t]+dokladu", "okm\u00e1nyazonos\u00edt\u00f3"),
                  ("\u010d\u00edslo", "\u010dislo", "okm"), r"\d{6}[A-Z]{2}|\d{9}", _has_digit,
                  checksummed=False),
        _named_id(("szem\u00e9lyi[ \\t]+azonos\u00edt\u00f3",), ("szem\u00e9lyi",), r"\d{11}",
                  v.not_counting_run, checksummed=False),
        _named_id(("[Čč][íi]slo[ \\t]+\u0158P", "vezet\u0151i[ \\t]+enged\u00e9ly",
                   "voza\u010dk\\w*[ \\t]+dozvol\\w*"), ("\u010d\u00edslo", "vezet", "voza\u010d"),
                  r"[A-Z]{2} ?\d{6}", _has_digit, checksummed=False),
        _named_id(("tart\u00f3zkod\u00e1si[ \\t]+enged\u00e9ly", r"doklad[ \t]+o[ \t]+pobyte"),
                  ("tart\u00f3zkod\u00e1si", "doklad"), r"[A-Z]{2}\d{7}", _has_digit,
                  checksummed=False),
        _named_id(("[\u00da\u00fa]tlev\u00e9lsz\u00e1m", "(?-i:Pas)[ \\t]+\u010d\\.",
                   "paso\u0161\\w*"),
                  ("\u00fatlev\u00e9l", "pas", "paso\u0161"), r"[A-Z]{1,2}\d{6,8}|\d{9}",
                  _has_digit, checksummed=False),
        # Croatia's health insurance number (MBO), a Serbian identity card's number in
        # Cyrillic ("Број личне карте", its "Рег. бр."), a Jordanian work permit's.
        _named_id((r"(?-i:MBO)\b", "\u0411\u0440\u043e\u0458 \u043b\u0438\u0447\u043d\u0435"
                   " \u043a\u0430\u0440\u0442\u0435", "\u0420\u0435\u0433\\. \u0431\u0440\\.",
                   "broj[ \\t]+li\u010dne[ \\t]+karte"),
                  ("mbo", "\u0431\u0440\u043e\u0458", "\u0440\u0435\u0433", "broj"), r"\d{9}",
                  v.not_counting_run, checksummed=False),
        _named_id(("\u062a\u0635\u0631\u064a\u062d \u0639\u0645\u0644",),
                  ("\u062a\u0635\u0631\u064a\u062d",),
                  r"\d{4}/\d{7}", v.not_counting_run, checksummed=False),
        # The Czech insured person's number (the birth number), Haiti's NIF as a chat
        # writes it ("nif li se 005-894-236-0").
        _named_id(("[Čč][íi]slo[ \\t]+poji[šs]t[ěe]nce",), ("\u010d\u00edslo", "\u010dislo"),
                  r"\d{9,10}", v.not_counting_run, checksummed=False),
        _named_id((r"(?<![a-z])nif(?=[ \t]+(?:li|mwen|se))",), ("nif",), r"\d{3}-\d{3}-\d{3}-\d",
                  v.not_counting_run, checksummed=False),
        # An airline's passport record (SSR DOCS), hyphens or slashes between its fields
        # ("SRDOCS AT HK1-P-TUN-N100485-TUN-23SEP79-...").
        _d("national_id", r"(?<![A-Za-z])(?:SR)?DOCS[ \t]+[A-Z0-9]{2}[ \t]+HK1[-/]P[-/][A-Z]{3}"
           r"[-/]([A-Z0-9]{5,12})[-/]", _has_digit,
           prefilter=r"DOCS[ \t]+[A-Z0-9]{2}[ \t]+HK1[-/]P[-/][A-Z]{3}[-/][A-Z0-9]{5}",
           group=1, needles=("DOCS",)),
        # A Maghreb bank account after its name: Morocco's RIB (twenty-four digits, run
        # together or in threes), Algeria's postal RIP (twenty).
        _d("iban", r"(?<![A-Za-z])RI[BP]\b[^\n\d]{0,30}?(\d{20}(?:\d{4})?|\d{3}(?: \d{3}){7})"
           r"(?![\w-])", v.not_counting_run,
           prefilter=r"RI[BP][^\r\n]{0,30}[0-9]{20}|RI[BP][^\r\n]{0,30}[0-9]{3} [0-9]{3} [0-9]{3}",
           group=1, needles=("RIB", "RIP"), digits=True, joined=_nothing_joined,
           joined_prefilter=r"RI[BP][^\r\n]{0,30}[0-9]{20}"
                            r"|RI[BP][^\r\n]{0,30}[0-9]{3}[ _][0-9]{3}[ _][0-9]{3}"),
        # A phone as Serbia, Bosnia and North Macedonia write it, the area code before a
        # slash ("063/409-1093", "072/241-109").
        _d("phone", r"(?<![\w/.-])(0\d{2}/\d{3}-\d{3,4})(?![\w/-]|\.\d)",
           prefilter=r"0[0-9]{2}/[0-9]{3}-[0-9]{3}", group=1, needles=("/",), digits=True,
           joined=_nothing_joined, joined_prefilter=r"0[0-9]{2}/[0-9]{3}[ _-][0-9]{3}"),
        # An Israeli mobile glued to a Hebrew prefix letter ("תכתבי לי ל0549953108": to
        # 054...; "ב", "מ", "ו", "ה", "ש" glue alike).
        _d("phone", "(?<![\u05d0-\u05ea])[\u05d1\u05d4\u05d5\u05dc\u05de\u05e9]"
           r"(05\d-?\d{3}-?\d{4})(?![\d-])",
           prefilter=r"a05[0-9]-?[0-9]{3}-?[0-9]{4}", group=1, digits=True, needles=("05",),
           joined=_nothing_joined, joined_prefilter=r"a05[0-9][ _-]?[0-9]{3}[ _-]?[0-9]{4}"),
        # A booking record's contact element (a PNR's "3 AP 56 685 675", its city's code
        # before it or not).
        _d("phone", r"(?m)^[ \t]*\d{1,2}[ \t]+AP[ \t]+(?:[A-Z]{3}[ \t]+)?(\+?\d[\d \-]{5,16}\d)"
           r"(?=[ \t]*(?:-[A-Z]|$))",
           prefilter=r"[0-9][ \t]+AP[ \t]+(?:[A-Z]{3}[ \t]+)?\+?[0-9]", group=1,
           needles=(" AP ",), digits=True, joined=_nothing_joined,
           joined_prefilter=r"[0-9][ \t]+AP[ \t]+(?:[A-Z]{3}[ \t]+)?\+?[0-9]"),
        # A money transfer's control number (Western Union's MTCN): who holds it collects.
        _d("secret_assignment", r"(?i)(?<![a-z])mtcn\b[^\n\d]{0,12}?(\d{3}-?\d{3}-?\d{4})(?!\d)",
           v.not_counting_run, prefilter=r"(?i)mtcn[^\r\n]{0,12}[0-9]{3}-?[0-9]{3}-?[0-9]{4}",
           group=1, digits=True, needles=("mtcn", "MTCN", "Mtcn")),
    )


# A key's or a label's value right after it (its quote, a colon or an equals sign, Armenian's
# full stop): a key's name gives no reach across lines ("SSN: XXX-XX-XXXX" masked, then an
# encounter's number on the next line).
_TIGHT_GAP = "(?:\\\\*[\"'])?[ \\t]*[:=\uff1a\u055d]?[ \\t]*(?:\\\\*[\"'])?[ \\t]*"

# Labels of a phone in India's scripts (Marathi's, Gujarati's, Punjabi's, Odia's, Kannada's,
# Telugu's and Malayalam's mobile; their phone; Bengali's and Hindi's contact, Tamil's mobile
# and "to call"), Mongolian's (Утас), Georgian's telephone and "my number", Armenian's
# transliterated phone, Azerbaijani's and Mongolian's "my number".
_PHONE_LABELS = ("\u092e\u094b\u092c\u093e\u0908\u0932", "\u0aae\u0acb\u0aac\u0abe\u0a87\u0ab2",
                 "\u0a2e\u0a4b\u0a2c\u0a3e\u0a08\u0a32", "\u0b2e\u0b4b\u0b2c\u0b3e\u0b07\u0b32",
                 "\u0cae\u0cca\u0cac\u0cc8\u0cb2\u0ccd", "\u0c2e\u0c4a\u0c2c\u0c48\u0c32\u0c4d",
                 "\u0d2e\u0d4a\u0d2c\u0d48\u0d7d", "\u09ab\u09cb\u09a8", "\u0aab\u0acb\u0aa8",
                 "\u0cab\u0ccb\u0ca8\u0ccd", "\u0c2b\u0c4b\u0c28\u0c4d", "\u0d2b\u0d4b\u0d7a",
                 "\u09af\u09cb\u0997\u09be\u09af\u09cb\u0997",
                 "\u0938\u0902\u092a\u0930\u094d\u0915", "\u0b95\u0bc8\u0baa\u0bc7\u0b9a\u0bbf",
                 "\u0b85\u0bb4\u0bc8\u0b95\u0bcd\u0b95", "\u0423\u0442\u0430\u0441",
                 "\u0443\u0442\u0430\u0441", "\u10e2\u10d4\u10da\u10d4\u10e4\u10dd\u10dc\u10d8",
                 "\u10e2\u10d4\u10da",
                 "\u10e9\u10d4\u10db\u10e1 \u10dc\u10dd\u10db\u10d4\u10e0\u10d6\u10d4", "heraxos",
                 "n\u00f6mr\u0259m", "minii dugaar")

# A password's word in India's scripts (Bengali's, Telugu's with its joiner and without,
# Punjabi's, Kannada's, Gujarati's, Tamil's, Malayalam's and Odia's).
_INDIC_PASSWORD_WORDS = ("\u09aa\u09be\u09b8\u0993\u09af\u09bc\u09be\u09b0\u09cd\u09a1",
                         "\u0c2a\u0c3e\u0c38\u0c4d\u200c\u0c35\u0c30\u0c4d\u0c21\u0c4d",
                         "\u0c2a\u0c3e\u0c38\u0c4d\u0c35\u0c30\u0c4d\u0c21\u0c4d",
                         "\u0a2a\u0a3e\u0a38\u0a35\u0a30\u0a21",
                         "\u0caa\u0cbe\u0cb8\u0ccd\u200c\u0cb5\u0cb0\u0ccd\u0ca1\u0ccd",
                         "\u0caa\u0cbe\u0cb8\u0ccd\u0cb5\u0cb0\u0ccd\u0ca1\u0ccd",
                         "\u0aaa\u0abe\u0ab8\u0ab5\u0ab0\u0acd\u0aa1",
                         "\u0d15\u0d1f\u0d35\u0d41\u0d1a\u0d4d\u0d1a\u0d4a\u0d7d",
                         "\u0b95\u0b9f\u0bb5\u0bc1\u0b9a\u0bcd\u0b9a\u0bca\u0bb2\u0bcd",
                         "\u0d2a\u0d3e\u0d38\u0d4d\u200c\u0d35\u0d47\u0d21\u0d4d",
                         "\u0b2a\u0b3e\u0b38\u0b71\u0b3e\u0b30\u0b4d\u0b21")


def _lusophone_africa_india_caucasus_and_the_pacific() -> tuple[Detector, ...]:
    """The shapes of the EX to FK round: the Lusophone world outside Brazil; Francophone
    Central Africa and the Indian Ocean; India's regional languages; the Caucasus and
    Mongolia; the United States, state by state; Oceania and the Pacific Islands."""
    return (
        # The Caucasus and Mongolia: Georgia's personal number (eleven digits, after its name
        # in English, Russian and Georgian's short "პ/ნ"), Mongolia's register number (two
        # letters and a birth date), Azerbaijan's personal code under a key or the passport's
        # "Personal No", its identity card's series and number, a sole trader's VÖEN (a
        # person's ends in 2, a company's in 1), Armenia's social card number under "ssn"
        # and its identity card's number.
        _named_id((r"(?<![a-z_])personal[ _-]?(?:no|number|num|nr)\b\.?",
                   "\u041b\u0438\u0447\u043d\u044b\u0439 \u043d\u043e\u043c\u0435\u0440",
                   "\u10de/\u10dc"),
                  ("personal", "\u043b\u0438\u0447\u043d\u044b\u0439", "\u10de/\u10dc"),
                  # (not a part's: "personal number 72014097442 of spindle motor")
                  r"(?:\d{11}|\d{2} \d{3} \d{3} \d{3})(?![ \t]+of\b)", v.not_counting_run,
                  checksummed=False, shape=r"[0-9]{2} ?[0-9]{3} ?[0-9]{3} ?[0-9]{3}"),
        _named_id(("\u0420\u0414", "\u0420\u0435\u0433\u0438\u0441\u0442\u0440",
                   "\u0440\u0435\u0433\u0438\u0441\u0442\u0440", r"register(?:_?no)?",
                   r"(?-i:RD)\b"),
                  ("\u0440\u0434", "\u0440\u0435\u0433\u0438\u0441\u0442\u0440", "register", "rd"),
                  "[\u0410-\u042f\u0401\u04e8\u04ae]{2}\\d{8}", ids.mn_register_ok,
                  checksummed=False,
                  # (the engine reads the letters as "a")
                  shape="a{2}[0-9]{8}"),
        _named_id((_AS_KEY % "fin", "[\u015e\u015f]\u0259xsi n\u00f6mr\u0259",
                   r"personal[ \t]+no\b\.?"),
                  ("fin", "\u015f\u0259xsi", "personal"),
                  r"(?=[A-Z]*\d)(?=\d*[A-Z])[0-9A-Z]{7}", _has_digit, checksummed=False,
                  shape=r"[0-9A-Z]{7}", gap=_TIGHT_GAP),
        _named_id(("v\u0259siq\u0259", _AS_KEY % "document"), ("v\u0259siq\u0259", "document"),
                  r"AZE\d{8}|AA\d{7}", _has_digit, checksummed=False, gap=_TIGHT_GAP),
        _named_id(("V[\u00d6\u00f6Oo]EN",), ("v\u00f6en", "voen"), r"\d{9}2", v.not_counting_run,
                  checksummed=False),
        _named_id((_AS_KEY % "ssn",), ("ssn",), r"\d{10}", v.not_counting_run,
                  checksummed=False, gap=_TIGHT_GAP),
        _named_id((_AS_KEY % "id_?card",
                   "\u0546\u0578\u0582\u0575\u0576\u0561\u056f\u0561\u0576\u0561\u0581"
                   "\u0574\u0561\u0576 \u0584\u0561\u0580\u057f"),
                  ("id", "\u0576\u0578\u0582\u0575\u0576\u0561\u056f\u0561\u0576\u0561"
                   "\u0581\u0574\u0561\u0576"),
                  r"\d{9}", v.not_counting_run, checksummed=False, gap=_TIGHT_GAP),
        # The Lusophone world: Portugal's SNS user number ("utente nº 535 749 669"),
        # Mozambique's NUIT, a Cartão de Cidadão's civil number and check digit, a driving
        # licence ("N.º da carta: P-587159 9"), Angola's and Mozambique's BI (and Timor's,
        # dotted), the NIFs of a tax return's taxpayers and dependants (their check digit).
        _named_id((r"utente", _AS_KEY % "numero_utente"), ("utente", "numero_utente"),
                  r"\d{3} ?\d{3} ?\d{3}", v.not_counting_run, checksummed=False),
        _named_id((r"(?-i:NUIT)\b", _AS_KEY % "nuit"), ("nuit",), r"\d{9}", v.not_counting_run,
                  checksummed=False),
        _named_id(("cart[\u00e3a]o[ \\t]+de[ \\t]+cidad[\u00e3a]o",
                   "doc\\.?[ \\t]+identifica[\u00e7c][\u00e3a]o"),
                  ("cart", "doc"), r"\d{8} ?\d(?: ?[A-Z]{2}\d)?", v.not_counting_run,
                  checksummed=False),
        _named_id(("carta[ \\t]+de[ \\t]+condu[\u00e7c][\u00e3a]o",
                   r"n\.?[ \t]*º[ \t]+da[ \t]+carta"),
                  ("carta", "n"), r"[A-Z]{1,2}-\d{6} \d", _has_digit, checksummed=False),
        _named_id((r"(?-i:BI)\b", _AS_KEY % "bi", r"bilhete[ \t]+de[ \t]+identidade"),
                  ("bi", "bilhete"), r"\d{9}[A-Z]{2}\d{3}|\d{12}[A-Z]|\d{2}\.\d{3}\.\d{3}",
                  _has_digit, checksummed=False),
        # Portugal's NIB told without PT50 ("O meu NIB é 0036 0772 82731762837 95"): its check
        # digits.
        _named_id((r"(?-i:NIB)\b",), ("nib",), r"\d{4} ?\d{4} ?\d{11} ?\d{2}", v.pt_nib_ok,
                  kind="iban"),
        _named_id((r"sujeito[ \t]+passivo[ \t]+[AB]", r"dependente[ \t]+D\d"),
                  ("sujeito", "dependente"), r"\d{9}", ids.pt_nif_ok),
        # Macau's resident identity card (BIR): seven digits and a check digit in brackets.
        _d("national_id", r"(?<![\w(])[157]\d{6}\(\d\)(?![\w)])",
           prefilter=r"[157][0-9]{6}\([0-9]\)", needles=("(",), digits=True),
        # Francophone Central Africa and the Indian Ocean: Madagascar's CIN (twelve digits),
        # Seychelles' NIN, Mauritius' NIC (a letter, twelve digits and a check) and
        # Cameroon's, a voter's card (in French, English and Swahili), an insured person's
        # number (CNAMGS, CAFAT), Cameroon's NIU, Madagascar's CNaPS, an id's number under a
        # key of its own.
        _named_id((r"(?-i:CIN)\b",), ("cin",), r"\d{3} ?\d{3} ?\d{3} ?\d{3}", v.not_counting_run,
                  checksummed=False),
        _named_id((r"(?-i:NIN)\b", _AS_KEY % "documentNumber"), ("nin", "documentnumber"),
                  r"\d{3}-\d{4}-\d-\d-\d{2}", v.not_counting_run, checksummed=False),
        _named_id((r"(?-i:NIC)\b", r"national[ \t]+identity[ \t]+card"), ("nic", "national"),
                  r"[A-Z]\d{12}[A-Z0-9]|\d{9}", _has_digit, checksummed=False),
        _named_id(("carte[ \\t]+d['\u2019][\u00e9e]lecteur", r"(?-i:VUID)\b",
                   r"voter(?:[ \t]+(?:id|no|number|card|registration)\b)+",
                   r"kadi[ \t]+ya[ \t]+mpiga[ \t]+kura"),
                  ("carte", "vuid", "voter", "kadi"), r"\d{7,11}", v.not_counting_run,
                  checksummed=False),
        _named_id(("(?:n[\u00b0\u00ba]|num[\u00e9e]ro)[ \\t]*(?:d['\u2019])?[ \\t]*assur[\u00e9e"
                   "]",),
                  ("n\u00b0", "n\u00ba", "num\u00e9ro", "numero"), r"\d{6,11}", v.not_counting_run,
                  checksummed=False),
        # (a person's NIU starts with P, a company's with M: on its every invoice)
        _named_id((r"(?-i:NIU)\b",), ("niu",), r"P\d{12,16}[A-Z]?", _has_digit,
                  checksummed=False),
        _named_id((r"(?-i:CNaPS|CNAPS)\b",), ("cnaps",), r"\d{10}", v.not_counting_run,
                  checksummed=False),
        # (not a document's number: an invoice's and a shipment's are under that key)
        _named_id((r"(?<![a-z_.])id_?number(?=\\*[\"']?[ \t]*[:=])",),
                  ("id",), r"\d{8,16}", v.not_counting_run, checksummed=False, gap=_TIGHT_GAP),
        # Oceania: the provident funds' member numbers (Fiji's FNPF, PNG's NASFUND, Samoa's,
        # Vanuatu's, Solomon Islands' and Kiribati's), Fiji's TIN.
        _named_id((r"(?-i:FNPF|NASFUND|SNPF|VNPF|SINPF|KPF)\b",),
                  ("fnpf", "nasfund", "snpf", "vnpf", "sinpf", "kpf"), r"\d{6,8}",
                  v.not_counting_run, checksummed=False),
        _named_id((r"(?-i:TIN)\b",), ("tin",), r"\d{2}-\d{5}-\d-\d|\d{3} ?\d{3} ?\d{3}",
                  v.not_counting_run, checksummed=False,
                  gap=r"[ \t]*(?:number|no\.?)?[ \t]*:?[ \t]*(?:is[ \t]+)?"),
        # India: the APAAR id (twelve digits), a sole proprietor's GSTIN (a person's PAN
        # inside), an ABHA address (a health account's handle).
        _named_id((r"(?-i:APAAR)[ \t]+id",), ("apaar",), r"\d{12}", v.not_counting_run,
                  checksummed=False),
        _d("national_id", r"(?<![0-9A-Z])(\d{2}[A-Z]{3}P[A-Z]\d{4}[A-Z][1-9A-Z]Z[0-9A-Z])"
           r"(?![0-9A-Za-z])", ids.person_gstin_ok,
           prefilter=r"[0-9]{2}[A-Z]{3}P[A-Z][0-9]{4}[A-Z]", group=1, digits=True,
           checksummed=True),
        _d("national_id", r"(?<![\w.@-])[\w.-]{2,64}@abdm(?![\w.@-])", prefilter=r"@abdm",
           needles=("@abdm",)),
        # The United States: a driving licence of Illinois' or Wisconsin's shape (a letter,
        # then 3-4-4 digits, and two more).
        _d("national_id", r"(?<![\w-])[A-Z]\d{3}-\d{4}-\d{4}(?:-\d{2})?(?![\w-])",
           prefilter=r"[A-Z][0-9]{3}-[0-9]{4}-[0-9]{4}", needles=("-",), digits=True),
        # The Caucasus' and Mongolia's one-time codes (Azerbaijani's "təsdiq kodu", Armenian's
        # "mutqi kod" and "մուտքի կոդ", Mongolian's "batalgaajuulah kod", Georgian's login and
        # pick-up codes) and passports (Georgia's two digits, two letters and five digits;
        # Armenia's, "andznagir" in Latin letters).
        _named_id(("t[\u0259e]sdiq[ \\t]+kodu", "giri[\u015fs][ \\t]+kodu", r"mutqi[ \t]+kod",
                   r"batalgaajuulah[ \t]+kod",
                   "(?:\u10e8\u10d4\u10e1\u10d5\u10da\u10d8\u10e1|\u10d2\u10d0\u10e2\u10d0"
                   "\u10dc\u10d8\u10e1|\u10d3\u10d0\u10d3\u10d0\u10e1\u10e2\u10e3\u10e0\u10d4"
                   "\u10d1\u10d8\u10e1) \u10d9\u10dd\u10d3\u10d8",
                   "(?:\u0574\u0578\u0582\u057f\u0584\u056b|[\u0540\u0570]\u0561\u057d\u057f"
                   "\u0561\u057f\u0574\u0561\u0576) \u056f\u0578\u0564"),
                  ("t\u0259sdiq", "tesdiq", "giri\u015f", "giris", "mutqi", "batalgaajuulah",
                   "\u10e8\u10d4\u10e1\u10d5\u10da\u10d8\u10e1", "\u10d2\u10d0\u10e2\u10d0"
                   "\u10dc\u10d8\u10e1", "\u10d3\u10d0\u10d3\u10d0\u10e1\u10e2\u10e3\u10e0"
                   "\u10d4\u10d1\u10d8\u10e1", "\u0574\u0578\u0582\u057f\u0584\u056b",
                   "\u0570\u0561\u057d\u057f\u0561\u057f\u0574\u0561\u0576"),
                  r"\d{4,8}", v.not_counting_run, checksummed=False, gap=_TIGHT_GAP,
                  kind="secret_assignment"),
        _named_id(("[\u041f\u043f]\u0430\u0441\u043f\u043e\u0440\u0442",
                   "\u10de\u10d0\u10e1\u10de\u10dd\u10e0\u10e2\u10d8", r"andznagir",
                   "[\u0531\u0561]\u0576\u0571\u0576\u0561\u0563\u056b\u0580"),
                  ("\u043f\u0430\u0441\u043f\u043e\u0440\u0442",
                   "\u10de\u10d0\u10e1\u10de\u10dd\u10e0\u10e2\u10d8", "andznagir",
                   "\u0561\u0576\u0571\u0576\u0561\u0563\u056b\u0580"),
                  r"\d{2}[A-Z]{2}\d{5}|[A-Z]{2}\d{7}", _has_digit, checksummed=False),
        # A password after its word in India's scripts (Bengali's, Telugu's, Punjabi's,
        # Kannada's, Gujarati's, Tamil's, Malayalam's and Odia's).
        _named_id(_INDIC_PASSWORD_WORDS, _INDIC_PASSWORD_WORDS,
                  r"[^\s\u0964]{3,63}[^\s\u0964.,;:!?)\u2019\"']", v.secret_value_ok,
                  checksummed=False, gap=r"[ \t]*:?[ \t]*", kind="secret_assignment",
                  shape=r"[^ ]{4}"),
        # A one-time code in a login's query after the phone it went to
        # ("/auth/login?phone=%2B916604377244&code=477384").
        _d("secret_assignment", r"(?i)[?&](?:phone|mobile|mob|msisdn)=[^&\s]{5,20}&"
           r"(?:code|otp|pin)=(\d{4,8})(?![\w%])", v.not_counting_run,
           prefilter=r"(?i)(?:phone|mobile|mob|msisdn)=[^&\s]{5,20}&(?:code|otp|pin)=[0-9]",
           group=1, needles=("=",), digits=True),
        # A phone under a contact's key ("contact": "8654950061", "alt_contact": ...).
        _named_id((_AS_KEY % "(?:alt_?|alternate_?|emergency_?)?contact",), ("contact",),
                  r"\+?\d{10,13}", v.told_phone_ok, checksummed=False, gap=_TIGHT_GAP,
                  kind="phone"),
        # Portugal's MB WAY phone as its payment API writes it ("351#937188509").
        _d("phone", r"(?<![\d#])(351#9\d{8})(?![\d#])", prefilter=r"351#9[0-9]{8}",
           group=1, needles=("351#",), digits=True, joined=_nothing_joined,
           joined_prefilter=r"351#9[0-9]{8}"),
        # A one-time code in Portuguese ("introduza o codigo 485066", "O seu código de
        # confirmação é 626387") and Malagasy ("Kaody fanamarinana MVola: 681207"): named as
        # one, not a postal code's or an error's "código".
        _named_id(("c[\u00f3o]digo[ \\t]+de[ \\t]+(?:confirma[\u00e7c][\u00e3a]o"
                   "|autoriza[\u00e7c][\u00e3a]o|acesso|verifica[\u00e7c][\u00e3a]o"
                   "|seguran[\u00e7c]a)",
                   "(?:introduza|insira|digite|use)[ \\t]+o[ \\t]+c[\u00f3o]digo",
                   r"kaody[ \t]+fanamarinana"),
                  ("c\u00f3digo", "codigo", "introduza", "insira", "digite", "use", "kaody"),
                  r"\d{4,8}", v.not_counting_run, checksummed=False, kind="secret_assignment",
                  gap="[ \\t]*(?:[:=]|\u00e9|e(?=[ \\t]))?[ \\t]*"),
        # Residence permits, voter cards and refugee attestations in Portuguese and French,
        # Cape Verde's INPS and CNI, a São Tomé BI's short number, a buyer's NIF in a query
        # (its check digit), Gabon's NIP (twelve digits in fours).
        _named_id(("t[\u00edi]tulo[ \\t]+de[ \\t]+resid[\u00eae]ncia",
                   "cart[\u00e3a]o[ \\t]+de[ \\t]+eleitor", r"kartaun[ \t]+eleitor"),
                  ("t\u00edtulo", "titulo", "cart", "kartaun"),
                  r"\d{7,11}|\d{2}-\d{3}-\d{5}", v.not_counting_run, checksummed=False),
        # (Cape Verde's INPS right after its name: not Italy's, a firm's "INPS: causale CXX
        # matricola ...")
        _named_id((r"(?-i:INPS)\b",), ("inps",), r"\d{9}", v.not_counting_run,
                  checksummed=False, gap=_TIGHT_GAP),
        _named_id((r"(?-i:CNI)\b",), ("cni",), r"\d{8}[A-Z]\d{3}[A-Z]", _has_digit,
                  checksummed=False),
        _named_id((r"attestation", r"r[ée]fugi[ée]", r"refugee", r"(?-i:UNHCR)"),
                  ("attestation", "r\u00e9fugi", "refugi", "refugee", "unhcr"),
                  r"[A-Z]{3}-\d{2}-\d{6}", _has_digit, checksummed=False),
        _named_id((r"(?-i:BI)[ \t]+n\.?[ºo°]",), ("bi",), r"\d{6,9}", v.not_counting_run,
                  checksummed=False, gap=_TIGHT_GAP),
        _named_id((r"(?<![a-z])nif_?(?:adquirente|cliente|comprador|contribuinte)",),
                  ("nif",), r"\d{9}", ids.pt_nif_ok, gap=_TIGHT_GAP),
        _named_id((r"(?-i:NIP|nip)\b",), ("nip",), r"\d{4} \d{4} \d{4}", v.not_counting_run,
                  checksummed=False, gap=_TIGHT_GAP),
        # A US driving licence's number after its name, in English, Spanish, Chinese and
        # Korean ("License: CW640965   Class: B", "license=095073396", "驾照号码：L8251817",
        # "운전면허 번호는 092463963"), its value right after it.
        # (a driver's, not a business's: a travel agency's, a carrier's IFTA licence, a
        # church's CCLI licence)
        _named_id((r"driv(?:er'?s?|ing)[ \t]+licen[cs]e(?:[ \t]+(?:no\.?|number|#))?",
                   r"state=[A-Z]{2}&licen[cs]e", r"suspension[ \t]+on[ \t]+licen[cs]e",
                   r"(?<![a-z])(?:su|mi)[ \t]+licencia(?:[ \t]+(?:es|de[ \t]+conducir))?"
                   r"(?:[ \t]+la)?",
                   "\u9a7e\u7167\u53f7\u7801", "\u99d5\u7167\u865f\u78bc",
                   "\uc6b4\uc804\uba74\ud5c8[ \\t]*\ubc88\ud638(?:\ub294)?"),
                  ("driv", "licen", "state=", "suspension", "su ", "mi ", "\u9a7e\u7167",
                   "\u99d5\u7167", "\uc6b4\uc804\uba74\ud5c8"),
                  r"[A-Z]{1,2}\d{5,12}|\d{7,12}|[A-Z]\d{4} \d{5} \d{5}", v.not_counting_run,
                  checksummed=False, gap=_TIGHT_GAP),
        # (and a licence's number with its class after it: "License: CW640965   Class: B")
        _named_id((r"(?<![a-z])licen[cs]e",), ("licen",),
                  r"[A-Z]{0,2}\d{6,12}(?=[ \t]+[Cc]lass\b)", v.not_counting_run,
                  checksummed=False, gap=_TIGHT_GAP, shape=r"[A-Z]{0,2}[0-9]{6,12}"),
        # Phones: a Mojaloop party's MSISDN; a number after a label in India's scripts, after
        # "Mob", Malagasy's "finday", and seven digits after a label ("Mobile: 754 9503").
        _d("phone", r"(?i)\"partyIdType\"[ \t]*:[ \t]*\"MSISDN\"[ \t]*,\s*"
           r"\"party(?:Id|Identifier)\"[ \t]*:[ \t]*\"\+?(\d{8,15})\"",
           prefilter=r"partyIdType[^\r\n]{0,8}MSISDN", group=1, needles=("MSISDN",),
           digits=True, joined=_nothing_joined,
           joined_prefilter=r"partyIdType[^\r\n]{0,8}MSISDN"),
        _named_id((*_PHONE_LABELS, r"(?<![a-z])mob(?=[ \t]*[.:=])",
                   r"(?<![a-z])finday(?![a-z])", r"(?<![a-z])fon(?=[ \t]*:)",
                   # (French's and Portuguese's line in a telco's ticket, a beneficiary's
                   # contact, "call me on", "my new num")
                   "ligne[ \\t]+concern[\u00e9e]e", "n[\u00fau]mero[ \\t]+afectado",
                   "contacto[ \\t]+do[ \\t]+benefici[\u00e1a]rio",
                   r"(?<![a-z])(?:o[ \t]+)?meu[ \t]+contacto[ \t]+[ée]", r"liga-me[ \t]+no",
                   r"liga-m(?=:)", r"(?<![a-z])new[ \t]+num(?=[ \t]*:)",
                   # (Marathi's, Kannada's and Malayalam's "my number" in Latin letters)
                   r"(?<![a-z])(?:maza|majha|nanna|ente)[ \t]+number"),
                  (*_PHONE_LABELS, "mob", "finday", "fon", "ligne", "n\u00famero", "numero",
                   "contacto", "o meu", "meu", "liga-m", "new", "maza", "majha", "nanna",
                   "ente"),
                  r"\+?\d[\d .-]{5,16}\d", v.short_phone_ok, checksummed=False,
                  gap=r"[^\n\d]{0,14}?", kind="phone", shape=r"[0-9]{3}"),
        # (and the small countries' seven digits, or the French Pacific's pairs, after a
        # label in English, French, Samoan, Tongan, Fijian or Bislama: "O la'u numera telefoni
        # o le 767 5579", "Namba blong mi 540 7199", "Tél. : 91 87 63")
        _named_id((r"(?<![a-z])mob(?:ile)?(?![a-z])",
                   r"(?<![a-z])t[ée]l(?:[ée]phone)?(?:[ \t]+portable)?(?![a-z])",
                   r"(?<![a-z])(?:receiver[ \t]+)?phone(?![a-z])", r"(?<![a-z])contact(?![a-z])",
                   r"(?<![a-z])msisdn(?![a-z])",
                   r"(?<![a-z])(?:my|her|his)[ \t]+(?:(?:phone|mobile|cell|home|work|new|m-paisa"
                   r"|contact)[ \t]+)?number(?:[ \t]+is)?",
                   r"(?<![a-z])tele?foni(?:[ \t]+(?:ko[ \t]+e|o[ \t]+le))?", r"talevoni",
                   r"namba[ \t]+blong[ \t]+(?:phone[ \t]+blong[ \t]+)?mi"),
                  ("mob", "tel", "t\u00e9l", "phone", "receiver", "contact", "msisdn", "my", "her",
                   "his", "telefoni", "tefoni", "talevoni", "namba"),
                  r"(?:\d{3}[ .-]?\d{4}|\d{2}(?P<pair>[ .])\d{2}(?P=pair)\d{2}(?:(?P=pair)\d{2})?)"
                  r"(?![ .-]\d)",
                  v.short_phone_ok, checksummed=False,
                  gap=r"\.?" + _TIGHT_GAP, kind="phone",
                  # (the engine asks for the short number itself, no digit before or after it:
                  # a longer number after "phone" is the told phone detector's)
                  reach=r"[^\n0-9]{0,16}",
                  shape=r"(?:[0-9]{3}[ .-]?[0-9]{4}"
                        r"|[0-9]{2}[ .][0-9]{2}[ .][0-9]{2}(?:[ .][0-9]{2})?)"
                        r"(?:[^0-9 .-]|[ .-][^0-9]|[ .-]?$)"),
    )


def _asia_and_the_german_speaking_world() -> tuple[Detector, ...]:
    """The shapes of the FL to FQ round: Central Asia; mainland South-East Asia; South Asia
    beyond India and Pakistan; the German-speaking countries and the Benelux; Greater China;
    the traffic of LLM-serving systems."""
    return (
        # Myanmar's NRC: a state's number, its township's letters, the holder's kind in
        # brackets and six digits, in Latin letters ("12/KaMaYa(N)571605") or Burmese.
        _d("national_id",
           r"(?<![\w/])(\d{1,2}/[A-Z][a-z]{1,2}(?:[A-Z][a-z]{0,2}){2,3}"
           r"\((?:N|P|E|Ae|Naing|Pyu|Thi|Si)\)\d{6})(?!\d)",
           _has_digit, prefilter=r"[0-9]/[A-Z][a-z]{1,2}[A-Za-z]{2,9}\([A-Za-z]{1,5}\)[0-9]{6}",
           group=1, needles=(")",), digits=True),
        _d("national_id",
           "(?<![\\w/])([\u1040-\u1049]{1,2}/[\u1000-\u1021]{2,4}\\([\u1000-\u109f]{1,8}\\)"
           "[\u1040-\u1049]{6})(?!\\w)",
           _has_digit, prefilter=r"[0-9]{1,2}/a{2,4}\([a~]{1,8}\)[0-9]{6}", group=1,
           needles=(")",), digits=True),
        # Thailand's id as a foreign worker's card writes it (dashed, starting 00: its check
        # digit; a firm's starts 0 and its kind), and under a key ("pid", the NHSO's query).
        _d("national_id", r"(?<![\w-])(\d-\d{4}-\d{5}-\d{2}-\d)(?![\w-])", ids.thai_id_any_ok,
           prefilter=r"[0-9]-[0-9]{4}-[0-9]{5}-[0-9]{2}-[0-9]", group=1, needles=("-",),
           digits=True),
        _named_id((_AS_KEY % "pid",), ("pid",), r"[1-8]\d{12}", ids.thai_id_ok, gap=_TIGHT_GAP),
        # Laos' id card and taxpayer numbers, Cambodia's id card number (in their scripts), a
        # SIM registration's document number, Cambodia's personal TIN.
        _named_id(("\u0ec0\u0ea5\u0e81\u0e9a\u0eb1\u0e94\u0e9b\u0eb0\u0e88\u0eb3\u0e95\u0ebb\u0ea7",
                   # (not a legal entity's: "(ນິຕິບຸກຄົນ)")
                   "\u0ec0\u0ea5\u0e81\u0e9b\u0eb0\u0e88\u0eb3\u0e95\u0ebb\u0ea7\u0e9c\u0eb9\u0ec9\u0ec0\u0eaa\u0e8d\u0ead\u0eb2\u0e81\u0ead\u0e99"
                   "(?![ \\t]*\\x28\u0e99\u0eb4\u0e95\u0eb4)",
                   "\u179b\u17c1\u1781\u17a2\u178f\u17d2\u178f\u179f\u1789\u17d2\u1789\u17b6\u178e\u1794\u17d0\u178e\u17d2\u178e",
                   r"doc_type=ID_CARD[ \t]+doc_no(?==)"),
                  ("\u0ec0\u0ea5\u0e81", "\u179b\u17c1\u1781", "doc_type"), r"\d{9,12}",
                  v.not_counting_run, checksummed=False),
        _named_id((r"personal[ \t]+tin",), ("personal",), r"[A-Z]\d{3}-\d{9}", _has_digit,
                  checksummed=False),
        # Viet Nam's personal identification number ("số định danh").
        _named_id(("s[\u1ed1o][ \\t]+\u0111[\u1ecbi]nh[ \\t]+danh"
                   "(?:[ \\t]+c[\u00e1a][ \\t]+nh[\u00e2a]n)?",),
                  ("s\u1ed1", "so"), r"\d{12}", ids.vn_citizen_id_ok),
        # Bhutan's CID (eleven digits), the Maldives' id card (A and six digits), Bangladesh's
        # birth registration number (seventeen digits), Nepal's PAN (nine digits: India's
        # holds letters), a TIN under its key.
        _named_id((r"(?-i:CID)\b", _AS_KEY % "cid"), ("cid",), r"1\d{10}", v.not_counting_run,
                  checksummed=False),
        _named_id((r"id[ \t]+card(?:[ \t]+(?:number|no))?(?:[ \t]+is)?", r"national[ \t]+id",
                   r"(?-i:NID|NIC/ID)\b", _AS_KEY % "(?:nid|idn)",
                   "\u0787\u07a6\u0787\u07a8\u0791\u07a9 \u0786\u07a7\u0791\u07aa \u0782\u07a6"
                   "\u0782\u07b0\u0784\u07a6\u0783\u07aa"),
                  ("id", "national", "nid", "nic", "idn", "\u0787\u07a6\u0787\u07a8\u0791\u07a9"),
                  r"A\d{6}", _has_digit, checksummed=False),
        _named_id((r"birth[ \t]+registration(?:[ \t]+(?:number|no))?", r"(?-i:BRN)\b"),
                  ("birth", "brn"), r"\d{17}", v.not_counting_run, checksummed=False),
        _named_id((r"(?<!VAT/)(?-i:PAN)\b(?![ \t]*\x28[Ff]irm)(?![ \t]*\x28[Cc]ompany)",),
                  ("pan",), r"\d{9}", v.not_counting_run, checksummed=False),
        _named_id((_AS_KEY % "tin",), ("tin",), r"\d{9}", v.not_counting_run,
                  checksummed=False, gap=_TIGHT_GAP),
        # South Asia's ids after their names in Nepali, Bengali, Sinhala and Dzongkha (their
        # digits read as ASCII: decoding.FULLWIDTH), and Nepal's citizenship certificate as
        # it is written ("17-02-72-86095": district, year and serial).
        _named_id(("\u0928\u093e\u0917\u0930\u093f\u0915\u0924\u093e[ \\t]+\u092a\u094d\u0930"
                   "\u092e\u093e\u0923\u092a\u0924\u094d\u0930[ \\t]+\u0928\u0902\\.?",
                   "\u0930\u093e\u0937\u094d\u091f\u094d\u0930\u093f\u092f[ \\t]+\u092a\u0930"
                   "\u093f\u091a\u092f\u092a\u0924\u094d\u0930[ \\t]+\u0928\u092e\u094d\u092c"
                   "\u0930",
                   "\u0938\u094d\u0925\u093e\u092f\u0940[ \\t]+\u0932\u0947\u0916\u093e[ \\t]+"
                   "\u0928\u092e\u094d\u092c\u0930",
                   "\u099c\u09a8\u09cd\u09ae[ \\t]+\u09a8\u09bf\u09ac\u09a8\u09cd\u09a7\u09a8"
                   "[ \\t]+\u09a8\u09ae\u09cd\u09ac\u09b0",
                   "\u099f\u09bf\u0986\u0987\u098f\u09a8",
                   "\u0da2\u0dcf\\.\u0dc4\u0dd0\\.\u0d85\\.",
                   "\u0f44\u0f7c\u0f0b\u0f66\u0fa4\u0fb2\u0f7c\u0f51\u0f0b(?:\u0f63\u0f42\u0f0b"
                   "\u0f41\u0fb1\u0f7a\u0f62\u0f0b)?\u0f68\u0f44\u0f0b\u0f0d?"),
                  ("\u0928\u093e\u0917\u0930\u093f\u0915\u0924\u093e",
                   "\u0930\u093e\u0937\u094d\u091f\u094d\u0930\u093f\u092f",
                   "\u0938\u094d\u0925\u093e\u092f\u0940", "\u099c\u09a8\u09cd\u09ae",
                   "\u099f\u09bf\u0986\u0987\u098f\u09a8", "\u0da2\u0dcf", "\u0f44\u0f7c"),
                  r"\d{2}-\d{2}-\d{2}-\d{5}|\d{9,17}|\d{9}[VX]", v.not_counting_run,
                  checksummed=False),
        _d("national_id", r"(?<![\w-])(\d{2}-\d{2}-\d{2}-\d{5})(?![\w-])", _has_digit,
           prefilter=r"[0-9]{2}-[0-9]{2}-[0-9]{2}-[0-9]{5}", group=1, needles=("-",),
           digits=True),
        # Central Asia: Kazakhstan's IIN in a query and in Latin Kazakh (JSN), Kyrgyzstan's
        # PIN (a sex digit and a birth date), Tajikistan's taxpayer number (РМА), Uzbekistan's
        # (СТИР), a migration card's and a work patent's numbers, driving licences.
        _named_id((r"customer_?iin(?==)", r"(?-i:JSN)(?:-[a-z]{1,3})?"), ("customer", "jsn"),
                  r"\d{12}", ids.iin_ok, gap=_TIGHT_GAP),
        _named_id((_AS_KEY % "pin",), ("pin",), r"[12]\d{13}", ids.kg_pin_ok, gap=_TIGHT_GAP),
        _named_id(("(?<!\u0422\u0410\u0428\u041a\u0418\u041b\u041e\u0422 \\x28)\u0420\u041c\u0410",
                   "\u0421\u0422\u0418\u0420"), ("\u0440\u043c\u0430", "\u0441\u0442\u0438\u0440"),
                  r"\d{9}", v.not_counting_run, checksummed=False),
        _named_id(("\u043c\u0438\u0433\u0440\u0430\u0446\u0438\u043e\u043d\u043d[\u0430-\u044f]*"
                   "[ \\t]+\u043a\u0430\u0440\u0442[\u0430-\u044f]*",),
                  ("\u043c\u0438\u0433\u0440\u0430\u0446\u0438\u043e\u043d\u043d",),
                  r"\d{4} ?\d{7}", v.not_counting_run, checksummed=False),
        _named_id(("[\u041f\u043f]\u0430\u0442\u0435\u043d\u0442[ \\t]+\u043d\u0430[ \\t]+\u0440"
                   "\u0430\u0431\u043e\u0442\u0443[ \\t]*:?[ \\t]*\u0441\u0435\u0440\u0438\u044f",),
                  ("\u043f\u0430\u0442\u0435\u043d\u0442",),
                  r"\d{2} ?\u2116 ?\d{10}", _has_digit, checksummed=False,
                  # (the engine reads "№" as "~")
                  shape=r"[0-9]{2} ?~ ?[0-9]{10}"),
        _named_id(("[\u0412\u0432]\u043e\u0434\\.?[ \\t]+\u0443\u0434\u043e\u0441\u0442\u043e"
                   "\u0432\u0435\u0440\u0435\u043d\u0438\u0435",
                   "[\u0412\u0432]\u043e\u0434\u0438\u0442\u0435\u043b\u044c\u0441\u043a\u043e"
                   "\u0435[ \\t]+\u0443\u0434\u043e\u0441\u0442\u043e\u0432\u0435\u0440\u0435"
                   "\u043d\u0438\u0435",
                   r"haydovchilik[ \t]+guvohnomasi", _AS_KEY % "license_number"),
                  ("\u0432\u043e\u0434", "haydovchilik", "license_number"), r"[A-Z]{2}\d{6,7}",
                  _has_digit, checksummed=False),
        # Greater China: a resident identity card's number alone (its check, province and
        # birth date), Hong Kong's HKID alone (its check digit in brackets), Taiwan's health
        # insurance card number, Macau's BIR.
        _d("national_id",
           # (not an order's or a serial's number, which may pass all three: "orderNo",
           # "流水号 ...", "订单号：...")
           r"(?<![\w.+-])(?<!rderNo\":\")(?<!rder_no\":\")(?<!rderId\":\")"
           "(?<!\u53f7 )(?<!\u53f7\uff1a)(?<!\u53f7:)"
           r"([1-8]\d{16}[\dX])(?![\w-])", ids.cn_resident_id_alone_ok,
           prefilter=r"[1-8][0-9]{16}[0-9X]", group=1, digits=True, checksummed=True),
        _d("national_id", r"(?<![\w-])([A-Z]{1,2}\d{6}\([0-9A]\))(?![\w)])", ids.hkid_ok,
           prefilter=r"[A-Z][0-9]{6}\([0-9A]\)", group=1, needles=("(",), digits=True,
           checksummed=True),
        _named_id(("\u5065\u4fdd\u5361(?:\u865f|\\([ \\t]*\u5361\u865f"
                   "|\uff08[ \\t]*\u5361\u865f)",),
                  ("\u5065\u4fdd\u5361",), r"\d{12}", v.not_counting_run, checksummed=False),
        _named_id((r"(?-i:BIR)\b", "\u6fb3\u9580\u5c45\u6c11\u8eab\u4efd\u8b49\u7de8\u865f"),
                  ("bir", "\u6fb3\u9580"), r"[157]\d{7}", v.not_counting_run,
                  checksummed=False),
        # The German-speaking countries and the Benelux: a social insurance number spaced as
        # the card prints it ("52 280194 R 04 9"), the Kindergeld number, a job centre's BG
        # number, the KVNR under a key or the card's XML, Austria's Steuernummer, a Steuer-ID
        # after its holder's birth date, the Swiss insurance card's number, an AHVN13 key,
        # Belgium's register or BIS number as written and its identity card's number, the
        # Dutch V-number.
        _named_id(("sozialversicherungsnummer", r"(?-i:SV)-?(?:nummer|nr\.?)",
                   "rentenversicherungsnummer"), ("sozialversicherungs", "sv", "rentenvers"),
                  r"\d{2} \d{6} [A-Z] \d{2} \d", ids.de_rvnr_ok),
        _d("national_id", r"(?<![\w-])(\d{3}FK\d{6})(?![\w-])", _has_digit,
           prefilter=r"[0-9]{3}FK[0-9]{6}", group=1, needles=("FK",), digits=True),
        _d("national_id", r"(?<![\w-])(\d{5}BG\d{7})(?![\w-])", _has_digit,
           prefilter=r"[0-9]{5}BG[0-9]{7}", group=1, needles=("BG",), digits=True),
        _named_id((_AS_KEY % "kvnr", r"versicherten_id>"), ("kvnr", "versicherten_id"),
                  r"[A-Z]\d{9}", ids.kvnr_ok, gap=_TIGHT_GAP),
        _named_id((r"steuernummer", r"st\.?-?nr\.?"), ("steuernummer", "st"),
                  r"\d{2}-\d{3}/\d{4}", _has_digit, checksummed=False),
        _named_id((r"steuer-?id[ \t]+[^ \t(\n]{1,30}[ \t]+\(geb\.[ \t]*\d{2}\.\d{2}\.\d{4}\)",),
                  ("steuer",), r"\d{11}", ids.steuer_id_ok,
                  shape=r"[0-9]{11}"),
        _d("national_id", r"(?<!\d)(80756\d{15})(?!\d)", prefilter=r"80756[0-9]{15}", group=1,
           needles=("80756",), digits=True),
        _named_id((r"ahvn13(?==)",), ("ahvn13",), r"756\d{10}", ids.ahv_ok, gap=_TIGHT_GAP),
        _d("national_id", r"(?<![\w.-])(\d{2}\.\d{2}\.\d{2}-\d{3}\.\d{2})(?![\w-])",
           ids.be_national_number_ok,
           prefilter=r"[0-9]{2}\.[0-9]{2}\.[0-9]{2}-[0-9]{3}\.[0-9]{2}", group=1,
           needles=("-",), digits=True, checksummed=True),
        _named_id((r"kaartnr\.?", r"card[ \t]+no\.?"), ("kaartnr", "card"), r"\d{3}-\d{7}-\d{2}",
                  ids.be_card_ok),
        _named_id((r"(?-i:V)-nummer",), ("v-nummer",), r"\d{10}", v.not_counting_run,
                  checksummed=False),
        # A passport's optional data in its machine-readable zone (the holder's personal number,
        # Kazakhstan's IIN), after the line's number, birth date and expiry; Thailand's
        # passport after its name.
        _d("national_id",
           r"(?<=[A-Z0-9<]{9}\d[A-Z<]{3}\d{7}[MFX<]\d{7})([0-9A-Z]{6,14})"
           r"(?=<*\d{1,2}(?![A-Z0-9<]))",
           _has_six_digits, prefilter=r"[A-Z<]{3}[0-9]{7}[MFX<][0-9]{7}[0-9A-Z]{6}", group=1,
           needles=("<",), digits=True),
        _named_id(("\u0e2b\u0e19\u0e31\u0e07\u0e2a\u0e37\u0e2d\u0e40\u0e14\u0e34\u0e19\u0e17"
                   "\u0e32\u0e07",
                   ),
                   ("\u0e2b\u0e19\u0e31\u0e07\u0e2a\u0e37\u0e2d\u0e40\u0e14\u0e34\u0e19\u0e17"
                    "\u0e32\u0e07",
                   ), r"[A-Z]{1,2}\d{6,8}", _has_digit,
                  checksummed=False),
        # Viet Nam's health insurance card (BHYT: two letters and thirteen digits) under its
        # name, a Thai work permit's number, a Lao family book's, a Tajik passport's, a driving
        # licence's number inside its JSON object ("driving_license": {..., "number": "X"}).
        _named_id(("(?:B\u1ea2O[ \\t]+HI\u1ec2M[ \\t]+Y[ \\t]+T\u1ebe"
                   "|b\u1ea3o[ \\t]+hi\u1ec3m[ \\t]+y[ \\t]+t\u1ebf|(?-i:BHYT))",),
                  ("b\u1ea3o", "bhyt"), r"[A-Z]{2}\d{13}", _has_digit, checksummed=False),
        _named_id(("\u0e43\u0e1a\u0e2d\u0e19\u0e38\u0e0d\u0e32\u0e15\u0e17\u0e33\u0e07\u0e32"
                   "\u0e19\u0e40\u0e25\u0e02\u0e17\u0e35\u0e48",),
                  ("\u0e43\u0e1a\u0e2d\u0e19\u0e38\u0e0d\u0e32\u0e15",),
                  r"\d{1,4}/\d{4}-\d{6}", _has_digit, checksummed=False),
        _named_id(("\u0e9b\u0eb6\u0ec9\u0ea1\u0eaa\u0eb3\u0ea1\u0eb0\u0ec2\u0e99\u0e84\u0ebb"
                   "\u0ea7\u0ec0\u0ea5\u0e81\u0e97\u0eb5",),
                  ("\u0e9b\u0eb6\u0ec9\u0ea1",), r"\d{4,8}", v.not_counting_run,
                  checksummed=False),
        _named_id(("[\u0428\u0448]\u0438\u043d\u043e\u0441\u043d\u043e\u043c\u0430\u0438"
                   "[ \\t]+\u0448\u0430\u04b3\u0440\u0432\u0430\u043d\u0434\u04e3",),
                  ("\u0448\u0438\u043d\u043e\u0441\u043d\u043e\u043c\u0430\u0438",),
                  r"\d{9}", v.not_counting_run, checksummed=False),
        _d("national_id",
           r"(?i)driv(?:ing|ers?)_?licen[cs]e\\*\"[ \t]*:[ \t]*\{[^{}]{0,80}?\\*\"number\\*\""
           r"[ \t]*:[ \t]*\\*\"([A-Z0-9-]{6,16})\\*\"",
           _has_digit,
           prefilter=r"(?i)driv(?:ing|ers?)_?licen[cs]e[^{}\n]{0,8}\{[^{}]{0,80}number",
           group=1, needles=("icen", "ICEN"), digits=True),
        # Phones after a label in Vietnamese, Khmer, Lao and Burmese, a SIM's number, a
        # wallet's account ("Điện thoại di động: 0352713305", "sim 061 988 293").
        _named_id(("[\u0110\u0111]i[\u1ec7e]n[ \\t]+tho[\u1ea1a]i(?:[ \\t]+(?:di[ \\t]+\u0111["
                   "\u1ed9o]ng|li[\u00eae]n[ \\t]+h[\u1ec7e]))?",
                   r"(?<![a-z])sim(?=[ \t]+\d)", r"wave[ \t]+pay[ \t]+account",
                   # (Indonesian's and Malay's handphone, "HP 6285627929412")
                   r"(?<![a-z])(?-i:HP)(?=[ \t]+\+?\d)",
                   "\u179b\u17c1\u1781\u1791\u17bc\u179a\u179f\u17d0\u1796\u17d2\u1791",
                   "\u0ec0\u0e9a\u0eb5\u0ec2\u0e97\u0ea5\u0eb0\u0eaa\u0eb1\u0e9a",
                   "\u1016\u102f\u1014\u103a\u1038\u1014\u1036\u1015\u102b\u1010\u103a"),
                  ("\u0111i\u1ec7n", "dien", "sim", "wave", "hp", "\u179b\u17c1\u1781",
                   "\u0ec0\u0e9a\u0eb5", "\u1016\u102f\u1014\u103a\u1038"),
                  r"\+?\d[\d .-]{7,14}\d", v.told_phone_ok, checksummed=False, kind="phone",
                  gap=_TIGHT_GAP),
        # Passports: Turkmenistan's (a series "I-BN" and six digits), Uzbekistan's told with
        # "№", China's exit-entry permits and Hong Kong's and Taiwan's home-visit permits.
        _named_id((r"pasport", "[\u041f\u043f]\u0430\u0441\u043f\u043e\u0440\u0442"), ("pasport",
                   "\u043f\u0430\u0441\u043f\u043e\u0440\u0442"),
                  "I-[A-Z\u00dd\u015e\u00c4\u00d6\u00dc\u0147\u00c7\u017d]{2} ?\\d{6}|A[A-D] ?"
                  "\u2116 ?\\d{7}",
                  _has_digit,
                  checksummed=False,
                  shape=r"(?:I-[A-Za]{2} ?[0-9]{6}|A[A-D] ?~ ?[0-9]{7})"),
        _named_id(("\u5f80\u6765\u6e2f\u6fb3\u901a\u884c\u8bc1\\)?", r"permit[ \t]+no\.?",
                   "\u901a\u884c\u8bc1[\"\\\\]*[ \\t]*,[ \\t]*[\"\\\\]*(?:certNo|passenger_id_no)"
                   "[\"\\\\]*[ \\t]*:"),
                  ("\u5f80\u6765", "permit", "\u901a\u884c\u8bc1"),
                   r"C[A-Z]?\d{7,8}|[HM]\d{8}|\d{8}", _has_digit,
                  checksummed=False),
        # Phones as the post-Soviet countries write them: an operator's code in brackets and
        # the number in pairs ("0 (779) 17-70-06", "8 (747) 771-35-60", "(90) 548-56-25"), or
        # Uzbekistan's code before three digits and two pairs ("94 736-35-12").
        _d("phone", r"(?<![\w(+-])((?:[078] ?)?\(\d{2,3}\) ?\d{2,3}-\d{2}-\d{2}"
           r"|\d{2} \d{3}-\d{2}-\d{2})(?![\w-])",
           # (the engine asks for spaces too, so that the joined reading's prefilter, the
           # same read with "-" and "_" as spaces, is exact)
           prefilter=r"(?:\([0-9]{2,3}\) ?[0-9]{2,3}|[0-9]{2} [0-9]{3})[ -][0-9]{2}[ -][0-9]{2}",
           group=1, needles=("-",), digits=True, joined=_nothing_joined,
           joined_prefilter=r"(?:\([0-9]{2,3}\)[ _-]?[0-9]{2,3}|[0-9]{2}[ _-][0-9]{3})[ _-]"
                            r"[0-9]{2}[ _-][0-9]{2}"),
        # One-time codes, PINs and code words told in Russian, Uzbek, Vietnamese, Sinhala,
        # Khmer and German: a bank's code word ("Кодовое слово ...: Алатау"), a code before its
        # name ("866356 — kirish kodi", "0044 — код для входа"), "Tasdiqlash kodi 43003",
        # "617664 is your one-time password", "mã 877194 từ TPBank", "254304 la ma xac
        # thuc", "PIN eka 8868", a transfer's TAN after its amount and IBAN, a blocking
        # password ("Sperrkennwort"), a security question's answer in Chinese.
        _named_id(("[\u041a\u043a]\u043e\u0434\u043e\u0432\u043e\u0435[ \\t]+\u0441\u043b\u043e"
                   "\u0432\u043e(?:[ \\t]+\u0434\u043b\u044f[ \\t]+\u0437\u0432\u043e\u043d"
                   "\u043a\u043e\u0432[ \\t]+\u0432[ \\t]+\u0431\u0430\u043d\u043a)?",
                   r"sperrkennwort"),
                  ("\u043a\u043e\u0434\u043e\u0432\u043e\u0435", "sperrkennwort"),
                  r"[^\s,.;:]{3,30}", str.isalnum, checksummed=False, kind="secret_assignment",
                  gap="[ \\t]*:[ \\t]*", shape=r"[^ \t\r\n,.;:]{3}"),
        _d("secret_assignment",
           "(?i)(?<![\\w.,])(\\d{4,8})[ \\t]*(?:\u2014|\u2013|-)[ \\t]*(?:kirish[ \\t]+kodi"
           "|\u043a\u043e\u0434[ \\t]+\u0434\u043b\u044f[ \\t]+\u0432\u0445\u043e\u0434\u0430"
           "|\u043a\u043e\u0434[ \\t]+\u043f\u043e\u0434\u0442\u0432\u0435\u0440\u0436\u0434"
           "\u0435\u043d\u0438\u044f)",
           v.not_counting_run,
           prefilter=r"(?i)[0-9]{4}[ \t]*(?:~|-)[ \t]*(?:kirish[ \t]+kodi|aaa[ \t]+aaa[ \t]+"
                     r"aaaaa|aaa[ \t]+aaaaaaaaaaaaa)",
           group=1, digits=True),
        _named_id((r"(?:tasdiqlash|kirish)[ \t]+kodi", "(?<![a-z])(?-i:m\u00e3)(?=[ \\t]+\\d)",
                   r"(?-i:PIN)[ \t]+(?:eka|chas|ah[ \t]+haung[ \t]+ka)"),
                  ("tasdiqlash", "kirish", "m", "pin"), r"\d{4,8}", v.not_counting_run,
                  checksummed=False, kind="secret_assignment", gap=_TIGHT_GAP),
        _d("secret_assignment",
           r"(?i)(?<![\w.,])(\d{4,8})[ \t]+(?:is[ \t]+your[ \t]+one[ -]time[ \t]+passw"
           "|l[a\u00e0][ \\t]+m[a\u00e3][ \\t]+x[a\u00e1]c[ \\t]+th[u\u1ef1]c)",
           v.not_counting_run,
           prefilter=r"(?i)[0-9]{4}[ \t]+(?:is[ \t]+your[ \t]+one[ -]time[ \t]+passw"
                     r"|l[aa][ \t]+m[aa][ \t]+x[aa]c[ \t]+th[ua]c)",
           group=1, digits=True),
        _d("secret_assignment", r"(?<![A-Za-z])TAN[ \t][^\n]{0,120}?:[ \t]*(\d{6})(?![\d,.]\d)",
           v.not_counting_run, prefilter=r"TAN[ \t][^\n]{0,120}:[ \t]*[0-9]{6}", group=1,
           needles=("TAN",), digits=True),
        _d("secret_assignment",
           "\u95ee\u9898\\d?[\uff1a:][^\\n]{1,40}?[ \\t]*\u7b54\u6848[\uff1a:][ \\t]*"
           "([^\\s\uff0c\u3002,]{1,20})",
           prefilter=r"aa[0-9]?[~:][^\n]{1,40}aa[~:]", group=1, needles=("\u7b54\u6848",)),
    )


def _health_money_and_north_east_asia() -> tuple[Detector, ...]:
    """The shapes of the FR to FW round: agents and developer tools; cloud operations;
    southern and western Europe's back offices; health cover in the English-speaking world;
    Japan and Korea; money and crypto."""
    # Prefilters with no space or joiner in them: each is its own joined reading too.
    subscriber = (r"(?i)(?:msisdn|receiver|e164\]?|user|from|line|l[ai]nea|linha|ligne)"
                  r"[^\r\n0-9]{0,12}[1-9][0-9]{9}")
    whole_nrb = r"[0-9]{26}"
    cz_account = r"[0-9]{2,10}/[0-9]{4}"
    fedwire_iban = r"\{[45][0-9]00\}D[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}\*"
    sim_registration = r"(?:REG|ULANG)[ \t]+[0-9]{16}#[0-9]{16}#"
    return (
        # Korea's resident registration number with no name before it: dashed, its date and
        # its check digit right (a number issued since 2020 has none: only under its name);
        # and under a Korean tax service's key ("resNo=6805282305773").
        # (not a record's number that happens to pass: "Shipment reference 841014-2727470")
        _d("national_id", _NOT_A_RECORDS + r"(?<![\w-])(\d{6}-[1-8]\d{6})(?![\w-])",
           ids.rrn_checked_ok,
           prefilter=r"[0-9]{6}-[1-8][0-9]{6}", group=1, needles=("-",), digits=True),
        _named_id((_AS_KEY % "res_?no",), ("res",), r"\d{6}-?[1-8]\d{6}", ids.rrn_checked_ok,
                  gap=_TIGHT_GAP),
        # Korea's driver's licence number ("18-05-242515-41": a region, the year, a serial,
        # check digits), a shape no other number has; its health insurance card's number
        # after the card's name (건강보험증번호).
        _d("national_id", r"(?<![\w-])(\d{2}-\d{2}-\d{6}-\d{2})(?![\w-])", ids.kr_licence_ok,
           prefilter=r"[0-9]{2}-[0-9]{2}-[0-9]{6}-[0-9]{2}", group=1, needles=("-",),
           digits=True),
        _named_id(("\uac74\uac15\ubcf4\ud5d8(?:\uc99d)?[ \\t]*\ubc88\ud638",
                   "\uac74\uac15\ubcf4\ud5d8\uc99d"),
                  ("\uac74\uac15\ubcf4\ud5d8",), r"\d-?\d{10}", v.not_counting_run,
                  checksummed=False, gap=_TIGHT_GAP),
        # Japan's driver's licence number (twelve digits) after its name, the basic pension
        # number (four and six digits) under its English key, and a health insurance card's
        # symbol and number ("被保険者記号・番号: 7612・4075744"; an API's insuredSymbol and
        # insuredNumber).
        _named_id(("(?:\u904b\u8ee2)?\u514d\u8a31\u8a3c(?:\u306e)?\u756a\u53f7",),
                  ("\u904b\u8ee2", "\u514d\u8a31"), r"\d{12}", v.not_counting_run,
                  checksummed=False, gap=_TIGHT_GAP),
        _named_id((r"basic[ _-]?pension(?:[ _-]?(?:no|number))?",), ("basic",),
                  r"\d{4}-?\d{6}", v.not_counting_run, checksummed=False, gap=_TIGHT_GAP),
        _named_id(("(?:\u88ab\u4fdd\u967a\u8005)?\u8a18\u53f7[\u30fb\uff65\u3001]\u756a\u53f7",),
                  ("\u8a18\u53f7",), "\\d{1,8}[\u30fb\uff65 ]\\d{1,8}", _has_digit,
                  checksummed=False, gap=_TIGHT_GAP, shape=r"[0-9]{1,8}[~ ][0-9]{1,8}"),
        _named_id((_AS_KEY % "insured_?(?:symbol|number)",), ("insured",), r"\d{3,10}",
                  v.not_counting_run, checksummed=False, gap=_TIGHT_GAP),
        # A health plan's member id ("Member ID: M0265531770", "Membership no: 79520974",
        # "member id entered via IVR: ZGP751960011"): its holder's, one of HIPAA's
        # identifiers; not a form's zeros ("M000000000").
        _named_id((r"(?<![a-z])member[ _-]?id(?:[ _-]?(?:number|no|#))?",
                   r"(?<![a-z])membership[ _-]?(?:no|number|#)\.?"),
                  ("member",), r"[A-Z]{0,4}\d{8,12}", _member_number_ok, checksummed=False),
        # Malta's identity card number (digits and its letter) after the card's name in
        # English or Maltese, and its social security number (a letter, six digits, a letter);
        # Spain's DNI after its Basque name (NAN); Portugal's NISS after "Segurança Social";
        # France's NIR under a tool's key (numero_secu); an Italian driving licence after
        # "Patente".
        _named_id((r"id[ \t]+card(?:[ \t]+(?:number|no\.?))?",
                   "karta[ \t]+tal-identit(?:\u00e0|a)"),
                  ("id", "karta"), r"\d{3,7}[MGAPLHBZ]", _has_digit, checksummed=False),
        _named_id((r"social[ \t]+security[ \t]+(?:no\.?|number)",), ("social",),
                  r"[A-Z]\d{6}[A-Z]", _has_digit, checksummed=False),
        _named_id((r"(?-i:NAN)\b",), ("nan",), r"\d{8}[A-Z]", ids.dni_ok),
        _named_id(("seguran(?:\u00e7|c)a[ \t]+social",), ("seguran",), r"\d{11}", ids.niss_ok),
        _named_id((_AS_KEY % "numero_?secu",), ("numero",), r"[12]\d{14}", ids.nir_ok,
                  gap=_TIGHT_GAP),
        _named_id((r"patente(?:[ \t]+di[ \t]+guida)?(?:[ \t]+(?:n\.?|nr\.?|numero))?",),
                  ("patente",), r"[A-Z]{2}\d{7}[A-Z]|\d{8}[A-Z]", _has_digit, checksummed=False),
        # Mexico's NSS (its Luhn digit) in a CFDI payroll's NumSeguridadSocial and after
        # "Número de Seguro Social" as IMSS dashes it (55-15-84-6352-5); Canada's SIN on a T4
        # after its box's number ("SIN / NAS de l'employé (12): 764 946 745"); a permanent
        # resident card's number after "I-551" (three letters and ten digits).
        _named_id((_AS_KEY % "num_?seguridad_?social",
                   "n(?:\u00fa|u)mero[ \t]+de[ \t]+seguro[ \t]+social"),
                  ("num", "n\u00famero", "numero"), r"\d{2}-?\d{2}-?\d{2}-?\d{4}-?\d",
                  ids.nss_ok, gap=_TIGHT_GAP + "(?:\\|[ \t]*)?"),
        _named_id((r"(?-i:SIN|NAS)\b[^\n\d]{0,40}\x2812\x29",), ("sin", "nas"),
                  r"\d{3}[ -]?\d{3}[ -]?\d{3}", ids.sin_ok, gap=_TIGHT_GAP),
        _named_id((r"(?-i:I-551)\)?",), ("i-551",), r"[A-Z]{3}\d{10}", _has_digit,
                  checksummed=False),
        # A PIN keyed at an IVR's prompt ("Marque su PIN actual ...\nDTMF: 3279#"; a voice
        # platform's gather: "digits": "7638", "prompt": "enter_pin"), a code before Hindi's
        # "is your OTP" ("225429 aapka OTP hai"), a password cracked from a hash in a
        # pentest's notes ("cracked w/ hashcat ... → `svc_backup:Contrasena623#`").
        _d("secret_assignment", r"(?i)(?<![a-z])pin(?![a-z])[^\n]{0,80}\n(?:[^\n]{0,80}\n)?"
           r"DTMF:[ \t]*(\d{4,8})(?![\d])", v.not_counting_run,
           prefilter=r"(?i)pin[^\r\n]{0,80}\n(?:[^\r\n]{0,80}\n)?DTMF:[ \t]*\d{4}", group=1,
           needles=("DTMF:",)),
        _d("secret_assignment",
           r'(?i)"digits"[ \t]*:[ \t]*"(\d{4,8})"[ \t]*,[ \t]*"prompt"[ \t]*:[ \t]*"[^"\n]{0,40}'
           r'(?:pin|passcode|otp)', v.not_counting_run,
           prefilter=r'(?i)"digits"[ \t]*:[ \t]*"\d{4,8}"[ \t]*,[ \t]*"prompt"', group=1,
           needles=('"digits"',)),
        _d("secret_assignment", r"(?i)(?<![\w-])(\d{4,8})[ \t]+aapka[ \t]+(?:otp|code)\b",
           v.not_counting_run, prefilter=r"(?i)\d{4,8}[ \t]+aapka[ \t]+(?:otp|code)", group=1,
           needles=("aapka", "AAPKA", "Aapka")),
        _d("secret_assignment",
           r"(?i)cracked[^\n`]{0,80}`[\w.$@-]{2,40}:([^`\s]{4,64})`", v.secret_value_ok,
           prefilter=r"(?i)cracked[^\r\n`]{0,80}`[\w.$@-]{2,40}:[^`\s]{4}", group=1,
           needles=("racked",)),
        # A subscriber's number in full without its "+" where telecom systems log one: an
        # SMSC's receiver, a CDR's MSISDN, RADIUS's END_USER_E164, a CGNAT's user, an MO
        # message's sender, a line named in a ticket ("Linha 5519982929605"); its country's
        # code and a mobile's length there.
        _d("phone",
           r"(?i)(?:(?<![a-z])(?:msisdn|receiver|e164\]?|nat44:[ \t]+user|mo[ \t]+from)"
           r"|(?<![a-z])(?:line|l(?:\u00ed|i)nea|linha|ligne)(?:[ \t]+(?:a[ \t]+portar|da|de))?)"
           r"\\?[\"']?[ \t]*[:=]?[ \t]*\\?[\"']?([1-9]\d{9,13})(?![\d])",
           v.international_mobile_ok,
           prefilter=subscriber, group=1, digits=True, joined=_nothing_joined,
           joined_prefilter=subscriber),
        # Poland's domestic account number (NRB) written whole with no name before it (a
        # payroll export's column: the grouped form and the named one are read elsewhere),
        # a Czech account ("2092407690/5500": its bank's code and the number's mod-11 checks)
        # alone.
        _d("iban", r"(?<![\w.,/-])(\d{26})(?![\w/-])", v.nrb_ok, prefilter=whole_nrb,
           group=1, digits=True, checksummed=True, joined=_nothing_joined,
           joined_prefilter=whole_nrb),
        _d("iban", r"(?<![\w.,/-])((?:\d{1,6}-)?\d{2,10}/\d{4})(?![\w/-])", ids.cz_account_ok,
           prefilter=cz_account, group=1, digits=True, needles=("/",),
           joined=_nothing_joined, joined_prefilter=cz_account),
        # Ukraine's id card: its register record (УНЗР: a birth date and five digits) and its
        # document's number, each after its name; its taxpayer's card number (РНОКПП) after
        # its whole name; a Russian driving licence's number; Poland's id card after "Seria
        # i numer", a PESEL after "Identyfikator podatkowy", a Polish driving licence
        # ("83727/20/7693"); Belarus' passport in Latin letters ("Numar pašparta").
        _named_id(("\u0417\u0430\u043f\u0438\u0441[ \\t]*\u2116", r"record[ \t]+no\.?",
                   _AS_KEY % "unzr"),
                  ("\u0437\u0430\u043f\u0438\u0441", "record", "unzr"),
                  r"(?:19|20)\d{6}-\d{5}", _has_digit, checksummed=False),
        _named_id(("\u0414\u043e\u043a\u0443\u043c\u0435\u043d\u0442[ \\t]*\u2116",),
                  ("\u0434\u043e\u043a\u0443\u043c\u0435\u043d\u0442",), r"\d{9}",
                  v.not_counting_run, checksummed=False),
        _named_id(("\u043e\u0431\u043b\u0456\u043a\u043e\u0432\u043e\u0457[ \\t]+"
                   "\u043a\u0430\u0440\u0442\u043a\u0438[ \\t]+\u043f\u043b\u0430\u0442"
                   "\u043d\u0438\u043a\u0430[ \\t]+"
                   "\u043f\u043e\u0434\u0430\u0442\u043a\u0456\u0432",),
                  ("\u043e\u0431\u043b\u0456\u043a",), r"\d{10}", ids.rnokpp_ok),
        _named_id(("[\u0412\u0432]\u043e\u0434\u0438\u0442\u0435\u043b\u044c\u0441\u043a\u043e"
                   "\u0435[ \\t]+\u0443\u0434\u043e\u0441\u0442\u043e\u0432\u0435\u0440"
                   "\u0435\u043d\u0438\u0435",),
                  ("\u0432\u043e\u0434\u0438\u0442",), r"\d{2} ?\d{2} ?\d{6}",
                  v.not_counting_run, checksummed=False),
        _named_id((r"seria[ \t]+i[ \t]+numer",), ("seria",), r"[A-Z]{3}\d{6}", ids.pl_id_card_ok),
        _named_id((r"identyfikator[ \t]+podatkowy",), ("identyfikator",), r"\d{11}",
                  ids.pesel_ok),
        _named_id((r"praw[ao][ \t]+jazdy(?:[ \t]+nr\.?)?",), ("praw",), r"\d{5}/\d{2}/\d{4}",
                  _has_digit, checksummed=False),
        _named_id(("numar[ \\t]+pa(?:\u0161|s)parta",), ("numar",), r"[A-Z]{2}\d{7}",
                  _has_digit, checksummed=False),
        # Travel: a PNR's short DOCS line ("DOCS: P/ARE/N8965780"), a guest register's
        # document under its type (Spain's <tipoDocumento>PAS</tipoDocumento>
        # <numeroDocumento>..., Portugal's <Documento_Identificacao>, Italy's Alloggiati
        # record: "PASOR" or "IDELE" and the number), a passport's number before Turkish's
        # "numaralı pasaport", a driver's licenseNumber in a rental's JSON.
        _d("national_id", r"DOCS:?[ \t]*P/[A-Z]{3}/([A-Z0-9]{5,9})(?=[/\s]|$)", ids.passport_ok,
           prefilter=r"DOCS:?[ \t]*P/[A-Z]{3}/[A-Z0-9]{5}", group=1, needles=("DOCS",)),
        _d("national_id",
           r"<tipoDocumento>[A-Z]{1,5}</tipoDocumento>\s*<numeroDocumento>([A-Z0-9]{5,15})<",
           _has_digit, prefilter=r"<tipoDocumento>[A-Z]{1,5}</tipoDocumento>\s*<numeroDocumento>",
           group=1, needles=("<tipoDocumento>",)),
        _d("national_id", r"<Documento_Identificacao>([A-Z0-9]{5,15})<", _has_digit,
           prefilter=r"<Documento_Identificacao>[A-Z0-9]{5}", group=1,
           needles=("<Documento_Identificacao>",)),
        _d("national_id", r"(?:PASOR|PASDI|PASSE|IDELE|IDENT|PATEN)"
           r"([A-Z]{0,3}\d{5,10}[A-Z]{0,2})(?![A-Z0-9])", _has_digit,
           prefilter=r"(?:PASOR|PASDI|PASSE|IDELE|IDENT|PATEN)[A-Z]{0,3}[0-9]{5}", group=1,
           needles=("PASOR", "PASDI", "PASSE", "IDELE", "IDENT", "PATEN")),
        _d("national_id", r"(?<![\w-])([A-Z]{0,3}\d{6,9})[ \t]+numaral[\u0131i][ \t]+pasaport",
           _has_digit, prefilter=r"[A-Z0-9]{6,12}[ \t]+numaral.{1,2}[ \t]+pasaport", group=1,
           needles=("pasaport",)),
        _named_id((_AS_KEY % "licen[cs]e_?(?:number|no)",), ("licen",), r"[A-Z]{0,3}\d{6,12}",
                  v.not_counting_run, checksummed=False, gap=_TIGHT_GAP),
        # Telecom: Indonesia's SIM registration by SMS ("REG <NIK>#<KK>#"), a family card's
        # number after "KK"; a subscriber's document in a tool call (id_number with its
        # id_type); a PUK's eight digits after its name; a USSD session's last field where
        # the log says it took the raw input (a mobile-money PIN: text="1*1*1248*2648"); an
        # eSIM's matching id (its activation code); France's RIO and Mexico's NIP for a
        # number's port; a PagerDuty integration's routing key.
        _d("national_id", r"(?<![\w])(?:REG|ULANG)[ \t]+(\d{16})(?=#\d{16}#)", ids.nik_ok,
           prefilter=sim_registration, group=1, needles=("#",)),
        _d("national_id", r"(?<![\w])(?:REG|ULANG)[ \t]+\d{16}#(\d{16})#", v.not_counting_run,
           prefilter=sim_registration, group=1, needles=("#",)),
        _named_id((r"(?-i:KK)\b", r"kartu[ \t]+keluarga"), ("kk", "kartu"), r"\d{16}",
                  v.not_counting_run, checksummed=False,
                  gap=_TIGHT_GAP + "(?:(?-i:No)\\.?[ \t]*)?"),
        _d("national_id",
           r'(?i)"id_?number"[ \t]*:[ \t]*"([A-Z0-9][A-Z0-9./ -]{4,20}[A-Z0-9])"[ \t]*,[ \t]*'
           r'"id_?type"', _has_digit,
           prefilter=r'(?i)"id_?number"[ \t]*:[ \t]*"[A-Z0-9./ -]{6,22}"[ \t]*,[ \t]*"id_?type"',
           group=1, needles=('d_type"', 'dType"')),
        # (not a phone's last group: "... die alte PUK ... unter +49 (0)40 39735003")
        _d("secret_assignment",
           r"(?i)(?<![a-z])puk(?![a-z])[^\n]{0,60}?(?<![\d+])(?<!\d )(?<!\) )(\d{8})(?![\d])",
           v.not_counting_run, prefilter=r"(?i)puk[^\r\n]{0,60}[0-9]{8}", group=1,
           needles=("PUK", "puk", "Puk")),
        _d("secret_assignment",
           r'(?i)msisdn=\+?\d{7,15}[ \t]+text="(?:\d{1,4}\*){2,5}(\d{4,6})"[^\n]{0,20}'
           r'raw[ \t]+input',
           v.not_counting_run,
           prefilter=r'(?i)msisdn=\+?[0-9]{7,15}[ \t]+text="[0-9*]{6,30}"[^\r\n]{0,20}'
                     r'raw[ \t]+input',
           group=1, needles=("raw input",)),
        _named_id((_AS_KEY % "matching_?id",), ("matching",),
                  r"[A-Z0-9]{4,8}(?:-?[A-Z0-9]{4,8}){2,5}",
                  _has_digit, checksummed=False, gap=_TIGHT_GAP, kind="secret_assignment"),
        _named_id((r"(?-i:RIO)\b",), ("rio",), r"\d{2}[A-Z0-9]{10}", _has_digit,
                  checksummed=False, kind="secret_assignment"),
        _named_id((r"nip[ \t]+de[ \t]+portabilidad",), ("nip",), r"\d{4}", v.not_counting_run,
                  checksummed=False, gap=_TIGHT_GAP, kind="secret_assignment"),
        _named_id((_AS_KEY % "pagerduty_routing_key",), ("pagerduty",), r"[a-f0-9]{32}",
                  v.not_counting_run, checksummed=False, gap=_TIGHT_GAP, kind="secret_assignment"),
        # One-time codes in Russian, Ukrainian and Polish bank and parcel SMS ("Код: 84449",
        # "Код 9896 для подтверждения", "Никому не сообщайте код 68571", "Пароль: 9365 для
        # входу", "Kod otrymannia 0339", mBank's "Haslo do autoryzacji nr 3 z ...: 45557352").
        _d("secret_assignment",
           # (not a code another word names before it: "пощенски код: 7000", a postcode)
           "(?:(?<![\u0400-\u04ff][ \\t])[\u041a\u043a]\u043e\u0434(?:[ \\t]+(?:3DS|"
           "\u043f\u043e\u0434\u0442\u0432\u0435"
           "\u0440\u0436\u0434\u0435\u043d\u0438\u044f|\u0438\u0437[ \\t]+"
           "(?:\u0441\u043c\u0441|SMS)))?[ \\t]*:[ \\t]*"
           "|(?<![\u0400-\u04ff][ \\t])[\u041a\u043a]\u043e\u0434[ \\t]+"
           "(?=\\d{4,8}[ \\t]+\u0434\u043b\u044f[ \\t])"
           "|(?:\u0441\u043e\u043e\u0431\u0449\u0430\u0439\u0442\u0435"
           "|\u043f\u043e\u0432\u0456\u0434\u043e\u043c\u043b\u044f\u0439\u0442\u0435)"
           "[ \\t]+(?:\u043d\u0438\u043a\u043e\u043c\u0443[ \\t]+)?\u043a\u043e\u0434[ \\t]+"
           "|[\u041f\u043f]\u0430\u0440\u043e\u043b\u044c[ \\t]*:[ \\t]*"
           "(?=\\d{4,8}[ \\t]+\u0434\u043b\u044f[ \\t])"
           "|[Kk]od[ \\t]+otrymannia[ \\t]+"
           "|[Hh]as(?:\u0142|l)o[ \\t]+do[ \\t]+autoryzacji[^\\n:]{0,30}:[ \\t]*)"
           "(\\d{4,8})(?![\\d.,/-]?\\d)",
           v.not_counting_run,
           prefilter=(r"(?:aaa(?:[ \t]+(?:3DS|a{13}|aa[ \t]+(?:aaa|SMS)))?[ \t]*:[ \t]*"
                      r"|aaa[ \t]+|a{9,12}[ \t]+(?:a{6}[ \t]+)?aaa[ \t]+|a{6}[ \t]*:[ \t]*"
                      r"|[Kk]od[ \t]+otrymannia[ \t]+"
                      r"|[Hh]as[al]o[ \t]+do[ \t]+autoryzacji[^\r\n:]{0,30}:[ \t]*)[0-9]{4}"),
           group=1, digits=True),
        # A token a page keeps in the browser's storage ("localStorage.setItem('refresh_token',
        # '...')").
        _d("secret_assignment",
           r"(?i)storage\.setItem\([ \t]*['\"][\w.-]*(?:token|secret|session|auth)[\w.-]*['\"]"
           r"[ \t]*,[ \t]*['\"]([^'\"\s]{16,})['\"]", v.secret_value_ok,
           prefilter=r"(?i)storage\.setItem\([ \t]*['\"][\w.-]*(?:token|secret|session|auth)",
           group=1, needles=("setItem",)),
        # A code after Korean's "simple password" (간편비번: a payment app's), a password
        # after Japanese's "PIN" in letters and digits (暗証番号：POHHGYZ7XE, an e-certificate's),
        # a trading account's investor password in Arabic (كلمة مرور المستثمر).
        _named_id(("\uac04\ud3b8[ \\t]?\ube44(?:\ubc00)?\ubc88(?:\ud638)?"
                   "(?:[ \\t]*(?:\uc740|\ub294))?",),
                  ("\uac04\ud3b8",), r"\d{4,8}", v.not_counting_run, checksummed=False,
                  gap=_TIGHT_GAP, kind="secret_assignment", reach=r"[^\n]{0,8}"),
        _named_id(("\u6697\u8a3c\u756a\u53f7",), ("\u6697\u8a3c",),
                  r"(?=[A-Z0-9]*[A-Z])[A-Z0-9]{6,16}", _has_digit, checksummed=False,
                  gap=_TIGHT_GAP, kind="secret_assignment", reach=r"[^\n]{0,4}",
                  shape=r"[A-Z0-9]{6,16}"),
        _named_id(("\u0643\u0644\u0645\u0629[ \\t]+(?:\u0627\u0644)?\u0645\u0631\u0648\u0631"
                   "[ \\t]+(?:\u0627\u0644)?\u0645\u0633\u062a\u062b\u0645\u0631",),
                  ("\u0643\u0644\u0645\u0629",), r"[!-~]{6,40}", v.secret_value_ok,
                  checksummed=False, gap=_TIGHT_GAP, kind="secret_assignment",
                  reach=r"[^\n]{0,4}"),
        # A Fedwire message's beneficiary or originator account as an IBAN, after its tag
        # and the "D" that names an account ("{4200}DDE95700202705655853964*EMILY FOSTER*").
        _d("iban", r"\{[45][0-9]00\}D([A-Z]{2}\d{2}[A-Z0-9]{11,30})(?=\*)", v.iban_ok,
           prefilter=fedwire_iban, group=1, needles=("}D",), checksummed=True,
           joined=_nothing_joined, joined_prefilter=fedwire_iban),
        # A secret's value as Azure Key Vault prints it (az keyvault secret show: its id, a
        # vault's secrets URL, before its value).
        _d("secret_assignment",
           r'\.vault\.azure\.net/secrets/[^"\n]{1,200}"[^{}]{0,300}?"value"[ \t]*:[ \t]*"'
           r'([^"\n]{6,})"', v.secret_value_ok,
           prefilter=r'\.vault\.azure\.net/secrets/[^"\n]{1,200}"[^{}]{0,300}"value"', group=1,
           needles=(".vault.azure.net/secrets/",)),
        # A security question's answer in a JSON record ({"security_question": "...",
        # "answer": "Biscuit"}).
        _d("secret_assignment",
           r'(?i)(?:security|secret)[_ ]?question\\*"[ \t]*:[ \t]*\\*"[^"\n]{3,200}"[ \t]*,'
           r'[ \t]*\\*"answer\\*"[ \t]*:[ \t]*\\*"([^"\\\n]{2,60})\\*"', v.secret_value_ok,
           prefilter=r'(?i)(?:security|secret)[_ ]?question\\*"[ \t]*:[ \t]*\\*"[^"\n]{3,200}"'
                     r'[ \t]*,[ \t]*\\*"answer',
           group=1, needles=('answer',)),
    )


DETECTORS: tuple[Detector, ...] = (*_detectors_first(), *_detectors_second(),
                                   *_detectors_third(), *_carriers_and_home_labs(),
                                   *_central_asia_and_europe(), *_americas_and_the_east(),
                                   *_the_gulf_africa_and_the_north(),
                                   *_north_africa_the_levant_and_the_balkans(),
                                   *_lusophone_africa_india_caucasus_and_the_pacific(),
                                   *_asia_and_the_german_speaking_world(),
                                   *_health_money_and_north_east_asia())

KINDS: tuple[str, ...] = tuple(dict.fromkeys(d.kind for d in DETECTORS))
#: Kinds a policy must name to run: addresses of private networks fill operations text (pods,
#: services, nodes) and name no one outside the network.
OPT_IN_KINDS: frozenset[str] = frozenset({"ipv4_private", "ipv6_private"})
#: What runs when a policy names no ``detectors``.
DEFAULT_KINDS: tuple[str, ...] = tuple(k for k in KINDS if k not in OPT_IN_KINDS)
CHECKSUMMED_KINDS: frozenset[str] = frozenset(d.kind for d in DETECTORS if d.checksummed)
#: Which kind a text goes to where two kinds' findings overlap: the one earlier here (a
#: password's "pw@host" is no address, an IBAN's digits no phone). Listed apart from where the
#: detectors sit, so a detector added anywhere changes no precedence (it was once each kind's
#: last detector's place, and one new secret at the end handed URL passwords to the e-mail
#: detector); tests/redaction/test_corpus.py holds every kind to a place here.
KIND_PRECEDENCE: tuple[str, ...] = (
    "private_key", "jwt", "aws_access_key", "github_token", "api_key", "bearer_token",
    "secret_assignment", "email", "iban", "credit_card", "us_ssn", "national_id", "telecom_id",
    "ipv6",
    "ipv6_private",
    "ipv4_private", "ipv4", "phone")
_PRIORITY = {kind: i for i, kind in enumerate(KIND_PRECEDENCE)}
_PRIORITY.update({"!" + kind: i for kind, i in _PRIORITY.items()})
# One prefilter per detector subset (a policy may enable only some kinds).
_PREFILTERS: dict[tuple[int, ...], Prefilter] = {}
_PREFILTERS_LOCK = threading.Lock()


def prefilter_for(detectors: Sequence[Detector] = DETECTORS, engine: str | None = None
                  ) -> Prefilter:
    """The (cached) prefilter for ``detectors``; ``engine`` as in :func:`make_prefilter`."""
    key = (hash(engine), *map(id, detectors))
    found = _PREFILTERS.get(key)
    if found is None:
        with _PREFILTERS_LOCK:
            found = _PREFILTERS.get(key)
            if found is None:
                found = _PREFILTERS[key] = make_prefilter(detectors, engine, spoken.SIGNALS)
    return found


def scan(text: str, detectors: Sequence[Detector] = DETECTORS, *,
         prefilter: Prefilter | None = None) -> list[Finding]:
    """Non-overlapping findings in ``text``, in text order (earlier detectors win overlaps).

    ``prefilter`` must have been made for ``detectors`` (default: the cached one)."""
    if not isinstance(detectors, tuple):
        detectors = tuple(detectors)
    pf = prefilter if prefilter is not None else prefilter_for(detectors)
    found: list[Finding] = []
    memo: dict[str, Any] = {}  # what the start bounds found in this text, shared
    candidates, _, starts, _ = pf.plan(text)
    for i in candidates:
        positions = start_positions(detectors[i], i, text, starts)
        if positions is not None:
            found.extend(detectors[i].find_at(text, positions))
        else:
            found.extend(detectors[i]._find(text, memo=memo))
    return resolve(found)


def resolve(found: list[Finding]) -> list[Finding]:
    """Overlaps go to the earlier detector; blockers (``!kind``) are removed last."""
    if not found:
        return found
    if len(found) == 1:
        return [] if found[0].kind[0] == "!" else found
    found.sort(key=_by_priority)
    kept: list[Finding] = []
    grown = False
    for f in found:
        start, end = f.start, f.end
        for i, k in enumerate(kept):
            if start < k.end and k.start < end:
                # A blocker keeps fragments of its span out, not a value that is exactly
                # that span (13 digits that fail the card checksum after "to=" in an SMS link)
                # nor one that holds all of it (a CBU's 14-digit block, which reads as a card
                # that needs its name beside it: the account's 22 digits are one value)
                if (k.kind[0] == "!" and start <= k.start and k.end <= end and f.kind[0] != "!"
                        and not any(start < o.end and o.start < end for o in kept[i + 1:])):
                    kept[i] = f
                # Two secrets that overlap are one: the earlier detector's kind over both
                # spans ("Bearer ya29.<part>.<part>": the vendor's prefix reads one part, the
                # header all of them), so no part of either is left behind.
                elif (k.kind in _SECRET_KINDS and f.kind in _SECRET_KINDS
                      and (start < k.start or end > k.end)):
                    kept[i] = _union(k, f)
                    grown = True
                break
        else:
            kept.append(f)
    kept = [f for f in kept if f.kind[0] != "!"]
    if len(kept) > 1:
        kept.sort(key=_by_start)
        if grown:
            kept = _merge_overlaps(kept)
    return kept


#: Kinds that are credentials: where two overlap, both spans go.
_SECRET_KINDS = frozenset({"private_key", "jwt", "aws_access_key", "github_token", "api_key",
                           "secret_assignment", "bearer_token"})


def _union(first: Finding, other: Finding) -> Finding:
    """``first`` (its kind) over its span and ``other``'s, which overlap: both values are
    slices of one text, so the union's is their parts put together."""
    value = first.value
    if other.start < first.start:
        value = other.value[:first.start - other.start] + value
    if other.end > first.end:
        value += other.value[len(other.value) - (other.end - first.end):]
    return _new(Finding, (first.kind, min(first.start, other.start),
                          max(first.end, other.end), value))


def _merge_overlaps(ordered: list[Finding]) -> list[Finding]:
    """Findings by start with no two overlapping: a union grown over a neighbour takes it in
    (the higher priority's kind)."""
    merged = [ordered[0]]
    for f in ordered[1:]:
        last = merged[-1]
        if f.start < last.end:
            first, other = (last, f) if _PRIORITY[last.kind] <= _PRIORITY[f.kind] else (f, last)
            merged[-1] = _union(first, other)
        else:
            merged.append(f)
    return merged


def _by_priority(f: Finding) -> tuple[int, int]:
    return _PRIORITY[f.kind], f.start - f.end


def _by_start(f: Finding) -> int:
    return f.start
