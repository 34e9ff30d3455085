"""servescope.collector: the OpenTelemetry Collector tier (agent and gateway), generated from the
redaction policy and the SLO spec into the YAML beside this package (``servescope generate``).

Reads ``servescope.redaction`` (the policy) and ``servescope.instrumentation`` (the SLO spec);
nothing else of servescope imports it but the ``generate`` command.
"""
