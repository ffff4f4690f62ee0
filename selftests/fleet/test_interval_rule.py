"""One rule for bootstrap intervals in ``summarize`` and ``calibrate`` (issue 39, item 25):
a statistic gets an interval only when at least `MIN_CLUSTERS` clusters contribute, and the
output says when none is given and why. Before, ``summarize`` reported the min and max of 3
documents as a "95 % interval" while ``calibrate`` gave none below 5 instances."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fleet.factory import RUBRIC, make_doc, verdicts, write

from cowork_judge.commands import main
from cowork_judge.fleet.stats import MIN_CLUSTERS

LEVELS = (1.0, 0.5, 0.0, 1.0, 0.5, 0.0, 1.0)


def fleet(root: Path, n: int) -> tuple[Path, Path]:
    """`n` instances (one task each): their tests and labels, and one judged result each."""
    tasks, results = root / "tasks", root / "results"
    for i in range(n):
        inst = tasks / f"inst{i}"
        (inst / "tests").mkdir(parents=True)
        (inst / "tests" / "rubric.json").write_text(json.dumps({"rubrics": RUBRIC}))
        (inst / "oracle.json").write_text(json.dumps({"R1": {"hit": True}, "R2": {"hit": i % 2 == 0},
                                                      "R3": {"hit": True, "level": 1.0}, "N1": {"hit": False}}))
        write(results / f"inst{i}" / "logs" / "verifier" / "result.json",
              make_doc(verdicts(r2=i % 3 != 0, r3=LEVELS[i % len(LEVELS)])))
    return tasks, results


@pytest.mark.parametrize("n", [3, 4])
def test_below_the_minimum_neither_command_gives_an_interval_and_both_say_why(tmp_path, capsys, n):
    assert MIN_CLUSTERS == 5
    tasks, results = fleet(tmp_path, n)
    assert main(["summarize", str(results), "--out", str(tmp_path / "s.json"), "--draws", "200"]) == 0
    err = capsys.readouterr().err
    s = json.loads((tmp_path / "s.json").read_text())
    assert s["reward"]["mean_ci"] is None and s["pass"]["rate_ci"] is None and s["coverage"]["mean_ci"] is None
    assert s["clusters"]["clusters"] == n and s["reward"]["clusters"] == n
    why = f"no interval: {n} task(s) (clusters) contribute, fewer than the minimum of {MIN_CLUSTERS}"
    assert s["reward"]["ci_note"] == s["pass"]["ci_note"] == s["coverage"]["ci_note"] == why
    assert s["intervals"]["given"] == 0 and s["intervals"]["withheld"] > 0 and s["options"]["min_clusters"] == MIN_CLUSTERS
    assert f"interval(s) withheld: a statistic gets one only when at least {MIN_CLUSTERS} task(s) (clusters) contribute (the " \
        f"fewest here: {n}); reward ({why})" in err

    assert main(["calibrate", str(tasks), "--results", str(results), "--report", str(tmp_path / "c.json"), "--draws", "200"]) == 0
    err = capsys.readouterr().err
    c = json.loads((tmp_path / "c.json").read_text())
    assert c["options"]["min_clusters"] == s["options"]["min_clusters"] == MIN_CLUSTERS
    assert c["agreement"]["accuracy_ci"] is None and c["reward"]["mae_ci"] is None
    assert c["agreement"]["ci_note"] == f"no interval: {n} instance(s) contribute, fewer than the minimum of {MIN_CLUSTERS}"
    assert c["agreement"]["ci_note"] in err  # the headline says it too


def test_from_the_minimum_on_both_commands_give_intervals(tmp_path, capsys):
    tasks, results = fleet(tmp_path, MIN_CLUSTERS)
    assert main(["summarize", str(results), "--out", str(tmp_path / "s.json"), "--draws", "200", "--html",
                 str(tmp_path / "s.html")]) == 0
    err = capsys.readouterr().err
    s = json.loads((tmp_path / "s.json").read_text())
    low, high = s["reward"]["mean_ci"]
    assert low <= s["reward"]["mean"] <= high and s["reward"]["ci_note"] is None and s["coverage"]["ci_note"] is None
    assert s["intervals"]["withheld"] == 0 and s["intervals"]["note"] is None and "withheld" not in err
    assert main(["calibrate", str(tasks), "--results", str(results), "--report", str(tmp_path / "c.json"), "--draws", "200"]) == 0
    c = json.loads((tmp_path / "c.json").read_text())
    assert c["agreement"]["accuracy_ci"] is not None and c["agreement"]["ci_note"] is None
    assert "no interval" not in capsys.readouterr().err


def test_the_html_page_says_why_an_interval_is_missing(tmp_path, capsys):
    _, results = fleet(tmp_path, 3)
    assert main(["summarize", str(results), "--out", str(tmp_path / "s.json"), "--html", str(tmp_path / "s.html")]) == 0
    capsys.readouterr()
    page = (tmp_path / "s.html").read_text()
    assert "interval(s) withheld: a statistic gets one only when at least 5 task(s) (clusters) contribute" in page


def test_draws_zero_means_no_interval_and_no_rule_note(tmp_path, capsys):
    _, results = fleet(tmp_path, 3)
    assert main(["summarize", str(results), "--out", str(tmp_path / "s.json"), "--draws", "0"]) == 0
    assert "withheld" not in capsys.readouterr().err
    s = json.loads((tmp_path / "s.json").read_text())
    assert s["reward"]["mean_ci"] is None and s["reward"]["ci_note"] is None
    assert s["intervals"] == {"min_clusters": MIN_CLUSTERS, "given": 0, "withheld": 0, "note": "no intervals: --draws 0"}
