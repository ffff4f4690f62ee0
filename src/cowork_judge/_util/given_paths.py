"""Paths a user typed on the command line, made safe to take a parent or a sibling of (trial 18 P-6/P-7).

``Path(".").parent`` is ``.`` and ``Path("..").parent`` is ``.`` too, so a command that looks for
``../task.toml`` or ``<logs>/verifier/evidence`` beside a folder given as ``.`` looks in the wrong place.
`absolute` makes the path absolute first, the way the user's shell sees it (``$PWD`` when it names the
working folder, so ``cd task/tests`` through a linked folder still has ``task`` as its parent; ``..`` taken
lexically, as ``cd ..`` does). `tidy_absolute` is the path a command prints and writes to (trial 22 P-2: ``--out
../out`` printed ``/tmp/x/tasks/../out``). `shown_parent` names the parent for messages, kept relative and short.
Standard library only."""

from __future__ import annotations

import os
from pathlib import Path


def working_folder() -> str:
    """The working folder as the shell names it: ``$PWD`` when it is absolute and the same folder as
    ``os.getcwd()`` (a path through a symbolic link stays as typed), else ``os.getcwd()``.

    Raises:
        OSError: the working folder is gone.
    """
    here = os.getcwd()
    logical = os.environ.get("PWD", "")
    try:
        if os.path.isabs(logical) and os.path.samefile(logical, here):
            return os.path.normpath(logical)
    except OSError:
        pass
    return here


def absolute(path: Path | str) -> Path:
    """`path` absolute and normalised (``.`` and ``..`` taken lexically, against `working_folder`), so that its
    ``.parent`` is the folder that holds it: ``absolute(".").parent`` is the working folder's parent.

    Raises:
        OSError: `path` is relative and the working folder is gone.
    """
    text = os.fspath(path)
    return Path(os.path.normpath(text if os.path.isabs(text) else os.path.join(working_folder(), text)))


def tidy_absolute(path: Path | str) -> Path:
    """`path` absolute with its ``.`` and ``..`` taken out (`absolute`) when that names the same place as the path
    the system opens, else ``Path(path).absolute()`` (``..`` kept): after a symbolic link the system's ``link/..``
    is the parent of the link's target, not the folder that holds the link. Symbolic links are never resolved,
    so a folder the user reached through a link keeps the name the user gave it.

    Raises:
        OSError: `path` is relative and the working folder is gone.
    """
    as_given = Path(path).absolute()
    tidy = absolute(path)
    return tidy if tidy == as_given or os.path.realpath(tidy) == os.path.realpath(as_given) else as_given


def parent_of(path: Path | str) -> Path:
    """The folder that holds `path`: ``Path(path).parent`` when the path ends in a name (so a relative path stays
    relative and readable in messages), else the parent of `absolute` (``.``, ``..``, ``tests/..``, ``""``).

    Raises:
        OSError: the parent of a relative ``.``/``..`` form is asked and the working folder is gone.
    """
    given = Path(path)
    if given.name and given.name != "..":
        return given.parent
    return absolute(given).parent


def shown_parent(shown: str) -> str:
    """How to name the parent of the folder the user spelled `shown`, for messages: ``"tests"`` → ``"."``,
    ``"task/tests"`` → ``"task"``, ``"."`` → ``".."``, ``".."`` → ``"../.."``, ``"/a/b"`` → ``"/a"``."""
    norm = os.path.normpath(shown) if shown else "."
    if norm == ".":
        return ".."
    if os.path.basename(norm) == "..":
        return f"{norm}/.."
    return os.path.dirname(norm) or "."


def close_sibling(path: Path | str, *, files: bool = False) -> Path | None:
    """The folder beside `path` spelled like it (``photo-dek`` → ``photo-deck``, ``deck/test`` → ``deck/tests``),
    or with `files` the regular file (``answers/god.txt`` → ``answers/good.txt``, trial 26 P-2), as a path the user
    can type (relative when `path` is), or None: when `path` exists, when no sibling of that kind is alike enough
    (difflib ratio 0.6), or when its parent cannot be read. Only reads; never raises."""
    import difflib

    given = Path(path)
    try:
        if given.exists() or not given.name or given.name == "..":
            return None
        parent = given.parent
        wanted = Path.is_file if files else Path.is_dir
        names = sorted(p.name for p in parent.iterdir() if wanted(p)) if parent.is_dir() else []
    except OSError:
        return None
    close = difflib.get_close_matches(given.name, names, n=1, cutoff=0.6)
    return parent / close[0] if close else None


