"""The redaction stage, measured side by side in one run.

  spans      spans/s through RedactingSpanExporter beside a pass-through copy of the same spans:
             the spans servescope's recorder emits (request + phase spans), and mixed spans
             (~12 attributes incl. a client address, a user agent and, for the capture rows,
             one 1-4 KB prompt attribute each)
  strings    strings/s and MB/s of servescope's detectors (Hyperscan prefilter, and the pure-
             Python fallback), of Presidio's analyzer (pattern recognizers only, NLP engine
             `no_op`) and of detect-secrets (`scan_line`, default plugins) on the same strings
  styles     strings/s of the redactor (Redactor.redact_text: detectors, decoded views, key
             of nothing) on unique realistic lines in three styles (PII-heavy prompts, secret-
             heavy ops logs, mixed; benchmarks/redaction_styles.py), with the clean-string cache
             off and on (on: the lines seen once before, as repeated lines would be), beside
             Presidio's pattern recognizers on the same lines in the same run; the CLI
             (`servescope redact`) on the same lines, its start-up stated apart
  recall     the tools on the labelled corpus of tests/redaction (per kind), and their rate of
             findings on the negatives (ids, UUIDs, digests, timestamps, blobs, pods, CIDRs...)
  faults     five pipelines (redaction + batch processor + OTLP/gRPC exporter) whose receivers
             (in processes of their own, as a Collector is) are healthy (twice: the A/A
             control), down, stalled or flapping, all alive for the whole run, fed in paired
             slices of paced request lifecycles (5 spans each): healthy beside each other
             state, random order. Per pair, the request rate the hooks sustain (per second of
             wall time inside them) and the request thread's CPU per request, as ratios to
             healthy (median, quartiles, 95% bootstrap interval of the median); the export
             thread's CPU; and every span's fate (exported, or dropped by reason, counted by
             the pipeline itself)

Run: python benchmarks/redaction.py [--spans 2000] [--repeat 3] [--slices 100] [--rate 1000]
                                    [--faults-only] [--no-export-backoff] [--quick]
                                    [--styles-only] [--style-lines 1500]
Presidio and detect-secrets: `pip install -e '.[bench]'`; without them their column says why.
Prints a table and one JSON line.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import logging
import random
import signal
import subprocess
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

from servescope.instrumentation import FinishReason, NullSpanExporter, StepReport, Telemetry
from servescope.redaction import (
    DETECTORS,
    KINDS,
    ContentCapture,
    Policy,
    RedactingSpanExporter,
    Redactor,
    scan,
)
from servescope.redaction.detectors import prefilter_for
from servescope.redaction.prefilter import RegexPrefilter

ROOT = Path(__file__).resolve().parents[1]


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


corpus = _load("redaction_corpus", ROOT / "tests" / "redaction" / "redaction_corpus.py")
ops_corpus = _load("ops_corpus", ROOT / "tests" / "redaction" / "ops_corpus.py")
styles = _load("redaction_styles", ROOT / "benchmarks" / "redaction_styles.py")
PYTHON_PREFILTER = RegexPrefilter(DETECTORS)


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


def recorder_spans(n: int) -> list[ReadableSpan]:
    """The spans servescope's recorder emits for ``n`` requests (request span + phases)."""
    sink = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "llm-inference"}))
    provider.add_span_processor(SimpleSpanProcessor(sink))
    tel = Telemetry(tracer_provider=provider, model="llama-3.1-8b-instruct")
    for i in range(n):
        one_request(tel, str(uuid.UUID(int=random.Random(i).getrandbits(128))),
                    prompt_tokens=100 + i % 900, operation="chat")
    return list(sink.get_finished_spans())


