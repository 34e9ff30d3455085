"""Generates ``collector/agent.yaml`` and ``collector/gateway.yaml`` (OpenTelemetry Collector
contrib) from the redaction policy, so the Collector tier enforces the same policy a second
time (defense in depth, one source of truth).

Topology: the server exports OTLP to an *agent* next to it (memory_limiter, redaction, batch),
which spreads traces over the *gateway* replicas with the trace-id-aware ``loadbalancing``
exporter; each gateway sees whole traces, so it can tail-sample (errors, deadline/cancel
finishes, slow TTFT, slow end-to-end, every trace an exemplar points to, a probabilistic
baseline), redact once more and export to Tempo over OTLP.

The Collector cannot run the Python validators (Luhn, mod-97, ...), so its value patterns are
RE2 approximations of the detectors: broader, never narrower, on the corpus the tests use.
Component names and fields are checked against :data:`CONTRIB_FIELDS` (the pinned release).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from .policy import ContentCapture, Policy, load_policy

__all__ = [
    "CONTRIB_FIELDS",
    "CONTRIB_VERSION",
    "RE2_PATTERNS",
    "TAIL_POLICY_TYPES",
    "collector_configs",
    "generate_collector_configs",
    "redaction_processor",
    "validate_config",
]

CONTRIB_VERSION = "0.135.0"
IMAGE = f"otel/opentelemetry-collector-contrib:{CONTRIB_VERSION}"

# Sources, for every component and field used (opentelemetry-collector-contrib, v0.135.0):
#   processor/redactionprocessor/config.go (allow_all_keys, allowed_keys, ignored_keys,
#     blocked_key_patterns [since v0.121.0, PR #37664], blocked_values, allowed_values,
#     redact_all_types, summary)
#   processor/tailsamplingprocessor/README.md (decision_wait, num_traces,
#     expected_new_traces_per_sec, decision_cache; policy types incl. boolean_attribute and
#     ottl_condition with error_mode/span/spanevent)
#   exporter/loadbalancingexporter/README.md (routing_key: traceID, protocol.otlp, resolver.dns)
#   processor/memorylimiterprocessor, processor/batchprocessor, exporter/otlpexporter,
#   receiver/otlpreceiver READMEs (core components bundled in contrib);
#   service.telemetry.metrics.readers[].pull.exporter.prometheus {host, port} (the Collector's
#   internal-telemetry docs; replaces the deprecated `address`).
CONTRIB_FIELDS: dict[str, dict[str, frozenset[str]]] = {
    "receivers": {"otlp": frozenset({"protocols"})},
    "processors": {
        "memory_limiter": frozenset({"check_interval", "limit_mib", "spike_limit_mib",
                                     "limit_percentage", "spike_limit_percentage"}),
        "batch": frozenset({"timeout", "send_batch_size", "send_batch_max_size",
                            "metadata_keys", "metadata_cardinality_limit"}),
        "redaction": frozenset({"allow_all_keys", "allowed_keys", "ignored_keys",
                                "blocked_key_patterns", "blocked_values", "allowed_values",
                                "redact_all_types", "summary"}),
        "tail_sampling": frozenset({"decision_wait", "num_traces",
                                    "expected_new_traces_per_sec", "decision_cache",
                                    "policies"}),
    },
    "exporters": {
        "otlp": frozenset({"endpoint", "tls", "compression", "headers", "timeout",
                           "sending_queue", "retry_on_failure", "balancer_name", "keepalive"}),
        "loadbalancing": frozenset({"routing_key", "protocol", "resolver", "timeout",
                                    "sending_queue", "retry_on_failure"}),
    },
    "extensions": {"health_check": frozenset({"endpoint"})},
}
# Tail sampling policy types and each one's fields (same README).
TAIL_POLICY_TYPES: dict[str, frozenset[str]] = {
    "always_sample": frozenset(),
    "latency": frozenset({"threshold_ms", "upper_threshold_ms"}),
    "numeric_attribute": frozenset({"key", "min_value", "max_value", "invert_match"}),
    "probabilistic": frozenset({"hash_salt", "sampling_percentage"}),
    "status_code": frozenset({"status_codes"}),
    "string_attribute": frozenset({"key", "values", "enabled_regex_matching", "cache_max_size",
                                   "invert_match"}),
    "boolean_attribute": frozenset({"key", "value", "invert_match"}),
    "ottl_condition": frozenset({"error_mode", "span", "spanevent"}),
    "rate_limiting": frozenset({"spans_per_second"}),
    "span_count": frozenset({"min_spans", "max_spans"}),
}

# RE2 (Go regexp) approximations of the detectors: no lookaround, no backreferences.
RE2_PATTERNS: dict[str, str] = {
    "private_key": r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----[^-]*(-----END [A-Z0-9 ]*"
                   r"PRIVATE KEY[A-Z ]*-----)?",
    "jwt": r"eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*",
    "aws_access_key": r"\b(AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)"
                      r"[A-Z2-7]{16}\b",
    "github_token": r"\b(gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,255})\b",
    "api_key": r"\b((sk|rk)[-_](live_|test_|proj-|svcacct-|ant-api03-|ant-)?[A-Za-z0-9_-]{20,}"
               r"|xox[abposr]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35})",
    "bearer_token": r"\b([Bb]earer|BEARER|[Bb]asic|BASIC)\s+[A-Za-z0-9._~+/-]{16,}=*",
    "secret_assignment": r"(?i)(api[_-]?key|apikey|secret|token|passw(or)?d|pwd|credentials?|"
                         r"auth[_-]?key|access[_-]?key|private[_-]?key|client[_-]?secret|key)"
                         r"[\"']?\s*[:=]\s*[\"']?[^\s\"',;&<>]{6,}",
    "email": r"[A-Za-z0-9._%+-]{1,64}@([A-Za-z0-9-]{1,63}\.)+[A-Za-z]{2,24}",
    "iban": r"\b[A-Z]{2}[0-9]{2}( ?[A-Z0-9]{4}){2,7}( ?[A-Z0-9]{1,3})?\b",
    "credit_card": r"\b(4[0-9]{3}|5[1-5][0-9]{2}|2[2-7][0-9]{2}|6011|6[245][0-9]{2}|3[0-9]{3}|"
                   r"50[0-9]{2}|67[0-9]{2})([ -]?[0-9]{4}){2,3}[ -]?[0-9]{1,7}\b|"
                   r"\b3[0-9]{3}[ -]?[0-9]{6}[ -]?[0-9]{4,5}\b",
    "us_ssn": r"\b[0-9]{3}[- ][0-9]{2}[- ][0-9]{4}\b",
    "ipv6": r"\b([0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}\b|([0-9A-Fa-f]{1,4})?(:[0-9A-Fa-f]{1,4})*"
            r"::([0-9A-Fa-f]{1,4}(:[0-9A-Fa-f]{1,4})*)?(\.[0-9]{1,3}){0,3}(%[A-Za-z0-9.]+)?",
    "ipv4": r"\b((25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])\.){3}(25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])\b",
    "phone": r"\+[1-9][0-9 .()-]{6,20}[0-9]|"
             r"(\b1[ .-])?\(?\b[0-9]{3}\)?[ .-][0-9]{3}[ .-][0-9]{4}\b|"
             r"\b0[0-9]{1,4}[ -][0-9]{3,4}[ -]?[0-9]{3,4}\b|\b0[1-9]([ .][0-9]{2}){4}\b",
}
_RE2_UNSUPPORTED = re.compile(r"\(\?[=!<]|\\[1-9]|\(\?P?<")


def _re2_ok(pattern: str) -> bool:
    return _RE2_UNSUPPORTED.search(pattern) is None


def redaction_processor(policy: Policy, *, place: str) -> dict[str, Any]:
    """The ``redaction`` processor config that mirrors ``policy``."""
    blocked_keys = [f"^{re.escape(k)}$" for k in sorted(policy.drop)]
    blocked_keys += [p.pattern for p in policy.drop_patterns]
    if policy.content_capture is ContentCapture.NO_CONTENT:
        blocked_keys += [f"^{re.escape(k)}$" for k in sorted(policy.content_keys)]
    for i, pattern in enumerate(blocked_keys):
        if not _re2_ok(pattern):
            raise ValueError(f"{policy.source}: a key pattern is not RE2 ({place}): "
                             f"blocked_key_patterns[{i}] = {pattern!r}")
    config: dict[str, Any] = {
        # Keys the policy does not list are scanned in-process (unknown: scan); the Collector
        # then keeps them too and masks matching values. unknown: drop fails closed here too.
        "allow_all_keys": policy.unknown == "scan",
        "ignored_keys": sorted(policy.allow),
        "blocked_key_patterns": blocked_keys,
        "blocked_values": [RE2_PATTERNS[kind] for kind in policy.kinds],
        "summary": "info",
    }
    if policy.unknown != "scan":
        content = policy.content_keys if policy.content_capture is not ContentCapture.NO_CONTENT \
            else frozenset()
        config["allowed_keys"] = sorted(policy.scan | policy.allow | content)
    return config


def _memory_limiter() -> dict[str, Any]:
    return {"check_interval": "1s", "limit_percentage": 80, "spike_limit_percentage": 20}


def _own_metrics() -> dict[str, Any]:
    """The Collector's own metrics on 0.0.0.0:8888 (the default listens on 127.0.0.1 only, out
    of Prometheus' reach in a container)."""
    return {"metrics": {"readers": [{"pull": {"exporter": {"prometheus": {
        "host": "0.0.0.0", "port": 8888}}}}]}}


