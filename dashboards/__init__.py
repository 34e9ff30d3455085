"""servescope.dashboards."""
