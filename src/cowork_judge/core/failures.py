"""The failure taxonomy: every way a row can end up unjudged, and what each way implies.

One vocabulary (`ErrorKind`) and one read-only table (`CONSEQUENCES`) from kind to
consequence: is it retried, does it back off, which `exit_code` it maps to when the
failure is systemic (SPEC §11, §12; house style item 7). Transport exceptions are turned
into kinds by `cowork_judge.transport.chat.classify`, which reads this table; nothing else encodes
error categories as strings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

ErrorKind = Literal[
    # transport / model (agentic backends, workflow VLM calls)
    "rate_limit",  # HTTP 429, "rate limit", "quota exceeded", errors inside a 200 stream
    "insufficient_quota",  # the account has no credit: gives up at once
    "timeout",  # a call or block ran past its time limit
    "api_error",  # other transient transport failures (5xx, connection reset, broken stream)
    "request_rejected",  # a permanent 4xx (bad request, auth, not found): retrying cannot help
    "parse_error",  # the reply held no usable verdict for the row
    "deadline",  # the run's JUDGE_DEADLINE was reached before the row was judged
    "interrupted",  # the process was stopped by a signal (SIGTERM, SIGINT) before the row was judged
    "over_limit",  # the deliverables exceeded the judge's read limits, so a miss could not be trusted
    "no_credential",  # a model was needed and no credentials were configured
    "delivery_unreadable",  # the agent's final message exists but could not be read: nothing was scored
    "backend_missing",  # the configured agentic backend cannot run here
    "backend_error",  # the agentic backend crashed outside a model call (e.g. workspace I/O)
    # router / segments (SPEC §7.5)
    "code_error",  # a code method raised
    "code_timeout",  # a code method ran past JUDGE_CODE_TIMEOUT
    "code_missing",  # code_method_name is not registered in CODE_METHODS
    "workflow_missing",  # workflow not found, failed to import, ABI mismatch, no router
    "workflow_error",  # a workflow raised, overran its budget, or returned no verdict for the row
    "vlm_error",  # a workflow's vision-model call failed
    "render_env",  # the image lacks a renderer (LibreOffice/Chromium): not the deck's fault
    "asset_broken",  # a per-instance workflow asset is missing or unreadable
    "dep_unjudged",  # a dependency was not judged, so this row was not judged either
    "not_applicable",  # a workflow judged every page N/A and the row's na_policy is "unjudged"
]
"""Closed vocabulary of `error_kind` values on unjudged verdict rows."""

ERROR_KINDS: tuple[str, ...] = get_args(ErrorKind)

ExitCode = Literal[
    "judge:no_credential",
    "judge:scorer_error",
    "judge:api_error",
    "judge:timeout",
]
"""The only `exit_code` values a result document may carry (SPEC §12: invent no others)."""


@dataclass(frozen=True)
class Consequence:
    """What a failure of one kind implies.

    Attributes:
        retry: another attempt of the same block may succeed.
        backoff: wait ``uniform(1, min(backoff_max, 2·3^(n−1)))`` seconds before the
            next attempt (rate limiting only, SPEC §11); otherwise a retry waits 1 s.
        systemic_exit_code: the `exit_code` written when this kind dominates a systemic
            failure; None when the kind never sets one by itself.
        resplit: a block that failed with this kind after its tries is worth re-judging
            row by row (``JUDGE_RESPLIT``): the block may be too big or too slow.
        stops_run: no further model call of the run can succeed (the account has no
            credit): every block gives up without calling.
    """

    retry: bool
    backoff: bool
    systemic_exit_code: ExitCode | None
    resplit: bool = False
    stops_run: bool = False


CONSEQUENCES: dict[str, Consequence] = {
    "rate_limit": Consequence(retry=True, backoff=True, systemic_exit_code="judge:api_error", resplit=True),
    "insufficient_quota": Consequence(retry=False, backoff=False, systemic_exit_code="judge:api_error", stops_run=True),
    "timeout": Consequence(retry=True, backoff=False, systemic_exit_code="judge:timeout", resplit=True),
    "api_error": Consequence(retry=True, backoff=False, systemic_exit_code="judge:api_error", resplit=True),
    "request_rejected": Consequence(retry=False, backoff=False, systemic_exit_code="judge:api_error"),
    "parse_error": Consequence(retry=True, backoff=False, systemic_exit_code="judge:api_error", resplit=True),
    "deadline": Consequence(retry=False, backoff=False, systemic_exit_code="judge:timeout"),
    # a supervisor's SIGTERM is almost always its own time limit
    "interrupted": Consequence(retry=False, backoff=False, systemic_exit_code="judge:timeout"),
    "over_limit": Consequence(retry=False, backoff=False, systemic_exit_code="judge:scorer_error"),
    "delivery_unreadable": Consequence(retry=False, backoff=False, systemic_exit_code="judge:scorer_error"),
    "no_credential": Consequence(retry=False, backoff=False, systemic_exit_code="judge:no_credential"),
    "backend_missing": Consequence(retry=False, backoff=False, systemic_exit_code="judge:scorer_error"),
    "backend_error": Consequence(retry=False, backoff=False, systemic_exit_code="judge:scorer_error"),
    "code_error": Consequence(retry=False, backoff=False, systemic_exit_code="judge:scorer_error"),
    "code_timeout": Consequence(retry=False, backoff=False, systemic_exit_code="judge:timeout"),
    "code_missing": Consequence(retry=False, backoff=False, systemic_exit_code="judge:scorer_error"),
    "workflow_missing": Consequence(retry=False, backoff=False, systemic_exit_code="judge:scorer_error"),
    "workflow_error": Consequence(retry=False, backoff=False, systemic_exit_code="judge:scorer_error"),
    "vlm_error": Consequence(retry=True, backoff=False, systemic_exit_code="judge:api_error"),
    "render_env": Consequence(retry=False, backoff=False, systemic_exit_code="judge:scorer_error"),
    "asset_broken": Consequence(retry=False, backoff=False, systemic_exit_code="judge:scorer_error"),
    "dep_unjudged": Consequence(retry=False, backoff=False, systemic_exit_code=None),
    "not_applicable": Consequence(retry=False, backoff=False, systemic_exit_code=None),
}
"""Kind → consequence. Every `ErrorKind` has exactly one entry (a test pins this)."""


def consequence(kind: str) -> Consequence:
    """Return the consequence of an error kind.

    Raises:
        KeyError: for a string that is not an `ErrorKind`.
    """
    return CONSEQUENCES[kind]
