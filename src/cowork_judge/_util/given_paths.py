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


__all__ = ["absolute", "parent_of", "shown_parent", "tidy_absolute", "working_folder"]
