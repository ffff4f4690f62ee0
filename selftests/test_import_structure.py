"""The shape of the house, proven from the code's own imports.

Walks every module of ``src/cowork_judge`` with `ast` (nothing is imported or run) and reads
EVERY import: module level, inside functions (lazy imports) and under ``if TYPE_CHECKING:``
(a type-only import still ties two files together). A room is a top-level folder or module
of the package (``engine``, ``run``, ``core``, ``sim``, ``_util`` …); no module stands loose at the top. Checked:

- no import loop between files (``lint/assets.py`` ↔ ``lint/ppt_assets.py`` and the sim's
  type-only loop were the last ones);
- no import loop between rooms, i.e. no import that runs back up: the rooms stack in floors;
- the engine (``engine/``: the run, the router, the watchdog, signals) is imported only by
  the command line, never by a segment or anything below it;
- no import chain longer than `MAX_CHAIN` files.

Run it alone with: ``.venv/bin/python -m pytest -q selftests/test_import_structure.py``
(``python selftests/test_import_structure.py`` prints the floors, rooms bottom first).
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from functools import lru_cache
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = "cowork_judge"

MAX_CHAIN = 12
"""The longest import chain allowed, in files: issue 23's goal, reached (main had 21, then 18).
The longest chains today run from the command line through the engine, the agentic segment
and its context down to the failure vocabulary (``commands.run`` → ``engine.judge`` →
``engine.router`` → ``agentic.dispatch`` → ``agentic.scheduler`` → ``agentic.base`` →
``segment.segment_context`` → ``transport.attempts`` → ``transport.chat`` → ``transport.calls`` →
``core.classify`` → ``core.error_kinds``), and from ``commands.lint`` through the lint
checks and the code-method table, which reads only the code methods' view of the context
(``segment.code_context``), not the model-call path. Never raise it."""

ALLOWED: dict[str, frozenset[str]] = {
    # floor 1: the ground — the scoring core with its pure types (the folder tree among them), the utilities, the simulator
    "core": frozenset(),
    "_util": frozenset(),
    "sim": frozenset(),
    "__init__": frozenset({"core"}),
    # floor 2
    "safety": frozenset({"_util"}),
    # floor 3
    "evidence": frozenset({"_util", "safety"}),
    "transport": frozenset({"_util", "core", "safety"}),
    # floor 4
    "config": frozenset({"core", "safety", "transport"}),
    "fleet": frozenset({"__init__", "_util", "core", "evidence"}),
    "guard": frozenset({"core", "evidence", "safety"}),
    "segment": frozenset({"_util", "core", "safety", "transport"}),
    # floor 5
    "agentic": frozenset({"_util", "config", "core", "evidence", "guard", "safety", "segment", "transport"}),
    "code_methods": frozenset({"_util", "core", "evidence", "safety", "segment"}),
    "run": frozenset({"__init__", "_util", "config", "core", "safety", "segment", "transport"}),
    "workflow": frozenset({"__init__", "_util", "core", "evidence", "safety", "segment", "transport"}),
    # floor 6
    "batch": frozenset({"_util", "config", "core", "fleet", "run", "transport"}),
    "engine": frozenset({"__init__", "_util", "agentic", "code_methods", "config", "core", "evidence", "guard", "run",
                         "safety", "segment", "workflow"}),
    "install": frozenset({"__init__", "_util", "config", "core", "evidence", "workflow"}),
    # the Harbor verifier class: runs the engine as a process (`cowork-judge run`), writes the error documents with run's
    "harbor": frozenset({"run"}),
    # floor 7
    "authoring": frozenset({"core", "fleet", "install", "workflow"}),
    "lint": frozenset({"__init__", "_util", "code_methods", "config", "core", "install", "run", "workflow"}),
    # floor 8: the command line
    "commands": frozenset({"__init__", "_util", "authoring", "batch", "config", "core", "engine", "evidence", "fleet",
                           "install", "lint", "run", "safety", "sim", "transport", "workflow"}),
    "__main__": frozenset({"commands"}),
}
"""Room → the rooms it may import: the layering as a rule a reviewer reads (issue 38). A room not
listed may not exist; an import not listed fails `test_every_import_is_in_the_table`. Widening a
row is a design decision: say why in the commit. ``core`` imports nothing outside itself."""


ENGINE_IMPORTERS = frozenset({"commands", "__main__"})
"""The only rooms that may import the engine."""


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@lru_cache(maxsize=1)
def import_graph() -> dict[str, frozenset[str]]:
    """module → the package modules it imports (every import statement, wherever it stands).

    ``from a.b import c`` counts as an import of ``a.b.c`` when that is a module, else of ``a.b``;
    a name that is not a module resolves to its closest existing parent module.
    """
    files = {_module_name(p): p for p in (SRC / PACKAGE).rglob("*.py")}

    def resolve(name: str) -> str | None:
        while name and name not in files:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, frozenset[str]] = {}
    for module, path in files.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(anchor + ([node.module] if node.module else []))
                names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in files else base for alias in node.names]
            for name in names:
                if name == PACKAGE or name.startswith(PACKAGE + "."):
                    target = resolve(name)
                    if target is not None and target != module:
                        targets.add(target)
        graph[module] = frozenset(targets)
    return graph


def room(module: str) -> str:
    """The room of a module: its first name under the package (``engine``, ``sim``, ``_util``); the package face is ``__init__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def cycles(graph: dict[str, frozenset[str]] | dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return found


def room_graph() -> dict[str, set[str]]:
    """room → the other rooms it imports."""
    rooms: dict[str, set[str]] = defaultdict(set)
    for module, targets in import_graph().items():
        rooms[room(module)]
        for target in targets:
            if room(target) != room(module):
                rooms[room(module)].add(room(target))
    return dict(rooms)


def longest_chain() -> list[str]:
    """The longest import chain (a path in the file graph, which the first test proves acyclic)."""
    graph = import_graph()
    memo: dict[str, list[str]] = {}

    def chain(module: str) -> list[str]:
        if module not in memo:
            best: list[str] = []
            for target in graph[module]:
                candidate = chain(target)
                if len(candidate) > len(best):
                    best = candidate
            memo[module] = [module, *best]
        return memo[module]

    return max((chain(m) for m in sorted(graph)), key=len)


def floors() -> dict[str, int]:
    """room → floor (1 = the ground: imports no other room; else one above the highest room it imports)."""
    rooms = room_graph()
    memo: dict[str, int] = {}

    def floor(r: str) -> int:
        if r not in memo:
            memo[r] = 1 + max((floor(t) for t in rooms[r]), default=0)
        return memo[r]

    return {r: floor(r) for r in rooms}


def test_the_walk_reads_the_package() -> None:
    graph = import_graph()
    assert "cowork_judge.engine.judge" in graph and "cowork_judge.core.scoring" in graph
    # the walk sees what it must: the run imports the router, the router the segments' entries
    assert "cowork_judge.engine.router" in graph["cowork_judge.engine.judge"]
    assert {"cowork_judge.code_methods.code_rows", "cowork_judge.workflow.runner"} <= graph["cowork_judge.engine.router"]


def test_no_import_loop_between_files() -> None:
    assert cycles(import_graph()) == []


def test_no_import_runs_back_up_between_rooms() -> None:
    found = cycles(room_graph())
    ties = [f"{a} -> {b}" for a, targets in sorted(import_graph().items()) for b in sorted(targets)
            if any(room(a) in c and room(b) in c and room(a) != room(b) for c in found)]
    assert found == [], ties


def test_only_the_command_line_imports_the_engine() -> None:
    upward = [f"{a} -> {b}" for a, targets in sorted(import_graph().items()) for b in sorted(targets)
              if room(b) == "engine" and room(a) not in ENGINE_IMPORTERS | {"engine"}]
    assert upward == []


def test_every_import_is_in_the_table() -> None:
    rooms = room_graph()
    assert sorted(set(rooms) - set(ALLOWED)) == [], "a room the table does not know: add its row to ALLOWED"
    outside = [f"{a} -> {b}" for a, targets in sorted(import_graph().items()) for b in sorted(targets)
               if room(a) != room(b) and room(b) not in ALLOWED[room(a)]]
    assert outside == []


def test_no_loose_module_at_the_top() -> None:
    loose = sorted(p.name for p in (SRC / PACKAGE).glob("*.py") if p.name not in {"__init__.py", "__main__.py"})
    assert loose == [], "every module lives in a room (a folder): " + ", ".join(loose)


RUN_ROOMS = ("run", "segment", "engine", "agentic", "workflow", "code_methods", "transport", "core")
"""The rooms a run passes through: a file name may stand in one of them only (issue 38)."""


def shared_file_names(rooms: tuple[str, ...] = RUN_ROOMS) -> dict[str, list[str]]:
    """file name → the files of that name, where two or more of `rooms` hold one (at any depth; ``__init__.py`` aside)."""
    where: dict[str, list[str]] = defaultdict(list)
    for r in rooms:
        for path in sorted((SRC / PACKAGE / r).rglob("*.py")):
            if path.name != "__init__.py":
                where[path.name].append(str(path.relative_to(SRC / PACKAGE)))
    return {name: files for name, files in sorted(where.items())
            if len({f.split("/")[0] for f in files}) > 1}


def test_no_file_name_is_shared_by_two_rooms_of_the_run() -> None:
    # one name per concept: a reader tells from a file's name which room a change belongs in
    # (the run's context and the segments' view of it were both ``context.py``; see docs/architecture.md)
    assert shared_file_names() == {}


def test_no_import_chain_is_longer_than_the_bound() -> None:
    chain = longest_chain()
    assert len(chain) <= MAX_CHAIN, " -> ".join(chain)


if __name__ == "__main__":
    by_floor: dict[int, list[str]] = defaultdict(list)
    for r, f in floors().items():
        by_floor[f].append(r)
    for f in sorted(by_floor):
        print(f"floor {f:2d}: {', '.join(sorted(by_floor[f]))}")
    chain = longest_chain()
    print(f"longest chain ({len(chain)} files): {' -> '.join(chain)}")
