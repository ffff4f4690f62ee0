"""Deliverables left directly in a rollout's ``app/`` rather than ``app/output/``, for ``cowork-judge try`` (trial 35 P-4).

The judge reads the agent's deliverables from ``/app/output`` only. A container-layout rollout whose deck sits in
``app/`` (one folder level missing) is judged "no deck among the deliverables"; a separate verifier's line said only
that ``/app`` is not an artifact. `stray_files` finds such files and `stray_line` names them with the ``mv`` that
fixes it (the rollout's host paths, as the user gave them). Reading only.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from cowork_judge.evidence.kinds import is_deck_name

SHOWN = 3
"""Stray files `stray_line` names (the rest are counted)."""


def _holds_a_file(folder: Path) -> bool:
    """Whether `folder` (a host path) holds a file or a link anywhere below it (False: missing or empty)."""
    if folder.is_symlink() or folder.is_file():
        return True
    for _dir, dirs, files in os.walk(folder):
        if files or any((Path(_dir) / d).is_symlink() for d in dirs):
            return True
    return False


def stray_files(app: Path | None) -> list[str]:
    """The names of the regular files directly in a rollout's `app` folder (host path; hidden names skipped),
    decks first (`is_deck_name`), then by name, when its ``output/`` holds nothing (missing, or only empty
    folders): the delivery of such a rollout is empty, and these are what the agent likely meant to deliver.
    [] when `app` is None or not a folder, or ``output/`` holds a file or a link."""
    if app is None or app.is_symlink() or not app.is_dir() or _holds_a_file(app / "output"):
        return []
    try:
        entries = list(app.iterdir())
    except OSError:
        return []
    names = [p.name for p in entries if p.is_file() and not p.is_symlink() and not p.name.startswith(".")]
    return sorted(names, key=lambda n: (not is_deck_name(n), n))


def stray_line(app: Path, stray: list[str]) -> str:
    """What `try` says of the `stray` files (`stray_files`, non-empty) directly in the rollout's `app` folder: that
    they are outside ``app/output/``, and the ``mv`` (after a ``mkdir -p`` when ``output/`` is missing) that moves the
    first `SHOWN` of them there."""
    shown = ", ".join(f"app/{n}" for n in stray[:SHOWN]) + (
        f" … and {len(stray) - SHOWN} more file(s)" if len(stray) > SHOWN else "")
    output = app / "output"
    moves = " ".join(shlex.quote(str(app / n)) for n in stray[:SHOWN])
    mkdir = "" if output.is_dir() else f"mkdir -p {shlex.quote(str(output))} && "
    verb = "is" if len(stray) == 1 else "are"
    return (f"{shown} {verb} outside app/output/, where the agent's deliverables go (the judge reads nothing else of "
            f"/app): {mkdir}mv {moves} {shlex.quote(str(output))}/")


__all__ = ["SHOWN", "stray_files", "stray_line"]
