"""Proven live: a real Prometheus scrapes two replicas fed by the real recorder.

Two synthetic replicas (one prometheus_client endpoint each on 127.0.0.1, OpenMetrics with
exemplars) are driven by the real ``servescope.instrumentation`` hooks through a scripted mix:
stop, length, client cancels (with a late deadline signal that loses the race), deadlines, slow
consumers with backpressure pauses, rejections, worker errors, speculative drafts, label values
past their cap, PII in request ids (redacted spans), and a flaky span exporter on one replica.
A real Prometheus loads the generated rules (fast timing) and sends alerts to a real
Alertmanager whose webhook lands in this test. Then:

* every dashboard query, variables substituted, is valid and returns data (the panels empty by
  design are listed below with the reason);
* every rule is healthy in /api/v1/rules, and the SLI records exist (the ``le`` matcher matches
  prometheus_client's exposition);
* the TTFT heatmap's exemplars are trace ids of spans the exporter received;
* turning every request on one replica into a slow consumer fires
  ServescopeSlowConsumersWastingCompute for that replica, and it reaches the webhook.

Beside them, one exporter per engine (vLLM, SGLang, TGI) built from the engine's real-series
fixture (tests/fixtures/engines, written from each engine's source, never from the flavors) is
scraped with the scrape job its flavor ships, and the flavor's rules are loaded: every dashboard
query of each flavor is valid and returns data, and every rule is healthy. SGLang's exporter
negotiates OpenMetrics like prometheus_client's make_asgi_app: scraped once more without the
flavor's relabelling, its series land under escaped names, which is why the job needs it.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path

import engines
import promharness as ph
import pytest
from opentelemetry.sdk.trace.export import SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client.exposition import MetricsHandler

from servescope.alerts import diagnostics
from servescope.alerts.model import Options, RuleTiming
from servescope.alerts.render import all_rules, dump, rules_document
from servescope.dashboards import lint
from servescope.instrumentation import StepReport, setup_telemetry
from servescope.instrumentation import catalog as cat
from servescope.instrumentation.slo import SLOSpec
from servescope.instrumentation.status import FinishReason
from servescope.promql.flavor import FLAVORS, SGLANG
from servescope.redaction import RedactionStage

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(ph.prometheus_binary() is None or ph.alertmanager_binary() is None,
                       reason="needs the Debian prometheus and prometheus-alertmanager packages"),
]

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "dashboards" / "generated" / "servescope"
RATE_INTERVAL = "10s"

#: Panels whose queries are empty by design in this scenario, and why.
EMPTY_BY_DESIGN = {
    "Hook errors": "no hook fails: the series appears with the first swallowed error",
    "Engine restarts": "the synthetic replicas run no engine process (tests/reference/"
                       "test_engine_process.py scrapes these series from a real one)",
    "Engine heartbeat and last step": "the synthetic replicas run no engine process",
}


class FlakyExporter(InMemorySpanExporter):
    """Fails every third export (replica B): spans dropped with reason export_failed."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def export(self, spans):  # type: ignore[no-untyped-def]
        self.calls += 1
        if self.calls % 3 == 0:
            return SpanExportResult.FAILURE
        return super().export(spans)


# (kind, reason, committed, delivered, ttft, tpot, paused)
NORMAL = [("stop", FinishReason.STOP, 40, 40, 0.12, 0.02, False)] * 3 + [
    ("length", FinishReason.LENGTH, 40, 40, 0.3, 0.03, False),
    ("cancel", FinishReason.CLIENT_CANCEL, 10, 5, 0.4, 0.05, False),
    ("deadline", FinishReason.DEADLINE, 10, 9, 2.6, 0.2, False),
    ("error", FinishReason.ERROR, 4, 3, 0.8, 0.05, False),
]
#: A slow consumer now and then in the normal mix (one request in 140: under the alert's 1%).
SLOW = ("slow", FinishReason.SLOW_CONSUMER, 10, 7, 0.2, 0.04, True)
SLOW_EVERY = 20  # cycles
FAULT = [("slow", FinishReason.SLOW_CONSUMER, 40, 4, 0.2, 0.04, True)] * 6
SLOW_FIRST_TOKEN = [("stop", FinishReason.STOP, 10, 10, 2.6, 0.02, False)] * 4


