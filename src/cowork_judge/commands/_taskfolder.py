"""The task folder a command is given where it wants the task's ``tests/`` (``lint-rubric``, ``gen-ppt-rubrics``):
read as its ``tests/``, the folder ``init`` and ``try`` take. Standard library only."""

from __future__ import annotations

from pathlib import Path


def task_tests_dir(path: Path) -> Path | None:
    """``<path>/tests`` when `path` is a Harbor task folder (the folder ``init`` and ``try`` take: a ``tests/``
    folder beside a ``task.toml`` or holding a ``rubric.json``, and no ``rubric.json`` or ``test.sh`` of its own),
    else None."""
    try:
        if (path / "rubric.json").exists() or (path / "test.sh").exists():
            return None
        tests = path / "tests"
        return tests if tests.is_dir() and ((path / "task.toml").is_file() or (tests / "rubric.json").exists()) else None
    except OSError:
        return None
