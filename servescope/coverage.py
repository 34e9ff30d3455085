"""docs/engines.md: which panels and alerts each flavor can fill, which it cannot, and why.

Generated from the flavors, the dashboard builders and the rule generator themselves (the same
code that writes the files), so the table cannot drift from what ships. It reads both
``dashboards`` and ``alerts``, which never read each other, so it lives at the front door beside
the ``generate`` command that writes it.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from servescope.alerts import diagnostics, slo_rules
from servescope.alerts.model import Alert, Options, Record
from servescope.alerts.render import all_rules
from servescope.dashboards.lint import panels
from servescope.dashboards.panels import NO_METRIC
from servescope.dashboards.render import dashboards
from servescope.instrumentation import catalog as cat
from servescope.instrumentation.slo import SLOSpec
from servescope.promql.flavor import FLAVORS, GATEWAY_JOB, Flavor, missing_in
from servescope.promql.query import Query

__all__ = ["coverage", "render_engines_markdown"]

#: The note a panel builder appends when the flavor lacks metrics (always last).
_NOTE = re.compile(re.escape(NO_METRIC) + r" (this panel|some of its series): (.*)\.\]\s*$",
                   re.S)
_NAMES = {"servescope": "servescope (reference worker)", "vllm": "vLLM", "sglang": "SGLang",
          "tgi": "TGI", "llamacpp": "llama.cpp"}


def _cell(text: str) -> str:
    """Text for a Markdown table cell (a bare | would end the cell)."""
    return text.replace("|", "\\|")


def _panel_status(slo: SLOSpec, flavor: Flavor) -> list[tuple[str, str, str]]:
    """(dashboard, panel title, filled) for every panel the flavor's dashboards hold."""
    out = []
    for key, board in dashboards(slo, flavor).items():
        for panel in panels(board):
            note = _NOTE.search(panel.get("description", ""))
            if note is None:
                status = "yes"
            else:
                what = "no" if note.group(1) == "this panel" else "partly"
                status = f"{what}: needs {note.group(2)}"
            out.append((key, panel["title"], status))
    return out


def coverage(slo: SLOSpec, flavor: Flavor) -> tuple[int, int, int]:
    """(panels filled by the engine alone, filled with the gateway in front, all panels)."""
    alone = _panel_status(slo, flavor.engine_only())
    joined = _panel_status(slo, flavor)
    return (sum(s == "yes" for *_, s in alone), sum(s == "yes" for *_, s in joined),
            len(joined))


def _panel_rows(slo: SLOSpec, flavor: Flavor) -> list[str]:
    if flavor.gateway is None:
        return ["| dashboard | panel | filled |", "|---|---|---|",
                *(f"| {key} | {_cell(title)} | {_cell(status)} |"
                  for key, title, status in _panel_status(slo, flavor))]
    alone = _panel_status(slo, flavor.engine_only())
    joined = _panel_status(slo, flavor)
    return ["| dashboard | panel | engine only | with the gateway |", "|---|---|---|---|",
            *(f"| {key} | {_cell(title)} | {_cell(a)} | {_cell(j)} |"
              for (key, title, a), (_, _, j) in zip(alone, joined, strict=True))]


def _needs(expr: str, needs: dict[str, set[str]]) -> set[str]:
    """The metrics ``expr`` lacks, itself or through the records it reads."""
    missing = {n for _, n in missing_in(expr)}
    for key, names in needs.items():
        record, slo_key = key.split("|")
        if re.search(re.escape(record) + (rf'\{{slo="{slo_key}"[^}}]*\}}' if slo_key else
                                          r"(?![A-Za-z0-9_:])"), expr):
            missing |= names
    return missing


def _alert_rows(slo: SLOSpec, flavor: Flavor) -> list[str]:
    options = Options(flavor=flavor)
    raw = [r for g in slo_rules.groups(slo, options) + diagnostics.groups(slo, options)
           for r in g.rules]
    kept = {r.alert for r in all_rules(slo, options) if isinstance(r, Alert)}
    needs: dict[str, set[str]] = {}
    for rule in raw:  # records read records (the SLIs' two stages): needs follow them
        if isinstance(rule, Record):
            key = f"{rule.record}|{rule.labels.get('slo', '')}"
            needs[key] = needs.get(key, set()) | _needs(rule.expr, needs)
    rows = []
    for rule in raw:
        if not isinstance(rule, Alert):
            continue
        if rule.alert in kept:
            rows.append(f"| {rule.alert} | yes |")
            continue
        needed = _cell(", ".join(sorted(_needs(rule.expr, needs))) or "?")
        rows.append(f"| {rule.alert} | no: needs {needed} |")
    return rows


def _thresholds(slo: SLOSpec, flavor: Flavor) -> list[str]:
    q = Query(flavor=flavor)
    out = []
    for what, spec, threshold in (("TTFT", cat.SERVER_TTFT, slo.ttft.threshold_seconds),
                                  ("TPOT", cat.TPOT, slo.tpot.threshold_seconds),
                                  ("E2E", cat.E2E, slo.e2e.threshold_seconds if slo.e2e
                                   else None)):
        native = flavor.metric(spec)
        if threshold is None or native is None:
            continue
        at = q.threshold(spec, threshold)
        if at != threshold:
            out.append(f"- {what} {threshold:g} s is not a bucket boundary of "
                       f"`{native.name}`: the SLI counts requests up to {at:g} s "
                       "as good (the nearest boundary below; conservative), and the alert "
                       "annotations and panel descriptions say so.")
    return out


