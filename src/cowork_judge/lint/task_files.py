"""Checks of the task folder around ``tests/`` (trial 17): the judge's copy of the task, the reference solution.

- **A005 (WARN)**: ``tests/task_prompt.md`` (what the judge is told the task was) and the task's
  ``instruction.md`` (what the agent is asked) both exist and differ, whitespace aside: the task was
  edited on one side after the copy (harbor-task.md step 2 makes it a manual ``cp``).
- **A006 (WARN)**: a chat task (`looks_like_chat`: the heuristic of M006) whose ``solution/solve.sh``
  (with the solution scripts it names) writes no file the judge reads a final message from under ``/logs/agent``
  (`core.layout.MESSAGE_NAMES`, or JUDGE_RESPONSE_FILE's name): Harbor's oracle agent keeps what
  solve.sh prints in ``/logs/agent/oracle.txt``, and a file of another name under ``/logs/agent``
  (``answer.txt``, trial 21 P-3) is not read either, so the reference solution is judged "nothing
  delivered". The finding names what it writes under ``/logs/agent`` when it can tell (`written_under_agent_logs`).

Both read files only, never run anything, and look at the task folder as the parent of ``tests/``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from cowork_judge.code_methods import task_kind
from cowork_judge._util.given_paths import parent_of, shown_parent
from cowork_judge.core.layout import MESSAGE_NAMES, TASK_PROMPT_NAME
from cowork_judge.install.solve_script import copy_commands
from cowork_judge.lint.codes import Finding
from cowork_judge.run.instruction import read_judge_text

INSTRUCTION_FILE = "instruction.md"
"""The agent's copy of the task, in the task folder (Harbor's)."""
SOLVE_SH = "solution/solve.sh"
"""The reference solution Harbor's oracle agent runs, relative to the task folder."""
CHAT_PROMPTS = (TASK_PROMPT_NAME, f"../{INSTRUCTION_FILE}")
"""The task's prompt files `prompt_names_deliverable` reads (under ``tests/``), for a mention of a deliverable."""
FINAL_MESSAGE_CUES = MESSAGE_NAMES
"""What a solve.sh that leaves a final message names: a file the judge reads it from in the agent logs dir
(`core.layout.MESSAGE_NAMES`), as a whole name (``my_response.txt`` is not ``response.txt``). JUDGE_RESPONSE_FILE's
name, when task.toml sets it, is added. The bare folder ``logs/agent`` is not one (trial 21 P-3: a solve.sh writing
``/logs/agent/answer.txt`` passed)."""
AGENT_LOGS = "/logs/agent"
"""The agent logs dir of a Harbor container, where solve.sh leaves the final message."""
_WRITTEN_PATH = re.compile(r"logs/agent/+([\w.\-/]*[\w.\-])")
"""A path below the agent logs dir, its tail captured (``/logs/agent/answer.txt`` → ``answer.txt``)."""
_COPIED_INTO = re.compile(r"\b(?:cp|mv|install)\s+(?:-\S+\s+)*[\"']?([^\s\"';&|]+?)[\"']?\s+[\"']?/logs/agent/?[\"']?(?=\s|$|[;&|)])",
                          re.MULTILINE)
"""A copy into the agent logs dir itself (``cp /solution/answer.txt /logs/agent/``), its source captured: the file keeps that name."""
_AGENT_LOGS_VAR = re.compile(r"\b([A-Za-z_]\w*)=[\"']?/logs/agent/?[\"']?(?=\s|$|;)", re.MULTILINE)
"""A shell variable set to the agent logs dir (``DIR=/logs/agent``), its name captured."""
_CD_AGENT_LOGS = re.compile(r"\bcd\s+[\"']?/logs/agent/?[\"']?(?=\s|$|[;&|)])", re.MULTILINE)
"""A ``cd`` into the agent logs dir: a bare name written after it lands there."""
_MAKES_FOLDER = re.compile(r"(?:^|[;&|(]|\bthen|\bdo)\s*mkdir\b[^;&|\n]*$")
"""The text before a path on its line ends in a ``mkdir`` command: the path is a folder made, not a file written."""
SCRIPT_SUFFIXES = (".sh", ".py", ".js", ".ts", ".rb", ".pl", ".bash")
"""Files under ``solution/`` read with solve.sh when solve.sh names them (a solve.sh that runs ``solve.py``)."""
MAX_SCRIPT_BYTES = 1 << 20
"""Bytes read of each solution script (a larger one is read in part)."""


