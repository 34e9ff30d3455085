"""The engine end to end on a tiny model: finishes, rejections, cancels, deadlines, faults."""

from __future__ import annotations

import asyncio
import threading

import pytest
from prometheus_client import CollectorRegistry
from waiting import poll_until

from servescope.instrumentation import FinishReason, Telemetry
from servescope.reference.client.engine import Engine, RequestHandle
from servescope.reference.config import EngineConfig, ModelConfig
from servescope.reference.core.request import GenerationRequest
from servescope.reference.core.tokenizer import EOS_ID

TINY = ModelConfig(dim=32, n_layers=1, n_heads=4, n_kv_heads=2, hidden_dim=64, max_context=128)


def make_engine(registry: CollectorRegistry | None = None, **overrides: object) -> Engine:
    cfg = EngineConfig(model=TINY, block_size=8, num_blocks=64, max_batch=8, **overrides)
    return Engine(cfg, Telemetry(registry=registry or CollectorRegistry()))


def drain(handle: RequestHandle, timeout_s: float = 10.0) -> list[int]:
    out: list[int] = []
    while (chunk := handle.get_chunk(timeout_s)) is not None:
        assert chunk, "no progress within the timeout"
        out += chunk
        handle.delivered(len(chunk))
    return out


def req(rid: str, text: str = "hello world", max_tokens: int = 12, **kw: object
        ) -> GenerationRequest:
    return GenerationRequest(rid, list(text.encode()), max_tokens, **kw)  # type: ignore[arg-type]


def test_generates_max_tokens_then_length_and_releases_everything() -> None:
    with make_engine() as engine:
        handles = [engine.submit(req(f"r{i}", "x" * (i + 3), max_tokens=10)) for i in range(5)]
        outs = [drain(h) for h in handles]
        assert engine.wait_idle(5)
        stats = engine.stats()
    assert [len(o) for o in outs] == [10] * 5
    assert all(h.finish_reason is FinishReason.LENGTH for h in handles)
    assert all(h.completion_tokens == 10 for h in handles)
    assert all(0 <= t < 256 for o in outs for t in o)
    assert stats.idle and stats.free_blocks == 64 and stats.used_slots == 0
    summary = handles[0].recorder.summary()
    assert summary.finish_reason is FinishReason.LENGTH
    assert summary.committed_tokens == summary.delivered_tokens == 10
    assert summary.discarded_tokens == 0


def test_stop_token_ends_with_stop_and_is_not_emitted() -> None:
    with make_engine() as engine:
        first = drain(engine.submit(req("probe", max_tokens=6)))
        stop = first[3]
        handle = engine.submit(req("stopper", max_tokens=6, stop_token_ids=(stop,)))
        out = drain(handle)
    assert handle.finish_reason is FinishReason.STOP
    assert out == first[:first.index(stop)]


@pytest.mark.parametrize(("prompt", "why"), [
    ([], "empty_prompt"), ([1] * 128, "prompt_too_long"), ([1, 999], "invalid_token")])
def test_rejections_are_finished_handles_with_a_reason(prompt: list[int], why: str) -> None:
    registry = CollectorRegistry()
    with make_engine(registry) as engine:
        handle = engine.submit(GenerationRequest("bad", prompt, 4))
        assert handle.finish_reason is FinishReason.REJECTED
        assert handle.reject_reason == why
        assert handle.get_chunk(1) is None
        handle.cancel()  # a later signal: a counted no-op
    assert registry.get_sample_value("servescope_requests_rejected_total",
                                     {"model": "default", "reason": why}) == 1
    assert handle.recorder.summary().ignored_signals == (FinishReason.CLIENT_CANCEL,)


def test_queue_full_rejects_beyond_max_waiting() -> None:
    engine = make_engine(max_waiting=2)  # not started: everything stays waiting
    handles = [engine.submit(req(f"r{i}")) for i in range(3)]
    assert [h.reject_reason for h in handles] == [None, None, "queue_full"]
    engine.shutdown()
    assert [h.finish_reason for h in handles[:2]] == [FinishReason.ERROR] * 2


