"""The hooks: one :class:`RequestRecorder` per request, made by a process-wide :class:`Telemetry`.

Contract (what a server may rely on):

* every public hook returns normally; an internal error is counted in
  ``servescope_telemetry_hook_errors_total{hook}`` and logged once per hook, never raised;
* no hook blocks: the only lock is the metric set's (shared by its accumulators), held for a
  hook's few arithmetic updates at a time: a finish takes it once for its compare-and-set,
  the written/delivered read-and-reset and every counter and histogram it touches; a step
  takes it once for all its flushes (the transport's increments never take it);
* nothing runs per token: the scheduler reports each iteration's whole batch in one
  :meth:`Telemetry.step` call, and per-token bookkeeping is integer arithmetic on the recorder;
* exactly one terminal state: the first :meth:`RequestRecorder.finish` wins and returns True,
  every later one returns False and is counted as an ignored signal (the compare-and-set is
  :class:`~.terminal.TerminalState`'s, the one every owner of a terminal state shares).
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ParamSpec, TypeVar

from opentelemetry.trace import TracerProvider
from prometheus_client import CollectorRegistry

from . import catalog as cat
from . import tracing
from .labels import DeclaredLabels
from .metrics import MetricSet
from .retirement import IdleModels, idle_seconds
from .slo import SLOSpec
from .status import FinishReason, TokenStage
from .terminal import TerminalState
from .tracing import ATTR

__all__ = ["RequestRecorder", "RequestSummary", "StepReport", "Telemetry"]

_log = logging.getLogger("servescope.instrumentation")
_P = ParamSpec("_P")
# Enum members read once: a class attribute lookup on an Enum costs about as much as a
# counter increment, and these are read on every request.
_REJECTED, _ERROR = FinishReason.REJECTED, FinishReason.ERROR
_STEP_STAGES = (TokenStage.COMMITTED, TokenStage.PROPOSED, TokenStage.WRITTEN,
                TokenStage.DELIVERED)
_R = TypeVar("_R")


@dataclass(frozen=True)
class RequestSummary:
    """What one request looked like when it ended (a stats object, apart from exporters)."""

    request_id: str
    finish_reason: FinishReason | None
    ttft: float | None
    stream_ttft: float | None
    tpot: float | None
    e2e: float | None
    prompt_tokens: int
    proposed_tokens: int
    committed_tokens: int
    delivered_tokens: int
    discarded_tokens: int
    pauses: int
    good: bool
    ignored_signals: tuple[FinishReason, ...]
    written_tokens: int = 0
    peak_unacknowledged: int = 0


@dataclass(slots=True)
class StepReport:
    """One scheduler iteration, reported in one call.

    ``advanced`` holds (recorder, committed, proposed) for each request the step advanced,
    optionally with a fourth item: when its tokens were committed (the clock right after its
    sampling; default ``now``), so that TTFT and TPOT never include the rest of the iteration;
    capacity fields are levels after the step (None: unchanged); ``prefix_*`` and
    ``preemptions`` are increments since the previous report. ``forward_seconds`` and
    ``step_tokens`` map a phase (``prefill``/``decode``) to the forward time and the tokens of
    that phase's forward in this step (absent: the phase did not run).
    """

    advanced: Sequence[tuple[RequestRecorder, int, int] |
                       tuple[RequestRecorder, int, int, float]] = ()
    now: float | None = None
    kv_blocks_used: int | None = None
    kv_blocks_total: int | None = None
    running: int | None = None
    waiting: int | None = None
    paused: int | None = None
    buffered_tokens: int | None = None
    prefix_queries: int = 0
    prefix_hits: int = 0
    preemptions: int = 0
    forward_seconds: Mapping[str, float] = field(default_factory=dict)
    step_tokens: Mapping[str, int] = field(default_factory=dict)


class _Children:
    """The label children one (model, priority) pair writes, resolved on first use and then
    read from a small dict: a hook pays one lookup, not a label-guard pass. Shared by every
    request of the pair; children are created lazily, so no series appears before its first
    write."""

    __slots__ = ("_cache", "_metrics", "arrival", "finishes", "lock", "model", "priority",
                 "span_model", "span_priority", "step_tokens")

    def __init__(self, metrics: MetricSet, model: str, priority: str) -> None:
        self._metrics = metrics
        self.model = model
        self.priority = priority
        self.lock = metrics.lock
        self._cache: dict[Any, Any] = {}
        # arrived, in flight, prompt tokens (None until a request has a prompt): once written
        self.arrival: tuple[Any, Any, Any] | None = None
        # the series of a finish by its shape (see RequestRecorder._finish_series): a shape
        # seen once has written all of its series, so caching them creates none early
        self.finishes: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        # committed, proposed, written, delivered token counters, each once written
        self.step_tokens: tuple[Any, ...] = (None, None, None, None)
        self.span_priority: str | None = None  # the priority spans carry (folded or not)
        self.span_model: str | None = None  # the same for the model (client-chosen too)

    def get(self, spec: cat.MetricSpec, label: str = "", value: str = "") -> Any:
        key = (spec.name, value) if label else spec.name
        child = self._cache.get(key)
        if child is None:
            labels = {cat.MODEL: self.model} if cat.MODEL in spec.labels else {}
            if cat.PRIORITY in spec.labels:
                labels[cat.PRIORITY] = self.priority
            if label:
                labels[label] = value
            child = self._metrics.child(spec, **labels)
            if len(self._cache) < 256:  # bounded: label values are guarded, but still
                self._cache[key] = child
        return child


class Telemetry:
    """Process-wide hooks: metric objects, tracer, SLO spec and clock; makes recorders.

    Every argument has a default, so ``Telemetry()`` works; tests pass a fresh registry and an
    in-memory tracer provider. ``tracer_provider=None`` disables spans (metrics only).
    ``label_idle_s``: how long a model (other than ``model``) may go without a request before
    its series retire (argument, then ``SERVESCOPE_LABEL_IDLE_S``, then an hour; 0: never).
    """

    def __init__(self, *, registry: CollectorRegistry | None = None,
                 tracer_provider: TracerProvider | None = None, slo: SLOSpec | None = None,
                 model: str = "default", pool: str = "default",
                 clock: Callable[[], float] = time.monotonic,
                 label_caps: Mapping[str, int] | None = None,
                 max_pause_events: int = 8, exemplar_ratio: float | None = None,
                 label_check: Callable[[str], bool] | None = None,
                 declared_labels: DeclaredLabels | None = None,
                 label_idle_s: float | None = None) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()
        self.slo = slo or SLOSpec.default()
        # the served model is always a declared value of the model label, and never retires
        declared = (declared_labels or DeclaredLabels()).with_models([model])
        idle_s = idle_seconds(label_idle_s)
        self.metrics = MetricSet(self.registry, self.slo, label_caps, label_check=label_check,
                                 declared=declared, clock=clock,
                                 idle=None if idle_s is None else IdleModels(idle_s, [model]))
        self.model = model
        self.pool = pool
        self.clock = clock
        self.max_pause_events = max_pause_events
        self.exemplar_ratio = _exemplar_ratio(exemplar_ratio)
        self._tracer = tracing.tracer_for(tracer_provider)
        self._start_trace = _trace_starter(self._tracer, tracer_provider, None)
        self._span_clock = tracing.SpanClock(clock)
        self._logged_hooks: set[str] = set()
        # Hook names are a closed set of ours: this path skips the guard so that it still
        # works when the guarded path is what failed.
        self._hook_errors = self.metrics.family(cat.HOOK_ERRORS)
        self._pool_children = self._capacity_children()
        self._levels = tuple(self._pool_children[s.name] for s in (
            cat.KV_BLOCKS_USED, cat.KV_BLOCKS_TOTAL, cat.RUNNING, cat.WAITING, cat.PAUSED,
            cat.STREAM_BUFFERED))
        self._batch_size = self._pool_children[cat.BATCH_SIZE.name]
        self._children: dict[tuple[str, str], _Children] = {}
        self._phase_children: dict[tuple[str, str], Any] = {}
        # The model of every recorder so far, until a second one appears: a step then needs
        # no per-request model check.
        self._first_model: str | None = None
        self._many_models = False
        self._models_lock = threading.Lock()
        #: called with model names declared at run time (setup_telemetry adds redaction's)
        self.model_listeners: list[Callable[[Iterable[str]], None]] = []
        self.metrics.retire_listeners.append(self._forget_children)

    def _forget_children(self, _models: list[str]) -> None:
        """Some models' series retired: every cached bundle is dropped (a bundle is keyed by
        the value a client sent, which may have folded into a retired one); the next request
        of a pair resolves its children again, bringing a parked one back."""
        with self._models_lock:
            self._children = {}

    def declare_models(self, names: Iterable[str]) -> None:
        """Model names the server learnt it serves (a proxied engine's ``/v1/models``): they
        become label values like configured ones, and each listener (the span redaction's
        known models) hears of them. Never raises."""
        try:
            names = tuple(names)
            if self.metrics.declare_models(names):
                with self._models_lock:
                    self._children = {}  # pairs decided before: decide again
            for listener in self.model_listeners:
                listener(names)
        except Exception:
            self.hook_failed("declare_models")

    def children(self, model: str, priority: str) -> _Children:
        """The shared child bundle of (model, priority)."""
        found = self._children.get((model, priority))
        if found is None:
            with self._models_lock:  # rare (a new pair): two first models never both pass
                if self._first_model is None:
                    self._first_model = model
                elif model != self._first_model:
                    self._many_models = True
            found = _Children(self.metrics, model, priority)
            if len(self._children) < 1024:
                self._children[(model, priority)] = found
        return found

    def send_spans_to(self, provider: TracerProvider, processor: Any) -> None:
        """Build our spans as finished spans and hand them to ``processor`` directly (what
        ``setup_telemetry`` does with its batch processor), skipping the SDK's live-span
        machinery; sampling stays the provider's sampler's."""
        self._start_trace = _trace_starter(self._tracer, provider, processor)

    # --- making recorders -----------------------------------------------------------------
    def request(self, request_id: str, *, model: str | None = None, priority: str = "default",
                prompt_tokens: int = 0, carrier: Mapping[str, str] | None = None,
                arrival: float | None = None, operation: str = "text_completion",
                ) -> RequestRecorder:
        """A recorder for a request that has just arrived (counts the arrival)."""
        return RequestRecorder(self, request_id, model or self.model, priority, prompt_tokens,
                               carrier, self.clock() if arrival is None else arrival, operation)

    # --- the per-iteration call -----------------------------------------------------------
    def step(self, report: StepReport) -> None:
        """Report one scheduler iteration: one call for the whole batch."""
        try:
            self._step(report)
        except Exception:
            self.hook_failed("step")

    def _step(self, report: StepReport) -> None:
        now = self.clock() if report.now is None else report.now
        advanced = report.advanced
        if advanced:
            if self._many_models:
                for model, entries in _by_model(advanced).items():
                    self._count_step(model, entries, now, 0)
                self._batch_size.observe(len(advanced))
            else:  # the usual server: one model, one pass, one lock acquisition
                self._count_step(self._first_model or advanced[0][0].model, advanced, now,
                                 len(advanced))
        if report.forward_seconds or report.step_tokens:
            self._report_phases(report)
        self._report_capacity(report)

    def _count_step(self, model: str, entries: Sequence[Any], now: float, batch: int) -> None:
        """Apply one model's commits, then flush its token counters (and the batch size
        when ``batch``): the flush of the streams its writers flagged and every counter in
        one acquisition of the lock."""
        committed, proposed, moved = _advance(entries, now)
        ch = self.children(model, "")
        children = ch.step_tokens
        if (committed > 0 and children[0] is None) or (proposed > 0 and children[1] is None):
            children = self._token_children(ch, (committed, proposed, 0, 0))
        c_child, p_child, w_child, d_child = children
        written = delivered = 0
        with self.metrics.lock:
            if moved is not None:
                written, delivered = _flush(moved)
                if written > 0 and w_child is not None:
                    w_child.value += written
                    written = 0
                if delivered > 0 and d_child is not None:
                    d_child.value += delivered
                    delivered = 0
            if committed > 0:
                c_child.value += committed
            if proposed > 0:
                p_child.value += proposed
            if batch:
                self._batch_size.add(batch)
        if written > 0 or delivered > 0:  # a stage's first write: make its series, then add
            _, _, w_child, d_child = self._token_children(ch, (0, 0, written, delivered))
            with self.metrics.lock:
                if written > 0:
                    w_child.value += written
                if delivered > 0:
                    d_child.value += delivered

    @staticmethod
    def _token_children(ch: _Children, counts: tuple[int, int, int, int]) -> tuple[Any, ...]:
        """The token counters of ``ch``'s model, made for each stage with a count (a series
        appears at its first write, not before). Called outside the lock."""
        ch.step_tokens = tuple(
            ch.get(cat.TOKENS, cat.STAGE, stage) if n > 0 or known is not None else None
            for stage, n, known in zip(_STEP_STAGES, counts, ch.step_tokens, strict=True))
        return ch.step_tokens

    def _report_phases(self, report: StepReport) -> None:
        """Forward time and tokens of each phase that ran: one observation per step."""
        phases = self._phase_children
        for phase, seconds in report.forward_seconds.items():
            (phases.get((cat.FORWARD_TIME.name, phase)) or
             self._phase_child(cat.FORWARD_TIME, phase)).observe(seconds)
        for phase, tokens in report.step_tokens.items():
            (phases.get((cat.STEP_TOKENS.name, phase)) or
             self._phase_child(cat.STEP_TOKENS, phase)).observe(tokens)

    def _phase_child(self, spec: cat.MetricSpec, phase: str) -> Any:
        child = self.metrics.child(spec, pool=self.pool, phase=phase)
        if len(self._phase_children) < 64:  # phases are a small closed set; bounded anyway
            self._phase_children[(spec.name, phase)] = child
        return child

    def _capacity_children(self) -> dict[str, Any]:
        specs = (cat.KV_BLOCKS_USED, cat.KV_BLOCKS_TOTAL, cat.RUNNING, cat.WAITING, cat.PAUSED,
                 cat.STREAM_BUFFERED, cat.PREFIX_QUERIES, cat.PREFIX_HITS, cat.PREEMPTIONS,
                 cat.BATCH_SIZE)
        return {s.name: self.metrics.child(s, pool=self.pool) for s in specs}

    def _report_capacity(self, report: StepReport) -> None:
        # Unrolled, plain stores (a gauge's set is one store; no per-step tuples): every step.
        kv_used, kv_total, running, waiting, paused, buffered = self._levels
        if report.kv_blocks_used is not None:
            kv_used.value = float(report.kv_blocks_used)
        if report.kv_blocks_total is not None:
            kv_total.value = float(report.kv_blocks_total)
        if report.running is not None:
            running.value = float(report.running)
        if report.waiting is not None:
            waiting.value = float(report.waiting)
        if report.paused is not None:
            paused.value = float(report.paused)
        if report.buffered_tokens is not None:
            buffered.value = float(report.buffered_tokens)
        if report.prefix_queries or report.prefix_hits or report.preemptions:
            ch = self._pool_children
            if report.prefix_queries:
                ch[cat.PREFIX_QUERIES.name].inc(report.prefix_queries)
            if report.prefix_hits:
                ch[cat.PREFIX_HITS.name].inc(report.prefix_hits)
            if report.preemptions:
                ch[cat.PREEMPTIONS.name].inc(report.preemptions)

    def delivery_confirmation(self, acknowledged: bool) -> None:
        """Say how ``delivered`` is measured: True, acknowledged by the peer (TCP_INFO);
        False, the platform cannot tell and delivered falls back to written."""
        try:
            self.metrics.child(cat.DELIVERY_ACKED).set(1 if acknowledged else 0)
        except Exception:
            self.hook_failed("delivery_confirmation")

    # --- pipeline bookkeeping -------------------------------------------------------------
    def hook_failed(self, hook: str) -> None:
        """Count (and log once per hook) an internal error; never raises."""
        try:
            self._hook_errors.labels(hook=hook).inc()
            if hook not in self._logged_hooks:
                self._logged_hooks.add(hook)
                _log.exception("servescope hook %r failed; counting further failures silently",
                               hook)
        except Exception:  # the last line of defence: telemetry never breaks the server
            pass

    @property
    def tracer(self) -> Any:
        return self._tracer

    def span_ns(self, t: float) -> int:
        return self._span_clock.ns(t)


def _trace_starter(tracer: Any, provider: Any, processor: Any) -> Any:
    """How a recorder starts its request trace: None (no spans), directly into
    ``processor`` (with an SDK provider's sampler, id generator and resource), or through
    the SDK tracer."""
    if tracer is None:
        return None
    if processor is not None and all(hasattr(provider, a) for a in
                                     ("sampler", "id_generator", "resource")):
        return tracing.DirectSpans(provider, processor).start
    return functools.partial(tracing.sdk_request_trace, tracer)


def _exemplar_ratio(argument: float | None) -> float:
    """Share of sampled traces that metric exemplars may point at: argument, then
    ``SERVESCOPE_EXEMPLAR_RATIO``, then 1.0. Below 1.0, tail sampling that keeps every
    ``servescope.exemplar`` trace still keeps only a fraction of the traffic."""
    if argument is None:
        try:
            argument = float(os.environ.get("SERVESCOPE_EXEMPLAR_RATIO", "1.0"))
        except ValueError:
            argument = 1.0
    return min(1.0, max(0.0, argument))


def _advance(entries: Sequence[Any], now: float) -> tuple[int, int, list[Any] | None]:
    """Apply a step's commits to each request (the recorder's commit, inlined: this loop runs
    for every request every step, so it does no more than the integers need): the committed
    and proposed totals, and the requests whose writers flagged them since their last flush
    (None when none did)."""
    committed = proposed = 0
    moved: list[Any] | None = None
    for entry in entries:
        rec = entry[0]
        if rec._reason is not None:
            continue  # finished (a late report): the terminal summary is final
        c = rec._state
        if c.moved:  # delivered since the last step: the peak was just before it (_peak)
            ahead = c.committed - c.delivered_flushed
            if ahead > c.peak_unacknowledged:
                c.peak_unacknowledged = ahead
            if moved is None:
                moved = [rec]
            else:
                moved.append(rec)
        n = entry[1]
        if n > 0:  # a step may reject every draft and commit nothing
            at = entry[3] if len(entry) == 4 else now  # its own commit stamp, when given
            if c.committed:
                c.committed += n
            else:
                c.committed = n
                rec._first_token(at)
            c.last_token = at
            committed += n
        n = entry[2]
        if n:
            c.proposed += n
            proposed += n
    return committed, proposed, moved


def _peak(c: _State) -> None:
    """Bring the unacknowledged peak up to now. Tokens committed but not delivered only grow
    between deliveries, so the peak is just before a delivery or now; commits happen only in
    steps, and a step flushes whatever was delivered since the last one, so just before those
    deliveries the count was ``committed`` at the previous step minus ``delivered_flushed``:
    the step loop takes that for each stream its writer flagged (and nothing for the rest),
    the finish the last one."""
    ahead = c.committed - c.delivered_flushed
    if ahead > c.peak_unacknowledged:
        c.peak_unacknowledged = ahead


def _flush(moved: list[Any]) -> tuple[int, int]:
    """Written and delivered tokens not yet flushed, read and reset for each flagged recorder
    (under the metric set's lock: a finished one was flushed by its finish, under the same
    lock)."""
    written = delivered = 0
    for rec in moved:
        if rec._reason is not None:
            continue
        c = rec._state
        c.moved = False  # before the reads: a write racing this flush flags again
        w, d = c.written, c.delivered
        written += w - c.written_flushed
        delivered += d - c.delivered_flushed
        c.written_flushed, c.delivered_flushed = w, d
    return written, delivered


def _by_model(entries: Sequence[Any]) -> dict[str, list[Any]]:
    """A step's entries grouped by their recorder's model (servers with several models)."""
    groups: dict[str, list[Any]] = {}
    for entry in entries:
        groups.setdefault(entry[0].model, []).append(entry)
    return groups


def _hook(name: str) -> Callable[[Callable[_P, _R]], Callable[_P, _R | None]]:
    """Run a recorder hook; an internal error is counted and swallowed, never raised."""

    def wrap(fn: Callable[_P, _R]) -> Callable[_P, _R | None]:
        @functools.wraps(fn)
        def guarded(*args: _P.args, **kwargs: _P.kwargs) -> _R | None:
            try:
                return fn(*args, **kwargs)
            except Exception:
                recorder = args[0]
                assert isinstance(recorder, RequestRecorder)
                recorder.telemetry.hook_failed(name)
                return None

        return guarded

    return wrap


class _State:
    """A request's times and integers, in one object (one allocation per request). The
    defaults are class attributes: a request stores only what it changes (a dataclass would
    write all twenty fields at every arrival). ``written`` and ``delivered`` are only ever
    increased by the transport; the ``*_flushed`` marks are only moved by the read-and-reset
    under the metric set's lock, so no update is lost when both sides run at once."""

    arrival: float
    scheduled: float | None = None
    prefill_done: float | None = None
    first_token: float | None = None
    first_byte: float | None = None
    last_byte: float | None = None
    paused_since: float | None = None
    finished: float | None = None
    prompt: int = 0
    proposed: int = 0
    committed: int = 0
    written: int = 0
    written_flushed: int = 0
    delivered: int = 0
    delivered_flushed: int = 0
    moved: bool = False  # set by the writer after each increment; reset by the flush
    last_token: float | None = None
    peak_unacknowledged: int = 0  # brought up to date by _peak (steps, finish)
    pauses: int = 0
    pause_events: int = 0
    ignored: tuple[FinishReason, ...] = ()  # rare: a tuple, not a list made per request

    def __init__(self, arrival: float, prompt: int) -> None:
        self.arrival = arrival
        self.prompt = prompt


