"""Trial 18 P-5: the folder ``cowork-judge try --out DIR`` keeps (app/, logs/, tests/) given back to ``try --rollout``
was read FLAT: the previous run's rubric (tests/rubric.json, the ground truth), verdicts and evidence were judged as
deliverables. It is now recognised (the `TRY_MARKER` file try writes, or the shape app/ + logs/verifier/ +
tests/test.sh) and read in the container layout: app/ and logs/agent/ only, the rest ignored in one line. A
hand-made folder with stray extras stays flat, loudly. The real ``try`` CLI, sandboxed, against the simulator."""

from __future__ import annotations

import json

from testkit import write_files

from cowork_judge.install import dryrun
from cowork_judge.sim import DemoPolicy, SimServer
from install.test_try_output import inited_task, shared_cache, try_cli

ROWS = [
    {"id": "C-REPORT", "description": "A report file is delivered.", "weight": 1, "judge_method": "code",
     "code_method_name": "text_contains", "code_method_params": {"text": "photosynthesis"}},
    {"id": "C-SECRET", "description": "The report names the Calvin cycle.", "weight": 1, "judge_method": "code",
     "code_method_name": "text_contains", "code_method_params": {"text": "Calvin cycle"}},
]
KEY = "sk-sim-rehearsal"


def _task(root):
    return inited_task(root / "t", ROWS, "Write a report on photosynthesis in /app/output/.\n")


def _delivered(out):
    result = json.loads((out / "logs" / "verifier" / "result.json").read_text())
    return result["reward"], json.dumps(result["details"]["delivery"])


def test_a_kept_out_folder_is_re_judged_as_a_rollout_not_flat(tmp_path, sandbox_ready):
    task = _task(tmp_path)
    flat = tmp_path / "deliverables"
    flat.mkdir()
    (flat / "report.md").write_text("A short report on photosynthesis.\n")  # no "Calvin cycle": C-SECRET misses
    message = tmp_path / "msg.txt"
    message.write_text("The report is saved in /app/output/report.md.\n")
    cache, env = shared_cache(tmp_path / "cache"), {"JUDGE_BASE_URL": "", "JUDGE_API_KEY": KEY}
    with SimServer(DemoPolicy()) as sim:
        env["JUDGE_BASE_URL"] = sim.url
        first = try_cli(str(task), "--rollout", str(flat), "--final-message", str(message), "--out",
                        str(tmp_path / "run1"), cache=cache, tmpdir=tmp_path / "tmp", env=env)
        assert "reward: 0.5" in first.stdout.splitlines(), first.stdout + first.stderr
        assert (tmp_path / "run1" / dryrun.TRY_MARKER).is_file()
        again = try_cli(str(task), "--rollout", str(tmp_path / "run1"), "--out", str(tmp_path / "run2"), cache=cache,
                        tmpdir=tmp_path / "tmp", env=env)
    text = again.stdout + again.stderr
    assert "FLAT" not in text, text
    assert "rollout: a folder `cowork-judge try --out` kept (its app/ and logs/agent/)" in text
    assert "tests/, logs/verifier/, logs/artifacts/ (the previous run's rubric, verdicts and copies) are ignored" in text
    reward, delivery = _delivered(tmp_path / "run2")
    assert reward == 0.5, text  # the rubric's "Calvin cycle" (tests/rubric.json) is not a deliverable
    assert "report.md" in delivery and "rubric.json" not in delivery and "result.json" not in delivery
    assert json.loads((tmp_path / "run2" / "logs" / "agent" / "trajectory.json").read_text()) == \
        json.loads((tmp_path / "run1" / "logs" / "agent" / "trajectory.json").read_text())


def _kept_shape(root, *, marker=True):
    (root / "app" / "output").mkdir(parents=True)
    (root / "logs" / "agent").mkdir(parents=True)
    (root / "logs" / "verifier").mkdir()
    (root / "tests").mkdir()
    (root / "tests" / "test.sh").write_text("#!/bin/bash\n")
    if marker:
        (root / dryrun.TRY_MARKER).write_text("{}")
    return root


