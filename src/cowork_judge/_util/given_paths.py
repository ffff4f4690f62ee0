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


def not_a_folder(path: Path | str) -> str:
    """Why `path`, given where a command wants a folder (the task folder or its ``tests/``), is none, in one wording
    for ``init``, ``try``, ``lint-rubric`` and ``gen-ppt-rubrics`` (trial 24 P-2, trial 25 P-1), with a "did you
    mean" hint where one is sure: ``"… is the rubric file, not a folder: did you mean its folder task/tests?"``,
    ``"… does not exist: did you mean task/tests?"`` (a folder beside it spelled alike: `close_sibling`).
    Only reads; never raises (an unreadable place gets the bare reason)."""
    given = Path(path)
    try:
        if given.is_file():
            parent = given.parent
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


__all__ = ["absolute", "close_sibling", "not_a_folder", "parent_of", "shown_parent", "tidy_absolute", "working_folder"]
