"""Reading many result documents: which files are inputs, every failure named, task keys."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from fleet.factory import dump, make_doc, write

from cowork_judge.fleet.documents import (
    InputError,
    check_task_key_mode,
    discover,
    parse_document,
    path_task,
    read_items,
    rubric_digest,
    task_key,
)


def names(files) -> list[str]:
    return [f.name for f in files]


def test_a_directory_yields_every_verifier_result_json_and_nothing_else(tmp_path):
    job = tmp_path / "job"
    write(job / "deckA__abc1234" / "verifier" / "result.json", make_doc())
    write(job / "deckA__zzz9999" / "steps" / "s1" / "verifier" / "result.json", make_doc())
    write(job / "run1" / "logs" / "verifier" / "result.json", make_doc())
    (job / "result.json").write_text("{}")  # Harbor's job result: not ours
    (job / "deckA__abc1234" / "result.json").write_text("{}")  # Harbor's trial result: not ours
    (job / "deckA__abc1234" / "verifier" / "reward.txt").write_text("1.0")
    write(job / "deckA__abc1234" / "agent" / "verifier" / "result.json", make_doc())  # agent logs are not searched
    write(job / "deckA__abc1234" / "verifier" / "judge" / "verifier" / "result.json", make_doc())  # nor the audit
    found = discover([str(job)])
    assert names(found) == [str(job / "deckA__abc1234/verifier/result.json"),
                            str(job / "deckA__zzz9999/steps/s1/verifier/result.json"),
                            str(job / "run1/logs/verifier/result.json")]
    # a verifier dir itself, and a plain dir holding only result.json
    assert names(discover([str(job / "run1" / "logs" / "verifier")])) == [str(job / "run1/logs/verifier/result.json")]
    plain = tmp_path / "plain"
    write(plain / "result.json", make_doc())
    assert names(discover([str(plain)])) == [str(plain / "result.json")]


def test_files_globs_and_duplicates(tmp_path):
    a = write(tmp_path / "a" / "verifier" / "result.json", make_doc())
    b = write(tmp_path / "b.json", make_doc())
    (tmp_path / "c.jsonl").write_text("")
    found = discover([str(b), str(tmp_path / "*.json*"), str(tmp_path / "a")])
    assert names(found) == [str(b), str(b), str(tmp_path / "c.jsonl"), str(a)]
    assert [f.duplicate for f in found] == [False, True, False, False]
    assert [f.jsonl for f in found] == [False, False, True, False]


@pytest.mark.parametrize("arg, message", [
    ("missing.json", "no such file or directory"),
    ("*.nothing", "the pattern matches no file"),
    ("empty", "no result documents found"),
])
def test_an_argument_naming_nothing_is_a_clear_error(tmp_path, monkeypatch, arg, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match=message):
        discover([arg])


def test_every_input_is_an_item_and_each_file_gets_its_digest(tmp_path):
    good = write(tmp_path / "good.json", make_doc())
    rows = [json.dumps(dump(make_doc())), "", "not json", json.dumps([1, 2]), json.dumps({"schema": "x"})]
    batch = tmp_path / "batch.jsonl"
    batch.write_text("\n".join(rows) + "\n", encoding="utf-8")
    bad = tmp_path / "latin1.json"
    bad.write_bytes(b'{"x": "\xe9"}')
    digests = []
    items = list(read_items(discover([str(good), str(batch), str(bad), str(good)]), on_file=digests.append))
    assert [(i.source, i.problem) for i in items] == [
        (str(good), None),
        (f"{batch}:1", None),
        (f"{batch}:3", "unreadable"),
        (f"{batch}:4", "invalid"),
        (f"{batch}:5", "invalid"),
        (str(bad), "unreadable"),
        (str(good), "duplicate"),
    ]
    assert items[0].doc is not None and items[0].raw["schema"] == "cowork-judge/result/v1"
    assert [(d.name, d.documents) for d in digests] == [(str(good), 1), (str(batch), 4), (str(bad), 1)]
    for d in digests:
        assert d.sha256 == hashlib.sha256(Path(d.name).read_bytes()).hexdigest()


@pytest.mark.parametrize("data, problem, error", [
    (b"\xff\xfe", "unreadable", "not UTF-8 (byte 0)"),
    (b"{", "unreadable", "not JSON (Expecting property name enclosed in double quotes at line 1 column 2)"),
    (b'{"a": NaN}', "unreadable", "not JSON (non-finite number NaN)"),
    (json.dumps(dump(make_doc())).replace('"task_score": 1.0', '"task_score": NaN').encode(), "unreadable",
     "not JSON (non-finite number NaN)"),
    (b"[]", "invalid", "not a result document (a JSON list, not an object)"),
    (b'{"schema": "cowork-judge/result/v1"}', "invalid", "not a result document: status: Field required (+17 more)"),
])
def test_parse_errors_are_one_line_and_never_quote_the_content(data, problem, error):
    assert parse_document(data) == (None, problem, error)


def test_validation_errors_do_not_echo_document_text():
    secret = "DELIVERABLE TEXT <script>"
    raw = dump(make_doc())
    raw["status"] = secret
    _doc, problem, error = parse_document(json.dumps(raw).encode())
    assert problem == "invalid" and secret not in error and error.startswith("not a result document: status:")


@pytest.mark.parametrize("name, task", [
    ("job/deck-task__AbC1234/verifier/result.json", "deck-task"),
    ("job/deck-task__toolong1/verifier/result.json", "deck-task__toolong1"),  # not Harbor's 7-character suffix
    ("job/t1__abcdefg/steps/step-2/verifier/result.json", "t1"),
    ("runs/rollout-7/logs/verifier/result.json", "rollout-7"),
    ("verifier/result.json", None),
    ("flat/result.json", None),
    ("a/b/verifier/result.rescored.json", "b"),
])
def test_path_task_convention(name, task):
    assert path_task(name) == task


def test_task_key_modes(tmp_path):
    doc = make_doc()
    harbor = write(tmp_path / "t__abc1234" / "verifier" / "result.json", doc, task_id="from-field")
    item = next(read_items(discover([str(harbor)])))
    assert task_key(item, "auto") == ("field:from-field", "field")
    assert task_key(item, "path") == ("path:t", "path")
    assert task_key(item, "field:metric_id") == ("field:rubric_llm_judge", "field")
    assert task_key(item, "field:details.policy.reward_mode") == ("field:continuous", "field")
    assert task_key(item, "field:nope") == (f"document:{harbor}", "document")
    assert task_key(item, "rubric") == (f"rubric:{rubric_digest(doc)}", "rubric")
    assert task_key(item, "none") == (f"document:{harbor}", "document")
    plain = write(tmp_path / "x.json", doc)
    assert task_key(next(read_items(discover([str(plain)]))), "auto") == (f"document:{plain}", "document")


def test_rubric_digest_ignores_the_judges_raw_levels():
    from fleet.factory import verdicts

    a = make_doc(verdicts(r3=0.5))
    b = make_doc(verdicts(r3=1.0))
    assert rubric_digest(a) == rubric_digest(b) and rubric_digest(make_doc(skipped=True)) is None


@pytest.mark.parametrize("mode, ok", [("auto", True), ("field:x", True), ("field:", False), ("bogus", False)])
def test_task_key_mode_validation(mode, ok):
    if ok:
        assert check_task_key_mode(mode) == mode
    else:
        with pytest.raises(ValueError, match="unknown task key"):
            check_task_key_mode(mode)
