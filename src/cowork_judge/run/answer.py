"""The agent's final chat message (SPEC §6): JUDGE_RESPONSE_FILE, the ATIF trajectory, or a
plain answer file in the agent logs dir.

Reading never raises for bad agent output: a source that exists but cannot be read or
parsed is reported as unreadable (an unread answer is not an absent one), and the text
is repaired (`cowork_judge.safety.agent_text`) so it always encodes to UTF-8.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cowork_judge.safety.agent_text import BINARY_NOTE, decode_noting, looks_binary, repair, whole_characters
from cowork_judge.config.judge_config import JudgeConfig
from cowork_judge.core.layout import ANSWER_NAMES
from cowork_judge.run.paths import RunPaths
from cowork_judge.segment.trajectory import Trajectory, check_shape, hidden_answer, message_text, parse_trajectory
from cowork_judge.segment.trajectory import UnreadableMessage as UnreadableMessage  # re-exported: callers look here

MAX_MESSAGE_BYTES = 16 * 1024 * 1024
"""Bytes read of a plain answer file or JUDGE_RESPONSE_FILE: a larger one is judged on its first
`MAX_MESSAGE_BYTES` bytes, with a note (a read limit: the deliverable's doing, trial 6 F1)."""
MAX_TRAJECTORY_BYTES = 512 * 1024 * 1024
"""Largest trajectory.json parsed (bytes): long agent runs with tool output reach 100s of MB."""
ANSWER_FILES = ANSWER_NAMES
"""Plain answer files looked for in the agent logs dir, in order (`core.layout.ANSWER_NAMES`)."""


def final_message(paths: RunPaths, config: JudgeConfig) -> tuple[str | None, str | None, list[str], list[str]]:
    """The agent's final chat message, its source, notes, and unreadable sources
    (`agent_logs` without the trajectory)."""
    logs = agent_logs(paths, config)
    return logs.message, logs.source, logs.notes, logs.unreadable


@dataclass
class AgentLogs:
    """What the run reads of the agent's logs: its final message (`message`, from `source`),
    its ATIF trajectory parsed once (`trajectory`, None when absent or unreadable), the notes
    of the reading and the sources that exist but could not be read."""

    message: str | None = None
    source: str | None = None
    notes: list[str] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)
    trajectory: Trajectory | None = None
    cut: str | None = None
    """What of the message was not read (its source was over `MAX_MESSAGE_BYTES`: only its
    head is the message), for the text rows over the response; None: all of it was read."""
    binary: list[str] = field(default_factory=list)
    """Message files passed over as binary, not text (trial 12 F4), for the reason of a text row
    over the response that finds no message."""


