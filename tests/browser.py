"""Headless Chromium driven over the DevTools protocol (standard library only).

Chromium runs with ``--remote-debugging-pipe``: commands and events are NUL-terminated JSON on
file descriptors 3 (to the browser) and 4 (from it), so no port is opened and no websocket
client is needed. Network is off (no proxy, every host unresolvable); the profile is a fresh
temporary folder::

    with Chromium(tmp_path) as browser:
        page = browser.open(Path("report.html").resolve().as_uri())
        count = page.evaluate("document.querySelectorAll('svg').length")
        page.screenshot(tmp_path / "shot.png")
        assert page.console_errors() == []

Binary: ``$CHROMIUM_BIN`` or ``chromium`` / ``chromium-browser`` on the PATH (Debian ``chromium``).
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

__all__ = ["Chromium", "Page", "chromium_binary"]

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--disable-dev-shm-usage", "--hide-scrollbars",
         "--no-proxy-server", "--host-resolver-rules=MAP * ~NOTFOUND")


def chromium_binary() -> str | None:
    return (os.environ.get("CHROMIUM_BIN") or shutil.which("chromium")
            or shutil.which("chromium-browser"))


def _high_pipe() -> tuple[int, int]:
    """os.pipe(), both ends moved to descriptors numbered 10 or more."""
    ends = []
    for fd in os.pipe():
        ends.append(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10))
        os.close(fd)
    return ends[0], ends[1]


class Chromium:
    def __init__(self, tmpdir: Path, width: int = 1360, height: int = 900) -> None:
        binary = chromium_binary()
        if binary is None:
            raise RuntimeError("chromium not found (Debian package 'chromium')")
        profile = Path(tmpdir) / "chromium-profile"
        profile.mkdir(parents=True, exist_ok=True)
        to_browser_r, self._to_browser = _high_pipe()
        self._from_browser, from_browser_w = _high_pipe()
        self._log = (Path(tmpdir) / "chromium.log").open("wb")
        # The browser reads commands on fd 3 and answers on fd 4. The pipe ends sit at fds
        # >= 10 so that the shell's redirections onto 3 and 4 cannot overwrite each other.
        argv = [binary, *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}",
                "--remote-debugging-pipe", "about:blank"]
        self.proc = subprocess.Popen(
            ["bash", "-c", f'exec "$@" 3<&{to_browser_r} 4>&{from_browser_w}', "bash", *argv],
            stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT,
            pass_fds=(to_browser_r, from_browser_w))
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._next_id = 0
        self._buffer = b""
        self.events: list[dict[str, Any]] = []

    # --- the protocol -----------------------------------------------------------------------
    def send(self, method: str, params: dict[str, Any] | None = None,
             session: str | None = None, timeout: float = 30.0) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method,
                                   "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                result: dict[str, Any] = reply.get("result", {})
                return result
            self.events.append(reply)

    def wait_event(self, method: str, session: str | None, timeout: float = 30.0
                   ) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        for event in self.events:
            if event.get("method") == method and event.get("sessionId") == session:
                return event
        while True:
            event = self._read(deadline)
            self.events.append(event)
            if event.get("method") == method and event.get("sessionId") == session:
                return event

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or self.proc.poll() is not None:
                raise TimeoutError(f"no answer from chromium: {self.log_tail()}")
            ready, _, _ = select.select([self._from_browser], [], [], min(remaining, 1.0))
            if ready:
                chunk = os.read(self._from_browser, 1 << 20)
                if not chunk:
                    raise RuntimeError(f"chromium closed the pipe: {self.log_tail()}")
                self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        return message

    # --- pages ------------------------------------------------------------------------------
    def open(self, url: str, timeout: float = 60.0) -> Page:
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target,
                                                      "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable", session=session)
        self.send("Page.navigate", {"url": url}, session=session)
        self.wait_event("Page.loadEventFired", session, timeout)
        return Page(self, session)

    def log_tail(self, n: int = 2000) -> str:
        try:
            return (Path(self._log.name).read_text("utf-8", "replace"))[-n:]
        except OSError:
            return ""

    def close(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(OSError, RuntimeError, TimeoutError):
                self.send("Browser.close", timeout=5)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        for fd in (self._to_browser, self._from_browser):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._log.close()

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Page:
    def __init__(self, browser: Chromium, session: str) -> None:
        self.browser = browser
        self.session = session

    def evaluate(self, expression: str) -> Any:
        reply = self.browser.send("Runtime.evaluate", {"expression": expression,
                                                       "returnByValue": True},
                                  session=self.session)
        if "exceptionDetails" in reply:
            raise RuntimeError(f"{expression}: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    def screenshot(self, path: Path, full_page: bool = True) -> Path:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
            size = self.browser.send("Page.getLayoutMetrics", session=self.session)
            content = size["cssContentSize"]
            params["clip"] = {"x": 0, "y": 0, "width": content["width"],
                              "height": min(content["height"], 16000), "scale": 1}
        data = self.browser.send("Page.captureScreenshot", params, session=self.session,
                                 timeout=120)["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def _events(self, *methods: str) -> list[dict[str, Any]]:
        return [e for e in self.browser.events
                if e.get("sessionId") == self.session and e.get("method") in methods]

    def console_errors(self) -> list[str]:
        """Console errors, uncaught exceptions and browser log errors seen so far."""
        errors = []
        for event in self._events("Runtime.consoleAPICalled", "Runtime.exceptionThrown",
                                  "Log.entryAdded"):
            params = event["params"]
            if event["method"] == "Runtime.consoleAPICalled" and params["type"] == "error":
                errors.append(" ".join(str(a.get("value", a.get("description", "")))
                                       for a in params.get("args", [])))
            elif event["method"] == "Runtime.exceptionThrown":
                errors.append(str(params["exceptionDetails"].get("text")))
            elif (event["method"] == "Log.entryAdded"
                  and params["entry"].get("level") == "error"):
                errors.append(str(params["entry"].get("text")))
        return errors

    def requested_urls(self) -> list[str]:
        """Every URL the page asked for (the page itself included)."""
        return [e["params"]["request"]["url"] for e in self._events("Network.requestWillBeSent")]
