"""The redaction stage, measured side by side in one run.

  spans      spans/s through RedactingSpanExporter (realistic spans: ~10 attributes; with GenAI
             content capture on, one 1-4 KB prompt attribute each), beside a pass-through copy
  strings    strings/s and MB/s of servescope's detectors and of Presidio's analyzer (pattern
             recognizers only, NLP engine `no_op`) on the same strings
  recall     both tools on the labelled corpus of tests/redaction (per kind), and their rate of
             findings on the negatives (ids, UUIDs, digests, timestamps, epochs, versions, ...)
  faults     requests/s of a recorder-driven workload with the OTLP exporter + redaction while
             the receiver is healthy (with and without redaction), down, stalled or flapping:
             the hooks never wait on the exporter; the export thread competes for the GIL

Run: python benchmarks/redaction.py [--spans 2000] [--repeat 3] [--quick]
Presidio: `pip install -e '.[bench]'` (presidio-analyzer); without it that column says why.
Prints a table and one JSON line.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import logging
import random
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from servescope.redaction import (
    KINDS,
    ContentCapture,
    Policy,
    RedactingSpanExporter,
    Redactor,
    scan,
)

ROOT = Path(__file__).resolve().parents[1]


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


corpus = _load("redaction_corpus", ROOT / "tests" / "redaction" / "redaction_corpus.py")


class NullExporter(SpanExporter):
    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        pass


class CopyExporter(SpanExporter):
    """The pass-through baseline: copies each span the way the redacting stage does."""

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        for s in spans:
            ReadableSpan(name=s.name, context=s.context, parent=s.parent, resource=s.resource,
                         attributes=dict(s.attributes or {}), events=list(s.events),
                         links=list(s.links), kind=s.kind, status=s.status,
                         start_time=s.start_time, end_time=s.end_time,
                         instrumentation_scope=s.instrumentation_scope)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        pass


_PROSE = ("the model should summarise this report about quarterly revenue and the customer "
          "asked for a short answer with bullet points please include the totals for each "
          "region and explain the variance against last year in plain language")
_WORDS = _PROSE.split()


def prompt(rng: random.Random) -> str:
    """1-4 KB of prose; one in ten carries a piece of PII, as real prompts sometimes do."""
    size = rng.randint(1024, 4096)
    words: list[str] = []
    while sum(len(w) + 1 for w in words) < size:
        words.append(rng.choice(_WORDS))
    if rng.random() < 0.1:
        kind = rng.choice(list(corpus.POSITIVES))
        words.insert(rng.randrange(len(words)), corpus.POSITIVES[kind](rng))
    return " ".join(words)[:size]


def make_spans(n: int, capture: bool, rng: random.Random) -> list[ReadableSpan]:
    sink = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "llm-inference",
                                                        "service.version": "1.4.2"}))
    provider.add_span_processor(SimpleSpanProcessor(sink))
    tracer = provider.get_tracer("bench")
    for _ in range(n):
        attrs: dict[str, Any] = {
            "servescope.request.id": str(uuid.UUID(int=rng.getrandbits(128))),
            "gen_ai.operation.name": "chat", "gen_ai.request.model": "llama-3.1-8b-instruct",
            "gen_ai.usage.input_tokens": rng.randint(10, 4000),
            "gen_ai.usage.output_tokens": rng.randint(1, 1000),
            "servescope.priority": "default", "servescope.finish_reason": "stop",
            "servescope.ttft_seconds": rng.random(), "http.request.method": "POST",
            "url.path": "/v1/chat/completions", "user_agent.original": "OpenAI/Python 1.54.0",
            "client.address": f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.7",
        }
        if capture:
            attrs["gen_ai.input.messages"] = prompt(rng)
        with tracer.start_as_current_span("chat llama-3.1-8b-instruct", attributes=attrs):
            pass
    return list(sink.get_finished_spans())


def spans_per_second(exporter: SpanExporter, spans: list[ReadableSpan], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for i in range(0, len(spans), 512):
            exporter.export(spans[i:i + 512])
        best = min(best, time.perf_counter() - t0)
    return len(spans) / best


def bench_spans(n: int, repeat: int) -> dict[str, float]:
    rng = random.Random(7)
    plain = make_spans(n, capture=False, rng=rng)
    with_prompt = make_spans(n, capture=True, rng=rng)
    policy = Policy.default()
    off = Redactor(dataclasses.replace(policy, content_capture=ContentCapture.NO_CONTENT),
                   hash_key=b"bench")
    on = Redactor(dataclasses.replace(policy, content_capture=ContentCapture.SPAN_AND_EVENT),
                  hash_key=b"bench")
    return {
        "copy_only": spans_per_second(CopyExporter(), plain, repeat),
        "capture_off": spans_per_second(RedactingSpanExporter(NullExporter(), off),
                                        with_prompt, repeat),
        "capture_on": spans_per_second(RedactingSpanExporter(NullExporter(), on),
                                       with_prompt, repeat),
        "no_prompt": spans_per_second(RedactingSpanExporter(NullExporter(), on), plain, repeat),
    }


# --- per-string, beside Presidio ----------------------------------------------------------
PRESIDIO_KINDS = {"EMAIL_ADDRESS": ("email",), "CREDIT_CARD": ("credit_card",),
                  "IBAN_CODE": ("iban",), "US_SSN": ("us_ssn",), "PHONE_NUMBER": ("phone",),
                  "IP_ADDRESS": ("ipv4", "ipv6")}


def presidio_analyzer() -> tuple[Any, str]:
    """(analyzer, "") or (None, why not)."""
    try:
        import tldextract  # presidio's e-mail recognizer; keep it off the network

        tldextract.tldextract.TLD_EXTRACTOR = tldextract.TLDExtract(suffix_list_urls=())
        from presidio_analyzer import AnalyzerEngine
        from presidio_analyzer.nlp_engine import NlpEngineProvider
    except ImportError as exc:
        return None, f"not installed ({exc.name}); pip install -e '.[bench]'"
    logging.getLogger("presidio-analyzer").setLevel(logging.ERROR)
    nlp = NlpEngineProvider(nlp_configuration={
        "nlp_engine_name": "no_op", "models": [{"lang_code": "en", "model_name": "no_op"}],
    }).create_engine()
    engine = AnalyzerEngine(nlp_engine=nlp, supported_languages=["en"])
    from importlib.metadata import version

    return engine, f"presidio-analyzer {version('presidio-analyzer')}"


def _ours(text: str) -> list[tuple[str, int, int]]:
    return [(f.kind, f.start, f.end) for f in scan(text)]


def _presidio(engine: Any) -> Callable[[str], list[tuple[str, int, int]]]:
    def run(text: str) -> list[tuple[str, int, int]]:
        out = []
        for r in engine.analyze(text=text, language="en"):
            for kind in PRESIDIO_KINDS.get(r.entity_type, ("other:" + r.entity_type,)):
                out.append((kind, r.start, r.end))
        return out
    return run


def throughput(fn: Callable[[str], object], strings: list[str], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for s in strings:
            fn(s)
        best = min(best, time.perf_counter() - t0)
    return len(strings) / best


def recall(fn: Callable[[str], list[tuple[str, int, int]]], samples: list[Any],
           kinds: Sequence[str]) -> dict[str, Any]:
    hit: Counter[str] = Counter()
    total: Counter[str] = Counter()
    neg = neg_any = 0
    negatives = 0
    for s in samples:
        found = fn(s.text)
        if s.kind is None:
            negatives += 1
            neg += any(not k.startswith("other:") for k, _, _ in found)
            neg_any += bool(found)
            continue
        total[s.kind] += 1
        start = s.text.index(s.value)
        end = start + len(s.value)
        covered = any(k in (s.kind,) or (s.kind in ("ipv4", "ipv6") and k in ("ipv4", "ipv6"))
                      for k, a, b in found if a <= start and b >= end)
        hit[s.kind] += covered
    return {"per_kind": {k: hit[k] / total[k] for k in kinds if total[k]},
            "negatives_flagged": neg / negatives, "negatives_any_entity": neg_any / negatives}


# --- exporter faults ----------------------------------------------------------------------
def bench_faults(requests: int) -> dict[str, dict[str, float]]:
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
    from prometheus_client import CollectorRegistry

    from servescope.instrumentation import FinishReason, StepReport, setup_telemetry
    from servescope.instrumentation import catalog as cat
    from servescope.redaction import RedactionStage

    rx = _load("otlp_receiver", ROOT / "tests" / "otlp_receiver.py")
    logging.getLogger("opentelemetry").setLevel(logging.CRITICAL)
    results: dict[str, dict[str, float]] = {}
    for mode in ("healthy", "healthy, no redaction", "down", "stalled", "flapping"):
        receiver = rx.OtlpReceiver()
        if mode != "down":
            receiver.start()
        receiver.behaviour.delay_s = 2.0 if mode == "stalled" else 0.0
        receiver.behaviour.flap_every = 1 if mode == "flapping" else 0
        registry = CollectorRegistry()
        stage = None if mode.endswith("no redaction") else RedactionStage(hash_key=b"b")
        setup = setup_telemetry(
            registry=registry, max_queue_size=2048, redaction=stage,
            span_exporter=OTLPSpanExporter(endpoint=receiver.endpoint, insecure=True,
                                           timeout=2))
        tel = setup.telemetry
        t0 = time.perf_counter()
        for i in range(requests):
            rec = tel.request(f"req-{i}", prompt_tokens=16)
            rec.admitted()
            rec.scheduled()
            rec.prefill_done()
            tel.step(StepReport(advanced=((rec, 8, 0),)))
            rec.delivered(8)
            rec.finish(FinishReason.STOP)
        elapsed = time.perf_counter() - t0
        t1 = time.perf_counter()
        setup.shutdown(timeout_s=1.0)
        dropped = sum((registry.get_sample_value(f"{cat.SPANS_DROPPED.name}_total",
                                                 {"reason": r}) or 0.0)
                      for r in ("queue_full", "export_failed"))
        results[mode] = {"requests_per_s": requests / elapsed,
                         "shutdown_s": time.perf_counter() - t1, "spans_dropped": dropped}
        receiver.stop()
    return results


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spans", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="smaller sizes (a smoke run)")
    args = ap.parse_args(argv)
    if args.quick:
        args.spans, args.repeat = 200, 1

    spans = bench_spans(args.spans, args.repeat)

    rng = random.Random(11)
    samples = corpus.build()
    strings = [s.text for s in samples] + [prompt(rng) for _ in range(100 if not args.quick
                                                                      else 10)]
    megabytes = sum(len(s.encode()) for s in strings) / 1e6
    ours_sps = throughput(_ours, strings, args.repeat)
    ours_recall = recall(_ours, samples, KINDS)
    engine, presidio_info = presidio_analyzer()
    presidio: dict[str, Any] | None = None
    if engine is not None:
        run = _presidio(engine)
        run(strings[0])  # warm-up: recognizer set-up
        presidio = {"strings_per_s": throughput(run, strings, 1),
                    **recall(run, samples, KINDS)}
    faults = bench_faults(300 if args.quick else 2000)

    print(f"redaction benchmark ({len(strings)} strings, {megabytes:.2f} MB; "
          f"{args.spans} spans; best of {args.repeat})")
    print(f"{'span stage':<34}{'spans/s':>12}{'us/span':>10}")
    for name, rate in spans.items():
        print(f"  {name:<32}{rate:>12,.0f}{1e6 / rate:>10.1f}")
    print(f"{'detectors, same strings':<34}{'strings/s':>12}{'MB/s':>10}")
    print(f"  {'servescope':<32}{ours_sps:>12,.0f}{ours_sps * megabytes / len(strings):>10.2f}")
    if presidio is not None:
        p = presidio["strings_per_s"]
        print(f"  {presidio_info:<32}{p:>12,.0f}{p * megabytes / len(strings):>10.2f}"
              f"   ({ours_sps / p:.0f}x)")
    else:
        print(f"  presidio: {presidio_info}")
    print(f"{'recall on the corpus':<34}{'servescope':>12}{'presidio':>10}")
    for kind in KINDS:
        theirs = "-"
        if presidio is not None and any(kind in v for v in PRESIDIO_KINDS.values()):
            theirs = f"{presidio['per_kind'][kind]:.3f}"
        elif presidio is not None:
            theirs = "no recog."
        print(f"  {kind:<32}{ours_recall['per_kind'][kind]:>12.3f}{theirs:>10}")
    print(f"  {'negatives flagged (PII kinds)':<32}{ours_recall['negatives_flagged']:>12.3f}"
          f"{presidio['negatives_flagged'] if presidio else float('nan'):>10.3f}")
    if presidio is not None:
        print(f"  {'negatives, any presidio entity':<32}{'':>12}"
              f"{presidio['negatives_any_entity']:>10.3f}")
    print(f"{'recorder workload, OTLP exporter':<34}{'req/s':>12}{'x healthy':>10}"
          f"{'shutdown s':>11}{'dropped':>9}")
    base = faults["healthy"]["requests_per_s"]
    for mode, r in faults.items():
        print(f"  receiver {mode:<23.23}{r['requests_per_s']:>12,.0f}"
              f"{r['requests_per_s'] / base:>10.2f}{r['shutdown_s']:>11.2f}"
              f"{r['spans_dropped']:>9.0f}")
    print(json.dumps({"benchmark": "redaction", "spans_per_s": spans,
                      "strings": len(strings), "megabytes": megabytes,
                      "servescope_strings_per_s": ours_sps, "servescope_recall": ours_recall,
                      "presidio": presidio, "presidio_info": presidio_info,
                      "faults": faults}, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
