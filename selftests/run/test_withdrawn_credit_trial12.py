"""A row whose credit the grounding check withdrew (``grounded: false`` under
JUDGE_UNGROUNDED=miss) is reported as scored: a failed CTRF test with ``rawStatus``
``credit withdrawn: ungrounded``, a reason that says the credit was withdrawn, and a dependant
whose gate it closed names the withdrawal, not "judged and missed" (trial 12, F3). The reward
is unchanged: the withdrawn row and its dependant earn nothing, as before.
"""

from __future__ import annotations

import json
import subprocess
import sys

from testkit import ROLLOUTS

from cowork_judge.core.fold import fold, stored_run
from cowork_judge.core.result import ResultDocument
from cowork_judge.run.ctrf import ctrf_document, row_status
from cowork_judge.sim.quotes import Fabricate

ROWS = [
    {"id": "A", "description": "The answer gives a number.", "weight": 2},
    {"id": "B", "description": "The answer gives a speed in km/h.", "weight": 1},
    {"id": "C", "description": "The answer gives a speed in metres.", "weight": 1, "depends_on": ["B"]},
]
ORACLE = {"A": {"hit": True}, "B": {"hit": False}, "C": {"hit": True}}  # B: a miss the judge fabricates into a hit


def _ctrf(verifier):
    return {t["name"].split(":")[0]: t for t in json.loads((verifier / "ctrf.json").read_text())["results"]["tests"]}


def test_a_withdrawn_row_is_a_failed_test_and_says_so(judge_run, tmp_path):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps({"rubrics": ROWS}))
    run = judge_run(tests, ROLLOUTS / "chat", oracle=ORACLE, sim={"fabricate": Fabricate(1.0, 0)},
                    env={"JUDGE_UNGROUNDED": "miss"})
    assert run.returncode == 0, run.stderr
    v = run.verdicts
    b, c = v["B"], v["C"]
    assert b["hit"] is True and b["grounded"] is False and b["counted_hit"] is False and b["contribution"] == 0.0
    assert b["reason"].startswith("[ungrounded] credit withdrawn"), b["reason"]
    assert "JUDGE_UNGROUNDED=miss" in b["reason"] and "the judge said:" in b["reason"]
    assert c["hit"] is True and c["gate"] == "closed" and c["contribution"] == 0.0
    assert "B's credit was withdrawn" in c["reason"] and "B was judged and missed" not in c["reason"], c["reason"]
    assert run.reward == 2 / 4  # unchanged: only A earns
    ctrf = _ctrf(run.verifier)
    assert ctrf["B"]["status"] == "failed" and ctrf["B"]["rawStatus"] == "credit withdrawn: ungrounded", ctrf["B"]
    assert ctrf["B"]["message"].startswith("[ungrounded] credit withdrawn")
    assert ctrf["C"]["status"] == "failed" and ctrf["C"]["rawStatus"] == "gate closed"
    assert ctrf["A"]["status"] == "passed" and "rawStatus" not in ctrf["A"]

    # rescore with the stored policy reproduces the document (the note is not added twice); a re-fold
    # under keep gives the judge's own reason back, and the credit
    doc = json.loads((run.verifier / "result.json").read_text())
    out = tmp_path / "rescored.json"
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "rescore", str(run.verifier / "result.json"),
                           "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    again = {r["id"]: r for r in json.loads(out.read_text())["results"]}
    assert again["B"]["reason"] == b["reason"] and again["C"]["reason"] == c["reason"]
    criteria, verdicts, policy, facts = stored_run(ResultDocument.model_validate(doc))
    kept = fold(criteria, verdicts, policy.model_copy(update={"ungrounded": "keep"}), facts)
    rows = {r.id: r for r in kept.results}
    assert rows["B"].counted_hit is True and not rows["B"].reason.startswith("[ungrounded]"), rows["B"].reason
    assert rows["B"].reason in b["reason"] and rows["C"].gate == "open" and rows["C"].counted_hit is True
    kept_ctrf = {t["name"].split(":")[0]: t for t in ctrf_document(kept, start_ms=0, stop_ms=1)["results"]["tests"]}
    assert kept_ctrf["B"]["status"] == "passed" and "rawStatus" not in kept_ctrf["B"]

    # the same re-fold from the command line (docs/scoring.md: "rescore … re-folds stored verdicts under the
    # other value"; trial 29's helper found no option for it)
    kept_out = tmp_path / "kept.json"
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "rescore", str(run.verifier / "result.json"),
                           "--ungrounded", "keep", "--out", str(kept_out)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    refolded = json.loads(kept_out.read_text())
    assert refolded["reward"] == 1.0 and refolded["details"]["policy"]["ungrounded"] == "keep"


def test_status_of_a_withdrawn_row():
    from types import SimpleNamespace as Row

    hit = Row(judged=True, hit=True, level=None, gate=None)
    assert row_status(hit, False, False, withdrawn=True) == ("failed", "credit withdrawn: ungrounded")
    assert row_status(Row(judged=True, hit=False, level=None, gate=None), True, False,
                      withdrawn=True) == ("failed", "credit withdrawn: ungrounded")  # a deduction counted as present
    assert row_status(Row(judged=True, hit=True, level=1.0, gate=None), False, True,
                      withdrawn=True) == ("failed", "credit withdrawn: ungrounded")
    assert row_status(hit, False, False) == ("passed", None)