class Replica:
    """One synthetic server: its own registry and tracer, served on a loopback port."""

    def __init__(self, name: str, exporter: InMemorySpanExporter) -> None:
        self.name = name
        self.exporter = exporter
        self.setup = setup_telemetry(service_name=name, model="m", span_exporter=exporter,
                                     redaction=RedactionStage(hash_key=b"live-test"))
        self.tel = self.setup.telemetry
        self.server = ThreadingHTTPServer(("127.0.0.1", 0),
                                          MetricsHandler.factory(self.setup.registry))
        self.target = f"127.0.0.1:{self.server.server_address[1]}"
        self.mix = NORMAL
        self.prefix_hits = 6  # of 10 prefix lookups per cycle
        self.quiet = False  # True: no queue and no preemptions (one cause at a time)
        self.count = 0
        self.cycles = 0
        self.stop = threading.Event()
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.thread = threading.Thread(target=self._drive, daemon=True)

    def _request(self, spec: tuple, t0: float) -> None:
        kind, reason, committed, delivered, ttft, tpot, paused = spec
        self.count += 1
        # ten priority classes: past the label's cap of 8, the rest fold into "other"
        priority = f"class-{self.count % 10}"
        rid = f"{kind}-{self.count}" + ("-user:carol@example.net" if self.count % 5 == 0 else "")
        rec = self.tel.request(rid, priority=priority, prompt_tokens=32, arrival=t0)
        queue, prefill = 0.02, ttft * 0.6
        rec.admitted()
        rec.scheduled(now=t0 + queue)
        rec.prefill_done(now=t0 + queue + prefill)
        for k in range(committed):
            now = t0 + ttft + k * tpot
            phase = "prefill" if k == 0 else "decode"  # forward time and tokens per step
            self.tel.step(StepReport(advanced=[(rec, 1, 2 if k % 4 == 0 else 0)], now=now,
                                     forward_seconds={phase: prefill if k == 0 else tpot},
                                     step_tokens={phase: 32 if k == 0 else 1}))
            if k < delivered:
                rec.delivered(1, now=now + 0.01)
            if paused and k == delivered:
                rec.paused(now=now)
        end = t0 + ttft + committed * tpot + 0.05
        rec.stream_closed(peak_buffered=committed - delivered + 1, capacity=8)
        rec.finish(reason, now=end)
        if reason is FinishReason.CLIENT_CANCEL:
            rec.finish(FinishReason.DEADLINE, now=end + 0.01)  # loses the race: counted no-op
        client = self.tel.metrics
        client.child(cat.CLIENT_TTFT, model="m").observe(ttft + 0.03)
        client.child(cat.CLIENT_TPOT, model="m").observe(tpot * 1.1)
        client.child(cat.CLIENT_E2E, model="m", finish_reason=reason.value).observe(end - t0)

    def _cycle(self) -> None:
        t0 = time.monotonic()
        self.cycles += 1
        for spec in self.mix:
            self._request(spec, t0)
        if self.mix is NORMAL and self.cycles % SLOW_EVERY == 0:
            self._request(SLOW, t0)
        self.count += 1
        if not self.quiet:  # (a refusal for a full queue is the admission cause's signal)
            self.tel.request(f"rejected-{self.count}", arrival=t0).rejected("queue_full", now=t0)
        self.tel.step(StepReport(now=t0, kv_blocks_used=40 + self.count % 20,
                                 kv_blocks_total=100, running=4,
                                 waiting=0 if self.quiet else self.count % 3,
                                 paused=1, buffered_tokens=12, prefix_queries=10,
                                 prefix_hits=self.prefix_hits,
                                 preemptions=int(not self.quiet and self.count % 7 == 0)))

    def _drive(self) -> None:
        while not self.stop.is_set():
            self._cycle()
            self.stop.wait(0.25)

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=5)
        self.server.shutdown()
        self.setup.shutdown(timeout_s=2)


