"""The `code` segment's runner: its rows one after another, each row's method in a worker,
with JUDGE_CODE_TIMEOUT (SPEC §8).

The router hands the segment its frozen context once (`judge_code_rows`); the segment
carries each row's outcome (`CodeOutcome`: its verdict, the artifacts its method found,
the delivery notes it adds) into the context of the rows after it, publishes what the rows
found for the agentic blocks (``evidence/artifacts.json``) and returns the segment's
outcome once (`CodeSegment`), which the engine merges into the run's state."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from cowork_judge.safety.agent_text import repair
from cowork_judge.code_methods import CODE_METHODS, misplaced_params, param_errors
from cowork_judge.code_methods.files import (MessageUnreadable, NoText, ReadLimit, files_only_rows_note,
                                           response_rows_note)
from cowork_judge.code_methods.task_kind import looks_like_chat_task, shape_of
from cowork_judge.core.classify import classify, summary
from cowork_judge.core.gates import mark_open, pre_gate
from cowork_judge.core.rubric import Criterion
from cowork_judge.core.verdicts import Verdict
from cowork_judge.segment.code_context import CodeContext
from cowork_judge.segment.delivery import LocatedDeck, without_deck, workspace_rel
from cowork_judge.segment.segment_context import NOTHING, SegmentContext
from cowork_judge._util.threads import call_with_timeout


@dataclass(frozen=True)
class CodeOutcome:
    """What one code row found.

    Attributes:
        verdict: the row's verdict.
        deck: the deck its method located (``locate_deck``), for later rows and segments.
        artifacts: anything else its method found for them, read-only; empty unless the
            method ran and returned.
        notes: delivery notes it adds (what a read limit kept from it), for the result's warnings.
    """

    verdict: Verdict
    deck: LocatedDeck | None = None
    artifacts: Mapping[str, Any] = field(default_factory=lambda: NOTHING)
    notes: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class CodeSegment:
    """What the code segment found, returned once to the router.

    Attributes:
        verdicts: row id → verdict of every code row, gated ones included, in rubric order.
        deck: the deck the rows located (the last row that located one wins; the handed-in
            context's deck when none did), for the later segments.
        artifacts: the handed-in context's artifacts with every row's merged over them, in
            row order, read-only (the located deck is `deck`).
        notes: the delivery notes the rows added (what a read limit kept from them), in order.
    """

    verdicts: dict[str, Verdict]
    deck: LocatedDeck | None = None
    artifacts: Mapping[str, Any] = field(default_factory=lambda: NOTHING)
    notes: tuple[str, ...] = ()


def judge_code_rows(rows: Sequence[Criterion], ctx: SegmentContext, decided: Mapping[str, Verdict],
                    known: Mapping[str, Criterion]) -> CodeSegment:
    """Judge the `code` rows serially (earlier rows gate later ones and hand them their
    artifacts); exactly one verdict per row; never raises for a row.

    Args:
        rows: the rubric's code rows, in rubric order.
        ctx: the segment's frozen context, handed in once by the router.
        decided: verdicts decided before this segment (the gates' dependencies, SPEC §7.4).
        known: every row of the rubric by id.

    Returns the segment's `CodeSegment`; ``evidence/artifacts.json`` is written when the rows
    located a deck or found artifacts (`publish_artifacts`).
    """
    verdicts: dict[str, Verdict] = {}
    notes: list[str] = []
    # without a locate_deck row, a deck check locates the deck itself (trial 6, F12)
    ctx = dataclasses.replace(ctx, deck_locators=tuple(row.id for row in rows if row.code.method_name == "locate_deck"))
    for row in rows:
        seen = {**decided, **verdicts}
        gated = pre_gate(row, seen, known)
        if gated is not None:
            verdicts[row.id] = gated
            continue
        outcome = judge_code_row(row, ctx)
        verdicts[row.id] = mark_open(row, outcome.verdict, seen, known)
        # the row's outcome, carried into the context of the rows after it
        delivery = ctx.delivery
        if outcome.notes:
            notes.extend(outcome.notes)
            delivery = delivery.model_copy(update={"notes": [*delivery.notes, *outcome.notes]})
        ctx = dataclasses.replace(ctx, deck=outcome.deck or ctx.deck, delivery=delivery,
                                  artifacts=MappingProxyType({**ctx.artifacts, **outcome.artifacts}))
    shapes = [shape_of(r.judge_method, r.code.method_name, r.workflow.name, r.code.params) for r in known.values()]
    chat = looks_like_chat_task(shapes, [ctx.task_prompt])  # lint M006's heuristic (trial 17 P-6)
    files_only = files_only_rows_note([(r.id, r.code.method_name or "", r.code.params) for r in rows], ctx, chat=chat)
    if files_only:  # trial 6 F15: a chat answer and rows that only read files
        notes.append(files_only)
    no_message = response_rows_note([(r.id, r.code.method_name or "", r.code.params) for r in rows], ctx)
    if no_message:  # trial 18 P-12: rows over the final message, and none was given
        notes.append(no_message)
    publish_artifacts(ctx)
    return CodeSegment(verdicts=verdicts, deck=ctx.deck, artifacts=ctx.artifacts, notes=tuple(notes))


def publish_artifacts(ctx: SegmentContext) -> None:
    """Write ``evidence/artifacts.json`` for the agentic blocks: the code rows' plain artifacts
    and their located deck (its path as a block's workspace shows it, ``deck_in_workspace``);
    nothing when they found none."""
    if not ctx.artifacts and ctx.deck is None:
        return
    doc = {k: v for k, v in ctx.artifacts.items() if isinstance(v, (str, int, float, bool)) or v is None}
    if ctx.deck is not None:
        doc.update(ctx.deck.as_artifacts())
    if ctx.deck is not None and ctx.deck.rel:
        item = next((f for f in ctx.delivery.files if f.rel == ctx.deck.rel), None)
        doc["deck_in_workspace"] = workspace_rel(item, ctx.delivery.files) if item else None
    ctx.paths.evidence_dir.mkdir(parents=True, exist_ok=True)
    (ctx.paths.evidence_dir / "artifacts.json").write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def judge_code_row(row: Criterion, ctx: SegmentContext) -> CodeOutcome:
    """Run one `code` row's method and return its outcome; never raises.

    Unknown method ⇒ ``code_missing``; parameters its check refuses (`param_errors`: an unknown
    key, a bad value; the same on every rollout) ⇒ ``code_params``; past ``JUDGE_CODE_TIMEOUT`` ⇒ ``code_timeout`` (``deadline`` when the
    run deadline cut it); an exception ⇒ its kind by `classify` (``render_env`` for a
    missing tool, ``code_error`` otherwise). The method's artifacts come back in the
    outcome (`judge_code_rows` carries them to the later rows, the router to the later segments).

    A `ReadLimit` (the deliverable's size or number of files hid the answer) is judged,
    not unjudged: see `read_limit_verdict`. A `NoText` (a text row found only binary files to
    search) is a miss for a positive row and unjudged ``no_text`` for a hurdle or deduction, with
    a delivery note naming the row: see `no_text_outcome`. A `MessageUnreadable` (the row reads a final
    message that exists but could not be read) is unjudged ``delivery_unreadable`` with its message. Reasons are repaired text (a file name or a
    matched line from the agent never carries a lone surrogate into the result).
    """
    name = row.code.method_name or ""
    method = CODE_METHODS.get(name)
    if method is None:
        known = ", ".join(sorted(CODE_METHODS))
        return CodeOutcome(Verdict.unjudged(row.id, "code_missing", f"unknown code method {name!r}; registered: {known}", method="code"))
    bad = misplaced_params(method, row.code.params, row.extra) + param_errors(method, row.code.params)  # trial 34 P-5
    if bad:
        return CodeOutcome(Verdict.unjudged(row.id, "code_params", f"code_method_params of {name}: {'; '.join(bad)}",
                                            method="code"))
    remaining = ctx.deadline.remaining()
    if remaining <= 0:
        return CodeOutcome(Verdict.unjudged(row.id, "deadline", "JUDGE_DEADLINE reached before this row ran", method="code"))
    timeout = min(ctx.settings.code_timeout_sec, remaining)
    view: CodeContext = ctx  # what a method reads of the segment context (checked by mypy)
    start = time.monotonic()
    outcome = call_with_timeout(lambda: method(view, **row.code.params), timeout, thread_name="code-method")
    seconds = round(time.monotonic() - start, 3)
    if outcome is None:
        kind = classify(TimeoutError(), segment="code", deadline_passed=ctx.deadline.passed())
        return CodeOutcome(Verdict.unjudged(row.id, kind, f"{name} ran past {timeout:.0f} s", method="code", seconds=seconds))
    value, exc = outcome
    if isinstance(exc, ReadLimit):
        verdict = read_limit_verdict(row, name, exc, seconds=seconds)
        ctx.log.info("code row %s: %s", row.id, verdict.reason)
        return CodeOutcome(verdict, notes=(f"code row {row.id}: {verdict.reason}",))
    if isinstance(exc, NoText):
        return no_text_outcome(row, name, exc, seconds=seconds)
    if isinstance(exc, MessageUnreadable):  # the judge's failure to read the message: its own reason, no "failed:"
        return CodeOutcome(Verdict.unjudged(row.id, exc.kind, repair(str(exc)), method="code", seconds=seconds))
    if exc is not None:
        kind = classify(exc, segment="code", deadline_passed=ctx.deadline.passed())
        return CodeOutcome(Verdict.unjudged(row.id, kind, repair(f"{name} failed: {summary(exc)}"), method="code",
                                            seconds=seconds))
    if not (isinstance(value, tuple) and len(value) == 3 and isinstance(value[0], bool) and isinstance(value[2], dict)):
        return CodeOutcome(Verdict.unjudged(row.id, "code_error",
                                            f"{name} returned {type(value).__name__}, not (hit, reason, artifacts)",
                                            method="code", seconds=seconds))
    hit, reason, artifacts = value
    return CodeOutcome(Verdict(id=row.id, hit=hit, judged=True, reason=repair(str(reason)), method="code", seconds=seconds),
                       deck=LocatedDeck.from_artifacts(artifacts), artifacts=MappingProxyType(without_deck(artifacts)))


def read_limit_verdict(row: Criterion, name: str, exc: ReadLimit, *, seconds: float = 0.0) -> Verdict:
    """The verdict of a row whose answer the judge's read limits hid.

    Read limits are the deliverable's doing (a flood of files, a giant text), never the
    judge's: the row is JUDGED against the deliverable — ``hit=false`` (a miss) for a
    positive row; ``hit=true`` for a negative row or a hurdle, so the deduction applies
    and a hurdle is fatal (the same side SPEC §4 takes for an unjudged negative row, so a
    deliverable cannot hide a violation behind the limits). No ``error_kind``, so no
    coverage loss and no ``exit_code``. The reason starts ``[read limit]`` and names the
    limit; `judge_code_row` returns the same sentence as a delivery note (what was not read).
    """
    negative = row.polarity == "negative"
    side = "a miss" if not negative else ("hit, the hurdle is fatal" if row.hurdle else "hit, the deduction applies")
    reason = repair(f"[read limit] {name}: {exc} (limit: {exc.limit}); counted against the deliverable: {side}")
    return Verdict(id=row.id, hit=negative, judged=True, reason=reason, method="code", seconds=seconds)


def no_text_outcome(row: Criterion, name: str, exc: NoText, *, seconds: float = 0.0) -> CodeOutcome:
    """The outcome of a text row that searched nothing: every deliverable it could read was binary
    (trial 17 P-1: a placeholder hurdle over a .pptx, reward 1.0 with no word).

    A positive row is judged a miss with the method's reason, as before. A hurdle or deduction is
    unjudged ``no_text``: a row that could not look must not certify "no fault"; the unjudged policy
    (``JUDGE_UNJUDGED_NEGATIVE``) then scores it and, the kind being the task's fault, marks the run
    systemic when it applied the row. Either way the outcome's note (a ``details.warnings`` line)
    names the row and what to do.
    """
    shown = ", ".join(exc.binary[:3]) + (f" and {len(exc.binary) - 3} more" if len(exc.binary) > 3 else "")
    note = (f"code row {row.id}: {name} searched no text: every deliverable it reads ({shown}) is binary to the text "
            "methods, so it cannot fire; judge what a deck says with a judge row, or give the row a glob of text files")
    if row.polarity == "negative":
        verdict = Verdict.unjudged(row.id, "no_text", repair(f"{name} could not look: {exc.reason}"), method="code",
                                   seconds=seconds)
    else:
        verdict = Verdict(id=row.id, hit=False, judged=True, reason=repair(exc.reason), method="code", seconds=seconds)
    return CodeOutcome(verdict, notes=(repair(note),))
