"""Control signals posted from any thread, applied by the scheduler at the safe point."""

from __future__ import annotations

import threading
from collections import deque
from typing import Any

__all__ = ["Mailbox"]


class Mailbox:
    """Control signals posted from any thread, taken by the scheduler at the safe point."""

    def __init__(self) -> None:
        self._items: deque[tuple[str, Any]] = deque()
        self._event = threading.Event()

    def post(self, kind: str, payload: Any = None) -> None:
        self._items.append((kind, payload))  # deque.append is atomic: never blocks
        self._event.set()

    def take_all(self) -> list[tuple[str, Any]]:
        self._event.clear()
        out = []
        while True:
            try:
                out.append(self._items.popleft())
            except IndexError:
                return out

    def wait(self, timeout_s: float) -> None:
        self._event.wait(timeout_s)