def substitute(expr: str, job: str = "servescope") -> str:
    return (expr.replace("$__rate_interval", RATE_INTERVAL).replace("$__range", "1m")
            .replace("$job", job).replace("$instance", ".*").replace("$model", ".*")
            .replace("$gateway", "servescope"))  # the replicas export what a gateway does


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("live")
    options = Options(timing=RuleTiming.fast())
    rules = tmp / "rules.yaml"
    rules.write_text(dump(rules_document(SLOSpec.default(), options)))
    rule_files = [rules]
    for engine in engines.ENGINES:
        path = tmp / f"{engine}-rules.yaml"
        path.write_text(dump(rules_document(
            SLOSpec.default(), Options(flavor=FLAVORS[engine], timing=RuleTiming.fast()))))
        rule_files.append(path)
    replicas = [Replica("replica-a", InMemorySpanExporter()), Replica("replica-b", FlakyExporter())]
    for replica in replicas:
        replica.thread.start()
    exporters = {e: engines.EngineExporter(e) for e in engines.ENGINES}
    jobs = [FLAVORS[e].scrape_job([x.target]) for e, x in exporters.items()]
    # the same SGLang exporter without the flavor's relabelling: what a plain job stores
    jobs.append({"job_name": "sglang-plain",
                 "static_configs": [{"targets": [exporters["sglang"].target]}]})
    webhook = ph.WebhookReceiver()
    am = ph.start_alertmanager(tmp, webhook.url)
    prom = ph.start_prometheus(tmp, [r.target for r in replicas],
                               rule_files=rule_files, alertmanager_url=am.url,
                               scrape_configs=jobs)
    try:
        prom.wait_for_targets_up(timeout=20)
        # enough scrapes for every 10s rate window to hold several samples
        prom.wait_for(lambda: (prom.value('count(count_over_time(up{job="servescope"}[10s]) '
                                          '>= 8)') == 2.0) or None,
                      timeout=30, what="8 scrapes of each replica")
        yield prom, am, webhook, replicas
    finally:
        for replica in replicas:
            replica.close()
        for exporter in exporters.values():
            exporter.close()
        prom.stop()
        am.stop()
        webhook.stop()


def _dashboards() -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in sorted(GENERATED.glob("*.json"))}


def test_every_dashboard_query_returns_data(stack) -> None:
    prom = stack[0]
    empty, errors, checked = [], [], 0
    for name, board in _dashboards().items():
        for panel, expr in lint.targets(board):
            checked += 1
            try:
                result = prom.query(substitute(expr))
            except ph.PromQueryError as exc:
                errors.append(f"{name} › {panel['title']}: {exc}")
                continue
            if not result and panel["title"] not in EMPTY_BY_DESIGN:
                empty.append(f"{name} › {panel['title']}: {expr}")
    assert errors == []
    assert empty == [], "\n".join(empty)
    assert checked > 60
    for board in _dashboards().values():
        for panel, expr in lint.targets(board):
            if panel["title"] in EMPTY_BY_DESIGN:
                assert prom.query(substitute(expr)) == [], f"{panel['title']} now has data"


def test_dashboard_variables_list_values(stack) -> None:
    prom = stack[0]
    board = _dashboards()["overview"]
    for variable in board["templating"]["list"]:
        if variable["type"] != "query":
            continue
        inner = variable["query"].removeprefix("label_values(").removesuffix(")")
        selector, label = (s.strip() for s in inner.rsplit(",", 1))
        values = prom.api(f"label/{label}/values", **{"match[]": substitute(selector)})
        assert values, variable["name"]
    assert set(prom.api("label/model/values")) >= {"m"}


