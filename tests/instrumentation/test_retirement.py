"""Retiring label children: a model or adapter idle for the idle time leaves the exposition
(exactly its lines, nothing else), frees its slot under the cap, never while a request of it
is in flight, and a write that raced the retirement is not lost. The idle time is the
argument, then ``SERVESCOPE_LABEL_IDLE_S``, then the default."""

from __future__ import annotations

import logging
import math
import threading

import pytest
from prometheus_client import CollectorRegistry, generate_latest
from waiting import poll_until

from servescope.instrumentation import FinishReason, Telemetry
from servescope.instrumentation import catalog as cat
from servescope.instrumentation.labels import MAX_DECLARED_MODELS, OTHER, DeclaredLabels
from servescope.instrumentation.retirement import (
    DEFAULT_IDLE_S,
    IDLE_ENV,
    IdleModels,
    idle_seconds,
)

BASE, ADAPTER = "base", "base:sql-adapter"
IDLE_S = 60.0


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def telemetry(clock: Clock, **kwargs) -> tuple[Telemetry, CollectorRegistry]:
    registry = CollectorRegistry()
    kwargs.setdefault("declared_labels", DeclaredLabels(models=(ADAPTER,)))
    tel = Telemetry(registry=registry, model=BASE, clock=clock, label_idle_s=IDLE_S, **kwargs)
    return tel, registry


def run(tel: Telemetry, rid: str, model: str) -> None:
    rec = tel.request(rid, model=model, prompt_tokens=5)
    rec.admitted()
    rec.scheduled()
    rec.prefill_done()
    rec.tokens_committed(3)
    rec.delivered(3)
    rec.finish(FinishReason.STOP)


def exposition(registry: CollectorRegistry) -> list[str]:
    return generate_latest(registry).decode().splitlines()


def with_model(lines: list[str], model: str) -> list[str]:
    return [line for line in lines if f'model="{model}"' in line]


def scrape_at(clock: Clock, registry: CollectorRegistry, t: float) -> list[str]:
    clock.now = t
    return exposition(registry)


def test_an_idle_adapter_leaves_the_exposition_exactly() -> None:
    clock = Clock()
    tel, registry = telemetry(clock)
    run(tel, "a1", ADAPTER)
    run(tel, "b1", BASE)
    before = scrape_at(clock, registry, 1000.0)
    assert len(with_model(before, ADAPTER)) > 20  # histograms, counters, the in-flight gauge
    assert 'servescope_requests_arrived_total{model="base:sql-adapter",priority="default"} ' \
           '1.0' in before
    # idle, but not yet for the idle time: nothing changes
    assert scrape_at(clock, registry, 1000.0 + IDLE_S - 1) == before
    run(tel, "b2", BASE)  # the served model keeps working (and never retires)
    just_before = scrape_at(clock, registry, 1000.0 + IDLE_S - 0.5)
    assert with_model(just_before, ADAPTER) == with_model(before, ADAPTER)
    during = scrape_at(clock, registry, 1000.0 + IDLE_S + 1)
    # exactly the adapter's lines left; every other line is as it was
    assert during == [line for line in just_before if ADAPTER not in line]
    assert 'servescope_requests_arrived_total{model="base",priority="default"} 2.0' in during
    assert scrape_at(clock, registry, 1000.0 + 100 * IDLE_S) == during  # base: pinned


