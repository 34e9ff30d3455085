"""Defaults a security review signs: client-chosen model names, tenant and user identities,
encoded values in log lines, and a detector that fails on a string."""

from __future__ import annotations

import json
import logging
from dataclasses import replace

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Link, SpanContext, TraceFlags, TraceState

from servescope.redaction import (
    Place,
    Policy,
    RedactingFilter,
    RedactingSpanExporter,
    Redactor,
    parse_policy,
)
from servescope.redaction.detectors import prefilter_for
from servescope.redaction.spans import OPAQUE_STATE, clean_context

KEY = b"test-key"
SERVED = "llama-3.1-8b-instruct"
ADAPTERS = {  # adapter name: what must not leave the process
    "lora-alice.smith@example.com": "alice.smith@example.com",
    "ft-4111111111111111-v2": "4111111111111111",
    "lora-jane-doe": "jane-doe",
}


def _exported(redactor: Redactor, make) -> list[str]:
    sink = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(RedactingSpanExporter(sink, redactor)))
    make(provider.get_tracer("a-third-party-instrumentation"))
    provider.shutdown()
    return [span.to_json() for span in sink.get_finished_spans()]


def test_adapter_names_never_leave_in_spans() -> None:
    redactor = Redactor(hash_key=KEY, known_models=[SERVED])

    def make(tracer) -> None:
        for adapter in [SERVED, *ADAPTERS]:
            with tracer.start_as_current_span(f"chat {adapter}") as span:
                span.set_attribute("gen_ai.request.model", adapter)
                span.set_attribute("gen_ai.response.model", adapter)

    spans = _exported(redactor, make)
    served, *others = (json.loads(s) for s in spans)
    assert served["name"] == f"chat {SERVED}"
    assert served["attributes"]["gen_ai.request.model"] == SERVED
    text = "\n".join(spans)
    for secret in ADAPTERS.values():
        assert secret not in text
    for span in others:
        assert span["attributes"]["gen_ai.request.model"].startswith("[model:")
        assert span["name"].startswith("chat [model:")
    # the same adapter hashes the same way: spans of one adapter still group together
    assert len({s["attributes"]["gen_ai.request.model"] for s in others}) == len(ADAPTERS)


def test_a_known_model_name_is_still_scanned() -> None:
    """Known is not allowed: a configured name that carries an address is masked too."""
    redactor = Redactor(hash_key=KEY, known_models=["lora-bob@example.com"])
    out = redactor.redact_attributes({"gen_ai.request.model": "lora-bob@example.com"}, {})
    assert "bob@example.com" not in out["gen_ai.request.model"]
    scanning = Redactor(parse_policy("version: 1\nmodels: {unknown: scan}"), hash_key=KEY)
    assert scanning.redact_attributes({"gen_ai.request.model": "lora-jane-doe"}, {}) == {
        "gen_ai.request.model": "lora-jane-doe"}  # the opt-out: scanned only


IDENTITIES = {
    "tenant.id": "acme-bank-emea",
    "enduser.id": "u-829301",
    "user.id": "42",
    "user": "acme-bank-emea-user-7",  # the OpenAI request's user field
    "app.customer_name": "Globex Corporation",
    "customer": "initech",
    "billing.tenant": "umbrella-eu",
}


def test_identity_keys_are_hashed_wherever_they_are_set() -> None:
    redactor = Redactor(hash_key=KEY)
    remote = SpanContext(0xABC, 0xDEF, is_remote=True, trace_flags=TraceFlags(1),
                         trace_state=TraceState([("tenant", "acme-bank-emea"),
                                                 ("vendor", "ok")]))

    def make(tracer) -> None:
        with tracer.start_as_current_span("request", attributes=IDENTITIES,
                                          links=[Link(remote, IDENTITIES)]) as span:
            span.add_event("routed", IDENTITIES)

    (span,) = (json.loads(s) for s in _exported(redactor, make))
    text = json.dumps(span)
    for value in IDENTITIES.values():
        assert f'"{value}"' not in text, value
    for where in (span["attributes"], span["events"][0]["attributes"],
                  span["links"][0]["attributes"]):
        for key in IDENTITIES:
            assert where[key].startswith("[identity:"), (key, where[key])
    assert "acme-bank-emea" not in span["links"][0]["context"]["trace_state"]
    assert "vendor" in span["links"][0]["context"]["trace_state"]
    # keyed: one tenant always hashes the same, another key gives another hash
    again = Redactor(hash_key=KEY).redact_attributes({"tenant.id": "acme-bank-emea"}, {})
    assert again["tenant.id"] == span["attributes"]["tenant.id"]
    other = Redactor(hash_key=b"other").redact_attributes({"tenant.id": "acme-bank-emea"}, {})
    assert other["tenant.id"] != again["tenant.id"]


