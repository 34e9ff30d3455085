"""Detectors for structured PII and secrets: a pattern finds candidates, a validator decides.

Each detector names one ``kind`` (the label value of ``servescope_redactions_total{kind}``).
Patterns are anchored on what surrounds a value, not only on its shape: a digit run glued to
letters, dots or dashes is part of an identifier (a trace id, a UUID, a digest, a version
string), never a card or a phone number. Overlaps go to the detector listed first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from . import validators as v

__all__ = ["CHECKSUMMED_KINDS", "DETECTORS", "KINDS", "Detector", "Finding", "scan"]

# A number starts where no identifier character precedes it and ends where none follows.
_L = r"(?<![\w.+-])"
_R = r"(?![\w+-]|\.\d)"


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

    def applies(self, text: str) -> bool:
        """False means the pattern cannot match ``text``."""
        for gate in self.gates:  # noqa: SIM110  (a plain loop: no generator on the hot path)
            if gate.search(text) is None:
                return False
        return True

    def find(self, text: str) -> Iterable[Finding]:
        """Findings, and for a checksummed kind also *blockers* (kind ``!kind``): candidates
        that have the shape but fail the checksum, so no lower-priority detector reports a
        fragment of them (a phone number inside an invalid IBAN)."""
        if not self.applies(text):
            return
        yield from self._find(text)

    def _find(self, text: str) -> Iterable[Finding]:
        for match in self.pattern.finditer(text):
            start, end = match.span(self.group)
            if start < 0:
                continue
            value = text[start:end]
            if self.prefix is not None:
                length = self.prefix(value)
                if length is not None:
                    yield Finding(self.kind, start, start + length, value[:length])
                    continue
            elif self.validator is None or self.validator(value):
                yield Finding(self.kind, start, end, value)
                continue
            if self.checksummed:
                yield Finding("!" + self.kind, start, end, value)


@dataclass(frozen=True, slots=True)
class Finding:
    kind: str
    start: int
    end: int
    value: str


_DIGIT = re.compile(r"\d")


def _d(kind: str, pattern: str, validator: Callable[[str], bool] | None = None, *,
       group: int = 0, needles: tuple[str, ...] = (), checksummed: bool = False,
       prefix: Callable[[str], int | None] | None = None, digits: bool = False) -> Detector:
    gates: tuple[re.Pattern[str], ...] = ()
    if needles:
        gates = (re.compile("|".join(re.escape(n) for n in needles)),)
    if digits:
        gates += (_DIGIT,)
    return Detector(kind, re.compile(pattern), validator, group, gates, checksummed, prefix)


# Only the value is redacted, so the match may start at the keyword inside a longer key
# (db_password, x-api-key); a bare "key" must start a word or follow a separator (not monkey).
_SECRET_WORDS = (r"api[_-]?key|apikey|secret|token|passw(?:or)?d|pwd|credentials?|"
                 r"auth[_-]?key|access[_-]?key|private[_-]?key|client[_-]?secret|"
                 r"(?<![a-z0-9])key")
_VALUE_STOP = r"\s\"',;&<>"

#: In priority order: when two findings overlap, the one listed first wins.
DETECTORS: tuple[Detector, ...] = (
    _d("private_key",
       r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
       r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
       needles=("PRIVATE KEY",)),
    _d("jwt", r"(?<![\w-])eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*",
       v.jwt_ok, needles=("eyJ",)),
    _d("aws_access_key",
       r"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)"
       r"[A-Z2-7]{16}(?![A-Za-z0-9])",
       needles=("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA",
                "APKA")),
    _d("github_token",
       r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,255})"
       r"(?![A-Za-z0-9_])", needles=("gh", "github_pat_")),
    _d("api_key",
       r"(?<![\w-])(?:(?:sk|rk)[-_](?:live_|test_|proj-|svcacct-|ant-api03-|ant-)?"
       r"[A-Za-z0-9_-]{20,}|xox[abposr]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35})(?![\w-])",
       needles=("sk-", "sk_", "rk-", "rk_", "xox", "AIza")),
    _d("bearer_token", r"\b(?:[Bb]earer|BEARER|[Bb]asic|BASIC)\s+([A-Za-z0-9._~+/-]{16,}=*)",
       group=1, needles=("earer", "EARER", "asic", "ASIC")),
    _d("secret_assignment",
       rf"(?i)(?:{_SECRET_WORDS})[\w.-]*[\"']?\s*[:=]\s*[\"']?"
       rf"((?=[^{_VALUE_STOP}]*[^{_VALUE_STOP}\d.])[^{_VALUE_STOP}]{{6,}})",
       group=1, needles=("=", ":")),
    _d("email",
       r"(?<![\w.+%-])[A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+"
       r"[A-Za-z]{2,24}(?![\w-])", needles=("@",)),
    _d("iban", r"(?<!\w)[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?(?!\w)",
       v.iban_ok, checksummed=True, prefix=v.iban_prefix, digits=True),
    _d("credit_card",
       _L + r"(?:\d{13,19}|\d{4}([ -])\d{4}\1\d{4}\1\d{1,4}(?:\1\d{1,3})?|\d{4}([ -])\d{6}\2"
       r"\d{4,5})" + _R, v.payment_card_ok, checksummed=True, digits=True),
    _d("us_ssn", _L + r"\d{3}([- ])\d{2}\1\d{4}" + _R, v.ssn_ok, digits=True),
    _d("ipv6",
       r"(?<![\w:.])(?:[0-9A-Fa-f]{1,4}|:)[0-9A-Fa-f:.]{1,43}(?:[0-9A-Fa-f]|::)(?:%[\w.]+)?"
       r"(?![\w:])", v.ipv6_ok, needles=(":",)),
    _d("ipv4", r"(?<![\w.-])(?:\d{1,3}\.){3}\d{1,3}(?![\w-]|\.\w)", v.ipv4_ok,
       needles=(".",), digits=True),
    _d("phone", r"(?<![\w+])\+\d[\d .()-]{6,20}\d(?![\w-]|\.\d)", v.phone_digits_ok,
       needles=("+",)),
    _d("phone", _L + r"(?:1[ .-]?)?(?:\(\d{3}\) ?|\d{3}[ .-])\d{3}[ .-]\d{4}" + _R, v.nanp_ok,
       digits=True),
    _d("phone", _L + r"(?:0\d{1,4}[ -]\d{3,4}[ -]?\d{3,4}|0[1-9](?:[ .]\d{2}){4})" + _R,
       lambda s: 10 <= sum(c.isdigit() for c in s) <= 11, needles=("0",)),
)

KINDS: tuple[str, ...] = tuple(dict.fromkeys(d.kind for d in DETECTORS))


def _trigger(detectors: Iterable[Detector]) -> re.Pattern[str]:
    """One regex that matches wherever any detector's pre-checks pass: most attribute values
    (model names, methods, paths, enums) fail it and skip every detector at once."""
    parts: set[str] = set()
    for d in detectors:
        if not d.gates:
            raise AssertionError(f"detector {d.kind} has no pre-check")
        parts.add(d.gates[0].pattern)  # any one necessary condition will do
    return re.compile("|".join(sorted(parts)))


_TRIGGER = _trigger(DETECTORS)
_DEFAULT = frozenset(id(d) for d in DETECTORS)
CHECKSUMMED_KINDS: frozenset[str] = frozenset(d.kind for d in DETECTORS if d.checksummed)
_PRIORITY = {d.kind: i for i, d in enumerate(DETECTORS)}
_PRIORITY.update({"!" + kind: i for kind, i in _PRIORITY.items()})


def scan(text: str, detectors: Iterable[Detector] = DETECTORS) -> list[Finding]:
    """Non-overlapping findings in ``text``, in text order (earlier detectors win overlaps)."""
    detectors = tuple(detectors)
    if _TRIGGER.search(text) is None and all(id(d) in _DEFAULT for d in detectors):
        return []
    found: list[Finding] = []
    for detector in detectors:
        if detector.applies(text):
            found.extend(detector._find(text))
    if len(found) < 2:
        return [f for f in found if not f.kind.startswith("!")]
    found.sort(key=lambda f: (_PRIORITY[f.kind], f.start - f.end))
    kept: list[Finding] = []
    for f in found:
        if all(f.end <= k.start or f.start >= k.end for k in kept):
            kept.append(f)
    return sorted((f for f in kept if not f.kind.startswith("!")), key=lambda f: f.start)
