"""A request's terminal state and its once-only flags: the one compare-and-set they all share.

Whoever holds a request's terminal state (the recorder that records it, the lifecycle that
decides it, the API process's mirror of an engine's decision, the hooks-off recorder) is a
:class:`TerminalState`: unset until the first :meth:`TerminalState._settle` wins, never changed
after. Every other once-only flag (the recorder was told, the resources were released, the
writer is done, a stream or a process link is closed) is a :class:`Once`: set by the first
:meth:`Once.claim`, never cleared. The compare-and-set is written here and nowhere else (a test
in ``tests/`` checks it, for reasons and for flags alike).

It is a base class, not a member: a request makes one recorder and one lifecycle, and an
extra object per request would cost an allocation on the hooks' hot path. Its methods are
protected: a recorder's public terminal call stays :meth:`RequestRecorder.finish`, which
records what it settles.
"""

from __future__ import annotations

import threading

from .status import FinishReason

__all__ = ["Once", "TerminalState"]


class TerminalState:
    """The terminal reason of one request: the first reason settled wins.

    ``lock`` guards the compare-and-set; an owner may pass a lock it already takes for its
    own updates (the recorder passes the metric set's) and settle under it with
    :meth:`_settle_held`, so the decision and what it writes are one acquisition.
    """

    __slots__ = ("_lock", "_reason")

    def __init__(self, lock: threading.Lock | None = None) -> None:
        self._lock = threading.Lock() if lock is None else lock
        self._reason: FinishReason | None = None

    @property
    def finish_reason(self) -> FinishReason | None:
        """The winning reason, or None while the request lives (read without the lock: it is
        set once, by one store)."""
        return self._reason

    @property
    def finished(self) -> bool:
        return self._reason is not None

    def _settle(self, reason: FinishReason) -> bool:
        """Compare-and-set: True for the first reason, False (nothing changes) for any later."""
        with self._lock:
            return self._settle_held(reason)

    def _settle_held(self, reason: FinishReason) -> bool:
        """:meth:`_settle` for a caller that holds ``self._lock`` already."""
        if self._reason is not None:
            return False
        self._reason = reason
        return True


class Once:
    """A once-only flag: unset until the first :meth:`claim`, which alone returns True; never
    cleared. :attr:`is_set` is read without the lock (it is set by one store) and written by
    :meth:`claim_held` alone.

    ``lock``: the owner's own lock, when the claim belongs with updates the owner makes under
    it (then :meth:`claim_held` inside ``with lock:``); by default a lock of its own.
    """

    __slots__ = ("_lock", "is_set")

    def __init__(self, lock: threading.Lock | None = None) -> None:
        self._lock = threading.Lock() if lock is None else lock
        self.is_set = False

    def __repr__(self) -> str:
        return f"Once({'set' if self.is_set else 'unset'})"

    def claim(self) -> bool:
        """Set the flag: True for the first caller, False (nothing changes) for every later."""
        with self._lock:
            return self.claim_held()

    def claim_held(self) -> bool:
        """:meth:`claim` for a caller that holds the lock given at construction already."""
        if self.is_set:
            return False
        self.is_set = True
        return True
