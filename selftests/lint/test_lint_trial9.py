"""Trial 9 F4: lint was silent on a chat task whose text code rows search the deliverable files (no
``"source": "response"``): ``try`` warned and scored them as misses (reward 0.3 instead of 0.7). Lint now warns M006
when no row locates a file and the task's prompt names no deliverable (a real ``python -m cowork_judge lint``)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cowork_judge.lint.instance import lint_instance

ROWS = [
    {"id": "C-RAYLEIGH", "description": "The answer names Rayleigh scattering.", "weight": 1, "judge_method": "code",
     "code_method_name": "text_contains", "code_method_params": {"text": "Rayleigh"}},
    {"id": "C-LENGTH", "description": "The answer is 80-200 words.", "weight": 1, "judge_method": "code",
     "code_method_name": "word_count_between", "code_method_params": {"min_words": 80, "max_words": 200}},
    {"id": "A-WAVELENGTH", "description": "The answer explains that blue light scatters more.", "weight": 3},
]


def _task(root, rows, prompt="Explain in 80-200 words why the sky is blue. Mention Rayleigh scattering.\n"):
    tests = root / "task" / "tests"
    tests.mkdir(parents=True)
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}))
    (tests / "task_prompt.md").write_text(prompt)
    (root / "task" / "instruction.md").write_text(prompt)
    return root / "task"


def _m006(task):
    return [f for f in lint_instance(task / "tests").findings if f.code == "M006"]


def test_a_chat_tasks_files_text_rows_get_m006(tmp_path):
    task = _task(tmp_path, ROWS)
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "lint", str(task)], capture_output=True, text=True,
                          timeout=120)
    assert "WARN M006" in proc.stdout and "C-RAYLEIGH, C-LENGTH search the deliverable files" in proc.stdout, proc.stdout
    assert '"source": "response"' in proc.stdout


@pytest.mark.parametrize("change", ["response", "deck-row", "glob", "prompt-names-output"])
def test_no_m006_when_the_rows_read_the_message_or_the_task_delivers_files(tmp_path, change):
    rows = json.loads(json.dumps(ROWS))
    prompt = "Explain in 80-200 words why the sky is blue.\n"
    if change == "response":
        for row in rows[:2]:
            row["code_method_params"]["source"] = "response"
    elif change == "deck-row":
        rows.append({"id": "C-DECK", "description": "The deck opens.", "weight": 1, "judge_method": "code",
                     "code_method_name": "check_deck_openable"})
    elif change == "glob":
        rows[0]["code_method_params"]["glob"] = "*.md"
    else:
        prompt = "Write your explanation to /app/output/answer.md.\n"
    assert _m006(_task(tmp_path, rows, prompt)) == []


# --------------------------------------------------------------------------- F7 (lint part): Writer without Impress

def test_t014_a_deck_verifier_image_with_writer_but_no_impress(make_instance):
    from lint.test_task_folder import SEPARATE_TOML, WF_PPT

    from lint.conftest import rows

    writer = ("FROM debian:bookworm-slim\nRUN apt-get update && apt-get install -y --no-install-recommends python3 "
              "libreoffice-writer libreoffice-core fonts-dejavu\nCOPY . /tests/\n")
    deck = make_instance(rubric=rows(extra=[WF_PPT]), toml=SEPARATE_TOML, files={"Dockerfile": writer})
    codes = {f.code: f for f in lint_instance(deck).findings}
    assert "T011" not in codes and "T014" in codes, [f.line() for f in lint_instance(deck).findings]
    assert "libreoffice-core, libreoffice-writer but not Impress" in codes["T014"].message
    assert "add libreoffice-impress" in codes["T014"].message
    for fixed in (writer.replace("libreoffice-core", "libreoffice-impress"), writer.replace("libreoffice-writer ", "libreoffice ")):
        ok = make_instance(rubric=rows(extra=[WF_PPT]), toml=SEPARATE_TOML, files={"Dockerfile": fixed})
        assert "T014" not in {f.code for f in lint_instance(ok).findings}
    no_deck = rows((0, {"code_method_name": "file_exists", "code_method_params": {"glob": "*.md"}}))
    chat = make_instance(rubric=no_deck, toml=SEPARATE_TOML, files={"Dockerfile": writer})  # no row renders a deck
    assert "T014" not in {f.code for f in lint_instance(chat).findings}
