"""The `answer_match` workflow (ABI 2): judge a response against a reference answer.

For problems with a known answer (the seed's reference-answer judging): each row carries
its reference material under ``answer_match`` (format in `rows`), and is one of

- an ANSWER row (levels 1 correct / 0.5 partially correct / 0 incorrect). When every part
  of the reference and of the response's final answer parses as a number with an optional
  unit, code decides with NO model call: agreement within the row's relative tolerance
  (``rel_tol``, default 5 %, in SI after unit conversion; `quantity`). Otherwise one model
  call judges each part of the answer as its own pseudo-row (``<id>#a``…). A multi-part
  answer is correct only when every part is, incorrect when every part is, else partially
  correct (`decide.combine_parts`).
- a PROCESS row: the response is graded 1 / 0.5 / 0 on each of 3–6 key steps of the
  reference solution (the row's ``steps``, or named by the model in one more call); the
  level is their mean on the 21-step grid (`decide.mean_level`, `_contract.level_row`).

The response is the agent's final message, else (no final message) its text deliverables,
each row's reason and one run warning then naming the files read (`read_from_files`); a final message that
exists but could not be read leaves every row unjudged ``delivery_unreadable`` (the files do not stand in for
it). An empty response
is a judged miss (level 0, no call), never an error. Calls go through ``ctx.transport`` (the
run's in-flight limit, retries, audit); rows run in parallel up to that limit. A reply
missing some parts or steps is asked again for those alone when JUDGE_RESPLIT is on; what
is still missing leaves the row unjudged ``parse_error``. A row without usable settings is
unjudged ``asset_broken`` (its reference material is a per-instance asset).
``workflow_config.answer_match`` may set ``rel_tol`` and ``question`` for every row.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from cowork_judge.core import grounding
from cowork_judge.core.rubric import Criterion
from cowork_judge.core.sampled import fold_row, sample_of
from cowork_judge.core.sampling import Sample, Scale
from cowork_judge.core.scales import snap_level
from cowork_judge.core.verdicts import Verdict, parse_reply, read_level
from cowork_judge.workflow._contract import ModelCallFailed, SampledJudge, WorkflowContext, level_row, unjudged_row
from cowork_judge.workflow.answer_match import prompts
from cowork_judge.workflow.answer_match.decide import (
    code_decision,
    combine_parts,
    mean_level,
    response_files,
    response_text,
)
from cowork_judge.workflow.answer_match.rows import ANSWER_LEVELS, STEP_LEVELS, RowConfigError, RowSpec, read_spec
from cowork_judge.workflow.sampled_units import ask_unit, label

REQUIRES_ABI = 2
REQUIRES_EXTRAS: tuple[str, ...] = ()
"""pip extras this workflow needs: none (`install.extras`)."""
CHOICES = (0.0, 0.5, 1.0)


def run(criteria: list[Criterion], ctx: WorkflowContext, budget_sec: float) -> list[Verdict]:
    """One verdict per row (see the module docstring); rows judged in parallel up to the transport's limit.
    A final message that exists but could not be read (`Delivery.message_unread`) leaves every row unjudged
    ``delivery_unreadable``: the answer may be in it, so neither the deliverables nor "no answer" stand in."""
    unread = message_unread(ctx.delivery)
    if unread:
        return [unjudged_row(c.id, "delivery_unreadable", unread) for c in criteria]
    response = response_text(ctx.delivery)
    from_files = read_from_files(ctx, response)

    def one(c: Criterion) -> Verdict:
        try:
            v = judge_row(c, ctx, response)
        except ModelCallFailed as exc:
            return unjudged_row(c.id, exc.kind, f"the model call failed: {exc}")
        return v.model_copy(update={"reason": f"{v.reason} [{from_files}]"}) if from_files else v

    if not criteria:
        return []
    workers = max(1, min(len(criteria), int(getattr(ctx.transport, "limit", 1) or 1)))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="answer-match") as pool:
        return list(pool.map(one, criteria))


def read_from_files(ctx: WorkflowContext, response: str) -> str:
    """Where the answer was read from when it is not the final message: ``"answer read from output/a.md: no
    final message was given"``; "" when the final message is the response or there is nothing to read."""
    files = response_files(ctx.delivery) if response.strip() else []
    if not files:
        return ""
    shown = ", ".join(f"output/{f}" for f in files[:5]) + (f" and {len(files) - 5} more" if len(files) > 5 else "")
    return f"answer read from {shown}: no final message was given"


def message_unread(delivery: Any) -> str | None:
    """`Delivery.message_unread` of `delivery` (why a final message that exists could not be read), None when
    there is none such or `delivery` does not say (a stand-in without the method)."""
    said = getattr(delivery, "message_unread", None)
    unread = said() if callable(said) else None
    return unread if isinstance(unread, str) else None


