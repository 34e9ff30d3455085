"""The HTTP transport: the OpenAI-compatible server in front of an engine client.

The Starlette app and its composition root (``server``), the connection guard (``limits``),
the streamed and whole responses (``sse``, ``openai_schema``), the TCP delivery probe
(``delivery``, ``connections``) and the server threads (``serving``, ``http2``).

The transport imports the client and the core; neither imports it. The gateway reuses its
torch-free pieces (limits, delivery, connections, the OpenAI shapes).
"""
