"""Trial 13 F1: ``rescore --rubric`` reuses a stored verdict only for the question it answered.

Before, the match (`Criterion.as_asked`) ignored how a row is judged: a code row's method or params
(``text_contains`` text, ``word_count_between`` bounds), a row moved to ``judge_method: code``, a workflow's
inputs (answer_match's ``reference``), and a stored gate closure (``[gate] … judged and missed``, never asked of a
model) was kept as a judged miss after the new rubric dropped the ``depends_on``. Each gave the stored reward with
coverage 1.0 and no warning, while a live run of the new rubric on the same rollout gives another reward.
Now such a row is unjudged ``no_verdict`` and a warning names what changed. The test runs the real ``cowork-judge
run`` (simulator on 127.0.0.1) and the real ``rescore`` CLI, and compares with a live run of each new rubric.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ANSWER = ("Rayleigh scattering: shorter blue wavelengths scatter more strongly than longer red wavelengths, by the inverse "
          "fourth power law.\n")
BASE: dict[str, Any] = {"rubrics": [
    {"id": "C-RAYLEIGH", "description": "The answer names Rayleigh scattering.", "weight": 1, "judge_method": "code",
     "code_method_name": "text_contains", "code_method_params": {"source": "response", "text": "Rayleigh"}},
    {"id": "C-LENGTH", "description": "The answer is 100-300 words.", "weight": 1, "judge_method": "code",
     "code_method_name": "word_count_between",
     "code_method_params": {"source": "response", "min_words": 100, "max_words": 300}},
    {"id": "A-WAVELENGTH", "description": "The answer says shorter (blue) wavelengths scatter more strongly than longer "
     "(red) ones.", "weight": 3, "type": "gradient",
     "levels": {"1": "states it with the inverse fourth-power law", "0.5": "states it qualitatively", "0": "not stated"}},
    {"id": "A-WRONG", "description": "The answer claims the sky is blue because it reflects the ocean.", "weight": 0,
     "hurdle": True},
]}


def _edit(row: str, **fields: Any) -> dict[str, Any]:
    rubric = copy.deepcopy(BASE)
    for r in rubric["rubrics"]:
        if r["id"] == row:
            r.update(fields)
    return rubric


GATED = _edit("A-WAVELENGTH", depends_on=["C-LENGTH"])
CASES = {  # name: (stored rubric, new rubric, the changed row, what the warning names)
    "text": (BASE, _edit("C-RAYLEIGH", code_method_params={"source": "response", "text": "quasar"}), "C-RAYLEIGH",
             "code_method_params"),
    "bounds": (BASE, _edit("C-LENGTH", code_method_params={"source": "response", "min_words": 10, "max_words": 300}),
               "C-LENGTH", "code_method_params"),
    "to-code": (BASE, _edit("A-WAVELENGTH", judge_method="code", code_method_name="text_contains",
                            code_method_params={"source": "response", "text": "zzz"}), "A-WAVELENGTH", "judge_method"),
    "gate-removed": (GATED, BASE, "A-WAVELENGTH", "gate closure"),
}
MATCH = {"rubrics": [{"id": "ANSWER", "description": "The final answer agrees with the reference answer.", "weight": 1,
                      "type": "gradient", "levels": {"0": "incorrect", "0.5": "partially correct", "1": "correct"},
                      "judge_method": "workflow", "workflow_name": "answer_match",
                      "answer_match": {"reference": ["3 km"], "rel_tol": 0.05, "question": "How far?"}}]}
MATCH_FIXED = copy.deepcopy(MATCH)
MATCH_FIXED["rubrics"][0]["answer_match"]["reference"] = ["5 km"]


def _tests(root: Path, rubric: dict[str, Any], prompt: str) -> Path:
    root.mkdir(parents=True)
    (root / "rubric.json").write_text(json.dumps(rubric))
    (root / "task_prompt.md").write_text(prompt)
    return root


def _rollout(root: Path, answer: str) -> Path:
    (root / "logs" / "agent").mkdir(parents=True)
    (root / "logs" / "agent" / "final_answer.txt").write_text(answer)
    return root


def _stored_rescored_live(judge_run: Any, tmp_path: Path, old: dict[str, Any], new: dict[str, Any], answer: str,
                          prompt: str) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], str]:
    rollout = _rollout(tmp_path / "rollout", answer)
    stored = judge_run(_tests(tmp_path / "old" / "tests", old, prompt), rollout)
    live = judge_run(_tests(tmp_path / "new" / "tests", new, prompt), rollout)
    assert stored.returncode == 0 and live.returncode == 0, stored.stderr + live.stderr
    out = tmp_path / "rescored.json"
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "rescore", str(stored.verifier / "result.json"), "--rubric",
                           str(tmp_path / "new" / "tests" / "rubric.json"), "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    docs = [json.loads(p.read_text()) for p in (stored.verifier / "result.json", out, live.verifier / "result.json")]
    return docs[0], docs[1], docs[2], " ".join(proc.stderr.split())


def _row(doc: dict[str, Any], rid: str) -> dict[str, Any]:
    return next(r for r in doc["results"] if r["id"] == rid)


def _assert_unjudged(stored: dict[str, Any], new: dict[str, Any], live: dict[str, Any], err: str, rid: str,
                     names: str) -> None:
    # the stored verdict would give another reward than a live run of the new rubric: it must not be reused
    assert stored["task_score"] != live["task_score"]
    row = _row(new, rid)
    assert (row["judged"], row["hit"], row["error_kind"]) == (False, None, "no_verdict"), row
    assert new["extra_fields"]["judge_coverage"] < 1.0
    assert new["status"] != "success" or new["extra_fields"]["judge_degraded"], new["status"]
    warnings = " ".join(new["details"]["warnings"])
    assert f"row {rid!r} changed since it was judged" in warnings and names in warnings, warnings
    assert f"row {rid!r} changed since it was judged" in err and names in err, err
    # every other row keeps its stored verdict, as the live run gives it
    for other in new["results"]:
        if other["id"] != rid:
            assert (other["hit"], other["level"]) == (_row(live, other["id"])["hit"], _row(live, other["id"])["level"])


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_row_whose_judging_changed_is_not_scored_on_its_stored_verdict(judge_run, tmp_path: Path, case: str):
    old, new_rubric, rid, names = CASES[case]
    stored, new, live, err = _stored_rescored_live(judge_run, tmp_path, old, new_rubric, ANSWER, "Why is the sky blue?\n")
    _assert_unjudged(stored, new, live, err, rid, names)


def test_a_fixed_answer_match_reference_is_not_scored_on_the_old_verdict(judge_run, tmp_path: Path):
    stored, new, live, err = _stored_rescored_live(judge_run, tmp_path, MATCH, MATCH_FIXED, "Answer: 3 km\n",
                                                   "How far does it go?\n")
    _assert_unjudged(stored, new, live, err, "ANSWER", "answer_match")


def test_a_kept_gate_and_a_new_weight_still_reuse_the_stored_verdicts(judge_run, tmp_path: Path):
    heavier = copy.deepcopy(GATED)
    heavier["rubrics"][2]["weight"] = 5
    stored, new, live, err = _stored_rescored_live(judge_run, tmp_path, GATED, heavier, ANSWER, "Why is the sky blue?\n")
    assert new["extra_fields"]["judge_coverage"] == 1.0 and "changed since it was judged" not in err
    assert new["task_score"] == live["task_score"]
    assert _row(new, "A-WAVELENGTH")["reason"].startswith("[gate]")


def test_a_new_page_mean_p_or_workflow_setting_is_a_changed_row():
    """The trial's deck case (``page_mean_p`` −2 → 1 on a ppt_judge row) without a deck: a workflow field is
    part of how the row is judged, so its stored verdict (folded with the old p) is not reused."""
    from cowork_judge.core.rubric import normalize_rubric
    from cowork_judge.core.verdicts import Verdict
    from cowork_judge.fleet.rescore import changed_questions

    def rows(p: float) -> Any:
        return normalize_rubric({"rubrics": [{"id": "V-BLANK", "description": "No slide is blank.", "weight": 1,
                                              "judge_method": "workflow", "workflow_name": "ppt_judge", "page_mean_p": p}]
                                 }).criteria

    stored = {"V-BLANK": Verdict(id="V-BLANK", hit=True, judged=True, reason="ok", method="workflow")}
    assert changed_questions(rows(-2), rows(1), stored) == {"V-BLANK": ["page_mean_p"]}
    assert changed_questions(rows(-2), rows(-2), stored) == {}