class RequestRecorder(TerminalState):
    """The life of one request, turned into metrics and spans. Made by :meth:`Telemetry.request`.

    Lifecycle hooks are called by the request's single owner (the scheduler) except
    :meth:`finish`, :meth:`delivered`, :meth:`paused` and :meth:`resumed`, which the transport
    and timers may call from other threads.
    """

    __slots__ = ("__weakref__", "_ch", "_exemplar", "_final", "_reject_reason", "_span",
                 "_state", "_trace_ids", "model", "priority", "request_id", "telemetry")

    def __init__(self, telemetry: Telemetry, request_id: str, model: str, priority: str,
                 prompt_tokens: int, carrier: Mapping[str, str] | None, arrival: float,
                 operation: str) -> None:
        self.telemetry = telemetry
        self.request_id = request_id
        self.model = model
        self.priority = priority
        self._ch = telemetry.children(model, priority)
        self._state = _State(arrival, prompt=prompt_tokens)
        # the terminal state's two fields, set inline (calling its __init__ costs as much);
        # its lock is the metric set's, so a finish settles and records in one acquisition
        self._lock = telemetry.metrics.lock
        self._reason = None
        self._reject_reason: str | None = None
        # reason, ttft, stream ttft, tpot, e2e, discarded, good: set once, at finish
        self._final: tuple[Any, ...] | None = None
        self._span: tracing.RequestTrace | None = None  # a sampled request's spans
        self._trace_ids: dict[str, str] | None = None  # of the sampled request span
        self._exemplar: dict[str, str] | None = None  # the same, when chosen for exemplars
        self._start(carrier, operation)

    # --- arrival --------------------------------------------------------------------------
    def _start(self, carrier: Mapping[str, str] | None, operation: str) -> None:
        try:
            ch = self._ch
            prompt = self._state.prompt
            arrival = ch.arrival
            if arrival is None or (prompt and arrival[2] is None):
                arrival = ch.arrival = (
                    ch.get(cat.ARRIVED), ch.get(cat.IN_FLIGHT),
                    ch.get(cat.TOKENS, cat.STAGE, TokenStage.PROMPT) if prompt else None)
            arrived, in_flight, prompt_tokens = arrival
            with self._lock:  # three series, one acquisition
                arrived.value += 1
                in_flight.value += 1
                if prompt:
                    prompt_tokens.value += prompt
            start_trace = self.telemetry._start_trace
            if start_trace is not None:
                # the span carries what the labels carry: a folded value stays folded
                priority, model = ch.span_priority, ch.span_model
                if priority is None or model is None:  # decided once per pair (sticky)
                    decide = self.telemetry.metrics.label_value
                    priority = ch.span_priority = decide(cat.PRIORITY, self.priority)
                    model = ch.span_model = decide(cat.MODEL, self.model)
                attrs = {ATTR.REQUEST_ID: self.request_id, ATTR.MODEL: model,
                         ATTR.OPERATION: operation, ATTR.PRIORITY: priority,
                         ATTR.INPUT_TOKENS: self._state.prompt}
                span = self._span = start_trace(
                    f"{operation} {model}", self.telemetry.span_ns(self._state.arrival),
                    carrier, attrs)
                if span is not None:  # sampled (otherwise no further span work at all)
                    self._trace_ids = span.ids
                    if tracing.selected(span.ids, self.telemetry.exemplar_ratio):
                        # our observations will point at this trace: tail sampling keeps it
                        self._exemplar = span.ids
                        span.set_attribute(ATTR.EXEMPLAR, True)
        except Exception:
            self.telemetry.hook_failed("arrived")

    # --- properties (finished and finish_reason: the terminal state's) -------------------
    @property
    def trace_context(self) -> dict[str, str] | None:
        """trace_id/span_id of the request span when it is sampled (for logs and responses)."""
        return self._trace_ids

    # --- lifecycle hooks ------------------------------------------------------------------
    def _now(self, now: float | None) -> float:
        return self.telemetry.clock() if now is None else now

    # The hottest hooks catch errors inline (a decorator would add a call frame to each).
    def admitted(self) -> None:
        try:
            ch = self._ch
            (ch._cache.get(cat.ADMITTED.name) or ch.get(cat.ADMITTED)).inc()
        except Exception:
            self.telemetry.hook_failed("admitted")

    @_hook("rejected")
    def rejected(self, reason: str, *, now: float | None = None) -> bool:
        """Refuse the request before admission; a terminal state (finish reason rejected)."""
        self._reject_reason = reason
        return self.finish(FinishReason.REJECTED, now=now) is True

    def scheduled(self, *, now: float | None = None) -> None:
        """First scheduled (ends the queue phase). Later calls (after preemption) are no-ops."""
        try:
            times = self._state
            if times.scheduled is not None or self._reason is not None:
                return
            t = times.scheduled = self.telemetry.clock() if now is None else now
            self._observe(cat.QUEUE_TIME, t - times.arrival)
            if self._span is not None:
                self._phase("queue", times.arrival, t)
        except Exception:
            self.telemetry.hook_failed("scheduled")

    def prefill_done(self, *, now: float | None = None) -> None:
        try:
            times = self._state
            if times.prefill_done is not None or self._reason is not None:
                return
            t = times.prefill_done = self.telemetry.clock() if now is None else now
            start = times.scheduled if times.scheduled is not None else t
            self._observe(cat.PREFILL_TIME, t - start)
            if self._span is not None:
                self._phase("prefill", start, t)
        except Exception:
            self.telemetry.hook_failed("prefill_done")

    def tokens_committed(self, committed: int, proposed: int = 0, *,
                         now: float | None = None) -> None:
        """For servers without a batched step: report one request's commit (not per token)."""
        self.telemetry.step(StepReport(advanced=((self, committed, proposed),), now=now))

    def _first_token(self, now: float) -> None:
        """The first committed token (the step loop applies every commit inline)."""
        self._state.first_token = now
        self._observe(cat.SERVER_TTFT, now - self._state.arrival)

    def written(self, n: int = 1, *, now: float | None = None) -> None:
        """``n`` tokens handed to the client connection (accepted by the socket; they may
        still sit in buffers). ``now``: when the write was issued; the first one stamps the
        stream TTFT. Integer bookkeeping only; flushed in the next step report and at finish.
        Called by the request's one writer."""
        try:
            if n <= 0 or self._reason is not None:  # the terminal summary is final
                return
            if self._state.written and self._span is None:  # no clock: nothing reads it
                self._state.written += n
                self._state.moved = True
            else:
                self._wrote(n, self._now(now))
        except Exception:
            self.telemetry.hook_failed("written")

    def _wrote(self, n: int, t: float) -> None:
        c = self._state
        if c.written == 0:
            self._state.first_byte = t
            self._observe(cat.STREAM_TTFT, t - self._state.arrival)
        c.written += n
        c.moved = True  # after the increment: a flush resets the flag before it reads
        self._state.last_byte = t

    def delivered(self, n: int = 1, *, now: float | None = None) -> None:
        """``n`` tokens delivered: acknowledged by the peer where the transport can tell, else
        written. A server that never calls :meth:`written` gets it implied (delivered tokens
        were written). Integer bookkeeping only; called by the request's one writer."""
        try:
            if n <= 0 or self._reason is not None:  # the terminal summary is final
                return
            c = self._state
            c.delivered = total = c.delivered + n
            written = c.written
            if written < total:
                if written and self._span is None:  # only the stream span needs last_byte
                    c.written = total
                else:
                    self._wrote(total - written,
                                self.telemetry.clock() if now is None else now)
            c.moved = True
        except Exception:
            self.telemetry.hook_failed("delivered")

    @_hook("prompt_tokens")
    def prompt_tokens(self, n: int) -> None:
        """The prompt's length, learnt after the arrival (a proxy reads it from the engine's
        own usage): counted once, and only for a request whose arrival named none."""
        c = self._state
        if n <= 0 or c.prompt or self._reason is not None:
            return
        c.prompt = n
        self._ch.get(cat.TOKENS, cat.STAGE, TokenStage.PROMPT).inc(n)
        if self._span is not None:
            self._span.set_attribute(ATTR.INPUT_TOKENS, n)

    @_hook("paused")
    def paused(self, *, now: float | None = None) -> None:
        """The stream buffer reached its high watermark; the scheduler stops advancing us."""
        if self._state.paused_since is not None or self.finished:
            return
        t = self._state.paused_since = self._now(now)
        c = self._state
        c.pauses += 1
        self._ch.get(cat.BP_PAUSES).inc()
        if self._span is not None and c.pause_events < self.telemetry.max_pause_events:
            c.pause_events += 1
            self._span.add_event("backpressure.pause", self.telemetry.span_ns(t))

    @_hook("resumed")
    def resumed(self, *, now: float | None = None) -> None:
        """The buffer drained to its low watermark; the request is eligible again."""
        self._end_pause(self._now(now))

    def _end_pause(self, t: float) -> None:
        since = self._state.paused_since
        if since is None:
            return
        self._state.paused_since = None
        self._ch.get(cat.BP_PAUSED_SECONDS).inc(max(0.0, t - since))

    @_hook("stream_closed")
    def stream_closed(self, peak_buffered: int, capacity: int) -> None:
        """The send queue is gone: record its peak occupancy as a fraction of capacity."""
        if capacity > 0:
            self._observe(cat.STREAM_OCCUPANCY, min(1.0, peak_buffered / capacity))

    # --- the terminal state ---------------------------------------------------------------
    def finish(self, reason: FinishReason, *, now: float | None = None) -> bool:
        """Compare-and-set the terminal state. True for the first caller; False (a counted
        no-op) for every later one. Safe from any thread; never raises."""
        try:
            if self._reason is not None:  # settled already (checked again under the lock)
                return self._ignored(reason)
            t = self._now(now)
        except Exception:
            self.telemetry.hook_failed("finish")
            return False
        try:
            plan: tuple[Any, ...] | None = self._finish_plan(reason, t)
        except Exception:  # counted (once per finish); the state is still committed below
            self.telemetry.hook_failed("finish")
            plan = None
        counted = plan is None
        error: Exception | None = None
        with self._lock:  # the compare-and-set and every update: one acquisition
            won = self._settle_held(reason)
            if won and plan is not None:
                try:
                    self._apply_finish(reason, plan)
                except Exception as exc:  # reported after the lock (counting takes it)
                    error = exc
        if not won:
            return self._ignored(reason)
        if error is not None:
            counted = True
            try:
                raise error
            except Exception:
                self.telemetry.hook_failed("finish")
        try:
            if self._state.paused_since is not None:
                self._end_pause(t)
            if self._span is not None:
                self._end_spans(t, reason)
        except Exception:
            if not counted:
                self.telemetry.hook_failed("finish")
        return True

    def _ignored(self, reason: FinishReason) -> bool:
        with self._lock:
            self._state.ignored += (reason,)
        self.telemetry.metrics.child(cat.IGNORED_SIGNALS, signal=reason).inc()
        return False

    def _finish_plan(self, reason: FinishReason, t: float) -> tuple[Any, ...]:
        """Everything a finish writes, computed and its series resolved before the lock (a
        child may be made, a label folded: both take locks of their own), for
        :meth:`_apply_finish` to add under the lock."""
        st = self._state
        st.finished = t
        _peak(st)
        ttft = None if st.first_token is None else st.first_token - st.arrival
        tpot = self._tpot() if st.committed >= 2 else None
        decode = None if st.prefill_done is None else t - st.prefill_done
        good = self.telemetry.slo.is_good(reason, ttft, tpot)
        shape = (reason, tpot is not None, decode is not None, st.written > 0,
                 st.delivered > 0, st.committed > st.delivered, good)
        series = self._ch.finishes.get(shape) or self._finish_series(shape)
        rejected = None if reason is not _REJECTED else self.telemetry.metrics.child(
            cat.REJECTED, model=self.model, reason=self._reject_reason or "unspecified")
        return series, rejected, t - st.arrival, tpot, decode, ttft, good

    def _apply_finish(self, reason: FinishReason, plan: tuple[Any, ...]) -> None:
        """Under the metric set's lock: arithmetic only."""
        series, rejected, e2e, tpot, decode, ttft, good = plan
        (e2e_h, tpot_h, decode_h, unacked_h, finished, in_flight, attempted, good_c, written,
         delivered, discarded) = series
        st, exemplar = self._state, self._exemplar
        e2e_h.add(e2e, exemplar)
        if tpot_h is not None:
            tpot_h.add(tpot, exemplar)
        if decode_h is not None:
            decode_h.add(decode, exemplar)
        if unacked_h is not None:  # streamed: how far generation ran ahead of the peer
            unacked_h.add(st.peak_unacknowledged, exemplar)
        finished.value += 1
        in_flight.value -= 1
        if attempted is not None:
            attempted.value += 1
        if good_c is not None:
            good_c.value += 1
        if rejected is not None:
            rejected.value += 1
        n_written, n_delivered = st.written, st.delivered  # final: the hooks ignore later ones
        if written is not None:  # (None: nothing was written when the series was chosen)
            written.value += n_written - st.written_flushed
            st.written_flushed = n_written
        if delivered is not None:
            delivered.value += n_delivered - st.delivered_flushed
            st.delivered_flushed = n_delivered
        lost = max(0, st.committed - n_delivered)
        if discarded is not None and lost:
            discarded.value += lost
        stream_ttft = None if st.first_byte is None else st.first_byte - st.arrival
        # the summary object is built when asked for (a frozen dataclass costs microseconds)
        self._final = (reason, ttft, stream_ttft, tpot, e2e, lost, good)

    def _finish_series(self, shape: tuple[Any, ...]) -> tuple[Any, ...]:
        """The series a finish of this shape writes (None where it writes none)."""
        reason, tpot, decode, written, delivered, discarded, good = shape
        ch = self._ch
        attempted = self.telemetry.slo.counts_as_attempted(reason)
        series = (ch.get(cat.E2E),
                  ch.get(cat.TPOT) if tpot else None,
                  ch.get(cat.DECODE_TIME) if decode else None,
                  ch.get(cat.STREAM_UNACKED_PEAK) if written else None,
                  ch.get(cat.FINISHED, cat.FINISH_REASON, reason), ch.get(cat.IN_FLIGHT),
                  ch.get(cat.ATTEMPTED) if attempted else None,
                  ch.get(cat.GOOD) if attempted and good else None,
                  ch.get(cat.TOKENS, cat.STAGE, TokenStage.WRITTEN) if written else None,
                  ch.get(cat.TOKENS, cat.STAGE, TokenStage.DELIVERED) if delivered else None,
                  ch.get(cat.TOKENS, cat.STAGE, TokenStage.DISCARDED) if discarded else None)
        if len(ch.finishes) < 256:
            ch.finishes[shape] = series
        return series

    def _tpot(self) -> float | None:
        first, last, n = self._state.first_token, self._state.last_token, self._state.committed
        if n < 2 or first is None or last is None:
            return None
        return (last - first) / (n - 1)

    @property
    def _summary(self) -> RequestSummary | None:
        if self._final is None:
            return None
        reason, ttft, stream_ttft, tpot, e2e, discarded, good = self._final
        c = self._state
        return RequestSummary(self.request_id, reason, ttft, stream_ttft, tpot, e2e, c.prompt,
                              c.proposed, c.committed, c.delivered, discarded, c.pauses, good,
                              (), c.written, c.peak_unacknowledged)

    def _end_spans(self, t: float, reason: FinishReason) -> None:
        span, times, summary = self._span, self._state, self._summary
        if span is None or summary is None:
            return
        if times.prefill_done is not None:
            self._phase("decode", times.prefill_done, t)
        if times.first_byte is not None:
            self._phase("stream", times.first_byte, times.last_byte or t)
        attrs: dict[str, Any] = {
            ATTR.FINISH_REASON: reason.value, ATTR.FINISH_REASONS: (reason.value,),
            ATTR.OUTPUT_TOKENS: summary.committed_tokens,
            ATTR.TOKENS_PROPOSED: summary.proposed_tokens,
            ATTR.TOKENS_COMMITTED: summary.committed_tokens,
            ATTR.TOKENS_WRITTEN: summary.written_tokens,
            ATTR.TOKENS_DELIVERED: summary.delivered_tokens,
            ATTR.TOKENS_DISCARDED: summary.discarded_tokens,
            ATTR.PAUSES: summary.pauses, ATTR.GOOD: summary.good,
        }
        if summary.ttft is not None:
            attrs[ATTR.TTFT] = summary.ttft
        if summary.stream_ttft is not None:
            attrs[ATTR.STREAM_TTFT] = summary.stream_ttft
        if summary.tpot is not None:
            attrs[ATTR.TPOT] = summary.tpot
        if self._state.pauses > self._state.pause_events:
            attrs[ATTR.PAUSE_EVENTS_DROPPED] = self._state.pauses - self._state.pause_events
        span.end(self.telemetry.span_ns(t), attrs, error=reason is _ERROR)

    # --- helpers --------------------------------------------------------------------------
    def _observe(self, spec: cat.MetricSpec, value: float, label: str = "",
                 label_value: str = "") -> None:
        ch = self._ch  # the cache read inline: a call less on every hot observation
        child = ch._cache.get((spec.name, label_value) if label else spec.name) or \
            ch.get(spec, label, label_value)
        if self._exemplar is not None:
            child.observe(value, exemplar=self._exemplar)
        else:
            child.observe(value)

    def _phase(self, phase: str, start: float, end: float) -> None:
        span = self._span
        if span is None:
            return
        span.phase(phase, self.telemetry.span_ns(start), self.telemetry.span_ns(end),
                   {ATTR.REQUEST_ID: self.request_id})

    def summary(self) -> RequestSummary:
        """The request as it stands (final once finished)."""
        ignored = tuple(self._state.ignored)
        final = self._summary
        if final is not None:
            return dataclasses.replace(final, ignored_signals=ignored)
        c, t = self._state, self._state
        ttft = None if t.first_token is None else t.first_token - t.arrival
        stream_ttft = None if t.first_byte is None else t.first_byte - t.arrival
        return RequestSummary(self.request_id, None, ttft, stream_ttft, self._tpot(), None,
                              c.prompt, c.proposed, c.committed, c.delivered, 0, c.pauses,
                              False, ignored, c.written,
                              max(c.peak_unacknowledged, c.committed - c.delivered_flushed))
