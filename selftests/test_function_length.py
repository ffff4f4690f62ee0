"""Functions a reader can hold: none in ``src/cowork_judge`` longer than `MAX_FUNCTION_LINES`.

Walks every module with `ast` (nothing is imported or run) and measures every function and
method, nested ones included, from its ``def`` line to its last line (decorators left out,
its docstring and comments counted: they are read too). A function over the limit is split
into named steps that read well (issue 38: the scheduler's block loop was 123 lines of six
closures sharing ``nonlocal`` state, ``rescore``'s ``main`` 152).

Run it alone with: ``.venv/bin/python -m pytest -q selftests/test_function_length.py``
(``python selftests/test_function_length.py [N]`` lists the functions over N lines, longest first).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE_DIR = Path(__file__).resolve().parents[1] / "src" / "cowork_judge"

MAX_FUNCTION_LINES = 80
"""The longest function allowed, in lines (``end_lineno - lineno + 1`` of its ``def``). Never raise it."""


def function_lengths(tree: ast.AST) -> list[tuple[int, int, str]]:
    """``(lines, def line, qualified name)`` of every function and method in `tree`, nested
    ones included (``Outer.method.inner``)."""
    found: list[tuple[int, int, str]] = []

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}{child.name}"
                assert child.end_lineno is not None
                found.append((child.end_lineno - child.lineno + 1, child.lineno, name))
                walk(child, f"{name}.")
            elif isinstance(child, ast.ClassDef):
                walk(child, f"{prefix}{child.name}.")
            else:
                walk(child, prefix)

    walk(tree, "")
    return found


def long_functions(limit: int, root: Path = PACKAGE_DIR) -> list[tuple[int, str]]:
    """``(lines, "path:line name")`` of the functions under `root` longer than `limit`, longest first."""
    out = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for lines, lineno, name in function_lengths(tree):
            if lines > limit:
                out.append((lines, f"{path.relative_to(root.parent)}:{lineno} {name}"))
    return sorted(out, key=lambda item: (-item[0], item[1]))


def test_no_function_over_the_limit() -> None:
    too_long = long_functions(MAX_FUNCTION_LINES)
    assert not too_long, (f"{len(too_long)} function(s) over {MAX_FUNCTION_LINES} lines; split each into named steps "
                          "that read well:\n" + "\n".join(f"  {lines:4d}  {where}" for lines, where in too_long))


@pytest.mark.parametrize(("source", "expected"), [
    ("def f():\n" + "    x = 1\n" * 80, [(81, 1, "f")]),
    ("@decorator\n@other\ndef f():\n    pass\n", [(2, 3, "f")]),  # decorators are not the function's lines
    ("class C:\n    async def m(self):\n        def inner():\n            pass\n",
     [(3, 2, "C.m"), (2, 3, "C.m.inner")]),
    ("if True:\n    def g():\n        pass\n", [(2, 2, "g")]),
])
def test_lengths_are_measured_from_def_to_last_line(source: str, expected: list[tuple[int, int, str]]) -> None:
    assert function_lengths(ast.parse(source)) == expected


def test_a_long_function_is_found(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "room").mkdir(parents=True)
    (package / "room" / "long.py").write_text("def long():\n" + "    pass\n" * 81, encoding="utf-8")
    (package / "short.py").write_text("def short():\n" + "    pass\n" * 79, encoding="utf-8")
    assert long_functions(MAX_FUNCTION_LINES, package) == [(82, "pkg/room/long.py:1 long")]


if __name__ == "__main__":
    for length, where in long_functions(int(sys.argv[1]) if len(sys.argv) > 1 else MAX_FUNCTION_LINES):
        print(f"{length:4d}  {where}")
