"""Issue 39, trial 7, for ``cowork-judge try``:

- F1: a rollout whose deliverable is a symbolic link leaving its folder (the reference deck linked into
  ``solution/output/`` from elsewhere in the repository) is named before the run — it is copied as a link, which
  the judge does not follow — and, when nothing was read, the closing hint names the link instead of "check
  --rollout"; the same for a file of 0 bytes;
- F5: ``--final-message`` naming a binary file (a deck passed by mistake) is refused before anything is built,
  naming the file; a text file that is not UTF-8 is still judged, with its warning.

The staging and the report read what a real ``cowork-judge run`` (a child process, code rows only) wrote;
the whole sandboxed dry run is slow-marked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cowork_judge._util.procs import ProcResult
from cowork_judge.commands import try_
from cowork_judge.install import dryrun
from install.test_try_chat_only import chat_task
from install.test_try_output import example_task, shared_cache, try_cli

SRC = Path(__file__).resolve().parents[2] / "src"
RUBRIC = {"rubrics": [{"id": "C-DECK", "description": "A slide deck is delivered.", "weight": 1, "judge_method": "code",
                       "code_method_name": "locate_deck", "code_method_params": {}}]}


def _flat_rollout_with_a_link(root: Path) -> tuple[Path, Path]:
    """(rollout folder, the deck it links to) as the trial made it: ``ln -s /abs/path/good.pptx symro/deck.pptx``."""
    repo = root / "repo"
    repo.mkdir(parents=True)
    deck = repo / "good.pptx"
    deck.write_bytes(b"PK\x03\x04 a deck")
    rollout = root / "symro"
    rollout.mkdir()
    (rollout / "deck.pptx").symlink_to(deck)
    return rollout, deck


def test_a_link_out_of_the_rollout_is_named_when_it_is_staged(tmp_path):
    rollout, deck = _flat_rollout_with_a_link(tmp_path)
    (rollout / "notes.md").write_text("a real file\n")
    (rollout / "alias.md").symlink_to("notes.md")  # stays inside: nothing to say
    staged = dryrun.stage(dryrun.read_task(example_task(tmp_path / "task")), dryrun.read_rollout(rollout), tmp_path / "out")
    assert staged.warnings == [
        f"{rollout / 'deck.pptx'} is a symbolic link to {deck}, out of the rollout's deliverables folder: it is copied "
        "as a link, and the judge does not follow a link out of output/ (nor in a Harbor trial); copy the file itself "
        "(cp -L) if it is a deliverable"]


def test_a_container_rollouts_link_to_elsewhere_in_app_is_named(tmp_path):
    rollout = tmp_path / "r"
    (rollout / "app" / "real").mkdir(parents=True)
    (rollout / "app" / "output").mkdir()
    (rollout / "logs" / "agent").mkdir(parents=True)
    (rollout / "app" / "real" / "a.txt").write_text("Rayleigh\n")
    (rollout / "app" / "output" / "answer.txt").symlink_to("../real/a.txt")
    (rollout / "app" / "output" / "gone.txt").symlink_to("../nowhere.txt")
    read = dryrun.read_rollout(rollout)
    assert read.layout == "container"
    said = dryrun.links_leaving_output(read)
    assert len(said) == 2 and said[0].startswith(f"{rollout / 'app' / 'output' / 'answer.txt'} is a symbolic link to "
                                                 f"{rollout / 'app' / 'real' / 'a.txt'}, out of the rollout's")
    assert said[1] == (f"{rollout / 'app' / 'output' / 'gone.txt'} is a symbolic link to ../nowhere.txt, which does not "
                       "exist: the judge reads nothing from it; copy the file itself into the rollout")


def _judged(root: Path, make_output) -> Path:
    """The verifier folder a real ``cowork-judge run`` leaves for the rollout `make_output` lays out."""
    tests, app, logs = root / "tests", root / "app", root / "logs"
    tests.mkdir(parents=True)
    (tests / "rubric.json").write_text(json.dumps(RUBRIC))
    (app / "output").mkdir(parents=True)
    (logs / "agent").mkdir(parents=True)
    make_output(app / "output")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "COWORK_"))}
    env.update(PYTHONPATH=str(SRC), JUDGE_START_JITTER="0")
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "run", "--app-dir", str(app), "--logs-dir", str(logs),
                           "--tests-dir", str(tests)], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return logs / "verifier"


def _report(verifier: Path, capsys) -> str:
    staged = dryrun.Staged(app=verifier.parent.parent / "app", logs=verifier.parent, tests=verifier.parent.parent / "tests")
    try_._report(dryrun.read_outcome(verifier), staged, ProcResult(0, "", "", 1.0), 1.0)
    return capsys.readouterr().err


def test_the_hint_of_a_dangling_link_names_it_not_check_rollout(tmp_path, capsys):
    verifier = _judged(tmp_path, lambda out: (out / "deck.pptx").symlink_to("/abs/path/good.pptx"))
    err = _report(verifier, capsys)
    assert "nothing delivered: the judge read none of the rollout's output files — deck.pptx (a symbolic link to " \
           "nothing that exists) —" in err, err
    assert "cp -L" in err and "check --rollout" not in err


def test_the_hint_of_a_link_leaving_output_and_an_empty_file_names_both(tmp_path, capsys):
    (tmp_path / "elsewhere.pptx").write_bytes(b"PK\x03\x04 a deck")

    def output(out: Path) -> None:
        (out / "deck.pptx").symlink_to(tmp_path / "elsewhere.pptx")
        (out / "empty.pptx").write_bytes(b"")

    err = _report(_judged(tmp_path / "run", output), capsys)
    assert "deck.pptx (a symbolic link leaving output/, not followed), empty.pptx (empty, 0 bytes)" in err, err


def test_an_empty_rollout_keeps_the_check_rollout_hint(tmp_path, capsys):
    err = _report(_judged(tmp_path, lambda out: None), capsys)
    assert "nothing delivered: no output file and no final message reached the judge" in err
    assert "check --rollout, --final-message or --trajectory" in err


@pytest.mark.slow
def test_a_dry_run_of_a_linked_deck_names_the_link(tmp_path, sandbox_ready):
    """The trial's repro: the whole dry run (this checkout's wheel, no endpoint needed: code rows only)."""
    rollout, deck = _flat_rollout_with_a_link(tmp_path)
    task = example_task(tmp_path / "task", RUBRIC)
    proc = try_cli(str(task), "--rollout", str(rollout), "--out", str(tmp_path / "out"),
                   cache=shared_cache(tmp_path / "cache"), tmpdir=tmp_path / "tmp")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert f"{rollout / 'deck.pptx'} is a symbolic link to {deck}, out of the rollout's deliverables folder" in proc.stderr
    assert "the judge read none of the rollout's output files — deck.pptx (a symbolic link to nothing that exists)" \
        in proc.stderr, proc.stderr
    assert "check --rollout" not in proc.stderr


# ------------------------------------------------------------------ F5: --final-message naming a binary file

DECK = Path(__file__).resolve().parents[1] / "fixtures" / "decks" / "40__docling__pptx_chart.pptx"


@pytest.mark.parametrize("rollout", [False, True])
def test_a_deck_as_the_final_message_is_refused_before_anything_is_built(tmp_path, rollout):
    task = chat_task(tmp_path)
    folder = tmp_path / "flat"
    folder.mkdir()
    (folder / "notes.md").write_text("a deliverable\n")
    args = ["--rollout", str(folder)] if rollout else []
    proc = try_cli(str(task), *args, "--final-message", str(DECK), cache=tmp_path / "cache", tmpdir=tmp_path / "tmp")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert (f"--final-message {DECK} is not a text file (it starts like a ZIP archive, such as a .pptx, .docx or "
            ".xlsx): give the agent's final chat message as a UTF-8 text file; a deliverable (a deck, a document) goes "
            "in a rollout folder, --rollout FOLDER") in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and not any((tmp_path / "tmp").iterdir())  # refused before anything was laid out


def test_a_file_with_a_nul_byte_is_not_a_final_message(tmp_path):
    blob = tmp_path / "blob.bin"
    blob.write_bytes(b"hello\x00world")
    with pytest.raises(dryrun.TryError, match=r"is not a text file \(a NUL byte at offset 5\)"):
        dryrun.read_rollout(None, final_message=blob)


def test_utf16_text_is_refused_with_the_conversion_to_make(tmp_path):
    answer = tmp_path / "answer.txt"
    answer.write_bytes("Take 500 mg.".encode("utf-16"))
    with pytest.raises(dryrun.TryError, match=r"is UTF-16 text .*iconv -f UTF-16 -t UTF-8"):
        dryrun.read_rollout(None, final_message=answer)


def test_latin1_text_is_still_judged_with_its_warning(tmp_path):
    answer = tmp_path / "answer.txt"
    answer.write_bytes("Prenez 500 mg de parac\xe9tamol.".encode("latin-1"))
    rollout = dryrun.read_rollout(None, final_message=answer)  # not refused: text, one undecodable byte
    staged = dryrun.stage(dryrun.read_task(chat_task(tmp_path)), rollout, tmp_path / "out")
    assert staged.warnings == [f"--final-message {answer} is not UTF-8 (first undecodable byte at offset 22: 0xe9): "
                               "read with U+FFFD in place of the undecodable bytes"]
