"""Trial 7 F1 (and the 0-byte case beside it): a deliverable the judge does not read — a symbolic link leaving
output/ (elsewhere in the app dir, or outside it), a link to nothing, a file of 0 bytes — is named, never
passed over in silence. The link is still not followed (it could read /tests' ground truth); the run says so
in ``details.warnings`` and on the log (a WARNING naming the file and why), and when it was the only output
the rows' reason says what happened instead of "no output files". The reward and the accounting do not
change: such a rollout is still ``delivery_missing`` (reward 0, status success), the agent's failure that
stays in the training data (SPEC §6; masking it would let a policy buy a mask by linking its answer away).

Real ``cowork-judge run`` child processes on code-only rubrics (no model call)."""

from __future__ import annotations

import json
from pathlib import Path

RUBRIC = {"rubrics": [
    {"id": "C-R", "description": "A deliverable names Rayleigh.", "weight": 1, "judge_method": "code",
     "code_method_name": "text_contains", "code_method_params": {"text": "Rayleigh"}},
    {"id": "C-N", "description": "some text file is nonempty", "weight": 1, "judge_method": "code",
     "code_method_name": "file_nonempty", "code_method_params": {"glob": "*.txt"}},
]}
PLAIN = "[no delivery] nothing was delivered (no output files and no final message)"


def _tests(root: Path) -> Path:
    tests = root / "tests"
    tests.mkdir(parents=True)
    (tests / "rubric.json").write_text(json.dumps(RUBRIC))
    return tests


def _doc(run) -> dict:
    return json.loads((run.verifier / "result.json").read_text())


def _reasons(doc: dict) -> list[str]:
    return [r["reason"] for r in doc["results"]]


def test_a_link_to_elsewhere_in_the_app_dir_is_named_not_no_output_files(judge_run, tmp_path):
    def link(root: Path) -> None:
        (root / "app" / "real").mkdir(parents=True)
        (root / "app" / "real" / "a.txt").write_text("Rayleigh inside app\n")
        (root / "app" / "output").mkdir(parents=True)
        (root / "app" / "output" / "answer.txt").symlink_to("../real/a.txt")

    run = judge_run(_tests(tmp_path), sim=False, setup=link)
    assert run.returncode == 0, run.stderr
    doc = _doc(run)
    # what it scores and how it is accounted for: unchanged (the agent's 0, delivery_missing)
    assert (doc["task_score"], doc["status"], doc["exit_code"]) == (0.0, "success", None)
    assert doc["extra_fields"]["delivery_missing"] is True
    said = [w for w in doc["details"]["warnings"] if "answer.txt" in w]
    assert len(said) == 1, doc["details"]["warnings"]
    assert said[0].startswith("delivery: output/answer.txt is a symbolic link to ") and \
        "real/a.txt (elsewhere in the app dir, out of output/): not followed, so it was not read or scored" in said[0]
    assert "WARNING" in run.stderr and "output/answer.txt is a symbolic link" in run.stderr
    for reason in _reasons(doc):
        assert "no output files" not in reason, reason
        assert reason.startswith("[no delivery] nothing was read: the only output file, answer.txt, is a symbolic "
                                 "link out of output/ and was not read"), reason
        assert reason.endswith("; no final message either")
    assert doc["details"]["delivery"]["stray"] == ["answer.txt (symlink_escape)"]


def test_a_link_out_of_the_app_dir_is_named_and_never_read(judge_run, tmp_path):
    secret = tmp_path / "elsewhere" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("Rayleigh ground truth 7f3a91\n")

    def link(root: Path) -> None:
        (root / "app" / "output").mkdir(parents=True)
        (root / "app" / "output" / "answer.txt").symlink_to(secret)

    run = judge_run(_tests(tmp_path), sim=False, setup=link)
    doc = _doc(run)
    assert doc["task_score"] == 0.0 and doc["extra_fields"]["delivery_missing"] is True
    assert any(f"output/answer.txt is a symbolic link to {secret} (outside the app dir): not followed" in w
               for w in doc["details"]["warnings"]), doc["details"]["warnings"]
    assert all("the only output file, answer.txt, is a symbolic link out of output/" in r for r in _reasons(doc))
    written = "".join(p.read_text(errors="replace") for p in run.verifier.rglob("*") if p.is_file())
    assert "7f3a91" not in written  # the target was never read


def test_a_zero_byte_deliverable_is_said_empty_not_no_output_files(judge_run, tmp_path):
    def empty(root: Path) -> None:
        (root / "app" / "output").mkdir(parents=True)
        (root / "app" / "output" / "deck.pptx").write_bytes(b"")

    run = judge_run(_tests(tmp_path), sim=False, setup=empty)
    doc = _doc(run)
    assert (doc["task_score"], doc["status"]) == (0.0, "success") and doc["extra_fields"]["delivery_missing"] is True
    assert "delivery: output/deck.pptx is empty (0 bytes): not a deliverable" in doc["details"]["warnings"]
    for reason in _reasons(doc):
        assert reason == "[no delivery] nothing was read: the only output file, deck.pptx, is empty (0 bytes); no " \
                         "final message either", reason


def test_several_set_aside_files_are_each_named(judge_run, tmp_path):
    def both(root: Path) -> None:
        out = root / "app" / "output"
        out.mkdir(parents=True)
        (out / "deck.pptx").write_bytes(b"")
        (out / "notes.txt").symlink_to(tmp_path / "gone.txt")  # a link to nothing

    run = judge_run(_tests(tmp_path), sim=False, setup=both)
    doc = _doc(run)
    assert doc["extra_fields"]["delivery_missing"] is True
    assert any(f"output/notes.txt is a symbolic link to {tmp_path / 'gone.txt'}, which does not exist" in w
               for w in doc["details"]["warnings"]), doc["details"]["warnings"]
    assert doc["details"]["delivery"]["ignored"] == ["deck.pptx (empty)", "notes.txt (dangling_link)"]
    reason = _reasons(doc)[0]
    assert reason.startswith("[no delivery] nothing was read: none of the 2 output files was read (deck.pptx is empty "
                             "(0 bytes); notes.txt is a symbolic link to nothing that exists)"), reason


def test_an_empty_output_keeps_the_plain_reason(judge_run, tmp_path):
    run = judge_run(_tests(tmp_path), sim=False, setup=lambda root: (root / "app" / "output").mkdir(parents=True))
    doc = _doc(run)
    assert set(_reasons(doc)) == {PLAIN} and doc["details"]["warnings"] == []


def test_a_link_beside_a_real_deliverable_is_warned_and_the_rest_judged(judge_run, tmp_path):
    def mixed(root: Path) -> None:
        out = root / "app" / "output"
        out.mkdir(parents=True)
        (out / "a.txt").write_text("Rayleigh\n")
        (out / "b.txt").symlink_to("a.txt")  # inside output/: followed, as before
        (out / "c.txt").symlink_to(tmp_path)  # a folder outside: set aside

    run = judge_run(_tests(tmp_path), sim=False, setup=mixed)
    doc = _doc(run)
    assert doc["task_score"] == 1.0 and doc["extra_fields"]["delivery_missing"] is False
    assert doc["details"]["delivery"]["files"] == ["a.txt", "b.txt"]
    assert [w for w in doc["details"]["warnings"] if "symbolic link" in w] == [
        f"delivery: output/c.txt is a symbolic link to {tmp_path} (outside the app dir): not followed, so it was not "
        "read or scored (a deliverable is a regular file in output/, or a link that stays inside it)"]
