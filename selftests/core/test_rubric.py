"""Rubric normalization: every accepted shape, derived fields, clear errors."""

from __future__ import annotations

import json

import pytest

from cowork_judge.core.rubric import RubricError, load_rubric, normalize_rubric

ROW = {"id": "a", "description": "The report has a title", "weight": 2}


@pytest.mark.parametrize(
    "doc",
    [
        {"rubrics": [ROW]},
        {"criteria": [ROW]},
        {"items": [ROW]},
        [ROW],
        {"a": {"description": "The report has a title", "weight": 2}},
    ],
)
def test_accepted_shapes(doc):
    rubric = normalize_rubric(doc)
    assert [c.id for c in rubric.criteria] == ["a"]
    assert rubric.criteria[0].weight == 2.0 and rubric.criteria[0].description == "The report has a title"


def test_list_key_wins_and_workflow_config_never_becomes_a_row():
    doc = {"workflow_config": {"ppt_judge": {"mode": "grouped"}}, "rubrics": [ROW]}
    rubric = normalize_rubric(doc)
    assert [c.id for c in rubric.criteria] == ["a"]
    assert rubric.workflow_config == {"ppt_judge": {"mode": "grouped"}}
    mapping = normalize_rubric({"workflow_config": {"ppt_judge": {}}, "a": {"description": "x", "weight": 1}})
    assert [c.id for c in mapping.criteria] == ["a"]


@pytest.mark.parametrize("key", ["description", "criterion", "criteria", "requirement", "question", "title"])
def test_description_aliases(key):
    assert normalize_rubric([{"id": "a", key: "text", "weight": 1}]).criteria[0].description == "text"


def test_weight_aliases_only_where_numeric():
    rubric = normalize_rubric(
        [
            {"id": "p", "criterion": "x", "points": -6},
            {"id": "s", "description": "x", "score": 3},
            {"id": "t", "description": "x", "score": "high", "points": 2},  # non-numeric score is not a weight
        ]
    )
    assert [c.weight for c in rubric.criteria] == [-6.0, 3.0, 2.0]


def test_generated_ids_warn_and_avoid_collisions():
    rubric = normalize_rubric([{"description": "x", "weight": 1}, {"id": "R01", "description": "y", "weight": 1}])
    assert [c.id for c in rubric.criteria] == ["R02", "R01"]
    assert any("generated" in w for w in rubric.warnings)


def test_derived_fields():
    rubric = normalize_rubric(
        [
            {"id": "pos", "description": "x", "weight": 2},
            {"id": "neg", "description": "x", "weight": -2},
            {"id": "hur", "description": "the deliverable is missing", "weight": 0, "hurdle": True},
            {"id": "grad", "description": "x", "weight": 2, "levels": {"1": "all", "0.5": "half", "0": "none"}},
        ]
    )
    pos, neg, hur, grad = rubric.criteria
    assert (pos.polarity, neg.polarity, hur.polarity, grad.polarity) == ("positive", "negative", "negative", "positive")
    assert "hit=false" in neg.hit_means and "no such fault" in neg.hit_means
    assert "fatal" in hur.hit_means and "hit=false" in hur.hit_means
    assert grad.type == "gradient" and grad.level_choices == (0.0, 0.5, 1.0)
    assert "0, 0.5, 1" in grad.hit_means
    assert pos.level_choices is None
    judge_view = grad.for_judge()
    assert judge_view["level_choices"] == [0.0, 0.5, 1.0] and "judge_method" not in judge_view


def test_derived_fields_in_the_file_are_ignored():
    rubric = normalize_rubric([{"id": "a", "description": "x", "weight": -1, "polarity": "positive", "hit_means": "lies"}])
    assert rubric.criteria[0].polarity == "negative" and rubric.criteria[0].hit_means != "lies"
    assert any("ignored" in w for w in rubric.warnings)


