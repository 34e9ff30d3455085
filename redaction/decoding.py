"""Encoded views of a text, for the detectors: values that travel percent-encoded (paths,
query strings, ``baggage``) or base64-wrapped in a URL are scanned as what they decode to.

Each view carries a map back to the original text, so a finding in the decoded view redacts
the encoded span it came from (an encoded run is redacted whole: never half of ``%40``).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from .validators import b64_text

__all__ = [
    "BASE64_IN_URL",
    "FULLWIDTH",
    "PercentView",
    "base64_tokens",
    "has_ascii_twins",
    "map_back",
    "needs_view",
    "percent_view",
    "qp_view",
    "spaced_view",
    "splice",
    "unicode_view",
]

# %2540 is "%40" once decoded, "@" twice; a URL carried inside another URL's query adds a
# level. Each level costs a pass only where "%" is left.
_LEVELS = 3
#: A base64 or base64url token of at least 16 characters in a URL path segment or query value.
BASE64_IN_URL = re.compile(r"[=/]([A-Za-z0-9_+-]{16,}={0,2})(?![\w+=-])")


class PercentView:
    """A decoded text and, for its positions, where they came from in the original."""

    __slots__ = ("_segments", "_starts", "text")

    def __init__(self, text: str, starts: list[int],
                 segments: list[tuple[int, int, int, bool]]) -> None:
        self.text = text
        # Segments in decoded order: (decoded start, original start, original end, literal).
        # A literal segment maps position by position; an encoded run maps as a whole.
        self._starts = starts
        self._segments = segments

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original span that covers decoded ``[start, end)``."""
        return self._position(start, False), self._position(end - 1, True)

    def _position(self, pos: int, end: bool) -> int:
        i = bisect.bisect_right(self._starts, pos) - 1
        dec_start, orig_start, orig_end, literal = self._segments[i]
        if literal:
            return orig_start + (pos - dec_start) + (1 if end else 0)
        return orig_end if end else orig_start


def _decode_once(text: str) -> PercentView | None:
    """One level of percent-decoding. The text is split at its "%" characters in C (a regex
    over the escapes cost a match object each: a long encoded URL holds dozens); a piece
    that starts with two hex digits is an escape, and escapes in a row form one run."""
    if "%" not in text:
        return None
    pieces = text.split("%")
    starts: list[int] = []
    segments: list[tuple[int, int, int, bool]] = []
    parts: list[str] = []
    decoded = 0
    literal_from = 0  # where the pending literal text starts in the original
    run: list[str] = []  # the hex pairs of the pending run of escapes
    run_from = 0
    pos = len(pieces[0])  # where the "%" before the next piece is
    for piece in pieces[1:]:
        if len(piece) > 1 and piece[0] in _HEX and piece[1] in _HEX:
            if not run:  # a run starts here: the literal before it ends
                if pos > literal_from:
                    starts.append(decoded)
                    segments.append((decoded, literal_from, pos, True))
                    parts.append(text[literal_from:pos])
                    decoded += pos - literal_from
                run_from = pos
            run.append(piece[:2])
            literal_from = pos + 3
            if len(piece) > 2:  # text follows the escape: the run ends
                decoded = _end_run(run, run_from, literal_from, decoded, starts, segments, parts)
                run = []
        elif run:  # a "%" that starts no escape ends the run
            decoded = _end_run(run, run_from, pos, decoded, starts, segments, parts)
            run = []
        pos += 1 + len(piece)
    if run:
        decoded = _end_run(run, run_from, pos, decoded, starts, segments, parts)
    if not segments:
        return None
    if literal_from < len(text):
        starts.append(decoded)
        segments.append((decoded, literal_from, len(text), True))
        parts.append(text[literal_from:])
    return PercentView("".join(parts), starts, segments)


_HEX = frozenset("0123456789abcdefABCDEF")


def _end_run(run: list[str], start: int, end: int, decoded: int, starts: list[int],
             segments: list[tuple[int, int, int, bool]], parts: list[str]) -> int:
    """Appends the run of escapes ``run`` (hex pairs) spanning ``[start, end)`` of the
    original; returns the decoded length so far."""
    text = _decode_run(run)
    starts.append(decoded)
    segments.append((decoded, start, end, False))
    parts.append(text)
    return decoded + len(text)