NEAR_FILE_LOOKS = 300
"""How many entries of a folder `near_file` looks at (a tests/ folder holds a few; a huge one is not read through)."""


def near_file(folder: Path, expected: tuple[str, ...], *, skip: tuple[str, ...] = ()) -> tuple[Path, str] | None:
    """A regular file in `folder` named like one of the `expected` file names (a slip: ``rubrics.json`` for
    ``rubric.json``, ``judge-instruction.md`` for ``judge_instruction.md``; trial 41 P-5/P-6): the same suffix,
    a difflib ratio of at least 0.85 ignoring case, and not itself named in `expected` or `skip` (files the folder
    is meant to hold, such as ``task_prompt.md``). Returns ``(that file, the expected name it is like)``, the most
    alike first, or None. Looks at the first `NEAR_FILE_LOOKS` entries only; only reads; never raises."""
    import difflib
    import itertools

    best: tuple[float, str, str] | None = None
    try:
        with os.scandir(folder) as entries:
            for entry in itertools.islice(entries, NEAR_FILE_LOOKS):
                if entry.name in expected or entry.name in skip or not entry.is_file():
                    continue
                for want in expected:
                    if os.path.splitext(entry.name)[1].lower() != os.path.splitext(want)[1].lower():
                        continue
                    ratio = difflib.SequenceMatcher(None, entry.name.lower(), want.lower()).ratio()
                    if ratio >= 0.85 and (best is None or (ratio, entry.name) > best[:2]):
                        best = (ratio, entry.name, want)
    except OSError:
        return None
    return (Path(folder) / best[1], best[2]) if best else None


def task_above(path: Path | str) -> tuple[Path, int] | None:
    """The task a folder is inside: ``(the nearest folder above `path` holding task.toml, how many levels up)``, when
    `path` is a folder without a ``task.toml`` of its own (``t/solution`` → ``(t, 1)``, ``t/solution/output`` →
    ``(t, 2)``; trial 44 P-3), else None. Paths taken lexically (`absolute`). Only reads; never raises."""
    try:
        folder = Path(path)
        if not folder.is_dir() or (folder / "task.toml").exists():
            return None
        for levels, above in enumerate(absolute(folder).parents, start=1):
            if (above / "task.toml").is_file():
                return above, levels
    except OSError:
        return None
    return None


def in_task_folder(path: Path | str) -> bool:
    """`path` is a folder of a Harbor task (``tests/``, ``solution/``, ``solution/output/``…): a folder without a
    ``task.toml`` of its own with one in a folder above it (`task_above`; trial 32 P-1, trial 44 P-3). The one rule
    by which ``init``, ``try``, ``lint-rubric`` and ``gen-ppt-rubrics`` answer "did you mean <task>?" (the task
    named as `shown_task` names it). Only reads; never raises (an unreadable place is no task's folder)."""
    return task_above(path) is not None


def shown_task(path: Path | str, shown: str) -> str:
    """How to name the task folder holding the folder `path` (spelled `shown`), for messages: `shown_parent` taken
    once per level (`task_above`): ``"t/solution/output"`` → ``"t"``, ``"."`` two levels down → ``"../.."``; the
    parent (`shown_parent`) when `path` is inside no task. Never raises."""
    found = task_above(path)
    for _ in range(found[1] if found else 1):
        shown = shown_parent(shown)
    return shown


def task_part(path: Path | str) -> str | None:
    """Where the folder `path` sits inside its task (`task_above`), as a relative path: ``"solution"``,
    ``"solution/output"``, ``"tests"``; None when it is inside no task. Never raises."""
    try:
        found = task_above(path)
        inner = absolute(path).relative_to(absolute(found[0])).parts if found else ()
    except (OSError, ValueError):
        return None
    return "/".join(inner) or None