def _otlp_receiver() -> dict[str, Any]:
    return {"protocols": {"grpc": {"endpoint": "0.0.0.0:4317"},
                          "http": {"endpoint": "0.0.0.0:4318"}}}


def agent_config(policy: Policy) -> dict[str, Any]:
    return {
        "extensions": {"health_check": {"endpoint": "0.0.0.0:13133"}},
        "receivers": {"otlp": _otlp_receiver()},
        "processors": {
            "memory_limiter": _memory_limiter(),
            "redaction": redaction_processor(policy, place="agent"),
            "batch": {"timeout": "1s", "send_batch_size": 1024, "send_batch_max_size": 2048},
        },
        "exporters": {
            "loadbalancing": {
                "routing_key": "traceID",
                "protocol": {"otlp": {"timeout": "5s", "tls": {"insecure": True}}},
                "resolver": {"dns": {"hostname": "${env:GATEWAY_HOSTNAME:-otel-gateway}",
                                     "port": 4317}},
            },
        },
        "service": {
            "extensions": ["health_check"],
            "telemetry": _own_metrics(),
            "pipelines": {"traces": {"receivers": ["otlp"],
                                     "processors": ["memory_limiter", "redaction", "batch"],
                                     "exporters": ["loadbalancing"]}},
        },
    }