def _decode_run(run: list[str]) -> str:
    """A run of escapes (their hex pairs) as the text its bytes hold (undecodable bytes as
    U+FFFD)."""
    if len(run) == 1:  # one escape: most often an ASCII character (%20, %2F, %40)
        code = int(run[0], 16)
        if code < 0x80:
            return chr(code)
    return bytes.fromhex("".join(run)).decode("utf-8", "replace")


def percent_view(text: str) -> tuple[str, list[PercentView]] | None:
    """The text percent-decoded (up to two levels) and the views to map back through, outermost
    first; None when nothing is encoded."""
    views: list[PercentView] = []
    current = text
    for _ in range(_LEVELS):
        view = _decode_once(current)
        if view is None:
            break
        views.append(view)
        current = view.text
    return (current, views) if views else None


def map_back(views: list[PercentView], start: int, end: int) -> tuple[int, int]:
    """A span of the innermost decoded text, as a span of the original."""
    for view in reversed(views):
        start, end = view.span(start, end)
    return start, end


# Base64 of a JSON object ('{"' encodes as "eyJ") anywhere: user-context headers and log
# fields carry them ("X-User-Ctx=eyJ..."). Not a JWT's segment (a dot before or after it).
BASE64_JSON = re.compile(r"(?<![A-Za-z0-9_+/.-])(eyJ[A-Za-z0-9_+/-]{16,}={0,2})"
                         r"(?![\w+/=-]|\.(?![\s'\")\]}]|$))")


# A long base64 token with mixed case and a digit (a hash is one case, a word has no digit):
# user-context headers and log fields carry "email|phone" encoded so. Found without a regex
# (one over the whole line costs more than the rest of the scan): base64 characters map to
# "x" and the rest to " " in one bytes.translate, and each run of 16 or more is one find.
# Not "-" and "_": ids and UUIDs are long runs with them (a base64url token with one of them
# in every 16 characters goes unread), and a run glued to one is part of an id.
_LONG_RUN = 16  # a phone number encoded ("+1 617-449-2527": 20 characters)
_B64_RUNS = bytes(ord("x") if chr(i).isascii() and (chr(i).isalnum() or chr(i) in "+/=")
                  else ord(" ") for i in range(256))
_RUN = b"x" * _LONG_RUN
_GLUE = frozenset("._-")


def _sentence_end(text: str, at: int) -> bool:
    """A full stop at ``at`` that ends a sentence (then a space or the end), not one inside
    an id."""
    return text[at] == "." and (at + 1 == len(text) or text[at + 1].isspace()
                                or text[at + 1] in "'\")]}")


def _long_base64(text: str) -> Iterator[tuple[int, int]]:
    mapped = text.encode("ascii", "replace").translate(_B64_RUNS)  # one byte per character
    at = mapped.find(_RUN)
    while at >= 0:
        end = mapped.find(b" ", at)
        end = len(text) if end < 0 else end
        # "=" is padding only at the end: one before it ends a key ("ref=S3Vy...")
        cut = text.rfind("=", at, end - 2)
        while cut > at and text[cut + 1] == "=":
            cut = text.rfind("=", at, cut)  # padding of the key's own value ("a==b")
        start = at if cut < 0 else cut + 1
        if start > 0 and text[start - 1] == "\\" and text[start] in "nrt":
            start += 1  # an escaped line break before it (a MIME body in a JSON string)
        if (end - start >= _LONG_RUN and (start == 0 or text[start - 1] not in _GLUE)
                and (end == len(text) or text[end] not in _GLUE or _sentence_end(text, end))):
            yield start, end
        at = mapped.find(_RUN, end)


# An address written as hex (a mail queue's rcpt_hex=..., a vector store's owner_hex=...):
# an even run of 16 or more hex digits (after "\x" or "0x" too: PostgreSQL's bytea literal,
# '\x6a6f...', as a statement log prints it).
_HEX_RUN = re.compile(r"(?:(?<![0-9A-Za-z])|(?<=\\x)|(?<=(?<![0-9A-Za-z])0x))"
                      r"(?:[0-9a-fA-F]{2}){8,160}(?![0-9A-Za-z])")


_HEX_MARKS = frozenset(("40", "2d", "2b"))  # "@", "-", "+" as hex


def _pairs(token: str) -> Iterator[str]:
    return (token[i:i + 2] for i in range(0, len(token), 2))


def _hex_text(token: str) -> str | None:
    """``token`` decoded from hex when it is printable ASCII holding an "@", a "-" or a "+"
    (an address, an SSN or a phone written as hex to slip past a filter), else None."""
    raw = bytes.fromhex(token)
    if (b"@" not in raw and b"-" not in raw and b"+" not in raw) or not all(
            0x20 < byte < 0x7F for byte in raw):
        return None
    return raw.decode("ascii")


