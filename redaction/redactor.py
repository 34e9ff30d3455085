"""The redaction engine: one policy applied to strings, attribute maps and free text.

Every method takes a ``counts`` mapping that it increments by kind, so a caller can put a
summary on the span and feed the metrics counter. Besides the detector kinds, two kinds count
values removed by key: ``blocked_key`` (the policy drops the key, or the key itself carries a
detected value) and ``content`` (GenAI content while capture is off).
"""

from __future__ import annotations

import bisect
import hmac
import logging
import os
import re
from collections.abc import Iterable, Iterator, Mapping, MutableMapping, Sequence, Set
from enum import Enum, StrEnum
from typing import Any

from .decoding import (
    FULLWIDTH,
    base64_tokens,
    has_ascii_twins,
    map_back,
    needs_view,
    percent_view,
    qp_view,
    spaced_view,
    unicode_view,
)
from .detectors import DETECTORS, Detector, Finding, prefilter_for
from .dialogue import dialogue_findings
from .hl7 import hl7_findings
from .joined import scan_plain
from .policy import Action, Policy
from .prefilter import Prefilter
from .spoken import SPACED, read_spoken
from .tables import table_findings

__all__ = ["BLOCKED_KEY", "CONTENT", "FAILED", "IDENTITY", "MODEL", "Place", "Redactor"]

BLOCKED_KEY = "blocked_key"
CONTENT = "content"
#: Values replaced by a keyed hash because of their key (tenant, end-user, customer ids).
IDENTITY = "identity"
#: Model or adapter names the deployment does not serve, replaced by a keyed hash.
MODEL = "model"
#: Strings a detector failed on: dropped (or blanked in free text), never passed through.
FAILED = "redaction_failed"
_log = logging.getLogger("servescope.redaction")
# Scan a little past a size limit, so a value cut at the limit is never half a secret.
_SCAN_MARGIN = 256
_TRUNCATED = "…[truncated]"
_CACHE_MAX = 4096
# Values that repeat across spans (span names, paths, user agents) are scanned once: short
# strings found clean are remembered (only clean ones, so no secret is kept in memory).
_CLEAN_MAX_CHARS = 256
# Model names repeat on every span: each distinct one is hashed once. Bounded like the other
# caches; what it holds (names and their hashes) is what every span of the batch carries anyway.
_MODELS_MAX = 256


# The hash key variables already warned about (unset, or set too short) in this process.
_WARNED: set[str] = set()
#: A hash key shorter than this is warned about (HMAC-SHA256's own block is 64 bytes; 16
#: random bytes are past any dictionary).
_SHORT_KEY_BYTES = 16
# "[REDACTED:kind]" by kind, made once.
_MASKS: dict[str, str] = {}


def _mask(kind: str) -> str:
    if len(_MASKS) < 1024:  # kinds are few; a bound all the same
        _MASKS[kind] = f"[REDACTED:{kind}]"
    return f"[REDACTED:{kind}]"


class Place(StrEnum):
    """Where attributes live; GenAI content capture modes depend on it."""

    SPAN = "span"
    EVENT = "event"
    LINK = "link"
    RESOURCE = "resource"
    LOG = "log"


class _Key(Enum):
    ALLOW = 0
    DROP = 1
    SCAN = 2
    CONTENT = 3
    HASH = 4
    MODEL = 5


Counts = MutableMapping[str, int]


class _Dropped:
    """Marks a value whose attribute must be removed (action ``drop``)."""


_DROPPED = _Dropped()


#: How deep nested mappings are kept as mappings; below, a mapping is read as its text.
_MAX_DEPTH = 8
_UNRENDERABLE = "unrenderable"


def _kind(value: Any) -> type:
    """A value's type, an array's as one kind whether it came as a list or a tuple (a nested
    array comes back from the redaction a tuple: it stays an array)."""
    return tuple if isinstance(value, list) else type(value)


