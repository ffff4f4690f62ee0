"""Verdict policies: oracle files (format, errors, page overrides) and the demo policy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cowork_judge.sim import DEMO_REASON_PREFIX, DemoPolicy, OraclePolicy
from cowork_judge.sim.policies import content_words


def _write(tmp_path: Path, doc: object) -> Path:
    path = tmp_path / "oracle.json"
    path.write_text(json.dumps(doc) if not isinstance(doc, str) else doc, encoding="utf-8")
    return path


def test_oracle_returns_entries_exactly_and_fills_missing_ids(tmp_path, rows):
    path = _write(tmp_path, {
        "A1": {"hit": True, "reason": "growth stated on p.2"},
        "A2": {"hit": True, "level": 0.5, "reason": "one axis unlabelled"},
    })
    got = OraclePolicy.from_file(path).verdicts(rows, "ignored")
    assert got == [
        {"id": "A1", "hit": True, "reason": "growth stated on p.2"},
        {"id": "A2", "hit": True, "level": 0.5, "reason": "one axis unlabelled"},
        {"id": "N1", "hit": False, "reason": "not in oracle"},
    ]


def test_oracle_page_override_and_na(rows):
    policy = OraclePolicy.from_dict({
        "A2": {"hit": True, "level": 1.0},
        "A2@3": {"hit": False, "level": 0.0, "na": True, "reason": "page 3 has no chart"},
    })
    assert policy.page_answers == {("A2", 3): {"hit": False, "level": 0.0, "na": True, "reason": "page 3 has no chart"}}
    a2 = [rows[1]]
    assert policy.verdicts(a2, "", page=3) == [
        {"id": "A2", "hit": False, "level": 0.0, "na": True, "reason": "page 3 has no chart"}
    ]
    assert policy.verdicts(a2, "", page=2) == [{"id": "A2", "hit": True, "level": 1.0, "reason": "oracle"}]
    assert policy.verdicts(a2, "") == policy.verdicts(a2, "", page=2)


def test_oracle_pages_are_copied_into_the_verdict(rows):
    policy = OraclePolicy.from_dict({"A1": {"hit": False, "pages": [9, 2], "reason": "only in a diagram"},
                                     "A1@9": {"hit": True}})
    assert policy.verdicts([rows[0]], "") == [{"id": "A1", "hit": False, "pages": [9, 2], "reason": "only in a diagram"}]
    assert policy.verdicts([rows[0]], "", page=9) == [{"id": "A1", "hit": True, "reason": "oracle"}]


def test_oracle_gradient_without_level_uses_extreme_choices(rows):
    policy = OraclePolicy.from_dict({"A2": {"hit": True}})
    assert policy.verdicts([rows[1]], "")[0]["level"] == 1.0
    policy = OraclePolicy.from_dict({"A2": {"hit": False}})
    assert policy.verdicts([rows[1]], "")[0]["level"] == 0.0


@pytest.mark.parametrize(
    ("doc", "fragment"),
    [
        ("{not json", "invalid JSON at line 1"),
        ([1, 2], "top level must be a JSON object"),
        ({"A1": True}, "entry 'A1' must be an object"),
        ({"A1": {"reason": "x"}}, "entry 'A1': 'hit' is required"),
        ({"A1": {"hit": "yes"}}, "entry 'A1': 'hit' is required and must be true or false"),
        ({"A1": {"hit": True, "level": 1.5}}, "entry 'A1': 'level' must be a number in [0, 1]"),
        ({"A1": {"hit": True, "na": 1}}, "entry 'A1': 'na' must be true or false"),
        ({"A1": {"hit": True, "reason": 3}}, "entry 'A1': 'reason' must be a string"),
        ({"A1": {"hit": True, "pages": [0]}}, "entry 'A1': 'pages' must be a list of page numbers"),
        ({"A1": {"hit": True, "pages": 3}}, "entry 'A1': 'pages' must be a list of page numbers"),
        ({"A1": {"hit": True, "levle": 0.5}}, "unknown field(s) ['levle']"),
        ({"A1@0": {"hit": True}}, "page numbers start at 1"),
    ],
)
def test_oracle_bad_file_raises_value_error_naming_the_problem(tmp_path, doc, fragment):
    path = _write(tmp_path, doc)
    with pytest.raises(ValueError) as info:
        OraclePolicy.from_file(path)
    assert fragment in str(info.value)
    assert str(path) in str(info.value)


def test_oracle_missing_file_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match="cannot read"):
        OraclePolicy.from_file(tmp_path / "nope.json")


def test_content_words_are_lowercase_unique_and_long():
    assert content_words("The Report, the REPORT: revenue-growth of Q3 2024!") == ["report", "revenue", "growth"]


def test_demo_policy_is_deterministic_labelled_and_follows_overlap(rows):
    policy = DemoPolicy()
    context = "The quarterly REPORT shows revenue growth. Charts have colours."
    first = policy.verdicts(rows, context)
    assert first == DemoPolicy().verdicts(rows, context)
    assert all(v["reason"].startswith(DEMO_REASON_PREFIX) for v in first)
    a1, a2, n1 = first
    # A1 words: report states quarterly revenue growth -> 4 of 5 found
    assert a1["hit"] is True and "4/5" in a1["reason"] and "level" not in a1
    # A2 words: charts readable colours labelled -> 2 of 4 found = 0.5
    assert a2 == {"id": "A2", "hit": True, "level": 0.5, "reason": a2["reason"]}
    assert n1["hit"] is False and "negative row" in n1["reason"]


def test_demo_policy_levels_snap_down_and_miss_below_threshold(rows):
    a2 = dict(rows[1], level_choices=[0.25, 0.5, 1.0])
    got = DemoPolicy().verdicts([a2], "nothing relevant here")[0]
    assert got["hit"] is False and got["level"] == 0.25  # fraction 0 < every choice: smallest level
    got = DemoPolicy().verdicts([a2], "charts readable colours labelled axes")[0]
    assert got["hit"] is True and got["level"] == 1.0


def test_demo_policy_rejects_bad_fraction():
    with pytest.raises(ValueError, match="hit_fraction"):
        DemoPolicy(hit_fraction=1.5)


def test_a_row_the_oracle_lacks_is_said_once_with_the_closest_key(tmp_path, rows, capsys):
    """Trial 16 P-5: a misspelt oracle key (``A-PAYBAK``) answered the real row "not in oracle", a judged miss the
    rehearsal showed nowhere. `cowork-judge sim` now says it on stderr, once per row, with the closest key."""
    import subprocess
    import sys

    path = _write(tmp_path, {"A1": {"hit": True}, "A2": {"hit": True, "level": 0.5}, "N": {"hit": False}})
    policy = OraclePolicy.from_file(path)
    told: list[tuple[str, str | None]] = []
    policy.on_missing = lambda row_id, close: told.append((row_id, close))
    policy.verdicts(rows, "ignored")
    policy.verdicts(rows, "ignored")
    assert told == [("N1", "N")]  # once, however often asked
    code = ("import sys, json, urllib.request; from cowork_judge.sim import cli; "
            "server = cli._configure(cli.build_parser().parse_args(['--oracle', sys.argv[1], '--port', '0'])); "
            "server.policy.verdicts([{'id': 'A-PAYBACK', 'description': 'x'}], '')")
    proc = subprocess.run([sys.executable, "-c", code, str(_write(tmp_path, {"A-PAYBAK": {"hit": True}}))],
                          capture_output=True, text=True, timeout=60)
    assert ("oracle file" in proc.stderr and "has no entry for row 'A-PAYBACK'" in proc.stderr
            and "did you mean 'A-PAYBAK'?" in proc.stderr), proc.stderr
