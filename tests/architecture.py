"""The rooms of servescope and the one-way arrows between them, written down once and checked
by reading each module's imports (``ast``, nothing is imported). docs/architecture.md draws the
same table as a picture; tests/test_architecture.py runs the check on the repository and on a
planted bad tree.

A room is a top-level folder mapped to ``servescope.<room>`` in pyproject.toml. The folder
``servescope/`` holds two rooms: the *front door* (the package ``servescope`` itself: version and
the hook re-exports) and the *cli* (``servescope.cli``, ``servescope.commands``,
``servescope.coverage``), which joins every other room and which nothing imports.

A room may be split into sub-rooms (``reference/core/`` is ``reference.core``): each sub-room
has its own row, and the modules at the room's top (``reference/config.py``, the package
itself) form the sub-room ``<room>.root``. Another room that names the room whole may import
every sub-room of it; one that names sub-rooms may import those only.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

FRONT_DOOR = "front"
CLI = "cli"

#: room -> the other rooms it may import (its own room is always allowed).
ALLOWED: dict[str, frozenset[str]] = {
    # stands alone: the detectors, the policy and the span/log stages import nothing of ours
    "redaction": frozenset(),
    # the catalog, the hooks and telemetry setup; setup.py alone meets redaction (see below)
    "instrumentation": frozenset(),
    # the PromQL vocabulary and engine flavors: spelled from the catalog
    "promql": frozenset({"instrumentation"}),
    # generators read the catalog, the SLO spec and the policy, never the worker
    "dashboards": frozenset({"instrumentation", "promql"}),
    "alerts": frozenset({"instrumentation", "promql"}),
    "collector": frozenset({"instrumentation", "redaction"}),
    # the worker calls the hooks; it never reads the generators or the report. Its top holds
    # the settings of all three sub-rooms (config.py) and imports none of them.
    "reference.root": frozenset({"instrumentation"}),
    # the engine core knows nothing of processes, sockets or HTTP
    "reference.core": frozenset({"instrumentation", "reference.root"}),
    # the engine client runs the core in process or in a child process; never the transport
    "reference.client": frozenset({"instrumentation", "reference.root", "reference.core"}),
    # the HTTP transport serves an engine client
    "reference.transport": frozenset({"instrumentation", "reference.root", "reference.core",
                                      "reference.client"}),
    # the harness drives the worker from outside (load generator, demo, seed experiment); the
    # worker never imports it
    "harness": frozenset({"instrumentation", "reference"}),
    # the gateway wraps any engine's HTTP API with the hooks, reusing the reference transport's
    # torch-free pieces (limits, delivery, connections, the OpenAI shapes): never the engine
    "gateway": frozenset({"instrumentation", "reference.root", "reference.transport"}),
    # the report evaluates the generated dashboards (files) and loads the generated rules into
    # its loopback Prometheus
    "report": frozenset({FRONT_DOOR, "instrumentation", "alerts"}),
    FRONT_DOOR: frozenset({"instrumentation"}),
    CLI: frozenset({FRONT_DOOR, "instrumentation", "redaction", "promql", "dashboards", "alerts",
                    "collector", "reference", "harness", "report", "gateway"}),
}

#: Arrows one module may draw that its room may not, each with the reason and how.
MODULE_ARROWS: dict[str, frozenset[str]] = {
    # the composition root installs the default redaction stage and log filter; it imports
    # servescope.redaction inside functions only (docs/design-notes.md), so the hooks load
    # without it
    "instrumentation/setup.py": frozenset({"redaction"}),
}
#: Modules whose extra arrows must be imported lazily (inside a function body).
LAZY_ONLY = frozenset(MODULE_ARROWS)

#: Third-party packages a room never imports at run time (type-only imports are allowed).
FORBIDDEN_PACKAGES: dict[str, frozenset[str]] = {
    # the worker calls the hooks; the hooks own the exporters
    "reference": frozenset({"prometheus_client", "opentelemetry"}),
    # the gateway runs beside an engine, in its pod: it never loads torch
    "gateway": frozenset({"torch"}),
}

#: Rooms split into sub-rooms, each sub-room a folder of the room's.
SUBROOMS: dict[str, frozenset[str]] = {
    "reference": frozenset({"core", "client", "transport"}),
}

ROOMS = frozenset(r.split(".")[0] for r in ALLOWED) - {FRONT_DOOR, CLI} | {"servescope"}


@dataclass(frozen=True)
class Import:
    module: str  # the absolute dotted name imported
    line: int
    lazy: bool  # inside a function body
    type_only: bool  # under ``if TYPE_CHECKING:``


def module_name(rel: Path) -> str:
    """Dotted name of a file at ``rel`` (relative to the repository root)."""
    room, *rest = rel.with_suffix("").parts
    parts = ["servescope"] + ([] if room == "servescope" else [room]) + rest
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def room_of(module: str) -> str | None:
    """The room a dotted ``servescope...`` name belongs to (None: not ours)."""
    parts = module.split(".")
    if parts[0] != "servescope":
        return None
    if len(parts) == 1:
        return FRONT_DOOR
    if parts[1] not in ROOMS - {"servescope"}:
        return CLI
    if parts[1] not in SUBROOMS:
        return parts[1]
    if len(parts) > 2 and parts[2] in SUBROOMS[parts[1]]:
        return f"{parts[1]}.{parts[2]}"
    return f"{parts[1]}.root"


def may_import(room: str, target: str) -> bool:
    """Whether ``room`` may import ``target`` (rooms or sub-rooms, as :func:`room_of` names
    them)."""
    if target == room or target in ALLOWED[room]:
        return True
    whole = target.split(".")[0]
    # naming a split room whole opens every sub-room of it, from outside that room only
    return whole != room.split(".")[0] and whole in ALLOWED[room]


def _imports(tree: ast.AST, here: str, is_package: bool) -> Iterator[Import]:
    def visit(node: ast.AST, lazy: bool, type_only: bool) -> Iterator[Import]:
        for child in ast.iter_child_nodes(node):
            child_lazy = lazy or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            child_type_only = type_only or (
                isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test))
            if isinstance(child, ast.Import):
                for alias in child.names:
                    yield Import(alias.name, child.lineno, lazy, type_only)
            elif isinstance(child, ast.ImportFrom):
                base = _absolute(child, here, is_package)
                names = [alias.name for alias in child.names]
                if base == "servescope" and set(names) <= ROOMS:
                    # ``from servescope import dashboards``: the room, not the front door
                    for name in names:
                        yield Import(f"servescope.{name}", child.lineno, lazy, type_only)
                else:
                    yield Import(base, child.lineno, lazy, type_only)
            yield from visit(child, child_lazy, child_type_only)

    yield from visit(tree, False, False)


def _absolute(node: ast.ImportFrom, here: str, is_package: bool) -> str:
    if node.level == 0:
        return node.module or ""
    package = here.split(".") if is_package else here.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def violations(root: Path) -> list[str]:
    """Every import under ``root``'s room folders that breaks the table, as
    ``path:line: room -> target (why)``; empty when the arrows hold."""
    found = []
    for room_dir in sorted(ROOMS):
        for path in sorted((root / room_dir).rglob("*.py")):
            rel = path.relative_to(root)
            found += _check_file(path, rel)
    return found


def _check_file(path: Path, rel: Path) -> list[str]:
    here = module_name(rel)
    room = room_of(here)
    assert room is not None
    extra = MODULE_ARROWS.get(rel.as_posix(), frozenset())
    forbidden = FORBIDDEN_PACKAGES.get(rel.parts[0], frozenset())
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out = []
    for imp in _imports(tree, here, path.name == "__init__.py"):
        where = f"{rel.as_posix()}:{imp.line}"
        top = imp.module.split(".")[0]
        if top in forbidden and not imp.type_only:
            out.append(f"{where}: {room} -> {imp.module} (the worker never imports {top})")
        target = room_of(imp.module)
        if target is None or may_import(room, target):
            continue
        if target not in extra:
            out.append(f"{where}: {room} -> {target} (not an allowed arrow)")
        elif rel.as_posix() in LAZY_ONLY and not imp.lazy:
            out.append(f"{where}: {room} -> {target} (allowed only inside a function)")
    return out


def cycles(root: Path) -> list[list[str]]:
    """Import cycles between modules of one room under ``root`` (each as a sorted list of
    dotted names); empty when there are none. Imports inside functions count (a lazy import
    hides a cycle, it does not remove it); imports under ``TYPE_CHECKING`` do not."""
    modules = {module_name(path.relative_to(root)): path
               for room_dir in sorted(ROOMS) for path in sorted((root / room_dir).rglob("*.py"))}
    graph = {name: sorted(_edges(name, path, modules)) for name, path in modules.items()}
    return [sorted(component) for component in _strongly_connected(graph)
            if len(component) > 1]


def _edges(here: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of ``here``'s own room that ``here`` imports at run time (``from . import
    x`` names the submodule ``x`` when there is one)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    room = _whole(room_of(here))
    out: set[str] = set()

    def visit(node: ast.AST, type_only: bool) -> None:
        for child in ast.iter_child_nodes(node):
            child_type_only = type_only or (
                isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test))
            if isinstance(child, ast.Import) and not type_only:
                out.update(alias.name for alias in child.names)
            elif isinstance(child, ast.ImportFrom) and not type_only:
                base = _absolute(child, here, is_package)
                for alias in child.names:
                    sub = f"{base}.{alias.name}"
                    out.add(sub if sub in modules else base)
            visit(child, child_type_only)

    visit(tree, False)
    return {m for m in out if m in modules and m != here and _whole(room_of(m)) == room}


def _whole(room: str | None) -> str | None:
    """The room a sub-room belongs to (a cycle across sub-rooms is a cycle in the room)."""
    return None if room is None else room.split(".")[0]


def _strongly_connected(graph: dict[str, list[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components, iteratively (no recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(component)
    return components