def one_request(tel: Telemetry, request_id: str, **request: Any) -> None:
    """One short streamed request through the hooks: admitted, scheduled, prefilled, one
    step of 8 tokens, delivered, finished with ``stop``."""
    rec = tel.request(request_id, **request)
    rec.admitted()
    rec.scheduled()
    rec.prefill_done()
    tel.step(StepReport(advanced=((rec, 8, 0),)))
    rec.delivered(8)
    rec.finish(FinishReason.STOP)


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
    ours = recorder_spans(max(1, n // 5))
    plain = make_spans(n, capture=False, rng=rng)
    with_prompt = make_spans(n, capture=True, rng=rng)
    policy = Policy.default()
    off = Redactor(dataclasses.replace(policy, content_capture=ContentCapture.NO_CONTENT),
                   hash_key=b"bench")
    on = Redactor(dataclasses.replace(policy, content_capture=ContentCapture.SPAN_AND_EVENT),
                  hash_key=b"bench")
    rows: dict[str, float] = {}
    # interleaved, so machine load hits the copy and the stage alike
    for _ in range(repeat):
        for name, exporter, spans in (
                ("copy: servescope spans", CopyExporter(), ours),
                ("redact: servescope spans", RedactingSpanExporter(NullSpanExporter(), off), ours),
                ("copy: mixed spans", CopyExporter(), with_prompt),
                ("redact: capture off", RedactingSpanExporter(NullSpanExporter(), off),
                 with_prompt),
                ("redact: capture on", RedactingSpanExporter(NullSpanExporter(), on), with_prompt),
                ("redact: no prompt", RedactingSpanExporter(NullSpanExporter(), on), plain)):
            rows[name] = max(rows.get(name, 0.0), spans_per_second(exporter, spans, 1))
    return rows


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


def _ours_python(text: str) -> list[tuple[str, int, int]]:
    return [(f.kind, f.start, f.end) for f in scan(text, prefilter=PYTHON_PREFILTER)]


def detect_secrets_line_scanner() -> tuple[Any, str]:
    """(text -> findings via detect-secrets' scan_line, "") or (None, why not)."""
    try:
        from detect_secrets.core.scan import scan_line
        from detect_secrets.settings import default_settings
    except ImportError as exc:
        return None, f"not installed ({exc.name}); pip install -e '.[bench]'"
    from importlib.metadata import version

    def run(text: str) -> list[Any]:
        with default_settings():
            return [s for line in text.splitlines() for s in scan_line(line)]

    return run, f"detect-secrets {version('detect-secrets')}"


def recall_detect_secrets(samples: list[Any]) -> dict[str, Any]:
    """detect-secrets' recall per kind it covers (scanned as files: its best recall)."""
    ss = _load("secret_scanners", ROOT / "tests" / "redaction" / "secret_scanners.py")
    hit: Counter[str] = Counter()
    total: Counter[str] = Counter()
    neg = negatives = 0
    with ss.scanner() as run:
        for s in samples:
            if s.kind is None:
                negatives += 1
                neg += bool(run(s.text))
            elif s.kind in ss.SHARED_KINDS:
                total[s.kind] += 1
                hit[s.kind] += ss.covers(run(s.text), s.kind, s.value)
    return {"per_kind": {k: hit[k] / total[k] for k in total},
            "negatives_any_finding": neg / negatives}


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


# --- corpus styles: unique lines, cache off and on, beside Presidio, and the CLI ---------------
class _NoCache(dict[str, None]):
    """A clean-string cache that remembers nothing: every line is scanned."""

    def __setitem__(self, key: str, value: None) -> None:
        pass


def _redact_rate(lines: list[str], repeat: int, cache: bool) -> float:
    redactor = Redactor(hash_key=b"bench")
    if not cache:
        redactor._clean = _NoCache()
    run = redactor.redact_text
    if cache:  # every line seen once: what a repeated line costs
        for line in lines:
            run(line, {})
    return throughput(lambda t: run(t, {}), lines, repeat)


def _cli_seconds(lines: list[str]) -> float:
    data = ("\n".join(lines) + "\n").encode() if lines else b""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "servescope", "redact"], input=data, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def _engine_pass_rate(lines: list[str], repeat: int) -> float | None:
    """Lines a second through the multi-pattern engine's one pass alone (a handler that does
    nothing): what no work after it can beat. None when the engine is not Hyperscan."""
    engine = prefilter_for(DETECTORS)
    database = getattr(engine, "_db", None)
    if database is None:
        return None
    scratch = engine._scratch()  # type: ignore[attr-defined]
    encoded = [line.encode("ascii", "servescope.redaction.ascii_stand_in") for line in lines]

    def scan_only(data: bytes) -> None:
        database.scan(data, match_event_handler=_ignore, scratch=scratch)

    return throughput(scan_only, encoded, repeat)  # type: ignore[arg-type]


def _ignore(*_: object) -> None:
    return None


def bench_styles(n: int, repeat: int) -> dict[str, Any]:
    corpora = styles.build(ops_corpus, corpus, n)
    engine, presidio_info = presidio_analyzer()
    presidio = _presidio(engine) if engine is not None else None
    if presidio is not None:
        presidio("warm up the recognizers")
    startup = min(_cli_seconds([]) for _ in range(3))
    rows: dict[str, Any] = {}
    for style, lines in corpora.items():
        assert len(set(lines)) == len(lines), f"{style}: lines repeat"
        row: dict[str, Any] = {
            "lines": len(lines), "mean_chars": sum(map(len, lines)) / len(lines),
            "cache_off": _redact_rate(lines, repeat, cache=False),
            "cache_on": _redact_rate(lines, repeat, cache=True),
        }
        if presidio is not None:
            row["presidio"] = throughput(presidio, lines, 1)
            row["ratio_cache_off"] = row["cache_off"] / row["presidio"]
            row["ratio_cache_on"] = row["cache_on"] / row["presidio"]
        engine_pass = _engine_pass_rate(lines, repeat)
        if engine_pass is not None:
            row["engine_pass"] = engine_pass
            if presidio is not None:  # the ratio even a free confirmation could not pass
                row["ratio_engine_pass"] = engine_pass / row["presidio"]
        row["cli_s"] = _cli_seconds(lines)
        work = row["cli_s"] - startup  # None: within the start-up's own spread
        row["cli"] = len(lines) / work if work > 0.25 * row["cli_s"] else None
        rows[style] = row
    return {"styles": rows, "cli_startup_s": startup, "presidio": presidio_info}


def print_styles(result: dict[str, Any]) -> None:
    print(f"\nstrings/s on unique lines ({result['presidio']}; cache off: every line scanned)")
    print(f"{'style':<14}{'lines':>6}{'chars':>7}{'cache off':>11}{'cache on':>10}"
          f"{'presidio':>10}{'ratio off':>11}{'ratio on':>10}{'CLI':>9}")
    for style, r in result["styles"].items():
        print(f"{style:<14}{r['lines']:>6}{r['mean_chars']:>7.0f}{r['cache_off']:>11,.0f}"
              f"{r['cache_on']:>10,.0f}{r.get('presidio', float('nan')):>10,.0f}"
              f"{r.get('ratio_cache_off', float('nan')):>10.0f}x"
              f"{r.get('ratio_cache_on', float('nan')):>9.0f}x"
              + (f"{r['cli']:>9,.0f}" if r["cli"] is not None else f"{'*':>9}"))
    passes = {k: r for k, r in result["styles"].items() if "engine_pass" in r}
    if passes:
        print("the engine's one pass alone (lines/s; beside Presidio: what no confirmation can "
              "beat): " + ", ".join(
                  f"{k} {r['engine_pass']:,.0f}"
                  + (f" ({r['ratio_engine_pass']:.0f}x)" if "ratio_engine_pass" in r else "")
                  for k, r in passes.items()))
    print(f"CLI start-up (servescope redact < /dev/null, best of 3): "
          f"{result['cli_startup_s']:.2f} s, not counted in its strings/s; whole runs: "
          + ", ".join(f"{k} {r['cli_s']:.2f} s" for k, r in result["styles"].items())
          + " (*: the lines took less than a quarter of the whole run: no rate is read from"
            " the start-up's own spread)")


# --- exporter faults ----------------------------------------------------------------------
FAULT_MODES = ("healthy", "down", "stalled", "flapping")
# Each fault is paired with the healthy pipeline; "healthy (A/A)" pairs it with a second
# healthy pipeline: the spread of its ratios is what the method can resolve on this machine.
PAIRS = ("healthy (A/A)", "down", "stalled", "flapping")


class _Pipeline:
    """A telemetry set up as a server would (redaction, the batch processor, the OTLP/gRPC
    exporter) whose receiver is in one state, fed in slices of paced request lifecycles."""

    def __init__(self, mode: str, port: int) -> None:
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
        from prometheus_client import CollectorRegistry

        from servescope.instrumentation import setup_telemetry
        from servescope.redaction import RedactionStage

        self.mode = mode
        self.registry = CollectorRegistry()
        self.setup = setup_telemetry(
            registry=self.registry, redaction=RedactionStage(hash_key=b"b"),
            span_exporter=OTLPSpanExporter(endpoint=f"127.0.0.1:{port}", insecure=True,
                                           timeout=2))
        assert self.setup.span_processor is not None
        self.processor = self.setup.span_processor
        self._export_clock = time.pthread_getcpuclockid(self.processor._worker.ident or 0)
        self.requests = 0

    def export_cpu_s(self) -> float:
        return time.clock_gettime(self._export_clock)

    def feed(self, n: int, rate: float | None) -> tuple[float, float]:
        """``n`` lifecycles (paced at ``rate`` requests/s, or as fast as they go): (seconds
        of wall time inside the hooks, CPU seconds of this thread over the slice)."""
        tel = self.setup.telemetry
        in_hooks = 0.0
        cpu0 = time.thread_time()
        start = time.perf_counter()
        for k in range(n):
            if rate is not None:
                wait = start + k / rate - time.perf_counter()
                if wait > 0.001:
                    time.sleep(wait)
            t0 = time.perf_counter()
            one_request(tel, f"{self.mode}-{self.requests}", prompt_tokens=16)
            in_hooks += time.perf_counter() - t0
            self.requests += 1
        return in_hooks, time.thread_time() - cpu0

    def close(self) -> dict[str, float]:
        """Shut down and count every span by fate (exported + dropped = ended)."""
        from servescope.instrumentation import catalog as cat

        if self.mode == "healthy":
            self.setup.force_flush(30.0)
        self.setup.shutdown(timeout_s=0.2)
        self.processor.join(10.0)  # an export in flight ends (and is counted) first

        def sample(name: str, **labels: str) -> float:
            return self.registry.get_sample_value(name, labels) or 0.0

        dropped = {r: sample(f"{cat.SPANS_DROPPED.name}_total", reason=r)
                   for r in ("queue_full", "export_failed", "shutdown")}
        exported = sample(f"{cat.SPANS_EXPORTED.name}_total")
        ended = 5 * self.requests
        return {"spans": ended, "exported": exported, **dropped,
                "uncounted": ended - exported - sum(dropped.values())}


class _Receivers:
    """One OTLP receiver process per receiver state, for the whole benchmark ("down": a port
    nobody listens on), each in its own process as a Collector is (in the server's process
    its gRPC threads would compete with the hooks for the GIL, which no deployment does)."""

    def __init__(self, rx: ModuleType) -> None:
        self.ports = {mode: rx.free_port() for mode in FAULT_MODES}
        self._procs = [_receiver_process(self.ports[m], m) for m in FAULT_MODES if m != "down"]

    def close(self) -> None:
        for proc in self._procs:
            proc.terminate()
            proc.wait(10)


def _receiver_process(port: int, mode: str) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--serve-receiver",
                             mode, str(port)], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    if proc.stdout.readline().strip() != b"ready":
        proc.kill()
        raise RuntimeError(f"the OTLP receiver ({mode}) did not start")
    return proc


