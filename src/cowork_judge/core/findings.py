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
the reward 0 when the guard flags and the flag is confirmed (`Confirmation`)."""

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


class Unscanned(BaseModel):
    """A part of a deliverable the guard did not read (it is not covered by ``flagged``)."""

    model_config = ConfigDict(extra="forbid")

    file: str = Field(description="Deliverable path relative to the output folder.")
    part: str | None = Field(None, description="The part of a package (DOCX/XLSX XML part), or the piece of extracted text "
                             "cut by the run's scan budget (its channel and page); None for the file itself.")
    offset: int = Field(ge=0, description="First byte not read (of the file, or of the part); of a cut piece of text, its "
                        "first character not scanned.")
    size: int = Field(ge=0, description="The file's (or part's) size in bytes.")
    reason: str


class Confirmation(BaseModel):
    """Under ``penalize``, the flagged sample's model rows judged again with the flagged spans
    masked (issue 35): a finding costs the reward only when a row's verdict is better with the
    span than without it."""

    model_config = ConfigDict(extra="forbid")

    spans: int = Field(0, ge=0, description="Spans masked (a block of lines, a comment, a deck run, a file name).")
    masked_files: list[str] = Field(default_factory=list, description="Deliverables judged again with spans masked.")
    message_masked: bool = Field(False, description="The final message had spans masked.")
    rows_rejudged: list[str] = Field(default_factory=list, description="Row ids judged a second time.")
    rows_changed: list[str] = Field(default_factory=list,
                                    description="Rows whose verdict was better with the flagged text than without it.")
    extra_calls: int = Field(0, ge=0, description="Model calls the second judging made.")
    confirmed: bool = Field(False, description="At least one row changed: the attempt is confirmed and penalized.")
    error: str | None = Field(None, description="Why confirmation could not run (the flag then stands as confirmed).")


class GuardReport(BaseModel):
    """The ``guard`` block of ``result.json`` and ``reward-details.json``.

    ``flagged`` is True when at least one finding ``flags``; under ``penalize`` a flagged
    sample's reward is 0 (``penalized``; the rows keep their verdicts and the raw score:
    the sample is scored, not masked).
    """

    model_config = ConfigDict(extra="forbid")

    mode: GuardMode = "flag"
    scanned: bool = Field(False, description="The guard read the agent's text (False: off, no model-judged row, or the run ended "
                                     "before delivery).")
    flagged: bool = False
    penalized: bool = Field(False, description="The reward was set to 0 because the guard flagged (mode penalize).")
    reason: str | None = Field(None, description="Why the reward was set to 0, when penalized.")
    findings: list[Finding] = Field(default_factory=list)
    findings_dropped: int = Field(0, ge=0, description=f"Findings past the first {MAX_FINDINGS} (not listed).")
    channels: dict[str, int] = Field(default_factory=dict, description="Characters scanned per channel.")
    unscanned: list[Unscanned] = Field(default_factory=list,
                                       description="What the guard did not read (past its read window); never covered by "
                                                   "`flagged`.")
    confirmation: Confirmation | None = Field(None, description="Under penalize, the flagged sample re-judged with the "
                                              "flagged spans masked (None: not flagged, or not penalize).")
    row: bool = Field(False, description="JUDGE_GUARD_ROW: the model was also asked whether the agent addressed the evaluator.")
    row_hit: bool | None = Field(None, description="The model's answer to the guard row (None: not asked or not judged). "
                                 "Recorded only: it never flags, never penalizes, never weighs in the score.")
    row_reason: str | None = Field(None, description="The model's reason for the guard row (at most 500 characters).")

    @property
    def kinds(self) -> list[str]:
        """Distinct kinds of the flagging findings, sorted."""
        return sorted({f.kind for f in self.findings if f.flags})
