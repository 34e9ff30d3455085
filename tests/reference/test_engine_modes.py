"""Both engine modes give the same telemetry.

The same scripted load (sequential requests, so every step is the same in both modes) runs
through the engine in process and through the engine in its own process; the two registries
must hold the same families and label sets, and equal counts where the load fixes them. The
per-step series (forward time, step tokens) once went missing in the engine-process mode
because its step message left them out: this test names any family one mode lacks.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from waiting import poll_until

from servescope.instrumentation.null import NullSpanExporter
from servescope.reference.config import EngineConfig, ModelConfig
from servescope.reference.transport.server import LocalServer

TINY = ModelConfig(dim=32, n_layers=1, n_heads=4, n_kv_heads=2, hidden_dim=64, max_context=256)
MODEL = "tiny-modes"
#: (max_tokens, stream) of each request, sent one after another
LOAD = [(8, True), (5, False), (12, True), (3, False), (16, True)]
#: families whose counts the load fixes (sequential requests, ignore_eos)
DETERMINISTIC = ("servescope_requests_arrived_total", "servescope_requests_finished_total",
                 "servescope_tokens_total", "servescope_step_tokens_count",
                 "servescope_step_tokens_sum", "gen_ai_client_token_usage_count",
                 "gen_ai_client_token_usage_sum")


def _config() -> EngineConfig:
    return EngineConfig(model=TINY, block_size=8, num_blocks=256, max_batch=8, max_waiting=32,
                        stream_capacity=64, stream_low_watermark=8)


def _run(engine_process: bool) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    server = LocalServer(_config(), model_name=MODEL, span_exporter=NullSpanExporter(),
                         engine_process={"lease_s": 10.0} if engine_process else False)
    server.start()
    try:
        for max_tokens, stream in LOAD:
            _complete(server.url, max_tokens, stream)
        # a client has its body before the server has counted its last write: wait until
        # every request has left (in flight 0) and the engine holds nothing
        poll_until(lambda: _in_flight(server) == 0 and server.engine.wait_idle(0.1),
                   what="the load to leave the server")
        return _samples(server)
    finally:
        server.stop()


def _complete(url: str, max_tokens: int, stream: bool) -> None:
    body = json.dumps({"model": MODEL, "prompt": "the same load in both modes",
                       "max_tokens": max_tokens, "stream": stream, "ignore_eos": True,
                       "temperature": 0}).encode()
    req = urllib.request.Request(f"{url}/v1/completions", body,
                                 {"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as resp:
        resp.read()  # a stream ends with [DONE]: the request is finished when the body is


def _in_flight(server: LocalServer) -> float:
    return sum(v for (name, _), v in _samples(server).items()
               if name == "servescope_requests_in_flight")


def _samples(server: LocalServer) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    out: dict[tuple[str, frozenset[tuple[str, str]]], float] = {}
    for metric in server.telemetry.registry.collect():
        for sample in metric.samples:
            if sample.name.endswith("_created"):
                continue
            out[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return out


@pytest.fixture(scope="module")
def modes() -> Iterator[dict[str, dict[Any, float]]]:
    yield {"in_process": _run(False), "engine_process": _run(True)}


def _families(samples: dict[Any, float]) -> set[str]:
    return {name for name, _ in samples}


def test_every_family_of_one_mode_is_in_the_other(modes: dict[str, dict[Any, float]]) -> None:
    inproc, remote = (_families(modes[m]) for m in ("in_process", "engine_process"))
    assert inproc - remote == set(), "missing with --engine-process"
    assert remote - inproc == set(), "missing in process"


def test_the_per_step_series_have_samples_in_both_modes(
        modes: dict[str, dict[Any, float]]) -> None:
    for mode, samples in modes.items():
        for family in ("servescope_step_forward_time_seconds_count",
                       "servescope_step_tokens_count"):
            phases = {dict(labels).get("phase"): value
                      for (name, labels), value in samples.items() if name == family}
            assert phases.get("prefill", 0) > 0 and phases.get("decode", 0) > 0, (mode, family)


def test_every_label_set_matches_and_fixed_counts_are_equal(
        modes: dict[str, dict[Any, float]]) -> None:
    inproc, remote = modes["in_process"], modes["engine_process"]
    assert set(inproc) - set(remote) == set()
    assert set(remote) - set(inproc) == set()
    for key, value in inproc.items():
        if key[0] in DETERMINISTIC:
            assert remote[key] == value, key
