"""Instrument your own streaming server with servescope in a handful of lines.

A minimal Starlette app that streams a fake completion over SSE (it is not the reference
worker). The lines marked ``# servescope`` are all it takes: one Telemetry per process, one
recorder per request, finish() exactly once, and /metrics for Prometheus.

Run:  python examples/instrument_your_server.py --port 8001
      curl -N localhost:8001/generate?n=20 ; curl localhost:8001/metrics
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
from collections.abc import AsyncIterator

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from servescope.instrumentation import FinishReason, setup_telemetry  # servescope
from servescope.instrumentation.metrics import render  # servescope

# Spans leave redacted and log handlers are filtered by default (redaction=False opts out).
# With no OTEL_* exporter set, spans go nowhere unless trace_file names a (rotated) local file;
# install_global routes other instrumentation's spans through the same redaction.
telemetry = setup_telemetry(service_name="my-server", model="echo",  # servescope
                            trace_file="servescope-traces.jsonl", install_global=True).telemetry
_ids = itertools.count()


async def generate(request: Request) -> StreamingResponse:
    n = int(request.query_params.get("n", "16"))
    rec = telemetry.request(f"req-{next(_ids)}", carrier=dict(request.headers))  # servescope
    rec.admitted()  # servescope
    rec.scheduled()  # servescope

    async def tokens() -> AsyncIterator[bytes]:
        reason = FinishReason.CLIENT_CANCEL  # if the client goes away mid-stream
        try:
            for i in range(n):
                await asyncio.sleep(0.01)  # "decode"
                if i == 0:
                    rec.prefill_done()  # servescope
                rec.tokens_committed(1)  # servescope: a batched server reports per step
                yield f"data: token-{i}\n\n".encode()
                rec.delivered(1)  # servescope
            reason = FinishReason.LENGTH
        finally:
            rec.finish(reason)  # servescope: exactly one terminal state

    return StreamingResponse(tokens(), media_type="text/event-stream")


async def metrics(request: Request) -> Response:
    body, content_type = render(telemetry.registry, request.headers.get("accept"))  # servescope
    return Response(body, media_type=content_type)


app = Starlette(routes=[Route("/generate", generate), Route("/metrics", metrics)])

if __name__ == "__main__":
    import uvicorn

    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=8001)
    # log_config=None: uvicorn keeps the (redacting) handlers in place instead of its own
    uvicorn.run(app, host="127.0.0.1", port=parser.parse_args().port, log_level="warning",
                log_config=None)
