"""Scrapes that cost the serving path (almost) nothing: a cached render, and a port of its own.

:class:`CachedExposition` renders the registry at most once per ``interval_s`` per exposition
format (OpenMetrics or text): a storm of scrapers waits on one render and shares its bytes, so
sixteen scrapers cost what one does. The render itself runs on the caller's thread; the
serving transport calls it from a worker thread, never on its event loop, and with no cache
age (a scrape there sees values no older than itself; concurrent scrapes share a render).

:class:`MetricsServer` serves ``GET /metrics`` (and ``/healthz``) from its own port, in
threads of its own (the standard library's threading HTTP server), so neither the scrape's
connections nor its render ever touch the serving event loop or its connection limits.
Prometheus then scrapes that port (``servescope serve --metrics-port``).
"""

from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Callable
from typing import Any

from prometheus_client import CollectorRegistry
from prometheus_client.exposition import choose_encoder

from .metrics import render

__all__ = ["DEFAULT_CACHE_S", "CachedExposition", "MetricsServer"]

#: How long one render answers every scrape: well under any scrape interval, so a scrape
#: never sees values older than this.
DEFAULT_CACHE_S = 0.5
#: The most of the time renders may take back to back: after a render of d seconds the next
#: starts no sooner than d * (1 / share - 1) later (scrapes arriving meanwhile share it), so
#: a storm of scrapes that each want fresh values leaves the serving threads 80% of the GIL.
RENDER_SHARE = 0.2


class CachedExposition:
    """``render(registry, accept)``, shared per content type: a scrape reuses a render that
    started at most ``max_age_s`` before the scrape arrived (``interval_s`` by default).
    With ``max_age_s=0`` a scrape never sees values older than its own arrival, and
    scrapes that arrive while a render runs still share the next one (single flight)."""

    def __init__(self, registry: CollectorRegistry, interval_s: float = DEFAULT_CACHE_S,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep,
                 share: float = RENDER_SHARE) -> None:
        if interval_s < 0:
            raise ValueError(f"metrics_cache_s: must be >= 0 seconds, got {interval_s!r}")
        self.registry = registry
        self.interval_s = interval_s
        self.clock = clock
        self.sleep = sleep
        self.share = share
        self._next_render = 0.0  # the earliest start of the next render
        self.renders = 0  # how many times the registry was rendered (tests, benchmarks)
        self._cache: dict[str, tuple[float, bytes, str]] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def __call__(self, accept: str | None, max_age_s: float | None = None) -> tuple[bytes, str]:
        arrived = self.clock()
        max_age = self.interval_s if max_age_s is None else max_age_s
        kind = _kind(accept)
        with self._guard:
            lock = self._locks.setdefault(kind, threading.Lock())
        with lock:  # scrapers of one format queue here and share the render
            found = self._cache.get(kind)
            if found is not None and found[0] >= arrived - max_age:
                return found[1], found[2]
            wait = self._next_render - self.clock()
            if wait > 0:  # bound the renders' share of time (scrapes queued here share it)
                self.sleep(wait)
            started = self.clock()
            data, content_type = render(self.registry, accept)
            self.renders += 1
            ended = self.clock()
            self._next_render = ended + (ended - started) * (1 / self.share - 1)
            self._cache[kind] = (started, data, content_type)
            return data, content_type


def _kind(accept: str | None) -> str:
    """The exposition format ``accept`` gets (the cache key)."""
    try:
        return choose_encoder(accept or "")[1]
    except (ValueError, TypeError):
        return choose_encoder("")[1]


class MetricsServer:
    """``/metrics`` on its own port and threads; ``start()`` binds, ``stop()`` closes."""

    def __init__(self, exposition: CachedExposition, host: str = "127.0.0.1",
                 port: int = 0) -> None:
        self.exposition = exposition
        self._httpd = http.server.ThreadingHTTPServer((host, port), _handler(exposition))
        self._httpd.daemon_threads = True
        address = self._httpd.server_address
        self.host, self.port = str(address[0]), int(address[1])
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        name="servescope-metrics", daemon=True)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> MetricsServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(5)

    def __enter__(self) -> MetricsServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _handler(exposition: CachedExposition) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        timeout = 10  # a scraper that stalls mid-request does not hold a thread for long

        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            if path == "/metrics":
                data, content_type = exposition(self.headers.get("accept"))
                self._reply(200, data, content_type)
            elif path in ("/healthz", "/health"):
                self._reply(200, b'{"status":"ok"}', "application/json")
            else:
                self._reply(404, b'{"error":{"message":"only /metrics is served on this port",'
                                 b'"type":"not_found_error","code":"404"}}', "application/json")

        def _reply(self, status: int, data: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: one log line per scrape would flood the logs."""

    return Handler
