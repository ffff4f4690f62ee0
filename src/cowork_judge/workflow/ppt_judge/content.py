"""The content axis: type1 (does the deck cover X) and type2 (is X stated correctly) rows.

A content row is a ``ppt_judge`` row whose ``workflow_group`` is ``type1`` or ``type2``;
its check (hints, pairing, scope, anchors) comes from the instance's ``task_check_dir``
(`assets`). Each row is judged whole — one verdict from a few calls:

- **type1**: pass A, one text-only call on the whole deck's extracted slide text. A hit
  is final: its pages are the decision pages. A miss sends pass B, one call per page image,
  to the pages chosen by `content_pages.pass_b_pages` (at most 3, plus every page with no
  text for pass A to read, at most 45 of them); any page hit turns the
  miss into a hit (its pages decide), never the reverse: B cannot unmake a hit. A miss
  with some pass B page not judged is unjudged (the lost page might have shown it).
- **type2**: after its paired type1 (``paired_type1_id``) is decided: judged and missed ⇒
  ``[gate]`` short-circuit, no call (SPEC §7.4 rule 2); not judged ⇒ unjudged
  ``dep_unjudged`` (rule 3); hit ⇒ one call per routed page (`content_pages.type2_pages`)
  with the anchor text inlined (an image anchor attached). A page stating it wrongly makes
  the row a miss; else a page not judged makes it unjudged; else a correct page makes it a
  hit; every page N/A (nothing stated) is a miss.

Calls per row: type1 = 1 + (0 if pass A hit, else |pass B pages| ≤ 3 + 45); type2 = |routed
pages| (≤ 3) when the paired type1 hit, else 0. A row whose check is missing or broken is
unjudged ``asset_broken`` with no call. The pages that decided a verdict are its
``evidence`` (page images). Calls run on the workflow's pool lowest stage first (every
pass A, then pass B, then type2), so a budget that runs out loses whole rows, type2 first.
"""

from __future__ import annotations

import dataclasses
import itertools
import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cowork_judge.core import grounding
from cowork_judge.core.error_kinds import ErrorKind
from cowork_judge.core.rubric import Criterion
from cowork_judge.core.sampled import unit_agreements
from cowork_judge.core.sampling import Sample, Scale, agreement, cap_reason, reduce_unit, representative
from cowork_judge.core.verdicts import Verdict
from cowork_judge.workflow._contract import (
    ModelCallFailed,
    ModelCaller,
    SampledJudge,
    WorkflowContext,
    gate_row,
    hit_row,
    level_row,
    unjudged_row,
)
from cowork_judge.workflow.sampled_units import ask_unit
from cowork_judge.workflow.sampled_units import label as sample_label

from . import content_pages, content_prompt, timing
from .aggregate import page_ranges
from .assets import TaskChecks, Type1Check, Type2Check, content_kind
from .deck import DeckEvidence
from .schedule import PageFirstPool

STAGES = {"A": 0, "B": 1, "type2": 2}
"""Pool priority: every pass A before any pass B before any type2 call."""
REASON_CHARS = 300


@dataclass(frozen=True, order=True)
class ContentCall:
    """One content request: pass ``A`` of a type1 row, pass ``B`` of it on a page, or a
    ``type2`` row on a page. Ordered by (stage, seq)."""

    stage: int
    seq: int
    row: str = field(compare=False)
    kind: str = field(compare=False, default="A")
    page: int | None = field(compare=False, default=None)

    @property
    def label(self) -> str:
        """Audit name: ``content/T1-X/A``, ``content/T1-X/B/page-009``, ``content/T2-X/page-004``."""
        where = f"/page-{self.page:03d}" if self.page is not None else ""
        return f"content/{self.row}/" + ("A" if self.kind == "A" else "B" + where if self.kind == "B" else where[1:])


