"""One name per concept on the run context's trip (issue 38): a method the segments call on
a part of their context (the paths, the audit, the redactor, the retry loop's tries, the
call counters) is defined in one file of the package, so a reader — or a tool following the
context through the calls — never has to choose between two rooms' definitions of it; and
the final message of a delivery is repaired text by its type, not by each reader."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import cowork_judge

SRC = Path(cowork_judge.__file__).parent


def _defined(*, methods_only: bool = False) -> dict[str, set[str]]:
    """Function (or only method) name → the package files (relative) that define one by that name."""
    where: dict[str, set[str]] = defaultdict(set)
    for path in SRC.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        scopes = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)] if methods_only else [tree]
        for scope in scopes:
            for node in (scope.body if methods_only else ast.walk(scope)):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    where[node.name].add(path.relative_to(SRC).as_posix())
    return where


def test_the_names_the_segments_call_on_their_context_live_in_one_room():
    where = _defined()
    owners = {"of_environment": "run/paths.py", "redact": "safety/redact.py", "write_json": "segment/audit.py",
              "record_failure": "transport/retrying.py", "count_failure": "transport/stats.py",
              "calls_opened": "segment/judges.py", "confined": "agentic/tools.py"}
    assert {name: sorted(where[name]) for name in owners} == {name: [file] for name, file in owners.items()}
    # `Path.resolve()` is what the run calls on its folders: no method of the package stands in for it
    assert sorted(_defined(methods_only=True)["resolve"]) == []


def test_the_old_names_remain_as_aliases_of_the_new_ones():
    from cowork_judge.run.paths import RunPaths
    from cowork_judge.safety.redact import Redactor

    assert RunPaths.resolve == RunPaths.of_environment
    assert Redactor(["sk-secret-0123"]).text("a sk-secret-0123 b") == "a [REDACTED] b"

