"""servescope.alerts: Prometheus rules generated from the SLO spec and the metric catalog.

``slo_rules`` records the SLI error ratios and builds the multiwindow, multi-burn-rate alerts;
``diagnostics`` correlates TTFT with queue, KV and transport signals per replica; ``unittests``
derives the promtool tests; ``render`` writes the rule file and its tests. Runbooks:
``alerts/runbooks.md``.
"""
