"""The engine client: how the API side submits requests to the engine core and reads them back.

In process, :class:`~.engine.Engine` runs the core on a thread of this interpreter; with the
engine process, :class:`~.engine_client.EngineClient` runs it in a child interpreter
(``engine_process``) and speaks typed messages over zmq (``engine_wire``). Both hand the
transport a request handle (``handle``).

The client imports the core, never the transport.
"""
