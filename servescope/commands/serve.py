"""``servescope serve``: the reference server (OpenAI-compatible streaming HTTP)."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
from typing import Any

from servescope.commands import config_mapping, port_number


def register(sub: Any) -> None:
    p = sub.add_parser("serve", help="run the reference decode worker behind an "
                                     "OpenAI-compatible HTTP API")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=port_number, default=8000)
    p.add_argument("--config", default=None,
                   help="engine config, YAML or JSON (fields of EngineConfig; model: {...})")
    p.add_argument("--slo", default=None, help="SLO spec YAML (default: the shipped spec)")
    p.add_argument("--model-name", default="servescope-ref")
    p.add_argument("--http2", action="store_true",
                   help="serve HTTP/2 (cleartext, prior knowledge) and HTTP/1.1 on one port "
                        "through hypercorn; delivered then falls back to written")
    p.add_argument("--http2-without-guarantees", action="store_true",
                   help="start --http2 although it lacks guarantees of the default transport "
                        "(see HTTP2_GAPS); without this switch --http2 refuses to start")
    p.add_argument("--send-buffer-bytes", type=int, default=4096,
                   help="per-connection bytes the server buffers before the writer waits "
                        "(0: OS and uvicorn defaults)")
    p.add_argument("--metrics-port", type=port_number, default=None,
                   help="serve /metrics from this port too, in threads of its own, from a "
                        "render cached for metrics_cache_s (config; 0.5 s by default), so "
                        "scrapes never touch the serving event loop (default: the config's "
                        "metrics_port; /metrics stays on the serving port either way)")
    p.add_argument("--trace-file", default="servescope-traces.jsonl",
                   help="where spans go when no OTEL_* exporter is configured")
    p.add_argument("--redaction-policy", default=None,
                   help="redaction policy YAML (default: the shipped policy)")
    p.add_argument("--no-redaction", action="store_true",
                   help="export spans unredacted (only for a trusted, local collector; "
                        "logged, and servescope_redaction_enabled{kind=\"spans\"} shows 0)")
    p.add_argument("--no-log-redaction", action="store_true",
                   help="write log records unredacted (logged, and "
                        "servescope_redaction_enabled{kind=\"logs\"} shows 0)")
    p.add_argument("--engine-process", action="store_true",
                   help="run the engine core (scheduler, model, KV pool) in its own process, "
                        "watched by a heartbeat lease and restarted when it dies or hangs")
    p.add_argument("--engine-lease-s", type=float, default=10.0,
                   help="with --engine-process: seconds of engine silence before it is "
                        "declared hung, killed and restarted")
    p.set_defaults(handler=_serve)


#: Why ``--http2`` refuses to start unless ``--http2-without-guarantees`` is given: what the
#: default transport guarantees and hypercorn's path does not (yet).
HTTP2_GAPS = (
    "malformed framing (unknown or repeated Transfer-Encoding) gets hypercorn's empty 501, "
    "not a counted JSON 4xx",
    "protocol errors and refused connections are answered without JSON and are not counted "
    "in servescope_requests_rejected_total",
    "slowloris heads are closed silently, with no 408 and no count",
    "no connection cap with a /healthz reserve, and no accepted/closed connection ledger",
)


def _engine_config(path: str | None) -> Any:
    from servescope.reference.config import EngineConfig

    if path is None:
        return EngineConfig()
    return EngineConfig.from_dict(config_mapping(path, "EngineConfig fields"))


def _serve(args: argparse.Namespace) -> int:
    from servescope.instrumentation.scrape import MetricsServer
    from servescope.instrumentation.setup import setup_telemetry
    from servescope.instrumentation.slo import SLOError, load_slo
    from servescope.redaction import PolicyError, RedactionStage, load_policy
    from servescope.reference.client.engine import Engine
    from servescope.reference.client.engine_client import EngineClient
    from servescope.reference.heap import freeze_start_up_heap
    from servescope.reference.transport.server import create_app, declared_labels, serve

    if args.http2 and not args.http2_without_guarantees:
        gaps = "".join(f"\n  - {gap}" for gap in HTTP2_GAPS)
        print(f"servescope serve: --http2 refuses to start: hypercorn's transport lacks these "
              f"guarantees of the default one:{gaps}\nServe HTTP/1.1 (the default), or pass "
              f"--http2-without-guarantees to accept them.", file=sys.stderr)
        return 2
    try:
        config = _engine_config(args.config)
        slo = load_slo(args.slo) if args.slo else None
        redaction = False if args.no_redaction else RedactionStage(
            load_policy(args.redaction_policy))
    except (OSError, ValueError, SLOError, PolicyError) as exc:  # the file's syntax errors too
        print(f"servescope serve: invalid configuration: {exc}", file=sys.stderr)
        return 2
    # One stderr handler on the root logger before telemetry is set up, so the log redaction
    # filter lands on it and every record (uvicorn's, the SDK's, ours) passes through it.
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    setup = setup_telemetry(model=args.model_name, slo=slo, trace_file=args.trace_file,
                            redaction=redaction, log_redaction=not args.no_log_redaction,
                            declared_labels=declared_labels(config, args.model_name))
    engine: Engine | EngineClient
    if args.engine_process:
        try:
            engine = EngineClient(config, setup.telemetry, lease_s=args.engine_lease_s)
        except ValueError as exc:
            print(f"servescope serve: invalid configuration: {exc}", file=sys.stderr)
            return 2
    else:
        engine = Engine(config, setup.telemetry)
    engine.start()
    print(f"servescope: serving {args.model_name} on http://{args.host}:{args.port} "
          f"(device {engine.device}); metrics at /metrics, spans to "
          f"{setup.traces_destination}", file=sys.stderr)
    # uvicorn shuts down gracefully on SIGINT/SIGTERM, then re-raises the signal: make
    # SIGTERM (docker stop) take the same path as Ctrl-C so the spans are flushed below.
    previous = signal.signal(signal.SIGTERM, _interrupt)
    app = create_app(engine, setup.telemetry, http2=args.http2)
    freeze_start_up_heap()
    metrics_port = args.metrics_port if args.metrics_port is not None else config.metrics_port
    metrics = None
    try:
        if metrics_port is not None:
            metrics = MetricsServer(app.state.exposition, args.host, metrics_port).start()
            print(f"servescope: /metrics also on {metrics.url}", file=sys.stderr)
        if args.http2:
            from servescope.reference.transport.http2 import serve_http2

            logging.getLogger("servescope.serve").warning(
                "--http2-without-guarantees: serving HTTP/2 without: %s", "; ".join(HTTP2_GAPS))
            serve_http2(app, args.host, args.port)
        else:
            serve(app, args.host, args.port, send_buffer_bytes=args.send_buffer_bytes or None)
    except KeyboardInterrupt:
        pass  # a requested stop
    finally:
        signal.signal(signal.SIGTERM, previous)
        if metrics is not None:
            metrics.stop()
        engine.shutdown()
        setup.shutdown()
    return 0


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
