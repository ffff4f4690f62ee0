"""``cowork-judge try`` without a sandbox run: the rollout layouts, Harbor's ``[verifier.env]`` rules, what a
separate verifier sees, the outcome read back, and bad input (exit 2). The sandboxed runs are in
`test_try_sandbox` (slow) and, for the page's deck task, `test_harbor_native` (slow)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
from pathlib import Path
from typing import Any

import pytest
from testkit import ROLLOUTS, write_files

from cowork_judge.commands import main as cli
from cowork_judge.install import dryrun, wheels
from cowork_judge.install.dryrun import TryError
from install.harness import REPO

TASK_TOML = """version = "1.0"
artifacts = ["/app/output", "/logs/agent/trajectory.json"]

[verifier]
timeout_sec = 900.0
environment_mode = "{mode}"

[verifier.env]
JUDGE_API_KEY = "${{JUDGE_API_KEY}}"
JUDGE_MODEL = "${{JUDGE_MODEL:-gpt-5.5}}"
JUDGE_EMPTY = "${{TRY_TEST_EMPTY:-fallback}}"
LITERAL = "as written"
"""


def make_task(root: Path, *, mode: str = "separate", rubric: bool = True, test_sh: bool = True, toml: bool = True) -> Path:
    task = root / "task"
    (task / "tests").mkdir(parents=True)
    if test_sh:
        (task / "tests" / "test.sh").write_text("#!/bin/bash\necho hi\n")
    if rubric:
        (task / "tests" / "rubric.json").write_text('{"rubrics": []}\n')
    if toml:
        (task / "task.toml").write_text(TASK_TOML.format(mode=mode))
    return task


PASSES_CREDENTIALS = ('JUDGE_BASE_URL = "${JUDGE_BASE_URL}"\nOPENAI_API_KEY = "${OPENAI_API_KEY:-}"\n'
                      'OPENAI_BASE_URL = "${OPENAI_BASE_URL:-}"\n')
"""[verifier.env] lines (after `TASK_TOML`'s) of a task that passes both credential families: the judge inside
reads what the shell sets, so try checks the pair as the judge would (trial 21 P-7)."""


def passing_credentials(task: Path) -> Path:
    """`task` (`make_task`) with `PASSES_CREDENTIALS` added to its [verifier.env]."""
    with (task / "task.toml").open("a") as fh:
        fh.write(PASSES_CREDENTIALS)
    return task


# ------------------------------------------------------------------ the rollout folder

def test_a_container_layout_rollout_maps_app_and_agent_logs():
    rollout = dryrun.read_rollout(ROLLOUTS / "deck")
    assert rollout.layout == "container"
    assert rollout.files == {"/app": ROLLOUTS / "deck" / "app", "/logs/agent": ROLLOUTS / "deck" / "logs" / "agent"}


def test_a_harbor_trial_folder_is_read_through_its_artifacts(tmp_path):
    trial = tmp_path / "my-task__abc"
    (trial / "artifacts" / "app" / "output").mkdir(parents=True)
    (trial / "artifacts" / "logs" / "agent").mkdir(parents=True)
    (trial / "artifacts" / "manifest.json").write_text("[]")
    (trial / "result.json").write_text("{}")
    (trial / "verifier").mkdir()
    rollout = dryrun.read_rollout(trial)
    assert rollout.layout == "trial"
    assert rollout.files == {"/app": trial / "artifacts" / "app", "/logs/agent": trial / "artifacts" / "logs" / "agent"}
    assert dryrun.read_rollout(trial / "artifacts").layout == "container"  # the artifacts folder alone


def test_any_other_folder_is_flat_deliverables(tmp_path):
    folder = tmp_path / "rollout"
    (folder / "app").mkdir(parents=True)  # a deliverable folder that happens to be called app, beside a file: still flat
    (folder / "deck.pptx").write_bytes(b"x")
    traj = tmp_path / "t.json"
    traj.write_text("{}")
    rollout = dryrun.read_rollout(folder, trajectory=traj)
    assert rollout.layout == "flat"
    assert rollout.files == {"/app/output": folder, "/logs/agent/trajectory.json": traj}
    assert not rollout.message_as_text


@pytest.mark.parametrize("extra, why", [
    ({"notes": "dir"}, "besides app/ and logs/ it holds notes/ (a container-layout rollout holds only app/, logs/"),
    ({"README.md": "file"}, "it holds README.md"),
    ({}, "logs is not a folder"),
])
def test_a_folder_that_looks_like_a_rollout_but_is_flat_says_why(tmp_path, extra, why):
    """usertrial #15: app/, logs/ and one more folder was read as flat with no word of why."""
    folder = tmp_path / "rollout"
    (folder / "app" / "output").mkdir(parents=True)
    if extra:
        (folder / "logs" / "agent").mkdir(parents=True)
    else:
        (folder / "logs").write_text("not a folder")
    for name, kind in extra.items():
        (folder / name).mkdir() if kind == "dir" else (folder / name).write_text("x")
    rollout = dryrun.read_rollout(folder)
    assert rollout.layout == "flat" and why in rollout.flat_because
    assert dryrun.read_rollout(ROLLOUTS / "deck").flat_because == ""
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "deck.pptx").write_bytes(b"x")
    assert dryrun.read_rollout(plain).flat_because == ""  # an ordinary flat folder needs no explanation