def test_a_request_in_flight_holds_its_model_and_the_retired_model_returns_intact() -> None:
    clock = Clock()
    tel, registry = telemetry(clock)
    run(tel, "a1", ADAPTER)
    scrape_at(clock, registry, 1000.0)
    long = tel.request("a2", model=ADAPTER)  # a request that outlives many idle times
    for t in range(1, 20):
        lines = scrape_at(clock, registry, 1000.0 + t * IDLE_S)
        assert f'servescope_requests_in_flight{{model="{ADAPTER}"}} 1.0' in lines
    long.finish(FinishReason.STOP)
    t_end = 1000.0 + 20 * IDLE_S
    assert with_model(scrape_at(clock, registry, t_end), ADAPTER)
    assert with_model(scrape_at(clock, registry, t_end + IDLE_S), ADAPTER) == []
    # the adapter comes back: its series return with their totals (no reset while parked)
    run(tel, "a3", ADAPTER)
    back = scrape_at(clock, registry, t_end + IDLE_S + 2)
    assert 'servescope_requests_arrived_total{model="base:sql-adapter",priority="default"} ' \
           '3.0' in back
    assert f'servescope_requests_in_flight{{model="{ADAPTER}"}} 0.0' in back


def test_a_write_through_a_reference_taken_before_the_retirement_is_not_lost() -> None:
    clock = Clock()
    tel, registry = telemetry(clock)
    run(tel, "a1", ADAPTER)
    held = tel.metrics.child(cat.ARRIVED, model=ADAPTER, priority="default")  # a racing hook
    before = with_model(scrape_at(clock, registry, 1000.0), ADAPTER)
    assert with_model(scrape_at(clock, registry, 1000.0 + IDLE_S), ADAPTER) == []
    held.inc()  # lands on the parked child
    # the next scrape brings every child of the adapter back (its request may write any)
    arrived = 'servescope_requests_arrived_total{model="base:sql-adapter",priority="default"}'
    assert with_model(scrape_at(clock, registry, 1000.0 + IDLE_S + 2), ADAPTER) == \
        [line.replace(f"{arrived} 1.0", f"{arrived} 2.0") for line in before]
    # untouched after that: parked again, then dropped for good after a second idle time
    scrape_at(clock, registry, 1000.0 + 3 * IDLE_S)
    assert with_model(scrape_at(clock, registry, 1000.0 + 4 * IDLE_S), ADAPTER) == []
    scrape_at(clock, registry, 1000.0 + 5 * IDLE_S)
    held.inc()  # a reference older than two idle times: the child is gone
    assert with_model(scrape_at(clock, registry, 1000.0 + 6 * IDLE_S), ADAPTER) == []


def test_a_discovered_model_frees_its_slot_under_the_cap() -> None:
    clock = Clock()
    tel, registry = telemetry(clock, declared_labels=DeclaredLabels(discover_models=True),
                              label_caps={cat.MODEL: 1})
    run(tel, "x1", "llama-a")
    run(tel, "y1", "llama-b")  # past the cap: folds
    lines = scrape_at(clock, registry, 1000.0)
    assert with_model(lines, "llama-b") == [] and with_model(lines, OTHER)
    assert with_model(scrape_at(clock, registry, 1000.0 + IDLE_S), "llama-a") == []
    run(tel, "y2", "llama-b")  # the slot is free: llama-b gets its own series
    lines = scrape_at(clock, registry, 1000.0 + IDLE_S + 2)
    assert 'servescope_requests_arrived_total{model="llama-b",priority="default"} 1.0' in lines
    run(tel, "x2", "llama-a")  # and llama-a, back, is past the cap now
    assert tel.metrics.label_value(cat.MODEL, "llama-a") == OTHER


def test_a_learnt_model_gives_its_place_to_a_new_one_when_it_retires() -> None:
    clock = Clock()
    tel, registry = telemetry(clock)
    learnt = [f"lora-{i}" for i in range(MAX_DECLARED_MODELS)]
    tel.declare_models(learnt)
    run(tel, "l0", learnt[0])
    tel.declare_models(["lora-new"])  # no place left: folds
    assert tel.metrics.label_value(cat.MODEL, "lora-new") == OTHER
    scrape_at(clock, registry, 1000.0)
    scrape_at(clock, registry, 1000.0 + IDLE_S)  # lora-0 retires
    tel.declare_models(["lora-new"])
    assert tel.metrics.label_value(cat.MODEL, "lora-new") == "lora-new"
    assert tel.metrics.label_value(cat.MODEL, learnt[0]) == OTHER
    # a learnt model still in use keeps its place
    assert tel.metrics.label_value(cat.MODEL, learnt[1]) == learnt[1]
    # configured names never give theirs
    assert tel.metrics.label_value(cat.MODEL, ADAPTER) == ADAPTER