def test_identity_keys_on_resources_and_log_records() -> None:
    redactor = Redactor(hash_key=KEY)
    counts: dict[str, int] = {}
    resource = redactor.redact_attributes({"service.name": "api", **IDENTITIES}, counts,
                                          Place.RESOURCE)
    assert resource["service.name"] == "api" and counts["identity"] == len(IDENTITIES)
    assert not set(IDENTITIES.values()) & set(map(str, resource.values()))
    record = logging.LogRecord("app", logging.INFO, __file__, 1, "routed", None, None)
    for key, value in IDENTITIES.items():
        setattr(record, key, value)
    RedactingFilter(redactor).filter(record)
    assert all(str(getattr(record, key)).startswith("[identity:") for key in IDENTITIES)


@pytest.mark.parametrize("path", [
    "/v1/users/alice%40example.com/sessions",
    "/v1/users/alice%2540example.com/sessions",
    "/v1/invite?to=alice%2Esmith%40example%2Ecom&card=4111%201111%201111%201111",
])
def test_the_log_line_that_echoes_a_path_is_scanned_decoded(path: str) -> None:
    log = logging.getLogger("servescope.test.pathlog")
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    handler.addFilter(RedactingFilter(Redactor(hash_key=KEY)))
    log.addHandler(handler)
    log.propagate = False
    try:
        log.warning("404 for %s", path)
    finally:
        log.removeHandler(handler)
    message = records[0].getMessage()
    assert message.startswith("404 for /v1/")
    for fragment in ("alice", "example", "4111", "1111%20"):
        assert fragment not in message, message


def _with_broken_card_check(redactor: Redactor) -> Redactor:
    """``redactor`` with a card validator that raises (set on the detector itself: a
    compiled detector calls its validator directly, past any module attribute)."""
    def broken(_digits: str) -> bool:
        raise RuntimeError("validator bug")

    redactor._detectors = tuple(replace(d, validator=broken) if d.kind == "credit_card" else d
                                for d in redactor._detectors)
    redactor._prefilter = prefilter_for(redactor._detectors)
    return redactor


def test_a_detector_that_throws_drops_the_string_and_counts_it() -> None:
    redactor = _with_broken_card_check(Redactor(hash_key=KEY))
    counts: dict[str, int] = {}
    out = redactor.redact_attributes({"note": "card 4111 1111 1111 1111", "ok": "fine"}, counts)
    assert out == {"ok": "fine"} and counts["redaction_failed"] == 1
    assert redactor.redact_text("card 4111 1111 1111 1111", counts) == (
        "[REDACTED:redaction_failed]")
    assert counts["redaction_failed"] == 2

    def make(tracer) -> None:
        with tracer.start_as_current_span("s", attributes={"note": "card 4111 1111 1111 1111",
                                                            "n": 3}):
            pass

    (span,) = (json.loads(s) for s in _exported(redactor, make))
    assert "4111" not in json.dumps(span) and span["attributes"]["n"] == 3
    assert span["attributes"]["servescope.redaction.count.redaction_failed"] == 1


def test_identity_rules_are_in_the_shipped_policy() -> None:
    policy = Policy.default()
    assert {"tenant.id", "enduser.id", "user.id", "user"} <= policy.hash_keys
    assert "gen_ai.request.model" not in policy.allow
    assert policy.unknown_models == "hash"


def test_a_short_unknown_model_name_is_replaced_only_as_a_word() -> None:
    def make(tracer) -> None:
        with tracer.start_as_current_span("text_completion x",
                                          attributes={"gen_ai.request.model": "x"}):
            pass

    (span,) = (json.loads(s) for s in _exported(Redactor(hash_key=KEY), make))
    assert span["name"].startswith("text_completion [model:")
    assert span["attributes"]["gen_ai.request.model"] in span["name"]


PROBE_SECRET = "sk-proj-Q7vXk2Lm9Pz4Rt8Wn3Yb6Hc1Jd5Fg0Ks2Ae7Uo4Ip9Ty"


def test_extra_mappings_sets_and_objects_are_redacted() -> None:
    """A structured log's ``extra`` carries a headers dict, a nested record, a set, an
    object: each is read, under the key policy at every level."""

    class Account:
        def __repr__(self) -> str:
            return "Account(email=zelda.quokka7@fastmail.com)"

    cycle: dict[str, object] = {}
    cycle["self"] = cycle
    record = logging.LogRecord("app", logging.INFO, __file__, 1, "called", None, None)
    record.headers = {"authorization": f"Bearer {PROBE_SECRET}", "accept": "text/plain"}
    record.user_record = {"contact": {"note": "card 4539148803436467"}}
    record.scopes = {f"key {PROBE_SECRET}"}
    record.account = Account()
    record.cycle = cycle
    RedactingFilter(Redactor(hash_key=KEY)).filter(record)
    rendered = repr(vars(record))
    for planted in (PROBE_SECRET, "4539148803436467", "zelda.quokka7@fastmail.com"):
        assert planted not in rendered, planted
    assert record.headers["accept"] == "text/plain"  # still a mapping, clean values kept
    assert "authorization" not in record.headers or PROBE_SECRET not in \
        record.headers["authorization"]
    assert record.user_record["contact"]["note"] == "card [REDACTED:credit_card]"
    assert isinstance(record.cycle, dict)  # a cycle ends as text, not a recursion error


