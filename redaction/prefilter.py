"""Which detectors can match a text: one pass of a multi-pattern engine instead of one regex
search per detector.

Each detector carries a *prefilter*, a necessary condition for its pattern written without
look-around (the syntax multi-pattern engines take). :class:`HyperscanPrefilter` compiles all
of them into one Hyperscan (Vectorscan on ARM) database and scans a text once, in C, at
memory speed; only the detectors it reports run their Python pattern and validator. Findings
are therefore exactly those of running every detector: a prefilter only ever skips a
detector that could not have matched. :class:`RegexPrefilter` is the pure-Python fallback
(literal gates per detector), used when the engine is not installed, and for non-ASCII text,
where Python's Unicode classes (``\\d`` matching Arabic-Indic digits, case folding of the
Kelvin sign) differ from the engine's byte-level ones.

Why Hyperscan rather than RE2's ``Set``: it is built for exactly this (thousands of patterns,
literal-heavy, reported by id with ``SINGLEMATCH``), handles the bounded repeats our shapes
need (``\\d{13}``, ``{1,43}``) without the DFA blow-up RE2 falls back from, and its Python
binding ships wheels for Linux (x86-64, ARM64), macOS and Windows.

``SERVESCOPE_REDACTION_ENGINE`` picks one: ``auto`` (the default: Hyperscan when installed),
``hyperscan`` (an error when it is missing) or ``python``.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Sequence
from typing import Any, Protocol

__all__ = ["ENGINE_ENV", "Gated", "HyperscanPrefilter", "Prefilter", "RegexPrefilter",
           "hyperscan_available", "make_prefilter"]

ENGINE_ENV = "SERVESCOPE_REDACTION_ENGINE"
_ENGINES = ("auto", "hyperscan", "python")


class Gated(Protocol):
    """What a prefilter needs from a detector."""

    @property
    def prefilter(self) -> str: ...

    @property
    def gates(self) -> tuple[re.Pattern[str], ...]: ...

    def applies(self, text: str) -> bool: ...


class Prefilter(Protocol):
    name: str

    def candidates(self, text: str) -> list[int]:
        """Indices (ascending) of the detectors whose pattern may match ``text``."""
        ...


class RegexPrefilter:
    """Pure Python: one combined regex of every detector's first gate rejects most values at
    once; otherwise each detector's literal gates decide."""

    name = "python"

    def __init__(self, detectors: Sequence[Gated]) -> None:
        self._detectors = tuple(detectors)
        parts: set[str] = set()
        for d in self._detectors:
            if not d.gates:
                raise ValueError(f"detector {d!r} has no gate")
            parts.add(d.gates[0].pattern)  # any one necessary condition will do
        self._trigger = re.compile("|".join(sorted(parts))) if parts else None

    def candidates(self, text: str) -> list[int]:
        if self._trigger is None or self._trigger.search(text) is None:
            return []
        return [i for i, d in enumerate(self._detectors) if d.applies(text)]


def _hyperscan() -> Any:
    try:
        import hyperscan
    except ImportError:
        return None
    return hyperscan


def hyperscan_available() -> bool:
    return _hyperscan() is not None


class HyperscanPrefilter:
    """All detectors' prefilters in one Hyperscan block-mode database; ASCII text only (the
    rest goes to ``fallback``). Thread-safe: each thread scans with its own scratch space."""

    name = "hyperscan"

    def __init__(self, detectors: Sequence[Gated], fallback: Prefilter | None = None) -> None:
        hs = _hyperscan()
        if hs is None:
            raise RuntimeError("the hyperscan package is not installed")
        self._detectors = tuple(detectors)
        self.fallback = fallback or RegexPrefilter(self._detectors)
        for i, d in enumerate(self._detectors):
            if not d.prefilter:
                raise ValueError(f"detector {i} ({d!r}) has no prefilter expression")
        self._db = hs.Database(mode=hs.HS_MODE_BLOCK)
        self._db.compile(expressions=[d.prefilter.encode("ascii") for d in self._detectors],
                         ids=list(range(len(self._detectors))),
                         elements=len(self._detectors),
                         flags=hs.HS_FLAG_SINGLEMATCH | hs.HS_FLAG_ALLOWEMPTY)
        self._scratch_prototype = hs.Scratch(self._db)
        self._local = threading.local()

    def _scratch(self) -> Any:
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = self._scratch_prototype.clone()
        return scratch

    def candidates(self, text: str) -> list[int]:
        if not text.isascii():
            return self.fallback.candidates(text)
        hits: list[int] = []
        self._db.scan(text.encode("ascii"), match_event_handler=_collect, context=hits,
                      scratch=self._scratch())
        if len(hits) > 1:
            hits.sort()
        return hits


def _collect(pattern_id: int, _start: int, _end: int, _flags: int, hits: list[int]) -> None:
    hits.append(pattern_id)


def _engine_choice(engine: str | None) -> str:
    choice = (engine or os.environ.get(ENGINE_ENV, "") or "auto").strip().lower()
    if choice not in _ENGINES:
        raise ValueError(f"{ENGINE_ENV}: unknown engine {choice!r} (one of {', '.join(_ENGINES)})")
    return choice


def make_prefilter(detectors: Sequence[Gated], engine: str | None = None) -> Prefilter:
    """The prefilter for ``engine`` (argument, then ``SERVESCOPE_REDACTION_ENGINE``, then
    ``auto``)."""
    choice = _engine_choice(engine)
    regex = RegexPrefilter(detectors)
    if choice == "python" or (choice == "auto" and not hyperscan_available()):
        return regex
    if not hyperscan_available():
        raise ValueError(f"{ENGINE_ENV}=hyperscan but the hyperscan package is not installed")
    return HyperscanPrefilter(detectors, regex)

