"""The metric catalog: every metric servescope exposes, declared once.

The recorder builds its prometheus_client objects from these entries; the dashboard and rule
generators, the docs generator and the tests read the same entries. A name that is not here does
not exist.

Names follow the OpenTelemetry GenAI semantic conventions where they define the metric (in their
Prometheus form: dots become underscores, the unit becomes a suffix) and Prometheus naming rules
otherwise, under the single ``servescope_`` namespace.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Kind(StrEnum):
    COUNTER = "counter"
    GAUGE = "gauge"
    HISTOGRAM = "histogram"


class Buckets(StrEnum):
    """Bucket families: each is derived from the SLO spec (see ``slo.py``)."""

    TTFT = "ttft"
    TPOT = "tpot"
    E2E = "e2e"
    QUEUE = "queue"
    BATCH = "batch"
    RATIO = "ratio"
    TOKENS = "tokens"
    STEP = "step"  # forward time of one scheduler step
    STEP_TOKENS = "step_tokens"  # tokens one scheduler step processes


NAMESPACE = "servescope"

# Label keys a metric may carry. Request ids, prompts and tenant ids are never among them.
MODEL = "model"
PRIORITY = "priority"
FINISH_REASON = "finish_reason"
REASON = "reason"
STAGE = "stage"
SIGNAL = "signal"
HOOK = "hook"
METRIC = "metric"
LABEL = "label"
KIND = "kind"
POOL = "pool"
PHASE = "phase"  # prefill or decode: which forward of a scheduler step

ALL_LABEL_KEYS = frozenset(
    {MODEL, PRIORITY, FINISH_REASON, REASON, STAGE, SIGNAL, HOOK, METRIC, LABEL, KIND, POOL,
     PHASE}
)


@dataclass(frozen=True)
class MetricSpec:
    """One metric: everything a consumer needs to name, label, bucket and document it."""

    name: str  # the exposed family name, without a _total/_bucket suffix
    kind: Kind
    unit: str  # "seconds", "tokens", "requests", "blocks", "ratio", "spans", ...
    help: str
    labels: tuple[str, ...] = ()
    buckets: Buckets | None = None
    group: str = ""
    otel_name: str | None = None  # the semantic-convention name this family implements

    @property
    def sample_name(self) -> str:
        """The name of the series that carries the value (``_total`` for counters)."""
        return f"{self.name}_total" if self.kind is Kind.COUNTER else self.name


def _h(name: str, unit: str, help_: str, buckets: Buckets, labels: tuple[str, ...],
       group: str, otel: str | None = None) -> MetricSpec:
    return MetricSpec(name, Kind.HISTOGRAM, unit, help_, labels, buckets, group, otel)


def _c(name: str, unit: str, help_: str, labels: tuple[str, ...], group: str) -> MetricSpec:
    return MetricSpec(name, Kind.COUNTER, unit, help_, labels, None, group)


def _g(name: str, unit: str, help_: str, labels: tuple[str, ...], group: str) -> MetricSpec:
    return MetricSpec(name, Kind.GAUGE, unit, help_, labels, None, group)


_ML = (MODEL, PRIORITY)
_M = (MODEL,)

# --- latency ------------------------------------------------------------------------------
SERVER_TTFT = _h(
    "gen_ai_server_time_to_first_token_seconds", "seconds",
    "Server-side time to first token: request arrival to the first output token committed "
    "(stamped for the request right after its sampling step, before the token is queued for "
    "the writer).",
    Buckets.TTFT, _ML, "latency", "gen_ai.server.time_to_first_token")
STREAM_TTFT = _h(
    f"{NAMESPACE}_stream_time_to_first_token_seconds", "seconds",
    "Stream time to first token: request arrival to the first output token's bytes handed to "
    "the client connection (stamped just before the write).", Buckets.TTFT, _M, "latency")
TPOT = _h(
    "gen_ai_server_time_per_output_token_seconds", "seconds",
    "Time per output token after the first: per request, (last - first token time) / "
    "(committed tokens - 1). Requests with fewer than two tokens are not observed.",
    Buckets.TPOT, _M, "latency", "gen_ai.server.time_per_output_token")
E2E = _h(
    "gen_ai_server_request_duration_seconds", "seconds",
    "End-to-end request duration: arrival to the terminal decision, every finish reason (for "
    "stop/length, the commit of the last token; the stream's tail may still be in flight).",
    Buckets.E2E, _M, "latency", "gen_ai.server.request.duration")
QUEUE_TIME = _h(
    f"{NAMESPACE}_request_queue_time_seconds", "seconds",
    "Time from arrival to first scheduled (admission wait).", Buckets.QUEUE, _M, "latency")
PREFILL_TIME = _h(
    f"{NAMESPACE}_request_prefill_time_seconds", "seconds",
    "Time from first scheduled to prefill done.", Buckets.TTFT, _M, "latency")
DECODE_TIME = _h(
    f"{NAMESPACE}_request_decode_time_seconds", "seconds",
    "Time from prefill done to the terminal state.", Buckets.E2E, _M, "latency")
CLIENT_TTFT = _h(
    f"{NAMESPACE}_client_time_to_first_token_seconds", "seconds",
    "Client-perceived time to first token: request sent to first token read by the client "
    "(client-side recorders only).", Buckets.TTFT, _M, "client")
CLIENT_TPOT = _h(
    f"{NAMESPACE}_client_time_per_output_token_seconds", "seconds",
    "Client-perceived mean gap between streamed tokens (client-side recorders only).",
    Buckets.TPOT, _M, "client")
CLIENT_E2E = _h(
    f"{NAMESPACE}_client_request_duration_seconds", "seconds",
    "Client-perceived request duration (client-side recorders only), by finish reason.",
    Buckets.E2E, (MODEL, FINISH_REASON), "client")

# --- request accounting -------------------------------------------------------------------
ARRIVED = _c(f"{NAMESPACE}_requests_arrived", "requests",
             "Requests that arrived (every attempt, before admission).", _ML, "requests")
ADMITTED = _c(f"{NAMESPACE}_requests_admitted", "requests",
              "Requests admitted to the scheduler.", _M, "requests")
REJECTED = _c(f"{NAMESPACE}_requests_rejected", "requests",
              "Requests rejected before admission, by reason.", (MODEL, REASON), "requests")
FINISHED = _c(f"{NAMESPACE}_requests_finished", "requests",
              "Requests that reached their terminal state, by finish reason.",
              (MODEL, FINISH_REASON), "requests")
IN_FLIGHT = _g(f"{NAMESPACE}_requests_in_flight", "requests",
               "Requests arrived and not yet in a terminal state.", _M, "requests")
GOOD = _c(f"{NAMESPACE}_goodput_requests", "requests",
          "Requests that finished with an eligible reason within the TTFT and TPOT SLOs "
          "(goodput numerator).", _M, "requests")
ATTEMPTED = _c(f"{NAMESPACE}_goodput_attempted_requests", "requests",
               "Terminal requests in the goodput denominator (attempted load, as the SLO spec "
               "defines it).", _M, "requests")
IGNORED_SIGNALS = _c(f"{NAMESPACE}_terminal_signals_ignored", "signals",
                     "Terminal signals that lost the race to an earlier one (counted no-ops).",
                     (SIGNAL,), "requests")

# --- tokens -------------------------------------------------------------------------------
TOKENS = _c(f"{NAMESPACE}_tokens", "tokens",
            "Tokens by stage: prompt, proposed (speculative drafts), committed (accepted into "
            "the sequence), written (accepted by the client socket), delivered (acknowledged "
            "by the peer: the bytes left the host; written where the platform cannot tell), "
            "discarded (committed, never delivered when the request ended).", (MODEL, STAGE),
            "tokens")

# --- capacity -----------------------------------------------------------------------------
KV_BLOCKS_USED = _g(f"{NAMESPACE}_kv_blocks_used", "blocks",
                    "KV-cache blocks holding at least one reference.", (POOL,), "capacity")
KV_BLOCKS_TOTAL = _g(f"{NAMESPACE}_kv_blocks_total_capacity", "blocks",
                     "KV-cache blocks in the pool.", (POOL,), "capacity")
PREFIX_QUERIES = _c(f"{NAMESPACE}_prefix_cache_queries", "blocks",
                    "Full prompt blocks looked up in the prefix cache.", (POOL,), "capacity")
PREFIX_HITS = _c(f"{NAMESPACE}_prefix_cache_hits", "blocks",
                 "Full prompt blocks found in the prefix cache.", (POOL,), "capacity")
RUNNING = _g(f"{NAMESPACE}_requests_running", "requests",
             "Requests holding a batch slot.", (POOL,), "capacity")
WAITING = _g(f"{NAMESPACE}_requests_waiting", "requests",
             "Requests waiting for admission.", (POOL,), "capacity")
PAUSED = _g(f"{NAMESPACE}_requests_paused", "requests",
            "Running requests skipped because their stream buffer is at the high watermark.",
            (POOL,), "capacity")
PREEMPTIONS = _c(f"{NAMESPACE}_preemptions", "requests",
                 "Running requests preempted to free KV blocks.", (POOL,), "capacity")
BATCH_SIZE = _h(f"{NAMESPACE}_scheduler_batch_size", "requests",
                "Requests advanced per scheduler iteration.", Buckets.BATCH, (POOL,), "capacity")
FORWARD_TIME = _h(f"{NAMESPACE}_step_forward_time_seconds", "seconds",
                  "Model forward time of one scheduler step, by phase (prefill or decode forward; "
                  "CUDA events on a GPU, perf_counter on a CPU). Observed once per step and "
                  "phase that ran.", Buckets.STEP, (POOL, PHASE), "capacity")
STEP_TOKENS = _h(f"{NAMESPACE}_step_tokens", "tokens",
                 "Tokens one scheduler step fed to the model, by phase: prompt tokens prefilled "
                 "(prefill) or decode inputs, drafts included (decode).", Buckets.STEP_TOKENS,
                 (POOL, PHASE), "capacity")

# --- transport ----------------------------------------------------------------------------
BP_PAUSES = _c(f"{NAMESPACE}_backpressure_pauses", "pauses",
               "Times a request was paused because its stream buffer reached the high "
               "watermark.", _M, "transport")
BP_PAUSED_SECONDS = _c(f"{NAMESPACE}_backpressure_paused_seconds", "seconds",
                       "Time requests spent paused by backpressure.", _M, "transport")
STREAM_BUFFERED = _g(f"{NAMESPACE}_stream_buffered_tokens", "tokens",
                     "Tokens committed but not yet written to clients, across live streams.",
                     (POOL,), "transport")
STREAM_UNACKED_PEAK = _h(
    f"{NAMESPACE}_stream_unacknowledged_peak_tokens", "tokens",
    "Per request written to a connection, the peak of tokens committed but not yet "
    "acknowledged by the peer (taken before each delivery and at the end): the send queue "
    "plus what sits in socket buffers (a non-streamed reply holds its whole length until it "
    "is written).",
    Buckets.TOKENS, (), "transport")
DELIVERY_ACKED = _g(
    f"{NAMESPACE}_transport_delivery_acknowledged", "boolean",
    "1 when delivered tokens are confirmed by the peer's TCP acknowledgements (Linux "
    "TCP_INFO); 0 when the platform cannot tell and delivered falls back to written.",
    (), "transport")
STREAM_OCCUPANCY = _h(f"{NAMESPACE}_stream_queue_peak_occupancy_ratio", "ratio",
                      "Per request, the peak send-queue occupancy as a fraction of its capacity.",
                      Buckets.RATIO, (), "transport")

# --- the engine process (an engine core outside the API process) ---------------------------
ENGINE_RESTARTS = _c(f"{NAMESPACE}_engine_restarts", "restarts",
                     "Engine processes declared dead and restarted, by why: exited (the process "
                     "ended), lease_expired (alive but silent: hung), fatal (an error escaped "
                     "a step), startup_timeout. Requests in flight then end with error.",
                     (POOL, REASON), "engine")
ENGINE_HEARTBEAT_AGE = _g(f"{NAMESPACE}_engine_heartbeat_age_seconds", "seconds",
                          "Seconds since the API process last heard from the engine process "
                          "(any message: a step or a heartbeat).", (POOL,), "engine")
ENGINE_LAST_STEP_AGE = _g(f"{NAMESPACE}_engine_last_step_age_seconds", "seconds",
                          "Seconds since the engine process last ran a forward step.",
                          (POOL,), "engine")

# --- the telemetry pipeline itself --------------------------------------------------------
SPANS_EXPORTED = _c(f"{NAMESPACE}_telemetry_spans_exported", "spans",
                    "Spans the exporter accepted.", (), "pipeline")
SPANS_DROPPED = _c(f"{NAMESPACE}_telemetry_spans_dropped", "spans",
                   "Spans dropped: export queue full or export failed, by reason.", (REASON,),
                   "pipeline")
LABELS_FOLDED = _c(f"{NAMESPACE}_telemetry_label_values_folded", "values",
                   "Label values folded into 'other' because a label's cap was reached.",
                   (METRIC, LABEL), "pipeline")
HOOK_ERRORS = _c(f"{NAMESPACE}_telemetry_hook_errors", "errors",
                 "Internal errors swallowed by hooks (the server never sees them).", (HOOK,),
                 "pipeline")
REDACTIONS = _c(f"{NAMESPACE}_redactions", "values",
                "Values redacted before export, by detector kind.", (KIND,), "pipeline")
REDACTION_ENABLED = _g(f"{NAMESPACE}_redaction_enabled", "",
                       "1 while redaction is on for the signal in kind (spans, logs); 0 after "
                       "an explicit opt-out.", (KIND,), "pipeline")

CATALOG: tuple[MetricSpec, ...] = (
    SERVER_TTFT, STREAM_TTFT, TPOT, E2E, QUEUE_TIME, PREFILL_TIME, DECODE_TIME,
    CLIENT_TTFT, CLIENT_TPOT, CLIENT_E2E,
    ARRIVED, ADMITTED, REJECTED, FINISHED, IN_FLIGHT, GOOD, ATTEMPTED, IGNORED_SIGNALS,
    TOKENS,
    KV_BLOCKS_USED, KV_BLOCKS_TOTAL, PREFIX_QUERIES, PREFIX_HITS, RUNNING, WAITING, PAUSED,
    PREEMPTIONS, BATCH_SIZE, FORWARD_TIME, STEP_TOKENS,
    BP_PAUSES, BP_PAUSED_SECONDS, STREAM_BUFFERED, STREAM_OCCUPANCY, STREAM_UNACKED_PEAK,
    DELIVERY_ACKED,
    ENGINE_RESTARTS, ENGINE_HEARTBEAT_AGE, ENGINE_LAST_STEP_AGE,
    SPANS_EXPORTED, SPANS_DROPPED, LABELS_FOLDED, HOOK_ERRORS, REDACTIONS, REDACTION_ENABLED,
)


def series_names(spec: MetricSpec) -> tuple[str, ...]:
    """Every series name Prometheus stores for this family (what queries may reference)."""
    if spec.kind is Kind.COUNTER:
        return (f"{spec.name}_total", f"{spec.name}_created")
    if spec.kind is Kind.HISTOGRAM:
        return tuple(f"{spec.name}{s}" for s in ("_bucket", "_count", "_sum", "_created"))
    return (spec.name,)


def lookup_series(series: str) -> MetricSpec | None:
    """The catalog entry a series name belongs to, or None (used by dashboard/rule checks)."""
    for spec in CATALOG:
        if series in series_names(spec):
            return spec
    return None


def _validate_catalog() -> None:
    names = [s.name for s in CATALOG]
    if len(names) != len(set(names)):
        raise AssertionError("duplicate metric name in catalog")
    for spec in CATALOG:
        unknown = set(spec.labels) - ALL_LABEL_KEYS
        if unknown:
            raise AssertionError(f"{spec.name}: unknown label keys {sorted(unknown)}")
        if (spec.kind is Kind.HISTOGRAM) != (spec.buckets is not None):
            raise AssertionError(f"{spec.name}: histograms and only histograms have buckets")


_validate_catalog()


#: Span attributes whose values servescope itself sets from numbers, booleans and closed
#: vocabularies (token counts, durations, finish reasons, the configured model, the priority
#: class): the redaction stage passes them without a scan (the default policy allows each;
#: a test keeps the two in step). The request id and the model are not among them: a client
#: may choose either (a LoRA adapter name can carry a person's name or an address).
KNOWN_SAFE_SPAN_ATTRIBUTES: frozenset[str] = frozenset({
    "gen_ai.operation.name", "gen_ai.response.finish_reasons",
    "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens", "servescope.priority",
    "servescope.finish_reason", "servescope.tokens.proposed", "servescope.tokens.committed",
    "servescope.tokens.written", "servescope.tokens.delivered", "servescope.tokens.discarded",
    "servescope.ttft_seconds", "servescope.stream_ttft_seconds", "servescope.tpot_seconds",
    "servescope.goodput.good", "servescope.backpressure.pauses",
    "servescope.backpressure.pause_events_dropped", "servescope.exemplar",
})
