"""Issue 39, trial 3 M6: ``JUDGE_VERDICT_CACHE`` naming an existing regular file (not a folder) left the cache
silently off. It is now an invalid value that falls back with a warning, in ``cowork-judge config`` and in the
run's ``details.warnings`` (real ``python -m cowork_judge`` child processes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

WARNING = "names an existing file, not a folder: no verdict can be cached there"


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "OPENAI_", "COWORK_"))}
    return {**env, **extra}


def test_config_warns_that_the_verdict_cache_names_a_file(tmp_path):
    cache_file = tmp_path / "cachefile"
    cache_file.write_text("x\n")
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "config"], capture_output=True, text=True, timeout=120,
                          env=_env(JUDGE_VERDICT_CACHE=str(cache_file)))
    assert f"warning: JUDGE_VERDICT_CACHE='{cache_file}' {WARNING}" in proc.stderr + proc.stdout, proc.stderr


def test_a_folder_or_a_path_still_to_be_made_is_no_warning(tmp_path):
    for value in (str(tmp_path), str(tmp_path / "new" / "cache"), "off"):
        proc = subprocess.run([sys.executable, "-m", "cowork_judge", "config"], capture_output=True, text=True,
                              timeout=120, env=_env(JUDGE_VERDICT_CACHE=value))
        assert "JUDGE_VERDICT_CACHE=" not in proc.stderr + proc.stdout, proc.stderr


def test_the_runs_details_warnings_say_the_verdict_cache_names_a_file(tmp_path):
    tests, output = tmp_path / "tests", tmp_path / "app" / "output"
    tests.mkdir(parents=True)
    output.mkdir(parents=True)
    (output / "report.md").write_text("# Report\n")
    rows = [{"id": "C1", "description": "a report", "weight": 1, "judge_method": "code", "code_method_name": "file_exists",
             "code_method_params": {"glob": "*.md"}}]
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rows}))
    cache_file = tmp_path / "cachefile"
    cache_file.write_text("x\n")
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "run", "--app-dir", str(tmp_path / "app"),
                           "--tests-dir", str(tests)], capture_output=True, text=True, timeout=120,
                          env=_env(JUDGE_LOGS_DIR=str(tmp_path / "logs"), JUDGE_VERDICT_CACHE=str(cache_file)))
    assert proc.returncode == 0, proc.stderr
    result = json.loads((tmp_path / "logs" / "verifier" / "result.json").read_text())
    assert any(w.startswith("JUDGE_VERDICT_CACHE=") and WARNING in w for w in result["details"]["warnings"]), result
    assert cache_file.read_text() == "x\n"
