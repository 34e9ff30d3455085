"""One call that wires the tracer provider, the span pipeline and the metric registry.

Configuration follows OpenTelemetry's order: explicit argument, then the standard ``OTEL_*``
environment variables (read by the SDK's own parsing: sampler and argument, batch processor
settings, exporter, endpoint and protocol), then the default: spans go nowhere, and a warning
says so once. Nothing is written to disk unless asked: ``trace_file=`` (the demo and
``servescope serve --trace-file``) appends JSON lines to a bounded, rotated local file.

Safe by default: spans pass through the redaction stage with the shipped policy, log records
of the handlers in place pass through the log redaction filter, and client-supplied label
values pass the redaction detectors. Opting out takes an explicit ``redaction=False`` /
``log_redaction=False``, logs a warning and shows as ``servescope_redaction_enabled{kind} 0``.

This module is the one place where instrumentation meets redaction: the hooks never import
it, and ``servescope.redaction`` imports nothing of ours (it is imported here lazily, as the
composition root wires the pieces together).
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.sampling import ParentBased, Sampler, TraceIdRatioBased
from opentelemetry.sdk.util import ns_to_iso_str
from prometheus_client import CollectorRegistry

from . import catalog as cat
from .endpoints import shown_url
from .export import CountingBatchSpanProcessor, CountingSpanExporter
from .labels import DeclaredLabels
from .metrics import MetricSet
from .slo import SLOSpec
from .telemetry import Telemetry

__all__ = ["CountingSpanExporter", "JsonLinesSpanExporter", "TelemetrySetup",
           "install_log_redaction", "redacted_echo", "setup_telemetry"]

_log = logging.getLogger("servescope.setup")

DEFAULT_TRACE_FILE = "servescope-traces.jsonl"
#: A trace file rotates at this size, keeping this many older files (.1, .2): bounded on disk.
TRACE_FILE_MAX_BYTES = 64 * 1024 * 1024
TRACE_FILE_BACKUPS = 2
NOWHERE = ("nowhere: no OTEL_TRACES_EXPORTER or OTLP endpoint is set (spans are not "
           "exported; set OTEL_EXPORTER_OTLP_ENDPOINT, or pass trace_file= for a local file)")
_said_nowhere = threading.Event()
# What setup_telemetry(redaction=...) takes (servescope.redaction.RedactionStage is one): given
# the exporter and a callback counting redacted values by kind, it returns the wrapped exporter.
SpanRedaction = Callable[[SpanExporter, Callable[[str, int], None]], SpanExporter]


class JsonLinesSpanExporter(SpanExporter):
    """Appends each span as one JSON line to a local file, rotated at ``max_bytes`` with
    ``backups`` older files kept (``path.1`` the newest): at most (backups + 1) × max_bytes
    on disk, however long the process runs."""

    def __init__(self, path: str | Path = DEFAULT_TRACE_FILE, *,
                 max_bytes: int = TRACE_FILE_MAX_BYTES, backups: int = TRACE_FILE_BACKUPS
                 ) -> None:
        self.path = Path(path)
        self.max_bytes = max_bytes
        self.backups = backups
        self._lock = threading.Lock()
        self._resources: dict[int, tuple[Resource, object]] = {}

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        lines = "".join(_span_line(s, self._resources) for s in spans)
        try:
            with self._lock:
                self._rotate_for(len(lines.encode("utf-8")))
                # owner-only, as an SSH key is: redacted spans still name routes and
                # timings (os.open applies the mode when it creates the file)
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
                with open(fd, "a", encoding="utf-8") as fh:
                    fh.write(lines)
        except OSError:
            return SpanExportResult.FAILURE
        return SpanExportResult.SUCCESS

    def _rotate_for(self, incoming: int) -> None:
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            return
        if size == 0 or size + incoming <= self.max_bytes:
            return
        for i in range(self.backups, 0, -1):
            older = self.path.with_name(f"{self.path.name}.{i}")
            newer = self.path.with_name(f"{self.path.name}.{i - 1}") if i > 1 else self.path
            if newer.exists():
                newer.replace(older)
        if self.backups == 0:
            self.path.unlink()

    def shutdown(self) -> None:
        pass


def _span_line(span: ReadableSpan, resources: dict[int, tuple[Resource, object]]) -> str:
    """``span.to_json()`` as one compact line, built without the SDK's indented encoding
    and the decode-and-encode that compacting it took (a third of a busy gateway's span
    work): the same fields, in the same order. The resource, the same object for every
    span of a provider, is formatted once."""
    cached = resources.get(id(span.resource))
    if cached is None or cached[0] is not span.resource:
        if len(resources) > 16:
            resources.clear()
        cached = resources[id(span.resource)] = (span.resource,
                                                 json.loads(span.resource.to_json(None)))
    fmt = ReadableSpan
    status: dict[str, str] = {"status_code": str(span.status.status_code.name)}
    if span.status.description:
        status["description"] = span.status.description
    parent = span.parent
    fields = {
        "name": span.name,
        "context": fmt._format_context(span.context) if span.context else None,
        "kind": str(span.kind),
        "parent_id": None if parent is None else f"0x{parent.span_id:016x}",
        "start_time": ns_to_iso_str(span.start_time) if span.start_time else None,
        "end_time": ns_to_iso_str(span.end_time) if span.end_time else None,
        "status": status,
        "attributes": fmt._format_attributes(span.attributes),
        "events": fmt._format_events(span.events),
        "links": fmt._format_links(span.links),
        "resource": cached[1],
    }
    return json.dumps(fields, separators=(",", ":")) + "\n"


def _nowhere() -> tuple[None, str]:
    if not _said_nowhere.is_set():
        _said_nowhere.set()
        _log.warning("servescope: spans go %s", NOWHERE)
    return None, NOWHERE


def _env_exporter(trace_file: str | Path | None) -> tuple[SpanExporter | None, str]:
    """The exporter the environment asks for, and a description of where spans go.

    ``OTEL_TRACES_EXPORTER`` is resolved the way the SDK's auto-configuration does (its
    entry-point names, ``otlp`` picking gRPC or HTTP from ``OTEL_EXPORTER_OTLP_*PROTOCOL``);
    the exporters read their own endpoint, headers and timeout variables. Unset, an OTLP
    endpoint variable means ``otlp``; nothing at all means ``trace_file`` when one is given,
    else nowhere (said once). An unknown name is logged and treated the same way.
    """
    from opentelemetry.sdk import _configuration as auto  # the SDK's own OTEL_* resolution

    configured = os.environ.get("OTEL_TRACES_EXPORTER", "").strip()
    endpoint = (os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
                or os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"))
    if configured.lower() == "none":
        return None, "nowhere (OTEL_TRACES_EXPORTER=none)"
    if not configured and not endpoint:
        if trace_file is None:
            return _nowhere()
        return JsonLinesSpanExporter(trace_file), f"the file {trace_file}"
    try:
        names = (auto._get_exporter_names("traces") if configured
                 else [auto._get_exporter_entry_point("otlp", "traces")])
        classes = auto._import_exporters(names, [], [])[0]
        exporters = [cls() for cls in classes.values()]
    except Exception as exc:  # an unknown name or protocol, a missing package
        where = "the file " + str(trace_file) if trace_file is not None else "nowhere"
        _log.warning("servescope: OTEL_TRACES_EXPORTER=%r cannot be used (%s): spans go %s",
                     configured or "otlp", exc, where)
        if trace_file is None:
            return None, f"nowhere (OTEL_TRACES_EXPORTER={configured or 'otlp'!r} cannot be used)"
        return JsonLinesSpanExporter(trace_file), f"the file {trace_file}"
    where = ", ".join(_DESCRIBE.get(n, n) for n in names) + (
        f" at {shown_url(endpoint)}" if endpoint else "")
    return (exporters[0] if len(exporters) == 1 else _FanOut(exporters)), where


_DESCRIBE = {"otlp_proto_grpc": "OTLP/gRPC", "otlp_proto_http": "OTLP/HTTP",
             "console": "the console"}


class _FanOut(SpanExporter):
    """Several exporters named in ``OTEL_TRACES_EXPORTER``: each gets every batch."""

    def __init__(self, exporters: Sequence[SpanExporter]) -> None:
        self.exporters = list(exporters)

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        results = [e.export(spans) for e in self.exporters]
        return (SpanExportResult.SUCCESS if all(r is SpanExportResult.SUCCESS for r in results)
                else SpanExportResult.FAILURE)

    def shutdown(self) -> None:
        for e in self.exporters:
            e.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return all(e.force_flush(timeout_millis) for e in self.exporters)


def _redaction_counter(metrics: MetricSet) -> Callable[[str, int], None]:
    def count(kind: str, n: int) -> None:
        metrics.child(cat.REDACTIONS, kind=kind).inc(n)

    return count


def _sampler(ratio: float | None) -> Sampler | None:
    """An explicit ratio wins; None lets the SDK read ``OTEL_TRACES_SAMPLER`` and
    ``OTEL_TRACES_SAMPLER_ARG`` itself (an unknown value is logged there, default used)."""
    return None if ratio is None else ParentBased(TraceIdRatioBased(ratio))


def _default_redaction(choice: SpanRedaction | bool | None) -> SpanRedaction | None:
    if choice is False:
        _log.warning("servescope: span redaction is OFF (redaction=False): prompts, ids and "
                     "attributes leave the process as recorded")
        return None
    if choice is None or choice is True:
        from servescope.redaction import RedactionStage as Stage

        return Stage()
    return choice


def redacted_echo(text: str) -> str:
    """``text`` (a client's value an error answer repeats) redacted by the shipped policy;
    on a redaction failure nothing of it."""
    try:
        return str(_echo_redactor().redact_text(text, {}))
    except Exception:
        return "[REDACTED:redaction_failed]"


@functools.cache
def _echo_redactor() -> Any:
    from servescope.redaction import Redactor  # on first use: most servers never echo

    return Redactor()


def _check_settings(*, model: Any, pool: Any, slo: Any, sample_ratio: Any, trace_file: Any,
                    max_queue_size: Any, exemplar_ratio: Any, declared_labels: Any) -> None:
    """Each of :func:`setup_telemetry`'s settings, or a ValueError naming the argument. The
    names an operator configures become label values on every series: one holding what the
    redaction detectors find (an address, a key) is refused, as a client's is folded, and
    the message says what was found, never the value."""
    for field, name in (("model", model), ("pool", pool)):
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"{field}: must be a non-empty name, got {type(name).__name__}")
        _label_pii_free(field, name)
    if declared_labels is not None:
        if not isinstance(declared_labels, DeclaredLabels):
            raise ValueError("declared_labels: must be a DeclaredLabels, got "
                             f"{type(declared_labels).__name__}")
        for listed in declared_labels.models:
            _label_pii_free("declared_labels.models", listed)
    if slo is not None and not isinstance(slo, SLOSpec):
        raise ValueError(f"slo: must be an SLOSpec (load a file with SLOSpec.load), got "
                         f"{type(slo).__name__}")
    for field, ratio in (("sample_ratio", sample_ratio), ("exemplar_ratio", exemplar_ratio)):
        if ratio is not None and (isinstance(ratio, bool) or not isinstance(ratio, (int, float))
                                  or not 0.0 <= ratio <= 1.0):
            raise ValueError(f"{field}: must be a number from 0 to 1, got {ratio!r}")
    if max_queue_size is not None and (isinstance(max_queue_size, bool)
                                       or not isinstance(max_queue_size, int)
                                       or max_queue_size < 1):
        raise ValueError(f"max_queue_size: must be a whole number of spans >= 1, got "
                         f"{max_queue_size!r}")
    if trace_file is not None:
        if not isinstance(trace_file, (str, os.PathLike)) or not str(trace_file):
            raise ValueError("trace_file: must be a file's path")
        path = Path(trace_file)
        if path.is_dir():
            raise ValueError(f"trace_file: {str(path)!r} is a directory, not a file")
        if not path.parent.is_dir():
            raise ValueError(f"trace_file: the directory {str(path.parent)!r} does not exist")


def _label_pii_free(field: str, name: str) -> None:
    found = _pii_kinds(name)
    if found:
        raise ValueError(f"{field}: a label value must carry no personal data or secret, and "
                         f"the redaction detectors find {', '.join(found)} in this one")


def _pii_free(value: str) -> bool:
    """The label check: True when the redaction detectors find nothing in ``value``."""
    return not _pii_kinds(value)


def _pii_kinds(value: str) -> list[str]:
    """The kinds the redaction detectors find in ``value`` (imported late: the detectors
    load only for a process that sets telemetry up)."""
    from servescope.redaction.redactor import scan_joined

    return sorted({found.kind for found in scan_joined(value)})


@contextlib.contextmanager
def _held_logs() -> Iterator[list[logging.LogRecord]]:
    """Hold what servescope's own loggers say meanwhile, to be handled afterwards: set-up's
    warnings (an unset hash key) then pass the log filter like every later record, and a
    handler whose format names ``%(trace_id)s`` (which the filter adds) does not fail."""
    held: list[logging.LogRecord] = []

    class _Hold(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            held.append(record)

    root = logging.getLogger("servescope")
    hold, propagate = _Hold(), root.propagate
    root.addHandler(hold)
    root.propagate = False
    try:
        yield held
    finally:
        root.removeHandler(hold)
        root.propagate = propagate


def _warm_checks() -> None:
    """Build the label check's and the echo's detectors now, at set-up. Built on first use
    instead, they compiled their pattern database (about half a second) inside the first
    request that named an unlisted model or got an error answer: on a server's event loop,
    every stream in flight stalled that long."""
    _pii_free("")
    redacted_echo("")


def install_log_redaction(redaction: SpanRedaction | None,
                          on_redacted: Callable[[str, int], None]) -> logging.Filter:
    """A redacting filter (the span stage's policy) on every handler in place: the root
    logger's, every configured logger's, and the last-resort handler that prints warnings when
    none is configured (where the SDK's own warnings go). Handlers already filtered are left
    as they are; a handler added later needs ``handler.addFilter(setup.log_filter)``."""
    from servescope.redaction import RedactingFilter

    redactor = getattr(redaction, "redactor", None)
    log_filter = RedactingFilter(redactor, on_redacted=on_redacted)
    loggers = [logging.getLogger(), *(lg for lg in logging.Logger.manager.loggerDict.values()
                                      if isinstance(lg, logging.Logger))]
    handlers = [h for lg in loggers for h in lg.handlers]
    if logging.lastResort is not None:
        handlers.append(logging.lastResort)
    for handler in handlers:
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(log_filter)
    return log_filter


@dataclass
class TelemetrySetup:
    """What :func:`setup_telemetry` built; ``shutdown`` flushes spans within a deadline."""

    telemetry: Telemetry
    registry: CollectorRegistry
    tracer_provider: TracerProvider
    traces_destination: str
    span_processor: CountingBatchSpanProcessor | None = None
    #: The log redaction filter installed on the handlers in place (None: opted out).
    log_filter: logging.Filter | None = None

    def force_flush(self, timeout_s: float = 5.0) -> bool:
        return self.tracer_provider.force_flush(int(timeout_s * 1000))

    def shutdown(self, timeout_s: float = 5.0) -> None:
        """Flush what is queued, then stop; returns within about ``timeout_s``."""
        done = threading.Event()

        def _stop() -> None:
            try:
                if self.span_processor is not None:
                    # exports what it can within the deadline and counts what is left
                    self.span_processor.shutdown(int(timeout_s * 1000))
                else:
                    self.tracer_provider.force_flush(int(timeout_s * 1000))
                self.tracer_provider.shutdown()
            except Exception as exc:  # an exporter that fails to stop: said, never raised
                _log.warning("servescope: the span exporter failed to shut down: %s",
                             type(exc).__name__)
            finally:
                done.set()

        threading.Thread(target=_stop, name="servescope-shutdown", daemon=True).start()
        done.wait(timeout_s)


def setup_telemetry(*, service_name: str | None = None, model: str = "default",
                    pool: str = "default", registry: CollectorRegistry | None = None,
                    slo: SLOSpec | None = None, span_exporter: SpanExporter | None = None,
                    redaction: SpanRedaction | bool | None = None,
                    log_redaction: bool = True,
                    sample_ratio: float | None = None,
                    trace_file: str | Path | None = None,
                    max_queue_size: int | None = None,
                    exemplar_ratio: float | None = None,
                    declared_labels: DeclaredLabels | None = None,
                    label_idle_s: float | None = None,
                    install_global: bool = False,
                    engine_levels: bool = True) -> TelemetrySetup:
    """Wire a tracer provider and a registry and return the :class:`Telemetry` hooks.

    ``redaction`` (default: the shipped policy; ``False`` to opt out) wraps the exporter
    inside the batch processor, off the request thread, so no exporter sees an unredacted
    span; its counts feed
    ``servescope_redactions_total{kind}``. ``log_redaction`` puts the same policy on the log
    handlers in place. ``sample_ratio`` overrides ``OTEL_TRACES_SAMPLER``.
    ``declared_labels``: the priority classes and model/adapter names clients may put on a
    label (anything else folds into ``other`` and is counted). ``label_idle_s``: a model or
    adapter without a request for that long stops exporting its series and frees its slot
    (argument, then ``SERVESCOPE_LABEL_IDLE_S``, then an hour; 0: never).
    ``engine_levels=False``: a server that cannot see the engine's inside (a proxy, a
    middleware) exports no KV-cache, queue, prefix-cache or preemption series.

    With no ``OTEL_*`` exporter setting, spans are exported nowhere (a warning says so once)
    unless ``trace_file`` names a local file (bounded and rotated). ``install_global=True``
    makes the redacting provider OpenTelemetry's global one, so spans of other
    instrumentation (httpx, FastAPI, the OpenAI SDK) pass the same redaction stage; without
    it they go to whatever global provider the application set, unredacted by us.
    """
    _check_settings(model=model, pool=pool, slo=slo, sample_ratio=sample_ratio,
                    trace_file=trace_file, max_queue_size=max_queue_size,
                    exemplar_ratio=exemplar_ratio, declared_labels=declared_labels)
    registry = registry if registry is not None else CollectorRegistry()
    name = service_name or os.environ.get("OTEL_SERVICE_NAME", "servescope")
    provider = TracerProvider(resource=Resource.create({"service.name": name}),
                              sampler=_sampler(sample_ratio))
    telemetry = Telemetry(registry=registry, tracer_provider=provider, slo=slo, model=model,
                          pool=pool, exemplar_ratio=exemplar_ratio, label_check=_pii_free,
                          declared_labels=declared_labels, label_idle_s=label_idle_s,
                          engine_levels=engine_levels)
    with _held_logs() as held:  # said once the log filter (trace ids, redaction) is on
        redaction = _default_redaction(redaction)
        _warm_checks()
    # The served model and the declared model/adapter names are known names: spans keep
    # them (other model names are hashed), as labels do.
    add_known = getattr(getattr(redaction, "redactor", None), "add_known_models", None)
    if add_known is not None:
        add_known((model, *(declared_labels.models if declared_labels else ())))
        telemetry.model_listeners.append(add_known)
    counter = _redaction_counter(telemetry.metrics)
    log_filter = install_log_redaction(redaction, counter) if log_redaction else None
    for record in held:
        logging.getLogger(record.name).handle(record)
    if not log_redaction:
        _log.warning("servescope: log redaction is OFF (log_redaction=False)")
    enabled = telemetry.metrics
    enabled.child(cat.REDACTION_ENABLED, kind="spans").set(1 if redaction is not None else 0)
    enabled.child(cat.REDACTION_ENABLED, kind="logs").set(1 if log_redaction else 0)
    exporter, destination = ((span_exporter, type(span_exporter).__name__)
                             if span_exporter is not None else _env_exporter(trace_file))
    processor = None
    if exporter is not None:
        if redaction is not None:
            exporter = redaction(exporter, counter)
        processor = CountingBatchSpanProcessor(
            CountingSpanExporter(exporter, telemetry.metrics), telemetry.metrics,
            max_queue_size=max_queue_size)
        provider.add_span_processor(processor)
        # our spans go to it as finished spans; other instrumentation's through the SDK
        telemetry.send_spans_to(provider, processor)
    if install_global:
        _install_global(provider)
    return TelemetrySetup(telemetry, registry, provider, destination, processor, log_filter)


def _install_global(provider: TracerProvider) -> None:
    """Make ``provider`` the global one. OpenTelemetry sets it once per process; when another
    is already in place, say so instead of pretending."""
    from opentelemetry import trace

    trace.set_tracer_provider(provider)
    if trace.get_tracer_provider() is not provider:
        _log.warning("servescope: a global tracer provider was already set; other "
                     "instrumentation's spans keep going to it, not through redaction")
