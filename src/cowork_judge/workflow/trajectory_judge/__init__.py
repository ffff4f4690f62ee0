"""The `trajectory_judge` workflow (ABI 2): rows about what the agent did, judged by a model on its ATIF trajectory.

A row routed here (``"judge_method": "workflow", "workflow_name": "trajectory_judge"``) is
judged on the agent's trajectory (`segment.trajectory`: its steps, tool calls with their
arguments, observations, errors and timestamps) rather than on its deliverables: "the agent
ran the tests before it answered", "it did not delete files it was told to keep". The
trajectory is shown as text trimmed to a budget (`segment.trajectory.trajectory_text`:
every part capped, then steps from both ends kept while they fit, the omitted range named),
each step headed ``[step N]`` so the reason cites step numbers. Settings
(``workflow_config.trajectory_judge``): ``budget_chars`` (default
`segment.trajectory.TRAJECTORY_BUDGET_CHARS`).

One request per row (the trajectory first, so an endpoint's prompt cache serves the rows
after the first), through ``ctx.transport`` (the run's limit, retries, audit); rows run in
parallel up to that limit, and under JUDGE_SAMPLES / JUDGE_PANEL each row is asked as
answer_match asks its rows (`answer_match.decide_sampled`). A credited verdict carries a
verbatim ``quote`` that must be found in the text sent of the AGENT's steps (`core.grounding`;
a user or system step carries the task prompt, and a quote found only in the task counts for
nothing): a quote not found is asked again once, then recorded ``grounded: false``
(JUDGE_UNGROUNDED scores it).
No readable trajectory ⇒ every row unjudged ``trajectory_missing``, no call.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from cowork_judge.core import grounding
from cowork_judge.core.rubric import Criterion
from cowork_judge.core.verdicts import Verdict, parse_reply
from cowork_judge.segment.trajectory import TRAJECTORY_BUDGET_CHARS, step_text, trajectory_text
from cowork_judge.workflow._contract import ModelCallFailed, WorkflowContext, unjudged_row
from cowork_judge.workflow.answer_match import decide_sampled
from cowork_judge.workflow.trajectory_judge import prompts

REQUIRES_ABI = 2
REQUIRES_EXTRAS: tuple[str, ...] = ()
"""pip extras this workflow needs: none (`install.extras`)."""
MIN_BUDGET_CHARS = 2_000


def budget_of(settings: Any) -> int:
    """``budget_chars`` of ``workflow_config.trajectory_judge`` (default `TRAJECTORY_BUDGET_CHARS`).

    Raises:
        ValueError: not an integer of at least `MIN_BUDGET_CHARS`.
    """
    value = settings.get("budget_chars", TRAJECTORY_BUDGET_CHARS) if isinstance(settings, dict) else TRAJECTORY_BUDGET_CHARS
    if isinstance(value, bool) or not isinstance(value, int) or value < MIN_BUDGET_CHARS:
        raise ValueError(f"workflow_config.trajectory_judge.budget_chars must be an integer ≥ {MIN_BUDGET_CHARS}, got {value!r:.40}")
    return value


def run(criteria: list[Criterion], ctx: WorkflowContext, budget_sec: float) -> list[Verdict]:
    """One verdict per row (see the module docstring)."""
    if not criteria:
        return []
    traj = ctx.delivery.trajectory
    if traj is None:
        unread = "trajectory.json" in ctx.delivery.unreadable
        why = ("the agent's trajectory.json exists but could not be read as ATIF" if unread
               else "no ATIF trajectory (trajectory.json) in the agent logs: nothing shows what the agent did")
        return [unjudged_row(c.id, "trajectory_missing", why) for c in criteria]
    try:
        budget = budget_of(dict(ctx.settings))
    except ValueError as exc:
        return [unjudged_row(c.id, "asset_broken", str(exc)) for c in criteria]
    text, omitted = trajectory_text(traj, budget)
    text = ctx.redact(text)
    # what a quote must be in: the AGENT's steps as sent (a user or system step carries the task prompt,
    # and a quote found only in the task counts for nothing, as everywhere else)
    shown = "\n".join(ctx.redact(step_text(s)) for s in traj.steps if s.source == "agent" and s.number not in omitted)
    ctx.audit.append("trajectory", {"steps": len(traj.steps), "chars_sent": len(text), "omitted_steps": omitted,
                                    "agent": traj.agent})

    def one(c: Criterion) -> Verdict:
        try:
            return decide_sampled(c, ctx, lambda jctx, tag: judge_row(c, jctx, text, tag=tag, evidence=shown))
        except ModelCallFailed as exc:
            return unjudged_row(c.id, exc.kind, f"the model call failed: {exc}")

    workers = max(1, min(len(criteria), int(getattr(ctx.transport, "limit", 1) or 1)))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="trajectory-judge") as pool:
        return list(pool.map(one, criteria))


def judge_row(c: Criterion, ctx: WorkflowContext, text: str, *, tag: str = "", evidence: str | None = None) -> Verdict:
    """The verdict of row `c` on the trajectory text `text` (as sent): one call, one re-ask
    when its credited quote is not in `evidence` (the agent's steps as sent; default `text`).

    Raises:
        ModelCallFailed: a call failed after the transport's retries.
    """
    rows: Sequence[Criterion] = (c,)
    label = f"trajectory-{c.id}{tag}"
    reply = ctx.transport.complete(prompts.messages(rows, text), label=label, response_format=prompts.response_format(rows))
    outcome = parse_reply(reply.text, rows, method="workflow")
    ctx.audit.append("parsed", {"label": label, "step": outcome.step, "problems": outcome.problems})
    seen = grounding.evidence_of([text if evidence is None else evidence])
    out = grounding.ground(rows, dict(outcome.verdicts), seen)
    if grounding.ungrounded(out):
        messages = prompts.messages(rows, text) + [{"role": "user", "content": grounding.reask_text(out)}]
        again = ctx.transport.complete(messages, label=f"{label}-quote", response_format=prompts.response_format(rows))
        second = grounding.ground(rows, dict(parse_reply(again.text, rows, method="workflow").verdicts), seen)
        out = grounding.settle_reasked(out, second)
        ctx.audit.append("regrounded", {"label": label, "grounding": out[c.id].grounding})
    return out[c.id]


__all__ = ["REQUIRES_ABI", "REQUIRES_EXTRAS", "budget_of", "judge_row", "run"]
