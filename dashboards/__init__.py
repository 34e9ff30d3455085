"""servescope.dashboards: Grafana dashboards generated from the metric catalog and SLO spec.

The query vocabulary and the engine flavors live in ``servescope.promql`` (the rule generator
reads them too); ``panels`` enforces the conventions,
one module per dashboard builds it (overview, latency, capacity, transport, pipeline),
``render`` writes the JSON that ``servescope generate`` commits, and ``lint`` checks any
dashboard against the conventions and the catalog.
"""
