"""Block workspaces: the directory one agentic block is judged in.

Layout of ``<work>/blocks/<block>/``::

    rubric.json                 the block's rows only, with derived fields, no routing fields
    judge_instruction.md        the instruction text
    task_prompt.md              the task the agent was given ("" when absent)
    model_response_text.txt     the agent's final chat message (always written; hard link, once per run)
    output/                     deliverables (hard links; copies across devices)
    evidence/                   shared evidence (hard links): artifacts.json, pages/, digests
    <aux files>                 JUDGE_AUX_FILES copied from the tests dir

Nothing secret is ever written here.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path

from cowork_judge.safety.agent_text import repair
from cowork_judge.core.rubric import Criterion
from cowork_judge._util.fsutil import link_or_copy, link_tree
from cowork_judge.segment.segment_context import SegmentContext
from cowork_judge.segment.delivery import workspace_rel


def build_workspace(name: str, rows: Sequence[Criterion], ctx: SegmentContext) -> Path:
    """Create (or recreate) the workspace of one block and return its path.

    Raises:
        OSError: the work dir cannot be written (the caller marks the block unjudged).
    """
    mirror = deliverables_mirror(ctx)
    root = ctx.paths.block_dir(name)
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    (root / "rubric.json").write_text(
        json.dumps({"rubrics": [c.for_judge() for c in rows]}, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    (root / "judge_instruction.md").write_text(ctx.instruction, encoding="utf-8")
    (root / "task_prompt.md").write_text(ctx.task_prompt, encoding="utf-8")
    link_tree(mirror, root)  # output/ and model_response_text.txt
    if ctx.paths.evidence_dir.is_dir():
        link_tree(ctx.paths.evidence_dir, root / "evidence")
    for source in aux_file_sources(ctx.settings.aux_files, ctx.paths.tests_dir)[0]:
        link_or_copy(source, root / source.name)  # a refused entry is a run warning (`aux_file_sources`), said once
    return root


def aux_file_sources(aux_files: Sequence[str], tests_dir: Path) -> tuple[list[Path], list[str]]:
    """The ``JUDGE_AUX_FILES`` entries copied into every block workspace, and one warning per entry refused.

    An entry is a path relative to `tests_dir` (or absolute); it is copied when it is a file inside
    `tests_dir` (links resolved), refused when it resolves outside it (the knob names tests/ files only)
    or is not a file. The warnings go to the result document's ``details.warnings`` (trial 12 F11).

    Returns:
        (the source files to copy, in the knob's order; the warnings, ``"JUDGE_AUX_FILES: …"``).
    """
    tests_real = tests_dir.resolve()
    sources: list[Path] = []
    warnings: list[str] = []
    for aux in aux_files:
        source = Path(aux) if Path(aux).is_absolute() else tests_dir / aux
        real = source.resolve()
        if real != tests_real and tests_real not in real.parents:
            warnings.append(f"JUDGE_AUX_FILES: {aux} is outside the tests dir {tests_dir}: not copied into any judge "
                            "workspace (the judge works without it)")
        elif source.is_file():
            sources.append(source)
        else:
            warnings.append(f"JUDGE_AUX_FILES: {aux} not found in the tests dir {tests_dir}: not copied into any judge "
                            "workspace (the judge works without it)")
    return sources, warnings


def deliverables_mirror(ctx: SegmentContext) -> Path:
    """What every workspace shows alike of the agent's work, laid out once per run.

    ``<work>/deliverables/``: ``output/…``, hard links to the deliverables (or ONE copy each
    when the work dir is on another device), and ``model_response_text.txt``, the agent's
    final message redacted and repaired once; block workspaces then hard-link from here, so a
    large deliverable is never copied, nor the message redacted, once per block.
    """
    mirror = ctx.paths.work_dir / "deliverables"
    if not mirror.is_dir():
        staging = ctx.paths.work_dir / ".deliverables.partial"
        if staging.exists():
            shutil.rmtree(staging)
        placed = [(Path(item.path), workspace_rel(item, ctx.delivery.files)) for item in ctx.delivery.files]
        # repaired again here: whatever path the message took, the file must be writable as UTF-8
        message = repair(ctx.redactor.redact(ctx.delivery.final_message or ""))
        (staging / "output").mkdir(parents=True)
        (staging / "model_response_text.txt").write_text(message, encoding="utf-8")
        for source, rel in placed:
            link_or_copy(source, staging / rel)
        staging.rename(mirror)
    return mirror
