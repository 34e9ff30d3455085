"""A request's terminal state: the one compare-and-set every owner of it shares.

Whoever holds a request's terminal state (the recorder that records it, the lifecycle that
decides it, the API process's mirror of an engine's decision, the hooks-off recorder) is a
:class:`TerminalState`: unset until the first :meth:`TerminalState._settle` wins, never changed
after. The compare-and-set is written here and nowhere else (a test in ``tests/`` checks it).

It is a base class, not a member: a request makes one recorder and one lifecycle, and an
extra object per request would cost an allocation on the hooks' hot path. Its methods are
protected: a recorder's public terminal call stays :meth:`RequestRecorder.finish`, which
records what it settles.
"""

from __future__ import annotations

import threading

from .status import FinishReason

__all__ = ["TerminalState"]


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