def from_files_warning(criteria: Sequence[Criterion], delivery: Any) -> list[str]:
    """The run's one warning when its `answer_match` rows read the answer from deliverables for want of a final
    message (trial 20 P-3): ``["answer_match rows A, B: answer read from output/…: no final message was given …"]``;
    [] otherwise (a final message, one that exists but could not be read, no such row, no text deliverable)."""
    if message_unread(delivery):  # the rows are unjudged delivery_unreadable: nothing is read from the files
        return []
    ids = [c.id for c in criteria if c.judge_method == "workflow" and c.workflow.name == "answer_match"]
    files = response_files(delivery) if ids and response_text(delivery).strip() else []
    if not files:
        return []
    shown = ", ".join(f"output/{f}" for f in files[:5]) + (f" and {len(files) - 5} more" if len(files) > 5 else "")
    return [f"answer_match row{'s' if len(ids) > 1 else ''} {', '.join(ids)}: answer read from {shown}: no final "
            "message was given (docs/answer-match.md: where the answer is read from)"]


def judge_row(c: Criterion, ctx: WorkflowContext, response: str) -> Verdict:
    """The verdict of one row.

    Raises:
        ModelCallFailed: a model call failed after the transport's retries.
    """
    try:
        spec = read_spec(c.extra, ctx.settings)
    except RowConfigError as exc:
        return unjudged_row(c.id, "asset_broken", f"row settings: {exc}")
    if not response.strip():
        return level_row(c.id, 0.0, "empty response: nothing to compare (a judged miss, no model call)")
    if spec.kind == "process":
        return _process(c, spec, ctx, response)
    decided = code_decision(spec.parts, response, spec.rel_tol)
    if decided is not None:
        return level_row(c.id, decided.level, decided.reason)
    return decide_sampled(c, ctx, lambda jctx, tag: _answer(c, spec, jctx, response, tag=tag))


def decide_sampled(c: Criterion, ctx: WorkflowContext, decide: Callable[[WorkflowContext, str], Verdict]) -> Verdict:
    """The row's model decision: `decide` once (``ctx.sampling`` None), else asked per
    `WorkflowContext.sampling` (`workflow.sampled_units.ask_unit`: each judge's transport, up to
    k times) and folded (`core.sampled.fold_row`). `decide(ctx, tag)` makes one decision
    (its calls labelled with `tag`) and may raise `ModelCallFailed`; sampled, a failed
    decision is a lost sample and the row keeps what the others said.

    Raises:
        ModelCallFailed: not sampled, and the decision's call failed.
    """
    sampling = ctx.sampling
    if sampling is None:
        return decide(ctx, "")
    panel = len(sampling.judges) > 1

    def ask(judge: SampledJudge, n: int) -> tuple[Sample, Verdict]:
        tag = label("", judge, n, panel=panel)
        try:
            verdict = decide(dataclasses.replace(ctx, transport=judge.transport), tag)
        except ModelCallFailed as exc:
            verdict = unjudged_row(c.id, exc.kind, f"the model call failed: {exc}")
        return sample_of(verdict, judge.name), verdict

    cut = time.monotonic
    asked = ask_unit(sampling, Scale.of(c), ask, may_ask=lambda: not ctx.cancel.is_set() and cut() < ctx.deadline_at)
    return fold_row(c, asked, weights=sampling.weights, how=sampling.vote)


def _answer(c: Criterion, spec: RowSpec, ctx: WorkflowContext, response: str, *, tag: str = "") -> Verdict:
    ids = prompts.part_ids(c.id, len(spec.parts))
    part_of = dict(zip(ids, spec.parts))
    labels = ["the final answer" if len(ids) == 1 else f"part {i.rsplit('#', 1)[1]} of the final answer" for i in ids]
    rows = prompts.pseudo_rows(ids, [f"{label} agrees with the reference answer" for label in labels], ANSWER_LEVELS)

    def build(todo: Sequence[Criterion]) -> list[dict[str, Any]]:
        return prompts.answer_messages(todo, [part_of[r.id] for r in todo], question=spec.question, solution=spec.solution,
                                       response=ctx.redact(response), rel_tol=spec.rel_tol)

    verdicts = _ask(ctx, rows, build, label=f"answer-{c.id}{tag}", evidence=ctx.redact(response))
    missing = next((v for v in verdicts.values() if not v.judged), None)
    if missing is not None:
        return unjudged_row(c.id, missing.error_kind or "parse_error", f"{missing.id}: {missing.reason}")
    levels = [_level(verdicts[i]) for i in ids]
    level = combine_parts(levels)
    if len(ids) == 1:
        reason = verdicts[ids[0]].reason
    else:
        reason = "; ".join(f"{i.rsplit('#', 1)[1]}: {lv:g} ({verdicts[i].reason})" for i, lv in zip(ids, levels))
        reason = f"parts {' '.join(f'{lv:g}' for lv in levels)} → {level:g}. {reason}"
    return _grounded(c, level_row(c.id, level, reason), verdicts)


