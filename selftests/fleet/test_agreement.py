"""Agreement statistics (κ, F1, Spearman, bootstrap) and calibration pairs, checked by hand."""

from __future__ import annotations

import math

import pytest

from cowork_judge.fleet import agreement as ag
from cowork_judge.fleet.calibrate import Label, LabelError, calibrate_instance, read_labels, report
from cowork_judge.fleet.stats import draw_indices
from fleet.factory import make_doc, verdicts


def test_confusion_by_hand():
    c = ag.Confusion(tp=40, fp=10, fn=5, tn=45)
    assert c.n == 100 and c.accuracy() == 0.85
    # p_e = (50·45 + 50·55) / 100² = 0.5 ⇒ κ = (0.85 − 0.5) / 0.5 = 0.7
    assert c.kappa() == pytest.approx(0.7, abs=1e-15)
    assert c.precision() == 0.8 and c.recall() == pytest.approx(40 / 45) and c.f1() == pytest.approx(80 / 95)
    assert ag.Confusion.of([(True, True), (True, False), (False, True), (False, False), (True, True)]) == ag.Confusion(2, 1, 1, 1)
    assert ag.Confusion(3, 0, 0, 0).kappa() is None        # one answer throughout on both sides: κ undefined
    assert ag.Confusion(0, 0, 0, 4).f1() is None and ag.Confusion().accuracy() is None
    assert ag.Confusion(3, 1, 0, 0) + ag.Confusion(1, 0, 2, 5) == ag.Confusion(4, 1, 2, 5)
    # perfect disagreement on balanced marginals: κ = −1
    assert ag.Confusion(0, 5, 5, 0).kappa() == pytest.approx(-1.0)


def test_spearman_and_errors_by_hand():
    assert ag.ranks([10, 20, 20, 5]) == [2.0, 3.5, 3.5, 1.0]
    # ranks of ys: [1, 2, 3.5, 5, 3.5]; Σdx·dy = 8, Σdx² = 10, Σdy² = 9.5 ⇒ ρ = 8 / √95
    assert ag.spearman([1, 2, 3, 4, 5], [5, 6, 7, 8, 7]) == pytest.approx(8 / math.sqrt(95), abs=1e-12)
    assert ag.spearman([1, 2, 3], [30, 20, 10]) == pytest.approx(-1.0)
    assert ag.spearman([1, 2, 3], [1, 1, 1]) is None and ag.spearman([1], [2]) is None
    assert ag.mean_abs_error([0.5, 1.0], [0.0, 1.0]) == 0.25 and ag.mean_error([0.5, 1.0], [1.0, 0.5]) == 0.0


def test_bootstrap_uses_the_fleet_draws():
    clusters = [ag.Confusion.of([(i % 3 != 0, i % 4 != 0)] * (1 + i % 2)) for i in range(30)]
    stats = {"accuracy": lambda s: sum(s, ag.Confusion()).accuracy()}
    first = ag.bootstrap(clusters, stats, draws=300, seed=5)
    assert first == ag.bootstrap(clusters, stats, draws=300, seed=5) != ag.bootstrap(clusters, stats, draws=300, seed=6)
    lo, hi = first["accuracy"]  # type: ignore[misc]
    assert lo <= sum(clusters, ag.Confusion()).accuracy() <= hi  # type: ignore[operator]
    # the same resamples as summarize: draw d takes clusters draw_indices(seed, d, k)
    one = ag.bootstrap(clusters, {"first": lambda s: s[0].accuracy()}, draws=1, seed=5)["first"]
    assert one == (clusters[draw_indices(5, 0, 30)[0]].accuracy(),) * 2
    assert ag.bootstrap([], stats, draws=10, seed=0) == {"accuracy": None}


def test_read_labels():
    assert read_labels({"A": {"hit": True, "reason": "x"}, "B": {"hit": False, "level": 0.5}, "C@2": {"hit": True}}) == {
        "A": Label(True), "B": Label(False, 0.5)}
    for bad, needle in (([], "expected an object"), ({"A": {"hit": "yes"}}, "boolean 'hit'"),
                        ({"A": {"hit": True, "level": 2}}, "'level'")):
        with pytest.raises(LabelError, match=needle):
            read_labels(bad)


def test_calibrate_instance_by_hand():
    # rows: R1 (w 3, content), R2 (w 1, content, depends on R1), R3 (w 2, graded, style), N1 (w −1)
    # N1 unjudged for a content-caused kind (parse_error): it still deducts, and the run is not systemic (an
    # outage that applied it would be: docs/scoring.md "Systemic failure", rule 3)
    doc = make_doc(verdicts(r1=True, r2=True, r3=0.5, unjudged={"N1": "parse_error"}))
    assert doc.task_score == pytest.approx((3 + 1 + 2 * 0.5 - 1) / 6)  # the unjudged deduction still deducts
    labels = {"R1": Label(False), "R2": Label(True), "R3": Label(True, 1.0), "N1": Label(False), "X9": Label(True)}
    cal = calibrate_instance("i", doc, labels)
    assert cal.confusion == ag.Confusion(tp=2, fp=1, fn=0, tn=0)  # R1 judge hit / human miss; R2, R3 agree; N1 unjudged
    assert (cal.unjudged, cal.unlabelled, cal.unknown_labels) == (1, 0, 1)
    assert cal.levels == ((0.5, 1.0),)
    assert cal.by_tag == {"content": ag.Confusion(1, 1, 0, 0), "style": ag.Confusion(1, 0, 0, 0)}
    # human reward: R1 missed closes R2's gate; R3 at level 1; N1 not hit ⇒ E = 2, W = 6
    assert cal.human_reward == pytest.approx(2 / 6) and cal.judge_reward == pytest.approx(4 / 6)
    partial = calibrate_instance("j", doc, {"R1": Label(True)})
    assert partial.unlabelled == 3 and partial.human_reward_partial
    # trial 10 F2: an unlabelled row is no human judgement: the instance's human reward is withheld
    assert partial.human_reward is None


def test_report_shape_and_determinism():
    insts = [calibrate_instance(f"i{n}", make_doc(verdicts(r1=n % 2 == 0, r3=0.5)),
                                {"R1": Label(True), "R2": Label(n % 3 == 0), "R3": Label(True, 0.5), "N1": Label(False)})
             for n in range(8)]
    doc = report(insts, draws=200, seed=3, missing={"result": ["gone"], "labels": []})
    assert doc == report(insts, draws=200, seed=3, missing={"result": ["gone"], "labels": []})
    a = doc["agreement"]
    assert a["n"] == 32 and a["confusion"]["tp"] + a["confusion"]["fp"] + a["confusion"]["fn"] + a["confusion"]["tn"] == 32
    assert a["accuracy_ci"] is not None and a["accuracy_ci"][0] <= a["accuracy"] <= a["accuracy_ci"][1]
    assert doc["levels"] == {"pairs": 8, "exact": 1.0, "mae": 0.0}
    assert set(doc["tags"]) == {"content", "style", "accuracy"} and doc["instances"]["without_result"] == ["gone"]
    assert doc["reward"]["instances"] == 8 and doc["reward"]["spearman_ci"] is not None
    assert report(insts, draws=0)["agreement"]["kappa_ci"] is None