@dataclass
class _State:
    """One content row while it is being judged."""

    crit: Criterion
    kind: str
    check: Type1Check | Type2Check | None = None
    verdict: Verdict | None = None
    first: content_prompt.Answer | None = None
    pages: list[int] = field(default_factory=list)
    how: str = ""
    answers: dict[int, content_prompt.Answer] = field(default_factory=dict)
    lost: dict[int, tuple[ErrorKind, str]] = field(default_factory=dict)
    decision: list[int] = field(default_factory=list)
    calls: int = 0
    """Requests started for the row (answered or failed after the transport's retries)."""
    samples: list[Sample] = field(default_factory=list)
    """Every sample of the row's passes (JUDGE_SAMPLES > 1, JUDGE_PANEL), in asking order."""
    agreements: list[float | None] = field(default_factory=list)
    """Each sampled pass's agreement."""

    def settled(self) -> bool:
        return all(p in self.answers or p in self.lost for p in self.pages)


class ContentJudge:
    """Judges the content rows of one run (see the module docstring); thread-safe."""

    def __init__(self, rows: Sequence[Criterion], ctx: WorkflowContext, deck: DeckEvidence, checks: TaskChecks,
                 budget_end: float) -> None:
        self.ctx, self.deck, self.checks, self.budget_end = ctx, deck, checks, budget_end
        self.pages = {pg.number: pg for pg in deck.pages}
        self.deck_rel = str((ctx.deck.rel if ctx.deck else None) or deck.source)
        self.rows: dict[str, _State] = {c.id: _State(c, content_kind(c.workflow.group) or "type1") for c in rows}
        self.waiting: dict[str, list[str]] = {}
        self.seq = itertools.count()
        self.lock = threading.Lock()
        self.closed = False

    # -- planning -------------------------------------------------------------------------
    def start(self) -> list[ContentCall]:
        """Settle the rows that need no call (broken assets, unpaired type2) and return the
        pass A calls."""
        calls = []
        for st in self.rows.values():
            why = self.checks.why_unusable(st.crit.id, st.kind)
            if why is not None:
                st.verdict = unjudged_row(st.crit.id, "asset_broken", why)
                continue
            st.check = self.checks.type1[st.crit.id] if st.kind == "type1" else self.checks.type2[st.crit.id]
            if isinstance(st.check, Type2Check):
                pair = self.rows.get(st.check.paired_type1_id)
                if pair is None or pair.kind != "type1":
                    st.verdict = unjudged_row(st.crit.id, "asset_broken", f"its paired type1 check "
                                              f"{st.check.paired_type1_id!r} is not a type1 content row of this rubric")
                else:
                    self.waiting.setdefault(pair.crit.id, []).append(st.crit.id)
            else:
                calls.append(ContentCall(STAGES["A"], next(self.seq), st.crit.id, "A"))
        for t1 in self.waiting:
            if self.rows[t1].verdict is not None:
                self._release(self.rows[t1])
        return calls

    def out_of_time(self) -> bool:
        """No further call may start."""
        return timing.out_of_time(self.ctx, self.budget_end)

    # -- calls ----------------------------------------------------------------------------
    def call(self, c: ContentCall) -> Sequence[ContentCall]:
        """Make one request and fold its answer in; returns the follow-up calls. Never raises."""
        st = self.rows[c.row]
        try:
            messages, fmt = self._request(st, c)
        except (OSError, ValueError) as exc:
            return self._lose(c, "render_env", f"page image unusable: {exc}")
        if self.ctx.sampling is not None:
            got = self._ask_sampled(st, c, messages, fmt)
        else:
            got = self._ask_once(st, c, messages, fmt, self.ctx.transport, c.label)
        if isinstance(got, tuple):
            return self._lose(c, *got)
        answer = got
        with self.lock:
            if self.closed or st.verdict is not None:
                return ()
            if not answer.judged:
                return self._lose_locked(c, "parse_error", f"the reply held no usable verdict: {answer.reason}")
            if c.kind == "A":
                return self._after_a(st, answer)
            st.answers[c.page or 0] = answer
            return self._after_page(st)

    def _ask_once(self, st: _State, c: ContentCall, messages: list[dict[str, Any]], fmt: dict[str, Any],
                  transport: ModelCaller, label: str) -> content_prompt.Answer | tuple[ErrorKind, str]:
        """Run this content pass once: one request, its answer read; a failure as (kind, why)."""
        with self.lock:
            st.calls += 1
        try:
            reply = transport.complete(messages, label=label, response_format=fmt)
        except ModelCallFailed as exc:
            return timing.failure_kind(self.ctx, exc, self.budget_end), f"{exc.kind}: {exc}"
        except Exception as exc:  # noqa: BLE001 - a transport bug must cost this row, not the workflow
            return "vlm_error", f"{type(exc).__name__}: {exc}"
        answer = content_prompt.read_answer(reply.text, st.crit)
        if c.kind == "A" and answer.judged and answer.hit:  # a hit on the slide text carries a quote of it
            answer = self._ground_a(st, answer, messages, reply.text or "", fmt, transport, label)
        self.ctx.audit.append("content", {"label": label, "judged": answer.judged, "hit": answer.hit, "na": answer.na,
                                          "pages": answer.pages[:20], "step": answer.step, "reason": answer.reason[:300]})
        return answer

    def _ground_a(self, st: _State, answer: content_prompt.Answer, messages: list[dict[str, Any]], said: str,
                  fmt: dict[str, Any], transport: ModelCaller, label: str) -> content_prompt.Answer:
        """A pass A hit with its quote checked against the slides' titles and text (`core.grounding`):
        not found ⇒ asked again once in the same conversation; still not found ⇒ ``grounded=False``."""
        seen = grounding.evidence_of(t for pg in self.deck.pages for t in (pg.title or "", pg.text))
        if grounding.quote_found(answer.quote, seen):
            return dataclasses.replace(answer, grounded=True, grounding=grounding.FOUND)
        why = "no quote given" if not (answer.quote or "").strip() else "the quote is not in the slide text sent"
        first = dataclasses.replace(answer, grounded=False, grounding=why)
        probe = Verdict(id=st.crit.id, hit=True, judged=True, method="workflow", quote=answer.quote, grounded=False,
                        grounding=why)
        with self.lock:
            st.calls += 1
        try:
            reply = transport.complete(messages + [{"role": "assistant", "content": said},
                                                   {"role": "user", "content": grounding.reask_text({st.crit.id: probe})}],
                                       label=f"{label}-quote", response_format=fmt)
        except Exception as exc:  # noqa: BLE001 - the first answer stands, recorded ungrounded
            return dataclasses.replace(first, grounding=f"{why}; the re-ask failed ({type(exc).__name__})")
        again = content_prompt.read_answer(reply.text, st.crit)
        if not again.judged:
            return dataclasses.replace(first, grounding=f"{why}; the re-ask gave no usable answer")
        if not again.hit:
            return dataclasses.replace(again, grounding="asked again once: no credit claimed")
        found = grounding.quote_found(again.quote, seen)
        return dataclasses.replace(again, grounded=found, grounding="asked again once: " + (
            grounding.FOUND if found else "the quote is not in the slide text sent"))

    def _ask_sampled(self, st: _State, c: ContentCall, messages: list[dict[str, Any]],
                     fmt: dict[str, Any]) -> content_prompt.Answer | tuple[ErrorKind, str]:
        """This content pass asked per `WorkflowContext.sampling` (`workflow.sampled_units.ask_unit`)
        and reduced to one answer — the first sample that says what the reduction says, so a
        pass A hit keeps the pages that sample named. Every sample goes to the row."""
        sampling = self.ctx.sampling
        assert sampling is not None
        scale = Scale(negative=st.crit.polarity == "negative" or st.crit.hurdle)
        part = "A" if c.kind == "A" else c.kind

        def ask(judge: SampledJudge, n: int) -> tuple[Sample, content_prompt.Answer | tuple[ErrorKind, str]]:
            got = self._ask_once(st, c, messages, fmt, judge.transport,
                                 sample_label(c.label, judge, n, panel=len(sampling.judges) > 1))
            if isinstance(got, tuple):
                return Sample(judge=judge.name, error_kind=got[0], reason=cap_reason(got[1]), page=c.page, part=part), got
            if not got.judged:
                lost: tuple[ErrorKind, str] = ("parse_error", f"the reply held no usable verdict: {got.reason}")
                return Sample(judge=judge.name, error_kind="parse_error", reason=cap_reason(lost[1]), page=c.page,
                              part=part), lost
            return Sample(judge=judge.name, hit=got.hit, na=got.na, page=c.page, part=part, reason=cap_reason(got.reason)), got

        asked = ask_unit(sampling, scale, ask, may_ask=lambda: not self.out_of_time())
        samples = [smp for smp, _ in asked]
        answer = reduce_unit(samples, scale, sampling.weights, sampling.vote)
        with self.lock:
            st.samples += samples
            st.agreements.append(agreement(samples, answer, scale))
        index = representative(samples, answer, scale)
        if index is None:
            first = asked[0][1]
            return first if isinstance(first, tuple) else ("parse_error", "no sample answered")
        chosen = asked[index][1]
        assert not isinstance(chosen, tuple)
        if (chosen.hit, chosen.na) != (bool(answer.hit), answer.na):  # no sample says it (a unanimous vote)
            chosen = dataclasses.replace(chosen, hit=bool(answer.hit), na=answer.na)
        return chosen

    def drop(self, c: ContentCall) -> None:
        """A call not made for want of time."""
        self._lose(c, timing.budget_kind(self.ctx), "the workflow's budget was spent before this call")

    def _request(self, st: _State, c: ContentCall) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        total = self.deck.total_pages
        if c.kind == "A" and isinstance(st.check, Type1Check):
            return (content_prompt.pass_a_messages(st.crit, st.check.search_hints, self.deck.pages, total_pages=total,
                                                   deck_rel=self.deck_rel), content_prompt.response_format(st.crit, "A"))
        page = self.pages[c.page or 0]
        if c.kind == "B" and isinstance(st.check, Type1Check):
            return (content_prompt.pass_b_messages(st.crit, st.check.search_hints, page, total_pages=total,
                                                   deck_rel=self.deck_rel), content_prompt.response_format(st.crit, "B"))
        assert isinstance(st.check, Type2Check)
        anchors = [(ref, self.checks.anchor(ref)) for ref in self.checks.anchor_refs(st.check)]
        return (content_prompt.type2_messages(st.crit, anchors, page, total_pages=total, deck_rel=self.deck_rel,
                                              deck_wide=st.check.scope == "deck_wide"),
                content_prompt.response_format(st.crit, "type2"))

    def _lose(self, c: ContentCall, kind: ErrorKind, why: str) -> Sequence[ContentCall]:
        with self.lock:
            return self._lose_locked(c, kind, why)

    def _lose_locked(self, c: ContentCall, kind: ErrorKind, why: str) -> Sequence[ContentCall]:
        st = self.rows[c.row]
        if self.closed or st.verdict is not None:
            return ()
        if c.kind == "A":
            st.verdict = unjudged_row(st.crit.id, kind, f"pass A (slide text) not judged: {why}")
            return self._release(st)
        st.lost[c.page or 0] = (kind, why)
        return self._after_page(st)

    # -- folding answers (under the lock) ---------------------------------------------------
    def _after_a(self, st: _State, answer: content_prompt.Answer) -> Sequence[ContentCall]:
        assert isinstance(st.check, Type1Check)
        st.first = answer
        if answer.hit:
            st.decision = content_pages.shown(answer.pages, self.deck.pages, content_pages.MAX_DECISION_PAGES)
            where = f"on page(s) {page_ranges(st.decision)} (pass A, slide text)" if st.decision else \
                "(pass A, slide text; it named no page)"
            st.verdict = self._judged(st, True, f"covered {where}: {_cut(answer.reason)}", st.decision)
            if answer.grounded is not None and st.verdict.judged:
                st.verdict = st.verdict.model_copy(update={"quote": answer.quote, "grounded": answer.grounded,
                                                           "grounding": answer.grounding})
            return self._release(st)
        st.pages, st.how = content_pages.pass_b_pages(answer.pages, self.deck.pages, st.check.search_hints)
        if not st.pages:
            st.verdict = self._judged(st, False, f"not covered: pass A (slide text): {_cut(answer.reason)} | "
                                                 f"no pass B: {st.how}", [])
            return self._release(st)
        return [ContentCall(STAGES["B"], next(self.seq), st.crit.id, "B", p) for p in st.pages]

    def _after_page(self, st: _State) -> Sequence[ContentCall]:
        if st.verdict is not None or not st.settled():
            return ()
        if st.kind == "type1":
            st.verdict = self._fold_b(st)
            return self._release(st)
        st.verdict = self._fold_type2(st)
        return ()

    def _fold_b(self, st: _State) -> Verdict:
        a_reason = _cut(st.first.reason if st.first else "")
        hits = [p for p in st.pages if p in st.answers and st.answers[p].hit]
        if hits:
            st.decision = hits[:content_pages.MAX_DECISION_PAGES]
            return self._judged(st, True, f"covered on page(s) {page_ranges(st.decision)} (pass B, page image): "
                                          f"{_cut(st.answers[hits[0]].reason)} | pass A (slide text) missed it: {a_reason}",
                                st.decision)
        if st.lost:
            return self._unjudged(st, f"pass A (slide text) missed it and pass B could not look at every page it chose "
                                      f"({st.how}: {page_ranges(st.pages)})")
        return self._judged(st, False, f"not covered: pass A (slide text): {a_reason} | pass B looked at page(s) "
                                       f"{page_ranges(st.pages)} ({st.how}): not covered", [])

    def _fold_type2(self, st: _State) -> Verdict:
        wrong = [p for p in st.pages if p in st.answers and not st.answers[p].hit and not st.answers[p].na]
        right = [p for p in st.pages if p in st.answers and st.answers[p].hit]
        na = [p for p in st.pages if p in st.answers and st.answers[p].na]
        routed = f"{st.how}: {page_ranges(st.pages)}"
        if wrong:
            return self._judged(st, False, f"stated wrongly on page(s) {page_ranges(wrong)} ({routed}): "
                                           f"{_cut(st.answers[wrong[0]].reason)}", wrong)
        if st.lost:
            return self._unjudged(st, f"not every routed page was judged ({routed})")
        if right:
            extra = f" | nothing stated on page(s) {page_ranges(na)}" if na else ""
            return self._judged(st, True, f"stated correctly on page(s) {page_ranges(right)} ({routed}): "
                                          f"{_cut(st.answers[right[0]].reason)}{extra}", right)
        return self._judged(st, False, f"not stated on any routed page ({routed}): "
                                       f"{_cut(st.answers[na[0]].reason) if na else ''}", [])

    def _release(self, t1: _State) -> list[ContentCall]:
        """The paired type2 rows of a decided type1: gated, dep_unjudged, or their calls."""
        out: list[ContentCall] = []
        for rid in self.waiting.get(t1.crit.id, []):
            st = self.rows[rid]
            if st.verdict is not None or not isinstance(st.check, Type2Check):
                continue
            v = t1.verdict
            if v is None:
                continue
            if not v.judged:
                st.verdict = Verdict.unjudged(rid, "dep_unjudged", f"its paired type1 {t1.crit.id} was not judged "
                                              f"({v.error_kind})", method="workflow", gate="closed")
            elif not v.hit:
                st.verdict = gate_row(rid, t1.crit.id)
            else:
                st.pages, st.how = content_pages.type2_pages(st.check.scope, t1.decision, self.deck.pages)
                out += [ContentCall(STAGES["type2"], next(self.seq), rid, "type2", p) for p in st.pages]
        return out

    def _judged(self, st: _State, hit: bool, reason: str, pages: Sequence[int]) -> Verdict:
        refs = [f"evidence/{self.pages[p].image_rel}" for p in pages if p in self.pages]
        if st.crit.graded:
            return level_row(st.crit.id, 1.0 if hit else 0.0, reason, evidence=refs)
        return hit_row(st.crit.id, hit, reason, evidence=refs)

    def _unjudged(self, st: _State, reason: str) -> Verdict:
        kinds = Counter(k for k, _ in st.lost.values())
        kind = kinds.most_common(1)[0][0] if kinds else "workflow_error"
        example = next((why for k, why in st.lost.values() if k == kind), "")
        return unjudged_row(st.crit.id, kind, f"{reason} | {kind}: page(s) {page_ranges(st.lost)} | e.g. {_cut(example)}")

    # -- the end ----------------------------------------------------------------------------
    def verdicts(self) -> dict[str, Verdict]:
        """One verdict per row; rows still open when the budget ended are lost whole
        (a type2 row whose type1 was lost so is ``dep_unjudged``). Later answers are ignored."""
        with self.lock:
            self.closed = True
            kind = timing.budget_kind(self.ctx)
            for st in self.rows.values():
                if st.kind == "type1" and st.verdict is None:
                    st.verdict = unjudged_row(st.crit.id, kind, "the workflow's budget was spent before this row was decided")
                    self._release(st)
            for st in self.rows.values():
                if st.verdict is None:
                    st.verdict = unjudged_row(st.crit.id, kind, "the workflow's budget was spent before this row was judged")
            out = {rid: st.verdict for rid, st in self.rows.items() if st.verdict is not None}
            for rid, st in self.rows.items():  # sampled: the row carries every sample of its passes
                if st.samples:
                    out[rid] = out[rid].model_copy(update={"samples": tuple(st.samples),
                                                           "agreement": unit_agreements(st.agreements)})
        for rid, st in self.rows.items():
            self.ctx.audit.append("content_rows", {"row": rid, "kind": st.kind, "calls": st.calls, "pages": st.pages,
                                                   "how": st.how, "decision": st.decision,
                                                   "judged": out[rid].judged, "hit": out[rid].hit,
                                                   "error_kind": out[rid].error_kind})
        return out