def _bounded(value: Mapping[Any, Any], depth: int) -> dict[str, Any]:
    """A copy of ``value`` with string keys, its nested mappings copied down to ``depth``
    levels and rendered as text below (a cycle ends there too)."""
    return {str(k): (_bounded(v, depth - 1) if depth > 1 else str(v))
            if isinstance(v, Mapping) else v for k, v in value.items()}


# A lower-case letter or digit before a capital, or a run of capitals before a capital
# and a lower-case letter: where a camelCase key's words meet (userId, TenantName, APIKeyId).
_CAMEL_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def _snake(key: str) -> str:
    """A camelCase key's words joined by "_" and lowered (UserID -> user_id)."""
    return _CAMEL_HUMP.sub("_", key).lower()


def _merge(text: str, found: list[Finding], extra: list[Finding]) -> list[Finding]:
    """``found`` with ``extra`` added; overlapping findings become one span covering both (the
    earlier one's kind), so nothing either found is left behind."""
    merged: list[Finding] = []
    for f in sorted(found + extra, key=lambda f: (f.start, -f.end)):
        if merged and f.start < merged[-1].end:
            last = merged[-1]
            if f.end > last.end:
                merged[-1] = Finding._make((last.kind, last.start, f.end, text[last.start:f.end]))
            continue
        merged.append(f)
    return merged


def scan_joined(text: str, detectors: Sequence[Detector] = DETECTORS, *,
                prefilter: Prefilter | None = None) -> list[Finding]:
    """Findings in ``text`` and in what it decodes to: percent-encoding (one or two levels)
    and base64 tokens in URLs. A value found in a decoded view is reported as the encoded
    span it came from."""
    if not isinstance(detectors, tuple):
        detectors = tuple(detectors)
    if prefilter is None:
        prefilter = prefilter_for(detectors)
    plan, signals = prefilter.plan_signals(text)  # (one engine pass: the spoken gate's too)
    found = scan_plain(text, detectors, prefilter, plan)
    extra: list[Finding] = []
    if "%" in text:
        # Only the words that hold an encoded run are decoded and scanned again: an encoded
        # value never spans a raw space (a space in it is %20).
        for word in _encoded_words(text):
            extra += _decoded_findings(word.group(), word.start(), detectors, prefilter)
    if "+" in text and "=" in text:
        extra += _form_value_findings(text, detectors, prefilter)
    view = unicode_view(text) if needs_view(text) else None
    if view is not None:
        extra += _view_findings(text, *view, detectors, prefilter)
    elif has_ascii_twins(text):
        extra += _view_findings(text, text, range(len(text)), range(1, len(text) + 1),
                                detectors, prefilter)
    qp = qp_view(text)
    if qp is not None:
        extra += _view_findings(text, *qp, detectors, prefilter)
    spelled = spaced_view(text) if signals & SPACED else None
    if spelled is not None:
        extra += _view_findings(text, *spelled, detectors, prefilter)
    spoken, said = read_spoken(text, signals) if signals else (None, [])
    if spoken is not None:
        extra += _view_findings(text, *spoken, detectors, prefilter)
    if said:
        kinds = {d.kind for d in detectors}
        extra += [Finding(kind, start, end, text[start:end]) for kind, start, end in said
                  if kind in kinds]
    for start, end, plain in base64_tokens(text, found):
        inside = scan_plain(plain, detectors, prefilter)
        kind = inside[0].kind if inside else _encoded_number_kind(plain, detectors)
        if kind is not None:
            extra.append(Finding(kind, start, end, text[start:end]))
    # (values told by where they stand: a table's column, a segment's field, a reply's question)
    by_structure = table_findings(text)
    if "|" in text:  # an HL7 v2 message's segments
        by_structure += hl7_findings(text)
    if "\n" in text:  # a conversation's replies
        by_structure += dialogue_findings(text)
    if by_structure:  # (rare: the kinds are gathered only then)
        kinds = {d.kind for d in detectors}
        extra += [f for f in by_structure if f.kind in kinds]
    found = _merge(text, found, extra) if extra else found
    return _with_repeats(text, found) if found else found


