"""The compiled detectors (setup.py builds them with mypyc) against their own sources: the same
findings and the same redacted text on every corpus line, and a build that no longer matches
its sources never runs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import ops_corpus
import pytest
import redaction_corpus

import servescope
import servescope.redaction as redaction
from servescope.redaction import Redactor, is_native
from servescope.redaction.native import MANIFEST, NATIVE_ENV

BLIND = Path(__file__).parent / "blind"
_NATIVE_OFF = os.environ.get("SERVESCOPE_BUILD_NATIVE") == "0" or \
    os.environ.get(NATIVE_ENV) == "0"
_RUN = """
import json, sys
from servescope.redaction import Redactor, is_native
from servescope.redaction.native import NATIVE
texts = json.load(open(sys.argv[1]))
redactor = Redactor(hash_key=b"k")
import servescope.redaction as package
json.dump({"native": is_native(), "bound": all(hasattr(package, m) for m in NATIVE),
           "out": [[redactor.redact_text(t, {}), [list(f) for f in redactor.findings(t)]]
                   for t in texts]}, sys.stdout)
"""


def _texts() -> list[str]:
    texts = [json.loads(line)["text"] for path in sorted(BLIND.glob("*.jsonl"))
             for line in path.read_text().splitlines() if line.strip()]
    texts += [s.text for s in redaction_corpus.build(per_kind=30, per_negative=30)]
    texts += [line for _, line in ops_corpus.negatives(rounds=3)]
    return texts


def _run(texts_file: Path, env: dict[str, str], path: str | None = None) -> dict:
    env = {**os.environ, **env}
    if path is not None:
        env["PYTHONPATH"] = path
    done = subprocess.run([sys.executable, "-c", _RUN, str(texts_file)], env=env,
                          capture_output=True, text=True, timeout=300, check=True)
    return json.loads(done.stdout)


@pytest.mark.skipif(_NATIVE_OFF, reason="the compiled build is turned off in this environment")
def test_the_suite_runs_the_compiled_detectors() -> None:
    """`make test` installs the package with a C compiler at hand: a build that fell back to
    the sources unnoticed would leave every other test here passing on the slower path."""
    assert is_native()
    assert type(Redactor.redact_text).__name__ == "method_descriptor"  # a C function


@pytest.mark.skipif(not is_native(), reason="needs the compiled build")
def test_compiled_and_sources_agree_on_every_corpus_line(tmp_path: Path) -> None:
    texts = _texts()
    assert len(texts) > 15_000
    (tmp_path / "texts.json").write_text(json.dumps(texts))
    compiled = _run(tmp_path / "texts.json", {})
    sources = _run(tmp_path / "texts.json", {NATIVE_ENV: "0"})
    assert compiled["native"] and not sources["native"]
    assert sources["bound"] and compiled["bound"]  # redaction.detectors, as imports bind it
    differ = [(t, a, b) for t, a, b in zip(texts, compiled["out"], sources["out"], strict=True)
              if a != b]
    assert not differ, differ[:5]
    assert sum(1 for t, (out, _) in zip(texts, compiled["out"], strict=True) if out != t) > 5000


def _copy_of_the_build(root: Path) -> Path:
    """The installed package's redaction modules, compiled and source, under ``root``."""
    package = Path(redaction.__file__).parent
    target = root / "servescope" / "redaction"
    shutil.copytree(package, target, symlinks=False)
    (root / "servescope" / "__init__.py").write_text("")
    for lib in Path(servescope.__file__).parent.parent.glob("servescope_redaction__mypyc*"):
        shutil.copy(lib, root / lib.name)
    return target


@pytest.mark.skipif(not is_native(), reason="needs the compiled build")
def test_a_build_older_than_its_sources_runs_the_sources(tmp_path: Path) -> None:
    copy = _copy_of_the_build(tmp_path)
    texts = tmp_path / "texts.json"
    texts.write_text(json.dumps(["card 4111 1111 1111 1111", "mail jo@example.org"]))
    fresh = _run(texts, {}, str(tmp_path))
    assert fresh["native"]
    with (copy / "detectors.py").open("a") as source:
        source.write("\n# edited after the build\n")
    code = ("import logging, servescope.redaction as r, servescope.redaction.detectors as d; "
            "print(r.is_native(), d.__spec__.origin)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(tmp_path)}, check=True)
    assert done.stdout.split() == ["False", str(copy / "detectors.py")]
    assert "older than their sources (detectors)" in done.stderr
    assert _run(texts, {}, str(tmp_path))["out"] == fresh["out"]  # the same answers, slower
    (copy / "detectors.py").write_text((Path(redaction.__file__).parent / "detectors.py")
                                       .read_text())
    (copy / MANIFEST).unlink()  # a build that did not finish: no manifest, nothing said
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(tmp_path)}, check=True)
    assert done.stdout.split() == ["False", str(copy / "detectors.py")]
    assert "older" not in done.stderr
