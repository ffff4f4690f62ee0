"""Precision by confirmation (issue 35): a guard finding costs the reward only when it worked.

Under ``JUDGE_GUARD=penalize``, a flagged sample's model rows are judged a second time on a
copy of the delivery in which every flagged span is masked (`guard.mask.mask_delivery`: the
judge reads `guard.mask.MASK` where the text was). A row whose verdict is better for the agent
with the flagged text than without it — the score with the first verdict is above the score
with the second one put in its place — is a row the text changed: the attempt is confirmed
and the reward falls to 0 (`core.fold.apply_guard`). A flag no row confirms keeps the reward
(an honest document the lexicon flags is judged on its merits). Code rows are not re-judged
(they read no request). The cost is one more judging of the model rows: the extra calls are
recorded in `guard.confirmation`.

A flag that cannot be put to the test stands as confirmed, with the reason in
``confirmation.error``: a flagged PDF, DOCX or XLSX (not masked here), a failure while
re-judging, or every re-judged row unjudged.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from cowork_judge.core.rubric import Criterion
from cowork_judge.core.scoring import score
from cowork_judge.core.verdicts import Verdict
from cowork_judge.core.findings import Confirmation, GuardReport
from cowork_judge.evidence.kinds import is_deck_name
from cowork_judge.guard.mask import mask_delivery
from cowork_judge.run.context import RunContext
from cowork_judge.run.verdict_cache import RunCache
from cowork_judge.segment.delivery import DeliveredFile

log = logging.getLogger("cowork_judge")

CONFIRM_DIR = "guard-confirm"
"""Folder of the work dir (and scope of the audit) the second judging uses."""


def _place(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def rows_changed(criteria: Sequence[Criterion], first: Mapping[str, Verdict], second: Mapping[str, Verdict],
                 ctx: RunContext) -> list[str]:
    """Ids of the rows whose first verdict scores above their second one, each put alone in
    place of the first (judged verdicts only), in rubric order."""
    policy = ctx.config.scoring
    base = score(criteria, first, policy).score_raw
    changed = []
    for c in criteria:
        a, b = first.get(c.id), second.get(c.id)
        if a is None or b is None or not a.judged or not b.judged:
            continue
        if score(criteria, {**first, c.id: b}, policy).score_raw < base - 1e-9:
            changed.append(c.id)
    return changed


def _without_settled_gates(rows: Sequence[Criterion]) -> list[Criterion]:
    """`rows` with every dependency on a row that is not judged again removed: the code rows are not
    re-run (the first judging decided them, and no model reads them), so a model row's gate on one
    would name no row of the second judging — a closed gate (a miss that had nothing to do with the
    masked text, which made every gated row "changed") or, since trial 10 F1, an unjudged
    ``dep_missing``. The second judging asks the question the confirmation is about: does the model's
    verdict change when the flagged text is masked."""
    ids = {c.id for c in rows}
    return [c if all(d in ids for d in c.depends_on) else c.model_copy(update={"depends_on": tuple(d for d in c.depends_on if d in ids)})
            for c in rows]


def confirm(report: GuardReport, criteria: Sequence[Criterion], verdicts: Mapping[str, Verdict], ctx: RunContext,
            route: Callable[[Sequence[Criterion], RunContext, RunCache | None], dict[str, Verdict]]) -> GuardReport:
    """`report` with its `Confirmation` (see the module docstring); never raises.

    Args:
        report: the guard's report of a flagged sample under penalize.
        criteria: the rubric's rows (all of them: the score is computed over the rubric).
        verdicts: the first judging's verdicts (id → verdict).
        ctx: the run's context (its delivery, calls, deadline, audit).
        route: the router (`engine.router.route`) the first judging used.
    """
    model_rows = [c for c in criteria if c.judge_method != "code"]
    if not model_rows:
        return report.model_copy(update={"confirmation": Confirmation(error="no model row: nothing the text could sway")})
    before = ctx.stats.calls
    try:
        root = ctx.paths.work_dir / CONFIRM_DIR
        if root.exists():
            shutil.rmtree(root)
        files = [(f.rel, Path(f.path)) for f in ctx.delivery.files]
        masked = mask_delivery(files, ctx.delivery.final_message, report.findings, root / "masked")
        app = root / "app"
        delivered = []
        for (name, path), original in zip(masked.files, ctx.delivery.files, strict=True):
            target = app / "output" / name
            _place(path, target)
            delivered.append(DeliveredFile(rel=name, path=str(target), size_bytes=target.stat().st_size,
                                           source=original.source))
        delivery = ctx.delivery.model_copy(update={"files": delivered, "final_message": masked.final_message,
                                                   "notes": list(ctx.delivery.notes)})
        second_ctx = RunContext(
            paths=dataclasses.replace(ctx.paths, app_dir=app, work_dir=root / "work"), config=ctx.config,
            instruction=ctx.instruction, instruction_source=ctx.instruction_source, task_prompt=ctx.task_prompt,
            delivery=delivery, deadline=ctx.deadline, redactor=ctx.redactor, audit=ctx.audit.scoped(CONFIRM_DIR),
            stats=ctx.stats, workflow_config=ctx.workflow_config, rng=ctx.rng, retry=ctx.retry, limiter=ctx.limiter,
            calls=ctx.calls, sampling=ctx.sampling, builtin_simulator=ctx.builtin_simulator)
        if any(is_deck_name(str(p)) for _, p in masked.files):  # a masked deck is rendered again (evidence.kinds)
            from cowork_judge.engine import evidence_step

            evidence_step.collect(second_ctx)
        again = _without_settled_gates(model_rows)
        second = route(again, second_ctx, RunCache.of(second_ctx, again))  # the masked delivery's own keys
    except Exception as exc:  # noqa: BLE001 - confirmation is a second opinion, never a crash (SPEC §22)
        reason = ctx.redactor.redact(f"{type(exc).__name__}: {exc}")
        log.warning("guard: the confirmation re-judging failed (%s); the flag stands", reason)
        return report.model_copy(update={"confirmation": Confirmation(
            extra_calls=ctx.stats.calls - before, confirmed=True, error=f"the re-judging failed: {reason}"[:500])})
    changed = rows_changed(criteria, verdicts, second, ctx)
    judged = [c.id for c in model_rows if (v := second.get(c.id)) is not None and v.judged]
    error = None
    if masked.unmaskable:
        error = f"flagged text in {', '.join(masked.unmaskable)} cannot be masked (PDF, DOCX, XLSX): the flag stands"
    elif not judged:
        error = "no row could be judged a second time: the flag stands"
    confirmation = Confirmation(spans=masked.spans, masked_files=masked.masked_files, message_masked=masked.message_masked,
                                rows_rejudged=[c.id for c in model_rows], rows_changed=changed,
                                extra_calls=ctx.stats.calls - before, confirmed=bool(changed) or error is not None,
                                error=error)
    log.info("guard: re-judged %d row(s) with %d flagged span(s) masked: %s (%d extra call(s))", len(model_rows),
             masked.spans, f"rows {', '.join(changed)} better with the flagged text: confirmed" if changed
             else ("not testable, the flag stands" if error else "no row changed: not confirmed, the reward stands"),
             confirmation.extra_calls)
    return report.model_copy(update={"confirmation": confirmation})


__all__ = ["CONFIRM_DIR", "confirm", "rows_changed"]
