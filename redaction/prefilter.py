"""Which detectors can match a text: one pass of a multi-pattern engine instead of one regex
search per detector.

Each detector carries a *prefilter*, a necessary condition for its pattern written without
look-around (the syntax multi-pattern engines take). :class:`HyperscanPrefilter` compiles all
of them into one Hyperscan (Vectorscan on ARM) database and scans a text once, in C, at
memory speed; only the detectors it reports run their Python pattern and validator. Findings
are therefore exactly those of running every detector: a prefilter only ever skips a
detector that could not have matched. :class:`RegexPrefilter` is the pure-Python fallback
(literal gates per detector), used when the engine is not installed. Non-ASCII text reaches
the engine as ASCII stand-ins of the same length (see ``_stand_in_for``): Python's Unicode
classes (``\\d`` matching Arabic-Indic digits, case folding of the Kelvin sign) differ from the
engine's byte-level ones, and each stand-in is what the prefilters read as the pattern reads
the original.

Why Hyperscan rather than RE2's ``Set``: it is built for exactly this (thousands of patterns,
literal-heavy, reported by id with ``SINGLEMATCH``), handles the bounded repeats our shapes
need (``\\d{13}``, ``{1,43}``) without the DFA blow-up RE2 falls back from, and its Python
binding ships wheels for Linux (x86-64, ARM64), macOS and Windows.

``SERVESCOPE_REDACTION_ENGINE`` picks one: ``auto`` (the default: Hyperscan when installed),
``hyperscan`` (an error when it is missing) or ``python``.
"""

from __future__ import annotations

import bisect
import codecs
import hashlib
import importlib.metadata
import os
import platform
import re
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

__all__ = ["CACHE_ENV", "ENGINE_ENV", "HYPERSCAN_CACHE_ENV", "Gated", "HyperscanPrefilter",
           "Prefilter", "RegexPrefilter", "engine_reading", "hyperscan_available",
           "make_prefilter"]

ENGINE_ENV = "SERVESCOPE_REDACTION_ENGINE"
_ENGINES = ("auto", "hyperscan", "python")


class Gated(Protocol):
    """What a prefilter needs from a detector."""

    @property
    def prefilter(self) -> str: ...

    @property
    def gates(self) -> tuple[re.Pattern[str], ...]: ...

    @property
    def joined_prefilter(self) -> str: ...

    @property
    def starts(self) -> tuple[tuple[str, int], ...]: ...

    @property
    def joined_starts(self) -> tuple[tuple[str, int], ...] | None: ...

    @property
    def anchors(self) -> Callable[[str], list[int]] | None: ...

    def applies(self, text: str) -> bool: ...


class Prefilter(Protocol):
    name: str

    def candidates(self, text: str) -> list[int]:
        """Indices (ascending) of the detectors whose pattern may match ``text``."""
        ...

    def candidates_joined(self, text: str) -> tuple[list[int], list[int]]:
        """:meth:`candidates`, and the indices (ascending) of the detectors with a joined
        prefilter whose pattern may match ``text`` with "-" and "_" read as spaces."""
        ...

    def plan(self, text: str) -> Plan:
        """:meth:`candidates_joined`, and where the engine found matches can start: for each
        candidate detector with ``starts``, the positions (ascending, each once; none: it
        cannot match), or None when this engine does not say (scan as the start bound says);
        then the same for the joined reading (``joined_starts``)."""
        ...

    def plan_signals(self, text: str) -> tuple[Plan, int]:
        """:meth:`plan`, and which of the ``signals`` the prefilter was made with match
        ``text`` (bit ``i`` for signal ``i``), found in the same pass."""
        ...


#: Candidates, joined candidates, and the start positions by detector (None: not known), in
#: the text and in its joined reading.
Plan = tuple[list[int], list[int], dict[int, list[int]] | None, dict[int, list[int]] | None]


