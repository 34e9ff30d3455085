"""Through the reference server: an OpenAI SDK request with PII in its prompt, its ``user``
field and its headers (the API key rides in Authorization) leaves nothing of it in what the
OTLP receiver decodes, and the request's spans do arrive (the redaction stage kept them).
Tenant and user identities planted at every entry point (the ``user`` field, ``tracestate``,
the resource, an application span's attributes) leave only as keyed hashes."""

from __future__ import annotations

import openai
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
from otlp_receiver import OtlpReceiver, attrs

from servescope.instrumentation import setup_telemetry
from servescope.redaction import RedactionStage
from servescope.reference import config as config_mod
from servescope.reference.transport import server as server_mod

API_KEY = "sk-proj-Plant3dKeyAbcdefghijklmnop0123"
PLANTED = [API_KEY, "alice.plant@example.com", "4111 1111 1111 1111", "203.0.113.99",
           "+44 20 7946 0958"]
TENANT = "acme-bank-emea"  # passes every detector, yet names a customer


def test_openai_request_with_pii_leaves_none_of_it(registry, monkeypatch):
    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", f"tenant.id={TENANT},service.namespace=llm")
    tiny = config_mod.ModelConfig(dim=32, n_layers=1, n_heads=4, n_kv_heads=2, hidden_dim=64,
                                  max_context=256)
    with OtlpReceiver() as receiver:
        setup = setup_telemetry(
            registry=registry, model="tiny-ref",
            span_exporter=OTLPSpanExporter(endpoint=receiver.endpoint, insecure=True,
                                           timeout=5),
            redaction=RedactionStage(hash_key=b"k"))
        server = server_mod.LocalServer(
            config_mod.EngineConfig(model=tiny, block_size=8, num_blocks=64, max_batch=4),
            telemetry_setup=setup).start()
        try:
            client = openai.OpenAI(base_url=f"{server.url}/v1", api_key=API_KEY, max_retries=0,
                                   default_headers={"X-Forwarded-For": "203.0.113.99"})
            out = client.completions.create(
                model="tiny-ref", max_tokens=4, user="alice.plant@example.com",
                prompt="I am alice.plant@example.com, card 4111 1111 1111 1111, "
                       "call +44 20 7946 0958")
            assert out.choices[0].finish_reason in ("stop", "length")
            parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
            out = client.completions.create(
                model="tiny-ref", max_tokens=2, user=f"{TENANT}-user-7", prompt="hello",
                extra_headers={"traceparent": parent, "tracestate": f"tenant={TENANT},v=1"})
            assert out.choices[0].finish_reason in ("stop", "length")
            tracer = setup.tracer_provider.get_tracer("the-application")
            with tracer.start_as_current_span("route", attributes={
                    "tenant.id": TENANT, "enduser.id": f"{TENANT}-user-7",
                    "app.customer": TENANT, "user": f"{TENANT}-user-7"}):
                pass  # (log records: test_privacy_defaults)
            assert setup.force_flush(10)
        finally:
            server.stop()
    payload = receiver.all_bytes()
    for value in [*PLANTED, TENANT]:
        assert value.encode() not in payload, value
    assert b"[identity:" in payload
    names = {span.name for _, span in receiver.spans()}
    assert "text_completion tiny-ref" in names and {"queue", "prefill"} <= names
    request = next(s for _, s in receiver.spans() if s.name == "text_completion tiny-ref")
    assert attrs(request.attributes)["servescope.finish_reason"] in ("stop", "length")
