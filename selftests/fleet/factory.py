"""Result documents for the fleet tests, built by the one fold (`core.fold.fold`), the same
function that builds every document of a live run."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cowork_judge.core.fold import RunFacts, RunFailure, RunIdentity, all_unjudged, fold
from cowork_judge.core.result import DeliveryDetails, ResultDocument
from cowork_judge.core.rubric import normalize_rubric
from cowork_judge.core.scoring import ScoringPolicy
from cowork_judge.core.verdicts import Verdict

IDENTITY = RunIdentity(metric_id="rubric_llm_judge", requested_version="0.1.0", version_source="injection",
                       judge_backend="openai", judge_model="sim-judge")
RUBRIC = [
    {"id": "R1", "description": "covers the topic", "weight": 3, "tag": "content", "tags": ["axis:completeness", "level:example"]},
    {"id": "R2", "description": "states the figures", "weight": 1, "tag": "content", "tags": ["axis:accuracy"],
     "depends_on": ["R1"]},
    {"id": "R3", "description": "graded clarity", "weight": 2, "tag": "style", "type": "gradient",
     "levels": {"0": "unclear", "0.5": "mixed", "1": "clear"}},
    {"id": "N1", "description": "makes things up", "weight": -1, "tag": "accuracy"},
]
ROWS = normalize_rubric(RUBRIC).criteria
DELIVERED = DeliveryDetails(files=["answer.md"], missing=False, from_chat=False, stray=[])
NOTHING = DeliveryDetails(files=[], missing=True, from_chat=False, stray=[])


def hit(row: str, value: bool = True, level: float | None = None, reason: str = "seen") -> Verdict:
    return Verdict(id=row, hit=value, level=level, judged=True, reason=reason)


def verdicts(r1: bool = True, r2: bool = True, r3: float | None = 1.0, n1: bool = False, *,
             unjudged: Mapping[str, str] | None = None, reasons: Mapping[str, str] | None = None) -> dict[str, Verdict]:
    """Verdicts of the four rows; `unjudged` maps a row to the error kind it failed with."""
    reasons = reasons or {}
    out = {"R1": hit("R1", r1, reason=reasons.get("R1", "seen")), "R2": hit("R2", r2, reason=reasons.get("R2", "seen")),
           "R3": hit("R3", (r3 or 0) > 0, level=r3, reason=reasons.get("R3", "seen")),
           "N1": hit("N1", n1, reason=reasons.get("N1", "seen"))}
    for row, kind in (unjudged or {}).items():
        out[row] = Verdict.unjudged(row, kind, f"{kind} while judging")  # type: ignore[arg-type]
    return out


def make_doc(vs: Mapping[str, Verdict] | None = None, *, policy: ScoringPolicy | None = None, delivery: DeliveryDetails = DELIVERED,
             skipped: bool = False, failure: str | None = None, rows=ROWS, exit_note: str | None = None) -> ResultDocument:
    """A document folded from `vs` (default: all rows hit, R3 at level 1)."""
    facts = RunFacts(identity=IDENTITY, delivery=delivery, seconds=1.5, calls=2, tokens=100, skipped=skipped, exit_note=exit_note,
                     failure=RunFailure(exit_code=failure, exit_reason="no key") if failure else None)  # type: ignore[arg-type]
    if skipped:
        return fold((), {}, policy or ScoringPolicy(), facts)
    if failure:
        vs = all_unjudged(rows, "no_credential", "no key")
    return fold(rows, vs if vs is not None else verdicts(), policy or ScoringPolicy(), facts)


def dump(doc: ResultDocument, **extra: Any) -> dict[str, Any]:
    """The document as written (by alias), plus top-level fields a producer may add."""
    return {**doc.model_dump(mode="json", by_alias=True), **extra}


def write(path: Path, doc: ResultDocument | dict[str, Any], **extra: Any) -> Path:
    """Write a document the way the judge writes result.json (2-space JSON, UTF-8)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = dump(doc, **extra) if isinstance(doc, ResultDocument) else doc
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