def locates_files(row: Any) -> bool:
    """A rubric row (`lint.document.Row`) that finds or reads deliverable files: a workflow row (but an
    ``answer_match`` or ``trajectory_judge`` one: `task_kind.MESSAGE_WORKFLOWS`), a code row of a non-text method,
    or a text code row with a ``glob``/``path`` (`code_methods.task_kind.locates_files`, the rule the run's
    delivery warning follows too)."""
    return task_kind.locates_files([_shape(row)])


def _shape(row: Any) -> task_kind.RowShape:
    """The `task_kind.RowShape` of a `lint.document.Row`."""
    return task_kind.shape_of(row.method, row.get("code_method_name"), row.get("workflow_name"),
                              row.get("code_method_params"))


def prompt_names_deliverable(tests_dir: Path) -> bool:
    """One of the task's prompts (`CHAT_PROMPTS`, read as the run reads them) names a deliverable
    (`code_methods.task_kind.DELIVERABLE_CUES`)."""
    for name in CHAT_PROMPTS:
        prompt, _ = read_judge_text(tests_dir / name)  # as the run reads it (a UTF-16 mark honoured)
        if prompt is not None and task_kind.names_deliverable(prompt):
            return True
    return False


def looks_like_chat(doc: Any, tests_dir: Path) -> bool:
    """The task looks like a chat task (M006's heuristic, `code_methods.task_kind.looks_like_chat_task`): a rubric
    (`lint.document.RubricDoc`) none of whose rows locates a file (`locates_files`), and either an ``answer_match``
    row (it judges the final message) or prompts that name no deliverable (`prompt_names_deliverable`)."""
    if doc is None:
        return False
    shapes = [_shape(r) for r in doc.rows if isinstance(r.raw, Mapping)]
    if not shapes or task_kind.locates_files(shapes):
        return False
    return task_kind.judges_answer(shapes) or not prompt_names_deliverable(tests_dir)


def check_prompt_copy(tests_dir: Path, display: str) -> list[Finding]:
    """A005: ``tests/task_prompt.md`` and ``../instruction.md`` are both readable text and differ once runs of
    whitespace are made one space (line endings, indentation and a trailing newline are not drift). The
    finding names the file edited last and the ``cp`` that makes them one. [] otherwise (a missing or
    unreadable file is A004's business, or no task folder)."""
    prompt_path, instruction_path = tests_dir / TASK_PROMPT_NAME, parent_of(tests_dir) / INSTRUCTION_FILE
    prompt, _ = read_judge_text(prompt_path)
    instruction, _ = read_judge_text(instruction_path)
    if prompt is None or instruction is None or _squeezed(prompt) == _squeezed(instruction):
        return []
    newer = _newer(instruction_path, prompt_path)
    edited = {True: f"{INSTRUCTION_FILE} was changed last", False: f"tests/{TASK_PROMPT_NAME} was changed last",
              None: "they were changed at the same time"}[newer]
    return [Finding("A005", f"{display}/{TASK_PROMPT_NAME}",
                    f"differs from {_instruction_shown(display)} ({edited}; first difference: "
                    f"{_first_difference(instruction, prompt)}): the agent is asked one task and the judge told another; "
                    f"copy the agent's text: {copy_command(display)} (or the other way if the judge's copy "
                    "holds the edit), then re-run lint-rubric")]


def _instruction_shown(display: str) -> str:
    base = shown_parent(display)
    return f"{'' if base == '.' else f'{base}/'}{INSTRUCTION_FILE}"


def copy_command(display: str) -> str:
    """The ``cp`` that copies the task's ``instruction.md`` (the agent's text) to the judge's ``task_prompt.md``, for
    the tests folder the user spelled `display`: ``"chat/tests"`` → ``"`cp chat/instruction.md chat/tests/task_prompt.md`"``
    (backquoted, as A005 and A004 print it)."""
    return f"`cp {_instruction_shown(display)} {display}/{TASK_PROMPT_NAME}`"


def prompt_copy_fix(tests_dir: Path, display: str) -> str:
    """What A004 appends for a missing or empty ``task_prompt.md`` (trial 19 P-6): ``"; copy the agent's text: `cp …`,
    then re-run lint-rubric"`` when the task's ``instruction.md`` next to `tests_dir` is readable, non-empty text;
    "" otherwise (no task folder around the tests folder, or nothing to copy)."""
    instruction, _ = read_judge_text(parent_of(tests_dir) / INSTRUCTION_FILE)
    if instruction is None or not instruction.strip():
        return ""
    return f"; copy the agent's text: {copy_command(display)}, then re-run lint-rubric"


def _squeezed(text: str) -> str:
    return " ".join(text.split())


def _newer(a: Path, b: Path) -> bool | None:
    """True when `a` was modified after `b`, False before, None at the same time (or unknown)."""
    try:
        ta, tb = os.stat(a).st_mtime_ns, os.stat(b).st_mtime_ns
    except OSError:
        return None
    return None if ta == tb else ta > tb