def _serve_receiver(mode: str, port: int) -> int:
    """Child side of :func:`_receiver_process`: serve until terminated."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})  # its threads inherit this
    rx = _load("otlp_receiver", ROOT / "tests" / "otlp_receiver.py")
    receiver = rx.OtlpReceiver(port=port).start()
    receiver.behaviour.delay_s = 2.0 if mode == "stalled" else 0.0
    receiver.behaviour.flap_every = 1 if mode == "flapping" else 0
    print("ready", flush=True)
    signal.sigwait({signal.SIGTERM})
    receiver.stop()
    return 0


def _spread(xs: list[float], seed: int = 3) -> dict[str, float]:
    """Median, quartiles, 5th/95th percentiles, and a 95% bootstrap interval of the median
    (what the A/A row's interval spans is the smallest effect the run can resolve)."""
    import statistics

    q = statistics.quantiles(xs, n=20) if len(xs) >= 2 else [xs[0]] * 19
    rng = random.Random(seed)
    boot = sorted(statistics.median(rng.choices(xs, k=len(xs))) for _ in range(1000))
    return {"median": statistics.median(xs), "q1": q[4], "q3": q[14], "p5": q[0],
            "p95": q[18], "ci95": (boot[25], boot[974]), "n": len(xs)}


def bench_faults(slices: int, slice_requests: int = 100, rate: float = 1000.0,
                 seed: int = 7) -> dict[str, dict[str, Any]]:
    """Paired slices: every pipeline lives for the whole run (so every export thread, idle,
    exporting or backing off, is there for every slice alike); each pair feeds the healthy
    pipeline and another one ``slice_requests`` paced lifecycles each, back to back in a
    random order, and the ratio is taken within the pair. Neighbouring slices see the same
    machine, so the ratios resolve what whole rounds a minute apart cannot. Each faulty
    pipeline is first filled to its steady state (queue full, exporter failing)."""
    rx = _load("otlp_receiver", ROOT / "tests" / "otlp_receiver.py")
    logging.getLogger("opentelemetry").setLevel(logging.CRITICAL)
    logging.getLogger("servescope").setLevel(logging.CRITICAL)
    rng = random.Random(seed)
    receivers = _Receivers(rx)
    pipes = {pair: _Pipeline("healthy" if pair.startswith("healthy") else pair,
                             receivers.ports["healthy" if pair.startswith("healthy") else pair])
             for pair in PAIRS}
    base = _Pipeline("healthy", receivers.ports["healthy"])
    counts: dict[str, dict[str, float]] = {}
    try:
        for pipe in pipes.values():  # past the queue's capacity: the fault's steady state
            pipe.feed(2 * pipe.processor.max_queue_size // 5 if pipe.mode != "healthy"
                      else 200, None)
        base.feed(200, None)
        export0 = {p: pipe.export_cpu_s() for p, pipe in pipes.items()}
        fed0 = {p: pipe.requests for p, pipe in pipes.items()}
        ratios: dict[str, dict[str, list[float]]] = {p: {"rate": [], "cpu": []} for p in PAIRS}
        for _ in range(slices):
            for pair in rng.sample(PAIRS, len(PAIRS)):
                sides = [("base", base), ("other", pipes[pair])]
                rng.shuffle(sides)
                got = {side: pipe.feed(slice_requests, rate) for side, pipe in sides}
                (b_wall, b_cpu), (o_wall, o_cpu) = got["base"], got["other"]
                ratios[pair]["rate"].append(b_wall / o_wall)  # rate ratio: other / base
                ratios[pair]["cpu"].append(o_cpu / b_cpu)
        export_us = {p: (pipe.export_cpu_s() - export0[p]) / (pipe.requests - fed0[p]) * 1e6
                     for p, pipe in pipes.items()}
    finally:
        for pair, pipe in pipes.items():
            counts[pair] = pipe.close()
        counts["healthy, the paired side"] = base.close()
        receivers.close()
    out: dict[str, dict[str, Any]] = {}
    for pair in PAIRS:
        out[pair] = {"rate_x_healthy": _spread(ratios[pair]["rate"]),
                     "hooks_cpu_x_healthy": _spread(ratios[pair]["cpu"]),
                     "export_thread_cpu_us_per_request": export_us[pair], **counts[pair]}
    out["healthy, the paired side"] = dict(counts["healthy, the paired side"])
    return out


def print_faults(faults: dict[str, dict[str, Any]], slices: int, slice_requests: int,
                 rate: float) -> None:
    print(f"exporter faults: {slices} paired slices per receiver state ({slice_requests} "
          f"lifecycles each at {rate:,.0f}/s, 5 spans each), healthy beside each state in a "
          "random order; ratios per pair: median [q1-q3] and the median's 95% interval")
    print(f"{'receiver':<15}{'rate x healthy':>22}{'95% CI':>14}{'hooks CPU/req x healthy':>28}"
          f"{'95% CI':>14}{'export thread us/req':>22}")
    for pair in PAIRS:
        r = faults[pair]
        rate_s, cpu = r["rate_x_healthy"], r["hooks_cpu_x_healthy"]
        print(f"  {pair:<13}"
              f"{rate_s['median']:>9.3f} [{rate_s['q1']:.3f}-{rate_s['q3']:.3f}]"
              f"{rate_s['ci95'][0]:>8.3f}-{rate_s['ci95'][1]:.3f}"
              f"{cpu['median']:>15.3f} [{cpu['q1']:.3f}-{cpu['q3']:.3f}]"
              f"{cpu['ci95'][0]:>8.3f}-{cpu['ci95'][1]:.3f}"
              f"{r['export_thread_cpu_us_per_request']:>22.1f}")
    print(f"{'pipeline':<26}{'spans':>9}{'exported':>10}{'q. full':>9}{'failed':>8}"
          f"{'shutdown':>9}{'uncounted':>10}")
    for name, r in faults.items():
        print(f"  {name:<24}{r['spans']:>9.0f}{r['exported']:>10.0f}{r['queue_full']:>9.0f}"
              f"{r['export_failed']:>8.0f}{r['shutdown']:>9.0f}{r['uncounted']:>10.0f}")


def _print_spans(spans: dict[str, float]) -> None:
    print(f"{'span stage':<34}{'spans/s':>12}{'us/span':>10}{'x copy':>8}")
    for name, rate in spans.items():
        copy = spans["copy: servescope spans" if "servescope" in name else "copy: mixed spans"]
        print(f"  {name:<32}{rate:>12,.0f}{1e6 / rate:>10.1f}{copy / rate:>8.2f}")


def _print_strings(rates: dict[str, float], infos: dict[str, str], strings: list[str],
                   megabytes: float) -> None:
    ours = rates["servescope"]
    print(f"{'detectors, same strings':<34}{'strings/s':>12}{'MB/s':>10}{'servescope x':>14}")
    for name, rate in rates.items():
        label = infos.get(name, name)
        print(f"  {label:<32}{rate:>12,.0f}{rate * megabytes / len(strings):>10.2f}"
              f"{ours / rate:>14.1f}")
    for name, info in infos.items():
        if name not in rates:
            print(f"  {name}: {info}")


def _print_recall(ours: dict[str, Any], presidio: dict[str, Any] | None,
                  secrets: dict[str, Any] | None) -> None:
    print(f"{'recall on the corpus':<34}{'servescope':>12}{'presidio':>10}{'detect-secrets':>16}")
    for kind in KINDS:
        theirs = "-"
        if presidio is not None and any(kind in v for v in PRESIDIO_KINDS.values()):
            theirs = f"{presidio['per_kind'][kind]:.3f}"
        elif presidio is not None:
            theirs = "no recog."
        ds = f"{secrets['per_kind'][kind]:.3f}" if secrets and kind in secrets["per_kind"] \
            else "no plugin"
        print(f"  {kind:<32}{ours['per_kind'][kind]:>12.3f}{theirs:>10}{ds:>16}")
    print(f"  {'negatives with a finding':<32}{ours['negatives_any_entity']:>12.3f}"
          f"{presidio['negatives_any_entity'] if presidio else float('nan'):>10.3f}"
          f"{secrets['negatives_any_finding'] if secrets else float('nan'):>16.3f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spans", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--slices", type=int, default=100,
                    help="paired slices per receiver state in the fault table")
    ap.add_argument("--slice-requests", type=int, default=100,
                    help="request lifecycles per slice")
    ap.add_argument("--faults-only", action="store_true", help="only the exporter fault table")
    ap.add_argument("--no-export-backoff", action="store_true",
                    help="fault table with the export thread's backoff off (for comparison)")
    ap.add_argument("--rate", type=float, default=1000.0,
                    help="offered requests/s in the fault rounds (5 spans each)")
    ap.add_argument("--quick", action="store_true", help="smaller sizes (a smoke run)")
    ap.add_argument("--no-faults", action="store_true", help="skip the exporter fault table")
    ap.add_argument("--styles-only", action="store_true",
                    help="only the corpus-style throughput table")
    ap.add_argument("--style-lines", type=int, default=1500,
                    help="unique lines per corpus style")
    ap.add_argument("--serve-receiver", nargs=2, metavar=("MODE", "PORT"),
                    help=argparse.SUPPRESS)  # the fault rounds' receiver process
    args = ap.parse_args(argv)
    if args.serve_receiver:
        return _serve_receiver(args.serve_receiver[0], int(args.serve_receiver[1]))
    if args.quick:
        args.spans, args.repeat = 200, 1

    if args.no_export_backoff:
        from servescope.instrumentation import export

        export.BACKOFF_S = (0.0, 0.0)
    if args.faults_only:
        faults = bench_faults(5 if args.quick else args.slices, args.slice_requests,
                              args.rate)
        print_faults(faults, 5 if args.quick else args.slices, args.slice_requests, args.rate)
        print(json.dumps({"benchmark": "redaction_faults", "faults": faults},
                         separators=(",", ":")))
        return 0
    prefilter_for(DETECTORS)  # compile the engine's database before anything is timed
    style_lines = 200 if args.quick else args.style_lines
    if args.styles_only:
        by_style = bench_styles(style_lines, args.repeat)
        print_styles(by_style)
        print(json.dumps({"benchmark": "redaction_styles", **by_style}, separators=(",", ":")))
        return 0
    spans = bench_spans(args.spans, args.repeat)
    by_style = bench_styles(style_lines, args.repeat)

    rng = random.Random(11)
    samples = corpus.build()
    strings = [s.text for s in samples] + [prompt(rng) for _ in range(100 if not args.quick
                                                                      else 10)]
    megabytes = sum(len(s.encode()) for s in strings) / 1e6
    rates = {"servescope": throughput(_ours, strings, args.repeat),
             "servescope, pure-Python fallback": throughput(_ours_python, strings, args.repeat)}
    infos: dict[str, str] = {}
    ours_recall = recall(_ours, samples, KINDS)
    engine, infos["presidio"] = presidio_analyzer()
    presidio: dict[str, Any] | None = None
    if engine is not None:
        run = _presidio(engine)
        run(strings[0])  # warm-up: recognizer set-up
        rates["presidio"] = throughput(run, strings, 1)
        presidio = recall(run, samples, KINDS)
    line_scanner, infos["detect-secrets"] = detect_secrets_line_scanner()
    secrets: dict[str, Any] | None = None
    if line_scanner is not None:
        rates["detect-secrets"] = throughput(line_scanner, strings, 1)
        secrets = recall_detect_secrets(samples)
    faults = None if args.no_faults else bench_faults(
        5 if args.quick else args.slices, args.slice_requests, args.rate)

    print(f"redaction benchmark ({len(strings)} strings, {megabytes:.2f} MB; "
          f"{args.spans} spans; best of {args.repeat}; engine {prefilter_for(DETECTORS).name})")
    _print_spans(spans)
    _print_strings(rates, infos, strings, megabytes)
    _print_recall(ours_recall, presidio, secrets)
    print_styles(by_style)
    if faults is not None:
        print_faults(faults, 5 if args.quick else args.slices, args.slice_requests, args.rate)
    print(json.dumps({"benchmark": "redaction", "spans_per_s": spans,
                      "strings": len(strings), "megabytes": megabytes,
                      "strings_per_s": rates, "tools": infos,
                      "servescope_recall": ours_recall, "presidio": presidio,
                      "detect_secrets": secrets, "by_style": by_style, "faults": faults},
                     separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
