"""The sampling reduction core (`core.sampling`, `core.sampled`): pure, checked exhaustively on small cases."""

from __future__ import annotations

import itertools

import pytest

from cowork_judge.core.rubric import normalize_rubric
from cowork_judge.core.sampled import fold_row, revote, sample_of, unit_agreements, whole_row
from cowork_judge.core.sampling import (
    Answer,
    Sample,
    Scale,
    agreement,
    judge_coverage,
    lower_median,
    reduce_samples,
    reduce_unit,
    representative,
    sampling_loss,
    settled,
    vote,
    weighted_agreement,
    weighted_lower_median,
)
from cowork_judge.core.verdicts import Verdict

BINARY = Scale()
NEGATIVE = Scale(negative=True)
GRID5 = Scale(choices=(0.0, 0.25, 0.5, 0.75, 1.0))


def hits(*values: bool, judge: str = "j") -> list[Sample]:
    return [Sample(judge=judge, hit=v) for v in values]


def levels(*values: float, judge: str = "j") -> list[Sample]:
    return [Sample(judge=judge, hit=v > 0, level=v) for v in values]


# --------------------------------------------------------------------------- reducing one judge's samples


@pytest.mark.parametrize("n", range(1, 8))
def test_binary_majority_and_the_tie_rule_for_every_sequence(n):
    for seq in itertools.product((True, False), repeat=n):
        t, f = seq.count(True), seq.count(False)
        assert reduce_samples(hits(*seq), BINARY).hit is (t > f)  # positive: a tie is a miss
        assert reduce_samples(hits(*seq), NEGATIVE).hit is (t >= f)  # negative/hurdle: a tie is a hit (fail closed)


def test_scale_of_rows_reads_polarity_hurdles_and_own_levels():
    rows = normalize_rubric([
        {"id": "P", "description": "p", "weight": 1},
        {"id": "N", "description": "n", "weight": -2},
        {"id": "H", "description": "h", "weight": 1, "hurdle": True},
        {"id": "G", "description": "g", "weight": 1, "type": "gradient", "levels": {"0": "a", "0.5": "b", "1": "c"}},
    ]).criteria
    p, n, h, g = (Scale.of(r) for r in rows)
    assert (p.negative, p.choices) == (False, None)
    assert (n.negative, n.choices) == (True, None)
    assert (h.negative, h.choices) == (True, None)  # a hurdle's tie is fatal
    assert g.choices == (0.0, 0.5, 1.0) and not g.negative
    assert reduce_samples(hits(True, False), h).hit is True