@pytest.mark.parametrize("kwargs, message", [
    ({"trajectory": Path("/nonexistent/t.json")}, "--trajectory /nonexistent/t.json: no such file"),
    ({"final_message": Path("/nonexistent/m.txt")}, "--final-message /nonexistent/m.txt: no such file"),
])
def test_a_missing_message_file_is_an_error(tmp_path, kwargs, message):
    with pytest.raises(TryError, match=message):
        dryrun.read_rollout(tmp_path, **kwargs)


def test_a_container_layout_has_its_own_final_message(tmp_path):
    msg = tmp_path / "m.txt"
    msg.write_text("done")
    with pytest.raises(TryError, match="container layout"):
        dryrun.read_rollout(ROLLOUTS / "deck", final_message=msg)


def test_a_missing_rollout_folder_says_what_a_rollout_is(tmp_path):
    with pytest.raises(TryError, match="no such rollout folder.*app/output"):
        dryrun.read_rollout(tmp_path / "nope")


# ------------------------------------------------------------------ [verifier.env] as Harbor resolves it

def test_verifier_env_templates_resolve_like_harbor():
    templates = {"A": "${HOST_A}", "B": "${HOST_B:-dflt}", "C": "${HOST_C:-dflt}", "D": "literal ${NOT_WHOLE}"}
    got = dryrun.resolve_verifier_env(templates, {"HOST_A": "a", "HOST_C": ""})
    assert got == {"A": "a", "B": "dflt", "C": "", "D": "literal ${NOT_WHOLE}"}  # an empty value is not unset


def test_judge_settings_the_verifier_env_does_not_pass_are_named():
    """usertrial #6: JUDGE_GUARD=penalize JUDGE_SAMPLES=3 on the host never reached the judge, silently."""
    host = {"JUDGE_GUARD": "penalize", "JUDGE_SAMPLES": "3", "JUDGE_MODEL": "m", "JUDGE_EMPTY_ONE": "", "PATH": "/bin",
            "GATEWAY_KEY": "sk-secret-value-1234", "OTHER_KEY": "sk-x",
            "JUDGE_PANEL": '[{"model": "a"}, {"model": "b", "api_key_env": "GATEWAY_KEY"}, {"model": "c", "api_key_env": "NOPE"}]'}
    passed = {"JUDGE_MODEL": "m", "JUDGE_PANEL": host["JUDGE_PANEL"], "COWORK_JUDGE_EXTRAS": ""}
    assert dryrun.dropped_variables(host, passed) == ["GATEWAY_KEY", "JUDGE_GUARD", "JUDGE_SAMPLES"]
    assert dryrun.dropped_variables(host, {**passed, "JUDGE_GUARD": "", "JUDGE_SAMPLES": "", "GATEWAY_KEY": ""}) == []
    assert dryrun.dropped_variables({"JUDGE_PANEL": "not json"}, {}) == ["JUDGE_PANEL"]


def test_an_unset_template_without_default_is_refused_as_harbor_refuses_the_trial():
    with pytest.raises(TryError, match=r"Harbor would refuse.*JUDGE_API_KEY = \"\$\{JUDGE_API_KEY\}\""):
        dryrun.resolve_verifier_env({"JUDGE_API_KEY": "${JUDGE_API_KEY}", "X": "${X:-1}"}, {})


