"""Engines' real series (tests/fixtures/engines/*.yaml) and exporters built from them.

The fixtures are written down from each engine's source (version and files cited in each), never
from servescope's flavors, so a flavor that names a series wrongly fails against them. Each
exporter serves the fixture's series on 127.0.0.1 the way the engine does: vLLM through
prometheus_client's text format, SGLang through prometheus_client with content negotiation
(OpenMetrics when asked, colon escaped), TGI in metrics-exporter-prometheus' text format
(counters without ``_total``, ``le`` as Rust prints a float).
"""

from __future__ import annotations

import random
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import yaml
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import MetricsHandler

__all__ = ["ENGINES", "EngineExporter", "Fixture", "Series", "load"]

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "engines"
ENGINES = ("vllm", "sglang", "tgi", "llamacpp")


@dataclass(frozen=True)
class Series:
    """One metric family as the engine exposes it."""

    name: str
    type: str  # counter, gauge, histogram
    labels: tuple[str, ...]
    buckets: tuple[float, ...] = ()
    counter_suffix: str = "_total"

    def stored(self) -> tuple[str, ...]:
        """The series names Prometheus stores for this family."""
        if self.type == "counter":
            return (self.name + self.counter_suffix,)
        if self.type == "histogram":
            return tuple(self.name + s for s in ("_bucket", "_sum", "_count"))
        return (self.name,)


@dataclass(frozen=True)
class Fixture:
    engine: str
    version: str
    series: tuple[Series, ...]
    label_values: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    exposition: Mapping[str, Any] = field(default_factory=dict)

    def by_stored_name(self) -> dict[str, Series]:
        return {name: s for s in self.series for name in s.stored()}


def _buckets(spec: Any, named: Mapping[str, Any]) -> tuple[float, ...]:
    spec = named.get(spec, spec) if isinstance(spec, str) else spec
    if isinstance(spec, list):
        return tuple(float(b) for b in spec)
    if "geometric" in spec:  # TGI: value = start; count times value *= factor
        g, value, out = spec["geometric"], float(spec["geometric"]["start"]), []
        for _ in range(int(g["count"])):
            value *= float(g["factor"])
            out.append(value)
        return tuple(out)
    lin = spec["linear"]
    return tuple(float(lin["start"]) + i * float(lin["step"]) for i in range(int(lin["count"])))


def load(engine: str) -> Fixture:
    doc = yaml.safe_load((FIXTURES / f"{engine}.yaml").read_text("utf-8"))
    common = tuple(doc.get("common_labels", ()))
    label_sets = {k.removesuffix("_labels"): tuple(v) for k, v in doc.items()
                  if k.endswith("_labels") and k != "common_labels"}
    suffix = doc["exposition"].get("counter_suffix", "_total")
    series = []
    for m in doc["metrics"]:
        labels = m.get("labels", common)
        labels = label_sets[labels] if isinstance(labels, str) else tuple(labels)
        labels += tuple(m.get("extra_labels", ()))
        buckets = _buckets(m["buckets"], doc.get("buckets", {})) if "buckets" in m else ()
        series.append(Series(m["name"], m["type"], labels, buckets, suffix))
    values = {k: tuple(str(v) for v in vs) for k, vs in doc.get("label_values", {}).items()}
    return Fixture(doc["engine"], str(doc["version"]), tuple(series), values, doc["exposition"])


# --- exporters ---------------------------------------------------------------------------
_DEFAULT_VALUES = {"model_name": ("llama",), "engine": ("0", "1"), "engine_type": ("unified",),
                   "tp_rank": ("0",), "pp_rank": ("0",), "moe_ep_rank": ("0",)}


def _rust_float(value: float) -> str:
    """How Rust's ``{}`` prints an f64: shortest round-trip digits, no ``.0`` on integers."""
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


