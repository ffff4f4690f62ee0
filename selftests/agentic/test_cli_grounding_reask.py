"""The codex and claude backends ask an ungrounded hit again once (issue 37): the REAL CLIs
against the simulator, whose ``--fabricate`` judge invents a hit with a quote that is in no
text.

A block whose answer credits a row with a quote not found in the text the CLI could read
gets ONE more CLI run for just those rows (same workspace; the prompt names the row, its
quote and why it was not found, in the built-in backend's words). An honest second answer
restores the oracle's verdict; a second fabrication is recorded ``grounded: false`` after
exactly two CLI runs; no time left in the attempt for another run ⇒ ``grounded: false``,
"not asked again: budget", and no second run. The extra run's requests are counted in
``judge_calls`` and it is one more attempt on the rows it asked.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from agentic.test_cli_backends import AGENTIC, BACKENDS, assert_reward_written, audit_records
from agentic.test_cli_backends import private_tmp  # noqa: F401  (autouse: the judge's own TMPDIR)
from run.test_e2e import AGENTIC_REWARD, DECK_ORACLE
from testkit import ROLLOUTS, agentic_example

from cowork_judge.sim import FaultPlan
from cowork_judge.sim.latency import LatencyModel
from cowork_judge.sim.quotes import FABRICATED, Fabricate

pytestmark = pytest.mark.slow

FABRICATED_ROW = "A-TOOL-DESIGN"
"""The one positive agentic row the oracle calls missed: the row ``--fabricate`` credits."""


@pytest.fixture
def example(tmp_path: Path) -> Path:
    """The example's code and agentic rows (as in `test_cli_backends`)."""
    return agentic_example(tmp_path / "example-tests")


class FirstOnly(Fabricate):
    """A judge that fabricates in its first answer only (the re-ask is answered honestly)."""

    def __init__(self) -> None:
        super().__init__(1.0, 0)
        self.draws = 0

    def draw(self, instance: str | None, row_ids: list[str]) -> bool:
        self.draws += 1
        return self.draws == 1


def env_for(name: str, **extra: str) -> dict[str, str]:
    # one block holding every agentic row: one CLI run, then (at most) one re-ask run
    return {"JUDGE_BACKEND": name, "JUDGE_BATCH": "5", **extra}


def cli_runs(run: Any) -> list[dict[str, Any]]:
    """The CLI runs of block-01's first attempt, as its audit records them (argv and prompt)."""
    return [r for r in audit_records(run, "block-01", 1) if "cli" in r]


@pytest.mark.parametrize("name", BACKENDS)
def test_an_ungrounded_hit_is_asked_again_by_one_more_cli_run(example, judge_run, name):
    run = judge_run(example, ROLLOUTS / "deck", oracle=DECK_ORACLE, sim={"fabricate": FirstOnly()}, env=env_for(name))
    doc = assert_reward_written(run)
    finals = [e for e in run.sim.log.entries() if e.kind == "final"]
    assert len(finals) == 2, [(e.kind, e.row_ids) for e in run.sim.log.entries()]
    assert finals[0].fabricated == [FABRICATED_ROW] and sorted(finals[0].row_ids) == AGENTIC
    assert finals[1].row_ids == [FABRICATED_ROW] and finals[1].fabricated == []  # the re-ask asks that row only
    runs = cli_runs(run)
    assert len(runs) == 2  # exactly one extra CLI run
    reask = runs[1]["prompt"]
    assert FABRICATED_ROW in reask and FABRICATED in reask and "not in the evidence text" in reask
    assert "Answer again for these rows only" in reask
    # the honest second answer stands: the oracle's reward, every request counted
    assert run.reward == pytest.approx(AGENTIC_REWARD, abs=1e-12)
    ef = doc["extra_fields"]
    assert ef["judge_coverage"] == 1.0 and ef["judge_calls"] == run.model_requests
    row = run.verdicts[FABRICATED_ROW]
    assert row["hit"] is False and row["grounding"].startswith("asked again once") and row["attempts"] == 2
    assert all(run.verdicts[i]["attempts"] == 1 for i in AGENTIC if i != FABRICATED_ROW)


@pytest.mark.parametrize("name", BACKENDS)
def test_a_quote_still_not_found_is_ungrounded_after_exactly_two_cli_runs(example, judge_run, name):
    run = judge_run(example, ROLLOUTS / "deck", oracle=DECK_ORACLE, sim={"fabricate": Fabricate(1.0, 0)},
                    env=env_for(name))
    doc = assert_reward_written(run)
    finals = [e for e in run.sim.log.entries() if e.kind == "final"]
    assert [e.fabricated for e in finals] == [[FABRICATED_ROW], [FABRICATED_ROW]]
    assert len(cli_runs(run)) == 2
    row = run.verdicts[FABRICATED_ROW]
    assert row["hit"] is True and row["grounded"] is False and row["grounding"].startswith("asked again once")
    assert row["attempts"] == 2 and doc["extra_fields"]["judge_calls"] == run.model_requests


def test_no_time_for_another_cli_run_is_not_asked_again_budget(example, judge_run):
    """Each model turn takes 19 s: the first codex run (a tool turn, then the answer) leaves
    less than a quarter of JUDGE_PER_TIMEOUT=48 s, so no second run is started."""
    slow = LatencyModel(tool_base_ms=19_000, final_base_ms=19_000)
    run = judge_run(example, ROLLOUTS / "deck", oracle=DECK_ORACLE, timeout=200,
                    sim={"fabricate": Fabricate(1.0, 0), "latency": slow},
                    env=env_for("codex", JUDGE_PER_TIMEOUT="48"))
    assert_reward_written(run)
    assert [e.fabricated for e in run.sim.log.entries() if e.kind == "final"] == [[FABRICATED_ROW]]
    assert len(cli_runs(run)) == 1
    row = run.verdicts[FABRICATED_ROW]
    assert row["grounded"] is False and "not asked again: budget" in row["grounding"] and row["attempts"] == 1


def test_a_failed_re_ask_run_leaves_the_row_ungrounded_and_its_calls_counted(example, judge_run):
    """codex's requests: the first run's tool turn and answer (fabricated), then the re-ask
    run's first request fails with an HTTP 5xx: the attempt keeps its first answers, the row
    stays ungrounded and says the re-ask failed; the failed run's request is counted."""
    run = judge_run(example, ROLLOUTS / "deck", oracle=DECK_ORACLE,
                    sim={"fabricate": Fabricate(1.0, 0), "faults": FaultPlan(script=["ok", "ok", "http_5xx"])},
                    env=env_for("codex"))
    doc = assert_reward_written(run)
    log = run.sim.log.entries()
    assert [e.fault for e in log] == [None, None, "http_5xx"] and log[2].row_ids == [FABRICATED_ROW]
    assert len(cli_runs(run)) == 2
    row = run.verdicts[FABRICATED_ROW]
    assert row["judged"] is True and row["grounded"] is False and "the re-ask failed (api_error)" in row["grounding"]
    assert doc["extra_fields"]["judge_calls"] == run.model_requests == 3
    assert doc["extra_fields"]["judge_coverage"] == 1.0