# A value found once is redacted wherever else the text holds it: an ORM's log prints the
# query (where the value sits under its column's name) and then its parameters bare
# ("... session_key = 'X' ... args=('X',)"), an e-mail its code in the subject and then
# alone in the body ("L5D-2J9"). Shorter values than this may be common words.
_REPEAT_MIN = 7


def _with_repeats(text: str, found: list[Finding]) -> list[Finding]:
    """``found`` (apart, in text order) with each value's other places in ``text`` added.
    Each value is looked for once, and a place is checked against what is taken by bisection:
    a line of 800 "password= " (each one's value the next key) took seconds here, cubic in
    the line, when every place was checked against every finding."""
    extra: list[Finding] = []
    taken = sorted((f.start, f.end) for f in found)  # apart, so neighbours tell an overlap
    past = len(text) + 1  # (at, past) sorts after every span starting at ``at``
    seen: set[str] = set()
    for f, value in _repeated_values(found):
        if len(value) < _REPEAT_MIN or value in seen:
            continue
        seen.add(value)
        at = text.find(value)
        while at >= 0:
            end = at + len(value)
            i = bisect.bisect_right(taken, (at, past))
            free = (i == 0 or taken[i - 1][1] <= at) and (i == len(taken) or taken[i][0] >= end)
            if free and not _inside_a_word(text, at, end):
                extra.append(Finding(f.kind, at, end, value))
                taken.insert(i, (at, end))
            at = text.find(value, end)
    return _merge(text, found, extra) if extra else found


def _repeated_values(found: list[Finding]) -> Iterator[tuple[Finding, str]]:
    """Each finding and the value to look for elsewhere: its own, unquoted (a quoted value,
    printed bare elsewhere: nxc's "[+] d\\u:pw"); and for a passport's machine-readable
    line, its document's number too, which a reader's parsed fields print again
    ("document_number: 292701895")."""
    for f in found:
        value = f.value
        if len(value) > 2 and value[0] == value[-1] and value[0] in "'\"`":
            value = value[1:-1]
        yield f, value
        if f.kind == "national_id" and len(value) == 28 and _MRZ_LINE.fullmatch(value):
            yield f, value[:9].rstrip("<")


# A passport's machine-readable zone, its second line's first 28 characters.
_MRZ_LINE = re.compile(r"[A-Z0-9<]{9}\d[A-Z<]{3}\d{7}[MFX<]\d{7}")


def _inside_a_word(text: str, start: int, end: int) -> bool:
    """The text there is part of a longer word: a password "postgres" is not repeated in the
    scheme "postgresql://"."""
    return ((start > 0 and text[start - 1].isalnum() and text[start].isalnum())
            or (end < len(text) and text[end].isalnum() and text[end - 1].isalnum()))


# A form's value with its spaces written "+" and nothing percent-encoded (the percent reading
# takes those): "Body=Your+login+code+is+487174". Three words at least, the first of letters
# (a base64 value's "+" joins no words).
_FORM_VALUE = re.compile(r"(?<==)(?:[A-Za-z][A-Za-z'’-]*(?:\+[^\s&=+%]+){2,}"
                         # (and groups of digits, or an IBAN's: "telefoon=947+49+40+25",
                         # "iban=DE53+6004+1490+...")
                         r"|[A-Z]{2}\d{2}(?:\+[A-Z0-9]{1,4}){3,}|\d{2,4}(?:\+\d{2,4}){2,})")


def _form_value_findings(text: str, detectors: tuple[Detector, ...],
                         prefilter: Prefilter) -> list[Finding]:
    """Findings in each form value of ``text`` read with its "+" as spaces (one character for
    one: the spans hold)."""
    out: list[Finding] = []
    for value in _FORM_VALUE.finditer(text):
        offset = value.start()
        for f in scan_plain(value.group().replace("+", " "), detectors, prefilter):
            out.append(Finding(f.kind, offset + f.start, offset + f.end,
                               text[offset + f.start:offset + f.end]))
    return out


# An encoded word starts at a word start or right after a '%' (where a failed try at the word
# start resumes): the look-behind keeps the engine from retrying at every character of a long
# word, which made this search quadratic in the word's length.
_ENCODED_WORD = re.compile(r"(?<![^\s%])[^\s%]*(?:%[0-9A-Fa-f]{2}[^\s%]*)+")


