"""The task folder a command is given where it wants the task's ``tests/`` (``lint-rubric``, ``gen-ppt-rubrics``):
read as its ``tests/``, the folder ``init`` and ``try`` take. Standard library only."""

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


def not_a_folder(path: Path) -> str:
    """Why `path`, given where a command wants a task's ``tests/`` folder (or the task folder), is none (trial 24
    P-2), with a "did you mean" hint where one is sure: ``"… is the rubric file, not a folder: did you mean its
    folder task/tests?"``, ``"… does not exist: did you mean task/tests?"`` (a folder beside it spelled alike).
    Only reads; never raises (an unreadable place gets the bare reason)."""
    import difflib

    try:
        if path.is_file():
            parent = path.parent
            if path.name == "rubric.json":
                return f"{path} is the rubric file, not a folder: did you mean its folder {parent}?"
            if (parent / "rubric.json").is_file():
                return f"{path} is a file, not a folder: did you mean its folder {parent}?"
            return f"{path} is a file, not a folder"
        if path.exists():
            return f"{path} is not a folder"
        parent = path.parent
        names = sorted(p.name for p in parent.iterdir() if p.is_dir()) if parent.is_dir() else []
    except OSError:
        return f"{path} is not a folder"
    close = difflib.get_close_matches(path.name, names, n=1, cutoff=0.6)
    hint = f": did you mean {parent / close[0]}?" if close else ""
    return f"{path} does not exist (the folder is not created){hint}"
