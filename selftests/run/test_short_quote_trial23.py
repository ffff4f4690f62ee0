"""A credited verdict whose quote is shorter than the minimum says so (trial 23, P-4).

A quote of fewer than four non-space characters ("LLM", "Q3", "EUR") grounds nothing, even when
it IS in the evidence text: it would be found in almost any text. The real command line against
the simulator over HTTP: the reason names the length rule (not "the quote is not in the evidence
text sent", which is false), the one re-ask tells the model the same, and under
``JUDGE_UNGROUNDED=miss`` the "no fault" hurdle still counts as found (the rule is kept). A
longer quote of the same text grounds the verdict and the good answer earns its reward. The
simulator's ``--oracle`` names a quote that short when it reads the file.
"""

from __future__ import annotations

import json

from testkit import ROLLOUTS, sim_oracle_stderr

from cowork_judge.core import grounding
from cowork_judge.sim.policies import QUOTE_MIN_CHARS, OraclePolicy

ROWS = [
    {"id": "A-PATTERNS", "description": "The answer names the workflow patterns of the essay.", "weight": 1},
    {"id": "H-WRONG", "description": "The answer names a wrong building block.", "weight": 0, "hurdle": True},
]


def _oracle(quote: str) -> dict[str, dict[str, object]]:
    return {"A-PATTERNS": {"hit": True, "quote": "prompt chaining, routing"}, "H-WRONG": {"hit": False, "quote": quote}}


def _tests(tmp_path):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps({"rubrics": ROWS}))
    return tests


class Recording(OraclePolicy):
    """The oracle, keeping the text of every request it answers (the re-ask's included)."""

    def __init__(self, table: dict[str, dict[str, object]]) -> None:
        base = OraclePolicy.from_dict(table)
        super().__init__(base.answers, base.page_answers)
        self.seen: list[str] = []

    def verdicts(self, rows, context_text, page=None):
        self.seen.append(context_text)
        return super().verdicts(rows, context_text, page)


def test_a_short_quote_that_is_in_the_text_is_named_too_short(judge_run, tmp_path):
    policy = Recording(_oracle("LLM"))
    run = judge_run(_tests(tmp_path), ROLLOUTS / "chat", policy=policy, env={"JUDGE_UNGROUNDED": "miss"})
    assert run.returncode == 0, run.stderr
    row = run.verdicts["H-WRONG"]
    assert row["grounded"] is False and row["quote"] == "LLM"
    assert row["grounding"] == ("asked again once: the quote 'LLM' is too short to check (under 4 characters, "
                                "spaces not counted): quote a longer phrase that contains it"), row["grounding"]
    assert "not in the evidence text" not in row["grounding"]
    assert run.reward == 0.0  # the minimum is kept: the hurdle's "no fault" is not grounded
    reask = policy.seen[-1]  # the one re-ask: the same conversation, then the re-asked row
    assert "H-WRONG: the quote 'LLM' is too short to check" in reask
    assert "with a quote that could not be checked against the evidence text you were shown" in reask
    assert "give a short quote (at least 4 characters, spaces not counted) copied character" in reask


def test_a_longer_quote_of_the_same_text_grounds_the_verdict(judge_run, tmp_path):
    run = judge_run(_tests(tmp_path), ROLLOUTS / "chat", oracle=_oracle("the augmented LLM"),
                    env={"JUDGE_UNGROUNDED": "miss"})
    assert run.returncode == 0, run.stderr
    row = run.verdicts["H-WRONG"]
    assert row["grounded"] is True and row["grounding"] == "quote found in the evidence text sent"
    assert run.reward == 1.0


def test_sim_oracle_warns_of_a_quote_too_short_to_check(tmp_path):
    """The rehearsal loop (``cowork-judge sim --oracle``) says it when it starts, before any ``try``."""
    assert QUOTE_MIN_CHARS == grounding.QUOTE_MIN_CHARS  # the simulator's copy of the judge's rule
    oracle = tmp_path / "oracle.json"
    oracle.write_text(json.dumps({"H-WRONG": {"hit": False, "quote": "Q3"}, "H-OK": {"hit": False, "quote": "Q3 results"}}))
    err = sim_oracle_stderr(oracle)
    assert "entry 'H-WRONG': quote 'Q3' is under 4 characters (spaces not counted): the judge checks no quote that " \
           "short, so a credit it backs is recorded grounded: false" in err, err
    assert "H-OK" not in err and err.count("warning: oracle file") == 1, err
