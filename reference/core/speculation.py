"""Prompt-lookup (n-gram) speculation: draft tokens by copying what followed the same n-gram
earlier in the sequence. The model then verifies the drafts in one forward; only drafts equal
to its own greedy choice are committed, so proposed and committed counts differ for real and
the output is exactly what plain greedy decoding would produce.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["accept", "propose"]


def propose(tokens: Sequence[int], ngram: int, k: int) -> list[int]:
    """Up to ``k`` tokens that followed the most recent earlier occurrence of the last
    ``ngram`` tokens; ``[]`` when there is none (or speculation is off)."""
    n = len(tokens)
    if ngram < 1 or k < 1 or n <= ngram:
        return []
    tail = list(tokens[n - ngram:])
    for start in range(n - ngram - 1, -1, -1):  # most recent match first
        if list(tokens[start:start + ngram]) == tail:
            follow = list(tokens[start + ngram:start + ngram + k])
            if follow:
                return follow
    return []


def accept(drafts: Sequence[int], greedy: Sequence[int]) -> list[int]:
    """The tokens to commit: the drafts the model agrees with, then its own next token.

    ``greedy[i]`` is the model's choice after the input token and ``drafts[:i]``; so
    ``len(greedy) == len(drafts) + 1``.
    """
    out = [greedy[0]]
    for i, draft in enumerate(drafts):
        if draft != greedy[i]:
            break
        out.append(greedy[i + 1])
    return out