class RegexPrefilter:
    """Pure Python: one combined regex of every detector's first gate rejects most values at
    once; otherwise each detector's literal gates decide."""

    name = "python"

    def __init__(self, detectors: Sequence[Gated], signals: Sequence[str] = ()) -> None:
        self._detectors = tuple(detectors)
        self._signals = tuple(re.compile("(?i)" + e) for e in signals)
        parts: set[str] = set()
        for d in self._detectors:
            if not d.gates:
                raise ValueError(f"detector {d!r} has no gate")
            parts.add(d.gates[0].pattern)  # any one necessary condition will do
        self._trigger = re.compile("|".join(sorted(parts))) if parts else None

    def candidates(self, text: str) -> list[int]:
        text = _folded_too(text)
        if self._trigger is None or self._trigger.search(text) is None:
            return []
        return [i for i, d in enumerate(self._detectors) if d.applies(text)]

    def candidates_joined(self, text: str) -> tuple[list[int], list[int]]:
        if "-" not in text and "_" not in text:
            joined = text
        else:
            joined = text.replace("-", " ").replace("_", " ")
        joined = _folded_too(joined)
        return self.candidates(text), [i for i, d in enumerate(self._detectors)
                                       if d.joined_prefilter and d.applies(joined)]

    def plan(self, text: str) -> Plan:
        return (*self.candidates_joined(text), None, None)

    def plan_signals(self, text: str) -> tuple[Plan, int]:
        bits = 0
        for i, signal in enumerate(self._signals):
            if signal.search(text) is not None:
                bits |= 1 << i
        return self.plan(text), bits


def _folded_too(text: str) -> str:
    """``text``, and after it its case-folded reading when it is not ASCII: a literal gate
    sees "ſ" as the "s" a case-insensitive pattern reads it as ("paſſword"). The gates only
    answer whether a detector may match, so reading the two texts as one can only admit more."""
    return text if text.isascii() else f"{text}\n{text.casefold()}"


def _hyperscan() -> Any:
    try:
        import hyperscan
    except ImportError:
        return None
    return hyperscan


def hyperscan_available() -> bool:
    return _hyperscan() is not None


