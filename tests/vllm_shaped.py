"""A Starlette app shaped like vLLM's OpenAI server: the same routes, a StreamingResponse of
``data: ...`` strings ending in ``data: [DONE]``, JSONResponse answers and errors, and
``/metrics`` from prometheus_client's default registry. Run as a script (``PORT``), it loads
the middleware the way ``vllm serve --middleware`` does: ``app.add_middleware(cls)``."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route

SERVED = "org/served-model-7b"


def _error(message: str, status: int) -> JSONResponse:
    return JSONResponse({"object": "error", "message": message, "type": "NotFoundError",
                         "param": None, "code": status}, status_code=status)


async def _chunks(request: Request, body: dict[str, Any], chat: bool) -> AsyncIterator[str]:
    n, created = int(body.get("max_tokens") or 16), int(time.time())
    usage = (body.get("stream_options") or {}).get("include_usage")
    delay = float(body.get("vllm_xargs", {}).get("token_delay_s", 0))
    for i in range(n):
        if delay:
            await asyncio.sleep(delay)
        finish = "length" if i == n - 1 else None
        choice: dict[str, Any] = ({"index": 0, "delta": {"content": f"t{i} "},
                                   "logprobs": None, "finish_reason": finish} if chat else
                                  {"index": 0, "text": f"t{i} ", "logprobs": None,
                                   "finish_reason": finish})
        chunk = {"id": "cmpl-1", "object": "chat.completion.chunk" if chat else
                 "text_completion", "created": created, "model": SERVED, "choices": [choice]}
        yield f"data: {json.dumps(chunk)}\n\n"
    if usage:
        yield "data: " + json.dumps({"id": "cmpl-1", "object": "chat.completion.chunk",
                                     "created": created, "model": SERVED, "choices": [],
                                     "usage": {"prompt_tokens": 4, "total_tokens": n + 4,
                                               "completion_tokens": n}}) + "\n\n"
    yield "data: [DONE]\n\n"


#: The ``traceparent`` each generation request reached the app with.
SEEN_TRACEPARENTS: list[str] = []


async def _generate(request: Request) -> Response:
    SEEN_TRACEPARENTS.append(request.headers.get("traceparent", ""))
    body = await request.json()
    if body.get("model") != SERVED:
        return _error(f"The model `{body.get('model')}` does not exist.", 404)
    chat = request.url.path.endswith("/chat/completions")
    if body.get("stream"):
        return StreamingResponse(_chunks(request, body, chat), media_type="text/event-stream")
    n = int(body.get("max_tokens") or 16)
    return JSONResponse({"id": "cmpl-2", "object": "text_completion", "created": 0,
                         "model": SERVED, "choices": [{"index": 0, "text": "t " * n,
                                                       "finish_reason": "length"}],
                         "usage": {"prompt_tokens": 4, "completion_tokens": n,
                                   "total_tokens": n + 4}})


def create_app() -> Starlette:
    from prometheus_client import make_asgi_app

    return Starlette(routes=[
        Route("/v1/completions", _generate, methods=["POST"]),
        Route("/v1/chat/completions", _generate, methods=["POST"]),
        Route("/health", lambda r: Response(status_code=200), methods=["GET"]),
        Mount("/metrics", make_asgi_app()),
    ])


if __name__ == "__main__":
    import uvicorn

    from servescope.gateway.middleware import ServescopeMiddleware

    app = create_app()
    app.add_middleware(ServescopeMiddleware)  # what vLLM does with --middleware
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