class _RustStyle:
    """Counters, gauges and histograms rendered as metrics-exporter-prometheus 0.15 does."""

    def __init__(self, fixture: Fixture) -> None:
        self.fixture = fixture
        self.values: dict[tuple[str, tuple[tuple[str, str], ...]], Any] = {}
        self.lock = threading.Lock()

    def update(self, series: Series, labels: dict[str, str], value: float) -> None:
        key = (series.name, tuple(sorted(labels.items())))
        with self.lock:
            if series.type == "gauge":
                self.values[key] = value
            elif series.type == "counter":
                self.values[key] = self.values.get(key, 0.0) + value
            else:
                counts, total, n = self.values.get(key, ([0] * len(series.buckets), 0.0, 0))
                counts = [c + (value <= b) for c, b in zip(counts, series.buckets, strict=True)]
                self.values[key] = (counts, total + value, n + 1)

    def render(self) -> bytes:
        lines = []
        with self.lock:
            for s in self.fixture.series:
                mine = [(dict(k[1]), v) for k, v in self.values.items() if k[0] == s.name]
                if not mine:
                    continue
                lines.append(f"# TYPE {s.name} {s.type}")
                for labels, v in mine:
                    if s.type != "histogram":
                        lines.append(f"{s.name}{_labels(labels)} {_rust_float(v)}")
                        continue
                    counts, total, n = v
                    for bound, count in zip(s.buckets, counts, strict=True):
                        lines.append(f"{s.name}_bucket"
                                     f"{_labels({**labels, 'le': _rust_float(bound)})} {count}")
                    lines.append(f"{s.name}_bucket{_labels({**labels, 'le': '+Inf'})} {n}")
                    lines.append(f"{s.name}_sum{_labels(labels)} {_rust_float(total)}")
                    lines.append(f"{s.name}_count{_labels(labels)} {n}")
        return ("\n".join(lines) + "\n").encode()


def _labels(labels: Mapping[str, str]) -> str:
    if not labels:
        return ""
    return "{" + ",".join(f'{k}="{v}"' for k, v in labels.items()) + "}"


class EngineExporter:
    """Serves a fixture's series on a loopback port, fed random traffic every 0.1 s."""

    def __init__(self, engine: str, seed: int = 5) -> None:
        self.fixture = load(engine)
        self.rng = random.Random(seed)
        # TGI (metrics-rs) and llama.cpp (hand-written) print names as they stand: no _total added
        self.rust = _RustStyle(self.fixture) if engine in ("tgi", "llamacpp") else None
        self.registry = CollectorRegistry()
        self.metrics: dict[str, Any] = {}
        if self.rust is None:
            for s in self.fixture.series:
                self.metrics[s.name] = self._client_metric(s)
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler(engine))
        self.target = f"127.0.0.1:{self.server.server_address[1]}"
        self.stop = threading.Event()
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.thread = threading.Thread(target=self._drive, daemon=True)
        self.thread.start()

    def _client_metric(self, s: Series) -> Any:
        if s.type == "histogram":
            return Histogram(s.name, s.name, s.labels, buckets=s.buckets, registry=self.registry)
        if s.type == "counter":
            return Counter(s.name, s.name, s.labels, registry=self.registry)
        return Gauge(s.name, s.name, s.labels, registry=self.registry)

    def _handler(self, engine: str) -> type[BaseHTTPRequestHandler]:
        if engine == "sglang":  # make_asgi_app: negotiates the format from the Accept header
            return MetricsHandler.factory(self.registry)
        render = self.rust.render if self.rust is not None else \
            (lambda: generate_latest(self.registry))

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = render()
                self.send_response(200)
                self.send_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        return Handler

    def _label_values(self, s: Series) -> dict[str, str]:
        out = {}
        for label in s.labels:
            choices = self.fixture.label_values.get(label) or _DEFAULT_VALUES.get(label, ("x",))
            out[label] = self.rng.choice(choices)
        return out

    def _value(self, s: Series) -> float:
        if s.type == "counter":
            return float(self.rng.randint(1, 20))
        if s.type == "gauge":
            return self.rng.random()
        top = s.buckets[-1] if s.buckets else 1.0
        return min(self.rng.expovariate(2.0) * max(1.0, top / 100), top)

    def _drive(self) -> None:
        while not self.stop.is_set():
            for s in self.fixture.series:
                labels, value = self._label_values(s), self._value(s)
                if self.rust is not None:
                    self.rust.update(s, labels, value)
                    continue
                child = self.metrics[s.name].labels(**labels) if s.labels \
                    else self.metrics[s.name]
                if s.type == "histogram":
                    child.observe(value)
                elif s.type == "counter":
                    child.inc(value)
                else:
                    child.set(value)
            self.stop.wait(0.1)

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=5)
        self.server.shutdown()