def tail_policies(ttft_threshold_s: float, e2e_threshold_s: float,
                  baseline_percent: float) -> list[dict[str, Any]]:
    """Keep every trace worth looking at, and a baseline of the rest."""
    return [
        {"name": "errors", "type": "status_code", "status_code": {"status_codes": ["ERROR"]}},
        {"name": "bad-finish", "type": "string_attribute",
         "string_attribute": {"key": "servescope.finish_reason",
                              "values": ["deadline", "client_cancel", "slow_consumer",
                                         "error", "rejected"]}},
        {"name": "slow-ttft", "type": "ottl_condition",
         "ottl_condition": {"error_mode": "ignore",
                            "span": [f'attributes["servescope.ttft_seconds"] > '
                                     f"{ttft_threshold_s!r}"]}},
        {"name": "slow-e2e", "type": "latency",
         "latency": {"threshold_ms": round(e2e_threshold_s * 1000)}},
        # Metric exemplars point at these traces: keep them, so exemplar links never dangle.
        {"name": "exemplars", "type": "boolean_attribute",
         "boolean_attribute": {"key": "servescope.exemplar", "value": True}},
        {"name": "baseline", "type": "probabilistic",
         "probabilistic": {"sampling_percentage": baseline_percent}},
    ]


def gateway_config(policy: Policy, ttft_threshold_s: float, e2e_threshold_s: float,
                   baseline_percent: float = 10.0) -> dict[str, Any]:
    return {
        "extensions": {"health_check": {"endpoint": "0.0.0.0:13133"}},
        "receivers": {"otlp": _otlp_receiver()},
        "processors": {
            "memory_limiter": _memory_limiter(),
            "redaction": redaction_processor(policy, place="gateway"),
            "tail_sampling": {
                "decision_wait": "10s", "num_traces": 50000,
                "expected_new_traces_per_sec": 100,
                "decision_cache": {"sampled_cache_size": 100000},
                "policies": tail_policies(ttft_threshold_s, e2e_threshold_s, baseline_percent),
            },
            "batch": {"timeout": "1s", "send_batch_size": 1024, "send_batch_max_size": 2048},
        },
        "exporters": {
            "otlp": {"endpoint": "${env:TEMPO_OTLP_ENDPOINT:-tempo:4317}",
                     "tls": {"insecure": True},
                     "sending_queue": {"enabled": True, "queue_size": 5000},
                     "retry_on_failure": {"enabled": True, "max_elapsed_time": "120s"}},
        },
        "service": {
            "extensions": ["health_check"],
            "telemetry": _own_metrics(),
            "pipelines": {"traces": {
                "receivers": ["otlp"],
                "processors": ["memory_limiter", "redaction", "tail_sampling", "batch"],
                "exporters": ["otlp"]}},
        },
    }