# ------------------------------------------------------------------ what the verifier sees

def test_a_separate_verifier_sees_only_the_artifacts(tmp_path):
    task = dryrun.read_task(make_task(tmp_path, mode="separate"))
    assert task.separate and task.artifacts == ["/app/output", "/logs/agent/trajectory.json"] and task.timeout_sec == 900.0
    rollout = write_files(tmp_path / "rollout", {"app/output/deck.pptx": b"deck", "app/notes.txt": "agent scratch",
                                                 "logs/agent/trajectory.json": "{}",
                                                 "logs/agent/secrets.log": "not an artifact"})
    staged = dryrun.stage(task, dryrun.read_rollout(rollout), tmp_path / "out")
    assert (staged.app / "output" / "deck.pptx").read_bytes() == b"deck"
    assert not (staged.app / "notes.txt").exists() and not (staged.logs / "agent" / "secrets.log").exists()
    assert (staged.logs / "agent" / "trajectory.json").is_file()
    assert sorted(staged.placed) == ["/app/output", "/logs/agent/trajectory.json"]
    assert any(x.startswith("/app ") for x in staged.left_out) and any(x.startswith("/logs/agent ") for x in staged.left_out)
    assert os.stat(staged.tests / "test.sh").st_mode & stat.S_IXUSR  # Harbor runs chmod +x
    assert (staged.verifier).is_dir()


def test_a_shared_verifier_sees_the_whole_container(tmp_path):
    task = dryrun.read_task(make_task(tmp_path, mode="shared"))
    assert not task.separate
    staged = dryrun.stage(task, dryrun.read_rollout(ROLLOUTS / "deck"), tmp_path / "out")
    assert (staged.app / "output" / "build_effective_agents.pptx").is_file()
    assert (staged.logs / "agent" / "trajectory.json").is_file() and not staged.left_out


def test_a_final_message_becomes_a_one_step_atif_trajectory_the_judge_reads(tmp_path):
    from cowork_judge.run.answer import atif_final_message

    task = dryrun.read_task(make_task(tmp_path))
    deliverables = tmp_path / "deliverables"
    deliverables.mkdir()
    (deliverables / "report.md").write_text("# Report\n")
    msg = tmp_path / "final.txt"
    msg.write_text("Here is the report, in output/.")
    staged = dryrun.stage(task, dryrun.read_rollout(deliverables, final_message=msg), tmp_path / "out")
    assert (staged.app / "output" / "report.md").is_file()
    doc = json.loads((staged.logs / "agent" / "trajectory.json").read_text())
    assert atif_final_message(doc) == "Here is the report, in output/."


def test_a_named_pipe_in_the_rollout_is_left_out_and_named_not_a_shutil_error(tmp_path):
    """Trial 14 F7: a FIFO beside the deck stopped `try` with ``shutil.Error``'s repr (exit 1), naming a sandbox
    already removed. The judge leaves such a file out of a trial (``not_regular``): so does the staging, saying so."""
    task = dryrun.read_task(make_task(tmp_path))
    flat = tmp_path / "flat"
    flat.mkdir()
    (flat / "deck.pptx").write_bytes(b"deck")
    os.mkfifo(flat / "pipe")
    staged = dryrun.stage(task, dryrun.read_rollout(flat), tmp_path / "out")
    assert (staged.app / "output" / "deck.pptx").read_bytes() == b"deck"
    assert not os.path.lexists(staged.app / "output" / "pipe")
    assert any(f"{flat / 'pipe'} is a named pipe: not copied" in w for w in staged.warnings), staged.warnings


def test_stage_refuses_an_out_folder_already_used(tmp_path):
    task = dryrun.read_task(make_task(tmp_path))
    (tmp_path / "out" / "logs").mkdir(parents=True)
    with pytest.raises(TryError, match="already holds logs/"):
        dryrun.stage(task, dryrun.read_rollout(ROLLOUTS / "deck"), tmp_path / "out")


# ------------------------------------------------------------------ the outcome

