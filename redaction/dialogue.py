"""Values told in a conversation's reply: a chat's or a call transcript's turn asks for a
code, a card's security code, an id, a phone number or a security question's answer, and the
other speaker's next turn gives it alone.

"Bot: I've sent a 6-digit code, please type it here" / "Customer: 604569" and "AGENTE: ¿me
indica su número de documento?" / "CLIENTE: sí, es el 32249531": nothing in the answer names
it, and a number alone is as often an order's, an amount's or a time. The question names it,
so this pass reads a text as turns: a line that opens with a speaker's name and a colon
("Agent (Kemi):"), a name in brackets ("[talebot]"), an emoji for one, or a USSD or IVR
session's ">" input, after any timestamp. Where a turn asks (a question mark or a request, in
the languages of the corpora) for a kind and the other speaker's next turn is a few words, the
numbers there of that kind's length are reported (a security question's answer: the reply's
words).

A text is read as a conversation only when it is one: three turns or more, two speakers or
more, and a speaker who speaks again (a form's "Name: ..." lines are each a different label, a
log's lower-case keys are no speakers). A turn that asks for the last digits only or a
postcode, or only mentions a code, asks nothing; numbers a reply calls something else (an
order, a ticket, an amount, a time, a date) are left. A number told digit by digit is also
redacted where the text repeats it written together.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

from .detectors import Finding

__all__ = ["dialogue_findings"]

# A turn's opening: timestamps or a bullet, then a speaker (an emoji, with a name and a colon
# or not; or a name of one to four words and a colon).
_LEAD = re.compile(r"[ \t]*(?:(?:\[[^\]\n]{1,40}\]|\d{1,2}:\d\d(?::\d\d)?(?:[ \t]*[AaPp][Mm])?"
                   r"|[-–*>])[ \t]*)*")
# (Chinese and Japanese chats write the colon full-width, with no space after it: "客服：您好")
_NAMED = re.compile(r"([^\W\d_][^\W_]*(?:[ .'’-]{1,2}\(?[^\W_]+\)?){0,3})[ \t]*"
                    r"(?::(?:[ \t]+|$)|\uff1a[ \t]*)")
# ... or a name in brackets, as a voice bot's log writes it: "[talebot] Hvad er ...".
_BRACKETED = re.compile(r"\[([^\W\d_][^\W_]*(?:[ .'’-][^\W_]+){0,2})\][ \t]*")
_LOG_LEVELS = frozenset(("info", "warn", "warning", "error", "debug", "trace", "fatal",
                         "notice", "critical", "err", "crit", "alert", "emerg"))
_STAMP = re.compile(r"\[[^\]\n]{1,40}\][ \t]*")
# ... or a session's input, as a USSD or IVR trace writes it: "> 0795727596".
_INPUT = re.compile(r"[ \t]*>(?!>)[ \t]*")
# Speakers in lower case are roles a chat log names so (a key in a log or a config is not).
_ROLES = frozenset(("user", "assistant", "agent", "customer", "client", "bot", "caller",
                    "operator", "tech", "dispatcher", "support", "rider", "driver", "me",
                    "human", "advisor", "rep", "cliente", "agente", "usuario", "kunde"))
_MAX_REPLY = 90  # (an answer is short: a value and a few words around it)
_MAX_WORDS = 8

# What a turn asks for, in its words (lower case, addresses and paths left out).
_CODE = re.compile(
    r"c[oó]dig|\bcodes?\b|\bk[oó]d\b|\bkodu\b|\botp\b|\bpin\b|passcode|\bclave|\btan\b"
    r"|verification|verificaci|vérification|bestätigung|einmal|\bкод\b|\bرمز|کد|\bkòd\b"
    r"|\bkode\b|\bkoodi|\bkods\b|\bkodas\b|κωδικ|[şs]ifre|engangskod|eng[åa]ngskod")
_PHONE = re.compile(
    r"phone|t[eé]l[eé]phon|tel[eé]fon|\btel\b|\bcel\b|celular|m[oó]vil|\bmobile?\b|whatsapp"
    r"|n[uú]mero de (?:l[ií]nea|contacto)|contact number|\bhandy\b|portable|телефон|мобильн"
    r"|هاتف|جوال|موبايل|telefonnummer|mobilnummer|mobilepay|swish|vipps|s[ií]man[uú]mer"
    r"|\bnumurs|\bnombor|\bnomor|namba ya simu|\bnumara|τηλέφων|κινητ|\bgcash\b"
    # (the Balkans' "broj telefona", "imaš broj od Selma?")
    r"|\bbroj telefon|\bima[sš] broj"
    # (French's "votre numéro", Georgian's telephone)
    r"|votre num[ée]ro|\u10e2\u10d4\u10da\u10d4\u10e4\u10dd\u10dc"
    # (Chinese's mobile and telephone, simplified and traditional)
    "|\u624b\u673a|\u624b\u6a5f|\u7535\u8bdd|\u96fb\u8a71")
_ID = re.compile(
    r"\bdui\b|\bdni\b|c[eé]dula|documento|\bdocument\b|identidad|identity|identification"
    r"|\bid number\b|\bssn\b|social security|passport|pasaporte|passeport|\bcurp\b|\brut\b"
    r"|\bcpf\b|\bnie\b|\bnif\b|ausweis|national id|\bnin\b|паспорт|\bснилс\b|\bинн\b|هوية"
    r"|\bcpr\b|personnummer|f[øo]dselsnummer|henkilötunnus|\bhetu|kennitala|isikukood"
    r"|personas kods|asmens kodas|\bnik\b|\bktp\b|\bnric\b|mykad|\bic\b|kitambulisho"
    r"|kimlik|\btckn\b|\bcnp\b|\begn\b|\bafm\b|αφμ|\bamka\b|αμκα|\bpesel\b|\bye-id\b|\bi-id\b"
    # (Morocco's CIN, Pakistan's CNIC, Egypt's "raqam qawmy", the Balkans' JMBG and EMBG)
    r"|\bcin\b|\bcnic\b|qawm|\bjmbg\b|\bembg\b"
    # (a voter's card in French, Georgia's personal number in Georgian and English)
    r"|carte d['’][ée]lecteur|\u10de\u10d8\u10e0\u10d0\u10d3\u10d8 \u10dc\u10dd\u10db"
    r"|personal number"
    # (the FL to FQ round's: Viet Nam's citizen id card, Germany's insured person's number,
    # Bangladesh's and Sri Lanka's NID and NIC: not a network card's "NIC" alone)
    "|c\u0103n c\u01b0\u1edbc|\\bcccd\\b|versichertennummer|\\bnid\\b"
    # (Chinese's identity card, simplified and traditional)
    "|\u8eab\u4efd\u8bc1|\u8eab\u5206\u8b49|\u8eab\u4efd\u8b49"
    # (Tajik's passport)
    "|\u0448\u0438\u043d\u043e\u0441\u043d\u043e\u043c\u0430"
    "|\\bnic (?:number|no\\b)")
# A card's security code (three or four digits).
_CARD_CODE = re.compile(
    r"\bcvv|\bcvc|security code|g[üu]venlik kodu|c[oó]digo de seguridad|code de s[ée]curit[ée]"
    r"|sicherheitscode|prüfziffer|κωδικός ασφαλείας|kartenprüf")
_ANSWER = re.compile(
    r"security question|secret question|security answer|maiden name|memorable word"
    r"|first pet|pet'?s name|first school|primera mascota|premier animal"
    r"|code ?word|pregunta de seguridad|respuesta secreta|question secr[eè]te"
    r"|sicherheitsfrage|سؤال الأمان|pregunta secreta|سوال امنیتی")
# Words that ask for something else: a postcode; addresses and paths.
_NOT_ASKED = re.compile(
    r"code postal|postal code|zip code|post ?code|c[oó]digo postal|postleitzahl"
    r"|\S*[/\\=@]\S*")
# A turn that asks for a part only (the last digits): its answer is no value.
_A_PART = re.compile(r"\blast (?:\d|two|three|four|five|six)|ends? (?:with|in)|[uú]ltimos"
                     r"|derniers|letzten|\bparte\b")
# A turn asks: a question mark or a request (a turn that only mentions a code asks nothing).
_REQUEST = re.compile(
    r"[?？¿]|please|pls|plz|kindly|\btype|\benter|confirm|provide|share|tell|give|send|\bsent"
    r"|\bread|wants?\b|\bneed|por favor|escrib|ingres|introduc|digit|indi[cq]|\bdig[ae]|dime"
    r"|env[ií]|mand[ae]|proporcion|facilit|inform|bitte|geben|nennen|schick|gesendet"
    r"|s'il vous|svp|entrez|saisi|donne|envoy|per favore|inserisc|invia|dimmi|prosz|podaj"
    r"|пожалуйста|введите|назовите|отправ|продиктуйте|فضلك|أرسل|ادخل|أدخل"
    r"|berapa|boleh|mohon|sebutkan|masukkan|kirim|\bpaki|ingiza|\btuma\b|\bweka\b|\bhva\b"
    r"|\bhvad\b|\bvad\b|vilket|\bmikä|\bkas\b|nedir|ποι[οα]|δώσ|μπορείτε|spune|introdu"
    r"|ngicela|sicela"
    # (Georgian's "tell me")
    r"|\u10db\u10d8\u10d7\u10ee\u10d0\u10e0\u10d8\u10d7"
    # (Urdu's "bata dein" and Darija's "3tini", tell me and give me; Egyptian's "momken",
    # may I have; the Balkans' "molim", please)
    r"|\bbata\b|batay|3tini|\bmomken|\bmolim|\bmolime"
    # (Vietnamese's polite "ạ" that closes an ask, "đọc giúp", read it for me)
    "|\u1ea1(?!\\w)|\u0111\u1ecdc gi\u00fap"
    # (Tajik's "tell", Chinese's "please", "would you trouble to", "provide", "tell me")
    "|\u0433\u04ef\u0435\u0434"
    "|\u8bf7|\u8acb|\u9ebb\u70e6|\u9ebb\u7169|\u63d0\u4f9b|\u544a\u8bc9\u6211")
# A number in a reply: digits in groups, maybe after "+", maybe with a check character.
_NUMBER = re.compile(r"(?<![\w+./:,#-])\+?\d(?:[ .-]?\d){2,19}(?:-[0-9A-Za-z])?"
                     r"(?![\w/:@%€$]|[.,]\d)")
_DECIMAL = re.compile(r"\.(?!\d{3}(?!\d))")
# An id of a series' letters and digits, in a reply to a turn that asked for an id
# (Morocco's CIN, "AE50800").
_LETTERED_ID = re.compile(r"(?<![\w+./:,#-])[A-Z]{1,2}\d{5,8}(?![\w/:@%€$-])")
# What a reply calls a number that is none of these kinds (the few words before it) ...
_OTHER_BEFORE = re.compile(
    r"(?:order|pedido|ticket|ref|invoice|factura|caso|case|tracking|booking|reserva|folio"
    r"|amount|monto|total|importe|room|habitaci[oó]n|flight|vuelo|paso|step|cash"
    r"|[$€£#№]|\bno\.|\bnr\.?|nº|n°)[^\d\n]{0,6}$",
    re.IGNORECASE)
# ... and what follows an amount, a quantity or a time.
_OTHER_AFTER = re.compile(r"[ \t]*(?:[$€£%]|soles|usd|eur|dollars?|d[oó]lares|pesos|euros?"
                          r"|kg|km|gb|mb|min|ms|sec|seg|h\b|hrs?|hours?|horas?|tokens)", re.I)
_DATE = re.compile(r"\d{1,4}[./-]\d{1,2}[./-]\d{1,4}")
_WORD = re.compile(r"[^\W\d_]+")
_ADDRESS = re.compile(r"\S+@\S+|\S+://\S+")
# What an answer given in words starts with ("yes, it's Simba").
_FILLER = re.compile(r"(?i)(?:(?:yes|yeah|yep|ok(?:ay)?|s[ií]|oui|ja|sure|it'?s|its|it is"
                     r"|that'?s|es|c'est|das ist|is)\b[ \t,.:;-]*)*")
_ANSWER_TEXT = re.compile(r"[^\W\d_][\w'’ -]{0,28}[\w]")


def dialogue_findings(text: str) -> list[Finding]:
    """The numbers that a conversation's replies give for what the turn before asked."""
    if text.count("\n") < 2:
        return []
    turns = list(_turns(text))
    if not _is_conversation(turns):
        return []
    found: list[Finding] = []
    for i, (speaker, start, end) in enumerate(turns):
        asked = _asked(text[start:end].lower())
        if not asked:
            continue
        reply = _reply(turns, i, speaker)
        if reply is None:
            continue
        if asked == ("answer",):
            found += _answer_in_words(text, reply[1], reply[2])
        else:
            found += _answers(text, reply[1], reply[2], asked)
    return found + _said_again(text, found)


