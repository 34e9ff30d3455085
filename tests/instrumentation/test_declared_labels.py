"""Label values are declared, not discovered: a flood of 10,000 distinct client-chosen
priorities and model names leaves the configured classes their series and the series count
bounded; a client-chosen adapter name carrying an email, a card number or a person's name
folds into ``other``, counted, on every family and on the span."""

from __future__ import annotations

from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client import CollectorRegistry

from servescope.instrumentation import DeclaredLabels, FinishReason, setup_telemetry

CLASSES = ("interactive", "batch")
MODELS = ("llama-3-8b", "llama-3-8b:sql-adapter")
ADAPTERS_WITH_PII = ("lora-alice@example.com", "lora-4111111111111111", "lora-alice-smith")


def series(registry: CollectorRegistry) -> int:
    return sum(len(m.samples) for m in registry.collect())


def values(registry: CollectorRegistry, family: str, label: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for metric in registry.collect():
        for s in metric.samples:
            if s.name == family:
                out[s.labels[label]] = out.get(s.labels[label], 0.0) + s.value
    return out


def folded(registry: CollectorRegistry, label: str) -> float:
    return registry.get_sample_value("servescope_telemetry_label_values_folded_total",
                                     {"metric": "servescope_requests_arrived",
                                      "label": label}) or 0.0


def run(tel, rid: str, *, model: str | None = None, priority: str = "default") -> None:
    rec = tel.request(rid, model=model, priority=priority)
    rec.admitted()
    rec.finish(FinishReason.STOP)


def test_a_flood_of_distinct_values_keeps_the_declared_series_and_a_bounded_count(
        tmp_path) -> None:
    registry = CollectorRegistry()
    setup = setup_telemetry(registry=registry, model=MODELS[0], trace_file=tmp_path / "t",
                            span_exporter=InMemorySpanExporter(),
                            declared_labels=DeclaredLabels(priorities=CLASSES, models=MODELS))
    tel = setup.telemetry
    for cls in CLASSES:
        run(tel, f"before-{cls}", priority=cls)
    baseline = series(registry)
    for i in range(10_000):  # p1x1 ... p10000x1 and as many model names
        run(tel, f"junk-{i}", priority=f"p{i}x1", model=f"m{i}x1")
    for cls in CLASSES:
        run(tel, f"after-{cls}", priority=cls, model=MODELS[1])
    arrived = values(registry, "servescope_requests_arrived_total", "priority")
    assert arrived == {"interactive": 2.0, "batch": 2.0, "other": 10_000.0}
    models = values(registry, "servescope_requests_arrived_total", "model")
    assert models == {MODELS[0]: 2.0, MODELS[1]: 2.0, "other": 10_000.0}
    # the flood added only the `other` rows (and the fold counters), never a series per value
    assert series(registry) - baseline < 400
    assert folded(registry, "priority") == folded(registry, "model") == 10_000
    setup.shutdown(2)


def test_an_adapter_name_carrying_pii_folds_on_every_family_and_the_span(tmp_path) -> None:
    registry, exporter = CollectorRegistry(), InMemorySpanExporter()
    setup = setup_telemetry(registry=registry, model=MODELS[0], trace_file=tmp_path / "t",
                            span_exporter=exporter,
                            declared_labels=DeclaredLabels(models=MODELS))
    tel = setup.telemetry
    for i, name in enumerate(ADAPTERS_WITH_PII):
        run(tel, f"r{i}", model=name)
    run(tel, "ok", model=MODELS[1])
    setup.force_flush()
    for family in ("arrived", "admitted", "finished"):
        got = values(registry, f"servescope_requests_{family}_total", "model")
        assert got == {"other": 3.0, MODELS[1]: 1.0}, (family, got)
    text = "".join(str(m.samples) for m in registry.collect())
    assert not any(part in text for part in ("alice", "4111111111111111"))
    assert folded(registry, "model") == 3.0
    spans = [s for s in exporter.get_finished_spans() if s.attributes]
    assert not any("alice" in str(v) or "4111" in str(v)
                   for s in spans for v in s.attributes.values())
    setup.shutdown(2)


def test_discovered_model_names_still_pass_the_detectors(tmp_path) -> None:
    """With discovery on, an undeclared name is kept only if its shape and the detectors
    pass: the email and the card number fold. A person's name is no pattern any detector can
    know: only the declared list (the default) keeps it off a label."""
    registry = CollectorRegistry()
    setup = setup_telemetry(registry=registry, model=MODELS[0], trace_file=tmp_path / "t",
                            span_exporter=InMemorySpanExporter(),
                            declared_labels=DeclaredLabels(models=MODELS, discover_models=True))
    tel = setup.telemetry
    for i, name in enumerate((*ADAPTERS_WITH_PII[:2], "lora-AKIAIOSFODNN7EXAMPLE",
                              "sql-adapter-v2")):
        run(tel, f"r{i}", model=name)
    got = values(registry, "servescope_requests_arrived_total", "model")
    assert got == {"other": 3.0, "sql-adapter-v2": 1.0}
    setup.shutdown(2)


def test_models_learnt_at_run_time_get_their_series_and_keep_their_span_name() -> None:
    """A proxy learns the engine's served names from its /v1/models: a name folded before
    then gets its own series, spans keep it unhashed, and the set stays capped."""
    from servescope.instrumentation.labels import MAX_DECLARED_MODELS

    registry, exporter = CollectorRegistry(), InMemorySpanExporter()
    setup = setup_telemetry(model="gateway", registry=registry, span_exporter=exporter)
    tel = setup.telemetry
    run(tel, "before", model="engine-model")
    assert values(registry, "servescope_requests_arrived_total", "model") == {"other": 1.0}
    tel.declare_models(["engine-model"])
    run(tel, "after", model="engine-model")
    assert values(registry, "servescope_requests_arrived_total", "model") == {
        "other": 1.0, "engine-model": 1.0}
    setup.force_flush()
    spans = {s.attributes["servescope.request.id"]: s for s in exporter.get_finished_spans()
             if "servescope.request.id" in (s.attributes or {})}
    assert spans["after"].attributes["gen_ai.request.model"] == "engine-model"
    tel.declare_models(f"m{i}" for i in range(10 * MAX_DECLARED_MODELS))
    for i in range(10 * MAX_DECLARED_MODELS):
        run(tel, f"flood-{i}", model=f"m{i}")
    assert len(values(registry, "servescope_requests_arrived_total", "model")) <= \
        MAX_DECLARED_MODELS + 1
    setup.shutdown()


def test_a_learnt_model_name_with_personal_data_folds_on_every_family_and_the_span() -> None:
    """What a proxy learns from its engine's /v1/models passes the detectors first: the names
    with a finding are not declared, so they fold into ``other``, counted, like any name the
    engine does not list; the span redaction does not learn them as served names either."""
    registry, exporter = CollectorRegistry(), InMemorySpanExporter()
    setup = setup_telemetry(model="gateway", registry=registry, span_exporter=exporter)
    tel = setup.telemetry
    listed = ("lora-alice@example.com", "ft-4111111111111111",
              "meta-llama/Llama-3.1-8B-Instruct")
    assert tel.declare_models(listed) == {listed[2]}
    for i, name in enumerate(listed):
        run(tel, f"r{i}", model=name)
    assert values(registry, "servescope_requests_arrived_total", "model") == {
        "other": 2.0, listed[2]: 1.0}
    assert folded(registry, "model") == 2.0
    setup.force_flush()
    spans = [s for s in exporter.get_finished_spans() if s.attributes]
    exported = " ".join(f"{s.name} {dict(s.attributes)}" for s in spans)
    assert listed[2] in exported
    assert "alice@example.com" not in exported and "4111111111111111" not in exported
    setup.shutdown()
