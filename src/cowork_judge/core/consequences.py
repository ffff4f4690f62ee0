"""The failure table: one read-only row per `ErrorKind` saying what a failure of that kind
implies — retried? backed off? re-judged row by row? stops the run? which `exit_code` when
systemic? SPEC §7.5, §11, §12; house style item 7.

The retry policy (`core.retry.RetryPolicy`) and the systemic exit-code choice
(`core.coverage.account`) read its columns. Pure: no I/O, no clock, no configuration.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from cowork_judge.core.error_kinds import ERROR_KINDS, ExitCode


@dataclass(frozen=True)
class Consequence:
    """What a failure of one kind implies.

    Attributes:
        retry: another attempt of the same block (or model call) may succeed.
        backoff: wait ``uniform(1, min(backoff_max, 2·3^(n−1)))`` seconds before the
            next attempt, n = failures of backing-off kinds so far (rate limiting, SPEC
            §11); otherwise a retry waits `RETRY_PAUSE_SEC`.
        systemic_exit_code: the `exit_code` written when this kind dominates a systemic
            failure; None when the kind never sets one by itself.
        resplit: a block that failed with this kind after its tries is worth re-judging
            row by row (``JUDGE_RESPLIT``): the block may be too big or too slow.
        stops_run: no further model call of the run can succeed (the account has no
            credit): every block gives up without calling.
        judge_side: the failure is the judge's side, never the deliverable's: its endpoint
            failed (down, overloaded, out of credit), or the task's own rubric, assets or verifier
            environment are broken (an unknown code method or workflow, a dangling ``depends_on``,
            broken workflow assets, no renderer or backend installed). An unjudged negative row of
            this kind that the policy counts as hit makes the run systemic (`core.coverage.account`):
            the judge's failure lowered the reward, for every rollout alike.
        rubric_fault: the rubric cannot be judged as written (an unknown code method, code_method_params its
            method refuses, a dangling ``depends_on``): known from the rubric alone, before any deliverable is
            read, and the same for every rollout. Any row unjudged for such a kind — a positive row too —
            makes the run systemic (`core.coverage.account`, rule 5): every reward of the task is wrong alike.
        env_fault: the verifier environment lacks what the rubric's rows need (the judge's extras: trial 23 P-1),
            the same for every rollout of the task: like `rubric_fault`, any row unjudged for such a kind makes the
            run systemic (rule 5), but the fix is the verifier's install (`cowork-judge init` again), not the rubric.
    """

    retry: bool
    backoff: bool
    systemic_exit_code: ExitCode | None
    resplit: bool = False
    stops_run: bool = False
    judge_side: bool = False
    rubric_fault: bool = False
    env_fault: bool = False


def _table(entries: dict[str, Consequence]) -> Mapping[str, Consequence]:
    missing = set(ERROR_KINDS) - set(entries)
    if missing:  # pragma: no cover - a developer error, caught by the import of this module
        raise AssertionError(f"failure table lacks {sorted(missing)}")
    return MappingProxyType(entries)


_NO_RETRY_SCORER = Consequence(retry=False, backoff=False, systemic_exit_code="judge:scorer_error")
_TASK_FAULT = Consequence(retry=False, backoff=False, systemic_exit_code="judge:scorer_error", judge_side=True)
"""A failure of the task's own rubric, assets or verifier environment: the same for every rollout."""
_RUBRIC_FAULT = Consequence(retry=False, backoff=False, systemic_exit_code="judge:scorer_error", judge_side=True,
                            rubric_fault=True)
"""A task fault in the rubric's own text (`Consequence.rubric_fault`): systemic on any row."""
_ENV_FAULT = Consequence(retry=False, backoff=False, systemic_exit_code="judge:scorer_error", judge_side=True,
                         env_fault=True)
"""A task fault in the verifier's install (`Consequence.env_fault`): systemic on any row."""

CONSEQUENCES: Mapping[str, Consequence] = _table({
    "rate_limit": Consequence(retry=True, backoff=True, systemic_exit_code="judge:api_error", resplit=True, judge_side=True),
    "insufficient_quota": Consequence(retry=False, backoff=False, systemic_exit_code="judge:api_error", stops_run=True,
                                      judge_side=True),
    "timeout": Consequence(retry=True, backoff=False, systemic_exit_code="judge:timeout", resplit=True, judge_side=True),
    "api_error": Consequence(retry=True, backoff=False, systemic_exit_code="judge:api_error", resplit=True, judge_side=True),
    "request_rejected": Consequence(retry=False, backoff=False, systemic_exit_code="judge:api_error"),
    "parse_error": Consequence(retry=True, backoff=False, systemic_exit_code="judge:api_error", resplit=True),
    "deadline": Consequence(retry=False, backoff=False, systemic_exit_code="judge:timeout"),
    # a supervisor's SIGTERM is almost always its own time limit
    "interrupted": Consequence(retry=False, backoff=False, systemic_exit_code="judge:timeout"),
    "over_limit": _NO_RETRY_SCORER,
    "delivery_unreadable": _NO_RETRY_SCORER,
    "no_credential": Consequence(retry=False, backoff=False, systemic_exit_code="judge:no_credential", judge_side=True),
    "backend_missing": _TASK_FAULT,
    "backend_error": _NO_RETRY_SCORER,
    "code_error": _NO_RETRY_SCORER,
    "code_timeout": Consequence(retry=False, backoff=False, systemic_exit_code="judge:timeout"),
    "code_missing": _RUBRIC_FAULT,
    # code_method_params the method's own check refuses (trial 19 P-4: "source": "final_message"): the rubric's typo
    "code_params": _RUBRIC_FAULT,
    # a text row over a deck (trial 17 P-1): the rubric reads text where the task asks for binary files, for every
    # rollout alike; under `deduct` a hurdle that could not look is fatal, so the run must say not to trust it
    "no_text": _TASK_FAULT,
    "workflow_missing": _TASK_FAULT,
    "workflow_error": _NO_RETRY_SCORER,
    "vlm_error": Consequence(retry=True, backoff=False, systemic_exit_code="judge:api_error", judge_side=True),
    "render_env": _TASK_FAULT,
    # trial 23 P-1: init ran before the rubric was written; every rollout of the task is judged without them
    "extras_missing": _ENV_FAULT,
    # the run's time plan left too little for the deck: a time limit, fixed by a longer JUDGE_DEADLINE
    "evidence_budget": Consequence(retry=False, backoff=False, systemic_exit_code="judge:timeout"),
    "asset_broken": _TASK_FAULT,
    "dep_unjudged": Consequence(retry=False, backoff=False, systemic_exit_code=None),
    "dep_missing": _RUBRIC_FAULT,  # a rubric fault, as code_missing
    "not_applicable": Consequence(retry=False, backoff=False, systemic_exit_code=None),
    "trajectory_missing": _NO_RETRY_SCORER,
    "no_verdict": _TASK_FAULT,
})
"""Kind → consequence, read-only. Every `ErrorKind` has exactly one entry. The retry
loops (`RetryPolicy`) and the systemic exit-code choice (`core.coverage.account`) read
these columns; pass a modified copy to either to change behaviour."""


def consequence(kind: str, table: Mapping[str, Consequence] = CONSEQUENCES) -> Consequence:
    """Return the consequence of an error kind.

    Raises:
        KeyError: for a string that is not an `ErrorKind`.
    """
    return table[kind]