def agent_logs(paths: RunPaths, config: JudgeConfig) -> AgentLogs:
    """The agent's final message and trajectory (`AgentLogs`).

    Message order: JUDGE_RESPONSE_FILE; ATIF ``trajectory.json`` (last ``source == "agent"`` step
    with non-empty text); ``final_answer.txt`` / ``response.txt`` in the agent logs dir.
    Symlinks and non-regular files are never read (the agent writes these files: a link
    to ``/proc/self/environ`` or to the reference answer must not become its answer).
    A trajectory that is empty (0 bytes: JSON cannot be empty, so it was cut or never
    finished), not JSON, not ATIF-shaped, or whose final agent message has a shape no ATIF
    version allows is recorded in `unreadable` (an unread answer is not an absent one), and
    the answer files are still looked at. An empty plain answer file (or
    JUDGE_RESPONSE_FILE) is an empty answer: plain text may be empty, so it is read as "no
    message there" and the next source is tried; so is one that is binary (a NUL byte in its
    first 8 KiB, no UTF-16/32 mark: not text, with a note naming it). The text is repaired
    (`agent_text.repair`): a lone surrogate (half an emoji) becomes U+FFFD.

    A JUDGE_RESPONSE_FILE in the task's tests/ folder is refused, unread (`response_file_in_tests`).
    The trajectory is read (once) even when JUDGE_RESPONSE_FILE gives the message, for the
    rows about what the agent did; then a trajectory that cannot be read only leaves a note.
    """
    logs = AgentLogs()
    t_notes: list[str] = []
    t_unreadable: list[str] = []
    t_text = _trajectory(paths, logs, t_notes, t_unreadable)
    if config.response_file and (refused := response_file_in_tests(Path(config.response_file), paths.tests_dir)):
        logs.notes.append(refused)
        logs.unreadable.append(f"JUDGE_RESPONSE_FILE={config.response_file}")
    elif config.response_file:
        if not os.path.lexists(config.response_file):
            logs.notes.append(f"JUDGE_RESPONSE_FILE={config.response_file} does not exist; the final message is looked "
                              "for in the agent logs instead")
        cut: list[str] = []
        text = _read_text(Path(config.response_file), logs.notes, logs.unreadable, MAX_MESSAGE_BYTES, cut=cut,
                          binary=logs.binary)
        if text:
            logs.notes.extend(t_notes)
            logs.message, logs.source, logs.cut = text, "response_file", cut[0] if cut else None
            return logs
    logs.notes.extend(t_notes)
    logs.unreadable.extend(t_unreadable)
    if t_text:
        logs.message, logs.source = t_text, "trajectory"
        return logs
    for name in ANSWER_FILES:
        unread: list[str] = []
        text = _read_text(paths.agent_dir / name, logs.notes, logs.unreadable, MAX_MESSAGE_BYTES, cut=unread,
                          binary=logs.binary)
        if text:
            logs.message, logs.source, logs.cut = text, name, unread[0] if unread else None
            return logs
    return logs


def response_file_in_tests(response_file: Path, tests_dir: Path) -> str | None:
    """Why JUDGE_RESPONSE_FILE `response_file` is refused (trial 13 L3), or None: it lies in the task's tests/
    folder `tests_dir` (both resolved, links followed) — the verifier's own files, the rubric and the reference
    answers, which read as the agent's answer would be judged as its work. A refused file is unread, never
    "no message": the run does not score "nothing delivered" on top of it."""
    try:
        inside = response_file.resolve().is_relative_to(tests_dir.resolve())
    except (OSError, RuntimeError):
        return None
    if not inside:
        return None
    return (f"JUDGE_RESPONSE_FILE={response_file} is in the task's tests/ folder ({tests_dir}: the verifier's own "
            "files, such as the rubric): not read as the agent's final message (point it at the agent's answer, "
            "e.g. under /logs/agent/); the final message is looked for in the agent logs instead")


def _trajectory(paths: RunPaths, logs: AgentLogs, notes: list[str], unreadable: list[str]) -> str | None:
    """Read ``trajectory.json`` once: set ``logs.trajectory`` and return its final message."""
    raw = _read_text(paths.agent_dir / "trajectory.json", notes, unreadable, MAX_TRAJECTORY_BYTES)
    if raw == "":  # a JSON document is never empty: a trajectory cut before its first byte, not "no answer"
        notes.append("trajectory.json is empty (0 bytes or only white space): not an ATIF trajectory")
        unreadable.append("trajectory.json")
        return None
    if raw is None:
        return None
    try:
        doc = json.loads(raw)
        logs.trajectory = parse_trajectory(doc, clean=repair)
        return atif_final_message(doc)
    except (ValueError, RecursionError) as exc:  # UnreadableMessage is a ValueError
        what = str(exc)[:400] if isinstance(exc, UnreadableMessage) else f"is not valid JSON: {str(exc)[:200]}"
        notes.append(f"trajectory.json {what}")
        unreadable.append("trajectory.json")
        return None


