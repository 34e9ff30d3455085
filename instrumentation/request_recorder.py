"""The hooks: one :class:`RequestRecorder` per request, made by a process-wide
:class:`~.telemetry.Telemetry`.

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

This module loads no exporter (no prometheus_client, no OpenTelemetry): the engine core
subclasses and types against it. The recorder reaches metrics and spans only through its
telemetry and the objects it hands out.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from . import catalog as cat
from .attributes import ATTR
from .labels import OTHER, label_shape_ok
from .status import FinishReason, TokenStage
from .step import StepReport
from .terminal import TerminalState

if TYPE_CHECKING:
    from . import tracing
    from .telemetry import Telemetry

__all__ = ["MAX_ENGINE_REASONS", "MAX_ENGINE_REASON_CHARS", "MAX_TOKEN_COUNT", "TIME_SLACK_S",
           "RequestRecorder", "RequestSummary", "engine_finish_reasons"]

_P = ParamSpec("_P")
# Enum members read once: a class attribute lookup on an Enum costs about as much as a
# counter increment, and these are read on every request.
_REJECTED, _ERROR = FinishReason.REJECTED, FinishReason.ERROR
_R = TypeVar("_R")
#: The most tokens one count may hold (a trillion): a larger one is an error (a counter made
#: of it would lose its precision as a float, or overflow).
MAX_TOKEN_COUNT = 1 << 40


def token_count(n: Any) -> int:
    """``n`` as a token count: an integer (a NumPy one too) from 0 to
    :data:`MAX_TOKEN_COUNT`; anything else (a fraction, NaN, infinity, a negative count, a
    string) raises ValueError, which the hooks count as a hook error. A counter fed an
    infinity or a fraction would keep it for the life of the process."""
    if n.__class__ is not int:
        if isinstance(n, bool) or not hasattr(n, "__index__"):
            raise ValueError("a token count is an integer")
        n = n.__index__()
    if not 0 <= n <= MAX_TOKEN_COUNT:
        raise ValueError("a token count is from 0 to MAX_TOKEN_COUNT")
    return int(n)
#: How far from the telemetry's clock a time given to a hook may be (ten years): further, it
#: is no reading of that clock (NaN, infinite, ``time.time()`` for a monotonic clock).
TIME_SLACK_S = 315_360_000.0
#: An engine's own finish reasons a span records at most, and their length at most.
MAX_ENGINE_REASONS = 16
MAX_ENGINE_REASON_CHARS = 32


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



def _count_or_0(n: Any) -> int:
    """A prompt's length as a count: one that is no count (NaN, infinity, a fraction, a
    negative number) as 0."""
    if n.__class__ is int and 0 <= n <= MAX_TOKEN_COUNT:
        return n
    try:
        return token_count(n)
    except (ValueError, TypeError):
        return 0


def advance(entries: Sequence[Any], now: float, firsts: list[tuple[Any, float]]
            ) -> tuple[int, int, list[Any] | None, int, int]:
    """Apply a step's commits to each request (the recorder's commit, inlined: this loop runs
    for every request every step, so it does no more than the integers need): the committed
    and proposed totals, the requests whose writers flagged them since their last flush
    (None when none did), how many commit stamps were no reading of the clock (replaced
    by ``now``) and how many entries were no (recorder, committed, proposed[, at]) at all
    (skipped: the step's other entries still count). Runs under the metric set's lock, so a
    finish on another thread sees each request's commits all or none; what would take the
    lock itself is left to the caller: each request's first token, appended to ``firsts``
    (its TTFT is observed after)."""
    committed = proposed = odd_times = bad = 0
    moved: list[Any] | None = None
    for entry in entries:
        try:  # (free in 3.11 while nothing raises)
            rec = entry[0]
            if rec._reason is not None:
                continue  # finished (a late report): the terminal summary is final
            c = rec._state
            n, drafts = entry[1], entry[2]
            if n.__class__ is not int or drafts.__class__ is not int or n < 0 or drafts < 0 \
                    or n > MAX_TOKEN_COUNT or drafts > MAX_TOKEN_COUNT:
                n, drafts = token_count(n), token_count(drafts)  # (raises on a bad count)
            if c.moved:  # delivered since the last step: the peak was just before it (peak)
                ahead = c.committed - c.delivered_flushed
                if ahead > c.peak_unacknowledged:
                    c.peak_unacknowledged = ahead
                if moved is None:
                    moved = [rec]
                else:
                    moved.append(rec)
            if n > 0:  # a step may reject every draft and commit nothing
                at = entry[3] if len(entry) == 4 else now  # its own commit stamp, when given
                if at is not now and not abs(at - now) < TIME_SLACK_S:  # not on our clock
                    at = now
                    odd_times += 1
                if c.committed:
                    c.committed += n
                else:
                    c.committed = n
                    c.first_token = at
                    firsts.append((rec, at))
                c.last_token = at
                committed += n
            if drafts:
                c.proposed += drafts
                proposed += drafts
        except Exception:
            bad += 1
    return committed, proposed, moved, odd_times, bad


def _at_least_0(seconds: float) -> float:
    """A duration, 0 when its times were read out of order (or NaN)."""
    return seconds if seconds >= 0.0 else 0.0


def peak(c: _State) -> None:
    """Bring the unacknowledged peak up to now. Tokens committed but not delivered only grow
    between deliveries, so the peak is just before a delivery or now; commits happen only in
    steps, and a step flushes whatever was delivered since the last one, so just before those
    deliveries the count was ``committed`` at the previous step minus ``delivered_flushed``:
    the step loop takes that for each stream its writer flagged (and nothing for the rest),
    the finish the last one."""
    ahead = c.committed - c.delivered_flushed
    if ahead > c.peak_unacknowledged:
        c.peak_unacknowledged = ahead


def flush(moved: list[Any]) -> tuple[int, int]:
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



def engine_finish_reasons(reasons: Mapping[int, str] | None) -> tuple[str, ...] | None:
    """An engine's per-choice finish reasons as the span records them: ordered by choice
    index, at most :data:`MAX_ENGINE_REASONS` of at most :data:`MAX_ENGINE_REASON_CHARS`
    characters. They come from an upstream and the attribute is exported as it is (the
    redaction policy allows it), so a value that is not a short name (``stop``,
    ``tool_calls``) records as ``other``. None when there are none to record (or they cannot
    be read): the span then records the terminal state."""
    if not reasons:
        return None
    try:
        ordered = [reasons[i] for i in sorted(reasons)[:MAX_ENGINE_REASONS]]
    except Exception:  # keys that do not sort: a caller's bug, not a reason to lose the span
        return None
    return tuple(_engine_reason(value) for value in ordered)


def _engine_reason(value: object) -> str:
    if isinstance(value, str):
        value = value[:MAX_ENGINE_REASON_CHARS]
        if label_shape_ok(value):
            return value
    return OTHER


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
    peak_unacknowledged: int = 0  # brought up to date by peak (steps, finish)
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
        # a count below zero would make a counter go down (read as a reset by rate())
        self._state = _State(arrival, prompt=_count_or_0(prompt_tokens))
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
        # the operation names the span and gen_ai.operation.name, which no scan reads: a
        # short name ("chat", "text_completion") or "other"
        if operation.__class__ is not str or not label_shape_ok(operation):
            operation = OTHER
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
            start_trace = self.telemetry.start_trace
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
                    if self.telemetry.exemplar_chosen(span.ids):
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
        if now is None:
            return self.telemetry.clock()
        # (the arrival is a reading of the same clock: a time near it needs no clock read)
        try:
            if abs(now - self._state.arrival) < TIME_SLACK_S:
                return now
        except TypeError:
            pass
        return self.telemetry.time_of(now)  # replaced by the clock's reading, counted

    # The hottest hooks catch errors inline (a decorator would add a call frame to each).
    def admitted(self) -> None:
        try:
            if self._reason is not None:  # after the terminal state: too late to count
                return
            ch = self._ch
            (ch.cache.get(cat.ADMITTED.name) or ch.get(cat.ADMITTED)).inc()
        except Exception:
            self.telemetry.hook_failed("admitted")

    @_hook("rejected")
    def rejected(self, reason: str, *, now: float | None = None) -> bool:
        """Refuse the request before admission; a terminal state (finish reason rejected).
        (After :meth:`admitted`, end a request that fails with ``finish(ERROR)``: a rejection
        then would count it both admitted and rejected.) ``reason`` is a short name
        (``queue_full``, ``http_429``): it becomes a label value, so anything else (free text,
        an exception's message) is counted as ``other``."""
        self._reject_reason = reason if isinstance(reason, str) and label_shape_ok(reason) \
            else OTHER
        return self.finish(FinishReason.REJECTED, now=now) is True

    def scheduled(self, *, now: float | None = None) -> None:
        """First scheduled (ends the queue phase). Later calls (after preemption) are no-ops."""
        try:
            times = self._state
            if times.scheduled is not None or self._reason is not None:
                return
            t = times.scheduled = self._now(now)
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
            t = times.prefill_done = self._now(now)
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
        """The first committed token's TTFT (the step loop stamped it, under the lock)."""
        self._observe(cat.SERVER_TTFT, now - self._state.arrival)

    def written(self, n: int = 1, *, now: float | None = None) -> None:
        """``n`` tokens handed to the client connection (accepted by the socket; they may
        still sit in buffers). ``now``: when the write was issued; the first one stamps the
        stream TTFT. Integer bookkeeping only; flushed in the next step report and at finish.
        Called by the request's one writer."""
        try:
            if n.__class__ is not int:
                n = token_count(n)  # (a fraction or NaN raises: counted, not added)
            if n <= 0 or n > MAX_TOKEN_COUNT or self._reason is not None:
                if n > MAX_TOKEN_COUNT:
                    self.telemetry.hook_failed("written")
                return  # (the terminal summary is final)
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
            if n.__class__ is not int:
                n = token_count(n)  # (a fraction or NaN raises: counted, not added)
            if n <= 0 or n > MAX_TOKEN_COUNT or self._reason is not None:
                if n > MAX_TOKEN_COUNT:
                    self.telemetry.hook_failed("delivered")
                return  # (the terminal summary is final)
            c = self._state
            c.delivered = total = c.delivered + n
            written = c.written
            if written < total:
                if written and self._span is None:  # only the stream span needs last_byte
                    c.written = total
                else:
                    self._wrote(total - written, self._now(now))
            c.moved = True
        except Exception:
            self.telemetry.hook_failed("delivered")

    @_hook("prompt_tokens")
    def prompt_tokens(self, n: int) -> None:
        """The prompt's length, learnt after the arrival (a proxy reads it from the engine's
        own usage): counted once, and only for a request whose arrival named none."""
        c = self._state
        if n.__class__ is not int:
            n = token_count(n)
        if n <= 0 or n > MAX_TOKEN_COUNT or c.prompt or self._reason is not None:
            return
        c.prompt = n
        self._ch.get(cat.TOKENS, cat.STAGE, TokenStage.PROMPT).inc(n)
        if self._span is not None:
            self._span.set_attribute(ATTR.INPUT_TOKENS, n)

    @_hook("error_type")
    def error_type(self, kind: str) -> None:
        """Why the request is about to end as it does, as a short fixed name the caller
        chooses (``upstream_malformed``, ``deadline_exceeded``): ``error.type`` on the request
        span. Finish reasons keep their catalog values; this tells causes apart in a trace."""
        if not (isinstance(kind, str) and label_shape_ok(kind)):
            # (a value the caller passed on unchecked: an object would fail the whole
            # export batch, a message may hold anything)
            self.telemetry.hook_failed("error_type")
            kind = OTHER
        if self._span is not None and self._reason is None:
            self._span.set_attribute(ATTR.ERROR_TYPE, kind)

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
    def finish(self, reason: FinishReason, *, now: float | None = None,
               engine_reasons: Mapping[int, str] | None = None) -> bool:
        """Compare-and-set the terminal state. True for the first caller; False (a counted
        no-op) for every later one, and for a reason that is not a :class:`FinishReason`
        (counted as a hook failure: the set is closed, and it settles nothing). Safe from any
        thread; never raises. ``engine_reasons``: a proxy's engine's own finish reason of each
        choice, by choice index, for the span's ``gen_ai.response.finish_reasons`` (see
        :func:`engine_finish_reasons`); without them it records ``reason``."""
        try:
            if type(reason) is not FinishReason:
                reason = FinishReason(reason)  # its value as a string will do; else ValueError
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
            late: tuple[int, int, int] | None = None
            if won and plan is not None:
                try:
                    late = self._apply_finish(reason, plan)
                except Exception as exc:  # reported after the lock (counting takes it)
                    error = exc
        if not won:
            return self._ignored(reason)
        if late is not None:
            try:
                self._count_late(late)
            except Exception as exc:
                error = error or exc
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
                self._end_spans(t, reason, engine_finish_reasons(engine_reasons))
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
        peak(st)
        # (a time read out of order gives 0, never a negative duration: a histogram's sum
        # below zero makes OpenMetrics parsers refuse the whole exposition)
        ttft = None if st.first_token is None else _at_least_0(st.first_token - st.arrival)
        tpot = self._tpot() if st.committed >= 2 else None
        decode = None if st.prefill_done is None else _at_least_0(t - st.prefill_done)
        good = self.telemetry.slo.is_good(reason, ttft, tpot)
        shape = (reason, tpot is not None, decode is not None, st.written > 0,
                 st.delivered > 0, st.committed > st.delivered, good)
        series = self._ch.finishes.get(shape) or self._finish_series(shape)
        rejected = None if reason is not _REJECTED else self.telemetry.metrics.child(
            cat.REJECTED, model=self.model, reason=self._reject_reason or "unspecified")
        return series, rejected, _at_least_0(t - st.arrival), tpot, decode, ttft, good

    def _apply_finish(self, reason: FinishReason, plan: tuple[Any, ...]
                      ) -> tuple[int, int, int] | None:
        """Under the metric set's lock: arithmetic only. Returns the written, delivered and
        discarded tokens whose series the plan did not resolve (a step or the writer moved
        them between the plan and the lock), for :meth:`_count_late`; None when none."""
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
        new_w, new_d = n_written - st.written_flushed, n_delivered - st.delivered_flushed
        st.written_flushed, st.delivered_flushed = n_written, n_delivered
        lost = st.committed - n_delivered
        if lost < 0:
            lost = 0
        stream_ttft = None if st.first_byte is None else st.first_byte - st.arrival
        # the summary object is built when asked for (a frozen dataclass costs microseconds)
        self._final = (reason, ttft, stream_ttft, tpot, e2e, lost, good)
        # (a series is None when nothing was written, delivered or lost as the plan chose it)
        late_lost = lost
        if written is not None:
            written.value += new_w
            new_w = 0
        if delivered is not None:
            delivered.value += new_d
            new_d = 0
        if discarded is not None:
            discarded.value += lost
            late_lost = 0
        return (new_w, new_d, late_lost) if new_w > 0 or new_d > 0 or late_lost > 0 else None

    def _count_late(self, late: tuple[int, int, int]) -> None:
        """Tokens a finish counts whose series were not resolved before its lock: made now
        (a series is made outside the lock), then added."""
        ch = self._ch
        counts = [(ch.get(cat.TOKENS, cat.STAGE, stage), n) for stage, n in zip(
            (TokenStage.WRITTEN, TokenStage.DELIVERED, TokenStage.DISCARDED), late,
            strict=True) if n > 0]
        with self._lock:
            for child, n in counts:
                child.value += n

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
        return _at_least_0(last - first) / (n - 1)

    @property
    def _summary(self) -> RequestSummary | None:
        if self._final is None:
            return None
        reason, ttft, stream_ttft, tpot, e2e, discarded, good = self._final
        c = self._state
        return RequestSummary(self.request_id, reason, ttft, stream_ttft, tpot, e2e, c.prompt,
                              c.proposed, c.committed, c.delivered, discarded, c.pauses, good,
                              (), c.written, c.peak_unacknowledged)

    def _end_spans(self, t: float, reason: FinishReason,
                   engine_reasons: tuple[str, ...] | None = None) -> None:
        span, times, summary = self._span, self._state, self._summary
        if span is None or summary is None:
            return
        if times.prefill_done is not None:
            self._phase("decode", times.prefill_done, t)
        if times.first_byte is not None:
            self._phase("stream", times.first_byte, times.last_byte or t)
        attrs: dict[str, Any] = {
            ATTR.FINISH_REASON: reason.value,
            ATTR.FINISH_REASONS: engine_reasons or (reason.value,),
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
        # a span ends no earlier than its children: the stream phase runs to the last byte
        # written, which a proxy writes after the engine's last event (the request's end)
        end = max(t, times.last_byte or t)
        span.end(self.telemetry.span_ns(end), attrs, error=reason is _ERROR)

    # --- helpers --------------------------------------------------------------------------
    def _observe(self, spec: cat.MetricSpec, value: float, label: str = "",
                 label_value: str = "") -> None:
        if not value >= 0.0:  # a clock read out of order (or NaN): never a negative sum
            value = 0.0
        ch = self._ch  # the cache read inline: a call less on every hot observation
        child = ch.cache.get((spec.name, label_value) if label else spec.name) or \
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

