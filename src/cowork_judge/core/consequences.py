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
        outage: the judge's endpoint failed (down, overloaded, out of credit), not the
            deliverable: an unjudged negative row of this kind that the policy counts as hit
            makes the run systemic (`core.coverage.account`).
    """

    retry: bool
    backoff: bool
    systemic_exit_code: ExitCode | None
    resplit: bool = False
    stops_run: bool = False
    outage: bool = False


def _table(entries: dict[str, Consequence]) -> Mapping[str, Consequence]:
    missing = set(ERROR_KINDS) - set(entries)
    if missing:  # pragma: no cover - a developer error, caught by the import of this module
        raise AssertionError(f"failure table lacks {sorted(missing)}")
    return MappingProxyType(entries)


_NO_RETRY_SCORER = Consequence(retry=False, backoff=False, systemic_exit_code="judge:scorer_error")

CONSEQUENCES: Mapping[str, Consequence] = _table({
    "rate_limit": Consequence(retry=True, backoff=True, systemic_exit_code="judge:api_error", resplit=True, outage=True),
    "insufficient_quota": Consequence(retry=False, backoff=False, systemic_exit_code="judge:api_error", stops_run=True,
                                      outage=True),
    "timeout": Consequence(retry=True, backoff=False, systemic_exit_code="judge:timeout", resplit=True, outage=True),
    "api_error": Consequence(retry=True, backoff=False, systemic_exit_code="judge:api_error", resplit=True, outage=True),
    "request_rejected": Consequence(retry=False, backoff=False, systemic_exit_code="judge:api_error"),
    "parse_error": Consequence(retry=True, backoff=False, systemic_exit_code="judge:api_error", resplit=True),
    "deadline": Consequence(retry=False, backoff=False, systemic_exit_code="judge:timeout"),
    # a supervisor's SIGTERM is almost always its own time limit
    "interrupted": Consequence(retry=False, backoff=False, systemic_exit_code="judge:timeout"),
    "over_limit": _NO_RETRY_SCORER,
    "delivery_unreadable": _NO_RETRY_SCORER,
    "no_credential": Consequence(retry=False, backoff=False, systemic_exit_code="judge:no_credential", outage=True),
    "backend_missing": _NO_RETRY_SCORER,
    "backend_error": _NO_RETRY_SCORER,
    "code_error": _NO_RETRY_SCORER,
    "code_timeout": Consequence(retry=False, backoff=False, systemic_exit_code="judge:timeout"),
    "code_missing": _NO_RETRY_SCORER,
    "workflow_missing": _NO_RETRY_SCORER,
    "workflow_error": _NO_RETRY_SCORER,
    "vlm_error": Consequence(retry=True, backoff=False, systemic_exit_code="judge:api_error", outage=True),
    "render_env": _NO_RETRY_SCORER,
    # the run's time plan left too little for the deck: a time limit, fixed by a longer JUDGE_DEADLINE
    "evidence_budget": Consequence(retry=False, backoff=False, systemic_exit_code="judge:timeout"),
    "asset_broken": _NO_RETRY_SCORER,
    "dep_unjudged": Consequence(retry=False, backoff=False, systemic_exit_code=None),
    "dep_missing": _NO_RETRY_SCORER,  # a rubric fault, as code_missing
    "not_applicable": Consequence(retry=False, backoff=False, systemic_exit_code=None),
    "trajectory_missing": _NO_RETRY_SCORER,
    "no_verdict": _NO_RETRY_SCORER,
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
