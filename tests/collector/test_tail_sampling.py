"""Traces that tail sampling can judge: a request's spans leave together when it ends, so the
gateway's policies see the request span (error status, finish reason, TTFT, the exemplar
flag) within ``decision_wait`` of the trace's first span, whatever the request's length.

Requests of 1 s, 30 s and 120 s (simulated time: a fake clock, no sleeps) run through the real
hooks and span builder; each span's hand-off to the span processor is stamped with the clock.
The arrivals are replayed against the generated gateway's policies and ``decision_wait``
(``servescope.collector.tail_simulation``): with the spans leaving together, every error,
slow and exemplar request is kept as its policy says, even when the export splits a request's
spans over batches as late as the span processor and the agent allow. Exported as each span
ends (what the hooks did before), every request longer than ``decision_wait`` is judged on its
queue and prefill spans alone and kept by none of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.trace import StatusCode

from servescope.collector.tail_simulation import Arrival, SimSpan, simulate
from servescope.instrumentation import FinishReason, Telemetry
from servescope.instrumentation.export import bsp_settings
from servescope.report.prometheus import parse_duration

ROOT = Path(__file__).resolve().parents[2]
GATEWAY = yaml.safe_load((ROOT / "collector" / "gateway.yaml").read_text())
AGENT = yaml.safe_load((ROOT / "collector" / "agent.yaml").read_text())
TAIL = GATEWAY["processors"]["tail_sampling"]
DECISION_WAIT_S = parse_duration(TAIL["decision_wait"])
POLICIES = TAIL["policies"]
#: The longest a span waits between its hand-off and the gateway: the span processor's
#: schedule delay, then the agent's batch timeout (the network's share is small beside them).
EXPORT_DELAY_S = bsp_settings()["schedule_delay_s"] + \
    parse_duration(AGENT["processors"]["batch"]["timeout"])
LENGTHS_S = (1.0, 30.0, 120.0)
KINDS = ("plain", "error", "slow-ttft", "exemplar")


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@dataclass
class HandOff:
    at: float
    span: ReadableSpan


class Recording:
    """A span processor that stamps each span's hand-off with the simulated clock."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.handed: list[HandOff] = []

    def on_start(self, span: Any, parent_context: Any = None) -> None:
        pass

    def on_end(self, span: ReadableSpan) -> None:
        self.handed.append(HandOff(self.clock(), span))

    def shutdown(self) -> None:
        pass

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


def telemetry(clock: Clock, recording: Recording, exemplars: bool) -> Telemetry:
    provider = TracerProvider()
    tel = Telemetry(tracer_provider=provider, clock=clock,
                    exemplar_ratio=1.0 if exemplars else 0.0)
    tel.send_spans_to(provider, recording)
    return tel


def serve(tel: Telemetry, clock: Clock, rid: str, length_s: float, kind: str) -> str:
    """One streamed request of ``length_s`` on the simulated clock; its trace id."""
    t0 = clock.now
    ttft = 3.0 if kind == "slow-ttft" else 0.3
    rec = tel.request(rid, prompt_tokens=12, arrival=t0)
    rec.admitted()
    rec.scheduled(now=t0 + 0.05)
    rec.prefill_done(now=t0 + ttft)
    rec.tokens_committed(1, now=t0 + ttft)
    rec.written(1, now=t0 + ttft)
    clock.now = t0 + length_s
    rec.tokens_committed(int(length_s * 10), now=clock.now)
    rec.delivered(1 + int(length_s * 10), now=clock.now)
    rec.finish(FinishReason.ERROR if kind == "error" else FinishReason.STOP, now=clock.now)
    clock.now += 1000  # traces apart
    assert rec.trace_context is not None
    return rec.trace_context["trace_id"]


def expected(length_s: float, kind: str) -> set[str]:
    """What the generated policies say about a request, judged on all of its spans."""
    out = {"plain": set(), "error": {"errors", "bad-finish"}, "slow-ttft": {"slow-ttft"},
           "exemplar": {"exemplars"}}[kind]
    return out | ({"slow-e2e"} if length_s * 1000 >= policy("slow-e2e")["threshold_ms"] else set())