def test_zero_turns_retirement_off() -> None:
    clock = Clock()
    registry = CollectorRegistry()
    tel = Telemetry(registry=registry, model=BASE, clock=clock, label_idle_s=0,
                    declared_labels=DeclaredLabels(models=(ADAPTER,)))
    run(tel, "a1", ADAPTER)
    scrape_at(clock, registry, 1000.0)
    assert with_model(scrape_at(clock, registry, 1000.0 + 1e6), ADAPTER)


def test_the_idle_time_is_argument_then_environment_then_default(monkeypatch, caplog) -> None:
    monkeypatch.delenv(IDLE_ENV, raising=False)
    assert idle_seconds() == DEFAULT_IDLE_S
    monkeypatch.setenv(IDLE_ENV, "120")
    assert idle_seconds() == 120.0
    assert idle_seconds(30) == 30.0
    assert idle_seconds(0) is None
    monkeypatch.setenv(IDLE_ENV, "0")
    assert idle_seconds() is None
    with caplog.at_level(logging.WARNING, logger="servescope.instrumentation"):
        monkeypatch.setenv(IDLE_ENV, "soon")
        assert idle_seconds() == DEFAULT_IDLE_S
    assert IDLE_ENV in caplog.text
    for bad in (-1, float("nan"), "60", True):
        with pytest.raises(ValueError, match="label_idle_s"):
            idle_seconds(bad)  # type: ignore[arg-type]


def test_requests_racing_scrapes_that_retire_lose_nothing() -> None:
    """Four threads run requests of two adapters while a scraper retires them whenever it
    can (its clock jumps half an idle time per scrape, so between two scrapes in one slice of
    the interpreter every model looks idle), until many retirements raced the requests: when
    all is done, every arrival, finish and token is in the exposition. Parked children are
    kept here (a dropped child restarts from zero by design, tested above): what is checked
    is that no write races into a void."""
    clock = Clock()
    models = (ADAPTER, "b:x")
    tel, registry = telemetry(clock, declared_labels=DeclaredLabels(models=models))
    tel.metrics.idle = IdleModels(IDLE_S, [BASE], keep_s=math.inf)
    stop = threading.Event()
    retired: list[str] = []
    served = [0] * 4

    def scrape() -> None:
        while not stop.is_set():
            clock.now += IDLE_S / 2
            retired.extend(tel.metrics.retire_idle())

    def serve(i: int) -> None:
        while not stop.is_set():
            run(tel, f"r{i}-{served[i]}", models[(i + served[i]) % 2])
            served[i] += 1

    threads = [threading.Thread(target=scrape),
               *(threading.Thread(target=serve, args=(i,)) for i in range(4))]
    for t in threads:
        t.start()
    try:
        poll_until(lambda: len(retired) >= 5 and min(served) >= 20,
                   what="retirements racing requests")
    finally:
        stop.set()
        for t in threads:
            t.join()
    # one more request of each model brings back every child parked at the end
    tel.metrics.idle = IdleModels(math.inf, [BASE], keep_s=math.inf)
    for model in models:
        run(tel, f"last-{model}", model)
    clock.now += 2
    tel.metrics.retire_idle()

    def total(name: str) -> float:
        return sum(s.value for m in registry.collect() for s in m.samples
                   if s.name == name and s.labels.get("model") in models)

    n = sum(served) + len(models)
    assert total("servescope_requests_arrived_total") == n
    assert total("servescope_requests_finished_total") == n
    assert total("gen_ai_server_request_duration_seconds_count") == n
    assert total("servescope_tokens_total") == n * (5 + 3 + 3 + 3)
    assert total("servescope_requests_in_flight") == 0
