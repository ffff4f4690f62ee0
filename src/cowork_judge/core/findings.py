"""The guard's typed findings and its report in the result document (``guard``).

A `Finding` says where text the agent wrote addresses the evaluator: the channel it came
through, the file and line (or page / slide), the kind, the rule that matched and a short
excerpt. `GuardReport` is what ``result.json`` and ``reward-details.json`` carry.
Pure data: no I/O, no imports from the rest of the package.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

GuardMode = Literal["off", "flag", "penalize"]
"""``JUDGE_GUARD``: ``off`` does not scan; ``flag`` records findings; ``penalize`` also makes
the reward 0 when the guard flags."""

Channel = Literal["final_message", "trajectory", "deliverable", "file_name", "deck_text", "hidden_text", "alt_text"]
"""Where the text came from: the final chat message, the trajectory's last answer, a
deliverable's extracted text, a deliverable's file name, the visible text of a deck,
deck text a viewer does not see (speaker notes, off-slide, hidden slide or shape, under
4 pt, coloured as its background), a picture's or shape's alternative text."""

Kind = Literal["evaluator_address", "fake_protocol", "master_key", "hidden_text"]
"""What was found: text addressed to the evaluator (an instruction to a grader or model
with scoring vocabulary), fake protocol (role markers, closing tags of the judge's own
fences, verdict-shaped JSON, ``GRADE:`` / ``hit: true`` lines), an answer that is nothing
but a known master-key token, or invisible deck text (flagging when it carries one of
the others, informational otherwise)."""

EXCERPT_CHARS = 120
"""Longest excerpt a finding keeps (the match with a little context, whitespace folded)."""
MAX_FINDINGS = 50
"""Findings kept in one report (the rest are counted in `GuardReport.findings_dropped`)."""


class Finding(BaseModel):
    """One place where the agent's text addresses the evaluator (or hides text)."""

    model_config = ConfigDict(extra="forbid")

    channel: Channel
    file: str | None = Field(None, description="Deliverable path relative to the output folder; None for the final message.")
    line: int | None = Field(None, description="1-based line of the text (text channels).")
    page: int | None = Field(None, description="1-based page (PDF) or slide (deck).")
    kind: Kind
    rule: str = Field(description="The rule that matched, e.g. 'en.full_marks' or 'hidden:notes'.")
    excerpt: str = Field(description=f"At most {EXCERPT_CHARS} characters around the match, secrets redacted.")
    flags: bool = Field(True, description="Counts towards `flagged` (False: informational, e.g. harmless invisible deck text).")


class GuardReport(BaseModel):
    """The ``guard`` block of ``result.json`` and ``reward-details.json``.

    ``flagged`` is True when at least one finding ``flags``; under ``penalize`` a flagged
    sample's reward is 0 (``penalized``; the rows keep their verdicts and the raw score:
    the sample is scored, not masked).
    """

    model_config = ConfigDict(extra="forbid")

    mode: GuardMode = "flag"
    scanned: bool = Field(False, description="The guard read the agent's text (False: off, or the run ended before delivery).")
    flagged: bool = False
    penalized: bool = Field(False, description="The reward was set to 0 because the guard flagged (mode penalize).")
    reason: str | None = Field(None, description="Why the reward was set to 0, when penalized.")
    findings: list[Finding] = Field(default_factory=list)
    findings_dropped: int = Field(0, ge=0, description=f"Findings past the first {MAX_FINDINGS} (not listed).")
    channels: dict[str, int] = Field(default_factory=dict, description="Characters scanned per channel.")
    row: bool = Field(False, description="JUDGE_GUARD_ROW: the model was also asked whether the agent addressed the evaluator.")
    row_hit: bool | None = Field(None, description="The model's answer to the guard row (None: not asked or not judged). "
                                 "Recorded only: it never flags, never penalizes, never weighs in the score.")
    row_reason: str | None = Field(None, description="The model's reason for the guard row (at most 500 characters).")

    @property
    def kinds(self) -> list[str]:
        """Distinct kinds of the flagging findings, sorted."""
        return sorted({f.kind for f in self.findings if f.flags})