def test_cancel_mid_stream_drops_the_tail_and_frees_kv() -> None:
    with make_engine(step_delay_s=0.002) as engine:
        handle = engine.submit(req("c", max_tokens=100))
        first = handle.get_chunk(5, max_tokens=1)
        assert first
        handle.cancel()
        assert handle.wait(5) is FinishReason.CLIENT_CANCEL
        assert engine.wait_idle(5)
    assert handle.get_chunk(1) is None
    assert handle.completion_tokens < 100


def test_cancel_closes_the_reader_at_once_and_discards_the_buffer() -> None:
    with make_engine(stream_capacity=4, stream_low_watermark=1) as engine:
        handle = engine.submit(req("paused", max_tokens=50))
        poll_until(lambda: handle.buffered == 4, what="the stream full", timeout_s=30)
        assert handle.finish_reason is None  # paused, full
        handle.cancel()
        assert handle.get_chunk(0) is None  # before the scheduler even applied the cancel
        assert handle.wait(5) is FinishReason.CLIENT_CANCEL
        assert engine.wait_idle(5)
    summary = handle.recorder.summary()
    assert summary.delivered_tokens == 0 and summary.discarded_tokens == 4


def test_deadline_finishes_with_deadline() -> None:
    with make_engine(step_delay_s=0.005) as engine:
        handle = engine.submit(req("d", max_tokens=100, deadline_s=0.05))
        assert handle.wait(5) is FinishReason.DEADLINE
        assert engine.wait_idle(5)


def test_injected_fault_fails_only_its_request() -> None:
    with make_engine(fault_request_ids=frozenset({"bad"})) as engine:
        bad = engine.submit(req("bad"))
        good = engine.submit(req("good"))
        assert len(drain(good)) == 12
        assert bad.wait(5) is FinishReason.ERROR
        assert good.finish_reason is FinishReason.LENGTH
        assert engine.wait_idle(5)


def test_whole_batch_fault_every_n_steps_keeps_serving() -> None:
    with make_engine(fault_every_n_steps=7) as engine:
        handles = [engine.submit(req(f"r{i}", max_tokens=30)) for i in range(3)]
        for h in handles:
            drain(h)
        later = engine.submit(req("later", max_tokens=3))
        drain(later)
        assert engine.wait_idle(5)
    assert all(h.finish_reason is FinishReason.ERROR for h in handles)
    assert later.finish_reason in (FinishReason.LENGTH, FinishReason.ERROR)


def test_async_consumer_on_another_loop() -> None:
    result: list[int] = []

    async def consume(handle: RequestHandle) -> None:
        while (chunk := await handle.next_chunk(4)) is not None:
            assert len(chunk) <= 4
            result.extend(chunk)
            handle.delivered(len(chunk))

    with make_engine() as engine:
        handle = engine.submit(req("a", max_tokens=20))
        t = threading.Thread(target=lambda: asyncio.run(consume(handle)))
        t.start()
        t.join(10)
        assert engine.wait_idle(5)
    assert len(result) == 20
    assert handle.recorder.summary().delivered_tokens == 20


def test_shutdown_finishes_live_requests_and_refuses_new_ones() -> None:
    engine = make_engine(step_delay_s=0.01)
    engine.start()
    handle = engine.submit(req("live", max_tokens=100))
    handle.get_chunk(5)
    engine.shutdown()
    assert handle.finish_reason is FinishReason.ERROR
    assert engine.submit(req("late")).reject_reason == "shutting_down"
    assert engine.stats().idle