class HyperscanPrefilter:
    """All detectors' prefilters in one Hyperscan block-mode database (non-ASCII characters
    read as ASCII stand-ins). Thread-safe: each thread scans with its own scratch space."""

    name = "hyperscan"

    def __init__(self, detectors: Sequence[Gated], signals: Sequence[str] = ()) -> None:
        hs = _hyperscan()
        if hs is None:
            raise RuntimeError("the hyperscan package is not installed")
        self._detectors = tuple(detectors)
        for i, d in enumerate(self._detectors):
            if not d.prefilter:
                raise ValueError(f"detector {i} ({d!r}) has no prefilter expression")
        # The joined prefilters go in the same database, as ids past the detectors' own; one
        # that is its detector's prefilter (no space or joiner in it) is not compiled twice.
        self._count = n = len(self._detectors)
        joinable = [i for i, d in enumerate(self._detectors)
                    if d.joined_prefilter and d.joined_prefilter != d.prefilter]
        self._same = frozenset(i for i, d in enumerate(self._detectors)
                               if d.joined_prefilter and d.joined_prefilter == d.prefilter)
        expressions = [d.prefilter for d in self._detectors] + [
            self._detectors[i].joined_prefilter for i in joinable]
        ids = list(range(n)) + [n + i for i in joinable]
        flags = [hs.HS_FLAG_SINGLEMATCH | hs.HS_FLAG_ALLOWEMPTY] * len(expressions)
        # Then the start expressions, ids from 2n: every match is reported (its end), and
        # the position it starts at is the end less the expression's one length.
        # The joined reading's own starts (where they differ) go in the same way, to a map of
        # their own (``joined``). Detectors that share a start expression (the secret
        # assignments' key words) share its id: one report, not one per detector, gives the
        # position to each (a report costs more than the engine's scan of a line).
        owners: dict[tuple[str, int, bool], list[int]] = {}
        for i, d in enumerate(self._detectors):
            own = d.joined_starts if d.joined_starts not in (None, d.starts) else ()
            for expression, length, in_joined in [(*e, False) for e in d.starts] + [
                    (*e, True) for e in own or ()]:
                owners.setdefault((expression, length, in_joined), []).append(i)
        self._starts_of: list[tuple[int, ...]] = []  # by start id less 2n: the detectors
        self._lengths: list[int] = []  # and the length
        joined: list[bool] = []
        for (expression, length, in_joined), detectors_of in owners.items():
            ids.append(2 * n + len(self._starts_of))
            self._starts_of.append(tuple(dict.fromkeys(detectors_of)))
            self._lengths.append(length)
            joined.append(in_joined)
            expressions.append(expression)
            flags.append(0)
        # Then the signals (other readings' gates, caseless, each reported once), ids last.
        first_signal = 2 * n + len(self._starts_of)
        for k, signal in enumerate(signals):
            ids.append(first_signal + k)
            expressions.append(engine_reading(signal))
            flags.append(hs.HS_FLAG_SINGLEMATCH | hs.HS_FLAG_CASELESS)
        self._with_starts = frozenset(i for of in self._starts_of for i in of)
        # Detectors whose starts no match of the engine's may be all of: their anchors name
        # more (a phone word in another script), so no start found does not rule them out.
        self._starts_decide = frozenset(i for i in self._with_starts
                                        if self._detectors[i].anchors is None)
        self._joined_own = frozenset(i for of, j in zip(self._starts_of, joined, strict=True)
                                     if j for i in of)
        # Detectors with several start expressions: their positions come in the order of the
        # ends, so they are sorted (and each kept once). One expression's come ascending.
        self._resort = frozenset(i for i in self._with_starts if len(self._detectors[i].starts) > 1)
        self._resort_joined = frozenset(
            i for i in self._joined_own if len(self._detectors[i].joined_starts or ()) > 1)
        self._collect = _collector(2 * n, self._starts_of, self._lengths, joined, first_signal)
        self._db = _database(hs, [e.encode("ascii") for e in expressions], ids, flags)
        self._scratch_prototype = hs.Scratch(self._db)
        self._local = threading.local()

    def _scratch(self) -> Any:
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = self._scratch_prototype.clone()
        return scratch

    def candidates(self, text: str) -> list[int]:
        return self.candidates_joined(text)[0]

    def candidates_joined(self, text: str) -> tuple[list[int], list[int]]:
        """As the prefilters alone tell (:meth:`plan` also drops a detector whose starts
        matched nowhere)."""
        hits: list[int] = []
        self._db.scan(text.encode("ascii", _STAND_IN), match_event_handler=self._collect,
                      context=(hits, {}, {}, []), scratch=self._scratch())
        return self._split(hits)

    def plan(self, text: str) -> Plan:
        return self.plan_signals(text)[0]

    def plan_signals(self, text: str) -> tuple[Plan, int]:
        hits: list[int] = []
        starts: dict[int, list[int]] = {}
        joined_starts: dict[int, list[int]] = {}
        signals: list[int] = []
        # Other scripts' characters are read as the ASCII character the patterns treat alike.
        self._db.scan(text.encode("ascii", _STAND_IN), match_event_handler=self._collect,
                      context=(hits, starts, joined_starts, signals), scratch=self._scratch())
        bits = 0
        for k in signals:
            bits |= 1 << k
        if not hits:
            return (hits, hits, starts, starts), bits
        resort = self._resort  # several start expressions: their positions merged
        for i, found in starts.items():
            if len(found) > 1 and i in resort:
                starts[i] = sorted(set(found))
        plain, joined = self._split(hits)
        if joined_starts:
            resort = self._resort_joined
            for i, found in joined_starts.items():
                if len(found) > 1 and i in resort:
                    joined_starts[i] = sorted(set(found))
            # The others' joined starts are their starts. (A detector with joined starts of its
            # own has them wherever it has starts: they match wherever those do.)
            joined_starts = {**starts, **joined_starts}
        else:
            joined_starts = starts
        # A detector whose starts matched nowhere cannot match, whatever its prefilter says.
        decide = self._starts_decide
        return ([i for i in plain if i in starts or i not in decide], joined, starts,
                joined_starts), bits

    def _split(self, hits: list[int]) -> tuple[list[int], list[int]]:
        if not hits:
            return hits, hits
        if len(hits) > 1:
            hits.sort()
        n, same = self._count, self._same
        if hits[-1] < n:  # no joined prefilter of its own matched
            return hits, [i for i in hits if i in same]
        split = bisect.bisect_left(hits, n)
        plain = hits[:split]
        return plain, sorted([i - n for i in hits[split:]] + [i for i in plain if i in same])


