from hypothesis import given, settings
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry, Histogram
from prometheus_client.openmetrics.exposition import generate_latest

from servescope.instrumentation import SLOSpec, parse_slo
from servescope.instrumentation.buckets import MAX_BUCKETS, derive_ladder, ladders
from servescope.instrumentation.catalog import Buckets


def spec_with(ttft: float, tpot: float) -> SLOSpec:
    return parse_slo(f"version: 1\nttft: {{threshold_seconds: {ttft}, target: 0.99}}\n"
                     f"tpot: {{threshold_seconds: {tpot}, target: 0.99}}\n")


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 60_000), st.integers(1, 2_000))
def test_every_threshold_is_a_boundary_and_ladders_stay_small(ttft_ms, tpot_ms):
    spec = spec_with(ttft_ms / 1000, tpot_ms / 1000)
    ladder = ladders(spec)
    assert spec.ttft.threshold_seconds in ladder[Buckets.TTFT]
    assert spec.ttft.threshold_seconds in ladder[Buckets.QUEUE]
    assert spec.tpot.threshold_seconds in ladder[Buckets.TPOT]
    for bounds in ladder.values():
        assert len(bounds) <= MAX_BUCKETS
        assert list(bounds) == sorted(set(bounds))


def test_resolution_around_the_threshold():
    ladder = derive_ladder([2.0], 0.025, 60.0)
    assert {1.6, 2.0, 2.5} <= set(ladder)


def test_extra_thresholds_are_boundaries_too():
    ladder = ladders(SLOSpec.default())
    assert {0.5, 2.0} <= set(ladder[Buckets.TTFT])


def test_boundaries_render_as_floats_in_exposition():
    registry = CollectorRegistry()
    Histogram("x_seconds", "x", buckets=ladders(SLOSpec.default())[Buckets.TTFT],
              registry=registry).observe(1)
    text = generate_latest(registry).decode()
    assert 'le="10.0"' in text and 'le="2.0"' in text and 'le="10"' not in text
