"""The summary of a load run: what the clients saw beside what the server's /metrics says.

Server-side figures are deltas of two scrapes of the server's ``/metrics`` (before and after
the run), so a long-running server's history does not leak in; server quantiles are estimated
from histogram buckets the way PromQL's ``histogram_quantile`` does (linear within a bucket).
Client quantiles are exact, from the raw samples.

Goodput follows the SLO spec: requests that finished ``stop``/``length`` within the TTFT and
TPOT thresholds, per second of the run. The client's figure applies the thresholds to
client-perceived TTFT/TPOT (a slow reader's TPOT is its own reading pace); the server's is
the server's ``goodput_requests`` counter.
"""

from __future__ import annotations

import http.client
import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from servescope.instrumentation import catalog as cat
from servescope.instrumentation.slo import SLOSpec
from servescope.instrumentation.status import FinishReason, TokenStage

from .loadgen import KINDS, LoadResult, check_local_url

__all__ = ["Snapshot", "Summary", "format_summary", "histogram_quantile", "percentile",
           "quantile_bucket", "scrape", "summarize"]

Labels = frozenset[tuple[str, str]]


@dataclass(frozen=True)
class Snapshot:
    """Every sample of one scrape: (sample name, labels) → value."""

    values: dict[tuple[str, Labels], float]

    def total(self, name: str, **match: str) -> float:
        """Sum of the samples named ``name`` whose labels include ``match``."""
        want = set(match.items())
        return sum(v for (n, labels), v in self.values.items() if n == name and want <= labels)

    def by_label(self, name: str, label: str) -> dict[str, float]:
        out: dict[str, float] = defaultdict(float)
        for (n, labels), v in self.values.items():
            if n == name:
                out[dict(labels).get(label, "")] += v
        return dict(out)

    def buckets(self, family: str) -> list[tuple[float, float]]:
        """Cumulative (le, count) of a histogram family, summed over its other labels."""
        out: dict[float, float] = defaultdict(float)
        for (n, labels), v in self.values.items():
            if n == f"{family}_bucket":
                out[float(dict(labels)["le"])] += v
        return sorted(out.items())

    def minus(self, before: Snapshot) -> Snapshot:
        return Snapshot({k: v - before.values.get(k, 0.0) for k, v in self.values.items()})