def _mapping_rows(flavor: Flavor) -> list[str]:
    rows = []
    for spec in cat.CATALOG:
        mapped = flavor.metric(spec) if spec.name != cat.TOKENS.name else None
        if spec.name == cat.TOKENS.name:
            stages = [f"{stage}: `{m.sample_name}`" for stage, m in
                      ((s, flavor.stage_metric(s)) for s in (flavor.token_stages or {}))
                      if m is not None]
            rows.append(f"| `{spec.name}` | {'; '.join(stages) or '-'} |")
            continue
        native = f"`{mapped.name}`" if mapped is not None else "-"
        if mapped is not None and mapped.help:
            native += f" ({mapped.help})"
        rows.append(f"| `{spec.name}` | {native} |")
    if flavor.reason_counters:
        for reason, m in flavor.reason_counters.items():
            if m is not None:
                rows.append(f"| finish reason `{reason}` | `{m.spec().sample_name}` "
                            f"({m.note or 'its own counter'}) |")
    return rows


def _section(slo: SLOSpec, flavor: Flavor) -> list[str]:
    out = [f"## {_NAMES.get(flavor.name, flavor.name)}", "",
           f"Checked against: {flavor.versions}. Scrape job (`{flavor.job_regex}`):", "",
           "```yaml", yaml.safe_dump([flavor.scrape_job(["HOST:PORT"])], sort_keys=False)
           .rstrip(), "```", ""]
    out += _thresholds(slo, flavor)
    for reason, how in flavor.extra_reasons.items():
        out.append(f"- finish reason `{reason}`: {how}.")
    if flavor.absent_labels:
        out.append(f"- labels no series carries: {', '.join(sorted(flavor.absent_labels))} "
                   "(left out of groupings and alert texts).")
    if flavor.families is not None:
        out += ["", "| catalog family | native series |", "|---|---|", *_mapping_rows(flavor)]
    out += ["", *_panel_rows(slo, flavor),
            "", "| alert | shipped |", "|---|---|", *_alert_rows(slo, flavor), ""]
    return out


def _gateway_intro(slo: SLOSpec) -> list[str]:
    rows = []
    for flavor in FLAVORS.values():
        alone, joined, total = coverage(slo, flavor)
        with_gateway = f"{joined} of {total}" if flavor.gateway is not None else "-"
        rows.append(f"| {_NAMES.get(flavor.name, flavor.name)} | {alone} of {total} | "
                    f"{with_gateway} |")
    return [
        "## Coverage: the engine alone and with the gateway", "",
        "`servescope gateway --upstream URL` in front of an engine measures what no engine "
        "exports (stream TTFT at the first byte written, written vs TCP-acknowledged tokens, "
        "client cancels, slow consumers, finish reasons, spans) and exports it as the "
        f"catalog's own series. Scraped under a job matching `{GATEWAY_JOB}` (the dashboards' "
        "`gateway` variable; the rules read that job), those series fill every panel and "
        "rule the engine has no metric for; the engine's own metrics keep every panel they "
        "can fill. Panels filled:", "",
        "| flavor | engine only | with the gateway |", "|---|---|---|", *rows, ""]


def render_engines_markdown(slo: SLOSpec | None = None) -> str:
    slo = slo or SLOSpec.default()
    lines: list[Any] = [
        "# Engines: what each flavor can show", "",
        "Generated by `servescope generate` from the flavors (promql/flavor.py), the "
        "dashboard builders and the rule generator: do not edit. Each flavor queries one "
        "engine's native metrics, checked against the engine's source (the versions below; "
        "the real series are in tests/fixtures/engines/). A panel or rule that needs a metric "
        "the engine does not expose is left empty with a note (panels) or left out (rules); "
        "the tables say which and why. A counter is named by its family, as OpenMetrics "
        "names it: its series add `_total` (`llamacpp:prompt_tokens_cached` is scraped as "
        "`llamacpp:prompt_tokens_cached_total`).", "",
        "Why a panel or rule stays empty, in general: client-side, stream (transport), "
        "backpressure, goodput and telemetry-pipeline series come from servescope's own hooks "
        "in the serving path, which an engine's exporter does not have; per-step forward time "
        "and batch composition come from the scheduler, which vLLM and SGLang expose only in "
        "other shapes (per-iteration token histograms, throughput gauges) or not at all; TGI "
        "has no time-to-first-token, no KV-cache and no model label at all; llama.cpp counts "
        "tokens and busy slots only (no request counter, no latency histogram).", "",
        "Backpressure reaches an engine's compute only where the engine stops decoding when "
        "its HTTP writer blocks. llama.cpp does not: its slot decodes on into its own queue "
        "while the gateway stops reading, until the slow-consumer timeout or the deadline "
        "closes the request (which frees the slot at once). So a stalled stream on llama.cpp "
        "wastes more than the gateway's `discarded` tokens count: `llamacpp:tokens_predicted` "
        "less the gateway's `committed` over the same requests is the rest.", ""]
    lines += _gateway_intro(slo)
    for flavor in FLAVORS.values():
        lines += _section(slo, flavor)
    return "\n".join(lines).rstrip() + "\n"
