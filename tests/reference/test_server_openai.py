"""The official openai SDK against the running reference server (real engine, real uvicorn)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import openai
import pytest
from openai import OpenAI
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client.openmetrics.parser import text_string_to_metric_families
from timing import slack_s
from waiting import poll_until

from servescope.instrumentation.tracing import ATTR
from servescope.reference.config import EngineConfig, ModelConfig
from servescope.reference.transport.server import LocalServer

TINY = ModelConfig(dim=32, n_layers=1, n_heads=4, n_kv_heads=2, hidden_dim=64, max_context=256)
MODEL = "tiny-ref"


class Served:
    def __init__(self, config: EngineConfig) -> None:
        self.exporter = InMemorySpanExporter()
        self.server = LocalServer(config, model_name=MODEL, span_exporter=self.exporter).start()
        self.client = OpenAI(base_url=f"{self.server.url}/v1", api_key="unused", max_retries=0)

    def sample(self, name: str, **labels: str) -> float:
        value = self.server.setup.registry.get_sample_value(name, {"model": MODEL, **labels})
        return value or 0.0

    def spans(self) -> list:
        self.server.setup.force_flush()
        return list(self.exporter.get_finished_spans())

    def request_span(self, request_id: str):
        # The span ends when the scheduler records the terminal state, which may be just
        # after the client got its last byte.
        return poll_until(lambda: next(
            (span for span in self.spans() if span.attributes.get(ATTR.REQUEST_ID) == request_id
             and span.kind.name == "SERVER"), None),
            what=f"the request span of {request_id}", timeout_s=5.0, interval_s=0.02)


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    s = Served(EngineConfig(model=TINY, block_size=8, num_blocks=256, max_batch=8))
    yield s
    s.server.stop()


@pytest.fixture(scope="module")
def paced() -> Iterator[Served]:
    """A server whose steps take >= 5 ms, so a stream lasts long enough to cut it."""
    s = Served(EngineConfig(model=TINY, block_size=8, num_blocks=256, max_batch=8,
                            step_delay_s=0.005))
    yield s
    s.server.stop()


def test_sdk_streams_a_completion_with_usage_and_finish_reason(served: Served) -> None:
    prompt = "Once upon a time"
    stream = served.client.completions.create(
        model=MODEL, prompt=prompt, max_tokens=24, stream=True,
        stream_options={"include_usage": True}, extra_body={"ignore_eos": True})
    chunks = list(stream)
    text = "".join(c.choices[0].text for c in chunks if c.choices)
    finals = [c.choices[0].finish_reason for c in chunks if c.choices and
              c.choices[0].finish_reason]
    assert finals == ["length"]
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert chunks[-1].usage.completion_tokens == 24
    assert chunks[-1].usage.prompt_tokens == len(prompt.encode())
    assert chunks[-1].usage.total_tokens == 24 + len(prompt.encode())
    assert len(text) == 24  # the reference model emits printable ASCII: one char per token
    assert len({c.id for c in chunks}) == 1 and chunks[0].id.startswith("cmpl-")


def test_sdk_streams_a_chat_completion(served: Served) -> None:
    stream = served.client.chat.completions.create(
        model=MODEL, messages=[{"role": "system", "content": "be brief"},
                               {"role": "user", "content": "hi"}],
        max_tokens=16, stream=True, stream_options={"include_usage": True},
        extra_body={"ignore_eos": True})
    chunks = list(stream)
    assert chunks[0].choices[0].delta.role == "assistant"
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert len(text) == 16
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "length"
    assert chunks[-1].usage is not None and chunks[-1].usage.completion_tokens == 16
    assert chunks[0].object == "chat.completion.chunk"


def test_non_streamed_completion_and_chat(served: Served) -> None:
    done = served.client.completions.create(model=MODEL, prompt="abc", max_tokens=5,
                                            extra_body={"ignore_eos": True})
    assert done.choices[0].finish_reason == "length" and len(done.choices[0].text) == 5
    assert done.usage is not None and done.usage.completion_tokens == 5
    assert done.usage.prompt_tokens == 3
    chat = served.client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "x"}], max_tokens=7,
        extra_body={"ignore_eos": True})
    assert chat.choices[0].message.role == "assistant"
    assert len(chat.choices[0].message.content or "") == 7
    assert chat.usage is not None and chat.usage.completion_tokens == 7


def test_metrics_count_the_request_and_exemplar_points_to_an_exported_trace(
        served: Served) -> None:
    assert served.server.engine.wait_idle(5.0)  # earlier tests' requests are recorded
    before_length = served.sample("servescope_requests_finished_total",
                                  finish_reason="length")
    before_delivered = served.sample("servescope_tokens_total", stage="delivered")
    chunks = list(served.client.completions.create(
        model=MODEL, prompt="trace me", max_tokens=12, stream=True,
        extra_body={"ignore_eos": True}))
    request_id = chunks[0].id
    assert served.server.engine.wait_idle(5.0)  # the scheduler has recorded the finish
    exposition = httpx.get(f"{served.server.url}/metrics",
                           headers={"Accept": "application/openmetrics-text"}).text
    assert served.sample("servescope_requests_finished_total",
                         finish_reason="length") == before_length + 1
    assert served.sample("servescope_tokens_total", stage="delivered") == before_delivered + 12
    # The end-to-end histogram's exemplar for this latency is this request's trace.
    exemplar_traces = set()
    for family in text_string_to_metric_families(exposition):
        if family.name == "gen_ai_server_request_duration_seconds":
            for sample in family.samples:
                if sample.exemplar is not None:
                    exemplar_traces.add(sample.exemplar.labels["trace_id"])
    span = served.request_span(request_id)
    trace_id = format(span.context.trace_id, "032x")
    assert trace_id in exemplar_traces
    assert span.attributes[ATTR.FINISH_REASON] == "length"
    assert span.attributes[ATTR.TOKENS_DELIVERED] == 12


def test_traceparent_makes_the_request_span_a_child_of_the_callers_trace(
        served: Served) -> None:
    trace_id, parent_id = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
    done = served.client.completions.create(
        model=MODEL, prompt="hello", max_tokens=3,
        extra_headers={"traceparent": f"00-{trace_id}-{parent_id}-01"})
    span = served.request_span(done.id)
    assert format(span.context.trace_id, "032x") == trace_id
    assert span.parent is not None and format(span.parent.span_id, "016x") == parent_id


def test_models_and_healthz(served: Served) -> None:
    models = served.client.models.list()
    assert [m.id for m in models.data] == [MODEL]
    health = httpx.get(f"{served.server.url}/healthz").json()
    assert health["status"] == "ok" and health["total_blocks"] == 256


def test_deadline_header_ends_the_stream_with_deadline(paced: Served) -> None:
    chunks = list(paced.client.completions.create(
        model=MODEL, prompt="slow", max_tokens=200, stream=True,
        extra_body={"ignore_eos": True}, extra_headers={"x-servescope-deadline-s": "0.1"}))
    final = [c for c in chunks if c.choices and c.choices[0].finish_reason][-1]
    assert final.choices[0].finish_reason == "length"  # OpenAI has no "deadline"
    assert final.model_extra["servescope_finish_reason"] == "deadline"
    assert 0 < sum(len(c.choices[0].text) for c in chunks if c.choices) < 200
    # recorded once the writer has confirmed what the client got (just after [DONE])
    assert paced.server.engine.wait_idle(5.0)
    assert paced.sample("servescope_requests_finished_total",
                        finish_reason="deadline") >= 1


def test_deadline_body_field_is_honoured_too(paced: Served) -> None:
    done = paced.client.completions.create(
        model=MODEL, prompt="slow", max_tokens=200,
        extra_body={"ignore_eos": True, "deadline_s": 0.1})
    assert done.model_extra["servescope_finish_reason"] == "deadline"
    assert done.usage is not None and 0 < done.usage.completion_tokens < 200


def test_client_disconnect_mid_stream_becomes_a_cancel_at_once(paced: Served) -> None:
    before = paced.sample("servescope_requests_finished_total",
                          finish_reason="client_cancel")
    body = {"model": MODEL, "prompt": "go", "max_tokens": 200, "stream": True,
            "ignore_eos": True}
    with httpx.stream("POST", f"{paced.server.url}/v1/completions", json=body) as response:
        lines = response.iter_lines()
        while not next(lines).startswith("data: "):
            pass
        cut_at = time.monotonic()
    poll_until(lambda: paced.sample("servescope_requests_finished_total",
                                    finish_reason="client_cancel") != before,
               what="the disconnect noticed", timeout_s=slack_s(2.0), interval_s=0.01)
    assert time.monotonic() - cut_at < slack_s(2.0), "the disconnect was not noticed at once"
    assert paced.server.engine.wait_idle(30.0)


def test_single_token_stop_sequences_end_with_stop_and_are_not_sent(served: Served) -> None:
    free = served.client.completions.create(model=MODEL, prompt="abc", max_tokens=30,
                                            extra_body={"ignore_eos": True})
    text = free.choices[0].text
    assert len(text) == 30  # the reference model is deterministic (fixed-seed weights)
    stop = text[6]
    cut = served.client.completions.create(model=MODEL, prompt="abc", max_tokens=30,
                                           stop=[stop], extra_body={"ignore_eos": True})
    assert cut.choices[0].finish_reason == "stop"
    assert cut.choices[0].text == text[:text.index(stop)]
    assert cut.usage is not None and cut.usage.completion_tokens == text.index(stop)


def test_priority_class_from_header_or_body_labels_the_metrics(served: Served) -> None:
    url = f"{served.server.url}/v1/completions"
    body = {"model": MODEL, "prompt": "hi", "max_tokens": 2}
    assert httpx.post(url, json=body, headers={"x-servescope-priority": "Interactive"},
                      timeout=10).status_code == 200
    assert httpx.post(url, json={**body, "priority": 3}, timeout=10).status_code == 200
    for prio in ("interactive", "3"):
        assert served.sample("servescope_requests_arrived_total", priority=prio) == 1.0
    bad = httpx.post(url, json={**body, "priority": "gold; drop table"}, timeout=10)
    assert bad.status_code == 400 and bad.json()["error"]["param"] == "priority"


def test_undeclared_priority_classes_fold_and_are_counted(served: Served) -> None:
    """Declared, not discovered: 7 junk classes cannot push a configured one out."""
    url = f"{served.server.url}/v1/completions"
    body = {"model": MODEL, "prompt": "hi", "max_tokens": 2}
    before = served.sample("servescope_requests_arrived_total", priority="other") or 0.0
    for i in range(1, 8):
        assert httpx.post(url, json={**body, "priority": f"p{i}x1"}, timeout=10).is_success
    assert httpx.post(url, json={**body, "priority": "AKIAIOSFODNN7EXAMPLE"},
                      timeout=10).is_success
    assert httpx.post(url, json={**body, "priority": "batch"}, timeout=10).is_success
    assert served.sample("servescope_requests_arrived_total", priority="other") == before + 8
    assert served.sample("servescope_requests_arrived_total", priority="batch") == 1.0
    text = httpx.get(f"{served.server.url}/metrics", timeout=10).text
    assert "p1x1" not in text and "AKIA" not in text and "akia" not in text


def test_undeclared_priority_classes_can_be_refused_by_configuration() -> None:
    config = EngineConfig(model=TINY, block_size=8, num_blocks=64, max_batch=4,
                          priority_classes=("gold", "silver"), unknown_priority="reject")
    with LocalServer(config, model_name=MODEL, span_exporter=InMemorySpanExporter()) as srv:
        body = {"model": MODEL, "prompt": "hi", "max_tokens": 2}
        url = f"{srv.url}/v1/completions"
        refused = httpx.post(url, json={**body, "priority": "interactive"}, timeout=10)
        assert refused.status_code == 400 and refused.json()["error"]["param"] == "priority"
        assert httpx.post(url, json={**body, "priority": "Gold"}, timeout=10).is_success
        # a request that names no class (the openai SDK sends none) is not an unknown one:
        # served, under the priority label "default", never folded
        assert httpx.post(url, json=body, timeout=10).is_success
        registry = srv.setup.registry
        # (with the "interactive" request refused above, counted before its class was read)
        assert registry.get_sample_value("servescope_requests_arrived_total",
                                         {"model": MODEL, "priority": "default"}) == 2.0
        assert registry.get_sample_value("servescope_requests_arrived_total",
                                         {"model": MODEL, "priority": "other"}) is None
    with pytest.raises(ValueError, match="unknown_priority"):
        EngineConfig(unknown_priority="drop")
    with pytest.raises(ValueError, match="priority_classes"):
        EngineConfig.from_dict({"priority_classes": "gold"})


def test_adapters_are_served_listed_and_counted_as_models_of_their_own() -> None:
    """An adapter in the config is a model clients may name: /v1/models lists it (its
    parent the base model), its answers carry its name, its requests are counted under it,
    and an unknown name's 404 lists every served one. Through the openai SDK."""
    config = EngineConfig(model=TINY, block_size=8, num_blocks=64, max_batch=4,
                          adapters=("support-lora",))
    with LocalServer(config, model_name=MODEL, span_exporter=InMemorySpanExporter()) as srv:
        client = openai.OpenAI(base_url=f"{srv.url}/v1", api_key="none", max_retries=0)
        listed = {m.id: (m.model_extra or {}).get("parent") for m in client.models.list()}
        assert listed == {MODEL: None, "support-lora": MODEL}
        answer = client.completions.create(model="support-lora", prompt="hi", max_tokens=2)
        assert answer.model == "support-lora"
        chunks = list(client.chat.completions.create(
            model="support-lora", messages=[{"role": "user", "content": "hi"}], max_tokens=2,
            stream=True))
        assert {c.model for c in chunks} == {"support-lora"}
        assert client.completions.create(model=MODEL, prompt="hi", max_tokens=2).model == MODEL
        with pytest.raises(openai.NotFoundError) as missing:
            client.completions.create(model="other-lora", prompt="hi", max_tokens=2)
        assert MODEL in str(missing.value) and "support-lora" in str(missing.value)
        registry = srv.setup.registry
        assert registry.get_sample_value("servescope_requests_arrived_total",
                                         {"model": "support-lora", "priority": "default"}) == 2
        assert registry.get_sample_value("servescope_requests_arrived_total",
                                         {"model": MODEL, "priority": "default"}) == 2
