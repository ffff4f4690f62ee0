"""A007 (WARN): a task's ``solution/solve.sh`` copies from a ``/solution/<path>`` its ``solution/`` folder does
not hold (trial 35 P-6).

Harbor's oracle agent runs solve.sh in the container with the task's ``solution/`` folder at ``/solution``; a
``cp``/``mv`` whose source is missing there fails, and ``harbor run -a oracle`` scores the reference solution
"nothing delivered" — while the documented dry run (``try --rollout <task>/solution/output``) never reads solve.sh.
This is a text match over solve.sh's lines, not a run (the parse is `install.solve_script.copy_commands`, which the
dry run reads too): a ``cp``/``mv`` command (``sudo`` allowed, the command word as written: not ``/bin/cp``) with an
absolute ``/solution/…`` source; a command on a line with ``$VAR``, a glob, a backquote or a line continuation is
skipped (a whole line, whatever else is on it), and so is ``cp -t``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath

from cowork_judge._util.given_paths import parent_of, shown_parent
from cowork_judge.install.solve_script import CopyCommand, copy_commands, read_solve_sh
from cowork_judge.lint.codes import Finding
from cowork_judge.lint.task_files import SOLVE_SH

SOLUTION_MOUNT = "/solution/"
"""Where Harbor's oracle agent finds the task's ``solution/`` folder."""
MAX_LISTED = 2000
"""Files of ``solution/`` looked at for a near name (a larger folder is looked at in part)."""
SOLVE_SH_CHARS = 1_000_000
"""How much of a solve.sh A007 reads, in characters."""
_SKIPPED = re.compile(r"[$*?\[`]|\\$")
"""A line holding one of these (a variable, a glob, a backquote) or ending in a line continuation is not read."""


def check_solve_sources(tests_dir: Path, display: str) -> list[Finding]:
    """A007: one finding per ``cp``/``mv`` source ``/solution/<path>`` of the task's solve.sh (the parent of
    `tests_dir`'s ``solution/solve.sh``) that is not under its ``solution/`` folder, naming the files there with
    the same name or suffix. [] when there is no readable solve.sh. `display` is `tests_dir` as shown."""
    solution = parent_of(tests_dir) / "solution"
    text = read_solve_sh(solution, limit=SOLVE_SH_CHARS)  # a FIFO or a folder: never opened (it would block lint)
    base = shown_parent(display)
    shown = SOLVE_SH if base == "." else f"{base}/{SOLVE_SH}"
    out = []
    lines = text.splitlines()
    for command in copy_commands(text):
        for source in _copied_sources(command, lines):
            rel = source[len(SOLUTION_MOUNT):]
            if rel.strip("/") and not os.path.lexists(solution / rel):
                out.append(Finding("A007", shown, _message(command.line, source, _near(solution, rel))))
    return out


def _copied_sources(command: CopyCommand, lines: list[str]) -> list[str]:
    """The absolute ``/solution/…`` sources of `command` when it is a ``cp``/``mv`` that A007 reads: on one line of
    solve.sh (its `lines`) that holds no ``$``, glob or backquote and ends in no continuation, without ``-t``."""
    if command.program not in ("cp", "mv") or command.line != command.end_line:
        return []
    if _SKIPPED.search(lines[command.line - 1]) or any(o.startswith(("-t", "--target")) for o in command.options):
        return []
    return [source for source in command.sources if source.startswith(SOLUTION_MOUNT)]


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
