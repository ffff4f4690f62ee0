"""File-system helpers shared by workspaces and evidence: hard links with a copy fallback."""

from __future__ import annotations

import os
import shutil
from pathlib import Path


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
