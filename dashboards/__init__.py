"""servescope.dashboards: Grafana dashboards generated from the metric catalog and SLO spec.

``promql`` is the query vocabulary (also used by the rule generator), ``flavor`` maps the
catalog onto another exporter's metric names (vLLM), ``panels`` enforces the conventions,
one module per dashboard builds it (overview, latency, capacity, transport, pipeline),
``render`` writes the JSON that ``servescope generate`` commits, and ``lint`` checks any
dashboard against the conventions and the catalog.
"""