def _encoded_words(text: str) -> Iterator[re.Match[str]]:
    """The matches of ``_ENCODED_WORD``. Each holds a "%" and no space, so the search starts
    at the word that holds the next "%" (found with ``str.find``): the engine, which pays for
    every position it tries, skips the prose between."""
    floor = 0  # where the last word ended: the next one starts at or after it
    pct = text.find("%")
    while pct >= 0:
        head = text[floor:pct]
        start = pct if not head or head[-1].isspace() else pct - len(head.rsplit(None, 1)[-1])
        word = _ENCODED_WORD.search(text, start)
        if word is None:
            return
        yield word
        floor = word.end()
        pct = text.find("%", floor)


# What a base64 token decodes to when it is a number alone: a phone number (country code
# first) or an id someone encoded ("csid_b64=NDkxNzQ0MTA0NjU0Nw==" is "4917441046547", a
# portal's "?rc=MDMwNTE3OTQxMw==" a birth number). Nobody base64-encodes a count.
_ENCODED_NUMBER = re.compile(r"\+?\d{9,15}")


def _encoded_number_kind(plain: str, detectors: tuple[Detector, ...]) -> str | None:
    """The kind a base64 token that decodes to ``plain`` is redacted as when ``plain`` is a
    number of 9 to 15 digits (not one digit repeated), or None."""
    if _ENCODED_NUMBER.fullmatch(plain) is None or len(set(plain.lstrip("+"))) == 1:
        return None
    kind = "phone" if plain[0] == "+" or (len(plain) >= 10 and plain[0] != "0") else "national_id"
    return kind if any(d.kind == kind for d in detectors) else None


def _decoded_findings(text: str, offset: int, detectors: tuple[Detector, ...],
                      prefilter: Prefilter) -> list[Finding]:
    """Findings in what ``text`` percent-decodes to and in the base64 tokens of its URLs, as
    spans of ``text`` shifted by ``offset``."""
    out: list[Finding] = []
    # a form's or a query's value: "+" is a space there ("phone=%2B1+%28764%29+555-3972",
    # "iban=PL03+7153+..."); one character for one, so the spans hold
    text_read = text.replace("+", " ") if "+" in text and "=" in text else text
    decoded = percent_view(text_read)
    inner, views = decoded if decoded is not None else (text, [])
    if not views:
        return out
    # (bytes that are no UTF-8, "%DB_PASSWORD%", are no encoded text)
    found = [f for f in scan_plain(inner, detectors, prefilter) if "\ufffd" not in f.value]
    for f in found:
        start, end = map_back(views, f.start, f.end)
        out.append(Finding(f.kind, offset + start, offset + end, text[start:end]))
    # (a token inside a value found is redacted with it, as in the text itself: a SAS URL's
    # signature, decoded, is not decoded again)
    for start, end, plain in base64_tokens(inner, found):
        inside = scan_plain(plain, detectors, prefilter)
        if inside:
            start, end = map_back(views, start, end)
            out.append(Finding(inside[0].kind, offset + start, offset + end, text[start:end]))
    return out


def _view_findings(text: str, inner: str, starts: Sequence[int], ends: Sequence[int],
                   detectors: tuple[Detector, ...], prefilter: Prefilter) -> list[Finding]:
    """Findings in ``inner``, a reading of ``text`` whose character ``i`` is ``text``'s
    ``starts[i]`` to ``ends[i]`` (escapes decoded, break hints dropped), with other scripts'
    digits and typographic spaces read as ASCII, as spans and values of ``text``."""
    if has_ascii_twins(inner):
        inner = inner.translate(FULLWIDTH)  # one character for one: the map still holds
    out = []
    for f in scan_plain(inner, detectors, prefilter):
        if f.end > f.start:
            start, end = starts[f.start], ends[f.end - 1]
            out.append(Finding(f.kind, start, end, text[start:end]))
    return out


