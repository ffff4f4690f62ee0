"""The result document (`result.json`) and the compact per-row view for Harbor's viewer.

Pydantic models with a `schema` version field; the JSON Schema published in the package
(``schemas/result.schema.json``) is generated from `ResultDocument` and a test keeps the
two identical. `extra_fields` has the same keys on every path (SPEC §12). Closed
vocabularies stay closed here: ``error_kind`` is an `ErrorKind`, ``exit_code`` an
`ExitCode`, ``method`` a verdict `Method`. Documents are built by `core.fold.fold` only.
"""

from __future__ import annotations

import json
import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from cowork_judge.core.caps import cap_text
from cowork_judge.core.cost import JudgeCost
from cowork_judge.core.coverage import MethodStats
from cowork_judge.core.error_kinds import ErrorKind, ExitCode
from cowork_judge.core.page_detail import PageAggregate
from cowork_judge.core.sampling import Sample, SamplingRecord, omit_defaults
from cowork_judge.core.scoring import ScoringPolicy
from cowork_judge.core.verdicts import Method
from cowork_judge.core.findings import GuardReport
from cowork_judge.core.integrity import INTEGRITY_SCHEMA

RESULT_SCHEMA = "cowork-judge/result/v1"
DETAILS_SCHEMA = "cowork-judge/reward-details/v1"

QUOTE_CAP_CHARS = 1000
"""Longest judge quote a result document keeps (the audit folder keeps it whole)."""
REASON_CAP_CHARS = 4000
"""Longest reason a row keeps in ``result.json``. The judge is asked for a short reason
(a few sentences, well under 1,000 characters); 4,000 leaves room for a workflow's
per-page notes or a code method's list of candidate files, and bounds ``results[]`` to
about 0.8 MB at 200 rows, so one runaway reply (a 20 MB "reason") cannot bloat the
document every fleet tool reads. The audit folder (``judge/``) keeps the full reply;
``reward-details.json`` keeps its own shorter `DETAILS_REASON_CHARS`."""

DETAILS_REASON_CHARS = 500
"""Reason length in ``reward-details.json`` (a one-screen view for Harbor's viewer)."""

LEVEL_RAW_CAP_CHARS = 200
"""Longest judge-written level kept in the result (a level is a number; anything longer is
kept only to show what went wrong, and the audit folder has all of it)."""


def result_level_raw(value: Any) -> Any:
    """A judge's raw level as the result document stores it: JSON-safe and bounded.

    Null, booleans and finite numbers of at most 40 characters stay as they are; anything
    else (a string, NaN/±inf, a list or object, a huge number) becomes a string — its JSON
    text unless it was a string — capped at `LEVEL_RAW_CAP_CHARS`. NaN is kept as the text
    ``NaN`` (a JSON writer would turn the number into null, losing what the judge said).
    Idempotent.
    """
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and math.isfinite(value) and len(repr(value)) <= 40:
        return value
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return cap_text(text, LEVEL_RAW_CAP_CHARS)


class ExtraFields(BaseModel):
    """Fields downstream filters read; ALWAYS present with the same keys on every path."""

    model_config = ConfigDict(extra="forbid")

    passed: bool = Field(description="score_normalized against JUDGE_PASS_THRESHOLD/JUDGE_PASS_COMPARE; false for a "
                         "run with status error (a systemic run is never passed; exit_code and exit_reason say why).")
    judge_coverage: float = Field(description="Judged rows / all rows in [0, 1]; 0 when nothing was judged. A row judged "
                                  "on fewer answers than a sampled run asked for (a lost sample, a panel judge down) is "
                                  "judged: judge_degraded and details.sampling.lost carry that.")
    judge_unjudged: int = Field(description="Rows not judged.")
    judge_degraded: bool = Field(description="Some rows were not judged, or (JUDGE_SAMPLES, JUDGE_PANEL) some judged row "
                                 "kept fewer answers than were asked for — a sample lost, a panel judge down "
                                 "(details.sampling.lost) — or the run failed.")
    judge_error_kind: ErrorKind | None = Field(description="Real cause of the degradation, e.g. rate_limit, deadline: of the "
                                               "unjudged rows, else of the lost samples.")
    judge_seconds: float = Field(description="Wall seconds of the run.")
    judge_evidence_pages: int = Field(description="Pages rendered as evidence (0 = none or no renderer).")
    judge_methods: dict[str, MethodStats] = Field(description="method → {n, judged, coverage}.")
    judge_coverage_by_method: dict[str, float] = Field(description="method → coverage.")
    judge_unjudged_weight_frac: float = Field(description="Unjudged share of the positive weight.")
    judge_called: bool = Field(description="At least one model call was made.")
    delivery_missing: bool = Field(description="Nothing was delivered (no files, no final message).")
    delivery_from_chat: bool = Field(description="No files; the final chat message was judged.")
    judge_calls: int = Field(description="Model HTTP calls made (retries included).")
    judge_tokens: int = Field(description="Tokens reported by the endpoint (prompt + completion).")