def not_tests_hint(path: Path | str, shown: str) -> str | None:
    """For ``lint-rubric`` and ``gen-ppt-rubrics`` (which take a task folder or its ``tests/``): ``"a task's
    solution/ folder, not its tests/: did you mean ..?"`` (``solution/output/`` for a folder deeper in, trial 44 P-3)
    when `path` (spelled `shown`) is a folder of a task (`task_part`) outside its ``tests/`` and holds no
    ``rubric.json`` (trial 32 P-1), else None. Never raises."""
    part = task_part(path)
    try:
        if part is None or part.split("/")[0] == "tests" or os.path.lexists(Path(path) / "rubric.json"):
            return None
    except OSError:
        return None
    return f"a task's {part}/ folder, not its tests/: did you mean {shown_task(path, shown)}?"


def tests_dir_hint(tests_dir: Path | str) -> str:
    """For ``cowork-judge run``, whose ``--tests-dir`` holds ``rubric.json`` (trial 39 P-4): ``": did you mean
    --tests-dir task/tests?"`` when `tests_dir` holds no ``rubric.json`` but its ``tests/`` does (the task folder
    given, as init, try and lint take it), ``": --tests-dir task/test does not exist: did you mean task/tests?"`` when
    it does not exist (`not_a_folder`'s wording), else ``""``. Only reads; never raises."""
    given = Path(tests_dir)
    try:
        if os.path.lexists(given / "rubric.json"):
            return ""
        if (given / "tests" / "rubric.json").is_file():
            return f": did you mean --tests-dir {given / 'tests'}? ({given} is the task folder)"
        if given.exists():
            return ""
    except OSError:
        return ""
    return f": --tests-dir {not_a_folder(given)}"


def _task_of_file(given: Path) -> str | None:
    """The task folder a file given for one names, as the user can type it: the file's folder when it holds
    ``task.toml``, its parent when the file's folder is a folder of a task (`in_task_folder`), else None."""
    folder = parent_of(given)
    if (folder / "task.toml").is_file():
        return str(folder)
    return shown_task(folder, str(given.parent)) if in_task_folder(folder) else None


def not_a_folder(path: Path | str, *, task: bool = False) -> str:
    """Why `path`, given where a command wants a folder (the task folder or its ``tests/``), is none, in one wording
    for ``init``, ``try``, ``lint-rubric`` and ``gen-ppt-rubrics`` (trial 24 P-2, trial 25 P-1), with a "did you
    mean" hint where one is sure: ``"… is the rubric file, not a folder: did you mean its folder task/tests?"``,
    ``"… does not exist: did you mean task/tests?"`` (a folder beside it spelled alike: `close_sibling`).
    With `task` (``init`` and ``try``, which take the task folder, trial 32 P-4) a file of a task names the task
    folder: ``"… is the rubric file, not a folder: did you mean the task folder task?"``.
    Only reads; never raises (an unreadable place gets the bare reason)."""
    given = Path(path)
    try:
        if given.is_file():
            parent = given.parent
            if task and (above := _task_of_file(given)):
                kind = "the rubric file" if given.name == "rubric.json" else "a file"
                return f"{given} is {kind}, not a folder: did you mean the task folder {above}?"
            if given.name == "rubric.json":
                return f"{given} is the rubric file, not a folder: did you mean its folder {parent}?"
            if (parent / "rubric.json").is_file():
                return f"{given} is a file, not a folder: did you mean its folder {parent}?"
            return f"{given} is a file, not a folder"
        if given.exists():
            return f"{given} is not a folder"
    except OSError:
        return f"{given} is not a folder"
    close = close_sibling(given)
    return f"{given} does not exist" + (f": did you mean {close}?" if close else "")


__all__ = ["absolute", "close_sibling", "in_task_folder", "near_file", "not_a_folder", "not_tests_hint", "tests_dir_hint", "parent_of", "shown_parent", "shown_task", "task_above", "task_part", "tidy_absolute", "working_folder"]
