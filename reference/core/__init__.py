"""The engine core: what runs one step after another, in whichever process holds the model.

The scheduler and its request state (``scheduler``, ``sequence``, ``lifecycle``, ``request``),
the paged KV block pool (``block_pool``), the model and its tokenizer (``model``,
``tokenizer``), speculative drafting (``speculation``), control signals (``mailbox``), the
engine's counters (``stats``) and the per-request stream buffers (``stream``).

The core imports neither the client nor the transport (tests/architecture.py checks it): it
knows nothing of processes, sockets or HTTP.
"""