class Redactor:
    """Applies a :class:`Policy`. Thread-safe: the only shared state is a key cache whose
    entries are idempotent."""

    def __init__(self, policy: Policy | None = None, *, hash_key: bytes | None = None,
                 known_models: Iterable[str] = ()) -> None:
        self.policy = policy or Policy.default()
        self.known_models = self.policy.known_models | frozenset(known_models)
        self._detectors = tuple(d for d in DETECTORS if d.kind in self.policy.kinds)
        self._prefilter = prefilter_for(self._detectors)
        self._hash_key = hash_key if hash_key is not None else self._key_from_env()
        # The key's HMAC state, copied for each value (cheaper than keying a new one each time).
        self._hmac = hmac.new(self._hash_key, digestmod="sha256")
        self._keys: dict[str, _Key] = {}
        self._allowed: set[str] = set()  # the keys classified ALLOW, for a set difference
        self._clean: dict[str, None] = {}
        self._model_hashes: dict[str, str] = {}

    def _key_from_env(self) -> bytes:
        value = os.environ.get(self.policy.hash_key_env)
        if value:
            key = value.encode("utf-8")
            short = f"{self.policy.hash_key_env} (short)"
            if len(key) < _SHORT_KEY_BYTES and short not in _WARNED:
                _WARNED.add(short)
                _log.warning("%s holds %d bytes: a key that short can be guessed, and with it "
                             "every keyed hash reversed by a dictionary; use %d random bytes "
                             "or more (e.g. openssl rand -hex 32)", self.policy.hash_key_env,
                             len(key), _SHORT_KEY_BYTES)
            return key
        # Without a configured key, a random per-process key keeps hashes irreversible (a
        # fixed default key would allow a dictionary attack); they correlate within a process.
        if any(a is Action.HASH for a in (*self.policy.actions.values(),
                                          self.policy.default_action)) \
                and self.policy.hash_key_env not in _WARNED:
            _WARNED.add(self.policy.hash_key_env)  # once per process, not per redactor
            _log.warning("%s is not set: keyed hashes correlate within this process only",
                         self.policy.hash_key_env)
        return os.urandom(32)

    # --- strings ------------------------------------------------------------------------
    def findings(self, text: str) -> list[Finding]:
        return scan_joined(text, self._detectors, prefilter=self._prefilter)

    def redact_text(self, text: str, counts: Counts, *, limit: int | None = None) -> str:
        """``text`` with every finding replaced (``drop`` masks inside free text). Free text
        (a log message, a prompt, a pasted span) is cut at ``limit`` characters, by default
        the policy's ``max_content_chars``."""
        if limit is None:
            limit = self.policy.max_content_chars
        return self._redact_str(text, counts, limit, in_text=True)  # type: ignore[return-value]

    def _redact_str(self, text: str, counts: Counts, limit: int | None,
                    in_text: bool) -> str | _Dropped:
        if text in self._clean:
            return text
        cap = self.policy.max_value_chars if limit is None else limit
        truncated = len(text) > cap
        if truncated:
            text = text[:cap + _SCAN_MARGIN]
        try:
            found = self.findings(text)
        except Exception:  # a detector that throws: the string never leaves as it was
            counts[FAILED] = counts.get(FAILED, 0) + 1
            _log.exception("a detector failed on a %d-character string; it is dropped",
                           len(text))
            return f"[REDACTED:{FAILED}]" if in_text else _DROPPED
        if not found and len(text) <= _CLEAN_MAX_CHARS and len(text) <= cap:
            if len(self._clean) >= _CACHE_MAX:
                self._clean.clear()
            self._clean[text] = None
        if found:
            actions, default = self.policy.actions, self.policy.default_action
            parts: list[str] = []
            pos = 0
            for n, f in enumerate(found):
                kind = f.kind
                counts[kind] = counts.get(kind, 0) + 1
                action = actions.get(kind, default)
                if action is Action.HASH:
                    replacement = self._keyed_hash(kind, f.value)
                elif action is Action.DROP and not in_text:
                    for g in found[n + 1:]:
                        counts[g.kind] = counts.get(g.kind, 0) + 1
                    return _DROPPED
                else:
                    replacement = _MASKS.get(kind) or _mask(kind)
                parts.append(text[pos:f.start])
                parts.append(replacement)
                pos = f.end
            parts.append(text[pos:])
            text = "".join(parts)
        if truncated:
            text = text[:cap] + _TRUNCATED
        return text


    def _keyed_hash(self, kind: str, value: str) -> str:
        digest = self._hmac.copy()
        digest.update(value.encode("utf-8"))
        return f"[{kind}:{digest.hexdigest()[:self.policy.hash_hex_chars]}]"

    def _identity(self, value: Any, counts: Counts) -> Any:
        """A tenant, user or customer id: the same id always gives the same hash (a
        deployment's key), so per-tenant debugging still works; numbers and bools too."""
        counts[IDENTITY] = counts.get(IDENTITY, 0) + 1
        if isinstance(value, Sequence) and not isinstance(value, str | bytes | bytearray):
            return tuple(self._keyed_hash(IDENTITY, str(v)) for v in value)
        return self._keyed_hash(IDENTITY, str(value))

    # --- attribute values -----------------------------------------------------------------
    def _value(self, value: Any, counts: Counts, limit: int) -> Any:
        if isinstance(value, str):
            return self._redact_str(value, counts, limit, in_text=False)
        if isinstance(value, (bool, float)):
            return value
        if isinstance(value, int):
            # Long integers can be card or phone numbers stored as numbers.
            if abs(value) < 1_000_000:
                return value
            text = str(value)
            out = self._redact_str(text, counts, limit, in_text=False)
            return value if out == text else out
        if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
            return self._sequence(value, counts, limit)
        if isinstance(value, bytes | bytearray):
            return self._redact_str(bytes(value).decode("utf-8", "replace"), counts, limit,
                                    in_text=False)
        if value is None:
            return value
        # Span attributes are never these (the SDK allows scalars and their arrays); a log
        # record's ``extra`` and a JSON line's fields are: a headers dict, a set of scopes.
        if isinstance(value, Mapping):
            return self._mapping(value, counts, limit)
        if isinstance(value, Set):
            return self._sequence(tuple(value), counts, limit)
        return self._rendered(value, counts, limit)

    def _mapping(self, value: Mapping[Any, Any], counts: Counts, limit: int) -> Any:
        """A nested mapping under the same key policy as the top level (a headers dict's
        ``authorization`` is a secret's key there too)."""
        return self.redact_attributes(_bounded(value, _MAX_DEPTH), counts, Place.LOG)

    def _rendered(self, value: Any, counts: Counts, limit: int) -> Any:
        """Any other object: what a formatter would print of it, redacted; the object itself
        when that text holds nothing (a formatter then prints the same)."""
        try:
            text = str(value)
        except Exception:  # a broken __str__: nothing of it can be shown safely
            counts[_UNRENDERABLE] = counts.get(_UNRENDERABLE, 0) + 1
            return "[REDACTED:unrenderable]"
        out = self._redact_str(text, counts, limit, in_text=False)
        return value if out == text else out

    def _sequence(self, values: Sequence[Any], counts: Counts, limit: int) -> Any:
        items = list(values[:self.policy.max_array_items])
        out = [self._value(item, counts, limit) for item in items]
        if any(item is _DROPPED for item in out):
            return _DROPPED
        if all(isinstance(item, str) for item in out) or all(
                _kind(a) is _kind(b) for a, b in zip(out, items, strict=True)):
            return tuple(out)
        # A homogeneous array stays homogeneous (an OTLP requirement): mixed types become str.
        return tuple(str(item) for item in out)

    # --- keys ---------------------------------------------------------------------------
    def _classify(self, key: str) -> _Key:
        cached = self._keys.get(key)
        if cached is not None:
            return cached
        p = self.policy
        # the patterns read a camelCase key as words too (tenantName as tenant_name)
        names = (key,) if _CAMEL_HUMP.search(key) is None else (key, _snake(key))

        def matched(patterns: Iterable[re.Pattern[str]]) -> bool:
            return any(r.search(name) for r in patterns for name in names)

        if self.findings(key):  # a key that itself carries a value (user.bob@example.com)
            decision = _Key.DROP
        elif key in p.content_keys:
            decision = _Key.CONTENT
        elif key in p.drop or matched(p.drop_patterns):
            decision = _Key.DROP
        elif key in p.hash_keys or matched(p.hash_key_patterns):
            decision = _Key.HASH
        elif key in p.model_keys:
            decision = _Key.MODEL
        elif key in p.allow or matched(p.allow_patterns):
            decision = _Key.ALLOW
        elif key in p.scan or matched(p.scan_patterns) or p.unknown == "scan":
            decision = _Key.SCAN
        else:
            decision = _Key.DROP
        if len(self._keys) < _CACHE_MAX:
            self._keys[key] = decision
            if decision is _Key.ALLOW:
                self._allowed.add(key)
        return decision

    def withholds(self, key: str) -> bool:
        """True when the policy drops or hashes values under ``key`` (its own value is then
        never exported as it was)."""
        decision = self._keys.get(key) or self._classify(key)
        return decision in (_Key.DROP, _Key.HASH)

    def add_known_models(self, names: Iterable[str]) -> None:
        """Serve these names too (setup_telemetry adds the model it was given)."""
        self.known_models = self.known_models | frozenset(names)

    def unknown_model(self, value: Any) -> bool:
        """True when ``value`` names a model this deployment does not serve and the policy
        hashes such names."""
        return self.policy.unknown_models == "hash" and value not in self.known_models

    def model_names(self, attributes: Mapping[str, Any] | None) -> list[tuple[str, str]]:
        """(name, its hash) for each unknown model name in ``attributes``: what a span name
        built from it ("chat lora-jane-doe") must not show either."""
        if not attributes:
            return []
        return [(value, self._model_hash(value)) for key in self.policy.model_keys
                if isinstance(value := attributes.get(key), str) and value
                and self.unknown_model(value)]

    def _model_hash(self, value: str) -> str:
        hashed = self._model_hashes.get(value)
        if hashed is None:
            if len(self._model_hashes) >= _MODELS_MAX:
                self._model_hashes.clear()
            hashed = self._model_hashes[value] = self._keyed_hash(MODEL, value)
        return hashed

    def _content_allowed(self, place: Place) -> bool:
        mode = self.policy.content_capture
        if place in (Place.SPAN, Place.LINK):
            return mode.on_spans
        if place in (Place.EVENT, Place.LOG):
            return mode.on_events
        return False

    def redact_attributes(self, attributes: Mapping[str, Any] | None, counts: Counts,
                          place: Place = Place.SPAN) -> dict[str, Any]:
        """A new attribute dict with the policy applied.

        Keys the policy allows (the values servescope itself sets: counts, durations,
        reasons, model, pool, ...) are copied as they are, in one C-level set difference;
        only the others are looked at, and only free text is scanned."""
        if not attributes:
            return {}
        out = dict(attributes)
        for key in out.keys() - self._allowed:
            decision = self._keys.get(key) or self._classify(key)
            if decision is _Key.ALLOW:
                continue
            if decision is _Key.DROP:
                counts[BLOCKED_KEY] = counts.get(BLOCKED_KEY, 0) + 1
                del out[key]
                continue
            if decision is _Key.HASH:
                out[key] = self._identity(out[key], counts)
                continue
            if decision is _Key.MODEL and self.unknown_model(out[key]):
                counts[MODEL] = counts.get(MODEL, 0) + 1
                out[key] = self._model_hash(str(out[key]))
                continue
            limit = self.policy.max_value_chars
            if decision is _Key.CONTENT:
                if not self._content_allowed(place):
                    counts[CONTENT] = counts.get(CONTENT, 0) + 1
                    del out[key]
                    continue
                limit = self.policy.max_content_chars
            redacted = self._value(out[key], counts, limit)
            if redacted is _DROPPED:
                del out[key]
            else:
                out[key] = redacted
        return out