def validate_config(config: dict[str, Any]) -> list[str]:
    """Problems with ``config`` against the pinned release's components and fields."""
    problems: list[str] = []
    for section, known in CONTRIB_FIELDS.items():
        for name, body in (config.get(section) or {}).items():
            kind = name.split("/", 1)[0]
            if kind not in known:
                problems.append(f"{section}.{name}: no such component in contrib "
                                f"{CONTRIB_VERSION}")
                continue
            for field in body or {}:
                if field not in known[kind]:
                    problems.append(f"{section}.{name}.{field}: unknown field")
    for i, pol in enumerate(config.get("processors", {}).get("tail_sampling", {})
                            .get("policies", [])):
        ptype = pol.get("type")
        if ptype not in TAIL_POLICY_TYPES:
            problems.append(f"tail_sampling.policies[{i}].type: unknown {ptype!r}")
            continue
        extra = set(pol) - {"name", "type", ptype}
        if extra:
            problems.append(f"tail_sampling.policies[{i}]: unexpected {sorted(extra)}")
        for field in pol.get(ptype, {}):
            if field not in TAIL_POLICY_TYPES[ptype]:
                problems.append(f"tail_sampling.policies[{i}].{ptype}.{field}: unknown field")
    redaction = config.get("processors", {}).get("redaction", {})
    for key in ("blocked_values", "blocked_key_patterns"):
        for j, pattern in enumerate(redaction.get(key, [])):
            if not _re2_ok(pattern):
                problems.append(f"redaction.{key}[{j}]: not RE2: {pattern!r}")
    service = config.get("service", {})
    for key in service:
        if key not in ("extensions", "pipelines", "telemetry"):
            problems.append(f"service.{key}: unknown field")
    for ext in service.get("extensions", []):
        if ext not in config.get("extensions", {}):
            problems.append(f"service.extensions: {ext} is not defined")
    for pname, pipe in service.get("pipelines", {}).items():
        for section in ("receivers", "processors", "exporters"):
            for comp in pipe.get(section, []):
                if comp not in config.get(section, {}):
                    problems.append(f"service.pipelines.{pname}.{section}: {comp} undefined")
    return problems


def _header(role: str, source: str) -> str:
    return (f"# GENERATED by servescope from {source}: do not edit.\n"
            f"# Regenerate with `servescope generate` (a test fails when this file is stale).\n"
            f"# OpenTelemetry Collector {role} for {IMAGE}\n"
            f"# Components and fields checked against opentelemetry-collector-contrib "
            f"v{CONTRIB_VERSION}:\n"
            f"#   redaction: processor/redactionprocessor/config.go\n"
            f"#   tail_sampling: processor/tailsamplingprocessor/README.md\n"
            f"#   loadbalancing: exporter/loadbalancingexporter/README.md\n"
            f"#   memory_limiter, batch, otlp receiver and exporter (core, bundled in contrib)\n"
            f"# (the table lives in servescope.redaction.collector_config.CONTRIB_FIELDS)\n")


def _render(config: dict[str, Any], role: str, source: str) -> str:
    problems = validate_config(config)
    if problems:
        raise ValueError(f"generated {role} config is invalid: " + "; ".join(problems))
    body = yaml.safe_dump(config, sort_keys=False, default_flow_style=False, width=10_000)
    return _header(role, source) + body


def _slo_thresholds() -> tuple[float, float]:
    # The collector configs read the SLO spec (DESIGN: collector reads catalog, SLO and
    # policy); the detectors and stages of this package never do, so the import is local.
    from servescope.instrumentation.slo import SLOSpec

    spec = SLOSpec.default()
    e2e = spec.e2e.threshold_seconds if spec.e2e is not None else 60.0
    return spec.ttft.threshold_seconds, e2e


def collector_configs(policy: Policy | None = None, *, ttft_threshold_s: float | None = None,
                      e2e_threshold_s: float | None = None,
                      source: str = "redaction/default_policy.yaml") -> dict[str, str]:
    """File name -> YAML text of both configs."""
    policy = policy or load_policy()
    if ttft_threshold_s is None or e2e_threshold_s is None:
        ttft, e2e = _slo_thresholds()
        ttft_threshold_s = ttft if ttft_threshold_s is None else ttft_threshold_s
        e2e_threshold_s = e2e if e2e_threshold_s is None else e2e_threshold_s
    return {
        "agent.yaml": _render(agent_config(policy), "agent", source),
        "gateway.yaml": _render(gateway_config(policy, ttft_threshold_s, e2e_threshold_s),
                                "gateway", source + " and the SLO spec"),
    }


def generate_collector_configs(out_dir: str | Path, check: bool = False, *,
                               policy: Policy | None = None,
                               ttft_threshold_s: float | None = None,
                               e2e_threshold_s: float | None = None) -> list[str]:
    """Write the configs into ``out_dir``; with ``check``, write nothing and return the paths
    that are missing or stale (empty: up to date). Without ``check``, returns paths written.
    Thresholds default to the shipped SLO spec, the policy to the shipped policy."""
    out = Path(out_dir)
    changed: list[str] = []
    texts = collector_configs(policy, ttft_threshold_s=ttft_threshold_s,
                              e2e_threshold_s=e2e_threshold_s)
    for name, text in texts.items():
        path = out / name
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        changed.append(str(path))
        if not check:
            out.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    return changed