def _said_again(text: str, found: list[Finding]) -> list[Finding]:
    """A number told digit by digit ("0 1 3 7 1 9 0 9 6 3") where the text repeats it
    written together ("saya ulang ya, 0137190963")."""
    again = []
    for finding in found:
        bare = "".join(c for c in finding.value if c.isdigit())
        if len(bare) >= 7 and bare != finding.value:
            again += [Finding(finding.kind, m.start(), m.end(), bare)
                      for m in re.finditer(rf"(?<!\d){bare}(?!\d)", text)]
    return again


def _turns(text: str) -> Iterator[tuple[str, int, int]]:
    """(speaker, content start, content end) for each line that opens a turn; the lines after
    it that open none are its content too (after a session's ">" input, the system's turn)."""
    speaker: str | None = None
    start = end = pos = 0
    for line in text.split("\n"):
        opened = _opening(line)
        if opened is not None:
            if speaker is not None:
                yield speaker, start, end
            speaker, start, end = opened[0], pos + opened[1], pos + len(line)
        elif speaker == ">" and line.strip():  # (a prompt after the input: "Please enter ...")
            yield speaker, start, end
            speaker, start, end = "", pos, pos + len(line)
        elif speaker is not None:
            end = pos + len(line)
        pos += len(line) + 1
    if speaker is not None:
        yield speaker, start, end


