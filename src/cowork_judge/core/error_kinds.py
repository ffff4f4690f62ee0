"""The failure vocabulary: every way a row can end up unjudged (`ErrorKind`), the exception
that carries one (`JudgeFailure`), and the only `exit_code` values a result document may
carry (`ExitCode`). SPEC §7.5, §12.

What each kind implies is `core.consequences`; how an exception becomes a kind is
`core.classify`. Pure: no I/O, no clock, no configuration.
"""

from __future__ import annotations

from typing import Literal, get_args

ErrorKind = Literal[
    # transport / model (agentic backends, workflow model calls)
    "rate_limit",  # HTTP 429, "rate limit", "quota exceeded", errors inside a 200 stream
    "insufficient_quota",  # the account has no credit: gives up at once
    "timeout",  # a call or block ran past its time limit
    "api_error",  # other transient transport failures (5xx, connection reset, broken stream)
    "request_rejected",  # a permanent 4xx (bad request, auth, not found): retrying cannot help
    "parse_error",  # the reply held no usable verdict for the row
    "deadline",  # the run's JUDGE_DEADLINE was reached before the row was judged
    "interrupted",  # the process was stopped by a signal (SIGTERM, SIGINT) before the row was judged
    "over_limit",  # no longer produced (0.2.0): read limits are judged against the deliverable; kept for 0.1.0 documents
    "no_credential",  # a model was needed and no credentials were configured
    "delivery_unreadable",  # the agent's final message exists but could not be read, or the app dir is missing: nothing was scored
    "backend_missing",  # the configured agentic backend cannot run here
    "backend_error",  # the agentic backend crashed outside a model call (e.g. workspace I/O)
    # router / segments (SPEC §7.5)
    "code_error",  # a code method raised
    "code_timeout",  # a code method ran past JUDGE_CODE_TIMEOUT
    "code_missing",  # code_method_name is not registered in CODE_METHODS
    "code_params",  # code_method_params do not fit the method (an unknown key, a bad value): the rubric's fault
    "no_text",  # a text code row on a hurdle or deduction found only binary files to search (a deck): it could not look
    "workflow_missing",  # workflow not found, failed to import, ABI mismatch, no router
    "workflow_error",  # a workflow raised, overran its budget, or returned no verdict for the row
    "vlm_error",  # a workflow's vision-model call failed
    "render_env",  # the image lacks a renderer (LibreOffice/Chromium): not the deck's fault
    "extras_missing",  # the verifier lacks the judge extras the row needs (python-pptx, lxml, PyMuPDF…): run init again
    "evidence_budget",  # the evidence budget (JUDGE_EVIDENCE, a share of JUDGE_DEADLINE) ran out before the deck (or page) was rendered
    "asset_broken",  # a per-instance workflow asset is missing or unreadable
    "dep_unjudged",  # a dependency was not judged, so this row was not judged either
    "dep_missing",  # a depends_on id names no row of the rubric (a typo): the row is not judged
    "not_applicable",  # a workflow judged every page N/A and the row's na_policy is "unjudged"
    "trajectory_missing",  # a row about what the agent did found no readable ATIF trajectory, or not what it needs (an exit status)
    "no_verdict",  # a segment returned without any verdict for the row (an engine bug, never a transport failure)
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

EXIT_CODES: tuple[str, ...] = get_args(ExitCode)


class JudgeFailure(Exception):
    """An exception that knows its `ErrorKind`.

    Code methods, workflows and transports raise subclasses (`kind` as a class attribute
    or per instance), so that `classify` needs no list of every module's exceptions.
    """

    kind: ErrorKind = "api_error"

    def __init__(self, message: str = "", *, kind: ErrorKind | None = None) -> None:
        super().__init__(message)
        if kind is not None:
            self.kind = kind
