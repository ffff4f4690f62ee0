"""File-system helpers shared by workspaces and evidence: hard links with a copy fallback, and
the run's scratch folders.

Every temporary folder the judge makes (its work dir, LibreOffice and Chromium profiles,
render folders) is made by `scratch_dir`/`make_scratch_dir`, which remember it, so that
every exit path that can — the normal end, SIGTERM, the watchdog's backstop — removes
them all with `remove_scratch` (``os._exit`` skips ``finally`` blocks and ``atexit``).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_scratch: set[Path] = set()
_scratch_lock = threading.Lock()


def make_scratch_dir(prefix: str, parent: Path | None = None) -> Path:
    """A new private temp folder (``mkdtemp``), remembered until `discard_scratch` or
    `remove_scratch`.

    Raises:
        OSError: it cannot be created.
    """
    path = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    with _scratch_lock:
        _scratch.add(path)
    return path


def discard_scratch(path: Path) -> None:
    """Remove one scratch folder now (never raises) and forget it."""
    shutil.rmtree(path, ignore_errors=True)
    with _scratch_lock:
        _scratch.discard(path)


@contextmanager
def scratch_dir(prefix: str, parent: Path | None = None) -> Iterator[Path]:
    """``with scratch_dir("cowork-judge-render-") as tmp:`` — a remembered temp folder,
    removed when the block ends."""
    path = make_scratch_dir(prefix, parent)
    try:
        yield path
    finally:
        discard_scratch(path)


def remove_scratch() -> int:
    """Remove every remembered scratch folder (an exiting process); returns how many."""
    with _scratch_lock:
        paths = list(_scratch)
        _scratch.clear()
    for path in paths:
        shutil.rmtree(path, ignore_errors=True)
    return len(paths)


def link_or_copy(source: Path, target: Path) -> None:
    """Hard-link `source` (a symlinked source is resolved first) to `target`, copying
    where linking fails (across devices, or where links are refused). Creates parents.

    Raises:
        OSError: neither a link nor a copy could be made.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    real = source.resolve()
    try:
        os.link(real, target)
    except OSError:
        shutil.copyfile(real, target)


def link_tree(source: Path, target: Path) -> int:
    """Mirror the directory `source` into `target` with hard links; returns the file count.

    Symlinks inside `source` are skipped (never followed: a planted link must not pull a
    file from outside into a judge workspace); existing targets are kept.
    """
    count = 0
    for dirpath, _dirnames, filenames in os.walk(source):
        here = Path(dirpath)
        dest = target / here.relative_to(source)
        dest.mkdir(parents=True, exist_ok=True)
        for name in filenames:
            src, dst = here / name, dest / name
            if src.is_symlink() or dst.exists():
                continue
            link_or_copy(src, dst)
            count += 1
    return count
