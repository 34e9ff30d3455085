"""The shipped Alertmanager config's inhibitions, in a real Alertmanager: alerts posted to
its API, then read back suppressed or active."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest
from promharness import alertmanager_binary, start_alertmanager
from waiting import poll_until

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "deploy/alertmanager/alertmanager.yml"

pytestmark = pytest.mark.skipif(alertmanager_binary() is None,
                                reason="needs prometheus-alertmanager")


def _post(url: str, alerts: list[dict[str, str]]) -> None:
    body = json.dumps([{"labels": labels} for labels in alerts]).encode()
    request = urllib.request.Request(f"{url}/api/v2/alerts", data=body, method="POST",
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200


def _states(am: object, expected: int) -> dict[str, str]:
    """alertname{shard} -> active / suppressed, once every posted alert is listed."""
    def read() -> dict[str, str] | None:
        alerts = am.alerts()  # type: ignore[attr-defined]
        if len(alerts) < expected:
            return None
        return {f"{a['labels']['alertname']}{{{a['labels'].get('shard', '')}}}"
                f"{a['labels'].get('job', '')}": a["status"]["state"] for a in alerts}
    return poll_until(read, what="the posted alerts listed")


def test_a_shard_with_no_target_mutes_nothing_of_the_others_or_the_global_tier(
        tmp_path: Path) -> None:
    with start_alertmanager(tmp_path, config_path=CONFIG) as am:
        _post(am.url, [
            # shard 1 has no target of its own (hashmod put both replicas on shard 0)
            {"alertname": "ServescopeTargetsMissing", "severity": "page", "job": "servescope",
             "shard": "1"},
            # shard 0's replicas burn their budget; the global tier sees shard 0 go silent
            {"alertname": "ServescopeTTFTBudgetBurnPage", "severity": "page",
             "job": "servescope", "slo": "ttft", "model": "m", "tier": "global"},
            {"alertname": "ServescopeShardSilent", "severity": "page", "shard": "0",
             "tier": "global"},
            {"alertname": "ServescopeCancelRatioHigh", "severity": "ticket",
             "job": "servescope", "shard": "0"},
            # shard 1's own alert about the job it has no target of: muted
            {"alertname": "ServescopeMetricsAbsent", "severity": "ticket",
             "job": "servescope", "shard": "1"},
        ])
        states = _states(am, 5)
    assert states == {
        "ServescopeTargetsMissing{1}servescope": "active",
        "ServescopeTTFTBudgetBurnPage{}servescope": "active",
        "ServescopeShardSilent{0}": "active",
        "ServescopeCancelRatioHigh{0}servescope": "active",
        "ServescopeMetricsAbsent{1}servescope": "suppressed",
    }


def test_on_one_prometheus_a_job_with_no_target_mutes_that_jobs_alerts_only(
        tmp_path: Path) -> None:
    with start_alertmanager(tmp_path, config_path=CONFIG) as am:
        _post(am.url, [
            {"alertname": "ServescopeTargetsMissing", "severity": "page", "job": "vllm"},
            {"alertname": "ServescopeCancelRatioHigh", "severity": "ticket", "job": "vllm"},
            {"alertname": "ServescopeCancelRatioHigh", "severity": "ticket",
             "job": "servescope"},
        ])
        states = _states(am, 3)
    assert states == {
        "ServescopeTargetsMissing{}vllm": "active",
        "ServescopeCancelRatioHigh{}vllm": "suppressed",
        "ServescopeCancelRatioHigh{}servescope": "active",
    }