def test_judge_method_defaults_and_fallbacks():
    rubric = normalize_rubric(
        [
            {"id": "a", "description": "x", "weight": 1},
            {"id": "b", "description": "x", "weight": 1, "judge_method": "oracle"},
            {"id": "c", "description": "x", "weight": 1, "judge_method": "code"},
            {"id": "d", "description": "x", "weight": 1, "judge_method": "code", "code_method_name": "file_exists"},
        ]
    )
    assert [c.judge_method for c in rubric.criteria] == ["agentic", "agentic", "agentic", "code"]
    assert sum("judged as 'agentic'" in w for w in rubric.warnings) == 2


def test_unknown_keys_are_carried_through():
    c = normalize_rubric([{"id": "a", "description": "x", "weight": 1, "tags": ["axis:accuracy"]}]).criteria[0]
    assert c.extra == {"tags": ["axis:accuracy"]}


@pytest.mark.parametrize(
    "doc,needle",
    [
        ([], "no rows"),
        ("text", "must be a JSON object or list"),
        ([{"id": "a", "weight": 1}], "row 'a': field 'description'"),
        ([{"id": "a", "description": "x", "weight": 1}, {"id": "a", "description": "y"}], "row 'a': duplicate id"),
        ([{"id": "a", "description": "x", "weight": "heavy"}], "row 'a': field 'weight'"),
        ([{"id": "a", "description": "x", "weight": 1e999}], "must be finite"),
        ([{"id": "a", "description": "x", "hurdle": "maybe"}], "row 'a': field 'hurdle'"),
        ([{"id": "a", "description": "x", "type": "likert"}], "row 'a': field 'type'"),
        ([{"id": "a", "description": "x", "type": "gradient"}], "needs a 'levels' table"),
        ([{"id": "a", "description": "x", "levels": {"1": "all"}}], "at least 2 levels"),
        ([{"id": "a", "description": "x", "levels": {"1": "a", "1.5": "b"}}], "outside [0, 1]"),
        ([{"id": "a", "description": "x", "levels": {"1": "a", "high": "b"}}], "not a number"),
        ([{"id": "a", "description": "x", "levels": {"1": "a", "1.0": "b"}}], "same level"),
        ([{"id": "a", "description": "x", "depends_on": [{"id": "b"}]}], "depends_on"),
        ([{"id": "a", "description": "x", "na_policy": "skip"}], "na_policy"),
        ([{"id": "a", "description": "x", "code_method_params": [1]}], "code_method_params"),
        (["not a row"], "row 1: a row must be an object"),
    ],
)
def test_bad_rubrics_name_row_and_field(doc, needle):
    with pytest.raises(RubricError) as err:
        normalize_rubric(doc)
    assert needle in str(err.value)


