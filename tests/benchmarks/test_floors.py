"""The gateway benchmark's floors (``benchmarks/asgi_relay.py``, ``benchmarks/bare_relay.py``)
are proxies: a real client gets through them what it gets from the engine directly. A floor
that dropped or reordered chunks would read as a cheap path and make the gateway look slow."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import openai
import pytest
from waiting import poll_until

from servescope.harness.stub_engine import StubServer
from servescope.report.launcher import free_port

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _accepts(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture(scope="module")
def stub() -> Iterator[StubServer]:
    with StubServer() as server:
        yield server


def _streamed(base_url: str) -> tuple[list[str], str | None, int | None]:
    client = openai.OpenAI(base_url=base_url, api_key="none", max_retries=0, timeout=30)
    texts: list[str] = []
    finish = None
    usage = None
    for chunk in client.completions.create(model="stub-model", prompt="hello", max_tokens=7,
                                           stream=True, stream_options={"include_usage": True}):
        for choice in chunk.choices:
            texts.append(choice.text)
            finish = choice.finish_reason or finish
        if chunk.usage is not None:
            usage = chunk.usage.completion_tokens
    return texts, finish, usage


@pytest.mark.parametrize("script", ["asgi_relay.py", "bare_relay.py"])
def test_a_floor_relays_the_stream_as_the_engine_sends_it(stub: StubServer, script: str) -> None:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-P", str(BENCHMARKS / script), "--port",
                             str(port), "--upstream-port", str(stub.port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        poll_until(lambda: _accepts(port), what=script, alive=proc)
        direct = _streamed(f"{stub.url}/v1")
        through = _streamed(f"http://127.0.0.1:{port}/v1")
    finally:
        proc.terminate()
        proc.wait(10)
    assert direct[0] and direct[1] == "length" and direct[2] == 7
    assert through == direct
