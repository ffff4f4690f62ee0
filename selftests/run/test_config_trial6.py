"""Trial 6 F17: ``JUDGE_VERDICT_CACHE=on`` (or ``1``, ``true``, ``yes``: the words ``0``/``off`` negate) made a
cache folder named ``on`` in the working folder. A yes/no word is now an invalid value that falls back (no
cache) with a warning that asks for a folder (real ``python -m cowork_judge`` child processes)."""

from __future__ import annotations

import json
import subprocess
import sys

from run.test_config_trial3 import _env

WARNING = "is a yes/no word, not a folder"


def test_config_warns_that_a_yes_word_is_no_folder(tmp_path):
    for value in ("on", "1", "true", "YES"):
        proc = subprocess.run([sys.executable, "-m", "cowork_judge", "config"], capture_output=True, text=True,
                              timeout=120, env=_env(JUDGE_VERDICT_CACHE=value), cwd=tmp_path)
        assert f"warning: JUDGE_VERDICT_CACHE='{value}' {WARNING}" in proc.stderr + proc.stdout, proc.stderr


def test_a_run_with_a_yes_word_makes_no_folder_of_that_name(tmp_path):
    tests, output = tmp_path / "tests", tmp_path / "app" / "output"
    tests.mkdir(parents=True)
    output.mkdir(parents=True)
    (output / "report.md").write_text("# Report\n")
    rows = [{"id": "C1", "description": "a report", "weight": 1, "judge_method": "code", "code_method_name": "file_exists",
             "code_method_params": {"glob": "*.md"}}]
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}))
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "run", "--app-dir", str(tmp_path / "app"),
                           "--tests-dir", str(tests)], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env=_env(JUDGE_LOGS_DIR=str(tmp_path / "logs"), JUDGE_VERDICT_CACHE="on"))
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / "on").exists()
    result = json.loads((tmp_path / "logs" / "verifier" / "result.json").read_text())
    assert any(w.startswith("JUDGE_VERDICT_CACHE=") and WARNING in w for w in result["details"]["warnings"]), result
