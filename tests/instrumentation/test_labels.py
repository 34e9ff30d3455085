"""The label guard decides once per (label key, value) for every family; client-chosen values
(priority, model) are declared, not discovered: anything undeclared folds into ``other``
(counted), and discovered model names must also pass the shape check and the detectors, on the
value exactly as received, before they become a label or a span attribute."""

from __future__ import annotations

import random

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client import CollectorRegistry

from servescope.instrumentation import FinishReason, Telemetry, setup_telemetry
from servescope.instrumentation import catalog as cat
from servescope.instrumentation.labels import (
    OTHER,
    DeclaredLabels,
    LabelGuard,
    model_shape_ok,
)
from servescope.instrumentation.tracing import ATTR
from servescope.redaction import scan

PRIORITIES = [f"class-{c}" for c in "abcdefghijkl"]  # 12 values, 8 declared
DECLARED = DeclaredLabels(priorities=tuple(PRIORITIES[:8]))
DISCOVER = DeclaredLabels(discover_models=True)


def per_label(registry: CollectorRegistry, family: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for metric in registry.collect():
        for s in metric.samples:
            if s.name == family:
                out[s.labels["priority"]] = out.get(s.labels["priority"], 0.0) + s.value
    return out


@pytest.mark.parametrize("seed", range(5))
def test_per_label_sums_agree_across_families_whatever_the_order(seed: int) -> None:
    """Values reach the families in different orders (a value's first sighting may be on
    ``finished`` rather than ``arrived``); each family still keeps and folds the same ones."""
    rng = random.Random(seed)
    registry = CollectorRegistry()
    tel = Telemetry(registry=registry, model="m", declared_labels=DECLARED)
    arrivals = [rng.choice(PRIORITIES) for _ in range(200)]
    # time to first token and arrivals in a shuffled order, interleaved with other values
    # (the two families that carry priority)
    for prio in arrivals[:50]:
        tel.metrics.child(cat.SERVER_TTFT, model="m", priority=prio).observe(0.1)
    for prio in arrivals:
        tel.metrics.child(cat.ARRIVED, model="m", priority=prio).inc()
    for prio in arrivals[50:]:
        tel.metrics.child(cat.SERVER_TTFT, model="m", priority=prio).observe(0.1)
    arrived = per_label(registry, "servescope_requests_arrived_total")
    first_tokens = per_label(registry, "gen_ai_server_time_to_first_token_seconds_count")
    assert arrived == first_tokens
    assert len(arrived) == 9 and OTHER in arrived  # 8 declared values and other


def test_guard_decides_once_per_key_and_value() -> None:
    guard = LabelGuard({"pool": 2})
    assert [guard.decide("pool", v) for v in ("a", "b", "c", "a", "c")] == \
        ["a", "b", OTHER, "a", OTHER]


PII_VALUES = [
    "4111111111111111", "5555555555554444", "15551234567", "447911123456", "123456",
    "alice@example.com", "sk-abcdefghijklmnopqrstuvwxyz123456", "AKIAIOSFODNN7EXAMPLE",
    "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "with space", "",
    "x-4111-1111-1111-1111", "de89370400440532013000",
]


@pytest.mark.parametrize("value", PII_VALUES)
def test_client_values_that_look_like_pii_never_become_labels(value: str) -> None:
    check = LabelGuard(value_check=lambda v: not scan(v), declared=DISCOVER)
    assert check.decide("priority", value) == OTHER  # undeclared
    assert check.decide("model", value) == OTHER  # refused by shape or detectors


@pytest.mark.parametrize("value", ["AKIAIOSFODNN7EXAMPLE",
                                   "ghp_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ12"])
def test_the_detectors_see_the_value_exactly_as_received(value: str) -> None:
    """Lowercasing first would hide an AWS key id from its detector (``akia...``)."""
    assert model_shape_ok(value) and scan(value)
    assert LabelGuard(value_check=lambda v: not scan(v), declared=DISCOVER).decide(
        "model", value) == OTHER


@pytest.mark.parametrize("value", ["interactive", "batch-low", "p_1", "0", "7", "-1", "1000"])
def test_declared_priority_classes_are_kept_and_nothing_else(value: str) -> None:
    guard = LabelGuard(declared=DeclaredLabels(priorities=(value,)))
    assert guard.decide("priority", value) == value
    assert guard.decide("priority", value + "x") == OTHER


def test_junk_values_cannot_push_a_declared_class_out() -> None:
    guard = LabelGuard(declared=DeclaredLabels(priorities=("interactive", "batch")))
    assert [guard.decide("priority", f"p{i}x1") for i in range(1, 8)] == [OTHER] * 7
    assert guard.decide("priority", "interactive") == "interactive"


def test_undeclared_names_fold_unless_discovery_is_on() -> None:
    key = "sk-abcdefghijklmnopqrstuvwxyz"
    assert LabelGuard().decide("model", "Llama-3.1-8B-Instruct") == OTHER  # not declared
    discover = LabelGuard(declared=DISCOVER)
    assert discover.decide("model", "Llama-3.1-8B-Instruct") == "Llama-3.1-8B-Instruct"
    assert discover.decide("model", key) == key  # no detectors injected
    assert LabelGuard(value_check=lambda v: not scan(v), declared=DISCOVER).decide(
        "model", key) == OTHER


def test_a_failing_check_folds_rather_than_lets_through() -> None:
    def broken(value: str) -> bool:
        raise RuntimeError("detector down")

    assert LabelGuard(value_check=broken, declared=DISCOVER).decide("model", "llama") == OTHER


def test_declared_models_are_kept_unchecked() -> None:
    def refuse(value: str) -> bool:
        return False

    guard = LabelGuard(value_check=refuse, declared=DeclaredLabels(models=("org/My-Model",)))
    assert guard.decide("model", "org/My-Model") == "org/My-Model"


def test_names_learnt_at_run_time_pass_the_pii_check() -> None:
    """An engine's list is configuration, but a name in it with PII stays undeclared (and
    folds); a check that fails declares nothing."""
    from servescope.redaction.redactor import scan_joined  # setup_telemetry's check

    guard = LabelGuard(value_check=lambda v: not scan_joined(v))
    listed = ["lora-alice@example.com", "ft-4111111111111111", "org/Model-8B", "org/Model-8B"]
    assert guard.declarable(listed) == ("org/Model-8B",)
    assert guard.declare_models(listed)
    assert [guard.decide("model", n) for n in listed[:3]] == [OTHER, OTHER, "org/Model-8B"]

    def broken(value: str) -> bool:
        raise RuntimeError("detector down")

    down = LabelGuard(value_check=broken)
    assert down.declarable(["org/Model-8B"]) == () and not down.declare_models(["org/Model-8B"])


ENGINE_NAMES = ["Mixtral-8x7B-Instruct-v0.1", "claude-3-5-sonnet-20241022", "/models/tiny.gguf",
                "llama-2-7b-chat.Q4_K_M.gguf", "hf.co/bartowski/Llama-3.2-3B-Instruct-GGUF:Q4_K_M",
                "ft:gpt-4o-mini-2024-07-18:acme::9xYzAbCd",
                "sentence-transformers/all-MiniLM-L6-v2",
                "adapter-customer-acme-tenant-4471"]
HIDING_VALUES = [
    "lora-gb82west12345698765432",  # an IBAN in lower case
    "lora-4539148803436467x",  # a card glued to a letter
    "lora-eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJxdW9ra2E3Iiw",  # a JWT's parts
    "b64-emVsZGEucXVva2thN0BmYXN0bWFpbC5jb20",  # an address, base64
    "lora-447911123456", "lora-07911123456", "lora-536228471",  # phones, an SSN
    "lora_sk-proj-Q7vXk2Lm9Pz4Rt8Wn3Yb6Hc1Jd5Fg0Ks2Ae7Uo4Ip9Ty",  # a key after "_"
    "Zelda Quokka", "x" * 300, "a\x00b", "a\u202eb", "a\tb"]


def test_names_an_engine_lists_pass_a_shape_check_too() -> None:
    """An engine that loads adapters at run time lets a client name one: a listed name
    with a value the detectors miss alone (glued, encoded, digits only) or an odd shape
    stays undeclared; the names engines really list are declared."""
    from servescope.redaction.redactor import scan_joined

    guard = LabelGuard(value_check=lambda v: not scan_joined(v))
    assert guard.declarable(ENGINE_NAMES + HIDING_VALUES) == tuple(ENGINE_NAMES)


def test_a_bad_declaration_names_the_field() -> None:
    with pytest.raises(ValueError, match="priorities"):
        DeclaredLabels(priorities=("Alice Smith",))
    with pytest.raises(ValueError, match="models"):
        DeclaredLabels(models=("",))


def test_pii_priority_folds_on_every_label_and_span_and_is_counted(tmp_path) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    registry = CollectorRegistry()
    setup = setup_telemetry(registry=registry, span_exporter=exporter, model="m",
                            trace_file=tmp_path / "t.jsonl")
    tel = setup.telemetry
    card = "4111111111111111"
    for prio in (card, "sk-abcdefghijklmnopqrstuvwxyz", "interactive"):
        rec = tel.request(f"r-{prio[:4]}", priority=prio)
        rec.admitted()
        rec.finish(FinishReason.STOP)
    setup.force_flush()
    arrived = per_label(registry, "servescope_requests_arrived_total")
    assert arrived == {"other": 2.0, "interactive": 1.0}, arrived
    priorities = {s.attributes.get(ATTR.PRIORITY) for s in exporter.get_finished_spans()
                  if ATTR.PRIORITY in (s.attributes or {})}
    assert priorities == {"other", "interactive"}
    assert registry.get_sample_value("servescope_telemetry_label_values_folded_total",
                                     {"metric": "servescope_requests_arrived",
                                      "label": "priority"}) == 2.0
    setup.shutdown(2)