def atif_final_message(doc: Any) -> str | None:
    """Final answer of an ATIF (v1.0–v1.8) trajectory document, or None when the agent
    gave none.

    The answer is the ``message`` of the last step with ``source == "agent"`` whose text
    is non-empty; ``message`` is a string or a list of ``{"type": "text", "text": …}``
    parts (other part types, e.g. images, carry no text). Steps without a message (only
    tool calls) and steps with empty text are skipped. The text is repaired
    (`agent_text.repair`). Read with the judge's one ATIF reader (`segment.trajectory`).

    Raises:
        UnreadableMessage: the document is not ATIF-shaped (not an object, ``steps``
            missing or not a list), or the LAST agent step that has a message holds it in
            another shape (an object such as ``{"text": …}``, a number, a text part whose
            text is not a string…), or a step after the final message's (or any step, when
            none gave one) is not valid ATIF in a way that may hide the answer
            (`segment.trajectory.hidden_answer`: a source other than ``system``/``user``/
            ``agent``, ``content`` in place of an agent step's ``message``; trial 21 P-4). An
            earlier message is never taken in its place: it is not the final answer.
    """
    steps = check_shape(doc)
    text, final = None, None
    for n in range(len(steps) - 1, -1, -1):
        step = steps[n]
        if not isinstance(step, dict) or step.get("source") != "agent" or step.get("message") is None:
            continue
        text = message_text(step["message"], n, clean=repair)
        if text:
            final = n
            break
    hidden = hidden_answer(steps, final)
    if hidden:
        raise UnreadableMessage(hidden)
    return text


def _read_text(path: Path, notes: list[str], unreadable: list[str], limit: int, *,
               cut: list[str] | None = None, binary: list[str] | None = None) -> str | None:
    """Text of a regular, non-symlink file, stripped ("" when it holds nothing but white
    space, None when absent or unread); up to `limit` bytes, undecodable bytes as U+FFFD.

    A file that exists but is a link, not regular or unreadable is recorded in `unreadable`
    and `notes`; so is one over `limit` unless `cut` is given: then its first `limit` bytes
    are the text (a character cut in two at the limit is left out), a note says so and `cut`
    receives what was not read (trial 6 F1: a read limit is the deliverable's doing, never
    an unreadable message that masks the sample). With `binary` (a final message, not the
    trajectory) a binary file (`agent_text.looks_binary`, the deliverables' rule) is not text:
    a note says so, `binary` receives its name and None is returned, as for a link — nothing
    to read, NOT "unreadable" (trial 12 F4: a zip's bytes read with U+FFFD were counted and
    searched as the message).
    """
    try:
        st = path.lstat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        notes.append(f"{path.name} cannot be read: {exc.strerror or exc}")
        unreadable.append(path.name)
        return None
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISREG(st.st_mode):
        # planted by the agent (a link to /proc/self/environ, a FIFO): ignored, and NOT
        # "unreadable" — that would mask the rollout instead of scoring what it delivered
        notes.append(f"{path.name} is {'a symlink' if stat.S_ISLNK(st.st_mode) else 'not a regular file'}; ignored")
        return None
    if st.st_size > limit and cut is None:
        notes.append(f"{path.name} is {st.st_size} bytes, more than the {limit} bytes read; not read")
        unreadable.append(path.name)
        return None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        notes.append(f"{path.name} cannot be read: {exc.strerror or exc}")
        unreadable.append(path.name)
        return None
    if binary is not None and looks_binary(data):  # trial 12 F4: one reader, as for a deliverable: not text
        notes.append(f"{path.name} is binary, not text ({BINARY_NOTE}): not read as the agent's final message")
        binary.append(path.name)
        return None
    if len(data) > limit and cut is not None:
        data = whole_characters(data[:limit])
        notes.append(f"{path.name} is {st.st_size} bytes, more than the {limit} bytes ({limit // (1 << 20)} MiB) read of a "
                     f"final message: its first {limit} bytes are judged (a read limit, the deliverable's doing)")
        cut.append(f"the final message ({path.name}) was read only up to {len(data)} of its {st.st_size} bytes")
    text, undecodable = decode_noting(data)  # a byte-order mark is honoured, as for every deliverable (trial 11 F4)
    if undecodable is not None:  # trial 3 L2: never a silent replacement character
        notes.append(f"{path.name} is {undecodable}: read with U+FFFD in place of the undecodable bytes")
    return text.strip()
