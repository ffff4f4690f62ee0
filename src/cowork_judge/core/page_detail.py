"""How a per-page row's level was folded from its pages (ppt_judge visual rows, SPEC §9).

A workflow that judges a row page by page may attach a `PageAggregate` to the row's
verdict; the result row carries it as ``aggregate`` and its pages below level 1 as
``pages_below`` (page → level), so a reader can tell which pages cost the row points, what
the grid snap changed and which deterministic findings decided or only informed a cell.
Rows judged whole (agentic, code) have neither (None).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

FINDING_MESSAGE_CHARS = 200
"""A finding's message as kept in the result document (checks.json keeps it whole)."""
ROW_FINDINGS_CAP = 40
"""Findings kept per row in the result document (the decided ones first); checks.json keeps all."""


class PageFinding(BaseModel):
    """One deterministic finding tied to a row on one page.

    ``role``: ``decided`` = the finding set the row's cell on that page (level 0, no model
    call); ``informed`` = the cell went to the model with this finding in its prompt (an
    estimated finding, one below the row's ``min_confidence``, or a kind the row is not
    decided by) and ``level`` is what the model said.
    """

    model_config = ConfigDict(frozen=True)

    page: int = Field(description="1-based page number.")
    check: str = Field(description="Check kind (text_overflow, off_slide, text_overlap, ...).")
    measured: bool = Field(description="Measured on the rendered page (true) or estimated from stored properties (false).")
    confidence: float = Field(ge=0.0, le=1.0)
    role: Literal["decided", "informed"]
    level: float | None = Field(None, description="The row's level on that page (None: N/A or not judged).")
    message: str = Field("", description=f"The finding's message, at most {FINDING_MESSAGE_CHARS} characters.")


class PageAggregate(BaseModel):
    """How the row's pages were folded into its level.

    ``level = snap_down(power_mean(judged page levels, p))``: the highest step of the
    21-step grid not above the exact mean (``mean``), so a mean below 1 is never reported
    or scored as 1; ``snap_changed = mean − level`` (0 ≤ snap_changed < 0.05).
    """

    model_config = ConfigDict(frozen=True)

    rule: Literal["power_mean"] = "power_mean"
    p: float = Field(description="Power-mean exponent across pages (1 = mean; ≤ 0: a page at 0 gives 0).")
    critical: bool = Field(False, description="The row is critical (its exponent came from the critical default or its own).")
    pages_judged: int = Field(0, ge=0, description="Pages with a level.")
    pages_na: int = Field(0, ge=0, description="Pages judged N/A (left out of the mean).")
    pages_not_judged: int = Field(0, ge=0, description="Pages lost (budget, model error, render).")
    mean: float = Field(description="The exact power mean of the judged pages' levels.")
    level: float = Field(description="The reported and scored level: `mean` snapped down to the grid.")
    snap_changed: float = Field(0.0, ge=0.0, description="mean − level: what the snap took off.")
    findings: list[PageFinding] = Field(default_factory=list,
                                        description=f"Findings of the row's check kinds, at most {ROW_FINDINGS_CAP}.")
