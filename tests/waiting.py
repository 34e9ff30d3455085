"""Wait for an event, not for a guessed time: poll a condition until a generous deadline.

The deadline only bounds a failure; a passing run waits as long as the condition takes, so a
loaded machine makes the suite slower, never red. A process given as ``alive`` that exits
while we wait fails the wait at once, with what it printed.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def poll_until(condition: Callable[[], T], *, what: str, timeout_s: float = 60.0,
               interval_s: float = 0.05, transient: tuple[type[BaseException], ...] = (),
               alive: subprocess.Popen[Any] | None = None) -> T:
    """Call ``condition`` until it returns something truthy; return that. Exceptions of the
    ``transient`` types count as "not yet" (a server still starting); on the deadline, or if
    ``alive`` has exited, raise naming ``what``."""
    deadline = time.monotonic() + timeout_s
    last: BaseException | None = None
    while True:
        if alive is not None and alive.poll() is not None:
            raise RuntimeError(f"{what}: the process exited with {alive.returncode}"
                               f"{_output(alive)}")
        try:
            value = condition()
            if value:
                return value
        except transient as exc:
            last = exc
        if time.monotonic() >= deadline:
            detail = f" (last error: {last!r})" if last is not None else ""
            raise TimeoutError(f"timed out after {timeout_s:g}s waiting for {what}{detail}")
        time.sleep(interval_s)


def _output(proc: subprocess.Popen[Any]) -> str:
    """What the exited process printed, where it was captured (bytes or text streams)."""
    parts = []
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            out = stream.read()
            parts.append(out.decode(errors="replace") if isinstance(out, bytes) else out)
    text = "".join(parts).strip()
    return f":\n{text[-4000:]}" if text else ""
