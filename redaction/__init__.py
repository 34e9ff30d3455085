"""servescope.redaction."""