# Non-ASCII text goes to the engine as ASCII of the same length, each character replaced by one
# the prefilters treat as the Python patterns treat the original: a decimal digit (\d) by "0",
# a space (\s) by " ", a letter or other alphanumeric (\w) and the combining marks the e-mail
# pattern allows by "a", the four characters Python's case-insensitive matching folds to ASCII
# letters (checked over every code point) by those letters, anything else by "~" (matched only
# by negated classes, which the one prefilter that has one, [^/@], also matches). Every
# prefilter then still matches wherever its pattern can; the property tests check it against
# whole-text scans with such characters.
_STAND_IN = "servescope.redaction.ascii_stand_in"
_FOLDS = {"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"}
_MARKS = re.compile(r"[\u0300-\u036f\u0900-\u0dff\u0e00-\u0eff]")
_STAND_INS: dict[str, str] = {}


def _stand_in_for(ch: str) -> str:
    found = _STAND_INS.get(ch)
    if found is None:
        if ch in _FOLDS:
            found = _FOLDS[ch]
        elif ch.isdecimal():
            found = "0"
        elif ch.isspace():
            found = " "
        elif ch.isalnum() or _MARKS.match(ch):
            found = "a"
        else:
            found = "~"
        if len(_STAND_INS) < 65536:
            _STAND_INS[ch] = found
    return found


def engine_reading(expression: str) -> str:
    """``expression`` (a prefilter's text) with each non-ASCII character as the engine reads
    the text's: its stand-in (a word in another script becomes a run of "a")."""
    if expression.isascii():
        return expression
    return "".join(ch if ch.isascii() else _stand_in_for(ch) for ch in expression)


def _stand_in(error: UnicodeError) -> tuple[str, int]:
    assert isinstance(error, UnicodeEncodeError)
    chars = error.object[error.start:error.end]
    return "".join(map(_stand_in_for, chars)), error.end


codecs.register_error(_STAND_IN, _stand_in)


Context = tuple[list[int], dict[int, list[int]], dict[int, list[int]], list[int]]
Collector = Callable[[int, int, int, int, Context], None]


def _collector(first: int, owners: list[tuple[int, ...]], lengths: list[int],
               joined: list[bool], first_signal: int) -> Collector:
    """The match handler of a database whose start expressions have ids from ``first``: a
    prefilter's id goes to the hits (the engine reports it once: SINGLEMATCH), a start's
    position (the end less the expression's length) to its detectors' lists (the joined
    reading's own starts to the third map), in the order the engine reports (by end); a
    signal's (ids from ``first_signal``, once each) to the fourth list."""

    def collect(pattern_id: int, _start: int, end: int, _flags: int, context: Context) -> None:
        if pattern_id < first:
            context[0].append(pattern_id)
            return
        if pattern_id >= first_signal:
            context[3].append(pattern_id - first_signal)
            return
        k = pattern_id - first
        into = context[2] if joined[k] else context[1]
        at = end - lengths[k]
        for owner in owners[k]:
            found = into.get(owner)
            if found is None:
                into[owner] = [at]
            else:
                found.append(at)

    return collect


