"""The CLI's front door: a bad argument or an operating-system refusal (a port in use, an
output path that is a file) is one line naming it and a nonzero exit, never a traceback."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest


def _servescope(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "servescope", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize("command", ["serve", "gateway"])
@pytest.mark.parametrize("port", ["99999", "-1", "http"])
def test_a_port_that_is_no_port_is_refused_naming_the_option(command: str, port: str,
                                                             tmp_path: Path) -> None:
    extra = ["--upstream", "http://127.0.0.1:9"] if command == "gateway" else []
    result = _servescope(command, *extra, "--port", port, cwd=tmp_path)
    assert result.returncode == 2
    assert "argument --port:" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("command", ["serve", "gateway"])
def test_a_port_in_use_is_one_line_and_exit_1(command: str, tmp_path: Path) -> None:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    try:
        extra = ["--upstream", "http://127.0.0.1:9"] if command == "gateway" else []
        result = _servescope(command, *extra, "--port", str(port), cwd=tmp_path)
    finally:
        taken.close()
    assert result.returncode == 1
    assert f"servescope {command}: [Errno 98] cannot listen on 127.0.0.1:{port}: Address " \
           "already in use" in result.stderr
    assert "Traceback" not in result.stderr


def test_generate_into_a_file_is_one_line_and_exit_1(tmp_path: Path) -> None:
    file = tmp_path / "a-file"
    file.write_text("x")
    result = _servescope("generate", "--out", str(file), cwd=tmp_path)
    assert result.returncode == 1
    assert "servescope generate: " in result.stderr and "Not a directory" in result.stderr
    assert "Traceback" not in result.stderr and file.read_text() == "x"


@pytest.mark.parametrize(("option", "pattern"), [("--job", "(["), ("--model", "a(?=b)"),
                                                 ("--gateway", "x{2,1}")])
def test_report_refuses_a_pattern_prometheus_would_not_take(option: str, pattern: str,
                                                            tmp_path: Path) -> None:
    """Refused before Prometheus is asked (it would fail every panel's query one by one)."""
    result = _servescope("report", "--prometheus", "http://127.0.0.1:9", option, pattern,
                         "-o", str(tmp_path / "r.html"), cwd=tmp_path)
    assert result.returncode == 2
    assert f"servescope report: {option}: not a regular expression" in result.stderr
    assert not (tmp_path / "r.html").exists()


def test_an_unknown_redaction_engine_is_one_line_naming_the_variable(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "servescope", "redact"], cwd=tmp_path,
                            input="x\n", capture_output=True, text=True, timeout=120,
                            env={**os.environ,
                                 "SERVESCOPE_REDACTION_ENGINE": "bogus"}, check=False)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "SERVESCOPE_REDACTION_ENGINE" in result.stderr and "bogus" in result.stderr
