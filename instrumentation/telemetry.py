"""The process-wide hooks: :class:`Telemetry` owns the metric set, the tracer, the SLO spec
and the clock, makes one :class:`~.request_recorder.RequestRecorder` per request and takes
each scheduler iteration in one :meth:`Telemetry.step` call (the contract is in
``request_recorder.py``'s docstring).

This module is the one that loads the exporters (prometheus_client through the metric set,
OpenTelemetry through ``tracing``); the recorder and the step report load neither.
"""

from __future__ import annotations

import functools
import logging
import math
import numbers
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, cast

from opentelemetry.trace import TracerProvider
from prometheus_client import CollectorRegistry

from . import catalog as cat
from . import tracing
from .labels import OTHER, DeclaredLabels, label_shape_ok
from .metrics import MetricSet
from .request_recorder import MAX_TOKEN_COUNT, TIME_SLACK_S, RequestRecorder, advance, flush
from .retirement import IdleModels, idle_seconds
from .series import SeriesBundle
from .slo import SLOSpec
from .status import TokenStage
from .step import StepReport

__all__ = ["Telemetry"]

_log = logging.getLogger("servescope.instrumentation")
_STEP_STAGES = (TokenStage.COMMITTED, TokenStage.PROPOSED, TokenStage.WRITTEN,
                TokenStage.DELIVERED)


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
                 label_idle_s: float | None = None, engine_levels: bool = True) -> None:
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
        #: how a recorder starts its trace (None: no spans); see :func:`_trace_starter`
        self.start_trace = _trace_starter(self._tracer, tracer_provider, None)
        self._span_clock = tracing.SpanClock(clock)
        self._logged_hooks: set[str] = set()
        # Hook names are a closed set of ours: this path skips the guard so that it still
        # works when the guarded path is what failed.
        self._hook_errors = self.metrics.family(cat.HOOK_ERRORS)
        # A server that sees no engine's inside (a proxy, a middleware: engine_levels=False)
        # exports no KV, queue, prefix-cache or preemption series: a 0 there would read as
        # "nothing waiting" beside an engine with a full queue. (The stream-side levels, paused
        # and buffered, are the serving path's, and stay.)
        self._pool_children = self._capacity_children(engine_levels)
        # (None where not exported: the steps of such a server report no levels)
        self._levels: tuple[Any, ...] = tuple(self._pool_children.get(s.name) for s in (
            cat.KV_BLOCKS_USED, cat.KV_BLOCKS_TOTAL, cat.RUNNING, cat.WAITING, cat.PAUSED,
            cat.STREAM_BUFFERED))
        self._batch_size = self._pool_children[cat.BATCH_SIZE.name]
        self._children: dict[tuple[str, str], SeriesBundle] = {}
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

    def declare_models(self, names: Iterable[str]) -> frozenset[str]:
        """Model names the server learnt it serves (a proxied engine's ``/v1/models``): those
        the PII check passes become label values like configured ones, and each listener
        (the span redaction's known models) hears of them. Returns those names: a caller
        that picks label values itself treats any other as unlisted. Never raises (on an
        internal error: none declared, none returned)."""
        try:
            accepted = self.metrics.declarable(names)
            if self.metrics.declare_models(accepted):
                with self._models_lock:
                    self._children = {}  # pairs decided before: decide again
            for listener in self.model_listeners:
                listener(accepted)
            return frozenset(accepted)
        except Exception:
            self.hook_failed("declare_models")
            return frozenset()

    def children(self, model: str, priority: str) -> SeriesBundle:
        """The shared child bundle of (model, priority)."""
        found = self._children.get((model, priority))
        if found is None:
            with self._models_lock:  # rare (a new pair): two first models never both pass
                if self._first_model is None:
                    self._first_model = model
                elif model != self._first_model:
                    self._many_models = True
            found = SeriesBundle(self.metrics, model, priority)
            if len(self._children) < 1024:
                self._children[(model, priority)] = found
        return found

    def send_spans_to(self, provider: TracerProvider, processor: Any) -> None:
        """Build our spans as finished spans and hand them to ``processor`` directly (what
        ``setup_telemetry`` does with its batch processor), skipping the SDK's live-span
        machinery; sampling stays the provider's sampler's."""
        self.start_trace = _trace_starter(self._tracer, provider, processor)

    # --- making recorders -----------------------------------------------------------------
    def request(self, request_id: str, *, model: str | None = None, priority: str = "default",
                prompt_tokens: int = 0, carrier: Mapping[str, str] | None = None,
                arrival: float | None = None, operation: str = "text_completion",
                ) -> RequestRecorder:
        """A recorder for a request that has just arrived (counts the arrival). An
        ``arrival`` that is not a time on this telemetry's clock (NaN, infinite, ten years or more
        from now) is replaced by now and counted as a hook failure: one span stamped before
        1970 fails its whole export batch."""
        now = self.clock()
        if arrival is None:
            arrival = now
        elif not (isinstance(arrival, int | float) and abs(arrival - now) < TIME_SLACK_S):
            self.hook_failed("arrival")
            arrival = now
        if not (type(request_id) is str and (model is None or type(model) is str)
                and type(priority) is str and type(operation) is str
                and type(prompt_tokens) is int and 0 <= prompt_tokens <= MAX_TOKEN_COUNT
                and (carrier is None or type(carrier) is dict or isinstance(carrier, Mapping))):
            # a value straight from a client's body (a list as the model, a string count):
            # what can be read is kept, the rest replaced, and counted
            (request_id, model, priority, prompt_tokens, carrier, operation), usable = \
                _arguments(request_id, model, priority, prompt_tokens, carrier, operation)
            if not usable:
                self.hook_failed("request_arguments")
        return RequestRecorder(self, request_id, model or self.model, priority, prompt_tokens,
                               carrier, arrival, operation)

    def time_of(self, now: float) -> float:
        """``now`` when it is a reading of this telemetry's clock (a finite number within
        ten years of it: ``time.monotonic`` unless ``clock=`` says otherwise); else the clock's
        own reading, counted as a hook failure (a NaN observed once makes a histogram's sum
        NaN for good, and ``time.time()`` given for a monotonic clock, a latency of decades)."""
        reading = self.clock()
        try:
            if abs(now - reading) < TIME_SLACK_S:
                return now
        except TypeError:
            pass
        self.hook_failed("now")
        return reading

    # --- the per-iteration call -----------------------------------------------------------
    def step(self, report: StepReport) -> None:
        """Report one scheduler iteration: one call for the whole batch. The entries of
        ``report.advanced`` are recorders this telemetry made (:meth:`request`): the step
        applies their commits inline."""
        try:
            self._step(report)
        except Exception:
            self.hook_failed("step")

    def commits(self, entries: Sequence[tuple[RequestRecorder, int, int, float]]) -> None:
        """Commits of several requests in one call, for a server without a scheduler (a
        proxy applies what its streams received in one event-loop turn): each entry is
        (recorder, committed, proposed, when committed). Tokens, first tokens and the
        written/delivered flush as a step applies them; no batch size, no capacity levels
        (there was no batch). Never raises."""
        try:
            if not entries:
                return
            now = self.time_of(entries[-1][3])
            if self._many_models:
                for model, group in _by_model(entries).items():
                    self._count_step(model, group, now, 0)
            else:
                self._count_step(self._first_model or entries[0][0].model, entries, now, 0)
        except Exception:
            self.hook_failed("commits")

    def _step(self, report: StepReport) -> None:
        now = self.clock() if report.now is None else self.time_of(report.now)
        advanced = report.advanced
        if advanced:
            if self._many_models:
                for model, entries in _by_model(advanced).items():
                    self._count_step(model, entries, now, 0)
                self._batch_size.observe(len(advanced))
            else:  # the usual server: one model, one pass, one lock acquisition
                model = self._first_model or cast(RequestRecorder, advanced[0][0]).model
                self._count_step(model, advanced, now, len(advanced))
        if report.forward_seconds or report.step_tokens:
            self._report_phases(report)
        self._report_capacity(report)

    def _count_step(self, model: str, entries: Sequence[Any], now: float, batch: int) -> None:
        """Apply one model's commits, flush its token counters (and the batch size when
        ``batch``): the commits, the flush of the streams its writers flagged and every
        counter in one acquisition of the lock, so a finish on another thread counts a
        request's tokens wholly before or wholly after this step (its discarded tokens are
        what it committed less what it delivered, in the counters too). The first tokens'
        TTFT is observed after (a new histogram child takes the lock itself)."""
        ch = self.children(model, "")
        firsts: list[tuple[RequestRecorder, float]] = []
        written = delivered = 0
        with self.metrics.lock:
            committed, proposed, moved, odd_times, bad = advance(entries, now, firsts)
            c_child, p_child, w_child, d_child = ch.step_tokens
            if moved is not None:
                written, delivered = flush(moved)
                if written > 0 and w_child is not None:
                    w_child.value += written
                    written = 0
                if delivered > 0 and d_child is not None:
                    d_child.value += delivered
                    delivered = 0
            if committed > 0 and c_child is not None:
                c_child.value += committed
                committed = 0
            if proposed > 0 and p_child is not None:
                p_child.value += proposed
                proposed = 0
            if batch:
                self._batch_size.add(batch)
        if committed or proposed or written or delivered:
            # a stage's first count: make its series (outside the lock), then add
            children = self._token_children(ch, (committed, proposed, written, delivered))
            with self.metrics.lock:
                for child, n in zip(children, (committed, proposed, written, delivered),
                                    strict=True):
                    if n > 0:
                        child.value += n
        for rec, at in firsts:
            rec._first_token(at)
        if odd_times:
            self.hook_failed("now")
        for _ in range(bad):
            self.hook_failed("step")

    @staticmethod
    def _token_children(ch: SeriesBundle, counts: tuple[int, int, int, int]) -> tuple[Any, ...]:
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
            if not 0.0 <= seconds < math.inf:  # a NaN or a negative sum never recovers
                self.hook_failed("forward_seconds")
                continue
            (phases.get((cat.FORWARD_TIME.name, phase)) or
             self._phase_child(cat.FORWARD_TIME, phase)).observe(seconds)
        for phase, tokens in report.step_tokens.items():
            if not 0 <= tokens <= MAX_TOKEN_COUNT:
                self.hook_failed("step_tokens")
                continue
            (phases.get((cat.STEP_TOKENS.name, phase)) or
             self._phase_child(cat.STEP_TOKENS, phase)).observe(tokens)

    def _phase_child(self, spec: cat.MetricSpec, phase: str) -> Any:
        # a name, not free text ("prefill for bob@..."); cached under what the step said
        label = phase if label_shape_ok(phase) else OTHER
        child = self.metrics.child(spec, pool=self.pool, phase=label)
        if len(self._phase_children) < 64:  # phases are a small closed set; bounded anyway
            self._phase_children[(spec.name, phase)] = child
        return child

    def _capacity_children(self, engine_levels: bool) -> dict[str, Any]:
        specs = (cat.KV_BLOCKS_USED, cat.KV_BLOCKS_TOTAL, cat.RUNNING, cat.WAITING, cat.PAUSED,
                 cat.STREAM_BUFFERED, cat.PREFIX_QUERIES, cat.PREFIX_HITS, cat.PREEMPTIONS,
                 cat.BATCH_SIZE) if engine_levels else (cat.PAUSED, cat.STREAM_BUFFERED,
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
                # (with the traceback when an exception is being handled: a value refused
                # has none)
                _log.warning("servescope hook %r failed; counting further failures silently",
                             hook, exc_info=sys.exc_info()[0] is not None)
        except Exception:  # the last line of defence: telemetry never breaks the server
            pass

    @property
    def tracer(self) -> Any:
        return self._tracer

    def span_ns(self, t: float) -> int:
        return self._span_clock.ns(t)

    def exemplar_chosen(self, ids: Mapping[str, str]) -> bool:
        """Whether metric exemplars may point at the sampled trace ``ids``."""
        return tracing.selected(ids, self.exemplar_ratio)



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


def _by_model(entries: Sequence[Any]) -> dict[str, list[Any]]:
    """A step's entries grouped by their recorder's model (servers with several models)."""
    groups: dict[str, list[Any]] = {}
    for entry in entries:
        groups.setdefault(entry[0].model, []).append(entry)
    return groups


def _arguments(request_id: object, model: object, priority: object, prompt_tokens: object,
               carrier: object, operation: object
               ) -> tuple[tuple[str, str | None, str, int, Mapping[str, str] | None, str], bool]:
    """:meth:`Telemetry.request`'s arguments made usable, and whether they were (a str
    subclass, numpy's integers are): a name that is no string becomes ``other`` (the label
    every unexpected value folds into), a count that is no count 0."""
    usable = True

    def text(value: object, default: str) -> str:
        nonlocal usable
        if isinstance(value, str):
            return str(value)
        usable = False
        return default

    count = int(prompt_tokens) if isinstance(prompt_tokens, numbers.Integral) \
        and not isinstance(prompt_tokens, bool) else -1
    if 0 <= count <= MAX_TOKEN_COUNT:
        tokens = count
    else:
        tokens, usable = 0, False
    if carrier is not None and not isinstance(carrier, Mapping):
        carrier, usable = None, False
    return (text(request_id, repr(request_id)[:64]),
            None if model is None else text(model, OTHER), text(priority, OTHER), tokens,
            carrier, text(operation, "text_completion")), usable