def base64_tokens(text: str, covered: Sequence[tuple[Any, int, int, Any]] = ()
                  ) -> Iterator[tuple[int, int, str]]:
    """(start, end, decoded text) of each base64 token in a URL, of each base64 JSON object,
    and of each long mixed-case base64 token anywhere, that decodes to printable text; and of
    each run of hex digits that decodes to printable ASCII holding an "@" (an address written
    as hex). A token
    inside a span of ``covered`` (findings: kind, start, end, value) is not decoded: it is
    redacted already (most long tokens in secret-heavy text are the secrets themselves)."""
    def fresh(start: int, end: int) -> bool:
        return not any(f[1] <= start and end <= f[2] for f in covered)

    if "eyJ" in text:
        for match in BASE64_JSON.finditer(text):
            if fresh(*match.span(1)) and (decoded := b64_text(match.group(1))) is not None:
                yield match.start(1), match.end(1), decoded
    for start, end in _long_base64(text):
        token = text[start:end]
        if token.startswith("eyJ") or token.islower() or token.isupper():
            continue  # JSON (above), a hash, a constant
        if fresh(start, end) and (decoded := _decoded(token)) is not None:
            yield start, end, decoded
    # (an address written as hex holds "@", 0x40; an SSN "-", 0x2d; a phone "+", 0x2b)
    if "40" in text or "2d" in text or "2b" in text or "2D" in text or "2B" in text:
        for match in _HEX_RUN.finditer(text):
            token = match.group()
            # (the byte it must hold is in the token: most hex runs are digests, not decoded)
            if (_HEX_MARKS.intersection(_pairs(token.lower())) and fresh(*match.span())
                    and (decoded := _hex_text(token))):
                yield match.start(), match.end(), decoded
    if ("://" not in text and "?" not in text) or ("=" not in text and "/" not in text):
        return  # (a question in prose is no query: a token in one follows "=" or "/")
    for match in BASE64_IN_URL.finditer(text):
        token = match.group(1)
        if token.isdigit() or token.islower():
            continue  # a number or a lower-case path segment: not base64
        if fresh(*match.span(1)) and (decoded := _decoded(token)) is not None:
            yield match.start(1), match.end(1), decoded


def _decoded(token: str) -> str | None:
    """``token``'s text, six characters or more, when it decodes to one. A token of letters
    alone is a word (CamelCase) unless what it decodes to holds a digit or an "@": a number
    encodes to letters as often as not ("+2348120050105" is "KzIzNDgxMjAwNTAxMDU")."""
    decoded = b64_text(token)
    if decoded is None or len(decoded) < 6:
        return None
    if token.isalpha() and "@" not in decoded and not any(ch.isdigit() for ch in decoded):
        return None
    return decoded


# JSON's \uXXXX escapes: Python's json.dumps writes every non-ASCII character so by default
# (ensure_ascii), so a prompt in Japanese reaches a log line as "\u30d1\u30b9\u30ef...". Any
# run of backslashes may lead the u: an escape escaped again (JSON inside a JSON string).
# HTML's numeric entities too ("jo&#64;mail&#46;example", "&#x40;"), as pages and templates
# obfuscate addresses, and "&nbsp;". And what hides a value from a pattern without changing
# what it says: zero-width characters and soft hyphens that copy-paste leaves inside it,
# HTML's <wbr> and &shy; (break hints), and inline tags around or inside it
# (<b>, <code>, <span class="mono">; not one with other attributes, which may hold a value
# themselves: data-contact="..."): read as nothing, and a cell's or a block's edge as a space.
_U_ESCAPE = re.compile(
    r"\\+u([0-9A-Fa-f]{4})|&#(?:[xX]([0-9A-Fa-f]{1,6})|(\d{1,7}));|(&nbsp;)"
    r"|&shy;|&ZeroWidthSpace;|<wbr\s*/?>|[\u200b\u200c\u200d\u2060\ufeff\u00ad]"
    r"|</?(?:b|strong|i|em|code|span|mark|u|s|kbd|samp|tt|font|small|big"
    r"|(td|th|li|p|div|br|tr))(?:\s+(?:class|style|id|lang|dir)=\"[^\"<>\n]{0,100}\")*\s*/?>"
    # an ASCII byte escaped as \xNN: nginx's access log (escape=default) writes a request
    # body's quotes so ("{\x22phone\x22: \x22+1646...\x22}"), as do Python's bytes reprs
    r"|\\+x([0-7][0-9A-Fa-f])")