def parse_exposition(text: str) -> Snapshot:
    values: dict[tuple[str, Labels], float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            values[(sample.name, frozenset(sample.labels.items()))] = float(sample.value)
    return Snapshot(values)


def scrape(url: str, timeout_s: float = 10.0) -> Snapshot:
    """GET ``url``/metrics (text format) from a server on this machine."""
    host, port = check_local_url(url)
    conn = http.client.HTTPConnection(host, port, timeout=timeout_s)
    try:
        conn.request("GET", "/metrics", headers={"Accept": "text/plain"})
        response = conn.getresponse()
        text = response.read().decode("utf-8")
    finally:
        conn.close()
    if response.status != 200:
        raise RuntimeError(f"GET {url}/metrics answered HTTP {response.status}")
    return parse_exposition(text)


def histogram_quantile(q: float, buckets: list[tuple[float, float]]) -> float | None:
    """PromQL's estimate from cumulative buckets (None when there is no observation)."""
    if not buckets or buckets[-1][1] <= 0:
        return None
    rank = q * buckets[-1][1]
    prev_le, prev_count = 0.0, 0.0
    for le, count in buckets:
        if count >= rank:
            if math.isinf(le):
                return prev_le  # the quantile is beyond the highest finite boundary
            if count == prev_count:
                return le
            return prev_le + (le - prev_le) * (rank - prev_count) / (count - prev_count)
        prev_le, prev_count = le, count
    return prev_le


def quantile_bucket(q: float, buckets: list[tuple[float, float]]
                    ) -> tuple[float, float] | None:
    """The bucket (lower, upper bound) the ``q`` quantile lies in: all a histogram knows of
    it (the estimate above is a point inside). None when there is no observation."""
    if not buckets or buckets[-1][1] <= 0:
        return None
    rank = q * buckets[-1][1]
    prev_le = 0.0
    for le, count in buckets:
        if count >= rank:
            return prev_le, le
        prev_le = le
    return prev_le, math.inf


def percentile(values: Iterable[float | None], q: float) -> float | None:
    """Exact percentile with linear interpolation between order statistics."""
    xs = sorted(v for v in values if v is not None)
    if not xs:
        return None
    pos = q * (len(xs) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


@dataclass
class Summary:
    """Everything the table shows, JSON-ready."""

    duration_s: float
    concurrency: int
    mix: dict[str, float]
    model: str
    requests: int
    by_kind: dict[str, int]
    client_finish: dict[str, int]
    server_finish: dict[str, int]
    server_arrived: int
    server_rejected: dict[str, int]
    client_latency: dict[str, dict[str, float | None]]
    server_latency: dict[str, dict[str, float | None]]
    client_goodput_rps: float
    server_goodput_rps: float
    server_good: int
    server_attempted: int
    tokens: dict[str, int]
    unsent_waste_ratio: float | None
    backpressure_pauses: int
    backpressure_paused_s: float
    fast_tpot_p99: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _quantiles(values: list[float]) -> dict[str, float | None]:
    return {"p50": percentile(values, 0.5), "p99": percentile(values, 0.99)}


def _server_quantiles(buckets: list[tuple[float, float]]) -> dict[str, Any]:
    """PromQL's estimates (``p50``, ``p99``) and the buckets they lie in (``p50_bucket``,
    ``p99_bucket``: lower and upper bound), which no client can contradict."""
    out: dict[str, Any] = {}
    for name, q in (("p50", 0.5), ("p99", 0.99)):
        out[name] = histogram_quantile(q, buckets)
        bucket = quantile_bucket(q, buckets)
        out[f"{name}_bucket"] = None if bucket is None else list(bucket)
    return out


def summarize(load: LoadResult, delta: Snapshot, slo: SLOSpec | None = None) -> Summary:
    """Combine the clients' results with the server's /metrics delta over the run."""
    slo = slo or SLOSpec.default()
    stats = load.stats
    by_kind = {k: stats.by_kind.get(k, 0) for k in KINDS}
    elapsed = max(load.elapsed_s, 1e-9)
    tokens = delta.by_label(cat.TOKENS.sample_name, cat.STAGE)
    token_counts = {stage.value: int(tokens.get(stage.value, 0)) for stage in TokenStage}
    committed = token_counts[TokenStage.COMMITTED.value]
    server_finish = {k: int(v) for k, v in
                     delta.by_label(cat.FINISHED.sample_name, cat.FINISH_REASON).items() if v}
    server_latency = {key: _server_quantiles(delta.buckets(family)) for key, family in (
        ("ttft", cat.SERVER_TTFT.name), ("stream_ttft", cat.STREAM_TTFT.name),
        ("tpot", cat.TPOT.name), ("e2e", cat.E2E.name))}
    good = int(delta.total(cat.GOOD.sample_name))
    return Summary(
        duration_s=load.elapsed_s, concurrency=load.config.concurrency,
        mix={k: getattr(load.config.mix, k) for k in KINDS}, model=load.model,
        requests=stats.total, by_kind=by_kind, client_finish=dict(stats.finish),
        server_finish=server_finish,
        server_arrived=int(delta.total(cat.ARRIVED.sample_name)),
        server_rejected={k: int(v) for k, v in
                         delta.by_label(cat.REJECTED.sample_name, cat.REASON).items() if v},
        client_latency={m: _quantiles(stats.values(m)) for m in ("ttft", "tpot", "e2e")},
        server_latency=server_latency,
        client_goodput_rps=stats.good / elapsed,
        server_goodput_rps=good / elapsed, server_good=good,
        server_attempted=int(delta.total(cat.ATTEMPTED.sample_name)),
        tokens=token_counts,
        unsent_waste_ratio=(token_counts[TokenStage.DISCARDED.value] / committed
                            if committed else None),
        backpressure_pauses=int(delta.total(cat.BP_PAUSES.sample_name)),
        backpressure_paused_s=delta.total(cat.BP_PAUSED_SECONDS.sample_name),
        fast_tpot_p99=percentile(stats.values("tpot", "fast"), 0.99),
    )


def _ms(x: float | None) -> str:
    return "-" if x is None else f"{x * 1000:.1f} ms"


def _within(quantiles: dict[str, Any], name: str) -> str:
    """A server quantile as the bucket it lies in ("<= 25.0 ms", "10.0-25.0 ms"): an estimate
    inside it, set beside a client's exact quantile, reads as a disagreement it is not."""
    bucket = quantiles.get(f"{name}_bucket")
    if bucket is None:
        return _ms(quantiles.get(name))
    low, high = bucket
    if math.isinf(high):
        return f"> {low * 1000:.1f} ms"
    if low <= 0:
        return f"<= {high * 1000:.1f} ms"
    return f"{low * 1000:.1f}-{high * 1000:.1f} ms"


def format_summary(s: Summary) -> str:
    """The human table."""
    mix = ", ".join(f"{k}={v:g}" for k, v in s.mix.items() if v)
    lines = [f"load: {s.duration_s:.1f} s, {s.concurrency} clients, mix {mix}, model {s.model}",
             f"requests: {s.requests} by clients ("
             + ", ".join(f"{k} {n}" for k, n in s.by_kind.items() if n)
             + f"); {s.server_arrived} arrived at the server",
             "", f"{'finish reason':<16}{'client':>10}{'server':>10}"]
    for reason in FinishReason:
        c, v = s.client_finish.get(reason.value, 0), s.server_finish.get(reason.value, 0)
        if c or v:
            lines.append(f"  {reason.value:<14}{c:>10}{v:>10}")
    if s.server_rejected:
        lines.append("  rejected by reason (server): "
                     + ", ".join(f"{k} {v}" for k, v in sorted(s.server_rejected.items())))
    lines += ["", f"{'latency':<16}{'client p50':>12}{'client p99':>12}"
                  f"{'server p50':>18}{'server p99':>18}"]
    for name, server_key in (("TTFT", "ttft"), ("TPOT", "tpot"), ("end-to-end", "e2e")):
        cq, sq = s.client_latency[server_key], s.server_latency[server_key]
        lines.append(f"  {name:<14}{_ms(cq['p50']):>12}{_ms(cq['p99']):>12}"
                     f"{_within(sq, 'p50'):>18}{_within(sq, 'p99'):>18}")
    st = s.server_latency["stream_ttft"]
    lines.append(f"  {'stream TTFT':<14}{'':>12}{'':>12}{_within(st, 'p50'):>18}"
                 f"{_within(st, 'p99'):>18}")
    lines.append(f"  fast clients' TPOT p99: {_ms(s.fast_tpot_p99)}  (a server quantile is the "
                 f"histogram bucket it lies in; the JSON also gives PromQL's estimate)")
    lines += ["", f"goodput: server {s.server_goodput_rps:.2f} req/s ({s.server_good} good of "
                  f"{s.server_attempted} attempted), client-perceived "
                  f"{s.client_goodput_rps:.2f} req/s",
              "tokens (server): " + ", ".join(f"{k} {v}" for k, v in s.tokens.items())]
    waste = "-" if s.unsent_waste_ratio is None else f"{s.unsent_waste_ratio:.1%} of committed"
    lines.append(f"generated-but-unsent waste: {s.tokens['discarded']} tokens ({waste})")
    lines.append(f"backpressure: {s.backpressure_pauses} pauses, "
                 f"{s.backpressure_paused_s:.1f} s paused in total")
    return "\n".join(lines)