def test_every_rule_is_healthy_and_slis_are_recorded(stack) -> None:
    prom = stack[0]

    def all_evaluated():
        rules = [r for g in prom.rule_groups() for r in g["rules"]]
        return rules if all(r["health"] == "ok" for r in rules) else None

    rules = prom.wait_for(all_evaluated, timeout=20, what="every rule evaluated healthy")
    expected = sum(len(all_rules(SLOSpec.default(), Options(flavor=f)))
                   for f in FLAVORS.values())
    assert len(rules) == expected  # every flavor's rules
    assert [r["name"] for r in rules if r.get("lastError")] == []
    # the le matcher matches the real exposition (prometheus_client writes le="2.0")
    assert prom.query(f'{cat.SERVER_TTFT.name}_bucket{{le="2.0"}}')
    sli = prom.wait_for_query('servescope:slo_errors:ratio_rate5m{job="servescope",slo="ttft"}')
    ratio = float(sli[0]["value"][1])
    assert 0 < ratio < 0.5  # one request in eight (the deadline kind) misses 2 s
    availability = prom.value(
        'servescope:slo_errors:ratio_rate5m{job="servescope",slo="availability"}')
    assert availability is not None and 0 < availability < 0.5


def test_heatmap_exemplars_resolve_to_exported_traces(stack) -> None:
    prom, _, _, replicas = stack
    replica = replicas[0]
    heatmap = next(p for p in lint.panels(_dashboards()["latency"])
                   if p["title"] == "TTFT heatmap, per replica")
    expr = substitute(heatmap["targets"][0]["expr"]).replace(
        'instance=~".*"', f'instance="{replica.target}"')
    now = time.time()
    groups = prom.wait_for(lambda: prom.exemplars(expr, now - 60, time.time() + 5) or None,
                           timeout=15, what="exemplars")
    trace_ids = {e["labels"]["trace_id"] for g in groups for e in g["exemplars"]}
    assert trace_ids
    replica.setup.force_flush(5)
    exported = {format(s.context.trace_id, "032x") for s in replica.exporter.get_finished_spans()}
    assert trace_ids <= exported


def test_injected_slow_consumers_fire_the_diagnostic_alert(stack) -> None:
    prom, _, webhook, replicas = stack
    faulty = replicas[0]
    alert = "ServescopeSlowConsumersWastingCompute"

    def firing_for(instance: str) -> bool:
        return any(a["labels"]["alertname"] == alert and a["labels"]["instance"] == instance
                   and a["state"] == "firing" for a in prom.alerts())

    assert not firing_for(faulty.target)
    baseline = prom.value(
        f'servescope_instance:tokens_discarded_per_committed:ratio_rate30s'
        f'{{instance="{faulty.target}"}}')
    assert baseline is not None and baseline < 0.1
    faulty.mix = FAULT
    prom.wait_for(lambda: firing_for(faulty.target) or None, timeout=40,
                  what=f"{alert} firing for {faulty.target}")
    assert not firing_for(replicas[1].target)
    notified = prom.wait_for(
        lambda: [a for a in webhook.alerts() if a["labels"]["alertname"] == alert] or None,
        timeout=20, what="the webhook notification")
    labels = notified[0]["labels"]
    assert labels["instance"] == faulty.target and labels["severity"] == "ticket"
    assert notified[0]["annotations"]["runbook_url"].endswith(
        "#servescopeslowconsumerswastingcompute")
    assert "were ended by the slow-consumer policy" in \
        notified[0]["annotations"]["description"]


#: Engine panels whose queries are empty by design against the fixture exporters, and why.
#: (The replicas stand in for a gateway in front of each engine: $gateway is their job.)
ENGINE_EMPTY_BY_DESIGN: dict[str, dict[str, str]] = {
    e: {"Hook errors": EMPTY_BY_DESIGN["Hook errors"]} for e in engines.ENGINES}


