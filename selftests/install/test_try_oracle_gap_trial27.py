"""Trial 27 P-6 and P-1: ``try``'s warning for rows a ``sim --oracle FILE`` had no entry for.

P-6: ppt_judge rows wrap the simulator's "not in oracle" (``not covered: pass A (slide text): not in oracle (did you
mean …)``, a visual row's ``… | p1 0: not in oracle; p2 0: not in oracle``): the warning only matched reasons that
START with it, so a deck rehearsal lost rows silently. Now any row whose reason says it is named, once.

P-1: for a hurdle or deduction row a miss is "no fault found": the reward is higher than the oracle meant, and the
line says so instead of "counts these rows as misses"."""

from __future__ import annotations

import json
from pathlib import Path

from cowork_judge.commands.try_ import oracle_gap_message
from cowork_judge.install.dryrun import read_outcome
from install.test_try_oracle_gap_trial26 import try_against_oracle
from install.test_try_trial4 import chat_task

# The reason shapes ppt_judge builds around the simulator's verdict reason (content.py `_after_a`/`_fold_b`,
# aggregate.py's power-mean line), as a trial 27 deck rehearsal wrote them to result.json.
CONTENT = ("not covered: pass A (slide text): not in oracle (did you mean 'T1-EVAPORATON'?) | pass B looked at page(s) "
           "2-3 (search hints): not covered")
VISUAL = "0 = power mean (p=1) of 3 judged page(s) | p1 0: not in oracle; p2 0: not in oracle; p3 0: not in oracle"


def _outcome(tmp_path: Path, rows: list[dict[str, object]], criteria: list[dict[str, object]]):
    verifier = tmp_path / "verifier"
    verifier.mkdir()
    (verifier / "reward.txt").write_text("0.5354\n")
    (verifier / "result.json").write_text(json.dumps({"status": "success", "criteria": criteria, "results": rows}))
    return read_outcome(verifier)


def test_ppt_judge_reasons_are_read_as_oracle_gaps(tmp_path):
    rows = [{"id": "T1-EVAPORATION", "judged": True, "hit": False, "weight": 2.0, "reason": CONTENT},
            {"id": "V-LAYOUT-CLIPPED", "judged": True, "hit": False, "level": 0.0, "weight": 6.0, "reason": VISUAL},
            {"id": "T2-EVAPORATION", "judged": True, "hit": False, "weight": 4.0,
             "reason": "[gate] T1-EVAPORATION was judged and missed"},
            {"id": "A-AUDIENCE", "judged": True, "hit": True, "weight": 2.0, "reason": "names the audience"}]
    outcome = _outcome(tmp_path, rows, [{"id": r["id"], "weight": r["weight"], "hurdle": False,
                                         "polarity": "positive"} for r in rows])
    assert outcome.not_in_oracle == [("T1-EVAPORATION", " (did you mean 'T1-EVAPORATON'?)", False),
                                     ("V-LAYOUT-CLIPPED", "", False)]
    line = oracle_gap_message(outcome)
    assert line == ("the oracle has no entry for row(s) T1-EVAPORATION (did you mean 'T1-EVAPORATON'?), V-LAYOUT-CLIPPED "
                    "(judged a miss): check the oracle's keys against the rubric's row ids; the reward above counts "
                    "these rows as misses (the reward is lower than the oracle meant)")


def test_hurdle_and_deduction_rows_are_said_as_no_fault_found(tmp_path):
    rows = [{"id": "H-PLACEHOLDER", "judged": True, "hit": False, "weight": 0.0,
             "reason": "not in oracle (did you mean 'H-PLACEHOLDR'?)"},
            {"id": "A-FABRICATION", "judged": True, "hit": False, "weight": -3.0, "reason": "not in oracle"},
            {"id": "A-DOSE", "judged": True, "hit": False, "weight": 2.0, "reason": "not in oracle"}]
    criteria = [{"id": "H-PLACEHOLDER", "weight": 0.0, "hurdle": True, "polarity": "negative"},
                {"id": "A-FABRICATION", "weight": -3.0, "hurdle": False, "polarity": "negative"},
                {"id": "A-DOSE", "weight": 2.0, "hurdle": False, "polarity": "positive"}]
    outcome = _outcome(tmp_path, rows, criteria)
    assert [fault for _id, _hint, fault in outcome.not_in_oracle] == [True, True, False]
    line = oracle_gap_message(outcome) or ""
    assert line.endswith("the reward above counts A-DOSE as misses (the reward is lower than the oracle meant) and the "
                         "hurdle/deduction row(s) H-PLACEHOLDER, A-FABRICATION as no fault found (a hurdle does not "
                         "fire, a deduction is not taken; the reward may be higher than the oracle meant)"), line


def test_try_says_a_hurdles_oracle_gap_raises_the_reward(tmp_path, sandbox_ready):
    """The real ``sim --oracle`` and ``try``: a mistyped hurdle key leaves the hurdle unfired (reward 1, not 0)."""
    task = chat_task(tmp_path)
    rubric = task / "tests" / "rubric.json"
    doc = json.loads(rubric.read_text())
    doc["rubrics"].append({"id": "H-WRONG-DRUG", "description": "The answer recommends aspirin to a child.",
                           "weight": 0, "hurdle": True})
    rubric.write_text(json.dumps(doc))
    proc = try_against_oracle(tmp_path, {"A-DOSE": {"hit": True, "reason": "gives the dose"},
                                         "H-WRONG-DRUGG": {"hit": True}}, task)
    said = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "reward: 1" in said, said
    assert ("the oracle has no entry for row(s) H-WRONG-DRUG (did you mean 'H-WRONG-DRUGG'?) (judged a miss): check "
            "the oracle's keys against the rubric's row ids; the reward above counts these hurdle/deduction rows as "
            "no fault found (a hurdle does not fire") in proc.stderr, said
