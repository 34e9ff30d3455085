"""The grafana-foundation-sdk modules the generator uses, imported once.

The SDK warns at import time that the v1 dashboard builders are superseded by v2; Grafana 12
still loads v1 JSON from file provisioning (v2 needs the new API), so the warning is expected and
silenced here rather than in every test run.
"""

from __future__ import annotations

import warnings

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from grafana_foundation_sdk.builders import common as cb
    from grafana_foundation_sdk.builders import dashboard as db
    from grafana_foundation_sdk.builders import heatmap, stat, timeseries
    from grafana_foundation_sdk.builders import prometheus as pb
    from grafana_foundation_sdk.cog.encoder import JSONEncoder
    from grafana_foundation_sdk.models import common as cm
    from grafana_foundation_sdk.models import dashboard as dm
    from grafana_foundation_sdk.models import prometheus as pm

__all__ = ["JSONEncoder", "cb", "cm", "db", "dm", "heatmap", "pb", "pm", "stat", "timeseries"]
