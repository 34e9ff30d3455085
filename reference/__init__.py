"""servescope.reference."""
