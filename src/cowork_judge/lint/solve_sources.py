"""A007 (WARN): a task's ``solution/solve.sh`` copies from a ``/solution/<path>`` its ``solution/`` folder does
not hold (trial 35 P-6).

Harbor's oracle agent runs solve.sh in the container with the task's ``solution/`` folder at ``/solution``; a
``cp``/``mv`` whose source is missing there fails, and ``harbor run -a oracle`` scores the reference solution
"nothing delivered" — while the documented dry run (``try --rollout <task>/solution/output``) never reads solve.sh.
This is a text match over solve.sh's lines, not a run: a ``cp``/``mv`` command with an absolute ``/solution/…``
source; a line with ``$VAR``, a glob, a backquote or a line continuation is skipped, and so is ``cp -t``.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path, PurePosixPath

from cowork_judge._util.given_paths import parent_of, shown_parent
from cowork_judge.lint.codes import Finding
from cowork_judge.lint.task_files import SOLVE_SH

SOLUTION_MOUNT = "/solution/"
"""Where Harbor's oracle agent finds the task's ``solution/`` folder."""
MAX_LISTED = 2000
"""Files of ``solution/`` looked at for a near name (a larger folder is looked at in part)."""
_SEPARATORS = re.compile(r"&&|\|\||[;|&()]")
_SKIPPED = re.compile(r"[$*?\[`]|\\$")


def check_solve_sources(tests_dir: Path, display: str) -> list[Finding]:
    """A007: one finding per ``cp``/``mv`` source ``/solution/<path>`` of the task's solve.sh (the parent of
    `tests_dir`'s ``solution/solve.sh``) that is not under its ``solution/`` folder, naming the files there with
    the same name or suffix. [] when there is no readable solve.sh. `display` is `tests_dir` as shown."""
    solution = parent_of(tests_dir) / "solution"
    try:
        if not (solution / "solve.sh").is_file():  # a FIFO or a folder: never opened (a FIFO would block lint)
            return []
        with (solution / "solve.sh").open(encoding="utf-8", errors="replace") as handle:
            text = handle.read(1_000_000)
    except OSError:
        return []
    base = shown_parent(display)
    shown = SOLVE_SH if base == "." else f"{base}/{SOLVE_SH}"
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        for source in _copied_sources(line):
            rel = source[len(SOLUTION_MOUNT):]
            if rel.strip("/") and not os.path.lexists(solution / rel):
                out.append(Finding("A007", shown, _message(number, source, _near(solution, rel))))
    return out


def _copied_sources(line: str) -> list[str]:
    """The absolute ``/solution/…`` sources of the ``cp``/``mv`` commands on `line` ([] for a skipped line)."""
    if line.lstrip().startswith("#") or _SKIPPED.search(line):
        return []
    found = []
    for part in _SEPARATORS.split(line.split(" #", 1)[0]):
        try:
            words = shlex.split(part)
        except ValueError:
            continue
        words = words[1:] if words[:1] == ["sudo"] else words
        if words[:1] not in (["cp"], ["mv"]) or any(w.startswith(("-t", "--target")) for w in words):
            continue
        args = [w for w in words[1:] if not w.startswith("-")]
        found += [a for a in args[:-1] if a.startswith(SOLUTION_MOUNT)]
    return found


def _near(solution: Path, rel: str) -> list[str]:
    """Files under `solution` (relative, POSIX) with `rel`'s name, else with its suffix; at most 3."""
    want = PurePosixPath(rel.rstrip("/"))
    files: list[str] = []
    for root, _dirs, names in os.walk(solution):
        files += [Path(root, n).relative_to(solution).as_posix() for n in sorted(names)]
        if len(files) >= MAX_LISTED:
            break
    same = [f for f in files if PurePosixPath(f).name == want.name]
    if not same and want.suffix:
        same = [f for f in files if PurePosixPath(f).suffix == want.suffix]
    return sorted(same)[:3]


def _message(number: int, source: str, near: list[str]) -> str:
    holds = f" (it holds {', '.join(near)})" if near else ""
    return (f"line {number}: solve.sh copies {source}, which solution/ does not hold{holds}: `harbor run -a oracle` "
            "would deliver nothing there (a text match over solve.sh, not a run; docs/harbor-task.md step 6)")


__all__ = ["check_solve_sources"]
