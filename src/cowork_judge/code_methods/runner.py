"""The `code` segment's runner: one row's method in a worker, with JUDGE_CODE_TIMEOUT (SPEC §8)."""

from __future__ import annotations

import time

from cowork_judge.code_methods import CODE_METHODS, param_errors
from cowork_judge.core.failures import classify, summary
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
    if exc is not None:
        kind = classify(exc, segment="code", deadline_passed=ctx.deadline.passed())
        return Verdict.unjudged(row.id, kind, f"{name} failed: {summary(exc)}", method="code", seconds=seconds)
    if not (isinstance(value, tuple) and len(value) == 3 and isinstance(value[0], bool) and isinstance(value[2], dict)):
        return Verdict.unjudged(row.id, "code_error", f"{name} returned {type(value).__name__}, not (hit, reason, artifacts)",
                                method="code", seconds=seconds)
    hit, reason, artifacts = value
    ctx.artifacts.update(artifacts)
    return Verdict(id=row.id, hit=hit, judged=True, reason=str(reason), method="code", seconds=seconds)