def test_load_rubric_reports_bad_files(tmp_path):
    with pytest.raises(RubricError, match="not found"):
        load_rubric(tmp_path / "rubric.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"rubrics": [ {"id": "a", ')
    with pytest.raises(RubricError, match="not valid JSON"):
        load_rubric(bad)
    nan = tmp_path / "nan.json"
    nan.write_text('[{"id": "a", "description": "x", "weight": NaN}]')
    with pytest.raises(RubricError, match="not valid JSON"):
        load_rubric(nan)
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(RubricError, match="cannot be read"):
        load_rubric(binary)


def test_example_rubrics_normalize(tmp_path):
    from testkit import EXAMPLE_TESTS, HEALTHBENCH_EXAMPLE

    deck = load_rubric(EXAMPLE_TESTS / "rubric.json")
    kinds = {(c.polarity, c.hurdle, c.type, bool(c.depends_on)) for c in deck.criteria}
    assert ("negative", False, "binary", False) in kinds  # a deduction row
    assert ("negative", True, "binary", False) in kinds  # a hurdle written as a violation
    assert any(c.type == "gradient" for c in deck.criteria)
    assert any(c.depends_on for c in deck.criteria)
    hb = load_rubric(HEALTHBENCH_EXAMPLE / "tests" / "rubric.json")
    assert [c.weight for c in hb.criteria] == [8, 7, 6, 6, 5, -6]
    assert json.loads((EXAMPLE_TESTS / "rubric.json").read_text())  # plain JSON, no comments


def test_load_time_warnings_for_typos_missing_weights_and_broken_dependencies():
    r = normalize_rubric([
        {"id": "A1", "description": "x", "wieght": 5},
        {"id": "A2", "description": "y", "weight": 3, "depends_on": ["A3", "NOPE"], "tags": ["kept silently"]},
        {"id": "A3", "description": "z", "weight": 1, "depends_on": ["A2", "A3"]},
    ])
    text = "\n".join(r.warnings)
    assert "unknown field 'wieght'" in text and "did you mean 'weight'" in text
    assert "row 'A1': no weight" in text
    assert "'NOPE'" in text and "row 'A3': depends on itself" in text and "cycle A2 → A3 → A2" in text
    assert "tags" not in text  # carried data, not a typo
    assert r.criteria[0].weight == 0 and r.criteria[0].extra == {"wieght": 5}  # warned, not guessed


def test_a_singular_of_a_plural_field_is_a_typo_but_a_plural_is_not():
    """Trial 6 F16: ``code_method_param`` is a misspelt ``code_method_params``; ``tags`` beside
    the known ``tag`` stays carried data."""
    r = normalize_rubric([{"id": "a", "description": "x", "weight": 1, "judge_method": "code",
                           "code_method_name": "file_exists", "code_method_param": {"glob": "*.md"}, "tags": ["t"]}])
    text = "\n".join(r.warnings)
    assert "unknown field 'code_method_param'" in text and "did you mean 'code_method_params'" in text
    assert "'tags'" not in text


def test_odd_ids_are_said_spaces_control_characters_and_absurd_length():
    """Trial 6 F7: ``" A "`` became ``A`` silently, and ``"a\\nb"`` or a 5000-character id went into every log
    line, ctrf.json test name and report without a word."""
    r = normalize_rubric([{"id": " A ", "description": "x", "weight": 1}, {"id": "a\nb", "description": "y", "weight": 1},
                          {"id": "x" * 5000, "description": "z", "weight": 1}, {"id": 7, "description": "w", "weight": 1}])
    assert [c.id for c in r.criteria] == ["A", "a\nb", "x" * 5000, "7"]
    text = "\n".join(r.warnings)
    assert "row 'A': its id ' A ' has surrounding spaces; read as 'A'" in text
    assert "row 'a\\nb': its id holds a control character" in text
    assert "its id is 5000 characters long" in text
    assert len(r.warnings) == 3  # the integer id 7 is fine


def test_a_clean_rubric_has_no_warnings():
    rows = [{"id": "A", "description": "a", "weight": 2}, {"id": "B", "description": "b", "weight": 1, "depends_on": ["A"]}]
    assert normalize_rubric(rows).warnings == ()


def test_a_very_long_dependency_chain_loads():
    rows = [{"id": f"R{i}", "description": "r", "weight": 1, "depends_on": [f"R{i + 1}"]} for i in range(5000)]
    rows.append({"id": "R5000", "description": "end", "weight": 1, "depends_on": ["R0"]})  # closes one long cycle
    r = normalize_rubric(rows)
    cycles = [w for w in r.warnings if "cycle" in w]
    assert len(cycles) == 1 and cycles[0].startswith("depends_on cycle R0 → R1 → R2")


def test_levels_closer_than_the_tie_tolerance_are_one_level():
    with pytest.raises(RubricError, match="are the same level"):
        normalize_rubric([{"id": "g", "description": "g", "weight": 1, "type": "gradient",
                           "levels": {"1": "all", "0.0000000001": "almost none", "0": "none"}}])


def test_a_utf8_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "rubric.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"rubrics": [{"id": "a", "description": "x", "weight": 1}]}).encode())
    assert [c.id for c in load_rubric(path).criteria] == ["a"]


def test_a_hurdle_with_a_positive_weight_warns_at_load():
    rubric = normalize_rubric([{"id": "h", "description": "the file is missing", "weight": 2, "hurdle": True},
                               {"id": "a", "description": "x", "weight": 1}])
    assert any("row 'h': a hurdle with a positive weight" in w and "no rollout can score 1.0" in w for w in rubric.warnings)
    assert not any("hurdle" in w for w in normalize_rubric([{"id": "h", "description": "missing", "weight": 0, "hurdle": True},
                                                            {"id": "a", "description": "x", "weight": 1}]).warnings)


def test_the_typo_check_compares_each_unknown_field_once_per_process(monkeypatch):
    """Issue 36: a batch worker loads hundreds of rubrics with the same extra fields; the
    look-alike check (``difflib``) runs once per field name, and still warns every rubric."""
    import difflib

    from cowork_judge.core import rubric as rubric_module

    rubric_module._misspelt_known_key.cache_clear()
    calls: list[str] = []
    real = difflib.get_close_matches
    monkeypatch.setattr(difflib, "get_close_matches", lambda word, *a, **k: (calls.append(word), real(word, *a, **k))[1])
    doc = [{"id": "a", "description": "x", "wieght": 2, "tags": ["t"]}, {"id": "b", "description": "y", "weight": 1, "tags": []}]
    for _ in range(3):
        warnings = normalize_rubric(doc).warnings
        assert sum("did you mean 'weight'" in w for w in warnings) == 1
        assert not any("'tags'" in w for w in warnings)
    assert sorted(calls) == ["tags", "wieght"]


def test_judge_method_is_read_as_the_settings_are_and_an_unknown_one_follows_the_rows_fields():
    """Trial 5, F13: ``"judge_method": "Code"`` sent a word-count row to the model (reward 1.0
    where the count gives 0). The method is read case- and space-insensitively; an unknown one
    on a row naming a code method is a code row (with a warning), not a model's opinion."""
    code = {"code_method_name": "word_count_between", "code_method_params": {"max_words": 10, "source": "response"}}
    rubric = normalize_rubric({"rubrics": [
        {"id": "A", "description": "short", "weight": 1, "judge_method": "Code", **code},
        {"id": "B", "description": "short", "weight": 1, "judge_method": " code ", **code},
        {"id": "C", "description": "short", "weight": 1, "judge_method": "kode", **code},
        {"id": "D", "description": "good", "weight": 1, "judge_method": "agentik"},
    ]})
    assert [c.judge_method for c in rubric.criteria] == ["code", "code", "code", "agentic"]
    assert list(rubric.warnings) == [
        "row 'C': unknown judge_method 'kode'; judged as 'code' (the row names a code_method_name)",
        "row 'D': unknown judge_method 'agentik'; judged as 'agentic'",
    ]


def test_two_row_lists_are_refused_and_an_unread_top_level_key_is_a_warning():
    """Trial 5, F12: rows under ``criteria`` beside ``rubrics`` (a converter's output, a merge)
    were dropped silently — a weight-5 row never judged, reward 1.0, lint 0 errors."""
    with pytest.raises(RubricError, match="rows under both 'rubrics' and 'criteria'"):
        normalize_rubric({"rubrics": [{"id": "A", "description": "a", "weight": 1}],
                          "criteria": [{"id": "B", "description": "b", "weight": 5}]})
    rubric = normalize_rubric({"rubrics": [{"id": "A", "description": "a", "weight": 1}],
                               "extra_rows": [{"id": "B", "description": "b", "weight": 5}], "metadata": {}})
    assert [c.id for c in rubric.criteria] == ["A"]
    assert any("top-level key(s) 'extra_rows' not read" in w for w in rubric.warnings), rubric.warnings


def test_a_misspelt_depends_on_id_gets_lints_did_you_mean_at_run_time():
    """The load-time warning (what the run prints in details.warnings) names the near row id, as lint D001 does."""
    r = normalize_rubric([
        {"id": "C-LOCATE-DECK", "description": "A deck is delivered.", "weight": 1},
        {"id": "A-CONTENT", "description": "y", "weight": 3, "depends_on": ["C-LOCATE-DEK"]},
        {"id": "A-OTHER", "description": "z", "weight": 1, "depends_on": ["ZZZ"]},
    ])
    text = "\n".join(r.warnings)
    assert "depends_on names no row: 'C-LOCATE-DEK' (did you mean 'C-LOCATE-DECK'?)" in text, text
    assert "'ZZZ' (did you mean" not in text
