"""The engine core: what runs one step after another, in whichever process holds the model.

The scheduler and its request state (``scheduler``, ``sequence``, ``lifecycle``, ``request``),
one step as vLLM reads it: ``schedule()`` writes a plan (``plan``), the model runner
``execute()``s its forwards (``model_runner``), ``update()`` commits the outputs; the KV
bookkeeping (``kv_manager``) over the paged block pool (``block_pool``), the model and its
tokenizer (``model``, ``tokenizer``), speculative drafting (``speculation``), control signals
(``mailbox``), the engine's counters (``stats``) and the per-request stream buffers
(``stream``).

The core imports neither the client nor the transport (tests/architecture.py checks it): it
knows nothing of processes, sockets or HTTP.
"""