class RowResult(BaseModel):
    """One row's verdict and its part in the score."""

    id: str
    hit: bool | None = Field(description="The row's hit; a graded row's follows its level: level > 0, or level ≥ the "
                             "row's pass_level when it sets one. None when not judged.")
    level: float | None = Field(description="Snapped level of a graded row as scored; None when scored by hit.")
    level_fallback: bool = Field(False, description="A graded row scored by its hit because the judge's level could not "
                                 "be read (missing, NaN/inf, outside [0, 1]) or contradicts the judge's own hit:false "
                                 "(a level above 0, or at or above pass_level: scored as a miss); level_raw holds what it "
                                 "said.")
    level_raw: Any = Field(None, description="The level as the judge returned it (also in criteria[]), JSON-safe: a "
                           "number stays a number; NaN/inf, lists and objects become their JSON text; at most 200 characters.")
    judged: bool
    reason: str = Field(description="The verdict's reason, at most REASON_CAP_CHARS (4000) characters; a longer one is "
                        "cut and says its full length (the audit folder keeps it whole).")
    method: Method
    error_kind: ErrorKind | None
    gate: Literal["open", "closed"] | None
    weight: float = Field(description="Effective weight as scored.")
    counted_hit: bool | None = Field(None, description="Hit as scored: the raw hit, or for an unjudged row the policy's "
                                     "answer (deductions and hurdles count as hit under JUDGE_UNJUDGED_NEGATIVE=deduct); false for a positive row "
                                     "whose gate is closed (its credit is withheld, reason marked [gate]). "
                                     "None when no score was computed.")
    contribution: float = Field(description="The row's term in E (weight × level × gate, or the deduction).")
    attempts: int = 0
    seconds: float = 0.0
    evidence: list[str] = Field(default_factory=list)
    pages_below: dict[str, float] | None = Field(
        None, description="Per-page rows (ppt_judge visual): page number → level of every judged page below 1; "
        "None for rows judged whole.")
    aggregate: PageAggregate | None = Field(
        None, description="Per-page rows: the power mean's exponent, the exact mean, what the downward grid snap "
        "changed, and the deterministic findings that decided or informed a page (with measured true/false).")
    cached: bool = Field(False, description="The verdict came from the verdict cache (JUDGE_VERDICT_CACHE): no model call "
                         "was made for this row in this run.")
    samples: list[Sample] | None = Field(
        None,
        description="Only when sampled (JUDGE_SAMPLES > 1 or JUDGE_PANEL): every answer the verdict was reduced from, per "
        "sample its judge, hit, level (graded), N/A, page or pass (ppt_judge), reason, or the error_kind of a sample that did "
        "not come back (the row keeps what the others said).")
    agreement: float | None = Field(
        None,
        description="Only when sampled: 1 − mean |sample − verdict| over the answered samples, in [0, 1] (the share of "
        "agreeing samples for a binary row); page and pass rows average their units'. Absent with fewer than two answers.")

    quote: str | None = Field(None, description="Only when the judge gave one: its verbatim quote from the evidence text "
                              "(at most QUOTE_CAP_CHARS, 1000, characters).")
    grounded: bool | None = Field(None, description="Only for a credited verdict (a hit on a positive row, a miss on a "
                                  "negative one) on text the judge was shown: true when its quote was found in the evidence "
                                  "text sent, false when not even after one re-ask (scored by details.policy.ungrounded, "
                                  "JUDGE_UNGROUNDED). Absent when no quote is needed; an exempt row says so in grounding.")
    grounding: str | None = Field(None, description="Why grounded is what it is: found, not found (and that it was asked "
                                  "again), or the exemption (judged on page images; a row about absence).")

    @model_serializer(mode="wrap")
    def _sampled_only(self, handler: SerializerFunctionWrapHandler) -> Any:
        return omit_defaults(handler(self), {"samples": None, "agreement": None, "quote": None, "grounded": None,
                                             "grounding": None})