def test_the_shape_alone_is_recognised_and_stray_extras_stay_flat(tmp_path):
    assert dryrun.read_rollout(_kept_shape(tmp_path / "a")).layout == "kept"
    bare = _kept_shape(tmp_path / "b", marker=False)
    rollout = dryrun.read_rollout(bare)
    assert rollout.layout == "kept" and set(rollout.files) == {"/app", "/logs/agent"}
    (tmp_path / "b" / "tests" / "test.sh").unlink()  # app/ + logs/ + tests/ without a run's shape: hand-made
    assert dryrun.read_rollout(bare).layout == "flat"
    extra = _kept_shape(tmp_path / "c")
    (extra / "notes.txt").write_text("mine")
    rollout = dryrun.read_rollout(extra)
    assert rollout.layout == "flat" and "notes.txt" in rollout.flat_because


def _separate_task_dir(task):
    """A one-row task at `task` (returned) with a separate verifier whose collect hook carries the final message."""
    from cowork_judge.install.taskinit import COLLECT_COMMAND

    return write_files(task, {
        "tests/test.sh": "#!/bin/bash\n",
        "tests/rubric.json": json.dumps({"rubrics": [{"id": "A", "description": "x", "weight": 1}]}),
        "task.toml": 'version = "1.0"\nartifacts = ["/app/output"]\n\n[verifier]\ntimeout_sec = 900.0\n'
                     f'environment_mode = "separate"\n\n[[verifier.collect]]\ncommand = {json.dumps(COLLECT_COMMAND)}\n'})


def test_a_kept_folder_of_a_separate_verifier_task_keeps_its_final_message(tmp_path):
    """A separate verifier sees only the artifacts: `stage` puts the final message where init's collect hook does
    (``logs/artifacts/cowork-judge-agent/``) and leaves ``logs/agent/`` empty. Read back as a kept folder, that copy
    is the agent's folder; ignoring it lost the final message (a chat task re-judged as nothing said)."""
    from cowork_judge.install.taskinit import AGENT_COPY_DIR

    task = _separate_task_dir(tmp_path / "chat")
    answer = tmp_path / "answer.txt"
    answer.write_text("Take 500 mg.")
    first = dryrun.read_rollout(None, final_message=answer)
    info = dryrun.read_task(task)
    assert info.separate and info.collect_agent
    out = tmp_path / "out"
    dryrun.stage(info, first, out)
    copy = out / AGENT_COPY_DIR.lstrip("/")
    assert not any((out / "logs" / "agent").iterdir()) and any(copy.iterdir())
    again = dryrun.read_rollout(out)
    assert again.layout == "kept" and again.files["/logs/agent"] == copy, again.files
    assert "collect hook carried" in again.ignored
    shared = _kept_shape(tmp_path / "shared")
    (shared / "logs" / "agent" / "final_answer.txt").write_text("mine")
    assert dryrun.read_rollout(shared).files["/logs/agent"] == shared / "logs" / "agent"


def _separate_task(tmp_path):
    return dryrun.read_task(_separate_task_dir(tmp_path / "sep"))


def test_empty_folders_of_a_kept_folder_are_not_called_unseen_by_a_separate_verifier(tmp_path):
    """Trial 19 P-2: re-judging a kept folder said "/app (besides /app/output) … is not an artifact of this task" and
    "/logs/agent … is not an artifact" about the empty folders try itself had laid out."""
    kept = _kept_shape(tmp_path / "kept")
    staged = dryrun.stage(_separate_task(tmp_path), dryrun.read_rollout(kept), tmp_path / "out")
    assert staged.left_out == []


def test_what_a_separate_verifier_does_not_see_is_still_named(tmp_path):
    rollout_root = write_files(tmp_path / "r", {"app/output/deck.pptx": b"x", "app/notes.txt": "scratch",
                                                 "logs/agent/setup.log": "log"})
    staged = dryrun.stage(_separate_task(tmp_path), dryrun.read_rollout(rollout_root), tmp_path / "out")
    # /logs/agent's setup.log is not: the judge reads nothing there but what init's collect hook carries (trial 21 P-3)
    assert staged.left_out == ["/app (besides /app/output)"], staged.left_out
