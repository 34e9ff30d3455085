"""The arrows between the rooms point one way (the table in tests/architecture.py): checked on
the repository, and shown to fail on a tree with bad imports planted in it."""

from __future__ import annotations

import tomllib
from pathlib import Path

import architecture as arch

ROOT = Path(__file__).resolve().parents[1]


def test_the_repository_keeps_the_arrows():
    assert arch.violations(ROOT) == []


def test_every_mapped_room_is_in_the_table():
    # a new room mapped in pyproject.toml without a row would escape the check
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    folders = {folder.split("/")[0] for folder in setuptools["package-dir"].values()}
    assert folders == arch.ROOMS


def _plant(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


GOOD = {
    "servescope/__init__.py": "from servescope.instrumentation import catalog\n",
    "servescope/cli.py": "from servescope.report import live\nfrom servescope import dashboards\n",
    "instrumentation/__init__.py": "",
    "instrumentation/setup.py": "def stage():\n    from servescope.redaction import Redactor\n",
    "redaction/__init__.py": "from .policy import Policy\nimport opentelemetry\n",
    "promql/query.py": "from servescope.instrumentation import catalog\nfrom .flavor import F\n",
    "alerts/model.py": "from servescope.promql.flavor import Flavor\n",
    "reference/transport/server.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                     "    from opentelemetry.sdk.trace.export import X\n"
                                     "from ..client import engine\nfrom ..config import C\n",
    "reference/client/engine.py": "from ..core.scheduler import Scheduler\n",
    "reference/core/scheduler.py": "from .. import config\nfrom .model import Model\n",
    # the gateway reuses the transport's torch-free pieces and the settings
    "gateway/app.py": "from servescope.reference.transport import limits\n"
                      "from servescope.reference.config import HttpLimits\n",
    # the load generator is a client: it parses the server's /metrics text
    "harness/loadgen.py": "from prometheus_client import CollectorRegistry\n"
                          "from servescope.reference.config import EngineConfig\n",
}


def test_a_tree_that_keeps_the_arrows_passes(tmp_path):
    _plant(tmp_path, GOOD)
    assert arch.violations(tmp_path) == []


def test_planted_bad_imports_are_each_named(tmp_path):
    _plant(tmp_path, {
        **GOOD,
        "redaction/stage.py": "from servescope.instrumentation.catalog import LABELS\n",
        "alerts/render.py": "from ..dashboards import lint\n",
        "alerts/__init__.py": "from servescope import dashboards\n",
        "reference/client/engine.py": "import prometheus_client\n",
        "reference/core/model.py": "def f():\n    from opentelemetry import trace\n",
        "reference/loadgen.py": "from prometheus_client import CollectorRegistry\n",
        "reference/transport/server.py": "from servescope.harness.loadgen import Mix\n",
        "harness/demo.py": "from servescope.report.live import draw\n",
        "instrumentation/recorder.py": "from servescope.redaction import scan\n",
        "instrumentation/setup.py": "from servescope.redaction import Redactor\n",
        "dashboards/panels.py": "from servescope.cli import main\n",
        "collector/config.py": "from servescope.reference.transport import server\n",
    })
    found = arch.violations(tmp_path)
    assert found == [
        "alerts/__init__.py:1: alerts -> dashboards (not an allowed arrow)",
        "alerts/render.py:1: alerts -> dashboards (not an allowed arrow)",
        "collector/config.py:1: collector -> reference.transport (not an allowed arrow)",
        "dashboards/panels.py:1: dashboards -> cli (not an allowed arrow)",
        "harness/demo.py:1: harness -> report (not an allowed arrow)",
        "instrumentation/recorder.py:1: instrumentation -> redaction (not an allowed arrow)",
        "instrumentation/setup.py:1: instrumentation -> redaction (allowed only inside a "
        "function)",
        "redaction/stage.py:1: redaction -> instrumentation (not an allowed arrow)",
        "reference/client/engine.py:1: reference.client -> prometheus_client (the worker never "
        "imports prometheus_client)",
        "reference/core/model.py:2: reference.core -> opentelemetry (the worker never imports "
        "opentelemetry)",
        "reference/loadgen.py:1: reference.root -> prometheus_client (the worker never imports "
        "prometheus_client)",
        "reference/transport/server.py:1: reference.transport -> harness (not an allowed arrow)",
    ]


def test_the_worker_sub_rooms_point_one_way(tmp_path):
    # the core knows neither the client nor the transport, the client not the transport, the
    # settings none of them; the gateway reaches the transport only, never the engine
    _plant(tmp_path, {
        **GOOD,
        "reference/core/scheduler.py": "from ..client.engine_wire import Push\n",
        "reference/core/stream.py": "def f():\n    from servescope.reference.transport import X\n",
        "reference/client/engine.py": "from ..transport import server\n",
        "reference/config.py": "from .core.model import ModelConfig\n",
        "gateway/app.py": "from servescope.reference.client.engine import Engine\n",
        "harness/demo.py": "from servescope.reference.client.engine import Engine\n"
                           "from servescope.reference import Engine\n",
    })
    assert arch.violations(tmp_path) == [
        "gateway/app.py:1: gateway -> reference.client (not an allowed arrow)",
        "reference/client/engine.py:1: reference.client -> reference.transport (not an allowed "
        "arrow)",
        "reference/config.py:1: reference.root -> reference.core (not an allowed arrow)",
        "reference/core/scheduler.py:1: reference.core -> reference.client (not an allowed "
        "arrow)",
        "reference/core/stream.py:2: reference.core -> reference.transport (not an allowed "
        "arrow)",
    ]


def test_relative_imports_resolve_from_the_module(tmp_path):
    # ``from .. import x`` in a room's module names servescope.x: the front door's package
    _plant(tmp_path, {"redaction/spans.py": "from .. import instrumentation\n",
                      "redaction/sub/__init__.py": "from ... import report\n"})
    assert arch.violations(tmp_path) == [
        "redaction/spans.py:1: redaction -> instrumentation (not an allowed arrow)",
        "redaction/sub/__init__.py:1: redaction -> report (not an allowed arrow)",
    ]


def test_no_room_has_an_import_cycle():
    assert arch.cycles(ROOT) == []


def test_a_planted_cycle_is_named_even_behind_a_lazy_import(tmp_path):
    _plant(tmp_path, {
        **GOOD,
        "alerts/render.py": "def render():\n    from .unittests import tests\n",
        "alerts/unittests.py": "from .render import RULES\n",
        "alerts/model.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                           "    from .render import RULES\n",
    })
    assert arch.cycles(tmp_path) == [["servescope.alerts.render", "servescope.alerts.unittests"]]
