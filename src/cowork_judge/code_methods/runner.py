"""The `code` segment's runner: one row's method in a worker, with JUDGE_CODE_TIMEOUT (SPEC §8)."""

from __future__ import annotations

import time

from cowork_judge.agent_text import repair
from cowork_judge.code_methods import CODE_METHODS, param_errors
from cowork_judge.code_methods.files import ReadLimit
from cowork_judge.core.classify import classify, summary
from cowork_judge.core.rubric import Criterion
from cowork_judge.core.verdicts import Verdict
from cowork_judge.run.context import RunContext
from cowork_judge.threads import call_with_timeout


def judge_code_row(row: Criterion, ctx: RunContext) -> Verdict:
    """Run one `code` row's method and return its verdict; never raises.

    Unknown method ⇒ ``code_missing``; parameters that do not fit its signature ⇒
    ``code_error``; past ``JUDGE_CODE_TIMEOUT`` ⇒ ``code_timeout`` (``deadline`` when the
    run deadline cut it); an exception ⇒ its kind by `classify` (``render_env`` for a
    missing tool, ``code_error`` otherwise). A hit merges the method's artifacts into
    ``ctx.artifacts`` for later segments.

    A `ReadLimit` (the deliverable's size or number of files hid the answer) is judged,
    not unjudged: see `read_limit_verdict`. Reasons are repaired text (a file name or a
    matched line from the agent never carries a lone surrogate into the result).
    """
    name = row.code_method_name or ""
    method = CODE_METHODS.get(name)
    if method is None:
        known = ", ".join(sorted(CODE_METHODS))
        return Verdict.unjudged(row.id, "code_missing", f"unknown code method {name!r}; registered: {known}", method="code")
    bad = param_errors(method, row.code_method_params)
    if bad:
        return Verdict.unjudged(row.id, "code_error", f"code_method_params of {name}: {'; '.join(bad)}", method="code")
    remaining = ctx.deadline.remaining()
    if remaining <= 0:
        return Verdict.unjudged(row.id, "deadline", "JUDGE_DEADLINE reached before this row ran", method="code")
    timeout = min(ctx.config.code_timeout_sec, remaining)
    start = time.monotonic()
    outcome = call_with_timeout(lambda: method(ctx, **row.code_method_params), timeout, thread_name="code-method")
    seconds = round(time.monotonic() - start, 3)
    if outcome is None:
        kind = classify(TimeoutError(), segment="code", deadline_passed=ctx.deadline.passed())
        return Verdict.unjudged(row.id, kind, f"{name} ran past {timeout:.0f} s", method="code", seconds=seconds)
    value, exc = outcome
    if isinstance(exc, ReadLimit):
        return read_limit_verdict(row, name, exc, ctx, seconds=seconds)
    if exc is not None:
        kind = classify(exc, segment="code", deadline_passed=ctx.deadline.passed())
        return Verdict.unjudged(row.id, kind, repair(f"{name} failed: {summary(exc)}"), method="code", seconds=seconds)
    if not (isinstance(value, tuple) and len(value) == 3 and isinstance(value[0], bool) and isinstance(value[2], dict)):
        return Verdict.unjudged(row.id, "code_error", f"{name} returned {type(value).__name__}, not (hit, reason, artifacts)",
                                method="code", seconds=seconds)
    hit, reason, artifacts = value
    ctx.artifacts.update(artifacts)
    return Verdict(id=row.id, hit=hit, judged=True, reason=repair(str(reason)), method="code", seconds=seconds)


def read_limit_verdict(row: Criterion, name: str, exc: ReadLimit, ctx: RunContext, *, seconds: float = 0.0) -> Verdict:
    """The verdict of a row whose answer the judge's read limits hid.

    Read limits are the deliverable's doing (a flood of files, a giant text), never the
    judge's: the row is JUDGED against the deliverable — ``hit=false`` (a miss) for a
    positive row; ``hit=true`` for a negative row or a hurdle, so the deduction applies
    and a hurdle is fatal (the same side SPEC §4 takes for an unjudged negative row, so a
    deliverable cannot hide a violation behind the limits). No ``error_kind``, so no
    coverage loss and no ``exit_code``. The reason starts ``[read limit]`` and names the
    limit; the same sentence is added to the delivery notes (what was not read).
    """
    negative = row.polarity == "negative"
    side = "a miss" if not negative else ("hit, the hurdle is fatal" if row.hurdle else "hit, the deduction applies")
    reason = repair(f"[read limit] {name}: {exc} (limit: {exc.limit}); counted against the deliverable: {side}")
    ctx.delivery.notes.append(f"code row {row.id}: {reason}")
    ctx.log.info("code row %s: %s", row.id, reason)
    return Verdict(id=row.id, hit=negative, judged=True, reason=reason, method="code", seconds=seconds)
