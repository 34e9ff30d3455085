"""Values said aloud or disguised: a reading of a text with its spoken numbers as digits and
its spelled-out e-mail addresses as addresses, for the detectors.

Voice agents send speech-to-text transcripts to the model ("my number is five five five, two
one two, eight nine nine one", "card four one one one ...", "john dot smith at gmail dot
com"), and people disguise their contact details in chat to get past filters ("anna.k AT
proton DOT me", "bob(at)firma(dot)de"). The detectors read digits and "@"; this module gives
them a reading (:func:`read_spoken`) in which each such run is what it says, with where each
of its characters came from, so a value found there redacts the words it was said in.

What becomes digits: runs of at least two number words (English, Spanish, French, German,
Italian, Portuguese, Dutch, Polish; "oh" for zero, "double"/"triple", tens and teens, "X
hundred") with digits and single spelled letters among them, that read as three digits or
more. Pauses (a comma, a full stop, "uh") between the words keep the groups apart; spaces
alone join them, as a listener writes them down. Nothing else in the text changes, so what
the detectors find in the reading is what they would find in the written-out text: "order
four five six" stays no value, "my social is one two three, four five, six seven eight nine"
is an SSN.

What becomes an address: a local part, an at-word ("at", "arroba", "arobase", "Klammeraffe",
"chiocciola", "apenstaartje", "małpa", or "at"/"@" in brackets), and a domain whose parts are
joined by dot-words ("dot", "punto", "point", "Punkt", "kropka", "punt", "ponto" or "." with
spaces, or in brackets) ending in a top-level domain. "Visit us at acme dot com" names a site,
not a mailbox: a one-word local part after a bare "at" is read as one only when the text
speaks of mail or the domain is a mailbox provider's.

The reading is built only where a gate (:data:`SIGNALS`, reported by the redactor's one
Hyperscan pass over the text, or two Python patterns without the engine) sees number words
in a row, digits said one by one or an at-word between words: most lines pay nothing more.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .decoding import Reading, splice
from .validators import iban_ok, luhn_ok

__all__ = ["ADDRESSES", "IBANS", "NUMBERS", "SIGNALS", "SPACED", "Spoken", "read_spoken",
           "signals"]


# --- number words -------------------------------------------------------------------------
# Each word's value (0-99). Words that are numbers in one language and common words in
# another are left out where the collision is frequent in running text ("o", Spanish "or";
# "um", English's filler before Portuguese's one).
_UNITS: dict[str, int] = {
    # English
    "zero": 0, "oh": 0, "nought": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
    "six": 6, "seven": 7, "eight": 8, "nine": 9,
    # Spanish
    "cero": 0, "uno": 1, "una": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6,
    "siete": 7, "ocho": 8, "nueve": 9,
    # French
    "zéro": 0, "un": 1, "une": 1, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "sept": 7,
    "huit": 8, "neuf": 9,
    # German
    "null": 0, "eins": 1, "zwei": 2, "zwo": 2, "drei": 3, "vier": 4, "fünf": 5, "fuenf": 5,
    "sechs": 6, "sieben": 7, "acht": 8, "neun": 9,
    # Italian
    "due": 2, "tre": 3, "quattro": 4, "cinque": 5, "sei": 6, "sette": 7, "otto": 8,
    "nove": 9,
    # Portuguese
    "um": 1, "uma": 1, "dois": 2, "duas": 2, "três": 3, "quatro": 4, "meia": 6, "sete": 7,
    "oito": 8,
    # Dutch
    "nul": 0, "een": 1, "één": 1, "twee": 2, "drie": 3, "vijf": 5, "zes": 6, "zeven": 7,
    "negen": 9,
    # Polish
    "jeden": 1, "jedna": 1, "dwa": 2, "dwie": 2, "trzy": 3, "cztery": 4, "pięć": 5, "piec": 5,
    "sześć": 6, "szesc": 6, "siedem": 7, "osiem": 8, "dziewięć": 9, "dziewiec": 9,
}
_UNITS.pop("um")  # English's filler; Portuguese's one where the text is Portuguese (below)
_PORTUGUESE = re.compile(r"(?i)\b(?:dois|duas|quatro|sete|oito|meia|é|não|código|número|"
                         r"cartão|meu|minha|você)\b")
# The words for "-" and "_" said between the parts of a number or an address.
_DASH_WORDS = ("dash", "hyphen", "tiret", "guion", "guión", "bindestrich", "trattino",
               "myślnik")
_UNDERSCORE_WORDS = ("underscore", "underline", "unterstrich", "guion bajo", "tiret bas")
_TEENS: dict[str, int] = {
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
    "diez": 10, "once": 11, "doce": 12, "trece": 13, "catorce": 14, "quince": 15,
    "dieciséis": 16, "dieciseis": 16, "diecisiete": 17, "dieciocho": 18, "diecinueve": 19,
    "dix": 10, "onze": 11, "douze": 12, "treize": 13, "quatorze": 14, "quinze": 15,
    "seize": 16,
    "zehn": 10, "elf": 11, "zwölf": 12, "zwoelf": 12,
}
_TENS: dict[str, int] = {
    "twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
    "veinte": 20, "treinta": 30, "cuarenta": 40, "cincuenta": 50, "sesenta": 60,
    "setenta": 70, "ochenta": 80, "noventa": 90,
    "vingt": 20, "vingts": 20, "trente": 30, "quarante": 40, "cinquante": 50, "soixante": 60,
    "zwanzig": 20, "dreißig": 30, "dreissig": 30, "vierzig": 40, "fünfzig": 50,
    "sechzig": 60, "siebzig": 70, "achtzig": 80, "neunzig": 90,
}
_WORDS: dict[str, int] = {**_UNITS, **_TEENS, **_TENS}
_TENS_VALUES = frozenset(_TENS.values())
_REPEATS = {"double": 2, "triple": 3, "doble": 2, "doppio": 2, "dubbel": 2, "doppel": 2,
            "triplo": 3}
_HUNDRED = frozenset({"hundred"})
# Sounds a speaker makes between digits: a pause, as a comma is.
_FILLERS = frozenset({"uh", "um", "er", "erm", "eh", "ah", "uhm", "hmm", "äh", "ähm", "ehm",
                      "euh", "eeh"})
_PLUS = frozenset({"plus", "más", "mas", "piu", "più"})
_CAPITAL = frozenset({"capital", "uppercase", "upper", "mayúscula", "mayuscula", "majuscule",
                      "maiuscola", "maiúscula", "groß", "gross", "hoofdletter", "duża", "duza"})
# The words joining tens and units when said apart ("treinta y cuatro", "vingt et un").
_AND = frozenset({"and", "y", "et", "e", "und", "en", "i"})
# German and Dutch say the unit first, glued: "siebenundzwanzig", "zevenentwintig".
_GLUED = re.compile(r"(?i)(eins?|zwei|drei|vier|fünf|fuenf|sechs|sieben|acht|neun)und"
                    r"(zwanzig|dreißig|dreissig|vierzig|fünfzig|sechzig|siebzig|achtzig|neunzig)")

# A word, a number, or a run of punctuation and spaces. French glues its tens and units with
# hyphens ("soixante-dix-huit", "quatre-vingt-douze"), as English may ("twenty-one").
_TOKEN = re.compile(r"[^\W_]+(?:-[^\W_]+)*|[^\w]+|_+")
_PAUSE = frozenset(",;:.…/—–")
_LETTER_NEXT = re.compile(r"[ ,]+[^\W\d_](?![^\W_])")  # another letter said alone: "i t ..."


def _word_value(word: str) -> int | None:
    """The value of one word (hyphens joining its parts), or None when it is not a number."""
    lower = word.lower()
    if lower in _WORDS:
        return _WORDS[lower]
    glued = _GLUED.fullmatch(lower)
    if glued is not None:
        return _WORDS[glued.group(2)] + _WORDS.get(glued.group(1), 1)
    if "-" not in lower:
        return None
    parts = lower.replace("quatre-vingts", "quatre-vingt").replace(
        "quatre-vingt", "quatrevingt").split("-")
    total = 0
    for part in parts:
        if part == "quatrevingt":
            total += 80
        elif part in ("et", "y"):
            continue
        elif part in _WORDS:
            total += _WORDS[part]
        else:
            return None
    return total if total < 100 else None


# One item of a run: the characters it reads as, and its span in the text.
_Item = tuple[str, int, int]


def _number_runs(text: str) -> Iterator[list[_Item]]:
    """The runs of number words (with digits, repeats and spelled letters among them) that
    read as at least three digits, each as the characters it reads as with their spans."""
    run: list[_Item] = []
    words = 0  # number words in the run
    pending: _Item | None = None  # a pause between two items: read as a space if the run goes on
    repeat, repeat_from = 1, 0  # "double"/"triple" before the next word, and where it starts
    upper = False  # "capital" before the next letter
    tens_at = -1  # the index in ``run`` of a tens word a unit may complete ("twenty one")
    hundred_at = -1  # the index of an "X hundred" whose last two digits a number may fill
    joined_by_and = False
    spelled = 0  # single letters and digits said one by one ("T, r, o, u, b, 4")
    groups = 0  # digit groups written out ("5209... 5470... 4915... 5987")
    paused = False  # an ellipsis between two of them
    plain = True  # only spaces, commas and spaced slashes or dashes between the items
    wide_after = -1  # the run's length at its first gap of three spaces or a tab
    other_pause = False  # a pause other than an ellipsis
    groups_ok = True  # every digit group of three to six digits (a card's, not a cost range's)
    um_is_one = _PORTUGUESE.search(text) is not None

    def flush() -> Iterator[list[_Item]]:
        digits = sum(ch.isdigit() for chars, _, _ in run for ch in chars)
        columns = 0 <= wide_after < len(run)
        if (words >= 2 and digits >= 3) or (spelled >= 5 and plain and not columns) or (
                groups >= 3 and paused and not other_pause and groups_ok and not words):
            yield run

    for token in _TOKEN.finditer(text):
        piece = token.group()
        start, end = token.span()
        if not piece[0].isalnum():  # spaces and punctuation between words
            if piece.isspace():
                # (columns apart, not a value spelled out: qshape's "TOTAL 282  0  1   2";
                # two spaces are a pause between a spelled value's groups, and a wide gap
                # after a run's last item only ends it)
                if run and wide_after < 0 and ("   " in piece or "\t" in piece):
                    wide_after = len(run)
                continue
            if any(ch in _PAUSE or ch == "-" for ch in piece) and not any(
                    ch in "!?()[]{}\"'<>=@#*" for ch in piece):
                if run:
                    mark = "-" if "-" in piece and not any(ch in _PAUSE for ch in piece) else " "
                    pending = (mark, start, end)
                    ellipsis = ".." in piece or "…" in piece
                    paused = paused or ellipsis
                    other_pause = other_pause or not ellipsis
                    plain = plain and piece in (", ", " / ", " - ", ",")
                continue
            yield from flush()
            run, words, spelled, pending, repeat, upper = [], 0, 0, None, 1, False
            tens_at = hundred_at = -1
            groups, paused, plain, other_pause, groups_ok = 0, False, True, False, True
            wide_after = -1
            continue
        lower = piece.lower()
        if lower in _DASH_WORDS and run:
            pending = ("-", start, end)
            continue
        if lower in _FILLERS and not (lower == "um" and um_is_one):
            if run:
                pending = (" ", start, end)
            continue
        if (lower in _AND and pending is None and run
                and len(run) - 1 in (tens_at, hundred_at)):
            joined_by_and = True
            continue
        if lower in _REPEATS:
            repeat, repeat_from = _REPEATS[lower], start
            continue
        if lower in _CAPITAL:
            upper = True
            continue
        value = (1 if lower == "um" else _word_value(piece)) if not piece.isdigit() else None
        item: _Item | None = None
        if piece.isdigit():
            item = (piece, start, end)
            tens_at = hundred_at = -1
            spelled += len(piece) == 1
            groups += len(piece) > 1
            groups_ok = groups_ok and 3 <= len(piece) <= 6
        elif value is not None:
            # (a unit alone after it is the next digit: "nine hundred, one two three")
            if (0 < value < 100 and hundred_at == len(run) - 1 and hundred_at >= 0
                    and repeat == 1 and (value >= 10 or joined_by_and)
                    and (pending is None or joined_by_and)):
                head, h_start, _ = run[hundred_at]  # "five hundred fifty": 550
                run[hundred_at] = (head[:-2] + f"{value:02d}", h_start, end)
                tens_at = hundred_at if value in _TENS_VALUES else -1
                hundred_at, joined_by_and, pending = -1, False, None
                continue
            if (0 < value < 10 and tens_at == len(run) - 1 and tens_at >= 0 and repeat == 1
                    and (pending is None or joined_by_and)):
                tens, t_start, _ = run[tens_at]  # "twenty one": one number, 21
                run[tens_at] = (str(int(tens) + value), t_start, end)
                tens_at, joined_by_and, pending = -1, False, None
                continue
            digits = str(value) * repeat
            item = (digits, repeat_from if repeat > 1 else start, end)  # ("double oh")
            words += 1
            tens_at = len(run) + (1 if pending else 0) if value in _TENS_VALUES and \
                repeat == 1 else -1
            hundred_at = -1
        elif lower in _HUNDRED and run and run[-1][0].isdigit() and pending is None:
            last, l_start, _ = run[-1]
            run[-1] = (last + "00", l_start, end)
            hundred_at, tens_at = len(run) - 1, -1
            continue
        elif lower in _PLUS and not run:
            pending = None
            run = [("+", start, end)]
            continue
        elif len(piece) == 1 and piece.isalpha() and text[end:end + 1] != ":" and (
                run or upper or piece not in "aeiouyAI" or _LETTER_NEXT.match(text, end)) \
                and text[start - 1:start] not in ("'", "\u2019"):  # (not "it's", "I", "a", "c:")
            item = (piece.upper(), start, end)  # (ids and codes are written in capitals)
            tens_at = hundred_at = -1
            spelled += 1
        if item is None:
            yield from flush()
            run, words, spelled, pending, repeat, upper = [], 0, 0, None, 1, False
            tens_at = hundred_at = -1
            groups, paused, plain, other_pause, groups_ok = 0, False, True, False, True
            wide_after = -1
            joined_by_and = False
            continue
        # (a spelled word's letters join across pauses; a pause after "double" is inside
        # the item it repeats, whose span starts at "double")
        if pending is not None and run and pending[2] <= item[1] and not (
                item[0].isalpha() or run[-1][0].isalpha()):
            run.append(pending)
        pending, repeat, upper, joined_by_and = None, 1, False, False
        run.append(item)
    yield from flush()


def _spread(items: list[_Item]) -> Iterator[_Item]:
    """Each item's characters, each spanning its item's words (a repeated digit each)."""
    for chars, start, end in items:
        for ch in chars:
            yield ch, start, end


# --- e-mail addresses ---------------------------------------------------------------------
# (Indian English says "at the rate" for "@": "vikram dot iyer at the rate gmail dot com")
_AT_WORDS = (r"(?:at the rate(?: of)?|at|ät|aet|arroba|arobase|chiocciola|apenstaartje|ma[lł]pa"
             r"|klammeraffe|at[ -]sign)")
_DOT_WORDS = r"(?:dot|punto|point|punkt|kropka|punt|ponto|pont)"
_BRACKETED = r"[\[({<]\s*WORD\s*[\])}>]"
_AT = (rf"(?:\s+{_AT_WORDS}\s+|\s*{_BRACKETED.replace('WORD', _AT_WORDS)}\s*"
       rf"|\s*{_BRACKETED.replace('WORD', '@')}\s*|\s+@\s+|@\s+)")
_DOT = rf"(?:\s+{_DOT_WORDS}\s+|\s*{_BRACKETED.replace('WORD', _DOT_WORDS)}\s*|\s+\.\s*|\.)"
_DASH = rf"(?:\s+(?:{'|'.join(_DASH_WORDS)}|minus)\s+|-)"
_JOIN = rf"(?:{_DOT}|\s+(?:{'|'.join(_UNDERSCORE_WORDS)})\s+|{_DASH}|_)"
_PART = r"(?:[^\W_](?:\s[^\W_]){2,40}(?![^\W_])|[^\W_]+)"  # a word, or letters spelled apart
# Top-level domains said aloud (a domain ends in one of these, so "at John dot Smith" is not).
_TLDS = ("com|org|net|edu|gov|io|ai|co|uk|us|ca|de|fr|es|it|nl|pl|pt|br|mx|ar|cl|be|ch|at|"
         "se|no|dk|fi|ie|eu|ru|ua|jp|cn|in|au|nz|za|me|dev|app|info|biz|cz|sk|hu|ro|gr|tr|il|"
         "sg|hk|tw|kr|lu|li|is|ee|lv|lt|si|hr|rs|bg|pe|ve|uy|fm|tv|ly|gg|cc|xyz|email|online|"
         "mail|tech|site|store|shop|cloud")
# (The parts are bounded: unbounded, a long "x dot x dot ..." with no at after it was tried
# to its end from every word, quadratic in the text.)
_SPOKEN_EMAIL = re.compile(
    rf"(?i)(?<![\w@.])(?P<local>{_PART}(?:{_JOIN}{_PART}){{0,8}})(?P<at>{_AT})"
    rf"(?P<domain>{_PART}(?:(?:{_DOT}|{_DASH}){_PART}){{0,6}}{_DOT}(?:{_TLDS}|[a-z]{{2}}))"
    # (not a site's page: "Manage at royalmail.com/track")
    rf"(?![\w@/])")
_MAIL_CUES = re.compile(r"(?i)e-?mail|\bmail|correo|courriel|adress|address|indirizzo|"
                        r"endereço|endereco|adres|skrzynk|inbox|write to|contact")
_PROVIDERS = frozenset({"gmail", "googlemail", "yahoo", "hotmail", "outlook", "live", "msn",
                        "icloud", "me", "aol", "proton", "protonmail", "pm", "gmx", "web",
                        "orange", "free", "laposte", "wanadoo", "sfr", "wp", "o2", "onet",
                        "interia", "yandex", "mail", "zoho", "fastmail", "tutanota", "libero",
                        "virgilio", "ziggo", "kpnmail", "telenet", "uol", "bol", "terra",
                        "t-online", "freenet", "btinternet", "sky", "comcast", "verizon", "hey",
                        "duck", "posteo", "mailbox", "seznam", "abv", "rambler", "naver"})


def _separator(piece: str) -> str:
    """What a joiner between two parts reads as: "@" for the at-words, "." for the
    dot-words, "_" or "-" for the others."""
    lower = piece.strip().strip("[](){}<>").strip().lower()
    if lower in ("", "."):
        return "."
    if lower == "@" or re.fullmatch(_AT_WORDS, lower):
        return "@"
    if re.fullmatch(_DOT_WORDS, lower):
        return "."
    return "_" if lower == "_" or lower in _UNDERSCORE_WORDS else "-"


_PART_ONLY = re.compile(_PART)
_SEPARATOR = re.compile(rf"(?i){_AT}|{_JOIN}")
# Words a sentence puts before "at" where no mailbox is meant ("listening at api.example.com").
_NOT_A_MAILBOX = re.compile(r"(?i).*(?:ing|ed)|us|me|you|him|her|them|it|we|they|home|work|"
                            r"look|here|there|online|available|located|based|hosted|live|up|"
                            r"in|on|out|off|shop|book|order|buy|sign|log|find|see|go|visit|"
                            r"check|call|reach|apply|register|join|download|more|info|now|"
                            r"today|site|page|website|store|app|am|are|is|was|be")


_AT_ANCHOR = re.compile(rf"(?i){_AT}")
_LOCAL_REACH = 200  # how far before its at a spoken address may start (nine parts)
_DOMAIN_REACH = 300


def _spoken_emails(text: str) -> Iterator[re.Match[str]]:
    """The matches of ``_SPOKEN_EMAIL``, searched only around each at: the pattern tried at
    every word of a long prompt cost 150 us a line where the gate passed."""
    pos = 0
    for at in _AT_ANCHOR.finditer(text):
        if at.start() < pos:
            continue
        match = _SPOKEN_EMAIL.search(text, max(pos, at.start() - _LOCAL_REACH),
                                     min(len(text), at.end() + _DOMAIN_REACH))
        if match is not None and match.start() <= at.start():
            yield match
            pos = match.end()


# A domain that runs on into more dotted words or a call's bracket is a code path.
_CODE_PATH_GOES_ON = re.compile(r"\.[^\W\d]|\(")


def _email_items(match: re.Match[str], text: str) -> list[_Item] | None:
    """The address a spoken match reads as, character by character, or None when it names
    a site rather than a mailbox."""
    local, at = match.group("local"), match.group("at")
    if at.strip().lower() == "at" and _CODE_PATH_GOES_ON.match(text, match.end()):
        return None  # a stack frame: "NullPointerException at se.app.ui.Main.run("
    if at.strip().lower() == "at" and _PART_ONLY.fullmatch(local) and " " not in local:
        if _NOT_A_MAILBOX.fullmatch(local):
            return None
        if text[match.start() - 1:match.start()] in ("'", "\u2019"):
            return None  # "we're at acme dot com"
        first_label = _PART_ONLY.match(match.group("domain"))
        provider = first_label is not None and first_label.group().lower() in _PROVIDERS
        spoken_dot = re.search(rf"(?i)\s{_DOT_WORDS}\s", match.group("domain")) is not None
        if not (provider or spoken_dot) and _MAIL_CUES.search(text) is None:
            return None
    items: list[_Item] = []
    pos, end = match.start(), match.end()
    while pos < end:
        if text[pos].isalnum():
            part = _PART_ONLY.match(text, pos, end)
            assert part is not None
            items.extend((ch, part.start() + i, part.start() + i + 1)
                         for i, ch in enumerate(part.group()) if not ch.isspace())
        else:
            part = _SEPARATOR.match(text, pos, end)
            if part is None:
                return None
            items.append((_separator(part.group()), pos, part.end()))
        pos = part.end()
    return items


# --- the gate and the reading -------------------------------------------------------------
# ("null" left out: JSON's nulls in a row are no number said aloud)
# (sorted whole: a set's order changes with each process's string hashing, and with it the
# engine database's cache key, which made every process compile it again)
_NUMBER_ALTERNATION = "|".join(sorted({re.escape(w) for w in (*_WORDS, *_REPEATS)}
                                      - {"null", "nul"}, key=lambda w: (-len(w), w)))
_GATE_NUMBERS = (rf"(?:{_NUMBER_ALTERNATION})(?:[\s,.;:/-]+|[\s,]+(?:uh|um|er|eh)[\s,]+)+"
                 rf"(?:{_NUMBER_ALTERNATION}|\d)")
# Digits said one by one, digit groups with an ellipsis between, a letter said in capitals
# (each led by a literal or a digit: an expression led by any word character made the engine
# read every byte of every line, 3-5 us a line).
_GATE_SPELLED = (r"\b\d(?:(?:,? {1,2}| [/-] )\d\b){4}|\d ?(?:\.{2,}|…) ?\d"
                 r"|\b(?:capital|uppercase|upper case|big|majuscule|mayúscula|mayuscula|maiuscola"
                 r"|maiúscula|groß|gross|hoofdletter)[ ,]+[a-z]\b")
# An IBAN's shape in any case: speech-to-text writes one in lower case ("nl96 snsb 4875 1223
# 03"), which the IBAN detector, reading capitals, does not take.
_IBAN_SHAPE = r"\b[a-z]{2}[0-9]{2}(?: ?[a-z0-9]{4}){2,7}(?: ?[a-z0-9]{1,3})?\b"
_LOWER_IBAN = re.compile(rf"(?i){_IBAN_SHAPE}")
# An address's at: in brackets, an at-word that means nothing else, "@" with a space beside it,
# or a bare "at" with a dot said or written within the next few words.
_GATE_EMAIL = (rf"[\[({{<]\s*(?:{_AT_WORDS}|{_DOT_WORDS}|@)\s*[\])}}>]"
               r"|\s(?:aet|arroba|arobase|chiocciola|apenstaartje|ma[lł]pa|klammeraffe"
               r"|at[ -]sign)\s"
               rf"|\s@\s|\w@\s"
               # (no "@" between: "reach me at alice@example.com" is written, and found)
               # ("ät" with "at": the engine reads its "ä" as an "a")
               rf"|\s(?:at|ät)\s[^\n@]{{1,60}}(?:\s{_DOT_WORDS}\s|\s\.|\.(?:{_TLDS})\b)")
#: The gate's expressions, caseless, in the engine's syntax (Python's reads them alike): the
#: redactor's prefilter reports them in its one pass over a text (``plan_signals``).
# (the last: characters spelled one at a time, a space between, for the redactor's spaced
# reading, decoding.spaced_view; the engine's pass says where it is worth building)
_GATE_SPACED = r"(?:^|[ \t\r\n])(?:[^ \t\r\n] ){11}[^ \t\r\n]"
SIGNALS: tuple[str, ...] = (rf"\b(?:{_GATE_NUMBERS})\b|{_GATE_SPELLED}", _GATE_EMAIL, _IBAN_SHAPE,
                            _GATE_SPACED)
_PYTHON_GATES = tuple(re.compile("(?i)" + e) for e in SIGNALS)
NUMBERS, ADDRESSES, IBANS = 1, 2, 4  # what the gate says a text may hold (bits of SIGNALS)
SPACED = 8  # ... and a run of characters spelled one at a time


def signals(text: str) -> int:
    """What ``text`` may hold (the bits :data:`NUMBERS`, :data:`ADDRESSES`, :data:`IBANS`), by
    Python's patterns; the redactor has the engine report the same expressions
    (:data:`SIGNALS`) in its prefilter's pass instead (a superset: it reads non-ASCII letters
    as stand-ins)."""
    return sum(1 << i for i, gate in enumerate(_PYTHON_GATES) if gate.search(text))


# What a run read out after one of these words is, whatever its shape: a code or a PIN (a
# card's security code, the card's), a password spelled letter by letter, a document's number.
_CODE_WORDS = re.compile(
    r"(?i)(?:\b(?:pin|passcode|code|codice|c[oó]digo|kod|kode|token|otp|password|passwort|"
    r"kennwort|wachtwoord|contrase[nñ]a|senha|has[lł]o|mot de passe|security answer)\b)")
_CARD_CODE_WORDS = re.compile(r"(?i)\b(?:cvv|cvc|cid|c v v|c v c|security code|codice di "
                              r"sicurezza|c[oó]digo de seguran[cç]a|c[oó]digo de seguridad|"
                              r"cryptogramme)\b")
_ID_WORDS = re.compile(r"(?i)\b(?:passport|passeport|pasaporte|passaporto|reisepass|ausweis\w*|"
                       r"personalausweis\w*|nie|dni|nif|codice fiscale|licen[cs]e|id number|"
                       r"n[uú]mero de identi\w+)\b")
# "error code four oh one", "zip code", "area code": codes that are no secret.
_NOT_SECRET_CODE = re.compile(r"(?i)\b(?:error|status|response|http|exit|return|reason|zip|"
                              r"area|postal|post|country|dial(?:ling)?|promo|discount|"
                              r"voucher|coupon|product|tracking|booking|confirmation)\W*$")
_SSN_WORDS = re.compile(r"(?i)\b(?:social|ssn|s s n|seguro social)\b")
_BEFORE = 60  # how far before a run its naming word may be


def _run_kind(text: str, chars: str, start: int, written: bool) -> str | None:
    """The kind of a run read out as ``chars`` (digits and letters) at ``start``, from its
    length and the words before it, where it is one whatever a detector makes of it.
    ``written``: digit groups written as digits, with an ellipsis between them (only a card
    number is told by its shape then: a log's timestamps and counters are digit groups).
    """
    if written:
        return "credit_card" if 13 <= len(chars) <= 19 and luhn_ok(chars) else None
    before = text[max(0, start - _BEFORE):start]
    digits = sum(ch.isdigit() for ch in chars)
    letters = len(chars) - digits
    if _CARD_CODE_WORDS.search(before) and letters == 0 and 3 <= digits <= 4:
        return "credit_card"
    named = _CODE_WORDS.search(before)
    if named is not None and 4 <= len(chars) <= 24 and not _NOT_SECRET_CODE.search(
            before, 0, named.start()):
        return "secret_assignment"
    if _ID_WORDS.search(before) and 6 <= len(chars) <= 20 and digits >= 2:
        return "national_id"
    if letters and chars.rstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ").isdigit():
        chars = chars.rstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ")  # (a word spelled after: "c v v")
        digits, letters = len(chars), 0
    if letters:
        return "iban" if 15 <= len(chars) <= 34 and iban_ok(chars.upper()) else None
    if digits == 9 and _SSN_WORDS.search(text):
        return "us_ssn"
    if any(13 <= len(number) <= 19 and luhn_ok(number) for number in (chars, chars[1:])):
        return "credit_card"  # (its first digit may be a word before it: "this one 4183 ...")
    # (a list of digits in brackets is code's, not a number told: "[0, 1, 2, 3, ..., 9]")
    listed = text[start - 1:start] in ("[", "(", "{") and "," in text[start:start + 3]
    return "phone" if 10 <= digits <= 15 and not listed else None


def _lower_ibans(text: str) -> list[tuple[str, int, int]]:
    """IBANs written in lower case (or mixed) whose check holds, with or without their last
    group's tail (the shape may take a word's first letters after it)."""
    found = []
    for match in _LOWER_IBAN.finditer(text):
        candidate = match.group()
        if candidate.isupper():
            continue  # (the IBAN detector's)
        end = match.end()
        if not iban_ok(candidate):
            head = candidate.rsplit(" ", 1)[0]
            if " " not in candidate or not iban_ok(head):
                continue
            end = match.start() + len(head)
        found.append(("iban", match.start(), end))
    return found


#: A value read out: its kind and its span in the text.
Spoken = tuple[str, int, int]


def read_spoken(text: str, holds: int | None = None) -> tuple[Reading | None, list[Spoken]]:
    """``text`` with its spoken numbers read as digits and its spelled-out addresses as
    addresses, and where each character of that reading starts and ends in ``text`` (None
    when it holds neither); and the runs read out that are a value by their length or by
    the word naming them (a ten-digit number said digit by digit, "the code you sent is
    six nine zero ..."), which the detectors, reading digits and no voice, may not name."""
    if holds is None:
        holds = signals(text)
    holds &= NUMBERS | ADDRESSES | IBANS
    if not holds:
        return None, []
    runs: list[list[_Item]] = []
    for match in _spoken_emails(text) if holds & ADDRESSES else ():
        items = _email_items(match, text)
        if items:
            runs.append(items)
    taken = [(items[0][1], items[-1][2]) for items in runs]  # an address's spelled letters
    values: list[Spoken] = _lower_ibans(text) if holds & IBANS else []
    for run in _number_runs(text) if holds & NUMBERS else ():
        first, last = run[0][1], run[-1][2]
        if any(first < end and start < last for start, end in taken):
            continue
        runs.append(list(_spread(run)))
        chars = "".join(ch for ch, _, _ in run if ch.isalnum())
        written = all(len(ch) > 1 and ch.isdigit() and text[at:end].isdigit()
                      for ch, at, end in run if ch.isalnum())
        kind = _run_kind(text, chars, first, written)
        if kind is not None:
            values.append((kind, first, last))
    if not runs:
        return None, values
    runs.sort(key=lambda items: items[0][1])
    apart: list[list[_Item]] = []  # (an address and a number run overlapping: the first is read)
    for items in runs:
        if not apart or items[0][1] >= apart[-1][-1][2]:
            apart.append(items)
    return splice(text, ((items[0][1], items[-1][2], items) for items in apart)), values