def _process(c: Criterion, spec: RowSpec, ctx: WorkflowContext, response: str) -> Verdict:
    steps = list(spec.steps)
    named = ""
    if not steps:
        messages, fmt = prompts.steps_request(question=spec.question, solution=spec.solution)
        reply = ctx.transport.complete(messages, label=f"steps-{c.id}", response_format=fmt)
        steps = prompts.read_steps(reply.text)
        ctx.audit.append("steps", {"row": c.id, "steps": steps})
        if not steps:
            return unjudged_row(c.id, "parse_error", "the model named no key steps of the reference solution")
        named = " (key steps named by the model)"
    ids = [f"{c.id}#s{n}" for n in range(1, len(steps) + 1)]
    rows = prompts.pseudo_rows(ids, steps, STEP_LEVELS)

    def build(todo: Sequence[Criterion]) -> list[dict[str, Any]]:
        return prompts.step_messages(todo, question=spec.question, solution=spec.solution, response=ctx.redact(response))

    def decide(jctx: WorkflowContext, tag: str) -> Verdict:
        verdicts = _ask(jctx, rows, build, label=f"process-{c.id}{tag}", evidence=jctx.redact(response))
        missing = next((v for v in verdicts.values() if not v.judged), None)
        if missing is not None:
            return unjudged_row(c.id, missing.error_kind or "parse_error", f"step {missing.id}: {missing.reason}")
        levels = [_level(verdicts[i]) for i in ids]
        level = mean_level(levels)
        listed = "; ".join(f"{n}. {s[:80]}: {lv:g}" for n, (s, lv) in enumerate(zip(steps, levels), start=1))
        return _grounded(c, level_row(c.id, level, f"mean of {len(steps)} key steps = {level:.3f}{named}: {listed}"), verdicts)

    return decide_sampled(c, ctx, decide)


def _level(v: Verdict) -> float:
    """A pseudo-row's level in {0, 0.5, 1}; a reply without a readable level counts by its hit."""
    read = read_level(v.level)
    if read is None:
        return 1.0 if v.hit else 0.0
    return snap_level(read, CHOICES)


def _grounded(c: Criterion, final: Verdict, parts: dict[str, Verdict]) -> Verdict:
    """The row's verdict with its parts' grounding (`core.grounding`): ungrounded when a
    credited part's quote is not in the response even after the re-ask; grounded when its
    credited parts' quotes are; unchanged when it claims no credit."""
    if not grounding.claims_credit(c, final):
        return final
    bad = [i for i, v in parts.items() if v.grounded is False]
    if bad:
        return final.model_copy(update={"grounded": False, "quote": parts[bad[0]].quote,
                                        "grounding": f"{', '.join(bad)}: {parts[bad[0]].grounding}"})
    good = [v for v in parts.values() if v.grounded]
    if good:
        return final.model_copy(update={"grounded": True, "quote": good[0].quote, "grounding": grounding.FOUND})
    return final


def _ask(ctx: WorkflowContext, rows: Sequence[Criterion], build: Callable[[Sequence[Criterion]], list[dict[str, Any]]], *,
         label: str, evidence: str) -> dict[str, Verdict]:
    """Verdicts of `rows` from one call, and (JUDGE_RESPLIT) one more call for the rows the
    reply left without a verdict; then one re-ask for the credited rows whose quote is not
    in `evidence` (the response as sent; `core.grounding`).

    Raises:
        ModelCallFailed: a call failed after the transport's retries.
    """
    out: dict[str, Verdict] = {}
    todo = list(rows)
    for attempt in (1, 2):
        reply = ctx.transport.complete(build(todo), label=label if attempt == 1 else f"{label}-resplit",
                                       response_format=prompts.response_format(todo))
        outcome = parse_reply(reply.text, todo, method="workflow")
        ctx.audit.append("parsed", {"label": label, "attempt": attempt, "step": outcome.step, "problems": outcome.problems,
                                    "levels": {k: v.level for k, v in outcome.verdicts.items()}})
        out.update(outcome.verdicts)
        todo = [r for r in todo if not out[r.id].judged]
        if not todo or not ctx.resplit:
            break
    seen = grounding.evidence_of([evidence])
    out = grounding.ground(rows, out, seen)
    # a row with a part left unjudged is unjudged whatever its quotes say: no re-ask for it
    missing = grounding.ungrounded(out) if all(v.judged for v in out.values()) else []
    if missing:
        asked = [r for r in rows if r.id in missing]
        messages = build(asked) + [{"role": "user", "content": grounding.reask_text({k: out[k] for k in missing})}]
        reply = ctx.transport.complete(messages, label=f"{label}-quote", response_format=prompts.response_format(asked))
        again = grounding.ground(asked, parse_reply(reply.text, asked, method="workflow").verdicts, seen)
        out = grounding.settle_reasked(out, again)
        ctx.audit.append("regrounded", {"label": label, "rows": {k: out[k].grounding for k in missing}})
    return out
