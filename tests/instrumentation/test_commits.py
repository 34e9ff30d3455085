"""Telemetry.commits: several requests' commits in one call, each at its own time, no batch."""

from servescope.instrumentation import FinishReason, Telemetry


def sample(registry, name, **labels):
    return sum(s.value for m in registry.collect() for s in m.samples
               if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()))


def test_each_commit_keeps_its_own_time_and_no_batch_size_is_reported(registry):
    clock = [100.0]
    telemetry = Telemetry(registry=registry, model="m", clock=lambda: clock[0])
    a = telemetry.request("a", arrival=100.0)
    b = telemetry.request("b", arrival=100.5)
    telemetry.commits([(a, 1, 0, 100.25), (b, 2, 0, 101.0)])
    telemetry.commits([(a, 3, 0, 101.5)])
    telemetry.commits([])
    assert sample(registry, "servescope_tokens_total", stage="committed") == 6
    ttft = "gen_ai_server_time_to_first_token_seconds"
    assert sample(registry, f"{ttft}_count") == 2
    assert sample(registry, f"{ttft}_sum") == 0.25 + 0.5  # each at its own stamp
    assert sample(registry, "servescope_scheduler_batch_size_count") == 0
    a.finish(FinishReason.STOP)
    telemetry.commits([(a, 1, 0, 102.0)])  # a late commit of a finished request: ignored
    assert sample(registry, "servescope_tokens_total", stage="committed") == 6
