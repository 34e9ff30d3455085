"""servescope.harness: drives the worker from outside.

The load generator (``loadgen``: a client over real sockets that also parses the server's
``/metrics`` text, summarised by ``load_summary``; ``load_process`` runs it in processes of
its own, one per kind of client, so that benchmarks keep client work out of the server's
interpreter), the demo that joins the two (``demo``), and the seed's slow-consumer
experiment replayed on the worker's classes (``experiment``). It may import the worker
(``servescope.reference``); the worker never imports it.
"""
