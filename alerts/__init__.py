"""servescope.alerts."""
