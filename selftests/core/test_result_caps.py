"""A runaway judge reason (20 MB) is cut in result.json, not copied verbatim; the verdict
itself (what the audit folder records) keeps it whole, and re-scoring stays exact."""

from __future__ import annotations

import json
import time

import pytest

from cowork_judge.core.caps import cap_text
from cowork_judge.core.fold import RunFacts, RunIdentity, fold, stored_run
from cowork_judge.core.result import (
    DETAILS_REASON_CHARS,
    LEVEL_RAW_CAP_CHARS,
    REASON_CAP_CHARS,
    ResultDocument,
    RewardDetails,
    result_level_raw,
)
from cowork_judge.core.rubric import normalize_rubric
from cowork_judge.core.scoring import ScoringPolicy
from cowork_judge.core.verdicts import parse_reply

ID = RunIdentity(metric_id="m", requested_version=None, version_source="package", judge_backend="openai", judge_model="x")
ROWS = normalize_rubric([
    {"id": "A", "description": "a", "weight": 2},
    {"id": "G", "description": "graded", "weight": 2, "levels": {"0": "none", "1": "all"}},
]).criteria
HUGE = 20_000_000


def test_a_20_mb_reason_is_cut_in_the_result_and_kept_in_the_verdict():
    reason = "The deck states revenue on slide 2. " + "x" * HUGE
    reply = json.dumps({"verdicts": [{"id": "A", "hit": True, "reason": reason},
                                     {"id": "G", "hit": True, "level": "y" * 100_000, "reason": "short"}]})
    t0 = time.monotonic()
    outcome = parse_reply(reply, ROWS)
    doc = fold(ROWS, outcome.verdicts, ScoringPolicy(), RunFacts(identity=ID))
    text = json.dumps(doc.model_dump(mode="json", by_alias=True), allow_nan=False)
    assert time.monotonic() - t0 < 30
    assert outcome.verdicts["A"].reason == reason  # the audit's copy is whole
    row = {r.id: r for r in doc.results}
    assert len(row["A"].reason) == REASON_CAP_CHARS
    assert row["A"].reason.startswith("The deck states revenue on slide 2. xxx")
    assert row["A"].reason.endswith(f"[cut from {len(reason)} characters]")
    assert row["G"].reason == "short" and len(row["G"].level_raw) == LEVEL_RAW_CAP_CHARS
    assert len(text) < 20_000  # not 20 MB
    assert doc.task_score == 1.0  # the cut changes no score (G: level unreadable ⇒ hit)
    details = RewardDetails.from_result(doc)
    assert len(details.rows[0].reason) == DETAILS_REASON_CHARS == 500
    again = fold(*stored_run(ResultDocument.model_validate_json(text)))
    assert again.model_dump(mode="json", by_alias=True) == doc.model_dump(mode="json", by_alias=True)


@pytest.mark.parametrize("length", [0, 1, REASON_CAP_CHARS - 1, REASON_CAP_CHARS, REASON_CAP_CHARS + 1, 10 * REASON_CAP_CHARS])
def test_cap_text_bounds_and_is_idempotent(length):
    text = "é" * length
    once = cap_text(text, REASON_CAP_CHARS)
    assert len(once) <= REASON_CAP_CHARS and cap_text(once, REASON_CAP_CHARS) == once
    assert (once == text) is (length <= REASON_CAP_CHARS)


@pytest.mark.parametrize(
    "raw,stored",
    [(None, None), (True, True), (0.5, 0.5), (7, 7), ("50%", "50%"), (float("nan"), "NaN"), (float("inf"), "Infinity"),
     ([0.5, 1], "[0.5, 1]"), ({"v": 1}, '{"v": 1}'), (10**60, str(10**60))],
)
def test_raw_levels_are_stored_json_safe_and_idempotent(raw, stored):
    assert result_level_raw(raw) == stored
    assert result_level_raw(result_level_raw(raw)) == stored