def test_the_outcome_of_a_clean_run(tmp_path):
    (tmp_path / "reward.txt").write_text("0.75\n")
    (tmp_path / "result.json").write_text(json.dumps({
        "status": "success", "exit_code": None, "exit_reason": None, "extra_fields": {"judge_coverage": 0.5},
        "results": [{"id": "a", "judged": True}, {"id": "b", "judged": False, "error_kind": "render_env"}]}))
    out = dryrun.read_outcome(tmp_path)
    assert out.reward == 0.75 and out.clean and out.coverage == 0.5 and out.rows == 2 and out.unjudged == {"render_env": 1}
    assert list(out.documents) == ["reward.txt", "result.json"]


def test_the_outcome_of_the_failure_path_and_of_no_reward(tmp_path):
    assert not dryrun.read_outcome(tmp_path).clean and dryrun.read_outcome(tmp_path).reward_text == ""
    (tmp_path / "reward.txt").write_text("0.0\n")
    (tmp_path / "result.json").write_text(json.dumps({"status": "error", "exit_code": "judge:api_error",
                                                      "exit_reason": "the package index could not be reached"}))
    out = dryrun.read_outcome(tmp_path)
    assert out.reward == 0.0 and not out.clean and out.exit_code == "judge:api_error" and not out.failure_path
    (tmp_path / "test-sh.log").write_text("cowork-judge/test.sh: installing\n" + dryrun.FAILURE_PATH_LINE
                                          + " judge:api_error: the package index could not be reached\n")
    assert dryrun.read_outcome(tmp_path).failure_path


def test_the_failure_path_line_is_what_the_template_writes():
    from cowork_judge.install.template import template_text

    said = dryrun.FAILURE_PATH_LINE.removeprefix("cowork-judge/test.sh: ")
    assert 'say() {\n  printf \'%s\\n\' "cowork-judge/test.sh: $*"' in template_text()
    assert f'say "{said} $INF_CODE: $INF_REASON"' in template_text()


@pytest.mark.parametrize("judge_doc", [True, False])
def test_the_not_clean_message_says_whose_reward_it_is(tmp_path, capsys, judge_doc):
    """usertrial #14: a reward of 0.0833 the judge wrote itself (a systemic api_error) was called "the failure
    path's"; test.sh's own fallback (0) is another thing."""
    from cowork_judge.commands import try_
    from cowork_judge._util.procs import ProcResult

    verifier = tmp_path / "logs" / "verifier"
    verifier.mkdir(parents=True)
    (verifier / "reward.txt").write_text("0.08333\n" if judge_doc else "0.0\n")
    (verifier / "result.json").write_text(json.dumps({"status": "error", "exit_code": "judge:api_error",
                                                      "exit_reason": "6 of 8 rows unjudged", "results": []}))
    if not judge_doc:
        (verifier / "test-sh.log").write_text(dryrun.FAILURE_PATH_LINE + " judge:api_error: pip failed\n")
    staged = dryrun.Staged(app=tmp_path / "app", logs=tmp_path / "logs", tests=tmp_path / "tests")
    status = try_._report(dryrun.read_outcome(verifier), staged, ProcResult(returncode=1, stdout="", stderr="", seconds=3.0), 3.0)
    err = capsys.readouterr().err
    assert status == 1
    if judge_doc:
        assert "the reward above is the judge's own" in err and "failure path" not in err
    else:
        assert "test.sh's failure path" in err and "judge's own" not in err