def judge_content(rows: Sequence[Criterion], ctx: WorkflowContext, deck: DeckEvidence, checks: TaskChecks, *,
                  budget_end: float, workers: int, wait_until: float) -> Mapping[str, Verdict]:
    """Judge the content rows on the deck (module docstring); one verdict per row.

    Args:
        rows: the content rows (``workflow_group`` type1/type2).
        ctx: the workflow context.
        deck: the located deck's pages.
        checks: the instance's task_check_dir.
        budget_end: monotonic time after which no call starts.
        workers: pool threads (the run's in-flight limit).
        wait_until: monotonic time after which the pool stops waiting for calls in flight.
    """
    judge = ContentJudge(rows, ctx, deck, checks, budget_end)
    calls = judge.start()
    pool: PageFirstPool[ContentCall] = PageFirstPool(workers, judge.call, judge.drop, judge.out_of_time, wait_until)
    finished = pool.run(calls) if calls else True
    ctx.audit.append("done", {"axis": "content", "calls_started": pool.started, "finished": finished})
    return judge.verdicts()


def problem_verdicts(rows: Sequence[Criterion], checks: TaskChecks, *, deck_fault: bool, kind: ErrorKind | None,
                     reason: str) -> dict[str, Verdict]:
    """The content rows' verdicts when no page can be judged (`deck.DeckProblem`).

    A row whose check is unusable is ``asset_broken`` whatever the deck (the package must be
    fixed either way). Otherwise, the deliverable's fault (`deck_fault`): type1 rows are
    judged missed (``[deck] …``) and their type2 rows short-circuit on them (``[gate]``);
    the environment's or the budget's: unjudged with `kind`, type2 rows ``dep_unjudged``.
    """
    out: dict[str, Verdict] = {}
    kinds = {c.id: content_kind(c.workflow.group) or "type1" for c in rows}
    for c in sorted(rows, key=lambda r: kinds[r.id] != "type1"):
        why = checks.why_unusable(c.id, kinds[c.id])
        pair = checks.type2[c.id].paired_type1_id if why is None and kinds[c.id] == "type2" else None
        if why is not None:
            out[c.id] = unjudged_row(c.id, "asset_broken", why)
        elif pair is not None and pair in out and out[pair].judged:
            out[c.id] = gate_row(c.id, pair)
        elif pair is not None and pair in out:
            out[c.id] = Verdict.unjudged(c.id, "dep_unjudged", f"its paired type1 {pair} was not judged "
                                         f"({out[pair].error_kind})", method="workflow", gate="closed")
        elif deck_fault:
            out[c.id] = (level_row(c.id, 0.0, f"[deck] {reason}") if c.graded else hit_row(c.id, False, f"[deck] {reason}"))
        else:
            out[c.id] = unjudged_row(c.id, kind or "render_env", reason)
    return out


def _cut(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= REASON_CHARS else text[:REASON_CHARS - 1] + "…"