def _opening(line: str) -> tuple[str, int] | None:
    """(speaker, where the content starts) if ``line`` opens a turn."""
    quoted = _INPUT.match(line)
    if quoted is not None:  # (a USSD or IVR session's input: "> 0795727596")
        return ">", quoted.end()
    at = _LEAD.match(line).end()  # type: ignore[union-attr]
    if at < len(line) and unicodedata.category(line[at]) == "So":
        mark = line[at]
        at += 1
        while at < len(line) and line[at] in " \t\ufe0f":
            at += 1
        named = _NAMED.match(line, at)
        return mark, named.end() if named else at
    named = _NAMED.match(line, at)
    if named is None:
        return _bracketed(line)
    speaker = named.group(1)
    # (Georgian's letters are lower case to Unicode, but the script writes no capitals)
    if not (speaker[0].isupper() or not speaker[0].islower() or speaker in _ROLES
            or "\u10d0" <= speaker[0] <= "\u10ff"):
        return None  # (a key: "size: ...", "constraints: ...")
    return speaker.lower(), named.end()


def _bracketed(line: str) -> tuple[str, int] | None:
    """(speaker, where the content starts) for a line opened by a name in brackets (after
    any timestamp in brackets), not a log's level."""
    at = len(line) - len(line.lstrip(" \t"))
    while True:
        bracketed = _BRACKETED.match(line, at)
        if bracketed is not None:
            speaker = bracketed.group(1).lower()
            return (speaker, bracketed.end()) if speaker not in _LOG_LEVELS else None
        stamp = _STAMP.match(line, at)
        if stamp is None:
            return None
        at = stamp.end()


