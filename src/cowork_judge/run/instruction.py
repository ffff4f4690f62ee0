"""Judge instruction discovery: which instruction text the judge reads (SPEC §10)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

INSTRUCTION_NAMES = ("judge_instruction.md", "judge_instructions.md", "rubric_instruction.md", "judge_prompt.md")
"""Instruction files looked for in the tests dir, in order."""


def default_instruction() -> str:
    """The built-in default instruction (package data ``data/judge_instruction.md``)."""
    return resources.files("cowork_judge").joinpath("data/judge_instruction.md").read_text(encoding="utf-8")


def find_instruction(tests_dir: Path, configured: str | None) -> tuple[str, str, list[str]]:
    """Pick the judge instruction.

    Order: `configured` (JUDGE_INSTRUCTION_FILE; relative paths are taken from
    `tests_dir`), else the first of `INSTRUCTION_NAMES` in `tests_dir`, else the built-in
    default (a documented default, not a problem: the source says ``built-in``).

    Returns:
        (instruction text, source label, warnings). Never raises: an unreadable file
        falls through to the next choice with a warning.
    """
    warnings: list[str] = []
    candidates: list[Path] = []
    if configured:
        path = Path(configured)
        candidates.append(path if path.is_absolute() else tests_dir / path)
    candidates.extend(tests_dir / name for name in INSTRUCTION_NAMES)
    for n, path in enumerate(candidates):
        if not path.is_file():
            if n == 0 and configured:
                warnings.append(f"JUDGE_INSTRUCTION_FILE {configured!r} not found; looking in the tests dir")
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            warnings.append(f"instruction file {path} cannot be read ({exc}); trying the next one")
            continue
        if text.strip():
            return text, str(path), warnings
        warnings.append(f"instruction file {path} is empty; trying the next one")
    return default_instruction(), "built-in", warnings
