"""Proven live against the reference server itself.

``servescope serve`` (the real decode worker and HTTP transport) runs on a loopback port under
``servescope load`` (slow readers, cancels, deadlines); a real Prometheus scrapes it with the
generated rules (fast timing) and a real Alertmanager receives its alerts; the server exports its
spans over OTLP/gRPC to a real receiver (tests/otlp_receiver.py). Every dashboard query is valid;
those empty by design for this server are listed with the reason and checked to stay empty; the
TTFT heatmap's exemplars are trace ids the OTLP receiver got; a load of only cancelling clients
fires ServescopeCancelRatioHigh at the Alertmanager webhook.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

import promharness as ph
import pytest
from otlp_receiver import OtlpReceiver

from servescope.alerts.model import Options, RuleTiming
from servescope.alerts.render import all_rules, dump, rules_document
from servescope.dashboards import lint
from servescope.instrumentation import catalog as cat
from servescope.instrumentation.slo import SLOSpec
from servescope.promql.recorded import record_name

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(ph.prometheus_binary() is None or ph.alertmanager_binary() is None,
                       reason="needs the Debian prometheus and prometheus-alertmanager packages"),
]

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "dashboards" / "generated" / "servescope"
RATE_INTERVAL = "15s"
#: An engine that exercises every path: speculation (proposed tokens), a short slow-consumer
#: timeout, a small KV pool (waiting, preemptions), a short queue (rejections), and a worker
#: fault every few hundred steps (error finishes).
ENGINE = """\
speculation_ngram: 2
slow_consumer_timeout_s: 0.3
fault_every_n_steps: 300
num_blocks: 48
max_waiting: 8
"""
#: Queries this server produces nothing for, and why: their targets must stay empty.
NOT_PRODUCED = {
    cat.CLIENT_TTFT.name: "client-side metric: recorded in the load generator's process",
    cat.CLIENT_TPOT.name: "client-side metric: recorded in the load generator's process",
    cat.CLIENT_E2E.name: "client-side metric: recorded in the load generator's process",
    cat.REDACTIONS.name: "serve runs without a redaction stage: nothing is redacted",
    cat.LABELS_FOLDED.name: "one model, one priority, one pool: no label reaches its cap",
    cat.HOOK_ERRORS.name: "no hook fails",
}
#: Queries that depend on a race or on timing in a short run: data or none are both fine.
MAY_BE_EMPTY = {
    cat.IGNORED_SIGNALS.name: "a terminal signal losing a race is rare in a short run",
    f'{cat.SPANS_DROPPED.name}': "the file exporter keeps up: spans_dropped stays 0, and its "
                                 "rate is 0 (not empty) once the series exists",
}


def _python(*args: str, otlp: str | None = None, **kwargs) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    env["PYTHONSAFEPATH"] = "1"
    if otlp is not None:  # spans over OTLP/gRPC (plaintext: an http:// endpoint)
        env.update(OTEL_TRACES_EXPORTER="otlp", OTEL_EXPORTER_OTLP_ENDPOINT=f"http://{otlp}",
                   OTEL_EXPORTER_OTLP_PROTOCOL="grpc", OTEL_SERVICE_NAME="servescope-live")
    return subprocess.Popen([sys.executable, "-m", "servescope", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kwargs)


def _load(url: str, mix: str, seconds: float, concurrency: int = 16) -> subprocess.Popen:
    # slow readers hold a client slot for seconds: enough clients keep requests finishing
    return _python("load", "--url", url, "--duration", str(seconds), "--concurrency",
                   str(concurrency),
                   "--max-tokens", "24", "--mix", mix, "--deadline", "0.3")


def _stop(proc: subprocess.Popen) -> str:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
    out = proc.stdout.read().decode(errors="replace") if proc.stdout else ""
    return out[-2000:]


class Live(NamedTuple):
    prom: ph.PrometheusHandle
    webhook: ph.WebhookReceiver
    url: str
    receiver: OtlpReceiver
    since: float  #: when the mixed load began
    mixed: subprocess.Popen  #: the mixed load (a test may stop it early)


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("reference")
    port = ph.free_port()
    url = f"http://127.0.0.1:{port}"
    receiver = OtlpReceiver().start()
    engine = tmp / "engine.yaml"
    engine.write_text(ENGINE)
    server = _python("serve", "--port", str(port), "--config", str(engine),
                     otlp=receiver.endpoint, cwd=tmp)
    rules = tmp / "rules.yaml"
    rules.write_text(dump(rules_document(SLOSpec.default(), Options(timing=RuleTiming.fast()))))
    webhook = ph.WebhookReceiver()
    am = prom = load = None
    try:
        ph.wait_for(lambda: _healthy(url, server), timeout=60, what="servescope serve")
        am = ph.start_alertmanager(tmp, webhook.url)
        prom = ph.start_prometheus(tmp, [f"127.0.0.1:{port}"], rule_files=[rules],
                                   alertmanager_url=am.url)
        prom.wait_for_targets_up(timeout=20)
        load_started = time.time()
        load = _load(url, "fast=0.6,slow=0.1,cancel=0.15,deadline=0.15", 60)
        prom.wait_for(lambda: (prom.value(
            f'sum({cat.FINISHED.sample_name}{{finish_reason="deadline"}})') or 0) >= 3 or None,
            timeout=40, what="deadline finishes scraped")
        # rare events: a series appears with its first event, and a rate sees only a later
        # one, so wait until each has grown after it was first scraped
        for grown, what in ((f'{cat.FINISHED.sample_name}{{finish_reason="slow_consumer"}}',
                             "slow-consumer finishes"),
                            (cat.BP_PAUSED_SECONDS.sample_name, "pause time")):
            prom.wait_for(lambda grown=grown: (prom.value(
                f"sum(increase({grown}[1m]))") or 0) > 0 or None, timeout=60,
                what=f"{what} growing between scrapes")
        # the fleet panels read the rules' recordings: wait until they hold the rarer finishes
        # (a slow consumer is cut off only after its timeout) as well as the raw series do
        for reason in ("deadline", "slow_consumer"):
            prom.wait_for(lambda r=reason: prom.query(
                f'{record_name(cat.FINISHED, "")}{{finish_reason="{r}"}}') or None,
                timeout=60, what=f"{reason} finishes recorded")
        # every 15s rate window holds a dozen scrapes of the load
        prom.wait_for(lambda: (prom.value("min(count_over_time(up[15s]))") or 0) >= 12 or None,
                      timeout=60, what="a dozen scrapes in every 15s window")
        yield Live(prom, webhook, url, receiver, load_started, load)
    finally:
        if load is not None:
            _stop(load)
        for handle in (prom, am):
            if handle is not None:
                handle.stop()
        webhook.stop()
        print(_stop(server))
        receiver.stop()


def _healthy(url: str, server: subprocess.Popen) -> bool:
    import urllib.request

    if server.poll() is not None:
        raise RuntimeError(f"servescope serve exited: {_stop(server)}")
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=2) as resp:
            return bool(resp.status == 200)
    except OSError:
        return False


def substitute(expr: str) -> str:
    return (expr.replace("$__rate_interval", RATE_INTERVAL).replace("$__range", "2m")
            .replace("$job", "servescope").replace("$instance", ".*").replace("$model", ".*"))


def _queries() -> list[tuple[str, str, str]]:
    out = []
    for path in sorted(GENERATED.glob("*.json")):
        board = json.loads(path.read_text())
        for panel, expr in lint.targets(board):
            out.append((path.stem, panel["title"], expr))
    return out


def _not_produced(expr: str) -> list[str]:
    return [reason for name, reason in NOT_PRODUCED.items() if name in expr]


def _may_be_empty(expr: str) -> list[str]:
    return [reason for name, reason in MAY_BE_EMPTY.items() if name in expr]


def _drawn(prom: ph.PrometheusHandle, expr: str, since: float) -> list[dict]:
    """What a panel over the load's time range draws: the instant value, or else any point of
    the range (a rare event, such as a slow client's pause, may have left the latest rate
    window on a loaded machine and still be on the dashboard)."""
    return prom.query(expr) or [s for s in prom.query_range(expr, since, time.time(), step="5s")
                                if s["values"]]


def test_dashboard_queries_against_the_reference_server(live) -> None:
    prom, since = live.prom, live.since
    errors, empty, unexpected, with_data = [], [], [], 0
    for board, title, expr in _queries():
        try:
            result = _drawn(prom, substitute(expr), since)
        except ph.PromQueryError as exc:
            errors.append(f"{board} › {title}: {exc}")
            continue
        where = f"{board} › {title}: {substitute(expr)}"
        if _not_produced(expr):
            if result:
                unexpected.append(where)
        elif result:
            with_data += 1
        elif not _may_be_empty(expr):
            empty.append(where)
    print(f"{with_data} queries returned data; empty by design: {len(_queries()) - with_data}")
    assert errors == []
    assert empty == [], "\n".join(empty)
    assert unexpected == [], "\n".join(unexpected)
    assert with_data > 60


def test_every_rule_is_healthy(live) -> None:
    prom = live.prom

    def evaluated():
        rules = [r for g in prom.rule_groups() for r in g["rules"]]
        return rules if all(r["health"] == "ok" for r in rules) else None

    assert len(prom.wait_for(evaluated, timeout=20, what="every rule healthy")) == \
        len(all_rules(SLOSpec.default(), Options(timing=RuleTiming.fast())))
    assert prom.query('servescope:slo_errors:ratio_rate5m{slo="ttft"}')


def test_heatmap_exemplars_are_traces_the_otlp_receiver_got(live) -> None:
    prom, receiver = live.prom, live.receiver
    heatmap = next(p for path in GENERATED.glob("latency.json")
                   for p in lint.panels(json.loads(path.read_text()))
                   if p["title"] == "TTFT heatmap, per replica")
    expr = substitute(heatmap["targets"][0]["expr"])
    groups = prom.wait_for(lambda: prom.exemplars(expr, time.time() - 120, time.time()) or None,
                           timeout=15, what="TTFT exemplars")
    trace_ids = {e["labels"]["trace_id"] for g in groups for e in g["exemplars"]}

    def exported() -> set[str] | None:
        ids = {span.trace_id.hex() for _, span in receiver.spans()}
        return ids if trace_ids <= ids else None

    assert trace_ids
    ph.wait_for(exported, timeout=15, what="exemplar trace ids in the exported spans")


def test_cancelling_clients_fire_the_cancel_alert(live) -> None:
    """Only cancelling clients, too few to be rejected (the queue holds 8): every finish is a
    cancel. The mixed load stops first: its rejected retries (a closed loop against a short
    queue) would otherwise keep the cancel share near its 15% and the alert to chance."""
    prom, webhook = live.prom, live.webhook
    alert = "ServescopeCancelRatioHigh"
    _stop(live.mixed)
    load = _load(live.url, "cancel=1", 60, concurrency=4)

    def firing_on_cancels() -> list[dict] | None:
        # Prometheus's own value: the alert holds because of this load, not the mixed one
        return [a for a in prom.alerts() if a["labels"]["alertname"] == alert
                and float(a["value"]) > 0.5] or None

    try:
        prom.wait_for(firing_on_cancels, timeout=60, what=f"{alert} above 50% in Prometheus")
        notified = prom.wait_for(
            lambda: [a for a in webhook.alerts() if a["labels"]["alertname"] == alert] or None,
            timeout=20, what=f"{alert} at the webhook")
    except TimeoutError as exc:
        rates = prom.query(f"sum by (finish_reason) (rate({cat.FINISHED.sample_name}[30s]))")
        shares = {r["metric"].get("finish_reason"): r["value"][1] for r in rates}
        raise AssertionError(f"{exc}; finishes/s by reason: {shares}; load: {_stop(load)}") from exc
    finally:
        _stop(load)
    labels = notified[0]["labels"]
    assert labels["finish_reason"] == "client_cancel" and labels["severity"] == "ticket"
    assert "cancelled by clients" in notified[0]["annotations"]["description"]