def test_formatters_that_read_the_arguments_still_work() -> None:
    """uvicorn's access formatter unpacks ``args`` (five values): the filter keeps them,
    each redacted, whenever they render the redacted message; a value that spans the
    format string and an argument leaves the rendered text alone."""
    from uvicorn.logging import AccessFormatter

    formatter = AccessFormatter('%(client_addr)s - "%(request_line)s" %(status_code)s',
                                use_colors=False)
    log_filter = RedactingFilter(Redactor(hash_key=KEY))
    lines = []
    for client, path in (("127.0.0.1:51234", "/v1/models"),
                         ("203.0.113.5:51234", f"/v1/x?api_key={PROBE_SECRET}")):
        record = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1,
                                   '%s - "%s %s HTTP/%s" %d',
                                   (client, "GET", path, "1.1", 200), None)
        assert log_filter.filter(record)
        lines.append(formatter.format(record))
    assert lines[0] == '127.0.0.1:51234 - "GET /v1/models HTTP/1.1" 200 OK'
    assert lines[1] == ('[REDACTED:ipv4]:51234 - "GET /v1/x?api_key=[REDACTED:api_key] '
                        'HTTP/1.1" 200 OK')
    spanning = logging.LogRecord("app", logging.INFO, __file__, 1, "password=%s",
                                 ("hunter2secret",), None)
    log_filter.filter(spanning)
    assert spanning.args is None and "hunter2secret" not in spanning.getMessage()


@pytest.mark.parametrize("key", ["ssn", "user.ssn", "social_security_number", "phone_number",
                                 "phoneNumber", "token", "accessToken", "refresh_token"])
def test_keys_that_name_a_person_s_number_or_a_token_are_dropped(key: str) -> None:
    out = Redactor(hash_key=KEY).redact_attributes({key: "536228471", "max_tokens": 536228},
                                                   {}, Place.LOG)
    assert out == {"max_tokens": 536228}


@pytest.mark.parametrize("key", ["TenantName", "tenantName", "userId", "UserID", "usr.id",
                                 "user.full_name", "customerEmail"])
def test_camel_case_identity_keys_are_hashed(key: str) -> None:
    out = Redactor(hash_key=KEY).redact_attributes({key: "Acme Quokka Ltd"}, {}, Place.SPAN)
    assert out[key].startswith("[identity:")


@pytest.mark.parametrize("key", ["token_count", "gen_ai.usage.input_tokens", "max_tokens",
                                 "servescope.tokens.prompt", "tokenizer"])
def test_counts_of_tokens_are_not_dropped(key: str) -> None:
    assert Redactor(hash_key=KEY).redact_attributes({key: "8"}, {}, Place.SPAN) == {key: "8"}


def test_a_short_hash_key_is_warned_about(monkeypatch, caplog) -> None:
    """A one-letter key makes every keyed hash reversible by a dictionary: said once."""
    from servescope.redaction import redactor as module

    monkeypatch.setattr(module, "_WARNED", set())
    monkeypatch.setenv("SERVESCOPE_REDACTION_HASH_KEY", "a")
    with caplog.at_level(logging.WARNING, logger=module.__name__):
        Redactor()
        Redactor()
    assert [r.getMessage().split(":")[0] for r in caplog.records] == [
        "SERVESCOPE_REDACTION_HASH_KEY holds 1 bytes"]
    caplog.clear()
    monkeypatch.setenv("SERVESCOPE_REDACTION_HASH_KEY", "k" * 32)
    with caplog.at_level(logging.WARNING, logger=module.__name__):
        Redactor()
    assert caplog.records == []


# A member whose value has a character glued to it, where a detector that wants its value to
# stand apart would not see it (an outside probe's finding: each reached every exporter).
_GLUED_STATE = [("a1", "e4929417833162205"), ("s7", "ssn512-48-7319"),
                ("i8", "xDE15370400440532013847"), ("u5", "zq.probe.4471@mailbox-example.org_x"),
                ("j9", "xeyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJl"),
                ("k10", "Bearersk-proj-Zq4471pRoBeXq9Lm2Vt7Kd3Hs8Nw5Rc1Yb6Fj0Ge4Ta9Uo2I")]
# What vendors put there: Datadog's, a W3C example's, Elastic's.
_VENDOR_STATE = [("dd", "s:1;o:rum;p:00f067aa0ba902b7"), ("congo", "t61rcWkgMzE"),
                 ("es", "s:1")]


def test_tracestate_members_that_could_hide_an_identifier_are_withheld() -> None:
    counts: dict[str, int] = {}
    context = SpanContext(0xABC, 0xDEF, is_remote=True, trace_flags=TraceFlags(1),
                          trace_state=TraceState(_GLUED_STATE + _VENDOR_STATE))
    kept = clean_context(context, counts)
    assert list(kept.trace_state.items()) == _VENDOR_STATE
    assert sum(counts.values()) >= len(_GLUED_STATE)
    assert counts.get(OPAQUE_STATE, 0) >= 3  # (the ones no detector reads even separated)