def _is_conversation(turns: list[tuple[str, int, int]]) -> bool:
    speakers = [t[0] for t in turns]
    return len(speakers) >= 3 and len(set(speakers)) >= 2 and len(set(speakers)) < len(speakers)


def _asked(words: str) -> tuple[str, ...]:
    """The kinds a turn asks for, in the order a number is tried against them."""
    if _REQUEST.search(words) is None or _A_PART.search(words):
        return ()
    words = _NOT_ASKED.sub(" ", words)
    if _ANSWER.search(words):
        return ("answer",)
    asked = []
    if _CARD_CODE.search(words):
        asked.append("card_code")
    if _CODE.search(words):
        asked.append("code")
    if _ID.search(words):
        asked.append("id")
    if _PHONE.search(words):
        asked.append("phone")
    return tuple(asked)


def _reply(turns: list[tuple[str, int, int]], i: int, asker: str) -> tuple[str, int, int] | None:
    """The other speaker's next turn (one more of the asker's may come between)."""
    for turn in turns[i + 1:i + 3]:
        if turn[0] != asker:
            return turn if turn[2] - turn[1] <= _MAX_REPLY else None
    return None


def _answers(text: str, start: int, end: int, asked: tuple[str, ...]) -> list[Finding]:
    """The numbers of the asked kinds in a reply of a few words."""
    numbers = list(_NUMBER.finditer(text, start, end))
    if "id" in asked:
        numbers += _LETTERED_ID.finditer(text, start, end)
    words = _ADDRESS.sub(" ", _NUMBER.sub(" ", _LETTERED_ID.sub(" ", text[start:end])))
    if not numbers or len(_WORD.findall(words)) > _MAX_WORDS:
        return []
    found = []
    for number in numbers:
        value = number.group()
        if (_DATE.fullmatch(value) or _DECIMAL.search(value)
                or _OTHER_BEFORE.search(text, max(start, number.start() - 14), number.start())
                or _OTHER_AFTER.match(text, number.end(), end)):
            continue
        kind = _kind(value, asked)
        if kind is not None:
            found.append(Finding(kind, number.start(), number.end(), value))
    return found


def _answer_in_words(text: str, start: int, end: int) -> list[Finding]:
    """A security question's answer: the reply's few words, after a "yes, it's"."""
    at = _FILLER.match(text, start, end).end()  # type: ignore[union-attr]
    answer = _ANSWER_TEXT.match(text, at, end)
    if answer is None or answer.end() < end - 2 or len(_WORD.findall(answer.group())) > 3:
        return []
    return [Finding("secret_assignment", answer.start(), answer.end(), answer.group())]


def _kind(value: str, asked: tuple[str, ...]) -> str | None:
    count = sum(c.isdigit() for c in value)
    for ask in asked:
        if ask == "card_code" and 3 <= count <= 4 and count == len(value):
            return "credit_card"
        if ask == "code" and 4 <= count <= 8 and not value.startswith("+"):
            return "secret_assignment"
        if ask == "id" and 5 <= count <= 18 and not value.startswith("+"):
            return "national_id"
        if ask == "phone" and 7 <= count <= 15:
            return "phone"
    return None
