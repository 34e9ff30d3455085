"""RE2, whose syntax and semantics Go's regexp shares (the Collector's redaction processor
compiles its patterns with it): the Collector tier's patterns are compiled and run by RE2
itself in the tests, not by Python's re standing in (which reads ``\\u00f3`` as a letter and
``\\b`` and ``\\w`` as Unicode, where RE2 refuses the first and reads the others as ASCII)."""

from __future__ import annotations

from typing import Any

import re2

__all__ = ["compile_re2"]


def compile_re2(pattern: str) -> Any:
    """``pattern`` compiled by RE2 (``re2.error`` names what it refuses). Go's regexp has no
    DFA memory budget; RE2's default (8 MiB) is too small for the largest pattern's DFA and
    would fall back to its NFA with a warning, so the budget is raised to 64 MiB."""
    options = re2.Options()
    options.max_mem = 64 << 20
    return re2.compile(pattern, options=options)
