"""The floor of a proxy on the gateway's ASGI stack: uvicorn (uvloop, httptools) serving an
ASGI callable that forwards each request through the gateway's own upstream client, and
nothing else.

The callable reads the body, writes the request upstream unchanged on a pooled keep-alive
connection (``servescope.gateway.upstream.Upstream``, the gateway's), sends the upstream's
head and then each read of the body as one ``http.response.body`` message. No JSON, no
recorder, no span, no redaction, no relay bookkeeping, no slow-consumer policy, no limits on
hostile clients. What this adds to TTFT and per chunk, ``servescope gateway`` cannot go
below on this stack; what the gateway adds beyond it is servescope's own code.
``benchmarks/gateway.py --floor`` runs it as the path **asgi**, beside **bare** (the same
for a byte relay with no HTTP and no ASGI: ``bare_relay.py``).

Run: ``python -P benchmarks/asgi_relay.py --port N --upstream-port M``.
"""

from __future__ import annotations

import argparse
from typing import Any

import uvicorn

from servescope.gateway.config import GatewayConfig
from servescope.gateway.serving import event_loop
from servescope.gateway.upstream import Upstream, forward_headers, response_headers

Message = dict[str, Any]


def relay_app(upstream: Upstream) -> Any:
    """The ASGI callable: every HTTP request forwarded to ``upstream`` as it came."""

    async def app(scope: Message, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            for step in ("startup", "shutdown"):
                await receive()
                await send({"type": f"lifespan.{step}.complete"})
            return
        body = b""
        more = True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        target = scope["raw_path"] + (b"?" + scope["query_string"] if scope["query_string"]
                                      else b"")
        response = await upstream.open(scope["method"], target,
                                       forward_headers(scope["headers"], None), body)
        try:
            await send({"type": "http.response.start", "status": response.status_code,
                        "headers": response_headers(response.headers)})
            async for data in response.aiter_raw():
                await send({"type": "http.response.body", "body": data, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            await response.aclose()

    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--upstream-port", type=int, required=True)
    args = parser.parse_args()
    upstream = Upstream(GatewayConfig(upstream=f"http://127.0.0.1:{args.upstream_port}"))
    uvicorn.run(relay_app(upstream), host="127.0.0.1", port=args.port, loop=event_loop(),
                http="httptools", lifespan="on", log_level="warning", access_log=False,
                backlog=1024)


if __name__ == "__main__":
    main()