def _first_difference(a: str, b: str) -> str:
    """Where the whitespace-squeezed texts first differ, as ``instruction.md "…" vs task_prompt.md "…"``."""
    sa, sb = _squeezed(a), _squeezed(b)
    at = next((i for i, (x, y) in enumerate(zip(sa, sb)) if x != y), min(len(sa), len(sb)))
    start = max(0, at - 20)
    return (f"{INSTRUCTION_FILE} \"{sa[start:at + 30]}\" vs {TASK_PROMPT_NAME} \"{sb[start:at + 30]}\"")


def check_solution(tests_dir: Path, display: str, doc: Any, response_file: str | None) -> list[Finding]:
    """A006: the chat task's (`looks_like_chat`) ``solution/solve.sh``, with the solution scripts it names
    (`SCRIPT_SUFFIXES`), writes none of `FINAL_MESSAGE_CUES` under ``/logs/agent`` (`writes_message`; nor names `response_file`,
    JUDGE_RESPONSE_FILE as task.toml sets it): what it prints, or writes under another name, is not a final message,
    so ``harbor run -a oracle`` is judged nothing delivered. The finding names what it writes under ``/logs/agent``
    (`written_under_agent_logs`). [] when there is no solve.sh, it cannot be read, it holds no command (Harbor's
    template: no solution yet), or the task is not a chat task."""
    solve = parent_of(tests_dir) / SOLVE_SH
    text = _read_script(solve)
    if text is None or not _commands(text) or not looks_like_chat(doc, tests_dir):
        return []  # no command: Harbor's template, a solution not written yet (not the pitfall)
    texts = [text, *(t for t in (_read_script(p) for p in _named_scripts(solve.parent, text)) if t is not None)]
    if any(writes_message(t, FINAL_MESSAGE_CUES) for t in texts) or (
            response_file and any(names_file(t, Path(response_file).name) for t in texts)):
        return []
    base = shown_parent(display)
    shown = SOLVE_SH if base == "." else f"{base}/{SOLVE_SH}"
    mentions = any(AGENT_LOGS.lstrip("/") in t for t in texts)
    source = answer_source(solve.parent, text)
    return [Finding("A006", shown, solution_problem(written_under_agent_logs(texts), mentions, response_file,
                                                    source))]


ANSWER_NAMES = ("final_answer.txt", "response.txt")
"""Files beside solve.sh taken as the reference answer when solve.sh names none (`answer_source`)."""


def answer_source(solution: Path, text: str) -> str:
    """The file A006's fix copies (trial 43 P-3): the first ``/solution/<file>`` that solve.sh `text` copies or
    prints (`copy_commands`: ``cat /solution/final_answer.txt``) and `solution` (the ``solution/`` folder) holds as
    a regular file, else the first of `ANSWER_NAMES` there, as ``/solution/<file>``; "" when there is neither."""
    for command in copy_commands(text):
        for word in command.sources:
            rest = word.removeprefix("/solution/")
            if rest != word and rest and ".." not in rest.split("/") and (solution / rest).is_file():
                return word
    return next((f"/solution/{name}" for name in ANSWER_NAMES if (solution / name).is_file()), "")


def names_file(text: str, name: str) -> bool:
    """`text` names the file `name` as a whole name: not inside a longer one (``my_response.txt``,
    ``final_answer.txt.bak``), a path before it allowed (``"$DIR/final_answer.txt"``)."""
    return re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w.-])", text) is not None


def writes_message(text: str, names: tuple[str, ...] | list[str]) -> bool:
    """`text` writes one of `names` under ``/logs/agent``, as far as its text says (trial 27 P-3: a mere mention
    of ``final_answer.txt``, the source of ``cat /solution/final_answer.txt`` or of a ``cp`` to another name, is
    not a write): a path below the folder ending in the name (``> /logs/agent/final_answer.txt``,
    ``cp X /logs/agent/final_answer.txt``, ``tee …``, ``open('/logs/agent/final_answer.txt', 'w')``), a
    ``cp``/``mv`` into the folder of a file of that name, the name joined to the folder
    (``os.path.join("/logs/agent", "final_answer.txt")``), the name below a variable set to the folder
    (``DIR=/logs/agent`` … ``"$DIR/final_answer.txt"``), or a redirect/``tee`` to the bare name after a
    ``cd /logs/agent``."""
    folders = [r"logs/agent/+(?:[\w.\-]+/+)*", *(rf"\$\{{?{re.escape(v)}\}}?/+(?:[\w.\-]+/+)*"
                                                 for v in _AGENT_LOGS_VAR.findall(text))]
    moved = {PurePosixPath(m.group(1)).name for m in _COPIED_INTO.finditer(text)}
    in_folder = _CD_AGENT_LOGS.search(text) is not None
    for name in names:
        whole = rf"{re.escape(name)}(?![\w.-])"
        if name in moved or any(re.search(f + whole, text) for f in folders):
            return True
        if re.search(rf"logs/agent/?[\"']\s*(?:,|\)\s*/)\s*[\"']{whole}", text):
            return True
        if in_folder and re.search(rf"(?:>>?|\btee\s+(?:-a\s+)?)\s*[\"']?(?:\./)?{whole}", text):
            return True
    return False


