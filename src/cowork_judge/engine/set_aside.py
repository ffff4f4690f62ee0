"""What an earlier run's tools derived from its result, moved out of the verifier folder before a
new run writes its own (trial 13 F4).

``cowork-judge report`` and ``rescore`` write beside a run's ``result.json`` (``report.html``,
``result.rescored.json``, or any name given by ``report --out`` / ``rescore --name``). A run
rewrites its own files (`core.layout.JUDGE_FILE_NAMES`) but not those: a reader of a folder
judged again saw the earlier run's page and rescored document beside the new result. They are
moved (never deleted) to ``<logs>/verifier/set-aside/`` — a name already there gets a numbered
suffix, as ``batch`` does (`batch.outdir.set_aside_foreign`) — and the run says so in
``details.warnings``. Anything else in the folder (Harbor's ``test-stdout.txt``, a reviewer's
notes) is left where it is: the run does not remove the folder, so nothing else is stale.

Cost: one listing of the verifier folder; only a regular ``*.json`` / ``*.html`` file that is
not the judge's own is opened, and only its first bytes are read.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from cowork_judge.core.layout import JUDGE_FILE_NAMES, REPORT_PAGE_NAME, RESCORED_NAME, SET_ASIDE_DIR, VerifierLayout

DERIVED_NAMES = frozenset({REPORT_PAGE_NAME, RESCORED_NAME})
"""The default names of ``report``'s page and ``rescore``'s document: set aside whatever they hold."""
RESULT_MARK = b'"schema": "cowork-judge/'
"""The first key of every document a cowork-judge tool writes (a result, a rescored result, a
summary): ``rescore --name`` documents are told by it."""
PAGE_MARK = b'<meta name="generator" content="cowork-judge '
"""The generator tag of every page a cowork-judge tool writes (``fleet/templates/page.html``):
``report --out`` pages are told by it."""
SNIFF_BYTES = {".json": 256, ".html": 4096, ".htm": 4096}
"""How much of a file of each suffix is read to tell whether a cowork-judge tool wrote it."""


def _sniffed(path: Path, suffix: str) -> bool:
    """Whether the regular file at `path` begins as a cowork-judge tool's document or page."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return False
    try:
        head = os.read(fd, SNIFF_BYTES[suffix])
    except OSError:
        return False
    finally:
        os.close(fd)
    return (RESULT_MARK if suffix == ".json" else PAGE_MARK) in head


def derived_files(verifier_dir: Path) -> list[Path]:
    """The regular files (not links) at the top of `verifier_dir` that a tool derived from an
    earlier run's result: `DERIVED_NAMES`, and any other ``*.json`` / ``*.html`` that is not one
    of the judge's own files and begins as a cowork-judge document or page. Sorted by name; []
    when the folder cannot be listed."""
    try:
        entries = sorted(os.scandir(verifier_dir), key=lambda e: e.name)
    except OSError:
        return []
    found = []
    for entry in entries:
        name = entry.name
        suffix = os.path.splitext(name)[1].lower()
        if name in JUDGE_FILE_NAMES or (name not in DERIVED_NAMES and suffix not in SNIFF_BYTES):
            continue
        try:
            if not stat.S_ISREG(entry.stat(follow_symlinks=False).st_mode):
                continue
        except OSError:
            continue
        if name in DERIVED_NAMES or _sniffed(Path(entry.path), suffix):
            found.append(Path(entry.path))
    return found


def _free_name(folder: Path, name: str) -> Path:
    dest, n = folder / name, 1
    while os.path.lexists(dest):
        dest, n = folder / f"{name}.{n}", n + 1
    return dest


def set_aside_derived(layout: VerifierLayout) -> str | None:
    """Move `derived_files` of the verifier folder into ``set-aside/`` under it.

    Returns:
        The line for ``details.warnings`` naming what was moved and where (or, when
        ``set-aside`` is a link or not a folder, what was left and why: nothing is moved through
        a link, nothing is deleted); None when there was nothing to move.
    """
    found = derived_files(layout.verifier_dir)
    if not found:
        return None
    target = layout.verifier_dir / SET_ASIDE_DIR
    names = ", ".join(p.name for p in found)
    said = "written by report/rescore from an earlier run's result, not rewritten by this run"
    if os.path.islink(target) or (os.path.lexists(target) and not target.is_dir()):
        return (f"verifier folder: {names} ({said}) left beside this run's result: {target} is a symbolic link or not a "
                "folder, so nothing was moved there; remove them, or that entry, by hand")
    moved, left = [], []
    try:
        target.mkdir(exist_ok=True)
    except OSError:
        left = [p.name for p in found]
    for path in found if not left else ():
        try:
            os.rename(path, _free_name(target, path.name))
            moved.append(path.name)
        except OSError:
            left.append(path.name)
    if not moved:
        return f"verifier folder: {names} ({said}) could not be moved to {target}: still beside this run's result"
    return (f"verifier folder: moved {', '.join(moved)} ({said}) to {target}"
            + (f"; could not move {', '.join(left)}: still beside this run's result" if left else ""))