# The compiled database, cached on disk: compiling every detector's expressions takes the
# engine most of a second (most of the CLI's start-up, and of every server's first redaction);
# loading the serialized database, a quarter of a millisecond. Keyed by everything the
# compilation reads; a file the engine refuses (another version, a CPU without the features
# it was built for, a torn write) is compiled over. SERVESCOPE_CACHE (default
# ~/.cache/servescope, as the llama.cpp build's) holds it; SERVESCOPE_HYPERSCAN_CACHE=0 turns
# it off.
CACHE_ENV = "SERVESCOPE_CACHE"
HYPERSCAN_CACHE_ENV = "SERVESCOPE_HYPERSCAN_CACHE"
_CACHE_FILES = 32  # the most kept (each detector subset a policy runs is one, ~2 MB)


def _cache_dir() -> Path | None:
    if os.environ.get(HYPERSCAN_CACHE_ENV, "1").strip().lower() in ("0", "off", "false", "no"):
        return None
    root = os.environ.get(CACHE_ENV) or os.path.join(os.path.expanduser("~"), ".cache",
                                                       "servescope")
    return Path(root) / "hyperscan"


def _database(hs: Any, expressions: list[bytes], ids: list[int], flags: list[int]) -> Any:
    directory = _cache_dir()
    key = hashlib.sha256(repr((_hyperscan_version(), platform.machine(), expressions, ids,
                               flags)).encode()).hexdigest()[:40]
    path = None if directory is None else directory / f"{key}.db"
    if path is not None:
        try:
            db = hs.loadb(path.read_bytes(), hs.HS_MODE_BLOCK)
            hs.Scratch(db)  # (refused here when the CPU lacks what it was built for)
            return db
        except Exception:
            pass
    db = hs.Database(mode=hs.HS_MODE_BLOCK)
    db.compile(expressions=expressions, ids=ids, elements=len(expressions), flags=flags)
    if path is not None:
        _store(path, hs.dumpb(db))
    return db


def _store(path: Path, data: bytes) -> None:
    """Written whole or not at all (another process may be reading the same key), the oldest
    files beyond :data:`_CACHE_FILES` removed; a read-only home only costs the compilation."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        partial.write_bytes(data)
        os.replace(partial, path)
        kept = sorted(path.parent.glob("*.db"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in kept[_CACHE_FILES:]:
            old.unlink(missing_ok=True)
    except OSError:
        pass


def _hyperscan_version() -> str:
    try:
        return importlib.metadata.version("hyperscan")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def _engine_choice(engine: str | None) -> str:
    choice = (engine or os.environ.get(ENGINE_ENV, "") or "auto").strip().lower()
    if choice not in _ENGINES:
        raise ValueError(f"{ENGINE_ENV}: unknown engine {choice!r} (one of {', '.join(_ENGINES)})")
    return choice


def make_prefilter(detectors: Sequence[Gated], engine: str | None = None,
                   signals: Sequence[str] = ()) -> Prefilter:
    """The prefilter for ``engine`` (argument, then ``SERVESCOPE_REDACTION_ENGINE``, then
    ``auto``). ``signals``: expressions (caseless; the engine's syntax, which Python's reads
    alike) whose matches :meth:`Prefilter.plan_signals` reports in the same pass."""
    choice = _engine_choice(engine)
    regex = RegexPrefilter(detectors, signals)
    if choice == "python" or (choice == "auto" and not hyperscan_available()):
        return regex
    if not hyperscan_available():
        raise ValueError(f"{ENGINE_ENV}=hyperscan but the hyperscan package is not installed")
    return HyperscanPrefilter(detectors, signals)