_INVISIBLE = frozenset("\u200b\u200c\u200d\u2060\ufeff\u00ad")


def _escaped_char(match: re.Match[str]) -> str:
    hex_u, hex_entity, decimal, nbsp, block, hex_byte = match.groups()
    if hex_byte is not None:
        return chr(int(hex_byte, 16))
    if nbsp is not None or block is not None:
        return " "  # a block's edge separates what is on either side
    if hex_u is None and hex_entity is None and decimal is None:
        return ""  # a break hint, an invisible character, a tag: nothing
    code = int(hex_u or hex_entity, 16) if decimal is None else int(decimal)
    char = chr(code) if code <= 0x10FFFF else "\ufffd"
    return "" if char in _INVISIBLE else char


def needs_view(text: str) -> bool:
    """Whether :func:`unicode_view` can read ``text`` differently (cheap: substring and
    set tests)."""
    if not text.isascii() and not _INVISIBLE.isdisjoint(text):
        return True
    if "\\u" in text or "\\x" in text:
        return True
    if "&" in text and ("&#" in text or "&nbsp;" in text or "&shy;" in text
                        or "&ZeroWidthSpace;" in text):
        return True
    return "<" in text and ("</" in text or "<wbr" in text)


#: A reading of a text: its characters, and where each starts and ends in the text.
Reading = tuple[str, list[int], list[int]]


def _read(text: str, matches: Iterable[re.Match[str]],
          decode: Callable[[re.Match[str]], Iterable[tuple[str, int, int]]]) -> Reading | None:
    """``text`` with each match replaced by what ``decode`` reads there (characters with
    their span in ``text``; none: the match reads as nothing); None when nothing matched."""
    return splice(text, ((m.start(), m.end(), decode(m)) for m in matches))


def splice(text: str, pieces: Iterable[tuple[int, int, Iterable[tuple[str, int, int]]]]
           ) -> Reading | None:
    """``text`` with each piece's span (ascending, apart) replaced by its characters, each
    with its span in ``text``; None when there are no pieces."""
    parts: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    pos = 0
    for at, past, chars in pieces:
        parts.append(text[pos:at])
        starts.extend(range(pos, at))
        ends.extend(range(pos + 1, at + 1))
        for char, start, end in chars:
            parts.append(char)
            starts.append(start)
            ends.append(end)
        pos = past
    if not parts:
        return None
    parts.append(text[pos:])
    starts.extend(range(pos, len(text)))
    ends.extend(range(pos + 1, len(text) + 1))
    return "".join(parts), starts, ends


def _unescaped(match: re.Match[str]) -> list[tuple[str, int, int]]:
    char = _escaped_char(match)
    return [(char, match.start(), match.end())] if char else []


def unicode_view(text: str) -> Reading | None:
    """``text`` with its escapes and entities decoded and what hides a value removed (see
    ``_U_ESCAPE``), and where each character of that reading starts and ends in ``text``;
    None when there is nothing to read differently."""
    return _read(text, _U_ESCAPE.finditer(text), _unescaped)


# Quoted-printable (mail bodies): "=C2=A0" is a no-break space, "=\n" a soft line break
# inside a word or a number. Read only where a text shows it is quoted-printable: a soft
# break, or two encoded bytes in a row.
_QP_SIGNAL = re.compile(r"=[0-9A-F]{2}=[0-9A-F]{2}")
_SOFT_BREAK = re.compile(r"=\r?\n")
#: A soft break ends a long line (encoders wrap at 76 characters): "KEY=" alone on a short
#: line is an empty value in a .env file, not a break.
_QP_LINE = 60
# The bytes an encoder escapes: those past ASCII, "=" itself, a line's trailing space or tab
# and a line's leading dot, and "@" (which some mailers escape: "jo=40mail.de"); "IP=192.168.1.7"
# in a log with a soft break elsewhere is no escaped byte 0x19 (read as one, "2.168.1.7" was
# left standing as a public address).
_QP_TOKEN = re.compile(r"=\r?\n|(?:=(?:[89A-F][0-9A-F]|3D|20|09|2E|40))+")