@pytest.mark.parametrize("env, have, lack", [
    ({"JUDGE_BASE_URL": "http://127.0.0.1:9/v1"}, "JUDGE_BASE_URL", "JUDGE_API_KEY"),
    ({"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}, "OPENAI_BASE_URL", "OPENAI_API_KEY"),  # the variable set (issue 39)
    ({"OPENAI_API_KEY": "sk-some-key-123456"}, "OPENAI_API_KEY", "OPENAI_BASE_URL"),
    ({"JUDGE_API_KEY": "sk-some-key-123456"}, "JUDGE_API_KEY", "JUDGE_BASE_URL"),
    ({"JUDGE_API_KEY": "sk-some-key-123456", "JUDGE_BASE_URL": "127.0.0.1:9/v1"}, "JUDGE_API_KEY",
     "JUDGE_BASE_URL has no scheme (it must begin with http:// or https://), so the judge ignores it"),
    ({"JUDGE_API_KEY": "sk-some-key-123456", "JUDGE_BASE_URL": "http://127.0.0.1:9/v1/chat/completions"}, "JUDGE_API_KEY",
     "JUDGE_BASE_URL ends in the route /chat/completions"),  # trial 22: the full route pasted
])
def test_half_a_credential_pair_is_refused_not_quietly_the_simulator(tmp_path, capsys, monkeypatch, env, have, lack):
    """usertrial #9: JUDGE_BASE_URL without JUDGE_API_KEY said "no JUDGE_BASE_URL/JUDGE_API_KEY set" and judged with
    the simulator; a trial would never reach that endpoint. Refused before anything is built."""
    for name in ("JUDGE_BASE_URL", "JUDGE_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY", "JUDGE_GATEWAY_AUTH"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert cli(["try", str(passing_credentials(make_task(tmp_path))), "--rollout", str(ROLLOUTS / "deck")]) == 2
    out = capsys.readouterr()
    assert f"{have} is set" in out.err and (f"but {lack} is not" in out.err or f"but {lack}" in out.err)
    assert "simulator" not in out.out
    assert "sk-some-key" not in out.err + out.out and "building the wheel" not in out.out


@pytest.mark.parametrize("env, have, other, lack", [
    ({"JUDGE_API_KEY": "sk-judge-1234567890", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"},
     "JUDGE_API_KEY", "OPENAI_BASE_URL", "JUDGE_BASE_URL"),
    ({"JUDGE_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_API_KEY": "sk-openai-1234567890"},
     "JUDGE_BASE_URL", "OPENAI_API_KEY", "JUDGE_API_KEY"),
])
def test_a_pair_mixed_from_both_families_is_refused_naming_both(tmp_path, capsys, monkeypatch, env, have, other, lack):
    """Trial finding 12: JUDGE_API_KEY with OPENAI_BASE_URL printed an empty `endpoint: JUDGE_BASE_URL=` line
    (the key would have gone to the other family's URL); refused up front, both variables named."""
    for name in ("JUDGE_BASE_URL", "JUDGE_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY", "JUDGE_GATEWAY_AUTH"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert cli(["try", str(passing_credentials(make_task(tmp_path))), "--rollout", str(ROLLOUTS / "deck")]) == 2
    out = capsys.readouterr()
    assert "endpoint:" not in out.out and "simulator" not in out.out
    assert f"error: {have} is set and {other} is set, but {lack} is not: a credential pair comes from one family" in out.err
    assert f"Set {lack}, or unset {have} to use the OPENAI_* pair" in out.err
    assert "sk-judge" not in out.err + out.out and "sk-openai" not in out.err + out.out


def test_the_endpoint_line_names_the_variable_the_url_came_from(monkeypatch, capsys):
    """Trial finding 12: an OPENAI_* pair printed `endpoint: JUDGE_BASE_URL=` (empty)."""
    from cowork_judge.commands import try_

    for name in ("JUDGE_API_KEY", "JUDGE_BASE_URL", "JUDGE_GATEWAY_AUTH"):
        monkeypatch.delenv(name, raising=False)
    with socket.create_server(("127.0.0.1", 0)) as listening:  # something listens (trial 23 P-6 refuses nothing)
        url = f"http://127.0.0.1:{listening.getsockname()[1]}/v1"
        host = {"OPENAI_API_KEY": "sk-openai-1234567890", "OPENAI_BASE_URL": url}
        templates = {"OPENAI_API_KEY": "${OPENAI_API_KEY}", "OPENAI_BASE_URL": "${OPENAI_BASE_URL}"}  # the task passes them
        assert try_._endpoint(host, templates) is None
    assert f"  endpoint: OPENAI_BASE_URL={url} (a loopback endpoint" in capsys.readouterr().out


def test_an_unknown_judge_setting_gets_a_did_you_mean_not_an_init_suggestion(capsys):
    """Trial finding 11: JUDGE_SAMPLS=3 was suggested as `cowork-judge init --env JUDGE_SAMPLS <task>`."""
    from cowork_judge.commands import try_

    try_._warn_dropped(["JUDGE_GUARD", "JUDGE_SAMPLS"], {"JUDGE_GUARD": "flag", "JUDGE_SAMPLS": "3"})
    err = capsys.readouterr().err
    assert "JUDGE_SAMPLS is not a setting the judge reads (did you mean JUDGE_SAMPLES?): nothing reads it" in err
    assert "init --env JUDGE_GUARD <task>" in err and "--env JUDGE_SAMPLS" not in err
    panel = '[{"name": "b", "model": "m", "api_key_env": "JUDGE_SECOND_KEY"}]'
    try_._warn_dropped(["JUDGE_SECOND_KEY"], {"JUDGE_PANEL": panel, "JUDGE_SECOND_KEY": "sk-x-1234567890"})
    err = capsys.readouterr().err  # a panel judge's key variable is read, whatever its name
    assert "not a setting" not in err and "--env JUDGE_SECOND_KEY" in err


def test_a_gateway_that_injects_the_key_is_a_whole_pair(tmp_path, monkeypatch):
    from cowork_judge.commands import try_

    for name in ("JUDGE_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    with socket.create_server(("127.0.0.1", 0)) as listening:  # something listens (trial 23 P-6 refuses nothing)
        host = {"JUDGE_BASE_URL": f"http://127.0.0.1:{listening.getsockname()[1]}/v1", "JUDGE_GATEWAY_AUTH": "placeholder"}
        assert try_._endpoint(host, {}) is None  # the caller's endpoint, no simulator started, nothing refused


# ------------------------------------------------------------------ the judge's wheel

def test_this_checkout_is_found_as_the_judge_source():
    source = wheels.find_judge_source()
    assert source is not None and source.kind == "checkout" and Path(source.location) == REPO


def test_the_cache_root_follows_the_environment(tmp_path):
    assert wheels.cache_root({"COWORK_JUDGE_CACHE": str(tmp_path)}) == tmp_path
    assert wheels.cache_root({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "cowork-judge"


# ------------------------------------------------------------------ bad input: exit 2, one line, nothing run

@pytest.mark.parametrize("change, message", [
    ({"test_sh": False}, "tests/test.sh: missing"),
    ({"rubric": False}, "tests/rubric.json: missing"),
    ({"toml": False}, "task.toml: missing"),
])
def test_an_incomplete_task_is_a_usage_error(tmp_path, capsys, change, message):
    task = make_task(tmp_path, **change)
    assert cli(["try", str(task), "--rollout", str(ROLLOUTS / "deck")]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_a_missing_rollout_is_a_usage_error(tmp_path, capsys):
    assert cli(["try", str(make_task(tmp_path)), "--rollout", str(tmp_path / "nope")]) == 2
    assert "no such rollout folder" in capsys.readouterr().err


def test_a_missing_task_folder_is_a_usage_error(tmp_path, capsys):
    assert cli(["try", str(tmp_path / "nope"), "--rollout", str(ROLLOUTS / "deck")]) == 2
    assert "nope does not exist" in capsys.readouterr().err


def test_an_unset_verifier_env_variable_is_a_usage_error_before_anything_is_built(tmp_path, capsys):
    task = make_task(tmp_path)
    with (task / "task.toml").open("a") as fh:
        fh.write('NEEDED = "${TRY_TEST_UNSET_VARIABLE}"\n')
    assert cli(["try", str(task), "--rollout", str(ROLLOUTS / "deck")]) == 2
    out = capsys.readouterr()
    assert "Harbor would refuse this trial" in out.err and "TRY_TEST_UNSET_VARIABLE" in out.err
    assert "building the wheel" not in out.out


def test_version_without_index_url_is_a_usage_error(tmp_path, capsys):
    assert cli(["try", str(make_task(tmp_path)), "--rollout", str(ROLLOUTS / "deck"), "--version", "0.2.0"]) == 2
    assert "--version goes with --index-url" in capsys.readouterr().err


def test_a_used_out_folder_is_refused_before_anything_runs(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "x").write_text("x")
    assert cli(["try", str(make_task(tmp_path)), "--rollout", str(ROLLOUTS / "deck"), "--out", str(out)]) == 2
    assert "not empty" in capsys.readouterr().err


def test_an_out_that_is_a_file_is_a_usage_error_and_the_file_is_kept(tmp_path):
    """trial 2 #11b: `--out precious.txt` (an existing file) printed a raw `[Errno 17] File exists` and exited 1."""
    import subprocess
    import sys

    precious = tmp_path / "precious.txt"
    precious.write_text("keep me")
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "try", str(make_task(tmp_path)), "--rollout",
                           str(ROLLOUTS / "deck"), "--out", str(precious)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO / "src")})
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"--out {precious}: exists and is not a folder (give a new folder)" in proc.stderr
    assert "Errno" not in proc.stderr and "Traceback" not in proc.stderr
    assert precious.read_text() == "keep me"


def test_the_command_is_listed(capsys):
    assert cli(["--help"]) == 0
    assert "try" in capsys.readouterr().out
    assert shutil.which("bash")  # what test.sh and the plain mode need


class _Dist:
    def __init__(self, direct_url: dict | None) -> None:
        self.direct_url = direct_url

    def read_text(self, name: str) -> str | None:
        return json.dumps(self.direct_url) if name == "direct_url.json" and self.direct_url is not None else None


SITE_COPY = "/venv/lib/python3.11/site-packages/cowork_judge/install/wheels.py"
"""Where a non-editable install keeps this module: no checkout around it."""


@pytest.mark.parametrize("direct_url, expected", [
    ({"url": REPO.as_uri(), "dir_info": {}}, ("checkout", str(REPO), True)),  # pip install /path/to/checkout
    ({"url": REPO.as_uri(), "dir_info": {"editable": True}}, ("checkout", str(REPO), False)),
    ({"url": "https://example.com/cowork_judge-0.2.0-py3-none-any.whl", "archive_info": {}}, None),  # not on this machine
    (None, None),  # installed from an index: no direct_url.json
])
def test_an_installed_copy_finds_where_it_came_from(monkeypatch, direct_url, expected):
    from importlib import metadata

    monkeypatch.setattr(metadata, "distribution", lambda name: _Dist(direct_url))
    source = wheels.find_judge_source(SITE_COPY)
    assert (None if source is None else (source.kind, source.location, source.installed_copy)) == expected


def test_a_local_wheel_file_it_was_installed_from_is_reused(monkeypatch, tmp_path):
    from importlib import metadata

    wheel = tmp_path / "cowork_judge-0.2.0-py3-none-any.whl"
    wheel.write_bytes(b"PK")
    monkeypatch.setattr(metadata, "distribution", lambda name: _Dist({"url": wheel.as_uri(), "archive_info": {}}))
    assert wheels.find_judge_source(SITE_COPY) == wheels.JudgeSource("wheel", str(wheel))


def test_a_final_message_that_is_not_utf8_is_warned_with_the_offset(tmp_path):
    """Trial 3 L2: staging names the file and the first undecodable byte (try prints it)."""
    task = dryrun.read_task(make_task(tmp_path))
    msg = tmp_path / "ans-latin.txt"
    msg.write_bytes("Answer: 25 m/s, caf".encode() + b"\xe9")
    staged = dryrun.stage(task, dryrun.read_rollout(None, final_message=msg), tmp_path / "out")
    assert staged.warnings == [f"--final-message {msg} is not UTF-8 (first undecodable byte at offset 19: 0xe9): read with "
                               "U+FFFD in place of the undecodable bytes"]


def test_a_verdict_cache_the_sandbox_discards_is_said():
    """Trial 14 F14: the sandbox shares no host folder, so a JUDGE_VERDICT_CACHE the task passes is
    kept in a sandbox-private copy and discarded; the dry run says so (not with --no-sandbox, not
    when the cache is off)."""
    note = dryrun.verdict_cache_note({"JUDGE_VERDICT_CACHE": "/tmp/vc"}, sandboxed=True)
    assert note is not None and note.startswith("JUDGE_VERDICT_CACHE='/tmp/vc' reaches the judge, but the sandbox")
    assert "discarded with the sandbox" in note and "--no-sandbox" in note
    for env in ({}, {"JUDGE_VERDICT_CACHE": "off"}, {"JUDGE_VERDICT_CACHE": " 0 "}, {"JUDGE_VERDICT_CACHE": ""}):
        assert dryrun.verdict_cache_note(env, sandboxed=True) is None, env
    assert dryrun.verdict_cache_note({"JUDGE_VERDICT_CACHE": "/tmp/vc"}, sandboxed=False) is None


def test_a_verdict_cache_in_the_judge_home_is_said_to_be_kept_on_this_machine(tmp_path):
    """Trial 15 P-5: harbor-task.md step 8's /opt/cowork-judge/verdict-cache is, in the sandbox, the
    persistent judge home on this machine (not discarded): the note says where, and that verdicts are reused."""
    home = tmp_path / "judge-homes" / "abc-py3.11-none-bwrap"
    env = {"JUDGE_VERDICT_CACHE": "/opt/cowork-judge/verdict-cache"}
    note = dryrun.verdict_cache_note(env, sandboxed=True, judge_home=home)
    assert note is not None and str(home / "verdict-cache") in note and "discarded" not in note
    assert "reused" in note and "JUDGE_VERDICT_CACHE=off" in note
    assert dryrun.verdict_cache_host("/opt/cowork-judge/verdict-cache", sandboxed=True, judge_home=home) == home / "verdict-cache"
    for value in ("/opt/cowork-judge-other/vc", "/opt/cowork-judge/../etc/vc", "/tmp/vc", "/app/vc", "vc"):
        assert dryrun.verdict_cache_host(value, sandboxed=True, judge_home=home) is None, value
    fresh = dryrun.verdict_cache_note(env, sandboxed=True, judge_home=None)  # --fresh-install: the home is removed
    assert fresh is not None and "discarded with the sandbox" in fresh


def cached_rows_outcome(tmp_path: Path, cached: list[bool]) -> tuple[dryrun.Outcome, dryrun.Staged]:
    """A finished dry run under `tmp_path` (app/, logs/, tests/; only ``logs/verifier`` is written: reward 1.0 and a
    successful result.json with one judged row ``A-<i>`` per entry of `cached`, its ``cached`` flag) read back as
    ``try`` reads it: its `dryrun.Outcome` and `dryrun.Staged` folders."""
    verifier = tmp_path / "logs" / "verifier"
    verifier.mkdir(parents=True, exist_ok=True)
    (verifier / "reward.txt").write_text("1.0\n")
    (verifier / "result.json").write_text(json.dumps({"status": "success", "exit_code": None, "results": [
        {"id": f"A-{i}", "judged": True, "cached": c} for i, c in enumerate(cached)]}))
    staged = dryrun.Staged(app=tmp_path / "app", logs=tmp_path / "logs", tests=tmp_path / "tests")
    return dryrun.read_outcome(verifier), staged


def _report_with_cached_rows(tmp_path: Path, capsys: Any, cached: list[bool], env: dict[str, str], *,
                             judge_home: Path | None) -> str:
    from cowork_judge.commands import try_
    from cowork_judge._util.procs import ProcResult

    outcome, staged = cached_rows_outcome(tmp_path, cached)
    line = dryrun.verdict_cache_line(outcome, env, sandboxed=True, judge_home=judge_home)
    try_._report(outcome, staged, ProcResult(returncode=0, stdout="", stderr="", seconds=1.0), 1.0, line)
    return capsys.readouterr().out


def test_try_says_with_the_reward_how_many_verdicts_the_cache_gave_and_where_it_lives(tmp_path, capsys):
    """Trial 15 P-5: a reward built from an earlier run's cached verdicts is said as such, under the reward,
    with the cache's folder on this machine (or that the sandbox discards it); nothing when the cache is off."""
    home = tmp_path / "judge-homes" / "abc-py3.11-none-bwrap"
    env = {"JUDGE_VERDICT_CACHE": "/opt/cowork-judge/verdict-cache"}
    out = _report_with_cached_rows(tmp_path, capsys, [True, True, False], env, judge_home=home)
    lines = out.splitlines()
    said = next(i for i, line in enumerate(lines) if line.startswith("verdict cache:"))
    assert lines[said].startswith(f"verdict cache: 2 of 3 row verdict(s) reused from the verdict cache {home / 'verdict-cache'} "
                                   "(kept on this machine between runs)")
    assert "earlier run" in lines[said] and said > next(i for i, line in enumerate(lines) if line.startswith("reward: 1.0"))
    out = _report_with_cached_rows(tmp_path, capsys, [False, False], {"JUDGE_VERDICT_CACHE": "/tmp/vc"}, judge_home=home)
    assert "verdict cache: 0 of 2 row verdict(s) reused from the verdict cache /tmp/vc (inside the sandbox: discarded with it)" in out
    out = _report_with_cached_rows(tmp_path, capsys, [True], {"JUDGE_VERDICT_CACHE": "off"}, judge_home=home)
    assert "verdict cache" not in out