def policy(name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(p for p in POLICIES if p["name"] == name)
    return found[found["type"]]


def sim_span(tel: Telemetry, span: ReadableSpan) -> SimSpan:
    zero = tel.span_ns(0.0)
    assert span.start_time is not None and span.end_time is not None
    return SimSpan(format(span.context.trace_id, "032x"), span.name,
                   (span.start_time - zero) / 1e9, (span.end_time - zero) / 1e9,
                   dict(span.attributes or {}), span.status.status_code is StatusCode.ERROR)


@pytest.fixture(scope="module")
def requests() -> tuple[list[tuple[float, str, str]], list[SimSpan], list[float], Telemetry]:
    clock = Clock()
    recording = Recording(clock)
    plain_tel = telemetry(clock, recording, exemplars=False)
    exemplar_tel = telemetry(clock, recording, exemplars=True)
    runs = []
    for length in LENGTHS_S:
        for kind in KINDS:
            tel = exemplar_tel if kind == "exemplar" else plain_tel
            runs.append((length, kind, serve(tel, clock, f"{kind}-{length:g}", length, kind)))
    spans = [sim_span(plain_tel, h.span) for h in recording.handed]
    handed_at = [h.at for h in recording.handed]
    return runs, spans, handed_at, plain_tel


def judged(verdicts: dict[str, Any], trace_id: str) -> set[str]:
    return set(verdicts[trace_id].policies) - {"baseline"}  # the baseline is chance


def test_the_rule_of_thumb_holds_for_the_generated_configs() -> None:
    """decision_wait covers a trace's spread of arrivals (the export delay) and the
    processor's one-second decision tick."""
    assert DECISION_WAIT_S >= EXPORT_DELAY_S + 1.0
    assert {p["name"] for p in POLICIES} >= {"errors", "bad-finish", "slow-ttft", "slow-e2e",
                                             "exemplars", "baseline"}


def test_a_requests_spans_leave_together_when_it_ends(requests) -> None:
    runs, spans, handed_at, _ = requests
    for (length, kind, trace_id) in runs:
        times = {at for at, s in zip(handed_at, spans, strict=True) if s.trace_id == trace_id}
        names = sorted(s.name for s in spans if s.trace_id == trace_id)
        assert len(times) == 1, (length, kind)
        assert names == sorted(["queue", "prefill", "decode", "stream",
                                f"text_completion {names[-1].split(' ', 1)[1]}"])


@pytest.mark.parametrize("split_s", [0.0, EXPORT_DELAY_S])
def test_every_error_slow_and_exemplar_request_is_kept_as_its_policy_says(requests,
                                                                          split_s) -> None:
    """Arrivals: the hand-off, and (split_s) the export splitting each request's spans over
    two batches as far apart as the span processor and the agent allow."""
    runs, spans, handed_at, _ = requests
    first: set[str] = set()
    arrivals = []
    for at, span in zip(handed_at, spans, strict=True):
        late = span.trace_id in first
        first.add(span.trace_id)
        arrivals.append(Arrival(at + (split_s if late else 0.0), span))
    verdicts = simulate(arrivals, POLICIES, DECISION_WAIT_S)
    for length, kind, trace_id in runs:
        assert judged(verdicts, trace_id) == expected(length, kind), (length, kind)
        assert verdicts[trace_id].late == ()
    kept = [(length, kind) for length, kind, t in runs if judged(verdicts, t)]
    assert len(kept) == len(runs) - 2  # all but the plain 1 s and 30 s requests


def test_spans_exported_as_each_ends_lose_every_request_longer_than_decision_wait(
        requests) -> None:
    """The contrast (what the hooks did before): the queue and prefill spans arrive when they
    end, the decision falls before the request span arrives."""
    runs, spans, _, _ = requests
    verdicts = simulate([Arrival(s.end_s, s) for s in spans], POLICIES, DECISION_WAIT_S)
    for length, kind, trace_id in runs:
        if length <= DECISION_WAIT_S:
            assert judged(verdicts, trace_id) == expected(length, kind), (length, kind)
        else:
            assert judged(verdicts, trace_id) == set(), (length, kind)
            assert any(s.name.startswith("text_completion") for s in verdicts[trace_id].late)
