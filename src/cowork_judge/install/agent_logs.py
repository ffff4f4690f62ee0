"""What the judge reads of a rollout's ``logs/agent``, for ``cowork-judge try`` (trial 21 P-3).

The judge reads the agent's final message from three names in the agent logs dir and no other
(`core.layout.MESSAGE_NAMES`; JUDGE_RESPONSE_FILE aside), and init's ``[[verifier.collect]]`` hook
carries only those to a separate verifier. A rollout whose ``logs/agent`` holds the answer under
another name (``answer.txt``) is judged "nothing delivered": `unread_files` finds such files and
`unread_line` names them with the ``mv`` that fixes it. Reading only.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path, PurePosixPath

from cowork_judge.core.layout import ANSWER_NAMES, MESSAGE_NAMES, TRAJECTORY_NAME

AGENT_LOGS = PurePosixPath("/logs/agent")
"""The agent logs dir of a Harbor container."""
SHOWN = 3
"""Unread files `unread_line` names (the rest are counted)."""
MESSAGE_LIKE = (".txt", ".md", ".json")
"""Suffixes of a file `unread_line` takes for the misnamed final message before any other."""


def read_names(response_file: str | None) -> tuple[str, ...] | None:
    """The paths, relative to the agent logs dir, the judge reads a final message from there: `MESSAGE_NAMES`,
    and JUDGE_RESPONSE_FILE (`response_file`, a container path) when it lies below ``/logs/agent``. None when
    it lies elsewhere: the message is then looked for there first, not in the agent logs."""
    if not response_file:
        return MESSAGE_NAMES
    given = PurePosixPath(response_file)
    if not given.is_relative_to(AGENT_LOGS):
        return None
    return (*MESSAGE_NAMES, str(given.relative_to(AGENT_LOGS)))


def unread_files(folder: Path | None, response_file: str | None = None) -> list[str]:
    """The regular files directly in a rollout's agent logs `folder` (a host path) that the judge does not read,
    sorted by name, when `folder` holds none of the files it reads the final message from (`read_names`; one there
    as a link or a folder counts as held: the run and the hook name those themselves). [] when `folder` is None or
    not a folder, holds one of them, or JUDGE_RESPONSE_FILE lies outside ``/logs/agent``."""
    names = read_names(response_file)
    if folder is None or names is None or folder.is_symlink() or not folder.is_dir():
        return []
    if any(os.path.lexists(folder / name) for name in names):
        return []
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return []
    return [p.name for p in entries if p.is_file() and not p.is_symlink()]


def unread_line(folder: Path, unread: list[str], *, hook: bool, unseen: bool = False) -> str:
    """What `try` says of a rollout's agent logs `folder` (host path) holding only the `unread` files
    (`unread_files`, non-empty): they are not read, and the names that are; then the ``mv`` that makes the first
    message-like one (`MESSAGE_LIKE`) ``final_answer.txt`` (a ``.json`` one ``trajectory.json``, if it is ATIF), when
    there is one. `hook`: a separate verifier, which init's collect hook carries only those names to; `unseen`: a
    separate verifier that gets nothing of ``/logs/agent`` (no hook, no artifact there), said with the fix."""
    shown = ", ".join(unread[:SHOWN]) + (f" and {len(unread) - SHOWN} more file(s)" if len(unread) > SHOWN else "")
    carried = (" (init's [[verifier.collect]] hook carries only these to a separate verifier)" if hook
               else " (and this task's separate verifier gets none of them without init's [[verifier.collect]] hook: "
                    "run `cowork-judge init`)" if unseen else "")
    read = f"{', '.join(MESSAGE_NAMES[:-1])} or {MESSAGE_NAMES[-1]}"
    line = (f"the rollout's logs/agent ({folder}) holds {shown}, which the judge does not read: it reads the agent's "
            f"final message only from {read} there{carried}")
    first = next((n for n in unread if n.endswith(MESSAGE_LIKE)), None)
    if first is None:
        return line
    target = TRAJECTORY_NAME if first.endswith(".json") else ANSWER_NAMES[0]
    what = "the agent's ATIF trajectory" if target == TRAJECTORY_NAME else "the final message"
    return (f"{line}; if {first} is {what}, name it {target}: "
            f"mv {shlex.quote(str(folder / first))} {shlex.quote(str(folder / target))}")


__all__ = ["AGENT_LOGS", "read_names", "unread_files", "unread_line"]