class DeliveryDetails(BaseModel):
    """What was handed in, as file names relative to where they were found."""

    files: list[str]
    missing: bool
    from_chat: bool
    stray: list[str]
    ignored: list[str] = Field(default_factory=list)
    final_message_source: str | None = None


class Details(BaseModel):
    """Diagnostics: delivery, score terms, warnings, where the instruction came from."""

    delivery: DeliveryDetails
    weight_total: float | None = None
    earned: float | None = None
    weight_fallback: bool = False
    instruction_source: str | None = None
    warnings: list[str] = Field(default_factory=list)
    evidence: dict[str, Any] = Field(default_factory=dict)
    policy: ScoringPolicy | None = Field(None, description="The scoring policy the document was folded with (None in 0.1.0 documents).")
    fingerprint: dict[str, Any] | None = Field(None, description="What decided the verdicts (run.fingerprint): digest, judge "
                                               "version, backend, model, endpoint (masked), sampling settings, rubric, task "
                                               "prompt and instruction SHA-256. None in documents of older versions.")
    run_id: str | None = Field(None, description=(
        "A random id of the judging run that wrote the document (32 hex digits, `uuid4`), covered by the seal: two "
        "documents with the same run_id are copies of one run (`summarize` counts the second as `duplicate`). "
        "Kept by `rescore`; absent in documents of versions before 2.0 and in the last-resort fallback document."))
    interrupted: bool = Field(False, description="A signal (SIGTERM, SIGINT) ended the run before every row was judged: "
                              "the reward is of a cut run, and batch resume judges the instance again.")
    settings_invalid: list[str] = Field(default_factory=list, description=(
        "Only when some are: the environment variables of settings that change the verdicts or the reward (a guard "
        "mode, the reward mode, a threshold…) whose value was invalid, so the run was scored under the default "
        "instead (the warning is in `warnings`; `summarize` counts these documents; `batch` refuses such values)."))
    sampling: SamplingRecord | None = Field(None, description=(
        "Only when the run sampled (JUDGE_SAMPLES > 1 or JUDGE_PANEL): samples per judge, mode, vote, temperature, "
        "the judges with their weights, each judge's coverage and the answers the judged rows lost."))

    @model_serializer(mode="wrap")
    def _sampled_only(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = omit_defaults(handler(self), {"sampling": None, "run_id": None})
        if isinstance(data, dict) and data.get("settings_invalid") == []:
            del data["settings_invalid"]  # written only when some setting was invalid: 0.2 documents keep their shape
        return data


class ResultDocument(BaseModel):
    """The result of one judge run (``/logs/verifier/result.json``)."""

    model_config = ConfigDict(populate_by_name=True)

    schema_: str = Field(RESULT_SCHEMA, alias="schema", description="Document schema version.")
    status: Literal["success", "error", "skipped"] = Field(description="success ⇔ no exit_code.")
    exit_code: ExitCode | None
    exit_reason: str | None
    task_score: float | None = Field(description="= reward (None only when skipped).")
    score_raw: float | None = Field(description="E / W unclipped; None when no score was computed.")
    score_normalized: float | None
    fatal: bool
    metric_id: str
    version: str
    abi: int
    requested_version: str | None
    version_source: str
    judge_backend: str
    judge_model: str
    results: list[RowResult]
    criteria: list[dict[str, Any]] = Field(description="Normalized rows with derived fields and level_raw.")
    details: Details
    extra_fields: ExtraFields
    guard: GuardReport = Field(default_factory=GuardReport, description="What the guard found in the agent's text "
                               "(JUDGE_GUARD): mode, flagged, findings; penalized when a flagged sample's reward was set to 0.")
    judge_agreement: float | None = Field(None, description=(
        "Only when the run sampled (details.sampling): the rows' agreement averaged with |weight| as weights; null when no "
        "row has two answers. Computed over the answers that came back: with a panel judge down it is the other "
        "judges' agreement (details.sampling.lost says whom it lacks)."))
    judge_cost_usd: float | None = Field(None, description=(
        "Only when JUDGE_PRICES is set: what the run's model calls cost in US dollars (judge_cost.usd); null when some "
        "model called has no price or its tokens were not reported split (never a guess)."))
    judge_cost: JudgeCost | None = Field(None, description=(
        "Only when JUDGE_PRICES is set: tokens (input, cached input, output) and dollars per model."))

    @model_serializer(mode="wrap")
    def _configured_fields_only(self, handler: SerializerFunctionWrapHandler) -> Any:
        """Sampling and cost fields are written only by runs configured for them, so a run
        without JUDGE_SAMPLES, JUDGE_PANEL and JUDGE_PRICES writes the document of 0.2."""
        data = handler(self)
        if isinstance(data, dict):
            if self.details.sampling is None:
                data.pop("judge_agreement", None)
            if self.judge_cost is None:
                data.pop("judge_cost_usd", None)
                data.pop("judge_cost", None)
        return data


class DetailsRow(BaseModel):
    """One line of ``reward-details.json``."""

    id: str
    weight: float
    hit: bool | None
    level: float | None
    contribution: float
    judged: bool
    error_kind: ErrorKind | None
    reason: str


class RewardDetails(BaseModel):
    """Compact per-row view that Harbor's viewer shows (``reward-details.json``)."""

    model_config = ConfigDict(populate_by_name=True)

    schema_: str = Field(DETAILS_SCHEMA, alias="schema")
    reward: float | None
    status: Literal["success", "error", "skipped"]
    exit_code: ExitCode | None
    coverage: float
    rows: list[DetailsRow]
    guard: GuardReport = Field(default_factory=GuardReport)

    @classmethod
    def from_result(cls, doc: ResultDocument) -> RewardDetails:
        """Derive the compact view from a result document."""
        return cls(
            reward=doc.task_score,
            status=doc.status,
            exit_code=doc.exit_code,
            coverage=doc.extra_fields.judge_coverage,
            guard=doc.guard,
            rows=[
                DetailsRow(
                    id=r.id,
                    weight=r.weight,
                    hit=r.hit,
                    level=r.level,
                    contribution=r.contribution,
                    judged=r.judged,
                    error_kind=r.error_kind,
                    reason=r.reason[:DETAILS_REASON_CHARS],
                )
                for r in doc.results
            ],
        )


_SHA256 = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
INTEGRITY_PROPERTY: dict[str, Any] = {
    "title": "Integrity", "type": "object",
    "description": ("The seal the writer added (cowork_judge.core.integrity, issue 39): SHA-256 of the document without this key "
                    "as canonical JSON, and of reward.txt / reward.json written with it (null: not covered). Not part of the "
                    "folded document: readers check it (batch resume, rescore, summarize) and refuse what no longer matches. "
                    "Absent in documents written before seals (0.2.0)."),
    "properties": {"schema": {"const": INTEGRITY_SCHEMA, "type": "string"}, "result_sha256": _SHA256,
                   "reward_txt_sha256": {"anyOf": [_SHA256, {"type": "null"}]},
                   "reward_json_sha256": {"anyOf": [_SHA256, {"type": "null"}]}},
    "required": ["schema", "result_sha256", "reward_txt_sha256", "reward_json_sha256"],
}
"""The ``integrity`` property of the published schema (written beside the model's fields, never read into it)."""


def result_json_schema() -> dict[str, Any]:
    """The published JSON Schema of `ResultDocument` (by alias: ``schema``, not ``schema_``), with
    the original 1.3.6's fields that every written document also carries (`core.legacy`) and the
    writer's ``integrity`` seal (`INTEGRITY_PROPERTY`)."""
    from cowork_judge.core.legacy import LEGACY_DETAILS_PROPERTIES, LEGACY_RESULT_PROPERTIES

    schema = ResultDocument.model_json_schema(by_alias=True)
    schema["properties"].update(LEGACY_RESULT_PROPERTIES)
    schema["$defs"]["Details"]["properties"].update(LEGACY_DETAILS_PROPERTIES)
    schema["$id"] = RESULT_SCHEMA
    schema["properties"]["schema"]["const"] = RESULT_SCHEMA
    schema["properties"]["integrity"] = INTEGRITY_PROPERTY
    schema["required"] = ["schema", *schema["required"]]
    return schema


def counts_as_passed(doc: ResultDocument) -> bool:
    """Whether a stored document counts as passed: ``extra_fields.passed`` and not ``status:
    error``. A systemic run is never passed; documents written before trial 29 (P-1) could
    carry ``passed: true`` beside ``status: error``, and pass rates and the report page read
    them by this rule, as a document written now records it."""
    return bool(doc.extra_fields.passed) and doc.status != "error"
