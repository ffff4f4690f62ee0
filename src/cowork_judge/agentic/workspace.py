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
    tests_real = ctx.paths.tests_dir.resolve()
    for aux in ctx.settings.aux_files:
        source = Path(aux) if Path(aux).is_absolute() else ctx.paths.tests_dir / aux
        real = source.resolve()
        if real != tests_real and tests_real not in real.parents:  # the knob names tests/ files only
            ctx.log.warning("JUDGE_AUX_FILES: %s is outside the tests dir %s; not copied into %s", aux, ctx.paths.tests_dir, name)
        elif source.is_file():
            link_or_copy(source, root / source.name)
        else:
            ctx.log.warning("JUDGE_AUX_FILES: %s not found; not copied into %s", aux, name)
    return root


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
