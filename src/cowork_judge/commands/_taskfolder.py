"""The task folder a command is given where it wants the task's ``tests/`` (``lint-rubric``, ``gen-ppt-rubrics``):
read as its ``tests/``, the folder ``init`` and ``try`` take (why a given path is no folder at all, with a "did
you mean": `cowork_judge._util.given_paths.not_a_folder`, which all four commands word alike). Standard library only."""

from __future__ import annotations

from pathlib import Path


def task_tests_dir(path: Path) -> Path | None:
    """``<path>/tests`` when `path` is a Harbor task folder (the folder ``init`` and ``try`` take), else None.

    A folder holding ``task.toml`` and a ``tests/`` folder is one, whatever else it holds (trial 18 P-3: a
    ``rubric.json`` saved there by mistake does not make it a tests folder); so is one whose ``tests/`` holds
    a ``rubric.json``, when it has no ``rubric.json`` or ``test.sh`` of its own."""
    try:
        if (path / "task.toml").is_file() and (path / "tests").is_dir():
            return path / "tests"
        if (path / "rubric.json").exists() or (path / "test.sh").exists():
            return None
        tests = path / "tests"
        return tests if tests.is_dir() and ((path / "task.toml").is_file() or (tests / "rubric.json").exists()) else None
    except OSError:
        return None
