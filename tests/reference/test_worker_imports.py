"""The worker loads no exporter: importing any module of the reference worker (engine core,
engine process and client, the torch-free transport pieces) loads no ``opentelemetry`` or
``prometheus_client`` module, transitively. tests/architecture.py reads the worker's own
import lines; this runs the imports in a fresh interpreter and reads ``sys.modules``, so an
arrow drawn through another room (a package ``__init__`` that imports eagerly) is seen too.

``reference/transport/server.py`` is the one exception: it is the composition root, which calls
``setup_telemetry`` and so loads the exporters on purpose.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = ("opentelemetry", "prometheus_client")
COMPOSITION_ROOT = {"transport.server"}
WORKER = sorted(".".join(p.relative_to(ROOT / "reference").with_suffix("").parts)
                for p in (ROOT / "reference").rglob("*.py") if p.stem != "__init__")
WORKER = [m for m in WORKER if m not in COMPOSITION_ROOT]

# Runs in a fresh interpreter: imports each module named in argv and prints, for each
# forbidden package that got loaded, the servescope modules on the stack when it was first
# asked for (the chain that pulled it in).
PROBE = r"""
import importlib, importlib.abc, json, sys, traceback
FORBIDDEN = set(sys.argv[1].split(","))
pulled = {}

class Watch(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        top = name.split(".")[0]
        if top in FORBIDDEN and top not in pulled:
            pulled[top] = [f.filename.rsplit("/servescope/", 1)[-1] + ":" + str(f.lineno)
                           for f in traceback.extract_stack() if "/servescope/" in f.filename]
        return None

sys.meta_path.insert(0, Watch())
for module in sys.argv[2:]:
    importlib.import_module(module)
loaded = sorted({n.split(".")[0] for n in sys.modules} & FORBIDDEN)
print(json.dumps({"loaded": loaded, "pulled": {k: pulled.get(k, []) for k in loaded}}))
"""


def probe(modules: list[str]) -> dict[str, object]:
    env = {**os.environ, "PYTHONSAFEPATH": "1"}  # the installed package, not the cwd's
    out = subprocess.run([sys.executable, "-c", PROBE, ",".join(FORBIDDEN), *modules],
                         capture_output=True, text=True, timeout=300, env=env, check=True)
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def test_the_worker_modules_load_no_exporter():
    assert {"core.scheduler", "core.lifecycle", "client.engine_process", "client.engine_client",
            "core.model", "transport.limits"} <= set(WORKER)
    found = probe([f"servescope.reference.{m}" for m in WORKER])
    assert found["loaded"] == [], f"the worker loaded exporters, through: {found['pulled']}"


def test_the_hook_types_the_worker_names_load_no_exporter():
    # what the engine core names through the front doors: lazily re-exported, so naming the
    # recorder, the step report and the finish reasons costs no exporter
    found = probe(["servescope", "servescope.instrumentation",
                   "servescope.instrumentation.request_recorder", "servescope.instrumentation.step",
                   "servescope.instrumentation.engine_health"])
    assert found["loaded"] == [], found["pulled"]


def test_the_probe_sees_an_exporter_loaded_through_another_module():
    # the control: Telemetry does load both, and the probe names the chain
    found = probe(["servescope.reference.transport.server"])
    assert found["loaded"] == sorted(FORBIDDEN)
    pulled = found["pulled"]
    assert isinstance(pulled, dict)
    assert any("reference/transport/server.py" in frame for frame in pulled["prometheus_client"])