def _qp_chars(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """A soft break reads as nothing; a run of encoded bytes as its UTF-8 characters, each
    spanning its own bytes' escapes."""
    token = match.group()
    if token[1] in "\r\n":
        return []
    out = []
    offset = match.start()
    for char in bytes.fromhex(token.replace("=", "")).decode("utf-8", errors="replace"):
        width = 3 if char == "\ufffd" else 3 * len(char.encode("utf-8"))
        end = min(offset + width, match.end())
        out.append((char, offset, end))
        offset = end
    return out


# Characters spelled one at a time, a space between each ("g h p _ b F u H ...", "0 3 0 4 7 1 0
# 4 4"): how a model is asked to write a secret past a filter. Twelve or more in a run.
_SPACED_RUN = re.compile(r"(?<!\S)(?:\S ){11,}\S(?!\S)")


def _spaced_chars(match: re.Match[str]) -> list[tuple[str, int, int]]:
    run, start = match.group(), match.start()
    return [(run[i], start + i, start + i + 1) for i in range(0, len(run), 2)]


def spaced_view(text: str) -> Reading | None:
    """``text`` with each run of characters spelled one at a time read with its spaces taken
    out, and where each character of that reading is in ``text``; None when there is none."""
    if " " not in text:
        return None
    return _read(text, _SPACED_RUN.finditer(text), _spaced_chars)


def qp_view(text: str) -> Reading | None:
    """``text`` read as quoted-printable (soft breaks dropped, encoded bytes decoded as
    UTF-8), and where each character of that reading starts and ends in ``text``; None when
    it shows no sign of it."""
    if "=" not in text or not (_QP_SIGNAL.search(text) or _soft_break(text)):
        return None
    return _read(text, _QP_TOKEN.finditer(text), _qp_chars)


def _soft_break(text: str) -> bool:
    """A soft break at the end of a long line (a search for the break, then the line's
    length: a pattern that counts 60 characters before every "=" costs 60 steps at each)."""
    if "=\n" not in text and "=\r\n" not in text:
        return False
    for brk in _SOFT_BREAK.finditer(text):
        line_start = text.rfind("\n", 0, brk.start()) + 1
        if brk.start() - line_start >= _QP_LINE:
            return True
    return False


# Full-width forms (U+FF01-FF5E) and the ideographic space, as East Asian input methods type
# them ("０９０－６７２８－８７０２", "５３３９\u3000９４７３..."): read as their ASCII twins,
# one character for one, so positions hold.
# The same for the decimal digits of other scripts (Arabic-Indic, Persian, Devanagari,
# Bengali, Gurmukhi, Gujarati, Odia, Tamil, Telugu, Kannada, Malayalam, Sinhala, Thai, Lao,
# Tibetan, Burmese, Khmer, Mongolian): Python's \d reads them, the validators' arithmetic
# and the ASCII-only patterns do not. And the spaces and dashes typography puts between a
# number's groups (no-break, narrow no-break, thin and figure spaces; non-breaking hyphens,
# en dashes, the minus sign): read as " " and "-". (Not Japanese's prolonged sound mark,
# which some type between a number's groups, "０８０ー２５９０": it is in words too, "パスワード".)
_DIGIT_ZEROS = (0xFF10, 0x0660, 0x06F0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6,
                0x0C66, 0x0CE6, 0x0D66, 0x0DE6, 0x0E50, 0x0ED0, 0x0F20, 0x1040, 0x17E0, 0x1810)
_SPACES = (0x00A0, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200A,
           0x202F, 0x205F)
_DASHES = (0x2010, 0x2011, 0x2012, 0x2013, 0x2212)
FULLWIDTH = {**{cp: cp - 0xFEE0 for cp in range(0xFF01, 0xFF5F)}, 0x3000: 0x20,
             **{zero + i: 0x30 + i for zero in _DIGIT_ZEROS[1:] for i in range(10)},
             **dict.fromkeys(_SPACES, 0x20), **dict.fromkeys(_DASHES, 0x2D)}
_FULLWIDTH_DIGITS = frozenset(chr(zero + i) for zero in _DIGIT_ZEROS for i in range(10))
# (and a full-width at sign: an address typed with an East Asian keyboard,
# "noura.sh\uff20yahoo.com")
_READ_AS_ASCII = _FULLWIDTH_DIGITS | frozenset(map(chr, (*_SPACES, *_DASHES, 0xFF20)))


def has_ascii_twins(text: str) -> bool:
    """Whether ``text`` holds a character read as an ASCII one (a digit of another script, a
    typographic space or dash): the reason to read it again."""
    return not text.isascii() and not _READ_AS_ASCII.isdisjoint(text)


