"""servescope.promql: what the dashboard and rule generators both speak.

``query`` is the PromQL vocabulary (every series a generated query names goes through
:meth:`query.Query.sel`), ``flavor`` maps the catalog onto an engine's native metric names
(servescope, vLLM, SGLang, TGI). Reads the catalog and status enums of
``servescope.instrumentation``; ``dashboards`` and ``alerts`` read it, never each other.
"""
