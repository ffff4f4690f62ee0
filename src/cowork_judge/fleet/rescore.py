"""Re-scoring a stored result document: new rubric weights, reward mode, threshold or
unjudged-negative rule, through the one fold of the live run, with zero model calls.

Pure: document in, document out. `core.fold.stored_run` recovers the criteria, verdicts,
policy and run facts a document was folded from, and `core.fold.fold` folds them again,
so a rescore with no change reproduces the stored document exactly (the parity test in
``selftests/fleet/test_rescore.py``). With a new rubric:

- a row whose id has a stored verdict keeps that verdict when it asks the same question
  (`Criterion.as_asked`: description, polarity — the weight's sign, the hurdle flag —,
  type and levels, what the verdict cache keys on): a new weight magnitude is a pure re-score;
- a row that asks another question (reworded, polarity flipped, binary↔graded, a new
  level table) is unjudged ``no_verdict`` (`CHANGED_ROW`) and ``details.warnings`` names
  it and what changed (`changed_warnings`): the stored verdict answered another question;
  so is a row judged otherwise (`Criterion.judging_changes`: judge method, code method or
  params, workflow fields and inputs), and a stored gate closure the new rubric no longer
  imposes (`GATE_GONE`; trial 13 F1) — a code row is not re-run here;
- a row with no stored verdict is unjudged ``no_verdict`` with the reason
  `NO_STORED_VERDICT` — it counts in coverage and may make the document degraded or
  systemic under the policy's thresholds, exactly as in a live run;
- but when the stored run delivered nothing (`stored_no_delivery`: ``delivery_missing``,
  every row decided ``[no delivery]`` with no model call), a new or changed row is scored
  as the live run scores it (`core.fold.nothing_delivered`: a miss, a hurdle hit) — no
  model is needed to know nothing was delivered, so the document stays a clean
  "nothing delivered" 0 (trial 11 F11);
- stored verdicts of rows the new rubric no longer has are dropped (and never open a gate).

The guard's policy (``rescore --guard off|flag|penalize``, issue 27's ``JUDGE_GUARD``) is
applied again to the stored findings the same way: the fold's `core.fold.apply_guard`
decides the reward from ``guard.mode`` and ``guard.flagged``, so a sample flagged by
mistake under ``penalize`` gets its judged reward back under ``flag`` or ``off``, and a
flagged sample of a ``flag`` run is penalized under ``penalize`` — with no model call and
no new scan: the findings, what was scanned and the guard row's answer are kept as
stored, and ``guard.mode`` records the policy applied.

A changed document says so in ``details.warnings`` (`provenance`): what changed, and the
SHA-256 of the new rubric file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from cowork_judge.core.cost import Price, judge_cost
from cowork_judge.core.fold import HURDLE_ON_NO_DELIVERY, NO_DELIVERY_REASON, RunFacts, fold, nothing_delivered, stored_run
from cowork_judge.core.result import ResultDocument
from cowork_judge.core.rubric import Criterion
from cowork_judge.core.sampled import revote, whole_row
from cowork_judge.core.sampling import Vote
from cowork_judge.core.scoring import ScoringPolicy, check_scorable
from cowork_judge.core.verdicts import Verdict
from cowork_judge.core.findings import GuardMode

NO_STORED_VERDICT = "not judged: the stored result has no verdict for this row (rescoring makes no model calls)"
CHANGED_ROW = ("not judged: the row changed since its verdict was stored ({changes}); the stored verdict answers another "
               "question (rescoring makes no model calls)")
POLICY_FIELDS = tuple(ScoringPolicy.model_fields)
"""Policy fields a rescore may change: reward_mode, pass_threshold, pass_compare,
unjudged_negative, systemic_fraction, systemic_min."""


def rescore(doc: ResultDocument, *, criteria: Sequence[Criterion] | None = None, policy_changes: Mapping[str, Any] | None = None,
            note: str | None = None, samples_vote: Vote | None = None, guard: GuardMode | None = None) -> ResultDocument:
    """Fold `doc`'s stored verdicts again under a new rubric and/or policy.

    Args:
        doc: a stored result document (a document without ``details.policy``, written by
            0.1.0, is read with the default policy).
        criteria: the new rubric's normalized rows; None keeps the stored rows.
        policy_changes: policy field → new value (see `POLICY_FIELDS`); validated.
        note: appended to ``details.warnings`` (see `provenance`); None adds nothing.
        samples_vote: reduce every row's stored samples again under this panel vote
            (`core.sampled.revote`; ``rescore --samples-vote``) and record it in
            ``details.sampling``; rows answered page by page or pass by pass keep their
            stored verdict (their fold needs what a sample does not carry). None: as stored.
        guard: apply this guard policy to the stored findings (``guard.mode``; see the module
            docstring). None: the stored policy.

    Returns:
        The new document. With no criteria, no changes and no note it equals `doc`.

    Raises:
        pydantic.ValidationError: a policy value is out of range, or a stored row is not a
            valid criterion.
        ScoringError: the new rubric has no positive weight.
    """
    stored_rows, verdicts, policy, facts = stored_run(doc)
    if policy_changes:
        unknown = set(policy_changes) - set(POLICY_FIELDS)
        if unknown:
            raise ValueError(f"unknown policy field(s): {', '.join(sorted(unknown))}")
        policy = ScoringPolicy.model_validate({**policy.model_dump(), **policy_changes})
    if samples_vote is not None and facts.sampling is not None:
        weights = facts.sampling.weights()
        by_id = {c.id: c for c in stored_rows}
        verdicts = {cid: revote(v, by_id[cid], weights=weights, how=samples_vote) if cid in by_id else v
                    for cid, v in verdicts.items()}
        facts = facts.model_copy(update={"sampling": facts.sampling.model_copy(update={"vote": samples_vote})})
    if guard is not None and facts.guard is not None:
        facts = facts.model_copy(update={"guard": facts.guard.model_copy(update={"mode": guard})})
    rows = tuple(criteria) if criteria is not None else stored_rows
    if criteria is not None:
        if facts.failure is None and not facts.skipped:
            check_scorable(rows)
        changed = changed_questions(stored_rows, rows, verdicts)
        empty = stored_no_delivery(verdicts, facts)
        if empty is not None:  # trial 11 F11: as the live run, with no model call: not no_verdict
            fresh = nothing_delivered([c for c in rows if c.id in changed or not _judged(verdicts.get(c.id))], empty)
            verdicts = {c.id: fresh.get(c.id) or verdicts[c.id] for c in rows}
        else:
            verdicts = {c.id: Verdict.unjudged(c.id, "no_verdict", CHANGED_ROW.format(changes=", ".join(changed[c.id])),
                                               method=c.judge_method) if c.id in changed
                        else verdicts.get(c.id) or Verdict.unjudged(c.id, "no_verdict", NO_STORED_VERDICT, method=c.judge_method)
                        for c in rows}
        facts = facts.model_copy(update={"warnings": (*facts.warnings,
                                                      *changed_warnings(changed, nothing_delivered=empty is not None))})
    if note:
        facts = facts.model_copy(update={"warnings": (*facts.warnings, note)})
    return fold(rows, verdicts, policy, facts)


def changed_questions(stored_rows: Sequence[Criterion], rows: Sequence[Criterion],
                      verdicts: Mapping[str, Verdict | None]) -> dict[str, list[str]]:
    """Rows of a new rubric whose stored verdict does not answer the new row: row id → what changed.

    For each row of `rows` that has a stored row and a stored verdict under its id: the row asks
    another question (`Criterion.question_changes`: description, polarity, hurdle, type, levels …, the
    verdict cache's notion of "the same row"), or is judged otherwise (`Criterion.judging_changes`: its
    judge method, code method or params, workflow fields such as ``page_mean_p``, a workflow's inputs
    such as answer_match's reference; trial 13 F1), or its stored verdict is a gate closure
    (``[gate] …``: no judge was asked) that the new rubric no longer imposes — no
    dependency it keeps (unchanged, in the new rubric) is stored judged and not met (`Criterion.gate_met`), or the row is now a
    hurdle or a deduction, which gates never close (`GATE_GONE`). A change of weight magnitude, or a
    ``depends_on`` that still closes the gate, is not listed (a pure re-score)."""
    stored = {c.id: c for c in stored_rows}
    out: dict[str, list[str]] = {}
    for row in rows:
        earlier = stored.get(row.id)
        if earlier is not None and verdicts.get(row.id) is not None:
            changes = row.question_changes(earlier) + row.judging_changes(earlier)
            if changes:
                out[row.id] = changes
    ids = {c.id: c for c in rows}
    while gone := [row for row in rows if row.id not in out and _gate_gone(row, verdicts, ids, out)]:
        out.update({row.id: [GATE_GONE] for row in gone})
    return out


GATE_GONE = "its stored verdict is a gate closure, never asked of a judge, and the new rubric no longer closes its gate"
"""What `changed_questions` names for a stored ``[gate] … judged and missed`` row the new rubric does not gate."""


def _gate_gone(row: Criterion, verdicts: Mapping[str, Verdict | None], ids: Mapping[str, Criterion],
               changed: Mapping[str, Sequence[str]]) -> bool:
    """True when `row`'s stored verdict is a gate closure (`core.gates.pre_gate`: judged, missed, ``[gate]``, no
    call) and no dependency of the new `row` closes it any more (a kept, unchanged row of `ids` — the new rows by
    id — stored as judged and not met: a positive row missed, a hurdle or deduction hit), or `row` is now a hurdle
    or a deduction (gates never close those)."""
    verdict = verdicts.get(row.id)
    if verdict is None or not (verdict.judged and verdict.hit is False and verdict.gate == "closed"
                               and verdict.reason.startswith("[gate]")):
        return False
    if row.hurdle or row.weight < 0:
        return True
    return not any(dep in ids and dep not in changed and (v := verdicts.get(dep)) is not None and v.judged
                   and v.hit is not None and not ids[dep].gate_met(v.hit) for dep in row.depends_on)


SCORED_AS_NOTHING_DELIVERED = ("nothing was delivered, so it is scored as a live run scores it ([no delivery], no model "
                               "call)")
"""What a warning says of a new or changed row of a stored nothing-delivered document (`stored_no_delivery`)."""


def changed_warnings(changed: Mapping[str, Sequence[str]], *, nothing_delivered: bool = False) -> list[str]:
    """One ``details.warnings`` line per row of `changed_questions`, naming the row and what changed, and what
    became of it: unjudged (no_verdict), or — `nothing_delivered`: the stored run delivered nothing
    (`stored_no_delivery`) — scored ``[no delivery]`` as the live run scores it."""
    fate = SCORED_AS_NOTHING_DELIVERED if nothing_delivered else "unjudged (no_verdict)"
    return [f"row {rid!r} changed since it was judged ({', '.join(parts)}): its stored verdict is not reused; {fate}"
            for rid, parts in changed.items()]


def stored_no_delivery(verdicts: Mapping[str, Verdict | None], facts: RunFacts) -> str | None:
    """The ``[no delivery]`` reason of a stored run that delivered nothing and was scored so (no model call), or
    None for any other run.

    Such a run (``delivery.missing``, no failure, not skipped, every judged row decided with method ``delivery``)
    needs no model to answer a new or reworded row: a live run of the new rubric on the same empty rollout
    scores every row `core.fold.nothing_delivered` (trial 11 F11: ``rescore --rubric`` left them unjudged
    ``no_verdict``, turning a clean "nothing delivered" 0 into ``judge_degraded`` or a systemic
    ``judge:scorer_error``). The reason is the stored rows' own (it names what output/ held and was not read);
    `core.fold.NO_DELIVERY_REASON` when no stored row carries one.
    """
    delivery = facts.delivery
    if delivery is None or not delivery.missing or facts.failure is not None or facts.skipped:
        return None
    judged = [v for v in verdicts.values() if _judged(v)]
    if any(v.method != "delivery" for v in judged):
        return None
    for v in judged:
        if v.reason and v.reason.startswith("[no delivery]"):
            return v.reason.removesuffix(HURDLE_ON_NO_DELIVERY)
    return NO_DELIVERY_REASON


def _judged(verdict: Verdict | None) -> TypeGuard[Verdict]:
    """True for a stored verdict that answers its row (not None, not unjudged)."""
    return verdict is not None and verdict.judged


def samples_revotable(doc: ResultDocument) -> int:
    """Rows of `doc` a ``--samples-vote`` can re-reduce: judged rows whose stored samples are
    whole-row samples (`core.sampled.revote`); 0 for a document without samples."""
    return sum(1 for r in doc.results if r.judged and r.samples and whole_row(r.samples))


def samples_kept(doc: ResultDocument) -> int:
    """Rows of `doc` whose samples a ``--samples-vote`` cannot re-reduce (page or pass samples)."""
    return sum(1 for r in doc.results if r.samples and not whole_row(r.samples))


def provenance(source_sha256: str, policy_changes: Mapping[str, Any], old_policy: ScoringPolicy | None,
               rubric: tuple[str, str] | None, samples_vote: tuple[str, str] | None = None,
               guard: tuple[str, str] | None = None) -> str | None:
    """The warning line a changed document carries, or None when nothing changed.

    Args:
        source_sha256: SHA-256 of the stored document's bytes.
        policy_changes: the changed policy fields.
        old_policy: the stored policy (None: the default one).
        rubric: ``(file name, SHA-256)`` of the new rubric, or None.
        samples_vote: ``(stored vote, new vote)`` when the samples were re-reduced.
        guard: ``(stored guard mode, applied guard mode)`` when ``--guard`` was given.
    """
    old = old_policy or ScoringPolicy()
    parts = [f"{k} {getattr(old, k)!s} → {v!s}" for k, v in policy_changes.items() if getattr(old, k) != v]
    if rubric is not None:
        parts.append(f"rubric {rubric[0]} (sha256 {rubric[1]})")
    if samples_vote is not None and samples_vote[0] != samples_vote[1]:
        parts.append(f"samples vote {samples_vote[0]} → {samples_vote[1]}")
    if guard is not None and guard[0] != guard[1]:
        parts.append(f"guard policy {guard[0]} → {guard[1]} (the stored findings, not scanned again)")
    if not parts:
        return None
    return f"rescored without model calls from result sha256 {source_sha256}: " + "; ".join(parts)


def changed_fields(policy_changes: Mapping[str, Any], old_policy: ScoringPolicy | None) -> dict[str, Any]:
    """The subset of `policy_changes` that differs from the stored policy."""
    old = old_policy or ScoringPolicy()
    return {k: v for k, v in policy_changes.items() if getattr(old, k) != v}


@dataclass(frozen=True)
class Restated:
    """What `restate` made of a stored document.

    Attributes:
        doc: the document under the new settings (the stored one when nothing changed).
        changes: one phrase per changed setting (``reward_mode continuous → binary``); empty:
            the stored document is already the one these settings give.
        rejudge: why the stored verdicts cannot give the document of these settings (the
            instance must be judged again); None when they can.
    """

    doc: ResultDocument
    changes: list[str] = field(default_factory=list)
    rejudge: str | None = None


def restate(doc: ResultDocument, *, source_sha256: str, policy: ScoringPolicy, guard: GuardMode, metric_id: str,
            prices: Mapping[str, Price]) -> Restated:
    """`doc` re-folded under the settings of kind ``score`` (`config.effects.EFFECTS`), with no
    model call: the scoring policy, the guard's policy over the stored findings, the metric id
    and the price table (the stored tokens per model re-priced). The batch's resume calls it
    on every result it keeps, so a batch never holds results scored under two policies
    (issue 39). The new document says what changed in ``details.warnings`` (`provenance`,
    from `source_sha256`: the stored bytes' SHA-256).

    A stored run that was not scanned cannot be put under JUDGE_GUARD flag or penalize (but
    one of code rows only, which the guard does not scan under any mode, issue 38, can), and
    one that made model calls without JUDGE_PRICES has no tokens per model to price:
    `Restated.rejudge` says so and nothing is restated.

    Raises:
        pydantic.ValidationError: a stored row is not a valid criterion.
    """
    stored_rows, verdicts, old_policy, facts = stored_run(doc)
    model_rows = any(c.judge_method != "code" for c in stored_rows)
    if (guard != doc.guard.mode and guard != "off" and not doc.guard.scanned and facts.failure is None and not facts.skipped
            and model_rows):
        return Restated(doc, rejudge=f"JUDGE_GUARD={guard}: the stored result was not scanned (JUDGE_GUARD={doc.guard.mode})")
    cost = facts.cost
    if prices and cost is None and doc.extra_fields.judge_called:
        return Restated(doc, rejudge="JUDGE_PRICES is set: the stored result made model calls without it (no tokens per model "
                                     "to price)")
    if not prices:
        cost = None
    elif cost is not None:
        cost = judge_cost(cost.models, prices)
    else:
        cost = judge_cost({}, prices)
    changes = [f"{k} {getattr(old_policy, k)!s} → {v!s}" for k, v in changed_fields(policy.model_dump(), old_policy).items()]
    if guard != doc.guard.mode:
        changes.append(f"guard policy {doc.guard.mode} → {guard} (the stored findings, not scanned again)")
    if metric_id != doc.metric_id:
        changes.append(f"metric_id {doc.metric_id} → {metric_id}")
    if cost != facts.cost:
        old_usd = facts.cost.usd if facts.cost is not None else None
        changes.append(f"JUDGE_PRICES (judge_cost_usd {old_usd} → {cost.usd if cost is not None else None})")
    if not changes:
        return Restated(doc)
    note = f"rescored without model calls from result sha256 {source_sha256}: " + "; ".join(changes)
    facts = facts.model_copy(update={
        "identity": facts.identity.model_copy(update={"metric_id": metric_id}),
        "guard": facts.guard.model_copy(update={"mode": guard}) if facts.guard is not None else None,
        "cost": cost, "warnings": (*facts.warnings, note)})
    return Restated(fold(stored_rows, verdicts, policy, facts), changes)
