"""``lint-rubric <task folder>`` (issue 39 item 11): the folder ``init`` and ``try`` take is linted as its
``tests/`` with the ``task.toml`` beside it, and said so; no false R001/T010. And T011 (item 5): a separate
verifier whose ``tests/Dockerfile`` installs no LibreOffice, for rows that render decks."""

from __future__ import annotations

import json
import subprocess
import sys

from cowork_judge.commands.lint import main
from cowork_judge.lint.instance import lint_instance

from .conftest import BASE_TOML, rows

WF_PPT = {"id": "V-LOOK", "description": "The slides are legible.", "weight": 1, "judge_method": "workflow",
          "workflow_name": "ppt_judge", "type": "gradient", "levels": {"1": "all", "0": "none"}}
SEPARATE_TOML = BASE_TOML.replace("timeout_sec = 2280\n", 'timeout_sec = 2280\nenvironment_mode = "separate"\n')


def test_the_task_folder_is_linted_as_its_tests_folder(make_instance, capsys):
    tests = make_instance()
    task = tests.parent
    assert main([str(tests), "--format", "json"]) == 0
    direct = json.loads(capsys.readouterr().out)
    assert main([str(task), "--format", "json"]) == 0
    out = capsys.readouterr()
    via_task = json.loads(out.out)
    assert via_task["instances"][0]["findings"] == direct["instances"][0]["findings"] == []  # no R001, no T010
    assert via_task["instances"][0]["tests_dir"] == f"{task}/tests"
    assert f"{task} is a task folder: linting {task}/tests" in out.err


def test_the_console_script_on_a_task_folder_with_a_trailing_slash(make_instance):
    task = make_instance().parent
    proc = subprocess.run([sys.executable, "-c", "from cowork_judge.commands.lint import console; console()",
                           f"{task}/"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "R001" not in proc.stdout and "T010" not in proc.stdout and "0 errors, 0 warnings" in proc.stdout


def test_a_tests_folder_of_its_own_is_never_redirected(make_instance, capsys):
    tests = make_instance()
    (tests / "tests").mkdir()  # a folder named tests inside the tests folder: rubric.json here wins
    assert main([str(tests)]) == 0
    assert "is a task folder" not in capsys.readouterr().err


def test_t011_a_separate_deck_verifier_image_without_libreoffice(make_instance):
    thin = "FROM debian:bookworm-slim\nRUN apt-get update && apt-get install -y python3 python3-venv\nCOPY . /tests/\n"
    deck = make_instance(rubric=rows(extra=[WF_PPT]), toml=SEPARATE_TOML, files={"Dockerfile": thin})
    (finding,) = [f for f in lint_instance(deck).findings if f.code == "T011"]
    assert "workflow ppt_judge" in finding.message and "--ignore T011" in finding.message
    with_office = thin.replace("python3-venv", "python3-venv libreoffice-impress-nogui")
    fixed = make_instance(rubric=rows(extra=[WF_PPT]), toml=SEPARATE_TOML, files={"Dockerfile": with_office})
    assert "T011" not in {f.code for f in lint_instance(fixed).findings}
    no_deck = rows((0, {"code_method_name": "file_exists", "code_method_params": {"glob": "*.md"}}))
    chat = make_instance(rubric=no_deck, toml=SEPARATE_TOML, files={"Dockerfile": thin})  # no row renders a deck
    assert "T011" not in {f.code for f in lint_instance(chat).findings}
    # trial 14 P1-1: agentic rows over a located deck view its rendered pages: the thin image renders none
    (agentic,) = [f for f in lint_instance(make_instance(toml=SEPARATE_TOML, files={"Dockerfile": thin})).findings
                  if f.code == "T011"]
    assert "4 agentic row(s) viewing the deck's rendered pages" in agentic.message
    shared = make_instance(rubric=rows(extra=[WF_PPT]), files={"Dockerfile": thin})  # the agent's container verifies
    assert "T011" not in {f.code for f in lint_instance(shared).findings}


def test_a_folder_that_is_not_a_tests_folder_points_to_init(tmp_path, capsys):
    """trial #15c: `lint-rubric <not a tests folder>` said "copy templates/test.sh" instead of `cowork-judge init`."""
    folder = tmp_path / "deck"
    folder.mkdir()
    (folder / "slides.pptx").write_bytes(b"x")
    main([str(folder)])
    out = capsys.readouterr().out
    assert "copy templates/test.sh" not in out
    assert "cowork-judge init" in out and "not a tests/ folder" in out
    t010 = next(line for line in out.splitlines() if "T010" in line)
    assert "this is not a tests/ folder" in t010


def test_the_rubric_file_is_linted_as_its_folder_and_said_so(make_instance):
    """Trial 17 P-4: ``lint-rubric <tests>/rubric.json`` was only ``ERROR P001: not a directory``."""
    tests = make_instance()
    proc = subprocess.run([sys.executable, "-c", "from cowork_judge.commands.lint import console; console()",
                           f"{tests}/rubric.json"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"{tests}/rubric.json is the rubric file: linting its folder {tests}" in proc.stderr
    assert "P001" not in proc.stdout and f"{tests}: " not in proc.stdout and "0 errors, 0 warnings" in proc.stdout


def test_another_file_beside_the_rubric_gets_a_did_you_mean(make_instance, capsys):
    tests = make_instance()
    (tests / "notes.txt").write_text("x\n")
    assert main([str(tests / "notes.txt")]) == 1
    out = capsys.readouterr()
    assert "P001" in out.out and f"{tests}/notes.txt is a file: did you mean its folder {tests}?" in out.err
