"""`servescope serve` redacts by default and refuses a bad policy before it binds a port."""

import subprocess
import sys


def run(*args, timeout=60):
    return subprocess.run([sys.executable, "-P", "-m", "servescope", "serve", *args],
                          capture_output=True, text=True, timeout=timeout)


def test_bad_redaction_policy_is_a_clear_error(tmp_path):
    policy = tmp_path / "policy.yaml"
    policy.write_text("version: 1\nactions: {email: shred}\n")
    result = run("--redaction-policy", str(policy), "--port", "0")
    assert result.returncode == 2
    assert "invalid configuration" in result.stderr and "actions.email" in result.stderr
    assert "Traceback" not in result.stderr


def test_serve_help_documents_the_redaction_switches():
    out = run("--help").stdout
    assert "--redaction-policy" in out and "--no-redaction" in out
