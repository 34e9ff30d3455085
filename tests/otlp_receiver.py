"""A real OTLP receiver for tests: gRPC (TraceService and LogsService) on 127.0.0.1, built on
grpcio and opentelemetry-proto, keeping the raw request bytes and decoding them; with
``http=True`` also OTLP/HTTP (protobuf bodies on ``/v1/traces`` and ``/v1/logs``).

It can misbehave on purpose: ``delay_s`` stalls each export, ``fail`` answers UNAVAILABLE,
``flap_every`` alternates ``n`` failed and ``n`` accepted exports, and :meth:`stop` takes it
down (the port then refuses connections).
"""

from __future__ import annotations

import gzip
import threading
import time
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import grpc
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue
from waiting import poll_until

from servescope.report.launcher import free_port

__all__ = ["OtlpReceiver", "attr_value", "attrs", "free_port"]

_TRACE_SERVICE = "opentelemetry.proto.collector.trace.v1.TraceService"
_LOGS_SERVICE = "opentelemetry.proto.collector.logs.v1.LogsService"


def attr_value(v: AnyValue) -> Any:
    which = v.WhichOneof("value")
    if which == "array_value":
        return tuple(attr_value(x) for x in v.array_value.values)
    if which == "kvlist_value":
        return {kv.key: attr_value(kv.value) for kv in v.kvlist_value.values}
    return getattr(v, which) if which else None


def attrs(kvs: Any) -> dict[str, Any]:
    return {kv.key: attr_value(kv.value) for kv in kvs}


@dataclass
class _Behaviour:
    delay_s: float = 0.0
    fail: bool = False
    flap_every: int = 0
    calls: int = 0


@dataclass
class OtlpReceiver:
    port: int = field(default_factory=free_port)
    trace_bytes: list[bytes] = field(default_factory=list)
    log_bytes: list[bytes] = field(default_factory=list)
    rejected: int = 0
    behaviour: _Behaviour = field(default_factory=_Behaviour)
    http: bool = False

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._server: grpc.Server | None = None
        self._http: ThreadingHTTPServer | None = None

    @property
    def endpoint(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def http_endpoint(self) -> str:
        assert self._http is not None, "start the receiver with http=True"
        return f"http://127.0.0.1:{self._http.server_address[1]}"

    # --- lifecycle ----------------------------------------------------------------------
    def start(self) -> OtlpReceiver:
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        handlers = {
            _TRACE_SERVICE: {"Export": grpc.unary_unary_rpc_method_handler(
                self._export_traces, response_serializer=lambda m: m.SerializeToString())},
            _LOGS_SERVICE: {"Export": grpc.unary_unary_rpc_method_handler(
                self._export_logs, response_serializer=lambda m: m.SerializeToString())},
        }
        for service, methods in handlers.items():
            server.add_generic_rpc_handlers(
                (grpc.method_handlers_generic_handler(service, methods),))
        if server.add_insecure_port(self.endpoint) == 0:
            raise RuntimeError(f"cannot bind {self.endpoint}")
        server.start()
        self._server = server
        if self.http:
            self._http = ThreadingHTTPServer(("127.0.0.1", 0), self._http_handler())
            threading.Thread(target=self._http.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop(grace=0).wait(5)
            self._server = None
        if self._http is not None:
            self._http.shutdown()
            self._http.server_close()
            self._http = None

    def _http_handler(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if self.headers.get("Content-Encoding") == "gzip":
                    raw = gzip.decompress(raw)
                sink = {"/v1/traces": receiver.trace_bytes,
                        "/v1/logs": receiver.log_bytes}.get(self.path)
                if sink is None:
                    self.send_response(404)
                    self.end_headers()
                    return
                with receiver._lock:
                    sink.append(raw)
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        return Handler

    def __enter__(self) -> OtlpReceiver:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- handlers (raw bytes in: no deserializer, so the test sees exactly what arrived) ---
    def _misbehave(self, context: grpc.ServicerContext) -> bool:
        b = self.behaviour
        with self._lock:
            b.calls += 1
            calls = b.calls
        if b.delay_s:
            time.sleep(b.delay_s)
        failing = b.fail or (b.flap_every > 0 and ((calls - 1) // b.flap_every) % 2 == 0)
        if failing:
            with self._lock:
                self.rejected += 1
            context.abort(grpc.StatusCode.UNAVAILABLE, "receiver told to fail")
        return failing

    def _export_traces(self, raw: bytes, context: grpc.ServicerContext
                       ) -> ExportTraceServiceResponse:
        self._misbehave(context)
        with self._lock:
            self.trace_bytes.append(raw)
        return ExportTraceServiceResponse()

    def _export_logs(self, raw: bytes, context: grpc.ServicerContext) -> ExportLogsServiceResponse:
        self._misbehave(context)
        with self._lock:
            self.log_bytes.append(raw)
        return ExportLogsServiceResponse()

    # --- what arrived -------------------------------------------------------------------
    def trace_requests(self) -> list[ExportTraceServiceRequest]:
        with self._lock:
            raws = list(self.trace_bytes)
        return [ExportTraceServiceRequest.FromString(r) for r in raws]

    def log_requests(self) -> list[ExportLogsServiceRequest]:
        with self._lock:
            raws = list(self.log_bytes)
        return [ExportLogsServiceRequest.FromString(r) for r in raws]

    def spans(self) -> Iterator[tuple[dict[str, Any], Any]]:
        """(resource attributes, span) for every span received."""
        for req in self.trace_requests():
            for rs in req.resource_spans:
                resource = attrs(rs.resource.attributes)
                for ss in rs.scope_spans:
                    for span in ss.spans:
                        yield resource, span

    def log_records(self) -> Iterator[tuple[dict[str, Any], Any]]:
        for req in self.log_requests():
            for rl in req.resource_logs:
                resource = attrs(rl.resource.attributes)
                for sl in rl.scope_logs:
                    for record in sl.log_records:
                        yield resource, record

    def span_count(self) -> int:
        return sum(1 for _ in self.spans())

    def all_bytes(self) -> bytes:
        with self._lock:
            return b"".join(self.trace_bytes) + b"".join(self.log_bytes)

    def wait_for(self, predicate: Any, timeout: float = 10.0) -> bool:
        """Until ``predicate()`` holds (True); raises TimeoutError past ``timeout``."""
        poll_until(predicate, what="the receiver's condition", timeout_s=timeout)
        return True