def test_config_errors_name_the_field() -> None:
    with pytest.raises(ValueError, match=r"^stream_low_watermark"):
        EngineConfig(stream_capacity=4, stream_low_watermark=4)
    with pytest.raises(ValueError, match=r"^n_kv_heads"):
        ModelConfig(n_heads=4, n_kv_heads=3)
    with pytest.raises(ValueError, match=r"^nope"):
        EngineConfig.from_dict({"nope": 1})
    with pytest.raises(ValueError, match=r"^dim"):
        EngineConfig.from_dict({"model": {"dim": 0}})
    cfg = EngineConfig().replace(max_batch=4, fault_request_ids=["a"])
    assert cfg.max_batch == 4 and cfg.fault_request_ids == frozenset({"a"})
    with pytest.raises(ValueError, match=r"^max_tokens"):
        GenerationRequest("r", [1], 0)
    with pytest.raises(ValueError, match=r"^deadline_s"):
        GenerationRequest("r", [1], 1, deadline_s=-1)
    with pytest.raises(ValueError, match=r"^num_blocks"):
        EngineConfig(num_blocks=2, block_size=16)  # cannot hold one max_context request
    with pytest.raises(ValueError, match=r"^kv_admission_reserve"):
        EngineConfig(kv_admission_reserve=1.0)
    assert EngineConfig.from_dict(cfg.to_dict()) == cfg


def test_hooks_off_runs_the_same_work_and_records_nothing() -> None:
    from servescope.instrumentation import NullTelemetry

    registry = CollectorRegistry()
    cfg = EngineConfig(model=TINY, block_size=8, num_blocks=64, max_batch=8)
    with Engine(cfg, NullTelemetry(registry=registry)) as engine:
        handles = [engine.submit(req(f"r{i}", "x" * (i + 3), max_tokens=10)) for i in range(3)]
        outs = [drain(h) for h in handles]
        assert engine.wait_idle(5)
    with make_engine() as engine:
        expected = [drain(engine.submit(req(f"r{i}", "x" * (i + 3), max_tokens=10)))
                    for i in range(3)]
    assert outs == expected
    assert all(h.finish_reason is FinishReason.LENGTH for h in handles)
    assert registry.get_sample_value("servescope_requests_arrived_total",
                                     {"model": "default", "priority": "default"}) is None


def test_trace_context_is_honoured_and_phases_are_spans(tracing: object) -> None:
    provider, exporter = tracing.provider, tracing.exporter  # type: ignore[attr-defined]
    trace_id = "4bf92f3577b34da6a3ce929d0e0e4736"
    carrier = {"traceparent": f"00-{trace_id}-00f067aa0ba902b7-01"}
    cfg = EngineConfig(model=TINY, block_size=8, num_blocks=64, max_batch=8)
    telemetry = Telemetry(registry=CollectorRegistry(), tracer_provider=provider)
    with Engine(cfg, telemetry) as engine:
        handle = engine.submit(req("traced", max_tokens=5, carrier=carrier))
        drain(handle)
        assert engine.wait_idle(5)
    spans = exporter.get_finished_spans()
    assert {format(s.context.trace_id, "032x") for s in spans} == {trace_id}
    root = [s for s in spans if s.parent is not None and s.parent.span_id == 0x00f067aa0ba902b7]
    assert len(root) == 1
    children = {s.name for s in spans if s.parent is not None
                and s.parent.span_id == root[0].context.span_id}
    assert {"queue", "prefill", "decode", "stream"} <= {n.split()[-1] for n in children}
    assert root[0].attributes["gen_ai.response.finish_reasons"] == ("length",)


def test_generation_stops_at_the_context_end() -> None:
    with make_engine() as engine:
        handle = engine.submit(GenerationRequest("edge", [65] * 127, 50, ignore_eos=True))
        assert len(drain(handle)) == 1
    assert handle.finish_reason is FinishReason.LENGTH


def test_stream_decoder_holds_partial_utf8_characters() -> None:
    from servescope.reference.core.tokenizer import ByteTokenizer

    tok = ByteTokenizer()
    text = "naïve café € 😀"
    ids = tok.encode(text)
    decoder = tok.stream_decoder()
    pieces = [decoder.feed([i]) for i in ids]
    assert "".join(pieces) + decoder.flush() == text
    assert "\ufffd" not in "".join(pieces)
    assert pieces[ids.index(0xF0)] == ""  # the first byte of the emoji alone is held back
    assert tok.decode(ids) == text
    assert tok.decode([*ids, EOS_ID]) == text  # specials never decode to text
    half = tok.stream_decoder()
    assert half.feed(ids[-4:-2]) == "" and half.flush() == "\ufffd"