def written_under_agent_logs(texts: list[str]) -> list[str]:
    """The files the scripts `texts` write under ``/logs/agent``, as far as their text says: each path below it
    (``/logs/agent/answer.txt`` → ``answer.txt``; not one a ``mkdir`` on its line makes) and the name a ``cp``/``mv``
    into the folder itself keeps (``cp /solution/answer.txt /logs/agent/`` → ``answer.txt``). In order, once each;
    [] when none can be told (``"$DIR/answer.txt"``)."""
    found: list[str] = []
    for text in texts:
        for m in _WRITTEN_PATH.finditer(text):
            line = text[text.rfind("\n", 0, m.start()) + 1:m.start()]
            if not _MAKES_FOLDER.search(line):
                found.append(m.group(1))
        found.extend(PurePosixPath(m.group(1)).name for m in _COPIED_INTO.finditer(text))
    return [name for name in dict.fromkeys(found) if name]


def solution_problem(written: list[str], mentions_logs: bool, response_file: str | None, source: str = "") -> str:
    """A006's message: what the reference solution does (`written`: the files it writes under ``/logs/agent``;
    `mentions_logs`: it names that folder at all), the files the judge reads, and the fix (copying `source`, the
    answer file `answer_source` found, else a placeholder ``/solution/answer.txt``)."""
    read = f"{AGENT_LOGS}/{', '.join(MESSAGE_NAMES[:-1])} or {MESSAGE_NAMES[-1]}"
    first = f", and JUDGE_RESPONSE_FILE ({response_file}) before them" if response_file else ""
    shown = ", ".join(f"{AGENT_LOGS}/{name}" for name in written[:3]) + (" …" if len(written) > 3 else "")
    prints = ""
    if written:
        what = f"writes {shown}, which the judge does not read"
        fix = f"write {AGENT_LOGS}/{MESSAGE_NAMES[1]} instead of {AGENT_LOGS}/{written[0]}"
    else:
        what = (f"names {AGENT_LOGS} but no file the judge reads there" if mentions_logs
                else f"never writes under {AGENT_LOGS}")
        prints = ", and what solve.sh prints goes to Harbor's oracle.txt, which it does not read"
        fix = (f"write the answer there, e.g. `mkdir -p {AGENT_LOGS} && cp {source or '/solution/answer.txt'} "
               f"{AGENT_LOGS}/{MESSAGE_NAMES[1]}`")
    return (f"this chat task's reference solution {what}: the judge reads the final message only from {read} "
            f"(the files init's [[verifier.collect]] hook carries to a separate verifier){first}{prints}, so "
            f"`harbor run -a oracle` is judged nothing delivered; {fix} (docs/harbor-task.md step 6; --ignore A006 "
            "if a script it runs writes one of them)")


def _commands(text: str) -> bool:
    """`text` holds a line that is neither blank nor a comment (Harbor's template solve.sh holds none)."""
    return any(line.strip() and not line.lstrip().startswith("#") for line in text.splitlines())


def _read_script(path: Path) -> str | None:
    """The first `MAX_SCRIPT_BYTES` of a regular file as text (undecodable bytes replaced), None when unreadable."""
    try:
        if not path.is_file():
            return None
        with open(path, "rb") as f:
            return f.read(MAX_SCRIPT_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None


def _named_scripts(folder: Path, text: str) -> list[Path]:
    """The scripts (`SCRIPT_SUFFIXES`) directly under `folder` (``solution/``) whose name `text` mentions."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    return [folder / n for n in names if n != "solve.sh" and n.endswith(SCRIPT_SUFFIXES)
            and re.search(rf"(?<![\w.-]){re.escape(n)}(?![\w.-])", text)]


__all__ = ["CHAT_PROMPTS", "FINAL_MESSAGE_CUES", "check_prompt_copy", "copy_command", "prompt_copy_fix", "check_solution",
           "locates_files", "looks_like_chat", "names_file", "prompt_names_deliverable", "solution_problem",
           "writes_message", "written_under_agent_logs"]
