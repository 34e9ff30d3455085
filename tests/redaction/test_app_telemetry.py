"""Shapes blind corpus EB (the telemetry of LLM applications: OTLP/Jaeger JSON, structured
logs, queues, feature flags, error trackers) found missed or mistaken."""

from __future__ import annotations

import pytest

from servescope.redaction import Redactor

_SPEND_HASH = "e239068fae76d439a038eb418239f3648f1de445f04f9089da37f1183d565bf4"


@pytest.mark.parametrize("text", [
    # a queue record's key and a feature flag's context key: an entity's id
    "llm.usage-events partition=15 offset=383188033 key=tenant-2704 timestamp=1733796875646",
    '{"key":"messaging.kafka.message.key","value":{"stringValue":"tenant-6901"}}',
    '{"kind":"feature","creationDate":1725685242352,"context":{"kind":"user",'
    '"key":"usr_x4qkKMJSaic2ZwCW8WEdFj","tier":"enterprise"}}',
    # a Jaeger tag printed over several lines
    '{\n  "key": "hostname",\n  "type": "string",\n  "value": "agent-orchestrator-65jd6"\n}',
    # an AWS account's id, under its key and in an ARN
    '{"timestamp":"2025-07-26T01:45:50Z","accountId":"008465319470","identity":'
    '{"arn":"arn:aws:sts::008465319470:assumed-role/bedrock-invoker/sess"}}',
    # LiteLLM's spend log: the key's SHA-256, then the spend
    f'{{"call_type":"acompletion","api_key":"{_SPEND_HASH}","spend":0.3069198}}',
    # a cookie header of preferences only, as an OTLP array
    '{"key":"http.request.header.cookie","value":{"arrayValue":{"values":[{"stringValue":'
    '"lang=en-GB; theme=dark"}]}}}',
])
def test_the_telemetry_stays(redactor: Redactor, text: str) -> None:
    assert redactor.redact_text(text, {}) == text


@pytest.mark.parametrize(("text", "value"), [
    ('{"key":"rpc.grpc.request.metadata.x-api-key","value":{"arrayValue":{"values":'
     '[{"stringValue":"279ae49662ba37ae533c207b4fdc0d63"}]}}}', "279ae49662ba37ae533c207b4fdc0d63"),
    ('{"key":"http.request.header.cookie","value":{"arrayValue":{"values":[{"stringValue":'
     '"_ga=GA1.1.850872281.1755847016; __Host-session=rgLcK2ujHqQDrgHW4ekZWM6iZafP9nd05Oo2Dluc; '
     'theme=dark"}]}}}', "rgLcK2ujHqQDrgHW4ekZWM6iZafP9nd05Oo2Dluc"),
    ('"vars": {\n  "username": "\'svc_vectorsync\'",\n  "password": "\'Sakura3315@\'"\n}',
     "Sakura3315@"),
    ("Не приходит код подтверждения на номер 8 (922) 073-81-52, помогите", "073-81-52"),
    # the same hash under api_key with no spend after it is kept from view
    (f'{{"api_key":"{_SPEND_HASH}","model":"gpt-4o"}}', _SPEND_HASH),
])
def test_the_value_goes(redactor: Redactor, text: str, value: str) -> None:
    assert value not in redactor.redact_text(text, {})


def test_free_text_is_cut_at_the_content_limit_not_the_attribute_limit(
        redactor: Redactor) -> None:
    """A pretty-printed OTLP span of 6 KB is free text: kept whole (16 KB by default); the span
    stage cuts names and status descriptions at the attribute limit (4 KB)."""
    text = '{"key": "http.route", "value": {"stringValue": "/v1/chat"}},\n' * 100
    assert len(text) > redactor.policy.max_value_chars
    assert redactor.redact_text(text, {}) == text
    cut = redactor.redact_text(text, {}, limit=redactor.policy.max_value_chars)
    assert cut.endswith("…[truncated]")
