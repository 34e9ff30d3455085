import subprocess
import sys

import pytest

from servescope.instrumentation.slo import SLOError, SLOSpec, load_slo, parse_slo, workbook_windows

BASE = "version: 1\nttft: {threshold_seconds: 2.0, target: 0.99}\n" \
       "tpot: {threshold_seconds: 0.1, target: 0.99}\n"


def test_default_spec_loads_with_documented_defaults():
    spec = SLOSpec.default()
    assert spec.ttft.threshold_seconds == 2.0
    assert {r.value for r in spec.eligible_finish_reasons} == {"stop", "length"}
    assert spec.count_cancellations_in_attempted is True


@pytest.mark.parametrize(("text", "needle"), [
    (BASE + "colour: blue\n", "colour: unknown key"),
    (BASE.replace("2.0", "-1.0"), "ttft.threshold_seconds: -1.0"),
    (BASE.replace("target: 0.99}\ntpot", "target: 1.5}\ntpot"), "ttft.target: 1.5"),
    (BASE.replace("target: 0.99}\ntpot", "target: 0}\ntpot"), "ttft.target: 0"),
    (BASE.replace("2.0", "2.00005"), "ttft.threshold_seconds: 2.00005 is not representable"),
    (BASE + "ttft: [\n", "YAML syntax error at line"),
    ("- a\n- b\n", "expected a mapping"),
    (BASE.replace("0.1,", "fast,"), "tpot.threshold_seconds: \"fast\""),
    (BASE + "goodput: {eligible_finish_reasons: [stop, teleported]}\n",
     "goodput.eligible_finish_reasons.1: \"teleported\""),
    (BASE + "ttft2: {}\n", "ttft2: unknown key"),
    # the windows of a period under a day collapse into one minute
    (BASE + "period: 0d\n", "period: 0d is shorter than a day"),
    (BASE + "period: 2m\n", "period: 2m is shorter than a day"),
    (BASE + "period: 23h\n", "period: 23h is shorter than a day"),
    (BASE.replace("ttft: {", "ttft: {colour: 1, "), "ttft.colour: unknown key"),
    # (NaN passes a schema's minimum and maximum: every comparison with it is false)
    (BASE.replace("2.0", ".nan"), "ttft.threshold_seconds: NaN is invalid"),
    (BASE.replace("target: 0.99}\ntpot", "target: .NaN}\ntpot"), "ttft.target: NaN is invalid"),
    # a key given twice: an error, not the last one silently kept
    (BASE.replace("ttft: {", "ttft: {target: 0.5, "), "target (line 2): given twice"),
    (BASE + "period: 7d\nperiod: 30d\n", "period (line"),
])
def test_bad_specs_name_the_field_and_value(text, needle):
    with pytest.raises(SLOError) as info:
        parse_slo(text)
    assert needle in str(info.value)


def test_burn_rate_windows_scale_with_the_period():
    assert [(w.long, w.short, w.burn_rate) for w in workbook_windows("30d")] == [
        ("1h", "5m", 14.4), ("6h", "30m", 6.0), ("1d", "2h", 3.0), ("3d", "6h", 1.0)]
    assert [w.long for w in workbook_windows("7d")] == ["14m", "84m", "336m", "1008m"]


def test_custom_windows_must_have_short_below_long():
    text = BASE + "alerts: {burn_rate_windows: [{long: 5m, short: 1h, burn_rate: 2, " \
                  "severity: page}]}\n"
    with pytest.raises(SLOError, match=r"alerts\.burn_rate_windows\.0\.short"):
        parse_slo(text)


def test_goodput_eligibility_and_attempted_load():
    spec = SLOSpec.default()
    from servescope.instrumentation import FinishReason as F
    assert spec.is_good(F.STOP, 1.0, 0.05)
    assert not spec.is_good(F.STOP, 2.5, 0.05)
    assert not spec.is_good(F.STOP, 1.0, 0.2)
    assert spec.is_good(F.LENGTH, 1.0, None)  # one-token answers have no TPOT sample
    assert not spec.is_good(F.CLIENT_CANCEL, 0.1, 0.01)
    assert spec.counts_as_attempted(F.CLIENT_CANCEL)


def _cli(*args):
    return subprocess.run([sys.executable, "-P", "-m", "servescope", *args],
                          capture_output=True, text=True, timeout=60)


def test_cli_validate_exit_codes(tmp_path):
    good = tmp_path / "good.yaml"
    good.write_text(BASE)
    assert _cli("slo", "validate", str(good)).returncode == 0
    bad = tmp_path / "bad.yaml"
    bad.write_text(BASE.replace("0.99}\ntpot", "2}\ntpot"))
    result = _cli("slo", "validate", str(bad))
    assert result.returncode == 2
    assert "ttft.target: 2 is invalid" in result.stderr
    assert "Traceback" not in result.stderr
    missing = _cli("slo", "validate", str(tmp_path / "nope.yaml"))
    assert missing.returncode == 2 and "cannot read" in missing.stderr


def test_cli_buckets_prints_each_histogram_ladder(tmp_path):
    spec = tmp_path / "s.yaml"
    spec.write_text(BASE)
    out = _cli("slo", "buckets", str(spec)).stdout
    line = next(x for x in out.splitlines()
                if x.startswith("gen_ai_server_time_to_first_token_seconds"))
    assert " 2.0," in line and "1.6" in line and "2.5" in line


def test_cli_version():
    result = _cli("--version")
    assert result.returncode == 0 and result.stdout.startswith("servescope ")


def test_a_schema_error_names_the_file_and_the_field(tmp_path):
    path = tmp_path / "my-slo.yaml"
    path.write_text("version: 1\nttft: {threshold_seconds: 2, target: 1.5}\n"
                    "tpot: {threshold_seconds: 0.1, target: 0.99}\n")
    with pytest.raises(SLOError, match=r"my-slo\.yaml: ttft\.target"):
        load_slo(path)
