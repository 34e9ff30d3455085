"""``servescope gateway``: the hooks in front of any OpenAI-compatible engine (a reverse proxy)."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from typing import Any

from servescope.commands import config_mapping, port_number

FLAVOR_NAMES = ("vllm", "sglang", "tgi", "llamacpp", "openai", "servescope")


def register(sub: Any) -> None:
    p = sub.add_parser("gateway", help="measure any OpenAI-compatible engine from the client's "
                                       "side: a streaming reverse proxy with the hooks")
    p.add_argument("--upstream", required=True,
                   help="the engine's base URL, e.g. http://127.0.0.1:8000")
    p.add_argument("--flavor", default="openai", choices=FLAVOR_NAMES,
                   help="which engine it is (its health path; the pool label)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=port_number, default=8080)
    p.add_argument("--model-name", default=None,
                   help="the model label of requests naming no model the upstream lists "
                        "(default: 'default')")
    p.add_argument("--config", default=None,
                   help="gateway config, YAML or JSON (fields of GatewayConfig; http: {...})")
    p.add_argument("--deadline-s", type=float, default=None,
                   help="a deadline for every request that carries none (seconds)")
    p.add_argument("--slow-consumer-timeout-s", type=float, default=None,
                   help="end a stream whose client read nothing for this long (default 5)")
    p.add_argument("--upstream-idle-timeout-s", type=float, default=None,
                   help="end a request whose upstream sent nothing for this long, before its "
                        "answer's head or between two reads (default 300: a long answer "
                        "that is not streamed sends nothing until it is done)")
    p.add_argument("--max-event-bytes", type=int, default=None,
                   help="the longest upstream SSE event (or whole answer) the relay holds; a "
                        "longer one ends the stream upstream_malformed (default 1048576)")
    p.add_argument("--send-buffer-bytes", type=int, default=4096,
                   help="per-connection bytes buffered before the relay waits (0: OS default)")
    p.add_argument("--trace-file", default="servescope-gateway-traces.jsonl",
                   help="where spans go when no OTEL_* exporter is configured")
    p.add_argument("--no-redaction", action="store_true",
                   help="export spans unredacted (only for a trusted, local collector)")
    p.set_defaults(handler=_gateway)


def _config(args: argparse.Namespace) -> Any:
    from servescope.gateway.config import GatewayConfig

    data: dict[str, Any] = {}
    if args.config is not None:
        data = config_mapping(args.config, "GatewayConfig fields")
    data.update(upstream=args.upstream, flavor=args.flavor)
    for field, value in (("model_name", args.model_name),
                         ("default_deadline_s", args.deadline_s),
                         ("slow_consumer_timeout_s", args.slow_consumer_timeout_s),
                         ("upstream_idle_timeout_s", args.upstream_idle_timeout_s),
                         ("max_event_bytes", args.max_event_bytes)):
        if value is not None:
            data[field] = value
    return GatewayConfig.from_dict(data)


def _gateway(args: argparse.Namespace) -> int:
    from servescope.gateway.app import create_gateway_app
    from servescope.gateway.serving import CONNECTIONS, SERVICE_NAME, serve_gateway
    from servescope.instrumentation.endpoints import shown_url
    from servescope.instrumentation.setup import setup_telemetry
    from servescope.reference.heap import freeze_start_up_heap

    try:
        config = _config(args)
    except (OSError, ValueError) as exc:  # the file's syntax errors too
        print(f"servescope gateway: invalid configuration: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    for name in ("httpx", "httpcore"):  # one line per upstream request otherwise
        logging.getLogger(name).setLevel(logging.WARNING)
    service = os.environ.get("OTEL_SERVICE_NAME") or SERVICE_NAME
    setup = setup_telemetry(service_name=service, model=config.model_name, pool=config.flavor,
                            trace_file=args.trace_file,
                            redaction=False if args.no_redaction else None,
                            engine_levels=False)
    app = create_gateway_app(config, setup.telemetry, connections=CONNECTIONS)
    print(f"servescope gateway: http://{args.host}:{args.port} -> {shown_url(config.upstream)} "
          f"({config.flavor}); metrics at /metrics, spans to {setup.traces_destination}",
          file=sys.stderr)
    previous = signal.signal(signal.SIGTERM, _interrupt)
    freeze_start_up_heap()
    try:
        serve_gateway(app, args.host, args.port,
                      send_buffer_bytes=args.send_buffer_bytes or None)
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        setup.shutdown()
    return 0


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
