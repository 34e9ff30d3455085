"""``docs/request-lifecycle.md`` against a real request: the hooks it names, in its order.

The document's "One request, hook by hook" section is a numbered list whose items start with a
hook's name. A real streamed chat completion goes through the reference server (in process, a
real socket, httpx); every call of those hooks is recorded (the real hook still runs), and the
first call of each must come in the document's order, with ``finish`` after every other call.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from waiting import poll_until

from servescope.instrumentation import Telemetry
from servescope.instrumentation.request_recorder import RequestRecorder
from servescope.reference.config import EngineConfig, ModelConfig
from servescope.reference.transport.server import LocalServer

DOC = Path(__file__).resolve().parents[2] / "docs" / "request-lifecycle.md"
SECTION = "## One request, hook by hook"
TINY = ModelConfig(dim=32, n_layers=1, n_heads=4, n_kv_heads=2, hidden_dim=64, max_context=256)
MODEL = "tiny-ref"
TELEMETRY_HOOKS = ("request", "step")  # the rest are RequestRecorder methods


def documented_steps() -> list[str]:
    """The hook names of the section's numbered list, in the document's order."""
    text = DOC.read_text(encoding="utf-8")
    assert SECTION in text, f"{DOC.name} lost its section {SECTION!r}"
    body = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\d+\. `(\w+)`", body, flags=re.MULTILINE)


def _record(monkeypatch: pytest.MonkeyPatch, hooks: list[str]) -> list[str]:
    """Wrap each named hook so that its calls are listed (in call order) before it runs."""
    calls: list[str] = []
    for name in hooks:
        owner: type[Any] = Telemetry if name in TELEMETRY_HOOKS else RequestRecorder
        original = getattr(owner, name, None)
        assert callable(original), f"the document names {name!r}, which is no hook"
        monkeypatch.setattr(owner, name, _listing(name, original, calls))
    return calls


def _listing(name: str, original: Callable[..., Any], calls: list[str]) -> Callable[..., Any]:
    @functools.wraps(original)
    def hook(self: Any, *args: Any, **kwargs: Any) -> Any:
        report = args[0] if args else None
        if name != "step" or report.advanced:  # idle reports carry no request
            calls.append(name)
        return original(self, *args, **kwargs)
    return hook


def test_the_document_lists_its_steps() -> None:
    steps = documented_steps()
    assert len(steps) >= 5 and len(set(steps)) == len(steps), steps
    assert steps[0] == "request" and steps[-1] == "finish"


def test_a_real_request_calls_the_documented_hooks_in_order(
        monkeypatch: pytest.MonkeyPatch) -> None:
    steps = documented_steps()
    calls = _record(monkeypatch, steps)
    config = EngineConfig(model=TINY)
    body = {"model": MODEL, "stream": True, "max_tokens": 8, "ignore_eos": True,
            "messages": [{"role": "user", "content": "walk me through it"}]}
    with LocalServer(config, model_name=MODEL, chunk_tokens=2) as server:
        with httpx.Client(base_url=server.url, timeout=60) as client, \
                client.stream("POST", "/v1/chat/completions", json=body) as response:
            assert response.status_code == 200
            lines = list(response.iter_lines())
        assert "data: [DONE]" in lines, lines[-3:]
        poll_until(lambda: "finish" in calls, what="the request's finish hook")
    seen = list(calls)
    missing = [s for s in steps if s not in seen]
    assert not missing, f"documented hooks never called: {missing} (calls: {seen})"
    # the step report ends the iteration that pushed the tokens, so the writer may send them
    # before it (the document says so): ``step`` is placed between the prefill and the finish
    ordered = [s for s in steps if s != "step"]
    firsts = sorted(ordered, key=seen.index)
    assert firsts == ordered, f"first calls came in the order {firsts}, the document says {steps}"
    assert seen.index("prefill_done") < seen.index("step") < seen.index("finish"), seen
    assert seen.count("finish") == 1 and seen[-1] == "finish", seen
