"""Trial 9 F5: ``batch`` with ``JUDGE_VERDICT_CACHE=on`` warned "using the default (none)" and ran with no cache,
although batch's default is ``<out>/verdict-cache``. In a batch a yes word (on, 1, true, yes…) now means that
default: the runs cache in ``<out>/verdict-cache`` and nobody warns (``run`` alone still refuses a yes word, which
would name a folder "on"). A real batch against the simulator."""

from __future__ import annotations

import json

import pytest
from batch.test_batch import _problems, sim  # noqa: F401  (the fixture)

from cowork_judge.batch import instances as batch
from cowork_judge.commands import main


@pytest.mark.parametrize("word", ["on", "1", "true", "YES"])
def test_a_yes_word_is_the_batch_default_cache(tmp_path, word):
    env = batch.child_env({"JUDGE_VERDICT_CACHE": word}, batch.plan_limits(2, 1, 1), tmp_path / "out")
    assert env["JUDGE_VERDICT_CACHE"] == str((tmp_path / "out").absolute() / batch.VERDICT_CACHE_DIR)


@pytest.mark.parametrize("word, kept", [("0", "0"), ("off", "off"), ("/some/folder", "/some/folder")])
def test_off_and_a_folder_are_kept(tmp_path, word, kept):
    env = batch.child_env({"JUDGE_VERDICT_CACHE": word}, batch.plan_limits(2, 1, 1), tmp_path / "out")
    assert env["JUDGE_VERDICT_CACHE"] == kept


def test_a_batch_with_verdict_cache_on_caches_in_the_default_folder(tmp_path, sim, capsys, monkeypatch):  # noqa: F811
    instances = _problems(tmp_path, 2, capsys)
    monkeypatch.setenv("JUDGE_VERDICT_CACHE", "on")
    out = tmp_path / "runs"
    assert main(["batch", str(instances), "--out", str(out), "--draws", "0"]) == 0
    err = capsys.readouterr().err
    assert "using the default (none)" not in err and "yes/no word" not in err, err
    assert (out / "verdict-cache").is_dir() and any((out / "verdict-cache").rglob("*.json"))
    doc = json.loads((out / "alg-0" / "logs" / "verifier" / "result.json").read_text())
    assert not [w for w in doc["details"]["warnings"] if "JUDGE_VERDICT_CACHE" in w], doc["details"]["warnings"]