@pytest.mark.parametrize("n", range(1, 6))
def test_graded_rows_reduce_to_the_lower_median_on_their_own_grid(n):
    grid = GRID5.choices
    assert grid is not None
    for seq in itertools.product(grid, repeat=n):
        got = reduce_samples(levels(*seq), GRID5)
        want = sorted(seq)[(n - 1) // 2]
        assert got.level == want and got.level in grid  # always a level some sample gave
        assert got.hit is (want > 0)


def test_even_counts_take_the_smaller_middle_level():
    assert reduce_samples(levels(0.5, 0.75), GRID5).level == 0.5
    assert reduce_samples(levels(1.0, 0.0, 0.25, 1.0), GRID5).level == 0.25
    assert lower_median([3, 1, 2, 4]) == 2
    with pytest.raises(ValueError):
        lower_median([])


def test_a_sample_without_a_readable_level_counts_as_its_hit():
    samples = [Sample(judge="j", hit=True), Sample(judge="j", hit=True, level=0.25), Sample(judge="j", hit=False)]
    assert reduce_samples(samples, GRID5).level == 0.25  # values 1.0, 0.25, 0.0
    assert reduce_samples([Sample(judge="j", hit=True), Sample(judge="j", hit=True)], GRID5).level == 1.0


def test_na_by_majority_and_a_tie_is_not_na():
    na = Sample(judge="j", hit=False, na=True)
    assert reduce_samples([na, na, *levels(0.5)], GRID5).na is True
    tie = reduce_samples([na, *levels(0.5)], GRID5)
    assert tie.na is False and tie.level == 0.5  # the page stays in the row's mean
    assert reduce_samples([na, na, *levels(0.5, 1.0)], GRID5).level == 0.5


def test_lost_samples_are_asked_but_never_answers():
    lost = Sample(judge="j", error_kind="rate_limit")
    assert not lost.answered
    assert reduce_samples([lost, lost], BINARY).answered is False
    assert reduce_samples([lost, *hits(True)], BINARY) == Answer(hit=True, samples=1)


# --------------------------------------------------------------------------- agreement


def test_agreement_is_one_minus_the_mean_distance_to_the_verdict():
    two_of_three = hits(True, True, False)
    assert agreement(two_of_three, reduce_samples(two_of_three, BINARY), BINARY) == pytest.approx(2 / 3, abs=1e-6)
    same = levels(0.5, 0.5, 0.5)
    assert agreement(same, reduce_samples(same, GRID5), GRID5) == 1.0
    spread = levels(0.0, 0.5, 1.0)
    assert agreement(spread, reduce_samples(spread, GRID5), GRID5) == pytest.approx(1 - (0.5 + 0 + 0.5) / 3, abs=1e-6)
    na = [Sample(judge="j", hit=False, na=True), *levels(1.0, 1.0)]
    assert agreement(na, reduce_samples(na, GRID5), GRID5) == pytest.approx(2 / 3, abs=1e-6)
    assert agreement(hits(True), Answer(hit=True, samples=1), BINARY) is None  # one answer agrees with itself: says nothing
    for n in range(2, 6):
        for seq in itertools.product((True, False), repeat=n):
            a = agreement(hits(*seq), reduce_samples(hits(*seq), BINARY), BINARY)
            assert a is not None and 0.0 <= a <= 1.0


def test_document_agreement_weighs_rows_by_absolute_weight():
    assert weighted_agreement([(1.0, 3.0), (0.5, -1.0), (None, 10.0)]) == pytest.approx((3 + 0.5) / 4)
    assert weighted_agreement([(1.0, 0.0), (0.0, 0.0)]) == 0.5  # all weightless: the plain mean
    assert weighted_agreement([(None, 1.0)]) is None


# --------------------------------------------------------------------------- the adaptive stopping rule


def _completions(samples: list[Sample], left: int, scale: Scale) -> set[tuple]:
    values = [True, False] if scale.choices is None else list(scale.choices)
    out = set()
    for extra in itertools.product(values, repeat=left):
        more = hits(*extra) if scale.choices is None else levels(*extra)  # type: ignore[arg-type]
        a = reduce_samples(samples + more, scale)
        out.add((a.hit, a.level))
    return out


@pytest.mark.parametrize("k", [2, 3, 4, 5])
def test_a_binary_unit_stops_exactly_when_its_verdict_cannot_change(k):
    for scale in (BINARY, NEGATIVE):
        for asked in range(1, k + 1):
            for seq in itertools.product((True, False), repeat=asked):
                samples = hits(*seq)
                can_change = len(_completions(samples, k - asked, scale)) > 1
                assert settled(samples, asked, k, scale) is (not can_change), (scale, k, seq)


def test_at_k3_two_agreeing_samples_settle_and_two_disagreeing_do_not():
    assert settled(hits(True, True), 2, 3, BINARY) and settled(hits(False, False), 2, 3, BINARY)
    assert not settled(hits(True, False), 2, 3, BINARY)
    assert settled(hits(True, False, True), 3, 3, BINARY)  # no asks left


@pytest.mark.parametrize("k", [3, 4])
def test_a_graded_unit_stops_when_all_it_could_still_say_is_within_one_grid_step_on_one_side_of_zero(k):
    grid = GRID5.choices
    assert grid is not None
    for asked in range(1, k):
        for seq in itertools.product(grid, repeat=asked):
            samples = levels(*seq)
            reachable = {lv for _, lv in _completions(samples, k - asked, GRID5)}
            lo, hi = grid.index(min(reachable)), grid.index(max(reachable))
            tolerable = hi - lo <= 1 and (min(reachable) > 0) == (max(reachable) > 0)
            assert settled(samples, asked, k, GRID5) is tolerable, (k, seq)
    assert settled(levels(0.5, 0.75), 2, 3, GRID5)  # one step apart: not asked again (issue 28)
    assert not settled(levels(0.5, 1.0), 2, 3, GRID5)  # two steps
    assert not settled(levels(0.0, 0.25), 2, 3, GRID5)  # one step, but hit and miss


def test_no_answer_yet_is_not_settled_and_lost_samples_use_up_asks():
    lost = Sample(judge="j", error_kind="timeout")
    assert not settled([lost], 1, 3, BINARY)
    assert settled([lost, lost, lost], 3, 3, BINARY)
    assert not settled([lost, *hits(True)], 2, 3, BINARY)  # one answer: a second could still tie it


def test_na_can_stop_or_keep_a_cell_open():
    na = Sample(judge="j", hit=False, na=True)
    assert settled([na, na], 2, 3, GRID5)
    assert not settled([na, *levels(1.0)], 2, 3, GRID5)


# --------------------------------------------------------------------------- panels


def test_panel_votes():
    yes, no = Answer(hit=True, samples=1), Answer(hit=False, samples=1)
    assert vote([(yes, 1), (no, 1)], BINARY, "majority").hit is False  # a tie: a miss for a positive row
    assert vote([(yes, 1), (no, 1)], NEGATIVE, "majority").hit is True  # fail closed
    assert vote([(yes, 1), (yes, 1), (no, 1)], BINARY, "majority").hit is True
    assert vote([(yes, 2), (no, 1)], BINARY, "weighted").hit is True
    assert vote([(yes, 1), (no, 2)], BINARY, "weighted").hit is False
    assert vote([(yes, 2), (no, 1)], BINARY, "majority").hit is False  # weights count only when weighted
    assert vote([(yes, 1), (yes, 1), (no, 1)], BINARY, "unanimous").hit is False
    assert vote([(yes, 1), (yes, 1)], BINARY, "unanimous").hit is True
    assert vote([(no, 1), (no, 1), (yes, 1)], NEGATIVE, "unanimous").hit is True  # a penalty escapes only when no judge sees it
    assert vote([(no, 1), (no, 1)], NEGATIVE, "unanimous").hit is False
    g = [(Answer(hit=True, level=1.0), 1.0), (Answer(hit=True, level=0.25), 1.0), (Answer(hit=True, level=0.5), 3.0)]
    assert vote(g, GRID5, "majority").level == 0.5
    assert vote(g, GRID5, "unanimous").level == 0.25
    assert vote([(Answer(hit=True, level=1.0), 1.0), (Answer(hit=True, level=0.25), 3.0)], GRID5, "weighted").level == 0.25


def test_a_judge_without_an_answer_leaves_the_vote_to_the_others():
    yes = Answer(hit=True, samples=2)
    assert vote([(yes, 1), (Answer(hit=None), 1)], BINARY, "unanimous") == Answer(hit=True, samples=2)
    assert vote([(Answer(hit=None), 1)], BINARY, "majority").answered is False


def test_weighted_lower_median_with_equal_weights_is_the_lower_median():
    for seq in itertools.product((0.0, 0.25, 0.5, 1.0), repeat=4):
        assert weighted_lower_median([(v, 1.0) for v in seq]) == lower_median(seq)


def test_reduce_unit_reduces_each_judge_then_votes():
    samples = [*hits(True, True, False, judge="a"), *hits(False, False, judge="b"), *hits(False, judge="c")]
    assert reduce_unit(samples, BINARY, {}, "majority").hit is False  # a: hit, b: miss, c: miss
    assert reduce_unit(samples, BINARY, {"a": 5}, "weighted").hit is True
    assert reduce_unit(hits(True, False, True), BINARY, {}, "unanimous").hit is True  # one judge: its own majority


def test_judge_coverage():
    rows = [[*hits(True, judge="a"), Sample(judge="b", error_kind="api_error")], [*hits(False, judge="a"), *hits(True, judge="b")],
            None]
    assert judge_coverage(rows, ["a", "b"]) == {"a": 1.0, "b": 0.5}
    assert judge_coverage([None], ["a"]) == {"a": 1.0}


def test_sampling_loss_counts_judged_rows_that_lost_answers_and_the_judges_that_gave_none():
    lost_b = Sample(judge="b", error_kind="api_error")
    rows = [
        (True, [*hits(True, True, judge="a"), lost_b, lost_b]),  # b gave no answer: a lost judge
        (True, [*hits(True, judge="a"), Sample(judge="a", error_kind="deadline"), *hits(False, judge="b")]),  # a sample lost
        (True, [*hits(False, judge="a"), *hits(False, judge="b")]),  # nothing lost
        (False, [Sample(judge="a", error_kind="rate_limit"), lost_b]),  # unjudged: coverage's business, not this record's
        (True, None),  # not sampled
    ]
    out = sampling_loss(rows)
    assert (out.rows, out.samples) == (2, 3)
    assert out.error_kinds == {"api_error": 2, "deadline": 1} and out.judges == {"b": 1}
    assert sampling_loss([(True, hits(True, True)), (True, None)]).rows == 0


# --------------------------------------------------------------------------- sampled verdicts


ROWS = {c.id: c for c in normalize_rubric([
    {"id": "P", "description": "p", "weight": 1},
    {"id": "N", "description": "n", "weight": -1},
    {"id": "G", "description": "g", "weight": 1, "type": "gradient", "levels": {"0": "a", "0.5": "b", "1": "c"}},
]).criteria}


def v(row: str, hit: bool | None, reason: str, *, level: float | None = None, kind: str | None = None) -> Verdict:
    if hit is None:
        return Verdict.unjudged(row, kind or "rate_limit", reason, attempts=2, seconds=1.0)  # type: ignore[arg-type]
    return Verdict(id=row, hit=hit, level=level, level_raw=level, reason=reason, judged=True, attempts=1, seconds=0.5)


def test_fold_row_keeps_a_real_answer_and_every_sample():
    asked = [v("P", False, "first says no"), v("P", True, "second says yes"), v("P", True, "third says yes")]
    out = fold_row(ROWS["P"], [(sample_of(x, "m"), x) for x in asked])
    assert out.hit is True and out.reason == "second says yes"
    assert [s.hit for s in out.samples] == [False, True, True]
    assert out.agreement == pytest.approx(2 / 3, abs=1e-6)
    assert (out.attempts, out.seconds) == (3, 1.5)


def test_a_row_keeps_its_verdict_when_later_samples_did_not_come_back():
    asked = [v("N", True, "violation"), v("N", None, "the re-ask was rate limited")]
    out = fold_row(ROWS["N"], [(sample_of(x, "m"), x) for x in asked])
    assert out.judged and out.hit is True and out.reason == "violation"
    assert out.samples[1].error_kind == "rate_limit" and out.agreement is None


def test_a_row_none_of_whose_samples_answered_is_unjudged_with_the_first_failure():
    asked = [v("P", None, "quota", kind="insufficient_quota"), v("P", None, "later", kind="deadline")]
    out = fold_row(ROWS["P"], [(sample_of(x, "m"), x) for x in asked])
    assert not out.judged and out.error_kind == "insufficient_quota" and len(out.samples) == 2
    with pytest.raises(ValueError):
        fold_row(ROWS["P"], [])


def test_graded_fold_and_revote_under_another_panel_vote():
    asked = [(sample_of(v("G", True, "a full", level=1.0), "a"), v("G", True, "a full", level=1.0)),
             (sample_of(v("G", True, "b half", level=0.5), "b"), v("G", True, "b half", level=0.5)),
             (sample_of(v("G", True, "c full", level=1.0), "c"), v("G", True, "c full", level=1.0))]
    out = fold_row(ROWS["G"], asked, how="majority")
    assert out.level == 1.0 and out.reason == "a full"
    strict = revote(out, ROWS["G"], how="unanimous")
    assert strict.level == 0.5 and strict.reason.startswith("b half [re-voted")
    assert revote(out, ROWS["G"], how="majority") == out  # the stored vote gives the stored verdict
    weighted = revote(out, ROWS["G"], weights={"b": 5}, how="weighted")
    assert weighted.level == 0.5


def test_revote_leaves_page_rows_and_unsampled_rows_alone():
    page = Verdict(id="G", hit=True, level=0.5, judged=True,
                   samples=(Sample(judge="a", hit=True, level=1.0, page=1), Sample(judge="b", hit=True, level=0.5, page=1)))
    assert not whole_row(page.samples or ())
    assert revote(page, ROWS["G"], how="unanimous") is page
    plain = v("P", True, "once")
    assert revote(plain, ROWS["P"], how="unanimous") is plain


def test_representative_and_unit_agreements():
    samples = [Sample(judge="j", error_kind="timeout"), *hits(False, True, True)]
    answer = reduce_samples(samples, BINARY)
    assert representative(samples, answer, BINARY) == 2
    assert representative([Sample(judge="j", error_kind="timeout")], Answer(hit=None), BINARY) is None
    assert unit_agreements([1.0, None, 0.5]) == 0.75 and unit_agreements([None]) is None
