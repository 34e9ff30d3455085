from pathlib import Path

from servescope.instrumentation import catalog as cat
from servescope.instrumentation.docs import render_metrics_markdown

DOC = Path(__file__).resolve().parents[2] / "docs" / "metrics.md"


def test_docs_metrics_md_is_fresh():
    assert DOC.read_text("utf-8") == render_metrics_markdown(), (
        "docs/metrics.md is stale: run `servescope generate`")


def test_every_catalog_family_is_documented():
    text = DOC.read_text("utf-8")
    assert all(f"`{m.sample_name}`" in text for m in cat.CATALOG)


def test_lookup_series_maps_suffixes_back_to_the_family():
    assert cat.lookup_series("gen_ai_server_time_to_first_token_seconds_bucket") is cat.SERVER_TTFT
    assert cat.lookup_series("servescope_tokens_total") is cat.TOKENS
    assert cat.lookup_series("servescope_tokens") is None
    assert cat.lookup_series("servescope_requests_in_flight") is cat.IN_FLIGHT