@pytest.mark.parametrize("engine", engines.ENGINES)
def test_engine_dashboard_queries_return_data(stack, engine: str) -> None:
    prom = stack[0]
    flavor = FLAVORS[engine]
    errors, empty, checked = [], [], 0
    for path in sorted((ROOT / "dashboards" / "generated" / engine).glob("*.json")):
        for panel, expr in lint.targets(json.loads(path.read_text())):
            checked += 1
            try:
                if not prom.query(substitute(expr, job=flavor.job_regex)) \
                        and panel["title"] not in ENGINE_EMPTY_BY_DESIGN.get(engine, {}):
                    empty.append(f"{path.stem} › {panel['title']}: {expr}")
            except ph.PromQueryError as exc:
                errors.append(f"{path.stem} › {panel['title']}: {exc}")
    assert errors == []
    assert empty == [], "\n".join(empty)
    assert checked > 25


@pytest.mark.parametrize(("engine", "slo", "model_label"), [
    ("vllm", "ttft", "model_name"), ("vllm", "tpot", "model_name"),
    ("sglang", "ttft", "model_name"), ("sglang", "tpot", "model_name"),
    ("tgi", "tpot", None), ("tgi", "availability", None)])
def test_engine_slis_are_recorded(stack, engine: str, slo: str, model_label: str | None) -> None:
    prom = stack[0]
    sli = prom.wait_for_query(
        f'servescope:slo_errors:ratio_rate5m{{job="{FLAVORS[engine].job_regex}",slo="{slo}"}}')
    labels = sli[0]["metric"]
    if model_label is None:
        assert set(labels) == {"__name__", "job", "slo"}
    else:
        assert labels[model_label] == "llama"
    assert 0 <= float(sli[0]["value"][1]) <= 1


def test_sglang_series_need_the_flavors_scrape_job(stack) -> None:
    """prometheus_client answers Prometheus' OpenMetrics request with the colon escaped: a
    plain job stores sglang_* names, the flavor's job the sglang:* names the queries use."""
    prom = stack[0]
    assert prom.wait_for_query('sglang:num_running_reqs{job="sglang"}')
    assert prom.wait_for_query('sglang_num_running_reqs{job="sglang-plain"}')
    assert prom.query('sglang:num_running_reqs{job="sglang-plain"}') == []
    assert SGLANG.scrape_job(["x"])["metric_relabel_configs"]


def test_a_prefix_miss_behind_a_ttft_burn_fires_its_cause_alert_alone(stack) -> None:
    """Replica B loses its prefix-cache hits and every first token comes late: the prefix-miss
    alert fires for it, and no other cause alert does (slower prefill steps come with the
    misses, and the prefill-compute alert defers to the prefix miss)."""
    prom, _, _, replicas = stack
    faulty = replicas[1]
    causes = set(diagnostics.CAUSES.values())

    def firing_causes() -> set[str]:
        return {a["labels"]["alertname"] for a in prom.alerts()
                if a["state"] == "firing" and a["labels"].get("instance") == faulty.target
                and a["labels"]["alertname"] in causes}

    assert "ServescopeTTFTBurnPrefixMiss" not in firing_causes()
    faulty.quiet = True
    faulty.prefix_hits = 0
    faulty.mix = SLOW_FIRST_TOKEN
    prom.wait_for(lambda: firing_causes() == {"ServescopeTTFTBurnPrefixMiss"} or None,
                  timeout=90, what=f"the prefix-miss alert alone for {faulty.target}")
    # The 30 s window may still hold hits from before the change when the alert fires first:
    # the ratio reaches 0 once the window has passed, with the prefix-miss alert still alone.
    hit_ratio = (f'servescope_instance:prefix_cache_hits:ratio_rate30s'
                 f'{{instance="{faulty.target}"}}')
    prom.wait_for(lambda: (prom.value(hit_ratio) == 0.0
                           and firing_causes() == {"ServescopeTTFTBurnPrefixMiss"}) or None,
                  timeout=60, what="no prefix hits, the prefix-miss alert still alone")
