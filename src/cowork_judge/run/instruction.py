"""Judge instruction discovery: which instruction text the judge reads (SPEC §10); and the task
prompt (``tests/task_prompt.md``) it is sent.

Both are read with the deliverables' one reader (`safety.agent_text`: UTF-8, or as a UTF-8/16/32
byte-order mark says; trial 11 F12, F13), and what could not be read as text is said — by the run
in its warnings and by ``lint-rubric`` (A002–A004), which call the functions here.
"""

from __future__ import annotations

import stat
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from cowork_judge._util.given_paths import close_sibling, near_file
from cowork_judge.safety.agent_text import BINARY_NOTE, decode_noting, looks_binary

INSTRUCTION_NAMES = ("judge_instruction.md", "judge_instructions.md", "rubric_instruction.md", "judge_prompt.md")
"""Instruction files looked for in the tests dir, in order."""


def default_instruction() -> str:
    """The built-in default instruction (package data ``data/judge_instruction.md``)."""
    return resources.files("cowork_judge").joinpath("data/judge_instruction.md").read_text(encoding="utf-8")


def read_judge_text(path: Path) -> tuple[str | None, str | None]:
    """A text of tests/ the judge sends to the model (an instruction file, ``task_prompt.md``), read
    like every deliverable (`agent_text.decode_noting`: a byte-order mark is honoured).

    Returns:
        ``(text, problem)``. ``text`` is None when the file cannot be read as text, and ``problem``
        says why: ``not found``, ``not a regular file``, an OS error's reason, or ``binary``
        (a NUL byte and no UTF-16/UTF-32 mark: UTF-16 saved without its mark). Otherwise ``text``
        is the text (U+FFFD in place of undecodable bytes) and ``problem`` None, or the note of what
        could not be decoded (``not UTF-8 (first undecodable byte at offset 3: 0xe9)``). Never raises.
    """
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            return None, "not a regular file"
        data = path.read_bytes()
    except FileNotFoundError:
        return None, "not found"
    except OSError as exc:
        return None, exc.strerror or str(exc)
    if looks_binary(data):
        return None, f"not text: {BINARY_NOTE} (UTF-16 saved without its mark?)"
    return decode_noting(data)


def choose_instruction(candidates: Sequence[Path]) -> tuple[str | None, Path | None, list[tuple[Path, str]]]:
    """The first of `candidates` (paths, in the order SPEC §10 looks) with text, read with
    `read_judge_text`; a candidate that is not a file is skipped without a word.

    Returns:
        ``(text, path, problems)``: the chosen file's text and path (None, None when no candidate
        has text), and for each file passed over or read with U+FFFD its path and what is wrong,
        as a phrase that follows the file's name: ``cannot be read (…)``, ``is empty``, ``is not
        UTF-8 (first undecodable byte at offset 3: 0xe9)``. The run (`find_instruction`) and
        ``lint-rubric`` (A002, A003) both call it, so they agree on what the judge reads.
    """
    problems: list[tuple[Path, str]] = []
    for path in candidates:
        if not path.is_file():
            continue
        text, problem = read_judge_text(path)
        if text is None:
            problems.append((path, f"cannot be read ({problem})"))
        elif not text.strip():
            problems.append((path, "is empty"))
        else:
            if problem is not None:
                problems.append((path, f"is {problem}"))
            return text, path, problems
    return None, None, problems


def misnamed_instruction(tests_dir: Path) -> tuple[Path, str] | None:
    """A file in `tests_dir` spelled like one of `INSTRUCTION_NAMES` but not one (``judge-instruction.md``,
    trial 41 P-6), as ``(that file, the accepted name it is like)`` (`near_file`; ``task_prompt.md`` is no
    slip for ``judge_prompt.md``), or None. The run's warning and lint's A002 name it."""
    return near_file(tests_dir, INSTRUCTION_NAMES, skip=("task_prompt.md",))


def find_instruction(tests_dir: Path, configured: str | None) -> tuple[str, str, list[str]]:
    """Pick the judge instruction.

    Order: `configured` (JUDGE_INSTRUCTION_FILE; relative paths are taken from
    `tests_dir`), else the first of `INSTRUCTION_NAMES` in `tests_dir`, else the built-in
    default (a documented default, not a problem: the source says ``built-in``). Files are read
    with `read_judge_text` (`choose_instruction`): a file with undecodable bytes is used, with a
    warning naming the first.

    Returns:
        (instruction text, source label, warnings). Never raises: a file that cannot be read as
        text falls through to the next choice with a warning.
    """
    warnings: list[str] = []
    candidates: list[Path] = []
    if configured:
        path = Path(configured)
        candidates.append(path if path.is_absolute() else tests_dir / path)
        if not candidates[0].is_file():
            warnings.append(f"JUDGE_INSTRUCTION_FILE {configured!r} not found; looking in the tests dir")
    candidates.extend(tests_dir / name for name in INSTRUCTION_NAMES)
    text, chosen, problems = choose_instruction(list(dict.fromkeys(candidates)))  # a configured default name: once
    for path, problem in problems:
        if path == chosen:
            warnings.append(f"instruction file {path} {problem}: the judge reads it with U+FFFD in place of the "
                            "undecodable bytes (save it as UTF-8)")
        else:
            warnings.append(f"instruction file {path} {problem}; trying the next one")
    if text is None or chosen is None:
        if (near := misnamed_instruction(tests_dir)) is not None:
            warnings.append(f"{near[0]} is not read (the judge reads only {', '.join(INSTRUCTION_NAMES)}), so the "
                            f"built-in default instruction is used: did you mean to name it {near[1]}? (rename the "
                            f"task's tests/{near[0].name} to tests/{near[1]})")
        return default_instruction(), "built-in", warnings
    return text, str(chosen), warnings


COPY_HINT = "; copy the task's instruction.md (the agent's text) to tests/task_prompt.md"
"""What the run's warning about a missing ``task_prompt.md`` adds (trial 19 P-6): the verifier sees no
``instruction.md``, so the fix is named, not spelled as a path; lint replaces it with the exact ``cp``."""


def task_prompt_text(path: Path, *, needs_model: bool) -> tuple[str, list[str]]:
    """The task prompt the judge is sent (``tests/task_prompt.md``; "" when there is none it can
    read) and what is wrong with it, read with `read_judge_text`.

    Only a run with model-judged rows is warned (a code row never reads the task): about a missing
    (naming a file beside it spelled alike, `close_sibling`: ``task-prompt.md``), empty or unreadable file (the judge is then sent no task), a binary one (UTF-16 without its mark:
    not sent, rather than NUL bytes between letters), and undecodable bytes (sent with U+FFFD).

    Returns:
        (text, warnings without a prefix).
    """
    text, problem = read_judge_text(path)
    if not needs_model:
        return text or "", []
    if problem == "not found":
        near = close_sibling(path, files=True)  # trial 29 P-8: tests/task-prompt.md
        hint = f"; did you mean: rename {near.name} to {path.name}" if near is not None else COPY_HINT
        return "", [f"no {path.name} in {path.parent}: the judge is told to read the task the agent was given, "
                    f"and will find an empty one{hint}"]
    if text is None:
        return "", [f"{path.name} cannot be read ({problem}): not sent; the judge is told to read the task the "
                    "agent was given, and will find an empty one"]
    if not text.strip():
        return text, [f"{path.name} is empty: the judge is told to read the task the agent was given, and will "
                      "find an empty one"]
    if problem is not None:
        return text, [f"{path.name} is {problem}: the judge is sent it with U+FFFD in place of the undecodable "
                      "bytes (save it as UTF-8)"]
    return text, []
