"""The shared harness really starts Prometheus and Alertmanager and wires them together."""

from __future__ import annotations

import threading
from http.server import ThreadingHTTPServer

import promharness as ph
import pytest
from prometheus_client import CollectorRegistry, Counter
from prometheus_client.exposition import MetricsHandler

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(ph.prometheus_binary() is None or ph.alertmanager_binary() is None,
                       reason="needs the Debian prometheus and prometheus-alertmanager packages"),
]


def test_free_port_is_bindable() -> None:
    import socket

    port = ph.free_port()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))


def test_scrape_query_rules_and_webhook(tmp_path) -> None:
    registry = CollectorRegistry()
    hits = Counter("harness_hits", "test counter", registry=registry)
    hits.inc(3)
    server = ThreadingHTTPServer(("127.0.0.1", 0), MetricsHandler.factory(registry))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    rules = tmp_path / "rules.yml"
    rules.write_text(
        "groups:\n- name: harness\n  rules:\n"
        "  - record: harness:hits:sum\n    expr: sum(harness_hits_total)\n"
        "  - alert: HarnessAlwaysFiring\n    expr: harness:hits:sum > 0\n"
        "    labels: {severity: ticket}\n")
    webhook = ph.WebhookReceiver()
    am = ph.start_alertmanager(tmp_path, webhook.url)
    prom = ph.start_prometheus(tmp_path, [f"127.0.0.1:{server.server_address[1]}"],
                               rule_files=[rules], alertmanager_url=am.url)
    try:
        prom.wait_for_targets_up(timeout=20)
        assert prom.wait_for(lambda: prom.value("harness:hits:sum"), timeout=20) == 3.0
        with pytest.raises(ph.PromQueryError):
            prom.query("sum(")
        prom.wait_for(lambda: "HarnessAlwaysFiring" in webhook.alertnames() or None,
                      timeout=30, what="webhook notification")
        assert all(r["health"] == "ok" for g in prom.rule_groups() for r in g["rules"])
    finally:
        prom.stop()
        am.stop()
        webhook.stop()
        server.shutdown()
    assert prom.process.proc.poll() is not None
